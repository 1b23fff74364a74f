//! The moves of a partial elimination, priced once and kept up to date.
//!
//! Eliminating an index changes only the aggregate it belongs to, and what it does there (the
//! node left behind, the query cut out, the earlier queries that query absorbs) depends on
//! that aggregate's subtree alone: absorption reads only the queries whose aliases the cut-out
//! body holds, and each alias a search creates is read from exactly one place, the one its
//! query was cut out of. So
//!
//! - a move is priced once per search ([`PricedMoves`]), however many greedy steps or exact
//!   partial plans meet its aggregate, and its query keeps one name in all of them;
//! - a state is built only for a move the search keeps ([`Step`]);
//! - the greedy search re-lists only the aggregates a step touched ([`Frontier`]).
//!
//! Re-pricing every move of every aggregate at every step, building each successor state in
//! full, made planning a sum of N aggregates cubic in N (over a minute at N = 400).

use std::collections::BTreeSet;
use std::rc::Rc;

use rustc_hash::FxHashMap;

use super::eliminate::{agg_nodes, at, evaluate, replace_at, Ctx, Outcome, State};
use crate::plan_ast::{Expr, Idx};
use crate::TensorError;

/// The moves one search has priced, by the aggregate they apply to.
///
/// One search: its states are alternatives, and one plan holds the queries of one state, so a
/// query shared between states is never defined twice in a plan. Plans that combine several
/// searches (one per sum term, one per program query) get names of their own from each.
#[derive(Default)]
pub struct PricedMoves {
    /// By [`Ctx::node_key`] of the aggregate.
    entries: FxHashMap<u64, Vec<Priced>>,
}

/// One priced move.
struct Priced {
    /// The aggregate (compared on lookup: keys are hashes).
    node: Expr,
    x: Idx,
    split: bool,
    /// `None`: blocked.
    outcome: Option<Rc<Outcome>>,
}

impl PricedMoves {
    /// The outcome of eliminating `x` from the aggregate at `path` of `state` (whose
    /// [`Ctx::node_key`] is `key`), priced now or earlier; `None` if blocked.
    fn outcome(
        &mut self,
        ctx: &Ctx,
        state: &State,
        path: &[usize],
        key: u64,
        x: &Idx,
        split: bool,
    ) -> Result<Option<Rc<Outcome>>, TensorError> {
        let node = at(&state.expr, path);
        let bucket = self.entries.entry(key).or_default();
        if let Some(hit) = bucket
            .iter()
            .find(|p| p.x == *x && p.split == split && p.node == *node)
        {
            return Ok(hit.outcome.clone());
        }
        let outcome = evaluate(ctx, state, path, x, split)?.map(Rc::new);
        bucket.push(Priced {
            node: node.clone(),
            x: x.clone(),
            split,
            outcome: outcome.clone(),
        });
        Ok(outcome)
    }
}

/// The allowed moves of one aggregate of a state.
struct AggMoves {
    path: Vec<usize>,
    /// Per move: the index eliminated and what that does.
    moves: Vec<(Idx, Rc<Outcome>)>,
}

impl AggMoves {
    fn new(
        ctx: &Ctx,
        priced: &mut PricedMoves,
        state: &State,
        path: Vec<usize>,
    ) -> Result<AggMoves, TensorError> {
        let node = at(&state.expr, &path);
        let Expr::Agg { idxs, .. } = node else {
            unreachable!("moves point at aggregates")
        };
        let key = ctx.node_key(node);
        let mut moves = vec![];
        for x in idxs {
            for split in [true, false] {
                let Some(o) = priced.outcome(ctx, state, &path, key, x, split)? else {
                    break;
                };
                let did_split = o.did_split;
                moves.push((x.clone(), o));
                if !did_split {
                    break; // the non-split move is the same
                }
            }
        }
        Ok(AggMoves { path, moves })
    }

    /// Moves that cut out a query (what [`Ctx::effort`] counts).
    fn cutting(&self) -> usize {
        self.moves.iter().filter(|(_, o)| o.cut.is_some()).count()
    }
}

/// Paths of the aggregates in the subtree of `e` at `at_path`, outermost first.
fn agg_paths(e: &Expr, at_path: &[usize]) -> Vec<Vec<usize>> {
    agg_nodes(at(e, at_path))
        .into_iter()
        .map(|(p, ..)| [at_path, &p].concat())
        .collect()
}

/// The moves of the aggregates at `paths` of `state`.
fn list(
    ctx: &Ctx,
    priced: &mut PricedMoves,
    state: &State,
    paths: Vec<Vec<usize>>,
) -> Result<Vec<AggMoves>, TensorError> {
    paths
        .into_iter()
        .map(|p| AggMoves::new(ctx, priced, state, p))
        .collect()
}

/// The cost of the state reached by `o` from a state costing `cost`: the same sums in the same
/// order as building that state (bit-equal costs, so the same ties).
fn cost_after(cost: f64, o: &Outcome) -> f64 {
    let mut cost = cost;
    for (_, old) in &o.absorbed {
        cost -= old;
    }
    if let Some(q) = &o.cut {
        cost += q.cost;
    }
    cost
}

/// An allowed move from a state, priced: eliminating one index of the aggregate at `path`.
pub struct Step {
    path: Vec<usize>,
    x: Idx,
    outcome: Rc<Outcome>,
    /// The cost of the state it leads to.
    pub cost: f64,
}

impl Step {
    /// The indices eliminated once the step is taken (the exact search's memo key).
    pub fn done(&self, state: &State) -> BTreeSet<Idx> {
        let mut done = state.done.clone();
        done.insert(self.x.clone());
        done
    }

    /// Takes the step from `state`, the state it was priced for. Returns whether the nodes
    /// off the step's path kept their paths (see [`replace_at`]).
    pub fn apply(&self, state: &mut State) -> bool {
        let o = &self.outcome;
        if !o.absorbed.is_empty() {
            let before = state.queries.len();
            state
                .queries
                .retain(|p| !o.absorbed.iter().any(|(name, _)| *name == p.q.name));
            debug_assert_eq!(
                state.queries.len() + o.absorbed.len(),
                before,
                "absorbed queries belong to the state"
            );
        }
        state.queries.extend(o.cut.clone());
        state.cost = self.cost;
        state.done.insert(self.x.clone());
        replace_at(&mut state.expr, &self.path, o.node.clone())
    }
}

/// Every allowed move from `state`, priced, outermost aggregate first.
pub fn moves(ctx: &Ctx, priced: &mut PricedMoves, state: &State) -> Result<Vec<Step>, TensorError> {
    ctx.check_budget()?;
    let mut out = vec![];
    for a in list(ctx, priced, state, agg_paths(&state.expr, &[]))? {
        ctx.charge(a.cutting());
        for (x, outcome) in a.moves {
            out.push(Step {
                cost: cost_after(state.cost, &outcome),
                path: a.path.clone(),
                x,
                outcome,
            });
        }
    }
    Ok(out)
}

/// The moves of the state a greedy search is in, kept up to date as it takes steps: a step
/// re-lists only the aggregates it touched (its own, those it left behind, those around it).
pub struct Frontier {
    /// Every aggregate of the state, outermost first (by path).
    aggs: Vec<AggMoves>,
}

impl Frontier {
    pub fn new(
        ctx: &Ctx,
        priced: &mut PricedMoves,
        state: &State,
    ) -> Result<Frontier, TensorError> {
        Ok(Frontier {
            aggs: list(ctx, priced, state, agg_paths(&state.expr, &[]))?,
        })
    }

    /// Whether the state has no aggregate left.
    pub fn is_empty(&self) -> bool {
        self.aggs.is_empty()
    }

    /// The cheapest move from `state` (the first of equally cheap ones, in [`moves`] order);
    /// `None` if every aggregate is blocked. Charges the listing to the [`Ctx::effort`].
    pub fn cheapest(&self, ctx: &Ctx, state: &State) -> Option<Step> {
        let mut best: Option<(f64, &Vec<usize>, &Idx, &Rc<Outcome>)> = None;
        for a in &self.aggs {
            ctx.charge(a.cutting());
            for (x, o) in &a.moves {
                let cost = cost_after(state.cost, o);
                if best.is_none_or(|(c, ..)| cost.total_cmp(&c).is_lt()) {
                    best = Some((cost, &a.path, x, o));
                }
            }
        }
        best.map(|(cost, path, x, o)| Step {
            path: path.clone(),
            x: x.clone(),
            outcome: o.clone(),
            cost,
        })
    }

    /// Takes `step` from `state` and brings the moves up to date.
    pub fn take(
        &mut self,
        ctx: &Ctx,
        priced: &mut PricedMoves,
        state: &mut State,
        step: &Step,
    ) -> Result<(), TensorError> {
        if !step.apply(state) {
            // Paths moved (an aggregate lifted or merged): list everything again.
            *self = Frontier::new(ctx, priced, state)?;
            return Ok(());
        }
        let p = &step.path;
        // Aggregates are listed by path, so those around the step's are found by search and
        // those below it (its own first) are a run.
        for d in 0..p.len() {
            if let Ok(k) = self
                .aggs
                .binary_search_by(|a| a.path.as_slice().cmp(&p[..d]))
            {
                let path = std::mem::take(&mut self.aggs[k].path);
                self.aggs[k] = AggMoves::new(ctx, priced, state, path)?;
            }
        }
        let start = self.aggs.partition_point(|a| a.path < *p);
        let end = start
            + self.aggs[start..]
                .iter()
                .take_while(|a| a.path.starts_with(p))
                .count();
        debug_assert!(end > start, "the step's aggregate was listed");
        let below = list(ctx, priced, state, agg_paths(&state.expr, p))?;
        self.aggs.splice(start..end, below);
        debug_assert_eq!(
            self.aggs.iter().map(|a| &a.path).collect::<Vec<_>>(),
            agg_paths(&state.expr, &[]).iter().collect::<Vec<_>>(),
            "the frontier lists the state's aggregates"
        );
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeSet, HashMap, HashSet};

    use crate::logical::{optimize_explained, Explained, LogicalOptions, Search, SearchBudget};
    use crate::parse::parse_program;
    use crate::plan_ast::{AggOp, Expr, MapOp};
    use crate::reference::eval_logical;
    use crate::stats::InputStats;
    use crate::tensor::CooTensor;

    /// `s = sum[i,j](A[i,j]) + ...` with `n` terms, planned by `search`, on a 3×3 `A` whose
    /// entries sum to 8; also returns the value the plan computes.
    fn plan_sum(n: usize, search: Search, budget: SearchBudget) -> (Explained, f64) {
        let src = format!("s = {}\n", vec!["sum[i,j](A[i,j])"; n].join(" + "));
        let program = parse_program(&src).unwrap().program;
        let a = CooTensor::from_dense(vec![3, 3], &[0., 1., 2., 1., 0., 0., 3., 0., 1.]).unwrap();
        let inputs = HashMap::from([("A".to_string(), a)]);
        let options = LogicalOptions {
            search,
            budget,
            ..Default::default()
        };
        let explained = optimize_explained(&program, &InputStats::from_tensors(&inputs), &options)
            .unwrap_or_else(|e| panic!("planning {n} terms: {e}"));
        let got = eval_logical(&explained.plan, &inputs).unwrap();
        let s = got["s"].to_dense();
        assert_eq!(s.len(), 1, "s is a scalar");
        (explained, s[0])
    }

    /// The program that made planning cubic in its terms (re-pricing every move at every step;
    /// 400 terms took over a minute): each term becomes one query summing its own copy of `A`
    /// over both indices, and the last query adds them.
    #[test]
    fn a_sum_of_400_aggregates_is_one_query_per_term_plus_their_sum() {
        let n = 400;
        let (explained, s) = plan_sum(n, Search::Greedy, SearchBudget::default());
        assert_eq!(s, 8.0 * n as f64);
        let plan = &explained.plan;
        assert_eq!(plan.queries.len(), n + 1);
        let (terms, last) = plan.queries.split_at(n);
        let mut bound = HashSet::new();
        for q in terms {
            let Expr::Input { tensor, idxs } = &q.body else {
                panic!("a term query reads A: {q}")
            };
            assert_eq!(tensor, "A", "{q}");
            assert_eq!(q.agg, Some(AggOp::Sum), "{q}");
            assert!(q.idxs.is_empty(), "{q}");
            assert_eq!(
                q.agg_idxs.iter().collect::<BTreeSet<_>>(),
                idxs.iter().collect::<BTreeSet<_>>(),
                "{q} sums over both indices"
            );
            bound.extend(idxs.iter().cloned());
        }
        assert_eq!(bound.len(), 2 * n, "every term has indices of its own");
        let [sum] = last else { unreachable!() };
        assert_eq!((sum.name.as_str(), sum.agg), ("s", None), "{sum}");
        let Expr::Map {
            op: MapOp::Add,
            args,
        } = &sum.body
        else {
            panic!("the last query adds the terms: {sum}")
        };
        let read: HashSet<&str> = args
            .iter()
            .map(|a| match a {
                Expr::Alias { name, .. } => name.as_str(),
                other => panic!("the last query reads term results, not {other}"),
            })
            .collect();
        let defined: HashSet<&str> = terms.iter().map(|q| q.name.as_str()).collect();
        assert_eq!((read.len(), &read), (n, &defined));
        assert!(!explained.budget_stopped);
    }

    /// Terms planned on their own (`terms.rs`) meet equal aggregates (`B` and `C` summed over
    /// the same split of `i` in both terms): each term's search names its own queries, so the
    /// plan never defines a name twice.
    #[test]
    fn terms_planned_apart_share_no_query_name() {
        let program = parse_program("y[j] = sum[i](D[j] * (B[i] + C[i]) + E[j] * (B[i] + C[i]))")
            .unwrap()
            .program;
        let vector = |v: &[f64]| CooTensor::from_dense(vec![v.len()], v).unwrap();
        let inputs = HashMap::from([
            ("B".to_string(), vector(&[1., 0., 2.])),
            ("C".to_string(), vector(&[0., 3., 0.])),
            ("D".to_string(), vector(&[1., 2.])),
            ("E".to_string(), vector(&[0., 5.])),
        ]);
        for search in [Search::Greedy, Search::Exact] {
            let options = LogicalOptions {
                search,
                ..Default::default()
            };
            let plan = optimize_explained(&program, &InputStats::from_tensors(&inputs), &options)
                .unwrap()
                .plan;
            let mut names = HashSet::new();
            for q in &plan.queries {
                assert!(names.insert(q.name.as_str()), "{} twice in\n{plan}", q.name);
            }
            let y = eval_logical(&plan, &inputs).unwrap()["y"].to_dense();
            // (D + E)[j] * (sum of B + sum of C)
            assert_eq!(y, [6.0, 42.0], "{plan}");
        }
    }

    /// The exact search, run to the end over a few terms, finds the greedy plan's cost (the
    /// terms are independent, so greedy is optimal) and the same value.
    #[test]
    fn exact_and_greedy_agree_on_a_sum_of_aggregates() {
        let budget = SearchBudget {
            time: std::time::Duration::from_secs(600),
            states: usize::MAX,
        };
        let (greedy, g) = plan_sum(5, Search::Greedy, budget);
        let (exact, e) = plan_sum(5, Search::Exact, budget);
        assert!(!exact.budget_stopped);
        assert_eq!((exact.cost, e), (greedy.cost, g));
        assert_eq!(exact.plan.queries.len(), greedy.plan.queries.len());
    }
}
