//! Running a guarded root (see [`crate::dag::guard`]): the rewritten value when every
//! checked input is finite, else the root evaluated as written from the same inputs,
//! planned as a `--no-opt` run plans it.

use std::collections::HashMap;
use std::sync::atomic::Ordering;

use super::args::OpResult;
use super::ops::{self, EffectContext};
use super::value::Value;
use crate::dag::guard::GuardedRoot;
use crate::dag::{BlockDag, Op};

/// How the interpreter plans blocks (its `RunOptions`), for the as-written fallback.
pub(super) struct Planning {
    pub sized: bool,
    pub fuse: bool,
    /// Say under `--explain` (once per guard) that a fallback ran.
    pub explain: bool,
}

/// The value of an [`Op::Guarded`] node whose children evaluated to `args`.
pub(super) fn run_guarded(
    guard: &GuardedRoot,
    mut args: Vec<Value>,
    planning: &Planning,
    fx: &mut EffectContext,
) -> OpResult {
    let inputs = args.split_off(1);
    if guard.checked.iter().all(|&k| inputs[k].is_finite()) {
        return Ok(args.pop().expect("the rewritten value"));
    }
    if planning.explain && !guard.reported.swap(true, Ordering::Relaxed) {
        let _ = writeln!(
            fx.out,
            "guard %{}: a value it reads is NaN or Inf; evaluated as written",
            guard.root
        );
    }
    let env: HashMap<String, Value> = inputs
        .into_iter()
        .enumerate()
        .map(|(k, v)| (GuardedRoot::input_name(k), v))
        .collect();
    let block = &guard.as_written;
    let meta = (planning.sized && crate::plan::wants_meta(block))
        .then(|| crate::dag::meta::infer(&block.dag, &super::env::input_meta(block, &env)));
    let planned = crate::plan::physical_with(block, meta.as_deref(), planning.fuse);
    evaluate(planned.as_ref().unwrap_or(block), &env, fx)
}

/// Evaluates a block of pure operators over `env` (its inputs); its one output.
fn evaluate(block: &BlockDag, env: &HashMap<String, Value>, fx: &mut EffectContext) -> OpResult {
    let dag = &block.dag;
    let (needed, mut uses) = block.needed_and_uses();
    let mut values: Vec<Option<Value>> = vec![None; dag.len()];
    for (id, node) in dag.nodes().iter().enumerate().filter(|(id, _)| needed[*id]) {
        let args: Option<Vec<Value>> = node.children.iter().map(|&c| values[c].clone()).collect();
        let args = args.expect("children come first");
        let value = match &node.op {
            Op::Input(name) => env[name].clone(),
            op => ops::eval(op, &args, fx)?,
        };
        for &c in &node.children {
            uses[c] -= 1;
            if uses[c] == 0 {
                values[c] = None;
            }
        }
        values[id] = Some(value);
    }
    let (_, output) = block.outputs[0];
    Ok(values[output].take().expect("the output is evaluated"))
}
