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
    /// A result that does not fit the memory budget (`--memory`), refused before anything
    /// was allocated ([`crate::memory::ensure_fits`]).
    #[error(
        "{what} needs about {}, more than the memory budget of {} (set with --memory)",
        crate::memory::human(*bytes),
        crate::memory::human(*budget)
    )]
    OverBudget {
        what: String,
        bytes: f64,
        budget: f64,
    },
    /// Compressed (CSR/CSC) arrays that break the format's invariants.
    #[error(transparent)]
    Compressed(#[from] CompressedError),
    /// Compressed arrays handed in from outside (`format` is `CSR` or `CSC`) whose
    /// deferred index checks failed.
    #[error("invalid {format} input: {source}")]
    ForeignCompressed {
        format: &'static str,
        source: CompressedError,
    },
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

/// What is wrong with compressed (CSR/CSC) arrays: the first problem found. Lines are
/// rows of a CSR matrix and columns of a CSC one; `minor` is the other extent.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CompressedError {
    #[error("sparse dimension {minor} exceeds the u32 index range")]
    DimensionTooLarge { minor: usize },
    #[error("pointer array must have {expected} entries starting at 0, has {found}")]
    PointerLength { expected: usize, found: usize },
    #[error("pointer end {end} / {indices} indices / {values} values disagree")]
    LengthsDisagree {
        end: usize,
        indices: usize,
        values: usize,
    },
    #[error("pointer array decreases at {line}")]
    PointerDecreases { line: usize },
    #[error("indices of line {line} are not strictly increasing")]
    NotIncreasing { line: usize },
    #[error("index out of range {minor} in line {line}")]
    OutOfRange { minor: usize, line: usize },
}

impl ExecError {
    pub fn shape_mismatch(op: impl Into<String>, left: Shape, right: Shape) -> Self {
        ExecError::ShapeMismatch {
            op: op.into(),
            left,
            right,
        }
    }

    /// `Ok` when the shapes `fit`, else the mismatch of `op` naming both.
    pub fn ensure_shapes(
        fit: bool,
        op: impl Into<String>,
        left: Shape,
        right: Shape,
    ) -> Result<(), ExecError> {
        if fit {
            Ok(())
        } else {
            Err(ExecError::shape_mismatch(op, left, right))
        }
    }

    pub fn invalid(message: impl Into<String>) -> Self {
        ExecError::InvalidArgument(message.into())
    }
}

pub type Result<T, E = ExecError> = std::result::Result<T, E>;
