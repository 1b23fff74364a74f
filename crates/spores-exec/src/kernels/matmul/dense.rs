//! Dense × dense products (GEMM, GEMV, `t(X) %*% X`) and dense × sparse products.
//!
//! Dense operands are passed as [`DView`]s: a buffer plus row and column strides, so a
//! transposed operand is just swapped strides and never copied. GEMM goes to faer's
//! runtime-dispatched AVX-512 or AVX2/FMA micro-kernels, one panel of the output per
//! thread (faster than `matrixmultiply` on both hosts measured; docs/BENCHMARKS.md).

use faer::reborrow::ReborrowMut;
use faer::{Accum, MatMut, MatRef, Par};
use rayon::prelude::*;

use super::par::{add_assign, axpy, dot, threads, zeroed, SyncPtr, PAR_WORK};
use crate::matrix::{CsrMatrix, DenseMatrix};

/// A dense operand as seen by a product: `rows × cols` logical cells, cell `(i, j)` at
/// `data[i * rs + j * cs]`. Transposing swaps the extents and the strides.
#[derive(Clone, Copy, Debug)]
pub(crate) struct DView<'a> {
    pub data: &'a [f64],
    pub rows: usize,
    pub cols: usize,
    pub rs: usize,
    pub cs: usize,
}

impl<'a> DView<'a> {
    /// `m` itself (`transposed == false`) or `t(m)`, without copying.
    pub fn new(m: &'a DenseMatrix, transposed: bool) -> Self {
        let v = DView::row_major(m.data(), m.rows(), m.cols());
        if transposed {
            v.t()
        } else {
            v
        }
    }

    /// A row-major `rows × cols` buffer.
    pub fn row_major(data: &'a [f64], rows: usize, cols: usize) -> Self {
        debug_assert_eq!(data.len(), rows * cols);
        DView {
            data,
            rows,
            cols,
            rs: cols,
            cs: 1,
        }
    }

    /// The transposed view.
    pub fn t(self) -> Self {
        DView {
            data: self.data,
            rows: self.cols,
            cols: self.rows,
            rs: self.cs,
            cs: self.rs,
        }
    }

    /// The same cells as a faer matrix view.
    fn as_faer(self) -> MatRef<'a, f64> {
        if self.rows == 0 || self.cols == 0 {
            return MatRef::from_row_major_slice(&[], self.rows, self.cols);
        }
        assert!((self.rows - 1) * self.rs + (self.cols - 1) * self.cs < self.data.len());
        // SAFETY: every cell `(i, j)` of the view sits at `i * rs + j * cs`, at most the
        // offset of the last cell, which the assertion keeps inside `data`; the view
        // borrows `data` for `'a`.
        unsafe {
            MatRef::from_raw_parts(
                self.data.as_ptr(),
                self.rows,
                self.cols,
                self.rs as isize,
                self.cs as isize,
            )
        }
    }

    #[inline]
    fn at(&self, i: usize, j: usize) -> f64 {
        self.data[i * self.rs + j * self.cs]
    }

    /// The elements of a one-column view as a contiguous slice (borrowed when the
    /// column is already contiguous, which is the case for every vector `DenseMatrix`).
    fn column_vec(&self) -> std::borrow::Cow<'a, [f64]> {
        debug_assert_eq!(self.cols, 1);
        if self.rs == 1 || self.rows <= 1 {
            std::borrow::Cow::Borrowed(&self.data[..self.rows.min(self.data.len())])
        } else {
            std::borrow::Cow::Owned((0..self.rows).map(|i| self.at(i, 0)).collect())
        }
    }
}

/// Below this many multiply-adds a GEMM runs on one thread.
const GEMM_PAR_WORK: usize = 1 << 21;

/// Below this many multiply-adds a product runs as plain loops in SystemDS's order.
const SMALL_WORK: usize = 1 << 14;

/// `a %*% b` for views whose inner extents agree (checked by the caller).
pub(crate) fn gemm_view(a: DView<'_>, b: DView<'_>) -> DenseMatrix {
    let (m, k, n) = (a.rows, a.cols, b.cols);
    debug_assert_eq!(k, b.rows);
    let mut c = zeroed(m * n);
    if m == 0 || n == 0 || k == 0 {
        return DenseMatrix::from_vec(m, n, c).expect("length is m*n");
    }
    if m.saturating_mul(n).saturating_mul(k) < SMALL_WORK {
        small_gemm(a, b, &mut c);
    } else if n == 1 {
        gemv(a, &b.column_vec(), &mut c);
    } else if m == 1 {
        // A row vector times a matrix: c' = b' a'.
        gemv(b.t(), &a.t().column_vec(), &mut c);
    } else {
        gemm_into(a, b, &mut c);
    }
    DenseMatrix::from_vec(m, n, c).expect("length is m*n")
}

/// A small product with every cell rounded as SystemDS's dense kernels round it: a
/// matrix-vector cell is its dot product (the `k mod 8` leading terms one by one, then
/// blocks of eight products summed before they are added), any other cell adds its
/// products in order of `k`, each multiplication and addition rounded on its own (no
/// fused multiply-add). Cancelling expressions such as `s + t(s) - 2 X %*% t(X)` in
/// SystemDS's `dist` then give SystemDS's exact zeros.
fn small_gemm(a: DView<'_>, b: DView<'_>, c: &mut [f64]) {
    let (m, k, n) = (a.rows, a.cols, b.cols);
    for i in 0..m {
        for j in 0..n {
            let term = |t: usize| a.at(i, t) * b.at(t, j);
            let cell = if n == 1 {
                let rest = k % 8;
                let mut acc = (0..rest).fold(0.0, |acc, t| acc + term(t));
                for block in (rest..k).step_by(8) {
                    acc += (block + 1..block + 8).fold(term(block), |s, t| s + term(t));
                }
                acc
            } else {
                (0..k).fold(0.0, |acc, t| acc + term(t))
            };
            c[i * n + j] = cell;
        }
    }
}

/// `c = a %*% b` through faer's GEMM (runtime-dispatched AVX-512 or AVX2/FMA
/// micro-kernels, its own cache blocking), split into one panel of the output per thread
/// (rows or columns, whichever dimension is longer) when the product is big enough.
fn gemm_into(a: DView<'_>, b: DView<'_>, c: &mut [f64]) {
    let (m, k, n) = (a.rows, a.cols, b.cols);
    debug_assert_eq!(c.len(), m * n);
    let t = threads();
    let work = m.saturating_mul(n).saturating_mul(k);
    if t == 1 || work < GEMM_PAR_WORK {
        // SAFETY: the whole product, into all of `c`.
        unsafe { gemm_block(a, b, c.as_mut_ptr(), n, (0, m), (0, n)) };
        return;
    }
    // One panel per thread, each a one-threaded GEMM: on 2000² with two threads this
    // ran 25 % faster than faer splitting one GEMM across both (0.13 s against 0.17 s).
    // Panel edges are rounded to 8 so that every panel but the last fills whole tiles.
    let split_rows = m >= n;
    let len = if split_rows { m } else { n };
    let panel = len.div_ceil(t).div_ceil(8) * 8;
    let panels = len.div_ceil(panel);
    let cp = SyncPtr(c.as_mut_ptr());
    (0..panels).into_par_iter().for_each(|p| {
        let span = (p * panel, panel.min(len - p * panel));
        let (rows, cols) = if split_rows {
            (span, (0, n))
        } else {
            ((0, m), span)
        };
        // SAFETY: panel `p` writes rows (or columns) `span` of `c` only; the panels are
        // disjoint and `c` outlives the parallel loop.
        unsafe { gemm_block(a, b, cp.get(), n, rows, cols) };
    });
}

/// Writes the block of `a %*% b` at rows `(first, count)` and columns `(first, count)`
/// into the row-major output at `c` (row stride `ldc`), on the calling thread.
///
/// # Safety
/// `c` must be valid for writes of every cell of the block, and no other thread may
/// access those cells meanwhile.
unsafe fn gemm_block(
    a: DView<'_>,
    b: DView<'_>,
    c: *mut f64,
    ldc: usize,
    (row, rows): (usize, usize),
    (col, cols): (usize, usize),
) {
    // faer's kernels want a column-major output: the row-major block is its transpose
    // stored column-major, and `t(a[rows, ] %*% b[, cols]) = t(b[, cols]) %*% t(a[rows, ])`.
    // SAFETY: the caller guarantees the block's cells, `(i, j)` at `(row + j) * ldc +
    // col + i` for `i < cols`, `j < rows`.
    let mut dst =
        unsafe { MatMut::from_raw_parts_mut(c.add(row * ldc + col), cols, rows, 1, ldc as isize) };
    let lhs = b.t().as_faer().subrows(col, cols);
    let rhs = a.t().as_faer().subcols(row, rows);
    // faer sizes its blocks from the caches the OS reports, and a virtual machine may
    // report a last-level cache of hundreds of megabytes: blocks of GEMM_DEPTH x
    // GEMM_ROWS of the left operand keep its panels in L2 whatever is reported (2000²
    // on one core: 68 GFLOP/s as one call, 75 blocked; OpenBLAS 67-74).
    let depth = lhs.ncols();
    if depth == 0 {
        faer::linalg::matmul::matmul(dst, Accum::Replace, lhs, rhs, 1.0, Par::Seq);
        return;
    }
    for k0 in (0..depth).step_by(GEMM_DEPTH) {
        let kb = GEMM_DEPTH.min(depth - k0);
        let accum = if k0 == 0 { Accum::Replace } else { Accum::Add };
        for i0 in (0..cols).step_by(GEMM_ROWS) {
            let ib = GEMM_ROWS.min(cols - i0);
            faer::linalg::matmul::matmul(
                dst.rb_mut().subrows_mut(i0, ib),
                accum,
                lhs.submatrix(i0, k0, ib, kb),
                rhs.subrows(k0, kb),
                1.0,
                Par::Seq,
            );
        }
    }
}

/// The depth and the rows of the left operand's blocks in [`gemm_block`]; measured best
/// of nine shapes on 2000² (docs/BENCHMARKS.md), on one thread and two.
const GEMM_DEPTH: usize = 384;
const GEMM_ROWS: usize = 144;

/// `y = a %*% x` for a view `a` (`m × k`) and a contiguous `x` of length `k`.
///
/// Row-major `a`: one dot product per row, rows split across threads. Transposed `a`
/// (columns contiguous): axpy of each column, either over disjoint blocks of `y` (long
/// `y`) or over disjoint ranges of columns with private accumulators (short `y`, e.g.
/// `t(X) %*% v` for a tall thin `X`).
pub(crate) fn gemv(a: DView<'_>, x: &[f64], y: &mut [f64]) {
    let (m, k) = (a.rows, a.cols);
    debug_assert_eq!(x.len(), k);
    debug_assert_eq!(y.len(), m);
    let par = m * k >= PAR_WORK && threads() > 1;
    if a.cs == 1 || k <= 1 {
        let row = |i: usize| &a.data[i * a.rs..i * a.rs + k];
        if par && m < threads() {
            // Few long rows (e.g. t(u) %*% v): split each dot product instead.
            const CHUNK: usize = 1 << 14;
            for (i, yi) in y.iter_mut().enumerate() {
                *yi = row(i)
                    .par_chunks(CHUNK)
                    .zip(x.par_chunks(CHUNK))
                    .map(|(r, xc)| dot(r, xc))
                    .sum();
            }
        } else if par {
            let rows_per = (PAR_WORK / k.max(1)).clamp(1, m.div_ceil(4 * threads()).max(1));
            y.par_chunks_mut(rows_per).enumerate().for_each(|(c, yc)| {
                let i0 = c * rows_per;
                for (d, yi) in yc.iter_mut().enumerate() {
                    *yi = dot(row(i0 + d), x);
                }
            });
        } else {
            for (i, yi) in y.iter_mut().enumerate() {
                *yi = dot(row(i), x);
            }
        }
    } else if a.rs == 1 {
        let col = |p: usize| &a.data[p * a.cs..p * a.cs + m];
        if !par {
            for (p, &xp) in x.iter().enumerate() {
                axpy(y, xp, col(p));
            }
        } else if m >= 4096 {
            const BLOCK: usize = 2048;
            y.par_chunks_mut(BLOCK).enumerate().for_each(|(c, yc)| {
                let i0 = c * BLOCK;
                for (p, &xp) in x.iter().enumerate() {
                    axpy(yc, xp, &col(p)[i0..i0 + yc.len()]);
                }
            });
        } else {
            let cols_per = k.div_ceil(threads());
            let partial = x
                .par_chunks(cols_per)
                .enumerate()
                .map(|(c, xc)| {
                    let mut acc = zeroed(m);
                    for (d, &xp) in xc.iter().enumerate() {
                        axpy(&mut acc, xp, col(c * cols_per + d));
                    }
                    acc
                })
                .reduce_with(|mut s, o| {
                    add_assign(&mut s, &o);
                    s
                });
            if let Some(s) = partial {
                y.copy_from_slice(&s);
            }
        }
    } else {
        for (i, yi) in y.iter_mut().enumerate() {
            *yi = (0..k).map(|p| a.at(i, p) * x[p]).sum();
        }
    }
}

/// `t(x) %*% x` for dense `x` (`m × n`), computing each symmetric pair of blocks once.
///
/// Narrow `x` (`n <= 256`): the rows are cut into one chunk per thread, each chunk's
/// `n × n` Gram matrix is one GEMM, and the partial results are summed. Wide `x`: the
/// result is tiled into column blocks and only the blocks on and above the diagonal are
/// computed (in parallel), then mirrored.
pub(crate) fn tsmm_dense(x: &DenseMatrix) -> DenseMatrix {
    let (m, n) = (x.rows(), x.cols());
    let xv = DView::new(x, false);
    if m == 0 || n == 0 {
        return DenseMatrix::zeros(n, n);
    }
    if n == 1 {
        let s = if m >= PAR_WORK {
            x.data()
                .par_chunks(PAR_WORK)
                .map(|c| dot(c, c))
                .sum::<f64>()
        } else {
            dot(x.data(), x.data())
        };
        return DenseMatrix::from_vec(1, 1, vec![s]).expect("1x1");
    }
    let t = threads();
    let work = m.saturating_mul(n).saturating_mul(n) / 2;
    if n <= 256 || t == 1 || work < GEMM_PAR_WORK {
        let chunks = if t == 1 || work < GEMM_PAR_WORK { 1 } else { t };
        let rows_per = m.div_ceil(chunks);
        let gram = |r0: usize| {
            let rows = rows_per.min(m - r0);
            let part = DView::row_major(&x.data()[r0 * n..(r0 + rows) * n], rows, n);
            let mut c = zeroed(n * n);
            gemm_into(part.t(), part, &mut c);
            c
        };
        let c = if chunks == 1 {
            gram(0)
        } else {
            (0..m.div_ceil(rows_per))
                .into_par_iter()
                .map(|c| gram(c * rows_per))
                .reduce_with(|mut s, o| {
                    add_assign(&mut s, &o);
                    s
                })
                .unwrap_or_else(|| zeroed(n * n))
        };
        return DenseMatrix::from_vec(n, n, c).expect("n*n");
    }
    // Upper block triangle. About 8 blocks per side wastes ~1/16 of the work on the
    // lower halves of the diagonal blocks and leaves 36 independent tasks.
    let nb = n.div_ceil(8).div_ceil(8) * 8;
    let nblocks = n.div_ceil(nb);
    let pairs: Vec<(usize, usize)> = (0..nblocks)
        .flat_map(|bi| (bi..nblocks).map(move |bj| (bi, bj)))
        .collect();
    let mut c = zeroed(n * n);
    let cp = SyncPtr(c.as_mut_ptr());
    pairs.par_iter().for_each(|&(bi, bj)| {
        let (r0, c0) = (bi * nb, bj * nb);
        let (rn, cn) = (nb.min(n - r0), nb.min(n - c0));
        // SAFETY: block (bi, bj) writes rows r0..r0+rn, columns c0..c0+cn of `c` only,
        // the pairs are distinct, and `c` outlives the parallel loop.
        unsafe { gemm_block(xv.t(), xv, cp.get(), n, (r0, rn), (c0, cn)) };
    });
    mirror_upper(&mut c, n);
    DenseMatrix::from_vec(n, n, c).expect("n*n")
}

/// Copies the upper triangle of the row-major `n × n` buffer onto its lower triangle,
/// tile by tile so both sides stay in cache.
pub(crate) fn mirror_upper(c: &mut [f64], n: usize) {
    const TILE: usize = 64;
    for i0 in (0..n).step_by(TILE) {
        for j0 in (0..=i0).step_by(TILE) {
            for i in i0..(i0 + TILE).min(n) {
                for j in j0..(j0 + TILE).min(i) {
                    c[i * n + j] = c[j * n + i];
                }
            }
        }
    }
}

/// Rows of output handled by one parallel task of the dense × sparse kernels.
fn rows_per_task(m: usize, work_per_row: usize) -> usize {
    (PAR_WORK / work_per_row.max(1)).clamp(1, m.div_ceil(4 * threads()).max(1))
}

/// The `m × n` result of a dense × sparse kernel of inner extent `k`: `task(i0, rows)`
/// fills whole output rows from row `i0` on, in parallel blocks when the work
/// (`work_per_row` per row) pays for it. The kernels differ only in their task; all
/// zeros when an extent is 0.
fn rows_in_tasks(
    (m, k, n): (usize, usize, usize),
    work_per_row: usize,
    task: impl Fn(usize, &mut [f64]) + Sync,
) -> DenseMatrix {
    let mut c = zeroed(m * n);
    if m == 0 || n == 0 || k == 0 {
        return DenseMatrix::from_vec(m, n, c).expect("m*n");
    }
    let rows_per = rows_per_task(m, work_per_row);
    let par = m.saturating_mul(work_per_row) >= PAR_WORK && threads() > 1 && m > 1;
    if par {
        c.par_chunks_mut(rows_per * n)
            .enumerate()
            .for_each(|(t, cc)| task(t * rows_per, cc));
    } else {
        task(0, &mut c);
    }
    DenseMatrix::from_vec(m, n, c).expect("m*n")
}

/// `a %*% b` for dense `a` (`m × k`, possibly a transposed view) and CSR `b` (`k × n`).
///
/// Row-wise axpy formulation: output row `i` accumulates `a[i,p] * b[p,:]` over the
/// non-zero `a[i,p]`. With `a` row-major each task owns a block of output rows and walks
/// its `a` rows; with `a` transposed (`t(A) %*% B`) the task walks `p` outermost so it
/// reads contiguous pieces of the stored `A`'s rows.
pub(crate) fn dense_sparse_view(a: DView<'_>, b: &CsrMatrix) -> DenseMatrix {
    let (m, k, n) = (a.rows, a.cols, b.cols());
    debug_assert_eq!(k, b.rows());
    rows_in_tasks((m, k, n), b.stored() + k, |i0: usize, cc: &mut [f64]| {
        let rows = cc.len() / n;
        if a.cs == 1 {
            for d in 0..rows {
                let arow = &a.data[(i0 + d) * a.rs..(i0 + d) * a.rs + k];
                let crow = &mut cc[d * n..(d + 1) * n];
                for (p, &av) in arow.iter().enumerate() {
                    if av != 0.0 {
                        let (idx, val) = b.line(p);
                        for (&j, &v) in idx.iter().zip(val) {
                            crow[j as usize] += av * v;
                        }
                    }
                }
            }
        } else {
            for p in 0..k {
                let (idx, val) = b.line(p);
                if idx.is_empty() {
                    continue;
                }
                for d in 0..rows {
                    let av = a.at(i0 + d, p);
                    if av != 0.0 {
                        let crow = &mut cc[d * n..(d + 1) * n];
                        for (&j, &v) in idx.iter().zip(val) {
                            crow[j as usize] += av * v;
                        }
                    }
                }
            }
        }
    })
}

/// `a %*% t(b)` for dense `a` (`m × k`, a view) and CSR `b` stored `n × k`: cell `(i, j)`
/// is the dot product of row `i` of `a` with sparse row `j` of `b`, so `b` is never
/// transposed. Parallel over output rows.
pub(crate) fn dense_sparse_t_view(a: DView<'_>, b: &CsrMatrix) -> DenseMatrix {
    let (m, k, n) = (a.rows, a.cols, b.rows());
    debug_assert_eq!(k, b.cols());
    rows_in_tasks((m, k, n), b.stored() + n, |i0: usize, cc: &mut [f64]| {
        let mut arow = Vec::new();
        for (d, crow) in cc.chunks_mut(n).enumerate() {
            let i = i0 + d;
            let row: &[f64] = if a.cs == 1 {
                &a.data[i * a.rs..i * a.rs + k]
            } else {
                arow.clear();
                arow.extend((0..k).map(|p| a.at(i, p)));
                &arow
            };
            for (j, cij) in crow.iter_mut().enumerate() {
                let (idx, val) = b.line(j);
                let mut s = 0.0;
                for (&p, &v) in idx.iter().zip(val) {
                    s += row[p as usize] * v;
                }
                *cij = s;
            }
        }
    })
}
