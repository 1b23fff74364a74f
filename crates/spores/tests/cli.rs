//! The `spores` binary: exit codes, error rendering, `--explain` and `--stats`.

use std::path::PathBuf;
use std::process::{Command, Output};

fn spores(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_spores"))
        .args(args)
        .output()
        .expect("the spores binary runs")
}

fn script(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("spores-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn a_good_script_exits_zero_and_prints() {
    let path = script(
        "ok.dml",
        "x = sum(matrix(3, rows=2, cols=2))\nprint(\"x \" + x)\n",
    );
    let out = spores(&["run", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "x 12.0\n");
}

#[test]
fn a_parse_error_exits_two_with_line_column_and_caret() {
    let path = script("bad.dml", "x = 1\ny = (x + \n");
    let out = spores(&["run", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(err.contains("bad.dml:2:"), "{err}");
    assert!(err.contains('^'), "{err}");
}

#[test]
fn a_runtime_error_exits_one_naming_both_shapes() {
    let path = script("shape.dml", "A = matrix(1, rows=2, cols=3)\nB = A %*% A\n");
    let out = spores(&["run", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.contains("shape.dml:2:5"), "{err}");
    assert!(err.contains("2x3"), "{err}");
}

#[test]
fn usage_errors_exit_two() {
    let out = spores(&["run", "/nonexistent/script.dml"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("/nonexistent/script.dml"));

    let path = script("args.dml", "print(1)\n");
    let out = spores(&["run", path.to_str().unwrap(), "--arg", "novalue"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("NAME=VALUE"));

    let out = spores(&["frobnicate"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn arguments_reach_the_script() {
    let path = script("argv.dml", "n = $n\nprint(n * 2)\nprint($name)\n");
    let out = spores(&[
        "run",
        path.to_str().unwrap(),
        "--arg",
        "n=21",
        "--arg",
        "name=spores",
    ]);
    assert_eq!(text(&out.stdout), "42\nspores\n", "{}", text(&out.stderr));
}

#[test]
fn explain_prints_each_block_dag_with_shapes() {
    let path = script(
        "explain.dml",
        "X = rand(rows=20, cols=10, sparsity=0.1, seed=1)\nY = t(X) %*% X\nprint(sum(Y))\n",
    );
    let out = spores(&["run", path.to_str().unwrap(), "--explain"]);
    let stdout = text(&out.stdout);
    assert!(stdout.contains("--- block"), "{stdout}");
    assert!(
        stdout.contains("rand(20, 10, 0.0, 1.0, 0.1, 1, \"uniform\", 1.0)"),
        "{stdout}"
    );
    assert!(stdout.contains("= t(A)%*%B(%7, %7)"), "{stdout}");
    assert!(stdout.contains("10x10"), "{stdout}");
    assert!(stdout.contains("20x10 sparse"), "{stdout}");
    assert!(stdout.contains("outputs: X = %"), "{stdout}");
}

#[test]
fn stats_report_times_and_heavy_hitters() {
    let path = script(
        "stats.dml",
        "X = rand(rows=50, cols=50, seed=1)\nfor (i in 1:3) { X = X %*% X / 50 }\nprint(sum(X))\n",
    );
    let out = spores(&["run", path.to_str().unwrap(), "--stats", "--threads", "1"]);
    assert_eq!(out.status.code(), Some(0));
    let err = text(&out.stderr);
    for needle in [
        "Total elapsed time",
        "Total compilation time",
        "Total execution time",
        "Heavy hitter operators",
    ] {
        assert!(err.contains(needle), "{err}");
    }
    let matmul_line = err
        .lines()
        .find(|l| l.contains("%*%"))
        .expect("%*% is listed");
    assert!(matmul_line.trim_end().ends_with(" 3"), "{matmul_line}");
}

#[test]
fn equiv_decides_and_prints_witnesses() {
    let shapes = ["--shape", "X=mxn", "--shape", "U=mxk", "--shape", "V=nxk"];
    let mut args = vec![
        "equiv",
        "sum((X - U %*% t(V))^2)",
        "sum(X^2) - 2*sum(X * (U %*% t(V))) + sum((t(U)%*%U) * (t(V)%*%V))",
    ];
    args.extend(shapes);
    let out = spores(&args);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "equivalent\n");

    // SystemDS misses this one; the sign of the cross term flips.
    let mut args = vec![
        "equiv",
        "sum((X + U %*% t(V))^2)",
        "sum(X^2) - 2*sum(X * (U %*% t(V))) + sum((t(U)%*%U) * (t(V)%*%V))",
    ];
    args.extend(shapes);
    let out = spores(&args);
    assert_eq!(out.status.code(), Some(1));
    let stdout = text(&out.stdout);
    assert!(stdout.starts_with("not equivalent\n"), "{stdout}");
    assert!(stdout.contains("X = matrix(\""), "{stdout}");
    assert!(stdout.ends_with('\n'));

    // Equal for 1x1 inputs only (the paper's caveat), decided exactly.
    let equal_1x1 = spores(&[
        "equiv",
        "sum(X * t(Y))",
        "sum(X * Y)",
        "--shape",
        "X=1x1",
        "--shape",
        "Y=1x1",
    ]);
    assert_eq!(equal_1x1.status.code(), Some(0));
    let differ = spores(&[
        "equiv",
        "sum(X * t(Y))",
        "sum(X * Y)",
        "--shape",
        "X=nxn",
        "--shape",
        "Y=nxn",
    ]);
    assert_eq!(differ.status.code(), Some(1));

    // An all-zero input: X %*% Y is the zero matrix.
    let zero = spores(&[
        "equiv",
        "X %*% Y + Z",
        "Z",
        "--shape",
        "X=mxk",
        "--shape",
        "Y=kxn",
        "--shape",
        "Z=mxn",
        "--nnz",
        "Y=0",
    ]);
    assert_eq!(zero.status.code(), Some(0), "{}", text(&zero.stdout));
}

#[test]
fn equiv_reports_bad_input_with_exit_two() {
    let out = spores(&["equiv", "X %*% ", "X", "--shape", "X=2x2"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("<lhs>:1:"),
        "{}",
        text(&out.stderr)
    );

    let out = spores(&[
        "equiv", "X %*% Y", "X", "--shape", "X=2x3", "--shape", "Y=2x3",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains("2x3") && err.contains("inner dimensions"),
        "{err}"
    );

    let out = spores(&["equiv", "X", "Y", "--shape", "X=2x2"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("`Y`"));

    let out = spores(&["equiv", "X", "X", "--shape", "X=2by2"]);
    assert_eq!(out.status.code(), Some(2));
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
    for (lhs, rhs, shapes, code) in cases {
        let mut args = vec!["equiv", lhs, rhs];
        for s in *shapes {
            args.extend(["--shape", s]);
        }
        let out = spores(&args);
        assert_eq!(
            out.status.code(),
            Some(*code),
            "{lhs} vs {rhs}: {}{}",
            text(&out.stdout),
            text(&out.stderr)
        );
    }
}

#[test]
fn equiv_answers_not_equivalent_for_different_shapes() {
    let out = spores(&["equiv", "X", "t(X)", "--shape", "X=mxn"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stdout),
        "not equivalent: the lhs is mxn, the rhs is nxm\n"
    );
}

#[test]
fn optimize_flips_with_sparsity_and_verifies_the_plan() {
    let shapes = [
        "--shape",
        "X=20000x10000",
        "--shape",
        "U=20000x10",
        "--shape",
        "V=10000x10",
    ];
    let mut sparse = vec!["optimize", "sum((X - U %*% t(V))^2)", "--nnz", "X=200000"];
    sparse.extend(shapes);
    let out = spores(&sparse);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let plan = stdout.lines().next().unwrap();
    assert_eq!(plan, "wsloss(X, U, V)", "{stdout}");
    assert!(stdout.contains("# cost: "), "{stdout}");
    assert!(stdout.contains("# saturation: "), "{stdout}");
    assert!(stdout.contains("verified equivalent"), "{stdout}");

    // The ALS gradient distributes when X is sparse.
    let out = spores(&[
        "optimize",
        "(U %*% t(V) - X) %*% V",
        "--shape",
        "X=20000x10000",
        "--shape",
        "U=20000x10",
        "--shape",
        "V=10000x10",
        "--nnz",
        "X=200000",
    ]);
    let stdout = text(&out.stdout);
    let plan = stdout.lines().next().unwrap();
    assert!(
        plan.contains("X %*% ") && plan.contains("t(V) %*% V"),
        "{stdout}"
    );
}

#[test]
fn optimize_reports_bad_input() {
    let out = spores(&["optimize", "sum(X %*% X)", "--shape", "X=2x3"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("2x3"));
    let out = spores(&["optimize", "sum(X", "--shape", "X=2x3"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("<expr>:1:"));
    let out = spores(&[
        "optimize",
        "sum(X)",
        "--shape",
        "X=2x3",
        "--rules",
        "/nonexistent/r.egg",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("/nonexistent/r.egg"));
}

#[test]
fn optimize_with_the_ilp_extractor_reports_it() {
    let out = spores(&[
        "optimize",
        "sum(U %*% t(V)) + sum((U %*% t(V))^2)",
        "--shape",
        "U=1000x10",
        "--shape",
        "V=500x10",
        "--extractor",
        "ilp:5000",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("# extraction: ilp"), "{stdout}");
    assert!(stdout.contains("verified equivalent"), "{stdout}");
    let bad = spores(&[
        "optimize",
        "sum(X)",
        "--shape",
        "X=2x2",
        "--extractor",
        "bogus",
    ]);
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn run_reports_broken_user_rules() {
    let script_path = script(
        "rules.dml",
        "X = matrix(1, rows=3, cols=3)\nprint(sum(X %*% X))\n",
    );
    let rules = script("bad.egg", "(rule ((= a (Undeclared))) ())\n");
    let out = spores(&[
        "run",
        script_path.to_str().unwrap(),
        "--rules",
        rules.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("Undeclared"),
        "{}",
        text(&out.stderr)
    );
    let out = spores(&[
        "run",
        script_path.to_str().unwrap(),
        "--rules",
        "/nonexistent/rules.egg",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("/nonexistent/rules.egg"));
}

#[test]
fn verbose_logs_the_optimizer_and_the_engine_to_stderr_only_when_asked() {
    let path = script(
        "logged.dml",
        "X = matrix(\"1 0 2 0 3 0\", rows=3, cols=2)\nprint(sum(X %*% t(X)))\n",
    );
    let quiet = spores(&["run", path.to_str().unwrap()]);
    assert_eq!(quiet.status.code(), Some(0), "{}", text(&quiet.stderr));
    assert_eq!(text(&quiet.stderr), "");

    let logged = spores(&["-vv", "run", path.to_str().unwrap()]);
    assert_eq!(logged.status.code(), Some(0), "{}", text(&logged.stderr));
    // The log never mixes into the script's output.
    assert_eq!(text(&logged.stdout), text(&quiet.stdout));
    let err = text(&logged.stderr);
    assert!(err.contains("DEBUG spores::runtime::stats] ran "), "{err}");

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
    let quiet = spores(&optimize);
    assert_eq!(quiet.status.code(), Some(0), "{}", text(&quiet.stderr));
    assert!(!text(&quiet.stderr).contains("INFO"));
    let logged = spores(&[&["-v"], &optimize[..]].concat());
    let err = text(&logged.stderr);
    assert!(
        err.contains("INFO  spores_opt::saturate] optimized 1 root(s)"),
        "{err}"
    );
    assert!(!err.contains("DEBUG"), "-v logs at info level only: {err}");
}

#[test]
fn an_absurd_thread_count_is_a_usage_error() {
    let path = script("threads.dml", "print(sum(matrix(1, rows=3, cols=3)))\n");
    for bad in ["100000", "0"] {
        let out = spores(&["run", path.to_str().unwrap(), "--threads", bad]);
        assert_eq!(out.status.code(), Some(2), "--threads {bad}");
        let err = text(&out.stderr);
        assert!(err.contains("1..=1024") || err.contains("1024"), "{err}");
    }
    let out = spores(&["run", path.to_str().unwrap(), "--threads", "64"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "9.0\n");
}
