//! Sparse × dense (SpMV, SpMM and their transposed forms), sparse × sparse (Gustavson
//! SpGEMM) and `t(X) %*% X` for sparse `X`.
//!
//! Every kernel is row-parallel over the CSR operand with row ranges balanced by stored
//! entries (not by row count), so skewed row lengths don't leave a thread idle.

use rayon::prelude::*;

use super::par::{add_assign, axpy, balanced_bounds, split_rows_mut, threads, zeroed, PAR_WORK};
use crate::matrix::{prefer_sparse, CsrMatrix, DenseMatrix, Matrix};

/// Tasks per thread for the balanced row partitions: a little slack for a core that is
/// busy with something else, without shrinking tasks to where overhead shows.
const TASKS_PER_THREAD: usize = 4;

/// Row partition of a CSR matrix for a kernel whose cost per row is proportional to the
/// stored entries; a single range when the whole job is too small to split.
fn csr_bounds(a: &CsrMatrix, work_per_entry: usize) -> Vec<usize> {
    let t = threads();
    let work = (a.stored() + a.rows()).saturating_mul(work_per_entry.max(1));
    if t == 1 || work < PAR_WORK {
        vec![0, a.rows()]
    } else {
        balanced_bounds(a.indptr(), TASKS_PER_THREAD * t)
    }
}

/// Dot product of the sparse row `(idx, val)` with the dense vector `x`. A plain loop:
/// measured ~10% faster than four independent accumulators (rows average 50 entries,
/// the gathers dominate and the out-of-order core already overlaps them), and
/// unchecked indexing measured no gain, so the bounds check stays.
#[inline]
fn sparse_dot(idx: &[u32], val: &[f64], x: &[f64]) -> f64 {
    let mut s = 0.0;
    for (&j, &v) in idx.iter().zip(val) {
        s += v * x[j as usize];
    }
    s
}

/// `y = a %*% x` (SpMV) for CSR `a` (`m × k`) and a dense vector `x` of length `k`.
pub(crate) fn spmv_into(a: &CsrMatrix, x: &[f64], y: &mut [f64]) {
    debug_assert_eq!(x.len(), a.cols());
    debug_assert_eq!(y.len(), a.rows());
    let (ptr, idx, val) = (a.indptr(), a.indices(), a.values());
    let rows = |i0: usize, yc: &mut [f64]| {
        for (d, yi) in yc.iter_mut().enumerate() {
            let (s, e) = (ptr[i0 + d], ptr[i0 + d + 1]);
            *yi = sparse_dot(&idx[s..e], &val[s..e], x);
        }
    };
    let bounds = csr_bounds(a, 1);
    if bounds.len() <= 2 {
        rows(0, y);
    } else {
        split_rows_mut(y, 1, &bounds)
            .into_par_iter()
            .for_each(|(i0, yc)| rows(i0, yc));
    }
}

/// `c = a %*% b` (SpMM) for CSR `a` (`m × k`) and a row-major dense `b` (`k × n`, `n > 1`)
/// given as its buffer: each output row accumulates scaled rows of `b`.
pub(crate) fn spmm_into(a: &CsrMatrix, b: &[f64], n: usize, c: &mut [f64]) {
    debug_assert_eq!(b.len(), a.cols() * n);
    debug_assert_eq!(c.len(), a.rows() * n);
    if n == 0 {
        return;
    }
    if n == 1 {
        return spmv_into(a, b, c);
    }
    let rows = |i0: usize, cc: &mut [f64]| match n {
        2 => spmm_rows_fixed::<2>(a, b, i0, cc),
        3 => spmm_rows_fixed::<3>(a, b, i0, cc),
        4 => spmm_rows_fixed::<4>(a, b, i0, cc),
        5 => spmm_rows_fixed::<5>(a, b, i0, cc),
        6 => spmm_rows_fixed::<6>(a, b, i0, cc),
        7 => spmm_rows_fixed::<7>(a, b, i0, cc),
        8 => spmm_rows_fixed::<8>(a, b, i0, cc),
        9 => spmm_rows_fixed::<9>(a, b, i0, cc),
        10 => spmm_rows_fixed::<10>(a, b, i0, cc),
        11 => spmm_rows_fixed::<11>(a, b, i0, cc),
        12 => spmm_rows_fixed::<12>(a, b, i0, cc),
        13 => spmm_rows_fixed::<13>(a, b, i0, cc),
        14 => spmm_rows_fixed::<14>(a, b, i0, cc),
        15 => spmm_rows_fixed::<15>(a, b, i0, cc),
        16 => spmm_rows_fixed::<16>(a, b, i0, cc),
        _ => {
            for (d, crow) in cc.chunks_exact_mut(n).enumerate() {
                let (idx, val) = a.line(i0 + d);
                for (&p, &v) in idx.iter().zip(val) {
                    let p = p as usize;
                    axpy(crow, v, &b[p * n..p * n + n]);
                }
            }
        }
    };
    let bounds = csr_bounds(a, n);
    if bounds.len() <= 2 {
        rows(0, c);
    } else {
        split_rows_mut(c, n, &bounds)
            .into_par_iter()
            .for_each(|(i0, cc)| rows(i0, cc));
    }
}

/// SpMM rows `i0..` into `cc` for a compile-time column count `N`: the output row lives
/// in registers while the scaled rows of `b` are added, instead of being re-read and
/// re-written (with a loop remainder) for every stored entry.
#[inline]
fn spmm_rows_fixed<const N: usize>(a: &CsrMatrix, b: &[f64], i0: usize, cc: &mut [f64]) {
    for (d, crow) in cc.chunks_exact_mut(N).enumerate() {
        let (idx, val) = a.line(i0 + d);
        let mut acc = [0.0f64; N];
        for (&p, &v) in idx.iter().zip(val) {
            let p = p as usize;
            let brow: &[f64; N] = b[p * N..p * N + N].try_into().expect("row is N wide");
            for l in 0..N {
                acc[l] += v * brow[l];
            }
        }
        crow.copy_from_slice(&acc);
    }
}

/// `a %*% b` for CSR `a` and row-major dense `b` (given as buffer and column count).
pub(crate) fn sparse_dense(a: &CsrMatrix, b: &[f64], n: usize) -> DenseMatrix {
    let mut c = zeroed(a.rows() * n);
    spmm_into(a, b, n, &mut c);
    DenseMatrix::from_vec(a.rows(), n, c).expect("m*n")
}

/// Dense operands up to this many cells are read in place by `S %*% t(D)` (they stay in
/// cache while every sparse row is dotted with every row of `D`); bigger ones are
/// transposed once so the product streams them row by row.
const DOT_FORM_MAX_CELLS: usize = 1 << 17;

/// `a %*% t(b)` for CSR `a` (`m × k`) and dense `b` stored `n × k`.
///
/// A vector `b` is reshaped for free (its transpose has the same buffer); a small `b` is
/// used in place through sparse-row × dense-row dot products; a large `b` is transposed
/// once (a cache-blocked copy, cheaper than `nnz(a) * n` scattered reads).
pub(crate) fn sparse_dense_t(a: &CsrMatrix, b: &DenseMatrix) -> DenseMatrix {
    let (m, k, n) = (a.rows(), a.cols(), b.rows());
    debug_assert_eq!(k, b.cols());
    if n == 1 || k == 1 {
        return sparse_dense(a, b.data(), n);
    }
    if b.data().len() > DOT_FORM_MAX_CELLS {
        let bt = crate::kernels::transpose::transpose_dense(b);
        return sparse_dense(a, bt.data(), n);
    }
    let mut c = zeroed(m * n);
    let rows = |i0: usize, cc: &mut [f64]| {
        for (d, crow) in cc.chunks_exact_mut(n).enumerate() {
            let (idx, val) = a.line(i0 + d);
            for (j, cij) in crow.iter_mut().enumerate() {
                *cij = sparse_dot(idx, val, b.row(j));
            }
        }
    };
    let bounds = csr_bounds(a, n);
    if bounds.len() <= 2 {
        rows(0, &mut c);
    } else {
        split_rows_mut(&mut c, n, &bounds)
            .into_par_iter()
            .for_each(|(i0, cc)| rows(i0, cc));
    }
    DenseMatrix::from_vec(m, n, c).expect("m*n")
}

/// `t(a) %*% b` for CSR `a` stored `k × m` and row-major dense `b` (`k × n`, as buffer
/// and column count), without transposing `a` when the result is small.
///
/// Scatter formulation: row `p` of `a` adds `a[p,i] * b[p,:]` to output row `i`. Each
/// thread scatters its (balanced) range of `a`'s rows into a private `m × n`
/// accumulator and the accumulators are summed. That costs `threads × m × n` extra
/// cells, so when the output is larger than `a` itself, `a` is transposed instead
/// (counting sort, `O(nnz)`) and the product becomes a plain SpMM.
pub(crate) fn sparse_t_dense(a: &CsrMatrix, b: &[f64], n: usize) -> DenseMatrix {
    let (k, m) = (a.rows(), a.cols());
    debug_assert_eq!(b.len(), k * n);
    let cells = m.saturating_mul(n);
    let bounds = csr_bounds(a, n);
    let parts = bounds.len() - 1;
    if parts > 1 && cells.saturating_mul(threads()) > a.stored().max(PAR_WORK) {
        return sparse_dense(&a.transpose(), b, n);
    }
    // The arrays once, outside the loop: a foreign (NumPy-owned) buffer is behind a
    // dynamic call that `a.line(p)` would repeat for every row.
    let (ptr, indices, values) = (a.indptr(), a.indices(), a.values());
    let scatter = |r0: usize, r1: usize, acc: &mut [f64]| {
        for p in r0..r1 {
            let (idx, val) = (&indices[ptr[p]..ptr[p + 1]], &values[ptr[p]..ptr[p + 1]]);
            if n == 1 {
                let bp = b[p];
                for (&i, &v) in idx.iter().zip(val) {
                    acc[i as usize] += v * bp;
                }
            } else {
                let brow = &b[p * n..p * n + n];
                for (&i, &v) in idx.iter().zip(val) {
                    let i = i as usize;
                    axpy(&mut acc[i * n..i * n + n], v, brow);
                }
            }
        }
    };
    let c = if parts <= 1 {
        let mut acc = zeroed(cells);
        scatter(0, k, &mut acc);
        acc
    } else {
        // One accumulator per thread: group the balanced ranges into `threads` runs.
        let t = threads().min(parts);
        let per = parts.div_ceil(t);
        (0..parts.div_ceil(per))
            .into_par_iter()
            .map(|g| {
                let mut acc = zeroed(cells);
                let (lo, hi) = (g * per, ((g + 1) * per).min(parts));
                scatter(bounds[lo], bounds[hi], &mut acc);
                acc
            })
            .reduce_with(|mut s, o| {
                add_assign(&mut s, &o);
                s
            })
            .unwrap_or_else(|| zeroed(cells))
    };
    DenseMatrix::from_vec(m, n, c).expect("m*n")
}

/// Gustavson's row-by-row sparse × sparse product, parallel over row ranges balanced by
/// the number of multiply-adds. Each task keeps a dense accumulator and an
/// occupied-column list sized to `b.cols()`. When the upper bound on the output's
/// non-zeros says the result will be dense anyway, rows are accumulated straight into a
/// dense result instead. Returns the result in its best format.
pub(crate) fn spgemm_impl(a: &CsrMatrix, b: &CsrMatrix) -> Matrix {
    let (m, n) = (a.rows(), b.cols());
    debug_assert_eq!(a.cols(), b.rows());
    let bptr = b.indptr();
    // flops[i] = multiply-adds of rows 0..i; also an upper bound on output entries.
    let mut flops = Vec::with_capacity(m + 1);
    flops.push(0usize);
    let mut bound_cells = 0usize;
    for i in 0..m {
        let (idx, _) = a.line(i);
        let f: usize = idx
            .iter()
            .map(|&p| bptr[p as usize + 1] - bptr[p as usize])
            .sum();
        bound_cells += f.min(n);
        flops.push(flops[i] + f);
    }
    let total = flops[m];
    let t = threads();
    let bounds = if t == 1 || total + m < PAR_WORK {
        vec![0, m]
    } else {
        balanced_bounds(&flops, TASKS_PER_THREAD * t)
    };
    let parallel = bounds.len() > 2;

    if !prefer_sparse(m, n, bound_cells) {
        // Probably dense: accumulate rows directly into the dense result.
        let mut c = zeroed(m * n);
        let rows = |i0: usize, cc: &mut [f64]| {
            if n == 0 {
                return;
            }
            for (d, crow) in cc.chunks_exact_mut(n).enumerate() {
                let (aidx, aval) = a.line(i0 + d);
                for (&p, &av) in aidx.iter().zip(aval) {
                    let (bidx, bval) = b.line(p as usize);
                    for (&j, &bv) in bidx.iter().zip(bval) {
                        crow[j as usize] += av * bv;
                    }
                }
            }
        };
        if parallel {
            split_rows_mut(&mut c, n, &bounds)
                .into_par_iter()
                .for_each(|(i0, cc)| rows(i0, cc));
        } else {
            rows(0, &mut c);
        }
        return Matrix::Dense(DenseMatrix::from_vec(m, n, c).expect("m*n")).into_best_format();
    }

    // One task: rows r0..r1 → (row lengths, column indices, values).
    let task = |r0: usize, r1: usize| {
        let mut acc = vec![0.0f64; n];
        let mut occupied = vec![false; n];
        let mut touched: Vec<u32> = Vec::new();
        let mut lens = Vec::with_capacity(r1 - r0);
        let cap = flops[r1] - flops[r0];
        let mut out_idx: Vec<u32> = Vec::with_capacity(cap.min((r1 - r0).saturating_mul(n)));
        let mut out_val: Vec<f64> = Vec::with_capacity(out_idx.capacity());
        for i in r0..r1 {
            let (aidx, aval) = a.line(i);
            for (&p, &av) in aidx.iter().zip(aval) {
                let (bidx, bval) = b.line(p as usize);
                for (&j, &bv) in bidx.iter().zip(bval) {
                    let ju = j as usize;
                    if !occupied[ju] {
                        occupied[ju] = true;
                        touched.push(j);
                    }
                    acc[ju] += av * bv;
                }
            }
            let before = out_idx.len();
            if touched.len() > n / 16 {
                // Many columns hit: a scan in column order beats sorting.
                for j in 0..n {
                    if occupied[j] {
                        if acc[j] != 0.0 {
                            out_idx.push(j as u32);
                            out_val.push(acc[j]);
                        }
                        acc[j] = 0.0;
                        occupied[j] = false;
                    }
                }
            } else {
                touched.sort_unstable();
                for &j in &touched {
                    let ju = j as usize;
                    if acc[ju] != 0.0 {
                        out_idx.push(j);
                        out_val.push(acc[ju]);
                    }
                    acc[ju] = 0.0;
                    occupied[ju] = false;
                }
            }
            touched.clear();
            lens.push(out_idx.len() - before);
        }
        (lens, out_idx, out_val)
    };
    let parts: Vec<(Vec<usize>, Vec<u32>, Vec<f64>)> = if parallel {
        bounds.par_windows(2).map(|w| task(w[0], w[1])).collect()
    } else {
        vec![task(0, m)]
    };
    Matrix::Sparse(CsrMatrix::from_row_bands(m, n, parts)).into_best_format()
}

/// `t(x) %*% x` for CSR `x` (`m × n`), computing the upper triangle only.
///
/// Output row `p` is `sum_i x[i,p] * x[i, p..]` over the rows `i` that have an entry in
/// column `p`. Those rows are found through one CSC copy of `x` (`O(nnz)`); output rows
/// are then independent, so they are computed in parallel without private accumulators
/// and the lower triangle is mirrored at the end.
pub(crate) fn tsmm_sparse(x: &CsrMatrix) -> DenseMatrix {
    let n = x.cols();
    let mut c = zeroed(n * n);
    if n == 0 || x.stored() == 0 {
        return DenseMatrix::from_vec(n, n, c).expect("n*n");
    }
    let csc = x.to_csc();
    let row = |p: usize, crow: &mut [f64]| {
        let (rows, vals) = csc.line(p);
        for (&i, &v) in rows.iter().zip(vals) {
            let (idx, val) = x.line(i as usize);
            // Entries of row i in columns >= p (indices are sorted).
            let start = idx.partition_point(|&q| (q as usize) < p);
            for (&q, &w) in idx[start..].iter().zip(&val[start..]) {
                crow[q as usize] += v * w;
            }
        }
    };
    // Work of output row p ~ sum over its column entries of the row lengths; the
    // triangle makes early rows heavier, so let rayon split finely.
    let avg_row = x.stored() / x.rows().max(1) + 1;
    let work = x.stored().saturating_mul(avg_row);
    if threads() > 1 && work >= PAR_WORK && n > 1 {
        c.par_chunks_mut(n)
            .enumerate()
            .with_max_len(16)
            .for_each(|(p, crow)| row(p, crow));
    } else {
        for (p, crow) in c.chunks_mut(n).enumerate() {
            row(p, crow);
        }
    }
    super::dense::mirror_upper(&mut c, n);
    DenseMatrix::from_vec(n, n, c).expect("n*n")
}
