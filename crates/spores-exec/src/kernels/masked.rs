//! Sparse-driven ("masked") evaluation: an element-wise expression `E = X * f(...)` or
//! `E = X / g(...)` computed only at the non-zeros of a sparse mask `X`.
//!
//! Under the cell semantics of [`BinaryOp::apply_cell`] a zero factor annihilates
//! (`0 * y = 0` for every `y`), so `X * f(...)` is zero wherever `X` is zero whatever `f`
//! is, and only `nnz(X)` cells need the rest of the expression. Division is IEEE's
//! (`0 / 0` is NaN), so a program `X / g(...)` means the *masked* division
//! `(X != 0) * (X / g(...))`, SystemDS's weighted division (`wdivmm`): 0 wherever `X` is,
//! whatever `g` is there. This is
//! what SystemDS's quaternary operators exploit (`wcemm` for
//! `sum(X * log(U %*% t(V)))`, `wdivmm` for `t(U) %*% (X / (U %*% t(V)))`); here the
//! expression is a small postfix [`MaskedProgram`] over these leaves:
//!
//! * [`Instr::Mask`]: the value of `X` at the cell;
//! * [`Operand::LowRank`]: the cell `u_i · v_j` of a low-rank product `U %*% t(V)`
//!   (`U` is `m x k`, `V` is `n x k`), so the dense `m x n` product is never formed;
//! * [`Operand::Matrix`]: a cell of an `m x n` matrix (dense or sparse), or of a `1 x n`
//!   row vector, an `m x 1` column vector or a `1 x 1` matrix broadcast over the cells;
//! * [`Operand::Scalar`];
//!
//! combined with [`Instr::Unary`] and [`Instr::Binary`] (cell semantics). Besides the
//! masked result itself ([`masked_map`], with `X`'s pattern) the kernels fuse the
//! consumers that make the intermediate unnecessary altogether: [`masked_sum`]
//! (`sum(E)`), [`masked_left_mul`] (`t(A) %*% E`) and [`masked_right_mul`]
//! (`E %*% B`), which evaluate `E` row by row and never store it.
//!
//! The common programs (`X / (U %*% t(V))`, `X * log(U %*% t(V))`,
//! `X * (U %*% t(V))`) run specialized loops; anything else runs a tiny stack
//! interpreter per non-zero. Rows are processed in parallel blocks whose boundaries
//! depend only on `X` (and, for [`masked_left_mul`], the thread count), and partial
//! results are added in block order, so repeated runs give identical results.

use std::borrow::Cow;
use std::ops::Range;

use rayon::prelude::*;

use crate::error::{ExecError, Result};
use crate::kernels::elementwise::BinaryOp;
use crate::kernels::ew_common::{
    axpy, csr_blocks, dot, map_stored, par_dense, par_sum_blocks, split_by_blocks, with_pattern_of,
    MAX_BLOCKS,
};
use crate::kernels::unary::UnaryOp;
use crate::matrix::{CsrMatrix, DenseMatrix, Matrix, Shape};

/// Deepest evaluation stack a program may need; deeper expressions are rejected (the
/// planner falls back to the unfused plan).
pub const MAX_STACK: usize = 16;

/// One step of a [`MaskedProgram`], evaluated on a value stack.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Instr {
    /// Push the mask's value at the cell.
    Mask,
    /// Push operand `k`'s value at the cell.
    Load(usize),
    /// Replace the top value `x` by `op(x)`.
    Unary(UnaryOp),
    /// Replace the two top values `a` (below) and `b` (top) by `op.apply_cell(a, b)`.
    Binary(BinaryOp),
}

/// A validated postfix expression whose value is zero wherever the mask is zero: its
/// root is `Mask * e`, `e * Mask` or `Mask / e`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct MaskedProgram {
    instrs: Vec<Instr>,
    operands: usize,
}

impl MaskedProgram {
    /// Checks that `instrs` is a well-formed expression of stack depth at most
    /// [`MAX_STACK`] whose root annihilates on the mask's zeros (otherwise evaluating
    /// it only at the mask's non-zeros would be wrong).
    pub fn new(instrs: Vec<Instr>) -> Result<Self> {
        let mut depth = 0usize;
        let mut operands = 0usize;
        for ins in &instrs {
            match ins {
                Instr::Mask => depth += 1,
                Instr::Load(k) => {
                    operands = operands.max(k + 1);
                    depth += 1;
                }
                Instr::Unary(_) if depth >= 1 => {}
                Instr::Binary(_) if depth >= 2 => depth -= 1,
                _ => return Err(ExecError::invalid("masked program: stack underflow")),
            }
            if depth > MAX_STACK {
                return Err(ExecError::invalid("masked program: expression too deep"));
            }
        }
        if depth != 1 {
            return Err(ExecError::invalid(
                "masked program: must compute exactly one value",
            ));
        }
        let n = instrs.len();
        let annihilates = match instrs.last() {
            Some(Instr::Binary(op @ (BinaryOp::Mul | BinaryOp::Div))) => {
                // The right operand spans `start..n-1`, the left one `0..start`.
                let start = subtree_start(&instrs, n - 1);
                let left_is_mask = start == 1 && instrs[0] == Instr::Mask;
                let right_is_mask = start == n - 2 && instrs[n - 2] == Instr::Mask;
                left_is_mask || (*op == BinaryOp::Mul && right_is_mask)
            }
            _ => false,
        };
        if !annihilates {
            return Err(ExecError::invalid(
                "masked program: the root must be `X * e`, `e * X` or `X / e`",
            ));
        }
        Ok(MaskedProgram { instrs, operands })
    }

    pub fn instrs(&self) -> &[Instr] {
        &self.instrs
    }

    /// How many operands the program reads (one more than the largest index).
    pub fn operand_count(&self) -> usize {
        self.operands
    }

    /// The expression in DML-like infix notation, with `X` for the mask and `$k` for
    /// operand `k` (for plan printing).
    pub fn to_infix(&self) -> String {
        let mut stack: Vec<String> = Vec::new();
        for ins in &self.instrs {
            let s = match ins {
                Instr::Mask => "X".to_string(),
                Instr::Load(k) => format!("${k}"),
                Instr::Unary(op) => {
                    let a = stack.pop().unwrap_or_default();
                    format!("{}({a})", op.name())
                }
                Instr::Binary(op) => {
                    let b = stack.pop().unwrap_or_default();
                    let a = stack.pop().unwrap_or_default();
                    format!("({a} {} {b})", op.symbol())
                }
            };
            stack.push(s);
        }
        stack.pop().unwrap_or_default()
    }
}

/// Start of the subtree whose last instruction is `instrs[end - 1]`.
fn subtree_start(instrs: &[Instr], end: usize) -> usize {
    let mut need = 1isize;
    let mut k = end;
    while need > 0 && k > 0 {
        k -= 1;
        need += match instrs[k] {
            Instr::Mask | Instr::Load(_) => -1,
            Instr::Unary(_) => 0,
            Instr::Binary(_) => 1,
        };
    }
    k
}

/// A runtime value a program's [`Instr::Operand`] reads.
#[derive(Clone, Copy, Debug)]
pub enum Operand<'a> {
    Scalar(f64),
    /// An `m x n` matrix, or a `1 x n`, `m x 1` or `1 x 1` one broadcast over the cells.
    Matrix(&'a Matrix),
    /// `U %*% t(V)` with `U` `m x k` and `V` `n x k`.
    LowRank {
        u: &'a DenseMatrix,
        v: &'a DenseMatrix,
    },
}

/// An operand checked against the mask's shape, in the layout the loops read.
enum Prepared<'a> {
    Scalar(f64),
    /// Cell `(i, j)` is `data[i * row_stride + j * col_stride]` (a zero stride
    /// broadcasts).
    Strided {
        data: Cow<'a, [f64]>,
        row_stride: usize,
        col_stride: usize,
    },
    /// A full-size sparse matrix, looked up by binary search in its row.
    Sparse(&'a CsrMatrix),
    LowRank {
        u: &'a DenseMatrix,
        v: &'a DenseMatrix,
    },
}

impl Prepared<'_> {
    #[inline(always)]
    fn at(&self, i: usize, j: usize) -> f64 {
        match self {
            Prepared::Scalar(s) => *s,
            Prepared::Strided {
                data,
                row_stride,
                col_stride,
            } => data[i * row_stride + j * col_stride],
            Prepared::Sparse(s) => {
                let (idx, val) = s.line(i);
                match idx.binary_search(&(j as u32)) {
                    Ok(p) => val[p],
                    Err(_) => 0.0,
                }
            }
            Prepared::LowRank { u, v } => dot(u.row(i), v.row(j)),
        }
    }
}

fn prepare<'a>(op: &str, mask: Shape, operand: &Operand<'a>) -> Result<Prepared<'a>> {
    let (m, n) = (mask.rows, mask.cols);
    Ok(match *operand {
        Operand::Scalar(s) => Prepared::Scalar(s),
        Operand::LowRank { u, v } => {
            if u.rows() != m || v.rows() != n || u.cols() != v.cols() {
                return Err(ExecError::invalid(format!(
                    "{op}: low-rank factors {} and {} do not fit a {mask} mask",
                    u.shape(),
                    v.shape()
                )));
            }
            Prepared::LowRank { u, v }
        }
        Operand::Matrix(a) => {
            let s = a.shape();
            if s == mask {
                match a {
                    Matrix::Dense(d) => Prepared::Strided {
                        data: Cow::Borrowed(d.data()),
                        row_stride: n,
                        col_stride: 1,
                    },
                    Matrix::Sparse(c) => Prepared::Sparse(c),
                }
            } else if s.rows == 1 && s.cols == 1 {
                Prepared::Scalar(a.get(0, 0))
            } else if s.rows == 1 && s.cols == n {
                Prepared::Strided {
                    data: vector(a),
                    row_stride: 0,
                    col_stride: 1,
                }
            } else if s.cols == 1 && s.rows == m {
                Prepared::Strided {
                    data: vector(a),
                    row_stride: 1,
                    col_stride: 0,
                }
            } else {
                return Err(ExecError::shape_mismatch(op, mask, s));
            }
        }
    })
}

/// The cells of a vector, in order.
fn vector(a: &Matrix) -> Cow<'_, [f64]> {
    match a {
        Matrix::Dense(d) => Cow::Borrowed(d.data()),
        Matrix::Sparse(_) => Cow::Owned(a.to_dense().into_vec()),
    }
}

/// The shapes of programs that run a specialized loop instead of the interpreter.
#[derive(Clone, Copy)]
enum Special {
    /// `X / (U %*% t(V))`
    Div,
    /// `X * log(U %*% t(V))`
    MulLog,
    /// `X * (U %*% t(V))`
    Mul,
}

/// A program bound to its operands and to the mask, ready to run per row.
struct Bound<'a> {
    x: Cow<'a, CsrMatrix>,
    instrs: &'a [Instr],
    operands: Vec<Prepared<'a>>,
    special: Option<(Special, &'a DenseMatrix, &'a DenseMatrix)>,
}

impl<'a> Bound<'a> {
    fn new(
        op: &str,
        x: &'a Matrix,
        program: &'a MaskedProgram,
        operands: &[Operand<'a>],
    ) -> Result<Self> {
        if operands.len() < program.operand_count() {
            return Err(ExecError::invalid(format!(
                "{op}: the program reads {} operands, {} given",
                program.operand_count(),
                operands.len()
            )));
        }
        let mask = x.shape();
        let operands = operands
            .iter()
            .map(|o| prepare(op, mask, o))
            .collect::<Result<Vec<_>>>()?;
        let x = match x {
            Matrix::Sparse(s) => Cow::Borrowed(s),
            Matrix::Dense(_) => Cow::Owned(x.to_csr()),
        };
        use {BinaryOp::*, Instr::*};
        let low_rank = |k: usize| match operands[k] {
            Prepared::LowRank { u, v } => Some((u, v)),
            _ => None,
        };
        let instrs = program.instrs();
        let special = match instrs {
            [Mask, Load(k), Binary(Div)] => low_rank(*k).map(|(u, v)| (Special::Div, u, v)),
            [Mask, Load(k), Unary(UnaryOp::Log), Binary(Mul)] => {
                low_rank(*k).map(|(u, v)| (Special::MulLog, u, v))
            }
            [Mask, Load(k), Binary(Mul)] | [Load(k), Mask, Binary(Mul)] => {
                low_rank(*k).map(|(u, v)| (Special::Mul, u, v))
            }
            _ => None,
        };
        Ok(Bound {
            x,
            instrs,
            operands,
            special,
        })
    }

    /// Calls `f(j, e_ij)` for every stored entry `(i, j)` of the mask's row `i`, in
    /// storage order (explicit zeros of the mask give zero).
    #[inline]
    fn row(&self, i: usize, mut f: impl FnMut(usize, f64)) {
        let (idx, val) = self.x.line(i);
        let entries = idx.iter().zip(val).map(|(&j, &x)| (j as usize, x));
        match self.special {
            Some((kind, u, v)) => {
                let ui = u.row(i);
                for (j, x) in entries {
                    let e = if x == 0.0 {
                        0.0
                    } else {
                        let uv = dot(ui, v.row(j));
                        match kind {
                            Special::Div => x / uv,
                            Special::MulLog => BinaryOp::Mul.apply_cell(x, uv.ln()),
                            Special::Mul => BinaryOp::Mul.apply_cell(x, uv),
                        }
                    };
                    f(j, e);
                }
            }
            None => {
                for (j, x) in entries {
                    f(j, if x == 0.0 { 0.0 } else { self.eval(i, j, x) });
                }
            }
        }
    }

    /// Runs the program at cell `(i, j)` where the mask holds `x`.
    #[inline]
    fn eval(&self, i: usize, j: usize, x: f64) -> f64 {
        let mut stack = [0.0f64; MAX_STACK];
        let mut sp = 0usize;
        for ins in self.instrs {
            match *ins {
                Instr::Mask => {
                    stack[sp] = x;
                    sp += 1;
                }
                Instr::Load(k) => {
                    stack[sp] = self.operands[k].at(i, j);
                    sp += 1;
                }
                Instr::Unary(op) => stack[sp - 1] = op.apply(stack[sp - 1]),
                Instr::Binary(op) => {
                    sp -= 1;
                    stack[sp - 1] = op.apply_cell(stack[sp - 1], stack[sp]);
                }
            }
        }
        stack[0]
    }

    fn blocks(&self, max_blocks: usize) -> Vec<Range<usize>> {
        csr_blocks(&self.x, max_blocks)
    }
}

/// `E` itself, with the mask's pattern (entries that come out zero are pruned; the
/// result is returned in its best format).
pub fn masked_map(x: &Matrix, program: &MaskedProgram, operands: &[Operand]) -> Result<Matrix> {
    let b = Bound::new("masked", x, program, operands)?;
    let values = match b.special {
        // Entry-parallel map for the specialized shapes.
        Some(_) => {
            let ptr = b.x.indptr();
            let mut values = vec![0.0; b.x.stored()];
            let slices = split_by_blocks(ptr, b.blocks(MAX_BLOCKS), &mut values);
            slices.into_par_iter().for_each(|(range, slice)| {
                let mut p = 0;
                for i in range {
                    b.row(i, |_, e| {
                        slice[p] = e;
                        p += 1;
                    });
                }
            });
            values
        }
        None => map_stored(&b.x, |i, j, x| if x == 0.0 { 0.0 } else { b.eval(i, j, x) }),
    };
    Ok(with_pattern_of(&b.x, values))
}

/// `sum(E)`: the sum over the mask's non-zeros of `E`'s cells (all other cells of `E`
/// are zero).
pub fn masked_sum(x: &Matrix, program: &MaskedProgram, operands: &[Operand]) -> Result<f64> {
    let b = Bound::new("masked_sum", x, program, operands)?;
    Ok(par_sum_blocks(&b.blocks(MAX_BLOCKS), |range| {
        let mut s = crate::kernels::kahan::KahanSum::default();
        for i in range {
            b.row(i, |_, e| s.add(e));
        }
        s.value()
    }))
}

/// `y += e * x` under the cell semantics: a cell `E` computed as Inf or NaN (say `X / 0`)
/// contributes nothing against a zero of `x`, as in the unfused product (`0 * Inf = 0`).
#[inline]
fn axpy_cells(e: f64, x: &[f64], y: &mut [f64]) {
    if e.is_finite() {
        axpy(e, x, y);
    } else {
        for (yi, &xi) in y.iter_mut().zip(x) {
            if xi != 0.0 {
                *yi += e * xi;
            }
        }
    }
}

/// `t(A) %*% E` with `A` `m x p`: a `p x n` dense result. Each thread block adds
/// `e_ij * a_i` into its own `n x p` accumulator (transposed, so the update is one
/// contiguous `p`-vector); the accumulators are added in block order.
pub fn masked_left_mul(
    x: &Matrix,
    program: &MaskedProgram,
    operands: &[Operand],
    a: &DenseMatrix,
) -> Result<DenseMatrix> {
    let b = Bound::new("masked t(A)%*%E", x, program, operands)?;
    let (m, n, p) = (x.rows(), x.cols(), a.cols());
    ExecError::ensure_shapes(
        a.rows() == m,
        "masked t(A)%*%E (rows of A vs rows of E)",
        a.shape(),
        x.shape(),
    )?;
    // One accumulator per thread at most: each is n * p doubles.
    let blocks = b.blocks(rayon::current_num_threads().clamp(1, MAX_BLOCKS));
    let partial: Vec<Vec<f64>> = blocks
        .par_iter()
        .map(|range| {
            let mut acc = vec![0.0; n * p];
            for i in range.clone() {
                let ai = a.row(i);
                b.row(i, |j, e| {
                    if e != 0.0 {
                        axpy_cells(e, ai, &mut acc[j * p..(j + 1) * p]);
                    }
                });
            }
            acc
        })
        .collect();
    let mut total = vec![0.0; n * p];
    for part in &partial {
        for (t, v) in total.iter_mut().zip(part) {
            *t += v;
        }
    }
    // Transpose the n x p accumulator into the p x n result.
    let mut out = vec![0.0; p * n];
    for j in 0..n {
        for l in 0..p {
            out[l * n + j] = total[j * p + l];
        }
    }
    DenseMatrix::from_vec(p, n, out)
}

/// `E %*% B` with `B` `n x p`: an `m x p` dense result; row `i` is `Σ_j e_ij b_j`,
/// computed independently per row.
pub fn masked_right_mul(
    x: &Matrix,
    program: &MaskedProgram,
    operands: &[Operand],
    bm: &DenseMatrix,
) -> Result<DenseMatrix> {
    let b = Bound::new("masked E%*%B", x, program, operands)?;
    let (m, n, p) = (x.rows(), x.cols(), bm.cols());
    ExecError::ensure_shapes(
        bm.rows() == n,
        "masked E%*%B (columns of E vs rows of B)",
        x.shape(),
        bm.shape(),
    )?;
    let per_row = (b.x.stored() / m.max(1)).max(1) * (p + 1);
    Ok(par_dense(m, p, per_row / p.max(1) + 1, |range, out| {
        for (r, i) in range.enumerate() {
            let o = &mut out[r * p..(r + 1) * p];
            b.row(i, |j, e| {
                if e != 0.0 {
                    axpy_cells(e, bm.row(j), o);
                }
            });
        }
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::{elementwise, unary};
    use crate::matrix::approx_eq_f64;
    use rand::{Rng, SeedableRng};
    use rand_pcg::Pcg64Mcg as TestRng;

    fn unit(rng: &mut TestRng) -> f64 {
        (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    fn range(rng: &mut TestRng, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * unit(rng)
    }

    fn dense(rng: &mut TestRng, r: usize, c: usize, lo: f64, hi: f64) -> DenseMatrix {
        DenseMatrix::from_fn(r, c, |_, _| range(rng, lo, hi))
    }

    /// A sparse mask with some empty rows and some negative values.
    fn mask(rng: &mut TestRng, m: usize, n: usize, density: f64) -> Matrix {
        let empty_row = (rng.next_u64() as usize) % m.max(1);
        let d = DenseMatrix::from_fn(m, n, |i, _| {
            if i == empty_row || i % 7 == 3 || unit(rng) >= density {
                0.0
            } else {
                range(rng, -2.0, 5.0)
            }
        });
        Matrix::Sparse(CsrMatrix::from_dense(&d))
    }

    /// `U %*% t(V)` computed the naive way.
    fn product(u: &DenseMatrix, v: &DenseMatrix) -> Matrix {
        Matrix::Dense(DenseMatrix::from_fn(u.rows(), v.rows(), |i, j| {
            (0..u.cols()).map(|l| u.get(i, l) * v.get(j, l)).sum()
        }))
    }

    /// Evaluates the program with the unfused element-wise kernels, as the plain plan
    /// would.
    fn naive(x: &Matrix, program: &MaskedProgram, operands: &[Operand]) -> Matrix {
        enum V {
            S(f64),
            M(Matrix),
        }
        let as_matrix = |v: &V, shape: Shape| match v {
            V::S(s) => Matrix::Dense(DenseMatrix::filled(shape.rows, shape.cols, *s)),
            V::M(m) => m.clone(),
        };
        let mut stack: Vec<V> = Vec::new();
        for ins in program.instrs() {
            match *ins {
                Instr::Mask => stack.push(V::M(x.clone())),
                Instr::Load(k) => stack.push(match operands[k] {
                    Operand::Scalar(s) => V::S(s),
                    Operand::Matrix(m) => V::M(m.clone()),
                    Operand::LowRank { u, v } => V::M(product(u, v)),
                }),
                Instr::Unary(op) => {
                    let a = stack.pop().unwrap();
                    stack.push(V::M(unary::unary(op, &as_matrix(&a, x.shape()))));
                }
                Instr::Binary(op) => {
                    let b = stack.pop().unwrap();
                    let a = stack.pop().unwrap();
                    let r = match (&a, &b) {
                        (V::M(a), V::S(s)) => elementwise::binary_scalar(op, a, *s, false),
                        (V::S(s), V::M(b)) => elementwise::binary_scalar(op, b, *s, true),
                        _ => elementwise::binary(
                            op,
                            &as_matrix(&a, x.shape()),
                            &as_matrix(&b, x.shape()),
                        )
                        .unwrap(),
                    };
                    stack.push(V::M(r));
                }
            }
        }
        match stack.pop().unwrap() {
            V::M(m) => m,
            V::S(_) => unreachable!(),
        }
    }

    fn close(a: f64, b: f64) -> bool {
        (a.is_nan() && b.is_nan()) || a == b || approx_eq_f64(a, b, 1e-9)
    }

    /// Checks every kernel against the naive plan; a division is the masked one,
    /// `(X != 0) * (X / e)`.
    fn check_all(x: &Matrix, program: &MaskedProgram, operands: &[Operand], rng: &mut TestRng) {
        let mut expected = naive(x, program, operands);
        if program.instrs().last() == Some(&Instr::Binary(BinaryOp::Div)) {
            let nonzero = elementwise::binary_scalar(BinaryOp::Ne, x, 0.0, false);
            expected = elementwise::binary(BinaryOp::Mul, &nonzero, &expected).unwrap();
        }
        let got = masked_map(x, program, operands).unwrap();
        assert_eq!(got.shape(), x.shape());
        for i in 0..x.rows() {
            for j in 0..x.cols() {
                assert!(
                    close(got.get(i, j), expected.get(i, j)),
                    "{} at ({i},{j}): {} vs {}",
                    program.to_infix(),
                    got.get(i, j),
                    expected.get(i, j)
                );
            }
        }
        let sum = masked_sum(x, program, operands).unwrap();
        let expected_sum = crate::kernels::aggregate::sum(&expected);
        assert!(close(sum, expected_sum), "{sum} vs {expected_sum}");
        let (m, n) = (x.rows(), x.cols());
        let p = 1 + (rng.next_u64() as usize) % 5;
        let a = dense(rng, m, p, -1.0, 1.0);
        let left = masked_left_mul(x, program, operands, &a).unwrap();
        let at = Matrix::Dense(crate::kernels::transpose::transpose_dense(&a));
        let expected_left = crate::kernels::matmul::matmul(&at, &expected).unwrap();
        assert!(
            Matrix::Dense(left).approx_eq(&expected_left, 1e-9),
            "t(A) %*% {}",
            program.to_infix()
        );
        let bm = dense(rng, n, p, -1.0, 1.0);
        let right = masked_right_mul(x, program, operands, &bm).unwrap();
        let expected_right =
            crate::kernels::matmul::matmul(&expected, &Matrix::Dense(bm.clone())).unwrap();
        assert!(
            Matrix::Dense(right).approx_eq(&expected_right, 1e-9),
            "{} %*% B",
            program.to_infix()
        );
    }

    #[test]
    fn specialized_programs_match_the_naive_plan() {
        let mut rng = TestRng::seed_from_u64(7);
        for (m, n, density) in [(1, 1, 1.0), (30, 20, 0.2), (120, 90, 0.05), (300, 200, 0.3)] {
            for k in [1, 2, 3, 7, 10, 20] {
                let x = mask(&mut rng, m, n, density);
                let u = dense(&mut rng, m, k, 0.1, 1.0);
                let v = dense(&mut rng, n, k, 0.1, 1.0);
                let ops = [Operand::LowRank { u: &u, v: &v }];
                use {BinaryOp::*, Instr::*};
                for instrs in [
                    vec![Mask, Load(0), Binary(Div)],
                    vec![Mask, Load(0), Unary(UnaryOp::Log), Binary(Mul)],
                    vec![Mask, Load(0), Binary(Mul)],
                    vec![Load(0), Mask, Binary(Mul)],
                ] {
                    let program = MaskedProgram::new(instrs).unwrap();
                    check_all(&x, &program, &ops, &mut rng);
                    // A dense mask takes the same path.
                    let xd = Matrix::Dense(x.to_dense());
                    check_all(&xd, &program, &ops, &mut rng);
                }
            }
        }
    }

    #[test]
    fn general_programs_match_the_naive_plan() {
        let mut rng = TestRng::seed_from_u64(11);
        use {BinaryOp::*, Instr::*};
        for (m, n, density) in [(40, 25, 0.2), (150, 60, 0.05)] {
            for k in [1, 4, 13] {
                let x = mask(&mut rng, m, n, density);
                let u = dense(&mut rng, m, k, -1.0, 1.0);
                let v = dense(&mut rng, n, k, -1.0, 1.0);
                let d = Matrix::Dense(dense(&mut rng, m, n, -3.0, 3.0));
                let s = mask(&mut rng, m, n, 0.5);
                let row = Matrix::Dense(dense(&mut rng, 1, n, 0.5, 2.0));
                let col = Matrix::Sparse(CsrMatrix::from_dense(&DenseMatrix::from_fn(
                    m,
                    1,
                    |i, _| if i % 3 == 0 { 0.0 } else { i as f64 },
                )));
                let one = Matrix::Dense(DenseMatrix::filled(1, 1, 2.5));
                let ops = [
                    Operand::LowRank { u: &u, v: &v },
                    Operand::Matrix(&d),
                    Operand::Matrix(&s),
                    Operand::Matrix(&row),
                    Operand::Matrix(&col),
                    Operand::Scalar(1e-3),
                    Operand::Matrix(&one),
                ];
                for instrs in [
                    // X * log(UV' + eps)
                    vec![
                        Mask,
                        Load(0),
                        Load(5),
                        Binary(Add),
                        Unary(UnaryOp::Log),
                        Binary(Mul),
                    ],
                    // X / (UV' * D) : zeros of D give Inf/NaN, zero-annihilation keeps X's zeros
                    vec![Mask, Load(0), Load(1), Binary(Mul), Binary(Div)],
                    // (S - exp(UV') / row) * X
                    vec![
                        Load(2),
                        Load(0),
                        Unary(UnaryOp::Exp),
                        Load(3),
                        Binary(Div),
                        Binary(Sub),
                        Mask,
                        Binary(Mul),
                    ],
                    // X * ((X - col)^2 + max(D, 1x1))
                    vec![
                        Mask,
                        Mask,
                        Load(4),
                        Binary(Sub),
                        Load(6),
                        Binary(Pow),
                        Load(1),
                        Load(6),
                        Binary(Max),
                        Binary(Add),
                        Binary(Mul),
                    ],
                    // X / S (division by the zeros of a sparse lookup)
                    vec![Mask, Load(2), Binary(Div)],
                    // X * sigmoid(-UV')
                    vec![
                        Mask,
                        Load(0),
                        Unary(UnaryOp::Neg),
                        Unary(UnaryOp::Sigmoid),
                        Binary(Mul),
                    ],
                    // X / (exp(UV') + row)
                    vec![
                        Mask,
                        Load(0),
                        Unary(UnaryOp::Exp),
                        Load(3),
                        Binary(Add),
                        Binary(Div),
                    ],
                ] {
                    let program = MaskedProgram::new(instrs).unwrap();
                    check_all(&x, &program, &ops, &mut rng);
                }
            }
        }
    }

    /// A masked division is `(X != 0) * (X / e)`: where `X` is 0 it is 0, also over a
    /// zero of `e`, where the plain division is NaN.
    #[test]
    fn a_masked_division_is_zero_where_the_mask_is() {
        use {BinaryOp::*, Instr::*};
        let mut rng = TestRng::seed_from_u64(5);
        let x = mask(&mut rng, 30, 20, 0.2);
        let s = mask(&mut rng, 30, 20, 0.5);
        let divide = MaskedProgram::new(vec![Mask, Load(0), Binary(Div)]).unwrap();
        let sparse = [Operand::Matrix(&s)];
        let plain = naive(&x, &divide, &sparse);
        let masked = masked_map(&x, &divide, &sparse).unwrap();
        let mut nans = 0;
        for i in 0..30 {
            for j in 0..20 {
                if x.get(i, j) == 0.0 {
                    assert_eq!(masked.get(i, j), 0.0);
                    nans += usize::from(plain.get(i, j).is_nan());
                } else {
                    assert!(close(masked.get(i, j), plain.get(i, j)));
                }
            }
        }
        assert!(nans > 0, "the plain division has NaN where both are 0");
    }

    #[test]
    fn bad_programs_and_operands_are_errors() {
        use {BinaryOp::*, Instr::*};
        for bad in [
            vec![],
            vec![Mask],
            vec![Mask, Binary(Mul)],
            vec![Mask, Load(0), Binary(Add)],
            vec![Load(0), Mask, Binary(Div)],
            vec![Mask, Mask, Load(0), Binary(Mul)],
            vec![Mask, Load(0), Binary(Mul), Load(1), Binary(Mul)],
        ] {
            assert!(MaskedProgram::new(bad.clone()).is_err(), "{bad:?}");
        }
        let mut deep = vec![Mask];
        deep.extend(std::iter::repeat_n(Load(0), MAX_STACK + 1));
        deep.extend(std::iter::repeat_n(Binary(Add), MAX_STACK));
        deep.push(Binary(Mul));
        assert!(MaskedProgram::new(deep).is_err());
        // `X * (e * X)` is fine: the root's left operand is the mask.
        assert!(MaskedProgram::new(vec![Mask, Load(0), Mask, Binary(Mul), Binary(Mul)]).is_ok());

        let program = MaskedProgram::new(vec![Mask, Load(0), Binary(Div)]).unwrap();
        let x = Matrix::Sparse(CsrMatrix::zeros(3, 4));
        let u = DenseMatrix::zeros(3, 2);
        let v = DenseMatrix::zeros(5, 2);
        assert!(masked_map(&x, &program, &[Operand::LowRank { u: &u, v: &v }]).is_err());
        assert!(masked_sum(&x, &program, &[]).is_err());
        let wrong = Matrix::Dense(DenseMatrix::zeros(2, 4));
        assert!(masked_sum(&x, &program, &[Operand::Matrix(&wrong)]).is_err());
        let v = DenseMatrix::zeros(4, 2);
        let ops = [Operand::LowRank { u: &u, v: &v }];
        assert!(masked_left_mul(&x, &program, &ops, &DenseMatrix::zeros(4, 2)).is_err());
        assert!(masked_right_mul(&x, &program, &ops, &DenseMatrix::zeros(3, 2)).is_err());
        // An empty mask gives zeros.
        assert_eq!(masked_sum(&x, &program, &ops).unwrap(), 0.0);
        assert_eq!(masked_map(&x, &program, &ops).unwrap().nnz(), 0);
    }
}
