//! Tensor programs on DataFusion: the logical plan the tensor optimizer chose (greedy,
//! Galley's aggregation order) run query by query gives the local fibertree engine's
//! values, on named programs of every construct and on random programs over random
//! sparse tensors with fills other than 0.

#[path = "../../spores-opt/tests/common/mod.rs"]
mod common;
mod differential;

use common::Rng;
use differential::assert_none;
use differential::tensor::{cases, compare, inputs, random_program_failures, PROGRAMS};
use spores_dist::{DataFusionEngine, EngineConfig};
use spores_tensor::driver::RunOptions;
use spores_tensor::parse::parse_program;

#[test]
fn named_programs_match_the_local_engine() {
    let engine = DataFusionEngine::new(EngineConfig::default()).unwrap();
    let mut failures = Vec::new();
    for (n, fills) in [[0.0, 0.0, 0.0], [1.0, 0.0, -0.5], [0.0, 2.0, 1.0]]
        .into_iter()
        .enumerate()
    {
        let ins = inputs(&mut Rng(n as u64), fills);
        for src in PROGRAMS {
            if let Err(e) = compare(&engine, src, &ins) {
                failures.push(format!("fills {fills:?}: {e}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn random_tensor_programs_match_the_local_engine() {
    let engine = DataFusionEngine::new(EngineConfig::default()).unwrap();
    let (failures, aggregated) = random_program_failures(&engine, 0..cases());
    assert_none(&failures);
    assert!(aggregated > 0);
    eprintln!("{} random tensor programs", cases());
}

#[test]
fn a_product_aggregate_is_named_as_unsupported() {
    let engine = DataFusionEngine::new(EngineConfig::default()).unwrap();
    let ins = inputs(&mut Rng(7), [0.0, 0.0, 0.0]);
    let parsed = parse_program("p[i] = prod[j](A[i,j] + 1)").unwrap();
    let (_, report) = spores_tensor::run(&parsed.program, &ins, &RunOptions::default()).unwrap();
    let err = engine
        .run_tensor_plan(&report.logical, &ins)
        .unwrap_err()
        .to_string();
    assert!(err.contains("`prod`"), "{err}");
}
