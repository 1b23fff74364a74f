//! Column-wise cumulative aggregates: DML's `cumsum`, `cumprod`, `cummin` and `cummax`,
//! and the recurrence `cumsumprod`.
//!
//! Cell `(i, j)` of the result aggregates column `j` of rows `0..=i`, in row order (sums
//! compensated as SystemDS's are). NaN propagates: once a column has
//! met a NaN every later cell of `cummin`/`cummax` is NaN too, as in SystemDS. Wide
//! matrices run in parallel over blocks of columns; each block walks all rows.

use rayon::prelude::*;

use crate::error::{ExecError, Result};
use crate::kernels::elementwise::BinaryOp;
use crate::kernels::ew_common::MIN_PAR_WORK;
use crate::kernels::kahan::KahanSum;
use crate::matrix::{DenseMatrix, Matrix};

/// Which running aggregate a cumulative operator keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CumulativeOp {
    Sum,
    Prod,
    Min,
    Max,
}

impl CumulativeOp {
    /// The DML function name.
    pub fn name(self) -> &'static str {
        match self {
            CumulativeOp::Sum => "cumsum",
            CumulativeOp::Prod => "cumprod",
            CumulativeOp::Min => "cummin",
            CumulativeOp::Max => "cummax",
        }
    }

    fn step(self) -> BinaryOp {
        match self {
            CumulativeOp::Sum => BinaryOp::Add,
            CumulativeOp::Prod => BinaryOp::Mul,
            CumulativeOp::Min => BinaryOp::Min,
            CumulativeOp::Max => BinaryOp::Max,
        }
    }
}

/// Columns per parallel task: enough that each task's row slices fill cache lines.
const COLUMN_BLOCK: usize = 256;

/// The cumulative aggregate of every column of `m`, in its best format. Sums are
/// compensated ([`KahanSum`]), as SystemDS's `cumsum` is.
pub fn cumulative(op: CumulativeOp, m: &Matrix) -> Matrix {
    let (rows, cols) = (m.rows(), m.cols());
    let mut data = m.to_dense().into_vec();
    if op == CumulativeOp::Sum {
        scan_columns(&mut data, rows, cols, KahanSum::default(), |acc, v| {
            acc.add(v);
            acc.value()
        });
    } else {
        let step = op.step();
        scan_columns(&mut data, rows, cols, None, |acc: &mut Option<f64>, v| {
            let next = match *acc {
                Some(previous) => step.apply(previous, v),
                None => v,
            };
            *acc = Some(next);
            next
        });
    }
    let d = DenseMatrix::from_vec(rows, cols, data).expect("one value per cell");
    Matrix::Dense(d).into_best_format()
}

/// Replaces every cell of the row-major `rows x cols` `data` by `step` of its column's
/// running state and the cell, in row order. Wide matrices run in parallel over blocks
/// of columns; each block walks all rows.
fn scan_columns<S: Clone + Send + Sync>(
    data: &mut [f64],
    rows: usize,
    cols: usize,
    init: S,
    step: impl Fn(&mut S, f64) -> f64 + Sync,
) {
    if rows * cols < MIN_PAR_WORK || cols < 2 * COLUMN_BLOCK {
        let mut state = vec![init; cols];
        for row in data.chunks_mut(cols.max(1)) {
            for (cell, s) in row.iter_mut().zip(&mut state) {
                *cell = step(s, *cell);
            }
        }
        return;
    }
    // Each task owns a disjoint set of columns of every row; the pointer is shared only
    // to give each task its own columns.
    let shared = SharedColumns(data.as_mut_ptr());
    (0..cols.div_ceil(COLUMN_BLOCK))
        .into_par_iter()
        .for_each(|block| {
            let columns = block * COLUMN_BLOCK..((block + 1) * COLUMN_BLOCK).min(cols);
            let mut state = vec![init.clone(); columns.len()];
            let base = shared.base();
            for i in 0..rows {
                for (j, s) in columns.clone().zip(&mut state) {
                    // SAFETY: `base` points to `rows * cols` cells that outlive the loop;
                    // tasks touch disjoint columns.
                    unsafe {
                        let cell = base.add(i * cols + j);
                        *cell = step(s, *cell);
                    }
                }
            }
        });
}

/// DML `cumsumprod(X)` of an `n x 2` matrix: the column `y` with `y[i] = X[i,1] +
/// X[i,2] * y[i-1]` and `y[0] = 0` before the first row (a linear recurrence, as used for
/// exponential smoothing), computed in row order.
pub fn cumsumprod(m: &Matrix) -> Result<Matrix> {
    if m.cols() != 2 {
        return Err(ExecError::invalid(format!(
            "cumsumprod needs a matrix of two columns (addend, factor), got a {} matrix",
            m.shape()
        )));
    }
    let x = m.to_dense();
    let mut previous = 0.0;
    let out: Vec<f64> = (0..x.rows())
        .map(|i| {
            let row = x.row(i);
            previous = row[0] + row[1] * previous;
            previous
        })
        .collect();
    Ok(Matrix::Dense(DenseMatrix::from_vec(out.len(), 1, out)?))
}

/// The dense buffer of [`cumulative`], shared by tasks that write disjoint columns.
#[derive(Clone, Copy)]
struct SharedColumns(*mut f64);

impl SharedColumns {
    /// Through a method, so closures capture the whole (`Sync`) wrapper.
    fn base(&self) -> *mut f64 {
        self.0
    }
}

// SAFETY: tasks only touch disjoint columns of the buffer (see `cumulative`).
unsafe impl Send for SharedColumns {}
unsafe impl Sync for SharedColumns {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matrix::CsrMatrix;
    use crate::testing::dense;

    #[test]
    fn columns_accumulate_with_nan_propagating() {
        // SystemDS 3.4 on matrix("3 1 2 1 3 NaN 0 5", rows=4, cols=2).
        let x = dense(4, 2, &[3.0, 1.0, 2.0, 1.0, 3.0, f64::NAN, 0.0, 5.0]);
        let get = |op| -> Vec<f64> {
            let r = cumulative(op, &x);
            (0..4).flat_map(|i| [r.get(i, 0), r.get(i, 1)]).collect()
        };
        let nan = f64::NAN;
        let same = |a: &[f64], b: &[f64]| {
            a.iter()
                .zip(b)
                .all(|(x, y)| x == y || (x.is_nan() && y.is_nan()))
        };
        for (op, want) in [
            (CumulativeOp::Sum, [3.0, 1.0, 5.0, 2.0, 8.0, nan, 8.0, nan]),
            (
                CumulativeOp::Prod,
                [3.0, 1.0, 6.0, 1.0, 18.0, nan, 0.0, nan],
            ),
            (CumulativeOp::Min, [3.0, 1.0, 2.0, 1.0, 2.0, nan, 0.0, nan]),
            (CumulativeOp::Max, [3.0, 1.0, 3.0, 1.0, 3.0, nan, 3.0, nan]),
        ] {
            assert!(same(&get(op), &want), "{op:?}: {:?}", get(op));
        }
    }

    #[test]
    fn wide_parallel_and_sparse_match_sequential() {
        let (rows, cols) = (70, 1200);
        let d = DenseMatrix::from_fn(rows, cols, |i, j| {
            if (i * 7 + j * 3) % 5 == 0 {
                (i as f64) - (j % 13) as f64
            } else {
                0.0
            }
        });
        let sparse = Matrix::Sparse(CsrMatrix::from_dense(&d));
        let got = cumulative(CumulativeOp::Sum, &Matrix::Dense(d.clone()));
        let got_sparse = cumulative(CumulativeOp::Sum, &sparse);
        for j in [0, 1, 255, 256, 777, cols - 1] {
            let mut acc = 0.0;
            for i in 0..rows {
                acc += d.get(i, j);
                assert_eq!(got.get(i, j), acc);
                assert_eq!(got_sparse.get(i, j), acc);
            }
        }
    }

    #[test]
    fn edge_shapes() {
        let row = dense(1, 3, &[1.0, 2.0, 3.0]);
        assert_eq!(
            cumulative(CumulativeOp::Sum, &row).to_dense().data(),
            &[1.0, 2.0, 3.0]
        );
        let empty = dense(0, 3, &[]);
        assert_eq!(
            cumulative(CumulativeOp::Prod, &empty).shape(),
            empty.shape()
        );
    }

    #[test]
    fn cumsumprod_is_the_linear_recurrence() {
        // SystemDS 3.4: cumsumprod(matrix("1 2 3 4 5 6 7 8", rows=4, cols=2)) = 1, 7, 47, 383.
        let x = dense(4, 2, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]);
        let y = cumsumprod(&x).unwrap();
        assert_eq!(y.to_dense().into_vec(), vec![1.0, 7.0, 47.0, 383.0]);
        assert!(cumsumprod(&dense(2, 1, &[1.0, 2.0])).is_err());
    }
}
