//! spores-dml: running linear-algebra scripts written in SystemDS's DML, optimized.
//!
//! The pipeline, module by module:
//! 1. [`spores_lang`] parses a DML script into an AST;
//! 2. [`dag`] lowers each basic block into one DAG with common subexpressions shared;
//! 3. [`opt`] is where an optimizer rewrites a block's DAG into a cheaper equivalent;
//! 4. [`plan`] makes local kernel choices (e.g. products of transposes without copies);
//! 5. [`runtime`] runs the control flow and evaluates each DAG on the kernels of
//!    [`spores_exec`], or hands its sum-product subgraphs to a relational [`engine`].
//!
//! ```
//! let out = spores_dml::run_script("x = sum(matrix(2, rows=3, cols=4))\nprint(\"x = \" + x)", Default::default())
//!     .unwrap();
//! assert_eq!(out, "x = 24.0\n");
//! ```

pub mod dag;
pub mod engine;
mod java;
pub mod number;
pub mod opt;
pub mod plan;
pub mod runtime;

use spores_lang::diag::Diagnostic;

pub use runtime::{Interpreter, RunOptions, Value};

/// Stack a thread needs to run any script the front end accepts. The interpreter and the
/// passes over a block recurse: a DML call takes about 18 KB of stack per level in a debug
/// build (4 KB in release; the interpreter allows 10,000 nested calls, about 180 MB), and
/// a chain of binary operators about 6 KB per operator, in lowering (the parser allows
/// 50,000 in one expression, about 300 MB). 1 GiB holds both at once with room to spare;
/// the memory is reserved, not committed, so a run touches only what it uses.
/// [`run_script`] runs on the caller's thread: callers that take scripts they did not
/// write run it on a thread with this stack, as the `spores` binary and the Python package
/// do.
pub const STACK_BYTES: usize = 1 << 30;

/// Why a script did not run to the end.
#[derive(Debug)]
pub enum ScriptError {
    /// The script does not parse.
    Parse(Diagnostic),
    /// It parsed but failed while running (including `stop()`).
    Runtime(Diagnostic),
}

impl ScriptError {
    pub fn diagnostic(&self) -> &Diagnostic {
        match self {
            ScriptError::Parse(d) | ScriptError::Runtime(d) => d,
        }
    }
}

/// Parses and runs a script, returning what it printed. Convenient for tests and
/// embedding; the CLI uses [`Interpreter`] directly to stream output and keep stats.
pub fn run_script(source: &str, options: RunOptions) -> Result<String, ScriptError> {
    let program = spores_lang::parse(source).map_err(ScriptError::Parse)?;
    let mut out = Vec::new();
    let mut interp = Interpreter::new(&program, options, &mut out);
    interp.run(&program).map_err(ScriptError::Runtime)?;
    drop(interp);
    Ok(String::from_utf8_lossy(&out).into_owned())
}
