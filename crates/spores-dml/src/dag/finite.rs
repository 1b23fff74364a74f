//! Which nodes of a block may hold NaN or ±Inf.
//!
//! The optimizer's rewrites hold for real numbers: distributing a sum over a product
//! turns `Inf * (1 - 1)` (which is 0) into `Inf - Inf` (which is NaN). What a block reads
//! is known exactly (each input matrix records whether its cells are all finite); what it
//! computes is judged per operator: sums, products, transposes, aggregates, comparisons
//! and indexing of finite values are finite (overflow aside), while `/`, `^`, `exp`,
//! `log`, `sqrt`, calls and anything not listed may create a non-finite value from finite
//! ones. [`crate::dag::guard`] uses both answers to decide what a rewritten root must
//! check when it runs.

use std::collections::HashMap;

use spores_exec::kernels::elementwise::BinaryOp;
use spores_exec::kernels::unary::UnaryOp;

use super::{Builtin, Dag, Fused, Literal, NodeId, Op};
use crate::dag::input::InputMeta;

/// For each node of `dag`, whether its value may contain NaN or ±Inf, given what is known
/// about the block's inputs (an input without metadata may).
pub fn may_be_non_finite(dag: &Dag, inputs: &HashMap<String, InputMeta>) -> Vec<bool> {
    let mut out: Vec<bool> = Vec::with_capacity(dag.len());
    for id in 0..dag.len() {
        let may = judge(dag, id, &|c| out[c], &|name| {
            inputs.get(name).is_none_or(|m| !m.is_finite())
        });
        out.push(may);
    }
    out
}

/// Whether node `id` may make NaN or ±Inf out of finite operands (`x / y`, `exp(x)`, a
/// call, a non-finite literal); an input does not.
pub fn makes_non_finite(dag: &Dag, id: NodeId) -> bool {
    judge(dag, id, &|_| false, &|_| false)
}

/// Whether node `id` may be non-finite, given whether each child may be
/// (`child_may`) and whether each block input may be (`input_may`).
fn judge(
    dag: &Dag,
    id: NodeId,
    child_may: &dyn Fn(NodeId) -> bool,
    input_may: &dyn Fn(&str) -> bool,
) -> bool {
    let node = dag.node(id);
    let any_child = node.children.iter().any(|&c| child_may(c));
    let child = |k: usize| node.children.get(k).is_none_or(|&c| child_may(c));
    let literal = |k: usize| match node.children.get(k).map(|&c| &dag.node(c).op) {
        Some(Op::Literal(Literal::Double(v))) => Some(*v),
        Some(Op::Literal(Literal::Int(v))) => Some(*v as f64),
        _ => None,
    };
    match &node.op {
        Op::Input(name) => input_may(name),
        Op::Literal(Literal::Double(v)) => !v.is_finite(),
        Op::Literal(_) => false,
        Op::Binary(op) => match op {
            BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Min | BinaryOp::Max => {
                any_child
            }
            BinaryOp::Eq
            | BinaryOp::Ne
            | BinaryOp::Lt
            | BinaryOp::Le
            | BinaryOp::Gt
            | BinaryOp::Ge
            | BinaryOp::And
            | BinaryOp::Or => false,
            // Dividing by a non-zero constant keeps finite values finite.
            BinaryOp::Div | BinaryOp::Mod | BinaryOp::IntDiv => {
                child(0) || !literal(1).is_some_and(|d| d != 0.0 && d.is_finite())
            }
            // A non-negative integer power is a product.
            BinaryOp::Pow => child(0) || !literal(1).is_some_and(|k| k >= 0.0 && k.fract() == 0.0),
        },
        Op::Unary(op) => match op {
            UnaryOp::IsNaN | UnaryOp::IsInf | UnaryOp::Not => false,
            UnaryOp::Neg
            | UnaryOp::Abs
            | UnaryOp::Round
            | UnaryOp::Floor
            | UnaryOp::Ceil
            | UnaryOp::Sign
            | UnaryOp::Sigmoid
            | UnaryOp::Sin
            | UnaryOp::Cos
            | UnaryOp::Atan
            | UnaryOp::Tanh => any_child,
            _ => true,
        },
        Op::MatMul | Op::Transpose | Op::Agg(..) => any_child,
        Op::Index { .. } => child(0),
        Op::LeftIndex { .. } => child(0) || child(1),
        Op::Builtin(b) => match b {
            Builtin::Nrow | Builtin::Ncol | Builtin::Length => false,
            Builtin::Rand
            | Builtin::Sample
            | Builtin::Seq
            | Builtin::Cbind
            | Builtin::Rbind
            | Builtin::AsScalar
            | Builtin::AsMatrix
            | Builtin::AsDouble
            | Builtin::Diag
            | Builtin::Trace
            | Builtin::Rev
            | Builtin::LowerTri
            | Builtin::CumSum
            | Builtin::IfElse => any_child,
            // `matrix("1 NaN", ...)` parses its cells from the string.
            Builtin::Matrix => {
                let from_text = node
                    .children
                    .first()
                    .is_some_and(|&c| matches!(dag.node(c).op, Op::Literal(Literal::Str(_))));
                from_text || child(0)
            }
            _ => true,
        },
        Op::Fused(f) => match f {
            Fused::Masked(_) | Fused::Elementwise(_) => true,
            _ => any_child,
        },
        Op::Guarded(_) => any_child,
        Op::Call { .. } | Op::Extract(_) | Op::Relational(_) => true,
    }
}
