//! Sparse-driven (masked) evaluation: scripts whose `X * f(..)` (or SystemDS's weighted
//! division `t(W) %*% (X / (W %*% H))`) over a sparse X the search turns into masked
//! operators (catalogue operators such as `wcemm` and `wdivmm_left`, or `masked_mul` for
//! any element-wise tree) must print
//! the same numbers as the script as written, whether physical planning compiles the
//! masked operators into the masked kernels or runs them as written, and `--explain`
//! must show the masked operators.

mod common;

use common::values;
use std::process::Command;

use spores_dml::opt::{DagOptimizer, NoOptimizer, SporesOptimizer};
use spores_dml::{run_script, RunOptions};

fn run(src: &str, sized_planning: bool, optimized: bool) -> String {
    let optimizer: Box<dyn DagOptimizer> = if optimized {
        Box::new(SporesOptimizer::new(Default::default()))
    } else {
        Box::new(NoOptimizer)
    };
    let options = RunOptions {
        optimizer,
        sized_planning,
        explain: true,
        ..RunOptions::default()
    };
    run_script(src, options).unwrap_or_else(|e| panic!("{}", e.diagnostic().render("t.dml", src)))
}

/// Runs `src` with the full search in every block, however small (`--explain`), with or
/// without compiling the masked operators (`sized_planning`).
fn run_searched(src: &str, sized_planning: bool) -> String {
    let mut spores = SporesOptimizer::new(Default::default());
    spores.full_search().min_cost(0.0);
    let options = RunOptions {
        optimizer: Box::new(spores),
        sized_planning,
        explain: true,
        ..RunOptions::default()
    };
    run_script(src, options).unwrap_or_else(|e| panic!("{}", e.diagnostic().render("t.dml", src)))
}

/// Runs `src` with the full search in every block, however small (`--explain`).
fn run_full_search(src: &str) -> String {
    run_searched(src, true)
}

/// Runs `src` as written and under the full search (its masked operators compiled, and
/// run as written), checks the values agree and that the compiled plans use every
/// operator in `expect_ops`.
fn check(src: &str, expect_ops: &[&str]) {
    let plain = run(src, false, false);
    let unplanned = run_searched(src, false);
    common::assert_fused_agrees(&plain, &unplanned, 1e-9, "unplanned", src);
    let masked = run_full_search(src);
    let masked_plan = common::assert_fused_agrees(&plain, &masked, 1e-9, "masked", src);
    for op in expect_ops {
        assert!(
            masked_plan.iter().any(|l| l.contains(op)),
            "no {op} in\n{}",
            masked_plan.join("\n")
        );
    }
}

/// About 13% of X's rows are empty (0.99^200).
const SETUP: &str = r#"
X = rand(rows=300, cols=200, sparsity=0.01, min=1, max=5, seed=1)
W = rand(rows=300, cols=4, min=0.1, max=1, seed=2)
H = rand(rows=4, cols=200, min=0.1, max=1, seed=3)
"#;

#[test]
fn pnmf_iterations_match_the_unfused_plan() {
    let src = format!(
        "{SETUP}
for (i in 1:3) {{
  H = (H * (t(W) %*% (X / (W %*% H)))) / t(colSums(W))
  W = (W * ((X / (W %*% H)) %*% t(H))) / t(rowSums(H))
  obj = sum(W %*% H) - sum(X * log(W %*% H))
  print(\"v \" + obj)
}}
print(\"v \" + sum(W) + \" \" + sum(H) + \" \" + as.scalar(W[3, 2]) + \" \" + as.scalar(H[2, 5]))
"
    );
    check(&src, &["wdivmm_left(", "wdivmm_right(", "wcemm("]);
}

#[test]
fn products_on_either_side_and_untransposed_operands() {
    let src = format!(
        "{SETUP}
A = rand(rows=3, cols=300, min=-1, max=1, seed=4)
B = rand(rows=200, cols=5, min=-1, max=1, seed=5)
V = rand(rows=200, cols=4, min=0.1, max=1, seed=6)
L = A %*% (X * (1 / (W %*% t(V))))
R = (X * exp(W %*% H)) %*% B
print(\"v \" + sum(L) + \" \" + as.scalar(L[2, 7]) + \" \" + sum(R) + \" \" + as.scalar(R[11, 3]))
"
    );
    check(&src, &["masked_left_mm", "masked_right_mm"]);
}

#[test]
fn broadcast_leaves_shared_intermediates_and_the_mask_on_the_right() {
    let src = format!(
        "{SETUP}
S = rand(rows=300, cols=200, sparsity=0.2, min=-1, max=1, seed=7)
D = rand(rows=300, cols=200, min=-1, max=1, seed=8)
P = W %*% H
Y = (log(P + 1) - colSums(H) / 7 + rowSums(W) * S - 0.5 * D) * X
Z = X * sqrt(abs(D - P))
print(\"v \" + sum(Y) + \" \" + sum(Y ^ 2) + \" \" + sum(Z))
print(\"v \" + sum(P) + \" \" + as.scalar(Y[5, 9]))
"
    );
    check(&src, &["masked["]);
}

#[test]
fn non_finite_cells_agree() {
    // W %*% H - 1 has zeros, negatives and non-integers: log gives NaN/-Inf and the
    // division Inf at some of X's non-zeros, while X's zeros must still give 0.
    let src = format!(
        "{SETUP}
Q = W %*% round(H * 2)
print(\"v \" + sum(X * log(Q - 1)))
E = X / (Q - round(Q))
print(\"v \" + sum(t(W) %*% E) + \" \" + sum(E != 0))
F = X * (1 / (W %*% round(H)))
print(\"v \" + sum(F %*% t(H)))
"
    );
    check(&src, &["masked"]);
}

#[test]
fn dense_masks_are_left_alone() {
    let src = "X = rand(rows=50, cols=40, min=1, max=2, seed=1)\nW = rand(rows=50, cols=3, seed=2)\nH = rand(rows=3, cols=40, seed=3)\nprint(\"v \" + sum(X * log(W %*% H)))\n";
    let out = run(src, true, false);
    let (_, plan) = values(&out);
    assert!(!plan.iter().any(|l| l.contains("masked")), "{plan:#?}");
}

#[test]
fn explain_shows_the_masked_sum() {
    let dir = std::env::temp_dir().join(format!("spores-masked-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("masked_sum.dml");
    std::fs::write(
        &path,
        "X = rand(rows=400, cols=300, sparsity=0.01, min=1, max=5, seed=1)\n\
         W = rand(rows=400, cols=5, min=0.1, max=1, seed=2)\n\
         H = rand(rows=5, cols=300, min=0.1, max=1, seed=3)\n\
         print(sum(X * exp(-(W %*% H))))\n",
    )
    .unwrap();
    let explain = |flags: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_spores"))
            .args(["run", "--explain"])
            .args(flags)
            .arg(&path)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    // The search chooses `sum(masked_mul(X, exp(...)))`; planning compiles it with its sum.
    let text = explain(&["--full-search"]);
    assert!(text.contains("=> sum(masked_mul(_t7, exp("), "{text}");
    let line = text
        .lines()
        .find(|l| l.contains("masked_sum"))
        .unwrap_or_else(|| panic!("no masked_sum in\n{text}"));
    assert!(line.contains("exp("), "{line}");
    assert!(!text.contains("= %*%("), "{text}");
    // As written (`--no-opt`), the dense product is computed: planning chooses nothing.
    let text = explain(&["--no-opt"]);
    assert!(!text.contains("masked"), "{text}");
    assert!(text.contains("= %*%("), "{text}");
}

/// Masked evaluation of a low-rank product is an operator of the search: the optimizer
/// turns `X * (W %*% H)` into `sddmm` and the masked product feeding a product with the
/// factor into `wdivmm_mult` (SystemDS's wdivmm, multiply right), and the script prints
/// what the operators as written print.
#[test]
fn the_search_chooses_sddmm_and_wdivmm_for_masked_low_rank_products() {
    let src = format!(
        "{SETUP}
V = t(H)
for (i in 1:2) {{
  G = (X * (W %*% t(V))) %*% V
  S = X * (W %*% H)
  print(\"v \" + sum(G) + \" \" + sum(G * G) + \" \" + sum(S[1:40, ]))
}}
"
    );
    let plain = run(&src, false, false);
    let searched = run_full_search(&src);
    let plan = common::assert_fused_agrees(&plain, &searched, 1e-9, "wdivmm_mult", &src);
    for op in ["= wdivmm_mult(", "= sddmm("] {
        assert!(plan.iter().any(|l| l.contains(op)), "no {op} in {plan:#?}");
    }
}

/// PNMF's multiplicative updates and objective under the full search: the quotients are
/// `wdivmm_left` and `wdivmm_right` (SystemDS's wdivmm, divide) and the cross-entropy is
/// `wcemm`, chosen by extraction, and the script prints what the operators as written
/// print, also where `W %*% H0` has a zero column, which makes the quotient Inf at X's
/// non-zeros there and leaves its zeros at 0 (SystemDS's weighted division, read so in
/// the script as written too: `dag/weighted_division.rs`).
#[test]
fn the_search_chooses_wdivmm_left_and_right_for_pnmf() {
    let src = format!(
        "{SETUP}
H0 = H
H0[, 5] = matrix(0, rows=4, cols=1)
for (i in 1:2) {{
  H = (H * (t(W) %*% (X / (W %*% H)))) / t(colSums(W))
  W = (W * ((X / (W %*% H)) %*% t(H))) / t(rowSums(H))
  obj = sum(W %*% H) - sum(X * log(W %*% H))
  G = t(W) %*% (X / (W %*% H0))
  print(\"v \" + obj + \" \" + sum(W) + \" \" + sum(H) + \" \" + sum(G) + \" \" + sum(G[, 1:4]))
}}
"
    );
    let plain = run(&src, false, false);
    let searched = run_full_search(&src);
    let plan = common::assert_fused_agrees(&plain, &searched, 1e-9, "wdivmm", &src);
    for op in ["= wdivmm_left(", "= wdivmm_right(", "= wcemm("] {
        assert!(plan.iter().any(|l| l.contains(op)), "no {op} in {plan:#?}");
    }
    let (vals, _) = values(&plain);
    assert!(
        vals.iter().any(|v| v.is_infinite()),
        "the zero column makes Inf: {vals:?}"
    );
}

/// Trees no catalogue operator names are masked by the search too (`masked_mul`, chosen
/// by its price), and physical planning compiles them into the
/// masked kernels with their consumers; without planning (`--no-masked`) the operator
/// runs as written. All three print what the script as written prints, with the low-rank
/// product shared by three trees never formed.
#[test]
fn the_search_masks_trees_no_operator_names() {
    let src = format!(
        "{SETUP}
B = rand(rows=200, cols=5, min=-1, max=1, seed=5)
for (i in 1:2) {{
  R = (X * exp(W %*% H)) %*% B
  Z = X * (1 / (1 + abs(W %*% H)))
  s = sum(X * exp(-(W %*% H)))
  print(\"v \" + sum(R) + \" \" + as.scalar(R[11, 3]) + \" \" + sum(Z) + \" \" + s)
  W = W * 0.9
}}
"
    );
    let plain = run(&src, false, false);
    let searched = run_full_search(&src);
    let plan = common::assert_fused_agrees(&plain, &searched, 1e-9, "masked", &src);
    assert!(searched.contains("masked_mul(X, exp("), "{searched}");
    assert!(
        searched.matches("masked_mul(X, ").count() >= 2,
        "{searched}"
    );
    for op in ["masked_right_mm[", "masked[", "masked_sum["] {
        assert!(plan.iter().any(|l| l.contains(op)), "no {op} in {plan:#?}");
    }
    assert!(!plan.iter().any(|l| l.contains("%*%(")), "{plan:#?}");
    // The chosen operators without physical planning: `X * E`, `X / E` as written.
    let mut spores = SporesOptimizer::new(Default::default());
    spores.full_search().min_cost(0.0);
    let options = RunOptions {
        optimizer: Box::new(spores),
        sized_planning: false,
        explain: true,
        ..RunOptions::default()
    };
    let unplanned = run_script(&src, options).unwrap();
    assert!(unplanned.contains("masked_mul("), "{unplanned}");
    common::assert_fused_agrees(&plain, &unplanned, 1e-9, "masked_mul", &src);
}
