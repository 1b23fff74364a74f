//! Helpers shared by the script-level tests that compare two plans of one script.

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
