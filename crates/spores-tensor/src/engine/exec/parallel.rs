//! Both cores: the outermost loop of a kernel that is still running after a short serial
//! start is split into chunks run by rayon's workers, each with private registers,
//! positions and output accumulator, merged in loop order afterwards ([`run_top`]). Small
//! kernels stay on one thread and pay nothing.
//!
//! Its own module because it is the only place threads enter the interpreter, with its own
//! tuning knob ([`set_parallel_after`]).

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use rayon::prelude::*;

use super::accum::Accumulator;
use super::loops::{account_skipped, go, walk_len, walk_range, write_cell, State};
use super::plan::Plan;
use crate::plan_ast::AggOp;
use spores_exec::ExecError;

/// Serial work on the outermost loop before the rest is split across threads, in
/// nanoseconds (25 ms): kernels that finish sooner never pay for threads or private
/// outputs. Not much less: handing work to pool threads costs their wake-up, which on a
/// loaded machine can be milliseconds.
static PARALLEL_AFTER_NS: AtomicU64 = AtomicU64::new(25_000_000);

/// Sets how long the outermost loop of a kernel runs serially before the rest of it is split
/// across threads (default 25 ms; `Duration::ZERO` splits every loop, which tests use to
/// exercise the parallel path on small inputs; `Duration::MAX` never splits).
pub fn set_parallel_after(after: Duration) {
    let ns = u64::try_from(after.as_nanos()).unwrap_or(u64::MAX);
    PARALLEL_AFTER_NS.store(ns, Ordering::Relaxed);
}

/// Private dense outputs per worker only up to this many cells (they are allocated and
/// merged whole).
const MAX_PARALLEL_DENSE_CELLS: usize = 1 << 22;

/// Runs the whole loop nest. The outermost loop runs serially in small steps until
/// [`set_parallel_after`]'s time (25 ms); what remains of it is then split into chunks that rayon's workers run
/// with private states and outputs, merged in loop order (so sequential outputs stay
/// sorted), and the skipped-coordinate and local-accumulator bookkeeping of that loop is
/// done once, after the merge.
pub(super) fn run_top(plan: &Plan, st: &mut State) {
    if plan.levels.is_empty() {
        go(plan, st, 0);
        return;
    }
    let local = plan.local_at == Some(0);
    let init = plan.agg.map_or(0.0, AggOp::init);
    if local {
        st.acc = init;
    }
    let len = walk_len(plan, st, 0);
    let step = (len / 64).max(1);
    let after = Duration::from_nanos(PARALLEL_AFTER_NS.load(Ordering::Relaxed));
    let start = Instant::now();
    let mut done = 0;
    while done < len && start.elapsed() < after && st.refused.is_none() {
        let hi = (done + step).min(len);
        walk_range(plan, st, 0, done, hi);
        done = hi;
    }
    // Only now ask rayon about threads: the first question starts its pool, which a kernel
    // that already finished must not pay for.
    let threads =
        if done < len && st.refused.is_none() && st.out.dense_cells() <= MAX_PARALLEL_DENSE_CELLS {
            rayon::current_num_threads()
        } else {
            1
        };
    let pieces = (threads * 8).min(len - done);
    // Workers' private dense outputs (at most one per piece) only where the budget has
    // room for them all; else the loop stays on one thread.
    let private_dense = (pieces * st.out.bytes()) as f64;
    let serial = threads < 2
        || (st.out.dense_cells() > 0
            && plan.held.bytes() + private_dense > spores_exec::memory::budget());
    if done < len && serial {
        walk_range(plan, st, 0, done, len);
    } else if done < len {
        let chunks: Vec<(usize, usize)> = (0..pieces)
            .map(|k| {
                let lo = done + (len - done) * k / pieces;
                let hi = done + (len - done) * (k + 1) / pieces;
                (lo, hi)
            })
            .collect();
        let union0 = st.union_buf[0].clone();
        let driver0 = st.driver[0];
        let out_init = st.out.empty_like(init);
        let parts: Vec<(Accumulator, f64, Option<ExecError>)> = chunks
            .par_iter()
            .fold(
                || {
                    let mut ws = State::new(plan, out_init.empty_like(init));
                    ws.union_buf[0] = union0.clone();
                    ws.driver[0] = driver0;
                    ws.acc = init;
                    ws
                },
                |mut ws, &(lo, hi)| {
                    walk_range(plan, &mut ws, 0, lo, hi);
                    ws
                },
            )
            .map(|ws| (ws.out, ws.acc, ws.refused))
            .collect();
        merge_parts(plan, st, parts, init);
    }
    account_skipped(plan, st, 0, len);
    if local {
        let v = st.acc;
        write_cell(plan, st, v, false);
    }
}

/// Merges the workers' outputs and local sums into `st` in loop order. A worker's refusal
/// by the budget is the kernel's; a merged output grows only after the budget was asked
/// (its parts are held meanwhile), and each part's bytes are released once merged.
fn merge_parts(
    plan: &Plan,
    st: &mut State,
    parts: Vec<(Accumulator, f64, Option<ExecError>)>,
    init: f64,
) {
    let local = plan.local_at == Some(0);
    for (out, acc, refused) in parts {
        if let Some(e) = refused {
            st.refused.get_or_insert(e);
        }
        if st.refused.is_some() {
            continue;
        }
        // A dense output has room for every cell already.
        let more = match out {
            Accumulator::Dense { .. } => 0,
            _ => out.entries(),
        };
        if let Err(e) = st.out.reserve(more, &plan.held) {
            st.refused = Some(e);
            continue;
        }
        let bytes = out.bytes();
        if let Err(e) = st.out.merge(out, plan.agg, init, &plan.held) {
            st.refused = Some(e);
            continue;
        }
        plan.held.release(bytes);
        if local {
            if let Some(agg) = plan.agg {
                st.acc = agg.combine(st.acc, acc);
            }
        }
    }
}
