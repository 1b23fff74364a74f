//! Identities of the constructs outside the sum-product fragment, applied before canonical
//! forms are compared: `min` and `max` aggregates over the (max, +) semiring, `cbind`
//! and `rbind`, right indexing with constant bounds, and `rev`, read as maps of cell
//! positions.
//!
//! Each rule states an equality that holds for every real input; rewriting both sides
//! with them moves such constructs to a form the canonical forms (and the piecewise
//! decision, [`super::piecewise`]) can compare: aggregates are pushed through what they
//! see through (`max(A + s) = max(A) + s`, `rowSums(cbind(A, B)) = rowSums(A) +
//! rowSums(B)`), `min` becomes `-max(-x)`, and indexing is pushed down to the inputs
//! (`(A %*% B)[1:2, ] = A[1:2, ] %*% B`), where a slice of an input is an atom.

use crate::la::{Dim, LaExpr, Shape, ShapeEnv, SizeForm, INDEX};

/// Rounds of rewriting at one node before it is left as it is (each round either
/// rewrites or stops; the rules only move constructs towards the inputs or the root).
const MAX_ROUNDS: usize = 64;

/// `e` rewritten by this module's identities, bottom-up.
pub(crate) fn simplify(e: &LaExpr, env: &ShapeEnv) -> LaExpr {
    let mut rounds = 0;
    simplify_at(e, env, &mut rounds, &rewrite)
}

/// `e` rewritten by the identities that save work wherever they apply, for the
/// optimizer: aggregates split over blocks and see through `rev`, a shift or a positive
/// factor comes out of `max`, `rev(rev(x))` is `x`, indexing moves to the inputs (a
/// product of slices instead of a slice of a product), `cbind(a, b) %*% rbind(c, d)`
/// is `a %*% c + b %*% d`, a product with `diag(v)` is a scaling by `v`, and the trace or
/// diagonal of a product is computed from its diagonal cells alone. The optimizer plans both this and `e` and keeps the cheaper
/// ([`crate::saturate::optimize_all`]).
pub fn rewrite_for_plans(e: &LaExpr, env: &ShapeEnv) -> LaExpr {
    let mut rounds = 0;
    simplify_at(e, env, &mut rounds, &rewrite_paying)
}

/// `e` with indexing pushed to the inputs and sums of blocks split, rules that move cells
/// without computing anything new: each holds cell by cell for every value, NaN and the
/// infinities included, so [`super::domain`] may read the result in `e`'s place.
pub(super) fn positional(e: &LaExpr, env: &ShapeEnv) -> LaExpr {
    let mut rounds = 0;
    simplify_at(e, env, &mut rounds, &rewrite_positional)
}

fn rewrite_positional(e: &LaExpr, env: &ShapeEnv) -> Option<LaExpr> {
    use LaExpr::*;
    match e {
        Sum(x) | RowSums(x) | ColSums(x) if binder(x).is_some() => rewrite(e, env),
        // Cells summed over their own sum are that sum over itself, NaN where it is 0
        // too: cells that sum to 0 are all 0 (each 0 / 0) or of both signs (infinities of
        // both signs). So the rows of `X / rowSums(X)` sum to `rowSums(X) / rowSums(X)`.
        Sum(q) | RowSums(q) | ColSums(q) => match q.as_ref() {
            Func { name, args }
                if name == "/"
                    && args.len() == 2
                    && std::mem::discriminant(&args[1]) == std::mem::discriminant(e)
                    && matches!(&args[1], Sum(x) | RowSums(x) | ColSums(x) if **x == args[0]) =>
            {
                Some(func("/", vec![args[1].clone(), args[1].clone()]))
            }
            _ => None,
        },
        Func { name, args } if name == INDEX && args.len() == 5 => rewrite(e, env),
        // The smallest log or root of cells is that of the smallest cell, NaN cells too
        // (see `aggregate_max`), running minimums too (they propagate NaN down a column).
        Func { name, args }
            if matches!(name.as_str(), "min" | "rowMins" | "colMins" | "cummin")
                && args.len() == 1 =>
        {
            match &args[0] {
                Func {
                    name: f,
                    args: inner,
                } if (f == "log" || f == "sqrt") && inner.len() == 1 => {
                    Some(func(f, vec![func(name, vec![inner[0].clone()])]))
                }
                _ if name == "min" => extreme_of_all(name, &args[0]),
                _ => None,
            }
        }
        Func { name, args } if name == "max" && args.len() == 1 => extreme_of_all(name, &args[0]),
        _ => None,
    }
}

/// The extreme of all cells through reorderings and partial extremes of the same kind:
/// the kernels' extremes are NaN where any cell is, so NaN cells agree too.
fn extreme_of_all(name: &str, x: &LaExpr) -> Option<LaExpr> {
    use LaExpr::*;
    let partial = if name == "max" {
        ["rowMaxs", "colMaxs"]
    } else {
        ["rowMins", "colMins"]
    };
    let inner = match x {
        Transpose(x) => (**x).clone(),
        Func { name: f, args }
            if args.len() == 1 && (f == "rev" || partial.contains(&f.as_str())) =>
        {
            args[0].clone()
        }
        _ => return None,
    };
    Some(func(name, vec![inner]))
}

type Rule = dyn Fn(&LaExpr, &ShapeEnv) -> Option<LaExpr>;

fn simplify_at(e: &LaExpr, env: &ShapeEnv, rounds: &mut usize, rule: &Rule) -> LaExpr {
    let mut node = map_children(e, &mut |c| simplify_at(c, env, rounds, rule));
    for _ in 0..MAX_ROUNDS {
        match rule(&node, env) {
            Some(next) if *rounds < MAX_ROUNDS * 64 => {
                *rounds += 1;
                // The new node's children may now match rules of their own.
                node = map_children(&next, &mut |c| simplify_at(c, env, rounds, rule));
            }
            _ => break,
        }
    }
    node
}

/// The rules of [`rewrite_for_plans`]: a subset of [`rewrite`]'s.
fn rewrite_paying(e: &LaExpr, env: &ShapeEnv) -> Option<LaExpr> {
    use LaExpr::*;
    let shape = |x: &LaExpr| env.shape_of(x).ok();
    // `diag(v)` of a column `v`: a diagonal matrix, which scales rows (columns) in a
    // product.
    let diagonal = |x: &LaExpr| match x {
        Func { name, args } if name == "diag" && args.len() == 1 => {
            let (r, c) = shape(&args[0])?;
            (c.is_one() && !r.is_one()).then(|| args[0].clone())
        }
        _ => None,
    };
    match e {
        Sum(x) | RowSums(x) | ColSums(x) if binder(x).is_some() || is_rev(x) => rewrite(e, env),
        // diag(v) %*% Y = v * Y, and X %*% diag(v) = X * t(v): a scaling, not a product.
        MatMul(x, y) if diagonal(x).is_some() => Some(Mul(b(diagonal(x)?), y.clone())),
        MatMul(x, y) if diagonal(y).is_some() => {
            Some(Mul(x.clone(), b(Transpose(b(diagonal(y)?)))))
        }
        // The diagonal of a product needs only its diagonal cells: trace(X %*% Y) is
        // sum(X * t(Y)) and diag(X %*% Y) is rowSums(X * t(Y)).
        Func { name, args } if (name == "trace" || name == "diag") && args.len() == 1 => {
            let MatMul(x, y) = &args[0] else {
                return None;
            };
            let (rows, cols) = shape(&args[0])?;
            if rows != cols || rows.is_one() {
                return None;
            }
            let cells = Mul(x.clone(), b(Transpose(y.clone())));
            Some(if name == "trace" {
                Sum(b(cells))
            } else {
                RowSums(b(cells))
            })
        }
        MatMul(x, y) => match (binder(x), binder(y)) {
            (Some(("cbind", [a, _])), Some(("rbind", [c, _])))
                if shape(a).map(|s| s.1) == shape(c).map(|s| s.0) =>
            {
                rewrite(e, env)
            }
            _ => None,
        },
        Func { name, args } => match (name.as_str(), args.as_slice()) {
            ("max" | "rowMaxs" | "colMaxs", [x]) if !is_quotient(x) => {
                rewrite(e, env).filter(|r| !is_larger_of_two_scalings(r))
            }
            (INDEX, [_, _, _, _, _]) => rewrite(e, env),
            ("rev", [x]) if is_rev(x) => rewrite(e, env),
            _ => None,
        },
        _ => None,
    }
}

pub(super) fn map_children(e: &LaExpr, f: &mut dyn FnMut(&LaExpr) -> LaExpr) -> LaExpr {
    use LaExpr::*;
    let mut g = |x: &LaExpr| Box::new(f(x));
    match e {
        Var(_) | Const(_) => e.clone(),
        Add(a, b) => Add(g(a), g(b)),
        Sub(a, b) => Sub(g(a), g(b)),
        Mul(a, b) => Mul(g(a), g(b)),
        MatMul(a, b) => MatMul(g(a), g(b)),
        Transpose(a) => Transpose(g(a)),
        Neg(a) => Neg(g(a)),
        Sum(a) => Sum(g(a)),
        RowSums(a) => RowSums(g(a)),
        ColSums(a) => ColSums(g(a)),
        Pow(a, k) => Pow(g(a), *k),
        Fill(v, r, c) => Fill(g(v), r.clone(), c.clone()),
        Func { name, args } => Func {
            name: name.clone(),
            args: args.iter().map(f).collect(),
        },
    }
}

fn func(name: &str, args: Vec<LaExpr>) -> LaExpr {
    LaExpr::Func {
        name: name.to_string(),
        args,
    }
}

fn b(e: LaExpr) -> Box<LaExpr> {
    Box::new(e)
}

fn neg(e: LaExpr) -> LaExpr {
    LaExpr::Neg(b(e))
}

/// A constant bound of an index: `None` for an empty position (`0`), else the number.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Range {
    All,
    Span(usize, usize),
}

impl Range {
    fn of(lo: &LaExpr, hi: &LaExpr) -> Option<Range> {
        match (lo, hi) {
            (LaExpr::Const(a), LaExpr::Const(b)) if *a == 0.0 && *b == 0.0 => Some(Range::All),
            (LaExpr::Const(a), LaExpr::Const(b))
                if *a >= 1.0 && *b >= *a && a.fract() == 0.0 && b.fract() == 0.0 =>
            {
                Some(Range::Span(*a as usize, *b as usize))
            }
            _ => None,
        }
    }

    fn bounds(self) -> [LaExpr; 2] {
        match self {
            Range::All => [LaExpr::Const(0.0), LaExpr::Const(0.0)],
            Range::Span(a, b) => [LaExpr::Const(a as f64), LaExpr::Const(b as f64)],
        }
    }

    /// `All` for a span that covers all of a dimension of size `size`.
    fn tidy(self, size: &Dim) -> Range {
        match (self, size) {
            (Range::Span(1, b), Dim::Known(n)) if b == *n => Range::All,
            _ => self,
        }
    }

    /// `self` taken within `outer`.
    fn within(self, outer: Range) -> Range {
        match (outer, self) {
            (Range::All, r) => r,
            (o, Range::All) => o,
            (Range::Span(a, _), Range::Span(c, d)) => Range::Span(a + c - 1, a + d - 1),
        }
    }

    /// The range an operand broadcast along this side reads: all of it when it has size 1.
    fn for_operand(self, operand_size: &Dim) -> Range {
        if operand_size.is_one() {
            Range::All
        } else {
            self
        }
    }
}

fn index(x: LaExpr, rows: Range, cols: Range) -> LaExpr {
    let [rl, ru] = rows.bounds();
    let [cl, cu] = cols.bounds();
    func(INDEX, vec![x, rl, ru, cl, cu])
}

fn is_one_by_one(s: &Shape) -> bool {
    s.0.is_one() && s.1.is_one()
}

/// One rewrite at the top of `e`, if a rule applies.
fn rewrite(e: &LaExpr, env: &ShapeEnv) -> Option<LaExpr> {
    use LaExpr::*;
    let shape = |x: &LaExpr| env.shape_of(x).ok();
    let scalar = |x: &LaExpr| shape(x).is_some_and(|s| is_one_by_one(&s));
    match e {
        // An aggregate along a dimension of size 1 is its argument.
        RowSums(x) if shape(x).is_some_and(|s| s.1.is_one()) => Some((**x).clone()),
        ColSums(x) if shape(x).is_some_and(|s| s.0.is_one()) => Some((**x).clone()),
        Sum(x) if scalar(x) => Some((**x).clone()),
        // `1 + 2 + ... + n = n (n + 1) / 2`.
        Sum(x) if env.counting_length(x).is_some() => {
            let n = ShapeEnv::size_expr(&env.counting_length(x)?);
            let next = Add(b(n.clone()), b(Const(1.0)));
            Some(Mul(b(Mul(b(n), b(next))), b(Const(0.5))))
        }
        Sum(x) => match x.as_ref() {
            // A shifted count (`seq(k + 1, m)` is `k + seq(1, m - k)`) sums term by term,
            // a scalar once per cell.
            Add(p, q) | Sub(p, q) if counted(p, env) || counted(q, env) => {
                let (sp, sq) = (shape(p)?, shape(q)?);
                let whole = |z: &LaExpr, other: &Shape, own: &Shape| {
                    if is_one_by_one(own) && !is_one_by_one(other) {
                        Sum(b(Fill(b(z.clone()), other.0.clone(), other.1.clone())))
                    } else {
                        Sum(b(z.clone()))
                    }
                };
                if sp != sq && !is_one_by_one(&sp) && !is_one_by_one(&sq) {
                    return None;
                }
                let (a, c) = (whole(p, &sq, &sp), whole(q, &sp, &sq));
                Some(match x.as_ref() {
                    Add(..) => Add(b(a), b(c)),
                    _ => Sub(b(a), b(c)),
                })
            }
            // A scaled count: the scale comes out.
            Mul(p, q) if counted(x, env) => {
                let (scale, count) = if scalar(p) { (p, q) } else { (q, p) };
                Some(Mul(scale.clone(), b(Sum(count.clone()))))
            }
            Func { name, args } if (name == "cbind" || name == "rbind") && args.len() == 2 => {
                Some(Add(b(Sum(b(args[0].clone()))), b(Sum(b(args[1].clone())))))
            }
            Func { name, args } if name == "rev" && args.len() == 1 => {
                Some(Sum(b(args[0].clone())))
            }
            // A scalar divisor comes out of a sum, as a factor does: equal where the
            // divisor is not 0 (where it may be, the sides' NaN cells are compared apart).
            Func { name, args } if name == "/" && args.len() == 2 && scalar(&args[1]) => {
                (!scalar(&args[0]))
                    .then(|| func("/", vec![Sum(b(args[0].clone())), args[1].clone()]))
            }
            // So does the scalar divisor of a factor: `sum((u / a) * (v / b))` is
            // `sum(u * v) / a / b` (cosine similarity).
            Mul(p, q) | Mul(q, p)
                if !scalar(q)
                    && matches!(p.as_ref(), Func { name, args } if name == "/"
                        && args.len() == 2 && scalar(&args[1]) && !scalar(&args[0])) =>
            {
                let Func { args, .. } = p.as_ref() else {
                    return None;
                };
                Some(func(
                    "/",
                    vec![Sum(b(Mul(b(args[0].clone()), q.clone()))), args[1].clone()],
                ))
            }
            // A scalar factor comes out of a sum (`sum(exp(X) * exp(-max(X)))`).
            Mul(p, q) if scalar(q) && !scalar(p) => Some(Mul(q.clone(), b(Sum(p.clone())))),
            Mul(q, p) if scalar(q) && !scalar(p) => Some(Mul(q.clone(), b(Sum(p.clone())))),
            // The sum of a running sum is the sum of its column sums, counts of rows.
            Func { name, args } if name == "cumsum" && args.len() == 1 => {
                Some(Sum(b(ColSums(x.clone()))))
            }
            _ => unrev(x, env)
                .map(|y| Sum(b(y)))
                .or_else(|| rev_to_greater(x).map(|y| Sum(b(y)))),
        },
        RowSums(x) => match x.as_ref() {
            // A factor constant along each row (a column) comes out of its sum.
            Mul(p, q) | Mul(q, p) if column_beside(q, p, env) => {
                Some(Mul(q.clone(), b(RowSums(p.clone()))))
            }
            // So does a divisor constant along each row: the rows of a softmax sum to 1.
            Func { name, args }
                if name == "/" && args.len() == 2 && column_beside(&args[1], &args[0], env) =>
            {
                Some(func(
                    "/",
                    vec![RowSums(b(args[0].clone())), args[1].clone()],
                ))
            }
            Func { name, args } if name == "cbind" && args.len() == 2 => Some(Add(
                b(RowSums(b(args[0].clone()))),
                b(RowSums(b(args[1].clone()))),
            )),
            Func { name, args } if name == "rbind" && args.len() == 2 => Some(func(
                "rbind",
                vec![RowSums(b(args[0].clone())), RowSums(b(args[1].clone()))],
            )),
            Func { name, args } if name == "rev" && args.len() == 1 => {
                Some(func("rev", vec![RowSums(b(args[0].clone()))]))
            }
            // Running sums of rows commute with sums across a row.
            Func { name, args } if name == "cumsum" && args.len() == 1 => {
                Some(func("cumsum", vec![RowSums(b(args[0].clone()))]))
            }
            // Reversed columns keep their row sums: rowSums(t(rev(z))) is t(colSums(z)).
            Transpose(z) if is_rev(z) => Some(Transpose(b(ColSums(z.clone())))),
            _ => split_slice(x, true),
        },
        ColSums(x) => match x.as_ref() {
            // A factor constant along each column (a row) comes out of its sum.
            Mul(p, q) | Mul(q, p)
                if column_beside(&Transpose(q.clone()), &Transpose(p.clone()), env) =>
            {
                Some(Mul(q.clone(), b(ColSums(p.clone()))))
            }
            Func { name, args }
                if name == "/"
                    && args.len() == 2
                    && column_beside(
                        &Transpose(b(args[1].clone())),
                        &Transpose(b(args[0].clone())),
                        env,
                    ) =>
            {
                Some(func(
                    "/",
                    vec![ColSums(b(args[0].clone())), args[1].clone()],
                ))
            }
            Func { name, args } if name == "rbind" && args.len() == 2 => Some(Add(
                b(ColSums(b(args[0].clone()))),
                b(ColSums(b(args[1].clone()))),
            )),
            Func { name, args } if name == "cbind" && args.len() == 2 => Some(func(
                "cbind",
                vec![ColSums(b(args[0].clone())), ColSums(b(args[1].clone()))],
            )),
            Func { name, args } if name == "rev" && args.len() == 1 => {
                Some(ColSums(b(args[0].clone())))
            }
            // Over symbolic rows, row i of y is in rows i..n of its running sum: n + 1 - i
            // times; row i of rev(z) is row n + 1 - i of z.
            Func { name, args } if name == "cumsum" && args.len() == 1 => {
                let n = shape(&args[0])?.0;
                if !matches!(n, Dim::Sym(_)) {
                    return None;
                }
                let count = ShapeEnv::counting(&n);
                let (weights, y) = match &args[0] {
                    Func { name, args: inner } if name == "rev" && inner.len() == 1 => {
                        (count, inner[0].clone())
                    }
                    y => {
                        let last = Add(b(ShapeEnv::size_expr(&n)), b(Const(1.0)));
                        (Sub(b(last), b(count)), y.clone())
                    }
                };
                Some(MatMul(b(Transpose(b(weights))), b(y)))
            }
            _ => unrev(x, env)
                .map(|y| ColSums(b(y)))
                .or_else(|| rev_to_greater(x).map(|y| ColSums(b(y))))
                .or_else(|| split_slice(x, false)),
        },
        Transpose(x) => match x.as_ref() {
            Func { name, args } if (name == "cbind" || name == "rbind") && args.len() == 2 => {
                let other = if name == "cbind" { "rbind" } else { "cbind" };
                Some(func(
                    other,
                    vec![Transpose(b(args[0].clone())), Transpose(b(args[1].clone()))],
                ))
            }
            _ => None,
        },
        // A row times a column of one value is that value times the row's sum (and the
        // other way round).
        MatMul(x, y)
            if matches!(y.as_ref(), Fill(_, _, c) if c.is_one())
                && shape(x).is_some_and(|s| s.0.is_one()) =>
        {
            let Fill(v, _, _) = y.as_ref() else {
                return None;
            };
            let row = match x.as_ref() {
                Transpose(c) => (**c).clone(),
                _ => (**x).clone(),
            };
            Some(Mul(v.clone(), b(Sum(b(row)))))
        }
        MatMul(x, y)
            if matches!(x.as_ref(), Fill(_, r, _) if r.is_one())
                && shape(y).is_some_and(|s| s.1.is_one()) =>
        {
            let Fill(v, _, _) = x.as_ref() else {
                return None;
            };
            Some(Mul(v.clone(), b(Sum(y.clone()))))
        }
        // An inner product over rows does not see their order: t(rev(a)) %*% y is
        // t(a) %*% rev(y).
        MatMul(x, y) if matches!(x.as_ref(), Transpose(a) if is_rev(a)) => {
            let Transpose(a) = x.as_ref() else {
                return None;
            };
            let Func { args, .. } = a.as_ref() else {
                return None;
            };
            Some(MatMul(
                b(Transpose(b(args[0].clone()))),
                b(func("rev", vec![(**y).clone()])),
            ))
        }
        MatMul(x, y) => {
            let (bx, by) = (binder(x), binder(y));
            match (bx, by) {
                // cbind(a, b) %*% rbind(c, d) = a %*% c + b %*% d when the blocks line up.
                (Some(("cbind", [a, p])), Some(("rbind", [c, d])))
                    if shape(a).map(|s| s.1) == shape(c).map(|s| s.0) =>
                {
                    Some(Add(
                        b(MatMul(b(a.clone()), b(c.clone()))),
                        b(MatMul(b(p.clone()), b(d.clone()))),
                    ))
                }
                (Some(("rbind", [a, p])), _) => Some(func(
                    "rbind",
                    vec![
                        MatMul(b(a.clone()), y.clone()),
                        MatMul(b(p.clone()), y.clone()),
                    ],
                )),
                (_, Some(("cbind", [c, d]))) => Some(func(
                    "cbind",
                    vec![
                        MatMul(x.clone(), b(c.clone())),
                        MatMul(x.clone(), b(d.clone())),
                    ],
                )),
                // cbind(a, p) %*% Y = a %*% Y[rows of a] + p %*% Y[the rest].
                (Some(("cbind", [a, p])), _) => {
                    let (Dim::Known(k), Dim::Known(n)) = (shape(a)?.1, shape(y)?.0) else {
                        return None;
                    };
                    Some(Add(
                        b(MatMul(
                            b(a.clone()),
                            b(index(*y.clone(), Range::Span(1, k), Range::All)),
                        )),
                        b(MatMul(
                            b(p.clone()),
                            b(index(*y.clone(), Range::Span(k + 1, n), Range::All)),
                        )),
                    ))
                }
                // X %*% rbind(c, d) = X[, columns of c] %*% c + X[, the rest] %*% d.
                (_, Some(("rbind", [c, d]))) => {
                    let (Dim::Known(k), Dim::Known(n)) = (shape(c)?.0, shape(x)?.1) else {
                        return None;
                    };
                    Some(Add(
                        b(MatMul(
                            b(index(*x.clone(), Range::All, Range::Span(1, k))),
                            b(c.clone()),
                        )),
                        b(MatMul(
                            b(index(*x.clone(), Range::All, Range::Span(k + 1, n))),
                            b(d.clone()),
                        )),
                    ))
                }
                _ => None,
            }
        }
        // sum(a) +- sum(b) = sum(a +- b) for a and b of one shape, and so for row and
        // column sums.
        Add(x, y) | Sub(x, y) if same_aggregate(x, y, env).is_some() => {
            let (wrap, a, c) = same_aggregate(x, y, env)?;
            let inner = match e {
                Add(..) => Add(b(a), b(c)),
                _ => Sub(b(a), b(c)),
            };
            Some(wrap(inner))
        }
        Add(..) | Sub(..) | Mul(..) => cellwise_through_binds(e, env),
        // A whole power of a quotient is the quotient of the powers.
        Pow(x, k)
            if *k >= 1.0
                && k.fract() == 0.0
                && matches!(x.as_ref(), Func { name, args } if name == "/" && args.len() == 2) =>
        {
            let Func { args, .. } = x.as_ref() else {
                return None;
            };
            Some(func(
                "/",
                vec![Pow(b(args[0].clone()), *k), Pow(b(args[1].clone()), *k)],
            ))
        }
        // A whole power of a product of quotients or roots is the product of the powers,
        // which the rules around see: `(x / sd(X))^2` is `x^2 / var(X)`.
        Pow(x, k)
            if *k >= 1.0
                && k.fract() == 0.0
                && matches!(x.as_ref(), Mul(p, q) if [p, q].iter().any(|f| is_quotient(f) || root_squared(f, env).is_some())) =>
        {
            let Mul(p, q) = x.as_ref() else {
                return None;
            };
            Some(Mul(b(Pow(p.clone(), *k)), b(Pow(q.clone(), *k))))
        }
        // An even power of a root is a power of its argument where that is never
        // negative (a NaN or an infinity stays itself): `sd(X)^2` is `var(X)`.
        Pow(x, k)
            if *k >= 2.0
                && k.fract() == 0.0
                && (*k as i64) % 2 == 0
                && root_squared(x, env).is_some() =>
        {
            let square = root_squared(x, env)?;
            Some(if *k == 2.0 {
                square
            } else {
                Pow(b(square), k / 2.0)
            })
        }
        Pow(x, k) => {
            let (name, [p, q]) = binder(x)?;
            Some(func(
                name,
                vec![Pow(b(p.clone()), *k), Pow(b(q.clone()), *k)],
            ))
        }
        Neg(x) => match (binder(x), x.as_ref()) {
            (Some((name, [p, q])), _) => Some(func(name, vec![neg(p.clone()), neg(q.clone())])),
            // Negation moves inside a transpose and a difference, where the aggregate
            // rules look for it.
            (_, Transpose(a)) => Some(Transpose(b(neg((**a).clone())))),
            (_, Neg(a)) => Some((**a).clone()),
            (_, Sub(p, q)) => Some(Sub(q.clone(), p.clone())),
            (_, Add(p, q)) => Some(Sub(b(neg((**p).clone())), q.clone())),
            _ => None,
        },
        // A quotient by a value that is never 0 is a product with its reciprocal, so that
        // `Y / t(colSums(P))` meets `t(1 / colSums(P)) * Y` (with `--positive P`).
        Func { name, args }
            if name == "/"
                && args.len() == 2
                && !matches!(args[0], Const(c) if c == 1.0)
                && sign_of(&args[1], env).is_some_and(Sign::nonzero) =>
        {
            Some(Mul(
                b(args[0].clone()),
                b(func("/", vec![Const(1.0), args[1].clone()])),
            ))
        }
        Func { name, args } => rewrite_func(e, name, args, env, &shape, &scalar),
        _ => None,
    }
}

/// Most rows (columns) [`unrolled`] writes out one by one.
const MAX_UNROLLED: usize = 16;

/// Most columns (rows) of a slice [`split_slice`] sums one by one.
const MAX_SPLIT: usize = 8;

/// `rowSums(x[r, a:b])` as `x[r, a] + ... + x[r, b]` (`across`), or `colSums(x[a:b, c])`
/// as the sum of its rows, for a few columns or rows.
fn split_slice(x: &LaExpr, across: bool) -> Option<LaExpr> {
    let LaExpr::Func { name, args } = x else {
        return None;
    };
    if name != INDEX || args.len() != 5 {
        return None;
    }
    let (rows, cols) = (
        Range::of(&args[1], &args[2])?,
        Range::of(&args[3], &args[4])?,
    );
    let Range::Span(a, z) = (if across { cols } else { rows }) else {
        return None;
    };
    if z - a + 1 > MAX_SPLIT || z == a {
        return None;
    }
    let part = |k: usize| {
        if across {
            index(args[0].clone(), rows, Range::Span(k, k))
        } else {
            index(args[0].clone(), Range::Span(k, k), cols)
        }
    };
    (a + 1..=z).try_fold(part(a), |acc, k| Some(LaExpr::Add(b(acc), b(part(k)))))
}

/// A sum of one kind (`sum`, `rowSums`, `colSums`) rebuilt around a new argument.
type Wrap = fn(LaExpr) -> LaExpr;

/// `(sum, a, c)` when `x` and `y` are the same kind of sum of `a` and `c` of one shape.
fn same_aggregate(x: &LaExpr, y: &LaExpr, env: &ShapeEnv) -> Option<(Wrap, LaExpr, LaExpr)> {
    use LaExpr::*;
    let (wrap, a, c): (Wrap, _, _) = match (x, y) {
        (Sum(a), Sum(c)) => (|z| Sum(b(z)), a, c),
        (RowSums(a), RowSums(c)) => (|z| RowSums(b(z)), a, c),
        (ColSums(a), ColSums(c)) => (|z| ColSums(b(z)), a, c),
        _ => return None,
    };
    let shape = env.shape_of(a).ok()?;
    (env.shape_of(c).ok()? == shape).then(|| (wrap, (**a).clone(), (**c).clone()))
}

/// A cellwise expression whose operands of more than one row are all `rev(...)`, with
/// the `rev`s removed: its reverse, for an aggregate that does not see the row order.
/// `rev(p) * q` as `p * rev(q)` when `q` is written after `p`: under a sum over the rows
/// (`sum`, `colSums`) reversing both factors' rows changes nothing, and reversing them
/// twice is the identity. The reversal settles on the factor written later, so both
/// spellings meet. `None` when nothing moves.
fn rev_to_greater(x: &LaExpr) -> Option<LaExpr> {
    use LaExpr::*;
    let Mul(p, q) = x else { return None };
    let inner = |z: &LaExpr| match z {
        Func { name, args } if name == "rev" && args.len() == 1 => Some(args[0].clone()),
        _ => None,
    };
    let rev = |z: LaExpr| func("rev", vec![z]);
    match (inner(p), inner(q)) {
        (Some(a), None) if q.to_string() > a.to_string() => Some(Mul(b(a), b(rev((**q).clone())))),
        (None, Some(c)) if p.to_string() > c.to_string() => Some(Mul(b(rev((**p).clone())), b(c))),
        _ => None,
    }
}

fn unrev(x: &LaExpr, env: &ShapeEnv) -> Option<LaExpr> {
    use LaExpr::*;
    fn strip(x: &LaExpr, env: &ShapeEnv, found: &mut bool) -> Option<LaExpr> {
        if env.shape_of(x).ok()?.0.is_one() {
            return Some(x.clone());
        }
        let mut go = |z: &LaExpr| strip(z, env, found).map(Box::new);
        Some(match x {
            Func { name, args } if name == "rev" && args.len() == 1 => {
                *found = true;
                args[0].clone()
            }
            Add(p, q) => Add(go(p)?, go(q)?),
            Sub(p, q) => Sub(go(p)?, go(q)?),
            Mul(p, q) => Mul(go(p)?, go(q)?),
            Neg(p) => Neg(go(p)?),
            Pow(p, k) => Pow(go(p)?, *k),
            Func { name, args } if crate::functions::is_elementwise(name, args.len()) => {
                let mut out = Vec::with_capacity(args.len());
                for a in args {
                    out.push(*go(a)?);
                }
                func(name, out)
            }
            _ => return None,
        })
    }
    // One linear look first: most sums hold no `rev`, and stripping asks shapes per node.
    let mut any = false;
    x.visit(&mut |n| any |= matches!(n, Func { name, .. } if name == "rev"));
    if !any {
        return None;
    }
    let mut found = false;
    let y = strip(x, env, &mut found)?;
    found.then_some(y)
}

/// `cbind(a, b)` or `rbind(a, b)` as its name and operands.
fn binder(e: &LaExpr) -> Option<(&'static str, &[LaExpr; 2])> {
    match e {
        LaExpr::Func { name, args } if name == "cbind" || name == "rbind" => {
            let pair: &[LaExpr; 2] = args.as_slice().try_into().ok()?;
            Some((if name == "cbind" { "cbind" } else { "rbind" }, pair))
        }
        _ => None,
    }
}

/// `op(cbind(a, b), cbind(c, d)) = cbind(op(a, c), op(b, d))` when the blocks line up,
/// and `op(cbind(a, b), s) = cbind(op(a, s), op(b, s))` for a scalar `s` (either side).
fn cellwise_through_binds(e: &LaExpr, env: &ShapeEnv) -> Option<LaExpr> {
    use LaExpr::*;
    let (x, y) = match e {
        Add(x, y) | Sub(x, y) | Mul(x, y) => (x.as_ref(), y.as_ref()),
        Func { name, args } if args.len() == 2 && crate::functions::is_elementwise(name, 2) => {
            (&args[0], &args[1])
        }
        _ => return None,
    };
    let rebuild = |p: LaExpr, q: LaExpr| match e {
        Add(..) => Add(b(p), b(q)),
        Sub(..) => Sub(b(p), b(q)),
        Mul(..) => Mul(b(p), b(q)),
        Func { name, .. } => func(name, vec![p, q]),
        _ => unreachable!("matched above"),
    };
    let shape = |z: &LaExpr| env.shape_of(z).ok();
    let scalar = |z: &LaExpr| shape(z).is_some_and(|s| is_one_by_one(&s));
    match (binder(x), binder(y)) {
        (Some((n1, [a, p])), Some((n2, [c, d]))) if n1 == n2 && shape(a) == shape(c) => Some(func(
            n1,
            vec![rebuild(a.clone(), c.clone()), rebuild(p.clone(), d.clone())],
        )),
        (Some((n, [a, p])), None) if scalar(y) => Some(func(
            n,
            vec![rebuild(a.clone(), y.clone()), rebuild(p.clone(), y.clone())],
        )),
        (None, Some((n, [c, d]))) if scalar(x) => Some(func(
            n,
            vec![rebuild(x.clone(), c.clone()), rebuild(x.clone(), d.clone())],
        )),
        // The other operand, of the same shape, is cut where the blocks meet.
        (Some((n, [a, p])), None) if shape(x) == shape(y) => {
            let (first, second) = blocks_of(y, n, a, env)?;
            Some(func(
                n,
                vec![rebuild(a.clone(), first), rebuild(p.clone(), second)],
            ))
        }
        (None, Some((n, [c, d]))) if shape(x) == shape(y) => {
            let (first, second) = blocks_of(x, n, c, env)?;
            Some(func(
                n,
                vec![rebuild(first, c.clone()), rebuild(second, d.clone())],
            ))
        }
        _ => None,
    }
}

/// `y` cut as `binder(first, second)` (`cbind` or `rbind`) is, with `first`'s known
/// extent: the two slices of `y`, each simplified.
pub(super) fn blocks_of(
    y: &LaExpr,
    binder: &str,
    first: &LaExpr,
    env: &ShapeEnv,
) -> Option<(LaExpr, LaExpr)> {
    let (rows, cols) = env.shape_of(y).ok()?;
    let (fr, fc) = env.shape_of(first).ok()?;
    let (Dim::Known(k), Dim::Known(n)) = (if binder == "cbind" {
        (fc, cols)
    } else {
        (fr, rows)
    }) else {
        return None;
    };
    if k == 0 || k >= n {
        return None;
    }
    let (head, tail) = (Range::Span(1, k), Range::Span(k + 1, n));
    let cut = |r: Range| {
        let sliced = if binder == "cbind" {
            index(y.clone(), Range::All, r)
        } else {
            index(y.clone(), r, Range::All)
        };
        simplify(&sliced, env)
    };
    Some((cut(head), cut(tail)))
}

fn rewrite_func(
    e: &LaExpr,
    name: &str,
    args: &[LaExpr],
    env: &ShapeEnv,
    shape: &dyn Fn(&LaExpr) -> Option<Shape>,
    scalar: &dyn Fn(&LaExpr) -> bool,
) -> Option<LaExpr> {
    use LaExpr::*;
    let one = |f: &str, x: LaExpr| func(f, vec![x]);
    match (name, args) {
        // min x = -max(-x), so one set of rules serves both.
        ("min", [x]) => Some(neg(one("max", neg(x.clone())))),
        ("rowMins", [x]) => Some(neg(one("rowMaxs", neg(x.clone())))),
        ("colMins", [x]) => Some(neg(one("colMaxs", neg(x.clone())))),
        ("max", [x]) => {
            if scalar(x) {
                return Some(x.clone());
            }
            aggregate_max(x, "max", &|s| is_one_by_one(s), shape, env)
        }
        ("rowMaxs", [x]) => {
            if shape(x)?.1.is_one() {
                return Some(x.clone());
            }
            // The largest of a row's cells is its largest.
            if shape(x)?.0.is_one() {
                return Some(one("max", x.clone()));
            }
            match x {
                Transpose(a) => return Some(Transpose(b(one("colMaxs", (**a).clone())))),
                // Side by side, each row's largest is the larger of the two blocks'.
                Func { name, args } if name == "cbind" && args.len() == 2 => {
                    let (p, q) = (
                        one("rowMaxs", args[0].clone()),
                        one("rowMaxs", args[1].clone()),
                    );
                    return Some(func("max", vec![p, q]));
                }
                Func { name, args } if name == "rbind" && args.len() == 2 => {
                    return Some(func(
                        "rbind",
                        vec![
                            one("rowMaxs", args[0].clone()),
                            one("rowMaxs", args[1].clone()),
                        ],
                    ))
                }
                Func { name, args } if name == "rev" && args.len() == 1 => {
                    return Some(one("rev", one("rowMaxs", args[0].clone())))
                }
                _ => {}
            }
            aggregate_max(x, "rowMaxs", &|s| s.1.is_one(), shape, env)
        }
        ("colMaxs", [x]) => {
            if shape(x)?.0.is_one() {
                return Some(x.clone());
            }
            if shape(x)?.1.is_one() {
                return Some(one("max", x.clone()));
            }
            match x {
                Transpose(a) => return Some(Transpose(b(one("rowMaxs", (**a).clone())))),
                Func { name, args } if name == "rbind" && args.len() == 2 => {
                    let (p, q) = (
                        one("colMaxs", args[0].clone()),
                        one("colMaxs", args[1].clone()),
                    );
                    return Some(func("max", vec![p, q]));
                }
                Func { name, args } if name == "cbind" && args.len() == 2 => {
                    return Some(func(
                        "cbind",
                        vec![
                            one("colMaxs", args[0].clone()),
                            one("colMaxs", args[1].clone()),
                        ],
                    ))
                }
                Func { name, args } if name == "rev" && args.len() == 1 => {
                    return Some(one("colMaxs", args[0].clone()))
                }
                _ => {}
            }
            aggregate_max(x, "colMaxs", &|s| s.0.is_one(), shape, env)
        }
        // `n, ..., 2, 1` is `n + 1` less `1, 2, ..., n`.
        ("rev", [x]) if env.counting_length(x).is_some() => {
            let n = ShapeEnv::size_expr(&env.counting_length(x)?);
            Some(Sub(b(Add(b(n), b(Const(1.0)))), b(x.clone())))
        }
        // Reversing the rows and reversing the columns (`t(rev(t(y)))`) commute: the row
        // reversal goes inside, so both orders meet.
        ("rev", [Transpose(inner)])
            if matches!(inner.as_ref(), Func { name, args } if name == "rev" && args.len() == 1
                && matches!(args[0], Transpose(_))) =>
        {
            let Func { args, .. } = inner.as_ref() else {
                return None;
            };
            let Transpose(y) = &args[0] else {
                return None;
            };
            Some(Transpose(b(func(
                "rev",
                vec![Transpose(b(one("rev", (**y).clone())))],
            ))))
        }
        ("rev", [x]) => rewrite_rev(x, env),
        // exp(x - s) = exp(x) exp(-s) for a term `s` broadcast along a side of `x` (a
        // scalar, a row or a column): its factor then comes out of the sums along that
        // side (`log(sum(exp(X - max(X)))) + max(X) = log(sum(exp(X)))`, softmax).
        ("exp", [Add(p, q) | Sub(p, q)]) => {
            let full = shape(&args[0])?;
            let broadcast = |z: &LaExpr| shape(z).is_some_and(|s| s != full);
            let negated = matches!(&args[0], Sub(..));
            let (wide, narrow, narrow_negated) = if broadcast(q) && !broadcast(p) {
                (p, q, negated)
            } else if broadcast(p) && !broadcast(q) {
                if negated {
                    return None;
                }
                (q, p, false)
            } else {
                return None;
            };
            let narrow = if narrow_negated {
                neg((**narrow).clone())
            } else {
                (**narrow).clone()
            };
            Some(Mul(b(one("exp", (**wide).clone())), b(one("exp", narrow))))
        }
        // A truth value (0 or 1, never NaN) is itself where it is not 0 or where it is 1:
        // `(y > 0) != 0` is `y > 0` (DML's `xor(a, b)` is `(a != 0) != (b != 0)`).
        ("!=", [c, Const(z)] | [Const(z), c]) if *z == 0.0 && is_truth(c) => Some(c.clone()),
        ("==", [c, Const(o)] | [Const(o), c]) if *o == 1.0 && is_truth(c) => Some(c.clone()),
        // Two values differ where they are not equal: `sum(a != b) == n - sum(a == b)`.
        ("!=", [x, y]) => Some(Sub(
            b(Const(1.0)),
            b(func("==", vec![x.clone(), y.clone()])),
        )),
        // A quotient by a product is a quotient by each factor in turn, whose reciprocals
        // the canonical form then sees apart.
        ("/", [x, Mul(p, q)]) => Some(func(
            "/",
            vec![func("/", vec![x.clone(), (**p).clone()]), (**q).clone()],
        )),
        // The root of a product of values never negative is the product of their roots.
        ("sqrt", [Mul(p, q)])
            if sign_of(p, env).is_some_and(Sign::not_negative)
                && sign_of(q, env).is_some_and(Sign::not_negative) =>
        {
            Some(Mul(
                b(one("sqrt", (**p).clone())),
                b(one("sqrt", (**q).clone())),
            ))
        }
        // The log of a root is half the log, wherever either is defined or not: NaN below
        // 0, `-Inf` at 0 (`-0` too) on both sides.
        (
            "log",
            [Func {
                name: root,
                args: y,
            }],
        ) if root == "sqrt" && y.len() == 1 => {
            Some(Mul(b(Const(0.5)), b(one("log", y[0].clone()))))
        }
        // A scaled difference is a difference of scaled terms, which the rule above
        // splits: softmax with a temperature, `exp((X - max(X)) / s)`.
        ("exp", [Mul(p, k) | Mul(k, p)])
            if matches!(p.as_ref(), Add(..) | Sub(..))
                && shape(k).is_some_and(|(r, c)| r.is_one() && c.is_one()) =>
        {
            let (Add(x, y) | Sub(x, y)) = p.as_ref() else {
                return None;
            };
            let (x, y) = (Mul(x.clone(), k.clone()), Mul(y.clone(), k.clone()));
            Some(one(
                "exp",
                match p.as_ref() {
                    Add(..) => Add(b(x), b(y)),
                    _ => Sub(b(x), b(y)),
                },
            ))
        }
        // A shift the same down each column (a scalar or a row) comes out of running
        // extremes, as of any extreme: `cummax(X + 3) == cummax(X) + 3`.
        ("cummax" | "cummin", [Add(p, q) | Sub(p, q)]) if same_down_columns(q, p, env) => {
            let shifted = one(name, (**p).clone());
            Some(match &args[0] {
                Add(..) => Add(b(shifted), q.clone()),
                _ => Sub(b(shifted), q.clone()),
            })
        }
        ("cummax" | "cummin", [Add(q, p)]) if same_down_columns(q, p, env) => {
            Some(Add(b(one(name, (**p).clone())), q.clone()))
        }
        // A running extreme of running extremes of the same kind is those.
        (
            "cummax" | "cummin",
            [Func {
                name: inner,
                args: once,
            }],
        ) if inner == name && once.len() == 1 => Some(args[0].clone()),
        // Running extremes commute with a larger or smaller of a constant, which never
        // decreases: `cummax(max(X, 0)) == max(cummax(X), 0)`.
        (
            "cummax" | "cummin",
            [Func {
                name: f,
                args: pair,
            }],
        ) if (f == "max" || f == "min") && pair.len() == 2 => {
            let (p, c) = if same_down_columns(&pair[1], &pair[0], env) {
                (&pair[0], &pair[1])
            } else if same_down_columns(&pair[0], &pair[1], env) {
                (&pair[1], &pair[0])
            } else {
                return None;
            };
            Some(func(f, vec![one(name, p.clone()), c.clone()]))
        }
        // A whole number comes out of `floor` and `ceil`: `floor(X + 1) == floor(X) + 1`.
        // (Not of `round`, which is Java's: 0 at NaN, saturating beyond 2^63.)
        ("floor" | "ceil" | "ceiling", [Add(p, k) | Sub(p, k)]) if is_whole_number(k) => {
            let rounded = b(one(name, (**p).clone()));
            Some(match &args[0] {
                Add(..) => Add(rounded, k.clone()),
                _ => Sub(rounded, k.clone()),
            })
        }
        ("floor" | "ceil" | "ceiling", [Add(k, p) | Sub(k, p)]) if is_whole_number(k) => {
            let p = match &args[0] {
                Add(..) => (**p).clone(),
                _ => neg((**p).clone()),
            };
            Some(Add(k.clone(), b(one(name, p))))
        }
        // c - p is largest where p is smallest: `cummin(3 - X) == 3 - cummax(X)`.
        ("cummax" | "cummin", [Sub(q, p)]) if same_down_columns(q, p, env) => {
            let other = if name == "cummax" { "cummin" } else { "cummax" };
            Some(Sub(q.clone(), b(one(other, (**p).clone()))))
        }
        // Running extremes of a scaled column: a positive factor comes out, a negative
        // one turns the running largest into the running smallest.
        ("cummax" | "cummin", [x]) => {
            let other = if name == "cummax" { "cummin" } else { "cummax" };
            let (k, p) = match x {
                Neg(p) => (-1.0, (**p).clone()),
                _ => constant_factor(x)?,
            };
            if k > 0.0 {
                Some(Mul(b(Const(k)), b(one(name, p))))
            } else if k < 0.0 {
                Some(Mul(b(Const(k)), b(one(other, p))))
            } else {
                None
            }
        }
        ("cumsum", [x]) => rewrite_cumsum(x, env),
        (INDEX, [x, rl, ru, cl, cu]) => {
            // Known positions first; then as sizes, which also reach a dimension that has
            // no number (`rev(A)[1, ]` is `A[nrow(A), ]`).
            if let (Some(rows), Some(cols)) = (Range::of(rl, ru), Range::of(cl, cu)) {
                if let Some(done) = rewrite_index(e, x, rows, cols, env) {
                    return Some(done);
                }
            }
            symbolic_index(x, [rl, ru, cl, cu], env)
        }
        // The diagonal of a cellwise function of square matrices is the function of their
        // diagonals: `diag(abs(X)) == abs(diag(X))`; a broadcast column is its own diagonal.
        (
            "diag",
            [Func {
                name: f,
                args: inner,
            }],
        ) if crate::functions::is_elementwise(f, inner.len())
            || (f == "ifelse" && inner.len() == 3) =>
        {
            let (rows, cols) = env.shape_of(&args[0]).ok()?;
            if rows != cols || rows.is_one() {
                return None;
            }
            let diagonals = inner
                .iter()
                .map(|a| {
                    let (r, c) = env.shape_of(a).ok()?;
                    Some(match (r.is_one(), c.is_one()) {
                        (true, true) => a.clone(),
                        (false, true) => a.clone(),
                        (true, false) => Transpose(b(a.clone())),
                        (false, false) => one("diag", a.clone()),
                    })
                })
                .collect::<Option<Vec<_>>>()?;
            Some(func(f, diagonals))
        }
        // A cellwise function of blocks is the blocks of its values.
        (f, [x]) if crate::functions::is_elementwise(f, 1) => {
            let (bind, [p, q]) = binder(x)?;
            Some(func(bind, vec![one(f, p.clone()), one(f, q.clone())]))
        }
        _ => cellwise_through_binds(e, env),
    }
}

/// `e` with its running extremes (`cummax`, `cummin`) and row and column extremes
/// (`rowMaxs`, `colMins`, ...) of a few known rows or columns written out as cellwise
/// `max`/`min` of single rows or columns, then simplified; `None` when it has none. The
/// piecewise decision then sees every cell they compare.
pub(crate) fn unrolled(e: &LaExpr, env: &ShapeEnv) -> Option<LaExpr> {
    let mut out: Option<LaExpr> = None;
    // Simplifying may bring out more to write out (`colMaxs(cumsum(x))` becomes maxima
    // of column sums of slices).
    for _ in 0..3 {
        let mut rounds = 0;
        let next = simplify_at(out.as_ref().unwrap_or(e), env, &mut rounds, &unroll);
        if rounds == 0 {
            break;
        }
        out = Some(simplify(&next, env));
    }
    out
}

fn unroll(e: &LaExpr, env: &ShapeEnv) -> Option<LaExpr> {
    use LaExpr::*;
    // Row and column sums and means too, so that their cells are sums of the same
    // single columns (rows) the extremes compare.
    let (name, x) = match e {
        RowSums(x) => ("rowSums", x.as_ref()),
        ColSums(x) => ("colSums", x.as_ref()),
        Sum(x) => ("sum", x.as_ref()),
        Func { name, args } if args.len() == 1 => (name.as_str(), &args[0]),
        _ => return None,
    };
    let (rows, cols) = env.shape_of(x).ok()?;
    // The sum (product) of all cells is the sum (product) of the rows' sums (products),
    // each written out where the sizes are known and small.
    let known = |d: &Dim| matches!(d, Dim::Known(n) if (2..=MAX_UNROLLED).contains(n));
    match name {
        // Still a DML scalar, whose negation may be `-0` (a `1 x 1` matrix's is `+0`).
        "sum" if known(&rows) && known(&cols) => {
            return Some(func("as.scalar", vec![ColSums(b(RowSums(b(x.clone()))))]))
        }
        "sum" if known(&rows) && cols.is_one() => {
            return Some(func("as.scalar", vec![ColSums(b(x.clone()))]))
        }
        "sum" if known(&cols) && rows.is_one() => {
            return Some(func("as.scalar", vec![RowSums(b(x.clone()))]))
        }
        "prod" if !rows.is_one() && !cols.is_one() => {
            let cells = func("colProds", vec![func("rowProds", vec![x.clone()])]);
            return Some(func("as.scalar", vec![cells]));
        }
        _ => {}
    }
    let (cell, along_rows, running) = match name {
        "rowSums" | "rowMeans" => ("+", false, false),
        "colSums" | "colMeans" => ("+", true, false),
        "rowProds" => ("*", false, false),
        "colProds" => ("*", true, false),
        // A vector's product: along its one side longer than 1.
        "prod" => ("*", cols == Dim::Known(1), false),
        "cumprod" => ("*", true, true),
        "cumsum" => ("+", true, true),
        "cummax" => ("max", true, true),
        "cummin" => ("min", true, true),
        "colMaxs" => ("max", true, false),
        "colMins" => ("min", true, false),
        "rowMaxs" => ("max", false, false),
        "rowMins" => ("min", false, false),
        _ => return None,
    };
    let Dim::Known(n) = (if along_rows { rows } else { cols }) else {
        return None;
    };
    if !(2..=MAX_UNROLLED).contains(&n) {
        return None;
    }
    let part = |k: usize| {
        if along_rows {
            index(x.clone(), Range::Span(k, k), Range::All)
        } else {
            index(x.clone(), Range::All, Range::Span(k, k))
        }
    };
    let combine = |a: LaExpr, b: LaExpr| match cell {
        "+" => Add(Box::new(a), Box::new(b)),
        "*" => Mul(Box::new(a), Box::new(b)),
        _ => func(cell, vec![a, b]),
    };
    let mut extreme = part(1);
    let mut out = extreme.clone();
    for k in 2..=n {
        extreme = combine(extreme, part(k));
        if running {
            out = func("rbind", vec![out, extreme.clone()]);
        }
    }
    Some(match name {
        _ if running => out,
        "rowMeans" | "colMeans" => func("/", vec![extreme, Const(n as f64)]),
        _ => extreme,
    })
}

/// An aggregate `agg` (`max`, `rowMaxs`, `colMaxs`) of `x`, pushed through what it sees
/// through: a term constant along what it aggregates (`kept(shape)`: a scalar for `max`,
/// a column for `rowMaxs`, a row for `colMaxs`) added or subtracted, a constant factor,
/// a transpose or `rev` for the full aggregate, an increasing function, and `max` of two
/// matrices or of blocks.
fn aggregate_max(
    x: &LaExpr,
    agg: &str,
    kept: &dyn Fn(&Shape) -> bool,
    shape: &dyn Fn(&LaExpr) -> Option<Shape>,
    env: &ShapeEnv,
) -> Option<LaExpr> {
    use LaExpr::*;
    let of = |x: &LaExpr| func(agg, vec![x.clone()]);
    let constant_along = |x: &LaExpr| shape(x).is_some_and(|s| kept(&s));
    let full = agg == "max";
    // A diagonal matrix of a column (two rows or more) holds zeros beside each cell.
    let diagonal_of = |z: &LaExpr| match z {
        Func { name, args } if name == "diag" && args.len() == 1 => shape(&args[0])
            .filter(|(r, c)| c.is_one() && !r.is_one())
            .map(|_| args[0].clone()),
        _ => None,
    };
    let (diagonal, negated) = match x {
        Neg(z) => (diagonal_of(z), true),
        z => (diagonal_of(z), false),
    };
    if let Some(v) = diagonal {
        let v = if negated { neg(v) } else { v };
        let cells = match agg {
            "max" => of(&v),
            "rowMaxs" => v,
            _ => Transpose(b(v)),
        };
        return Some(func("max", vec![cells, Const(0.0)]));
    }
    match x {
        // A positive factor constant along the aggregate (a declared positive scalar)
        // scales every cell it compares alike.
        Mul(p, c) | Mul(c, p)
            if constant_along(c)
                && !constant_along(p)
                && sign_of(c, env) == Some(Sign::Positive) =>
        {
            Some(Mul(c.clone(), b(of(p))))
        }
        // A factor of either sign scales the largest cell or the smallest, whichever gives
        // more: `max(s * X) == max(s * max(X), s * min(X))`. Not for plans
        // ([`rewrite_paying`]): two aggregates where one sufficed.
        _ if scaled_by_either_sign(x, &constant_along, env).is_some() => {
            let (p, c) = scaled_by_either_sign(x, &constant_along, env)?;
            let largest = Mul(b(c.clone()), b(of(&p)));
            let smallest = Mul(b(c.clone()), b(neg(of(&neg(p)))));
            Some(if sign_of(&c, env) == Some(Sign::Negative) {
                smallest
            } else {
                func("max", vec![largest, smallest])
            })
        }
        // So does a divisor that is not negative (over the reals it is not 0 where the
        // quotient is a number): `max(X / max(abs(X))) == max(X) / max(abs(X))`. Not for
        // plans ([`rewrite_paying`]): where the divisor is 0 the two differ.
        Func { name, args }
            if name == "/"
                && args.len() == 2
                && constant_along(&args[1])
                && !constant_along(&args[0])
                && sign_of(&args[1], env).is_some_and(|s| s.not_negative()) =>
        {
            Some(func("/", vec![of(&args[0]), args[1].clone()]))
        }
        Add(p, c) if constant_along(c) && !constant_along(p) => Some(Add(b(of(p)), c.clone())),
        Add(c, p) if constant_along(c) && !constant_along(p) => Some(Add(c.clone(), b(of(p)))),
        Sub(p, c) if constant_along(c) && !constant_along(p) => Some(Sub(b(of(p)), c.clone())),
        // c - p is largest where p is smallest: c + max(-p).
        Sub(c, p) if constant_along(c) && !constant_along(p) => {
            Some(Add(c.clone(), b(of(&neg((**p).clone())))))
        }
        _ if constant_factor(x).is_some() => {
            let (k, p) = constant_factor(x)?;
            scaled_max(k, &p, &of)
        }
        // max(p - c) for a column c: each row's largest first, max(rowMaxs(p) - c); for a
        // row, the columns' largest.
        Add(p, c) | Sub(p, c) if full && vector_along(x, c, shape).is_some() => {
            let inner = func(vector_along(x, c, shape)?, vec![(**p).clone()]);
            Some(of(&match x {
                Add(..) => Add(b(inner), c.clone()),
                _ => Sub(b(inner), c.clone()),
            }))
        }
        Add(c, p) if full && vector_along(x, c, shape).is_some() => {
            let inner = func(vector_along(x, c, shape)?, vec![(**p).clone()]);
            Some(of(&Add(c.clone(), b(inner))))
        }
        Sub(c, p) if full && vector_along(x, c, shape).is_some() => {
            let inner = func(vector_along(x, c, shape)?, vec![neg((**p).clone())]);
            Some(of(&Add(c.clone(), b(inner))))
        }
        Transpose(a) if full => Some(of(a)),
        // The largest cell of a column plus a row (an outer sum) is the sum of their
        // largest cells.
        Add(p, q) | Sub(p, q) if full && outer_pair(p, q, shape) => Some(match x {
            Add(..) => Add(b(of(p)), b(of(q))),
            _ => Add(b(of(p)), b(of(&neg((**q).clone())))),
        }),
        // abs(p) = max(p, -p), whose every cell the aggregate sees.
        Func { name, args } if full && name == "abs" && args.len() == 1 => {
            Some(func("max", vec![of(&args[0]), of(&neg(args[0].clone()))]))
        }
        // An increasing function's largest value is its value at the largest argument, and
        // the largest of its negation is its negation at the smallest.
        Func { name, args } if increasing_at(name, args, env) => {
            Some(func(name, vec![of(&args[0])]))
        }
        Neg(inner) => match inner.as_ref() {
            // The smallest log or root is that of the smallest argument for every input:
            // a negative cell makes both NaN (the kernels' extremes are NaN where a cell
            // is), a zero both -Inf (log) or 0 (sqrt).
            Func { name, args }
                if increasing_at(name, args, env)
                    || (matches!(name.as_str(), "log" | "sqrt") && args.len() == 1) =>
            {
                Some(neg(func(name, vec![neg(of(&neg(args[0].clone())))])))
            }
            // -min(p, q) is max(-p, -q), and -max(p, q) is min(-p, -q), which the rules
            // above see through.
            Func { name, args } if args.len() == 2 && (name == "max" || name == "min") => {
                let other = if name == "max" { "min" } else { "max" };
                Some(of(&func(
                    other,
                    vec![neg(args[0].clone()), neg(args[1].clone())],
                )))
            }
            // The largest of -(p c) for a positive c is c times the largest of -p.
            Mul(p, c) | Mul(c, p)
                if constant_along(c)
                    && !constant_along(p)
                    && sign_of(c, env) == Some(Sign::Positive) =>
            {
                Some(Mul(c.clone(), b(of(&neg((**p).clone())))))
            }
            _ => None,
        },
        Func { name, args } if full && args.len() == 1 => match name.as_str() {
            "rev" | "rowMaxs" | "colMaxs" => Some(of(&args[0])),
            _ => None,
        },
        // The larger or smaller of each cell and a term constant along the aggregate (a
        // scalar, or a column for `rowMaxs`) is that of the aggregate, as `max(., c)` and
        // `min(., c)` never decrease: `rowMaxs(min(X, s)) == min(rowMaxs(X), s)`.
        Func { name, args }
            if args.len() == 2
                && (name == "max" || name == "min")
                && constant_along(&args[0]) != constant_along(&args[1]) =>
        {
            let (p, c) = if constant_along(&args[1]) {
                (&args[0], &args[1])
            } else {
                (&args[1], &args[0])
            };
            Some(func(name, vec![of(p), c.clone()]))
        }
        // Every cell of each operand of a broadcast max (or of a block) is seen.
        Func { name, args }
            if args.len() == 2
                && (name == "max" || (full && (name == "cbind" || name == "rbind"))) =>
        {
            // Row or column aggregates of a broadcast max only split when neither operand
            // is broadcast along the aggregate.
            if !full
                && name == "max"
                && !(shape(&args[0]) == shape(x) && shape(&args[1]) == shape(x))
            {
                return None;
            }
            Some(func("max", vec![of(&args[0]), of(&args[1])]))
        }
        Fill(v, _, _) if full => Some((**v).clone()),
        _ => None,
    }
}

/// Whether `name(args)` is a one-argument function increasing on every value its argument
/// takes: `exp` and `sigmoid` everywhere, `log` and `sqrt` on an argument never negative
/// (elsewhere they are NaN, which no extreme of the argument predicts).
fn increasing_at(name: &str, args: &[LaExpr], env: &ShapeEnv) -> bool {
    match (name, args) {
        ("exp" | "sigmoid", [_]) => true,
        ("log" | "sqrt", [x]) => sign_of(x, env).is_some_and(Sign::not_negative),
        _ => false,
    }
}

/// What is known of the sign of every cell of a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Sign {
    Positive,
    NotNegative,
    Negative,
    NotPositive,
}

impl Sign {
    fn negated(self) -> Sign {
        match self {
            Sign::Positive => Sign::Negative,
            Sign::NotNegative => Sign::NotPositive,
            Sign::Negative => Sign::Positive,
            Sign::NotPositive => Sign::NotNegative,
        }
    }

    /// Whether the value is never negative.
    pub(super) fn not_negative(self) -> bool {
        matches!(self, Sign::Positive | Sign::NotNegative)
    }

    /// Whether the value is never zero.
    pub(super) fn nonzero(self) -> bool {
        matches!(self, Sign::Positive | Sign::Negative)
    }
}

/// The sign every cell of `e` has for all inputs, from inputs declared positive
/// (`ShapeEnv::positive`), positive constants, and the functions and operators that keep
/// or make a sign (`exp`, `abs`, even powers, sums and products of such); `None` when
/// nothing is known. A number made of sizes alone is positive where its canonical form
/// is a polynomial in the sizes positive for all of them (`nrow(X) * ncol(X) - 1`, and
/// `2 / (length(X) - 1)`, whose form is `2·(m·n - 1)` over a never-0 polynomial).
pub(super) fn sign_of(e: &LaExpr, env: &ShapeEnv) -> Option<Sign> {
    sign_of_parts(e, env).or_else(|| sign_of_size(e, env))
}

/// The sign of `e` when it is a number of sizes alone whose canonical form is a
/// polynomial in the sizes positive (or negative) for all of them, or such a polynomial
/// over a product of sizes' positive polynomials.
fn sign_of_size(e: &LaExpr, env: &ShapeEnv) -> Option<Sign> {
    if !e.vars().is_empty() || matches!(e, LaExpr::Const(_)) {
        return None;
    }
    let mut norm = super::normal::Normalizer::new(env);
    let p = norm.top(e).ok()?;
    let [t] = p.terms.as_slice() else {
        return None;
    };
    if !t.bound.is_empty() || t.atoms.iter().any(|a| norm.size_divisor(a).is_none()) {
        return None;
    }
    if t.coef.positive_from_two() {
        Some(Sign::Positive)
    } else if t.coef.scale(-1.0).positive_from_two() {
        Some(Sign::Negative)
    } else {
        None
    }
}

fn sign_of_parts(e: &LaExpr, env: &ShapeEnv) -> Option<Sign> {
    use LaExpr::*;
    use Sign::*;
    // The sign of a product (or quotient) from its factors'.
    let product = |p: &LaExpr, q: &LaExpr| {
        let (a, c) = (sign_of(p, env)?, sign_of(q, env)?);
        let strict = a.nonzero() && c.nonzero();
        let positive = a.not_negative() == c.not_negative();
        Some(match (strict, positive) {
            (true, true) => Positive,
            (true, false) => Negative,
            (false, true) => NotNegative,
            (false, false) => NotPositive,
        })
    };
    // The sign of a sum from its terms': both of one direction.
    let sum = |a: Sign, c: Sign| {
        if a.not_negative() && c.not_negative() {
            Some(if a.nonzero() || c.nonzero() {
                Positive
            } else {
                NotNegative
            })
        } else if !a.not_negative() || a == NotPositive {
            let (na, nc) = (a.negated(), c.negated());
            (na.not_negative() && nc.not_negative()).then(|| {
                if na.nonzero() || nc.nonzero() {
                    Negative
                } else {
                    NotPositive
                }
            })
        } else {
            None
        }
    };
    // A size (`nrow(A) - 1`, symbolic sizes being at least 2) has the sign its least
    // value has.
    if let Some(size) = env.size_form(e).filter(|f| !f.terms.is_empty()) {
        if env.never_negative(&size.minus(&SizeForm::number(1))) {
            return Some(Positive);
        }
        if env.never_negative(&size) {
            return Some(NotNegative);
        }
    }
    match e {
        Var(name) if env.positive.contains(name) => Some(Positive),
        Const(c) if *c > 0.0 && c.is_finite() => Some(Positive),
        Const(c) if *c < 0.0 && c.is_finite() => Some(Negative),
        Const(c) if *c == 0.0 => Some(NotNegative),
        Neg(x) => sign_of(x, env).map(Sign::negated),
        Transpose(x) | Sum(x) | RowSums(x) | ColSums(x) => sign_of(x, env),
        Fill(v, _, _) => sign_of(v, env),
        Add(..) | Sub(..) if is_spread(e) => Some(NotNegative),
        // A count of cells less 1 (`length(X) - 1`, in `var`), where there are two cells
        // or more: a symbolic size is at least 2.
        Sub(p, q) if matches!(**q, Const(c) if c == 1.0) && counts_two_or_more(p) => Some(Positive),
        Add(p, q) => sum(sign_of(p, env)?, sign_of(q, env)?),
        Sub(p, q) => sum(sign_of(p, env)?, sign_of(q, env)?.negated()),
        // A square, written as a product.
        Mul(p, q) if p == q => match sign_of(p, env) {
            Some(s) if s.nonzero() => Some(Positive),
            _ => Some(NotNegative),
        },
        Mul(p, q) | MatMul(p, q) => product(p, q),
        Pow(x, k) if *k == k.trunc() && (*k as i64) % 2 == 0 => match sign_of(x, env) {
            Some(s) if s.nonzero() => Some(Positive),
            _ => Some(NotNegative),
        },
        Pow(x, _) => sign_of(x, env).filter(|s| s.not_negative()),
        Func { name, args } => match (name.as_str(), args.as_slice()) {
            ("exp" | "sigmoid", [_]) => Some(Positive),
            ("abs", [_]) => Some(NotNegative),
            ("^", [x, _]) if sign_of(x, env) == Some(Positive) => Some(Positive),
            ("sqrt", [x]) => sign_of(x, env).filter(|s| s.not_negative()),
            // A zero divisor makes a NaN (0 / 0) or an infinity.
            ("/", [p, q]) if sign_of(q, env).is_some_and(Sign::nonzero) => product(p, q),
            // The larger of the largest cell and the largest negated cell is the largest
            // magnitude (what `max(abs(x))` is written as), never negative.
            ("max", [Func { name: f, args: p }, Func { name: g, args: q }])
                if f == "max"
                    && g == "max"
                    && matches!((p.as_slice(), q.as_slice()), ([x], [Neg(y)]) | ([Neg(y)], [x]) if x == &**y) =>
            {
                Some(NotNegative)
            }
            ("max", [p, q]) => match (sign_of(p, env), sign_of(q, env)) {
                (Some(Positive), _) | (_, Some(Positive)) => Some(Positive),
                (Some(NotNegative), _) | (_, Some(NotNegative)) => Some(NotNegative),
                (Some(a), Some(c)) => sum(a, c),
                _ => None,
            },
            ("min", [p, q]) => match (sign_of(p, env), sign_of(q, env)) {
                (Some(Negative), _) | (_, Some(Negative)) => Some(Negative),
                (Some(NotPositive), _) | (_, Some(NotPositive)) => Some(NotPositive),
                (Some(a), Some(c)) => sum(a, c),
                _ => None,
            },
            (
                "max" | "min" | "rowMaxs" | "rowMins" | "colMaxs" | "colMins" | "rev" | "t"
                | "cumsum" | "as.scalar" | "as.matrix",
                [x],
            ) => sign_of(x, env),
            // The diagonal matrix of a column has zeros beside its diagonal.
            ("diag", [x]) => sign_of(x, env).map(|s| {
                if s.not_negative() {
                    NotNegative
                } else {
                    NotPositive
                }
            }),
            (INDEX, [x, ..]) => sign_of(x, env),
            ("cbind" | "rbind", [p, q]) => {
                let (a, c) = (sign_of(p, env)?, sign_of(q, env)?);
                match (a.not_negative(), c.not_negative()) {
                    (true, true) if a.nonzero() && c.nonzero() => Some(Positive),
                    (true, true) => Some(NotNegative),
                    (false, false) if a.nonzero() && c.nonzero() => Some(Negative),
                    (false, false) => Some(NotPositive),
                    _ => None,
                }
            }
            _ => None,
        },
        _ => None,
    }
}

/// Whether `p` and `q` are a column and a row (either way round), each longer than 1.
fn outer_pair(p: &LaExpr, q: &LaExpr, shape: &dyn Fn(&LaExpr) -> Option<Shape>) -> bool {
    let (Some((pr, pc)), Some((qr, qc))) = (shape(p), shape(q)) else {
        return false;
    };
    (pc.is_one() && qr.is_one() && !pr.is_one() && !qc.is_one())
        || (pr.is_one() && qc.is_one() && !pc.is_one() && !qr.is_one())
}

/// `rowMaxs` when `c` is a column with `x`'s rows (and `x` more than one column),
/// `colMaxs` when it is a row with `x`'s columns.
fn vector_along(
    x: &LaExpr,
    c: &LaExpr,
    shape: &dyn Fn(&LaExpr) -> Option<Shape>,
) -> Option<&'static str> {
    let ((xr, xc), (cr, cc)) = (shape(x)?, shape(c)?);
    if cc.is_one() && cr == xr && !xc.is_one() && !xr.is_one() {
        Some("rowMaxs")
    } else if cr.is_one() && cc == xc && !xr.is_one() && !xc.is_one() {
        Some("colMaxs")
    } else {
        None
    }
}

/// `x` as `k * p` for a constant `k`: `k * p`, `p * k`, `p / k` and their negations.
fn constant_factor(x: &LaExpr) -> Option<(f64, LaExpr)> {
    use LaExpr::*;
    match x {
        Mul(k, p) | Mul(p, k) if as_constant(k).is_some() => Some((as_constant(k)?, (**p).clone())),
        Func { name, args } if name == "/" && args.len() == 2 => match &args[1] {
            Const(k) if *k != 0.0 && k.is_finite() => Some((1.0 / k, args[0].clone())),
            _ => None,
        },
        Neg(inner) => constant_factor(inner).map(|(k, p)| (-k, p)),
        _ => None,
    }
}

/// A number written as `c` or `-c`.
pub(super) fn as_constant(x: &LaExpr) -> Option<f64> {
    match x {
        LaExpr::Const(c) => Some(*c),
        LaExpr::Neg(inner) => as_constant(inner).map(|c| -c),
        _ => None,
    }
}

/// `(p, c)` when `x` is `p * c` (or `-(p * c)`, giving `-c`) for a factor `c` constant
/// along the aggregate, not a number and not known positive: the factor of
/// [`aggregate_max`]'s rule for either sign.
fn scaled_by_either_sign(
    x: &LaExpr,
    constant_along: &dyn Fn(&LaExpr) -> bool,
    env: &ShapeEnv,
) -> Option<(LaExpr, LaExpr)> {
    use LaExpr::*;
    let (product, negated) = match x {
        Neg(inner) => (inner.as_ref(), true),
        _ => (x, false),
    };
    let Mul(l, r) = product else {
        return None;
    };
    let (p, c) = if constant_along(r) && !constant_along(l) {
        (l, r)
    } else if constant_along(l) && !constant_along(r) {
        (r, l)
    } else {
        return None;
    };
    if as_constant(c).is_some() || sign_of(c, env) == Some(Sign::Positive) {
        return None;
    }
    let c = if negated {
        neg((**c).clone())
    } else {
        (**c).clone()
    };
    Some(((**p).clone(), c))
}

/// `agg(k * p)`: `k * agg(p)` for `k > 0`, `-k * agg(-p)` for `k < 0`, `0` for `k = 0`.
fn scaled_max(k: f64, p: &LaExpr, of: &dyn Fn(&LaExpr) -> LaExpr) -> Option<LaExpr> {
    use LaExpr::*;
    if k > 0.0 {
        Some(Mul(b(Const(k)), b(of(p))))
    } else if k < 0.0 {
        Some(Mul(b(Const(-k)), b(of(&neg(p.clone())))))
    } else {
        None
    }
}

/// `rev` (the rows in reverse order) of `x`.
fn rewrite_rev(x: &LaExpr, env: &ShapeEnv) -> Option<LaExpr> {
    use LaExpr::*;
    let shape = |z: &LaExpr| env.shape_of(z).ok();
    let rows = shape(x)?.0;
    // Each operand of a cellwise operator is reversed unless it is one row (broadcast).
    let rev = |z: &LaExpr| -> Option<LaExpr> {
        let s = shape(z)?;
        if s.0.is_one() {
            Some(z.clone())
        } else if s.0 == rows {
            Some(func("rev", vec![z.clone()]))
        } else {
            None
        }
    };
    if rows.is_one() {
        return Some(x.clone());
    }
    Some(match x {
        Func { name, args } if name == "rev" && args.len() == 1 => args[0].clone(),
        Add(p, q) => Add(b(rev(p)?), b(rev(q)?)),
        Sub(p, q) => Sub(b(rev(p)?), b(rev(q)?)),
        Mul(p, q) => Mul(b(rev(p)?), b(rev(q)?)),
        Neg(p) => Neg(b(rev(p)?)),
        Pow(p, k) => Pow(b(rev(p)?), *k),
        MatMul(p, q) => MatMul(b(rev(p)?), q.clone()),
        Func { name, args } if name == "cbind" && args.len() == 2 => {
            func("cbind", vec![rev(&args[0])?, rev(&args[1])?])
        }
        // The blocks swap places, each reversed (a block of one row is its own reverse).
        Func { name, args } if name == "rbind" && args.len() == 2 => {
            let block = |z: &LaExpr| -> Option<LaExpr> {
                Some(if shape(z)?.0.is_one() {
                    z.clone()
                } else {
                    func("rev", vec![z.clone()])
                })
            };
            func("rbind", vec![block(&args[1])?, block(&args[0])?])
        }
        Func { name, args }
            if crate::functions::is_elementwise(name, args.len()) || name == "ifelse" =>
        {
            func(name, args.iter().map(rev).collect::<Option<Vec<_>>>()?)
        }
        _ => return None,
    })
}

/// `x^2` when `x` is the root of a value never negative (`sqrt(s)`, `sd(X)`), or a
/// product of such roots (`sqrt(a) * sqrt(1 / b)`, as the root of a quotient is split):
/// that value, or the product of those values.
fn root_squared(x: &LaExpr, env: &ShapeEnv) -> Option<LaExpr> {
    match x {
        LaExpr::Func { name, args } => match (name.as_str(), args.as_slice()) {
            ("sd", [a]) => Some(func("var", vec![a.clone()])),
            ("sqrt", [s]) if sign_of(s, env).is_some_and(Sign::not_negative) => Some(s.clone()),
            _ => None,
        },
        LaExpr::Mul(p, q) => Some(LaExpr::Mul(
            b(root_squared(p, env)?),
            b(root_squared(q, env)?),
        )),
        _ => None,
    }
}

/// Whether `e` is the largest cell less the smallest (of all cells, of each row or of each
/// column): `max(x) - min(x)`, or `max(x) + max(-x)` as [`simplify`] writes it.
fn is_spread(e: &LaExpr) -> bool {
    use LaExpr::*;
    let one = |e: &LaExpr| match e {
        Func { name, args } if args.len() == 1 => Some((name.clone(), args[0].clone())),
        _ => None,
    };
    let largest_less_smallest = |p: &LaExpr, q: &LaExpr| {
        let (Some((hi, x)), Some((lo, y))) = (one(p), one(q)) else {
            return false;
        };
        let pair = matches!(
            (hi.as_str(), lo.as_str()),
            ("max", "min") | ("rowMaxs", "rowMins") | ("colMaxs", "colMins")
        );
        pair && x == y
    };
    let largest_plus_negated = |p: &LaExpr, q: &LaExpr| {
        let (Some((hi, x)), Some((hi_again, y))) = (one(p), one(q)) else {
            return false;
        };
        matches!(hi.as_str(), "max" | "rowMaxs" | "colMaxs")
            && hi == hi_again
            && matches!(&y, Neg(z) if **z == x)
    };
    match e {
        Sub(p, q) => match q.as_ref() {
            Neg(q) => largest_plus_negated(p, q),
            _ => largest_less_smallest(p, q),
        },
        Add(p, q) => largest_plus_negated(p, q) || largest_plus_negated(q, p),
        _ => false,
    }
}

/// Whether `e` is `max(c * a, c * b)`, what [`aggregate_max`] makes of a factor of
/// unknown sign.
fn is_larger_of_two_scalings(e: &LaExpr) -> bool {
    matches!(e, LaExpr::Func { name, args } if name == "max"
        && matches!(args.as_slice(), [LaExpr::Mul(c, _), LaExpr::Mul(d, _)] if c == d))
}

/// Whether `k` is a whole number written as a constant.
fn is_whole_number(k: &LaExpr) -> bool {
    matches!(k, LaExpr::Const(c) if c.fract() == 0.0 && c.is_finite())
}

/// Whether every cell of `e` is 0 or 1, never NaN: a comparison, `!`, `&` or `|`.
fn is_truth(e: &LaExpr) -> bool {
    matches!(e, LaExpr::Func { name, args } if match args.len() {
        1 => name == "!",
        2 => matches!(name.as_str(), "<" | ">" | "<=" | ">=" | "==" | "!=" | "&" | "|"),
        _ => false,
    })
}

/// Whether `e` is `sum(matrix(1, r, c))` for sizes whose product is at least 2 (a
/// symbolic size counts as 2, its least value).
fn counts_two_or_more(e: &LaExpr) -> bool {
    let least = |d: &Dim| match d {
        Dim::Known(n) => *n,
        Dim::Sym(_) => 2,
    };
    matches!(e, LaExpr::Sum(fill) if matches!(fill.as_ref(),
        LaExpr::Fill(v, r, c) if matches!(**v, LaExpr::Const(one) if one == 1.0)
            && least(r) * least(c) >= 2))
}

/// Whether `x` is a quotient `a / b`.
fn is_quotient(x: &LaExpr) -> bool {
    matches!(x, LaExpr::Func { name, args } if name == "/" && args.len() == 2)
}

/// Whether `x` is `rev(a)`.
fn is_rev(x: &LaExpr) -> bool {
    matches!(x, LaExpr::Func { name, args } if name == "rev" && args.len() == 1)
}

/// `cumsum(x)` pushed inside what it is linear over: sums and differences, negation, a
/// constant factor, a product `p %*% q` (`cumsum(p) %*% q`), a cellwise product with a
/// row vector; the running sum of one row is that row.
fn rewrite_cumsum(x: &LaExpr, env: &ShapeEnv) -> Option<LaExpr> {
    use LaExpr::*;
    let shape = |z: &LaExpr| env.shape_of(z).ok();
    let rows = shape(x)?.0;
    if rows.is_one() {
        return Some(x.clone());
    }
    let cs = |z: &LaExpr| -> Option<LaExpr> {
        // An operand of one row is broadcast down every row: its running sum is not its
        // own, so only operands of all the rows split.
        (shape(z)?.0 == rows).then(|| func("cumsum", vec![z.clone()]))
    };
    let row_vector = |z: &LaExpr| shape(z).is_some_and(|s| s.0.is_one());
    Some(match x {
        Add(p, q) => Add(b(cs(p)?), b(cs(q)?)),
        Sub(p, q) => Sub(b(cs(p)?), b(cs(q)?)),
        Neg(p) => Neg(b(cs(p)?)),
        MatMul(p, q) => MatMul(b(cs(p)?), q.clone()),
        Mul(p, q) if row_vector(q) => Mul(b(cs(p)?), q.clone()),
        Mul(q, p) if row_vector(q) => Mul(q.clone(), b(cs(p)?)),
        _ if constant_factor(x).is_some() => {
            let (k, p) = constant_factor(x)?;
            Mul(b(Const(k)), b(cs(&p)?))
        }
        _ => return None,
    })
}

/// Whether `v` is the same in every row of a matrix `m` it is added to: a scalar, or a
/// row (`1 x n`) beside `m` of `n` columns.
fn same_down_columns(v: &LaExpr, m: &LaExpr, env: &ShapeEnv) -> bool {
    match (env.shape_of(v), env.shape_of(m)) {
        (Ok(sv), Ok(sm)) => is_one_by_one(&sv) || (sv.0.is_one() && sv.1 == sm.1),
        _ => false,
    }
}

/// Whether `v` is a column (`n x 1`) beside a matrix `m` of `n` rows and more columns, so
/// that it is constant along each row of their product.
fn column_beside(v: &LaExpr, m: &LaExpr, env: &ShapeEnv) -> bool {
    match (env.shape_of(v), env.shape_of(m)) {
        (Ok(sv), Ok(sm)) => sv.1.is_one() && !sm.1.is_one() && sv.0 == sm.0,
        _ => false,
    }
}

/// Whether `x` is a count `seq(1, n)` of a symbolic `n`, or a scalar times one.
fn counted(x: &LaExpr, env: &ShapeEnv) -> bool {
    let scalar = |z: &LaExpr| env.shape_of(z).is_ok_and(|s| is_one_by_one(&s));
    match x {
        LaExpr::Mul(p, q) => {
            (scalar(p) && env.counting_length(q).is_some())
                || (scalar(q) && env.counting_length(p).is_some())
        }
        _ => env.counting_length(x).is_some(),
    }
}

/// `x[rl:ru, cl:cu]` with bounds that are sizes (`k`, `nrow(A) - k + 1`), pushed through
/// what moves rows by a size: row `k` of a running sum is the column sums of rows 1 to
/// `k`, rows of `rev(a)` are reversed rows of `a` counted from its end, and a slice of a
/// slice is one slice.
fn symbolic_index(x: &LaExpr, bounds: [&LaExpr; 4], env: &ShapeEnv) -> Option<LaExpr> {
    use LaExpr::*;
    let [rl, ru, cl, cu] = bounds;
    let whole = |lo: &LaExpr, hi: &LaExpr| matches!((lo, hi), (Const(a), Const(b)) if *a == 0.0 && *b == 0.0);
    let form = |e: &LaExpr| env.size_form(e);
    let slice = |a: LaExpr, r: [LaExpr; 2], c: [LaExpr; 2]| {
        let [r0, r1] = r;
        let [c0, c1] = c;
        func(INDEX, vec![a, r0, r1, c0, c1])
    };
    // Bounds that span a whole dimension (`1:ncol(A)`) read all of it.
    let (rows, cols) = env.shape_of(x).ok()?;
    let full = |lo: &LaExpr, hi: &LaExpr, d: &Dim| {
        !whole(lo, hi)
            && form(lo) == Some(SizeForm::number(1))
            && form(hi).is_some_and(|hi| env.same_size(&hi, &env.dim_form(d)))
    };
    let (full_rows, full_cols) = (full(rl, ru, &rows), full(cl, cu, &cols));
    if full_rows || full_cols {
        let all = || [Const(0.0), Const(0.0)];
        let r = if full_rows {
            all()
        } else {
            [rl.clone(), ru.clone()]
        };
        let c = if full_cols {
            all()
        } else {
            [cl.clone(), cu.clone()]
        };
        return Some(slice(x.clone(), r, c));
    }
    let scalar = |e: &LaExpr| env.shape_of(e).is_ok_and(|(r, c)| r.is_one() && c.is_one());
    let sliced = |p: &LaExpr| {
        slice(
            p.clone(),
            [rl.clone(), ru.clone()],
            [cl.clone(), cu.clone()],
        )
    };
    match x {
        // A cell of a negation, or of a cellwise operation with a scalar, is that of its
        // matrix operand: `(2 * cummax(X))[nrow(X), ] == 2 * cummax(X)[nrow(X), ]`.
        Neg(p) => Some(Neg(b(sliced(p)))),
        Add(p, k) | Sub(p, k) | Mul(p, k) if scalar(k) && !scalar(p) => Some(match x {
            Add(..) => Add(b(sliced(p)), k.clone()),
            Sub(..) => Sub(b(sliced(p)), k.clone()),
            _ => Mul(b(sliced(p)), k.clone()),
        }),
        Add(k, p) | Sub(k, p) | Mul(k, p) if scalar(k) && !scalar(p) => Some(match x {
            Add(..) => Add(k.clone(), b(sliced(p))),
            Sub(..) => Sub(k.clone(), b(sliced(p))),
            _ => Mul(k.clone(), b(sliced(p))),
        }),
        // Row k of a running sum, maximum or minimum is the aggregate of rows 1 to k.
        Func { name, args }
            if matches!(name.as_str(), "cumsum" | "cummax" | "cummin")
                && args.len() == 1
                && !whole(rl, ru) =>
        {
            let (lo, hi) = (form(rl)?, form(ru)?);
            if !env.same_size(&lo, &hi) {
                return None;
            }
            let rows = [Const(1.0), ru.clone()];
            let head = slice(args[0].clone(), rows, [cl.clone(), cu.clone()]);
            Some(match name.as_str() {
                "cumsum" => ColSums(b(head)),
                "cummax" => func("colMaxs", vec![head]),
                _ => func("colMins", vec![head]),
            })
        }
        // A slice of a block that lies within one of its two parts.
        Func { name, args } if (name == "cbind" || name == "rbind") && args.len() == 2 => {
            let horizontal = name == "cbind";
            let (lo, hi) = if horizontal { (cl, cu) } else { (rl, ru) };
            if whole(lo, hi) {
                return None;
            }
            let (flo, fhi) = (form(lo)?, form(hi)?);
            let first = env.shape_of(&args[0]).ok()?;
            let k = env.dim_form(if horizontal { &first.1 } else { &first.0 });
            let (part, span) = if env.never_negative(&k.minus(&fhi)) {
                (&args[0], [lo.clone(), hi.clone()])
            } else if env.never_negative(&flo.minus(&k).minus(&SizeForm::number(1))) {
                let shifted = [form_expr(&flo.minus(&k)), form_expr(&fhi.minus(&k))];
                (&args[1], shifted)
            } else {
                return None;
            };
            Some(if horizontal {
                slice(part.clone(), [rl.clone(), ru.clone()], span)
            } else {
                slice(part.clone(), span, [cl.clone(), cu.clone()])
            })
        }
        Func { name, args } if name == "rev" && args.len() == 1 && !whole(rl, ru) => {
            let n = env.dim_form(&env.shape_of(&args[0]).ok()?.0);
            let one = SizeForm::number(1);
            let (lo, hi) = (form(rl)?, form(ru)?);
            let flipped = [
                form_expr(&n.plus(&one).minus(&hi)),
                form_expr(&n.plus(&one).minus(&lo)),
            ];
            Some(func(
                "rev",
                vec![slice(args[0].clone(), flipped, [cl.clone(), cu.clone()])],
            ))
        }
        Func { name, args } if name == INDEX && args.len() == 5 => {
            let compose = |inner: [&LaExpr; 2], outer: [&LaExpr; 2]| -> Option<[LaExpr; 2]> {
                if whole(inner[0], inner[1]) {
                    return Some([outer[0].clone(), outer[1].clone()]);
                }
                if whole(outer[0], outer[1]) {
                    return Some([inner[0].clone(), inner[1].clone()]);
                }
                let start = form(inner[0])?.minus(&SizeForm::number(1));
                Some([
                    form_expr(&start.plus(&form(outer[0])?)),
                    form_expr(&start.plus(&form(outer[1])?)),
                ])
            };
            let rows = compose([&args[1], &args[2]], [rl, ru])?;
            let cols = compose([&args[3], &args[4]], [cl, cu])?;
            Some(slice(args[0].clone(), rows, cols))
        }
        _ => None,
    }
}

/// A size form written as an expression of sizes, as [`LaExpr::resolve`] spells them.
fn form_expr(f: &SizeForm) -> LaExpr {
    use LaExpr::*;
    let mut out = (f.constant != 0 || f.terms.is_empty()).then_some(Const(f.constant as f64));
    for (symbol, k) in &f.terms {
        let size = ShapeEnv::size_expr(&Dim::Sym(symbol.clone()));
        let term = if *k == 1 {
            size
        } else {
            Mul(b(Const(*k as f64)), b(size))
        };
        out = Some(match out {
            None => term,
            Some(acc) => Add(b(acc), b(term)),
        });
    }
    out.unwrap_or(Const(0.0))
}

/// `x[rows, cols]` pushed towards the inputs.
fn rewrite_index(
    e: &LaExpr,
    x: &LaExpr,
    rows: Range,
    cols: Range,
    env: &ShapeEnv,
) -> Option<LaExpr> {
    use LaExpr::*;
    let shape = |z: &LaExpr| env.shape_of(z).ok();
    let (r, c) = shape(x)?;
    let (rows, cols) = (rows.tidy(&r), cols.tidy(&c));
    if (rows, cols) == (Range::All, Range::All) {
        return Some(x.clone());
    }
    // Bounds written differently (`X[1:nrow, ]`) become the tidy ones first.
    let tidy = index(x.clone(), rows, cols);
    if &tidy != e {
        return Some(tidy);
    }
    // An operand of a cellwise operator, broadcast along a side of size 1, reads all of it.
    let part = |z: &LaExpr| -> Option<LaExpr> {
        let (zr, zc) = shape(z)?;
        let (pr, pc) = (rows.for_operand(&zr), cols.for_operand(&zc));
        if (pr, pc) == (Range::All, Range::All) {
            Some(z.clone())
        } else {
            Some(index(z.clone(), pr, pc))
        }
    };
    Some(match x {
        Func { name, args } if name == INDEX && args.len() == 5 => {
            let (r1, c1) = (
                Range::of(&args[1], &args[2])?,
                Range::of(&args[3], &args[4])?,
            );
            index(args[0].clone(), rows.within(r1), cols.within(c1))
        }
        Transpose(a) => Transpose(b(index((**a).clone(), cols, rows))),
        MatMul(p, q) => MatMul(
            b(index((**p).clone(), rows, Range::All)),
            b(index((**q).clone(), Range::All, cols)),
        ),
        Add(p, q) => Add(b(part(p)?), b(part(q)?)),
        Sub(p, q) => Sub(b(part(p)?), b(part(q)?)),
        Mul(p, q) => Mul(b(part(p)?), b(part(q)?)),
        Neg(p) => Neg(b(part(p)?)),
        Pow(p, k) => Pow(b(part(p)?), *k),
        Fill(v, _, _) => {
            let size = |range: Range, d: &Dim| match range {
                Range::All => d.clone(),
                Range::Span(a, b) => Dim::Known(b - a + 1),
            };
            Fill(v.clone(), size(rows, &r), size(cols, &c))
        }
        RowSums(a) => RowSums(b(index((**a).clone(), rows, Range::All))),
        ColSums(a) => ColSums(b(index((**a).clone(), Range::All, cols))),
        Func { name, args }
            if args.len() == 1 && matches!(name.as_str(), "rowMaxs" | "rowMins" | "rowMeans") =>
        {
            func(name, vec![index(args[0].clone(), rows, Range::All)])
        }
        Func { name, args }
            if args.len() == 1 && matches!(name.as_str(), "colMaxs" | "colMins" | "colMeans") =>
        {
            func(name, vec![index(args[0].clone(), Range::All, cols)])
        }
        // Row k of a running column sum is the column sums of rows 1 to k.
        Func { name, args } if name == "cumsum" && args.len() == 1 => {
            let Range::Span(k, l) = rows else { return None };
            if k != l {
                return None;
            }
            ColSums(b(index(args[0].clone(), Range::Span(1, k), cols)))
        }
        Func { name, args } if name == "rev" && args.len() == 1 => {
            let Dim::Known(n) = r else { return None };
            let flipped = match rows {
                Range::All => Range::All,
                Range::Span(a, b) => Range::Span(n + 1 - b, n + 1 - a),
            };
            func("rev", vec![index(args[0].clone(), flipped, cols)])
        }
        Func { name, args } if (name == "cbind" || name == "rbind") && args.len() == 2 => {
            let horizontal = name == "cbind";
            let (along, across) = if horizontal {
                (cols, rows)
            } else {
                (rows, cols)
            };
            let first = shape(&args[0])?;
            let Dim::Known(k) = (if horizontal { first.1 } else { first.0 }) else {
                return None;
            };
            let pick = |z: &LaExpr, span: Range| {
                if horizontal {
                    index(z.clone(), across, span)
                } else {
                    index(z.clone(), span, across)
                }
            };
            match along {
                Range::All => func(
                    name,
                    vec![pick(&args[0], Range::All), pick(&args[1], Range::All)],
                ),
                Range::Span(a, b) if b <= k => pick(&args[0], Range::Span(a, b)),
                Range::Span(a, b) if a > k => pick(&args[1], Range::Span(a - k, b - k)),
                _ => return None,
            }
        }
        Func { name, args }
            if crate::functions::is_elementwise(name, args.len()) || name == "ifelse" =>
        {
            func(name, args.iter().map(part).collect::<Option<Vec<_>>>()?)
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env() -> ShapeEnv {
        ShapeEnv::with_shapes(&["A=5x4", "B=4x3", "C=5x3", "X=mxn", "s=1x1", "u=5x1"]).unwrap()
    }

    fn simplified(text: &str) -> String {
        let env = env();
        let e = LaExpr::parse(text).unwrap().resolve(&env).unwrap();
        simplify(&e, &env).to_string()
    }

    #[test]
    fn aggregates_see_through_shifts_scalings_and_blocks() {
        assert_eq!(simplified("max(A + s)"), "max(A) + s");
        assert_eq!(simplified("min(-A)"), "-max(A)");
        assert_eq!(simplified("max(3 * X)"), "3 * max(X)");
        assert_eq!(simplified("max(-2 * X)"), "2 * max(-X)");
        assert_eq!(simplified("max(t(A))"), "max(A)");
        assert_eq!(simplified("rowMaxs(A + u)"), "rowMaxs(A) + u");
        assert_eq!(simplified("max(cbind(A, C))"), "max(max(A), max(C))");
        assert_eq!(
            simplified("rowSums(cbind(A, C))"),
            "rowSums(A) + rowSums(C)"
        );
        assert_eq!(simplified("sum(rev(A))"), "sum(A)");
    }

    #[test]
    fn running_sums_and_reversals_move_through_linear_maps() {
        assert_eq!(simplified("rowSums(cumsum(X))"), "cumsum(rowSums(X))");
        assert_eq!(
            simplified("cumsum(X %*% (t(X) %*% X) - 2 * X)"),
            "cumsum(X) %*% (t(X) %*% X) - 2 * cumsum(X)"
        );
        assert_eq!(simplified("t(rev(X)) %*% rev(X)"), "t(X) %*% X");
    }

    #[test]
    fn indexing_moves_to_the_inputs() {
        assert_eq!(simplified("(A %*% B)[1:2, ]"), "A[1:2, ] %*% B");
        assert_eq!(simplified("t(A)[2, ]"), "t(A[, 2])");
        assert_eq!(simplified("A[1:5, 1:4]"), "A");
        assert_eq!(simplified("A[2:4, ][2, ]"), "A[3, ]");
        assert_eq!(simplified("(A + u)[2, 3]"), "A[2, 3] + u[2, ]");
        assert_eq!(simplified("cbind(A, C)[, 6]"), "C[, 2]");
        assert_eq!(simplified("rev(A)[1, ]"), "A[5, ]");
    }

    #[test]
    fn rev_undoes_itself_and_passes_through_cellwise_operators() {
        assert_eq!(simplified("rev(rev(A))"), "A");
        assert_eq!(simplified("rev(A + u)"), "rev(A) + rev(u)");
        assert_eq!(simplified("rev(abs(A) * s)"), "abs(rev(A)) * s");
        assert_eq!(simplified("rev(rbind(A, A[1, ]))"), "rbind(A[1, ], rev(A))");
    }
}
