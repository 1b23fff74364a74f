//! The benchmark cases of `bench/mlir` (DialEgg's five, and matmul chains): each optimized
//! program verifies with `mlir-opt-19`, has the expected shape (the rule did or did not apply),
//! and, lowered to LLVM and run with `mlir-cpu-runner-19`, prints what the original prints.
//! Chains must come out in the optimal association (the O(n^3) matrix-chain DP).
//! Skips with a notice when the MLIR tools are not installed.

use std::path::PathBuf;

use spores_mlir::egg::{all_ops, optimize, Extractor, OptOptions};
use spores_mlir::ir::Operation;
use spores_mlir::runner::{
    agree, find_toolchain, numbers, optimal_chain_cost, split_times, Toolchain, REPS,
};
use spores_mlir::{load, print, verify_text, LoadOptions, Module, PrintOptions, Type};

fn bench_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../bench/mlir")
}

fn optimized(case: &str, rules: &str) -> (Module, Module) {
    let dir = bench_dir();
    let m = load(
        dir.join("cases").join(format!("{case}.mlir")),
        &LoadOptions::default(),
    )
    .expect("case loads");
    let text = std::fs::read_to_string(dir.join(rules)).expect("rules");
    let (out, _) = optimize(&m, &text, rules, &OptOptions::default()).expect("optimizes");
    (m, out)
}

fn toolchain(test: &str) -> Option<Toolchain> {
    let t = find_toolchain();
    if t.is_none() {
        eprintln!(
            "note: {test} skipped: mlir-opt-19 / mlir-cpu-runner-19 / libmlir-19 not installed"
        );
    }
    t
}

/// The `func.func` named `name`.
fn find_func<'m>(m: &'m Module, name: &str) -> &'m Operation {
    all_ops(&m.ops)
        .into_iter()
        .find(|o| {
            o.name == "func.func" && o.attr("sym_name").and_then(|a| a.as_str()) == Some(name)
        })
        .expect("function exists")
}

/// The ops of function `name` (all nesting levels).
fn func_ops<'m>(m: &'m Module, name: &str) -> Vec<&'m Operation> {
    find_func(m, name)
        .regions
        .iter()
        .flat_map(|r| &r.blocks)
        .flat_map(|b| all_ops(&b.ops))
        .collect()
}

fn count(ops: &[&Operation], name: &str) -> usize {
    ops.iter().filter(|o| o.name == name).count()
}

/// How many of `ops` are each of `names`.
fn counts(ops: &[&Operation], names: &[&str]) -> Vec<usize> {
    names.iter().map(|n| count(ops, n)).collect()
}

/// How many operations of function `kernel` in `m` are each of `names`.
fn kernel_counts(m: &Module, names: &[&str]) -> Vec<usize> {
    counts(&func_ops(m, "kernel"), names)
}

fn dims(t: &Type) -> (u64, u64) {
    let s = t.shape().expect("shaped");
    (s[0].expect("static"), s[1].expect("static"))
}

/// Multiply-adds of the matmuls in `@kernel`.
fn matmul_work(m: &Module) -> u64 {
    func_ops(m, "kernel")
        .iter()
        .filter(|o| o.name == "linalg.matmul")
        .map(|o| {
            let (a, b) = dims(&o.operand_types[0]);
            let (_, c) = dims(&o.operand_types[1]);
            a * b * c
        })
        .sum()
}

/// The optimal number of multiply-adds for a chain with these dimensions.
fn chain_dp(d: &[u64]) -> u64 {
    optimal_chain_cost(d).expect("a chain of at least one product")
}

/// The chain dimensions from `@kernel`'s argument types.
fn kernel_dims(m: &Module) -> Vec<u64> {
    let args = &find_func(m, "kernel").regions[0].blocks[0].args;
    let mut d = vec![dims(&args[0].ty).0];
    d.extend(args.iter().map(|a| dims(&a.ty).1));
    d
}

fn run_both(tc: &Toolchain, before: &Module, after: &Module, rel: f64) {
    let run = |m: &Module| {
        let text = print(m, PrintOptions::default());
        let lowered = tc.lower(&text).expect("lowers");
        let out = tc.run(&lowered).expect("runs");
        let (body, _) = split_times(&out, REPS).expect("kernel times end the output");
        numbers(&body)
    };
    let (a, b) = (run(before), run(after));
    assert!(!a.is_empty());
    agree(&a, &b, rel).expect("original and optimized print the same results");
}

#[test]
fn chains_reach_the_dp_optimum() {
    let tool = spores_mlir::find_mlir_opt();
    for (case, rules) in [
        ("2mm", "matmul.egg"),
        ("3mm", "matmul.egg"),
        ("10mm", "matmul.egg"),
        ("2mm", "matmul_chain.egg"),
        ("3mm", "matmul_chain.egg"),
        ("10mm", "matmul_chain.egg"),
        ("20mm", "matmul_chain.egg"),
        ("40mm", "matmul_chain.egg"),
        ("80mm", "matmul_chain.egg"),
        ("20mm", "matmul_chain_full.egg"),
    ] {
        let (before, after) = optimized(case, rules);
        let d = kernel_dims(&before);
        let best = chain_dp(&d);
        assert_eq!(matmul_work(&after), best, "{case} with {rules}: dims {d:?}");
        assert!(matmul_work(&before) >= best);
        assert_eq!(
            count(&func_ops(&after, "kernel"), "linalg.matmul"),
            d.len() - 2
        );
        if let Some(t) = &tool {
            verify_text(t, &print(&after, PrintOptions::default())).expect("verifies");
        }
    }
    // The paper's 2MM example: 270,000 multiplications become 20,000.
    let (before, after) = optimized("2mm", "matmul.egg");
    assert_eq!(
        (matmul_work(&before), matmul_work(&after)),
        (270_000, 20_000)
    );
}

#[test]
fn ilp_extraction_agrees_with_greedy_on_chains() {
    let dir = bench_dir();
    let m = load(dir.join("cases/3mm.mlir"), &LoadOptions::default()).expect("loads");
    let rules = std::fs::read_to_string(dir.join("matmul.egg")).expect("rules");
    let opts = OptOptions {
        extractor: Extractor::Ilp(std::time::Duration::from_secs(5)),
        ..OptOptions::default()
    };
    let (out, stats) = optimize(&m, &rules, "matmul.egg", &opts).expect("optimizes");
    assert_eq!(matmul_work(&out), chain_dp(&kernel_dims(&m)));
    let (_, greedy) = optimize(&m, &rules, "matmul.egg", &OptOptions::default()).expect("greedy");
    assert!(stats.cost <= greedy.cost);
}

#[test]
fn chains_run_identically() {
    let Some(tc) = toolchain("chains_run_identically") else {
        return;
    };
    for (case, rules) in [
        ("2mm", "matmul.egg"),
        ("3mm", "matmul.egg"),
        ("20mm", "matmul_chain.egg"),
        ("40mm", "matmul_chain.egg"),
    ] {
        let (before, after) = optimized(case, rules);
        run_both(&tc, &before, &after, 0.0);
    }
}

#[test]
fn grayscale_shifts_only_where_valid() {
    // Unsigned bytes: the sum is provably non-negative, division becomes one shift.
    let (before, after) = optimized("grayscale", "grayscale.egg");
    assert_eq!(
        kernel_counts(&after, &["arith.divsi", "arith.shrsi", "arith.shrui"]),
        [0, 1, 0]
    );
    // Signed bytes: negative sums; the exact fix-up sequence is used instead.
    let (sb, sa) = optimized("grayscale_signed", "grayscale.egg");
    assert_eq!(
        kernel_counts(&sa, &["arith.divsi", "arith.shrsi", "arith.shrui"]),
        [0, 2, 1]
    );
    let Some(tc) = toolchain("grayscale_shifts_only_where_valid (run)") else {
        return;
    };
    run_both(&tc, &before, &after, 0.0);
    run_both(&tc, &sb, &sa, 0.0);
}

#[test]
fn vecnorm_uses_fast_inverse_sqrt_only_under_fastmath() {
    let counts = |m: &Module| {
        let k = func_ops(m, "kernel");
        (
            count(&k, "func.call"),
            count(&k, "math.sqrt"),
            count(&k, "arith.divf"),
            count(&k, "math.rsqrt"),
        )
    };
    // The paper's cost model: the call.
    let (before, after) = optimized("vecnorm", "vecnorm_paper.egg");
    assert_eq!(counts(&after), (1, 0, 0, 0));
    // This machine's cost model: math.rsqrt (what LLVM compiles 1/sqrt to anyway).
    let (_, rs) = optimized("vecnorm", "vecnorm.egg");
    assert_eq!(counts(&rs), (0, 0, 0, 1));
    // Without fastmath neither rewrite applies.
    for rules in ["vecnorm.egg", "vecnorm_paper.egg"] {
        let (_, na) = optimized("vecnorm_nofast", rules);
        assert_eq!(counts(&na), (0, 1, 1, 0), "{rules}");
    }
    let (nb, na) = optimized("vecnorm_nofast", "vecnorm.egg");
    let Some(tc) = toolchain("vecnorm_uses_fast_inverse_sqrt_only_under_fastmath (run)") else {
        return;
    };
    for m in [&after, &rs] {
        verify_text(&tc.mlir_opt, &print(m, PrintOptions::default())).expect("verifies");
    }
    // One Newton step: relative error below 0.2%.
    run_both(&tc, &before, &after, 2e-3);
    run_both(&tc, &before, &rs, 2e-3);
    run_both(&tc, &nb, &na, 0.0);
}

#[test]
fn polynomial_becomes_horner() {
    let (before, after) = optimized("poly", "poly.egg");
    assert_eq!(
        kernel_counts(&after, &["math.powf", "arith.mulf", "arith.addf"]),
        [0, 3, 3]
    );
    let Some(tc) = toolchain("polynomial_becomes_horner (run)") else {
        return;
    };
    run_both(&tc, &before, &after, 1e-9);
}
