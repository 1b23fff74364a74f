//! The MLIR benchmark (DialEgg's cases): per case, the kernel run time of the original
//! program, of `mlir-opt --canonicalize`, of ours, and of ours plus canonicalize (median of
//! the 11 timed kernel calls of each of `MLIR_BENCH_RUNS` (3) runs per program, the variants
//! taking turns), with our optimization time broken down like
//! the paper's Table 2. Results of every variant are checked against the original's.
//!
//! usage: cargo run --release -p spores-mlir --example mlir_bench [-- CASE..]
//! (run `python3 bench/mlir/gen.py bench/mlir/cases` first if the cases are missing)

use std::path::PathBuf;
use std::time::{Duration, Instant};

use spores_mlir::egg::{all_ops, optimize, OptOptions, OptStats};
use spores_mlir::ir::Operation;
use spores_mlir::runner::{
    agree, find_toolchain, median, numbers, optimal_chain_cost, split_times, Toolchain, REPS,
};
use spores_mlir::{load, parse, print, LoadOptions, Module, PrintOptions};

/// (case, rules file, relative tolerance of results vs the original, run it)
fn cases() -> Vec<(String, &'static str, f64, bool)> {
    let mut cases: Vec<(String, &str, f64, bool)> = [
        ("grayscale", "grayscale.egg", 0.0),
        ("vecnorm", "vecnorm.egg", 2e-3),
        ("vecnorm", "vecnorm_paper.egg", 2e-3),
        ("poly", "poly.egg", 1e-9),
        ("2mm", "matmul.egg", 0.0),
        ("3mm", "matmul.egg", 0.0),
    ]
    .into_iter()
    .map(|(case, rules, tol)| (case.to_string(), rules, tol, true))
    .collect();
    // Matrix chains: run with the chain rules; with the full associativity rules and with
    // the plain ones only optimized (their optimization time is the point).
    let chains: [(&str, bool, &[usize]); 3] = [
        ("matmul_chain.egg", true, &[10, 20, 40, 80]),
        ("matmul_chain_full.egg", false, &[10, 20, 40, 80]),
        ("matmul.egg", false, &[10, 20, 40]),
    ];
    for (rules, runs, lengths) in chains {
        for n in lengths {
            cases.push((format!("{n}mm"), rules, 0.0, runs));
        }
    }
    cases
}

fn bench_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../bench/mlir")
}

fn ms(d: Duration) -> String {
    format!("{:.1}", d.as_secs_f64() * 1e3)
}

/// Runs a lowered program once; returns its result numbers and its kernel times in s.
fn run(tc: &Toolchain, lowered: &str) -> Result<(Vec<f64>, Vec<f64>), String> {
    let out = tc.run(lowered).map_err(|e| e.to_string())?;
    let (body, times) = split_times(&out, REPS).ok_or("no kernel times in the output")?;
    Ok((numbers(&body), times))
}

/// How many times each program is run (`MLIR_BENCH_RUNS`, default 3): the variants of a
/// case take turns, so that they see the same machine load, and the median is over all
/// kernel calls of all runs.
fn bench_runs() -> usize {
    std::env::var("MLIR_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&n| n > 0)
        .unwrap_or(3)
}

/// Multiply-adds of all matmuls in `@kernel`, and the chain DP optimum for its arguments.
fn matmul_check(orig: &Module, opt: &Module) -> Option<(u64, u64)> {
    let kernel = |m: &Module| -> Option<Operation> {
        all_ops(&m.ops)
            .into_iter()
            .find(|o| {
                o.name == "func.func"
                    && o.attr("sym_name").and_then(|a| a.as_str()) == Some("kernel")
            })
            .cloned()
    };
    let dims = |t: &spores_mlir::Type| -> Option<(u64, u64)> {
        let s = t.shape()?;
        Some(((*s.first()?)?, (*s.get(1)?)?))
    };
    let k = kernel(opt)?;
    let ops = all_ops(&k.regions[0].blocks[0].ops);
    let mut work = 0;
    let mut any = false;
    for o in ops.iter().filter(|o| o.name == "linalg.matmul") {
        let (a, b) = dims(&o.operand_types[0])?;
        let (_, c) = dims(&o.operand_types[1])?;
        work += a * b * c;
        any = true;
    }
    if !any {
        return None;
    }
    let args = &kernel(orig)?.regions[0].blocks[0].args;
    let mut d = vec![dims(&args[0].ty)?.0];
    for a in args {
        d.push(dims(&a.ty)?.1);
    }
    Some((work, optimal_chain_cost(&d)?))
}

fn main() {
    let only: Vec<String> = std::env::args().skip(1).collect();
    let Some(tc) = find_toolchain() else {
        eprintln!("mlir-opt-19 / mlir-cpu-runner-19 / libmlir-19 not found");
        std::process::exit(2);
    };
    let dir = bench_dir();
    println!("| case | rules | ops | original ms | canonicalize ms | ours ms | ours+canon ms | speedup ours | speedup ours+canon | MLIR→egglog ms | saturation ms | extraction ms | egglog→MLIR ms | total opt ms | canonicalize (process) ms | iters / e-nodes | matmul work / DP optimum |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    for (case, rules_file, tol, runs) in cases() {
        let case = case.as_str();
        if !only.is_empty() && !only.iter().any(|c| c == case) {
            continue;
        }
        let module = load(
            dir.join("cases").join(format!("{case}.mlir")),
            &LoadOptions::default(),
        )
        .unwrap_or_else(|e| panic!("{case}: {e}"));
        let rules = std::fs::read_to_string(dir.join(rules_file)).expect("rules file");
        let nrules = rules.matches("(rule ").count() + rules.matches("(rewrite ").count();
        // Optimization time: median total of 3 runs, reported with that run's breakdown.
        let mut results: Vec<(Module, OptStats)> = (0..3)
            .map(|_| {
                optimize(&module, &rules, rules_file, &OptOptions::default()).expect("optimizes")
            })
            .collect();
        results.sort_by_key(|(_, s)| s.total());
        let (opt, stats) = results.swap_remove(1);
        let orig_text = print(&module, PrintOptions::default());
        let ours_text = print(&opt, PrintOptions::default());
        let t = Instant::now();
        let canon_text = tc.canonicalize(&orig_text).expect("canonicalize");
        let canon_time = t.elapsed();
        let ours_canon_text = tc.canonicalize(&ours_text).expect("canonicalize ours");
        let check = matmul_check(&module, &opt).map_or("-".to_string(), |(w, best)| {
            format!("{w} / {best}{}", if w == best { " (optimal)" } else { "" })
        });
        let (mut rt, mut speed) = (vec!["-".to_string(); 4], vec!["-".to_string(); 2]);
        if runs {
            let texts = [&orig_text, &canon_text, &ours_text, &ours_canon_text];
            let labels = ["original", "canonicalize", "ours", "ours+canon"];
            let lowered: Vec<String> = texts
                .iter()
                .zip(labels)
                .map(|(t, l)| tc.lower(t).unwrap_or_else(|e| panic!("{case} {l}: {e}")))
                .collect();
            let mut all: Vec<Vec<f64>> = vec![Vec::new(); 4];
            let mut base: Option<Vec<f64>> = None;
            for _ in 0..bench_runs() {
                for (v, (low, label)) in lowered.iter().zip(labels).enumerate() {
                    let (nums, t) = run(&tc, low).unwrap_or_else(|e| panic!("{case} {label}: {e}"));
                    match &base {
                        None => base = Some(nums),
                        Some(b) => agree(b, &nums, tol)
                            .unwrap_or_else(|e| panic!("{case} {label}: results differ: {e}")),
                    }
                    all[v].extend(t);
                }
            }
            let times: Vec<f64> = all.iter().map(|t| median(t) * 1e3).collect();
            rt = times.iter().map(|t| format!("{t:.3}")).collect();
            speed = vec![
                format!("{:.2}x", times[0] / times[2]),
                format!("{:.2}x", times[0] / times[3]),
            ];
        }
        let _ = parse(&ours_text).expect("our output re-parses");
        println!(
            "| {case} | {rules_file} ({nrules}) | {} → {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} / {} | {check} |",
            stats.ops_before, stats.ops_after, rt[0], rt[1], rt[2], rt[3], speed[0], speed[1],
            ms(stats.to_egglog), ms(stats.saturation), ms(stats.extraction), ms(stats.to_mlir),
            ms(stats.total()), ms(canon_time), stats.iterations, stats.enodes,
        );
    }
}
