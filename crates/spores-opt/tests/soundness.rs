//! Saturation never merges classes of different schemas (a merge of two schemas is
//! recorded, and an unsound rule ends the run with `OptError::Unsound`), and every plan it extracts
//! is provably equivalent to its input. A deterministic sweep over random expressions,
//! with all-zero and sparse inputs among them: all-zero relations of one schema are one
//! class, which makes cycles and merges that ordinary inputs rarely do.
//!
//! Each plan is also evaluated against its input on values: finite ones with all-zero
//! rows, stored dense and (the same values) sparse, where the two agree; and values with
//! NaN and ±Inf, where each gives the same numbers in both formats (the cell semantics
//! do not depend on storage). With NaN or Inf a plan may differ from its input — the
//! rewrites hold over the reals — which is why `spores run` uses a plan only behind a
//! guard that checks its inputs are finite (`spores/src/dag/guard.rs`).

mod common;

use std::collections::HashMap;

use common::random_expr::{dims, gen};
use common::{close, random_inputs, Rng};
use spores_exec::{CsrMatrix, Matrix};
use spores_opt::canon::provably_equivalent;
use spores_opt::eval::eval;
use spores_opt::fused::expand_fused;
use spores_opt::la::{Dim, LaExpr, ShapeEnv};
use spores_opt::saturate::{optimize, OptimizeOptions};

/// Inputs of every shape the generator asks for; `zero` names inputs that are all zeros,
/// `X` is sparse.
fn shapes(zero: &[&str]) -> ShapeEnv {
    let mut env = ShapeEnv::with_shapes(&[
        "X=mxn", "Y=mxn", "U=mx10", "V=nx10", "A=mxm", "u=mx1", "v=nx1",
    ])
    .unwrap();
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
                let expanded = expand_fused(&plan.expr);
                let verdict = provably_equivalent(&e, &expanded, env);
                if !matches!(verdict, Ok(true)) {
                    failures.push(format!("seed {seed}: {e} => {}: {verdict:?}", plan.expr));
                }
                if let Err(why) = agree_on_values(env, &e, &expanded, &mut rng) {
                    failures.push(format!("seed {seed}: {e} => {}: {why}", plan.expr));
                }
            }
        }
    }
    failures
}

/// `inputs` with every matrix stored sparse (the same values).
fn as_sparse(inputs: &HashMap<String, Matrix>) -> HashMap<String, Matrix> {
    inputs
        .iter()
        .map(|(name, m)| {
            (
                name.clone(),
                Matrix::Sparse(CsrMatrix::from_dense(&m.to_dense())),
            )
        })
        .collect()
}

/// `e` with the symbolic sizes of its fills (`rowMeans` becomes a division by
/// `sum(matrix(1, rows=n, cols=1))`) made the sizes `random_inputs` gives them.
fn with_sizes(e: &LaExpr) -> LaExpr {
    let size = |d: &Dim| match d {
        Dim::Sym(s) => Dim::Known(3 + s.len() % 2),
        known => known.clone(),
    };
    e.map(&|x| match x {
        LaExpr::Fill(v, r, c) => Some(LaExpr::Fill(Box::new(with_sizes(v)), size(r), size(c))),
        _ => None,
    })
}

/// `e` on `inputs` stored dense and sparse, which must agree; the dense value.
fn in_both_formats(e: &LaExpr, inputs: &HashMap<String, Matrix>) -> Result<Matrix, String> {
    let e = &with_sizes(e);
    let dense = eval(e, inputs).map_err(|e| e.to_string())?;
    let sparse = eval(e, &as_sparse(inputs)).map_err(|e| e.to_string())?;
    if !close(&dense, &sparse, 1e-9) {
        return Err(format!("{e} is {dense:?} dense but {sparse:?} sparse"));
    }
    Ok(dense)
}

/// Evaluates `e` and its plan on random values (see the module documentation).
fn agree_on_values(env: &ShapeEnv, e: &LaExpr, plan: &LaExpr, rng: &mut Rng) -> Result<(), String> {
    let mut inputs = random_inputs(env, rng);
    // A row of zeros in half the inputs.
    for m in inputs.values_mut() {
        if rng.below(2) == 0 {
            let mut d = m.to_dense();
            let row = rng.below(d.rows());
            for j in 0..d.cols() {
                d.set(row, j, 0.0);
            }
            *m = Matrix::Dense(d);
        }
    }
    let (before, after) = (
        in_both_formats(e, &inputs)?,
        in_both_formats(plan, &inputs)?,
    );
    if !close(&before, &after, 1e-9) {
        return Err(format!("{before:?} before, {after:?} after"));
    }
    // NaN and ±Inf in one cell of up to three inputs.
    let mut names: Vec<String> = inputs.keys().cloned().collect();
    names.sort();
    for _ in 0..1 + rng.below(3) {
        let m = inputs
            .get_mut(&names[rng.below(names.len())])
            .expect("named");
        let mut d = m.to_dense();
        let (i, j) = (rng.below(d.rows()), rng.below(d.cols()));
        d.set(
            i,
            j,
            [f64::NAN, f64::INFINITY, f64::NEG_INFINITY][rng.below(3)],
        );
        *m = Matrix::Dense(d);
    }
    in_both_formats(e, &inputs)?;
    in_both_formats(plan, &inputs)?;
    Ok(())
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
