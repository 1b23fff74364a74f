//! End-to-end tests of the interpreter: small DML scripts with asserted output.

use std::collections::HashMap;

use spores_dml::{run_script, RunOptions, ScriptError};

fn run(src: &str) -> String {
    match run_script(src, RunOptions::default()) {
        Ok(out) => out,
        Err(e) => panic!("script failed: {}", e.diagnostic().render("test.dml", src)),
    }
}

fn run_with_args(src: &str, args: &[(&str, &str)]) -> String {
    let options = RunOptions {
        args: args
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect::<HashMap<_, _>>(),
        ..RunOptions::default()
    };
    run_script(src, options)
        .unwrap_or_else(|e| panic!("{}", e.diagnostic().render("test.dml", src)))
}

fn runtime_error(src: &str) -> String {
    match run_script(src, RunOptions::default()) {
        Err(ScriptError::Runtime(d)) => d.render("test.dml", src),
        Err(ScriptError::Parse(d)) => {
            panic!("expected a runtime error, got a parse error: {}", d.message)
        }
        Ok(out) => panic!("expected a runtime error, script printed {out:?}"),
    }
}

/// Parses the last whitespace-separated token of each printed line as a number.
fn numbers(out: &str) -> Vec<f64> {
    out.lines()
        .filter_map(|l| l.split_whitespace().last()?.parse().ok())
        .collect()
}

#[test]
fn scalar_arithmetic_and_printing_follow_dml() {
    let out = run(r#"
        print(1 + 2)
        print(5 / 2)
        print(7 %/% 2)
        print(-7 %% 3)
        print(2 ^ 3)
        print(-2 ^ 2)
        print("a" + 1.5 + "b")
        print(1 < 2 & 3 > 4)
        print(12345678.9)
        print(0.0001)
    "#);
    assert_eq!(
        out,
        // `-7 %% 3` is -1: SystemDS 3.4 truncates, as Java's `%` does.
        "3\n2.5\n3\n-1\n8.0\n-4.0\na1.5b\nFALSE\n1.23456789E7\n1.0E-4\n"
    );
}

#[test]
fn matrix_expressions_compute_the_right_numbers() {
    let out = run(r#"
        X = matrix("1 2 3 4", rows=2, cols=2)
        print(sum(X %*% t(X)))
        print(as.scalar(X[2, 1]))
        print(sum(X[, 2]))
        print(sum(rowSums(X) * colSums(t(X))))
        print(mean(X))
        print(max(X) - min(X))
        print(nrow(X) + ncol(X))
        Y = X
        Y[1, 2] = 10
        print(sum(Y) - sum(X))
        print(toString(X))
    "#);
    // X X^T = [[5, 11], [11, 25]]; rowSums (2x1) * colSums(t(X)) (1x2) broadcasts to the
    // outer product [[9, 21], [21, 49]].
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[..8],
        ["52.0", "3.0", "6.0", "100.0", "2.5", "3.0", "4", "8.0"]
    );
    assert_eq!(lines[8..], ["1.000 2.000", "3.000 4.000", ""]);
}

#[test]
fn control_flow_and_functions() {
    let out = run(r#"
        scale = function(matrix[double] X, double s = 2.0) return (matrix[double] Y) {
            Y = X * s
        }
        stats = function(matrix[double] X) return (double total, double largest) {
            total = sum(X)
            largest = max(X)
        }
        total = 0
        for (i in 1:10) {
            total = total + i
        }
        print(total)
        k = 0
        while (k < 5) {
            k = k + 2
        }
        print(k)
        if (k == 6) { print("six") } else if (k == 5) { print("five") } else { print("other") }
        for (i in 3:1) { print(i) }
        X = matrix(1, rows=3, cols=3)
        print(sum(scale(X)))
        print(sum(scale(X, 3)))
        [a, b] = stats(scale(X, s=4))
        print(a + b)
    "#);
    assert_eq!(out, "55\n6\nsix\n3\n2\n1\n18.0\n27.0\n40.0\n");
}

#[test]
fn random_matrices_are_seeded_and_sparse() {
    let out = run(r#"
        A = rand(rows=200, cols=100, sparsity=0.05, seed=3)
        B = rand(rows=200, cols=100, sparsity=0.05, seed=3)
        print(sum(A != B))
        print(sum(A != 0) / (200 * 100))
        print(min(A) >= 0 & max(A) <= 1)
    "#);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "0.0");
    let density: f64 = lines[1].parse().unwrap();
    assert!((density - 0.05).abs() < 0.01, "density {density}");
    assert_eq!(lines[2], "TRUE");
}

#[test]
fn loss_matches_a_hand_computation() {
    let out = run(r#"
        X = matrix("1 0 2 0 0 3", rows=2, cols=3)
        U = matrix("1 2", rows=2, cols=1)
        V = matrix("1 0 1", rows=3, cols=1)
        print(sum((X - U %*% t(V))^2))
        print(sum((X + U %*% t(V))^2))
        print(sum(X * (U %*% t(V))))
    "#);
    // U V^T = [[1, 0, 1], [2, 0, 2]]; X - UV^T = [[0, 0, 1], [-2, 0, 1]]; X + UV^T = [[2, 0, 3], [2, 0, 5]].
    assert_eq!(numbers(&out), vec![6.0, 42.0, 9.0]);
}

/// SystemDS's `compress`/`decompress` change the storage, not the cells.
#[test]
fn compress_and_decompress_keep_the_matrix() {
    let src = "A = round(rand(rows=10, cols=5, seed=1412) * 9)\nB = decompress(compress(A))\nprint(sum(compress(A)) + \" \" + sum(B == A))\n";
    assert_eq!(run(src), "211.0 50.0\n");
}

#[test]
fn command_line_arguments_and_ifdef() {
    let src = r#"
        n = ifdef($n, 4)
        name = ifdef($name, "none")
        print(name + " " + n * 2)
    "#;
    assert_eq!(run(src), "none 8\n");
    assert_eq!(run_with_args(src, &[("n", "5"), ("name", "x")]), "x 10\n");
    // `"max= " + max` in SystemDS's tests: the value is still a number.
    assert_eq!(run_with_args(src, &[("n", " 5"), ("name", "x")]), "x 10\n");
    let err = runtime_error_or_parse("print($missing)");
    assert!(err.contains("`$missing` is not given"), "{err}");
}

fn runtime_error_or_parse(src: &str) -> String {
    match run_script(src, RunOptions::default()) {
        Err(e) => e.diagnostic().render("test.dml", src),
        Ok(out) => panic!("expected an error, got {out:?}"),
    }
}

#[test]
fn runtime_errors_point_at_the_code() {
    let err =
        runtime_error("X = matrix(1, rows=2, cols=3)\nY = matrix(1, rows=3, cols=3)\nZ = X + Y\n");
    assert!(err.contains("test.dml:3:5"), "{err}");
    assert!(err.contains("2x3") && err.contains("3x3"), "{err}");

    let err = runtime_error("x = 1\nprint(y + x)\n");
    assert!(err.contains("test.dml:2:7") && err.contains("`y`"), "{err}");

    let err = runtime_error("X = matrix(1, rows=2, cols=2)\nprint(as.scalar(X[3, 1]))\n");
    assert!(err.contains("row index 3 is out of bounds 1..2"), "{err}");

    let err = runtime_error("stop(\"bad input\")");
    assert!(err.contains("stop: bad input"), "{err}");

    let err = runtime_error("X = read(\"/nonexistent/x.mtx\")");
    assert!(err.contains("/nonexistent/x.mtx"), "{err}");

    // 10,000 nested calls need more stack than a test thread has: the stack a run gets.
    let err = std::thread::Builder::new()
        .stack_size(spores_dml::STACK_BYTES)
        .spawn(|| {
            runtime_error("f = function(double x) return (double y) { y = f(x) }\nprint(f(1))")
        })
        .unwrap()
        .join()
        .unwrap();
    assert!(
        err.contains("calls nested deeper than 10000 levels"),
        "{err}"
    );
}

#[test]
fn write_then_read_round_trips_through_every_format() {
    let dir = std::env::temp_dir().join(format!("spores-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for ext in ["mtx", "csv", "npy"] {
        let path = dir.join(format!("x.{ext}"));
        let src = format!(
            r#"
            X = rand(rows=30, cols=20, sparsity=0.2, min=-1, max=1, seed=11)
            write(X, "{p}")
            Y = read("{p}")
            print(sum(abs(X - Y)))
            print(sum(X) == sum(Y))
            "#,
            p = path.display()
        );
        assert_eq!(run(&src), "0.0\nTRUE\n", "format {ext}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// SystemDS's tests say what they read (`read($1, rows=$2, cols=$3, format="mm")`): the
/// size is checked against the file and named when it differs, `nnz` is a hint, and only
/// a matrix of numbers is read.
#[test]
fn read_takes_the_size_and_types_systemds_scripts_give() {
    let dir = std::env::temp_dir().join(format!("spores-test-readsize-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let x = dir.join("x.mtx");
    run(&format!(
        "X = matrix(\"1 0 2 0 0 3\", rows=3, cols=2)\nwrite(X, \"{}\")\n",
        x.display()
    ));
    // Checked against the file itself, not the metadata `write` put beside it.
    std::fs::remove_file(dir.join("x.mtx.mtd")).unwrap();
    let src = "X = read($1, rows=$2, cols=$3, nnz=3, format=\"mm\", data_type=\"matrix\", value_type=\"double\")\nprint(sum(X))\n";
    let args = [("1", x.to_str().unwrap()), ("2", "3"), ("3", "2")];
    assert_eq!(run_with_args(src, &args), "6.0\n");
    let wrong = |call: &str| {
        runtime_error(&format!(
            "X = read(\"{}\", {call})\nprint(sum(X))\n",
            x.display()
        ))
    };
    for (call, says) in [
        (
            "rows=4, cols=2",
            "x.mtx: the file has 3 rows, the call says rows=4",
        ),
        ("cols=3", "the file has 2 columns, the call says cols=3"),
        (
            "data_type=\"frame\"",
            "a frame is read from csv, not format=\"mm\"",
        ),
        (
            "data_type=\"tensor\"",
            "data_type=\"tensor\" is not supported",
        ),
    ] {
        let err = wrong(call);
        assert!(err.contains(says), "{call}: {err}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// SystemDS's default format, text cells, and its `.mtd` metadata files: `write` puts one
/// beside each file, as SystemDS 3.4 does, and `read($X)` takes the format, the size and
/// the types from it. The files' texts are the ones SystemDS 3.4 wrote for this script.
#[test]
fn text_cells_scalars_and_metadata_files_as_systemds_writes_them() {
    let dir = std::env::temp_dir().join(format!("spores-test-textcell-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let in_dir = |src: &str| src.replace("DIR", &dir.display().to_string());
    run(&in_dir(
        r#"
        X = matrix("1 0 2 0 0 3.5", rows=2, cols=3)
        write(X, "DIR/x", format="text")
        write(matrix(0, rows=3, cols=4), "DIR/z")
        write(3.5, "DIR/s")
        write(TRUE, "DIR/b")
        write(X, "DIR/c.csv", format="csv", header=TRUE, sep=";")
        "#,
    ));
    let file = |name: &str| std::fs::read_to_string(dir.join(name)).unwrap();
    assert_eq!(file("x"), "1 1 1\n1 3 2\n2 3 3.5\n");
    assert_eq!(file("z"), "0 0 0\n");
    assert_eq!(
        (file("s"), file("b")),
        ("3.5".to_string(), "true".to_string())
    );
    let mtd: serde_json::Value = serde_json::from_str(&file("z.mtd")).unwrap();
    assert_eq!(
        mtd,
        serde_json::json!({"data_type": "matrix", "value_type": "double", "rows": 3,
                           "cols": 4, "nnz": 0, "format": "text"})
    );
    let mtd: serde_json::Value = serde_json::from_str(&file("c.csv.mtd")).unwrap();
    assert_eq!(
        (&mtd["header"], &mtd["sep"]),
        (&serde_json::json!(true), &serde_json::json!(";"))
    );
    std::fs::write(dir.join("in.ijv"), "1 1 2.5\n3 2 -1\n2 3 7\n").unwrap();
    let out = run(&in_dir(
        r#"
        X = read("DIR/x")
        Z = read("DIR/z")
        s = read("DIR/s")
        b = read("DIR/b", data_type="scalar", value_type="boolean")
        C = read("DIR/c.csv")
        I = read("DIR/in.ijv", rows=3, cols=3, format="text")
        print(toString(X))
        print(nrow(Z) + "x" + ncol(Z) + " " + sum(Z))
        print(s + 1)
        print(b)
        print(sum(C) + " " + sum(I))
        "#,
    ));
    assert_eq!(
        out,
        "1.000 0.000 2.000\n0.000 0.000 3.500\n\n3x4 0.0\n4.5\nTRUE\n6.5 8.5\n"
    );
    // The call and the metadata must agree; a metadata file that is not JSON is named.
    let err = runtime_error(&in_dir("X = read(\"DIR/x\", rows=5)\nprint(sum(X))\n"));
    assert!(
        err.contains("the call says rows=5, its metadata file says 2"),
        "{err}"
    );
    std::fs::write(dir.join("x.mtd"), "{\"rows\": 2,").unwrap();
    let err = runtime_error(&in_dir("X = read(\"DIR/x\")\nprint(sum(X))\n"));
    assert!(err.contains("x.mtd:1"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A run of `read` statements is read concurrently (`Interpreter::prefetch_reads`): the
/// values, the duplicates, `$args`, reader options and the error of the first failing
/// read are what reading them one after the other gives.
#[test]
fn consecutive_reads_match_reading_one_after_the_other() {
    let dir = std::env::temp_dir().join(format!("spores-test-reads-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (a, b, c) = (dir.join("a.mtx"), dir.join("b.csv"), dir.join("c.npy"));
    let write = format!(
        r#"
        A = rand(rows=40, cols=30, sparsity=0.1, min=-1, max=1, seed=3)
        B = rand(rows=20, cols=5, min=-1, max=1, seed=4)
        C = rand(rows=7, cols=7, min=-1, max=1, seed=5)
        write(A, "{a}")
        write(B, "{b}", format="csv", header=TRUE, sep=";")
        write(C, "{c}")
        print(sum(A) + " " + sum(B) + " " + sum(C))
        "#,
        a = a.display(),
        b = b.display(),
        c = c.display()
    );
    let sums = run(&write);
    let reads = format!(
        r#"
        A = read($A, format="mm")
        B = read("{b}", format="csv", header=TRUE, sep=";")
        A2 = read($A)
        C = read("{c}")
        print(sum(A) + " " + sum(B) + " " + sum(C))
        print(sum(A != A2) + " " + nrow(B) + " " + ncol(B))
        "#,
        b = b.display(),
        c = c.display()
    );
    let out = run_with_args(&reads, &[("A", &a.display().to_string())]);
    assert_eq!(out, format!("{sums}0.0 20 5\n"));

    // The first failing read in statement order is the error, at its own statement.
    let missing = dir.join("missing.mtx");
    let src = format!(
        "A = read(\"{a}\")\nM = read(\"{m}\")\nN = read(\"{n}\")\n",
        a = a.display(),
        m = missing.display(),
        n = dir.join("also-missing.mtx").display()
    );
    let err = runtime_error(&src);
    assert!(err.contains("missing.mtx"), "{err}");
    assert!(!err.contains("also-missing.mtx"), "{err}");
    assert!(err.contains(":2:"), "the error is at line 2: {err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn common_subexpressions_are_computed_once() {
    use spores_dml::dag::Op;
    let src = "A = t(X) %*% y\nB = t(X) %*% y + 1\nC = sum(t(X))\n";
    let block = spores_dml::dag::lower_source(src).unwrap();
    let count = |want: &Op| block.dag.nodes().iter().filter(|n| &n.op == want).count();
    assert_eq!(count(&Op::Transpose), 1);
    assert_eq!(count(&Op::MatMul), 1);
    assert_eq!(count(&Op::Input("X".into())), 1);
    assert_eq!(
        block
            .outputs
            .iter()
            .map(|(n, _)| n.as_str())
            .collect::<Vec<_>>(),
        ["A", "B", "C"]
    );
}

/// SystemDS's binary blocks: a matrix of several blocks written and read back through DML,
/// with the `.mtd` SystemDS reads (SystemDS 3.4 read this file back with the same sum and
/// non-zero count; the reader's byte-level checks are in spores-exec's io tests).
#[test]
fn binary_block_files_round_trip_through_dml() {
    let dir = std::env::temp_dir().join(format!("spores-test-binary-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let in_dir = |src: &str| src.replace("DIR", &dir.display().to_string());
    let out = run(&in_dir(
        r#"
        S = rand(rows=1500, cols=1200, sparsity=0.01, seed=3)
        write(S, "DIR/s", format="binary")
        T = read("DIR/s")
        print(as.integer(sum(T != 0)) + " " + nrow(T) + " " + ncol(T))
        print(sum(abs(T - S)))
        "#,
    ));
    assert_eq!(out, "18084 1500 1200\n0.0\n");
    let mtd: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("s.mtd")).unwrap()).unwrap();
    assert_eq!(
        (&mtd["format"], &mtd["rows"], &mtd["nnz"]),
        (
            &serde_json::json!("binary"),
            &serde_json::json!(1500),
            &serde_json::json!(18084)
        )
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
