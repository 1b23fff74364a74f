//! Canonical relational forms of LA expressions and a decision procedure for their
//! equivalence (SPORES §2.3 and Appendix A).
//!
//! An LA expression is translated into a *polyterm*: a sum of terms
//! `c · Σ_{bound indices} (atom × atom × ...)`, where an atom is an input relation
//! indexed by index variables (a dimension of size 1 carries no index), or an opaque
//! function application. Isomorphic terms (equal up to renaming bound indices) are
//! merged by adding their coefficients, so the polyterm is canonical up to isomorphism.
//! Two expressions are equal on inputs of all sizes exactly when the difference of
//! their canonical forms is empty (Theorem 2.3); [`equiv`] decides that and, when it is
//! not empty, constructs concrete inputs on which the two sides differ.
//!
//! Coefficients are polynomials in the symbolic dimensions ([`Coef`]), because
//! aggregating over an index a term does not mention multiplies it by that index's
//! dimension (rule 5 of Figure 3): `sum(X + 1)` is `Σ X(i,j) + m·n`.
//!
//! ```
//! use spores_opt::canon::{equiv, Equivalence};
//! use spores_opt::la::{LaExpr, ShapeEnv};
//! let env = ShapeEnv::with_shapes(&["X=mxn", "U=mxk", "V=nxk"]).unwrap();
//! let lhs = LaExpr::parse("sum(X * (U %*% t(V)))").unwrap();
//! let rhs = LaExpr::parse("sum((t(U) %*% X) * t(V))").unwrap();
//! assert!(matches!(equiv(&lhs, &rhs, &env).unwrap(), Equivalence::Equivalent));
//! let wrong = LaExpr::parse("sum((t(U) %*% X) * t(V)) + 1").unwrap();
//! assert!(matches!(equiv(&lhs, &wrong, &env).unwrap(), Equivalence::NotEquivalent(_)));
//! ```

mod along;
mod blocks;
mod domain;
mod equiv;
mod error;
mod iso;
mod normal;
mod piecewise;
mod simplify;

use std::collections::BTreeMap;
use std::fmt;

use crate::la::{Dim, Shape};

pub use equiv::{
    differs, equiv, magnitude, provably_equivalent, provably_equivalent_until, Equivalence, Witness,
};
pub use error::EquivError;
pub use normal::normalize;
pub use simplify::rewrite_for_plans;

/// An index variable. Ids 0 and 1 are the output's row and column index; every other id
/// is bound somewhere and is fresh (never reused), which makes renaming capture-free.
pub type Idx = u32;

/// The free row index of a polyterm (present when the row dimension is not 1).
pub const ROW: Idx = 0;
/// The free column index of a polyterm (present when the column dimension is not 1).
pub const COL: Idx = 1;

/// One argument position of an atom.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Slot {
    /// An index variable.
    Var(Idx),
    /// A fixed position (0-based). Only appears after a small known dimension has been
    /// expanded into its individual positions (see [`equiv`]).
    Pos(u32),
}

/// A relation applied to index slots: `X(i, k)`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Atom {
    /// Index into [`Polyterm::rels`].
    pub rel: u32,
    pub slots: Vec<Slot>,
}

impl Atom {
    /// The same atom with every index variable replaced by `f(variable)`; fixed
    /// positions stay as they are. Renaming, transposing and expanding a dimension into
    /// its positions are all this one operation.
    pub(crate) fn map_vars(&self, f: impl Fn(Idx) -> Slot) -> Atom {
        Atom {
            rel: self.rel,
            slots: self
                .slots
                .iter()
                .map(|s| match s {
                    Slot::Var(i) => f(*i),
                    pos => *pos,
                })
                .collect(),
        }
    }
}

/// What an atom's relation is.
#[derive(Clone, Debug, PartialEq)]
pub enum Rel {
    /// A named input.
    Input(String),
    /// An opaque function application, identified by its name and the canonical forms
    /// of its arguments (whose free indices are [`ROW`] and [`COL`] of `shape`), so
    /// `exp(A + B)` and `exp(B + A)` are the same relation.
    Opaque {
        name: String,
        args: Vec<Poly>,
        shape: Shape,
    },
    /// The output cell selector `[index = position]` introduced when a free index of a
    /// small known dimension is expanded into positions.
    Cell(Idx),
    /// The identity matrix `I(i, k) = [i = k]` of `diag(v)`: summing over one of its
    /// indices renames it to the other, so `diag(v) %*% B` is `v(i)·B(i,j)`.
    Identity,
}

/// `c · Σ_{bound} Π atoms`.
#[derive(Clone, Debug, PartialEq)]
pub struct Term {
    pub coef: Coef,
    /// Bound indices with their dimensions; every one occurs in some atom (an index that
    /// occurs nowhere has been turned into a dimension factor of `coef`).
    pub bound: Vec<(Idx, Dim)>,
    /// The bag of atoms, sorted.
    pub atoms: Vec<Atom>,
}

/// A sum of terms over free indices, without its relation table.
#[derive(Clone, Debug, PartialEq)]
pub struct Poly {
    /// The free indices ([`ROW`], [`COL`]) with their dimensions.
    pub free: Vec<(Idx, Dim)>,
    /// Pairwise non-isomorphic terms with non-zero coefficients.
    pub terms: Vec<Term>,
}

/// The canonical form of an LA expression: a [`Poly`] and the relations its atoms name.
#[derive(Clone, Debug, PartialEq)]
pub struct Polyterm {
    pub body: Poly,
    pub rels: Vec<Rel>,
}

/// A polynomial in symbolic dimension sizes with `f64` coefficients: a map from a sorted
/// multiset of dimension symbols (a monomial) to its coefficient. Known dimensions are
/// folded into the numbers.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Coef(pub BTreeMap<Vec<String>, f64>);

/// How a monomial names the inverse of a size: `1/m` (a symbol is a plain identifier, so
/// this cannot clash with one).
const INVERSE: &str = "1/";

fn inverse_symbol(s: &str) -> String {
    match s.strip_prefix(INVERSE) {
        Some(base) => base.to_string(),
        None => format!("{INVERSE}{s}"),
    }
}

/// The monomial with each size cancelled against its inverse (`m · 1/m = 1`).
fn cancel_inverses(mut mono: Vec<String>) -> Vec<String> {
    let mut k = 0;
    while k < mono.len() {
        let inverse = inverse_symbol(&mono[k]);
        match mono.iter().position(|s| *s == inverse) {
            Some(j) => {
                mono.remove(k.max(j));
                mono.remove(k.min(j));
            }
            None => k += 1,
        }
    }
    mono
}

/// Relative size under which a sum of coefficients counts as zero: `0.1 * 3 - 0.3` is
/// not exactly 0 in floating point but must cancel for `X*0.1*3 ≡ X*0.3`.
const CANCEL_RTOL: f64 = 1e-12;

/// Steps of [`Coef::divided_by`] before it gives up: each removes one monomial of the
/// dividend, and sizes' polynomials have a handful.
const MAX_DIVISION_STEPS: usize = 64;

impl Coef {
    pub fn constant(c: f64) -> Coef {
        let mut m = BTreeMap::new();
        if c != 0.0 {
            m.insert(Vec::new(), c);
        }
        Coef(m)
    }

    /// The size of a dimension as a coefficient; a dimension named by a form of sizes
    /// (`m-1`, the rest `m-k` of a cut) is that form.
    pub fn dim(d: &Dim) -> Coef {
        let symbol = |s: &str| Coef([(vec![s.to_string()], 1.0)].into_iter().collect());
        match d {
            Dim::Known(n) => Coef::constant(*n as f64),
            Dim::Sym(s) => match crate::la::SizeForm::parse(s) {
                Some(form) if form != crate::la::SizeForm::symbol(s) => form
                    .terms
                    .iter()
                    .fold(Coef::constant(form.constant as f64), |acc, (name, c)| {
                        acc.add(&symbol(name).scale(*c as f64))
                    }),
                _ => symbol(s),
            },
        }
    }

    pub fn is_zero(&self) -> bool {
        self.0.is_empty()
    }

    pub fn add(&self, other: &Coef) -> Coef {
        let mut out = self.0.clone();
        for (mono, &c) in &other.0 {
            let entry = out.entry(mono.clone()).or_insert(0.0);
            let before = *entry;
            *entry += c;
            if entry.abs() <= CANCEL_RTOL * before.abs().max(c.abs()) {
                out.remove(mono);
            }
        }
        Coef(out)
    }

    pub fn mul(&self, other: &Coef) -> Coef {
        let mut out = Coef::default();
        for (ma, ca) in &self.0 {
            for (mb, cb) in &other.0 {
                let mut mono = cancel_inverses(ma.iter().chain(mb).cloned().collect());
                mono.sort();
                let single = Coef([(mono, ca * cb)].into_iter().collect());
                out = out.add(&single);
            }
        }
        out.0.retain(|_, c| *c != 0.0);
        out
    }

    /// `1 / self` when `self` is one monomial (`2·m·n` gives `0.5·m⁻¹·n⁻¹`): sizes are
    /// positive, so dividing by a product of them is exact. `None` for anything else.
    pub fn reciprocal(&self) -> Option<Coef> {
        let [(mono, c)] = self.0.iter().collect::<Vec<_>>()[..] else {
            return None;
        };
        let mut inverse: Vec<String> = mono.iter().map(|s| inverse_symbol(s)).collect();
        inverse.sort();
        (*c != 0.0 && c.is_finite()).then(|| Coef([(inverse, 1.0 / c)].into_iter().collect()))
    }

    pub fn scale(&self, k: f64) -> Coef {
        self.mul(&Coef::constant(k))
    }

    /// Whether some monomial holds a size's inverse (`1/m`).
    fn has_inverses(&self) -> bool {
        self.0.keys().flatten().any(|s| s.starts_with(INVERSE))
    }

    /// The leading monomial and its number, under the graded order of sorted monomials
    /// (by degree, then lexicographically), which multiplication preserves.
    fn leading(&self) -> Option<(&Vec<String>, f64)> {
        self.0
            .iter()
            .max_by(|(a, _), (b, _)| a.len().cmp(&b.len()).then_with(|| a.cmp(b)))
            .map(|(m, &k)| (m, k))
    }

    /// Whether the polynomial is positive for all symbolic sizes of 2 or more (what
    /// symbolic sizes stand for): with each size `s` written `2 + t`, every coefficient of
    /// the polynomial in the `t`s is at least 0 and its constant above 0. So `m·n - 1` and
    /// `m - 1` are, `m - n` is not. Sizes' inverses are not handled (`false`).
    pub(crate) fn positive_from_two(&self) -> bool {
        if self.has_inverses() {
            return false;
        }
        let mut shifted = Coef::default();
        for (mono, &c) in &self.0 {
            let mut term = Coef::constant(c);
            for s in mono {
                let two_plus = Coef([(Vec::new(), 2.0), (vec![format!("{s}-2")], 1.0)].into());
                term = term.mul(&two_plus);
            }
            shifted = shifted.add(&term);
        }
        shifted.0.get(&Vec::new()).is_some_and(|&c| c > 0.0)
            && shifted.0.values().all(|&c| c >= 0.0)
    }

    /// For a polynomial of two or more monomials (no sizes' inverses) with a common
    /// factor, a product of sizes or a number other than 1 (`m·n + n·p`, `2·m - 2`): the
    /// reciprocal of that factor, the leading monomial's number times the sizes every
    /// monomial holds, and the rest as a number of sizes (`m + p`, `m - 1`).
    pub(crate) fn content(&self) -> Option<(Coef, crate::la::LaExpr)> {
        use crate::la::LaExpr;
        if self.0.len() < 2 || self.has_inverses() {
            return None;
        }
        let mut monos = self.0.keys();
        let mut common: Vec<String> = monos.next()?.clone();
        for mono in monos {
            let mut kept = Vec::new();
            let mut other = mono.clone();
            for s in &common {
                if let Some(at) = other.iter().position(|x| x == s) {
                    other.remove(at);
                    kept.push(s.clone());
                }
            }
            common = kept;
        }
        let (_, lead) = self.leading()?;
        if common.is_empty() && lead == 1.0 {
            return None;
        }
        let factor = Coef([(common.clone(), lead)].into());
        let size = |s: &str| {
            LaExpr::Sum(Box::new(LaExpr::Fill(
                Box::new(LaExpr::Const(1.0)),
                Dim::Sym(s.to_string()),
                Dim::Known(1),
            )))
        };
        let mut rest: Option<LaExpr> = None;
        for (mono, &c) in &self.0 {
            let mut left = mono.clone();
            for s in &common {
                let at = left.iter().position(|x| x == s)?;
                left.remove(at);
            }
            let term = left.iter().fold(LaExpr::Const(c / lead), |acc, s| {
                LaExpr::Mul(Box::new(acc), Box::new(size(s)))
            });
            rest = Some(match rest {
                None => term,
                Some(r) => LaExpr::Add(Box::new(r), Box::new(term)),
            });
        }
        Some((factor.reciprocal()?, rest?))
    }

    /// `self / divisor` when the polynomial `divisor` (no sizes' inverses) divides `self`
    /// exactly, `self` with sizes' inverses or not: `(m·n - 1) / (m·n - 1)` is 1 and
    /// `(1/m·1/n - 1) / (m·n - 1)` is `-1/m·1/n`. `None` when it does not divide.
    pub(crate) fn divided_by(&self, divisor: &Coef) -> Option<Coef> {
        // Multiplied by the sizes whose inverses it has, `self` is a polynomial.
        let mut clearing: BTreeMap<&str, usize> = BTreeMap::new();
        for mono in self.0.keys() {
            let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
            for base in mono.iter().filter_map(|s| s.strip_prefix(INVERSE)) {
                *counts.entry(base).or_default() += 1;
            }
            for (base, k) in counts {
                let most = clearing.entry(base).or_default();
                *most = (*most).max(k);
            }
        }
        let clear_mono: Vec<String> = clearing
            .iter()
            .flat_map(|(base, &k)| std::iter::repeat_n(base.to_string(), k))
            .collect();
        let clear = Coef([(clear_mono, 1.0)].into());
        let mut rest = self.mul(&clear);
        // Division by leading terms ([`Coef::leading`]).
        if divisor.has_inverses() {
            return None;
        }
        let (divisor_mono, divisor_c) = divisor.leading()?;
        let mut quotient = Coef::default();
        for _ in 0..MAX_DIVISION_STEPS {
            let Some((mono, c)) = rest.leading() else {
                return Some(quotient.mul(&clear.reciprocal()?));
            };
            let mut step_mono = mono.clone();
            for s in divisor_mono {
                let at = step_mono.iter().position(|x| x == s)?;
                step_mono.remove(at);
            }
            let step = Coef([(step_mono, c / divisor_c)].into());
            quotient = quotient.add(&step);
            rest = rest.add(&step.mul(divisor).scale(-1.0));
        }
        None
    }

    /// The value for concrete sizes of the symbols (a missing symbol counts as 0).
    pub fn eval(&self, sizes: &BTreeMap<String, usize>) -> f64 {
        self.0
            .iter()
            .map(|(mono, c)| {
                mono.iter()
                    .map(|s| sizes.get(s).copied().unwrap_or(0) as f64)
                    .product::<f64>()
                    * c
            })
            .sum()
    }
}

impl fmt::Display for Coef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return f.write_str("0");
        }
        let parts: Vec<String> = self
            .0
            .iter()
            .map(|(mono, c)| {
                if mono.is_empty() {
                    format!("{c}")
                } else if *c == 1.0 {
                    mono.join("·")
                } else {
                    format!("{c}·{}", mono.join("·"))
                }
            })
            .collect();
        if parts.len() == 1 {
            f.write_str(&parts[0])
        } else {
            write!(f, "({})", parts.join(" + "))
        }
    }
}

fn idx_name(i: Idx) -> String {
    match i {
        ROW => "i".into(),
        COL => "j".into(),
        k => format!("k{k}"),
    }
}

fn fmt_poly(p: &Poly, rels: &[Rel], f: &mut fmt::Formatter<'_>) -> fmt::Result {
    if p.terms.is_empty() {
        return f.write_str("0");
    }
    for (n, t) in p.terms.iter().enumerate() {
        if n > 0 {
            f.write_str(" + ")?;
        }
        let unit = t.coef == Coef::constant(1.0) && !t.atoms.is_empty();
        let mut sep = if unit { "" } else { "·" };
        if !unit {
            write!(f, "{}", t.coef)?;
        }
        if !t.bound.is_empty() {
            let b: Vec<String> = t
                .bound
                .iter()
                .map(|(i, d)| format!("{}:{d}", idx_name(*i)))
                .collect();
            write!(f, "{sep}Σ[{}]", b.join(","))?;
            sep = "·";
        }
        for a in &t.atoms {
            f.write_str(sep)?;
            sep = "·";
            match rels.get(a.rel as usize) {
                Some(Rel::Input(name)) => f.write_str(name)?,
                Some(Rel::Opaque { name, args, .. }) => {
                    write!(f, "{name}{{")?;
                    for (k, arg) in args.iter().enumerate() {
                        if k > 0 {
                            f.write_str("; ")?;
                        }
                        fmt_poly(arg, rels, f)?;
                    }
                    f.write_str("}")?;
                }
                Some(Rel::Cell(i)) => write!(f, "[{}=", idx_name(*i))?,
                Some(Rel::Identity) => f.write_str("I")?,
                None => write!(f, "?{}", a.rel)?,
            }
            let slots: Vec<String> = a
                .slots
                .iter()
                .map(|s| match s {
                    Slot::Var(i) => idx_name(*i),
                    Slot::Pos(p) => format!("#{p}"),
                })
                .collect();
            if matches!(rels.get(a.rel as usize), Some(Rel::Cell(_))) {
                write!(f, "{}]", slots.join(","))?;
            } else {
                write!(f, "({})", slots.join(","))?;
            }
        }
    }
    Ok(())
}

impl fmt::Display for Polyterm {
    /// `2·Σ[k2:n]·X(i,k2)·Y(k2,j) + m·n`: free indices are `i` (row) and `j` (column),
    /// bound ones `k<id>` with their dimension; opaque atoms print their arguments'
    /// canonical forms in braces.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt_poly(&self.body, &self.rels, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn poly(terms: &[(&[&str], f64)]) -> Coef {
        terms.iter().fold(Coef::default(), |acc, (mono, c)| {
            let mut mono: Vec<String> = mono.iter().map(|s| s.to_string()).collect();
            mono.sort();
            acc.add(&Coef([(mono, *c)].into()))
        })
    }

    #[test]
    fn polynomials_in_sizes_of_two_or_more() {
        assert!(poly(&[(&["m", "n"], 1.0), (&[], -1.0)]).positive_from_two());
        assert!(poly(&[(&["m"], 1.0), (&[], -1.0)]).positive_from_two());
        assert!(poly(&[(&["m", "m"], 1.0), (&["m"], -3.0), (&[], 3.0)]).positive_from_two());
        assert!(!poly(&[(&["m"], 1.0), (&["n"], -1.0)]).positive_from_two());
        assert!(!poly(&[(&["m"], 1.0), (&[], -2.0)]).positive_from_two());
        assert!(!poly(&[(&["1/m"], 1.0)]).positive_from_two());
    }

    #[test]
    fn exact_division_by_a_polynomial_in_sizes() {
        let mn_less_1 = poly(&[(&["m", "n"], 1.0), (&[], -1.0)]);
        assert_eq!(mn_less_1.divided_by(&mn_less_1), Some(Coef::constant(1.0)));
        let inverse_less_1 = poly(&[(&["1/m", "1/n"], 1.0), (&[], -1.0)]);
        assert_eq!(
            inverse_less_1.divided_by(&mn_less_1),
            Some(poly(&[(&["1/m", "1/n"], -1.0)]))
        );
        // (m - 1)(m + 2) = m^2 + m - 2
        let m_less_1 = poly(&[(&["m"], 1.0), (&[], -1.0)]);
        let product = poly(&[(&["m", "m"], 1.0), (&["m"], 1.0), (&[], -2.0)]);
        assert_eq!(
            product.divided_by(&m_less_1),
            Some(poly(&[(&["m"], 1.0), (&[], 2.0)]))
        );
        assert_eq!(poly(&[(&["m"], 1.0)]).divided_by(&m_less_1), None);
        assert_eq!(
            poly(&[(&["n"], 1.0), (&[], -1.0)]).divided_by(&m_less_1),
            None
        );
    }
}
