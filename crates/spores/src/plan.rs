//! Physical planning: kernel choices that need no cost model, made on the DAG that the
//! optimizer returns, just before it runs.
//!
//! Today this is one rule: a product with a transposed operand (`X %*% t(Y)`,
//! `t(X) %*% y`) runs as [`Fused::MatMulT`], which reads the operand through its
//! transposed layout instead of copying it, provided nothing else needs the transposed
//! copy.

use crate::dag::{BlockDag, Dag, Fused, Op};

/// Returns the block with products of transposes fused, or `None` when nothing changed.
pub fn physical(block: &BlockDag) -> Option<BlockDag> {
    let dag = &block.dag;
    let needed = dag.reachable(block.roots());
    let mut uses = vec![0usize; dag.len()];
    for (id, node) in dag.nodes().iter().enumerate() {
        if needed[id] {
            for &c in &node.children {
                uses[c] += 1;
            }
        }
    }
    for root in block.roots() {
        uses[root] += 1;
    }
    // A transpose only this product reads; both children being the same single-use
    // transpose (`t(A) %*% t(A)`) counts two uses, so it is left alone.
    let private_transpose = |c: usize| matches!(dag.node(c).op, Op::Transpose) && uses[c] == 1;

    let mut changed = false;
    let mut out = Dag::new();
    let mut remap = Vec::with_capacity(dag.len());
    for node in dag.nodes() {
        let children: Vec<usize> = node.children.iter().map(|&c| remap[c]).collect();
        let id = match node.op {
            Op::MatMul
                if private_transpose(node.children[0]) || private_transpose(node.children[1]) =>
            {
                changed = true;
                let (a, b) = (node.children[0], node.children[1]);
                let (transpose_a, transpose_b) = (private_transpose(a), private_transpose(b));
                let operand = |c: usize, transposed: bool| {
                    if transposed {
                        remap[dag.node(c).children[0]]
                    } else {
                        remap[c]
                    }
                };
                let op = Op::Fused(Fused::MatMulT {
                    transpose_a,
                    transpose_b,
                });
                out.add(
                    op,
                    vec![operand(a, transpose_a), operand(b, transpose_b)],
                    node.span,
                )
            }
            _ if node.op.is_pure() => out.add(node.op.clone(), children, node.span),
            _ => out.add_unique(node.op.clone(), children, node.span),
        };
        remap.push(id);
    }
    changed.then(|| BlockDag {
        dag: out,
        outputs: block
            .outputs
            .iter()
            .map(|(n, id)| (n.clone(), remap[*id]))
            .collect(),
        effects: block.effects.iter().map(|id| remap[*id]).collect(),
        span: block.span,
    })
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;
    use crate::dag::{lower_block, LowerContext};

    fn planned(src: &str) -> BlockDag {
        let program = spores_lang::parse(src).unwrap();
        let (functions, args) = (HashMap::new(), HashMap::new());
        let ctx = LowerContext {
            functions: &functions,
            args: &args,
        };
        let block = lower_block(&program.body, &ctx).unwrap();
        physical(&block).unwrap_or(block)
    }

    fn live_ops(block: &BlockDag) -> Vec<String> {
        let needed = block.dag.reachable(block.roots());
        block
            .dag
            .nodes()
            .iter()
            .enumerate()
            .filter(|(id, _)| needed[*id])
            .map(|(_, n)| n.op.name())
            .collect()
    }

    #[test]
    fn private_transposes_fuse_into_the_product() {
        let ops = live_ops(&planned("A = X %*% t(Y)\nB = t(X) %*% y\n"));
        assert!(ops.contains(&"A%*%t(B)".to_string()), "{ops:?}");
        assert!(ops.contains(&"t(A)%*%B".to_string()), "{ops:?}");
        assert!(!ops.contains(&"t".to_string()), "{ops:?}");
    }

    #[test]
    fn a_shared_transpose_is_kept() {
        let ops = live_ops(&planned("T = t(Y)\nA = X %*% T\n"));
        assert!(
            ops.contains(&"t".to_string()) && ops.contains(&"%*%".to_string()),
            "{ops:?}"
        );
    }
}
