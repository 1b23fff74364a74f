//! Differential testing of the optimizer: random well-shaped LA expressions over sparse
//! and dense inputs are run end to end (lowering, size propagation, saturation, plan
//! verification, rebuild with fused kernels, execution) with and without the optimizer,
//! and must print the same checksums.
//!
//! `SPORES_DIFF_CASES=5000 cargo test --release --test differential` runs more cases.

use std::collections::HashMap;

/// Proptest cases for a property: `default`, or `SPORES_DIFF_CASES / share` (at least 1)
/// when that is set (the costlier properties take a smaller share).
fn case_count(default: u32, share: u32) -> u32 {
    std::env::var("SPORES_DIFF_CASES")
        .ok()
        .and_then(|c| c.parse::<u32>().ok())
        .map_or(default, |c| (c / share).max(1))
}

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
mod common;
mod reference;

use reference::Val;
use spores_dml::runtime::Interpreter;
use spores_dml::{run_script, RunOptions, Value};
use spores_exec::{CsrMatrix, DenseMatrix, Matrix};

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

const SHAPES: [Shape; 6] = [
    Shape::MN,
    Shape::MK,
    Shape::NK,
    Shape::M1,
    Shape::N1,
    Shape::Scalar,
];

impl Shape {
    /// Rows and columns of a value of this shape.
    fn dims(self) -> (usize, usize) {
        match self {
            Shape::MN => (7, 5),
            Shape::MK => (7, 3),
            Shape::NK => (5, 3),
            Shape::M1 => (7, 1),
            Shape::N1 => (5, 1),
            Shape::Scalar => (1, 1),
        }
    }
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
            // Trees over the sparse X that only masked evaluation names (`masked_div`,
            // `masked_mul`); the denominators are at least 1, the exponent at most 0.
            sub(MN).prop_map(|a| format!("(X / (1 + abs({a})))")),
            sub(MN).prop_map(|a| format!("(X * exp(-abs({a})))")),
            // Blocks, reversed rows and slices, which the optimizer may push aggregates
            // and products through.
            (sub(MK), sub(MN)).prop_map(|(a, b)| format!("cbind({a}, ({b})[, 1:2])")),
            (sub(MN), sub(MN)).prop_map(|(a, b)| format!("rbind(({a})[1:3, ], ({b})[4:7, ])")),
            sub(MN).prop_map(|a| format!("rev({a})")),
            (sub(MK), sub(NK)).prop_map(|(a, b)| format!("({a} %*% t({b}))[, 1:5]")),
            // Products with a diagonal matrix, which the optimizer may turn into scalings.
            (sub(M1), sub(MN)).prop_map(|(a, b)| format!("(diag({a}) %*% {b})")),
            (sub(MN), sub(N1)).prop_map(|(a, b)| format!("({a} %*% diag({b}))")),
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
            (sub(MN), sub(MN)).prop_map(|(a, b)| format!("diag({a} %*% t({b}))")),
            (sub(MN), sub(MK)).prop_map(|(a, b)| format!("rowSums(cbind({a}, {b}))")),
            (sub(MN), sub(M1)).prop_map(|(a, b)| format!("rowMaxs({a} + {b})")),
            sub(MN).prop_map(|a| format!("rowMaxs(exp(-abs({a})))")),
        ]
        .boxed(),
        N1 => prop_oneof![
            sub(MN).prop_map(|a| format!("t(colSums({a}))")),
            (sub(MN), sub(M1)).prop_map(|(a, b)| format!("t({a}) %*% {b}")),
            sub(MN).prop_map(|a| format!("t(colMeans({a}))")),
            (sub(MN), sub(MN)).prop_map(|(a, b)| format!("t(colSums(rbind({a}, ({b})[2:3, ])))")),
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
            (sub(MN), sub(Scalar)).prop_map(|(a, s)| format!("max({a} + {s})")),
            sub(MN).prop_map(|a| format!("min(3 * rev({a}))")),
            (sub(MN), sub(MK)).prop_map(|(a, b)| format!("sum(cbind({a}, {b}))")),
            sub(MN).prop_map(|a| format!("as.scalar(({a})[2, 3])")),
            (sub(MN), sub(MN)).prop_map(|(a, b)| format!("trace({a} %*% t({b}))")),
            // Extremes the optimizer moves through increasing functions and outer sums.
            sub(MN).prop_map(|a| format!("max(log(abs({a}) + 1))")),
            sub(MN).prop_map(|a| format!("min(sqrt({a} ^ 2 + 1))")),
            (sub(M1), sub(N1)).prop_map(|(a, b)| format!("max({a} + t({b}))")),
        ]
        .boxed(),
    };
    prop_oneof![1 => leaf, 3 => specific, 2 => binary, 1 => scaled, 1 => squared, 1 => negated, 1 => opaque].boxed()
}

/// The script: seeded inputs (X sparse, Y dense, Z all zero), the expression in a block
/// of its own, then checksums of its value weighted by a fixed random matrix.
fn script(e: &str, shape: Shape) -> String {
    let (rows, cols) = shape.dims();
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

/// Whether checksum `b` agrees with `a`, one of the three checksums `want` (the third
/// is a sum of absolute values, the scale of the others' rounding): both NaN, equal, or
/// within a relative 1e-9 of that scale.
fn checksums_agree(want: &[f64], a: f64, b: f64) -> bool {
    let scale = if want[2].is_finite() {
        want[2].abs().max(1.0)
    } else {
        1.0
    };
    (a.is_nan() && b.is_nan()) || a == b || (a - b).abs() <= 1e-9 * scale.max(a.abs())
}

#[test]
fn optimized_plans_agree_with_unoptimized_ones() {
    let cases = case_count(300, 1);
    let shapes = proptest::sample::select(SHAPES.to_vec());
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
    let cases = case_count(60, 5);
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
    let cases = case_count(120, 3);
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
                prop_assert!(
                    checksums_agree(&plain, *a, *b),
                    "checksum {k} differs for `{e}` with `{}`: {a} unoptimized vs {b} optimized",
                    POISONS[p]
                );
            }
            Ok(())
        })
        .unwrap();
}

/// The inputs of [`reference_case`]: name, rows, columns and share of non-zero cells.
const BOUND_INPUTS: &[(&str, usize, usize, f64)] = &[
    ("X", 7, 5, 0.3),
    ("Y", 7, 5, 1.0),
    ("Z", 7, 5, 0.0),
    ("U", 7, 3, 1.0),
    ("V", 5, 3, 1.0),
    ("u", 7, 1, 1.0),
    ("v", 5, 1, 1.0),
];

/// A NaN or ±Inf cell, or an all-zero row, put into one input.
#[derive(Clone, Debug)]
enum Poison {
    Cell(usize, usize, usize, f64),
    ZeroRow(usize, usize),
}

impl Poison {
    /// The statement that makes it in the block.
    fn statement(&self) -> String {
        match self {
            Poison::Cell(input, i, j, v) => {
                let value = if v.is_nan() {
                    "0/0"
                } else if *v > 0.0 {
                    "1/0"
                } else {
                    "-1/0"
                };
                format!("{}[{}, {}] = {value}", BOUND_INPUTS[*input].0, i + 1, j + 1)
            }
            Poison::ZeroRow(input, i) => {
                let (name, _, cols, _) = BOUND_INPUTS[*input];
                format!("{name}[{}, ] = matrix(0, rows=1, cols={cols})", i + 1)
            }
        }
    }

    /// Applies it to row-major `cells` of the input it names.
    fn apply(&self, values: &mut [Vec<f64>]) {
        match *self {
            Poison::Cell(input, i, j, v) => values[input][i * BOUND_INPUTS[input].2 + j] = v,
            Poison::ZeroRow(input, i) => {
                let cols = BOUND_INPUTS[input].2;
                values[input][i * cols..(i + 1) * cols].fill(0.0);
            }
        }
    }
}

/// One case's inputs: seeded values in [-1, 1] (X 30 % non-zero, Z all zeros), then up
/// to two NaN/±Inf cells and up to one all-zero row.
fn bound_values(seed: u64) -> (Vec<Vec<f64>>, Vec<Poison>) {
    let mut state = seed;
    let mut next = move || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    let values = BOUND_INPUTS
        .iter()
        .map(|&(_, rows, cols, density)| {
            (0..rows * cols)
                .map(|_| {
                    let keep = (next() % 1000) as f64 / 1000.0 < density;
                    let v = (next() % 2001) as f64 / 1000.0 - 1.0;
                    if keep {
                        v
                    } else {
                        0.0
                    }
                })
                .collect()
        })
        .collect();
    let mut poisons = Vec::new();
    for _ in 0..next() % 3 {
        let input = (next() % BOUND_INPUTS.len() as u64) as usize;
        let (_, rows, cols, _) = BOUND_INPUTS[input];
        let v = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY][(next() % 3) as usize];
        let (i, j) = (
            (next() % rows as u64) as usize,
            (next() % cols as u64) as usize,
        );
        poisons.push(Poison::Cell(input, i, j, v));
    }
    if next() % 2 == 0 {
        let input = (next() % BOUND_INPUTS.len() as u64) as usize;
        let i = (next() % BOUND_INPUTS[input].1 as u64) as usize;
        poisons.push(Poison::ZeroRow(input, i));
    }
    (values, poisons)
}

/// `cells` as an input value, stored sparse or dense.
fn stored(rows: usize, cols: usize, cells: &[f64], sparse: bool) -> Value {
    let dense = DenseMatrix::from_vec(rows, cols, cells.to_vec()).expect("sizes match");
    Value::matrix(if sparse {
        Matrix::Sparse(CsrMatrix::from_dense(&dense))
    } else {
        Matrix::Dense(dense)
    })
}

/// Runs `src` with `inputs` bound; the numbers printed, how many roots were rewritten
/// and whether a guard fell back to the root as written.
fn run_bound(
    src: &str,
    inputs: HashMap<String, Value>,
    optimized: bool,
) -> Result<(Vec<f64>, usize, bool), String> {
    let program = spores_lang::parse(src).map_err(|d| d.render("case.dml", src))?;
    let options = RunOptions {
        optimizer: common::optimizer(optimized),
        explain: true,
        ..RunOptions::default()
    };
    let mut out = Vec::new();
    let mut interp = Interpreter::new(&program, options, &mut out);
    let result = interp.run_with(&program, inputs);
    drop(interp);
    result.map_err(|d| d.render("case.dml", src))?;
    let out = String::from_utf8_lossy(&out);
    let rewritten = out
        .lines()
        .filter(|l| l.trim_start().starts_with("=> "))
        .count();
    let fell_back = out.contains("evaluated as written");
    let numbers = out.lines().filter_map(|l| l.trim().parse().ok()).collect();
    Ok((numbers, rewritten, fell_back))
}

/// The checksums of `e` by the reference evaluator (see `reference`).
fn reference_checksums(e: &str, env: &mut HashMap<String, Val>) -> Result<Vec<f64>, String> {
    let parse = |text: &str| spores_lang::parse_expr(text).map_err(|d| d.message.clone());
    let r = match reference::eval(&parse(e)?, env)? {
        Val::Scalar(v) => Val::Matrix {
            rows: 1,
            cols: 1,
            cells: vec![v],
        },
        m => m,
    };
    env.insert("R".into(), r);
    ["sum(R)", "sum(R * Wt)", "sum(abs(R))"]
        .iter()
        .map(|c| match reference::eval(&parse(c)?, env)? {
            Val::Scalar(v) => Ok(v),
            other => Err(format!("{c} gave {other:?}")),
        })
        .collect()
}

/// The random expressions over inputs with NaN, ±Inf and all-zero rows, each input
/// stored sparse or dense and then, with the same values, in the other format, and with
/// `s = 1 / d` computed in the expression's block (`d` is 0 in a third of the cases, so
/// `s` is Inf and the guards of the roots reading it fall back). The cells are poisoned
/// in the inputs (known when the block is optimized) or by statements in the block
/// (known only when it runs). Optimized and unoptimized runs in both formats print the
/// reference's checksums.
#[test]
fn non_finite_values_in_either_format_give_the_reference_numbers() {
    let cases = case_count(120, 3);
    let shapes = proptest::sample::select(
        SHAPES
            .into_iter()
            .filter(|&s| s != Shape::NK)
            .collect::<Vec<_>>(),
    );
    let strategy = (shapes, any::<u64>(), any::<bool>(), 0..3usize, any::<u8>()).prop_flat_map(
        |(s, seed, in_block, d, formats)| {
            (
                Just(s),
                expr(s, 3),
                Just(seed),
                Just(in_block),
                Just(d),
                Just(formats),
            )
        },
    );
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    });
    let (rewritten, fell_back) = (std::cell::Cell::new(0u32), std::cell::Cell::new(0u32));
    runner
        .run(&strategy, |(shape, e, seed, in_block, d, formats)| {
            let (rows, cols) = shape.dims();
            let (mut values, poisons) = bound_values(seed);
            let d = [2.0, 0.5, 0.0][d];
            let statements: Vec<String> = if in_block {
                poisons.iter().map(Poison::statement).collect()
            } else {
                poisons.iter().for_each(|p| p.apply(&mut values));
                Vec::new()
            };
            let weights: Vec<f64> = (0..rows * cols).map(|k| (k % 7) as f64 - 3.0).collect();
            let src = format!(
                "s = 1 / d\n{}\nR = as.matrix({e})\nwhile(FALSE){{}}\nprint(sum(R))\nprint(sum(R * Wt))\nprint(sum(abs(R)))\n",
                statements.join("\n")
            );
            if in_block {
                poisons.iter().for_each(|p| p.apply(&mut values));
            }
            let mut env: HashMap<String, Val> = BOUND_INPUTS
                .iter()
                .zip(&values)
                .map(|(&(name, rows, cols, _), cells)| {
                    let m = Val::Matrix { rows, cols, cells: cells.clone() };
                    (name.to_string(), m)
                })
                .collect();
            env.insert("s".into(), Val::Scalar(1.0 / d));
            env.insert("Wt".into(), Val::Matrix { rows, cols, cells: weights.clone() });
            let want = reference_checksums(&e, &mut env).map_err(TestCaseError::fail)?;
            let (untouched, _) = bound_values(seed);
            for flip in [false, true] {
                let mut inputs: HashMap<String, Value> = BOUND_INPUTS
                    .iter()
                    .zip(if in_block { &untouched } else { &values })
                    .enumerate()
                    .map(|(k, (&(name, rows, cols, _), cells))| {
                        let sparse = (formats >> k) & 1 == 1;
                        (name.to_string(), stored(rows, cols, cells, sparse != flip))
                    })
                    .collect();
                inputs.insert("d".into(), Value::Double(d));
                inputs.insert("Wt".into(), stored(rows, cols, &weights, false));
                for optimized in [false, true] {
                    let (got, rewrites, fallback) = run_bound(&src, inputs.clone(), optimized)
                        .map_err(TestCaseError::fail)?;
                    rewritten.set(rewritten.get() + u32::from(rewrites > 0));
                    fell_back.set(fell_back.get() + u32::from(fallback));
                    prop_assert_eq!(got.len(), 3, "{}", src);
                    for (k, (a, b)) in want.iter().zip(&got).enumerate() {
                        prop_assert!(
                            checksums_agree(&want, *a, *b),
                            "checksum {k}: reference {a}, {} {b} (formats {formats:#b}, flipped {flip}), poisons {poisons:?}\n{src}",
                            if optimized { "optimized" } else { "--no-opt" }
                        );
                    }
                }
            }
            Ok(())
        })
        .unwrap();
    eprintln!(
        "{} of {} optimized runs rewrote a root, {} fell back to a root as written",
        rewritten.get(),
        2 * cases,
        fell_back.get()
    );
    assert!(
        rewritten.get() > cases / 2,
        "too few rewrites to test the guards"
    );
    assert!(fell_back.get() > 0, "no guard ever fell back");
}
