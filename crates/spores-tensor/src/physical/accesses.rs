//! What every physical decision reads: the statistics of each access and plan result
//! ([`Stats`]), the accesses of a query body with whether each may lead a loop ([`Acc`],
//! [`collect_accesses`]), and the size of every index ([`register_sizes`]).
//!
//! Kept apart from the decisions themselves (loop order, formats, protocols) because all of
//! them consult the same estimates: one place computes them, the others only ask.

use std::collections::HashMap;

use crate::plan_ast::{Expr, Idx, LogicalQuery, MapOp};
use crate::stats::{expr_stats, Estimator, InputStats, TensorStats};
use crate::TensorError;

/// Statistics of every input access and plan result, for the physical decisions.
pub(super) struct Stats<'a> {
    pub(super) inputs: &'a InputStats,
    pub(super) estimator: Estimator,
    /// Result name → (declared index order, statistics).
    pub(super) results: HashMap<String, (Vec<Idx>, TensorStats)>,
    pub(super) sizes: HashMap<Idx, usize>,
}

impl Stats<'_> {
    pub(super) fn leaf(&self, e: &Expr) -> Result<TensorStats, TensorError> {
        match e {
            Expr::Input { tensor, idxs } => Ok(self.inputs.access(tensor, idxs, self.estimator)?),
            Expr::Alias { name, idxs } => {
                let (declared, s) = self
                    .results
                    .get(name)
                    .ok_or_else(|| TensorError::Unknown(name.clone()))?;
                if declared == idxs {
                    return Ok(s.clone());
                }
                Ok(
                    s.rename(&|i: &Idx| match declared.iter().position(|d| d == i) {
                        Some(k) => idxs[k].clone(),
                        None => i.clone(),
                    })?,
                )
            }
            _ => unreachable!("leaves are accesses"),
        }
    }

    pub(super) fn expr(&self, e: &Expr) -> Result<TensorStats, TensorError> {
        expr_stats(e, self.estimator, &mut |l| self.leaf(l), &|i| {
            self.sizes.get(i).copied()
        })
    }
}

/// An access of a logical query body, in left-to-right order.
#[derive(Clone, Debug)]
pub(super) struct Acc {
    pub(super) name: String,
    pub(super) is_alias: bool,
    pub(super) idxs: Vec<Idx>,
    /// Whether this access's fill makes the whole body fill (it may lead a loop).
    pub(super) covers: bool,
    /// Non-fill entries stored (transposition cost of an input).
    pub(super) nnz: f64,
    /// A symmetric input matrix read with two distinct indices: read swapped, it is its own
    /// transpose (no copy needed).
    pub(super) symmetric: bool,
}

/// Appends the accesses of `e` in left-to-right order; `covers`: whether `e`'s fill forces
/// the whole body to its fill (then so may each access's, as its operators allow).
pub(super) fn collect_accesses(
    e: &Expr,
    covers: bool,
    st: &Stats,
    out: &mut Vec<Acc>,
) -> Result<(), TensorError> {
    match e {
        Expr::Input { tensor: name, idxs } | Expr::Alias { name, idxs } => {
            let s = st.leaf(e)?;
            let is_alias = matches!(e, Expr::Alias { .. });
            out.push(Acc {
                name: name.clone(),
                is_alias,
                idxs: idxs.clone(),
                covers,
                nnz: (!is_alias)
                    .then(|| st.inputs.stored_entries(name))
                    .flatten()
                    .unwrap_or_else(|| s.estimate()),
                symmetric: !is_alias
                    && idxs.len() == 2
                    && idxs[0] != idxs[1]
                    && st.inputs.is_symmetric(name),
            });
        }
        Expr::Map { op, args } => {
            let ann = op.props().annihilator;
            // `x ^ n` with a positive literal `n` is 0 where `x` is 0 (a key self-join
            // collapsed to `L^2`, see `logical::keyjoin`): the base covers like a factor.
            if let (MapOp::Pow, [base, Expr::Literal(n)]) = (op, args.as_slice()) {
                if *n > 0.0 && st.expr(base)?.fill() == 0.0 {
                    return collect_accesses(base, covers, st, out);
                }
            }
            for a in args {
                // A child whose fill is the operator's annihilator forces the result to it;
                // the only child of a unary map (`relu(L * ..)`) forces it to the map's fill.
                let child_covers = covers
                    && (args.len() == 1
                        || match ann {
                            Some(x) => {
                                let f = st.expr(a)?.fill();
                                f == x || (f.is_nan() && x.is_nan())
                            }
                            None => false,
                        });
                collect_accesses(a, child_covers, st, out)?;
            }
        }
        Expr::Literal(_) => {}
        Expr::Agg { .. } => {
            return Err(TensorError::Invalid(
                "a logical query body holds an aggregate".to_string(),
            ))
        }
    }
    Ok(())
}

/// The logical access `a` stands for (to ask [`Stats::leaf`] for its statistics).
pub(super) fn access_expr(a: &Acc) -> Expr {
    if a.is_alias {
        Expr::alias(&a.name, a.idxs.clone())
    } else {
        Expr::input(&a.name, a.idxs.clone())
    }
}

/// Records the size of every index `q` reads (from its inputs' and earlier results' dims).
pub(super) fn register_sizes(st: &mut Stats, q: &LogicalQuery) -> Result<(), TensorError> {
    let results = &st.results;
    let inputs = st.inputs;
    let dims_of = |name: &str| {
        results
            .get(name)
            .map(|(idxs, s)| idxs.iter().map(|i| s.dim(i).unwrap_or(1)).collect())
            .or_else(|| inputs.dims(name))
    };
    let sizes = crate::reference::index_sizes(&q.body, &dims_of)
        .map_err(|e| TensorError::Invalid(format!("query {}: {e}", q.name)))?;
    st.sizes.extend(sizes.into_iter().map(|(i, (d, _))| (i, d)));
    Ok(())
}
