//! Matrix formats and the automatic choice between them.
//!
//! [`Matrix`] is what flows between operators: either a row-major [`DenseMatrix`] or a
//! [`CsrMatrix`]. [`CscMatrix`] exists for kernels that want column access (for example
//! dense × sparse products). Format choice follows SystemDS: a matrix with more than one
//! column is stored sparse when its density is below [`SPARSITY_TURN_POINT`].

/// `rows()`, `cols()` and `shape()` of a matrix type with `rows` and `cols` fields.
macro_rules! dims_accessors {
    () => {
        pub fn rows(&self) -> usize {
            self.rows
        }

        pub fn cols(&self) -> usize {
            self.cols
        }

        pub fn shape(&self) -> Shape {
            Shape::new(self.rows, self.cols)
        }
    };
}

mod cells;
mod dense;
mod finite;
mod random;
mod sparse;
mod validate;

pub use crate::shape::Shape;
pub use cells::{Cells, ForeignSlice};
pub use dense::DenseMatrix;
pub use random::{rand_matrix, RandSpec};
pub use sparse::{CscMatrix, CsrMatrix, IndexChecks};

/// Density below which a matrix is kept in a sparse format (SystemDS's
/// `MatrixBlock.SPARSITY_TURN_POINT`).
pub const SPARSITY_TURN_POINT: f64 = 0.4;

/// Whether a matrix of this shape and number of non-zeros should be stored sparse.
///
/// Column vectors are always dense, as in SystemDS: a CSR column vector has one row
/// pointer per element and saves nothing.
pub fn prefer_sparse(rows: usize, cols: usize, nnz: usize) -> bool {
    if cols <= 1 || rows == 0 {
        return false;
    }
    let cells = rows as f64 * cols as f64;
    (nnz as f64) / cells < SPARSITY_TURN_POINT
}

/// A matrix in whichever format suits its sparsity.
#[derive(Clone, Debug)]
pub enum Matrix {
    Dense(DenseMatrix),
    Sparse(CsrMatrix),
}

impl Matrix {
    /// A dense column vector holding `values`.
    pub fn column(values: &[f64]) -> Matrix {
        Matrix::Dense(DenseMatrix::from_fn(values.len(), 1, |i, _| values[i]))
    }

    pub fn rows(&self) -> usize {
        match self {
            Matrix::Dense(d) => d.rows(),
            Matrix::Sparse(s) => s.rows(),
        }
    }

    pub fn cols(&self) -> usize {
        match self {
            Matrix::Dense(d) => d.cols(),
            Matrix::Sparse(s) => s.cols(),
        }
    }

    pub fn shape(&self) -> Shape {
        Shape::new(self.rows(), self.cols())
    }

    /// Row `i` as dense cells: a dense matrix's own row, or a sparse row scattered into
    /// `buf` (one column per cell, zeros elsewhere).
    pub fn dense_row<'a>(&'a self, i: usize, buf: &'a mut [f64]) -> &'a [f64] {
        match self {
            Matrix::Dense(d) => d.row(i),
            Matrix::Sparse(s) => {
                buf.fill(0.0);
                let (idx, val) = s.line(i);
                for (&j, &v) in idx.iter().zip(val) {
                    buf[j as usize] = v;
                }
                buf
            }
        }
    }

    /// Whether every cell is finite (no NaN, no ±Inf); computed once per matrix.
    pub fn all_finite(&self) -> bool {
        match self {
            Matrix::Dense(d) => d.all_finite(),
            Matrix::Sparse(s) => s.all_finite(),
        }
    }

    /// [`Self::all_finite`] if it is known without a scan: always for matrices the
    /// engine made (their scan runs when first asked), not for one read in place from
    /// outside until it was asked or a kernel's pass recorded the answer.
    pub fn finite_if_known(&self) -> Option<bool> {
        match self {
            Matrix::Dense(d) => d.finite_if_known(),
            Matrix::Sparse(s) => s.finite_if_known(),
        }
    }

    /// Records that every cell is finite, which a kernel learned in its own pass over
    /// all of them.
    pub fn record_all_finite(&self) {
        match self {
            Matrix::Dense(d) => d.record_all_finite(),
            Matrix::Sparse(s) => s.record_all_finite(),
        }
    }

    /// Whether the values are read in place from a foreign owner (see [`ForeignSlice`]):
    /// nothing is known about them until they are read.
    pub fn is_foreign(&self) -> bool {
        match self {
            Matrix::Dense(d) => d.is_foreign(),
            Matrix::Sparse(s) => s.is_foreign(),
        }
    }

    /// Number of non-zero cells (for sparse matrices: stored entries that are non-zero).
    pub fn nnz(&self) -> usize {
        match self {
            Matrix::Dense(d) => d.nnz(),
            Matrix::Sparse(s) => s.nnz(),
        }
    }

    /// Fraction of non-zero cells, 0 for an empty matrix.
    pub fn density(&self) -> f64 {
        let cells = self.rows() as f64 * self.cols() as f64;
        if cells == 0.0 {
            0.0
        } else {
            self.nnz() as f64 / cells
        }
    }

    pub fn is_sparse(&self) -> bool {
        matches!(self, Matrix::Sparse(_))
    }

    /// Value at row `i`, column `j` (0-based). Panics when out of bounds, like slice indexing.
    pub fn get(&self, i: usize, j: usize) -> f64 {
        match self {
            Matrix::Dense(d) => d.get(i, j),
            Matrix::Sparse(s) => s.get(i, j),
        }
    }

    /// The single value of a 1×1 matrix.
    pub fn as_scalar(&self) -> Option<f64> {
        (self.rows() == 1 && self.cols() == 1).then(|| self.get(0, 0))
    }

    pub fn to_dense(&self) -> DenseMatrix {
        match self {
            Matrix::Dense(d) => d.clone(),
            Matrix::Sparse(s) => s.to_dense(),
        }
    }

    pub fn into_dense(self) -> DenseMatrix {
        match self {
            Matrix::Dense(d) => d,
            Matrix::Sparse(s) => s.to_dense(),
        }
    }

    pub fn to_csr(&self) -> CsrMatrix {
        match self {
            Matrix::Dense(d) => CsrMatrix::from_dense(d),
            Matrix::Sparse(s) => s.clone(),
        }
    }

    /// Converts to the format [`prefer_sparse`] picks for the actual number of non-zeros.
    pub fn into_best_format(self) -> Matrix {
        // A vector with one column is never sparse: skip counting its non-zeros.
        let sparse = self.cols() > 1
            && self.rows() > 0
            && prefer_sparse(self.rows(), self.cols(), self.nnz());
        match self {
            Matrix::Dense(d) if sparse => Matrix::Sparse(CsrMatrix::from_dense(&d)),
            Matrix::Sparse(s) if !sparse => Matrix::Dense(s.to_dense()),
            Matrix::Sparse(s) if s.has_explicit_zeros() => Matrix::Sparse(s.pruned()),
            other => other,
        }
    }

    /// Whether two matrices have the same shape and every pair of cells agrees within
    /// relative tolerance `rtol` (absolute `rtol` near zero). Format is ignored.
    pub fn approx_eq(&self, other: &Matrix, rtol: f64) -> bool {
        if self.shape() != other.shape() {
            return false;
        }
        let (a, b) = (self.to_dense(), other.to_dense());
        a.data()
            .iter()
            .zip(b.data())
            .all(|(&x, &y)| approx_eq_f64(x, y, rtol))
    }
}

impl From<DenseMatrix> for Matrix {
    fn from(d: DenseMatrix) -> Self {
        Matrix::Dense(d)
    }
}

impl From<CsrMatrix> for Matrix {
    fn from(s: CsrMatrix) -> Self {
        Matrix::Sparse(s)
    }
}

/// Relative comparison of two floats: equal within `rtol * max(|x|, |y|, 1)`;
/// NaNs compare equal to NaNs and infinities to infinities of the same sign.
pub fn approx_eq_f64(x: f64, y: f64, rtol: f64) -> bool {
    if x.is_nan() || y.is_nan() {
        return x.is_nan() && y.is_nan();
    }
    if x.is_infinite() || y.is_infinite() {
        return x == y;
    }
    (x - y).abs() <= rtol * x.abs().max(y.abs()).max(1.0)
}

/// Test helper: the same shape, and `eq` holds for every pair of cells, whatever the
/// formats.
#[cfg(test)]
pub(crate) fn cells_agree(a: &Matrix, b: &Matrix, eq: impl Fn(f64, f64) -> bool) -> bool {
    a.shape() == b.shape()
        && a.to_dense()
            .data()
            .iter()
            .zip(b.to_dense().data())
            .all(|(&x, y)| eq(x, *y) || (x.is_nan() && y.is_nan()))
}
