//! Matrix Market coordinate bodies in row-major order, parsed straight into the result.
//!
//! Row-major writers (SystemDS, SciPy, this crate) produce `general` coordinate files
//! whose entry lines are in strictly increasing (row, column) order, with nothing else
//! between them. For those, the generic path (parse every piece into coordinate lists,
//! then assemble, `io/assemble.rs`) writes and faults in 16 bytes per entry that are only
//! read once more. Here the pieces write the CSR arrays (or the dense buffer) directly:
//!
//! 1. count the lines of each piece (one pass over the bytes, on all cores); if the
//!    body has exactly the declared number of lines, piece `p`'s entries are entries
//!    `start[p]..start[p + 1]` of the result;
//! 2. parse the first entry of each piece: piece `p` owns the part of the output between
//!    its first entry and the next piece's first entry (CSR: `indices`/`values` slots and
//!    the `indptr` cells of the rows that start in it; dense: the cells in between);
//! 3. every piece parses its lines into its own disjoint slices, checking that each entry
//!    is in bounds, after the previous one, and before the next piece's first entry.
//!
//! Anything else — a comment or blank line, a line the fast entry parser does not take,
//! an entry out of order or repeated, a count that does not match — makes this path give
//! up (`None`; the other pieces stop soon after) and the caller parses the body the
//! generic way, which accepts every valid file and reports errors with their line.
//! Explicit zeros are allowed and dropped from a sparse result afterwards.

use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;

use super::mm_entry::{fast_entry, Header};
use super::split_pieces;
use crate::matrix::{prefer_sparse, CsrMatrix, DenseMatrix, Matrix};

/// How often (in entries) a piece checks whether another piece gave up.
const ABORT_CHECK: usize = 4096;

/// Parses a coordinate body of a `general` header that declares `declared` entries, if
/// it is in row-major order with one entry per line (see the module docs); `None` when
/// it is not, or when the result cannot be allocated (the generic path then reports it).
pub(super) fn parse(body: &[u8], h: &Header, declared: usize) -> Option<Matrix> {
    if declared == 0 {
        return None;
    }
    let pieces = split_pieces(body);
    let counts: Vec<usize> = pieces.par_iter().map(|p| line_count(p)).collect();
    if counts.iter().sum::<usize>() != declared {
        return None;
    }
    let mut firsts = Vec::with_capacity(pieces.len());
    for p in &pieces {
        firsts.push(entry_at(p, 0, h)?.0);
    }
    if !firsts.windows(2).all(|w| w[0] < w[1]) {
        return None;
    }
    let mut starts = Vec::with_capacity(pieces.len());
    let mut at = 0;
    for c in &counts {
        starts.push(at);
        at += c;
    }
    let jobs: Vec<Piece<'_>> = (0..pieces.len())
        .map(|p| Piece {
            text: pieces[p],
            start: starts[p],
            first: firsts[p],
            next: firsts.get(p + 1).copied(),
        })
        .collect();
    if prefer_sparse(h.rows, h.cols, declared) && h.cols <= u32::MAX as usize {
        to_csr(&jobs, &counts, h, declared).map(Matrix::Sparse)
    } else {
        to_dense(&jobs, h).map(Matrix::into_best_format)
    }
}

/// One piece of the body and where it stands: its first entry's number in the file, its
/// first entry (0-based), and the first entry of the next piece, if any.
struct Piece<'a> {
    text: &'a [u8],
    start: usize,
    first: (usize, usize),
    next: Option<(usize, usize)>,
}

/// Lines as [`super::lines`] counts them: a final line without `\n` counts too.
fn line_count(text: &[u8]) -> usize {
    // Per block of 128 bytes, a sum of 0/1 bytes that fits in a `u8`: the compiler
    // turns it into vector compares and adds (a plain `filter().count()` was 5x slower,
    // a fifth of the whole read).
    let mut blocks = text.chunks_exact(128);
    let mut newlines: usize = 0;
    for block in &mut blocks {
        newlines += block.iter().map(|&b| u8::from(b == b'\n')).sum::<u8>() as usize;
    }
    newlines += blocks.remainder().iter().filter(|&&b| b == b'\n').count();
    newlines + usize::from(text.last().is_some_and(|&b| b != b'\n'))
}

/// The entry line at `text[pos..]`, 0-based and in bounds, and the position after it.
#[inline]
fn entry_at(text: &[u8], pos: usize, h: &Header) -> Option<((usize, usize), f64, usize)> {
    let (i, j, v, next) = fast_entry(text, pos, h.field)?;
    if i == 0 || i > h.rows || j == 0 || j > h.cols {
        return None;
    }
    Some(((i - 1, j - 1), v, next))
}

/// Fallible `vec![zero; n]`: `None` instead of aborting when it cannot be allocated or is
/// over the memory budget.
fn zeros<T: Clone + Default>(n: usize) -> Option<Vec<T>> {
    // Over the memory budget: the general reader reports it (`super::try_zeros`).
    if n as f64 * std::mem::size_of::<T>() as f64 > crate::memory::budget() {
        return None;
    }
    let mut probe: Vec<T> = Vec::new();
    probe.try_reserve_exact(n).ok()?;
    drop(probe);
    Some(vec![T::default(); n])
}

/// Splits `v` into consecutive mutable slices of the given lengths.
fn split_lengths<T>(mut v: &mut [T], lengths: impl Iterator<Item = usize>) -> Vec<&mut [T]> {
    let mut out = Vec::new();
    for n in lengths {
        let (head, tail) = std::mem::take(&mut v).split_at_mut(n);
        out.push(head);
        v = tail;
    }
    out
}

/// Runs `fill` on every piece with its output slices, in parallel; `false` if any piece
/// gave up (the others then stop at their next check).
fn fill_all<S: Send>(
    jobs: &[Piece<'_>],
    slices: Vec<S>,
    fill: impl Fn(&Piece<'_>, S, &AtomicBool) -> bool + Sync,
) -> bool {
    let gave_up = AtomicBool::new(false);
    jobs.par_iter().zip(slices).for_each(|(piece, out)| {
        if !fill(piece, out, &gave_up) {
            gave_up.store(true, Ordering::Relaxed);
        }
    });
    !gave_up.load(Ordering::Relaxed)
}

fn to_csr(jobs: &[Piece<'_>], counts: &[usize], h: &Header, declared: usize) -> Option<CsrMatrix> {
    let rows = h.rows;
    // Cell `r` = entries before row `r` = number of the first entry in a row `>= r`. The
    // cells up to the first entry's row stay 0; piece `p` owns the cells after its first
    // row up to the next piece's first row (the last piece: up to `rows`).
    let mut indptr: Vec<usize> = zeros(rows + 1)?;
    let mut indices: Vec<u32> = zeros(declared)?;
    let mut values: Vec<f64> = zeros(declared)?;
    let first_row = jobs[0].first.0;
    let ptr_lengths = jobs
        .iter()
        .map(|p| p.next.map_or(rows, |n| n.0) - p.first.0);
    let ptr = split_lengths(&mut indptr[first_row + 1..], ptr_lengths);
    let idx = split_lengths(&mut indices, counts.iter().copied());
    let val = split_lengths(&mut values, counts.iter().copied());
    let slices: Vec<_> = ptr.into_iter().zip(idx).zip(val).collect();
    let zeros_seen = AtomicBool::new(false);
    let ok = fill_all(jobs, slices, |piece, ((ptr, idx), val), gave_up| {
        fill_csr_piece(piece, h, ptr, idx, val, gave_up, &zeros_seen)
    });
    if !ok {
        return None;
    }
    if zeros_seen.load(Ordering::Relaxed) {
        drop_zeros(&mut indptr, &mut indices, &mut values);
    }
    Some(CsrMatrix::from_parts_unchecked(
        rows, h.cols, indptr, indices, values,
    ))
}

/// Parses one piece into its `indices`/`values` slots and `indptr` cells (`ptr[0]` is the
/// cell of the row after the piece's first row); `false` to give up.
fn fill_csr_piece(
    piece: &Piece<'_>,
    h: &Header,
    ptr: &mut [usize],
    idx: &mut [u32],
    val: &mut [f64],
    gave_up: &AtomicBool,
    zeros_seen: &AtomicBool,
) -> bool {
    let text = piece.text;
    let ptr_base = piece.first.0 + 1;
    // The last row of the entries so far: its cell and those before it are set.
    let mut row = piece.first.0;
    // Entries may reach the next piece's first row, not its first entry.
    let (limit, end_cell) = match piece.next {
        Some(n) => (n, n.0),
        None => ((h.rows, 0), h.rows),
    };
    let mut prev: Option<(usize, usize)> = None;
    let mut pos = 0;
    let mut k = 0;
    let mut zeros = false;
    while pos < text.len() {
        if k % ABORT_CHECK == 0 && gave_up.load(Ordering::Relaxed) {
            return false;
        }
        let Some((at, v, next)) = entry_at(text, pos, h) else {
            return false;
        };
        if prev.is_some_and(|p| p >= at) || at >= limit || k >= idx.len() {
            return false;
        }
        let (i, j) = at;
        while row < i {
            row += 1;
            ptr[row - ptr_base] = piece.start + k;
        }
        idx[k] = j as u32;
        val[k] = v;
        zeros |= v == 0.0;
        k += 1;
        prev = Some(at);
        pos = next;
    }
    if k != idx.len() {
        return false;
    }
    while row < end_cell {
        row += 1;
        ptr[row - ptr_base] = piece.start + k;
    }
    if zeros {
        zeros_seen.store(true, Ordering::Relaxed);
    }
    true
}

/// Removes the explicit zeros of a CSR matrix in place (one pass, rarely needed: writers
/// that produce sorted files do not write zeros).
fn drop_zeros(indptr: &mut [usize], indices: &mut Vec<u32>, values: &mut Vec<f64>) {
    let rows = indptr.len() - 1;
    let mut kept = 0;
    let mut start = indptr[0];
    for r in 0..rows {
        let end = indptr[r + 1];
        indptr[r] = kept;
        for k in start..end {
            if values[k] != 0.0 {
                indices[kept] = indices[k];
                values[kept] = values[k];
                kept += 1;
            }
        }
        start = end;
    }
    indptr[rows] = kept;
    indices.truncate(kept);
    values.truncate(kept);
}

fn to_dense(jobs: &[Piece<'_>], h: &Header) -> Option<Matrix> {
    let (rows, cols) = (h.rows, h.cols);
    let cells = rows.checked_mul(cols)?;
    let linear = |(i, j): (usize, usize)| i * cols + j;
    let mut data: Vec<f64> = zeros(cells)?;
    // Piece `p` owns the cells from its first entry to the next piece's first entry.
    let first_cell = linear(jobs[0].first);
    let lengths = jobs
        .iter()
        .map(|p| p.next.map_or(cells, linear) - linear(p.first));
    let slices = split_lengths(&mut data[first_cell..], lengths);
    let ok = fill_all(jobs, slices, |piece, out, gave_up| {
        fill_dense_piece(piece, h, out, gave_up)
    });
    if !ok {
        return None;
    }
    DenseMatrix::from_vec(rows, cols, data)
        .ok()
        .map(Matrix::Dense)
}

/// Parses one piece into its cells (`out[0]` is the cell of its first entry); `false` to
/// give up.
fn fill_dense_piece(piece: &Piece<'_>, h: &Header, out: &mut [f64], gave_up: &AtomicBool) -> bool {
    let text = piece.text;
    let cols = h.cols;
    let base = piece.first.0 * cols + piece.first.1;
    let mut prev: Option<usize> = None;
    let mut pos = 0;
    let mut k = 0;
    while pos < text.len() {
        if k % ABORT_CHECK == 0 && gave_up.load(Ordering::Relaxed) {
            return false;
        }
        let Some(((i, j), v, next)) = entry_at(text, pos, h) else {
            return false;
        };
        let cell = i * cols + j;
        if prev.is_some_and(|p| p >= cell) || cell < base || cell - base >= out.len() {
            return false;
        }
        // The buffer is zeroed; leaving zeros unwritten keeps a `-0` entry as +0.0, as
        // the generic path's `+=` does.
        if v != 0.0 {
            out[cell - base] = v;
        }
        prev = Some(cell);
        k += 1;
        pos = next;
    }
    true
}
