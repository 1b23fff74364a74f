//! Optimization time of subgraph-counting queries (Galley §8.2 reports < 0.15 s mean). Not a
//! timed assertion (timings belong in benchmarks): an ignored test that prints the figures.
//!
//! `cargo test --release -p spores-tensor --test opt_subgraph_time -- --ignored --nocapture`

mod opt_support;

use std::time::{Duration, Instant};

use opt_support::*;
use spores_tensor::logical::{optimize_explained, LogicalOptions, Search};
use spores_tensor::physical::{optimize, PhysicalOptions};
use spores_tensor::stats::{Estimator, InputStats};

fn report(label: &str, times: &mut [Duration]) {
    times.sort();
    let mean = times.iter().sum::<Duration>().as_secs_f64() / times.len().max(1) as f64;
    let median = times
        .get(times.len() / 2)
        .map_or(0.0, Duration::as_secs_f64);
    let max = times.last().map_or(0.0, Duration::as_secs_f64);
    println!(
        "{label:<40} n={:<4} mean {:>8.4}s  median {:>8.4}s  max {:>8.4}s",
        times.len(),
        mean,
        median,
        max
    );
}

fn run(label: &str, graph: &str, queries: Vec<(String, Graph)>) {
    let g = read_graph(&data_dir().join("graphs").join(graph));
    let data = graph_tensors(&g);
    let t = Instant::now();
    let stats = InputStats::from_tensors(&data);
    println!(
        "{label}: input statistics in {:.3}s",
        t.elapsed().as_secs_f64()
    );
    for search in [Search::Greedy, Search::Exact] {
        for estimator in [Estimator::Chain, Estimator::Uniform] {
            let mut times = vec![];
            let mut worst = (Duration::ZERO, String::new());
            for (name, q) in &queries {
                let Some(p) = query_program(q, &data) else {
                    continue;
                };
                let t = Instant::now();
                let opts = LogicalOptions {
                    search,
                    estimator,
                    ..Default::default()
                };
                let ex = optimize_explained(&p, &stats, &opts).unwrap();
                let phys = PhysicalOptions {
                    estimator,
                    ..Default::default()
                };
                let plan = optimize(&ex.plan, &stats, &phys).unwrap();
                let el = t.elapsed();
                assert!(!plan.queries.is_empty());
                if el > worst.0 {
                    worst = (el, name.clone());
                }
                times.push(el);
            }
            report(&format!("{label} {search:?} {estimator:?}"), &mut times);
            println!("    slowest: {} ({:.4}s)", worst.1, worst.0.as_secs_f64());
        }
    }
}

#[test]
#[ignore]
fn subgraph_optimization_time() {
    run("yeast-lite", "yeast.graph", yeast_queries());
    let mut human = vec![];
    for set in ["Chain_3", "Graph_3", "Star_3", "Tree_3"] {
        human.extend(human_queries(set));
    }
    run("human", "human.txt", human);
}

#[test]
#[ignore]
fn show_subgraph_plans() {
    let g = read_graph(&data_dir().join("graphs/yeast.graph"));
    let data = graph_tensors(&g);
    let stats = InputStats::from_tensors(&data);
    let wanted = std::env::var("OPT_QUERIES")
        .unwrap_or_else(|_| "query_sparse_8_1.graph,query_dense_4_10.graph".into());
    for (name, q) in yeast_queries() {
        if !wanted.split(',').any(|w| w == name) {
            continue;
        }
        let Some(p) = query_program(&q, &data) else {
            continue;
        };
        println!("== {name}\n{p}");
        let ex = optimize_explained(&p, &stats, &LogicalOptions::default()).unwrap();
        println!("{}", ex.plan);
        for e in &ex.estimates {
            println!(
                "  {:<12} out {:>12.0} body {:>12.0}",
                e.name, e.nnz_out, e.nnz_body
            );
        }
        let plan = optimize(&ex.plan, &stats, &PhysicalOptions::default()).unwrap();
        for q in &plan.queries {
            println!(
                "  {} loops {:?} out {:?} {:?}",
                q.name, q.loop_order, q.output_idxs, q.output_formats
            );
        }
    }
}

/// Per-query optimization and engine time on yeast-lite, with the count checked.
/// `cargo test --release -p spores-tensor --test opt_subgraph_time yeast_end_to_end -- --ignored --nocapture`
#[test]
#[ignore]
fn yeast_end_to_end() {
    use spores_tensor::engine::execute_plan;
    use spores_tensor::io::subgraph::{read_data_graph, read_query_graph};
    let dir = data_dir();
    let data = read_data_graph(&dir.join("graphs/yeast.graph")).unwrap();
    let mut opt_times = vec![];
    let mut exec_times = vec![];
    // OPT_SEARCH=greedy, OPT_ESTIMATOR=uniform, OPT_QUERIES=a,b select other settings.
    let search = match std::env::var("OPT_SEARCH").as_deref() {
        Ok("greedy") => Search::Greedy,
        _ => Search::Exact,
    };
    let estimator = match std::env::var("OPT_ESTIMATOR").as_deref() {
        Ok("uniform") => Estimator::Uniform,
        _ => Estimator::Chain,
    };
    let only = std::env::var("OPT_QUERIES").ok();
    for (name, _) in yeast_queries() {
        if only
            .as_ref()
            .is_some_and(|o| !o.split(',').any(|w| w == name))
        {
            continue;
        }
        let q = read_query_graph(&dir.join("queries/yeast-lite").join(&name)).unwrap();
        let inputs = data.inputs_for(&q);
        let stats = InputStats::from_tensors(&inputs);
        let p = q.program().unwrap();
        let t = Instant::now();
        let (logical, plan) = optimize_with(&p, &stats, search, estimator);
        let opt = t.elapsed();
        let t = Instant::now();
        let (out, rep) = execute_plan(&plan, &inputs).unwrap();
        let exec = t.elapsed();
        if std::env::var("OPT_KERNELS").is_ok() {
            print!("{logical}");
            for (k, t, n, f) in &rep.kernels {
                println!(
                    "    kernel {k:<12} {:>8.4}s stored {n:>10} {f:?}",
                    t.as_secs_f64()
                );
            }
        }
        let truth: f64 = std::fs::read_to_string(dir.join("true_counts/yeast").join(&name))
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        let got = out["count"].to_dense()[0];
        println!(
            "{name:<28} opt {:>8.4}s exec {:>8.4}s count {got} {}",
            opt.as_secs_f64(),
            exec.as_secs_f64(),
            if got == truth { "ok" } else { "WRONG" }
        );
        opt_times.push(opt);
        exec_times.push(exec);
        assert_eq!(got, truth, "{name}");
    }
    report("yeast-lite optimize (exact, chain)", &mut opt_times);
    report("yeast-lite execute", &mut exec_times);
}

/// Fits the logical cost model `time ≈ a·nnz(Agg) + b·nnz(Map)` (Galley §5.2) to the engine's
/// kernel times on the yeast-lite plans, using the optimizer's own estimates as regressors
/// (that is what the model is applied to). Prints the fit; the defaults in `CostModel` come
/// from it. Skips queries whose plans take over 2 s (a few huge kernels would dominate).
#[test]
#[ignore]
fn calibrate_cost_model() {
    use spores_tensor::engine::execute_plan;
    use spores_tensor::io::subgraph::{read_data_graph, read_query_graph};
    let dir = data_dir();
    let data = read_data_graph(&dir.join("graphs/yeast.graph")).unwrap();
    let mut rows: Vec<(f64, f64, f64)> = vec![];
    for (name, _) in yeast_queries() {
        let q = read_query_graph(&dir.join("queries/yeast-lite").join(&name)).unwrap();
        let inputs = data.inputs_for(&q);
        let stats = InputStats::from_tensors(&inputs);
        let p = q.program().unwrap();
        let ex = optimize_explained(&p, &stats, &LogicalOptions::default()).unwrap();
        let est: std::collections::HashMap<String, (f64, f64)> = ex
            .estimates
            .iter()
            .map(|e| (e.name.clone(), (e.nnz_out, e.nnz_body)))
            .collect();
        let plan = optimize(&ex.plan, &stats, &PhysicalOptions::default()).unwrap();
        if est.values().any(|(o, b)| o.max(*b) > 5e7) {
            continue; // the slow plans: skipped to keep the fit about typical kernels
        }
        let (_, rep) = execute_plan(&plan, &inputs).unwrap();
        for (k, t, _, _) in &rep.kernels {
            if let Some(&(o, b)) = est.get(k) {
                rows.push((o, b, t.as_secs_f64()));
            }
        }
    }
    // Least squares through the origin on two regressors, clamped to non-negative.
    let (mut soo, mut sbb, mut sob, mut sot, mut sbt) = (0.0, 0.0, 0.0, 0.0, 0.0);
    for &(o, b, t) in &rows {
        soo += o * o;
        sbb += b * b;
        sob += o * b;
        sot += o * t;
        sbt += b * t;
    }
    let det = soo * sbb - sob * sob;
    let (mut a, mut b) = ((sot * sbb - sbt * sob) / det, (sbt * soo - sot * sob) / det);
    if a < 0.0 {
        a = 0.0;
        b = sbt / sbb;
    }
    if b < 0.0 {
        b = 0.0;
        a = sot / soo;
    }
    println!(
        "{} kernels: time ≈ {a:.3e}·nnz(Agg) + {b:.3e}·nnz(Map) s  (ratio a/b = {:.3})",
        rows.len(),
        a / b
    );
}
