//! Filter push-down (`logical::pushdown`) on subgraph counts: the factors of the final query
//! that only involve an intermediate's indices move into it, so it stores only cells the
//! count can use. Counts must stay exact.

mod opt_support;

use opt_support::{idxs, input, true_count};

use std::collections::HashMap;
use std::path::PathBuf;

use spores_tensor::engine::execute_plan;
use spores_tensor::io::subgraph::{read_data_graph, read_query_graph};
use spores_tensor::logical::pushdown::push_filters;
use spores_tensor::parse::parse_program;
use spores_tensor::physical::{optimize, PhysicalOptions};
use spores_tensor::plan_ast::{AggOp, Expr, LogicalPlan, LogicalQuery, MapOp};
use spores_tensor::reference::eval_program;
use spores_tensor::stats::InputStats;
use spores_tensor::{run, CooTensor, RunOptions};

fn data() -> PathBuf {
    opt_support::data_dir()
}

/// yeast `query_sparse_8_150` materialized a 20 M-entry 3-way intermediate (38 s); with the
/// pair intermediates its consumer multiplies it by moved in, it holds tens of thousands.
#[test]
fn sparse_8_150_keeps_its_three_way_intermediate_small() {
    let g = read_data_graph(&data().join("graphs/yeast.graph")).unwrap();
    let q = read_query_graph(&data().join("queries/yeast-lite/query_sparse_8_150.graph")).unwrap();
    let program = q.program().unwrap();
    let inputs = g.inputs_for(&q);
    let (out, report) = run(&program, &inputs, &RunOptions::default()).unwrap();
    assert_eq!(
        out["count"].values()[0],
        true_count("yeast/query_sparse_8_150.graph") as f64
    );
    let three_way: Vec<_> = report
        .logical
        .queries
        .iter()
        .filter(|q| q.idxs.len() >= 3)
        .map(|q| q.name.clone())
        .collect();
    assert!(!three_way.is_empty(), "the plan has a 3-way intermediate");
    for (name, _, stored, _) in &report.exec.kernels {
        if three_way.contains(name) {
            assert!(*stored < 200_000, "{name} stores {stored} values");
        }
    }
}

fn random_graph(seed: u64, n: usize) -> HashMap<String, CooTensor> {
    use rand::{RngExt, SeedableRng};
    let mut rng = rand_pcg::Pcg64::seed_from_u64(seed);
    let mut edges = vec![];
    for i in 0..n as u32 {
        for j in 0..n as u32 {
            if i != j && rng.random::<f64>() < 0.25 {
                edges.push((vec![i, j], 1.0 + (rng.random::<f64>() * 3.0).floor()));
            }
        }
    }
    let mut labels = vec![];
    for i in 0..n as u32 {
        if rng.random::<f64>() < 0.6 {
            labels.push((vec![i], 0.5 + rng.random::<f64>()));
        }
    }
    let mut ins: HashMap<String, CooTensor> = HashMap::new();
    ins.insert(
        "E".into(),
        CooTensor::from_entries(vec![n, n], edges, 0.0).unwrap(),
    );
    ins.insert(
        "L".into(),
        CooTensor::from_entries(vec![n], labels, 0.0).unwrap(),
    );
    ins
}

/// The plan variable elimination gives for `K_{2,3}` plus edges: the star around `x` becomes
/// a 3-way intermediate that the count then joins with `E[a,b]`, `E[b,c]` and `L[a]`. All
/// three move into it (weighted edges and labels: the move must be exact, not just for 0/1
/// values), and the pushed plan computes what the program does.
#[test]
fn filters_move_into_the_three_way_intermediate_exactly() {
    let star = three_way_star(vec![input("L", &["x"])]);
    let count = LogicalQuery {
        name: "count".into(),
        idxs: vec![],
        agg: Some(AggOp::Sum),
        agg_idxs: idxs(&["a", "b", "c"]),
        body: Expr::map(
            MapOp::Mul,
            vec![
                input("E", &["a", "b"]),
                Expr::alias("T", idxs(&["a", "b", "c"])),
                input("E", &["b", "c"]),
                input("L", &["a"]),
            ],
        ),
    };
    let plan = LogicalPlan {
        queries: vec![star, count],
        outputs: vec![("count".into(), "count".into())],
    };
    let program = parse_program(
        "count = sum[a,b,c,x](E[x,a] * E[x,b] * E[x,c] * L[x] * E[a,b] * E[b,c] * L[a])",
    )
    .unwrap()
    .program;
    for seed in 0..5 {
        let ins = random_graph(seed, 12);
        let stats = InputStats::from_tensors(&ins);
        let (pushed, moved) = push_filters(&plan, &stats, &HashMap::new());
        assert_eq!(moved, 3, "{pushed}");
        assert!(
            matches!(&pushed.queries[1].body, Expr::Alias { name, .. } if name == "T"),
            "the count keeps only the intermediate: {pushed}"
        );
        let mut accesses = 0;
        pushed.queries[0]
            .body
            .for_each_access(&mut |_| accesses += 1);
        assert_eq!(accesses, 7, "{pushed}");
        let physical = optimize(&pushed, &stats, &PhysicalOptions::default()).unwrap();
        let (got, _) = execute_plan(&physical, &ins).unwrap();
        let want = eval_program(&program, &ins).unwrap()["count"].values()[0];
        let got = got["count"].values().first().copied().unwrap_or(0.0);
        assert!(
            (got - want).abs() <= 1e-9 * want.abs().max(1.0),
            "seed {seed}: {got} vs {want}"
        );
    }
}

/// `T[a,b,c] = sum[x](E[x,a] * E[x,b] * E[x,c] * extra...)`: the 3-way star intermediate.
fn three_way_star(extra: Vec<Expr>) -> LogicalQuery {
    let mut factors = vec![
        input("E", &["x", "a"]),
        input("E", &["x", "b"]),
        input("E", &["x", "c"]),
    ];
    factors.extend(extra);
    LogicalQuery {
        name: "T".into(),
        idxs: idxs(&["a", "b", "c"]),
        agg: Some(AggOp::Sum),
        agg_idxs: idxs(&["x"]),
        body: Expr::map(MapOp::Mul, factors),
    }
}

/// Nothing moves where it could change the result or gain nothing: into an intermediate that
/// is a program output, or one read twice.
#[test]
fn filters_stay_where_moving_is_not_allowed() {
    let t = three_way_star(vec![]);
    let consumer = |body: Vec<Expr>| LogicalQuery {
        name: "count".into(),
        idxs: vec![],
        agg: Some(AggOp::Sum),
        agg_idxs: idxs(&["a", "b", "c"]),
        body: Expr::map(MapOp::Mul, body),
    };
    let ins = random_graph(1, 10);
    let stats = InputStats::from_tensors(&ins);
    // T is also an output.
    let plan = LogicalPlan {
        queries: vec![
            t.clone(),
            consumer(vec![
                input("E", &["a", "b"]),
                Expr::alias("T", idxs(&["a", "b", "c"])),
            ]),
        ],
        outputs: vec![("count".into(), "count".into()), ("T".into(), "T".into())],
    };
    assert_eq!(push_filters(&plan, &stats, &HashMap::new()).1, 0);
    // T is read twice.
    let plan = LogicalPlan {
        queries: vec![
            t,
            consumer(vec![
                input("E", &["a", "b"]),
                Expr::alias("T", idxs(&["a", "b", "c"])),
                Expr::alias("T", idxs(&["c", "b", "a"])),
            ]),
        ],
        outputs: vec![("count".into(), "count".into())],
    };
    assert_eq!(push_filters(&plan, &stats, &HashMap::new()).1, 0);
}

/// On random graphs the whole pipeline with push-down (a 4-clique count with labels)
/// still equals brute force.
#[test]
fn counts_through_the_driver_stay_exact() {
    let src = "c = sum[a,b,c,d](E[a,b] * E[a,c] * E[a,d] * E[b,c] * E[b,d] * E[c,d] * L[d])";
    let parsed = parse_program(src).unwrap();
    for seed in 0..6u64 {
        let ins = random_graph(seed, 14);
        let want = eval_program(&parsed.program, &ins).unwrap()["c"].values()[0];
        let (got, _) = run(&parsed.program, &ins, &RunOptions::default()).unwrap();
        let got = got["c"].values().first().copied().unwrap_or(0.0);
        assert!(
            (got - want).abs() <= 1e-9 * want.abs().max(1.0),
            "seed {seed}: {got} vs {want}"
        );
    }
}
