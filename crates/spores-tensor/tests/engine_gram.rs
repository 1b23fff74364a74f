//! The covariance kernels' fast paths agree with the loop interpreter: the Gram product
//! `sum[i](X[..i..] * X[..i..])` read in place from a dense fibertree (both layouts, both
//! output orders, odd sizes, non-finite values falling back), the scan's band copies of
//! block-column dimension tables, and the fact-table walk over single-child levels.

mod opt_support;

use std::collections::HashMap;

use opt_support::*;
use rand::RngExt;
use spores_tensor::engine::{execute_query, fastpath::matrix_product, scan::scan, FiberTensor};
use spores_tensor::parse::parse_program;
use spores_tensor::plan_ast::{LevelFormat, PhysExpr};
use spores_tensor::CooTensor;

use LevelFormat::{Bytemap, Dense, Hash, SortedList};

fn assert_close(fast: &FiberTensor, slow: &FiberTensor, context: &str) {
    let (a, b) = (fast.to_coo().unwrap(), slow.to_coo().unwrap());
    assert_eq!(a.dims(), b.dims(), "{context}");
    for (k, (x, y)) in a.to_dense().iter().zip(b.to_dense()).enumerate() {
        let ok = x == &y
            || (x.is_nan() && y.is_nan())
            || (x - y).abs() <= 1e-9 * (1.0 + x.abs().max(y.abs()));
        assert!(ok, "{context}: cell {k}: fast {x}, interpreter {y}");
    }
}

fn dense(r: &mut rand_pcg::Pcg64, dims: &[usize]) -> FiberTensor {
    let cells: usize = dims.iter().product();
    let vals = (0..cells).map(|_| r.random_range(-2.0..2.0)).collect();
    FiberTensor::dense(dims, vals, 0.0)
}

#[test]
fn gram_products_read_x_in_place_in_both_layouts() {
    let mut r = rng(5);
    for (n, d) in [(1, 1), (3, 2), (17, 3), (257, 5), (1029, 20), (3001, 7)] {
        // X[i,j] (observation-major) and X[j,i] (feature-major, as the covariance plan
        // stores it).
        for (src_layout, dims, loops) in [
            ("X[i,j] * X[i,k]", [n, d], ["i", "j", "k"]),
            ("X[j,i] * X[k,i]", [d, n], ["j", "k", "i"]),
        ] {
            let x = dense(&mut r, &dims);
            let ins: HashMap<String, FiberTensor> = [("X".to_string(), x)].into();
            let lookup = |name: &str, _: bool| ins.get(name);
            for out in ["G[j,k]", "G[k,j]"] {
                for formats in [[Dense, Dense], [Dense, SortedList]] {
                    let src = format!("{out} = sum[i]({src_layout})");
                    let q = kernel(&src, &loops, Some("X"), &formats);
                    let context = format!("{src} n={n} d={d} {formats:?}");
                    let fast = matrix_product(&q, &lookup)
                        .unwrap_or_else(|| panic!("{context}: fast path not taken"))
                        .unwrap();
                    assert_eq!(fast.formats(), formats.to_vec(), "{context}");
                    let slow = execute_query(&q, &lookup).unwrap();
                    assert_close(&fast, &slow, &context);
                }
            }
        }
    }
}

#[test]
fn gram_with_a_non_finite_value_is_left_to_the_interpreter() {
    let mut r = rng(6);
    for bad in [f64::INFINITY, f64::NAN] {
        let mut x = dense(&mut r, &[40, 3]);
        x.vals[7] = bad; // X[2,1]
        x.vals[8] = 0.0; // X[2,2]: 0 * inf is 0 for the engine, NaN for BLAS
        let ins: HashMap<String, FiberTensor> = [("X".to_string(), x)].into();
        let lookup = |name: &str, _: bool| ins.get(name);
        let q = kernel(
            "G[j,k] = sum[i](X[i,j] * X[i,k])",
            &["j", "k", "i"],
            Some("X"),
            &[Dense, Dense],
        );
        assert!(matrix_product(&q, &lookup).is_none(), "{bad}");
    }
}

/// A fact table with one entry per row id `i` (or, with `extra`, some ids repeated with
/// other keys) over two dimension tables.
fn fact(r: &mut rand_pcg::Pcg64, n: usize, na: usize, nb: usize, extra: bool) -> CooTensor {
    let mut e = vec![];
    for i in 0..n as u32 {
        let copies = if extra && i % 3 == 0 { 2 } else { 1 };
        for _ in 0..copies {
            let key = vec![
                i,
                r.random_range(0..na as u32),
                r.random_range(0..nb as u32),
            ];
            e.push((key, r.random_range(0.5..1.5)));
        }
    }
    // Duplicated keys (same i, a, b drawn twice) are summed by from_entries' contract or
    // rejected; keep the first of each.
    e.sort_by(|x, y| x.0.cmp(&y.0));
    e.dedup_by(|x, y| x.0 == y.0);
    CooTensor::from_entries(vec![n, na, nb], e, 0.0).unwrap()
}

/// A dimension table stored as a block `lo..lo+w` of `width` feature columns, with some
/// rows missing and some cells of the block unset.
fn block(r: &mut rand_pcg::Pcg64, rows: usize, width: usize, lo: usize, w: usize) -> CooTensor {
    let mut e = vec![];
    for i in 0..rows as u32 {
        if r.random::<f64>() < 0.1 {
            continue;
        }
        for j in lo..lo + w {
            if r.random::<f64>() < 0.9 {
                e.push((vec![i, j as u32], r.random_range(-2.0..2.0)));
            }
        }
    }
    CooTensor::from_entries(vec![rows, width], e, 0.0).unwrap()
}

#[test]
fn block_column_tables_are_read_through_band_copies() {
    let mut r = rng(11);
    let (n, na, nb, width) = (700, 13, 29, 9);
    for extra in [false, true] {
        let l = fact(&mut r, n, na, nb, extra);
        let a = block(&mut r, na, width, 0, 4);
        let b = block(&mut r, nb, width, 4, 5);
        for f in [SortedList, Hash, Bytemap] {
            for out in [[Dense, Dense], [SortedList, SortedList]] {
                let mut ins = HashMap::new();
                ins.insert(
                    "L".to_string(),
                    FiberTensor::from_coo(&l, &[Dense, SortedList, SortedList]),
                );
                ins.insert("A".to_string(), FiberTensor::from_coo(&a, &[Dense, f]));
                ins.insert("B".to_string(), FiberTensor::from_coo(&b, &[Dense, f]));
                let lookup = |name: &str, _: bool| ins.get(name);
                for (src, loops) in [
                    (
                        "X[i,j] = sum[a,b](L[i,a,b] * (A[a,j] + B[b,j]))",
                        ["i", "a", "b", "j"],
                    ),
                    (
                        "X[j,i] = sum[a,b](L[i,a,b] * (A[a,j] + B[b,j]))",
                        ["i", "a", "b", "j"],
                    ),
                ] {
                    let q = kernel(src, &loops, Some("L"), &out);
                    let context = format!("{src} extra={extra} {f:?} {out:?}");
                    let fast = scan(&q, &lookup)
                        .unwrap_or_else(|| panic!("{context}: scan not taken"))
                        .unwrap();
                    let slow = execute_query(&q, &lookup).unwrap();
                    assert_close(&fast, &slow, &context);
                }
            }
        }
    }
}

#[test]
fn walks_over_single_child_levels_visit_every_entry_in_order() {
    let mut r = rng(12);
    for extra in [false, true] {
        let l = fact(&mut r, 300, 7, 11, extra);
        for formats in [
            [Dense, SortedList, SortedList],
            [SortedList, SortedList, Hash],
            [Dense, Hash, SortedList],
            [Dense, SortedList, Dense],
        ] {
            let t = FiberTensor::from_coo(&l, &formats);
            let back = t.to_coo().unwrap();
            assert_eq!(back, l, "extra={extra} {formats:?}");
        }
    }
}

/// Marks the accesses to `name` as reads of an earlier kernel's result.
fn as_alias(e: &mut PhysExpr, name: &str) {
    match e {
        PhysExpr::Access(a) => a.is_alias |= a.name == name,
        PhysExpr::Literal(_) => {}
        PhysExpr::Map { args, .. } => args.iter_mut().for_each(|a| as_alias(a, name)),
    }
}

/// The covariance plan over a random star, `X` built by a scan (in both layouts) and read
/// once by the Gram kernel: the two kernels run fused (`X` never stored) and agree with the
/// brute-force reference. With `X` also a program output, or read by another kernel, they
/// run unfused, with the same results.
#[test]
fn covariance_fuses_x_into_its_gram_and_agrees_with_the_reference() {
    use spores_tensor::engine::execute_plan;
    use spores_tensor::plan_ast::PhysicalPlan;
    use spores_tensor::reference::eval_program;
    let mut r = rng(21);
    let (n, na, nb, width) = (600, 17, 31, 7);
    for extra in [false, true] {
        let mut ins: HashMap<String, CooTensor> = HashMap::new();
        ins.insert("L".into(), fact(&mut r, n, na, nb, extra));
        ins.insert("A".into(), block(&mut r, na, width, 0, 3));
        ins.insert("B".into(), block(&mut r, nb, width, 3, 4));
        for (x_out, g_src, g_loops) in [
            (
                "X[i,j]",
                "G[j,k] = sum[i](X[i,j] * X[i,k])",
                ["i", "j", "k"],
            ),
            (
                "X[j,i]",
                "G[k,j] = sum[i](X[j,i] * X[k,i])",
                ["j", "k", "i"],
            ),
        ] {
            let x_src = format!("{x_out} = sum[a,b](L[i,a,b] * (A[a,j] + B[b,j]))");
            let x = kernel(&x_src, &["i", "a", "b", "j"], Some("L"), &[Dense, Dense]);
            let mut g = kernel(g_src, &g_loops, Some("X"), &[Dense, Dense]);
            as_alias(&mut g.body, "X");
            let mut s = kernel("s[j] = sum[i](X[i,j])", &["i", "j"], Some("X"), &[Dense]);
            if x_out == "X[j,i]" {
                s = kernel("s[j] = sum[i](X[j,i])", &["j", "i"], Some("X"), &[Dense]);
            }
            as_alias(&mut s.body, "X");
            let program = parse_program(&format!("{x_src}\n{g_src}\noutput G\noutput X"))
                .unwrap()
                .program;
            let want = eval_program(&program, &ins).unwrap();
            for (outputs, with_s, fused) in [
                (vec!["G"], false, true),
                (vec!["G", "X"], false, false),
                (vec!["G"], true, false),
            ] {
                let mut queries = vec![x.clone(), g.clone()];
                if with_s {
                    queries.push(s.clone());
                }
                let plan = PhysicalPlan {
                    queries,
                    outputs: outputs
                        .iter()
                        .map(|o| (o.to_string(), o.to_string()))
                        .collect(),
                };
                let (got, report) = execute_plan(&plan, &ins).unwrap();
                let context = format!("extra={extra} {x_out} {outputs:?} s={with_s}");
                assert_eq!(!report.fused.is_empty(), fused, "{context}: {report:?}");
                for name in outputs {
                    let (a, b) = (got[name].to_dense(), want[name].to_dense());
                    assert_eq!(a.len(), b.len(), "{context}");
                    for (p, q) in a.iter().zip(&b) {
                        assert!(
                            (p - q).abs() <= 1e-9 * (1.0 + q.abs()),
                            "{context}: {name}: {p} vs {q}"
                        );
                    }
                }
            }
        }
    }
}

/// A fact table large enough for the fused scan to split its first level across workers
/// (when the pool has several): the fused Gram equals the unfused kernels' (X stored, then
/// the in-place Gram product).
#[test]
fn fused_gram_over_a_large_fact_table_equals_the_unfused_kernels() {
    use spores_tensor::engine::execute_plan;
    use spores_tensor::plan_ast::PhysicalPlan;
    let mut r = rng(31);
    let (n, na, nb, width) = (70_001, 40, 300, 9);
    let mut ins: HashMap<String, CooTensor> = HashMap::new();
    ins.insert("L".into(), fact(&mut r, n, na, nb, true));
    ins.insert("A".into(), block(&mut r, na, width, 0, 4));
    ins.insert("B".into(), block(&mut r, nb, width, 4, 5));
    let x = kernel(
        "X[j,i] = sum[a,b](L[i,a,b] * (A[a,j] + B[b,j]))",
        &["i", "a", "b", "j"],
        Some("L"),
        &[Dense, Dense],
    );
    let mut g = kernel(
        "G[j,k] = sum[i](X[j,i] * X[k,i])",
        &["j", "k", "i"],
        Some("X"),
        &[Dense, Dense],
    );
    as_alias(&mut g.body, "X");
    let run = |outputs: &[&str]| {
        let plan = PhysicalPlan {
            queries: vec![x.clone(), g.clone()],
            outputs: outputs
                .iter()
                .map(|o| (o.to_string(), o.to_string()))
                .collect(),
        };
        execute_plan(&plan, &ins).unwrap()
    };
    let (fused, report) = run(&["G"]);
    assert!(!report.fused.is_empty());
    let (unfused, report) = run(&["G", "X"]);
    assert!(report.fused.is_empty());
    let (a, b) = (fused["G"].to_dense(), unfused["G"].to_dense());
    for (p, q) in a.iter().zip(&b) {
        assert!((p - q).abs() <= 1e-9 * (1.0 + q.abs()), "{p} vs {q}");
    }
}
