//! Validation of compressed (CSR/CSC) arrays handed in from outside, in one vectorized
//! pass per array.
//!
//! The Python bindings check every sparse input on every call (nothing says a writeable
//! NumPy buffer is unchanged since the last one), so this is part of every call's cost.
//! They check the pointers when the input is read ([`check_pointers`]) and defer the
//! values' NaN/Inf scan (to the first that asks, see `FiniteCache`) and the index checks
//! ([`DeferredIndexCheck`]) to the first reader: `mmchain` and `sddmm_sum` check each line's indices in their own pass over
//! it, every other operator runs [`check_compressed`] first. Instead of testing each line
//! on its own (a loop per line, too short to vectorize on rows of a few entries),
//! [`check_compressed`] tests the whole index array at once:
//!
//! - the pointers never decrease (one branch-free pass over them);
//! - every index is below the minor extent (the maximum index, one pass);
//! - indices increase within each line: over the whole array, the adjacent pairs that do
//!   not increase must all straddle a line boundary. So the count of non-increasing pairs
//!   must equal the count of non-increasing pairs at the (distinct, interior) boundaries,
//!   which one gather per line finds.
//!
//! The values' "all finite" fact the planner asks for is taken in the same pass when the
//! caller wants it. Only when the fast test fails are the lines walked one by one, to name
//! the first bad one.

use std::sync::{Arc, OnceLock};

use crate::error::CompressedError;

/// The outcome of a check of compressed arrays.
type Result<T> = std::result::Result<T, CompressedError>;

/// Inputs with at least this many entries are validated on all threads.
const PARALLEL_CHECK_ENTRIES: usize = 1 << 16;

/// Entries per counting block: a block's count of non-increasing pairs fits a `u32`.
const COUNT_BLOCK: usize = 1 << 16;

/// Checks the invariants of compressed arrays (see `CsrMatrix`); with `scan_values`,
/// also returns whether every value is finite (`None` without it).
pub(crate) fn check_compressed(
    major: usize,
    minor: usize,
    indptr: &[usize],
    indices: &[u32],
    values: &[f64],
    scan_values: bool,
) -> Result<Option<bool>> {
    check_lengths(major, minor, indptr, indices, values)?;
    let scan = |lo: usize, hi: usize| {
        let lines = Lines {
            lo,
            hi,
            minor,
            scan_values,
        };
        scan_lines(indptr, indices, values, lines)
    };
    let summary = if indices.len() >= PARALLEL_CHECK_ENTRIES && major > 1 {
        use rayon::prelude::*;
        let chunk = major.div_ceil(rayon::current_num_threads().max(1) * 4);
        (0..major.div_ceil(chunk))
            .into_par_iter()
            .map(|c| scan(c * chunk, ((c + 1) * chunk).min(major)))
            .reduce(|| Some(true), |a, b| Some(a? && b?))
    } else {
        scan(0, major)
    };
    match summary {
        Some(finite) => Ok(scan_values.then_some(finite)),
        None => Err(first_bad_line(major, minor, indptr, indices)),
    }
}

/// The checks of [`check_compressed`] that keep every line's range inside the arrays
/// (lengths, pointers from 0 to the end, never decreasing), in a pass over the pointers
/// only; the indices are left to [`check_compressed`] (see [`DeferredIndexCheck`]), the
/// values' finiteness to whoever asks first.
pub(crate) fn check_pointers(
    (major, minor): (usize, usize),
    indptr: &[usize],
    indices: &[u32],
    values: &[f64],
) -> Result<()> {
    check_lengths(major, minor, indptr, indices, values)?;
    let decreasing = indptr
        .iter()
        .zip(&indptr[1..])
        .fold(0usize, |bad, (a, b)| bad | usize::from(a > b));
    if decreasing != 0 {
        return Err(first_bad_line(major, minor, indptr, indices));
    }
    Ok(())
}

/// The index checks of a compressed matrix whose arrays came from outside, run once on
/// first need and remembered (shared by clones). A kernel that checks the indices it
/// reads itself (as `mmchain` does, in the pass that reads them) saves the separate
/// pass over them; every other reader asks for this check first.
#[derive(Clone, Default)]
pub(crate) struct DeferredIndexCheck(Option<Arc<OnceLock<Result<()>>>>);

impl DeferredIndexCheck {
    /// A check still to run.
    pub(crate) fn pending() -> Self {
        DeferredIndexCheck(Some(Arc::new(OnceLock::new())))
    }

    /// Whether the indices are not known to be valid yet (never checked, or found invalid).
    #[inline(always)]
    pub(crate) fn is_pending(&self) -> bool {
        self.0
            .as_ref()
            .is_some_and(|cell| !matches!(cell.get(), Some(Ok(()))))
    }

    /// The outcome of `check` (run at most once); `Ok` when nothing is deferred.
    pub(crate) fn run(&self, check: impl FnOnce() -> Result<()>) -> Result<()> {
        match &self.0 {
            None => Ok(()),
            Some(cell) => cell.get_or_init(check).clone(),
        }
    }
}

/// Every matrix compares equal here: the check is a cache, not part of the value.
impl PartialEq for DeferredIndexCheck {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl std::fmt::Debug for DeferredIndexCheck {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.is_pending() { "pending" } else { "_" })
    }
}

/// Lengths and pointer ends of compressed arrays (see `CsrMatrix`).
fn check_lengths(
    major: usize,
    minor: usize,
    indptr: &[usize],
    indices: &[u32],
    values: &[f64],
) -> Result<()> {
    if minor > u32::MAX as usize {
        return Err(CompressedError::DimensionTooLarge { minor });
    }
    if indptr.len() != major + 1 || indptr[0] != 0 {
        return Err(CompressedError::PointerLength {
            expected: major + 1,
            found: indptr.len(),
        });
    }
    if indices.len() != values.len() || indptr[major] != indices.len() {
        return Err(CompressedError::LengthsDisagree {
            end: indptr[major],
            indices: indices.len(),
            values: values.len(),
        });
    }
    Ok(())
}

/// The lines one scan covers and what it checks them against.
#[derive(Clone, Copy)]
struct Lines {
    lo: usize,
    hi: usize,
    minor: usize,
    scan_values: bool,
}

/// Lines `lo..hi`: `None` when one of them is invalid, else whether their values are all
/// finite (`true` when not asked).
fn scan_lines(indptr: &[usize], indices: &[u32], values: &[f64], lines: Lines) -> Option<bool> {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports the feature the function is compiled for.
            return unsafe { scan_lines_avx2(indptr, indices, values, lines) };
        }
    }
    scan_lines_portable(indptr, indices, values, lines)
}

/// [`scan_lines_portable`] compiled with AVX2 (unsigned 32-bit and 64-bit compares in
/// one instruction each).
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn scan_lines_avx2(
    indptr: &[usize],
    indices: &[u32],
    values: &[f64],
    lines: Lines,
) -> Option<bool> {
    scan_lines_portable(indptr, indices, values, lines)
}

#[inline(always)]
fn scan_lines_portable(
    indptr: &[usize],
    indices: &[u32],
    values: &[f64],
    lines: Lines,
) -> Option<bool> {
    let pointers = &indptr[lines.lo..=lines.hi];
    let decreasing = pointers
        .iter()
        .zip(&pointers[1..])
        .fold(0usize, |bad, (a, b)| bad | usize::from(a > b));
    if decreasing != 0 {
        return None;
    }
    let (start, end) = (pointers[0], pointers[pointers.len() - 1]);
    let entries = &indices[start..end];
    if entries.len() >= 2 {
        let (max, non_increasing) = scan_indices(entries);
        // The first pointer of each non-empty line after the first is a boundary `b`
        // (`start < b < end`): the pair (b - 1, b) may decrease there. The index is
        // clamped into that range so the loop has no branch; a clamped read only happens
        // where the condition is false.
        let at_boundaries: usize = pointers
            .iter()
            .zip(&pointers[1..])
            .map(|(&a, &b)| {
                let at = b.clamp(start + 1, end - 1);
                usize::from((a < b) & (b < end) & (indices[at - 1] >= indices[at]))
            })
            .sum();
        if max as usize >= lines.minor || non_increasing != at_boundaries {
            return None;
        }
    } else if entries.first().is_some_and(|&j| j as usize >= lines.minor) {
        return None;
    }
    Some(!lines.scan_values || super::finite::values_finite(&values[start..end]))
}

/// The largest index and the number of adjacent pairs that do not increase (of at least
/// two entries), in one branch-free fold that vectorizes.
#[inline(always)]
fn scan_indices(entries: &[u32]) -> (u32, usize) {
    let (pairs_left, pairs_right) = (&entries[..entries.len() - 1], &entries[1..]);
    let mut max = entries[entries.len() - 1];
    let mut non_increasing = 0usize;
    for (a, b) in pairs_left
        .chunks(COUNT_BLOCK)
        .zip(pairs_right.chunks(COUNT_BLOCK))
    {
        let (block_max, count) = a.iter().zip(b).fold((0u32, 0u32), |(m, n), (x, y)| {
            (m.max(*x), n + u32::from(x >= y))
        });
        max = max.max(block_max);
        non_increasing += count as usize;
    }
    (max, non_increasing)
}

/// The error naming the first invalid line (the fast test found one).
fn first_bad_line(
    major: usize,
    minor: usize,
    indptr: &[usize],
    indices: &[u32],
) -> CompressedError {
    let line_ok = |k: usize| {
        let (start, end) = (indptr[k], indptr[k + 1]);
        if start > end || end > indices.len() {
            return false;
        }
        let segment = &indices[start..end];
        segment.windows(2).all(|w| w[0] < w[1])
            && segment.last().is_none_or(|&last| (last as usize) < minor)
    };
    let k = (0..major).find(|&k| !line_ok(k)).unwrap_or(0);
    let (start, end) = (indptr[k], indptr[k + 1]);
    if start > end || end > indices.len() {
        return CompressedError::PointerDecreases { line: k };
    }
    if indices[start..end].windows(2).any(|w| w[0] >= w[1]) {
        return CompressedError::NotIncreasing { line: k };
    }
    CompressedError::OutOfRange { minor, line: k }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The per-line check the vectorized pass replaces, with the same errors.
    fn naive(major: usize, minor: usize, indptr: &[usize], indices: &[u32]) -> Result<()> {
        for k in 0..major {
            let (start, end) = (indptr[k], indptr[k + 1]);
            if start > end || end > indices.len() {
                return Err(CompressedError::PointerDecreases { line: k });
            }
            let line = &indices[start..end];
            if line.windows(2).any(|w| w[0] >= w[1]) {
                return Err(CompressedError::NotIncreasing { line: k });
            }
            if line.iter().any(|&j| j as usize >= minor) {
                return Err(CompressedError::OutOfRange { minor, line: k });
            }
        }
        Ok(())
    }

    /// Valid arrays for `lengths` (one per line, empty lines included), then one
    /// corruption picked by `corrupt` at position `at`.
    fn arrays(
        lengths: &[usize],
        minor: usize,
        corrupt: u8,
        at: usize,
    ) -> (Vec<usize>, Vec<u32>, Vec<f64>) {
        let mut indptr = vec![0];
        let mut indices = Vec::new();
        for (k, &len) in lengths.iter().enumerate() {
            let len = len.min(minor);
            // Spread `len` increasing indices over 0..minor, shifted by the line number.
            let step = minor / len.max(1);
            let shift = if step > 1 { k % step } else { 0 };
            indices.extend((0..len).map(|p| (p * step + shift) as u32));
            indptr.push(indices.len());
        }
        let n = indices.len();
        match corrupt {
            1 if n >= 2 => {
                let p = at % (n - 1);
                indices.swap(p, p + 1);
            }
            2 if n >= 2 => {
                let p = at % (n - 1);
                indices[p + 1] = indices[p];
            }
            3 if n >= 1 => indices[at % n] = minor as u32,
            4 if lengths.len() >= 2 => {
                let k = 1 + at % (lengths.len() - 1);
                indptr[k] = indptr[k + 1] + 1;
            }
            _ => {}
        }
        let values = (0..n).map(|p| p as f64).collect();
        (indptr, indices, values)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(400))]
        /// The vectorized pass accepts exactly the arrays the per-line check accepts and
        /// names the same first bad line.
        #[test]
        fn agrees_with_the_per_line_check(
            lengths in prop::collection::vec(0usize..12, 0..40),
            minor in 1usize..30,
            corrupt in 0u8..5,
            at in 0usize..1000,
        ) {
            let (indptr, indices, values) = arrays(&lengths, minor, corrupt, at);
            let major = lengths.len();
            let got = check_compressed(major, minor, &indptr, &indices, &values, true).map(|_| ());
            prop_assert_eq!(got, naive(major, minor, &indptr, &indices));
        }
    }

    /// Inputs large enough for the parallel pass: each corruption is found, in the line
    /// where it is, and the finite fact is right.
    #[test]
    fn large_inputs_split_over_threads_agree() {
        let lengths: Vec<usize> = (0..30_000).map(|k| (k * 7) % 11).collect();
        let minor = 64;
        for corrupt in 0..5u8 {
            for at in [0usize, 12_345, 99_999, 149_000] {
                let (indptr, indices, mut values) = arrays(&lengths, minor, corrupt, at);
                assert!(indices.len() >= PARALLEL_CHECK_ENTRIES);
                let major = lengths.len();
                let got = check_compressed(major, minor, &indptr, &indices, &values, true);
                match naive(major, minor, &indptr, &indices) {
                    Ok(()) => {
                        assert_eq!(got.unwrap(), Some(true));
                        let bad = at % values.len();
                        values[bad] = f64::NEG_INFINITY;
                        let got = check_compressed(major, minor, &indptr, &indices, &values, true);
                        assert_eq!(got.unwrap(), Some(false));
                        let got = check_compressed(major, minor, &indptr, &indices, &values, false);
                        assert_eq!(got.unwrap(), None);
                    }
                    Err(want) => assert_eq!(got.unwrap_err(), want),
                }
            }
        }
    }

    #[test]
    fn empty_and_single_entry_lines() {
        assert_eq!(
            check_compressed(0, 5, &[0], &[], &[], true).unwrap(),
            Some(true)
        );
        assert_eq!(
            check_compressed(3, 5, &[0, 0, 0, 0], &[], &[], true).unwrap(),
            Some(true)
        );
        assert!(
            check_compressed(2, 5, &[0, 0, 1], &[4], &[f64::NAN], true).unwrap() == Some(false)
        );
        let e = check_compressed(2, 5, &[0, 0, 1], &[5], &[1.0], true).unwrap_err();
        assert_eq!(e, CompressedError::OutOfRange { minor: 5, line: 1 });
        assert_eq!(e.to_string(), "index out of range 5 in line 1");
    }
}
