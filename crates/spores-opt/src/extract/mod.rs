//! Extraction: the cheapest LA plan in a saturated e-graph.
//!
//! [`Snapshot::read`] copies the e-graph out of egglog into plain vectors (so extractors
//! are engine-independent and an ILP extractor can plug in beside the greedy one).
//!
//! # The plan is a term the rules derived
//!
//! The way back from relations to LA is stated as rules (`rules/raise.egg`): `Unbind i j
//! R` is relation `R` laid out as a matrix with rows `i` and columns `j` (`NoIx` for a
//! dimension of size 1), and each rule equates a demanded `Unbind` with an LA operator
//! over `Unbind`s of the operands. [`Snapshot::raise`] derives the same LA terms on the
//! snapshot (`raise.rs`), after [`Snapshot::fuse`] has added the fused operators the
//! fusion rules (`rules/fuse.egg`) derive (`fuse.rs`); `crate::saturate` runs the rules
//! themselves in egglog when a user's rules may extend them.
//! Only the roots' orientations are demanded at first, so only classes reachable from a
//! root, in orientations an LA operator reads them in, get LA terms, and only relations
//! with at most two free indices (a demand names two indices at most):
//!
//! | relational e-node under `Unbind i j` | LA e-node the rules add |
//! |---|---|
//! | `Join a b` / `Union a b` | `a * b` / `a + b` (operands without `i` or `j` unbound with `NoIx` there: broadcasting) |
//! | `Union a (Join -1 b)` / `Join -1 b` | `a - b` / `-b` |
//! | `Agg k x`, `k` not free in `x` | `x * LDim(k)` |
//! | `Agg k x`, `x` over `k` (and `i` or `j`) | `sum` / `rowSums` / `colSums`; `Agg k (Agg l y)` as one `sum` |
//! | `Agg k (Join a b)`, `a` over `i, k`, `b` over `k, j` | `a %*% b` |
//! | `Bind i j A` / `Bind j i A` | the user's term `A` / `t(A)` |
//! | `Lit c`, `DimOf k`, `RF1`/`RF2`/`RPow` | constant, size, the custom function |
//! | fused nodes (`fuse.egg`) | their LA constructors (`LWsloss`, `LMmchain`, ...; see [`crate::fused`]) |
//! | any (`i != j`) | `t(Unbind j i R)`: computed the other way round, transposed once |
//!
//! `raised` builds the extraction problem from the LA classes: every LA e-node is a
//! candidate priced by the calibrated kernel costs ([`crate::cost`]) from its class's
//! shape and its operands' estimated sparsity; candidates whose operand shapes do not fit
//! are priced infinite. What the cost model knows beyond single operators is added as
//! candidates: a product reads a transposed operand in place (`t(A) %*% B` costs no
//! transpose), and `*`/`+` take either operand order (broadcasting is not symmetric).
//!
//! # Fallback: reading LA off relational classes
//!
//! When the LA classes give no plan for some root (raising did not run or did not reach
//! the root), the earlier reader is used:
//! `greedy` reads LA operators off *relational* classes by a fixed table (an `Agg` over a
//! `Join` of two ≤2-index classes is a product, and so on) and inserts transposes for
//! orientation. [`ExtractionReport::table_fallback`] says when that happened and why.
//!
//! # Two extractors, one cost
//!
//! Both choose one LA candidate per class used ([`dag::Selection`]) and are compared by
//! [`dag::dag_cost`], which pays a shared class once. [`Extractor::Greedy`] picks by tree
//! cost (SPORES §3.1's greedy, blind to sharing); [`Extractor::Ilp`] solves Figure 11's
//! ILP (`ilp`) with greedy's plan as bound and incumbent, within a time budget, and falls
//! back to greedy when the budget runs out or the solver fails ([`ExtractionReport`] says
//! so). The ILP never returns a plan that is dearer than greedy's.
//!
//! Several roots (a block's, [`Snapshot::roots`]) are one problem: a synthetic class past
//! the e-graph's, whose one candidate costs nothing and needs every root, is the root of
//! the [`dag::CandGraph`], so the ILP pays a class the roots share once.
//!
//! Measured extraction time *with the relational table reader*, before raising (2 shared cores, test profile = opt-level 2, best of 3;
//! e-graphs saturated with default limits; ILP time includes the greedy pass that bounds
//! it and emitting LA; `tests/ilp.rs::ilp_vs_greedy_extraction_time` prints this table):
//!
//! | expression | e-nodes | ILP binaries | greedy | ILP |
//! |---|---|---|---|---|
//! | `sum((X - U %*% t(V))^2)`, sparse `X` | 2558 | 4 | 0.5 ms | 0.9 ms |
//! | ALS `(U %*% t(V) - X) %*% V`, sparse `X` | 64 | 15 | 0.24 ms | 0.5 ms |
//! | `sum(W %*% H)` | 30 | 8 | 0.07 ms | 0.24 ms |
//! | 14 operators (`mmchain` + `wsloss` + chain) | 2930 | 205 | 1.3 ms | 195-375 ms |
//!
//! Over LA classes (this extractor, same test, load 7.7 so times are inflated):
//!
//! | expression | e-nodes | ILP binaries | greedy | ILP |
//! |---|---|---|---|---|
//! | `sum((X - U %*% t(V))^2)`, sparse `X` | 7897 | 4 | 1.9 ms | 7.3 ms |
//! | ALS `(U %*% t(V) - X) %*% V`, sparse `X` | 171 | 35 | 0.06 ms | 0.45 ms |
//! | `sum(W %*% H)` | 134 | 38 | 0.05 ms | 1.1 ms |
//! | 14 operators (`mmchain` + `wsloss` + chain) | 7126 | 575 | 1.6 ms | budget (500 ms) hit: greedy's plan |
//!
//! The first three are proven optimal; the 14-operator instance has almost three times
//! the binaries it had over relational classes and no longer solves within the default
//! budget, so the ILP falls back to greedy there.
//!
//! With the relational reader, all four were proven optimal and extracted the same plan as greedy. On 120 random
//! expressions with frequent common subexpressions the ILP's LA plan was strictly cheaper
//! in 15, median ILP time 0.26 ms, 90th percentile 6 ms, worst 0.9 s (so with the
//! default 500 ms budget a few large instances fall back to greedy). Without the
//! lower-bound and dominance pruning the 14-operator case (then 965 binaries) took 7.6 s.

mod as_written;
mod candidate;
mod error;
mod fuse;
mod greedy;
mod masked;
mod raise;
mod raised;

use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;
use std::time::{Duration, Instant};

use egglog::sort::F;
use egglog::{EGraph, Value};

use crate::fused;
pub use crate::fused::Fused;
use crate::la::LaExpr;
use crate::tables::Tables;

pub use as_written::extract_as_written;
pub use error::ExtractError;
pub use greedy::extract_greedy;
pub use masked::{MASK_DENSITY, MAX_RANK};
/// The extraction problem and the ILP extractor live in their own crate, shared with
/// `spores-mlir`; they are re-exported here under their old paths.
pub use spores_extract::{dag, ilp};

/// The constructors of the core language (`rules/lang.egg`), LA terms first.
const CORE_CONSTRUCTORS: &[&str] = &[
    "LVar", "LConst",
    // Candidates of equal cost are chosen in this order: the user's `x^2` before the
    // `x * x` raising derives, sums before transposes.
    "LPow", "LAdd", "LSub", "LMul", "LMM", "LNeg", "LSum", "LRowSums", "LColSums", "LT", "LF1",
    "LF2", "LDim",
    // (The fused operators' LA constructors go here: see `constructors`.)
    "Unbind", "LaRoot", "Bind", "Join", "Union", "Agg", "Lit", "DimOf", "RF1", "RF2", "RPow",
    "Rename",
];

/// Every constructor table, for reading and for counting e-nodes: the core language's and
/// the fused operators' ([`crate::fused::CATALOGUE`]), LA constructors before relational
/// ones. Candidates of equal cost are chosen in this order.
pub fn constructors() -> impl Iterator<Item = &'static str> {
    let core_la = CORE_CONSTRUCTORS.iter().take_while(|n| **n != "Unbind");
    let core_rest = CORE_CONSTRUCTORS.iter().skip_while(|n| **n != "Unbind");
    let fused = || fused::CATALOGUE.iter().filter_map(|op| op.constructors);
    core_la
        .copied()
        .chain(fused().map(|(la, _)| la))
        .chain(core_rest.copied())
        .chain(fused().map(|(_, rel)| rel))
}

/// Which extraction algorithm to use. Parses from `"greedy"` and `"ilp"` (the latter
/// with [`Extractor::DEFAULT_ILP_TIME`]) or `"ilp:<ms>"`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Extractor {
    /// Bottom-up fixpoint of tree costs: fast, but a shared subexpression is priced once
    /// per use while choosing, so it can miss plans that win by sharing (Figure 10).
    #[default]
    Greedy,
    /// Figure 11's ILP: minimum DAG cost (shared subexpressions paid once) among the
    /// acyclic LA plans. Solving (with model building) gets `time_limit`; past it, or
    /// on any solver failure, extraction falls back to greedy.
    Ilp { time_limit: Duration },
}

impl Extractor {
    /// The budget `"ilp"` parses to: long enough for the paper's examples (which solve
    /// in milliseconds) and short enough not to dominate optimization time.
    pub const DEFAULT_ILP_TIME: Duration = Duration::from_millis(500);

    /// The ILP extractor with the default budget.
    pub fn ilp() -> Extractor {
        Extractor::Ilp {
            time_limit: Self::DEFAULT_ILP_TIME,
        }
    }
}

impl fmt::Display for Extractor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Extractor::Greedy => write!(f, "greedy"),
            Extractor::Ilp { time_limit } if *time_limit == Self::DEFAULT_ILP_TIME => {
                write!(f, "ilp")
            }
            Extractor::Ilp { time_limit } => write!(f, "ilp:{}", time_limit.as_millis()),
        }
    }
}

impl FromStr for Extractor {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let s = s.trim();
        match s.to_ascii_lowercase().as_str() {
            "greedy" => Ok(Extractor::Greedy),
            "ilp" => Ok(Extractor::ilp()),
            other => match other.strip_prefix("ilp:") {
                Some(ms) => ms
                    .trim()
                    .parse::<u64>()
                    .map(|ms| Extractor::Ilp {
                        time_limit: Duration::from_millis(ms),
                    })
                    .map_err(|_| format!("`{s}`: expected ilp:<milliseconds>")),
                None => Err(format!(
                    "unknown extractor `{s}` (expected `greedy`, `ilp` or `ilp:<ms>`)"
                )),
            },
        }
    }
}

/// What extraction did.
#[derive(Clone, Debug, PartialEq)]
pub struct ExtractionReport {
    /// The extractor asked for.
    pub requested: Extractor,
    /// The extractor whose plan was emitted: `Greedy` after a fallback.
    pub used: Extractor,
    /// Why the ILP's plan was not used (time limit, instance too large, solver error).
    pub fell_back: Option<String>,
    /// The ILP proved its plan optimal (false for greedy and for an incumbent found
    /// before the time limit).
    pub proven_optimal: bool,
    /// [`dag::dag_cost`] of the emitted selection, in the cost model's units.
    pub dag_cost: f64,
    /// [`dag::dag_cost`] of greedy's selection, for comparison.
    pub greedy_dag_cost: f64,
    /// Binary variables of the ILP after pruning (0 when no ILP was built).
    pub binaries: usize,
    /// Wall time of extraction, including the greedy pass and emitting LA.
    pub time: Duration,
    /// `None`: the plan is a term the raising rules derived (extraction over LA
    /// classes). `Some(why)`: those gave no plan, and LA operators were read off the
    /// relational classes by the table reader instead.
    pub table_fallback: Option<String>,
}

/// An extracted plan and how it was found.
#[derive(Clone, Debug)]
pub struct Extraction {
    /// The plan of the (first) root.
    pub expr: LaExpr,
    /// The plans of all roots ([`Snapshot::roots`]), extracted jointly.
    pub exprs: Vec<LaExpr>,
    pub report: ExtractionReport,
}

impl Extraction {
    fn new(exprs: Vec<LaExpr>, report: ExtractionReport) -> Result<Self, ExtractError> {
        let expr = exprs
            .first()
            .cloned()
            .ok_or_else(|| ExtractError::internal("no root"))?;
        Ok(Extraction {
            expr,
            exprs,
            report,
        })
    }
}

/// An index: position in [`Snapshot::ix_dims`].
pub type Ix = usize;
/// A relational class: position in [`Snapshot::r_classes`].
pub type RId = usize;
/// An LA class: position in [`Snapshot::m_classes`].
pub type MId = usize;

#[derive(Clone, Debug, PartialEq)]
pub enum RNode {
    Bind(Ix, Ix, MId),
    Join(RId, RId),
    Union(RId, RId),
    Agg(Ix, RId),
    Lit(f64),
    DimOf(Ix),
    F1(usize, RId),
    F2(usize, RId, RId),
    Pow(RId, f64),
    Fused(Fused, [Ix; 3], Vec<RId>),
    Sprop(RId),
    /// A rename not (yet) pushed down: never extracted.
    Rename,
}

#[derive(Clone, Debug, PartialEq)]
pub enum MNode {
    Var(usize),
    Const(f64),
    Add(MId, MId),
    Sub(MId, MId),
    Mul(MId, MId),
    MatMul(MId, MId),
    T(MId),
    Neg(MId),
    Sum(MId),
    RowSums(MId),
    ColSums(MId),
    Pow(MId, f64),
    F1(usize, MId),
    F2(usize, MId, MId),
    /// The size of an index (raising only).
    Dim(Ix),
    /// A fused kernel over LA operands (raising only), in the order of
    /// [`crate::fused::CATALOGUE`]: `X, U, V` for the losses, `X, v[, w]` for `mmchain`.
    Fused(Fused, Vec<MId>),
    /// A relation laid out as a matrix: a demand for LA terms, not an operator.
    Unbind(Ix, Ix, RId),
    /// Marks root `k`'s LA class: not an operator.
    Root(usize),
}

#[derive(Clone, Debug, Default)]
pub struct RClass {
    pub nodes: Vec<RNode>,
    /// Free indices, sorted; `None` when no e-node gave one (unreachable by rules).
    pub schema: Option<Vec<Ix>>,
    pub sparsity: f64,
}

#[derive(Clone, Debug, Default)]
pub struct MClass {
    pub nodes: Vec<MNode>,
    pub rows: Option<i64>,
    pub cols: Option<i64>,
    /// Estimated sparsity (`lsp`), where known.
    pub sparsity: Option<f64>,
}

/// The e-graph as plain data.
pub struct Snapshot<'t> {
    pub r_classes: Vec<RClass>,
    pub m_classes: Vec<MClass>,
    /// Dimension code of each index, where known.
    pub ix_dims: Vec<Option<i64>>,
    /// The first root (for a single expression, the only one).
    pub root: RId,
    /// Every root, in the order they were encoded; extracted jointly.
    pub roots: Vec<RId>,
    /// The LA class of each root (its `LaRoot` mark), by root number; `None` when the
    /// mark is not in the graph.
    pub la_roots: Vec<Option<MId>>,
    pub tables: &'t Tables,
}

#[derive(Default)]
struct Ids {
    r: HashMap<Value, RId>,
    m: HashMap<Value, MId>,
    ix: HashMap<Value, Ix>,
}

impl Ids {
    fn r(&mut self, v: Value) -> RId {
        let n = self.r.len();
        *self.r.entry(v).or_insert(n)
    }
    fn m(&mut self, v: Value) -> MId {
        let n = self.m.len();
        *self.m.entry(v).or_insert(n)
    }
    fn ix(&mut self, v: Value) -> Ix {
        let n = self.ix.len();
        *self.ix.entry(v).or_insert(n)
    }
}

impl<'t> Snapshot<'t> {
    /// Reads every constructor table and the `schema`-relevant facts out of `eg`; the
    /// root is the class marked `root-mark`.
    pub fn read(eg: &EGraph, tables: &'t Tables) -> Result<Snapshot<'t>, ExtractError> {
        Self::read_roots(eg, tables, &[])
    }

    /// [`Snapshot::read`] for several roots: `roots` are their canonical e-classes
    /// (see `saturate`, which looks up each root's bind). With none, the `root-mark`.
    pub fn read_roots(
        eg: &EGraph,
        tables: &'t Tables,
        roots: &[Value],
    ) -> Result<Snapshot<'t>, ExtractError> {
        let mut ids = Ids::default();
        let (r_nodes, m_nodes) = read_enodes(eg, &mut ids)?;
        let mut r_classes = vec![RClass::default(); ids.r.len()];
        for (c, n) in r_nodes {
            r_classes[c].nodes.push(n);
        }
        let mut m_classes = vec![MClass::default(); ids.m.len()];
        for (c, n) in m_nodes {
            m_classes[c].nodes.push(n);
        }
        let mut ix_dims = vec![None; ids.ix.len()];
        read_class_facts(eg, &ids, &mut r_classes, &mut m_classes, &mut ix_dims)?;
        let roots = root_classes(eg, &ids, roots)?;
        let mut la_roots = vec![None; roots.len()];
        for (c, class) in m_classes.iter().enumerate() {
            for n in &class.nodes {
                if let MNode::Root(k) = n {
                    if let Some(slot) = la_roots.get_mut(*k) {
                        *slot = Some(c);
                    }
                }
            }
        }
        let mut snap = Snapshot {
            r_classes,
            m_classes,
            ix_dims,
            root: roots[0],
            roots,
            la_roots,
            tables,
        };
        snap.compute_schemas();
        Ok(snap)
    }

    /// Free indices of every class, recomputed from the e-nodes (egglog has already
    /// checked that all e-nodes of a class agree).
    fn compute_schemas(&mut self) {
        loop {
            let mut changed = false;
            for c in 0..self.r_classes.len() {
                if self.r_classes[c].schema.is_some() {
                    continue;
                }
                let found = self.r_classes[c]
                    .nodes
                    .iter()
                    .find_map(|n| self.node_schema(n));
                if let Some(s) = found {
                    self.r_classes[c].schema = Some(s);
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
    }

    fn node_schema(&self, n: &RNode) -> Option<Vec<Ix>> {
        let s = |c: RId| self.r_classes[c].schema.clone();
        let union = |a: Vec<Ix>, b: Vec<Ix>| {
            let mut v = a;
            v.extend(b);
            v.sort_unstable();
            v.dedup();
            v
        };
        match n {
            RNode::Bind(i, j, m) => {
                let m = &self.m_classes[*m];
                let mut v = Vec::new();
                if m.rows? != 1 {
                    v.push(*i);
                }
                if m.cols? != 1 {
                    v.push(*j);
                }
                v.sort_unstable();
                v.dedup();
                Some(v)
            }
            RNode::Join(a, b) | RNode::Union(a, b) | RNode::F2(_, a, b) => {
                Some(union(s(*a)?, s(*b)?))
            }
            RNode::Agg(i, a) => Some(s(*a)?.into_iter().filter(|x| x != i).collect()),
            RNode::Lit(_) | RNode::DimOf(_) => Some(vec![]),
            RNode::F1(_, a) | RNode::Pow(a, _) | RNode::Sprop(a) => s(*a),
            RNode::Fused(Fused::Mmchain | Fused::MmchainW, [_, j, l], args) => {
                let v = s(*args.get(1)?)?;
                Some(union(v.into_iter().filter(|x| x != l).collect(), vec![*j]))
            }
            RNode::Fused(Fused::Tsmm, [_, j, l], _) => {
                let mut v = vec![*j, *l];
                v.sort_unstable();
                Some(v)
            }
            // A scalar result has no free index; any other operator's schema is left to
            // the class's other nodes.
            RNode::Fused(kind, ..) => {
                (fused::op(*kind).result == fused::ResultShape::Scalar).then(Vec::new)
            }
            RNode::Rename => None,
        }
    }

    /// Fusion: adds every fused e-node the fusion rules (`rules/fuse.egg`) derive to the
    /// class at the top of its pattern (`extract/fuse.rs`).
    pub fn fuse(&mut self) {
        fuse::fuse(self);
    }

    /// The way back to LA: replaces the LA classes read from the e-graph (the user's
    /// terms and the roots' demands) by every LA term the raising rules derive for the
    /// classes reachable from a root (`extract/raise.rs`), and finds each root's LA class.
    pub fn raise(&mut self) {
        raise::raise(self);
    }

    pub fn enode_count(&self) -> usize {
        self.r_classes.iter().map(|c| c.nodes.len()).sum::<usize>()
            + self.m_classes.iter().map(|c| c.nodes.len()).sum::<usize>()
    }

    pub fn class_count(&self) -> usize {
        self.r_classes.len() + self.m_classes.len()
    }

    /// Numeric size of an index for the cost model.
    pub fn ix_size(&self, ix: Ix) -> f64 {
        match self.ix_dims.get(ix).copied().flatten() {
            Some(code) => self.tables.code_size(code),
            None => crate::cost::DEFAULT_DIM,
        }
    }

    pub fn schema(&self, c: RId) -> Option<&[Ix]> {
        self.r_classes.get(c)?.schema.as_deref()
    }

    /// Whether class `c`'s free indices are exactly `of` (in any order).
    pub fn schema_is(&self, c: RId, of: &[Ix]) -> bool {
        let s = self.schema(c).unwrap_or(&[]);
        s.len() == of.len() && of.iter().all(|i| s.contains(i))
    }

    /// Whether class `c` holds the constant `x`.
    pub fn has_lit(&self, c: RId, x: f64) -> bool {
        self.r_classes[c]
            .nodes
            .iter()
            .any(|n| matches!(n, RNode::Lit(y) if *y == x))
    }

    /// The `b` of every `Join (Lit -1) b` in class `c`: what `c` is the negation of.
    pub fn negated(&self, c: RId) -> Vec<RId> {
        self.r_classes[c]
            .nodes
            .iter()
            .filter_map(|n| match n {
                RNode::Join(l, b) if self.has_lit(*l, -1.0) => Some(*b),
                _ => None,
            })
            .collect()
    }
}

/// The extraction problem of `snap` as a [`dag::CandGraph`]: the LA classes' candidates
/// when raising reached every root, else the relational classes' as the table reads them.
pub fn problem(snap: &Snapshot) -> dag::CandGraph {
    match raised::Raised::new(snap) {
        Ok(r) => r.graph().clone(),
        Err(_) => greedy::Greedy::new(snap).graph().clone(),
    }
}

/// What the ILP-or-greedy driver needs from an extraction problem (over LA classes,
/// [`raised`], or relational ones, [`greedy`]): the graph, and LA for a selection.
trait Problem {
    /// The extraction problem both extractors solve.
    fn graph(&self) -> &dag::CandGraph;
    /// Emit `sel`'s choices from now on (`None`: greedy's own).
    fn force(&mut self, sel: Option<dag::Selection>);
    /// The LA expression of every root, in order, under the current selection.
    fn emit_roots(&mut self) -> Result<Vec<LaExpr>, ExtractError>;
}

/// Extracts the cheapest LA expressions for the root classes with `extractor` (jointly:
/// with several roots, shared classes are paid once). The plan is chosen among the LA
/// terms the raising rules derived (`raised`); only when that yields no plan for every
/// root (raising did not run, or a limit left a root without LA terms) are LA operators
/// read off the relational classes by the table reader (`greedy`), and the report says
/// why ([`ExtractionReport::table_fallback`]). Errors only when neither emits a plan.
pub fn extract(snap: &Snapshot, extractor: Extractor) -> Result<Extraction, ExtractError> {
    let start = Instant::now();
    let rules = raised::Raised::new(snap).and_then(|mut p| solve(&mut p, snap, extractor, start));
    match rules {
        Ok(x) => Ok(x),
        Err(why) => {
            let mut g = greedy::Greedy::new(snap);
            let mut x = solve(&mut g, snap, extractor, start)?;
            x.report.table_fallback = Some(why.to_string());
            Ok(x)
        }
    }
}

fn solve(
    g: &mut dyn Problem,
    snap: &Snapshot,
    extractor: Extractor,
    start: Instant,
) -> Result<Extraction, ExtractError> {
    let greedy_sel = g.graph().greedy_selection();
    let greedy_dag_cost = dag::dag_cost(g.graph(), &greedy_sel).unwrap_or(f64::NAN);
    let mut report = ExtractionReport {
        requested: extractor,
        used: Extractor::Greedy,
        fell_back: None,
        proven_optimal: false,
        dag_cost: greedy_dag_cost,
        greedy_dag_cost,
        binaries: 0,
        time: Duration::ZERO,
        table_fallback: None,
    };
    if let Extractor::Ilp { time_limit } = extractor {
        let budget = time_limit.saturating_sub(start.elapsed());
        match ilp::solve(g.graph(), &greedy_sel, budget) {
            Ok(sol) => {
                report.binaries = sol.binaries;
                g.force(Some(sol.selection));
                let ilp_exprs = g.emit_roots();
                g.force(None);
                let greedy_exprs = g.emit_roots();
                let env = &snap.tables.env;
                let la = |e: &[LaExpr]| crate::cost::la_cost_all(e, env).unwrap_or(f64::INFINITY);
                match (ilp_exprs, greedy_exprs) {
                    (Err(e), _) => {
                        report.fell_back = Some(format!("the ILP plan cannot be emitted: {e}"));
                    }
                    // The graph's costs can be blind to sharing the LA cost sees (two
                    // classes that emit the same term, e.g. `A %*% A` bound to different
                    // indices), so the plans are compared as LA too, and the ILP never
                    // returns the dearer one.
                    (Ok(ie), Ok(ge)) if la(&ge) < la(&ie) => {
                        report.fell_back = Some(format!(
                            "greedy's LA plan is cheaper ({:e} < {:e}) although its e-graph \
                             cost is not ({:e} >= {:e})",
                            la(&ge),
                            la(&ie),
                            greedy_dag_cost,
                            sol.cost
                        ));
                        report.time = start.elapsed();
                        return Extraction::new(ge, report);
                    }
                    (Ok(exprs), _) => {
                        report.used = extractor;
                        report.proven_optimal = sol.proven_optimal;
                        report.dag_cost = sol.cost;
                        report.time = start.elapsed();
                        return Extraction::new(exprs, report);
                    }
                }
            }
            Err(fail) => {
                report.binaries = fail.binaries;
                report.fell_back = Some(fail.reason);
            }
        }
    }
    let exprs = g.emit_roots()?;
    report.time = start.elapsed();
    Extraction::new(exprs, report)
}

/// Every e-node of the constructor tables, by class.
#[allow(clippy::type_complexity)]
fn read_enodes(
    eg: &EGraph,
    ids: &mut Ids,
) -> Result<(Vec<(RId, RNode)>, Vec<(MId, MNode)>), ExtractError> {
    let mut r_nodes = Vec::new();
    let mut m_nodes = Vec::new();
    for name in constructors() {
        let mut err = None;
        eg.constructor_enodes(name, |en| match decode_enode(eg, name, en.children, ids) {
            Some(Ok(r)) => r_nodes.push((ids.r(en.eclass), r)),
            Some(Err(m)) => m_nodes.push((ids.m(en.eclass), m)),
            None => err = Some(ExtractError::UnexpectedShape { constructor: name }),
        })?;
        if let Some(e) = err {
            return Err(e);
        }
    }
    Ok((r_nodes, m_nodes))
}

/// One e-node of a constructor table: a relational node (`Ok`) or an LA node (`Err`),
/// or `None` when its shape is not the constructor's.
fn decode_enode(
    eg: &EGraph,
    name: &str,
    c: &[Value],
    ids: &mut Ids,
) -> Option<Result<RNode, MNode>> {
    let arity_ok = |n: usize| c.len() == n;
    let f = |v: Value| -> f64 { eg.value_to_base::<F>(v).0.into_inner() };
    let idx = |v: Value| -> usize { usize::try_from(eg.value_to_base::<i64>(v)).unwrap_or(0) };
    match name {
        "LVar" if arity_ok(1) => Some(Err(MNode::Var(idx(c[0])))),
        "LConst" if arity_ok(1) => Some(Err(MNode::Const(f(c[0])))),
        "LAdd" | "LSub" | "LMul" | "LMM" if arity_ok(2) => {
            let (a, b) = (ids.m(c[0]), ids.m(c[1]));
            Some(Err(match name {
                "LAdd" => MNode::Add(a, b),
                "LSub" => MNode::Sub(a, b),
                "LMul" => MNode::Mul(a, b),
                _ => MNode::MatMul(a, b),
            }))
        }
        "LT" | "LNeg" | "LSum" | "LRowSums" | "LColSums" if arity_ok(1) => {
            let a = ids.m(c[0]);
            Some(Err(match name {
                "LT" => MNode::T(a),
                "LNeg" => MNode::Neg(a),
                "LSum" => MNode::Sum(a),
                "LRowSums" => MNode::RowSums(a),
                _ => MNode::ColSums(a),
            }))
        }
        "LPow" if arity_ok(2) => Some(Err(MNode::Pow(ids.m(c[0]), f(c[1])))),
        "LF1" if arity_ok(2) => Some(Err(MNode::F1(idx(c[0]), ids.m(c[1])))),
        "LF2" if arity_ok(3) => Some(Err(MNode::F2(idx(c[0]), ids.m(c[1]), ids.m(c[2])))),
        "LDim" if arity_ok(1) => Some(Err(MNode::Dim(ids.ix(c[0])))),
        "Unbind" if arity_ok(3) => {
            Some(Err(MNode::Unbind(ids.ix(c[0]), ids.ix(c[1]), ids.r(c[2]))))
        }
        "LaRoot" if arity_ok(1) => Some(Err(MNode::Root(idx(c[0])))),
        "Bind" if arity_ok(3) => Some(Ok(RNode::Bind(ids.ix(c[0]), ids.ix(c[1]), ids.m(c[2])))),
        "Join" if arity_ok(2) => Some(Ok(RNode::Join(ids.r(c[0]), ids.r(c[1])))),
        "Union" if arity_ok(2) => Some(Ok(RNode::Union(ids.r(c[0]), ids.r(c[1])))),
        "Agg" if arity_ok(2) => Some(Ok(RNode::Agg(ids.ix(c[0]), ids.r(c[1])))),
        "Lit" if arity_ok(1) => Some(Ok(RNode::Lit(f(c[0])))),
        "DimOf" if arity_ok(1) => Some(Ok(RNode::DimOf(ids.ix(c[0])))),
        "RF1" if arity_ok(2) => Some(Ok(RNode::F1(idx(c[0]), ids.r(c[1])))),
        "RF2" if arity_ok(3) => Some(Ok(RNode::F2(idx(c[0]), ids.r(c[1]), ids.r(c[2])))),
        "RPow" if arity_ok(2) => Some(Ok(RNode::Pow(ids.r(c[0]), f(c[1])))),
        "Rename" => Some(Ok(RNode::Rename)),
        _ => match (
            fused::by_la_constructor(name),
            fused::by_rel_constructor(name),
        ) {
            (Some(op), _) if arity_ok(op.operands) => {
                let args = c.iter().map(|&v| ids.m(v)).collect();
                Some(Err(MNode::Fused(op.kind, args)))
            }
            (_, Some(op)) if op.kind == Fused::Sprop && arity_ok(1) => {
                Some(Ok(RNode::Sprop(ids.r(c[0]))))
            }
            (_, Some(op)) if arity_ok(3 + op.operands) => {
                let ix = [ids.ix(c[0]), ids.ix(c[1]), ids.ix(c[2])];
                let args = c[3..].iter().map(|&v| ids.r(v)).collect();
                Some(Ok(RNode::Fused(op.kind, ix, args)))
            }
            _ => None,
        },
    }
}

/// The analyses' facts about the classes: index sizes, LA shapes and sparsities.
fn read_class_facts(
    eg: &EGraph,
    ids: &Ids,
    r_classes: &mut [RClass],
    m_classes: &mut [MClass],
    ix_dims: &mut [Option<i64>],
) -> Result<(), ExtractError> {
    let f = |v: Value| -> f64 { eg.value_to_base::<F>(v).0.into_inner() };
    let int = |v: Value| -> i64 { eg.value_to_base::<i64>(v) };
    let read_fn = |name: &str, f: &mut dyn FnMut(Value, Value)| read_function(eg, name, f);
    read_fn("idim", &mut |k, v| {
        if let Some(ix) = ids.ix.get(&k) {
            ix_dims[*ix] = Some(int(v));
        }
    })?;
    read_fn("rows", &mut |k, v| {
        if let Some(m) = ids.m.get(&k) {
            m_classes[*m].rows = Some(int(v));
        }
    })?;
    read_fn("cols", &mut |k, v| {
        if let Some(m) = ids.m.get(&k) {
            m_classes[*m].cols = Some(int(v));
        }
    })?;
    read_fn("lsp", &mut |k, v| {
        if let Some(m) = ids.m.get(&k) {
            m_classes[*m].sparsity = Some(f(v).clamp(0.0, 1.0));
        }
    })?;
    for c in r_classes.iter_mut() {
        c.sparsity = 1.0;
    }
    read_fn("sp", &mut |k, v| {
        if let Some(r) = ids.r.get(&k) {
            r_classes[*r].sparsity = f(v).clamp(0.0, 1.0);
        }
    })?;
    Ok(())
}

/// The relational classes of the roots (`roots`, or the `root-mark` when there are none).
fn root_classes(eg: &EGraph, ids: &Ids, roots: &[Value]) -> Result<Vec<RId>, ExtractError> {
    let read_fn = |name: &str, f: &mut dyn FnMut(Value, Value)| read_function(eg, name, f);
    if roots.is_empty() {
        let mut root = None;
        read_fn("root-mark", &mut |k, _| root = ids.r.get(&k).copied())?;
        Ok(vec![root.ok_or(ExtractError::NoRootMark)?])
    } else {
        roots
            .iter()
            .map(|v| ids.r.get(v).copied().ok_or(ExtractError::RootNotFound))
            .collect()
    }
}

/// Calls `f` with the key and value of each entry of the one-argument function `name`.
fn read_function(
    eg: &EGraph,
    name: &str,
    f: &mut dyn FnMut(Value, Value),
) -> Result<(), ExtractError> {
    eg.function_entries(name, |e| {
        if let Some(k) = e.inputs.first() {
            f(*k, e.output)
        }
    })
    .map_err(ExtractError::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extractor_names_parse_and_print() {
        assert_eq!("greedy".parse::<Extractor>(), Ok(Extractor::Greedy));
        assert_eq!(" ILP ".parse::<Extractor>(), Ok(Extractor::ilp()));
        assert_eq!(
            "ilp:250".parse::<Extractor>(),
            Ok(Extractor::Ilp {
                time_limit: Duration::from_millis(250)
            })
        );
        assert!("ilp:x".parse::<Extractor>().is_err());
        assert!("gurobi"
            .parse::<Extractor>()
            .unwrap_err()
            .contains("greedy"));
        for e in [
            Extractor::Greedy,
            Extractor::ilp(),
            "ilp:7".parse().unwrap(),
        ] {
            assert_eq!(e.to_string().parse::<Extractor>(), Ok(e));
        }
    }
}
