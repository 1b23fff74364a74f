//! Variable elimination (Galley §5.3-§5.5): removing one aggregated index from a query by
//! cutting out its minimal sub-expression (MSE) as a logical query of its own.
//!
//! The query is kept as a normalized expression tree whose remaining `Agg` nodes annotate the
//! pointwise tree below them — Galley's annotated expression tree. Eliminating index `x` of an
//! `Agg(g, ..)` node walks down from that node (`Pusher`):
//!
//! - a subtree without `x` leaves the aggregate as `g` repeated `n_x` times (`x*n` for `sum`,
//!   `x` for idempotent aggregates);
//! - a map that distributes over `g` with one child holding `x` passes the aggregate into that
//!   child; with several, a commutative-associative map keeps only those children in the MSE;
//! - a map equal to `g`'s own combining operator (`+` for `sum`) may split the aggregate over
//!   its children: each child holding `x` gets its own aggregate over a fresh *virtual* index
//!   (`x#k`), eliminated later on its own (so `sum[i](A+B+C)` can become `sum(A+B) + sum(C)`);
//! - anything else blocks: the subtree becomes the MSE.
//!
//! An MSE that still contains an aggregate is not a logical query: the move is not allowed yet
//! (this is what restricts elimination orders, §5.5: non-commuting or unreachable inner
//! aggregates go first).
//!
//! A new query whose body multiplies the result of an earlier one from the same elimination may
//! *absorb* it (`sum[k](sum[j](A*B) * C)` as one query over `j,k`) when that is cheaper: a
//! triangle count is then one query, not three.
//!
//! What a move does depends on its aggregate alone: [`super::moves`] prices each move once and
//! keeps the moves of a state up to date as the search goes.

use std::cell::{Cell, RefCell};
use std::collections::{BTreeSet, HashMap};
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHasher};

use super::normalize::{flattens, is_rebuilt, make_agg, rebuild_map, rename_free, substitute};
use super::CostModel;
use crate::plan_ast::{AggOp, Expr, Idx, LogicalQuery, MapOp, OpProps, UserFunction};
use crate::stats::{expr_stats, query_result_stats, Estimator, InputStats, TensorStats};
use crate::TensorError;

/// One logical query with its estimates.
#[derive(Clone, Debug)]
pub struct Planned {
    pub q: LogicalQuery,
    pub nnz_out: f64,
    pub nnz_body: f64,
    pub cost: f64,
}

/// A partial elimination: the residual expression, the queries cut out so far, their cost.
#[derive(Clone, Debug)]
pub struct State {
    pub expr: Expr,
    pub queries: Vec<Planned>,
    pub cost: f64,
    /// Indices eliminated so far (original and virtual): the memo key of the exact search.
    pub done: BTreeSet<Idx>,
}

/// What the optimizer knows while planning: statistics of inputs and of every query created
/// (a name stands for one query: abandoned branches cannot clash, and the branches of one
/// search that reuse a priced move share its query), index sizes, name counters.
pub struct Ctx<'a> {
    pub inputs: &'a InputStats,
    pub estimator: Estimator,
    pub cost_model: CostModel,
    pub sizes: RefCell<HashMap<Idx, usize>>,
    /// Result name → (its index order, statistics over those indices).
    pub results: RefCell<HashMap<String, (Vec<Idx>, TensorStats)>>,
    input_cache: RefCell<HashMap<(String, Vec<Idx>), TensorStats>>,
    /// Priced queries by structure ([`Ctx::query_key`]): the same minimal sub-expression is
    /// cut out again and again — by every greedy step, every distributed form and every
    /// inlining candidate — under a fresh name each time; its statistics are computed once.
    /// Value: (structural id, result statistics, nnz of the body, nnz of the result).
    memo: RefCell<FxHashMap<u64, (usize, TensorStats, f64, f64)>>,
    /// Structural id of the definition each result name currently stands for (aliases are
    /// keyed by it, so queries over equal definitions under different names share a key).
    canon: RefCell<HashMap<String, usize>>,
    counter: Cell<usize>,
    /// Search effort so far ([`Ctx::effort`]).
    effort: Cell<usize>,
    pub prefix: RefCell<String>,
    /// The search gives up ([`Ctx::check_budget`]) once its [`Ctx::effort`] passes this: a
    /// bound on optional searches such as alias inlining candidates.
    pub budget: Cell<usize>,
    /// The exact search's budget ([`super::SearchBudget`]): its deadline, the partial plans it
    /// may still expand, and whether it ran out.
    exact_deadline: Cell<Option<std::time::Instant>>,
    exact_states_left: Cell<usize>,
    exact_stopped: Cell<bool>,
    /// Plans of sum terms already searched, by canonical text ([`super::terms`]).
    pub term_plans: RefCell<HashMap<String, State>>,
}

impl<'a> Ctx<'a> {
    pub fn new(inputs: &'a InputStats, estimator: Estimator, cost_model: CostModel) -> Ctx<'a> {
        Ctx {
            inputs,
            estimator,
            cost_model,
            sizes: RefCell::new(HashMap::new()),
            results: RefCell::new(HashMap::new()),
            input_cache: RefCell::new(HashMap::new()),
            memo: RefCell::new(Default::default()),
            canon: RefCell::new(HashMap::new()),
            counter: Cell::new(0),
            effort: Cell::new(0),
            prefix: RefCell::new(String::new()),
            budget: Cell::new(usize::MAX),
            exact_deadline: Cell::new(None),
            exact_states_left: Cell::new(usize::MAX),
            exact_stopped: Cell::new(false),
            term_plans: RefCell::new(HashMap::new()),
        }
    }

    /// Starts the exact search's budget for one program.
    pub fn start_exact_budget(&self, budget: super::SearchBudget) {
        self.exact_deadline
            .set(std::time::Instant::now().checked_add(budget.time));
        self.exact_states_left.set(budget.states);
        self.exact_stopped.set(false);
    }

    /// Charges one expanded partial plan to the exact search's budget; `false` once the budget
    /// is spent (from then on every exact search returns its incumbent at once).
    pub fn exact_step(&self) -> bool {
        if self.exact_stopped.get() {
            return false;
        }
        let left = self.exact_states_left.get();
        let late = self
            .exact_deadline
            .get()
            .is_some_and(|d| std::time::Instant::now() >= d);
        if left == 0 || late {
            self.exact_stopped.set(true);
            return false;
        }
        self.exact_states_left.set(left - 1);
        true
    }

    /// Whether the exact search ran out of budget.
    pub fn budget_stopped(&self) -> bool {
        self.exact_stopped.get()
    }

    /// Search effort so far, in queries: each state a search lists counts every move that
    /// cuts out a query, as if it were priced again, and each sum term planned on its own
    /// counts one. Moves are priced once ([`super::moves`]); counting them per listing keeps
    /// the [`Ctx::budget`] of a search bounding what it bounded when every listing re-priced
    /// them (the inlining candidates dropped for their effort stay the same).
    pub fn effort(&self) -> usize {
        self.effort.get()
    }

    /// Adds `n` to the [`Ctx::effort`].
    pub fn charge(&self, n: usize) {
        self.effort.set(self.effort.get() + n);
    }

    /// Fails once the [`Ctx::effort`] has passed the [`Ctx::budget`].
    pub fn check_budget(&self) -> Result<(), TensorError> {
        if self.effort() > self.budget.get() {
            return Err(TensorError::Invalid(
                "logical search budget exhausted".to_string(),
            ));
        }
        Ok(())
    }

    pub fn fresh_name(&self) -> String {
        self.counter.set(self.counter.get() + 1);
        format!("{}__{}", self.prefix.borrow(), self.counter.get())
    }

    /// The virtual index for pushing `x` into child `k` of a split. Named by position, not by
    /// a counter, so the same split reached along different elimination orders gives the same
    /// names and the exact search's memo (keyed by eliminated indices) merges those states.
    fn virtual_idx(&self, x: &Idx, k: usize) -> Idx {
        let v = Idx::new(&format!("{x}#{k}"));
        let n = self.size(x);
        self.sizes.borrow_mut().insert(v.clone(), n);
        v
    }

    pub fn size(&self, i: &Idx) -> usize {
        self.sizes.borrow().get(i).copied().unwrap_or(1)
    }

    /// Statistics of an access to an input or an earlier result.
    fn leaf_stats(&self, e: &Expr) -> Result<TensorStats, TensorError> {
        match e {
            Expr::Input { tensor, idxs } => {
                let key = (tensor.clone(), idxs.clone());
                if let Some(s) = self.input_cache.borrow().get(&key) {
                    return Ok(s.clone());
                }
                let s = self.inputs.access(tensor, idxs, self.estimator)?;
                self.input_cache.borrow_mut().insert(key, s.clone());
                Ok(s)
            }
            Expr::Alias { name, idxs } => {
                let results = self.results.borrow();
                let (declared, stats) = results
                    .get(name)
                    .ok_or_else(|| TensorError::Unknown(name.clone()))?;
                if declared == idxs {
                    return Ok(stats.clone());
                }
                if declared.len() != idxs.len() {
                    return Err(TensorError::Invalid(format!(
                        "{name} has {} modes but is indexed by {}",
                        declared.len(),
                        idxs.len()
                    )));
                }
                if let Some(i) = stats.idxs().iter().find(|i| !declared.contains(i)) {
                    return Err(TensorError::Invalid(format!(
                        "internal: statistics of {name} range over {i}, not one of {declared:?} ({:?})",
                        stats.idxs()
                    )));
                }
                Ok(stats.rename(&|i: &Idx| {
                    let k = declared.iter().position(|d| d == i).expect("checked above");
                    idxs[k].clone()
                })?)
            }
            _ => unreachable!("leaves are accesses"),
        }
    }

    pub fn stats(&self, e: &Expr) -> Result<TensorStats, TensorError> {
        let sizes = self.sizes.borrow();
        expr_stats(e, self.estimator, &mut |leaf| self.leaf_stats(leaf), &|i| {
            sizes.get(i).copied()
        })
    }

    /// A hash of the structure of `q`, its own name left out: index names with their sizes,
    /// inputs by name, aliases by the structural id of their definition. Equal structures
    /// have equal statistics; a collision of two different ones (odds ~1e-13 for the
    /// thousands of queries one optimization prices) could only misprice a plan, never make
    /// it compute something else (statistics steer choices, not semantics).
    fn query_key(&self, q: &LogicalQuery) -> u64 {
        self.structural_hash(false, |structure, h| {
            q.agg.hash(h);
            structure.idxs(h, &q.idxs);
            structure.idxs(h, &q.agg_idxs);
            structure.expr(h, &q.body);
        })
    }

    /// A hash written by `write` with this context's index sizes and alias definitions.
    fn structural_hash(
        &self,
        alias_names: bool,
        write: impl FnOnce(&Structure, &mut FxHasher),
    ) -> u64 {
        let sizes = self.sizes.borrow();
        let canon = self.canon.borrow();
        let structure = Structure {
            sizes: &sizes,
            canon: &canon,
            alias_names,
        };
        let mut h = FxHasher::default();
        write(&structure, &mut h);
        h.finish()
    }

    /// Prices a logical query and records its result statistics under its name.
    pub fn plan_query(&self, q: LogicalQuery) -> Result<Planned, TensorError> {
        let key = self.query_key(&q);
        let hit = self.memo.borrow().get(&key).cloned();
        let (id, out, nnz_body, nnz_out) = match hit {
            Some(h) => h,
            None => {
                let body = self.stats(&q.body)?;
                let out = query_result_stats(&body, q.agg, &q.agg_idxs, &|i| self.size(i));
                let id = self.memo.borrow().len();
                let (nnz_body, nnz_out) = (body.estimate(), out.estimate());
                let entry = (id, out, nnz_body, nnz_out);
                self.memo.borrow_mut().insert(key, entry.clone());
                entry
            }
        };
        let map = if self.is_dense_product(&q)? {
            self.cost_model.map * self.cost_model.dense_product
        } else {
            self.cost_model.map
        };
        let cost = self.cost_model.agg * nnz_out + map * nnz_body;
        self.canon.borrow_mut().insert(q.name.clone(), id);
        self.results
            .borrow_mut()
            .insert(q.name.clone(), (q.idxs.clone(), out));
        Ok(Planned {
            q,
            nnz_out,
            nnz_body,
            cost,
        })
    }
}

/// Hashes expressions by structure: index names with their sizes, inputs by name, aliases by
/// the structural id of their definition (by name where none is recorded).
struct Structure<'c> {
    sizes: &'c HashMap<Idx, usize>,
    canon: &'c HashMap<String, usize>,
    /// Whether aliases are also told apart by name: query statistics do not depend on it, the
    /// node a move leaves behind does.
    alias_names: bool,
}

impl Structure<'_> {
    fn idxs(&self, h: &mut FxHasher, idxs: &[Idx]) {
        idxs.len().hash(h);
        for i in idxs {
            i.name().hash(h);
            self.sizes.get(i).copied().unwrap_or(1).hash(h);
        }
    }

    fn expr(&self, h: &mut FxHasher, e: &Expr) {
        match e {
            Expr::Input { tensor, idxs } => {
                0u8.hash(h);
                tensor.hash(h);
                self.idxs(h, idxs);
            }
            Expr::Alias { name, idxs } => {
                match self.canon.get(name) {
                    Some(id) => {
                        1u8.hash(h);
                        id.hash(h);
                        if self.alias_names {
                            name.hash(h);
                        }
                    }
                    None => {
                        2u8.hash(h);
                        name.hash(h);
                    }
                }
                self.idxs(h, idxs);
            }
            Expr::Literal(v) => {
                3u8.hash(h);
                v.to_bits().hash(h);
            }
            Expr::Map { op, args } => {
                4u8.hash(h);
                op.name().hash(h);
                args.len().hash(h);
                for a in args {
                    self.expr(h, a);
                }
            }
            Expr::Agg { op, idxs, body } => {
                5u8.hash(h);
                op.hash(h);
                self.idxs(h, idxs);
                self.expr(h, body);
            }
        }
    }
}

/// Whether `x` occurs in `e` (bound names are unique, so occurrence means free occurrence
/// below the aggregate that binds it).
pub fn mentions(e: &Expr, x: &Idx) -> bool {
    match e {
        Expr::Input { idxs, .. } | Expr::Alias { idxs, .. } => idxs.contains(x),
        Expr::Literal(_) => false,
        Expr::Map { args, .. } => args.iter().any(|a| mentions(a, x)),
        Expr::Agg { body, .. } => mentions(body, x),
    }
}

/// `g` applied to `n` copies of `e` (Galley's `g(x, n)`).
pub fn repeat_expr(g: AggOp, e: Expr, n: usize) -> Expr {
    if n == 1 {
        return e;
    }
    match g {
        AggOp::Sum => rebuild_map(&MapOp::Mul, vec![Expr::Literal(n as f64), e]),
        AggOp::Prod => Expr::map(MapOp::Pow, vec![e, Expr::Literal(n as f64)]),
        AggOp::Max | AggOp::Min if n == 0 => Expr::Literal(g.init()),
        AggOp::Max | AggOp::Min => e,
        AggOp::Any if n == 0 => Expr::Literal(0.0),
        AggOp::Any => Expr::map(MapOp::Ne, vec![e, Expr::Literal(0.0)]),
        AggOp::User(_) if n == 0 => Expr::Literal(g.init()),
        AggOp::User(u) if u.function().props.idempotent => e,
        // No operator of the language says "n copies combined": a unary function that
        // computes it (by repeated doubling, `AggOp::repeat`).
        AggOp::User(_) => {
            let copies = n as f64;
            let repeat = UserFunction {
                name: format!("{g}_repeat_{n}"),
                arity: 1,
                props: OpProps::default(),
                distributes_over: vec![],
                eval: Box::new(move |args: &[f64]| g.repeat(args[0], copies)),
            };
            Expr::map(MapOp::User(Arc::new(repeat)), vec![e])
        }
    }
}

/// Paths (child positions from the root) of every `Agg` node, outermost first.
pub fn agg_nodes(e: &Expr) -> Vec<(Vec<usize>, AggOp, Vec<Idx>)> {
    fn walk(e: &Expr, path: &mut Vec<usize>, out: &mut Vec<(Vec<usize>, AggOp, Vec<Idx>)>) {
        match e {
            Expr::Agg { op, idxs, body } => {
                out.push((path.clone(), *op, idxs.clone()));
                path.push(0);
                walk(body, path, out);
                path.pop();
            }
            Expr::Map { args, .. } => {
                for (k, a) in args.iter().enumerate() {
                    path.push(k);
                    walk(a, path, out);
                    path.pop();
                }
            }
            _ => {}
        }
    }
    let mut out = vec![];
    walk(e, &mut vec![], &mut out);
    out
}

pub(super) fn at<'e>(e: &'e Expr, path: &[usize]) -> &'e Expr {
    match (path.split_first(), e) {
        (None, _) => e,
        (Some((&k, rest)), Expr::Map { args, .. }) => at(&args[k], rest),
        (Some((_, rest)), Expr::Agg { body, .. }) => at(body, rest),
        _ => unreachable!("path follows the tree"),
    }
}

/// Replaces the node at `path` of `e` by `new`; maps on the way are rebuilt (flattened,
/// aggregates lifted) so the tree stays normalized. In place: nodes on the way with nothing to
/// rebuild are left as they are, the others are rebuilt from their moved children, nothing is
/// copied. Returns whether every node on the way kept its shape (operator and number of
/// children or indices), so that nodes off the path kept their paths.
pub(super) fn replace_at(e: &mut Expr, path: &[usize], new: Expr) -> bool {
    let Some((&k, rest)) = path.split_first() else {
        *e = new;
        return true;
    };
    let kept = match e {
        Expr::Map { op, args } => {
            let kept = replace_at(&mut args[k], rest, new);
            if is_rebuilt(op, args) {
                return kept;
            }
            kept
        }
        Expr::Agg { op, idxs, body } => {
            let kept = replace_at(body, rest, new);
            let merges = matches!(&**body, Expr::Agg { op: inner, .. } if inner == op);
            if !idxs.is_empty() && !merges {
                return kept;
            }
            kept
        }
        _ => unreachable!("path follows the tree"),
    };
    let (rebuilt, same) = match std::mem::replace(e, Expr::Literal(0.0)) {
        Expr::Map { op, args } => {
            let arity = args.len();
            let rebuilt = rebuild_map(&op, args);
            let same =
                matches!(&rebuilt, Expr::Map { op: o, args } if *o == op && args.len() == arity);
            (rebuilt, same)
        }
        Expr::Agg { op, idxs, body } => {
            let count = idxs.len();
            let rebuilt = make_agg(op, idxs, *body);
            let same = matches!(&rebuilt, Expr::Agg { op: o, idxs, .. } if *o == op && idxs.len() == count);
            (rebuilt, same)
        }
        _ => unreachable!("path follows the tree"),
    };
    *e = rebuilt;
    kept && same
}

/// The MSE traversal for one index (see the module doc).
struct Pusher<'c, 'a> {
    ctx: &'c Ctx<'a>,
    x: Idx,
    g: AggOp,
    split: bool,
    did_split: bool,
    /// The cut-out MSE body and the alias that replaces it.
    mse: Option<(Expr, Expr)>,
}

struct Blocked;

impl Pusher<'_, '_> {
    fn push(&mut self, e: &Expr) -> Result<Expr, Blocked> {
        if !mentions(e, &self.x) {
            return Ok(repeat_expr(self.g, e.clone(), self.ctx.size(&self.x)));
        }
        match e {
            Expr::Input { .. } | Expr::Alias { .. } | Expr::Literal(_) => self.extract(e.clone()),
            Expr::Agg { op, idxs, body } if *op == self.g => {
                // Same commutative aggregate: `g_x g_J e = g_J g_x e`.
                let inner = self.push(body)?;
                Ok(make_agg(*op, idxs.clone(), inner))
            }
            Expr::Agg { .. } => self.extract(e.clone()),
            Expr::Map { op, args } => {
                let holding: Vec<usize> = (0..args.len())
                    .filter(|&k| mentions(&args[k], &self.x))
                    .collect();
                let props = op.props();
                if op.distributes_over(self.g) {
                    if holding.len() == 1 {
                        let mut args = args.clone();
                        let k = holding[0];
                        args[k] = self.push(&args[k])?;
                        return Ok(rebuild_map(op, args));
                    }
                    if props.commutative && props.associative && holding.len() < args.len() {
                        let (inside, mut outside): (Vec<Expr>, Vec<Expr>) = (0..args.len())
                            .map(|k| args[k].clone())
                            .enumerate()
                            .fold((vec![], vec![]), |(mut a, mut b), (k, e)| {
                                if holding.contains(&k) {
                                    a.push(e);
                                } else {
                                    b.push(e);
                                }
                                (a, b)
                            });
                        let alias = self.extract(Expr::map(op.clone(), inside))?;
                        outside.push(alias);
                        return Ok(rebuild_map(op, outside));
                    }
                    return self.extract(e.clone());
                }
                let own = self.g.combine_op();
                if self.split
                    && *op == own
                    && props.commutative
                    && props.associative
                    && flattens(op)
                {
                    self.did_split = true;
                    let n = self.ctx.size(&self.x);
                    if holding.len() == 1 {
                        // One child holds `x`: push into it, repeat the others.
                        let mut new_args = vec![];
                        for a in args {
                            new_args.push(if mentions(a, &self.x) {
                                self.push(a)?
                            } else {
                                repeat_expr(self.g, a.clone(), n)
                            });
                        }
                        return Ok(rebuild_map(op, new_args));
                    }
                    let new_args = args
                        .iter()
                        .enumerate()
                        .map(|(k, a)| {
                            if mentions(a, &self.x) {
                                let v = self.ctx.virtual_idx(&self.x, k + 1);
                                make_agg(self.g, vec![v.clone()], substitute(a, &self.x, &v))
                            } else {
                                repeat_expr(self.g, a.clone(), n)
                            }
                        })
                        .collect();
                    return Ok(rebuild_map(op, new_args));
                }
                self.extract(e.clone())
            }
        }
    }

    fn extract(&mut self, body: Expr) -> Result<Expr, Blocked> {
        if body.has_agg() {
            return Err(Blocked);
        }
        let mut free: BTreeSet<Idx> = body.free_idxs();
        free.remove(&self.x);
        let idxs: Vec<Idx> = free.into_iter().collect();
        let alias = Expr::alias(&self.ctx.fresh_name(), idxs);
        self.mse = Some((body, alias.clone()));
        Ok(alias)
    }
}

/// What eliminating one index does to the aggregate it applies to.
#[derive(Debug)]
pub(super) struct Outcome {
    /// What replaces the aggregate.
    pub node: Expr,
    /// The query cut out, after absorbing earlier ones.
    pub cut: Option<Planned>,
    /// The earlier queries it absorbed, with their costs, in the order absorbed.
    pub absorbed: Vec<(String, f64)>,
    pub did_split: bool,
}

impl Ctx<'_> {
    /// A hash of an aggregate node for [`super::moves`]: its structure with alias names (they
    /// end up in the node a move leaves) and their definitions (they steer the prices).
    pub(super) fn node_key(&self, node: &Expr) -> u64 {
        self.structural_hash(true, |structure, h| structure.expr(h, node))
    }
}

/// Prices eliminating `x` from the aggregate at `path`, splitting over its own operator or
/// not; `None` if the MSE still holds an aggregate.
pub(super) fn evaluate(
    ctx: &Ctx,
    state: &State,
    path: &[usize],
    x: &Idx,
    split: bool,
) -> Result<Option<Outcome>, TensorError> {
    let Expr::Agg { op: g, idxs, body } = at(&state.expr, path) else {
        unreachable!("moves point at aggregates")
    };
    let mut pusher = Pusher {
        ctx,
        x: x.clone(),
        g: *g,
        split,
        did_split: false,
        mse: None,
    };
    let Ok(new_body) = pusher.push(body) else {
        return Ok(None);
    };
    let rest: Vec<Idx> = idxs.iter().filter(|i| *i != x).cloned().collect();
    let node = make_agg(*g, rest, new_body);
    let Some((mse_body, alias)) = pusher.mse else {
        return Ok(Some(Outcome {
            node,
            cut: None,
            absorbed: vec![],
            did_split: pusher.did_split,
        }));
    };
    let Expr::Alias { name, idxs } = alias else {
        unreachable!("extract returns an alias")
    };
    let q = LogicalQuery {
        name,
        idxs,
        agg: Some(*g),
        agg_idxs: vec![x.clone()],
        body: mse_body,
    };
    let after = After {
        state,
        path,
        node: &node,
    };
    let (cut, absorbed) = absorb(ctx, &after, q)?;
    Ok(Some(Outcome {
        node,
        cut: Some(cut),
        absorbed,
        did_split: pusher.did_split,
    }))
}

/// A state as it is after a move, without building it: its aggregate at `path` replaced by
/// `node` and the query cut out not yet added.
struct After<'s> {
    state: &'s State,
    path: &'s [usize],
    node: &'s Expr,
}

impl After<'_> {
    /// How many times `name` is read by the residual and by the queries not in `absorbed`.
    fn uses(&self, name: &str, absorbed: &[(String, f64)]) -> usize {
        let residual = refs(&self.state.expr, name) - refs(at(&self.state.expr, self.path), name)
            + refs(self.node, name);
        let queries: usize = self
            .state
            .queries
            .iter()
            .filter(|p| !absorbed.iter().any(|(a, _)| *a == p.q.name))
            .map(|p| refs(&p.q.body, name))
            .sum();
        residual + queries
    }
}

/// Earlier queries of this elimination that `q`'s body could absorb (positions in the state's
/// queries, none of `absorbed`): referenced once, directly under a map distributing over their
/// aggregate (or as the whole body), same aggregate.
fn absorbable(after: &After, absorbed: &[(String, f64)], q: &LogicalQuery) -> Vec<usize> {
    let Some(g) = q.agg else { return vec![] };
    let direct: Vec<&Expr> = match &q.body {
        a @ Expr::Alias { .. } => vec![a],
        Expr::Map { op, args }
            if op.distributes_over(g) && op.props().commutative && op.props().associative =>
        {
            args.iter().collect()
        }
        _ => vec![],
    };
    let queries = &after.state.queries;
    let mut out = vec![];
    for a in direct {
        let Expr::Alias { name, .. } = a else {
            continue;
        };
        if absorbed.iter().any(|(n, _)| n == name) {
            continue;
        }
        if let Some(k) = queries.iter().position(|p| &p.q.name == name) {
            if queries[k].q.agg == Some(g) && after.uses(name, absorbed) == 0 {
                out.push(k);
            }
        }
    }
    out
}

/// How many times `name` is read in `e`.
fn refs(e: &Expr, name: &str) -> usize {
    let mut n = 0;
    e.for_each_access(&mut |a| {
        if matches!(a, Expr::Alias { name: m, .. } if m == name) {
            n += 1;
        }
    });
    n
}

/// How many times `name` is referenced by the residual and the planned queries.
fn uses(state: &State, name: &str) -> usize {
    refs(&state.expr, name)
        + state
            .queries
            .iter()
            .map(|p| refs(&p.q.body, name))
            .sum::<usize>()
}

/// `q` with the earlier query `p` (referenced in its body) inlined.
fn fuse(q: &LogicalQuery, p: &LogicalQuery) -> LogicalQuery {
    let inline = |e: &Expr| -> Vec<Expr> {
        match e {
            Expr::Alias { name, idxs } if name == &p.name => {
                match &rename_free(&p.body, &p.idxs, idxs) {
                    Expr::Map { op, args } if matches!(&q.body, Expr::Map { op: o, .. } if o == op) => {
                        args.clone()
                    }
                    other => vec![other.clone()],
                }
            }
            other => vec![other.clone()],
        }
    };
    let body = match &q.body {
        Expr::Map { op, args } => rebuild_map(op, args.iter().flat_map(inline).collect()),
        a => inline(a).pop().expect("one expression"),
    };
    let mut agg_idxs = p.agg_idxs.clone();
    agg_idxs.extend(q.agg_idxs.iter().cloned());
    LogicalQuery {
        name: q.name.clone(),
        idxs: q.idxs.clone(),
        agg: q.agg,
        agg_idxs,
        body,
    }
}

/// `q` priced after absorbing earlier queries into it while that lowers the cost, with the
/// names and costs of those it absorbed, in order.
fn absorb(
    ctx: &Ctx,
    after: &After,
    q: LogicalQuery,
) -> Result<(Planned, Vec<(String, f64)>), TensorError> {
    let queries = &after.state.queries;
    let mut absorbed = vec![];
    let mut current = ctx.plan_query(q)?;
    loop {
        let mut best: Option<(usize, Planned, f64)> = None;
        for k in absorbable(after, &absorbed, &current.q) {
            let fused = ctx.plan_query(fuse(&current.q, &queries[k].q))?;
            let saving = current.cost + queries[k].cost - fused.cost;
            if saving > 0.0 && best.as_ref().is_none_or(|b| saving > b.2) {
                best = Some((k, fused, saving));
            }
        }
        match best {
            Some((k, fused, _)) => {
                absorbed.push((queries[k].q.name.clone(), queries[k].cost));
                current = fused;
            }
            None => {
                // Re-records statistics and structural id under the shared name (a memo hit).
                ctx.plan_query(current.q.clone())?;
                break;
            }
        }
    }
    Ok((current, absorbed))
}

impl Ctx<'_> {
    /// Whether `q` is `sum[k](A * B)` with `A` and `B` accesses of order 1 or 2 (one of order
    /// 2) that share only `k` and are both estimated at least half full (stored dense, as the
    /// engine stores such inputs): a dense matrix product, priced with
    /// [`CostModel::dense_product`].
    fn is_dense_product(&self, q: &LogicalQuery) -> Result<bool, TensorError> {
        let (Some(AggOp::Sum), [k]) = (q.agg, q.agg_idxs.as_slice()) else {
            return Ok(false);
        };
        let Expr::Map {
            op: MapOp::Mul,
            args,
        } = &q.body
        else {
            return Ok(false);
        };
        let [a, b] = args.as_slice() else {
            return Ok(false);
        };
        let mut orders = vec![];
        let mut seen: Vec<&Idx> = vec![];
        for x in [a, b] {
            let (Expr::Input { idxs, .. } | Expr::Alias { idxs, .. }) = x else {
                return Ok(false);
            };
            if !idxs.contains(k) || idxs.len() > 2 {
                return Ok(false);
            }
            // Apart from `k`, no index in both operands (`X[i,j] * X[i,j]` is no product).
            if idxs.iter().any(|i| i != k && seen.contains(&i)) {
                return Ok(false);
            }
            seen.extend(idxs.iter());
            let cells: f64 = idxs.iter().map(|i| self.size(i) as f64).product();
            if self.stats(x)?.estimate() < 0.5 * cells {
                return Ok(false);
            }
            orders.push(idxs.len());
        }
        Ok(orders.contains(&2))
    }
}

/// Turns a residual without aggregates into the program query's final logical query (named
/// `name`, indices `idxs`), reusing or absorbing the last cut-out query when that is cheaper
/// than a separate pointwise pass.
pub fn finish(ctx: &Ctx, mut state: State, name: &str, idxs: &[Idx]) -> Result<State, TensorError> {
    debug_assert!(!state.expr.has_agg());
    // The residual is exactly an earlier query's result: rename that query.
    if let Expr::Alias { name: p, idxs: a } = &state.expr {
        let same_set = a.len() == idxs.len() && a.iter().all(|i| idxs.contains(i));
        if let Some(k) = state.queries.iter().position(|q| &q.q.name == p) {
            if same_set && uses(&state, p) == 1 {
                let mut planned = state.queries.remove(k);
                state.cost -= planned.cost;
                // Its index names are the alias's (they are the query's own) in output order.
                planned.q.name = name.to_string();
                planned.q.idxs = idxs.to_vec();
                let planned = ctx.plan_query(planned.q)?;
                state.cost += planned.cost;
                state.queries.push(planned);
                return Ok(state);
            }
        }
    }
    let q = LogicalQuery {
        name: name.to_string(),
        idxs: idxs.to_vec(),
        agg: None,
        agg_idxs: vec![],
        body: state.expr.clone(),
    };
    let plain = ctx.plan_query(q.clone())?;
    // Absorb: `op(P, others)` with `op` distributing over P's aggregate becomes P's query with
    // `others` multiplied in (`L[i] * sum[j](...)` as one kernel), if that costs less than P
    // plus a separate pointwise pass.
    let mut best: Option<(usize, Planned)> = None;
    let mut best_delta = plain.cost;
    if let Expr::Map { op, args } = &state.expr {
        let props = op.props();
        for (k, p) in state.queries.iter().enumerate() {
            let Some(g) = p.q.agg else { continue };
            // The operator first: counting uses reads the whole state, for every query.
            if !op.distributes_over(g) || !props.commutative || !props.associative {
                continue;
            }
            let hits = args
                .iter()
                .filter(|a| matches!(a, Expr::Alias { name, .. } if name == &p.q.name))
                .count();
            if hits != 1 || uses(&state, &p.q.name) != 1 {
                continue;
            }
            let as_agg = LogicalQuery {
                agg: Some(g),
                ..q.clone()
            };
            let fused = ctx.plan_query(fuse(&as_agg, &p.q))?;
            let delta = fused.cost - p.cost;
            if delta < best_delta {
                best_delta = delta;
                best = Some((k, fused));
            }
        }
    }
    let chosen = match best {
        Some((k, fused)) => {
            let old = state.queries.remove(k);
            state.cost -= old.cost;
            fused
        }
        None => ctx.plan_query(q)?,
    };
    state.cost += chosen.cost;
    state.queries.push(chosen);
    Ok(state)
}
