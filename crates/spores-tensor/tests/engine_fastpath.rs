//! Matrix products take the spores-exec fast path, in every mode order, and agree with the
//! reference.

use std::collections::HashMap;

use spores_tensor::engine::execute_plan;
use spores_tensor::logical::naive_plan;
use spores_tensor::parse::parse_program;
use spores_tensor::physical::naive_physical;
use spores_tensor::reference::eval_program;
use spores_tensor::CooTensor;

fn matrix(rows: usize, cols: usize, density: f64, seed: u64) -> CooTensor {
    use rand::{RngExt, SeedableRng};
    let mut rng = rand_pcg::Pcg64::seed_from_u64(seed);
    let mut e = vec![];
    for i in 0..rows {
        for j in 0..cols {
            if rng.random::<f64>() < density {
                e.push((vec![i as u32, j as u32], rng.random::<f64>() - 0.5));
            }
        }
    }
    CooTensor::from_entries(vec![rows, cols], e, 0.0).unwrap()
}

#[test]
fn matrix_products_use_the_fast_path_and_agree() {
    for density in [1.0, 0.1] {
        let mut ins: HashMap<String, CooTensor> = HashMap::new();
        ins.insert("A".into(), matrix(7, 5, density, 1));
        ins.insert("B".into(), matrix(5, 6, density, 2));
        let x = matrix(5, 1, 1.0, 3);
        ins.insert(
            "x".into(),
            CooTensor::from_entries(
                vec![5],
                x.iter().map(|(c, v)| (vec![c[0]], v)).collect(),
                0.0,
            )
            .unwrap(),
        );
        for src in [
            "C[i,k] = sum[j](A[i,j] * B[j,k])",
            "C[k,i] = sum[j](A[i,j] * B[j,k])",
            "G[j,k] = sum[i](A[i,j] * A[i,k])",
            "y[i] = sum[j](A[i,j] * x[j])",
            "y[i] = sum[j](x[j] * A[i,j])",
        ] {
            let p = parse_program(src).unwrap().program;
            let plan = naive_physical(&naive_plan(&p).unwrap(), &|n: &str| {
                ins.get(n).map(|t| t.dims().to_vec())
            })
            .unwrap();
            let (got, report) = execute_plan(&plan, &ins).unwrap();
            let want = eval_program(&p, &ins).unwrap();
            let name = &p.outputs[0];
            assert!(
                report.fast_paths.contains(name),
                "{src} at density {density}: {:?}",
                report.fast_paths
            );
            for (g, w) in got[name].to_dense().iter().zip(want[name].to_dense()) {
                assert!(
                    (g - w).abs() <= 1e-12 * w.abs().max(1.0),
                    "{src}: {g} vs {w}"
                );
            }
        }
    }
}

/// Sums over a sparse matrix weighted by dense vectors (degree vectors, SpMV and its
/// transpose, a bilinear form: what a path count reduces through), and BFS levels (`any`
/// over a sparse frontier's rows, times `1 - visited`), run as one pass over the matrix's
/// rows and agree with the reference, zeros and infinities in the vectors included; the
/// larger matrix (160 thousand entries) is split across the workers.
#[test]
fn weighted_sums_over_a_sparse_matrix_take_one_pass_and_agree() {
    for (rows, cols, density) in [(40, 30, 0.15), (2000, 1000, 0.08)] {
        weighted_sums_agree(matrix(rows, cols, density, 4));
    }
}

fn weighted_sums_agree(a: CooTensor) {
    let (rows, cols) = (a.dims()[0], a.dims()[1]);
    let vector = |n: usize, seed: u64, special: &[(usize, f64)]| {
        let m = matrix(n, 1, 1.0, seed);
        let mut e: Vec<(Vec<u32>, f64)> = m.iter().map(|(c, v)| (vec![c[0]], v)).collect();
        for &(at, v) in special {
            e[at].1 = v;
        }
        CooTensor::from_entries(vec![n], e, 0.0).unwrap()
    };
    let mut ins: HashMap<String, CooTensor> = HashMap::new();
    ins.insert("A".into(), a);
    ins.insert("u".into(), vector(rows, 5, &[(3, 0.0), (7, f64::INFINITY)]));
    ins.insert("w".into(), vector(cols, 6, &[(2, 0.0)]));
    // A frontier: a few rows, stored sparse, the pass's only rows.
    let frontier = (0..rows)
        .step_by(17)
        .map(|r| (vec![r as u32], 1.0 + r as f64))
        .collect();
    ins.insert(
        "f".into(),
        CooTensor::from_entries(vec![rows], frontier, 0.0).unwrap(),
    );
    // A visited set: 0/1 over the columns.
    let visited = (0..cols)
        .map(|c| (vec![c as u32], f64::from(c % 3 == 0)))
        .collect();
    ins.insert(
        "v".into(),
        CooTensor::from_entries(vec![cols], visited, 0.0).unwrap(),
    );
    // Tiny weights: their products underflow to 0, which `any` must see.
    let tiny = |n: usize| {
        let e = (0..n).map(|k| (vec![k as u32], 1e-200)).collect();
        CooTensor::from_entries(vec![n], e, 0.0).unwrap()
    };
    ins.insert("s".into(), tiny(rows));
    ins.insert("t".into(), tiny(cols));
    for src in [
        "y[j] = sum[i](A[i,j])",
        "y[i] = sum[j](A[i,j])",
        "y[j] = sum[i](u[i] * A[i,j])",
        "y[i] = sum[j](u[i] * A[i,j] * w[j])",
        "s = sum[i,j](u[i] * A[i,j] * w[j])",
        // A BFS level: `any`, a pointwise factor of a vector, a sparse frontier.
        "y[j] = any[i](f[i] * A[i,j] * (1 - v[j]))",
        "y[j] = any[i](u[i] * A[i,j] * (1 - v[j]))",
        "y[j] = sum[i](f[i] * A[i,j] * (w[j] * w[j] + 1))",
        "y[i] = sum[j](A[i,j] * max(w[j], 0) * u[i])",
        "s = any[i,j](f[i] * A[i,j] * (1 - v[j]))",
        "y[j] = any[i](s[i] * A[i,j] * t[j])",
        "y[j] = any[i](s[i] * A[i,j] * (1 - v[j]))",
    ] {
        let p = parse_program(src).unwrap().program;
        let (got, report) = spores_tensor::run(&p, &ins, &Default::default()).unwrap();
        let want = eval_program(&p, &ins).unwrap();
        let name = &p.outputs[0];
        assert!(
            report.exec.fast_paths.contains(name),
            "{src}: {:?}\n{}",
            report.exec.fast_paths,
            spores_tensor::driver::explain_physical(&report.physical)
        );
        let (g, w) = (got[name].to_dense(), want[name].to_dense());
        assert_eq!(g.len(), w.len(), "{src}");
        for (g, w) in g.iter().zip(w) {
            let same =
                (g.is_nan() && w.is_nan()) || g == &w || (g - w).abs() <= 1e-9 * w.abs().max(1.0);
            assert!(same, "{rows}x{cols} {src}: {g} vs {w}");
        }
    }
}
