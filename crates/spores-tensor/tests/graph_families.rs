//! Every benchmark query (`bench/tensor/graph_queries/`) on small members of every generated
//! graph family (`io::graphgen`) counts what brute-force enumeration counts, under each
//! optimizer; generated graphs survive a write and a read.

mod opt_support;

use std::path::PathBuf;

use opt_support::{brute_force, engine_count_with};
use spores_tensor::driver::Optimizer;
use spores_tensor::io::graphgen::{generate, Family, GraphSpec};
use spores_tensor::io::subgraph::{read_data_graph, read_query_graph, QueryGraph};
use spores_tensor::RunOptions;

fn queries() -> Vec<(String, QueryGraph)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../bench/tensor/graph_queries");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "graph"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let name = p.file_stem().unwrap().to_string_lossy().into_owned();
            (name, read_query_graph(&p).unwrap())
        })
        .collect()
}

#[test]
fn the_query_set_is_complete() {
    let names: Vec<String> = queries().into_iter().map(|(n, _)| n).collect();
    for want in [
        "triangle",
        "labelled_triangle",
        "4cycle",
        "3path",
        "3star",
        "4clique",
        "diamond",
    ] {
        assert!(
            names.iter().any(|n| n == want),
            "{want} missing from {names:?}"
        );
    }
}

#[test]
fn every_query_on_every_family_matches_brute_force() {
    let queries = queries();
    for family in Family::ALL {
        for (vertices, edges, seed) in [(40, 90, 1), (120, 300, 2)] {
            let spec = GraphSpec {
                family,
                vertices,
                edges,
                labels: 3,
                seed,
            };
            let g = generate(&spec).unwrap();
            for (name, q) in &queries {
                let want = brute_force(&g, q, false);
                for optimizer in [Optimizer::Naive, Optimizer::Greedy, Optimizer::Exact] {
                    let options = RunOptions {
                        optimizer,
                        ..RunOptions::default()
                    };
                    assert_eq!(
                        engine_count_with(&g, q, &options),
                        want,
                        "{name} on {spec:?} with {optimizer:?}"
                    );
                }
            }
        }
    }
}

#[test]
fn generated_graphs_round_trip_through_files() {
    let dir = std::env::temp_dir().join(format!("spores-graphgen-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for family in Family::ALL {
        let g = generate(&GraphSpec::new(family, 300, 700)).unwrap();
        let path = dir.join(format!("{family}.graph"));
        g.write(&path).unwrap();
        let back = read_data_graph(&path).unwrap();
        assert_eq!(back.vertices, g.vertices, "{family}");
        assert_eq!(back.edges, g.edges, "{family}");
        assert_eq!(back.vertex_labels, g.vertex_labels, "{family}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// 4-cycles on an Erdős–Rényi graph whose wedge matrix `W = E E` has more cells than the
/// cache holds (10^8 slots, ~4*10^6 entries, bounded at 7.4*10^6): the plan stores `W`
/// as sorted rows (not a dense or bytemap 10^8-cell array), loops the counting kernel
/// over `W`'s row index first so each row serves all its inner loops, reads the symmetric
/// `E` without a transposed copy, and intersects `E`'s and `W`'s sorted rows in the
/// innermost loop. The count is `sum(W .* W)` computed directly.
#[test]
fn four_cycles_on_a_large_sparse_graph_plan_sorted_wedges_and_intersections() {
    use spores_tensor::plan_ast::{LevelFormat, PhysExpr, Protocol};
    let g = generate(&GraphSpec::new(Family::ErdosRenyi, 10_000, 100_000)).unwrap();
    let (_, q) = queries().into_iter().find(|(n, _)| n == "4cycle").unwrap();
    let (out, report) = spores_tensor::run(
        &q.program().unwrap(),
        &g.inputs_for(&q),
        &RunOptions::default(),
    )
    .unwrap();
    let plan = &report.physical;
    assert_eq!(plan.queries.len(), 2, "{plan:#?}");
    assert!(plan.queries.iter().all(|k| !k.name.contains("__T")));
    let (wedge, count) = (&plan.queries[0], &plan.queries[1]);
    assert_eq!(
        wedge.output_formats,
        vec![LevelFormat::Dense, LevelFormat::SortedList]
    );
    assert_eq!(count.loop_order[0], wedge.output_idxs[0], "{count:#?}");
    let PhysExpr::Map { args, .. } = &count.body else {
        panic!("a product: {count:#?}")
    };
    let innermost = count.loop_order.last().unwrap();
    let galloping: Vec<&str> = args
        .iter()
        .filter_map(|a| match a {
            PhysExpr::Access(a) => a
                .idxs
                .iter()
                .zip(&a.protocols)
                .any(|(i, p)| i == innermost && *p == Protocol::Gallop)
                .then_some(a.name.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(galloping.len(), 2, "{count:#?}");
    assert!(galloping.contains(&wedge.name.as_str()), "{count:#?}");
    // sum over (a, c) of W[a,c]^2, with W from adjacency lists.
    let mut adjacency = vec![vec![]; g.vertices];
    for &(u, v) in &g.edges {
        adjacency[u as usize].push(v as usize);
        adjacency[v as usize].push(u as usize);
    }
    let mut want = 0u64;
    let mut row = vec![0u64; g.vertices];
    for a in 0..g.vertices {
        let mut touched = vec![];
        for &b in &adjacency[a] {
            for &c in &adjacency[b] {
                if row[c] == 0 {
                    touched.push(c);
                }
                row[c] += 1;
            }
        }
        for c in touched {
            want += row[c] * row[c];
            row[c] = 0;
        }
    }
    assert_eq!(out["count"].values()[0], want as f64);
}
