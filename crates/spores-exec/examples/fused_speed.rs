//! Hand-run micro-benchmark of the fused kernels `sddmm_sum`, `wsloss(None)` and
//! `wdivmm_mult`, and of `mmchain` against the two products it fuses.
//!
//! ```text
//! cargo run --release -p spores-exec --example fused_speed [rows cols nnz rank reps]
//! ```
//!
//! Defaults: a 100k x 50k X with 5M non-zeros and rank-20 factors. Reports the best and
//! median wall time over the repetitions and the effective bandwidth: bytes of X's CSR
//! (8-byte values, 4-byte column indices, 8-byte row pointers) plus both factors, divided
//! by the best time.

use std::time::{Duration, Instant};

use spores_exec::kernels::elementwise::BinaryOp;
use spores_exec::kernels::fused::{mmchain, sddmm, sddmm_sum, wdivmm_mult, wsloss, WeightKind};
use spores_exec::kernels::masked::{masked_right_mul, Instr, MaskedProgram, Operand};
use spores_exec::kernels::matmul::{matmul, matmul_t};
use spores_exec::matrix::{rand_matrix, Matrix, RandSpec};

fn arg(args: &[String], i: usize, default: usize) -> usize {
    args.get(i).and_then(|s| s.parse().ok()).unwrap_or(default)
}

fn time(reps: usize, mut f: impl FnMut() -> f64) -> (Duration, Duration, f64) {
    let mut times = Vec::with_capacity(reps);
    let mut result = 0.0;
    for _ in 0..reps {
        let start = Instant::now();
        result = std::hint::black_box(f());
        times.push(start.elapsed());
    }
    times.sort();
    (times[0], times[times.len() / 2], result)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let rows = arg(&args, 1, 100_000);
    let cols = arg(&args, 2, 50_000);
    let nnz = arg(&args, 3, 5_000_000);
    let rank = arg(&args, 4, 20);
    let reps = arg(&args, 5, 7).max(1);

    let spec =
        |rows, cols, sparsity, seed| RandSpec::uniform(rows, cols, (-1.0, 1.0), sparsity, seed);
    let x = rand_matrix(&spec(
        rows,
        cols,
        nnz as f64 / (rows as f64 * cols as f64),
        1,
    ))?;
    let u = rand_matrix(&spec(rows, rank, 1.0, 2))?.into_dense();
    let v = rand_matrix(&spec(cols, rank, 1.0, 3))?.into_dense();
    let Matrix::Sparse(csr) = &x else {
        return Err("X came out dense; lower nnz".into());
    };
    let bytes = csr.stored() * 12 + (rows + 1) * 8 + (u.data().len() + v.data().len()) * 8;
    println!(
        "X {rows}x{cols}, {} stored, rank {rank}, {} threads; bytes read per call {:.1} MB",
        csr.stored(),
        rayon::current_num_threads(),
        bytes as f64 / 1e6
    );
    let report = |name: &str, (best, median, result): (Duration, Duration, f64)| {
        println!(
            "{name:>14}: best {:8.3} ms  median {:8.3} ms  {:6.2} GB/s  {:8.2} Mnnz/s  (result {result:.6e})",
            best.as_secs_f64() * 1e3,
            median.as_secs_f64() * 1e3,
            bytes as f64 / best.as_secs_f64() / 1e9,
            csr.stored() as f64 / best.as_secs_f64() / 1e6,
        );
    };
    report(
        "sddmm_sum",
        time(reps, || sddmm_sum(&x, &u, &v).expect("shapes fit")),
    );
    report(
        "wsloss(None)",
        time(reps, || {
            wsloss(&x, &u, &v, WeightKind::None).expect("shapes fit")
        }),
    );
    report(
        "wdivmm_mult",
        time(reps, || {
            wdivmm_mult(&x, &u, &v).expect("shapes fit").data()[0]
        }),
    );
    // The same product as a generic masked program (X * (U %*% t(V))) %*% V.
    let program = MaskedProgram::new(vec![
        Instr::Mask,
        Instr::Load(0),
        Instr::Binary(BinaryOp::Mul),
    ])?;
    let low_rank = [Operand::LowRank { u: &u, v: &v }];
    report(
        "masked E %*% V",
        time(reps, || {
            masked_right_mul(&x, &program, &low_rank, &v)
                .expect("shapes fit")
                .data()[0]
        }),
    );
    report(
        "sddmm",
        time(reps, || sddmm(&x, &u, &v).expect("shapes fit").get(0, 0)),
    );
    let v_matrix = Matrix::Dense(v.clone());
    report(
        "sddmm %*% V",
        time(reps, || {
            let masked = sddmm(&x, &u, &v).expect("shapes fit");
            matmul(&masked, &v_matrix).expect("shapes fit").get(0, 0)
        }),
    );
    let w = rand_matrix(&spec(cols, 1, 1.0, 4))?.into_dense();
    report(
        "mmchain",
        time(reps, || {
            mmchain(&x, &w, None).expect("shapes fit").data()[0]
        }),
    );
    let w = Matrix::Dense(w);
    report(
        "t(X) %*% (X %*% v)",
        time(reps, || {
            let xv = matmul(&x, &w).expect("shapes fit");
            matmul_t(&x, true, &xv, false)
                .expect("shapes fit")
                .get(0, 0)
        }),
    );
    Ok(())
}
