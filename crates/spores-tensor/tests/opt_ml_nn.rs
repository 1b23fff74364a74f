//! The 1-hidden-layer network over a star join (Galley §8.1) as the benchmark runs it: the
//! plan structure it relies on (no feature matrix, no `|L| × hidden` intermediate, one scan
//! over the lineitems with the hidden units as an inner loop) and agreement with the
//! brute-force reference on random star data; the single-term fusion it rests on fires only
//! when exact.

mod opt_support;

use std::collections::HashMap;

use opt_support::*;
use rand::RngExt;
use spores_tensor::logical::fuse::fuse_single_terms;
use spores_tensor::logical::{naive_plan, optimize_tensors, LogicalOptions, Search};
use spores_tensor::plan_ast::Expr;
use spores_tensor::reference::{eval_logical, eval_program};
use spores_tensor::stats::InputStats;
use spores_tensor::{CooTensor, RunOptions};

/// Random star-schema data with the benchmark's key structure: `rows` lineitems, each with
/// one supplier, part and order (and that order's customer); features of each dimension table
/// in its own column block; `extra` lineitems get a second tuple (the next supplier),
/// which breaks the "one term per lineitem" property. Table sizes are small and random, or
/// TPC-H's ratios to the lineitems with `tpch`.
fn star(seed: u64, rows: usize, hidden: usize, extra: usize) -> HashMap<String, CooTensor> {
    let mut r = rng(seed);
    let sizes = [
        r.random_range(2..6usize),
        r.random_range(2..9usize),
        r.random_range(2..12usize),
        r.random_range(2..5usize),
    ];
    star_sized(&mut r, rows, sizes, hidden, extra)
}

/// TPC-H's table sizes per lineitem: supplier 1/600, part 1/30, orders 1/4, customer 1/40.
fn tpch_star(seed: u64, rows: usize, hidden: usize) -> HashMap<String, CooTensor> {
    let sizes = [rows / 600, rows / 30, rows / 4, rows / 40].map(|n| n.max(1));
    star_sized(&mut rng(seed), rows, sizes, hidden, 0)
}

fn star_sized(
    r: &mut rand_pcg::Pcg64,
    rows: usize,
    tables: [usize; 4],
    hidden: usize,
    broken: usize,
) -> HashMap<String, CooTensor> {
    let star = Star {
        rows,
        tables,
        widths: [2, 3, 2, 3],
        broken,
    };
    let mut out = star.tensors(r);
    let features = star.features();
    out.insert("theta".into(), dense_random(r, vec![features]));
    out.insert("W1".into(), dense_random(r, vec![features, hidden]));
    out.insert("w2".into(), dense_random(r, vec![hidden]));
    out
}

fn assert_close(want: &CooTensor, got: &CooTensor, context: &str) {
    assert_eq!(want.dims(), got.dims(), "{context}");
    for (k, (x, y)) in want.to_dense().iter().zip(got.to_dense()).enumerate() {
        assert!(close(*x, y), "cell {k}: want {x}, got {y}\n{context}");
    }
}

fn reads(e: &Expr, tensor: &str) -> usize {
    let mut n = 0;
    e.for_each_access(&mut |a| {
        if matches!(a, Expr::Input { tensor: t, .. } if t == tensor) {
            n += 1;
        }
    });
    n
}

/// The network's plan never builds `X`, `H` or any intermediate over the lineitems and a
/// second index: the dimension tables meet `W1` first, then one kernel walks `L` once (the
/// scan fast path) with the hidden units as its innermost loop and writes `y[i]`.
#[test]
fn network_plan_is_one_scan_over_the_lineitems() {
    let rows = 6000;
    let inputs = tpch_star(11, rows, 8);
    let p = ml_program("nn.tp");
    let (out, report) = spores_tensor::run(&p, &inputs, &RunOptions::default()).unwrap();
    let plan = &report.logical;
    let context = format!("{plan}");
    assert!(
        plan.queries.iter().all(|q| q.name != "X" && q.name != "H"),
        "X and H must not be built:\n{context}"
    );
    let over_l: Vec<_> = plan
        .queries
        .iter()
        .filter(|q| reads(&q.body, "L") > 0)
        .collect();
    assert_eq!(over_l.len(), 1, "L is walked once:\n{context}");
    assert_eq!(reads(&over_l[0].body, "L"), 1, "{context}");
    assert_eq!(
        over_l[0].name, "y",
        "the kernel over L writes y:\n{context}"
    );
    for q in &plan.queries {
        if q.name != "y" {
            assert_eq!(
                reads(&q.body, "W1"),
                1,
                "{q} should be a table times W1:\n{context}"
            );
        }
    }
    // Nothing stored comes near one value per lineitem and hidden unit (the largest table,
    // orders, has a quarter of the lineitems: orders × hidden is a quarter of that).
    let hidden = 8;
    for (name, _, stored, _) in &report.exec.kernels {
        assert!(
            *stored < rows * hidden / 2,
            "kernel {name} stores {stored} values (|L| × hidden = {}):\n{context}",
            rows * hidden
        );
    }
    let kernel = report
        .physical
        .queries
        .iter()
        .find(|k| k.name == "y")
        .unwrap();
    assert_eq!(
        kernel.loop_order.last().map(|i| i.name().starts_with('h')),
        Some(true),
        "the hidden units are the innermost loop: {:?}",
        kernel.loop_order
    );
    assert!(
        report.exec.scans.contains(&"y".to_string()),
        "y runs on the scan fast path: {:?}",
        report.exec.scans
    );
    // The dense reference would enumerate every (i,s,p,o,c): check against the network
    // computed directly from each lineitem's rows instead.
    assert_close(&direct_network(&inputs), &out["y"], &context);
}

/// `y[i] = sum_h relu(sum_j X[i,j] W1[j,h]) w2[h]` with `X[i,:]` gathered from the rows each
/// lineitem joins.
fn direct_network(inputs: &HashMap<String, CooTensor>) -> CooTensor {
    let l = &inputs["L"];
    let tables: Vec<(CooTensor, usize)> = ["S", "P", "O", "C"]
        .iter()
        .enumerate()
        .map(|(m, t)| (inputs[*t].clone(), m + 1))
        .collect();
    let w1 = &inputs["W1"];
    let (features, hidden) = (w1.dims()[0], w1.dims()[1]);
    let w1 = w1.to_dense();
    let w2 = inputs["w2"].to_dense();
    let dense: Vec<Vec<f64>> = tables.iter().map(|(t, _)| t.to_dense()).collect();
    let rows = l.dims()[0];
    let mut y = vec![0.0; rows];
    for (key, _) in l.iter() {
        let mut x = vec![0.0; features];
        for ((_, m), d) in tables.iter().zip(&dense) {
            let row = key[*m] as usize;
            for (j, xj) in x.iter_mut().enumerate() {
                *xj += d[row * features + j];
            }
        }
        for h in 0..hidden {
            let z: f64 = (0..features).map(|j| x[j] * w1[j * hidden + h]).sum();
            y[key[0] as usize] += z.max(0.0) * w2[h];
        }
    }
    CooTensor::from_dense(vec![rows], &y).unwrap()
}

/// Every ML program agrees with the brute-force dense evaluation on random star data (sizes,
/// features and weights vary by seed), with the greedy optimizer and the engine's fast paths.
#[test]
fn ml_programs_agree_with_the_reference_on_random_stars() {
    for seed in 0..12u64 {
        let rows = 20 + 13 * seed as usize;
        let hidden = 1 + seed as usize % 5;
        let inputs = star(seed, rows, hidden, 0);
        for file in ["linreg.tp", "logreg.tp", "nn.tp"] {
            assert_ml_program_agrees(file, &inputs, &format!("seed {seed}"));
        }
    }
}

/// With lineitems that join two (supplier, part, order) tuples, `relu` of the hidden layer's
/// sum is not a sum of `relu`s: the fusion must not fire, and the result stays right.
#[test]
fn fusion_needs_one_term_per_lineitem() {
    let inputs = star(7, 60, 4, 25);
    let p = ml_program("nn.tp");
    let stats = InputStats::from_tensors(&inputs);
    let options = LogicalOptions {
        search: Search::Greedy,
        ..Default::default()
    };
    let plan = optimize_tensors(&p, &inputs, &options).unwrap();
    let (fused, n) = fuse_single_terms(&plan, &stats);
    assert_eq!(n, 0, "two tuples per lineitem: nothing to fuse\n{fused}");
    let want = eval_program(&p, &inputs).unwrap();
    let (got, report) = spores_tensor::run(&p, &inputs, &RunOptions::default()).unwrap();
    assert_close(&want["y"], &got["y"], &format!("{}", report.logical));
    // One tuple per lineitem: the same plan fuses and still agrees.
    let single = star(7, 60, 4, 0);
    let plan = optimize_tensors(&p, &single, &options).unwrap();
    let (fused, n) = fuse_single_terms(&plan, &InputStats::from_tensors(&single));
    assert!(
        n >= 1,
        "one tuple per lineitem: the hidden layer fuses\n{plan}"
    );
    let want = eval_program(&p, &single).unwrap();
    let got = eval_logical(&fused, &single).unwrap();
    assert_close(&want["y"], &got["y"], &format!("{fused}"));
}

/// Only zero-keeping maps are crossed: `sigmoid(0) = 0.5`, so logistic regression's
/// `sigmoid(sum(..))` keeps its sum; a hand-written single-term sum under `relu` and `*`
/// fuses, under `+ 1` it does not.
#[test]
fn fusion_crosses_only_zero_keeping_maps() {
    let inputs = star(3, 40, 3, 0);
    let stats = InputStats::from_tensors(&inputs);
    let options = LogicalOptions {
        search: Search::Greedy,
        ..Default::default()
    };
    let logreg = optimize_tensors(&ml_program("logreg.tp"), &inputs, &options).unwrap();
    let (_, n) = fuse_single_terms(&logreg, &stats);
    assert_eq!(n, 0, "sigmoid does not keep zero:\n{logreg}");
    for (src, fuses) in [
        (
            "T[i,h] = sum[s,p,o,c](L[i,s,p,o,c] * S[s,h])\nZ[i] = sum[h](relu(T[i,h]) * theta[h])",
            true,
        ),
        (
            "T[i,h] = sum[s,p,o,c](L[i,s,p,o,c] * S[s,h])\nZ[i] = sum[h](T[i,h] + 1)",
            false,
        ),
    ] {
        let p = spores_tensor::parse::parse_program(&format!("{src}\noutput Z"))
            .unwrap()
            .program;
        let plan = naive_plan(&p).unwrap();
        let (fused, n) = fuse_single_terms(&plan, &stats);
        assert_eq!(n > 0, fuses, "{src}\n{fused}");
        let want = eval_program(&p, &inputs).unwrap();
        let got = eval_logical(&fused, &inputs).unwrap();
        assert_close(&want["Z"], &got["Z"], &format!("{fused}"));
    }
}
