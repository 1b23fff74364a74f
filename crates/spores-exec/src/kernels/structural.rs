//! Structural operators: indexing, binding, diagonal, reshape, sequences and replace.
//!
//! They move cells around without arithmetic (except `replace`), so sparse inputs are
//! handled entry by entry and never densified on the way; every result goes through
//! [`Matrix::into_best_format`], so it is sparse exactly when its density says so.
//! Ranges are 0-based and end-exclusive; the interpreter converts DML's 1-based
//! inclusive `X[a:b, c:d]` before calling.

use std::ops::Range;

use crate::error::{ExecError, Result};
use crate::matrix::{CsrMatrix, DenseMatrix, Matrix, Shape};

/// Checks that `rows` x `cols` lies inside `shape`.
fn check_ranges(op: &str, shape: Shape, rows: &Range<usize>, cols: &Range<usize>) -> Result<()> {
    let bad = |what: &str, r: &Range<usize>, extent: usize| {
        ExecError::invalid(format!(
            "{op}: {what} range {}..{} is outside a {shape} matrix (valid: 0..{extent}, start <= end)",
            r.start, r.end
        ))
    };
    if rows.start > rows.end || rows.end > shape.rows {
        return Err(bad("row", rows, shape.rows));
    }
    if cols.start > cols.end || cols.end > shape.cols {
        return Err(bad("column", cols, shape.cols));
    }
    Ok(())
}

/// Entries of CSR row `i` whose column lies in `cols`, as (index, value) slices.
fn row_part<'a>(s: &'a CsrMatrix, i: usize, cols: &Range<usize>) -> (&'a [u32], &'a [f64]) {
    let (idx, val) = s.line(i);
    let lo = idx.partition_point(|&j| (j as usize) < cols.start);
    let hi = idx.partition_point(|&j| (j as usize) < cols.end);
    (&idx[lo..hi], &val[lo..hi])
}

/// Fails when a sparse result would need column indices beyond `u32`.
fn check_sparse_cols(op: &str, cols: usize) -> Result<()> {
    if cols > u32::MAX as usize {
        return Err(ExecError::invalid(format!(
            "{op}: {cols} columns exceed the sparse index range"
        )));
    }
    Ok(())
}

/// Right indexing `X[rows, cols]`: the sub-matrix in the given 0-based, end-exclusive
/// ranges. Sparse inputs are sliced row by row with binary searches for the column range.
pub fn slice(m: &Matrix, rows: Range<usize>, cols: Range<usize>) -> Result<Matrix> {
    check_ranges("slice", m.shape(), &rows, &cols)?;
    let (nr, nc) = (rows.len(), cols.len());
    let out = match m {
        Matrix::Dense(d) => {
            let mut data = Vec::with_capacity(nr * nc);
            for i in rows {
                data.extend_from_slice(&d.row(i)[cols.clone()]);
            }
            Matrix::Dense(DenseMatrix::from_vec(nr, nc, data)?)
        }
        Matrix::Sparse(s) => {
            let mut indptr = Vec::with_capacity(nr + 1);
            let mut indices = Vec::new();
            let mut values = Vec::new();
            indptr.push(0);
            let shift = cols.start as u32;
            for i in rows {
                let (idx, val) = row_part(s, i, &cols);
                indices.extend(idx.iter().map(|&j| j - shift));
                values.extend_from_slice(val);
                indptr.push(indices.len());
            }
            Matrix::Sparse(CsrMatrix::from_parts_unchecked(
                nr, nc, indptr, indices, values,
            ))
        }
    };
    Ok(out.into_best_format())
}

/// Left indexing `X[rows, cols] = value`: a copy of `m` with the block replaced by
/// `value`, whose shape must be exactly the block's.
pub fn assign_slice(
    m: &Matrix,
    rows: Range<usize>,
    cols: Range<usize>,
    value: &Matrix,
) -> Result<Matrix> {
    check_ranges("assign_slice", m.shape(), &rows, &cols)?;
    let block = Shape::new(rows.len(), cols.len());
    if value.shape() != block {
        return Err(ExecError::shape_mismatch(
            format!(
                "assign_slice into rows {}..{}, columns {}..{}",
                rows.start, rows.end, cols.start, cols.end
            ),
            block,
            value.shape(),
        ));
    }
    let out = match m {
        Matrix::Dense(d) => {
            let mut d = d.clone();
            let v = value.to_dense();
            for (k, i) in rows.enumerate() {
                d.row_mut(i)[cols.clone()].copy_from_slice(v.row(k));
            }
            Matrix::Dense(d)
        }
        Matrix::Sparse(s) => {
            let v = value.to_csr();
            let mut indptr = Vec::with_capacity(s.rows() + 1);
            let mut indices = Vec::with_capacity(s.stored() + v.stored());
            let mut values = Vec::with_capacity(s.stored() + v.stored());
            indptr.push(0);
            let shift = cols.start as u32;
            for i in 0..s.rows() {
                if rows.contains(&i) {
                    let (left_i, left_v) = row_part(s, i, &(0..cols.start));
                    let (right_i, right_v) = row_part(s, i, &(cols.end..s.cols()));
                    let (mid_i, mid_v) = v.line(i - rows.start);
                    indices.extend_from_slice(left_i);
                    values.extend_from_slice(left_v);
                    indices.extend(mid_i.iter().map(|&j| j + shift));
                    values.extend_from_slice(mid_v);
                    indices.extend_from_slice(right_i);
                    values.extend_from_slice(right_v);
                } else {
                    let (idx, val) = s.line(i);
                    indices.extend_from_slice(idx);
                    values.extend_from_slice(val);
                }
                indptr.push(indices.len());
            }
            Matrix::Sparse(CsrMatrix::from_parts_unchecked(
                s.rows(),
                s.cols(),
                indptr,
                indices,
                values,
            ))
        }
    };
    Ok(out.into_best_format())
}

/// `cbind(a, b)`: `b`'s columns to the right of `a`'s; the row counts must agree.
pub fn cbind(a: &Matrix, b: &Matrix) -> Result<Matrix> {
    ExecError::ensure_shapes(a.rows() == b.rows(), "cbind", a.shape(), b.shape())?;
    let (rows, cols) = (a.rows(), a.cols() + b.cols());
    let out = match (a, b) {
        (Matrix::Dense(x), Matrix::Dense(y)) => {
            crate::memory::ensure_dense("cbind", rows, cols)?;
            let mut data = Vec::with_capacity(rows * cols);
            for i in 0..rows {
                data.extend_from_slice(x.row(i));
                data.extend_from_slice(y.row(i));
            }
            Matrix::Dense(DenseMatrix::from_vec(rows, cols, data)?)
        }
        _ => {
            crate::memory::ensure_sparse("cbind", rows, cols, a.nnz() + b.nnz())?;
            check_sparse_cols("cbind", cols)?;
            let (x, y) = (a.to_csr(), b.to_csr());
            let shift = x.cols() as u32;
            let mut indptr = Vec::with_capacity(rows + 1);
            let mut indices = Vec::with_capacity(x.stored() + y.stored());
            let mut values = Vec::with_capacity(x.stored() + y.stored());
            indptr.push(0);
            for i in 0..rows {
                let (xi, xv) = x.line(i);
                let (yi, yv) = y.line(i);
                indices.extend_from_slice(xi);
                values.extend_from_slice(xv);
                indices.extend(yi.iter().map(|&j| j + shift));
                values.extend_from_slice(yv);
                indptr.push(indices.len());
            }
            Matrix::Sparse(CsrMatrix::from_parts_unchecked(
                rows, cols, indptr, indices, values,
            ))
        }
    };
    Ok(out.into_best_format())
}

/// `rbind(a, b)`: `b`'s rows below `a`'s; the column counts must agree.
pub fn rbind(a: &Matrix, b: &Matrix) -> Result<Matrix> {
    ExecError::ensure_shapes(a.cols() == b.cols(), "rbind", a.shape(), b.shape())?;
    let (rows, cols) = (a.rows() + b.rows(), a.cols());
    let out = match (a, b) {
        (Matrix::Dense(x), Matrix::Dense(y)) => {
            crate::memory::ensure_dense("rbind", rows, cols)?;
            let mut data = Vec::with_capacity(rows * cols);
            data.extend_from_slice(x.data());
            data.extend_from_slice(y.data());
            Matrix::Dense(DenseMatrix::from_vec(rows, cols, data)?)
        }
        _ => {
            crate::memory::ensure_sparse("rbind", rows, cols, a.nnz() + b.nnz())?;
            let (x, y) = (a.to_csr(), b.to_csr());
            let (_, _, mut indptr, mut indices, mut values) = x.into_parts();
            let base = indices.len();
            let (_, _, yp, yi, yv) = y.into_parts();
            indptr.extend(yp[1..].iter().map(|&p| p + base));
            indices.extend_from_slice(&yi);
            values.extend_from_slice(&yv);
            Matrix::Sparse(CsrMatrix::from_parts_unchecked(
                rows, cols, indptr, indices, values,
            ))
        }
    };
    Ok(out.into_best_format())
}

/// DML `diag(m)`: a column vector (n x 1) becomes the n x n diagonal matrix with it on the
/// diagonal; a square matrix gives its diagonal as a column vector. A 1x1 matrix is
/// returned as is; other shapes are an error.
pub fn diag(m: &Matrix) -> Result<Matrix> {
    let (rows, cols) = (m.rows(), m.cols());
    if rows == 1 && cols == 1 {
        return Ok(m.clone());
    }
    if cols == 1 {
        check_sparse_cols("diag", rows)?;
        let mut indptr = Vec::with_capacity(rows + 1);
        let mut indices = Vec::new();
        let mut values = Vec::new();
        indptr.push(0);
        for i in 0..rows {
            let v = m.get(i, 0);
            if v != 0.0 {
                indices.push(i as u32);
                values.push(v);
            }
            indptr.push(indices.len());
        }
        let s = CsrMatrix::from_parts_unchecked(rows, rows, indptr, indices, values);
        return Ok(Matrix::Sparse(s).into_best_format());
    }
    if rows == cols {
        let data = (0..rows).map(|i| m.get(i, i)).collect();
        return Ok(Matrix::Dense(DenseMatrix::from_vec(rows, 1, data)?).into_best_format());
    }
    Err(ExecError::invalid(format!(
        "diag: expects a column vector or a square matrix, got {}",
        m.shape()
    )))
}

/// DML `matrix(m, rows=, cols=)` with a matrix argument: the cells of `m` read row by row
/// and laid out row by row in the new shape (`byrow=TRUE`). The cell count must agree.
pub fn reshape(m: &Matrix, rows: usize, cols: usize) -> Result<Matrix> {
    let target = Shape::new(rows, cols);
    if rows.checked_mul(cols) != Some(m.shape().cells()) {
        return Err(ExecError::invalid(format!(
            "reshape: cannot reshape a {} matrix ({} cells) into {target}",
            m.shape(),
            m.shape().cells()
        )));
    }
    let out = match m {
        Matrix::Dense(d) => Matrix::Dense(DenseMatrix::from_vec(rows, cols, d.data().to_vec())?),
        Matrix::Sparse(s) => {
            check_sparse_cols("reshape", cols)?;
            // Row-major order of the cells is preserved, so entries arrive sorted.
            let mut indptr = vec![0usize; rows + 1];
            let mut indices = Vec::with_capacity(s.stored());
            let mut values = Vec::with_capacity(s.stored());
            let old_cols = s.cols();
            for (i, j, v) in s.iter() {
                let k = i * old_cols + j;
                indptr[k / cols + 1] += 1;
                indices.push((k % cols) as u32);
                values.push(v);
            }
            for r in 0..rows {
                indptr[r + 1] += indptr[r];
            }
            Matrix::Sparse(CsrMatrix::from_parts_unchecked(
                rows, cols, indptr, indices, values,
            ))
        }
    };
    Ok(out.into_best_format())
}

/// The increment DML's `seq(from, to)` uses when none is given: 1 upwards, -1 downwards.
pub fn default_seq_by(from: f64, to: f64) -> f64 {
    if from <= to {
        1.0
    } else {
        -1.0
    }
}

/// DML `seq(from, to, by)`: the column vector `from, from+by, ...` up to and including
/// `to` (as far as it is reached). Errors, as in SystemDS, when an argument is NaN or
/// infinite, when `by` is 0, or when `by` points away from `to`.
///
/// The length is `1 + floor(to/by - from/by + 1e-10)` (SystemDS's formula plus R's
/// round-off fuzz, so `seq(0, 0.3, 0.1)` has 4 elements, not 3); element `k` is
/// `from + k*by`, so errors do not accumulate.
pub fn seq(from: f64, to: f64, by: f64) -> Result<Matrix> {
    let bad = |why: &str| ExecError::invalid(format!("seq({from}, {to}, {by}): {why}"));
    if !(from.is_finite() && to.is_finite() && by.is_finite()) {
        return Err(bad("arguments must be finite numbers"));
    }
    if by == 0.0 {
        return Err(bad("the increment must not be 0"));
    }
    if (from < to && by < 0.0) || (from > to && by > 0.0) {
        return Err(bad("the increment has the wrong sign"));
    }
    // The fuzz keeps round-off from dropping the last element (as R's `seq` does).
    let steps = (to / by - from / by + 1e-10).floor();
    if !(0.0..1e15).contains(&steps) {
        return Err(bad("the sequence is too long"));
    }
    let n = steps as usize + 1;
    let mut data = Vec::new();
    data.try_reserve_exact(n)
        .map_err(|_| bad("the sequence is too long"))?;
    data.extend((0..n).map(|k| from + k as f64 * by));
    Ok(Matrix::Dense(DenseMatrix::from_vec(n, 1, data)?))
}

/// Whether `v` matches `pattern`: equality, or both NaN.
#[inline]
fn matches(v: f64, pattern: f64) -> bool {
    v == pattern || (pattern.is_nan() && v.is_nan())
}

/// DML `replace(target=m, pattern=p, replacement=r)`: every cell equal to `pattern`
/// (every NaN cell when `pattern` is NaN) becomes `replacement`. A zero pattern also
/// replaces the implicit zeros of a sparse matrix; otherwise sparse stays sparse.
pub fn replace(m: &Matrix, pattern: f64, replacement: f64) -> Matrix {
    let out = match m {
        Matrix::Sparse(s) if pattern != 0.0 => {
            let mut s = s.clone();
            for v in s.values_mut() {
                if matches(*v, pattern) {
                    *v = replacement;
                }
            }
            Matrix::Sparse(s)
        }
        _ => {
            let mut d = m.to_dense();
            for v in d.data_mut() {
                if matches(*v, pattern) {
                    *v = replacement;
                }
            }
            Matrix::Dense(d)
        }
    };
    out.into_best_format()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::dense;
    use proptest::prelude::*;

    fn sparse(m: &Matrix) -> Matrix {
        Matrix::Sparse(m.to_csr())
    }

    /// Exact cell-wise equality (NaN equals NaN), ignoring format.
    fn same(a: &Matrix, b: &Matrix) -> bool {
        crate::matrix::cells_agree(a, b, |x, y| x == y)
    }

    /// Naive references on row-major `Vec<Vec<f64>>`.
    fn cells(m: &Matrix) -> Vec<Vec<f64>> {
        (0..m.rows())
            .map(|i| (0..m.cols()).map(|j| m.get(i, j)).collect())
            .collect()
    }

    fn from_cells(rows: usize, cols: usize, c: &[Vec<f64>]) -> Matrix {
        Matrix::Dense(DenseMatrix::from_fn(rows, cols, |i, j| c[i][j]))
    }

    /// A random matrix with about half zero cells, in both formats.
    fn matrix_strategy(max: usize) -> impl Strategy<Value = (Matrix, Matrix)> {
        (0..=max, 0..=max).prop_flat_map(|(r, c)| {
            proptest::collection::vec(prop_oneof![Just(0.0), -5.0..5.0f64, Just(f64::NAN)], r * c)
                .prop_map(move |data| {
                    let d = dense(r, c, &data);
                    let s = sparse(&d);
                    (d, s)
                })
        })
    }

    proptest! {
        #[test]
        fn slice_matches_reference((d, s) in matrix_strategy(7), a in 0..8usize, b in 0..8usize, c in 0..8usize, e in 0..8usize) {
            let (r0, r1) = (a.min(b), a.max(b));
            let (c0, c1) = (c.min(e), c.max(e));
            let valid = r1 <= d.rows() && c1 <= d.cols();
            for m in [&d, &s] {
                let got = slice(m, r0..r1, c0..c1);
                prop_assert_eq!(got.is_ok(), valid);
                if let Ok(got) = got {
                    let all = cells(m);
                    let want: Vec<Vec<f64>> = all[r0..r1].iter().map(|row| row[c0..c1].to_vec()).collect();
                    prop_assert!(same(&got, &from_cells(r1 - r0, c1 - c0, &want)));
                    if m.is_sparse() && got.rows() * got.cols() > 0 && got.density() < 0.4 && got.cols() > 1 {
                        prop_assert!(got.is_sparse());
                    }
                }
            }
        }

        #[test]
        fn assign_slice_matches_reference((d, s) in matrix_strategy(6), a in 0..7usize, b in 0..7usize, c in 0..7usize, e in 0..7usize, fill in -3.0..3.0f64) {
            let (r0, r1) = (a.min(b).min(d.rows()), a.max(b).min(d.rows()));
            let (c0, c1) = (c.min(e).min(d.cols()), c.max(e).min(d.cols()));
            let vd = DenseMatrix::from_fn(r1 - r0, c1 - c0, |i, j| if (i + j) % 2 == 0 { fill } else { 0.0 });
            let values = [Matrix::Dense(vd.clone()), Matrix::Sparse(CsrMatrix::from_dense(&vd))];
            for m in [&d, &s] {
                for v in &values {
                    let got = assign_slice(m, r0..r1, c0..c1, v).unwrap();
                    let mut want = cells(m);
                    for (i, row) in want.iter_mut().enumerate().take(r1).skip(r0) {
                        for (j, cell) in row.iter_mut().enumerate().take(c1).skip(c0) {
                            *cell = vd.get(i - r0, j - c0);
                        }
                    }
                    prop_assert!(same(&got, &from_cells(d.rows(), d.cols(), &want)));
                }
            }
        }

        #[test]
        fn binds_match_reference((d1, s1) in matrix_strategy(5), (d2, s2) in matrix_strategy(5)) {
            for a in [&d1, &s1] {
                for b in [&d2, &s2] {
                    let cb = cbind(a, b);
                    prop_assert_eq!(cb.is_ok(), a.rows() == b.rows());
                    if let Ok(cb) = cb {
                        let want: Vec<Vec<f64>> = cells(a).into_iter().zip(cells(b))
                            .map(|(mut x, y)| { x.extend(y); x }).collect();
                        prop_assert!(same(&cb, &from_cells(a.rows(), a.cols() + b.cols(), &want)));
                    }
                    let rb = rbind(a, b);
                    prop_assert_eq!(rb.is_ok(), a.cols() == b.cols());
                    if let Ok(rb) = rb {
                        let mut want = cells(a);
                        want.extend(cells(b));
                        prop_assert!(same(&rb, &from_cells(a.rows() + b.rows(), a.cols(), &want)));
                    }
                }
            }
        }

        #[test]
        fn reshape_matches_reference((d, s) in matrix_strategy(6), k in 1..8usize) {
            let n = d.rows() * d.cols();
            let flat: Vec<f64> = cells(&d).concat();
            for m in [&d, &s] {
                for rows in [k, n, 1, 0] {
                    let ok = if rows == 0 { n == 0 } else { n % rows == 0 };
                    let cols = n.checked_div(rows).unwrap_or(3);
                    let got = reshape(m, rows, cols);
                    prop_assert_eq!(got.is_ok(), ok && rows * cols == n);
                    if let Ok(got) = got {
                        prop_assert!(same(&got, &dense(rows, cols, &flat)));
                    }
                }
            }
        }

        #[test]
        fn replace_matches_reference((d, s) in matrix_strategy(6), p in prop_oneof![Just(0.0), Just(f64::NAN), -5.0..5.0f64], r in prop_oneof![Just(0.0), Just(7.0)]) {
            for m in [&d, &s] {
                let got = replace(m, p, r);
                let want: Vec<f64> = cells(m).concat().into_iter()
                    .map(|v| if v == p || (p.is_nan() && v.is_nan()) { r } else { v }).collect();
                prop_assert!(same(&got, &dense(m.rows(), m.cols(), &want)));
            }
        }

        #[test]
        fn diag_matches_reference(v in proptest::collection::vec(prop_oneof![Just(0.0), -5.0..5.0f64], 0..9)) {
            let n = v.len();
            let col = dense(n, 1, &v);
            let dm = diag(&col).unwrap();
            if n == 1 {
                prop_assert!(same(&dm, &col));
            } else {
                let want = DenseMatrix::from_fn(n, n, |i, j| if i == j { v[i] } else { 0.0 });
                prop_assert!(same(&dm, &Matrix::Dense(want)));
                prop_assert!(same(&diag(&dm).unwrap(), &col));
                prop_assert!(same(&diag(&sparse(&dm)).unwrap(), &col));
            }
        }
    }

    #[test]
    fn slice_errors_name_shape_and_range() {
        let m = dense(2, 3, &[1., 2., 3., 4., 5., 6.]);
        let e = slice(&m, 1..3, 0..1).unwrap_err().to_string();
        assert!(e.contains("2x3") && e.contains("1..3"), "{e}");
        #[allow(clippy::reversed_empty_ranges)]
        let e = slice(&m, 0..1, 2..1).unwrap_err().to_string();
        assert!(e.contains("column") && e.contains("2..1"), "{e}");
        assert!(assign_slice(&m, 0..1, 0..2, &dense(1, 3, &[0.; 3])).is_err());
        assert_eq!(slice(&m, 2..2, 3..3).unwrap().shape(), Shape::new(0, 0));
    }

    #[test]
    fn slice_of_sparse_stays_sparse() {
        let m = Matrix::Sparse(
            CsrMatrix::from_triplets(100, 100, &[(5, 5, 1.0), (50, 60, 2.0), (99, 99, 3.0)])
                .unwrap(),
        );
        let s = slice(&m, 10..90, 10..90).unwrap();
        assert!(s.is_sparse());
        assert_eq!(s.get(40, 50), 2.0);
        assert_eq!(s.nnz(), 1);
    }

    #[test]
    fn diag_rejects_non_square() {
        assert!(diag(&dense(2, 3, &[0.; 6])).is_err());
        assert!(diag(&dense(1, 3, &[0.; 3])).is_err());
        assert_eq!(diag(&dense(0, 0, &[])).unwrap().shape(), Shape::new(0, 1));
        assert_eq!(diag(&dense(0, 1, &[])).unwrap().shape(), Shape::new(0, 0));
    }

    fn seq_vec(from: f64, to: f64, by: f64) -> Vec<f64> {
        seq(from, to, by).unwrap().to_dense().into_vec()
    }

    #[test]
    fn seq_semantics() {
        assert_eq!(seq_vec(1.0, 5.0, 1.0), vec![1., 2., 3., 4., 5.]);
        assert_eq!(seq_vec(5.0, 1.0, -2.0), vec![5., 3., 1.]);
        assert_eq!(seq_vec(1.0, 1.0, 1.0), vec![1.]);
        assert_eq!(seq_vec(1.0, 1.0, -1.0), vec![1.]);
        assert_eq!(seq_vec(1.0, 4.5, 1.0), vec![1., 2., 3., 4.]);
        assert_eq!(seq_vec(0.0, 0.3, 0.1).len(), 4);
        assert_eq!(seq_vec(0.0, 1.0, 0.1).len(), 11);
        assert_eq!(seq_vec(10.0, 1.0, default_seq_by(10.0, 1.0)).len(), 10);
        assert_eq!(seq(1.0, 3.0, 1.0).unwrap().shape(), Shape::new(3, 1));
        assert!(seq(1.0, 10.0, -1.0).is_err());
        assert!(seq(10.0, 1.0, 1.0).is_err());
        assert!(seq(1.0, 10.0, 0.0).is_err());
        assert!(seq(f64::NAN, 10.0, 1.0).is_err());
        assert!(seq(0.0, 1e300, 1e-300).is_err());
    }

    #[test]
    fn replace_zero_pattern_densifies_sparse() {
        let m = Matrix::Sparse(CsrMatrix::from_triplets(3, 3, &[(0, 0, 1.0)]).unwrap());
        let r = replace(&m, 0.0, 2.0);
        assert!(!r.is_sparse());
        assert_eq!(r.get(2, 2), 2.0);
        assert_eq!(r.get(0, 0), 1.0);
        let r = replace(&m, 1.0, 0.0);
        assert_eq!(r.nnz(), 0);
    }
}
