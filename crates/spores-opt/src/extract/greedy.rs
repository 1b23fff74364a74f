//! Greedy extraction: each class gets its cheapest candidate by a bottom-up fixpoint of
//! tree costs (children priced as if unshared). Shared subexpressions are only counted
//! once in the cost [`crate::cost::la_cost`] reports for the result.
//!
//! This module also owns what both extractors share: the LA candidates of each class
//! ([`Cand`]), their costs as a [`CandGraph`], and emitting the LA expression for a
//! selection — greedy's own (with ties broken by the LA cost model), or one fixed by the
//! ILP extractor ([`Greedy::force`]).

use std::collections::HashMap;

use super::dag::{CandGraph, CandNode, Selection};
use super::{ExtractError, Fused, Ix, MId, MNode, RId, RNode, Snapshot};
use crate::cost;
use crate::fused;
use crate::la::{Dim, LaExpr};

/// How a class can be computed by one LA operator.
#[derive(Clone, Debug)]
enum Cand {
    Bind(Ix, Ix, MId),
    Mul(RId, RId),
    Add(RId, RId),
    /// `sum`/`rowSums`/`colSums` of a class with at most two indices.
    Agg(Ix, RId),
    /// `sum` of a class with exactly the two indices `k`, `l`: `Agg k (Agg l x)`.
    AggAll(Ix, Ix, RId),
    /// `x * dim(k)`: the aggregated index is not free in `x`.
    AggScale(Ix, RId),
    /// `Agg k (Join a b)` as `a %*% b`.
    MatMul(Ix, RId, RId),
    Lit(f64),
    DimOf(Ix),
    F1(usize, RId),
    F2(usize, RId, RId),
    Pow(RId, f64),
    Fused(Fused, [Ix; 3], Vec<RId>),
    Sprop(RId),
}

impl Cand {
    fn children(&self) -> Vec<RId> {
        match self {
            Cand::Bind(..) | Cand::Lit(_) | Cand::DimOf(_) => vec![],
            Cand::Mul(a, b) | Cand::Add(a, b) | Cand::MatMul(_, a, b) | Cand::F2(_, a, b) => {
                vec![*a, *b]
            }
            Cand::Agg(_, a)
            | Cand::AggAll(_, _, a)
            | Cand::AggScale(_, a)
            | Cand::F1(_, a)
            | Cand::Pow(a, _)
            | Cand::Sprop(a) => vec![*a],
            Cand::Fused(_, _, args) => args.clone(),
        }
    }
}

/// Row and column index of an LA value; `None` for a dimension of size 1.
type Orient = (Option<Ix>, Option<Ix>);

pub(super) struct Greedy<'a, 's> {
    snap: &'a Snapshot<'s>,
    cands: Vec<Vec<Cand>>,
    /// `cands` with their own costs, as the extractors' common problem.
    graph: CandGraph,
    best: Vec<Option<(f64, usize)>>,
    /// A selection to emit instead of greedy's choices.
    forced: Option<Selection>,
    m_expr: HashMap<MId, Option<LaExpr>>,
    m_cost: HashMap<MId, Option<f64>>,
    /// Tree cost of each candidate of each class, once the fixpoint is reached.
    totals: Vec<Vec<Option<f64>>>,
    emitted: HashMap<(RId, Orient), Result<LaExpr, ExtractError>>,
}

/// Extracts the root class as an LA expression.
pub fn extract_greedy(snap: &Snapshot) -> Result<LaExpr, ExtractError> {
    Greedy::new(snap).emit_root()
}

impl super::Problem for Greedy<'_, '_> {
    fn graph(&self) -> &CandGraph {
        &self.graph
    }

    fn force(&mut self, sel: Option<Selection>) {
        self.forced = sel;
        self.emitted.clear();
    }

    fn emit_roots(&mut self) -> Result<Vec<LaExpr>, ExtractError> {
        let roots = self.snap.roots.clone();
        roots.into_iter().map(|r| self.emit_root_class(r)).collect()
    }
}

impl<'a, 's> Greedy<'a, 's> {
    /// Candidates, their costs and the greedy fixpoint for `snap`.
    pub(super) fn new(snap: &'a Snapshot<'s>) -> Self {
        let n = snap.r_classes.len();
        let mut g = Greedy {
            snap,
            cands: Vec::new(),
            graph: CandGraph::default(),
            best: vec![None; n],
            forced: None,
            m_expr: HashMap::new(),
            m_cost: HashMap::new(),
            totals: Vec::new(),
            emitted: HashMap::new(),
        };
        g.cands = (0..n).map(|c| g.candidates(c)).collect();
        let mut classes = Vec::with_capacity(n);
        for c in 0..n {
            let cands = g.cands[c].clone();
            classes.push(
                cands
                    .iter()
                    .map(|cand| CandNode {
                        cost: g.op_cost(c, cand).unwrap_or(f64::INFINITY),
                        children: cand.children(),
                    })
                    .collect(),
            );
        }
        // Several roots are extracted jointly: a synthetic class (past the e-graph's
        // classes, never emitted) whose one candidate needs them all, so the DAG cost
        // pays a class the roots share once.
        let root = if snap.roots.len() > 1 {
            classes.push(vec![CandNode {
                cost: 0.0,
                children: snap.roots.clone(),
            }]);
            n
        } else {
            snap.root
        };
        g.graph = CandGraph { classes, root };
        g.best = g.graph.tree_costs();
        g.totals = (0..n).map(|c| g.candidate_totals(c)).collect();
        g
    }

    /// The LA expression for the (first) root class.
    pub(super) fn emit_root(&mut self) -> Result<LaExpr, ExtractError> {
        self.emit_root_class(self.snap.root)
    }

    fn emit_root_class(&mut self, root: RId) -> Result<LaExpr, ExtractError> {
        let root_schema = self
            .schema(root)
            .ok_or(ExtractError::RootWithoutSchema)?
            .to_vec();
        let want = self.root_orient(root, &root_schema)?;
        let e = self.emit(root, want, 0)?;
        Ok(simplify(e))
    }

    fn schema(&self, c: RId) -> Option<&[Ix]> {
        self.snap.schema(c)
    }

    fn la_ok(&self, c: RId) -> bool {
        self.schema(c).is_some_and(|s| s.len() <= 2)
    }

    fn candidates(&self, c: RId) -> Vec<Cand> {
        let snap = self.snap;
        let mut out = Vec::new();
        if !self.la_ok(c) {
            return out;
        }
        for n in &snap.r_classes[c].nodes {
            match n {
                RNode::Bind(i, j, m) => out.push(Cand::Bind(*i, *j, *m)),
                RNode::Join(a, b) => out.push(Cand::Mul(*a, *b)),
                RNode::Union(a, b) => out.push(Cand::Add(*a, *b)),
                RNode::Agg(k, x) => {
                    let Some(sx) = self.schema(*x) else { continue };
                    if !sx.contains(k) {
                        out.push(Cand::AggScale(*k, *x));
                        continue;
                    }
                    if sx.len() <= 2 {
                        out.push(Cand::Agg(*k, *x));
                    }
                    // A full aggregate as one `sum`, not `sum(rowSums(..))`.
                    if sx.len() == 1 {
                        for an in &snap.r_classes[*x].nodes {
                            if let RNode::Agg(l, y) = an {
                                let full = self.schema(*y).is_some_and(|sy| {
                                    sy.len() == 2 && sy.contains(k) && sy.contains(l)
                                });
                                if full && l != k {
                                    out.push(Cand::AggAll(*k, *l, *y));
                                }
                            }
                        }
                    }
                    for jn in &snap.r_classes[*x].nodes {
                        if let RNode::Join(a, b) = jn {
                            if self.matmul_shape(*k, *a, *b).is_some() {
                                out.push(Cand::MatMul(*k, *a, *b));
                            }
                        }
                    }
                }
                RNode::Lit(v) => out.push(Cand::Lit(*v)),
                RNode::DimOf(i) => out.push(Cand::DimOf(*i)),
                RNode::F1(f, a) => out.push(Cand::F1(*f, *a)),
                RNode::F2(f, a, b) => out.push(Cand::F2(*f, *a, *b)),
                RNode::Pow(a, k) => out.push(Cand::Pow(*a, *k)),
                RNode::Fused(kind, ix, args) if reads_fused(*kind) => {
                    out.push(Cand::Fused(*kind, *ix, args.clone()))
                }
                RNode::Fused(..) => {}
                RNode::Sprop(p) => out.push(Cand::Sprop(*p)),
                RNode::Rename => {}
            }
        }
        out
    }

    /// For `sum_k a * b` as a matrix product: the other index of `a` and of `b`.
    fn matmul_shape(&self, k: Ix, a: RId, b: RId) -> Option<(Option<Ix>, Option<Ix>)> {
        let (sa, sb) = (self.schema(a)?, self.schema(b)?);
        if sa.len() > 2 || sb.len() > 2 || !sa.contains(&k) || !sb.contains(&k) {
            return None;
        }
        let i: Vec<Ix> = sa.iter().copied().filter(|x| *x != k).collect();
        let j: Vec<Ix> = sb.iter().copied().filter(|x| *x != k).collect();
        if i.iter().any(|x| j.contains(x)) {
            return None;
        }
        Some((i.first().copied(), j.first().copied()))
    }

    fn cells(&self, s: &[Ix]) -> f64 {
        s.iter().map(|i| self.snap.ix_size(*i)).product()
    }

    fn sp(&self, c: RId) -> f64 {
        self.snap.r_classes[c].sparsity
    }

    /// Cost of the operator alone.
    fn op_cost(&mut self, c: RId, cand: &Cand) -> Option<f64> {
        let out = self.cells(self.schema(c)?);
        Some(match cand {
            Cand::Bind(_, _, m) => self.m_cost(*m)?,
            Cand::Mul(a, b) => cost::mul(out, self.sp(*a), self.sp(*b)),
            Cand::Add(a, b) => cost::add(out, self.sp(*a), self.sp(*b)),
            Cand::Agg(_, x) | Cand::AggAll(_, _, x) => {
                cost::aggregate(self.cells(self.schema(*x)?), self.sp(*x), out)
            }
            Cand::AggScale(_, x) => cost::map_sparse(out, self.sp(*x)),
            Cand::MatMul(k, a, b) => {
                let (i, j) = self.matmul_shape(*k, *a, *b)?;
                let size = |x: Option<Ix>| x.map_or(1.0, |x| self.snap.ix_size(x));
                cost::matmul(
                    size(i),
                    self.snap.ix_size(*k),
                    size(j),
                    self.sp(*a),
                    self.sp(*b),
                )
            }
            Cand::Lit(_) | Cand::DimOf(_) => 0.0,
            Cand::F1(..) | Cand::F2(..) | Cand::Pow(..) => cost::map_dense(out),
            Cand::Sprop(_) => (fused::op(Fused::Sprop).cost)(out, 1.0, 1.0, 1.0),
            Cand::Fused(kind, [i, j, k], args) => {
                let (si, sj, sk) = (
                    self.snap.ix_size(*i),
                    self.snap.ix_size(*j),
                    self.snap.ix_size(*k),
                );
                let sx = self.sp(*args.first()?);
                // The second operand's columns: the rank k of U and V, or v's columns.
                let other = match kind {
                    Fused::Mmchain | Fused::MmchainW => {
                        let sv = self.schema(*args.get(1)?)?;
                        self.cells(sv) / sk.max(1.0)
                    }
                    _ => sk,
                };
                (fused::op(*kind).cost)(si, sj, other, sx)
            }
        })
    }

    /// The original LA term of an LA class (these classes hold the user's term only,
    /// apart from powers the rules unfold).
    fn m_expr(&mut self, m: MId) -> Option<LaExpr> {
        if let Some(e) = self.m_expr.get(&m) {
            return e.clone();
        }
        self.m_expr.insert(m, None); // cycle guard
        let e = self.m_expr_uncached(m);
        self.m_expr.insert(m, e.clone());
        e
    }

    fn m_expr_uncached(&mut self, m: MId) -> Option<LaExpr> {
        let nodes = self.snap.m_classes.get(m)?.nodes.clone();
        let b = Box::new;
        for n in nodes {
            let e = (|| -> Option<LaExpr> {
                Some(match n {
                    MNode::Var(v) => LaExpr::Var(self.snap.tables.placeholders.get(v)?.clone()),
                    MNode::Const(c) => LaExpr::Const(c),
                    MNode::Add(x, y) => LaExpr::Add(b(self.m_expr(x)?), b(self.m_expr(y)?)),
                    MNode::Sub(x, y) => LaExpr::Sub(b(self.m_expr(x)?), b(self.m_expr(y)?)),
                    MNode::Mul(x, y) => LaExpr::Mul(b(self.m_expr(x)?), b(self.m_expr(y)?)),
                    MNode::MatMul(x, y) => LaExpr::MatMul(b(self.m_expr(x)?), b(self.m_expr(y)?)),
                    MNode::T(x) => LaExpr::Transpose(b(self.m_expr(x)?)),
                    MNode::Neg(x) => LaExpr::Neg(b(self.m_expr(x)?)),
                    MNode::Sum(x) => LaExpr::Sum(b(self.m_expr(x)?)),
                    MNode::RowSums(x) => LaExpr::RowSums(b(self.m_expr(x)?)),
                    MNode::ColSums(x) => LaExpr::ColSums(b(self.m_expr(x)?)),
                    MNode::Pow(x, k) => LaExpr::Pow(b(self.m_expr(x)?), k),
                    MNode::F1(f, x) => LaExpr::Func {
                        name: self.snap.tables.funcs.get(f)?.clone(),
                        args: vec![self.m_expr(x)?],
                    },
                    MNode::F2(f, x, y) => LaExpr::Func {
                        name: self.snap.tables.funcs.get(f)?.clone(),
                        args: vec![self.m_expr(x)?, self.m_expr(y)?],
                    },
                    // Built by raising only; the user's term is another node.
                    MNode::Dim(_) | MNode::Fused(..) | MNode::Unbind(..) | MNode::Root(_) => {
                        return None
                    }
                })
            })();
            if e.is_some() {
                return e;
            }
        }
        None
    }

    fn m_cost(&mut self, m: MId) -> Option<f64> {
        if let Some(c) = self.m_cost.get(&m) {
            return *c;
        }
        let c = self
            .m_expr(m)
            .and_then(|e| cost::la_cost(&e, &self.snap.tables.env).ok());
        self.m_cost.insert(m, c);
        c
    }

    fn root_orient(&self, root: RId, schema: &[Ix]) -> Result<Orient, ExtractError> {
        // The root is `Bind i j input`: rows carry the first root index if present.
        // (Two roots merged into one class hold both binds; an index pair that is the
        // class's schema is right for either, as they have the same shape.)
        let root = &self.snap.r_classes[root];
        for n in &root.nodes {
            if let RNode::Bind(i, j, _) = n {
                let row = schema.contains(i).then_some(*i);
                let col = schema.contains(j).then_some(*j);
                if row.is_some() || col.is_some() || schema.is_empty() {
                    return Ok((row, col));
                }
            }
        }
        match schema {
            [] => Ok((None, None)),
            _ => Err(ExtractError::RootOrientation),
        }
    }

    fn candidate_totals(&self, c: RId) -> Vec<Option<f64>> {
        self.graph.classes[c]
            .iter()
            .map(|cand| {
                let mut total = cand.cost;
                if !total.is_finite() {
                    return None;
                }
                for &ch in &cand.children {
                    total += self.best.get(ch).copied().flatten()?.0;
                }
                Some(total)
            })
            .collect()
    }

    /// The LA expression for class `c` laid out as `want`. Candidates whose tree cost
    /// ties with the best (and each candidate computed in the other orientation, then
    /// transposed) are emitted and priced as LA, so orientation choices that the
    /// orientation-free tree costs cannot see (a `t(X)` at a leaf, `rowSums(t(W))` versus
    /// `t(colSums(W))`) are made by the real cost model.
    fn emit(&mut self, c: RId, want: Orient, depth: usize) -> Result<LaExpr, ExtractError> {
        if let Some(e) = self.emitted.get(&(c, want)) {
            return e.clone();
        }
        if depth > 200 {
            return Err(ExtractError::TooDeep);
        }
        // Guards against cycles through this class while it is being emitted.
        self.emitted.insert((c, want), Err(ExtractError::Cycle));
        let tied: Vec<Cand> = match &self.forced {
            Some(sel) => {
                let n = sel
                    .get(c)
                    .copied()
                    .flatten()
                    .ok_or(ExtractError::NotSelected { class: c })?;
                // Candidates with the same children and cost are interchangeable for the
                // selection (they differ in orientation only, e.g. `wsloss(X, U, V)` and
                // `wsloss(t(X), V, U)`): all are tried and the LA cost decides, as for
                // greedy's ties.
                let chosen = self.graph.classes[c]
                    .get(n)
                    .ok_or_else(|| ExtractError::internal("bad selection"))?;
                let key = |x: &CandNode| {
                    let mut ch = x.children.clone();
                    ch.sort_unstable();
                    ch
                };
                let (want_children, want_cost) = (key(chosen), chosen.cost);
                let mut same: Vec<Cand> = vec![self.cands[c][n].clone()];
                for (i, other) in self.graph.classes[c].iter().enumerate() {
                    let close = (other.cost - want_cost).abs() <= 1e-9 * want_cost.abs() + 1e-12;
                    if i != n && close && key(other) == want_children && same.len() < 6 {
                        same.push(self.cands[c][i].clone());
                    }
                }
                same
            }
            None => {
                let (best, _) = self.best[c].ok_or(ExtractError::NoPlan { class: c })?;
                self.cands[c]
                    .iter()
                    .zip(&self.totals[c])
                    .filter(|(_, t)| t.is_some_and(|t| t <= best * (1.0 + 1e-6) + 1e-9))
                    .map(|(cand, _)| cand.clone())
                    .take(6)
                    .collect()
            }
        };
        let swapped = (want.1, want.0);
        let mut chosen: Option<(f64, LaExpr)> = None;
        let mut last_err = ExtractError::NoCandidate;
        for cand in tied {
            let mut options = vec![self.emit_cand(&cand, want, depth)];
            if swapped != want {
                options.push(
                    self.emit_cand(&cand, swapped, depth)
                        .map(|e| LaExpr::Transpose(Box::new(e))),
                );
            }
            for option in options {
                match option {
                    Ok(e) => {
                        let e = simplify(e);
                        let cost =
                            cost::la_cost(&e, &self.snap.tables.env).unwrap_or(f64::INFINITY);
                        if chosen.as_ref().is_none_or(|(c0, _)| cost < *c0) {
                            chosen = Some((cost, e));
                        }
                    }
                    Err(err) => last_err = err,
                }
            }
        }
        let result = chosen.map(|(_, e)| e).ok_or(last_err);
        self.emitted.insert((c, want), result.clone());
        result
    }

    /// One candidate laid out as `want`.
    fn emit_cand(
        &mut self,
        cand: &Cand,
        want: Orient,
        depth: usize,
    ) -> Result<LaExpr, ExtractError> {
        let cand = cand.clone();
        let b = Box::new;
        let sub = |s: &[Ix]| -> Orient {
            (
                want.0.filter(|x| s.contains(x)),
                want.1.filter(|x| s.contains(x)),
            )
        };
        let d = depth + 1;
        Ok(match cand {
            Cand::Bind(i, j, m) => {
                let e = self.m_expr(m).ok_or(ExtractError::UnreadableLaClass)?;
                let mc = &self.snap.m_classes[m];
                let natural = (
                    (mc.rows != Some(1)).then_some(i),
                    (mc.cols != Some(1)).then_some(j),
                );
                orient(e, natural, want)?
            }
            Cand::Mul(x, y) | Cand::Add(x, y) => {
                let sx = self.schema(x).ok_or(ExtractError::NoSchema)?.to_vec();
                let sy = self.schema(y).ok_or(ExtractError::NoSchema)?.to_vec();
                let ex = self.emit(x, sub(&sx), d)?;
                let ey = self.emit(y, sub(&sy), d)?;
                if matches!(cand, Cand::Mul(..)) {
                    LaExpr::Mul(b(ex), b(ey))
                } else {
                    LaExpr::Add(b(ex), b(ey))
                }
            }
            Cand::AggAll(k, l, x) => {
                // Either layout of `x` will do: take the cheaper.
                let env = &self.snap.tables.env;
                let a = self.emit(x, (Some(k), Some(l)), d)?;
                let b = self.emit(x, (Some(l), Some(k)), d)?;
                let price = |e: &LaExpr| cost::la_cost(e, env).unwrap_or(f64::INFINITY);
                LaExpr::Sum(Box::new(if price(&b) < price(&a) { b } else { a }))
            }
            Cand::AggScale(k, x) => {
                let ex = self.emit(x, want, d)?;
                LaExpr::Mul(b(ex), b(self.dim_expr(k)?))
            }
            Cand::Agg(k, x) => {
                let sx = self.schema(x).ok_or(ExtractError::NoSchema)?.to_vec();
                match (sx.len(), want) {
                    (1, (None, None)) => LaExpr::Sum(b(self.emit(x, (Some(k), None), d)?)),
                    (2, (Some(i), None)) => {
                        LaExpr::RowSums(b(self.emit(x, (Some(i), Some(k)), d)?))
                    }
                    (2, (None, Some(i))) => {
                        LaExpr::ColSums(b(self.emit(x, (Some(k), Some(i)), d)?))
                    }
                    _ => return Err(ExtractError::AggregateShape),
                }
            }
            Cand::MatMul(k, x, y) => {
                let (i, j) = self
                    .matmul_shape(k, x, y)
                    .ok_or(ExtractError::NotAProduct)?;
                if want == (i, j) {
                    let ex = self.emit(x, (i, Some(k)), d)?;
                    let ey = self.emit(y, (Some(k), j), d)?;
                    LaExpr::MatMul(b(ex), b(ey))
                } else if want == (j, i) {
                    let ey = self.emit(y, (j, Some(k)), d)?;
                    let ex = self.emit(x, (Some(k), i), d)?;
                    LaExpr::MatMul(b(ey), b(ex))
                } else {
                    return Err(ExtractError::ProductOrientation);
                }
            }
            Cand::Lit(v) => LaExpr::Const(v),
            Cand::DimOf(k) => self.dim_expr(k)?,
            Cand::F1(f, x) => {
                let sx = self.schema(x).ok_or(ExtractError::NoSchema)?.to_vec();
                LaExpr::Func {
                    name: self.func_name(f)?,
                    args: vec![self.emit(x, sub(&sx), d)?],
                }
            }
            Cand::F2(f, x, y) => {
                let sx = self.schema(x).ok_or(ExtractError::NoSchema)?.to_vec();
                let sy = self.schema(y).ok_or(ExtractError::NoSchema)?.to_vec();
                LaExpr::Func {
                    name: self.func_name(f)?,
                    args: vec![self.emit(x, sub(&sx), d)?, self.emit(y, sub(&sy), d)?],
                }
            }
            Cand::Pow(x, k) => LaExpr::Pow(b(self.emit(x, want, d)?), k),
            Cand::Sprop(p) => fused::op(Fused::Sprop).call(vec![self.emit(p, want, d)?]),
            Cand::Fused(kind, [i, j, k], args) => {
                let arg = |n: usize| {
                    args.get(n)
                        .copied()
                        .ok_or_else(|| ExtractError::internal("missing fused argument"))
                };
                match kind {
                    _ if is_scalar_loss(kind) => {
                        let x = self.emit(arg(0)?, (Some(i), Some(j)), d)?;
                        let u = self.emit(arg(1)?, (Some(i), Some(k)), d)?;
                        let v = self.emit(arg(2)?, (Some(j), Some(k)), d)?;
                        fused::op(kind).call(vec![x, u, v])
                    }
                    Fused::Mmchain | Fused::MmchainW => {
                        let sv = self.schema(arg(1)?).ok_or(ExtractError::NoSchema)?.to_vec();
                        let c = sv.iter().copied().find(|x| *x != k);
                        let x = self.emit(arg(0)?, (Some(i), Some(j)), d)?;
                        let v = self.emit(arg(1)?, (Some(k), c), d)?;
                        let mut fargs = vec![x, v];
                        if kind == Fused::MmchainW {
                            fargs.push(self.emit(arg(2)?, (Some(i), None), d)?);
                        }
                        orient(fused::op(kind).call(fargs), (Some(j), c), want)?
                    }
                    Fused::Tsmm => {
                        // Symmetric: either orientation is the same call.
                        let x = self.emit(arg(0)?, (Some(i), Some(j)), d)?;
                        let e = fused::op(kind).call(vec![x]);
                        if want == (Some(k), Some(j)) {
                            e
                        } else {
                            orient(e, (Some(j), Some(k)), want)?
                        }
                    }
                    _ => return Err(ExtractError::NotInTable { kind }),
                }
            }
        })
    }

    fn func_name(&self, f: usize) -> Result<String, ExtractError> {
        self.snap
            .tables
            .funcs
            .get(f)
            .cloned()
            .ok_or(ExtractError::UnknownFunction { number: f })
    }

    fn dim_expr(&self, k: Ix) -> Result<LaExpr, ExtractError> {
        dim_expr(self.snap, k)
    }
}

/// A fused node over `X(i,j)`, `U(i,k)`, `V(j,k)` with a scalar result (the losses):
/// read by their operands' orientations alone.
fn is_scalar_loss(kind: Fused) -> bool {
    let op = fused::op(kind);
    op.fits == fused::X_U_V && op.result == fused::ResultShape::Scalar
}

/// Whether the table reader lays out the relational fused node `kind` (the scalar
/// losses, `mmchain`, `tsmm`); an operator it does not is left to the raising rules.
fn reads_fused(kind: Fused) -> bool {
    is_scalar_loss(kind) || matches!(kind, Fused::Mmchain | Fused::MmchainW | Fused::Tsmm)
}

/// The size of index `k` as an LA scalar: a number, or `nrow`/`ncol` of an input
/// with that symbolic dimension.
pub(super) fn dim_expr(snap: &Snapshot, k: Ix) -> Result<LaExpr, ExtractError> {
    let tables = snap.tables;
    let code = snap
        .ix_dims
        .get(k)
        .copied()
        .flatten()
        .ok_or(ExtractError::IndexWithoutSize { ix: k })?;
    match tables
        .dim_of_code(code)
        .ok_or(ExtractError::UnknownDimension { code })?
    {
        Dim::Known(n) => Ok(LaExpr::Const(n as f64)),
        d @ Dim::Sym(_) => {
            let mut names: Vec<_> = tables.env.shapes.iter().collect();
            names.sort_by(|a, b| a.0.cmp(b.0));
            for (name, (r, c)) in names {
                if name.starts_with("__opaque") {
                    continue;
                }
                let f = if *r == d {
                    "nrow"
                } else if *c == d {
                    "ncol"
                } else {
                    continue;
                };
                return Ok(LaExpr::Func {
                    name: f.into(),
                    args: vec![LaExpr::Var(name.clone())],
                });
            }
            Err(ExtractError::NoInputWithDimension { dim: d })
        }
    }
}

/// `e` laid out as `natural`, transposed if `want` is the other way round.
fn orient(e: LaExpr, natural: Orient, want: Orient) -> Result<LaExpr, ExtractError> {
    if natural == want {
        Ok(e)
    } else if (natural.1, natural.0) == want {
        Ok(LaExpr::Transpose(Box::new(e)))
    } else {
        Err(ExtractError::OperandShape)
    }
}

/// Cosmetic clean-up of the emitted tree: `1 * x`, `x + -1 * y`, `t(t(x))`.
pub(super) fn simplify(e: LaExpr) -> LaExpr {
    use LaExpr::*;
    let s = |x: Box<LaExpr>| Box::new(simplify(*x));
    let neg_of = |x: &LaExpr| -> Option<LaExpr> {
        match x {
            Mul(a, b) if **a == Const(-1.0) => Some((**b).clone()),
            Mul(a, b) if **b == Const(-1.0) => Some((**a).clone()),
            Neg(a) => Some((**a).clone()),
            _ => None,
        }
    };
    match e {
        Mul(a, b) => {
            let (a, b) = (s(a), s(b));
            match (&*a, &*b) {
                (Const(c), _) if *c == 1.0 => *b,
                (_, Const(c)) if *c == 1.0 => *a,
                (Const(c), _) if *c == -1.0 => Neg(b),
                (_, Const(c)) if *c == -1.0 => Neg(a),
                _ => Mul(a, b),
            }
        }
        Add(a, b) => {
            let (a, b) = (s(a), s(b));
            if let Some(nb) = neg_of(&b) {
                Sub(a, Box::new(nb))
            } else if let Some(na) = neg_of(&a) {
                Sub(b, Box::new(na))
            } else {
                Add(a, b)
            }
        }
        Transpose(a) => match simplify(*a) {
            Transpose(x) => *x,
            x => Transpose(Box::new(x)),
        },
        Sub(a, b) => Sub(s(a), s(b)),
        MatMul(a, b) => MatMul(s(a), s(b)),
        Neg(a) => match simplify(*a) {
            Neg(x) => *x,
            x => Neg(Box::new(x)),
        },
        Sum(a) => Sum(s(a)),
        RowSums(a) => RowSums(s(a)),
        ColSums(a) => ColSums(s(a)),
        Pow(a, k) => Pow(s(a), k),
        Fill(v, r, c) => Fill(s(v), r, c),
        Func { name, args } => Func {
            name,
            args: args.into_iter().map(simplify).collect(),
        },
        Var(_) | Const(_) => e,
    }
}
