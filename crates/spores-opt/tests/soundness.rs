//! Saturation never merges classes of different schemas (`schema` has no merge function,
//! so an unsound rule ends the run with `OptError::Unsound`), and every plan it extracts
//! is provably equivalent to its input. A deterministic sweep over random expressions,
//! with all-zero and sparse inputs among them: all-zero relations of one schema are one
//! class, which makes cycles and merges that ordinary inputs rarely do.

mod common;

use common::random_expr::{dims, gen};
use common::Rng;
use spores_opt::canon::provably_equivalent;
use spores_opt::la::{expand_fused, ShapeEnv};
use spores_opt::saturate::{optimize, OptimizeOptions};

/// Inputs of every shape the generator asks for; `zero` names inputs that are all zeros,
/// `X` is sparse.
fn shapes(zero: &[&str]) -> ShapeEnv {
    let mut env = ShapeEnv::default();
    for s in [
        "X=mxn", "Y=mxn", "U=mx10", "V=nx10", "A=mxm", "u=mx1", "v=nx1",
    ] {
        env.add_shape_arg(s).unwrap();
    }
    env.set_nnz("X", 1e4);
    for z in zero {
        env.set_nnz(z, 0.0);
    }
    env
}

/// Optimizes `count` random expressions of depth up to `depth`; returns the failures.
fn sweep(env: &ShapeEnv, first_seed: u64, count: u64, depth: usize) -> Vec<String> {
    let mut failures = Vec::new();
    for seed in first_seed..first_seed + count {
        let mut rng = Rng(seed);
        let d = dims();
        let (r, c) = (d[rng.below(4)].clone(), d[rng.below(4)].clone());
        let e = gen(env, &r, &c, depth, &mut rng, &mut Vec::new());
        match optimize(&e, env, &OptimizeOptions::default()) {
            Err(err) => failures.push(format!("seed {seed}: {e}: {err}")),
            Ok(plan) => {
                let verdict = provably_equivalent(&e, &expand_fused(&plan.expr), env);
                if !matches!(verdict, Ok(true)) {
                    failures.push(format!("seed {seed}: {e} => {}: {verdict:?}", plan.expr));
                }
            }
        }
    }
    failures
}

/// Expressions per sweep: `SPORES_SOUNDNESS_CASES` (default 120; thousands for a deeper
/// check, in release mode).
fn cases() -> u64 {
    std::env::var("SPORES_SOUNDNESS_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(120)
}

fn assert_sound(failures: Vec<String>) {
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn random_expressions_saturate_soundly() {
    assert_sound(sweep(&shapes(&[]), 0, cases(), 3));
}

#[test]
fn random_expressions_over_all_zero_inputs_saturate_soundly() {
    assert_sound(sweep(&shapes(&["Y", "u"]), 1_000_000, cases(), 3));
}
