//! Sparsity estimates of linear-algebra expressions (SPORES Figure 12), computed by the
//! sparsity estimator of `spores-tensor` rather than by a copy of its own.
//!
//! An LA expression is read as the aggregate-of-join query it denotes (a matrix is a tensor
//! over a row and a column index; `A %*% B` is `sum[k](A[i,k] * B[k,j])`, `rowSums(A)` is
//! `sum[j](A[i,j])`, ...), and its statistics are built bottom-up with
//! [`spores_tensor::stats`] under [`Estimator::DensityBound`], the estimator that implements
//! Figure 12: elementwise products keep the smaller density, sums add densities, an aggregate
//! over `n` cells multiplies by `n`, all capped at 1. Dimensions of size 1 carry no index, so
//! row and column vectors broadcast as LA broadcasts them.
//!
//! The e-graph analysis (`sp` in `rules/schema.egg`) evaluates the same three rules inside
//! egglog for relational classes; `tests/sparsity_shared.rs` checks the two agree.

use spores_tensor::plan_ast::{AggOp, Idx, MapOp};
use spores_tensor::stats::{map_stats, Estimator, TensorStats};

use super::{dim_size, input_sparsity, shape_of};
use crate::la::{LaExpr, ShapeEnv, ShapeError};

/// Estimated sparsity (non-zeros / cells) of `e`, Figure 12.
pub fn sparsity(env: &ShapeEnv, e: &LaExpr) -> Result<f64, ShapeError> {
    let mut fresh = 0;
    let (row, col) = (Idx::new("i"), Idx::new("j"));
    Ok(la_stats(env, e, &row, &col, &mut fresh)?.density())
}

/// The statistics of `e` as a tensor over `row` and `col` (either dropped if its size is 1).
pub fn la_stats(
    env: &ShapeEnv,
    e: &LaExpr,
    row: &Idx,
    col: &Idx,
    fresh: &mut usize,
) -> Result<TensorStats, ShapeError> {
    use LaExpr::*;
    let est = Estimator::DensityBound;
    let (r, c) = shape_of(env, e)?;
    let (r, c) = (dim_size(&r) as usize, dim_size(&c) as usize);
    let idx_dims: Vec<(Idx, usize)> = [(row, r), (col, c)]
        .into_iter()
        .filter(|(_, d)| *d != 1)
        .map(|(i, d)| (i.clone(), d))
        .collect();
    let known = |density: f64| TensorStats::with_density(est, &idx_dims, density, 0.0);
    let new_idx = |fresh: &mut usize| {
        *fresh += 1;
        Idx::new(&format!("k{fresh}"))
    };
    let stats = match e {
        Var(v) => known(input_sparsity(env, v)),
        Const(x) => known(if *x == 0.0 { 0.0 } else { 1.0 }),
        Mul(a, b) | Add(a, b) | Sub(a, b) => {
            let op = if matches!(e, Mul(..)) {
                MapOp::Mul
            } else {
                MapOp::Add
            };
            let sa = la_stats(env, a, row, col, fresh)?;
            let sb = la_stats(env, b, row, col, fresh)?;
            map_stats(&op, &[sa, sb])
        }
        Neg(a) => return la_stats(env, a, row, col, fresh),
        Pow(a, k) if *k > 0.0 => return la_stats(env, a, row, col, fresh),
        Func { name, args } if name == "sprop" && args.len() == 1 => {
            return la_stats(env, &args[0], row, col, fresh)
        }
        Transpose(a) => return la_stats(env, a, col, row, fresh),
        MatMul(a, b) => {
            let k = new_idx(fresh);
            let n = dim_size(&shape_of(env, a)?.1) as usize;
            let sa = la_stats(env, a, row, &k, fresh)?;
            let sb = la_stats(env, b, &k, col, fresh)?;
            map_stats(&MapOp::Mul, &[sa, sb]).map(|s| s.aggregate(AggOp::Sum, &[(k, n)]))
        }
        Sum(a) | RowSums(a) | ColSums(a) => {
            let (ar, ac) = shape_of(env, a)?;
            let (ar, ac) = (dim_size(&ar) as usize, dim_size(&ac) as usize);
            let (ri, ci) = match e {
                Sum(_) => (new_idx(fresh), new_idx(fresh)),
                RowSums(_) => (row.clone(), new_idx(fresh)),
                _ => (new_idx(fresh), col.clone()),
            };
            let mut over = vec![];
            if !matches!(e, RowSums(_)) {
                over.push((ri.clone(), ar));
            }
            if !matches!(e, ColSums(_)) {
                over.push((ci.clone(), ac));
            }
            let sa = la_stats(env, a, &ri, &ci, fresh)?;
            Ok(sa.aggregate(AggOp::Sum, &over))
        }
        Pow(..) | Func { .. } => known(1.0),
    };
    stats.map_err(|err| ShapeError(format!("sparsity estimate: {err}")))
}
