//! The price formulas of the kernels: predicted nanoseconds from sizes and sparsities,
//! with the measured constants of [`super::table`]. A leaf the pricing of whole
//! expressions ([`super::LaCost`]) and the fused-operator catalogue
//! ([`crate::fused::CATALOGUE`]) both read.

use spores_exec::matrix::SPARSITY_TURN_POINT;

use super::table::*;

/// Largest inner size of a product read as a low-rank dot per cell (a rank-`k`
/// dot per non-zero of the mask; see `crate::extract`'s masked candidates).
pub const MAX_RANK: usize = 256;

/// Whether a value of estimated sparsity `s` is held (and processed) in a sparse format.
fn sparse(s: f64) -> bool {
    s < SPARSITY_TURN_POINT
}

/// A pass over `cells` cells of sparsity `s`: over the non-zeros if sparse, else every cell.
fn pass(cells: f64, s: f64, sparse_ns: f64, dense_ns: f64) -> f64 {
    OP_OVERHEAD_NS
        + if sparse(s) {
            sparse_ns * cells * s
        } else {
            dense_ns * cells
        }
}

/// `a * b` elementwise over `cells` output cells: the kernel walks the sparser operand.
pub fn mul(cells: f64, sa: f64, sb: f64) -> f64 {
    pass(
        cells,
        sa.min(sb),
        SPARSE_EW_NS_PER_NNZ,
        DENSE_EW_NS_PER_CELL,
    )
}

/// `a + b` elementwise: a merge of both patterns when both are sparse, else dense.
pub fn add(cells: f64, sa: f64, sb: f64) -> f64 {
    let s = if sparse(sa) && sparse(sb) {
        sa + sb
    } else {
        1.0
    };
    pass(cells, s, SPARSE_EW_NS_PER_NNZ, DENSE_EW_NS_PER_CELL)
}

/// A unary elementwise map that keeps zeros (negation, positive powers, scaling).
pub fn map_sparse(cells: f64, s: f64) -> f64 {
    pass(cells, s, SPARSE_EW_NS_PER_NNZ, DENSE_EW_NS_PER_CELL)
}

/// An opaque elementwise function: assume it fills every cell.
pub fn map_dense(cells: f64) -> f64 {
    OP_OVERHEAD_NS + DENSE_EW_NS_PER_CELL * cells
}

/// `(m x k) %*% (k x n)` with operand sparsities `sa`, `sb`, priced by the kernel the
/// formats select: GEMM (GEMV for a vector), sparse x dense, dense x sparse or SpGEMM.
/// A sparse matrix times a vector on either side is a mat-vec (SpMV), priced per
/// non-zero: SpMM and dense x sparse share each read of a non-zero between the columns
/// (rows) of the dense operand, a mat-vec pays it per multiply-add. Each kernel's price
/// was measured with its output written, so the output is not priced separately.
pub fn matmul(m: f64, k: f64, n: f64, sa: f64, sb: f64) -> f64 {
    let flops = m * k * n;
    OP_OVERHEAD_NS
        + match (sparse(sa) && k > 1.0, sparse(sb) && n > 1.0) {
            (false, false) if m <= 1.0 || n <= 1.0 => GEMV_NS_PER_FLOP * flops,
            (false, false) => GEMM_NS_PER_FLOP * flops,
            (true, false) if n <= 1.0 => SPMV_NS_PER_NNZ * flops * sa,
            (true, false) => SPMM_NS_PER_FLOP * flops * sa,
            (false, true) if m <= 1.0 => SPMV_NS_PER_NNZ * flops * sb,
            (false, true) => DENSE_SPARSE_NS_PER_FLOP * flops * sb,
            (true, true) => SPGEMM_NS_PER_FLOP * flops * sa * sb,
        }
}

/// A sum over some dimensions of `cells` input cells (writing `out` cells, which costs
/// nothing measurable next to reading the input).
pub fn aggregate(cells: f64, s: f64, _out: f64) -> f64 {
    pass(cells, s, SPARSE_AGG_NS_PER_NNZ, DENSE_AGG_NS_PER_CELL)
}

/// A transpose: free for vectors (a reshape), a copy of every cell or non-zero otherwise.
pub fn transpose(rows: f64, cols: f64, s: f64) -> f64 {
    if rows <= 1.0 || cols <= 1.0 {
        0.0
    } else {
        pass(
            rows * cols,
            s,
            SPARSE_TRANSPOSE_NS_PER_NNZ,
            DENSE_TRANSPOSE_NS_PER_CELL,
        )
    }
}

/// `wsloss(X, U, V)` = `sum((X - U %*% t(V))^2)` (and `wsloss_plus`), `X` is `m x n`
/// with sparsity `sx`, rank `k`: one rank-`k` dot per non-zero of `X` plus two `k x k`
/// Gram matrices.
pub fn wsloss(m: f64, n: f64, k: f64, sx: f64) -> f64 {
    let nnz = m * n * if sparse(sx) { sx } else { 1.0 };
    OP_OVERHEAD_NS + WSLOSS_NS_PER_NNZ_RANK * nnz * k + GEMM_NS_PER_FLOP * (m + n) * k * k
}

/// `sddmm_sum(X, U, V)` = `sum(X * (U %*% t(V)))`: one rank-`k` dot per non-zero of `X`.
pub fn sddmm_sum(m: f64, n: f64, k: f64, sx: f64) -> f64 {
    let nnz = m * n * if sparse(sx) { sx } else { 1.0 };
    OP_OVERHEAD_NS + SDDMM_NS_PER_NNZ_RANK * nnz * k
}

/// How many times `sddmm_sum`'s price per non-zero and rank a kernel that writes a value
/// per non-zero of `X` costs: `sddmm` (a sparse result in `X`'s pattern) and `wdivmm_mult`
/// (a rank-`k` update per non-zero) both measure about six (`fused_speed` example, 1M
/// non-zeros, rank 10, one and two threads), where `sddmm_sum` only accumulates.
const PER_NNZ_WRITE_FACTOR: f64 = 6.0;

/// `sddmm(X, U, V)` = `X * (U %*% t(V))` in `X`'s pattern: one rank-`k` dot and one stored
/// value per non-zero of `X`.
pub fn sddmm(m: f64, n: f64, k: f64, sx: f64) -> f64 {
    let nnz = m * n * if sparse(sx) { sx } else { 1.0 };
    OP_OVERHEAD_NS + PER_NNZ_WRITE_FACTOR * SDDMM_NS_PER_NNZ_RANK * nnz * k
}

/// `wdivmm_mult(X, U, V)` = `(X * (U %*% t(V))) %*% V`: per non-zero of `X` one rank-`k`
/// dot and one rank-`k` update of the result row; measured at `sddmm`'s price. The
/// divide forms (`wdivmm_left`, `wdivmm_right`) do the same work per non-zero.
pub fn wdivmm_mult(m: f64, n: f64, k: f64, sx: f64) -> f64 {
    sddmm(m, n, k, sx)
}

/// `wcemm(X, U, V)` = `sum(X * log(U %*% t(V)))`: `sddmm_sum`'s rank-`k` dot per non-zero
/// of `X`, and one logarithm each, priced as a dense map of that many cells.
pub fn wcemm(m: f64, n: f64, k: f64, sx: f64) -> f64 {
    let nnz = m * n * if sparse(sx) { sx } else { 1.0 };
    sddmm_sum(m, n, k, sx) + DENSE_EW_NS_PER_CELL * nnz
}

/// A masked operator (`masked_mul(X, E)` = `X * E`, `masked_div(X, E)` = `X / E`, sparse
/// `X`): the element-wise tree `E` evaluated at the `nnz` non-zeros of `X` only, `instrs`
/// element-wise operators per cell and low-rank products `U %*% t(V)` of total inner
/// size `rank` read as a dot per cell; one stored value written per non-zero. A low-rank
/// dot is priced as in `sddmm` (which writes too), so where a catalogue operator names
/// the same tree it is the cheaper one.
pub fn masked(nnz: f64, instrs: f64, rank: f64) -> f64 {
    OP_OVERHEAD_NS + nnz * (SPARSE_EW_NS_PER_NNZ + masked_per_cell(instrs, rank))
}

/// What a masked operator's tree costs per non-zero of the mask (see [`masked`]).
pub fn masked_per_cell(instrs: f64, rank: f64) -> f64 {
    DENSE_EW_NS_PER_CELL * instrs + PER_NNZ_WRITE_FACTOR * SDDMM_NS_PER_NNZ_RANK * rank
}

/// `sum_mm(A, B)` = `sum(A %*% B)` for `A` `m x k` with sparsity `sa` and `B` `k x n`:
/// `colSums(A)` and `rowSums(B)` (one pass over each) and their dot product, the product
/// never formed. A catalogue price sees only the first operand's sparsity, so `B` is
/// priced dense, an upper bound.
pub fn sum_mm(m: f64, k: f64, n: f64, sa: f64) -> f64 {
    OP_OVERHEAD_NS + aggregate(m * k, sa, k) + aggregate(k * n, 1.0, k) + GEMV_NS_PER_FLOP * k
}

/// `mmchain(X, v[, w])` = `t(X) %*% ([w *] (X %*% v))`, `X` `m x n`, `v` `n x c`: two
/// passes over the non-zeros of `X` per column of `v`, nothing materialized but the result.
pub fn mmchain(m: f64, n: f64, c: f64, sx: f64) -> f64 {
    let nnz = m * n * if sparse(sx) { sx } else { 1.0 };
    OP_OVERHEAD_NS + MMCHAIN_NS_PER_NNZ_COL * nnz * c
}

/// `tsmm(X)` = `t(X) %*% X` for an `m x n` `X` with sparsity `sx`: one triangle of the
/// symmetric result, mirrored. The result is dense even for a sparse `X`, so a wide sparse
/// `X` pays for `n * n` cells where the sparse product would not.
pub fn tsmm(m: f64, n: f64, sx: f64) -> f64 {
    let flops = m * n * n;
    OP_OVERHEAD_NS
        + if sparse(sx) && n > 1.0 {
            TSMM_SPARSE_NS_PER_FLOP * flops * sx * sx + TSMM_SPARSE_NS_PER_RESULT_CELL * n * n
        } else {
            TSMM_DENSE_NS_PER_FLOP * flops
        }
}

/// `sprop(P)` = `P * (1 - P)` in one dense pass.
pub fn sprop(cells: f64) -> f64 {
    OP_OVERHEAD_NS + SPROP_NS_PER_CELL * cells
}
