//! Sparsity estimation (Galley §7) for tensor programs: the statistics, estimators and
//! per-operator rules come from `spores-sparsity` (shared with the linear-algebra optimizer);
//! this module adds what needs the plan language and the tensor type: [`expr_stats`] over an
//! [`Expr`](crate::plan_ast::Expr) tree, and [`CooTensor`] as a source of input statistics.

mod expr;

pub use expr::{expr_stats, query_result_stats};
pub use spores_sparsity::stats::{
    map_stats, DegreeConstraint, Estimator, InputStats, TensorStats, MAX_STATS_IDXS,
};

use crate::tensor::CooTensor;

impl spores_sparsity::StoredTensor for CooTensor {
    fn dims(&self) -> &[usize] {
        CooTensor::dims(self)
    }

    fn fill(&self) -> f64 {
        CooTensor::fill(self)
    }

    fn entries(&self) -> Box<dyn Iterator<Item = (&[u32], f64)> + '_> {
        Box::new(self.iter())
    }
}
