//! The search policy: what a search of a block's roots may spend, and which searches run.
//!
//! A block's LA roots come in through [`BlockOptimizer`]; one answer per root (a cheaper
//! plan with a note for `--explain`, or none) and the [`Effort`] spent come out.
//! [`Saturation`], the default, prices each search from the cost model: a search may take
//! at most [`SEARCH_SHARE`] of the execution time predicted for the roots as written
//! (times the runs so far), spent as a work budget (e-nodes and iterations), so the same
//! roots on the same inputs get the same search on an idle or a busy machine. Roots that
//! cannot pay for an algebraic search get the fusion-only one or none.

use std::time::Duration;

use crate::la::{LaExpr, ShapeEnv};
use crate::saturate::{self, OptimizeOptions};

/// One answer per root (a cheaper equivalent with a note for `--explain`, or `None` to
/// keep the root), and how hard the optimizer searched.
pub type Answers = (Vec<Option<(LaExpr, String)>>, Effort);

/// Which rewrites a root may get.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rewrites {
    /// Every rule: the algebra holds for the root's values (real numbers).
    Algebraic,
    /// Only the rewrites that hold when values are NaN or ±Inf: which operators run
    /// fused, never the algebra around them.
    FusionOnly,
}

/// The optimizer's front door: a block's LA roots in, one answer per root and the effort
/// spent out. The DML runtime calls [`BlockOptimizer::optimize_block`] once per block.
pub trait BlockOptimizer {
    /// A cheaper equivalent of `e` with a note for `--explain`, or `None` to keep `e`.
    fn optimize(&self, e: &LaExpr, env: &ShapeEnv) -> Option<(LaExpr, String)>;

    /// [`BlockOptimizer::optimize`] for all roots of a block at once, so work and plans
    /// can be shared between them; one answer per root. `runs` is how often the block
    /// has run with these inputs so far (1 the first time): an optimizer may scale its
    /// effort with it (see [`Saturation`]).
    fn optimize_all(&self, es: &[LaExpr], env: &ShapeEnv, runs: u64) -> Answers;

    /// [`BlockOptimizer::optimize_all`] limited to [`Rewrites::FusionOnly`].
    fn optimize_exact(&self, es: &[LaExpr], env: &ShapeEnv, runs: u64) -> Answers;

    /// A whole block: each root with the rewrites it may get, one answer per root in
    /// order. The roots of each kind are searched together.
    fn optimize_block(&self, roots: &[(LaExpr, Rewrites)], env: &ShapeEnv, runs: u64) -> Answers {
        let of = |kind: Rewrites| -> (Vec<usize>, Vec<LaExpr>) {
            roots
                .iter()
                .enumerate()
                .filter(|(_, (_, r))| *r == kind)
                .map(|(k, (e, _))| (k, e.clone()))
                .unzip()
        };
        let (free_at, free) = of(Rewrites::Algebraic);
        let (exact_at, exact) = of(Rewrites::FusionOnly);
        let mut out = vec![None; roots.len()];
        let mut effort = Effort::Full;
        for (at, es, search) in [
            (
                free_at,
                free,
                Self::optimize_all as fn(&Self, &[LaExpr], &ShapeEnv, u64) -> Answers,
            ),
            (exact_at, exact, Self::optimize_exact),
        ] {
            if es.is_empty() {
                continue;
            }
            let (answers, spent) = search(self, &es, env, runs);
            for (k, answer) in at.into_iter().zip(answers) {
                out[k] = answer;
            }
            effort = effort.and(spent);
        }
        (out, effort)
    }
}

/// How hard an optimizer searched, so the caller knows whether searching again, once the
/// block has run more often, could find more.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Effort {
    /// The full search (or none was worth anything): never worth repeating.
    Full,
    /// A search cut to a budget (or skipped, for some roots or all): searching again once
    /// the block has run more often may find more, but not before `searchable_at` runs,
    /// when its predicted cost first pays for a search at all. Knowing that, a block whose
    /// runs never add up to a search (most blocks of a script on small data) is not
    /// translated and priced again at every re-search point.
    Budgeted { searchable_at: u64 },
}

impl Effort {
    /// The effort of two searches of one block: searched again (from the earlier bound)
    /// if either was cut to a budget.
    pub fn and(self, other: Effort) -> Effort {
        match (self, other) {
            (Effort::Full, e) | (e, Effort::Full) => e,
            (Effort::Budgeted { searchable_at: x }, Effort::Budgeted { searchable_at: y }) => {
                Effort::Budgeted {
                    searchable_at: x.min(y),
                }
            }
        }
    }
}

/// Relational equality saturation ([`saturate`]), with a budget that pays for
/// itself: the search may take at most [`SEARCH_SHARE`] of the execution time the cost
/// model predicts for the block as written (times the runs so far), so a block that
/// runs once on small inputs gets a light search or none, and a hot loop body or a
/// block on big inputs the full one (`options`).
pub struct Saturation {
    pub options: OptimizeOptions,
    /// Expressions predicted to cost less than this over the runs so far (in the cost
    /// model's units, nanoseconds of kernel time) are left alone. `0` optimizes every
    /// expression with the full search, whatever its cost (for tests).
    pub min_cost: f64,
    /// Whether the search is cut to what the block can pay for; `false` gives every
    /// expression above `min_cost` the full search.
    pub budgeted: bool,
}

/// Default for [`Saturation::min_cost`]: about a millisecond of kernel work.
pub const DEFAULT_MIN_COST: f64 = 1e6;

/// The share of a block's predicted execution time (over its runs so far) that its
/// optimization may take. 5 % was too little for the searches that matter most: the ALS
/// gradient `(A %*% t(B) - X) %*% B` on a 20,000 x 5,000 input is predicted at 0.2 s per
/// run and needs about 28 ms of search to find `A %*% (t(B) %*% B)`, which runs 40x faster.
pub const SEARCH_SHARE: f64 = 0.15;

/// Below this budget no search is tried: preparing an e-graph, translating, raising,
/// extracting and verifying cost about this much even for a tiny expression.
const MIN_SEARCH: Duration = Duration::from_millis(10);

/// About what the full search (the default limits) takes on the paper's largest
/// expressions; budgets below it shrink the node limit in proportion.
const FULL_SEARCH: Duration = Duration::from_millis(60);

/// Roots predicted to cost less than this (ns of kernel time over the block's runs so
/// far) get no search at all, not even the fusion-only one: no plan can save more than
/// the root costs. SystemDS's builtins run thousands of such blocks (`xgboost`'s driver:
/// roots of 60-250 ns, each block with new shapes).
const FUSE_ONLY_MIN_COST: f64 = 1e4;

/// About what a fusion-only search takes in a release build: 5-6.5 ms for the 10-120
/// e-node graphs of the example scripts (cloning the prepared e-graph 0.5 ms, then
/// translation, one fusion step and raising about 1.5 ms each). Under the budget the
/// roots' predicted cost over the runs so far must be at least this (plus
/// [`RULES_LOAD`] before a thread's first search): the search may cost as much as the
/// roots as written, not a share of it as the full search, because it is exact, cheap, and
/// what it finds saves most of the roots' cost (PNMF's `sum(W %*% H)`, 2.2e6 -> 1.5e4 ns
/// predicted). Searched at a 10 us floor instead, the examples and small workloads, which
/// run in 6-150 ms, took 20-70 ms longer than as written.
const FUSE_ONLY_SEARCH: Duration = Duration::from_millis(5);

/// About what loading the rules takes at a thread's first search (release build).
const RULES_LOAD: Duration = Duration::from_millis(30);

/// Smallest node limit a budgeted search gets: enough to translate and fuse a
/// five-operator expression such as the squared loss.
const MIN_NODES: usize = 400;

/// A budgeted search is bounded by its work budget (the node limit the budget buys at the
/// search's usual speed), never by the clock: a busy machine stretches the search, and a
/// search cut by time finds a plan that depends on the load (with the time limit at three
/// times the budget, `sum(t(X - U %*% t(V)) %*% U)` on a 20,000 x 5,000 input stopped
/// after one iteration at load 6 and ran 4 s instead of 0.8 ms). The time limit is only
/// a safety net for searches far slower than usual: this many times the budget ...
const SAFETY_NET_FACTOR: u32 = 20;

/// ... and never below this.
const SAFETY_NET_FLOOR: Duration = Duration::from_secs(1);

/// The node limit grows with the number of roots saturated together, up to this many
/// roots' worth: the fusion step matches the whole final graph at once, and on a block
/// of ten roots (20,000 e-nodes allowed, 24,000 reached) it took over a minute.
const MAX_ROOTS_ROOM: usize = 3;

impl Saturation {
    /// The limits for a search that may take `budget`, or `None` when it cannot pay.
    fn limits(&self, budget: Duration, budgeted: Effort) -> Option<(OptimizeOptions, Effort)> {
        if self.min_cost == 0.0 || !self.budgeted {
            return Some((self.options.clone(), Effort::Full));
        }
        if budget < MIN_SEARCH {
            return None;
        }
        let mut options = self.options.clone();
        options.time_limit = options
            .time_limit
            .min((budget * SAFETY_NET_FACTOR).max(SAFETY_NET_FLOOR));
        if budget >= FULL_SEARCH {
            return Some((options, Effort::Full));
        }
        let share = budget.as_secs_f64() / FULL_SEARCH.as_secs_f64();
        options.node_limit = ((options.node_limit as f64 * share) as usize)
            .max(MIN_NODES)
            .min(options.node_limit);
        Some((options, budgeted))
    }

    /// The fewest runs at which expressions predicted to cost `costs` (per run, each) can
    /// be searched at all: one of them must reach [`Saturation::min_cost`] and, under the
    /// budget, their sum must pay for [`MIN_SEARCH`]. Both are necessary, so no search is
    /// lost by waiting for it; rounded down to stay on the safe side.
    fn searchable_at(&self, costs: &[f64]) -> u64 {
        let runs_for = |needed: f64, per_run: f64| -> u64 {
            if needed <= 0.0 {
                0
            } else if per_run <= 0.0 {
                u64::MAX
            } else {
                // `as` saturates: a bound beyond u64 is "never".
                (needed / per_run).floor() as u64
            }
        };
        let largest = costs.iter().copied().fold(0.0, f64::max);
        let by_root = runs_for(self.min_cost, largest);
        if !self.budgeted || self.min_cost == 0.0 {
            return by_root;
        }
        let work: f64 = costs.iter().sum();
        let by_budget = runs_for(MIN_SEARCH.as_secs_f64() * 1e9 / SEARCH_SHARE, work);
        // The fusion-only search may pay earlier (counting every root's work, not only
        // the roots with a product, and leaving out loading the rules keeps this on the
        // safe side too).
        let fusion = runs_for(FUSE_ONLY_SEARCH.as_secs_f64() * 1e9, work);
        by_root.max(by_budget).min(fusion)
    }

    /// Whether roots predicted to cost `work` (over the runs so far) pay for a
    /// fusion-only search ([`FUSE_ONLY_SEARCH`], and [`RULES_LOAD`] if this thread has
    /// not searched yet); always without a budget.
    fn fusion_pays(&self, work: f64) -> bool {
        self.fusion_pays_with(work, saturate::rules_loaded())
    }

    fn fusion_pays_with(&self, work: f64, rules_loaded: bool) -> bool {
        let mut search = FUSE_ONLY_SEARCH;
        if !rules_loaded {
            search += RULES_LOAD;
        }
        self.min_cost == 0.0 || !self.budgeted || work >= search.as_secs_f64() * 1e9
    }
}

impl Saturation {
    /// The answer for one root: its plan if it is a real improvement.
    fn answer(e: &LaExpr, result: &saturate::Optimized, roots: usize) -> Option<(LaExpr, String)> {
        if result.expr == *e || result.cost_after >= result.cost_before * 0.99 {
            return None;
        }
        let r = &result.report;
        let shared = if roots > 1 {
            format!(" (one e-graph for {roots} roots)")
        } else {
            String::new()
        };
        let note = format!(
            "cost {:.3e} -> {:.3e} ns; stopped by {} after {} iterations, {} e-nodes, {:.1} ms{shared}",
            result.cost_before,
            result.cost_after,
            r.stop,
            r.iterations,
            r.enodes,
            r.time.as_secs_f64() * 1e3
        );
        Some((result.expr.clone(), note))
    }

    /// The search for roots whose predicted cost cannot pay for [`Saturation::limits`]'s
    /// search: only the exact rules (translation, fusion, raising; no algebra), on the
    /// smallest node limit, for the roots with a matrix product (every operator of the
    /// catalogue reads one but `sprop`, whose element-wise form the fused element-wise
    /// pass runs in one pass anyway). So the fused operators come from extraction in every
    /// block that pays for this search, not from a pattern matcher after it: PNMF's
    /// updates on the examples' 2000 x 1000 input run `wdivmm_left` and `wdivmm_right`
    /// from the loop's 4th run on, although no full search pays there.
    /// Roots predicted below [`FUSE_ONLY_MIN_COST`] over their runs (`costs`) are not
    /// searched, nor roots whose costs together do not pay for the search
    /// ([`Saturation::fusion_pays`]). `roots` are indices into `es`; their answers go to
    /// `out`.
    fn fuse_only(
        &self,
        es: &[LaExpr],
        env: &ShapeEnv,
        costs: &[f64],
        roots: impl Iterator<Item = usize>,
        out: &mut [Option<(LaExpr, String)>],
    ) {
        let open: Vec<usize> = roots
            .filter(|&k| {
                (costs[k] >= FUSE_ONLY_MIN_COST || self.min_cost == 0.0) && has_product(&es[k])
            })
            .collect();
        if open.is_empty() || !self.fusion_pays(open.iter().map(|&k| costs[k]).sum()) {
            return;
        }
        let chosen: Vec<LaExpr> = open.iter().map(|&k| es[k].clone()).collect();
        let options = OptimizeOptions {
            exact: true,
            node_limit: MIN_NODES * chosen.len().min(MAX_ROOTS_ROOM),
            ..self.options.clone()
        };
        if let Ok(results) = saturate::optimize_all(&chosen, env, &options) {
            for (&k, result) in open.iter().zip(&results) {
                out[k] = Self::answer(&es[k], result, chosen.len());
            }
        }
    }
}

impl BlockOptimizer for Saturation {
    fn optimize(&self, e: &LaExpr, env: &ShapeEnv) -> Option<(LaExpr, String)> {
        self.optimize_all(std::slice::from_ref(e), env, 1)
            .0
            .pop()
            .flatten()
    }

    /// The roots worth optimizing (predicted to cost at least `min_cost` over `runs`) are
    /// saturated in one e-graph and extracted jointly, within the budget their predicted
    /// cost pays for ([`SEARCH_SHARE`]); the node limit grows with their number (up to
    /// `MAX_ROOTS_ROOM`), so a few roots get about the room each would have alone.
    ///
    /// Each root's plan without any search is extraction over it as written
    /// (`Saturation::as_written`: masked evaluation of a sparse `X * E` where cheaper);
    /// a search is priced against that plan, and a root no search improves runs it.
    fn optimize_all(&self, es: &[LaExpr], env: &ShapeEnv, runs: u64) -> Answers {
        let written = self.as_written(es, env);
        let per_run: Vec<f64> = es
            .iter()
            .zip(&written)
            .map(|(e, w)| match w {
                Some((_, _, after)) => *after,
                None => crate::cost::la_cost(e, env).unwrap_or(0.0),
            })
            .collect();
        let (mut out, effort) = self.search_all(es, env, runs, &per_run);
        for (answer, w) in out.iter_mut().zip(written) {
            if answer.is_none() {
                *answer = w.map(|(plan, note, _)| (plan, note));
            }
        }
        (out, effort)
    }

    /// The same search and budget with only the exact rules
    /// ([`OptimizeOptions::exact`]): translation, fusion and raising, chosen by price.
    /// Masked evaluation comes from extraction, by price: the forms the catalogue names
    /// (`wcemm` for `sum(X * log(W %*% H))`, `wdivmm_left` for `t(W) %*% (X / (W %*% H))`)
    /// and `masked_mul`/`masked_div` for any other tree. On PNMF's loop body
    /// (20,000 x 5,000) the search took 57 ms of a 0.8 s run (at load 5; the first search
    /// in a process also loads the rules). `2 * exp(t(X) %*% X)` gets `tsmm(X)` for a tall
    /// dense `X`, `sum(A %*% B) / n` gets `sum_mm(A, B) / n`.
    fn optimize_exact(&self, es: &[LaExpr], env: &ShapeEnv, runs: u64) -> Answers {
        let exact = Saturation {
            options: OptimizeOptions {
                exact: true,
                ..self.options.clone()
            },
            min_cost: self.min_cost,
            budgeted: self.budgeted,
        };
        exact.optimize_all(es, env, runs)
    }
}

impl Saturation {
    /// [`BlockOptimizer::optimize_all`]'s searches, for roots predicted to cost `per_run`
    /// each per run without one.
    fn search_all(&self, es: &[LaExpr], env: &ShapeEnv, runs: u64, per_run: &[f64]) -> Answers {
        let costs: Vec<f64> = per_run.iter().map(|c| c * runs as f64).collect();
        let work: f64 = costs.iter().sum();
        let worth: Vec<usize> = (0..es.len())
            .filter(|&k| costs[k] >= self.min_cost)
            .collect();
        let mut out = vec![None; es.len()];
        let skipped = Effort::Budgeted {
            searchable_at: self.searchable_at(per_run),
        };
        let budget = Duration::from_secs_f64((work * SEARCH_SHARE / 1e9).min(3600.0));
        let Some((mut options, effort)) =
            self.limits(budget, skipped).filter(|_| !worth.is_empty())
        else {
            self.fuse_only(es, env, &costs, 0..es.len(), &mut out);
            return (out, skipped);
        };
        let effort = if worth.len() < es.len() {
            skipped
        } else {
            effort
        };
        let chosen: Vec<LaExpr> = worth.iter().map(|&k| es[k].clone()).collect();
        options.node_limit = options
            .node_limit
            .saturating_mul(chosen.len().min(MAX_ROOTS_ROOM));
        // A search the safety net cut short before it found anything is not the full
        // search, whatever its node limit: it is tried again when the block's runs have
        // paid for more.
        let cut_by_budget = options.time_limit < self.options.time_limit;
        let mut effort = effort;
        match saturate::optimize_all(&chosen, env, &options) {
            Ok(results) => {
                for (&k, result) in worth.iter().zip(&results) {
                    out[k] = Self::answer(&es[k], result, chosen.len());
                }
                let timed_out = results
                    .iter()
                    .any(|r| r.report.stop == saturate::StopReason::TimeLimit);
                if cut_by_budget && timed_out && out.iter().all(Option::is_none) {
                    effort = skipped;
                }
            }
            // One root the optimizer cannot take (say, an encoding error) must not cost
            // the others their plans: each is then optimized on its own.
            Err(_) if chosen.len() > 1 => {
                options.node_limit /= chosen.len().min(MAX_ROOTS_ROOM);
                for &k in &worth {
                    if let Ok(result) = saturate::optimize(&es[k], env, &options) {
                        out[k] = Self::answer(&es[k], &result, 1);
                    }
                }
            }
            Err(_) => {}
        }
        let unsearched = (0..es.len()).filter(|k| !worth.contains(k));
        self.fuse_only(es, env, &costs, unsearched, &mut out);
        (out, effort)
    }

    /// Extraction over the roots as written, one answer per root: no rule runs, but
    /// extraction's own candidates are priced against the roots as they are, masked
    /// evaluation of a sparse `X * E` / `X / E` (`masked_mul`, `masked_div`) among them,
    /// with the predicted cost per run of the plan found. A pass over the roots that
    /// multiply or divide by a matrix estimated sparse ([`may_mask`]), no e-graph.
    fn as_written(&self, es: &[LaExpr], env: &ShapeEnv) -> Vec<Option<(LaExpr, String, f64)>> {
        let mut out = vec![None; es.len()];
        let open: Vec<usize> = (0..es.len()).filter(|&k| may_mask(&es[k], env)).collect();
        if open.is_empty() {
            return out;
        }
        let started = std::time::Instant::now();
        let chosen: Vec<LaExpr> = open.iter().map(|&k| es[k].clone()).collect();
        let Ok(plans) = saturate::extract_as_written(&chosen, env) else {
            return out;
        };
        let ms = started.elapsed().as_secs_f64() * 1e3;
        for (&k, plan) in open.iter().zip(plans) {
            if let Some(p) = plan {
                let note = format!(
                    "cost {:.3e} -> {:.3e} ns; extracted as written (no search), {ms:.2} ms",
                    p.cost_before, p.cost_after
                );
                out[k] = Some((p.expr, note, p.cost_after));
            }
        }
        out
    }
}

/// Whether `e` multiplies or divides by a matrix estimated sparse enough to be a mask
/// (a candidate for `masked_mul` / `masked_div`).
fn may_mask(e: &LaExpr, env: &ShapeEnv) -> bool {
    let cost = crate::cost::LaCost::new(env);
    let mut facts = cost.node_facts();
    let mut stack = vec![e];
    while let Some(e) = stack.pop() {
        let mut sparse = |x| {
            facts
                .sparsity_of(x)
                .is_ok_and(|s| s < crate::extract::MASK_DENSITY)
        };
        let here = match e {
            LaExpr::Mul(a, b) => sparse(a) || sparse(b),
            LaExpr::Func { name, args } if name == "/" && args.len() == 2 => sparse(&args[0]),
            _ => false,
        };
        if here {
            return true;
        }
        stack.extend(crate::cost::children(e));
    }
    false
}

/// Whether `e` multiplies matrices somewhere.
fn has_product(e: &LaExpr) -> bool {
    let mut found = matches!(e, LaExpr::MatMul(..));
    e.for_each_child(|c| found = found || has_product(c));
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bound is necessary for a search: below it the budget is under [`MIN_SEARCH`]
    /// or no expression reaches `min_cost`; at it (or soon after), one of them pays.
    #[test]
    fn searchable_at_is_where_the_budget_first_pays() {
        let saturation = Saturation {
            options: OptimizeOptions::default(),
            min_cost: DEFAULT_MIN_COST,
            budgeted: true,
        };
        // 1 ms of predicted work per run: the full search pays at 10 ms / 0.15 / 1 ms =
        // 66.7 runs, the fusion-only one at 5 ms / 1 ms = 5 runs, the earlier bound.
        assert_eq!(saturation.searchable_at(&[1e6]), 5);
        // Two roots of 0.5 ms: the budget counts their sum.
        assert_eq!(saturation.searchable_at(&[5e5, 5e5]), 5);
        // Tiny roots: no full search before each reaches min_cost (1e6) and the budget
        // pays (66,666 runs); the fusion-only search pays at 5 ms / 1 us.
        assert_eq!(saturation.searchable_at(&[1e3]), 5000);
        // Nothing to price: never.
        assert_eq!(saturation.searchable_at(&[0.0]), u64::MAX);
        let unbudgeted = Saturation {
            budgeted: false,
            ..saturation
        };
        assert_eq!(unbudgeted.searchable_at(&[1e3]), 1000);
        let below = |runs: u64| {
            let work = 1e6 * runs as f64;
            Duration::from_secs_f64(work * SEARCH_SHARE / 1e9) < MIN_SEARCH
        };
        assert!(below(65) && !below(67));
    }

    /// The fusion-only search must be paid for by the roots' predicted cost: 5 ms, and the
    /// rules' loading (30 ms) before this thread's first search; without a budget always.
    #[test]
    fn a_fusion_only_search_is_paid_for_by_the_roots() {
        let saturation = Saturation {
            options: OptimizeOptions::default(),
            min_cost: DEFAULT_MIN_COST,
            budgeted: true,
        };
        // Before the thread's first search, the search costs loading the rules too.
        assert!(!saturation.fusion_pays_with(3.4e7, false));
        assert!(saturation.fusion_pays_with(3.5e7, false));
        assert!(saturation.fusion_pays_with(5e6, true));
        assert!(!saturation.fusion_pays_with(4.9e6, true));
        let unbudgeted = Saturation {
            budgeted: false,
            ..saturation
        };
        assert!(unbudgeted.fusion_pays(1e4));
    }

    /// A 30 ms budget buys about half the full search's e-nodes; the time limit is only a
    /// safety net far above the budget (20 times it, at least a second), so a busy machine
    /// does not cut the search short.
    #[test]
    fn a_budgeted_search_is_bounded_by_work_with_a_time_safety_net() {
        let saturation = Saturation {
            options: OptimizeOptions::default(),
            min_cost: DEFAULT_MIN_COST,
            budgeted: true,
        };
        let budgeted = Effort::Budgeted { searchable_at: 0 };
        let full_nodes = OptimizeOptions::default().node_limit;
        let (options, effort) = saturation
            .limits(Duration::from_millis(30), budgeted)
            .expect("30 ms pays for a search");
        assert_eq!(effort, budgeted);
        assert_eq!(options.node_limit, full_nodes / 2);
        assert_eq!(options.time_limit, Duration::from_secs(1));
        assert!(saturation
            .limits(Duration::from_millis(9), budgeted)
            .is_none());
        let (options, effort) = saturation
            .limits(Duration::from_millis(100), budgeted)
            .expect("a full search");
        assert_eq!(effort, Effort::Full);
        assert_eq!(options.node_limit, full_nodes);
        assert_eq!(options.time_limit, Duration::from_secs(2));
        let (options, _) = saturation
            .limits(Duration::from_secs(10), budgeted)
            .expect("a full search");
        assert_eq!(options.time_limit, OptimizeOptions::default().time_limit);
    }

    #[test]
    fn two_searches_of_a_block_are_repeated_if_either_was_budgeted() {
        let at = |n| Effort::Budgeted { searchable_at: n };
        assert_eq!(Effort::Full.and(Effort::Full), Effort::Full);
        assert_eq!(Effort::Full.and(at(8)), at(8));
        assert_eq!(at(8).and(Effort::Full), at(8));
        assert_eq!(at(64).and(at(8)), at(8));
    }
}
