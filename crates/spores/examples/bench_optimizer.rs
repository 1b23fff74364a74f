//! Optimizer benchmark (issue 3): how long the SPORES optimizer takes per expression and
//! per block DAG, and how much faster optimized plans run than unoptimized ones.
//!
//! ```sh
//! cargo run --release -p spores --example bench_optimizer            # both parts
//! cargo run --release -p spores --example bench_optimizer -- --runs 5
//! cargo run --release -p spores --example bench_optimizer -- --part3   # only part 3
//! cargo run --release -p spores --example bench_optimizer -- --part1 --only 'sum((X -'   # Part 1 rows containing a text
//! ```
//!
//! Part 1 optimizes the paper's expressions (shapes and sparsity as in §4.2) repeatedly
//! and reports the median and maximum time, the chosen plan and its estimated cost.
//! Part 2 runs every script in `examples/` with and without the optimizer through the
//! library and reports the optimizer's per-block time and the execution speedup.
//! Part 3 does the same for the classification workloads of `bench/workloads/` (MLR, GLM,
//! L2-SVM) on generated data of the sizes `bench/workloads.py` uses.

use std::path::Path;
use std::time::{Duration, Instant};

use spores_dml::opt::{DagOptimizer, NoOptimizer, SporesOptimizer};
use spores_dml::{Interpreter, RunOptions};
use spores_opt::la::{Dim, LaExpr, ShapeEnv};
use spores_opt::saturate::{optimize, OptimizeOptions};

/// The allocator the `spores` binary runs with, so the figures are the CLI's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn median(xs: &mut [f64]) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

/// Nodes in an expression.
fn size(e: &LaExpr) -> usize {
    let mut n = 1;
    e.for_each_child(|c| n += size(c));
    n
}

/// Operators (not leaves) in an expression.
fn operators(e: &LaExpr) -> usize {
    fn leaves(e: &LaExpr) -> usize {
        if matches!(e, LaExpr::Var(_) | LaExpr::Const(_)) {
            return 1;
        }
        let mut n = 0;
        e.for_each_child(|c| n += leaves(c));
        n
    }
    size(e) - leaves(e)
}

fn env(shapes: &[(&str, usize, usize)], nnz: &[(&str, f64)]) -> ShapeEnv {
    let mut env = ShapeEnv::default();
    for (name, r, c) in shapes {
        env.matrix(name, Dim::Known(*r), Dim::Known(*c));
    }
    for (name, n) in nnz {
        env.set_nnz(name, *n);
    }
    env
}

fn expressions(runs: usize, only: Option<&str>) {
    let (m, n, k) = (100_000, 50_000, 20);
    let sparse = m as f64 * n as f64 * 0.001;
    let fact = [("X", m, n), ("U", m, k), ("V", n, k)];
    let mut cases: Vec<(&str, &str, ShapeEnv)> = vec![
        (
            "sum((X - U %*% t(V))^2)",
            "sparse X",
            env(&fact, &[("X", sparse)]),
        ),
        ("sum((X - U %*% t(V))^2)", "dense X", env(&fact, &[])),
        (
            "sum((X + U %*% t(V))^2)",
            "sparse X",
            env(&fact, &[("X", sparse)]),
        ),
        (
            "sum(X * (U %*% t(V)))",
            "sparse X",
            env(&fact, &[("X", sparse)]),
        ),
        (
            "(U %*% t(V) - X) %*% V",
            "sparse X",
            env(&fact, &[("X", sparse)]),
        ),
        ("(U %*% t(V) - X) %*% V", "dense X", env(&fact, &[])),
        (
            "sum(W %*% H)",
            "dense",
            env(&[("W", m, k), ("H", k, n)], &[]),
        ),
        (
            "t(X) %*% (X %*% v)",
            "sparse X",
            env(&[("X", m, n), ("v", n, 1)], &[("X", sparse)]),
        ),
        (
            "t(X) %*% (w * (X %*% v))",
            "sparse X",
            env(&[("X", m, n), ("v", n, 1), ("w", m, 1)], &[("X", sparse)]),
        ),
        (
            "P * X - P * rowSums(P) * X",
            "P, X dense",
            env(&[("P", m, 1), ("X", m, k)], &[]),
        ),
        (
            "colSums(X * y)",
            "sparse X",
            env(&[("X", m, n), ("y", m, 1)], &[("X", sparse)]),
        ),
        (
            "rowSums(X %*% W)",
            "sparse X",
            env(&[("X", m, n), ("W", n, k)], &[("X", sparse)]),
        ),
        (
            "sum((X - U %*% t(V))^2) + 0.5 * (sum(U^2) + sum(V^2)) - sum(X * (U %*% t(V)))",
            "sparse X",
            env(&fact, &[("X", sparse)]),
        ),
    ];
    println!("## Part 1: the paper's expressions (m = {m}, n = {n}, k = {k}; sparse X has density 0.001)\n");
    cases.retain(|(text, _, _)| only.is_none_or(|o| text.contains(o)));
    table(&cases, &OptimizeOptions::default(), runs);
    // Roots `spores run` keeps as written (a `log`, `exp` or `/` inside) get the search
    // limited to the rules exact under NaN and Inf: fusion only.
    let pnmf = [("X", m, n), ("W", m, k), ("H", k, n)];
    let mut exact_cases: Vec<(&str, &str, ShapeEnv)> = vec![
        (
            "sum(X * log(W %*% H))",
            "sparse X",
            env(&pnmf, &[("X", sparse)]),
        ),
        (
            "sum(W %*% H) - sum(X * log(W %*% H))",
            "sparse X",
            env(&pnmf, &[("X", sparse)]),
        ),
        (
            "t(X) %*% (exp(X %*% b) * (X %*% v))",
            "sparse X",
            env(&[("X", m, n), ("b", n, 1), ("v", n, 1)], &[("X", sparse)]),
        ),
        (
            "rowSums(X * (U %*% t(V))) / rowSums(X)",
            "sparse X",
            env(&fact, &[("X", sparse)]),
        ),
    ];
    exact_cases.retain(|(text, _, _)| only.is_none_or(|o| text.contains(o)));
    println!("### Exact search only (`OptimizeOptions::exact`: roots kept as written)\n");
    let exact = OptimizeOptions {
        exact: true,
        ..OptimizeOptions::default()
    };
    table(&exact_cases, &exact, runs);
}

/// Optimizes each case `runs` times after a warm-up and prints the table rows and the
/// median of medians and maximum.
fn table(cases: &[(&str, &str, ShapeEnv)], options: &OptimizeOptions, runs: usize) {
    if cases.is_empty() {
        return;
    }
    println!("| expression | inputs | operators | median ms | max ms | plan | est. cost before -> after |");
    println!("| --- | --- | --- | --- | --- | --- | --- |");
    let options = options.clone();
    let mut all = Vec::new();
    for (text, what, env) in cases {
        let e = LaExpr::parse(text).expect("benchmark expressions parse");
        // One warm-up run: the first call on a thread parses the rule files.
        let first = optimize(&e, env, &options).expect("optimizes");
        let mut times: Vec<f64> = (0..runs)
            .map(|_| {
                let t = Instant::now();
                let _ = optimize(&e, env, &options);
                t.elapsed().as_secs_f64() * 1e3
            })
            .collect();
        let max = times.iter().cloned().fold(0.0, f64::max);
        let med = median(&mut times);
        all.push((med, max));
        println!(
            "| `{text}` | {what} | {} | {med:.1} | {max:.1} | `{}` | {:.2e} -> {:.2e} |",
            operators(&e),
            first.expr,
            first.cost_before,
            first.cost_after
        );
    }
    let mut meds: Vec<f64> = all.iter().map(|(m, _)| *m).collect();
    let worst = all.iter().map(|(_, x)| *x).fold(0.0, f64::max);
    println!(
        "\nOver all expressions: median of medians {:.1} ms, maximum {:.1} ms.\n",
        median(&mut meds),
        worst
    );
}

fn run_once(
    source: &str,
    program: &spores_lang::ast::Program,
    optimized: bool,
) -> (Duration, Duration, Vec<Duration>) {
    run_with(source, program, optimized, &Default::default())
}

fn run_with(
    source: &str,
    program: &spores_lang::ast::Program,
    optimized: bool,
    args: &std::collections::HashMap<String, String>,
) -> (Duration, Duration, Vec<Duration>) {
    let optimizer: Box<dyn DagOptimizer> = if optimized {
        // What the full search buys (the budget that keeps small runs from paying for
        // it is measured by bench/opt_overhead.py).
        let mut spores = SporesOptimizer::new(Default::default());
        spores.full_search();
        Box::new(spores)
    } else {
        Box::new(NoOptimizer)
    };
    let options = RunOptions {
        optimizer,
        args: args.clone(),
        ..RunOptions::default()
    };
    let mut sink = Vec::new();
    let started = Instant::now();
    let mut interp = Interpreter::new(program, options, &mut sink);
    interp
        .run(program)
        .unwrap_or_else(|d| panic!("{}", d.render("example", source)));
    let total = started.elapsed();
    let stats = std::mem::take(&mut interp.stats);
    (total, stats.compile, stats.optimize_times)
}

fn scripts(runs: usize) {
    println!("## Part 2: example scripts (their default sizes), optimized vs `--no-opt`\n");
    println!("| script | blocks optimized | per-block median ms | per-block max ms | exec ms, no-opt | exec ms, optimized | speedup (exec) | total ms, optimized |");
    println!("| --- | --- | --- | --- | --- | --- | --- | --- |");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    for name in ["loss", "als", "pnmf", "logreg", "l2svm"] {
        let source = std::fs::read_to_string(root.join(format!("examples/{name}.dml")))
            .expect("example exists");
        let program = spores_lang::parse(&source).expect("example parses");
        let mut plain = Vec::new();
        let mut opt = Vec::new();
        let mut opt_total = Vec::new();
        let mut block_ms = Vec::new();
        for _ in 0..runs {
            let (total, compile, _) = run_once(&source, &program, false);
            plain.push((total - compile).as_secs_f64() * 1e3);
            let (total, compile, blocks) = run_once(&source, &program, true);
            opt.push((total - compile).as_secs_f64() * 1e3);
            opt_total.push(total.as_secs_f64() * 1e3);
            block_ms = blocks.iter().map(|d| d.as_secs_f64() * 1e3).collect();
        }
        let (p, o) = (median(&mut plain), median(&mut opt));
        let max_block = block_ms.iter().cloned().fold(0.0, f64::max);
        println!(
            "| {name} | {} | {:.2} | {:.1} | {p:.1} | {o:.1} | {:.2}x | {:.1} |",
            block_ms.len(),
            median(&mut block_ms.clone()),
            max_block,
            p / o,
            median(&mut opt_total)
        );
    }
    println!();
}

/// The classification inputs of `bench/workloads.py` (a sparse `n x d` X with values in
/// [0, 1), and -1/+1 labels, Poisson counts and one-hot classes derived from random
/// weights), written as Matrix Market files into `dir`.
fn classification_data(dir: &Path, n: usize, d: usize, density: f64) {
    use spores_exec::kernels::matmul::matmul;
    use spores_exec::matrix::{rand_matrix, DenseMatrix, Matrix, RandSpec};
    let rand = |rows, cols, min, max, sparsity, seed| {
        rand_matrix(&RandSpec::uniform(rows, cols, (min, max), sparsity, seed))
            .expect("valid rand spec")
    };
    let x = rand(n, d, 0.0, 1.0, density, 41);
    let score = |cols: usize, half: f64, seed| {
        matmul(&x, &rand(d, cols, -half, half, 1.0, seed))
            .expect("shapes fit")
            .into_dense()
    };
    let w = score(1, 1.0, 42);
    let pm1 = DenseMatrix::from_fn(n, 1, |i, _| if w.get(i, 0) > 0.0 { 1.0 } else { -1.0 });
    let eta = score(1, 0.5, 43);
    // Deterministic stand-in for Poisson draws: the rounded mean.
    let count = DenseMatrix::from_fn(n, 1, |i, _| eta.get(i, 0).exp().round());
    let b = score(3, 1.0, 44);
    let class = |i: usize| {
        (0..3).fold(0, |best, k| {
            if b.get(i, k) > b.get(i, best) {
                k
            } else {
                best
            }
        })
    };
    let y = DenseMatrix::from_fn(n, 3, |i, k| f64::from(u8::from(class(i) == k)));
    std::fs::create_dir_all(dir).expect("data directory");
    for (name, m) in [
        ("C", x),
        ("C_pm1", Matrix::Dense(pm1)),
        ("C_count", Matrix::Dense(count)),
        ("C_Y", Matrix::Dense(y).into_best_format()),
    ] {
        let mut f = std::io::BufWriter::new(
            std::fs::File::create(dir.join(format!("{name}.mtx"))).expect("create data file"),
        );
        spores_exec::io::matrix_market::write(&m, &mut f).expect("write data file");
    }
}

/// Part 3: the classification workloads of `bench/workloads/` (MLR, GLM, L2-SVM), whose
/// blocks once spent more time in the optimizer than the optimized plans saved.
fn workloads(runs: usize) {
    println!("## Part 3: workloads (bench/workloads), optimized vs `--no-opt`\n");
    println!("| workload | n x d (density) | blocks optimized | per-block median ms | per-block max ms | optimizer total ms | exec ms, no-opt | exec ms, optimized | wall ms, no-opt | wall ms, optimized |");
    println!("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    for (size, n, d, density) in [
        ("small", 10_000, 100, 0.05),
        ("large", 100_000, 1_000, 0.01),
    ] {
        let dir = std::env::temp_dir().join(format!("spores-bench-optimizer-{size}"));
        classification_data(&dir, n, d, density);
        for (name, label) in [("mlr", "C_Y"), ("glm", "C_count"), ("l2svm", "C_pm1")] {
            let path = root.join(format!("bench/workloads/{name}.dml"));
            let source = std::fs::read_to_string(&path).expect("workload exists");
            let program = spores_lang::parse(&source).expect("workload parses");
            let label_arg = if name == "mlr" { "Y" } else { "y" };
            let args: std::collections::HashMap<String, String> = [
                ("X".to_string(), dir.join("C.mtx").display().to_string()),
                (
                    label_arg.to_string(),
                    dir.join(format!("{label}.mtx")).display().to_string(),
                ),
            ]
            .into();
            let (mut exec, mut wall) = ([Vec::new(), Vec::new()], [Vec::new(), Vec::new()]);
            let mut blocks = Vec::new();
            for _ in 0..runs {
                for (k, optimized) in [false, true].into_iter().enumerate() {
                    let (total, compile, times) = run_with(&source, &program, optimized, &args);
                    exec[k].push((total - compile).as_secs_f64() * 1e3);
                    wall[k].push(total.as_secs_f64() * 1e3);
                    if optimized {
                        blocks = times.iter().map(|d| d.as_secs_f64() * 1e3).collect();
                    }
                }
            }
            let max_block = blocks.iter().cloned().fold(0.0, f64::max);
            let total_block: f64 = blocks.iter().sum();
            println!(
                "| {name} | {n} x {d} ({density}) | {} | {:.2} | {max_block:.1} | {total_block:.1} | {:.1} | {:.1} | {:.1} | {:.1} |",
                blocks.len(),
                median(&mut blocks.clone()),
                median(&mut exec[0]),
                median(&mut exec[1]),
                median(&mut wall[0]),
                median(&mut wall[1]),
            );
        }
    }
    println!();
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let runs = args
        .iter()
        .position(|a| a == "--runs")
        .and_then(|i| args.get(i + 1))
        .and_then(|r| r.parse().ok())
        .unwrap_or(11);
    let only = |part: &str| {
        !args.iter().any(|a| a.starts_with("--part")) || args.iter().any(|a| a == part)
    };
    let only_rows = args
        .iter()
        .position(|a| a == "--only")
        .and_then(|i| args.get(i + 1))
        .map(String::as_str);
    if only("--part1") {
        expressions(runs, only_rows);
    }
    if only("--part2") {
        scripts(runs.min(5));
    }
    if only("--part3") {
        workloads(runs.min(3));
    }
}
