//! Cross-system check: every example script, run by spores on the small Matrix Market
//! inputs in `tests/golden/data`, prints what SystemDS 3.4 printed on the same files
//! (recorded by `bench/make_golden.py`): the same text, numbers in the same style
//! (`3`, `3.0`, `1.0E7`) and equal within a relative 1e-9
//! (`systemds_output::compare`).

mod systemds_output;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

mod common;

use spores_dml::{run_script, RunOptions};

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn check(example: &str) {
    let root = repo_root();
    let golden = root.join("crates/spores/tests/golden");
    let script = std::fs::read_to_string(root.join(format!("examples/{example}.dml"))).unwrap();
    let args: HashMap<String, String> =
        std::fs::read_to_string(golden.join(format!("{example}.args")))
            .unwrap()
            .lines()
            .filter_map(|l| l.split_once('='))
            .map(|(k, v)| (k.to_string(), root.join(v).display().to_string()))
            .collect();
    let expected = std::fs::read_to_string(golden.join(format!("{example}.expected"))).unwrap();
    // Unoptimized, then optimized with a zero cost threshold so that every LA subgraph
    // of these small inputs really goes through saturation and plan verification.
    for optimized in [false, true] {
        let optimizer = common::optimizer(optimized);
        let options = RunOptions {
            args: args.clone(),
            optimizer,
            ..RunOptions::default()
        };
        let ours = run_script(&script, options)
            .unwrap_or_else(|e| panic!("{example}: {}", e.diagnostic().render(example, &script)));
        if let Err(difference) = systemds_output::compare(&ours, &expected) {
            panic!("{example} (optimized: {optimized}): {difference}\nspores:\n{ours}\nSystemDS:\n{expected}");
        }
    }
}

#[test]
fn loss_matches_systemds() {
    check("loss");
}

#[test]
fn als_matches_systemds() {
    check("als");
}

#[test]
fn pnmf_matches_systemds() {
    check("pnmf");
}

#[test]
fn logreg_matches_systemds() {
    check("logreg");
}

#[test]
fn l2svm_matches_systemds() {
    check("l2svm");
}
