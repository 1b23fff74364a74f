//! Kernel benchmark on the shared data of `bench/kernels.py`: spores' side of the
//! "kernels vs NumPy/SciPy" comparison that `bench/kernels.sh` drives.
//!
//! ```text
//! cargo run --release -p spores-exec --example bench_kernels -- DATA_DIR \
//!     [--runs 10] [--threads 2] [--only gemm,spmv] [--reference numpy.jsonl]
//! ```
//!
//! `DATA_DIR` holds the files `bench/kernels.py --generate-only` writes (`gemm_A.npy`,
//! `gemm_B.npy`, `X.mtx`, `x.npy`, `y.npy`, `B10.npy`, `U.npy`, `V.npy`). Kernels:
//!
//! | name     | computation                          | spores kernel                    | figure  |
//! |----------|--------------------------------------|----------------------------------|---------|
//! | `gemm`   | `A %*% B`, 2000 x 2000 dense         | `matmul::gemm`                   | GFLOP/s |
//! | `spmv`   | `X %*% x`                            | `matmul::spmm` (SpMV path)       | GB/s    |
//! | `spmm`   | `X %*% B10`                          | `matmul::spmm`                   | GB/s    |
//! | `tspmv`  | `t(X) %*% y`                         | `matmul::matmul_t` (scatter)     | GB/s    |
//! | `sddmm`  | `sum(X * (U %*% t(V)))`              | `fused::sddmm_sum`               | GB/s    |
//! | `wsloss` | `sum((X - U %*% t(V))^2)`            | `fused::wsloss(WeightKind::None)`| GB/s    |
//!
//! GFLOP/s is `2 n^3 / t`. Effective GB/s is the minimum traffic divided by the median
//! time: the CSR bytes of `X` (8 per value + 4 per column index per non-zero, 8 per row
//! pointer, rows + 1 of them) + dense operands read + output written, 8 bytes per double
//! (the definition in `bench/README.md`, identical to `kernels.py`'s).
//!
//! Each kernel runs once as a warm-up, then `--runs` timed runs; the median is reported,
//! as one JSON object per line on stdout with the same schema as `kernels.py`
//! (`"system": "spores"`), plus a checksum of the result (`sum`, `abssum`, `sumsq`: sum,
//! sum of absolute values and sum of squares of the result's cells; for a scalar its
//! value, absolute value and square). With `--reference FILE` (the JSON lines of
//! `kernels.py`) the warm-up result's checksum is compared with NumPy's *before* timing,
//! at relative tolerance 1e-9, and a mismatch aborts the run with exit status 1.
//!
//! The rayon pool is built with `--threads` workers (default 2, like `kernels.py`'s
//! `OPENBLAS_NUM_THREADS`). Progress and load times go to stderr.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use spores_exec::io::{read_matrix, Format, ReadOptions};
use spores_exec::kernels::fused::{sddmm_sum, wsloss, WeightKind};
use spores_exec::kernels::matmul::{gemm, matmul_t, spmm};
use spores_exec::matrix::{CsrMatrix, DenseMatrix, Matrix};

/// All kernels, in the order they run.
const KERNELS: [&str; 6] = ["gemm", "spmv", "spmm", "tspmv", "sddmm", "wsloss"];

/// Relative tolerance of the checksum comparison against the reference.
const RTOL: f64 = 1e-9;

type BoxError = Box<dyn std::error::Error>;

/// Results are allocated as the `spores` binary allocates them.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Command-line options.
struct Options {
    data: PathBuf,
    runs: usize,
    threads: usize,
    only: Vec<String>,
    reference: Option<PathBuf>,
}

const USAGE: &str = "usage: bench_kernels DATA_DIR [--runs N] [--threads T] \
                     [--only k1,k2,...] [--reference numpy.jsonl]";

fn parse_args() -> Result<Options, String> {
    let mut args = std::env::args().skip(1);
    let mut data = None;
    let (mut runs, mut threads, mut only, mut reference) = (10, 2, Vec::new(), None);
    while let Some(a) = args.next() {
        let mut value = |name: &str| {
            args.next()
                .ok_or_else(|| format!("{name} needs a value\n{USAGE}"))
        };
        match a.as_str() {
            "--runs" => runs = parse_count("--runs", &value("--runs")?)?,
            "--threads" => threads = parse_count("--threads", &value("--threads")?)?,
            "--only" => {
                only = value("--only")?
                    .split(',')
                    .filter(|k| !k.is_empty())
                    .map(str::to_owned)
                    .collect()
            }
            "--reference" => reference = Some(PathBuf::from(value("--reference")?)),
            "-h" | "--help" => return Err(USAGE.to_owned()),
            s if s.starts_with('-') => return Err(format!("unknown option {s}\n{USAGE}")),
            s if data.is_none() => data = Some(PathBuf::from(s)),
            s => return Err(format!("unexpected argument {s}\n{USAGE}")),
        }
    }
    for k in &only {
        if !KERNELS.contains(&k.as_str()) {
            return Err(format!(
                "unknown kernel {k:?}; known: {}",
                KERNELS.join(", ")
            ));
        }
    }
    if only.is_empty() {
        only = KERNELS.iter().map(|k| k.to_string()).collect();
    }
    Ok(Options {
        data: data.ok_or_else(|| format!("missing DATA_DIR\n{USAGE}"))?,
        runs,
        threads,
        only,
        reference,
    })
}

fn parse_count(name: &str, s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!("{name} must be an integer >= 1, got {s:?}")),
    }
}

/// An order-insensitive fingerprint of a result: sum, sum of absolute values, sum of
/// squares of its cells.
#[derive(Clone, Copy, Debug)]
struct Checksum {
    sum: f64,
    abssum: f64,
    sumsq: f64,
}

impl Checksum {
    fn of_cells(cells: &[f64]) -> Self {
        let mut c = Checksum {
            sum: 0.0,
            abssum: 0.0,
            sumsq: 0.0,
        };
        for &v in cells {
            c.sum += v;
            c.abssum += v.abs();
            c.sumsq += v * v;
        }
        c
    }

    fn of_scalar(v: f64) -> Self {
        Checksum {
            sum: v,
            abssum: v.abs(),
            sumsq: v * v,
        }
    }

    /// Agreement at relative tolerance `rtol`: the sums relative to the larger sum of
    /// absolute values (a sum of mixed signs can cancel, so its own size is no scale),
    /// the sums of absolute values and of squares relative to themselves.
    fn agrees(&self, other: &Checksum, rtol: f64) -> bool {
        let close = |a: f64, b: f64, scale: f64| (a - b).abs() <= rtol * scale;
        let scale = self.abssum.max(other.abssum);
        close(self.sum, other.sum, scale)
            && close(self.abssum, other.abssum, scale)
            && close(self.sumsq, other.sumsq, self.sumsq.max(other.sumsq))
    }
}

/// The value of `"key": <number>` in one line of Python's `json.dumps` output, or of
/// `"key": "<string>"` with the quotes removed. A minimal extractor for the flat records
/// `kernels.py` writes (no nesting, no escaped quotes in the fields read here).
fn json_field<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let pat = format!("\"{key}\":");
    let rest = line[line.find(&pat)? + pat.len()..].trim_start();
    if let Some(s) = rest.strip_prefix('"') {
        return Some(&s[..s.find('"')?]);
    }
    let end = rest.find([',', '}']).unwrap_or(rest.len());
    Some(rest[..end].trim())
}

/// Reads the NumPy reference checksums, by kernel name, from `kernels.py`'s JSON lines.
fn read_reference(path: &Path) -> Result<HashMap<String, Checksum>, BoxError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read reference {}: {e}", path.display()))?;
    let mut out = HashMap::new();
    for (no, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let num = |key: &str| -> Result<f64, BoxError> {
            let v = json_field(line, key)
                .ok_or_else(|| format!("{}:{}: no field {key:?}", path.display(), no + 1))?;
            v.parse::<f64>().map_err(|e| {
                format!("{}:{}: field {key:?} = {v:?}: {e}", path.display(), no + 1).into()
            })
        };
        let kernel = json_field(line, "kernel")
            .ok_or_else(|| format!("{}:{}: no field \"kernel\"", path.display(), no + 1))?;
        let c = Checksum {
            sum: num("sum")?,
            abssum: num("abssum")?,
            sumsq: num("sumsq")?,
        };
        out.insert(kernel.to_owned(), c);
    }
    Ok(out)
}

/// The 1-minute load average (the machine is shared), or -1 when unavailable.
fn loadavg_1m() -> f64 {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(-1.0)
}

/// Bytes of a CSR matrix in the effective-bandwidth model: 12 per non-zero, 8 per row
/// pointer.
fn csr_bytes(x: &CsrMatrix) -> usize {
    x.stored() * 12 + (x.rows() + 1) * 8
}

fn load(dir: &Path, name: &str) -> Result<Matrix, BoxError> {
    let path = dir.join(name);
    if !path.exists() {
        return Err(format!(
            "{} is missing; generate the data with bench/.venv/bin/python bench/kernels.py \
             --generate-only --data {}",
            path.display(),
            dir.display()
        )
        .into());
    }
    let format = Format::from_path(&path).ok_or("unknown file extension")?;
    let t = Instant::now();
    let m = read_matrix(&path, format, &ReadOptions::default())
        .map_err(|e| format!("reading {}: {e}", path.display()))?;
    eprintln!(
        "  loaded {name}: {}x{}, {} non-zeros, {:.2} s",
        m.rows(),
        m.cols(),
        m.nnz(),
        t.elapsed().as_secs_f64()
    );
    Ok(m)
}

fn load_dense(dir: &Path, name: &str) -> Result<DenseMatrix, BoxError> {
    Ok(load(dir, name)?.into_dense())
}

/// A kernel's result reduced to what the comparison needs.
enum Output {
    Cells(DenseMatrix),
    Scalar(f64),
}

impl Output {
    fn checksum(&self) -> Checksum {
        match self {
            Output::Cells(d) => Checksum::of_cells(d.data()),
            Output::Scalar(v) => Checksum::of_scalar(*v),
        }
    }
}

/// What one kernel run needs to report, besides the timing.
struct Job<'a> {
    name: &'static str,
    /// `("gflops", flops)` or `("gbps", bytes)`.
    figure: (&'static str, f64),
    /// Extra JSON fields, already formatted (`"k": 10`).
    extra: String,
    run: Box<dyn Fn() -> Output + 'a>,
}

/// Runs one job: warm-up, checksum check against the reference, timed runs, JSON line.
fn run_job(
    job: &Job,
    opts: &Options,
    reference: Option<&HashMap<String, Checksum>>,
) -> Result<(), BoxError> {
    eprintln!("  {} ...", job.name);
    let warm = (job.run)();
    let check = warm.checksum();
    let checked = match reference.map(|r| r.get(job.name)) {
        None => "null",
        Some(None) => {
            eprintln!("  {}: no reference checksum, not checked", job.name);
            "null"
        }
        Some(Some(want)) if check.agrees(want, RTOL) => "true",
        Some(Some(want)) => {
            let msg = format!("{}: result differs from NumPy/SciPy", job.name);
            return Err(format!("{msg} (rtol {RTOL:e}): spores {check:?}, numpy {want:?}").into());
        }
    };
    let mut times = Vec::with_capacity(opts.runs);
    for _ in 0..opts.runs {
        let t = Instant::now();
        let out = std::hint::black_box((job.run)());
        times.push(t.elapsed().as_secs_f64());
        drop(out);
    }
    times.sort_by(f64::total_cmp);
    let n = times.len();
    let median = if n % 2 == 1 {
        times[n / 2]
    } else {
        (times[n / 2 - 1] + times[n / 2]) / 2.0
    };
    let (figure, amount) = job.figure;
    let amount_field = if figure == "gbps" {
        format!(", \"bytes\": {amount}")
    } else {
        String::new()
    };
    let result_field = match warm {
        Output::Scalar(v) => format!(", \"result\": {v:?}"),
        Output::Cells(_) => String::new(),
    };
    println!(
        "{{\"kernel\": \"{}\", \"system\": \"spores\", \"median_s\": {median:?}, \
         \"{figure}\": {:.3}{amount_field}{result_field}{}, \"sum\": {:?}, \"abssum\": {:?}, \
         \"sumsq\": {:?}, \"checked\": {checked}, \"threads\": {}, \"runs\": {}, \
         \"min_s\": {:?}, \"loadavg_1m\": {}}}",
        job.name,
        amount / median / 1e9,
        job.extra,
        check.sum,
        check.abssum,
        check.sumsq,
        opts.threads,
        opts.runs,
        times[0],
        loadavg_1m(),
    );
    Ok(())
}

fn run(opts: &Options) -> Result<(), BoxError> {
    let reference = opts.reference.as_deref().map(read_reference).transpose()?;
    let wants = |k: &str| opts.only.iter().any(|o| o == k);
    let d = &opts.data;

    if wants("gemm") {
        let (a, b) = (load_dense(d, "gemm_A.npy")?, load_dense(d, "gemm_B.npy")?);
        let n = a.rows();
        let job = Job {
            name: "gemm",
            figure: (
                "gflops",
                2.0 * a.rows() as f64 * a.cols() as f64 * b.cols() as f64,
            ),
            extra: format!(", \"n\": {n}"),
            run: Box::new(|| Output::Cells(gemm(&a, &b).expect("square operands"))),
        };
        run_job(&job, opts, reference.as_ref())?;
    }

    if !opts.only.iter().any(|k| k != "gemm") {
        return Ok(());
    }
    let x = load(d, "X.mtx")?;
    let Matrix::Sparse(csr) = &x else {
        return Err("X.mtx was read as a dense matrix; expected a sparse one".into());
    };
    let (m, n, nnz) = (csr.rows(), csr.cols(), csr.stored());
    let xb = csr_bytes(csr);
    let shape = format!(", \"rows\": {m}, \"cols\": {n}, \"nnz\": {nnz}");

    // Operands loaded up front (they are small next to X), so that each job borrows them.
    let xv = if wants("spmv") {
        Some(load_dense(d, "x.npy")?)
    } else {
        None
    };
    let b10 = if wants("spmm") {
        Some(load_dense(d, "B10.npy")?)
    } else {
        None
    };
    let y = if wants("tspmv") {
        Some(Matrix::Dense(load_dense(d, "y.npy")?))
    } else {
        None
    };
    let uv = if wants("sddmm") || wants("wsloss") {
        Some((load_dense(d, "U.npy")?, load_dense(d, "V.npy")?))
    } else {
        None
    };

    let mut jobs: Vec<Job> = Vec::new();
    if let Some(xv) = &xv {
        jobs.push(Job {
            name: "spmv",
            figure: ("gbps", (xb + 8 * n + 8 * m) as f64),
            extra: shape.clone(),
            run: Box::new(|| Output::Cells(spmm(csr, xv).expect("shapes fit"))),
        });
    }
    if let Some(b) = &b10 {
        let k = b.cols();
        jobs.push(Job {
            name: "spmm",
            figure: ("gbps", (xb + 8 * n * k + 8 * m * k) as f64),
            extra: format!(", \"k\": {k}{shape}"),
            run: Box::new(|| Output::Cells(spmm(csr, b).expect("shapes fit"))),
        });
    }
    if let Some(y) = &y {
        let x = &x;
        jobs.push(Job {
            name: "tspmv",
            figure: ("gbps", (xb + 8 * m + 8 * n) as f64),
            extra: shape.clone(),
            run: Box::new(move || {
                Output::Cells(
                    matmul_t(x, true, y, false)
                        .expect("shapes fit")
                        .into_dense(),
                )
            }),
        });
    }
    if let Some((u, v)) = &uv {
        let r = u.cols();
        let bytes = (xb + 8 * (m + n) * r + 8) as f64;
        let extra = format!(", \"rank\": {r}{shape}");
        let x = &x;
        if wants("sddmm") {
            jobs.push(Job {
                name: "sddmm",
                figure: ("gbps", bytes),
                extra: extra.clone(),
                run: Box::new(move || Output::Scalar(sddmm_sum(x, u, v).expect("shapes fit"))),
            });
        }
        if wants("wsloss") {
            jobs.push(Job {
                name: "wsloss",
                figure: ("gbps", bytes),
                extra,
                run: Box::new(move || {
                    Output::Scalar(wsloss(x, u, v, WeightKind::None).expect("shapes fit"))
                }),
            });
        }
    }
    for job in &jobs {
        run_job(job, opts, reference.as_ref())?;
    }
    Ok(())
}

fn main() -> ExitCode {
    let opts = match parse_args() {
        Ok(o) => o,
        Err(msg) => {
            eprintln!("bench_kernels: {msg}");
            return ExitCode::from(2);
        }
    };
    if let Err(e) = rayon::ThreadPoolBuilder::new()
        .num_threads(opts.threads)
        .build_global()
    {
        eprintln!("bench_kernels: cannot build the rayon pool: {e}");
        return ExitCode::from(2);
    }
    eprintln!(
        "bench_kernels: data {}, {} threads, {} runs",
        opts.data.display(),
        opts.threads,
        opts.runs
    );
    match run(&opts) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bench_kernels: error: {e}");
            ExitCode::FAILURE
        }
    }
}
