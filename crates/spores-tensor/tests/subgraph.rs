//! Subgraph counting on the repository's data/subgraph: which semantics the true counts use (found by
//! brute force), and the engine's counts on a handful of queries.

mod opt_support;

use std::collections::HashMap;
use std::path::PathBuf;

use spores_tensor::io::subgraph::{read_data_graph, read_query_graph, DataGraph, QueryGraph};
use spores_tensor::{run, RunOptions};

fn data() -> PathBuf {
    opt_support::data_dir()
}

fn true_count(rel: &str) -> u64 {
    let text = std::fs::read_to_string(data().join("true_counts").join(rel)).unwrap();
    text.split_whitespace().last().unwrap().parse().unwrap()
}

/// Brute-force backtracking over query vertices in order; `injective` forbids two query
/// vertices mapping to one data vertex.
fn brute_force(g: &DataGraph, q: &QueryGraph, injective: bool) -> u64 {
    let n = g.vertices;
    let mut adj = vec![vec![]; n];
    for &(u, v) in &g.edges {
        adj[u as usize].push(v as usize);
        adj[v as usize].push(u as usize);
    }
    let has_edge = |a: usize, b: usize| adj[a].contains(&b);
    let k = q.labels.len();
    let mut map = vec![usize::MAX; k];
    fn go(
        d: usize,
        map: &mut Vec<usize>,
        q: &QueryGraph,
        g: &DataGraph,
        adj: &[Vec<usize>],
        has_edge: &dyn Fn(usize, usize) -> bool,
        injective: bool,
    ) -> u64 {
        if d == map.len() {
            return 1;
        }
        // Candidates: neighbours of an already mapped query neighbour, else every vertex.
        let anchor = q.edges.iter().find_map(|&(a, b)| {
            let (a, b) = (a as usize, b as usize);
            if a == d && b < d {
                Some(map[b])
            } else if b == d && a < d {
                Some(map[a])
            } else {
                None
            }
        });
        let cands: Vec<usize> = match anchor {
            Some(x) => adj[x].clone(),
            None => (0..g.vertices).collect(),
        };
        let mut total = 0;
        for v in cands {
            if let Some(l) = q.labels[d] {
                if !g.vertex_labels[v].contains(&l) {
                    continue;
                }
            }
            if injective && map[..d].contains(&v) {
                continue;
            }
            let ok = q.edges.iter().all(|&(a, b)| {
                let (a, b) = (a as usize, b as usize);
                let (x, y) = if a == d && b < d {
                    (v, map[b])
                } else if b == d && a < d {
                    (map[a], v)
                } else {
                    return true;
                };
                has_edge(x, y)
            });
            if ok {
                map[d] = v;
                total += go(d + 1, map, q, g, adj, has_edge, injective);
            }
        }
        map[d] = usize::MAX;
        total
    }
    go(0, &mut map, q, g, &adj, &has_edge, injective)
}

fn engine_count(g: &DataGraph, q: &QueryGraph) -> u64 {
    let program = q.program().unwrap();
    let inputs: HashMap<_, _> = g.inputs_for(q);
    let (out, _) = run(&program, &inputs, &RunOptions::default()).unwrap();
    out["count"].values()[0] as u64
}

/// The true counts are homomorphism counts on the undirected graph, not injective
/// embeddings: checked on queries small enough to enumerate.
#[test]
fn true_counts_are_homomorphism_counts() {
    let human = read_data_graph(&data().join("graphs/human.txt")).unwrap();
    let mut differs = 0;
    for rel in [
        "Chain_3/uf_Q_1_3.txt",
        "Star_3/uf_Q_2_3.txt",
        "Tree_3/uf_Q_3_2.txt",
    ] {
        let q = read_query_graph(&data().join("queries/human").join(rel)).unwrap();
        let want = true_count(&format!("human/{rel}"));
        assert_eq!(brute_force(&human, &q, false), want, "human/{rel}");
        if brute_force(&human, &q, true) != want {
            differs += 1;
        }
    }
    let yeast = read_data_graph(&data().join("graphs/yeast.graph")).unwrap();
    for name in ["query_dense_4_10.graph", "query_dense_4_100.graph"] {
        let q = read_query_graph(&data().join("queries/yeast-lite").join(name)).unwrap();
        let want = true_count(&format!("yeast/{name}"));
        assert_eq!(brute_force(&yeast, &q, false), want, "yeast/{name}");
        if brute_force(&yeast, &q, true) != want {
            differs += 1;
        }
    }
    assert!(
        differs > 0,
        "injective counts would fit too; the semantics is not pinned down"
    );
}

#[test]
fn engine_counts_match_the_true_counts() {
    let yeast = read_data_graph(&data().join("graphs/yeast.graph")).unwrap();
    for name in [
        "query_dense_4_10.graph",
        "query_dense_4_100.graph",
        "query_dense_4_102.graph",
        "query_sparse_8_10.graph",
        "query_sparse_8_12.graph",
    ] {
        let q = read_query_graph(&data().join("queries/yeast-lite").join(name)).unwrap();
        assert_eq!(
            engine_count(&yeast, &q),
            true_count(&format!("yeast/{name}")),
            "{name}"
        );
    }
    let human = read_data_graph(&data().join("graphs/human.txt")).unwrap();
    for rel in [
        "Chain_3/uf_Q_1_3.txt",
        "Graph_3/uf_Q_3_9.txt",
        "Star_3/uf_Q_2_3.txt",
        "Tree_3/uf_Q_3_2.txt",
    ] {
        let q = read_query_graph(&data().join("queries/human").join(rel)).unwrap();
        assert_eq!(
            engine_count(&human, &q),
            true_count(&format!("human/{rel}")),
            "{rel}"
        );
    }
}

/// The scan fast path (`engine::scan`) walks the loops inside its leader's in full; a kernel
/// whose plan iterates a sparse access inside those loops must stay with the interpreter,
/// which visits only that access's stored entries. Taking the scan there turned
/// `query_dense_4_120`'s last kernel from a sparse intersection into a dense walk (0.07 ms
/// -> 58 ms, same count).
#[test]
fn kernels_iterating_a_sparse_follower_do_not_take_the_scan_path() {
    let g = read_data_graph(&data().join("graphs/yeast.graph")).unwrap();
    let q = read_query_graph(&data().join("queries/yeast-lite/query_dense_4_120.graph")).unwrap();
    let program = q.program().unwrap();
    let (out, report) = run(&program, &g.inputs_for(&q), &RunOptions::default()).unwrap();
    assert_eq!(
        out["count"].values()[0],
        true_count("yeast/query_dense_4_120.graph") as f64
    );
    // The final count iterates E inside the loop over its label vector's entries.
    assert!(
        !report.exec.scans.contains(&"count".to_string()),
        "the count kernel took the scan path: {:?}",
        report.exec.scans
    );
}
