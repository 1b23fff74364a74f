//! Element-wise fusion: scripts whose chains of element-wise operators the planner fuses
//! into `fused_ew*` nodes must print the same numbers as the operators run one at a time
//! (`fuse_elementwise: false`), on dense, sparse, vector, 1x1 and empty operands, and
//! fail with the same errors.

mod common;

use common::values;
use spores_dml::{run_script, RunOptions, ScriptError};

fn run(src: &str, fuse: bool) -> Result<String, String> {
    let options = RunOptions {
        fuse_elementwise: fuse,
        explain: true,
        ..RunOptions::default()
    };
    run_script(src, options).map_err(|e| match e {
        ScriptError::Runtime(d) | ScriptError::Parse(d) => d.render("t.dml", src),
    })
}

/// Runs `src` (with `--explain`) with the optimizer's full search in every block, however small its data
/// (`spores run --full-search`): what extraction picks, where the default budget would
/// keep a root of a few hundred nanoseconds as written.
fn run_full_search(src: &str) -> Result<String, String> {
    let mut optimizer = spores_dml::opt::SporesOptimizer::new(Default::default());
    optimizer.min_cost(0.0).full_search();
    let options = RunOptions {
        optimizer: Box::new(optimizer),
        explain: true,
        ..RunOptions::default()
    };
    run_script(src, options).map_err(|e| match e {
        ScriptError::Runtime(d) | ScriptError::Parse(d) => d.render("t.dml", src),
    })
}

fn same(a: f64, b: f64) -> bool {
    common::same(a, b, 1e-10)
}

/// Runs `src` fused and unfused, checks the values agree and that the fused plan uses
/// every operator in `expect_ops` (and the unfused one none).
fn check(src: &str, expect_ops: &[&str]) {
    let (plain_out, fused_out) = (run(src, false).unwrap(), run(src, true).unwrap());
    let fused_plan = common::assert_fused_agrees(&plain_out, &fused_out, 1e-10, "fused_ew", src);
    for op in expect_ops {
        assert!(
            fused_plan.iter().any(|l| l.contains(&format!("= {op}["))),
            "no {op} in\n{}",
            fused_plan.join("\n")
        );
    }
}

#[test]
fn l2svm_line_search_chain() {
    check(
        r#"
        y = rand(rows=3000, cols=1, min=-1, max=1, seed=1)
        Xw = rand(rows=3000, cols=1, min=-1, max=1, seed=2)
        Xs = rand(rows=3000, cols=1, min=-1, max=1, seed=3)
        for (k in 1:2) {
          a = 0.5 * k
          out = 1 - y * (Xw + a * Xs)
          sv = out > 0
          d1 = 2 + a * 3 - sum(sv * out * y * Xs)
          d2 = 3 + sum(sv * Xs * Xs)
          print("v " + d1 + " " + d2 + " " + sum(out))
        }
        "#,
        &["fused_ew", "fused_ew_sum"],
    );
}

#[test]
fn row_and_column_sums_broadcasts_and_ifelse() {
    check(
        r#"
        E = rand(rows=500, cols=3, min=0, max=2, seed=4)
        r = rand(rows=1, cols=3, min=1, max=2, seed=5)
        c = rand(rows=500, cols=1, min=1, max=2, seed=6)
        for (k in 1:1) {
          P = exp(E - c) / c
          Q = rowSums(P * r + 1)
          S = colSums(abs(E - r) * c)
          T = ifelse(E > 1, E * 2, E - 1)
          print("v " + sum(P) + " " + sum(Q) + " " + sum(S) + " " + sum(T))
          print("v " + as.scalar(Q[7, 1]) + " " + as.scalar(S[1, 2]) + " " + as.scalar(T[3, 3]))
        }
        "#,
        &["fused_ew", "fused_ew_rowsums", "fused_ew_colsums"],
    );
}

#[test]
fn edge_shapes_and_sparse_operands() {
    check(
        r#"
        one = matrix(2.5, rows=1, cols=1)
        row = rand(rows=1, cols=7, min=-1, max=1, seed=7)
        col = rand(rows=9, cols=1, min=-1, max=1, seed=8)
        X = rand(rows=60, cols=40, min=1, max=2, sparsity=0.05, seed=9)
        D = rand(rows=60, cols=40, min=-1, max=1, seed=10)
        for (k in 1:1) {
          a = sum(abs(one * 2 - 1))
          b = sum((row - 1) ^ 2)
          c = sum(exp(col) * 0.5 + col)
          o = col * row + 1
          s = sum(abs(X * 2) + D)
          m = sum(X * D + X)
          i = 3 * k + 1
          j = sum((i * D) %% 2)
          print("v " + a + " " + b + " " + c + " " + sum(o) + " " + s + " " + m + " " + j)
        }
        "#,
        &["fused_ew_sum"],
    );
}

#[test]
fn empty_matrices() {
    check(
        r#"
        Z = matrix(0, rows=0, cols=4)
        W = matrix(0, rows=5, cols=0)
        for (k in 1:1) {
          print("v " + sum(Z * 2 + 1) + " " + sum(W - 3 * W) + " " + nrow(rowSums(exp(W) + 1)))
        }
        "#,
        &["fused_ew_sum"],
    );
}

#[test]
fn shape_errors_are_the_unfused_ones() {
    let src = r#"
        A = rand(rows=3, cols=4, seed=1)
        B = rand(rows=4, cols=3, seed=2)
        for (k in 1:1) {
          C = (A + 1) * (B - 1)
          print(sum(C))
        }
        "#;
    let (plain, fused) = (run(src, false).unwrap_err(), run(src, true).unwrap_err());
    assert!(plain.contains("3x4") && plain.contains("4x3"), "{plain}");
    assert_eq!(
        plain.lines().next(),
        fused.lines().next(),
        "{plain}\n---\n{fused}"
    );
}

#[test]
fn mmchain_is_chosen_and_falls_back_on_other_shapes() {
    // GLM's Hessian-vector product, and the same chain with a scalar and a full `w`.
    check(
        r#"
        X = rand(rows=300, cols=40, min=0, max=1, sparsity=0.1, seed=1)
        d = rand(rows=40, cols=1, min=-1, max=1, seed=2)
        mu = rand(rows=300, cols=1, min=0, max=2, seed=3)
        D = rand(rows=40, cols=3, min=-1, max=1, seed=4)
        P = rand(rows=300, cols=3, min=0, max=1, seed=5)
        for (k in 1:1) {
          Hd = t(X) %*% (mu * (X %*% d)) + 0.5 * d
          H2 = t(X) %*% ((X %*% d) * 2)
          H3 = t(X) %*% (P * (X %*% D))
          H4 = t(X) %*% (X %*% d)
          H5 = t(X) %*% (X %*% D)
          print("v " + sum(Hd) + " " + sum(Hd ^ 2) + " " + sum(H2) + " " + sum(H3 * H3))
          print("v " + sum(H4) + " " + sum(H4 ^ 2) + " " + sum(H5 * H5))
        }
        "#,
        &[],
    );
    // The search picks it (extraction, not a pattern matched after it); on data this
    // small only the full search looks.
    let out = run_full_search(
        "X = rand(rows=30, cols=4, seed=1)\nd = rand(rows=4, cols=1, seed=2)\nw = rand(rows=30, cols=1, seed=3)\nfor (k in 1:1) {\n  print(sum(t(X) %*% (w * (X %*% d))))\n}\n",
    )
    .unwrap();
    assert!(out.contains("mmchain("), "{out}");
    // Without a weight (`X.T @ (X @ v)`): one pass over a sparse X for a vector `v`
    // (for a dense one the two mat-vecs are priced the same, and stay).
    let out = run_full_search(
        "X = rand(rows=300, cols=40, sparsity=0.1, seed=1)\nd = rand(rows=40, cols=1, seed=2)\nfor (k in 1:1) {\n  print(sum(t(X) %*% (X %*% d)))\n}\n",
    )
    .unwrap();
    assert!(out.contains("mmchain("), "{out}");
    // Against the chain as written: a product that is also a block output is a value
    // of its own (a leaf of the other root), so `t(X) %*% (w * q)` runs as written.
    let out = run_full_search(
        r#"
        X = rand(rows=300, cols=40, min=0, max=1, sparsity=0.1, seed=1)
        d = rand(rows=40, cols=1, min=-1, max=1, seed=2)
        mu = rand(rows=300, cols=1, min=0, max=2, seed=3)
        for (k in 1:1) {
          Hd = t(X) %*% (mu * (X %*% d))
          print("v " + sum(Hd) + " " + sum(Hd ^ 2))
        }
        for (k in 1:1) {
          q = X %*% d
          Hd = t(X) %*% (mu * q)
          print("v " + sum(Hd) + " " + sum(Hd ^ 2))
        }
        for (k in 1:1) {
          H = t(X) %*% (X %*% d)
          print("v " + sum(H) + " " + sum(H ^ 2))
        }
        for (k in 1:1) {
          q = X %*% d
          H = t(X) %*% q
          print("v " + sum(H) + " " + sum(H ^ 2))
        }
        "#,
    )
    .unwrap();
    let (vals, plan) = values(&out);
    assert_eq!(
        plan.iter().filter(|l| l.contains("mmchain(")).count(),
        2,
        "{out}"
    );
    assert_eq!(vals.len(), 8);
    for (fused, written) in [(0, 2), (1, 3), (4, 6), (5, 7)] {
        assert!(same(vals[fused], vals[written]), "{vals:?}");
    }
}
