//! The optimizer seam: a block's DAG goes in, an equivalent (cheaper) DAG comes out.
//!
//! The interpreter compiles each basic block just before running it, when the shapes
//! and non-zero counts of its inputs are known, and hands the DAG to a [`DagOptimizer`].
//! [`SporesOptimizer`] (relational equality saturation, the default) and
//! [`NoOptimizer`] (`--no-opt`) implement it.

pub mod convert;
mod spores;

use std::collections::HashMap;
use std::rc::Rc;

pub use self::spores::SporesOptimizer;
pub use crate::dag::input::{Finiteness, InputMeta};
use crate::dag::BlockDag;

/// The result of optimizing one block.
#[derive(Clone, Debug, Default)]
pub struct Optimization {
    /// The cheaper equivalent block, or `None` to run the block as it is.
    pub block: Option<BlockDag>,
    /// What the optimizer did, for `--explain` (empty when it found nothing).
    pub notes: String,
}

pub trait DagOptimizer {
    /// Returns a block that computes the same outputs and effects as `block`, given the
    /// metadata of its inputs. The result is shared: optimizers cache it per block and
    /// input signature, and the interpreter caches what it derives from it.
    ///
    /// `runs_ahead` is how often the interpreter knows the block will run from this run
    /// on (this one included): the product of the trip counts of the `for` loops around
    /// it, 1 outside loops and in `while` loops. An optimizer may spend on a block what
    /// those runs, not only the runs so far, would repay.
    fn optimize(
        &self,
        block: &BlockDag,
        inputs: &HashMap<String, InputMeta>,
        runs_ahead: u64,
    ) -> Rc<Optimization>;

    /// Whether [`DagOptimizer::optimize`] reads the input metadata (counting non-zeros of
    /// dense inputs costs a pass over them, so the interpreter skips it when not needed).
    fn needs_input_meta(&self) -> bool {
        true
    }

    /// Time spent optimizing each block (cache hits excluded), for `--stats`.
    fn block_times(&self) -> Vec<std::time::Duration> {
        Vec::new()
    }
}

/// The identity optimizer (`--no-opt`).
pub struct NoOptimizer;

impl DagOptimizer for NoOptimizer {
    fn optimize(
        &self,
        _block: &BlockDag,
        _inputs: &HashMap<String, InputMeta>,
        _runs_ahead: u64,
    ) -> Rc<Optimization> {
        thread_local! {
            static NOTHING: Rc<Optimization> = Rc::new(Optimization::default());
        }
        NOTHING.with(Rc::clone)
    }

    fn needs_input_meta(&self) -> bool {
        false
    }
}
