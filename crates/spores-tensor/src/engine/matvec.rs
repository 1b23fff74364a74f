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

use super::fibertree::FiberTensor;
use super::scan::times;
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
    // Each worker takes a block of rows; below a few cache-sized blocks of entries the pass
    // is too short to pay for waking a second core.
    let blocks = if idx.len() >= PARALLEL_ENTRIES {
        rayon::current_num_threads().max(1)
    } else {
        1
    };
    let row_blocks = row_blocks(ptr, rows, blocks);
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
            let mut y = spores_exec::kernels::zeroed(rows);
            let mut parts: Vec<&mut [f64]> = Vec::with_capacity(row_blocks.len());
            let mut rest = y.as_mut_slice();
            for b in &row_blocks {
                let (part, tail) = rest.split_at_mut(b.len());
                parts.push(part);
                rest = tail;
            }
            parts
                .into_par_iter()
                .zip(&row_blocks)
                .for_each(|(part, b)| {
                    for (y, r) in part.iter_mut().zip(b.clone()) {
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
                    let mut y = spores_exec::kernels::zeroed(cols);
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
            let mut y = parts
                .next()
                .unwrap_or_else(|| spores_exec::kernels::zeroed(cols));
            for p in parts {
                for (a, b) in y.iter_mut().zip(p) {
                    *a += b;
                }
            }
            FiberTensor::dense(&[cols], y, 0.0)
        }
    };
    Some(Ok(result))
}

/// Stored entries from which a weighted pass is split across the workers.
const PARALLEL_ENTRIES: usize = 1 << 17;

/// `rows` split into at most `blocks` consecutive ranges holding about equal numbers of
/// entries (`ptr` is the CSR row pointer), so a hub row does not leave one worker the rest.
fn row_blocks(ptr: &[usize], rows: usize, blocks: usize) -> Vec<Range<usize>> {
    let entries = ptr[rows];
    let mut out = Vec::with_capacity(blocks);
    let mut start = 0;
    for b in 1..=blocks {
        let end = if b == blocks {
            rows
        } else {
            // The first row at or past this block's share of the entries.
            ptr[..=rows]
                .partition_point(|&p| p < entries * b / blocks)
                .min(rows)
        };
        if end > start {
            out.push(start..end);
            start = end;
        }
    }
    if out.is_empty() {
        out.push(0..rows);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::row_blocks;

    #[test]
    fn row_blocks_cover_the_rows_once_with_balanced_entries() {
        // Row 0 holds 90 of 100 entries (a hub), then nine rows of one entry and empty rows.
        let mut ptr = vec![0, 90];
        ptr.extend((1..=10).map(|k| 90 + k.min(10)));
        ptr.extend([100, 100]);
        let rows = ptr.len() - 1;
        for blocks in 1..=4 {
            let b = row_blocks(&ptr, rows, blocks);
            assert_eq!(b.first().unwrap().start, 0);
            assert_eq!(b.last().unwrap().end, rows);
            assert!(b
                .windows(2)
                .all(|w| w[0].end == w[1].start && w[0].start < w[0].end));
            assert!(b.len() <= blocks);
        }
        assert_eq!(row_blocks(&ptr, rows, 2), vec![0..1, 1..rows]);
        assert_eq!(row_blocks(&[0], 0, 2), vec![0..0]);
    }
}
