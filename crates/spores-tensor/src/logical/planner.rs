//! Planning a program query by query ([`Planner`]): for each program query, its
//! candidates (as written, or with earlier aliases inlined, see [`super::inline`]), each
//! normalized, key joins collapsed ([`super::keyjoin`]) and searched
//! ([`super::optimize_query`]); the cheapest is kept, and the bookkeeping of who still reads
//! which alias decides which earlier definitions are built at all.
//!
//! Separate from the per-query search in `mod.rs` because everything here is state across
//! queries (definitions, readers, lazily planned aliases), and the search needs none of it.

use std::collections::{BTreeSet, HashMap, HashSet};

use super::eliminate::{self, Ctx, State};
use super::{
    check_agg_sizes, inline, keyjoin, naive, normalize, optimize_query, Explained, LogicalOptions,
    QueryEstimate, Search, INLINE_SEARCH_BUDGET,
};
use crate::plan_ast::{Expr, Idx, LogicalPlan, Program, Query};
use crate::reference::index_sizes;
use crate::stats::InputStats;
use crate::TensorError;

/// A candidate definition of a program query: the expression, the aliases it inlines, and
/// whether it inlines an alias read several times (kept only if its copies collapse on a
/// key).
type Candidate = (Expr, BTreeSet<String>, bool);

/// The chosen candidate: (effective cost, state, normalized expression, candidate,
/// inlined aliases).
type Best = (f64, State, Expr, Expr, BTreeSet<String>);

/// The state of planning a program query by query.
pub(super) struct Planner<'c, 'i, 'p> {
    ctx: &'c Ctx<'i>,
    program: &'p Program,
    inputs: &'i InputStats,
    options: &'p LogicalOptions,
    /// Dims of every planned query's result.
    result_dims: HashMap<String, Vec<usize>>,
    /// Alias inlining (see `inline`): per program query, its chosen definition, planned
    /// queries and cost; how many later queries still read it; whether all readers so far
    /// inlined it.
    defs: HashMap<String, (Vec<Idx>, Expr)>,
    planned: Vec<(String, Vec<eliminate::Planned>, f64)>,
    readers_left: HashMap<String, usize>,
    all_inlined: HashMap<String, bool>,
    lazy_planned: HashSet<String>,
}

impl<'c, 'i, 'p> Planner<'c, 'i, 'p> {
    /// A planner of `program`, with how many later queries read each name.
    pub(super) fn new(
        ctx: &'c Ctx<'i>,
        program: &'p Program,
        inputs: &'i InputStats,
        options: &'p LogicalOptions,
    ) -> Planner<'c, 'i, 'p> {
        let mut readers_left: HashMap<String, usize> = HashMap::new();
        // Per name, the later queries reading it, once per earlier definition of the name:
        // one pass (a pass per pair of queries made chains of aliases quadratic).
        let mut definitions: HashMap<&str, usize> = HashMap::new();
        for q in &program.queries {
            for name in inline::alias_refs(&q.expr, &|n| definitions.contains_key(n)) {
                *readers_left.entry(name.clone()).or_default() += definitions[name.as_str()];
            }
            *definitions.entry(q.name.as_str()).or_default() += 1;
        }
        Planner {
            ctx,
            program,
            inputs,
            options,
            result_dims: HashMap::new(),
            defs: HashMap::new(),
            planned: vec![],
            readers_left,
            all_inlined: HashMap::new(),
            lazy_planned: HashSet::new(),
        }
    }

    fn is_output(&self, n: &str) -> bool {
        self.program.outputs.iter().any(|o| o == n)
    }

    /// Plans program query `q`: the cheapest of its candidates, then the bookkeeping of the
    /// aliases it reads.
    pub(super) fn plan(&mut self, q: &Query) -> Result<(), TensorError> {
        let options = self.options;
        naive::check_output_idxs(q)?;
        // Term plans are shared between the candidates of one program query only (their
        // queries are copied into each plan that uses them).
        self.ctx.term_plans.borrow_mut().clear();
        let refs = inline::alias_refs(&q.expr, &|n| self.defs.contains_key(n));
        let candidates = self.candidates(q, &refs);
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
            && self.readers_left.get(&q.name) == Some(&1)
            && !self.is_output(&q.name);
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
        let (_, mut state, expr, chosen, inlined) = self
            .best_candidate(q, candidates, &compare)?
            .expect("at least the query as written");
        // An inlined winner keeps its greedy plan: the exact search over a star join with
        // its distributed forms runs for minutes (linear regression at sf 0.01: ~100 s).
        if several && options.search != Search::Greedy && inlined.is_empty() {
            if let Some(s) = self.plan_with(q, &expr, &full, None, true)? {
                if s.cost <= state.cost {
                    state = s;
                }
            }
        }
        self.settle_readers(&refs, &inlined)?;
        self.record(q, lazy, chosen, state)
    }

    /// The candidate definitions of `q`, which reads the earlier aliases `refs`.
    fn candidates(&self, q: &Query, refs: &[String]) -> Vec<Candidate> {
        let options = self.options;
        let mut candidates: Vec<Candidate> = if options.no_inline {
            vec![(q.expr.clone(), Default::default(), false)]
        } else {
            inline::candidates(&q.expr, refs, &self.defs)
                .into_iter()
                .map(|(e, set)| (e, set, false))
                .collect()
        };
        // An alias read several times (`t(X) %*% X`) is inlined only where its copies
        // collapse on a key (checked below, after normalization).
        if !options.no_inline && !options.no_key_joins {
            if let Some((e, set)) = inline::shared_candidate(&q.expr, refs, &self.defs) {
                candidates.push((e, set, true));
            }
        }
        candidates
    }

    /// The search of `expr` for `q` ([`optimize_query`]); with a `budget` of queries, `None`
    /// when the search ran past it.
    fn plan_with(
        &self,
        q: &Query,
        expr: &Expr,
        opts: &LogicalOptions,
        budget: Option<usize>,
        climb: bool,
    ) -> Result<Option<State>, TensorError> {
        let ctx = self.ctx;
        let Some(b) = budget else {
            return optimize_query(ctx, expr, &q.name, &q.idxs, opts, climb).map(Some);
        };
        ctx.budget.set(ctx.effort().saturating_add(b));
        let r = optimize_query(ctx, expr, &q.name, &q.idxs, opts, climb);
        let over = ctx.effort() > ctx.budget.get();
        ctx.budget.set(usize::MAX);
        match r {
            Ok(s) => Ok(Some(s)),
            Err(_) if over => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Normalizes, collapses key joins in and searches each candidate (with `compare`); the
    /// cheapest, net of the aliases it saves building.
    fn best_candidate(
        &self,
        q: &Query,
        candidates: Vec<Candidate>,
        compare: &LogicalOptions,
    ) -> Result<Option<Best>, TensorError> {
        let (ctx, inputs) = (self.ctx, self.inputs);
        let mut best: Option<Best> = None;
        for (cand, inlined, shared) in candidates {
            let expr = normalize::normalize(&cand, &q.idxs);
            let expr = if self.options.no_key_joins {
                expr
            } else {
                let (unified, merged) = keyjoin::unify_key_self_joins(&expr, inputs);
                if shared && merged == 0 {
                    continue;
                }
                unified
            };
            let dims_of = |name: &str| {
                self.result_dims
                    .get(name)
                    .cloned()
                    .or_else(|| inputs.dims(name))
            };
            let sizes = index_sizes(&expr, &dims_of)
                .map_err(|e| TensorError::Invalid(format!("query {}: {e}", q.name)))?;
            ctx.sizes
                .borrow_mut()
                .extend(sizes.iter().map(|(i, (d, _))| (i.clone(), *d)));
            check_agg_sizes(ctx, &expr, &q.name)?;
            *ctx.prefix.borrow_mut() = q.name.clone();
            // Inlining candidates are optional: one whose search runs past the budget is
            // dropped (the query as written is always planned, without a budget).
            let budget = (!inlined.is_empty()).then_some(INLINE_SEARCH_BUDGET);
            // A collapsed self-product is searched as written and fully distributed only
            // (Galley's covariance plan is the fully distributed one): the one-step
            // distribution climb over its many partial forms cost 40-80 ms per program.
            let Some(state) = self.plan_with(q, &expr, compare, budget, !shared)? else {
                continue;
            };
            let eff = state.cost - self.saved_by(&inlined);
            if best.as_ref().is_none_or(|b| eff < b.0) {
                best = Some((eff, state, expr, cand, inlined));
            }
        }
        Ok(best)
    }

    /// The cost of the aliases in `inlined` that nobody else reads any more: a candidate
    /// inlining them means they are not built.
    fn saved_by(&self, inlined: &BTreeSet<String>) -> f64 {
        inlined
            .iter()
            .filter(|a| {
                !self.is_output(a) && self.readers_left.get(*a) == Some(&1) && self.all_inlined[*a]
            })
            .map(|a| self.planned.iter().find(|p| &p.0 == a).map_or(0.0, |p| p.2))
            .sum()
    }

    /// One reader of each alias in `refs` has decided (inlining those in `inlined`): an
    /// alias no one reads any more is dropped if all its readers inlined it, else a lazily
    /// planned one is planned in full.
    fn settle_readers(
        &mut self,
        refs: &[String],
        inlined: &BTreeSet<String>,
    ) -> Result<(), TensorError> {
        for a in refs {
            if let Some(n) = self.readers_left.get_mut(a) {
                *n -= 1;
            }
            if !inlined.contains(a) {
                self.all_inlined.insert(a.clone(), false);
            }
            let unread = self.readers_left.get(a) == Some(&0);
            if unread && self.all_inlined[a] && !self.is_output(a) {
                self.planned.retain(|p| &p.0 != a);
            }
            // A lazily planned definition that is kept: plan it in full now.
            if unread && !self.all_inlined[a] && self.lazy_planned.remove(a) {
                self.plan_in_full(a)?;
            }
        }
        Ok(())
    }

    /// Re-plans the lazily planned definition `a` with the distributivity search, keeping
    /// the new plan if it is cheaper.
    fn plan_in_full(&mut self, a: &String) -> Result<(), TensorError> {
        let ctx = self.ctx;
        let (a_idxs, a_def) = self.defs[a].clone();
        let a_expr = normalize::normalize(&a_def, &a_idxs);
        *ctx.prefix.borrow_mut() = a.clone();
        let s = optimize_query(ctx, &a_expr, a, &a_idxs, self.options, true)?;
        if let Some(entry) = self.planned.iter_mut().find(|p| &p.0 == a) {
            if s.cost < entry.2 {
                let last = s.queries.last().expect("a final query").clone();
                ctx.plan_query(last.q)?;
                entry.1 = s.queries;
                entry.2 = s.cost;
            }
        }
        Ok(())
    }

    /// Records `q`'s plan `state` and its chosen definition `chosen`.
    fn record(
        &mut self,
        q: &Query,
        lazy: bool,
        chosen: Expr,
        state: State,
    ) -> Result<(), TensorError> {
        if lazy {
            self.lazy_planned.insert(q.name.clone());
        }
        self.all_inlined.insert(q.name.clone(), true);
        self.defs.insert(q.name.clone(), (q.idxs.clone(), chosen));
        // The final query's statistics were recorded under its name when it was priced, but
        // other candidates with the same name may have overwritten them: record them again.
        let last = state.queries.last().expect("a final query").clone();
        self.ctx.plan_query(last.q)?;
        let dims = q
            .idxs
            .iter()
            .map(|i| self.ctx.size(i))
            .collect::<Vec<usize>>();
        self.result_dims.insert(q.name.clone(), dims);
        self.planned
            .push((q.name.clone(), state.queries, state.cost));
        Ok(())
    }

    /// The plan of every query kept, in order, with its estimates.
    pub(super) fn finish(self) -> Explained {
        let ctx = self.ctx;
        let mut plan = LogicalPlan::default();
        let mut estimates = vec![];
        let mut total = 0.0;
        for (_, queries, cost) in self.planned {
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
        plan.outputs = self
            .program
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
        Explained {
            plan,
            estimates,
            cost: total,
            result_stats,
            budget_stopped: ctx.budget_stopped(),
        }
    }
}
