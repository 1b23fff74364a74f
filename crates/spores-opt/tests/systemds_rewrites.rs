//! Every sum-product rewrite method of SystemDS listed in Figure 14 of the SPORES paper:
//! the method's patterns (`common/figure14.rs`, shared with `systemds_rewrites_found.rs`)
//! checked equivalent under the method's shape condition, plus at least one near miss
//! per method that must be refuted with a witness whose values really differ.
//! `matrix(0, ...)` is an input marked all-zero (`--nnz Z=0`), and `as.scalar` of a 1×1
//! matrix is the matrix itself, as in SystemDS.

mod common;

use common::figure14::{self, method};
use common::{eq, ne};
use spores_opt::la::ShapeEnv;

/// The shapes of most methods (see `figure14::default_env`).
fn e() -> ShapeEnv {
    figure14::default_env()
}

/// Proves every pattern of the method `name` (`lhs ≡ rhs`, and numerically equal).
fn proved(name: &str) {
    let m = method(name);
    let e = (m.env)();
    assert!(!m.patterns.is_empty(), "{name} has no patterns");
    for (lhs, rhs) in m.patterns {
        eq(&e, lhs, rhs);
    }
}

#[test]
fn unnecessary_outer_product() {
    let e = e();
    proved("unnecessary_outer_product");
    ne(&e, "X * (u %*% t(v))", "X * u");
    ne(&e, "X * (u %*% t(v^0))", "X * u * 2");
}

#[test]
fn colwise_agg() {
    let e = e();
    proved("colwise_agg");
    ne(&e, "colSums(X * Y)", "colSums(X) * colSums(Y)");
    ne(&e, "colSums(u)", "sum(u^2)");
}

#[test]
fn rowwise_agg() {
    let e = e();
    proved("rowwise_agg");
    ne(&e, "rowSums(X * Y)", "rowSums(X) * rowSums(Y)");
}

#[test]
fn col_sums_mv_mult() {
    let e = e();
    proved("col_sums_mv_mult");
    ne(&e, "colSums(X * u)", "colSums(X) * sum(u)");
}

#[test]
fn row_sums_mv_mult() {
    let e = e();
    proved("row_sums_mv_mult");
    ne(&e, "rowSums(X * w)", "rowSums(X) * sum(w)");
}

#[test]
fn unnecessary_aggregate() {
    let e = e();
    proved("unnecessary_aggregate");
    ne(&e, "sum(S)", "S^2");
    ne(&e, "sum(t(u) %*% u)", "sum(u)^2");
}

#[test]
fn empty_agg() {
    let e = e();
    proved("empty_agg");
    ne(&e, "sum(Z + 1)", "0");
    ne(&e, "sum(Z^0)", "sum(Z)");
}

#[test]
fn empty_reorg_op() {
    let e = e();
    proved("empty_reorg_op");
    ne(&e, "t(Z) + 1", "Zt");
    ne(&e, "t(Z + X)", "Zt");
}

#[test]
fn empty_mmult() {
    let e = e();
    proved("empty_mmult");
    ne(&e, "X %*% (Zk + 1)", "Zmk");
}

#[test]
fn identity_rep_matrix_mult() {
    let e = e();
    proved("identity_rep_matrix_mult");
    ne(&e, "u %*% s", "u");
}

#[test]
fn scalar_matrix_mult() {
    let e = e();
    proved("scalar_matrix_mult");
    ne(&e, "u %*% s", "u + s");
}

#[test]
fn pushdown_sum_on_add() {
    let e = e();
    proved("pushdown_sum_on_add");
    // Broadcasting breaks it: the vector is added once per column.
    ne(&e, "sum(X + u)", "sum(X) + sum(u)");
    ne(&e, "sum(X + s)", "sum(X) + s");
}

#[test]
fn dot_product_sum() {
    let e = e();
    proved("dot_product_sum");
    ne(&e, "sum(u^2)", "sum(u)^2");
}

#[test]
fn reorder_minus_matrix_mult() {
    let e = e();
    proved("reorder_minus_matrix_mult");
    ne(&e, "(-t(X)) %*% u", "t(X) %*% u");
}

#[test]
fn sum_matrix_mult() {
    let e = e();
    proved("sum_matrix_mult");
    ne(&e, "sum(W %*% H)", "sum(W) * sum(H)");
}

#[test]
fn empty_binary_operation() {
    let e = e();
    proved("empty_binary_operation");
    ne(&e, "X * Z", "X");
    ne(&e, "Z - X", "X");
}

#[test]
fn scalar_mv_binary_operation() {
    let e = e();
    proved("scalar_mv_binary_operation");
    ne(&e, "X * S", "X + S");
}

#[test]
fn unnecessary_binary_operation() {
    let e = e();
    proved("unnecessary_binary_operation");
    ne(&e, "X * 1", "X + 1");
}

#[test]
fn binary_to_unary_operation() {
    let e = e();
    proved("binary_to_unary_operation");
    ne(&e, "X * X", "X * 2");
    // (X>0)-(X<0) = sign(X) holds cell by cell: the piecewise decision splits on the
    // sign of X and proves it; its twin with `>=` differs where X is 0.
    let (l, r) = (common::parse("(X > 0) - (X < 0)"), common::parse("sign(X)"));
    assert!(matches!(
        spores_opt::canon::equiv(&l, &r, &e).unwrap(),
        spores_opt::canon::Equivalence::Equivalent
    ));
    let twin = common::parse("(X >= 0) - (X < 0)");
    assert!(matches!(
        spores_opt::canon::equiv(&twin, &r, &e).unwrap(),
        spores_opt::canon::Equivalence::NotEquivalent(_)
    ));
}

#[test]
fn matrix_mult_scalar_add() {
    let e = e();
    proved("matrix_mult_scalar_add");
    ne(&e, "s + U %*% t(V)", "U %*% (t(V) + s)");
}

#[test]
fn distributive_binary_operation() {
    let e = e();
    proved("distributive_binary_operation");
    ne(&e, "X - Y * X", "(Y - 1) * X");
}

#[test]
fn bushy_binary_operation() {
    let e = e();
    proved("bushy_binary_operation");
    ne(&e, "X * (Y + W %*% H)", "(X * Y) + (W %*% H)");
}

#[test]
fn unary_agg_reorg_operation() {
    let e = e();
    proved("unary_agg_reorg_operation");
    ne(&e, "rowSums(t(A))", "rowSums(A)");
}

#[test]
fn unnecessary_aggregates() {
    let e = e();
    proved("unnecessary_aggregates");
    ne(&e, "sum(rowSums(X)^2)", "sum(X^2)");
}

#[test]
fn binary_matrix_scalar_operation() {
    let e = e();
    proved("binary_matrix_scalar_operation");
    ne(&e, "as.scalar(S * s)", "S + s");
}

#[test]
fn pushdown_unary_agg_transpose_op() {
    let e = e();
    proved("pushdown_unary_agg_transpose_op");
    ne(&e, "colSums(t(A))", "colSums(A)");
}

#[test]
fn pushdown_cse_transpose_scalar_op() {
    let e = e();
    proved("pushdown_cse_transpose_scalar_op");
    ne(&e, "t(X^2)", "t(X) * 2");
}

#[test]
fn pushdown_sum_binary_mult() {
    let e = e();
    proved("pushdown_sum_binary_mult");
    // Only for scalars: a vector factor is not constant across cells.
    ne(&e, "sum(u * X)", "sum(u) * sum(X)");
}

#[test]
fn unnecessary_reorg_operation() {
    let e = e();
    proved("unnecessary_reorg_operation");
    ne(&e, "t(t(A))", "t(A)");
}

#[test]
fn transpose_agg_bin_binary_chains() {
    let e = figure14::chains_env();
    proved("transpose_agg_bin_binary_chains");
    ne(&e, "t(t(A) %*% t(B) + C)", "B %*% A - t(C)");
}

#[test]
fn unnecessary_minus() {
    let e = e();
    proved("unnecessary_minus");
    ne(&e, "-(-X)", "-X");
}
