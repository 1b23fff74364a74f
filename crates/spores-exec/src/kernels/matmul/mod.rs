//! Matrix products: `A %*% B` for every format combination, products with transposed
//! operands that never copy a dense operand when avoidable, and `t(X) %*% X`.
//!
//! Entry points: [`matmul`] and [`matmul_t`] dispatch on the formats (and transpose
//! flags) of [`Matrix`] operands; [`gemm`], [`spmm`], [`dense_sparse`], [`spgemm`] and
//! [`tsmm`] are the format-specific kernels for callers (the optimizer's physical plans)
//! that already know the formats. Dense results are [`Matrix::Dense`]; a sparse × sparse
//! product comes back in its best format.
//!
//! Layout: [`dense`] holds dense × dense and dense × sparse kernels, [`sparse`] the
//! kernels driven by a CSR operand, [`par`] the shared parallelization helpers.

pub(crate) mod dense;
pub(crate) mod par;
pub(crate) mod sparse;

use self::dense::{dense_sparse_t_view, dense_sparse_view, gemm_view, tsmm_dense, DView};
use crate::error::{ExecError, Result};
use crate::kernels::transpose::transpose_dense;
use crate::matrix::{prefer_sparse, CsrMatrix, DenseMatrix, Matrix, Shape, SPARSITY_TURN_POINT};

/// `A %*% B` for any format combination.
///
/// Dense results are returned dense; sparse × sparse goes through Gustavson's SpGEMM and
/// comes back in whichever format suits its actual density.
pub fn matmul(a: &Matrix, b: &Matrix) -> Result<Matrix> {
    matmul_t(a, false, b, false)
}

/// The operator name used in shape errors for `op(A) %*% op(B)`.
fn op_name(transpose_a: bool, transpose_b: bool) -> &'static str {
    match (transpose_a, transpose_b) {
        (false, false) => "%*%",
        (true, false) => "t(A) %*% B",
        (false, true) => "A %*% t(B)",
        (true, true) => "t(A) %*% t(B)",
    }
}

fn op_shape(s: Shape, transposed: bool) -> Shape {
    if transposed {
        s.transposed()
    } else {
        s
    }
}

/// An all-zero `rows × cols` result in its best format, without touching any data.
fn zero_result(rows: usize, cols: usize) -> Matrix {
    if prefer_sparse(rows, cols, 0) {
        Matrix::Sparse(CsrMatrix::zeros(rows, cols))
    } else {
        Matrix::Dense(DenseMatrix::zeros(rows, cols))
    }
}

/// `op(A) %*% op(B)` where `op` is the identity or the transpose, chosen by the flags.
///
/// A transposed dense operand is read through swapped strides (GEMM, GEMV, the
/// dense × sparse dot/axpy loops) instead of being copied. For a sparse operand: `t(X) %*% v`
/// and `t(X) %*% D` with a small result scatter into per-thread accumulators instead of
/// transposing `X`; `X %*% t(D)` reads a small or vector `D` in place. The remaining
/// cases transpose whichever side is cheapest (a sparse counting sort, or the dense
/// *result* rather than an operand). `t(X) %*% X` with both arguments the same object goes
/// to [`tsmm`].
///
/// Errors with [`ExecError::ShapeMismatch`] when the inner dimensions of `op(A)` and
/// `op(B)` differ; the error names the operator as written (e.g. `t(A) %*% B`) and
/// carries the stored shapes of `A` and `B`.
pub fn matmul_t(a: &Matrix, transpose_a: bool, b: &Matrix, transpose_b: bool) -> Result<Matrix> {
    let (sa, sb) = (
        op_shape(a.shape(), transpose_a),
        op_shape(b.shape(), transpose_b),
    );
    ExecError::ensure_shapes(
        sa.cols == sb.rows,
        op_name(transpose_a, transpose_b),
        a.shape(),
        b.shape(),
    )?;
    let (m, k, n) = (sa.rows, sa.cols, sb.cols);
    if !(a.is_sparse() && b.is_sparse()) {
        crate::memory::ensure_dense(op_name(transpose_a, transpose_b), m, n)?;
    }
    if m == 0 || n == 0 || k == 0 {
        return Ok(zero_result(m, n));
    }
    if !(a.all_finite() && b.all_finite()) {
        return Ok(annihilating_product(a, transpose_a, b, transpose_b));
    }
    if transpose_a && !transpose_b && std::ptr::eq(a, b) {
        return gram(a);
    }
    let result = match (a, b) {
        (Matrix::Dense(x), Matrix::Dense(y)) => Matrix::Dense(gemm_view(
            DView::new(x, transpose_a),
            DView::new(y, transpose_b),
        )),
        (Matrix::Sparse(s), Matrix::Dense(d)) => Matrix::Dense(match (transpose_a, transpose_b) {
            (false, false) => sparse::sparse_dense(s, d.data(), d.cols()),
            (false, true) => sparse::sparse_dense_t(s, d),
            (true, false) => sparse::sparse_t_dense(s, d.data(), d.cols()),
            // t(S) t(D) = t(D S): transpose the result, not an operand.
            (true, true) => transpose_dense(&dense_sparse_view(DView::new(d, false), s)),
        }),
        (Matrix::Dense(d), Matrix::Sparse(s)) if m == 1 => {
            // A row vector times a sparse matrix, c' = op(S)' a': a vector's buffer is
            // its own transpose, so this is the parallel SpMV or scatter kernel.
            let c = if transpose_b {
                sparse::sparse_dense(s, d.data(), 1)
            } else {
                sparse::sparse_t_dense(s, d.data(), 1)
            };
            Matrix::Dense(DenseMatrix::from_vec(1, n, c.into_vec())?)
        }
        (Matrix::Dense(d), Matrix::Sparse(s)) => Matrix::Dense(match (transpose_a, transpose_b) {
            (false, false) | (true, false) => dense_sparse_view(DView::new(d, transpose_a), s),
            (false, true) => dense_sparse_t_view(DView::new(d, false), s),
            // t(D) t(S) = t(S D).
            (true, true) => transpose_dense(&sparse::sparse_dense(s, d.data(), d.cols())),
        }),
        (Matrix::Sparse(x), Matrix::Sparse(y)) => match (transpose_a, transpose_b) {
            (false, false) => sparse::spgemm_impl(x, y),
            (true, false) => sparse::spgemm_impl(&x.transpose(), y),
            (false, true) => sparse::spgemm_impl(x, &y.transpose()),
            // t(X) t(Y) = t(Y X).
            (true, true) => {
                crate::kernels::transpose::transpose(&sparse::spgemm_impl(y, x)).into_best_format()
            }
        },
    };
    Ok(result)
}

/// `op(A) %*% op(B)` when an operand holds NaN or ±Inf. Under the cell semantics a zero
/// annihilates (`0 * Inf = 0`), so only pairs of non-zero cells may contribute: both
/// operands go to CSR without zeros and through Gustavson's SpGEMM, which multiplies
/// exactly those pairs, whatever format the operands were stored in. The fast kernels
/// (GEMM, the sparse × dense loops) multiply zeros of a dense operand and would give NaN.
fn annihilating_product(a: &Matrix, transpose_a: bool, b: &Matrix, transpose_b: bool) -> Matrix {
    let nonzeros = |m: &Matrix, transposed: bool| {
        let csr = match m {
            Matrix::Dense(d) => CsrMatrix::from_dense(d),
            Matrix::Sparse(s) => s.pruned(),
        };
        if transposed {
            csr.transpose()
        } else {
            csr
        }
    };
    sparse::spgemm_impl(&nonzeros(a, transpose_a), &nonzeros(b, transpose_b))
}

fn check_inner(a: Shape, b: Shape) -> Result<()> {
    if a.cols != b.rows {
        Err(ExecError::shape_mismatch("%*%", a, b))
    } else {
        Ok(())
    }
}

/// Dense × dense product (faer's GEMM, on the rayon pool when big; matrix-vector shapes
/// use a dedicated GEMV that skips GEMM's packing).
pub fn gemm(a: &DenseMatrix, b: &DenseMatrix) -> Result<DenseMatrix> {
    check_inner(a.shape(), b.shape())?;
    if !(a.all_finite() && b.all_finite()) {
        let (a, b) = (Matrix::Dense(a.clone()), Matrix::Dense(b.clone()));
        return Ok(annihilating_product(&a, false, &b, false).into_dense());
    }
    Ok(gemm_view(DView::new(a, false), DView::new(b, false)))
}

/// Sparse × dense product. Row-parallel over the CSR rows, with row ranges balanced by
/// stored entries; a one-column `b` takes the SpMV path (one sparse dot product per row).
pub fn spmm(a: &CsrMatrix, b: &DenseMatrix) -> Result<DenseMatrix> {
    check_inner(a.shape(), b.shape())?;
    if !(a.all_finite() && b.all_finite()) {
        let (a, b) = (Matrix::Sparse(a.clone()), Matrix::Dense(b.clone()));
        return Ok(annihilating_product(&a, false, &b, false).into_dense());
    }
    Ok(sparse::sparse_dense(a, b.data(), b.cols()))
}

/// Dense × sparse product: each output row accumulates the sparse rows of `b` selected
/// by the non-zeros of the matching row of `a` (no CSC conversion needed); parallel over
/// output rows.
pub fn dense_sparse(a: &DenseMatrix, b: &CsrMatrix) -> Result<DenseMatrix> {
    check_inner(a.shape(), b.shape())?;
    if !(a.all_finite() && b.all_finite()) {
        let (a, b) = (Matrix::Dense(a.clone()), Matrix::Sparse(b.clone()));
        return Ok(annihilating_product(&a, false, &b, false).into_dense());
    }
    if a.rows() == 1 {
        // Row vector: the parallel t(B) %*% a' scatter kernel, same buffer.
        let c = sparse::sparse_t_dense(b, a.data(), 1);
        return DenseMatrix::from_vec(1, b.cols(), c.into_vec());
    }
    Ok(dense_sparse_view(DView::new(a, false), b))
}

/// Sparse × sparse product (Gustavson, row-parallel with balanced work); the result is
/// sparse unless it is dense enough that the format rule says otherwise.
pub fn spgemm(a: &CsrMatrix, b: &CsrMatrix) -> Result<Matrix> {
    check_inner(a.shape(), b.shape())?;
    if a.rows() == 0 || b.cols() == 0 || a.cols() == 0 {
        return Ok(zero_result(a.rows(), b.cols()));
    }
    if a.has_explicit_zeros() || b.has_explicit_zeros() {
        // A stored zero times a stored Inf would give NaN; the cell semantics say 0.
        return Ok(sparse::spgemm_impl(&a.pruned(), &b.pruned()));
    }
    Ok(sparse::spgemm_impl(a, b))
}

/// `t(X) %*% X` (SystemDS's `tsmm`), an `n × n` dense result for an `m × n` `X`, computing
/// only one triangle of the symmetric result and mirroring it. Dense `X`: per-thread Gram
/// matrices of row chunks (narrow `X`) or the upper block triangle via GEMM (wide `X`).
/// Sparse `X`: output rows from a CSC copy of `X`, in parallel. Fails only when the dense
/// result is beyond the memory budget.
pub fn tsmm(x: &Matrix) -> Result<DenseMatrix> {
    crate::memory::ensure_dense("t(X) %*% X", x.cols(), x.cols())?;
    if !x.all_finite() {
        return Ok(annihilating_product(x, true, x, false).to_dense());
    }
    Ok(match x {
        Matrix::Dense(d) => tsmm_dense(d),
        Matrix::Sparse(s) => sparse::tsmm_sparse(s),
    })
}

/// `t(X) %*% X` in the format its result wants: [`tsmm`]'s dense result, or for a sparse
/// `X` whose Gram matrix is bound to be sparse, Gustavson's SpGEMM. A row with `r`
/// non-zeros contributes at most `r²` cells, so the row counts bound the result's
/// non-zeros before anything is computed (one entry in a 10^6 x 10^6 `X` gives one cell,
/// not a dense 8 TB result).
pub fn gram(x: &Matrix) -> Result<Matrix> {
    let n = x.cols();
    if let Matrix::Sparse(s) = x {
        let bound: f64 = (0..s.rows())
            .map(|i| (s.line(i).0.len() as f64).powi(2))
            .sum();
        let cells = n as f64 * n as f64;
        if bound < SPARSITY_TURN_POINT * cells {
            let entries = bound.min(cells);
            crate::memory::ensure_fits(
                &format!("t(X) %*% X: a sparse {n}x{n} result with up to {entries} entries"),
                12.0 * entries + 8.0 * (n as f64 + 1.0),
            )?;
            return Ok(sparse::spgemm_impl(&s.transpose(), s).into_best_format());
        }
    }
    tsmm(x).map(Matrix::Dense)
}

#[cfg(test)]
mod tests;
