//! The candidates of an LA class in extraction: one LA operator over operand classes
//! (a raised e-node, a product reading an operand transposed in place, or a masked
//! operator with its element-wise tree). [`super::raised`] builds and prices them;
//! [`super::masked`] builds the masked ones' trees.

use std::sync::Arc;

use super::{Fused, Ix, MId};

/// One LA operator; its operands are the candidate's children (LA classes).
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Op {
    Var(usize),
    Const(f64),
    Dim(Ix),
    Add,
    Sub,
    Mul,
    /// A product; `true` reads that operand's class transposed in place.
    MatMul(bool, bool),
    T,
    Neg,
    Sum,
    RowSums,
    ColSums,
    Pow(f64),
    F1(usize),
    F2(usize),
    Fused(Fused),
    /// `X * E` (`X / E` when `div`) with the tree `E` evaluated at `X`'s non-zeros:
    /// children `X`, then the tree's leaves ([`super::masked`]).
    Masked {
        div: bool,
        tree: Arc<MaskedTree>,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub(super) struct Cand {
    pub(super) op: Op,
    pub(super) children: Vec<MId>,
}

/// An operand of a tree node: another node, or the candidate's child `1 + k`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum TreeRef {
    Node(usize),
    Leaf(usize),
}

/// The element-wise tree of a masked candidate, its nodes in post-order (the last is the
/// root). Ops are element-wise ([`Op::Add`], ..., [`Op::F2`]) or low-rank products
/// ([`Op::MatMul`] with the first operand read as is).
#[derive(Clone, Debug, PartialEq)]
pub(super) struct MaskedTree {
    pub nodes: Vec<(Op, Vec<TreeRef>)>,
    /// Element-wise operators per cell.
    pub instrs: usize,
    /// Total inner size of the low-rank products.
    pub rank: f64,
}
