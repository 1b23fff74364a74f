//! Evaluation of the matrix builtins SystemDS's algorithm scripts call beyond the core
//! operators: cumulative aggregates, `table`, `removeEmpty`, `order`, linear algebra,
//! statistics and distributions. Each checks its arguments and calls one kernel of
//! `spores_exec`.

use spores_exec::kernels::aggregate;
use spores_exec::kernels::cumulative::{cumsumprod, cumulative, CumulativeOp};
use spores_exec::kernels::distribution::Distribution;
use spores_exec::kernels::elementwise::{self, BinaryOp};
use spores_exec::kernels::select::{self, Extremum, Margin, Triangle};
use spores_exec::kernels::table::{self, GroupFn, TableArg};
use spores_exec::kernels::{linalg, sort, stats};
use spores_exec::{DenseMatrix, Matrix};

use super::ops::{matrix_arg as matrix, number_arg as number, string_arg};
use super::value::Value;
use crate::dag::Builtin;

type NativeResult = Result<Value, String>;

fn exec_err(e: spores_exec::ExecError) -> String {
    e.to_string()
}

fn boolean(v: &Value, what: &str) -> Result<bool, String> {
    v.as_bool()
        .ok_or_else(|| format!("{what} must be a boolean, got a {}", v.type_name()))
}

/// A positive integer argument (`by`, `ngroups`, ...).
fn count(v: &Value, what: &str) -> Result<usize, String> {
    let x = number(v, what)?;
    if x < 1.0 || x.fract() != 0.0 || !x.is_finite() {
        return Err(format!("{what} must be a positive integer, got {x}"));
    }
    Ok(x as usize)
}

/// A dimension that may be left to the data (given as a negative number).
fn optional_dim(v: &Value, what: &str) -> Result<Option<usize>, String> {
    let x = number(v, what)?;
    if x < 0.0 {
        return Ok(None);
    }
    if x.fract() != 0.0 || !x.is_finite() {
        return Err(format!("{what} must be a non-negative integer, got {x}"));
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
            | CumSumProd
            | Prod
            | RowIndexMax
            | RowIndexMin
            | Table
            | RemoveEmpty
            | Order
            | Solve
            | Inv
            | Cholesky
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
            | Outer
            | LowerTri
            | UpperTri
            | Aggregate
            | Unique
    )
}

/// Evaluates a builtin with one result (see [`handles`]).
pub fn eval(b: Builtin, args: &[Value]) -> NativeResult {
    use Builtin::*;
    let name = b.name();
    let m = |k: usize| matrix(&args[k], &format!("the argument of `{name}`"));
    let wrap = |x: spores_exec::Matrix| Ok(Value::matrix(x));
    match b {
        Contains => {
            let target = matrix(&args[0], "contains: target")?;
            let pattern = number(&args[1], "contains: pattern")?;
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
        CumSumProd => cumsumprod(m(0)?).map(Value::matrix).map_err(exec_err),
        Prod => Ok(Value::Double(aggregate::prod(m(0)?))),
        RowIndexMax => wrap(select::row_index_extremum(m(0)?, Extremum::Max)),
        RowIndexMin => wrap(select::row_index_extremum(m(0)?, Extremum::Min)),
        Table => {
            let arg = |k: usize| -> Result<TableArg, String> {
                Ok(match &args[k] {
                    Value::Matrix(x) => TableArg::Vector(x),
                    s => TableArg::Scalar(number(s, "table argument")?),
                })
            };
            let dims = match (
                optional_dim(&args[3], "table: odim1")?,
                optional_dim(&args[4], "table: odim2")?,
            ) {
                (Some(r), Some(c)) => Some((r, c)),
                (None, None) => None,
                _ => return Err("table: give both odim1 and odim2, or neither".into()),
            };
            table::table(arg(0)?, arg(1)?, arg(2)?, dims)
                .map(Value::matrix)
                .map_err(exec_err)
        }
        RemoveEmpty => {
            let target = matrix(&args[0], "removeEmpty: target")?;
            let margin = match &*string_arg(&args[1], "removeEmpty: margin")? {
                "rows" => Margin::Rows,
                "cols" => Margin::Cols,
                other => {
                    return Err(format!(
                        "removeEmpty: margin must be \"rows\" or \"cols\", got \"{other}\""
                    ))
                }
            };
            let empty_return = boolean(&args[2], "removeEmpty: empty.return")?;
            let select = args
                .get(3)
                .map(|v| matrix(v, "removeEmpty: select"))
                .transpose()?;
            select::remove_empty(target, margin, select, empty_return)
                .map(Value::matrix)
                .map_err(exec_err)
        }
        Order => {
            let target = matrix(&args[0], "order: target")?;
            let by = count(&args[1], "order: by")?;
            let decreasing = boolean(&args[2], "order: decreasing")?;
            let index_return = boolean(&args[3], "order: index.return")?;
            sort::order(target, by - 1, decreasing, index_return)
                .map(Value::matrix)
                .map_err(exec_err)
        }
        Solve => {
            let (a, rhs) = (m(0)?, m(1)?);
            linalg::solve(a, rhs).map(Value::matrix).map_err(exec_err)
        }
        Inv => linalg::inverse(m(0)?).map(Value::matrix).map_err(exec_err),
        Cholesky => linalg::cholesky(m(0)?).map(Value::matrix).map_err(exec_err),
        Var => Ok(Value::Double(stats::variance(m(0)?))),
        Sd => Ok(Value::Double(stats::variance(m(0)?).sqrt())),
        RowVars => wrap(stats::row_variances(m(0)?)),
        ColVars => wrap(stats::col_variances(m(0)?)),
        RowSds => wrap(stats::sqrt_cells(stats::row_variances(m(0)?))),
        ColSds => wrap(stats::sqrt_cells(stats::col_variances(m(0)?))),
        Median => stats::quantile(m(0)?, 0.5)
            .map(Value::Double)
            .map_err(exec_err),
        InterQuartileMean => {
            let weights = args.get(1).map(|_| m(1)).transpose()?;
            stats::inter_quartile_mean(m(0)?, weights)
                .map(Value::Double)
                .map_err(exec_err)
        }
        Quantile => {
            let target = m(0)?;
            match &args[1] {
                Value::Matrix(p) if !p.shape().is_scalar() => stats::quantiles(target, p)
                    .map(Value::matrix)
                    .map_err(exec_err),
                p => stats::quantile(target, number(p, "quantile: p")?)
                    .map(Value::Double)
                    .map_err(exec_err),
            }
        }
        Moment => {
            let k = count(&args[1], "moment: order")?;
            stats::moment(m(0)?, k as u32)
                .map(Value::Double)
                .map_err(exec_err)
        }
        Cov => {
            let weights = match &args[2] {
                Value::Str(s) if s.is_empty() => None,
                _ => Some(m(2)?),
            };
            stats::covariance(m(0)?, m(1)?, weights)
                .map(Value::Double)
                .map_err(exec_err)
        }
        Cdf | Icdf => distribution(b, args),
        Rev => wrap(select::rev(m(0)?)),
        Outer => outer(args),
        LowerTri | UpperTri => {
            let which = if b == LowerTri {
                Triangle::Lower
            } else {
                Triangle::Upper
            };
            let diag = boolean(&args[1], &format!("{name}: diag"))?;
            let values = boolean(&args[2], &format!("{name}: values"))?;
            wrap(select::triangle(m(0)?, which, diag, values))
        }
        Aggregate => {
            let target = matrix(&args[0], "aggregate: target")?;
            let groups = matrix(&args[1], "aggregate: groups")?;
            let f = &*string_arg(&args[2], "aggregate: fn")?;
            let f = GroupFn::from_name(f).ok_or_else(|| {
                format!("aggregate: fn must be one of sum, count, mean, min, max, variance; got \"{f}\"")
            })?;
            let ngroups = optional_dim(&args[3], "aggregate: ngroups")?;
            table::grouped_aggregate(target, groups, f, ngroups)
                .map(Value::matrix)
                .map_err(exec_err)
        }
        Unique => sort::unique(m(0)?).map(Value::matrix).map_err(exec_err),
        _ => Err(format!("internal error: `{name}` is not a native builtin")),
    }
}

/// Evaluates a builtin with several results (`eigen`, and `remove` of a list).
pub fn eval_multi(b: Builtin, args: &[Value]) -> Result<Vec<Value>, String> {
    super::ops::check_deferred_indices(args)?;
    match b {
        Builtin::Eigen => {
            let a = matrix(&args[0], "the argument of `eigen`")?;
            let (values, vectors) = linalg::eigen_symmetric(a).map_err(exec_err)?;
            Ok(vec![Value::matrix(values), Value::matrix(vectors)])
        }
        Builtin::Remove => super::list::remove(args),
        other => Err(format!(
            "internal error: `{}` does not return several values",
            other.name()
        )),
    }
}

/// `cdf`/`icdf` (children in `DISTRIBUTION_PARAMS` order of `dag::lower`).
fn distribution(b: Builtin, args: &[Value]) -> NativeResult {
    let name = b.name();
    let x = number(&args[0], &format!("{name}: target"))?;
    let dist = &*string_arg(&args[1], &format!("{name}: dist"))?;
    let param = |k: usize, what: &str| -> Result<f64, String> {
        let v = number(&args[k], &format!("{name}: {what}"))?;
        if v.is_nan() {
            return Err(format!("{name}: dist=\"{dist}\" needs {what}="));
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
            return Err(format!(
                "{name}: unknown distribution \"{other}\" (use normal, exp, chisq, t or f)"
            ))
        }
    };
    let r = if b == Builtin::Cdf {
        let lower_tail = boolean(&args[8], &format!("{name}: lower.tail"))?;
        d.cdf(x, lower_tail)
    } else {
        d.icdf(x)
    };
    r.map(Value::Double).map_err(exec_err)
}

/// DML `outer(a, b, op)`: `a` (`n x 1`) combined with `b` (`1 x m`) by `op` into an
/// `n x m` matrix.
fn outer(args: &[Value]) -> NativeResult {
    let a = matrix(&args[0], "outer: a")?;
    let b = matrix(&args[1], "outer: b")?;
    let symbol = &*string_arg(&args[2], "outer: op")?;
    let op = BinaryOp::ALL
        .into_iter()
        .find(|o| o.symbol() == symbol)
        .ok_or_else(|| format!("outer: unknown operator \"{symbol}\""))?;
    if a.cols() != 1 || b.rows() != 1 {
        return Err(format!(
            "outer needs a column vector and a row vector, got {} and {}",
            a.shape(),
            b.shape()
        ));
    }
    // Broadcast the column vector over the row vector's columns: a %*% 1 (1 x m) op b.
    let ones = Matrix::Dense(DenseMatrix::filled(1, b.cols(), 1.0));
    let wide = spores_exec::kernels::matmul::matmul(a, &ones).map_err(exec_err)?;
    elementwise::binary(op, &wide, b)
        .map(Value::matrix)
        .map_err(exec_err)
}
