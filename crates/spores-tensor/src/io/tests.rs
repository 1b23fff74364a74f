use std::path::Path;

use super::*;

fn tmp(name: &str, text: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("spores-tensor-io-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn tns_reads_one_based_coordinates() {
    let p = tmp("a.tns", "# comment\n1 1 2 1.5\n3 2 1 -2\n");
    let t = read_tensor(&p).unwrap();
    assert_eq!(t.dims(), &[3, 2, 2]);
    assert_eq!(t.get(&[0, 0, 1]), 1.5);
    assert_eq!(t.get(&[2, 1, 0]), -2.0);
    let bad = tmp("b.tns", "1 1 2 1.5\n0 1 1 2\n");
    let e = read_tensor(&bad).unwrap_err().to_string();
    assert!(
        e.ends_with("b.tns:2: coordinate 0 out of range (coordinates are 1-based)"),
        "{e}"
    );
    let bad = tmp("c.tns", "1 1 2 1.5\n1 1 2\n");
    let e = read_tensor(&bad).unwrap_err().to_string();
    assert!(
        e.contains("c.tns:2: 2 coordinates, but earlier lines have 3"),
        "{e}"
    );
}

#[test]
fn written_tensors_read_back() {
    let t = CooTensor::from_entries(
        vec![4, 3, 2],
        vec![(vec![3, 2, 1], 2.5), (vec![0, 0, 0], -1.0)],
        0.0,
    )
    .unwrap();
    let p = tmp("w.tns", "");
    write_tensor(&t, &p).unwrap();
    assert_eq!(read_tensor(&p).unwrap(), t);
    let m = CooTensor::from_entries(vec![3, 5], vec![(vec![2, 4], 7.0)], 0.0).unwrap();
    let p = tmp("w.mtx", "");
    write_tensor(&m, &p).unwrap();
    assert_eq!(read_tensor(&p).unwrap(), m);
}

/// A result with a non-zero fill keeps its value in every cell when written: a Matrix
/// Market order 1 or 2 file is then a dense array (a coordinate file's missing entries are
/// zeros to every reader), a `.tns` file records the fill on its `# dims` line.
#[test]
fn a_non_zero_fill_survives_writing_and_reading() {
    let m = CooTensor::from_entries(vec![2, 2], vec![(vec![0, 0], 6.0)], 1.0).unwrap();
    let v = CooTensor::from_entries(vec![3], vec![(vec![2], -2.0)], 0.5).unwrap();
    let cube = CooTensor::from_entries(vec![2, 2, 2], vec![(vec![1, 1, 1], 3.0)], 1.0).unwrap();
    for (t, name, sum) in [
        (m, "f.mtx", 9.0),
        (v, "f1.mtx", -1.0),
        (cube, "f.tns", 10.0),
    ] {
        let p = tmp(name, "");
        write_tensor(&t, &p).unwrap();
        let back = read_tensor(&p).unwrap();
        assert_eq!(back.dims(), t.dims(), "{name}");
        let cells: Vec<Vec<u32>> = match t.dims() {
            [n] => (0..*n as u32).map(|i| vec![i]).collect(),
            [r, c] => (0..*r as u32)
                .flat_map(|i| (0..*c as u32).map(move |j| vec![i, j]))
                .collect(),
            _ => (0..8u32)
                .map(|k| vec![k >> 2, (k >> 1) & 1, k & 1])
                .collect(),
        };
        let total: f64 = cells.iter().map(|c| back.get(c)).sum();
        assert_eq!(total, sum, "{name}");
        for c in &cells {
            assert_eq!(back.get(c), t.get(c), "{name} at {c:?}");
        }
    }
}

#[test]
fn edge_lists_and_missing_files() {
    let p = tmp("g.edges", "# graph\n0 1\n1 2 2.5\n0 1\n");
    let t = read_tensor(&p).unwrap();
    assert_eq!(t.dims(), &[3, 3]);
    assert_eq!(t.get(&[0, 1]), 2.0);
    assert_eq!(t.get(&[1, 2]), 2.5);
    let bad = tmp("h.edges", "0 1\n0 x\n");
    assert!(read_tensor(&bad)
        .unwrap_err()
        .to_string()
        .ends_with("h.edges:2: malformed vertex id `x`"));
    let e = read_tensor(Path::new("/nonexistent/x.tns"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("/nonexistent/x.tns"), "{e}");
}

#[test]
fn graphs_and_queries() {
    let g = tmp(
        "d.graph",
        "t 4 3\nv 0 7 1\nv 1 8 2\nv 2 7 2\nv 3 8 1\ne 0 1\ne 1 2\ne 2 3\n",
    );
    let g = subgraph::read_data_graph(&g).unwrap();
    assert_eq!(g.vertices, 4);
    assert_eq!(g.adjacency.nnz(), 6);
    assert_eq!(g.adjacency.get(&[1, 0]), 1.0);
    assert_eq!(
        g.labels[&7].iter().map(|(c, _)| c[0]).collect::<Vec<_>>(),
        vec![0, 2]
    );
    let h = tmp("h.txt", "t # 0\nv 0 1 2\nv 1 2\ne 0 1 0\ne 1 0 0\n");
    let h = subgraph::read_data_graph(&h).unwrap();
    assert_eq!(h.labels[&2].nnz(), 2);
    assert_eq!(h.adjacency.nnz(), 2);
    let q = tmp(
        "q.graph",
        "t # s 1\nv 0 7 -1\nv 1 -1 -1\nv 2 -1 -1\ne 1 0 0\ne 1 2 0\n",
    );
    let q = subgraph::read_query_graph(&q).unwrap();
    assert_eq!(q.labels, vec![Some(7), None, None]);
    assert_eq!(
        q.program().unwrap().queries[0].to_string(),
        "count = sum[v0,v1,v2](E[v0,v1] * E[v1,v2] * L7[v0])"
    );
    let bad = tmp("bad.graph", "t 1 0\nv 0 x 1\n");
    let e = subgraph::read_data_graph(&bad).unwrap_err().to_string();
    assert!(e.ends_with("bad.graph:2: malformed label `x`"), "{e}");
}

#[test]
fn npy_and_matrix_market_go_through_spores_exec() {
    use spores_exec::io::{write_matrix, Format, WriteOptions};
    use spores_exec::{DenseMatrix, Matrix};
    let m =
        Matrix::Dense(DenseMatrix::from_vec(2, 3, vec![1.0, 0.0, 2.0, 0.0, 0.0, -3.5]).unwrap());
    let p = tmp("m.npy", "");
    write_matrix(&m, &p, Format::Npy, &WriteOptions::default()).unwrap();
    let t = read_tensor(&p).unwrap();
    assert_eq!(t.dims(), &[2, 3]);
    assert_eq!(t.nnz(), 3);
    assert_eq!(t.get(&[1, 2]), -3.5);
    // A column vector is an order-1 tensor.
    let v = Matrix::Dense(DenseMatrix::from_vec(3, 1, vec![0.0, 4.0, 5.0]).unwrap());
    let p = tmp("v.mtx", "");
    write_matrix(&v, &p, Format::MatrixMarket, &WriteOptions::default()).unwrap();
    let t = read_tensor(&p).unwrap();
    assert_eq!(t.dims(), &[3]);
    assert_eq!(t.get(&[2]), 5.0);
    let e = read_tensor(&tmp(
        "bad.mtx",
        "%%MatrixMarket matrix coordinate real general\n2 2 1\n3 1 1\n",
    ))
    .unwrap_err()
    .to_string();
    assert!(e.contains("bad.mtx:3"), "{e}");
}
