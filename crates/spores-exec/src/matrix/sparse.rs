use std::sync::Arc;

use crate::error::{ExecError, Result};
use crate::matrix::finite::FiniteCache;
use crate::matrix::validate::{check_compressed, check_pointers, DeferredIndexCheck};
use crate::matrix::{Cells, DenseMatrix, ForeignSlice, Shape};

/// When [`CsrMatrix::from_foreign`] checks the column indices of arrays it reads in place.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IndexChecks {
    /// Before it returns, with everything else.
    Now,
    /// When the matrix is first read (see [`CsrMatrix::from_foreign`]).
    Deferred,
}

/// Compressed sparse row matrix.
///
/// Invariants (checked by [`CsrMatrix::new`], assumed by kernels):
/// `indptr.len() == rows + 1`, `indptr` non-decreasing from 0 to `indices.len()`,
/// `indices.len() == values.len()`, and column indices strictly increasing within each
/// row and below `cols`. Stored values may be zero (a kernel such as `X - X` produces
/// them); [`CsrMatrix::nnz`] counts only the non-zero ones and [`CsrMatrix::pruned`]
/// drops them. Column indices are `u32`: 12 bytes per entry instead of 16 is what the
/// memory-bound sparse kernels are paid by.
#[derive(Clone, Debug, PartialEq)]
pub struct CsrMatrix {
    rows: usize,
    cols: usize,
    indptr: Vec<usize>,
    indices: Cells<u32>,
    values: Cells<f64>,
    finite: FiniteCache,
    /// Index checks not run yet (only for [`IndexChecks::Deferred`]).
    deferred: DeferredIndexCheck,
}

/// Compressed sparse column matrix: the CSR of the transpose, with the same invariants
/// read column-wise. Kernels that need column access (dense × sparse) build one with
/// [`CsrMatrix::to_csc`].
#[derive(Clone, Debug, PartialEq)]
pub struct CscMatrix {
    rows: usize,
    cols: usize,
    indptr: Vec<usize>,
    indices: Cells<u32>,
    values: Cells<f64>,
    finite: FiniteCache,
    /// Index checks not run yet (only for [`IndexChecks::Deferred`]).
    deferred: DeferredIndexCheck,
}

macro_rules! compressed_common {
    ($t:ident, $column_major:literal) => {
        impl $t {
            /// (major, minor) extents: (rows, cols) for CSR, (cols, rows) for CSC.
            #[inline]
            fn extents(rows: usize, cols: usize) -> (usize, usize) {
                if $column_major {
                    (cols, rows)
                } else {
                    (rows, cols)
                }
            }

            /// Validated constructor; see the type's invariants.
            pub fn new(
                rows: usize,
                cols: usize,
                indptr: Vec<usize>,
                indices: Vec<u32>,
                values: Vec<f64>,
            ) -> Result<Self> {
                let (major, minor) = Self::extents(rows, cols);
                check_compressed(major, minor, &indptr, &indices, &values, false)?;
                Ok($t {
                    rows,
                    cols,
                    indptr,
                    indices: indices.into(),
                    values: values.into(),
                    finite: FiniteCache::default(),
                    deferred: DeferredIndexCheck::default(),
                })
            }

            /// Constructor over index and value arrays that another owner keeps (see
            /// [`ForeignSlice`]): they are read in place, not copied. The validating pass
            /// also learns whether the values are all finite.
            ///
            /// With [`IndexChecks::Deferred`] only the lengths and pointers are checked
            /// here (so every line's range lies inside the arrays); the values are not
            /// scanned for NaN/Inf (see [`Self::finite_if_known`]), and the indices (each below the minor extent, strictly increasing
            /// within a line) are checked by [`Self::check_indices`], which every accessor
            /// that hands them out runs first (panicking on invalid ones, so callers run
            /// it themselves to report the error), except [`Self::arrays_unchecked`], for
            /// a kernel that checks the indices it reads as it reads them.
            pub fn from_foreign(
                (rows, cols): (usize, usize),
                indptr: Vec<usize>,
                indices: Arc<dyn ForeignSlice<u32>>,
                values: Arc<dyn ForeignSlice<f64>>,
                checks: IndexChecks,
            ) -> Result<Self> {
                let extents = Self::extents(rows, cols);
                let (idx, vals) = (indices.slice(), values.slice());
                let (finite, deferred) = match checks {
                    IndexChecks::Deferred => {
                        check_pointers(extents, &indptr, idx, vals)?;
                        (FiniteCache::default(), DeferredIndexCheck::pending())
                    }
                    IndexChecks::Now => {
                        let finite =
                            check_compressed(extents.0, extents.1, &indptr, idx, vals, true)?;
                        (
                            FiniteCache::known(finite == Some(true)),
                            DeferredIndexCheck::default(),
                        )
                    }
                };
                Ok($t {
                    rows,
                    cols,
                    indptr,
                    indices: Cells::foreign(indices),
                    values: Cells::foreign(values),
                    finite,
                    deferred,
                })
            }

            /// Runs the index checks [`IndexChecks::Deferred`] deferred (once;
            /// the outcome is remembered); `Ok` for a matrix built any other way.
            /// Its error reads as the constructor's would, prefixed `invalid CSR input:`
            /// (`CSC` for the column-major type): the arrays came from outside.
            pub fn check_indices(&self) -> Result<()> {
                self.deferred
                    .run(|| {
                        let (major, minor) = Self::extents(self.rows, self.cols);
                        check_compressed(
                            major,
                            minor,
                            &self.indptr,
                            &self.indices,
                            &self.values,
                            false,
                        )
                        .map(|_| ())
                    })
                    .map_err(|source| ExecError::ForeignCompressed {
                        format: if $column_major { "CSC" } else { "CSR" },
                        source,
                    })
            }

            /// Whether the indices are not known to be valid yet (see
            /// [`IndexChecks::Deferred`]).
            #[inline]
            pub fn indices_pending(&self) -> bool {
                self.deferred.is_pending()
            }

            /// The pointer, index and value arrays without the deferred index checks:
            /// the pointers are valid (every line's range lies inside the other two), but
            /// while [`Self::indices_pending`] an index may be out of range or out of
            /// order, so the caller must check each index it uses (and must not skip
            /// bounds checks on them).
            pub fn arrays_unchecked(&self) -> (&[usize], &[u32], &[f64]) {
                (&self.indptr, &self.indices, &self.values)
            }

            /// Panics when deferred index checks fail: reached only by a caller that did
            /// not run [`Self::check_indices`] first (the interpreter does before every
            /// operator), so invalid indices never reach a kernel that trusts them.
            #[inline(always)]
            fn assert_indices_checked(&self) {
                if self.deferred.is_pending() {
                    self.assert_indices_checked_slow();
                }
            }

            #[cold]
            #[inline(never)]
            fn assert_indices_checked_slow(&self) {
                if let Err(e) = self.check_indices() {
                    panic!("invalid sparse input reached a kernel unchecked: {e}");
                }
            }

            /// Constructor for kernels that build the arrays themselves and uphold the
            /// invariants by construction; they are re-checked in debug builds.
            pub fn from_parts_unchecked(
                rows: usize,
                cols: usize,
                indptr: Vec<usize>,
                indices: Vec<u32>,
                values: Vec<f64>,
            ) -> Self {
                let (major, minor) = Self::extents(rows, cols);
                debug_assert!(
                    check_compressed(major, minor, &indptr, &indices, &values, false).is_ok(),
                    "{:?}",
                    check_compressed(major, minor, &indptr, &indices, &values, false)
                );
                $t {
                    rows,
                    cols,
                    indptr,
                    indices: indices.into(),
                    values: values.into(),
                    finite: FiniteCache::default(),
                    deferred: DeferredIndexCheck::default(),
                }
            }

            /// An all-zero matrix with no stored entries.
            pub fn zeros(rows: usize, cols: usize) -> Self {
                let (major, _) = Self::extents(rows, cols);
                $t {
                    rows,
                    cols,
                    indptr: vec![0; major + 1],
                    indices: Vec::new().into(),
                    values: Vec::new().into(),
                    finite: FiniteCache::known(true),
                    deferred: DeferredIndexCheck::default(),
                }
            }

            dims_accessors!();

            pub fn indptr(&self) -> &[usize] {
                &self.indptr
            }

            pub fn indices(&self) -> &[u32] {
                self.assert_indices_checked();
                &self.indices
            }

            pub fn values(&self) -> &[f64] {
                &self.values
            }

            pub fn values_mut(&mut self) -> &mut [f64] {
                self.finite.forget();
                &mut self.values
            }

            /// Whether every stored value is finite (no NaN, no ±Inf); scans them once,
            /// then cached.
            pub fn all_finite(&self) -> bool {
                self.finite.get_or_scan(&self.values)
            }

            /// [`Self::all_finite`] if it is known without a scan (a matrix read in place
            /// from outside is not scanned until asked, or until a kernel that reads
            /// every value records the answer with [`Self::record_all_finite`]).
            pub fn finite_if_known(&self) -> Option<bool> {
                self.finite.known_answer()
            }

            /// Records that every stored value is finite, which a kernel learned in its
            /// own pass over them.
            pub fn record_all_finite(&self) {
                self.finite.record(true);
            }

            /// Whether the values are read in place from a foreign owner (see
            /// [`ForeignSlice`]).
            pub fn is_foreign(&self) -> bool {
                self.values.is_foreign()
            }

            /// Stored entries, including explicit zeros.
            pub fn stored(&self) -> usize {
                self.values.len()
            }

            /// Stored entries that are not zero.
            pub fn nnz(&self) -> usize {
                self.values.iter().filter(|v| **v != 0.0).count()
            }

            pub fn has_explicit_zeros(&self) -> bool {
                self.values.iter().any(|v| *v == 0.0)
            }

            /// Decomposes into `(rows, cols, indptr, indices, values)`.
            pub fn into_parts(self) -> (usize, usize, Vec<usize>, Vec<u32>, Vec<f64>) {
                self.assert_indices_checked();
                (
                    self.rows,
                    self.cols,
                    self.indptr,
                    self.indices.into_vec(),
                    self.values.into_vec(),
                )
            }

            /// The same matrix without explicitly stored zeros.
            pub fn pruned(&self) -> Self {
                self.assert_indices_checked();
                let (major, _) = Self::extents(self.rows, self.cols);
                let mut indptr = Vec::with_capacity(major + 1);
                let mut indices = Vec::with_capacity(self.values.len());
                let mut values = Vec::with_capacity(self.values.len());
                indptr.push(0);
                for k in 0..major {
                    for p in self.indptr[k]..self.indptr[k + 1] {
                        if self.values[p] != 0.0 {
                            indices.push(self.indices[p]);
                            values.push(self.values[p]);
                        }
                    }
                    indptr.push(indices.len());
                }
                $t {
                    rows: self.rows,
                    cols: self.cols,
                    indptr,
                    indices: indices.into(),
                    values: values.into(),
                    finite: FiniteCache::default(),
                    deferred: DeferredIndexCheck::default(),
                }
            }

            /// Value at `(i, j)` by binary search in its major line.
            pub fn get(&self, i: usize, j: usize) -> f64 {
                assert!(
                    i < self.rows && j < self.cols,
                    "index ({i},{j}) out of {}",
                    self.shape()
                );
                let (k, at) = if $column_major { (j, i) } else { (i, j) };
                let (idx, val) = self.line(k);
                idx.binary_search(&(at as u32)).map_or(0.0, |p| val[p])
            }

            /// The arrays of the other compression of the same matrix (a counting-sort
            /// transpose of these).
            fn transposed_arrays(&self) -> (Vec<usize>, Vec<u32>, Vec<f64>) {
                self.assert_indices_checked();
                let (major, minor) = Self::extents(self.rows, self.cols);
                transpose_compressed(major, minor, &self.indptr, &self.indices, &self.values)
            }

            /// Indices and values of major line `k` (a row for CSR, a column for CSC).
            #[inline(always)]
            pub fn line(&self, k: usize) -> (&[u32], &[f64]) {
                self.assert_indices_checked();
                let range = self.indptr[k]..self.indptr[k + 1];
                (&self.indices[range.clone()], &self.values[range])
            }
        }
    };
}

compressed_common!(CsrMatrix, false);
compressed_common!(CscMatrix, true);

/// Compresses (major, minor, value) triplets into pointer/index/value arrays, summing
/// duplicates and dropping zeros.
fn compress(
    major: usize,
    minor: usize,
    triplets: impl Iterator<Item = (usize, usize, f64)>,
) -> Result<(Vec<usize>, Vec<u32>, Vec<f64>)> {
    let mut entries: Vec<(usize, u32, f64)> = Vec::new();
    for (a, b, v) in triplets {
        if a >= major || b >= minor {
            return Err(ExecError::invalid(format!(
                "entry ({a},{b}) outside a {major}x{minor} matrix"
            )));
        }
        entries.push((a, b as u32, v));
    }
    entries.sort_unstable_by_key(|&(a, b, _)| (a, b));
    let mut indptr = vec![0usize; major + 1];
    let mut indices = Vec::with_capacity(entries.len());
    let mut values: Vec<f64> = Vec::with_capacity(entries.len());
    let mut last: Option<(usize, u32)> = None;
    for (a, b, v) in entries {
        if last == Some((a, b)) {
            *values.last_mut().unwrap() += v;
        } else {
            indptr[a + 1] += 1;
            indices.push(b);
            values.push(v);
            last = Some((a, b));
        }
    }
    for k in 0..major {
        indptr[k + 1] += indptr[k];
    }
    Ok((indptr, indices, values))
}

impl CsrMatrix {
    /// Builds a CSR matrix from `(row, col, value)` triplets in any order; duplicates
    /// are summed and zeros are dropped.
    pub fn from_triplets(
        rows: usize,
        cols: usize,
        triplets: &[(usize, usize, f64)],
    ) -> Result<Self> {
        let (indptr, indices, values) = compress(rows, cols, triplets.iter().copied())?;
        let m = CsrMatrix::new(rows, cols, indptr, indices, values)?;
        Ok(m.pruned())
    }

    pub fn from_dense(d: &DenseMatrix) -> Self {
        let mut indptr = Vec::with_capacity(d.rows() + 1);
        let mut indices = Vec::new();
        let mut values = Vec::new();
        indptr.push(0);
        for i in 0..d.rows() {
            for (j, &v) in d.row(i).iter().enumerate() {
                if v != 0.0 {
                    indices.push(j as u32);
                    values.push(v);
                }
            }
            indptr.push(indices.len());
        }
        CsrMatrix::from_parts_unchecked(d.rows(), d.cols(), indptr, indices, values)
    }

    pub fn to_dense(&self) -> DenseMatrix {
        let mut d = DenseMatrix::zeros(self.rows, self.cols);
        for i in 0..self.rows {
            let (idx, val) = self.line(i);
            let row = d.row_mut(i);
            for (&j, &v) in idx.iter().zip(val) {
                row[j as usize] = v;
            }
        }
        d
    }

    /// Column-compressed copy of the same matrix (a counting-sort transpose).
    pub fn to_csc(&self) -> CscMatrix {
        let (indptr, indices, values) = self.transposed_arrays();
        CscMatrix::from_parts_unchecked(self.rows, self.cols, indptr, indices, values)
    }

    /// The transpose as a CSR matrix.
    pub fn transpose(&self) -> CsrMatrix {
        let (indptr, indices, values) = self.transposed_arrays();
        CsrMatrix::from_parts_unchecked(self.cols, self.rows, indptr, indices, values)
    }

    /// Iterates over stored `(row, col, value)` entries in row-major order.
    pub fn iter(&self) -> impl Iterator<Item = (usize, usize, f64)> + '_ {
        (0..self.rows).flat_map(move |i| {
            let (idx, val) = self.line(i);
            idx.iter().zip(val).map(move |(&j, &v)| (i, j as usize, v))
        })
    }
}

impl CsrMatrix {
    /// Joins row bands built apart (each `(row lengths, indices, values)`, in row order)
    /// into one matrix; rows after the last band are empty.
    pub(crate) fn from_row_bands(
        rows: usize,
        cols: usize,
        bands: Vec<(Vec<usize>, Vec<u32>, Vec<f64>)>,
    ) -> CsrMatrix {
        let total: usize = bands.iter().map(|b| b.1.len()).sum();
        let mut indptr = Vec::with_capacity(rows + 1);
        let mut indices = Vec::with_capacity(total);
        let mut values = Vec::with_capacity(total);
        indptr.push(0);
        for (lens, idx, val) in bands {
            for len in lens {
                indptr.push(indptr.last().copied().unwrap_or(0) + len);
            }
            if indices.is_empty() {
                // The first band's arrays are taken whole (the only copy when one band).
                indices = idx;
                values = val;
                indices.reserve(total - indices.len());
                values.reserve(total - values.len());
            } else {
                indices.extend_from_slice(&idx);
                values.extend_from_slice(&val);
            }
        }
        indptr.resize(rows + 1, total);
        CsrMatrix::from_parts_unchecked(rows, cols, indptr, indices, values)
    }
}

impl CscMatrix {
    /// Row-compressed copy of the same matrix.
    pub fn to_csr(&self) -> CsrMatrix {
        let (indptr, indices, values) = self.transposed_arrays();
        CsrMatrix::from_parts_unchecked(self.rows, self.cols, indptr, indices, values)
    }
}

/// Counting-sort transpose of compressed arrays with `major` lines over `minor` positions.
/// The output has `minor` lines and indices sorted within each line.
fn transpose_compressed(
    major: usize,
    minor: usize,
    indptr: &[usize],
    indices: &[u32],
    values: &[f64],
) -> (Vec<usize>, Vec<u32>, Vec<f64>) {
    let mut out_ptr = vec![0usize; minor + 1];
    for &j in indices {
        out_ptr[j as usize + 1] += 1;
    }
    for k in 0..minor {
        out_ptr[k + 1] += out_ptr[k];
    }
    let mut next = out_ptr.clone();
    let mut out_idx = vec![0u32; indices.len()];
    let mut out_val = vec![0.0; values.len()];
    for i in 0..major {
        for p in indptr[i]..indptr[i + 1] {
            let j = indices[p] as usize;
            let q = next[j];
            out_idx[q] = i as u32;
            out_val[q] = values[p];
            next[j] += 1;
        }
    }
    (out_ptr, out_idx, out_val)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn triplets_sum_duplicates_and_drop_zeros() {
        let m =
            CsrMatrix::from_triplets(2, 3, &[(1, 2, 1.0), (0, 1, 2.0), (1, 2, 3.0), (0, 0, 0.0)])
                .unwrap();
        assert_eq!(m.indptr(), &[0, 1, 2]);
        assert_eq!(m.indices(), &[1, 2]);
        assert_eq!(m.values(), &[2.0, 4.0]);
        assert_eq!(m.get(1, 2), 4.0);
        assert_eq!(m.get(1, 1), 0.0);
    }

    #[test]
    fn invariants_are_checked() {
        assert!(CsrMatrix::new(2, 2, vec![0, 2, 1], vec![0, 1], vec![1.0, 1.0]).is_err());
        assert!(CsrMatrix::new(1, 2, vec![0, 2], vec![1, 0], vec![1.0, 1.0]).is_err());
        assert!(CsrMatrix::new(1, 2, vec![0, 1], vec![2], vec![1.0]).is_err());
        assert!(CsrMatrix::from_triplets(1, 1, &[(1, 0, 1.0)]).is_err());
    }

    /// Large inputs are validated on all threads; the error still names the first bad line.
    #[test]
    fn invariants_of_large_inputs_name_the_bad_line() {
        let (rows, per_row) = (40_000, 3);
        let indptr: Vec<usize> = (0..=rows).map(|i| i * per_row).collect();
        let good: Vec<u32> = (0..rows).flat_map(|_| [1, 4, 7]).collect();
        let values = vec![1.0; rows * per_row];
        let make = |indptr: Vec<usize>, indices: Vec<u32>| {
            CsrMatrix::new(rows, 8, indptr, indices, values.clone())
        };
        assert!(make(indptr.clone(), good.clone()).is_ok());
        let message = |r: Result<CsrMatrix>| r.unwrap_err().to_string();

        let mut unsorted = good.clone();
        unsorted.swap(3 * 31_000, 3 * 31_000 + 1);
        assert!(message(make(indptr.clone(), unsorted)).contains("line 31000 are not strictly"));
        let mut out_of_range = good.clone();
        out_of_range[3 * 17 + 2] = 8;
        assert!(message(make(indptr.clone(), out_of_range)).contains("in line 17"));
        let mut decreasing = indptr;
        decreasing[20_000] = decreasing[20_001] + 1;
        assert!(message(make(decreasing, good)).contains("19999"));
    }

    #[test]
    fn transpose_and_csc_round_trip() {
        let m =
            CsrMatrix::from_triplets(3, 4, &[(0, 3, 1.0), (2, 0, 2.0), (1, 1, 3.0), (2, 3, 4.0)])
                .unwrap();
        let t = m.transpose();
        assert_eq!(t.shape(), Shape::new(4, 3));
        for (i, j, v) in m.iter() {
            assert_eq!(t.get(j, i), v);
        }
        let csc = m.to_csc();
        assert_eq!(csc.get(2, 3), 4.0);
        assert_eq!(csc.to_csr(), m);
        assert_eq!(CsrMatrix::from_dense(&m.to_dense()), m);
    }
}
