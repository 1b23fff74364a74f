//! The cost model: what our kernels will spend on an operator, estimated from shapes and
//! sparsity.
//!
//! A cost is work (multiply-adds or cells visited) plus cells written, in one unit. The
//! point is not absolute accuracy but the right *order*: a plan that touches only the
//! non-zeros of a sparse input must beat one that materializes a dense intermediate
//! exactly when the input is sparse, and lose (or tie) when it is dense. Sparsity
//! estimates follow Figure 12 of the SPORES paper (sparsity = nnz / cells, products take
//! the minimum, sums add, aggregation over `n` cells multiplies by `n`).
//!
//! The same per-operator functions price relational e-nodes during extraction
//! ([`crate::extract`]) and whole [`LaExpr`] DAGs ([`la_cost`]), so the costs reported
//! before and after optimization are comparable.

use std::collections::HashMap;

use crate::la::{broadcast, Dim, LaExpr, Shape, ShapeEnv, ShapeError};

/// Size assumed for a symbolic dimension whose size is unknown.
pub const DEFAULT_DIM: f64 = 1000.0;

/// Numeric size of a dimension.
pub fn dim_size(d: &Dim) -> f64 {
    match d {
        Dim::Known(n) => *n as f64,
        Dim::Sym(_) => DEFAULT_DIM,
    }
}

/// `a * b` elementwise over `cells` output cells: the kernel walks the sparser operand.
pub fn mul(cells: f64, sa: f64, sb: f64) -> f64 {
    2.0 * cells * sa.min(sb)
}

/// `a + b` elementwise: the output has the union of both patterns.
pub fn add(cells: f64, sa: f64, sb: f64) -> f64 {
    2.0 * cells * (sa + sb).min(1.0)
}

/// A unary elementwise map that keeps zeros (negation, positive powers, `sprop`).
pub fn map_sparse(cells: f64, s: f64) -> f64 {
    2.0 * cells * s
}

/// An opaque elementwise function: assume it fills every cell.
pub fn map_dense(cells: f64) -> f64 {
    2.0 * cells
}

/// `(m x k) %*% (k x n)` with operand sparsities `sa`, `sb`: one multiply-add per pair of
/// matching non-zeros, plus reading both operands and writing the estimated output.
pub fn matmul(m: f64, k: f64, n: f64, sa: f64, sb: f64) -> f64 {
    m * k * n * sa * sb + m * k * sa + k * n * sb + m * n * matmul_sparsity(k, sa, sb)
}

/// Figure 12 for `sum_k A * B`.
pub fn matmul_sparsity(k: f64, sa: f64, sb: f64) -> f64 {
    (k * sa.min(sb)).min(1.0)
}

/// A sum over some dimensions of `cells` input cells, writing `out` cells.
pub fn aggregate(cells: f64, s: f64, out: f64) -> f64 {
    cells * s + out
}

/// A transpose: free for vectors (a reshape), a copy of the non-zeros otherwise.
pub fn transpose(rows: f64, cols: f64, s: f64) -> f64 {
    if rows <= 1.0 || cols <= 1.0 {
        0.0
    } else {
        2.0 * rows * cols * s
    }
}

/// `wsloss(X, U, V)` = `sum((X - U %*% t(V))^2)`, `X` is `m x n` with sparsity `sx`, rank
/// `k`: one rank-`k` dot per non-zero of `X` plus two `k x k` Gram matrices.
pub fn wsloss(m: f64, n: f64, k: f64, sx: f64) -> f64 {
    m * n * sx * k + (m + n) * k * k + m * n * sx
}

/// `sddmm_sum(X, U, V)` = `sum(X * (U %*% t(V)))`: one rank-`k` dot per non-zero of `X`.
pub fn sddmm_sum(m: f64, n: f64, k: f64, sx: f64) -> f64 {
    m * n * sx * (k + 1.0)
}

/// `mmchain(X, v[, w])` = `t(X) %*% ([w *] (X %*% v))`, `X` `m x n`, `v` `n x c`: two
/// passes over the non-zeros of `X` per column of `v`, nothing materialized but the result.
pub fn mmchain(m: f64, n: f64, c: f64, sx: f64) -> f64 {
    2.0 * m * n * sx * c + n * c
}

/// The estimated sparsity and cost of [`LaExpr`]s under a [`ShapeEnv`].
pub struct LaCost<'a> {
    env: &'a ShapeEnv,
}

/// Sparsity of an input: `nnz / cells` when `env.nnz` knows it, else dense.
pub fn input_sparsity(env: &ShapeEnv, name: &str) -> f64 {
    let Some((r, c)) = env.shapes.get(name) else {
        return 1.0;
    };
    match env.nnz.get(name) {
        Some(nnz) => {
            let cells = (dim_size(r) * dim_size(c)).max(1.0);
            (nnz / cells).clamp(0.0, 1.0)
        }
        None => 1.0,
    }
}

impl<'a> LaCost<'a> {
    pub fn new(env: &'a ShapeEnv) -> Self {
        LaCost { env }
    }

    /// Numeric shape of `e`.
    pub fn dims(&self, e: &LaExpr) -> Result<(f64, f64), ShapeError> {
        let (r, c) = shape_of(self.env, e)?;
        Ok((dim_size(&r), dim_size(&c)))
    }

    /// Estimated sparsity of `e` (Figure 12).
    pub fn sparsity(&self, e: &LaExpr) -> Result<f64, ShapeError> {
        use LaExpr::*;
        Ok(match e {
            Var(v) => input_sparsity(self.env, v),
            Const(c) => {
                if *c == 0.0 {
                    0.0
                } else {
                    1.0
                }
            }
            Mul(a, b) => self.sparsity(a)?.min(self.sparsity(b)?),
            Add(a, b) | Sub(a, b) => (self.sparsity(a)? + self.sparsity(b)?).min(1.0),
            Neg(a) | Transpose(a) => self.sparsity(a)?,
            MatMul(a, b) => {
                let k = self.dims(a)?.1;
                matmul_sparsity(k, self.sparsity(a)?, self.sparsity(b)?)
            }
            Sum(a) => {
                let (r, c) = self.dims(a)?;
                (r * c * self.sparsity(a)?).min(1.0)
            }
            RowSums(a) => (self.dims(a)?.1 * self.sparsity(a)?).min(1.0),
            ColSums(a) => (self.dims(a)?.0 * self.sparsity(a)?).min(1.0),
            Pow(a, k) if *k > 0.0 => self.sparsity(a)?,
            Pow(..) => 1.0,
            Func { name, args } if name == "sprop" && args.len() == 1 => self.sparsity(&args[0])?,
            Func { .. } => 1.0,
        })
    }

    /// Cost of the operator at the root of `e` alone (its children already computed).
    pub fn op_cost(&self, e: &LaExpr) -> Result<f64, ShapeError> {
        use LaExpr::*;
        let (r, c) = self.dims(e)?;
        let cells = r * c;
        Ok(match e {
            Var(_) | Const(_) => 0.0,
            Mul(a, b) => mul(cells, self.sparsity(a)?, self.sparsity(b)?),
            Add(a, b) | Sub(a, b) => add(cells, self.sparsity(a)?, self.sparsity(b)?),
            Neg(a) => map_sparse(cells, self.sparsity(a)?),
            Pow(a, k) if *k > 0.0 => map_sparse(cells, self.sparsity(a)?),
            Pow(..) => map_dense(cells),
            Transpose(a) => transpose(r, c, self.sparsity(a)?),
            MatMul(a, b) => {
                let (m, k) = self.dims(a)?;
                matmul(m, k, c, self.sparsity(a)?, self.sparsity(b)?)
            }
            Sum(a) | RowSums(a) | ColSums(a) => {
                let (ar, ac) = self.dims(a)?;
                aggregate(ar * ac, self.sparsity(a)?, cells)
            }
            Func { name, args } => self.func_cost(name, args, cells)?,
        })
    }

    fn func_cost(&self, name: &str, args: &[LaExpr], cells: f64) -> Result<f64, ShapeError> {
        Ok(match (name, args) {
            ("wsloss" | "sddmm_sum", [x, u, _v]) => {
                let (m, n) = self.dims(x)?;
                let k = self.dims(u)?.1;
                let sx = self.sparsity(x)?;
                if name == "wsloss" {
                    wsloss(m, n, k, sx)
                } else {
                    sddmm_sum(m, n, k, sx)
                }
            }
            ("mmchain", [x, v, ..]) => {
                let (m, n) = self.dims(x)?;
                mmchain(m, n, self.dims(v)?.1, self.sparsity(x)?)
            }
            ("sprop", [p]) => map_sparse(cells, self.sparsity(p)?),
            ("nrow" | "ncol", _) => 0.0,
            _ => map_dense(cells),
        })
    }

    /// Total cost of `e` as a DAG: structurally equal subexpressions are computed once.
    pub fn total(&self, e: &LaExpr) -> Result<f64, ShapeError> {
        let mut seen: HashMap<String, ()> = HashMap::new();
        self.walk(e, &mut seen)
    }

    fn walk(&self, e: &LaExpr, seen: &mut HashMap<String, ()>) -> Result<f64, ShapeError> {
        let key = format!("{e:?}");
        if seen.insert(key, ()).is_some() {
            return Ok(0.0);
        }
        let mut total = self.op_cost(e)?;
        for child in children(e) {
            total += self.walk(child, seen)?;
        }
        Ok(total)
    }
}

/// [`ShapeEnv::shape_of`] that also knows the fused operators the optimizer emits
/// (`wsloss`, `sddmm_sum`: scalars; `mmchain(X, v[, w])`: `ncol(X) x ncol(v)`;
/// `sprop(P)`: the shape of `P`), checking their operands.
pub fn shape_of(env: &ShapeEnv, e: &LaExpr) -> Result<Shape, ShapeError> {
    use LaExpr::*;
    let one = || Dim::Known(1);
    let bad = |what: &str| Err(ShapeError(format!("{what}: operand shapes do not fit")));
    match e {
        Var(_) | Const(_) => env.shape_of(e),
        Add(a, b) | Sub(a, b) | Mul(a, b) => {
            let op = match e {
                Add(..) => "+",
                Sub(..) => "-",
                _ => "*",
            };
            broadcast(op, shape_of(env, a)?, shape_of(env, b)?)
        }
        MatMul(a, b) => {
            let (sa, sb) = (shape_of(env, a)?, shape_of(env, b)?);
            if sa.1 != sb.0 {
                return bad("%*%");
            }
            Ok((sa.0, sb.1))
        }
        Transpose(a) => {
            let (r, c) = shape_of(env, a)?;
            Ok((c, r))
        }
        Neg(a) | Pow(a, _) => shape_of(env, a),
        Sum(a) => shape_of(env, a).map(|_| (one(), one())),
        RowSums(a) => Ok((shape_of(env, a)?.0, one())),
        ColSums(a) => Ok((one(), shape_of(env, a)?.1)),
        Func { name, args } => {
            let shapes = args
                .iter()
                .map(|a| shape_of(env, a))
                .collect::<Result<Vec<_>, _>>()?;
            match (name.as_str(), shapes.as_slice()) {
                ("wsloss" | "sddmm_sum", [x, u, v]) => {
                    if x.0 == u.0 && x.1 == v.0 && u.1 == v.1 {
                        Ok((one(), one()))
                    } else {
                        bad(name)
                    }
                }
                ("mmchain", [x, v, rest @ ..]) => {
                    let w_ok = rest.iter().all(|w| w.0 == x.0 && w.1.is_one());
                    if x.1 == v.0 && rest.len() <= 1 && w_ok {
                        Ok((x.1.clone(), v.1.clone()))
                    } else {
                        bad(name)
                    }
                }
                ("sprop", [p]) => Ok(p.clone()),
                ("nrow" | "ncol", [_]) => Ok((one(), one())),
                _ => {
                    let mut iter = shapes.into_iter();
                    let first = iter.next().unwrap_or((one(), one()));
                    iter.try_fold(first, |acc, s| broadcast(name, acc, s))
                }
            }
        }
    }
}

/// Total DAG cost of `e` (see [`LaCost::total`]).
pub fn la_cost(e: &LaExpr, env: &ShapeEnv) -> Result<f64, ShapeError> {
    LaCost::new(env).total(e)
}

/// The direct subexpressions of `e`.
pub fn children(e: &LaExpr) -> Vec<&LaExpr> {
    use LaExpr::*;
    match e {
        Var(_) | Const(_) => vec![],
        Add(a, b) | Sub(a, b) | Mul(a, b) | MatMul(a, b) => vec![a, b],
        Transpose(a) | Neg(a) | Sum(a) | RowSums(a) | ColSums(a) | Pow(a, _) => vec![a],
        Func { args, .. } => args.iter().collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(sparse: bool) -> ShapeEnv {
        let mut env = ShapeEnv::default();
        for arg in ["X=10000x10000", "U=10000x10", "V=10000x10"] {
            env.add_shape_arg(arg).unwrap();
        }
        if sparse {
            env.set_nnz("X", 1e6);
        }
        env
    }

    #[test]
    fn fused_loss_wins_by_orders_of_magnitude_on_sparse_input() {
        let env = env(true);
        let plain = la_cost(&LaExpr::parse("sum((X - U %*% t(V))^2)").unwrap(), &env).unwrap();
        let fused = la_cost(&LaExpr::parse("wsloss(X, U, V)").unwrap(), &env).unwrap();
        assert!(fused * 50.0 < plain, "{fused} vs {plain}");
    }

    #[test]
    fn shared_subexpressions_are_paid_once() {
        let env = env(false);
        let once = la_cost(&LaExpr::parse("U %*% t(V)").unwrap(), &env).unwrap();
        let twice = la_cost(&LaExpr::parse("U %*% t(V) * (U %*% t(V))").unwrap(), &env).unwrap();
        assert!(twice < 2.0 * once, "{twice} vs {once}");
    }
}
