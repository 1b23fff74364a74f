//! Kernels that are one pass over a sparse matrix weighted by vectors:
//! `y[i] = sum[j](A[i,j] * x[j])` (SpMV), `y[j] = sum[i](x[i] * A[i,j])` (its transpose),
//! row and column sums, the scalar `sum[i,j](u[i] * A[i,j] * w[j])`, and a BFS level
//! `N[j] = any[i](F[i] * E[i,j] * (1 - V[j]))`.
//!
//! A path count reduces through exactly these (`1ᵀ·E·E·E·1` eliminated one index at a
//! time: a degree vector, `E d`, a weighted sum). The general paths pay per stored entry for
//! generality (the scan's batches, the matrix kernels' copies of the operands); here the
//! matrix's own CSR arrays are read once, in order, with one multiply-add per entry.
//!
//! Taken when the body is a product of one order-2 access stored (Dense, SortedList) with
//! fill 0 — it annihilates the product, so its stored entries are all the loop must visit —
//! and factors along one of its indices each: order-1 accesses, or expressions of them
//! (`1 - V[j]`, evaluated as the interpreter evaluates it). The aggregate is `sum` or `any`
//! (both neutral to the products skipped) over the matrix's indices that are not the (at
//! most one) output index, which is stored dense. A sparse row vector with fill 0 (a BFS
//! frontier) gives the only rows visited; other vectors are read as dense arrays.

use std::borrow::Cow;
use std::ops::Range;

use rayon::prelude::*;

use spores_exec::kernels::{balanced_bounds, split_rows_mut, zeroed};

use super::budget;
use super::fibertree::FiberTensor;
use super::times;
use crate::plan_ast::{Access, AggOp, Idx, LevelFormat, MapOp, PhysExpr, PhysicalQuery};
use crate::TensorError;

/// Which matrix mode a vector (or the output) runs along.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Along {
    Rows,
    Cols,
}

/// Runs `q` as a weighted pass over its matrix if it has that shape (module doc); `None`
/// otherwise.
pub fn weighted_sum<'a>(
    q: &PhysicalQuery,
    tensor: &dyn Fn(&str, bool) -> Option<&'a FiberTensor>,
) -> Option<Result<FiberTensor, TensorError>> {
    let pass = WeightedPass::of(q, tensor)?;
    // The output vector, one per block when it runs along the columns (scattered writes).
    let (rows, cols) = (pass.a.dims[0], pass.a.dims[1]);
    let fits = match pass.out {
        None => Ok(()),
        Some(Along::Rows) => budget::ensure_dense(&q.name, &[rows], 8.0),
        Some(Along::Cols) => budget::ensure_dense(&q.name, &[cols], 8.0 * pass.blocks() as f64),
    };
    Some(fits.map(|()| pass.run()))
}

/// A kernel matched as a weighted pass: its matrix, the factors weighting its rows or
/// columns, the rows it visits, the aggregate and the mode the output runs along (`None`: a
/// scalar).
struct WeightedPass<'a> {
    a: &'a FiberTensor,
    factors: Vec<(Along, Factor<'a>)>,
    /// The stored entries (row, value) of a sparse row vector with fill 0: the only rows
    /// whose products are not 0, visited instead of every row.
    rows: Option<Vec<(u32, f64)>>,
    /// The stored entries the pass reads (of the visited rows).
    reads: usize,
    agg: AggOp,
    out: Option<Along>,
}

/// A factor of the body along one matrix mode: a vector, or an expression of vectors
/// (`1 - V[j]`), evaluated where the pass needs it as the interpreter evaluates it.
enum Factor<'a> {
    Vector(Cow<'a, [f64]>),
    Expr(PhysExpr, Vec<Cow<'a, [f64]>>),
}

impl Factor<'_> {
    /// An expression's value at each of the `len` coordinates, stored.
    fn materialize(&mut self, len: usize) {
        if let Factor::Expr(..) = self {
            let values = (0..len).map(|k| self.at(k)).collect();
            *self = Factor::Vector(Cow::Owned(values));
        }
    }

    #[inline]
    fn at(&self, k: usize) -> f64 {
        match self {
            Factor::Vector(v) => v[k],
            Factor::Expr(e, inputs) => evaluate(e, k, inputs, &mut 0),
        }
    }
}

impl<'a> WeightedPass<'a> {
    /// `q` as a weighted pass, if it has that shape (see the module doc).
    fn of(
        q: &PhysicalQuery,
        tensor: &dyn Fn(&str, bool) -> Option<&'a FiberTensor>,
    ) -> Option<WeightedPass<'a>> {
        // Both are neutral to the zero products the pass skips.
        let agg = q.agg.filter(|a| matches!(a, AggOp::Sum | AggOp::Any))?;
        let terms: Vec<&PhysExpr> = match &q.body {
            PhysExpr::Map {
                op: MapOp::Mul,
                args,
            } if args.len() >= 2 => args.iter().collect(),
            body @ PhysExpr::Access(_) => vec![body],
            _ => return None,
        };
        let matrices: Vec<&Access> = terms
            .iter()
            .filter_map(|f| match f {
                PhysExpr::Access(a) if a.idxs.len() == 2 => Some(a),
                _ => None,
            })
            .collect();
        let [m] = matrices.as_slice() else {
            return None;
        };
        let a = tensor(&m.name, m.is_alias)?;
        let sparse_rows = a.order() == 2
            && a.fill == 0.0
            && a.formats() == [LevelFormat::Dense, LevelFormat::SortedList]
            && m.idxs[0] != m.idxs[1];
        if !sparse_rows {
            return None;
        }
        let along = |i: &Idx| {
            if *i == m.idxs[0] {
                Some(Along::Rows)
            } else if *i == m.idxs[1] {
                Some(Along::Cols)
            } else {
                None
            }
        };
        let loops_are_the_matrix_indices = q.loop_order.len() == 2
            && q.loop_order.iter().all(|i| along(i).is_some())
            && q.agg_idxs.iter().all(|i| !q.output_idxs.contains(i))
            && q.agg_idxs.len() + q.output_idxs.len() == 2;
        if !loops_are_the_matrix_indices || q.output_idxs.len() > 1 {
            return None;
        }
        let out = match q.output_idxs.first() {
            None => None,
            Some(i) => Some(along(i)?),
        };
        if out.is_some() && q.output_formats != [LevelFormat::Dense] {
            return None;
        }
        let len = |along: Along| a.dims[usize::from(along == Along::Cols)];
        let mut factors: Vec<(Along, Factor<'a>)> = vec![];
        let mut rows = None;
        for term in terms {
            let mut accesses = vec![];
            collect(term, &mut accesses);
            let [i] = accesses.first()?.idxs.as_slice() else {
                continue; // the matrix
            };
            let mode = along(i)?;
            let mut inputs = vec![];
            for v in &accesses {
                let t = tensor(&v.name, v.is_alias)?;
                if v.idxs.as_slice() != [i.clone()] || t.order() != 1 || t.dims[0] != len(mode) {
                    return None;
                }
                inputs.push(t);
            }
            match (term, inputs.as_slice()) {
                (PhysExpr::Access(_), [t])
                    if mode == Along::Rows && t.fill == 0.0 && rows.is_none() && !dense(t) =>
                {
                    rows = Some(stored_entries(t));
                }
                (PhysExpr::Access(_), [t]) => factors.push((mode, Factor::Vector(dense_values(t)))),
                _ => factors.push((
                    mode,
                    Factor::Expr(term.clone(), inputs.into_iter().map(dense_values).collect()),
                )),
            }
        }
        // An expression is evaluated once per coordinate up front when the pass reads
        // it at least that often (fewer evaluations, a plain array read per entry), else
        // where it is read (a small frontier on a large graph).
        let ptr = &a.levels[1].ptr;
        let reads = match &rows {
            Some(entries) => entries
                .iter()
                .map(|&(r, _)| ptr[r as usize + 1] - ptr[r as usize])
                .sum(),
            None => a.vals.len(),
        };
        for (mode, factor) in &mut factors {
            if reads >= len(*mode) {
                factor.materialize(len(*mode));
            }
        }
        Some(WeightedPass {
            a,
            factors,
            rows,
            reads,
            agg,
            out,
        })
    }

    /// Blocks of rows the pass is split into, one per worker; below a few cache-sized
    /// blocks of entries the pass is too short to pay for waking a second core.
    fn blocks(&self) -> usize {
        if self.reads >= PARALLEL_ENTRIES {
            rayon::current_num_threads().max(1)
        } else {
            1
        }
    }

    /// The pass: each stored entry read once, in order, times its row's and column's weights.
    fn run(&self) -> FiberTensor {
        let (a, out, agg) = (self.a, self.out, self.agg);
        let (rows, cols) = (a.dims[0], a.dims[1]);
        let level = &a.levels[1];
        let (ptr, idx, vals) = (&level.ptr, &level.idx, &a.vals);
        let along = |mode: Along| -> Vec<&Factor> {
            self.factors
                .iter()
                .filter(|f| f.0 == mode)
                .map(|f| &f.1)
                .collect()
        };
        let (row_factors, col_factors) = (along(Along::Rows), along(Along::Cols));
        let row_weight = |r: usize, w: f64| row_factors.iter().fold(w, |w, f| times(w, f.at(r)));
        // One entry's value times the column factors (0 annihilates, as in the interpreter).
        let entry = |k: usize| -> f64 {
            let c = idx[k] as usize;
            match col_factors.as_slice() {
                [] => vals[k],
                [f] => times(vals[k], f.at(c)),
                fs => fs.iter().fold(vals[k], |v, f| times(v, f.at(c))),
            }
        };
        let combine = |acc: f64, x: f64| match agg {
            AggOp::Sum => acc + x,
            _ => agg.combine(acc, x),
        };
        // The rows visited, with their weights before the dense row vectors: every row
        // (weight 1), or the stored entries of the sparse row vector.
        let visit = |range: Range<usize>, f: &mut dyn FnMut(usize, f64)| match &self.rows {
            Some(entries) => {
                for &(r, w) in &entries[range] {
                    f(r as usize, row_weight(r as usize, w));
                }
            }
            None => {
                for r in range {
                    f(r, row_weight(r, 1.0));
                }
            }
        };
        let blocks = self.blocks();
        // Blocks of about equal entries: of rows, or of the visited rows' list.
        let bounds = match &self.rows {
            Some(entries) => {
                let mut prefix = Vec::with_capacity(entries.len() + 1);
                prefix.push(0);
                for &(r, _) in entries {
                    let r = r as usize;
                    prefix.push(prefix[prefix.len() - 1] + ptr[r + 1] - ptr[r]);
                }
                balanced_bounds(&prefix, blocks)
            }
            None => balanced_bounds(&ptr[..=rows], blocks),
        };
        let row_blocks: Vec<Range<usize>> = bounds.windows(2).map(|w| w[0]..w[1]).collect();
        let weighted_row = |r: usize, w: f64| -> f64 {
            if w == 0.0 {
                return 0.0; // annihilates the row (every product is 0)
            }
            (ptr[r]..ptr[r + 1]).fold(0.0, |acc, k| combine(acc, times(w, entry(k))))
        };
        if let (Some(Along::Cols), AggOp::Any) = (out, agg) {
            if let Some(mask) = self.column_mask() {
                // Whether any product is non-zero, decided from bytes: a column mask of the
                // factors and a byte per output column (1 MB for a million columns where
                // the f64 vectors take 8 MB each, and the scattered reads and writes of a
                // BFS level on a large graph miss the cache).
                let partials: Vec<Vec<u8>> = row_blocks
                    .par_iter()
                    .map(|b| {
                        let mut y = vec![0u8; cols];
                        visit(b.clone(), &mut |r, w| {
                            if w == 0.0 {
                                return;
                            }
                            let row = ptr[r]..ptr[r + 1];
                            let exact_row = !no_underflow(w);
                            for (k, &c) in row.clone().zip(&idx[row]) {
                                let c = c as usize;
                                if y[c] != 0 {
                                    continue;
                                }
                                let hit = if exact_row || !no_underflow(vals[k]) {
                                    times(w, entry(k)) != 0.0
                                } else {
                                    mask[c] != 0
                                };
                                y[c] = u8::from(hit);
                            }
                        });
                        y
                    })
                    .collect();
                let mut y = vec![0.0; cols];
                for p in partials {
                    for (a, b) in y.iter_mut().zip(p) {
                        if b != 0 {
                            *a = 1.0;
                        }
                    }
                }
                return FiberTensor::dense(&[cols], y, 0.0);
            }
        }
        match out {
            None => {
                // Block totals combined in block order: the same sum for the same thread
                // count.
                let totals: Vec<f64> = row_blocks
                    .par_iter()
                    .map(|b| {
                        let mut total = 0.0;
                        visit(b.clone(), &mut |r, w| {
                            total = combine(total, weighted_row(r, w))
                        });
                        total
                    })
                    .collect();
                let total = totals.into_iter().fold(0.0, combine);
                FiberTensor::from_sorted(&[], &[], &[total], 0.0, &[])
            }
            Some(Along::Rows) => {
                let mut y = zeroed(rows);
                match &self.rows {
                    Some(entries) => visit(0..entries.len(), &mut |r, w| y[r] = weighted_row(r, w)),
                    None => split_rows_mut(&mut y, 1, &bounds).into_par_iter().for_each(
                        |(first, part)| {
                            for (r, y) in (first..).zip(part.iter_mut()) {
                                *y = weighted_row(r, row_weight(r, 1.0));
                            }
                        },
                    ),
                }
                FiberTensor::dense(&[rows], y, 0.0)
            }
            Some(Along::Cols) => {
                // A private column vector per block (scattered writes), combined in block
                // order.
                let partials: Vec<Vec<f64>> = row_blocks
                    .par_iter()
                    .map(|b| {
                        let mut y = zeroed(cols);
                        visit(b.clone(), &mut |r, w| {
                            if w == 0.0 {
                                return;
                            }
                            let row = ptr[r]..ptr[r + 1];
                            for (k, &c) in row.clone().zip(&idx[row]) {
                                let c = c as usize;
                                y[c] = combine(y[c], times(w, entry(k)));
                            }
                        });
                        y
                    })
                    .collect();
                let mut parts = partials.into_iter();
                let mut y = parts.next().unwrap_or_else(|| zeroed(cols));
                for p in parts {
                    for (a, b) in y.iter_mut().zip(p) {
                        *a = combine(*a, b);
                    }
                }
                FiberTensor::dense(&[cols], y, 0.0)
            }
        }
    }
}

/// Non-zero products of this many factors of magnitude at least [`NORMAL_ENOUGH`] (or
/// infinite, or NaN) cannot underflow to 0: `(1e-50)^6 = 1e-300` is above the smallest normal
/// `f64`. The byte path of `any` (see `WeightedPass::column_mask`) relies on it.
const MAX_FACTORS_FOR_MASK: usize = 6;
const NORMAL_ENOUGH: f64 = 1e-50;

/// Whether `x` is 0 or large enough that no product of [`MAX_FACTORS_FOR_MASK`] such
/// values underflows to 0.
#[inline]
fn no_underflow(x: f64) -> bool {
    x == 0.0 || x.is_nan() || x.abs() >= NORMAL_ENOUGH
}

impl WeightedPass<'_> {
    /// For `any` along the columns: a byte per column, 1 where every column factor is
    /// non-zero, when a product is non-zero exactly when each of its factors is (every
    /// column factor stored, none of them tiny enough for a product to underflow, few
    /// factors); the row weight and the matrix value are checked entry by entry (an entry
    /// with a tiny one is multiplied out). `None` otherwise.
    fn column_mask(&self) -> Option<Vec<u8>> {
        let cols = self.a.dims[1];
        if self.factors.len() + 2 > MAX_FACTORS_FOR_MASK {
            return None;
        }
        let mut mask = vec![1u8; cols];
        for (mode, factor) in &self.factors {
            if *mode != Along::Cols {
                continue;
            }
            let Factor::Vector(values) = factor else {
                return None; // not evaluated up front: few reads, not worth a mask
            };
            for (m, &v) in mask.iter_mut().zip(values.iter()) {
                if !no_underflow(v) {
                    return None;
                }
                if v == 0.0 {
                    *m = 0;
                }
            }
        }
        Some(mask)
    }
}

fn dense(t: &FiberTensor) -> bool {
    t.formats() == [LevelFormat::Dense]
}

/// An order-1 fibertree's value at every coordinate (its fill where nothing is stored):
/// its own values when it is dense.
fn dense_values(t: &FiberTensor) -> Cow<'_, [f64]> {
    if dense(t) {
        return Cow::Borrowed(&t.vals);
    }
    let mut values = vec![t.fill; t.dims[0]];
    for (c, v) in stored_entries(t) {
        values[c as usize] = v;
    }
    Cow::Owned(values)
}

/// The stored entries of an order-1 fibertree, in its level's order.
fn stored_entries(t: &FiberTensor) -> Vec<(u32, f64)> {
    let level = &t.levels[0];
    let fiber = level.fiber(0);
    fiber
        .iter()
        .enumerate()
        .map(|(k, &c)| (c, t.vals[level.child(0, k, c)]))
        .collect()
}

fn collect<'e>(e: &'e PhysExpr, out: &mut Vec<&'e Access>) {
    match e {
        PhysExpr::Access(a) => out.push(a),
        PhysExpr::Literal(_) => {}
        PhysExpr::Map { args, .. } => args.iter().for_each(|a| collect(a, out)),
    }
}

/// `e` at coordinate `k` of its vectors (`inputs`, one per access, left to right from
/// `*next`), as the interpreter's body program computes it: sums, differences, products
/// (0 annihilating), maxima and minima fold left; other operators apply to their arguments.
fn evaluate(e: &PhysExpr, k: usize, inputs: &[Cow<'_, [f64]>], next: &mut usize) -> f64 {
    match e {
        PhysExpr::Literal(v) => *v,
        PhysExpr::Access(_) => {
            let v = inputs[*next][k];
            *next += 1;
            v
        }
        PhysExpr::Map { op, args } => {
            let fold = |f: fn(f64, f64) -> f64, next: &mut usize| {
                let first = evaluate(&args[0], k, inputs, next);
                args[1..]
                    .iter()
                    .fold(first, |acc, a| f(acc, evaluate(a, k, inputs, next)))
            };
            match op {
                MapOp::Add if args.len() >= 2 => fold(|a, b| a + b, next),
                MapOp::Mul if args.len() >= 2 => fold(times, next),
                MapOp::Max if args.len() >= 2 => fold(f64::max, next),
                MapOp::Min if args.len() >= 2 => fold(f64::min, next),
                MapOp::Sub if args.len() == 2 => fold(|a, b| a - b, next),
                _ => {
                    let values: Vec<f64> =
                        args.iter().map(|a| evaluate(a, k, inputs, next)).collect();
                    op.apply(&values)
                }
            }
        }
    }
}

/// Stored entries from which a weighted pass is split across the workers.
const PARALLEL_ENTRIES: usize = 1 << 17;
