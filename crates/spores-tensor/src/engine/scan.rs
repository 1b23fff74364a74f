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
use crate::tensor::CooTensor;
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
    match scan_with(q, tensor, Want::Tensor)? {
        Ok(Scanned::Tensor(t)) => Some(Ok(t)),
        Ok(Scanned::Cells(c)) => Some(Ok(c.into_tree(q))),
        Ok(Scanned::Gram(_)) => None,
        Err(e) => Some(Err(e)),
    }
}

/// [`scan`] for a result that no later kernel reads (a program output): when `q` is a join
/// scan whose result is too large to be dense (the predictions over a self-join's pairs),
/// its cells as they were written, sorted, as the output's COO tensor. Building the
/// result's levels and then listing them again for the output would write every cell
/// twice more (46.5 M pairs: ~1 GB of new memory, most of a second on page faults).
/// `None` for any other kernel.
pub fn join_cells<'a>(
    q: &PhysicalQuery,
    tensor: &dyn Fn(&str, bool) -> Option<&'a FiberTensor>,
) -> Option<Result<CooTensor, TensorError>> {
    match scan_with(q, tensor, Want::Cells)? {
        Ok(Scanned::Cells(c)) => Some(Ok(c.into_coo())),
        Ok(Scanned::Tensor(_) | Scanned::Gram(_)) => None,
        Err(e) => Some(Err(e)),
    }
}

/// [`join_cells`] for a join scan `q` whose cells a pointwise map `map` reads, alone and in
/// their order ([`super::fuse::map_consumer`]): the map's result as the output's COO
/// tensor, the join's cells mapped in place. What [`map_stored`] computes on the join's
/// result stored in levels: the stored cells mapped, the fill the map at 0. `None` when
/// `q` is no join scan listed as cells.
pub fn join_cells_mapped<'a>(
    q: &PhysicalQuery,
    map: &PhysicalQuery,
    tensor: &dyn Fn(&str, bool) -> Option<&'a FiberTensor>,
) -> Option<Result<CooTensor, TensorError>> {
    use rayon::prelude::*;
    let mut cells = match scan_with(q, tensor, Want::Cells)? {
        Ok(Scanned::Cells(c)) => c,
        Ok(Scanned::Tensor(_) | Scanned::Gram(_)) => return None,
        Err(e) => return Some(Err(e)),
    };
    let body = to_node(&map.body, &mut 0);
    let fill = eval(&body, &[&[0.0]], 1)[0];
    // In blocks, each mapped into a small buffer and copied back: the join's values are
    // the only large array.
    cells.values.par_chunks_mut(1 << 14).for_each(|block| {
        let mapped = eval(&body, &[&*block], block.len());
        block.copy_from_slice(&mapped);
    });
    Some(Ok(CooTensor::from_sorted_parts_unchecked(
        cells.dims,
        cells.coords,
        cells.values,
        fill,
    )))
}

/// A kernel that maps each stored value of one tensor through pointwise functions, with no
/// aggregate, looping over that tensor's modes in its order and writing them in the same
/// order and formats (`y[a,b] = sigmoid(t[a,b])` over the pairs of a self-join), or of
/// several dense tensors cell for cell (`W[j] = max(V[j], N[j])`): the result
/// keeps the tensor's levels, its values are mapped all at once, and its fill is the body
/// at the tensor's fill. The interpreter would walk and write every entry. `None` for any
/// other kernel.
pub fn map_stored<'a>(
    q: &PhysicalQuery,
    tensor: &dyn Fn(&str, bool) -> Option<&'a FiberTensor>,
) -> Option<Result<FiberTensor, TensorError>> {
    if q.agg.is_some() || q.loop_order != q.output_idxs {
        return None;
    }
    let mut accs = vec![];
    collect_accesses(&q.body, &mut accs);
    let tensors: Vec<&FiberTensor> = accs
        .iter()
        .map(|a| tensor(&a.name, a.is_alias))
        .collect::<Option<_>>()?;
    let (a, t) = (accs.first()?, tensors[0]);
    if a.idxs != q.output_idxs || t.order() != a.idxs.len() || t.formats() != q.output_formats {
        return None;
    }
    // Several accesses: all dense, cell for cell (`W[j] = max(V[j], N[j])` of a BFS level).
    let cell_for_cell = accs
        .iter()
        .zip(&tensors)
        .all(|(b, u)| b.idxs == a.idxs && u.dims == t.dims && all_dense(u));
    if accs.len() > 1 && !cell_for_cell {
        return None;
    }
    if let Err(e) = super::budget::ensure_fits(
        &format!(
            "kernel {}: a result of {} stored values",
            q.name,
            t.vals.len()
        ),
        super::budget::sparse_bytes(t.vals.len(), &t.dims, &q.output_formats),
    ) {
        return Some(Err(e));
    }
    let body = to_node(&q.body, &mut 0);
    let fills: Vec<[f64; 1]> = tensors.iter().map(|u| [u.fill]).collect();
    let fills: Vec<&[f64]> = fills.iter().map(|f| &f[..]).collect();
    let fill = eval(&body, &fills, 1)[0];
    let columns: Vec<&[f64]> = tensors.iter().map(|u| &u.vals[..]).collect();
    let vals = eval(&body, &columns, t.vals.len());
    Some(Ok(FiberTensor {
        dims: t.dims.clone(),
        levels: t.levels.clone(),
        vals,
        fill,
    }))
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
    match scan_with(q, tensor, Want::Gram(obs))? {
        Ok(Scanned::Gram(g)) => Some(Ok(g)),
        Ok(Scanned::Tensor(_) | Scanned::Cells(_)) => None,
        Err(e) => Some(Err(e)),
    }
}

enum Scanned {
    Tensor(FiberTensor),
    /// A join scan's cells, before they are built into the result's levels.
    Cells(JoinCells),
    Gram(Vec<f64>),
}

/// What a caller of [`scan_with`] takes from the scan.
#[derive(Clone, Copy)]
enum Want<'i> {
    /// The result tensor.
    Tensor,
    /// A join scan's cells ([`join_cells`]); other scans are not run.
    Cells,
    /// The Gram matrix of the result over the observations `obs` ([`scan_gram`]).
    Gram(&'i crate::plan_ast::Idx),
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
    /// A second sparse access joined inside the leader's loops, if any.
    second: Option<Second>,
    fills: Vec<f64>,
}

/// A sparse access walked inside the leader's loops, a join on a key (`L[b,s2,p]` of a
/// self-join `L[a,s1,p] * L[b,s2,p]` in loops `(a,s1,p,b,s2)`): its first `bound` modes are
/// loops of the leader, looked up at each leader entry, and its other modes are the loops
/// right inside the leader's, in order, walked over its stored entries under that position.
struct Second {
    access: usize,
    bound: usize,
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
        // last kernel went from 0.07 ms to 58 ms that way). One such access joined on the
        // leader's coordinates is walked over its stored entries ([`Second`]).
        let followers: Vec<usize> = (0..accs.len())
            .filter(|&a| {
                Some(a) != leader
                    && !all_dense(tensors[a])
                    && accs[a].protocols.iter().any(|p| *p != Protocol::Lookup)
            })
            .collect();
        let second = match (leader, followers.as_slice()) {
            (_, []) => None,
            (Some(l), &[b]) => Some(Second::of(&accs, &tensors, &levels_of, l, b)?),
            _ => return None,
        };
        let fills: Vec<f64> = tensors.iter().map(|t| t.fill).collect();
        Some(Shape {
            accs,
            tensors,
            levels_of,
            dims,
            leader,
            second,
            fills,
        })
    }

    /// The loops the entries bind: the leader's, and the second access's walked ones.
    fn entry_loops(&self) -> usize {
        let Some(a) = self.leader else {
            return 0;
        };
        let m = self.accs[a].idxs.len();
        match &self.second {
            Some(b) => m + self.accs[b.access].idxs.len() - b.bound,
            None => m,
        }
    }

    /// Calls `f` with the coordinates and value of each of the leader's entries over its
    /// first-level entries `part` (fills skipped) and the second access's position under
    /// the coordinates it binds (entries where it has none skipped).
    fn for_each_leader_entry(
        &self,
        part: std::ops::Range<usize>,
        second: &Second,
        mut f: impl FnMut(&[u32], f64, usize),
    ) {
        let t = self.tensors[self.leader.expect("entries need a sparse leader")];
        let b = self.tensors[second.access];
        let bound = &self.levels_of[second.access][..second.bound];
        t.for_each_stored_in(part, |outer, va| {
            if va == t.fill {
                return;
            }
            let mut p = 0usize;
            for (mode, &l) in bound.iter().enumerate() {
                p = b.levels[mode].lookup(p, outer[l]);
            }
            if p != FILL {
                f(outer, va, p);
            }
        });
    }

    /// How many entries [`Self::for_each_entry`] visits over `part` at most: with `flat`,
    /// the lengths of the second access's ranges (fills included), else by walking them.
    fn count_entries(&self, part: std::ops::Range<usize>, flat: Option<&Flat>) -> usize {
        let (Some(second), Some(flat)) = (&self.second, flat) else {
            let mut count = 0;
            self.for_each_entry(part, flat, |_, _, _| count += 1);
            return count;
        };
        let mut count = 0;
        self.for_each_leader_entry(part, second, |_, _, p| {
            count += flat.start[p + 1] - flat.start[p];
        });
        count
    }

    /// Calls `f` with the coordinates of the entry loops, the leader's value and the
    /// second access's value (1 without one), for the leader's first-level entries `part`,
    /// skipping the entries where either holds its fill (the body is 0 there). `flat`: the
    /// second access's entries as ranges ([`Flat`]), else its levels are walked.
    fn for_each_entry(
        &self,
        part: std::ops::Range<usize>,
        flat: Option<&Flat>,
        mut f: impl FnMut(&[u32], f64, f64),
    ) {
        let a = self.leader.expect("entries need a sparse leader");
        let t = self.tensors[a];
        let Some(second) = &self.second else {
            t.for_each_stored_in(part, |coord, v| {
                if v != t.fill {
                    f(coord, v, 1.0);
                }
            });
            return;
        };
        if let Some(flat) = flat {
            self.for_each_flat_entry(part, second, flat, f);
            return;
        }
        let b = self.tensors[second.access];
        let m = t.order();
        let mut coord = vec![0u32; self.entry_loops()];
        let mut inner = vec![0u32; b.order() - second.bound];
        self.for_each_leader_entry(part, second, |outer, va, p| {
            coord[..m].copy_from_slice(outer);
            b.for_each_stored_under(second.bound, p, &mut inner, &mut |c, vb| {
                if vb != b.fill {
                    coord[m..].copy_from_slice(c);
                    f(&coord, va, vb);
                }
            });
        });
    }

    /// [`Self::for_each_entry`] through [`Flat`] ranges: per leader entry, the second
    /// access's entries under its key are one contiguous range of value positions.
    fn for_each_flat_entry(
        &self,
        part: std::ops::Range<usize>,
        second: &Second,
        flat: &Flat,
        mut f: impl FnMut(&[u32], f64, f64),
    ) {
        let t = self.tensors[self.leader.expect("entries need a sparse leader")];
        let b = self.tensors[second.access];
        let m = t.order();
        let walked = b.order() - second.bound;
        let last = &b.levels[b.order() - 1].idx;
        let mut coord = vec![0u32; m + walked];
        self.for_each_leader_entry(part, second, |outer, va, p| {
            coord[..m].copy_from_slice(outer);
            for q in flat.start[p]..flat.start[p + 1] {
                let vb = b.vals[q];
                if vb == b.fill {
                    continue;
                }
                for (w, at) in flat.ancestors.iter().enumerate() {
                    coord[m + w] = at[q];
                }
                coord[m + walked - 1] = last[q];
                f(&coord, va, vb);
            }
        });
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
                if let Some(b) = &self.second {
                    let at = |k: usize| (k == b.access).then_some(self.fills[b.access]);
                    if fold(&q.body, &at, &mut 0) != Some(0.0) {
                        return None;
                    }
                }
                let m = self.entry_loops();
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

impl Second {
    /// Access `b` joined inside leader `l`'s loops, if its modes are some of the leader's
    /// loops (looked up) followed by the loops right inside the leader's, in order, and no
    /// other sparse access has a mode at those loops: the interpreter would walk the
    /// intersection of their fibers there (a triangle's third edge), where the join would
    /// visit every entry of `b`'s and look each up.
    fn of(
        accs: &[&Access],
        tensors: &[&FiberTensor],
        levels_of: &[Vec<usize>],
        l: usize,
        b: usize,
    ) -> Option<Second> {
        let m = accs[l].idxs.len();
        let ls = &levels_of[b];
        let bound = ls.iter().take_while(|&&x| x < m).count();
        let walked = m..m + ls.len() - bound;
        let consecutive = ls[bound..].iter().zip(walked.clone()).all(|(&x, k)| x == k);
        let lookups = accs[b].protocols[..bound]
            .iter()
            .all(|p| *p == Protocol::Lookup);
        let intersected = (0..accs.len()).any(|a| {
            a != l
                && a != b
                && !all_dense(tensors[a])
                && levels_of[a].iter().any(|x| walked.contains(x))
        });
        (!walked.is_empty() && consecutive && lookups && !intersected)
            .then_some(Second { access: b, bound })
    }
}

/// The loop level of each output mode of `q` and its size (loops of sizes `dims`).
fn output_levels(q: &PhysicalQuery, dims: &[usize]) -> Option<(Vec<usize>, Vec<usize>)> {
    let out_levels: Vec<usize> = q
        .output_idxs
        .iter()
        .map(|i| q.loop_order.iter().position(|x| x == i))
        .collect::<Option<_>>()?;
    let out_dims = out_levels.iter().map(|&l| dims[l]).collect();
    Some((out_levels, out_dims))
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
        let (out_levels, out_dims) = output_levels(q, dims)?;
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
    want: Want,
) -> Option<Result<Scanned, TensorError>> {
    let shape = Shape::of(q, tensor)?;
    let first_dense_loop = shape.first_dense_loop(q)?;
    // A join's result (pairs of line items) is as sparse as its output formats say: its
    // cells are listed, not held in a dense array over every pair.
    let all_dense_formats = q.output_formats.iter().all(|f| *f == LevelFormat::Dense);
    let dense_output = Output::of(q, &shape.dims);
    let sparse_output = match (&dense_output, &shape.second, want) {
        (_, Some(_), Want::Tensor | Want::Cells)
            if !all_dense_formats || dense_output.is_none() =>
        {
            Some(PackedKeys::of(q, &shape.dims)?)
        }
        (None, _, _) => return None,
        _ => None,
    };
    if sparse_output.is_none() && matches!(want, Want::Cells) {
        return None;
    }
    let out_fill = shape.result_fill(q)?;
    let init = q.agg.map_or(out_fill, AggOp::init);
    let split = shape.split(first_dense_loop);
    let plan = BatchPlan::new(&q.body, &shape, split);
    if let Some(keys) = sparse_output {
        return Some(join_scan(q, &shape, &plan, &keys).map(Scanned::Cells));
    }
    let output = dense_output?;
    let mut batch = Batch::new(&plan, shape.accs.len());
    if let Want::Gram(obs) = want {
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
    if shape.second.is_some() {
        return None;
    }
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
        Some(_) => {
            let flat = shape.second.as_ref().and_then(|b| Flat::of(shape, b));
            shape.for_each_entry(0..usize::MAX, flat.as_ref(), |coord, va, vb| {
                batch.push(plan, coord, (va, vb), out_key(coord));
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
                batch.push(plan, &coord, (0.0, 1.0), out_key(&coord));
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

/// The output cells of a join scan too large to be dense (pairs of line items) as keys:
/// each output mode's coordinate in its own bits, so that keys order like coordinates and
/// decode with shifts.
struct PackedKeys {
    dims: Vec<usize>,
    /// Per loop level, the shift of its output mode's bits (None for aggregate loops).
    shift: Vec<Option<u32>>,
    /// Per output mode, its shift and the mask of its bits.
    mode_shift: Vec<u32>,
    mode_mask: Vec<u64>,
}

impl PackedKeys {
    /// The keys of `q`'s output over loops of sizes `dims`, if they fit in 64 bits.
    fn of(q: &PhysicalQuery, dims: &[usize]) -> Option<PackedKeys> {
        let (out_levels, out_dims) = output_levels(q, dims)?;
        let mut shift = vec![None; dims.len()];
        let mut mode_shift = vec![0u32; out_dims.len()];
        let mut mode_mask = vec![0u64; out_dims.len()];
        let mut bits = 0u32;
        for (k, &l) in out_levels.iter().enumerate().rev() {
            let width = usize::BITS - out_dims[k].saturating_sub(1).leading_zeros();
            shift[l] = Some(bits);
            mode_shift[k] = bits;
            mode_mask[k] = if width == 0 {
                0
            } else {
                u64::MAX >> (64 - width)
            };
            bits += width;
        }
        (bits <= 64).then_some(PackedKeys {
            dims: out_dims,
            shift,
            mode_shift,
            mode_mask,
        })
    }

    /// The key of the loop coordinates `coord` (of loops `0..coord.len()`).
    #[inline]
    fn key(&self, coord: &[u32]) -> u64 {
        coord
            .iter()
            .zip(&self.shift)
            .filter_map(|(&c, s)| s.map(|s| (c as u64) << s))
            .fold(0, |k, x| k | x)
    }

    /// The key of output coordinates `cell` (one per output mode).
    #[inline]
    fn key_of_coords(&self, cell: &[u32]) -> u64 {
        cell.iter()
            .zip(&self.mode_shift)
            .fold(0, |k, (&c, &s)| k | (c as u64) << s)
    }

    /// Writes the output coordinates of `key` into `out` (one per output mode).
    #[inline]
    fn decode(&self, key: u64, out: &mut [u32]) {
        for ((o, &s), &mask) in out.iter_mut().zip(&self.mode_shift).zip(&self.mode_mask) {
            *o = ((key >> s) & mask) as u32;
        }
    }
}

/// Leader first-level entries per worker below which a join scan stays on one thread.
const JOIN_PART_MIN: usize = 1 << 12;

/// A worker's share of a join scan's cells: its slice of the output coordinates and values,
/// written in order.
struct Cells<'o> {
    coords: &'o mut [u32],
    values: &'o mut [f64],
    order: usize,
    len: usize,
    last_key: u64,
    /// Whether every cell came after the one before it (keys increasing).
    in_order: bool,
}

impl<'o> Cells<'o> {
    fn new(coords: &'o mut [u32], values: &'o mut [f64], order: usize) -> Cells<'o> {
        Cells {
            coords,
            values,
            order,
            len: 0,
            last_key: 0,
            in_order: true,
        }
    }

    /// Adds `v` into cell `key` (summed with the cell written just before when it is the
    /// same and `sum`; with no aggregate a cell is written once).
    #[inline]
    fn add(&mut self, keys: &PackedKeys, key: u64, v: f64, sum: bool) {
        if self.len > 0 {
            if key == self.last_key {
                let last = &mut self.values[self.len - 1];
                *last = if sum { *last + v } else { v };
                return;
            }
            if key < self.last_key {
                self.in_order = false;
            }
        }
        let at = self.len * self.order;
        keys.decode(key, &mut self.coords[at..at + self.order]);
        self.values[self.len] = v;
        self.len += 1;
        self.last_key = key;
    }
}

/// A scan with a [`Second`] access whose output is too large to be dense: the workers first
/// count their entries (a bound on their cells), then, after one question to the memory
/// budget, write their cells into their own slices of one output (a cell written by
/// consecutive entries is summed in place), which are then closed up. The cells are in key
/// order when the outer loops are output loops and the aggregate loops between them take one
/// value per entry (the keys of a self-join); otherwise they are sorted once. Cells equal to
/// the fill (0) are not stored.
fn join_scan(
    q: &PhysicalQuery,
    shape: &Shape,
    plan: &BatchPlan,
    keys: &PackedKeys,
) -> Result<JoinCells, TensorError> {
    use rayon::prelude::*;
    let n = q.loop_order.len();
    let split = plan.split;
    let order = keys.dims.len();
    let tail_keys: Vec<u64> = plan
        .tail_cells()
        .map(|tc| {
            let mut coord = vec![0u32; n];
            for (m, c) in tc.into_iter().enumerate() {
                coord[split + m] = c as u32;
            }
            keys.key(&coord[..n]) & !keys.key(&coord[..split])
        })
        .collect();
    // Distinct cells one entry writes: the output loops of the inner block.
    let per_entry: usize = (split..n)
        .filter(|&l| keys.shift[l].is_some())
        .map(|l| shape.dims[l])
        .product();
    let leader = shape.tensors[shape.leader.expect("a join scan has a leader")];
    let first = leader.first_level_len();
    let workers = rayon::current_num_threads()
        .min(first / JOIN_PART_MIN)
        .max(1);
    let per = first.div_ceil(workers);
    let parts: Vec<std::ops::Range<usize>> = (0..workers)
        .map(|w| w * per..((w + 1) * per).min(first))
        .collect();
    let sum = q.agg == Some(AggOp::Sum);
    let flat = shape.second.as_ref().and_then(|b| Flat::of(shape, b));
    let bounds: Vec<usize> = parts
        .par_iter()
        .map(|part| shape.count_entries(part.clone(), flat.as_ref()) * per_entry)
        .collect();
    let total: usize = bounds.iter().sum();
    super::budget::ensure_fits(
        &format!(
            "kernel {}: a sparse result of up to {total} entries",
            q.name
        ),
        super::budget::sparse_bytes(total, &keys.dims, &q.output_formats),
    )?;
    let mut coords = spores_exec::kernels::zeroed_u32(total * order);
    let mut values = spores_exec::kernels::zeroed(total);
    let mut slices = vec![];
    let (mut c_rest, mut v_rest) = (coords.as_mut_slice(), values.as_mut_slice());
    for &b in &bounds {
        let (c, c_next) = c_rest.split_at_mut(b * order);
        let (v, v_next) = v_rest.split_at_mut(b);
        slices.push(Cells::new(c, v, order));
        (c_rest, v_rest) = (c_next, v_next);
    }
    let groups = flat
        .as_ref()
        .and_then(|flat| PairGroups::of(shape, plan, flat, keys, &tail_keys));
    let written: Vec<(usize, bool)> = slices
        .into_par_iter()
        .zip(parts.into_par_iter())
        .map(|(mut cells, part)| {
            if let Some(groups) = &groups {
                groups.walk(shape, plan, keys, part, &mut cells, sum);
                return (cells.len, cells.in_order);
            }
            let mut batch = Batch::new(plan, shape.accs.len());
            let flush = |batch: &mut Batch, cells: &mut Cells| {
                batch.evaluate(plan);
                let t = plan.tail_len;
                for (e, &base) in batch.out_base.iter().enumerate() {
                    let row = &batch.result[e * t..(e + 1) * t];
                    for (&off, &v) in tail_keys.iter().zip(row) {
                        cells.add(keys, base as u64 | off, v, sum);
                    }
                }
                batch.clear();
            };
            shape.for_each_entry(part, flat.as_ref(), |coord, va, vb| {
                batch.push(plan, coord, (va, vb), keys.key(&coord[..split]) as usize);
                if batch.full(plan) {
                    flush(&mut batch, &mut cells);
                }
            });
            if !batch.is_empty() {
                flush(&mut batch, &mut cells);
            }
            (cells.len, cells.in_order)
        })
        .collect();
    // Close up the slices (worker w's cells start at the sum of the bounds before it),
    // checking that each worker's first cell comes after the one before's last.
    let mut in_order = true;
    let mut previous_last: Option<u64> = None;
    let (mut at, mut len) = (0usize, 0usize);
    for (&(wrote, ordered), &bound) in written.iter().zip(&bounds) {
        if wrote > 0 {
            let key_at = |k: usize| keys.key_of_coords(&coords[k * order..(k + 1) * order]);
            let (first_key, last_key) = (key_at(at), key_at(at + wrote - 1));
            in_order &= ordered && previous_last.is_none_or(|p| p < first_key);
            previous_last = Some(last_key);
            if at != len {
                coords.copy_within(at * order..(at + wrote) * order, len * order);
                values.copy_within(at..at + wrote, len);
            }
        }
        len += wrote;
        at += bound;
    }
    coords.truncate(len * order);
    values.truncate(len);
    let (coords, values) = if in_order {
        (coords, values)
    } else {
        sorted_cells(q, keys, coords, values, sum)?
    };
    let (coords, values) = without_zeros(coords, values, order);
    Ok(JoinCells {
        dims: keys.dims.clone(),
        coords,
        values,
    })
}

/// A join scan's result as its cells: sorted, distinct, none holding the fill (0).
struct JoinCells {
    dims: Vec<usize>,
    coords: Vec<u32>,
    values: Vec<f64>,
}

impl JoinCells {
    /// The result in the level formats `q` asks for.
    fn into_tree(self, q: &PhysicalQuery) -> FiberTensor {
        FiberTensor::from_sorted_owned(
            &self.dims,
            &self.coords,
            self.values,
            0.0,
            &q.output_formats,
        )
    }

    /// The result as a COO tensor, its arrays moved, not copied.
    fn into_coo(self) -> CooTensor {
        CooTensor::from_sorted_parts_unchecked(self.dims, self.coords, self.values, 0.0)
    }
}

/// Cells written out of key order as one sorted list (stable: cells of one key are added
/// in the order they were written, as the interpreter adds them).
fn sorted_cells(
    q: &PhysicalQuery,
    keys: &PackedKeys,
    coords: Vec<u32>,
    values: Vec<f64>,
    sum: bool,
) -> Result<(Vec<u32>, Vec<f64>), TensorError> {
    let order = keys.dims.len();
    let total = values.len();
    super::budget::ensure_fits(
        &format!("kernel {}: sorting {total} result cells", q.name),
        (total * (16 + 8 + 4 * order)) as f64,
    )?;
    let mut all: Vec<(u64, f64)> = coords
        .chunks(order.max(1))
        .zip(&values)
        .map(|(cell, &v)| (keys.key_of_coords(cell), v))
        .collect();
    drop((coords, values));
    all.sort_by_key(|c| c.0);
    let mut coords = vec![0u32; total * order];
    let mut values = vec![0.0; total];
    let mut merged = Cells::new(&mut coords, &mut values, order);
    for (k, v) in all {
        merged.add(keys, k, v, sum);
    }
    let len = merged.len;
    coords.truncate(len * order);
    values.truncate(len);
    Ok((coords, values))
}

/// The cells whose value is not 0 (the result's fill).
fn without_zeros(mut coords: Vec<u32>, mut values: Vec<f64>, order: usize) -> (Vec<u32>, Vec<f64>) {
    if !values.contains(&0.0) {
        return (coords, values);
    }
    let mut kept = 0;
    for k in 0..values.len() {
        if values[k] != 0.0 {
            values[kept] = values[k];
            coords.copy_within(k * order..(k + 1) * order, kept * order);
            kept += 1;
        }
    }
    values.truncate(kept);
    coords.truncate(kept * order);
    (coords, values)
}

/// A [`Second`] access whose walked levels are all compressed (SortedList or Hash): the
/// stored entries under one position of its last bound level are a contiguous range of its
/// value positions (`start`, built once by following the levels' pointers), and each
/// entry's coordinates at the walked levels above the last are read from one array per
/// level. The join then reaches an entry with a few loads instead of a walk through the
/// levels, and counts a leader entry's pairs with one subtraction.
struct Flat {
    /// Per position of the last bound level (the root when nothing is bound), where its
    /// entries start among the value positions; one more at the end.
    start: Vec<usize>,
    /// Per walked level above the last, the coordinate of each value position's ancestor.
    ancestors: Vec<Vec<u32>>,
}

impl Flat {
    fn of(shape: &Shape, second: &Second) -> Option<Flat> {
        let t = shape.tensors[second.access];
        let n = t.order();
        let compressed = t.levels[second.bound..]
            .iter()
            .all(|l| matches!(l.format, LevelFormat::SortedList | LevelFormat::Hash));
        if !compressed {
            return None;
        }
        let positions = match second.bound {
            0 => 1,
            b => t.levels[b - 1].positions,
        };
        // The tables are as large as the access: past the memory budget, its levels are
        // walked instead.
        let ancestors = (n - 1 - second.bound) * t.vals.len();
        let bytes = 8 * (positions + 1) + 4 * ancestors;
        super::budget::ensure_fits("a join's ranges", bytes as f64).ok()?;
        let mut start: Vec<usize> = (0..=positions).collect();
        for level in &t.levels[second.bound..] {
            for s in &mut start {
                *s = level.ptr[*s];
            }
        }
        let mut ancestors = vec![];
        for w in second.bound..n - 1 {
            // Coordinates of level w's positions, carried down to the last level.
            let mut at: Vec<u32> = t.levels[w].idx.clone();
            for l in w + 1..n {
                let level = &t.levels[l];
                let mut below = vec![0u32; level.idx.len()];
                for (x, &c) in at.iter().enumerate() {
                    below[level.ptr[x]..level.ptr[x + 1]].fill(c);
                }
                at = below;
            }
            ancestors.push(at);
        }
        Some(Flat { start, ancestors })
    }
}

/// A join scan over [`Flat`] ranges whose sources are dense, evaluated a leader entry's
/// pairs at a time: the pairs under one leader entry are one contiguous range of the second
/// access's value positions, so its values are read as a slice, the dense positions that
/// only the leader's loops address are computed once per leader entry, and the rest through
/// the walked loops' coordinate arrays; an inner block of dense loops (a network's hidden
/// units) is a contiguous row per pair where the tensor's last modes are its loops. The
/// per-pair work of [`Batch::push`] (each source's position from the pair's coordinates)
/// is gone; the body runs in the same order over the same values, so the cells are the
/// same.
struct PairGroups<'f> {
    flat: &'f Flat,
    /// Per walked loop, its coordinate at each of the second access's value positions.
    walked: Vec<&'f [u32]>,
    /// Per access, how its values are read.
    sources: Vec<PairSource<'f>>,
    /// The output key's bits from the walked loops: (walked loop, shift).
    key_walked: Vec<(usize, u32)>,
    /// The inner block's cells and each one's bits of the output key.
    tail_keys: &'f [u64],
    second_vals: &'f [f64],
    second_fill: f64,
    /// The access that is the second one.
    second_at: usize,
}

/// How one access's values are read for a range of pairs ([`PairGroups`]).
enum PairSource<'f> {
    Leader,
    Second,
    /// A dense tensor at the position `Σ coordinate × stride` over its loops, `fixed` the
    /// leader's loops (level, stride), `walked` the walked loops (walked loop, stride),
    /// `inner` per inner cell (`row`: the inner cells are consecutive positions).
    Dense {
        vals: &'f [f64],
        fixed: Vec<(usize, usize)>,
        walked: Vec<(usize, usize)>,
        inner: &'f [usize],
        row: bool,
    },
}

impl<'f> PairGroups<'f> {
    /// The pair groups of a join scan whose sources besides the two sparse accesses are
    /// dense, if it is one.
    fn of(
        shape: &Shape<'_, 'f>,
        plan: &'f BatchPlan<'f>,
        flat: &'f Flat,
        keys: &PackedKeys,
        tail_keys: &'f [u64],
    ) -> Option<PairGroups<'f>> {
        let second = shape.second.as_ref()?;
        let m = shape.accs[shape.leader?].idxs.len();
        let entry_loops = shape.entry_loops();
        if plan.split != entry_loops {
            return None;
        }
        let b = shape.tensors[second.access];
        let mut walked: Vec<&'f [u32]> = flat.ancestors.iter().map(Vec::as_slice).collect();
        walked.push(&b.levels[b.order() - 1].idx);
        let sources = plan
            .sources
            .iter()
            .map(|s| match s {
                Source::Leader => Some(PairSource::Leader),
                Source::Second => Some(PairSource::Second),
                Source::Dense { t, outer, inner } => {
                    let (fixed, varying): (Vec<_>, Vec<_>) =
                        outer.iter().partition(|&&(l, _)| l < m);
                    Some(PairSource::Dense {
                        vals: &t.vals,
                        fixed,
                        walked: varying.into_iter().map(|(l, st)| (l - m, st)).collect(),
                        inner,
                        row: inner.iter().enumerate().all(|(k, &o)| o == inner[0] + k),
                    })
                }
                _ => None,
            })
            .collect::<Option<Vec<_>>>()?;
        let key_walked = (m..entry_loops)
            .filter_map(|l| keys.shift[l].map(|s| (l - m, s)))
            .collect();
        Some(PairGroups {
            flat,
            walked,
            sources,
            key_walked,
            tail_keys,
            second_vals: &b.vals,
            second_fill: b.fill,
            second_at: second.access,
        })
    }

    /// Adds the cells of the leader's first-level entries `part` into `cells`, skipping
    /// the pairs whose second value is its fill (as [`Shape::for_each_entry`] does).
    fn walk(
        &self,
        shape: &Shape,
        plan: &BatchPlan,
        keys: &PackedKeys,
        part: std::ops::Range<usize>,
        cells: &mut Cells,
        sum: bool,
    ) {
        let second = shape
            .second
            .as_ref()
            .expect("pair groups join a second access");
        let t = self.tail_keys.len();
        let per_batch = (BATCH / t).max(1);
        let mut vals: Vec<Vec<f64>> = self
            .sources
            .iter()
            .map(|_| Vec::with_capacity(per_batch * t))
            .collect();
        let mut pair_keys: Vec<u64> = Vec::with_capacity(per_batch);
        let mut fixed_at = vec![0usize; self.sources.len()];
        let mut flush = |vals: &mut [Vec<f64>], pair_keys: &mut Vec<u64>| {
            let views: Vec<&[f64]> = vals.iter().map(Vec::as_slice).collect();
            let result = eval(&plan.body, &views, pair_keys.len() * t);
            let seconds = views[self.second_at].iter().step_by(t);
            for ((&key, row), &vb) in pair_keys.iter().zip(result.chunks(t)).zip(seconds) {
                if vb != self.second_fill {
                    for (&off, &v) in self.tail_keys.iter().zip(row) {
                        cells.add(keys, key | off, v, sum);
                    }
                }
            }
            vals.iter_mut().for_each(Vec::clear);
            pair_keys.clear();
        };
        shape.for_each_leader_entry(part, second, |outer, va, p| {
            let key_base = keys.key(outer);
            for (at, src) in fixed_at.iter_mut().zip(&self.sources) {
                if let PairSource::Dense { fixed, .. } = src {
                    *at = fixed.iter().map(|&(l, st)| outer[l] as usize * st).sum();
                }
            }
            let (mut from, end) = (self.flat.start[p], self.flat.start[p + 1]);
            while from < end {
                let to = end.min(from + per_batch - pair_keys.len());
                let range = from..to;
                for ((buf, src), &at) in vals.iter_mut().zip(&self.sources).zip(&fixed_at) {
                    match src {
                        PairSource::Leader => buf.resize(buf.len() + range.len() * t, va),
                        PairSource::Second if t == 1 => {
                            buf.extend_from_slice(&self.second_vals[range.clone()])
                        }
                        PairSource::Second => {
                            for &vb in &self.second_vals[range.clone()] {
                                buf.resize(buf.len() + t, vb);
                            }
                        }
                        PairSource::Dense {
                            vals,
                            walked,
                            inner,
                            row,
                            ..
                        } => {
                            // `base`: the pair's position before the inner offsets.
                            let len = buf.len();
                            let mut one_pair = |base: usize| {
                                if *row {
                                    let from = base + inner[0];
                                    buf.extend_from_slice(&vals[from..from + t]);
                                } else {
                                    buf.extend(inner.iter().map(|&o| vals[base + o]));
                                }
                            };
                            if walked.is_empty() && t == 1 {
                                buf.resize(len + range.len(), vals[at + inner[0]]);
                            } else if walked.is_empty() {
                                // The same values for every pair of this entry.
                                one_pair(at);
                                for _ in 1..range.len() {
                                    buf.extend_from_within(len..len + t);
                                }
                            } else {
                                for q in range.clone() {
                                    one_pair(walked.iter().fold(at, |b, &(w, st)| {
                                        b + self.walked[w][q] as usize * st
                                    }));
                                }
                            }
                        }
                    }
                }
                pair_keys.extend(range.map(|q| {
                    self.key_walked
                        .iter()
                        .fold(key_base, |k, &(w, s)| k | (self.walked[w][q] as u64) << s)
                }));
                if pair_keys.len() == per_batch {
                    flush(&mut vals, &mut pair_keys);
                }
                from = to;
            }
        });
        if !pair_keys.is_empty() {
            flush(&mut vals, &mut pair_keys);
        }
    }
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
        batch.push(plan, coord, (v, 1.0), key(coord));
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
    /// The second sparse access joined inside the leader's loops ([`Second`]): its entry's
    /// value, repeated over the inner cells.
    Second,
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
    /// The batch plan of `body` over `shape`'s accesses, loops `split..` the inner block.
    fn new(body: &PhysExpr, shape: &Shape<'_, 'a>, split: usize) -> BatchPlan<'a> {
        let (tensors, levels_of, dims) = (&shape.tensors, &shape.levels_of, &shape.dims);
        let (leader, second) = (shape.leader, shape.second.as_ref().map(|b| b.access));
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
            if Some(a) == leader {
                plan.sources.push(Source::Leader);
            } else if Some(a) == second {
                plan.sources.push(Source::Second);
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
    second_vals: Vec<f64>,
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
            second_vals: Vec::with_capacity(cap),
            coords: vec![],
            out_base: Vec::with_capacity(cap),
            vals: (0..accesses)
                .map(|_| vec![0.0; cap * plan.tail_len])
                .collect(),
            result: vec![],
        }
    }

    /// Adds an entry: its coordinates, the leader's and the second access's values.
    #[inline]
    fn push(&mut self, plan: &BatchPlan, coord: &[u32], (va, vb): (f64, f64), out_base: usize) {
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
        self.leader_vals.push(va);
        self.second_vals.push(vb);
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
        self.second_vals.clear();
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
                Source::Leader | Source::Second => {
                    let from = match src {
                        Source::Leader => &self.leader_vals,
                        _ => &self.second_vals,
                    };
                    if t == 1 {
                        buf.copy_from_slice(from);
                    } else {
                        for (e, &v) in from.iter().enumerate() {
                            buf[e * t..(e + 1) * t].fill(v);
                        }
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
