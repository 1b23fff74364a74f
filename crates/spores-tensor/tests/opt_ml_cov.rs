//! Covariance over a star join without materializing `X` (Galley §8.1): `G = t(X) X` with
//! `X = sum(L * (S + P + O + C))` read twice. The optimizer inlines both reads, collapses the
//! self-join of the lineitem tensor on its key `i` (`logical::keyjoin`), distributes, and
//! eliminates `i` first in every term (count tensors of `L`, then small products of the
//! dimension tables). Checked here: the plan's structure (no query keeps the lineitem index,
//! so the |L| x F feature matrix is never built), agreement with the brute-force reference and
//! with the plan that builds `X`, through the logical reference evaluator and through the
//! engine; the cost decides between the two plans; a lineitem tensor that is not a function of
//! `i` is never collapsed.

mod opt_support;

use std::collections::HashMap;

use opt_support::*;
use rand::RngExt;
use spores_tensor::logical::{optimize_explained, CostModel, LogicalOptions, Search};
use spores_tensor::physical::PhysicalOptions;
use spores_tensor::plan_ast::{Expr, Idx, LogicalPlan, Program};
use spores_tensor::reference::{eval_logical, eval_program};
use spores_tensor::stats::InputStats;
use spores_tensor::CooTensor;

/// Star-join tensors with the benchmark's key structure: lineitem `L[i,s,p,o,c]` (one
/// supplier, part and order per row, the order's customer), dimension tables of
/// `tables = (suppliers, parts, orders, customers)` rows with `width` dense features each in
/// disjoint column blocks. With `broken`, one lineitem gets a second supplier (L is then not
/// a function of `i`).
fn star(
    seed: u64,
    rows: usize,
    (ns, np, no, nc): (usize, usize, usize, usize),
    width: usize,
    broken: bool,
) -> HashMap<String, CooTensor> {
    let star = Star {
        rows,
        tables: [ns, np, no, nc],
        widths: [width; 4],
        broken: usize::from(broken),
    };
    star.tensors(&mut rng(seed))
}

/// `t(X) X` computed directly: `x_i = S[s_i] + P[p_i] + O[o_i] + C[c_i]` per lineitem.
fn gram(inputs: &HashMap<String, CooTensor>) -> CooTensor {
    let f = inputs["S"].dims()[1];
    let rows = |name: &str| -> Vec<Vec<f64>> {
        let t = &inputs[name];
        let d = t.to_dense();
        d.chunks(f).map(|r| r.to_vec()).collect()
    };
    let tables = [rows("S"), rows("P"), rows("O"), rows("C")];
    let mut g = vec![0.0; f * f];
    let l = &inputs["L"];
    for k in 0..l.nnz() {
        let c = l.coord(k);
        let v = l.values()[k];
        let x: Vec<f64> = (0..f)
            .map(|j| (0..4).map(|t| tables[t][c[t + 1] as usize][j]).sum())
            .collect();
        for a in 0..f {
            for b in 0..f {
                g[a * f + b] += v * v * x[a] * x[b];
            }
        }
    }
    CooTensor::from_dense(vec![f, f], &g).unwrap()
}

fn covariance() -> Program {
    ml_program("covariance.tp")
}

/// Galley's cost model (every body entry costs the same, no matrix-product discount).
fn galley_cost() -> LogicalOptions {
    LogicalOptions {
        search: Search::Greedy,
        cost: CostModel {
            dense_product: 1.0,
            ..Default::default()
        },
        ..Default::default()
    }
}

/// Whether the plan keeps the lineitem index in some result: a query that reads `L` and does
/// not aggregate the index at `L`'s first mode away, or a query named `X`.
fn keeps_lineitem_index(plan: &LogicalPlan) -> bool {
    plan.queries.iter().any(|q| {
        let mut keeps = q.name == "X";
        q.body.for_each_access(&mut |a| {
            if let Expr::Input { tensor, idxs } = a {
                if tensor == "L" && !q.agg_idxs.contains(&idxs[0]) {
                    keeps = true;
                }
            }
        });
        keeps
    })
}

fn reads_l(plan: &LogicalPlan) -> usize {
    plan.queries
        .iter()
        .filter(|q| {
            let mut n = 0;
            q.body.for_each_access(&mut |a| {
                if matches!(a, Expr::Input { tensor, .. } if tensor == "L") {
                    n += 1;
                }
            });
            n > 0
        })
        .count()
}

fn assert_close(want: &CooTensor, got: &CooTensor, context: &str) {
    assert_eq!(want.dims(), got.dims(), "{context}");
    let (w, g) = (want.to_dense(), got.to_dense());
    let scale = w.iter().fold(1.0f64, |m, x| m.max(x.abs()));
    for (x, y) in w.iter().zip(&g) {
        assert!(
            (x - y).abs() <= 1e-9 * scale,
            "{x} vs {y} (scale {scale})\n{context}"
        );
    }
}

/// Runs a logical plan through the physical optimizer and the engine.
fn run_on_engine(
    plan: &LogicalPlan,
    stats: &InputStats,
    inputs: &HashMap<String, CooTensor>,
) -> HashMap<String, CooTensor> {
    let physical = spores_tensor::physical::optimize(plan, stats, &PhysicalOptions::default())
        .unwrap_or_else(|e| panic!("{e}\n{plan}"));
    spores_tensor::engine::execute_plan(&physical, inputs)
        .unwrap_or_else(|e| panic!("{e}\n{plan}"))
        .0
}

/// The factorized plan: found from the program as written, never builds `X` (every kernel
/// that reads `L` sums its lineitem index away), and agrees with the brute-force reference and
/// with the plan that builds `X`, in the logical evaluator and on the engine.
#[test]
fn covariance_factorizes_without_building_x() {
    let p = covariance();
    for seed in 0..4 {
        let inputs = star(seed, 200 + 50 * seed as usize, SMALL, 2, false);
        let stats = InputStats::from_tensors(&inputs);
        let want = &eval_program(&p, &inputs).unwrap()["G"];
        let fact = optimize_explained(&p, &stats, &galley_cost()).unwrap();
        let plan = &fact.plan;
        assert!(!keeps_lineitem_index(plan), "X is built:\n{plan}");
        // One kernel per count tensor / pair term: a handful, not one per term of L ⋈ L.
        assert!(
            (4..=16).contains(&reads_l(plan)),
            "{} kernels read L:\n{plan}",
            reads_l(plan)
        );
        let built = optimize_explained(
            &p,
            &stats,
            &LogicalOptions {
                no_inline: true,
                ..galley_cost()
            },
        )
        .unwrap();
        assert!(keeps_lineitem_index(&built.plan), "{}", built.plan);
        assert!(
            fact.cost < built.cost,
            "Galley's cost prefers the factorized plan: {} vs {}",
            fact.cost,
            built.cost
        );
        let context = format!("seed {seed}:\n{plan}");
        assert_close(want, &eval_logical(plan, &inputs).unwrap()["G"], &context);
        assert_close(
            want,
            &eval_logical(&built.plan, &inputs).unwrap()["G"],
            &context,
        );
        assert_close(want, &run_on_engine(plan, &stats, &inputs)["G"], &context);
    }
}

/// Small dimension tables: every count tensor of `L` is small.
const SMALL: (usize, usize, usize, usize) = (3, 4, 6, 3);

/// Tables as large as the benchmark's relative to the lineitems (every pair of tables has more
/// key pairs than there are lineitems, as for TPC-H's parts, orders and customers), at 2,000
/// lineitems.
const LARGE: (usize, usize, usize, usize) = (60, 200, 500, 80);

/// The default cost model (with the matrix-product rate of our engine) chooses: with small
/// dimension tables the count tensors of `L` are small and the factorized plan is cheaper
/// (each `N[a,b]` has at most |A|·|B| entries); with tables as large as the benchmark's most pairs of keys
/// occur once, `N[a,b]` is as large as `L`, and building `X` (20 features) then `t(X) X` on
/// the matrix-product kernel is cheaper.
#[test]
fn the_cost_chooses_between_building_x_and_factorizing() {
    let p = covariance();
    let greedy = LogicalOptions {
        search: Search::Greedy,
        ..Default::default()
    };
    for (tables, width, factorize) in [(SMALL, 5, true), (LARGE, 5, false)] {
        let inputs = star(7, 2000, tables, width, false);
        let plan = optimize_explained(&p, &InputStats::from_tensors(&inputs), &greedy)
            .unwrap()
            .plan;
        let context = format!("tables {tables:?}, width {width}:\n{plan}");
        assert_eq!(!keeps_lineitem_index(&plan), factorize, "{context}");
        // The engine, not the brute-force evaluator (dense over all key combinations).
        let stats = InputStats::from_tensors(&inputs);
        let got = &run_on_engine(&plan, &stats, &inputs)["G"];
        assert_close(&gram(&inputs), got, &context);
    }
}

/// A lineitem with two suppliers: `L` is not a function of `i`, the copies do not collapse,
/// `X` is built, and the result is right.
#[test]
fn a_non_key_self_join_is_not_collapsed() {
    let p = covariance();
    let inputs = star(3, 150, SMALL, 2, true);
    let stats = InputStats::from_tensors(&inputs);
    let plan = optimize_explained(&p, &stats, &galley_cost()).unwrap().plan;
    assert!(keeps_lineitem_index(&plan), "{plan}");
    let want = &eval_program(&p, &inputs).unwrap()["G"];
    assert_close(
        want,
        &eval_logical(&plan, &inputs).unwrap()["G"],
        "broken key",
    );
    assert_close(
        want,
        &run_on_engine(&plan, &stats, &inputs)["G"],
        "broken key",
    );
}

/// Random self-joins of a functional tensor `T[i,a,b]` (one `(a,b)` per `i`, random values),
/// read twice through an alias under a sum: the collapsed plans agree with the reference.
#[test]
fn collapsed_self_joins_agree_with_the_reference() {
    for seed in 0..12u64 {
        let mut r = rng(seed);
        let (ni, na, nb, nj) = (
            r.random_range(1..9usize),
            r.random_range(1..4usize),
            r.random_range(1..4usize),
            r.random_range(1..4usize),
        );
        let mut t = vec![];
        for i in 0..ni {
            if r.random_range(0..4) > 0 {
                let c = vec![
                    i as u32,
                    r.random_range(0..na as u32),
                    r.random_range(0..nb as u32),
                ];
                t.push((c, r.random_range(0.5..2.0)));
            }
        }
        let mut inputs = HashMap::new();
        inputs.insert(
            "T".to_string(),
            CooTensor::from_entries(vec![ni, na, nb], t, 0.0).unwrap(),
        );
        inputs.insert("F".to_string(), random_sparse(&mut r, &[na, nj], 0.7));
        inputs.insert("H".to_string(), random_sparse(&mut r, &[nb, nj], 0.7));
        // Y[i,j] = sum[a,b](T[i,a,b] * (F[a,j] + H[b,j]));  Z[j,k] = sum[i](Y[i,j] * Y[i,k])
        let y = sum(
            &["a", "b"],
            mul(vec![
                input("T", &["i", "a", "b"]),
                add(vec![input("F", &["a", "j"]), input("H", &["b", "j"])]),
            ]),
        );
        let ij: Vec<Idx> = idxs(&["i", "j"]);
        let z = sum(
            &["i"],
            mul(vec![
                Expr::alias("Y", ij.clone()),
                Expr::alias("Y", idxs(&["i", "k"])),
            ]),
        );
        let prog = program(
            vec![
                spores_tensor::plan_ast::Query::new("Y", ij, y),
                spores_tensor::plan_ast::Query::new("Z", idxs(&["j", "k"]), z),
            ],
            &["Z"],
        );
        let want = &eval_program(&prog, &inputs).unwrap()["Z"];
        let stats = InputStats::from_tensors(&inputs);
        let plan = optimize_explained(&prog, &stats, &galley_cost())
            .unwrap()
            .plan;
        let context = format!("seed {seed}:\n{plan}");
        assert_close(want, &eval_logical(&plan, &inputs).unwrap()["Z"], &context);
        assert_close(want, &run_on_engine(&plan, &stats, &inputs)["Z"], &context);
    }
}
