//! `spores run --engine datafusion`: the blocks' sum-product subgraphs run on DataFusion
//! and the script prints what the local engine prints. Built with the `datafusion`
//! feature; without it, the flag is a usage error that says how to get it.

mod common;

use common::run_dml_with;

/// The squared loss, the multiplication chain and an ALS-CG half-step (examples/als.dml's
/// gradient and Hessian-vector product), on sparse generated data.
#[cfg(feature = "datafusion")]
const ALS: &str = r#"
X = rand(rows=300, cols=200, sparsity=0.05, min=1, max=5, seed=1)
U = rand(rows=300, cols=8, min=0, max=1, seed=2)
V = rand(rows=200, cols=8, min=0, max=1, seed=3)
v = rand(rows=200, cols=1, min=0, max=1, seed=4)
lambda = 0.1
loss = sum((X - U %*% t(V))^2)
print("loss " + loss)
w = t(X) %*% (X %*% v)
print("chain " + sum(w) + " " + as.scalar(w[7, 1]))
R = -((U %*% t(V) - X) %*% V + lambda * U)
S = R
HS = S %*% (t(V) %*% V) + lambda * S
alpha = sum(R^2) / sum(S * HS)
U = U + alpha * S
print("alpha " + alpha + " loss " + sum((X - U %*% t(V))^2))
"#;

#[cfg(feature = "datafusion")]
#[test]
fn datafusion_prints_what_the_local_engine_prints() {
    let local = run_dml_with("als.dml", ALS, &["--full-search"]).unwrap();
    let explained = run_dml_with(
        "als.dml",
        ALS,
        &["--full-search", "--engine", "datafusion", "--explain"],
    )
    .unwrap();
    // The subgraphs really ran on DataFusion, the fused squared loss included.
    assert!(
        explained.contains("relational[wsloss(X, U, V)]"),
        "{explained}"
    );
    let printed: String = explained
        .lines()
        .filter(|l| {
            ["loss ", "chain ", "alpha "]
                .iter()
                .any(|p| l.starts_with(p))
        })
        .map(|l| format!("{l}\n"))
        .collect();
    let want = common::numbers(&local);
    assert_eq!(want.len(), 5, "{local}");
    common::assert_close(&common::numbers(&printed), &want, 1e-9);
}

#[cfg(feature = "datafusion")]
#[test]
fn inputs_with_infinities_stay_on_the_local_engine() {
    // 0 * Inf is NaN on the local kernels (as in SystemDS); a relational join would skip
    // the missing zero. The subgraph over a non-finite input stays local.
    let src = "X = matrix(\"0 1 2 0\", rows=2, cols=2)\nY = X / 0\nprint(sum(X * Y))\n";
    let local = run_dml_with("inf.dml", src, &[]).unwrap();
    let relational = run_dml_with("inf.dml", src, &["--engine", "datafusion"]).unwrap();
    assert_eq!(relational, local);
    assert_eq!(local.trim(), "NaN");
}

#[cfg(not(feature = "datafusion"))]
#[test]
fn without_the_feature_the_flag_says_how_to_build_it() {
    let err = run_dml_with("tiny.dml", "print(1)\n", &["--engine", "datafusion"]).unwrap_err();
    assert!(err.contains("--features datafusion"), "{err}");
}

#[test]
fn the_local_engine_is_the_default_and_named() {
    let src = "X = matrix(2, rows=3, cols=3)\nprint(sum(X %*% X))\n";
    assert_eq!(run_dml_with("local.dml", src, &[]).unwrap(), "108.0\n");
    assert_eq!(
        run_dml_with("local.dml", src, &["--engine", "local"]).unwrap(),
        "108.0\n"
    );
    let err = run_dml_with("local.dml", src, &["--engine", "spark"]).unwrap_err();
    assert!(err.contains("datafusion"), "{err}");
}
