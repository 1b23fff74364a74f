//! Physical planning: kernel choices made on the DAG that the optimizer returns, just
//! before it runs.
//!
//! Rules:
//! * A product with a transposed operand (`X %*% t(Y)`, `t(X) %*% y`) runs as
//!   [`Fused::MatMulT`], which reads the operand through its transposed layout instead
//!   of copying it, provided nothing else needs the transposed copy.
//! * Given size estimates ([`NodeMeta`]), `X * e` or `X / e` with a sparse `X` (estimated
//!   density below [`MASK_DENSITY`]) runs as a [`Fused::Masked`] node that evaluates the
//!   element-wise tree `e` only at `X`'s non-zeros: under the zero-annihilating cell
//!   semantics the result is zero elsewhere whatever `e` is. Low-rank products
//!   `U %*% V` / `U %*% t(V)` inside `e` become per-cell dot products, so the dense
//!   `m x n` product is never formed; a consumer `sum(.)`, `t(A) %*% .` / `A %*% .` or
//!   `. %*% B` / `. %*% t(B)` is fused as well (SystemDS's wcemm and wdivmm). Only
//!   nodes no one else reads are absorbed; a shared intermediate is read as a leaf.
//! * Last, each tree of element-wise nodes left runs as one [`Fused::Elementwise`] pass
//!   ([`fuse_elementwise`]).
//!
//! The search has its own forms of these rules, chosen by price: masked evaluation of a
//! low-rank product as the catalogue's `sddmm`, `sddmm_sum`, `wdivmm_mult`,
//! `wdivmm_left`, `wdivmm_right`, `wcemm` and `wsloss` (`spores_opt::fused`), `mmchain`,
//! and `sum_mm` for `sum(A %*% B)` (from the factors' sums). A block whose predicted cost
//! cannot pay for the full search still gets the fusion-only one (`opt::Saturation`) once
//! its roots' predicted cost pays for that (about 5 ms); roots kept as written because they may meet
//! NaN or Inf (every root with `/`, `log` or `exp` inside, `dag::guard`) get the search
//! limited to the rules exact under the cell semantics (`OptimizeOptions::exact`). So
//! PNMF's `t(W) %*% (X / (W %*% H))` is `wdivmm_left` from extraction, and what the
//! masked rule here still sees is what the search does not: element-wise trees around a
//! product that no catalogue operator names (`X * exp(W %*% H)`), roots too cheap for
//! any search, and `--no-opt`. Reading a private transpose in place and fusing
//! element-wise trees stay here by design (docs/ARCHITECTURE.md, physical planning).

use std::collections::HashMap;
use std::sync::Arc;

use spores_exec::kernels::masked::{Instr, MaskedProgram};

use crate::dag::meta::NodeMeta;
use crate::dag::{
    AggFn, Axis, BlockDag, CatalogueOp, Dag, Fused, MaskedOperand, MaskedOutput, MaskedPlan,
    NodeId, Op,
};

/// A matrix estimated sparser than this drives masked evaluation (SystemDS uses the same
/// threshold to pick sparse formats for its quaternary operators' inputs).
pub const MASK_DENSITY: f64 = 0.4;

/// Largest inner dimension of a product read as a low-rank leaf, and largest column
/// count of a fused product's other operand: both are converted to dense copies and the
/// per-non-zero work grows with them.
pub const MAX_RANK: usize = 256;

/// Whether a block has the shape the size-driven rule looks for (a `*` or `/` over an
/// element-wise or product subtree), so that the interpreter gathers input metadata only
/// for such blocks.
pub fn wants_meta(block: &BlockDag) -> bool {
    let dag = &block.dag;
    dag.nodes().iter().any(|n| match &n.op {
        Op::Fused(Fused::Catalogue(kind)) => kind.is_masked(),
        Op::Binary(spores_exec::kernels::elementwise::BinaryOp::Mul)
        | Op::Binary(spores_exec::kernels::elementwise::BinaryOp::Div) => n
            .children
            .iter()
            .any(|&c| matches!(dag.node(c).op, Op::Binary(_) | Op::Unary(_) | Op::MatMul)),
        _ => false,
    })
}

/// Returns the planned block, or `None` when nothing changed. `meta` (one entry per node
/// of `block.dag`, from [`crate::dag::meta::infer`]) enables the size-driven rules.
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

/// The kernel-choice and size-driven rules (everything but element-wise fusion).
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

/// Chooses the size-driven rewrites: masked evaluation (see [`masked_at`]).
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
    /// Whether the tree does any work that masking saves (an operation or a product).
    worth: bool,
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
                self.worth = true;
                Some(())
            }
            Op::Unary(op) if private => {
                self.compile(node.children[0])?;
                self.instrs.push(Instr::Unary(*op));
                self.absorbed.push(n);
                self.worth = true;
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
                self.worth = true;
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

/// The masked evaluation of node `r` when it is `X * e`, `e * X` or `X / e` with a
/// sparse `X` and an `e` worth evaluating only at `X`'s non-zeros.
fn masked_at(dag: &Dag, uses: &[usize], meta: &[NodeMeta], r: NodeId) -> Option<Found> {
    use spores_exec::kernels::elementwise::BinaryOp;
    let node = dag.node(r);
    // A masked operator the search chose (`masked_mul(X, E)`, `masked_div(X, E)`) is
    // compiled whatever `X`'s density: the search priced it.
    let (op, chosen) = match node.op {
        Op::Binary(op @ (BinaryOp::Mul | BinaryOp::Div)) => (op, false),
        Op::Fused(Fused::Catalogue(CatalogueOp::MaskedMul)) => (BinaryOp::Mul, true),
        Op::Fused(Fused::Catalogue(CatalogueOp::MaskedDiv)) => (BinaryOp::Div, true),
        _ => return None,
    };
    let sides: &[(usize, usize)] = if op == BinaryOp::Mul && !chosen {
        &[(0, 1), (1, 0)]
    } else {
        &[(0, 1)]
    };
    for &(mask_side, other_side) in sides {
        let (mask, other) = (node.children[mask_side], node.children[other_side]);
        let NodeMeta::Matrix { shape, nnz } = &meta[mask] else {
            continue;
        };
        let cells = shape.cells() as f64;
        if cells == 0.0
            || (!chosen && *nnz >= MASK_DENSITY * cells)
            || matrix_shape(&meta[r]) != Some((shape.rows, shape.cols))
        {
            continue;
        }
        let mut c = Compiler {
            dag,
            uses,
            meta,
            mask,
            shape: (shape.rows, shape.cols),
            instrs: Vec::new(),
            operands: Vec::new(),
            children: vec![mask],
            absorbed: Vec::new(),
            leaves: HashMap::new(),
            worth: false,
        };
        if mask_side == 0 {
            c.instrs.push(Instr::Mask);
        }
        if c.compile(other).is_none() || !(c.worth || chosen) {
            continue;
        }
        if mask_side == 1 {
            c.instrs.push(Instr::Mask);
        }
        c.instrs.push(Instr::Binary(op));
        let Ok(program) = MaskedProgram::new(c.instrs) else {
            continue;
        };
        return Some(Found {
            program,
            operands: c.operands,
            children: c.children,
            absorbed: c.absorbed,
        });
    }
    None
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

    fn planned_with_sizes(src: &str) -> BlockDag {
        use crate::opt::InputMeta;
        use spores_exec::Shape;
        let block = lower_source(src).unwrap();
        let matrix = |r, c, nnz| InputMeta::Matrix {
            shape: Shape::new(r, c),
            nnz,
            finite: crate::opt::Finiteness::Finite,
        };
        let inputs: HashMap<String, InputMeta> = [
            ("X".to_string(), matrix(1000, 500, 5000)),
            ("W".to_string(), matrix(1000, 10, 10_000)),
            ("H".to_string(), matrix(10, 500, 5000)),
        ]
        .into_iter()
        .collect();
        let meta = crate::dag::meta::infer(&block.dag, &inputs);
        physical(&block, Some(&meta)).unwrap_or(block)
    }

    #[test]
    fn sparse_masks_drive_the_elementwise_tree_and_its_consumer() {
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
            // At most the 1x1 product of the column and row sums is left.
            assert!(ops.iter().filter(|o| *o == "%*%").count() <= 1, "{ops:?}");
        }
    }

    #[test]
    fn a_product_needed_elsewhere_is_read_as_a_leaf() {
        let ops = live_ops(&planned_with_sizes(
            "P = W %*% H
Y = X * exp(P)
",
        ));
        assert!(ops.contains(&"masked".to_string()), "{ops:?}");
        assert!(ops.contains(&"%*%".to_string()), "{ops:?}");
        assert!(!ops.contains(&"exp".to_string()), "{ops:?}");
        // A dense "mask" is left alone; without sizes nothing changes.
        let ops = live_ops(&planned_with_sizes(
            "Y = W * exp(W)
",
        ));
        assert!(!ops.iter().any(|o| o.starts_with("masked")), "{ops:?}");
        let ops = live_ops(&planned("Y = X * exp(W %*% H)\n"));
        assert!(!ops.iter().any(|o| o.starts_with("masked")), "{ops:?}");
    }
}
