//! The logical optimizer: every optimized plan computes what the program computes (random
//! programs from the grammar on random small tensors, both searches, both estimators), and it
//! makes the choices the paper's examples call for.

mod opt_support;

use std::collections::HashMap;

use opt_support::*;
use proptest::prelude::*;
use spores_tensor::logical::{optimize_explained, optimize_tensors, LogicalOptions, Search};
use spores_tensor::plan_ast::{AggOp, Expr, MapOp, Program, Query};
use spores_tensor::reference::{eval_logical, eval_program};
use spores_tensor::stats::{Estimator, InputStats};
use spores_tensor::CooTensor;

fn check(program: &Program, inputs: &HashMap<String, CooTensor>, options: &LogicalOptions) {
    let want = eval_program(program, inputs).unwrap();
    let plan = optimize_tensors(program, inputs, options)
        .unwrap_or_else(|e| panic!("optimizing\n{program}failed: {e}"));
    let got = eval_logical(&plan, inputs).unwrap_or_else(|e| panic!("plan\n{plan}fails: {e}"));
    for (name, w) in &want {
        let g = &got[name];
        assert_eq!(
            w.dims(),
            g.dims(),
            "{name}: dims\nprogram:\n{program}plan:\n{plan}"
        );
        for (x, y) in w.to_dense().iter().zip(g.to_dense()) {
            assert!(
                close(*x, y),
                "{name}: {x} vs {y}\nprogram:\n{program}plan:\n{plan}"
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(std::env::var("OPT_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(64)))]

    /// The key correctness property: optimized plans agree with the program, for every search
    /// and estimator.
    #[test]
    fn optimized_plans_agree_with_the_program(seed in any::<u64>()) {
        let (program, inputs) = random_program(seed);
        for search in [Search::Greedy, Search::Exact] {
            for estimator in [Estimator::Uniform, Estimator::Chain] {
                let options = LogicalOptions { search, estimator, ..Default::default() };
                check(&program, &inputs, &options);
            }
        }
    }
}

/// ALS loss `sum[i,j]((X[i,j] - U[i]*V[j])^2)`: the distributed form when X is sparse (every
/// term is then linear in nnz(X) or in n), the compact form when X is dense.
#[test]
fn als_loss_distributes_only_when_x_is_sparse() {
    let n = 200;
    let (i, j) = (idx("i"), idx("j"));
    let body = Expr::map(
        MapOp::Pow,
        vec![
            Expr::map(
                MapOp::Sub,
                vec![
                    input("X", &["i", "j"]),
                    mul(vec![input("U", &["i"]), input("V", &["j"])]),
                ],
            ),
            Expr::Literal(2.0),
        ],
    );
    let program = program(
        vec![Query::new(
            "loss",
            vec![],
            Expr::agg(AggOp::Sum, vec![i, j], body),
        )],
        &["loss"],
    );
    let mut r = rng(11);
    let u = random_sparse(&mut r, &[n], 1.0);
    let v = random_sparse(&mut r, &[n], 1.0);
    for (density, expect_distributed) in [(0.01, true), (1.0, false)] {
        let x = random_sparse(&mut r, &[n, n], density);
        let inputs = named([("X", x), ("U", u.clone()), ("V", v.clone())]);
        let stats = InputStats::from_tensors(&inputs);
        let ex = optimize_explained(&program, &stats, &LogicalOptions::default()).unwrap();
        let text = ex.plan.to_string();
        // The compact form has one query holding a power; the distributed one has none.
        let distributed = !text.contains('^');
        assert_eq!(
            distributed, expect_distributed,
            "density {density}:\n{text}"
        );
        if distributed {
            // No query's work is quadratic in n.
            for e in &ex.estimates {
                assert!(
                    e.nnz_body <= 2.0 * (density * (n * n) as f64) + 2.0 * n as f64,
                    "{e:?}\n{text}"
                );
            }
        }
        // Both are right.
        let want = eval_program(&program, &inputs).unwrap()["loss"].to_dense()[0];
        let got = eval_logical(&ex.plan, &inputs).unwrap()["loss"].to_dense()[0];
        assert!(close(want, got), "{want} vs {got}");
    }
}

/// Example 4: matrix chain `E[i,m] = sum[j,k,l](A[i,j] B[j,k] C[k,l] D[l,m])` with a very
/// sparse A: the plan multiplies from A's side first, never forming C*D.
#[test]
fn matrix_chain_starts_from_the_sparse_end() {
    let mut r = rng(5);
    let n = 60;
    let a = random_sparse(&mut r, &[n, n], 0.002);
    let inputs = named([
        ("A", a),
        ("B", random_sparse(&mut r, &[n, n], 0.3)),
        ("C", random_sparse(&mut r, &[n, n], 0.3)),
        ("D", random_sparse(&mut r, &[n, n], 0.3)),
    ]);
    let body = mul(vec![
        input("A", &["i", "j"]),
        input("B", &["j", "k"]),
        input("C", &["k", "l"]),
        input("D", &["l", "m"]),
    ]);
    let p = program(
        vec![Query::new(
            "E",
            idxs(&["i", "m"]),
            sum(&["j", "k", "l"], body),
        )],
        &["E"],
    );
    for search in [Search::Greedy, Search::Exact] {
        let opts = LogicalOptions {
            search,
            ..Default::default()
        };
        let plan = optimize_tensors(&p, &inputs, &opts).unwrap();
        let first = &plan.queries[0];
        assert!(
            first.body.to_string().contains("A[i,j]"),
            "{search:?}:\n{plan}"
        );
        assert!(
            !plan.queries.iter().any(|q| {
                let s = q.body.to_string();
                s.contains("C[k,l]") && s.contains("D[l,m]") && !s.contains("__")
            }),
            "{search:?} forms C*D first:\n{plan}"
        );
    }
    // Correctness on data small enough for the brute-force oracle.
    let small: HashMap<String, CooTensor> = ["A", "B", "C", "D"]
        .iter()
        .map(|n| (n.to_string(), random_sparse(&mut r, &[6, 6], 0.3)))
        .collect();
    for search in [Search::Greedy, Search::Exact] {
        check(
            &p,
            &small,
            &LogicalOptions {
                search,
                ..Default::default()
            },
        );
    }
}

/// Figure 5: `sigmoid(sum[p,c,j](S[i,p,c] * (P[p,j]*θ[j] + C[c,j]*θ[j])))` pushes `sum[j]` into
/// both summands (virtual indices) before touching S.
#[test]
fn logistic_regression_over_joins_pushes_j_into_both_terms() {
    let mut r = rng(9);
    let (ni, np, nc, nj) = (40, 12, 10, 30);
    let inputs = named([
        ("S", random_sparse(&mut r, &[ni, np, nc], 0.02)),
        ("P", random_sparse(&mut r, &[np, nj], 1.0)),
        ("C", random_sparse(&mut r, &[nc, nj], 1.0)),
        ("theta", random_sparse(&mut r, &[nj], 1.0)),
    ]);
    let body = mul(vec![
        input("S", &["i", "p", "c"]),
        add(vec![
            mul(vec![input("P", &["p", "j"]), input("theta", &["j"])]),
            mul(vec![input("C", &["c", "j"]), input("theta", &["j"])]),
        ]),
    ]);
    let expr = Expr::map(MapOp::Sigmoid, vec![sum(&["p", "c", "j"], body)]);
    let p = program(vec![Query::new("X", idxs(&["i"]), expr)], &["X"]);
    let opts = LogicalOptions {
        no_distribute: true,
        ..Default::default()
    };
    let plan = optimize_tensors(&p, &inputs, &opts).unwrap();
    let text = plan.to_string();
    let j_queries: Vec<_> = plan
        .queries
        .iter()
        .filter(|q| q.agg_idxs.iter().any(|i| i.name().starts_with('j')))
        .collect();
    assert_eq!(j_queries.len(), 2, "{text}");
    for q in &j_queries {
        assert!(!q.body.to_string().contains('S'), "{text}");
    }
    check(&p, &inputs, &opts);
}

/// Subgraph counting on yeast: every query's plan computes the same count as the naive plan
/// would (checked on a 4-vertex query against brute force) and uses only valid queries.
#[test]
fn yeast_queries_plan_and_agree_on_small_data() {
    // The full graph is too big for the brute-force oracle: check plans on a 24-vertex
    // subgraph of yeast with the real queries' shapes (labels dropped).
    let g = read_graph(&data_dir().join("graphs/yeast.graph"));
    let keep = 24u32;
    let small = Graph {
        n: keep as usize,
        labels: vec![vec![]; keep as usize],
        edges: g
            .edges
            .iter()
            .copied()
            .filter(|&(a, b)| a < keep && b < keep)
            .collect(),
    };
    let data = graph_tensors(&small);
    let queries = yeast_queries();
    for (name, q) in queries.iter().filter(|(n, _)| n.contains("_4_")).take(6) {
        let unlabelled = Graph {
            n: q.n,
            labels: vec![vec![]; q.n],
            edges: q.edges.clone(),
        };
        let p = query_program(&unlabelled, &data).unwrap();
        for search in [Search::Greedy, Search::Exact] {
            let opts = LogicalOptions {
                search,
                ..Default::default()
            };
            let want = eval_program(&p, &data).unwrap()["count"].to_dense()[0];
            let plan = optimize_tensors(&p, &data, &opts).unwrap();
            let got = eval_logical(&plan, &data).unwrap()["count"].to_dense()[0];
            assert!(
                close(want, got),
                "{name} {search:?}: {want} vs {got}\n{plan}"
            );
        }
    }
}
