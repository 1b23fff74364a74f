//! Turning parsed coordinate entries into a matrix, on all cores.
//!
//! A text reader parses its input in pieces (in parallel) and hands over one [`Entries`]
//! per piece, in file order. Building the matrix from them used to be a sequential pass
//! that took as long as the parse itself; here every pass is split over the pieces or
//! over bands of rows so that both cores stay busy to the end:
//!
//! * entries in strictly increasing (row, column) order overall — what row-major writers
//!   such as SystemDS, SciPy and this crate produce — go straight into the CSR arrays
//!   (or the dense buffer): every piece owns a disjoint slice of the output, found from
//!   its first and last entry, and fills it without any sort;
//! * anything else (any order, duplicates, mirrored symmetric entries) is counting-sorted
//!   by row, then each row is sorted by column and its duplicates summed, with each
//!   thread handling a band of rows.
//!
//! Explicit zeros are dropped from sparse results; duplicates are summed.

use std::ops::Range;
use std::path::Path;

use rayon::prelude::*;

use super::{parse_error, try_zeros};
use crate::error::Result;
use crate::kernels::balanced_bounds;
use crate::matrix::{prefer_sparse, CsrMatrix, DenseMatrix, Matrix};

/// Coordinate entries (0-based, in bounds) of one piece of a file, as parallel arrays.
///
/// Indices are `u32`, as in [`CsrMatrix`]; readers reject larger dimensions up front.
/// While entries are pushed, the piece notes whether they are in strictly increasing
/// (row, column) order and how many values are zero, which decides how the matrix is
/// assembled without another pass over the entries.
pub(crate) struct Entries {
    pub ri: Vec<u32>,
    pub ci: Vec<u32>,
    pub vals: Vec<f64>,
    sorted: bool,
    zeros: usize,
}

impl Entries {
    pub fn with_capacity(n: usize) -> Self {
        Entries {
            ri: Vec::with_capacity(n),
            ci: Vec::with_capacity(n),
            vals: Vec::with_capacity(n),
            sorted: true,
            zeros: 0,
        }
    }

    /// Appends entry `(i, j, v)`; `i` and `j` must fit in `u32` (the caller checked the
    /// matrix dimensions).
    #[inline]
    pub fn push(&mut self, i: usize, j: usize, v: f64) {
        let (i, j) = (i as u32, j as u32);
        if let (Some(&li), Some(&lj)) = (self.ri.last(), self.ci.last()) {
            self.sorted &= (li, lj) < (i, j);
        }
        self.zeros += usize::from(v == 0.0);
        self.ri.push(i);
        self.ci.push(j);
        self.vals.push(v);
    }

    pub fn len(&self) -> usize {
        self.vals.len()
    }

    fn first(&self) -> Option<(u32, u32)> {
        Some((*self.ri.first()?, *self.ci.first()?))
    }

    fn last(&self) -> Option<(u32, u32)> {
        Some((*self.ri.last()?, *self.ci.last()?))
    }

    fn iter(&self) -> impl Iterator<Item = (usize, usize, f64)> + '_ {
        self.ri
            .iter()
            .zip(&self.ci)
            .zip(&self.vals)
            .map(|((&i, &j), &v)| (i as usize, j as usize, v))
    }
}

/// Whether the entries of all parts, taken in order, are strictly increasing in
/// (row, column): each part is, and each non-empty part starts after the previous one ends.
fn globally_sorted(parts: &[&Entries]) -> bool {
    let mut last: Option<(u32, u32)> = None;
    for p in parts {
        if !p.sorted {
            return false;
        }
        if let Some(first) = p.first() {
            if last.is_some_and(|l| l >= first) {
                return false;
            }
            last = p.last();
        }
    }
    true
}

/// Builds a matrix in its best format from coordinate entries given in several parts
/// (any order, duplicates summed). `size_line` is where errors about the declared size
/// are reported.
pub(crate) fn matrix_from_entries(
    rows: usize,
    cols: usize,
    parts: &[&Entries],
    path: &Path,
    size_line: usize,
) -> Result<Matrix> {
    let total: usize = parts.iter().map(|p| p.len()).sum();
    let sorted = globally_sorted(parts);
    let m = if prefer_sparse(rows, cols, total) && cols <= u32::MAX as usize {
        let indptr: Vec<usize> = try_zeros(rows.saturating_add(1), path, size_line)?;
        let csr = if sorted {
            sorted_to_csr(rows, cols, parts, indptr)
        } else {
            unsorted_to_csr(rows, cols, parts, indptr)
        };
        // Zeros are already dropped, so `stored` is the non-zero count: when the result
        // is still sparse enough, skip `into_best_format`'s two passes over the values.
        if prefer_sparse(rows, cols, csr.stored()) {
            return Ok(Matrix::Sparse(csr));
        }
        Matrix::Sparse(csr)
    } else {
        let cells = rows.checked_mul(cols).ok_or_else(|| {
            parse_error(
                path,
                size_line,
                format!("{rows}x{cols} matrix is too large"),
            )
        })?;
        let mut data: Vec<f64> = try_zeros(cells, path, size_line)?;
        if sorted {
            fill_dense_sorted(cols, parts, &mut data);
        } else {
            fill_dense_unsorted(rows, cols, parts, &mut data);
        }
        Matrix::Dense(DenseMatrix::from_vec(rows, cols, data)?)
    };
    Ok(m.into_best_format())
}

/// Splits `v` into consecutive mutable slices of the given lengths (which must add up to
/// at most `v.len()`).
fn split_lengths<'a, T>(mut v: &'a mut [T], lengths: &[usize]) -> Vec<&'a mut [T]> {
    let mut out = Vec::with_capacity(lengths.len());
    for &n in lengths {
        let (head, tail) = std::mem::take(&mut v).split_at_mut(n);
        out.push(head);
        v = tail;
    }
    out
}

/// CSR from globally sorted parts (see [`globally_sorted`]): no duplicates, rows in order.
///
/// Part `p` writes its non-zero entries at its offset in `indices`/`values`, and the
/// `indptr` cells of the rows that start in it: cell `r` (= number of kept entries in rows
/// before `r`) belongs to the part holding the first entry of a row `>= r`, so the parts
/// own consecutive, disjoint ranges of `indptr`; the cells after the last entry's row are
/// set to the total at the end.
fn sorted_to_csr(
    rows: usize,
    cols: usize,
    parts: &[&Entries],
    mut indptr: Vec<usize>,
) -> CsrMatrix {
    let kept: Vec<usize> = parts.iter().map(|p| p.len() - p.zeros).collect();
    let total_kept: usize = kept.iter().sum();
    let mut indices = vec![0u32; total_kept];
    let mut values = vec![0.0f64; total_kept];
    // The indptr range of each part: from just after the previous part's last row to its
    // own last row.
    let mut ptr_lengths = Vec::with_capacity(parts.len());
    let mut filled = 0; // indptr cells owned so far
    for p in parts {
        let end = p.last().map_or(filled, |(r, _)| r as usize + 1);
        ptr_lengths.push(end - filled);
        filled = end;
    }
    let mut offsets = Vec::with_capacity(parts.len());
    let mut acc = 0;
    for k in &kept {
        offsets.push(acc);
        acc += k;
    }
    let ptr_slices = split_lengths(&mut indptr[..filled], &ptr_lengths);
    let idx_slices = split_lengths(&mut indices, &kept);
    let val_slices = split_lengths(&mut values, &kept);
    let mut ptr_starts = Vec::with_capacity(parts.len());
    let mut s = 0;
    for n in &ptr_lengths {
        ptr_starts.push(s);
        s += n;
    }
    parts
        .par_iter()
        .zip(ptr_slices)
        .zip(idx_slices.into_par_iter().zip(val_slices))
        .zip(offsets.par_iter().zip(&ptr_starts))
        .for_each(|(((p, ptr), (idx, val)), (&offset, &ptr_start))| {
            let mut fill = ptr_start; // next indptr cell this part sets
            let mut k = 0; // entries kept so far in this part
            for ((&i, &j), &v) in p.ri.iter().zip(&p.ci).zip(&p.vals) {
                let i = i as usize;
                while fill <= i {
                    ptr[fill - ptr_start] = offset + k;
                    fill += 1;
                }
                if v != 0.0 {
                    idx[k] = j;
                    val[k] = v;
                    k += 1;
                }
            }
        });
    for cell in &mut indptr[filled..] {
        *cell = total_kept;
    }
    CsrMatrix::from_parts_unchecked(rows, cols, indptr, indices, values)
}

/// Splits `0..rows` into one band per thread with about the same number of entries each,
/// given the per-row counts' prefix sums `indptr` (`indptr[r]` entries before row `r`).
fn row_bands(indptr: &[usize]) -> Vec<Range<usize>> {
    balanced_bounds(indptr, rayon::current_num_threads())
        .windows(2)
        .map(|w| w[0]..w[1])
        .collect()
}

/// CSR from parts in any order: a counting sort by row (each thread scatters the
/// entries of its band of rows), then each row sorted by column with duplicates summed
/// and zeros dropped.
fn unsorted_to_csr(
    rows: usize,
    cols: usize,
    parts: &[&Entries],
    mut counts: Vec<usize>,
) -> CsrMatrix {
    // counts[r + 1] = entries in row r, then prefix sums: counts[r] = entries before row r.
    for p in parts {
        for &r in &p.ri {
            counts[r as usize + 1] += 1;
        }
    }
    for k in 0..rows {
        counts[k + 1] += counts[k];
    }
    let bands = row_bands(&counts);
    // Per band: the band's row lengths after summing duplicates, its columns and values.
    let built: Vec<(Vec<usize>, Vec<u32>, Vec<f64>)> = bands
        .par_iter()
        .map(|band| {
            let base = counts[band.start];
            let mut next: Vec<usize> = counts[band.start..band.end]
                .iter()
                .map(|&c| c - base)
                .collect();
            let mut order: Vec<(u32, f64)> = vec![(0, 0.0); counts[band.end] - base];
            for p in parts {
                for ((&r, &c), &v) in p.ri.iter().zip(&p.ci).zip(&p.vals) {
                    let r = r as usize;
                    if band.contains(&r) {
                        let slot = &mut next[r - band.start];
                        order[*slot] = (c, v);
                        *slot += 1;
                    }
                }
            }
            let mut lengths = Vec::with_capacity(band.len());
            let mut indices = Vec::with_capacity(order.len());
            let mut values = Vec::with_capacity(order.len());
            for r in band.clone() {
                let row = &mut order[counts[r] - base..counts[r + 1] - base];
                if !row.is_sorted_by_key(|e| e.0) {
                    row.sort_unstable_by_key(|e| e.0);
                }
                let before = indices.len();
                let mut p = 0;
                while p < row.len() {
                    let (c, mut v) = row[p];
                    p += 1;
                    while p < row.len() && row[p].0 == c {
                        v += row[p].1;
                        p += 1;
                    }
                    if v != 0.0 {
                        indices.push(c);
                        values.push(v);
                    }
                }
                lengths.push(indices.len() - before);
            }
            (lengths, indices, values)
        })
        .collect();
    drop(counts);
    CsrMatrix::from_row_bands(rows, cols, built)
}

/// Writes globally sorted parts into a zeroed row-major buffer: each part's cells lie
/// between its first and last entry, so the parts write disjoint ranges in parallel.
fn fill_dense_sorted(cols: usize, parts: &[&Entries], data: &mut [f64]) {
    let linear = |(i, j): (u32, u32)| i as usize * cols + j as usize;
    let mut ranges = Vec::with_capacity(parts.len());
    let mut lengths = Vec::with_capacity(2 * parts.len());
    let mut at = 0;
    for p in parts {
        match (p.first(), p.last()) {
            (Some(first), Some(last)) => {
                let (start, end) = (linear(first), linear(last) + 1);
                lengths.push(start - at); // the gap before the part
                lengths.push(end - start);
                ranges.push(start);
                at = end;
            }
            _ => {
                lengths.push(0);
                lengths.push(0);
                ranges.push(at);
            }
        }
    }
    let slices = split_lengths(data, &lengths);
    let owned: Vec<&mut [f64]> = slices.into_iter().skip(1).step_by(2).collect();
    parts
        .par_iter()
        .zip(owned)
        .zip(&ranges)
        .for_each(|((p, out), &start)| {
            for ((&i, &j), &v) in p.ri.iter().zip(&p.ci).zip(&p.vals) {
                // `+=` on the zeroed cell, not `=`: a `-0` entry reads as +0.0, as before.
                out[linear((i, j)) - start] += v;
            }
        });
}

/// Adds parts in any order into a zeroed row-major buffer; each thread handles a band of
/// rows and picks its entries from all parts.
fn fill_dense_unsorted(rows: usize, cols: usize, parts: &[&Entries], data: &mut [f64]) {
    if cols == 0 || rows == 0 {
        return;
    }
    let threads = rayon::current_num_threads().max(1);
    let band_rows = rows.div_ceil(threads);
    data.par_chunks_mut(band_rows * cols)
        .enumerate()
        .for_each(|(b, band)| {
            let first = b * band_rows;
            let rows_here = band.len() / cols;
            for p in parts {
                for (r, c, v) in p.iter() {
                    if r >= first && r - first < rows_here {
                        band[(r - first) * cols + c] += v;
                    }
                }
            }
        });
}
