//! spores' side of `bench/linalg.sh`: the dense linear-algebra builtins, timed on the
//! `.npy` inputs `bench/linalg.py --generate-only` writes.
//!
//! ```text
//! cargo run --release -p spores-exec --example bench_linalg -- DATA_DIR \
//!     [--runs 5] [--threads 2] [--only solve,inv,...]
//! ```
//!
//! Ops: `gemm` (`A %*% B`, 2000 x 2000, spores' `matmul::gemm`), and `solve`, `inv`, `det`, `cholesky`, `eigen`, `qr`, `lu`, `svd` on 1000 x 1000 inputs. Each op
//! runs once to warm up, then `--runs` times; the times include the copies between
//! spores' row-major matrices and faer's column-major ones, as a DML script pays them,
//! and allocate through mimalloc, as the `spores` binary does.
//! Output: one JSON line per op with the times, their median and a check value that
//! `bench/linalg_table.py` compares with NumPy's (the same quantity on both sides).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use spores_exec::io::npy;
use spores_exec::kernels::linalg;
use spores_exec::kernels::matmul::gemm;
use spores_exec::Matrix;

type BoxError = Box<dyn std::error::Error>;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

const OPS: [&str; 9] = [
    "gemm", "solve", "inv", "det", "cholesky", "eigen", "qr", "lu", "svd",
];

struct Options {
    data: PathBuf,
    runs: usize,
    threads: usize,
    only: Vec<String>,
}

fn parse_args() -> Result<Options, String> {
    let mut args = std::env::args().skip(1);
    let mut data = None;
    let (mut runs, mut threads) = (5, 2);
    let mut only: Vec<String> = OPS.iter().map(|s| s.to_string()).collect();
    while let Some(a) = args.next() {
        let mut value = |name: &str| args.next().ok_or(format!("{name} needs a value"));
        match a.as_str() {
            "--runs" => {
                runs = value("--runs")?
                    .parse()
                    .map_err(|e| format!("--runs: {e}"))?
            }
            "--threads" => {
                threads = value("--threads")?
                    .parse()
                    .map_err(|e| format!("--threads: {e}"))?
            }
            "--only" => only = value("--only")?.split(',').map(str::to_string).collect(),
            _ if data.is_none() && !a.starts_with("--") => data = Some(PathBuf::from(a)),
            _ => return Err(format!("unknown argument {a}")),
        }
    }
    if let Some(bad) = only.iter().find(|k| !OPS.contains(&k.as_str())) {
        return Err(format!("unknown op {bad}"));
    }
    if runs == 0 || threads == 0 {
        return Err("--runs and --threads must be positive".into());
    }
    Ok(Options {
        data: data.ok_or("usage: bench_linalg DATA_DIR [--runs N] [--threads T] [--only ops]")?,
        runs,
        threads,
        only,
    })
}

fn load(dir: &Path, name: &str) -> Result<Matrix, BoxError> {
    let path = dir.join(name);
    let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(npy::parse(&bytes, &path)?)
}

fn sum(m: &Matrix) -> f64 {
    m.to_dense().data().iter().sum()
}

fn abs_sum(m: &Matrix) -> f64 {
    m.to_dense().data().iter().map(|v| v.abs()).sum()
}

fn diag_abs_sum(m: &Matrix) -> f64 {
    (0..m.rows().min(m.cols())).map(|i| m.get(i, i).abs()).sum()
}

/// Runs `f` once to warm up and `runs` times timed; returns the times and the warm-up's
/// check value.
fn time(
    runs: usize,
    mut f: impl FnMut() -> Result<f64, BoxError>,
) -> Result<(Vec<f64>, f64), BoxError> {
    let check = f()?;
    let mut times = Vec::with_capacity(runs);
    for _ in 0..runs {
        let t = Instant::now();
        std::hint::black_box(f()?);
        times.push(t.elapsed().as_secs_f64());
    }
    Ok((times, check))
}

fn run(opts: &Options) -> Result<(), BoxError> {
    let d = &opts.data;
    for op in &opts.only {
        let (times, check) = match op.as_str() {
            "gemm" => {
                let (a, b) = (
                    load(d, "G_A.npy")?.into_dense(),
                    load(d, "G_B.npy")?.into_dense(),
                );
                time(opts.runs, || Ok(gemm(&a, &b)?.data().iter().sum()))?
            }
            "solve" => {
                let (a, b) = (load(d, "A.npy")?, load(d, "b.npy")?);
                time(opts.runs, || Ok(sum(&linalg::solve(&a, &b)?)))?
            }
            "inv" => {
                let a = load(d, "A.npy")?;
                time(opts.runs, || Ok(sum(&linalg::inverse(&a)?)))?
            }
            "det" => {
                let a = load(d, "D.npy")?;
                time(opts.runs, || Ok(linalg::det(&a)?))?
            }
            "cholesky" => {
                let a = load(d, "S.npy")?;
                time(opts.runs, || Ok(sum(&linalg::cholesky(&a)?)))?
            }
            "eigen" => {
                let a = load(d, "Y.npy")?;
                time(opts.runs, || Ok(abs_sum(&linalg::eigen_symmetric(&a)?.0)))?
            }
            "qr" => {
                let a = load(d, "A.npy")?;
                time(opts.runs, || Ok(diag_abs_sum(&linalg::qr(&a)?.1)))?
            }
            "lu" => {
                let a = load(d, "D.npy")?;
                time(opts.runs, || Ok(sum(&linalg::lu(&a)?.2)))?
            }
            "svd" => {
                let a = load(d, "A.npy")?;
                time(opts.runs, || Ok(sum(&linalg::svd(&a)?.1)))?
            }
            other => return Err(format!("unknown op {other}").into()),
        };
        let mut sorted = times.clone();
        sorted.sort_by(f64::total_cmp);
        let median = sorted[sorted.len() / 2];
        let times: Vec<String> = times.iter().map(|t| format!("{t:.6}")).collect();
        println!(
            "{{\"op\": \"{op}\", \"system\": \"spores\", \"threads\": {}, \"median_s\": {median:.6}, \"times\": [{}], \"check\": {check:e}}}",
            opts.threads,
            times.join(", ")
        );
    }
    Ok(())
}

fn main() -> ExitCode {
    let opts = match parse_args() {
        Ok(o) => o,
        Err(msg) => {
            eprintln!("bench_linalg: {msg}");
            return ExitCode::from(2);
        }
    };
    if let Err(e) = rayon::ThreadPoolBuilder::new()
        .num_threads(opts.threads)
        .build_global()
    {
        eprintln!("bench_linalg: cannot build the rayon pool: {e}");
        return ExitCode::from(2);
    }
    match run(&opts) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bench_linalg: error: {e}");
            ExitCode::FAILURE
        }
    }
}
