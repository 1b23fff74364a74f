//! SystemDS's weighted division: where a quotient by a low-rank product feeds a product
//! with one of its factors, the quotient is taken at the numerator's non-zeros only.
//!
//! Division is IEEE's (`0 / 0` is NaN), but SystemDS rewrites
//! `t(U) %*% (W / (U %*% t(V)))` and `(W / (U %*% t(V))) %*% V` into its `wdivmm`
//! operator, which divides only where `W` is non-zero. Its users rely on it: Poisson NMF
//! (`H * (t(W) %*% (X / (W %*% H)))`) over data with an empty row or column drives a row
//! of `W %*% H` to exactly 0, and only the weighted division keeps the NaN of `0 / 0` out
//! of the factors. So spores reads these two shapes as SystemDS does, in the program
//! itself (optimized or not, `--no-opt` too): the quotient that feeds the product becomes
//! `masked_div(W, E)`, which is `(W != 0) * (W / E)`. The same quotient read anywhere
//! else stays a plain division. Unlike SystemDS, which fuses only when the sizes say the
//! product is low-rank, this holds at every size.

use super::op::{CatalogueOp, Fused};
use super::{Dag, NodeId, Op};
use spores_exec::kernels::elementwise::BinaryOp;

/// The children of `a %*% b`, with a quotient read as SystemDS's weighted division when
/// the product is one of its two shapes.
pub(super) fn weighted(dag: &mut Dag, a: NodeId, b: NodeId) -> (NodeId, NodeId) {
    // t(U) %*% (W / (U %*% V))
    if let Some((w, e, u, _)) = quotient_by_product(dag, b) {
        if transposes(dag, a, u) {
            return (a, masked(dag, b, w, e));
        }
    }
    // (W / (U %*% V)) %*% t(V)
    if let Some((w, e, _, v)) = quotient_by_product(dag, a) {
        if transposes(dag, b, v) {
            return (masked(dag, a, w, e), b);
        }
    }
    (a, b)
}

/// `W / (U %*% V)` as `(W, U %*% V, U, V)`.
fn quotient_by_product(dag: &Dag, q: NodeId) -> Option<(NodeId, NodeId, NodeId, NodeId)> {
    let node = dag.node(q);
    let (Op::Binary(BinaryOp::Div), [w, e]) = (&node.op, node.children.as_slice()) else {
        return None;
    };
    let product = dag.node(*e);
    match (&product.op, product.children.as_slice()) {
        (Op::MatMul, [u, v]) => Some((*w, *e, *u, *v)),
        _ => None,
    }
}

/// Whether `a` is `t(b)` or `b` is `t(a)`.
fn transposes(dag: &Dag, a: NodeId, b: NodeId) -> bool {
    let is_transpose_of = |x: NodeId, y: NodeId| {
        let node = dag.node(x);
        matches!(node.op, Op::Transpose) && node.children == [y]
    };
    is_transpose_of(a, b) || is_transpose_of(b, a)
}

fn masked(dag: &mut Dag, quotient: NodeId, w: NodeId, e: NodeId) -> NodeId {
    let span = dag.node(quotient).span;
    dag.add(
        Op::Fused(Fused::Catalogue(CatalogueOp::MaskedDiv)),
        vec![w, e],
        span,
    )
}

#[cfg(test)]
mod tests {
    use crate::dag::lower_source;

    fn ops(src: &str) -> Vec<String> {
        lower_source(src).unwrap().live_op_names()
    }

    #[test]
    fn the_two_shapes_of_systemds_wdivmm_divide_at_the_non_zeros() {
        for src in [
            "G = t(W) %*% (X / (W %*% H))\n",
            "R = (X / (W %*% H)) %*% t(H)\n",
            "R = (X / (U %*% t(V))) %*% V\n",
        ] {
            let ops = ops(src);
            assert!(ops.contains(&"masked_div".to_string()), "{src}: {ops:?}");
            assert!(!ops.contains(&"/".to_string()), "{src}: {ops:?}");
        }
    }

    #[test]
    fn other_quotients_stay_divisions() {
        for src in [
            "s = sum(X / (W %*% H))\n",
            "G = t(H) %*% (X / (W %*% H))\n",
            "R = (X / (W %*% H)) %*% H\n",
            "G = t(W) %*% (X / rowSums(X))\n",
        ] {
            let ops = ops(src);
            assert!(!ops.contains(&"masked_div".to_string()), "{src}: {ops:?}");
            assert!(ops.contains(&"/".to_string()), "{src}: {ops:?}");
        }
        // Read twice: the product reads the weighted quotient, the sum the division.
        let both = ops("G = t(W) %*% (X / (W %*% H))\ns = sum(X / (W %*% H))\n");
        assert!(both.contains(&"masked_div".to_string()), "{both:?}");
        assert!(both.contains(&"/".to_string()), "{both:?}");
    }
}
