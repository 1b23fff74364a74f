//! Python bindings of spores: the `spores._native` extension module.
//!
//! The Python package (`python/spores/`) builds lazy expressions and DML text; this module
//! runs them on the same path as `spores run` (parse, per-block DAG, SPORES optimizer,
//! physical planning, fused kernels) and wraps the other commands.
//!
//! - [`convert`]: NumPy/SciPy values in and out (where it copies is documented there);
//! - [`errors`]: the exception types;
//! - [`engine`]: the engine thread (GIL released, Ctrl-C, threads, compiled scripts kept
//!   between calls);
//! - [`tensor`]: tensor programs.

/// The engine's result buffers come and go at every call; mimalloc keeps freed memory for
/// reuse where glibc unmaps large blocks and faults them in again (see the CLI's
/// `main.rs`). Only Rust's own allocations use it: NumPy's buffers are NumPy's. Its
/// thread-local state is local-dynamic TLS, as a library loaded by `dlopen` needs.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod convert;
mod engine;
mod errors;
mod tensor;

use std::collections::HashMap;
use std::path::PathBuf;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use spores_opt::la::{LaExpr, ShapeEnv};

/// Runs a DML script with `inputs` bound as variables. Returns the requested outputs
/// (every variable the script leaves, except the inputs, when `outputs` is None) and
/// what the script printed (with `explain`, the plan of each block as `--explain` prints
/// it, or as Graphviz with `explain_dot`).
#[pyfunction]
#[pyo3(signature = (source, inputs, args=None, outputs=None, explain=false, optimize=true, name="<script>".to_string(), script_dir=None, builtins=None, explain_dot=false, full_search=false, single_block=false))]
#[allow(clippy::too_many_arguments)]
fn run_script<'py>(
    py: Python<'py>,
    source: String,
    inputs: &Bound<'py, PyDict>,
    args: Option<HashMap<String, String>>,
    outputs: Option<Vec<String>>,
    explain: bool,
    optimize: bool,
    name: String,
    script_dir: Option<PathBuf>,
    builtins: Option<PathBuf>,
    explain_dot: bool,
    full_search: bool,
    single_block: bool,
) -> PyResult<(Bound<'py, PyDict>, String)> {
    let bound = convert::inputs_from_python(inputs)?;
    let input_names: Vec<String> = bound.keys().cloned().collect();
    let text = source.clone();
    let mut args: Vec<(String, String)> = args.unwrap_or_default().into_iter().collect();
    args.sort();
    let key = engine::ScriptKey {
        source,
        args,
        optimize,
        full_search,
        script_dir,
        builtins,
    };
    let work = move |state: &mut engine::EngineState| {
        let explain = explain.then_some(explain_dot);
        state.run_script(key, bound, explain)
    };
    // A single block has nothing to cancel between blocks: it may run on this thread.
    let result = if single_block {
        engine::submit_inline(py, work)?
    } else {
        engine::submit(py, work)?
    };
    let (mut env, printed) = result.map_err(|e| errors::script_error(&e, &name, &text))?;
    let wanted = match outputs {
        Some(names) => names,
        None => {
            let mut names: Vec<String> = env
                .keys()
                .filter(|n| !input_names.contains(n))
                .cloned()
                .collect();
            names.sort();
            names
        }
    };
    let out = PyDict::new(py);
    for n in wanted {
        let v = env.remove(&n).ok_or_else(|| {
            errors::SporesError::new_err(format!("the script does not define an output `{n}`"))
        })?;
        out.set_item(&n, convert::value_to_python(py, v)?)?;
    }
    Ok((out, printed))
}

/// The inputs' description shared by `optimize` and `equiv`, checked as the CLI's
/// `--shape`, `--nnz` and `--scalar` are.
fn shape_env(
    shapes: &HashMap<String, (usize, usize)>,
    nnz: &HashMap<String, f64>,
    scalars: &[String],
) -> Result<ShapeEnv, String> {
    let mut env = ShapeEnv::default();
    for (name, (rows, cols)) in shapes {
        env.add_shape_arg(&format!("{name}={rows}x{cols}"))
            .map_err(|e| e.to_string())?;
    }
    for name in scalars {
        env.scalar(name);
    }
    let mut nnz: Vec<_> = nnz.iter().collect();
    nnz.sort_by(|a, b| a.0.cmp(b.0));
    for (name, n) in nnz {
        env.add_nnz_arg(&format!("{name}={n}"))
            .map_err(|e| e.to_string())?;
    }
    Ok(env)
}

/// `spores optimize`: the optimized plan of one expression with its costs, as the CLI
/// prints it.
#[pyfunction]
#[pyo3(signature = (expr, shapes, nnz=HashMap::new(), scalars=Vec::new()))]
fn optimize_expr(
    py: Python<'_>,
    expr: String,
    shapes: HashMap<String, (usize, usize)>,
    nnz: HashMap<String, f64>,
    scalars: Vec<String>,
) -> PyResult<String> {
    use spores_opt::saturate::{OptError, OptimizeOptions};
    let env = shape_env(&shapes, &nnz, &scalars)
        .map_err(|e| errors::command_error(2, &format!("error: {e}")))?;
    let options = OptimizeOptions::default();
    // Parsed, optimized and printed on the engine thread: an expression may be a chain of
    // 50,000 operators, whose tree the passes walk recursively, deeper than the calling
    // thread's stack holds.
    let plan = engine::submit(py, move |_| {
        let parsed = LaExpr::parse(&expr).map_err(|d| Err(d.render("<expr>", &expr)))?;
        spores_opt::verified::optimize_verified(&parsed, &env, &options)
            .map(|plan| plan.to_string())
            .map_err(Ok)
    })?;
    match plan {
        Ok(plan) => Ok(plan),
        Err(Err(parse)) => Err(errors::command_error(2, &parse)),
        Err(Ok(e @ OptError::Shape(_))) => Err(errors::command_error(2, &format!("error: {e}"))),
        Err(Ok(e)) => Err(errors::command_error(1, &format!("error: {e}"))),
    }
}

/// `spores equiv`: whether two expressions are equal for all inputs; returns
/// `(verdict, witness)` with the verdict "equivalent", "not equivalent" or "unknown: why",
/// and for "not equivalent" the witness inputs and both sides' values (keys `lhs`, `rhs`)
/// as 2-D arrays. Without shapes, dimensions are symbolic. `positive` names inputs positive
/// in every cell.
#[pyfunction]
#[pyo3(signature = (lhs, rhs, shapes, scalars=Vec::new(), positive=Vec::new()))]
fn equiv_exprs<'py>(
    py: Python<'py>,
    lhs: String,
    rhs: String,
    shapes: HashMap<String, (usize, usize)>,
    scalars: Vec<String>,
    positive: Vec<String>,
) -> PyResult<(String, Bound<'py, PyDict>)> {
    use spores_opt::canon::{self, Equivalence};
    let mut env =
        shape_env(&shapes, &HashMap::new(), &scalars).map_err(errors::ShapeError::new_err)?;
    for name in positive {
        if !env.shapes.contains_key(&name) {
            return Err(errors::ShapeError::new_err(format!(
                "positive: no input `{name}` among the inputs given"
            )));
        }
        env.positive.insert(name);
    }
    // Parsed and decided on the engine thread, whose stack holds the deepest expressions
    // the parser accepts (see `optimize_expr`).
    let verdict = engine::submit(py, move |_| {
        let parse = |text: &str, side: &str| {
            LaExpr::parse(text).map_err(|d| d.render(side, text).trim_end().to_string())
        };
        let (l, r) = (parse(&lhs, "<lhs>")?, parse(&rhs, "<rhs>")?);
        Ok::<_, String>(canon::equiv(&l, &r, &env))
    })?
    .map_err(errors::ParseError::new_err)?
    .map_err(|e| errors::ShapeError::new_err(format!("error: {e}")))?;
    let witness = PyDict::new(py);
    let text = match verdict {
        Equivalence::Equivalent => "equivalent".to_string(),
        Equivalence::Unknown(why) => format!("unknown: {why}"),
        Equivalence::NotEquivalent(w) => {
            for (name, m) in &w.inputs {
                witness.set_item(name, convert::dense_to_python(py, &m.to_dense())?)?;
            }
            witness.set_item("lhs", convert::dense_to_python(py, &w.lhs.to_dense())?)?;
            witness.set_item("rhs", convert::dense_to_python(py, &w.rhs.to_dense())?)?;
            "not equivalent".to_string()
        }
    };
    Ok((text, witness))
}

/// A file in the temporary directory that is removed when dropped.
struct TempFile(PathBuf);

impl TempFile {
    fn with_text(suffix: &str, text: &str) -> PyResult<TempFile> {
        use std::sync::atomic::{AtomicU64, Ordering};
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let path =
            std::env::temp_dir().join(format!("spores-py-{}-{n}{suffix}", std::process::id()));
        std::fs::write(&path, text).map_err(|e| {
            errors::SporesError::new_err(format!("cannot write {}: {e}", path.display()))
        })?;
        Ok(TempFile(path))
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// `spores mlir opt`: MLIR text optimized with egglog rules (text, added to the shipped
/// prelude); returns the cheapest equivalent program in generic form. The text goes
/// through a temporary file so that custom syntax is normalized by mlir-opt-19 exactly as
/// the CLI does it.
#[pyfunction]
#[pyo3(signature = (text, rules=None, extractor="greedy".to_string()))]
fn mlir_opt(
    py: Python<'_>,
    text: String,
    rules: Option<String>,
    extractor: String,
) -> PyResult<String> {
    use spores_mlir::egg::{optimize, Extractor, OptOptions};
    let extractor: Extractor = extractor
        .parse()
        .map_err(|e| errors::command_error(2, &format!("error: {e}")))?;
    let input = TempFile::with_text(".mlir", &text)?;
    let module = spores_mlir::load(&input.0, &spores_mlir::LoadOptions::default())
        .map_err(|e| errors::command_error(2, &format!("error: {e}")))?;
    drop(input);
    let (rules, rules_name) = match rules {
        Some(text) => (text, "<rules>".to_string()),
        None => (String::new(), "no rules".to_string()),
    };
    let options = OptOptions {
        iter_limit: 100,
        node_limit: 2_000_000,
        time_limit: std::time::Duration::from_secs(10),
        extractor,
    };
    let (result, _) = engine::submit(py, move |_| {
        optimize(&module, &rules, &rules_name, &options)
    })?
    .map_err(|e| errors::command_error(1, &format!("error: {e}")))?;
    Ok(spores_mlir::print(
        &result,
        spores_mlir::PrintOptions::default(),
    ))
}

/// Sets how many threads the kernels use (default: one per core).
#[pyfunction]
fn set_threads(n: usize) -> PyResult<()> {
    if n == 0 {
        return Err(PyValueError::new_err("threads must be at least 1"));
    }
    engine::set_threads(n).map_err(PyValueError::new_err)
}

/// The number of threads the kernels use.
#[pyfunction]
fn get_threads() -> usize {
    engine::threads()
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    errors::register(m)?;
    m.add_function(wrap_pyfunction!(run_script, m)?)?;
    m.add_function(wrap_pyfunction!(optimize_expr, m)?)?;
    m.add_function(wrap_pyfunction!(equiv_exprs, m)?)?;
    m.add_function(wrap_pyfunction!(tensor::run_tensor, m)?)?;
    m.add_function(wrap_pyfunction!(mlir_opt, m)?)?;
    m.add_function(wrap_pyfunction!(set_threads, m)?)?;
    m.add_function(wrap_pyfunction!(get_threads, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
