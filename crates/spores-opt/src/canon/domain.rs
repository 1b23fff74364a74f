//! Where a side may be NaN or infinite: the check that makes a proof over the reals a
//! proof of what `spores run` computes.
//!
//! The canonical forms, the piecewise decision and the rewrites reason about real
//! numbers, where `log(A) - log(A)` is 0. `spores run` computes in floating point, where
//! `log` of a number that is not positive, `sqrt` of a negative one and a division by 0
//! give NaN or an infinity, and those do not cancel: `log(A) - log(A)` is NaN wherever `A
//! <= 0`. Matrix products and cellwise products of matrices skip a zero factor (`0 *
//! log(0)` is 0 there), two scalars multiply as IEEE numbers (`0 * -Inf` is NaN).
//!
//! So a proof over the reals stands only when both sides are NaN or infinite at the same
//! cells, and the same one of NaN, `+Inf` and `-Inf`. A *partial atom* is an application
//! of a function that may leave the reals (`log`, `sqrt`, `/`, a negative or fractional
//! power...) to an argument not known to lie in its domain ([`super::simplify::sign_of`]:
//! `log(exp(A))`, `sqrt(A^2)` and division by an input declared positive are total). A
//! side's *signature* is, cell by cell, the set of partial terms it adds and the set it
//! subtracts, where a term is a product of partial atoms with the finite factors they are
//! multiplied by (a factor known positive, or a positive constant, drops out; any other
//! stands as an opaque factor, since its zeros mask and its sign flips an infinity). A sum
//! of finite numbers and non-finite terms is NaN if a term is NaN or both infinities are
//! present, else the infinity present, whatever the order of the additions: so two sides
//! that are equal over the reals and have the same signature are equal in floating point
//! too. The sets are compared as the supports of canonical forms (each term's coefficient
//! set to 1), so an atom added twice on one side and once on the other still matches.
//!
//! A side whose partial atoms sit where this bookkeeping does not reach (a sum of partial
//! atoms inside a function, `log(A) * log(B) - ...` of sums, a product by the constant 0
//! of two scalars) has no signature: its proof is not trusted, and the decision falls back
//! to searching for a witness.

use std::cell::RefCell;

use super::error::EquivError;
use super::iso::difference;
use super::normal::Normalizer;
use super::simplify::{as_constant, positional, sign_of, Sign};
use super::Coef;
use crate::functions::{IEEE_DIVISION, MASKING_FACTOR, SCALAR_FACTOR};
use crate::la::{LaExpr, Shape, ShapeEnv, INDEX};

/// The partial terms a side adds (`plus`) and subtracts (`minus`), as expressions of the
/// side's shape (or one that broadcasts to it); `None` for no term.
#[derive(Clone, Debug, Default)]
pub(super) struct Signature {
    plus: Option<LaExpr>,
    minus: Option<LaExpr>,
}

/// Why a side has no signature.
#[derive(Debug)]
pub(super) struct Unreachable;

type Sig = Result<Option<Signature>, Unreachable>;

/// Whether the real proof of `lhs = rhs` also holds where partial atoms leave the reals:
/// `Ok(true)` when neither side has a partial atom or both have the same signature.
pub(super) fn same_non_finite_cells(
    lhs: &LaExpr,
    rhs: &LaExpr,
    env: &ShapeEnv,
) -> Result<bool, EquivError> {
    let (lhs, rhs) = (&positional(lhs, env), &positional(rhs, env));
    let (Ok(l), Ok(r)) = (signature(lhs, env), signature(rhs, env)) else {
        return Ok(false);
    };
    let (l, r) = (l.unwrap_or_default(), r.unwrap_or_default());
    let shape = env.shape_of(lhs).map_err(|e| EquivError::Shape {
        side: "lhs",
        message: e.0,
    })?;
    let tags = RefCell::new(Vec::new());
    let mark = |e: &Option<LaExpr>| {
        e.as_ref()
            .map(|e| fit(marked_divisions(e, env, &tags), &shape))
    };
    let (lp, lm, rp, rm) = (mark(&l.plus), mark(&l.minus), mark(&r.plus), mark(&r.minus));
    let mut tagged = env.clone();
    tagged.shapes.extend(tags.into_inner());
    let mut norm = Normalizer::new(&tagged);
    Ok(same_support(&mut norm, &lp, &rp)? && same_support(&mut norm, &lm, &rm)?)
}

/// Whether `a` and `b` (each a sum of terms with positive coefficients) have the same
/// terms, whatever their coefficients.
fn same_support(
    norm: &mut Normalizer,
    a: &Option<LaExpr>,
    b: &Option<LaExpr>,
) -> Result<bool, EquivError> {
    let terms = |norm: &mut Normalizer, e: &Option<LaExpr>| -> Result<_, EquivError> {
        let Some(e) = e else {
            return Ok(Vec::new());
        };
        let mut p = norm.top(e)?.terms;
        for t in &mut p {
            t.coef = Coef::constant(1.0);
        }
        Ok(p)
    };
    let (ta, tb) = (terms(norm, a)?, terms(norm, b)?);
    Ok(difference(&ta, &tb).is_empty())
}

/// `e` with each division by a value that may be 0 marked as such, so that its canonical
/// form is not the product with a reciprocal that the reals allow. A number over 0 is an
/// infinity of the zero's sign: where the divisor may be `-0`, it stands as an input of
/// its own, named by how it is written (added to `tags`), so only the same divisor
/// matches it. Odd negative powers likewise.
fn marked_divisions(e: &LaExpr, env: &ShapeEnv, tags: &RefCell<Vec<(String, Shape)>>) -> LaExpr {
    let tag = |x: &LaExpr| -> Option<LaExpr> {
        let shape = env.shape_of(x).ok()?;
        let name = format!("the zero of {x}");
        tags.borrow_mut().push((name.clone(), shape));
        Some(LaExpr::Var(name))
    };
    e.map(&|x| match x {
        LaExpr::Func { name, args }
            if (name == "/" || name == "%/%") && partial(name, args, env) =>
        {
            let numerator = marked_divisions(&args[0], env, tags);
            let divisor = if may_be_negative_zero(&args[1], env) {
                tag(&args[1])?
            } else {
                marked_divisions(&args[1], env, tags)
            };
            let name = if name == "/" { IEEE_DIVISION } else { name };
            Some(LaExpr::Func {
                name: name.into(),
                args: vec![numerator, divisor],
            })
        }
        LaExpr::Pow(base, k)
            if *k < 0.0
                && k.fract() == 0.0
                && k % 2.0 != 0.0
                && may_be_negative_zero(base, env) =>
        {
            Some(LaExpr::Pow(Box::new(tag(base)?), *k))
        }
        _ => None,
    })
}

/// Whether `e` may be `-0` in some cell, for finite inputs that hold no `-0` (as `spores
/// run` computes: a product of two scalars of opposite signs, a quotient, `sqrt(-0)`,
/// `ceil(-0.5)`, the negation of a scalar 0...). A matrix's negation skips its zeros, sums
/// and products of matrices start from `+0`, and a matrix cell times 0 is `+0`.
pub(super) fn may_be_negative_zero(e: &LaExpr, env: &ShapeEnv) -> bool {
    use LaExpr::*;
    let may = |x: &LaExpr| may_be_negative_zero(x, env);
    let never_negative = |x: &LaExpr| sign_with_sizes(x, env).is_some_and(Sign::not_negative);
    match e {
        Var(_) => false,
        Const(c) => *c == 0.0 && c.is_sign_negative(),
        // A matrix's negation is `-1 * X` with its zeros skipped, never -0; a scalar's is
        // IEEE's.
        Neg(x) => holds_a_scalar(x, env) != Some(false),
        Add(x, y) => may(x) && may(y),
        Sub(x, _) => may(x),
        Mul(x, y) => match product_kind(x, y, env) {
            ProductKind::Masking => false,
            _ => may(x) || may(y) || !(never_negative(x) && never_negative(y)),
        },
        MatMul(..) | Sum(_) | RowSums(_) | ColSums(_) => false,
        Transpose(x) | Fill(x, _, _) => may(x),
        // An even power is never negative; any other power of -0, or of -Inf to a
        // negative power, may be -0.
        Pow(x, k) => !(k.fract() == 0.0 && k % 2.0 == 0.0) && (may(x) || *k < 0.0),
        Func { name, args } => match name.as_str() {
            "exp" | "log" | "abs" | "sigmoid" | "round" | "cos" | "cosh" | "!" | "<" | ">"
            | "<=" | ">=" | "==" | "!=" | "&" | "|" | "xor" | "sum" | "mean" | "rowSums"
            | "colSums" | "rowMeans" | "colMeans" | "var" | "sd" | "cumsum" | "nrow" | "ncol"
            | "length" | "seq" => false,
            "/" => {
                !(sign_with_sizes(&args[1], env) == Some(Sign::Positive)
                    && matches!(signature(&args[1], env), Ok(None))
                    && !may(&args[0]))
            }
            // `ceil(-0.5)` is -0; a product of scalars of opposite signs with a zero too.
            "ceil" | "ceiling" | "prod" | "rowProds" | "colProds" | "cumprod" => {
                !never_negative(&args[0]) || may(&args[0])
            }
            // `trace` adds from -0 (a Rust sum), so a diagonal of -0 cells gives -0.
            "trace" | "sqrt" | "floor" | "sign" | "sin" | "tan" | "asin" | "atan" | "sinh"
            | "tanh" | "min" | "max" | "ifelse" | "%%" | "rev" | "diag" | "cbind" | "rbind"
            | "as.scalar" | "as.matrix" | "cummax" | "cummin" | "rowMaxs" | "rowMins"
            | "colMaxs" | "colMins" | INDEX => args.iter().any(may),
            _ => true,
        },
    }
}

/// How a product treats a zero factor beside NaN or an infinity.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ProductKind {
    /// A matrix (`1 x 1` ones too) is an operand: a zero factor makes `+0`.
    Masking,
    /// Two DML scalars: IEEE's (`0 * Inf` is NaN, `-1 * 0` is `-0`).
    Ieee,
    /// Not known which.
    Unknown,
}

/// How `p * q` treats a zero factor.
pub(super) fn product_kind(p: &LaExpr, q: &LaExpr, env: &ShapeEnv) -> ProductKind {
    match (holds_a_scalar(p, env), holds_a_scalar(q, env)) {
        (Some(true), Some(true)) => ProductKind::Ieee,
        (Some(false), _) | (_, Some(false)) => ProductKind::Masking,
        _ => ProductKind::Unknown,
    }
}

/// Whether `e` is a DML scalar (`Some(true)`) or a matrix, `1 x 1` ones included
/// (`Some(false)`), when it is known.
fn holds_a_scalar(e: &LaExpr, env: &ShapeEnv) -> Option<bool> {
    use LaExpr::*;
    let all = |xs: &[&LaExpr]| {
        let kinds: Vec<Option<bool>> = xs.iter().map(|x| holds_a_scalar(x, env)).collect();
        if kinds.contains(&Some(false)) {
            Some(false)
        } else if kinds.iter().all(|k| *k == Some(true)) {
            Some(true)
        } else {
            None
        }
    };
    match e {
        Const(_) | Sum(_) => Some(true),
        Var(name) if env.shapes.contains_key(name) => Some(env.scalars.contains(name)),
        Var(_) => None,
        RowSums(_) | ColSums(_) | MatMul(..) | Fill(..) => Some(false),
        Transpose(x) | Neg(x) | Pow(x, _) => holds_a_scalar(x, env),
        Add(x, y) | Sub(x, y) | Mul(x, y) => all(&[x, y]),
        Func { name, args } => match (name.as_str(), args.len()) {
            (
                "as.scalar" | "sum" | "mean" | "trace" | "prod" | "var" | "sd" | "nrow" | "ncol"
                | "length" | "max" | "min",
                1,
            ) => Some(true),
            (name, n) if crate::functions::is_elementwise(name, n) || name == "ifelse" => {
                all(&args.iter().collect::<Vec<_>>())
            }
            _ if total_structure(name) => Some(false),
            _ => None,
        },
    }
}

/// `e` broadcast to `shape` (a scalar or vector term of a larger side).
fn fit(e: LaExpr, shape: &Shape) -> LaExpr {
    let ones = LaExpr::Fill(
        Box::new(LaExpr::Const(1.0)),
        shape.0.clone(),
        shape.1.clone(),
    );
    LaExpr::Mul(Box::new(ones), Box::new(e))
}

fn b(e: LaExpr) -> Box<LaExpr> {
    Box::new(e)
}

/// [`sign_of`], which also knows a number made of sizes alone (`3 * nrow(A) - 2 *
/// nrow(A)`, `nrow(A) * ncol(A) - 1`) whose canonical form is a polynomial in the sizes
/// positive for all of them ([`Coef::positive_from_two`]).
fn sign_with_sizes(x: &LaExpr, env: &ShapeEnv) -> Option<Sign> {
    if let Some(sign) = sign_of(x, env) {
        return Some(sign);
    }
    if !x.vars().is_empty() {
        return None;
    }
    let p = Normalizer::new(env).top(x).ok()?;
    let mut total = Coef::constant(0.0);
    for t in &p.terms {
        if !t.atoms.is_empty() || !t.bound.is_empty() {
            return None;
        }
        total = total.add(&t.coef);
    }
    total.positive_from_two().then_some(Sign::Positive)
}

/// Functions that may leave the reals on part of their arguments' values.
fn partial(name: &str, args: &[LaExpr], env: &ShapeEnv) -> bool {
    let sign = |x: &LaExpr| sign_with_sizes(x, env);
    match (name, args) {
        ("log", [x]) => sign(x) != Some(Sign::Positive),
        ("sqrt", [x]) => !sign(x).is_some_and(Sign::not_negative),
        ("/" | "%%" | "%/%", [_, y]) => !sign(y).is_some_and(Sign::nonzero),
        // A positive base to any finite power is a positive number.
        ("^", [x, _]) => sign(x) != Some(Sign::Positive),
        ("exp" | "abs" | "sign" | "sigmoid" | "round" | "floor" | "ceil" | "ceiling", [_]) => false,
        ("sin" | "cos" | "tan" | "atan" | "sinh" | "cosh" | "tanh" | "!", [_]) => false,
        ("<" | ">" | "<=" | ">=" | "==" | "!=" | "&" | "|" | "min" | "max", [_, _]) => false,
        ("ifelse", [_, _, _]) => false,
        _ => !total_structure(name),
    }
}

/// Functions that only move, pick, aggregate or build cells, never leaving the reals on
/// finite arguments.
fn total_structure(name: &str) -> bool {
    matches!(
        name,
        "min"
            | "max"
            | "prod"
            | "rowMaxs"
            | "rowMins"
            | "colMaxs"
            | "colMins"
            | "rowProds"
            | "colProds"
            | "rowIndexMax"
            | "rowIndexMin"
            | "cumsum"
            | "cumprod"
            | "cummax"
            | "cummin"
            | "rev"
            | "diag"
            | "trace"
            | "cbind"
            | "rbind"
            | "seq"
            | "nrow"
            | "ncol"
            | "length"
            | "as.scalar"
            | "as.matrix"
            | INDEX
    )
}

/// Whether `e` is 0 in every cell by how it is written: a zero constant or fill, or a
/// product, transpose or negation of one (its other factors have no partial atom, so
/// they are finite).
fn zero(e: &LaExpr) -> bool {
    use LaExpr::*;
    match e {
        Const(c) => *c == 0.0,
        Fill(v, _, _) | Neg(v) | Transpose(v) => zero(v),
        Mul(p, q) | MatMul(p, q) => zero(p) || zero(q),
        _ => false,
    }
}

/// The signature of `e`: `Ok(None)` when it has no partial atom.
pub(super) fn signature(e: &LaExpr, env: &ShapeEnv) -> Sig {
    use LaExpr::*;
    Ok(match e {
        Var(_) | Const(_) => None,
        Neg(x) => signature(x, env)?.map(Signature::negated),
        Add(p, q) => join(signature(p, env)?, signature(q, env)?, false),
        Sub(p, q) => join(signature(p, env)?, signature(q, env)?, true),
        Transpose(x) => signature(x, env)?.map(|s| s.map(&|t| Transpose(b(t)))),
        Sum(x) => signature(x, env)?.map(|s| s.map(&|t| Sum(b(t)))),
        RowSums(x) => signature(x, env)?.map(|s| s.map(&|t| RowSums(b(t)))),
        ColSums(x) => signature(x, env)?.map(|s| s.map(&|t| ColSums(b(t)))),
        Fill(v, r, c) => signature(v, env)?.map(|s| s.map(&|t| Fill(b(t), r.clone(), c.clone()))),
        Mul(p, q) | MatMul(p, q) => {
            let matmul = matches!(e, MatMul(..));
            let (sp, sq) = (signature(p, env)?, signature(q, env)?);
            let kind = if matmul {
                ProductKind::Masking
            } else {
                product_kind(p, q, env)
            };
            match (sp, sq) {
                (None, None) => None,
                // A product of two partial atoms is a term of its own, its value a function
                // of theirs: a matrix product skips a zero factor, two scalars multiply as
                // IEEE numbers (0 * Inf is NaN), so the term is one or the other.
                (Some(a), Some(c))
                    if a.is_atom(p) && c.is_atom(q) && kind == ProductKind::Masking =>
                {
                    Some(Signature::atom(e))
                }
                (Some(_), Some(_)) => return Err(Unreachable),
                (Some(s), None) => scaled(s, q, false, matmul, kind, env)?,
                (None, Some(s)) => scaled(s, p, true, matmul, kind, env)?,
            }
        }
        // A whole non-negative power is a product; a negative power of 0 is infinite, a
        // fractional power of a negative number NaN.
        Pow(x, k) => match signature(x, env)? {
            None if (*k >= 0.0 && k.fract() == 0.0)
                || sign_with_sizes(x, env) == Some(Sign::Positive)
                || (k.fract() == 0.0 && sign_with_sizes(x, env).is_some_and(Sign::nonzero))
                || (*k > 0.0 && sign_with_sizes(x, env).is_some_and(Sign::not_negative)) =>
            {
                None
            }
            None => Some(Signature::atom(e)),
            Some(s) if s.is_atom(x) => Some(Signature::atom(e)),
            Some(_) => return Err(Unreachable),
        },
        Func { name, args } => func(e, name, args, env)?,
    })
}

/// The signature of a function application.
fn func(e: &LaExpr, name: &str, args: &[LaExpr], env: &ShapeEnv) -> Sig {
    use LaExpr::*;
    let sigs = args
        .iter()
        .map(|a| signature(a, env))
        .collect::<Result<Vec<_>, _>>()?;
    if sigs.iter().all(Option::is_none) {
        if !partial(name, args, env) {
            return Ok(None);
        }
        let atom = root_of_smallest(name, args).unwrap_or_else(|| e.clone());
        return Ok(Some(Signature::atom(&atom)));
    }
    // A division by a value never zero (a number, a size, a positive input) scales its
    // numerator.
    if let ("/", [_, y], [Some(s), None]) = (name, args, sigs.as_slice()) {
        if let Some(sign) = sign_with_sizes(y, env).filter(|s| s.nonzero()) {
            let (r, c) = env.shape_of(y).map_err(|_| Unreachable)?;
            let ones = Fill(b(Const(1.0)), r, c);
            let s = s.clone().map(&|t| Mul(b(ones.clone()), b(t)));
            return Ok(Some(if sign.not_negative() { s } else { s.negated() }));
        }
    }
    // Cells only moved or picked: each part keeps its terms where the cells go.
    let moves = matches!(name, "rev" | "diag" | "as.scalar" | "as.matrix" | "cumsum")
        || (name == INDEX && sigs[1..].iter().all(Option::is_none));
    if moves {
        let Some(s) = &sigs[0] else {
            return Err(Unreachable);
        };
        let rest = &args[1..];
        return Ok(Some(s.clone().map(&|t| {
            let mut all = vec![t];
            all.extend(rest.iter().cloned());
            Func {
                name: name.to_string(),
                args: all,
            }
        })));
    }
    // An extreme of an atom that leaves the reals only as NaN is NaN exactly where the sum
    // of the same cells is (NaN propagates through both, and neither meets an infinity):
    // it stands as that sum, so `max(A / A)` and `mean(A / A)` match.
    if let ([x], [Some(s)]) = (args, sigs.as_slice()) {
        if s.is_atom(x) && only_nan(x, env) {
            let x = b(x.clone());
            let sum_of_the_same_cells = match name {
                "max" | "min" => Some(Sum(x)),
                "rowMaxs" | "rowMins" => Some(RowSums(x)),
                "colMaxs" | "colMins" => Some(ColSums(x)),
                "cummax" | "cummin" => Some(Func {
                    name: "cumsum".into(),
                    args: vec![*x],
                }),
                _ => None,
            };
            if let Some(sum) = sum_of_the_same_cells {
                return Ok(Some(Signature::atom(&sum)));
            }
        }
    }
    if matches!(name, "cbind" | "rbind") && args.len() == 2 {
        let zeros = |x: &LaExpr| -> Result<LaExpr, Unreachable> {
            let (r, c) = env.shape_of(x).map_err(|_| Unreachable)?;
            Ok(Fill(b(Const(0.0)), r, c))
        };
        let part = |k: usize, pick: &dyn Fn(&Signature) -> Option<LaExpr>| match sigs[k]
            .as_ref()
            .and_then(pick)
        {
            Some(t) => Ok(t),
            None => zeros(&args[k]),
        };
        let side = |pick: &dyn Fn(&Signature) -> Option<LaExpr>| -> Result<_, Unreachable> {
            let (l, r) = (part(0, pick)?, part(1, pick)?);
            Ok(Some(Func {
                name: name.to_string(),
                args: vec![l, r],
            }))
        };
        return Ok(Some(Signature {
            plus: side(&|s| s.plus.clone())?,
            minus: side(&|s| s.minus.clone())?,
        }));
    }
    // Any other function of partial atoms (not of sums of them) is a partial atom itself:
    // its value is a function of theirs.
    if args
        .iter()
        .zip(&sigs)
        .all(|(a, s)| s.as_ref().is_none_or(|s| s.is_atom(a)))
    {
        return Ok(Some(Signature::atom(e)));
    }
    Err(Unreachable)
}

/// `e` with each root over itself, `sqrt(v) / sqrt(v)` for `v` never negative, written
/// `v / v`: both are 1 where `v` is positive and NaN where it is 0 (`sd(X) / sd(X)` is
/// `var(X) / var(X)`).
pub(super) fn roots_over_themselves_unrooted(e: &LaExpr, env: &ShapeEnv) -> LaExpr {
    e.map(&|x| match x {
        LaExpr::Func { name, args } if name == "/" && args.len() == 2 && args[0] == args[1] => {
            let LaExpr::Func {
                name: root,
                args: v,
            } = &args[0]
            else {
                return None;
            };
            let [v] = v.as_slice() else {
                return None;
            };
            (root == "sqrt" && sign_of(v, env).is_some_and(Sign::not_negative)).then(|| {
                LaExpr::Func {
                    name: "/".into(),
                    args: vec![v.clone(), v.clone()],
                }
            })
        }
        _ => None,
    })
}

/// `e` with each finite value over itself (`A / A`) as the ones it is wherever it is a
/// number (`0 / 0` is NaN, which the signature keeps); `None` when there is none.
pub(super) fn self_quotients_as_ones(e: &LaExpr, env: &ShapeEnv) -> Option<LaExpr> {
    let replaced = std::cell::Cell::new(false);
    let done = e.map(&|x| match x {
        LaExpr::Func { name, args } if name == "/" && args.len() == 2 => {
            let [num, den] = args.as_slice() else {
                return None;
            };
            if num != den || !matches!(signature(num, env), Ok(None)) {
                return None;
            }
            let (r, c) = env.shape_of(num).ok()?;
            replaced.set(true);
            Some(LaExpr::Fill(b(LaExpr::Const(1.0)), r, c))
        }
        _ => None,
    });
    replaced.get().then_some(done)
}

/// The root of the smallest of finite cells is NaN exactly where one of them is negative,
/// as the sum of their roots is: `sqrt(min(A))` (what `min(sqrt(A))` is moved to) stands as
/// `sum(sqrt(A))`, so it matches `max(sqrt(A))` and `mean(sqrt(A))`.
fn root_of_smallest(name: &str, args: &[LaExpr]) -> Option<LaExpr> {
    use LaExpr::*;
    let (
        "sqrt",
        [Func {
            name: extreme,
            args: cells,
        }],
    ) = (name, args)
    else {
        return None;
    };
    let [x] = cells.as_slice() else {
        return None;
    };
    let root = Func {
        name: "sqrt".into(),
        args: vec![x.clone()],
    };
    Some(match extreme.as_str() {
        "min" => Sum(b(root)),
        "rowMins" => RowSums(b(root)),
        "colMins" => ColSums(b(root)),
        "cummin" => Func {
            name: "cumsum".into(),
            args: vec![root],
        },
        _ => return None,
    })
}

/// Whether the partial atom `a` leaves the reals only as NaN, never as an infinity: the
/// root of a finite value, a positive fractional power of one (a negative base gives NaN,
/// 0 gives 0), a finite value over itself (`0 / 0`).
fn only_nan(a: &LaExpr, env: &ShapeEnv) -> bool {
    let finite = |x: &LaExpr| matches!(signature(x, env), Ok(None));
    match a {
        LaExpr::Func { name, args } => match (name.as_str(), args.as_slice()) {
            ("sqrt", [x]) => finite(x),
            ("/", [x, y]) => x == y && finite(x),
            _ => false,
        },
        LaExpr::Pow(x, k) => *k > 0.0 && k.fract() != 0.0 && finite(x),
        _ => false,
    }
}

/// The signature of `factor * s` (or `s * factor`; `%*%` when `matmul`) where the factor
/// has no partial atom.
fn scaled(
    s: Signature,
    factor: &LaExpr,
    factor_first: bool,
    matmul: bool,
    kind: ProductKind,
    env: &ShapeEnv,
) -> Sig {
    use LaExpr::*;
    let (r, c) = env.shape_of(factor).map_err(|_| Unreachable)?;
    let times = |f: LaExpr, t: LaExpr| {
        let (x, y) = if factor_first { (f, t) } else { (t, f) };
        if matmul {
            MatMul(b(x), b(y))
        } else {
            Mul(b(x), b(y))
        }
    };
    // A factor that is 0 in every cell (`0 * B`, finite as it has no partial atom) masks
    // every cell of a matrix product; two scalars multiply as IEEE numbers (0 * Inf is
    // NaN).
    if zero(factor) {
        return if kind == ProductKind::Masking {
            Ok(None)
        } else {
            Err(Unreachable)
        };
    }
    if as_constant(factor).is_some_and(|k| !k.is_finite()) {
        return Err(Unreachable);
    }
    // A factor never zero (a number, a size, a positive input) scales without masking,
    // and flips infinities if negative.
    if let Some(sign) = sign_with_sizes(factor, env).filter(|s| s.nonzero()) {
        let ones = Fill(b(Const(1.0)), r, c);
        let s = s.map(&|t| times(ones.clone(), t));
        return Ok(Some(if sign.not_negative() { s } else { s.negated() }));
    }
    // Any other factor stands as itself: its zeros mask (or, for two scalars, make NaN)
    // and its sign flips an infinity, so both sides must carry it alike. An input (or a
    // slice or transpose of one) is that already; anything else is wrapped, so that its
    // canonical form is not multiplied out (`(B - C) * log(A)` skips where B = C, `B *
    // log(A) - C * log(A)` is NaN there).
    let wrapped = |how: &str| Func {
        name: how.into(),
        args: vec![factor.clone()],
    };
    let factor = match (kind, single_atom(factor, env)) {
        (ProductKind::Unknown, _) => return Err(Unreachable),
        // `0 * Inf` is NaN between scalars: a scalar factor is never a bare input.
        (ProductKind::Ieee, _) => wrapped(SCALAR_FACTOR),
        (ProductKind::Masking, Some(1.0)) => factor.clone(),
        // `-2 B` times a term is `B` times it, subtracted.
        (ProductKind::Masking, Some(k)) => {
            let unit = Mul(b(Const(1.0 / k)), b(factor.clone()));
            let s = s.map(&|t| times(unit.clone(), t));
            return Ok(Some(if k > 0.0 { s } else { s.negated() }));
        }
        (ProductKind::Masking, None) => wrapped(MASKING_FACTOR),
    };
    Ok(Some(s.map(&|t| times(factor.clone(), t))))
}

/// The coefficient, a number, when the canonical form of `e` is one atom times it, not
/// summed over.
fn single_atom(e: &LaExpr, env: &ShapeEnv) -> Option<f64> {
    let p = Normalizer::new(env).top(e).ok()?;
    let [t] = p.terms.as_slice() else {
        return None;
    };
    let [(monomial, k)] = t.coef.0.iter().collect::<Vec<_>>()[..] else {
        return None;
    };
    let number = monomial.is_empty() && *k != 0.0 && k.is_finite();
    (number && t.atoms.len() == 1 && t.bound.is_empty()).then_some(*k)
}

/// `p + q` (or `p - q` when `subtract`) of two signatures.
fn join(p: Option<Signature>, q: Option<Signature>, subtract: bool) -> Option<Signature> {
    let q = if subtract {
        q.map(Signature::negated)
    } else {
        q
    };
    match (p, q) {
        (None, x) | (x, None) => x,
        (Some(p), Some(q)) => Some(Signature {
            plus: add(p.plus, q.plus),
            minus: add(p.minus, q.minus),
        }),
    }
}

fn add(a: Option<LaExpr>, c: Option<LaExpr>) -> Option<LaExpr> {
    match (a, c) {
        (None, x) | (x, None) => x,
        (Some(a), Some(c)) => Some(LaExpr::Add(b(a), b(c))),
    }
}

impl Signature {
    fn atom(e: &LaExpr) -> Signature {
        Signature {
            plus: Some(e.clone()),
            minus: None,
        }
    }

    fn is_atom(&self, e: &LaExpr) -> bool {
        self.plus.as_ref() == Some(e) && self.minus.is_none()
    }

    fn negated(self) -> Signature {
        Signature {
            plus: self.minus,
            minus: self.plus,
        }
    }

    fn map(self, f: &dyn Fn(LaExpr) -> LaExpr) -> Signature {
        Signature {
            plus: self.plus.map(f),
            minus: self.minus.map(f),
        }
    }
}

/// The first partial atom of `e`, as text, to name in a verdict.
pub(super) fn first_partial_atom(e: &LaExpr, env: &ShapeEnv) -> Option<String> {
    let mut found = None;
    e.visit(&mut |x| {
        if found.is_some() {
            return;
        }
        let partial_here = match x {
            LaExpr::Func { name, args } => partial(name, args, env),
            LaExpr::Pow(..) => matches!(signature(x, env), Ok(Some(s)) if s.is_atom(x)),
            _ => false,
        };
        if partial_here {
            found = Some(x.to_string());
        }
    });
    found
}
