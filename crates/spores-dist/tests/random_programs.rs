//! Random sum-product programs on random sparse and dense data: DataFusion gives the
//! local engine's values, for the program as written and for the plan the optimizer
//! extracts from it (fused operators included). The generator is the optimizer's own
//! (`spores-opt/tests/common/random_expr.rs`).

#[path = "../../spores-opt/tests/common/mod.rs"]
mod common;
mod differential;

use differential::assert_none;
use differential::la::{cases, random_program_failures};
use spores_dist::{DataFusionEngine, EngineConfig};

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
