//! The physical optimizer on constructed cases with a known right answer (Example 6's loop
//! order, formats from output sparsity, the sparser input leading), and validity of every
//! plan: accesses concordant with loop orders, and the same results as the program (checked by
//! reading the physical plan back as a logical one and evaluating it by brute force).

mod opt_support;

use std::collections::HashMap;

use opt_support::*;
use spores_tensor::logical::{naive_plan, optimize_tensors, LogicalOptions};
use spores_tensor::physical::{optimize, to_logical, PhysicalOptions};
use spores_tensor::plan_ast::{Expr, LevelFormat, PhysExpr, PhysicalPlan, Protocol, Query};
use spores_tensor::reference::{eval_logical, eval_program};
use spores_tensor::stats::InputStats;
use spores_tensor::CooTensor;

fn accesses(e: &PhysExpr, out: &mut Vec<spores_tensor::plan_ast::Access>) {
    match e {
        PhysExpr::Access(a) => out.push(a.clone()),
        PhysExpr::Literal(_) => {}
        PhysExpr::Map { args, .. } => args.iter().for_each(|a| accesses(a, out)),
    }
}

/// Every access lists its indices in loop order, names an input or an earlier kernel, and the
/// plan's formats match its output modes.
fn assert_valid(plan: &PhysicalPlan, inputs: &HashMap<String, CooTensor>) {
    let mut defined: Vec<&str> = vec![];
    for q in &plan.queries {
        let mut accs = vec![];
        accesses(&q.body, &mut accs);
        for a in &accs {
            let pos: Vec<usize> = a
                .idxs
                .iter()
                .map(|i| q.loop_order.iter().position(|l| l == i).expect("looped"))
                .collect();
            assert!(
                pos.windows(2).all(|w| w[0] < w[1]),
                "{}: {a:?} discordant with {:?}",
                q.name,
                q.loop_order
            );
            assert_eq!(a.protocols.len(), a.idxs.len());
            if a.is_alias {
                assert!(
                    defined.contains(&a.name.as_str()),
                    "{} used before defined",
                    a.name
                );
            } else {
                assert!(inputs.contains_key(&a.name), "{} is no input", a.name);
            }
        }
        assert_eq!(q.output_formats.len(), q.output_idxs.len(), "{}", q.name);
        defined.push(&q.name);
    }
}

/// The physical plan of a program of one query (its output), with default options.
fn plan_one_query(query: Query, inputs: &HashMap<String, CooTensor>) -> PhysicalPlan {
    let name = query.name.clone();
    let p = program(vec![query], &[name.as_str()]);
    optimize(
        &naive_plan(&p).unwrap(),
        &InputStats::from_tensors(inputs),
        &PhysicalOptions::default(),
    )
    .unwrap()
}

fn single(plan: &PhysicalPlan, name: &str) -> spores_tensor::plan_ast::PhysicalQuery {
    plan.queries
        .iter()
        .find(|q| q.name == name)
        .cloned()
        .expect("query exists")
}

/// Example 6: D[i,l] = sum[j,k](A[i,j] * B[j,k] * C[k,l]) with one non-zero in A and 5 per
/// row and column in B and C: loop order i,j,k,l (not l,k,j,i).
#[test]
fn example_6_loop_order() {
    let n = 100u32;
    let band = |shift: u32| -> CooTensor {
        let mut e = vec![];
        for r in 0..n {
            for t in 0..5 {
                e.push((vec![r, (r + t * shift + t) % n], 1.0));
            }
        }
        CooTensor::from_entries(vec![n as usize; 2], e, 0.0).unwrap()
    };
    let a = CooTensor::from_entries(vec![n as usize; 2], vec![(vec![7, 3], 2.0)], 0.0).unwrap();
    let inputs = named([("A", a), ("B", band(3)), ("C", band(7))]);
    let body = mul(vec![
        input("A", &["i", "j"]),
        input("B", &["j", "k"]),
        input("C", &["k", "l"]),
    ]);
    let p = program(
        vec![Query::new("D", idxs(&["i", "l"]), sum(&["j", "k"], body))],
        &["D"],
    );
    let logical = naive_plan(&p).unwrap();
    let stats = InputStats::from_tensors(&inputs);
    let plan = optimize(&logical, &stats, &PhysicalOptions::default()).unwrap();
    let d = single(&plan, "D");
    assert_eq!(d.loop_order, idxs(&["i", "j", "k", "l"]), "{plan:?}");
    assert_eq!(plan.queries.len(), 1, "no transposition needed");
    // A leads i and j; B leads k; C leads l.
    let mut accs = vec![];
    accesses(&d.body, &mut accs);
    assert_eq!(
        accs[0].protocols,
        vec![Protocol::Iterate, Protocol::Iterate]
    );
    assert_eq!(accs[1].protocols, vec![Protocol::Lookup, Protocol::Iterate]);
    assert_eq!(accs[2].protocols, vec![Protocol::Lookup, Protocol::Iterate]);
    // D has one row with at most 25 non-zeros out of 100*100 cells: sparse levels.
    assert!(
        !d.output_formats.contains(&LevelFormat::Dense),
        "{:?}",
        d.output_formats
    );
    assert_valid(&plan, &inputs);
}

/// A very sparse output gets sparse levels; a dense one dense levels; the sparser input leads.
#[test]
fn formats_follow_estimated_sparsity_and_the_sparser_input_leads() {
    let mut r = rng(2);
    let n = 300;
    let dense = random_sparse(&mut r, &[n, n], 1.0);
    let x = random_sparse(&mut r, &[n], 1.0);
    let few =
        CooTensor::from_entries(vec![n], vec![(vec![3], 1.0), (vec![200], 2.0)], 0.0).unwrap();
    let inputs = named([("M", dense), ("x", x), ("s", few)]);
    let p = program(
        vec![
            // dense matrix-vector product: dense output
            Query::new(
                "y",
                idxs(&["i"]),
                sum(
                    &["j"],
                    mul(vec![input("M", &["i", "j"]), input("x", &["j"])]),
                ),
            ),
            // outer product of a 2-entry vector with itself: 4 of 90000 cells
            Query::new(
                "O",
                idxs(&["i", "k"]),
                mul(vec![input("s", &["i"]), input("s", &["k"])]),
            ),
            // elementwise product: the 2-entry vector leads
            Query::new(
                "z",
                idxs(&["i"]),
                mul(vec![input("x", &["i"]), input("s", &["i"])]),
            ),
        ],
        &["y", "O", "z"],
    );
    let logical = naive_plan(&p).unwrap();
    let plan = optimize(
        &logical,
        &InputStats::from_tensors(&inputs),
        &PhysicalOptions::default(),
    )
    .unwrap();
    assert_eq!(single(&plan, "y").output_formats, vec![LevelFormat::Dense]);
    let o = single(&plan, "O");
    assert_eq!(o.loop_order, idxs(&["i", "k"]));
    assert_eq!(
        o.output_formats,
        vec![LevelFormat::SortedList, LevelFormat::SortedList],
        "sequential, sparse"
    );
    let z = single(&plan, "z");
    let mut accs = vec![];
    accesses(&z.body, &mut accs);
    assert_eq!(
        (accs[0].name.as_str(), accs[0].protocols[0]),
        ("x", Protocol::Lookup)
    );
    assert_eq!(
        (accs[1].name.as_str(), accs[1].protocols[0]),
        ("s", Protocol::Iterate)
    );
    assert_valid(&plan, &inputs);
}

/// Below a Bytemap level there is a fiber per slot of the Bytemap, not per entry: the outer
/// product of a tenth-full 3000-vector with itself has 3000 fibers of 3000 slots below its
/// Bytemap rows (9 * 10^6 slots, beyond the cache, for 9 * 10^4 entries), so its columns are
/// a sorted list, not a second slot-sized Bytemap.
#[test]
fn levels_below_a_bytemap_have_a_fiber_per_slot() {
    let n = 3000;
    let u = CooTensor::from_entries(
        vec![n],
        (0..n as u32)
            .step_by(10)
            .map(|i| (vec![i], 1.0 + f64::from(i)))
            .collect(),
        0.0,
    )
    .unwrap();
    let inputs = named([("u", u)]);
    let plan = plan_one_query(
        Query::new(
            "O",
            idxs(&["i", "k"]),
            mul(vec![input("u", &["i"]), input("u", &["k"])]),
        ),
        &inputs,
    );
    assert_eq!(
        single(&plan, "O").output_formats,
        vec![LevelFormat::Bytemap, LevelFormat::SortedList]
    );
    assert_valid(&plan, &inputs);
}

/// A union has no leader: both sides are looked up (the loop walks the whole dimension).
#[test]
fn unions_have_no_leader() {
    let mut r = rng(4);
    let inputs = named([
        ("a", random_sparse(&mut r, &[50], 0.1)),
        ("b", random_sparse(&mut r, &[50], 0.1)),
    ]);
    let plan = plan_one_query(
        Query::new(
            "c",
            idxs(&["i"]),
            add(vec![input("a", &["i"]), input("b", &["i"])]),
        ),
        &inputs,
    );
    let mut accs = vec![];
    accesses(&plan.queries[0].body, &mut accs);
    assert!(
        accs.iter().all(|a| a.protocols == vec![Protocol::Lookup]),
        "{accs:?}"
    );
}

/// Discordant inputs are transposed once (CSE shares the transposition), and transposing is
/// avoided when a concordant order is as cheap.
#[test]
fn transpositions_are_shared() {
    let mut r = rng(8);
    let inputs = named([
        ("A", random_sparse(&mut r, &[20, 30], 0.2)),
        ("x", random_sparse(&mut r, &[20], 1.0)),
    ]);
    // y[j] = sum[i](A[i,j] * x[i]) stored j-major is the user's order; both queries need A^T
    // only if they loop j before i.
    let q = |name: &str| {
        Query::new(
            name,
            idxs(&["j", "i"]),
            mul(vec![input("A", &["i", "j"]), input("x", &["i"])]),
        )
    };
    let p = program(vec![q("P1"), q("P2")], &["P1", "P2"]);
    let plan = optimize(
        &naive_plan(&p).unwrap(),
        &InputStats::from_tensors(&inputs),
        &PhysicalOptions::default(),
    )
    .unwrap();
    // Identical kernels: the second is dropped and the output points at the first.
    assert_eq!(
        plan.outputs.iter().filter(|(_, q)| q == "P1").count(),
        2,
        "{:?}",
        plan.outputs
    );
    let got = eval_logical(&to_logical(&plan), &inputs).unwrap();
    let want = eval_program(&p, &inputs).unwrap();
    assert_eq!(got["P2"].to_dense(), want["P2"].to_dense());
    assert_valid(&plan, &inputs);
}

/// Logical then physical optimization of random programs: valid plans with the program's
/// results.
#[test]
fn physical_plans_of_random_programs_agree_with_the_program() {
    for seed in 0..150u64 {
        let (p, inputs) = random_program(seed);
        let stats = InputStats::from_tensors(&inputs);
        for logical in [
            naive_plan(&p).unwrap(),
            optimize_tensors(&p, &inputs, &LogicalOptions::default()).unwrap(),
        ] {
            let plan = optimize(&logical, &stats, &PhysicalOptions::default())
                .unwrap_or_else(|e| panic!("seed {seed}: {e}\n{logical}"));
            assert_valid(&plan, &inputs);
            let want = eval_program(&p, &inputs).unwrap();
            let got = eval_logical(&to_logical(&plan), &inputs).unwrap();
            assert_outputs_close(&want, &got, &format!("seed {seed}\n{logical}\n{plan:?}"));
        }
    }
    let _ = Expr::Literal(0.0);
}

/// A symmetric matrix (`S == t(S)`, found in the input statistics) read against its stored
/// order is read swapped: no transposed copy. Break the symmetry in one value and a copy
/// (of the cheaper input) is back. Both plans compute the program's result.
#[test]
fn a_symmetric_input_is_read_swapped_instead_of_transposed() {
    let mut r = rng(9);
    let a = random_sparse(&mut r, &[30, 30], 0.3);
    let mut cells: std::collections::BTreeMap<Vec<u32>, f64> = Default::default();
    for (c, v) in a.iter() {
        *cells.entry(vec![c[0], c[1]]).or_default() += v;
        *cells.entry(vec![c[1], c[0]]).or_default() += v;
    }
    let symmetric =
        CooTensor::from_entries(vec![30, 30], cells.clone().into_iter().collect(), 0.0).unwrap();
    let (first, _) = cells.iter().find(|(c, _)| c[0] != c[1]).unwrap();
    let first = first.clone();
    *cells.get_mut(&first).unwrap() += 1.0;
    let asymmetric =
        CooTensor::from_entries(vec![30, 30], cells.into_iter().collect(), 0.0).unwrap();
    // B is much sparser than S: looping B's order (j, i) is the cheap way.
    let b = random_sparse(&mut r, &[30, 30], 0.05);
    let p = program(
        vec![Query::new(
            "t",
            vec![],
            sum(
                &["i", "j"],
                mul(vec![input("S", &["i", "j"]), input("B", &["j", "i"])]),
            ),
        )],
        &["t"],
    );
    let plan_for = |s: &CooTensor| {
        let inputs = named([("S", s.clone()), ("B", b.clone())]);
        let stats = InputStats::from_tensors(&inputs);
        let plan = optimize(
            &naive_plan(&p).unwrap(),
            &stats,
            &PhysicalOptions::default(),
        )
        .unwrap();
        assert_valid(&plan, &inputs);
        let got = eval_logical(&to_logical(&plan), &inputs).unwrap();
        let want = eval_program(&p, &inputs).unwrap();
        assert!(close(got["t"].values()[0], want["t"].values()[0]));
        (stats.is_symmetric("S"), plan)
    };
    let (found, plan) = plan_for(&symmetric);
    assert!(found, "the statistics record the symmetry");
    assert_eq!(plan.queries.len(), 1, "no transposed copy:\n{plan:#?}");
    let mut accs = vec![];
    accesses(&plan.queries[0].body, &mut accs);
    let s = accs
        .iter()
        .find(|a| a.name == "S")
        .expect("S read directly");
    assert_eq!(s.idxs, idxs(&["j", "i"]), "S read swapped");
    let (found, plan) = plan_for(&asymmetric);
    assert!(!found);
    assert!(
        plan.queries.iter().any(|q| q.name.contains("__T")),
        "without the symmetry one input is transposed:\n{plan:#?}"
    );
}
