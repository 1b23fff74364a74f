//! The optimizer seam: a block's DAG goes in, an equivalent (cheaper) DAG comes out.
//!
//! The interpreter compiles each basic block just before running it, when the shapes
//! and non-zero counts of its inputs are known, and hands the DAG to a [`DagOptimizer`].
//! The SPORES optimizer (relational equality saturation) implements this trait; until
//! it is in, [`NoOptimizer`] returns the DAG unchanged.

use std::collections::HashMap;

use spores_exec::Shape;

use crate::dag::BlockDag;

/// What is known about a block input when the block is compiled.
#[derive(Clone, Debug, PartialEq)]
pub enum InputMeta {
    Matrix { shape: Shape, nnz: usize },
    Scalar,
}

pub trait DagOptimizer {
    /// Returns a DAG that computes the same outputs and effects as `block`, given the
    /// metadata of its inputs, or `None` to keep `block` as it is.
    fn optimize(&self, block: &BlockDag, inputs: &HashMap<String, InputMeta>) -> Option<BlockDag>;

    /// Whether [`DagOptimizer::optimize`] reads the input metadata (counting non-zeros of
    /// dense inputs costs a pass over them, so the interpreter skips it when not needed).
    fn needs_input_meta(&self) -> bool {
        true
    }
}

/// The identity optimizer (`--no-opt`).
pub struct NoOptimizer;

impl DagOptimizer for NoOptimizer {
    fn optimize(
        &self,
        _block: &BlockDag,
        _inputs: &HashMap<String, InputMeta>,
    ) -> Option<BlockDag> {
        None
    }

    fn needs_input_meta(&self) -> bool {
        false
    }
}
