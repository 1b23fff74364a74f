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

use super::{optimize, PhysicalOptions};
use crate::engine::{execute_query, fastpath, scan, FiberTensor};
use crate::logical::{self, LogicalOptions};
use crate::parse::parse_program;
use crate::plan_ast::{LevelFormat, PhysicalPlan, Program};
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
        self.formats
            .iter()
            .map(|(f, _)| match f {
                LevelFormat::Dense => 'D',
                LevelFormat::Bytemap => 'B',
                LevelFormat::SortedList => 's',
                LevelFormat::Hash => 'h',
            })
            .collect()
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

/// Plans the step program for the current frontier and visited set.
fn plan_step(
    program: &Program,
    base: &InputStats,
    frontier: &FiberTensor,
    visited: &FiberTensor,
    estimator: Estimator,
) -> Result<PhysicalPlan, TensorError> {
    let mut stats = base.clone();
    stats.insert("F", &vector_coo(frontier)?);
    stats.insert("V", &vector_coo(visited)?);
    let logical_options = LogicalOptions {
        estimator,
        ..Default::default()
    };
    let logical = logical::optimize(program, &stats, &logical_options)?;
    let physical_options = PhysicalOptions {
        estimator,
        ..Default::default()
    };
    optimize(&logical, &stats, &physical_options)
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
            match fastpath::matrix_product(q, &lookup) {
                Some(r) => r?,
                None => match scan::scan(q, &lookup) {
                    Some(r) => r?,
                    None => execute_query(q, &lookup)?,
                },
            }
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

/// BFS from `source` over the 0/1 adjacency matrix `adjacency` (square, fill 0; `E[i,j]` is
/// an edge i → j), converted once to `adjacency_fibers` (CSR-like) by the caller, whose
/// degree statistics are in `adjacency_stats`. `estimator` is the optimizers' sparsity
/// estimator: the chain bound prices the next frontier at |F| × the maximum degree (an upper
/// bound, pessimistic on power-law graphs), the uniform one at |F| × the average degree.
pub fn bfs(
    adjacency_fibers: &FiberTensor,
    adjacency_stats: &InputStats,
    source: u32,
    policy: FormatPolicy,
    estimator: Estimator,
) -> Result<BfsRun, TensorError> {
    let dims = &adjacency_fibers.dims;
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
    // The baselines plan once, then force their formats.
    let fixed = match policy {
        FormatPolicy::Adaptive => None,
        FormatPolicy::Dense | FormatPolicy::Sparse => {
            let t = Instant::now();
            let mut plan = plan_step(&program, adjacency_stats, &frontier, &visited, estimator)?;
            for q in &mut plan.queries {
                q.output_formats = vec![seed_format; q.output_formats.len()];
            }
            run.planning += t.elapsed();
            Some(plan)
        }
    };
    let mut level = 0u32;
    loop {
        let plan = match &fixed {
            Some(p) => p.clone(),
            None => {
                let t = Instant::now();
                let p = plan_step(&program, adjacency_stats, &frontier, &visited, estimator)?;
                run.planning += t.elapsed();
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
        level += 1;
        let mut new = 0usize;
        let reached = vector_coo(&next)?;
        for (c, _) in reached.iter() {
            let v = c[0] as usize;
            if run.level_of[v].is_none() {
                run.level_of[v] = Some(level);
            }
            new += 1;
        }
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
