//! `spores tensor` end to end on the shipped examples.

mod common;

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The binary run from the repository root, where the examples' relative paths hold.
fn spores(args: &[&str]) -> (i32, String, String) {
    common::spores_cli_with(args, &[], Some(&root()))
}

#[test]
fn triangle_example_counts_and_explains() {
    let (code, out, err) = spores(&[
        "tensor",
        "examples/tensor/triangles.tp",
        "--input",
        "E=examples/tensor/graph.mtx",
        "--explain",
        "--stats",
    ]);
    assert_eq!(code, 0, "{err}");
    // Triangles 0-1-2 (weights 1*3*2) and 1-2-3 (2*1*1), six orderings each.
    common::assert_contains(
        &out,
        &[
            "\nt = 48\n",
            "deg: dims [5], fill 0, 5 entries",
            "  (2) 6\n  (3) 3\n  (4) 1\n",
            "-- physical plan\nt[] () = sum[i,j,k]",
            "-- stats\noptimize:",
        ],
    );
}

#[test]
fn feature_example_writes_outputs() {
    let dir = std::env::temp_dir().join(format!("spores-cli-tensor-{}", std::process::id()));
    let (code, out, err) = spores(&[
        "tensor",
        "examples/tensor/features.tp",
        "--input",
        "S=examples/tensor/S.tns",
        "--input",
        "P=examples/tensor/P.mtx",
        "--input",
        "C=examples/tensor/C.mtx",
        "--input",
        "theta=examples/tensor/theta.mtx",
        "-o",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    // Sale 1 = product 1 + customer 2: (1.5, 0) + (0, -2).
    assert!(out.contains("X: dims [4, 2], fill 0, 7 entries"), "{out}");
    assert!(out.contains("  (0,0) 1.5\n  (0,1) -2\n"), "{out}");
    let written = std::fs::read_to_string(dir.join("X.mtx")).unwrap();
    assert!(written.starts_with("%%MatrixMarket matrix coordinate real general\n4 2 7\n1 1 1.5\n"));
    assert!(dir.join("y.mtx").exists());
}

#[test]
fn errors_name_the_place() {
    let dir = std::env::temp_dir().join(format!("spores-cli-tensor-err-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let prog = dir.join("bad.tp");
    std::fs::write(&prog, "y[i] = sum[j](A[i,j] * )\n").unwrap();
    let (code, _, err) = spores(&["tensor", prog.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(
        err.contains("bad.tp:1:24: error: expected an expression, found `)`"),
        "{err}"
    );
    assert!(
        err.contains("1 | y[i] = sum[j](A[i,j] * )\n  |                        ^"),
        "{err}"
    );
    let (code, _, err) = spores(&["tensor", "examples/tensor/triangles.tp"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("input `E` is not given (pass --input E=PATH)"),
        "{err}"
    );
    let (code, _, err) = spores(&[
        "tensor",
        "examples/tensor/triangles.tp",
        "--input",
        "E=/nonexistent/g.mtx",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("/nonexistent/g.mtx"), "{err}");
}

/// `spores tensor` on a program written to a temporary file, with one input `E=PATH`.
fn run_program(tag: &str, program: &str, input: &str) -> (i32, String, String) {
    let dir = std::env::temp_dir().join(format!("spores-cli-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{tag}.tp"));
    std::fs::write(&path, program).unwrap();
    let input = format!("E={input}");
    let result = spores(&["tensor", path.to_str().unwrap(), "--input", &input]);
    std::fs::remove_dir_all(&dir).ok();
    result
}

#[test]
fn a_repeated_index_reads_the_diagonal_of_a_query() {
    let (code, out, err) = run_program(
        "trace",
        "P[i,k] = sum[j](E[i,j] * E[j,k])\nw[i] = P[i,i]\nt = sum[i](P[i,i])\noutput w, t\n",
        "examples/tensor/graph.mtx",
    );
    assert_eq!(code, 0, "{err}");
    // (E^2)[i,i] is the sum of the squared weights of i's edges.
    common::assert_contains(
        &out,
        &[
            "t = 34\n",
            "  (0) 10\n  (1) 6\n  (2) 14\n  (3) 3\n  (4) 1\n",
        ],
    );
}

#[test]
fn integer_inputs_use_integer_division_by_zero_and_must_hold_integers() {
    // E[j,i] - 1 is 0 on the weight-1 edges: fld by 0 is 0 for integers (NumPy's int64),
    // where floats would give Inf.
    let program = "input E int\nq[i,j] = fld(E[i,j], E[j,i] - 1)\nc = sum[i,j](q[i,j])\noutput c\n";
    let (code, out, err) = run_program("int", program, "examples/tensor/graph.mtx");
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("c = 6\n"), "{out}");
    let (code, _, err) = run_program("int", program, "examples/tensor/theta.mtx");
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("input E is declared `int` but holds 0.5 at [0]"),
        "{err}"
    );
}
