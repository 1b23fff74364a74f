//! Helpers shared by the equivalence tests: build environments, assert equivalence
//! (and cross-check it numerically), assert non-equivalence (and re-check the witness).

#![allow(dead_code)]

pub mod figure14;
pub mod random_expr;

use std::collections::HashMap;

use spores_exec::{DenseMatrix, Matrix};
use spores_opt::canon::{equiv, Equivalence, Witness};
use spores_opt::eval::eval;
use spores_opt::la::{Dim, LaExpr, ShapeEnv};

/// `env(&["X=mxn", "u=mx1"], &["Z"])`: shapes, and inputs that are all zeros.
pub fn env(shapes: &[&str], zeros: &[&str]) -> ShapeEnv {
    let nnz: Vec<(&str, f64)> = zeros.iter().map(|z| (*z, 0.0)).collect();
    env_nnz(shapes, &nnz)
}

/// `env_nnz(&["X=mxn"], &[("X", 1e4)])`: shapes, and inputs' non-zero counts.
pub fn env_nnz(shapes: &[&str], nnz: &[(&str, f64)]) -> ShapeEnv {
    let mut env = ShapeEnv::with_shapes(shapes).unwrap();
    for (name, n) in nnz {
        env.set_nnz(name, *n);
    }
    env
}

pub fn parse(text: &str) -> LaExpr {
    LaExpr::parse(text).unwrap_or_else(|e| panic!("cannot parse `{text}`: {e:?}"))
}

/// A tiny deterministic generator (SplitMix64).
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

/// Random small-integer inputs for every input of `env`, symbolic sizes from `sizes`
/// (default 3), zero inputs all zeros.
pub fn random_inputs(env: &ShapeEnv, rng: &mut Rng) -> HashMap<String, Matrix> {
    let size = |d: &Dim| match d {
        Dim::Known(n) => *n,
        Dim::Sym(s) => 3 + (s.len() % 2),
    };
    env.shapes
        .iter()
        .map(|(name, (r, c))| {
            let zero = env.nnz.get(name) == Some(&0.0);
            let m = DenseMatrix::from_fn(size(r), size(c), |_, _| {
                if zero {
                    0.0
                } else {
                    rng.below(5) as f64 - 2.0
                }
            });
            (name.clone(), Matrix::Dense(m))
        })
        .collect()
}

/// Whether two values agree within `rtol`, relative to the largest magnitude in
/// either (cancellation in floating point is relative to the operands, not the result).
pub fn close(a: &Matrix, b: &Matrix, rtol: f64) -> bool {
    if a.shape() != b.shape() {
        return false;
    }
    let (a, b) = (a.to_dense(), b.to_dense());
    let scale = spores_opt::canon::magnitude(&a, &b);
    a.data()
        .iter()
        .zip(b.data())
        .all(|(&x, &y)| (x.is_nan() && y.is_nan()) || x == y || (x - y).abs() <= rtol * scale)
}

/// Whether some cell really differs (beyond rounding noise): the same test the
/// witness search uses.
pub fn really_differ(a: &Matrix, b: &Matrix) -> bool {
    spores_opt::canon::differs(a, b)
}

/// Asserts that the two sides evaluate to the same values on a few random inputs.
pub fn numerically_equal(env: &ShapeEnv, l: &LaExpr, r: &LaExpr) {
    let mut rng = Rng(42);
    for _ in 0..3 {
        let inputs = random_inputs(env, &mut rng);
        let (a, b) = (eval(l, &inputs).unwrap(), eval(r, &inputs).unwrap());
        assert!(
            close(&a, &b, 1e-8),
            "`{l}` and `{r}` differ numerically: {a:?} vs {b:?}"
        );
    }
}

/// Asserts `lhs ≡ rhs` under `env`, and that they agree numerically.
pub fn eq(env: &ShapeEnv, lhs: &str, rhs: &str) {
    let (l, r) = (parse(lhs), parse(rhs));
    match equiv(&l, &r, env) {
        Ok(Equivalence::Equivalent) => {}
        other => panic!("expected `{lhs}` ≡ `{rhs}`, got {other:?}"),
    }
    numerically_equal(env, &l, &r);
}

/// Re-evaluates a witness independently and checks the values differ.
pub fn check_witness(l: &LaExpr, r: &LaExpr, w: &Witness) {
    let inputs = w.input_map();
    let (a, b) = (eval(l, &inputs).unwrap(), eval(r, &inputs).unwrap());
    assert!(
        really_differ(&a, &b),
        "witness does not separate `{l}` and `{r}`:\n{w}"
    );
    assert!(
        close(&a, &w.lhs, 0.0) && close(&b, &w.rhs, 0.0),
        "witness values are stale:\n{w}"
    );
    // Symbolic sizes stand for sizes > 1.
    for (dim, size) in &w.sizes {
        assert!(*size >= 2, "{dim} = {size} in\n{w}");
    }
}

/// Asserts `lhs ≢ rhs` under `env` with a witness whose values really differ.
pub fn ne(env: &ShapeEnv, lhs: &str, rhs: &str) -> Witness {
    let (l, r) = (parse(lhs), parse(rhs));
    match equiv(&l, &r, env) {
        Ok(Equivalence::NotEquivalent(w)) => {
            check_witness(&l, &r, &w);
            *w
        }
        other => panic!("expected `{lhs}` ≢ `{rhs}`, got {other:?}"),
    }
}

/// [`eq`] on each `(lhs, rhs)` pair.
pub fn eqs(env: &ShapeEnv, pairs: &[(&str, &str)]) {
    for (lhs, rhs) in pairs {
        eq(env, lhs, rhs);
    }
}

/// [`ne`] on each `(lhs, rhs)` pair.
pub fn nes(env: &ShapeEnv, pairs: &[(&str, &str)]) {
    for (lhs, rhs) in pairs {
        ne(env, lhs, rhs);
    }
}
