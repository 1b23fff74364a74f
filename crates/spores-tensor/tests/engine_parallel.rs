//! The engine's parallel path (the outermost loop split across rayon workers, private
//! outputs merged in loop order) against the brute-force reference. The serial start is set
//! to zero so every kernel, however small, runs split.

mod opt_support;

use std::collections::HashMap;
use std::time::Duration;

use opt_support::*;
use proptest::prelude::*;
use spores_tensor::driver::{Optimizer, RunOptions};
use spores_tensor::engine::exec::set_parallel_after;
use spores_tensor::engine::execute_plan;
use spores_tensor::logical::naive_plan;
use spores_tensor::parse::parse_program;
use spores_tensor::physical::naive_physical;
use spores_tensor::plan_ast::LevelFormat;
use spores_tensor::reference::eval_program;
use spores_tensor::CooTensor;

/// Outputs of every accumulator kind (scalar, in-order sequential, dense, hashed), outer
/// loops that are outputs and that are aggregated, unions, skipped-region repeats.
const PROGRAMS: &[&str] = &[
    "t = sum[i,j,k](E[i,j] * E[j,k] * E[i,k])",
    "c = sum[a,b,c,d](E[a,b] * E[a,c] * E[a,d] * E[b,c] * E[b,d] * E[c,d])",
    "y[i] = sum[j](A[i,j] * x[j])",
    "y[j] = sum[i](A[i,j] * w[i])",
    "C[i,k] = sum[j](A[i,j] * B[j,k])",
    "V[i] = L[i] * max[j,k](E[i,j] * E[j,k] * E[i,k])",
    "z[i,j] = A[i,j] - 2 * A[i,j] * x[j]",
    "t = sum[i,j](A[i,j] + x[j])",
    "t = sum[i,j](w[i] + x[j])",
    "m[i] = min[j](A[i,j])",
    "p[i] = prod[j](A[i,j] + 1)",
    "U[i,k] = max[j](T[i,j,k] + B[j,k])",
    "y[k,i] = sum[j](T[i,j,k] * x[j])",
    "g = max[i,j](A[i,j] * w[i] * x[j])",
    "z[i] = w[i] + L[i]",
];

fn inputs(n: usize, density: f64, fill: f64, seed: u64) -> HashMap<String, CooTensor> {
    let mut m = HashMap::new();
    m.insert(
        "A".into(),
        random_halves(vec![n, n + 1], density, fill, seed),
    );
    m.insert(
        "B".into(),
        random_halves(vec![n + 1, 3], density, 0.0, seed + 1),
    );
    m.insert(
        "x".into(),
        random_halves(vec![n + 1], density, fill, seed + 2),
    );
    m.insert("w".into(), random_halves(vec![n], density, 0.0, seed + 3));
    m.insert("L".into(), random_halves(vec![n], density, 0.0, seed + 4));
    m.insert(
        "E".into(),
        random_halves(vec![n, n], density, 0.0, seed + 5),
    );
    m.insert(
        "T".into(),
        random_halves(vec![n, n + 1, 3], density, fill, seed + 6),
    );
    m
}

fn compare(
    src: &str,
    got: &HashMap<String, CooTensor>,
    ins: &HashMap<String, CooTensor>,
) -> Result<(), TestCaseError> {
    let parsed = parse_program(src).unwrap();
    let want = eval_program(&parsed.program, ins).unwrap();
    match outputs_differ(&want, got) {
        Some(diff) => Err(TestCaseError::fail(format!(
            "{src}\nparallel engine vs reference: {diff}"
        ))),
        None => Ok(()),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn split_loops_agree_with_the_reference(
        prog in 0..PROGRAMS.len(),
        n in 1usize..9,
        density in prop_oneof![Just(0.0), 0.1f64..0.7, Just(1.0)],
        fill in prop_oneof![Just(0.0), Just(0.0), Just(1.0)],
        seed in any::<u64>(),
        format in 0usize..4,
        optimized in any::<bool>(),
    ) {
        set_parallel_after(Duration::ZERO);
        let src = PROGRAMS[prog];
        let ins = inputs(n, density, fill, seed);
        let parsed = parse_program(src).unwrap();
        let got = if optimized {
            let options = RunOptions { optimizer: Optimizer::Greedy, ..Default::default() };
            spores_tensor::run(&parsed.program, &ins, &options)
                .map_err(|e| TestCaseError::fail(format!("{src}: {e}")))?
                .0
        } else {
            // Baseline plans with every output level forced to one format: each accumulator
            // kind (dense in place, dense scratch, hashed, sequential) gets split.
            let logical = naive_plan(&parsed.program).unwrap();
            let mut plan = naive_physical(&logical, &|n: &str| ins.get(n).map(|t| t.dims().to_vec()))
                .unwrap();
            let f = [LevelFormat::Dense, LevelFormat::SortedList, LevelFormat::Hash, LevelFormat::Bytemap][format];
            for q in &mut plan.queries {
                q.output_formats.iter_mut().for_each(|x| *x = f);
            }
            execute_plan(&plan, &ins)
                .map_err(|e| TestCaseError::fail(format!("{src}: {e}")))?
                .0
        };
        compare(src, &got, &ins)?;
    }
}

/// A kernel big enough to be split with the default 2 ms serial start agrees with the same
/// kernel run on one thread.
#[test]
fn large_kernel_split_and_serial_agree() {
    let src = "c = sum[a,b,c,d](E[a,b] * E[a,c] * E[a,d] * E[b,c] * E[b,d] * E[c,d])\nP[i,k] = sum[j](E[i,j] * E[j,k])\noutput c, P";
    let n = 400;
    let e = random_halves(vec![n, n], 0.15, 0.0, 7);
    let ins = named([("E", e)]);
    let parsed = parse_program(src).unwrap();
    let options = RunOptions::default();
    set_parallel_after(Duration::MAX);
    let (serial, _) = spores_tensor::run(&parsed.program, &ins, &options).unwrap();
    set_parallel_after(Duration::ZERO);
    let (split, _) = spores_tensor::run(&parsed.program, &ins, &options).unwrap();
    assert_eq!(serial.len(), 2);
    assert_eq!(outputs_differ(&serial, &split), None, "serial vs split");
    assert!(
        serial["c"].values()[0] != 0.0,
        "the 4-clique count is not trivially 0"
    );
}
