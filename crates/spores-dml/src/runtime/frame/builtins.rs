//! The DML builtins on frames: each takes the call's evaluated arguments, in the order of
//! its row in the builtin table (`dag/builtins.rs`), and the runtime (`runtime/ops.rs`)
//! sends a call here when an argument is a frame or the builtin makes one.

use std::ops::Range;
use std::path::Path;
use std::sync::Arc;

use spores_exec::io::metadata::{self, Metadata};
use spores_exec::io::ReadOptions;

use super::{lambda::Lambda, transform, Column, Frame, FrameError, ValueType};
use crate::runtime::args::{matrix_arg, number_arg, string_arg, OpResult};
use crate::runtime::error::{ArgError, Expected, RuntimeError};
use crate::runtime::value::Value;

/// `as.frame(x)`: a matrix with each column of the narrowest type holding it, a scalar as
/// a 1 x 1 frame of its type, a frame as it is.
pub fn as_frame(v: &Value) -> OpResult {
    Ok(Value::Frame(Arc::new(match v {
        Value::Frame(f) => return Ok(Value::Frame(f.clone())),
        Value::Matrix(m) => Frame::from_matrix(m)?,
        Value::Str(s) => Frame::new(1, None, vec![Column::Text(vec![Some(s.clone())])]),
        scalar => {
            let (ty, x) = match scalar {
                Value::Bool(b) => (ValueType::Boolean, f64::from(u8::from(*b))),
                Value::Int(i) => (ValueType::Int64, *i as f64),
                other => (ValueType::Fp64, number_arg(other, "as.frame")?),
            };
            Frame::new(
                1,
                None,
                vec![Column::Number {
                    ty,
                    values: vec![x],
                }],
            )
        }
    })))
}

/// The cells a `frame(data, ...)` call or a `schema=` argument lists: a list's elements or
/// one scalar, as text.
fn texts(v: &Value, what: &'static str) -> Result<Vec<Option<Arc<str>>>, RuntimeError> {
    let text = |v: &Value| -> Result<Option<Arc<str>>, RuntimeError> {
        match v {
            Value::Str(s) => Ok(Some(s.clone())),
            v if v.is_scalar() => Ok(Some(Arc::from(v.to_string()))),
            other => Err(ArgError::wrong_type(what, Expected::String, other).into()),
        }
    };
    match v {
        Value::List(l) => l.items.iter().map(text).collect(),
        v => Ok(vec![text(v)?]),
    }
}

/// `frame(data, rows, cols, schema)`.
pub fn construct(args: &[Value]) -> OpResult {
    let data = texts(&args[0], "frame: data")?;
    let rows = count(&args[1], "rows")?;
    let cols = count(&args[2], "cols")?;
    let given = |v: &Value| !matches!(v, Value::Str(s) if s.is_empty());
    let schema = if given(&args[3]) {
        Some(schema_of(&args[3])?)
    } else {
        None
    };
    Ok(Value::Frame(Arc::new(Frame::filled(
        &data, rows, cols, schema,
    )?)))
}

/// A schema argument: a list of type names, or one string of them separated by commas
/// (as `.mtd` files write it).
fn schema_of(v: &Value) -> Result<Vec<ValueType>, RuntimeError> {
    let names: Vec<String> = match v {
        Value::Str(s) => s
            .split(',')
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .map(str::to_string)
            .collect(),
        v => texts(v, "schema")?
            .into_iter()
            .map(|t| t.as_deref().unwrap_or("").to_string())
            .collect(),
    };
    names
        .iter()
        .map(|n| ValueType::parse(n).ok_or_else(|| FrameError::UnknownType { name: n.clone() }))
        .collect::<Result<_, _>>()
        .map_err(Into::into)
}

fn count(v: &Value, what: &'static str) -> Result<usize, RuntimeError> {
    let x = number_arg(v, what)?;
    if !(x >= 0.0 && x.is_finite()) {
        return Err(ArgError::out_of_range(what, Expected::NonNegativeNumber, x).into());
    }
    Ok(x as usize)
}

/// `as.scalar(F)` of a 1 x 1 frame: the cell as a value of its type.
pub fn as_scalar(f: &Frame) -> OpResult {
    if f.rows() != 1 || f.cols() != 1 {
        return Err(FrameError::NotOneCell {
            rows: f.rows(),
            cols: f.cols(),
        }
        .into());
    }
    Ok(match &f.columns()[0] {
        Column::Text(v) => Value::str(v[0].as_deref().unwrap_or("null")),
        Column::Number { ty, values } => match ty {
            ValueType::Boolean => Value::Bool(values[0] != 0.0),
            ValueType::Int32 | ValueType::Int64 => Value::Int(values[0] as i64),
            _ => Value::Double(values[0]),
        },
    })
}

/// A value assigned into a frame: a frame, or a scalar filling the block.
pub fn assigned(v: &Value) -> Result<Frame, RuntimeError> {
    match as_frame(v)? {
        Value::Frame(f) => Ok((*f).clone()),
        _ => unreachable!("as_frame gives a frame"),
    }
}

/// `F[rows, cols]` with the bounds already checked.
pub fn index(f: &Frame, rows: Range<usize>, cols: Range<usize>) -> OpResult {
    Ok(Value::Frame(Arc::new(f.slice(rows, cols))))
}

/// `cbind(A, B)` / `rbind(A, B)` of two frames (a matrix beside a frame is made a frame).
pub fn bind(op: &'static str, a: &Value, b: &Value) -> OpResult {
    let frame = |v: &Value| -> Result<Frame, RuntimeError> {
        match v {
            Value::Frame(f) => Ok((**f).clone()),
            Value::Matrix(m) => Ok(Frame::from_matrix(m)?),
            _ => Err(FrameError::Mixed {
                op,
                left: a.type_name(),
                right: b.type_name(),
            }
            .into()),
        }
    };
    let (x, y) = (frame(a)?, frame(b)?);
    let joined = if op == "cbind" {
        x.cbind(&y)?
    } else {
        x.rbind(&y)?
    };
    Ok(Value::Frame(Arc::new(joined)))
}

/// `write(F, file, format="csv", header, sep)`: the CSV file (with `format="text"`,
/// SystemDS's text cells) and SystemDS's `.mtd` beside it, each written atomically.
pub fn write(f: &Frame, file: &str, format: &str, header: bool, sep: &str) -> OpResult {
    let text = match format {
        "" | "csv" => f.to_csv(header, sep),
        "text" => f.to_text_cells(),
        _ => {
            return Err(FrameError::WriteFormat {
                format: format.to_string(),
            }
            .into())
        }
    };
    let path = Path::new(file);
    spores_exec::io::atomic::write_atomic_sized(path, text.len() as f64, |w| {
        w.write_all(text.as_bytes())
    })
    .map_err(|source| FrameError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let schema: String = f
        .schema()
        .iter()
        .map(|t| format!("{},", t.name()))
        .collect();
    let meta = Metadata {
        data_type: Some("frame".into()),
        schema: Some(schema),
        rows: Some(f.rows()),
        cols: Some(f.cols()),
        format: Some(if format == "text" { "text" } else { "csv" }.into()),
        header: (format != "text").then_some(header),
        sep: (format != "text").then(|| sep.to_string()),
        ..Metadata::default()
    };
    metadata::write_beside(path, &meta)?;
    Ok(Value::Int(0))
}

/// `read(file, data_type="frame", format="csv", header, sep, naStrings, schema)`: the
/// call's schema, else the `.mtd` file's, types the columns; else every column is a string.
/// (`opts` holds the header and separator with the metadata's already applied.)
pub fn read(file: &str, opts: &ReadOptions, schema: Option<&str>) -> OpResult {
    let path = Path::new(file);
    let meta = metadata::read_beside(path)?.unwrap_or_default();
    let schema = schema
        .or(meta.schema.as_deref())
        .map(|s| schema_of(&Value::str(s)))
        .transpose()?;
    Ok(Value::Frame(Arc::new(Frame::read_csv(
        path,
        opts.csv_header,
        &opts.csv_sep,
        &opts.csv_na_strings,
        schema.as_deref(),
    )?)))
}

/// A frame argument of `op`, or an error naming what was given.
/// `freplicate(F, row)`: a frame of `F`'s shape, types and names whose every row holds
/// the cells of the one-row frame `row`, each converted to its column's type (SystemDS's
/// `FrameBlock.frameRowReplication`).
pub fn replicate_row(args: &[Value]) -> OpResult {
    let (f, row) = (
        frame_arg(&args[0], "freplicate")?,
        frame_arg(&args[1], "freplicate")?,
    );
    if row.cols() != f.cols() || row.rows() != 1 {
        return Err(FrameError::Bind {
            op: "freplicate",
            left: (f.rows(), f.cols()),
            right: (row.rows(), row.cols()),
        }
        .into());
    }
    super::ensure_cells("freplicate", f.rows(), f.cols())?;
    let columns = f
        .columns()
        .iter()
        .enumerate()
        .map(|(j, column)| {
            let cell = row.columns()[j].converted(column.value_type(), j)?;
            Ok(match cell {
                Column::Text(cells) => Column::Text(vec![cells[0].clone(); f.rows()]),
                Column::Number { ty, values } => Column::Number {
                    ty,
                    values: vec![values[0]; f.rows()],
                },
            })
        })
        .collect::<Result<_, FrameError>>()?;
    Ok(Value::Frame(Arc::new(Frame::new(
        f.rows(),
        f.names.clone(),
        columns,
    ))))
}

fn frame_arg<'a>(v: &'a Value, op: &'static str) -> Result<&'a Frame, RuntimeError> {
    match v {
        Value::Frame(f) => Ok(f),
        other => Err(ArgError::NotAFrame {
            op,
            found: other.type_name(),
        }
        .into()),
    }
}

fn spec_arg(v: &Value, op: &'static str) -> Result<Arc<str>, RuntimeError> {
    Ok(string_arg(v, (op, "spec"))?)
}

/// `[X, M] = transformencode(target=F, spec=s)`.
pub fn transform_encode(args: &[Value]) -> Result<Vec<Value>, RuntimeError> {
    let f = frame_arg(&args[0], "transformencode")?;
    let (x, meta) = transform::encode(f, &spec_arg(&args[1], "transformencode")?)?;
    Ok(vec![Value::matrix(x), Value::Frame(Arc::new(meta))])
}

/// `transformencode` before the spec's `udf`, which the interpreter then calls: the
/// encoded matrix, the metadata, and the function with the encoded columns it rewrites.
pub fn transform_encode_then_udf(args: &[Value]) -> Result<transform::Encoded, RuntimeError> {
    let f = frame_arg(&args[0], "transformencode")?;
    Ok(transform::encode_then_udf(
        f,
        &spec_arg(&args[1], "transformencode")?,
    )?)
}

/// `transformapply` before the spec's `udf`, which the interpreter then calls.
pub fn transform_apply_then_udf(
    args: &[Value],
) -> Result<(spores_exec::Matrix, Option<transform::UdfCall>), RuntimeError> {
    let f = frame_arg(&args[0], "transformapply")?;
    let meta = frame_arg(&args[2], "transformapply")?;
    Ok(transform::apply_then_udf(
        f,
        &spec_arg(&args[1], "transformapply")?,
        meta,
    )?)
}

/// `transformapply(target=F, spec=s, meta=M)`.
pub fn transform_apply(args: &[Value]) -> OpResult {
    let f = frame_arg(&args[0], "transformapply")?;
    let meta = frame_arg(&args[2], "transformapply")?;
    let x = transform::apply(f, &spec_arg(&args[1], "transformapply")?, meta)?;
    Ok(Value::matrix(x))
}

/// `transformcolmap(target=M, spec=s)`.
pub fn transform_colmap(args: &[Value]) -> OpResult {
    let meta = frame_arg(&args[0], "transformcolmap")?;
    let map = transform::column_map(meta, &spec_arg(&args[1], "transformcolmap")?)?;
    Ok(Value::matrix(map))
}

/// `transformdecode(target=X, spec=s, meta=M)`.
pub fn transform_decode(args: &[Value]) -> OpResult {
    let x = matrix_arg(&args[0], "transformdecode")?;
    let meta = frame_arg(&args[2], "transformdecode")?;
    let f = transform::decode(x, &spec_arg(&args[1], "transformdecode")?, meta)?;
    Ok(Value::Frame(Arc::new(f)))
}

/// `map(F, "x -> ...", margin)`: the lambda of every cell (`margin=0`) or of every row
/// (`margin=1`, a `String[]` in and out).
pub fn map(args: &[Value]) -> OpResult {
    let f = frame_arg(&args[0], "map")?;
    let text = string_arg(&args[1], ("map", "func"))?;
    // SystemDS's whole-frame functions, which `ema` and `dmv` pass to `map` by name.
    const EMA: &str = "UtilFunctions.exponentialMovingAverageImputation(";
    const DMV: &str = "UtilFunctions.syntacticalPatternDiscovery(";
    let call = |name: &str| text.trim().strip_prefix(name)?.strip_suffix(')');
    if let Some(arguments) = call(EMA) {
        return Ok(Value::Frame(Arc::new(super::smoothing::impute(
            f, arguments,
        )?)));
    }
    if let Some(arguments) = call(DMV) {
        let replaced = super::patterns::replace_disguised(f, arguments)?;
        return Ok(Value::Frame(Arc::new(replaced)));
    }
    if super::lambda::is_pairwise_jaccard(&text) {
        return Ok(Value::Frame(Arc::new(super::lambda::jaccard_pairs(f)?)));
    }
    let lambda = Lambda::parse(&text)?;
    let mapped = match number_arg(&args[2], ("map", "margin"))? {
        0.0 => f.map(|cell| lambda.apply(cell))?,
        1.0 => f.map_rows(|row| lambda.apply_row(row))?,
        m => {
            return Err(FrameError::Lambda(format!(
                "map: margin {m} is not supported (0: cells, 1: rows)"
            ))
            .into())
        }
    };
    Ok(Value::Frame(Arc::new(mapped)))
}

/// `tokenize(target=F, spec=s, max_tokens=n)`.
pub fn tokenize(args: &[Value]) -> OpResult {
    let f = frame_arg(&args[0], "tokenize")?;
    let spec = spec_arg(&args[1], "tokenize")?;
    let max_tokens = count(&args[2], "max_tokens")?;
    Ok(Value::Frame(Arc::new(super::tokenize::tokenize(
        f, &spec, max_tokens,
    )?)))
}
