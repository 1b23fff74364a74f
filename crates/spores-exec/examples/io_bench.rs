//! Times writing and reading a large Matrix Market file (and the same matrix as CSV
//! and `.npy` when it is small enough to be dense).
//!
//! `cargo run --release -p spores-exec --example io_bench -- [entries] [dir]`

use std::path::PathBuf;
use std::time::Instant;

use spores_exec::io::{read_matrix, write_matrix, Format, ReadOptions, WriteOptions};
use spores_exec::matrix::{rand_matrix, RandSpec};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let entries: usize = args.next().map_or(Ok(5_000_000), |a| a.parse())?;
    let dir = PathBuf::from(
        args.next()
            .unwrap_or_else(|| std::env::temp_dir().display().to_string()),
    );
    let n = 1_000_000;
    let spec = RandSpec::uniform(n, n, (-1.0, 1.0), entries as f64 / (n as f64 * n as f64), 7);
    let m = rand_matrix(&spec)?;
    let path = dir.join("spores_io_bench.mtx");
    let t = Instant::now();
    write_matrix(&m, &path, Format::MatrixMarket, &WriteOptions::default())?;
    let wt = t.elapsed();
    let size = std::fs::metadata(&path)?.len();
    println!(
        "wrote {} nnz, {:.1} MB in {:.3} s",
        m.nnz(),
        size as f64 / 1e6,
        wt.as_secs_f64()
    );
    for _ in 0..3 {
        let t = Instant::now();
        let back = read_matrix(&path, Format::MatrixMarket, &ReadOptions::default())?;
        let rt = t.elapsed();
        assert_eq!(back.nnz(), m.nnz());
        println!(
            "read  {} nnz in {:.3} s ({:.1} M entries/s, {:.0} MB/s), {} threads",
            back.nnz(),
            rt.as_secs_f64(),
            back.nnz() as f64 / rt.as_secs_f64() / 1e6,
            size as f64 / rt.as_secs_f64() / 1e6,
            rayon::current_num_threads()
        );
    }
    std::fs::remove_file(&path)?;

    // A dense 2000 x 2500 matrix (5M cells) as CSV and npy.
    let d = rand_matrix(&RandSpec::uniform(2000, 2500, (-1.0, 1.0), 1.0, 3))?;
    for format in [Format::Csv, Format::Npy] {
        let path = dir.join(format!("spores_io_bench.{}", format.name()));
        let t = Instant::now();
        write_matrix(&d, &path, format, &WriteOptions::default())?;
        let wt = t.elapsed();
        let t = Instant::now();
        let back = read_matrix(&path, format, &ReadOptions::default())?;
        let rt = t.elapsed();
        assert_eq!(back.shape(), d.shape());
        println!(
            "{}: 5M dense cells, {:.1} MB: write {:.3} s, read {:.3} s",
            format.name(),
            std::fs::metadata(&path)?.len() as f64 / 1e6,
            wt.as_secs_f64(),
            rt.as_secs_f64()
        );
        std::fs::remove_file(&path)?;
    }
    Ok(())
}
