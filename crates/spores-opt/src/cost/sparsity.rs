//! Sparsity estimates of linear-algebra expressions (SPORES Figure 12), computed by the
//! sparsity estimator of `spores-tensor` rather than by a copy of its own.
//!
//! An LA expression is read as the aggregate-of-join query it denotes (a matrix is a tensor
//! over a row and a column index; `A %*% B` is `sum[k](A[i,k] * B[k,j])`, `rowSums(A)` is
//! `sum[j](A[i,j])`, ...), and its statistics are built bottom-up with
//! [`spores_sparsity::stats`] under [`Estimator::DensityBound`], the estimator that implements
//! Figure 12: elementwise products keep the smaller density, sums add densities, an aggregate
//! over `n` cells multiplies by `n`, all capped at 1. Dimensions of size 1 carry no index, so
//! row and column vectors broadcast as LA broadcasts them.
//!
//! The e-graph analysis (`sp` in `rules/analysis.egg`) evaluates the same three rules inside
//! egglog for relational classes; `tests/sparsity_shared.rs` checks the two agree.

use std::cell::RefCell;
use std::collections::HashMap;

use spores_sparsity::stats::{map_stats, Estimator, TensorStats};
use spores_sparsity::{AggOp, Idx, MapOp, StatsError};

use super::{dim_size, input_sparsity, shape_of};
use crate::la::{broadcast, Dim, LaExpr, Shape, ShapeEnv, ShapeError};

/// Estimated sparsity (non-zeros / cells) of `e`, Figure 12.
pub fn sparsity(env: &ShapeEnv, e: &LaExpr) -> Result<f64, ShapeError> {
    let mut fresh = 0;
    let (row, col) = (Idx::new("i"), Idx::new("j"));
    Ok(la_stats(env, e, &row, &col, &mut fresh)?.0.density())
}

/// The statistics of `e` as a tensor over `row` and `col` (either dropped if its size is 1),
/// with `e`'s shape. Shapes are derived bottom-up with the statistics (not by [`shape_of`] at
/// every node, which would walk each subtree again): the extractor prices many candidate
/// expressions, so this is on the optimizer's hot path.
pub fn la_stats(
    env: &ShapeEnv,
    e: &LaExpr,
    row: &Idx,
    col: &Idx,
    fresh: &mut usize,
) -> Result<(TensorStats, Shape), ShapeError> {
    la_stats_memo(env, e, row, col, fresh, &mut NodeStats::default())
}

/// The density and shape of each node one walk has estimated, by address: the nodes of one
/// expression, alive while the walk reads them. The estimator is a density bound, so a
/// node's statistics over any two indices follow from these two facts.
pub(crate) type NodeStats = HashMap<*const LaExpr, (f64, Shape)>;

/// [`la_stats`] reusing and recording in `memo` what other walks over the same nodes
/// estimated, so that pricing every node of a tree is linear in its size.
pub(crate) fn la_stats_memo(
    env: &ShapeEnv,
    e: &LaExpr,
    row: &Idx,
    col: &Idx,
    fresh: &mut usize,
    memo: &mut NodeStats,
) -> Result<(TensorStats, Shape), ShapeError> {
    let key: *const LaExpr = e;
    if let Some((density, shape)) = memo.get(&key) {
        return with_density(*density, shape.clone(), row, col).map_err(estimate_error);
    }
    let (stats, shape) = la_stats_node(env, e, (row, col), fresh, memo)?;
    memo.insert(key, (stats.density(), shape.clone()));
    Ok((stats, shape))
}

/// Statistics of density `density` over `row` and `col` (either dropped if its size is 1).
fn with_density(
    density: f64,
    shape: Shape,
    row: &Idx,
    col: &Idx,
) -> Result<(TensorStats, Shape), StatsError> {
    let idx_dims: Vec<(Idx, usize)> = [(row, &shape.0), (col, &shape.1)]
        .into_iter()
        .filter(|(_, d)| !d.is_one())
        .map(|(i, d)| (i.clone(), dim_size(d) as usize))
        .collect();
    TensorStats::with_density(Estimator::DensityBound, &idx_dims, density, 0.0).map(|s| (s, shape))
}

/// An estimator's failure, as the shape error the callers of [`la_stats`] report.
fn estimate_error(err: StatsError) -> ShapeError {
    ShapeError(format!("sparsity estimate: {err}"))
}

/// One node of [`la_stats_memo`], over the indices `(row, col)`: its operands' statistics
/// (from the memo where known), then its own.
fn la_stats_node(
    env: &ShapeEnv,
    e: &LaExpr,
    (row, col): (&Idx, &Idx),
    fresh: &mut usize,
    memo: &mut NodeStats,
) -> Result<(TensorStats, Shape), ShapeError> {
    use LaExpr::*;
    let known = |density: f64, shape: Shape| with_density(density, shape, row, col);
    let new_idx = |fresh: &mut usize| {
        *fresh += 1;
        fresh_idx(*fresh)
    };
    let result = match e {
        Var(v) => known(input_sparsity(env, v), env.shape_of(e)?),
        Const(x) => known(if *x == 0.0 { 0.0 } else { 1.0 }, env.shape_of(e)?),
        Mul(a, b) | Add(a, b) | Sub(a, b) => {
            let (op, name) = match e {
                Mul(..) => (MapOp::Mul, "*"),
                Add(..) => (MapOp::Add, "+"),
                _ => (MapOp::Add, "-"),
            };
            let (sa, ha) = la_stats_memo(env, a, row, col, fresh, memo)?;
            let (sb, hb) = la_stats_memo(env, b, row, col, fresh, memo)?;
            let shape = broadcast(name, ha, hb)?;
            map_stats(&op, &[sa, sb]).map(|s| (s, shape))
        }
        Neg(a) => return la_stats_memo(env, a, row, col, fresh, memo),
        Pow(a, k) if *k > 0.0 => return la_stats_memo(env, a, row, col, fresh, memo),
        // A fused result that keeps an operand's zeros (`sprop`, the masked `sddmm`) is
        // at most as dense as that operand.
        Func { name, args } => {
            if let Some(k) = crate::fused::by_name(name, args.len()).and_then(|op| op.zeros_of) {
                return la_stats_memo(env, &args[k], row, col, fresh, memo);
            }
            // `abs(X)`, `X != 0`: zeros kept, at most as dense as X (and of its shape).
            let keeps = crate::functions::keeps_zeros(name, args.len())
                && args.get(1).is_none_or(|b| *b == Const(0.0));
            if keeps {
                return la_stats_memo(env, &args[0], row, col, fresh, memo);
            }
            known(1.0, shape_of(env, e)?)
        }
        Transpose(a) => {
            let (s, (r, c)) = la_stats_memo(env, a, col, row, fresh, memo)?;
            return Ok((s, (c, r)));
        }
        MatMul(a, b) => {
            let k = new_idx(fresh);
            let (sa, ha) = la_stats_memo(env, a, row, &k, fresh, memo)?;
            let (sb, hb) = la_stats_memo(env, b, &k, col, fresh, memo)?;
            if ha.1 != hb.0 {
                return Err(ShapeError("%*%: operand shapes do not fit".into()));
            }
            let n = dim_size(&ha.1) as usize;
            map_stats(&MapOp::Mul, &[sa, sb])
                .map(|s| (s.aggregate(AggOp::Sum, &[(k, n)]), (ha.0, hb.1)))
        }
        Sum(a) | RowSums(a) | ColSums(a) => {
            let (ri, ci) = match e {
                Sum(_) => (new_idx(fresh), new_idx(fresh)),
                RowSums(_) => (row.clone(), new_idx(fresh)),
                _ => (new_idx(fresh), col.clone()),
            };
            let (sa, (ar, ac)) = la_stats_memo(env, a, &ri, &ci, fresh, memo)?;
            let mut over = vec![];
            if !matches!(e, RowSums(_)) {
                over.push((ri, dim_size(&ar) as usize));
            }
            if !matches!(e, ColSums(_)) {
                over.push((ci, dim_size(&ac) as usize));
            }
            let one = Dim::Known(1);
            let shape = match e {
                Sum(_) => (one.clone(), one),
                RowSums(_) => (ar, one),
                _ => (one, ac),
            };
            Ok((sa.aggregate(AggOp::Sum, &over), shape))
        }
        Fill(v, ..) if matches!(**v, Const(c) if c == 0.0) => known(0.0, shape_of(env, e)?),
        Pow(..) | Fill(..) => known(1.0, shape_of(env, e)?),
    };
    result.map_err(estimate_error)
}

/// The `n`-th fresh index name (`k1`, `k2`, ...), interned per thread: index names are
/// reference-counted strings, and the extractor asks for estimates very often.
fn fresh_idx(n: usize) -> Idx {
    thread_local! {
        static NAMES: RefCell<Vec<Idx>> = const { RefCell::new(Vec::new()) };
    }
    NAMES.with(|names| {
        let mut names = names.borrow_mut();
        while names.len() < n {
            let k = names.len() + 1;
            names.push(Idx::new(&format!("k{k}")));
        }
        names[n - 1].clone()
    })
}
