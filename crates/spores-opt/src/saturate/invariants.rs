//! The class invariants no sound rule can break: a relational class's free indices
//! (`schema`) and an LA class's shape (`rows`, `cols`). When a rule equates two classes
//! whose invariants differ, egglog merges the two rows of the invariant's function; the
//! functions merge with a primitive (`keep-schema`, `keep-rows`, `keep-cols`) that keeps
//! the older value and records the conflict here, so an unsound rule is known by what it
//! did to the e-graph, and the search stops with [`OptError::Unsound`] naming the
//! invariant.
//!
//! egglog runs a merge wherever it rebuilds, possibly on its own threads, so conflicts go
//! to a shared log; each thread's e-graphs (templates and their copies) share that
//! thread's log, and a thread runs one search at a time, so [`begin`] clears it and
//! [`check`] reads it after every step.

use std::sync::{Arc, Mutex};

use egglog::{add_primitive, EGraph, Value};

use super::OptError;

/// Which invariants a merge found different since the log was cleared.
#[derive(Clone, Debug, Default)]
struct Log(Arc<Mutex<Vec<&'static str>>>);

/// One merge primitive's context: the log, and the invariant it guards.
#[derive(Clone, Debug)]
struct Keep {
    log: Log,
    invariant: &'static str,
}

impl Keep {
    fn merge(&self, old: Value, new: Value) -> Value {
        if old != new {
            let mut conflicts = self.log.0.lock().unwrap_or_else(|e| e.into_inner());
            if !conflicts.contains(&self.invariant) {
                conflicts.push(self.invariant);
            }
        }
        old
    }
}

thread_local! {
    static LOG: Log = Log::default();
}

/// Registers the invariants' merge primitives in `eg`, reporting to this thread's log.
/// Must run before the rules that declare the invariants (`lang.egg`) are parsed.
pub fn register(eg: &mut EGraph) {
    let log = LOG.with(Log::clone);
    let keep = |invariant| Keep {
        log: log.clone(),
        invariant,
    };
    let schema = keep("free indices (schema)");
    add_primitive!(eg, "keep-schema" = {schema: Keep} |old: #, new: #| -> # { self.ctx.merge(old, new) });
    let rows = keep("row counts");
    add_primitive!(eg, "keep-rows" = {rows: Keep} |old: #, new: #| -> # { self.ctx.merge(old, new) });
    let cols = keep("column counts");
    add_primitive!(eg, "keep-cols" = {cols: Keep} |old: #, new: #| -> # { self.ctx.merge(old, new) });
}

/// Forgets the conflicts of earlier searches on this thread.
pub fn begin() {
    LOG.with(|log| log.0.lock().unwrap_or_else(|e| e.into_inner()).clear());
}

/// Fails with [`OptError::Unsound`] when a merge on this thread found two classes'
/// invariants different since [`begin`].
pub fn check() -> Result<(), OptError> {
    LOG.with(|log| {
        let conflicts = log.0.lock().unwrap_or_else(|e| e.into_inner());
        match conflicts.as_slice() {
            [] => Ok(()),
            found => Err(OptError::Unsound(found.join(", "))),
        }
    })
}
