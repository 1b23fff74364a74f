//! The relational engine on the benchmark programs: DataFusion running the plan as
//! written and the optimizer's plan, beside the local kernels running the optimizer's plan
//! (fused `wsloss` by its kernel), on a generated sparse `X`. Prints one row per program.
//!
//! ```sh
//! cargo run --profile test -p spores-dist --example bench_relational -- [m n density rank runs]
//! ```

use std::collections::HashMap;
use std::time::{Duration, Instant};

use spores_dist::{DataFusionEngine, EngineConfig};
use spores_exec::kernels::fused::{wsloss, WeightKind};
use spores_exec::matrix::{rand_matrix, RandSpec};
use spores_exec::Matrix;
use spores_opt::eval::eval;
use spores_opt::fused::expand_fused;
use spores_opt::la::{Dim, LaExpr, ShapeEnv};
use spores_opt::saturate::{optimize, OptimizeOptions};

fn arg(k: usize, default: f64) -> f64 {
    std::env::args()
        .nth(k)
        .and_then(|a| a.parse().ok())
        .unwrap_or(default)
}

fn generate(rows: usize, cols: usize, sparsity: f64, min: f64, seed: u64) -> Matrix {
    let spec = RandSpec {
        rows,
        cols,
        min,
        max: if min == 1.0 { 5.0 } else { 1.0 },
        sparsity,
        seed,
    };
    rand_matrix(&spec).expect("generated")
}

/// Best wall time of `runs` calls, with the last result.
fn best<T>(runs: usize, mut f: impl FnMut() -> T) -> (Duration, T) {
    let mut best = Duration::MAX;
    let mut last = None;
    for _ in 0..runs {
        let start = Instant::now();
        let out = f();
        best = best.min(start.elapsed());
        last = Some(out);
    }
    (best, last.expect("runs >= 1"))
}

fn main() {
    let (m, n) = (arg(1, 5000.0) as usize, arg(2, 1000.0) as usize);
    let (density, rank, runs) = (arg(3, 0.01), arg(4, 10.0) as usize, arg(5, 3.0) as usize);
    let mut inputs = HashMap::new();
    inputs.insert("X".to_string(), generate(m, n, density, 1.0, 1));
    inputs.insert("U".to_string(), generate(m, rank, 1.0, 0.0, 2));
    inputs.insert("V".to_string(), generate(n, rank, 1.0, 0.0, 3));
    inputs.insert("v".to_string(), generate(n, 1, 1.0, 0.0, 4));
    let mut env = ShapeEnv::default();
    for (name, x) in &inputs {
        env.matrix(name, Dim::Known(x.rows()), Dim::Known(x.cols()));
        env.set_nnz(name, x.nnz() as f64);
    }
    let engine = DataFusionEngine::new(EngineConfig::default()).expect("engine");
    println!(
        "X {m}x{n}, {} non-zeros, rank {rank}; best of {runs}; seconds",
        inputs["X"].nnz()
    );
    println!("| program | optimized plan | local kernels, optimized | DataFusion, optimized | DataFusion, as written |");
    println!("|---|---|---|---|---|");
    for text in [
        "sum((X - U %*% t(V))^2)",
        "t(X) %*% (X %*% v)",
        "(U %*% t(V) - X) %*% V + 0.1 * U",
    ] {
        let e = LaExpr::parse(text).expect("parses");
        let plan = optimize(&e, &env, &OptimizeOptions::default())
            .expect("optimizes")
            .expr;
        let (local, want) = best(runs, || match &plan {
            LaExpr::Func { name, args } if name == "wsloss" => {
                let var = |k: usize| match &args[k] {
                    LaExpr::Var(v) => &inputs[v],
                    other => panic!("wsloss argument {other}"),
                };
                let value = wsloss(
                    var(0),
                    &var(1).to_dense(),
                    &var(2).to_dense(),
                    WeightKind::None,
                )
                .expect("wsloss");
                Matrix::Dense(spores_exec::DenseMatrix::filled(1, 1, value))
            }
            _ => eval(&expand_fused(&plan), &inputs).expect("local"),
        });
        let (optimized, got) = best(runs, || engine.run(&plan, &inputs).expect("datafusion"));
        let (written, got_written) = best(runs, || engine.run(&e, &inputs).expect("datafusion"));
        assert!(
            got.approx_eq(&want, 1e-9) && got_written.approx_eq(&want, 1e-9),
            "{text}: results differ"
        );
        println!(
            "| `{text}` | `{plan}` | {:.4} | {:.3} | {:.3} |",
            local.as_secs_f64(),
            optimized.as_secs_f64(),
            written.as_secs_f64()
        );
    }
}
