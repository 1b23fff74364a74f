//! Annotating an expression bottom-up with statistics (Galley §7.2): leaves from the inputs
//! and earlier results, `Map` nodes by [`map_stats`], `Agg` nodes by projection.

use super::{map_stats, Estimator, TensorStats};
use crate::plan_ast::{AggOp, Expr, Idx};
use crate::TensorError;

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
            Ok(map_stats(op, &children)?)
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

/// Statistics of a query's result from those of its pointwise `body`: aggregated by `agg`
/// over `agg_idxs` (their dimensions from `size`), or the body's own without an aggregate.
/// The logical optimizer prices queries by it and the physical one lays out their results.
pub fn query_result_stats(
    body: &TensorStats,
    agg: Option<AggOp>,
    agg_idxs: &[Idx],
    size: &dyn Fn(&Idx) -> usize,
) -> TensorStats {
    match agg {
        Some(g) => {
            let over: Vec<(Idx, usize)> = agg_idxs.iter().map(|i| (i.clone(), size(i))).collect();
            body.aggregate(g, &over)
        }
        None => body.clone(),
    }
}
