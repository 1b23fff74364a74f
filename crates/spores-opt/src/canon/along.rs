//! Expressions that compute each row of their result from the same row of their inputs
//! alone (`X / rowSums(abs(X))`, `rowMaxs(X) - X %*% B`), or each column from the same
//! column. A fact about one row of such an expression is a fact about a function of one
//! row of the inputs, the same for every row: where an input's row is all zeros, the
//! result's row is what it is in every row of the input that is zero everywhere.
//! [`super::equiv`] uses this for divisors that are 0 in the rows where an input is.

use crate::functions::is_elementwise;
use crate::la::{Dim, LaExpr, ShapeEnv, INDEX};

/// How an expression's cells depend on the inputs that have one dimension `d` among
/// their sizes ([`along`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Along {
    /// Not at all: no such input is read, and `d` is not a size of the result.
    Free,
    /// Its rows are `d`; row `i` is computed from row `i` of each input whose rows are
    /// `d` (column `i` of each whose columns are), the same way for every `i`.
    Rows,
    /// Its columns are `d`, the same by columns.
    Cols,
}

impl Along {
    fn transposed(self) -> Along {
        match self {
            Along::Free => Along::Free,
            Along::Rows => Along::Cols,
            Along::Cols => Along::Rows,
        }
    }
}

/// How `e` depends on the inputs with dimension `d`, or `None` when a cell may read other
/// rows (columns) than its own, or `d` itself as a number (`nrow(X)`, `mean(X)`).
pub fn along(e: &LaExpr, env: &ShapeEnv, d: &Dim) -> Option<Along> {
    use LaExpr::*;
    let of = |x: &LaExpr| along(x, env, d);
    let sized = |rows: &Dim, cols: &Dim| match (rows == d, cols == d) {
        (true, true) => None,
        (true, false) => Some(Along::Rows),
        (false, true) => Some(Along::Cols),
        (false, false) => Some(Along::Free),
    };
    // Keeps `kind` when `x` runs along it or not at all.
    let within = |x: &LaExpr, kind: Along| match of(x)? {
        Along::Free => Some(Along::Free),
        k if k == kind => Some(k),
        _ => None,
    };
    match e {
        Const(_) => Some(Along::Free),
        Var(name) => {
            let (rows, cols) = env.shapes.get(name)?;
            sized(rows, cols)
        }
        Fill(v, rows, cols) => {
            if of(v)? != Along::Free {
                return None;
            }
            sized(rows, cols)
        }
        Add(x, y) | Sub(x, y) | Mul(x, y) => cellwise([x.as_ref(), y.as_ref()], env, d),
        Neg(x) | Pow(x, _) => of(x),
        Transpose(x) => Some(of(x)?.transposed()),
        MatMul(x, y) => match (of(x)?, of(y)?) {
            (Along::Free, Along::Free) => Some(Along::Free),
            (Along::Rows, Along::Free) => Some(Along::Rows),
            (Along::Free, Along::Cols) => Some(Along::Cols),
            _ => None,
        },
        Sum(x) => within(x, Along::Free),
        RowSums(x) => within(x, Along::Rows),
        ColSums(x) => within(x, Along::Cols),
        Func { name, args } => {
            let cellwise_call = is_elementwise(name, args.len())
                || (name == "ifelse" && args.len() == 3)
                || ((name == "min" || name == "max") && args.len() > 2);
            if cellwise_call {
                return cellwise(args.iter(), env, d);
            }
            match (name.as_str(), args.as_slice()) {
                (
                    "rowMeans" | "rowMaxs" | "rowMins" | "rowProds" | "rowIndexMax" | "rowIndexMin",
                    [x],
                ) => within(x, Along::Rows),
                ("colMeans" | "colMaxs" | "colMins" | "colProds", [x]) => within(x, Along::Cols),
                // Down each column: a column is computed from itself alone.
                ("cumsum" | "cumprod" | "cummin" | "cummax" | "rev", [x]) => within(x, Along::Cols),
                ("cbind", [x, y]) => match cellwise([x, y], env, d)? {
                    Along::Cols => None,
                    k => Some(k),
                },
                ("rbind", [x, y]) => match cellwise([x, y], env, d)? {
                    Along::Rows => None,
                    k => Some(k),
                },
                // A size is a number of the result unless it is `d`.
                ("nrow", [x]) => match of(x)? {
                    Along::Rows => None,
                    _ => Some(Along::Free),
                },
                ("ncol", [x]) => match of(x)? {
                    Along::Cols => None,
                    _ => Some(Along::Free),
                },
                (INDEX, [target, bounds @ ..]) if bounds.len() == 4 => {
                    if bounds.iter().any(|b| of(b) != Some(Along::Free)) {
                        return None;
                    }
                    match of(target)? {
                        Along::Free => Some(Along::Free),
                        Along::Rows if whole_span(&bounds[0], &bounds[1]) => Some(Along::Rows),
                        Along::Cols if whole_span(&bounds[2], &bounds[3]) => Some(Along::Cols),
                        _ => None,
                    }
                }
                // Anything else may read across rows: only a function of nothing along
                // `d` stays free of it.
                _ => args
                    .iter()
                    .all(|a| of(a) == Some(Along::Free))
                    .then_some(Along::Free),
            }
        }
    }
}

/// Whether `lo:hi` is an empty position (`X[, c]`), whose bounds are `0, 0`.
fn whole_span(lo: &LaExpr, hi: &LaExpr) -> bool {
    matches!((lo, hi), (LaExpr::Const(a), LaExpr::Const(b)) if *a == 0.0 && *b == 0.0)
}

/// Arguments of a cellwise operation: they must run along the same way, or not at all.
fn cellwise<'a>(
    args: impl IntoIterator<Item = &'a LaExpr>,
    env: &ShapeEnv,
    d: &Dim,
) -> Option<Along> {
    let mut kind = Along::Free;
    for arg in args {
        match (kind, along(arg, env, d)?) {
            (_, Along::Free) => {}
            (Along::Free, k) => kind = k,
            (k, l) if k == l => {}
            _ => return None,
        }
    }
    Some(kind)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(text: &str) -> Option<Along> {
        let env = ShapeEnv::with_shapes(&["X=mxn", "Y=mxn", "B=nxk", "C=kxm", "s=1x1"]).unwrap();
        let e = LaExpr::parse(text)
            .unwrap()
            .resolve_keeping_kinds(&env)
            .unwrap();
        along(&e, &env, &Dim::Sym("m".into()))
    }

    #[test]
    fn rows_computed_from_their_own_row() {
        for rowwise in [
            "X / rowSums(abs(X))",
            "rowMaxs(X) - X %*% B",
            "ifelse(X > s, Y, 0)",
            "cbind(X, rowSums(Y))",
            "X[, 2] * ncol(X)",
            "X * matrix(1, nrow(X), 1)",
        ] {
            assert_eq!(kind(rowwise), Some(Along::Rows), "{rowwise}");
        }
        assert_eq!(kind("t(X) / colSums(abs(t(Y)))"), Some(Along::Cols));
        assert_eq!(kind("sum(B) + s"), Some(Along::Free));
    }

    #[test]
    fn cells_that_read_other_rows_are_not() {
        for across in [
            "colSums(X)",
            "X - mean(X)",
            "X * nrow(X)",
            "cumsum(X)",
            "rev(X)",
            "X[1:2, ]",
            "rbind(X, Y)",
            "C %*% X",
            "X %*% t(X)",
            "X + t(rowSums(Y))",
        ] {
            assert_eq!(kind(across), None, "{across}");
        }
    }
}
