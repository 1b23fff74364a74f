//! Differential testing of the optimizer: random well-shaped LA expressions over sparse
//! and dense inputs are run end to end (lowering, size propagation, saturation, plan
//! verification, rebuild with fused kernels, execution) with and without the optimizer,
//! and must print the same checksums.
//!
//! `SPORES_DIFF_CASES=5000 cargo test --release --test differential` runs more cases.

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
mod common;

use spores::{run_script, RunOptions};

/// Shapes the generator builds expressions for: m = 7, n = 5, k = 3.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Shape {
    MN,
    MK,
    NK,
    M1,
    N1,
    Scalar,
}

/// A random expression of the given shape, as DML text.
fn expr(shape: Shape, depth: u32) -> BoxedStrategy<String> {
    use Shape::*;
    let leaf: BoxedStrategy<String> = match shape {
        MN => prop_oneof![
            Just("X".to_string()),
            Just("Y".to_string()),
            Just("Z".to_string())
        ]
        .boxed(),
        MK => Just("U".to_string()).boxed(),
        NK => Just("V".to_string()).boxed(),
        M1 => Just("u".to_string()).boxed(),
        N1 => Just("v".to_string()).boxed(),
        Scalar => prop_oneof![
            Just("s".to_string()),
            Just("2".to_string()),
            Just("0.5".to_string())
        ]
        .boxed(),
    };
    if depth == 0 {
        return leaf;
    }
    let same = move || expr(shape, depth - 1);
    let sub = move |s: Shape| expr(s, depth - 1);
    let binary = (same(), same(), prop_oneof![Just("+"), Just("-"), Just("*")])
        .prop_map(|(a, b, op)| format!("({a} {op} {b})"))
        .boxed();
    let scaled = (sub(Scalar), same())
        .prop_map(|(s, a)| format!("({s} * {a})"))
        .boxed();
    let squared = same().prop_map(|a| format!("({a})^2")).boxed();
    let negated = same().prop_map(|a| format!("-({a})")).boxed();
    let opaque = same().prop_map(|a| format!("abs({a})")).boxed();
    let specific: BoxedStrategy<String> = match shape {
        MN => prop_oneof![
            (sub(MK), sub(NK)).prop_map(|(a, b)| format!("{a} %*% t({b})")),
            (sub(MN), sub(M1)).prop_map(|(a, b)| format!("({a} * {b})")),
            (sub(MN), sub(N1)).prop_map(|(a, b)| format!("({a} * t({b}))")),
            (sub(M1), sub(N1)).prop_map(|(a, b)| format!("{a} %*% t({b})")),
            // Broadcasting a row vector, fills, outer products, division by a size.
            (sub(MN), sub(N1), prop_oneof![Just("+"), Just("-")])
                .prop_map(|(a, b, op)| format!("({a} {op} t({b}))")),
            (sub(Scalar), sub(MN))
                .prop_map(|(s, a)| { format!("(matrix({s}, rows=nrow(X), cols=ncol(X)) * {a})") }),
            sub(MN).prop_map(|a| format!("({a} + matrix(0, 7, ncol(Y)))")),
            (
                sub(M1),
                sub(N1),
                prop_oneof![Just("*"), Just("+"), Just("-")]
            )
                .prop_map(|(a, b, op)| format!("outer({a}, t({b}), \"{op}\")")),
            sub(MN).prop_map(|a| format!("({a} / nrow(X))")),
        ]
        .boxed(),
        MK => prop_oneof![
            (sub(MN), sub(NK)).prop_map(|(a, b)| format!("{a} %*% {b}")),
            (sub(MK), sub(NK), sub(NK)).prop_map(|(a, b, c)| format!("{a} %*% (t({b}) %*% {c})")),
        ]
        .boxed(),
        NK => prop_oneof![(sub(MN), sub(MK)).prop_map(|(a, b)| format!("t({a}) %*% {b}"))].boxed(),
        M1 => prop_oneof![
            sub(MN).prop_map(|a| format!("rowSums({a})")),
            (sub(MN), sub(N1)).prop_map(|(a, b)| format!("{a} %*% {b}")),
            sub(MN).prop_map(|a| format!("rowMeans({a})")),
            (sub(MK), sub(MK)).prop_map(|(a, b)| format!("diag({a} %*% t({b}))")),
        ]
        .boxed(),
        N1 => prop_oneof![
            sub(MN).prop_map(|a| format!("t(colSums({a}))")),
            (sub(MN), sub(M1)).prop_map(|(a, b)| format!("t({a}) %*% {b}")),
            sub(MN).prop_map(|a| format!("t(colMeans({a}))")),
        ]
        .boxed(),
        Scalar => prop_oneof![
            sub(MN).prop_map(|a| format!("sum({a})")),
            sub(MK).prop_map(|a| format!("sum({a})")),
            (sub(M1), sub(M1)).prop_map(|(a, b)| format!("as.scalar(t({a}) %*% {b})")),
            sub(MN).prop_map(|a| format!("mean({a})")),
            (sub(MK), sub(MK)).prop_map(|(a, b)| format!("trace(t({a}) %*% {b})")),
            (sub(MN), sub(N1)).prop_map(|(a, b)| format!("sum({a} + t({b}))")),
            sub(MN).prop_map(|a| format!("max({a})")),
        ]
        .boxed(),
    };
    prop_oneof![1 => leaf, 3 => specific, 2 => binary, 1 => scaled, 1 => squared, 1 => negated, 1 => opaque].boxed()
}

/// The script: seeded inputs (X sparse, Y dense, Z all zero), the expression in a block
/// of its own, then checksums of its value weighted by a fixed random matrix.
fn script(e: &str, shape: Shape) -> String {
    let (rows, cols) = match shape {
        Shape::MN => (7, 5),
        Shape::MK => (7, 3),
        Shape::NK => (5, 3),
        Shape::M1 => (7, 1),
        Shape::N1 => (5, 1),
        Shape::Scalar => (1, 1),
    };
    format!(
        "X = rand(rows=7, cols=5, sparsity=0.2, min=-1, max=1, seed=1)
Y = rand(rows=7, cols=5, min=-1, max=1, seed=2)
Z = matrix(0, rows=7, cols=5)
U = rand(rows=7, cols=3, min=-1, max=1, seed=3)
V = rand(rows=5, cols=3, min=-1, max=1, seed=4)
u = rand(rows=7, cols=1, min=-1, max=1, seed=5)
v = rand(rows=5, cols=1, min=-1, max=1, seed=6)
s = 1.5
Wt = rand(rows={rows}, cols={cols}, min=-1, max=1, seed=7)
while(FALSE){{}}
R = as.matrix({e})
while(FALSE){{}}
print(sum(R))
print(sum(R * Wt))
print(sum(abs(R)))
"
    )
}

/// Two expressions in one block (so the optimizer sees two roots, saturated in one
/// e-graph and extracted jointly), each checksummed after the block.
fn script2(e1: &str, e2: &str) -> String {
    let one = script(e1, Shape::Scalar);
    let (head, _) = one.split_once("R = as.matrix(").expect("script layout");
    format!(
        "{head}R = as.matrix({e1})
R2 = as.matrix({e2})
while(FALSE){{}}
print(sum(R))
print(sum(abs(R)))
print(sum(R2))
print(sum(abs(R2)))
"
    )
}

/// The checksums printed, and how many subgraphs the optimizer replaced (read from the
/// `--explain` notes, so the test can tell that plans really changed).
fn run(src: &str, optimized: bool) -> Result<(Vec<f64>, usize), String> {
    let optimizer = common::optimizer(optimized);
    let options = RunOptions {
        optimizer,
        explain: true,
        ..RunOptions::default()
    };
    let out = run_script(src, options).map_err(|e| e.diagnostic().render("case.dml", src))?;
    let rewritten = out
        .lines()
        .filter(|l| l.trim_start().starts_with("=> "))
        .count();
    let numbers = out.lines().filter_map(|l| l.trim().parse().ok()).collect();
    Ok((numbers, rewritten))
}

#[test]
fn optimized_plans_agree_with_unoptimized_ones() {
    let cases = std::env::var("SPORES_DIFF_CASES")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(300);
    let shapes = prop_oneof![
        Just(Shape::MN),
        Just(Shape::MK),
        Just(Shape::NK),
        Just(Shape::M1),
        Just(Shape::N1),
        Just(Shape::Scalar)
    ];
    let strategy = shapes.prop_flat_map(|s| (Just(s), expr(s, 3)));
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    });
    let rewritten_cases = std::cell::Cell::new(0usize);
    runner
        .run(&strategy, |(shape, e)| {
            let src = script(&e, shape);
            let (plain, _) = run(&src, false).map_err(TestCaseError::fail)?;
            let (optimized, rewrites) = run(&src, true).map_err(TestCaseError::fail)?;
            prop_assert_eq!(plain.len(), 3, "{}", e);
            prop_assert_eq!(optimized.len(), 3, "{}", e);
            rewritten_cases.set(rewritten_cases.get() + usize::from(rewrites > 0));
            let scale = plain[2].abs().max(1.0);
            for (k, (a, b)) in plain.iter().zip(&optimized).enumerate() {
                let ok = (a - b).abs() <= 1e-9 * scale || (a.is_nan() && b.is_nan());
                prop_assert!(
                    ok,
                    "checksum {k} differs for `{e}`: {a} unoptimized vs {b} optimized"
                );
            }
            Ok(())
        })
        .unwrap();
    // Most random expressions have something to rewrite; if almost none did, the test
    // would be comparing the unoptimized plan with itself.
    let share = rewritten_cases.get() as f64 / cases as f64;
    assert!(
        share > 0.3,
        "only {:.0}% of cases ran a rewritten plan",
        share * 100.0
    );
    eprintln!(
        "{:.0}% of {cases} cases ran a rewritten plan",
        share * 100.0
    );
}

#[test]
fn two_roots_in_one_block_agree_with_unoptimized_ones() {
    let cases = std::env::var("SPORES_DIFF_CASES")
        .ok()
        .and_then(|c| c.parse::<u32>().ok())
        .map_or(60, |c| (c / 5).max(1));
    let shapes = prop_oneof![Just(Shape::MN), Just(Shape::M1), Just(Shape::Scalar)];
    let strategy = shapes.prop_flat_map(|s| (expr(s, 3), expr(Shape::Scalar, 3)));
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    });
    runner
        .run(&strategy, |(e1, e2)| {
            let src = script2(&e1, &e2);
            let (plain, _) = run(&src, false).map_err(TestCaseError::fail)?;
            let (optimized, _) = run(&src, true).map_err(TestCaseError::fail)?;
            prop_assert_eq!(plain.len(), 4, "{} / {}", e1, e2);
            prop_assert_eq!(optimized.len(), 4, "{} / {}", e1, e2);
            for (k, (a, b)) in plain.iter().zip(&optimized).enumerate() {
                let scale = plain[k / 2 * 2 + 1].abs().max(1.0);
                let ok = (a - b).abs() <= 1e-9 * scale || (a.is_nan() && b.is_nan());
                prop_assert!(
                    ok,
                    "checksum {k} differs for `{e1}` / `{e2}`: {a} unoptimized vs {b} optimized"
                );
            }
            Ok(())
        })
        .unwrap();
}

/// The same random expressions over inputs with NaN, ±Inf and all-zero rows (a cell of
/// one input poisoned per case, in the block before the expression, or made in the
/// expression's block by a division by zero): optimized and unoptimized runs print the
/// same checksums, NaN where one is NaN.
#[test]
fn non_finite_inputs_give_the_same_numbers_optimized_and_not() {
    let cases = std::env::var("SPORES_DIFF_CASES")
        .ok()
        .and_then(|c| c.parse::<u32>().ok())
        .map_or(120, |c| (c / 3).max(1));
    const POISONS: &[&str] = &[
        "X[2,3] = 1/0",
        "Y[1,1] = 0/0",
        "U[3,2] = -1/0",
        "V[5,1] = 1/0\nV[2,1] = -1/0",
        "Y[4,] = matrix(0, rows=1, cols=5)\nY[4,2] = 1/0",
        "u[7,1] = 0/0",
        "X[1,] = matrix(0, rows=1, cols=5)\nZ[3,4] = 1/0",
    ];
    let shapes = prop_oneof![Just(Shape::MN), Just(Shape::M1), Just(Shape::Scalar)];
    let strategy = (shapes, 0..POISONS.len(), any::<bool>())
        .prop_flat_map(|(s, p, same_block)| (Just(s), expr(s, 3), Just(p), Just(same_block)));
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    });
    runner
        .run(&strategy, |(shape, e, p, same_block)| {
            let clean = script(&e, shape);
            let (head, tail) = clean.split_once("R = as.matrix(").expect("script layout");
            let src = if same_block {
                format!("{head}{}\nR = as.matrix({tail}", POISONS[p])
            } else {
                let (inputs, _) = head.split_once("while(FALSE){}").expect("layout");
                format!(
                    "{inputs}{}\nwhile(FALSE){{}}\nR = as.matrix({tail}",
                    POISONS[p]
                )
            };
            let (plain, _) = run(&src, false).map_err(TestCaseError::fail)?;
            let (optimized, _) = run(&src, true).map_err(TestCaseError::fail)?;
            prop_assert_eq!(plain.len(), 3, "{}", src);
            prop_assert_eq!(optimized.len(), 3, "{}", src);
            for (k, (a, b)) in plain.iter().zip(&optimized).enumerate() {
                let scale = if plain[2].is_finite() {
                    plain[2].abs().max(1.0)
                } else {
                    1.0
                };
                let ok = (a.is_nan() && b.is_nan())
                    || a == b
                    || (a - b).abs() <= 1e-9 * scale.max(a.abs());
                prop_assert!(
                    ok,
                    "checksum {k} differs for `{e}` with `{}`: {a} unoptimized vs {b} optimized",
                    POISONS[p]
                );
            }
            Ok(())
        })
        .unwrap();
}
