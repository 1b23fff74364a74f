//! Translation of LA expressions into canonical polyterms (rules R_LR of Figure 2
//! followed by the normalization R_EQ of Figure 3).
//!
//! The translation works top-down: [`Normalizer::norm`] is given the index variables
//! that name the rows and columns of the value being built (or `None` for a dimension of
//! size 1, which carries no index) and returns the list of terms. Binary elementwise
//! operators pass the same indices to both sides — a broadcast operand simply ignores
//! the index of its size-1 dimension, which is what makes broadcasting a natural join.
//! Matrix products and aggregates introduce fresh indices and bind them; since every
//! bound index is fresh, no renaming can capture another index. Products distribute
//! over sums (rule 1) and isomorphic terms are merged after every step that can create
//! them, which keeps intermediate sums small (`(X+Y)^4` has 5 terms, not 16).

use std::collections::{BTreeMap, HashMap};

use super::error::EquivError;
use super::iso::{combine, difference};
use super::{Atom, Coef, Idx, Poly, Polyterm, Rel, Slot, Term, COL, ROW};
use crate::functions;
use crate::la::{Dim, LaExpr, Shape, ShapeEnv};

/// Most terms a polyterm may have while normalizing: distributing products of sums is
/// exponential, and beyond this the procedure gives up with [`EquivError::TooLarge`].
pub(crate) const TERM_LIMIT: usize = 100_000;

/// Most atoms one normalization may build in all (the atoms of every term of every
/// product and sum, counted as built): the per-polyterm [`TERM_LIMIT`] alone lets a long
/// expression build many large polyterms one after another, seconds of work whose answer
/// is then too large anyway.
pub(crate) const WORK_LIMIT: usize = 2_000_000;

/// Most rows (columns) a slice, a block of `cbind`/`rbind`, `rev` or `cumsum` may have for
/// its cells to be placed at fixed positions ([`Normalizer::placed`]); larger ones stay
/// opaque.
const MAX_POSITIONS: usize = 16;

/// The `(result position, operand position)` pairs of an index range `lo:hi` into a
/// dimension of size `size` (0-based), `None` inside for the whole dimension; `None`
/// outside when the range is not constant or too long to place.
fn span(size: &Dim, lo: &LaExpr, hi: &LaExpr) -> Option<Option<Vec<(u32, u32)>>> {
    match (lo, hi) {
        (LaExpr::Const(a), LaExpr::Const(b)) if *a == 0.0 && *b == 0.0 => Some(None),
        (LaExpr::Const(a), LaExpr::Const(b)) => {
            let (a, b) = (a.trunc(), b.trunc());
            let whole = matches!(size, Dim::Known(n) if a == 1.0 && b == *n as f64);
            if whole {
                return Some(None);
            }
            if a < 1.0 || b < a || b - a + 1.0 > MAX_POSITIONS as f64 {
                return None;
            }
            let first = a as u32 - 1;
            Some(Some((0..=(b - a) as u32).map(|p| (p, first + p)).collect()))
        }
        _ => None,
    }
}

/// Largest integer exponent expanded into a product; larger ones stay opaque.
const MAX_POW: f64 = 32.0;

/// Normalizes `e` under `env` into its canonical polyterm. The output's row index is
/// [`ROW`] and its column index [`COL`] (each present only when that dimension is not
/// 1).
pub fn normalize(e: &LaExpr, env: &ShapeEnv) -> Result<Polyterm, EquivError> {
    let mut n = Normalizer::new(env);
    let e = e.resolve(env).map_err(|err| EquivError::Shape {
        side: "expression",
        message: err.0,
    })?;
    let body = n.top(&e)?;
    Ok(Polyterm { body, rels: n.rels })
}

/// The translation state: the relation table (shared by everything normalized with the
/// same normalizer, so atoms of two expressions are comparable) and the fresh-index
/// counter.
pub(crate) struct Normalizer<'a> {
    env: &'a ShapeEnv,
    pub(crate) rels: Vec<Rel>,
    inputs: HashMap<String, u32>,
    next: Idx,
    /// Terms built so far, against [`WORK_LIMIT`].
    work: std::cell::Cell<usize>,
    /// The [`Rel::Identity`] relation's entry, once a `diag(v)` has needed it.
    identity: Option<u32>,
}

/// The error of a decision stopped by its caller's time limit.
pub(crate) fn past_deadline() -> EquivError {
    EquivError::TooLarge("normalizing took longer than the time limit".to_string())
}

fn internal(what: &str) -> EquivError {
    EquivError::Internal(what.to_string())
}

/// The atoms of `terms`, each term counted as at least one.
fn atoms_of(terms: &[Term]) -> usize {
    terms.iter().map(|t| t.atoms.len().max(1)).sum()
}

fn too_large(what: &str) -> EquivError {
    EquivError::TooLarge(format!(
        "{what} would exceed {TERM_LIMIT} terms (distributing products of sums grows exponentially)"
    ))
}

fn constant(c: f64) -> Vec<Term> {
    if c == 0.0 {
        return Vec::new();
    }
    vec![Term {
        coef: Coef::constant(c),
        bound: Vec::new(),
        atoms: Vec::new(),
    }]
}

fn negate(terms: Vec<Term>) -> Vec<Term> {
    terms
        .into_iter()
        .map(|t| Term {
            coef: t.coef.scale(-1.0),
            ..t
        })
        .collect()
}

/// `Σ_idx` over every term (rules 2 and 5): the index becomes bound where it occurs and a
/// factor `dim` where it does not. Where an identity atom `I(idx, k)` (relation
/// `identity`) ties it to another index, the sum picks `idx = k`: `idx` is renamed to `k`.
fn bind(terms: Vec<Term>, idx: Option<Idx>, dim: &Dim, identity: Option<u32>) -> Vec<Term> {
    let Some(idx) = idx else { return terms };
    let bound: Vec<Term> = terms
        .into_iter()
        .filter_map(|mut t| {
            if let Some(other) = identity.and_then(|rel| tied_to(&t, rel, idx)) {
                let atoms = t
                    .atoms
                    .iter()
                    .map(|a| a.map_vars(|i| if i == idx { other } else { Slot::Var(i) }))
                    .collect();
                t.atoms = atoms;
                return tidy_identities(t, identity?);
            }
            if t.atoms.iter().any(|a| a.slots.contains(&Slot::Var(idx))) {
                t.bound.push((idx, dim.clone()));
            } else {
                t.coef = t.coef.mul(&Coef::dim(dim));
            }
            Some(t)
        })
        .collect();
    combine(bound)
}

/// An index or position an identity atom of `t` ties `idx` to.
fn tied_to(t: &Term, identity: u32, idx: Idx) -> Option<Slot> {
    t.atoms
        .iter()
        .filter(|a| a.rel == identity)
        .find_map(|a| match a.slots.as_slice() {
            [Slot::Var(p), q] if *p == idx => Some(*q),
            [q, Slot::Var(p)] if *p == idx => Some(*q),
            _ => None,
        })
}

/// `t` with its identity atoms in one canonical shape, or `None` when it is 0. The
/// atoms tie indices and positions into classes; a class with two positions is 0
/// (`I(#0, #1)`), and each class is named by its position if it has one, else by its
/// least index. Every other atom names a class by that name, and each class keeps one
/// `I(name, other)` per other member, so `v(j)·I(i,j)` and `v(i)·I(i,j)` are one term and
/// `X(i,j)·I(i,#2)` is `X(#2,j)·I(i,#2)`.
fn tidy_identities(mut t: Term, identity: u32) -> Option<Term> {
    if !t.atoms.iter().any(|a| a.rel == identity) {
        return Some(t);
    }
    // Union-find over the tied slots; each root is its class's name.
    let mut parent: BTreeMap<Slot, Slot> = BTreeMap::new();
    fn root(parent: &BTreeMap<Slot, Slot>, mut s: Slot) -> Slot {
        while let Some(&p) = parent.get(&s) {
            if p == s {
                break;
            }
            s = p;
        }
        s
    }
    let mut others = Vec::new();
    for a in std::mem::take(&mut t.atoms) {
        let [p, q] = a.slots.as_slice() else {
            others.push(a);
            continue;
        };
        if a.rel != identity {
            others.push(a);
            continue;
        }
        let (rp, rq) = (root(&parent, *p), root(&parent, *q));
        if rp == rq {
            continue;
        }
        if let (Slot::Pos(_), Slot::Pos(_)) = (rp, rq) {
            return None;
        }
        let name = |s: Slot| match s {
            Slot::Pos(_) => (1, 0),
            Slot::Var(i) => (0, u32::MAX - i),
        };
        let (low, high) = if name(rp) < name(rq) {
            (rp, rq)
        } else {
            (rq, rp)
        };
        parent.entry(high).or_insert(high);
        parent.insert(low, high);
    }
    let members: Vec<Slot> = parent.keys().copied().collect();
    for a in &mut others {
        *a = a.map_vars(|i| {
            let s = Slot::Var(i);
            if parent.contains_key(&s) {
                root(&parent, s)
            } else {
                s
            }
        });
    }
    for m in members {
        let r = root(&parent, m);
        if r != m {
            let mut slots = vec![r, m];
            slots.sort();
            others.push(Atom {
                rel: identity,
                slots,
            });
        }
    }
    others.sort();
    t.atoms = others;
    Some(t)
}

fn shape_slots(shape: &Shape) -> (Option<Idx>, Option<Idx>, Vec<(Idx, Dim)>) {
    let r = (!shape.0.is_one()).then_some(ROW);
    let c = (!shape.1.is_one()).then_some(COL);
    let mut free = Vec::new();
    if r.is_some() {
        free.push((ROW, shape.0.clone()));
    }
    if c.is_some() {
        free.push((COL, shape.1.clone()));
    }
    (r, c, free)
}

fn poly_eq(p: &Poly, q: &Poly) -> bool {
    p.free == q.free && difference(&p.terms, &q.terms).is_empty()
}

fn args_match(a: &[Poly], b: &[Poly], commutative: bool) -> bool {
    if a.len() != b.len() {
        return false;
    }
    if a.iter().zip(b).all(|(p, q)| poly_eq(p, q)) {
        return true;
    }
    commutative && a.len() == 2 && poly_eq(&a[0], &b[1]) && poly_eq(&a[1], &b[0])
}

/// The same polyterm with its row and column indices swapped.
fn transpose_poly(p: &Poly) -> Poly {
    let swap = |i: Idx| match i {
        ROW => COL,
        COL => ROW,
        k => k,
    };
    let mut free: Vec<(Idx, Dim)> = p.free.iter().map(|(i, d)| (swap(*i), d.clone())).collect();
    free.sort();
    let terms = p
        .terms
        .iter()
        .map(|t| {
            let mut atoms: Vec<Atom> = t
                .atoms
                .iter()
                .map(|a| a.map_vars(|i| Slot::Var(swap(i))))
                .collect();
            atoms.sort();
            Term {
                coef: t.coef.clone(),
                bound: t.bound.clone(),
                atoms,
            }
        })
        .collect();
    Poly { free, terms }
}

impl<'a> Normalizer<'a> {
    pub(crate) fn new(env: &'a ShapeEnv) -> Self {
        Normalizer {
            env,
            rels: Vec::new(),
            inputs: HashMap::new(),
            next: 2,
            work: std::cell::Cell::new(0),
            identity: None,
        }
    }

    /// Counts `atoms` more atoms built; fails once the whole normalization exceeds
    /// [`WORK_LIMIT`], or the caller's deadline ([`super::iso::Deadline`]).
    fn spend(&self, atoms: usize) -> Result<(), EquivError> {
        let total = self.work.get().saturating_add(atoms);
        self.work.set(total);
        if total > WORK_LIMIT {
            return Err(EquivError::TooLarge(format!(
                "normalizing would build more than {WORK_LIMIT} atoms in all"
            )));
        }
        if super::iso::Deadline::passed() {
            return Err(past_deadline());
        }
        Ok(())
    }

    fn fresh(&mut self) -> Idx {
        let i = self.next;
        self.next += 1;
        i
    }

    fn input(&mut self, name: &str) -> u32 {
        if let Some(&id) = self.inputs.get(name) {
            return id;
        }
        let id = self.rels.len() as u32;
        self.rels.push(Rel::Input(name.to_string()));
        self.inputs.insert(name.to_string(), id);
        id
    }

    fn identity_rel(&mut self) -> u32 {
        if let Some(rel) = self.identity {
            return rel;
        }
        self.rels.push(Rel::Identity);
        let rel = (self.rels.len() - 1) as u32;
        self.identity = Some(rel);
        rel
    }

    fn cell(&mut self, free: Idx) -> u32 {
        if let Some(id) = self.rels.iter().position(|r| *r == Rel::Cell(free)) {
            return id as u32;
        }
        self.rels.push(Rel::Cell(free));
        (self.rels.len() - 1) as u32
    }

    fn shape(&self, e: &LaExpr) -> Result<Shape, EquivError> {
        self.env.shape_of(e).map_err(|err| EquivError::Shape {
            side: "expression",
            message: err.0,
        })
    }

    /// The canonical form of a whole expression, with free indices [`ROW`]/[`COL`].
    pub(crate) fn top(&mut self, e: &LaExpr) -> Result<Poly, EquivError> {
        let shape = self.shape(e)?;
        let (r, c, free) = shape_slots(&shape);
        let terms = self.norm(e, r, c)?;
        Ok(Poly {
            free,
            terms: self.combined(terms),
        })
    }

    /// `a - b`, combined, with divisions by sizes cancelled ([`Self::combined`]).
    pub(crate) fn difference(&self, a: &[Term], b: &[Term]) -> Vec<Term> {
        self.combined(difference(a, b))
    }

    /// The terms merged ([`combine`]), and in each, the reciprocal of a polynomial in the
    /// sizes that is never 0 (`1 / (length(X) - 1)`, an opaque atom) cancelled against
    /// the coefficient where that polynomial divides it: `var(X) * (length(X) - 1)` is
    /// the sum of squares about the mean. The terms are merged again after.
    fn combined(&self, terms: Vec<Term>) -> Vec<Term> {
        let mut terms = combine(terms);
        let mut cancelled = false;
        for t in &mut terms {
            let mut k = 0;
            while k < t.atoms.len() {
                let quotient = self
                    .size_divisor(&t.atoms[k])
                    .and_then(|p| t.coef.divided_by(p));
                match quotient {
                    Some(q) => {
                        t.coef = q;
                        t.atoms.remove(k);
                        cancelled = true;
                    }
                    None => k += 1,
                }
            }
        }
        if cancelled {
            combine(terms)
        } else {
            terms
        }
    }

    /// The polynomial `p` when `atom` is `1 / p` for a polynomial in the sizes that is
    /// positive for all sizes (symbolic sizes are at least 2).
    pub(crate) fn size_divisor(&self, atom: &Atom) -> Option<&Coef> {
        let Rel::Opaque { name, args, .. } = self.rels.get(atom.rel as usize)? else {
            return None;
        };
        let [Poly { free, terms }] = args.as_slice() else {
            return None;
        };
        let [t] = terms.as_slice() else {
            return None;
        };
        (name == "1/"
            && free.is_empty()
            && t.bound.is_empty()
            && t.atoms.is_empty()
            && t.coef.positive_from_two())
        .then_some(&t.coef)
    }

    /// [`bind`], counted against the work limit: each summation combines (and so
    /// re-keys) every term again.
    fn bind(&self, terms: Vec<Term>, idx: Option<Idx>, dim: &Dim) -> Result<Vec<Term>, EquivError> {
        if idx.is_some() {
            self.spend(atoms_of(&terms))?;
        }
        Ok(bind(terms, idx, dim, self.identity))
    }

    /// A copy of `terms` with every bound index renamed to a fresh one.
    fn freshen(&mut self, terms: &[Term]) -> Vec<Term> {
        let mut map: HashMap<Idx, Idx> = HashMap::new();
        terms
            .iter()
            .map(|t| {
                let bound = t
                    .bound
                    .iter()
                    .map(|(i, d)| (*map.entry(*i).or_insert_with(|| self.fresh()), d.clone()))
                    .collect();
                let atoms = t
                    .atoms
                    .iter()
                    .map(|a| a.map_vars(|i| Slot::Var(map.get(&i).copied().unwrap_or(i))))
                    .collect();
                Term {
                    coef: t.coef.clone(),
                    bound,
                    atoms,
                }
            })
            .collect()
    }

    /// `a * b` distributed into terms (rules 1, 3 and 7). The operands come from
    /// different subexpressions (or a [`freshen`](Self::freshen)ed copy), so their bound
    /// indices are disjoint and the terms can simply be concatenated.
    fn product(&self, a: &[Term], b: &[Term]) -> Result<Vec<Term>, EquivError> {
        if a.len().saturating_mul(b.len()) > TERM_LIMIT {
            return Err(too_large("a product"));
        }
        self.spend(atoms_of(a).saturating_mul(b.len()) + atoms_of(b).saturating_mul(a.len()))?;
        let mut out = Vec::with_capacity(a.len() * b.len());
        for x in a {
            for y in b {
                let coef = x.coef.mul(&y.coef);
                if coef.is_zero() {
                    continue;
                }
                let mut atoms = x.atoms.clone();
                atoms.extend(y.atoms.iter().cloned());
                atoms.sort();
                let mut bound = x.bound.clone();
                bound.extend(y.bound.iter().cloned());
                let term = Term { coef, bound, atoms };
                match self.identity {
                    Some(rel) => out.extend(tidy_identities(term, rel)),
                    None => out.push(term),
                }
            }
        }
        Ok(combine(out))
    }

    /// The terms of `e`, whose rows are indexed by `row` and columns by `col` (`None`
    /// where the enclosing value has a dimension of size 1).
    fn norm(
        &mut self,
        e: &LaExpr,
        row: Option<Idx>,
        col: Option<Idx>,
    ) -> Result<Vec<Term>, EquivError> {
        let shape = self.shape(e)?;
        // A dimension of size 1 carries no index, whatever the caller passes: a broadcast
        // operand (`X * C[1, ]`) must not tie the other operand's rows to its one row.
        let row = row.filter(|_| !shape.0.is_one());
        let col = col.filter(|_| !shape.1.is_one());
        Ok(match e {
            LaExpr::Var(name) => {
                if self.env.nnz.get(name) == Some(&0.0) {
                    return Ok(Vec::new());
                }
                let mut slots = Vec::new();
                if !shape.0.is_one() {
                    slots.push(Slot::Var(row.ok_or_else(|| internal("row index missing"))?));
                }
                if !shape.1.is_one() {
                    slots.push(Slot::Var(
                        col.ok_or_else(|| internal("column index missing"))?,
                    ));
                }
                let rel = self.input(name);
                vec![Term {
                    coef: Coef::constant(1.0),
                    bound: Vec::new(),
                    atoms: vec![Atom { rel, slots }],
                }]
            }
            LaExpr::Const(c) => constant(*c),
            LaExpr::Add(a, b) => {
                let mut t = self.norm(a, row, col)?;
                t.extend(self.norm(b, row, col)?);
                if t.len() > TERM_LIMIT {
                    return Err(too_large("a sum"));
                }
                self.spend(atoms_of(&t))?;
                combine(t)
            }
            LaExpr::Sub(a, b) => {
                let ta = self.norm(a, row, col)?;
                let tb = self.norm(b, row, col)?;
                if ta.len() + tb.len() > TERM_LIMIT {
                    return Err(too_large("a difference"));
                }
                self.spend(atoms_of(&ta) + atoms_of(&tb))?;
                difference(&ta, &tb)
            }
            LaExpr::Neg(a) => negate(self.norm(a, row, col)?),
            LaExpr::Mul(a, b) => {
                let ta = self.norm(a, row, col)?;
                let tb = self.norm(b, row, col)?;
                self.product(&ta, &tb)?
            }
            LaExpr::MatMul(a, b) => {
                let inner = self.shape(a)?.1;
                let j = (!inner.is_one()).then(|| self.fresh());
                let ta = self.norm(a, row, j)?;
                let tb = self.norm(b, j, col)?;
                self.bind(self.product(&ta, &tb)?, j, &inner)?
            }
            LaExpr::Transpose(a) => self.norm(a, col, row)?,
            LaExpr::Sum(a) => {
                let (r, c) = self.shape(a)?;
                let i = (!r.is_one()).then(|| self.fresh());
                let j = (!c.is_one()).then(|| self.fresh());
                let t = self.norm(a, i, j)?;
                let t = self.bind(t, i, &r)?;
                self.bind(t, j, &c)?
            }
            LaExpr::RowSums(a) => {
                let c = self.shape(a)?.1;
                let j = (!c.is_one()).then(|| self.fresh());
                let t = self.norm(a, row, j)?;
                self.bind(t, j, &c)?
            }
            LaExpr::ColSums(a) => {
                let r = self.shape(a)?.0;
                let i = (!r.is_one()).then(|| self.fresh());
                let t = self.norm(a, i, col)?;
                self.bind(t, i, &r)?
            }
            LaExpr::Pow(a, k) if k.fract() == 0.0 && (0.0..=MAX_POW).contains(k) => {
                let n = *k as usize;
                if n == 0 {
                    // A^0 is 1 in every cell (0^0 = 1 too): a constant over A's shape.
                    return Ok(constant(1.0));
                }
                let base = self.norm(a, row, col)?;
                let mut acc = base.clone();
                for _ in 1..n {
                    let copy = self.freshen(&base);
                    acc = self.product(&acc, &copy)?;
                }
                acc
            }
            LaExpr::Pow(a, k) => {
                let args = [(**a).clone(), LaExpr::Const(*k)];
                self.opaque("^", &args, &shape, row, col)?
            }
            // Every cell is the scalar `v`: the row and column indices occur nowhere.
            LaExpr::Fill(v, _, _) => self.norm(v, None, None)?,
            LaExpr::Func { name, args } => match (name.as_str(), args.as_slice()) {
                ("/", [a, LaExpr::Const(c)]) if *c != 0.0 && c.is_finite() => {
                    let scaled = LaExpr::Mul(Box::new(a.clone()), Box::new(LaExpr::Const(1.0 / c)));
                    self.norm(&scaled, row, col)?
                }
                // Division by a scalar is multiplication by its reciprocal, an opaque
                // scalar atom, so `(A %*% B) / n` and `(A / n) %*% B` share a form.
                ("/", [a, b]) if self.shape(b)?.0.is_one() && self.shape(b)?.1.is_one() => {
                    // A divisor whose form is a number times a product of sizes
                    // (`nrow(X) * 2`, `length(X)`): the numerator times its reciprocal, the
                    // sizes' inverses, so `mean(A) * length(A)` is `sum(A)`.
                    let divisor = self.norm(b, None, None)?;
                    if let [Term { coef, bound, atoms }] = divisor.as_slice() {
                        if let (true, Some(inverse)) =
                            (bound.is_empty() && atoms.is_empty(), coef.reciprocal())
                        {
                            let mut terms = self.norm(a, row, col)?;
                            for t in &mut terms {
                                t.coef = t.coef.mul(&inverse);
                            }
                            return Ok(terms);
                        }
                        // A divisor that is itself a number of sizes over a polynomial in
                        // the sizes never 0 (`1 / (length(X) - 1)`): its reciprocal is that
                        // polynomial over the number.
                        if let ([atom], true) = (atoms.as_slice(), bound.is_empty()) {
                            if let (Some(p), Some(inverse)) =
                                (self.size_divisor(atom).cloned(), coef.reciprocal())
                            {
                                let mut terms = self.norm(a, row, col)?;
                                let factor = p.mul(&inverse);
                                for t in &mut terms {
                                    t.coef = t.coef.mul(&factor);
                                }
                                return Ok(terms);
                            }
                        }
                        // A polynomial in the sizes with a common factor (`(m + p) * n`,
                        // as `m·n + n·p`): the factor's reciprocal times that of the rest,
                        // so `x / (m + p) / n` has the same form.
                        if bound.is_empty() && atoms.is_empty() {
                            if let Some((content, rest)) = coef.content() {
                                let mut terms = self.norm(a, row, col)?;
                                for t in &mut terms {
                                    t.coef = t.coef.mul(&content);
                                }
                                let reciprocal = LaExpr::Func {
                                    name: "1/".into(),
                                    args: vec![rest],
                                };
                                let factor = self.norm(&reciprocal, None, None)?;
                                return self.product(&terms, &factor);
                            }
                        }
                    }
                    let reciprocal = LaExpr::Func {
                        name: "1/".into(),
                        args: vec![b.clone()],
                    };
                    let scaled = LaExpr::Mul(Box::new(a.clone()), Box::new(reciprocal));
                    self.norm(&scaled, row, col)?
                }
                ("as.scalar" | "as.matrix", [a]) => self.norm(a, row, col)?,
                // `trace(A) = Σ_i A(i,i)`: one index in both slots, bound.
                ("trace", [a]) => {
                    let n = self.shape(a)?.0;
                    let i = (!n.is_one()).then(|| self.fresh());
                    let t = self.norm(a, i, i)?;
                    self.bind(t, i, &n)?
                }
                // `diag(A)` of a square matrix is the column `d(i) = A(i,i)`.
                ("diag", [a]) if shape.1.is_one() => self.norm(a, row, row)?,
                (crate::la::INDEX, [x, rl, ru, cl, cu]) => {
                    let (xr, xc) = self.shape(x)?;
                    match (span(&xr, rl, ru), span(&xc, cl, cu)) {
                        (Some(rows), Some(cols)) => self.placed(x, (row, col), &rows, &cols)?,
                        _ => self.opaque(name, args, &shape, row, col)?,
                    }
                }
                ("rbind" | "cbind", [a, b]) => {
                    let across = name == "cbind";
                    let extent = |s: Shape| if across { s.1 } else { s.0 };
                    let (ka, kb) = (extent(self.shape(a)?), extent(self.shape(b)?));
                    match (ka, kb) {
                        (Dim::Known(ka), Dim::Known(kb)) if ka + kb <= MAX_POSITIONS => {
                            let ka = ka as u32;
                            let first: Vec<(u32, u32)> = (0..ka).map(|p| (p, p)).collect();
                            let second: Vec<(u32, u32)> =
                                (0..kb as u32).map(|q| (ka + q, q)).collect();
                            let mut terms = Vec::new();
                            for (operand, picks) in [(a, first), (b, second)] {
                                let (rows, cols) = if across {
                                    (None, Some(picks))
                                } else {
                                    (Some(picks), None)
                                };
                                terms.extend(self.placed(operand, (row, col), &rows, &cols)?);
                            }
                            combine(terms)
                        }
                        _ => self.opaque(name, args, &shape, row, col)?,
                    }
                }
                // The rows of `rev(x)` and `cumsum(x)` (`cumprod(x)`) of a few known rows
                // are sums (products) of `x`'s rows at fixed positions.
                ("rev" | "cumsum" | "cumprod", [x]) => match self.shape(x)?.0 {
                    Dim::Known(1) => self.norm(x, row, col)?,
                    Dim::Known(n) if n <= MAX_POSITIONS => {
                        let n = n as u32;
                        let picks: Vec<Vec<(u32, u32)>> = (0..n)
                            .map(|p| match name.as_str() {
                                "rev" => vec![(p, n - 1 - p)],
                                _ => (0..=p).map(|q| (p, q)).collect(),
                            })
                            .collect();
                        if name == "cumprod" {
                            self.placed_product(x, (row, col), &picks)?
                        } else {
                            let flat = picks.into_iter().flatten().collect();
                            self.placed(x, (row, col), &Some(flat), &None)?
                        }
                    }
                    _ => self.opaque(name, args, &shape, row, col)?,
                },
                // `seq(1, n)` of a symbolic size is an opaque column (its shape checked).
                ("seq", _) if crate::la::seq_values(args).is_err() => {
                    self.opaque(name, args, &shape, row, col)?
                }
                // `seq(a, b)`: its numbers at their positions.
                ("seq", _) => {
                    let values =
                        crate::la::seq_values(args).map_err(|message| EquivError::Shape {
                            side: "expression",
                            message,
                        })?;
                    match (values.as_slice(), row) {
                        ([v], _) => constant(*v),
                        (_, Some(i)) if values.len() <= MAX_POSITIONS => {
                            let mut terms = Vec::new();
                            for (p, v) in values.iter().enumerate() {
                                let tie = self.tie(Slot::Var(i), Slot::Pos(p as u32));
                                terms.extend(self.product(&constant(*v), &tie)?);
                            }
                            combine(terms)
                        }
                        _ => self.opaque(name, args, &shape, row, col)?,
                    }
                }
                // `diag(v)` of a column is `v(i)·I(i,j)`; on its own diagonal, `v(i)`.
                ("diag", [a]) => {
                    let terms = self.norm(a, row, None)?;
                    match (row, col) {
                        (Some(i), Some(j)) if i != j => {
                            let rel = self.identity_rel();
                            let identity = vec![Term {
                                coef: Coef::constant(1.0),
                                bound: Vec::new(),
                                atoms: vec![Atom {
                                    rel,
                                    slots: vec![Slot::Var(i.min(j)), Slot::Var(i.max(j))],
                                }],
                            }];
                            self.product(&terms, &identity)?
                        }
                        _ => terms,
                    }
                }
                _ => self.opaque(name, args, &shape, row, col)?,
            },
        })
    }

    /// An atom `I(a, b)` of the identity relation.
    fn tie(&mut self, a: Slot, b: Slot) -> Vec<Term> {
        let rel = self.identity_rel();
        let mut slots = vec![a, b];
        slots.sort();
        vec![Term {
            coef: Coef::constant(1.0),
            bound: Vec::new(),
            atoms: vec![Atom { rel, slots }],
        }]
    }

    /// The terms of a value whose cells are cells of `x` moved to other positions: a
    /// result row `p` is `x`'s row `q` for each `(p, q)` in `rows` (all of `x`'s rows in
    /// place when `None`), and likewise for columns. The result's indices are `at`; a
    /// result row at position `p` carries `I(row, #p)`, and `x`'s row index becomes `#q`.
    fn placed(
        &mut self,
        x: &LaExpr,
        at: (Option<Idx>, Option<Idx>),
        rows: &Option<Vec<(u32, u32)>>,
        cols: &Option<Vec<(u32, u32)>>,
    ) -> Result<Vec<Term>, EquivError> {
        let (xr, xc) = self.shape(x)?;
        let ir = match rows {
            Some(_) => (!xr.is_one()).then(|| self.fresh()),
            None => at.0,
        };
        let ic = match cols {
            Some(_) => (!xc.is_one()).then(|| self.fresh()),
            None => at.1,
        };
        let base = self.norm(x, ir, ic)?;
        // `None` stands for "in place": one pass with the index passed through.
        let picks = |side: &Option<Vec<(u32, u32)>>| -> Vec<Option<(u32, u32)>> {
            match side {
                Some(pairs) => pairs.iter().copied().map(Some).collect(),
                None => vec![None],
            }
        };
        let (row_picks, col_picks) = (picks(rows), picks(cols));
        let mut out = Vec::new();
        for &rp in &row_picks {
            for &cp in &col_picks {
                let moved: Vec<(Idx, Slot)> = [(ir, rp), (ic, cp)]
                    .into_iter()
                    .filter_map(|(from, pick)| Some((from?, Slot::Pos(pick?.1))))
                    .collect();
                let identity = self.identity;
                let mut terms: Vec<Term> = base
                    .iter()
                    .map(|t| Term {
                        coef: t.coef.clone(),
                        bound: t.bound.clone(),
                        atoms: t
                            .atoms
                            .iter()
                            .map(|a| {
                                a.map_vars(|i| {
                                    moved
                                        .iter()
                                        .find(|(from, _)| *from == i)
                                        .map_or(Slot::Var(i), |(_, to)| *to)
                                })
                            })
                            .collect(),
                    })
                    .filter_map(|t| match identity {
                        Some(rel) => tidy_identities(t, rel),
                        None => Some(t),
                    })
                    .collect();
                for (index, pick) in [(at.0, rp), (at.1, cp)] {
                    if let (Some(index), Some((p, _))) = (index, pick) {
                        let tie = self.tie(Slot::Var(index), Slot::Pos(p));
                        terms = self.product(&terms, &tie)?;
                    }
                }
                self.spend(atoms_of(&terms))?;
                out.extend(terms);
            }
        }
        Ok(combine(out))
    }

    /// The terms of a value whose row `p` is the cellwise product of `x`'s rows `q` for
    /// each `(p, q)` in `picks[p]` (`cumprod`).
    fn placed_product(
        &mut self,
        x: &LaExpr,
        at: (Option<Idx>, Option<Idx>),
        picks: &[Vec<(u32, u32)>],
    ) -> Result<Vec<Term>, EquivError> {
        let mut out = Vec::new();
        for row_picks in picks {
            let mut acc = constant(1.0);
            for &pick in row_picks {
                let factor = self.placed(x, (None, at.1), &Some(vec![(0, pick.1)]), &None)?;
                let factor = self.freshen(&factor);
                acc = self.product(&acc, &factor)?;
            }
            if let (Some(index), Some(&(p, _))) = (at.0, row_picks.first()) {
                let tie = self.tie(Slot::Var(index), Slot::Pos(p));
                acc = self.product(&acc, &tie)?;
            }
            out.extend(acc);
        }
        Ok(combine(out))
    }

    /// An opaque function application as a single atom. Its relation is looked up by
    /// name and the canonical forms of its arguments (computed with [`ROW`]/[`COL`] as
    /// their free indices), also transposed for elementwise functions and with the two
    /// arguments swapped for commutative ones, so equal applications share one relation.
    fn opaque(
        &mut self,
        name: &str,
        args: &[LaExpr],
        shape: &Shape,
        row: Option<Idx>,
        col: Option<Idx>,
    ) -> Result<Vec<Term>, EquivError> {
        let (r, c, _) = shape_slots(shape);
        let mut polys = Vec::with_capacity(args.len());
        // Each argument is indexed by its own shape, not the result's: an aggregate
        // (`max(X)`, `rowMaxs(X)`, `nrow(X)`) has a smaller result than its argument, and
        // a broadcast argument (`max(u, v)` of a column and a row) has a larger one. A
        // row index is always `ROW` and a column index `COL`, so broadcast arguments
        // line up with the result.
        for a in args {
            let (ar, ac, free) = shape_slots(&self.shape(a)?);
            let terms = self.norm(a, ar, ac)?;
            polys.push(Poly {
                free,
                terms: self.combined(terms),
            });
        }
        // An extreme or mean of a constant is that constant.
        if let [arg] = polys.as_slice() {
            let aggregate = matches!(
                name,
                "min"
                    | "max"
                    | "mean"
                    | "rowMaxs"
                    | "rowMins"
                    | "rowMeans"
                    | "colMaxs"
                    | "colMins"
                    | "colMeans"
            );
            if aggregate && arg.terms.iter().all(|t| t.atoms.is_empty()) {
                return Ok(arg.terms.clone());
            }
        }
        let mut direct = Vec::new();
        if r.is_some() {
            direct.push(Slot::Var(row.ok_or_else(|| internal("row index missing"))?));
        }
        if c.is_some() {
            direct.push(Slot::Var(
                col.ok_or_else(|| internal("column index missing"))?,
            ));
        }
        let commutative = functions::is_commutative(name, args.len());
        // An elementwise function commutes with transposition: `f(t(A)) = t(f(A))`, for
        // vectors (one index) as for matrices (two, swapped).
        // A full aggregate (`max(X)`) does not see the orientation at all.
        let full_aggregate = functions::is_full_aggregate(name, args.len()) && direct.is_empty();
        let elementwise = functions::is_elementwise(name, args.len());
        let swappable = (elementwise && !direct.is_empty()) || full_aggregate;
        let transposed: Vec<Poly> = if swappable {
            polys.iter().map(transpose_poly).collect()
        } else {
            Vec::new()
        };
        let atom = |rel: usize, slots: Vec<Slot>| {
            vec![Term {
                coef: Coef::constant(1.0),
                bound: Vec::new(),
                atoms: vec![Atom {
                    rel: rel as u32,
                    slots,
                }],
            }]
        };
        for (id, rel) in self.rels.iter().enumerate() {
            let Rel::Opaque {
                name: n,
                args: a2,
                shape: s2,
            } = rel
            else {
                continue;
            };
            if n != name {
                continue;
            }
            if s2 == shape && args_match(a2, &polys, commutative) {
                return Ok(atom(id, direct));
            }
            if swappable
                && s2.0 == shape.1
                && s2.1 == shape.0
                && args_match(a2, &transposed, commutative)
            {
                let mut slots = direct.clone();
                slots.reverse();
                return Ok(atom(id, slots));
            }
        }
        self.rels.push(Rel::Opaque {
            name: name.to_string(),
            args: polys,
            shape: shape.clone(),
        });
        Ok(atom(self.rels.len() - 1, direct))
    }

    /// Replaces every index of the known dimension `dim` (of size n) by each of its n
    /// positions: a bound index becomes a sum over positions, a free one becomes one
    /// copy per output cell, marked by a [`Rel::Cell`] atom. After this no index of
    /// `dim` is left, so a too-small `dim` can no longer make non-isomorphic terms
    /// equal (the slices `X[p, ·]` are independent inputs).
    pub(crate) fn expand(&mut self, p: &Poly, dim: &Dim) -> Result<Poly, EquivError> {
        let Dim::Known(n) = dim else {
            return Ok(p.clone());
        };
        let n = *n;
        let free_vars: Vec<Idx> = p
            .free
            .iter()
            .filter(|(_, d)| d == dim)
            .map(|(i, _)| *i)
            .collect();
        let cells: Vec<u32> = free_vars.iter().map(|&i| self.cell(i)).collect();
        let mut out = Vec::new();
        for t in &p.terms {
            let mut vars: Vec<Idx> = t
                .bound
                .iter()
                .filter(|(_, d)| d == dim)
                .map(|(i, _)| *i)
                .collect();
            vars.extend(free_vars.iter().copied());
            let count = u32::try_from(vars.len())
                .ok()
                .and_then(|k| n.checked_pow(k))
                .filter(|c| out.len() + c <= TERM_LIMIT)
                .ok_or_else(|| too_large("expanding a small dimension into its positions"))?;
            let bound: Vec<(Idx, Dim)> =
                t.bound.iter().filter(|(_, d)| d != dim).cloned().collect();
            for code in 0..count {
                let mut assign: HashMap<Idx, u32> = HashMap::new();
                let mut rest = code;
                for v in &vars {
                    assign.insert(*v, (rest % n) as u32);
                    rest /= n;
                }
                let mut atoms: Vec<Atom> = t
                    .atoms
                    .iter()
                    .map(|a| a.map_vars(|i| assign.get(&i).map_or(Slot::Var(i), |&q| Slot::Pos(q))))
                    .collect();
                for (k, fv) in free_vars.iter().enumerate() {
                    let q = assign.get(fv).copied().unwrap_or(0);
                    atoms.push(Atom {
                        rel: cells[k],
                        slots: vec![Slot::Pos(q)],
                    });
                }
                atoms.sort();
                let term = Term {
                    coef: t.coef.clone(),
                    bound: bound.clone(),
                    atoms,
                };
                match self.identity {
                    Some(rel) => out.extend(tidy_identities(term, rel)),
                    None => out.push(term),
                }
            }
        }
        Ok(Poly {
            free: p.free.iter().filter(|(_, d)| d != dim).cloned().collect(),
            terms: combine(out),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env() -> ShapeEnv {
        ShapeEnv::with_shapes(&["X=mxn", "Y=mxn", "u=mx1", "v=nx1", "s=1x1"]).unwrap()
    }

    fn canon(text: &str) -> Polyterm {
        normalize(&LaExpr::parse(text).unwrap(), &env()).unwrap()
    }

    #[test]
    fn aggregating_a_constant_multiplies_by_the_dimensions() {
        let p = canon("sum(X + 1)");
        assert_eq!(p.body.terms.len(), 2);
        assert_eq!(p.to_string(), "Σ[k2:m,k3:n]·X(k2,k3) + m·n");
    }

    #[test]
    fn isomorphic_terms_merge() {
        let p = canon("sum(X * Y) + sum(t(Y) * t(X)) - 2 * sum(Y * X)");
        assert!(p.body.terms.is_empty(), "{p}");
        let p = canon("(X + Y)^2");
        assert_eq!(p.body.terms.len(), 3, "{p}");
        let p = canon("exp(X + Y) - exp(Y + X)");
        assert!(p.body.terms.is_empty(), "{p}");
        let p = canon("t(exp(t(X))) - exp(X)");
        assert!(p.body.terms.is_empty(), "{p}");
    }

    /// `diag(v)` is `v(i)·I(i,j)`: a product with it renames the summed index, and its
    /// transpose and its own diagonal are what they should be.
    #[test]
    fn the_identity_relation_renames_what_it_sums() {
        assert_eq!(canon("diag(v) %*% t(X)").to_string(), "v(i)·X(j,i)");
        assert_eq!(
            canon("t(diag(v))").to_string(),
            canon("diag(v)").to_string()
        );
        assert_eq!(canon("diag(v)").to_string(), "v(i)·I(i,j)");
        assert_eq!(canon("diag(diag(v))").to_string(), "v(i)");
        let (sum_diag, sum) = (canon("sum(diag(v))"), canon("sum(v)"));
        assert!(difference(&sum_diag.body.terms, &sum.body.terms).is_empty());
    }

    /// A slice of known rows reads its input at fixed positions, tied to the result's
    /// rows; a single row has no row index.
    #[test]
    fn slices_read_fixed_positions() {
        let env = ShapeEnv::with_shapes(&["A=5x4"]).unwrap();
        let form = |text: &str| normalize(&LaExpr::parse(text).unwrap(), &env).unwrap();
        assert_eq!(form("A[2, ]").to_string(), "A(#1,j)");
        assert_eq!(
            form("A[2:3, ]").to_string(),
            "A(#1,j)·I(i,#0) + A(#2,j)·I(i,#1)"
        );
        assert_eq!(form("rev(A)[1, ]").to_string(), "A(#4,j)");
        assert_eq!(form("colSums(A[1:2, ])").to_string(), "A(#0,j) + A(#1,j)");
    }

    #[test]
    fn size_one_dimensions_carry_no_index() {
        let p = canon("u * t(v) * s");
        assert_eq!(p.to_string(), "u(i)·v(j)·s()");
    }
}
