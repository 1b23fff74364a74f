//! The SPORES paper's worked examples (§2, §4.2) and Appendix A's counterexamples, which
//! show why small known dimensions need care.

mod common;

use common::{check_witness, env, eq, eqs, ne, nes, parse};
use spores_opt::canon::{equiv, normalize, provably_equivalent, EquivError, Equivalence};

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
    eqs(
        &e,
        &[
            ("sum(W %*% H)", "sum(t(colSums(W)) * rowSums(H))"),
            ("sum(W %*% H)", "colSums(W) %*% rowSums(H)"),
        ],
    );
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
    eqs(
        &e,
        &[
            ("exp(A + B)", "exp(B + A)"),
            ("sum(exp(t(A)))", "sum(exp(A))"),
            ("t(exp(t(A) * 2))", "exp(A + A)"),
            ("min(A, B) + log(A * B)", "log(t(t(B) * t(A))) + min(B, A)"),
        ],
    );
    nes(
        &e,
        &[
            ("exp(A + B)", "exp(A) + exp(B)"),
            ("exp(A) * exp(B)", "exp(A + B) + 1"),
        ],
    );
    // exp(A) * exp(B) = exp(A + B) is not a sum-product identity; the piecewise decision
    // knows exp of a sum (`canon/piecewise.rs`) and proves it.
    let (l, r) = (parse("exp(A) * exp(B)"), parse("exp(A + B)"));
    assert!(matches!(
        equiv(&l, &r, &e).unwrap(),
        Equivalence::Equivalent
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
    // Combining isomorphic terms keeps (A+B+1)^20 polynomial: decided, not refused.
    assert!(matches!(
        equiv(&l, &l, &e).unwrap(),
        Equivalence::Equivalent
    ));
    // Products of sums over different indices do blow up and are refused cleanly.
    let wide = (0..9)
        .map(|k| format!("(A %*% t(B) + B %*% t(A) + A %*% t(A) + {k})"))
        .collect::<Vec<_>>()
        .join(" %*% ");
    let r = parse(&format!("sum({wide})"));
    match equiv(&r, &r, &e) {
        Err(EquivError::TooLarge(msg)) => assert!(msg.contains("terms"), "{msg}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_long_random_expression_is_refused_by_the_work_limit_not_after_seconds() {
    // 200 operators over four 50x50 inputs: no single polyterm passes the term limit,
    // but the summations re-key so many terms that the total work bound stops it.
    let e = env(&["A=50x50", "B=50x50", "C=50x50", "D=50x50"], &[]);
    let long = parse(include_str!("data/random_200_operators.txt").trim());
    match equiv(&long, &long, &e) {
        Err(EquivError::TooLarge(msg)) => assert!(msg.contains("atoms in all"), "{msg}"),
        other => panic!("{other:?}"),
    }
}

/// All set partitions of `items`.
fn partitions(items: &[&'static str]) -> Vec<Vec<Vec<&'static str>>> {
    let Some((first, rest)) = items.split_first() else {
        return vec![Vec::new()];
    };
    let mut out = Vec::new();
    for p in partitions(rest) {
        for k in 0..p.len() {
            let mut q = p.clone();
            q[k].push(first);
            out.push(q);
        }
        let mut q = p.clone();
        q.push(vec![first]);
        out.push(q);
    }
    out
}

/// `Σ_{i,j,k,l pairwise distinct} x(i) y(j) z(k) q(l)` in LA, by Möbius inversion over
/// set partitions: `Σ_π Π_B (-1)^(|B|-1) (|B|-1)! · sum(Π_{v∈B} v)`.
fn distinct_quadruples() -> String {
    let terms: Vec<String> = partitions(&["x", "y", "z", "q"])
        .into_iter()
        .map(|p| {
            let mut coef = 1i64;
            let factors: Vec<String> = p
                .iter()
                .map(|block| {
                    let k = block.len() as i64;
                    coef *= (if k % 2 == 1 { 1 } else { -1 }) * (1..k).product::<i64>();
                    format!("sum({})", block.join(" * "))
                })
                .collect();
            format!("({coef}) * {}", factors.join(" * "))
        })
        .collect();
    terms.join(" + ")
}

#[test]
fn small_known_dimension_witness_uses_every_position() {
    // Times sum(p), the distinct-quadruple sum has 5 indices of one dimension. For N = 3
    // it vanishes (found by expanding the dimension into positions); for N = 4 it does
    // not, and a witness must give values at all 4 positions.
    let l = format!("({}) * sum(p)", distinct_quadruples());
    let shapes = |n: &str| -> Vec<String> {
        ["x", "y", "z", "q", "p"]
            .iter()
            .map(|v| format!("{v}={n}x1"))
            .collect()
    };
    let env_n = |n: &str| {
        let s = shapes(n);
        env(&s.iter().map(String::as_str).collect::<Vec<_>>(), &[])
    };
    eq(&env_n("3"), &l, "0");
    let w = ne(&env_n("4"), &l, "0");
    assert_eq!(w.inputs["x"].rows(), 4);
    let w = ne(&env_n("n"), &l, "0");
    assert!(w.sizes["n"] >= 4, "{w}");
}

#[test]
fn fifteen_operators_take_milliseconds() {
    let e = env(&["X=mxn", "U=mxk", "V=nxk", "u=mx1", "v=nx1"], &[]);
    let l = parse("sum((X - U %*% t(V))^2) + t(u) %*% (X * (U %*% t(V))) %*% v - sum(X * u)");
    let r = parse(
        "sum(X^2) - 2 * sum(X * (U %*% t(V))) + sum((t(U) %*% U) * (t(V) %*% V)) \
         + t(v) %*% t(X * (U %*% t(V))) %*% u - sum(t(u) %*% X)",
    );
    let start = std::time::Instant::now();
    for _ in 0..10 {
        assert!(matches!(
            equiv(&l, &r, &e).unwrap(),
            Equivalence::Equivalent
        ));
    }
    let per_call = start.elapsed() / 10;
    assert!(per_call.as_millis() < 200, "{per_call:?}");
    println!("15-operator equivalence: {per_call:?}");
}

#[test]
fn division_by_a_scalar_is_multiplication_by_its_reciprocal() {
    let e = env(&["X=mxn", "y=mx1", "w=nx1", "n=1x1"], &[]);
    // Equal over the reals, which is what the optimizer's plans keep; `spores run` tells
    // them apart where n = 0: a product skips the zeros of `y` that `X / 0` meets, so one
    // side is infinite where the other is NaN, and `equiv` shows such a witness.
    for (lhs, rhs) in [
        ("(t(X) %*% y) / n", "t(X / n) %*% y"),
        ("w - 0.5 * t(X) %*% y / n", "w - t(X) %*% (y * (0.5 / n))"),
    ] {
        let (l, r) = (parse(lhs), parse(rhs));
        assert!(provably_equivalent(&l, &r, &e).unwrap(), "{lhs} vs {rhs}");
        match equiv(&l, &r, &e).unwrap() {
            Equivalence::NotEquivalent(w) => {
                assert_eq!(w.inputs["n"].to_dense().data(), &[0.0], "{w:?}");
                check_witness(&l, &r, &w);
            }
            other => panic!("{lhs} vs {rhs}: {other:?}"),
        }
    }
    ne(&e, "(t(X) %*% y) / n", "(t(X) %*% y) * n");
    // With a divisor that is never 0, the two are the same.
    let mut positive = e.clone();
    positive.positive.insert("n".into());
    let same = equiv(
        &parse("(t(X) %*% y) / n"),
        &parse("t(X / n) %*% y"),
        &positive,
    )
    .unwrap();
    assert!(matches!(same, Equivalence::Equivalent), "{same:?}");
}

#[test]
fn elementwise_functions_commute_with_transposing_vectors() {
    let e = env(&["X=mxn", "w=nx1"], &[]);
    eqs(
        &e,
        &[
            ("t(sigmoid(X %*% w))", "sigmoid(t(w) %*% t(X))"),
            (
                "sum(t(X) %*% sigmoid(X %*% w))",
                "sum(sigmoid(colSums(t(X * t(w)))) %*% X)",
            ),
        ],
    );
    ne(&e, "t(sigmoid(X %*% w))", "sigmoid(t(w)) %*% t(X)");
}

/// Every cellwise function of the shared catalogue (`functions.rs`) commutes with
/// transposition in the canonical forms as in the encoder, `min`/`max` of two matrices
/// included; `min`/`max` of one matrix sees no orientation at all.
#[test]
fn cellwise_functions_commute_with_transposition() {
    let e = env(&["A=mxn", "B=mxn"], &[]);
    eq(&e, "t(min(A, B))", "min(t(A), t(B))");
    eq(&e, "t(max(A, B))", "max(t(B), t(A))");
    eq(&e, "t(tanh(A))", "tanh(t(A))");
    eq(&e, "t(asin(A))", "asin(t(A))");
    eq(&e, "max(t(A))", "max(A)");
    let square = env(&["A=nxn", "B=nxn"], &[]);
    ne(&square, "t(min(A, B))", "min(A, B)");
}
