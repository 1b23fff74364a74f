//! Fuzzing rule files: mutated copies of the shipped rule files never panic the loader
//! (egglog's parser and type checker, then the optimizer's own checks); every rejection is
//! an error. `SPORES_FUZZ_CASES=100000` runs a longer campaign.

#[path = "../../spores-tensor/tests/fuzz/mutate.rs"]
mod mutate;

use mutate::{apply, cases, mutation};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

#[test]
fn mutated_rule_files_never_panic_the_loader() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bench/mlir");
    let mut seeds: Vec<Vec<u8>> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "egg"))
        .map(|p| std::fs::read(p).unwrap())
        .collect();
    seeds.sort();
    assert!(seeds.len() >= 5, "the shipped rule files are there");
    let mut runner = TestRunner::new(Config {
        cases: cases(150),
        failure_persistence: None,
        ..Config::default()
    });
    let strategy = (0..seeds.len(), proptest::collection::vec(mutation(), 1..5));
    runner
        .run(&strategy, |(k, edits)| {
            let text = String::from_utf8_lossy(&apply(&seeds[k], &edits)).into_owned();
            if let Err(e) = spores_mlir::egg::load_rules(&text, "fuzz.egg") {
                prop_assert!(!e.to_string().is_empty());
            }
            Ok(())
        })
        .unwrap();
}
