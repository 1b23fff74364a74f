//! Element-wise binary operators (`+ - * / ^ min max %% %/% == != < <= > >= & |`) with
//! DML broadcasting and sparsity-aware result formats.
//!
//! Matrix cells follow [`BinaryOp::apply_cell`]: a zero factor annihilates (`0 * y = 0`
//! for every `y`, NaN and infinities included), in every storage format, so a result
//! never depends on how an operand was stored. Division is IEEE's in every cell, as in
//! SystemDS: `0 / 0` and `0 / NaN` are NaN, `x / 0` is ±Inf. Scalar arithmetic
//! ([`BinaryOp::apply`]) is IEEE throughout.
//!
//! Result formats follow what the operator does to zeros:
//! * `*` and `&` with a full-size sparse operand keep the sparse operand's pattern
//!   (intersection with the other side's non-zeros).
//! * Two sparse operands of an operator with `0 op 0 == 0` (`+ - min max != < > |`)
//!   merge their patterns (union).
//! * A sparse operand combined with a scalar, a broadcast vector or a dense matrix keeps
//!   its pattern when `op(0, y) == 0` (or `op(y, 0) == 0` with the sparse side on the
//!   right) for every value `y` of the other side — e.g. `X * 2`, `X / 2`, `X ^ 2`,
//!   `max(X, 0)`, `X != 0`, `X / rowSums(X)` with non-zero sums.
//! * Everything else is computed dense.
//!
//! Every result is returned in the format [`Matrix::into_best_format`] picks.

use crate::error::{ExecError, Result};
use std::borrow::Cow;

use crate::kernels::ew_common::{
    flat_map, flat_zip, for_intersection, for_union, map_stored, par_csr, par_dense, par_rows,
    par_rows_mut, weighted_blocks, with_pattern_of, RowView, MAX_BLOCKS,
};
use crate::matrix::{CsrMatrix, DenseMatrix, Matrix, Shape};

/// A binary element-wise operator of DML.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    /// `a + b`
    Add,
    /// `a - b`
    Sub,
    /// `a * b`
    Mul,
    /// `a / b`, IEEE's (`x / 0` is ±Inf, `0 / 0` is NaN), on scalars and cells alike
    Div,
    /// `a ^ b`; `x ^ 2` is computed as `x * x`
    Pow,
    /// `min(a, b)`; NaN if either side is NaN (Java's `Math.min`)
    Min,
    /// `max(a, b)`; NaN if either side is NaN (Java's `Math.max`)
    Max,
    /// `a %% b`: `a - floor(a / b) * b`, the sign of the divisor (R/DML semantics)
    Mod,
    /// `a %/% b`: `floor(a / b)`
    IntDiv,
    /// `a == b` as 1/0
    Eq,
    /// `a != b` as 1/0
    Ne,
    /// `a < b` as 1/0
    Lt,
    /// `a <= b` as 1/0
    Le,
    /// `a > b` as 1/0
    Gt,
    /// `a >= b` as 1/0
    Ge,
    /// `a & b`: 1 when both are non-zero
    And,
    /// `a | b`: 1 when either is non-zero
    Or,
}

/// SystemDS's `%/%`: the double quotient truncated toward zero, unless it is NaN or
/// infinite.
#[inline(always)]
fn int_div(a: f64, b: f64) -> f64 {
    let q = a / b;
    if q.is_finite() {
        q.trunc()
    } else {
        q
    }
}

#[inline(always)]
fn flag(b: bool) -> f64 {
    if b {
        1.0
    } else {
        0.0
    }
}

impl BinaryOp {
    /// All operators, for tests and for the optimizer's enumeration.
    pub const ALL: [BinaryOp; 17] = [
        BinaryOp::Add,
        BinaryOp::Sub,
        BinaryOp::Mul,
        BinaryOp::Div,
        BinaryOp::Pow,
        BinaryOp::Min,
        BinaryOp::Max,
        BinaryOp::Mod,
        BinaryOp::IntDiv,
        BinaryOp::Eq,
        BinaryOp::Ne,
        BinaryOp::Lt,
        BinaryOp::Le,
        BinaryOp::Gt,
        BinaryOp::Ge,
        BinaryOp::And,
        BinaryOp::Or,
    ];

    /// Applies the operator to two scalars. This is the single definition of the
    /// operators' semantics; the matrix kernels call it with a constant operator so the
    /// `match` folds away.
    #[inline(always)]
    pub fn apply(self, a: f64, b: f64) -> f64 {
        match self {
            BinaryOp::Add => a + b,
            BinaryOp::Sub => a - b,
            BinaryOp::Mul => a * b,
            BinaryOp::Div => a / b,
            BinaryOp::Pow => {
                if b == 2.0 {
                    a * a
                } else {
                    a.powf(b)
                }
            }
            BinaryOp::Min => {
                if a.is_nan() || b.is_nan() {
                    f64::NAN
                } else {
                    a.min(b)
                }
            }
            BinaryOp::Max => {
                if a.is_nan() || b.is_nan() {
                    f64::NAN
                } else {
                    a.max(b)
                }
            }
            // As SystemDS: `%/%` is the quotient truncated toward zero (NaN and ±Inf pass
            // through), and `%%` is what is left of it, `a - (a %/% b) * b` computed in
            // doubles (NaN for b = 0): `-7 %% 3 = -1`, `-7.5 %/% 2 = -3`, and `3 %% 0.6 =
            // 0` where the exact remainder (`fmod`) is 1.1e-16.
            BinaryOp::Mod => {
                if b == 0.0 {
                    f64::NAN
                } else {
                    a - int_div(a, b) * b
                }
            }
            BinaryOp::IntDiv => int_div(a, b),
            BinaryOp::Eq => flag(a == b),
            BinaryOp::Ne => flag(a != b),
            BinaryOp::Lt => flag(a < b),
            BinaryOp::Le => flag(a <= b),
            BinaryOp::Gt => flag(a > b),
            BinaryOp::Ge => flag(a >= b),
            BinaryOp::And => flag(a != 0.0 && b != 0.0),
            BinaryOp::Or => flag(a != 0.0 || b != 0.0),
        }
    }

    /// Applies the operator to two matrix cells. Differs from [`BinaryOp::apply`] only in
    /// that a zero factor annihilates: `0 * y = 0` for every `y`, NaN and infinities
    /// included. This is the K-relation semantics the SPORES optimizer reasons in, and
    /// what SystemDS's sparse blocks give (its dense blocks give NaN for `0 * NaN`); it is
    /// applied whatever the storage format, so a result never depends on whether an
    /// operand was stored sparse. Division stays IEEE's, as SystemDS's is in every
    /// format: `0 / y` is 0 only for a non-zero, non-NaN `y`; dividing at a sparse
    /// numerator's non-zeros only is another operator, the masked division of
    /// [`crate::kernels::masked`].
    #[inline(always)]
    pub fn apply_cell(self, a: f64, b: f64) -> f64 {
        match self {
            BinaryOp::Mul if a == 0.0 || b == 0.0 => 0.0,
            _ => self.apply(a, b),
        }
    }

    /// The DML spelling of the operator (`"+"`, `"%%"`, `"min"`, ...), used in error
    /// messages and plan printing.
    pub fn symbol(self) -> &'static str {
        match self {
            BinaryOp::Add => "+",
            BinaryOp::Sub => "-",
            BinaryOp::Mul => "*",
            BinaryOp::Div => "/",
            BinaryOp::Pow => "^",
            BinaryOp::Min => "min",
            BinaryOp::Max => "max",
            BinaryOp::Mod => "%%",
            BinaryOp::IntDiv => "%/%",
            BinaryOp::Eq => "==",
            BinaryOp::Ne => "!=",
            BinaryOp::Lt => "<",
            BinaryOp::Le => "<=",
            BinaryOp::Gt => ">",
            BinaryOp::Ge => ">=",
            BinaryOp::And => "&",
            BinaryOp::Or => "|",
        }
    }

    /// Whether a zero on either side forces a zero result (under the sparse convention
    /// `0 * x = 0`): the result pattern is the intersection of the operands' patterns.
    pub fn is_intersection(self) -> bool {
        matches!(self, BinaryOp::Mul | BinaryOp::And)
    }

    /// Whether `0 op 0 == 0`: two sparse operands give a sparse result (union pattern).
    pub fn zero_on_zeros(self) -> bool {
        self.apply_cell(0.0, 0.0) == 0.0
    }
}

/// Runs `$body` with `$f` bound to a closure computing `op` for a constant operator, so
/// the hot loops are monomorphized per operator.
macro_rules! dispatch_binary {
    ($op:expr, $f:ident => $body:expr) => {
        dispatch_binary!(@arms $op, $f, $body,
            Add Sub Mul Div Pow Min Max Mod IntDiv Eq Ne Lt Le Gt Ge And Or)
    };
    (@arms $op:expr, $f:ident, $body:expr, $($v:ident)*) => {
        match $op {
            $(BinaryOp::$v => {
                let $f = |a: f64, b: f64| BinaryOp::$v.apply_cell(a, b);
                $body
            })*
        }
    };
}

pub(crate) use dispatch_binary;

/// One operand after broadcasting is resolved.
enum Side<'a> {
    /// A matrix of the result's shape.
    Full(&'a Matrix),
    /// A `1 x n` row vector repeated for every row (borrowed when stored dense).
    Row(Cow<'a, [f64]>),
    /// An `m x 1` column vector repeated for every column (borrowed when stored dense).
    Col(Cow<'a, [f64]>),
    /// A scalar (or a 1x1 matrix).
    Scalar(f64),
}

/// A row of an operand as the dense loop sees it.
enum RowVal<'a> {
    Slice(&'a [f64]),
    Const(f64),
}

impl Side<'_> {
    /// Value at `(i, j)` for every side except a full sparse matrix.
    #[inline(always)]
    fn at(&self, i: usize, j: usize) -> f64 {
        match self {
            Side::Full(m) => m.get(i, j),
            Side::Row(v) => v[j],
            Side::Col(v) => v[i],
            Side::Scalar(s) => *s,
        }
    }

    /// Row `i` of this side for the dense loop; sparse rows are scattered into `buf`.
    #[inline]
    fn row<'b>(&'b self, i: usize, cols: usize, buf: &'b mut Vec<f64>) -> RowVal<'b> {
        match self {
            Side::Full(Matrix::Dense(d)) => RowVal::Slice(d.row(i)),
            Side::Full(Matrix::Sparse(s)) => {
                buf.clear();
                buf.resize(cols, 0.0);
                let (idx, val) = s.line(i);
                for (&j, &v) in idx.iter().zip(val) {
                    buf[j as usize] = v;
                }
                RowVal::Slice(buf)
            }
            Side::Row(v) => RowVal::Slice(v),
            Side::Col(v) => RowVal::Const(v[i]),
            Side::Scalar(s) => RowVal::Const(*s),
        }
    }

    /// Whether `test` holds for every value this side can contribute (including the
    /// implicit zeros of a sparse matrix).
    fn all_values(&self, test: impl Fn(f64) -> bool + Sync) -> bool {
        use rayon::prelude::*;
        match self {
            Side::Full(Matrix::Dense(d)) => d.data().par_iter().all(|&v| test(v)),
            Side::Full(Matrix::Sparse(s)) => {
                s.values().par_iter().all(|&v| test(v))
                    && (s.stored() == s.rows() * s.cols() || test(0.0))
            }
            Side::Row(v) | Side::Col(v) => v.iter().all(|&x| test(x)),
            Side::Scalar(s) => test(*s),
        }
    }
}

fn vector_values(m: &Matrix) -> Cow<'_, [f64]> {
    match m {
        Matrix::Dense(d) => Cow::Borrowed(d.data()),
        Matrix::Sparse(s) => Cow::Owned(s.to_dense().into_vec()),
    }
}

/// The shape of a cellwise operator's result under DML broadcasting, or `None` when the
/// two shapes cannot meet: equal shapes, a 1x1 operand against anything, a row vector
/// against a matrix of as many columns, a column vector against one of as many rows, and
/// a column vector against a row vector (an outer result).
pub fn broadcast_shape(sa: Shape, sb: Shape) -> Option<Shape> {
    if sa == sb || sb.is_scalar() {
        Some(sa)
    } else if sa.is_scalar()
        || (sa.rows == 1 && sa.cols == sb.cols)
        || (sa.cols == 1 && sa.rows == sb.rows)
    {
        Some(sb)
    } else if (sb.rows == 1 && sb.cols == sa.cols) || (sb.cols == 1 && sb.rows == sa.rows) {
        Some(sa)
    } else if sa.cols == 1 && sb.rows == 1 {
        Some(Shape::new(sa.rows, sb.cols))
    } else {
        None
    }
}

/// Resolves DML broadcasting ([`broadcast_shape`]) into the result shape and the two
/// operand sides.
fn resolve<'a>(
    op: BinaryOp,
    a: &'a Matrix,
    b: &'a Matrix,
) -> Result<(usize, usize, Side<'a>, Side<'a>)> {
    let (sa, sb) = (a.shape(), b.shape());
    let Some(out) = broadcast_shape(sa, sb) else {
        return Err(ExecError::shape_mismatch(op.symbol(), sa, sb));
    };
    Ok((
        out.rows,
        out.cols,
        operand_side(a, sa, out),
        operand_side(b, sb, out),
    ))
}

/// How operand `m` of shape `s` enters a result of shape `out`.
fn operand_side(m: &Matrix, s: Shape, out: Shape) -> Side<'_> {
    if s == out {
        Side::Full(m)
    } else if s.is_scalar() {
        Side::Scalar(m.get(0, 0))
    } else if s.rows == 1 {
        Side::Row(vector_values(m))
    } else {
        Side::Col(vector_values(m))
    }
}

/// `a op b` with DML broadcasting: equal shapes; either side a `1 x n` row vector or an
/// `m x 1` column vector matching the other side's columns or rows; a column vector
/// (`m x 1`) op a row vector (`1 x n`) gives the `m x n` outer result; a 1x1 matrix
/// broadcasts like a scalar. Any other pair of shapes is a
/// [`ShapeMismatch`](ExecError::ShapeMismatch) naming both shapes.
///
/// See the module documentation for which results stay sparse.
pub fn binary(op: BinaryOp, a: &Matrix, b: &Matrix) -> Result<Matrix> {
    let (rows, cols, left, right) = resolve(op, a, b)?;
    Ok(compute(op, rows, cols, &left, &right))
}

/// [`binary`] of `a` and `b` (`a op b` when `a_left`, else `b op a`) written over `a`'s
/// array when `a` is dense, the result has its shape and `b` is not a sparse matrix of
/// that shape: the same cells without a second array of the result's size. Otherwise
/// [`binary`].
pub fn binary_reusing(op: BinaryOp, a: Matrix, b: &Matrix, a_left: bool) -> Result<Matrix> {
    let (sa, sb) = if a_left {
        (a.shape(), b.shape())
    } else {
        (b.shape(), a.shape())
    };
    let reusable = broadcast_shape(sa, sb)
        .is_some_and(|out| out == a.shape() && !(b.is_sparse() && b.shape() == out));
    let mut cells = match a {
        Matrix::Dense(cells) if reusable => cells,
        a if a_left => return binary(op, &a, b),
        a => return binary(op, b, &a),
    };
    let (shape, cols) = (cells.shape(), cells.cols());
    let other = operand_side(b, b.shape(), shape);
    dispatch_binary!(op, f => par_rows_mut(cells.data_mut(), cols, |i, row| {
        match other.row(i, cols, &mut Vec::new()) {
            RowVal::Slice(y) if a_left => row.iter_mut().zip(y).for_each(|(x, &y)| *x = f(*x, y)),
            RowVal::Slice(y) => row.iter_mut().zip(y).for_each(|(x, &y)| *x = f(y, *x)),
            RowVal::Const(y) if a_left => row.iter_mut().for_each(|x| *x = f(*x, y)),
            RowVal::Const(y) => row.iter_mut().for_each(|x| *x = f(y, *x)),
        }
    }));
    Ok(Matrix::Dense(cells))
}

/// `m op s` (`scalar_left == false`) or `s op m` (`scalar_left == true`). A sparse `m`
/// stays sparse when the scalar maps zero to zero (`X * 2`, `X ^ 2`, `X != 0`, ...).
pub fn binary_scalar(op: BinaryOp, m: &Matrix, s: f64, scalar_left: bool) -> Matrix {
    let (left, right) = if scalar_left {
        (Side::Scalar(s), Side::Full(m))
    } else {
        (Side::Full(m), Side::Scalar(s))
    };
    compute(op, m.rows(), m.cols(), &left, &right)
}

fn compute(op: BinaryOp, rows: usize, cols: usize, left: &Side, right: &Side) -> Matrix {
    if let (Side::Full(Matrix::Sparse(x)), Side::Full(Matrix::Sparse(y))) = (left, right) {
        if op.is_intersection() {
            return sparse_merge(op, x, y, true);
        }
        if op.zero_on_zeros() {
            return sparse_merge(op, x, y, false);
        }
        return dense_path(op, rows, cols, left, right);
    }
    if let Side::Full(Matrix::Sparse(x)) = left {
        if op.is_intersection() || right.all_values(|v| op.apply_cell(0.0, v) == 0.0) {
            return pattern_path(op, x, right, true);
        }
    }
    if let Side::Full(Matrix::Sparse(x)) = right {
        if op.is_intersection() || left.all_values(|v| op.apply_cell(v, 0.0) == 0.0) {
            return pattern_path(op, x, left, false);
        }
    }
    dense_path(op, rows, cols, left, right)
}

/// Result with the sparse operand `x`'s pattern; `other` is never a full sparse matrix.
/// Cells where `x` is zero (implicit or explicit) are zero by the caller's check.
fn pattern_path(op: BinaryOp, x: &CsrMatrix, other: &Side, sparse_left: bool) -> Matrix {
    let values = dispatch_binary!(op, f => map_stored(x, |i, j, v| {
        if v == 0.0 {
            0.0
        } else if sparse_left {
            f(v, other.at(i, j))
        } else {
            f(other.at(i, j), v)
        }
    }));
    with_pattern_of(x, values)
}

/// Two sparse operands of the same shape: intersection or union of their patterns.
fn sparse_merge(op: BinaryOp, x: &CsrMatrix, y: &CsrMatrix, intersect: bool) -> Matrix {
    let (rows, cols) = (x.rows(), x.cols());
    let (px, py) = (x.indptr(), y.indptr());
    let blocks = weighted_blocks(rows, MAX_BLOCKS, |i| {
        px[i + 1] - px[i] + py[i + 1] - py[i] + 1
    });
    let csr = dispatch_binary!(op, f => par_csr(rows, cols, &blocks, |i, idx, val| {
        let (xi, xv) = x.line(i);
        let (yi, yv) = y.line(i);
        let push = |j: usize, a: f64, b: f64, idx: &mut Vec<u32>, val: &mut Vec<f64>| {
            let r = f(a, b);
            if r != 0.0 {
                idx.push(j as u32);
                val.push(r);
            }
        };
        if intersect {
            for_intersection(cols, RowView::Sparse(xi, xv), RowView::Sparse(yi, yv), |j, a, b| {
                push(j, a, b, idx, val)
            });
        } else {
            for_union(cols, RowView::Sparse(xi, xv), RowView::Sparse(yi, yv), |j, a, b| {
                push(j, a, b, idx, val)
            });
        }
    }));
    Matrix::Sparse(csr).into_best_format()
}

/// An operand of the dense fast paths: a flat slice with one value per result cell
/// (row-major), a constant, or a vector broadcast along rows or columns.
#[derive(Clone, Copy)]
enum Flat<'a> {
    Cells(&'a [f64]),
    Const(f64),
    /// One value per row (`m x 1` broadcast over the columns).
    PerRow(&'a [f64]),
    /// One value per column (`1 x n` broadcast over the rows).
    PerCol(&'a [f64]),
}

impl Side<'_> {
    /// This side as a dense-path operand of a `rows x cols` result; `None` for a full
    /// sparse matrix.
    fn flat(&self, rows: usize, cols: usize) -> Option<Flat<'_>> {
        Some(match self {
            Side::Full(Matrix::Dense(d)) => Flat::Cells(d.data()),
            Side::Full(Matrix::Sparse(_)) => return None,
            Side::Scalar(s) => Flat::Const(*s),
            // A vector that spans the whole result is read cell by cell.
            Side::Row(v) if rows == 1 => Flat::Cells(v),
            Side::Col(v) if cols == 1 => Flat::Cells(v),
            Side::Row(v) => Flat::PerCol(v),
            Side::Col(v) => Flat::PerRow(v),
        })
    }
}

/// `f(a, b)` over all cells of a `rows x cols` result from two dense-path operands:
/// one pass over flat slices (no per-row dispatch), in parallel above a size threshold.
fn flat_binary(
    rows: usize,
    cols: usize,
    a: Flat,
    b: Flat,
    f: impl Fn(f64, f64) -> f64 + Sync + Copy,
) -> Vec<f64> {
    let n = rows * cols;
    match (a, b) {
        (Flat::Cells(a), Flat::Cells(b)) => flat_zip(a, b, f),
        (Flat::Cells(a), Flat::Const(b)) => flat_map(a, move |x| f(x, b)),
        (Flat::Const(a), Flat::Cells(b)) => flat_map(b, move |y| f(a, y)),
        (Flat::Const(a), Flat::Const(b)) => vec![f(a, b); n],
        (a, b) => par_rows(rows, cols, |i, out| {
            let at = |s: Flat, j: usize| match s {
                Flat::Cells(v) => v[i * cols + j],
                Flat::Const(c) => c,
                Flat::PerRow(v) => v[i],
                Flat::PerCol(v) => v[j],
            };
            match (a, b) {
                (Flat::Cells(a), Flat::PerRow(b)) => {
                    let (a, b) = (&a[i * cols..(i + 1) * cols], b[i]);
                    for (o, &x) in out.iter_mut().zip(a) {
                        *o = f(x, b);
                    }
                }
                (Flat::PerRow(a), Flat::Cells(b)) => {
                    let (a, b) = (a[i], &b[i * cols..(i + 1) * cols]);
                    for (o, &y) in out.iter_mut().zip(b) {
                        *o = f(a, y);
                    }
                }
                (Flat::Cells(a), Flat::PerCol(b)) => {
                    let a = &a[i * cols..(i + 1) * cols];
                    for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
                        *o = f(x, y);
                    }
                }
                (Flat::PerCol(a), Flat::Cells(b)) => {
                    let b = &b[i * cols..(i + 1) * cols];
                    for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
                        *o = f(x, y);
                    }
                }
                (a, b) => {
                    for (j, o) in out.iter_mut().enumerate() {
                        *o = f(at(a, j), at(b, j));
                    }
                }
            }
        }),
    }
}

/// Cell-by-cell dense computation (the result is then put in its best format).
fn dense_path(op: BinaryOp, rows: usize, cols: usize, left: &Side, right: &Side) -> Matrix {
    if let (Some(a), Some(b)) = (left.flat(rows, cols), right.flat(rows, cols)) {
        let data = dispatch_binary!(op, f => flat_binary(rows, cols, a, b, f));
        let d = DenseMatrix::from_vec(rows, cols, data).expect("one value per cell");
        return Matrix::Dense(d).into_best_format();
    }
    let d = dispatch_binary!(op, f => par_dense(rows, cols, 1, |range, out| {
        let (mut lbuf, mut rbuf) = (Vec::new(), Vec::new());
        for (k, i) in range.enumerate() {
            let o = &mut out[k * cols..(k + 1) * cols];
            match (left.row(i, cols, &mut lbuf), right.row(i, cols, &mut rbuf)) {
                (RowVal::Slice(a), RowVal::Slice(b)) => {
                    for ((o, &a), &b) in o.iter_mut().zip(a).zip(b) {
                        *o = f(a, b);
                    }
                }
                (RowVal::Slice(a), RowVal::Const(b)) => {
                    for (o, &a) in o.iter_mut().zip(a) {
                        *o = f(a, b);
                    }
                }
                (RowVal::Const(a), RowVal::Slice(b)) => {
                    for (o, &b) in o.iter_mut().zip(b) {
                        *o = f(a, b);
                    }
                }
                (RowVal::Const(a), RowVal::Const(b)) => o.fill(f(a, b)),
            }
        }
    }));
    Matrix::Dense(d).into_best_format()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::matrix::{rand_matrix, DenseMatrix, RandSpec};
    use proptest::prelude::*;

    /// A random matrix in the requested format regardless of its density; a sparse one
    /// gets a few explicit zeros so kernels see them.
    pub(crate) fn random(
        rows: usize,
        cols: usize,
        density: f64,
        sparse: bool,
        seed: u64,
    ) -> Matrix {
        let m = rand_matrix(&RandSpec::uniform(rows, cols, (-3.0, 3.0), density, seed)).unwrap();
        if sparse {
            let mut csr = m.to_csr();
            let n = csr.values().len();
            for p in (0..n).step_by(7) {
                csr.values_mut()[p] = 0.0;
            }
            Matrix::Sparse(csr)
        } else {
            Matrix::Dense(m.into_dense())
        }
    }

    /// Rounds values to a grid so comparisons, `%%` and `==` hit interesting cases.
    pub(crate) fn gridded(m: Matrix) -> Matrix {
        let f = |v: f64| (v * 2.0).round() / 2.0;
        match m {
            Matrix::Dense(d) => {
                let (r, c) = (d.rows(), d.cols());
                Matrix::Dense(
                    DenseMatrix::from_vec(r, c, d.into_vec().into_iter().map(f).collect()).unwrap(),
                )
            }
            Matrix::Sparse(s) => {
                let (r, c, p, i, v) = s.into_parts();
                Matrix::Sparse(CsrMatrix::new(r, c, p, i, v.into_iter().map(f).collect()).unwrap())
            }
        }
    }

    fn naive(op: BinaryOp, a: &Matrix, b: &Matrix) -> Option<DenseMatrix> {
        let (sa, sb) = (a.shape(), b.shape());
        let pick = |s: Shape, i: usize, j: usize| {
            (
                if s.rows == 1 { 0 } else { i },
                if s.cols == 1 { 0 } else { j },
            )
        };
        let (rows, cols) = if sa == sb || sb.is_scalar() {
            (sa.rows, sa.cols)
        } else if sa.is_scalar() {
            (sb.rows, sb.cols)
        } else if (sb.rows == 1 && sb.cols == sa.cols) || (sb.cols == 1 && sb.rows == sa.rows) {
            (sa.rows, sa.cols)
        } else if (sa.rows == 1 && sa.cols == sb.cols) || (sa.cols == 1 && sa.rows == sb.rows) {
            (sb.rows, sb.cols)
        } else if sa.cols == 1 && sb.rows == 1 {
            (sa.rows, sb.cols)
        } else {
            return None;
        };
        Some(DenseMatrix::from_fn(rows, cols, |i, j| {
            let (ai, aj) = pick(sa, i, j);
            let (bi, bj) = pick(sb, i, j);
            op.apply_cell(a.get(ai, aj), b.get(bi, bj))
        }))
    }

    fn check(op: BinaryOp, a: &Matrix, b: &Matrix) {
        let got = binary(op, a, b).unwrap();
        let want = Matrix::Dense(naive(op, a, b).unwrap());
        let case = format!(
            "{op:?} {} {} vs {}",
            if a.is_sparse() { "sparse" } else { "dense" },
            a.shape(),
            b.shape()
        );
        assert!(
            got.approx_eq(&want, 1e-12),
            "{case}: got {:?}\nwant {:?}",
            got.to_dense(),
            want.to_dense()
        );
        // The format is the best one for the values (ties in density aside).
        let best = prefer_sparse_of(&got);
        assert_eq!(got.is_sparse(), best, "{op:?}: format not best");
        if let Matrix::Sparse(s) = &got {
            assert!(!s.has_explicit_zeros());
        }
        // Written over either operand's array, the cells are the same.
        let over_left = binary_reusing(op, a.clone(), b, true).unwrap();
        let over_right = binary_reusing(op, b.clone(), a, false).unwrap();
        for reused in [over_left, over_right] {
            assert!(
                reused.approx_eq(&want, 1e-12),
                "{case} over an operand: got {:?}",
                reused.to_dense()
            );
        }
    }

    fn prefer_sparse_of(m: &Matrix) -> bool {
        crate::matrix::prefer_sparse(m.rows(), m.cols(), m.nnz())
    }

    #[test]
    fn scalar_semantics() {
        use BinaryOp::*;
        assert_eq!(Mod.apply(5.0, 3.0), 2.0);
        // Truncating, as SystemDS 3.4 prints for matrix("-5 5 -5 5.5") %% matrix("3 -3 -3 2").
        assert_eq!(Mod.apply(-5.0, 3.0), -2.0);
        assert_eq!(Mod.apply(5.0, -3.0), 2.0);
        assert_eq!(Mod.apply(-5.0, -3.0), -2.0);
        assert_eq!(Mod.apply(5.5, 2.0), 1.5);
        assert!(Mod.apply(5.0, 0.0).is_nan());
        // What SystemDS 3.4 prints for `3 %% 0.6` and `matrix("-3 3", 1, 2) %% 3`: the
        // remainder of the truncated quotient, computed in doubles (`fmod` gives 1.1e-16
        // and -0 here).
        assert_eq!(Mod.apply(3.0, 0.6), 0.0);
        assert!(Mod.apply(-3.0, 3.0).is_sign_positive());
        assert_eq!(IntDiv.apply(-7.5, 2.0), -3.0);
        assert!(IntDiv.apply(0.0, 0.0).is_nan());
        assert_eq!(IntDiv.apply(-5.0, 3.0), -1.0);
        assert_eq!(IntDiv.apply(5.0, -3.0), -1.0);
        assert_eq!(IntDiv.apply(-5.0, -3.0), 1.0);
        assert_eq!(IntDiv.apply(7.0, 2.0), 3.0);
        assert_eq!(IntDiv.apply(1.0, 0.0), f64::INFINITY);
        assert_eq!(Pow.apply(-3.0, 2.0), 9.0);
        assert_eq!(Pow.apply(2.0, 0.5), 2f64.sqrt());
        assert_eq!(Pow.apply(0.0, 0.0), 1.0);
        assert!(Min.apply(f64::NAN, 1.0).is_nan());
        assert!(Max.apply(1.0, f64::NAN).is_nan());
        assert_eq!(Min.apply(-1.0, 2.0), -1.0);
        assert_eq!(Max.apply(-1.0, 2.0), 2.0);
        assert_eq!(Eq.apply(2.0, 2.0), 1.0);
        assert_eq!(Eq.apply(f64::NAN, f64::NAN), 0.0);
        assert_eq!(Ne.apply(f64::NAN, f64::NAN), 1.0);
        assert_eq!(Lt.apply(1.0, 2.0), 1.0);
        assert_eq!(Le.apply(2.0, 2.0), 1.0);
        assert_eq!(Gt.apply(1.0, 2.0), 0.0);
        assert_eq!(Ge.apply(1.0, 2.0), 0.0);
        assert_eq!(And.apply(3.0, -1.0), 1.0);
        assert_eq!(And.apply(3.0, 0.0), 0.0);
        assert_eq!(Or.apply(0.0, 0.0), 0.0);
        assert_eq!(Or.apply(0.0, -2.0), 1.0);
        assert_eq!(Div.apply(1.0, 0.0), f64::INFINITY);
        let symbols: std::collections::HashSet<_> =
            BinaryOp::ALL.iter().map(|op| op.symbol()).collect();
        assert_eq!(symbols.len(), 17);
    }

    #[test]
    fn all_ops_all_format_pairs_equal_shapes() {
        for (k, &op) in BinaryOp::ALL.iter().enumerate() {
            for (sa, sb) in [(false, false), (false, true), (true, false), (true, true)] {
                let a = gridded(random(23, 17, 0.2, sa, 10 + k as u64));
                let b = gridded(random(23, 17, 0.3, sb, 50 + k as u64));
                check(op, &a, &b);
                check(op, &a, &a);
            }
        }
    }

    #[test]
    fn all_ops_broadcasting() {
        let (m, n) = (19, 13);
        for (k, &op) in BinaryOp::ALL.iter().enumerate() {
            let seed = 100 + 10 * k as u64;
            for sparse in [false, true] {
                let x = gridded(random(m, n, 0.15, sparse, seed));
                let row = gridded(random(1, n, 0.6, sparse, seed + 1));
                let col = gridded(random(m, 1, 0.6, false, seed + 2));
                let one = gridded(random(1, 1, 1.0, sparse, seed + 3));
                let row_nz = Matrix::Dense(DenseMatrix::from_fn(1, n, |_, j| j as f64 - 5.5));
                let col_nz = Matrix::Dense(DenseMatrix::from_fn(m, 1, |i, _| i as f64 + 0.5));
                for v in [&row, &col, &one, &row_nz, &col_nz] {
                    check(op, &x, v);
                    check(op, v, &x);
                }
                // outer: column op row
                check(op, &col, &row);
                check(op, &col_nz, &row_nz);
                check(op, &one, &one);
            }
        }
    }

    #[test]
    fn degenerate_shapes() {
        for &op in &BinaryOp::ALL {
            for (r, c) in [(0, 5), (5, 0), (0, 0), (1, 1), (1, 9), (9, 1)] {
                let a = random(r, c, 0.5, false, 1);
                let b = random(r, c, 0.5, c > 1, 2);
                check(op, &a, &b);
                let one = random(1, 1, 1.0, false, 3);
                check(op, &a, &one);
                check(op, &one, &b);
            }
            // 5x0 with a 5x1 column vector, 0x4 with a 1x4 row vector.
            check(
                op,
                &random(5, 0, 0.5, false, 1),
                &random(5, 1, 1.0, false, 2),
            );
            check(
                op,
                &random(0, 4, 0.5, false, 1),
                &random(1, 4, 1.0, false, 2),
            );
            check(
                op,
                &random(0, 1, 0.5, false, 1),
                &random(1, 4, 1.0, false, 2),
            );
        }
    }

    #[test]
    fn shape_mismatch_names_both_shapes() {
        let a = random(3, 4, 1.0, false, 1);
        let b = random(4, 3, 1.0, false, 2);
        let err = binary(BinaryOp::Add, &a, &b).unwrap_err();
        let text = err.to_string();
        assert!(
            text.contains("3x4") && text.contains("4x3") && text.contains('+'),
            "{text}"
        );
        // row vector op column vector is not an outer product
        let r = random(1, 4, 1.0, false, 1);
        let c = random(3, 1, 1.0, false, 2);
        assert!(binary(BinaryOp::Mul, &r, &c).is_err());
        assert!(binary(BinaryOp::Mul, &a, &random(1, 3, 1.0, false, 3)).is_err());
        assert!(binary(BinaryOp::Mul, &a, &random(4, 1, 1.0, false, 3)).is_err());
    }

    #[test]
    fn sparse_results_where_expected() {
        let x = random(200, 100, 0.05, true, 7);
        let y = random(200, 100, 0.05, true, 8);
        let d = random(200, 100, 1.0, false, 9);
        let expect = |m: Matrix, sparse: bool, what: &str| {
            assert_eq!(m.is_sparse(), sparse, "{what}");
        };
        expect(binary(BinaryOp::Mul, &x, &d).unwrap(), true, "X * D");
        expect(binary(BinaryOp::Mul, &d, &x).unwrap(), true, "D * X");
        expect(binary(BinaryOp::Add, &x, &y).unwrap(), true, "X + Y");
        expect(binary(BinaryOp::Sub, &x, &y).unwrap(), true, "X - Y");
        expect(binary(BinaryOp::Max, &x, &y).unwrap(), true, "max(X, Y)");
        expect(binary(BinaryOp::Ne, &x, &y).unwrap(), true, "X != Y");
        expect(binary(BinaryOp::Add, &x, &d).unwrap(), false, "X + D");
        expect(
            binary(BinaryOp::Div, &x, &y).unwrap(),
            false,
            "X / Y (0 / 0 is NaN)",
        );
        expect(binary(BinaryOp::Eq, &x, &y).unwrap(), false, "X == Y");
        expect(binary_scalar(BinaryOp::Mul, &x, 2.0, false), true, "X * 2");
        expect(binary_scalar(BinaryOp::Div, &x, 2.0, false), true, "X / 2");
        expect(binary_scalar(BinaryOp::Pow, &x, 2.0, false), true, "X ^ 2");
        expect(
            binary_scalar(BinaryOp::Max, &x, 0.0, false),
            true,
            "max(X, 0)",
        );
        expect(binary_scalar(BinaryOp::Ne, &x, 0.0, false), true, "X != 0");
        expect(binary_scalar(BinaryOp::Mul, &x, 2.0, true), true, "2 * X");
        expect(binary_scalar(BinaryOp::Add, &x, 1.0, false), false, "X + 1");
        expect(binary_scalar(BinaryOp::Div, &x, 2.0, true), false, "2 / X");
        expect(binary_scalar(BinaryOp::Pow, &x, 0.0, false), false, "X ^ 0");
        let row_nz = Matrix::Dense(DenseMatrix::from_fn(1, 100, |_, j| j as f64 + 1.0));
        expect(
            binary(BinaryOp::Div, &x, &row_nz).unwrap(),
            true,
            "X / rowvec",
        );
        expect(
            binary(BinaryOp::Mul, &row_nz, &x).unwrap(),
            true,
            "rowvec * X",
        );
        expect(
            binary(BinaryOp::Add, &x, &row_nz).unwrap(),
            false,
            "X + rowvec",
        );
        // The values of the sparse results are right too.
        let got = binary(BinaryOp::Div, &x, &row_nz).unwrap();
        assert!(got.approx_eq(
            &Matrix::Dense(naive(BinaryOp::Div, &x, &row_nz).unwrap()),
            1e-15
        ));
        let got = binary_scalar(BinaryOp::Ne, &x, 0.0, false);
        assert_eq!(got.nnz(), x.nnz());
        assert_eq!(got.get(0, 0), f64::from(u8::from(x.get(0, 0) != 0.0)));
    }

    #[test]
    fn sparse_times_nan_is_zero_outside_pattern() {
        let x = Matrix::Sparse(CsrMatrix::from_triplets(2, 3, &[(0, 1, 2.0)]).unwrap());
        let d = Matrix::Dense(DenseMatrix::filled(2, 3, f64::NAN));
        let got = binary(BinaryOp::Mul, &x, &d).unwrap();
        assert!(got.get(0, 1).is_nan());
        assert_eq!(got.get(0, 0), 0.0);
        assert_eq!(got.get(1, 2), 0.0);
        let got = binary_scalar(BinaryOp::Mul, &x, f64::INFINITY, false);
        assert_eq!(got.get(0, 1), f64::INFINITY);
        assert_eq!(got.get(1, 1), 0.0);
        // The same holds for dense operands: results do not depend on the format.
        let xd = Matrix::Dense(x.to_dense());
        let dense = binary(BinaryOp::Mul, &xd, &d).unwrap();
        assert_eq!(dense.get(0, 0), 0.0);
        assert!(dense.get(0, 1).is_nan());
        // Division is IEEE's in every format, as SystemDS's: `0 / 0` is NaN, `x / 0`
        // ±Inf, `0 / y` 0 for any other `y`.
        let zeros = Matrix::Dense(DenseMatrix::zeros(2, 3));
        for m in [&x, &xd] {
            let q = binary(BinaryOp::Div, m, &zeros).unwrap();
            assert!(q.get(1, 1).is_nan());
            assert_eq!(q.get(0, 1), f64::INFINITY);
            let halves = binary_scalar(BinaryOp::Div, m, 2.0, false);
            assert_eq!(halves.get(1, 1), 0.0);
        }
        assert!(BinaryOp::Div.apply(0.0, 0.0).is_nan());
        assert!(BinaryOp::Div.apply_cell(0.0, f64::NAN).is_nan());
    }

    #[test]
    fn parallel_sizes_match_naive() {
        // Large enough to split into blocks.
        let x = random(700, 300, 0.1, true, 31);
        let y = random(700, 300, 0.1, true, 32);
        let d = random(700, 300, 1.0, false, 33);
        let col = random(700, 1, 1.0, false, 34);
        for op in [BinaryOp::Add, BinaryOp::Mul, BinaryOp::Div, BinaryOp::Max] {
            check(op, &x, &y);
            check(op, &x, &d);
            check(op, &d, &col);
            check(op, &col, &random(1, 300, 1.0, false, 35));
        }
    }

    #[test]
    fn flat_paths_on_long_vectors_match_naive() {
        // Above the parallel threshold of the flat loops, as column and row vectors and
        // with every broadcast the flat path handles.
        let n = 150_000;
        let col = random(n, 1, 1.0, false, 41);
        let col2 = random(n, 1, 0.5, false, 42);
        let row = random(1, n, 1.0, false, 43);
        let one = random(1, 1, 1.0, false, 44);
        for op in [BinaryOp::Mul, BinaryOp::Sub, BinaryOp::Gt, BinaryOp::Div] {
            check(op, &col, &col2);
            check(op, &col2, &one);
            check(op, &one, &row);
            check(op, &row, &row);
            let got = binary_scalar(op, &col, 0.5, true);
            let want = naive(op, &Matrix::Dense(DenseMatrix::filled(1, 1, 0.5)), &col).unwrap();
            assert!(got.approx_eq(&Matrix::Dense(want), 1e-15));
        }
        // m x 3 with an m x 1 and a 1 x 3 vector (MLR's `E / rowSums(E)`), both sides.
        let x = random(60_000, 3, 1.0, false, 45);
        let c = random(60_000, 1, 1.0, false, 46);
        let r = random(1, 3, 1.0, false, 47);
        for op in [BinaryOp::Div, BinaryOp::Add] {
            check(op, &x, &c);
            check(op, &c, &x);
            check(op, &x, &r);
            check(op, &r, &x);
            check(op, &c, &r);
        }
    }

    #[test]
    fn a_large_array_is_written_over_in_parallel_with_the_cells_of_binary() {
        let a = random(400, 400, 1.0, false, 11);
        for b in [
            random(400, 400, 0.3, false, 12),
            random(1, 400, 1.0, false, 13),
            random(400, 1, 1.0, false, 14),
            random(1, 1, 1.0, false, 15),
            random(1, 400, 0.5, true, 16),
        ] {
            for op in [BinaryOp::Sub, BinaryOp::Mul, BinaryOp::Div] {
                let want = binary(op, &a, &b).unwrap().to_dense();
                let got = binary_reusing(op, a.clone(), &b, true).unwrap();
                assert_eq!(got.to_dense().data(), want.data(), "{op:?} {}", b.shape());
                let want = binary(op, &b, &a).unwrap().to_dense();
                let got = binary_reusing(op, a.clone(), &b, false).unwrap();
                assert_eq!(got.to_dense().data(), want.data(), "{op:?} {}", b.shape());
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        #[test]
        fn prop_binary_matches_naive(
            op_idx in 0usize..17,
            rows in 0usize..12,
            cols in 0usize..12,
            da in 0.0f64..1.0,
            db in 0.0f64..1.0,
            sa: bool,
            sb: bool,
            kind in 0usize..5,
            seed in 0u64..1000,
        ) {
            let op = BinaryOp::ALL[op_idx];
            let a = gridded(random(rows, cols, da, sa, seed));
            let b = match kind {
                0 => gridded(random(rows, cols, db, sb, seed + 1)),
                1 => gridded(random(1, cols, db, sb, seed + 1)),
                2 => gridded(random(rows, 1, db, false, seed + 1)),
                3 => gridded(random(1, 1, 1.0, false, seed + 1)),
                _ => gridded(random(1, cols, db, sb, seed + 1)),
            };
            if kind == 4 {
                let col = gridded(random(rows, 1, da, false, seed));
                check(op, &col, &b);
            } else {
                check(op, &a, &b);
                check(op, &b, &a);
            }
        }
    }
}
