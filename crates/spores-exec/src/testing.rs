//! What the unit tests of several modules build their operands with.

use crate::matrix::{DenseMatrix, Matrix};

/// A dense `rows x cols` matrix of `values`, row by row.
pub(crate) fn dense(rows: usize, cols: usize, values: &[f64]) -> Matrix {
    Matrix::Dense(DenseMatrix::from_vec(rows, cols, values.to_vec()).expect("rows * cols values"))
}
