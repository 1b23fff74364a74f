//! Shared helpers of the optimizer and estimator tests: random sparse tensors, the subgraph
//! workload's graph and query files (a small reader of our own: the engine's readers live in
//! `src/io/`, owned by the engine work), and programs built from them.
#![allow(dead_code)]

mod star;
#[allow(unused_imports)]
pub use star::{dense_random, Star};

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64;
use spores_tensor::io::subgraph::{DataGraph, QueryGraph};
use spores_tensor::logical::{optimize_explained, LogicalOptions, Search};
use spores_tensor::physical::{optimize, PhysicalOptions};
use spores_tensor::plan_ast::{
    Access, AggOp, Expr, Idx, LevelFormat, LogicalPlan, MapOp, PhysExpr, PhysicalPlan,
    PhysicalQuery, Program, Protocol, Query,
};
use spores_tensor::stats::{Estimator, InputStats};
use spores_tensor::{run, CooTensor, RunOptions};

pub fn idx(s: &str) -> Idx {
    Idx::new(s)
}

pub fn idxs(names: &[&str]) -> Vec<Idx> {
    names.iter().map(|s| idx(s)).collect()
}

pub fn input(name: &str, names: &[&str]) -> Expr {
    Expr::input(name, idxs(names))
}

pub fn mul(args: Vec<Expr>) -> Expr {
    Expr::map(MapOp::Mul, args)
}

pub fn add(args: Vec<Expr>) -> Expr {
    Expr::map(MapOp::Add, args)
}

pub fn sum(names: &[&str], body: Expr) -> Expr {
    Expr::agg(AggOp::Sum, idxs(names), body)
}

/// Inputs by name, as `run` and the statistics take them.
pub fn named<const N: usize>(inputs: [(&str, CooTensor); N]) -> HashMap<String, CooTensor> {
    inputs
        .into_iter()
        .map(|(name, t)| (name.to_string(), t))
        .collect()
}

pub fn program(queries: Vec<Query>, outputs: &[&str]) -> Program {
    Program {
        queries,
        outputs: outputs.iter().map(|s| s.to_string()).collect(),
    }
}

pub fn rng(seed: u64) -> Pcg64 {
    Pcg64::seed_from_u64(seed)
}

/// A random tensor with fill `fill`: each cell is stored with probability `density`, with a
/// value drawn by `value`.
pub fn random_tensor(
    rng: &mut Pcg64,
    dims: &[usize],
    density: f64,
    fill: f64,
    mut value: impl FnMut(&mut Pcg64) -> f64,
) -> CooTensor {
    let total: usize = dims.iter().product();
    let mut entries = vec![];
    for flat in 0..total {
        if rng.random::<f64>() < density {
            let mut c = vec![0u32; dims.len()];
            let mut r = flat;
            for m in (0..dims.len()).rev() {
                c[m] = (r % dims[m]) as u32;
                r /= dims[m];
            }
            entries.push((c, value(rng)));
        }
    }
    CooTensor::from_entries(dims.to_vec(), entries, fill).expect("in bounds")
}

/// A random tensor with about `density` of its cells set to values in [0.5, 2) (positive, so
/// sums never cancel and non-zero patterns are exactly the join/union/projection patterns).
pub fn random_sparse(rng: &mut Pcg64, dims: &[usize], density: f64) -> CooTensor {
    random_tensor(rng, dims, density, 0.0, |r| 0.5 + 1.5 * r.random::<f64>())
}

/// A random tensor of seed `seed` whose stored values are halves in [-0.5, 1.5] (sums of a
/// few are exact in any order), never equal to `fill`.
pub fn random_halves(dims: Vec<usize>, density: f64, fill: f64, seed: u64) -> CooTensor {
    random_tensor(&mut rng(seed), &dims, density, fill, |r| {
        let v = (r.random::<f64>() * 4.0 - 1.0).round() / 2.0;
        if v == fill {
            v + 0.25
        } else {
            v
        }
    })
}

/// The kernel of the one-query program `src` (its aggregate and body) with the given loop
/// order and output formats; `leader`'s indices iterate, every other access looks up.
pub fn kernel(
    src: &str,
    loops: &[&str],
    leader: Option<&str>,
    formats: &[LevelFormat],
) -> PhysicalQuery {
    let p = spores_tensor::parse::parse_program(src).unwrap().program;
    let plan = spores_tensor::logical::naive_plan(&p).unwrap();
    let q = plan.queries.last().unwrap().clone();
    fn phys(e: &Expr, leader: Option<&str>) -> PhysExpr {
        match e {
            Expr::Input { tensor, idxs } | Expr::Alias { name: tensor, idxs } => {
                let protocol = if leader == Some(tensor.as_str()) {
                    Protocol::Iterate
                } else {
                    Protocol::Lookup
                };
                PhysExpr::Access(Access {
                    is_alias: false,
                    name: tensor.clone(),
                    idxs: idxs.clone(),
                    protocols: vec![protocol; idxs.len()],
                })
            }
            Expr::Literal(v) => PhysExpr::Literal(*v),
            Expr::Map { op, args } => PhysExpr::Map {
                op: op.clone(),
                args: args.iter().map(|a| phys(a, leader)).collect(),
            },
            Expr::Agg { .. } => panic!("kernel bodies have no aggregate"),
        }
    }
    PhysicalQuery {
        name: q.name.clone(),
        loop_order: loops.iter().map(|l| Idx::new(l)).collect(),
        agg: q.agg,
        agg_idxs: q.agg_idxs.clone(),
        body: phys(&q.body, leader),
        output_idxs: q.idxs.clone(),
        output_formats: formats.to_vec(),
    }
}

pub fn count_nonzero(t: &CooTensor) -> usize {
    t.to_dense().iter().filter(|&&v| v != 0.0).count()
}

/// The subgraph-counting workload shipped with the repository (`data/subgraph`, see its
/// README for source and formats), or `$SPORES_SUBGRAPH_DATA`.
pub fn data_dir() -> PathBuf {
    if let Ok(p) = std::env::var("SPORES_SUBGRAPH_DATA") {
        return PathBuf::from(p);
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/subgraph")
}

/// An undirected labelled graph (`v ID LABEL ...`, `e SRC DST ...`).
pub struct Graph {
    pub n: usize,
    pub labels: Vec<Vec<i64>>,
    pub edges: Vec<(u32, u32)>,
}

pub fn read_graph(path: &Path) -> Graph {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut labels: BTreeMap<usize, Vec<i64>> = BTreeMap::new();
    let mut edges = vec![];
    for line in text.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        match f.first() {
            Some(&"v") => {
                let id: usize = f[1].parse().unwrap();
                // yeast-style: `v ID LABEL DEGREE`; G-Care style: `v ID LABEL...`.
                let ls: Vec<i64> = if f.len() == 4 && path.extension().is_some_and(|e| e == "graph")
                {
                    vec![f[2].parse().unwrap()]
                } else {
                    f[2..].iter().map(|x| x.parse().unwrap()).collect()
                };
                labels.insert(id, ls);
            }
            Some(&"e") => edges.push((f[1].parse().unwrap(), f[2].parse().unwrap())),
            _ => {}
        }
    }
    let n = labels.keys().next_back().map_or(0, |m| m + 1);
    Graph {
        n,
        labels: (0..n)
            .map(|v| labels.get(&v).cloned().unwrap_or_default())
            .collect(),
        edges,
    }
}

/// The symmetric 0/1 adjacency matrix and one 0/1 indicator vector per label (`L<label>`).
pub fn graph_tensors(g: &Graph) -> HashMap<String, CooTensor> {
    let mut entries = vec![];
    for &(a, b) in &g.edges {
        entries.push((vec![a, b], 1.0));
        entries.push((vec![b, a], 1.0));
    }
    let mut e = CooTensor::from_entries(vec![g.n, g.n], entries, 0.0).unwrap();
    // Duplicate edges were summed: clamp to 0/1.
    let ones: Vec<(Vec<u32>, f64)> = e.iter().map(|(c, _)| (c.to_vec(), 1.0)).collect();
    e = CooTensor::from_entries(vec![g.n, g.n], ones, 0.0).unwrap();
    let mut by_label: BTreeMap<i64, Vec<(Vec<u32>, f64)>> = BTreeMap::new();
    for (v, ls) in g.labels.iter().enumerate() {
        for &l in ls {
            by_label.entry(l).or_default().push((vec![v as u32], 1.0));
        }
    }
    let mut out: HashMap<String, CooTensor> = HashMap::new();
    out.insert("E".into(), e);
    for (l, es) in by_label {
        out.insert(
            format!("L{l}"),
            CooTensor::from_entries(vec![g.n], es, 0.0).unwrap(),
        );
    }
    out
}

/// Galley's homomorphism-count program of a query graph: one `E` factor per query edge, one
/// label indicator per labelled query vertex, summed over every query vertex. Labels missing
/// from the data graph make the query's count 0; they are dropped here with a flag.
pub fn query_program(q: &Graph, data: &HashMap<String, CooTensor>) -> Option<Program> {
    let v = |k: usize| format!("v{k}");
    let mut factors = vec![];
    for &(a, b) in &q.edges {
        factors.push(Expr::input(
            "E",
            vec![idx(&v(a as usize)), idx(&v(b as usize))],
        ));
    }
    for (k, ls) in q.labels.iter().enumerate() {
        for &l in ls {
            if l < 0 {
                continue;
            }
            let name = format!("L{l}");
            if !data.contains_key(&name) {
                return None;
            }
            factors.push(Expr::input(&name, vec![idx(&v(k))]));
        }
    }
    let all: Vec<Idx> = (0..q.n).map(|k| idx(&v(k))).collect();
    let body = Expr::agg(AggOp::Sum, all, Expr::map(MapOp::Mul, factors));
    Some(Program {
        queries: vec![Query::new("count", vec![], body)],
        outputs: vec!["count".into()],
    })
}

/// Every query file of the yeast-lite set, sorted by name.
pub fn yeast_queries() -> Vec<(String, Graph)> {
    queries_in(&data_dir().join("queries/yeast-lite"))
}

/// Every query file of one directory, sorted by name, read.
fn queries_in(dir: &Path) -> Vec<(String, Graph)> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
        .into_iter()
        .map(|n| {
            let g = read_graph(&dir.join(&n));
            (n, g)
        })
        .collect()
}

/// The benchmark's true count of one query (`yeast/NAME` or `human/SET/NAME`): the last
/// number of its `true_counts` file.
pub fn true_count(rel: &str) -> u64 {
    let path = data_dir().join("true_counts").join(rel);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.split_whitespace()
        .last()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{}: no count", path.display()))
}

/// Index sizes and the tensors of the random programs.
const TENSORS: &[(&str, &[&str])] = &[
    ("A", &["i", "j"]),
    ("B", &["j", "k"]),
    ("C", &["i", "k"]),
    ("v", &["j"]),
    ("w", &["i"]),
    ("u", &["k"]),
    ("T", &["i", "j", "k"]),
];

fn size(i: &str) -> usize {
    match i {
        "i" => 3,
        "j" => 4,
        _ => 2,
    }
}

fn random_inputs(r: &mut Pcg64) -> HashMap<String, CooTensor> {
    TENSORS
        .iter()
        .map(|(name, ix)| {
            let dims: Vec<usize> = ix.iter().map(|i| size(i)).collect();
            let density = [0.25, 0.6, 1.0][r.random_range(0..3)];
            (name.to_string(), random_sparse(r, &dims, density))
        })
        .collect()
}

fn random_expr(r: &mut Pcg64, depth: usize, aliases: &[(String, Vec<Idx>)]) -> Expr {
    let choice = if depth == 0 {
        r.random_range(0..3)
    } else {
        r.random_range(0..8)
    };
    match choice {
        0 | 1 => {
            if !aliases.is_empty() && r.random_range(0..3) == 0 {
                let (n, ix) = &aliases[r.random_range(0..aliases.len())];
                return Expr::alias(n, ix.clone());
            }
            let (name, ix) = TENSORS[r.random_range(0..TENSORS.len())];
            input(name, ix)
        }
        2 => Expr::Literal([2.0, -1.0, 0.5][r.random_range(0..3)]),
        3..=5 => {
            let op = [
                MapOp::Add,
                MapOp::Mul,
                MapOp::Mul,
                MapOp::Sub,
                MapOp::Max,
                MapOp::Min,
            ][r.random_range(0..6)]
            .clone();
            let n = if matches!(op, MapOp::Sub) {
                2
            } else {
                r.random_range(2..4)
            };
            Expr::map(
                op,
                (0..n).map(|_| random_expr(r, depth - 1, aliases)).collect(),
            )
        }
        _ => {
            let body = random_expr(r, depth - 1, aliases);
            let free: Vec<Idx> = body.free_idxs().into_iter().collect();
            if free.is_empty() {
                return body;
            }
            let chosen: Vec<Idx> = free
                .into_iter()
                .filter(|_| r.random_range(0..3) > 0)
                .collect();
            if chosen.is_empty() {
                return body;
            }
            let op = [AggOp::Sum, AggOp::Sum, AggOp::Max, AggOp::Min][r.random_range(0..4)];
            Expr::agg(op, chosen, body)
        }
    }
}

pub fn random_program(seed: u64) -> (Program, HashMap<String, CooTensor>) {
    let mut r = rng(seed);
    let inputs = random_inputs(&mut r);
    let mut queries = vec![];
    let mut aliases: Vec<(String, Vec<Idx>)> = vec![];
    for q in 0..r.random_range(1..3) {
        let expr = random_expr(&mut r, 4, &aliases);
        let mut out: Vec<Idx> = expr.free_idxs().into_iter().collect();
        if r.random_range(0..2) == 0 {
            out.reverse();
        }
        let name = format!("Q{q}");
        aliases.push((name.clone(), out.clone()));
        queries.push(Query::new(&name, out, expr));
    }
    let outputs: Vec<String> = queries.iter().map(|q| q.name.clone()).collect();
    (Program { queries, outputs }, inputs)
}

pub fn close(a: f64, b: f64) -> bool {
    a == b || (a.is_nan() && b.is_nan()) || (a - b).abs() <= 1e-9 * (1.0 + a.abs().max(b.abs()))
}

/// Every query file of one human set (`Chain_3`, `Graph_3`, `Star_3`, `Tree_3`), sorted.
pub fn human_queries(set: &str) -> Vec<(String, Graph)> {
    queries_in(&data_dir().join("queries/human").join(set))
}

/// The first output of `want` whose dims or (within `close`) values differ in `got`, as a
/// message naming the cell; for property tests, which report it as the case's failure.
pub fn outputs_differ(
    want: &HashMap<String, CooTensor>,
    got: &HashMap<String, CooTensor>,
) -> Option<String> {
    for (name, w) in want {
        let Some(g) = got.get(name) else {
            return Some(format!("{name}: missing"));
        };
        if g.dims() != w.dims() {
            return Some(format!("{name}: dims {:?} vs {:?}", g.dims(), w.dims()));
        }
        let (gd, wd) = (g.to_dense(), w.to_dense());
        if let Some(k) = (0..gd.len()).find(|&k| !close(gd[k], wd[k])) {
            return Some(format!("{name}: cell {k} got {} want {}", gd[k], wd[k]));
        }
    }
    None
}

/// Every output of `want` has its dims and (within `close`) its values in `got`; `context`
/// names the case in a failure.
pub fn assert_outputs_close(
    want: &HashMap<String, CooTensor>,
    got: &HashMap<String, CooTensor>,
    context: &str,
) {
    for (name, w) in want {
        let g = &got[name];
        assert_eq!(w.dims(), g.dims(), "{name}: {context}");
        for (a, b) in w.to_dense().iter().zip(g.to_dense()) {
            assert!(close(*a, b), "{name}: {a} vs {b}\n{context}");
        }
    }
}

/// Runs the ML program `file` (of `bench/tensor/ml/`) on `inputs` with the default options
/// and asserts its outputs agree with the brute-force reference; `context` names the case.
pub fn assert_ml_program_agrees(file: &str, inputs: &HashMap<String, CooTensor>, context: &str) {
    let p = ml_program(file);
    let want = spores_tensor::reference::eval_program(&p, inputs).unwrap();
    let (got, report) = spores_tensor::run(&p, inputs, &spores_tensor::RunOptions::default())
        .unwrap_or_else(|e| panic!("{context} {file}: {e}"));
    assert_outputs_close(
        &want,
        &got,
        &format!("{context} {file}:\n{}", report.logical),
    );
}

/// Logical then physical optimization of `p` with one search and estimator.
pub fn optimize_with(
    p: &Program,
    stats: &InputStats,
    search: Search,
    estimator: Estimator,
) -> (LogicalPlan, PhysicalPlan) {
    let opts = LogicalOptions {
        search,
        estimator,
        ..Default::default()
    };
    let logical = optimize_explained(p, stats, &opts).unwrap().plan;
    let phys = PhysicalOptions {
        estimator,
        ..Default::default()
    };
    let plan = optimize(&logical, stats, &phys).unwrap();
    (logical, plan)
}

/// A program of `bench/tensor/ml/` (the ML benchmark's tensor programs), parsed.
pub fn ml_program(file: &str) -> Program {
    let path = format!(
        "{}/../../bench/tensor/ml/{file}",
        env!("CARGO_MANIFEST_DIR")
    );
    let src = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    spores_tensor::parse::parse_program(&src)
        .unwrap_or_else(|e| panic!("{}", e.render(&path, &src)))
        .program
}

/// Brute-force backtracking over query vertices in order; `injective` forbids two query
/// vertices mapping to one data vertex.
pub fn brute_force(g: &DataGraph, q: &QueryGraph, injective: bool) -> u64 {
    let n = g.vertices;
    let mut adj = vec![vec![]; n];
    for &(u, v) in &g.edges {
        adj[u as usize].push(v as usize);
        adj[v as usize].push(u as usize);
    }
    let has_edge = |a: usize, b: usize| adj[a].contains(&b);
    let k = q.labels.len();
    let mut map = vec![usize::MAX; k];
    fn go(
        d: usize,
        map: &mut Vec<usize>,
        q: &QueryGraph,
        g: &DataGraph,
        adj: &[Vec<usize>],
        has_edge: &dyn Fn(usize, usize) -> bool,
        injective: bool,
    ) -> u64 {
        if d == map.len() {
            return 1;
        }
        // Candidates: neighbours of an already mapped query neighbour, else every vertex.
        let anchor = q.edges.iter().find_map(|&(a, b)| {
            let (a, b) = (a as usize, b as usize);
            if a == d && b < d {
                Some(map[b])
            } else if b == d && a < d {
                Some(map[a])
            } else {
                None
            }
        });
        let cands: Vec<usize> = match anchor {
            Some(x) => adj[x].clone(),
            None => (0..g.vertices).collect(),
        };
        let mut total = 0;
        for v in cands {
            if let Some(l) = q.labels[d] {
                if !g.vertex_labels[v].contains(&l) {
                    continue;
                }
            }
            if injective && map[..d].contains(&v) {
                continue;
            }
            let ok = q.edges.iter().all(|&(a, b)| {
                let (a, b) = (a as usize, b as usize);
                let (x, y) = if a == d && b < d {
                    (v, map[b])
                } else if b == d && a < d {
                    (map[a], v)
                } else {
                    return true;
                };
                has_edge(x, y)
            });
            if ok {
                map[d] = v;
                total += go(d + 1, map, q, g, adj, has_edge, injective);
            }
        }
        map[d] = usize::MAX;
        total
    }
    go(0, &mut map, q, g, &adj, &has_edge, injective)
}

/// The engine's count of `q` on `g` with the default options.
pub fn engine_count(g: &DataGraph, q: &QueryGraph) -> u64 {
    engine_count_with(g, q, &RunOptions::default())
}

/// The engine's count of `q` on `g` with `options`.
pub fn engine_count_with(g: &DataGraph, q: &QueryGraph, options: &RunOptions) -> u64 {
    let program = q.program().unwrap();
    let inputs: HashMap<_, _> = g.inputs_for(q);
    let (out, _) = run(&program, &inputs, options).unwrap();
    out["count"].values()[0] as u64
}
