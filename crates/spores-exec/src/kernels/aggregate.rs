//! Full, row-wise and column-wise aggregates: `sum`, `mean`, `min`, `max`, `sumsq` and
//! `prod`.
//!
//! Sparse inputs touch only their stored entries; `min`/`max` account for the implicit
//! zeros of a sparse matrix (a row or column that is not fully stored contributes a 0).
//! `min`/`max` propagate NaN like Java's `Math.min`/`Math.max`. Over zero cells, sums are
//! 0, means are NaN (0/0), `max` is -Inf and `min` is +Inf (the identities).
//!
//! Row aggregates return an `m x 1` dense matrix, column aggregates a `1 x n` dense
//! matrix. Sums add fixed blocks in a fixed order, so results are deterministic, and
//! compensate their roundings as SystemDS does ([`kahan`]).

use rayon::prelude::*;

use crate::kernels::elementwise::BinaryOp;
use crate::kernels::ew_common::{matrix_blocks, par_sum_blocks, par_sum_map, MAX_BLOCKS};
use crate::kernels::kahan::{self, KahanSum};
use crate::matrix::{DenseMatrix, Matrix};

/// Sum of all cells.
pub fn sum(m: &Matrix) -> f64 {
    match m {
        Matrix::Dense(d) => par_sum_map(d.data(), |v| v),
        Matrix::Sparse(s) => par_sum_map(s.values(), |v| v),
    }
}

/// Sum of squares of all cells (SystemDS's `sumsq`, `sum(X^2)` without the intermediate).
pub fn sum_sq(m: &Matrix) -> f64 {
    match m {
        Matrix::Dense(d) => par_sum_map(d.data(), |v| v * v),
        Matrix::Sparse(s) => par_sum_map(s.values(), |v| v * v),
    }
}

fn nan_max(a: f64, b: f64) -> f64 {
    BinaryOp::Max.apply(a, b)
}

fn nan_min(a: f64, b: f64) -> f64 {
    BinaryOp::Min.apply(a, b)
}

/// Folds all cells with `f` from `init`, including one implicit zero when a sparse
/// matrix does not store every cell.
fn full_fold(m: &Matrix, init: f64, f: fn(f64, f64) -> f64) -> f64 {
    let (values, implicit_zero) = match m {
        Matrix::Dense(d) => (d.data(), false),
        Matrix::Sparse(s) => (s.values(), s.stored() < s.rows() * s.cols()),
    };
    let fold = |c: &[f64]| c.iter().fold(init, |a, &v| f(a, v));
    let r = if values.len() < crate::kernels::ew_common::MIN_PAR_WORK {
        fold(values)
    } else {
        let per = values.len().div_ceil(MAX_BLOCKS);
        values.par_chunks(per).map(fold).reduce(|| init, f)
    };
    if implicit_zero {
        f(r, 0.0)
    } else {
        r
    }
}

/// Product of all cells (DML `prod`): 0 when a sparse matrix leaves a cell implicit,
/// 1 for a matrix without cells.
pub fn prod(m: &Matrix) -> f64 {
    full_fold(m, 1.0, |a, b| a * b)
}

/// Product of each row's cells, an `m x 1` dense matrix.
pub fn row_prods(m: &Matrix) -> Matrix {
    row_fold(m, 1.0, |a, b| a * b, true)
}

/// Product of each column's cells, a `1 x n` dense matrix.
pub fn col_prods(m: &Matrix) -> Matrix {
    col_fold(m, 1.0, |a, b| a * b, true)
}

/// Largest cell (NaN if any cell is NaN; -Inf for a matrix without cells).
pub fn max(m: &Matrix) -> f64 {
    full_fold(m, f64::NEG_INFINITY, nan_max)
}

/// Smallest cell (NaN if any cell is NaN; +Inf for a matrix without cells).
pub fn min(m: &Matrix) -> f64 {
    full_fold(m, f64::INFINITY, nan_min)
}

/// Per-row fold into an `m x 1` dense matrix; sparse rows not fully stored fold in a 0
/// when `implicit_zero` matters for `f`.
fn row_fold(m: &Matrix, init: f64, f: fn(f64, f64) -> f64, implicit_zero: bool) -> Matrix {
    let rows = m.rows();
    let cols = m.cols();
    let out = crate::kernels::ew_common::par_dense(rows, 1, cols.max(1), |range, out| {
        for (o, i) in out.iter_mut().zip(range) {
            *o = match m {
                Matrix::Dense(d) => d.row(i).iter().fold(init, |a, &v| f(a, v)),
                Matrix::Sparse(s) => {
                    let (_, val) = s.line(i);
                    let r = val.iter().fold(init, |a, &v| f(a, v));
                    if implicit_zero && val.len() < cols {
                        f(r, 0.0)
                    } else {
                        r
                    }
                }
            };
        }
    });
    Matrix::Dense(out)
}

/// Per-column fold into a `1 x n` dense matrix. Blocks of rows fold into their own
/// accumulators (one per thread at most), merged in block order.
fn col_fold(m: &Matrix, init: f64, f: fn(f64, f64) -> f64, implicit_zero: bool) -> Matrix {
    let (rows, cols) = (m.rows(), m.cols());
    let blocks = matrix_blocks(m, rayon::current_num_threads());
    let partial: Vec<(Vec<f64>, Vec<usize>)> = blocks
        .into_par_iter()
        .map(|range| {
            let mut acc = vec![init; cols];
            let mut count = Vec::new();
            match m {
                Matrix::Dense(d) => {
                    for i in range {
                        for (a, &v) in acc.iter_mut().zip(d.row(i)) {
                            *a = f(*a, v);
                        }
                    }
                }
                Matrix::Sparse(s) => {
                    if implicit_zero {
                        count = vec![0usize; cols];
                    }
                    for i in range {
                        let (idx, val) = s.line(i);
                        for (&j, &v) in idx.iter().zip(val) {
                            acc[j as usize] = f(acc[j as usize], v);
                        }
                        if implicit_zero {
                            for &j in idx {
                                count[j as usize] += 1;
                            }
                        }
                    }
                }
            }
            (acc, count)
        })
        .collect();
    let mut acc = vec![init; cols];
    let mut count = vec![
        0usize;
        if m.is_sparse() && implicit_zero {
            cols
        } else {
            0
        }
    ];
    for (a, c) in partial {
        for (x, y) in acc.iter_mut().zip(a) {
            *x = f(*x, y);
        }
        for (x, y) in count.iter_mut().zip(c) {
            *x += y;
        }
    }
    for (x, &c) in acc.iter_mut().zip(&count) {
        if c < rows {
            *x = f(*x, 0.0);
        }
    }
    Matrix::Dense(DenseMatrix::from_vec(1, cols, acc).expect("1 x cols"))
}

/// Row sums as an `m x 1` dense matrix (compensated, as SystemDS sums).
pub fn row_sums(m: &Matrix) -> Matrix {
    let cols = m.cols();
    let out = crate::kernels::ew_common::par_dense(m.rows(), 1, cols.max(1), |range, out| {
        for (o, i) in out.iter_mut().zip(range) {
            *o = match m {
                Matrix::Dense(d) => kahan::sum_map(d.row(i), |v| v),
                Matrix::Sparse(s) => kahan::sum_map(s.line(i).1, |v| v),
            };
        }
    });
    Matrix::Dense(out)
}

/// Column sums as a `1 x n` dense matrix, compensated per column. Blocks of rows sum
/// on their own and merge in block order; up to [`kahan::SEQUENTIAL_TERMS`] cells there is
/// one block, so each column adds its rows in order, as SystemDS does.
pub fn col_sums(m: &Matrix) -> Matrix {
    let cols = m.cols();
    let blocks = if m.rows().saturating_mul(cols) <= kahan::SEQUENTIAL_TERMS {
        std::iter::once(0..m.rows()).collect()
    } else {
        matrix_blocks(m, rayon::current_num_threads())
    };
    let partial: Vec<Vec<KahanSum>> = blocks
        .into_par_iter()
        .map(|range| {
            let mut acc = vec![KahanSum::default(); cols];
            for i in range {
                match m {
                    Matrix::Dense(d) => acc.iter_mut().zip(d.row(i)).for_each(|(a, &v)| a.add(v)),
                    Matrix::Sparse(s) => {
                        let (idx, val) = s.line(i);
                        idx.iter()
                            .zip(val)
                            .for_each(|(&j, &v)| acc[j as usize].add(v));
                    }
                }
            }
            acc
        })
        .collect();
    let sums = kahan::merge_column_blocks(partial, cols);
    Matrix::Dense(DenseMatrix::from_vec(1, cols, sums).expect("1 x cols"))
}

/// Mean of all cells: the compensated sum over the count, so that `mean(X)` is
/// `sum(X) / length(X)` to the bit, as the optimizer's rewrites take it (SystemDS keeps a
/// running mean instead, which can differ in the last digit). NaN for a matrix without
/// cells.
pub fn mean(m: &Matrix) -> f64 {
    sum(m) / (m.rows() as f64 * m.cols() as f64)
}

fn scaled(m: Matrix, divisor: usize) -> Matrix {
    let mut d = m.into_dense();
    let n = divisor as f64;
    for v in d.data_mut() {
        *v /= n;
    }
    Matrix::Dense(d)
}

/// Row means as an `m x 1` dense matrix (NaN when there are no columns).
pub fn row_means(m: &Matrix) -> Matrix {
    scaled(row_sums(m), m.cols())
}

/// Column means as a `1 x n` dense matrix (NaN when there are no rows).
pub fn col_means(m: &Matrix) -> Matrix {
    scaled(col_sums(m), m.rows())
}

/// Row maxima as an `m x 1` dense matrix (implicit zeros count).
pub fn row_maxs(m: &Matrix) -> Matrix {
    row_fold(m, f64::NEG_INFINITY, nan_max, true)
}

/// Row minima as an `m x 1` dense matrix (implicit zeros count).
pub fn row_mins(m: &Matrix) -> Matrix {
    row_fold(m, f64::INFINITY, nan_min, true)
}

/// Column maxima as a `1 x n` dense matrix (implicit zeros count).
pub fn col_maxs(m: &Matrix) -> Matrix {
    col_fold(m, f64::NEG_INFINITY, nan_max, true)
}

/// Column minima as a `1 x n` dense matrix (implicit zeros count).
pub fn col_mins(m: &Matrix) -> Matrix {
    col_fold(m, f64::INFINITY, nan_min, true)
}

/// Sum over blocks of rows; used by the fused kernels for their row-parallel sums.
pub(crate) fn sum_rows(m: &Matrix, f: impl Fn(usize) -> f64 + Sync) -> f64 {
    par_sum_blocks(&matrix_blocks(m, MAX_BLOCKS), |range| {
        kahan::sum_iter(range.map(&f))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::elementwise::tests::random;
    use crate::matrix::CsrMatrix;
    use proptest::prelude::*;

    fn close(a: f64, b: f64) -> bool {
        crate::matrix::approx_eq_f64(a, b, 1e-12)
    }

    fn check_all(m: &Matrix) {
        let d = m.to_dense();
        let (r, c) = (d.rows(), d.cols());
        let cells: Vec<f64> = d.data().to_vec();
        let naive_sum: f64 = cells.iter().sum();
        assert!(close(sum(m), naive_sum), "sum {} vs {}", sum(m), naive_sum);
        assert!(close(sum_sq(m), cells.iter().map(|v| v * v).sum()));
        let mean_want = naive_sum / (r * c) as f64;
        assert!(close(mean(m), mean_want) || (mean(m).is_nan() && r * c == 0));
        let mx = cells.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let mn = cells.iter().copied().fold(f64::INFINITY, f64::min);
        assert_eq!(max(m), mx, "max of {}", m.shape());
        assert_eq!(min(m), mn, "min of {}", m.shape());
        let product: f64 = cells.iter().product();
        assert!(close(prod(m), product), "prod {} vs {}", prod(m), product);

        let row = |f: &dyn Fn(&[f64]) -> f64| {
            Matrix::Dense(DenseMatrix::from_fn(r, 1, |i, _| f(d.row(i))))
        };
        let col = |f: &dyn Fn(&[f64]) -> f64| {
            Matrix::Dense(DenseMatrix::from_fn(1, c, |_, j| {
                let column: Vec<f64> = (0..r).map(|i| d.get(i, j)).collect();
                f(&column)
            }))
        };
        let s = |v: &[f64]| v.iter().sum::<f64>();
        let avg = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
        let vmax = |v: &[f64]| v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let vmin = |v: &[f64]| v.iter().copied().fold(f64::INFINITY, f64::min);
        for (got, want, name) in [
            (row_sums(m), row(&s), "rowSums"),
            (col_sums(m), col(&s), "colSums"),
            (row_means(m), row(&avg), "rowMeans"),
            (col_means(m), col(&avg), "colMeans"),
            (row_maxs(m), row(&vmax), "rowMaxs"),
            (row_mins(m), row(&vmin), "rowMins"),
            (col_maxs(m), col(&vmax), "colMaxs"),
            (col_mins(m), col(&vmin), "colMins"),
        ] {
            assert!(!got.is_sparse(), "{name} must be dense");
            assert!(got.approx_eq(&want, 1e-12), "{name} of {}", m.shape());
        }
    }

    #[test]
    fn aggregates_match_naive() {
        for (r, c) in [
            (30, 20),
            (1, 40),
            (40, 1),
            (1, 1),
            (0, 5),
            (5, 0),
            (0, 0),
            (600, 300),
        ] {
            for (density, sparse) in [(0.1, true), (0.3, true), (1.0, false), (0.2, false)] {
                check_all(&random(r, c, density, sparse, (r * 31 + c) as u64));
            }
        }
    }

    #[test]
    fn implicit_zeros_count_for_min_and_max() {
        // All stored values negative, but not every cell stored: max is 0.
        let x =
            CsrMatrix::from_triplets(3, 3, &[(0, 0, -1.0), (1, 1, -2.0), (2, 2, -3.0)]).unwrap();
        let x = Matrix::Sparse(x);
        assert_eq!(max(&x), 0.0);
        assert_eq!(min(&x), -3.0);
        assert_eq!(row_maxs(&x).to_dense().data(), &[0.0, 0.0, 0.0]);
        assert_eq!(col_mins(&x).to_dense().data(), &[-1.0, -2.0, -3.0]);
        // A fully stored row has no implicit zero.
        let full =
            CsrMatrix::from_triplets(2, 2, &[(0, 0, -1.0), (0, 1, -2.0), (1, 0, 5.0)]).unwrap();
        let full = Matrix::Sparse(full);
        assert_eq!(row_maxs(&full).to_dense().data(), &[-1.0, 5.0]);
        assert_eq!(col_maxs(&full).to_dense().data(), &[5.0, 0.0]);
        assert_eq!(max(&full), 5.0);
        assert_eq!(min(&full), -2.0);
        // NaN propagates.
        let nan = Matrix::Dense(DenseMatrix::from_vec(1, 3, vec![1.0, f64::NAN, 2.0]).unwrap());
        assert!(max(&nan).is_nan());
        assert!(row_mins(&nan).get(0, 0).is_nan());
        assert_eq!(sum(&Matrix::Dense(DenseMatrix::zeros(0, 3))), 0.0);
        assert_eq!(
            max(&Matrix::Dense(DenseMatrix::zeros(0, 3))),
            f64::NEG_INFINITY
        );
    }

    #[test]
    fn sums_are_deterministic() {
        let m = random(2000, 500, 0.2, true, 5);
        let first = sum(&m);
        for _ in 0..3 {
            assert_eq!(sum(&m).to_bits(), first.to_bits());
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(40))]
        #[test]
        fn prop_aggregates(r in 0usize..20, c in 0usize..20, d in 0.0f64..1.0, sparse: bool,
                           seed in 0u64..1000) {
            check_all(&random(r, c, d, sparse, seed));
        }
    }

    #[test]
    fn prod_as_systemds() {
        // SystemDS 3.4 prints 24.0 and 0.0 for these.
        let x = Matrix::Dense(DenseMatrix::from_vec(2, 2, vec![1.0, 2.0, 3.0, 4.0]).unwrap());
        assert_eq!(prod(&x), 24.0);
        let sparse =
            Matrix::Sparse(CsrMatrix::from_triplets(3, 2, &[(0, 0, 2.0), (2, 1, 7.0)]).unwrap());
        assert_eq!(prod(&sparse), 0.0);
    }
}
