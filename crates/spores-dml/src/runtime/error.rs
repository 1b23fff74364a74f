//! Why an operator failed while a script ran. The interpreter turns each error into a
//! diagnostic at the node's span; its text is the error's `Display`.
//!
//! One enum per source, as the runtime meets them: a bad argument to a builtin or
//! operator ([`ArgError`]), a kernel's error ([`ExecError`]), files ([`FileError`]),
//! lists ([`ListError`]), `print` formats ([`PrintfError`]), the relational engine
//! ([`RelationError`]), `stop()` and `assert`, and broken invariants
//! ([`RuntimeError::Internal`]).

use std::borrow::Cow;
use std::fmt;

use spores_exec::kernels::unary::UnaryOp;
use spores_exec::{ExecError, Shape};

use super::value::Value;
use crate::dag::Builtin;
pub use crate::engine::file_matrix::FileError;
pub use crate::engine::RelationError;

/// A runtime failure of one operator; the interpreter attaches the node's source span.
#[derive(Debug, thiserror::Error)]
pub enum RuntimeError {
    /// An argument a builtin or operator does not take.
    #[error(transparent)]
    Argument(#[from] ArgError),
    /// A kernel refused its operands or failed (shapes, memory, a file it read).
    #[error(transparent)]
    Kernel(#[from] ExecError),
    /// A file whose format is unknown or unsupported, or which could not be read.
    #[error(transparent)]
    File(#[from] FileError),
    /// Building, indexing or unwrapping a list.
    #[error(transparent)]
    List(#[from] ListError),
    /// Building, converting, indexing or reading a frame.
    #[error(transparent)]
    Frame(#[from] crate::runtime::frame::FrameError),
    /// `transformencode`, `transformapply` or `transformdecode` with a spec or metadata
    /// that does not fit.
    #[error(transparent)]
    Transform(#[from] crate::runtime::frame::transform::TransformError),
    /// A `print(format, ...)` whose format does not fit its arguments.
    #[error(transparent)]
    Printf(#[from] PrintfError),
    /// The relational engine's subgraph failed.
    #[error(transparent)]
    Relation(#[from] RelationError),
    /// The optimizer's reference evaluator failed on a fused operator's meaning (its
    /// message).
    #[error("{0}")]
    Reference(String),
    /// `print` could not write its line.
    #[error("print: {0}")]
    Output(#[source] std::io::Error),
    /// `stop(message)`: the message as the script gave it.
    #[error("stop: {0}")]
    Stop(String),
    /// `assert(FALSE)`.
    #[error("assertion failed")]
    AssertionFailed,
    /// A broken invariant of the runtime: a bug, not a script's error.
    #[error("internal error: {0}")]
    Internal(String),
}

impl RuntimeError {
    pub fn internal(message: impl Into<String>) -> RuntimeError {
        RuntimeError::Internal(message.into())
    }

    /// Whether a result was refused because it does not fit the memory budget.
    pub fn is_over_budget(&self) -> bool {
        let kernel = match self {
            RuntimeError::Kernel(e) => e,
            RuntimeError::File(FileError::Read(e)) => &**e,
            _ => return false,
        };
        matches!(kernel, ExecError::OverBudget { .. })
    }
}

/// The argument an error is about: a builtin's parameter (`removeEmpty: target`), or
/// an argument described alone (`rows`, `index`, `%*%`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Param {
    /// The builtin, when the message names it.
    pub builtin: Option<&'static str>,
    /// The parameter's name, or what the argument is.
    pub name: Cow<'static, str>,
}

impl From<&'static str> for Param {
    fn from(name: &'static str) -> Param {
        Param {
            builtin: None,
            name: Cow::Borrowed(name),
        }
    }
}

impl From<String> for Param {
    fn from(name: String) -> Param {
        Param {
            builtin: None,
            name: Cow::Owned(name),
        }
    }
}

impl From<(&'static str, &'static str)> for Param {
    fn from((builtin, name): (&'static str, &'static str)) -> Param {
        Param {
            builtin: Some(builtin),
            name: Cow::Borrowed(name),
        }
    }
}

/// Parameter `k` of a builtin, named as its row of the builtin table names it.
impl From<(Builtin, usize)> for Param {
    fn from((builtin, k): (Builtin, usize)) -> Param {
        Param {
            builtin: Some(builtin.name()),
            name: Cow::Borrowed(builtin.param(k)),
        }
    }
}

impl fmt::Display for Param {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.builtin {
            Some(builtin) => write!(f, "{builtin}: {}", self.name),
            None => f.write_str(&self.name),
        }
    }
}

/// What an argument must be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expected {
    Number,
    NonNegativeNumber,
    Integer,
    PositiveInteger,
    NonNegativeInteger,
    String,
    Boolean,
}

impl fmt::Display for Expected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Expected::Number => "a number",
            Expected::NonNegativeNumber => "a non-negative number",
            Expected::Integer => "an integer",
            Expected::PositiveInteger => "a positive integer",
            Expected::NonNegativeInteger => "a non-negative integer",
            Expected::String => "a string",
            Expected::Boolean => "a boolean",
        })
    }
}

/// An argument a builtin or operator does not take.
#[derive(Debug, thiserror::Error)]
pub enum ArgError {
    /// A value of the wrong type (`rows must be a number, got a string`).
    #[error("{param} must be {expected}, got a {found}")]
    WrongType {
        param: Param,
        expected: Expected,
        found: &'static str,
    },
    /// A number outside what the parameter takes (`rows must be a non-negative number,
    /// got -1`).
    #[error("{param} must be {expected}, got {value}")]
    OutOfRange {
        param: Param,
        expected: Expected,
        value: f64,
    },
    #[error("`{op}` needs a matrix, got a {found}")]
    NotAMatrix { op: Param, found: &'static str },
    #[error("`{op}` needs a frame, got a {found}")]
    NotAFrame {
        op: &'static str,
        found: &'static str,
    },
    #[error("`{op:?}` needs a number, got a {found}")]
    NotANumber { op: UnaryOp, found: &'static str },
    #[error("aggregate needs a matrix, got a {found}")]
    AggregateOfNonMatrix { found: &'static str },
    #[error("`{op}` is not defined for a {left} and a {right}")]
    Undefined {
        op: &'static str,
        left: &'static str,
        right: &'static str,
    },
    /// A cast (`as.double`, `as.integer`) of a string that holds no number.
    #[error("{cast}: \"{text}\" is not a number")]
    CastOfText { cast: &'static str, text: String },
    #[error("as.logical: \"{text}\" is not TRUE or FALSE")]
    NotLogical { text: String },
    /// A matrix of the wrong shape (`as.scalar needs a 1x1 matrix, got 2x3`).
    #[error("{builtin} needs a {expected} matrix, got {shape}")]
    Shape {
        builtin: &'static str,
        expected: &'static str,
        shape: Shape,
    },
    #[error("assert needs a boolean, got a {found}")]
    AssertOfNonBoolean { found: &'static str },
    #[error(
        "rand: pdf \"{pdf}\" is not supported (it must be \"uniform\", \"normal\" or \"poisson\")"
    )]
    UnknownPdf { pdf: String },
    /// A cell of `matrix("1 2 3", ...)` that is not a number.
    #[error("matrix: `{text}` is not a number")]
    MatrixCell { text: String },
    #[error("matrix: {given} values given for a {rows}x{cols} matrix")]
    MatrixValues {
        given: usize,
        rows: usize,
        cols: usize,
    },
    #[error("`sep` must not be empty")]
    EmptySeparator,
    #[error("ifelse: the test must be a boolean or number")]
    IfElseTest,
    #[error("ifelse: shapes {found} and {expected} differ")]
    IfElseShapes { found: Shape, expected: Shape },
    /// A 1-based index outside the matrix (`dim` is `row` or `column`).
    #[error("{dim} index {index} is out of bounds 1..{extent}")]
    IndexOutOfBounds {
        dim: &'static str,
        index: f64,
        extent: usize,
    },
    #[error("{dim} range {first}:{last} is empty")]
    EmptyRange {
        dim: &'static str,
        first: usize,
        last: usize,
    },
    #[error("table: give both odim1 and odim2, or neither")]
    TableDims,
    #[error("removeEmpty: margin must be \"rows\" or \"cols\", got \"{margin}\"")]
    Margin { margin: String },
    #[error("aggregate: fn must be one of sum, count, mean, min, max, variance; got \"{name}\"")]
    GroupFn { name: String },
    /// `cdf`/`icdf` without a parameter its distribution needs.
    #[error("{builtin}: dist=\"{dist}\" needs {param}=")]
    DistributionParam {
        builtin: &'static str,
        dist: String,
        param: &'static str,
    },
    #[error("{builtin}: unknown distribution \"{dist}\" (use normal, exp, chisq, t or f)")]
    UnknownDistribution { builtin: &'static str, dist: String },
    #[error("outer: unknown operator \"{symbol}\"")]
    UnknownOperator { symbol: String },
    #[error("contains: a matrix pattern must be one row of the target's columns, got a {pattern} pattern for a {target} target")]
    ContainsPattern { pattern: Shape, target: Shape },
    #[error("{builtin} of one argument binds a list's elements, got a {found}")]
    BindOne {
        builtin: &'static str,
        found: &'static str,
    },
    #[error("outer needs a column vector and a row vector, got {a} and {b}")]
    OuterShapes { a: Shape, b: Shape },
    /// A size vector of an image builtin (`stride=[2, 2]`) with the wrong number of cells.
    #[error("{param} must be a vector of {count} sizes, got a {shape} matrix")]
    SizeList {
        param: Param,
        count: usize,
        shape: Shape,
    },
    /// A masked operator without its mask.
    #[error("masked: no mask")]
    NoMask,
}

impl ArgError {
    /// `param` must be `expected`, and `value` is of another type.
    pub fn wrong_type(param: impl Into<Param>, expected: Expected, value: &Value) -> ArgError {
        ArgError::WrongType {
            param: param.into(),
            expected,
            found: value.type_name(),
        }
    }

    /// `param` must be `expected`, and `value` is not.
    pub fn out_of_range(param: impl Into<Param>, expected: Expected, value: f64) -> ArgError {
        ArgError::OutOfRange {
            param: param.into(),
            expected,
            value,
        }
    }
}

/// An operation on a list that does not fit it.
#[derive(Debug, thiserror::Error)]
pub enum ListError {
    #[error("`append` needs a list, two strings or two matrices, got a {first} and a {second}")]
    Append {
        first: &'static str,
        second: &'static str,
    },
    #[error("a list is one column, indexed as `l[i]`, `l[i, 1]` or `l[\"name\"]`")]
    TwoIndices,
    #[error("list left indexing: {selected} element(s) selected, {given} given")]
    AssignLength { selected: usize, given: usize },
    #[error("the list has no element named \"{name}\"")]
    NoElementNamed { name: String },
    #[error("a list index must be a number or a name, got a {found}")]
    IndexType { found: &'static str },
    #[error("list index {index} is out of bounds 1..{len}")]
    IndexOutOfBounds { index: f64, len: usize },
    #[error("list range {first}:{last} is empty")]
    EmptyRange { first: usize, last: usize },
    #[error("`remove` needs a list, got a {found}")]
    RemoveFromNonList { found: &'static str },
    /// `remove(l, pos)` with `pos` (as the script wrote it) not a position of `l`.
    #[error("remove: position {position} is not in 1..{len}")]
    RemovePosition { position: String, len: usize },
    #[error(
        "`as.matrix` of a list of {len} elements needs scalars, element {element} is a {found}"
    )]
    NotScalars {
        len: usize,
        element: usize,
        found: &'static str,
    },
    /// A cast of a list that does not hold exactly one element.
    #[error("`{builtin}` of a list needs a list of one element, got {len}")]
    NotSingle { builtin: &'static str, len: usize },
}

/// A `print(format, args...)` whose format does not fit (the conversion is `%`, the
/// flags and width in `spec`, and the conversion character).
#[derive(Debug, thiserror::Error)]
pub enum PrintfError {
    #[error("print: the format ends inside `%{spec}`")]
    Unterminated { spec: String },
    #[error("print: the format has more conversions than arguments (at `%{spec}{conversion}`)")]
    MissingArgument { spec: String, conversion: char },
    #[error("print: bad precision in `%{spec}{conversion}`")]
    BadPrecision { spec: String, conversion: char },
    #[error("print: %d needs an integer, got {value}")]
    BooleanForInteger { value: bool },
    /// `%d` of a value that is not an integer (`value` as printed).
    #[error("print: %d needs an integer, got the {found} {value}")]
    NotAnInteger { found: &'static str, value: String },
    #[error("print: %{conversion} needs a number, got a {found}")]
    NotANumber {
        conversion: char,
        found: &'static str,
    },
    #[error("print: unsupported conversion `%{spec}{conversion}`")]
    Unsupported { spec: String, conversion: char },
}
