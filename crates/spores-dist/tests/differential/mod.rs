//! Programs and data for comparing a relational engine with the local engines, shared by
//! the DataFusion and the Ballista tests.

#![allow(dead_code)]

pub mod la;
pub mod tensor;

use std::collections::HashMap;
use std::path::Path;

use spores_dist::Input;
use spores_exec::io::parquet_coo::{self, CooFile};
use spores_exec::random::{systemds_rand, DatagenSpec, Pdf};
use spores_exec::Matrix;
use spores_opt::la::{Dim, ShapeEnv};

/// The number in the environment variable `var` (how many random cases a test runs),
/// else `default`.
pub fn env_count(var: &str, default: u64) -> u64 {
    std::env::var(var)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The shapes and non-zero counts of `inputs`, for the optimizer.
pub fn shape_env(inputs: &HashMap<String, Matrix>) -> ShapeEnv {
    let mut env = ShapeEnv::default();
    for (name, m) in inputs {
        env.matrix(name, Dim::Known(m.rows()), Dim::Known(m.cols()));
        env.set_nnz(name, m.nnz() as f64);
    }
    env
}

/// Fails listing `failures`, if any.
pub fn assert_none(failures: &[String]) {
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Cells per row group of the `X` that [`factorization_inputs`] writes.
pub const X_GROUP: usize = 700;

/// A sparse `X` (300 x 200, 5 %), dense factors `U` (300 x 6) and `V` (200 x 6) and a
/// vector `v`: in memory, and with `X` and `U` as Parquet files under `dir` (`x.parquet`
/// in row groups of [`X_GROUP`] cells, about five groups).
pub fn factorization_inputs(dir: &Path) -> (HashMap<String, Matrix>, HashMap<String, Input>) {
    let memory: HashMap<String, Matrix> = [
        ("X", rand(300, 200, 0.05, 1)),
        ("U", rand(300, 6, 1.0, 2)),
        ("V", rand(200, 6, 1.0, 3)),
        ("v", rand(200, 1, 1.0, 4)),
    ]
    .into_iter()
    .map(|(k, m)| (k.to_string(), m))
    .collect();
    let (x_path, u_path) = (dir.join("x.parquet"), dir.join("u.parquet"));
    parquet_coo::write_groups(&memory["X"], &x_path, X_GROUP).unwrap();
    parquet_coo::write(&memory["U"], &u_path).unwrap();
    let mut scanned: HashMap<String, Input> = memory
        .iter()
        .map(|(k, m)| (k.clone(), Input::from(m.clone())))
        .collect();
    scanned.insert("X".into(), CooFile::open(&x_path).unwrap().into());
    scanned.insert("U".into(), CooFile::open(&u_path).unwrap().into());
    (memory, scanned)
}

/// SystemDS's `rand(rows, cols, sparsity, min=1, max=5, seed)`.
pub fn rand(rows: usize, cols: usize, sparsity: f64, seed: i64) -> Matrix {
    let pdf = Pdf::Uniform { min: 1.0, max: 5.0 };
    systemds_rand(&DatagenSpec {
        rows,
        cols,
        sparsity,
        pdf,
        seed,
    })
    .unwrap()
}
