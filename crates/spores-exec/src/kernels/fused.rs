//! Fused kernels: expressions over a (usually sparse) matrix `X` and a low-rank product
//! `U %*% t(V)` computed in one pass over `X` without ever forming the dense `m x n`
//! intermediate. These are the physical operators the optimizer rewrites
//! `sum(X * (U %*% t(V)))`, `sum((X - U %*% t(V))^2)` and friends into.
//!
//! Shapes: `X` is `m x n`, `U` is `m x k`, `V` is `n x k` (row `j` of `V` is column `j`
//! of `t(V)`), so cell `(i, j)` of `U %*% t(V)` is the rank-`k` dot `u_i · v_j`.
//! The cost is linear in the non-zeros of `X` (and of a weight matrix) times `k`; the
//! squared-loss kernels add `O((m + n) k^2)` for the Gram matrices `t(U) %*% U` and
//! `t(V) %*% V`. Dense `X` is handled cell by cell (`O(m n k)`, the same as the unfused
//! plan but without the intermediate).
//!
//! As in the element-wise kernels, a zero cell of `X` (or of a weight) multiplies the
//! low-rank term to exactly zero even if that term is NaN or infinite.

use rayon::prelude::*;

use crate::error::{ExecError, Result};
use crate::kernels::aggregate::{sum_rows, sum_sq};
use crate::kernels::ew_common::{
    axpy, dot, for_union, map_stored, matrix_blocks, par_dense, row_view, uniform_blocks,
    weighted_matrix_blocks, with_pattern_of, RowView, MIN_PAR_WORK,
};
use crate::matrix::{DenseMatrix, Matrix, Shape};

/// Checks `X` (`m x n`) against `U` (`m x k`) and `V` (`n x k`).
fn check_factors(op: &str, x: Shape, u: &DenseMatrix, v: &DenseMatrix) -> Result<()> {
    if u.rows() != x.rows {
        return Err(ExecError::shape_mismatch(
            format!("{op} (rows of X vs rows of U)"),
            x,
            u.shape(),
        ));
    }
    if v.rows() != x.cols {
        return Err(ExecError::shape_mismatch(
            format!("{op} (columns of X vs rows of V)"),
            x,
            v.shape(),
        ));
    }
    if u.cols() != v.cols() {
        return Err(ExecError::shape_mismatch(
            format!("{op} (rank of U vs rank of V)"),
            u.shape(),
            v.shape(),
        ));
    }
    Ok(())
}

/// `Σ_ij x_ij (u_i · v_j)` over the non-zeros of `X`: per row, `t = Σ_j x_ij v_j` (a
/// `k`-vector that stays in cache) and then one dot with `u_i`.
///
/// `finite_factors` says that `U` and `V` hold no NaN or Inf (`None`: ask them; see
/// [`cross_rows_fixed`] for what it changes).
fn cross_term(
    x: &Matrix,
    u: &DenseMatrix,
    v: &DenseMatrix,
    finite_factors: Option<bool>,
) -> Result<f64> {
    let k = u.cols();
    // Each stored entry costs k multiply-adds, four to a vector instruction. Counted one
    // unit per multiply-add, a rank-10 pass over 20,000 entries (2000 x 1000 at 1%,
    // 30 µs) would go to 6 blocks, where a second thread gained nothing measurable on 2
    // cores and waking it cost more when the other core was busy; counted per vector
    // instruction, a rank-10 pass splits from about 21,000 entries on.
    let blocks = weighted_matrix_blocks(x, crate::kernels::ew_common::MAX_BLOCKS, k.div_ceil(4));
    if let Matrix::Sparse(csr) = x {
        // Cached on the factors (the planner asked already when they are inputs).
        let finite_factors = finite_factors.unwrap_or_else(|| u.all_finite() && v.all_finite());
        // Deferred index checks run in the pass, line by line (see `mmchain_vector_rows`).
        let check = csr.indices_pending();
        type Rows = fn(
            &crate::matrix::CsrMatrix,
            &DenseMatrix,
            &DenseMatrix,
            std::ops::Range<usize>,
            bool,
            bool,
        ) -> Option<f64>;
        macro_rules! fixed {
            ($($k:literal)*) => {
                match k {
                    $($k => Some(cross_rows_dispatch::<$k> as Rows),)*
                    _ => None,
                }
            };
        }
        if let Some(rows) = fixed!(1 2 3 4 5 6 8 10 12 16 20 24 25 30 32 40 50 64) {
            let failed = std::sync::atomic::AtomicBool::new(false);
            let sum = crate::kernels::ew_common::par_sum_blocks(&blocks, |range| {
                rows(csr, u, v, range, finite_factors, check).unwrap_or_else(|| {
                    failed.store(true, std::sync::atomic::Ordering::Relaxed);
                    0.0
                })
            });
            if failed.into_inner() {
                return Err(deferred_check_error(csr));
            }
            return Ok(sum);
        }
        csr.check_indices()?;
    }
    Ok(crate::kernels::ew_common::par_sum_blocks(
        &blocks,
        |range| {
            let mut t = vec![0.0; k];
            let mut s = 0.0;
            for i in range {
                t.fill(0.0);
                let mut any = false;
                row_view(x, i).for_each_nz(|j, xv| {
                    any = true;
                    axpy(xv, v.row(j), &mut t)
                });
                if any {
                    s += dot(u.row(i), &t);
                }
            }
            s
        },
    ))
}

/// The error for a line that failed a kernel's own check of deferred indices: the full
/// check names the first bad line, as validating on input would.
fn deferred_check_error(x: &crate::matrix::CsrMatrix) -> ExecError {
    match x.check_indices() {
        Err(e) => e,
        Ok(()) => ExecError::invalid("the indices of a sparse input changed while it was read"),
    }
}

/// Runs [`cross_rows_fixed`] with AVX2 + FMA when the CPU has them (the crate is built
/// for baseline x86-64, whose SSE2 halves the arithmetic throughput of this
/// compute-bound loop), else the portable build.
#[inline]
fn cross_rows_dispatch<const K: usize>(
    x: &crate::matrix::CsrMatrix,
    u: &DenseMatrix,
    v: &DenseMatrix,
    range: std::ops::Range<usize>,
    finite_factors: bool,
    check: bool,
) -> Option<f64> {
    #[cfg(target_arch = "x86_64")]
    if super::cpu::avx2_fma() {
        // SAFETY: the CPU supports the features the function is compiled for.
        return unsafe { cross_rows_avx2_fma::<K>(x, u, v, range, finite_factors, check) };
    }
    cross_rows_fixed::<K, false>(x, u, v, range, finite_factors, check)
}

/// [`cross_rows_fixed`] compiled with AVX2 and FMA enabled.
///
/// # Safety
/// The CPU must support AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn cross_rows_avx2_fma<const K: usize>(
    x: &crate::matrix::CsrMatrix,
    u: &DenseMatrix,
    v: &DenseMatrix,
    range: std::ops::Range<usize>,
    finite_factors: bool,
    check: bool,
) -> Option<f64> {
    cross_rows_fixed::<K, true>(x, u, v, range, finite_factors, check)
}

/// [`cross_term`] over CSR rows `range` for a compile-time rank `K`: the `K`-vector
/// accumulators live in registers and the inner loops unroll completely. Each row's
/// `t = Σ_j x_ij v_j` is folded into a `K`-vector total (`total += u_i ∘ t`), summed once
/// at the end: a dot product per row would end in a horizontal sum, which on rows of
/// ~10 entries cost as much as the entries.
///
/// With `finite_factors` (no NaN or Inf in `U` or `V`) a stored zero of `X` adds exactly
/// zero, so the entries are multiplied in without a test; otherwise zeros are skipped
/// (they mask a NaN or Inf in `V`, and an all-zero row one in `U`, as the cell semantics
/// of `X * (U %*% t(V))` ask). The test per entry made the loop about twice as slow.
/// `FMA` selects fused multiply-adds (only where the caller is compiled with hardware
/// FMA; the software fallback would be slow). With `check` (deferred index checks), each
/// line's indices are checked before use; `None` at the first that fails.
#[inline(always)]
fn cross_rows_fixed<const K: usize, const FMA: bool>(
    x: &crate::matrix::CsrMatrix,
    u: &DenseMatrix,
    v: &DenseMatrix,
    range: std::ops::Range<usize>,
    finite_factors: bool,
    check: bool,
) -> Option<f64> {
    let (vd, ud) = (v.data(), u.data());
    // The arrays once, outside the loop (as in `mmchain_vector_rows_with`); the indices
    // unchecked, as `check` says.
    let (ptr, indices, values) = x.arrays_unchecked();
    let madd = |a: f64, b: f64, c: f64| if FMA { a.mul_add(b, c) } else { c + a * b };
    let mut total = [0.0f64; K];
    for i in range {
        let (idx, val) = (&indices[ptr[i]..ptr[i + 1]], &values[ptr[i]..ptr[i + 1]]);
        if check && !line_indices_valid(idx, x.cols()) {
            return None;
        }
        let mut t = [0.0f64; K];
        let mut any = finite_factors;
        for (&j, &xv) in idx.iter().zip(val) {
            if finite_factors || xv != 0.0 {
                any = true;
                let j = j as usize;
                let vr: &[f64; K] = vd[j * K..(j + 1) * K].try_into().expect("K columns");
                for p in 0..K {
                    t[p] = madd(xv, vr[p], t[p]);
                }
            }
        }
        if any {
            let ur: &[f64; K] = ud[i * K..(i + 1) * K].try_into().expect("K columns");
            for p in 0..K {
                total[p] = madd(ur[p], t[p], total[p]);
            }
        }
    }
    Some(total.iter().sum())
}

/// Upper triangle (`p <= q`) of `t(A) %*% A` as a row-major `k x k` buffer (the lower
/// triangle is left zero), rows of `A` in parallel blocks.
fn gram_upper(a: &DenseMatrix) -> Vec<f64> {
    let k = a.cols();
    let blocks = uniform_blocks(a.rows(), k * k / 2 + 1, rayon::current_num_threads());
    let partial: Vec<Vec<f64>> = blocks
        .into_par_iter()
        .map(|range| {
            macro_rules! fixed {
                ($($k:literal)*) => {
                    match k {
                        $($k => gram_upper_block::<$k>(a.data(), range),)*
                        _ => gram_upper_block_dyn(a, range),
                    }
                };
            }
            fixed!(1 2 3 4 5 6 8 10 12 16 20 24 25 30 32 40 50 64)
        })
        .collect();
    let mut g = vec![0.0; k * k];
    for part in partial {
        for (x, y) in g.iter_mut().zip(part) {
            *x += y;
        }
    }
    g
}

fn gram_upper_block<const K: usize>(data: &[f64], range: std::ops::Range<usize>) -> Vec<f64> {
    let mut g = vec![0.0; K * K];
    for i in range {
        let r: &[f64; K] = data[i * K..(i + 1) * K].try_into().expect("K columns");
        for p in 0..K {
            let ap = r[p];
            let gp = &mut g[p * K..(p + 1) * K];
            for q in p..K {
                gp[q] += ap * r[q];
            }
        }
    }
    g
}

fn gram_upper_block_dyn(a: &DenseMatrix, range: std::ops::Range<usize>) -> Vec<f64> {
    let k = a.cols();
    let mut g = vec![0.0; k * k];
    for i in range {
        let row = a.row(i);
        for (p, &ap) in row.iter().enumerate() {
            axpy(ap, &row[p..], &mut g[p * k + p..(p + 1) * k]);
        }
    }
    g
}

/// `sum((U %*% t(V))^2) = sum((t(U) %*% U) * (t(V) %*% V))`, in `O((m + n) k^2)`; both
/// Gram matrices are symmetric, so only their upper triangles are computed.
fn low_rank_sum_sq(u: &DenseMatrix, v: &DenseMatrix) -> f64 {
    let k = u.cols();
    let (gu, gv) = rayon::join(|| gram_upper(u), || gram_upper(v));
    let mut diag = 0.0;
    let mut off = 0.0;
    for p in 0..k {
        diag += gu[p * k + p] * gv[p * k + p];
        for q in p + 1..k {
            off += gu[p * k + q] * gv[p * k + q];
        }
    }
    diag + 2.0 * off
}

/// `Σ_ij f(x_ij, u_i · v_j)` over every cell of `X`, dense or sparse (a sparse row's
/// absent cells are zeros): `m * n * k` work, what the expression as written does
/// without forming the `m x n` product.
fn all_cells(
    x: &Matrix,
    u: &DenseMatrix,
    v: &DenseMatrix,
    f: impl Fn(f64, f64) -> f64 + Sync,
) -> f64 {
    let n = x.cols();
    let blocks = uniform_blocks(
        x.rows(),
        n * (u.cols() + 1),
        crate::kernels::ew_common::MAX_BLOCKS,
    );
    crate::kernels::ew_common::par_sum_blocks(&blocks, |range| {
        let mut s = 0.0;
        for i in range {
            let ui = u.row(i);
            let mut cell = |j: usize, xv: f64| s += f(xv, dot(ui, v.row(j)));
            match row_view(x, i) {
                RowView::Dense(row) => row.iter().enumerate().for_each(|(j, &xv)| cell(j, xv)),
                RowView::Sparse(idx, val) => {
                    let mut stored = idx.iter().zip(val).peekable();
                    for j in 0..n {
                        let xv = match stored.next_if(|(&c, _)| c as usize == j) {
                            Some((_, &xv)) => xv,
                            None => 0.0,
                        };
                        cell(j, xv);
                    }
                }
            }
        }
        s
    })
}

/// `Σ_ij f(x_ij, u_i · v_j)` for a sparse `X` by the expansion `expanded` (linear in
/// `nnz(X)`), unless it is not finite while `X`, `U` and `V` are: then an intermediate
/// overflowed (`Inf - Inf` is NaN where the cells' own sum is `Inf`, or a sum of squares
/// overflowed where the cells' differences are small), and every cell is computed as
/// written ([`all_cells`]).
fn expanded_or_cells(
    x: &Matrix,
    u: &DenseMatrix,
    v: &DenseMatrix,
    expanded: f64,
    f: impl Fn(f64, f64) -> f64 + Sync,
) -> f64 {
    if expanded.is_finite() || !(x.all_finite() && u.all_finite() && v.all_finite()) {
        expanded
    } else {
        all_cells(x, u, v, f)
    }
}

/// `sum(X * (U %*% t(V)))` in one pass over the non-zeros of `X`, without the dense
/// product: linear in `nnz(X) * k`.
///
/// Errors when `U` is not `m x k` or `V` not `n x k`.
pub fn sddmm_sum(x: &Matrix, u: &DenseMatrix, v: &DenseMatrix) -> Result<f64> {
    check_factors("sddmm_sum", x.shape(), u, v)?;
    cross_term(x, u, v, None)
}

/// [`sddmm_sum`] for operands that may hold NaN or Inf, without scanning any of them
/// first: `None` when they do (where it matters), for the caller to compute the
/// expression as written. The pass multiplies every stored entry in as if `U` and `V`
/// were finite (no test for stored zeros). A NaN or Inf among the values it multiplies
/// makes the total NaN or Inf (nothing in a sum of products turns it finite again), so
/// a finite total means every value met was finite, and then the total is what the
/// exact loop gives; a NaN or Inf only in rows of `U` or `V` that no stored entry
/// reaches is never met, as the cell semantics ask. Every stored value of `X` is met, so
/// a finite total also records that `X` is finite (a later check of it is free). A
/// non-finite total (a NaN or Inf met, or an overflow) gives `None`.
pub fn sddmm_sum_if_finite(x: &Matrix, u: &DenseMatrix, v: &DenseMatrix) -> Result<Option<f64>> {
    check_factors("sddmm_sum", x.shape(), u, v)?;
    if x.finite_if_known() == Some(false) {
        return Ok(None);
    }
    let total = cross_term(x, u, v, Some(true))?;
    if !total.is_finite() {
        return Ok(None);
    }
    x.record_all_finite();
    Ok(Some(total))
}

/// `X * (U %*% t(V))` with `X`'s sparsity pattern (the sampled dense-dense product):
/// only the cells where `X` is non-zero compute a rank-`k` dot. Returned in its best
/// format (sparse for a sparse `X`).
pub fn sddmm(x: &Matrix, u: &DenseMatrix, v: &DenseMatrix) -> Result<Matrix> {
    check_factors("sddmm", x.shape(), u, v)?;
    Ok(match x {
        Matrix::Sparse(s) => {
            let values = map_stored(s, |i, j, xv| {
                if xv == 0.0 {
                    0.0
                } else {
                    xv * dot(u.row(i), v.row(j))
                }
            });
            with_pattern_of(s, values)
        }
        Matrix::Dense(d) => {
            let cols = d.cols();
            let out = par_dense(d.rows(), cols, u.cols() + 1, |range, out| {
                for (k, i) in range.enumerate() {
                    let o = &mut out[k * cols..(k + 1) * cols];
                    for (j, (o, &xv)) in o.iter_mut().zip(d.row(i)).enumerate() {
                        if xv != 0.0 {
                            *o = xv * dot(u.row(i), v.row(j));
                        }
                    }
                }
            });
            Matrix::Dense(out).into_best_format()
        }
    })
}

/// `(X * (U %*% t(V))) %*% V` (SystemDS's wdivmm, multiply right) without the dense
/// product: row `i` of the `m x k` result is `Σ_j x_ij (u_i · v_j) v_j` over the non-zeros
/// of row `i` of `X`, one rank-`k` dot and one rank-`k` update each.
///
/// Errors when `U` is not `m x k` or `V` not `n x k`.
pub fn wdivmm_mult(x: &Matrix, u: &DenseMatrix, v: &DenseMatrix) -> Result<DenseMatrix> {
    check_factors("wdivmm_mult", x.shape(), u, v)?;
    let k = u.cols();
    let work = (x.nnz() / x.rows().max(1)).max(1) * 2;
    Ok(par_dense(x.rows(), k, work, |range, out| {
        for (r, i) in range.enumerate() {
            let (ui, o) = (u.row(i), &mut out[r * k..(r + 1) * k]);
            row_view(x, i).for_each_nz(|j, xv| axpy(xv * dot(ui, v.row(j)), v.row(j), o));
        }
    }))
}

/// `t(U) %*% (X / (U %*% t(V)))` (SystemDS's wdivmm, divide left) and, with `left` false,
/// `(X / (U %*% t(V))) %*% V` (divide right), without the dense product: the quotient is
/// evaluated at the non-zeros of `X` only (the masked division `(X != 0) * (X / E)`),
/// one rank-`k` dot and one rank-`k` update each, by the masked kernels' specialized loop.
///
/// Errors when `U` is not `m x k` or `V` not `n x k`.
pub fn wdivmm_div(x: &Matrix, u: &DenseMatrix, v: &DenseMatrix, left: bool) -> Result<DenseMatrix> {
    use crate::kernels::elementwise::BinaryOp;
    use crate::kernels::masked::{self, Instr, MaskedProgram, Operand};
    let name = if left { "wdivmm_left" } else { "wdivmm_right" };
    check_factors(name, x.shape(), u, v)?;
    let quotient = MaskedProgram::new(vec![
        Instr::Mask,
        Instr::Load(0),
        Instr::Binary(BinaryOp::Div),
    ])?;
    let operands = [Operand::LowRank { u, v }];
    if left {
        masked::masked_left_mul(x, &quotient, &operands, u)
    } else {
        masked::masked_right_mul(x, &quotient, &operands, v)
    }
}

/// `sum(X * log(U %*% t(V)))` (SystemDS's wcemm, weighted cross-entropy) in one pass over
/// the non-zeros of `X`: one rank-`k` dot and one logarithm each; a zero of `X` contributes
/// nothing even where the product is not positive (cell semantics).
///
/// Errors when `U` is not `m x k` or `V` not `n x k`.
pub fn wcemm(x: &Matrix, u: &DenseMatrix, v: &DenseMatrix) -> Result<f64> {
    check_factors("wcemm", x.shape(), u, v)?;
    let blocks = matrix_blocks(x, crate::kernels::ew_common::MAX_BLOCKS);
    Ok(crate::kernels::ew_common::par_sum_blocks(
        &blocks,
        |range| {
            let mut s = 0.0;
            for i in range {
                let ui = u.row(i);
                row_view(x, i).for_each_nz(|j, xv| s += xv * dot(ui, v.row(j)).ln());
            }
            s
        },
    ))
}

/// Which weighting of the squared loss [`wsloss`] computes (SystemDS's `wsloss`
/// variants).
#[derive(Clone, Copy, Debug)]
pub enum WeightKind<'a> {
    /// `sum((X - U %*% t(V))^2)`
    None,
    /// `sum(W * (X - U %*% t(V))^2)` (post-weighting; `W` is `m x n`)
    Post(&'a Matrix),
    /// `sum((X != 0) * (X - U %*% t(V))^2)` (loss over the observed cells only)
    PostNz,
    /// `sum((X - W * (U %*% t(V)))^2)` (pre-weighting; `W` is `m x n`)
    Pre(&'a Matrix),
}

/// Weighted squared loss of a low-rank model, without the dense `U %*% t(V)`:
///
/// * `None`: `sum(X^2) - 2 sum(X * UV') + sum((t(U)%*%U) * (t(V)%*%V))` for a sparse
///   `X` (linear in `nnz(X) k` plus `O((m + n) k^2)`); cell by cell for a dense `X`.
/// * `Post(W)`: `Σ_{w_ij != 0} w_ij (x_ij - u_i·v_j)^2`, one merge of `W`'s and `X`'s
///   rows; dots only at `W`'s non-zeros.
/// * `PostNz`: `Σ_{x_ij != 0} (x_ij - u_i·v_j)^2`.
/// * `Pre(W)`: `Σ_{w_ij != 0} (x_ij - w_ij u_i·v_j)^2 + Σ_{w_ij = 0} x_ij^2`, i.e. the
///   expansion `sum(X^2) - 2 sum(X * W * UV') + sum((W * UV')^2)` restricted to `W`'s
///   non-zeros, evaluated per cell in one merge of `W`'s and `X`'s rows so the large
///   terms never cancel.
///
/// Errors when the factor or weight shapes do not fit `X`.
pub fn wsloss(x: &Matrix, u: &DenseMatrix, v: &DenseMatrix, w: WeightKind) -> Result<f64> {
    check_factors("wsloss", x.shape(), u, v)?;
    let n = x.cols();
    let check_w = |w: &Matrix| {
        if w.shape() == x.shape() {
            Ok(())
        } else {
            Err(ExecError::shape_mismatch(
                "wsloss (W vs X)",
                w.shape(),
                x.shape(),
            ))
        }
    };
    Ok(match w {
        WeightKind::None => {
            let cell = |xv: f64, uv: f64| (xv - uv) * (xv - uv);
            match x {
                Matrix::Sparse(_) => {
                    let expanded =
                        sum_sq(x) - 2.0 * cross_term(x, u, v, None)? + low_rank_sum_sq(u, v);
                    expanded_or_cells(x, u, v, expanded, cell)
                }
                Matrix::Dense(_) => all_cells(x, u, v, cell),
            }
        }
        WeightKind::PostNz => sum_rows(x, |i| {
            let ui = u.row(i);
            let mut s = 0.0;
            row_view(x, i).for_each_nz(|j, xv| {
                let r = xv - dot(ui, v.row(j));
                s += r * r;
            });
            s
        }),
        WeightKind::Post(w) => {
            check_w(w)?;
            sum_rows(w, |i| {
                let ui = u.row(i);
                let mut s = 0.0;
                for_union(n, row_view(w, i), row_view(x, i), |j, wv, xv| {
                    if wv != 0.0 {
                        let r = xv - dot(ui, v.row(j));
                        s += wv * r * r;
                    }
                });
                s
            })
        }
        WeightKind::Pre(w) => {
            check_w(w)?;
            sum_rows(w, |i| {
                let ui = u.row(i);
                let mut s = 0.0;
                for_union(n, row_view(w, i), row_view(x, i), |j, wv, xv| {
                    let r = if wv != 0.0 {
                        xv - wv * dot(ui, v.row(j))
                    } else {
                        xv
                    };
                    s += r * r;
                });
                s
            })
        }
    })
}

/// `sum((X + U %*% t(V))^2)`, the sign-flipped variant SystemDS has no fused operator
/// for: `sum(X^2) + 2 sum(X * UV') + sum((t(U)%*%U) * (t(V)%*%V))` for a sparse `X`,
/// cell by cell for a dense one. Same cost as [`wsloss`] with `WeightKind::None`.
pub fn wsloss_plus(x: &Matrix, u: &DenseMatrix, v: &DenseMatrix) -> Result<f64> {
    check_factors("wsloss_plus", x.shape(), u, v)?;
    let cell = |xv: f64, uv: f64| (xv + uv) * (xv + uv);
    Ok(match x {
        Matrix::Sparse(_) => {
            let expanded = sum_sq(x) + 2.0 * cross_term(x, u, v, None)? + low_rank_sum_sq(u, v);
            expanded_or_cells(x, u, v, expanded, cell)
        }
        Matrix::Dense(_) => all_cells(x, u, v, cell),
    })
}

/// The matrix-multiplication chain `t(X) %*% (X %*% v)` (`w = None`) or
/// `t(X) %*% (w * (X %*% v))`, in one pass over the rows of `X`: for row `i`,
/// `q = x_i · v` (a `k`-vector), `q *= w_i`, then `acc += x_i^T q` into a per-block
/// `n x k` accumulator; the accumulators (one per thread at most) are summed at the end.
/// Neither `X %*% v` nor `t(X)` is materialized.
///
/// `v` is `n x k` (any `k`, including the usual `k = 1`), `w` is `m x 1`; the result is
/// `n x k`. Errors on shape mismatches.
pub fn mmchain(x: &Matrix, v: &DenseMatrix, w: Option<&DenseMatrix>) -> Result<DenseMatrix> {
    check_mmchain(x, v, w)?;
    // A vector `v` on finite operands (the case of `t(X) %*% (X %*% v)`): the tight loop,
    // where skipping X's stored zeros as the general loop does changes no value.
    let vector =
        v.cols() == 1 && x.all_finite() && v.all_finite() && w.is_none_or(|w| w.all_finite());
    mmchain_in_blocks(x, v, w, mmchain_blocks(x, x.cols() * v.cols()), vector)
}

/// [`mmchain`] without scanning `X` for NaN or Inf first (`v` and `w`, vectors, are
/// asked): `None` when the result is not finite, for the caller to compute the
/// expression as written. With finite `v` and `w` a NaN or Inf in `X` reaches the
/// result: row `i`'s `q = w_i (x_i · v)` is then NaN or Inf, and every entry of the row
/// adds `x_ij q` to the result (a `q` of exactly zero, skipped, is finite). So a finite
/// result means `X` is finite (recorded, so a later check of it is free) and equals
/// what [`mmchain`] gives; a non-finite one (a NaN or Inf in `X`, or an overflow) gives
/// `None`. A wide `v` runs the general loop when everything is finite.
pub fn mmchain_if_finite(
    x: &Matrix,
    v: &DenseMatrix,
    w: Option<&DenseMatrix>,
) -> Result<Option<DenseMatrix>> {
    check_mmchain(x, v, w)?;
    let factors_finite = v.all_finite() && w.is_none_or(|w| w.all_finite());
    if !factors_finite || x.finite_if_known() == Some(false) {
        return Ok(None);
    }
    let blocks = mmchain_blocks(x, x.cols() * v.cols());
    let out = if v.cols() == 1 {
        mmchain_in_blocks(x, v, w, blocks, true)?
    } else if x.all_finite() {
        mmchain_in_blocks(x, v, w, blocks, false)?
    } else {
        return Ok(None);
    };
    if !out.all_finite() {
        return Ok(None);
    }
    x.record_all_finite();
    Ok(Some(out))
}

/// The shape checks of [`mmchain`].
fn check_mmchain(x: &Matrix, v: &DenseMatrix, w: Option<&DenseMatrix>) -> Result<()> {
    let (m, n, k) = (x.rows(), x.cols(), v.cols());
    ExecError::ensure_shapes(v.rows() == n, "mmchain (X %*% v)", x.shape(), v.shape())?;
    if let Some(w) = w {
        if w.rows() != m || w.cols() != 1 {
            return Err(ExecError::shape_mismatch(
                "mmchain (w * (X %*% v))",
                w.shape(),
                Shape::new(m, k),
            ));
        }
    }
    Ok(())
}

/// Row blocks of `mmchain` that do not depend on the thread count (so the partial sums
/// add up in the same order on any machine): enough for the threads to balance even when
/// one of them is scheduled late, at most one `n x k` accumulator per [`MIN_PAR_WORK`]
/// entries read, so that summing the accumulators stays small next to the pass over `X`.
fn mmchain_blocks(x: &Matrix, accumulator: usize) -> Vec<std::ops::Range<usize>> {
    const MAX_MMCHAIN_BLOCKS: usize = 8;
    let work = match x {
        Matrix::Sparse(s) => s.stored(),
        Matrix::Dense(d) => d.rows() * d.cols(),
    };
    let affordable = work / accumulator.max(MIN_PAR_WORK);
    matrix_blocks(x, affordable.clamp(1, MAX_MMCHAIN_BLOCKS))
}

/// [`mmchain`] over the given row blocks (covering `0..m` in order), one accumulator
/// each, summed in block order; `vector`: the tight loop for a vector `v` (which does not
/// skip stored zeros, so it is exact only on finite operands), else the general loop.
fn mmchain_in_blocks(
    x: &Matrix,
    v: &DenseMatrix,
    w: Option<&DenseMatrix>,
    blocks: Vec<std::ops::Range<usize>>,
    vector: bool,
) -> Result<DenseMatrix> {
    let (n, k) = (x.cols(), v.cols());
    // The vector loop checks the indices of an input whose checks were deferred as it
    // reads them; the general loop reads them through the checked accessors.
    let deferred = match x {
        Matrix::Sparse(s) if s.indices_pending() => Some(s),
        _ => None,
    };
    if let (Some(s), false) = (deferred, vector) {
        s.check_indices()?;
    }
    let partial: Vec<Option<Vec<f64>>> = blocks
        .into_par_iter()
        .map(|range| {
            let mut acc = vec![0.0; n * k];
            if vector {
                let valid = mmchain_vector_rows(x, v.data(), w.map(|w| w.data()), range, &mut acc);
                return valid.then_some(acc);
            }
            let mut q = vec![0.0; k];
            for i in range {
                let row = row_view(x, i);
                let scale = w.map_or(1.0, |w| w.data()[i]);
                if k == 1 {
                    let vd = v.data();
                    let mut s = 0.0;
                    row.for_each_nz(|j, xv| s += xv * vd[j]);
                    s *= scale;
                    if s != 0.0 {
                        row.for_each_nz(|j, xv| acc[j] += xv * s);
                    }
                } else {
                    q.fill(0.0);
                    row.for_each_nz(|j, xv| axpy(xv, v.row(j), &mut q));
                    for qv in q.iter_mut() {
                        *qv *= scale;
                    }
                    row.for_each_nz(|j, xv| axpy(xv, &q, &mut acc[j * k..(j + 1) * k]));
                }
            }
            Some(acc)
        })
        .collect();
    let Some(partial) = partial.into_iter().collect::<Option<Vec<_>>>() else {
        let s = deferred.expect("only deferred indices are checked in the loop");
        return Err(deferred_check_error(s));
    };
    let mut parts = partial.into_iter();
    let mut out = parts.next().unwrap_or_else(|| vec![0.0; n * k]);
    for part in parts {
        for (o, p) in out.iter_mut().zip(part) {
            *o += p;
        }
    }
    DenseMatrix::from_vec(n, k, out)
}

/// Rows `range` of `t(X) %*% (w * (X %*% v))` for a vector `v` (length `n`), added into
/// `acc` (length `n`): per row `q = w_i (x_i · v)`, then `acc += q x_i`, the row read
/// twice while it is in cache. Runs [`mmchain_vector_rows_with`] with AVX2 and FMA when
/// the CPU has them (the crate is built for baseline x86-64): the scatter `acc[j] += x q`
/// is one fused multiply-add per entry instead of a multiply and an add.
///
/// A sparse `X` whose index checks were deferred (see `CsrMatrix::from_foreign`)
/// has each line's indices checked here, just before they are used, while the line is in
/// cache: strictly increasing and below `n`. Returns false at the first line that fails
/// (`acc` is then partial). The gather and scatter keep their bounds checks regardless:
/// foreign arrays may change while they are read.
fn mmchain_vector_rows(
    x: &Matrix,
    v: &[f64],
    w: Option<&[f64]>,
    range: std::ops::Range<usize>,
    acc: &mut [f64],
) -> bool {
    #[cfg(target_arch = "x86_64")]
    if super::cpu::avx2_fma() {
        // SAFETY: the CPU supports the features the function is compiled for.
        return unsafe { mmchain_vector_rows_avx2_fma(x, v, w, range, acc) };
    }
    mmchain_vector_rows_with::<false>(x, v, w, range, acc)
}

/// [`mmchain_vector_rows_with`] compiled with AVX2 and FMA enabled.
///
/// # Safety
/// The CPU must support AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn mmchain_vector_rows_avx2_fma(
    x: &Matrix,
    v: &[f64],
    w: Option<&[f64]>,
    range: std::ops::Range<usize>,
    acc: &mut [f64],
) -> bool {
    mmchain_vector_rows_with::<true>(x, v, w, range, acc)
}

/// [`mmchain_vector_rows`] with fused multiply-adds when `FMA` (only where the caller is
/// compiled with hardware FMA).
#[inline(always)]
fn mmchain_vector_rows_with<const FMA: bool>(
    x: &Matrix,
    v: &[f64],
    w: Option<&[f64]>,
    range: std::ops::Range<usize>,
    acc: &mut [f64],
) -> bool {
    let weight = |i: usize| w.map_or(1.0, |w| w[i]);
    match x {
        Matrix::Sparse(s) => {
            // The arrays once, outside the loop: a foreign (NumPy-owned) buffer is behind
            // a dynamic call that `s.line(i)` would repeat for every row.
            let check = s.indices_pending();
            let (ptr, indices, values) = s.arrays_unchecked();
            for i in range {
                let (cols, vals) = (&indices[ptr[i]..ptr[i + 1]], &values[ptr[i]..ptr[i + 1]]);
                if check && !line_indices_valid(cols, v.len()) {
                    return false;
                }
                let q = sparse_dot4::<FMA>(cols, vals, v) * weight(i);
                if q != 0.0 {
                    for (&j, &xv) in cols.iter().zip(vals) {
                        let a = &mut acc[j as usize];
                        *a = if FMA { xv.mul_add(q, *a) } else { *a + xv * q };
                    }
                }
            }
        }
        Matrix::Dense(d) => {
            for i in range {
                let row = d.row(i);
                let q = dot(row, v) * weight(i);
                if q != 0.0 {
                    axpy(q, row, acc);
                }
            }
        }
    }
    true
}

/// Whether a line's indices strictly increase and stay below `n` (so each is in range),
/// in one branch-free fold over adjacent pairs that vectorizes.
#[inline(always)]
fn line_indices_valid(cols: &[u32], n: usize) -> bool {
    let Some(&last) = cols.last() else {
        return true;
    };
    let not_increasing = cols
        .iter()
        .zip(&cols[1..])
        .fold(0u32, |bad, (a, b)| bad | u32::from(a >= b));
    not_increasing == 0 && (last as usize) < n
}

/// Dot product of the sparse row `(cols, vals)` with `v`, in four independent sums: the
/// single sum's add-latency chain bounds this gather loop (about 1.3x slower measured on
/// rows of 50 entries, where `X %*% v`'s memory traffic is not the limit).
#[inline(always)]
fn sparse_dot4<const FMA: bool>(cols: &[u32], vals: &[f64], v: &[f64]) -> f64 {
    let mut lanes = [0.0f64; 4];
    let (col_chunks, val_chunks) = (cols.chunks_exact(4), vals.chunks_exact(4));
    let (col_rest, val_rest) = (col_chunks.remainder(), val_chunks.remainder());
    for (c, x) in col_chunks.zip(val_chunks) {
        for (lane, (&j, &xv)) in lanes.iter_mut().zip(c.iter().zip(x)) {
            let vj = v[j as usize];
            *lane = if FMA {
                xv.mul_add(vj, *lane)
            } else {
                *lane + xv * vj
            };
        }
    }
    let mut s = (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
    for (&j, &x) in col_rest.iter().zip(val_rest) {
        s += x * v[j as usize];
    }
    s
}

/// `P * (1 - P)` (SystemDS's `sprop`, the variance of a Bernoulli probability), in one
/// pass. Zero maps to zero, so a sparse `P` stays sparse (cells where `P` is 1 become
/// zero and are dropped).
pub fn sprop(p: &Matrix) -> Matrix {
    let f = |v: f64| v * (1.0 - v);
    match p {
        Matrix::Sparse(s) => with_pattern_of(s, map_stored(s, |_, _, v| f(v))),
        Matrix::Dense(d) => {
            let cols = d.cols();
            let out = par_dense(d.rows(), cols, 1, |range, out| {
                let src = &d.data()[range.start * cols..range.end * cols];
                for (o, &v) in out.iter_mut().zip(src) {
                    *o = f(v);
                }
            });
            Matrix::Dense(out).into_best_format()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::elementwise::tests::random;
    use crate::matrix::{approx_eq_f64, CsrMatrix};
    use proptest::prelude::*;

    const RTOL: f64 = 1e-9;

    fn factor(rows: usize, k: usize, seed: u64) -> DenseMatrix {
        random(rows, k, 1.0, false, seed).into_dense()
    }

    /// Dense `U %*% t(V)` built the slow way.
    fn uvt(u: &DenseMatrix, v: &DenseMatrix) -> DenseMatrix {
        DenseMatrix::from_fn(u.rows(), v.rows(), |i, j| {
            (0..u.cols()).map(|p| u.get(i, p) * v.get(j, p)).sum()
        })
    }

    fn cells(m: &Matrix) -> Vec<f64> {
        m.to_dense().into_vec()
    }

    fn close(got: f64, want: f64, what: &str) {
        assert!(
            approx_eq_f64(got, want, RTOL),
            "{what}: got {got}, want {want}"
        );
    }

    /// Every fused kernel against the unfused computation for one X.
    fn check_all(x: &Matrix, k: usize, seed: u64) {
        let (m, n) = (x.rows(), x.cols());
        let u = factor(m, k, seed);
        let v = factor(n, k, seed + 1);
        let uv = uvt(&u, &v);
        let xs = cells(x);
        let uvs = uv.data();
        let w_sparse = random(m, n, 0.2, true, seed + 2);
        let w_dense = random(m, n, 0.7, false, seed + 3);

        let want: f64 = xs
            .iter()
            .zip(uvs)
            .map(|(a, b)| if *a == 0.0 { 0.0 } else { a * b })
            .sum();
        close(sddmm_sum(x, &u, &v).unwrap(), want, "sddmm_sum");

        let got = sddmm(x, &u, &v).unwrap();
        let want_m = DenseMatrix::from_fn(m, n, |i, j| {
            let xv = x.get(i, j);
            if xv == 0.0 {
                0.0
            } else {
                xv * uv.get(i, j)
            }
        });
        assert!(got.approx_eq(&Matrix::Dense(want_m), RTOL), "sddmm");
        assert_eq!(
            got.is_sparse(),
            crate::matrix::prefer_sparse(m, n, got.nnz()),
            "sddmm result in best format"
        );
        if x.is_sparse() && x.density() < 0.3 && n > 1 && m > 0 {
            assert!(got.is_sparse(), "sddmm keeps a sparse X sparse");
            assert!(got.nnz() <= x.nnz());
        }

        let got = wdivmm_mult(x, &u, &v).unwrap();
        let want_m = DenseMatrix::from_fn(m, k, |i, p| {
            (0..n)
                .map(|j| x.get(i, j) * uv.get(i, j) * v.get(j, p))
                .sum()
        });
        assert!(
            Matrix::Dense(got).approx_eq(&Matrix::Dense(want_m), RTOL),
            "wdivmm_mult"
        );

        let want: f64 = xs.iter().zip(uvs).map(|(a, b)| (a - b) * (a - b)).sum();
        close(
            wsloss(x, &u, &v, WeightKind::None).unwrap(),
            want,
            "wsloss None",
        );
        let want: f64 = xs.iter().zip(uvs).map(|(a, b)| (a + b) * (a + b)).sum();
        close(wsloss_plus(x, &u, &v).unwrap(), want, "wsloss_plus");
        let want: f64 = xs
            .iter()
            .zip(uvs)
            .map(|(a, b)| if *a != 0.0 { (a - b) * (a - b) } else { 0.0 })
            .sum();
        close(
            wsloss(x, &u, &v, WeightKind::PostNz).unwrap(),
            want,
            "wsloss PostNz",
        );
        for w in [&w_sparse, &w_dense] {
            let ws = cells(w);
            let want: f64 = xs
                .iter()
                .zip(uvs)
                .zip(&ws)
                .map(|((a, b), c)| c * (a - b) * (a - b))
                .sum();
            close(
                wsloss(x, &u, &v, WeightKind::Post(w)).unwrap(),
                want,
                "wsloss Post",
            );
            let want: f64 = xs
                .iter()
                .zip(uvs)
                .zip(&ws)
                .map(|((a, b), c)| (a - c * b) * (a - c * b))
                .sum();
            close(
                wsloss(x, &u, &v, WeightKind::Pre(w)).unwrap(),
                want,
                "wsloss Pre",
            );
        }

        // mmchain with k = 1 and k = 3, with and without w.
        let xd = x.to_dense();
        for kk in [1, 3] {
            let vv = factor(n, kk, seed + 4);
            let ww = factor(m, 1, seed + 5);
            for weights in [None, Some(&ww)] {
                let got = mmchain(x, &vv, weights).unwrap();
                let q = DenseMatrix::from_fn(m, kk, |i, p| {
                    let s: f64 = (0..n).map(|j| xd.get(i, j) * vv.get(j, p)).sum();
                    s * weights.map_or(1.0, |w| w.get(i, 0))
                });
                let want = DenseMatrix::from_fn(n, kk, |j, p| {
                    (0..m).map(|i| xd.get(i, j) * q.get(i, p)).sum()
                });
                assert!(
                    Matrix::Dense(got).approx_eq(&Matrix::Dense(want), RTOL),
                    "mmchain k={kk} w={}",
                    weights.is_some()
                );
            }
        }
    }

    /// Any split of the rows into blocks gives the single-block answer (up to the order
    /// of the additions), for vector and wide `v`, with and without weights, on shapes
    /// with one row, one column or none; and inputs large enough to be split are.
    #[test]
    fn mmchain_blocks_match_one_block() {
        let shapes = [
            (0, 5),
            (5, 0),
            (1, 40),
            (40, 1),
            (1, 1),
            (300, 70),
            (9000, 40),
        ];
        for (m, n) in shapes {
            for (density, sparse) in [(0.1, true), (1.0, false)] {
                let x = random(m, n, density, sparse, (m * 31 + n) as u64);
                for k in [1, 3] {
                    let v = factor(n, k, 5);
                    let w = factor(m, 1, 6);
                    for weights in [None, Some(&w)] {
                        let one = mmchain_in_blocks(
                            &x,
                            &v,
                            weights,
                            std::iter::once(0..m).collect(),
                            k == 1,
                        )
                        .unwrap();
                        let blocks = [
                            mmchain_blocks(&x, n * k),
                            uniform_blocks(m, 1, 7),
                            matrix_blocks(&x, 64),
                        ];
                        for split in blocks {
                            let got =
                                mmchain_in_blocks(&x, &v, weights, split.clone(), k == 1).unwrap();
                            assert!(
                                Matrix::Dense(got).approx_eq(&Matrix::Dense(one.clone()), RTOL),
                                "{m}x{n} k={k} blocks {split:?}"
                            );
                        }
                        let got = mmchain(&x, &v, weights).unwrap();
                        assert!(Matrix::Dense(got).approx_eq(&Matrix::Dense(one), RTOL));
                    }
                }
            }
        }
        let large = random(9000, 40, 1.0, false, 3);
        let split = mmchain_blocks(&large, 40);
        assert!(split.len() > 1, "{split:?}");
        assert_eq!(split.first().map(|r| r.start), Some(0));
        assert_eq!(split.last().map(|r| r.end), Some(9000));
        assert!(split.windows(2).all(|b| b[0].end == b[1].start));
    }

    #[test]
    fn fused_match_unfused_sparse_and_dense() {
        for (m, n) in [(40, 30), (1, 20), (20, 1), (1, 1), (7, 9)] {
            for k in [1, 2, 5, 7, 20] {
                for (density, sparse) in [(0.05, true), (0.3, true), (1.0, false), (0.2, false)] {
                    let x = random(m, n, density, sparse, (m * 7 + n + k) as u64);
                    check_all(&x, k, 11 + k as u64);
                }
            }
        }
    }

    #[test]
    fn fused_with_empty_rows_all_zero_and_empty_shapes() {
        // Rows 0, 2 and 5 empty; one explicit zero.
        let x = CsrMatrix::new(
            6,
            5,
            vec![0, 0, 2, 2, 4, 5, 5],
            vec![1, 4, 0, 3, 2],
            vec![1.5, -2.0, 0.0, 3.0, 0.5],
        )
        .unwrap();
        for k in [1, 4] {
            check_all(&Matrix::Sparse(x.clone()), k, 3);
            check_all(&Matrix::Sparse(CsrMatrix::zeros(6, 5)), k, 4);
            check_all(&Matrix::Dense(DenseMatrix::zeros(6, 5)), k, 5);
        }
        for (m, n) in [(0, 5), (5, 0), (0, 0)] {
            check_all(&Matrix::Sparse(CsrMatrix::zeros(m, n)), 3, 6);
            check_all(&Matrix::Dense(DenseMatrix::zeros(m, n)), 3, 6);
        }
        // k = 0: U V' is all zero.
        let x = random(5, 4, 0.5, true, 1);
        check_all(&x, 0, 2);
    }

    /// The squared-error sums of a sparse `X` expand into `Σx² ∓ 2Σx(uv) + Σ(uv)²`; when a
    /// term overflows on finite operands, the cells are summed as written instead, so the
    /// result is the expression's own: `Inf` where the cells overflow (not the expansion's
    /// `Inf - Inf` = NaN), and a finite sum where the huge cells cancel.
    #[test]
    fn squared_error_sums_overflow_as_the_cells_do() {
        let (m, n, k) = (30, 20, 3);
        let v = factor(n, k, 2);
        let u = factor(m, k, 1);
        let x = random(m, n, 0.1, true, 3);
        let direct = |x: &Matrix, u: &DenseMatrix, sign: f64| -> f64 {
            let uv = uvt(u, &v);
            cells(x)
                .iter()
                .zip(uv.data())
                .map(|(a, b)| (a + sign * b) * (a + sign * b))
                .sum()
        };
        // Every cell's u·v is about 1e160: its square overflows.
        let huge = DenseMatrix::from_fn(m, k, |i, p| u.get(i, p) * 1e160);
        let loss = wsloss(&x, &huge, &v, WeightKind::None).unwrap();
        assert_eq!(loss, f64::INFINITY);
        assert_eq!(loss, direct(&x, &huge, -1.0));
        assert_eq!(wsloss_plus(&x, &huge, &v).unwrap(), f64::INFINITY);
        // Row 0 of U is huge and X holds row 0 of U V' exactly (rank 1: one product per
        // cell, so the kernel's u·v is the same number): those cells are 0, the rest
        // small, while Σx² alone overflows.
        let (mut u, v) = (factor(m, 1, 4), factor(n, 1, 5));
        u.set(0, 0, u.get(0, 0) * 1e200);
        let uv = uvt(&u, &v);
        let mut rows = cells(&x);
        rows[..n].copy_from_slice(&uv.data()[..n]);
        let x = Matrix::Sparse(CsrMatrix::from_dense(
            &DenseMatrix::from_vec(m, n, rows).unwrap(),
        ));
        let direct = |x: &Matrix| -> f64 {
            cells(x)
                .iter()
                .zip(uv.data())
                .map(|(a, b)| (a - b) * (a - b))
                .sum()
        };
        let want = direct(&x);
        assert!(want.is_finite() && want > 0.0, "{want}");
        close(
            wsloss(&x, &u, &v, WeightKind::None).unwrap(),
            want,
            "wsloss",
        );
    }

    #[test]
    fn fused_parallel_sizes() {
        let x = random(3000, 400, 0.05, true, 77);
        check_all(&x, 6, 78);
    }

    /// A CSR matrix read as the Python bindings read NumPy arrays: foreign arrays, index
    /// checks deferred to the first reader.
    fn deferred_csr(x: &CsrMatrix, indices: Vec<u32>) -> CsrMatrix {
        #[derive(Debug)]
        struct Kept<T>(Vec<T>);
        impl<T: std::fmt::Debug + Send + Sync> crate::matrix::ForeignSlice<T> for Kept<T> {
            fn slice(&self) -> &[T] {
                &self.0
            }
        }
        CsrMatrix::from_foreign(
            (x.rows(), x.cols()),
            x.indptr().to_vec(),
            std::sync::Arc::new(Kept(indices)),
            std::sync::Arc::new(Kept(x.values().to_vec())),
            crate::matrix::IndexChecks::Deferred,
        )
        .unwrap()
    }

    /// The kernels that learn X's finiteness in their own pass: on finite operands the
    /// answer of the checked kernels, and X recorded finite without a scan of its own;
    /// `None` as soon as a NaN or Inf is met (in X, or in a factor row a stored entry
    /// reaches, a stored zero included), and the answer where the non-finite value is
    /// never met.
    #[test]
    fn kernels_learn_finiteness_in_their_pass() {
        let Matrix::Sparse(csr) = random(400, 60, 0.1, true, 21) else {
            unreachable!()
        };
        let (u, v, w) = (factor(400, 10, 22), factor(60, 10, 23), factor(60, 1, 24));
        let fresh = || Matrix::Sparse(deferred_csr(&csr, csr.indices().to_vec()));
        let x = fresh();
        assert_eq!(x.finite_if_known(), None);
        let want = sddmm_sum(&Matrix::Sparse(csr.clone()), &u, &v).unwrap();
        let got = sddmm_sum_if_finite(&x, &u, &v).unwrap().unwrap();
        assert!((got - want).abs() <= 1e-12 * want.abs(), "{got} vs {want}");
        assert_eq!(x.finite_if_known(), Some(true));
        let x = fresh();
        let want = mmchain(&Matrix::Sparse(csr.clone()), &w, None).unwrap();
        let got = mmchain_if_finite(&x, &w, None).unwrap().unwrap();
        assert!(Matrix::Dense(got).approx_eq(&Matrix::Dense(want), RTOL));
        assert_eq!(x.finite_if_known(), Some(true));

        // A NaN or Inf in X, at the first, a middle and the last stored entry.
        for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            for at in [0, csr.stored() / 2, csr.stored() - 1] {
                let mut values = csr.values().to_vec();
                values[at] = bad;
                let poisoned = CsrMatrix::new(
                    csr.rows(),
                    csr.cols(),
                    csr.indptr().to_vec(),
                    csr.indices().to_vec(),
                    values,
                )
                .unwrap();
                let x = Matrix::Sparse(poisoned);
                assert_eq!(
                    sddmm_sum_if_finite(&x, &u, &v).unwrap(),
                    None,
                    "{bad} at {at}"
                );
                assert!(
                    mmchain_if_finite(&x, &w, None).unwrap().is_none(),
                    "{bad} at {at}"
                );
            }
        }
        // A NaN in the row of V that a stored entry reaches is met; one in a row of V
        // that no entry reaches (an empty column of X) is not.
        let (j_used, j_unused) = (csr.indices()[0] as usize, 60);
        let mut wider = csr.clone().into_parts();
        wider.1 += 1; // one more column, empty
        let x =
            Matrix::Sparse(CsrMatrix::new(wider.0, wider.1, wider.2, wider.3, wider.4).unwrap());
        let with_nan_at = |j: usize| {
            DenseMatrix::from_fn(61, 10, |r, c| {
                if r == j {
                    f64::NAN
                } else {
                    v.get(r.min(59), c)
                }
            })
        };
        assert_eq!(
            sddmm_sum_if_finite(&x, &u, &with_nan_at(j_used)).unwrap(),
            None
        );
        let got = sddmm_sum_if_finite(&x, &u, &with_nan_at(j_unused))
            .unwrap()
            .unwrap();
        let want = sddmm_sum(&x, &u, &with_nan_at(j_unused)).unwrap();
        assert!((got - want).abs() <= 1e-12 * want.abs(), "{got} vs {want}");
        // A non-finite v is not run here at all.
        let nan_v = DenseMatrix::filled(60, 1, f64::NAN);
        assert!(mmchain_if_finite(&fresh(), &nan_v, None).unwrap().is_none());
    }

    #[test]
    fn mmchain_checks_deferred_indices_in_its_pass() {
        let Matrix::Sparse(x) = random(3000, 80, 0.1, true, 12) else {
            unreachable!()
        };
        let v = factor(80, 1, 13);
        let wide = factor(80, 3, 14);
        let eager = Matrix::Sparse(x.clone());
        let good = Matrix::Sparse(deferred_csr(&x, x.indices().to_vec()));
        for v in [&v, &wide] {
            let want = mmchain(&eager, v, None).unwrap();
            let got = mmchain(&good, v, None).unwrap();
            for (g, w) in got.data().iter().zip(want.data()) {
                close(*g, *w, "mmchain on deferred indices");
            }
        }
        let row = 2000;
        let (start, end) = (x.indptr()[row], x.indptr()[row + 1]);
        assert!(end - start >= 2);
        let mut out_of_range = x.indices().to_vec();
        out_of_range[end - 1] = 80;
        let mut repeated = x.indices().to_vec();
        repeated[start + 1] = repeated[start];
        let cases = [
            (
                out_of_range,
                format!("invalid CSR input: index out of range 80 in line {row}"),
            ),
            (
                repeated,
                format!("invalid CSR input: indices of line {row} are not strictly increasing"),
            ),
        ];
        for (indices, message) in cases {
            // The vector loop (k = 1) finds it in its pass; the general loop (k = 3) runs
            // the full check first.
            for v in [&v, &wide] {
                let bad = Matrix::Sparse(deferred_csr(&x, indices.clone()));
                let Matrix::Sparse(s) = &bad else {
                    unreachable!()
                };
                assert!(s.indices_pending());
                assert_eq!(mmchain(&bad, v, None).unwrap_err().to_string(), message);
            }
        }
    }

    #[test]
    fn sddmm_sum_checks_deferred_indices_in_its_pass() {
        let Matrix::Sparse(x) = random(500, 60, 0.1, true, 15) else {
            unreachable!()
        };
        for k in [10, 7] {
            // k = 10 has a fixed-rank loop that checks each line; k = 7 checks first.
            let (u, v) = (factor(500, k, 16), factor(60, k, 17));
            let want = sddmm_sum(&Matrix::Sparse(x.clone()), &u, &v).unwrap();
            let good = Matrix::Sparse(deferred_csr(&x, x.indices().to_vec()));
            close(
                sddmm_sum(&good, &u, &v).unwrap(),
                want,
                "sddmm_sum on deferred indices",
            );
            let row = 321;
            let end = x.indptr()[row + 1];
            assert!(end > x.indptr()[row]);
            let mut bad = x.indices().to_vec();
            bad[end - 1] = 60;
            let bad = Matrix::Sparse(deferred_csr(&x, bad));
            assert_eq!(
                sddmm_sum(&bad, &u, &v).unwrap_err().to_string(),
                format!("invalid CSR input: index out of range 60 in line {row}")
            );
        }
    }

    #[test]
    fn portable_and_simd_mmchain_rows_agree() {
        let x = random(400, 90, 0.1, true, 8);
        let v = factor(90, 1, 9);
        let w: Vec<f64> = (0..400).map(|i| (i % 7) as f64 - 3.0).collect();
        for w in [None, Some(&w[..])] {
            let mut portable = vec![0.0; 90];
            let mut dispatched = vec![0.0; 90];
            assert!(mmchain_vector_rows_with::<false>(
                &x,
                v.data(),
                w,
                0..400,
                &mut portable
            ));
            assert!(mmchain_vector_rows(
                &x,
                v.data(),
                w,
                0..400,
                &mut dispatched
            ));
            for (p, d) in portable.iter().zip(&dispatched) {
                close(*d, *p, "dispatched vs portable mmchain rows");
            }
        }
    }

    #[test]
    fn portable_and_simd_cross_terms_agree() {
        let Matrix::Sparse(x) = random(300, 200, 0.05, true, 5) else {
            unreachable!()
        };
        let (u, v) = (factor(300, 20, 6), factor(200, 20, 7));
        let dynamic = cross_term(&Matrix::Dense(x.to_dense()), &u, &v, None).unwrap();
        for finite_factors in [false, true] {
            let portable =
                cross_rows_fixed::<20, false>(&x, &u, &v, 0..300, finite_factors, true).unwrap();
            let dispatched =
                cross_rows_dispatch::<20>(&x, &u, &v, 0..300, finite_factors, false).unwrap();
            close(portable, dynamic, "portable vs dense-path cross term");
            close(dispatched, dynamic, "dispatched vs dense-path cross term");
        }
    }

    #[test]
    fn zero_in_x_masks_nan_in_factors() {
        let x = Matrix::Sparse(CsrMatrix::from_triplets(2, 2, &[(0, 0, 2.0)]).unwrap());
        let u = DenseMatrix::from_vec(2, 1, vec![1.0, f64::NAN]).unwrap();
        let v = DenseMatrix::from_vec(2, 1, vec![3.0, 4.0]).unwrap();
        assert_eq!(sddmm_sum(&x, &u, &v).unwrap(), 6.0);
        assert_eq!(wsloss(&x, &u, &v, WeightKind::PostNz).unwrap(), 1.0);
    }

    #[test]
    fn stored_zero_masks_nan_in_v_and_finite_factors_take_the_untested_loop() {
        // Row 0 stores an explicit zero at column 1, where V is NaN.
        let x = CsrMatrix::from_parts_unchecked(
            2,
            2,
            vec![0, 2, 3],
            vec![0, 1, 1],
            vec![2.0, 0.0, 3.0],
        );
        let x = Matrix::Sparse(x);
        let u = DenseMatrix::from_vec(2, 1, vec![1.0, 5.0]).unwrap();
        let nan_v = DenseMatrix::from_vec(2, 1, vec![3.0, f64::NAN]).unwrap();
        assert!(sddmm_sum(&x, &u, &nan_v).unwrap().is_nan()); // row 1 reads the NaN
        let x0 = CsrMatrix::from_parts_unchecked(2, 2, vec![0, 2, 2], vec![0, 1], vec![2.0, 0.0]);
        assert_eq!(sddmm_sum(&Matrix::Sparse(x0), &u, &nan_v).unwrap(), 6.0);
        let v = DenseMatrix::from_vec(2, 1, vec![3.0, 4.0]).unwrap();
        assert_eq!(sddmm_sum(&x, &u, &v).unwrap(), 2.0 * 3.0 + 5.0 * 3.0 * 4.0);
    }

    #[test]
    fn wcemm_sums_x_times_the_log_at_x_non_zeros_only() {
        let positive = |rows, seed| {
            let f = factor(rows, 3, seed);
            DenseMatrix::from_fn(rows, 3, |i, p| f.get(i, p).abs() + 0.1)
        };
        for (m, n, density, sparse) in [(40, 30, 0.1, true), (20, 15, 0.6, false)] {
            let x = random(m, n, density, sparse, 7);
            let (u, v) = (positive(m, 8), positive(n, 9));
            let uv = uvt(&u, &v);
            let want: f64 = (0..m)
                .flat_map(|i| (0..n).map(move |j| (i, j)))
                .filter(|&(i, j)| x.get(i, j) != 0.0)
                .map(|(i, j)| x.get(i, j) * uv.get(i, j).ln())
                .sum();
            assert!(want.is_finite() && want != 0.0);
            close(wcemm(&x, &u, &v).unwrap(), want, "wcemm");
        }
        // Where the product is zero the log is -Inf; a zero of X there contributes 0.
        let x = Matrix::Dense(DenseMatrix::from_vec(1, 2, vec![0.0, 2.0]).unwrap());
        let u = DenseMatrix::from_vec(1, 1, vec![1.0]).unwrap();
        let v = DenseMatrix::from_vec(2, 1, vec![0.0, 1.0]).unwrap();
        assert_eq!(wcemm(&x, &u, &v).unwrap(), 0.0);
    }

    #[test]
    fn shape_errors() {
        let x = random(4, 3, 0.5, true, 1);
        let u = factor(4, 2, 1);
        let v = factor(3, 2, 2);
        assert!(sddmm_sum(&x, &factor(5, 2, 1), &v).is_err());
        assert!(sddmm(&x, &u, &factor(4, 2, 1)).is_err());
        assert!(wsloss(&x, &u, &factor(3, 3, 1), WeightKind::None).is_err());
        let bad_w = random(3, 4, 0.5, true, 1);
        let err = wsloss(&x, &u, &v, WeightKind::Post(&bad_w))
            .unwrap_err()
            .to_string();
        assert!(err.contains("3x4") && err.contains("4x3"), "{err}");
        assert!(wsloss(&x, &u, &v, WeightKind::Pre(&bad_w)).is_err());
        assert!(wsloss_plus(&x, &u, &factor(2, 2, 1)).is_err());
        let err = wdivmm_mult(&x, &u, &factor(3, 3, 1))
            .unwrap_err()
            .to_string();
        assert!(err.contains("wdivmm_mult") && err.contains("rank"), "{err}");
        assert!(mmchain(&x, &factor(4, 1, 1), None).is_err());
        assert!(mmchain(&x, &factor(3, 1, 1), Some(&factor(3, 1, 1))).is_err());
        assert!(mmchain(&x, &factor(3, 1, 1), Some(&factor(4, 2, 1))).is_err());
    }

    #[test]
    fn sprop_matches_and_stays_sparse() {
        for (m, n, d, sparse) in [
            (50, 40, 0.1, true),
            (30, 20, 1.0, false),
            (1, 1, 1.0, false),
            (0, 3, 0.1, true),
        ] {
            let p = random(m, n, d, sparse, 9);
            let got = sprop(&p);
            let want = DenseMatrix::from_fn(m, n, |i, j| p.get(i, j) * (1.0 - p.get(i, j)));
            assert!(got.approx_eq(&Matrix::Dense(want), 1e-15));
            if sparse && m > 0 {
                assert!(got.is_sparse());
            }
        }
        let p =
            Matrix::Sparse(CsrMatrix::from_triplets(2, 3, &[(0, 0, 1.0), (1, 2, 0.5)]).unwrap());
        let got = sprop(&p);
        assert_eq!(got.nnz(), 1);
        assert_eq!(got.get(1, 2), 0.25);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]
        #[test]
        fn prop_fused(m in 0usize..12, n in 0usize..12, k in 0usize..5, d in 0.0f64..0.6,
                      sparse: bool, seed in 0u64..1000) {
            check_all(&random(m, n, d, sparse, seed), k, seed);
        }
    }
}
