//! Calibrates the optimizer's cost model by timing the kernels of `spores-exec`.
//!
//! ```sh
//! cargo run --release -p spores-opt --example calibrate            # print the fit
//! cargo run --release -p spores-opt --example calibrate -- --write  # also rewrite the table
//! cargo run --release -p spores-opt --example calibrate -- --write --only SPMV_NS_PER_NNZ,MMCHAIN_NS_PER_NNZ_COL
//! ```
//!
//! Each kernel family (dense GEMM, sparse x dense, dense x sparse, SpGEMM, transposes,
//! elementwise maps, aggregates, the fused operators) is run on a few sizes and
//! densities; the fastest of several runs is divided by `work`, what the cost model counts
//! for that family (flops, non-zeros or cells), summed over the sizes. These prices (ns per
//! unit of work) and the time of a tiny operator (a fixed cost per operator) become `crates/spores-opt/src/cost/table.rs`, which
//! [`spores_opt::cost`] reads. With `--write` the table is written atomically (a
//! temporary file renamed over the old one). With `--only NAME,...` only the named
//! constants are replaced (or added), each noting the load it was measured at: prices of
//! families that compete (two mat-vecs against one `mmchain`) are best measured in one
//! run, while re-measuring every family on a busy machine would move them all.

use std::hint::black_box;
use std::path::Path;
use std::time::Instant;

use spores_exec::kernels::elementwise::{binary, BinaryOp};
use spores_exec::kernels::fused::{self, WeightKind};
use spores_exec::kernels::unary::{unary, UnaryOp};
use spores_exec::kernels::{aggregate, matmul, transpose};
use spores_exec::matrix::{rand_matrix, DenseMatrix, Matrix, RandSpec};

fn rand(rows: usize, cols: usize, density: f64, seed: u64) -> Matrix {
    rand_matrix(&RandSpec::uniform(rows, cols, (0.5, 1.5), density, seed)).expect("valid rand spec")
}

fn dense(rows: usize, cols: usize, seed: u64) -> DenseMatrix {
    rand(rows, cols, 1.0, seed).into_dense()
}

/// Fastest wall time of `f` in nanoseconds over `reps` runs after one warm-up: other jobs
/// on the machine only ever add time, so the minimum is the least noisy estimate.
fn time_ns(reps: usize, mut f: impl FnMut()) -> f64 {
    f();
    let mut ts: Vec<f64> = (0..reps)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_nanos() as f64
        })
        .collect();
    ts.sort_by(f64::total_cmp);
    ts[0]
}

/// One family: its constant's name, what a unit of work is, and (work, ns) samples.
struct Family {
    name: &'static str,
    unit: &'static str,
    doc: &'static str,
    samples: Vec<(f64, f64)>,
}

impl Family {
    /// ns per unit of work: total time over total work, so the largest (least
    /// overhead-dominated, most cache-realistic) samples weigh most. A least-squares
    /// intercept was tried first; on a loaded 2-core machine it came out negative for
    /// half of the families.
    fn slope(&self) -> f64 {
        let (w, t) = self
            .samples
            .iter()
            .fold((0.0, 0.0), |(a, b), (x, y)| (a + x, b + y));
        t / w
    }
}

fn measure(reps: usize) -> Vec<Family> {
    let mut out = Vec::new();
    let mut family = |name, unit, doc, samples| {
        out.push(Family {
            name,
            unit,
            doc,
            samples,
        })
    };

    // Dense x dense: m*k*n multiply-adds.
    let mut s = Vec::new();
    for (m, k, n) in [
        (100, 100, 100),
        (300, 300, 300),
        (1000, 200, 500),
        (2000, 20, 2000),
    ] {
        let (a, b) = (rand(m, k, 1.0, 1), rand(k, n, 1.0, 2));
        let t = time_ns(reps, || {
            black_box(matmul::matmul(&a, &b).unwrap());
        });
        s.push(((m * k * n) as f64, t));
    }
    family(
        "GEMM_NS_PER_FLOP",
        "multiply-add",
        "dense x dense product",
        s,
    );

    // Dense matrix x vector (and vector x matrix): m*k multiply-adds, memory-bound.
    let mut s = Vec::new();
    for (m, k, n) in [
        (2000, 1000, 1),
        (20000, 500, 1),
        (1, 2000, 5000),
        (100000, 20, 1),
    ] {
        let (a, b) = (rand(m, k, 1.0, 25), rand(k, n, 1.0, 26));
        let t = time_ns(reps, || {
            black_box(matmul::matmul(&a, &b).unwrap());
        });
        s.push(((m * k * n) as f64, t));
    }
    family(
        "GEMV_NS_PER_FLOP",
        "multiply-add",
        "dense matrix x vector or vector x matrix product",
        s,
    );

    // Sparse x dense: nnz(A) * n.
    let mut s = Vec::new();
    for (m, k, d, n) in [
        (20000, 5000, 0.001, 1),
        (20000, 5000, 0.01, 1),
        (20000, 5000, 0.01, 10),
        (20000, 5000, 0.01, 20),
    ] {
        let (a, b) = (rand(m, k, d, 3), rand(k, n, 1.0, 4));
        let work = (a.nnz() * n) as f64;
        let t = time_ns(reps, || {
            black_box(matmul::matmul(&a, &b).unwrap());
        });
        s.push((work, t));
    }
    family(
        "SPMM_NS_PER_FLOP",
        "non-zero of A times column of B",
        "sparse x dense product with several columns (SpMM)",
        s,
    );

    // Sparse matrix times a vector, `X %*% v`, `t(X) %*% v` (read in place, as
    // `matmul_t` runs it) and `t(v) %*% X`: nnz(X) multiply-adds, memory-bound on X.
    // Priced apart from SpMM and dense x sparse, whose columns (rows) share each read of
    // a non-zero (per flop they are several times cheaper), so that a chain of mat-vecs
    // is not priced as a multi-column product.
    let mut s = Vec::new();
    for (m, k, d) in [
        (20000, 5000, 0.001),
        (20000, 5000, 0.01),
        (100000, 1000, 0.01),
    ] {
        let a = rand(m, k, d, 30);
        let (v, u) = (rand(k, 1, 1.0, 31), rand(m, 1, 1.0, 32));
        let t = time_ns(reps, || {
            black_box(matmul::matmul(&a, &v).unwrap());
        });
        s.push((a.nnz() as f64, t));
        let t = time_ns(reps, || {
            black_box(matmul::matmul_t(&a, true, &u, false).unwrap());
        });
        s.push((a.nnz() as f64, t));
        let row = rand(1, m, 1.0, 34);
        let t = time_ns(reps, || {
            black_box(matmul::matmul(&row, &a).unwrap());
        });
        s.push((a.nnz() as f64, t));
    }
    family(
        "SPMV_NS_PER_NNZ",
        "non-zero of A",
        "sparse matrix times a vector (`A %*% v`, `t(A) %*% v`, `t(v) %*% A`)",
        s,
    );

    // Dense x sparse: m * nnz(B).
    let mut s = Vec::new();
    for (m, k, n, d) in [
        (1, 20000, 5000, 0.01),
        (10, 20000, 5000, 0.01),
        (20, 5000, 20000, 0.01),
    ] {
        let (a, b) = (rand(m, k, 1.0, 5), rand(k, n, d, 6));
        let work = (m * b.nnz()) as f64;
        let t = time_ns(reps, || {
            black_box(matmul::matmul(&a, &b).unwrap());
        });
        s.push((work, t));
    }
    family(
        "DENSE_SPARSE_NS_PER_FLOP",
        "row of A times non-zero of B",
        "dense x sparse product",
        s,
    );

    // Sparse x sparse: expected multiply-adds nnz(A) * nnz(B) / k.
    let mut s = Vec::new();
    for (m, k, n, d) in [
        (5000, 5000, 5000, 0.001),
        (5000, 5000, 5000, 0.003),
        (10000, 5000, 5000, 0.002),
    ] {
        let (a, b) = (rand(m, k, d, 7), rand(k, n, d, 8));
        let work = a.nnz() as f64 * b.nnz() as f64 / k as f64;
        let t = time_ns(reps, || {
            black_box(matmul::matmul(&a, &b).unwrap());
        });
        s.push((work, t));
    }
    family(
        "SPGEMM_NS_PER_FLOP",
        "multiply-add",
        "sparse x sparse product (Gustavson)",
        s,
    );

    // Transposes.
    let mut s = Vec::new();
    for (m, n) in [(500, 500), (2000, 1000), (20000, 20)] {
        let a = rand(m, n, 1.0, 9);
        let t = time_ns(reps, || {
            black_box(transpose::transpose(&a));
        });
        s.push(((m * n) as f64, t));
    }
    family("DENSE_TRANSPOSE_NS_PER_CELL", "cell", "dense transpose", s);
    let mut s = Vec::new();
    for (m, n, d) in [
        (20000, 5000, 0.001),
        (20000, 5000, 0.01),
        (100000, 1000, 0.01),
    ] {
        let a = rand(m, n, d, 10);
        let t = time_ns(reps, || {
            black_box(transpose::transpose(&a));
        });
        s.push((a.nnz() as f64, t));
    }
    family(
        "SPARSE_TRANSPOSE_NS_PER_NNZ",
        "non-zero",
        "sparse transpose (counting sort)",
        s,
    );

    // Elementwise.
    let mut s = Vec::new();
    for (m, n) in [(500, 500), (2000, 1000), (100000, 20)] {
        let (a, b) = (rand(m, n, 1.0, 11), rand(m, n, 1.0, 12));
        let t = time_ns(reps, || {
            black_box(binary(BinaryOp::Mul, &a, &b).unwrap());
        });
        s.push(((m * n) as f64, t));
    }
    family(
        "DENSE_EW_NS_PER_CELL",
        "output cell",
        "dense elementwise operator (also writing a dense result)",
        s,
    );
    let mut s = Vec::new();
    for (m, n, d) in [
        (20000, 5000, 0.001),
        (20000, 5000, 0.01),
        (100000, 1000, 0.01),
    ] {
        let (a, b) = (rand(m, n, d, 13), rand(m, n, d, 14));
        let t = time_ns(reps, || {
            black_box(binary(BinaryOp::Add, &a, &b).unwrap());
            black_box(unary(UnaryOp::Neg, &a));
        });
        // Work: the union walk of `a + b` plus the map over `a`.
        s.push(((a.nnz() + b.nnz() + a.nnz()) as f64, t));
    }
    family(
        "SPARSE_EW_NS_PER_NNZ",
        "non-zero read",
        "sparse elementwise operator (maps, unions, intersections)",
        s,
    );

    // Aggregates.
    let mut s = Vec::new();
    for (m, n) in [(500, 500), (2000, 1000), (100000, 20)] {
        let a = rand(m, n, 1.0, 15);
        let t = time_ns(reps, || {
            black_box(aggregate::row_sums(&a));
            black_box(aggregate::col_sums(&a));
        });
        s.push(((2 * m * n) as f64, t));
    }
    family(
        "DENSE_AGG_NS_PER_CELL",
        "cell read",
        "dense sum/rowSums/colSums",
        s,
    );
    let mut s = Vec::new();
    for (m, n, d) in [
        (20000, 5000, 0.001),
        (20000, 5000, 0.01),
        (100000, 1000, 0.01),
    ] {
        let a = rand(m, n, d, 16);
        let t = time_ns(reps, || {
            black_box(aggregate::row_sums(&a));
            black_box(aggregate::col_sums(&a));
        });
        s.push(((2 * a.nnz()) as f64, t));
    }
    family(
        "SPARSE_AGG_NS_PER_NNZ",
        "non-zero read",
        "sparse sum/rowSums/colSums",
        s,
    );

    // Fused operators over a sparse X (m x n) and rank-k factors.
    let cases = [
        (20000, 5000, 0.001, 10),
        (20000, 5000, 0.01, 10),
        (20000, 5000, 0.01, 20),
    ];
    let mut ws = Vec::new();
    let mut sd = Vec::new();
    for (m, n, d, k) in cases {
        let x = rand(m, n, d, 17);
        let (u, v) = (dense(m, k, 18), dense(n, k, 19));
        let work = (x.nnz() * k) as f64;
        ws.push((
            work,
            time_ns(reps, || {
                black_box(fused::wsloss(&x, &u, &v, WeightKind::None).unwrap());
            }),
        ));
        sd.push((
            work,
            time_ns(reps, || {
                black_box(fused::sddmm_sum(&x, &u, &v).unwrap());
            }),
        ));
    }
    family(
        "WSLOSS_NS_PER_NNZ_RANK",
        "non-zero of X times rank",
        "fused wsloss / wsloss_plus",
        ws,
    );
    family(
        "SDDMM_NS_PER_NNZ_RANK",
        "non-zero of X times rank",
        "fused sddmm_sum",
        sd,
    );
    // The chain as GLM and least squares run it: a vector `v`, with and without the
    // weight `w`, on the sparse inputs of the SpMV family (which prices the unfused chain).
    let mut s = Vec::new();
    for (m, n, d) in [
        (20000, 5000, 0.001),
        (20000, 5000, 0.01),
        (100000, 1000, 0.01),
    ] {
        let x = rand(m, n, d, 20);
        let (v, w) = (dense(n, 1, 21), dense(m, 1, 33));
        for weight in [None, Some(&w)] {
            let t = time_ns(reps, || {
                black_box(fused::mmchain(&x, &v, weight).unwrap());
            });
            s.push((x.nnz() as f64, t));
        }
    }
    family(
        "MMCHAIN_NS_PER_NNZ_COL",
        "non-zero of X times column of v",
        "fused mmchain (t(X) %*% (X %*% v))",
        s,
    );
    // t(X) %*% X: the work is the full product's (m*n*n multiply-adds, times the square of
    // X's density when sparse), so the prices compare with GEMM's and SpGEMM's.
    let tsmm_samples = |sizes: &[(usize, usize, f64)], seed, work: fn(f64, f64, f64) -> f64| {
        let mut s = Vec::new();
        for &(m, n, d) in sizes {
            let x = rand(m, n, d, seed);
            let t = time_ns(reps, || {
                black_box(matmul::tsmm(&x).unwrap());
            });
            s.push((work(m as f64, n as f64, d), t));
        }
        s
    };
    let dense_sizes = [
        (2000, 200, 1.0),
        (10000, 100, 1.0),
        (500, 1000, 1.0),
        (100000, 20, 1.0),
    ];
    let s = tsmm_samples(&dense_sizes, 27, |m, n, _| m * n * n);
    family(
        "TSMM_DENSE_NS_PER_FLOP",
        "multiply-add of the full product",
        "tsmm (t(X) %*% X), dense X",
        s,
    );
    let sparse_sizes = [(100000, 1000, 0.01), (10000, 500, 0.05), (50000, 200, 0.02)];
    let s = tsmm_samples(&sparse_sizes, 28, |m, n, d| m * n * n * d * d);
    family(
        "TSMM_SPARSE_NS_PER_FLOP",
        "multiply-add of the full product times X's density squared",
        "tsmm (t(X) %*% X), sparse X",
        s,
    );
    // The dense n x n result of a sparse tsmm, on X too sparse for its products to count.
    let s = tsmm_samples(
        &[(1000, 2000, 0.0002), (1000, 5000, 0.0002)],
        29,
        |_, n, _| n * n,
    );
    family(
        "TSMM_SPARSE_NS_PER_RESULT_CELL",
        "cell of the dense n x n result",
        "tsmm (t(X) %*% X), sparse X",
        s,
    );
    let mut s = Vec::new();
    for (m, n) in [(500, 500), (2000, 1000), (100000, 20)] {
        let p = rand(m, n, 1.0, 22);
        let t = time_ns(reps, || {
            black_box(fused::sprop(&p));
        });
        s.push(((m * n) as f64, t));
    }
    family("SPROP_NS_PER_CELL", "cell", "fused sprop (P * (1 - P))", s);
    out
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let write = args.iter().any(|a| a == "--write");
    let reps = args
        .iter()
        .position(|a| a == "--reps")
        .and_then(|i| args.get(i + 1))
        .and_then(|r| r.parse().ok())
        .unwrap_or(7);
    let load = std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|l| l.split_whitespace().next().map(str::to_string))
        .unwrap_or_else(|| "unknown".into());
    let only: Option<Vec<String>> = args
        .iter()
        .position(|a| a == "--only")
        .and_then(|i| args.get(i + 1))
        .map(|names| names.split(',').map(str::to_string).collect());
    let families = measure(reps);
    if let Some(unknown) = only
        .iter()
        .flatten()
        .find(|n| !families.iter().any(|f| f.name == n.as_str()))
    {
        eprintln!("calibrate: --only names no family `{unknown}`");
        std::process::exit(2);
    }
    let mut consts = String::new();
    println!("| family | ns per unit | samples (work, ms) |");
    println!("| --- | --- | --- |");
    for f in &families {
        let slope = f.slope();
        let samples: Vec<String> = f
            .samples
            .iter()
            .map(|(w, t)| format!("({w:.2e}, {:.2})", t / 1e6))
            .collect();
        println!("| {} | {slope:.4} | {} |", f.name, samples.join(" "));
        consts.push_str(&format!(
            "/// {}: ns per {}.\npub const {}: f64 = {slope:.5};\n",
            f.doc, f.unit, f.name
        ));
    }
    // The fixed cost of an operator, measured on operands too small for their size to
    // matter.
    let (a, b) = (rand(4, 4, 1.0, 23), rand(4, 4, 1.0, 24));
    let overhead = time_ns(reps * 100, || {
        black_box(binary(BinaryOp::Mul, &a, &b).unwrap());
    });
    println!("\nfixed cost per operator: {:.2} µs", overhead / 1e3);
    if !write {
        return;
    }
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/cost/table.rs");
    if let Some(only) = only {
        let old = std::fs::read_to_string(&path).expect("read the table");
        let chosen: Vec<&Family> = families
            .iter()
            .filter(|f| only.iter().any(|n| n == f.name))
            .collect();
        let text = replace_constants(&old, &chosen, reps, &load);
        write_atomically(&path, &text);
        return;
    }
    let text = format!(
        "//! Kernel costs measured on this machine: nanoseconds per unit of work per kernel\n\
         //! family. GENERATED — do not edit; regenerate with\n\
         //!\n\
         //! ```sh\n\
         //! cargo run --release -p spores-opt --example calibrate -- --write\n\
         //! ```\n\
         //!\n\
         //! (fastest of {} runs per point; ns per unit = total time / total work over\n\
         //! the points; load average {load} when measured.)\n\n\
         {consts}/// Fixed cost of running one operator (dispatch, allocation): a 4 x 4\n\
         /// elementwise product, in ns.\n\
         pub const OP_OVERHEAD_NS: f64 = {overhead:.1};\n",
        reps
    );
    write_atomically(&path, &text);
}

/// A temporary file renamed over `path`.
fn write_atomically(path: &Path, text: &str) {
    let tmp = path.with_extension("rs.tmp");
    std::fs::write(&tmp, text).expect("write the table");
    std::fs::rename(&tmp, path).expect("replace the table");
    println!("wrote {}", path.display());
}

/// `table` with each of `families`' constants (its doc line and definition) replaced,
/// or added before the fixed cost when the table does not have it yet; the doc line
/// records the runs and load of this measurement.
fn replace_constants(table: &str, families: &[&Family], reps: usize, load: &str) -> String {
    let mut lines: Vec<String> = table.lines().map(str::to_string).collect();
    for f in families {
        let doc = format!(
            "/// {}: ns per {} (written with --only: fastest of {reps} runs, load {load}).",
            f.doc, f.unit
        );
        let def = format!("pub const {}: f64 = {:.5};", f.name, f.slope());
        let prefix = format!("pub const {}:", f.name);
        match lines.iter().position(|l| l.starts_with(&prefix)) {
            Some(k) => {
                lines[k] = def;
                if k > 0 && lines[k - 1].starts_with("///") {
                    lines[k - 1] = doc;
                } else {
                    lines.insert(k, doc);
                }
            }
            None => {
                let at = lines
                    .iter()
                    .position(|l| l.starts_with("/// Fixed cost of running one operator"))
                    .unwrap_or(lines.len());
                lines.splice(at..at, [doc, def]);
            }
        }
    }
    lines.join("\n") + "\n"
}
