//! What can go wrong between an LA plan and a DataFusion result.

use thiserror::Error;

#[derive(Debug, Error)]
pub enum DistError {
    /// The plan uses an operator with no relational lowering here (the caller runs it on
    /// the local engine instead).
    #[error("no relational lowering for {0}")]
    Unsupported(String),
    /// The plan is ill-formed for its inputs (unknown input, shapes that do not fit).
    #[error("{0}")]
    Plan(String),
    /// DataFusion (or Arrow) refused or failed, e.g. out of memory with spilling exhausted.
    #[error("DataFusion: {0}")]
    Engine(#[from] datafusion::error::DataFusionError),
    /// A Ballista scheduler or executor could not be started, reached or used.
    #[error("Ballista: {0}")]
    Cluster(String),
    #[error("Arrow: {0}")]
    Arrow(#[from] datafusion::arrow::error::ArrowError),
    /// The result relation does not describe a matrix of the expected shape.
    #[error("result: {0}")]
    Result(String),
}

/// Inside DataFusion's operators and functions (the lookups, the folds, the scans of held
/// cells), a failure of spores' own travels as an external error.
impl From<DistError> for datafusion::error::DataFusionError {
    fn from(e: DistError) -> Self {
        datafusion::error::DataFusionError::External(Box::new(e))
    }
}
