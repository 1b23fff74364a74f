//! The sparse tensor engine: fibertree tensors ([`fibertree`]) and an interpreter of
//! physical plans ([`exec`]), no JIT.
//!
//! [`execute_plan`] converts the inputs to fibertrees (formats chosen from their sparsity),
//! runs each kernel in order, storing every result in the level formats its kernel asks for
//! (later kernels read it through those formats), and returns the program outputs as
//! [`CooTensor`]s.

pub mod band;
pub mod budget;
mod closed_form;
pub mod exec;
pub mod fastpath;
pub mod fibertree;
mod fuse;
pub mod intersect;
pub mod matvec;
pub mod permute;
pub mod scan;

use std::collections::HashMap;
use std::time::{Duration, Instant};

pub use exec::execute_query;
pub use fibertree::{FiberTensor, Level};

use crate::plan_ast::{LevelFormat, PhysicalPlan};
use crate::tensor::CooTensor;
use crate::TensorError;

/// Per-kernel measurements of one run.
#[derive(Clone, Debug, Default)]
pub struct ExecReport {
    /// Time to convert the inputs to fibertrees.
    pub convert: Duration,
    /// (kernel name, time, stored entries of its result, formats of its result).
    pub kernels: Vec<(String, Duration, usize, Vec<LevelFormat>)>,
    /// Kernels that ran on one of the fixed kernels: a spores-exec matrix kernel
    /// ([`fastpath`]), a weighted pass ([`matvec`]), a transposition ([`permute`]).
    pub fast_paths: Vec<String>,
    /// Kernels that ran as one scan of a sparse leader with dense lookups ([`scan`]).
    pub scans: Vec<String>,
    /// (producer, consumer) kernel pairs run as one ([`fuse`]): the producer's result was
    /// never stored; its time is reported with the consumer's.
    pub fused: Vec<(String, String)>,
    /// Kernels whose result only program outputs read, handed to them as the cells the
    /// kernel wrote ([`scan::join_cells`]), never stored in level formats (reported with
    /// no formats).
    pub as_cells: Vec<String>,
}

impl ExecReport {
    /// A producer scan run as one with its consumer ([`fuse`]), started at `t0`: the
    /// producer reported with no time and no result, the consumer with both.
    fn push_fused(
        &mut self,
        producer: &str,
        consumer: &str,
        t0: Instant,
        stored: usize,
        formats: Vec<LevelFormat>,
    ) {
        self.scans.push(producer.to_string());
        self.fused
            .push((producer.to_string(), consumer.to_string()));
        self.kernels
            .push((producer.to_string(), Duration::ZERO, 0, vec![]));
        self.kernels
            .push((consumer.to_string(), t0.elapsed(), stored, formats));
    }
}

/// Inputs already converted to fibertrees (convert once, run many plans).
pub struct EngineInputs {
    pub tensors: HashMap<String, FiberTensor>,
}

impl EngineInputs {
    /// Converts every input with data-driven level formats.
    pub fn from_coo(inputs: &HashMap<String, CooTensor>) -> EngineInputs {
        EngineInputs {
            tensors: inputs
                .iter()
                .map(|(n, t)| (n.clone(), FiberTensor::from_coo_auto(t)))
                .collect(),
        }
    }
}

/// Runs every kernel of `plan` on `inputs`; returns the program outputs by name.
pub fn execute_plan(
    plan: &PhysicalPlan,
    inputs: &HashMap<String, CooTensor>,
) -> Result<(HashMap<String, CooTensor>, ExecReport), TensorError> {
    let start = Instant::now();
    let converted = EngineInputs::from_coo(inputs);
    let convert = start.elapsed();
    let (out, mut report) = execute_converted(plan, &converted)?;
    report.convert = convert;
    log::debug!("inputs converted to fibertrees in {convert:?}");
    Ok((out, report))
}

/// [`execute_plan`] on inputs converted beforehand.
pub fn execute_converted(
    plan: &PhysicalPlan,
    inputs: &EngineInputs,
) -> Result<(HashMap<String, CooTensor>, ExecReport), TensorError> {
    let mut results: HashMap<String, FiberTensor> = HashMap::new();
    // Results only program outputs read, kept as the outputs' cells.
    let mut cells: HashMap<String, CooTensor> = HashMap::new();
    let mut report = ExecReport::default();
    let mut fused_into: Option<usize> = None;
    for (qi, q) in plan.queries.iter().enumerate() {
        if fused_into == Some(qi) {
            continue;
        }
        let t0 = Instant::now();
        if let Some(obs) = fuse::gram_consumer(plan, qi) {
            let lookup = |name: &str, is_alias: bool| {
                if is_alias {
                    results.get(name)
                } else {
                    inputs.tensors.get(name)
                }
            };
            let in_closed_form = closed_form::result(q, &lookup).is_some();
            if let Some(g) = (!in_closed_form)
                .then(|| scan::scan_gram(q, &lookup, &obs))
                .flatten()
            {
                let g = g?;
                let d = (0..=g.len()).find(|d| d * d >= g.len()).unwrap_or(0);
                // A non-finite value in X shows on the diagonal (see fastpath::gram):
                // then both kernels run unfused.
                if (0..d).all(|j| g[j * d + j].is_finite()) {
                    let consumer = &plan.queries[qi + 1];
                    let t = fastpath::gram_tensor(consumer, d, g)?;
                    report.fast_paths.push(consumer.name.clone());
                    report.push_fused(&q.name, &consumer.name, t0, t.vals.len(), t.formats());
                    results.insert(consumer.name.clone(), t);
                    fused_into = Some(qi + 1);
                    continue;
                }
            }
        }
        if fuse::map_consumer(plan, qi) && read_by_outputs_only(plan, qi + 1) {
            let lookup = |name: &str, is_alias: bool| {
                if is_alias {
                    results.get(name)
                } else {
                    inputs.tensors.get(name)
                }
            };
            let consumer = &plan.queries[qi + 1];
            let mapped = (closed_form::result(q, &lookup).is_none())
                .then(|| scan::join_cells_mapped(q, consumer, &lookup))
                .flatten();
            if let Some(c) = mapped {
                let c = c?;
                report.push_fused(&q.name, &consumer.name, t0, c.nnz(), vec![]);
                report.scans.push(consumer.name.clone());
                report.as_cells.push(consumer.name.clone());
                cells.insert(consumer.name.clone(), c);
                fused_into = Some(qi + 1);
                continue;
            }
        }
        let t = {
            let lookup = |name: &str, is_alias: bool| {
                if is_alias {
                    results.get(name)
                } else {
                    inputs.tensors.get(name)
                }
            };
            let (t, path) = run_kernel_for(q, &lookup, read_by_outputs_only(plan, qi))?;
            match path {
                KernelPath::FastPath => report.fast_paths.push(q.name.clone()),
                KernelPath::Scan => report.scans.push(q.name.clone()),
                KernelPath::ClosedForm | KernelPath::Interpreter => {}
            }
            t
        };
        match t {
            KernelResult::Tree(t) => {
                let stored = t.vals.len();
                report
                    .kernels
                    .push((q.name.clone(), t0.elapsed(), stored, t.formats()));
                results.insert(q.name.clone(), t);
            }
            KernelResult::Cells(c) => {
                report
                    .kernels
                    .push((q.name.clone(), t0.elapsed(), c.nnz(), vec![]));
                report.as_cells.push(q.name.clone());
                cells.insert(q.name.clone(), c);
            }
        }
    }
    let mut out = HashMap::new();
    for (k, (name, query)) in plan.outputs.iter().enumerate() {
        if let Some(c) = cells.get(query) {
            let c = if plan.outputs[k + 1..].iter().any(|(_, q)| q == query) {
                budget::ensure_fits(
                    &format!("output {name}: a copy of {} entries", c.nnz()),
                    budget::coo_bytes(c.nnz(), c.dims().len()),
                )?;
                c.clone()
            } else {
                cells.remove(query).expect("just found")
            };
            out.insert(name.clone(), c);
            continue;
        }
        let t = results.remove(query).ok_or_else(|| {
            TensorError::Invalid(format!(
                "output {name} names kernel {query}, which the plan does not compute"
            ))
        })?;
        budget::ensure_fits(
            &format!("output {name}: {} entries", t.vals.len()),
            budget::coo_bytes(t.vals.len(), t.order()),
        )?;
        // Every kernel has run: the last output naming a result takes it (its values
        // move into the COO tensor instead of being copied).
        let coo = if plan.outputs[k + 1..].iter().any(|(_, q)| q == query) {
            let coo = t.to_coo()?;
            results.insert(query.clone(), t);
            coo
        } else {
            t.into_coo()?
        };
        out.insert(name.clone(), coo);
    }
    for (name, time, stored, formats) in &report.kernels {
        log::debug!("kernel {name}: {time:?}, {stored} stored entries, formats {formats:?}");
    }
    Ok((out, report))
}

/// Which of the engine's paths ran a kernel ([`run_kernel`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KernelPath {
    /// A result known without a loop (`closed_form`).
    ClosedForm,
    /// One of the fixed kernels: a weighted pass over a matrix ([`matvec`]), a matrix
    /// product ([`fastpath`]), a transposition ([`permute`]).
    FastPath,
    /// One scan of a leader's stored entries ([`scan`]).
    Scan,
    /// The general loop-nest interpreter ([`exec`]).
    Interpreter,
}

/// Runs one kernel on the first path that takes it: closed form, weighted pass, matrix
/// product, scans, then the interpreter. `tensor` finds inputs and earlier results.
pub fn run_kernel<'a>(
    q: &crate::plan_ast::PhysicalQuery,
    tensor: &dyn Fn(&str, bool) -> Option<&'a FiberTensor>,
) -> Result<(FiberTensor, KernelPath), TensorError> {
    match run_kernel_for(q, tensor, false)? {
        (KernelResult::Tree(t), path) => Ok((t, path)),
        (KernelResult::Cells(_), _) => unreachable!("cells are asked for only with outputs_only"),
    }
}

/// A kernel's result.
enum KernelResult {
    /// Stored in the level formats the kernel asks for, as later kernels read it.
    Tree(FiberTensor),
    /// The cells of a result only program outputs read ([`scan::join_cells`]).
    Cells(CooTensor),
}

/// [`run_kernel`]; when `outputs_only` (no later kernel reads the result), a join scan's
/// result comes back as its cells.
fn run_kernel_for<'a>(
    q: &crate::plan_ast::PhysicalQuery,
    tensor: &dyn Fn(&str, bool) -> Option<&'a FiberTensor>,
    outputs_only: bool,
) -> Result<(KernelResult, KernelPath), TensorError> {
    let tree = |t: FiberTensor, path| Ok((KernelResult::Tree(t), path));
    if let Some(t) = closed_form::result(q, tensor) {
        return tree(t, KernelPath::ClosedForm);
    }
    if let Some(r) = matvec::weighted_sum(q, tensor).or_else(|| fastpath::matrix_product(q, tensor))
    {
        return tree(r?, KernelPath::FastPath);
    }
    if let Some(r) = scan::map_stored(q, tensor) {
        return tree(r?, KernelPath::Scan);
    }
    if let Some(r) = permute::transposition(q, tensor) {
        return tree(r?, KernelPath::FastPath);
    }
    if let Some(r) = outputs_only.then(|| scan::join_cells(q, tensor)).flatten() {
        return Ok((KernelResult::Cells(r?), KernelPath::Scan));
    }
    if let Some(r) = scan::scan(q, tensor) {
        return tree(r?, KernelPath::Scan);
    }
    tree(execute_query(q, tensor)?, KernelPath::Interpreter)
}

/// Whether kernel `k`'s result is read by no later kernel, only by program outputs.
fn read_by_outputs_only(plan: &PhysicalPlan, k: usize) -> bool {
    let name = &plan.queries[k].name;
    plan.outputs.iter().any(|(_, q)| q == name)
        && !plan.queries[k + 1..]
            .iter()
            .any(|q| fuse::reads_alias(&q.body, name))
}

/// The engine's product: 0 annihilates (`0 * inf == 0`), unlike IEEE `*`; every kernel path
/// (interpreter, scan, weighted sums) multiplies with it so they agree.
#[inline(always)]
pub(crate) fn times(x: f64, y: f64) -> f64 {
    if x == 0.0 || y == 0.0 {
        0.0
    } else {
        x * y
    }
}
