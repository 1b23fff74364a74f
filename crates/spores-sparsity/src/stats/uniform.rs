//! The uniform estimator (Galley §7.3.1): one non-fill count per tensor, entries assumed
//! independent and uniformly spread over the index space.

use super::{Kind, TensorStats};
use crate::Idx;

fn density(s: &TensorStats) -> f64 {
    let cells = s.cells();
    if cells <= 0.0 {
        return 0.0;
    }
    (s.estimate() / cells).clamp(0.0, 1.0)
}

/// Probability a cell is non-fill in every child, times the output space.
pub(super) fn conjunction(children: &[&TensorStats], dims: &[usize]) -> Kind {
    let cells: f64 = dims.iter().map(|&d| d as f64).product();
    let p: f64 = children.iter().map(|s| density(s)).product();
    Kind::Uniform { nnz: cells * p }
}

/// One minus the probability a cell is fill in every child, times the output space.
pub(super) fn disjunction(children: &[&TensorStats], _idxs: &[Idx], dims: &[usize]) -> Kind {
    let cells: f64 = dims.iter().map(|&d| d as f64).product();
    let all_fill: f64 = children.iter().map(|s| 1.0 - density(s)).product();
    Kind::Uniform {
        nnz: cells * (1.0 - all_fill),
    }
}

/// An output cell is non-fill unless all `reduced` cells of its fiber are fill.
pub(super) fn aggregate(nnz: f64, cells: f64, kept_dims: &[usize], reduced: f64) -> Kind {
    let out_cells: f64 = kept_dims.iter().map(|&d| d as f64).product();
    if cells <= 0.0 || reduced <= 0.0 {
        return Kind::Uniform { nnz: 0.0 };
    }
    let p = (nnz / cells).clamp(0.0, 1.0);
    // (1 - p)^reduced without underflow trouble: exp(reduced * ln(1 - p)).
    let all_fill = if p >= 1.0 {
        0.0
    } else {
        (reduced * (-p).ln_1p()).exp()
    };
    Kind::Uniform {
        nnz: out_cells * (1.0 - all_fill),
    }
}
