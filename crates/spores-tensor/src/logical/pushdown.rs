//! Filter push-down into intermediates (a semijoin reduction, after variable elimination).
//!
//! Variable elimination cuts out, for an index `x`, only the factors that contain `x`. In a
//! cyclic query this can materialize a large intermediate that its consumer then mostly
//! throws away: in an 8-vertex subgraph count,
//!
//! ```text
//! T[v1,v2,v3] = sum[v0](E[v0,v1] * E[v0,v2] * E[v0,v3] * L4[v0])       (2.6 M entries)
//! count       = sum[v1,v2,v3,v5](E[v1,v2] * E[v2,v3] * L3[v1] * ... * T[v1,v2,v3])
//! ```
//!
//! Every factor of the consumer whose indices all appear in the intermediate's access
//! (`E[v1,v2]`, `E[v2,v3]`, `L3[v1]`) can move into the intermediate: the consumer's operator
//! distributes over the intermediate's aggregate and the factor does not depend on the
//! aggregated indices, so `F * sum[x](B) = sum[x](F * B)`. The intermediate then holds only the
//! cells its consumer can use (a few thousand instead of millions here), and its loop nest
//! can start from the moved factors.
//!
//! The move is exact (no indicator functions, no duplicated factors). It is applied only
//! where it cannot lose: the intermediate has one consumer and is not a program output, it has
//! at least two indices (one-index intermediates never blow up), and, for a two-index
//! intermediate, the moved factor is sparse (estimated density at most
//! [`MAX_FILTER_DENSITY`]): a dense factor would turn a matrix product into a masked one for no
//! gain in size.

use std::collections::{HashMap, HashSet};

use super::normalize::rebuild_map;
use crate::plan_ast::{Expr, Idx, LogicalPlan};
use crate::stats::{InputStats, TensorStats};

/// Factors denser than this are not moved.
pub const MAX_FILTER_DENSITY: f64 = 0.25;

/// Moves filtering factors of each consumer into the single-use intermediates it reads (see
/// the module docs). Returns the rewritten plan and how many factors moved.
///
/// `results` holds the estimated statistics of plan results by name
/// ([`super::Explained::result_stats`]): an earlier result can be a filter too when it is
/// estimated sparse.
pub fn push_filters(
    plan: &LogicalPlan,
    inputs: &InputStats,
    results: &HashMap<String, (Vec<Idx>, TensorStats)>,
) -> (LogicalPlan, usize) {
    let mut plan = plan.clone();
    let outputs: HashSet<&str> = plan.outputs.iter().map(|(_, q)| q.as_str()).collect();
    let outputs: HashSet<String> = outputs.into_iter().map(str::to_string).collect();
    let mut moved = 0;
    // Consumers are visited last to first so a factor can travel down a chain of
    // intermediates one step per consumer.
    for c in (0..plan.queries.len()).rev() {
        let density = Density { inputs, results };
        while push_one(&mut plan, c, &outputs, &density, &mut moved) {}
    }
    (plan, moved)
}

/// Moves the filters of consumer `c` into one of its intermediates; false when none moved.
fn push_one(
    plan: &mut LogicalPlan,
    c: usize,
    outputs: &HashSet<String>,
    density: &Density,
    moved: &mut usize,
) -> bool {
    {
        // Only a commutative, associative map over intermediates can take filters; the
        // whole-plan tables below are built for those consumers only (building them for
        // every consumer made long programs quadratic).
        let Expr::Map { op, args } = &plan.queries[c].body else {
            return false;
        };
        let takes_filters = op.props().commutative
            && op.props().associative
            && op.arity().is_none()
            && args.iter().any(|a| matches!(a, Expr::Alias { .. }));
        if !takes_filters {
            return false;
        }
        let uses = alias_uses(plan);
        let position: HashMap<String, usize> = plan
            .queries
            .iter()
            .enumerate()
            .map(|(k, q)| (q.name.clone(), k))
            .collect();
        let (op, mut args) = (op.clone(), args.clone());
        let mut changed = false;
        for a in 0..args.len() {
            let Expr::Alias { name, idxs } = &args[a] else {
                continue;
            };
            let Some(&k) = position.get(name) else {
                continue;
            };
            let producer = &plan.queries[k];
            let distinct: HashSet<&Idx> = idxs.iter().collect();
            if k >= c
                || uses.get(name).copied() != Some(1)
                || outputs.contains(name)
                || idxs.len() < 2
                || distinct.len() != idxs.len()
                || producer.idxs.len() != idxs.len()
                || producer.agg.is_some_and(|g| !op.distributes_over(g))
            {
                continue;
            }
            // Consumer index -> producer index.
            let rename: HashMap<&Idx, &Idx> = idxs.iter().zip(&producer.idxs).collect();
            let filters: Vec<usize> = (0..args.len())
                .filter(|&f| {
                    f != a
                        && is_filter(&args[f], &rename, density, idxs.len())
                        && defined_before(&args[f], k, &position)
                })
                .collect();
            if filters.is_empty() {
                continue;
            }
            let mut factors = vec![producer.body.clone()];
            for &f in &filters {
                factors.push(match &args[f] {
                    Expr::Input { tensor, idxs } => {
                        Expr::input(tensor, idxs.iter().map(|i| rename[i].clone()).collect())
                    }
                    Expr::Alias { name, idxs } => {
                        Expr::alias(name, idxs.iter().map(|i| rename[i].clone()).collect())
                    }
                    _ => unreachable!("filters are accesses"),
                });
            }
            plan.queries[k].body = rebuild_map(&op, factors);
            *moved += filters.len();
            for &f in filters.iter().rev() {
                args.remove(f);
            }
            changed = true;
            // `args` shifted: the other aliases of this consumer wait for the next call.
            break;
        }
        if changed {
            plan.queries[c].body = if args.len() == 1 {
                args.pop().expect("one argument")
            } else {
                rebuild_map(&op, args)
            };
        }
        changed
    }
}

/// Where densities come from: inputs (exact counts) and earlier results (estimates).
struct Density<'a> {
    inputs: &'a InputStats,
    results: &'a HashMap<String, (Vec<Idx>, TensorStats)>,
}

impl Density<'_> {
    /// Estimated fraction of non-fill cells of an access's tensor.
    fn of(&self, e: &Expr) -> Option<f64> {
        match e {
            Expr::Input { tensor, .. } => {
                let nnz = self.inputs.nnz(tensor)?;
                let cells: f64 = self
                    .inputs
                    .dims(tensor)?
                    .iter()
                    .map(|&d| d as f64)
                    .product();
                (cells > 0.0).then(|| nnz / cells)
            }
            Expr::Alias { name, .. } => self.results.get(name).map(|(_, s)| s.density()),
            _ => None,
        }
    }
}

/// A sparse access (input or earlier result) whose indices all appear in the intermediate's
/// access.
///
/// Into an intermediate of three or more indices any such access moves, however dense it is
/// estimated: those intermediates are the ones that blow up (a count of paths or stars over
/// all vertex triples) and estimates of earlier results are loose upper bounds. Into a
/// matrix (two indices), only sparse ones: a dense factor would turn a matrix product into
/// a masked one for no gain in size.
fn is_filter(e: &Expr, rename: &HashMap<&Idx, &Idx>, density: &Density, order: usize) -> bool {
    let (Expr::Input { idxs, .. } | Expr::Alias { idxs, .. }) = e else {
        return false;
    };
    !idxs.is_empty()
        && idxs.iter().all(|i| rename.contains_key(i))
        && (order >= 3 || density.of(e).is_some_and(|d| d <= MAX_FILTER_DENSITY))
}

/// An input, or a result computed before query `k`.
fn defined_before(e: &Expr, k: usize, position: &HashMap<String, usize>) -> bool {
    match e {
        Expr::Alias { name, .. } => position.get(name).is_some_and(|&p| p < k),
        _ => true,
    }
}

/// How many accesses of each result the plan makes.
fn alias_uses(plan: &LogicalPlan) -> HashMap<String, usize> {
    let mut uses: HashMap<String, usize> = HashMap::new();
    for q in &plan.queries {
        q.body.for_each_access(&mut |e| {
            if let Expr::Alias { name, .. } = e {
                *uses.entry(name.clone()).or_default() += 1;
            }
        });
    }
    uses
}
