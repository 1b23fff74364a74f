//! A matrix's "every stored value is finite" fact, computed once on first use.
//!
//! Kernels whose fast paths are only right on finite values (a dense product computes
//! `0 * Inf` as NaN where the cell semantics say 0) and the optimizer (whose real-number
//! rewrites do not hold with Inf or NaN) ask [`FiniteCache::get_or_scan`]; the scan runs
//! once per matrix, and a mutable borrow of the values forgets the answer. A kernel that
//! learns the answer in its own pass over the values (`sddmm_sum_if_finite`,
//! `mmchain_if_finite`) records it, so that a matrix read in place from outside is never
//! scanned on its own.

use std::sync::OnceLock;

/// The cached answer; equal to any other cache, so it never affects matrix equality.
#[derive(Clone, Default)]
pub(crate) struct FiniteCache(OnceLock<bool>);

impl FiniteCache {
    /// A cache that already knows the answer (for constructors that know it for free).
    pub(crate) fn known(all_finite: bool) -> Self {
        let cell = OnceLock::new();
        let _ = cell.set(all_finite);
        FiniteCache(cell)
    }

    /// Whether every value of `values` is finite, scanning them on the first call only.
    pub(crate) fn get_or_scan(&self, values: &[f64]) -> bool {
        *self.0.get_or_init(|| all_finite(values))
    }

    /// The answer if it is known, without scanning.
    pub(crate) fn known_answer(&self) -> Option<bool> {
        self.0.get().copied()
    }

    /// Records the answer a kernel learned in its own pass over the values (kept if an
    /// answer is known already).
    pub(crate) fn record(&self, all_finite: bool) {
        let _ = self.0.set(all_finite);
    }

    /// Forgets the answer (the values are about to change).
    pub(crate) fn forget(&mut self) {
        self.0.take();
    }
}

/// Whether every value is finite, on all threads for large inputs.
pub(crate) fn all_finite(values: &[f64]) -> bool {
    const PARALLEL: usize = 1 << 16;
    if values.len() >= PARALLEL {
        use rayon::prelude::*;
        values.par_chunks(PARALLEL).all(finite_dispatch)
    } else {
        finite_dispatch(values)
    }
}

/// [`values_finite`] in its AVX2 build where the CPU has it (a 64-bit compare is one
/// instruction there; the portable build emulates it).
fn finite_dispatch(values: &[f64]) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports the feature the function is compiled for.
            return unsafe { values_finite_avx2(values) };
        }
    }
    values_finite(values)
}

/// # Safety
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn values_finite_avx2(values: &[f64]) -> bool {
    values_finite(values)
}

/// Whether every value is finite: its exponent bits are not all ones. Tested on the bits
/// with a branch-free fold (it vectorizes; an early-exit `all`, or a floating-point sum,
/// does not), a block at a time so a non-finite value stops the scan early. Inlined into
/// its callers so it is compiled with their target features.
#[inline(always)]
pub(crate) fn values_finite(values: &[f64]) -> bool {
    const BLOCK: usize = 4096;
    const EXPONENT: u64 = 0x7ff0_0000_0000_0000;
    values.chunks(BLOCK).all(|block| {
        block.iter().fold(0u64, |bad, v| {
            bad | u64::from(v.to_bits() & EXPONENT == EXPONENT)
        }) == 0
    })
}

impl PartialEq for FiniteCache {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl std::fmt::Debug for FiniteCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("_")
    }
}

#[cfg(test)]
mod tests {
    use super::all_finite;

    #[test]
    fn one_non_finite_value_anywhere_is_found() {
        for len in [0usize, 1, 4095, 4097, 200_000] {
            let mut values: Vec<f64> = (0..len).map(|i| i as f64 - 1e300).collect();
            assert!(all_finite(&values), "len {len}");
            for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
                for at in [0, len / 2, len.saturating_sub(1)] {
                    if at < len {
                        let kept = std::mem::replace(&mut values[at], bad);
                        assert!(!all_finite(&values), "len {len}, {bad} at {at}");
                        values[at] = kept;
                    }
                }
            }
        }
        // Large finite values whose products with zero stay zero.
        assert!(all_finite(&[f64::MAX, f64::MIN, -0.0, f64::MIN_POSITIVE]));
    }
}
