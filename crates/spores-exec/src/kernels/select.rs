//! Operators that keep, drop or reverse rows, columns or cells, as SystemDS defines
//! them: `removeEmpty`, `lower.tri`/`upper.tri`, `rev`, and the row-wise arg-extrema
//! `rowIndexMax`/`rowIndexMin`, plus `contains`.
//!
//! Sparse inputs are read entry by entry; results go through
//! [`Matrix::into_best_format`].

use crate::error::{ExecError, Result};
use crate::kernels::ew_common::par_dense;
use crate::matrix::{CsrMatrix, Matrix, Shape};

/// Along which dimension `removeEmpty` drops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Margin {
    Rows,
    Cols,
}

/// Which cells of each row are non-zero, as sorted column indices.
fn row_nonzeros(m: &Matrix, i: usize) -> Vec<usize> {
    match m {
        Matrix::Dense(d) => d
            .row(i)
            .iter()
            .enumerate()
            .filter(|(_, &v)| v != 0.0)
            .map(|(j, _)| j)
            .collect(),
        Matrix::Sparse(s) => {
            let (idx, val) = s.line(i);
            idx.iter()
                .zip(val)
                .filter(|(_, &v)| v != 0.0)
                .map(|(&j, _)| j as usize)
                .collect()
        }
    }
}

/// DML `removeEmpty(target=m, margin=..., select=..., empty.return=...)`.
///
/// Without `select`, rows (columns) with a non-zero cell are kept in order; with it, the
/// rows (columns) where `select` is non-zero are kept, empty or not. When nothing is
/// kept, `empty_return` gives one row (column) of zeros, as SystemDS's runtime does with
/// or without `select`; else the result has no rows (columns). (SystemDS's compiler
/// reports `nrow` of a literal all-zero `select` as 0 while its block has the one row.)
pub fn remove_empty(
    m: &Matrix,
    margin: Margin,
    select: Option<&Matrix>,
    empty_return: bool,
) -> Result<Matrix> {
    let (rows, cols) = (m.rows(), m.cols());
    let extent = if margin == Margin::Rows { rows } else { cols };
    let keep: Vec<usize> = match select {
        Some(s) => {
            let expected = if margin == Margin::Rows {
                Shape::new(rows, 1)
            } else {
                Shape::new(1, cols)
            };
            if s.rows() * s.cols() != extent || (s.rows() != 1 && s.cols() != 1) {
                return Err(ExecError::invalid(format!(
                    "removeEmpty: select must be a {expected} vector for a {} target, got {}",
                    m.shape(),
                    s.shape()
                )));
            }
            (0..extent)
                .filter(|&k| {
                    let v = if s.cols() == 1 {
                        s.get(k, 0)
                    } else {
                        s.get(0, k)
                    };
                    v != 0.0
                })
                .collect()
        }
        None => match margin {
            Margin::Rows => (0..rows)
                .filter(|&i| !row_nonzeros(m, i).is_empty())
                .collect(),
            Margin::Cols => {
                let mut used = vec![false; cols];
                for i in 0..rows {
                    for j in row_nonzeros(m, i) {
                        used[j] = true;
                    }
                }
                (0..cols).filter(|&j| used[j]).collect()
            }
        },
    };
    if keep.is_empty() && empty_return {
        return Ok(Matrix::Sparse(match margin {
            Margin::Rows => CsrMatrix::zeros(1, cols),
            Margin::Cols => CsrMatrix::zeros(rows, 1),
        })
        .into_best_format());
    }
    let out = match margin {
        Margin::Rows => {
            let mut triplets = Vec::new();
            for (new_i, &i) in keep.iter().enumerate() {
                for j in row_nonzeros(m, i) {
                    triplets.push((new_i, j, m.get(i, j)));
                }
            }
            Matrix::Sparse(CsrMatrix::from_triplets(keep.len(), cols, &triplets)?)
        }
        Margin::Cols => {
            let mut new_col = vec![usize::MAX; cols];
            for (k, &j) in keep.iter().enumerate() {
                new_col[j] = k;
            }
            let mut triplets = Vec::new();
            for i in 0..rows {
                for j in row_nonzeros(m, i) {
                    if new_col[j] != usize::MAX {
                        triplets.push((i, new_col[j], m.get(i, j)));
                    }
                }
            }
            Matrix::Sparse(CsrMatrix::from_triplets(rows, keep.len(), &triplets)?)
        }
    };
    Ok(out.into_best_format())
}

/// Which triangle `lower.tri`/`upper.tri` keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Triangle {
    Lower,
    Upper,
}

/// DML `lower.tri(target=m, diag=..., values=...)` and `upper.tri`: the cells strictly
/// below (above) the diagonal, and the diagonal too when `diag`; their values when
/// `values`, else ones. Every other cell is zero.
pub fn triangle(m: &Matrix, which: Triangle, diag: bool, values: bool) -> Matrix {
    let inside = |i: usize, j: usize| match which {
        Triangle::Lower => j < i || (diag && j == i),
        Triangle::Upper => j > i || (diag && j == i),
    };
    let mut triplets = Vec::new();
    for i in 0..m.rows() {
        let cells: Vec<(usize, f64)> = if values {
            row_nonzeros(m, i)
                .into_iter()
                .map(|j| (j, m.get(i, j)))
                .collect()
        } else {
            (0..m.cols()).map(|j| (j, 1.0)).collect()
        };
        for (j, v) in cells {
            if inside(i, j) {
                triplets.push((i, j, v));
            }
        }
    }
    Matrix::Sparse(CsrMatrix::from_triplets(m.rows(), m.cols(), &triplets).expect("in bounds"))
        .into_best_format()
}

/// DML `rev(m)`: the rows in reverse order.
pub fn rev(m: &Matrix) -> Matrix {
    let rows = m.rows();
    match m {
        Matrix::Dense(d) => {
            let out = par_dense(rows, d.cols(), 1, |range, out| {
                let cols = d.cols();
                for (k, i) in range.enumerate() {
                    out[k * cols..(k + 1) * cols].copy_from_slice(d.row(rows - 1 - i));
                }
            });
            Matrix::Dense(out)
        }
        Matrix::Sparse(s) => {
            let mut indptr = Vec::with_capacity(rows + 1);
            let mut indices = Vec::with_capacity(s.stored());
            let mut values = Vec::with_capacity(s.stored());
            indptr.push(0);
            for i in (0..rows).rev() {
                let (idx, val) = s.line(i);
                indices.extend_from_slice(idx);
                values.extend_from_slice(val);
                indptr.push(indices.len());
            }
            Matrix::Sparse(CsrMatrix::from_parts_unchecked(
                rows,
                s.cols(),
                indptr,
                indices,
                values,
            ))
        }
    }
}

/// Whether `rowIndexMax` or `rowIndexMin` is computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Extremum {
    Max,
    Min,
}

/// DML `rowIndexMax(m)` / `rowIndexMin(m)`: per row, the 1-based column of the largest
/// (smallest) cell, as an `m x 1` matrix. As in SystemDS, ties go to the last such
/// column, NaN cells are skipped, and a row of NaNs gives 1.
pub fn row_index_extremum(m: &Matrix, which: Extremum) -> Matrix {
    let cols = m.cols();
    let better = move |v: f64, best: f64| match which {
        Extremum::Max => v >= best,
        Extremum::Min => v <= best,
    };
    let start = match which {
        Extremum::Max => f64::NEG_INFINITY,
        Extremum::Min => f64::INFINITY,
    };
    let out = par_dense(m.rows(), 1, cols.max(1), |range, out| {
        let mut row = vec![0.0; cols];
        for (o, i) in out.iter_mut().zip(range) {
            let cells: &[f64] = m.dense_row(i, &mut row);
            let (mut best, mut at) = (start, 0usize);
            for (j, &v) in cells.iter().enumerate() {
                if better(v, best) {
                    best = v;
                    at = j;
                }
            }
            *o = (at + 1) as f64;
        }
    });
    Matrix::Dense(out)
}

/// DML `contains(target=m, pattern=p)`: whether some cell equals `p` (is NaN, for a NaN
/// pattern). Implicit zeros of a sparse matrix count.
pub fn contains(m: &Matrix, pattern: f64) -> bool {
    let hit = |v: f64| v == pattern || (pattern.is_nan() && v.is_nan());
    match m {
        Matrix::Dense(d) => d.data().iter().any(|&v| hit(v)),
        Matrix::Sparse(s) => {
            (pattern == 0.0 && s.nnz() < m.rows() * m.cols()) || s.values().iter().any(|&v| hit(v))
        }
    }
}

/// DML `contains(target=m, pattern=v)` with a row vector `v`: whether some row of `m`
/// equals `v` cell by cell (NaN matching NaN), as SystemDS's `containsVector`. `v` must
/// have `m`'s column count.
pub fn contains_row(m: &Matrix, pattern: &[f64]) -> bool {
    debug_assert_eq!(pattern.len(), m.cols());
    let same = |v: f64, p: f64| v == p || (v.is_nan() && p.is_nan());
    match m {
        Matrix::Dense(d) => {
            (0..d.rows()).any(|i| d.row(i).iter().zip(pattern).all(|(&v, &p)| same(v, p)))
        }
        // A row matches when its stored cells agree with the pattern and cover all of
        // the pattern's non-zeros (the cells not stored are zeros): linear in the
        // non-zeros, not in rows x columns.
        Matrix::Sparse(s) => {
            let pattern_nnz = pattern.iter().filter(|&&p| p != 0.0).count();
            (0..s.rows()).any(|i| {
                let span = s.indptr()[i]..s.indptr()[i + 1];
                let mut covered = 0;
                for (&j, &v) in s.indices()[span.clone()].iter().zip(&s.values()[span]) {
                    let p = pattern[j as usize];
                    if !same(v, p) {
                        return false;
                    }
                    covered += usize::from(p != 0.0);
                }
                covered == pattern_nnz
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matrix::DenseMatrix;

    fn dense(rows: usize, cols: usize, v: Vec<f64>) -> Matrix {
        Matrix::Dense(DenseMatrix::from_vec(rows, cols, v).expect("sized"))
    }

    fn values(m: &Matrix) -> Vec<f64> {
        m.to_dense().into_vec()
    }

    #[test]
    fn remove_empty_as_systemds() {
        // W = matrix("1 0 0 0 2 0", rows=3, cols=2)
        let w = dense(3, 2, vec![1.0, 0.0, 0.0, 0.0, 2.0, 0.0]);
        let r = remove_empty(&w, Margin::Rows, None, true).unwrap();
        assert_eq!(
            (r.shape(), values(&r)),
            (Shape::new(2, 2), vec![1.0, 0.0, 2.0, 0.0])
        );
        let c = remove_empty(&w, Margin::Cols, None, true).unwrap();
        assert_eq!(
            (c.shape(), values(&c)),
            (Shape::new(3, 1), vec![1.0, 0.0, 2.0])
        );
        let sel = dense(3, 1, vec![0.0, 1.0, 1.0]);
        let s = remove_empty(&w, Margin::Rows, Some(&sel), true).unwrap();
        assert_eq!(values(&s), vec![0.0, 0.0, 2.0, 0.0]);
        let zeros = dense(3, 2, vec![0.0; 6]);
        assert_eq!(
            remove_empty(&zeros, Margin::Rows, None, true)
                .unwrap()
                .shape(),
            Shape::new(1, 2)
        );
        assert_eq!(
            remove_empty(&zeros, Margin::Cols, None, true)
                .unwrap()
                .shape(),
            Shape::new(3, 1)
        );
        assert_eq!(
            remove_empty(&zeros, Margin::Rows, None, false)
                .unwrap()
                .shape(),
            Shape::new(0, 2)
        );
        let none = dense(3, 1, vec![0.0; 3]);
        let one_row = remove_empty(&w, Margin::Rows, Some(&none), true).unwrap();
        assert_eq!((one_row.shape(), one_row.nnz()), (Shape::new(1, 2), 0));
        assert_eq!(
            remove_empty(&w, Margin::Rows, Some(&none), false)
                .unwrap()
                .shape(),
            Shape::new(0, 2)
        );
        assert!(remove_empty(&w, Margin::Rows, Some(&dense(2, 1, vec![1.0; 2])), true).is_err());
    }

    #[test]
    fn row_index_ties_go_last_and_nan_is_skipped() {
        let m = dense(
            3,
            3,
            vec![5.0, 5.0, 1.0, 1.0, 2.0, 2.0, f64::NAN, f64::NAN, 3.0],
        );
        assert_eq!(
            values(&row_index_extremum(&m, Extremum::Max)),
            vec![2.0, 3.0, 3.0]
        );
        let n = dense(
            3,
            3,
            vec![5.0, 5.0, 1.0, 1.0, 2.0, 1.0, f64::NAN, f64::NAN, f64::NAN],
        );
        assert_eq!(
            values(&row_index_extremum(&n, Extremum::Min)),
            vec![3.0, 3.0, 1.0]
        );
        let sparse = Matrix::Sparse(CsrMatrix::zeros(2, 200));
        assert_eq!(
            values(&row_index_extremum(&sparse, Extremum::Max)),
            vec![200.0; 2]
        );
    }

    #[test]
    fn triangles_and_rev() {
        let a = dense(3, 3, vec![4.0, 1.0, 2.0, 1.0, 3.0, 0.0, 2.0, 0.0, 5.0]);
        assert_eq!(
            values(&triangle(&a, Triangle::Lower, true, true)),
            vec![4.0, 0.0, 0.0, 1.0, 3.0, 0.0, 2.0, 0.0, 5.0]
        );
        assert_eq!(
            values(&triangle(&a, Triangle::Lower, false, false)),
            vec![0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0, 0.0]
        );
        assert_eq!(
            values(&triangle(&a, Triangle::Upper, false, true)),
            vec![0.0, 1.0, 2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]
        );
        assert_eq!(values(&rev(&a))[..3], [2.0, 0.0, 5.0]);
        let s = Matrix::Sparse(CsrMatrix::from_dense(&a.to_dense()));
        assert_eq!(values(&rev(&s)), values(&rev(&a)));
    }

    #[test]
    fn contains_counts_implicit_zeros_and_nan() {
        let x = dense(2, 2, vec![3.0, f64::NAN, 1.0, 5.0]);
        assert!(contains(&x, f64::NAN) && contains(&x, 5.0) && !contains(&x, 7.0));
        let s = Matrix::Sparse(CsrMatrix::from_triplets(2, 3, &[(0, 1, 2.0)]).unwrap());
        assert!(contains(&s, 0.0) && contains(&s, 2.0) && !contains(&s, f64::NAN));
    }

    #[test]
    fn contains_row_matches_whole_rows_dense_and_sparse_alike() {
        let cells = [(0, 1, 2.0), (1, 0, f64::NAN), (1, 2, 4.0)];
        let s = Matrix::Sparse(CsrMatrix::from_triplets(3, 3, &cells).unwrap());
        let d = Matrix::Dense(s.to_dense());
        for m in [&s, &d] {
            assert!(contains_row(m, &[0.0, 2.0, 0.0]));
            assert!(contains_row(m, &[f64::NAN, 0.0, 4.0]));
            assert!(contains_row(m, &[0.0, 0.0, 0.0])); // the empty third row
            assert!(!contains_row(m, &[0.0, 2.0, 1.0])); // a non-zero not stored
            assert!(!contains_row(m, &[1.0, 0.0, 4.0]));
        }
        let no_empty = Matrix::Sparse(CsrMatrix::from_triplets(1, 2, &[(0, 0, 1.0)]).unwrap());
        assert!(!contains_row(&no_empty, &[0.0, 0.0]));
        assert!(!contains_row(&no_empty, &[1.0, 1.0]));
    }
}
