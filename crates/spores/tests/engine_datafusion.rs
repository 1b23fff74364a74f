//! `spores run --engine datafusion|auto`: the blocks' sum-product subgraphs (all of them,
//! or those over the memory budget) run on DataFusion and the script prints what the
//! local engine prints; Parquet COO files from `spores convert` read as the Matrix Market
//! file they came from. Built with the `datafusion` feature; without it, the flag and
//! Parquet files are errors that say how to get them.

mod common;

use common::run_dml_with;

/// The squared loss, the multiplication chain and an ALS-CG half-step (examples/als.dml's
/// gradient and Hessian-vector product), on sparse generated data.
#[cfg(feature = "datafusion")]
const ALS: &str = r#"
X = rand(rows=300, cols=200, sparsity=0.05, min=1, max=5, seed=1)
U = rand(rows=300, cols=8, min=0, max=1, seed=2)
V = rand(rows=200, cols=8, min=0, max=1, seed=3)
v = rand(rows=200, cols=1, min=0, max=1, seed=4)
lambda = 0.1
loss = sum((X - U %*% t(V))^2)
print("loss " + loss)
w = t(X) %*% (X %*% v)
print("chain " + sum(w) + " " + as.scalar(w[7, 1]))
R = -((U %*% t(V) - X) %*% V + lambda * U)
S = R
HS = S %*% (t(V) %*% V) + lambda * S
alpha = sum(R^2) / sum(S * HS)
U = U + alpha * S
print("alpha " + alpha + " loss " + sum((X - U %*% t(V))^2))
"#;

#[cfg(feature = "datafusion")]
#[test]
fn datafusion_prints_what_the_local_engine_prints() {
    let local = run_dml_with("als.dml", ALS, &["--full-search"]).unwrap();
    let explained = run_dml_with(
        "als.dml",
        ALS,
        &["--full-search", "--engine", "datafusion", "--explain"],
    )
    .unwrap();
    // The subgraphs really ran on DataFusion, the fused squared loss and the chain
    // included; the last loss reads `U` updated through `/`, which may not be finite, so
    // it stays on the local kernels (as `wsloss`, which only fuses: no guard needed).
    let plan_line = |needle: &str| explained.lines().any(|l| l.contains(needle));
    assert!(plan_line("= relational[wsloss("), "{explained}");
    assert!(
        explained
            .lines()
            .any(|l| l.contains("= relational[") && l.contains("mmchain(_t7, _t15)")),
        "{explained}"
    );
    assert!(
        explained
            .lines()
            .any(|l| l.contains("= wsloss(") && !l.contains("relational")),
        "{explained}"
    );
    let printed = common::lines_starting_with(&explained, &["loss ", "chain ", "alpha "]);
    let want = common::numbers(&local);
    assert_eq!(want.len(), 5, "{local}");
    common::assert_close(&common::numbers(&printed), &want, 1e-9);
}

#[cfg(feature = "datafusion")]
#[test]
fn inputs_with_infinities_stay_on_the_local_engine() {
    // Division is IEEE's and products zero-annihilating (`0 * NaN = 0`), so `X / 0` is
    // `[NaN Inf; Inf NaN]`, `sum(X * Y)` is infinite and `sum(Y)` NaN. A subgraph
    // computing `/` may make non-finite values, where the optimizer's rewrites do not
    // hold: it stays local.
    let src =
        "X = matrix(\"0 1 2 0\", rows=2, cols=2)\nY = X / 0\nprint(sum(X * Y))\nprint(sum(Y))\n";
    let local = run_dml_with("inf.dml", src, &[]).unwrap();
    assert_eq!(local, "Infinity\nNaN\n");
    let relational =
        run_dml_with("inf.dml", src, &["--engine", "datafusion", "--explain"]).unwrap();
    assert!(!relational.contains("relational["), "{relational}");
    let printed: String = relational
        .lines()
        .filter(|l| *l == "Infinity" || *l == "NaN")
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(printed, local);
}

#[cfg(not(feature = "datafusion"))]
#[test]
fn without_the_feature_the_flag_says_how_to_build_it() {
    let err = run_dml_with("tiny.dml", "print(1)\n", &["--engine", "datafusion"]).unwrap_err();
    assert!(err.contains("--features datafusion"), "{err}");
    let program = common::temp_file("tiny.tn", "t = 2\n");
    let (code, _, err) = common::spores_cli(&[
        "tensor",
        program.to_str().unwrap(),
        "--engine",
        "datafusion",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("--features datafusion"), "{err}");
}

#[test]
fn the_local_engine_is_the_default_and_named() {
    let src = "X = matrix(2, rows=3, cols=3)\nprint(sum(X %*% X))\n";
    assert_eq!(run_dml_with("local.dml", src, &[]).unwrap(), "108.0\n");
    assert_eq!(
        run_dml_with("local.dml", src, &["--engine", "local"]).unwrap(),
        "108.0\n"
    );
    let err = run_dml_with("local.dml", src, &["--engine", "spark"]).unwrap_err();
    assert!(err.contains("datafusion"), "{err}");
}

/// A product whose dense result (100000 x 100: 80 MB) the local kernels must hold, of a
/// sparse `X` (1000 non-zeros) and a small dense `V`.
#[cfg(feature = "datafusion")]
const OVER_BUDGET: &str = r#"
X = rand(rows=100000, cols=100, sparsity=0.0001, min=1, max=5, seed=11)
V = rand(rows=100, cols=100, min=0, max=1, seed=12)
Y = X %*% V
print("v " + sum(Y) + " " + sum(Y^2) + " " + sum(X) + " " + nrow(Y))
"#;

#[cfg(feature = "datafusion")]
#[test]
fn auto_sends_what_exceeds_the_budget_to_datafusion_and_finishes() {
    let want = common::numbers(&run_dml_with("budget.dml", OVER_BUDGET, &[]).unwrap());
    assert_eq!(want.len(), 4);
    assert!(want[0] > 0.0 && want[3] == 100000.0, "{want:?}");
    // The local kernels refuse the 80 MB product under a 40 MB budget ...
    let err = run_dml_with("budget.dml", OVER_BUDGET, &["--memory", "40M"]).unwrap_err();
    assert!(err.contains("memory budget"), "{err}");
    // ... `auto` runs that subgraph on DataFusion (within the same budget) and the rest
    // locally, and prints the same numbers.
    let auto = run_dml_with(
        "budget.dml",
        OVER_BUDGET,
        &["--memory", "40M", "--engine", "auto", "--explain"],
    )
    .unwrap();
    assert!(auto.contains("relational["), "{auto}");
    let printed: String = auto.lines().filter(|l| l.starts_with("v ")).collect();
    common::assert_close(&common::numbers(&printed), &want, 1e-9);
    // With room to spare, `auto` keeps everything on the local kernels.
    let roomy = run_dml_with(
        "budget.dml",
        OVER_BUDGET,
        &["--engine", "auto", "--explain"],
    )
    .unwrap();
    assert!(!roomy.contains("relational["), "{roomy}");
}

#[cfg(feature = "datafusion")]
#[test]
fn parquet_inputs_stay_in_their_files_for_datafusion() {
    let dir = common::temp_file("lazy-x.parquet", "").with_file_name("");
    let file = |name: &str| dir.join(name).to_str().unwrap().to_string();
    let (x, u, v) = (
        file("lazy-x.parquet"),
        file("lazy-u.parquet"),
        file("lazy-v.parquet"),
    );
    let generate = format!(
        "X = rand(rows=300, cols=200, sparsity=0.05, min=1, max=5, seed=1)\nwrite(X, \"{x}\")\n\
         U = rand(rows=300, cols=8, min=0, max=1, seed=2)\nwrite(U, \"{u}\")\n\
         V = rand(rows=200, cols=8, min=0, max=1, seed=3)\nwrite(V, \"{v}\")\n"
    );
    run_dml_with("write_parquet.dml", &generate, &[]).unwrap();
    let script = format!(
        "X = read(\"{x}\")\nU = read(\"{u}\")\nV = read(\"{v}\")\n\
         print(\"loss \" + sum((X - U %*% t(V))^2))\n\
         print(\"cells \" + sum(X) + \" \" + as.scalar(X[3, 5]))\n"
    );
    let local = run_dml_with("lazy.dml", &script, &["--full-search"]).unwrap();
    let explained = run_dml_with(
        "lazy.dml",
        &script,
        &["--full-search", "--engine", "datafusion", "--explain"],
    )
    .unwrap();
    // The variables hold the files (shape and cell count from the footers); the loss
    // runs on DataFusion, which scans them; `sum(X)` and indexing read X locally.
    assert!(
        explained.contains(&format!("300x200 in {x} cells=")),
        "{explained}"
    );
    assert!(
        explained.contains("= relational[wsloss(X, U, V)]"),
        "{explained}"
    );
    let printed: String = explained
        .lines()
        .filter(|l| l.starts_with("loss ") || l.starts_with("cells "))
        .map(|l| format!("{l}\n"))
        .collect();
    let want = common::numbers(&local);
    assert_eq!(want.len(), 3, "{local}");
    common::assert_close(&common::numbers(&printed), &want, 1e-9);
    // The local engine refuses to read a file whose matrix exceeds the budget.
    let err = run_dml_with("lazy.dml", &script, &["--memory", "20K"]).unwrap_err();
    assert!(
        err.contains("lazy-x.parquet") && err.contains("memory budget"),
        "{err}"
    );
}

#[cfg(feature = "datafusion")]
#[test]
fn a_parquet_input_holding_an_infinity_stays_on_the_local_engine() {
    // The file's value column is scanned for non-finite values (row groups in parallel):
    // the one infinite cell keeps the product local, finite files go to DataFusion.
    let dir = common::temp_file("inf-x.parquet", "").with_file_name("");
    let file = |name: &str| dir.join(name).to_str().unwrap().to_string();
    let (bad, good) = (file("inf-x.parquet"), file("fin-x.parquet"));
    let generate = format!(
        "X = rand(rows=40, cols=30, sparsity=0.2, min=1, max=5, seed=4)\nwrite(X, \"{good}\")\n\
         X[7, 3] = 1 / 0\nwrite(X, \"{bad}\")\n"
    );
    run_dml_with("write_inf.dml", &generate, &[]).unwrap();
    for (path, finite) in [(&bad, false), (&good, true)] {
        let script = format!(
            "X = read(\"{path}\")\nv = matrix(1, rows=30, cols=1)\nprint(sum(t(X) %*% (X %*% v)))\n"
        );
        let local = run_dml_with("inf_read.dml", &script, &[]).unwrap();
        let explained = run_dml_with(
            "inf_read.dml",
            &script,
            &["--engine", "datafusion", "--explain"],
        )
        .unwrap();
        let on_datafusion = explained
            .lines()
            .any(|l| l.contains("relational[") && l.contains('X'));
        assert_eq!(on_datafusion, finite, "{explained}");
        let printed = explained
            .lines()
            .filter(|l| *l == "Infinity" || l.parse::<f64>().is_ok())
            .collect::<Vec<_>>()
            .join("\n");
        if finite {
            common::assert_close(&common::numbers(&printed), &common::numbers(&local), 1e-9);
        } else {
            assert_eq!(local.trim(), "Infinity", "{local}");
            assert_eq!(printed, "Infinity", "{explained}");
        }
    }
}

#[cfg(feature = "datafusion")]
#[test]
fn parquet_coo_converted_from_matrix_market_reads_the_same() {
    let mtx = common::temp_file(
        "coo.mtx",
        "%%MatrixMarket matrix coordinate real general\n5 4 4\n1 1 2.5\n2 4 -1\n5 2 3\n2 4 0.5\n",
    );
    let parquet = mtx.with_extension("parquet");
    let (mtx, parquet) = (mtx.to_str().unwrap(), parquet.to_str().unwrap());
    let (code, out, err) = common::spores_cli(&["convert", mtx, parquet]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("5x4, 3 non-zeros"), "{out}");
    let script = |file: &str| {
        format!(
            "X = read(\"{file}\")\nprint(\"v \" + sum(X) + \" \" + nrow(X) + \" \" + ncol(X) + \" \" + sum(X %*% t(X)) + \" \" + as.scalar(X[2, 4]))\n"
        )
    };
    let want = run_dml_with("read_mtx.dml", &script(mtx), &[]).unwrap();
    assert_eq!(common::numbers(&want), vec![5.0, 5.0, 4.0, 15.5, -0.5]);
    for engine in ["local", "datafusion"] {
        let got = run_dml_with("read_parquet.dml", &script(parquet), &["--engine", engine]);
        assert_eq!(got.unwrap(), want, "{engine}");
    }
    // Back to Matrix Market through `write`: the same matrix.
    let back = mtx.replace("coo.mtx", "back.mtx");
    let src = format!("X = read(\"{parquet}\")\nwrite(X, \"{back}\")\n");
    run_dml_with("write_back.dml", &src, &[]).unwrap();
    let again = run_dml_with("read_back.dml", &script(&back), &[]).unwrap();
    assert_eq!(again, want);
}

#[test]
fn convert_names_an_unknown_format() {
    let input = common::temp_file(
        "plain.mtx",
        "%%MatrixMarket matrix array real general\n1 1\n3\n",
    );
    let input = input.to_str().unwrap();
    let (code, _, err) = common::spores_cli(&["convert", input, "out.xlsx"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("out.xlsx") && err.contains(".parquet"),
        "{err}"
    );
}

#[cfg(not(feature = "datafusion"))]
#[test]
fn without_the_feature_parquet_says_how_to_build_it() {
    let input = common::temp_file(
        "tiny.mtx",
        "%%MatrixMarket matrix array real general\n1 1\n3\n",
    );
    let output = input.with_extension("parquet");
    let (code, _, err) =
        common::spores_cli(&["convert", input.to_str().unwrap(), output.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(err.contains("--features datafusion"), "{err}");
    assert!(!output.exists());
}

/// `spores tensor --engine datafusion`: the optimized logical plan runs as DataFusion
/// queries and prints what the local engine prints.
#[cfg(feature = "datafusion")]
#[test]
fn tensor_programs_print_the_same_on_datafusion() {
    let a = common::temp_file("tensor_a.mtx", common::SMALL_SPARSE_MTX);
    let x = common::temp_file(
        "tensor_x.mtx",
        "%%MatrixMarket matrix array real general\n4 1\n1\n2\n3\n4\n",
    );
    let program = common::temp_file(
        "tensor.tn",
        "y[i] = sum[j](A[i,j] * x[j])\nt = max[i](y[i])\noutput y, t\n",
    );
    let args = |engine: &'static str| {
        vec![
            "tensor".to_string(),
            program.to_str().unwrap().to_string(),
            format!("--input=A={}", a.display()),
            format!("--input=x={}", x.display()),
            "--engine".to_string(),
            engine.to_string(),
        ]
    };
    let run = |engine| {
        let args = args(engine);
        common::spores_ok(&args.iter().map(String::as_str).collect::<Vec<_>>())
    };
    let local = run("local");
    assert_eq!(
        common::numbers(&local),
        vec![3.0, 6.5, -2.0, 16.5, 16.5],
        "{local}"
    );
    assert_eq!(run("datafusion"), local);
}
