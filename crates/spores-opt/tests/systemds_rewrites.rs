//! Every sum-product rewrite method of SystemDS listed in Figure 14 of the SPORES paper:
//! several patterns each, checked equivalent under the method's shape condition, plus at
//! least one near miss per method that must be refuted with a witness whose values
//! really differ. `matrix(0, ...)` is an input marked all-zero (`--nnz Z=0`), and
//! `as.scalar` of a 1×1 matrix is the matrix itself, as in SystemDS.

mod common;

use common::{env, eq, ne};
use spores_opt::la::ShapeEnv;

/// X, Y: m×n; A: m×m; W: m×k; H: k×n; U: m×k, V: n×k; u: m×1; v: n×1; w: 1×n;
/// s, S: 1×1; Z: m×n all zeros; Zt: n×m all zeros; Zk: n×k all zeros; Zmk: m×k all zeros.
fn e() -> ShapeEnv {
    env(
        &[
            "X=mxn", "Y=mxn", "A=mxm", "W=mxk", "H=kxn", "U=mxk", "V=nxk", "u=mx1", "v=nx1",
            "w=1xn", "s=1x1", "S=1x1", "Z=mxn", "Zt=nxm", "Zk=nxk", "Zmk=mxk",
        ],
        &["Z", "Zt", "Zk", "Zmk"],
    )
}

#[test]
fn unnecessary_outer_product() {
    let e = e();
    // X*(Y%*%1) with 1 a row of ones (v^0 is a column of ones).
    eq(&e, "X * (u %*% t(v^0))", "X * u");
    eq(&e, "X * (u^0 %*% w)", "X * w");
    eq(&e, "X * (u %*% 1)", "X * u");
    ne(&e, "X * (u %*% t(v))", "X * u");
    ne(&e, "X * (u %*% t(v^0))", "X * u * 2");
}

#[test]
fn colwise_agg() {
    let e = e();
    eq(&e, "colSums(u)", "sum(u)");
    eq(&e, "colSums(w)", "w");
    eq(&e, "colSums(s)", "s");
    ne(&e, "colSums(X * Y)", "colSums(X) * colSums(Y)");
    ne(&e, "colSums(u)", "sum(u^2)");
}

#[test]
fn rowwise_agg() {
    let e = e();
    eq(&e, "rowSums(w)", "sum(w)");
    eq(&e, "rowSums(u)", "u");
    eq(&e, "rowSums(S)", "S");
    ne(&e, "rowSums(X * Y)", "rowSums(X) * rowSums(Y)");
}

#[test]
fn col_sums_mv_mult() {
    let e = e();
    eq(&e, "colSums(X * u)", "t(u) %*% X");
    eq(&e, "colSums(u * X)", "t(t(X) %*% u)");
    ne(&e, "colSums(X * u)", "colSums(X) * sum(u)");
}

#[test]
fn row_sums_mv_mult() {
    let e = e();
    eq(&e, "rowSums(X * w)", "X %*% t(w)");
    eq(&e, "rowSums(t(v) * X)", "X %*% v");
    ne(&e, "rowSums(X * w)", "rowSums(X) * sum(w)");
}

#[test]
fn unnecessary_aggregate() {
    let e = e();
    eq(&e, "sum(S)", "as.scalar(S)");
    eq(&e, "sum(S)", "S");
    eq(&e, "colSums(S)", "S");
    eq(&e, "rowSums(S)", "as.scalar(S)");
    eq(&e, "sum(t(u) %*% u)", "t(u) %*% u");
    eq(&e, "sum(t(w))", "rowSums(w)");
    ne(&e, "sum(S)", "S^2");
    ne(&e, "sum(t(u) %*% u)", "sum(u)^2");
}

#[test]
fn empty_agg() {
    let e = e();
    eq(&e, "sum(Z)", "0");
    eq(&e, "colSums(Z)", "0 * w");
    eq(&e, "rowSums(Z)", "u * 0");
    ne(&e, "sum(Z + 1)", "0");
    ne(&e, "sum(Z^0)", "sum(Z)");
}

#[test]
fn empty_reorg_op() {
    let e = e();
    eq(&e, "t(Z)", "Zt");
    eq(&e, "t(Z)", "0 * t(X)");
    eq(&e, "t(t(Z) * 3)", "Z");
    ne(&e, "t(Z) + 1", "Zt");
    ne(&e, "t(Z + X)", "Zt");
}

#[test]
fn empty_mmult() {
    let e = e();
    eq(&e, "X %*% Zk", "Zmk");
    eq(&e, "t(Zk) %*% t(X)", "t(Zmk)");
    eq(&e, "Z %*% v", "0 * u");
    ne(&e, "X %*% (Zk + 1)", "Zmk");
}

#[test]
fn identity_rep_matrix_mult() {
    let e = e();
    eq(&e, "u %*% 1", "u");
    eq(&e, "u %*% (s^0)", "u");
    eq(&e, "1 %*% w", "w");
    ne(&e, "u %*% s", "u");
}

#[test]
fn scalar_matrix_mult() {
    let e = e();
    eq(&e, "u %*% s", "u * as.scalar(s)");
    eq(&e, "s %*% w", "w * s");
    ne(&e, "u %*% s", "u + s");
}

#[test]
fn pushdown_sum_on_add() {
    let e = e();
    eq(&e, "sum(X + Y)", "sum(X) + sum(Y)");
    eq(&e, "sum(X - Y)", "sum(X) - sum(Y)");
    // Broadcasting breaks it: the vector is added once per column.
    ne(&e, "sum(X + u)", "sum(X) + sum(u)");
    ne(&e, "sum(X + s)", "sum(X) + s");
}

#[test]
fn dot_product_sum() {
    let e = e();
    eq(&e, "sum(u^2)", "t(u) %*% u");
    eq(&e, "sum(u * u)", "as.scalar(t(u) %*% u)");
    ne(&e, "sum(u^2)", "sum(u)^2");
}

#[test]
fn reorder_minus_matrix_mult() {
    let e = e();
    eq(&e, "(-t(X)) %*% u", "-(t(X) %*% u)");
    eq(&e, "X %*% (-v)", "-(X %*% v)");
    ne(&e, "(-t(X)) %*% u", "t(X) %*% u");
}

#[test]
fn sum_matrix_mult() {
    let e = e();
    eq(&e, "sum(W %*% H)", "sum(t(colSums(W)) * rowSums(H))");
    eq(&e, "colSums(W %*% H)", "colSums(W) %*% H");
    eq(&e, "rowSums(W %*% H)", "W %*% rowSums(H)");
    ne(&e, "sum(W %*% H)", "sum(W) * sum(H)");
}

#[test]
fn empty_binary_operation() {
    let e = e();
    eq(&e, "X * Z", "Z");
    eq(&e, "X + Z", "X");
    eq(&e, "X - Z", "X");
    ne(&e, "X * Z", "X");
    ne(&e, "Z - X", "X");
}

#[test]
fn scalar_mv_binary_operation() {
    let e = e();
    eq(&e, "X * S", "X * as.scalar(S)");
    eq(&e, "X - S", "X - as.scalar(S)");
    ne(&e, "X * S", "X + S");
}

#[test]
fn unnecessary_binary_operation() {
    let e = e();
    eq(&e, "X * 1", "X");
    eq(&e, "X / 1", "X");
    eq(&e, "X - 0", "X");
    eq(&e, "0 + X", "X");
    eq(&e, "1 * X * 1", "X");
    ne(&e, "X * 1", "X + 1");
}

#[test]
fn binary_to_unary_operation() {
    let e = e();
    eq(&e, "X * X", "X^2");
    eq(&e, "X + X", "X * 2");
    ne(&e, "X * X", "X * 2");
    // (X>0)-(X<0) = sign(X) is an identity of opaque functions: the canonical forms
    // differ, so the procedure must not claim equivalence, and cannot refute it either.
    let (l, r) = (common::parse("(X > 0) - (X < 0)"), common::parse("sign(X)"));
    match spores_opt::canon::equiv(&l, &r, &e).unwrap() {
        spores_opt::canon::Equivalence::Unknown(why) => assert!(why.contains("opaque"), "{why}"),
        other => panic!("expected Unknown, got {other:?}"),
    }
}

#[test]
fn matrix_mult_scalar_add() {
    let e = e();
    eq(&e, "s + U %*% t(V)", "U %*% t(V) + s");
    eq(&e, "1e-6 + U %*% t(V)", "U %*% t(V) + 1e-6");
    ne(&e, "s + U %*% t(V)", "U %*% (t(V) + s)");
}

#[test]
fn distributive_binary_operation() {
    let e = e();
    eq(&e, "X - Y * X", "(1 - Y) * X");
    eq(&e, "X + Y * X", "(1 + Y) * X");
    eq(&e, "Y * X - X", "(Y - 1) * X");
    eq(&e, "X - u * X", "(1 - u) * X");
    ne(&e, "X - Y * X", "(Y - 1) * X");
}

#[test]
fn bushy_binary_operation() {
    let e = e();
    eq(&e, "X * (Y * (W %*% H))", "(X * Y) * (W %*% H)");
    eq(&e, "X * (Y * u)", "(X * Y) * u");
    eq(&e, "(X * Y) * X", "X^2 * Y");
    ne(&e, "X * (Y + W %*% H)", "(X * Y) + (W %*% H)");
}

#[test]
fn unary_agg_reorg_operation() {
    let e = e();
    eq(&e, "sum(t(X))", "sum(X)");
    eq(&e, "rowSums(t(X))", "t(colSums(X))");
    eq(&e, "colSums(t(X))", "t(rowSums(X))");
    ne(&e, "rowSums(t(A))", "rowSums(A)");
}

#[test]
fn unnecessary_aggregates() {
    let e = e();
    eq(&e, "sum(rowSums(X))", "sum(X)");
    eq(&e, "sum(colSums(X))", "sum(X)");
    eq(&e, "rowSums(colSums(X))", "sum(X)");
    eq(&e, "colSums(rowSums(X))", "sum(X)");
    eq(&e, "sum(sum(X))", "sum(X)");
    ne(&e, "sum(rowSums(X)^2)", "sum(X^2)");
}

#[test]
fn binary_matrix_scalar_operation() {
    let e = e();
    eq(&e, "as.scalar(S * s)", "as.scalar(S) * s");
    eq(&e, "as.scalar(S + s)", "as.scalar(S) + s");
    eq(&e, "as.scalar(S - s)", "S - s");
    ne(&e, "as.scalar(S * s)", "S + s");
}

#[test]
fn pushdown_unary_agg_transpose_op() {
    let e = e();
    eq(&e, "colSums(t(X))", "t(rowSums(X))");
    eq(&e, "rowSums(t(X))", "t(colSums(X))");
    ne(&e, "colSums(t(A))", "colSums(A)");
}

#[test]
fn pushdown_cse_transpose_scalar_op() {
    let e = e();
    eq(&e, "t(X^2)", "t(X)^2");
    eq(&e, "t(X * s)", "t(X) * s");
    eq(&e, "t(X * 3)", "3 * t(X)");
    ne(&e, "t(X^2)", "t(X) * 2");
}

#[test]
fn pushdown_sum_binary_mult() {
    let e = e();
    eq(&e, "sum(s * X)", "s * sum(X)");
    eq(&e, "sum(X * s)", "sum(X) * s");
    eq(&e, "sum(2 * X)", "2 * sum(X)");
    // Only for scalars: a vector factor is not constant across cells.
    ne(&e, "sum(u * X)", "sum(u) * sum(X)");
}

#[test]
fn unnecessary_reorg_operation() {
    let e = e();
    eq(&e, "t(t(X))", "X");
    eq(&e, "t(t(t(X)))", "t(X)");
    ne(&e, "t(t(A))", "t(A)");
}

#[test]
fn transpose_agg_bin_binary_chains() {
    // t(t(A) %*% t(B) + C) -> B %*% A + t(C), and t(t(A) %*% (t(B) + C)) -> (B + t(C)) %*% A
    let e = env(&["A=kxm", "B=nxk", "C=mxn", "D=kxn"], &[]);
    eq(&e, "t(t(A) %*% t(B) + C)", "B %*% A + t(C)");
    eq(&e, "t(t(A) %*% (t(B) + D))", "(B + t(D)) %*% A");
    ne(&e, "t(t(A) %*% t(B) + C)", "B %*% A - t(C)");
}

#[test]
fn unnecessary_minus() {
    let e = e();
    eq(&e, "-(-X)", "X");
    eq(&e, "-(-(-X))", "-X");
    ne(&e, "-(-X)", "-X");
}
