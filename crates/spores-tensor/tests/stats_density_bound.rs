//! The density-bound estimator (SPORES Figure 12, the one `spores-opt` prices LA plans with):
//! its three rules on a worked example, and an upper bound on the true non-fill count on
//! random inputs (each rule bounds its result given bounds of its children).

mod opt_support;

use std::collections::HashMap;

use opt_support::*;
use spores_tensor::plan_ast::{Expr, Idx, Query};
use spores_tensor::reference::eval_program;
use spores_tensor::stats::{expr_stats, Estimator, InputStats, TensorStats};
use spores_tensor::CooTensor;

fn stats_of(expr: &Expr, inputs: &InputStats) -> TensorStats {
    let est = Estimator::DensityBound;
    let mut leaf = |e: &Expr| match e {
        Expr::Input { tensor, idxs } => Ok(inputs.access(tensor, idxs, est)?),
        _ => unreachable!(),
    };
    expr_stats(expr, est, &mut leaf, &|_: &Idx| None).unwrap()
}

#[test]
fn figure_12_rules() {
    // A: 10 x 20 with 20 entries (density 0.1); B: 20 x 5 with 10 entries (0.1); v: 20 with 5.
    let mut r = rng(3);
    let a = random_exact(&mut r, &[10, 20], 20);
    let b = random_exact(&mut r, &[20, 5], 10);
    let v = random_exact(&mut r, &[20], 5);
    let t = random_exact(&mut r, &[20, 5], 2);
    let tensors: HashMap<String, CooTensor> = [("A", a), ("B", b), ("v", v), ("T", t)]
        .into_iter()
        .map(|(n, t)| (n.to_string(), t))
        .collect();
    let inputs = InputStats::from_tensors(&tensors);
    let d = |e: &Expr| stats_of(e, &inputs).density();
    assert_eq!(d(&input("A", &["i", "j"])), 0.1);
    // Join: the smaller density (v's is 0.25).
    assert_eq!(
        d(&mul(vec![input("A", &["i", "j"]), input("v", &["j"])])),
        0.1
    );
    // Union: the sum.
    assert_eq!(
        d(&add(vec![input("A", &["i", "j"]), input("v", &["j"])])),
        0.35
    );
    // Matrix product: min(0.1, 0.1) times the 20 cells of j, capped at 1.
    let prod = sum(
        &["j"],
        mul(vec![input("A", &["i", "j"]), input("B", &["j", "k"])]),
    );
    assert_eq!(d(&prod), 1.0);
    // Aggregates multiply by the aggregated cells: row sums of A, min(1, 20 * 0.1) = 1;
    // A summed over i (10 cells) is a 20-vector of density min(1, 10 * 0.1) = 1; the join
    // of A with a 0.02-dense B' would give 20 * 0.02 = 0.4 (below).
    assert_eq!(d(&sum(&["j"], input("A", &["i", "j"]))), 1.0);
    assert_eq!(d(&sum(&["i"], input("v", &["i"]))), 1.0);
    let thin = sum(
        &["j"],
        mul(vec![input("A", &["i", "j"]), input("T", &["j", "k"])]),
    );
    assert_eq!(d(&thin), 20.0 * 0.02);
    let est = stats_of(&input("A", &["i", "j"]), &inputs).estimate();
    assert_eq!(est, 20.0);
}

#[test]
fn density_bound_is_an_upper_bound_on_random_inputs() {
    let mut r = rng(11);
    let shapes: Vec<(Expr, Vec<&str>)> = vec![
        (
            mul(vec![input("A", &["i", "j"]), input("B", &["j", "k"])]),
            vec!["i", "j", "k"],
        ),
        (
            sum(
                &["j"],
                mul(vec![input("A", &["i", "j"]), input("B", &["j", "k"])]),
            ),
            vec!["i", "k"],
        ),
        (
            add(vec![input("A", &["i", "j"]), input("B", &["j", "k"])]),
            vec!["i", "j", "k"],
        ),
        (
            sum(
                &["j"],
                mul(vec![
                    input("C", &["i", "j", "k"]),
                    add(vec![input("A", &["i", "j"]), input("v", &["j"])]),
                ]),
            ),
            vec!["i", "k"],
        ),
        (sum(&["i", "j"], input("A", &["i", "j"])), vec![]),
    ];
    for trial in 0..25 {
        let density = [0.02, 0.1, 0.3, 0.7][trial % 4];
        let n = 6 + trial % 5;
        let tensors: HashMap<String, CooTensor> = [
            ("A".to_string(), random_sparse(&mut r, &[n, n], density)),
            (
                "B".to_string(),
                random_sparse(&mut r, &[n, n], density * 1.5),
            ),
            ("C".to_string(), random_sparse(&mut r, &[n, n, n], density)),
            ("v".to_string(), random_sparse(&mut r, &[n], 0.5)),
        ]
        .into_iter()
        .collect();
        let inputs = InputStats::from_tensors(&tensors);
        for (expr, out) in &shapes {
            let p = program(vec![Query::new("out", idxs(out), expr.clone())], &["out"]);
            let truth = count_nonzero(&eval_program(&p, &tensors).unwrap()["out"]) as f64;
            let bound = stats_of(expr, &inputs).estimate();
            assert!(
                bound + 1e-9 >= truth,
                "trial {trial}: density bound {bound} < true {truth} for {expr}"
            );
        }
    }
}

/// A tensor with exactly `nnz` distinct non-zero entries.
fn random_exact(r: &mut rand_pcg::Pcg64, dims: &[usize], nnz: usize) -> CooTensor {
    use rand::RngExt;
    let total: usize = dims.iter().product();
    let mut chosen = std::collections::BTreeSet::new();
    while chosen.len() < nnz {
        chosen.insert(r.random_range(0..total));
    }
    let entries = chosen
        .into_iter()
        .map(|mut flat| {
            let mut c = vec![0u32; dims.len()];
            for m in (0..dims.len()).rev() {
                c[m] = (flat % dims[m]) as u32;
                flat /= dims[m];
            }
            (c, 1.0)
        })
        .collect();
    CooTensor::from_entries(dims.to_vec(), entries, 0.0).unwrap()
}
