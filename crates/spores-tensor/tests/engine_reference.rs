//! The engine against the brute-force reference: every construct of the language on small
//! random tensors (2- and 3-way, fills other than 0), with the baseline plans and with
//! randomly perturbed protocols, formats and loop orders.

mod opt_support;

use std::collections::HashMap;

use opt_support::*;
use proptest::prelude::*;
use spores_tensor::engine::execute_plan;
use spores_tensor::logical::naive_plan;
use spores_tensor::parse::parse_program;
use spores_tensor::physical::naive_physical;
use spores_tensor::plan_ast::{LevelFormat, PhysExpr, PhysicalPlan, Protocol};
use spores_tensor::reference::eval_program;
use spores_tensor::CooTensor;

const PROGRAMS: &[&str] = &[
    "y[i] = sum[j](A[i,j] * x[j])",
    "C[i,k] = sum[j](A[i,j] * B[j,k])",
    "y[j] = sum[i](A[i,j] * w[i])",
    "z[i] = w[i] + L[i]",
    "z[i,j] = A[i,j] - 2 * A[i,j] * x[j]",
    "t = sum[i,j](A[i,j] + x[j])",
    "t = sum[i,j](w[i] + x[j])",
    "t = sum[i,j,k](E[i,j] * E[j,k] * E[i,k])",
    "V[i] = L[i] * max[j,k](E[i,j] * E[j,k] * E[i,k])",
    "s = sum[i,j,k](T[i,j,k] * A[i,j])",
    "U[i,k] = max[j](T[i,j,k] + B[j,k])",
    "m[i] = min[j](A[i,j])",
    "p[i] = prod[j](A[i,j] + 1)",
    "a[i] = any[j](A[i,j] > 0.5)",
    "y[i] = max[j](sum[k](A[i,j] * B[j,k]))",
    "P[i,k] = sum[j](A[i,j] * B[j,k])\nq = sum[i,k](P[i,k] * P[i,k])\noutput q, P",
    "Y[i] = sigmoid(sum[j](A[i,j] * x[j]))",
    "z[i,j] = A[i,j] / (A[i,j] + 2)",
    "r[i] = sum[j](relu(A[i,j] - x[j]))",
    "fn f(a, b) = a * b + 1 [commutative]\ny[i] = sum[j](f(A[i,j], x[j]))",
    "X[i,j] = sum[k](T[i,j,k] * (B[j,k] + x[j]))\nY[i] = sum[j](X[i,j] * x[j])\noutput Y",
    "y[k,i] = sum[j](T[i,j,k] * x[j])",
    "n[i] = sum[j](A[i,j] != 0)",
    "g = max[i,j](A[i,j] * w[i] * x[j])",
    "h[i] = sum[j](max(A[i,j], x[j]) * (A[i,j] >= 0.2 || x[j] < 0.1))",
    "z[i,j] = floor(A[i,j] * 3) + ceil(x[j] - 0.7) * trunc(A[i,j] - 1.5)",
    "r[i] = sum[j](A[i,j] % 0.3 + mod(A[i,j] - x[j], 0.75) + fld(A[i,j], 0.2))",
    "q[i,j] = A[i,j] % x[j]",
    "s[i] = sum[j](ifelse(A[i,j] > 0.2, x[j], 0))",
    "u[i,j] = ifelse(A[i,j], A[i,j] * x[j], -1)",
    "fn g(x, y) = x + y + x*y [associative, commutative, identity=0]\nr[i] = g[j](A[i,j] * x[j])",
    "fn mx(x, y) = max(x, y) [associative, commutative, idempotent, identity=-inf]\nU[i,k] = mx[j](T[i,j,k] + B[j,k])",
];

fn inputs(
    i: usize,
    j: usize,
    k: usize,
    density: f64,
    fills: [f64; 3],
    seed: u64,
) -> HashMap<String, CooTensor> {
    let mut m = HashMap::new();
    m.insert(
        "A".into(),
        random_halves(vec![i, j], density, fills[0], seed),
    );
    m.insert(
        "B".into(),
        random_halves(vec![j, k], density, fills[1], seed + 1),
    );
    m.insert(
        "x".into(),
        random_halves(vec![j], density, fills[2], seed + 2),
    );
    m.insert("w".into(), random_halves(vec![i], density, 0.0, seed + 3));
    m.insert(
        "L".into(),
        random_halves(vec![i], density, fills[1], seed + 4),
    );
    m.insert(
        "E".into(),
        random_halves(vec![i, i], density, 0.0, seed + 5),
    );
    m.insert(
        "T".into(),
        random_halves(vec![i, j, k], density, fills[0], seed + 6),
    );
    m
}

fn check(
    src: &str,
    plan: &PhysicalPlan,
    ins: &HashMap<String, CooTensor>,
) -> Result<(), TestCaseError> {
    let parsed = parse_program(src).unwrap();
    let want = eval_program(&parsed.program, ins).unwrap();
    let (got, _) =
        execute_plan(plan, ins).map_err(|e| TestCaseError::fail(format!("{src}: {e}")))?;
    match outputs_differ(&want, &got) {
        Some(diff) => Err(TestCaseError::fail(format!(
            "{src}\nengine vs reference: {diff}\nplan {plan:#?}"
        ))),
        None => Ok(()),
    }
}

fn naive(src: &str, ins: &HashMap<String, CooTensor>) -> PhysicalPlan {
    let parsed = parse_program(src).unwrap();
    let logical = naive_plan(&parsed.program).unwrap();
    naive_physical(&logical, &|n: &str| ins.get(n).map(|t| t.dims().to_vec())).unwrap()
}

fn perturb(plan: &mut PhysicalPlan, choices: &[u8]) {
    let mut k = 0usize;
    let mut next = || {
        k += 1;
        choices[k % choices.len()]
    };
    fn walk(e: &mut PhysExpr, next: &mut dyn FnMut() -> u8) {
        match e {
            PhysExpr::Access(a) => {
                for p in a.protocols.iter_mut() {
                    *p = [Protocol::Iterate, Protocol::Lookup, Protocol::Gallop]
                        [next() as usize % 3];
                }
            }
            PhysExpr::Map { args, .. } => args.iter_mut().for_each(|a| walk(a, next)),
            PhysExpr::Literal(_) => {}
        }
    }
    for q in &mut plan.queries {
        walk(&mut q.body, &mut next);
        for f in q.output_formats.iter_mut() {
            *f = [
                LevelFormat::Dense,
                LevelFormat::SortedList,
                LevelFormat::Hash,
                LevelFormat::Bytemap,
            ][next() as usize % 4];
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn baseline_plans_agree_with_the_reference(
        prog in 0..PROGRAMS.len(),
        (i, j, k) in (1usize..5, 1usize..5, 1usize..4),
        density in prop_oneof![Just(0.0), 0.05f64..0.6, Just(1.0)],
        fills in prop::array::uniform3(prop_oneof![Just(0.0), Just(0.0), Just(1.0), Just(-0.5)]),
        seed in any::<u64>(),
    ) {
        let ins = inputs(i, j, k, density, fills, seed);
        let plan = naive(PROGRAMS[prog], &ins);
        check(PROGRAMS[prog], &plan, &ins)?;
    }

    #[test]
    fn any_protocols_and_output_formats_agree_with_the_reference(
        prog in 0..PROGRAMS.len(),
        (i, j, k) in (1usize..5, 1usize..5, 1usize..4),
        density in 0.05f64..0.7,
        fills in prop::array::uniform3(prop_oneof![Just(0.0), Just(1.0), Just(-0.5)]),
        seed in any::<u64>(),
        choices in prop::collection::vec(any::<u8>(), 1..16),
    ) {
        let ins = inputs(i, j, k, density, fills, seed);
        let mut plan = naive(PROGRAMS[prog], &ins);
        perturb(&mut plan, &choices);
        check(PROGRAMS[prog], &plan, &ins)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// The optimizers' plans (other loop orders, formats, pushed-down aggregates) run on the
    /// engine agree with the reference too.
    #[test]
    fn optimized_plans_agree_with_the_reference(
        prog in 0..PROGRAMS.len(),
        (i, j, k) in (1usize..5, 1usize..5, 1usize..4),
        density in 0.05f64..0.8,
        fills in prop::array::uniform3(prop_oneof![Just(0.0), Just(0.0), Just(1.0)]),
        seed in any::<u64>(),
        exact in any::<bool>(),
    ) {
        use spores_tensor::driver::{Optimizer, RunOptions};
        let ins = inputs(i, j, k, density, fills, seed);
        let src = PROGRAMS[prog];
        let parsed = parse_program(src).unwrap();
        let want = eval_program(&parsed.program, &ins).unwrap();
        let options = RunOptions {
            optimizer: if exact { Optimizer::Exact } else { Optimizer::Greedy },
            ..Default::default()
        };
        let (got, report) = spores_tensor::run(&parsed.program, &ins, &options)
            .map_err(|e| TestCaseError::fail(format!("{src}: {e}")))?;
        if let Some(diff) = outputs_differ(&want, &got) {
            let plan = spores_tensor::driver::explain_physical(&report.physical);
            return Err(TestCaseError::fail(format!("{src}\nengine vs reference: {diff}\n{plan}")));
        }
    }
}
