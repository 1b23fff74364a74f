//! The `spores` binary: exit codes, error rendering, `--explain` and `--stats`.

mod common;

use common::{assert_contains, run_file, shape_flags, spores_cli as spores, temp_file};

#[test]
fn a_good_script_exits_zero_and_prints() {
    let (code, out, err) = run_file(
        "ok.dml",
        "x = sum(matrix(3, rows=2, cols=2))\nprint(\"x \" + x)\n",
        &[],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "x 12.0\n");
}

#[test]
fn a_parse_error_exits_two_with_line_column_and_caret() {
    let (code, _, err) = run_file("bad.dml", "x = 1\ny = (x + \n", &[]);
    assert_eq!(code, 2);
    assert!(err.contains("bad.dml:2:"), "{err}");
    assert!(err.contains('^'), "{err}");
}

#[test]
fn a_runtime_error_exits_one_naming_both_shapes() {
    let source = "A = matrix(1, rows=2, cols=3)\nB = A %*% A\n";
    let (code, _, err) = run_file("shape.dml", source, &[]);
    assert_eq!(code, 1);
    assert!(err.contains("shape.dml:2:5"), "{err}");
    assert!(err.contains("2x3"), "{err}");
}

#[test]
fn usage_errors_exit_two() {
    let (code, _, err) = spores(&["run", "/nonexistent/script.dml"]);
    assert_eq!(code, 2);
    assert!(err.contains("/nonexistent/script.dml"));

    let (code, _, err) = run_file("args.dml", "print(1)\n", &["--arg", "novalue"]);
    assert_eq!(code, 2);
    assert!(err.contains("NAME=VALUE"));

    assert_eq!(spores(&["frobnicate"]).0, 2);
}

#[test]
fn arguments_reach_the_script() {
    let source = "n = $n\nprint(n * 2)\nprint($name)\n";
    let (_, out, err) = run_file(
        "argv.dml",
        source,
        &["--arg", "n=21", "--arg", "name=spores"],
    );
    assert_eq!(out, "42\nspores\n", "{err}");
}

#[test]
fn explain_prints_each_block_dag_with_shapes() {
    let (_, stdout, _) = run_file(
        "explain.dml",
        "X = rand(rows=20, cols=10, sparsity=0.1, seed=1)\nY = t(X) %*% X\nprint(sum(Y))\nwhile(FALSE){}\nprint(sum(X))\n",
        &["--explain"],
    );
    for needle in [
        "--- block",
        "rand(20, 10, 0.0, 1.0, 0.1, 1, \"uniform\", 1.0)",
        "= t(A)%*%B(%7, %7)",
        "10x10",
        "20x10 sparse",
        "outputs: X = %",
    ] {
        assert!(stdout.contains(needle), "{needle}: {stdout}");
    }
}

/// SystemDS's weighted-sigmoid test script: `UV` is read only inside its own block, so it
/// is not an output, and the block's plan never forms the dense 400 x 300 product (the
/// masked operator computes it at `X`'s non-zeros). A value nothing reads at all still
/// runs (its error shows), and one read after the block stays an output.
#[test]
fn a_value_read_only_inside_its_block_is_not_materialized() {
    let script = "X = rand(rows=400, cols=300, sparsity=0.01, seed=1)\n\
                  U = rand(rows=400, cols=10, seed=2)\n\
                  V = rand(rows=300, cols=10, seed=3)\n\
                  while(FALSE){}\n\
                  UV = U %*% t(V)\n\
                  R = X * (1 / (1 + exp(-UV)))\n\
                  print(sum(R))\n";
    let (code, out, err) = run_file("wsigmoid.dml", script, &["--explain"]);
    assert_eq!(code, 0, "{err}");
    let block = out
        .split("--- block")
        .find(|b| b.contains("masked"))
        .unwrap_or_else(|| panic!("a masked operator: {out}"));
    assert!(!block.contains("outputs: UV"), "{block}");
    assert!(!block.contains("400x300 dense"), "{block}");
    // Read after its block, `UV` is an output again: the same sum either way.
    let (_, alone, _) = run_file("wsigmoid_sum.dml", script, &[]);
    let (_, both, err) = run_file(
        "wsigmoid_uv.dml",
        &format!("{script}while(FALSE){{}}\nprint(sum(UV))\n"),
        &[],
    );
    assert_eq!(both.lines().next(), alone.lines().next(), "{err}");
    assert_eq!(both.lines().count(), 2, "{both}");
    let (code, _, err) = run_file(
        "dead_error.dml",
        "A = matrix(1, rows=2, cols=3)\nB = A %*% A\nprint(1)\n",
        &[],
    );
    assert_eq!(code, 1);
    assert_contains(&err, &["2x3"]);
}

/// As in SystemDS, an assignment nothing reads does not run, so a slice of column 0 on a
/// path that never reads it is no error (`steplm`); a shape error in it that is known
/// before running still is, at its place in the script, and a function call still runs.
/// What only dead assignments read is dead as well.
#[test]
fn a_dead_assignment_does_not_run_but_its_static_errors_show() {
    let (code, out, err) = run_file(
        "dead_slice.dml",
        "X = matrix(1, rows=2, cols=3)\nc = 0\nB = X[, c]\nprint(\"after\")\n",
        &[],
    );
    assert_eq!((code, out.as_str()), (0, "after\n"), "{err}");
    let (code, _, err) = run_file(
        "dead_shapes.dml",
        "X = matrix(1, rows=2, cols=3)\nprint(\"before\")\nY = t(X) + X\nZ = X %*% X\n",
        &[],
    );
    assert_eq!(code, 1);
    assert_contains(&err, &["dead_shapes.dml:3:5", "+", "3x2", "2x3"]);
    // A function call still runs, for what it prints (SystemDS: the same lines).
    let (code, out, err) = run_file(
        "dead_call.dml",
        "f = function(Double a) return (Double b) { print(\"called \" + a)\n b = a }\nx = f(3)\ny = f(4) + 1\nprint(\"after\")\n",
        &[],
    );
    assert_eq!(
        (code, out.as_str()),
        (0, "called 3.0\ncalled 4.0\nafter\n"),
        "{err}"
    );
    // A value read only by dead assignments is dead too, through a loop: SystemDS's `cox`
    // inverts a singular matrix only for such a chain, and neither system runs it.
    let (code, out, err) = run_file(
        "dead_chain.dml",
        "H = matrix(0, rows=2, cols=2)\nH_inv = inv(H)\nse = sqrt(diag(H_inv))\nZ = H[, 1] / se\nfor (i in 1:2) {\n  z = abs(as.scalar(Z[i, 1]))\n}\nprint(sum(H))\n",
        &[],
    );
    assert_eq!((code, out.as_str()), (0, "0.0\n"), "{err}");
}

/// `write` creates the folders its file needs, as SystemDS does (its tests write to
/// `out/B` in a fresh folder).
#[test]
fn write_creates_the_folders_of_its_file() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("spores-tests/new-folder");
    let _ = std::fs::remove_dir_all(&dir);
    let file = dir.join("a/b/X");
    let (code, _, err) = run_file(
        "write_folders.dml",
        &format!(
            "write(matrix(1, rows=2, cols=2), \"{}\", format=\"csv\")\n",
            file.display()
        ),
        &[],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "1,1\n1,1\n");
}

#[test]
fn stats_report_times_and_heavy_hitters() {
    let (code, _, err) = run_file(
        "stats.dml",
        "X = rand(rows=50, cols=50, seed=1)\nfor (i in 1:3) { X = X %*% X / 50 }\nprint(sum(X))\n",
        &["--stats", "--threads", "1"],
    );
    assert_eq!(code, 0);
    assert_contains(
        &err,
        &[
            "Total elapsed time",
            "Total compilation time",
            "Total execution time",
            "Heavy hitter operators",
        ],
    );
    let matmul_line = err
        .lines()
        .find(|l| l.contains("%*%"))
        .expect("%*% is listed");
    assert!(matmul_line.trim_end().ends_with(" 3"), "{matmul_line}");
}

/// `spores equiv LHS RHS` with `--shape` flags and any `extra` flags.
fn equiv(lhs: &str, rhs: &str, shapes: &[&str], extra: &[&str]) -> (i32, String, String) {
    spores(&[&["equiv", lhs, rhs], &shape_flags(shapes)[..], extra].concat())
}

#[test]
fn equiv_decides_and_prints_witnesses() {
    let shapes = ["X=mxn", "U=mxk", "V=nxk"];
    let expanded = "sum(X^2) - 2*sum(X * (U %*% t(V))) + sum((t(U)%*%U) * (t(V)%*%V))";
    let (code, out, err) = equiv("sum((X - U %*% t(V))^2)", expanded, &shapes, &[]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "equivalent\n");

    // SystemDS misses this one; the sign of the cross term flips.
    let (code, out, _) = equiv("sum((X + U %*% t(V))^2)", expanded, &shapes, &[]);
    assert_eq!(code, 1);
    assert!(out.starts_with("not equivalent\n"), "{out}");
    assert!(out.contains("X = matrix(\""), "{out}");
    assert!(out.ends_with('\n'));

    // Equal for 1x1 inputs only (the paper's caveat), decided exactly.
    assert_eq!(
        equiv("sum(X * t(Y))", "sum(X * Y)", &["X=1x1", "Y=1x1"], &[]).0,
        0
    );
    assert_eq!(
        equiv("sum(X * t(Y))", "sum(X * Y)", &["X=nxn", "Y=nxn"], &[]).0,
        1
    );

    // An all-zero input: X %*% Y is the zero matrix.
    let shapes = ["X=mxk", "Y=kxn", "Z=mxn"];
    let (code, out, _) = equiv("X %*% Y + Z", "Z", &shapes, &["--nnz", "Y=0"]);
    assert_eq!(code, 0, "{out}");
}

#[test]
fn equiv_reports_bad_input_with_exit_two() {
    let (code, _, err) = equiv("X %*% ", "X", &["X=2x2"], &[]);
    assert_eq!(code, 2);
    assert!(err.contains("<lhs>:1:"), "{err}");

    let (code, _, err) = equiv("X %*% Y", "X", &["X=2x3", "Y=2x3"], &[]);
    assert_eq!(code, 2);
    assert!(
        err.contains("2x3") && err.contains("inner dimensions"),
        "{err}"
    );

    let (code, _, err) = equiv("X", "Y", &["X=2x2"], &[]);
    assert_eq!(code, 2);
    assert!(err.contains("`Y`"));

    assert_eq!(equiv("X", "X", &["X=2by2"], &[]).0, 2);
}

#[test]
fn equiv_takes_all_of_dmls_sum_product_constructs() {
    let cases: &[(&str, &str, &[&str], i32)] = &[
        ("-(X %*% Y)", "(-X) %*% Y", &["X=mxk", "Y=kxn"], 0),
        ("-(X %*% Y)", "X %*% Y", &["X=mxk", "Y=kxn"], 1),
        (
            "matrix(1, rows=1, cols=nrow(X)) %*% X",
            "colSums(X)",
            &["X=mxn"],
            0,
        ),
        (
            "matrix(0, 1, ncol(X)) + colSums(X)",
            "colSums(X)",
            &["X=mxn"],
            0,
        ),
        (
            "X * matrix(2, rows=nrow(X), cols=ncol(X))",
            "X + X",
            &["X=mxn"],
            0,
        ),
        ("sum(matrix(1, m, n))", "m * n", &["X=mxn"], 0),
        (
            "sum(A + B)",
            "sum(A) + nrow(A) * sum(B)",
            &["A=mxn", "B=1xn"],
            0,
        ),
        ("sum(A + B)", "sum(A) + sum(B)", &["A=mxn", "B=1xn"], 1),
        ("mean(X)", "sum(X) / (nrow(X) * ncol(X))", &["X=mxn"], 0),
        ("colMeans(X)", "t(rowMeans(t(X)))", &["X=mxn"], 0),
        ("trace(X %*% Y)", "sum(X * t(Y))", &["X=nxk", "Y=kxn"], 0),
        ("sum(diag(A))", "trace(t(A))", &["A=nxn"], 0),
        (
            "outer(u, t(v), \"*\")",
            "u %*% t(v)",
            &["u=mx1", "v=nx1"],
            0,
        ),
        ("as.scalar(t(u) %*% u)", "sum(u^2)", &["u=mx1"], 0),
        ("max(X %*% Y)", "max(t(Y) %*% t(X))", &["X=mxk", "Y=kxn"], 0),
        ("f(X) + 1", "1 + f(X)", &["X=mxn"], 0),
    ];
    for (lhs, rhs, shapes, want) in cases {
        let (code, out, err) = equiv(lhs, rhs, shapes, &[]);
        assert_eq!(code, *want, "{lhs} vs {rhs}: {out}{err}");
    }
}

/// `--size k<m` declares a cut point: slices and `seq` bounded by it are decided, a
/// witness gives `k` a value, and a malformed cut is a usage error.
#[test]
fn equiv_takes_cut_points_with_size() {
    let shapes = ["A=mxn", "B=nxp"];
    let cut = ["--size", "k<m"];
    let (code, out, err) = equiv("(A %*% B)[1:k, ]", "A[1:k, ] %*% B", &shapes, &cut);
    assert_eq!((code, out.as_str()), (0, "equivalent\n"), "{err}");
    let (code, out, _) = equiv(
        "sum(A[1:k, ]) + sum(A[(k+1):nrow(A), ])",
        "sum(A)",
        &shapes,
        &cut,
    );
    assert_eq!((code, out.as_str()), (0, "equivalent\n"));
    let (code, out, _) = equiv("rbind(A[(k+1):m, ], A[1:k, ])", "A", &shapes, &cut);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("k = matrix(\"") && out.contains("# sizes: k="),
        "{out}"
    );
    assert_eq!(equiv("A[1:nrow(A), ]", "A", &shapes, &[]).0, 0);
    let (code, _, err) = equiv("A", "A", &shapes, &["--size", "k<q"]);
    assert_eq!(code, 2);
    assert!(err.contains("`q`"), "{err}");
    let (code, _, err) = equiv("A[1:k, ]", "A[1:k, ]", &shapes, &[]);
    assert_eq!(code, 2);
    assert!(err.contains("--size"), "{err}");
}

#[test]
fn equiv_answers_not_equivalent_for_different_shapes() {
    let (code, out, _) = equiv("X", "t(X)", &["X=mxn"], &[]);
    assert_eq!(code, 1);
    assert_eq!(out, "not equivalent: the lhs is mxn, the rhs is nxm\n");
}

/// `spores optimize EXPR` with `--shape` flags and any `extra` flags.
fn optimize(expr: &str, shapes: &[&str], extra: &[&str]) -> (i32, String, String) {
    spores(&[&["optimize", expr], &shape_flags(shapes)[..], extra].concat())
}

#[test]
fn optimize_flips_with_sparsity_and_verifies_the_plan() {
    let shapes = ["X=20000x10000", "U=20000x10", "V=10000x10"];
    let sparse = ["--nnz", "X=200000"];
    let (code, stdout, err) = optimize("sum((X - U %*% t(V))^2)", &shapes, &sparse);
    assert_eq!(code, 0, "{err}");
    assert_eq!(stdout.lines().next(), Some("wsloss(X, U, V)"), "{stdout}");
    for needle in ["# cost: ", "# saturation: ", "verified equivalent"] {
        assert!(stdout.contains(needle), "{stdout}");
    }

    // The ALS gradient distributes when X is sparse.
    let (_, stdout, _) = optimize("(U %*% t(V) - X) %*% V", &shapes, &sparse);
    let plan = stdout.lines().next().unwrap();
    assert!(
        plan.contains("X %*% ") && (plan.contains("t(V) %*% V") || plan.contains("tsmm(V)")),
        "{stdout}"
    );
}

#[test]
fn optimize_reports_bad_input() {
    let (code, _, err) = optimize("sum(X %*% X)", &["X=2x3"], &[]);
    assert_eq!(code, 2);
    assert!(err.contains("2x3"));
    let (code, _, err) = optimize("sum(X", &["X=2x3"], &[]);
    assert_eq!(code, 2);
    assert!(err.contains("<expr>:1:"));
    let (code, _, err) = optimize("sum(X)", &["X=2x3"], &["--rules", "/nonexistent/r.egg"]);
    assert_eq!(code, 2);
    assert!(err.contains("/nonexistent/r.egg"));
}

#[test]
fn optimize_with_the_ilp_extractor_reports_it() {
    let (code, stdout, err) = optimize(
        "sum(U %*% t(V)) + sum((U %*% t(V))^2)",
        &["U=1000x10", "V=500x10"],
        &["--extractor", "ilp:5000"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(stdout.contains("# extraction: ilp"), "{stdout}");
    assert!(stdout.contains("verified equivalent"), "{stdout}");
    let bogus = optimize("sum(X)", &["X=2x2"], &["--extractor", "bogus"]);
    assert_eq!(bogus.0, 2);
}

#[test]
fn run_reports_broken_user_rules() {
    let source = "X = matrix(1, rows=3, cols=3)\nprint(sum(X %*% X))\n";
    let rules = temp_file("bad.egg", "(rule ((= a (Undeclared))) ())\n");
    let (code, _, err) = run_file("rules.dml", source, &["--rules", rules.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("Undeclared"), "{err}");
    let (code, _, err) = run_file("rules.dml", source, &["--rules", "/nonexistent/rules.egg"]);
    assert_eq!(code, 2);
    assert!(err.contains("/nonexistent/rules.egg"));
}

/// `spores optimize --rules F` and `spores run --rules F` check the rule file as
/// `spores mlir opt` does (`mlir_limits.rs`): `(push 10000)` is refused with its line
/// instead of copying the e-graph ten thousand times, and a file including itself is a
/// cycle instead of a stack overflow.
#[test]
fn optimize_and_run_refuse_rule_files_that_run_away() {
    let push = temp_file("push.egg", "(sort S)\n  (push 10000)\n");
    let me = push.with_file_name("self.egg");
    let cycle = temp_file("self.egg", &format!("(include \"{}\")\n", me.display()));
    let (push, cycle) = (push.display().to_string(), cycle.display().to_string());
    let refused = format!(
        "error: {push}:2:3: `push` is not allowed in a rule file: the optimizer runs the \
         rules itself, under its iteration, size and time limits\n"
    );
    let looped = format!("error: {cycle}:1:1: include cycle: {cycle} -> {cycle}\n");
    let script = "X = matrix(1, rows=3, cols=3)\nprint(sum(X %*% X))\n";
    for (rules, expected) in [(&push, &refused), (&cycle, &looped)] {
        let started = std::time::Instant::now();
        let (code, out, err) = optimize("sum(X %*% X)", &["X=3x3"], &["--rules", rules]);
        assert_eq!((code, out.as_str(), &err), (2, "", expected));
        let (code, out, err) = run_file("rules.dml", script, &["--rules", rules]);
        assert_eq!((code, out.as_str(), &err), (2, "", expected));
        assert!(started.elapsed() < std::time::Duration::from_secs(10));
    }
}

#[test]
fn verbose_logs_the_optimizer_and_the_engine_to_stderr_only_when_asked() {
    let path = temp_file(
        "logged.dml",
        "X = matrix(\"1 0 2 0 3 0\", rows=3, cols=2)\nprint(sum(X %*% t(X)))\n",
    );
    let path = path.to_str().unwrap();
    let (code, quiet_out, quiet_err) = spores(&["run", path]);
    assert_eq!(code, 0, "{quiet_err}");
    assert_eq!(quiet_err, "");

    let (code, out, err) = spores(&["-vv", "run", path]);
    assert_eq!(code, 0, "{err}");
    // The log never mixes into the script's output.
    assert_eq!(out, quiet_out);
    assert!(
        err.contains("DEBUG spores_dml::runtime::stats] ran "),
        "{err}"
    );

    let optimize = [
        "optimize",
        "sum((X - U %*% t(V))^2)",
        "--shape",
        "X=1000x500",
        "--shape",
        "U=1000x10",
        "--shape",
        "V=500x10",
        "--nnz",
        "X=5000",
    ];
    let (code, _, err) = spores(&optimize);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("INFO"));
    let (_, _, err) = spores(&[&["-v"], &optimize[..]].concat());
    assert!(
        err.contains("INFO  spores_opt::saturate] optimized 1 root(s)"),
        "{err}"
    );
    assert!(!err.contains("DEBUG"), "-v logs at info level only: {err}");
}

#[test]
fn an_absurd_thread_count_is_a_usage_error() {
    let source = "print(sum(matrix(1, rows=3, cols=3)))\n";
    for bad in ["100000", "0"] {
        let (code, _, err) = run_file("threads.dml", source, &["--threads", bad]);
        assert_eq!(code, 2, "--threads {bad}");
        assert!(err.contains("1..=1024") || err.contains("1024"), "{err}");
    }
    let (code, out, err) = run_file("threads.dml", source, &["--threads", "64"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "9.0\n");
}
