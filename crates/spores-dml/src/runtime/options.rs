//! How a script runs: the interpreter's settings, from the command line or Python.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use super::liveness::Live;
use crate::engine::{Placement, RelationalEngine};
use crate::opt::{DagOptimizer, NoOptimizer};

/// How the interpreter runs a script: arguments, what to print, the optimizer and the
/// engines.
pub struct RunOptions {
    /// Command-line arguments, read by `$name` and `ifdef`.
    pub args: HashMap<String, String>,
    /// Print each block's DAG the first time it runs.
    pub explain: bool,
    /// Print those explanations as Graphviz digraphs instead of text.
    pub explain_dot: bool,
    pub optimizer: Box<dyn DagOptimizer>,
    /// Physical planning with size estimates: the masked operators the optimizer chose
    /// compiled into the masked kernels; on by default, off to run them as written.
    pub sized_planning: bool,
    /// Fuse chains of element-wise operators into one pass ([`crate::plan::fuse_elementwise`]);
    /// on by default, off to compare against the operators one at a time.
    pub fuse_elementwise: bool,
    /// Where DML-bodied builtins (`NAME.dml`, function `m_NAME`) are found.
    pub builtins: Option<PathBuf>,
    /// Directory of the script, against which its `source(...)` paths resolve (the
    /// working directory when `None`).
    pub script_dir: Option<PathBuf>,
    /// Set from another thread to stop the run before its next basic block (how the
    /// Python bindings turn Ctrl-C into an error); a kernel already running finishes first.
    pub cancel: Option<Arc<AtomicBool>>,
    /// The relational engine that runs the blocks' sum-product subgraphs (see
    /// [`crate::engine`]); `None` runs everything on the local kernels.
    pub engine: Option<Arc<dyn RelationalEngine>>,
    /// Which of the subgraphs it supports the relational engine runs.
    pub placement: Placement,
    /// The variables the caller reads after the script: a block does not compute an
    /// assignment that neither the rest of the script nor the caller reads. All of them
    /// by default (the Python bindings return what a script leaves); `spores run` reads
    /// none.
    pub read_after: Live,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            args: HashMap::new(),
            explain: false,
            explain_dot: false,
            optimizer: Box::new(NoOptimizer),
            sized_planning: true,
            fuse_elementwise: true,
            builtins: None,
            script_dir: None,
            cancel: None,
            engine: None,
            placement: Placement::default(),
            read_after: Live::All,
        }
    }
}
