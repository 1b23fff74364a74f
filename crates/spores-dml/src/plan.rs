//! Physical planning: kernel choices made on the DAG that the optimizer returns, just
//! before it runs. Every choice here is about how one node of the chosen plan runs, not
//! which plan runs: the search decides that (docs/ARCHITECTURE.md, physical planning).
//!
//! Rules:
//! * A product with a transposed operand (`X %*% t(Y)`, `t(X) %*% y`) runs as
//!   [`Fused::MatMulT`], which reads the operand through its transposed layout instead
//!   of copying it, provided nothing else needs the transposed copy.
//! * A masked operator the search chose (`masked_mul(X, E)` = `X * E`, `masked_div(X, E)`
//!   = `X / E`: the element-wise tree `E` evaluated only at the non-zeros of a sparse
//!   `X`, see `spores_opt::extract`) runs as a [`Fused::Masked`] node: its tree is
//!   compiled into a program over `X`'s non-zeros, low-rank products `U %*% V` /
//!   `U %*% t(V)` inside it become per-cell dot products (the dense `m x n` product is
//!   never formed), and a consumer `sum(.)`, `t(A) %*% .` / `A %*% .` or `. %*% B` /
//!   `. %*% t(B)` is fused as well (SystemDS's wcemm and wdivmm). Only nodes no one else
//!   reads are absorbed; a shared intermediate is read as a leaf. Shapes must be known
//!   ([`NodeMeta`]); a masked operator planned without them runs as `X * E`.
//! * Last, each tree of element-wise nodes left runs as one [`Fused::Elementwise`] pass
//!   ([`fuse_elementwise`]).

use std::collections::HashMap;
use std::sync::Arc;

use spores_exec::kernels::masked::{Instr, MaskedProgram};

use crate::dag::meta::NodeMeta;
use crate::dag::{
    AggFn, Axis, BlockDag, CatalogueOp, Dag, Fused, MaskedOperand, MaskedOutput, MaskedPlan,
    NodeId, Op,
};

/// Largest inner dimension of a product read as a low-rank leaf (the search's bound), and
/// largest column count of a fused product's other operand: both are converted to dense
/// copies and the per-non-zero work grows with them.
pub use spores_opt::extract::MAX_RANK;

/// Whether a block has a masked operator, whose compilation needs shapes, so that the
/// interpreter gathers input metadata only for such blocks.
pub fn wants_meta(block: &BlockDag) -> bool {
    block
        .dag
        .nodes()
        .iter()
        .any(|n| matches!(&n.op, Op::Fused(Fused::Catalogue(kind)) if kind.is_masked()))
}

/// Returns the planned block, or `None` when nothing changed. `meta` (one entry per node
/// of `block.dag`, from [`crate::dag::meta::infer`]) enables compiling masked operators.
/// Element-wise fusion ([`fuse_elementwise`]) runs last, on what the other rules left.
pub fn physical(block: &BlockDag, meta: Option<&[NodeMeta]>) -> Option<BlockDag> {
    physical_with(block, meta, true)
}

/// [`physical`], with element-wise fusion only when `fuse` holds.
pub fn physical_with(block: &BlockDag, meta: Option<&[NodeMeta]>, fuse: bool) -> Option<BlockDag> {
    let planned = physical_rules(block, meta);
    if !fuse {
        return planned;
    }
    fuse_elementwise(planned.as_ref().unwrap_or(block)).or(planned)
}

/// Whether a node is an element-wise operator the fused kernel can compute.
fn is_elementwise(op: &Op) -> bool {
    matches!(
        op,
        Op::Binary(_) | Op::Unary(_) | Op::Builtin(crate::dag::Builtin::IfElse)
    )
}

/// Fuses each tree of element-wise nodes whose inner nodes nobody else reads (and its
/// `sum`/`rowSums`/`colSums` consumer, when that is the tree's only reader) into one
/// [`Fused::Elementwise`] node, which computes it in one pass over the cells without
/// materializing the intermediates. A tree is fused when it has at least two operators,
/// or one operator and a fused sum. Shapes need not be known: the node checks them when
/// it runs and falls back to the operators one by one (see `runtime::ops`).
pub fn fuse_elementwise(block: &BlockDag) -> Option<BlockDag> {
    use spores_exec::kernels::ew_fused::{EwInstr, EwOutput, EwProgram};
    let dag = &block.dag;
    let needed = dag.reachable(block.roots());
    let mut uses = vec![0usize; dag.len()];
    let mut parent: Vec<Option<NodeId>> = vec![None; dag.len()];
    for (id, node) in dag.nodes().iter().enumerate() {
        if needed[id] {
            for &c in &node.children {
                uses[c] += 1;
                parent[c] = Some(id);
            }
        }
    }
    for root in block.roots() {
        uses[root] += 1;
    }
    let ew = |n: NodeId| needed[n] && is_elementwise(&dag.node(n).op);
    // Inner nodes: element-wise, read once, by an element-wise node.
    let inner = |n: NodeId| ew(n) && uses[n] == 1 && parent[n].is_some_and(ew);

    let mut rewrites: HashMap<NodeId, (Op, Vec<NodeId>)> = HashMap::new();
    for r in 0..dag.len() {
        if !ew(r) || inner(r) {
            continue;
        }
        // The tree's program, in postfix order; leaves become operands.
        let mut instrs = Vec::new();
        let mut leaves: Vec<NodeId> = Vec::new();
        let mut ops = 0usize;
        let mut stack = vec![(r, false)];
        while let Some((n, expanded)) = stack.pop() {
            let node = dag.node(n);
            if n != r && !inner(n) {
                let k = leaves.iter().position(|&l| l == n).unwrap_or_else(|| {
                    leaves.push(n);
                    leaves.len() - 1
                });
                instrs.push(EwInstr::Load(k));
            } else if expanded {
                ops += 1;
                instrs.push(match &node.op {
                    Op::Binary(b) => EwInstr::Binary(*b),
                    Op::Unary(u) => EwInstr::Unary(*u),
                    _ => EwInstr::IfElse,
                });
            } else {
                stack.push((n, true));
                stack.extend(node.children.iter().rev().map(|&c| (c, false)));
            }
        }
        // A single consumer that sums the tree is fused too.
        let consumer = parent[r]
            .filter(|_| uses[r] == 1)
            .and_then(|p| match dag.node(p).op {
                Op::Agg(AggFn::Sum, Axis::All) => Some((p, EwOutput::Sum)),
                Op::Agg(AggFn::Sum, Axis::Row) => Some((p, EwOutput::RowSums)),
                Op::Agg(AggFn::Sum, Axis::Col) => Some((p, EwOutput::ColSums)),
                _ => None,
            });
        // String concatenation (`"iter " + i`) is not worth a fused node.
        let strings = leaves
            .iter()
            .any(|&l| matches!(dag.node(l).op, Op::Literal(crate::dag::Literal::Str(_))));
        if (ops < 2 && consumer.is_none()) || strings {
            continue;
        }
        let Ok(program) = EwProgram::new(instrs) else {
            continue;
        };
        let (target, output) = consumer.unwrap_or((r, EwOutput::Map));
        let plan = crate::dag::EwPlan { program, output };
        rewrites.insert(
            target,
            (Op::Fused(Fused::Elementwise(Arc::new(plan))), leaves),
        );
    }
    if rewrites.is_empty() {
        return None;
    }
    let mut out = Dag::new();
    let mut remap = Vec::with_capacity(dag.len());
    for (id, node) in dag.nodes().iter().enumerate() {
        let (op, children) = match rewrites.get(&id) {
            Some((op, leaves)) => (op.clone(), leaves.clone()),
            None => (node.op.clone(), node.children.clone()),
        };
        let children = children.iter().map(|&c| remap[c]).collect();
        let id = if op.is_pure() {
            out.add(op, children, node.span)
        } else {
            out.add_unique(op, children, node.span)
        };
        remap.push(id);
    }
    Some(block.remapped(out, &remap))
}

/// The kernel-choice rules but element-wise fusion.
fn physical_rules(block: &BlockDag, meta: Option<&[NodeMeta]>) -> Option<BlockDag> {
    let dag = &block.dag;
    let (needed, uses) = block.needed_and_uses();
    let rewrites = match meta {
        Some(meta) if meta.len() == dag.len() => size_rewrites(dag, &needed, &uses, meta),
        _ => HashMap::new(),
    };
    // A transpose only this product reads; both children being the same single-use
    // transpose (`t(A) %*% t(A)`) counts two uses, so it is left alone.
    let private_transpose = |c: usize| matches!(dag.node(c).op, Op::Transpose) && uses[c] == 1;

    let mut changed = !rewrites.is_empty();
    let mut out = Dag::new();
    let mut remap = Vec::with_capacity(dag.len());
    for (id, node) in dag.nodes().iter().enumerate() {
        let children: Vec<usize> = node.children.iter().map(|&c| remap[c]).collect();
        let id = match (rewrites.get(&id), &node.op) {
            (Some((op, kids)), _) => out.add(
                op.clone(),
                kids.iter().map(|&c| remap[c]).collect(),
                node.span,
            ),
            (None, Op::MatMul)
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
    changed.then(|| block.remapped(out, &remap))
}

fn matrix_shape(meta: &NodeMeta) -> Option<(usize, usize)> {
    match meta {
        NodeMeta::Matrix { shape, .. } => Some((shape.rows, shape.cols)),
        _ => None,
    }
}

/// Compiles the masked operators (see [`masked_at`]), with their consumers.
fn size_rewrites(
    dag: &Dag,
    needed: &[bool],
    uses: &[usize],
    meta: &[NodeMeta],
) -> HashMap<NodeId, (Op, Vec<NodeId>)> {
    let mut rewrites = HashMap::new();
    let mut parents: Vec<Vec<NodeId>> = vec![Vec::new(); dag.len()];
    for (id, node) in dag.nodes().iter().enumerate() {
        if needed[id] {
            for &c in &node.children {
                if !parents[c].contains(&id) {
                    parents[c].push(id);
                }
            }
        }
    }
    let mut absorbed = vec![false; dag.len()];
    // Outermost first, so an expression is absorbed whole rather than in pieces.
    for r in (0..dag.len()).rev() {
        if !needed[r] || absorbed[r] || rewrites.contains_key(&r) {
            continue;
        }
        let Some(found) = masked_at(dag, uses, meta, r) else {
            continue;
        };
        // Fuse the single consumer when it is a sum or a product with a small operand.
        let mut output = MaskedOutput::Map;
        let mut target = r;
        let mut extra = None;
        let mut extra_absorbed = None;
        if uses[r] == 1
            && parents[r].len() == 1
            && !rewrites.contains_key(&parents[r][0])
            && !absorbed[parents[r][0]]
        {
            let q = parents[r][0];
            let qn = dag.node(q);
            let private_t = |c: NodeId| {
                (matches!(dag.node(c).op, Op::Transpose) && uses[c] == 1)
                    .then(|| dag.node(c).children[0])
            };
            let small = |c: NodeId, dim: usize| {
                matrix_shape(&meta[c]).is_some_and(|s| [s.0, s.1][dim] <= MAX_RANK)
            };
            match &qn.op {
                Op::Agg(AggFn::Sum, Axis::All) => {
                    output = MaskedOutput::Sum;
                    target = q;
                }
                // `o %*% E` (left) or `E %*% o` (right), `o` small on its other side or
                // a private transpose of something small, read transposed.
                Op::MatMul if (qn.children[0] == r) != (qn.children[1] == r) => {
                    let left = qn.children[1] == r;
                    let (o, dim) = if left {
                        (qn.children[0], 0)
                    } else {
                        (qn.children[1], 1)
                    };
                    let side = |transposed| {
                        if left {
                            MaskedOutput::LeftMul { transposed }
                        } else {
                            MaskedOutput::RightMul { transposed }
                        }
                    };
                    match private_t(o) {
                        Some(inner) if small(inner, 1 - dim) => {
                            output = side(true);
                            extra = Some(inner);
                            extra_absorbed = Some(o);
                        }
                        _ if small(o, dim) => {
                            output = side(false);
                            extra = Some(o);
                        }
                        _ => {}
                    }
                }
                _ => {}
            }
            if output != MaskedOutput::Map {
                target = q;
            }
        }
        if target != r {
            absorbed[r] = true;
        }
        if let Some(t) = extra_absorbed {
            absorbed[t] = true;
        }
        for &n in &found.absorbed {
            absorbed[n] = true;
        }
        let mut children = found.children;
        children.extend(extra);
        let plan = MaskedPlan {
            program: found.program,
            operands: found.operands,
            output,
        };
        rewrites.insert(target, (Op::Fused(Fused::Masked(Arc::new(plan))), children));
    }
    rewrites
}

/// A masked evaluation found at a `*` or `/` node.
struct Found {
    program: MaskedProgram,
    operands: Vec<MaskedOperand>,
    /// The mask, then the operands' nodes.
    children: Vec<NodeId>,
    /// Interior nodes the program computes (they need not be evaluated any more).
    absorbed: Vec<NodeId>,
}

/// Compiles the element-wise tree of `e` into a program over `mask`'s non-zeros.
struct Compiler<'a> {
    dag: &'a Dag,
    uses: &'a [usize],
    meta: &'a [NodeMeta],
    mask: NodeId,
    shape: (usize, usize),
    instrs: Vec<Instr>,
    operands: Vec<MaskedOperand>,
    children: Vec<NodeId>,
    absorbed: Vec<NodeId>,
    /// Operand index of each leaf node already seen (a leaf read twice is one operand).
    leaves: HashMap<NodeId, usize>,
}

impl Compiler<'_> {
    fn full_size(&self, n: NodeId) -> bool {
        matrix_shape(&self.meta[n]) == Some(self.shape)
    }

    fn compile(&mut self, n: NodeId) -> Option<()> {
        if n == self.mask {
            self.instrs.push(Instr::Mask);
            return Some(());
        }
        let node = self.dag.node(n);
        let private = self.uses[n] == 1 && self.full_size(n);
        match &node.op {
            Op::Binary(op) if private => {
                self.compile(node.children[0])?;
                self.compile(node.children[1])?;
                self.instrs.push(Instr::Binary(*op));
                self.absorbed.push(n);
                Some(())
            }
            Op::Unary(op) if private => {
                self.compile(node.children[0])?;
                self.instrs.push(Instr::Unary(*op));
                self.absorbed.push(n);
                Some(())
            }
            // A low-rank product is read as a dot per cell even when something else
            // reads it too: the dense product is then computed for that reader only, and
            // not at all when the readers are all masked.
            Op::MatMul
                if self.full_size(n) && self.low_rank(node.children[0], node.children[1]) =>
            {
                let (u, v) = (node.children[0], node.children[1]);
                let vn = self.dag.node(v);
                let (v, v_transposed) = if vn.op == Op::Transpose && self.uses[v] == 1 {
                    self.absorbed.push(v);
                    (vn.children[0], true)
                } else {
                    (v, false)
                };
                self.absorbed.push(n);
                let k = self.operands.len();
                self.operands.push(MaskedOperand::LowRank { v_transposed });
                self.children.extend([u, v]);
                self.instrs.push(Instr::Load(k));
                Some(())
            }
            _ => self.leaf(n),
        }
    }

    /// Whether `u %*% v` is a product with a small inner dimension.
    fn low_rank(&self, u: NodeId, v: NodeId) -> bool {
        matches!(
            (matrix_shape(&self.meta[u]), matrix_shape(&self.meta[v])),
            (Some((_, k)), Some((k2, _))) if k == k2 && k <= MAX_RANK
        )
    }

    fn leaf(&mut self, n: NodeId) -> Option<()> {
        let (m, cols) = self.shape;
        let fits = match &self.meta[n] {
            NodeMeta::Scalar(_) => true,
            NodeMeta::Matrix { shape, .. } => {
                let s = (shape.rows, shape.cols);
                s == (m, cols) || s == (1, cols) || s == (m, 1) || s == (1, 1)
            }
            NodeMeta::Unknown => false,
        };
        if !fits {
            return None;
        }
        let k = match self.leaves.get(&n) {
            Some(&k) => k,
            None => {
                let k = self.operands.len();
                self.operands.push(MaskedOperand::Value);
                self.children.push(n);
                self.leaves.insert(n, k);
                k
            }
        };
        self.instrs.push(Instr::Load(k));
        Some(())
    }
}

/// The masked evaluation of node `r` when it is a masked operator `masked_mul(X, E)` or
/// `masked_div(X, E)` whose tree compiles (shapes known, the program within the kernel's
/// limits).
fn masked_at(dag: &Dag, uses: &[usize], meta: &[NodeMeta], r: NodeId) -> Option<Found> {
    use spores_exec::kernels::elementwise::BinaryOp;
    let node = dag.node(r);
    let op = match node.op {
        Op::Fused(Fused::Catalogue(CatalogueOp::MaskedMul)) => BinaryOp::Mul,
        Op::Fused(Fused::Catalogue(CatalogueOp::MaskedDiv)) => BinaryOp::Div,
        _ => return None,
    };
    let (mask, other) = (node.children[0], node.children[1]);
    let NodeMeta::Matrix { shape, .. } = &meta[mask] else {
        return None;
    };
    if shape.cells() == 0 || matrix_shape(&meta[r]) != Some((shape.rows, shape.cols)) {
        return None;
    }
    let mut c = Compiler {
        dag,
        uses,
        meta,
        mask,
        shape: (shape.rows, shape.cols),
        instrs: vec![Instr::Mask],
        operands: Vec::new(),
        children: vec![mask],
        absorbed: Vec::new(),
        leaves: HashMap::new(),
    };
    c.compile(other)?;
    c.instrs.push(Instr::Binary(op));
    let program = MaskedProgram::new(c.instrs).ok()?;
    Some(Found {
        program,
        operands: c.operands,
        children: c.children,
        absorbed: c.absorbed,
    })
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;
    use crate::dag::lower_source;

    fn planned(src: &str) -> BlockDag {
        let block = lower_source(src).unwrap();
        physical(&block, None).unwrap_or(block)
    }

    fn live_ops(block: &BlockDag) -> Vec<String> {
        block.live_op_names()
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

    /// `src` lowered, each `X * e` and `X / e` replaced by the masked operator the search
    /// would choose (`masked_mul(X, e)`, `masked_div(X, e)`).
    fn lowered_masked(src: &str) -> BlockDag {
        use spores_exec::kernels::elementwise::BinaryOp;
        let block = lower_source(src).unwrap();
        let dag = &block.dag;
        let is_x = |c: NodeId| matches!(&dag.node(c).op, Op::Input(name) if name == "X");
        let mut out = Dag::new();
        let mut remap = Vec::with_capacity(dag.len());
        for node in dag.nodes() {
            let children: Vec<NodeId> = node.children.iter().map(|&c| remap[c]).collect();
            let op = match node.op {
                Op::Binary(BinaryOp::Mul) if is_x(node.children[0]) => {
                    Op::Fused(Fused::Catalogue(CatalogueOp::MaskedMul))
                }
                Op::Binary(BinaryOp::Div) if is_x(node.children[0]) => {
                    Op::Fused(Fused::Catalogue(CatalogueOp::MaskedDiv))
                }
                _ => node.op.clone(),
            };
            remap.push(if op.is_pure() {
                out.add(op, children, node.span)
            } else {
                out.add_unique(op, children, node.span)
            });
        }
        block.remapped(out, &remap)
    }

    fn planned_with_sizes(src: &str) -> BlockDag {
        let block = lowered_masked(src);
        let meta = crate::dag::meta::infer(&block.dag, &sizes());
        physical(&block, Some(&meta)).unwrap_or(block)
    }

    /// X sparse (1%), W and H its rank-10 factors.
    fn sizes() -> HashMap<String, crate::opt::InputMeta> {
        use crate::opt::InputMeta;
        use spores_exec::Shape;
        let matrix = |r, c, nnz| InputMeta::Matrix {
            shape: Shape::new(r, c),
            nnz,
            finite: crate::opt::Finiteness::Finite,
        };
        [
            ("X".to_string(), matrix(1000, 500, 5000)),
            ("W".to_string(), matrix(1000, 10, 10_000)),
            ("H".to_string(), matrix(10, 500, 5000)),
        ]
        .into_iter()
        .collect()
    }

    #[test]
    fn masked_operators_compile_with_their_consumer() {
        // Each statement alone: a product shared by two masked expressions is
        // materialized (and read as a leaf) today.
        for (src, op) in [
            ("obj = sum(W %*% H) - sum(X * log(W %*% H))", "masked_sum"),
            ("G = t(W) %*% (X / (W %*% H))", "masked_left_mm"),
            ("R = (X / (W %*% H)) %*% t(H)", "masked_right_mm"),
        ] {
            let ops = live_ops(&planned_with_sizes(&format!("{src}\n")));
            assert!(ops.contains(&op.to_string()), "{ops:?}");
            assert!(!ops.contains(&"log".to_string()), "{ops:?}");
            assert!(!ops.contains(&"t".to_string()), "{ops:?}");
            assert!(!ops.iter().any(|o| o.starts_with("masked_mul")), "{ops:?}");
            // At most the product `sum(W %*% H)` reads is left.
            assert!(ops.iter().filter(|o| *o == "%*%").count() <= 1, "{ops:?}");
        }
    }

    #[test]
    fn a_product_needed_elsewhere_is_computed_for_that_reader_only() {
        let ops = live_ops(&planned_with_sizes(
            "P = W %*% H
Y = X * exp(P)
",
        ));
        assert!(ops.contains(&"masked".to_string()), "{ops:?}");
        assert!(ops.contains(&"%*%".to_string()), "{ops:?}");
        assert!(!ops.contains(&"exp".to_string()), "{ops:?}");
        // Planning chooses no masked evaluation the search did not: `X * exp(W %*% H)`
        // as written stays, and without sizes a masked operator is not compiled.
        let block = lower_source("Y = X * exp(W %*% H)\n").unwrap();
        let meta = crate::dag::meta::infer(&block.dag, &sizes());
        let ops = live_ops(&physical(&block, Some(&meta)).unwrap_or(block));
        assert!(!ops.iter().any(|o| o.starts_with("masked")), "{ops:?}");
        let block = lowered_masked("Y = X * exp(W %*% H)\n");
        let ops = live_ops(&physical(&block, None).unwrap_or(block));
        assert!(ops.contains(&"masked_mul".to_string()), "{ops:?}");
        assert!(!ops.contains(&"masked".to_string()), "{ops:?}");
    }
}
