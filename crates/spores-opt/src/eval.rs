//! Numeric evaluation of [`LaExpr`]s with the execution layer's kernels.
//!
//! This is the reference semantics the optimizer is checked against: the equivalence
//! checker evaluates both sides of a claimed non-equivalence on its witness, and
//! differential tests of rewrites evaluate an expression before and after. It therefore
//! goes through exactly the kernels the runtime uses (zero-annihilating cell semantics,
//! DML broadcasting), not a separate naive implementation.
//!
//! Scalars are 1×1 matrices, as in SystemDS where a 1×1 matrix and a scalar are
//! interchangeable in elementwise operations.

use std::borrow::Cow;
use std::collections::HashMap;

use spores_exec::kernels::cumulative::{self, CumulativeOp};
use spores_exec::kernels::elementwise::{self, BinaryOp};
use spores_exec::kernels::unary::{self, UnaryOp};
use spores_exec::kernels::{aggregate, matmul, select, stats, structural, transpose};
use spores_exec::{DenseMatrix, Matrix};

use crate::la::{Dim, LaExpr};

/// Why [`eval`] or [`apply`] could not compute a value.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EvalError {
    /// A variable with no value among the inputs.
    #[error("no value given for `{name}`")]
    MissingInput { name: String },
    /// A fill `matrix(value, rows, cols)` with a symbolic size.
    #[error("matrix({value}, rows={rows}, cols={cols}): a size is symbolic")]
    SymbolicSize {
        value: Box<LaExpr>,
        rows: Dim,
        cols: Dim,
    },
    /// A fill whose value is not a scalar.
    #[error("matrix({value}, ...): the value is not a scalar")]
    FillNotScalar { value: Box<LaExpr> },
    /// A `matrix(...)` call whose size evaluates to no non-negative integer.
    #[error("{expr}: a size is not a non-negative integer")]
    BadSize { expr: Box<LaExpr> },
    /// [`apply`] was given fewer operands than the operator takes.
    #[error("{expr}: operand {index} is missing")]
    MissingOperand { expr: Box<LaExpr>, index: usize },
    /// [`apply`] of an expression that is not an operator over its operands.
    #[error("{expr}: not an operator over its operands' values")]
    NotAnOperator { expr: Box<LaExpr> },
    /// `as.scalar` of a value that is not 1×1.
    #[error("as.scalar of a {rows}x{cols} matrix")]
    AsScalar { rows: usize, cols: usize },
    /// A function this evaluator does not know, with that many arguments.
    #[error("cannot evaluate `{name}` of {}", arguments(*arity))]
    Unsupported { name: String, arity: usize },
    /// A kernel failed (operand shapes that do not fit).
    #[error(transparent)]
    Kernel(#[from] spores_exec::ExecError),
}

/// `one argument`, `two arguments`, `3 arguments`.
fn arguments(n: usize) -> String {
    match n {
        1 => "one argument".into(),
        2 => "two arguments".into(),
        n => format!("{n} arguments"),
    }
}

/// Evaluates `e` on the given inputs (every [`LaExpr::Var`] must have a value).
///
/// Opaque functions supported: the unary functions `exp log sqrt abs sigmoid round floor
/// ceil sign` and `!`; the binary operators `+ - * / ^ min max %% %/% == != < <= > >= &
/// |` (as two-argument functions); one-argument `min`, `max`, `mean` (full aggregates,
/// giving a 1×1 result), `rowMaxs`, `rowMins`, `colMaxs`, `colMins`, `rowMeans`,
/// `colMeans`, `rev`, `cumsum`, `cumprod`, `cummin`, `cummax`, `diag`, `trace`;
/// `ifelse(c, a, b)`, `cbind`, `rbind`, right indexing (`X[a:b, c]`, [`crate::la::INDEX`]);
/// `as.scalar` (of a 1×1 value) and `as.matrix`. Anything else is an error naming the
/// function.
pub fn eval(e: &LaExpr, inputs: &HashMap<String, Matrix>) -> Result<Matrix, EvalError> {
    eval_in(e, &|name: &str| inputs.get(name)).map(Cow::into_owned)
}

/// [`eval`] over inputs held elsewhere (`lookup` gives a variable's value, or `None`):
/// no input is copied, and the result borrows an input when `e` is that variable.
///
/// A transposed operand of `%*%` is read in place ([`matmul::matmul_t`]), so `t(U) %*% U`
/// of a tall `U` is one pass over `U` (a Gram matrix), not a transposed copy and a product.
///
/// ```
/// use spores_exec::{DenseMatrix, Matrix};
/// use spores_opt::eval::eval_in;
/// use spores_opt::la::LaExpr;
///
/// let u = Matrix::Dense(DenseMatrix::from_vec(3, 2, vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap());
/// let lookup = |name: &str| (name == "U").then_some(&u);
/// let gram = eval_in(&LaExpr::parse("t(U) %*% U").unwrap(), &lookup).unwrap();
/// assert_eq!(gram.to_dense().data(), &[35.0, 44.0, 44.0, 56.0]);
/// ```
pub fn eval_in<'a, F>(e: &LaExpr, lookup: &F) -> Result<Cow<'a, Matrix>, EvalError>
where
    F: Fn(&str) -> Option<&'a Matrix>,
{
    let ev = |x: &LaExpr| eval_in(x, lookup);
    Ok(Cow::Owned(match e {
        LaExpr::Var(name) => {
            return lookup(name)
                .map(Cow::Borrowed)
                .ok_or_else(|| EvalError::MissingInput { name: name.clone() })
        }
        LaExpr::Const(c) => scalar(*c),
        LaExpr::MatMul(a, b) => {
            let (a, transpose_a) = untransposed(a);
            let (b, transpose_b) = untransposed(b);
            let (a, b) = (ev(a)?, ev(b)?);
            matmul::matmul_t(&a, transpose_a, &b, transpose_b)?
        }
        LaExpr::Add(a, b) | LaExpr::Sub(a, b) | LaExpr::Mul(a, b) => {
            apply(e, &[&*ev(a)?, &*ev(b)?])?
        }
        LaExpr::Transpose(a)
        | LaExpr::Neg(a)
        | LaExpr::Sum(a)
        | LaExpr::RowSums(a)
        | LaExpr::ColSums(a)
        | LaExpr::Pow(a, _) => apply(e, &[&*ev(a)?])?,
        LaExpr::Fill(v, r, c) => {
            let (Dim::Known(rows), Dim::Known(cols)) = (r, c) else {
                return Err(EvalError::SymbolicSize {
                    value: v.clone(),
                    rows: r.clone(),
                    cols: c.clone(),
                });
            };
            let value = ev(v)?
                .as_scalar()
                .ok_or_else(|| EvalError::FillNotScalar { value: v.clone() })?;
            Matrix::Dense(DenseMatrix::filled(*rows, *cols, value))
        }
        LaExpr::Func { name, args } if name == "matrix" && args.len() == 3 => {
            let values = args.iter().map(ev).collect::<Result<Vec<_>, _>>()?;
            let size = |m: &Matrix| {
                m.as_scalar()
                    .filter(|v| *v >= 0.0 && v.fract() == 0.0)
                    .map(|v| Dim::Known(v as usize))
                    .ok_or_else(|| EvalError::BadSize {
                        expr: Box::new(e.clone()),
                    })
            };
            let fill = LaExpr::Fill(args[0].clone().into(), size(&values[1])?, size(&values[2])?);
            return ev(&fill);
        }
        LaExpr::Func { name, args } => {
            let values = args.iter().map(ev).collect::<Result<Vec<_>, _>>()?;
            func(name, &values)?
        }
    }))
}

/// `(x, true)` for `t(x)`, else `(e, false)`: the operand of a product and whether the
/// product reads it transposed.
fn untransposed(e: &LaExpr) -> (&LaExpr, bool) {
    match e {
        LaExpr::Transpose(x) => (x, true),
        _ => (e, false),
    }
}

/// The operator at the top of `e` applied to its operands' values (in order): `+ - *
/// %*%` of two, `t`, unary minus, the sums and `^` of one. The fills and functions are
/// [`eval`]'s alone (an error here).
pub fn apply(e: &LaExpr, operands: &[&Matrix]) -> Result<Matrix, EvalError> {
    let arg = |k: usize| {
        operands
            .get(k)
            .copied()
            .ok_or_else(|| EvalError::MissingOperand {
                expr: Box::new(e.clone()),
                index: k,
            })
    };
    Ok(match e {
        LaExpr::Add(..) => binary(BinaryOp::Add, arg(0)?, arg(1)?)?,
        LaExpr::Sub(..) => binary(BinaryOp::Sub, arg(0)?, arg(1)?)?,
        LaExpr::Mul(..) => binary(BinaryOp::Mul, arg(0)?, arg(1)?)?,
        LaExpr::MatMul(..) => matmul::matmul(arg(0)?, arg(1)?)?,
        LaExpr::Transpose(_) => transpose::transpose(arg(0)?),
        // A scalar negates as an IEEE number (`-0` at 0, as `spores run` gives `-s`), a
        // matrix as the kernel does.
        LaExpr::Neg(_) => match arg(0)?.as_scalar() {
            Some(x) => scalar(-x),
            None => unary::unary(UnaryOp::Neg, arg(0)?),
        },
        LaExpr::Sum(_) => scalar(aggregate::sum(arg(0)?)),
        LaExpr::RowSums(_) => aggregate::row_sums(arg(0)?),
        LaExpr::ColSums(_) => aggregate::col_sums(arg(0)?),
        LaExpr::Pow(_, k) => elementwise::binary_scalar(BinaryOp::Pow, arg(0)?, *k, false),
        _ => {
            return Err(EvalError::NotAnOperator {
                expr: Box::new(e.clone()),
            })
        }
    })
}

fn scalar(v: f64) -> Matrix {
    Matrix::Dense(DenseMatrix::filled(1, 1, v))
}

/// Two scalars (1×1 values) combine as numbers do in `spores run` (IEEE: `0 / 0` is NaN,
/// `0 * Inf` is NaN); anything else cell by cell, zero-annihilating.
fn binary(op: BinaryOp, a: &Matrix, b: &Matrix) -> Result<Matrix, EvalError> {
    if let (Some(x), Some(y)) = (a.as_scalar(), b.as_scalar()) {
        return Ok(scalar(op.apply(x, y)));
    }
    Ok(elementwise::binary(op, a, b)?)
}

fn unsupported(name: &str, arity: usize) -> EvalError {
    EvalError::Unsupported {
        name: name.to_string(),
        arity,
    }
}

fn func(name: &str, args: &[Cow<'_, Matrix>]) -> Result<Matrix, EvalError> {
    match args {
        [x] => {
            if let Some(op) = UnaryOp::ALL.into_iter().find(|op| op.name() == name) {
                return Ok(unary::unary(op, x));
            }
            match name {
                "min" => Ok(scalar(aggregate::min(x))),
                "max" => Ok(scalar(aggregate::max(x))),
                "mean" => Ok(scalar(aggregate::mean(x))),
                "var" => Ok(scalar(stats::variance(x))),
                "sd" => Ok(scalar(stats::variance(x).sqrt())),
                "rowMeans" => Ok(aggregate::row_means(x)),
                "colMeans" => Ok(aggregate::col_means(x)),
                "rowMaxs" => Ok(aggregate::row_maxs(x)),
                "rowMins" => Ok(aggregate::row_mins(x)),
                "rowIndexMax" => Ok(select::row_index_extremum(x, select::Extremum::Max)),
                "rowIndexMin" => Ok(select::row_index_extremum(x, select::Extremum::Min)),
                "colMaxs" => Ok(aggregate::col_maxs(x)),
                "colMins" => Ok(aggregate::col_mins(x)),
                "prod" => Ok(scalar(aggregate::prod(x))),
                "rowProds" => Ok(aggregate::row_prods(x)),
                "colProds" => Ok(aggregate::col_prods(x)),
                "rev" => Ok(select::rev(x)),
                "cumsum" => Ok(cumulative::cumulative(CumulativeOp::Sum, x)),
                "rowcumsum" => {
                    let across =
                        cumulative::cumulative(CumulativeOp::Sum, &transpose::transpose(x));
                    Ok(transpose::transpose(&across))
                }
                "cumprod" => Ok(cumulative::cumulative(CumulativeOp::Prod, x)),
                "cummin" => Ok(cumulative::cumulative(CumulativeOp::Min, x)),
                "cummax" => Ok(cumulative::cumulative(CumulativeOp::Max, x)),
                "nrow" => Ok(scalar(x.rows() as f64)),
                "ncol" => Ok(scalar(x.cols() as f64)),
                "length" => Ok(scalar((x.rows() * x.cols()) as f64)),
                "diag" => Ok(structural::diag(x)?),
                "trace" if x.rows() == x.cols() => {
                    Ok(scalar((0..x.rows()).map(|i| x.get(i, i)).sum()))
                }
                "as.matrix" => Ok(x.clone().into_owned()),
                "as.scalar" => x
                    .as_scalar()
                    .map(scalar)
                    .ok_or_else(|| EvalError::AsScalar {
                        rows: x.rows(),
                        cols: x.cols(),
                    }),
                _ => Err(unsupported(name, 1)),
            }
        }
        _ if name == "seq" => {
            let numbers = args
                .iter()
                .map(|a| a.as_scalar().map(crate::la::LaExpr::Const))
                .collect::<Option<Vec<_>>>()
                .ok_or_else(|| unsupported(name, args.len()))?;
            let values =
                crate::la::seq_values(&numbers).map_err(|_| unsupported(name, args.len()))?;
            let n = values.len();
            Ok(Matrix::Dense(DenseMatrix::from_fn(n, 1, |i, _| values[i])))
        }
        [a, b] if name == "cbind" => Ok(structural::cbind(a, b)?),
        // `(X != 0) * (X / E)`: a zero factor annihilates the NaN of `0 / 0`.
        [x, e] if name == "masked_div" => {
            let nonzero = elementwise::binary_scalar(BinaryOp::Ne, x, 0.0, false);
            binary(BinaryOp::Mul, &nonzero, &binary(BinaryOp::Div, x, e)?)
        }
        [a, b] if name == "rbind" => Ok(structural::rbind(a, b)?),
        [a, b] if name == "pmax" => binary(BinaryOp::Max, a, b),
        [a, b] if name == "pmin" => binary(BinaryOp::Min, a, b),
        // A logarithm to a base, as `spores run` computes it.
        [x, base] if name == "log" => binary(
            BinaryOp::Div,
            &unary::unary(UnaryOp::Log, x),
            &unary::unary(UnaryOp::Log, base),
        ),
        [a, b] if name == "xor" => {
            let truth = |x: &Matrix| elementwise::binary_scalar(BinaryOp::Ne, x, 0.0, false);
            binary(BinaryOp::Ne, &truth(a), &truth(b))
        }
        [a, b] => match BinaryOp::ALL.into_iter().find(|op| op.symbol() == name) {
            Some(op) => binary(op, a, b),
            None => Err(unsupported(name, 2)),
        },
        [c, a, b] if name == "ifelse" => ifelse(c, a, b),
        [x, rl, ru, cl, cu] if name == crate::la::INDEX => {
            let range = |lo: &Matrix, hi: &Matrix, size: usize| {
                let (lo, hi) = (lo.as_scalar(), hi.as_scalar());
                match (lo, hi) {
                    (Some(a), Some(b)) if a == 0.0 && b == 0.0 => Ok(0..size),
                    (Some(a), Some(b)) if a >= 1.0 && b >= a && b <= size as f64 => {
                        Ok(a as usize - 1..b as usize)
                    }
                    _ => Err(EvalError::Unsupported {
                        name: format!("indexing out of bounds ({lo:?}:{hi:?} of {size})"),
                        arity: 5,
                    }),
                }
            };
            let rows = range(rl, ru, x.rows())?;
            let cols = range(cl, cu, x.cols())?;
            Ok(structural::slice(x, rows, cols)?)
        }
        _ => Err(unsupported(name, args.len())),
    }
}

/// `ifelse(c, a, b)`: `a` where `c` is non-zero, else `b`, each broadcast to the largest
/// shape of the three.
fn ifelse(c: &Matrix, a: &Matrix, b: &Matrix) -> Result<Matrix, EvalError> {
    let rows = c.rows().max(a.rows()).max(b.rows());
    let cols = c.cols().max(a.cols()).max(b.cols());
    let at = |m: &Matrix, i: usize, j: usize| -> Result<f64, EvalError> {
        let (r, k) = (m.rows(), m.cols());
        if (r != rows && r != 1) || (k != cols && k != 1) {
            return Err(EvalError::Unsupported {
                name: format!("ifelse of a {r}x{k} operand in a {rows}x{cols} result"),
                arity: 3,
            });
        }
        Ok(m.get(if r == 1 { 0 } else { i }, if k == 1 { 0 } else { j }))
    };
    let mut data = Vec::with_capacity(rows * cols);
    for i in 0..rows {
        for j in 0..cols {
            let pick = if at(c, i, j)? != 0.0 { a } else { b };
            data.push(at(pick, i, j)?);
        }
    }
    Ok(Matrix::Dense(DenseMatrix::from_vec(rows, cols, data)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(rows: usize, cols: usize, data: &[f64]) -> Matrix {
        Matrix::Dense(DenseMatrix::from_vec(rows, cols, data.to_vec()).unwrap())
    }

    #[test]
    fn evaluates_sum_product_and_opaque_operators() {
        let mut inputs = HashMap::new();
        inputs.insert("X".to_string(), m(2, 2, &[1.0, 2.0, 3.0, 4.0]));
        inputs.insert("v".to_string(), m(2, 1, &[1.0, -1.0]));
        let run = |t: &str| eval(&LaExpr::parse(t).unwrap(), &inputs).unwrap();
        assert_eq!(run("sum(X)").as_scalar(), Some(10.0));
        assert_eq!(run("sum(X %*% v)").as_scalar(), Some(-2.0));
        assert_eq!(run("sum(X * v)").as_scalar(), Some(-4.0));
        assert_eq!(run("sum(X^2) - 1").as_scalar(), Some(29.0));
        assert_eq!(run("colSums(t(X))").get(0, 1), 7.0);
        assert_eq!(run("max(X / 2, 1.5)").get(0, 0), 1.5);
        assert_eq!(run("sum(X > 2)").as_scalar(), Some(2.0));
        assert_eq!(run("min(X)").as_scalar(), Some(1.0));
        assert!((run("sum(exp(log(X)))").as_scalar().unwrap() - 10.0).abs() < 1e-12);
        let err = eval(&LaExpr::parse("foo(X)").unwrap(), &inputs).unwrap_err();
        assert!(err.to_string().contains("foo"), "{err}");
        let err = eval(&LaExpr::parse("Y + 1").unwrap(), &inputs).unwrap_err();
        assert!(err.to_string().contains("`Y`"), "{err}");
        assert_eq!(err.to_string(), "no value given for `Y`");
        fn send_sync<T: Send + Sync + 'static>() {}
        send_sync::<EvalError>();
        let err = |t: &str| {
            eval(&LaExpr::parse(t).unwrap(), &inputs)
                .unwrap_err()
                .to_string()
        };
        assert_eq!(err("foo(X)"), "cannot evaluate `foo` of one argument");
        assert_eq!(err("foo(X, X)"), "cannot evaluate `foo` of two arguments");
        assert_eq!(err("foo(X, X, X)"), "cannot evaluate `foo` of 3 arguments");
    }
}
