//! Times reading Matrix Market files with spores' reader, for a side-by-side comparison
//! with `scipy.io.mmread` (see docs/BENCHMARKS.md, "Workloads vs SystemDS and
//! NumPy/SciPy"). Each file is read `runs` times (default 5) and the median is printed.
//!
//! `cargo run --release -p spores-exec --example read_mtx -- [--runs N] FILE...`

use std::path::PathBuf;
use std::time::Instant;

use spores_exec::io::{read_matrix, Format, ReadOptions};
use spores_exec::matrix::Matrix;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut runs = 5usize;
    let mut files = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        if a == "--runs" {
            runs = args.next().ok_or("--runs needs a number")?.parse()?;
        } else {
            files.push(PathBuf::from(a));
        }
    }
    if files.is_empty() {
        return Err("usage: read_mtx [--runs N] FILE...".into());
    }
    for path in &files {
        let mut times = Vec::with_capacity(runs);
        let mut shape = String::new();
        for _ in 0..runs.max(1) {
            let t = Instant::now();
            let m = read_matrix(path, Format::MatrixMarket, &ReadOptions::default())?;
            times.push(t.elapsed().as_secs_f64());
            let kind = match &m {
                Matrix::Dense(_) => "dense",
                Matrix::Sparse(_) => "sparse",
            };
            shape = format!("{}x{} {kind} nnz={}", m.rows(), m.cols(), m.nnz());
        }
        times.sort_by(f64::total_cmp);
        let median = times[times.len() / 2];
        let list: Vec<String> = times.iter().map(|t| format!("{:.4}", t)).collect();
        println!(
            "{}: median {:.4} s over {} runs [{}] ({shape}, {} threads)",
            path.display(),
            median,
            times.len(),
            list.join(" "),
            rayon::current_num_threads()
        );
    }
    Ok(())
}
