//! The density-bound estimator: the sparsity estimate of the SPORES paper (Figure 12),
//! which SPORES' linear-algebra optimizer (`spores-opt`) prices its plans with.
//!
//! It keeps one number per tensor, its density (non-fill entries / cells), and propagates an
//! upper bound given upper bounds of the children:
//! - a join (annihilating map) is at most as dense as its sparsest child: `min(d_a, d_b)`
//!   (broadcasting a child over an index keeps its density);
//! - a union (non-annihilating map) at most the sum: `min(1, d_a + d_b)`;
//! - an aggregate over `n` cells at most `min(1, n * d)` (each non-fill entry lands in one
//!   output cell).
//!
//! Unlike [`super::uniform`] it assumes nothing about independence, so it never
//! underestimates; it is coarse for joins of many factors, where Galley's estimators do better.
//! Densities, not counts, are stored so the arithmetic is exactly Figure 12's.

use super::{Kind, TensorStats};

/// The tightest of the children's densities.
pub(super) fn conjunction(children: &[&TensorStats]) -> Kind {
    let density = children.iter().map(|s| s.density()).fold(1.0, f64::min);
    Kind::DensityBound { density }
}

/// The sum of the children's densities, at most 1.
pub(super) fn disjunction(children: &[&TensorStats]) -> Kind {
    let sum: f64 = children.iter().map(|s| s.density()).sum();
    Kind::DensityBound {
        density: sum.min(1.0),
    }
}

/// `reduced` cells fold into each output cell: the density grows by that factor, at most 1.
pub(super) fn aggregate(density: f64, reduced: f64) -> Kind {
    Kind::DensityBound {
        density: (reduced * density).min(1.0),
    }
}
