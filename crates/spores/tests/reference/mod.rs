//! A reference evaluator for the differential tests' expressions, written from the
//! README's semantics rather than from the engine: NumPy's dense arithmetic, except that
//! matrix cells have zero-annihilating products (`0 * y = 0` for every `y`, NaN and ±Inf
//! included; division is IEEE's) and a cell of `A %*% B` sums `a_ik * b_kj` over the pairs where
//! both are non-zero; scalar arithmetic is IEEE. Every value is a dense row-major array,
//! computed one cell at a time.

use std::collections::HashMap;

use spores_lang::ast::{Arg, BinaryOp, Expr, ExprKind, Index, UnaryOp};

/// A scalar, or a `rows x cols` matrix in row-major order.
#[derive(Clone, Debug, PartialEq)]
pub enum Val {
    Scalar(f64),
    Matrix {
        rows: usize,
        cols: usize,
        cells: Vec<f64>,
    },
}

impl Val {
    fn dims(&self) -> (usize, usize) {
        match self {
            Val::Scalar(_) => (1, 1),
            Val::Matrix { rows, cols, .. } => (*rows, *cols),
        }
    }

    /// Cell `(i, j)`, broadcasting a scalar, a row or a column.
    fn at(&self, i: usize, j: usize) -> f64 {
        match self {
            Val::Scalar(v) => *v,
            Val::Matrix { rows, cols, cells } => {
                cells[(if *rows == 1 { 0 } else { i }) * cols + if *cols == 1 { 0 } else { j }]
            }
        }
    }

    fn matrix(rows: usize, cols: usize, f: impl Fn(usize, usize) -> f64) -> Val {
        let cells = (0..rows * cols).map(|k| f(k / cols, k % cols)).collect();
        Val::Matrix { rows, cols, cells }
    }

    fn cells(&self) -> Vec<f64> {
        let (r, c) = self.dims();
        (0..r * c).map(|k| self.at(k / c, k % c)).collect()
    }

    fn scalar(&self) -> Result<f64, String> {
        match self {
            Val::Scalar(v) => Ok(*v),
            Val::Matrix {
                rows: 1,
                cols: 1,
                cells,
            } => Ok(cells[0]),
            m => Err(format!("not a scalar: {:?}", m.dims())),
        }
    }
}

/// One cell of a binary operator; `cells` when a matrix is involved (zero-annihilating).
fn cell(op: BinaryOp, a: f64, b: f64, cells: bool) -> Result<f64, String> {
    Ok(match op {
        BinaryOp::Add => a + b,
        BinaryOp::Sub => a - b,
        BinaryOp::Mul if cells && (a == 0.0 || b == 0.0) => 0.0,
        BinaryOp::Mul => a * b,
        BinaryOp::Div => a / b,
        BinaryOp::Pow => a.powf(b),
        other => return Err(format!("operator {other:?} is not in the reference")),
    })
}

fn binary(op: BinaryOp, a: &Val, b: &Val) -> Result<Val, String> {
    if let (Val::Scalar(x), Val::Scalar(y)) = (a, b) {
        return cell(op, *x, *y, false).map(Val::Scalar);
    }
    if op == BinaryOp::MatMul {
        let ((m, k), (k2, n)) = (a.dims(), b.dims());
        if k != k2 {
            return Err(format!("%*% of {m}x{k} and {k2}x{n}"));
        }
        return Ok(Val::matrix(m, n, |i, j| {
            (0..k)
                .map(|p| (a.at(i, p), b.at(p, j)))
                .filter(|&(x, y)| x != 0.0 && y != 0.0)
                .map(|(x, y)| x * y)
                .sum()
        }));
    }
    let ((ra, ca), (rb, cb)) = (a.dims(), b.dims());
    let broadcast = |x: usize, y: usize| match (x, y) {
        _ if x == y => Ok(x),
        (1, n) | (n, 1) => Ok(n),
        _ => Err(format!("{op:?} of {ra}x{ca} and {rb}x{cb}")),
    };
    let (rows, cols) = (broadcast(ra, rb)?, broadcast(ca, cb)?);
    let cells = (0..rows * cols)
        .map(|k| cell(op, a.at(k / cols, k % cols), b.at(k / cols, k % cols), true))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Val::Matrix { rows, cols, cells })
}

/// Evaluates `e` with the variables of `env`.
pub fn eval(e: &Expr, env: &HashMap<String, Val>) -> Result<Val, String> {
    Ok(match &e.kind {
        ExprKind::Int(v) => Val::Scalar(*v as f64),
        ExprKind::Double(v) => Val::Scalar(*v),
        ExprKind::Var(name) => env
            .get(name)
            .cloned()
            .ok_or_else(|| format!("no `{name}`"))?,
        ExprKind::Unary {
            op: UnaryOp::Neg,
            expr,
        } => match eval(expr, env)? {
            Val::Scalar(v) => Val::Scalar(-v),
            m => {
                let (r, c) = m.dims();
                Val::matrix(r, c, |i, j| -m.at(i, j))
            }
        },
        ExprKind::Binary { op, lhs, rhs } => binary(*op, &eval(lhs, env)?, &eval(rhs, env)?)?,
        ExprKind::Call { name, args } => call(name, args, env)?,
        // Right indexing by numbers (1-based, inclusive).
        ExprKind::Index { target, rows, cols } => {
            let x = eval(target, env)?;
            let (r, c) = x.dims();
            let range = |i: &Index, size: usize| -> Result<(usize, usize), String> {
                let bound =
                    |b: &Expr| -> Result<usize, String> { Ok(eval(b, env)?.scalar()? as usize) };
                match i {
                    Index::All => Ok((0, size)),
                    Index::Single(a) => Ok((bound(a)? - 1, bound(a)?)),
                    Index::Range(a, b) => Ok((bound(a)? - 1, bound(b)?)),
                }
            };
            let ((r0, r1), (c0, c1)) = (range(rows, r)?, range(cols, c)?);
            Val::matrix(r1 - r0, c1 - c0, |i, j| x.at(r0 + i, c0 + j))
        }
        _ => return Err(format!("not in the reference: {e:?}")),
    })
}

/// The largest (`f64::max`) or smallest (`f64::min`) of `cells`, NaN if any is NaN.
fn extremum(cells: Vec<f64>, pick: fn(f64, f64) -> f64) -> f64 {
    cells
        .into_iter()
        .reduce(|m, v| {
            if m.is_nan() || v.is_nan() {
                f64::NAN
            } else {
                pick(m, v)
            }
        })
        .unwrap_or(f64::NAN)
}

fn call(name: &str, args: &[Arg], env: &HashMap<String, Val>) -> Result<Val, String> {
    let arg = |k: usize| -> Result<Val, String> {
        let a = args.get(k).ok_or_else(|| format!("{name}: argument {k}"))?;
        eval(&a.value, env)
    };
    let x = arg(0)?;
    let (r, c) = x.dims();
    let sum = |cells: Vec<f64>| cells.into_iter().sum::<f64>();
    let row = |i: usize| (0..c).map(|j| x.at(i, j)).collect::<Vec<_>>();
    let col = |j: usize| (0..r).map(|i| x.at(i, j)).collect::<Vec<_>>();
    Ok(match name {
        "t" => Val::matrix(c, r, |i, j| x.at(j, i)),
        "sum" => Val::Scalar(sum(x.cells())),
        "mean" => Val::Scalar(sum(x.cells()) / (r * c) as f64),
        "max" => Val::Scalar(extremum(x.cells(), f64::max)),
        "min" => Val::Scalar(extremum(x.cells(), f64::min)),
        "rowMaxs" => Val::matrix(r, 1, |i, _| extremum(row(i), f64::max)),
        "rev" => Val::matrix(r, c, |i, j| x.at(r - 1 - i, j)),
        "cbind" => {
            let y = arg(1)?;
            let (yr, yc) = y.dims();
            if yr != r {
                return Err(format!("cbind of {r}x{c} and {yr}x{yc}"));
            }
            Val::matrix(
                r,
                c + yc,
                |i, j| if j < c { x.at(i, j) } else { y.at(i, j - c) },
            )
        }
        "rbind" => {
            let y = arg(1)?;
            let (yr, yc) = y.dims();
            if yc != c {
                return Err(format!("rbind of {r}x{c} and {yr}x{yc}"));
            }
            Val::matrix(
                r + yr,
                c,
                |i, j| if i < r { x.at(i, j) } else { y.at(i - r, j) },
            )
        }
        "rowSums" => Val::matrix(r, 1, |i, _| sum(row(i))),
        "rowMeans" => Val::matrix(r, 1, |i, _| sum(row(i)) / c as f64),
        "colSums" => Val::matrix(1, c, |_, j| sum(col(j))),
        "colMeans" => Val::matrix(1, c, |_, j| sum(col(j)) / r as f64),
        // A scalar's function is a scalar, so `0 * abs(s)` stays IEEE (NaN for an infinite
        // `s`).
        "abs" | "exp" | "log" | "sqrt" => {
            let f: fn(f64) -> f64 = match name {
                "abs" => f64::abs,
                "exp" => f64::exp,
                "log" => f64::ln,
                _ => f64::sqrt,
            };
            match x {
                Val::Scalar(v) => Val::Scalar(f(v)),
                m => Val::matrix(r, c, |i, j| f(m.at(i, j))),
            }
        }
        // A column becomes the diagonal of a square matrix; a square matrix gives its
        // diagonal as a column.
        "diag" if c == 1 && r > 1 => {
            Val::matrix(r, r, |i, j| if i == j { x.at(i, 0) } else { 0.0 })
        }
        "diag" => Val::matrix(r, 1, |i, _| x.at(i, i)),
        "trace" => Val::Scalar(sum((0..r).map(|i| x.at(i, i)).collect())),
        "as.scalar" => Val::Scalar(x.scalar()?),
        "as.matrix" => Val::matrix(r, c, |i, j| x.at(i, j)),
        "nrow" => Val::Scalar(r as f64),
        "ncol" => Val::Scalar(c as f64),
        "matrix" => {
            let (rows, cols) = (arg(1)?.scalar()? as usize, arg(2)?.scalar()? as usize);
            let v = x.scalar()?;
            Val::matrix(rows, cols, |_, _| v)
        }
        "outer" => {
            let op = match args.get(2).map(|a| &a.value.kind) {
                Some(ExprKind::Str(s)) if s == "+" => BinaryOp::Add,
                Some(ExprKind::Str(s)) if s == "-" => BinaryOp::Sub,
                Some(ExprKind::Str(s)) if s == "*" => BinaryOp::Mul,
                other => return Err(format!("outer with {other:?}")),
            };
            binary(op, &x, &arg(1)?)?
        }
        other => return Err(format!("`{other}` is not in the reference")),
    })
}
