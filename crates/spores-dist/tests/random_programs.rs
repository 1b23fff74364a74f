//! Random sum-product programs on random sparse and dense data: DataFusion gives the
//! local engine's values, for the program as written and for the plan the optimizer
//! extracts from it (fused operators included). The generator is the optimizer's own
//! (`spores-opt/tests/common/random_expr.rs`).

#[path = "../../spores-opt/tests/common/mod.rs"]
mod common;
mod differential;

use std::collections::HashMap;
use std::path::PathBuf;

use differential::assert_none;
use differential::la::{cases, random_program_failures, random_program_failures_with};
use spores_dist::{DataFusionEngine, EngineConfig, Input};
use spores_exec::io::parquet_coo::{self, CooFile};

#[test]
fn random_programs_and_their_optimized_plans_match_the_local_engine() {
    let engine = DataFusionEngine::new(EngineConfig::default()).unwrap();
    let (failures, fused) = random_program_failures(&engine, 0..cases());
    assert_none(&failures);
    eprintln!(
        "{} programs, {fused} optimized plans with fused operators",
        cases()
    );
}

/// With `X`, `Y` and `A` scanned from files too large to hold, the small operands beside
/// them (`v`, `u`, `V` within 900 bytes) are held and read by index, subexpressions over
/// them alone run on the local kernels, small intermediates feeding a product are run
/// first and held, and small sums are folded into arrays: the values stay the local
/// engine's.
#[test]
fn random_programs_with_held_operands_match_the_local_engine() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("spores-dist-held");
    std::fs::create_dir_all(&dir).unwrap();
    let engine = DataFusionEngine::new(EngineConfig {
        hold_bytes: 900,
        ..EngineConfig::default()
    })
    .unwrap();
    let on_files = |seed: u64, data: &HashMap<String, spores_exec::Matrix>| {
        data.iter()
            .map(|(name, m)| {
                let input = if ["X", "Y", "A"].contains(&name.as_str()) {
                    let path = dir.join(format!("{seed}-{name}.parquet"));
                    parquet_coo::write(m, &path).unwrap();
                    Input::from(CooFile::open(&path).unwrap())
                } else {
                    Input::from(m.clone())
                };
                (name.clone(), input)
            })
            .collect()
    };
    let (failures, _, steps) = random_program_failures_with(&engine, 0..cases(), on_files);
    assert_none(&failures);
    // Sums of products with held operands were folded into arrays.
    let folded = steps.iter().filter(|s| s.contains("folded")).count();
    assert!(folded >= 5, "{folded} folds in {steps:?}");
}
