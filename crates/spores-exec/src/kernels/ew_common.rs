//! Shared plumbing of the element-wise, aggregate and fused kernels: splitting rows into
//! parallel work blocks, row views that hide the storage format, sparse row merges, and
//! parallel construction of dense and CSR results.
//!
//! Block boundaries depend only on the data size (and, for kernels that keep one
//! accumulator per block, on the thread count), so reductions add partial results in a
//! fixed order and repeated runs give bit-identical sums.

use std::ops::Range;

use rayon::prelude::*;

use crate::kernels::kahan;
use crate::matrix::{CsrMatrix, DenseMatrix, Matrix};

/// Work (cells or stored entries) below which a kernel runs on the calling thread.
pub(crate) const MIN_PAR_WORK: usize = 1 << 15;

/// Upper bound on the number of blocks a kernel is split into when blocks are cheap
/// (no per-block accumulator larger than a row).
pub(crate) const MAX_BLOCKS: usize = 64;

fn block_count(total_work: usize, rows: usize, max_blocks: usize) -> usize {
    (total_work / MIN_PAR_WORK)
        .clamp(1, max_blocks.max(1))
        .min(rows.max(1))
}

/// Splits `0..rows` into contiguous blocks of equal row count, each about `work_per_row`
/// units per row; a single block below [`MIN_PAR_WORK`]. Empty for `rows == 0`.
pub(crate) fn uniform_blocks(
    rows: usize,
    work_per_row: usize,
    max_blocks: usize,
) -> Vec<Range<usize>> {
    let total = rows.saturating_mul(work_per_row.max(1));
    let per = rows.div_ceil(block_count(total, rows, max_blocks)).max(1);
    (0..rows)
        .step_by(per)
        .map(|s| s..(s + per).min(rows))
        .collect()
}

/// Splits `0..rows` into contiguous blocks of about equal total `cost(row)`, so that
/// skewed sparse rows still balance. Empty for `rows == 0`.
pub(crate) fn weighted_blocks(
    rows: usize,
    max_blocks: usize,
    cost: impl Fn(usize) -> usize,
) -> Vec<Range<usize>> {
    if rows == 0 {
        return Vec::new();
    }
    let total: usize = (0..rows).map(&cost).sum();
    let count = block_count(total, rows, max_blocks);
    if count == 1 {
        return std::iter::once(0..rows).collect();
    }
    let target = total.div_ceil(count).max(1);
    let mut blocks = Vec::with_capacity(count + 1);
    let (mut start, mut acc) = (0, 0);
    for i in 0..rows {
        acc += cost(i);
        if acc >= target {
            blocks.push(start..i + 1);
            start = i + 1;
            acc = 0;
        }
    }
    if start < rows {
        blocks.push(start..rows);
    }
    blocks
}

/// Blocks for a CSR matrix: balanced by stored entries plus one unit per row.
pub(crate) fn csr_blocks(x: &CsrMatrix, max_blocks: usize) -> Vec<Range<usize>> {
    let p = x.indptr();
    weighted_blocks(x.rows(), max_blocks, |i| p[i + 1] - p[i] + 1)
}

/// Blocks for any matrix: balanced by stored entries (sparse) or cells (dense).
pub(crate) fn matrix_blocks(m: &Matrix, max_blocks: usize) -> Vec<Range<usize>> {
    weighted_matrix_blocks(m, max_blocks, 1)
}

/// [`matrix_blocks`] for a kernel that does `per_entry` units of work per stored entry
/// (cell) of `m`, such as `k` multiply-adds for a rank-`k` factor: the block count
/// follows the whole work, so such a kernel splits at fewer entries.
pub(crate) fn weighted_matrix_blocks(
    m: &Matrix,
    max_blocks: usize,
    per_entry: usize,
) -> Vec<Range<usize>> {
    let per_entry = per_entry.max(1);
    match m {
        Matrix::Dense(d) => uniform_blocks(d.rows(), d.cols() * per_entry, max_blocks),
        Matrix::Sparse(s) => {
            let p = s.indptr();
            weighted_blocks(s.rows(), max_blocks, |i| (p[i + 1] - p[i]) * per_entry + 1)
        }
    }
}

/// One row of a matrix in its storage format.
#[derive(Clone, Copy, Debug)]
pub(crate) enum RowView<'a> {
    /// Sorted column indices and their values (values may include explicit zeros).
    Sparse(&'a [u32], &'a [f64]),
    /// All cells of the row.
    Dense(&'a [f64]),
}

/// Row `i` of `m`.
#[inline]
pub(crate) fn row_view(m: &Matrix, i: usize) -> RowView<'_> {
    match m {
        Matrix::Dense(d) => RowView::Dense(d.row(i)),
        Matrix::Sparse(s) => {
            let (idx, val) = s.line(i);
            RowView::Sparse(idx, val)
        }
    }
}

impl RowView<'_> {
    /// Calls `f(j, value)` for every non-zero cell of the row.
    #[inline]
    pub(crate) fn for_each_nz(self, mut f: impl FnMut(usize, f64)) {
        match self {
            RowView::Sparse(idx, val) => {
                for (&j, &v) in idx.iter().zip(val) {
                    if v != 0.0 {
                        f(j as usize, v);
                    }
                }
            }
            RowView::Dense(row) => {
                for (j, &v) in row.iter().enumerate() {
                    if v != 0.0 {
                        f(j, v);
                    }
                }
            }
        }
    }
}

/// Calls `f(j, a_j, b_j)` for every column `j < n` where `a_j` or `b_j` is non-zero
/// (the union of the two non-zero patterns), in increasing `j`.
#[inline]
pub(crate) fn for_union(n: usize, a: RowView, b: RowView, mut f: impl FnMut(usize, f64, f64)) {
    match (a, b) {
        (RowView::Dense(a), RowView::Dense(b)) => {
            for j in 0..n {
                if a[j] != 0.0 || b[j] != 0.0 {
                    f(j, a[j], b[j]);
                }
            }
        }
        (RowView::Sparse(ai, av), RowView::Dense(b)) => {
            sparse_dense_union(n, ai, av, b, f);
        }
        (RowView::Dense(a), RowView::Sparse(bi, bv)) => {
            sparse_dense_union(n, bi, bv, a, |j, y, x| f(j, x, y));
        }
        (RowView::Sparse(ai, av), RowView::Sparse(bi, bv)) => {
            let (mut p, mut q) = (0, 0);
            while p < ai.len() || q < bi.len() {
                let ja = ai.get(p).map_or(u32::MAX as usize + 1, |&j| j as usize);
                let jb = bi.get(q).map_or(u32::MAX as usize + 1, |&j| j as usize);
                let (j, x, y) = if ja == jb {
                    p += 1;
                    q += 1;
                    (ja, av[p - 1], bv[q - 1])
                } else if ja < jb {
                    p += 1;
                    (ja, av[p - 1], 0.0)
                } else {
                    q += 1;
                    (jb, 0.0, bv[q - 1])
                };
                if x != 0.0 || y != 0.0 {
                    f(j, x, y);
                }
            }
        }
    }
}

#[inline]
fn sparse_dense_union(
    n: usize,
    si: &[u32],
    sv: &[f64],
    dense: &[f64],
    mut f: impl FnMut(usize, f64, f64),
) {
    let mut p = 0;
    for (j, &d) in dense.iter().enumerate().take(n) {
        let s = if si.get(p).is_some_and(|&c| c as usize == j) {
            p += 1;
            sv[p - 1]
        } else {
            0.0
        };
        if s != 0.0 || d != 0.0 {
            f(j, s, d);
        }
    }
}

/// Calls `f(j, a_j, b_j)` for every column `j < n` where both `a_j` and `b_j` are
/// non-zero (the intersection of the two non-zero patterns), in increasing `j`.
#[inline]
pub(crate) fn for_intersection(
    n: usize,
    a: RowView,
    b: RowView,
    mut f: impl FnMut(usize, f64, f64),
) {
    match (a, b) {
        (RowView::Dense(a), RowView::Dense(b)) => {
            for j in 0..n {
                if a[j] != 0.0 && b[j] != 0.0 {
                    f(j, a[j], b[j]);
                }
            }
        }
        (RowView::Sparse(ai, av), RowView::Dense(b)) => {
            for (&j, &x) in ai.iter().zip(av) {
                let y = b[j as usize];
                if x != 0.0 && y != 0.0 {
                    f(j as usize, x, y);
                }
            }
        }
        (RowView::Dense(a), RowView::Sparse(bi, bv)) => {
            for (&j, &y) in bi.iter().zip(bv) {
                let x = a[j as usize];
                if x != 0.0 && y != 0.0 {
                    f(j as usize, x, y);
                }
            }
        }
        (RowView::Sparse(ai, av), RowView::Sparse(bi, bv)) => {
            let (mut p, mut q) = (0, 0);
            while p < ai.len() && q < bi.len() {
                match ai[p].cmp(&bi[q]) {
                    std::cmp::Ordering::Less => p += 1,
                    std::cmp::Ordering::Greater => q += 1,
                    std::cmp::Ordering::Equal => {
                        if av[p] != 0.0 && bv[q] != 0.0 {
                            f(ai[p] as usize, av[p], bv[q]);
                        }
                        p += 1;
                        q += 1;
                    }
                }
            }
        }
    }
}

/// Builds a `rows x cols` dense matrix in parallel: `fill(range, out)` writes the rows
/// `range` into `out` (row-major, `range.len() * cols` cells, initially zero).
pub(crate) fn par_dense(
    rows: usize,
    cols: usize,
    work_per_cell: usize,
    fill: impl Fn(Range<usize>, &mut [f64]) + Sync,
) -> DenseMatrix {
    let mut data = vec![0.0; rows * cols];
    if !data.is_empty() {
        let blocks = uniform_blocks(rows, cols.saturating_mul(work_per_cell), MAX_BLOCKS);
        let per = blocks[0].len();
        data.par_chunks_mut(per * cols)
            .zip(blocks)
            .for_each(|(chunk, range)| fill(range, chunk));
    }
    DenseMatrix::from_vec(rows, cols, data).expect("buffer sized rows * cols")
}

/// Cells below which the flat element-wise loops ([`flat_map`], [`flat_zip`],
/// [`par_rows`]) run on the calling thread: waking the pool costs more than a pass over
/// a 100k x 1 vector saves.
pub(crate) const EW_PAR_MIN: usize = 1 << 17;

/// Cells per parallel task of the flat loops.
pub(crate) const EW_TASK: usize = 1 << 15;

/// `f(x)` for every element of `a`, into a new vector (no zero-fill first).
pub(crate) fn flat_map(a: &[f64], f: impl Fn(f64) -> f64 + Sync) -> Vec<f64> {
    if a.len() < EW_PAR_MIN {
        return a.iter().map(|&x| f(x)).collect();
    }
    let mut out = Vec::new();
    a.par_iter()
        .with_min_len(EW_TASK)
        .map(|&x| f(x))
        .collect_into_vec(&mut out);
    out
}

/// `f(x, y)` for every pair of elements of two equally long slices, into a new vector.
pub(crate) fn flat_zip(a: &[f64], b: &[f64], f: impl Fn(f64, f64) -> f64 + Sync) -> Vec<f64> {
    debug_assert_eq!(a.len(), b.len());
    if a.len() < EW_PAR_MIN {
        return a.iter().zip(b).map(|(&x, &y)| f(x, y)).collect();
    }
    let mut out = Vec::new();
    a.par_iter()
        .zip(b.par_iter())
        .with_min_len(EW_TASK)
        .map(|(&x, &y)| f(x, y))
        .collect_into_vec(&mut out);
    out
}

/// A `rows x cols` row-major buffer filled row by row with `fill(i, row)`, in parallel
/// (blocks of whole rows) above [`EW_PAR_MIN`] cells.
pub(crate) fn par_rows(
    rows: usize,
    cols: usize,
    fill: impl Fn(usize, &mut [f64]) + Sync,
) -> Vec<f64> {
    let mut data = vec![0.0; rows * cols];
    par_rows_mut(&mut data, cols, fill);
    data
}

/// `fill(i, row)` for every row of the row-major `data` of `cols` columns, in parallel
/// (blocks of whole rows) above [`EW_PAR_MIN`] cells.
pub(crate) fn par_rows_mut(data: &mut [f64], cols: usize, fill: impl Fn(usize, &mut [f64]) + Sync) {
    if data.is_empty() {
        return;
    }
    if data.len() < EW_PAR_MIN {
        for (i, row) in data.chunks_exact_mut(cols).enumerate() {
            fill(i, row);
        }
    } else {
        let per = EW_TASK.div_ceil(cols).max(1);
        data.par_chunks_mut(per * cols)
            .enumerate()
            .for_each(|(b, block)| {
                for (k, row) in block.chunks_exact_mut(cols).enumerate() {
                    fill(b * per + k, row);
                }
            });
    }
}

/// Builds a CSR matrix in parallel over `blocks` (which must cover `0..rows` in order):
/// `fill(i, indices, values)` appends row `i`'s entries in increasing column order.
pub(crate) fn par_csr(
    rows: usize,
    cols: usize,
    blocks: &[Range<usize>],
    fill: impl Fn(usize, &mut Vec<u32>, &mut Vec<f64>) + Sync,
) -> CsrMatrix {
    let parts: Vec<(Vec<usize>, Vec<u32>, Vec<f64>)> = blocks
        .par_iter()
        .map(|range| {
            let mut lens = Vec::with_capacity(range.len());
            let (mut idx, mut val) = (Vec::new(), Vec::new());
            for i in range.clone() {
                let before = idx.len();
                fill(i, &mut idx, &mut val);
                lens.push(idx.len() - before);
            }
            (lens, idx, val)
        })
        .collect();
    CsrMatrix::from_row_bands(rows, cols, parts)
}

/// Splits `out` (aligned with the stored entries of a CSR matrix with row pointers
/// `ptr`) into one slice per row block.
pub(crate) fn split_by_blocks<'a>(
    ptr: &[usize],
    blocks: Vec<Range<usize>>,
    out: &'a mut [f64],
) -> Vec<(Range<usize>, &'a mut [f64])> {
    let mut slices = Vec::with_capacity(blocks.len());
    let mut rest = out;
    for range in blocks {
        let len = ptr[range.end] - ptr[range.start];
        let (head, tail) = std::mem::take(&mut rest).split_at_mut(len);
        slices.push((range, head));
        rest = tail;
    }
    slices
}

/// Computes a new value for every stored entry of `x` in parallel:
/// `f(row, col, value)`; the result is aligned with `x.values()`.
pub(crate) fn map_stored(x: &CsrMatrix, f: impl Fn(usize, usize, f64) -> f64 + Sync) -> Vec<f64> {
    let mut out = vec![0.0; x.stored()];
    let (ptr, idx, val) = (x.indptr(), x.indices(), x.values());
    let slices = split_by_blocks(ptr, csr_blocks(x, MAX_BLOCKS), &mut out);
    slices.into_par_iter().for_each(|(range, slice)| {
        let base = ptr[range.start];
        for i in range {
            for p in ptr[i]..ptr[i + 1] {
                slice[p - base] = f(i, idx[p] as usize, val[p]);
            }
        }
    });
    out
}

/// A result with `x`'s pattern and `values`, in the best format (explicit zeros pruned,
/// densified when too full).
pub(crate) fn with_pattern_of(x: &CsrMatrix, values: Vec<f64>) -> Matrix {
    let csr = CsrMatrix::from_parts_unchecked(
        x.rows(),
        x.cols(),
        x.indptr().to_vec(),
        x.indices().to_vec(),
        values,
    );
    Matrix::Sparse(csr).into_best_format()
}

/// Dot product with four independent accumulators (lets the compiler vectorize).
#[inline]
pub(crate) fn dot(a: &[f64], b: &[f64]) -> f64 {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut acc = [0.0f64; 4];
    let (ca, cb) = (a.chunks_exact(4), b.chunks_exact(4));
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        acc[0] += x[0] * y[0];
        acc[1] += x[1] * y[1];
        acc[2] += x[2] * y[2];
        acc[3] += x[3] * y[3];
    }
    let mut s = (acc[0] + acc[1]) + (acc[2] + acc[3]);
    for (x, y) in ra.iter().zip(rb) {
        s += x * y;
    }
    s
}

/// `y += alpha * x`.
#[inline]
pub(crate) fn axpy(alpha: f64, x: &[f64], y: &mut [f64]) {
    for (yi, xi) in y.iter_mut().zip(x) {
        *yi += alpha * xi;
    }
}

/// Compensated sum of `f(v)` over a slice, four lanes per chunk and a fixed chunking, in
/// parallel above the threshold. Deterministic for a given length.
pub(crate) fn par_sum_map(data: &[f64], f: impl Fn(f64) -> f64 + Sync) -> f64 {
    if data.len() < MIN_PAR_WORK {
        return kahan::sum_map(data, f);
    }
    let per = data
        .len()
        .div_ceil(block_count(data.len(), data.len(), MAX_BLOCKS));
    let partial: Vec<f64> = data
        .par_chunks(per)
        .map(|c| kahan::sum_map(c, &f))
        .collect();
    kahan::sum_partials(&partial)
}

/// Sum of `f` over blocks, run in parallel; the partial sums are added (compensated) in
/// block order, so the result does not depend on the thread count's scheduling.
pub(crate) fn par_sum_blocks(
    blocks: &[Range<usize>],
    f: impl Fn(Range<usize>) -> f64 + Sync,
) -> f64 {
    let partial: Vec<f64> = blocks.par_iter().map(|r| f(r.clone())).collect();
    kahan::sum_partials(&partial)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_cover_rows_in_order() {
        for rows in [0usize, 1, 7, 1000, 100_000] {
            for blocks in [
                uniform_blocks(rows, 50, MAX_BLOCKS),
                weighted_blocks(rows, 4, |i| i % 13),
            ] {
                let mut next = 0;
                for b in &blocks {
                    assert_eq!(b.start, next);
                    assert!(b.end > b.start);
                    next = b.end;
                }
                assert_eq!(next, rows);
            }
        }
        assert!(uniform_blocks(100_000, 50, MAX_BLOCKS).len() > 1);
        assert!(weighted_blocks(100_000, 4, |_| 10).len() <= 4);
    }

    #[test]
    fn union_and_intersection_visit_the_right_cells() {
        let a_idx = [0u32, 2, 5];
        let a_val = [1.0, 0.0, 3.0];
        let b_dense = [0.0, 4.0, 0.0, 0.0, 0.0, 6.0];
        let b_idx = [1u32, 5];
        let b_val = [4.0, 6.0];
        let a_dense = [1.0, 0.0, 0.0, 0.0, 0.0, 3.0];
        let expected_union = vec![(0, 1.0, 0.0), (1, 0.0, 4.0), (5, 3.0, 6.0)];
        let expected_inter = vec![(5, 3.0, 6.0)];
        let views_a = [RowView::Sparse(&a_idx, &a_val), RowView::Dense(&a_dense)];
        let views_b = [RowView::Sparse(&b_idx, &b_val), RowView::Dense(&b_dense)];
        for a in views_a {
            for b in views_b {
                let mut u = Vec::new();
                for_union(6, a, b, |j, x, y| u.push((j, x, y)));
                assert_eq!(u, expected_union, "{a:?} {b:?}");
                let mut i = Vec::new();
                for_intersection(6, a, b, |j, x, y| i.push((j, x, y)));
                assert_eq!(i, expected_inter, "{a:?} {b:?}");
            }
        }
    }

    #[test]
    fn dot_and_sums() {
        let a: Vec<f64> = (0..11).map(f64::from).collect();
        assert_eq!(dot(&a, &a), (0..11).map(|v| (v * v) as f64).sum::<f64>());
        let big: Vec<f64> = (0..100_003).map(|v| (v % 7) as f64).collect();
        let expected: f64 = big.iter().sum();
        assert_eq!(par_sum_map(&big, |v| v), expected);
    }
}
