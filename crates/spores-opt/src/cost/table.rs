//! Kernel costs measured on this machine: nanoseconds per unit of work per kernel
//! family. GENERATED — do not edit; regenerate with
//!
//! ```sh
//! cargo run --release -p spores-opt --example calibrate -- --write
//! ```
//!
//! (fastest of 7 runs per point; ns per unit = total time / total work over
//! the points; load average 0.03 when measured.)

/// dense x dense product: ns per multiply-add.
pub const GEMM_NS_PER_FLOP: f64 = 0.03773;
/// dense matrix x vector or vector x matrix product: ns per multiply-add.
pub const GEMV_NS_PER_FLOP: f64 = 0.30015;
/// sparse x dense product with several columns (SpMM): ns per non-zero of A times column of B.
pub const SPMM_NS_PER_FLOP: f64 = 0.14538;
/// sparse matrix times a vector (`A %*% v`, `t(A) %*% v`, `t(v) %*% A`): ns per non-zero of A (written with --only: fastest of 7 runs, load 1.59).
pub const SPMV_NS_PER_NNZ: f64 = 0.72157;
/// dense x sparse product: ns per row of A times non-zero of B.
pub const DENSE_SPARSE_NS_PER_FLOP: f64 = 0.38994;
/// sparse x sparse product (Gustavson): ns per multiply-add.
pub const SPGEMM_NS_PER_FLOP: f64 = 8.12088;
/// dense transpose: ns per cell.
pub const DENSE_TRANSPOSE_NS_PER_CELL: f64 = 0.89841;
/// sparse transpose (counting sort): ns per non-zero.
pub const SPARSE_TRANSPOSE_NS_PER_NNZ: f64 = 4.86023;
/// dense elementwise operator (also writing a dense result): ns per output cell.
pub const DENSE_EW_NS_PER_CELL: f64 = 0.60848;
/// sparse elementwise operator (maps, unions, intersections): ns per non-zero read.
pub const SPARSE_EW_NS_PER_NNZ: f64 = 4.43922;
/// dense sum/rowSums/colSums: ns per cell read.
pub const DENSE_AGG_NS_PER_CELL: f64 = 0.72164;
/// sparse sum/rowSums/colSums: ns per non-zero read.
pub const SPARSE_AGG_NS_PER_NNZ: f64 = 1.04066;
/// fused wsloss / wsloss_plus: ns per non-zero of X times rank.
pub const WSLOSS_NS_PER_NNZ_RANK: f64 = 0.15667;
/// fused sddmm_sum: ns per non-zero of X times rank.
pub const SDDMM_NS_PER_NNZ_RANK: f64 = 0.11803;
/// fused mmchain (t(X) %*% (X %*% v)): ns per non-zero of X times column of v (written with --only: fastest of 7 runs, load 1.59).
pub const MMCHAIN_NS_PER_NNZ_COL: f64 = 1.17159;
/// tsmm (t(X) %*% X), dense X: ns per multiply-add of the full product.
pub const TSMM_DENSE_NS_PER_FLOP: f64 = 0.03110;
/// tsmm (t(X) %*% X), sparse X: ns per multiply-add of the full product times X's density squared.
pub const TSMM_SPARSE_NS_PER_FLOP: f64 = 3.13700;
/// tsmm (t(X) %*% X), sparse X: ns per cell of the dense n x n result.
pub const TSMM_SPARSE_NS_PER_RESULT_CELL: f64 = 1.67700;
/// fused sprop (P * (1 - P)): ns per cell.
pub const SPROP_NS_PER_CELL: f64 = 0.57909;
/// Fixed cost of running one operator (dispatch, allocation): a 4 x 4
/// elementwise product, in ns.
pub const OP_OVERHEAD_NS: f64 = 60.0;
