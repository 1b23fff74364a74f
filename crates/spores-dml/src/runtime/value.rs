//! Runtime values of DML: matrices and the four scalar value types.

use std::fmt;
use std::sync::Arc;

use spores_exec::Matrix;

use crate::engine::file_matrix::FileError;
use crate::engine::file_matrix::FileMatrix;
pub use crate::number::format_double;
use crate::runtime::frame::Frame;

/// A DML value. Matrices and lists are shared (`Arc`) because variables alias freely:
/// `Y = X` copies nothing.
#[derive(Clone, Debug)]
pub enum Value {
    Matrix(Arc<Matrix>),
    /// A matrix still in its file (see [`crate::engine::file_matrix`]): only a
    /// relational engine's subgraphs take it as it is; other operators get it read.
    File(Arc<FileMatrix>),
    Double(f64),
    Int(i64),
    Bool(bool),
    Str(Arc<str>),
    /// `list(...)`; see [`crate::runtime::list`].
    List(Arc<ListValue>),
    /// A table of typed columns; see [`crate::runtime::frame`].
    Frame(Arc<Frame>),
}

/// The elements of a DML list, each with its name when it was given one.
#[derive(Clone, Debug, Default)]
pub struct ListValue {
    pub names: Vec<Option<String>>,
    pub items: Vec<Value>,
}

impl Value {
    pub fn matrix(m: Matrix) -> Value {
        Value::Matrix(Arc::new(m))
    }

    /// The value with a [`Value::File`] read into a matrix (a list's items too).
    pub fn loaded(self) -> Result<Value, FileError> {
        match self {
            Value::File(f) => f.load().map(Value::Matrix),
            Value::List(l) if l.items.iter().any(|v| matches!(v, Value::File(_))) => {
                let items = l
                    .items
                    .iter()
                    .cloned()
                    .map(Value::loaded)
                    .collect::<Result<_, _>>()?;
                Ok(Value::List(Arc::new(ListValue {
                    names: l.names.clone(),
                    items,
                })))
            }
            v => Ok(v),
        }
    }

    pub fn str(s: impl Into<Arc<str>>) -> Value {
        Value::Str(s.into())
    }

    /// DML's name of the value's type, for error messages.
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Matrix(_) | Value::File(_) => "matrix",
            Value::Double(_) => "double",
            Value::Int(_) => "int",
            Value::Bool(_) => "boolean",
            Value::Str(_) => "string",
            Value::List(_) => "list",
            Value::Frame(_) => "frame",
        }
    }

    pub fn is_scalar(&self) -> bool {
        !matches!(
            self,
            Value::Matrix(_) | Value::File(_) | Value::List(_) | Value::Frame(_)
        )
    }

    /// The numeric value of a number or boolean scalar (TRUE = 1).
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Double(v) => Some(*v),
            Value::Int(v) => Some(*v as f64),
            Value::Bool(b) => Some(if *b { 1.0 } else { 0.0 }),
            Value::Matrix(_)
            | Value::File(_)
            | Value::Str(_)
            | Value::List(_)
            | Value::Frame(_) => None,
        }
    }

    /// Whether the value holds no NaN and no ±Inf (for a matrix, a scan of its cells the
    /// first time, then cached on the matrix; strings and lists count as finite).
    pub fn is_finite(&self) -> bool {
        match self {
            Value::Matrix(m) => m.all_finite(),
            Value::File(f) => f.all_finite(),
            Value::Double(v) => v.is_finite(),
            Value::Int(_) | Value::Bool(_) | Value::Str(_) | Value::List(_) | Value::Frame(_) => {
                true
            }
        }
    }

    /// Truth value as DML's `if` and `while` read it: a boolean, or a number that is not zero.
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            Value::Double(v) => Some(*v != 0.0),
            Value::Int(v) => Some(*v != 0),
            Value::Matrix(_)
            | Value::File(_)
            | Value::Str(_)
            | Value::List(_)
            | Value::Frame(_) => None,
        }
    }
}

impl fmt::Display for Value {
    /// Scalars print as SystemDS prints them; matrices print as `toString` does.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Double(v) => f.write_str(&format_double(*v)),
            Value::Int(v) => write!(f, "{v}"),
            Value::Bool(b) => f.write_str(if *b { "TRUE" } else { "FALSE" }),
            Value::Str(s) => f.write_str(s),
            Value::Matrix(m) => f.write_str(&matrix_to_string(m, 3, " ", "\n")),
            Value::File(file) => match file.load() {
                Ok(m) => f.write_str(&matrix_to_string(&m, 3, " ", "\n")),
                Err(e) => write!(f, "{e}"),
            },
            Value::Frame(frame) => {
                f.write_str(&frame.to_text(usize::MAX, usize::MAX, 3, " ", "\n"))
            }
            // One element a line, as `name: value` when named.
            Value::List(l) => {
                for (name, item) in l.names.iter().zip(&l.items) {
                    if let Some(name) = name {
                        write!(f, "{name}: ")?;
                    }
                    writeln!(f, "{item}")?;
                }
                Ok(())
            }
        }
    }
}

/// DML's `toString(X)`: one line per row, cells with `decimal` fractional digits.
pub fn matrix_to_string(m: &Matrix, decimal: usize, sep: &str, linesep: &str) -> String {
    let mut out = String::new();
    for i in 0..m.rows() {
        for j in 0..m.cols() {
            if j > 0 {
                out.push_str(sep);
            }
            push_cell(&mut out, m.get(i, j), decimal);
        }
        out.push_str(linesep);
    }
    out
}

/// `toString(m, sparse=TRUE)`: one `i j v` line (1-based) per non-zero cell, row by row.
pub fn cells_to_string(m: &Matrix, decimal: usize, sep: &str, linesep: &str) -> String {
    let mut out = String::new();
    for i in 0..m.rows() {
        for j in 0..m.cols() {
            let v = m.get(i, j);
            if v != 0.0 {
                out.push_str(&format!("{}{sep}{}{sep}", i + 1, j + 1));
                push_cell(&mut out, v, decimal);
                out.push_str(linesep);
            }
        }
    }
    out
}

/// A cell as `toString` shows it: `decimal` digits rounded as Java's `DecimalFormat`
/// rounds, or Java's spelling of NaN and Inf.
fn push_cell(out: &mut String, v: f64, decimal: usize) {
    if v.is_finite() {
        out.push_str(&crate::number::format_fixed(v, decimal));
    } else {
        out.push_str(&format_double(v));
    }
}
