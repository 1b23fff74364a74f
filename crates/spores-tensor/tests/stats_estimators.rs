//! The sparsity estimators against true non-fill counts: the chain bound and the density bound
//! (SPORES Figure 12, the one `spores-opt` prices LA plans with) never under-count (joins,
//! unions, projections on random inputs and on the yeast graph), the uniform estimator is
//! exact where uniformity holds, and worked examples give the bounds computed by hand.

mod opt_support;

use std::collections::HashMap;

use opt_support::*;
use spores_tensor::plan_ast::{AggOp, Expr, Idx, MapOp, Query};
use spores_tensor::reference::eval_program;
use spores_tensor::stats::{expr_stats, Estimator, InputStats, TensorStats};
use spores_tensor::CooTensor;

fn stats_of(expr: &Expr, inputs: &InputStats, est: Estimator) -> TensorStats {
    let mut leaf = |e: &Expr| match e {
        Expr::Input { tensor, idxs } => Ok(inputs.access(tensor, idxs, est)?),
        _ => unreachable!(),
    };
    expr_stats(expr, est, &mut leaf, &|_: &Idx| None).unwrap()
}

fn true_nnz(expr: &Expr, out: &[&str], tensors: &HashMap<String, CooTensor>) -> usize {
    let p = program(vec![Query::new("out", idxs(out), expr.clone())], &["out"]);
    count_nonzero(&eval_program(&p, tensors).unwrap()["out"])
}

#[test]
fn chain_and_density_bounds_are_upper_bounds_on_random_inputs() {
    let mut r = rng(7);
    let shapes: Vec<(Expr, Vec<&str>)> = vec![
        // join
        (
            mul(vec![input("A", &["i", "j"]), input("B", &["j", "k"])]),
            vec!["i", "j", "k"],
        ),
        // matrix product (projection of the join)
        (
            sum(
                &["j"],
                mul(vec![input("A", &["i", "j"]), input("B", &["j", "k"])]),
            ),
            vec!["i", "k"],
        ),
        // union
        (
            add(vec![input("A", &["i", "j"]), input("B", &["j", "k"])]),
            vec!["i", "j", "k"],
        ),
        // triangle-like cycle, projected to a vertex
        (
            sum(
                &["j", "k"],
                mul(vec![
                    input("A", &["i", "j"]),
                    input("B", &["j", "k"]),
                    input("A", &["k", "i"]),
                ]),
            ),
            vec!["i"],
        ),
        // union inside a join, then a projection
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
        // aggregate of everything
        (sum(&["i", "j"], input("A", &["i", "j"])), vec![]),
    ];
    for trial in 0..25 {
        let density = [0.02, 0.1, 0.3, 0.7][trial % 4];
        let n = 6 + trial % 5;
        let tensors = named([
            ("A", random_sparse(&mut r, &[n, n], density)),
            ("B", random_sparse(&mut r, &[n, n], density * 1.5)),
            ("C", random_sparse(&mut r, &[n, n, n], density)),
            ("v", random_sparse(&mut r, &[n], 0.5)),
        ]);
        let inputs = InputStats::from_tensors(&tensors);
        for (expr, out) in &shapes {
            let truth = true_nnz(expr, out, &tensors) as f64;
            let chain = stats_of(expr, &inputs, Estimator::Chain).estimate();
            assert!(
                chain + 1e-9 >= truth,
                "trial {trial}: chain bound {chain} < true {truth} for {expr}"
            );
            let density = stats_of(expr, &inputs, Estimator::DensityBound).estimate();
            assert!(
                density + 1e-9 >= truth,
                "trial {trial}: density bound {density} < true {truth} for {expr}"
            );
            let uniform = stats_of(expr, &inputs, Estimator::Uniform).estimate();
            assert!(uniform.is_finite() && uniform >= 0.0, "{expr}: {uniform}");
        }
    }
}

#[test]
fn figure_12_rules() {
    // A: 10 x 20 with 20 entries (density 0.1); B: 20 x 5 with 10 entries (0.1); v: 20 with 5.
    let mut r = rng(3);
    let a = random_exact(&mut r, &[10, 20], 20);
    let b = random_exact(&mut r, &[20, 5], 10);
    let v = random_exact(&mut r, &[20], 5);
    let t = random_exact(&mut r, &[20, 5], 2);
    let tensors = named([("A", a), ("B", b), ("v", v), ("T", t)]);
    let inputs = InputStats::from_tensors(&tensors);
    let d = |e: &Expr| stats_of(e, &inputs, Estimator::DensityBound).density();
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
    let est = stats_of(&input("A", &["i", "j"]), &inputs, Estimator::DensityBound).estimate();
    assert_eq!(est, 20.0);
}

#[test]
fn inputs_are_exact_and_uniform_is_exact_on_dense_data() {
    let dense = CooTensor::from_dense(vec![3, 4], &[1.0; 12]).unwrap();
    let vec4 = CooTensor::from_dense(vec![4], &[2.0; 4]).unwrap();
    let tensors = named([("D", dense), ("x", vec4)]);
    let inputs = InputStats::from_tensors(&tensors);
    for est in [Estimator::Uniform, Estimator::Chain] {
        let d = inputs.access("D", &idxs(&["i", "j"]), est).unwrap();
        assert_eq!(d.estimate(), 12.0, "{est:?}");
        let cases = [
            (mul(vec![input("D", &["i", "j"]), input("x", &["j"])]), 12.0),
            (
                sum(
                    &["j"],
                    mul(vec![input("D", &["i", "j"]), input("x", &["j"])]),
                ),
                3.0,
            ),
            (add(vec![input("D", &["i", "j"]), input("x", &["k"])]), 48.0),
        ];
        for (expr, want) in cases {
            let got = stats_of(&expr, &inputs, est).estimate();
            assert!((got - want).abs() < 1e-9, "{est:?} {expr:?}: {got}");
        }
    }
}

#[test]
fn uniform_estimator_follows_the_formulas() {
    // A: 10x10 with 10 non-zeros (density 0.1); B: 10x10 with 50 (density 0.5).
    let mut r = rng(3);
    let mut pick = |count: usize| {
        let mut cells: Vec<u32> = (0..100).collect();
        for k in 0..count {
            let j = k + (rand::RngExt::random::<u64>(&mut r) as usize) % (100 - k);
            cells.swap(k, j);
        }
        let entries = cells[..count]
            .iter()
            .map(|&c| (vec![c / 10, c % 10], 1.0))
            .collect();
        CooTensor::from_entries(vec![10, 10], entries, 0.0).unwrap()
    };
    let tensors = named([("A", pick(10)), ("B", pick(50))]);
    let inputs = InputStats::from_tensors(&tensors);
    let u = Estimator::Uniform;
    let join = stats_of(
        &mul(vec![input("A", &["i", "j"]), input("B", &["j", "k"])]),
        &inputs,
        u,
    );
    assert!((join.estimate() - 1000.0 * 0.1 * 0.5).abs() < 1e-9);
    let union = stats_of(
        &add(vec![input("A", &["i", "j"]), input("B", &["i", "j"])]),
        &inputs,
        u,
    );
    assert!((union.estimate() - 100.0 * (1.0 - 0.9 * 0.5)).abs() < 1e-9);
    let rows = stats_of(&sum(&["j"], input("A", &["i", "j"])), &inputs, u);
    assert!((rows.estimate() - 10.0 * (1.0 - 0.9f64.powi(10))).abs() < 1e-9);
}

#[test]
fn chain_bound_of_a_worked_join() {
    // A[i,j]: 4 entries, column j=0 holds 3 of them (D_A(i|j) = 3), rows hold 1 or 2
    // (D_A(j|i) = 2). B[j,k]: row j=0 holds 2, row 1 holds 1 (D_B(k|j) = 2), nnz 3.
    // C = A[i,j] * B[j,k]: paths ∅→ij (4) → ijk (×D_B(k|j)=2) = 8; ∅→jk (3) → ijk
    // (×D_A(i|j)=3) = 9. The bound is 8; the true count is 3*2 + 1*1 = 7.
    let a = CooTensor::from_entries(
        vec![4, 3],
        vec![
            (vec![0, 0], 1.),
            (vec![1, 0], 1.),
            (vec![2, 0], 1.),
            (vec![2, 1], 1.),
        ],
        0.0,
    )
    .unwrap();
    let b = CooTensor::from_entries(
        vec![3, 5],
        vec![(vec![0, 0], 1.), (vec![0, 4], 1.), (vec![1, 2], 1.)],
        0.0,
    )
    .unwrap();
    let tensors = named([("A", a), ("B", b)]);
    let inputs = InputStats::from_tensors(&tensors);
    let expr = mul(vec![input("A", &["i", "j"]), input("B", &["j", "k"])]);
    let s = stats_of(&expr, &inputs, Estimator::Chain);
    assert_eq!(s.estimate(), 8.0);
    assert_eq!(true_nnz(&expr, &["i", "j", "k"], &tensors), 7);
    // Projecting j away keeps the bound (ik pairs are at most the ijk triples).
    let ik = s.aggregate(AggOp::Sum, &[(idx("j"), 3)]);
    assert_eq!(ik.estimate(), 8.0);
    // The input's degree statistics are the hand-counted ones.
    let dcs = inputs
        .access("A", &idxs(&["i", "j"]), Estimator::Chain)
        .unwrap()
        .degree_constraints();
    let find = |x: &[&str], y: &[&str]| {
        dcs.iter()
            .find(|(dx, dy, _)| *dx == idxs(x) && *dy == idxs(y))
            .map(|t| t.2)
    };
    assert_eq!(find(&["i"], &["j"]), Some(3.0));
    assert_eq!(find(&["j"], &["i"]), Some(2.0));
    assert_eq!(find(&["i", "j"], &[]), Some(4.0));
    assert_eq!(find(&["j"], &[]), Some(2.0));
}

#[test]
fn fills_decide_between_join_and_union() {
    // X has fill 1: `X * A` is not annihilated by X's fill, only by A's (fill 0).
    let x = CooTensor::from_entries(vec![5], vec![(vec![0], 2.0)], 1.0).unwrap();
    let a = CooTensor::from_entries(vec![5], vec![(vec![3], 2.0), (vec![4], 1.0)], 0.0).unwrap();
    let tensors = named([("X", x), ("A", a)]);
    let inputs = InputStats::from_tensors(&tensors);
    for est in [Estimator::Uniform, Estimator::Chain] {
        let s = stats_of(
            &mul(vec![input("X", &["i"]), input("A", &["i"])]),
            &inputs,
            est,
        );
        assert_eq!(s.fill(), 0.0);
        assert!(s.estimate() <= 2.0 + 1e-9, "{est:?}: {}", s.estimate());
        let t = stats_of(
            &add(vec![input("X", &["i"]), input("A", &["i"])]),
            &inputs,
            est,
        );
        assert_eq!(t.fill(), 1.0);
        assert!(
            t.estimate() >= 2.0 - 1e-9 && t.estimate() <= 3.0 + 1e-9,
            "{est:?}"
        );
        let lit = stats_of(
            &Expr::map(MapOp::Mul, vec![Expr::Literal(-1.0), input("A", &["i"])]),
            &inputs,
            est,
        );
        assert_eq!(lit.estimate(), 2.0, "{est:?}");
    }
}

/// Wedges `E[i,j]*E[j,k]` and triangles on the yeast graph: the chain bound is above the
/// true counts (computed from adjacency lists), and within a modest factor for wedges.
#[test]
fn chain_bound_on_the_yeast_graph() {
    let g = read_graph(&data_dir().join("graphs/yeast.graph"));
    let tensors = graph_tensors(&g);
    let e = &tensors["E"];
    let mut adj: Vec<Vec<u32>> = vec![vec![]; g.n];
    for (c, _) in e.iter() {
        adj[c[0] as usize].push(c[1]);
    }
    let wedges: f64 = adj.iter().map(|a| (a.len() * a.len()) as f64).sum();
    let mut triangles = 0f64; // ordered (i,j,k) with all three edges
    for i in 0..g.n {
        for &j in &adj[i] {
            for &k in &adj[j as usize] {
                if adj[i].binary_search(&k).is_ok() {
                    triangles += 1.0;
                }
            }
        }
    }
    let inputs = InputStats::from_tensors(&tensors);
    let w = stats_of(
        &mul(vec![input("E", &["i", "j"]), input("E", &["j", "k"])]),
        &inputs,
        Estimator::Chain,
    );
    assert!(w.estimate() >= wedges, "{} < {wedges}", w.estimate());
    let tri = stats_of(
        &mul(vec![
            input("E", &["i", "j"]),
            input("E", &["j", "k"]),
            input("E", &["i", "k"]),
        ]),
        &inputs,
        Estimator::Chain,
    );
    assert!(
        tri.estimate() >= triangles,
        "{} < {triangles}",
        tri.estimate()
    );
    let nnz = e.nnz() as f64;
    let max_deg = adj.iter().map(Vec::len).max().unwrap() as f64;
    assert_eq!(w.estimate(), nnz * max_deg, "the chain ∅→ij→ijk");
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
