//! The logical optimizer (Galley §5): input program → logical plan of single-aggregate
//! queries.
//!
//! [`naive_plan`] is the unoptimized baseline: every aggregate becomes its own query where it
//! stands, with no normalization, push-down or reordering. Optimized plans are compared with it.
//!
//! [`optimize`] is Galley's optimizer: each program query is normalized ([`normalize`]), then
//! its aggregates are eliminated one index at a time by cutting out minimal sub-expressions
//! (`eliminate`), in the order a greedy or branch-and-bound search (`search`) finds cheapest
//! under the cost `a·nnz(Agg) + b·nnz(Map)` estimated by [`crate::stats`]; pointwise
//! distributivity is explored around that search (`distribute`).
//!
//! The program is planned query by query (`planner`): each query's candidates (as
//! written, or with earlier aliases inlined), the cheapest kept, and which earlier
//! definitions are still built. Whole-plan passes run after it: filter push-down
//! ([`pushdown`]) and fusion of single-term sums ([`fuse`]).

pub mod diagonal;
mod distribute;
mod eliminate;
pub mod fuse;
pub mod inline;
pub mod keyjoin;
mod moves;
mod naive;
pub mod normalize;
mod planner;
pub mod pushdown;
mod search;
mod terms;

use std::collections::HashMap;

pub use naive::naive_plan;

use crate::plan_ast::{Expr, Idx, LogicalPlan, Program};
use crate::stats::{Estimator, InputStats, TensorStats};
use crate::tensor::CooTensor;
use crate::TensorError;
use eliminate::{Ctx, State};

/// Elimination-order search (Galley §5.6).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Search {
    /// Cheapest next elimination at each step.
    Greedy,
    /// Branch-and-bound dynamic programming over sets of eliminated indices.
    #[default]
    Exact,
}

/// The logical cost model `agg·nnz(Agg) + map·nnz(Map)` of Galley §5.2.
///
/// Only the ratio matters to the search. The defaults are 1 and 1. A least-squares fit of
/// engine kernel times on yeast-lite plans against the optimizer's own estimates
/// (`tests/opt_subgraph_time.rs`, `calibrate_cost_model`) gave agg/map ≈ 41, but plans chosen
/// with 41:1 ran no faster overall on yeast-lite (loose chain-bound estimates of the bodies
/// inflate the map term), so 1:1 is kept until the fit is redone with measured body sizes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CostModel {
    /// Cost per estimated non-fill entry of a query's output.
    pub agg: f64,
    /// Cost per estimated non-fill entry of a query's pointwise body (its work).
    pub map: f64,
    /// Factor on `map` for a query that is a product of two dense operands summed over one
    /// shared index (a matrix product: the engine runs it on spores-exec's blocked kernels,
    /// not its interpreter). Measured on the ML benchmark (2026-11-21, load 4-6): `t(X) X` on
    /// the matrix-product fast path ~1-2.5 ns per body entry; interpreted and scanned kernels
    /// over the lineitem tensor 40-70 ns per cost unit: 1/25. With 1.0 (Galley's model), the
    /// factorized covariance (`keyjoin`) is chosen over building `X` and runs about twice as
    /// slow on our engine.
    pub dense_product: f64,
}

impl Default for CostModel {
    fn default() -> CostModel {
        CostModel {
            agg: 1.0,
            map: 1.0,
            dense_product: 0.04,
        }
    }
}

/// Queries an inlining candidate's search may name before it is abandoned (a bound on the
/// optimization time an optional candidate may take). The star-join regressions need under
/// 1,000.
const INLINE_SEARCH_BUDGET: usize = 1_500;

/// How much work the exact search may do for one program before it stops and keeps the best
/// plan found so far (the greedy plan is always the first incumbent, so stopping early never
/// yields a plan worse than greedy's). The elimination search is exponential in the number of
/// aggregated indices, and every state prices its queries with the data-dependent estimator:
/// over a star join with distributed forms it ran for minutes without the budget.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SearchBudget {
    /// Wall-clock time for all exact searches of one [`optimize`] call.
    pub time: std::time::Duration,
    /// Partial plans the exact searches of one call may expand (deterministic, unlike time).
    pub states: usize,
}

impl Default for SearchBudget {
    fn default() -> SearchBudget {
        SearchBudget {
            time: std::time::Duration::from_millis(1_000),
            states: 20_000,
        }
    }
}

/// What [`Explained::budget_note`] says when the exact search was cut short.
pub const BUDGET_NOTE: &str = "exact search stopped by budget, using best found";

/// Options of [`optimize`].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LogicalOptions {
    pub search: Search,
    /// Bound on the exact search ([`Search::Exact`] only).
    pub budget: SearchBudget,
    pub estimator: Estimator,
    pub cost: CostModel,
    /// Skip the distributivity search (§5.1) when `true`.
    pub no_distribute: bool,
    /// Never inline an alias to an earlier query into its consumers ([`inline`]) when `true`.
    pub no_inline: bool,
    /// Never collapse self-joins on a key ([`keyjoin`]) when `true` (the rewrite relies on a
    /// functional dependency the input statistics observed).
    pub no_key_joins: bool,
}

/// Estimates behind one logical query (for `--explain`).
#[derive(Clone, Debug, PartialEq)]
pub struct QueryEstimate {
    pub name: String,
    /// Estimated non-fill entries of the query's result.
    pub nnz_out: f64,
    /// Estimated non-fill entries of its pointwise body (the work).
    pub nnz_body: f64,
    pub cost: f64,
}

/// An optimized plan with the estimates it was chosen by.
#[derive(Clone, Debug)]
pub struct Explained {
    pub plan: LogicalPlan,
    /// One entry per plan query, in plan order.
    pub estimates: Vec<QueryEstimate>,
    /// Total estimated cost.
    pub cost: f64,
    /// Statistics of every plan query's result, by name (for the physical optimizer).
    pub result_stats: HashMap<String, (Vec<Idx>, TensorStats)>,
    /// Whether the exact search ran out of its [`SearchBudget`] (the plan is then the best
    /// found before it stopped, never worse than greedy's).
    pub budget_stopped: bool,
}

impl Explained {
    /// A line for `--explain`/`--stats` when the exact search was cut short.
    pub fn budget_note(&self) -> Option<&'static str> {
        self.budget_stopped.then_some(BUDGET_NOTE)
    }
}

/// Optimizes `program` given statistics of its inputs.
pub fn optimize(
    program: &Program,
    inputs: &InputStats,
    options: &LogicalOptions,
) -> Result<LogicalPlan, TensorError> {
    Ok(optimize_explained(program, inputs, options)?.plan)
}

/// [`optimize`] from materialized inputs (statistics computed here).
pub fn optimize_tensors(
    program: &Program,
    inputs: &HashMap<String, CooTensor>,
    options: &LogicalOptions,
) -> Result<LogicalPlan, TensorError> {
    optimize(program, &InputStats::from_tensors(inputs), options)
}

/// [`optimize`], also returning the estimates behind the plan: the program's queries are
/// planned one after another ([`planner::Planner`]), each seeing the definitions and
/// statistics of the ones before it.
pub fn optimize_explained(
    program: &Program,
    inputs: &InputStats,
    options: &LogicalOptions,
) -> Result<Explained, TensorError> {
    let ctx = Ctx::new(inputs, options.estimator, options.cost);
    ctx.start_exact_budget(options.budget);
    let mut planner = planner::Planner::new(&ctx, program, inputs, options);
    for q in &program.queries {
        planner.plan(q)?;
    }
    Ok(planner.finish())
}

/// Every aggregated index must have a size (from some tensor it indexes).
fn check_agg_sizes(ctx: &Ctx, e: &Expr, query: &str) -> Result<(), TensorError> {
    match e {
        Expr::Agg { idxs, body, .. } => {
            for i in idxs {
                if !ctx.sizes.borrow().contains_key(i) {
                    return Err(TensorError::Invalid(format!(
                        "query {query}: aggregated index {i} indexes no tensor, so its size is unknown"
                    )));
                }
            }
            check_agg_sizes(ctx, body, query)
        }
        Expr::Map { args, .. } => args.iter().try_for_each(|a| check_agg_sizes(ctx, a, query)),
        _ => Ok(()),
    }
}

/// The elimination search of one (normalized) query; a sum of several terms is planned term
/// by term ([`terms`]).
fn run_search(
    ctx: &Ctx,
    expr: &Expr,
    name: &str,
    idxs: &[Idx],
    options: &LogicalOptions,
) -> Result<State, TensorError> {
    let one = |e: &Expr, n: &str, i: &[Idx]| match options.search {
        Search::Greedy => search::greedy(ctx, e, n, i),
        Search::Exact => search::exact(ctx, e, n, i),
    };
    let tag = format!("{:?}", options.search);
    if let Some(s) = terms::plan_terms(ctx, expr, name, idxs, &tag, &one)? {
        return Ok(s);
    }
    one(expr, name, idxs)
}

/// Elimination search on the normalized query, then the greedy distributivity search of §5.1
/// (one distribution step at a time while it lowers the cost, when `climb`, plus the fully
/// distributed form).
fn optimize_query(
    ctx: &Ctx,
    expr: &Expr,
    name: &str,
    idxs: &[Idx],
    options: &LogicalOptions,
    climb: bool,
) -> Result<State, TensorError> {
    // Distribution steps often reach the same form along several paths (the fully
    // distributed form is also some step's result): each distinct form is searched once.
    let mut searched: HashMap<String, State> = HashMap::new();
    let mut search = |e: &Expr| -> Result<State, TensorError> {
        let key = e.to_string();
        if let Some(s) = searched.get(&key) {
            return Ok(s.clone());
        }
        let s = run_search(ctx, e, name, idxs, options)?;
        searched.insert(key, s.clone());
        Ok(s)
    };
    let mut best = search(expr)?;
    if options.no_distribute {
        return Ok(best);
    }
    let register = |log: &[(Idx, Idx)]| {
        for (old, new) in log {
            let n = ctx.size(old);
            ctx.sizes.borrow_mut().insert(new.clone(), n);
        }
    };
    let mut current = expr.clone();
    if climb {
        loop {
            let mut improved = None;
            for (cand, log) in distribute::one_step(&current) {
                register(&log);
                let s = search(&cand)?;
                if s.cost < best.cost {
                    best = s;
                    improved = Some(cand);
                }
            }
            match improved {
                Some(c) => current = c,
                None => break,
            }
        }
    }
    let (full, log) = distribute::exhaustive(expr);
    if &full != expr {
        register(&log);
        let s = search(&full)?;
        if s.cost < best.cost {
            best = s;
        }
    }
    Ok(best)
}
