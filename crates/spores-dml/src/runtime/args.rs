//! Reading a builtin's or operator's arguments: the value kinds each parameter takes,
//! and the error naming the parameter when it gets another.

use std::sync::Arc;

use spores_exec::{ExecError, Matrix};

use super::error::{ArgError, Expected, Param, RuntimeError};
use super::value::Value;

/// What evaluating one operator gives.
pub type OpResult = Result<Value, RuntimeError>;

/// Runs the deferred index checks of the sparse matrices among `args` (each once per
/// matrix); the error names the first bad line, as validating on input would. Every
/// operator runs this before its kernel: the sparse accessors refuse unchecked indices.
pub(crate) fn check_deferred_indices(args: &[Value]) -> Result<(), ExecError> {
    for arg in args {
        if let Value::Matrix(m) = arg {
            if let Matrix::Sparse(s) = &**m {
                s.check_indices()?;
            }
        }
    }
    Ok(())
}

/// `v` as a matrix, or an error naming `op`.
pub(crate) fn matrix_arg(v: &Value, op: impl Into<Param>) -> Result<&Matrix, ArgError> {
    match v {
        Value::Matrix(m) => Ok(m),
        other => Err(ArgError::NotAMatrix {
            op: op.into(),
            found: other.type_name(),
        }),
    }
}

/// `v` as a number (a scalar, or a 1x1 matrix's cell), or an error naming `what`.
pub(crate) fn number_arg(v: &Value, what: impl Into<Param>) -> Result<f64, ArgError> {
    match v {
        Value::Matrix(m) if m.shape().is_scalar() => Ok(m.get(0, 0)),
        other => other
            .as_f64()
            .ok_or_else(|| ArgError::wrong_type(what, Expected::Number, other)),
    }
}

/// `v` as a string, or an error naming `what`.
pub(crate) fn string_arg(v: &Value, what: impl Into<Param>) -> Result<Arc<str>, ArgError> {
    match v {
        Value::Str(s) => Ok(s.clone()),
        other => Err(ArgError::wrong_type(what, Expected::String, other)),
    }
}
