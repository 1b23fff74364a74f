//! Masked candidates: `X * E` or `X / E` with a sparse `X`, its element-wise tree `E`
//! evaluated at `X`'s non-zeros only (`masked_mul`, `masked_div` in the catalogue).
//!
//! Under the cell semantics a zero of `X` annihilates whatever `E` is there, so only
//! `nnz(X)` cells of `E` are needed, and a low-rank product `U %*% t(V)` inside `E` is a
//! rank-`k` dot per cell instead of a dense `m x n` product. No relational rewrite says
//! this (the relation `E` is the same at every cell), so the extractor adds the
//! candidate over the LA classes, as it adds products that read a transposed operand in
//! place: for each `X * E` or `X / E` candidate whose `X` class is estimated sparser than
//! [`MASK_DENSITY`], one more candidate whose children are `X` and the leaves of a tree
//! chosen in `E`'s classes, priced by [`cost::masked`]. It then competes with every
//! other candidate of its class, shared leaves paid once, in greedy and the ILP alike;
//! the catalogue's operators that name a tree (`sddmm`, `wcemm`, `wdivmm_*`) price below
//! it for the same work.
//!
//! The tree is chosen per class by a tree price: an element-wise operator of the mask's
//! shape costs one operator per cell plus its operands' prices; a product of the mask's
//! shape with an inner size of at most [`MAX_RANK`] costs a rank-`k` dot per cell plus
//! its factors' own prices; any class (of a shape that broadcasts over the mask's) can
//! be a leaf, read per cell, at the price of its cheapest candidate alone. A class on
//! the path from the root is not entered again (e-graph cycles).

use std::collections::HashMap;
use std::sync::Arc;

use super::candidate::{Cand, MaskedTree, Op, TreeRef};
use super::{MId, Snapshot};
use crate::cost;

/// A matrix estimated sparser than this is a mask (SystemDS uses the same threshold to
/// pick sparse formats for its quaternary operators' inputs).
pub const MASK_DENSITY: f64 = 0.4;

pub use crate::cost::prices::MAX_RANK;

/// Deepest tree considered (the kernel's evaluation stack is bounded too).
const MAX_DEPTH: usize = 8;

/// A class's best way into the tree, with its tree price.
#[derive(Clone, Debug)]
enum Choice {
    Leaf,
    /// Candidate `n` of the class, entered.
    Enter(usize),
}

struct Builder<'a, 's> {
    snap: &'a Snapshot<'s>,
    cands: &'a [Vec<Cand>],
    /// The price of each class's cheapest candidate alone (a leaf's price).
    alone: &'a [f64],
    shape: (i64, i64),
    nnz: f64,
    memo: HashMap<MId, Option<(f64, Choice)>>,
    path: Vec<MId>,
}

impl Builder<'_, '_> {
    fn codes(&self, m: MId) -> Option<(i64, i64)> {
        let c = &self.snap.m_classes[m];
        Some((c.rows?, c.cols?))
    }

    fn size(&self, code: i64) -> f64 {
        self.snap.tables.code_size(code)
    }

    /// Whether a class of this shape can be read per cell of the mask.
    fn broadcasts(&self, m: MId) -> bool {
        let (r, c) = self.shape;
        match self.codes(m) {
            Some((mr, mc)) => (mr == r || mr == 1) && (mc == c || mc == 1),
            None => false,
        }
    }

    /// The tree price of class `m` and how it is read, `None` when it cannot be.
    fn best(&mut self, m: MId) -> Option<(f64, Choice)> {
        // A class on the path is never entered again, whatever was found for it before:
        // that keeps the built tree acyclic.
        if self.path.contains(&m) {
            return None;
        }
        if let Some(done) = self.memo.get(&m) {
            return done.clone();
        }
        if !self.broadcasts(m) {
            self.memo.insert(m, None);
            return None;
        }
        let per_op = self.nnz * cost::masked_per_cell(1.0, 0.0);
        let mut best = Some((per_op + self.alone[m], Choice::Leaf));
        if self.codes(m) == Some(self.shape) && self.path.len() < MAX_DEPTH {
            self.path.push(m);
            for (n, cand) in self.cands[m].iter().enumerate() {
                let price = match &cand.op {
                    Op::Add | Op::Sub | Op::Mul | Op::Neg | Op::Pow(_) | Op::F1(_) | Op::F2(_) => {
                        let mut total = per_op;
                        for &child in &cand.children {
                            match self.best(child) {
                                Some((p, _)) => total += p,
                                None => {
                                    total = f64::INFINITY;
                                    break;
                                }
                            }
                        }
                        total
                    }
                    Op::MatMul(false, _) => match self.rank(cand) {
                        Some(k) => {
                            self.nnz * cost::masked_per_cell(0.0, k)
                                + self.alone[cand.children[0]]
                                + self.alone[cand.children[1]]
                        }
                        None => f64::INFINITY,
                    },
                    _ => f64::INFINITY,
                };
                if best.as_ref().is_none_or(|(p, _)| price < *p) {
                    best = Some((price, Choice::Enter(n)));
                }
            }
            self.path.pop();
        }
        // Priced with its ancestors excluded: from another path it might be entered
        // through one of them, which only a costlier tree would gain from.
        self.memo.insert(m, best.clone());
        best
    }

    /// The inner size of a product candidate `U %*% V` (or `U %*% t(V')`), when it is a
    /// low-rank one.
    fn rank(&self, cand: &Cand) -> Option<f64> {
        let Op::MatMul(false, tb) = cand.op else {
            return None;
        };
        let (_, k) = self.codes(cand.children[0])?;
        let v = self.codes(cand.children[1])?;
        let k2 = if tb { v.1 } else { v.0 };
        let size = self.size(k);
        (k == k2 && size <= MAX_RANK as f64).then_some(size)
    }

    /// Builds the tree of class `m` under the choices made, appending its nodes and
    /// leaves.
    fn build(&mut self, m: MId, tree: &mut MaskedTree, leaves: &mut Vec<MId>) -> Option<TreeRef> {
        let (_, choice) = self.best(m)?;
        let leaf = |c: MId, leaves: &mut Vec<MId>| {
            let k = leaves.iter().position(|&l| l == c).unwrap_or_else(|| {
                leaves.push(c);
                leaves.len() - 1
            });
            TreeRef::Leaf(k)
        };
        let n = match choice {
            Choice::Leaf => return Some(leaf(m, leaves)),
            Choice::Enter(n) => n,
        };
        let cand = &self.cands[m][n];
        self.path.push(m);
        let refs = if matches!(cand.op, Op::MatMul(..)) {
            tree.rank += self.rank(cand)?;
            cand.children.iter().map(|&c| leaf(c, leaves)).collect()
        } else {
            tree.instrs += 1;
            let mut refs = Vec::with_capacity(cand.children.len());
            for &c in &cand.children {
                refs.push(self.build(c, tree, leaves)?);
            }
            refs
        };
        self.path.pop();
        tree.nodes.push((cand.op.clone(), refs));
        Some(TreeRef::Node(tree.nodes.len() - 1))
    }
}

/// The masked candidates of class `m`, from its `X * E` and `X / E` candidates (`div`:
/// which function numbers are `/`). `alone[c]` is the price of class `c`'s cheapest
/// candidate on its own.
pub(super) fn candidates(
    snap: &Snapshot,
    cands: &[Vec<Cand>],
    alone: &[f64],
    m: MId,
    is_div: impl Fn(usize) -> bool,
) -> Vec<Cand> {
    let class = &snap.m_classes[m];
    let (Some(rows), Some(cols)) = (class.rows, class.cols) else {
        return Vec::new();
    };
    let mut out: Vec<Cand> = Vec::new();
    for cand in &cands[m] {
        let div = match cand.op {
            Op::Mul => false,
            Op::F2(f) if is_div(f) => true,
            _ => continue,
        };
        let (x, e) = (cand.children[0], cand.children[1]);
        let xc = &snap.m_classes[x];
        let sparsity = xc.sparsity.unwrap_or(1.0);
        if sparsity >= MASK_DENSITY || (xc.rows, xc.cols) != (Some(rows), Some(cols)) || x == e {
            continue;
        }
        let cells = snap.tables.code_size(rows) * snap.tables.code_size(cols);
        let mut builder = Builder {
            snap,
            cands,
            alone,
            shape: (rows, cols),
            nnz: cells * sparsity,
            memo: HashMap::new(),
            path: vec![m],
        };
        let mut tree = MaskedTree {
            nodes: Vec::new(),
            instrs: 0,
            rank: 0.0,
        };
        let mut leaves = Vec::new();
        // Only a tree with work in it: `X * Y` of two values is a plain product.
        if builder.build(e, &mut tree, &mut leaves).is_none() || tree.nodes.is_empty() {
            continue;
        }
        let mut children = vec![x];
        children.extend(leaves);
        let masked = Cand {
            op: Op::Masked {
                div,
                tree: Arc::new(tree),
            },
            children,
        };
        if !out.contains(&masked) {
            out.push(masked);
        }
    }
    out
}
