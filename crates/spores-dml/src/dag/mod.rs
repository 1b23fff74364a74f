//! The LA DAG: one per basic block of a script.
//!
//! Nodes are hash-consed as they are built, so a subexpression written twice in a block
//! (in one statement or across statements) is one node and is computed once. Nodes with
//! an effect or a non-deterministic result (`print`, `write`, `time()`, unseeded `rand`,
//! user-function calls) are never merged and run in statement order: node ids grow in
//! build order, and the evaluator visits needed nodes in id order.
//!
//! This is the seam between the front end and the optimizer: [`crate::opt`] takes a
//! `Dag` and returns an equivalent one.

pub mod builtins;
pub mod dead;
mod explain;
pub mod finite;
pub mod guard;
pub mod input;
mod lower;
pub mod meta;
mod op;
mod weighted_division;

use std::collections::HashMap;

pub use explain::{explain, explain_dot};
pub use lower::{
    lower_block, lower_expr, lower_source, pure_native, BlockDag, FunctionScope, LowerContext,
    NoFunctions, ResolvedFunction,
};
pub use op::{
    AggFn, Axis, Builtin, CatalogueOp, EwPlan, Fused, IndexKind, Literal, MaskedOperand,
    MaskedOutput, MaskedPlan, Op, RelationalRoot,
};
use spores_lang::diag::Span;

/// Index of a node in its [`Dag`].
pub type NodeId = usize;

#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    pub op: Op,
    pub children: Vec<NodeId>,
    /// Where in the script the node came from, for runtime errors.
    pub span: Span,
}

/// A DAG of operations; children always have smaller ids than their parents.
#[derive(Clone, Debug, Default)]
pub struct Dag {
    nodes: Vec<Node>,
    memo: HashMap<(Op, Vec<NodeId>), NodeId>,
}

impl Dag {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a node, or returns the existing identical one when the op is pure and does
    /// not draw fresh random numbers.
    pub fn add(&mut self, op: Op, children: Vec<NodeId>, span: Span) -> NodeId {
        debug_assert!(children.iter().all(|&c| c < self.nodes.len()));
        if op.is_pure() && !self.draws_fresh_randomness(&op, &children) {
            let key = (op, children);
            if let Some(&id) = self.memo.get(&key) {
                return id;
            }
            let id = self.nodes.len();
            self.nodes.push(Node {
                op: key.0.clone(),
                children: key.1.clone(),
                span,
            });
            self.memo.insert(key, id);
            id
        } else {
            self.nodes.push(Node { op, children, span });
            self.nodes.len() - 1
        }
    }

    /// Whether a call of a random builtin has no fixed seed (the seed is absent, `-1`
    /// or computed), so that two such calls give different numbers and must stay two
    /// nodes. A seed written as a non-negative literal makes the call deterministic.
    fn draws_fresh_randomness(&self, op: &Op, children: &[NodeId]) -> bool {
        let Op::Builtin(builtin) = op else {
            return false;
        };
        let literal = |k: usize| match children.get(k).map(|&c| &self.nodes[c].op) {
            Some(Op::Literal(l)) => Some(l),
            _ => None,
        };
        let seed = match builtin {
            Builtin::Rand => literal(5),
            // sample(range, size, seed) or sample(range, size, replace, seed)
            Builtin::Sample => match literal(2) {
                Some(Literal::Bool(_)) => literal(3),
                _ => literal(2),
            },
            _ => return false,
        };
        !matches!(seed, Some(Literal::Int(s)) if *s >= 0)
            && !matches!(seed, Some(Literal::Double(s)) if *s >= 0.0)
    }

    /// Adds a node that is never merged with another.
    pub fn add_unique(&mut self, op: Op, children: Vec<NodeId>, span: Span) -> NodeId {
        self.nodes.push(Node { op, children, span });
        self.nodes.len() - 1
    }

    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id]
    }

    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Marks every node reachable from `roots` (roots included).
    pub fn reachable(&self, roots: impl IntoIterator<Item = NodeId>) -> Vec<bool> {
        let mut seen = vec![false; self.nodes.len()];
        let mut stack: Vec<NodeId> = roots.into_iter().collect();
        while let Some(id) = stack.pop() {
            if !std::mem::replace(&mut seen[id], true) {
                stack.extend(&self.nodes[id].children);
            }
        }
        seen
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use spores_exec::kernels::elementwise::BinaryOp;

    #[test]
    fn pure_nodes_are_shared_and_effects_are_not() {
        let mut dag = Dag::new();
        let s = Span::default();
        let x = dag.add(Op::Input("X".into()), vec![], s);
        let x2 = dag.add(Op::Input("X".into()), vec![], s);
        assert_eq!(x, x2);
        let t1 = dag.add(Op::Transpose, vec![x], s);
        let t2 = dag.add(Op::Transpose, vec![x], s);
        assert_eq!(t1, t2);
        let sum = dag.add(Op::Binary(BinaryOp::Add), vec![x, t1], s);
        let p1 = dag.add(Op::Builtin(Builtin::Print), vec![sum], s);
        let p2 = dag.add(Op::Builtin(Builtin::Print), vec![sum], s);
        assert_ne!(p1, p2);
        assert_eq!(dag.len(), 5);
        assert_eq!(dag.reachable([t1]), vec![true, true, false, false, false]);
    }
}
