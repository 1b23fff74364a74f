//! Breadth-first search through the optimizers (Galley §8.3): every level is the tensor
//! program of [`spores_tensor::apps::bfs::STEP_PROGRAM`], planned per level by the
//! logical and physical optimizers from the current frontier's statistics (`adaptive`), or
//! planned once with every output level forced dense (`all-dense`) or sorted (`all-sparse`).
//!
//! `bfs [--vertices N] [--degree D] [--seed S] [--repeat R] [--estimator uniform|chain]
//! [--source V] [--policies adaptive,all-dense,all-sparse] [EDGE_LIST]`: a seeded power-law
//! (Chung-Lu) graph unless an edge list is given; BFS from vertex `V` (0 by default) under
//! the policies named (all three by default). Prints per policy the median total time
//! (planning included), the planning time, levels, reached vertices and the frontier format
//! chosen at each level; the per-level frontier sizes must agree across policies (checked
//! here, and against a plain queue BFS).

use std::collections::VecDeque;

use rand::{RngExt, SeedableRng};
use spores_tensor::apps::bfs::{bfs, FormatPolicy};
use spores_tensor::engine::FiberTensor;
use spores_tensor::plan_ast::LevelFormat;
use spores_tensor::stats::{Estimator, InputStats};
use spores_tensor::CooTensor;

/// Level sizes of a plain queue BFS (the oracle).
fn queue_bfs(adjacency: &CooTensor, source: usize) -> Vec<usize> {
    let n = adjacency.dims()[0];
    let mut adj = vec![vec![]; n];
    for (c, _) in adjacency.iter() {
        adj[c[0] as usize].push(c[1] as usize);
    }
    let mut level = vec![usize::MAX; n];
    level[source] = 0;
    let mut queue = VecDeque::from([source]);
    let mut sizes = vec![1usize];
    while let Some(u) = queue.pop_front() {
        for &v in &adj[u] {
            if level[v] == usize::MAX {
                level[v] = level[u] + 1;
                if sizes.len() <= level[v] {
                    sizes.push(0);
                }
                sizes[level[v]] += 1;
                queue.push_back(v);
            }
        }
    }
    sizes
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let flag = |name: &str, default: f64| {
        args.iter()
            .position(|a| a == name)
            .and_then(|k| args.get(k + 1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let n = flag("--vertices", 200_000.0) as usize;
    let degree = flag("--degree", 8.0);
    let seed = flag("--seed", 1.0) as u64;
    let repeat = (flag("--repeat", 3.0) as usize).max(1);
    let source = flag("--source", 0.0) as u32;
    let estimator = match args
        .iter()
        .position(|a| a == "--estimator")
        .and_then(|k| args.get(k + 1))
    {
        Some(e) if e == "chain" => Estimator::Chain,
        Some(e) if e == "uniform" => Estimator::Uniform,
        None => Estimator::Chain,
        Some(e) => {
            eprintln!("error: unknown estimator `{e}` (uniform or chain)");
            std::process::exit(2);
        }
    };
    let file = args
        .iter()
        .enumerate()
        .find(|(k, a)| !a.starts_with("--") && (*k == 0 || !args[k - 1].starts_with("--")))
        .map(|(_, a)| a.clone());
    let adjacency = match &file {
        Some(path) => match spores_tensor::io::read_tensor(std::path::Path::new(path)) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("error: {e}");
                std::process::exit(2);
            }
        },
        None => {
            // Chung-Lu: vertex weights w_v ~ (v+1)^(-1/2), edges sampled proportionally.
            let mut rng = rand_pcg::Pcg64::seed_from_u64(seed);
            let w: Vec<f64> = (0..n).map(|v| 1.0 / ((v + 1) as f64).sqrt()).collect();
            let total: f64 = w.iter().sum();
            let mut cdf = Vec::with_capacity(n);
            let mut acc = 0.0;
            for x in &w {
                acc += x / total;
                cdf.push(acc);
            }
            let pick = |r: f64| cdf.partition_point(|&c| c < r).min(n - 1) as u32;
            let m = (n as f64 * degree / 2.0) as usize;
            let edges: Vec<(u32, u32)> = (0..m)
                .map(|_| (pick(rng.random()), pick(rng.random())))
                .collect();
            CooTensor::undirected_graph(n, edges).unwrap()
        }
    };
    let n = adjacency.dims()[0];
    let avg = adjacency.nnz() as f64 / n as f64;
    let e = FiberTensor::from_coo(&adjacency, &[LevelFormat::Dense, LevelFormat::SortedList]);
    let mut stats = InputStats::default();
    stats.insert("E", &adjacency);
    println!(
        "graph: {} vertices, {} directed edges (avg degree {avg:.1}){}; estimator {estimator:?}; load {}",
        n,
        adjacency.nnz(),
        file.map_or(" (Chung-Lu power law)".to_string(), |f| format!(
            " from {f}"
        )),
        std::fs::read_to_string("/proc/loadavg")
            .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
            .unwrap_or_default()
    );
    let want = queue_bfs(&adjacency, source as usize);
    let mut medians = vec![];
    let policies = args
        .iter()
        .position(|a| a == "--policies")
        .and_then(|k| args.get(k + 1))
        .map_or("adaptive,all-dense,all-sparse", String::as_str);
    for (name, policy) in [
        ("adaptive", FormatPolicy::Adaptive),
        ("all-dense", FormatPolicy::Dense),
        ("all-sparse", FormatPolicy::Sparse),
    ] {
        if !policies.split(',').any(|p| p == name) {
            continue;
        }
        let mut runs = vec![];
        for _ in 0..repeat {
            match bfs(&e, &stats, source, policy, estimator) {
                Ok(r) => runs.push(r),
                Err(err) => {
                    eprintln!("error: {name}: {err}");
                    std::process::exit(1);
                }
            }
        }
        runs.sort_by_key(|r| r.total);
        let r = &runs[runs.len() / 2];
        let ok = r.frontier_sizes == want;
        println!(
            "{name:<10} median {:>9.3} ms over {repeat} runs (planning {:.3} ms); {} levels, {} reached; frontier formats {}; levels {}",
            r.total.as_secs_f64() * 1e3,
            r.planning.as_secs_f64() * 1e3,
            r.frontier_sizes.len(),
            r.frontier_sizes.iter().sum::<usize>(),
            r.trace(),
            if ok { "match a queue BFS" } else { "DIFFER from a queue BFS" }
        );
        let per_level: Vec<String> = r
            .level_times
            .iter()
            .zip(&r.level_planning)
            .zip(r.trace().chars().zip(r.visited_trace().chars()))
            .map(|((t, p), (f, v))| {
                format!(
                    "{f}{v}:{:.1}/{:.1}",
                    t.as_secs_f64() * 1e3,
                    p.as_secs_f64() * 1e3
                )
            })
            .collect();
        println!(
            "{:<10} per level (frontier+visited format: total/planning ms) {}",
            "",
            per_level.join(" ")
        );
        if !ok {
            eprintln!("got {:?}\nwant {:?}", r.frontier_sizes, want);
            std::process::exit(1);
        }
        medians.push(r.clone());
    }
    // The best fixed format per level, summed: what a perfect per-level choice would cost
    // with the baselines' kernels (their one-off planning left out).
    if let [adaptive, dense, sparse] = &medians[..] {
        let best: f64 = dense
            .level_times
            .iter()
            .zip(&sparse.level_times)
            .map(|(d, s)| d.min(s).as_secs_f64() * 1e3)
            .sum();
        println!(
            "sum over levels of min(all-dense, all-sparse) {best:.3} ms; adaptive {:.3} ms ({:.2}x of it)",
            adaptive.total.as_secs_f64() * 1e3,
            adaptive.total.as_secs_f64() * 1e3 / best
        );
    }
}
