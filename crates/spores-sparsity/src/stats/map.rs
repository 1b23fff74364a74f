//! Statistics of a `Map` node (Galley §7.2): by conjunction or disjunction depending on
//! whether a child's fill annihilates the operator.

use super::{same_value, union_idx_dims, Estimator, TensorStats};
use crate::{MapOp, StatsError};

/// Statistics of `op(children...)`. The output's fill is `op` of the children's fills. If the
/// operator has an annihilator and some children have it as fill, the output is non-fill only
/// where all of those are (a join); otherwise it is non-fill where any child is (a union).
/// `ifelse(c, a, b)` whose branch at `c`'s fill is a constant is non-fill only where `c` is
/// stored (and the other branch too, when its fill is the output's).
pub fn map_stats(op: &MapOp, children: &[TensorStats]) -> Result<TensorStats, StatsError> {
    let fills: Vec<f64> = children.iter().map(|c| c.fill()).collect();
    let fill = op.apply(&fills);
    let out = union_idx_dims(children);
    if let (MapOp::IfElse, [c, a, b]) = (op, children) {
        let (chosen, other) = if c.fill() != 0.0 { (a, b) } else { (b, a) };
        if chosen.idxs().is_empty() {
            let mut join = vec![c];
            if same_value(other.fill(), fill) {
                join.push(other);
            }
            return TensorStats::conjunction(&join, &out, fill);
        }
    }
    if let Some(a) = op.props().annihilator {
        let ann: Vec<&TensorStats> = children
            .iter()
            .filter(|c| same_value(c.fill(), a))
            .collect();
        if !ann.is_empty() {
            return TensorStats::conjunction(&ann, &out, fill);
        }
    }
    let all: Vec<&TensorStats> = children.iter().collect();
    if all.is_empty() {
        return Ok(TensorStats::scalar(Estimator::default(), fill));
    }
    TensorStats::disjunction(&all, &out, fill)
}
