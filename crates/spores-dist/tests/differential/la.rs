//! Random sum-product programs on random sparse and dense data, for comparing an engine
//! with the local one. The generator is the optimizer's own
//! (`spores-opt/tests/common/random_expr.rs`).

use std::collections::{BTreeMap, HashMap};

use crate::common::random_expr::{dims, gen};
use crate::common::{close, Rng};
use spores_dist::{DataFusionEngine, Input};
use spores_exec::{DenseMatrix, Matrix};
use spores_opt::eval::eval;
use spores_opt::la::{Dim, LaExpr, ShapeEnv};
use spores_opt::saturate::{optimize, OptimizeOptions};

const SHAPES: [&str; 7] = [
    "X=mxn", "Y=mxn", "U=mx10", "V=nx10", "A=mxm", "u=mx1", "v=nx1",
];
const M: usize = 13;
const N: usize = 9;

fn symbolic_env() -> ShapeEnv {
    ShapeEnv::with_shapes(&SHAPES).unwrap()
}

fn size(d: &Dim) -> usize {
    match d {
        Dim::Known(n) => *n,
        Dim::Sym(s) if s == "m" => M,
        Dim::Sym(_) => N,
    }
}

/// A `rows x cols` matrix whose cells are non-zero with probability `density`, values in
/// [-2, 2) in steps of 1/8 (exact in binary, so sums differ only by rounding order).
fn random_matrix(rng: &mut Rng, rows: usize, cols: usize, density: f64) -> Matrix {
    let d = DenseMatrix::from_fn(rows, cols, |_, _| {
        if (rng.below(1000) as f64) < density * 1000.0 {
            (rng.below(32) as f64 - 16.0) / 8.0
        } else {
            0.0
        }
    });
    Matrix::Dense(d).into_best_format()
}

/// Inputs of every shape in [`SHAPES`]: `X` sparse (15 %), `Y` half full, the others
/// mostly dense.
fn random_inputs(env: &ShapeEnv, rng: &mut Rng) -> HashMap<String, Matrix> {
    let mut names: Vec<&String> = env.shapes.keys().collect();
    names.sort();
    names
        .into_iter()
        .map(|name| {
            let (r, c) = &env.shapes[name];
            let density = match name.as_str() {
                "X" => 0.15,
                "Y" => 0.5,
                _ => 0.9,
            };
            (name.clone(), random_matrix(rng, size(r), size(c), density))
        })
        .collect()
}

/// How many random programs a test runs (`SPORES_DIST_CASES`, default 40).
pub fn cases() -> u64 {
    super::env_count("SPORES_DIST_CASES", 40)
}

/// What `engine` got wrong on the random programs of `seeds`, as written and optimized
/// (compared with the local engine's values), and how many optimized plans had fused
/// operators.
pub fn random_program_failures(
    engine: &DataFusionEngine,
    seeds: std::ops::Range<u64>,
) -> (Vec<String>, usize) {
    let (failures, fused, _) = random_program_failures_with(engine, seeds, |_, data| {
        data.iter()
            .map(|(name, m)| (name.clone(), Input::from(m.clone())))
            .collect()
    });
    (failures, fused)
}

/// [`random_program_failures`] with the engine's inputs made from each seed's data by
/// `inputs` (e.g. some written to Parquet files), and the steps of the runs
/// ([`DataFusionEngine::run_with_steps`]).
pub fn random_program_failures_with(
    engine: &DataFusionEngine,
    seeds: std::ops::Range<u64>,
    inputs: impl Fn(u64, &HashMap<String, Matrix>) -> HashMap<String, Input>,
) -> (Vec<String>, usize, Vec<String>) {
    let env = symbolic_env();
    let sizes: BTreeMap<String, usize> = [("m".to_string(), M), ("n".to_string(), N)].into();
    let mut failures = Vec::new();
    let mut fused = 0;
    let mut steps = Vec::new();
    for seed in seeds {
        let mut rng = Rng(seed);
        let d = dims();
        let (r, c) = (d[rng.below(4)].clone(), d[rng.below(4)].clone());
        let e = gen(&env, &r, &c, 3, &mut rng, &mut Vec::new()).with_sizes(&sizes);
        let data = random_inputs(&env, &mut rng);
        let given = inputs(seed, &data);
        let expected = eval(&e, &data).unwrap_or_else(|err| panic!("seed {seed}: {e}: {err}"));
        let plan = optimize(&e, &super::shape_env(&data), &OptimizeOptions::default())
            .unwrap_or_else(|err| panic!("seed {seed}: {e}: {err}"))
            .expr;
        let mut has_fused = false;
        plan.visit(&mut |x| has_fused |= matches!(x, LaExpr::Func { name, .. } if ["wsloss", "wsloss_plus", "sddmm", "sddmm_sum", "mmchain", "tsmm", "sprop"].contains(&name.as_str())));
        fused += usize::from(has_fused);
        for (what, program) in [("as written", &e), ("optimized", &plan)] {
            match engine.run_with_steps(program, &given) {
                Ok((got, taken)) if close(&got, &expected, 1e-9) => steps.extend(taken),
                Ok((got, _)) => failures.push(format!(
                    "seed {seed} {what}: `{program}` gave {:?}, the local engine {:?}",
                    got.to_dense().data(),
                    expected.to_dense().data()
                )),
                Err(err) => failures.push(format!("seed {seed} {what}: `{program}`: {err}")),
            }
        }
    }
    (failures, fused, steps)
}
