//! ML over the self-join of Galley §8.1 (`bench/tensor/ml/self/`): a data point per pair of
//! line items of the same part. Every program agrees with the brute-force reference on random
//! data; the network's hidden layer is fused into one kernel over the pairs (the two copies of
//! the line items determine every summed key between them); the pairs are written by a join
//! scan in key order, never by a kernel over `|pairs| × hidden` cells.

mod opt_support;

use std::collections::HashMap;

use opt_support::*;
use rand::RngExt;
use spores_tensor::logical::fuse::fuse_single_terms;
use spores_tensor::logical::{optimize_tensors, LogicalOptions, Search};
use spores_tensor::reference::{eval_logical, eval_program};
use spores_tensor::stats::InputStats;
use spores_tensor::{CooTensor, RunOptions};

/// `rows` line items over a few suppliers and parts (random sizes): see [`self_join_sized`].
fn self_join(seed: u64, rows: usize, hidden: usize) -> HashMap<String, CooTensor> {
    let mut r = rng(seed);
    let (suppliers, parts) = (r.random_range(2..7usize), r.random_range(2..9usize));
    self_join_sized(&mut r, rows, (suppliers, parts), hidden)
}

/// `rows` line items, each with one supplier and one part (`L[i,s,p]`, value 1), the
/// suppliers' and parts' features in their own column blocks, and the weights.
fn self_join_sized(
    r: &mut rand_pcg::Pcg64,
    rows: usize,
    (suppliers, parts): (usize, usize),
    hidden: usize,
) -> HashMap<String, CooTensor> {
    let (fs, fp) = (2usize, 3usize);
    let features = fs + fp;
    let mut l = vec![];
    for i in 0..rows {
        let key = vec![
            i as u32,
            r.random_range(0..suppliers as u32),
            r.random_range(0..parts as u32),
        ];
        l.push((key, 1.0));
    }
    let block = |r: &mut rand_pcg::Pcg64, n: usize, from: usize, width: usize| {
        let mut entries = vec![];
        for row in 0..n {
            for j in from..from + width {
                entries.push((vec![row as u32, j as u32], r.random_range(-2.0..2.0)));
            }
        }
        CooTensor::from_entries(vec![n, features], entries, 0.0).unwrap()
    };
    let mut out = HashMap::new();
    out.insert(
        "L".into(),
        CooTensor::from_entries(vec![rows, suppliers, parts], l, 0.0).unwrap(),
    );
    out.insert("S".into(), block(r, suppliers, 0, fs));
    out.insert("P".into(), block(r, parts, fs, fp));
    out.insert("theta".into(), dense_random(r, vec![features]));
    out.insert("W1".into(), dense_random(r, vec![features, hidden]));
    out.insert("w2".into(), dense_random(r, vec![hidden]));
    out
}

fn dense_random(r: &mut rand_pcg::Pcg64, dims: Vec<usize>) -> CooTensor {
    let cells: usize = dims.iter().product();
    let values: Vec<f64> = (0..cells).map(|_| r.random_range(-1.0..1.0)).collect();
    CooTensor::from_dense(dims, &values).unwrap()
}

/// Every self-join program agrees with the brute-force dense evaluation on random data.
#[test]
fn self_join_programs_agree_with_the_reference() {
    for seed in 0..8u64 {
        let rows = 12 + 7 * seed as usize;
        let inputs = self_join(seed, rows, 1 + seed as usize % 4);
        for file in ["linreg.tp", "logreg.tp", "covariance.tp", "nn.tp"] {
            assert_ml_program_agrees(&format!("self/{file}"), &inputs, &format!("seed {seed}"));
        }
    }
}

/// The network's plan: the hidden layer is fused into the kernel over the pairs (no result
/// of `|pairs| × hidden` values is stored), which runs as a join scan writing `y[a,b]` in
/// key order; the result agrees with the pairs enumerated directly.
#[test]
fn network_over_pairs_is_one_join_scan() {
    // TPC-H's ratios: a part per 30 line items, a supplier per 600.
    let rows = 3000;
    let hidden = 6;
    let inputs = self_join_sized(&mut rng(5), rows, (rows / 600, rows / 30), hidden);
    let p = ml_program("self/nn.tp");
    let (out, report) = spores_tensor::run(&p, &inputs, &RunOptions::default()).unwrap();
    let context = format!("{}", report.logical);
    let y = &out["y"];
    let pairs = y.nnz();
    assert!(
        pairs > rows * 20,
        "{pairs} pairs: the test needs many per part"
    );
    for (name, _, stored, _) in &report.exec.kernels {
        assert!(
            *stored <= pairs,
            "kernel {name} stores {stored} values, more than the {pairs} pairs:\n{context}"
        );
    }
    assert!(
        report.exec.scans.contains(&"y".to_string()),
        "y runs on the scan fast path: {:?}\n{context}",
        report.exec.scans
    );
    assert_eq!(
        report.exec.as_cells,
        vec!["y".to_string()],
        "the pairs go to the output as the scan wrote them"
    );
    let kernel = report
        .physical
        .queries
        .iter()
        .find(|k| k.name == "y")
        .unwrap();
    let at = |name: &str| kernel.loop_order.iter().position(|i| i.name() == name);
    assert!(
        at("a") < at("b"),
        "the pairs are written in key order: {:?}",
        kernel.loop_order
    );
    // Direct: for each pair (a, b) of one part, relu(x W1) w2 with x the two suppliers' rows
    // added and the part's row.
    let l = &inputs["L"];
    let s = inputs["S"].to_dense();
    let pt = inputs["P"].to_dense();
    let w1 = inputs["W1"].to_dense();
    let w2 = inputs["w2"].to_dense();
    let features = inputs["W1"].dims()[0];
    let items: Vec<(usize, usize, usize)> = l
        .iter()
        .map(|(c, _)| (c[0] as usize, c[1] as usize, c[2] as usize))
        .collect();
    let mut want = HashMap::new();
    for &(a, s1, p) in &items {
        for &(b, s2, p2) in &items {
            if p != p2 {
                continue;
            }
            let x: Vec<f64> = (0..features)
                .map(|j| s[s1 * features + j] + s[s2 * features + j] + pt[p * features + j])
                .collect();
            let v: f64 = (0..hidden)
                .map(|h| {
                    let z: f64 = (0..features).map(|j| x[j] * w1[j * hidden + h]).sum();
                    z.max(0.0) * w2[h]
                })
                .sum();
            want.insert((a, b), v);
        }
    }
    let mut seen = 0;
    for (c, v) in y.iter() {
        let w = want
            .get(&(c[0] as usize, c[1] as usize))
            .copied()
            .unwrap_or(0.0);
        assert!(close(w, v), "y[{}, {}]: want {w}, got {v}", c[0], c[1]);
        seen += 1;
    }
    let nonzero = want.values().filter(|v| **v != 0.0).count();
    assert_eq!(seen, nonzero, "every pair with a non-zero value is stored");
}

/// The hidden layer fuses only when each line item has one supplier and one part: with a
/// second supplier on some line items, a pair adds several terms and `relu` of their sum is
/// not the sum of their `relu`s.
#[test]
fn fusion_over_pairs_needs_one_key_per_line_item() {
    let p = ml_program("self/nn.tp");
    let options = LogicalOptions {
        search: Search::Greedy,
        ..Default::default()
    };
    let single = self_join(3, 40, 3);
    let plan = optimize_tensors(&p, &single, &options).unwrap();
    let (fused, n) = fuse_single_terms(&plan, &InputStats::from_tensors(&single));
    assert!(
        n >= 1,
        "one key per line item: the hidden layer fuses\n{plan}"
    );
    let want = eval_program(&p, &single).unwrap();
    let got = eval_logical(&fused, &single).unwrap();
    assert_outputs_close(&want, &got, &format!("{fused}"));
    // A second supplier on every fifth line item.
    let mut broken = single.clone();
    let l = &single["L"];
    let suppliers = l.dims()[1] as u32;
    let mut entries: Vec<(Vec<u32>, f64)> = l.iter().map(|(c, v)| (c.to_vec(), v)).collect();
    for (c, _) in l.iter().filter(|(c, _)| c[0] % 5 == 0) {
        entries.push((vec![c[0], (c[1] + 1) % suppliers, c[2]], 1.0));
    }
    broken.insert(
        "L".into(),
        CooTensor::from_entries(l.dims().to_vec(), entries, 0.0).unwrap(),
    );
    let plan = optimize_tensors(&p, &broken, &options).unwrap();
    let (fused, n) = fuse_single_terms(&plan, &InputStats::from_tensors(&broken));
    assert_eq!(
        n, 0,
        "two suppliers on a line item: nothing to fuse\n{fused}"
    );
    let want = eval_program(&p, &broken).unwrap();
    let (got, report) = spores_tensor::run(&p, &broken, &RunOptions::default()).unwrap();
    assert_outputs_close(&want, &got, &format!("{}", report.logical));
}

/// Logistic regression's scores over the pairs are an intermediate read only by `sigmoid`
/// in their own order: they are written in that order too (the line item `a` before its
/// partner `b`, the join scan's key order), and the map runs on the join's cells as they
/// were written (fused: the scores are never stored in levels).
#[test]
fn scores_read_by_a_map_are_written_in_its_order() {
    let rows = 3000;
    let inputs = self_join_sized(&mut rng(8), rows, (rows / 600, rows / 30), 2);
    let p = ml_program("self/logreg.tp");
    let (out, report) = spores_tensor::run(&p, &inputs, &RunOptions::default()).unwrap();
    let over_pairs = report
        .physical
        .queries
        .iter()
        .find(|k| k.name != "y" && k.output_idxs.len() == 2)
        .unwrap_or_else(|| panic!("a kernel over the pairs:\n{}", report.logical));
    let at = |name: &str| over_pairs.loop_order.iter().position(|i| i.name() == name);
    assert!(at("a") < at("b"), "{:?}", over_pairs.loop_order);
    assert!(
        report.exec.scans.contains(&over_pairs.name)
            && report.exec.scans.contains(&"y".to_string()),
        "{:?}",
        report.exec.scans
    );
    assert_eq!(
        (report.exec.fused.clone(), report.exec.as_cells.clone()),
        (
            vec![(over_pairs.name.clone(), "y".to_string())],
            vec!["y".to_string()]
        )
    );
    assert_eq!(out["y"].fill(), 0.5);
    // Every stored score is sigmoid of its pair's features times theta; the others are 0.5.
    let y = &out["y"];
    let (l, s, pt, theta) = (
        &inputs["L"],
        inputs["S"].to_dense(),
        inputs["P"].to_dense(),
        inputs["theta"].to_dense(),
    );
    let features = theta.len();
    let items: Vec<(u32, usize, usize)> = l
        .iter()
        .map(|(c, _)| (c[0], c[1] as usize, c[2] as usize))
        .collect();
    let mut part_of = HashMap::new();
    for &(a, s1, p) in &items {
        part_of.insert(a, (s1, p));
    }
    let mut pairs = 0;
    for (c, v) in y.iter() {
        let ((s1, p), (s2, p2)) = (part_of[&c[0]], part_of[&c[1]]);
        assert_eq!(p, p2, "y[{}, {}] pairs items of two parts", c[0], c[1]);
        let z: f64 = (0..features)
            .map(|j| {
                (s[s1 * features + j] + s[s2 * features + j] + pt[p * features + j]) * theta[j]
            })
            .sum();
        assert!(close(1.0 / (1.0 + (-z).exp()), v), "y[{}, {}]", c[0], c[1]);
        pairs += 1;
    }
    let mut per_part = HashMap::new();
    for &(_, _, p) in &items {
        *per_part.entry(p).or_insert(0usize) += 1;
    }
    assert_eq!(pairs, per_part.values().map(|n| n * n).sum::<usize>());
    assert_eq!(y.fill(), 0.5);
}
