//! Sparse tensor programs in tensor index notation, optimized the way Galley does it
//! (Deeds et al., "Galley: Modern Query Optimization for Sparse Tensor Programs") and run
//! on our own sparse tensor engine.
//!
//! Where it sits: front end, optimizer and engine of tensor programs in one crate, on the
//! shared `spores-diag` (spans), `spores-sparsity` (statistics) and `spores-exec` (kernels);
//! it depends on no other optimizer.
//!
//! The modules follow the pipeline:
//!
//! - [`plan_ast`]: the plan language of every stage (input program, logical plan, physical plan)
//!   and the operators with their algebraic properties.
//! - [`logical`]: the logical optimizer (variable elimination over aggregates).
//! - [`physical`]: the physical optimizer (loop orders, formats, merge protocols).
//! - [`stats`]: sparsity estimators (uniform, degree statistics with the chain bound).
//! - [`tensor`]: [`CooTensor`], the interchange form of inputs and results.
//! - [`reference`]: brute-force dense evaluation, the oracle for tests.
//! - [`parse`]: the text syntax of programs.
//! - [`io`]: tensor and graph file readers, atomic writers.
//! - [`engine`]: fibertree tensors and the interpreter of physical plans.
//! - [`driver`]: the pipeline end to end (plan, then run), timed per phase.
//! - [`apps`]: applications that run the whole pipeline repeatedly (BFS).

pub mod apps;
pub mod driver;
pub mod engine;
pub mod io;
pub mod logical;
pub mod parse;
pub mod physical;
pub mod plan_ast;
pub mod reference;
pub mod stats;
pub mod tensor;

pub use driver::{run, RunOptions, RunReport};
pub use tensor::CooTensor;

/// Errors of the tensor front end, optimizers and engine.
#[derive(Debug, thiserror::Error)]
pub enum TensorError {
    /// A tensor or alias name that is neither an input nor an earlier query.
    #[error("unknown tensor `{0}`: not an input and not defined by an earlier query")]
    Unknown(String),
    #[error("{0}")]
    Invalid(String),
    /// A result the memory budget (`spores_exec::memory`, `--memory`) has no room for,
    /// refused before it is allocated (see [`engine::budget`]).
    #[error(transparent)]
    Memory(#[from] spores_exec::ExecError),
}

impl From<spores_sparsity::StatsError> for TensorError {
    fn from(e: spores_sparsity::StatsError) -> TensorError {
        match e {
            spores_sparsity::StatsError::Unknown(name) => TensorError::Unknown(name),
            spores_sparsity::StatsError::Invalid(msg) => TensorError::Invalid(msg),
        }
    }
}
