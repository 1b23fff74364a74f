//! Dead assignments: what a block assigns and nothing reads afterwards does not run, as in
//! SystemDS, but what is wrong in it before running is still reported, as SystemDS's
//! validation reports it: shapes known before the block runs that cannot meet in a
//! matrix product or a cellwise operator.
//!
//! SystemDS's own scripts rely on the first half: `steplm` slices column 0 of a matrix
//! on a path that never reads the slice. A script's author relies on the second: a
//! mistyped product in an unfinished script is an error, not silence.

use std::collections::HashMap;

use spores_exec::kernels::elementwise::broadcast_shape;
use spores_exec::ExecError;
use spores_lang::diag::Span;

use super::input::InputMeta;
use super::meta::{infer, NodeMeta};
use super::{BlockDag, NodeId, Op};

/// The first shape error, in node order, among the nodes that only `dropped` (outputs the
/// block no longer computes) read, with the node's place in the script; `None` when
/// every such node's shapes can meet, or are not known before running.
pub fn shape_error_in_dropped(
    block: &BlockDag,
    dropped: &[NodeId],
    inputs: &HashMap<String, InputMeta>,
) -> Option<(Span, ExecError)> {
    let kept = reachable(
        block,
        block
            .outputs
            .iter()
            .map(|(_, id)| *id)
            .chain(block.effects.iter().copied()),
    );
    let dead = reachable(block, dropped.iter().copied());
    if !dead.iter().zip(&kept).any(|(&d, &k)| d && !k) {
        return None;
    }
    let meta = infer(&block.dag, inputs);
    let shape = |id: NodeId| match &meta[id] {
        NodeMeta::Matrix { shape, .. } => Some(*shape),
        _ => None,
    };
    block.dag.nodes().iter().enumerate().find_map(|(id, node)| {
        if !dead[id] || kept[id] {
            return None;
        }
        let children = || Some((shape(node.children[0])?, shape(node.children[1])?));
        let (symbol, (left, right)) = match &node.op {
            Op::MatMul => ("%*%", children().filter(|(a, b)| a.cols != b.rows)?),
            Op::Binary(op) => (
                op.symbol(),
                children().filter(|&(a, b)| broadcast_shape(a, b).is_none())?,
            ),
            _ => return None,
        };
        Some((node.span, ExecError::shape_mismatch(symbol, left, right)))
    })
}

/// Which nodes `roots` read, directly or through others.
fn reachable(block: &BlockDag, roots: impl Iterator<Item = NodeId>) -> Vec<bool> {
    let mut seen = vec![false; block.dag.len()];
    let mut stack: Vec<NodeId> = roots.collect();
    while let Some(id) = stack.pop() {
        if !std::mem::replace(&mut seen[id], true) {
            stack.extend(block.dag.node(id).children.iter().copied());
        }
    }
    seen
}
