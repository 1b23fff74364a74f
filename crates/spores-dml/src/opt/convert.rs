//! Between block DAGs and the optimizer's LA expressions.
//!
//! [`extract`] finds the block's LA subgraphs — maximal trees of matrix operators whose
//! shapes are known — and turns each into an [`LaExpr`] over *leaves*: block inputs and
//! values the optimizer cannot see into (reads, `rand`, indexing, calls, scalar
//! arithmetic), and the values of other roots (shared, so computed once). [`rebuild`] puts optimized expressions back, mapping fused operators to
//! their kernels. One table, `FUNCTIONS`, names the operators in both directions, the
//! builtins handed over keep their DML names, and the fused operators are named by the
//! optimizer's catalogue (`spores_opt::fused`).

use std::collections::HashMap;
use std::sync::Arc;

use spores_exec::kernels::elementwise::BinaryOp;
use spores_exec::kernels::unary::UnaryOp;
use spores_opt::la::{Dim, LaExpr, ShapeEnv};

use crate::dag::guard::GuardedRoot;
use crate::dag::meta::NodeMeta;
use crate::dag::{AggFn, Axis, BlockDag, Builtin, Dag, Fused, IndexKind, Literal, NodeId, Op};

/// Why an optimized expression cannot be put back into a block (the caller keeps the
/// block as it was).
#[derive(Debug, thiserror::Error)]
pub enum ConvertError {
    #[error("the optimizer returned an unknown input `{name}`")]
    UnknownInput { name: String },
    /// A fill whose size is not a number (the expression, as it reads).
    #[error("{expr}: a size is symbolic")]
    SymbolicSize { expr: Box<LaExpr> },
    #[error("no kernel for `{name}` with {arity} arguments")]
    NoKernel { name: String, arity: usize },
}

/// DAG operators that the optimizer sees as opaque functions, with their names in
/// [`LaExpr::Func`]. Add/Sub/Mul, `%*%`, `t`, unary minus, sums and constant powers are
/// core LA operators and are not listed.
const FUNCTIONS: &[(&str, usize, Op)] = &[
    ("/", 2, Op::Binary(BinaryOp::Div)),
    ("^", 2, Op::Binary(BinaryOp::Pow)),
    ("min", 2, Op::Binary(BinaryOp::Min)),
    ("max", 2, Op::Binary(BinaryOp::Max)),
    ("%%", 2, Op::Binary(BinaryOp::Mod)),
    ("%/%", 2, Op::Binary(BinaryOp::IntDiv)),
    ("==", 2, Op::Binary(BinaryOp::Eq)),
    ("!=", 2, Op::Binary(BinaryOp::Ne)),
    ("<", 2, Op::Binary(BinaryOp::Lt)),
    ("<=", 2, Op::Binary(BinaryOp::Le)),
    (">", 2, Op::Binary(BinaryOp::Gt)),
    (">=", 2, Op::Binary(BinaryOp::Ge)),
    ("&", 2, Op::Binary(BinaryOp::And)),
    ("|", 2, Op::Binary(BinaryOp::Or)),
    ("!", 1, Op::Unary(UnaryOp::Not)),
    ("exp", 1, Op::Unary(UnaryOp::Exp)),
    ("log", 1, Op::Unary(UnaryOp::Log)),
    ("sqrt", 1, Op::Unary(UnaryOp::Sqrt)),
    ("abs", 1, Op::Unary(UnaryOp::Abs)),
    ("sigmoid", 1, Op::Unary(UnaryOp::Sigmoid)),
    ("round", 1, Op::Unary(UnaryOp::Round)),
    ("floor", 1, Op::Unary(UnaryOp::Floor)),
    ("ceil", 1, Op::Unary(UnaryOp::Ceil)),
    ("sign", 1, Op::Unary(UnaryOp::Sign)),
    ("mean", 1, Op::Agg(AggFn::Mean, Axis::All)),
    ("rowMeans", 1, Op::Agg(AggFn::Mean, Axis::Row)),
    ("colMeans", 1, Op::Agg(AggFn::Mean, Axis::Col)),
    ("min", 1, Op::Agg(AggFn::Min, Axis::All)),
    ("max", 1, Op::Agg(AggFn::Max, Axis::All)),
    ("rowMins", 1, Op::Agg(AggFn::Min, Axis::Row)),
    ("colMins", 1, Op::Agg(AggFn::Min, Axis::Col)),
    ("rowMaxs", 1, Op::Agg(AggFn::Max, Axis::Row)),
    ("colMaxs", 1, Op::Agg(AggFn::Max, Axis::Col)),
];

/// Builtins that the optimizer sees as opaque functions, with their number of arguments,
/// named by their DML name ([`Builtin::name`]).
const OPAQUE_BUILTINS: [(Builtin, usize); 7] = [
    (Builtin::Trace, 1),
    (Builtin::Diag, 1),
    (Builtin::AsScalar, 1),
    (Builtin::AsMatrix, 1),
    (Builtin::Cbind, 2),
    (Builtin::Rbind, 2),
    (Builtin::Rev, 1),
];

/// The name of `op` with `arity` children as an [`LaExpr::Func`]: from [`FUNCTIONS`] or
/// [`OPAQUE_BUILTINS`], or the catalogue's name of a fused operator.
fn function_name(op: &Op, arity: usize) -> Option<&'static str> {
    match op {
        Op::Fused(Fused::Catalogue(kind)) => {
            let entry = spores_opt::fused::op(*kind);
            return (entry.operands == arity).then_some(entry.name);
        }
        Op::Builtin(b) if OPAQUE_BUILTINS.contains(&(*b, arity)) => return Some(b.name()),
        _ => {}
    }
    FUNCTIONS
        .iter()
        .find(|(_, n, o)| o == op && *n == arity)
        .map(|(name, _, _)| *name)
}

/// The operator an [`LaExpr::Func`] call names: one of [`FUNCTIONS`] or
/// [`OPAQUE_BUILTINS`], or a fused operator of the catalogue (whose kernel the runtime
/// dispatches on its kind).
fn function_op(name: &str, arity: usize) -> Option<Op> {
    FUNCTIONS
        .iter()
        .find(|(n, a, _)| *n == name && *a == arity)
        .map(|(_, _, op)| op.clone())
        .or_else(|| {
            OPAQUE_BUILTINS
                .into_iter()
                .find(|&(b, n)| n == arity && b.name() == name)
                .map(|(b, _)| Op::Builtin(b))
        })
        .or_else(|| {
            spores_opt::fused::by_name(name, arity).map(|op| Op::Fused(Fused::Catalogue(op.kind)))
        })
}

/// One LA subgraph of a block, rooted at `node`.
#[derive(Clone, Debug)]
pub struct Root {
    pub node: NodeId,
    pub expr: LaExpr,
    /// The LA nodes `expr` stands for, `node` included (its leaves and literals not).
    pub tree: Vec<NodeId>,
}

/// The block's LA subgraphs and what the optimizer needs to know about their leaves.
#[derive(Clone, Debug, Default)]
pub struct Extracted {
    pub roots: Vec<Root>,
    /// Shapes and non-zero counts of the leaves.
    pub env: ShapeEnv,
    /// Leaf name → the node holding its value.
    pub leaves: HashMap<String, NodeId>,
}

/// Whether a node is a matrix operator the optimizer can rewrite: an LA or opaque
/// function on known shapes that produces a matrix, or a full aggregate of one.
fn is_la(dag: &Dag, meta: &[NodeMeta], id: NodeId) -> bool {
    let node = dag.node(id);
    let is_matrix = |c: NodeId| matches!(meta[c], NodeMeta::Matrix { .. });
    let operator = match &node.op {
        Op::Binary(_) | Op::Unary(_) | Op::MatMul | Op::Transpose | Op::Agg(..) => true,
        Op::Builtin(Builtin::Trace | Builtin::Diag | Builtin::AsScalar | Builtin::AsMatrix) => {
            node.children.first().is_some_and(|&c| is_matrix(c))
        }
        // Blocks of two matrices and reversed rows: position maps the optimizer can push
        // aggregates through.
        Op::Builtin(Builtin::Cbind | Builtin::Rbind) => {
            node.children.len() == 2 && node.children.iter().all(|&c| is_matrix(c))
        }
        Op::Builtin(Builtin::Rev) => node.children.len() == 1 && is_matrix(node.children[0]),
        // Right indexing of a matrix by numbers.
        Op::Index { .. } => {
            node.children.first().is_some_and(|&c| is_matrix(c))
                && node.children[1..].iter().all(|&c| {
                    matches!(
                        dag.node(c).op,
                        Op::Literal(Literal::Int(_) | Literal::Double(_))
                    )
                })
        }
        // A fill of a scalar (not a reshape of a matrix).
        Op::Builtin(Builtin::Matrix) => node
            .children
            .first()
            .is_some_and(|&c| matches!(meta[c], NodeMeta::Scalar(_))),
        Op::Builtin(Builtin::Outer) => outer_op(dag, node).is_some(),
        // The optimizer's fused operators, when a block it optimized is cut again (for a
        // relational engine): they are LA functions with known meanings.
        Op::Fused(_) => function_name(&node.op, node.children.len()).is_some(),
        _ => false,
    };
    if !operator {
        return false;
    }
    let child_is_matrix = node.children.iter().any(|&c| is_matrix(c));
    match meta[id] {
        NodeMeta::Matrix { .. } => true,
        NodeMeta::Scalar(_) => child_is_matrix && produces_scalar(&node.op),
        NodeMeta::Unknown => false,
    }
}

/// Operators whose value DML types as a scalar when their argument is a matrix.
fn produces_scalar(op: &Op) -> bool {
    matches!(
        op,
        Op::Agg(_, Axis::All) | Op::Builtin(Builtin::Trace | Builtin::AsScalar)
    ) || matches!(op, Op::Fused(Fused::Catalogue(kind))
        if spores_opt::fused::op(*kind).result == spores_opt::fused::ResultShape::Scalar)
}

/// The elementwise operator of `outer(a, b, "op")`, when its operator is a literal the
/// optimizer knows.
fn outer_op(dag: &Dag, node: &crate::dag::Node) -> Option<BinaryOp> {
    let &[_, _, op] = node.children.as_slice() else {
        return None;
    };
    let Op::Literal(Literal::Str(symbol)) = &dag.node(op).op else {
        return None;
    };
    BinaryOp::ALL.into_iter().find(|b| b.symbol() == symbol)
}

/// Finds the LA subgraphs of a block (see the module documentation).
pub fn extract(block: &BlockDag, meta: &[NodeMeta]) -> Extracted {
    let dag = &block.dag;
    let needed = dag.reachable(block.roots());
    let la: Vec<bool> = (0..dag.len())
        .map(|id| needed[id] && is_la(dag, meta, id))
        .collect();
    // A root is an LA node whose value something other than an LA node needs.
    let mut is_root = vec![false; dag.len()];
    for root in block.roots() {
        is_root[root] = true;
    }
    for (id, node) in dag.nodes().iter().enumerate() {
        if needed[id] && !la[id] {
            for &c in &node.children {
                is_root[c] = true;
            }
        }
    }
    cut_large_shared_nodes(dag, &needed, &la, &mut is_root);
    let mut out = Extracted::default();
    for id in 0..dag.len() {
        if la[id] && is_root[id] {
            // Inside this root's tree, another root is a leaf: its value is computed
            // anyway, so reading it is free, while inlining it would make both plans
            // compute it (and make every root's e-graph bigger).
            let expand: Vec<bool> = (0..dag.len())
                .map(|n| la[n] && (n == id || !is_root[n]))
                .collect();
            let mut tree = Vec::new();
            if let Some(expr) = to_expr(dag, meta, &expand, id, &mut out, &mut tree) {
                out.roots.push(Root {
                    node: id,
                    expr,
                    tree,
                });
            }
        }
    }
    out
}

/// A shared LA node (read more than once inside the LA subgraphs) whose subtree, written
/// out as a tree, has more nodes than this becomes a root of its own (a leaf where it is
/// read). Expressions are trees: inlining a node at each of its reads copies its subtree,
/// so a block of `X = X + X` lines would double its expression with every line. Small
/// shared subtrees stay inlined, so that `E = X - U %*% t(V); s = sum(E * E)` is still
/// one expression the search can fuse into `wsloss`.
const MAX_INLINED_SHARED: usize = 64;

/// Marks as roots the shared LA nodes whose written-out subtree is larger than
/// [`MAX_INLINED_SHARED`], so that every root's expression stays within a constant factor
/// of the block's size. One pass in topological order (children have smaller ids).
fn cut_large_shared_nodes(dag: &Dag, needed: &[bool], la: &[bool], is_root: &mut [bool]) {
    let mut reads = vec![0usize; dag.len()];
    for (id, node) in dag.nodes().iter().enumerate() {
        if needed[id] && la[id] {
            for &c in &node.children {
                reads[c] += 1;
            }
        }
    }
    // Nodes of each LA node's expression as a tree, roots counted as one (a leaf).
    let mut written = vec![1usize; dag.len()];
    for (id, node) in dag.nodes().iter().enumerate() {
        if !(needed[id] && la[id]) {
            continue;
        }
        written[id] = node
            .children
            .iter()
            .filter(|&&c| la[c] && !is_root[c])
            .fold(1usize, |n, &c| n.saturating_add(written[c]));
        if reads[id] > 1 && written[id] > MAX_INLINED_SHARED {
            is_root[id] = true;
        }
    }
}

fn to_expr(
    dag: &Dag,
    meta: &[NodeMeta],
    la: &[bool],
    id: NodeId,
    out: &mut Extracted,
    tree: &mut Vec<NodeId>,
) -> Option<LaExpr> {
    let node = dag.node(id);
    if let Op::Literal(l) = &node.op {
        return match l {
            Literal::Double(v) => Some(LaExpr::Const(*v)),
            Literal::Int(v) => Some(LaExpr::Const(*v as f64)),
            Literal::Bool(b) => Some(LaExpr::Const(f64::from(u8::from(*b)))),
            Literal::Str(_) => None,
        };
    }
    if !la[id] {
        return leaf(node, meta, id, out);
    }
    if !tree.contains(&id) {
        tree.push(id);
    }
    let mut child = |k: usize| to_expr(dag, meta, la, node.children[k], out, tree).map(Box::new);
    Some(match &node.op {
        Op::Binary(BinaryOp::Add) => LaExpr::Add(child(0)?, child(1)?),
        Op::Binary(BinaryOp::Sub) => LaExpr::Sub(child(0)?, child(1)?),
        Op::Binary(BinaryOp::Mul) => LaExpr::Mul(child(0)?, child(1)?),
        Op::Binary(BinaryOp::Pow) if matches!(dag.node(node.children[1]).op, Op::Literal(_)) => {
            let LaExpr::Const(k) = *child(1)? else {
                return None;
            };
            LaExpr::Pow(child(0)?, k)
        }
        Op::MatMul => LaExpr::MatMul(child(0)?, child(1)?),
        Op::Transpose => LaExpr::Transpose(child(0)?),
        Op::Unary(UnaryOp::Neg) => LaExpr::Neg(child(0)?),
        Op::Agg(AggFn::Sum, Axis::All) => LaExpr::Sum(child(0)?),
        Op::Agg(AggFn::Sum, Axis::Row) => LaExpr::RowSums(child(0)?),
        Op::Agg(AggFn::Sum, Axis::Col) => LaExpr::ColSums(child(0)?),
        Op::Builtin(Builtin::Matrix) => {
            let NodeMeta::Matrix { shape, .. } = &meta[id] else {
                return None;
            };
            LaExpr::Fill(child(0)?, Dim::Known(shape.rows), Dim::Known(shape.cols))
        }
        Op::Index { rows, cols } => {
            let mut next = 1;
            let mut bounds = |kind: IndexKind| -> Option<[LaExpr; 2]> {
                let bound = |k: usize| match &dag.node(node.children[k]).op {
                    Op::Literal(Literal::Int(v)) => Some(LaExpr::Const(*v as f64)),
                    Op::Literal(Literal::Double(v)) => Some(LaExpr::Const(*v)),
                    _ => None,
                };
                let pair = match kind {
                    IndexKind::All => [LaExpr::Const(0.0), LaExpr::Const(0.0)],
                    IndexKind::Single => [bound(next)?, bound(next)?],
                    IndexKind::Range => [bound(next)?, bound(next + 1)?],
                };
                next += kind.arity();
                Some(pair)
            };
            let [rl, ru] = bounds(*rows)?;
            let [cl, cu] = bounds(*cols)?;
            LaExpr::Func {
                name: spores_opt::la::INDEX.into(),
                args: vec![*child(0)?, rl, ru, cl, cu],
            }
        }
        Op::Builtin(Builtin::Outer) => {
            let (a, b) = (child(0)?, child(1)?);
            match outer_op(dag, node)? {
                BinaryOp::Add => LaExpr::Add(a, b),
                BinaryOp::Sub => LaExpr::Sub(a, b),
                BinaryOp::Mul => LaExpr::Mul(a, b),
                op => LaExpr::Func {
                    name: function_name(&Op::Binary(op), 2)?.to_string(),
                    args: vec![*a, *b],
                },
            }
        }
        op => {
            let name = function_name(op, node.children.len())?;
            let args = (0..node.children.len())
                .map(|k| child(k).map(|b| *b))
                .collect::<Option<Vec<_>>>()?;
            LaExpr::Func {
                name: name.to_string(),
                args,
            }
        }
    })
}

/// A value the optimizer treats as an input: named after the block variable it reads,
/// or `_tN` after its node.
fn leaf(
    node: &crate::dag::Node,
    meta: &[NodeMeta],
    id: NodeId,
    out: &mut Extracted,
) -> Option<LaExpr> {
    let name = match &node.op {
        Op::Input(v) => v.clone(),
        _ => format!("_t{id}"),
    };
    match &meta[id] {
        NodeMeta::Matrix { shape, nnz } => {
            out.env
                .matrix(&name, Dim::Known(shape.rows), Dim::Known(shape.cols));
            out.env.set_nnz(&name, *nnz);
        }
        NodeMeta::Scalar(_) => {
            out.env.scalar(&name);
        }
        NodeMeta::Unknown => return None,
    }
    out.leaves.insert(name.clone(), id);
    Some(LaExpr::Var(name))
}

/// A root's optimized expression, and the guard its value must pass when it may read a
/// non-finite value (with the block nodes the guard's inputs are; see
/// [`crate::dag::guard`]).
pub struct Replacement {
    pub expr: LaExpr,
    pub guard: Option<RootGuard>,
}

/// Rebuilds the block with the given roots replaced by (optimized) expressions over
/// the same leaves, each behind its guard if it has one. Fails only when an expression
/// names an operator that has no kernel, in which case the caller keeps the original
/// block.
pub fn rebuild(
    block: &BlockDag,
    replacements: &HashMap<NodeId, Replacement>,
    leaves: &HashMap<String, NodeId>,
) -> Result<BlockDag, ConvertError> {
    rebuild_with(block, |out, id, remap| {
        let Some(Replacement { expr, guard }) = replacements.get(&id) else {
            return Ok(None);
        };
        let span = block.dag.node(id).span;
        let value = add_expr(
            out,
            expr,
            &|name| leaves.get(name).map(|&old| remap[old]),
            span,
        )?;
        Ok(Some((value, guard.as_ref())))
    })
}

/// A guard a replaced root's value must pass, with the (old) block nodes it reads.
pub type RootGuard = (Arc<GuardedRoot>, Vec<NodeId>);

/// Rebuilds the block node by node; `replace(out, id, remap)` may give the value of node
/// `id` as a node it adds to `out` (`remap` maps the ids of the nodes before `id` to the
/// new block's) and the guard it goes behind, or `None` to copy the node. A replaced
/// root keeps the kind of value it had (a scalar or a matrix).
pub fn rebuild_with<'g>(
    block: &BlockDag,
    mut replace: impl FnMut(
        &mut Dag,
        NodeId,
        &[NodeId],
    ) -> Result<Option<(NodeId, Option<&'g RootGuard>)>, ConvertError>,
) -> Result<BlockDag, ConvertError> {
    let mut out = Dag::new();
    let mut remap: Vec<NodeId> = Vec::with_capacity(block.dag.len());
    for (id, node) in block.dag.nodes().iter().enumerate() {
        let new_id = match replace(&mut out, id, &remap)? {
            Some((value, guard)) => {
                // DML tells a scalar from a 1x1 matrix (`sum(v * v)` vs `t(v) %*% v`); a
                // plan must give the root's value the kind it had.
                let keep_kind = if produces_scalar(&node.op) {
                    Builtin::AsScalar
                } else {
                    Builtin::AsMatrix
                };
                let value = out.add(Op::Builtin(keep_kind), vec![value], node.span);
                match guard {
                    Some((guard, inputs)) => {
                        let children = std::iter::once(value)
                            .chain(inputs.iter().map(|&i| remap[i]))
                            .collect();
                        out.add_unique(Op::Guarded(guard.clone()), children, node.span)
                    }
                    None => value,
                }
            }
            None => {
                let children = node.children.iter().map(|&c| remap[c]).collect();
                if node.op.is_pure() {
                    out.add(node.op.clone(), children, node.span)
                } else {
                    out.add_unique(node.op.clone(), children, node.span)
                }
            }
        };
        remap.push(new_id);
    }
    Ok(block.remapped(out, &remap))
}

fn add_expr(
    dag: &mut Dag,
    e: &LaExpr,
    leaf: &dyn Fn(&str) -> Option<NodeId>,
    span: spores_lang::diag::Span,
) -> Result<NodeId, ConvertError> {
    let add = |dag: &mut Dag, op: Op, args: &[&LaExpr]| -> Result<NodeId, ConvertError> {
        let children = args
            .iter()
            .map(|a| add_expr(dag, a, leaf, span))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(dag.add(op, children, span))
    };
    match e {
        LaExpr::Var(name) => {
            leaf(name).ok_or_else(|| ConvertError::UnknownInput { name: name.clone() })
        }
        LaExpr::Const(c) => Ok(dag.add(Op::Literal(Literal::Double(*c)), vec![], span)),
        LaExpr::Add(a, b) => add(dag, Op::Binary(BinaryOp::Add), &[a, b]),
        LaExpr::Sub(a, b) => add(dag, Op::Binary(BinaryOp::Sub), &[a, b]),
        LaExpr::Mul(a, b) => add(dag, Op::Binary(BinaryOp::Mul), &[a, b]),
        LaExpr::MatMul(a, b) => add(dag, Op::MatMul, &[a, b]),
        LaExpr::Transpose(a) => add(dag, Op::Transpose, &[a]),
        LaExpr::Neg(a) => add(dag, Op::Unary(UnaryOp::Neg), &[a]),
        LaExpr::Sum(a) => add(dag, Op::Agg(AggFn::Sum, Axis::All), &[a]),
        LaExpr::RowSums(a) => add(dag, Op::Agg(AggFn::Sum, Axis::Row), &[a]),
        LaExpr::ColSums(a) => add(dag, Op::Agg(AggFn::Sum, Axis::Col), &[a]),
        LaExpr::Pow(a, k) => add(dag, Op::Binary(BinaryOp::Pow), &[a, &LaExpr::Const(*k)]),
        LaExpr::Fill(v, r, c) => {
            let (Dim::Known(rows), Dim::Known(cols)) = (r, c) else {
                return Err(ConvertError::SymbolicSize {
                    expr: Box::new(e.clone()),
                });
            };
            let value = add_expr(dag, v, leaf, span)?;
            let int = |n: usize| Op::Literal(Literal::Int(n as i64));
            let rows = dag.add(int(*rows), vec![], span);
            let cols = dag.add(int(*cols), vec![], span);
            let byrow = dag.add(Op::Literal(Literal::Bool(true)), vec![], span);
            Ok(dag.add(
                Op::Builtin(Builtin::Matrix),
                vec![value, rows, cols, byrow],
                span,
            ))
        }
        LaExpr::Func { name, args } if name == spores_opt::la::INDEX && args.len() == 5 => {
            // Bounds `0, 0` are an empty position, equal ones a single index.
            let mut children = vec![add_expr(dag, &args[0], leaf, span)?];
            let mut kind = |lo: &LaExpr, hi: &LaExpr, children: &mut Vec<NodeId>| match (lo, hi) {
                (LaExpr::Const(a), LaExpr::Const(b)) if *a == 0.0 && *b == 0.0 => {
                    Ok(IndexKind::All)
                }
                _ if lo == hi => {
                    children.push(add_expr(dag, lo, leaf, span)?);
                    Ok(IndexKind::Single)
                }
                _ => {
                    children.push(add_expr(dag, lo, leaf, span)?);
                    children.push(add_expr(dag, hi, leaf, span)?);
                    Ok(IndexKind::Range)
                }
            };
            let rows = kind(&args[1], &args[2], &mut children)?;
            let cols = kind(&args[3], &args[4], &mut children)?;
            Ok(dag.add(Op::Index { rows, cols }, children, span))
        }
        LaExpr::Func { name, args } => {
            let op = function_op(name, args.len()).ok_or_else(|| ConvertError::NoKernel {
                name: name.clone(),
                arity: args.len(),
            })?;
            let args: Vec<&LaExpr> = args.iter().collect();
            add(dag, op, &args)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_catalogue_operator_has_a_node_and_keeps_its_name_and_arity() {
        for entry in spores_opt::fused::CATALOGUE {
            let op = function_op(entry.name, entry.operands)
                .unwrap_or_else(|| panic!("no node for {}", entry.name));
            assert_eq!(op, Op::Fused(Fused::Catalogue(entry.kind)));
            assert_eq!(op.name(), entry.name);
            assert_eq!(function_name(&op, entry.operands), Some(entry.name));
            assert_eq!(function_name(&op, entry.operands + 1), None);
        }
        assert_eq!(function_op("wsloss", 2), None);
    }

    /// The LA roots of `src` (inputs `X`, `U`, `V` of shape 40x40), with the number of
    /// operator nodes of each root's expression.
    fn roots_of(src: &str) -> Vec<(LaExpr, usize)> {
        use crate::opt::InputMeta;
        let block = crate::dag::lower_source(src).unwrap();
        let inputs: HashMap<String, InputMeta> = ["X", "U", "V"]
            .iter()
            .map(|name| {
                let meta = InputMeta::Matrix {
                    shape: spores_exec::Shape::new(40, 40),
                    nnz: 1600,
                    finite: true.into(),
                };
                (name.to_string(), meta)
            })
            .collect();
        let meta = crate::dag::meta::infer(&block.dag, &inputs);
        fn operators(e: &LaExpr) -> usize {
            let mut n = usize::from(!matches!(e, LaExpr::Var(_) | LaExpr::Const(_)));
            e.for_each_child(|c| n += operators(c));
            n
        }
        extract(&block, &meta)
            .roots
            .into_iter()
            .map(|r| {
                let n = operators(&r.expr);
                (r.expr, n)
            })
            .collect()
    }

    /// Each line doubles the written-out expression; the block is cut at large shared
    /// nodes, so its roots stay small and together linear in the number of lines.
    #[test]
    fn a_chain_of_doublings_is_cut_into_roots_of_bounded_size() {
        for line in ["X = X + X", "X = X %*% X / 3"] {
            let operators = |lines: usize| -> (usize, usize) {
                let src = format!("{}\nZ = X\n", vec![line; lines].join("\n"));
                let roots = roots_of(&src);
                let total = roots.iter().map(|(_, n)| n).sum();
                let largest = roots.iter().map(|(_, n)| *n).max().unwrap_or(0);
                (total, largest)
            };
            let (total_100, largest_100) = operators(100);
            let (total_200, largest_200) = operators(200);
            assert!(
                largest_100.max(largest_200) <= 2 * MAX_INLINED_SHARED + 2,
                "{line}"
            );
            assert!(total_100 >= 100, "{line}: {total_100} operators");
            assert!(
                total_200 as f64 <= 2.2 * total_100 as f64,
                "{line}: {total_100} operators for 100 lines, {total_200} for 200"
            );
        }
    }

    /// A small shared subexpression (one node of the block, read twice) stays inlined at
    /// each read: the sum is one expression over `X`, `U` and `V`, which the search can
    /// fuse.
    #[test]
    fn a_small_shared_subexpression_stays_inlined() {
        let roots = roots_of("s = sum((X - U %*% t(V)) * (X - U %*% t(V)))\n");
        let exprs: Vec<String> = roots.iter().map(|(e, _)| e.to_string()).collect();
        assert_eq!(
            exprs,
            ["sum((X - U %*% t(V)) * (X - U %*% t(V)))"],
            "{exprs:?}"
        );
    }
}
