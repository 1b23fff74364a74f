//! Fast paths: kernels that are exactly a matrix product run on spores-exec's matrix
//! kernels (GEMM, SpMM, SpGEMM, `t(X) %*% X`) instead of the loop interpreter.
//!
//! Recognized: `C[o1,o2] = sum[k](A[..] * B[..])` and `y[o] = sum[k](A[..] * x[k])` where
//! `A` and `B` are order-2 tensors stored Dense/Dense or Dense/SortedList (CSR), `x` an
//! order-1 tensor with at least half its entries non-zero, all with fill 0 and finite values (BLAS propagates `0 * inf` as NaN
//! where the engine's `*` gives 0), in any mode orders (operands are transposed in the
//! kernel call, not copied).

use spores_exec::{CsrMatrix, DenseMatrix, Matrix};

use super::fibertree::{FiberTensor, Level};
use crate::plan_ast::{Access, AggOp, Idx, LevelFormat, MapOp, PhysExpr, PhysicalQuery};
use crate::TensorError;

/// A fibertree as a matrix (a vector becomes a column), without copying its values
/// structure more than once; `None` for layouts the kernels do not take.
fn as_matrix(t: &FiberTensor) -> Option<Matrix> {
    if t.fill != 0.0 || t.vals.iter().any(|v| !v.is_finite()) {
        return None;
    }
    // A sparse vector operand is left to the interpreter, which walks only its non-zeros
    // (a matrix kernel would touch the whole matrix).
    if t.order() == 1 {
        let nonzero = t.vals.iter().filter(|&&v| v != 0.0).count();
        if 2 * nonzero < t.dims[0] {
            return None;
        }
    }
    match (t.order(), t.formats().as_slice()) {
        (1, [LevelFormat::Dense]) => DenseMatrix::from_vec(t.dims[0], 1, t.vals.clone())
            .ok()
            .map(Matrix::Dense),
        (1, [LevelFormat::SortedList]) => {
            let l = &t.levels[0];
            let mut d = vec![0.0; t.dims[0]];
            for (k, &c) in l.idx.iter().enumerate() {
                d[c as usize] = t.vals[k];
            }
            DenseMatrix::from_vec(t.dims[0], 1, d)
                .ok()
                .map(Matrix::Dense)
        }
        (2, [LevelFormat::Dense, LevelFormat::Dense]) => {
            DenseMatrix::from_vec(t.dims[0], t.dims[1], t.vals.clone())
                .ok()
                .map(Matrix::Dense)
        }
        (2, [LevelFormat::Dense, LevelFormat::SortedList]) => {
            let l = &t.levels[1];
            CsrMatrix::new(
                t.dims[0],
                t.dims[1],
                l.ptr.clone(),
                l.idx.clone(),
                t.vals.clone(),
            )
            .ok()
            .map(Matrix::Sparse)
        }
        _ => None,
    }
}

/// Runs `q` as a matrix product if it is one; `None` when the fast path does not apply.
/// `sum[k](A[..] * B[..])`: the summed index and the two accesses.
fn sum_of_two_accesses(q: &PhysicalQuery) -> Option<(&Idx, &Access, &Access)> {
    if q.agg != Some(AggOp::Sum) || q.agg_idxs.len() != 1 {
        return None;
    }
    let PhysExpr::Map {
        op: MapOp::Mul,
        args,
    } = &q.body
    else {
        return None;
    };
    let [PhysExpr::Access(a), PhysExpr::Access(b)] = args.as_slice() else {
        return None;
    };
    Some((&q.agg_idxs[0], a, b))
}

pub fn matrix_product<'a>(
    q: &PhysicalQuery,
    tensor: &dyn Fn(&str, bool) -> Option<&'a FiberTensor>,
) -> Option<Result<FiberTensor, TensorError>> {
    let (k, a, b) = sum_of_two_accesses(q)?;
    let (ta, tb) = (tensor(&a.name, a.is_alias)?, tensor(&b.name, b.is_alias)?);
    // Order the operands so that the left one is order 2.
    let ((a, ta), (b, tb)) = if a.idxs.len() == 2 {
        ((a, ta), (b, tb))
    } else {
        ((b, tb), (a, ta))
    };
    if a.idxs.len() != 2 || !(b.idxs.len() == 2 || b.idxs.len() == 1) {
        return None;
    }
    // The free index of each operand (the one that is not k).
    let other = |idxs: &[Idx]| -> Option<(Idx, bool)> {
        match idxs {
            [x, y] if y == k && x != k => Some((x.clone(), false)),
            [x, y] if x == k && y != k => Some((y.clone(), true)),
            _ => None,
        }
    };
    let (oa, trans_a) = other(&a.idxs)?;
    if let Some(r) = gram(q, (a, ta), (b, tb), k) {
        return Some(r);
    }
    let (ma, mb) = (as_matrix(ta)?, as_matrix(tb)?);
    let result = if b.idxs.len() == 1 {
        if b.idxs[0] != *k || q.output_idxs != [oa.clone()] {
            return None;
        }
        spores_exec::kernels::matmul::matmul_t(&ma, trans_a, &mb, false)
    } else {
        let (ob, b_k_last) = other(&b.idxs)?;
        let trans_b = !b_k_last; // B must be [k, ob]: transposed when stored [ob, k].
        if oa == ob {
            return None;
        }
        if q.output_idxs == [oa.clone(), ob.clone()] {
            spores_exec::kernels::matmul::matmul_t(&ma, trans_a, &mb, trans_b)
        } else if q.output_idxs == [ob, oa] {
            // C^T = op(B)^T op(A)^T.
            spores_exec::kernels::matmul::matmul_t(&mb, !trans_b, &ma, !trans_a)
        } else {
            return None;
        }
    };
    Some(
        result
            .map_err(|e| TensorError::Invalid(format!("kernel {}: {e}", q.name)))
            .map(|m| to_fibertree(m, q)),
    )
}

/// `G[o1,o2] = sum[k](X[.., k ..] * X[.., k ..])`: both operands the same all-dense order-2
/// tensor, in the same mode order, with its other mode giving the two outputs — a Gram
/// matrix, run on spores-exec's `gram_strided` over the tensor's own value buffer (no copy
/// into a `DenseMatrix`, no transposed operand). `None` when it is not one.
fn gram(
    q: &PhysicalQuery,
    (a, ta): (&crate::plan_ast::Access, &FiberTensor),
    (b, tb): (&crate::plan_ast::Access, &FiberTensor),
    k: &Idx,
) -> Option<Result<FiberTensor, TensorError>> {
    if !std::ptr::eq(ta, tb) || b.idxs.len() != 2 || ta.order() != 2 {
        return None;
    }
    let ka = a.idxs.iter().position(|i| i == k)?;
    if b.idxs.iter().position(|i| i == k) != Some(ka) {
        return None;
    }
    let (oa, ob) = (&a.idxs[1 - ka], &b.idxs[1 - ka]);
    if oa == ob
        || !(q.output_idxs == [oa.clone(), ob.clone()] || q.output_idxs == [ob.clone(), oa.clone()])
    {
        return None;
    }
    if ta.fill != 0.0 || ta.levels.iter().any(|l| l.format != LevelFormat::Dense) {
        return None;
    }
    // Observations run along mode `ka`, features along the other.
    let (n, d) = (ta.dims[ka], ta.dims[1 - ka]);
    let (rs, cs) = if ka == 0 { (d, 1) } else { (1, n) };
    if let Err(e) = super::budget::ensure_dense(&q.name, &[d, d], 8.0) {
        return Some(Err(e));
    }
    let g = match spores_exec::kernels::gram::gram_strided(&ta.vals, n, d, rs, cs) {
        Ok(g) => g,
        Err(e) => return Some(Err(TensorError::Invalid(format!("kernel {}: {e}", q.name)))),
    };
    // The engine's `*` makes `0 * inf` 0 where the kernel's arithmetic gives NaN: with an
    // infinite or NaN value in `X`, the diagonal entry of its feature (a sum of squares, no
    // cancellation) is not finite, so a finite diagonal proves `X` finite without a pass
    // over it; otherwise the interpreter runs the kernel.
    if (0..d).any(|j| !g[j * d + j].is_finite()) {
        return None;
    }
    Some(gram_tensor(q, d, g))
}

/// The Gram kernel `q`'s result from the symmetric row-major `d × d` matrix `g` (the
/// output's mode order does not matter), in `q`'s output formats.
pub(crate) fn gram_tensor(
    q: &PhysicalQuery,
    d: usize,
    g: Vec<f64>,
) -> Result<FiberTensor, TensorError> {
    if q.output_formats.iter().all(|f| *f == LevelFormat::Dense) {
        return Ok(FiberTensor::dense(&[d, d], g, 0.0));
    }
    DenseMatrix::from_vec(d, d, g)
        .map_err(|e| TensorError::Invalid(format!("kernel {}: {e}", q.name)))
        .map(|m| to_fibertree(Matrix::Dense(m), q))
}

/// When `q` is a Gram product `sum[k](X[..] * X[..])` of one alias `X` read twice in the
/// same mode order: `X`'s name and the position of `k` among its modes (the observation
/// mode).
pub(crate) fn gram_of_alias(q: &PhysicalQuery) -> Option<(&str, usize)> {
    let (k, a, b) = sum_of_two_accesses(q)?;
    if !a.is_alias || !b.is_alias || a.name != b.name || a.idxs.len() != 2 || b.idxs.len() != 2 {
        return None;
    }
    let ka = a.idxs.iter().position(|i| i == k)?;
    if b.idxs.iter().position(|i| i == k) != Some(ka) {
        return None;
    }
    let (oa, ob) = (&a.idxs[1 - ka], &b.idxs[1 - ka]);
    let outputs_ok = oa != ob
        && (q.output_idxs == [oa.clone(), ob.clone()] || q.output_idxs == [ob.clone(), oa.clone()]);
    outputs_ok.then_some((a.name.as_str(), ka))
}

/// The product in `q`'s output formats, except that a planned level too large for the cache
/// is re-priced with the product's true entry count (`physical::format_by_memory_traffic`,
/// the planner's own rule): the planner only had an upper bound, which on skewed graphs
/// claims a 10^8-cell wedge matrix is full when it holds 8% of its cells. Consumers read
/// any format (a galloping access falls back to probing a Dense level).
fn to_fibertree(m: Matrix, q: &PhysicalQuery) -> FiberTensor {
    let vector = q.output_idxs.len() == 1;
    let dims: Vec<usize> = if vector {
        vec![m.rows()]
    } else {
        vec![m.rows(), m.cols()]
    };
    let mut formats = q.output_formats.clone();
    let options = crate::physical::PhysicalOptions::default();
    let slots = (m.rows() as f64) * (m.cols() as f64);
    if !vector && formats.len() == 2 && slots > options.cached_slots {
        formats[1] = crate::physical::format_by_memory_traffic(m.nnz() as f64, slots, &options);
    }
    if formats.iter().all(|f| *f == LevelFormat::Dense) {
        return FiberTensor::dense(&dims, m.to_dense().into_vec(), 0.0);
    }
    if let (false, [LevelFormat::Dense, LevelFormat::SortedList], Matrix::Sparse(csr)) =
        (vector, formats.as_slice(), &m)
    {
        // CSR already is this fibertree: take its arrays (a 10^8-entry product would
        // otherwise be copied into coordinates and rebuilt).
        if csr.values().iter().all(|&x| x != 0.0) {
            let Matrix::Sparse(csr) = m else {
                unreachable!("matched above")
            };
            return csr_fibertree(csr);
        }
    }
    let mut coords = vec![];
    let mut vals = vec![];
    let csr = m.to_csr();
    for i in 0..csr.rows() {
        let (idx, v) = csr.line(i);
        for (&j, &x) in idx.iter().zip(v) {
            if x != 0.0 {
                coords.push(i as u32);
                if !vector {
                    coords.push(j);
                }
                vals.push(x);
            }
        }
    }
    FiberTensor::from_sorted(&dims, &coords, &vals, 0.0, &formats)
}

/// A CSR matrix without stored zeros as the fibertree (Dense, SortedList) over its own
/// arrays.
fn csr_fibertree(csr: CsrMatrix) -> FiberTensor {
    let (rows, cols, indptr, indices, values) = csr.into_parts();
    let entries = indices.len();
    let dense = Level {
        format: LevelFormat::Dense,
        dim: rows,
        ptr: vec![],
        idx: vec![],
        hash: Default::default(),
        mask: vec![],
        positions: rows,
    };
    let sorted = Level {
        format: LevelFormat::SortedList,
        dim: cols,
        ptr: indptr,
        idx: indices,
        hash: Default::default(),
        mask: vec![],
        positions: entries,
    };
    FiberTensor {
        dims: vec![rows, cols],
        levels: vec![dense, sorted],
        vals: values,
        fill: 0.0,
    }
}
