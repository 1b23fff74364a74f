//! BFS through the optimizers (`apps::bfs`): every policy reaches every vertex at the level
//! a plain queue BFS gives, and the adaptive policy switches the frontier's format with its
//! size.

use std::collections::VecDeque;

use rand::{RngExt, SeedableRng};
use spores_tensor::apps::bfs::{bfs, FormatPolicy};
use spores_tensor::engine::FiberTensor;
use spores_tensor::plan_ast::LevelFormat;
use spores_tensor::stats::{Estimator, InputStats};
use spores_tensor::CooTensor;

/// A random undirected graph with `n` vertices and about `n * degree / 2` edges, some of them
/// concentrated on low-numbered vertices (hubs), as a 0/1 adjacency matrix.
fn random_graph(seed: u64, n: usize, degree: f64) -> CooTensor {
    let mut r = rand_pcg::Pcg64::seed_from_u64(seed);
    let edges: Vec<(u32, u32)> = (0..(n as f64 * degree / 2.0) as usize)
        .map(|_| {
            let hub = r.random_range(0..4) == 0;
            let u = if hub {
                r.random_range(0..(n / 50).max(1))
            } else {
                r.random_range(0..n)
            };
            (u as u32, r.random_range(0..n) as u32)
        })
        .collect();
    CooTensor::undirected_graph(n, edges).unwrap()
}

fn queue_levels(adjacency: &CooTensor, source: usize) -> Vec<Option<u32>> {
    let n = adjacency.dims()[0];
    let mut adj = vec![vec![]; n];
    for (c, _) in adjacency.iter() {
        adj[c[0] as usize].push(c[1] as usize);
    }
    let mut level = vec![None; n];
    level[source] = Some(0u32);
    let mut queue = VecDeque::from([source]);
    while let Some(u) = queue.pop_front() {
        for &v in &adj[u] {
            if level[v].is_none() {
                level[v] = Some(level[u].unwrap() + 1);
                queue.push_back(v);
            }
        }
    }
    level
}

fn run(
    adjacency: &CooTensor,
    source: u32,
    policy: FormatPolicy,
) -> spores_tensor::apps::bfs::BfsRun {
    let e = FiberTensor::from_coo(adjacency, &[LevelFormat::Dense, LevelFormat::SortedList]);
    let mut stats = InputStats::default();
    stats.insert("E", adjacency);
    bfs(&e, &stats, source, policy, Estimator::Chain).unwrap()
}

#[test]
fn every_policy_gives_the_queue_bfs_levels() {
    for (seed, n, degree) in [(1, 40, 1.5), (2, 300, 3.0), (3, 2000, 6.0), (4, 500, 0.8)] {
        let g = random_graph(seed, n, degree);
        for source in [0u32, (n / 2) as u32] {
            let want = queue_levels(&g, source as usize);
            for policy in [
                FormatPolicy::Adaptive,
                FormatPolicy::Dense,
                FormatPolicy::Sparse,
            ] {
                let got = run(&g, source, policy);
                assert_eq!(
                    got.level_of, want,
                    "graph {seed}, source {source}, {policy:?}"
                );
                let reached = want.iter().filter(|l| l.is_some()).count();
                assert_eq!(got.frontier_sizes.iter().sum::<usize>(), reached);
            }
        }
    }
}

#[test]
fn forced_policies_keep_their_formats() {
    let g = random_graph(7, 1000, 4.0);
    let dense = run(&g, 0, FormatPolicy::Dense);
    assert!(dense
        .formats
        .iter()
        .all(|f| *f == (LevelFormat::Dense, LevelFormat::Dense)));
    let sparse = run(&g, 0, FormatPolicy::Sparse);
    assert!(sparse
        .formats
        .iter()
        .all(|f| *f == (LevelFormat::SortedList, LevelFormat::SortedList)));
}

/// The first frontier (one vertex) is stored sparse, the frontier at the peak of a BFS over
/// a well-connected graph (most vertices) dense, and the visited set ends dense.
#[test]
fn adaptive_formats_follow_the_frontier() {
    let g = random_graph(11, 20_000, 8.0);
    let r = run(&g, 0, FormatPolicy::Adaptive);
    let (first, _) = r.formats[0];
    assert!(
        matches!(first, LevelFormat::SortedList | LevelFormat::Hash),
        "trace {}",
        r.trace()
    );
    assert!(
        r.formats.iter().any(|f| f.0 == LevelFormat::Dense),
        "trace {}",
        r.trace()
    );
    assert_eq!(
        r.formats.last().unwrap().1,
        LevelFormat::Dense,
        "trace {}",
        r.trace()
    );
}

/// The next frontier is estimated from the frontier's own out-degrees, not the graph's
/// maximum degree: on a path 0-1-2-... with one hub adjacent to the whole far half, the
/// one-vertex frontiers walking the path have two edges each and stay sparse (priced at
/// |F| × the hub's degree they would be stored dense from the first level on).
#[test]
fn frontier_estimate_uses_the_frontiers_degrees() {
    let n = 10_000usize;
    let hub = (n - 1) as u32;
    let path = (0..(n - 2) as u32).map(|v| (v, v + 1));
    let spokes = ((n / 2) as u32..hub - 1).map(|v| (hub, v));
    let g = CooTensor::undirected_graph(n, path.chain(spokes)).unwrap();
    let r = run(&g, 0, FormatPolicy::Adaptive);
    assert_eq!(r.level_of, queue_levels(&g, 0));
    let sparse = |f: LevelFormat| matches!(f, LevelFormat::SortedList | LevelFormat::Hash);
    assert!(
        r.formats[..100].iter().all(|f| sparse(f.0)),
        "path levels should keep a sparse frontier: {}...",
        &r.trace()[..100]
    );
}
