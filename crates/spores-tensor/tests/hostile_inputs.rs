//! Inputs a hostile but fair user brings: zero-length modes, tensors that store nothing
//! but a fill over huge domains, and deeply nested expressions. Each gets the right value
//! or a clean error; none panics, overflows the stack or visits every cell.

use std::collections::HashMap;
use std::path::Path;

use spores_tensor::driver::Optimizer;
use spores_tensor::io::tns;
use spores_tensor::parse::parse_program;
use spores_tensor::{run, CooTensor, RunOptions};

/// Runs `src` under every optimizer; returns output `name`, checking they agree.
fn eval(src: &str, inputs: &[(&str, CooTensor)], name: &str) -> CooTensor {
    let parsed = parse_program(src).unwrap();
    let inputs: HashMap<String, CooTensor> = inputs
        .iter()
        .map(|(n, t)| (n.to_string(), t.clone()))
        .collect();
    let mut results = [Optimizer::Greedy, Optimizer::Exact, Optimizer::Naive]
        .into_iter()
        .map(|optimizer| {
            let options = RunOptions {
                optimizer,
                ..Default::default()
            };
            let (mut out, _) = run(&parsed.program, &inputs, &options).unwrap();
            out.remove(name).unwrap()
        });
    let first = results.next().unwrap();
    // Plans aggregate in different orders: equal up to rounding.
    for other in results {
        assert_eq!(other.dims(), first.dims());
        assert!(close(other.fill(), first.fill()), "{src}");
        assert_eq!(other.nnz(), first.nnz(), "{src}");
        for (a, b) in other.values().iter().zip(first.values()) {
            assert!(close(*a, *b), "{src}: {a} vs {b}");
        }
    }
    first
}

fn close(a: f64, b: f64) -> bool {
    a == b || (a - b).abs() <= 1e-12 * a.abs().max(b.abs())
}

fn tensor(text: &str) -> CooTensor {
    tns::parse(text, Path::new("input.tns")).unwrap()
}

fn scalar(t: &CooTensor) -> f64 {
    t.get(&[])
}

#[test]
fn a_zero_length_mode_gives_the_aggregate_of_nothing() {
    let empty = CooTensor::from_entries(vec![0, 0], vec![], 0.0).unwrap();
    let tall = tensor("# dims [3, 0] fill 2\n");
    assert_eq!(
        scalar(&eval("s = sum[i,j](A[i,j])", &[("A", empty.clone())], "s")),
        0.0
    );
    assert_eq!(
        scalar(&eval("s = sum[i,j](A[i,j])", &[("A", tall.clone())], "s")),
        0.0
    );
    let m = eval("m = max[i,j](A[i,j])", &[("A", empty.clone())], "m");
    assert_eq!(scalar(&m), f64::NEG_INFINITY);
    let p = eval("p = prod[i,j](A[i,j] + 1)", &[("A", tall.clone())], "p");
    assert_eq!(scalar(&p), 1.0);
    // Each of the three rows sums over no columns.
    let rows = eval("r[i] = sum[j](A[i,j])", &[("A", tall)], "r");
    assert_eq!(rows.dims(), &[3]);
    assert_eq!((0..3).map(|i| rows.get(&[i])).collect::<Vec<_>>(), [0.0; 3]);
    let tri = "t = sum[i,j,k](E[i,j] * E[j,k] * E[k,i])";
    assert_eq!(scalar(&eval(tri, &[("E", empty)], "t")), 0.0);
}

#[test]
fn sums_over_fills_are_taken_in_closed_form_beyond_two_to_the_64_cells() {
    let big = tensor("# dims [100000, 100000] fill 1\n");
    let s = eval("s = sum[i,j](A[i,j])", &[("A", big.clone())], "s");
    assert_eq!(scalar(&s), 1e10);
    let rows = eval("r[i] = sum[j](A[i,j] * 3)", &[("A", big)], "r");
    assert_eq!(rows.dims(), &[100000]);
    assert_eq!(rows.nnz(), 0);
    assert_eq!(rows.fill(), 300000.0);

    let huge = tensor("# dims [99999999999, 99999999999] fill 7\n");
    let s = scalar(&eval("s = sum[i,j](A[i,j])", &[("A", huge)], "s"));
    assert!(close(s, 7.0 * 99999999999.0f64 * 99999999999.0), "{s}");

    let small = tensor("# dims [3, 4] fill 2\n");
    let p = eval("p = prod[i,j](A[i,j])", &[("A", small.clone())], "p");
    assert_eq!(scalar(&p), 4096.0);
    let q = eval("q = sum[i,j](A[i,j] * 3 + 1)", &[("A", small)], "q");
    assert_eq!(scalar(&q), 84.0);
}

#[test]
fn an_all_fill_tensor_written_with_dims_reads_back() {
    let t = tensor("# dims [2, 3, 4] fill 5\n");
    assert_eq!(t.dims(), &[2, 3, 4]);
    assert_eq!(t.nnz(), 0);
    assert_eq!(t.fill(), 5.0);
    let s = eval("s = sum[i,j,k](A[i,j,k])", &[("A", t)], "s");
    assert_eq!(scalar(&s), 120.0);
}

#[test]
fn deep_nesting_is_a_parse_error_not_a_stack_overflow() {
    for src in [
        format!("s = {}A[i,j]{}", "(".repeat(5000), ")".repeat(5000)),
        format!("s = sum[i,j]({}A[i,j])", "-".repeat(5000)),
        format!("s = sum[i,j](A[i,j]{})", "^A[i,j]".repeat(5000)),
    ] {
        let Err(err) = parse_program(&src) else {
            panic!("nesting 5000 deep was accepted")
        };
        let err = err.to_string();
        assert!(err.contains("nested too deeply"), "{err}");
    }
    // 200 levels are fine.
    let ok = format!("s = sum[i,j]({}A[i,j]{})", "(".repeat(200), ")".repeat(200));
    assert!(parse_program(&ok).is_ok());
}

/// Malformed subgraph files: each error names the file and the line, and well-formed
/// records read as written.
#[test]
fn malformed_graph_files_name_their_line() {
    use spores_tensor::io::subgraph::{read_data_graph, read_query_graph};
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("hostile-graphs");
    std::fs::create_dir_all(&dir).unwrap();
    let write = |name: &str, text: &str| {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path
    };
    for (text, line, says) in [
        ("t 2 1\nv 0 1\nv 1\n", 3, "expected `v ID LABEL ...`"),
        ("v 0 1\nv 1 1\ne 0\n", 3, "expected `e SRC DST [LABEL]`"),
        ("v 0 1\nx 1 2\n", 2, "unknown record `x`"),
        ("v 0 1\nv -1 1\n", 2, "malformed vertex id `-1`"),
        ("v 0 1\nv 1 1\ne 0 1 7\n", 3, "edge labels other than 0"),
    ] {
        let err = read_data_graph(&write("data.graph", text))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains(&format!("data.graph:{line}")) && err.contains(says),
            "{text:?}: {err}"
        );
    }
    let err = read_query_graph(&write("query.graph", "v 0 1\nv 1 1\ne 1 1\n"))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("query.graph:3") && err.contains("self-loop"),
        "{err}"
    );
    let g = read_query_graph(&write("ok.graph", "t 2 1\nv 0 5\nv 1 -1\ne 0 1\ne 0 1\n")).unwrap();
    assert_eq!(g.labels, vec![Some(5), None]);
    assert_eq!(g.edges, vec![(0, 1)]);
}
