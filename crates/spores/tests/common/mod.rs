//! Helpers shared by the script-level tests: running a DML snippet with the `spores`
//! binary, and reading numbers from what it printed.
// Each test crate uses only some of the helpers.
#![allow(dead_code)]

use std::process::Command;

use spores::opt::{DagOptimizer, NoOptimizer, SporesOptimizer};

/// The optimizer a test runs with: SPORES on every LA subgraph (a zero cost threshold,
/// so that small inputs too go through saturation and plan verification), or none.
pub fn optimizer(optimized: bool) -> Box<dyn DagOptimizer> {
    if optimized {
        let mut spores = SporesOptimizer::new(Default::default());
        spores.min_cost(0.0);
        Box::new(spores)
    } else {
        Box::new(NoOptimizer)
    }
}

/// Runs `source` as a script named `name` (written under cargo's per-test temporary
/// directory): its stdout when it exits 0, else its stderr.
pub fn run_dml(name: &str, source: &str) -> Result<String, String> {
    run_dml_with(name, source, &[])
}

/// [`run_dml`] with more arguments after the script's path (`--engine datafusion`, ...).
pub fn run_dml_with(name: &str, source: &str, args: &[&str]) -> Result<String, String> {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("dml-snippets");
    std::fs::create_dir_all(&dir).expect("the temporary directory is writable");
    let path = dir.join(name);
    std::fs::write(&path, source).expect("the snippet is written");
    let out = Command::new(env!("CARGO_BIN_EXE_spores"))
        .arg("run")
        .arg(&path)
        .args(args)
        .output()
        .expect("the spores binary runs");
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    if out.status.success() {
        Ok(text(&out.stdout))
    } else {
        Err(text(&out.stderr))
    }
}

/// Every whitespace-separated token of `out` that reads as a number (`NaN` included).
pub fn numbers(out: &str) -> Vec<f64> {
    out.split_whitespace()
        .filter_map(|t| t.parse::<f64>().ok())
        .collect()
}

/// Asserts that `got` and `want` have the same length and agree up to `rtol`.
pub fn assert_close(got: &[f64], want: &[f64], rtol: f64) {
    assert_eq!(got.len(), want.len(), "got {got:?}, want {want:?}");
    for (g, w) in got.iter().zip(want) {
        assert!(same(*g, *w, rtol), "got {got:?}, want {want:?}");
    }
}

/// The printed values (lines starting with `v `), and the plan lines (`--explain` nodes).
pub fn values(out: &str) -> (Vec<f64>, Vec<&str>) {
    let vals = out
        .lines()
        .filter_map(|l| l.strip_prefix("v "))
        .flat_map(|l| l.split_whitespace().map(|t| t.parse::<f64>().unwrap()))
        .collect();
    let plan = out.lines().filter(|l| l.starts_with("  %")).collect();
    (vals, plan)
}

/// Equal up to relative tolerance `rtol` (absolute 1e-12 near zero); NaN equals NaN.
pub fn same(a: f64, b: f64, rtol: f64) -> bool {
    (a.is_nan() && b.is_nan())
        || a == b
        || (a - b).abs() <= rtol * a.abs().max(b.abs())
        || (a - b).abs() < 1e-12
}
