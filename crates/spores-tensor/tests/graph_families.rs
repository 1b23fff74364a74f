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
