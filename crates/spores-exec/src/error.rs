//! The one error type of the execution layer.

use std::path::PathBuf;

use crate::shape::Shape;

/// Everything that can go wrong while building, computing on, or reading matrices.
#[derive(Debug, thiserror::Error)]
pub enum ExecError {
    /// Two operands whose shapes do not fit the operator.
    #[error("shape mismatch in {op}: left is {left}, right is {right}")]
    ShapeMismatch {
        op: String,
        left: Shape,
        right: Shape,
    },
    /// An argument outside what the operator accepts (negative size, bad index, ...).
    #[error("{0}")]
    InvalidArgument(String),
    /// A file could not be opened, read or written.
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A file was read but its content is malformed; `line` is 1-based (0 when unknown,
    /// e.g. in a binary header).
    #[error("{path}:{line}: {message}")]
    Parse {
        path: PathBuf,
        line: usize,
        message: String,
    },
}

impl ExecError {
    pub fn shape_mismatch(op: impl Into<String>, left: Shape, right: Shape) -> Self {
        ExecError::ShapeMismatch {
            op: op.into(),
            left,
            right,
        }
    }

    pub fn invalid(message: impl Into<String>) -> Self {
        ExecError::InvalidArgument(message.into())
    }
}

pub type Result<T, E = ExecError> = std::result::Result<T, E>;
