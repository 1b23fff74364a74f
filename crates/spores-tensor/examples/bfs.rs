//! Breadth-first search as a sequence of tensor kernels (Galley §8.3), with three policies
//! for the formats of the frontier and visited vectors:
//! - `dense`: both always Dense;
//! - `sparse`: both always sorted lists (frontier) / sorted lists (visited);
//! - `adaptive`: per iteration, Dense when the estimated non-fill fraction is above 1/16,
//!   else a sorted list — the estimate for the next frontier is (frontier size × average
//!   degree), capped by the unvisited vertices, as a sparsity estimator would give it.
//!
//! Per level: `N[j] = any[i](F[i] * E[i,j] * (1 - V[j]))` (loops i, j: the frontier leads,
//! the adjacency row is walked, visited is probed) then `V[j] = max(V[j], N[j])`.
//!
//! `bfs [--vertices N] [--degree D] [--seed S] [--repeat R] [EDGE_LIST]`: a seeded power-law
//! (Chung-Lu) graph unless an edge list is given. Prints per-policy total time, levels and
//! reached vertices (which must agree).

use std::collections::HashMap;
use std::time::Instant;

use rand::{RngExt, SeedableRng};
use spores_tensor::engine::{execute_query, FiberTensor};
use spores_tensor::plan_ast::{
    Access, AggOp, Idx, LevelFormat, MapOp, PhysExpr, PhysicalQuery, Protocol,
};
use spores_tensor::CooTensor;

fn access(name: &str, idxs: &[&str], protocols: &[Protocol]) -> PhysExpr {
    PhysExpr::Access(Access {
        is_alias: false,
        name: name.to_string(),
        idxs: idxs.iter().map(|i| Idx::new(i)).collect(),
        protocols: protocols.to_vec(),
    })
}

fn next_frontier(format: LevelFormat) -> PhysicalQuery {
    use Protocol::*;
    PhysicalQuery {
        name: "N".into(),
        loop_order: vec![Idx::new("i"), Idx::new("j")],
        agg: Some(AggOp::Any),
        agg_idxs: vec![Idx::new("i")],
        body: PhysExpr::Map {
            op: MapOp::Mul,
            args: vec![
                access("F", &["i"], &[Iterate]),
                access("E", &["i", "j"], &[Lookup, Iterate]),
                PhysExpr::Map {
                    op: MapOp::Sub,
                    args: vec![PhysExpr::Literal(1.0), access("V", &["j"], &[Lookup])],
                },
            ],
        },
        output_idxs: vec![Idx::new("j")],
        output_formats: vec![format],
    }
}

fn update_visited(format: LevelFormat) -> PhysicalQuery {
    use Protocol::*;
    PhysicalQuery {
        name: "V".into(),
        loop_order: vec![Idx::new("j")],
        agg: None,
        agg_idxs: vec![],
        body: PhysExpr::Map {
            op: MapOp::Max,
            args: vec![
                access("V", &["j"], &[Iterate]),
                access("N", &["j"], &[Iterate]),
            ],
        },
        output_idxs: vec![Idx::new("j")],
        output_formats: vec![format],
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Policy {
    Dense,
    Sparse,
    Adaptive,
}

/// Runs BFS from vertex 0; returns (levels, reached, seconds, formats used per level).
fn bfs(e: &FiberTensor, n: usize, avg_degree: f64, policy: Policy) -> (usize, usize, f64, String) {
    let choose = |est: f64| match policy {
        Policy::Dense => LevelFormat::Dense,
        Policy::Sparse => LevelFormat::SortedList,
        Policy::Adaptive => {
            if est / n as f64 > 1.0 / 16.0 {
                LevelFormat::Dense
            } else {
                LevelFormat::SortedList
            }
        }
    };
    let start = Instant::now();
    let seed = CooTensor::from_entries(vec![n], vec![(vec![0], 1.0)], 0.0).unwrap();
    let mut tensors: HashMap<&str, FiberTensor> = HashMap::new();
    tensors.insert("F", FiberTensor::from_coo(&seed, &[choose(1.0)]));
    tensors.insert("V", FiberTensor::from_coo(&seed, &[choose(1.0)]));
    let (mut reached, mut frontier, mut levels) = (1usize, 1usize, 0usize);
    let mut trace = String::new();
    while frontier > 0 {
        let est = (frontier as f64 * avg_degree).min((n - reached) as f64);
        let f_fmt = choose(est);
        let v_fmt = choose(reached as f64 + est);
        trace.push(if f_fmt == LevelFormat::Dense {
            'D'
        } else {
            's'
        });
        let next = {
            let lookup = |name: &str, _: bool| {
                if name == "E" {
                    Some(e)
                } else {
                    tensors.get(name)
                }
            };
            execute_query(&next_frontier(f_fmt), &lookup).expect("frontier kernel")
        };
        let new = next.vals.iter().filter(|&&v| v != 0.0).count();
        tensors.insert("N", next);
        let visited = {
            let lookup = |name: &str, _: bool| tensors.get(name);
            execute_query(&update_visited(v_fmt), &lookup).expect("visited kernel")
        };
        tensors.insert("V", visited);
        let n_t = tensors.remove("N").expect("frontier");
        tensors.insert("F", n_t);
        reached += new;
        frontier = new;
        levels += 1;
    }
    (levels, reached, start.elapsed().as_secs_f64(), trace)
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
    let repeat = flag("--repeat", 3.0) as usize;
    let file = args
        .iter()
        .enumerate()
        .find(|(k, a)| !a.starts_with("--") && (*k == 0 || !args[k - 1].starts_with("--")))
        .map(|(_, a)| a.clone());
    let adjacency = match &file {
        Some(path) => {
            spores_tensor::io::read_tensor(std::path::Path::new(path)).expect("edge list")
        }
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
            let mut entries = Vec::with_capacity(2 * m);
            for _ in 0..m {
                let (u, v) = (pick(rng.random()), pick(rng.random()));
                if u != v {
                    entries.push((vec![u, v], 1.0));
                    entries.push((vec![v, u], 1.0));
                }
            }
            let t = CooTensor::from_entries(vec![n, n], entries, 0.0).unwrap();
            // Duplicate edges summed: back to 0/1.
            let ones = t.iter().map(|(c, _)| (c.to_vec(), 1.0)).collect();
            CooTensor::from_entries(vec![n, n], ones, 0.0).unwrap()
        }
    };
    let n = adjacency.dims()[0];
    let avg = adjacency.nnz() as f64 / n as f64;
    let e = FiberTensor::from_coo(&adjacency, &[LevelFormat::Dense, LevelFormat::SortedList]);
    println!(
        "graph: {} vertices, {} directed edges (avg degree {avg:.1}){}",
        n,
        adjacency.nnz(),
        file.map_or(" (Chung-Lu power law)".to_string(), |f| format!(
            " from {f}"
        ))
    );
    for (name, policy) in [
        ("adaptive", Policy::Adaptive),
        ("all-dense", Policy::Dense),
        ("all-sparse", Policy::Sparse),
    ] {
        let mut times = vec![];
        let mut last = (0, 0, String::new());
        for _ in 0..repeat {
            let (levels, reached, secs, trace) = bfs(&e, n, avg, policy);
            times.push(secs);
            last = (levels, reached, trace);
        }
        times.sort_by(|a, b| a.total_cmp(b));
        println!(
            "{name:<10} median {:>9.3} ms over {repeat} runs; {} levels, {} reached; frontier formats {}",
            times[times.len() / 2] * 1e3,
            last.0,
            last.1,
            last.2
        );
    }
}
