//! Kernel costs measured on this machine: nanoseconds per unit of work per kernel
//! family. GENERATED — do not edit; regenerate with
//!
//! ```sh
//! cargo run --release -p spores-opt --example calibrate -- --write
//! ```
//!
//! (fastest of 9 runs per point; ns per unit = total time / total work over
//! the points; load average 8.50 when measured.)

/// dense x dense product: ns per multiply-add.
pub const GEMM_NS_PER_FLOP: f64 = 0.08533;
/// dense matrix x vector or vector x matrix product: ns per multiply-add.
pub const GEMV_NS_PER_FLOP: f64 = 0.84261;
/// sparse x dense product (SpMV, SpMM): ns per non-zero of A times column of B.
pub const SPMM_NS_PER_FLOP: f64 = 0.47341;
/// dense x sparse product: ns per row of A times non-zero of B.
pub const DENSE_SPARSE_NS_PER_FLOP: f64 = 1.73043;
/// sparse x sparse product (Gustavson): ns per multiply-add.
pub const SPGEMM_NS_PER_FLOP: f64 = 29.52666;
/// dense transpose: ns per cell.
pub const DENSE_TRANSPOSE_NS_PER_CELL: f64 = 3.47695;
/// sparse transpose (counting sort): ns per non-zero.
pub const SPARSE_TRANSPOSE_NS_PER_NNZ: f64 = 7.65893;
/// dense elementwise operator (also writing a dense result): ns per output cell.
pub const DENSE_EW_NS_PER_CELL: f64 = 1.36490;
/// sparse elementwise operator (maps, unions, intersections): ns per non-zero read.
pub const SPARSE_EW_NS_PER_NNZ: f64 = 13.92666;
/// dense sum/rowSums/colSums: ns per cell read.
pub const DENSE_AGG_NS_PER_CELL: f64 = 1.92414;
/// sparse sum/rowSums/colSums: ns per non-zero read.
pub const SPARSE_AGG_NS_PER_NNZ: f64 = 2.62651;
/// fused wsloss / wsloss_plus: ns per non-zero of X times rank.
pub const WSLOSS_NS_PER_NNZ_RANK: f64 = 0.43335;
/// fused sddmm_sum: ns per non-zero of X times rank.
pub const SDDMM_NS_PER_NNZ_RANK: f64 = 0.23381;
/// fused mmchain (t(X) %*% (X %*% v)): ns per non-zero of X times column of v.
pub const MMCHAIN_NS_PER_NNZ_COL: f64 = 3.51173;
/// fused sprop (P * (1 - P)): ns per cell.
pub const SPROP_NS_PER_CELL: f64 = 0.59038;
/// Fixed cost of running one operator (dispatch, allocation): a 4 x 4
/// elementwise product, in ns.
pub const OP_OVERHEAD_NS: f64 = 150.0;
