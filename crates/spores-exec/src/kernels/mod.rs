//! Kernels: the operators that actually touch matrix data.
//!
//! Every kernel takes [`Matrix`](crate::Matrix) values (or a concrete format where the
//! kernel is format-specific), checks shapes and returns a [`Result`](crate::Result).
//! Kernels parallelize with rayon above a size threshold and keep sparse results
//! sparse wherever the operator maps zero to zero.

pub mod aggregate;
pub mod class_meet;
mod cpu;
pub mod cumulative;
pub mod distribution;
pub mod dnn;
pub mod elementwise;
mod ew_common;
pub mod ew_fused;
pub mod fused;
pub mod gram;
pub mod kahan;
pub mod linalg;
pub mod masked;
pub mod matmul;
pub mod select;
pub mod sort;
pub mod stats;
pub mod structural;
pub mod table;
pub mod transpose;
pub mod unary;

pub use matmul::par::{balanced_bounds, split_rows_mut, zeroed, zeroed_u32};
