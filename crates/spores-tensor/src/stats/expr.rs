//! Annotating an expression bottom-up with statistics (Galley §7.2): leaves from the inputs
//! and earlier results, `Map` nodes by conjunction or disjunction depending on whether a
//! child's fill annihilates the operator, `Agg` nodes by projection.

use super::{same_value, union_idx_dims, Estimator, TensorStats};
use crate::plan_ast::{Expr, Idx, MapOp};
use crate::TensorError;

/// Statistics of `op(children...)`. The output's fill is `op` of the children's fills. If the
/// operator has an annihilator and some children have it as fill, the output is non-fill only
/// where all of those are (a join); otherwise it is non-fill where any child is (a union).
pub fn map_stats(op: &MapOp, children: &[TensorStats]) -> Result<TensorStats, TensorError> {
    let fills: Vec<f64> = children.iter().map(|c| c.fill()).collect();
    let fill = op.apply(&fills);
    let out = union_idx_dims(children);
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

/// Statistics of `expr`. `leaf` gives the statistics of an `Input` or `Alias` access;
/// `size` the dimension of an index (needed for aggregates over indices absent from their
/// body).
pub fn expr_stats(
    expr: &Expr,
    estimator: Estimator,
    leaf: &mut dyn FnMut(&Expr) -> Result<TensorStats, TensorError>,
    size: &dyn Fn(&Idx) -> Option<usize>,
) -> Result<TensorStats, TensorError> {
    match expr {
        Expr::Input { .. } | Expr::Alias { .. } => leaf(expr),
        Expr::Literal(v) => Ok(TensorStats::scalar(estimator, *v)),
        Expr::Map { op, args } => {
            let children = args
                .iter()
                .map(|a| expr_stats(a, estimator, leaf, size))
                .collect::<Result<Vec<_>, _>>()?;
            map_stats(op, &children)
        }
        Expr::Agg { op, idxs, body } => {
            let inner = expr_stats(body, estimator, leaf, size)?;
            let over = idxs
                .iter()
                .map(|i| {
                    inner
                        .dim(i)
                        .or_else(|| size(i))
                        .map(|d| (i.clone(), d))
                        .ok_or_else(|| {
                            TensorError::Invalid(format!("aggregated index {i} has no known size"))
                        })
                })
                .collect::<Result<Vec<_>, _>>()?;
            Ok(inner.aggregate(*op, &over))
        }
    }
}
