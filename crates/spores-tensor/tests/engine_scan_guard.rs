//! The scan fast path (`engine::scan`) walks the loops inside its leader's in full; a kernel
//! whose plan iterates a sparse access inside those loops must stay with the interpreter,
//! which visits only that access's stored entries. Taking the scan there turned yeast
//! `query_dense_4_120`'s last kernel from a sparse intersection into a dense walk (0.07 ms
//! -> 58 ms, same count).

use std::path::PathBuf;

use spores_tensor::io::subgraph::{read_data_graph, read_query_graph};
use spores_tensor::{run, RunOptions};

fn data() -> PathBuf {
    let mut p = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    loop {
        let cand = p.join("shared/data/subgraph");
        if cand.is_dir() {
            return cand;
        }
        assert!(p.pop(), "shared/data/subgraph not found above the crate");
    }
}

#[test]
fn kernels_iterating_a_sparse_follower_do_not_take_the_scan_path() {
    let g = read_data_graph(&data().join("graphs/yeast.graph")).unwrap();
    let q = read_query_graph(&data().join("queries/yeast-lite/query_dense_4_120.graph")).unwrap();
    let program = q.program().unwrap();
    let inputs = g.inputs_for(&q);
    let (out, report) = run(&program, &inputs, &RunOptions::default()).unwrap();
    let text =
        std::fs::read_to_string(data().join("true_counts/yeast/query_dense_4_120.graph")).unwrap();
    let want: f64 = text.split_whitespace().last().unwrap().parse().unwrap();
    assert_eq!(out["count"].values()[0], want);
    // The final count iterates E inside the loop over its label vector's entries.
    assert!(
        !report.exec.scans.contains(&"count".to_string()),
        "the count kernel took the scan path: {:?}",
        report.exec.scans
    );
}
