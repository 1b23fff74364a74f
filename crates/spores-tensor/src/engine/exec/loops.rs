//! The loop nest of one kernel: each level walks its coordinates (a leader's fiber, a
//! union, an intersection, or every coordinate), probes the other accesses it binds, and
//! recurses; the innermost level runs the body program and writes its cell. What skipped
//! coordinates contribute is added per level ([`account_skipped`]).
//!
//! The hot path of the interpreter, kept apart from planning (which it only reads) and from
//! the parallel split of the outermost loop ([`super::parallel`]).

use super::accum::Accumulator;
use super::body::Node;
use super::plan::{Bind, LevelPlan, Plan, Skipped, Walk};
use crate::engine::fibertree::{Level, FILL};
use crate::engine::{intersect, times};
use crate::plan_ast::{AggOp, LevelFormat};
use spores_exec::ExecError;

/// The interpreter's mutable state while walking the loops.
pub(super) struct State {
    pub(super) pos: Vec<Vec<usize>>,
    pub(super) regs: Vec<f64>,
    pub(super) cur: Vec<u32>,
    pub(super) acc: f64,
    pub(super) out: Accumulator,
    pub(super) union_buf: Vec<Vec<u32>>,
    /// Per level: the driver (an index into the `Walk::Gallop` fibers) [`walk_len`] chose.
    pub(super) driver: Vec<usize>,
    /// Per level: the stationary fiber of a `Walk::Gallop` level, scattered.
    pub(super) marks: Vec<intersect::Marks>,
    /// Set when the memory budget refused the output room to grow: the loops stop.
    pub(super) refused: Option<ExecError>,
}

impl State {
    /// A fresh state: every access at its root, nothing accumulated into `out` yet.
    pub(super) fn new(plan: &Plan, out: Accumulator) -> State {
        let n = plan.levels.len();
        State {
            pos: plan
                .accs
                .iter()
                .map(|a| {
                    let mut p = vec![FILL; a.levels.len() + 1];
                    p[0] = 0;
                    p
                })
                .collect(),
            regs: plan.program.init_regs.clone(),
            cur: vec![0; n],
            acc: plan.agg.map_or(0.0, AggOp::init),
            out,
            union_buf: vec![vec![]; n],
            driver: vec![0; n],
            marks: vec![intersect::Marks::default(); n],
            refused: None,
        }
    }
}

/// The value access `a` holds at the current coordinates (its fill where it misses).
fn access_value(plan: &Plan, st: &State, a: usize) -> f64 {
    let p = *st.pos[a].last().expect("a root position");
    if p == FILL {
        plan.fills[a]
    } else {
        plan.accs[a].tensor.vals[p]
    }
}

/// The value of `n` at the current coordinates (a tree walk: only for skipped regions).
fn eval_node(plan: &Plan, st: &State, n: &Node) -> f64 {
    match n {
        Node::Acc(a) => access_value(plan, st, *a),
        Node::Lit(v) => *v,
        Node::Map(op, args) => {
            let v: Vec<f64> = args.iter().map(|x| eval_node(plan, st, x)).collect();
            op.apply(&v)
        }
    }
}

/// The output cell the current coordinates write.
#[inline]
fn out_key(plan: &Plan, st: &State) -> u64 {
    plan.out_levels
        .iter()
        .zip(&plan.strides)
        .map(|(&l, &s)| st.cur[l] as u64 * s)
        .sum()
}

/// Writes `v` into the current output cell (`combine`: with the aggregate, else replacing it).
#[inline]
pub(super) fn write_cell(plan: &Plan, st: &mut State, v: f64, combine: bool) {
    let key = out_key(plan, st);
    let agg = plan.agg;
    let merge = |old: f64| match (agg, combine) {
        (Some(a), true) => a.combine(old, v),
        _ => v,
    };
    // A write before the last cell of a sequential accumulator: its cells no longer
    // arrive in key order, so they go on in a hash map.
    if let Accumulator::Sequential(entries) = &st.out {
        if entries.last().is_some_and(|l| l.0 > key) {
            if let Err(e) = st.out.unorder(&plan.held) {
                st.refused = Some(e);
                return;
            }
        }
    }
    // A new entry that needs the accumulator to grow first asks the budget (once per
    // growth step: the length reaches the capacity only then).
    let grows = match &st.out {
        Accumulator::Sequential(entries) => {
            entries.len() == entries.capacity() && entries.last().is_none_or(|l| l.0 != key)
        }
        Accumulator::Hash(h) => h.len() == h.capacity() && !h.contains_key(&key),
        Accumulator::Dense { .. } => false,
    };
    if grows {
        if let Err(e) = st.out.reserve(1, &plan.held) {
            st.refused = Some(e);
            return;
        }
    }
    match &mut st.out {
        Accumulator::Sequential(entries) => match entries.last_mut() {
            Some(last) if last.0 == key => last.1 = merge(last.1),
            _ => entries.push((
                key,
                match agg {
                    Some(a) if combine => a.combine(a.init(), v),
                    _ => v,
                },
            )),
        },
        Accumulator::Dense { vals, touched } => {
            let k = key as usize;
            if !touched.is_empty() && !touched[k] {
                touched[k] = true;
                if let Some(a) = agg {
                    vals[k] = a.init();
                }
            }
            vals[k] = merge(vals[k]);
        }
        Accumulator::Hash(h) => {
            let init = agg.map_or(v, AggOp::init);
            let e = h.entry(key).or_insert(init);
            *e = merge(*e);
        }
    }
}

/// Runs level `d` and everything inside it, accumulating locally where the plan says so.
/// Nothing once the budget refused the output room: each enclosing loop then runs out
/// its remaining coordinates at one check each.
pub(super) fn go(plan: &Plan, st: &mut State, d: usize) {
    if st.refused.is_some() {
        return;
    }
    if plan.local_at == Some(d) {
        st.acc = plan.agg.map_or(0.0, AggOp::init);
        level(plan, st, d);
        let v = st.acc;
        write_cell(plan, st, v, false);
    } else {
        level(plan, st, d);
    }
}

/// Binds the non-leader accesses of level `d` at coordinate `c`; false when the coordinate
/// can be skipped.
#[inline]
fn probe(plan: &Plan, st: &mut State, lp: &LevelPlan, skip_bind: usize, c: u32) -> bool {
    lp.binds
        .iter()
        .enumerate()
        .all(|(b, bind)| b == skip_bind || probe_bind(plan, st, bind, c))
}

/// Looks coordinate `c` up in one bind's level; false when the coordinate can be skipped.
#[inline]
fn probe_bind(plan: &Plan, st: &mut State, bind: &Bind, c: u32) -> bool {
    let level = &plan.accs[bind.access].tensor.levels[bind.mode];
    let pos = &mut st.pos[bind.access];
    let q = level.lookup(pos[bind.mode], c);
    pos[bind.mode + 1] = q;
    if q == FILL && bind.skip_if_missing {
        return false;
    }
    if bind.skip_fill_value && q != FILL {
        let t = plan.accs[bind.access].tensor;
        if t.vals[q] == t.fill {
            return false;
        }
    }
    true
}

/// Walks level `d` in full (the innermost "level" runs the body).
fn level(plan: &Plan, st: &mut State, d: usize) {
    if d == plan.levels.len() {
        for a in 0..plan.accs.len() {
            st.regs[a] = access_value(plan, st, a);
        }
        let v = plan.program.run(&mut st.regs);
        if plan.local_at.is_some() {
            st.acc = match plan.agg {
                Some(agg) => agg.combine(st.acc, v),
                None => v,
            };
        } else {
            write_cell(plan, st, v, true);
        }
        return;
    }
    let len = walk_len(plan, st, d);
    walk_range(plan, st, d, 0, len);
    account_skipped(plan, st, d, len);
}

/// The level `bind` walks and its parent position under the current outer coordinates.
#[inline(always)]
fn bound_level<'p>(plan: &'p Plan, st: &State, bind: &Bind) -> (&'p Level, usize) {
    let level = &plan.accs[bind.access].tensor.levels[bind.mode];
    (level, st.pos[bind.access][bind.mode])
}

/// The leader bind `b` of `lp` with its level and parent position under the current outer
/// coordinates; `None` where the parent misses (the leader has no fiber: nothing to walk).
#[inline(always)]
fn leader_fiber<'p>(
    plan: &'p Plan,
    st: &State,
    lp: &'p LevelPlan,
    b: usize,
) -> Option<(&'p Bind, &'p Level, usize)> {
    let bind = &lp.binds[b];
    let (level, parent) = bound_level(plan, st, bind);
    (parent != FILL).then_some((bind, level, parent))
}

/// How many coordinates level `d` walks under the current outer coordinates (a union's
/// coordinates are left in `st.union_buf[d]` for [`walk_range`]).
pub(super) fn walk_len(plan: &Plan, st: &mut State, d: usize) -> usize {
    let lp = &plan.levels[d];
    match &lp.walk {
        Walk::Leader(b) => match leader_fiber(plan, st, lp, *b) {
            None => 0,
            Some((_, level, _)) if level.format == LevelFormat::Dense => lp.dim,
            Some((_, level, parent)) => level.fiber(parent).len(),
        },
        Walk::Union(list) => {
            let mut coords = std::mem::take(&mut st.union_buf[d]);
            coords.clear();
            let mut dense = false;
            for &b in list {
                let (level, parent) = bound_level(plan, st, &lp.binds[b]);
                if parent == FILL {
                    continue;
                }
                if level.format == LevelFormat::Dense {
                    dense = true;
                    break;
                }
                coords.extend_from_slice(level.fiber(parent));
            }
            if dense {
                coords.clear();
                coords.extend(0..lp.dim as u32);
            } else {
                coords.sort_unstable();
                coords.dedup();
            }
            let len = coords.len();
            st.union_buf[d] = coords;
            len
        }
        Walk::Gallop { fibers, .. } => {
            // The driver: the shortest fiber under the current parents (0 if one is empty).
            let mut best = (usize::MAX, 0usize);
            for (f, &b) in fibers.iter().enumerate() {
                let (level, parent) = bound_level(plan, st, &lp.binds[b]);
                let len = level.fiber(parent).len();
                if len < best.0 {
                    best = (len, f);
                }
            }
            st.driver[d] = best.1;
            best.0
        }
        Walk::All => lp.dim,
    }
}

/// Visits the walk positions `lo..hi` of level `d` (see [`walk_len`]).
pub(super) fn walk_range(plan: &Plan, st: &mut State, d: usize, lo: usize, hi: usize) {
    let lp = &plan.levels[d];
    match &lp.walk {
        Walk::Leader(b) => {
            let Some((bind, level, parent)) = leader_fiber(plan, st, lp, *b) else {
                return;
            };
            if level.format == LevelFormat::Dense {
                let t = plan.accs[bind.access].tensor;
                for c in lo..hi {
                    let q = parent * lp.dim + c;
                    st.pos[bind.access][bind.mode + 1] = q;
                    if bind.skip_fill_value && t.vals[q] == t.fill {
                        continue;
                    }
                    if probe(plan, st, lp, *b, c as u32) {
                        st.cur[d] = c as u32;
                        go(plan, st, d + 1);
                    }
                }
            } else {
                let fiber = level.fiber(parent);
                for (k, &c) in fiber.iter().enumerate().take(hi).skip(lo) {
                    if !lp.prefetch.is_empty() {
                        // The first entries' fibers all at once (their misses overlap),
                        // then one entry ahead per step.
                        let ahead = if k == lo {
                            lo + 1..lo + PREFETCH_AHEAD
                        } else {
                            k + PREFETCH_AHEAD - 1..k + PREFETCH_AHEAD
                        };
                        for k2 in ahead.start..ahead.end.min(hi) {
                            prefetch_fibers(plan, st, lp, *b, parent, k2, fiber);
                        }
                    }
                    st.pos[bind.access][bind.mode + 1] = level.child(parent, k, c);
                    if probe(plan, st, lp, *b, c) {
                        st.cur[d] = c;
                        go(plan, st, d + 1);
                    }
                }
            }
        }
        Walk::Union(_) => {
            let coords = std::mem::take(&mut st.union_buf[d]);
            for &c in &coords[lo..hi] {
                if probe(plan, st, lp, usize::MAX, c) {
                    st.cur[d] = c;
                    go(plan, st, d + 1);
                }
            }
            st.union_buf[d] = coords;
        }
        Walk::All => {
            for c in lo as u32..hi as u32 {
                if probe(plan, st, lp, usize::MAX, c) {
                    st.cur[d] = c;
                    go(plan, st, d + 1);
                }
            }
        }
        Walk::Gallop {
            fibers,
            probes,
            stationary,
        } => walk_intersection(plan, st, d, fibers, probes, *stationary, lo..hi),
    }
}

/// Entries ahead of the current one whose next-level fibers a sparse leader walk prefetches:
/// far enough for a memory access to complete in the meantime.
const PREFETCH_AHEAD: usize = 8;

/// Prefetches the next-level fibers of the binds `lp.prefetch` at the leader's `k`-th entry
/// (of `fiber`, under `parent`).
#[inline]
fn prefetch_fibers(
    plan: &Plan,
    st: &State,
    lp: &LevelPlan,
    leader: usize,
    parent: usize,
    k: usize,
    fiber: &[u32],
) {
    let c = fiber[k];
    for &b in &lp.prefetch {
        let bind = &lp.binds[b];
        let levels = &plan.accs[bind.access].tensor.levels;
        let q = if b == leader {
            levels[bind.mode].child(parent, k, c)
        } else {
            let p = st.pos[bind.access][bind.mode];
            if p == FILL {
                continue;
            }
            levels[bind.mode].lookup(p, c)
        };
        let next = &levels[bind.mode + 1];
        if let Some(&start) = next.ptr.get(q) {
            intersect::prefetch(&next.idx, start);
        }
    }
}

/// Visits the coordinates stored in every fiber of `fibers` (binds of level `d`), over the
/// driver's entries `part`, probing the binds `probes` at each.
fn walk_intersection(
    plan: &Plan,
    st: &mut State,
    d: usize,
    fibers: &[usize],
    probes: &[usize],
    stationary: Option<usize>,
    part: std::ops::Range<usize>,
) {
    let lp = &plan.levels[d];
    let mut lists: [&[u32]; intersect::MAX_FIBERS] = [&[]; intersect::MAX_FIBERS];
    let mut parents = [0usize; intersect::MAX_FIBERS];
    for (f, &b) in fibers.iter().enumerate() {
        let bind = &lp.binds[b];
        parents[f] = st.pos[bind.access][bind.mode];
        if parents[f] == FILL {
            return;
        }
        lists[f] = plan.accs[bind.access].tensor.levels[bind.mode].fiber(parents[f]);
    }
    let n = fibers.len();
    let driver = st.driver[d];
    // The stationary fiber scattered, when the other is not much longer (see `Marks`).
    let mut marks = None;
    if let Some(s) = stationary {
        let other = lists[1 - s];
        if !lists[s].is_empty() && other.len() <= intersect::SCATTER_RATIO * lists[s].len() {
            debug_assert!(part.start == 0 && part.end >= lists[driver].len());
            let bind = &lp.binds[fibers[s]];
            let level = &plan.accs[bind.access].tensor.levels[bind.mode];
            let start = level.ptr[parents[s]];
            let mut m = std::mem::take(&mut st.marks[d]);
            m.hold(
                &level.idx,
                parents[s],
                start..start + lists[s].len(),
                lp.dim,
            );
            marks = Some((s, m));
        }
    }
    if lp.sum_of_products {
        // The accesses bound above this level hold one value each for the whole walk.
        let bound_here = |a: usize| fibers.iter().any(|&b| lp.binds[b].access == a);
        let outer = (0..plan.accs.len())
            .filter(|&a| !bound_here(a))
            .fold(1.0, |v, a| times(v, access_value(plan, st, a)));
        if outer == 0.0 {
            return;
        }
        let mut values: [(&[f64], usize, &Level); intersect::MAX_FIBERS] =
            [(&[], 0, &plan.accs[0].tensor.levels[0]); intersect::MAX_FIBERS];
        for (f, &b) in fibers.iter().enumerate() {
            let bind = &lp.binds[b];
            let t = plan.accs[bind.access].tensor;
            values[f] = (&t.vals, parents[f], &t.levels[bind.mode]);
        }
        let mut total = 0.0;
        for_each_match(marks.as_ref(), &lists[..n], driver, part, |c, ks| {
            let mut v = outer;
            for (f, &k) in ks.iter().enumerate() {
                let (vals, parent, level) = values[f];
                v = times(v, vals[level.child(parent, k, c)]);
            }
            total += v;
        });
        st.acc += total;
        if let Some((_, m)) = marks {
            st.marks[d] = m;
        }
        return;
    }
    for_each_match(marks.as_ref(), &lists[..n], driver, part, |c, ks| {
        for (f, &b) in fibers.iter().enumerate() {
            let bind = &lp.binds[b];
            let t = plan.accs[bind.access].tensor;
            let q = t.levels[bind.mode].child(parents[f], ks[f], c);
            if bind.skip_fill_value && t.vals[q] == t.fill {
                return;
            }
            st.pos[bind.access][bind.mode + 1] = q;
        }
        if !probes
            .iter()
            .all(|&b| probe_bind(plan, st, &lp.binds[b], c))
        {
            return;
        }
        st.cur[d] = c;
        go(plan, st, d + 1);
    });
    if let Some((_, m)) = marks {
        st.marks[d] = m;
    }
}

/// Calls `found(c, ks)` for every coordinate `c` stored in all of `lists`, in increasing
/// order, `ks[f]` its position in `lists[f]`: through `marks` (the stationary fiber's index
/// and its scatter) when given, else by [`intersect::intersect`] over the driver's `part`.
#[inline]
fn for_each_match(
    marks: Option<&(usize, intersect::Marks)>,
    lists: &[&[u32]],
    driver: usize,
    part: std::ops::Range<usize>,
    mut found: impl FnMut(u32, &[usize]),
) {
    match marks {
        Some(&(s, ref m)) => {
            let mut ks = [0usize; 2];
            m.intersect(lists[1 - s], |c, k, j| {
                ks[s] = k;
                ks[1 - s] = j;
                found(c, &ks);
            });
        }
        None => intersect::intersect(lists, driver, part, found),
    }
}

/// Adds what the coordinates level `d` did not visit contribute (see [`Skipped`]).
pub(super) fn account_skipped(plan: &Plan, st: &mut State, d: usize, visited: usize) {
    let lp = &plan.levels[d];
    if let Skipped::Repeat(node) = &lp.skipped {
        let skipped = (lp.dim - visited.min(lp.dim)) as f64 * lp.inner_cells;
        if skipped > 0.0 {
            let agg = plan.agg.expect("repeat only under an aggregate");
            let c = eval_node(plan, st, node);
            let contribution = agg.repeat(c, skipped);
            if plan.local_at.is_some() {
                st.acc = agg.combine(st.acc, contribution);
            } else {
                write_cell(plan, st, contribution, true);
            }
        }
    }
}
