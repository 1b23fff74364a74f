//! Evaluation of the matrix builtins SystemDS's algorithm scripts call beyond the core
//! operators: cumulative aggregates, products, `table`, `removeEmpty`, `order`, `roll`,
//! linear algebra, statistics, distributions and bitwise operators. Each checks its arguments and calls one kernel of
//! `spores_exec`.

use spores_exec::kernels::aggregate;
use spores_exec::kernels::cumulative::{cumsumprod, cumulative, CumulativeOp};
use spores_exec::kernels::distribution::Distribution;
use spores_exec::kernels::dnn::{self, Bias, Phase, Pool};
use spores_exec::kernels::elementwise::{self, BinaryOp};
use spores_exec::kernels::select::{self, Extremum, Margin, Triangle};
use spores_exec::kernels::table::{self, GroupFn, TableArg};
use spores_exec::kernels::{class_meet, linalg, sort, stats, structural, transpose};
use spores_exec::{DenseMatrix, ExecError, Matrix};

use super::args::{matrix_arg as matrix, number_arg as number, string_arg, OpResult};
use super::error::{ArgError, Expected, Param, RuntimeError};
use super::value::Value;
use crate::dag::Builtin;

fn boolean(v: &Value, what: impl Into<Param>) -> Result<bool, ArgError> {
    v.as_bool()
        .ok_or_else(|| ArgError::wrong_type(what, Expected::Boolean, v))
}

/// A positive integer argument (`by`, `ngroups`, ...).
fn count(v: &Value, what: (Builtin, usize)) -> Result<usize, ArgError> {
    let x = number(v, what)?;
    if x < 1.0 || x.fract() != 0.0 || !x.is_finite() {
        return Err(ArgError::out_of_range(what, Expected::PositiveInteger, x));
    }
    Ok(x as usize)
}

/// A dimension that may be left to the data (given as a negative number). A fraction is
/// truncated, as SystemDS truncates sizes (`table(a, b, 2.5, 1.7)` is 2 x 1).
fn optional_dim(v: &Value, what: (Builtin, usize)) -> Result<Option<usize>, ArgError> {
    let x = number(v, what)?;
    if x < 0.0 {
        return Ok(None);
    }
    if !x.is_finite() {
        return Err(ArgError::out_of_range(
            what,
            Expected::NonNegativeInteger,
            x,
        ));
    }
    Ok(Some(x as usize))
}

/// Whether `eval` computes this builtin.
pub fn handles(b: Builtin) -> bool {
    use Builtin::*;
    matches!(
        b,
        Contains
            | CumSum
            | CumProd
            | CumMin
            | CumMax
            | RowCumSum
            | CumSumProd
            | Prod
            | ColProds
            | RowProds
            | RowIndexMax
            | RowIndexMin
            | Table
            | RemoveEmpty
            | Order
            | Solve
            | Inv
            | Cholesky
            | Det
            | Var
            | Sd
            | RowVars
            | ColVars
            | RowSds
            | ColSds
            | Median
            | InterQuartileMean
            | Quantile
            | Moment
            | Cov
            | Cdf
            | Icdf
            | Rev
            | Roll
            | Outer
            | BitwAnd
            | BitwOr
            | BitwXor
            | BitwShiftL
            | BitwShiftR
            | LowerTri
            | UpperTri
            | Aggregate
            | Unique
            | Conv2d
            | Conv2dBackwardFilter
            | Conv2dBackwardData
            | MaxPool
            | AvgPool
            | MaxPoolBackward
            | AvgPoolBackward
            | BiasAdd
            | BiasMultiply
    )
}

/// The `k`-th argument of `b`, which must be a matrix.
fn matrix_operand(b: Builtin, args: &[Value], k: usize) -> Result<&Matrix, ArgError> {
    matrix(&args[k], format!("the argument of `{}`", b.name()))
}

/// Evaluates a builtin with one result (see [`handles`]).
pub fn eval(b: Builtin, args: &[Value]) -> OpResult {
    use Builtin::*;
    let m = |k: usize| matrix_operand(b, args, k);
    let wrap = |x: spores_exec::Matrix| Ok(Value::matrix(x));
    match b {
        Contains => {
            let target = matrix(&args[0], (Builtin::Contains, 0))?;
            if let Value::Matrix(p) = &args[1] {
                // A row vector: is it one of the target's rows?
                if p.rows() != 1 || p.cols() != target.cols() {
                    return Err(ArgError::ContainsPattern {
                        pattern: p.shape(),
                        target: target.shape(),
                    }
                    .into());
                }
                let row = p.to_dense().into_vec();
                return Ok(Value::Bool(select::contains_row(target, &row)));
            }
            let pattern = number(&args[1], (Builtin::Contains, 1))?;
            Ok(Value::Bool(select::contains(target, pattern)))
        }
        CumSum | CumProd | CumMin | CumMax => {
            let op = match b {
                CumSum => CumulativeOp::Sum,
                CumProd => CumulativeOp::Prod,
                CumMin => CumulativeOp::Min,
                _ => CumulativeOp::Max,
            };
            wrap(cumulative(op, m(0)?))
        }
        RowCumSum => {
            let across = cumulative(CumulativeOp::Sum, &transpose::transpose(m(0)?));
            wrap(transpose::transpose(&across))
        }
        CumSumProd => wrap(cumsumprod(m(0)?)?),
        Prod => Ok(Value::Double(aggregate::prod(m(0)?))),
        ColProds => wrap(aggregate::col_prods(m(0)?)),
        RowProds => wrap(aggregate::row_prods(m(0)?)),
        RowIndexMax => wrap(select::row_index_extremum(m(0)?, Extremum::Max)),
        RowIndexMin => wrap(select::row_index_extremum(m(0)?, Extremum::Min)),
        Table => table(args),
        RemoveEmpty => remove_empty(args),
        Order => order(args),
        Solve => wrap(linalg::solve(m(0)?, m(1)?)?),
        Inv => wrap(linalg::inverse(m(0)?)?),
        Cholesky => wrap(linalg::cholesky(m(0)?)?),
        Det => Ok(Value::Double(linalg::det(m(0)?)?)),
        Var | Sd | RowVars | ColVars | RowSds | ColSds => variance(b, args),
        Median | InterQuartileMean | Quantile | Moment | Cov => statistic(b, args),
        Cdf | Icdf => distribution(b, args),
        Rev => wrap(select::rev(m(0)?)),
        Roll => roll(args),
        Outer => outer(args),
        BitwAnd | BitwOr | BitwXor | BitwShiftL | BitwShiftR => bitwise(b, args),
        LowerTri | UpperTri => triangle(b, args),
        Aggregate => grouped_aggregate(args),
        Unique => wrap(sort::unique(m(0)?)?),
        Conv2d | Conv2dBackwardFilter | Conv2dBackwardData => convolution(b, args),
        MaxPool | AvgPool | MaxPoolBackward | AvgPoolBackward => pooling(b, args),
        BiasAdd => wrap(dnn::bias(Bias::Add, m(0)?, m(1)?)?),
        BiasMultiply => wrap(dnn::bias(Bias::Multiply, m(0)?, m(1)?)?),
        _ => Err(RuntimeError::internal(format!(
            "`{}` is not a native builtin",
            b.name()
        ))),
    }
}

/// Argument `k` of an image builtin: a vector of `K` sizes (`stride=[2, 2]`).
fn sizes<const K: usize>(b: Builtin, args: &[Value], k: usize) -> Result<[usize; K], ArgError> {
    let cells = match &args[k] {
        Value::Matrix(x) if x.shape().cells() == K => x.to_dense().into_vec(),
        Value::Matrix(x) => {
            return Err(ArgError::SizeList {
                param: (b, k).into(),
                count: K,
                shape: x.shape(),
            })
        }
        other => return Err(ArgError::wrong_type((b, k), Expected::Integer, other)),
    };
    let mut out = [0; K];
    for (size, x) in out.iter_mut().zip(cells) {
        if x < 0.0 || x.fract() != 0.0 || !x.is_finite() {
            return Err(ArgError::out_of_range(
                (b, k),
                Expected::NonNegativeInteger,
                x,
            ));
        }
        *size = x as usize;
    }
    Ok(out)
}

/// The window of an image builtin from its `input_shape`, window (`filter_shape` or
/// `pool_size`), `stride` and `padding` arguments, which follow its `first` matrix ones.
fn window(
    b: Builtin,
    args: &[Value],
    first: usize,
    window: [usize; 2],
) -> Result<dnn::Window, RuntimeError> {
    let input = sizes::<4>(b, args, first)?;
    Ok(dnn::Window::new(
        input,
        window,
        sizes::<2>(b, args, first + 2)?,
        sizes::<2>(b, args, first + 3)?,
    )?)
}

/// `conv2d(input, filter, ...)`, `conv2d_backward_filter(input, dout, ...)` and
/// `conv2d_backward_data(filter, dout, ...)`.
fn convolution(b: Builtin, args: &[Value]) -> OpResult {
    let [f, c, r, s] = sizes::<4>(b, args, 3)?;
    let geometry = window(b, args, 2, [r, s])?;
    if c != geometry.c {
        return Err(ExecError::invalid(format!(
            "{}: filter_shape has {c} channels, input_shape {}",
            b.name(),
            geometry.c
        ))
        .into());
    }
    let (first, second) = (matrix_operand(b, args, 0)?, matrix_operand(b, args, 1)?);
    let out = match b {
        Builtin::Conv2d => dnn::conv2d(first, second, &geometry, f)?,
        Builtin::Conv2dBackwardFilter => dnn::conv2d_backward_filter(first, second, &geometry, f)?,
        _ => dnn::conv2d_backward_data(first, second, &geometry, f)?,
    };
    Ok(Value::matrix(out))
}

/// `max_pool(input, ...)`, `avg_pool(input, ...)` and their backward forms, which take
/// `dout` second.
fn pooling(b: Builtin, args: &[Value]) -> OpResult {
    let (kind, backward) = match b {
        Builtin::MaxPool => (Pool::Max, false),
        Builtin::AvgPool => (Pool::Avg, false),
        Builtin::MaxPoolBackward => (Pool::Max, true),
        _ => (Pool::Avg, true),
    };
    let first = if backward { 2 } else { 1 };
    let pool_size = sizes::<2>(b, args, first + 1)?;
    let geometry = window(b, args, first, pool_size)?;
    let input = matrix_operand(b, args, 0)?;
    let out = if backward {
        dnn::pool_backward(kind, input, matrix_operand(b, args, 1)?, &geometry)?
    } else {
        dnn::pool(kind, input, &geometry)?
    };
    Ok(Value::matrix(out))
}

/// `table(a, b, w, odim1, odim2)`.
fn table(args: &[Value]) -> OpResult {
    let arg = |k: usize| -> Result<TableArg, ArgError> {
        Ok(match &args[k] {
            Value::Matrix(x) => TableArg::Vector(x),
            s => TableArg::Scalar(number(s, "table argument")?),
        })
    };
    let dims = match (
        optional_dim(&args[3], (Builtin::Table, 3))?,
        optional_dim(&args[4], (Builtin::Table, 4))?,
    ) {
        (Some(r), Some(c)) => Some((r, c)),
        (None, None) => None,
        _ => return Err(ArgError::TableDims.into()),
    };
    Ok(Value::matrix(table::table(
        arg(0)?,
        arg(1)?,
        arg(2)?,
        dims,
    )?))
}

/// `removeEmpty(target, margin, empty.return, select)`.
fn remove_empty(args: &[Value]) -> OpResult {
    let margin = match &*string_arg(&args[1], (Builtin::RemoveEmpty, 1))? {
        "rows" => Margin::Rows,
        "cols" => Margin::Cols,
        other => {
            return Err(ArgError::Margin {
                margin: other.to_string(),
            }
            .into())
        }
    };
    let empty_return = boolean(&args[2], (Builtin::RemoveEmpty, 2))?;
    let select = args
        .get(3)
        .map(|v| matrix(v, (Builtin::RemoveEmpty, 3)))
        .transpose()?;
    if let Value::Frame(f) = &args[0] {
        let rows = margin == Margin::Rows;
        let kept = f.remove_empty(rows, empty_return, select)?;
        return Ok(Value::Frame(std::sync::Arc::new(kept)));
    }
    let target = matrix(&args[0], (Builtin::RemoveEmpty, 0))?;
    Ok(Value::matrix(select::remove_empty(
        target,
        margin,
        select,
        empty_return,
    )?))
}

/// `order(target, by, decreasing, index.return)`; `by` is a column, or a vector of columns
/// sorted by in turn.
fn order(args: &[Value]) -> OpResult {
    let target = matrix(&args[0], (Builtin::Order, 0))?;
    let by: Vec<usize> = match &args[1] {
        Value::Matrix(columns) if !columns.shape().is_scalar() => {
            let columns = columns.to_dense();
            columns
                .data()
                .iter()
                .map(|&c| count(&Value::Double(c), (Builtin::Order, 1)).map(|c| c - 1))
                .collect::<Result<_, _>>()?
        }
        by => vec![count(by, (Builtin::Order, 1))? - 1],
    };
    let decreasing = boolean(&args[2], (Builtin::Order, 2))?;
    let index_return = boolean(&args[3], (Builtin::Order, 3))?;
    Ok(Value::matrix(sort::order(
        target,
        &by,
        decreasing,
        index_return,
    )?))
}

/// `var`, `sd` and their row and column forms.
fn variance(b: Builtin, args: &[Value]) -> OpResult {
    use Builtin::*;
    let x = matrix_operand(b, args, 0)?;
    Ok(match b {
        Var => Value::Double(stats::variance(x)),
        Sd => Value::Double(stats::variance(x).sqrt()),
        RowVars => Value::matrix(stats::row_variances(x)),
        ColVars => Value::matrix(stats::col_variances(x)),
        RowSds => Value::matrix(stats::sqrt_cells(stats::row_variances(x))),
        _ => Value::matrix(stats::sqrt_cells(stats::col_variances(x))),
    })
}

/// `median`, `interQuartileMean`, `quantile`, `moment` and `cov`.
fn statistic(b: Builtin, args: &[Value]) -> OpResult {
    use Builtin::*;
    let m = |k: usize| matrix_operand(b, args, k);
    // The optional weights (frequencies) of the weighted forms.
    let weights = |k: usize| args.get(k).map(|_| m(k)).transpose();
    Ok(match b {
        Median => Value::Double(stats::quantile(m(0)?, weights(1)?, 0.5)?),
        InterQuartileMean => {
            let weights = args.get(1).map(|_| m(1)).transpose()?;
            Value::Double(stats::inter_quartile_mean(m(0)?, weights)?)
        }
        Quantile => {
            let target = m(0)?;
            match &args[1] {
                Value::Matrix(p) if !p.shape().is_scalar() => {
                    Value::matrix(stats::quantiles(target, weights(2)?, p)?)
                }
                p => {
                    let p = number(p, (Builtin::Quantile, 1))?;
                    Value::Double(stats::quantile(target, weights(2)?, p)?)
                }
            }
        }
        Moment => {
            let k = count(&args[1], (Builtin::Moment, 1))?;
            Value::Double(stats::moment(m(0)?, weights(2)?, k as u32)?)
        }
        _ => {
            let weights = match &args[2] {
                Value::Str(s) if s.is_empty() => None,
                _ => Some(m(2)?),
            };
            Value::Double(stats::covariance(m(0)?, m(1)?, weights)?)
        }
    })
}

/// `lower.tri`/`upper.tri(target, diag, values)`.
fn triangle(b: Builtin, args: &[Value]) -> OpResult {
    let name = b.name();
    let which = if b == Builtin::LowerTri {
        Triangle::Lower
    } else {
        Triangle::Upper
    };
    let diag = boolean(&args[1], (name, "diag"))?;
    let values = boolean(&args[2], (name, "values"))?;
    let target = matrix_operand(b, args, 0)?;
    Ok(Value::matrix(select::triangle(target, which, diag, values)))
}

/// `aggregate(target, groups, fn, ngroups)`.
fn grouped_aggregate(args: &[Value]) -> OpResult {
    let target = matrix(&args[0], (Builtin::Aggregate, 0))?;
    let groups = matrix(&args[1], (Builtin::Aggregate, 1))?;
    let f = &*string_arg(&args[2], (Builtin::Aggregate, 2))?;
    let f = GroupFn::from_name(f).ok_or_else(|| ArgError::GroupFn {
        name: f.to_string(),
    })?;
    let ngroups = optional_dim(&args[3], (Builtin::Aggregate, 3))?;
    Ok(Value::matrix(table::grouped_aggregate(
        target, groups, f, ngroups,
    )?))
}

/// Evaluates a builtin with several results (`eigen`, `qr`, `lu`, `svd`, and `remove` of a
/// list).
pub fn eval_multi(b: Builtin, args: &[Value]) -> Result<Vec<Value>, RuntimeError> {
    super::args::check_deferred_indices(args)?;
    match b {
        Builtin::Eigen => {
            let a = matrix(&args[0], "the argument of `eigen`")?;
            let (values, vectors) = linalg::eigen_symmetric(a)?;
            Ok(vec![Value::matrix(values), Value::matrix(vectors)])
        }
        Builtin::Qr => {
            let (h, r) = linalg::qr(matrix(&args[0], "the argument of `qr`")?)?;
            Ok(vec![Value::matrix(h), Value::matrix(r)])
        }
        Builtin::Lu => {
            let (p, l, u) = linalg::lu(matrix(&args[0], "the argument of `lu`")?)?;
            Ok(vec![Value::matrix(p), Value::matrix(l), Value::matrix(u)])
        }
        Builtin::Svd => {
            let (u, s, v) = linalg::svd(matrix(&args[0], "the argument of `svd`")?)?;
            Ok(vec![Value::matrix(u), Value::matrix(s), Value::matrix(v)])
        }
        Builtin::RowClassMeet => {
            let a = matrix(&args[0], "the first argument of `rowClassMeet`")?;
            let b = matrix(&args[1], "the second argument of `rowClassMeet`")?;
            let (classes, sizes) = class_meet::row_class_meet(a, b)?;
            Ok(vec![Value::matrix(classes), Value::matrix(sizes)])
        }
        Builtin::Remove => Ok(super::list::remove(args)?),
        Builtin::TransformEncode => super::frame::builtins::transform_encode(args),
        Builtin::BatchNorm2d => {
            let b = Builtin::BatchNorm2d;
            let phase = match string_arg(&args[5], (b, 5))?.to_ascii_lowercase().as_str() {
                "train" => Phase::Train,
                "test" => Phase::Test,
                other => {
                    return Err(ExecError::invalid(format!(
                        "batch_norm2d: mode must be \"train\" or \"test\", got \"{other}\""
                    ))
                    .into())
                }
            };
            let norm = dnn::batch_norm2d(
                matrix_operand(b, args, 0)?,
                matrix_operand(b, args, 1)?,
                matrix_operand(b, args, 2)?,
                matrix_operand(b, args, 3)?,
                matrix_operand(b, args, 4)?,
                phase,
                number(&args[6], (b, 6))?,
                number(&args[7], (b, 7))?,
            )?;
            Ok(matrices([
                norm.out,
                norm.ema_mean,
                norm.ema_var,
                norm.mean,
                norm.inv_var,
            ]))
        }
        Builtin::Lstm => {
            let b = Builtin::Lstm;
            let m = |k: usize| matrix_operand(b, args, k);
            let sequences = boolean(&args[5], (b, 5))?;
            let run = dnn::lstm(m(0)?, m(1)?, m(2)?, m(3)?, m(4)?, sequences)?;
            Ok(matrices([
                run.out,
                run.c,
                run.cache_out,
                run.cache_c,
                run.cache_ifog,
            ]))
        }
        Builtin::LstmBackward => {
            let b = Builtin::LstmBackward;
            let m = |k: usize| matrix_operand(b, args, k);
            let sequences = boolean(&args[5], (b, 5))?;
            let forward = if args.len() == 11 {
                dnn::Lstm {
                    out: DenseMatrix::zeros(0, 0),
                    c: DenseMatrix::zeros(0, 0),
                    cache_out: m(8)?.to_dense(),
                    cache_c: m(9)?.to_dense(),
                    cache_ifog: m(10)?.to_dense(),
                }
            } else if args.len() == 8 {
                dnn::lstm(m(0)?, m(1)?, m(2)?, m(3)?, m(4)?, sequences)?
            } else {
                return Err(ExecError::invalid(
                    "lstm_backward: give cache_out, cache_c and cache_ifog together, or none",
                )
                .into());
            };
            let (dout, dc) = (m(6)?, m(7)?);
            let g = dnn::lstm_backward(
                m(0)?,
                m(1)?,
                m(2)?,
                m(3)?,
                m(4)?,
                sequences,
                dout,
                dc,
                &forward,
            )?;
            Ok(matrices([g.dx, g.dw, g.db, g.dout0, g.dc0]))
        }
        Builtin::BatchNorm2dBackward => {
            let b = Builtin::BatchNorm2dBackward;
            let m = |k: usize| matrix_operand(b, args, k);
            let (dx, dgamma, dbeta) =
                dnn::batch_norm2d_backward(m(0)?, m(1)?, m(2)?, m(4)?, m(5)?)?;
            Ok(matrices([dx, dgamma, dbeta]))
        }
        other => Err(RuntimeError::internal(format!(
            "`{}` does not return several values",
            other.name()
        ))),
    }
}

/// The dense results of a builtin with several, as values.
fn matrices<const K: usize>(results: [DenseMatrix; K]) -> Vec<Value> {
    results
        .into_iter()
        .map(|m| Value::matrix(Matrix::Dense(m)))
        .collect()
}

/// `cdf`/`icdf` (children in `DISTRIBUTION_PARAMS` order of `dag::lower`).
fn distribution(b: Builtin, args: &[Value]) -> OpResult {
    let name = b.name();
    let x = number(&args[0], (name, "target"))?;
    let dist = &*string_arg(&args[1], (name, "dist"))?;
    let param = |k: usize, what: &'static str| -> Result<f64, ArgError> {
        let v = number(&args[k], (name, what))?;
        if v.is_nan() {
            return Err(ArgError::DistributionParam {
                builtin: name,
                dist: dist.to_string(),
                param: what,
            });
        }
        Ok(v)
    };
    let d = match dist {
        "normal" => Distribution::Normal {
            mean: param(5, "mean")?,
            sd: param(6, "sd")?,
        },
        "exp" => Distribution::Exp {
            rate: param(7, "rate")?,
        },
        "chisq" => Distribution::ChiSquared {
            df: param(2, "df")?,
        },
        "t" => Distribution::T {
            df: param(2, "df")?,
        },
        "f" => Distribution::F {
            df1: param(3, "df1")?,
            df2: param(4, "df2")?,
        },
        other => {
            return Err(ArgError::UnknownDistribution {
                builtin: name,
                dist: other.to_string(),
            }
            .into())
        }
    };
    let r = if b == Builtin::Cdf {
        let lower_tail = boolean(&args[8], (name, "lower.tail"))?;
        d.cdf(x, lower_tail)
    } else {
        d.icdf(x)
    };
    Ok(Value::Double(r?))
}

/// DML `outer(a, b, op)`: `a` (`n x 1`) combined with `b` (`1 x m`) by `op` into an
/// `n x m` matrix. Two matrices of one shape combine cell by cell, as SystemDS's runtime
/// combines them where the shapes were not known when it compiled the script (its own
/// `mdedup` writes `outer(D, t(D), "+")` for a square `D`).
fn outer(args: &[Value]) -> OpResult {
    let a = matrix(&args[0], (Builtin::Outer, 0))?;
    let b = matrix(&args[1], (Builtin::Outer, 1))?;
    let symbol = &*string_arg(&args[2], (Builtin::Outer, 2))?;
    let op = BinaryOp::ALL
        .into_iter()
        .find(|o| o.symbol() == symbol)
        .ok_or_else(|| ArgError::UnknownOperator {
            symbol: symbol.to_string(),
        })?;
    if a.shape() == b.shape() && (a.cols() != 1 || b.rows() != 1) {
        return Ok(Value::matrix(elementwise::binary(op, a, b)?));
    }
    if a.cols() != 1 || b.rows() != 1 {
        return Err(ArgError::OuterShapes {
            a: a.shape(),
            b: b.shape(),
        }
        .into());
    }
    // Broadcast the column vector over the row vector's columns: a %*% 1 (1 x m) op b.
    let ones = Matrix::Dense(DenseMatrix::filled(1, b.cols(), 1.0));
    let wide = spores_exec::kernels::matmul::matmul(a, &ones)?;
    Ok(Value::matrix(elementwise::binary(op, &wide, b)?))
}

/// `roll(X, shift)`: row `i` moves to row `(i + shift) mod n`, as SystemDS's `roll`
/// (a negative shift moves rows up).
fn roll(args: &[Value]) -> OpResult {
    let x = matrix(&args[0], (Builtin::Roll, 0))?;
    let shift = number(&args[1], (Builtin::Roll, 1))?;
    let n = x.rows();
    if !shift.is_finite() {
        return Err(ArgError::out_of_range((Builtin::Roll, 1), Expected::Integer, shift).into());
    }
    let k = if n == 0 {
        0
    } else {
        (shift as i64).rem_euclid(n as i64) as usize
    };
    if k == 0 {
        return Ok(Value::matrix(x.clone()));
    }
    let cols = 0..x.cols();
    let last = structural::slice(x, n - k..n, cols.clone())?;
    let first = structural::slice(x, 0..n - k, cols)?;
    Ok(Value::matrix(structural::rbind(&last, &first)?))
}

/// `bitwAnd`, `bitwOr`, `bitwXor`, `bitwShiftL`, `bitwShiftR` of two numbers, or cell
/// by cell of matrices of one shape (a number against every cell), on Java's 32-bit
/// `int` as SystemDS computes them: a double is truncated toward zero and saturates at
/// the `int` range, an integer keeps its low 32 bits, and shifts count modulo 32. A left
/// shift that lands on `int`'s minimum is NaN (0 as an integer scalar); a right shift of
/// two integer scalars is on 64 bits. Two integers give an integer, anything else doubles.
fn bitwise(b: Builtin, args: &[Value]) -> OpResult {
    let f: fn(i32, i32) -> f64 = match b {
        Builtin::BitwAnd => |a, b| f64::from(a & b),
        Builtin::BitwOr => |a, b| f64::from(a | b),
        Builtin::BitwXor => |a, b| f64::from(a ^ b),
        Builtin::BitwShiftL => |a, b| match a.wrapping_shl(b as u32) {
            i32::MIN => f64::NAN,
            v => f64::from(v),
        },
        _ => |a, b| f64::from(a.wrapping_shr(b as u32)),
    };
    // SystemDS's UtilFunctions.toInt: the epsilon absorbs a last-bit shortfall (2.9999...).
    let to_int = |v: f64| (v.signum() * (v.abs() + f64::EPSILON / 2.0).floor()) as i32;
    let on_doubles = |x: f64, y: f64| f(to_int(x), to_int(y));
    match (&args[0], &args[1]) {
        (Value::Int(x), Value::Int(y)) => Ok(Value::Int(match b {
            Builtin::BitwShiftR => x.wrapping_shr(*y as u32),
            _ => {
                let v = f(*x as i32, *y as i32);
                if v.is_nan() {
                    0
                } else {
                    v as i64
                }
            }
        })),
        (Value::Matrix(x), Value::Matrix(y)) => {
            if x.shape() != y.shape() {
                return Err(ExecError::shape_mismatch(b.name(), x.shape(), y.shape()).into());
            }
            spores_exec::memory::ensure_dense(b.name(), x.rows(), x.cols())?;
            let (x, y) = (x.to_dense(), y.to_dense());
            let cells = x
                .data()
                .iter()
                .zip(y.data())
                .map(|(&a, &c)| on_doubles(a, c));
            let out = DenseMatrix::from_vec(x.rows(), x.cols(), cells.collect())?;
            Ok(Value::matrix(Matrix::Dense(out).into_best_format()))
        }
        (Value::Matrix(x), y) => {
            let y = number(y, (b, 1))?;
            cellwise(b, x, |a| on_doubles(a, y))
        }
        (x, Value::Matrix(y)) => {
            let x = number(x, (b, 0))?;
            cellwise(b, y, |a| on_doubles(x, a))
        }
        (x, y) => Ok(Value::Double(on_doubles(
            number(x, (b, 0))?,
            number(y, (b, 1))?,
        ))),
    }
}

/// A function of each cell of `m`, as a matrix of its best format; the dense result is
/// asked of the memory budget first.
fn cellwise(b: Builtin, m: &Matrix, f: impl Fn(f64) -> f64) -> OpResult {
    spores_exec::memory::ensure_dense(b.name(), m.rows(), m.cols())?;
    let d = m.to_dense();
    let out = DenseMatrix::from_vec(d.rows(), d.cols(), d.data().iter().map(|&v| f(v)).collect())?;
    Ok(Value::matrix(Matrix::Dense(out).into_best_format()))
}
