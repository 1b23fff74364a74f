//! The scan fast path's batched evaluation agrees with the loop interpreter on kernels of the
//! shapes it takes: a sparse leader with inner dense loops (one, two, longer than a batch),
//! dense and sparse followers, zero-keeping and other maps, outputs over inner loops,
//! all-dense kernels with and without aggregates, and a second sparse access joined on the
//! leader's key (a self-join), with dense and sparse outputs, in and out of key order.

mod opt_support;

use std::collections::HashMap;

use opt_support::*;
use rand::RngExt;
use spores_tensor::engine::scan::{join_cells, map_stored, scan};
use spores_tensor::engine::{execute_query, FiberTensor};
use spores_tensor::plan_ast::{LevelFormat, PhysicalQuery};
use spores_tensor::CooTensor;

/// Runs `q` on the scan path (which must take it) and on the interpreter; compares.
fn agree(q: &PhysicalQuery, inputs: &HashMap<String, FiberTensor>, context: &str) {
    let lookup = |n: &str, _: bool| inputs.get(n);
    let fast = scan(q, &lookup)
        .unwrap_or_else(|| panic!("{context}: the scan path should take this kernel"))
        .unwrap();
    let slow = execute_query(q, &lookup).unwrap();
    let (a, b) = (fast.to_coo().unwrap(), slow.to_coo().unwrap());
    assert_eq!(a.dims(), b.dims(), "{context}");
    for (k, (x, y)) in a.to_dense().iter().zip(b.to_dense()).enumerate() {
        let ok = x == &y || (x - y).abs() <= 1e-9 * (1.0 + x.abs().max(y.abs()));
        assert!(ok, "{context}: cell {k}: scan {x}, interpreter {y}");
    }
}

/// [`agree`] for a join scan whose result is listed as cells: handed to an output as they
/// were written ([`join_cells`]), they are the scan's result cell for cell.
fn agree_as_cells(q: &PhysicalQuery, inputs: &HashMap<String, FiberTensor>, context: &str) {
    agree(q, inputs, context);
    let lookup = |n: &str, _: bool| inputs.get(n);
    let cells = join_cells(q, &lookup)
        .unwrap_or_else(|| panic!("{context}: a join scan's result is listed as cells"))
        .unwrap();
    let tree = scan(q, &lookup).unwrap().unwrap().to_coo().unwrap();
    assert_eq!(cells, tree, "{context}");
}

fn fiber(t: &CooTensor, formats: &[LevelFormat]) -> FiberTensor {
    FiberTensor::from_coo(t, formats)
}

/// A random tensor (values in [-2, 2), fill 0) stored in `formats`.
fn random_fiber(
    r: &mut rand_pcg::Pcg64,
    dims: &[usize],
    density: f64,
    formats: &[LevelFormat],
) -> FiberTensor {
    fiber(&random_tensor(r, dims, density, 0.0, uniform_pm2), formats)
}

use LevelFormat::{Dense, SortedList};

/// Values in [-2, 2).
fn uniform_pm2(r: &mut rand_pcg::Pcg64) -> f64 {
    r.random_range(-2.0..2.0)
}

/// The network's kernel: a sparse leader over (i, s, p), the hidden units `h` as inner loop
/// with `relu`, dense row lookups, for inner loops shorter and longer than one batch.
#[test]
fn leader_with_an_inner_loop_and_relu() {
    for (seed, hidden) in [(1u64, 1usize), (2, 8), (3, 37), (4, 1500)] {
        let mut r = rng(seed);
        let (n, ns, np) = (300, 7, 11);
        let mut l = vec![];
        for i in 0..n {
            if r.random::<f64>() < 0.8 {
                let key = vec![
                    i as u32,
                    r.random_range(0..ns as u32),
                    r.random_range(0..np as u32),
                ];
                l.push((key, r.random_range(0.5..1.5)));
            }
        }
        let l = CooTensor::from_entries(vec![n, ns, np], l, 0.0).unwrap();
        let mut ins = HashMap::new();
        ins.insert("L".to_string(), fiber(&l, &[Dense, SortedList, SortedList]));
        ins.insert(
            "A".to_string(),
            random_fiber(&mut r, &[ns, hidden], 1.0, &[Dense, Dense]),
        );
        ins.insert(
            "B".to_string(),
            random_fiber(&mut r, &[np, hidden], 1.0, &[Dense, Dense]),
        );
        ins.insert(
            "w".to_string(),
            random_fiber(&mut r, &[hidden], 0.7, &[Dense]),
        );
        let q = kernel(
            "y[i] = sum[s,p,h](relu(L[i,s,p] * (A[s,h] + B[p,h])) * w[h])",
            &["i", "s", "p", "h"],
            Some("L"),
            &[Dense],
        );
        agree(&q, &ins, &format!("hidden {hidden}"));
        // The hidden layer itself, stored per (i, h): the output runs over the inner loop.
        let q = kernel(
            "H[i,h] = sum[s,p](L[i,s,p] * (A[s,h] - B[p,h]))",
            &["i", "s", "p", "h"],
            Some("L"),
            &[Dense, Dense],
        );
        agree(&q, &ins, &format!("H, hidden {hidden}"));
    }
}

/// Sparse followers whose last mode is the single inner loop (rows scattered once per entry),
/// in every sparse format of that level and with missing rows.
#[test]
fn sparse_rows_over_the_inner_loop() {
    let mut r = rng(13);
    let (n, a, j) = (200, 9, 30);
    let l = random_tensor(&mut r, &[n, a], 0.2, 0.0, uniform_pm2);
    let table = random_tensor(&mut r, &[a, j], 0.3, 0.0, uniform_pm2);
    let vector = random_tensor(&mut r, &[j], 0.5, 0.0, uniform_pm2);
    for f in [SortedList, LevelFormat::Hash, LevelFormat::Bytemap, Dense] {
        for top in [Dense, SortedList] {
            let mut ins = HashMap::new();
            ins.insert("L".to_string(), fiber(&l, &[SortedList, SortedList]));
            ins.insert("T".to_string(), fiber(&table, &[top, f]));
            ins.insert("v".to_string(), fiber(&vector, &[f]));
            let q = kernel(
                "X[i,j] = sum[s](L[i,s] * (T[s,j] + v[j]))",
                &["i", "s", "j"],
                Some("L"),
                &[Dense, Dense],
            );
            agree(&q, &ins, &format!("rows {top:?}/{f:?}"));
        }
    }
}

/// Two inner loops (an odometer over both), a sparse follower looked up level by level, a
/// maximum, and a hashed output.
#[test]
fn two_inner_loops_sparse_followers_and_other_aggregates() {
    let mut r = rng(9);
    let (n, a, b, c) = (120, 5, 6, 4);
    let l = random_tensor(&mut r, &[n, a], 0.3, 0.0, uniform_pm2);
    let mut ins = HashMap::new();
    ins.insert("L".to_string(), fiber(&l, &[SortedList, SortedList]));
    ins.insert(
        "D".to_string(),
        random_fiber(&mut r, &[a, b, c], 1.0, &[Dense, Dense, Dense]),
    );
    ins.insert(
        "E".to_string(),
        random_fiber(&mut r, &[b, c], 0.4, &[Dense, SortedList]),
    );
    let q = kernel(
        "Z[i,k] = sum[s,j](L[i,s] * D[s,j,k] * (E[j,k] + 2))",
        &["i", "s", "j", "k"],
        Some("L"),
        &[LevelFormat::Hash, Dense],
    );
    agree(&q, &ins, "two inner loops, sparse follower");
    let q = kernel(
        "Z[i,j] = max[s,k](L[i,s] * exp(D[s,j,k]))",
        &["i", "s", "j", "k"],
        Some("L"),
        &[SortedList, Dense],
    );
    // max over a leader skips fills: only sums are taken with a leader.
    let lookup = |n: &str, _: bool| ins.get(n);
    assert!(
        scan(&q, &lookup).is_none(),
        "a max over a sparse leader stays with the interpreter"
    );
}

/// All-dense kernels: longer than a batch (the outer loops stand in for a leader), pointwise
/// and aggregated, with operators the batch evaluates generically.
#[test]
fn all_dense_kernels() {
    let mut r = rng(5);
    let mut ins = HashMap::new();
    ins.insert(
        "v".to_string(),
        random_fiber(&mut r, &[5000], 1.0, &[Dense]),
    );
    ins.insert(
        "M".to_string(),
        random_fiber(&mut r, &[300, 70], 1.0, &[Dense, Dense]),
    );
    ins.insert("u".to_string(), random_fiber(&mut r, &[70], 1.0, &[Dense]));
    for (src, loops, formats) in [
        ("y[i] = sigmoid(v[i])", vec!["i"], vec![Dense]),
        (
            "y[i] = (v[i] > 0) * sqrt(abs(v[i])) - v[i] / 3",
            vec!["i"],
            vec![Dense],
        ),
        ("y[i] = max[j](M[i,j] * u[j])", vec!["i", "j"], vec![Dense]),
        (
            "y[i] = sum[j](min(M[i,j], u[j]) ^ 2)",
            vec!["i", "j"],
            vec![Dense],
        ),
        (
            "Z[i,j] = M[i,j] * u[j] + 1",
            vec!["i", "j"],
            vec![Dense, Dense],
        ),
    ] {
        let q = kernel(src, &loops, None, &formats);
        agree(&q, &ins, src);
    }
}

/// `q` with the accesses to `name` iterating the modes `iterate` says (a join's second
/// access walks the modes its leader does not bind).
fn iterating(mut q: PhysicalQuery, name: &str, iterate: &[bool]) -> PhysicalQuery {
    fn visit(e: &mut spores_tensor::plan_ast::PhysExpr, name: &str, iterate: &[bool]) {
        use spores_tensor::plan_ast::{PhysExpr, Protocol};
        match e {
            PhysExpr::Access(a) if a.name == name => {
                a.protocols = iterate
                    .iter()
                    .map(|&i| {
                        if i {
                            Protocol::Iterate
                        } else {
                            Protocol::Lookup
                        }
                    })
                    .collect();
            }
            PhysExpr::Map { args, .. } => args.iter_mut().for_each(|a| visit(a, name, iterate)),
            _ => {}
        }
    }
    visit(&mut q.body, name, iterate);
    q
}

/// Line items with one supplier and one part each (`L[i,s,p]`, a few left out), and the
/// same tensor stored part-first (`T[p,i,s]`), as a self-join on the part reads it.
fn line_items(
    r: &mut rand_pcg::Pcg64,
    n: usize,
    suppliers: usize,
    parts: usize,
) -> (CooTensor, CooTensor) {
    let mut l = vec![];
    let mut t = vec![];
    for i in 0..n {
        if r.random::<f64>() < 0.9 {
            let (s, p) = (r.random_range(0..suppliers), r.random_range(0..parts));
            let v = if r.random::<f64>() < 0.8 {
                1.0
            } else {
                r.random_range(0.5..2.0)
            };
            l.push((vec![i as u32, s as u32, p as u32], v));
            t.push((vec![p as u32, i as u32, s as u32], v));
        }
    }
    (
        CooTensor::from_entries(vec![n, suppliers, parts], l, 0.0).unwrap(),
        CooTensor::from_entries(vec![parts, n, suppliers], t, 0.0).unwrap(),
    )
}

/// The self-join of Galley's §8.1, `y[a,b] = sum[p,s1,s2](L[a,s1,p] * T[p,b,s2] * ..)`:
/// the second copy walked under the part of each line item, with its levels compressed (read
/// as ranges) or not (walked), an inner dense loop (the network's hidden units), an output
/// small enough to be dense and one that is not (pairs of line items, in key order), and
/// loops that write the pairs out of key order (sorted once).
#[test]
fn a_second_access_joined_on_the_leaders_key() {
    let mut r = rng(21);
    let (ns, np, hidden) = (6, 9, 5);
    for (n, seed) in [(150usize, 1u64), (1200, 2)] {
        let mut r2 = rng(seed);
        let (l, t) = line_items(&mut r2, n, ns, np);
        let u = random_tensor(&mut r, &[ns], 1.0, 0.0, uniform_pm2);
        let w = random_tensor(&mut r, &[np], 1.0, 0.0, uniform_pm2);
        let a = random_tensor(&mut r, &[ns, hidden], 1.0, 0.0, uniform_pm2);
        let c = random_tensor(&mut r, &[np, hidden], 1.0, 0.0, uniform_pm2);
        let v = random_tensor(&mut r, &[hidden], 1.0, 0.0, uniform_pm2);
        // The second copy also storing its fill at some entries: those pairs write no cell.
        let mut zeroed = vec![];
        for (k, (c, v)) in t.iter().enumerate() {
            zeroed.push((c.to_vec(), if k % 5 == 0 { 0.0 } else { v }));
        }
        let t0 = CooTensor::from_entries(vec![np, n, ns], zeroed, 0.0).unwrap();
        for (t, t_formats) in [
            (&t, [Dense, SortedList, SortedList]),
            (&t, [Dense, Dense, SortedList]),
            (&t0, [Dense, SortedList, SortedList]),
        ] {
            let mut ins = HashMap::new();
            ins.insert("L".to_string(), fiber(&l, &[Dense, SortedList, SortedList]));
            ins.insert("T".to_string(), fiber(t, &t_formats));
            ins.insert("u".to_string(), fiber(&u, &[Dense]));
            ins.insert("w".to_string(), fiber(&w, &[Dense]));
            ins.insert("A".to_string(), fiber(&a, &[Dense, Dense]));
            ins.insert("C".to_string(), fiber(&c, &[Dense, Dense]));
            ins.insert("v".to_string(), fiber(&v, &[Dense]));
            let zeros = ins["T"].vals.iter().filter(|&&v| v == 0.0).count();
            assert_eq!(
                zeros > 0,
                std::ptr::eq(t, &t0),
                "T stores its zeros as given"
            );
            let context = format!("{n} line items, T {t_formats:?} storing {zeros} zeros");
            let q = kernel(
                "y[a,b] = sum[p,s1,s2](L[a,s1,p] * T[p,b,s2] * (u[s1] + u[s2] + w[p]))",
                &["a", "s1", "p", "b", "s2"],
                Some("L"),
                &[Dense, SortedList],
            );
            agree_as_cells(&iterating(q, "T", &[false, true, true]), &ins, &context);
            let q = kernel(
                "y[a,b] = sum[p,s1,s2,h](relu(L[a,s1,p] * T[p,b,s2] * (A[s1,h] + A[s2,h] + C[p,h])) * v[h])",
                &["a", "s1", "p", "b", "s2", "h"],
                Some("L"),
                &[SortedList, SortedList],
            );
            agree_as_cells(
                &iterating(q, "T", &[false, true, true]),
                &ins,
                &format!("{context}, hidden"),
            );
            // Summed over the pairs' second item: an output over the leader's loops only.
            let q = kernel(
                "z[a] = sum[p,s1,b,s2](L[a,s1,p] * T[p,b,s2] * u[s2])",
                &["a", "s1", "p", "b", "s2"],
                Some("L"),
                &[Dense],
            );
            let q = iterating(q, "T", &[false, true, true]);
            agree(&q, &ins, &format!("{context}, z"));
            let lookup = |n: &str, _: bool| ins.get(n);
            assert!(
                join_cells(&q, &lookup).is_none(),
                "{context}: a dense result is no list of cells"
            );
        }
        // The part's suppliers walked before its line items: pairs arrive out of key order.
        let mut ins = HashMap::new();
        let mut swapped = vec![];
        for (c, v) in t.iter() {
            swapped.push((vec![c[0], c[2], c[1]], v));
        }
        let t2 = CooTensor::from_entries(vec![np, ns, n], swapped, 0.0).unwrap();
        ins.insert("L".to_string(), fiber(&l, &[Dense, SortedList, SortedList]));
        ins.insert(
            "T".to_string(),
            fiber(&t2, &[Dense, SortedList, SortedList]),
        );
        ins.insert("u".to_string(), fiber(&u, &[Dense]));
        let q = kernel(
            "y[a,b] = sum[p,s1,s2](L[a,s1,p] * T[p,s2,b] * (u[s1] - u[s2]))",
            &["a", "s1", "p", "s2", "b"],
            Some("L"),
            &[SortedList, SortedList],
        );
        agree_as_cells(
            &iterating(q, "T", &[false, true, true]),
            &ins,
            &format!("{n}: out of order"),
        );
    }
    // A triangle: a third sparse access at the walked loop would be looked up for every
    // entry of the second's fiber, where the interpreter intersects the two fibers.
    let mut r = rng(23);
    let e = random_tensor(&mut r, &[60, 60], 0.1, 0.0, uniform_pm2);
    let mut ins = HashMap::new();
    for name in ["E", "F", "G"] {
        ins.insert(name.to_string(), fiber(&e, &[Dense, SortedList]));
    }
    let q = kernel(
        "t = sum[i,j,k](E[i,j] * F[j,k] * G[i,k])",
        &["i", "j", "k"],
        Some("E"),
        &[],
    );
    let q = iterating(q, "F", &[false, true]);
    let lookup = |n: &str, _: bool| ins.get(n);
    assert!(
        scan(&q, &lookup).is_none(),
        "an intersection stays with the interpreter"
    );
}

/// A map of several dense tensors cell for cell (`W = max(V, N)` of a BFS level) is one
/// vectorized map that agrees with the interpreter; with a sparse operand it is not taken.
#[test]
fn a_cell_for_cell_map_of_dense_tensors() {
    let mut r = rng(37);
    let v = random_tensor(&mut r, &[30, 20], 0.3, 0.0, uniform_pm2);
    let n = random_tensor(&mut r, &[30, 20], 0.3, 0.0, uniform_pm2);
    let mut ins = HashMap::new();
    ins.insert("V".to_string(), fiber(&v, &[Dense, Dense]));
    ins.insert("N".to_string(), fiber(&n, &[Dense, Dense]));
    let lookup = |name: &str, _: bool| ins.get(name);
    for src in [
        "w[a,b] = max(V[a,b], N[a,b])",
        "w[a,b] = V[a,b] * (1 - N[a,b]) + exp(V[a,b])",
    ] {
        let q = kernel(src, &["a", "b"], None, &[Dense, Dense]);
        let fast = map_stored(&q, &lookup)
            .unwrap_or_else(|| panic!("{src}: the map path should take it"))
            .unwrap();
        let slow = execute_query(&q, &lookup).unwrap();
        let (a, b) = (fast.to_coo().unwrap(), slow.to_coo().unwrap());
        for (k, (x, y)) in a.to_dense().iter().zip(b.to_dense()).enumerate() {
            assert!(
                (x - y).abs() <= 1e-12 * (1.0 + y.abs()),
                "{src}: cell {k}: {x} vs {y}"
            );
        }
    }
    ins.insert("N".to_string(), fiber(&n, &[Dense, SortedList]));
    let lookup = |name: &str, _: bool| ins.get(name);
    let q = kernel(
        "w[a,b] = max(V[a,b], N[a,b])",
        &["a", "b"],
        None,
        &[Dense, Dense],
    );
    assert!(map_stored(&q, &lookup).is_none(), "a sparse operand");
}

/// A pointwise map of one tensor's stored values (`sigmoid` of a sparse sum, whose fill
/// becomes 0.5) keeps its levels and agrees with the interpreter cell by cell, fills
/// included; a kernel in other formats or loops is left to the others.
#[test]
fn a_pointwise_map_of_stored_values() {
    let mut r = rng(31);
    let t = random_tensor(&mut r, &[40, 50], 0.1, 0.0, uniform_pm2);
    for formats in [
        [Dense, SortedList],
        [SortedList, SortedList],
        [Dense, Dense],
    ] {
        let mut ins = HashMap::new();
        ins.insert("T".to_string(), fiber(&t, &formats));
        for src in [
            "y[a,b] = sigmoid(T[a,b])",
            "y[a,b] = relu(T[a,b]) * 2 + 1",
            "y[a,b] = exp(-T[a,b])",
        ] {
            let q = kernel(src, &["a", "b"], Some("T"), &formats);
            let lookup = |n: &str, _: bool| ins.get(n);
            let fast = map_stored(&q, &lookup)
                .unwrap_or_else(|| panic!("{src}: the map path should take it"))
                .unwrap();
            let slow = execute_query(&q, &lookup).unwrap();
            assert_eq!(fast.fill, slow.fill, "{src}");
            let (a, b) = (fast.to_coo().unwrap(), slow.to_coo().unwrap());
            for (k, (x, y)) in a.to_dense().iter().zip(b.to_dense()).enumerate() {
                assert!(
                    (x - y).abs() <= 1e-12 * (1.0 + y.abs()),
                    "{src} {formats:?}: cell {k}: {x} vs {y}"
                );
            }
        }
        let lookup = |n: &str, _: bool| ins.get(n);
        let other = if formats[0] == Dense {
            SortedList
        } else {
            Dense
        };
        let q = kernel(
            "y[a,b] = sigmoid(T[a,b])",
            &["a", "b"],
            Some("T"),
            &[other, formats[1]],
        );
        assert!(map_stored(&q, &lookup).is_none(), "other output formats");
        let q = kernel("y[b,a] = sigmoid(T[a,b])", &["b", "a"], Some("T"), &formats);
        assert!(map_stored(&q, &lookup).is_none(), "a transposition");
    }
}
