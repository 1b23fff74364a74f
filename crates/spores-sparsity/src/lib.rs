//! What both optimizers need to price a sum-product program before running it: index names,
//! the scalar operators with their algebraic properties (identity, annihilator), and sparsity
//! statistics with their estimators.
//!
//! It sits below the optimizers in the pipeline: `spores-tensor` (Galley's logical and
//! physical optimizers) estimates intermediates with [`stats::Estimator::Chain`] or
//! [`stats::Estimator::Uniform`], `spores-opt` (SPORES) prices linear-algebra plans with
//! [`stats::Estimator::DensityBound`], and neither depends on the other.
//!
//! ```
//! use spores_sparsity::stats::{map_stats, Estimator, TensorStats};
//! use spores_sparsity::{Idx, MapOp};
//!
//! // A 100x100 matrix with 1 % non-zeros, times a dense one: the product is non-zero only
//! // where the sparse one is (zero annihilates `*`).
//! let (i, j) = (Idx::new("i"), Idx::new("j"));
//! let dims = [(i.clone(), 100), (j.clone(), 100)];
//! let sparse = TensorStats::with_density(Estimator::DensityBound, &dims, 0.01, 0.0).unwrap();
//! let dense = TensorStats::dense(Estimator::DensityBound, &dims, 0.0).unwrap();
//! let product = map_stats(&MapOp::Mul, &[sparse, dense]).unwrap();
//! assert!((product.estimate() - 100.0).abs() < 1e-9);
//! ```

mod idx;
pub mod ops;
pub mod stats;

pub use idx::Idx;
pub use ops::{AggOp, MapOp, OpProps, ScalarFn, UserFunction};

/// Errors building statistics: inconsistent index sizes, too many indices, unknown inputs.
#[derive(Debug, thiserror::Error)]
pub enum StatsError {
    /// A tensor name with no statistics.
    #[error("unknown tensor `{0}`: not an input and not defined by an earlier query")]
    Unknown(String),
    #[error("{0}")]
    Invalid(String),
}

/// A materialized tensor as the statistics see it: its dimensions, its fill value (the value
/// of every entry not stored) and its stored entries.
pub trait StoredTensor {
    fn dims(&self) -> &[usize];
    fn fill(&self) -> f64;
    /// The stored entries as (coordinates, value); values equal to the fill are allowed and
    /// are not counted as non-fill.
    fn entries(&self) -> Box<dyn Iterator<Item = (&[u32], f64)> + '_>;
}
