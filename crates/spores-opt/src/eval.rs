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

use std::collections::HashMap;

use spores_exec::kernels::elementwise::{self, BinaryOp};
use spores_exec::kernels::unary::{self, UnaryOp};
use spores_exec::kernels::{aggregate, matmul, structural, transpose};
use spores_exec::{DenseMatrix, Matrix};

use crate::la::{Dim, LaExpr};

/// Evaluates `e` on the given inputs (every [`LaExpr::Var`] must have a value).
///
/// Opaque functions supported: the unary functions `exp log sqrt abs sigmoid round floor
/// ceil sign` and `!`; the binary operators `+ - * / ^ min max %% %/% == != < <= > >= &
/// |` (as two-argument functions); one-argument `min`, `max`, `mean` (full aggregates,
/// giving a 1×1 result); `as.scalar` (of a 1×1 value) and `as.matrix`. Anything else is
/// an error naming the function.
pub fn eval(e: &LaExpr, inputs: &HashMap<String, Matrix>) -> Result<Matrix, String> {
    let ev = |x: &LaExpr| eval(x, inputs);
    Ok(match e {
        LaExpr::Var(name) => inputs
            .get(name)
            .cloned()
            .ok_or_else(|| format!("no value given for `{name}`"))?,
        LaExpr::Const(c) => scalar(*c),
        LaExpr::Add(a, b) | LaExpr::Sub(a, b) | LaExpr::Mul(a, b) | LaExpr::MatMul(a, b) => {
            apply(e, &[&ev(a)?, &ev(b)?])?
        }
        LaExpr::Transpose(a)
        | LaExpr::Neg(a)
        | LaExpr::Sum(a)
        | LaExpr::RowSums(a)
        | LaExpr::ColSums(a)
        | LaExpr::Pow(a, _) => apply(e, &[&ev(a)?])?,
        LaExpr::Fill(v, r, c) => {
            let (Dim::Known(rows), Dim::Known(cols)) = (r, c) else {
                return Err(format!(
                    "matrix({v}, rows={r}, cols={c}): a size is symbolic"
                ));
            };
            let value = ev(v)?
                .as_scalar()
                .ok_or_else(|| format!("matrix({v}, ...): the value is not a scalar"))?;
            Matrix::Dense(DenseMatrix::filled(*rows, *cols, value))
        }
        LaExpr::Func { name, args } if name == "matrix" && args.len() == 3 => {
            let values = args.iter().map(ev).collect::<Result<Vec<_>, _>>()?;
            let size = |m: &Matrix| {
                m.as_scalar()
                    .filter(|v| *v >= 0.0 && v.fract() == 0.0)
                    .map(|v| Dim::Known(v as usize))
                    .ok_or_else(|| format!("{e}: a size is not a non-negative integer"))
            };
            let fill = LaExpr::Fill(args[0].clone().into(), size(&values[1])?, size(&values[2])?);
            eval(&fill, inputs)?
        }
        LaExpr::Func { name, args } => {
            let values = args.iter().map(ev).collect::<Result<Vec<_>, _>>()?;
            func(name, &values)?
        }
    })
}

/// The operator at the top of `e` applied to its operands' values (in order): `+ - *
/// %*%` of two, `t`, unary minus, the sums and `^` of one. The fills and functions are
/// [`eval`]'s alone (an error here).
pub fn apply(e: &LaExpr, operands: &[&Matrix]) -> Result<Matrix, String> {
    let arg = |k: usize| {
        operands
            .get(k)
            .copied()
            .ok_or_else(|| format!("{e}: operand {k} is missing"))
    };
    Ok(match e {
        LaExpr::Add(..) => binary(BinaryOp::Add, arg(0)?, arg(1)?)?,
        LaExpr::Sub(..) => binary(BinaryOp::Sub, arg(0)?, arg(1)?)?,
        LaExpr::Mul(..) => binary(BinaryOp::Mul, arg(0)?, arg(1)?)?,
        LaExpr::MatMul(..) => matmul::matmul(arg(0)?, arg(1)?).map_err(|e| e.to_string())?,
        LaExpr::Transpose(_) => transpose::transpose(arg(0)?),
        LaExpr::Neg(_) => unary::unary(UnaryOp::Neg, arg(0)?),
        LaExpr::Sum(_) => scalar(aggregate::sum(arg(0)?)),
        LaExpr::RowSums(_) => aggregate::row_sums(arg(0)?),
        LaExpr::ColSums(_) => aggregate::col_sums(arg(0)?),
        LaExpr::Pow(_, k) => elementwise::binary_scalar(BinaryOp::Pow, arg(0)?, *k, false),
        _ => return Err(format!("{e}: not an operator over its operands' values")),
    })
}

fn scalar(v: f64) -> Matrix {
    Matrix::Dense(DenseMatrix::filled(1, 1, v))
}

/// Two scalars (1×1 values) combine as numbers do in `spores run` (IEEE: `0 / 0` is NaN,
/// `0 * Inf` is NaN); anything else cell by cell, zero-annihilating.
fn binary(op: BinaryOp, a: &Matrix, b: &Matrix) -> Result<Matrix, String> {
    if let (Some(x), Some(y)) = (a.as_scalar(), b.as_scalar()) {
        return Ok(scalar(op.apply(x, y)));
    }
    elementwise::binary(op, a, b).map_err(|e| e.to_string())
}

fn func(name: &str, args: &[Matrix]) -> Result<Matrix, String> {
    match args {
        [x] => {
            if let Some(op) = UnaryOp::ALL.into_iter().find(|op| op.name() == name) {
                return Ok(unary::unary(op, x));
            }
            match name {
                "min" => Ok(scalar(aggregate::min(x))),
                "max" => Ok(scalar(aggregate::max(x))),
                "mean" => Ok(scalar(aggregate::mean(x))),
                "rowMeans" => Ok(aggregate::row_means(x)),
                "colMeans" => Ok(aggregate::col_means(x)),
                "nrow" => Ok(scalar(x.rows() as f64)),
                "ncol" => Ok(scalar(x.cols() as f64)),
                "length" => Ok(scalar((x.rows() * x.cols()) as f64)),
                "diag" => structural::diag(x).map_err(|e| e.to_string()),
                "trace" if x.rows() == x.cols() => {
                    Ok(scalar((0..x.rows()).map(|i| x.get(i, i)).sum()))
                }
                "as.matrix" => Ok(x.clone()),
                "as.scalar" => x
                    .as_scalar()
                    .map(scalar)
                    .ok_or_else(|| format!("as.scalar of a {}x{} matrix", x.rows(), x.cols())),
                _ => Err(format!("cannot evaluate `{name}` of one argument")),
            }
        }
        [a, b] => match BinaryOp::ALL.into_iter().find(|op| op.symbol() == name) {
            Some(op) => binary(op, a, b),
            None => Err(format!("cannot evaluate `{name}` of two arguments")),
        },
        _ => Err(format!(
            "cannot evaluate `{name}` of {} arguments",
            args.len()
        )),
    }
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
        assert!(err.contains("foo"), "{err}");
        let err = eval(&LaExpr::parse("Y + 1").unwrap(), &inputs).unwrap_err();
        assert!(err.contains("`Y`"), "{err}");
    }
}
