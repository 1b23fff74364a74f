//! Deciding cellwise identities with `max`, `min`, `abs`, `sign`, comparisons, `!`, `&`,
//! `|`, `ifelse`, `/`, `exp`, `log`, `sqrt` and `sigmoid`: piecewise rational functions
//! of the cells, which the sum-product normal form treats as opaque atoms.
//!
//! # How it is decided
//!
//! An expression whose operators all act cell by cell is, at every cell, one scalar
//! function of the cells its operands contribute there. Each operand that is not cellwise
//! (an input, a product, an aggregate...) is a *leaf*: one real variable, the same for
//! operands with the same canonical form. Two such expressions are equal if their scalar
//! functions are equal for all real values of the leaves (a sufficient condition: leaves
//! read at the same cell may be related, which only adds equalities).
//!
//! The scalar functions are compared by splitting into cases. A `max(p, q)` needs the
//! sign of `p - q`, a comparison the sign of a difference, `abs(p)` and `sign(p)` the sign
//! of `p`, a division the sign of its divisor: a *guard*, a polynomial in the leaves.
//! Each guard is split three ways (`> 0`, `= 0`, `< 0`); in a case where all guards are
//! decided both sides are fractions of polynomials, and the case holds when `a / b` and
//! `c / d` have `a d = c b` as polynomials. A case whose linear constraints have no
//! solution (Fourier-Motzkin elimination, exact over the rationals) is skipped; a linear
//! guard that is `= 0` is solved for one of its variables, which is substituted
//! everywhere, so polynomials are compared on the subspace the case lives on. What is
//! left is a set of strict inequalities, an open set: two polynomials equal on a
//! non-empty open set are the same polynomial. So "equal" is proved exactly for
//! piecewise-linear guards; a non-linear guard is split the same way but never used to
//! skip or to substitute, which can only fail to prove.
//!
//! `exp` of a polynomial is a product of positive variables, one per monomial raised to
//! its (whole) coefficient, so `exp(a + b) = exp(a) exp(b)` and `exp(-a) exp(a) = 1`;
//! `log` of a fraction is the difference of the logarithms, the `exp` powers a
//! polynomial's monomials share come out of its logarithm as their arguments, `exp(k
//! log(x))` is `x^k`, `sqrt(x)^2` is `x`, and the root of a perfect square (`A^2 + 2 A +
//! 1`) is the absolute value of its square root. Any other function is a variable per
//! argument value.
//!
//! Leaves that are extremes of a matrix come with facts every real input satisfies: a
//! cell of `x` lies between `min(x)` and `max(x)` (and its row's and column's extremes),
//! wider extremes enclose narrower ones, and a full extreme is the value of `x` at some
//! cell, whose leaves get fresh variables there. A case that breaks a fact is skipped.
//!
//! Over the reals (what the optimizer's rewrites assume), a case in which a `log` may
//! take a number that is not positive, a `sqrt` a negative one or a division a zero
//! divisor ends in "not proved". As `spores run` computes ([`equal_cellwise_as_computed`]),
//! such a case goes on with the value floating point gives there: `log(0)` is `-Inf`,
//! `log(-1)`, `sqrt(-1)` and `0 / 0` are NaN, and NaN and the infinities pass through
//! every operator as the kernels take them (NaN compares false, is true as a condition,
//! propagates through extremes; a matrix cell times 0 is 0). So `log(A) > 0 = A > 1` and
//! `sqrt(A) * (A > 0) = sqrt(max(A, 0))` are proved, and `A / A = 1` is not. A number
//! over 0 is `+Inf` or `-Inf` by the sign of the zero (`-0` too is a number), which the
//! case is split on: the same formula computes the same zero, different formulas may
//! compute either. What hangs on whether a `1 x 1` operand is a scalar (`0 * Inf` is NaN
//! between scalars, 0 in a matrix cell) is not decided. Arithmetic is on exact rationals;
//! a number that does not fit, or too many cases, ends in "not proved" too, never in a
//! wrong answer.

use std::collections::{BTreeMap, HashMap};

use super::error::EquivError;
use crate::la::{Dim, LaExpr, ShapeEnv};

/// Cases explored before giving up.
const MAX_CASES: usize = 4_096;
/// Largest exponent unfolded into a product.
const MAX_POWER: u32 = 8;
/// Most sums among the leaves [`Leaves::sum_facts`] compares, and the most operators of
/// each: every pair costs a decision of its own.
const MAX_SUMS: usize = 4;
const MAX_SUM_ARGUMENT: usize = 40;
/// Most facts about extremes ([`Leaves::extreme_facts`]) a decision takes on.
const MAX_FACTS: usize = 16;
/// Constraints Fourier-Motzkin may hold before a case is kept as possibly feasible.
const MAX_CONSTRAINTS: usize = 400;
/// Most monomial products in one polynomial product: a sum of quotients with distinct
/// denominators multiplies them all out (nine cells of `(A + B) / (A + B)` ran for
/// minutes), and such a case is given up instead.
const MAX_PRODUCT_TERMS: usize = 4_096;
/// Monomial products one decision may make in all, across its cases: quotients under
/// running extremes (`cummax((A + B) / (A + B))`) split into thousands of cases of large
/// polynomials, which took 10-50 s before this bound.
const MAX_WORK: usize = 1_000_000;

thread_local! {
    /// Monomial products left to the decision under way ([`MAX_WORK`]).
    static WORK_LEFT: std::cell::Cell<usize> = const { std::cell::Cell::new(usize::MAX) };
}

/// Whether `lhs` and `rhs` (of the same shape) are equal cell by cell as piecewise
/// polynomials of their leaves. `same_leaf` says whether two leaf expressions are equal
/// (the caller's canonical forms). `Ok(false)` means "not proved", never "different".
pub(crate) fn equal_cellwise(
    lhs: &LaExpr,
    rhs: &LaExpr,
    env: &ShapeEnv,
    same_leaf: &mut dyn FnMut(&LaExpr, &LaExpr) -> Result<bool, EquivError>,
) -> Result<bool, EquivError> {
    decide(lhs, rhs, env, same_leaf, false)
}

/// [`equal_cellwise`] with the values `spores run` computes where a function leaves its
/// domain: `log(0)` is `-Inf`, `log` of a negative number and `0 / 0` are NaN, NaN and the
/// infinities go on through every operator as in floating point (a matrix cell's product
/// with 0 is 0, NaN compares false, extremes propagate NaN), and two sides are equal where
/// both are NaN. Every leaf is free of functions that may leave the reals
/// ([`super::domain`]), so it is a real number, and every function is one the cases
/// follow (`log`, `sqrt`, division) or one that never leaves the reals.
pub(crate) fn equal_cellwise_as_computed(
    lhs: &LaExpr,
    rhs: &LaExpr,
    env: &ShapeEnv,
    same_leaf: &mut dyn FnMut(&LaExpr, &LaExpr) -> Result<bool, EquivError>,
) -> Result<bool, EquivError> {
    decide(lhs, rhs, env, same_leaf, true)
}

/// Functions [`Search::value`] follows outside their domains, or that are real wherever
/// their arguments are.
const WHERE_DEFINED: &[&str] = &[
    "exp", "log", "sqrt", "sigmoid", "round", "floor", "ceil", "ceiling", "sin", "cos", "atan",
    "sinh", "cosh", "tanh",
];

fn within_domains(s: &S) -> bool {
    match s {
        S::Leaf(_) | S::Const(_) => true,
        S::Add(a, b)
        | S::Mul(a, b, _)
        | S::Div(a, b, _)
        | S::Max(a, b)
        | S::Min(a, b)
        | S::Cmp(_, a, b) => within_domains(a) && within_domains(b),
        S::Neg(a) | S::Pow(a, _) | S::Recip(a, _) | S::Abs(a) | S::Sign(a) | S::Truth(a) => {
            within_domains(a)
        }
        S::Ifelse(c, a, b) => within_domains(c) && within_domains(a) && within_domains(b),
        S::Opaque(name, args) => {
            WHERE_DEFINED.contains(&name.as_str()) && args.iter().all(within_domains)
        }
    }
}

fn decide(
    lhs: &LaExpr,
    rhs: &LaExpr,
    env: &ShapeEnv,
    same_leaf: &mut dyn FnMut(&LaExpr, &LaExpr) -> Result<bool, EquivError>,
    as_computed: bool,
) -> Result<bool, EquivError> {
    let mut leaves = Leaves {
        exprs: Vec::new(),
        env,
        same_leaf,
    };
    let (Some(f), Some(g)) = (leaves.scalar(lhs)?, leaves.scalar(rhs)?) else {
        return Ok(false);
    };
    if as_computed
        && !(within_domains(&f)
            && within_domains(&g)
            && leaves
                .exprs
                .iter()
                .all(|leaf| matches!(super::domain::signature(leaf, env), Ok(None))))
    {
        return Ok(false);
    }
    if !as_computed && leaves.exprs.is_empty() && !mentions_guard(&f) && !mentions_guard(&g) {
        // Nothing to split on: the canonical forms already compared these.
        return Ok(false);
    }
    let mut constraints = leaves.order_facts()?;
    let facts = leaves.extreme_facts()?;
    // Inputs known positive, and their slices, transposes and reversals (also where an
    // extreme is reached).
    let positive_leaves: Vec<u32> = (0..leaves.exprs.len() as u32)
        .filter(|&k| positive_input(&leaves.exprs[k as usize], env))
        .collect();
    constraints.extend(positive_leaves.iter().map(|&k| (P::var(k), true)));
    let start = Case {
        constraints,
        ..Case::default()
    };
    let mut search = Search {
        as_computed,
        opaque: HashMap::new(),
        meaning: positive_leaves
            .into_iter()
            .map(|k| (k, Meaning::Positive))
            .collect(),
        next_var: leaves.exprs.len() as u32,
        cases: 0,
        facts,
    };
    // A decision inside another one draws on what the outer one has left.
    let outer = WORK_LEFT.get();
    WORK_LEFT.set(outer.min(MAX_WORK));
    let equal = search.equal(&f, &g, &start);
    if outer == usize::MAX {
        WORK_LEFT.set(usize::MAX);
    }
    Ok(equal == Some(true))
}

/// Whether every cell of `e` is a cell of an input declared positive.
fn positive_input(e: &LaExpr, env: &ShapeEnv) -> bool {
    match e {
        LaExpr::Var(name) => env.positive.contains(name),
        LaExpr::Transpose(x) => positive_input(x, env),
        LaExpr::Func { name, args } if name == crate::la::INDEX || name == "rev" => {
            args.first().is_some_and(|x| positive_input(x, env))
        }
        _ => false,
    }
}

/// `s` with every leaf `v` renamed to `rename(v)`.
fn relabel(s: &S, rename: &dyn Fn(u32) -> u32) -> S {
    let r = |x: &S| Box::new(relabel(x, rename));
    match s {
        S::Leaf(v) => S::Leaf(rename(*v)),
        S::Const(c) => S::Const(*c),
        S::Add(a, b) => S::Add(r(a), r(b)),
        S::Mul(a, b, product) => S::Mul(r(a), r(b), *product),
        S::Div(a, b, minus_zero) => S::Div(r(a), r(b), *minus_zero),
        S::Neg(a) => S::Neg(r(a)),
        S::Pow(a, k) => S::Pow(r(a), *k),
        S::Recip(a, minus_zero) => S::Recip(r(a), *minus_zero),
        S::Max(a, b) => S::Max(r(a), r(b)),
        S::Min(a, b) => S::Min(r(a), r(b)),
        S::Abs(a) => S::Abs(r(a)),
        S::Sign(a) => S::Sign(r(a)),
        S::Cmp(op, a, b) => S::Cmp(*op, r(a), r(b)),
        S::Truth(a) => S::Truth(r(a)),
        S::Ifelse(c, a, b) => S::Ifelse(r(c), r(a), r(b)),
        S::Opaque(name, args) => S::Opaque(
            name.clone(),
            args.iter().map(|a| relabel(a, rename)).collect(),
        ),
    }
}

/// An extreme of a matrix `x` as `(x, is a maximum, the cells it ranges over at a cell
/// (i, j))`: all of them (`max`), row i, column j, or column j up to row i (`cummax`).
fn extreme_of(e: &LaExpr) -> Option<(&LaExpr, bool, Cells)> {
    let LaExpr::Func { name, args } = e else {
        return None;
    };
    let [x] = args.as_slice() else { return None };
    let (upper, cells) = match name.as_str() {
        "max" => (true, Cells::All),
        "rowMaxs" => (true, Cells::Row),
        "colMaxs" => (true, Cells::Column),
        "cummax" => (true, Cells::ColumnSoFar),
        "min" => (false, Cells::All),
        "rowMins" => (false, Cells::Row),
        "colMins" => (false, Cells::Column),
        "cummin" => (false, Cells::ColumnSoFar),
        _ => return None,
    };
    Some((x, upper, cells))
}

/// A sum of a matrix `x` as `(x, the cells it adds at a cell (i, j), how many)`, when
/// their number is known.
fn sum_of<'e>(e: &'e LaExpr, env: &ShapeEnv) -> Option<(&'e LaExpr, Cells, usize)> {
    let (x, cells) = match e {
        LaExpr::Sum(x) => (x.as_ref(), Cells::All),
        LaExpr::RowSums(x) => (x.as_ref(), Cells::Row),
        LaExpr::ColSums(x) => (x.as_ref(), Cells::Column),
        _ => return None,
    };
    let (rows, cols) = env.shape_of(x).ok()?;
    let known = |d: &Dim| match d {
        Dim::Known(n) => Some(*n),
        Dim::Sym(_) => None,
    };
    let count = match cells {
        Cells::All => known(&rows)?.checked_mul(known(&cols)?)?,
        Cells::Row => known(&cols)?,
        _ => known(&rows)?,
    };
    Some((x, cells, count))
}

/// The cells of a matrix an extreme ranges over, seen from the cell (i, j) it is read at;
/// each includes (i, j).
#[derive(Clone, Copy, PartialEq)]
enum Cells {
    All,
    Row,
    Column,
    ColumnSoFar,
}

impl Cells {
    /// Whether these cells include `other`'s.
    fn covers(self, other: Cells) -> bool {
        self == other || self == Cells::All || (self, other) == (Cells::Column, Cells::ColumnSoFar)
    }
}

// ---------------------------------------------------------------------------------------
// Exact rationals.

/// A rational number `n / d` in lowest terms, `d > 0`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct Q {
    n: i128,
    d: i128,
}

fn gcd(mut a: i128, mut b: i128) -> i128 {
    a = a.abs();
    b = b.abs();
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

impl Q {
    const ZERO: Q = Q { n: 0, d: 1 };
    const ONE: Q = Q { n: 1, d: 1 };

    fn new(n: i128, d: i128) -> Option<Q> {
        if d == 0 {
            return None;
        }
        let g = gcd(n, d).max(1);
        let (n, d) = (n / g, d / g);
        Some(if d < 0 {
            Q { n: -n, d: -d }
        } else {
            Q { n, d }
        })
    }

    /// `round` (halves up, as Java's `Math.round` and `spores run`: `round(-2.5)` is
    /// -2), `floor` or `ceil` of `self`.
    fn rounded(self, how: &str) -> Option<Q> {
        let floor = |q: Q| q.n.div_euclid(q.d);
        let n = match how {
            "floor" => floor(self),
            "ceil" | "ceiling" => -floor(Q {
                n: -self.n,
                d: self.d,
            }),
            _ => floor(self.add(Q::new(1, 2)?)?),
        };
        Some(Q { n, d: 1 })
    }

    fn int(n: i64) -> Q {
        Q { n: n as i128, d: 1 }
    }

    /// The exact value of a finite double, when it fits.
    fn from_f64(x: f64) -> Option<Q> {
        if !x.is_finite() {
            return None;
        }
        if x.fract() == 0.0 && x.abs() < 1e30 {
            return Some(Q { n: x as i128, d: 1 });
        }
        // x = m * 2^e with an integer m of at most 53 bits.
        let mut m = x;
        let mut e = 0i32;
        while m.fract() != 0.0 {
            m *= 2.0;
            e += 1;
            if e > 100 {
                return None;
            }
        }
        if m.abs() >= 2f64.powi(100) {
            return None;
        }
        Q::new(m as i128, 1i128.checked_shl(e as u32)?)
    }

    fn add(self, o: Q) -> Option<Q> {
        let n = self
            .n
            .checked_mul(o.d)?
            .checked_add(o.n.checked_mul(self.d)?)?;
        Q::new(n, self.d.checked_mul(o.d)?)
    }

    fn mul(self, o: Q) -> Option<Q> {
        Q::new(self.n.checked_mul(o.n)?, self.d.checked_mul(o.d)?)
    }

    fn neg(self) -> Q {
        Q {
            n: -self.n,
            d: self.d,
        }
    }

    fn recip(self) -> Option<Q> {
        Q::new(self.d, self.n)
    }

    fn is_zero(self) -> bool {
        self.n == 0
    }

    fn signum(self) -> i8 {
        self.n.signum() as i8
    }
}

// ---------------------------------------------------------------------------------------
// Polynomials over the rationals.

/// A monomial: `(variable, exponent)` pairs, sorted by variable, exponents > 0.
type Mono = Vec<(u32, u32)>;

/// A polynomial: monomials with non-zero coefficients.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct P(BTreeMap<Mono, Q>);

impl P {
    fn constant(c: Q) -> P {
        let mut m = BTreeMap::new();
        if !c.is_zero() {
            m.insert(Vec::new(), c);
        }
        P(m)
    }

    fn var(v: u32) -> P {
        P(BTreeMap::from([(vec![(v, 1)], Q::ONE)]))
    }

    fn as_constant(&self) -> Option<Q> {
        match self.0.len() {
            0 => Some(Q::ZERO),
            1 => self.0.get(&Vec::new()).copied(),
            _ => None,
        }
    }

    fn add(&self, o: &P) -> Option<P> {
        let mut out = self.0.clone();
        for (m, c) in &o.0 {
            let sum = out.get(m).copied().unwrap_or(Q::ZERO).add(*c)?;
            if sum.is_zero() {
                out.remove(m);
            } else {
                out.insert(m.clone(), sum);
            }
        }
        Some(P(out))
    }

    fn neg(&self) -> P {
        P(self.0.iter().map(|(m, c)| (m.clone(), c.neg())).collect())
    }

    fn sub(&self, o: &P) -> Option<P> {
        self.add(&o.neg())
    }

    fn scale(&self, k: Q) -> Option<P> {
        if k.is_zero() {
            return Some(P::default());
        }
        let mut out = BTreeMap::new();
        for (m, c) in &self.0 {
            out.insert(m.clone(), c.mul(k)?);
        }
        Some(P(out))
    }

    fn mul(&self, o: &P) -> Option<P> {
        let products = self.0.len().saturating_mul(o.0.len());
        if products > MAX_PRODUCT_TERMS || WORK_LEFT.get() < products {
            return None;
        }
        WORK_LEFT.set(WORK_LEFT.get() - products);
        let mut out: BTreeMap<Mono, Q> = BTreeMap::new();
        for (ma, ca) in &self.0 {
            for (mb, cb) in &o.0 {
                let mut m: BTreeMap<u32, u32> = ma.iter().copied().collect();
                for &(v, e) in mb {
                    *m.entry(v).or_insert(0) += e;
                }
                let coef = ca.mul(*cb)?;
                let slot = out.entry(m.into_iter().collect()).or_insert(Q::ZERO);
                *slot = slot.add(coef)?;
            }
        }
        out.retain(|_, c| !c.is_zero());
        Some(P(out))
    }

    fn pow(&self, k: u32) -> Option<P> {
        let mut acc = P::constant(Q::ONE);
        for _ in 0..k {
            acc = acc.mul(self)?;
        }
        Some(acc)
    }

    /// Whether every monomial has degree at most one.
    fn is_linear(&self) -> bool {
        self.0
            .keys()
            .all(|m| m.len() <= 1 && m.iter().all(|&(_, e)| e == 1))
    }

    /// Coefficient of `v` in a linear polynomial.
    fn linear_coef(&self, v: u32) -> Q {
        self.0.get(&vec![(v, 1)]).copied().unwrap_or(Q::ZERO)
    }

    fn vars(&self) -> Vec<u32> {
        let mut v: Vec<u32> = self.0.keys().flatten().map(|&(v, _)| v).collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    /// `self` with `v` replaced by `by`.
    fn substitute(&self, v: u32, by: &P) -> Option<P> {
        let mut out = P::default();
        for (m, c) in &self.0 {
            let mut term = P::constant(*c);
            for &(w, e) in m {
                let factor = if w == v {
                    by.pow(e)?
                } else {
                    P::var(w).pow(e)?
                };
                term = term.mul(&factor)?;
            }
            out = out.add(&term)?;
        }
        Some(out)
    }

    /// The guard with the same sign pattern in canonical form (leading coefficient 1),
    /// and whether its sign is flipped against `self`.
    fn normalized(&self) -> Option<(P, bool)> {
        let (_, lead) = self.0.iter().next_back()?;
        let flip = lead.signum() < 0;
        // Scaled so the leading coefficient is 1: `p` and `-p` share one key.
        let scale = lead.recip()?;
        Some((self.scale(scale)?, flip))
    }
}

/// The leading monomial of `p` in graded lexicographic order (a monomial order: the
/// leading term of a product is the product of the leading terms).
fn leading(p: &P) -> Option<(&Mono, Q)> {
    let degree = |m: &Mono| m.iter().map(|&(_, e)| e).sum::<u32>();
    p.0.iter()
        .max_by(|(a, _), (b, _)| {
            degree(a).cmp(&degree(b)).then_with(|| {
                // Larger exponent of the smallest variable first.
                let dense = |m: &Mono| {
                    m.iter()
                        .map(|&(v, e)| (std::cmp::Reverse(v), e))
                        .collect::<Vec<_>>()
                };
                dense(a).cmp(&dense(b))
            })
        })
        .map(|(m, c)| (m, *c))
}

/// `q` with `q * q = p`, the one with a positive leading coefficient, when there is one
/// (the square root by long division, leading term by leading term).
fn poly_sqrt(p: &P) -> Option<P> {
    if p.0.is_empty() {
        return Some(P::default());
    }
    let (lead, c) = leading(p)?;
    let c_root = P::constant(c).pipe_sqrt()?.as_constant()?;
    if lead.iter().any(|&(_, e)| e % 2 != 0) {
        return None;
    }
    let first_mono: Mono = lead.iter().map(|&(v, e)| (v, e / 2)).collect();
    let first = P(BTreeMap::from([(first_mono.clone(), c_root)]));
    let twice = c_root.add(c_root)?;
    let mut q = first;
    for _ in 0..=p.0.len() {
        let r = p.sub(&q.mul(&q)?)?;
        let Some((rm, rc)) = leading(&r) else {
            return Some(q);
        };
        // The next term: the remainder's leading term over twice the root's.
        let mut exps: BTreeMap<u32, i64> = rm.iter().map(|&(v, e)| (v, e as i64)).collect();
        for &(v, e) in &first_mono {
            *exps.entry(v).or_insert(0) -= e as i64;
        }
        if exps.values().any(|&e| e < 0) {
            return None;
        }
        let mono: Mono = exps
            .into_iter()
            .filter(|&(_, e)| e > 0)
            .map(|(v, e)| (v, e as u32))
            .collect();
        let term = P(BTreeMap::from([(mono, rc.mul(twice.recip()?)?)]));
        q = q.add(&term)?;
    }
    None
}

impl P {
    /// The square root of a non-negative rational constant, when it is rational.
    fn pipe_sqrt(&self) -> Option<P> {
        let c = self.as_constant()?;
        if c.n < 0 {
            return None;
        }
        let isqrt = |n: i128| {
            let r = (n as f64).sqrt().round() as i128;
            (r * r == n).then_some(r)
        };
        Some(P::constant(Q::new(isqrt(c.n)?, isqrt(c.d)?)?))
    }
}

// ---------------------------------------------------------------------------------------
// Scalar formulas.

/// The function one cell computes, over leaf variables.
#[derive(Clone, Debug)]
enum S {
    Leaf(u32),
    Const(Q),
    Add(Box<S>, Box<S>),
    Mul(Box<S>, Box<S>, Product),
    /// `a / b`, IEEE's: `0 / 0` is NaN; whether `b` may be `-0`
    /// ([`super::domain::may_be_negative_zero`]), where a number over it is an infinity
    /// of the other sign.
    Div(Box<S>, Box<S>, bool),
    Neg(Box<S>),
    Pow(Box<S>, u32),
    /// `1 / x` (a constant divisor folds into a coefficient); whether `x` may be a `-0`
    /// that gives `-Inf`.
    Recip(Box<S>, bool),
    Max(Box<S>, Box<S>),
    Min(Box<S>, Box<S>),
    Abs(Box<S>),
    Sign(Box<S>),
    /// `a op b` as 1 or 0.
    Cmp(Cmp, Box<S>, Box<S>),
    /// `x != 0` as 1 or 0 (the truth of a number).
    Truth(Box<S>),
    Ifelse(Box<S>, Box<S>, Box<S>),
    /// Any other cellwise function: a fresh variable per distinct argument list.
    Opaque(String, Vec<S>),
}

/// How a product treats a zero factor beside NaN or an infinity.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Product {
    /// Matrix cells: a zero factor makes 0 (`0 * NaN = 0`).
    Masking,
    /// Two scalars: IEEE's (`0 * Inf = NaN`).
    Ieee,
    /// Operands not known to be scalars or matrices.
    Either,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cmp {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

impl Cmp {
    fn of(name: &str) -> Option<Cmp> {
        Some(match name {
            "<" => Cmp::Lt,
            "<=" => Cmp::Le,
            ">" => Cmp::Gt,
            ">=" => Cmp::Ge,
            "==" => Cmp::Eq,
            "!=" => Cmp::Ne,
            _ => return None,
        })
    }

    /// Whether `a op b` holds when `a - b` has sign `s`.
    fn holds(self, s: i8) -> bool {
        match self {
            Cmp::Lt => s < 0,
            Cmp::Le => s <= 0,
            Cmp::Gt => s > 0,
            Cmp::Ge => s >= 0,
            Cmp::Eq => s == 0,
            Cmp::Ne => s != 0,
        }
    }
}

fn mentions_guard(s: &S) -> bool {
    match s {
        S::Leaf(_) | S::Const(_) => false,
        S::Max(..) | S::Min(..) | S::Abs(_) | S::Sign(_) | S::Cmp(..) | S::Truth(_) => true,
        S::Ifelse(..) => true,
        S::Add(a, b) | S::Mul(a, b, _) | S::Div(a, b, _) => mentions_guard(a) || mentions_guard(b),
        S::Neg(a) | S::Pow(a, _) | S::Recip(a, _) => mentions_guard(a),
        S::Opaque(_, args) => args.iter().any(mentions_guard),
    }
}

struct Leaves<'a, 'e> {
    exprs: Vec<LaExpr>,
    env: &'a ShapeEnv,
    same_leaf: &'e mut dyn FnMut(&LaExpr, &LaExpr) -> Result<bool, EquivError>,
}

impl Leaves<'_, '_> {
    fn leaf(&mut self, e: &LaExpr) -> Result<S, EquivError> {
        let shape = self.env.shape_of(e).ok();
        for (k, other) in self.exprs.iter().enumerate() {
            if other == e || (self.env.shape_of(other).ok() == shape && (self.same_leaf)(other, e)?)
            {
                return Ok(S::Leaf(k as u32));
            }
        }
        self.exprs.push(e.clone());
        Ok(S::Leaf(self.exprs.len() as u32 - 1))
    }

    /// The leaves that are extremes ([`extreme_of`]), as `(leaf, x, is a maximum, cells)`.
    fn extremes(&self) -> Vec<(usize, LaExpr, bool, Cells)> {
        self.exprs
            .iter()
            .enumerate()
            .filter_map(|(k, e)| extreme_of(e).map(|(x, up, cells)| (k, x.clone(), up, cells)))
            .collect()
    }

    /// Facts every cell satisfies, as constraints `p >= 0` on the leaves: a cell of `x`
    /// lies between the smallest and the largest of `x` (`min(x) <= x <= rowMaxs(x) <=
    /// max(x)`, read at the cell, where every leaf is read at the same cell), so a case
    /// that puts a cell above its maximum is no case at all.
    fn order_facts(&mut self) -> Result<Vec<(P, bool)>, EquivError> {
        let extremes = self.extremes();
        let mut facts = Vec::new();
        // `low <= high`, as `high - low >= 0`.
        let mut below = |low: usize, high: usize| {
            if let Some(p) = P::var(high as u32).sub(&P::var(low as u32)) {
                facts.push((p, false));
            }
        };
        for (k, x, upper, cells) in &extremes {
            for (j, e) in self.exprs.iter().enumerate() {
                if j != *k && (e == x || (self.same_leaf)(e, x)?) {
                    if *upper {
                        below(j, *k);
                    } else {
                        below(*k, j);
                    }
                }
            }
            for (k2, x2, upper2, cells2) in &extremes {
                if k2 == k || !(x2 == x || (self.same_leaf)(x2, x)?) {
                    continue;
                }
                // Every minimum is below every maximum (both range over the cell); a
                // maximum over more cells is above one over fewer, a minimum below.
                match (upper, upper2) {
                    (false, true) => below(*k, *k2),
                    (true, true) if cells2.covers(*cells) && cells2 != cells => below(*k, *k2),
                    (false, false) if cells2.covers(*cells) && cells2 != cells => below(*k2, *k),
                    _ => {}
                }
            }
        }
        // The largest row minimum is at most the smallest column maximum (both bound the
        // cell where that row meets that column), and the largest column minimum at most
        // the smallest row maximum.
        let of = |e: &LaExpr, outer: &str, inner: &str| match e {
            LaExpr::Func { name, args } if name == outer && args.len() == 1 => match &args[0] {
                LaExpr::Func { name, args } if name == inner && args.len() == 1 => {
                    Some(args[0].clone())
                }
                _ => None,
            },
            _ => None,
        };
        for (low_inner, high_inner) in [("rowMins", "colMaxs"), ("colMins", "rowMaxs")] {
            for (k, e) in self.exprs.clone().iter().enumerate() {
                let Some(x) = of(e, "max", low_inner) else {
                    continue;
                };
                for (k2, e2) in self.exprs.clone().iter().enumerate() {
                    if let Some(y) = of(e2, "min", high_inner) {
                        if x == y || (self.same_leaf)(&x, &y)? {
                            below(k, k2);
                        }
                    }
                }
            }
        }
        facts.extend(self.sum_facts()?);
        // A sum of n cells lies between n times the extremes over cells that include them.
        let sums: Vec<(usize, LaExpr, Cells, usize)> = self
            .exprs
            .iter()
            .enumerate()
            .filter_map(|(m, e)| sum_of(e, self.env).map(|(x, c, n)| (m, x.clone(), c, n)))
            .collect();
        for (m, x, cells, count) in &sums {
            let Some(n) = i64::try_from(*count).ok().map(Q::int) else {
                continue;
            };
            for (k, x2, upper, cells2) in &extremes {
                if !(cells2.covers(*cells) && (x2 == x || (self.same_leaf)(x2, x)?)) {
                    continue;
                }
                let scaled = P::var(*k as u32).scale(n);
                let (high, low) = if *upper {
                    (scaled, Some(P::var(*m as u32)))
                } else {
                    (Some(P::var(*m as u32)), scaled)
                };
                if let Some(p) = high.zip(low).and_then(|(h, l)| h.sub(&l)) {
                    facts.push((p, false));
                }
            }
        }
        Ok(facts)
    }

    /// Facts about sums among the leaves, from their arguments compared cell by cell
    /// (decided by this module): a sum of cells that are never negative is not negative,
    /// and `sum(x) >= sum(y)` where `x >= y` in every cell, so `sum(abs(X)) >=
    /// abs(sum(X))` (as `abs(X) >= X` and `abs(X) >= -X`).
    fn sum_facts(&mut self) -> Result<Vec<(P, bool)>, EquivError> {
        use LaExpr::*;
        let sums: Vec<(usize, LaExpr)> = self
            .exprs
            .iter()
            .enumerate()
            .filter(|(_, e)| matches!(e, Sum(_) | RowSums(_) | ColSums(_)))
            .map(|(k, e)| (k, e.clone()))
            .collect();
        let small = |e: &LaExpr| {
            let mut n = 0;
            e.visit(&mut |_| n += 1);
            n <= MAX_SUM_ARGUMENT
        };
        if sums.is_empty() || sums.len() > MAX_SUMS || !sums.iter().all(|(_, e)| small(e)) {
            return Ok(Vec::new());
        }
        let argument = |e: &LaExpr| match e {
            Sum(x) | RowSums(x) | ColSums(x) => (**x).clone(),
            _ => unreachable!("filtered above"),
        };
        let same_kind = |a: &LaExpr, b: &LaExpr| {
            std::mem::discriminant(a) == std::mem::discriminant(b)
                && self.env.shape_of(&argument(a)).ok() == self.env.shape_of(&argument(b)).ok()
        };
        let b = |e: LaExpr| Box::new(e);
        let mut facts = Vec::new();
        let var = |k: usize| P::var(k as u32);
        let zero = Const(0.0);
        for (k, e) in &sums {
            let x = argument(e);
            if self.always(">", &x, &zero)? {
                facts.push((var(*k), true));
            } else if self.always(">=", &x, &zero)? {
                facts.push((var(*k), false));
            } else if self.always("<=", &x, &zero)? {
                facts.push((var(*k).neg(), false));
            }
            // A sum of n truths (or other cells at most 1) is at most n.
            let count = sum_of(e, self.env).and_then(|(_, _, n)| i64::try_from(n).ok());
            if let Some(n) = count {
                if self.always("<=", &x, &Const(1.0))? {
                    if let Some(p) = P::constant(Q::int(n)).sub(&var(*k)) {
                        facts.push((p, false));
                    }
                }
            }
        }
        for (k, e) in &sums {
            for (k2, e2) in &sums {
                if k2 <= k || !same_kind(e, e2) {
                    continue;
                }
                let (x, y) = (argument(e), argument(e2));
                let pairs = [
                    (">=", x.clone(), y.clone(), var(*k).sub(&var(*k2))),
                    ("<=", x.clone(), y.clone(), var(*k2).sub(&var(*k))),
                    (">=", x.clone(), Neg(b(y.clone())), var(*k).add(&var(*k2))),
                    ("<=", x, Neg(b(y)), var(*k).add(&var(*k2)).map(|p| p.neg())),
                ];
                for (op, lhs, rhs, fact) in pairs {
                    if let Some(fact) = fact {
                        if self.always(op, &lhs, &rhs)? {
                            facts.push((fact, false));
                        }
                    }
                }
            }
        }
        Ok(facts)
    }

    /// Whether `x op y` holds in every cell, by this module's decision.
    fn always(&mut self, op: &str, x: &LaExpr, y: &LaExpr) -> Result<bool, EquivError> {
        let holds = LaExpr::Func {
            name: op.to_string(),
            args: vec![x.clone(), y.clone()],
        };
        equal_cellwise(&holds, &LaExpr::Const(1.0), self.env, &mut *self.same_leaf)
    }

    /// Facts, as formulas that are 1 at every cell, about the extremes among the leaves
    /// whose argument is a cellwise formula: a cell of `x` lies between the extremes of
    /// `x` (`abs(A) <= max(abs(A))`, read at the current cell), and a full extreme is
    /// some cell's value: `max(A + B)` is `a + b` for the values `a`, `b` of `A` and `B`
    /// at one cell, where also `a <= max(A)` (so `max(A + B) <= max(A) + max(B)`). The
    /// values at that cell are fresh leaves; a leaf of one cell is the same everywhere.
    fn extreme_facts(&mut self) -> Result<Vec<S>, EquivError> {
        let extremes = self.extremes();
        if extremes.is_empty() {
            return Ok(Vec::new());
        }
        let bound = |upper: bool, cell: S, extreme: usize| {
            let op = if upper { Cmp::Le } else { Cmp::Ge };
            S::Cmp(op, Box::new(cell), Box::new(S::Leaf(extreme as u32)))
        };
        let mut formulas = Vec::new();
        for (k, x, upper, _) in &extremes {
            if let Some(sx) = self.scalar(x)? {
                formulas.push((*k, x.clone(), *upper, sx));
            }
        }
        let mut facts = Vec::new();
        for (k, _, upper, sx) in &formulas {
            if !matches!(sx, S::Leaf(_)) {
                facts.push(bound(*upper, sx.clone(), *k));
            }
        }
        for (k, x, _, cells) in &extremes {
            let Some((_, _, _, sx)) = formulas.iter().find(|f| f.0 == *k) else {
                continue;
            };
            if *cells != Cells::All || facts.len() > MAX_FACTS {
                continue;
            }
            let Ok(grid) = self.env.shape_of(x) else {
                continue;
            };
            // The cell where the extreme is reached: every leaf that varies by cell gets
            // a fresh variable there.
            let base = self.exprs.len() as u32;
            let varying: Vec<bool> = self
                .exprs
                .iter()
                .map(|e| !matches!(self.env.shape_of(e), Ok((r, c)) if r.is_one() && c.is_one()))
                .collect();
            let at_witness = move |v: u32| {
                if varying.get(v as usize).copied().unwrap_or(false) {
                    base + v
                } else {
                    v
                }
            };
            // Each copy is its leaf's expression (read at another cell), so what is
            // known of every cell of it (declared positive) holds there too.
            for v in 0..base as usize {
                let copy = self.exprs[v].clone();
                self.exprs.push(copy);
            }
            facts.push(S::Cmp(
                Cmp::Eq,
                Box::new(relabel(sx, &at_witness)),
                Box::new(S::Leaf(*k as u32)),
            ));
            for (k2, x2, upper2, sx2) in &formulas {
                let fits = |a: &Dim, b: &Dim| a == b || a.is_one() || b.is_one();
                let read_there = matches!(self.env.shape_of(x2), Ok((r, c)) if fits(&r, &grid.0) && fits(&c, &grid.1));
                let full = matches!(extreme_of(&self.exprs[*k2]), Some((_, _, Cells::All)));
                if k2 != k && full && read_there {
                    facts.push(bound(*upper2, relabel(sx2, &at_witness), *k2));
                }
            }
        }
        Ok(facts)
    }

    /// How the product `e` treats a zero factor: matrix cells mask, two scalars multiply
    /// as IEEE numbers.
    fn product(&self, e: &LaExpr) -> Product {
        use super::domain::{product_kind, ProductKind};
        let LaExpr::Mul(x, y) = e else {
            return Product::Either;
        };
        match product_kind(x, y, self.env) {
            ProductKind::Masking => Product::Masking,
            ProductKind::Ieee => Product::Ieee,
            ProductKind::Unknown => Product::Either,
        }
    }

    /// The scalar formula of `e`'s cells, or `None` for a construct with no meaning here
    /// (a constant that is NaN, say).
    fn scalar(&mut self, e: &LaExpr) -> Result<Option<S>, EquivError> {
        let b = Box::new;
        Ok(Some(match e {
            // `-0` is a number of its own where it is divided by.
            LaExpr::Const(c) if *c == 0.0 && c.is_sign_negative() => return Ok(None),
            LaExpr::Const(c) => match Q::from_f64(*c) {
                Some(q) => S::Const(q),
                None => return Ok(None),
            },
            // `x * x` is `x^2`, whose root `sqrt(x) * sqrt(x)` knows.
            LaExpr::Mul(x, y) if x == y => match self.scalar(x)? {
                Some(x) => S::Pow(b(x), 2),
                None => return Ok(None),
            },
            LaExpr::Add(x, y) | LaExpr::Sub(x, y) | LaExpr::Mul(x, y) => {
                let (Some(x), Some(y)) = (self.scalar(x)?, self.scalar(y)?) else {
                    return Ok(None);
                };
                match e {
                    LaExpr::Add(..) => S::Add(b(x), b(y)),
                    LaExpr::Sub(..) => S::Add(b(x), b(S::Neg(b(y)))),
                    _ => S::Mul(b(x), b(y), self.product(e)),
                }
            }
            LaExpr::Neg(x) => match self.scalar(x)? {
                Some(x) => S::Neg(b(x)),
                None => return Ok(None),
            },
            LaExpr::Pow(x, k) if *k >= 0.0 && k.fract() == 0.0 && *k <= MAX_POWER as f64 => {
                match self.scalar(x)? {
                    Some(x) => S::Pow(b(x), *k as u32),
                    None => return Ok(None),
                }
            }
            LaExpr::Pow(x, k) if *k < 0.0 && k.fract() == 0.0 && -*k <= MAX_POWER as f64 => {
                // An odd power of -0 is -0, an even one +0.
                let minus_zero =
                    (-*k) % 2.0 == 1.0 && super::domain::may_be_negative_zero(x, self.env);
                match self.scalar(x)? {
                    Some(x) => S::Recip(b(S::Pow(b(x), -*k as u32)), minus_zero),
                    None => return Ok(None),
                }
            }
            // x^(n/2) is sqrt(x)^n, NaN where x < 0 as the power is.
            LaExpr::Pow(x, k)
                if (2.0 * k).fract() == 0.0 && (2.0 * k).abs() <= MAX_POWER as f64 =>
            {
                match self.scalar(x)? {
                    Some(x) => {
                        let root = S::Opaque("sqrt".into(), vec![x]);
                        let power = S::Pow(b(root), (2.0 * k).abs() as u32);
                        // A fractional power of -0 is +0, to a negative power +Inf.
                        if *k < 0.0 {
                            S::Recip(b(power), false)
                        } else {
                            power
                        }
                    }
                    None => return Ok(None),
                }
            }
            LaExpr::Fill(v, _, _) => return self.scalar(v),
            // A constant's transpose is itself; `as.scalar` and `as.matrix` keep the cell.
            LaExpr::Transpose(x) if x.vars().is_empty() => return self.scalar(x),
            // A transpose moves inside what works cell by cell, so that `t(-v)` and
            // `-t(v)` are one cell of one input: each operand is transposed instead.
            LaExpr::Transpose(x) if transposed_inside(x).is_some() => {
                return self.scalar(&transposed_inside(x).expect("checked"));
            }
            LaExpr::Func { name, args }
                if args.len() == 1 && (name == "as.scalar" || name == "as.matrix") =>
            {
                return self.scalar(&args[0]);
            }
            LaExpr::Func { name, args }
                if crate::functions::is_elementwise(name, args.len()) || name == "ifelse" =>
            {
                // `sqrt(x^2)` is `abs(x)` for every real x.
                if let ("sqrt", [LaExpr::Pow(x, k)]) = (name.as_str(), args.as_slice()) {
                    if *k == 2.0 {
                        return Ok(self.scalar(x)?.map(|x| S::Abs(b(x))));
                    }
                }
                let mut s = Vec::with_capacity(args.len());
                for a in args {
                    match self.scalar(a)? {
                        Some(x) => s.push(x),
                        None => return Ok(None),
                    }
                }
                let mut s = s.into_iter();
                let mut next = || b(s.next().expect("arity checked"));
                match (name.as_str(), args.len()) {
                    ("max", 2) => S::Max(next(), next()),
                    ("min", 2) => S::Min(next(), next()),
                    ("abs", 1) => S::Abs(next()),
                    ("sign", 1) => S::Sign(next()),
                    ("!", 1) => S::Add(b(S::Const(Q::ONE)), b(S::Neg(b(S::Truth(next()))))),
                    ("&", 2) => S::Mul(b(S::Truth(next())), b(S::Truth(next())), Product::Masking),
                    ("|", 2) => {
                        let (x, y) = (S::Truth(next()), S::Truth(next()));
                        // a | b = a + b - a b on truths.
                        let both = S::Mul(b(x.clone()), b(y.clone()), Product::Masking);
                        S::Add(b(S::Add(b(x), b(y))), b(S::Neg(b(both))))
                    }
                    ("ifelse", 3) => S::Ifelse(next(), next(), next()),
                    // sigmoid(x) = 1 / (1 + exp(-x)).
                    ("sigmoid", 1) => S::Recip(
                        b(S::Add(
                            b(S::Const(Q::ONE)),
                            b(S::Opaque("exp".into(), vec![S::Neg(next())])),
                        )),
                        false,
                    ),
                    ("/", 2) => S::Div(
                        next(),
                        next(),
                        super::domain::may_be_negative_zero(&args[1], self.env),
                    ),
                    (op, 2) if Cmp::of(op).is_some() => {
                        S::Cmp(Cmp::of(op).expect("checked"), next(), next())
                    }
                    (op, _) => S::Opaque(op.to_string(), args.iter().map(|_| *next()).collect()),
                }
            }
            _ => self.leaf(e)?,
        }))
    }
}

// ---------------------------------------------------------------------------------------
// Cases.

/// A case of the split: the signs decided so far (by guard in normalized form), the
/// variables solved for (in order), and the constraints (each `p > 0`, or `p >= 0`).
#[derive(Clone, Debug, Default)]
struct Case {
    signs: HashMap<P, i8>,
    solved: Vec<(u32, P)>,
    /// `(p, strict)`: `p > 0` when strict, else `p >= 0`.
    constraints: Vec<(P, bool)>,
}

impl Case {
    fn sign_of(&self, p: &P) -> Option<i8> {
        if let Some(c) = p.as_constant() {
            return Some(c.signum());
        }
        let (norm, flip) = p.normalized()?;
        self.signs.get(&norm).map(|&s| if flip { -s } else { s })
    }

    /// The case with `p`'s sign decided as `s`; `None` when it is infeasible (or a
    /// number overflowed, which makes this case unprovable: the caller fails).
    fn with(&self, p: &P, s: i8, known: &[(P, bool)]) -> Option<Option<Case>> {
        // A sum of even powers is never negative (`a^2 + b^2`), which no linear bound sees.
        let never_negative = |p: &P| {
            p.0.iter()
                .all(|(m, c)| c.signum() > 0 && m.iter().all(|&(_, e)| e % 2 == 0))
        };
        if (s < 0 && never_negative(p)) || (s > 0 && never_negative(&p.neg())) {
            return Some(None);
        }
        let mut case = self.clone();
        if s == 0 && p.is_linear() {
            // Solve p = 0 for its last variable and substitute it everywhere.
            let v = *p.vars().last()?;
            let coef = p.linear_coef(v);
            let rest = p.sub(&P::var(v).scale(coef)?)?;
            let by = rest.scale(coef.recip()?.neg())?;
            case.solved.push((v, by.clone()));
            let mut constraints = Vec::new();
            for (c, strict) in &case.constraints {
                constraints.push((c.substitute(v, &by)?, *strict));
            }
            case.constraints = constraints;
            let mut signs = HashMap::new();
            for (g, sign) in &case.signs {
                let g = g.substitute(v, &by)?;
                match g.as_constant() {
                    Some(c) if c.signum() != *sign => return Some(None),
                    Some(_) => {}
                    None => {
                        let (norm, flip) = g.normalized()?;
                        let sign = if flip { -sign } else { *sign };
                        if signs.insert(norm, sign).is_some_and(|old| old != sign) {
                            return Some(None);
                        }
                    }
                }
            }
            case.signs = signs;
        } else {
            let (norm, flip) = p.normalized()?;
            case.signs.insert(norm, if flip { -s } else { s });
            match s {
                1 => case.constraints.push((p.clone(), true)),
                -1 => case.constraints.push((p.neg(), true)),
                _ => {
                    case.constraints.push((p.clone(), false));
                    case.constraints.push((p.neg(), false));
                }
            }
        }
        let mut all = case.constraints.clone();
        for (bound, strict) in known {
            all.push((case.apply(bound.clone())?, *strict));
        }
        Some(feasible(&all).then_some(case))
    }

    /// Whether `a = b` follows from a guard this case holds at 0 that could not be solved
    /// for a variable (`1 - y z = 0`): their difference is a number times it.
    fn vanishes(&self, a: &F, c: &F) -> bool {
        let difference = a
            .num
            .mul(&c.den)
            .zip(c.num.mul(&a.den))
            .and_then(|(x, y)| x.sub(&y))
            .and_then(|d| d.normalized());
        let Some((difference, _)) = difference else {
            return false;
        };
        // Equal where a guard is 0 when they differ by a multiple of it: `(1 - y z)^2` and
        // 0 where `y z = 1` (a linear guard is substituted instead).
        self.signs
            .iter()
            .any(|(guard, sign)| *sign == 0 && multiple_of(&difference, guard))
    }

    /// `p` with every solved variable substituted, in the order they were solved.
    fn apply(&self, p: P) -> Option<P> {
        let mut p = p;
        for (v, by) in &self.solved {
            if p.vars().contains(v) {
                p = p.substitute(*v, by)?;
            }
        }
        Some(p)
    }
}

/// Most division steps [`multiple_of`] takes before it answers "no".
const MAX_DIVISION_STEPS: usize = 256;

/// Whether `p` is `g` times some polynomial: dividing by `g` (leading terms in the order
/// of [`leading`]) leaves no remainder, which for one divisor is exact.
fn multiple_of(p: &P, g: &P) -> bool {
    let Some((lead, coef)) = leading(g) else {
        return false;
    };
    let (lead, Some(inverse)) = (lead.clone(), coef.recip()) else {
        return false;
    };
    let mut rest = p.clone();
    for _ in 0..MAX_DIVISION_STEPS {
        let Some((top, c)) = leading(&rest) else {
            return true;
        };
        let Some(quotient) = mono_quotient(top, &lead) else {
            return false;
        };
        let Some(c) = c.mul(inverse) else {
            return false;
        };
        let term = P(BTreeMap::from([(quotient, c)]));
        match term.mul(g).and_then(|t| rest.sub(&t)) {
            Some(next) => rest = next,
            None => return false,
        }
    }
    false
}

/// `a / b` for monomials, when `b` divides `a`.
fn mono_quotient(a: &Mono, b: &Mono) -> Option<Mono> {
    let mut out = Mono::new();
    let mut divisor = b.iter().peekable();
    for &(v, e) in a {
        let take = match divisor.peek() {
            Some(&&(w, f)) if w == v => {
                divisor.next();
                e.checked_sub(f)?
            }
            _ => e,
        };
        if take > 0 {
            out.push((v, take));
        }
    }
    divisor.next().is_none().then_some(out)
}

/// Whether the linear constraints among `constraints` may have a solution (Fourier-
/// Motzkin elimination over the rationals). Non-linear ones are left out, which can only
/// keep a case that has none.
fn feasible(constraints: &[(P, bool)]) -> bool {
    let mut rows: Vec<(BTreeMap<u32, Q>, Q, bool)> = Vec::new();
    for (p, strict) in constraints {
        if !p.is_linear() {
            continue;
        }
        let mut coefs = BTreeMap::new();
        let mut constant = Q::ZERO;
        for (m, c) in &p.0 {
            match m.as_slice() {
                [] => constant = *c,
                [(v, 1)] => {
                    coefs.insert(*v, *c);
                }
                _ => unreachable!("linear"),
            }
        }
        rows.push((coefs, constant, *strict));
    }
    loop {
        // A row without variables decides itself.
        for (coefs, constant, strict) in &rows {
            if coefs.is_empty() {
                let s = constant.signum();
                if s < 0 || (s == 0 && *strict) {
                    return false;
                }
            }
        }
        rows.retain(|(coefs, _, _)| !coefs.is_empty());
        let Some(&v) = rows.iter().flat_map(|(c, _, _)| c.keys()).next() else {
            return true;
        };
        let (mut pos, mut neg, mut rest) = (Vec::new(), Vec::new(), Vec::new());
        for row in rows {
            match row.0.get(&v).map(|c| c.signum()) {
                Some(1) => pos.push(row),
                Some(-1) => neg.push(row),
                _ => rest.push(row),
            }
        }
        for (pc, pk, ps) in &pos {
            for (nc, nk, ns) in &neg {
                // a x + ... (>)= 0 with a > 0, and -b x + ... (>)= 0 with b > 0: adding
                // b times the first and a times the second eliminates x.
                let (a, bb) = (pc[&v], nc[&v].neg());
                let combine = || -> Option<(BTreeMap<u32, Q>, Q, bool)> {
                    let mut coefs = BTreeMap::new();
                    for w in pc.keys().chain(nc.keys()) {
                        if *w == v {
                            continue;
                        }
                        let total = pc
                            .get(w)
                            .copied()
                            .unwrap_or(Q::ZERO)
                            .mul(bb)?
                            .add(nc.get(w).copied().unwrap_or(Q::ZERO).mul(a)?)?;
                        if total.is_zero() {
                            coefs.remove(w);
                        } else {
                            coefs.insert(*w, total);
                        }
                    }
                    let constant = pk.mul(bb)?.add(nk.mul(a)?)?;
                    Some((coefs, constant, *ps || *ns))
                };
                match combine() {
                    Some(row) => rest.push(row),
                    // Overflow: keep the case (it may be feasible).
                    None => return true,
                }
            }
        }
        if rest.len() > MAX_CONSTRAINTS {
            return true;
        }
        rows = rest;
    }
}

/// Why a formula has no value in the current case.
enum Need {
    /// The sign of this polynomial decides it.
    Guard(P),

    /// A number overflowed, or a function may be applied outside its domain (a
    /// logarithm of a number that is not positive, a root of a negative one, a division
    /// by zero, where `spores run` computes NaN, an infinity or, in matrix cells, 0): not
    /// decided here.
    GiveUp,
}

/// A value `num / den`, the denominator non-zero in the case it was built in.
#[derive(Clone, Debug)]
struct F {
    num: P,
    den: P,
}

impl F {
    fn poly(p: P) -> F {
        F {
            num: p,
            den: P::constant(Q::ONE),
        }
    }

    fn add(&self, o: &F) -> Option<F> {
        if self.den == o.den {
            return Some(F {
                num: self.num.add(&o.num)?,
                den: self.den.clone(),
            });
        }
        Some(F {
            num: self.num.mul(&o.den)?.add(&o.num.mul(&self.den)?)?,
            den: self.den.mul(&o.den)?,
        })
    }

    fn neg(&self) -> F {
        F {
            num: self.num.neg(),
            den: self.den.clone(),
        }
    }

    /// `1 / self`, or `self` when `invert` is false.
    fn inverted_if(self, invert: bool) -> F {
        if invert {
            F {
                num: self.den,
                den: self.num,
            }
        } else {
            self
        }
    }

    fn mul(&self, o: &F) -> Option<F> {
        Some(F {
            num: self.num.mul(&o.num)?,
            den: self.den.mul(&o.den)?,
        })
    }

    fn pow(&self, k: u32) -> Option<F> {
        Some(F {
            num: self.num.pow(k)?,
            den: self.den.pow(k)?,
        })
    }

    /// The number `self` is, also where its numerator is a multiple of its denominator
    /// (`x / x` is 1 where it is defined).
    fn as_constant(&self) -> Option<Q> {
        if let (Some(n), Some(d)) = (self.num.as_constant(), self.den.as_constant()) {
            return n.mul(d.recip()?);
        }
        let ((_, n), (_, d)) = (leading(&self.num)?, leading(&self.den)?);
        let ratio = n.mul(d.recip()?)?;
        (self.den.scale(ratio)? == self.num).then_some(ratio)
    }

    /// Whether two values are equal: `a / b = c / d` exactly when `a d = c b`.
    fn same(&self, o: &F) -> Option<bool> {
        Some(self.num.mul(&o.den)? == o.num.mul(&self.den)?)
    }
}

/// A cell's value in a case: a real number, or what floating point leaves the reals for.
#[derive(Clone, Debug)]
enum V {
    Real(F),
    NaN,
    /// `+Inf` (1) or `-Inf` (-1).
    Inf(i8),
}

impl V {
    fn real(p: P) -> V {
        V::Real(F::poly(p))
    }

    fn truth(holds: bool) -> V {
        V::real(P::constant(if holds { Q::ONE } else { Q::ZERO }))
    }

    /// Where the value lies on the extended line: -1 for `-Inf`, 1 for `+Inf`, 0 for a
    /// real number (only ever compared with an infinity).
    fn rank(&self) -> i8 {
        match self {
            V::Inf(s) => *s,
            _ => 0,
        }
    }

    /// `self` times a non-zero number of sign `s`.
    fn scaled_by(self, s: i8) -> V {
        match self {
            V::Real(x) if s < 0 => V::Real(x.neg()),
            V::Inf(t) => V::Inf(t * s),
            other => other,
        }
    }

    /// The sum of two values, one of them not real.
    fn plus_non_finite(&self, o: &V) -> V {
        match (self, o) {
            (V::NaN, _) | (_, V::NaN) => V::NaN,
            (V::Inf(p), V::Inf(q)) if p != q => V::NaN,
            (V::Inf(p), _) | (_, V::Inf(p)) => V::Inf(*p),
            (V::Real(_), V::Real(_)) => unreachable!("one operand is not real"),
        }
    }

    /// `self^k` of a value that is not real, as `powf` computes it (`x^0` is 1).
    fn pow(self, k: u32) -> V {
        match self {
            _ if k == 0 => V::real(P::constant(Q::ONE)),
            V::Inf(-1) if k.is_multiple_of(2) => V::Inf(1),
            V::Real(_) => unreachable!("only called on values that are not real"),
            other => other,
        }
    }

    /// Whether two values, not both real, are the same: NaN is NaN here, as `spores
    /// equiv` compares cells.
    fn same_non_finite(&self, o: &V) -> bool {
        match (self, o) {
            (V::NaN, V::NaN) => true,
            (V::Inf(p), V::Inf(q)) => p == q,
            _ => false,
        }
    }
}

/// What a variable stands for, when it is more than a leaf.
#[derive(Clone, Debug)]
enum Meaning {
    /// `exp` of this polynomial: always positive.
    Exp(P),
    /// `exp` of this fraction (of a denominator that is not a number): always positive.
    ExpOfFraction(F),
    /// `log` of this value, known positive where it was made.
    Log(F),
    /// `sqrt` of this value, known not negative where it was made.
    Sqrt(F),
    /// A leaf declared positive (an input of `ShapeEnv::positive`).
    Positive,
    /// Any other function application.
    Other,
}

struct Search {
    /// Whether a function outside its domain gives NaN or an infinity, as `spores run`
    /// computes it (else the case is not decided).
    as_computed: bool,
    /// Variables standing for function applications, by name and arguments.
    opaque: HashMap<(String, Vec<P>), u32>,
    meaning: HashMap<u32, Meaning>,
    next_var: u32,
    cases: usize,
    /// Formulas that are 1 wherever the leaves can be ([`Leaves::extreme_facts`]): a case
    /// where one is 0 is no case.
    facts: Vec<S>,
}

impl Search {
    /// Whether `f` and `g` agree everywhere in `case` (`Some(true)`), or not provably
    /// (`Some(false)` or `None`).
    fn equal(&mut self, f: &S, g: &S, case: &Case) -> Option<bool> {
        self.cases += 1;
        if self.cases > MAX_CASES {
            return None;
        }
        let both = self.facts_hold(case).and_then(|holds| {
            if !holds {
                return Ok(None);
            }
            let vf = self.value(f, case)?;
            Ok(Some((vf, self.value(g, case)?)))
        });
        match both {
            Ok(None) => Some(true),
            Ok(Some((V::Real(vf), V::Real(vg)))) => match vf.same(&vg) {
                Some(false) => Some(self.same_by_roots(&vf, &vg) || case.vanishes(&vf, &vg)),
                other => other,
            },
            Ok(Some((vf, vg))) => Some(vf.same_non_finite(&vg)),
            Err(Need::GiveUp) => None,
            Err(Need::Guard(h)) => {
                for s in [1, 0, -1] {
                    match case.with(&h, s, &self.known_bounds()) {
                        None => return None,
                        Some(None) => continue,
                        Some(Some(next)) => {
                            if self.equal(f, g, &next) != Some(true) {
                                return Some(false);
                            }
                        }
                    }
                }
                Some(true)
            }
        }
    }

    /// Whether `a = c` once every square of a root variable is written as what it is the
    /// root of (`sqrt(x)^2 = x`, for `x` not negative where the root was made): `X /
    /// sqrt(X) = sqrt(X)`.
    fn same_by_roots(&self, a: &F, c: &F) -> bool {
        let reduce = |p: Option<P>| -> Option<P> {
            let mut p = p?;
            for _ in 0..MAX_POWER {
                let mut changed = false;
                let mut out = P::default();
                for (mono, coef) in &p.0 {
                    let mut term = P(BTreeMap::from([(Mono::new(), *coef)]));
                    for &(v, e) in mono {
                        let squared = match self.meaning.get(&v) {
                            Some(Meaning::Sqrt(x))
                                if e >= 2 && x.den.as_constant() == Some(Q::ONE) =>
                            {
                                Some(&x.num)
                            }
                            _ => None,
                        };
                        let factor = match squared {
                            Some(x) => {
                                changed = true;
                                x.pow(e / 2)?.mul(&P::var(v).pow(e % 2)?)?
                            }
                            None => P::var(v).pow(e)?,
                        };
                        term = term.mul(&factor)?;
                    }
                    out = out.add(&term)?;
                }
                p = out;
                if !changed {
                    return Some(p);
                }
            }
            None
        };
        let left = reduce(a.num.mul(&c.den));
        let right = reduce(c.num.mul(&a.den));
        matches!((left, right), (Some(l), Some(r)) if l == r)
    }

    /// Whether every fact is 1 in `case` (a fact outside its functions' domains is left
    /// out), or the guard to split on first.
    fn facts_hold(&mut self, case: &Case) -> Result<bool, Need> {
        let facts = std::mem::take(&mut self.facts);
        let mut holds = Ok(true);
        for fact in &facts {
            match self.value(fact, case) {
                Ok(V::Real(v)) if v.num.as_constant().is_some_and(|c| c.signum() == 0) => {
                    holds = Ok(false);
                    break;
                }
                Ok(_) | Err(Need::GiveUp) => {}
                Err(guard) => {
                    holds = Err(guard);
                    break;
                }
            }
        }
        self.facts = facts;
        holds
    }

    /// What holds of the function variables in every case, each `p > 0` (strict) or `p
    /// >= 0`: `exp` of anything and declared inputs are positive, and each function lies on
    /// one side of its tangent at 0 or 1, `exp(a) >= 1 + a` and `log(x) <= x - 1`.
    fn known_bounds(&self) -> Vec<(P, bool)> {
        let mut vars: Vec<(&u32, &Meaning)> = self.meaning.iter().collect();
        vars.sort_unstable_by_key(|(v, _)| **v);
        let one = P::constant(Q::ONE);
        let mut out = Vec::new();
        for (&v, meaning) in vars {
            let var = P::var(v);
            match meaning {
                Meaning::Positive | Meaning::ExpOfFraction(_) => out.push((var, true)),
                Meaning::Exp(arg) => {
                    if !arg.0.is_empty() {
                        if let Some(above) = var.sub(&one).and_then(|d| d.sub(arg)) {
                            out.push((above, false));
                        }
                    }
                    out.push((P::var(v), true));
                }
                Meaning::Log(x) if x.den.as_constant() == Some(Q::ONE) => {
                    if let Some(below) = x.num.sub(&one).and_then(|d| d.sub(&var)) {
                        out.push((below, false));
                    }
                }
                _ => {}
            }
        }
        out
    }

    fn sign_poly(&self, p: &P, case: &Case) -> Result<i8, Need> {
        if let Some(s) = case.sign_of(p).or_else(|| self.sign_of_positive_terms(p)) {
            return Ok(s);
        }
        // A square is positive where its root is not 0: split on the root.
        if let Some(q) = poly_sqrt(p).filter(|q| q.as_constant().is_none()) {
            let s = self.sign_poly(&q, case)?;
            return Ok(s * s);
        }
        // A product of powers has the sign of its factors: split on each variable, a
        // linear guard, rather than on the product.
        if let [(mono, c)] = p.0.iter().collect::<Vec<_>>()[..] {
            if mono.len() > 1 || mono.iter().any(|&(_, e)| e > 1) {
                let mut sign = c.signum();
                for &(v, e) in mono {
                    let s = self.sign_poly(&P::var(v), case)?;
                    sign *= if e % 2 == 0 { s * s } else { s };
                }
                return Ok(sign);
            }
        }
        if let Some(sign) = self.sign_of_increasing(p, case)? {
            return Ok(sign);
        }
        if let Some(sign) = self.sign_with_root(p, case)? {
            return Ok(sign);
        }
        Err(Need::Guard(p.clone()))
    }

    /// The sign of `c (f(a) - f(b))` for one increasing function `f` (`exp`, `log` and
    /// `sqrt` where they were made): that of `c (a - b)`, so `exp(max(A, B)) == max(exp(A),
    /// exp(B))`. Also `c (exp(a) - 1)`, of the sign of `c a`. `None` for anything else.
    fn sign_of_increasing(&self, p: &P, case: &Case) -> Result<Option<i8>, Need> {
        let give_up = |x: Option<P>| x.ok_or(Need::GiveUp);
        let give_up_q = |x: Option<Q>| x.ok_or(Need::GiveUp);
        let terms: Vec<_> = p.0.iter().collect();
        let single = |mono: &Mono| match mono.as_slice() {
            [(v, 1)] => Some(*v),
            _ => None,
        };
        // The argument of an increasing function, as a fraction.
        let argument = |v: u32| match self.meaning.get(&v) {
            Some(Meaning::Exp(a)) => Some(F::poly(a.clone())),
            Some(Meaning::ExpOfFraction(x) | Meaning::Log(x) | Meaning::Sqrt(x)) => Some(x.clone()),
            _ => None,
        };
        let same_kind = |v: u32, w: u32| {
            matches!(
                (self.meaning.get(&v), self.meaning.get(&w)),
                (
                    Some(Meaning::Exp(_) | Meaning::ExpOfFraction(_)),
                    Some(Meaning::Exp(_) | Meaning::ExpOfFraction(_))
                ) | (Some(Meaning::Log(_)), Some(Meaning::Log(_)))
                    | (Some(Meaning::Sqrt(_)), Some(Meaning::Sqrt(_)))
            )
        };
        // c log(x): the sign of c (x - 1).
        if let [(mono, c)] = terms.as_slice() {
            let Some(Meaning::Log(x)) = single(mono).and_then(|v| self.meaning.get(&v)) else {
                return Ok(None);
            };
            let gap = give_up(case.apply(give_up(x.num.sub(&x.den))?))?;
            let den = give_up(case.apply(x.den.clone()))?;
            return Ok(Some(
                c.signum() * self.sign_poly(&gap, case)? * self.sign_poly(&den, case)?,
            ));
        }
        // c (log(x) - k) for a number k: the sign of c (x - exp(k)), when `exp(k)` is a
        // variable of this decision (`min(log(X), 1) == log(min(X, exp(1)))`).
        if let [(m1, c1), (m2, c2)] = terms.as_slice() {
            let ((mono, c), constant) = match (m1.is_empty(), m2.is_empty()) {
                (true, false) => ((*m2, **c2), **c1),
                (false, true) => ((*m1, **c1), **c2),
                _ => ((*m1, **c1), Q::ZERO),
            };
            let log = single(mono).and_then(|v| self.meaning.get(&v));
            if let (Some(Meaning::Log(x)), false) = (log, constant == Q::ZERO) {
                let k = give_up(P::constant(constant.neg()).scale(give_up_q(c.recip())?))?;
                let Some(&exp_k) = self.opaque.get(&("exp".to_string(), vec![k])) else {
                    return Ok(None);
                };
                let scaled = give_up(x.den.mul(&P::var(exp_k)))?;
                let gap = give_up(case.apply(give_up(x.num.sub(&scaled))?))?;
                let den = give_up(case.apply(x.den.clone()))?;
                return Ok(Some(
                    c.signum() * self.sign_poly(&gap, case)? * self.sign_poly(&den, case)?,
                ));
            }
        }
        let (first, second) = match terms.as_slice() {
            [(m1, c1), (m2, c2)] if **c1 == c2.neg() => (((*m1).clone(), **c1), (*m2).clone()),
            _ => return Ok(None),
        };
        let ((m1, c), m2) = (first, second);
        // exp(a) - 1: the sign of a.
        if m2.is_empty() || m1.is_empty() {
            let (var_mono, c) = if m2.is_empty() {
                (&m1, c)
            } else {
                (&m2, c.neg())
            };
            let Some(v) = single(var_mono) else {
                return Ok(None);
            };
            let a = match self.meaning.get(&v) {
                Some(Meaning::Exp(a)) => F::poly(a.clone()),
                Some(Meaning::ExpOfFraction(x)) => x.clone(),
                _ => return Ok(None),
            };
            let (num, den) = (give_up(case.apply(a.num))?, give_up(case.apply(a.den))?);
            return Ok(Some(
                c.signum() * self.sign_poly(&num, case)? * self.sign_poly(&den, case)?,
            ));
        }
        let (Some(v), Some(w)) = (single(&m1), single(&m2)) else {
            return Ok(None);
        };
        if !same_kind(v, w) {
            return Ok(None);
        }
        let (Some(a), Some(b)) = (argument(v), argument(w)) else {
            return Ok(None);
        };
        // a - b as a fraction: (an bd - bn ad) / (ad bd).
        let num = give_up(give_up(a.num.mul(&b.den))?.sub(&give_up(b.num.mul(&a.den))?))?;
        let den = give_up(a.den.mul(&b.den))?;
        let (num, den) = (give_up(case.apply(num))?, give_up(case.apply(den))?);
        Ok(Some(
            c.signum() * self.sign_poly(&num, case)? * self.sign_poly(&den, case)?,
        ))
    }

    /// The sign of `c s + r` for a square root `s = sqrt(x)` that `r` does not mention:
    /// with `q = -r / c`, `s - q` is positive where `q < 0` (as `s >= 0`), and has the
    /// sign of `x - q^2` where `q >= 0`. `None` when `p` has no such root.
    fn sign_with_root(&self, p: &P, case: &Case) -> Result<Option<i8>, Need> {
        for (&v, meaning) in &self.meaning {
            let Meaning::Sqrt(x) = meaning else { continue };
            let linear =
                p.0.keys()
                    .all(|m| !m.iter().any(|&(w, _)| w == v) || m == &vec![(v, 1)]);
            let Some(&c) = p.0.get(&vec![(v, 1)]) else {
                continue;
            };
            if !linear {
                continue;
            }
            let give_up = |x: Option<P>| x.ok_or(Need::GiveUp);
            let r = give_up(p.sub(&give_up(P::var(v).scale(c))?))?;
            let minus_inverse = c.recip().ok_or(Need::GiveUp)?.neg();
            let q = give_up(r.scale(minus_inverse))?;
            let s_minus_q = if self.sign_poly(&q, case)? < 0 {
                1
            } else {
                let (num, den) = (
                    give_up(case.apply(x.num.clone()))?,
                    give_up(case.apply(x.den.clone()))?,
                );
                let gap = give_up(num.sub(&give_up(q.mul(&q).and_then(|q2| q2.mul(&den)))?))?;
                self.sign_poly(&gap, case)? * self.sign_poly(&den, case)?
            };
            return Ok(Some(c.signum() * s_minus_q));
        }
        Ok(None)
    }

    /// The sign of a polynomial whose monomials are all products of positive variables
    /// (`exp` of something) with coefficients of one sign, which no linear bound sees.
    /// Also a polynomial of even powers (of any variable) with positive coefficients and
    /// a positive constant, as `A^2 + 1`.
    fn sign_of_positive_terms(&self, p: &P) -> Option<i8> {
        let positive = |v: &u32| {
            matches!(
                self.meaning.get(v),
                Some(Meaning::Exp(_) | Meaning::ExpOfFraction(_) | Meaning::Positive)
            ) || self.root_of_positive(*v, None).is_some()
        };
        let mut sign = 0;
        // Whether some monomial is never zero (positive variables or a constant).
        let mut never_zero = false;
        for (mono, c) in &p.0 {
            if !mono.iter().all(|(v, e)| positive(v) || e % 2 == 0)
                || (sign != 0 && c.signum() != sign)
            {
                return None;
            }
            never_zero |= mono.iter().all(|(v, _)| positive(v));
            sign = c.signum();
        }
        (sign != 0 && never_zero).then_some(sign)
    }

    /// The sign of a value: of its numerator times its denominator's.
    fn sign(&self, v: &F, case: &Case) -> Result<i8, Need> {
        Ok(self.sign_poly(&v.num, case)? * self.sign_poly(&v.den, case)?)
    }

    fn var(&mut self, name: &str, key: Vec<P>, meaning: Meaning, case: &Case) -> Result<P, Need> {
        let next = &mut self.next_var;
        let v = *self
            .opaque
            .entry((name.to_string(), key))
            .or_insert_with(|| {
                *next += 1;
                *next - 1
            });
        self.meaning.entry(v).or_insert(meaning);
        case.apply(P::var(v)).ok_or(Need::GiveUp)
    }

    /// The value `s` has in `case`, or the guard to split on first. A function taken
    /// outside its domain gives NaN or an infinity when the search follows floating point
    /// (`self.as_computed`), and gives up otherwise.
    fn value(&mut self, s: &S, case: &Case) -> Result<V, Need> {
        let give_up = |x: Option<F>| x.map(V::Real).ok_or(Need::GiveUp);
        Ok(match s {
            S::Leaf(v) => V::real(case.apply(P::var(*v)).ok_or(Need::GiveUp)?),
            S::Const(c) => V::real(P::constant(*c)),
            S::Add(a, b) => match (self.value(a, case)?, self.value(b, case)?) {
                (V::Real(x), V::Real(y)) => give_up(x.add(&y))?,
                (x, y) => x.plus_non_finite(&y),
            },
            S::Mul(a, b, product) => match (self.value(a, case)?, self.value(b, case)?) {
                (V::Real(x), V::Real(y)) => give_up(x.mul(&y))?,
                (V::Real(x), y) | (y, V::Real(x)) => {
                    if self.sign(&x, case)? != 0 {
                        y.scaled_by(self.sign(&x, case)?)
                    } else {
                        match product {
                            Product::Masking => V::real(P::default()),
                            Product::Ieee => V::NaN,
                            Product::Either => return Err(Need::GiveUp),
                        }
                    }
                }
                (V::NaN, _) | (_, V::NaN) => V::NaN,
                (V::Inf(p), V::Inf(q)) => V::Inf(p * q),
            },
            S::Neg(a) => self.value(a, case)?.scaled_by(-1),
            // sqrt(x)^(2k) is x^k where x >= 0 (and NaN elsewhere), times sqrt(x) for an
            // odd power.
            S::Pow(inner, k)
                if *k >= 2
                    && matches!(&**inner, S::Opaque(n, a) if n == "sqrt" && a.len() == 1) =>
            {
                let S::Opaque(_, args) = &**inner else {
                    unreachable!()
                };
                let x = match self.value(&args[0], case)? {
                    V::Real(x) => x,
                    other => return Ok(self.sqrt_non_finite(other)?.pow(*k)),
                };
                if self.sign(&x, case)? < 0 {
                    return self.outside_reals(V::NaN);
                }
                let whole = x.pow(k / 2).ok_or(Need::GiveUp)?;
                if k % 2 == 0 {
                    V::Real(whole)
                } else {
                    let root = self.finite(inner, case)?;
                    give_up(whole.mul(&root))?
                }
            }
            S::Pow(a, k) => match self.value(a, case)? {
                V::Real(x) => give_up(x.pow(*k))?,
                other => other.pow(*k),
            },
            S::Recip(a, minus_zero) => match self.value(a, case)? {
                // 1 / 0 is the infinity of the zero's sign.
                V::Real(x) if self.sign_poly(&x.num, case)? == 0 => {
                    let zero = self.zero_sign(*minus_zero)?;
                    self.outside_reals(V::Inf(zero))?
                }
                V::Real(x) => V::Real(x.inverted_if(true)),
                V::NaN => V::NaN,
                V::Inf(_) => V::real(P::default()),
            },
            S::Div(a, b, minus_zero) => match (self.value(a, case)?, self.value(b, case)?) {
                (V::Real(x), V::Real(y)) if self.sign_poly(&y.num, case)? == 0 => {
                    match self.sign(&x, case)? {
                        0 => self.outside_reals(V::NaN)?,
                        s => {
                            let zero = self.zero_sign(*minus_zero)?;
                            self.outside_reals(V::Inf(s * zero))?
                        }
                    }
                }
                (V::Real(x), V::Real(y)) => give_up(x.mul(&y.inverted_if(true)))?,
                (V::NaN, _) | (_, V::NaN) | (V::Inf(_), V::Inf(_)) => V::NaN,
                // A finite number over an infinite one is a zero (its sign shows only in a
                // division by it, which `minus_zero` of that division accounts for).
                (V::Real(_), V::Inf(_)) => V::real(P::default()),
                (V::Inf(p), V::Real(y)) => match self.sign(&y, case)? {
                    0 => V::Inf(p * self.zero_sign(*minus_zero)?),
                    s => V::Inf(p * s),
                },
            },
            S::Max(a, b) | S::Min(a, b) => {
                let max = matches!(s, S::Max(..));
                match (self.value(a, case)?, self.value(b, case)?) {
                    (V::Real(va), V::Real(vb)) => {
                        let d = va.add(&vb.neg()).ok_or(Need::GiveUp)?;
                        self.note_log_level(&d, case)?;
                        // At a tie either operand is the answer.
                        let sign = self.sign(&d, case)?;
                        V::Real(if (max && sign >= 0) || (!max && sign <= 0) {
                            va
                        } else {
                            vb
                        })
                    }
                    // The kernels' extremes propagate NaN, as Java's Math.max does.
                    (V::NaN, _) | (_, V::NaN) => V::NaN,
                    (x, y) => {
                        let a_wins = x.rank().cmp(&y.rank()).is_ge() == max;
                        if a_wins {
                            x
                        } else {
                            y
                        }
                    }
                }
            }
            S::Abs(a) => match self.value(a, case)? {
                V::Real(va) if self.sign(&va, case)? >= 0 => V::Real(va),
                V::Real(va) => V::Real(va.neg()),
                V::NaN => V::NaN,
                V::Inf(_) => V::Inf(1),
            },
            S::Sign(a) => match self.value(a, case)? {
                V::Real(va) => V::real(P::constant(Q::int(self.sign(&va, case)? as i64))),
                V::NaN => V::NaN,
                V::Inf(s) => V::real(P::constant(Q::int(s as i64))),
            },
            S::Cmp(op, a, b) => {
                let holds = match (self.value(a, case)?, self.value(b, case)?) {
                    (V::Real(x), V::Real(y)) => {
                        let d = x.add(&y.neg()).ok_or(Need::GiveUp)?;
                        self.note_log_level(&d, case)?;
                        op.holds(self.sign(&d, case)?)
                    }
                    // NaN is unordered: only `!=` holds.
                    (V::NaN, _) | (_, V::NaN) => *op == Cmp::Ne,
                    (x, y) => op.holds(x.rank() - y.rank()),
                };
                V::truth(holds)
            }
            // NaN is not 0, so it is true (`!` and `ifelse` take it so).
            S::Truth(a) => match self.value(a, case)? {
                V::Real(va) => V::truth(self.sign(&va, case)? != 0),
                V::NaN | V::Inf(_) => V::truth(true),
            },
            S::Ifelse(c, a, b) => {
                let truth = match self.value(c, case)? {
                    V::Real(vc) => self.sign(&vc, case)? != 0,
                    V::NaN | V::Inf(_) => true,
                };
                self.value(if truth { a } else { b }, case)?
            }
            // x^y of a positive x is exp(y log(x)), so A^s * A^2 == A^(s + 2).
            S::Opaque(name, args) if name == "^" && args.len() == 2 => {
                let x = self.finite(&args[0], case)?;
                if self.sign(&x, case)? > 0 {
                    let exponent = self.finite(&args[1], case)?;
                    let log = self.log(x, case)?;
                    let power = exponent.mul(&log).ok_or(Need::GiveUp)?;
                    return Ok(V::Real(self.exp(power, case)?));
                }
                if self.as_computed {
                    // A negative base to a fractional power is NaN.
                    return Err(Need::GiveUp);
                }
                let y = self.finite(&args[1], case)?;
                let key = vec![x.num, x.den, y.num, y.den];
                V::real(self.var(name, key, Meaning::Other, case)?)
            }
            S::Opaque(name, args) if name == "exp" && args.len() == 1 => {
                match self.value(&args[0], case)? {
                    V::Real(x) => V::Real(self.exp(x, case)?),
                    V::NaN => V::NaN,
                    V::Inf(1) => V::Inf(1),
                    V::Inf(_) => V::real(P::default()),
                }
            }
            S::Opaque(name, args) if name == "log" && args.len() == 1 => {
                match self.value(&args[0], case)? {
                    V::Real(x) => match self.sign(&x, case)? {
                        1 => V::Real(self.log(x, case)?),
                        0 => self.outside_reals(V::Inf(-1))?,
                        _ => self.outside_reals(V::NaN)?,
                    },
                    V::Inf(1) => V::Inf(1),
                    V::NaN | V::Inf(_) => V::NaN,
                }
            }
            S::Opaque(name, args) if name == "sqrt" && args.len() == 1 => {
                let x = match self.value(&args[0], case)? {
                    V::Real(x) => x,
                    other => return self.sqrt_non_finite(other),
                };
                // sqrt(q^2 / c^2) = |q| / c, never of a negative number.
                if let (Some(q), Some(c)) = (poly_sqrt(&x.num), x.den.as_constant()) {
                    if let Some(c) = P::constant(c).pipe_sqrt() {
                        let q = if self.sign_poly(&q, case)? < 0 {
                            q.neg()
                        } else {
                            q
                        };
                        return Ok(V::Real(F { num: q, den: c }));
                    }
                }
                if self.sign(&x, case)? < 0 {
                    return self.outside_reals(V::NaN);
                }
                if let Some(root) = self.square_root(&x) {
                    return Ok(V::Real(root));
                }
                if let Some(root) = self.root_of_positive_inputs(&x, case)? {
                    return Ok(V::Real(root));
                }
                let key = vec![x.num.clone(), x.den.clone()];
                V::real(self.var(name, key, Meaning::Sqrt(x), case)?)
            }
            // Rounding a number known in this case (a comparison's 0 or 1, say).
            S::Opaque(name, args)
                if args.len() == 1
                    && matches!(name.as_str(), "round" | "floor" | "ceil" | "ceiling") =>
            {
                let x = match self.value(&args[0], case)? {
                    V::Real(x) => x,
                    // Java's Math.round makes NaN a 0 and saturates at a `long`'s bounds;
                    // the others keep NaN and the infinities.
                    V::NaN if name == "round" => return Ok(V::real(P::default())),
                    V::Inf(s) if name == "round" => {
                        let bound = Q::new(i128::from(s) << 63, 1).ok_or(Need::GiveUp)?;
                        return Ok(V::real(P::constant(bound)));
                    }
                    other => return Ok(other),
                };
                match x.as_constant() {
                    Some(q) => V::real(P::constant(q.rounded(name).ok_or(Need::GiveUp)?)),
                    // ceil(x) is -floor(-x), so `floor(-X) == -ceil(X)`.
                    None if name == "ceil" || name == "ceiling" => {
                        let x = x.neg();
                        let key = vec![x.num, x.den];
                        V::real(self.var("floor", key, Meaning::Other, case)?.neg())
                    }
                    None => {
                        let key = vec![x.num, x.den];
                        V::real(self.var(name, key, Meaning::Other, case)?)
                    }
                }
            }
            // Any other function is some real number where it is defined.
            S::Opaque(name, args) => {
                let mut key = Vec::with_capacity(2 * args.len());
                for a in args {
                    let v = self.finite(a, case)?;
                    key.push(v.num);
                    key.push(v.den);
                }
                V::real(self.var(name, key, Meaning::Other, case)?)
            }
        })
    }

    /// The sign of a zero divisor: `+0` unless it may be `-0` (then the case is not
    /// decided). Over the reals a division by zero gives up before asking.
    fn zero_sign(&self, may_be_negative: bool) -> Result<i8, Need> {
        if !self.as_computed || may_be_negative {
            return Err(Need::GiveUp);
        }
        Ok(1)
    }

    /// The value of `s`, which must be a real number here (else this case gives up).
    fn finite(&mut self, s: &S, case: &Case) -> Result<F, Need> {
        match self.value(s, case)? {
            V::Real(x) => Ok(x),
            _ => Err(Need::GiveUp),
        }
    }

    /// `v`, a value outside the reals, where the search follows floating point.
    fn outside_reals(&self, v: V) -> Result<V, Need> {
        if self.as_computed {
            Ok(v)
        } else {
            Err(Need::GiveUp)
        }
    }

    /// `sqrt` of NaN or an infinity. `sqrt(-Inf)` gives up: the half powers read as
    /// roots (`x^0.5`) are `+Inf` there.
    fn sqrt_non_finite(&self, v: V) -> Result<V, Need> {
        match v {
            V::Inf(-1) => Err(Need::GiveUp),
            other => Ok(other),
        }
    }

    /// Whether the variable `v` is positive: a declared positive input, or, within `case`,
    /// a variable the case puts above 0 (`log(A^3)` is `3 log(A)` where `A > 0`, and NaN or
    /// `-Inf` on both sides elsewhere).
    fn positive_in(&self, v: u32, case: Option<&Case>) -> bool {
        matches!(self.meaning.get(&v), Some(Meaning::Positive))
            || case.is_some_and(|case| case.sign_of(&P::var(v)) == Some(1))
    }

    /// The variable `w` when `x` is `w` itself and `w` is positive ([`Self::positive_in`]).
    fn positive_variable(&self, x: &F, case: Option<&Case>) -> Option<u32> {
        let [(mono, c)] = x.num.0.iter().collect::<Vec<_>>()[..] else {
            return None;
        };
        match mono.as_slice() {
            [(w, 1)]
                if *c == Q::ONE
                    && x.den.as_constant() == Some(Q::ONE)
                    && self.positive_in(*w, case) =>
            {
                Some(*w)
            }
            _ => None,
        }
    }

    /// Makes `exp(k)` a variable when `d` compares a `log` with a number `k`, so that the
    /// comparison is decided as one of its argument with `exp(k)`
    /// ([`Self::sign_of_increasing`]) wherever `exp(k)` is met.
    fn note_log_level(&mut self, d: &F, case: &Case) -> Result<(), Need> {
        let Some(den) = d.den.as_constant() else {
            return Ok(());
        };
        let terms: Vec<_> = d.num.0.iter().collect();
        let ([(m1, c1), (m2, c2)], false) = (terms.as_slice(), den == Q::ZERO) else {
            return Ok(());
        };
        let ((mono, c), constant) = match (m1.is_empty(), m2.is_empty()) {
            (true, false) => ((*m2, **c2), **c1),
            (false, true) => ((*m1, **c1), **c2),
            _ => return Ok(()),
        };
        let is_log = matches!(mono.as_slice(), [(v, 1)] if matches!(self.meaning.get(v), Some(Meaning::Log(_))));
        if !is_log {
            return Ok(());
        }
        let Some(k) = c.recip().and_then(|r| P::constant(constant.neg()).scale(r)) else {
            return Ok(());
        };
        self.var("exp", vec![k.clone()], Meaning::Exp(k), case)?;
        Ok(())
    }

    /// The positive variable `w` when `v` stands for `log(w)`.
    fn log_of_positive_input(&self, v: u32, case: &Case) -> Option<u32> {
        let Some(Meaning::Log(x)) = self.meaning.get(&v) else {
            return None;
        };
        self.positive_variable(x, Some(case))
    }

    /// The positive variable `w` when `v` stands for `sqrt(w)`: a declared input, or also
    /// one `case` puts above 0.
    fn root_of_positive(&self, v: u32, case: Option<&Case>) -> Option<u32> {
        let Some(Meaning::Sqrt(x)) = self.meaning.get(&v) else {
            return None;
        };
        self.positive_variable(x, case)
    }

    /// The square root of a fraction of monomials whose variables are positive, with even
    /// exponents and square coefficients (`exp(2 a)` is `exp(a)^2`).
    fn square_root(&self, x: &F) -> Option<F> {
        let root = |p: &P| -> Option<P> {
            let [(mono, c)] = p.0.iter().collect::<Vec<_>>()[..] else {
                return None;
            };
            let positive = |v: &u32| {
                matches!(
                    self.meaning.get(v),
                    Some(Meaning::Exp(_) | Meaning::ExpOfFraction(_) | Meaning::Positive)
                )
            };
            if c.n <= 0 || !mono.iter().all(|(v, e)| positive(v) && e % 2 == 0) {
                return None;
            }
            let isqrt = |n: i128| {
                let r = (n as f64).sqrt().round() as i128;
                (r * r == n).then_some(r)
            };
            let half: Mono = mono.iter().map(|&(v, e)| (v, e / 2)).collect();
            Some(P(BTreeMap::from([(
                half,
                Q::new(isqrt(c.n)?, isqrt(c.d)?)?,
            )])))
        };
        Some(F {
            num: root(&x.num)?,
            den: root(&x.den)?,
        })
    }

    /// `sqrt` of a product of powers of positive inputs: the even powers' halves times a
    /// root variable per input with an odd power, so `sqrt(a^2 b) = a sqrt(b)` and
    /// `sqrt(a) sqrt(b) = sqrt(a b)`. `None` for anything else.
    fn root_of_positive_inputs(&mut self, x: &F, case: &Case) -> Result<Option<F>, Need> {
        let [(mono, c)] = x.num.0.iter().collect::<Vec<_>>()[..] else {
            return Ok(None);
        };
        let positive = |v: &u32| self.positive_in(*v, Some(case));
        if *c != Q::ONE
            || x.den.as_constant() != Some(Q::ONE)
            || !mono.iter().all(|(v, _)| positive(v))
        {
            return Ok(None);
        }
        let mono = mono.clone();
        let mut out = P::constant(Q::ONE);
        for (v, e) in mono {
            let half = P::var(v).pow(e / 2).ok_or(Need::GiveUp)?;
            out = out.mul(&half).ok_or(Need::GiveUp)?;
            if e % 2 == 1 {
                let key = vec![P::var(v), P::constant(Q::ONE)];
                let meaning = Meaning::Sqrt(F::poly(P::var(v)));
                let root = self.var("sqrt", key, meaning, case)?;
                out = out.mul(&root).ok_or(Need::GiveUp)?;
            }
        }
        Ok(Some(F::poly(out)))
    }

    /// `exp(x)`: `exp(a + b) = exp(a) exp(b)` and `exp(k a) = exp(a)^k` for an integer
    /// `k`, so each monomial of a polynomial argument is a positive variable raised to
    /// its coefficient; `exp(k log(y)) = y^k`.
    fn exp(&mut self, x: F, case: &Case) -> Result<F, Need> {
        let give_up = |x: Option<F>| x.ok_or(Need::GiveUp);
        let Some(den) = x.den.as_constant() else {
            let key = vec![x.num.clone(), x.den.clone()];
            return Ok(F::poly(self.var(
                "exp",
                key,
                Meaning::ExpOfFraction(x),
                case,
            )?));
        };
        let arg = x
            .num
            .scale(den.recip().ok_or(Need::GiveUp)?)
            .ok_or(Need::GiveUp)?;
        let mut out = F::poly(P::constant(Q::ONE));
        for (mono, c) in &arg.0 {
            let whole = c.d == 1 && !mono.is_empty() && c.n.unsigned_abs() <= MAX_POWER as u128;
            let factor = match (whole, mono.as_slice()) {
                (true, [(v, 1)]) if matches!(self.meaning.get(v), Some(Meaning::Log(_))) => {
                    let Some(Meaning::Log(y)) = self.meaning.get(v).cloned() else {
                        unreachable!()
                    };
                    y
                }
                (true, _) => {
                    let m = P(BTreeMap::from([(mono.clone(), Q::ONE)]));
                    F::poly(self.var("exp", vec![m.clone()], Meaning::Exp(m), case)?)
                }
                // exp(k/2 log(y)) of a positive input y is sqrt(y)^k.
                (false, [(v, 1)])
                    if c.d == 2
                        && c.n.unsigned_abs() <= MAX_POWER as u128
                        && self.log_of_positive_input(*v, case).is_some() =>
                {
                    let w = self.log_of_positive_input(*v, case).ok_or(Need::GiveUp)?;
                    let key = vec![P::var(w), P::constant(Q::ONE)];
                    let meaning = Meaning::Sqrt(F::poly(P::var(w)));
                    let root = F::poly(self.var("sqrt", key, meaning, case)?);
                    // sqrt(y)^k is y^(k/2), times sqrt(y) for an odd k.
                    let k = c.n.unsigned_abs() as u32;
                    let whole_part = give_up(F::poly(P::var(w)).pow(k / 2))?;
                    let odd = if k % 2 == 1 {
                        root
                    } else {
                        F::poly(P::constant(Q::ONE))
                    };
                    let power = give_up(whole_part.mul(&odd))?.inverted_if(c.n < 0);
                    out = give_up(out.mul(&power))?;
                    continue;
                }
                _ => {
                    let m = P(BTreeMap::from([(mono.clone(), *c)]));
                    F::poly(self.var("exp", vec![m.clone()], Meaning::Exp(m), case)?)
                }
            };
            let k = if whole { c.n.unsigned_abs() as u32 } else { 1 };
            let power = give_up(factor.pow(k))?.inverted_if(whole && c.n < 0);
            out = give_up(out.mul(&power))?;
        }
        Ok(out)
    }

    /// `log(x)` of a positive `x`: a product of powers of `exp` variables is the sum of
    /// their arguments times the powers; anything else a variable for `log(x)`.
    fn log(&mut self, x: F, case: &Case) -> Result<F, Need> {
        if let Some(y) = x.den.as_constant() {
            // A positive constant denominator: log(p / y) with p of y's sign.
            if y == Q::ONE {
                return self.log_poly(x.num, case);
            }
        }
        if x.den.as_constant().is_none() {
            // log(n / d) = log(n) - log(d), both taken positive (they share a sign).
            let flip = self.sign_poly(&x.den, case)? < 0;
            let (n, d) = if flip {
                (x.num.neg(), x.den.neg())
            } else {
                (x.num, x.den)
            };
            let (ln, ld) = (self.log_poly(n, case)?, self.log_poly(d, case)?);
            return ln.add(&ld.neg()).ok_or(Need::GiveUp);
        }
        let key = vec![x.num.clone(), x.den.clone()];
        Ok(F::poly(self.var("log", key, Meaning::Log(x), case)?))
    }

    /// `log(p)` of a positive polynomial: the `exp` variables every monomial shares come
    /// out as the sum of their arguments (`log(exp(a) (1 + exp(b)))` is `a + log(1 +
    /// exp(b))`), and the positive inputs it shares as their logarithms (`log(a b)` is
    /// `log(a) + log(b)`); what is left is a variable for its logarithm, or nothing when
    /// it is 1.
    fn log_poly(&mut self, p: P, case: &Case) -> Result<F, Need> {
        let give_up = || Need::GiveUp;
        // log(q^2) is 2 log(|q|).
        if let Some(q) = poly_sqrt(&p).filter(|q| q.as_constant().is_none()) {
            let q = if self.sign_poly(&q, case)? < 0 {
                q.neg()
            } else {
                q
            };
            let half = self.log_poly(q, case)?;
            return half.add(&half).ok_or_else(give_up);
        }
        // The variables whose logarithm is known: `exp(a)` (its argument), a positive
        // variable (a variable of its own) and the root of one (half of that).
        let exp_arg = |v: &u32, search: &Search| match search.meaning.get(v) {
            Some(Meaning::Exp(arg)) if !arg.0.is_empty() => Some(arg.clone()),
            _ if search.positive_in(*v, Some(case))
                || search.root_of_positive(*v, Some(case)).is_some() =>
            {
                Some(P::default())
            }
            _ => None,
        };
        // The smallest power of each exp variable over all monomials.
        let mut common: BTreeMap<u32, u32> = BTreeMap::new();
        for (k, mono) in p.0.keys().enumerate() {
            let here: BTreeMap<u32, u32> = mono
                .iter()
                .filter(|(v, _)| exp_arg(v, self).is_some())
                .copied()
                .collect();
            if k == 0 {
                common = here;
            } else {
                common.retain(|v, e| match here.get(v) {
                    Some(&f) => {
                        *e = (*e).min(f);
                        true
                    }
                    None => false,
                });
            }
        }
        let mut out = P::default();
        let mut rest = BTreeMap::new();
        for (mono, c) in &p.0 {
            let reduced: Mono = mono
                .iter()
                .filter_map(|&(v, e)| {
                    let left = e - common.get(&v).copied().unwrap_or(0);
                    (left > 0).then_some((v, left))
                })
                .collect();
            rest.insert(reduced, *c);
        }
        for (v, e) in &common {
            // log of a positive input is one variable per input; of its root, half that.
            let exp = matches!(self.meaning.get(v), Some(Meaning::Exp(arg)) if !arg.0.is_empty());
            let (input, power) = match self.root_of_positive(*v, Some(case)) {
                Some(w) => (Some(w), Q::new(*e as i128, 2).ok_or_else(give_up)?),
                None if !exp && self.positive_in(*v, Some(case)) => (Some(*v), Q::int(*e as i64)),
                None => (None, Q::int(*e as i64)),
            };
            let arg = match input {
                Some(w) => {
                    let one = P::constant(Q::ONE);
                    let log = Meaning::Log(F::poly(P::var(w)));
                    self.var("log", vec![P::var(w), one], log, case)?
                }
                None => exp_arg(v, self).ok_or_else(give_up)?,
            };
            out = out
                .add(&arg.scale(power).ok_or_else(give_up)?)
                .ok_or_else(give_up)?;
        }
        let rest = P(rest);
        if rest.as_constant() != Some(Q::ONE) {
            let key = vec![rest.clone(), P::constant(Q::ONE)];
            let l = self.var("log", key, Meaning::Log(F::poly(rest)), case)?;
            out = out.add(&l).ok_or_else(give_up)?;
        }
        Ok(F::poly(out))
    }
}

/// `t(x)` written with the transpose moved onto the operands of `x` when `x` is a
/// negation, a sum, a difference, a cellwise product or an elementwise function.
fn transposed_inside(x: &LaExpr) -> Option<LaExpr> {
    use LaExpr::*;
    let t = |y: &LaExpr| Box::new(Transpose(Box::new(y.clone())));
    Some(match x {
        Neg(y) => Neg(t(y)),
        Add(p, q) => Add(t(p), t(q)),
        Sub(p, q) => Sub(t(p), t(q)),
        Mul(p, q) => Mul(t(p), t(q)),
        Func { name, args } if crate::functions::is_elementwise(name, args.len()) => Func {
            name: name.clone(),
            args: args
                .iter()
                .map(|a| Transpose(Box::new(a.clone())))
                .collect(),
        },
        _ => return None,
    })
}
