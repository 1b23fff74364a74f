//! The SPORES paper's worked examples (§2, §4.2) and Appendix A's counterexamples, which
//! show why small known dimensions need care.

mod common;

use common::{env, eq, ne, parse};
use spores_opt::canon::{equiv, normalize, EquivError, Equivalence};

#[test]
fn squared_loss_expands_into_sparse_friendly_terms() {
    let e = env(&["X=mxn", "U=mxk", "V=nxk"], &[]);
    eq(
        &e,
        "sum((X - U %*% t(V))^2)",
        "sum(X^2) - 2 * sum(X * (U %*% t(V))) + sum((t(U) %*% U) * (t(V) %*% V))",
    );
    let k10 = env(&["X=mxn", "U=mx10", "V=nx10"], &[]);
    eq(
        &k10,
        "sum((X - U %*% t(V))^2)",
        "sum(X^2) - 2 * sum(X * (U %*% t(V))) + sum((t(U) %*% U) * (t(V) %*% V))",
    );
    ne(
        &e,
        "sum((X - U %*% t(V))^2)",
        "sum(X^2) - sum(X * (U %*% t(V))) + sum((t(U) %*% U) * (t(V) %*% V))",
    );
    eq(
        &e,
        "sum((U %*% t(V))^2)",
        "sum((t(U) %*% U) * t(t(V) %*% V))",
    );
    ne(
        &e,
        "sum((U %*% t(V))^2)",
        "sum(t(U) %*% U) * sum(t(V) %*% V)",
    );
}

#[test]
fn sum_of_masked_product_is_a_bilinear_form() {
    let vecs = env(&["X=mxn", "u=mx1", "v=nx1"], &[]);
    eq(&vecs, "sum(X * (u %*% t(v)))", "t(u) %*% X %*% v");
    eq(&vecs, "sum(X * (u %*% t(v)))", "sum(t(u) %*% X %*% v)");
    // For matrices it is the trace of t(U) X V, not the sum of all its cells.
    let mats = env(&["X=mxn", "U=mxk", "V=nxk"], &[]);
    eq(&mats, "sum(X * (U %*% t(V)))", "sum((t(U) %*% X) * t(V))");
    eq(&mats, "sum(X * (U %*% t(V)))", "sum(U * (X %*% V))");
    ne(&mats, "sum(X * (U %*% t(V)))", "sum(t(U) %*% X %*% V)");
}

#[test]
fn sum_of_matrix_product() {
    let e = env(&["W=mxk", "H=kxn"], &[]);
    eq(&e, "sum(W %*% H)", "sum(t(colSums(W)) * rowSums(H))");
    eq(&e, "sum(W %*% H)", "colSums(W) %*% rowSums(H)");
    ne(&e, "sum(W %*% H)", "sum(colSums(W)) * sum(rowSums(H))");
}

#[test]
fn als_update_distributes() {
    let e = env(&["X=mxn", "U=mxk", "V=nxk"], &[]);
    eq(&e, "(U %*% t(V) - X) %*% V", "U %*% (t(V) %*% V) - X %*% V");
    ne(
        &e,
        "(U %*% t(V) - X) %*% V",
        "U %*% (t(V) %*% V) - X %*% t(X) %*% U",
    );
}

#[test]
fn mlr_factors_out_p() {
    let col = env(&["P=mx1", "X=mxn"], &[]);
    eq(&col, "P * X - P * rowSums(P) * X", "P * (1 - P) * X");
    let mat = env(&["P=mxn", "X=mxn"], &[]);
    eq(
        &mat,
        "P * X - P * rowSums(P) * X",
        "P * (1 - rowSums(P)) * X",
    );
    ne(&mat, "P * X - P * rowSums(P) * X", "P * (1 - P) * X");
}

#[test]
fn transposed_product_agrees_only_on_1x1() {
    // Σ x(i,j) y(i,j) vs Σ x(i,j) y(j,i)
    let (l, r) = ("sum(x * y)", "sum(x * t(y))");
    eq(&env(&["x=1x1", "y=1x1"], &[]), l, r);
    ne(&env(&["x=nxn", "y=nxn"], &[]), l, r);
    let w = ne(&env(&["x=2x2", "y=2x2"], &[]), l, r);
    assert_eq!(w.inputs["x"].rows(), 2);
}

#[test]
fn three_vectors_agree_for_dimension_at_most_two() {
    // Σ_{ijk} x(i)y(j)z(k) + 2Σ_i x(i)y(i)z(i) vs the three "two equal indices" terms:
    // their difference is Σ over pairwise distinct i, j, k, which is empty when N ≤ 2.
    let l = "sum(x) * sum(y) * sum(z) + 2 * sum(x * y * z)";
    let r = "sum(x * y) * sum(z) + sum(x * z) * sum(y) + sum(y * z) * sum(x)";
    for n in [1, 2] {
        let e = env(
            &[
                &format!("x={n}x1"),
                &format!("y={n}x1"),
                &format!("z={n}x1"),
            ],
            &[],
        );
        eq(&e, l, r);
    }
    let w = ne(&env(&["x=3x1", "y=3x1", "z=3x1"], &[]), l, r);
    assert_eq!(w.inputs["x"].rows(), 3);
    let w = ne(&env(&["x=nx1", "y=nx1", "z=nx1"], &[]), l, r);
    assert!(w.sizes["n"] >= 3, "{w}");
}

#[test]
fn dimension_polynomials_in_coefficients() {
    let e = env(&["X=mxn"], &[]);
    eq(&e, "sum(X + 1)", "sum(X) + sum(X^0)");
    ne(&e, "sum(X + 1)", "sum(X) + 6");
    // With known sizes the dimension factor is a number.
    let e23 = env(&["X=2x3"], &[]);
    eq(&e23, "sum(X + 1)", "sum(X) + 6");
    let p = normalize(&parse("sum(X + 1)"), &e).unwrap();
    assert!(p.to_string().contains("m·n"), "{p}");
}

#[test]
fn opaque_functions_compare_by_canonical_arguments() {
    let e = env(&["A=mxn", "B=mxn"], &[]);
    eq(&e, "exp(A + B)", "exp(B + A)");
    eq(&e, "sum(exp(t(A)))", "sum(exp(A))");
    eq(&e, "t(exp(t(A) * 2))", "exp(A + A)");
    eq(
        &e,
        "min(A, B) + log(A * B)",
        "log(t(t(B) * t(A))) + min(B, A)",
    );
    ne(&e, "exp(A + B)", "exp(A) + exp(B)");
    ne(&e, "exp(A) * exp(B)", "exp(A + B) + 1");
    // exp(A) * exp(B) = exp(A + B) is true but not a sum-product identity: no witness
    // exists, so the answer is Unknown, never NotEquivalent.
    let (l, r) = (parse("exp(A) * exp(B)"), parse("exp(A + B)"));
    assert!(matches!(
        equiv(&l, &r, &e).unwrap(),
        Equivalence::Unknown(_)
    ));
}

#[test]
fn shape_errors_name_both_shapes() {
    let e = env(&["X=mxn"], &[]);
    let err = equiv(&parse("X"), &parse("t(X)"), &e).unwrap_err();
    assert_eq!(
        err,
        EquivError::ShapeMismatch {
            lhs: "mxn".into(),
            rhs: "nxm".into()
        }
    );
    assert!(err.to_string().contains("lhs is mxn, rhs is nxm"), "{err}");
    let err = equiv(&parse("X %*% X"), &parse("X"), &e).unwrap_err();
    assert!(
        matches!(err, EquivError::Shape { side: "lhs", .. }),
        "{err}"
    );
    assert!(err.to_string().contains("mxn"), "{err}");
}

#[test]
fn witness_prints_pasteable_dml() {
    let e = env(&["X=2x2", "Y=2x2"], &[]);
    let w = ne(&e, "sum(X * Y)", "sum(X * t(Y))");
    let text = w.to_string();
    assert!(text.contains("X = matrix(\""), "{text}");
    assert!(text.contains(", rows=2, cols=2)"), "{text}");
    assert!(text.contains("# lhs = matrix(\""), "{text}");
}

#[test]
fn blowup_is_capped() {
    let e = env(&["A=mxn", "B=mxn"], &[]);
    let many = (0..20)
        .map(|_| "(A + B + 1)")
        .collect::<Vec<_>>()
        .join(" * ");
    let l = parse(&format!("sum({many} * exp(A))"));
    // Combining isomorphic terms keeps (A+B+1)^20 polynomial; this must be fast.
    let start = std::time::Instant::now();
    assert!(matches!(
        equiv(&l, &l, &e).unwrap(),
        Equivalence::Equivalent
    ));
    assert!(start.elapsed().as_secs() < 5);
    // Products of sums over different indices do blow up and are refused cleanly.
    let wide = (0..9)
        .map(|k| format!("(A %*% t(B) + B %*% t(A) + A %*% t(A) + {k})"))
        .collect::<Vec<_>>()
        .join(" %*% ");
    let r = parse(&format!("sum({wide})"));
    let start = std::time::Instant::now();
    match equiv(&r, &r, &e) {
        Err(EquivError::TooLarge(msg)) => assert!(msg.contains("100000"), "{msg}"),
        other => panic!("{other:?}"),
    }
    assert!(start.elapsed().as_secs() < 20);
}
