//! ILP extraction (SPORES §3.1, Figure 11): the selection of minimum DAG cost, so a
//! common subexpression is paid once, found by the pure-Rust `microlp` solver through
//! `good_lp`.
//!
//! # Encoding
//!
//! On a [`CandGraph`] (candidates are the LA operators the extractor may run, so every
//! class here is LA-expressible: at most two free indices):
//!
//! * a binary `S_c` per class and `B_n` per candidate; `S_root = 1`;
//! * a chosen class chooses exactly one candidate: `Σ_{n ∈ c} B_n = S_c` (the paper
//!   asks for at least one; with non-negative costs exactly one loses nothing and makes
//!   the selection a function);
//! * a chosen candidate chooses its children: `B_n ≤ S_d` for each child class `d`;
//! * minimize `Σ cost(n) · B_n`.
//!
//! Figure 11 alone admits cyclic selections (`c` computed from `d` computed from `c`),
//! which no evaluation order can run. Cycles can only occur inside a strongly connected
//! component of the class graph, so only classes of non-trivial components get a
//! continuous level `L_c ∈ [0, |SCC| - 1]`, and each candidate edge inside a component
//! says `L_c ≥ L_d + 1` when chosen (big-M: `L_d - L_c + M·B_n ≤ M - 1`, `M = |SCC|`).
//! A candidate whose child is its own class is dropped outright.
//!
//! # Pruning and warm start
//!
//! The greedy selection is feasible, so its DAG cost bounds the optimum: a candidate whose
//! own cost plus a lower bound for its dearest child ([`CandGraph::lower_bounds`])
//! exceeds it cannot be chosen, classes without any finite plan are dropped, a candidate
//! dominated by another of its class (no dearer, a subset of its children) is dropped,
//! and only classes reachable from the root through what remains get variables; a class
//! left with one candidate uses one variable for both. These reductions are what make
//! microlp usable here: on a 14-operator expression they cut 965 binaries (7.6 s) to 205
//! (0.2 s). Among equal-cost plans the objective prefers greedy's choices (see
//! `TIE_BREAK`). The greedy
//! selection (with levels = heights inside each component) is the solver's initial
//! incumbent, and costs are divided by the bound so the objective is at most about 1
//! whatever the magnitude of the cost model's numbers (they reach 1e12 and beyond).
//!
//! # Time budget
//!
//! microlp checks a deadline inside its simplex loops (every 1000 pivots) and
//! branch-and-bound, so the budget is enforced by the solver itself on the calling thread:
//! no worker thread is left behind. Model building counts against the budget. When the
//! budget runs out the caller gets an error and extracts greedily — unless the solver
//! already holds an incumbent strictly cheaper than greedy's, which is then used (it is
//! a valid plan, just not proven optimal). Instances above [`MAX_BINARIES`] are not
//! attempted.
//!
//! # Measured
//!
//! See the extraction table in `spores_opt::extract`: the paper's examples solve in under 1 ms, a
//! 14-operator expression (205 binaries) in about 0.2-0.4 s.

use std::time::{Duration, Instant};

use good_lp::solvers::microlp::{microlp, MicroLpProblem};
use good_lp::{
    variable, variables, Expression, ResolutionError, Solution, SolutionStatus, SolverModel,
    Variable, WithTimeLimit,
};

use crate::dag::{dag_cost, sccs, CandGraph, CandNode, Selection};

/// Instances with more binaries than this are not attempted: on extraction-shaped
/// problems microlp's time grows steeply beyond a few thousand binaries, so building such
/// a model would only spend the budget to fall back anyway.
pub const MAX_BINARIES: usize = 20_000;

/// Added to the (scaled, at most about 1) objective coefficient of every candidate greedy
/// did not choose, so that among plans of equal e-graph cost the ILP keeps greedy's. The
/// e-graph cost is blind to orientation: `wsloss(X, U, V)` and `wsloss(t(X), V, U)` tie
/// there, but the second needs a transpose; greedy settles such ties by the LA cost
/// model, so its choices are the better default. Small enough not to hide real gains
/// (a relative 1e-7 of the plan per changed candidate).
const TIE_BREAK: f64 = 1e-7;

/// A solved instance.
#[derive(Clone, Debug)]
pub struct IlpSolution {
    pub selection: Selection,
    /// [`dag_cost`] of `selection`.
    pub cost: f64,
    /// The solver proved optimality (otherwise: an incumbent at the time limit).
    pub proven_optimal: bool,
    pub binaries: usize,
}

/// Why no ILP selection is returned; the caller falls back to greedy.
#[derive(Clone, Debug)]
pub struct IlpFailure {
    pub reason: String,
    pub binaries: usize,
}

/// Solves the extraction ILP for `g` within `budget`, starting from `warm` (the greedy
/// selection) if it is a valid plan.
pub fn solve(g: &CandGraph, warm: &Selection, budget: Duration) -> Result<IlpSolution, IlpFailure> {
    let start = Instant::now();
    if g.root >= g.classes.len() {
        return Err(fail("root class out of range", 0));
    }
    let bound = dag_cost(g, warm).ok();
    if bound == Some(0.0) {
        // Nothing to improve on.
        return Ok(IlpSolution {
            selection: warm.clone(),
            cost: 0.0,
            proven_optimal: true,
            binaries: 0,
        });
    }
    let pruned = prune(g, warm, bound)?;
    let binaries = pruned.binaries;
    let (model, vars) = build_model(g, warm, bound, &pruned);
    let left = budget.saturating_sub(start.elapsed());
    if left.is_zero() {
        return Err(fail(
            format!("time limit of {budget:?} reached while building the model"),
            binaries,
        ));
    }
    let model = model.with_time_limit(left.as_secs_f64());
    let (selection, proven_optimal) = match run_solver(model, &vars, &pruned.classes) {
        Ok(Ok(x)) => x,
        Ok(Err(e)) => {
            let reason = if start.elapsed() >= budget {
                format!("time limit of {budget:?} reached ({e})")
            } else {
                format!("solver: {e}")
            };
            return Err(fail(reason, binaries));
        }
        Err(_) => return Err(fail("the solver panicked", binaries)),
    };
    let cost = dag_cost(g, &selection)
        .map_err(|e| fail(format!("the solver's selection is invalid: {e}"), binaries))?;
    check_against_greedy(cost, proven_optimal, bound, (budget, binaries))?;
    Ok(IlpSolution {
        selection,
        cost,
        proven_optimal,
        binaries,
    })
}

/// The failure for `reason` on a model of `binaries` binaries.
fn fail(reason: impl Into<String>, binaries: usize) -> IlpFailure {
    IlpFailure {
        reason: reason.into(),
        binaries,
    }
}

/// Refuses a solver plan greedy's (of cost `bound`, when valid) is at least as good as:
/// unproven and no cheaper, or dearer (numerical trouble); and an unproven plan without
/// a greedy plan to compare with.
fn check_against_greedy(
    cost: f64,
    proven_optimal: bool,
    bound: Option<f64>,
    (budget, binaries): (Duration, usize),
) -> Result<(), IlpFailure> {
    let reason = match bound {
        Some(b) if !proven_optimal && cost >= b => {
            format!("time limit of {budget:?} reached without improving on greedy")
        }
        Some(b) if cost > b * (1.0 + 1e-9) => {
            format!("the solver's plan costs {cost:e}, greedy's {b:e} (numerical trouble)")
        }
        None if !proven_optimal => format!("time limit of {budget:?} reached"),
        _ => return Ok(()),
    };
    Err(fail(reason, binaries))
}

/// What pruning leaves of the graph for the model.
struct Pruned {
    /// Per class, whether each candidate may be chosen.
    keep: Vec<Vec<bool>>,
    /// The classes reachable from the root through kept candidates, in order.
    classes: Vec<usize>,
    /// The binaries the model needs: one per class with one kept candidate, one per
    /// class and one per candidate otherwise.
    binaries: usize,
}

impl Pruned {
    /// The kept candidates of class `c`, with their positions.
    fn kept<'a>(
        &'a self,
        g: &'a CandGraph,
        c: usize,
    ) -> impl Iterator<Item = (usize, &'a CandNode)> + 'a {
        g.classes[c]
            .iter()
            .enumerate()
            .filter(move |(i, _)| self.keep[c][*i])
    }
}

/// Drops the classes without a plan, the candidates no plan within `bound` can use and
/// the dominated ones, then the classes the root no longer reaches: what makes microlp
/// usable here (see "Pruning and warm start" above). Fails when the root has no plan or
/// the model would exceed [`MAX_BINARIES`].
fn prune(g: &CandGraph, warm: &Selection, bound: Option<f64>) -> Result<Pruned, IlpFailure> {
    let live: Vec<bool> = g.tree_costs().iter().map(Option::is_some).collect();
    if !live[g.root] {
        return Err(fail("the root class has no plan", 0));
    }
    let limit = bound.map(|b| b * (1.0 + 1e-9));
    let lb = g.lower_bounds();
    let keep: Vec<Vec<bool>> = (0..g.classes.len())
        .map(|c| {
            g.classes[c]
                .iter()
                .map(|cand| {
                    let below = cand
                        .children
                        .iter()
                        .map(|&d| lb.get(d).copied().unwrap_or(f64::INFINITY))
                        .fold(0.0, f64::max);
                    live[c]
                        && cand.cost.is_finite()
                        && cand.cost >= 0.0
                        && limit.is_none_or(|l| cand.cost + below <= l)
                        && cand
                            .children
                            .iter()
                            .all(|&d| d != c && live.get(d) == Some(&true))
                })
                .collect()
        })
        .collect();
    let mut pruned = Pruned {
        keep: drop_dominated(g, keep, warm),
        classes: Vec::new(),
        binaries: 0,
    };
    let reach = reachable(g, |c| pruned.kept(g, c).map(|(_, cand)| cand));
    pruned.classes = (0..g.classes.len()).filter(|&c| reach[c]).collect();
    pruned.binaries = pruned
        .classes
        .iter()
        .map(|&c| match pruned.kept(g, c).count() {
            1 => 1,
            k => k + 1,
        })
        .sum::<usize>();
    if pruned.binaries > MAX_BINARIES {
        return Err(fail(
            format!(
                "{} binaries exceed the limit of {MAX_BINARIES}",
                pruned.binaries
            ),
            pruned.binaries,
        ));
    }
    Ok(pruned)
}

/// Each class's strongly connected component in the kept class graph, and each
/// component's size in reachable classes: levels are only needed where cycles can be,
/// inside a component of more than one class.
fn components(g: &CandGraph, pruned: &Pruned) -> (Vec<usize>, Vec<usize>) {
    let n = g.classes.len();
    let mut edges: Vec<Vec<usize>> = vec![vec![]; n];
    for &c in &pruned.classes {
        edges[c] = pruned
            .kept(g, c)
            .flat_map(|(_, cand)| cand.children.clone())
            .collect();
    }
    let comp = sccs(n, &edges);
    let mut comp_size = vec![0usize; n];
    for &c in &pruned.classes {
        comp_size[comp[c]] += 1;
    }
    (comp, comp_size)
}

/// The model's variables: `S_c` per class, `B_n` per kept candidate (`S_c` itself for a
/// class with one), `L_c` per class of a component with cycles.
struct Vars {
    s: Vec<Option<Variable>>,
    b: Vec<Vec<Option<Variable>>>,
    l: Vec<Option<Variable>>,
}

/// The model of the module doc's encoding over what `pruned` kept, its objective scaled
/// by greedy's cost `bound` and its variables starting at greedy's choices (`warm`, when
/// it is a valid plan).
fn build_model(
    g: &CandGraph,
    warm: &Selection,
    bound: Option<f64>,
    pruned: &Pruned,
) -> (MicroLpProblem, Vars) {
    let n = g.classes.len();
    let (comp, comp_size) = components(g, pruned);
    // The warm start: greedy's choices and, inside each component, heights.
    let (warm_used, warm_level) = if bound.is_some() {
        let used = used_classes(g, warm);
        let level = levels(g, warm, &used, &comp);
        (used, level)
    } else {
        (vec![false; n], vec![0.0; n])
    };
    let warm_pick = |c: usize, i: usize| warm_used[c] && warm[c] == Some(i);
    let scale = bound.filter(|b| *b > 0.0 && b.is_finite()).unwrap_or(1.0);
    let mut problem = variables!();
    let mut vars = Vars {
        s: vec![None; n],
        b: g.classes.iter().map(|c| vec![None; c.len()]).collect(),
        l: vec![None; n],
    };
    let mut objective = Expression::with_capacity(pruned.binaries);
    let flag = |b: bool| if b { 1.0 } else { 0.0 };
    for &c in &pruned.classes {
        let sc = problem.add(variable().binary().initial(flag(warm_used[c])));
        vars.s[c] = Some(sc);
        let single = pruned.kept(g, c).count() == 1;
        for (i, cand) in pruned.kept(g, c) {
            // A class with one candidate needs no second variable: `B_n = S_c`.
            let v = if single {
                sc
            } else {
                problem.add(variable().binary().initial(flag(warm_pick(c, i))))
            };
            let tie = if warm.get(c).copied().flatten() == Some(i) {
                0.0
            } else {
                TIE_BREAK
            };
            objective.add_mul(cand.cost / scale + tie, v);
            vars.b[c][i] = Some(v);
        }
        let size = comp_size[comp[c]];
        if size > 1 {
            let level = variable().min(0.0).max((size - 1) as f64);
            vars.l[c] = Some(problem.add(level.initial(warm_level[c])));
        }
    }
    let model = problem.minimise(objective).using(microlp);
    let model = add_constraints(g, pruned, &vars, (&comp, &comp_size), model);
    (model, vars)
}

/// The encoding's constraints: the root is chosen, a chosen class chooses one candidate,
/// a chosen candidate its children, and inside a component a chosen edge raises the level.
fn add_constraints(
    g: &CandGraph,
    pruned: &Pruned,
    vars: &Vars,
    (comp, comp_size): (&[usize], &[usize]),
    mut model: MicroLpProblem,
) -> MicroLpProblem {
    if let Some(root) = vars.s[g.root] {
        model = model.with(Expression::from(root).eq(1.0));
    }
    for &c in &pruned.classes {
        let Some(sc) = vars.s[c] else { continue };
        let mut choose = Expression::with_capacity(g.classes[c].len());
        for (i, cand) in pruned.kept(g, c) {
            let Some(b) = vars.b[c][i] else { continue };
            choose.add_mul(1.0, b);
            let mut children = cand.children.clone();
            children.sort_unstable();
            children.dedup();
            for d in children {
                let Some(sd) = vars.s[d] else { continue };
                model = model.with(Expression::from(b).leq(sd));
                if let (Some(lc), Some(ld)) = (vars.l[c], vars.l[d]) {
                    if comp[c] == comp[d] {
                        let m = comp_size[comp[c]] as f64;
                        let mut e = Expression::from(ld);
                        e.add_mul(-1.0, lc);
                        e.add_mul(m, b);
                        model = model.with(e.leq(m - 1.0));
                    }
                }
            }
        }
        if pruned.kept(g, c).count() > 1 {
            model = model.with(choose.eq(sc));
        }
    }
    model
}

/// Runs microlp on `model` and reads the chosen candidate of each chosen class, with
/// whether optimality was proven. microlp is a dependency we do not control: a panic
/// inside it must not take the optimizer down (the outer `Err`), and greedy is always
/// available.
fn run_solver(
    model: MicroLpProblem,
    vars: &Vars,
    classes: &[usize],
) -> std::thread::Result<Result<(Selection, bool), ResolutionError>> {
    let n = vars.s.len();
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || {
        let sol = model.solve()?;
        let optimal = matches!(sol.status(), SolutionStatus::Optimal);
        let mut selection: Selection = vec![None; n];
        for &c in classes {
            if vars.s[c].is_some_and(|s| sol.value(s) > 0.5) {
                selection[c] = vars.b[c]
                    .iter()
                    .enumerate()
                    .filter_map(|(i, v)| v.map(|v| (i, sol.value(v))))
                    .filter(|(_, x)| *x > 0.5)
                    .max_by(|a, b| a.1.total_cmp(&b.1))
                    .map(|(i, _)| i);
            }
        }
        Ok((selection, optimal))
    }))
}

/// Drops each candidate another kept candidate of its class dominates: no dearer, and
/// needing a subset of its children (ties broken by position, so exactly the minimal
/// ones stay). Any plan using a dominated candidate stays valid and no dearer with the
/// dominating one instead (and removing edges cannot create a cycle), so the optimum is
/// kept. `warm`'s choices are never dropped, so the warm start stays feasible.
fn drop_dominated(g: &CandGraph, mut keep: Vec<Vec<bool>>, warm: &Selection) -> Vec<Vec<bool>> {
    let sets: Vec<Vec<Vec<usize>>> = g
        .classes
        .iter()
        .map(|cands| {
            cands
                .iter()
                .map(|cand| {
                    let mut ch = cand.children.clone();
                    ch.sort_unstable();
                    ch.dedup();
                    ch
                })
                .collect()
        })
        .collect();
    let subset = |a: &[usize], b: &[usize]| a.iter().all(|x| b.binary_search(x).is_ok());
    for (c, cands) in g.classes.iter().enumerate() {
        if cands.len() < 2 {
            continue;
        }
        for i in 0..cands.len() {
            if !keep[c][i] || warm.get(c).copied().flatten() == Some(i) {
                continue;
            }
            let (ci, si) = (cands[i].cost, &sets[c][i]);
            let dominated = (0..cands.len()).any(|j| {
                if j == i || !keep[c][j] {
                    return false;
                }
                let (cj, sj) = (cands[j].cost, &sets[c][j]);
                subset(sj, si)
                    && (cj < ci || (cj == ci && (sj.len() < si.len() || (sj == si && j < i))))
            });
            if dominated {
                keep[c][i] = false;
            }
        }
    }
    keep
}

/// Classes reachable from the root through `sel`'s choices.
fn used_classes(g: &CandGraph, sel: &Selection) -> Vec<bool> {
    reachable(g, |c| sel[c].and_then(|i| g.classes[c].get(i)).into_iter())
}

/// Classes reachable from the root through the candidates `through` yields for each
/// class: one walk for the pruned graph and for a selection.
fn reachable<'a, I>(g: &CandGraph, through: impl Fn(usize) -> I) -> Vec<bool>
where
    I: Iterator<Item = &'a CandNode>,
{
    let mut seen = vec![false; g.classes.len()];
    let mut todo = vec![g.root];
    seen[g.root] = true;
    while let Some(c) = todo.pop() {
        for cand in through(c) {
            for &d in &cand.children {
                if d < seen.len() && !seen[d] {
                    seen[d] = true;
                    todo.push(d);
                }
            }
        }
    }
    seen
}

/// For an acyclic selection: each used class's height over chosen edges inside its own
/// component (0 for leaves of the component), satisfying the level constraints.
fn levels(g: &CandGraph, sel: &Selection, used: &[bool], comp: &[usize]) -> Vec<f64> {
    let n = g.classes.len();
    let mut level: Vec<Option<usize>> = vec![None; n];
    // Iterative post-order over the (acyclic) chosen edges.
    for start in (0..n).filter(|&c| used[c]) {
        let mut stack = vec![(start, false)];
        while let Some((c, expanded)) = stack.pop() {
            if level[c].is_some() {
                continue;
            }
            let children: Vec<usize> = sel[c]
                .and_then(|i| g.classes[c].get(i))
                .map(|cand| cand.children.clone())
                .unwrap_or_default();
            if expanded {
                let h = children
                    .iter()
                    .filter(|&&d| comp[d] == comp[c])
                    .filter_map(|&d| level[d].map(|l| l + 1))
                    .max()
                    .unwrap_or(0);
                level[c] = Some(h);
            } else {
                stack.push((c, true));
                for d in children {
                    if level[d].is_none() && stack.len() <= 4 * n + 4 {
                        stack.push((d, false));
                    }
                }
            }
        }
    }
    level.into_iter().map(|l| l.unwrap_or(0) as f64).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Figure 10: the root (cost 0) needs classes A and B. A is either `op1` (cost 1)
    /// over its own class C (cost 4) or `op2` (cost 2) over B (cost 4).
    fn figure_10() -> CandGraph {
        CandGraph {
            classes: vec![
                vec![CandNode::new(0.0, &[1, 2])],                        // root
                vec![CandNode::new(1.0, &[3]), CandNode::new(2.0, &[2])], // A
                vec![CandNode::new(4.0, &[])],                            // B
                vec![CandNode::new(4.0, &[])],                            // C
            ],
            root: 0,
        }
    }

    #[test]
    fn figure_10_greedy_pays_twice_ilp_shares() {
        let g = figure_10();
        let greedy = g.greedy_selection();
        assert_eq!(greedy[1], Some(0), "greedy picks op1 by tree cost 5 < 6");
        assert_eq!(dag_cost(&g, &greedy), Ok(9.0));
        let ilp = solve(&g, &greedy, Duration::from_secs(10)).unwrap();
        assert_eq!(ilp.selection[1], Some(1), "ILP picks op2 and shares B");
        assert_eq!(ilp.selection[3], None, "C is not used");
        assert_eq!(ilp.cost, 6.0);
        assert!(ilp.proven_optimal);
    }

    #[test]
    fn cyclic_selections_are_excluded() {
        // root = f(x); x is either g(root) for free (a cycle) or a leaf costing 5; a
        // second cycle x -> y -> x costs nothing either.
        let g = CandGraph {
            classes: vec![
                vec![CandNode::new(1.0, &[1])],
                vec![
                    CandNode::new(0.0, &[0]),
                    CandNode::new(0.0, &[2]),
                    CandNode::new(5.0, &[]),
                ],
                vec![CandNode::new(0.0, &[1])],
            ],
            root: 0,
        };
        let greedy = g.greedy_selection();
        let ilp = solve(&g, &greedy, Duration::from_secs(10)).unwrap();
        assert_eq!(ilp.selection[1], Some(2));
        assert_eq!(ilp.cost, 6.0);
        // Even without a warm start (no pruning bound).
        let ilp = solve(&g, &vec![None; 3], Duration::from_secs(10)).unwrap();
        assert_eq!(ilp.cost, 6.0);
        assert!(dag_cost(&g, &ilp.selection).is_ok());
    }

    #[test]
    fn longer_cycles_need_levels() {
        // A ring of four free classes, each also computable from a costly leaf: choosing
        // every free edge would cost nothing but is a cycle; one leaf must break the ring.
        let mut classes = vec![vec![CandNode::new(0.0, &[1, 2, 3, 4])]];
        for i in 0..4 {
            let next = 1 + (i + 1) % 4;
            classes.push(vec![
                CandNode::new(0.0, &[next]),
                CandNode::new(10.0 + i as f64, &[]),
            ]);
        }
        let g = CandGraph { classes, root: 0 };
        assert_eq!(dag_cost(&g, &g.greedy_selection()), Ok(10.0));
        // No warm start: nothing prunes, the levels alone keep the ring open.
        let ilp = solve(&g, &vec![None; 5], Duration::from_secs(10)).unwrap();
        assert_eq!(ilp.cost, 10.0);
        assert_eq!(ilp.selection[1], Some(1));
    }

    #[test]
    fn a_spent_budget_fails_and_does_not_panic() {
        let g = figure_10();
        let greedy = g.greedy_selection();
        let err = solve(&g, &greedy, Duration::ZERO).unwrap_err();
        assert!(err.reason.contains("time limit"), "{}", err.reason);
    }

    #[test]
    fn degenerate_graphs() {
        let empty = CandGraph::default();
        assert!(solve(&empty, &vec![], Duration::from_secs(1)).is_err());
        let no_plan = CandGraph {
            classes: vec![vec![CandNode::new(1.0, &[0])]],
            root: 0,
        };
        assert!(solve(&no_plan, &vec![None], Duration::from_secs(1)).is_err());
        let nan = CandGraph {
            classes: vec![vec![CandNode::new(f64::NAN, &[]), CandNode::new(3.0, &[])]],
            root: 0,
        };
        let ilp = solve(&nan, &nan.greedy_selection(), Duration::from_secs(1)).unwrap();
        assert_eq!(ilp.cost, 3.0);
    }
}
