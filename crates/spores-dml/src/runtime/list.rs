//! DML lists: `list(a, b)` and `list(name=a, ...)`, `l[i]`, `l[i:j]`, `l["name"]`,
//! `length(l)`, `append(l, x)`, the casts that take a value out of a one-element list
//! (`as.matrix(l[1])`, `as.scalar(l["k"])`) and `as.matrix` of a list of scalars (a column).
//!
//! As in SystemDS, indexing a list gives a list (of the selected elements, with their
//! names); the casts unwrap it.

use std::sync::Arc;

use spores_exec::{DenseMatrix, Matrix};

use super::args::OpResult;
use super::error::{ListError, RuntimeError};
use super::value::{ListValue, Value};
use crate::dag::{Builtin, IndexKind};

/// `list(...)`: the arguments come as (name, value) pairs, the name `""` for a
/// positional element.
pub fn construct(args: &[Value]) -> OpResult {
    let mut list = ListValue::default();
    for pair in args.chunks(2) {
        let [Value::Str(name), value] = pair else {
            return Err(RuntimeError::internal(
                "list elements come as (name, value) pairs",
            ));
        };
        list.names
            .push((!name.is_empty()).then(|| name.to_string()));
        list.items.push(value.clone());
    }
    Ok(Value::List(Arc::new(list)))
}

/// `append(l, x)`: a new list with `x` at the end, as one element even when `x` is a
/// list (SystemDS nests: `length(append(list(), list(1, 2, 3)))` is 1), except a list of
/// one element, whose element is appended with its name (SystemDS's `ListAppend`
/// unfolds those, so `append(list(X=X), list(mult=2))` is `list(X=X, mult=2)`).
/// `append(s, t)` of two strings joins them with a line break, as SystemDS does.
pub fn append(args: &[Value]) -> OpResult {
    if let [Value::Str(s), Value::Str(t)] = args {
        return Ok(Value::str(format!("{s}\n{t}")));
    }
    let Value::List(list) = &args[0] else {
        return Err(ListError::Append {
            first: args[0].type_name(),
            second: args[1].type_name(),
        }
        .into());
    };
    let mut out = (**list).clone();
    match &args[1] {
        Value::List(single) if single.items.len() == 1 => {
            out.names.push(single.names[0].clone());
            out.items.push(single.items[0].clone());
        }
        other => {
            out.names.push(None);
            out.items.push(other.clone());
        }
    }
    Ok(Value::List(Arc::new(out)))
}

/// `l[i]`, `l[a:b]` (1-based, inclusive) or `l["name"]`: a list of the selected elements.
/// A list is one column, so `l[i, 1]` is `l[i]` (SystemDS's builtins write it).
pub fn index(list: &ListValue, rows: IndexKind, cols: IndexKind, bounds: &[Value]) -> OpResult {
    let range = selected(list, rows, cols, bounds)?;
    Ok(Value::List(Arc::new(ListValue {
        names: list.names[range.clone()].to_vec(),
        items: list.items[range].to_vec(),
    })))
}

/// `l[i] = x`, `l["name"] = x`, `l[a:b] = m`: a new list with the selected elements
/// replaced, as SystemDS's `ListObject.set`: a list value replaces a range of its own
/// length (one element for `l[i] = list(x)`), any other value one element. The elements
/// must exist. Names are kept, except that a named list value brings its names along
/// (`X[1] = list(f = 2)` renames the first element `f`).
pub fn assign(
    list: &ListValue,
    rows: IndexKind,
    cols: IndexKind,
    bounds: &[Value],
    value: &Value,
) -> OpResult {
    let range = selected(list, rows, cols, bounds)?;
    let mut out = list.clone();
    match value {
        Value::List(v) => {
            if v.items.len() != range.len() {
                return Err(ListError::AssignLength {
                    selected: range.len(),
                    given: v.items.len(),
                }
                .into());
            }
            // SystemDS takes the names of a named right-hand side: over the whole list
            // always, over a part only when the list is named too.
            let named = v.names.iter().any(Option::is_some);
            if named && (range.len() == out.items.len() || out.names.iter().any(Option::is_some)) {
                out.names.splice(range.clone(), v.names.iter().cloned());
            }
            out.items.splice(range, v.items.iter().cloned());
        }
        other if range.len() == 1 => out.items[range.start] = other.clone(),
        _ => {
            return Err(ListError::AssignLength {
                selected: range.len(),
                given: 1,
            }
            .into())
        }
    }
    Ok(Value::List(Arc::new(out)))
}

/// The positions `l[...]` selects (see [`index`]).
fn selected(
    list: &ListValue,
    rows: IndexKind,
    cols: IndexKind,
    bounds: &[Value],
) -> Result<std::ops::Range<usize>, RuntimeError> {
    let row_bounds = match rows {
        IndexKind::All => 0,
        IndexKind::Single => 1,
        IndexKind::Range => 2,
    };
    let first_column =
        cols == IndexKind::Single && bounds.get(row_bounds).and_then(Value::as_f64) == Some(1.0);
    if cols != IndexKind::All && !first_column {
        return Err(ListError::TwoIndices.into());
    }
    let n = list.items.len();
    let position = |v: &Value| -> Result<usize, ListError> {
        if let Value::Str(name) = v {
            return list
                .names
                .iter()
                .position(|k| k.as_deref() == Some(&**name))
                .ok_or_else(|| ListError::NoElementNamed {
                    name: name.to_string(),
                });
        }
        let x = v.as_f64().ok_or(ListError::IndexType {
            found: v.type_name(),
        })?;
        if x.fract() != 0.0 || x < 1.0 || x > n as f64 {
            return Err(ListError::IndexOutOfBounds { index: x, len: n });
        }
        Ok(x as usize - 1)
    };
    Ok(match rows {
        IndexKind::All => 0..n,
        IndexKind::Single => {
            let i = position(&bounds[0])?;
            i..i + 1
        }
        IndexKind::Range => {
            let (a, b) = (position(&bounds[0])?, position(&bounds[1])?);
            if a > b {
                return Err(ListError::EmptyRange {
                    first: a + 1,
                    last: b + 1,
                }
                .into());
            }
            a..b + 1
        }
    })
}

/// `toString(l)` as SystemDS prints a list: `List containing:` and the elements in
/// brackets, separated by `, `, each matrix as `Matrix:` and its text on lines of their
/// own (`matrix_text` formats it with the call's `decimal`, `sep`, ...). Names are not
/// shown.
pub fn to_string(
    list: &ListValue,
    matrix_text: &dyn Fn(&Matrix) -> Result<String, RuntimeError>,
) -> Result<String, RuntimeError> {
    let items = list
        .items
        .iter()
        .map(|item| match item {
            Value::Matrix(m) => Ok(format!("\nMatrix:\n{}", matrix_text(m)?)),
            Value::List(inner) => to_string(inner, matrix_text),
            scalar => Ok(scalar.to_string()),
        })
        .collect::<Result<Vec<String>, _>>()?;
    Ok(format!("List containing:\n[{}]", items.join(", ")))
}

/// `as.list(x)`: a list as it is, any other value as a list of one element.
pub fn as_list(v: &Value) -> Value {
    match v {
        // A list holding one list is unwrapped (`as.list(l[1])` of a nested list), as in
        // SystemDS.
        Value::List(l) if l.items.len() == 1 && matches!(l.items[0], Value::List(_)) => {
            l.items[0].clone()
        }
        Value::List(_) => v.clone(),
        other => Value::List(Arc::new(ListValue {
            names: vec![None],
            items: vec![other.clone()],
        })),
    }
}

/// `[rest, element] = remove(l, pos)`: the list without its `pos`-th element (1-based),
/// and that element.
pub fn remove(args: &[Value]) -> Result<Vec<Value>, ListError> {
    let Value::List(list) = &args[0] else {
        return Err(ListError::RemoveFromNonList {
            found: args[0].type_name(),
        });
    };
    let n = list.items.len();
    let pos = args[1]
        .as_f64()
        .filter(|p| p.fract() == 0.0 && *p >= 1.0 && *p <= n as f64)
        .ok_or_else(|| ListError::RemovePosition {
            position: args[1].to_string(),
            len: n,
        })? as usize
        - 1;
    let mut rest = (**list).clone();
    rest.names.remove(pos);
    let element = rest.items.remove(pos);
    Ok(vec![Value::List(Arc::new(rest)), element])
}

/// `length(l)`: the number of elements.
pub fn length(list: &ListValue) -> Value {
    Value::Int(list.items.len() as i64)
}

/// The arguments of a cast (`as.matrix`, `as.scalar`, ...) with a one-element list
/// replaced by its element; `None` when there is nothing to unwrap.
pub fn unwrap_cast_args(b: Builtin, args: &[Value]) -> Option<Result<Vec<Value>, RuntimeError>> {
    let casts = matches!(
        b,
        Builtin::AsMatrix
            | Builtin::AsFrame
            | Builtin::AsScalar
            | Builtin::AsDouble
            | Builtin::AsInteger
            | Builtin::AsLogical
    );
    match args.first() {
        Some(Value::List(list)) if b == Builtin::AsMatrix && list.items.len() > 1 => {
            Some(column_of_scalars(list).map(|v| vec![v]))
        }
        Some(Value::List(list)) if casts => Some(
            single(list, b.name())
                .map(|v| vec![v])
                .map_err(RuntimeError::from),
        ),
        _ => None,
    }
}

/// `as.matrix(list(a, b, ...))` of several scalars (or 1 x 1 matrices): the column
/// vector of their values, as SystemDS builds it.
fn column_of_scalars(list: &ListValue) -> OpResult {
    let cells = list
        .items
        .iter()
        .enumerate()
        .map(|(k, item)| match item {
            Value::Matrix(m) if m.rows() == 1 && m.cols() == 1 => Ok(m.get(0, 0)),
            v => v.as_f64().ok_or(ListError::NotScalars {
                len: list.items.len(),
                element: k + 1,
                found: v.type_name(),
            }),
        })
        .collect::<Result<Vec<f64>, _>>()?;
    let column = DenseMatrix::from_vec(cells.len(), 1, cells)?;
    Ok(Value::matrix(Matrix::Dense(column)))
}

/// The one element of a list, or an error naming `what` needed it.
pub fn single(list: &ListValue, what: &'static str) -> Result<Value, ListError> {
    match list.items.as_slice() {
        [one] => Ok(one.clone()),
        items => Err(ListError::NotSingle {
            builtin: what,
            len: items.len(),
        }),
    }
}
