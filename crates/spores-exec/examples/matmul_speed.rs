//! Hand-run micro-benchmark of the product kernels:
//!
//! ```text
//! cargo run --release -p spores-exec --example matmul_speed [-- --quick]
//! ```
//!
//! Reports the best of several runs for: dense GEMM 2000×2000 (GFLOP/s), SpMV and SpMM
//! (10 columns) with a 100k×50k matrix of 5M non-zeros, `t(X) %*% v` on the same matrix,
//! `t(X) %*% X` of a dense 100k×100 matrix, and a dense 4000×4000 transpose.
//! `--quick` uses smaller sizes (a smoke run, not a measurement).

use std::hint::black_box;
use std::time::Instant;

use spores_exec::kernels::matmul::{gemm, matmul_t, spmm, tsmm};
use spores_exec::kernels::transpose::transpose;
use spores_exec::matrix::{rand_matrix, RandSpec};
use spores_exec::Matrix;

fn best_of<T>(runs: usize, mut f: impl FnMut() -> T) -> f64 {
    let mut best = f64::INFINITY;
    for _ in 0..runs {
        let t = Instant::now();
        black_box(f());
        best = best.min(t.elapsed().as_secs_f64());
    }
    best
}

fn rand(rows: usize, cols: usize, sparsity: f64, seed: u64) -> Matrix {
    rand_matrix(&RandSpec::uniform(rows, cols, (-1.0, 1.0), sparsity, seed)).expect("valid spec")
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let scale = if quick { 10 } else { 1 };
    println!("rayon threads: {}", rayon::current_num_threads());

    let n = 2000 / scale;
    let a = rand(n, n, 1.0, 1).into_dense();
    let b = rand(n, n, 1.0, 2).into_dense();
    let t = best_of(5, || gemm(&a, &b).expect("square"));
    let flops = 2.0 * (n as f64).powi(3);
    println!(
        "gemm {n}x{n}x{n}: {:.1} ms, {:.1} GFLOP/s",
        t * 1e3,
        flops / t / 1e9
    );
    let (am, bm) = (Matrix::Dense(a), Matrix::Dense(b));
    let t = best_of(5, || matmul_t(&am, false, &bm, true).expect("square"));
    println!("A %*% t(B) {n}: {:.1} GFLOP/s", flops / t / 1e9);
    let t = best_of(5, || matmul_t(&am, true, &bm, false).expect("square"));
    println!("t(A) %*% B {n}: {:.1} GFLOP/s", flops / t / 1e9);
    drop((am, bm));

    let (rows, cols) = (100_000 / scale, 50_000 / scale);
    let x = rand(rows, cols, 0.001, 3);
    let Matrix::Sparse(xs) = &x else {
        panic!("expected sparse")
    };
    println!("sparse X {rows}x{cols}, nnz {}", xs.nnz());
    let v = rand(cols, 1, 1.0, 4).into_dense();
    let t = best_of(20, || spmm(xs, &v).expect("fits"));
    println!("spmv: {:.2} ms", t * 1e3);
    let d10 = rand(cols, 10, 1.0, 5).into_dense();
    let t = best_of(10, || spmm(xs, &d10).expect("fits"));
    println!("spmm 10 cols: {:.2} ms", t * 1e3);
    let u = Matrix::Dense(rand(rows, 1, 1.0, 6).into_dense());
    let t = best_of(20, || matmul_t(&x, true, &u, false).expect("fits"));
    println!("t(X) %*% v: {:.2} ms", t * 1e3);
    drop(x);

    let tall = rand(100_000 / scale, 100, 1.0, 7);
    let t = best_of(5, || tsmm(&tall).expect("tsmm"));
    let flops = 100_000.0 / scale as f64 * 100.0 * 100.0;
    println!(
        "tsmm dense {}x100: {:.2} ms ({:.1} GFLOP/s counting the symmetric half)",
        100_000 / scale,
        t * 1e3,
        flops / t / 1e9
    );

    let sq = rand(4000 / scale, 4000 / scale, 1.0, 8);
    let t = best_of(5, || transpose(&sq));
    println!("transpose dense {0}x{0}: {1:.2} ms", 4000 / scale, t * 1e3);
}
