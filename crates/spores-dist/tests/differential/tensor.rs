//! Tensor programs for comparing an engine with the local fibertree engine: named
//! programs of every construct, and random programs over random sparse tensors with
//! fills other than 0.

use std::collections::HashMap;

use crate::common::Rng;
use spores_dist::DataFusionEngine;
use spores_tensor::driver::{Optimizer, RunOptions};
use spores_tensor::parse::parse_program;
use spores_tensor::CooTensor;

const I: usize = 6;
const J: usize = 5;
const K: usize = 4;

/// A tensor whose entries are stored with probability `density`, values in [-2, 2] in
/// steps of 1/2 (exact in binary) and never equal to the fill.
fn random_tensor(rng: &mut Rng, dims: Vec<usize>, density: f64, fill: f64) -> CooTensor {
    let cells: usize = dims.iter().product();
    let mut entries = Vec::new();
    for cell in 0..cells {
        if (rng.below(1000) as f64) >= density * 1000.0 {
            continue;
        }
        let mut coord = vec![0u32; dims.len()];
        let mut rest = cell;
        for (c, &d) in coord.iter_mut().zip(&dims).rev() {
            *c = (rest % d) as u32;
            rest /= d;
        }
        let mut v = rng.below(9) as f64 / 2.0 - 2.0;
        if v == fill {
            v += 0.25;
        }
        entries.push((coord, v));
    }
    CooTensor::from_entries(dims, entries, fill).unwrap()
}

/// `A[i,j]`, `B[j,k]`, `x[j]`, `w[i]`, `E[i,i']` (square), `T[i,j,k]`; `A`, `B`, `x` and
/// `T` with the given fills.
pub fn inputs(rng: &mut Rng, fills: [f64; 3]) -> HashMap<String, CooTensor> {
    let density = [0.2, 0.5, 0.8][rng.below(3)];
    let mut m = HashMap::new();
    m.insert(
        "A".into(),
        random_tensor(rng, vec![I, J], density, fills[0]),
    );
    m.insert(
        "B".into(),
        random_tensor(rng, vec![J, K], density, fills[1]),
    );
    m.insert("x".into(), random_tensor(rng, vec![J], 0.7, fills[2]));
    m.insert("w".into(), random_tensor(rng, vec![I], 0.7, 0.0));
    m.insert("E".into(), random_tensor(rng, vec![I, I], density, 0.0));
    m.insert(
        "T".into(),
        random_tensor(rng, vec![I, J, K], density, fills[0]),
    );
    m
}

fn close(a: f64, b: f64) -> bool {
    a == b || (a.is_nan() && b.is_nan()) || (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

/// Runs `src` on both engines; `Err` describes the first difference.
pub fn compare(
    engine: &DataFusionEngine,
    src: &str,
    ins: &HashMap<String, CooTensor>,
) -> Result<(), String> {
    let parsed = parse_program(src).map_err(|e| format!("{src}: {e:?}"))?;
    let options = RunOptions {
        optimizer: Optimizer::Greedy,
        ..Default::default()
    };
    let (want, report) =
        spores_tensor::run(&parsed.program, ins, &options).map_err(|e| format!("{src}: {e}"))?;
    let got = engine
        .run_tensor_plan(&report.logical, ins)
        .map_err(|e| format!("{src}\nplan:\n{}{e}", report.logical))?;
    for (name, w) in &want {
        let g = got
            .get(name)
            .ok_or_else(|| format!("{src}: no output {name}"))?;
        if g.dims() != w.dims() {
            return Err(format!(
                "{src}: {name} dims {:?} vs {:?}",
                g.dims(),
                w.dims()
            ));
        }
        for (k, (x, y)) in g.to_dense().iter().zip(&w.to_dense()).enumerate() {
            if !close(*x, *y) {
                return Err(format!(
                    "{src}\nplan:\n{}{name}: cell {k}: {} {x}, local {y}",
                    report.logical,
                    engine.name()
                ));
            }
        }
    }
    Ok(())
}

/// Every construct of the language the relational lowering covers (`prod`, user functions and
/// aggregates aside).
pub const PROGRAMS: &[&str] = &[
    "y[i] = sum[j](A[i,j] * x[j])",
    "C[i,k] = sum[j](A[i,j] * B[j,k])",
    "y[j] = sum[i](A[i,j] * w[i])",
    "z[i,j] = A[i,j] - 2 * A[i,j] * x[j]",
    "t = sum[i,j](A[i,j] + x[j])",
    "t = sum[i,j](w[i] + x[j])",
    "t = sum[i,j,k](E[i,j] * E[j,k] * E[i,k])",
    "V[i] = w[i] * max[j,k](E[i,j] * E[j,k] * E[i,k])",
    "s = sum[i,j,k](T[i,j,k] * A[i,j])",
    "U[i,k] = max[j](T[i,j,k] + B[j,k])",
    "m[i] = min[j](A[i,j])",
    "a[i] = any[j](A[i,j] > 0.5)",
    "y[i] = max[j](sum[k](A[i,j] * B[j,k]))",
    "P[i,k] = sum[j](A[i,j] * B[j,k])\nq = sum[i,k](P[i,k] * P[i,k])\noutput q, P",
    "Y[i] = sigmoid(sum[j](A[i,j] * x[j]))",
    "z[i,j] = A[i,j] / (A[i,j] + 3)",
    "r[i] = sum[j](relu(A[i,j] - x[j]))",
    "X[i,j] = sum[k](T[i,j,k] * (B[j,k] + x[j]))\nY[i] = sum[j](X[i,j] * x[j])\noutput Y",
    "y[k,i] = sum[j](T[i,j,k] * x[j])",
    "n[i] = sum[j](A[i,j] != 0)",
    "g = max[i,j](A[i,j] * w[i] * x[j])",
    "h[i] = sum[j](max(A[i,j], x[j]) * (A[i,j] >= 0.2 || x[j] < 0.1))",
    "e[i,j] = exp(A[i,j]) * abs(x[j])",
    "c = sum[i,j](A[i,j] * 2 + 1)",
    "z[i,j] = floor(A[i,j] * 3) + ceil(x[j] - 0.7) * trunc(A[i,j] - 1.5)",
    "s[i] = sum[j](ifelse(A[i,j] > 0.2, x[j], 0))",
    "u[i,j] = ifelse(A[i,j], A[i,j] * x[j], -1)",
    "q[i,j] = A[i,j] % (x[j] + 3)",
    "d[i,j] = A[i,j] / x[j]",
    "m[i,j] = mod(A[i,j] - x[j], 0.75) + fld(A[i,j], x[j] - 0.25) + mod(x[j], A[i,j])",
    "f[i,j] = fld(x[j], A[i,j])",
];

/// A random pointwise expression with aggregates inside, and its free indices; no index
/// is aggregated twice (`aggregated` collects them).
fn gen_expr(
    rng: &mut Rng,
    depth: usize,
    aggregated: &mut Vec<&'static str>,
) -> (String, Vec<&'static str>) {
    let leaf = |rng: &mut Rng| -> (String, Vec<&'static str>) {
        let (s, idxs): (&str, &[&'static str]) = match rng.below(7) {
            0 => ("A[i,j]", &["i", "j"]),
            1 => ("B[j,k]", &["j", "k"]),
            2 => ("x[j]", &["j"]),
            3 => ("w[i]", &["i"]),
            4 => ("T[i,j,k]", &["i", "j", "k"]),
            5 => ("A[i,j]", &["i", "j"]),
            _ => ("2", &[]),
        };
        (s.to_string(), idxs.to_vec())
    };
    if depth == 0 {
        return leaf(rng);
    }
    let union = |a: &[&'static str], b: &[&'static str]| {
        let mut u: Vec<&'static str> = a.to_vec();
        for i in b {
            if !u.contains(i) {
                u.push(i);
            }
        }
        u.sort();
        u
    };
    match rng.below(10) {
        0..=5 => {
            let (a, ia) = gen_expr(rng, depth - 1, aggregated);
            let (b, ib) = gen_expr(rng, depth - 1, aggregated);
            let s = match rng.below(7) {
                0 | 1 => format!("({a} * {b})"),
                2 => format!("({a} + {b})"),
                3 => format!("({a} - {b})"),
                4 => format!("max({a}, {b})"),
                5 => format!("min({a}, {b})"),
                _ => format!("({a} / ({b} * {b} + 1))"),
            };
            (s, union(&ia, &ib))
        }
        6 | 7 => {
            let (a, ia) = gen_expr(rng, depth - 1, aggregated);
            let free: Vec<&'static str> = ia
                .iter()
                .copied()
                .filter(|i| !aggregated.contains(i))
                .collect();
            if free.is_empty() {
                return (a, ia);
            }
            let k = free[rng.below(free.len())];
            aggregated.push(k);
            let agg = ["sum", "sum", "max", "min", "any"][rng.below(5)];
            let rest = ia.iter().copied().filter(|i| *i != k).collect();
            (format!("{agg}[{k}]({a})"), rest)
        }
        _ => {
            let (a, ia) = gen_expr(rng, depth - 1, aggregated);
            let s = match rng.below(4) {
                0 => format!("sigmoid({a})"),
                1 => format!("abs({a})"),
                2 => format!("relu({a})"),
                _ => format!("({a} > 0.5)"),
            };
            (s, ia)
        }
    }
}

/// How many random programs a test runs (`SPORES_DIST_CASES`, default 100).
pub fn cases() -> u64 {
    super::env_count("SPORES_DIST_CASES", 100)
}

/// What `engine` got wrong on the random programs of `seeds`, and how many of them
/// aggregate.
pub fn random_program_failures(
    engine: &DataFusionEngine,
    seeds: std::ops::Range<u64>,
) -> (Vec<String>, usize) {
    let mut failures = Vec::new();
    let mut aggregated = 0;
    for seed in seeds {
        let (program, ins) = random_program(seed, &mut aggregated);
        if let Err(e) = compare(engine, &program, &ins) {
            failures.push(format!("seed {seed}: {e}"));
        }
    }
    (failures, aggregated)
}

/// The random program of `seed` (an output `y` over the indices left free) and its
/// inputs; `aggregated` counts programs with an aggregate.
pub fn random_program(seed: u64, aggregated: &mut usize) -> (String, HashMap<String, CooTensor>) {
    let mut rng = Rng(1000 + seed);
    let mut inner = Vec::new();
    let (body, free) = gen_expr(&mut rng, 3, &mut inner);
    let open: Vec<&str> = free
        .iter()
        .copied()
        .filter(|i| !inner.contains(i))
        .collect();
    // Aggregate one of the remaining indices at the top, keep the rest.
    let (src, out) = if !open.is_empty() && rng.below(2) == 0 {
        let k = open[rng.below(open.len())];
        let agg = ["sum", "max", "min"][rng.below(3)];
        let rest: Vec<&str> = free.iter().copied().filter(|i| *i != k).collect();
        (format!("{agg}[{k}]({body})"), rest)
    } else {
        (body, free)
    };
    *aggregated += usize::from(src.contains('['));
    let program = if out.is_empty() {
        format!("y = {src}")
    } else {
        format!("y[{}] = {src}", out.join(","))
    };
    let fills = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.5], [0.0, -1.0, 0.0]][rng.below(3)];
    let ins = inputs(&mut rng, fills);
    (program, ins)
}
