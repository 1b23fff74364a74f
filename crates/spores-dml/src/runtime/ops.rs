//! Evaluation of one DAG operator on runtime values: DML's dynamic typing (scalars of
//! four value types and matrices) on top of the kernels.

use std::borrow::Cow;
use std::io::Write;
use std::ops::Range;
use std::path::Path;
use std::sync::Arc;

use spores_exec::io::{self as mio, Format, ReadOptions, WriteOptions};
use spores_exec::kernels::elementwise::{self, BinaryOp};
use spores_exec::kernels::ew_fused::{self as ew, EwArg, EwInstr, EwOutput, EwProgram, EwValue};
use spores_exec::kernels::fused::{self as fk, WeightKind};
use spores_exec::kernels::masked::{self as mk, Operand as MaskedArg};
use spores_exec::kernels::unary::{self, UnaryOp};
use spores_exec::kernels::{aggregate, matmul, structural, transpose};
use spores_exec::random::{systemds_rand, systemds_sample, DatagenSpec, Pdf};
use spores_exec::{DenseMatrix, ExecError, Matrix};

use super::args::{check_deferred_indices, matrix_arg, number_arg, string_arg, OpResult};
use super::error::{ArgError, Expected, FileError, RuntimeError};
use super::frame::builtins as frames;
use super::list;
use super::value::{cells_to_string, matrix_to_string, Value};
use crate::dag::{
    AggFn, Axis, Builtin, CatalogueOp, EwPlan, Fused, IndexKind, Literal, MaskedOperand,
    MaskedOutput, MaskedPlan, Op,
};
use crate::engine::file_matrix::FileMatrix;

/// A runtime failure of one operator; the interpreter attaches the node's source span.
/// The state effectful operators touch.
pub struct EffectContext<'a> {
    pub out: &'a mut dyn Write,
    /// Source of seeds for `rand` calls without an explicit seed.
    pub next_seed: &'a mut u64,
    /// When the run started, for `time()`.
    pub start: std::time::Instant,
}

pub fn literal(l: &Literal) -> Value {
    match l {
        Literal::Double(v) => Value::Double(*v),
        Literal::Int(v) => Value::Int(*v),
        Literal::Bool(v) => Value::Bool(*v),
        Literal::Str(s) => Value::str(s.as_str()),
    }
}

/// Evaluates every operator except inputs, calls and extraction, which need the
/// interpreter.
pub fn eval(op: &Op, args: &[Value], fx: &mut EffectContext) -> OpResult {
    // The kernels that check indices themselves do so for `X`, their first operand.
    let skip = usize::from(checks_sparse_indices_itself(op));
    check_deferred_indices(&args[skip.min(args.len())..])?;
    match op {
        Op::Literal(l) => Ok(literal(l)),
        Op::Binary(b) => binary(*b, &args[0], &args[1]),
        Op::Unary(u) => unary_value(*u, &args[0]),
        Op::MatMul => eval_matmul(&args[0], &args[1]),
        Op::Transpose => match &args[0] {
            Value::Matrix(m) => Ok(Value::matrix(transpose::transpose(m))),
            scalar => Ok(scalar.clone()),
        },
        Op::Agg(f, axis) => aggregate_value(*f, *axis, &args[0]),
        Op::Builtin(b) => builtin(*b, args, fx),
        Op::Index { rows, cols } => right_index(*rows, *cols, args),
        Op::LeftIndex { rows, cols } => left_index(*rows, *cols, args),
        Op::Fused(Fused::Masked(plan)) => masked(plan, args),
        Op::Fused(Fused::Elementwise(plan)) => fused_elementwise(plan, args),
        Op::Fused(f) => fused(f.clone(), args),
        Op::Input(_) | Op::Call { .. } | Op::Extract(_) | Op::Guarded(_) | Op::Relational(_) => {
            Err(RuntimeError::internal(format!(
                "`{}` is evaluated by the interpreter",
                op.name()
            )))
        }
    }
}

/// Whether the operator's kernel checks the indices of a sparse input whose checks were
/// deferred (`IndexChecks::Deferred`, the Python bindings' inputs) as it reads
/// them, sparing the separate pass over them: `mmchain` and `sddmm_sum`, where the pass
/// over `X` (their first operand) is the whole work. Their other paths check first
/// ([`catalogue`]).
fn checks_sparse_indices_itself(op: &Op) -> bool {
    matches!(
        op,
        Op::Fused(Fused::Catalogue(
            CatalogueOp::Mmchain | CatalogueOp::MmchainW | CatalogueOp::SddmmSum
        ))
    )
}

/// `a %*% b` as the unfused operator computes it.
fn eval_matmul(a: &Value, b: &Value) -> OpResult {
    let (a, b) = (matrix_arg(a, "%*%")?, matrix_arg(b, "%*%")?);
    Ok(Value::matrix(matmul::matmul(a, b)?))
}

/// A size (`rows=`, `cols=`, `decimal=`): a non-negative number, rounded down as SystemDS
/// casts it (`rows=max_iter/100` with `max_iter = 50` is 0 rows).
fn size_arg(v: &Value, what: &'static str) -> Result<usize, ArgError> {
    let x = number_arg(v, what)?;
    if x < 0.0 || !x.is_finite() {
        return Err(ArgError::out_of_range(what, Expected::NonNegativeNumber, x));
    }
    Ok(x.floor() as usize)
}

/// A `seed` argument: `-1` (SystemDS's "unspecified") takes the next seed of the
/// interpreter's clock-seeded stream, anything else is used as it is.
fn seed_arg(v: &Value, fx: &mut EffectContext) -> Result<i64, ArgError> {
    let seed = match v {
        Value::Int(i) => *i,
        other => {
            let x = number_arg(other, "seed")?;
            if x.fract() != 0.0 || !x.is_finite() {
                return Err(ArgError::out_of_range("seed", Expected::Integer, x));
            }
            x as i64
        }
    };
    if seed != -1 {
        return Ok(seed);
    }
    // SplitMix64: a Weyl sequence through a bit mixer, so consecutive seeds are unrelated.
    *fx.next_seed = fx.next_seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *fx.next_seed;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    let seed = (z ^ (z >> 31)) as i64;
    // -1 would mean "unspecified" again; any other value is a valid seed.
    Ok(if seed == -1 { 0 } else { seed })
}

/// Binary operators on any combination of scalars and matrices.
pub fn binary(op: BinaryOp, a: &Value, b: &Value) -> OpResult {
    ensure_binary_fits(op, a, b)?;
    match (a, b) {
        (Value::Matrix(x), Value::Matrix(y)) => Ok(Value::matrix(elementwise::binary(op, x, y)?)),
        (Value::Frame(x), Value::Frame(y)) if matches!(op, BinaryOp::Eq | BinaryOp::Ne) => Ok(
            Value::Frame(Arc::new(x.compare_cells(y, op == BinaryOp::Eq)?)),
        ),
        (Value::Matrix(x), s) if s.as_f64().is_some() => Ok(Value::matrix(
            elementwise::binary_scalar(op, x, s.as_f64().unwrap(), false),
        )),
        (s, Value::Matrix(y)) if s.as_f64().is_some() => Ok(Value::matrix(
            elementwise::binary_scalar(op, y, s.as_f64().unwrap(), true),
        )),
        // SystemDS takes a string beside a matrix as its `StringObject.getDoubleValue`:
        // 1 for `TRUE`/`true`, else 0, whatever number it spells (`bandit` multiplies a
        // matrix by a bound read from a frame cell, which leaves the matrix at 0).
        (Value::Matrix(x), Value::Str(s)) => Ok(Value::matrix(elementwise::binary_scalar(
            op,
            x,
            string_as_double(s),
            false,
        ))),
        (Value::Str(s), Value::Matrix(y)) => Ok(Value::matrix(elementwise::binary_scalar(
            op,
            y,
            string_as_double(s),
            true,
        ))),
        _ => scalar_binary(op, a, b),
    }
}

/// Refuses an element-wise result too large for the memory budget, before it is
/// allocated. The result stays sparse (and bounded by its sparse operand) when a
/// full-size sparse operand meets `*`/`&`, another sparse operand under an operator with
/// `0 op 0 = 0`, or a scalar that maps zero to zero; otherwise it is dense.
fn ensure_binary_fits(op: BinaryOp, a: &Value, b: &Value) -> Result<(), ExecError> {
    let shape = |v: &Value| match v {
        Value::Matrix(m) => Some(m.shape()),
        _ => None,
    };
    let (sa, sb) = (shape(a), shape(b));
    let rows = sa.map_or(0, |s| s.rows).max(sb.map_or(0, |s| s.rows));
    let cols = sa.map_or(0, |s| s.cols).max(sb.map_or(0, |s| s.cols));
    if 8.0 * rows as f64 * cols as f64 <= spores_exec::memory::budget() {
        return Ok(());
    }
    let full_sparse = |v: &Value| matches!(v, Value::Matrix(m) if m.is_sparse() && m.rows() == rows && m.cols() == cols);
    let stays_sparse = match (a, b) {
        (x, y) if full_sparse(x) && full_sparse(y) => op.zero_on_zeros(),
        (x, y) if full_sparse(x) => {
            op.is_intersection() || y.as_f64().is_some_and(|s| op.apply_cell(0.0, s) == 0.0)
        }
        (x, y) if full_sparse(y) => {
            op.is_intersection() || x.as_f64().is_some_and(|s| op.apply_cell(s, 0.0) == 0.0)
        }
        _ => false,
    };
    if stays_sparse {
        return Ok(());
    }
    spores_exec::memory::ensure_dense(op.symbol(), rows, cols)
}

/// A string as SystemDS's runtime reads it where it needs a number beside a matrix.
fn string_as_double(s: &str) -> f64 {
    f64::from(u8::from(s == "TRUE" || s == "true"))
}

fn scalar_binary(op: BinaryOp, a: &Value, b: &Value) -> OpResult {
    if let (Value::Str(_), _) | (_, Value::Str(_)) = (a, b) {
        return match op {
            BinaryOp::Add if a.is_scalar() && b.is_scalar() => {
                let (a, b) = (a.to_string(), b.to_string());
                let bytes = a.len() as f64 + b.len() as f64;
                spores_exec::memory::ensure_fits(&format!("+: a string of {bytes} bytes"), bytes)?;
                Ok(Value::str(a + &b))
            }
            BinaryOp::Eq | BinaryOp::Ne if a.is_scalar() && b.is_scalar() => {
                let equal = a.to_string() == b.to_string();
                Ok(Value::Bool(equal == (op == BinaryOp::Eq)))
            }
            _ => Err(undefined(op, a, b).into()),
        };
    }
    let (x, y) = match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) => (x, y),
        _ => return Err(undefined(op, a, b).into()),
    };
    use BinaryOp::*;
    match op {
        Eq | Ne | Lt | Le | Gt | Ge | And | Or => return Ok(Value::Bool(op.apply(x, y) != 0.0)),
        _ => {}
    }
    // Integer arithmetic stays integer, as in DML (`i + 1` in a loop is an int).
    if let (Value::Int(i), Value::Int(j)) = (a, b) {
        let exact = match op {
            Add => i.checked_add(*j),
            Sub => i.checked_sub(*j),
            Mul => i.checked_mul(*j),
            Min => Some(*i.min(j)),
            Max => Some(*i.max(j)),
            // Truncating, as Java and SystemDS (`-7 %/% 2 = -3`, `-7 %% 3 = -1`). The
            // smallest integer divided by -1 overflows: a double, as `+` gives; its
            // remainder is 0 (`wrapping_rem`).
            IntDiv if *j != 0 => i.checked_div(*j),
            Mod if *j != 0 => Some(i.wrapping_rem(*j)),
            // SystemDS computes NaN and stores it in an integer: 0.
            Mod => Some(0),
            _ => None,
        };
        if let Some(v) = exact {
            return Ok(Value::Int(v));
        }
    }
    Ok(Value::Double(op.apply(x, y)))
}

/// `a op b` is not defined for the types of `a` and `b`.
fn undefined(op: BinaryOp, a: &Value, b: &Value) -> ArgError {
    ArgError::Undefined {
        op: op.symbol(),
        left: a.type_name(),
        right: b.type_name(),
    }
}

fn unary_value(op: UnaryOp, v: &Value) -> OpResult {
    match v {
        Value::Matrix(m) => {
            let cells = m.rows() as f64 * m.cols() as f64;
            if 8.0 * cells > spores_exec::memory::budget() {
                let zero = Matrix::Dense(DenseMatrix::zeros(1, 1));
                if !(m.is_sparse() && unary::unary(op, &zero).get(0, 0) == 0.0) {
                    let what = format!("{op:?}").to_lowercase();
                    spores_exec::memory::ensure_dense(&what, m.rows(), m.cols())?;
                }
            }
            Ok(Value::matrix(unary::unary(op, m)))
        }
        // The smallest integer has no integer negation: it becomes a double, as `0 - x` does.
        Value::Int(i) if op == UnaryOp::Neg => Ok(i
            .checked_neg()
            .map_or(Value::Double(-(*i as f64)), Value::Int)),
        Value::Int(i) if op == UnaryOp::Abs => Ok(i
            .checked_abs()
            .map_or(Value::Double((*i as f64).abs()), Value::Int)),
        s => {
            let x = s.as_f64().ok_or(ArgError::NotANumber {
                op,
                found: s.type_name(),
            })?;
            if op == UnaryOp::Not {
                return Ok(Value::Bool(x == 0.0));
            }
            // `-1 * x` between two numbers is IEEE's: `-0.0` for 0, as SystemDS prints it.
            if op == UnaryOp::Neg {
                return Ok(Value::Double(-x));
            }
            // The kernel is the one definition of each function; apply it to a 1x1 matrix.
            let one = Matrix::Dense(DenseMatrix::filled(1, 1, x));
            Ok(Value::Double(unary::unary(op, &one).get(0, 0)))
        }
    }
}

fn aggregate_value(f: AggFn, axis: Axis, v: &Value) -> OpResult {
    let m = match v {
        Value::Matrix(m) => m,
        s if s.as_f64().is_some() && axis == Axis::All => {
            return Ok(Value::Double(s.as_f64().unwrap()))
        }
        other => {
            return Err(ArgError::AggregateOfNonMatrix {
                found: other.type_name(),
            }
            .into())
        }
    };
    // A matrix without cells aggregates as SystemDS's does: sum 0, mean NaN (0 / 0),
    // min +Inf, max -Inf (the identities), the same values the optimized plans compute.
    use aggregate::*;
    Ok(match axis {
        Axis::All => Value::Double(match f {
            AggFn::Sum => sum,
            AggFn::Mean => mean,
            AggFn::Min => min,
            AggFn::Max => max,
        }(m)),
        Axis::Row => Value::matrix(match f {
            AggFn::Sum => row_sums,
            AggFn::Mean => row_means,
            AggFn::Min => row_mins,
            AggFn::Max => row_maxs,
        }(m)),
        Axis::Col => Value::matrix(match f {
            AggFn::Sum => col_sums,
            AggFn::Mean => col_means,
            AggFn::Min => col_mins,
            AggFn::Max => col_maxs,
        }(m)),
    })
}

fn to_matrix(v: &Value) -> Result<Arc<Matrix>, ArgError> {
    match v {
        Value::Matrix(m) => Ok(m.clone()),
        s => {
            let x = number_arg(s, "value")?;
            Ok(Arc::new(Matrix::Dense(DenseMatrix::filled(1, 1, x))))
        }
    }
}

/// The number a cast (`as.double`, `as.integer`) reads: a number, a boolean, a 1x1
/// matrix or a string holding a number.
fn cast_number(v: &Value, cast: &'static str) -> Result<f64, ArgError> {
    match v {
        Value::Str(s) => s.trim().parse::<f64>().map_err(|_| ArgError::CastOfText {
            cast,
            text: s.to_string(),
        }),
        v => number_arg(v, format!("{cast} argument")),
    }
}

fn builtin(b: Builtin, args: &[Value], fx: &mut EffectContext) -> OpResult {
    if let Some(unwrapped) = list::unwrap_cast_args(b, args) {
        return builtin(b, &unwrapped?, fx);
    }
    if let (Builtin::Length, Some(Value::List(l))) = (b, args.first()) {
        return Ok(list::length(l));
    }
    if let Some(Value::Frame(f)) = args.first() {
        match b {
            Builtin::Nrow => return Ok(Value::Int(f.rows() as i64)),
            Builtin::Ncol => return Ok(Value::Int(f.cols() as i64)),
            Builtin::Length => return Ok(Value::Int((f.rows() * f.cols()) as i64)),
            Builtin::AsScalar => return frames::as_scalar(f),
            Builtin::AsMatrix => return Ok(Value::matrix(f.to_matrix()?)),
            Builtin::DetectSchema => return Ok(Value::Frame(Arc::new(f.detect_schema()))),
            Builtin::ColNames => return Ok(Value::Frame(Arc::new(f.column_names()))),
            Builtin::DropInvalidType => {
                let Value::Frame(schema) = &args[1] else {
                    return Err(ArgError::NotAFrame {
                        op: b.name(),
                        found: args[1].type_name(),
                    }
                    .into());
                };
                return Ok(Value::Frame(Arc::new(f.drop_invalid_type(schema)?)));
            }
            Builtin::Replace => {
                // SystemDS passes the pattern and replacement as text (`TRUE` as `true`).
                let text = |v: &Value| match v {
                    Value::Bool(b) => b.to_string(),
                    other => other.to_string(),
                };
                let replaced = f.replace(&text(&args[1]), &text(&args[2]))?;
                return Ok(Value::Frame(Arc::new(replaced)));
            }
            _ => {}
        }
    }
    // Frames side by side (a list first is a list's `append`, below).
    if matches!(b, Builtin::Cbind | Builtin::Rbind | Builtin::Append)
        && args.len() == 2
        && !matches!(args[0], Value::List(_))
        && args.iter().any(|a| matches!(a, Value::Frame(_)))
    {
        let op = if b == Builtin::Rbind {
            "rbind"
        } else {
            "cbind"
        };
        return frames::bind(op, &args[0], &args[1]);
    }
    match b {
        Builtin::List => list::construct(args),
        Builtin::Append => match args {
            [Value::Matrix(_), Value::Matrix(_)] => builtin(Builtin::Cbind, args, fx),
            _ => list::append(args),
        },
        Builtin::Rand => rand(args, fx),
        Builtin::Sample => sample(args, fx),
        Builtin::Matrix => matrix(args),
        Builtin::Seq => {
            let from = number_arg(&args[0], "from")?;
            let to = number_arg(&args[1], "to")?;
            let by = match args.get(2) {
                Some(v) => number_arg(v, "incr")?,
                None if from <= to => 1.0,
                None => -1.0,
            };
            Ok(Value::matrix(structural::seq(from, to, by)?))
        }
        Builtin::Nrow | Builtin::Ncol | Builtin::Length => {
            let m = matrix_arg(&args[0], b.name())?;
            Ok(Value::Int(match b {
                Builtin::Nrow => m.rows(),
                Builtin::Ncol => m.cols(),
                _ => m.rows() * m.cols(),
            } as i64))
        }
        Builtin::AsScalar => match &args[0] {
            Value::Matrix(m) => m.as_scalar().map(Value::Double).ok_or_else(|| {
                ArgError::Shape {
                    builtin: "as.scalar",
                    expected: "1x1",
                    shape: m.shape(),
                }
                .into()
            }),
            s => Ok(s.clone()),
        },
        Builtin::AsMatrix => Ok(Value::Matrix(to_matrix(&args[0])?)),
        Builtin::AsList => Ok(list::as_list(&args[0])),
        Builtin::AsFrame => frames::as_frame(&args[0]),
        Builtin::Frame => frames::construct(args),
        Builtin::Map => frames::map(args),
        Builtin::FrameReplicate => frames::replicate_row(args),
        Builtin::Tokenize => frames::tokenize(args),
        Builtin::TransformApply => frames::transform_apply(args),
        Builtin::TransformDecode => frames::transform_decode(args),
        Builtin::TransformColMap => frames::transform_colmap(args),
        Builtin::DetectSchema | Builtin::ColNames | Builtin::DropInvalidType => {
            Err(ArgError::NotAFrame {
                op: b.name(),
                found: args[0].type_name(),
            }
            .into())
        }
        Builtin::AsDouble => Ok(Value::Double(cast_number(&args[0], "as.double")?)),
        Builtin::AsInteger => Ok(Value::Int(cast_number(&args[0], "as.integer")? as i64)),
        Builtin::AsLogical => match &args[0] {
            Value::Str(s) => match s.to_ascii_lowercase().as_str() {
                "true" => Ok(Value::Bool(true)),
                "false" => Ok(Value::Bool(false)),
                _ => Err(ArgError::NotLogical {
                    text: s.to_string(),
                }
                .into()),
            },
            v => Ok(Value::Bool(number_arg(v, "as.logical argument")? != 0.0)),
        },
        Builtin::Diag => Ok(Value::matrix(structural::diag(matrix_arg(
            &args[0], "diag",
        )?)?)),
        Builtin::Trace => {
            let m = matrix_arg(&args[0], "trace")?;
            if m.rows() != m.cols() {
                return Err(ArgError::Shape {
                    builtin: "trace",
                    expected: "square",
                    shape: m.shape(),
                }
                .into());
            }
            Ok(Value::Double((0..m.rows()).map(|i| m.get(i, i)).sum()))
        }
        Builtin::Cbind | Builtin::Rbind => {
            // As SystemDS: of one list, its elements bound together (`rbind(folds)`); of
            // one matrix or frame, itself.
            if let [one] = args {
                if matches!(one, Value::Matrix(_) | Value::Frame(_)) {
                    return Ok(one.clone());
                }
                let Value::List(l) = one else {
                    return Err(ArgError::BindOne {
                        builtin: b.name(),
                        found: one.type_name(),
                    }
                    .into());
                };
                let mut items = l.items.iter();
                let Some(first) = items.next() else {
                    return Err(ArgError::BindOne {
                        builtin: b.name(),
                        found: "empty list",
                    }
                    .into());
                };
                return items.try_fold(first.clone(), |acc, next| {
                    builtin(b, &[acc, next.clone()], fx)
                });
            }
            // Of a list and more, `append` (the second argument one more element,
            // `length(cbind(list(3), list(1, 2)))` is 2); of two strings, their lines.
            if matches!(args, [Value::List(_), _] | [Value::Str(_), Value::Str(_)]) {
                return list::append(args);
            }
            let (x, y) = (to_matrix(&args[0])?, to_matrix(&args[1])?);
            let r = if b == Builtin::Cbind {
                structural::cbind(&x, &y)
            } else {
                structural::rbind(&x, &y)
            };
            Ok(Value::matrix(r?))
        }
        Builtin::IfElse => if_else(args),
        Builtin::Replace => {
            let m = matrix_arg(&args[0], "replace")?;
            let pattern = number_arg(&args[1], "pattern")?;
            let replacement = number_arg(&args[2], "replacement")?;
            Ok(Value::matrix(structural::replace(m, pattern, replacement)))
        }
        Builtin::ToString => to_string(args),
        Builtin::Read => ReadRequest::from_args(args)?.run(),
        Builtin::Write => write(args),
        Builtin::Print => {
            writeln!(fx.out, "{}", args[0]).map_err(RuntimeError::Output)?;
            Ok(Value::Int(0))
        }
        Builtin::Printf => {
            let template = string_arg(&args[0], "print: format")?;
            let line = super::printf::format(&template, &args[1..])?;
            writeln!(fx.out, "{line}").map_err(RuntimeError::Output)?;
            Ok(Value::Int(0))
        }
        Builtin::Assert => match args[0].as_bool() {
            Some(true) => Ok(Value::Int(0)),
            Some(false) => Err(RuntimeError::AssertionFailed),
            None => Err(ArgError::AssertOfNonBoolean {
                found: args[0].type_name(),
            }
            .into()),
        },
        Builtin::Stop => Err(RuntimeError::Stop(args[0].to_string())),
        Builtin::Time => Ok(Value::Int(fx.start.elapsed().as_nanos() as i64)),
        b if matches!(b, Builtin::Eval | Builtin::EvalList) || b.outputs() > 1 => Err(
            RuntimeError::internal(format!("`{}` is evaluated by the interpreter", b.name())),
        ),
        b if super::native::handles(b) => super::native::eval(b, args),
        b => Err(RuntimeError::internal(format!(
            "no evaluation for `{}`",
            b.name()
        ))),
    }
}

/// `rand(rows, cols, min, max, sparsity, seed, pdf, lambda)`: SystemDS's generator.
/// Its numeric parameters may be strings holding a number, as SystemDS reads them
/// (`bandit` draws between bounds it takes from frame cells).
fn rand(args: &[Value], fx: &mut EffectContext) -> OpResult {
    let number = |v: &Value, what: &'static str| match v {
        Value::Str(s) => s
            .trim()
            .parse::<f64>()
            .map_err(|_| ArgError::wrong_type(what, Expected::Number, v)),
        v => number_arg(v, what),
    };
    let pdf = match &*string_arg(&args[6], "pdf")? {
        "uniform" => Pdf::Uniform {
            min: number(&args[2], "min")?,
            max: number(&args[3], "max")?,
        },
        "normal" => Pdf::Normal,
        "poisson" => Pdf::Poisson {
            mean: number(&args[7], "lambda")?,
        },
        other => {
            return Err(ArgError::UnknownPdf {
                pdf: other.to_string(),
            }
            .into())
        }
    };
    let spec = DatagenSpec {
        rows: size_arg(&args[0], "rows")?,
        cols: size_arg(&args[1], "cols")?,
        sparsity: number(&args[4], "sparsity")?,
        pdf,
        seed: seed_arg(&args[5], fx)?,
    };
    Ok(Value::matrix(systemds_rand(&spec)?))
}

/// `sample(range, size, [replace,] seed)`.
fn sample(args: &[Value], fx: &mut EffectContext) -> OpResult {
    // sample(range, size, seed): a number in third place is the seed.
    let (replace, seed) = match &args[2] {
        Value::Bool(replace) => (*replace, &args[3]),
        seed => (false, seed),
    };
    let range = number_arg(&args[0], "range")?;
    if range.fract() != 0.0 || !range.is_finite() {
        return Err(ArgError::out_of_range((Builtin::Sample, 0), Expected::Integer, range).into());
    }
    let size = size_arg(&args[1], "size")?;
    let seed = seed_arg(seed, fx)?;
    Ok(Value::matrix(systemds_sample(
        range as i64,
        size,
        replace,
        seed,
    )?))
}

/// `matrix(data, rows, cols, byrow)`: a reshape, a matrix from a string of numbers, or a
/// fill.
fn matrix(args: &[Value]) -> OpResult {
    let rows = size_arg(&args[1], "rows")?;
    let cols = size_arg(&args[2], "cols")?;
    let byrow = args[3].as_bool().unwrap_or(true);
    match &args[0] {
        Value::Matrix(m) if !byrow => {
            // Column-major in and out: reshape the transpose, transpose back.
            let t = transpose::transpose(m);
            let r = structural::reshape(&t, cols, rows)?;
            Ok(Value::matrix(transpose::transpose(&r)))
        }
        Value::Matrix(m) => Ok(Value::matrix(structural::reshape(m, rows, cols)?)),
        Value::Str(text) => {
            let values: Vec<f64> = text
                .split(|c: char| c.is_whitespace() || c == ',')
                .filter(|t| !t.is_empty())
                .map(|t| {
                    t.parse::<f64>().map_err(|_| ArgError::MatrixCell {
                        text: t.to_string(),
                    })
                })
                .collect::<Result<Vec<f64>, _>>()?;
            // One value fills the matrix, as SystemDS fills it from a string variable
            // (`matrix(as.scalar(F[1, 2]), rows=n, cols=1)` of a frame cell in `bandit`).
            if let [one] = values[..] {
                return matrix(&[
                    Value::Double(one),
                    args[1].clone(),
                    args[2].clone(),
                    args[3].clone(),
                ]);
            }
            if values.len() != rows * cols {
                return Err(ArgError::MatrixValues {
                    given: values.len(),
                    rows,
                    cols,
                }
                .into());
            }
            let mut d = DenseMatrix::from_vec(rows, cols, values)?;
            if !byrow {
                let t = DenseMatrix::from_vec(cols, rows, d.into_vec())?;
                d = transpose::transpose(&Matrix::Dense(t)).into_dense();
            }
            Ok(Value::matrix(Matrix::Dense(d).into_best_format()))
        }
        s => {
            let x = number_arg(s, "matrix data")?;
            // A zero fill is stored sparse: its row pointers still take 8 bytes
            // per row.
            if x == 0.0 && cols > 1 {
                spores_exec::memory::ensure_fits(
                    &format!("matrix: an empty {rows}x{cols} matrix"),
                    8.0 * rows as f64,
                )?;
                return Ok(Value::matrix(Matrix::Sparse(
                    spores_exec::CsrMatrix::zeros(rows, cols),
                )));
            }
            spores_exec::memory::ensure_dense("matrix", rows, cols)?;
            Ok(Value::matrix(
                Matrix::Dense(DenseMatrix::filled(rows, cols, x)).into_best_format(),
            ))
        }
    }
}

/// `toString(x, rows, cols, decimal, sep, linesep, sparse)`; `sparse=TRUE` lists the
/// non-zero cells as `i j v` lines, as SystemDS does.
fn to_string(args: &[Value]) -> OpResult {
    let matrix_text = |m: &Matrix| -> Result<String, RuntimeError> {
        let rows = size_arg(&args[1], "rows")?.min(m.rows());
        let cols = size_arg(&args[2], "cols")?.min(m.cols());
        let shown = structural::slice(m, 0..rows, 0..cols)?;
        let decimal = size_arg(&args[3], "decimal")?;
        let sep = string_arg(&args[4], "sep")?;
        let linesep = string_arg(&args[5], "linesep")?;
        if args[6].as_bool().unwrap_or(false) {
            return Ok(cells_to_string(&shown, decimal, &sep, &linesep));
        }
        Ok(matrix_to_string(&shown, decimal, &sep, &linesep))
    };
    match &args[0] {
        Value::Matrix(m) => Ok(Value::str(matrix_text(m)?)),
        Value::List(l) => Ok(Value::str(list::to_string(l, &matrix_text)?)),
        Value::Frame(f) => Ok(Value::str(f.to_text(
            size_arg(&args[1], "rows")?,
            size_arg(&args[2], "cols")?,
            size_arg(&args[3], "decimal")?,
            &string_arg(&args[4], "sep")?,
            &string_arg(&args[5], "linesep")?,
        ))),
        s => Ok(Value::str(s.to_string())),
    }
}

/// `write(x, file, format, header, sep, ...)`: the file, then SystemDS's `.mtd` metadata
/// file beside it, so that `read(file)` finds the format and the size a text-cell file
/// does not store. Without `format`, a known extension names it, else SystemDS's default,
/// text cells; a scalar in text cells is written as its text.
fn write(args: &[Value]) -> OpResult {
    // SystemDS takes a number as the name it prints (`write(r, $5)` with `$5` = 10
    // writes the file `10`; its own tests do).
    let file = match &args[1] {
        Value::Int(_) | Value::Double(_) => Arc::from(args[1].to_string()),
        other => string_arg(other, "write: file name")?,
    };
    // SystemDS creates the folders a written file needs (its tests write to `out/B`).
    if let Some(dir) = Path::new(&*file).parent() {
        if !dir.as_os_str().is_empty() {
            std::fs::create_dir_all(dir).map_err(|source| ExecError::Io {
                path: dir.to_path_buf(),
                source,
            })?;
        }
    }
    if let Value::Frame(f) = &args[0] {
        let format = string_arg(&args[2], "format")?;
        let header = args[3].as_bool().unwrap_or(false);
        return frames::write(f, &file, &format, header, &csv_separator(&args[4])?);
    }
    let path = Path::new(&*file);
    let name = string_arg(&args[2], "format")?;
    let format = if name.is_empty() {
        Format::from_path(path).unwrap_or(Format::Text)
    } else {
        Format::from_name(&name).ok_or_else(|| FileError::UnsupportedFormat {
            name: name.to_string(),
        })?
    };
    // A scalar in a matrix format is the 1 x 1 matrix of it.
    if let Some(scalar) = ScalarType::of(&args[0]).filter(|_| format == Format::Text) {
        // As SystemDS writes them: booleans in Java's spelling, not `print`'s `TRUE`.
        let text = match &args[0] {
            Value::Bool(b) => b.to_string(),
            v => v.to_string(),
        };
        mio::atomic::write_atomic(path, |w| w.write_all(text.as_bytes())).map_err(|source| {
            ExecError::Io {
                path: path.to_path_buf(),
                source,
            }
        })?;
        let meta = mio::metadata::Metadata {
            data_type: Some("scalar".into()),
            value_type: Some(scalar.name().into()),
            format: Some(format.name().into()),
            ..Default::default()
        };
        mio::metadata::write_beside(path, &meta)?;
        return Ok(Value::Int(0));
    }
    let m = to_matrix(&args[0])?;
    let opts = WriteOptions {
        csv_header: args[3].as_bool().unwrap_or(false),
        csv_sep: csv_separator(&args[4])?,
    };
    mio::write_matrix(&m, path, format, &opts)?;
    // SystemDS's formats get SystemDS's metadata; `.npy` and Parquet files say it all.
    if matches!(
        format,
        Format::Text | Format::MatrixMarket | Format::Csv | Format::Binary
    ) {
        let csv = format == Format::Csv;
        let meta = mio::metadata::Metadata {
            data_type: Some("matrix".into()),
            value_type: Some("double".into()),
            rows: Some(m.rows()),
            cols: Some(m.cols()),
            nnz: Some(m.nnz() as u64),
            format: Some(format.name().into()),
            header: csv.then_some(opts.csv_header),
            sep: csv.then(|| opts.csv_sep.clone()),
            ..Default::default()
        };
        mio::metadata::write_beside(path, &meta)?;
    }
    Ok(Value::Int(0))
}

/// The value type of a scalar `read` or `write` (`value_type=`, or the `.mtd` file's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScalarType {
    Double,
    Int,
    Boolean,
    String,
}

impl ScalarType {
    fn from_name(name: &str) -> Option<ScalarType> {
        Some(match name.to_ascii_lowercase().as_str() {
            "double" => ScalarType::Double,
            "int" | "integer" => ScalarType::Int,
            "boolean" => ScalarType::Boolean,
            "string" => ScalarType::String,
            _ => return None,
        })
    }

    fn name(self) -> &'static str {
        match self {
            ScalarType::Double => "double",
            ScalarType::Int => "int",
            ScalarType::Boolean => "boolean",
            ScalarType::String => "string",
        }
    }

    /// The type of a scalar value; `None` for matrices, files and lists.
    fn of(v: &Value) -> Option<ScalarType> {
        Some(match v {
            Value::Double(_) => ScalarType::Double,
            Value::Int(_) => ScalarType::Int,
            Value::Bool(_) => ScalarType::Boolean,
            Value::Str(_) => ScalarType::String,
            _ => return None,
        })
    }

    /// The value a scalar's file holds (SystemDS writes its text, e.g. `3.5`, `TRUE`).
    fn parse(self, text: &str, path: &Path) -> Result<Value, FileError> {
        let trimmed = text.trim();
        let bad = || FileError::BadScalar {
            path: path.to_path_buf(),
            value_type: self.name(),
            text: trimmed.chars().take(40).collect(),
        };
        Ok(match self {
            // Rust's parser takes Java's `Infinity` and `NaN` too.
            ScalarType::Double => Value::Double(trimmed.parse().map_err(|_| bad())?),
            ScalarType::Int => Value::Int(trimmed.parse().map_err(|_| bad())?),
            ScalarType::Boolean => match trimmed.to_ascii_lowercase().as_str() {
                "true" | "1" => Value::Bool(true),
                "false" | "0" => Value::Bool(false),
                _ => return Err(bad()),
            },
            // A string is the file's text, only a final line break dropped.
            ScalarType::String => Value::Str(
                text.strip_suffix('\n')
                    .map(|t| t.strip_suffix('\r').unwrap_or(t))
                    .unwrap_or(text)
                    .into(),
            ),
        })
    }
}

/// What a `read` node reads: the file, its format and the reader options, from the
/// node's evaluated arguments (`file`, `format`, `header`, `sep`, `rows`, `cols`, `nnz`,
/// `data_type`, `value_type`) and the `.mtd` metadata file beside it, which gives what the
/// call does not (SystemDS's scripts often say only `read($X)`).
///
/// The interpreter also builds these ahead of time for a run of `read` statements with
/// constant arguments, reads them concurrently, and hands each `read` node the result
/// for its request (see `Interpreter::prefetch_reads`).
#[derive(Clone, Debug, PartialEq)]
pub struct ReadRequest {
    pub file: Arc<str>,
    pub format: Format,
    pub opts: ReadOptions,
    /// The rows and columns the call or the metadata says the file has, checked.
    pub size: (Option<usize>, Option<usize>),
    /// Whether the rows and the columns of `size` are the metadata's (the call gave none).
    pub size_from_metadata: (bool, bool),
    /// A scalar's file (`data_type="scalar"`): its value type.
    pub scalar: Option<ScalarType>,
    /// A frame's file (`data_type="frame"`, CSV).
    pub frame: bool,
    /// A frame's column types as the call gives them (`schema="STRING,FP64"`).
    pub schema: Option<Arc<str>>,
}

/// SystemDS's `naStrings="a·b"`: the NA strings of a CSV read, `·`-separated.
fn na_strings(spec: &str) -> Vec<String> {
    if spec.is_empty() {
        return Vec::new();
    }
    spec.split('\u{b7}').map(str::to_string).collect()
}

/// The `sep` argument of `read`/`write`: matched whole, as SystemDS does (`sep="::"`).
fn csv_separator(arg: &Value) -> Result<String, ArgError> {
    let sep = string_arg(arg, "sep")?;
    if sep.is_empty() {
        return Err(ArgError::EmptySeparator);
    }
    Ok(sep.to_string())
}

impl ReadRequest {
    pub fn from_args(args: &[Value]) -> Result<ReadRequest, RuntimeError> {
        let file = string_arg(&args[0], "read: file name")?;
        let path = Path::new(&*file);
        let meta = mio::metadata::read_beside(path)?.unwrap_or_default();
        let format = file_format(
            &file,
            &string_arg(&args[1], "format")?,
            meta.format.as_deref(),
        )?;
        // The call's defaults (`header=FALSE`, `sep=","`) give way to the metadata's.
        let mut csv_sep = csv_separator(&args[3])?;
        if csv_sep == "," {
            csv_sep = meta
                .sep
                .clone()
                .filter(|s| !s.is_empty())
                .unwrap_or(csv_sep);
        }
        let csv_header = args[2].as_bool().unwrap_or(false) || meta.header == Some(true);
        // A size below zero (the default) is not given.
        let size_arg = |k: usize, what: &'static str| -> Result<Option<usize>, RuntimeError> {
            match args.get(k) {
                Some(v) => {
                    let n = number_arg(v, what)?;
                    Ok((n >= 0.0).then_some(n as usize))
                }
                None => Ok(None),
            }
        };
        let agreed = |param: &'static str, given: Option<usize>, metadata: Option<usize>| match (
            given, metadata,
        ) {
            (Some(given), Some(metadata)) if given != metadata => Err(FileError::MetadataDiffers {
                path: path.to_path_buf(),
                param,
                given,
                metadata,
            }),
            _ => Ok(given.or(metadata)),
        };
        let (rows_given, cols_given) = (size_arg(4, "rows")?, size_arg(5, "cols")?);
        let size_from_metadata = (
            rows_given.is_none() && meta.rows.is_some(),
            cols_given.is_none() && meta.cols.is_some(),
        );
        let size = (
            agreed("rows", rows_given, meta.rows)?,
            agreed("cols", cols_given, meta.cols)?,
        );
        size_arg(6, "nnz")?;
        // The call's defaults (`data_type="matrix"`, `value_type="double"`) give way to
        // the metadata's too.
        let typed = |k: usize, param: &'static str, default: &str, metadata: Option<&str>| {
            let given = match args.get(k) {
                Some(v) => string_arg(v, param)?.to_ascii_lowercase(),
                None => default.to_string(),
            };
            Ok::<_, RuntimeError>(match metadata {
                Some(m) if given == default => m.to_ascii_lowercase(),
                _ => given,
            })
        };
        let data_type = typed(7, "data_type", "matrix", meta.data_type.as_deref())?;
        let value_type = typed(8, "value_type", "double", meta.value_type.as_deref())?;
        let unsupported = |param: &'static str, value: &str| FileError::UnsupportedType {
            param,
            value: value.to_string(),
        };
        let value = ScalarType::from_name(&value_type)
            .ok_or_else(|| unsupported("value_type", &value_type))?;
        let scalar = match data_type.as_str() {
            "matrix" if value == ScalarType::String => {
                return Err(unsupported("value_type", &value_type).into())
            }
            "matrix" | "frame" => None,
            "scalar" => Some(value),
            _ => return Err(unsupported("data_type", &data_type).into()),
        };
        let frame = data_type == "frame";
        let csv_na_strings = match args.get(9) {
            Some(Value::List(list)) => list
                .items
                .iter()
                .map(|v| string_arg(v, "naStrings").map(|s| s.to_string()))
                .collect::<Result<Vec<_>, _>>()?,
            Some(v) => na_strings(&string_arg(v, "naStrings")?),
            None => Vec::new(),
        };
        let csv_fill = match args.get(10).map(|v| v.as_bool().unwrap_or(true)) {
            Some(false) => None,
            _ => Some(args.get(11).map_or(Ok(0.0), |v| number_arg(v, "default"))?),
        };
        let schema = match args.get(12) {
            Some(v) => Some(string_arg(v, "schema")?).filter(|s| !s.is_empty()),
            None => None,
        };
        if frame && format != Format::Csv {
            return Err(super::frame::FrameError::ReadFormat {
                format: format.name().into(),
            }
            .into());
        }
        Ok(ReadRequest {
            file,
            format,
            opts: ReadOptions {
                csv_header,
                csv_sep,
                size,
                csv_na_strings,
                csv_fill,
            },
            size,
            size_from_metadata,
            scalar,
            frame,
            schema,
        })
    }

    /// An error when a matrix of `rows` x `cols` is not the size the call gives.
    fn checked(&self, rows: usize, cols: usize) -> Result<(), FileError> {
        for (noun, param, found, expected, from_metadata) in [
            ("rows", "rows", rows, self.size.0, self.size_from_metadata.0),
            (
                "columns",
                "cols",
                cols,
                self.size.1,
                self.size_from_metadata.1,
            ),
        ] {
            if let Some(expected) = expected.filter(|&e| e != found) {
                return Err(FileError::SizeDiffers {
                    path: Path::new(&*self.file).to_path_buf(),
                    noun,
                    said_by: if from_metadata {
                        "its metadata file says"
                    } else {
                        "the call says"
                    },
                    param,
                    found,
                    expected,
                });
            }
        }
        Ok(())
    }

    /// The file as a [`Value::File`], its cells unread (a Parquet COO file).
    pub fn open_file(&self) -> OpResult {
        let file = FileMatrix::open_parquet(Path::new(&*self.file))?;
        self.checked(file.shape().rows, file.shape().cols)?;
        Ok(Value::File(Arc::new(file)))
    }

    /// Reads the file; errors name the path.
    pub fn run(&self) -> OpResult {
        let path = Path::new(&*self.file);
        if let Some(scalar) = self.scalar {
            let text = std::fs::read_to_string(path).map_err(|source| ExecError::Io {
                path: path.to_path_buf(),
                source,
            })?;
            return Ok(scalar.parse(&text, path)?);
        }
        if self.frame {
            let frame = frames::read(&self.file, &self.opts, self.schema.as_deref())?;
            if let Value::Frame(f) = &frame {
                self.checked(f.rows(), f.cols())?;
            }
            return Ok(frame);
        }
        let m = mio::read_matrix(path, self.format, &self.opts)?;
        self.checked(m.rows(), m.cols())?;
        Ok(Value::matrix(m))
    }
}

/// The format of a `read`: DML's `format=` name, the metadata file's, the extension, or
/// else SystemDS's default, `"text"` (i-j-v cells).
fn file_format(file: &str, name: &str, metadata: Option<&str>) -> Result<Format, FileError> {
    let named = |name: &str| {
        Format::from_name(name).ok_or_else(|| FileError::UnsupportedFormat {
            name: name.to_string(),
        })
    };
    match (name, metadata) {
        ("", Some(metadata)) => named(metadata),
        ("", None) => Ok(Format::from_path(Path::new(file)).unwrap_or(Format::Text)),
        (name, _) => named(name),
    }
}

fn if_else(args: &[Value]) -> OpResult {
    let shape = args.iter().find_map(|v| match v {
        Value::Matrix(m) => Some(m.shape()),
        _ => None,
    });
    let Some(shape) = shape else {
        let test = args[0].as_bool().ok_or(ArgError::IfElseTest)?;
        return Ok(if test {
            args[1].clone()
        } else {
            args[2].clone()
        });
    };
    let cell = |v: &Value, i: usize, j: usize| -> Result<f64, ArgError> {
        match v {
            Value::Matrix(m) if m.shape() == shape => Ok(m.get(i, j)),
            Value::Matrix(m) => Err(ArgError::IfElseShapes {
                found: m.shape(),
                expected: shape,
            }),
            s => number_arg(s, "ifelse argument"),
        }
    };
    let mut out = DenseMatrix::zeros(shape.rows, shape.cols);
    for i in 0..shape.rows {
        for j in 0..shape.cols {
            let pick = if cell(&args[0], i, j)? != 0.0 {
                &args[1]
            } else {
                &args[2]
            };
            out.set(i, j, cell(pick, i, j)?);
        }
    }
    Ok(Value::matrix(Matrix::Dense(out).into_best_format()))
}

/// Converts DML's 1-based inclusive bounds of one dimension to a 0-based range.
fn bounds(
    kind: IndexKind,
    args: &[Value],
    extent: usize,
    dim: &'static str,
) -> Result<Range<usize>, ArgError> {
    let one_based = |v: &Value| -> Result<usize, ArgError> {
        // SystemDS truncates a fractional index: `X[1:2.5, ]` is `X[1:2, ]`.
        let x = number_arg(v, "index")?.trunc();
        if x.is_nan() || x < 1.0 || x > extent as f64 {
            return Err(ArgError::IndexOutOfBounds {
                dim,
                index: x,
                extent,
            });
        }
        Ok(x as usize)
    };
    match kind {
        IndexKind::All => Ok(0..extent),
        IndexKind::Single => {
            let i = one_based(&args[0])?;
            Ok(i - 1..i)
        }
        IndexKind::Range => {
            let (a, b) = (one_based(&args[0])?, one_based(&args[1])?);
            if a > b {
                return Err(ArgError::EmptyRange {
                    dim,
                    first: a,
                    last: b,
                });
            }
            Ok(a - 1..b)
        }
    }
}

fn right_index(rows: IndexKind, cols: IndexKind, args: &[Value]) -> OpResult {
    if let Value::List(l) = &args[0] {
        return list::index(l, rows, cols, &args[1..]);
    }
    if let Value::Frame(f) = &args[0] {
        let r = bounds(rows, &args[1..], f.rows(), "row")?;
        let c = bounds(cols, &args[1 + rows.arity()..], f.cols(), "column")?;
        return frames::index(f, r, c);
    }
    let m = matrix_arg(&args[0], "indexing")?;
    let r = bounds(rows, &args[1..], m.rows(), "row")?;
    let c = bounds(cols, &args[1 + rows.arity()..], m.cols(), "column")?;
    Ok(Value::matrix(structural::slice(m, r, c)?))
}

fn left_index(rows: IndexKind, cols: IndexKind, args: &[Value]) -> OpResult {
    if let Value::List(l) = &args[0] {
        return list::assign(l, rows, cols, &args[2..], &args[1]);
    }
    if let Value::Frame(f) = &args[0] {
        let r = bounds(rows, &args[2..], f.rows(), "row")?;
        let c = bounds(cols, &args[2 + rows.arity()..], f.cols(), "column")?;
        let value = frames::assigned(&args[1])?;
        return Ok(Value::Frame(Arc::new(f.assign(r, c, &value)?)));
    }
    let m = matrix_arg(&args[0], "left indexing")?;
    let r = bounds(rows, &args[2..], m.rows(), "row")?;
    let c = bounds(cols, &args[2 + rows.arity()..], m.cols(), "column")?;
    let value = match &args[1] {
        Value::Matrix(v) => v.clone(),
        s => Arc::new(Matrix::Dense(DenseMatrix::filled(
            r.len(),
            c.len(),
            number_arg(s, "assigned value")?,
        ))),
    };
    Ok(Value::matrix(structural::assign_slice(m, r, c, &value)?))
}

fn dense_arg(v: &Value, op: &'static str) -> Result<DenseMatrix, ArgError> {
    Ok(matrix_arg(v, op)?.to_dense())
}

/// Runs a fused operator; each kernel checks its operands' shapes.
fn fused(f: Fused, args: &[Value]) -> OpResult {
    let name = f.name();
    Ok(match f {
        Fused::Catalogue(kind) => catalogue(kind, args)?,
        Fused::MatMulT {
            transpose_a,
            transpose_b,
        } => Value::matrix(matmul::matmul_t(
            matrix_arg(&args[0], name)?,
            transpose_a,
            matrix_arg(&args[1], name)?,
            transpose_b,
        )?),
        Fused::Masked(plan) => masked(&plan, args)?,
        Fused::Elementwise(plan) => fused_elementwise(&plan, args)?,
    })
}

fn sum_value(v: &Value) -> OpResult {
    aggregate_value(AggFn::Sum, Axis::All, v)
}

/// Runs an operator of the catalogue with its kernel. Operands with NaN or Inf, or of
/// shapes the operator does not fit (a node planned before shapes were known), run as
/// the operator's meaning instead ([`catalogue_as_written`]).
fn catalogue(kind: CatalogueOp, args: &[Value]) -> OpResult {
    if let CatalogueOp::MaskedMul | CatalogueOp::MaskedDiv = kind {
        return masked_as_operators(kind, args);
    }
    let op = spores_opt::fused::op(kind);
    let name = op.name;
    let shapes: Option<Vec<(usize, usize)>> = args
        .iter()
        .map(|a| match a {
            Value::Matrix(m) => Some((m.rows(), m.cols())),
            _ => None,
        })
        .collect();
    let fits = shapes.is_some_and(|s| op.result_shape(&s, 1).is_some());
    // `sddmm_sum` and `mmchain` learn whether the values they meet are finite in their
    // own pass (see `sddmm_sum_if_finite`): their operands are not scanned first.
    let checks_in_pass = matches!(
        kind,
        CatalogueOp::SddmmSum | CatalogueOp::Mmchain | CatalogueOp::MmchainW
    );
    if !fits || (!checks_in_pass && !all_finite(args)) {
        check_deferred_indices(args)?;
        return catalogue_as_written(op, args);
    }
    let as_written = || {
        check_deferred_indices(args)?;
        catalogue_as_written(op, args)
    };
    let factors = || -> Result<_, ArgError> {
        Ok((
            matrix_arg(&args[0], name)?,
            dense_arg(&args[1], name)?,
            dense_arg(&args[2], name)?,
        ))
    };
    Ok(match kind {
        CatalogueOp::MaskedMul | CatalogueOp::MaskedDiv => return masked_as_operators(kind, args),
        CatalogueOp::Tsmm => {
            Value::matrix(Matrix::Dense(matmul::tsmm(matrix_arg(&args[0], name)?)?))
        }
        CatalogueOp::Wsloss => {
            let (x, u, v) = factors()?;
            Value::Double(fk::wsloss(x, &u, &v, WeightKind::None)?)
        }
        CatalogueOp::WslossPlus => {
            let (x, u, v) = factors()?;
            Value::Double(fk::wsloss_plus(x, &u, &v)?)
        }
        CatalogueOp::SddmmSum => {
            let (x, u, v) = factors()?;
            match fk::sddmm_sum_if_finite(x, &u, &v)? {
                Some(total) => Value::Double(total),
                None => return as_written(),
            }
        }
        CatalogueOp::Sddmm => {
            let (x, u, v) = factors()?;
            Value::matrix(fk::sddmm(x, &u, &v)?)
        }
        CatalogueOp::Mmchain | CatalogueOp::MmchainW => {
            // Without a weight only a vector `v` is fused: for a wide `v` the two
            // products as written run as blocked matrix products.
            if kind == CatalogueOp::Mmchain && matches!(&args[1], Value::Matrix(v) if v.cols() != 1)
            {
                return as_written();
            }
            let x = matrix_arg(&args[0], name)?;
            let v = dense_arg(&args[1], name)?;
            let w = args.get(2).map(|w| dense_arg(w, name)).transpose()?;
            match fk::mmchain_if_finite(x, &v, w.as_ref())? {
                Some(out) => Value::matrix(Matrix::Dense(out)),
                None => return as_written(),
            }
        }
        CatalogueOp::Sprop => Value::matrix(fk::sprop(matrix_arg(&args[0], name)?)),
        CatalogueOp::SumMm => {
            let column_sums = aggregate_value(AggFn::Sum, Axis::Col, &args[0])?;
            let row_sums = aggregate_value(AggFn::Sum, Axis::Row, &args[1])?;
            sum_value(&eval_matmul(&column_sums, &row_sums)?)?
        }
        CatalogueOp::Wcemm => {
            let (x, u, v) = factors()?;
            Value::Double(fk::wcemm(x, &u, &v)?)
        }
        CatalogueOp::WdivmmMult => {
            let (x, u, v) = factors()?;
            Value::matrix(Matrix::Dense(fk::wdivmm_mult(x, &u, &v)?))
        }
        CatalogueOp::WdivmmLeft | CatalogueOp::WdivmmRight => {
            let (x, u, v) = factors()?;
            let left = kind == CatalogueOp::WdivmmLeft;
            Value::matrix(Matrix::Dense(fk::wdivmm_div(x, &u, &v, left)?))
        }
    })
}

/// A catalogue operator as the operators of its meaning, one by one (the reference
/// semantics of `spores_opt::eval`, which runs the same kernels): for operands with NaN
/// or Inf, where the kernels' algebra (`wsloss` expands the square) or their plain dot
/// products (`0 * Inf` is NaN in IEEE arithmetic, 0 under the cell semantics) would give
/// another number than the operators as written, and for operands the kernel does not
/// take, whose errors are then the operators'.
/// A masked product or quotient that planning could not compile (`plan::masked_at`: a
/// scalar operand, shapes unknown when planned), run as the operators it stands for with
/// the interpreter's own rules: a scalar times a `1 x 1` matrix skips a zero factor as `X
/// * E` does (the reference evaluator would multiply two IEEE numbers there).
fn masked_as_operators(kind: CatalogueOp, args: &[Value]) -> OpResult {
    check_deferred_indices(args)?;
    let (x, e) = (&args[0], &args[1]);
    if kind == CatalogueOp::MaskedMul {
        return binary(BinaryOp::Mul, x, e);
    }
    let nonzero = binary(BinaryOp::Ne, x, &Value::Double(0.0))?;
    binary(BinaryOp::Mul, &nonzero, &binary(BinaryOp::Div, x, e)?)
}

fn catalogue_as_written(op: &spores_opt::fused::FusedOp, args: &[Value]) -> OpResult {
    let mut inputs = std::collections::HashMap::new();
    let mut vars = Vec::with_capacity(args.len());
    for (k, arg) in args.iter().enumerate() {
        let value = match arg {
            Value::Matrix(m) => (**m).clone(),
            other => Matrix::Dense(DenseMatrix::filled(1, 1, number_arg(other, op.name)?)),
        };
        let var = format!("_{k}");
        inputs.insert(var.clone(), value);
        vars.push(spores_opt::la::LaExpr::Var(var));
    }
    let result = spores_opt::eval::eval(&op.meaning(&vars), &inputs)
        .map_err(|e| RuntimeError::Reference(e.to_string()))?;
    Ok(match op.result {
        spores_opt::fused::ResultShape::Scalar => Value::Double(result.get(0, 0)),
        spores_opt::fused::ResultShape::Of(..) => Value::matrix(result),
    })
}

/// Whether every matrix among `args` holds only finite cells (cached per matrix).
fn all_finite(args: &[Value]) -> bool {
    args.iter().all(|a| match a {
        Value::Matrix(m) => m.all_finite(),
        _ => true,
    })
}

/// Runs a [`Fused::Elementwise`] node. Subexpressions over scalars only are computed
/// first with scalar semantics (integer arithmetic, strings, IEEE `0 * Inf`), exactly as
/// the unfused operators would; the rest runs in the fused kernel. When the kernel does
/// not apply (a sparse operand, shapes the operators reject, no matrix at all), the
/// operators run one by one, which gives the unfused result and error messages.
fn fused_elementwise(plan: &EwPlan, args: &[Value]) -> OpResult {
    match fused_elementwise_fast(plan, args) {
        Some(v) => Ok(v),
        None => fused_elementwise_unfused(plan, args),
    }
}

fn fused_elementwise_fast(plan: &EwPlan, args: &[Value]) -> Option<Value> {
    /// A value on the partial-evaluation stack: a scalar computed already, or the
    /// instructions computing a matrix-valued subexpression.
    enum Part {
        Scalar(Value),
        Code(Vec<EwInstr>),
    }
    let mut operands: Vec<EwArg> = Vec::with_capacity(args.len());
    let mut matrix_operand: Vec<Option<usize>> = vec![None; args.len()];
    let code_of = |part: Part, operands: &mut Vec<EwArg>| -> Option<Vec<EwInstr>> {
        match part {
            Part::Code(c) => Some(c),
            Part::Scalar(v) => {
                operands.push(EwArg::Scalar(v.as_f64()?));
                Some(vec![EwInstr::Load(operands.len() - 1)])
            }
        }
    };
    let mut stack: Vec<Part> = Vec::new();
    for ins in plan.program.instrs() {
        let part = match *ins {
            EwInstr::Load(k) => match args.get(k)? {
                Value::Matrix(m) => {
                    let index = *matrix_operand[k].get_or_insert_with(|| {
                        operands.push(EwArg::Matrix(m));
                        operands.len() - 1
                    });
                    Part::Code(vec![EwInstr::Load(index)])
                }
                scalar => Part::Scalar(scalar.clone()),
            },
            EwInstr::Unary(op) => match stack.pop()? {
                Part::Scalar(v) => Part::Scalar(unary_value(op, &v).ok()?),
                Part::Code(mut c) => {
                    c.push(EwInstr::Unary(op));
                    Part::Code(c)
                }
            },
            EwInstr::Binary(op) => {
                let b = stack.pop()?;
                let a = stack.pop()?;
                match (a, b) {
                    (Part::Scalar(a), Part::Scalar(b)) => Part::Scalar(binary(op, &a, &b).ok()?),
                    (a, b) => {
                        let mut c = code_of(a, &mut operands)?;
                        c.extend(code_of(b, &mut operands)?);
                        c.push(EwInstr::Binary(op));
                        Part::Code(c)
                    }
                }
            }
            EwInstr::IfElse => {
                let no = stack.pop()?;
                let yes = stack.pop()?;
                let test = stack.pop()?;
                match (test, yes, no) {
                    (Part::Scalar(t), Part::Scalar(y), Part::Scalar(n)) => {
                        Part::Scalar(if_else(&[t, y, n]).ok()?)
                    }
                    (t, y, n) => {
                        let mut c = code_of(t, &mut operands)?;
                        c.extend(code_of(y, &mut operands)?);
                        c.extend(code_of(n, &mut operands)?);
                        c.push(EwInstr::IfElse);
                        Part::Code(c)
                    }
                }
            }
        };
        stack.push(part);
    }
    let Part::Code(code) = stack.pop()? else {
        return None;
    };
    let program = EwProgram::new(code).ok()?;
    Some(
        match ew::fused_elementwise(&program, &operands, plan.output)? {
            EwValue::Scalar(s) => Value::Double(s),
            EwValue::Matrix(m) => Value::matrix(m),
        },
    )
}

/// The two operands of a binary instruction of a stack program (the right one on top).
fn pop_pair(stack: &mut Vec<Value>) -> Option<(Value, Value)> {
    let right = stack.pop()?;
    Some((stack.pop()?, right))
}

/// The operators of a [`Fused::Elementwise`] node one at a time.
fn fused_elementwise_unfused(plan: &EwPlan, args: &[Value]) -> OpResult {
    let mut stack: Vec<Value> = Vec::new();
    let underflow = || RuntimeError::internal("malformed element-wise program");
    for ins in plan.program.instrs() {
        let v = match *ins {
            EwInstr::Load(k) => args.get(k).ok_or_else(underflow)?.clone(),
            EwInstr::Unary(op) => unary_value(op, &stack.pop().ok_or_else(underflow)?)?,
            EwInstr::Binary(op) => {
                let (a, b) = pop_pair(&mut stack).ok_or_else(underflow)?;
                binary(op, &a, &b)?
            }
            EwInstr::IfElse => {
                let no = stack.pop().ok_or_else(underflow)?;
                let yes = stack.pop().ok_or_else(underflow)?;
                let test = stack.pop().ok_or_else(underflow)?;
                if_else(&[test, yes, no])?
            }
        };
        stack.push(v);
    }
    let v = stack.pop().ok_or_else(underflow)?;
    match plan.output {
        EwOutput::Map => Ok(v),
        EwOutput::Sum => aggregate_value(AggFn::Sum, Axis::All, &v),
        EwOutput::RowSums => aggregate_value(AggFn::Sum, Axis::Row, &v),
        EwOutput::ColSums => aggregate_value(AggFn::Sum, Axis::Col, &v),
    }
}

/// A matrix argument as a dense matrix, borrowed when it already is one.
fn dense_ref<'v>(v: &'v Value, op: &'static str) -> Result<Cow<'v, DenseMatrix>, ArgError> {
    Ok(match matrix_arg(v, op)? {
        Matrix::Dense(d) => Cow::Borrowed(d),
        m => Cow::Owned(m.to_dense()),
    })
}

/// A dense matrix transposed when `transpose` holds, else as it is.
fn maybe_transposed(m: Cow<'_, DenseMatrix>, transpose: bool) -> Cow<'_, DenseMatrix> {
    if transpose {
        Cow::Owned(transpose::transpose_dense(&m))
    } else {
        m
    }
}

/// A [`Fused::Masked`] node as the operators it replaces, for operands with NaN or Inf:
/// the kernel's per-cell dot products `u_i · v_j` multiply zeros by Inf (NaN) where the
/// product `U %*% t(V)` skips them (0).
fn masked_as_written(plan: &MaskedPlan, args: &[Value]) -> OpResult {
    use spores_exec::kernels::masked::Instr;
    let internal = || RuntimeError::internal("malformed masked program");
    let mut operands: Vec<Value> = Vec::with_capacity(plan.operands.len());
    let mut next = 1;
    for operand in &plan.operands {
        match operand {
            MaskedOperand::Value => {
                operands.push(args.get(next).ok_or_else(internal)?.clone());
                next += 1;
            }
            MaskedOperand::LowRank { v_transposed } => {
                let u = matrix_arg(args.get(next).ok_or_else(internal)?, "%*%")?;
                let v = matrix_arg(args.get(next + 1).ok_or_else(internal)?, "%*%")?;
                let uv = matmul::matmul_t(u, false, v, *v_transposed)?;
                operands.push(Value::matrix(uv));
                next += 2;
            }
        }
    }
    let mut stack: Vec<Value> = Vec::new();
    for ins in plan.program.instrs() {
        let v = match *ins {
            Instr::Mask => args.first().ok_or_else(internal)?.clone(),
            Instr::Load(k) => operands.get(k).ok_or_else(internal)?.clone(),
            Instr::Unary(op) => unary_value(op, &stack.pop().ok_or_else(internal)?)?,
            Instr::Binary(op) => {
                let (a, b) = pop_pair(&mut stack).ok_or_else(internal)?;
                binary(op, &a, &b)?
            }
        };
        stack.push(v);
    }
    let mut e = stack.pop().ok_or_else(internal)?;
    if plan.program.instrs().last() == Some(&Instr::Binary(BinaryOp::Div)) {
        // A masked division is `(X != 0) * (X / e)`: its NaN where X is 0 do not count.
        let mask = args.first().ok_or_else(internal)?;
        let nonzero = binary(BinaryOp::Ne, mask, &Value::Double(0.0))?;
        e = binary(BinaryOp::Mul, &nonzero, &e)?;
    }
    let other = || args.get(next).ok_or_else(internal);
    let product = |a: &Value, ta: bool, b: &Value, tb: bool| -> OpResult {
        let (a, b) = (matrix_arg(a, "%*%")?, matrix_arg(b, "%*%")?);
        Ok(Value::matrix(matmul::matmul_t(a, ta, b, tb)?))
    };
    match plan.output {
        MaskedOutput::Map => Ok(e),
        MaskedOutput::Sum => aggregate_value(AggFn::Sum, Axis::All, &e),
        // The kernel computes t(A) %*% E with A = the operand, transposed unless
        // `transposed` says it is stored as A already.
        MaskedOutput::LeftMul { transposed } => product(other()?, transposed, &e, false),
        MaskedOutput::RightMul { transposed } => product(&e, false, other()?, transposed),
    }
}

/// Runs a [`Fused::Masked`] node: binds the children to the program's operands (the
/// low-rank factors in the `U`, `V` (`n x k`) layout the kernel reads) and computes the
/// fused consumer.
fn masked(plan: &MaskedPlan, args: &[Value]) -> OpResult {
    if !all_finite(args) {
        return masked_as_written(plan, args);
    }
    let name = plan.output.name();
    enum Held<'v> {
        Scalar(f64),
        Matrix(&'v Matrix),
        LowRank(Cow<'v, DenseMatrix>, Cow<'v, DenseMatrix>),
    }
    let x = matrix_arg(args.first().ok_or(ArgError::NoMask)?, name)?;
    let mut next = 1;
    let mut held = Vec::with_capacity(plan.operands.len());
    for operand in &plan.operands {
        let arg = |k: usize| {
            args.get(k)
                .ok_or_else(|| RuntimeError::internal(format!("`{name}` is missing operands")))
        };
        match operand {
            MaskedOperand::Value => {
                held.push(match arg(next)? {
                    Value::Matrix(m) => Held::Matrix(m),
                    other => Held::Scalar(number_arg(other, "masked operand")?),
                });
                next += 1;
            }
            MaskedOperand::LowRank { v_transposed } => {
                let u = dense_ref(arg(next)?, name)?;
                let v = maybe_transposed(dense_ref(arg(next + 1)?, name)?, !v_transposed);
                held.push(Held::LowRank(u, v));
                next += 2;
            }
        }
    }
    let operands: Vec<MaskedArg> = held
        .iter()
        .map(|h| match h {
            Held::Scalar(s) => MaskedArg::Scalar(*s),
            Held::Matrix(m) => MaskedArg::Matrix(m),
            Held::LowRank(u, v) => MaskedArg::LowRank { u, v },
        })
        .collect();
    let program = &plan.program;
    let last = || {
        args.get(next).ok_or_else(|| {
            RuntimeError::internal(format!("`{name}` is missing its product operand"))
        })
    };
    Ok(match plan.output {
        MaskedOutput::Map => Value::matrix(mk::masked_map(x, program, &operands)?),
        MaskedOutput::Sum => Value::Double(mk::masked_sum(x, program, &operands)?),
        MaskedOutput::LeftMul { transposed } => {
            let a = maybe_transposed(dense_ref(last()?, name)?, !transposed);
            Value::matrix(Matrix::Dense(mk::masked_left_mul(
                x, program, &operands, &a,
            )?))
        }
        MaskedOutput::RightMul { transposed } => {
            let b = maybe_transposed(dense_ref(last()?, name)?, transposed);
            Value::matrix(Matrix::Dense(mk::masked_right_mul(
                x, program, &operands, &b,
            )?))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use spores_opt::fused::{CATALOGUE, X_U_V};

    fn matrix(rows: usize, cols: usize, seed: usize, sparse: bool) -> Value {
        let m = DenseMatrix::from_fn(rows, cols, |i, j| {
            let k = (i * 7 + j * 13 + seed * 31) % 17;
            if sparse && !k.is_multiple_of(3) {
                0.0
            } else {
                0.25 + k as f64 / 8.0
            }
        });
        Value::matrix(Matrix::Dense(m).into_best_format())
    }

    /// The smallest integer has no integer negation, absolute value or quotient by -1:
    /// each is the double `0 - x` gives, never a panic or a wrapped negative; its remainder
    /// by -1 is 0.
    #[test]
    fn the_smallest_integer_overflows_into_doubles() {
        let min = Value::Int(i64::MIN);
        let minus_one = Value::Int(-1);
        let positive = -(i64::MIN as f64);
        let double = |v: OpResult| match v {
            Ok(Value::Double(x)) => x,
            other => panic!("expected a double, got {other:?}"),
        };
        assert_eq!(double(unary_value(UnaryOp::Neg, &min)), positive);
        assert_eq!(double(unary_value(UnaryOp::Abs, &min)), positive);
        assert_eq!(
            double(scalar_binary(BinaryOp::IntDiv, &min, &minus_one)),
            positive
        );
        assert!(matches!(
            scalar_binary(BinaryOp::Mod, &min, &minus_one),
            Ok(Value::Int(0))
        ));
        assert!(matches!(
            unary_value(UnaryOp::Neg, &Value::Int(7)),
            Ok(Value::Int(-7))
        ));
        assert!(matches!(
            scalar_binary(BinaryOp::IntDiv, &Value::Int(-7), &Value::Int(2)),
            Ok(Value::Int(-3))
        ));
    }

    /// Full aggregates of a matrix without cells give SystemDS's values, not an error: the
    /// optimizer's rewrite of `mean` (a sum over a count) gives NaN too.
    #[test]
    fn full_aggregates_of_an_empty_matrix_are_their_identities() {
        let empty = Value::matrix(Matrix::Dense(DenseMatrix::zeros(0, 3)));
        let full = |f| match aggregate_value(f, Axis::All, &empty) {
            Ok(Value::Double(x)) => x,
            other => panic!("{f:?}: {other:?}"),
        };
        assert_eq!(full(AggFn::Sum), 0.0);
        assert!(full(AggFn::Mean).is_nan());
        assert_eq!(full(AggFn::Min), f64::INFINITY);
        assert_eq!(full(AggFn::Max), f64::NEG_INFINITY);
    }

    fn close(a: &Value, b: &Value, what: &str) {
        let cells = |v: &Value| match v {
            Value::Matrix(m) => m.to_dense().into_vec(),
            other => vec![other.as_f64().expect("a number")],
        };
        let (a, b) = (cells(a), cells(b));
        assert_eq!(a.len(), b.len(), "{what}");
        for (x, y) in a.iter().zip(&b) {
            assert!(
                (x - y).abs() <= 1e-9 * x.abs().max(y.abs()).max(1.0),
                "{what}: {x} vs {y}"
            );
        }
    }

    /// Every catalogue operator's kernel computes its meaning (run operator by operator),
    /// on a sparse and a dense X with positive cells.
    #[test]
    fn every_catalogue_kernel_computes_its_meaning() {
        for sparse in [true, false] {
            let x = matrix(12, 9, 1, sparse);
            for op in CATALOGUE {
                let args: Vec<Value> = if op.fits == X_U_V {
                    vec![x.clone(), matrix(12, 3, 2, false), matrix(9, 3, 3, false)]
                } else {
                    match op.kind {
                        CatalogueOp::Mmchain => vec![x.clone(), matrix(9, 1, 4, false)],
                        CatalogueOp::MmchainW => {
                            vec![x.clone(), matrix(9, 1, 4, false), matrix(12, 1, 5, false)]
                        }
                        CatalogueOp::SumMm => vec![x.clone(), matrix(9, 4, 6, false)],
                        CatalogueOp::MaskedMul | CatalogueOp::MaskedDiv => {
                            vec![x.clone(), matrix(12, 9, 7, false)]
                        }
                        _ => vec![x.clone()],
                    }
                };
                let fused = catalogue(op.kind, &args).unwrap();
                let written = catalogue_as_written(op, &args).unwrap();
                close(&fused, &written, &format!("{} (sparse {sparse})", op.name));
            }
        }
    }
}
