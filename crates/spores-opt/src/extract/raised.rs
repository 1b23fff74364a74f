//! Extraction over LA classes: the plan is a term the raising rules (`rules/raise.egg`)
//! derived, chosen among LA e-nodes by the calibrated cost model.
//!
//! After the raising phase every root has an LA class (its `LaRoot` mark) holding the
//! user's own term, the LA terms raised from every relational rewrite of it, and
//! transposes; the operands of those terms are LA classes again. Each LA e-node (not
//! `Unbind`, which is a demand, nor `LaRoot`) is one candidate of its class in a
//! [`CandGraph`], priced as the kernel that runs it from the class's shape and the
//! operands' estimated sparsity, so greedy and the ILP choose exactly as over relational
//! classes before, shared classes paid once.
//!
//! One thing the cost model knows that a per-node price cannot: a product reads a
//! transposed operand in place (`matmul_t`), so `t(A) %*% B` costs no transpose. For each
//! `A %*% B` whose operand class holds a transpose `t(A')`, a candidate "product reading
//! `A'` transposed" is added, with `A'` as its child and the product's price.
//!
//! A candidate whose operands' shapes do not fit its operator (a row vector times a
//! column vector, which LA does not broadcast) is priced infinite, so only LA-expressible
//! plans are chosen.

use std::collections::HashMap;

use super::candidate::{Cand, MaskedTree, Op, TreeRef};
use super::dag::{CandGraph, CandNode, Selection};
use super::{ExtractError, Fused, MId, MNode, Snapshot};
use crate::cost;
use crate::fused;
use crate::la::{broadcast, Dim, LaExpr};

/// The LA-class extraction problem of a snapshot, and emitting LA for a selection.
pub(super) struct Raised<'a, 's> {
    snap: &'a Snapshot<'s>,
    cands: Vec<Vec<Cand>>,
    graph: CandGraph,
    roots: Vec<MId>,
    selection: Selection,
}

impl super::Problem for Raised<'_, '_> {
    fn graph(&self) -> &CandGraph {
        &self.graph
    }

    fn force(&mut self, sel: Option<Selection>) {
        self.selection = sel.unwrap_or_else(|| self.graph.greedy_selection());
    }

    fn emit_roots(&mut self) -> Result<Vec<LaExpr>, ExtractError> {
        let mut memo = HashMap::new();
        self.roots
            .iter()
            .map(|&r| self.emit(r, &mut memo, 0).map(super::greedy::simplify))
            .collect()
    }
}

impl<'a, 's> Raised<'a, 's> {
    /// The problem over `snap`'s LA classes, or why there is none (raising did not run
    /// or did not reach a root).
    pub(super) fn new(snap: &'a Snapshot<'s>) -> Result<Self, ExtractError> {
        let roots = snap
            .la_roots
            .iter()
            .map(|r| r.ok_or(ExtractError::RootWithoutLaClass))
            .collect::<Result<Vec<_>, _>>()?;
        if roots.is_empty() {
            return Err(ExtractError::NoRoots);
        }
        let n = snap.m_classes.len();
        let mut cands: Vec<Vec<Cand>> = (0..n).map(|m| candidates(snap, m)).collect();
        // Products that read a transposed operand in place.
        for class in cands.iter_mut() {
            let mut extra = Vec::new();
            for c in class.iter() {
                if c.op != Op::MatMul(false, false) {
                    continue;
                }
                let (a, b) = (c.children[0], c.children[1]);
                let under_t = |x: MId| -> Vec<MId> {
                    snap.m_classes[x]
                        .nodes
                        .iter()
                        .filter_map(|n| match n {
                            MNode::T(y) => Some(*y),
                            _ => None,
                        })
                        .collect()
                };
                for a2 in under_t(a) {
                    extra.push(Cand {
                        op: Op::MatMul(true, false),
                        children: vec![a2, b],
                    });
                }
                for b2 in under_t(b) {
                    extra.push(Cand {
                        op: Op::MatMul(false, true),
                        children: vec![a, b2],
                    });
                }
            }
            class.extend(extra);
        }
        // `*` and `+` commute, but LA broadcasting does not (a row vector times a column
        // vector is not an outer product): each order is a candidate, and the one whose
        // shapes do not fit is priced infinite.
        for class in cands.iter_mut() {
            let swapped: Vec<Cand> = class
                .iter()
                .filter(|c| matches!(c.op, Op::Mul | Op::Add) && c.children[0] != c.children[1])
                .map(|c| Cand {
                    op: c.op.clone(),
                    children: vec![c.children[1], c.children[0]],
                })
                .collect();
            class.extend(swapped);
        }
        // Masked evaluation of `X * E` and `X / E` over a sparse `X`.
        let alone: Vec<f64> = (0..n)
            .map(|m| {
                cands[m]
                    .iter()
                    .filter_map(|c| op_cost(snap, m, c))
                    .fold(f64::INFINITY, f64::min)
            })
            .collect();
        // Only a masked division is evaluated at X's non-zeros: a plain one is IEEE's
        // (`0 / 0` is NaN where X is 0).
        let is_div = |f: usize| {
            snap.tables
                .funcs
                .get(f)
                .is_some_and(|name| name == "masked_div")
        };
        for m in 0..n {
            let masked = super::masked::candidates(snap, &cands, &alone, m, is_div);
            cands[m].extend(masked);
        }
        let mut classes: Vec<Vec<CandNode>> = (0..n)
            .map(|m| {
                cands[m]
                    .iter()
                    .map(|c| CandNode {
                        cost: op_cost(snap, m, c).unwrap_or(f64::INFINITY),
                        children: c.children.clone(),
                    })
                    .collect()
            })
            .collect();
        let root = if roots.len() > 1 {
            classes.push(vec![CandNode {
                cost: 0.0,
                children: roots.clone(),
            }]);
            n
        } else {
            roots[0]
        };
        let graph = CandGraph { classes, root };
        if log::log_enabled!(log::Level::Trace) {
            let unbinds: Vec<usize> = snap
                .m_classes
                .iter()
                .map(|c| {
                    c.nodes
                        .iter()
                        .filter(|n| matches!(n, MNode::Unbind(..)))
                        .count()
                })
                .filter(|&k| k > 0)
                .collect();
            log::trace!(
                "LA classes with Unbind: {}, Unbind e-nodes: {}, LA classes: {n}",
                unbinds.len(),
                unbinds.iter().sum::<usize>()
            );
        }
        if log::log_enabled!(log::Level::Trace) {
            for (m, class) in graph.classes.iter().enumerate().take(n) {
                let mc = &snap.m_classes[m];
                log::trace!("M{m} {:?}x{:?} sp {:?}", mc.rows, mc.cols, mc.sparsity);
                for (c, node) in cands[m].iter().zip(class) {
                    log::trace!("    {:?} {:?} cost {:.3e}", c.op, c.children, node.cost);
                }
            }
        }
        let selection = graph.greedy_selection();
        Ok(Raised {
            snap,
            cands,
            graph,
            roots,
            selection,
        })
    }

    fn emit(
        &self,
        m: MId,
        memo: &mut HashMap<MId, LaExpr>,
        depth: usize,
    ) -> Result<LaExpr, ExtractError> {
        if let Some(e) = memo.get(&m) {
            return Ok(e.clone());
        }
        if depth > 500 {
            return Err(ExtractError::TooDeepSelection);
        }
        let n = self
            .selection
            .get(m)
            .copied()
            .flatten()
            .ok_or(ExtractError::NoLaPlan { class: m })?;
        let cand = self.cands[m]
            .get(n)
            .ok_or_else(|| ExtractError::internal("bad selection"))?;
        let mut args = Vec::with_capacity(cand.children.len());
        for &ch in &cand.children {
            args.push(self.emit(ch, memo, depth + 1)?);
        }
        let e = self.build(&cand.op, args)?;
        memo.insert(m, e.clone());
        Ok(e)
    }

    /// The LA expression of `op` over `args`, its operands' expressions.
    fn build(&self, op: &Op, args: Vec<LaExpr>) -> Result<LaExpr, ExtractError> {
        let b = Box::new;
        let t = |e: LaExpr, yes: bool| {
            if yes {
                LaExpr::Transpose(b(e))
            } else {
                e
            }
        };
        let mut it = args.into_iter();
        let mut next = || {
            it.next()
                .ok_or_else(|| ExtractError::internal("missing operand"))
        };
        Ok(match op {
            Op::Var(v) => LaExpr::Var(
                self.snap
                    .tables
                    .placeholders
                    .get(*v)
                    .cloned()
                    .ok_or(ExtractError::UnknownInput { number: *v })?,
            ),
            Op::Const(c) => LaExpr::Const(*c),
            Op::Dim(k) => super::greedy::dim_expr(self.snap, *k)?,
            Op::Add => LaExpr::Add(b(next()?), b(next()?)),
            Op::Sub => LaExpr::Sub(b(next()?), b(next()?)),
            Op::Mul => LaExpr::Mul(b(next()?), b(next()?)),
            Op::MatMul(ta, tb) => {
                let x = t(next()?, *ta);
                let y = t(next()?, *tb);
                LaExpr::MatMul(b(x), b(y))
            }
            Op::T => LaExpr::Transpose(b(next()?)),
            Op::Neg => LaExpr::Neg(b(next()?)),
            Op::Sum => LaExpr::Sum(b(next()?)),
            Op::RowSums => LaExpr::RowSums(b(next()?)),
            Op::ColSums => LaExpr::ColSums(b(next()?)),
            Op::Pow(k) => LaExpr::Pow(b(next()?), *k),
            Op::F1(f) | Op::F2(f) => LaExpr::Func {
                name: self
                    .snap
                    .tables
                    .funcs
                    .get(*f)
                    .cloned()
                    .ok_or(ExtractError::UnknownFunction { number: *f })?,
                args: it.collect(),
            },
            Op::Fused(kind) => fused::op(*kind).call(it.collect()),
            Op::Masked { div, tree } => return self.build_masked(*div, tree, it.collect()),
        })
    }

    /// `masked_mul(X, E)` or `masked_div(X, E)`: `args` are `X` and the tree's leaves.
    fn build_masked(
        &self,
        div: bool,
        tree: &MaskedTree,
        args: Vec<LaExpr>,
    ) -> Result<LaExpr, ExtractError> {
        let mut args = args.into_iter();
        let x = args
            .next()
            .ok_or_else(|| ExtractError::internal("missing mask"))?;
        let leaves: Vec<LaExpr> = args.collect();
        let mut built: Vec<LaExpr> = Vec::with_capacity(tree.nodes.len());
        for (op, refs) in &tree.nodes {
            let operands = refs
                .iter()
                .map(|r| match *r {
                    TreeRef::Node(k) => built
                        .get(k)
                        .cloned()
                        .ok_or_else(|| ExtractError::internal("bad tree")),
                    TreeRef::Leaf(k) => leaves
                        .get(k)
                        .cloned()
                        .ok_or_else(|| ExtractError::internal("bad tree")),
                })
                .collect::<Result<Vec<_>, _>>()?;
            built.push(self.build(op, operands)?);
        }
        let e = built
            .pop()
            .ok_or_else(|| ExtractError::internal("empty tree"))?;
        let kind = if div {
            Fused::MaskedDiv
        } else {
            Fused::MaskedMul
        };
        Ok(fused::op(kind).call(vec![x, e]))
    }
}

/// The LA candidates of class `m`: its operator e-nodes.
fn candidates(snap: &Snapshot, m: MId) -> Vec<Cand> {
    let c = |op: Op, children: Vec<MId>| Some(Cand { op, children });
    snap.m_classes[m]
        .nodes
        .iter()
        .filter_map(|n| match n {
            MNode::Var(v) => c(Op::Var(*v), vec![]),
            MNode::Const(x) => c(Op::Const(*x), vec![]),
            MNode::Dim(k) => c(Op::Dim(*k), vec![]),
            MNode::Add(a, b) => c(Op::Add, vec![*a, *b]),
            MNode::Sub(a, b) => c(Op::Sub, vec![*a, *b]),
            MNode::Mul(a, b) => c(Op::Mul, vec![*a, *b]),
            MNode::MatMul(a, b) => c(Op::MatMul(false, false), vec![*a, *b]),
            MNode::T(a) => c(Op::T, vec![*a]),
            MNode::Neg(a) => c(Op::Neg, vec![*a]),
            MNode::Sum(a) => c(Op::Sum, vec![*a]),
            MNode::RowSums(a) => c(Op::RowSums, vec![*a]),
            MNode::ColSums(a) => c(Op::ColSums, vec![*a]),
            MNode::Pow(a, k) => c(Op::Pow(*k), vec![*a]),
            MNode::F1(f, a) => c(Op::F1(*f), vec![*a]),
            MNode::F2(f, a, b) => c(Op::F2(*f), vec![*a, *b]),
            MNode::Fused(kind, args) => c(Op::Fused(*kind), args.clone()),
            MNode::Unbind(..) | MNode::Root(_) => None,
        })
        .collect()
}

/// The shape of an LA class as dimension codes.
fn codes(snap: &Snapshot, m: MId) -> Option<(i64, i64)> {
    let c = snap.m_classes.get(m)?;
    Some((c.rows?, c.cols?))
}

fn dim(snap: &Snapshot, code: i64) -> Option<Dim> {
    snap.tables.dim_of_code(code)
}

/// The shape `cand` produces, from its operands' shapes; `None` when they do not fit.
fn result_shape(snap: &Snapshot, m: MId, cand: &Cand) -> Option<(i64, i64)> {
    let ch: Vec<(i64, i64)> = cand
        .children
        .iter()
        .map(|&x| codes(snap, x))
        .collect::<Option<_>>()?;
    let swap = |(r, c): (i64, i64)| (c, r);
    let fits = |a: (i64, i64), b: (i64, i64)| -> Option<(i64, i64)> {
        let d = |s: (i64, i64)| Some((dim(snap, s.0)?, dim(snap, s.1)?));
        let (r, c) = broadcast("op", d(a)?, d(b)?).ok()?;
        let code = |x: &Dim| match x {
            Dim::Known(n) => i64::try_from(*n).ok(),
            Dim::Sym(_) => [a.0, a.1, b.0, b.1]
                .into_iter()
                .find(|&k| dim(snap, k).as_ref() == Some(x)),
        };
        Some((code(&r)?, code(&c)?))
    };
    Some(match (&cand.op, ch.as_slice()) {
        (Op::Var(_) | Op::Const(_) | Op::Dim(_), _) => codes(snap, m)?,
        (Op::Add | Op::Sub | Op::Mul | Op::F2(_), [a, b]) => fits(*a, *b)?,
        (Op::MatMul(ta, tb), [a, b]) => {
            let a = if *ta { swap(*a) } else { *a };
            let b = if *tb { swap(*b) } else { *b };
            if a.1 != b.0 {
                return None;
            }
            (a.0, b.1)
        }
        (Op::T, [a]) => swap(*a),
        (Op::Neg | Op::Pow(_) | Op::F1(_), [a]) => *a,
        (Op::Sum, [_]) => (1, 1),
        (Op::RowSums, [a]) => (a.0, 1),
        (Op::ColSums, [a]) => (1, a.1),
        (Op::Fused(kind), shapes) => fused::op(*kind).result_shape(shapes, 1)?,
        (Op::Masked { .. }, [x, ..]) => *x,
        _ => return None,
    })
}

/// The price of `cand` alone, as the kernel that runs it ([`crate::cost`]); `None` when
/// its shape is unknown or its operands do not fit.
fn op_cost(snap: &Snapshot, m: MId, cand: &Cand) -> Option<f64> {
    let out = codes(snap, m)?;
    if result_shape(snap, m, cand)? != out {
        return None;
    }
    let size = |code: i64| snap.tables.code_size(code);
    let cells_of = |s: (i64, i64)| size(s.0) * size(s.1);
    let cells = cells_of(out);
    let sp = |x: MId| snap.m_classes[x].sparsity.unwrap_or(1.0);
    let shape = |x: MId| codes(snap, x);
    let ch = &cand.children;
    Some(match &cand.op {
        Op::Var(_) | Op::Const(_) | Op::Dim(_) => 0.0,
        Op::Add | Op::Sub => cost::add(cells, sp(ch[0]), sp(ch[1])),
        Op::Mul => cost::mul(cells, sp(ch[0]), sp(ch[1])),
        Op::Neg => cost::map_sparse(cells, sp(ch[0])),
        Op::Pow(k) if *k > 0.0 => cost::map_sparse(cells, sp(ch[0])),
        Op::Pow(_) | Op::F1(_) | Op::F2(_) => cost::map_dense(cells),
        Op::T => {
            let (r, c) = shape(ch[0])?;
            cost::transpose(size(r), size(c), sp(ch[0]))
        }
        Op::MatMul(ta, _) => {
            let a = shape(ch[0])?;
            let inner = if *ta { a.0 } else { a.1 };
            cost::matmul(size(out.0), size(inner), size(out.1), sp(ch[0]), sp(ch[1]))
        }
        Op::Sum | Op::RowSums | Op::ColSums => {
            cost::aggregate(cells_of(shape(ch[0])?), sp(ch[0]), cells)
        }
        Op::Fused(kind) => {
            let x = shape(ch[0])?;
            let other = match ch.get(1) {
                Some(&v) => size(shape(v)?.1),
                None => 1.0,
            };
            (fused::op(*kind).cost)(size(x.0), size(x.1), other, sp(ch[0]))
        }
        Op::Masked { tree, .. } => cost::masked(cells * sp(ch[0]), tree.instrs as f64, tree.rank),
    })
}
