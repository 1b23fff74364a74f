//! Deciding equivalence of two LA expressions, with a witness when they differ.
//!
//! # How it is decided
//!
//! 1. Both sides are normalized with one [`Normalizer`] (so their atoms are
//!    comparable) and the canonical difference `lhs - rhs` is formed. If it is empty,
//!    the sides are equal for inputs of every size: isomorphic terms denote the same
//!    function (Theorem A.3, left to right), and dimension-polynomial coefficients that
//!    cancel symbolically cancel for every size.
//! 2. Theorem A.3's converse needs room: a witness maps every index of a term to its own
//!    position, so a dimension must be at least as large as the number of indices of
//!    that dimension in a term. Symbolic dimensions can be chosen that large. A *known*
//!    dimension that is too small (the paper's caveat: `Σ x(i,j) y(i,j)` and
//!    `Σ x(i,j) y(j,i)` agree on 1×1 inputs) is expanded into its individual positions:
//!    each index of that dimension is replaced by each position, so the slices of every
//!    input along it become independent inputs, and the result is re-canonicalized. If
//!    the difference then vanishes, the sides are equal for those exact sizes. This is
//!    exact, unlike random polynomial identity testing, and cheap because only small
//!    dimensions are expanded.
//! 3. Otherwise the difference is a non-empty canonical polyterm whose terms all fit
//!    (or whose coefficient polynomials are non-zero for large enough sizes), so by
//!    Appendix A the sides differ for some input. A concrete witness is then searched:
//!    symbolic dimensions get sizes ≥ the number of indices the construction needs (and
//!    ≥ 2), inputs get small random non-zero integers on a leading block that covers the
//!    construction's positions (zeros elsewhere), and both sides are evaluated with the
//!    real kernels ([`crate::eval::eval`]). The difference is a non-zero polynomial in
//!    those entries, so by Schwartz–Zippel a random point is a witness with probability
//!    ≥ 1 - degree/#values; attempts widen the value range and vary the sizes (to avoid
//!    roots of dimension-polynomial coefficients).
//!
//! Opaque atoms (`exp`, `/` by a non-constant, comparisons, non-integer powers...) are
//! treated as independent variables, which is sound for "equivalent" over the reals
//! (equal arguments give equal results; where an atom may be NaN or infinite, the proof
//! stands only if both sides are so at the same cells, `canon/domain.rs`) but not for
//! "not equivalent": `sqrt(X)^2` and `X` have different
//! canonical forms yet agree on non-negative inputs. So when the difference mentions an
//! opaque atom, "not equivalent" is only reported with a numeric witness, and
//! [`Equivalence::Unknown`] says so when none is found.
//!
//! Before that, two steps see beyond the sum-product fragment: identities of `min`/`max`
//! aggregates, blocks, indexing and `rev` rewrite both sides first
//! (`canon/simplify.rs`), and a difference in opaque atoms is decided cell by cell as
//! piecewise rational functions (`canon/piecewise.rs`), through operators both sides
//! share (`sum(max(A, 0) + min(A, 0))` and `sum(A)`). With cut points (`spores equiv
//! --size k<m`), both sides are also cut into blocks at them and compared block by block
//! (`canon/blocks.rs`), and a witness gives each cut a size below its dimension.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt;

use spores_exec::matrix::approx_eq_f64;
use spores_exec::{DenseMatrix, Matrix};

use super::along::{along, Along};
use super::error::EquivError;
use super::normal::Normalizer;
use super::simplify::{simplify, unrolled};
use super::{Atom, Coef, Poly, Polyterm, Rel, Slot, Term};
use crate::eval::eval;
use crate::la::{Dim, LaExpr, Shape, ShapeEnv, SizeForm};

/// The answer of [`equiv`].
#[derive(Clone, Debug)]
pub enum Equivalence {
    /// Equal for all inputs of the given shapes (every size of a symbolic dimension).
    Equivalent,
    /// Not equal: the witness shows inputs on which the two values differ.
    NotEquivalent(Box<Witness>),
    /// The canonical forms differ, but no witness was found: either the difference
    /// lies in opaque functions (which may have identities the canonical form cannot
    /// see), or the witness would be too large to build. Never a claim of equivalence.
    Unknown(String),
}

/// Concrete inputs on which two expressions differ.
#[derive(Clone, Debug)]
pub struct Witness {
    /// The sizes chosen for symbolic dimensions.
    pub sizes: BTreeMap<String, usize>,
    /// Every input of either side.
    pub inputs: BTreeMap<String, Matrix>,
    /// The value of the left-hand side on `inputs`.
    pub lhs: Matrix,
    /// The value of the right-hand side on `inputs`.
    pub rhs: Matrix,
    /// The canonical form of `lhs - rhs`, which says why the two differ.
    pub difference: String,
}

impl Witness {
    /// The inputs in the form [`eval`] takes.
    pub fn input_map(&self) -> HashMap<String, Matrix> {
        self.inputs
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    }
}

fn show(s: &Shape) -> String {
    format!("{}x{}", s.0, s.1)
}

/// Witness attempts before giving up.
const ATTEMPTS: u64 = 48;
/// Largest dimension a witness fills with values all the way.
const FULL_SUPPORT: usize = 16;
/// Largest total number of input cells a witness may have.
const MAX_CELLS: usize = 2_000_000;
/// Relative tolerance under which two values count as equal. Sum-product witnesses use
/// small integers, so their values are exact; the tolerance only matters for opaque
/// functions.
const RTOL: f64 = 1e-9;
/// Differences below this fraction of the largest value count as rounding noise.
const NOISE: f64 = 1e-12;

/// Decides whether `lhs` and `rhs` are equal for all inputs of the shapes in `env`
/// (symbolic dimensions standing for every size > 1; `env.nnz[X] == 0` marking `X` as
/// all zeros). See the module documentation for the procedure.
pub fn equiv(lhs: &LaExpr, rhs: &LaExpr, env: &ShapeEnv) -> Result<Equivalence, EquivError> {
    decide(lhs, rhs, env, true, None)
}

/// Whether `lhs` and `rhs` are proved equal for all real values of their atoms; cheaper
/// than [`equiv`] because it never searches for a witness. The optimizer uses it to check
/// every plan it is about to run, whose rewrites are those of the reals (where a cell may
/// be NaN or infinite, a root that must keep it is planned exactly as written). [`equiv`]
/// asks more: the same NaN and infinite cells too.
pub fn provably_equivalent(lhs: &LaExpr, rhs: &LaExpr, env: &ShapeEnv) -> Result<bool, EquivError> {
    Ok(matches!(
        decide_over_reals(lhs, rhs, env, false, None)?,
        Equivalence::Equivalent
    ))
}

/// [`provably_equivalent`] that gives up ([`EquivError::TooLarge`]) past `deadline`, for
/// a caller with a time limit of its own (`spores optimize --time-limit-ms`). The answer
/// then depends on the machine's speed, which the optimizer's own checks must not.
pub fn provably_equivalent_until(
    lhs: &LaExpr,
    rhs: &LaExpr,
    env: &ShapeEnv,
    deadline: std::time::Instant,
) -> Result<bool, EquivError> {
    Ok(matches!(
        decide_over_reals(lhs, rhs, env, false, Some(deadline))?,
        Equivalence::Equivalent
    ))
}

/// The first function in `e` whose result shape was assumed, not known.
fn assumed_shape(e: &LaExpr) -> Option<String> {
    let mut found = None;
    e.visit(&mut |node| {
        if let LaExpr::Func { name, args } = node {
            if found.is_none() && !crate::functions::has_known_shape(name, args.len()) {
                found = Some(name.clone());
            }
        }
    });
    found
}

/// [`decide_over_reals`], whose proof stands only where both sides leave the reals
/// alike: NaN or infinite at the same cells ([`super::domain`]). Otherwise a witness is
/// searched for, as `spores run` computes the sides.
fn decide(
    lhs: &LaExpr,
    rhs: &LaExpr,
    env: &ShapeEnv,
    want_witness: bool,
    deadline: Option<std::time::Instant>,
) -> Result<Equivalence, EquivError> {
    let verdict = decide_over_reals(lhs, rhs, env, want_witness, deadline)?;
    if matches!(verdict, Equivalence::NotEquivalent(_)) || lhs == rhs {
        return Ok(verdict);
    }
    let (Ok(l), Ok(r)) = (
        lhs.resolve_keeping_kinds(env),
        rhs.resolve_keeping_kinds(env),
    ) else {
        return Ok(verdict);
    };
    if let Equivalence::Unknown(_) = verdict {
        // Some identities hold only with NaN and the infinities in the picture: `log(A) >
        // 0` is `A > 1` as `log(A)` is NaN or `-Inf` wherever `A <= 0`.
        return Ok(
            if proved_as_computed(&l, &r, env)?
                || proved_with_self_quotients_as_ones(&l, &r, env, deadline)?
            {
                Equivalence::Equivalent
            } else {
                verdict
            },
        );
    }
    if super::domain::same_non_finite_cells(&l, &r, env)?
        || proved_as_computed(&l, &r, env)?
        || proved_with_vanishing_divisor(&l, &r, env, deadline)?
        || proved_with_inputs_vanishing(&l, &r, env)?
    {
        return Ok(verdict);
    }
    let atom = super::domain::first_partial_atom(&l, env)
        .or_else(|| super::domain::first_partial_atom(&r, env))
        .unwrap_or_default();
    let why = format!(
        "the sides are equal over the reals, but `{atom}` may be NaN or infinite, and they \
         may not be so at the same cells"
    );
    if !want_witness {
        return Ok(Equivalence::Unknown(why));
    }
    let written: Vec<String> = lhs.vars().into_iter().chain(rhs.vars()).collect();
    Ok(
        match search_witness(&l, &r, &written, env, &BTreeMap::new(), true, why.clone()) {
            Equivalence::Unknown(_) => Equivalence::Unknown(format!(
                "{why}; no input on which they differ was found in {ATTEMPTS} tries"
            )),
            decided => decided,
        },
    )
}

/// Whether `lhs = rhs` over the reals once each finite value over itself is the ones it
/// is wherever it is a number (`mean(A / A) == max(A / A)`), with both sides NaN or
/// infinite at the same cells ([`super::domain`]).
fn proved_with_self_quotients_as_ones(
    lhs: &LaExpr,
    rhs: &LaExpr,
    env: &ShapeEnv,
    deadline: Option<std::time::Instant>,
) -> Result<bool, EquivError> {
    use super::domain::{roots_over_themselves_unrooted, self_quotients_as_ones};
    let (lhs, rhs) = (
        &roots_over_themselves_unrooted(lhs, env),
        &roots_over_themselves_unrooted(rhs, env),
    );
    let (l, r) = match (
        self_quotients_as_ones(lhs, env),
        self_quotients_as_ones(rhs, env),
    ) {
        (None, None) => return Ok(false),
        (l, r) => (
            l.unwrap_or_else(|| lhs.clone()),
            r.unwrap_or_else(|| rhs.clone()),
        ),
    };
    let over_reals = decide_over_reals(&l, &r, env, false, deadline);
    Ok(matches!(over_reals, Ok(Equivalence::Equivalent))
        && super::domain::same_non_finite_cells(lhs, rhs, env)?)
}

/// The divisors of `lhs` and `rhs`, each once, but those never 0 (sizes, `length(X) - 1`),
/// which divide as numbers do.
fn divisors_that_may_vanish(lhs: &LaExpr, rhs: &LaExpr, env: &ShapeEnv) -> Vec<LaExpr> {
    let mut divisors: Vec<LaExpr> = Vec::new();
    for side in [lhs, rhs] {
        side.visit(&mut |e| {
            if let LaExpr::Func { name, args } = e {
                if name == "/" && args.len() == 2 && !divisors.contains(&args[1]) {
                    divisors.push(args[1].clone());
                }
            }
        });
    }
    divisors.retain(|d| !super::simplify::sign_of(d, env).is_some_and(|s| s.nonzero()));
    divisors
}

/// Where a divisor is 0: exactly where one input is all zeros, or constant, in all its
/// cells, in a row or in a column ([`vanishing`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Vanishing<'a> {
    input: &'a str,
    /// [`Along::Free`] for the whole input, else its rows or its columns.
    along: Along,
    /// 0 where the cells are constant (`max(x) - min(x)`), not only where they are 0.
    at_constant: bool,
}

/// Where `d` is 0, when that is where one input `x` is all zeros (`max(abs(x))`,
/// `sum(abs(x))`, `sum(x^2)` or their root; `rowSums(x^2)`, `rowMaxs(abs(x))`, ... by
/// rows; the same by columns) or constant (`max(x) - min(x)`, `rowMaxs(x) - rowMins(x)`,
/// `colMaxs(x) - colMins(x)`).
fn vanishing<'a>(d: &'a LaExpr, env: &ShapeEnv) -> Option<Vanishing<'a>> {
    use LaExpr::*;
    if let Some(centred) = centred_squares(d, env) {
        return Some(centred);
    }
    fn one(e: &LaExpr) -> Option<(&str, &str)> {
        match e {
            LaExpr::Func { name, args } if args.len() == 1 => match &args[0] {
                LaExpr::Var(x) => Some((name.as_str(), x.as_str())),
                _ => None,
            },
            _ => None,
        }
    }
    if let Sub(hi, lo) = d {
        let ((hi, x), (lo, y)) = (one(hi)?, one(lo)?);
        let along = match (hi, lo) {
            ("max", "min") => Along::Free,
            ("rowMaxs", "rowMins") => Along::Rows,
            ("colMaxs", "colMins") => Along::Cols,
            _ => return None,
        };
        return (x == y).then_some(Vanishing {
            input: x,
            along,
            at_constant: true,
        });
    }
    let d = match d {
        Func { name, args } if name == "sqrt" && args.len() == 1 => &args[0],
        _ => d,
    };
    let (inner, along) = match d {
        Sum(x) => (x.as_ref(), Along::Free),
        RowSums(x) => (x.as_ref(), Along::Rows),
        ColSums(x) => (x.as_ref(), Along::Cols),
        Func { name, args } if args.len() == 1 => {
            let along = match name.as_str() {
                "max" => Along::Free,
                "rowMaxs" => Along::Rows,
                "colMaxs" => Along::Cols,
                _ => return None,
            };
            match &args[0] {
                abs @ Func { name, args } if name == "abs" && args.len() == 1 => (abs, along),
                _ => return None,
            }
        }
        _ => return None,
    };
    let x = match inner {
        Func { name, args } if name == "abs" && args.len() == 1 => &args[0],
        Pow(x, k) if *k == 2.0 => x.as_ref(),
        Mul(x, y) if x == y => x.as_ref(),
        _ => return None,
    };
    match x {
        Var(x) => Some(Vanishing {
            input: x,
            along,
            at_constant: false,
        }),
        _ => None,
    }
}

/// Where `d` is 0 when it is a sum of squares about the mean, or its root, divided by a
/// value never 0 (`sd(x)`, `var(x)`, `sqrt(colSums((x - colMeans(x))^2))`): where `x` (a
/// row, a column of it) is constant.
fn centred_squares<'a>(d: &'a LaExpr, env: &ShapeEnv) -> Option<Vanishing<'a>> {
    use LaExpr::*;
    let never_zero = |k: &LaExpr| super::simplify::sign_of(k, env).is_some_and(|s| s.nonzero());
    let d = match d {
        Func { name, args } if name == "sqrt" && args.len() == 1 => &args[0],
        _ => d,
    };
    let d = match d {
        Func { name, args } if name == "/" && args.len() == 2 && never_zero(&args[1]) => &args[0],
        _ => d,
    };
    let (squares, along) = match d {
        Sum(x) => (x.as_ref(), Along::Free),
        RowSums(x) => (x.as_ref(), Along::Rows),
        ColSums(x) => (x.as_ref(), Along::Cols),
        _ => return None,
    };
    let Pow(centred, k) = squares else {
        return None;
    };
    let Sub(x, mean) = centred.as_ref() else {
        return None;
    };
    let (Var(input), Func { name, args }) = (x.as_ref(), mean.as_ref()) else {
        return None;
    };
    let total = match (along, args.first()) {
        (Along::Free, Some(Sum(y)))
        | (Along::Rows, Some(RowSums(y)))
        | (Along::Cols, Some(ColSums(y))) => y,
        _ => return None,
    };
    let is_mean = name == "/" && args.len() == 2 && total == x && never_zero(&args[1]);
    (*k == 2.0 && is_mean).then_some(Vanishing {
        input,
        along,
        at_constant: true,
    })
}

/// `e` with every extreme or mean of a constant matrix (`colMins(matrix(c, m, n))`) folded
/// to that constant, bottom up.
fn constants_folded(e: &LaExpr) -> LaExpr {
    use LaExpr::*;
    let folded = super::simplify::map_children(e, &mut |x| constants_folded(x));
    let Func { name, args } = &folded else {
        return folded;
    };
    let [Fill(v, rows, cols)] = args.as_slice() else {
        return folded;
    };
    let one = || Dim::Known(1);
    match name.as_str() {
        "max" | "min" | "mean" => (**v).clone(),
        "rowMaxs" | "rowMins" | "rowMeans" => Fill(v.clone(), rows.clone(), one()),
        "colMaxs" | "colMins" | "colMeans" => Fill(v.clone(), one(), cols.clone()),
        "cummax" | "cummin" | "rev" => Fill(v.clone(), rows.clone(), cols.clone()),
        _ => folded,
    }
}

/// Whether `lhs = rhs` (equal over the reals) also where their divisors are 0, when each
/// is 0 exactly where one input `x` is all zeros (`sum((g / sqrt(sum(g^2)))^2) ==
/// sum(g^2) / sum(g^2)`, `max(X / max(abs(X))) == max(X) / max(abs(X))`), or where a row
/// of `x` is (`rowSums(X / rowSums(abs(X))) == rowSums(X) / rowSums(abs(X))`), or a
/// column, or where `x` (a row, a column) is constant (`max(X) - min(X)`, `sd(X)`). Where
/// they are not 0 every atom is a number (no other may leave the reals), so the real proof
/// holds; where they are, `x` (its row) is 0 or a constant `c`, and both sides (their
/// rows) are NaN in every cell.
fn proved_with_vanishing_divisor(
    lhs: &LaExpr,
    rhs: &LaExpr,
    env: &ShapeEnv,
    deadline: Option<std::time::Instant>,
) -> Result<bool, EquivError> {
    let divisors = divisors_that_may_vanish(lhs, rhs, env);
    // Every divisor 0 exactly where one input (or its row, or its column) is all zeros,
    // or all the same.
    let places: Vec<Option<Vanishing>> = divisors.iter().map(|d| vanishing(d, env)).collect();
    let Some(Some(place)) = places.first().copied() else {
        return Ok(false);
    };
    if places.iter().any(|p| *p != Some(place)) {
        return Ok(false);
    }
    let x = place.input;
    if !only_quotients_leave_the_reals(lhs, rhs, env) {
        return Ok(false);
    }
    let Some((rows, cols)) = env.shapes.get(x).cloned() else {
        return Ok(false);
    };
    let (lhs, rhs) = match place.along {
        Along::Free => (lhs.clone(), rhs.clone()),
        rowwise => {
            let Some(sides) = row_by_row(lhs, rhs, env, &rows, &cols, rowwise) else {
                return Ok(false);
            };
            sides
        }
    };
    // Where the divisors are 0, `x` is zeros, or one number `c` that may be any.
    let mut at_env = env.clone();
    let value = if place.at_constant {
        let mut c = String::from("c");
        while at_env.shapes.contains_key(&c) {
            c.push('\'');
        }
        at_env.matrix(&c, Dim::Known(1), Dim::Known(1));
        at_env.scalars.insert(c.clone());
        LaExpr::Var(c)
    } else {
        LaExpr::Const(0.0)
    };
    let filled = LaExpr::Fill(Box::new(value), rows, cols);
    let at_zero = |e: &LaExpr| {
        constants_folded(&e.map(&|y| match y {
            LaExpr::Var(name) if name == x => Some(filled.clone()),
            _ => None,
        }))
    };
    let zero_divisors: Vec<LaExpr> = divisors.iter().map(at_zero).collect();
    for d in &zero_divisors {
        if !vanishes(d, &at_env)? {
            return Ok(false);
        }
    }
    Ok(nan_everywhere(&at_zero(&lhs), &zero_divisors, &at_env)?
        && nan_everywhere(&at_zero(&rhs), &zero_divisors, &at_env)?
        && (place.along == Along::Free
            || matches!(
                decide_over_reals(&lhs, &rhs, env, false, deadline),
                Ok(Equivalence::Equivalent)
            )))
}

/// Whether `e` is 0 in every cell for every input: [`zero_everywhere`], a constant less
/// itself, a root or a quotient by a value never 0 of such, or a sum-product form that is
/// 0 as a polynomial (`sum((c - sum(matrix(c, m, n)) / (m n))^2)`).
fn vanishes(e: &LaExpr, env: &ShapeEnv) -> Result<bool, EquivError> {
    Ok(match e {
        LaExpr::Sub(x, y) if x == y => true,
        LaExpr::Func { name, args } if name == "sqrt" && args.len() == 1 => {
            vanishes(&args[0], env)?
        }
        LaExpr::Func { name, args }
            if name == "/"
                && args.len() == 2
                && super::simplify::sign_of(&args[1], env).is_some_and(|s| s.nonzero()) =>
        {
            vanishes(&args[0], env)?
        }
        _ => zero_everywhere(e) || zero_as_polynomial(e, env)?,
    })
}

/// Whether the canonical form of `e` is empty, when every quotient in `e` is by a value
/// never 0 (so that it is a product with a reciprocal, as the form reads it).
fn zero_as_polynomial(e: &LaExpr, env: &ShapeEnv) -> Result<bool, EquivError> {
    let mut partial_quotient = false;
    e.visit(&mut |y| {
        if let LaExpr::Func { name, args } = y {
            partial_quotient |= name == "/"
                && !(args.len() == 2
                    && super::simplify::sign_of(&args[1], env).is_some_and(|s| s.nonzero()));
        }
    });
    if partial_quotient {
        return Ok(false);
    }
    let mut norm = Normalizer::new(env);
    Ok(norm.top(e)?.terms.is_empty())
}

/// Whether no atom of `lhs` or `rhs` but a quotient may leave the reals: with each
/// quotient standing as a total product, neither side has a partial atom.
fn only_quotients_leave_the_reals(lhs: &LaExpr, rhs: &LaExpr, env: &ShapeEnv) -> bool {
    let total = |e: &LaExpr| {
        e.map(&|y| match y {
            LaExpr::Func { name, args } if name == "/" && args.len() == 2 => Some(LaExpr::Mul(
                Box::new(args[0].clone()),
                Box::new(LaExpr::Func {
                    name: "exp".into(),
                    args: vec![args[1].clone()],
                }),
            )),
            _ => None,
        })
    };
    [lhs, rhs]
        .iter()
        .all(|side| super::domain::first_partial_atom(&total(side), env).is_none())
}

/// The inputs where `d` is 0: where one of them is all zeros (`sum(u^2)`, a product of
/// such, their root), or `None`.
fn zero_inputs<'a>(d: &'a LaExpr, env: &ShapeEnv) -> Option<BTreeSet<&'a str>> {
    match d {
        LaExpr::Func { name, args } if name == "sqrt" && args.len() == 1 => {
            zero_inputs(&args[0], env)
        }
        LaExpr::Mul(a, b) => {
            let mut inputs = zero_inputs(a, env)?;
            inputs.extend(zero_inputs(b, env)?);
            Some(inputs)
        }
        _ => match vanishing(d, env)? {
            Vanishing {
                input,
                along: Along::Free,
                at_constant: false,
            } => Some(BTreeSet::from([input])),
            _ => None,
        },
    }
}

/// [`proved_with_vanishing_divisor`] for divisors that are 0 where any of several inputs is
/// all zeros (`sum(u * v) / sqrt(sum(u^2) * sum(v^2))`, cosine similarity): with each of
/// them 0 in turn, whatever the others, both sides are NaN in every cell.
fn proved_with_inputs_vanishing(
    lhs: &LaExpr,
    rhs: &LaExpr,
    env: &ShapeEnv,
) -> Result<bool, EquivError> {
    let divisors = divisors_that_may_vanish(lhs, rhs, env);
    let mut inputs: BTreeSet<&str> = BTreeSet::new();
    for d in &divisors {
        let Some(of_d) = zero_inputs(d, env) else {
            return Ok(false);
        };
        inputs.extend(of_d);
    }
    if inputs.len() < 2 || !only_quotients_leave_the_reals(lhs, rhs, env) {
        return Ok(false);
    }
    for x in inputs {
        let Some((rows, cols)) = env.shapes.get(x).cloned() else {
            return Ok(false);
        };
        let zeros = LaExpr::Fill(Box::new(LaExpr::Const(0.0)), rows, cols);
        let at_zero = |e: &LaExpr| {
            e.map(&|y| match y {
                LaExpr::Var(name) if name == x => Some(zeros.clone()),
                _ => None,
            })
        };
        let zero_divisors: Vec<LaExpr> = divisors
            .iter()
            .map(at_zero)
            .filter(zero_everywhere)
            .collect();
        if !(nan_everywhere(&at_zero(lhs), &zero_divisors, env)?
            && nan_everywhere(&at_zero(rhs), &zero_divisors, env)?)
        {
            return Ok(false);
        }
    }
    Ok(true)
}

/// `lhs` and `rhs` as expressions computed row by row from the rows `rows` (`kind` is
/// [`Along::Rows`]) or column by column from the columns `cols` ([`along`]), whose
/// equality gives the sides' own: the sides themselves, or, under the same whole
/// aggregate on both (`sum`, `max`, `min`), their aggregates by rows (columns), since
/// `sum(e)` is the sum of `rowSums(e)` whatever the shape of `e`.
fn row_by_row(
    lhs: &LaExpr,
    rhs: &LaExpr,
    env: &ShapeEnv,
    rows: &Dim,
    cols: &Dim,
    kind: Along,
) -> Option<(LaExpr, LaExpr)> {
    use LaExpr::*;
    let d = match kind {
        Along::Rows => rows,
        Along::Cols => cols,
        Along::Free => return None,
    };
    if !env.cuts.is_empty() || d.is_one() {
        return None;
    }
    let local = |e: &LaExpr| along(e, env, d) == Some(kind);
    if local(lhs) && local(rhs) {
        return Some((lhs.clone(), rhs.clone()));
    }
    let aggregate = |e: &LaExpr| match e {
        Sum(x) => Some(("sum", x.as_ref().clone())),
        Func { name, args } if args.len() == 1 && (name == "max" || name == "min") => {
            Some((if name == "max" { "max" } else { "min" }, args[0].clone()))
        }
        _ => None,
    };
    let ((l_agg, l), (r_agg, r)) = (aggregate(lhs)?, aggregate(rhs)?);
    if l_agg != r_agg || !local(&l) || !local(&r) {
        return None;
    }
    let by_rows = kind == Along::Rows;
    let per = |x: LaExpr| match (l_agg, by_rows) {
        ("sum", true) => RowSums(Box::new(x)),
        ("sum", false) => ColSums(Box::new(x)),
        (extreme, _) => Func {
            name: format!(
                "{}{}s",
                if by_rows { "row" } else { "col" },
                if extreme == "max" { "Max" } else { "Min" }
            ),
            args: vec![x],
        },
    };
    Some((per(l), per(r)))
}

/// Whether every cell of `e` is NaN for every input: a quotient of a numerator that is 0
/// as a polynomial by one of `zero_divisors` (known to be 0), and what NaN passes through.
fn nan_everywhere(
    e: &LaExpr,
    zero_divisors: &[LaExpr],
    env: &ShapeEnv,
) -> Result<bool, EquivError> {
    let nan = |x: &LaExpr| nan_everywhere(x, zero_divisors, env);
    use LaExpr::*;
    let zero = |x: &LaExpr| -> Result<bool, EquivError> {
        Ok(zero_everywhere(x) || zero_as_polynomial(x, env)?)
    };
    Ok(match e {
        // 0 / 0, and NaN over anything or anything over NaN.
        Func { name, args } if name == "/" && args.len() == 2 => {
            (zero_divisors.contains(&args[1]) && zero(&args[0])?)
                || nan(&args[0])?
                || nan(&args[1])?
        }
        Sum(x) => match x.as_ref() {
            // NaN cells times a normalised input (`v / sqrt(sum(v^2))`: not 0 in some cell,
            // or NaN in all) sum to NaN, though a matrix cell times 0 is 0.
            Mul(p, q) if (nan(p)? && normalised(q, env)) || (nan(q)? && normalised(p, env)) => true,
            _ => nan(x)?,
        },
        RowSums(x) | ColSums(x) | Transpose(x) | Neg(x) => nan(x)?,
        Pow(x, k) if *k != 0.0 => nan(x)?,
        Add(x, y) | Sub(x, y) => nan(x)? || nan(y)?,
        // A matrix cell times 0 is 0: only a factor that is never 0 keeps the NaN.
        Mul(x, y) => {
            let never_zero = |z: &LaExpr| matches!(z, Const(c) if *c != 0.0 && c.is_finite());
            (nan(x)? && never_zero(y)) || (never_zero(x) && nan(y)?)
        }
        Func { name, args } if args.len() == 1 => {
            matches!(
                name.as_str(),
                "max"
                    | "min"
                    | "rowMaxs"
                    | "rowMins"
                    | "colMaxs"
                    | "colMins"
                    | "mean"
                    | "rowMeans"
                    | "colMeans"
                    | "sqrt"
                    | "exp"
                    | "log"
                    | "abs"
                    | "cummax"
                    | "cummin"
                    | "cumsum"
                    | "rev"
                    | "sigmoid"
            ) && nan(&args[0])?
        }
        _ => false,
    })
}

/// Whether `y` is an input over a divisor 0 only where that input is all zeros
/// (`v / sqrt(sum(v^2))`): some cell is not 0, or every cell is NaN.
fn normalised(y: &LaExpr, env: &ShapeEnv) -> bool {
    matches!(y, LaExpr::Func { name, args } if name == "/"
        && matches!(args.as_slice(), [LaExpr::Var(v), d]
            if zero_inputs(d, env).is_some_and(|inputs| inputs == BTreeSet::from([v.as_str()]))))
}

/// Whether every cell of `e`, an expression of finite numbers, is 0: zeros and what keeps
/// them (extremes, sums, `abs` and roots of zeros, products with a zero).
fn zero_everywhere(e: &LaExpr) -> bool {
    use LaExpr::*;
    match e {
        Const(c) => *c == 0.0,
        Fill(v, _, _) => zero_everywhere(v),
        Neg(x) | Transpose(x) | Sum(x) | RowSums(x) | ColSums(x) => zero_everywhere(x),
        Pow(x, k) => *k > 0.0 && zero_everywhere(x),
        Add(x, y) | Sub(x, y) => zero_everywhere(x) && zero_everywhere(y),
        Mul(x, y) | MatMul(x, y) => zero_everywhere(x) || zero_everywhere(y),
        Func { name, args } if args.len() == 1 => {
            matches!(
                name.as_str(),
                "max"
                    | "min"
                    | "rowMaxs"
                    | "rowMins"
                    | "colMaxs"
                    | "colMins"
                    | "mean"
                    | "rowMeans"
                    | "colMeans"
                    | "abs"
                    | "sqrt"
                    | "rev"
                    | "cumsum"
                    | "cummax"
                    | "cummin"
                    | "t"
            ) && zero_everywhere(&args[0])
        }
        _ => false,
    }
}

/// Whether the piecewise decision proves `lhs = rhs` (as written, with cells moved by the
/// rules that hold for NaN cells too ([`super::simplify::positional`]), or written out
/// cell by cell) with NaN, the infinities and the sign of zero as `spores run` computes
/// them, over leaves that never leave the reals.
fn proved_as_computed(lhs: &LaExpr, rhs: &LaExpr, env: &ShapeEnv) -> Result<bool, EquivError> {
    // Whether anything merged, not whether the forms compare equal: a NaN constant is
    // never equal to itself.
    let mut merged = false;
    let (merged_lhs, merged_rhs) = (
        sums_merged(lhs, env, &mut merged),
        sums_merged(rhs, env, &mut merged),
    );
    if merged {
        return proved_as_computed(&merged_lhs, &merged_rhs, env);
    }
    let mut same_leaf = |a: &LaExpr, b: &LaExpr| canonically_equal(a, b, env);
    let moved = |e: &LaExpr| super::simplify::positional(e, env);
    let (moved_lhs, moved_rhs) = (moved(lhs), moved(rhs));
    let mut forms = vec![
        (lhs.clone(), rhs.clone()),
        (moved_lhs.clone(), moved_rhs.clone()),
    ];
    // Products written out cell by cell would skip a zero factor that the kernels of
    // `prod`, `rowProds`, `colProds` and `cumprod` multiply as IEEE numbers (`0 * Inf` is
    // NaN there): only sums and extremes are written out here.
    let multiplies = |e: &LaExpr| {
        let mut found = false;
        e.visit(&mut |x| {
            found |= matches!(x, LaExpr::Func { name, .. }
                if matches!(name.as_str(), "prod" | "rowProds" | "colProds" | "cumprod"));
        });
        found
    };
    if !multiplies(lhs) && !multiplies(rhs) {
        let unrolled_lhs = unrolled(&moved_lhs, env).unwrap_or_else(|| moved_lhs.clone());
        let unrolled_rhs = unrolled(&moved_rhs, env).unwrap_or_else(|| moved_rhs.clone());
        forms.push((unrolled_lhs, unrolled_rhs));
    }
    for (l, r) in &forms {
        if super::piecewise::equal_cellwise_as_computed(l, r, env, &mut same_leaf)? {
            return Ok(true);
        }
    }
    // The same aggregate, transpose or function of arguments proved equal one by one
    // (not a division or power, which a zero's sign, left out of "equal", can change).
    let same_shape = |x: &LaExpr, y: &LaExpr| env.shape_of(x).ok() == env.shape_of(y).ok();
    Ok(match (lhs, rhs) {
        (LaExpr::Sum(a), LaExpr::Sum(b))
        | (LaExpr::RowSums(a), LaExpr::RowSums(b))
        | (LaExpr::ColSums(a), LaExpr::ColSums(b))
        | (LaExpr::Transpose(a), LaExpr::Transpose(b))
            if same_shape(a, b) =>
        {
            proved_as_computed(a, b, env)?
        }
        (LaExpr::Func { name: f, args: a }, LaExpr::Func { name: g, args: b })
            if f == g
                && a.len() == b.len()
                && a != b
                && !matches!(f.as_str(), "/" | "%/%" | "%%" | "^") =>
        {
            let mut all = true;
            for (x, y) in a.iter().zip(b) {
                if x != y && !(same_shape(x, y) && proved_as_computed(x, y, env)?) {
                    all = false;
                    break;
                }
            }
            all
        }
        _ => false,
    })
}

/// `e` with sums of the same kind over cells of one shape merged into one sum of their
/// cellwise combination: `-sum(a)` is `sum(-a)`, `k * sum(a)` is `sum(k * a)` for a
/// finite constant `k` other than 0, and `sum(a) - sum(c)` is `sum(a - c)`. These hold
/// with NaN and infinite cells too: a sum of numbers is NaN where they hold NaN or both
/// infinities, else the infinity they hold, whichever way they are grouped. (A zero
/// factor does not move in: `0 * sum(a)` is NaN where `sum(a)` is, `sum(0 * a)` is 0.)
fn sums_merged(e: &LaExpr, env: &ShapeEnv, merged_any: &mut bool) -> LaExpr {
    use LaExpr::*;
    let b = Box::new;
    let mut merged = |x: &LaExpr| sums_merged(x, env, merged_any);
    let rebuild = |kind: &LaExpr, cells: LaExpr| match kind {
        Sum(_) => Some(Sum(b(cells))),
        RowSums(_) => Some(RowSums(b(cells))),
        ColSums(_) => Some(ColSums(b(cells))),
        _ => None,
    };
    let cells = |x: &LaExpr| match x {
        Sum(a) | RowSums(a) | ColSums(a) => Some((**a).clone()),
        _ => None,
    };
    let same_kind = |x: &LaExpr, y: &LaExpr| std::mem::discriminant(x) == std::mem::discriminant(y);
    let finite_factor = |k: &f64| k.is_finite() && *k != 0.0;
    match e {
        Neg(x) => {
            let x = merged(x);
            match cells(&x) {
                Some(a) => {
                    *merged_any = true;
                    rebuild(&x, Neg(b(a))).unwrap_or(Neg(b(x)))
                }
                None => Neg(b(x)),
            }
        }
        Mul(k, x) | Mul(x, k) if matches!(k.as_ref(), Const(c) if finite_factor(c)) => {
            let x = merged(x);
            match cells(&x) {
                Some(a) => {
                    *merged_any = true;
                    rebuild(&x, Mul(k.clone(), b(a))).unwrap_or(Mul(k.clone(), b(x)))
                }
                None => Mul(k.clone(), b(x)),
            }
        }
        Add(x, y) | Sub(x, y) => {
            let (x, y) = (merged(x), merged(y));
            let combine = |p: LaExpr, q: LaExpr| match e {
                Add(..) => Add(b(p), b(q)),
                _ => Sub(b(p), b(q)),
            };
            match (cells(&x), cells(&y)) {
                (Some(a), Some(c))
                    if same_kind(&x, &y)
                        && matches!((env.shape_of(&a), env.shape_of(&c)), (Ok(p), Ok(q)) if p == q) =>
                {
                    *merged_any = true;
                    rebuild(&x, combine(a, c)).unwrap_or_else(|| combine(x, y))
                }
                _ => combine(x, y),
            }
        }
        _ => e.clone(),
    }
}

/// Whether `lhs = rhs` for all real values of their atoms (each may still be NaN or
/// infinite where `spores run` computes it: see [`decide`]).
fn decide_over_reals(
    lhs: &LaExpr,
    rhs: &LaExpr,
    env: &ShapeEnv,
    want_witness: bool,
    deadline: Option<std::time::Instant>,
) -> Result<Equivalence, EquivError> {
    let resolve = |e: &LaExpr, side: &'static str| {
        e.resolve(env).map_err(|err| EquivError::Shape {
            side,
            message: err.0,
        })
    };
    // The inputs as written: a size (`nrow(X)`) resolves away, but a witness must still
    // give `X` a value to evaluate the expressions as written.
    let written: Vec<String> = lhs.vars().into_iter().chain(rhs.vars()).collect();
    let (lhs, rhs) = (&resolve(lhs, "lhs")?, &resolve(rhs, "rhs")?);
    let sl = env.shape_of(lhs).map_err(|e| EquivError::Shape {
        side: "lhs",
        message: e.0,
    })?;
    let sr = env.shape_of(rhs).map_err(|e| EquivError::Shape {
        side: "rhs",
        message: e.0,
    })?;
    if sl != sr {
        if let Some(name) = assumed_shape(lhs).or_else(|| assumed_shape(rhs)) {
            return Ok(Equivalence::Unknown(format!(
                "the lhs is {}, the rhs {}, but `{name}` is not a function spores knows: its \
                 result was assumed to act cell by cell",
                show(&sl),
                show(&sr)
            )));
        }
        return Err(EquivError::ShapeMismatch {
            lhs: show(&sl),
            rhs: show(&sr),
        });
    }
    // A constant that is NaN or ±Inf (`0/0`) is a value the sum-product algebra has no
    // room for (`0 * NaN` is NaN, `NaN - NaN` is not 0): such sides are compared by
    // evaluating them, as `spores run` computes them.
    if let Some(constant) = non_finite_constant(lhs, env)
        .or_else(|| non_finite_constant(rhs, env))
        .or_else(|| zero_divisor(lhs, env))
        .or_else(|| zero_divisor(rhs, env))
    {
        return Ok(decide_by_evaluation(
            lhs,
            rhs,
            &written,
            env,
            want_witness,
            &constant,
        ));
    }
    let _deadline = super::iso::Deadline::set(deadline);
    let mut norm = Normalizer::new(env);
    let pl = norm.top(lhs)?;
    let pr = norm.top(rhs)?;
    let mut diff = Poly {
        free: pl.free.clone(),
        terms: norm.difference(&pl.terms, &pr.terms),
    };
    // Past the deadline, merging stops midway: no answer from here on can be trusted.
    if super::iso::Deadline::passed() {
        return Err(super::normal::past_deadline());
    }
    if diff.terms.is_empty() {
        return Ok(Equivalence::Equivalent);
    }
    // Identities beyond the sum-product fragment (aggregates of `max`, blocks, indexing)
    // rewrite both sides, which are compared again. Only when the sides as written
    // differ: a rule may rewrite an atom on one side and miss its twin written otherwise
    // on the other. The witness search evaluates the sides as written.
    let (simple_lhs, simple_rhs) = (simplify(lhs, env), simplify(rhs, env));
    if (&simple_lhs, &simple_rhs) != (lhs, rhs) && canonically_equal(&simple_lhs, &simple_rhs, env)?
    {
        return Ok(Equivalence::Equivalent);
    }
    // Cut points (`--size k<m`): both sides cut into blocks at them, compared block by
    // block.
    // A block pair that cannot be decided (shapes that differ in the blocks' sizes,
    // where a size kept its own name) leaves the sides unproved, never refuted.
    let mut equal = |a: &LaExpr, b: &LaExpr, blocks: &ShapeEnv| {
        Ok(matches!(
            decide_over_reals(a, b, blocks, false, deadline),
            Ok(Equivalence::Equivalent)
        ))
    };
    let by_blocks = (!env.cuts.is_empty() || has_symbolic_slice(lhs) || has_symbolic_slice(rhs))
        && (super::blocks::equal_by_blocks(lhs, rhs, env, &mut equal)?
            || super::blocks::equal_by_blocks(&simple_lhs, &simple_rhs, env, &mut equal)?);
    // Each block's decision ends with its own deadline: this one's holds again.
    let _deadline = super::iso::Deadline::set(deadline);
    if by_blocks {
        return Ok(Equivalence::Equivalent);
    }
    let mut expanded = Vec::new();
    loop {
        let needs = needs(&diff);
        let small = needs
            .iter()
            .find(|(d, k)| matches!(d, Dim::Known(n) if n < k))
            .map(|(d, _)| d.clone())
            .or_else(|| placed_dim(&diff, &norm.rels, env, &expanded));
        let Some(dim) = small else { break };
        diff = norm.expand(&diff, &dim)?;
        diff = merge_position_selectors(&diff, &norm.rels);
        expanded.push(dim);
        if super::iso::Deadline::passed() {
            return Err(super::normal::past_deadline());
        }
        if diff.terms.is_empty() {
            return Ok(Equivalence::Equivalent);
        }
    }
    let opaque = diff.terms.iter().any(|t| {
        t.atoms
            .iter()
            .any(|a| matches!(norm.rels.get(a.rel as usize), Some(Rel::Opaque { .. })))
    });
    if opaque
        && (proved_beyond_sum_product(&simple_lhs, &simple_rhs, env, 0)?
            || proved_beyond_sum_product(lhs, rhs, env, 0)?
            || proved_unrolled(&simple_lhs, &simple_rhs, env)?)
    {
        return Ok(Equivalence::Equivalent);
    }
    if !want_witness {
        return Ok(Equivalence::Unknown("the canonical forms differ".into()));
    }
    let shown = abbreviate(
        Polyterm {
            body: diff.clone(),
            rels: norm.rels.clone(),
        }
        .to_string(),
        diff.terms.len(),
    );
    // An expanded dimension's positions are explicit in the difference, so the witness
    // must give values at all of them.
    let mut room = needs(&diff);
    for d in expanded {
        if let Dim::Known(n) = d {
            room.insert(d, n);
        }
    }
    // Cell selectors of written-out positions (`I(i,#0) + I(i,#1)`, which is 1 where `i`
    // has two positions) are not reduced, so such a difference proves nothing.
    let positions = diff.terms.iter().any(|t| {
        t.atoms.iter().any(|a| {
            matches!(
                norm.rels.get(a.rel as usize),
                Some(Rel::Cell(_) | Rel::Identity)
            )
        })
    });
    Ok(
        match search_witness(lhs, rhs, &written, env, &room, opaque, shown.clone()) {
            Equivalence::Unknown(_) if positions && !opaque => Equivalence::Unknown(format!(
                "the canonical forms differ once small dimensions are written out position by \
                 position, a form they may not be reduced in; no differing input found in \
                 {ATTEMPTS} tries. Canonical difference: {shown}"
            )),
            decided => decided,
        },
    )
}

/// `p` with each set of terms `T·I(i, #q)` for every position `q` of a free index `i`
/// (an identity tying `i` to one position, `T` not mentioning `i`) replaced by `T`: the
/// selectors of all positions sum to 1.
fn merge_position_selectors(p: &Poly, rels: &[Rel]) -> Poly {
    let identity = |a: &Atom| matches!(rels.get(a.rel as usize), Some(Rel::Identity));
    let mut terms = p.terms.clone();
    for (i, dim) in &p.free {
        let Dim::Known(n) = dim else { continue };
        // Terms of the form T·I(i, #q), by T, with the positions seen.
        let mut groups: Vec<(Term, Coef, BTreeSet<u32>, Vec<usize>)> = Vec::new();
        for (k, t) in terms.iter().enumerate() {
            let mentions = |a: &Atom| a.slots.contains(&Slot::Var(*i));
            let selectors: Vec<(usize, u32)> = t
                .atoms
                .iter()
                .enumerate()
                .filter_map(|(m, a)| match a.slots.as_slice() {
                    [Slot::Var(v), Slot::Pos(q)] | [Slot::Pos(q), Slot::Var(v)]
                        if identity(a) && v == i =>
                    {
                        Some((m, *q))
                    }
                    _ => None,
                })
                .collect();
            let [(m, q)] = selectors[..] else { continue };
            let mut rest = t.clone();
            rest.atoms.remove(m);
            if rest.atoms.iter().any(mentions) {
                continue;
            }
            match groups
                .iter_mut()
                .find(|(r, c, _, _)| *c == t.coef && super::iso::isomorphic(r, &rest))
            {
                Some((_, _, seen, members)) => {
                    seen.insert(q);
                    members.push(k);
                }
                None => groups.push((rest, t.coef.clone(), BTreeSet::from([q]), vec![k])),
            }
        }
        let mut drop = BTreeSet::new();
        let mut merged = Vec::new();
        for (rest, _, seen, members) in groups {
            if seen.len() == *n && members.len() == *n {
                drop.extend(members);
                merged.push(rest);
            }
        }
        if merged.is_empty() {
            continue;
        }
        terms = terms
            .into_iter()
            .enumerate()
            .filter(|(k, _)| !drop.contains(k))
            .map(|(_, t)| t)
            .chain(merged)
            .collect();
        terms = super::iso::combine(terms);
    }
    Poly {
        free: p.free.clone(),
        terms,
    }
}

/// Whether `e` slices with a bound that is not a number (`A[2:nrow(A), ]`).
fn has_symbolic_slice(e: &LaExpr) -> bool {
    let mut found = false;
    e.visit(&mut |x| {
        if let LaExpr::Func { name, args } = x {
            found |= name == crate::la::INDEX
                && args.iter().skip(1).any(|b| !matches!(b, LaExpr::Const(_)));
        }
    });
    found
}

/// How deep [`proved_beyond_sum_product`] looks through operators on both sides.
const MAX_CONGRUENCE_DEPTH: usize = 6;
/// Largest number of operators of both sides [`proved_beyond_sum_product`] takes on.
const MAX_PIECEWISE_SIZE: usize = 400;

/// Whether `lhs = rhs` holds by the piecewise decision of their cellwise parts
/// ([`super::piecewise`]), or because both apply the same operator to arguments that are
/// provably equal (`sum(max(A, 0) + min(A, 0))` and `sum(A)`). `false` means not proved.
fn proved_beyond_sum_product(
    lhs: &LaExpr,
    rhs: &LaExpr,
    env: &ShapeEnv,
    depth: usize,
) -> Result<bool, EquivError> {
    // Leaves are matched pairwise by canonical forms: kept to expressions of a size a
    // person writes, so checking a plan of thousands of operators stays linear.
    if depth > MAX_CONGRUENCE_DEPTH || operators(lhs) + operators(rhs) > MAX_PIECEWISE_SIZE {
        return Ok(false);
    }
    let mut same_leaf = |a: &LaExpr, b: &LaExpr| canonically_equal(a, b, env);
    if super::piecewise::equal_cellwise(lhs, rhs, env, &mut same_leaf)? {
        return Ok(true);
    }
    let same_shape = |a: &LaExpr, b: &LaExpr| match (env.shape_of(a), env.shape_of(b)) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    };
    let proved = |a: &LaExpr, b: &LaExpr| -> Result<bool, EquivError> {
        if !same_shape(a, b) {
            return Ok(false);
        }
        if canonically_equal(a, b, env)? {
            return Ok(true);
        }
        proved_beyond_sum_product(a, b, env, depth + 1)
    };
    use LaExpr::*;
    // sum(x) = y when every cell of x is y / (the number of cells).
    for (sum, other) in [(lhs, rhs), (rhs, lhs)] {
        if let (Sum(x), false) = (sum, matches!(other, Sum(_))) {
            let Ok((r, c)) = env.shape_of(x) else {
                continue;
            };
            let count = match (&r, &c) {
                (Dim::Known(r), Dim::Known(c)) => Const((r * c) as f64),
                _ => Sum(Box::new(Fill(Box::new(Const(1.0)), r.clone(), c.clone()))),
            };
            // `sum(x) = nrow(x) * ncol(x)`: every cell is 1.
            let share = if canonically_equal(other, &count, env)? {
                Const(1.0)
            } else {
                Func {
                    name: "/".into(),
                    args: vec![other.clone(), count],
                }
            };
            if super::piecewise::equal_cellwise(x, &share, env, &mut same_leaf)? {
                return Ok(true);
            }
        }
    }
    // A block matrix equals `y` when each block equals its slice of `y`.
    for (blocks, other) in [(lhs, rhs), (rhs, lhs)] {
        let Func { name, args } = blocks else {
            continue;
        };
        let (false, true) = (
            matches!(other, Func { name: m, .. } if m == name),
            (name == "cbind" || name == "rbind") && args.len() == 2,
        ) else {
            continue;
        };
        if let Some((first, second)) = super::simplify::blocks_of(other, name, &args[0], env) {
            return Ok(proved(&args[0], &first)? && proved(&args[1], &second)?);
        }
    }
    match (lhs, rhs) {
        (Sum(a), Sum(b))
        | (RowSums(a), RowSums(b))
        | (ColSums(a), ColSums(b))
        | (Transpose(a), Transpose(b))
        | (Neg(a), Neg(b)) => proved(a, b),
        (MatMul(a, b), MatMul(c, d))
        | (Add(a, b), Add(c, d))
        | (Sub(a, b), Sub(c, d))
        | (Mul(a, b), Mul(c, d)) => Ok(proved(a, c)? && proved(b, d)?),
        (Pow(a, k), Pow(b, l)) if k == l => proved(a, b),
        (Func { name: f, args: x }, Func { name: g, args: y }) if f == g && x.len() == y.len() => {
            for (a, b) in x.iter().zip(y) {
                if !proved(a, b)? {
                    return Ok(false);
                }
            }
            Ok(true)
        }
        _ => Ok(false),
    }
}

/// Whether `lhs = rhs` is proved once their extremes over a few known rows or columns are
/// written out cell by cell ([`super::simplify::unrolled`]).
fn proved_unrolled(lhs: &LaExpr, rhs: &LaExpr, env: &ShapeEnv) -> Result<bool, EquivError> {
    let (l, r) = (unrolled(lhs, env), unrolled(rhs, env));
    if l.is_none() && r.is_none() {
        return Ok(false);
    }
    let l = l.unwrap_or_else(|| lhs.clone());
    let r = r.unwrap_or_else(|| rhs.clone());
    Ok(canonically_equal(&l, &r, env)? || proved_beyond_sum_product(&l, &r, env, 0)?)
}

fn operators(e: &LaExpr) -> usize {
    let mut n = 0;
    e.visit(&mut |_| n += 1);
    n
}

/// Whether the canonical forms of `a` and `b` are the same.
fn canonically_equal(a: &LaExpr, b: &LaExpr, env: &ShapeEnv) -> Result<bool, EquivError> {
    let mut norm = Normalizer::new(env);
    let (pa, pb) = (norm.top(a)?, norm.top(b)?);
    Ok(pa.free == pb.free && norm.difference(&pa.terms, &pb.terms).is_empty())
}

/// The first division of `e` by a scalar that is 0 for every input (`x / (3 * ncol(A) -
/// ncol(A) * 3)`), as text: its quotient is NaN or infinite wherever `spores run` divides
/// (scalars divide as IEEE numbers), which the algebra would read as `x * (1 / 0)`.
fn zero_divisor(e: &LaExpr, env: &ShapeEnv) -> Option<String> {
    let mut found = None;
    e.visit(&mut |x| {
        let LaExpr::Func { name, args } = x else {
            return;
        };
        let [_, divisor] = args.as_slice() else {
            return;
        };
        let scalar = matches!(env.shape_of(divisor), Ok((r, c)) if r.is_one() && c.is_one());
        if found.is_some() || name != "/" || !scalar {
            return;
        }
        if let Ok(p) = Normalizer::new(env).top(divisor) {
            if p.terms.is_empty() {
                found = Some(format!("{x}"));
            }
        }
    });
    found
}

/// The first scalar constant subexpression of `e` (one without inputs) whose value is NaN
/// or ±Inf, as text.
fn non_finite_constant(e: &LaExpr, env: &ShapeEnv) -> Option<String> {
    let mut found = None;
    e.visit(&mut |x| {
        if found.is_some() || !x.vars().is_empty() || matches!(x, LaExpr::Const(_)) {
            return;
        }
        let scalar = matches!(env.shape_of(x), Ok((r, c)) if r.is_one() && c.is_one());
        if !scalar {
            return;
        }
        if let Ok(value) = eval(x, &HashMap::new()) {
            if value.to_dense().data().iter().any(|v| !v.is_finite()) {
                found = Some(x.to_string());
            }
        }
    });
    if found.is_none() {
        e.visit(&mut |x| {
            if let LaExpr::Const(c) = x {
                if !c.is_finite() && found.is_none() {
                    found = Some(x.to_string());
                }
            }
        });
    }
    found
}

/// [`decide`] for sides with a NaN or ±Inf constant: equal as written, or told apart by
/// a witness on which their values differ (NaN equal to NaN), or else unknown.
fn decide_by_evaluation(
    lhs: &LaExpr,
    rhs: &LaExpr,
    written: &[String],
    env: &ShapeEnv,
    want_witness: bool,
    constant: &str,
) -> Equivalence {
    if lhs == rhs {
        return Equivalence::Equivalent;
    }
    let why =
        format!("`{constant}` is NaN or infinite, where the sum-product algebra does not hold");
    if !want_witness {
        return Equivalence::Unknown(why);
    }
    match search_witness(lhs, rhs, written, env, &BTreeMap::new(), true, why.clone()) {
        Equivalence::Unknown(_) => Equivalence::Unknown(format!(
            "{why}; no input on which the two sides differ was found in {ATTEMPTS} tries"
        )),
        decided => decided,
    }
}

/// Longest canonical difference shown in full in a witness or an `Unknown` reason.
const SHOW_CHARS: usize = 2000;

fn abbreviate(text: String, terms: usize) -> String {
    if text.len() <= SHOW_CHARS {
        return text;
    }
    let mut cut = SHOW_CHARS;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{} ... ({terms} terms in all)", &text[..cut])
}

/// For each dimension, the largest number of distinct indices of that dimension in one
/// term (free indices included): the room the witness construction needs.
fn needs(p: &Poly) -> BTreeMap<Dim, usize> {
    let mut out: BTreeMap<Dim, usize> = BTreeMap::new();
    for t in &p.terms {
        let mut count: BTreeMap<&Dim, usize> = BTreeMap::new();
        for (_, d) in t.bound.iter().chain(&p.free) {
            *count.entry(d).or_default() += 1;
        }
        for (d, k) in count {
            let e = out.entry(d.clone()).or_default();
            *e = (*e).max(k);
        }
    }
    out
}

/// Largest known dimension [`placed_dim`] expands into its positions.
const MAX_EXPANDED: usize = 64;

/// A known dimension, not yet in `expanded`, of an atom of `p` read at a fixed position
/// (a slice, a block, `rev`): terms with `X(#0, j)` and `Σ_k X(k, j)` only compare once
/// `k` runs over the positions too.
fn placed_dim(p: &Poly, rels: &[Rel], env: &ShapeEnv, expanded: &[Dim]) -> Option<Dim> {
    for t in &p.terms {
        for a in &t.atoms {
            let shape = match rels.get(a.rel as usize) {
                Some(Rel::Input(name)) => match env.shapes.get(name) {
                    Some(shape) => shape.clone(),
                    None => continue,
                },
                Some(Rel::Opaque { shape, .. }) => shape.clone(),
                _ => continue,
            };
            let dims = [shape.0, shape.1].into_iter().filter(|d| !d.is_one());
            for (slot, dim) in a.slots.iter().zip(dims) {
                let small = matches!(dim, Dim::Known(n) if n <= MAX_EXPANDED);
                if matches!(slot, Slot::Pos(_)) && small && !expanded.contains(&dim) {
                    return Some(dim);
                }
            }
        }
    }
    None
}

/// SplitMix64: a tiny deterministic generator, so witnesses are reproducible.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next() % n
        }
    }
}

/// Whether two values really differ: some cell differs by more than `RTOL` (1e-9) relative to
/// the cell, and by more than a noise floor relative to the largest magnitude in either
/// value (a cell computed by cancelling large intermediate terms carries rounding error
/// of that size, so a tiny difference there proves nothing).
pub fn differs(a: &Matrix, b: &Matrix) -> bool {
    if a.shape() != b.shape() {
        return true;
    }
    let (a, b) = (a.to_dense(), b.to_dense());
    let scale = magnitude(&a, &b);
    a.data().iter().zip(b.data()).any(|(&x, &y)| {
        let d = (x - y).abs();
        !approx_eq_f64(x, y, RTOL) && (d.is_nan() || d > NOISE * scale)
    })
}

/// The largest finite magnitude in either matrix, at least 1: the scale of the rounding
/// error a cell computed by cancelling terms of that size may carry.
pub fn magnitude(a: &DenseMatrix, b: &DenseMatrix) -> f64 {
    a.data()
        .iter()
        .chain(b.data())
        .filter(|v| v.is_finite())
        .fold(1.0f64, |m, v| m.max(v.abs()))
}

fn search_witness(
    lhs: &LaExpr,
    rhs: &LaExpr,
    written: &[String],
    env: &ShapeEnv,
    needs: &BTreeMap<Dim, usize>,
    opaque: bool,
    shown: String,
) -> Equivalence {
    let mut vars = lhs.vars();
    for v in rhs.vars().into_iter().chain(written.iter().cloned()) {
        if !vars.contains(&v) {
            vars.push(v);
        }
    }
    let shapes: Vec<(String, Shape)> = vars
        .iter()
        .filter_map(|v| env.shapes.get(v).map(|s| (v.clone(), s.clone())))
        .collect();
    let mut syms: BTreeSet<String> = BTreeSet::new();
    for (_, (r, c)) in &shapes {
        for d in [r, c] {
            if let Dim::Sym(s) = d {
                syms.insert(s.clone());
            }
        }
    }
    // A fill's sizes may name symbols no input has.
    for e in [lhs, rhs] {
        e.visit(&mut |x| {
            if let LaExpr::Fill(_, r, c) = x {
                for d in [r, c] {
                    if let Dim::Sym(s) = d {
                        syms.insert(s.clone());
                    }
                }
            }
        });
    }
    // A size named by its form (`m-1`, from a slice `A[2:m, ]`) takes its value from the
    // symbols it is made of.
    let derived: Vec<String> = syms
        .iter()
        .filter(|s| env.dim_form(&Dim::Sym((*s).clone())) != SizeForm::symbol(s))
        .cloned()
        .collect();
    for s in &derived {
        syms.remove(s);
        let form = env.free_form(&env.dim_form(&Dim::Sym(s.clone())));
        syms.extend(form.terms.into_keys());
    }
    // A cut point and the rest of its dimension take their sizes with the dimension's.
    let mut cuts: Vec<(&String, &String)> = Vec::new();
    for (k, m) in &env.cuts {
        let rest = ShapeEnv::rest_name(m, k);
        let named = syms.remove(k) | syms.remove(&rest) || written.contains(k);
        if named || syms.contains(m) {
            syms.insert(m.clone());
            cuts.push((k, m));
        }
    }
    let need = |d: &Dim| needs.get(d).copied().unwrap_or(0);
    let landmarks = landmarks(lhs, rhs);
    let mut last_error = None;
    for attempt in 0..ATTEMPTS {
        let mut rng = Rng(0x5EED_0000 + attempt);
        let extra: BTreeMap<&String, usize> = syms
            .iter()
            .map(|s| (s, rng.below(attempt / 8 + 1) as usize))
            .collect();
        let cut_extra: Vec<usize> = cuts
            .iter()
            .map(|_| rng.below(attempt / 8 + 1) as usize)
            .collect();
        // Every size at least 2 (symbolic sizes stand for sizes > 1), raised together
        // until the derived ones are too.
        let mut sizes = BTreeMap::new();
        for raise in 0..8 {
            sizes = syms
                .iter()
                .map(|s| {
                    let base = need(&Dim::Sym(s.clone())).max(2);
                    (s.clone(), base + extra[s] + raise)
                })
                .collect::<BTreeMap<String, usize>>();
            // `1 <= k < m`, both parts at least 2.
            for (&(k, m), more) in cuts.iter().zip(&cut_extra) {
                let rest = ShapeEnv::rest_name(m, k);
                let cut = need(&Dim::sym(k)).max(2) + more + raise;
                let least_rest = need(&Dim::Sym(rest.clone())).max(2);
                let whole = sizes[m].max(cut + least_rest);
                sizes.insert(m.clone(), whole);
                sizes.insert(k.clone(), cut);
                sizes.insert(rest, whole - cut);
            }
            let mut small = false;
            for s in &derived {
                let value = env.size_value(&env.dim_form(&Dim::Sym(s.clone())), &sizes);
                let value = value.and_then(|v| usize::try_from(v).ok()).unwrap_or(0);
                small |= value < 2.max(need(&Dim::Sym(s.clone())));
                sizes.insert(s.clone(), value);
            }
            if !small {
                break;
            }
        }
        let size = |d: &Dim| match d {
            Dim::Known(n) => *n,
            Dim::Sym(s) => sizes.get(s).copied().unwrap_or(2),
        };
        // Only a leading block needs values; the rest stays zero (Appendix A sets every
        // entry outside the construction to 0), which keeps large known sizes cheap.
        // A small dimension gets values everywhere: indexing and `rev` read its far end.
        let support = |d: &Dim| match size(d) {
            n if n <= FULL_SUPPORT => n,
            n => n.min(need(d).max(2) + 1),
        };
        let cells: usize = shapes
            .iter()
            .map(|(_, (r, c))| size(r).saturating_mul(size(c)))
            .fold(0usize, |a, b| a.saturating_add(b));
        if cells > MAX_CELLS {
            return Equivalence::Unknown(format!(
                "not equal for all inputs (canonical difference: {shown}), but a witness \
                 would need {cells} input cells"
            ));
        }
        let positive = opaque && attempt % 2 == 0;
        // Some attempts draw from few values (all ones, when positive): ties are where
        // comparisons and extremes differ (`rowMaxs(A) > rowMeans(A)`).
        let magnitude = if attempt % 8 == 6 { 1 } else { 3 + attempt / 4 };
        let mut inputs = BTreeMap::new();
        for (name, (r, c)) in &shapes {
            let (rows, cols) = (size(r), size(c));
            // One attempt in sixteen is all zeros, where extremes and sums vanish.
            let declared_positive = env.positive.contains(name);
            let zero =
                env.nnz.get(name) == Some(&0.0) || (attempt % 16 == 15 && !declared_positive);
            let (sr, sc) = (support(r), support(c));
            // Some attempts fill each input with one value of its own, which orders whole
            // inputs (`min(A) > max(B)`).
            let constant = (attempt % 8 == 3).then(|| {
                let v = (1 + rng.below(2 * magnitude)) as f64 - magnitude as f64 - 0.5;
                if declared_positive {
                    v.abs()
                } else {
                    v
                }
            });
            let m = DenseMatrix::from_fn(rows, cols, |i, j| {
                if zero || i >= sr || j >= sc {
                    return 0.0;
                }
                if let Some(v) = constant {
                    return v;
                }
                // Some attempts take values at, beside and between the numbers the sides
                // are written with, where comparisons with them turn (`A > 0.5`, `A >= 1`).
                if attempt % 6 == 4 && !landmarks.is_empty() {
                    let v = landmarks[rng.below(landmarks.len() as u64) as usize];
                    return if declared_positive {
                        v.abs().max(0.05)
                    } else {
                        v
                    };
                }
                // Every other attempt has zeros inside too: comparisons and `!` differ
                // there (`A > 0` and `A >= 0`).
                if attempt % 2 == 1 && rng.below(4) == 0 && !declared_positive {
                    return 0.0;
                }
                let v = (1 + rng.below(magnitude)) as f64;
                // Some attempts have halves, where rounding shows, and some quarters, where
                // `floor` and `ceil` differ and `round` does not tie.
                let v = if attempt % 8 == 5 {
                    v / 2.0
                } else if attempt % 12 == 7 {
                    v / 4.0
                } else {
                    v
                };
                if positive || declared_positive || rng.below(2) == 0 {
                    v
                } else {
                    -v
                }
            });
            inputs.insert(name.clone(), Matrix::Dense(m));
        }
        // A size written as a number (`k`, `m`) is an input of its own.
        for name in written {
            if let (false, Some(&n)) = (env.shapes.contains_key(name), sizes.get(name)) {
                let value = DenseMatrix::filled(1, 1, n as f64);
                inputs.insert(name.clone(), Matrix::Dense(value));
            }
        }
        let map: HashMap<String, Matrix> =
            inputs.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
        match (
            eval(&lhs.with_sizes(&sizes), &map),
            eval(&rhs.with_sizes(&sizes), &map),
        ) {
            (Ok(a), Ok(b)) => {
                if differs(&a, &b) {
                    return Equivalence::NotEquivalent(Box::new(Witness {
                        sizes,
                        inputs,
                        lhs: a,
                        rhs: b,
                        difference: shown,
                    }));
                }
            }
            (Err(e), _) | (_, Err(e)) => last_error = Some(e),
        }
    }
    let why = if opaque {
        "the canonical forms differ only in terms with opaque functions, which may obey \
         identities the sum-product normal form does not know"
    } else {
        "the canonical forms differ, so some input tells them apart, but random inputs \
         did not find one"
    };
    let error = last_error
        .map(|e| format!(" (evaluation failed: {e})"))
        .unwrap_or_default();
    Equivalence::Unknown(format!(
        "{why}; no differing input found in {ATTEMPTS} tries{error}. Canonical difference: {shown}"
    ))
}

/// Cell values near the numbers `lhs` and `rhs` are written with: each number, a tenth
/// beside it, one beside it, the midpoints between them, and beyond the largest.
fn landmarks(lhs: &LaExpr, rhs: &LaExpr) -> Vec<f64> {
    let mut numbers = Vec::new();
    for e in [lhs, rhs] {
        e.visit(&mut |x| {
            if let LaExpr::Const(c) = x {
                if c.is_finite() && c.abs() < 1e9 {
                    numbers.extend([*c, -*c]);
                }
            }
        });
    }
    numbers.sort_by(f64::total_cmp);
    numbers.dedup();
    let mut out = Vec::new();
    for w in numbers.windows(2) {
        out.push((w[0] + w[1]) / 2.0);
    }
    for &c in &numbers {
        let step = 0.1 * c.abs().max(1.0);
        out.extend([c, c - step, c + step, c - 1.0, c + 1.0]);
    }
    if let Some(far) = numbers.iter().map(|c| c.abs()).max_by(f64::total_cmp) {
        out.extend([2.0 * far + 1.0, -2.0 * far - 1.0]);
    }
    // Inputs hold no -0 (`-0` written as a constant is `0 - 0`, which is +0).
    out.into_iter().map(|v| v + 0.0).collect()
}

fn fmt_number(v: f64) -> String {
    if v.is_nan() {
        "NaN".into()
    } else if v.is_infinite() {
        if v > 0.0 { "Inf" } else { "-Inf" }.into()
    } else if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

/// `matrix("1 2 3 4", rows=2, cols=2)`: a DML literal a user can paste into a script.
fn fmt_matrix(m: &Matrix) -> String {
    let d = m.to_dense();
    let values: Vec<String> = d.data().iter().map(|&v| fmt_number(v)).collect();
    format!(
        "matrix(\"{}\", rows={}, cols={})",
        values.join(" "),
        d.rows(),
        d.cols()
    )
}

impl fmt::Display for Witness {
    /// The sizes, one DML assignment per input, and both values.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.sizes.is_empty() {
            let sizes: Vec<String> = self.sizes.iter().map(|(k, v)| format!("{k}={v}")).collect();
            writeln!(f, "# sizes: {}", sizes.join(", "))?;
        }
        for (name, m) in &self.inputs {
            writeln!(f, "{name} = {}", fmt_matrix(m))?;
        }
        writeln!(f, "# lhs = {}", fmt_matrix(&self.lhs))?;
        write!(f, "# rhs = {}", fmt_matrix(&self.rhs))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    fn env() -> ShapeEnv {
        ShapeEnv::with_shapes(&["A=mxm", "B=mxm"]).unwrap()
    }

    fn decide_text(lhs: &str, rhs: &str) -> Equivalence {
        let mut env = ShapeEnv::default();
        env.add_shape_arg("X=2x3").unwrap();
        equiv(
            &LaExpr::parse(lhs).unwrap(),
            &LaExpr::parse(rhs).unwrap(),
            &env,
        )
        .unwrap()
    }

    /// A negated DML scalar is IEEE's `-0` at 0 (`1 / -s` is `-Inf`), as `-1 * s` is, and
    /// `0 - s` is `+0`; a negated `1 x 1` matrix is `+0`, as the kernel gives it.
    #[test]
    fn a_negated_scalar_keeps_the_sign_of_zero() {
        let mut env = ShapeEnv::with_shapes(&["s=1x1", "X=2x2"]).unwrap();
        env.scalar("s");
        let decide = |lhs: &str, rhs: &str| {
            equiv(
                &LaExpr::parse(lhs).unwrap(),
                &LaExpr::parse(rhs).unwrap(),
                &env,
            )
            .unwrap()
        };
        for (lhs, rhs) in [("1 / (-s)", "1 / (-1 * s)"), ("X / (-s)", "X / (-1 * s)")] {
            let verdict = decide(lhs, rhs);
            assert!(
                !matches!(verdict, Equivalence::NotEquivalent(_)),
                "{lhs} vs {rhs}: {verdict:?}"
            );
        }
        match decide("1 / (-s)", "1 / (0 - s)") {
            Equivalence::NotEquivalent(w) => {
                assert_eq!(w.inputs["s"].as_scalar(), Some(0.0));
                assert_eq!(w.lhs.as_scalar(), Some(f64::NEG_INFINITY));
                assert_eq!(w.rhs.as_scalar(), Some(f64::INFINITY));
            }
            other => panic!("expected a witness at s = 0, got {other:?}"),
        }
    }

    /// `0/0` is NaN, as `spores run` computes it: `X + 0/0` is NaN in every cell, not `X`,
    /// and the witness shows it; an expression still equals itself, and a constant
    /// divisor that is not zero is a plain scale.
    #[test]
    fn a_nan_constant_is_reasoned_with_as_run_computes_it() {
        match decide_text("X + (0/0)", "X") {
            Equivalence::NotEquivalent(w) => {
                assert!(w.lhs.to_dense().data().iter().all(|v| v.is_nan()), "{w:?}");
                assert!(
                    w.rhs.to_dense().data().iter().all(|v| v.is_finite()),
                    "{w:?}"
                );
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            decide_text("X + (0/0)", "X + (0/0)"),
            Equivalence::Equivalent
        ));
        assert!(matches!(
            decide_text("X * (1/0) - X * (1/0)", "0 * X"),
            Equivalence::NotEquivalent(_)
        ));
        assert!(matches!(
            decide_text("sum(X) / 2", "sum(X * 0.5)"),
            Equivalence::Equivalent
        ));
    }

    /// Sides of different shapes are not equal, unless a shape was only assumed: a
    /// function spores does not know (`nnz`) is read as cellwise, which a verdict must not
    /// rest on.
    #[test]
    fn an_assumed_shape_gives_no_verdict() {
        match decide_text("sum(X != 0)", "nnz(X)") {
            Equivalence::Unknown(why) => assert!(why.contains("`nnz`"), "{why}"),
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            equiv(
                &LaExpr::parse("sum(X)").unwrap(),
                &LaExpr::parse("X").unwrap(),
                &ShapeEnv::with_shapes(&["X=2x3"]).unwrap()
            ),
            Err(EquivError::ShapeMismatch { .. })
        ));
    }

    /// Inputs declared positive are the domain where `log`, `sqrt` and `A / A` are what
    /// they are for numbers; witnesses then stay positive too.
    #[test]
    fn positive_inputs_decide_identities_of_their_domain() {
        let mut env = ShapeEnv::with_shapes(&["A=5x4", "B=5x4"]).unwrap();
        let verdict = |l: &str, r: &str, env: &ShapeEnv| {
            equiv(&LaExpr::parse(l).unwrap(), &LaExpr::parse(r).unwrap(), env).unwrap()
        };
        let pairs = [
            ("exp(log(A))", "A"),
            ("A / A", "matrix(1, 5, 4)"),
            ("sqrt(A * A)", "A"),
        ];
        for (l, r) in pairs {
            assert!(
                matches!(verdict(l, r, &env), Equivalence::NotEquivalent(_)),
                "{l}"
            );
        }
        env.positive.insert("A".into());
        for (l, r) in pairs {
            assert!(
                matches!(verdict(l, r, &env), Equivalence::Equivalent),
                "{l} == {r}"
            );
        }
        env.positive.insert("B".into());
        for (l, r) in [
            ("log(A * B)", "log(A) + log(B)"),
            ("log(A / B^2)", "log(A) - 2 * log(B)"),
            ("exp(log(A) + log(B))", "A * B"),
            ("sqrt(A) * sqrt(B)", "sqrt(A * B)"),
            ("sqrt(A^2 * B)", "A * sqrt(B)"),
            ("min(A) > 0", "1"),
            ("sum(A) > 0", "1"),
        ] {
            assert!(
                matches!(verdict(l, r, &env), Equivalence::Equivalent),
                "{l} == {r}"
            );
        }
        match verdict("A / A", "A", &env) {
            Equivalence::NotEquivalent(w) => {
                assert!(
                    w.inputs["A"].to_dense().data().iter().all(|&v| v > 0.0),
                    "{w:?}"
                )
            }
            other => panic!("{other:?}"),
        }
    }

    /// Slices, blocks and reversals of a few known rows place cells at fixed positions,
    /// which the expansion of a known dimension then compares with whole sums.
    #[test]
    fn cells_at_fixed_positions_meet_whole_sums() {
        let env = ShapeEnv::with_shapes(&["A=5x4"]).unwrap();
        let verdict = |l: &str, r: &str| {
            equiv(&LaExpr::parse(l).unwrap(), &LaExpr::parse(r).unwrap(), &env).unwrap()
        };
        for (l, r) in [
            ("colSums(A)", "A[1, ] + A[2, ] + colSums(A[3:5, ])"),
            ("rbind(A[1:2, ], A[3:5, ])", "A"),
            ("rev(rev(A))[2:3, ]", "A[2:3, ]"),
            ("cumsum(A)[5, ]", "colSums(A)"),
        ] {
            assert!(
                matches!(verdict(l, r), Equivalence::Equivalent),
                "{l} == {r}"
            );
        }
        assert!(matches!(
            verdict("rbind(A[1:2, ], A[3:5, ])", "rbind(A[4:5, ], A[1:3, ])"),
            Equivalence::NotEquivalent(_)
        ));
    }

    /// A deadline that has passed ends the decision with an error, never with a verdict:
    /// merging stops midway past it, so a difference it leaves proves nothing.
    #[test]
    fn a_passed_deadline_is_an_error_not_a_verdict() {
        let lhs = LaExpr::parse("(A + B) %*% (A + B) %*% (A - B)").unwrap();
        let rhs = LaExpr::parse("(A %*% A + A %*% B + B %*% A + B %*% B) %*% (A - B)").unwrap();
        let env = env();
        assert_eq!(provably_equivalent(&lhs, &rhs, &env).ok(), Some(true));
        let past = Instant::now() - Duration::from_millis(1);
        let late = provably_equivalent_until(&lhs, &rhs, &env, past);
        assert!(matches!(late, Err(EquivError::TooLarge(_))), "{late:?}");
        let ahead = Instant::now() + Duration::from_secs(60);
        assert_eq!(
            provably_equivalent_until(&lhs, &rhs, &env, ahead).ok(),
            Some(true)
        );
        // The deadline ends with the decision: the next one on this thread has none.
        assert_eq!(provably_equivalent(&lhs, &rhs, &env).ok(), Some(true));
    }
}
