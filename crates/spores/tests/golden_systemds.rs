//! Cross-system check: every example script, run by spores on the small Matrix Market
//! inputs in `tests/golden/data`, prints what SystemDS 3.4 printed on the same files
//! (recorded by `bench/make_golden.py`): the same text, numbers in the same style
//! (`3`, `3.0`, `1.0E7`) and equal within a relative 1e-9.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use spores::opt::{DagOptimizer, NoOptimizer, SporesOptimizer};
use spores::{run_script, RunOptions};

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// How a printed number is written, which SystemDS users see and scripts may parse.
fn style(token: &str) -> &'static str {
    if token.contains(['e', 'E']) {
        "scientific"
    } else if token.contains('.') {
        "decimal"
    } else {
        "integer"
    }
}

fn compare_outputs(example: &str, ours: &str, theirs: &str) {
    let (ours, theirs): (Vec<&str>, Vec<&str>) = (ours.lines().collect(), theirs.lines().collect());
    assert_eq!(
        ours.len(),
        theirs.len(),
        "{example}: line counts differ\nspores:\n{}\nSystemDS:\n{}",
        ours.join("\n"),
        theirs.join("\n")
    );
    for (line, (a, b)) in ours.iter().zip(&theirs).enumerate() {
        let (ta, tb): (Vec<&str>, Vec<&str>) = (
            a.split_whitespace().collect(),
            b.split_whitespace().collect(),
        );
        assert_eq!(
            ta.len(),
            tb.len(),
            "{example}:{}: `{a}` vs SystemDS `{b}`",
            line + 1
        );
        for (x, y) in ta.iter().zip(&tb) {
            match (x.parse::<f64>(), y.parse::<f64>()) {
                (Ok(u), Ok(v)) => {
                    let tol = 1e-9 * u.abs().max(v.abs());
                    assert!(
                        (u - v).abs() <= tol || (u.is_nan() && v.is_nan()),
                        "{example}:{}: {x} vs SystemDS {y}",
                        line + 1
                    );
                    assert_eq!(
                        style(x),
                        style(y),
                        "{example}:{}: {x} printed unlike SystemDS's {y}",
                        line + 1
                    );
                }
                _ => assert_eq!(x, y, "{example}:{}: `{a}` vs SystemDS `{b}`", line + 1),
            }
        }
    }
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
        let optimizer: Box<dyn DagOptimizer> = if optimized {
            let mut spores = SporesOptimizer::new(Default::default());
            spores.min_cost(0.0);
            Box::new(spores)
        } else {
            Box::new(NoOptimizer)
        };
        let options = RunOptions {
            args: args.clone(),
            optimizer,
            ..RunOptions::default()
        };
        let ours = run_script(&script, options)
            .unwrap_or_else(|e| panic!("{example}: {}", e.diagnostic().render(example, &script)));
        let label = format!("{example} (optimized: {optimized})");
        compare_outputs(&label, &ours, &expected);
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
