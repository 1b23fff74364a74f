//! Small parallelization helpers shared by the product kernels: work thresholds,
//! work-balanced row partitions, and a raw pointer that may cross threads.

/// Below roughly this many multiply-adds a kernel stays on the calling thread: rayon's
/// fork/join costs a few microseconds, which is more than the whole product below this.
pub(crate) const PAR_WORK: usize = 1 << 16;

/// Number of threads in the current rayon pool.
#[inline]
pub(crate) fn threads() -> usize {
    rayon::current_num_threads().max(1)
}

/// A zero-filled buffer of `len` cells for a kernel's output or accumulator.
///
/// Big buffers (4 MiB and up) are advised to use transparent huge pages on Linux, as
/// NumPy does: this machine's THP mode is `madvise`, and first-touch page faults on
/// fresh 4 KiB pages cost about 60 ms per 128 MiB, against about 12 ms with huge pages
/// (measured with a 4000×4000 output). The advice is only a hint: the contents are
/// zero either way, and other platforms just get the plain zeroed vector.
pub fn zeroed(len: usize) -> Vec<f64> {
    let v = vec![0.0f64; len];
    advise_huge_pages(&v);
    v
}

/// [`zeroed`] for coordinates: a zero-filled `u32` buffer, huge pages advised when big.
pub fn zeroed_u32(len: usize) -> Vec<u32> {
    let v = vec![0u32; len];
    advise_huge_pages(&v);
    v
}

/// Advises transparent huge pages for `v`'s buffer when it is 4 MiB or more (see
/// [`zeroed`]); call it before the buffer is first written.
fn advise_huge_pages<T>(v: &[T]) {
    #[cfg(target_os = "linux")]
    if std::mem::size_of_val(v) >= 4 << 20 {
        extern "C" {
            fn madvise(addr: *mut std::ffi::c_void, len: usize, advice: i32) -> i32;
        }
        const MADV_HUGEPAGE: i32 = 14;
        const PAGE: usize = 4096;
        let start = v.as_ptr() as usize;
        let end = start + std::mem::size_of_val(v);
        let first = start.div_ceil(PAGE) * PAGE;
        let last = end / PAGE * PAGE;
        if last > first {
            // SAFETY: [first, last) is page-aligned and lies inside `v`'s allocation;
            // MADV_HUGEPAGE changes no contents and a failure (e.g. THP disabled) is
            // harmless, so the return value is ignored.
            unsafe {
                madvise(first as *mut std::ffi::c_void, last - first, MADV_HUGEPAGE);
            }
        }
    }
}

/// Splits rows `0..rows` into at most `parts` consecutive ranges of about equal work,
/// where the work of rows `0..i` is `prefix[i] + i` (`prefix` has `rows + 1` entries and
/// is non-decreasing, e.g. a CSR `indptr`; the `+ i` charges each row for its own
/// overhead so runs of empty rows are split too). Returns the range boundaries, starting
/// with 0 and ending with `rows`; ranges are never empty unless `rows == 0`.
pub fn balanced_bounds(prefix: &[usize], parts: usize) -> Vec<usize> {
    let rows = prefix.len().saturating_sub(1);
    let work = |i: usize| prefix[i] + i;
    let total = work(rows);
    let parts = parts.clamp(1, rows.max(1));
    let mut bounds = Vec::with_capacity(parts + 1);
    bounds.push(0);
    for t in 1..parts {
        let target = (total as u128 * t as u128 / parts as u128) as usize;
        // First row boundary whose preceding work reaches the target.
        let (mut lo, mut hi) = (0usize, rows);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if work(mid) < target {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        if lo > *bounds.last().unwrap_or(&0) && lo < rows {
            bounds.push(lo);
        }
    }
    bounds.push(rows);
    bounds
}

/// Cuts a row-major buffer of `width`-wide rows at the row `bounds` from
/// [`balanced_bounds`], giving each range its own mutable slice with its first row.
pub fn split_rows_mut<'a>(
    mut data: &'a mut [f64],
    width: usize,
    bounds: &[usize],
) -> Vec<(usize, &'a mut [f64])> {
    let mut out = Vec::with_capacity(bounds.len().saturating_sub(1));
    for w in bounds.windows(2) {
        let (head, tail) = std::mem::take(&mut data).split_at_mut((w[1] - w[0]) * width);
        out.push((w[0], head));
        data = tail;
    }
    out
}

/// A raw output pointer shared by parallel tasks that write provably disjoint parts of
/// one buffer (panels of a GEMM output, blocks of a symmetric result).
#[derive(Clone, Copy)]
pub(crate) struct SyncPtr(pub(crate) *mut f64);

// SAFETY: the pointer is only dereferenced by tasks that write disjoint regions, and the
// buffer outlives the parallel scope that uses it.
unsafe impl Send for SyncPtr {}
unsafe impl Sync for SyncPtr {}

impl SyncPtr {
    /// The pointer (a method, so closures capture the whole `Send` wrapper).
    #[inline]
    pub(crate) fn get(self) -> *mut f64 {
        self.0
    }
}

/// `sum(a[i] * b[i])` with eight independent accumulators so the loop vectorizes and
/// pipelines despite floating-point addition not being associative.
#[inline]
pub(crate) fn dot(a: &[f64], b: &[f64]) -> f64 {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut acc = [0.0f64; 8];
    let ca = a.chunks_exact(8);
    let cb = b.chunks_exact(8);
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for l in 0..8 {
            acc[l] += x[l] * y[l];
        }
    }
    let mut s = ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7]));
    for (x, y) in ra.iter().zip(rb) {
        s += x * y;
    }
    s
}

/// `y += alpha * x` over the common length.
#[inline]
pub(crate) fn axpy(y: &mut [f64], alpha: f64, x: &[f64]) {
    for (yi, xi) in y.iter_mut().zip(x) {
        *yi += alpha * xi;
    }
}

/// `y += x` elementwise, in parallel for long buffers (used to reduce per-thread
/// accumulators).
pub(crate) fn add_assign(y: &mut [f64], x: &[f64]) {
    use rayon::prelude::*;
    const CHUNK: usize = 1 << 14;
    if y.len() < 4 * CHUNK {
        for (yi, xi) in y.iter_mut().zip(x) {
            *yi += xi;
        }
    } else {
        y.par_chunks_mut(CHUNK)
            .zip(x.par_chunks(CHUNK))
            .for_each(|(yc, xc)| {
                for (yi, xi) in yc.iter_mut().zip(xc) {
                    *yi += xi;
                }
            });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_cover_all_rows_and_balance_work() {
        // One heavy row in the middle and many empty rows.
        let mut prefix = vec![0usize; 101];
        prefix[50..].fill(1000);
        let b = balanced_bounds(&prefix, 4);
        assert_eq!(b.first(), Some(&0));
        assert_eq!(b.last(), Some(&100));
        assert!(b.windows(2).all(|w| w[0] < w[1]), "{b:?}");
        // The heavy row 49 ends up alone-ish: a boundary right after it.
        assert!(b.contains(&50), "{b:?}");
        assert_eq!(balanced_bounds(&[0], 4), vec![0, 0]);
        assert_eq!(balanced_bounds(&[0, 5], 4), vec![0, 1]);
    }

    #[test]
    fn split_rows_matches_bounds() {
        let mut data: Vec<f64> = (0..12).map(f64::from).collect();
        let parts = split_rows_mut(&mut data, 3, &[0, 1, 4]);
        assert_eq!(parts.len(), 2);
        assert_eq!(parts[0].0, 0);
        assert_eq!(parts[0].1, &[0.0, 1.0, 2.0]);
        assert_eq!(parts[1].0, 1);
        assert_eq!(parts[1].1.len(), 9);
    }

    #[test]
    fn zeroed_buffers_are_zero_small_and_huge() {
        for len in [0, 7, (4 << 20) / 8 - 1, (4 << 20) / 8, 3_000_001] {
            let mut v = zeroed(len);
            assert_eq!(v.len(), len);
            assert!(v.iter().all(|x| *x == 0.0));
            // Writable throughout (the advice must not have unmapped anything).
            v.iter_mut().step_by(4096).for_each(|x| *x = 1.0);
            assert_eq!(v.iter().filter(|x| **x == 1.0).count(), len.div_ceil(4096));
        }
    }

    #[test]
    fn dot_and_axpy() {
        let a: Vec<f64> = (0..19).map(f64::from).collect();
        let b: Vec<f64> = (0..19).map(|i| 2.0 * f64::from(i) + 1.0).collect();
        let want: f64 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
        assert!((dot(&a, &b) - want).abs() < 1e-9);
        let mut y = vec![1.0; 3];
        axpy(&mut y, 2.0, &[1.0, 2.0, 3.0]);
        assert_eq!(y, vec![3.0, 5.0, 7.0]);
    }
}
