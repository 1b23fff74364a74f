//! Kernels that are one pass over a sparse matrix weighted by dense vectors:
//! `y[i] = sum[j](A[i,j] * x[j])` (SpMV), `y[j] = sum[i](x[i] * A[i,j])` (its transpose),
//! row and column sums, and the scalar `sum[i,j](u[i] * A[i,j] * w[j])`.
//!
//! A path count reduces through exactly these (`1ᵀ·E·E·E·1` eliminated one index at a
//! time: a degree vector, `E d`, a weighted sum). The general paths pay per stored entry for
//! generality (the scan's batches, the matrix kernels' copies of the operands); here the
//! matrix's own CSR arrays are read once, in order, with one multiply-add per entry.
//!
//! Taken when the body is a product of one order-2 access stored (Dense, SortedList) with
//! fill 0 — it annihilates the product, so its stored entries are all the loop must visit —
//! and order-1 all-dense accesses of its indices; the aggregate is `sum` over the matrix's
//! indices that are not the (at most one) output index.

use std::ops::Range;

use rayon::prelude::*;

use spores_exec::kernels::{balanced_bounds, split_rows_mut, zeroed};

use super::budget;
use super::fibertree::FiberTensor;
use super::times;
use crate::plan_ast::{AggOp, LevelFormat, MapOp, PhysExpr, PhysicalQuery};
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

/// A kernel matched as a weighted pass: its matrix, the dense vectors weighting its rows or
/// columns, and the mode the output runs along (`None`: a scalar).
struct WeightedPass<'a> {
    a: &'a FiberTensor,
    vectors: Vec<(Along, &'a [f64])>,
    out: Option<Along>,
}

impl<'a> WeightedPass<'a> {
    /// `q` as a weighted pass, if it has that shape (see the module doc).
    fn of(
        q: &PhysicalQuery,
        tensor: &dyn Fn(&str, bool) -> Option<&'a FiberTensor>,
    ) -> Option<WeightedPass<'a>> {
        if q.agg != Some(AggOp::Sum) {
            return None;
        }
        let accesses: Vec<&crate::plan_ast::Access> = match &q.body {
            PhysExpr::Access(a) => vec![a],
            PhysExpr::Map {
                op: MapOp::Mul,
                args,
            } => args
                .iter()
                .map(|e| match e {
                    PhysExpr::Access(a) => Some(a),
                    _ => None,
                })
                .collect::<Option<_>>()?,
            _ => return None,
        };
        let matrices: Vec<_> = accesses.iter().filter(|a| a.idxs.len() == 2).collect();
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
        let along = |i: &crate::plan_ast::Idx| {
            if *i == m.idxs[0] {
                Some(Along::Rows)
            } else if *i == m.idxs[1] {
                Some(Along::Cols)
            } else {
                None
            }
        };
        let mut vectors: Vec<(Along, &[f64])> = vec![];
        for v in accesses.iter().filter(|a| a.idxs.len() != 2) {
            let t = tensor(&v.name, v.is_alias)?;
            let dense_vector = v.idxs.len() == 1
                && t.order() == 1
                && t.formats() == [LevelFormat::Dense]
                && t.dims[0] == a.dims[usize::from(along(&v.idxs[0])? == Along::Cols)];
            if !dense_vector {
                return None;
            }
            vectors.push((along(&v.idxs[0])?, &t.vals));
        }
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
        Some(WeightedPass { a, vectors, out })
    }

    /// Blocks of rows the pass is split into, one per worker; below a few cache-sized
    /// blocks of entries the pass is too short to pay for waking a second core.
    fn blocks(&self) -> usize {
        if self.a.levels[1].idx.len() >= PARALLEL_ENTRIES {
            rayon::current_num_threads().max(1)
        } else {
            1
        }
    }

    /// The pass: each stored entry read once, in order, times its row's and column's weights.
    fn run(&self) -> FiberTensor {
        let (a, vectors, out) = (self.a, &self.vectors, self.out);
        let (rows, cols) = (a.dims[0], a.dims[1]);
        let level = &a.levels[1];
        let (ptr, idx, vals) = (&level.ptr, &level.idx, &a.vals);
        let row_weight = |r: usize| {
            vectors
                .iter()
                .filter(|v| v.0 == Along::Rows)
                .fold(1.0, |w, v| times(w, v.1[r]))
        };
        let col_vectors: Vec<&[f64]> = vectors
            .iter()
            .filter(|v| v.0 == Along::Cols)
            .map(|v| v.1)
            .collect();
        // One entry's value times the column vectors (0 annihilates, as in the interpreter).
        let entry = |k: usize| -> f64 {
            let c = idx[k] as usize;
            match col_vectors.as_slice() {
                [] => vals[k],
                [x] => times(vals[k], x[c]),
                xs => xs.iter().fold(vals[k], |v, x| times(v, x[c])),
            }
        };
        let blocks = self.blocks();
        let bounds = balanced_bounds(&ptr[..=rows], blocks);
        let row_blocks: Vec<Range<usize>> = bounds.windows(2).map(|w| w[0]..w[1]).collect();
        let weighted_row = |r: usize| -> f64 {
            let w = row_weight(r);
            if w == 0.0 {
                return 0.0; // annihilates the row (every product is 0)
            }
            (ptr[r]..ptr[r + 1]).map(|k| times(w, entry(k))).sum()
        };
        let result = match out {
            None => {
                // Block totals added in block order: the same sum for the same thread count.
                let totals: Vec<f64> = row_blocks
                    .par_iter()
                    .map(|b| b.clone().map(weighted_row).sum())
                    .collect();
                FiberTensor::from_sorted(&[], &[], &[totals.iter().sum()], 0.0, &[])
            }
            Some(Along::Rows) => {
                let mut y = zeroed(rows);
                split_rows_mut(&mut y, 1, &bounds)
                    .into_par_iter()
                    .for_each(|(first, part)| {
                        for (r, y) in (first..).zip(part.iter_mut()) {
                            *y = weighted_row(r);
                        }
                    });
                FiberTensor::dense(&[rows], y, 0.0)
            }
            Some(Along::Cols) => {
                // A private column vector per block (scattered writes), added in block order.
                let partials: Vec<Vec<f64>> = row_blocks
                    .par_iter()
                    .map(|b| {
                        let mut y = zeroed(cols);
                        for r in b.clone() {
                            let w = row_weight(r);
                            if w == 0.0 {
                                continue;
                            }
                            for k in ptr[r]..ptr[r + 1] {
                                y[idx[k] as usize] += times(w, entry(k));
                            }
                        }
                        y
                    })
                    .collect();
                let mut parts = partials.into_iter();
                let mut y = parts.next().unwrap_or_else(|| zeroed(cols));
                for p in parts {
                    for (a, b) in y.iter_mut().zip(p) {
                        *a += b;
                    }
                }
                FiberTensor::dense(&[cols], y, 0.0)
            }
        };
        result
    }
}

/// Stored entries from which a weighted pass is split across the workers.
const PARALLEL_ENTRIES: usize = 1 << 17;
