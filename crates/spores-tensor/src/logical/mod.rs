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

mod distribute;
mod eliminate;
pub mod fuse;
pub mod inline;
pub mod keyjoin;
mod moves;
mod naive;
pub mod normalize;
pub mod pushdown;
mod search;
mod terms;

use std::collections::{HashMap, HashSet};

pub use naive::naive_plan;

use crate::plan_ast::{Expr, Idx, LogicalPlan, Program};
use crate::reference::index_sizes;
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

/// [`optimize`], also returning the estimates behind the plan.
pub fn optimize_explained(
    program: &Program,
    inputs: &InputStats,
    options: &LogicalOptions,
) -> Result<Explained, TensorError> {
    let ctx = Ctx::new(inputs, options.estimator, options.cost);
    ctx.start_exact_budget(options.budget);
    let mut plan = LogicalPlan::default();
    let mut estimates = vec![];
    let mut total = 0.0;
    let mut result_dims: HashMap<String, Vec<usize>> = HashMap::new();
    // Alias inlining (see `inline`): per program query, its chosen definition, planned
    // queries and cost; how many later queries still read it; whether all readers so far
    // inlined it.
    let mut defs: HashMap<String, (Vec<Idx>, Expr)> = HashMap::new();
    let mut planned: Vec<(String, Vec<eliminate::Planned>, f64)> = vec![];
    let mut readers_left: HashMap<String, usize> = HashMap::new();
    let mut all_inlined: HashMap<String, bool> = HashMap::new();
    let mut lazy_planned: HashSet<String> = HashSet::new();
    // Per name, the later queries reading it, once per earlier definition of the name:
    // one pass (a pass per pair of queries made chains of aliases quadratic).
    let mut definitions: HashMap<&str, usize> = HashMap::new();
    for q in &program.queries {
        for name in inline::alias_refs(&q.expr, &|n| definitions.contains_key(n)) {
            *readers_left.entry(name.clone()).or_default() += definitions[name.as_str()];
        }
        *definitions.entry(q.name.as_str()).or_default() += 1;
    }
    let is_output = |n: &str| program.outputs.iter().any(|o| o == n);
    for q in &program.queries {
        naive::check_output_idxs(q)?;
        // Term plans are shared between the candidates of one program query only (their
        // queries are copied into each plan that uses them).
        ctx.term_plans.borrow_mut().clear();
        let refs = inline::alias_refs(&q.expr, &|n| defs.contains_key(n));
        let mut candidates: Vec<(Expr, std::collections::BTreeSet<String>, bool)> =
            if options.no_inline {
                vec![(q.expr.clone(), Default::default(), false)]
            } else {
                inline::candidates(&q.expr, &refs, &defs)
                    .into_iter()
                    .map(|(e, set)| (e, set, false))
                    .collect()
            };
        // An alias read several times (`t(X) %*% X`) is inlined only where its copies
        // collapse on a key (checked below, after normalization).
        if !options.no_inline && !options.no_key_joins {
            if let Some((e, set)) = inline::shared_candidate(&q.expr, &refs, &defs) {
                candidates.push((e, set, true));
            }
        }
        // With several candidates they are compared by greedy plans (the exact search over
        // an inlined star join is much larger); a winner that inlines nothing is then
        // re-planned with the requested search.
        let several = candidates.len() > 1;
        // A definition its single reader may inline is first planned without the
        // distributivity search: when the reader inlines it (the star-join regressions and
        // the network inline `X`), that search was wasted (a fifth of their optimization
        // time). If it is kept, it is planned in full once its reader has decided (below).
        // Its reader then compares against the undistributed plan's cost, an upper bound on
        // the final one. Not when the definition has inlining candidates of its own: those
        // are chosen by their plans' costs, which need the distributivity search (the
        // network's `H` inlines `X` only once `W1` distributes into the star; with matrix
        // products priced at the engine's rate the undistributed comparison kept `X`).
        let lazy = !several
            && !options.no_inline
            && !options.no_distribute
            && readers_left.get(&q.name) == Some(&1)
            && !is_output(&q.name);
        let full = if lazy {
            LogicalOptions {
                no_distribute: true,
                ..*options
            }
        } else {
            *options
        };
        let compare = if several {
            LogicalOptions {
                search: Search::Greedy,
                ..full
            }
        } else {
            full
        };
        let plan_with = |expr: &Expr, opts: &LogicalOptions, budget: Option<usize>, climb: bool| {
            let Some(b) = budget else {
                return optimize_query(&ctx, expr, &q.name, &q.idxs, opts, climb).map(Some);
            };
            ctx.budget.set(ctx.effort().saturating_add(b));
            let r = optimize_query(&ctx, expr, &q.name, &q.idxs, opts, climb);
            let over = ctx.effort() > ctx.budget.get();
            ctx.budget.set(usize::MAX);
            match r {
                Ok(s) => Ok(Some(s)),
                Err(_) if over => Ok(None),
                Err(e) => Err(e),
            }
        };
        // (effective cost, state, normalized expression, candidate, inlined aliases)
        let mut best: Option<(f64, State, Expr, Expr, std::collections::BTreeSet<String>)> = None;
        for (cand, inlined, shared) in candidates {
            let expr = normalize::normalize(&cand, &q.idxs);
            let expr = if options.no_key_joins {
                expr
            } else {
                let (unified, merged) = keyjoin::unify_key_self_joins(&expr, inputs);
                if shared && merged == 0 {
                    continue;
                }
                unified
            };
            let dims_of = |name: &str| result_dims.get(name).cloned().or_else(|| inputs.dims(name));
            let sizes = index_sizes(&expr, &dims_of)
                .map_err(|e| TensorError::Invalid(format!("query {}: {e}", q.name)))?;
            ctx.sizes
                .borrow_mut()
                .extend(sizes.iter().map(|(i, (d, _))| (i.clone(), *d)));
            check_agg_sizes(&ctx, &expr, &q.name)?;
            *ctx.prefix.borrow_mut() = q.name.clone();
            // Inlining candidates are optional: one whose search runs past the budget is
            // dropped (the query as written is always planned, without a budget).
            let budget = (!inlined.is_empty()).then_some(INLINE_SEARCH_BUDGET);
            // A collapsed self-product is searched as written and fully distributed only
            // (Galley's covariance plan is the fully distributed one): the one-step
            // distribution climb over its many partial forms cost 40-80 ms per program.
            let Some(state) = plan_with(&expr, &compare, budget, !shared)? else {
                continue;
            };
            // An alias this candidate inlines and nobody else reads any more is not built.
            let saved: f64 = inlined
                .iter()
                .filter(|a| !is_output(a) && readers_left.get(*a) == Some(&1) && all_inlined[*a])
                .map(|a| planned.iter().find(|p| &p.0 == a).map_or(0.0, |p| p.2))
                .sum();
            let eff = state.cost - saved;
            if best.as_ref().is_none_or(|b| eff < b.0) {
                best = Some((eff, state, expr, cand, inlined));
            }
        }
        let (_, mut state, expr, chosen, inlined) = best.expect("at least the query as written");
        // An inlined winner keeps its greedy plan: the exact search over a star join with
        // its distributed forms runs for minutes (linear regression at sf 0.01: ~100 s).
        if several && options.search != Search::Greedy && inlined.is_empty() {
            if let Some(s) = plan_with(&expr, &full, None, true)? {
                if s.cost <= state.cost {
                    state = s;
                }
            }
        }
        for a in &refs {
            if let Some(n) = readers_left.get_mut(a) {
                *n -= 1;
            }
            if !inlined.contains(a) {
                all_inlined.insert(a.clone(), false);
            }
            if readers_left.get(a) == Some(&0) && all_inlined[a] && !is_output(a) {
                planned.retain(|p| &p.0 != a);
            }
            // A lazily planned definition that is kept: plan it in full now.
            if readers_left.get(a) == Some(&0) && !all_inlined[a] && lazy_planned.remove(a) {
                let (a_idxs, a_def) = defs[a].clone();
                let a_expr = normalize::normalize(&a_def, &a_idxs);
                *ctx.prefix.borrow_mut() = a.clone();
                let s = optimize_query(&ctx, &a_expr, a, &a_idxs, options, true)?;
                if let Some(entry) = planned.iter_mut().find(|p| &p.0 == a) {
                    if s.cost < entry.2 {
                        let last = s.queries.last().expect("a final query").clone();
                        ctx.plan_query(last.q)?;
                        entry.1 = s.queries;
                        entry.2 = s.cost;
                    }
                }
            }
        }
        if lazy {
            lazy_planned.insert(q.name.clone());
        }
        all_inlined.insert(q.name.clone(), true);
        defs.insert(q.name.clone(), (q.idxs.clone(), chosen));
        // The final query's statistics were recorded under its name when it was priced, but
        // other candidates with the same name may have overwritten them: record them again.
        let last = state.queries.last().expect("a final query").clone();
        ctx.plan_query(last.q)?;
        let dims = q.idxs.iter().map(|i| ctx.size(i)).collect::<Vec<usize>>();
        result_dims.insert(q.name.clone(), dims);
        planned.push((q.name.clone(), state.queries, state.cost));
    }
    for (_, queries, cost) in planned {
        total += cost;
        for p in queries {
            estimates.push(QueryEstimate {
                name: p.q.name.clone(),
                nnz_out: p.nnz_out,
                nnz_body: p.nnz_body,
                cost: p.cost,
            });
            plan.queries.push(p.q);
        }
    }
    plan.outputs = program
        .outputs
        .iter()
        .map(|o| (o.clone(), o.clone()))
        .collect();
    let names: HashSet<&str> = plan.queries.iter().map(|q| q.name.as_str()).collect();
    let result_stats = ctx
        .results
        .borrow()
        .iter()
        .filter(|(n, _)| names.contains(n.as_str()))
        .map(|(n, s)| (n.clone(), s.clone()))
        .collect();
    Ok(Explained {
        plan,
        estimates,
        cost: total,
        result_stats,
        budget_stopped: ctx.budget_stopped(),
    })
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
