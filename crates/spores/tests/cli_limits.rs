//! Results too large for memory stop the script (or tensor program) with exit 1 and an
//! error naming the size and the budget, before anything is allocated (never an
//! allocator abort). Long expressions and deep recursions run up to the front end's and
//! the interpreter's bounds, and past them end with clean errors (never a stack
//! overflow).

mod common;

use common::{assert_contains, assert_run_fails, run_file as run, spores_cli, temp_file as file};

#[test]
fn a_dense_matrix_beyond_the_budget_is_refused_by_size() {
    assert_run_fails(
        "dense.dml",
        "X = matrix(1, rows=1e5, cols=1e5)\nprint(sum(X))\n",
        &["--memory", "1G"],
        &[
            "matrix: a dense 100000x100000 result needs about 80.0 GB, more than the memory budget of 1.1 GB",
            "dense.dml:1:5",
        ],
    );
}

/// With the DataFusion engine built in, a result over the budget says how the script
/// could run anyway (`--engine auto`).
#[test]
fn an_oversized_result_suggests_the_relational_engine_where_it_is_built_in() {
    let script = "X = matrix(1, rows=1e5, cols=1e5)\nprint(sum(X))\n";
    let hint = "with `--engine auto`, the subgraphs too large for memory run on DataFusion";
    let (code, _, err) = run("hint.dml", script, &["--memory", "1G"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("memory budget"), "{err}");
    assert_eq!(err.contains(hint), cfg!(feature = "datafusion"), "{err}");
}

/// A Matrix Market header declaring 10^8 rows asks the budget for their row pointers
/// (800 MB) before allocating them.
#[test]
fn a_file_whose_declared_size_is_over_the_budget_is_refused() {
    let mtx = file(
        "tall.mtx",
        "%%MatrixMarket matrix coordinate real general\n100000000 3 1\n1 1 5\n",
    );
    let script = format!("X = read(\"{}\")\nprint(sum(X))\n", mtx.display());
    assert_run_fails(
        "tall.dml",
        &script,
        &["--memory", "256M"],
        &[
            "tall.mtx:2: the declared size (100000001 elements) needs about 800.0 MB, more than the memory budget of 268.4 MB",
        ],
    );
    // Within the budget it reads.
    let (code, out, err) = run("tall.dml", &script, &["--memory", "2G"]);
    assert_eq!((code, out.trim()), (0, "5.0"), "{err}");
}

/// Doubling a matrix by binding it to itself, or a string by concatenating it to itself,
/// stops at the budget, with the sizes in megabytes below a gigabyte.
#[test]
fn cbind_rbind_and_strings_ask_the_budget() {
    assert_run_fails(
        "cbind.dml",
        "X = rand(rows=100, cols=100, seed=1)\nfor (i in 1:40) { X = cbind(X, X) }\nprint(sum(X))\n",
        &["--memory", "64M"],
        &[
            "cbind: a dense 100x102400 result needs about 81.9 MB, more than the memory budget of 67.1 MB",
            "cbind.dml:2:23",
        ],
    );
    assert_run_fails(
        "rbind.dml",
        "X = rand(rows=100, cols=100, sparsity=0.01, seed=1)\nfor (i in 1:40) { X = rbind(X, X) }\nprint(sum(X))\n",
        &["--memory", "64M"],
        &["rbind: a sparse 6553600x100 result with 6619136 entries needs about 131.9 MB", "more than the memory budget of 67.1 MB"],
    );
    assert_run_fails(
        "strings.dml",
        "s = \"abcdefgh\"\nfor (i in 1:45) { s = s + s }\nprint(s)\n",
        &["--memory", "64M"],
        &["+: a string of 134217728 bytes needs about 134.2 MB, more than the memory budget of 67.1 MB"],
    );
}

#[test]
fn oversized_results_end_with_clean_errors() {
    // A zero fill is sparse, but a billion row pointers still exceed a 1 GB budget.
    assert_run_fails(
        "zeros.dml",
        "X = matrix(0, rows=1e9, cols=1e9)\nprint(sum(X))\n",
        &["--memory", "1G"],
        &["an empty 1000000000x1000000000 matrix needs about 8.0 GB"],
    );
    assert_run_fails(
        "rand.dml",
        "X = rand(rows=1e9, cols=1e9)\nprint(sum(X))\n",
        &[],
        &["rand: a 1000000000x1000000000 matrix", "memory budget"],
    );

    // Output sizes the arguments set: a row pointer per row of `table`'s result, a
    // count and sums per group of `aggregate`'s.
    assert_run_fails(
        "table.dml",
        "y = seq(1, 3)\nT = table(y, y, 1, 1e9, 1e9)\nprint(sum(T))\n",
        &["--memory", "1G"],
        &["table: a sparse 1000000000x1000000000 result with 3 entries needs about 8.0 GB"],
    );
    assert_run_fails(
        "groups.dml",
        "x = seq(1, 3)\nA = aggregate(target=x, groups=x, fn=\"sum\", ngroups=1e10)\nprint(sum(A))\n",
        &["--memory", "1G"],
        &["aggregate: 10000000000 groups of 1 column(s) needs about 320.0 GB"],
    );

    // One entry in a 1e8 x 1e8 matrix: `X + 1` is dense (8e16 bytes), `X * 2` is not. `Y`
    // is read after its block, so it must be stored.
    let mtx = file(
        "one.mtx",
        "%%MatrixMarket matrix coordinate real general\n100000000 100000000 1\n1 1 5\n",
    );
    let x = format!("X={}", mtx.display());
    let out = assert_run_fails(
        "plus.dml",
        "X = read($X)\nprint(sum(X * 2))\nY = X + 1\nprint(sum(Y))\nwhile(FALSE){}\nprint(nrow(Y))\n",
        &["--arg", &x],
        &[
            "+: a dense 100000000x100000000 result needs about 8.0e7 GB",
            "plus.dml:3:5",
        ],
    );
    assert_eq!(out.trim(), "10.0");
    // Summed without being stored, the same cells need no memory: 1e16 + 4, also when a
    // variable nothing reads after its block holds them.
    for src in [
        "X = read($X)\nprint(sum(X + 1))\n",
        "X = read($X)\nY = X + 1\nprint(sum(Y))\n",
    ] {
        let (code, out, err) = run("sum.dml", src, &["--arg", &x]);
        assert_eq!(code, 0, "{err}");
        let got: f64 = out.trim().parse().unwrap();
        assert!((got - (1e16 + 4.0)).abs() <= 1e-12 * 1e16, "{out}");
    }
    assert_run_fails(
        "exp.dml",
        "X = read($X)\nprint(sum(exp(X)))\n",
        &["--arg", &x],
        &["exp: a dense 100000000x100000000 result"],
    );
    // An outer product read after its block must be stored; summed in its block, the
    // optimizer plans it as a product of two sums (slices are LA operators).
    assert_run_fails(
        "outer.dml",
        "X = read($X)\nY = X[, 1] %*% t(X[, 1])\nprint(sum(Y))\nwhile(FALSE){}\nprint(nrow(Y))\n",
        &["--arg", &x],
        &["%*%", ": a dense 100000000x100000000 result"],
    );
    let (code, out, err) = run(
        "outer_sum.dml",
        "X = read($X)\nY = X[, 1] %*% t(X[, 1])\nprint(sum(Y))\n",
        &["--arg", &x],
    );
    assert_eq!((code, out.trim()), (0, "25.0"), "{err}");
}

#[test]
fn a_bad_memory_size_is_a_usage_error() {
    let (code, _, err) = run("ok.dml", "print(1)\n", &["--memory", "lots"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("expected a size like 512M or 4G"), "{err}");
}

/// A column vector of `n` entries `1, 2, 3, 1, 2, 3, ...` in Matrix Market form (read as
/// an order-1 tensor by `spores tensor`).
fn vector_mtx(name: &str, n: usize) -> std::path::PathBuf {
    let mut text = format!("%%MatrixMarket matrix coordinate real general\n{n} 1 {n}\n");
    for i in 0..n {
        text.push_str(&format!("{} 1 {}\n", i + 1, 1 + i % 3));
    }
    file(name, &text)
}

/// `T[i,j] = A[i] * B[j]` over two 100,000-entry vectors has 10^10 non-zero cells: the
/// tensor engine stops at the budget `--memory` sets, naming the kernel, its size and the
/// budget, where the allocator aborted before. Over 1,000-entry vectors the same program
/// fits and gives exact numbers.
#[test]
fn the_tensor_engine_stops_at_the_memory_budget() {
    const OUTER: &str = "T[i,j] = A[i] * B[j]\ns = sum[i,j](A[i] * B[j])\n";
    let program = file("outer.tp", OUTER);
    let program = program.to_str().unwrap();
    // The program over two `n`-entry vectors, under a 1 GiB budget.
    let outer = |n: usize| {
        let a = vector_mtx(&format!("outer_a_{n}.mtx"), n);
        let b = vector_mtx(&format!("outer_b_{n}.mtx"), n);
        let (a, b) = (format!("A={}", a.display()), format!("B={}", b.display()));
        spores_cli(&[
            "tensor", program, "--input", &a, "--input", &b, "--memory", "1G",
        ])
    };
    let (code, out, err) = outer(100_000);
    assert_eq!(code, 1, "{out}{err}");
    let refused = err.starts_with("error: kernel T: a sparse result of more than ")
        && err.contains(" entries needs about ")
        && err.contains("more than the memory budget of 1.1 GB (set with --memory)");
    assert!(refused && !err.contains("panicked"), "{err}");

    let (code, out, err) = outer(1000);
    assert_eq!(code, 0, "{err}");
    // sum(A) = sum(B) = 333 * 6 + 1 = 1999.
    common::assert_contains(
        &out,
        &[
            "T: dims [1000, 1000], fill 0, 1000000 entries",
            "  (0,0) 1\n  (0,1) 2\n  (0,2) 3\n  (0,3) 1\n",
            "\ns = 3996001\n",
        ],
    );

    let (code, _, err) = spores_cli(&["tensor", program, "--memory", "lots"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("expected a size like 512M or 4G"), "{err}");
}

/// A dense file of a 1e8 x 1e8 matrix with one entry (2e16 bytes of CSV, 8e16 of
/// `.npy`) is refused at once, before anything is written, naming the path, the size
/// and the free space; no file (nor temporary file) is left behind.
#[test]
fn dense_files_beyond_the_free_space_are_refused_before_writing() {
    let mtx = file(
        "one_entry.mtx",
        "%%MatrixMarket matrix coordinate real general\n100000000 100000000 1\n1 1 5\n",
    );
    let dir = mtx.with_file_name("no_space");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let started = std::time::Instant::now();

    let csv = dir.join("x.csv");
    let src = format!(
        "X = read($X)\nwrite(X, \"{}\", format=\"csv\")\n",
        csv.display()
    );
    let x = format!("X={}", mtx.display());
    let (code, out, err) = run("write_csv.dml", &src, &["--arg", &x]);
    assert_eq!(code, 1, "{out}{err}");
    common::assert_contains(
        &err,
        &[
            &format!(
                "{}: the file needs at least 2.0e7 GB, more than the ",
                csv.display()
            ),
            " free on its filesystem",
        ],
    );

    let npy = dir.join("x.npy");
    let (code, out, err) = spores_cli(&["convert", mtx.to_str().unwrap(), npy.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}{err}");
    common::assert_contains(
        &err,
        &[&format!(
            "error: {}: the file needs at least 8.0e7 GB, more than the ",
            npy.display()
        )],
    );
    let left: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
    assert!(left.is_empty(), "{left:?}");
    let took = started.elapsed();
    assert!(took < std::time::Duration::from_secs(20), "took {took:?}");
}

/// `optimize` on a 200-operator expression ends near its time limit (it ran 15-17 s
/// against a 5 s limit), and says that the plan could not be verified.
#[test]
fn optimizing_a_200_operator_expression_respects_the_time_limit() {
    let expr = include_str!("../../spores-opt/tests/data/random_200_operators.txt").trim();
    let started = std::time::Instant::now();
    let shapes = common::shape_flags(&["A=50x50", "B=50x50", "C=50x50", "D=50x50"]);
    let (code, text, _) =
        spores_cli(&[&["optimize", expr, "--time-limit-ms", "5000"], &shapes[..]].concat());
    let took = started.elapsed();
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("# not verified: "), "{text}");
    // Saturation and verification each have their limits; the rest is small. Generous
    // for a shared machine, far below the minutes of a runaway.
    assert!(took < std::time::Duration::from_secs(30), "took {took:?}");
}

/// A chain of 2,000 aliases (`t1 = t0`, `t2 = t1`, ...) is planned in linear time.
#[test]
fn a_chain_of_aliases_is_planned_quickly() {
    let mut program = String::from("t0[i,j] = E[i,j]\n");
    for k in 1..2000 {
        program.push_str(&format!("t{k}[i,j] = t{}[i,j]\n", k - 1));
    }
    program.push_str("s = sum[i,j](t1999[i,j])\n");
    let tp = file("aliases.tp", &program);
    let graph = format!(
        "E={}/../../examples/tensor/graph.mtx",
        env!("CARGO_MANIFEST_DIR")
    );
    let started = std::time::Instant::now();
    let (code, text, err) = spores_cli(&["tensor", tp.to_str().unwrap(), "--input", &graph]);
    let took = started.elapsed();
    assert_eq!(code, 0, "{err}");
    // The graph's 12 weighted edges sum to 18.
    assert!(
        text.lines().any(|l| l.trim() == "s = 18"),
        "{}",
        &text[text.len().saturating_sub(300)..]
    );
    assert!(
        took < std::time::Duration::from_secs(10),
        "took {took:?} (was 10.8 s)"
    );
}

/// `write()` over a private file keeps it private, and over a symbolic link writes the
/// file the link names (the link stays).
#[cfg(unix)]
#[test]
fn write_keeps_the_mode_and_follows_links() {
    use std::os::unix::fs::{symlink, PermissionsExt};
    let private = file("private.csv", "old\n");
    std::fs::set_permissions(&private, std::fs::Permissions::from_mode(0o600)).unwrap();
    let target = file("target.csv", "old\n");
    let link = target.with_file_name("link.csv");
    let _ = std::fs::remove_file(&link);
    symlink(&target, &link).unwrap();
    let src = format!(
        "X = matrix(\"1 2 3 4\", rows=2, cols=2)\nwrite(X, \"{}\", format=\"csv\")\nwrite(X, \"{}\", format=\"csv\")\n",
        private.display(),
        link.display()
    );
    let (code, _, err) = run("write.dml", &src, &[]);
    assert_eq!(code, 0, "{err}");
    let mode = std::fs::metadata(&private).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    assert!(std::fs::read_to_string(&private).unwrap().starts_with("1"));
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert!(std::fs::read_to_string(&target).unwrap().starts_with("1"));
}

/// Under `ulimit -v` the default budget is the address space left for results (three
/// quarters of the limit), not the physical memory: a result beyond it is refused by size
/// instead of the allocator aborting.
#[test]
fn the_default_budget_respects_the_address_space_limit() {
    let script = file(
        "ulimit.dml",
        "X = matrix(0, rows=1e9, cols=1e9)\nprint(sum(X))\n",
    );
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -v 4000000 && exec '{}' run '{}'",
            env!("CARGO_BIN_EXE_spores"),
            script.display()
        ))
        .output()
        .expect("sh runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("needs about 8.0 GB, more than the memory budget of 3.1 GB"),
        "{err}"
    );
}

/// `source` prints `want`, optimized and with `--no-opt`.
fn prints_optimized_or_not(name: &str, source: &str, want: &str) {
    for flags in [&[][..], &["--no-opt"]] {
        let (code, out, err) = run(name, source, flags);
        assert_eq!(code, 0, "{flags:?}: {err}");
        assert_eq!(out, want, "{flags:?}");
    }
}

/// A flat sum of 10,000 terms is a chain, not nesting: it parses, lowers, optimizes and
/// runs, left to right, optimized or not.
#[test]
fn a_flat_sum_of_10000_terms_prints_10000() {
    let source = format!("x = 1{}\nprint(x)\n", " + 1".repeat(9_999));
    prints_optimized_or_not("flat_sum.dml", &source, "10000\n");
}

/// A sum of 10,000 matrix terms in one block is optimized and run: the optimizer prices
/// each node of the expression once (pricing that derived every node's shape and sparsity
/// from its whole subtree took minutes here).
#[test]
fn a_flat_sum_of_10000_matrices_is_optimized() {
    let source = format!(
        "X = matrix(\"1 2 3 4\", rows=2, cols=2)\nwhile(FALSE){{}}\nY = X{}\nprint(sum(Y))\n",
        " + X".repeat(9_999)
    );
    prints_optimized_or_not("matrix_sum.dml", &source, "100000.0\n");
}

/// One operator past the parser's bound on the operators of an expression
/// (`spores_lang::parser::MAX_OPERATORS`) is a parse error at that operator, not a crash.
#[test]
fn an_expression_past_the_operator_bound_is_a_parse_error() {
    let n = spores_lang::parser::MAX_OPERATORS;
    let source = format!("x = 1{}\nprint(x)\n", " + 1".repeat(n + 1));
    let (code, _, err) = run("long_sum.dml", &source, &[]);
    assert_eq!(code, 2, "{err}");
    // The operator past the bound: after `x = 1` and `n` times ` + 1`, at column 7 + 4n.
    assert_contains(
        &err,
        &[
            &format!("long_sum.dml:1:{}: error", 7 + 4 * n),
            &format!("expression too long (more than {n} binary operators)"),
        ],
    );
}

/// Nesting that is real (parentheses) keeps the parser's depth bound, reported with the
/// line and column where it was passed.
#[test]
fn three_hundred_parentheses_are_nested_too_deeply() {
    let source = format!("x = 1\ny = {}1{}\n", "(".repeat(300), ")".repeat(300));
    let (code, _, err) = run("parens.dml", &source, &[]);
    assert_eq!(code, 2, "{err}");
    assert_contains(
        &err,
        &[
            "parens.dml:2:",
            "error: program nested too deeply (more than 256 levels)",
        ],
    );
}

/// `f(n)` recursing down to `f(0)`: `n` calls nested in the first.
fn recursion(n: usize) -> String {
    format!(
        "f = function(Double n) return (Double r) {{\n  if (n <= 0) {{ r = 0 }} else {{ r = 1 + f(n - 1) }}\n}}\nprint(f({n}))\n"
    )
}

/// The interpreter holds 10,000 nested DML calls (in a debug build, where a call level
/// takes the most stack), optimized or not.
#[test]
fn a_recursion_10000_deep_prints_10000() {
    prints_optimized_or_not("deep.dml", &recursion(10_000), "10000\n");
}

/// Past the call depth bound a runaway recursion ends with an error at the call, exit 1,
/// not a stack overflow (which would end the process with a signal).
#[test]
fn a_recursion_past_the_bound_is_a_clean_error() {
    let (code, out, err) = run("runaway.dml", &recursion(20_000), &[]);
    assert_eq!(code, 1, "{err}");
    assert_eq!(out, "");
    assert_contains(
        &err,
        &[
            "runaway.dml:2:40: error: calls nested deeper than 10000 levels (runaway recursion in `f`?)",
        ],
    );
}

/// A binary-block file whose block index places a small block 3 million rows down asks
/// the budget for the row pointers of every row before building the matrix.
#[test]
fn a_binary_file_placed_beyond_the_budget_is_refused() {
    let dir = file("far-binary.keep", "").with_extension("");
    std::fs::create_dir_all(&dir).unwrap();
    let bin = dir.join("X");
    let write = format!(
        "write(matrix(\"1 0 2.5 0 0 -3\", 2, 3), \"{}\", format=\"binary\")\n",
        bin.display()
    );
    let (code, _, err) = run("far_write.dml", &write, &[]);
    assert_eq!(code, 0, "{err}");
    // The header (`SEQ`, version, two class names, flags, metadata count, sync) is 126
    // bytes; then the record and key lengths, then the key's row block index.
    let mut bytes = std::fs::read(&bin).unwrap();
    bytes[134..142].copy_from_slice(&1_000_000i64.to_be_bytes());
    std::fs::write(&bin, &bytes).unwrap();
    let read = format!("X = read(\"{}\")\nprint(nrow(X))\n", bin.display());
    assert_run_fails(
        "far_read.dml",
        &read,
        &["--memory", "1M"],
        &[
            "read: a sparse 2999999x3 result with 3 entries",
            "memory budget",
        ],
    );
    // Within the budget, the `.mtd` file beside it disagrees, and says so.
    assert_run_fails(
        "far_read.dml",
        &read,
        &["--memory", "1G"],
        &["X: the file has 2999999 rows, its metadata file says rows=2"],
    );
}
