//! Breadth-first search through the optimizers, re-optimized every iteration (Galley §8.3).
//!
//! Each BFS level is the tensor program [`STEP_PROGRAM`]:
//!
//! ```text
//! N[j] = any[i](F[i] * E[i,j] * (1 - V[j]))    # the next frontier: unvisited neighbours
//! W[j] = max(V[j], N[j])                       # the visited set after this level
//! ```
//!
//! With [`FormatPolicy::Adaptive`] the program is planned afresh before every level from the
//! statistics of the current frontier `F` and visited set `V` (their exact non-zero counts,
//! and the adjacency's degree statistics computed once): the logical optimizer, then the
//! physical optimizer, whose output formats for `N` and `W` follow their estimated sparsity
//! (dense above a quarter full, bytemap above 1%, else a sparse list; §6.2). The results are
//! kept in those formats and read by the next level. The baselines plan once and force every
//! output level to [`LevelFormat::Dense`] or [`LevelFormat::SortedList`]; all three run the
//! same kernels on the same engine, so their per-level frontier sizes must agree.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use crate::engine::{run_kernel, FiberTensor};
use crate::logical::{self, LogicalOptions};
use crate::parse::parse_program;
use crate::physical::{optimize, PhysicalOptions};
use crate::plan_ast::{Access, LevelFormat, PhysExpr, PhysicalPlan, Program, Protocol};
use crate::stats::{Estimator, InputStats};
use crate::tensor::CooTensor;
use crate::TensorError;

/// One BFS level as a tensor program over the frontier `F`, the visited set `V` and the
/// adjacency matrix `E` (0/1 vectors and matrix, fill 0).
pub const STEP_PROGRAM: &str = "N[j] = any[i](F[i] * E[i,j] * (1 - V[j]))\n\
W[j] = max(V[j], N[j])\n\
output N, W\n";

/// Who decides the formats of the frontier and visited vectors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FormatPolicy {
    /// The physical optimizer, re-run on the current statistics every level.
    Adaptive,
    /// Every output level dense (planned once).
    Dense,
    /// Every output level a sorted list (planned once).
    Sparse,
}

/// What one BFS run did.
#[derive(Clone, Debug, Default)]
pub struct BfsRun {
    /// Vertices first reached at each level (level 0 is the source alone).
    pub frontier_sizes: Vec<usize>,
    /// BFS level of every vertex (`None`: unreachable).
    pub level_of: Vec<Option<u32>>,
    /// Formats of the frontier `N` and visited `W` written at each level.
    pub formats: Vec<(LevelFormat, LevelFormat)>,
    /// Time of each level (its planning, for `Adaptive`, plus its kernels).
    pub level_times: Vec<Duration>,
    /// Planning time of each level (zero after the first for the baselines).
    pub level_planning: Vec<Duration>,
    /// Total time, including planning.
    pub total: Duration,
    /// Time spent collecting statistics and optimizing (re-planning every level for
    /// `Adaptive`, once for the others).
    pub planning: Duration,
}

impl BfsRun {
    /// The frontier formats as one letter per level (`D` dense, `B` bytemap, `s` sorted
    /// list, `h` hash).
    pub fn trace(&self) -> String {
        self.formats.iter().map(|(f, _)| letter(*f)).collect()
    }

    /// The visited-set formats, one letter per level as in [`BfsRun::trace`].
    pub fn visited_trace(&self) -> String {
        self.formats.iter().map(|(_, v)| letter(*v)).collect()
    }
}

fn letter(f: LevelFormat) -> char {
    match f {
        LevelFormat::Dense => 'D',
        LevelFormat::Bytemap => 'B',
        LevelFormat::SortedList => 's',
        LevelFormat::Hash => 'h',
    }
}

/// The step program, parsed.
pub fn step_program() -> Program {
    parse_program(STEP_PROGRAM)
        .expect("the BFS step program parses")
        .program
}

/// The non-fill entries of an order-1 fibertree as a [`CooTensor`] (for the estimators).
fn vector_coo(t: &FiberTensor) -> Result<CooTensor, TensorError> {
    let level = &t.levels[0];
    let (mut coords, mut vals) = (vec![], vec![]);
    if level.format == LevelFormat::Dense {
        for (c, &v) in t.vals.iter().enumerate() {
            if v != t.fill {
                coords.push(c as u32);
                vals.push(v);
            }
        }
    } else {
        let mut stored: Vec<(u32, f64)> = level
            .fiber(0)
            .iter()
            .enumerate()
            .map(|(k, &c)| (c, t.vals[level.child(0, k, c)]))
            .filter(|&(_, v)| v != t.fill)
            .collect();
        stored.sort_unstable_by_key(|e| e.0); // hash levels iterate unordered
        for (c, v) in stored {
            coords.push(c);
            vals.push(v);
        }
    }
    CooTensor::from_sorted_parts(t.dims.clone(), coords, vals, t.fill)
}

/// Degree facts about the adjacency matrix computed once per BFS (for
/// [`restrict_to_frontier`]).
#[derive(Clone, Copy, Debug)]
struct AdjacencyDegrees {
    /// Largest in-degree of any vertex: `D(i|j)` of `E`, valid for any row restriction.
    max_in: f64,
}

impl AdjacencyDegrees {
    fn of(adjacency: &FiberTensor) -> AdjacencyDegrees {
        let n = adjacency.dims[1];
        let mut in_degree = vec![0u32; n];
        if let Some(level) = adjacency.levels.get(1) {
            for &j in &level.idx {
                in_degree[j as usize] += 1;
            }
        }
        AdjacencyDegrees {
            max_in: in_degree.iter().copied().max().unwrap_or(0) as f64,
        }
    }
}

/// Statistics of `E` restricted to the frontier's rows, from the row pointer alone (O(|F|)):
/// the sum of the frontier's out-degrees bounds the edges leaving it and so the next
/// frontier's size, their maximum bounds `D(j|i)`, the rows with an edge bound `D(i|∅)`.
/// Every term of the step program multiplies `E` by `F`, so `E`'s other rows never contribute
/// and these bounds are valid for all of its accesses. With `E`'s whole-matrix statistics the
/// chain bound would price the next frontier at |F| × the maximum degree (on a power-law
/// graph: dense from the second level on). `None` when `E` is not stored as dense rows of
/// sorted columns (then `E`'s own statistics are used).
fn restrict_to_frontier(
    adjacency: &FiberTensor,
    degrees: AdjacencyDegrees,
    frontier: &FiberTensor,
    stats: &mut InputStats,
) -> Option<()> {
    let [rows, cols] = adjacency.levels.as_slice() else {
        return None;
    };
    if rows.format != LevelFormat::Dense || cols.format != LevelFormat::SortedList {
        return None;
    }
    let (mut edges, mut max_out, mut live_rows) = (0usize, 0usize, 0usize);
    for_each_stored(frontier, |i| {
        let d = cols.ptr[i + 1] - cols.ptr[i];
        edges += d;
        max_out = max_out.max(d);
        live_rows += usize::from(d > 0);
    });
    let n = adjacency.dims[1] as f64;
    let edges = edges as f64;
    stats.insert_bounds(
        "E",
        adjacency.dims.clone(),
        0.0,
        edges,
        &[
            (vec![0], vec![], live_rows as f64),
            (vec![1], vec![], edges.min(n)),
            (vec![1], vec![0], max_out as f64),
            (vec![0], vec![1], degrees.max_in.min(live_rows as f64)),
        ],
    );
    Some(())
}

/// A kernel whose accesses all look up (none iterates) walks every coordinate of its loops, and
/// looks each of its inputs up at every one of them. The results it reads from earlier kernels
/// of the plan are then stored dense: a dense lookup is an array read, a hash or bytemap
/// lookup costs several times more, and allocating the dense result costs no more than the
/// walk that reads it. In BFS this is `W = max(V, N)` once the visited set `V` is dense: the
/// next frontier `N` is stored dense although it is sparse (measured on 1M vertices: a hash
/// `N` made those levels 25-40 ms against 18 ms dense).
fn dense_when_walked(plan: &mut PhysicalPlan) {
    fn accesses<'e>(e: &'e PhysExpr, out: &mut Vec<&'e Access>) {
        match e {
            PhysExpr::Access(a) => out.push(a),
            PhysExpr::Literal(_) => {}
            PhysExpr::Map { args, .. } => args.iter().for_each(|a| accesses(a, out)),
        }
    }
    let mut walked: Vec<String> = vec![];
    for q in &plan.queries {
        let mut acc = vec![];
        accesses(&q.body, &mut acc);
        let walks = q.output_formats.iter().all(|f| *f == LevelFormat::Dense)
            && acc
                .iter()
                .all(|a| a.protocols.iter().all(|p| *p == Protocol::Lookup));
        if walks {
            walked.extend(acc.iter().filter(|a| a.is_alias).map(|a| a.name.clone()));
        }
    }
    for q in &mut plan.queries {
        if walked.contains(&q.name) {
            q.output_formats = vec![LevelFormat::Dense; q.output_formats.len()];
        }
    }
}

/// The adjacency matrix as the BFS planner sees it.
#[derive(Clone, Copy)]
struct Graph<'a> {
    fibers: &'a FiberTensor,
    /// Statistics of the whole matrix (`E`).
    stats: &'a InputStats,
    degrees: AdjacencyDegrees,
}

/// Calls `f` with the coordinate of every non-fill entry of an order-1 fibertree.
fn for_each_stored(t: &FiberTensor, mut f: impl FnMut(usize)) {
    let level = &t.levels[0];
    if level.format == LevelFormat::Dense {
        for (c, &v) in t.vals.iter().enumerate() {
            if v != t.fill {
                f(c);
            }
        }
    } else {
        for (k, &c) in level.fiber(0).iter().enumerate() {
            if t.vals[level.child(0, k, c)] != t.fill {
                f(c as usize);
            }
        }
    }
}

/// Plans the step program for the current frontier and visited set.
fn plan_step(
    program: &Program,
    graph: Graph<'_>,
    frontier: &FiberTensor,
    visited: &FiberTensor,
    counts: (usize, usize),
    estimator: Estimator,
) -> Result<PhysicalPlan, TensorError> {
    let mut stats = graph.stats.clone();
    restrict_to_frontier(graph.fibers, graph.degrees, frontier, &mut stats);
    // A transposed copy of `E` copies every edge, not the frontier's.
    stats.set_stored_entries("E", graph.fibers.vals.len() as f64);
    // An order-1 vector's only degree statistic is its count, which the BFS knows (`counts`:
    // frontier and visited sizes): no COO copy of a million-entry visited set per level
    // (that was most of the planning time).
    for ((name, t), count) in [("F", frontier), ("V", visited)]
        .into_iter()
        .zip([counts.0, counts.1])
    {
        stats.insert_bounds(name, t.dims.clone(), t.fill, count as f64, &[]);
    }
    // No distributivity search: the only distributable product is `F*E*(1-V)`, and its
    // distributed form `F*E + F*E*(-1)*V` is a union kernel with no sparse leader that the
    // engine runs as a walk over all of `E` (4.5 s to over 100 s per level on 1M vertices
    // with the uniform estimator), which the logical cost `nnz(out) + nnz(body)` does not
    // price. Charging leaderless walks in the logical cost is the general fix (not done).
    let logical_options = LogicalOptions {
        estimator,
        no_distribute: true,
        ..Default::default()
    };
    let logical = logical::optimize(program, &stats, &logical_options)?;
    let physical_options = PhysicalOptions {
        estimator,
        ..Default::default()
    };
    let mut p = optimize(&logical, &stats, &physical_options)?;
    dense_when_walked(&mut p);
    Ok(p)
}

/// Runs the kernels of `plan`; returns every result by kernel name.
fn run_plan(
    plan: &PhysicalPlan,
    inputs: &HashMap<&str, &FiberTensor>,
) -> Result<HashMap<String, FiberTensor>, TensorError> {
    let mut results: HashMap<String, FiberTensor> = HashMap::new();
    for q in &plan.queries {
        let t = {
            let lookup = |name: &str, is_alias: bool| {
                if is_alias {
                    results.get(name)
                } else {
                    inputs.get(name).copied()
                }
            };
            run_kernel(q, &lookup)?.0
        };
        results.insert(q.name.clone(), t);
    }
    Ok(results)
}

fn output(
    plan: &PhysicalPlan,
    results: &mut HashMap<String, FiberTensor>,
    name: &str,
) -> Result<FiberTensor, TensorError> {
    let kernel = plan
        .outputs
        .iter()
        .find(|(o, _)| o == name)
        .map(|(_, k)| k.clone())
        .ok_or_else(|| TensorError::Invalid(format!("the BFS plan has no output {name}")))?;
    results
        .remove(&kernel)
        .ok_or_else(|| TensorError::Invalid(format!("kernel {kernel} was not run")))
}

/// The number of vertices of the graph `adjacency` (square), of which `source` must be one.
fn vertices(adjacency: &FiberTensor, source: u32) -> Result<usize, TensorError> {
    let dims = &adjacency.dims;
    if dims.len() != 2 || dims[0] != dims[1] {
        return Err(TensorError::Invalid(format!(
            "BFS needs a square adjacency matrix, got dims {dims:?}"
        )));
    }
    let n = dims[0];
    if source as usize >= n {
        return Err(TensorError::Invalid(format!(
            "BFS source {source} is not a vertex of a {n}-vertex graph"
        )));
    }
    Ok(n)
}

/// Records `level` for the vertices of the next frontier `next` not reached before;
/// returns how many vertices `next` holds (0: the search is over).
fn record_level(run: &mut BfsRun, next: &FiberTensor, level: u32) -> Result<usize, TensorError> {
    let mut new = 0usize;
    let reached = vector_coo(next)?;
    for (c, _) in reached.iter() {
        let v = c[0] as usize;
        if run.level_of[v].is_none() {
            run.level_of[v] = Some(level);
        }
        new += 1;
    }
    Ok(new)
}

/// BFS from `source` over the 0/1 adjacency matrix `adjacency` (square, fill 0; `E[i,j]` is
/// an edge i → j), converted once to `adjacency_fibers` (CSR-like) by the caller, whose
/// degree statistics are in `adjacency_stats`. `estimator` is the optimizers' sparsity
/// estimator; both see `E` restricted to the frontier's rows ([`restrict_to_frontier`]): the
/// chain bound prices the next frontier at most at the frontier's out-degree sum, the uniform
/// one spreads those edges uniformly.
pub fn bfs(
    adjacency_fibers: &FiberTensor,
    adjacency_stats: &InputStats,
    source: u32,
    policy: FormatPolicy,
    estimator: Estimator,
) -> Result<BfsRun, TensorError> {
    let n = vertices(adjacency_fibers, source)?;
    let start = Instant::now();
    let program = step_program();
    let seed = CooTensor::from_sorted_parts(vec![n], vec![source], vec![1.0], 0.0)?;
    let seed_format = match policy {
        FormatPolicy::Dense => LevelFormat::Dense,
        _ => LevelFormat::SortedList,
    };
    let mut frontier = FiberTensor::from_coo(&seed, &[seed_format]);
    let mut visited = frontier.clone();
    let mut run = BfsRun {
        frontier_sizes: vec![1],
        level_of: vec![None; n],
        ..Default::default()
    };
    run.level_of[source as usize] = Some(0);
    let t = Instant::now();
    let degrees = AdjacencyDegrees::of(adjacency_fibers);
    run.planning += t.elapsed();
    let plan_now = |frontier: &FiberTensor, visited: &FiberTensor, run: &BfsRun| {
        let counts = (
            *run.frontier_sizes.last().expect("the source's level"),
            run.frontier_sizes.iter().sum(),
        );
        let graph = Graph {
            fibers: adjacency_fibers,
            stats: adjacency_stats,
            degrees,
        };
        plan_step(&program, graph, frontier, visited, counts, estimator)
    };
    // The baselines plan once, then force their formats.
    let fixed = match policy {
        FormatPolicy::Adaptive => None,
        FormatPolicy::Dense | FormatPolicy::Sparse => {
            let t = Instant::now();
            let mut plan = plan_now(&frontier, &visited, &run)?;
            for q in &mut plan.queries {
                q.output_formats = vec![seed_format; q.output_formats.len()];
            }
            run.planning += t.elapsed();
            Some(plan)
        }
    };
    let mut level = 0u32;
    loop {
        let level_start = Instant::now();
        let plan = match &fixed {
            Some(p) => {
                run.level_planning.push(Duration::ZERO);
                p.clone()
            }
            None => {
                let t = Instant::now();
                let p = plan_now(&frontier, &visited, &run)?;
                run.planning += t.elapsed();
                run.level_planning.push(t.elapsed());
                p
            }
        };
        let inputs: HashMap<&str, &FiberTensor> =
            [("E", adjacency_fibers), ("F", &frontier), ("V", &visited)]
                .into_iter()
                .collect();
        let mut results = run_plan(&plan, &inputs)?;
        let next = output(&plan, &mut results, "N")?;
        let now_visited = output(&plan, &mut results, "W")?;
        run.formats
            .push((next.levels[0].format, now_visited.levels[0].format));
        run.level_times.push(level_start.elapsed());
        level += 1;
        let new = record_level(&mut run, &next, level)?;
        if new == 0 {
            break;
        }
        run.frontier_sizes.push(new);
        frontier = next;
        visited = now_visited;
    }
    run.total = start.elapsed();
    Ok(run)
}
