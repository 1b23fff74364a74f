//! Term isomorphism (Definition A.4) and merging of isomorphic terms.
//!
//! Two terms are isomorphic when a bijection of their bound indices, preserving each
//! index's dimension and fixing free indices and positions, maps one bag of atoms onto
//! the other. Terms are first bucketed by an invariant (the sorted multiset of atom
//! signatures, where a bound index is replaced by its dimension); within a bucket a
//! backtracking search matches atoms one at a time, extending a partial index bijection
//! and pruning as soon as a slot disagrees. Atoms are visited in an order where each
//! next atom shares as many indices as possible with the ones already matched, so the
//! bijection is mostly forced and the search is near-linear for the terms LA produces.

use std::cell::Cell;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::time::Instant;

use super::{Atom, Coef, Idx, Slot, Term};
use crate::la::Dim;

thread_local! {
    /// The deadline of the decision running on this thread, if its caller set one
    /// ([`Deadline`]), and whether it has passed.
    static DEADLINE: Cell<(Option<Instant>, bool)> = const { Cell::new((None, false)) };
}

/// A time limit on the canonical-form work of this thread while the value lives. Past it,
/// [`combine`] stops merging (its result is then meaningless) and [`Deadline::passed`]
/// says so: the caller must check it before trusting any answer.
pub(crate) struct Deadline;

impl Deadline {
    pub(crate) fn set(at: Option<Instant>) -> Deadline {
        DEADLINE.with(|d| d.set((at, false)));
        Deadline
    }

    /// Whether the deadline has passed (checked now, and remembered).
    pub(crate) fn passed() -> bool {
        DEADLINE.with(|d| {
            let (at, passed) = d.get();
            let passed = passed || at.is_some_and(|at| Instant::now() > at);
            d.set((at, passed));
            passed
        })
    }
}

impl Drop for Deadline {
    fn drop(&mut self) {
        DEADLINE.with(|d| d.set((None, false)));
    }
}

/// Terms [`combine`] merges between two looks at the clock: merging a long polyterm is the
/// longest stretch of normalizing without one.
const TERMS_PER_CLOCK_CHECK: usize = 1024;

/// An isomorphism invariant of a term, equal for isomorphic terms: a colour refinement
/// (Weisfeiler–Lehman) hash of the term's index/atom incidence structure. Bound indices
/// start coloured by their dimension; each round recolours an index by the colours of
/// the atoms it occurs in (and its position there), and an atom's colour is its relation
/// with the colours of its slots. Plain atom multisets are not enough: the terms of a
/// long matrix-product chain all have the same atoms, only connected differently, and
/// would share one bucket of quadratic pairwise isomorphism tests.
type TermKey = u64;

/// Fx, not SipHash: keys are only bucket labels (an isomorphism test decides), and
/// hashing was a quarter of normalizing a 200-operator expression.
fn hash_of<T: Hash>(x: &T) -> u64 {
    let mut h = rustc_hash::FxHasher::default();
    x.hash(&mut h);
    h.finish()
}

fn bound_dim(t: &Term, i: Idx) -> Option<&Dim> {
    t.bound.iter().find(|(b, _)| *b == i).map(|(_, d)| d)
}

fn term_key(t: &Term) -> TermKey {
    let pos: rustc_hash::FxHashMap<Idx, usize> = t
        .bound
        .iter()
        .enumerate()
        .map(|(k, (i, _))| (*i, k))
        .collect();
    let mut colors: Vec<u64> = t.bound.iter().map(|(_, d)| hash_of(d)).collect();
    let atom_color = |a: &Atom, colors: &[u64]| {
        let slots: Vec<(u8, u64)> = a
            .slots
            .iter()
            .map(|s| match s {
                Slot::Pos(p) => (0, u64::from(*p)),
                Slot::Var(i) => match pos.get(i) {
                    Some(&k) => (1, colors[k]),
                    None => (2, u64::from(*i)),
                },
            })
            .collect();
        hash_of(&(a.rel, slots))
    };
    for _ in 0..t.atoms.len().min(6) {
        let mut seen: Vec<Vec<(u64, usize)>> = vec![Vec::new(); colors.len()];
        for a in &t.atoms {
            let c = atom_color(a, &colors);
            for (p, s) in a.slots.iter().enumerate() {
                if let Slot::Var(i) = s {
                    if let Some(&k) = pos.get(i) {
                        seen[k].push((c, p));
                    }
                }
            }
        }
        colors = colors
            .iter()
            .zip(seen.iter_mut())
            .map(|(old, s)| {
                s.sort_unstable();
                hash_of(&(old, &*s))
            })
            .collect();
    }
    let mut atoms: Vec<u64> = t.atoms.iter().map(|a| atom_color(a, &colors)).collect();
    atoms.sort_unstable();
    let mut dims: Vec<&Dim> = t.bound.iter().map(|(_, d)| d).collect();
    dims.sort();
    hash_of(&(atoms, dims))
}

/// Order in which to match `t`'s atoms: start from the most constrained atom, then
/// always take the atom with the most already-seen indices.
fn atom_order(t: &Term) -> Vec<usize> {
    let n = t.atoms.len();
    let mut seen: Vec<Idx> = Vec::new();
    let mut done = vec![false; n];
    let mut order = Vec::with_capacity(n);
    let is_bound = |i: &Idx| t.bound.iter().any(|(b, _)| b == i);
    for _ in 0..n {
        let best = (0..n).filter(|&k| !done[k]).max_by_key(|&k| {
            let a = &t.atoms[k];
            let fixed = a
                .slots
                .iter()
                .filter(|s| match s {
                    Slot::Pos(_) => true,
                    Slot::Var(i) => !is_bound(i) || seen.contains(i),
                })
                .count();
            // Prefer more fixed slots, then fewer slots left open (a stable tie-break).
            (fixed, usize::MAX - a.slots.len(), usize::MAX - k)
        });
        let Some(k) = best else { break };
        done[k] = true;
        order.push(k);
        for s in &t.atoms[k].slots {
            if let Slot::Var(i) = s {
                if is_bound(i) && !seen.contains(i) {
                    seen.push(*i);
                }
            }
        }
    }
    order
}

struct Search<'a> {
    a: &'a Term,
    b: &'a Term,
    order: Vec<usize>,
    map: HashMap<Idx, Idx>,
    rev: HashMap<Idx, Idx>,
    used: Vec<bool>,
}

impl Search<'_> {
    /// Tries to extend the bijection so that atom `x` of `a` maps onto atom `y` of `b`;
    /// returns the `a` indices newly mapped (to undo), or `None` on a conflict (already
    /// undone).
    fn bind(&mut self, x: &Atom, y: &Atom) -> Option<Vec<Idx>> {
        let mut added = Vec::new();
        let mut ok = x.rel == y.rel && x.slots.len() == y.slots.len();
        if ok {
            for (s, t) in x.slots.iter().zip(&y.slots) {
                ok = match (s, t) {
                    (Slot::Pos(p), Slot::Pos(q)) => p == q,
                    (Slot::Var(i), Slot::Var(j)) => {
                        match (bound_dim(self.a, *i), bound_dim(self.b, *j)) {
                            (None, None) => i == j,
                            (Some(di), Some(dj)) if di == dj => match self.map.get(i) {
                                Some(m) => m == j,
                                None if self.rev.contains_key(j) => false,
                                None => {
                                    self.map.insert(*i, *j);
                                    self.rev.insert(*j, *i);
                                    added.push(*i);
                                    true
                                }
                            },
                            _ => false,
                        }
                    }
                    _ => false,
                };
                if !ok {
                    break;
                }
            }
        }
        if ok {
            Some(added)
        } else {
            self.undo(&added);
            None
        }
    }

    fn undo(&mut self, added: &[Idx]) {
        for i in added {
            if let Some(j) = self.map.remove(i) {
                self.rev.remove(&j);
            }
        }
    }

    fn run(&mut self, k: usize) -> bool {
        let Some(&xi) = self.order.get(k) else {
            return self.map.len() == self.a.bound.len();
        };
        let (a, b) = (self.a, self.b);
        let x = &a.atoms[xi];
        let mut tried: Vec<&Atom> = Vec::new();
        for (yi, y) in b.atoms.iter().enumerate() {
            if self.used[yi] || y.rel != x.rel || tried.contains(&y) {
                continue;
            }
            // Identical candidate atoms are interchangeable: trying one is enough.
            tried.push(y);
            if let Some(added) = self.bind(x, y) {
                self.used[yi] = true;
                if self.run(k + 1) {
                    return true;
                }
                self.used[yi] = false;
                self.undo(&added);
            }
        }
        false
    }
}

/// Whether there is a bijection of bound indices mapping `a`'s atoms onto `b`'s.
/// Coefficients are not compared.
pub(crate) fn isomorphic(a: &Term, b: &Term) -> bool {
    if a.atoms.len() != b.atoms.len() || a.bound.len() != b.bound.len() {
        return false;
    }
    let mut s = Search {
        a,
        b,
        order: atom_order(a),
        map: HashMap::new(),
        rev: HashMap::new(),
        used: vec![false; b.atoms.len()],
    };
    s.run(0)
}

/// Merges isomorphic terms by adding their coefficients and drops terms whose
/// coefficient is zero: the result is canonical up to isomorphism.
pub(crate) fn combine(terms: Vec<Term>) -> Vec<Term> {
    let mut out: Vec<Term> = Vec::new();
    let mut buckets: rustc_hash::FxHashMap<TermKey, Vec<usize>> = Default::default();
    for (n, mut t) in terms.into_iter().enumerate() {
        if n % TERMS_PER_CLOCK_CHECK == TERMS_PER_CLOCK_CHECK - 1 && Deadline::passed() {
            return out;
        }
        if t.coef.is_zero() {
            continue;
        }
        t.atoms.sort();
        let bucket = buckets.entry(term_key(&t)).or_default();
        match bucket.iter().copied().find(|&k| isomorphic(&out[k], &t)) {
            Some(k) => {
                let sum = out[k].coef.add(&t.coef);
                out[k].coef = sum;
            }
            None => {
                bucket.push(out.len());
                out.push(t);
            }
        }
    }
    out.retain(|t| !t.coef.is_zero());
    out
}

/// `a - b`, combined.
pub(crate) fn difference(a: &[Term], b: &[Term]) -> Vec<Term> {
    let neg = b.iter().map(|t| Term {
        coef: t.coef.mul(&Coef::constant(-1.0)),
        ..t.clone()
    });
    combine(a.iter().cloned().chain(neg).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn atom(rel: u32, slots: &[Idx]) -> Atom {
        Atom {
            rel,
            slots: slots.iter().map(|&i| Slot::Var(i)).collect(),
        }
    }

    fn term(bound: &[Idx], atoms: Vec<Atom>) -> Term {
        let mut atoms = atoms;
        atoms.sort();
        Term {
            coef: Coef::constant(1.0),
            bound: bound.iter().map(|&i| (i, Dim::sym("n"))).collect(),
            atoms,
        }
    }

    #[test]
    fn triangle_is_not_a_path() {
        // Σ x(a,b) x(b,c) x(c,a) versus Σ x(a,b) x(b,c) x(a,c)
        let tri = term(
            &[2, 3, 4],
            vec![atom(0, &[2, 3]), atom(0, &[3, 4]), atom(0, &[4, 2])],
        );
        let tri2 = term(
            &[7, 8, 9],
            vec![atom(0, &[9, 7]), atom(0, &[7, 8]), atom(0, &[8, 9])],
        );
        let other = term(
            &[2, 3, 4],
            vec![atom(0, &[2, 3]), atom(0, &[3, 4]), atom(0, &[2, 4])],
        );
        assert!(isomorphic(&tri, &tri2));
        assert!(!isomorphic(&tri, &other));
        assert_eq!(combine(vec![tri.clone(), tri2, other]).len(), 2);
    }

    #[test]
    fn free_indices_are_fixed() {
        // x(i,k) vs x(k,i) with i free
        let a = term(&[2], vec![atom(0, &[0, 2])]);
        let b = term(&[2], vec![atom(0, &[2, 0])]);
        assert!(!isomorphic(&a, &b));
        let same = std::slice::from_ref(&a);
        assert!(difference(same, same).is_empty());
    }
}
