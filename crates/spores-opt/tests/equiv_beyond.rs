//! `spores equiv` beyond the sum-product fragment: identities of `min`/`max` aggregates,
//! cellwise `max`/`min`/`abs`/`sign`, comparisons, `!`, `&`, `|` and `ifelse`, `cbind` and
//! `rbind`, right indexing and `rev`, each with a wrong twin. Every identity is proved
//! (and agrees numerically on random inputs), every twin refuted with a witness that
//! really separates it.

mod common;

use common::{check_witness, numerically_equal, parse};
use spores_opt::canon::{equiv, Equivalence};
use spores_opt::la::ShapeEnv;

/// `(identity lhs, identity rhs, wrong twin of rhs)`.
const TABLE: &[(&str, &str, &str)] = &[
    ("max(A + s)", "max(A) + s", "max(A) + 2 * s"),
    ("min(-A)", "-max(A)", "max(A)"),
    ("max(-A)", "-min(A)", "min(A)"),
    ("max(3 * A)", "3 * max(A)", "3 * min(A)"),
    ("min(A - s)", "min(A) - s", "min(A) + s"),
    ("max(t(A))", "max(A)", "min(A)"),
    ("max(rowMaxs(A))", "max(A)", "min(rowMaxs(A))"),
    ("rowMaxs(A + u)", "rowMaxs(A) + u", "rowMaxs(A) + 2 * u"),
    ("colMins(t(A))", "t(rowMins(A))", "t(rowMaxs(A))"),
    ("max(A, 0) + min(A, 0)", "A", "abs(A)"),
    ("max(A, B) + min(A, B)", "A + B", "A - B"),
    ("max(A, B) - min(A, B)", "abs(A - B)", "A - B"),
    ("min(A, 0)", "-max(-A, 0)", "max(-A, 0)"),
    ("sqrt(A^2)", "abs(A)", "A"),
    ("abs(abs(A))", "abs(A)", "A"),
    ("abs(-A)", "abs(A)", "-abs(A)"),
    ("abs(A) * sign(A)", "A", "abs(A)"),
    ("!(A > B)", "A <= B", "A < B"),
    ("!(A == B)", "A != B", "A == B"),
    ("(A > 0) - (A < 0)", "sign(A)", "(A >= 0) - (A < 0)"),
    ("ifelse(A > 0, A, 0)", "max(A, 0)", "max(A, 1)"),
    ("ifelse(A > B, A, B)", "max(A, B)", "min(A, B)"),
    (
        "(A > B) + (A < B) + (A == B)",
        "matrix(1, 5, 4)",
        "matrix(2, 5, 4)",
    ),
    ("(A > 0) & (A < 0)", "matrix(0, 5, 4)", "A > 0"),
    ("(A > 0) | (A <= 0)", "matrix(1, 5, 4)", "A > 0"),
    ("((A > B) == 1)", "A > B", "A < B"),
    ("((A > B) == 0)", "A <= B", "A > B"),
    ("min(max(A, B), A)", "A", "B"),
    ("max(A, A)", "A", "2 * A"),
    ("sum(max(A, 0) + min(A, 0))", "sum(A)", "sum(abs(A))"),
    (
        "rowSums(cbind(A, C))",
        "rowSums(A) + rowSums(C)",
        "rowSums(A) - rowSums(C)",
    ),
    (
        "colSums(rbind(A, D))",
        "colSums(A) + colSums(D)",
        "colSums(A)",
    ),
    ("sum(cbind(A, C))", "sum(A) + sum(C)", "sum(A) * sum(C)"),
    ("t(cbind(A, C))", "rbind(t(A), t(C))", "rbind(t(C), t(A))"),
    (
        "cbind(A, C) %*% rbind(F, H)",
        "A %*% F + C %*% H",
        "A %*% F - C %*% H",
    ),
    ("max(cbind(A, C))", "max(max(A), max(C))", "max(A)"),
    ("(A %*% F)[1:2, ]", "A[1:2, ] %*% F", "A[2:3, ] %*% F"),
    ("(A %*% F)[2, 3]", "A[2, ] %*% F[, 3]", "A[3, ] %*% F[, 2]"),
    ("t(A)[2, ]", "t(A[, 2])", "t(A[, 3])"),
    ("A[2:4, ][2, ]", "A[3, ]", "A[2, ]"),
    (
        "(A + B)[1:2, ]",
        "A[1:2, ] + B[1:2, ]",
        "A[1:2, ] - B[1:2, ]",
    ),
    ("rowSums(A)[3, ]", "rowSums(A[3, ])", "rowSums(A[2, ])"),
    ("A[1:5, 1:4]", "A", "t(t(A))[1:5, 1:3] %*% matrix(1, 3, 4)"),
    ("cbind(A, C)[, 5:7]", "C", "A[, 1:3]"),
    ("rev(rev(A))", "A", "rev(A)"),
    ("sum(rev(A))", "sum(A)", "sum(A) + 1"),
    (
        "colSums(rev(A))",
        "colSums(A)",
        "rowSums(t(A))[1, ] * 0 + colSums(A) + 1",
    ),
    ("rev(A + u)", "rev(A) + rev(u)", "rev(A) + u"),
    ("rowMaxs(A)", "-rowMins(-A)", "rowMins(A)"),
    ("max(sum(A))", "sum(A)", "max(A)"),
    ("rowMaxs(u)", "u", "2 * u"),
];

fn env() -> ShapeEnv {
    let mut env = ShapeEnv::with_shapes(&[
        "A=5x4", "B=5x4", "C=5x3", "D=2x4", "E=3x4", "F=4x3", "H=3x3", "u=5x1", "s=1x1",
    ])
    .unwrap();
    env.scalar("s");
    env
}

#[test]
fn every_identity_is_proved_and_every_twin_refuted() {
    let env = env();
    let mut wrong = Vec::new();
    for (lhs, rhs, twin) in TABLE {
        let (l, r, t) = (parse(lhs), parse(rhs), parse(twin));
        match equiv(&l, &r, &env) {
            Ok(Equivalence::Equivalent) => numerically_equal(&env, &l, &r),
            other => wrong.push(format!("{lhs} == {rhs}: {other:?}")),
        }
        match equiv(&l, &t, &env) {
            Ok(Equivalence::NotEquivalent(w)) => check_witness(&l, &t, &w),
            other => wrong.push(format!("{lhs} != {twin}: {other:?}")),
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {} pairs:\n{}",
        wrong.len(),
        2 * TABLE.len(),
        wrong.join("\n")
    );
}
