//! A fast path for kernels that are one scan: the stored entries of one sparse leader (or
//! none), times short dense loops, with the other accesses looked up.
//!
//! The ML-over-joins plans are made of these (Galley §8.1):
//! `y[i] = sum[s,p,o,c](L[i,s,p,o,c] * (yS[s] + yP[p] + yO[o] + yC[c]))` walks the lineitem tensor once and looks four dense
//! vectors up; `H[h,i] = sum[..](L[..] * (HS[s,h] + ..))` adds a dense inner loop over `h`;
//! `y[i] = sigmoid(t[i])` is all dense. The general interpreter ([`super::exec`]) runs these
//! through one level walk and one probe per loop level; here the leader's entries are
//! flattened once, dense accesses are addressed by strides, and the body runs as a small
//! stack program, so a body evaluation costs a handful of arithmetic operations.
//!
//! Taken only when it is exactly equivalent to the interpreter:
//! - sparse leader `A`: its indices are the outermost loops in its mode order, all iterated;
//!   the aggregate is `sum` (or none) and the body is `0` wherever `A` holds its fill (so the
//!   coordinates the scan skips contribute nothing and the result's fill is 0);
//! - the other accesses are looked up (a miss reads the fill) over dense loops inside the
//!   leader's, walked in full, so those are kept short; a sparse access the plan iterates
//!   (which would let the interpreter skip most of those loops) sends the kernel back to it;
//! - without a sparse leader, all accesses are all-dense and the loop nest is no larger than
//!   twice the largest access (no cartesian blow-up the interpreter might prune), with any
//!   aggregate.

use super::fibertree::{FiberTensor, FILL};
use crate::plan_ast::{AggOp, LevelFormat, MapOp, PhysExpr, PhysicalQuery, Protocol};
use crate::TensorError;

/// Outputs up to this many cells are accumulated densely; larger ones go to the interpreter.
const MAX_OUTPUT_CELLS: usize = 1 << 26;

/// Dense loops inside a sparse leader's loops are walked in full (every cell evaluated, a
/// missed lookup reads the fill); the interpreter could skip parts of long ones, so they are
/// left to it.
const MAX_TAIL_CELLS: usize = 4096;

/// One step of the body's stack program.
#[derive(Clone, Debug)]
enum Step {
    Load(usize),
    Lit(f64),
    Add,
    Mul,
    Max,
    Min,
    /// Any other operator over the top `n` values.
    Gen(MapOp, usize),
}

fn compile(e: &PhysExpr, accesses: &mut Vec<usize>, next: &mut usize, out: &mut Vec<Step>) {
    match e {
        PhysExpr::Literal(v) => out.push(Step::Lit(*v)),
        PhysExpr::Access(_) => {
            accesses.push(*next);
            out.push(Step::Load(*next));
            *next += 1;
        }
        PhysExpr::Map { op, args } => {
            for (k, a) in args.iter().enumerate() {
                compile(a, accesses, next, out);
                let binary = match op {
                    MapOp::Add => Some(Step::Add),
                    MapOp::Mul => Some(Step::Mul),
                    MapOp::Max => Some(Step::Max),
                    MapOp::Min => Some(Step::Min),
                    _ => None,
                };
                if let (Some(s), true) = (binary, k > 0) {
                    out.push(s);
                }
            }
            // n-ary built-ins fold pairwise above (one argument is its own value); any
            // other operator takes its arguments off the stack at once.
            if !matches!(op, MapOp::Add | MapOp::Mul | MapOp::Max | MapOp::Min) {
                out.push(Step::Gen(op.clone(), args.len()));
            }
        }
    }
}

#[inline]
fn run(steps: &[Step], vals: &[f64], stack: &mut Vec<f64>) -> f64 {
    stack.clear();
    for s in steps {
        match s {
            Step::Load(a) => stack.push(vals[*a]),
            Step::Lit(v) => stack.push(*v),
            Step::Add => {
                let y = stack.pop().expect("operand");
                let x = stack.last_mut().expect("operand");
                *x += y;
            }
            Step::Mul => {
                let y = stack.pop().expect("operand");
                let x = stack.last_mut().expect("operand");
                // The engine's `*`: a zero annihilates (0 * inf = 0).
                *x = if *x == 0.0 || y == 0.0 { 0.0 } else { *x * y };
            }
            Step::Max => {
                let y = stack.pop().expect("operand");
                let x = stack.last_mut().expect("operand");
                *x = x.max(y);
            }
            Step::Min => {
                let y = stack.pop().expect("operand");
                let x = stack.last_mut().expect("operand");
                *x = x.min(y);
            }
            Step::Gen(op, n) => {
                let at = stack.len() - n;
                let v = op.apply(&stack[at..]);
                stack.truncate(at);
                stack.push(v);
            }
        }
    }
    stack[0]
}

/// The body's value when the accesses `at_fill` hold their fills, if that folds to a
/// constant (annihilators included); accesses are numbered left to right.
fn fold(e: &PhysExpr, at_fill: &dyn Fn(usize) -> Option<f64>, next: &mut usize) -> Option<f64> {
    match e {
        PhysExpr::Literal(v) => Some(*v),
        PhysExpr::Access(_) => {
            let k = *next;
            *next += 1;
            at_fill(k)
        }
        PhysExpr::Map { op, args } => {
            let vals: Vec<Option<f64>> = args.iter().map(|a| fold(a, at_fill, next)).collect();
            if vals.iter().all(Option::is_some) {
                let v: Vec<f64> = vals.into_iter().flatten().collect();
                return Some(op.apply(&v));
            }
            match op.props().annihilator {
                Some(z) if vals.contains(&Some(z)) => Some(z),
                _ => None,
            }
        }
    }
}

fn collect_accesses<'e>(e: &'e PhysExpr, out: &mut Vec<&'e crate::plan_ast::Access>) {
    match e {
        PhysExpr::Access(a) => out.push(a),
        PhysExpr::Literal(_) => {}
        PhysExpr::Map { args, .. } => args.iter().for_each(|a| collect_accesses(a, out)),
    }
}

fn all_dense(t: &FiberTensor) -> bool {
    t.levels.iter().all(|l| l.format == LevelFormat::Dense)
}

/// Runs `q` as a scan if it has that shape (see the module doc); `None` otherwise.
pub fn scan<'a>(
    q: &PhysicalQuery,
    tensor: &dyn Fn(&str, bool) -> Option<&'a FiberTensor>,
) -> Option<Result<FiberTensor, TensorError>> {
    let n = q.loop_order.len();
    let mut accs = vec![];
    collect_accesses(&q.body, &mut accs);
    let mut tensors = Vec::with_capacity(accs.len());
    for a in &accs {
        let t = tensor(&a.name, a.is_alias)?;
        if t.order() != a.idxs.len() {
            return None;
        }
        tensors.push(t);
    }
    // Loop level of each mode of each access; concordant accesses only.
    let mut levels_of = vec![];
    let mut dims: Vec<Option<usize>> = vec![None; n];
    for (a, t) in accs.iter().zip(&tensors) {
        let mut ls = vec![];
        for (m, i) in a.idxs.iter().enumerate() {
            let l = q.loop_order.iter().position(|x| x == i)?;
            if ls.last().is_some_and(|&p| p >= l) {
                return None;
            }
            match dims[l] {
                Some(d) if d != t.dims[m] => return None, // the interpreter reports it
                _ => dims[l] = Some(t.dims[m]),
            }
            ls.push(l);
        }
        levels_of.push(ls);
    }
    let dims: Vec<usize> = dims.into_iter().collect::<Option<_>>()?;
    if q.loop_order
        .iter()
        .any(|i| !q.agg_idxs.contains(i) && !q.output_idxs.contains(i))
    {
        return None;
    }
    // The sparse leader, if any.
    let leader = (0..accs.len()).find(|&a| {
        let m = accs[a].idxs.len();
        m > 0
            && !all_dense(tensors[a])
            && levels_of[a] == (0..m).collect::<Vec<_>>()
            && accs[a].protocols.iter().all(|p| *p == Protocol::Iterate)
    });
    // Without a leader every access must be all-dense; with one, the others may be in any
    // format (looked up level by level) when the dense loops are short.
    if leader.is_none() && tensors.iter().any(|t| !all_dense(t)) {
        return None;
    }
    // A sparse access that the plan iterates inside the leader's loops drives those loops
    // in the interpreter (only its stored entries are visited); walking them in full here
    // would turn a sparse intersection into a dense scan (a subgraph count's last kernel
    // went from 0.07 ms to 58 ms that way).
    let sparse_follower_iterates = (0..accs.len()).any(|a| {
        Some(a) != leader
            && !all_dense(tensors[a])
            && accs[a].protocols.contains(&Protocol::Iterate)
    });
    if sparse_follower_iterates {
        return None;
    }
    let fills: Vec<f64> = tensors.iter().map(|t| t.fill).collect();
    let first_dense_loop = match leader {
        Some(a) => {
            if !matches!(q.agg, None | Some(AggOp::Sum)) {
                return None;
            }
            let at = |k: usize| (k == a).then_some(fills[a]);
            if fold(&q.body, &at, &mut 0) != Some(0.0) {
                return None;
            }
            let m = accs[a].idxs.len();
            let tail: usize = dims[m..].iter().product();
            if tail > MAX_TAIL_CELLS {
                return None;
            }
            m
        }
        None => {
            let cells = dims.iter().try_fold(1usize, |c, &d| c.checked_mul(d))?;
            let largest = tensors.iter().map(|t| t.vals.len()).max().unwrap_or(1);
            if cells > 2 * largest.max(1) {
                return None;
            }
            0
        }
    };
    let out_levels: Vec<usize> = q
        .output_idxs
        .iter()
        .map(|i| q.loop_order.iter().position(|x| x == i))
        .collect::<Option<_>>()?;
    let out_dims: Vec<usize> = out_levels.iter().map(|&l| dims[l]).collect();
    let cells = out_dims.iter().try_fold(1usize, |c, &d| c.checked_mul(d))?;
    if cells > MAX_OUTPUT_CELLS {
        return None;
    }
    let mut out_stride = vec![0usize; n];
    let mut s = 1;
    for (k, &l) in out_levels.iter().enumerate().rev() {
        out_stride[l] = s;
        s *= out_dims[k];
    }
    // Non-leader accesses: the loop level of each mode; a mode at a leader loop comes before
    // any at a dense loop (accesses are concordant).
    let followers: Vec<(usize, &FiberTensor, Vec<usize>)> = (0..accs.len())
        .filter(|&a| Some(a) != leader)
        .map(|a| (a, tensors[a], levels_of[a].clone()))
        .collect();
    // The body's value over all fills gives the result's fill (all-dense kernels).
    let out_fill = match leader {
        Some(_) => 0.0,
        None => {
            let body_fill = fold(&q.body, &|k| Some(fills[k]), &mut 0)?;
            let agg_cells = q
                .loop_order
                .iter()
                .zip(&dims)
                .filter(|(i, _)| q.agg_idxs.contains(i))
                .fold(1usize, |c, (_, &d)| c.saturating_mul(d));
            q.agg.map_or(body_fill, |g| g.repeat(body_fill, agg_cells))
        }
    };
    let init = q.agg.map_or(out_fill, AggOp::init);
    let mut out = vec![init; cells];
    let mut steps = vec![];
    compile(&q.body, &mut vec![], &mut 0, &mut steps);
    let mut vals = vec![0.0; accs.len()];
    let mut stack = Vec::with_capacity(steps.len());
    let mut coord = vec![0u32; n];
    let tail: Vec<usize> = (first_dense_loop..n).collect();
    let tail_cells: usize = tail.iter().map(|&l| dims[l]).product();
    let agg = q.agg;

    // Per follower: its position after the modes at leader loops, and how many those are.
    let mut prefix: Vec<(usize, usize)> = vec![(0, 0); followers.len()];
    // For one binding of the leader's loops: walk the dense loops.
    let mut dense_loops = |coord: &mut Vec<u32>, vals: &mut Vec<f64>, out: &mut Vec<f64>| {
        let base_key: usize = (0..first_dense_loop)
            .map(|l| coord[l] as usize * out_stride[l])
            .sum();
        for (f, (_, t, ls)) in followers.iter().enumerate() {
            let mut p = 0usize;
            let mut m = 0;
            while m < ls.len() && ls[m] < first_dense_loop {
                p = t.levels[m].lookup(p, coord[ls[m]]);
                m += 1;
            }
            prefix[f] = (p, m);
        }
        for k in 0..tail_cells {
            // Odometer: the tail coordinates of the k-th cell (last loop fastest).
            if let [l] = tail[..] {
                coord[l] = k as u32;
            } else {
                let mut r = k;
                for &l in tail.iter().rev() {
                    coord[l] = (r % dims[l]) as u32;
                    r /= dims[l];
                }
            }
            let mut key = base_key;
            for &l in &tail {
                key += coord[l] as usize * out_stride[l];
            }
            for (f, (a, t, ls)) in followers.iter().enumerate() {
                let (mut p, m0) = prefix[f];
                for m in m0..ls.len() {
                    p = t.levels[m].lookup(p, coord[ls[m]]);
                }
                vals[*a] = if p == FILL { t.fill } else { t.vals[p] };
            }
            let v = run(&steps, vals, &mut stack);
            out[key] = match agg {
                Some(AggOp::Sum) => out[key] + v,
                Some(g) => g.combine(out[key], v),
                None => v,
            };
        }
    };
    match leader {
        Some(a) => {
            let t = tensors[a];
            walk(t, 0, 0, &mut coord, &mut |coord, v| {
                if v == t.fill {
                    return; // annihilates the body
                }
                vals[a] = v;
                dense_loops(coord, &mut vals, &mut out);
            });
        }
        None => dense_loops(&mut coord, &mut vals, &mut out),
    }

    // Materialize in the requested formats.
    if out_dims.is_empty() {
        return Some(Ok(FiberTensor::from_sorted(
            &[],
            &[],
            &[out[0]],
            out_fill,
            &[],
        )));
    }
    if q.output_formats.len() == out_dims.len()
        && q.output_formats.iter().all(|f| *f == LevelFormat::Dense)
    {
        return Some(Ok(FiberTensor::dense(&out_dims, out, out_fill)));
    }
    let mut coords = vec![];
    let mut values = vec![];
    for (key, &v) in out.iter().enumerate() {
        if v == out_fill || (v.is_nan() && out_fill.is_nan()) {
            continue;
        }
        let mut r = key;
        let at = coords.len();
        coords.resize(at + out_dims.len(), 0);
        for m in (0..out_dims.len()).rev() {
            coords[at + m] = (r % out_dims[m]) as u32;
            r /= out_dims[m];
        }
        values.push(v);
    }
    let formats: Vec<LevelFormat> = (0..out_dims.len())
        .map(|m| {
            q.output_formats
                .get(m)
                .copied()
                .unwrap_or(LevelFormat::SortedList)
        })
        .collect();
    Some(Ok(FiberTensor::from_sorted(
        &out_dims, &coords, &values, out_fill, &formats,
    )))
}

/// Calls `f` on every stored entry of `t` with its coordinates (written into the first
/// `t.order()` slots of `coord`).
fn walk(
    t: &FiberTensor,
    l: usize,
    p: usize,
    coord: &mut Vec<u32>,
    f: &mut dyn FnMut(&mut Vec<u32>, f64),
) {
    if l == t.levels.len() {
        f(coord, t.vals[p]);
        return;
    }
    let level = &t.levels[l];
    if level.format == LevelFormat::Dense {
        for c in 0..level.dim {
            coord[l] = c as u32;
            walk(t, l + 1, p * level.dim + c, coord, f);
        }
    } else {
        for (k, &c) in level.fiber(p).iter().enumerate() {
            coord[l] = c;
            walk(t, l + 1, level.child(p, k, c), coord, f);
        }
    }
}
