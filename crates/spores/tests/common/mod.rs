//! Helpers shared by the script-level tests: running a DML snippet with the `spores`
//! binary, and reading numbers from what it printed.
// Each test crate uses only some of the helpers.
#![allow(dead_code)]

use std::process::Command;

use spores_dml::opt::{DagOptimizer, NoOptimizer, SporesOptimizer};

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

/// Runs the `spores` binary with `args`: (exit code, stdout, stderr); a run killed by a
/// signal reads as exit code -1.
pub fn spores_cli(args: &[&str]) -> (i32, String, String) {
    spores_cli_with(args, &[], None)
}

/// Runs the `spores` binary with `args`, which must succeed: its stdout.
pub fn spores_ok(args: &[&str]) -> String {
    let (code, out, err) = spores_cli(args);
    assert_eq!(code, 0, "spores {}: {err}", args.join(" "));
    out
}

/// [`spores_cli`] with variables added to (or, with `None`, removed from) its environment
/// and, optionally, another working directory.
pub fn spores_cli_with(
    args: &[&str],
    env: &[(&str, Option<&std::path::Path>)],
    dir: Option<&std::path::Path>,
) -> (i32, String, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_spores"));
    command.args(args);
    for (name, value) in env {
        match value {
            Some(value) => command.env(name, value),
            None => command.env_remove(name),
        };
    }
    if let Some(dir) = dir {
        command.current_dir(dir);
    }
    let out = command.output().expect("the spores binary runs");
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (
        out.status.code().unwrap_or(-1),
        text(&out.stdout),
        text(&out.stderr),
    )
}

/// Writes `text` to a file `name` under cargo's per-test-crate temporary directory.
pub fn temp_file(name: &str, text: &str) -> std::path::PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("spores-tests");
    std::fs::create_dir_all(&dir).expect("the temporary directory is writable");
    let path = dir.join(name);
    std::fs::write(&path, text).expect("the file is written");
    path
}

/// A 3 x 4 sparse matrix (5 entries, one negative) in Matrix Market form, the input of the
/// engines' tensor-program tests.
pub const SMALL_SPARSE_MTX: &str =
    "%%MatrixMarket matrix coordinate real general\n3 4 5\n1 1 2\n1 3 1.5\n2 2 -1\n3 4 4\n3 1 0.5\n";

/// `spores run` on `source` (written as `name`) with extra `flags`: (exit code, stdout,
/// stderr).
pub fn run_file(name: &str, source: &str, flags: &[&str]) -> (i32, String, String) {
    let path = temp_file(name, source);
    let path = path.to_str().expect("a UTF-8 temporary path");
    spores_cli(&[&["run", path], flags].concat())
}

/// Runs `source` as a script named `name`: its stdout when it exits 0, else its stderr.
pub fn run_dml(name: &str, source: &str) -> Result<String, String> {
    run_dml_with(name, source, &[])
}

/// [`run_dml`] with more arguments after the script's path (`--engine datafusion`, ...).
pub fn run_dml_with(name: &str, source: &str, flags: &[&str]) -> Result<String, String> {
    match run_file(name, source, flags) {
        (0, stdout, _) => Ok(stdout),
        (_, _, stderr) => Err(stderr),
    }
}

/// Runs `source` as a script named `name` and reads every number it printed.
pub fn run_numbers(name: &str, source: &str) -> Vec<f64> {
    numbers(&run_dml(name, source).unwrap_or_else(|e| panic!("{name}: {e}")))
}

/// Runs `source` as a script named `name`, which must fail with an error containing each
/// of `needles`.
pub fn assert_fails(name: &str, source: &str, needles: &[&str]) {
    let err = match run_dml(name, source) {
        Ok(out) => panic!("{name}: expected an error, the script printed {out:?}"),
        Err(err) => err,
    };
    assert_contains(&err, needles);
}

/// Asserts that `text` contains each of `needles`.
pub fn assert_contains(text: &str, needles: &[&str]) {
    for needle in needles {
        assert!(text.contains(needle), "no {needle:?} in\n{text}");
    }
}

/// `spores run` on `source` (written as `name`) with `flags` must exit 1 with each of
/// `needles` in its stderr; returns its stdout.
pub fn assert_run_fails(name: &str, source: &str, flags: &[&str], needles: &[&str]) -> String {
    let (code, out, err) = run_file(name, source, flags);
    assert_eq!(code, 1, "{name}: {err}");
    assert_contains(&err, needles);
    out
}

/// `--shape` flags for `spores equiv`/`optimize`, one per `NAME=RxC`.
pub fn shape_flags<'a>(shapes: &[&'a str]) -> Vec<&'a str> {
    shapes.iter().flat_map(|s| ["--shape", s]).collect()
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

/// The values a plain and a fused run of `src` printed (see [`values`]) agree within `rtol`,
/// there is at least one, and the plain plan has no node containing `fused_marker`;
/// returns the fused plan's lines.
pub fn assert_fused_agrees<'a>(
    plain_out: &str,
    fused_out: &'a str,
    rtol: f64,
    fused_marker: &str,
    src: &str,
) -> Vec<&'a str> {
    let (plain, plain_plan) = values(plain_out);
    let (fused, fused_plan) = values(fused_out);
    assert!(!plain.is_empty(), "nothing printed by\n{src}");
    assert_eq!(plain.len(), fused.len(), "{plain_out}\n{fused_out}");
    for (k, (a, b)) in plain.iter().zip(&fused).enumerate() {
        assert!(
            same(*a, *b, rtol),
            "value {k}: unfused {a} vs {fused_marker} {b}\n{src}"
        );
    }
    // A weighted division (`t(W) %*% (X / (W %*% H))`) is the script's own reading, as
    // SystemDS's, also without the optimizer.
    assert!(
        !plain_plan
            .iter()
            .any(|l| l.contains(fused_marker) && !l.contains("masked_div(")),
        "{plain_plan:#?}"
    );
    fused_plan
}

/// Equal up to relative tolerance `rtol` (absolute 1e-12 near zero); NaN equals NaN.
pub fn same(a: f64, b: f64, rtol: f64) -> bool {
    (a.is_nan() && b.is_nan())
        || a == b
        || (a - b).abs() <= rtol * a.abs().max(b.abs())
        || (a - b).abs() < 1e-12
}

/// The lines of `out` that start with one of `prefixes`, each with its newline.
pub fn lines_starting_with(out: &str, prefixes: &[&str]) -> String {
    out.lines()
        .filter(|l| prefixes.iter().any(|p| l.starts_with(p)))
        .map(|l| format!("{l}\n"))
        .collect()
}
