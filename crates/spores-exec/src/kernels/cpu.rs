//! What the CPU the process runs on can do beyond the baseline x86-64 the crate is built
//! for. Kernels whose inner loops gain from AVX2 and FMA compile a copy of them with
//! `#[target_feature(enable = "avx2,fma")]` and call it where [`avx2_fma`] says so.

/// Whether the CPU has AVX2 and FMA (asked once; `false` off x86-64).
pub(crate) fn avx2_fma() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        static HAS: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
        *HAS.get_or_init(|| {
            std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("fma")
        })
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}
