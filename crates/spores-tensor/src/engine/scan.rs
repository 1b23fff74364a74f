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
use super::times;
use crate::plan_ast::{Access, AggOp, LevelFormat, MapOp, PhysExpr, PhysicalQuery, Protocol};
use crate::TensorError;

/// Outputs up to this many cells are accumulated densely; larger ones go to the interpreter.
const MAX_OUTPUT_CELLS: usize = 1 << 26;

/// Dense loops inside a sparse leader's loops are walked in full (every cell evaluated, a
/// missed lookup reads the fill); the interpreter could skip parts of long ones, so they are
/// left to it.
const MAX_TAIL_CELLS: usize = 4096;

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

fn collect_accesses<'e>(e: &'e PhysExpr, out: &mut Vec<&'e Access>) {
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
    match scan_with(q, tensor, None)? {
        Ok(Scanned::Tensor(t)) => Some(Ok(t)),
        Ok(Scanned::Gram(_)) => None,
        Err(e) => Some(Err(e)),
    }
}

/// The Gram matrix `t(X) %*% X` of the kernel's result `X` (row-major `d × d`), computed
/// from the scan's rows without storing `X`, when `q` is a scan whose output is
/// `X[obs, j]` or `X[j, obs]` with `obs` the sparse leader's first index and `j` the single
/// inner loop (`d` = its size), summed: each observation's row is complete when the walk
/// leaves it, so blocks of finished rows go straight into the Gram accumulator
/// ([`super::fuse`] decides when the result is read by nothing else). `None` otherwise.
pub fn scan_gram<'a>(
    q: &PhysicalQuery,
    tensor: &dyn Fn(&str, bool) -> Option<&'a FiberTensor>,
    obs: &crate::plan_ast::Idx,
) -> Option<Result<Vec<f64>, TensorError>> {
    match scan_with(q, tensor, Some(obs))? {
        Ok(Scanned::Gram(g)) => Some(Ok(g)),
        Ok(Scanned::Tensor(_)) => None,
        Err(e) => Some(Err(e)),
    }
}

enum Scanned {
    Tensor(FiberTensor),
    Gram(Vec<f64>),
}

/// A kernel that has the scan's shape (see the module doc): its accesses, their tensors
/// and loop levels, the loop sizes and the sparse leader, if any.
struct Shape<'q, 'a> {
    accs: Vec<&'q Access>,
    tensors: Vec<&'a FiberTensor>,
    /// Loop level of each mode of each access.
    levels_of: Vec<Vec<usize>>,
    dims: Vec<usize>,
    leader: Option<usize>,
    fills: Vec<f64>,
}

impl<'q, 'a> Shape<'q, 'a> {
    /// `q`'s accesses resolved and checked: concordant with the loops, sizes agreeing,
    /// every loop an output or aggregate index, a sparse leader or all-dense accesses, and
    /// no sparse follower the plan iterates. `None` when `q` is no scan.
    fn of(
        q: &'q PhysicalQuery,
        tensor: &dyn Fn(&str, bool) -> Option<&'a FiberTensor>,
    ) -> Option<Shape<'q, 'a>> {
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
        // Without a leader every access must be all-dense; with one, the others may be in
        // any format (looked up level by level) when the dense loops are short.
        if leader.is_none() && tensors.iter().any(|t| !all_dense(t)) {
            return None;
        }
        // A sparse access that the plan iterates inside the leader's loops drives those
        // loops in the interpreter (only its stored entries are visited); walking them in
        // full here would turn a sparse intersection into a dense scan (a subgraph count's
        // last kernel went from 0.07 ms to 58 ms that way).
        let sparse_follower_iterates = (0..accs.len()).any(|a| {
            Some(a) != leader
                && !all_dense(tensors[a])
                && accs[a].protocols.iter().any(|p| *p != Protocol::Lookup)
        });
        if sparse_follower_iterates {
            return None;
        }
        let fills: Vec<f64> = tensors.iter().map(|t| t.fill).collect();
        Some(Shape {
            accs,
            tensors,
            levels_of,
            dims,
            leader,
            fills,
        })
    }

    /// The first loop inside the leader's (0 without a leader), if the scan is exact there:
    /// a `sum` (or no aggregate) of a body the leader annihilates over short dense loops,
    /// or, without a leader, a loop nest no larger than twice the largest access.
    fn first_dense_loop(&self, q: &PhysicalQuery) -> Option<usize> {
        let dims = &self.dims;
        match self.leader {
            Some(a) => {
                if !matches!(q.agg, None | Some(AggOp::Sum)) {
                    return None;
                }
                let at = |k: usize| (k == a).then_some(self.fills[a]);
                if fold(&q.body, &at, &mut 0) != Some(0.0) {
                    return None;
                }
                let m = self.accs[a].idxs.len();
                let tail: usize = dims[m..].iter().product();
                if tail > MAX_TAIL_CELLS {
                    return None;
                }
                Some(m)
            }
            None => {
                let cells = dims.iter().try_fold(1usize, |c, &d| c.checked_mul(d))?;
                let largest = self.tensors.iter().map(|t| t.vals.len()).max().unwrap_or(1);
                if cells > 2 * largest.max(1) {
                    return None;
                }
                Some(0)
            }
        }
    }

    /// The result's fill: 0 under a leader (it annihilates the body), else the body's value
    /// over all fills, aggregated.
    fn result_fill(&self, q: &PhysicalQuery) -> Option<f64> {
        Some(match self.leader {
            Some(_) => 0.0,
            None => {
                let body_fill = fold(&q.body, &|k| Some(self.fills[k]), &mut 0)?;
                let agg_cells = q
                    .loop_order
                    .iter()
                    .zip(&self.dims)
                    .filter(|(i, _)| q.agg_idxs.contains(i))
                    .map(|(_, &d)| d as f64)
                    .product();
                q.agg.map_or(body_fill, |g| g.repeat(body_fill, agg_cells))
            }
        })
    }

    /// Where the inner block of loops (evaluated at once per entry) starts. Without a
    /// leader the outer dense loops play its part (their cells are the "entries"), keeping
    /// the inner block small.
    fn split(&self, first_dense_loop: usize) -> usize {
        match self.leader {
            Some(_) => first_dense_loop,
            None => {
                let dims = &self.dims;
                let mut split = dims.len();
                let mut tail = 1usize;
                while split > 0 && tail * dims[split - 1] <= BATCH {
                    split -= 1;
                    tail *= dims[split];
                }
                split
            }
        }
    }
}

/// The output of a scan: a dense array over the output modes.
struct Output {
    dims: Vec<usize>,
    cells: usize,
    /// Per loop level, the stride of its output mode (0 for aggregate loops).
    stride: Vec<usize>,
}

impl Output {
    /// The output of `q` over loops of sizes `dims`, if it is small enough to be dense.
    fn of(q: &PhysicalQuery, dims: &[usize]) -> Option<Output> {
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
        let mut stride = vec![0usize; dims.len()];
        let mut s = 1;
        for (k, &l) in out_levels.iter().enumerate().rev() {
            stride[l] = s;
            s *= out_dims[k];
        }
        Some(Output {
            dims: out_dims,
            cells,
            stride,
        })
    }
}

/// [`scan`] and [`scan_gram`] in one: `q` run as a scan into its result tensor, or with
/// `gram` into the Gram matrix of that result; `None` when `q` is no scan.
fn scan_with<'a>(
    q: &PhysicalQuery,
    tensor: &dyn Fn(&str, bool) -> Option<&'a FiberTensor>,
    gram: Option<&crate::plan_ast::Idx>,
) -> Option<Result<Scanned, TensorError>> {
    let shape = Shape::of(q, tensor)?;
    let first_dense_loop = shape.first_dense_loop(q)?;
    let output = Output::of(q, &shape.dims)?;
    let out_fill = shape.result_fill(q)?;
    let init = q.agg.map_or(out_fill, AggOp::init);
    let split = shape.split(first_dense_loop);
    let plan = BatchPlan::new(
        &q.body,
        &shape.accs,
        &shape.tensors,
        &shape.levels_of,
        &shape.dims,
        split,
        shape.leader,
    );
    let mut batch = Batch::new(&plan, shape.accs.len());
    if let Some(obs) = gram {
        return Some(gram_scan(q, &shape, &plan, &mut batch, &output, obs)?.map(Scanned::Gram));
    }
    if let Err(e) = super::budget::ensure_dense(&q.name, &output.dims, 8.0) {
        return Some(Err(e));
    }
    let out = scan_values(q, &shape, &plan, &mut batch, &output, init);
    Some(Ok(Scanned::Tensor(dense_result(
        q,
        &output.dims,
        out,
        out_fill,
    ))))
}

/// The Gram matrix of the scan's result (see [`scan_gram`]), if `q` has its shape: the
/// leader's first index the observations, one inner loop, a sum.
fn gram_scan(
    q: &PhysicalQuery,
    shape: &Shape,
    plan: &BatchPlan,
    batch: &mut Batch,
    output: &Output,
    obs: &crate::plan_ast::Idx,
) -> Option<Result<Vec<f64>, TensorError>> {
    let n = q.loop_order.len();
    let split = plan.split;
    let (Some(a), Some(AggOp::Sum)) = (shape.leader, q.agg) else {
        return None;
    };
    let j = &q.loop_order[n - 1];
    let shape_ok = split + 1 == n
        && q.loop_order[0] == *obs
        && q.output_idxs.len() == 2
        && q.output_idxs.contains(obs)
        && q.output_idxs.contains(j)
        && obs != j
        && plan.tail_len > 0;
    if !shape_ok {
        return None;
    }
    let t = shape.tensors[a];
    let key = |c: &[u32]| out_key(c, &output.stride, split);
    // The rows of one observation lie under one first-level entry of the leader, so
    // parts of its first level are independent: with several workers each walks its
    // part into a private d x d accumulator (the result is only d x d).
    let first = t.first_level_len();
    let workers = rayon::current_num_threads()
        .min(first / GRAM_PART_MIN)
        .max(1);
    // A d x d accumulator per worker and the sum of theirs.
    let d = plan.tail_len;
    if let Err(e) = super::budget::ensure_dense(&q.name, &[d, d], 8.0 * (workers + 1) as f64) {
        return Some(Err(e));
    }
    let mut g = if workers == 1 {
        gram_rows(t, 0..first, plan, batch, key)
    } else {
        use rayon::prelude::*;
        let per = first.div_ceil(workers);
        (0..workers)
            .into_par_iter()
            .map(|w| {
                let mut batch = Batch::new(plan, shape.accs.len());
                let part = w * per..((w + 1) * per).min(first);
                gram_rows(t, part, plan, &mut batch, key)
            })
            .reduce_with(|mut x, y| {
                x.iter_mut().zip(&y).for_each(|(a, b)| *a += b);
                x
            })
            .expect("at least one worker")
    };
    spores_exec::kernels::gram::mirror_upper(&mut g, plan.tail_len);
    Some(Ok(g))
}

/// The scan itself: every entry of the leader (or every outer dense cell) evaluated over
/// the inner block a batch at a time, accumulated into a dense output starting at `init`.
fn scan_values(
    q: &PhysicalQuery,
    shape: &Shape,
    plan: &BatchPlan,
    batch: &mut Batch,
    output: &Output,
    init: f64,
) -> Vec<f64> {
    let n = q.loop_order.len();
    let (split, dims, out_stride) = (plan.split, &shape.dims, &output.stride);
    // A zero start comes from spores-exec's allocator of big zeroed buffers (huge pages:
    // the 96 MB feature matrix took ~60 ms of first-touch page faults on 4 KiB pages).
    let mut out = if init == 0.0 {
        spores_exec::kernels::zeroed(output.cells)
    } else {
        vec![init; output.cells]
    };
    let out_tail: Vec<usize> = plan
        .tail_cells()
        .map(|tc| (split..n).zip(tc).map(|(l, c)| c * out_stride[l]).sum())
        .collect();
    let agg = q.agg;
    let flush = |batch: &mut Batch, out: &mut Vec<f64>| {
        batch.evaluate(plan);
        let t = plan.tail_len;
        let vals = &batch.result;
        for (e, &base) in batch.out_base.iter().enumerate() {
            let row = &vals[e * t..(e + 1) * t];
            match agg {
                Some(AggOp::Sum) => {
                    for (&off, &v) in out_tail.iter().zip(row) {
                        out[base + off] += v;
                    }
                }
                Some(g) => {
                    for (&off, &v) in out_tail.iter().zip(row) {
                        out[base + off] = g.combine(out[base + off], v);
                    }
                }
                None => {
                    for (&off, &v) in out_tail.iter().zip(row) {
                        out[base + off] = v;
                    }
                }
            }
        }
        batch.clear();
    };
    let out_key = |coord: &[u32]| -> usize { out_key(coord, out_stride, split) };
    let mut coord = vec![0u32; n];
    match shape.leader {
        Some(a) => {
            let t = shape.tensors[a];
            t.for_each_stored(|coord, v| {
                if v == t.fill {
                    return; // annihilates the body
                }
                batch.push(plan, coord, v, out_key(coord));
                if batch.full(plan) {
                    flush(batch, &mut out);
                }
            });
        }
        None => {
            let outer: usize = dims[..split].iter().product();
            for k in 0..outer {
                let mut r = k;
                for l in (0..split).rev() {
                    coord[l] = (r % dims[l]) as u32;
                    r /= dims[l];
                }
                batch.push(plan, &coord, 0.0, out_key(&coord));
                if batch.full(plan) {
                    flush(batch, &mut out);
                }
            }
        }
    }
    if !batch.is_empty() {
        flush(batch, &mut out);
    }
    out
}

/// The dense output array `out` as the result tensor, in the formats `q` requests (cells
/// holding the fill are not stored).
fn dense_result(
    q: &PhysicalQuery,
    out_dims: &[usize],
    out: Vec<f64>,
    out_fill: f64,
) -> FiberTensor {
    if out_dims.is_empty() {
        return FiberTensor::from_sorted(&[], &[], &[out[0]], out_fill, &[]);
    }
    if q.output_formats.len() == out_dims.len()
        && q.output_formats.iter().all(|f| *f == LevelFormat::Dense)
    {
        return FiberTensor::dense(out_dims, out, out_fill);
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
    FiberTensor::from_sorted(out_dims, &coords, &values, out_fill, &q.output_formats)
}

/// The output position of an entry: its coordinates at the loops outside the inner block.
fn out_key(coord: &[u32], out_stride: &[usize], split: usize) -> usize {
    (0..split).map(|l| coord[l] as usize * out_stride[l]).sum()
}

/// Leader first-level entries per worker below which the Gram scan stays on one thread.
const GRAM_PART_MIN: usize = 1 << 15;

/// Walks the leader `t` and adds the Gram matrix of the result rows (one per distinct
/// output key, entries of one key being consecutive in the walk) into a `d × d` buffer,
/// a batch at a time, for the leader's first-level entries `part`; returns its upper
/// triangle.
fn gram_rows(
    t: &FiberTensor,
    part: std::ops::Range<usize>,
    plan: &BatchPlan,
    batch: &mut Batch,
    key: impl Fn(&[u32]) -> usize,
) -> Vec<f64> {
    use spores_exec::kernels::gram::gram_add_upper;
    let d = plan.tail_len;
    let mut g = vec![0.0; d * d];
    // Finished rows, then the row still open (its key may continue in the next batch).
    const GRAM_ROWS: usize = 1024;
    let mut panel: Vec<f64> = Vec::with_capacity((GRAM_ROWS + plan.entries + 1) * d);
    let mut open_key = usize::MAX;
    let mut flush = |batch: &mut Batch, panel: &mut Vec<f64>, g: &mut [f64]| {
        batch.evaluate(plan);
        for (e, &k) in batch.out_base.iter().enumerate() {
            let row = &batch.result[e * d..(e + 1) * d];
            if k == open_key {
                let at = panel.len() - d;
                panel[at..].iter_mut().zip(row).for_each(|(x, &y)| *x += y);
            } else {
                panel.extend_from_slice(row);
                open_key = k;
            }
        }
        // Rows go to the accumulator in blocks of a few hundred (its panels and tiles
        // cost a fixed setup per call).
        let done = panel.len() / d - 1;
        if done >= GRAM_ROWS {
            gram_add_upper(&panel[..done * d], done, d, g);
            panel.drain(..done * d);
        }
        batch.clear();
    };
    t.for_each_stored_in(part, |coord, v| {
        if v == t.fill {
            return; // annihilates the body
        }
        batch.push(plan, coord, v, key(coord));
        if batch.full(plan) {
            flush(batch, &mut panel, &mut g);
        }
    });
    if !batch.is_empty() {
        flush(batch, &mut panel, &mut g);
    }
    if !panel.is_empty() {
        gram_add_upper(&panel, panel.len() / d, d, &mut g);
    }
    g
}

/// Elements (entry × inner dense cell) evaluated together: the body runs as a handful of
/// tight loops over arrays of this length instead of once per cell.
const BATCH: usize = 1024;

/// The body as a tree over access numbers (accesses numbered left to right).
#[derive(Clone, Debug)]
enum Node {
    Acc(usize),
    Lit(f64),
    Map(MapOp, Vec<Node>),
}

fn to_node(e: &PhysExpr, next: &mut usize) -> Node {
    match e {
        PhysExpr::Literal(v) => Node::Lit(*v),
        PhysExpr::Access(_) => {
            *next += 1;
            Node::Acc(*next - 1)
        }
        PhysExpr::Map { op, args } => {
            Node::Map(op.clone(), args.iter().map(|a| to_node(a, next)).collect())
        }
    }
}

/// How one access's values are gathered for a batch.
enum Source<'a> {
    /// The sparse leader: its entry's value, repeated over the inner cells.
    Leader,
    /// An all-dense tensor: position = outer part (from the entry's coordinates) + inner
    /// part (precomputed per inner cell) — a strided gather, contiguous for `T[s,h]` over `h`.
    Dense {
        t: &'a FiberTensor,
        /// (loop level, stride) of each mode at an outer loop.
        outer: Vec<(usize, usize)>,
        inner: Vec<usize>,
    },
    /// A sparse tensor whose last mode is the single inner loop (`S[s,j]` in CSR over `j`):
    /// the row is found once per entry (levels above the last, by the entry's coordinates)
    /// and scattered into the inner cells, instead of one search per cell.
    Row {
        t: &'a FiberTensor,
        /// Loop level of each mode above the last.
        outer: Vec<usize>,
    },
    /// A [`Source::Row`] whose rows all store their coordinates within one narrow band of
    /// the last mode (a dimension table holding its own block of a feature matrix's
    /// columns): read from a dense copy of the band, so a row is one contiguous load
    /// addressed from its parent position, not a dependent `ptr → idx → vals` chain.
    Band {
        t: &'a FiberTensor,
        outer: Vec<usize>,
        band: super::band::Band,
    },
    /// Any other format: looked up level by level (a miss reads the fill).
    Levels { t: &'a FiberTensor, ls: Vec<usize> },
}

/// What is fixed for the whole kernel: the sources, the body, the inner block's shape.
struct BatchPlan<'a> {
    sources: Vec<Source<'a>>,
    body: Node,
    /// Loop levels `split..n` are the inner block, walked in full for every entry.
    split: usize,
    tail_dims: Vec<usize>,
    tail_len: usize,
    /// Entries per batch.
    entries: usize,
    /// Whether some source needs the entries' coordinates (level-by-level lookups).
    keep_coords: bool,
    /// The inner cells' coordinates, when some source looks up level by level.
    cells: Vec<Vec<usize>>,
}

impl<'a> BatchPlan<'a> {
    fn new(
        body: &PhysExpr,
        accs: &[&crate::plan_ast::Access],
        tensors: &[&'a FiberTensor],
        levels_of: &[Vec<usize>],
        dims: &[usize],
        split: usize,
        leader: Option<usize>,
    ) -> BatchPlan<'a> {
        let tail_dims = dims[split..].to_vec();
        let tail_len: usize = tail_dims.iter().product();
        let mut plan = BatchPlan {
            sources: vec![],
            body: to_node(body, &mut 0),
            split,
            tail_dims,
            tail_len,
            entries: (BATCH / tail_len.max(1)).max(1),
            keep_coords: false,
            cells: vec![],
        };
        let tails: Vec<Vec<usize>> = plan.tail_cells().collect();
        for (a, t) in tensors.iter().enumerate() {
            let _ = &accs[a];
            if Some(a) == leader {
                plan.sources.push(Source::Leader);
            } else if all_dense(t) {
                let ls = &levels_of[a];
                let mut stride = vec![1usize; ls.len()];
                for m in (0..ls.len().saturating_sub(1)).rev() {
                    stride[m] = stride[m + 1] * t.dims[m + 1];
                }
                let outer = (0..ls.len())
                    .filter(|&m| ls[m] < split)
                    .map(|m| (ls[m], stride[m]))
                    .collect();
                let inner = tails
                    .iter()
                    .map(|tc| {
                        (0..ls.len())
                            .filter(|&m| ls[m] >= split)
                            .map(|m| tc[ls[m] - split] * stride[m])
                            .sum()
                    })
                    .collect();
                plan.sources.push(Source::Dense { t, outer, inner });
            } else if plan.tail_dims.len() == 1
                && levels_of[a].last() == Some(&split)
                && levels_of[a][..levels_of[a].len() - 1]
                    .iter()
                    .all(|&l| l < split)
            {
                let ls = &levels_of[a];
                let outer = ls[..ls.len() - 1].to_vec();
                // A band copy costs its cells once; the scan reads about one row per
                // leader entry, so copies far larger than that are not made.
                let budget = leader
                    .map_or(0, |l| tensors[l].vals.len())
                    .saturating_mul(plan.tail_len)
                    .max(1 << 16);
                match super::band::Band::of(t, budget) {
                    Some(band) => plan.sources.push(Source::Band { t, outer, band }),
                    None => plan.sources.push(Source::Row { t, outer }),
                }
            } else {
                plan.keep_coords = true;
                plan.cells.clone_from(&tails);
                plan.sources.push(Source::Levels {
                    t,
                    ls: levels_of[a].clone(),
                });
            }
        }
        plan
    }

    /// The inner block's cells in order (last loop fastest), as coordinates of loops
    /// `split..n`.
    fn tail_cells(&self) -> impl Iterator<Item = Vec<usize>> + '_ {
        (0..self.tail_len).map(move |k| {
            let mut r = k;
            let mut c = vec![0usize; self.tail_dims.len()];
            for m in (0..self.tail_dims.len()).rev() {
                c[m] = r % self.tail_dims[m];
                r /= self.tail_dims[m];
            }
            c
        })
    }
}

/// One batch of entries and the arrays it is evaluated in.
struct Batch {
    len: usize,
    /// Per source: the entries' outer positions (dense) or leader values.
    outer: Vec<Vec<usize>>,
    leader_vals: Vec<f64>,
    coords: Vec<u32>,
    out_base: Vec<usize>,
    /// Per source: the gathered values of every element.
    vals: Vec<Vec<f64>>,
    result: Vec<f64>,
}

impl Batch {
    fn new(plan: &BatchPlan, accesses: usize) -> Batch {
        let cap = plan.entries;
        Batch {
            len: 0,
            outer: (0..accesses).map(|_| Vec::with_capacity(cap)).collect(),
            leader_vals: Vec::with_capacity(cap),
            coords: vec![],
            out_base: Vec::with_capacity(cap),
            vals: (0..accesses)
                .map(|_| vec![0.0; cap * plan.tail_len])
                .collect(),
            result: vec![],
        }
    }

    fn push(&mut self, plan: &BatchPlan, coord: &[u32], leader_val: f64, out_base: usize) {
        for (s, o) in plan.sources.iter().zip(&mut self.outer) {
            match s {
                Source::Dense { outer, .. } => {
                    o.push(outer.iter().map(|&(l, st)| coord[l] as usize * st).sum())
                }
                Source::Row { t, outer } | Source::Band { t, outer, .. } => {
                    let mut p = 0usize;
                    for (m, &l) in outer.iter().enumerate() {
                        p = t.levels[m].lookup(p, coord[l]);
                    }
                    if let Source::Band { band, .. } = s {
                        band.prefetch(p);
                    }
                    o.push(p);
                }
                _ => {}
            }
        }
        self.leader_vals.push(leader_val);
        if plan.keep_coords {
            self.coords.extend_from_slice(&coord[..plan.split]);
        }
        self.out_base.push(out_base);
        self.len += 1;
    }

    fn full(&self, plan: &BatchPlan) -> bool {
        self.len >= plan.entries
    }

    fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn clear(&mut self) {
        self.len = 0;
        self.outer.iter_mut().for_each(Vec::clear);
        self.leader_vals.clear();
        self.coords.clear();
        self.out_base.clear();
    }

    /// Gathers every source's values, then runs the body over the arrays into `result`.
    fn evaluate(&mut self, plan: &BatchPlan) {
        let t = plan.tail_len;
        let n = self.len * t;
        for (a, src) in plan.sources.iter().enumerate() {
            let buf = &mut self.vals[a][..n];
            match src {
                Source::Leader => {
                    for (e, &v) in self.leader_vals.iter().enumerate() {
                        buf[e * t..(e + 1) * t].fill(v);
                    }
                }
                Source::Dense { t: ten, inner, .. } => {
                    let vals = &ten.vals;
                    if t == 1 {
                        let off = inner[0];
                        for (b, &base) in buf.iter_mut().zip(&self.outer[a]) {
                            *b = vals[base + off];
                        }
                    } else if inner
                        .iter()
                        .enumerate()
                        .all(|(k, &off)| off == inner[0] + k)
                    {
                        // A contiguous row (`T[s,h]` over `h`): one copy per entry.
                        for (e, &base) in self.outer[a].iter().enumerate() {
                            let from = base + inner[0];
                            buf[e * t..(e + 1) * t].copy_from_slice(&vals[from..from + t]);
                        }
                    } else {
                        for (e, &base) in self.outer[a].iter().enumerate() {
                            let row = &mut buf[e * t..(e + 1) * t];
                            for (b, &off) in row.iter_mut().zip(inner) {
                                *b = vals[base + off];
                            }
                        }
                    }
                }
                Source::Row { t: ten, outer } => {
                    let last = &ten.levels[outer.len()];
                    for (e, &p) in self.outer[a].iter().enumerate() {
                        let row = &mut buf[e * t..(e + 1) * t];
                        if p == FILL {
                            row.fill(ten.fill);
                        } else if last.format == LevelFormat::Dense {
                            row.copy_from_slice(&ten.vals[p * t..(p + 1) * t]);
                        } else {
                            row.fill(ten.fill);
                            for (k, &c) in last.fiber(p).iter().enumerate() {
                                row[c as usize] = ten.vals[last.child(p, k, c)];
                            }
                        }
                    }
                }
                Source::Band { t: ten, band, .. } => {
                    for (e, &p) in self.outer[a].iter().enumerate() {
                        band.fill_row(&mut buf[e * t..(e + 1) * t], p, ten.fill);
                    }
                }
                Source::Levels { t: ten, ls } => {
                    let mut coord = vec![0u32; plan.split + plan.tail_dims.len()];
                    for e in 0..self.len {
                        coord[..plan.split]
                            .copy_from_slice(&self.coords[e * plan.split..(e + 1) * plan.split]);
                        for (k, tc) in plan.cells.iter().enumerate() {
                            for (m, &c) in tc.iter().enumerate() {
                                coord[plan.split + m] = c as u32;
                            }
                            let mut p = 0usize;
                            for (m, &l) in ls.iter().enumerate() {
                                p = ten.levels[m].lookup(p, coord[l]);
                            }
                            buf[e * t + k] = if p == FILL { ten.fill } else { ten.vals[p] };
                        }
                    }
                }
            }
        }
        let vals: Vec<&[f64]> = self.vals.iter().map(|v| &v[..n]).collect();
        self.result = eval(&plan.body, &vals, n);
    }
}

/// An operand of a vectorized step.
enum Operand<'v> {
    Slice(&'v [f64]),
    Scalar(f64),
    Owned(Vec<f64>),
}

impl Operand<'_> {
    fn owned(self, n: usize) -> Vec<f64> {
        match self {
            Operand::Slice(s) => s.to_vec(),
            Operand::Scalar(v) => vec![v; n],
            Operand::Owned(v) => v,
        }
    }
}

fn operand<'v>(node: &Node, vals: &[&'v [f64]], n: usize) -> Operand<'v> {
    match node {
        Node::Acc(a) => Operand::Slice(vals[*a]),
        Node::Lit(v) => Operand::Scalar(*v),
        Node::Map(..) => Operand::Owned(eval(node, vals, n)),
    }
}

/// `acc[k] = f(acc[k], rhs[k])` over all elements.
#[inline(always)]
fn combine(acc: &mut [f64], rhs: &Operand, f: impl Fn(f64, f64) -> f64) {
    match rhs {
        Operand::Slice(s) => acc
            .iter_mut()
            .zip(s.iter())
            .for_each(|(x, &y)| *x = f(*x, y)),
        Operand::Owned(s) => acc
            .iter_mut()
            .zip(s.iter())
            .for_each(|(x, &y)| *x = f(*x, y)),
        Operand::Scalar(y) => acc.iter_mut().for_each(|x| *x = f(*x, *y)),
    }
}

/// The body's values over `n` elements; each operator is one loop over the arrays.
fn eval(node: &Node, vals: &[&[f64]], n: usize) -> Vec<f64> {
    let Node::Map(op, args) = node else {
        return operand(node, vals, n).owned(n);
    };
    // Each arm instantiates `combine`/`map` with its own closure, so the element loops are
    // monomorphic (a function pointer here cost an indirect call per element).
    macro_rules! fold_args {
        ($f:expr) => {{
            let mut acc = operand(&args[0], vals, n).owned(n);
            for a in &args[1..] {
                combine(&mut acc, &operand(a, vals, n), $f);
            }
            return acc;
        }};
    }
    macro_rules! map_arg {
        ($f:expr) => {{
            let mut acc = operand(&args[0], vals, n).owned(n);
            acc.iter_mut().for_each(|x| *x = $f(*x));
            return acc;
        }};
    }
    match (op, args.len()) {
        (_, 0) => {}
        (MapOp::Add, _) => fold_args!(|x: f64, y: f64| x + y),
        (MapOp::Mul, _) => fold_args!(times),
        (MapOp::Max, _) => fold_args!(f64::max),
        (MapOp::Min, _) => fold_args!(f64::min),
        (MapOp::Sub, 2) => fold_args!(|x: f64, y: f64| x - y),
        (MapOp::Div, 2) => fold_args!(|x: f64, y: f64| x / y),
        (MapOp::Relu, 1) => map_arg!(|x: f64| x.max(0.0)),
        (MapOp::Neg, 1) => map_arg!(|x: f64| -x),
        (MapOp::Abs, 1) => map_arg!(f64::abs),
        (MapOp::Exp, 1) => map_arg!(f64::exp),
        (MapOp::Sqrt, 1) => map_arg!(f64::sqrt),
        (MapOp::Sigmoid, 1) => map_arg!(|x: f64| 1.0 / (1.0 + (-x).exp())),
        _ => {}
    }
    // Any other operator: its arguments element by element.
    let ops: Vec<Operand> = args.iter().map(|a| operand(a, vals, n)).collect();
    let mut scratch = vec![0.0; ops.len()];
    (0..n)
        .map(|k| {
            for (s, o) in scratch.iter_mut().zip(&ops) {
                *s = match o {
                    Operand::Slice(v) => v[k],
                    Operand::Owned(v) => v[k],
                    Operand::Scalar(v) => *v,
                };
            }
            op.apply(&scratch)
        })
        .collect()
}
