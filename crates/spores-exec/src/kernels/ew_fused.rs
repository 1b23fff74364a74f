//! Fused element-wise expressions over dense operands: a chain such as
//! `1 - y * (Xw + a * Xs)`, optionally followed by `sum`, `rowSums` or `colSums`, in one
//! pass over the cells instead of one pass (and one allocated result) per operator.
//!
//! The expression is a small postfix [`EwProgram`] of loads, unary and binary operators
//! and `ifelse`. It is run by an interpreter that works on chunks of [`CHUNK`] cells per
//! instruction, so the per-instruction dispatch is paid once per chunk and the inner
//! loops are the same monomorphized loops as the unfused kernels'. Intermediate values
//! live in a few chunk-sized registers that stay in the L1 cache.
//!
//! Semantics are exactly those of the unfused kernels: matrix cells combine with
//! [`BinaryOp::apply_cell`] and [`UnaryOp::apply`], broadcasting follows DML (equal
//! shapes; `1 x n` row and `m x 1` column vectors; a column vector op a row vector gives
//! the outer result; `1 x 1` matrices and scalars broadcast), and `ifelse` needs all its
//! matrix arguments to have one shape. Only the order of additions in the fused sums
//! differs, and a `-0.0` the unfused chain would have lost by storing an intermediate
//! sparse (which stores no zeros) keeps its sign. Whenever the fused kernel cannot reproduce the unfused result exactly — a
//! sparse operand (whose result may be sparse), shapes the unfused operators reject, an
//! expression without any matrix — [`fused_elementwise`] returns `None` and the caller
//! runs the operators one by one, which also produces the unfused error messages.

use rayon::prelude::*;

use crate::error::{ExecError, Result};
use crate::kernels::elementwise::{dispatch_binary, BinaryOp};
use crate::kernels::ew_common::{EW_PAR_MIN, EW_TASK};
use crate::kernels::kahan::{merge_column_blocks, KahanSum, SliceSum, SEQUENTIAL_TERMS};
use crate::kernels::unary::{dispatch_unary, UnaryOp};
use crate::matrix::{DenseMatrix, Matrix};

/// Cells one instruction processes at a time.
pub const CHUNK: usize = 1024;

/// Deepest evaluation stack a program may need (the planner does not fuse deeper trees).
pub const MAX_STACK: usize = 16;

/// Most blocks a `colSums` is split into (each holds a partial row of sums).
const MAX_COL_BLOCKS: usize = 16;

/// One step of an [`EwProgram`], evaluated on a value stack.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EwInstr {
    /// Push operand `k`'s value at the cell.
    Load(usize),
    /// Replace the top value `x` by `op(x)`.
    Unary(UnaryOp),
    /// Replace the two top values `a` (below) and `b` (top) by `op.apply_cell(a, b)`.
    Binary(BinaryOp),
    /// Replace the three top values `test`, `yes`, `no` (top) by `yes` where `test` is not
    /// zero, else `no` (DML's `ifelse`).
    IfElse,
}

/// A validated postfix expression computing one value per cell.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct EwProgram {
    instrs: Vec<EwInstr>,
    operands: usize,
}

impl EwProgram {
    /// Checks that `instrs` is a well-formed expression of stack depth at most
    /// [`MAX_STACK`] that computes exactly one value.
    pub fn new(instrs: Vec<EwInstr>) -> Result<Self> {
        let mut depth = 0usize;
        let mut operands = 0usize;
        for ins in &instrs {
            match ins {
                EwInstr::Load(k) => {
                    operands = operands.max(k + 1);
                    depth += 1;
                }
                EwInstr::Unary(_) if depth >= 1 => {}
                EwInstr::Binary(_) if depth >= 2 => depth -= 1,
                EwInstr::IfElse if depth >= 3 => depth -= 2,
                _ => return Err(ExecError::invalid("element-wise program: stack underflow")),
            }
            if depth > MAX_STACK {
                return Err(ExecError::invalid(
                    "element-wise program: expression too deep",
                ));
            }
        }
        if depth != 1 {
            return Err(ExecError::invalid(
                "element-wise program: must compute exactly one value",
            ));
        }
        Ok(EwProgram { instrs, operands })
    }

    pub fn instrs(&self) -> &[EwInstr] {
        &self.instrs
    }

    /// How many operands the program reads (one more than the largest index).
    pub fn operand_count(&self) -> usize {
        self.operands
    }

    /// The expression in DML-like infix notation with `names[k]` for operand `k`.
    pub fn to_infix(&self, names: &[String]) -> String {
        let mut stack: Vec<String> = Vec::new();
        for ins in &self.instrs {
            let s = match ins {
                EwInstr::Load(k) => names.get(*k).cloned().unwrap_or_else(|| format!("${k}")),
                EwInstr::Unary(op) => {
                    let a = stack.pop().unwrap_or_default();
                    format!("{}({a})", op.name())
                }
                EwInstr::Binary(op) => {
                    let b = stack.pop().unwrap_or_default();
                    let a = stack.pop().unwrap_or_default();
                    format!("({a} {} {b})", op.symbol())
                }
                EwInstr::IfElse => {
                    let no = stack.pop().unwrap_or_default();
                    let yes = stack.pop().unwrap_or_default();
                    let test = stack.pop().unwrap_or_default();
                    format!("ifelse({test}, {yes}, {no})")
                }
            };
            stack.push(s);
        }
        stack.pop().unwrap_or_default()
    }
}

/// What the fused node returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EwOutput {
    /// The expression's value, a matrix in its best format.
    Map,
    /// `sum(E)`.
    Sum,
    /// `rowSums(E)`, an `m x 1` dense matrix.
    RowSums,
    /// `colSums(E)`, a `1 x n` dense matrix.
    ColSums,
}

impl EwOutput {
    pub fn name(self) -> &'static str {
        match self {
            EwOutput::Map => "fused_ew",
            EwOutput::Sum => "fused_ew_sum",
            EwOutput::RowSums => "fused_ew_rowsums",
            EwOutput::ColSums => "fused_ew_colsums",
        }
    }
}

/// A runtime operand of a program.
#[derive(Clone, Copy, Debug)]
pub enum EwArg<'a> {
    Scalar(f64),
    Matrix(&'a Matrix),
}

/// The result of a fused node.
#[derive(Clone, Debug)]
pub enum EwValue {
    Scalar(f64),
    Matrix(Matrix),
}

/// The shape of a value of the program: a scalar, or a matrix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Scalar,
    Matrix(usize, usize),
}

impl Kind {
    fn is_one_by_one(self) -> bool {
        matches!(self, Kind::Scalar | Kind::Matrix(1, 1))
    }
}

/// The result shape of `a op b` under the unfused kernel's broadcasting rules (see
/// `elementwise::binary`), or `None` where it would fail or, for two scalars, compute
/// with scalar semantics.
fn broadcast(a: Kind, b: Kind) -> Option<Kind> {
    let (Kind::Matrix(ar, ac), Kind::Matrix(br, bc)) = (a, b) else {
        return match (a, b) {
            (Kind::Scalar, Kind::Scalar) => None,
            (Kind::Scalar, m) | (m, Kind::Scalar) => Some(m),
            _ => None,
        };
    };
    if (ar, ac) == (br, bc) || b.is_one_by_one() {
        Some(a)
    } else if a.is_one_by_one() {
        Some(b)
    } else if (br == 1 && bc == ac) || (bc == 1 && br == ar) {
        Some(a)
    } else if (ar == 1 && ac == bc) || (ac == 1 && ar == br) {
        Some(b)
    } else if ac == 1 && br == 1 {
        Some(Kind::Matrix(ar, bc))
    } else {
        None
    }
}

/// How a step reads one of its inputs.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Src {
    /// A register holding the chunk's values.
    Reg(usize),
    /// Operand `k`, a matrix of the result's shape, read in place.
    Cells(usize),
    Const(f64),
}

#[derive(Clone, Copy, Debug)]
enum Step {
    /// Fill register `dst` with operand `k` broadcast per row (`m x 1`) or per column
    /// (`1 x n`).
    Fill {
        k: usize,
        per_row: bool,
        dst: usize,
    },
    Unary {
        op: UnaryOp,
        a: Src,
        dst: usize,
    },
    Binary {
        op: BinaryOp,
        a: Src,
        b: Src,
        dst: usize,
    },
    IfElse {
        test: Src,
        yes: Src,
        no: Src,
        dst: usize,
    },
}

/// A program checked against its operands and compiled to register steps.
struct Compiled<'a> {
    rows: usize,
    cols: usize,
    /// The dense data of every matrix operand (indexed by operand).
    data: Vec<&'a [f64]>,
    steps: Vec<Step>,
    registers: usize,
    result: Src,
}

fn compile<'a>(program: &EwProgram, args: &[EwArg<'a>]) -> Option<Compiled<'a>> {
    if args.len() < program.operand_count() {
        return None;
    }
    // Shapes first, with the unfused kernels' rules.
    let kind_of = |k: usize| -> Option<Kind> {
        match args[k] {
            EwArg::Scalar(_) => Some(Kind::Scalar),
            // A sparse operand may make an unfused result sparse: leave it to them.
            EwArg::Matrix(Matrix::Sparse(_)) => None,
            EwArg::Matrix(m) => Some(Kind::Matrix(m.rows(), m.cols())),
        }
    };
    let mut stack: Vec<Kind> = Vec::with_capacity(MAX_STACK);
    for ins in program.instrs() {
        let kind = match *ins {
            EwInstr::Load(k) => kind_of(k)?,
            // Scalar-only subexpressions have scalar semantics: not fused.
            EwInstr::Unary(_) => match *stack.last()? {
                Kind::Scalar => return None,
                m => m,
            },
            EwInstr::Binary(_) => {
                let b = stack.pop()?;
                let a = stack.pop()?;
                broadcast(a, b)?
            }
            EwInstr::IfElse => {
                let parts = [stack.pop()?, stack.pop()?, stack.pop()?];
                let mut shape = None;
                for p in parts {
                    if let Kind::Matrix(..) = p {
                        if shape.is_some_and(|s| s != p) {
                            return None;
                        }
                        shape = Some(p);
                    }
                }
                shape?
            }
        };
        if matches!(ins, EwInstr::Unary(_)) {
            stack.pop();
        }
        stack.push(kind);
    }
    let Some(Kind::Matrix(rows, cols)) = stack.pop() else {
        return None;
    };
    let data: Vec<&[f64]> = args
        .iter()
        .map(|a| match a {
            EwArg::Matrix(Matrix::Dense(d)) => d.data(),
            _ => &[][..],
        })
        .collect();
    // Then registers: each stack entry is a source; an operator writes into the
    // lowest-numbered register among its inputs, or a free one.
    let mut steps = Vec::new();
    let mut free: Vec<usize> = Vec::new();
    let mut registers = 0usize;
    let mut alloc = |free: &mut Vec<usize>| {
        free.sort_unstable_by(|a, b| b.cmp(a));
        free.pop().unwrap_or_else(|| {
            registers += 1;
            registers - 1
        })
    };
    let mut srcs: Vec<Src> = Vec::with_capacity(MAX_STACK);
    for ins in program.instrs() {
        let src = match *ins {
            EwInstr::Load(k) => match args[k] {
                EwArg::Scalar(s) => Src::Const(s),
                EwArg::Matrix(m) => match (m.rows(), m.cols()) {
                    (r, c) if (r, c) == (rows, cols) => Src::Cells(k),
                    (1, 1) => Src::Const(m.get(0, 0)),
                    (r, 1) if r == rows => {
                        let dst = alloc(&mut free);
                        steps.push(Step::Fill {
                            k,
                            per_row: true,
                            dst,
                        });
                        Src::Reg(dst)
                    }
                    (1, c) if c == cols => {
                        let dst = alloc(&mut free);
                        steps.push(Step::Fill {
                            k,
                            per_row: false,
                            dst,
                        });
                        Src::Reg(dst)
                    }
                    _ => return None,
                },
            },
            EwInstr::Unary(op) => {
                let a = srcs.pop()?;
                let dst = target(&[a], &mut free, &mut alloc);
                steps.push(Step::Unary { op, a, dst });
                Src::Reg(dst)
            }
            EwInstr::Binary(op) => {
                let b = srcs.pop()?;
                let a = srcs.pop()?;
                let dst = target(&[a, b], &mut free, &mut alloc);
                steps.push(Step::Binary { op, a, b, dst });
                Src::Reg(dst)
            }
            EwInstr::IfElse => {
                let no = srcs.pop()?;
                let yes = srcs.pop()?;
                let test = srcs.pop()?;
                let dst = target(&[test, yes, no], &mut free, &mut alloc);
                steps.push(Step::IfElse { test, yes, no, dst });
                Src::Reg(dst)
            }
        };
        srcs.push(src);
    }
    let result = srcs.pop()?;
    Some(Compiled {
        rows,
        cols,
        data,
        steps,
        registers,
        result,
    })
}

/// The register an operator over `inputs` writes: the lowest input register (the others
/// are freed), or a newly allocated one.
fn target(
    inputs: &[Src],
    free: &mut Vec<usize>,
    alloc: &mut impl FnMut(&mut Vec<usize>) -> usize,
) -> usize {
    let mut regs: Vec<usize> = inputs
        .iter()
        .filter_map(|s| match s {
            Src::Reg(r) => Some(*r),
            _ => None,
        })
        .collect();
    regs.sort_unstable();
    match regs.split_first() {
        Some((&dst, rest)) => {
            free.extend_from_slice(rest);
            dst
        }
        None => alloc(free),
    }
}

/// An input of one step for one chunk.
#[derive(Clone, Copy)]
enum In<'a> {
    Slice(&'a [f64]),
    Const(f64),
    /// The destination register itself (the step updates it in place).
    Dst,
}

/// Per-thread evaluation state: the registers.
struct Machine {
    regs: Vec<Vec<f64>>,
}

impl Compiled<'_> {
    fn machine(&self) -> Machine {
        Machine {
            regs: vec![vec![0.0; CHUNK]; self.registers],
        }
    }

    /// Evaluates the cells `start..start + len` (`len <= CHUNK`) and hands the values
    /// to `sink`.
    fn run_chunk(&self, m: &mut Machine, start: usize, len: usize, sink: impl FnOnce(&[f64])) {
        for step in &self.steps {
            match *step {
                Step::Fill { k, per_row, dst } => {
                    let v = self.data[k];
                    let out = &mut m.regs[dst][..len];
                    let cols = self.cols;
                    if per_row {
                        let mut c = start;
                        let mut o = 0;
                        while o < len {
                            let i = c / cols;
                            let n = ((i + 1) * cols - c).min(len - o);
                            out[o..o + n].fill(v[i]);
                            o += n;
                            c += n;
                        }
                    } else {
                        let mut c = start;
                        let mut o = 0;
                        while o < len {
                            let j = c % cols;
                            let n = (cols - j).min(len - o);
                            out[o..o + n].copy_from_slice(&v[j..j + n]);
                            o += n;
                            c += n;
                        }
                    }
                }
                Step::Unary { op, a, dst } => {
                    let mut out = std::mem::take(&mut m.regs[dst]);
                    let a = self.input(a, dst, &m.regs, start, len);
                    dispatch_unary!(op, f => unary_loop(f, a, &mut out[..len]));
                    m.regs[dst] = out;
                }
                Step::Binary { op, a, b, dst } => {
                    let mut out = std::mem::take(&mut m.regs[dst]);
                    let a = self.input(a, dst, &m.regs, start, len);
                    let b = self.input(b, dst, &m.regs, start, len);
                    dispatch_binary!(op, f => binary_loop(f, a, b, &mut out[..len]));
                    m.regs[dst] = out;
                }
                Step::IfElse { test, yes, no, dst } => {
                    let mut out = std::mem::take(&mut m.regs[dst]);
                    let ins = [test, yes, no].map(|s| self.input(s, dst, &m.regs, start, len));
                    let out_s = &mut out[..len];
                    for t in 0..len {
                        let at = |x: In, cur: f64| match x {
                            In::Slice(s) => s[t],
                            In::Const(c) => c,
                            In::Dst => cur,
                        };
                        let cur = out_s[t];
                        out_s[t] = if at(ins[0], cur) != 0.0 {
                            at(ins[1], cur)
                        } else {
                            at(ins[2], cur)
                        };
                    }
                    m.regs[dst] = out;
                }
            }
        }
        match self.result {
            Src::Reg(r) => sink(&m.regs[r][..len]),
            Src::Cells(k) => sink(&self.data[k][start..start + len]),
            Src::Const(c) => {
                let buf = vec![c; len];
                sink(&buf)
            }
        }
    }

    fn input<'s>(
        &'s self,
        s: Src,
        dst: usize,
        regs: &'s [Vec<f64>],
        start: usize,
        len: usize,
    ) -> In<'s> {
        match s {
            Src::Reg(r) if r == dst => In::Dst,
            Src::Reg(r) => In::Slice(&regs[r][..len]),
            Src::Cells(k) => In::Slice(&self.data[k][start..start + len]),
            Src::Const(c) => In::Const(c),
        }
    }

    /// Runs the cells of rows `rows` chunk by chunk, handing each chunk's first cell and
    /// values to `sink`.
    fn run_rows(&self, rows: std::ops::Range<usize>, mut sink: impl FnMut(usize, &[f64])) {
        let mut m = self.machine();
        let (start, end) = (rows.start * self.cols, rows.end * self.cols);
        let mut c = start;
        while c < end {
            let len = CHUNK.min(end - c);
            self.run_chunk(&mut m, c, len, |v| sink(c, v));
            c += len;
        }
    }

    /// Row blocks for parallel evaluation: one block below [`EW_PAR_MIN`] cells, else
    /// blocks of about [`EW_TASK`] cells, at most `max_blocks`.
    fn blocks(&self, max_blocks: usize) -> Vec<std::ops::Range<usize>> {
        let (rows, cols) = (self.rows, self.cols);
        if rows == 0 {
            return Vec::new();
        }
        let cells = rows * cols;
        let count = if cells < EW_PAR_MIN {
            1
        } else {
            cells
                .div_ceil(EW_TASK)
                .clamp(1, max_blocks.max(1))
                .min(rows)
        };
        let per = rows.div_ceil(count);
        (0..rows)
            .step_by(per)
            .map(|s| s..(s + per).min(rows))
            .collect()
    }
}

#[inline(always)]
fn unary_loop(f: impl Fn(f64) -> f64, a: In, out: &mut [f64]) {
    match a {
        In::Slice(a) => {
            for (o, &x) in out.iter_mut().zip(a) {
                *o = f(x);
            }
        }
        In::Const(c) => out.fill(f(c)),
        In::Dst => {
            for o in out.iter_mut() {
                *o = f(*o);
            }
        }
    }
}

#[inline(always)]
fn binary_loop(f: impl Fn(f64, f64) -> f64, a: In, b: In, out: &mut [f64]) {
    match (a, b) {
        (In::Slice(a), In::Slice(b)) => {
            for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
                *o = f(x, y);
            }
        }
        (In::Slice(a), In::Const(y)) => {
            for (o, &x) in out.iter_mut().zip(a) {
                *o = f(x, y);
            }
        }
        (In::Const(x), In::Slice(b)) => {
            for (o, &y) in out.iter_mut().zip(b) {
                *o = f(x, y);
            }
        }
        (In::Const(x), In::Const(y)) => out.fill(f(x, y)),
        (In::Dst, In::Slice(b)) => {
            for (o, &y) in out.iter_mut().zip(b) {
                *o = f(*o, y);
            }
        }
        (In::Dst, In::Const(y)) => {
            for o in out.iter_mut() {
                *o = f(*o, y);
            }
        }
        (In::Slice(a), In::Dst) => {
            for (o, &x) in out.iter_mut().zip(a) {
                *o = f(x, *o);
            }
        }
        (In::Const(x), In::Dst) => {
            for o in out.iter_mut() {
                *o = f(x, *o);
            }
        }
        (In::Dst, In::Dst) => {
            for o in out.iter_mut() {
                *o = f(*o, *o);
            }
        }
    }
}

/// Evaluates `program` over `args` and computes `output` in one pass, or returns `None`
/// when the fused kernel does not apply (see the module documentation); the caller then
/// evaluates the operators one by one.
pub fn fused_elementwise(program: &EwProgram, args: &[EwArg], output: EwOutput) -> Option<EwValue> {
    let c = compile(program, args)?;
    let (rows, cols) = (c.rows, c.cols);
    Some(match output {
        EwOutput::Map => {
            let mut data = vec![0.0; rows * cols];
            let blocks = c.blocks(usize::MAX);
            if blocks.len() <= 1 {
                c.run_rows(0..rows, |s, v| data[s..s + v.len()].copy_from_slice(v));
            } else {
                let per = blocks[0].len() * cols;
                data.par_chunks_mut(per)
                    .zip(blocks)
                    .for_each(|(out, range)| {
                        let base = range.start * cols;
                        c.run_rows(range, |s, v| {
                            out[s - base..s - base + v.len()].copy_from_slice(v)
                        });
                    });
            }
            let d = DenseMatrix::from_vec(rows, cols, data).expect("one value per cell");
            EwValue::Matrix(Matrix::Dense(d).into_best_format())
        }
        EwOutput::Sum => {
            // One block up to SystemDS's sequential size: its order, term by term.
            let cells = rows * cols;
            let blocks = if cells <= SEQUENTIAL_TERMS && rows > 0 {
                std::iter::once(0..rows).collect()
            } else {
                c.blocks(usize::MAX)
            };
            let partial: Vec<SliceSum> = blocks
                .into_par_iter()
                .map(|range| {
                    let mut s = SliceSum::new(cells);
                    c.run_rows(range, |_, v| s.add_slice(v));
                    s
                })
                .collect();
            // The first block as it is: one block keeps SystemDS's sum to the bit.
            let mut blocks = partial.into_iter();
            let mut total = blocks.next().unwrap_or_else(|| SliceSum::new(cells));
            blocks.for_each(|p| total.merge(p));
            EwValue::Scalar(total.value())
        }
        EwOutput::RowSums => {
            let mut sums = vec![SliceSum::new(cols); rows];
            let blocks = c.blocks(usize::MAX);
            if !blocks.is_empty() {
                let per = blocks[0].len();
                sums.par_chunks_mut(per)
                    .zip(blocks)
                    .for_each(|(out, range)| {
                        let base = range.start;
                        c.run_rows(range, |s, v| {
                            // Split the chunk at row ends.
                            let (mut c0, mut o) = (s, 0);
                            while o < v.len() {
                                let i = c0 / cols;
                                let n = ((i + 1) * cols - c0).min(v.len() - o);
                                out[i - base].add_slice(&v[o..o + n]);
                                o += n;
                                c0 += n;
                            }
                        });
                    });
            }
            let sums = sums.into_iter().map(SliceSum::value).collect();
            let d = DenseMatrix::from_vec(rows, 1, sums).expect("one sum per row");
            EwValue::Matrix(Matrix::Dense(d))
        }
        EwOutput::ColSums => {
            // One block up to SystemDS's sequential size, so each column adds its rows in
            // order, as SystemDS's colSums does.
            let blocks = if rows * cols <= SEQUENTIAL_TERMS && rows > 0 {
                std::iter::once(0..rows).collect()
            } else {
                c.blocks(MAX_COL_BLOCKS)
            };
            let partial: Vec<Vec<KahanSum>> = blocks
                .into_par_iter()
                .map(|range| {
                    let mut sums = vec![KahanSum::default(); cols];
                    c.run_rows(range, |s, v| {
                        let (mut c0, mut o) = (s, 0);
                        while o < v.len() {
                            let j = c0 % cols;
                            let n = (cols - j).min(v.len() - o);
                            for (acc, &x) in sums[j..j + n].iter_mut().zip(&v[o..o + n]) {
                                acc.add(x);
                            }
                            o += n;
                            c0 += n;
                        }
                    });
                    sums
                })
                .collect();
            let sums = merge_column_blocks(partial, cols);
            let d = DenseMatrix::from_vec(1, cols, sums).expect("one sum per column");
            EwValue::Matrix(Matrix::Dense(d))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::elementwise::tests::{gridded, random};
    use crate::kernels::elementwise::{binary, binary_scalar};
    use crate::kernels::{aggregate, unary};
    use rand::{Rng, SeedableRng};
    use rand_pcg::Pcg64Mcg;

    /// A value of the reference evaluation.
    #[derive(Clone, Debug)]
    enum V {
        S(f64),
        M(Matrix),
    }

    /// The program evaluated one operator at a time with the unfused kernels; `None`
    /// where the unfused operators fail (or the whole value is a scalar).
    fn reference(program: &EwProgram, args: &[EwArg], output: EwOutput) -> Option<EwValue> {
        let mut stack: Vec<V> = Vec::new();
        for ins in program.instrs() {
            let v = match *ins {
                EwInstr::Load(k) => match args[k] {
                    EwArg::Scalar(s) => V::S(s),
                    EwArg::Matrix(m) => V::M(m.clone()),
                },
                EwInstr::Unary(op) => match stack.pop()? {
                    V::M(m) => V::M(unary::unary(op, &m)),
                    V::S(_) => return None,
                },
                EwInstr::Binary(op) => {
                    let b = stack.pop()?;
                    let a = stack.pop()?;
                    V::M(match (a, b) {
                        (V::M(a), V::M(b)) => binary(op, &a, &b).ok()?,
                        (V::M(a), V::S(b)) => binary_scalar(op, &a, b, false),
                        (V::S(a), V::M(b)) => binary_scalar(op, &b, a, true),
                        (V::S(_), V::S(_)) => return None,
                    })
                }
                EwInstr::IfElse => {
                    let no = stack.pop()?;
                    let yes = stack.pop()?;
                    let test = stack.pop()?;
                    let parts = [test, yes, no];
                    let shapes: Vec<_> = parts
                        .iter()
                        .filter_map(|p| match p {
                            V::M(m) => Some(m.shape()),
                            V::S(_) => None,
                        })
                        .collect();
                    let shape = *shapes.first()?;
                    if shapes.iter().any(|&s| s != shape) {
                        return None;
                    }
                    let cell = |p: &V, i, j| match p {
                        V::M(m) => m.get(i, j),
                        V::S(s) => *s,
                    };
                    V::M(
                        Matrix::Dense(DenseMatrix::from_fn(shape.rows, shape.cols, |i, j| {
                            if cell(&parts[0], i, j) != 0.0 {
                                cell(&parts[1], i, j)
                            } else {
                                cell(&parts[2], i, j)
                            }
                        }))
                        .into_best_format(),
                    )
                }
            };
            stack.push(v);
        }
        let V::M(m) = stack.pop()? else {
            return None;
        };
        Some(match output {
            EwOutput::Map => EwValue::Matrix(m),
            EwOutput::Sum => EwValue::Scalar(aggregate::sum(&m)),
            EwOutput::RowSums => EwValue::Matrix(aggregate::row_sums(&m)),
            EwOutput::ColSums => EwValue::Matrix(aggregate::col_sums(&m)),
        })
    }

    /// Equal up to rounding. Non-finite values only need to agree on being non-finite:
    /// the unfused kernels themselves turn `-0.0` into `+0.0` when a result happens to be
    /// stored sparse, which flips the sign of a later `x / 0` (and a sum of both signs
    /// of infinity is NaN).
    fn close(a: f64, b: f64) -> bool {
        crate::matrix::approx_eq_f64(a, b, 1e-10) || (!a.is_finite() && !b.is_finite())
    }

    fn matrices_close(a: &Matrix, b: &Matrix) -> bool {
        a.shape() == b.shape()
            && a.to_dense()
                .data()
                .iter()
                .zip(b.to_dense().data())
                .all(|(&x, &y)| close(x, y))
    }

    /// Checks the fused result against the reference; returns whether it applied.
    fn check(program: &EwProgram, args: &[EwArg], output: EwOutput) -> bool {
        let want = reference(program, args, output);
        let got = fused_elementwise(program, args, output);
        let desc = program.to_infix(&[]);
        match (&got, &want) {
            (None, _) => false,
            (Some(_), None) => panic!("{desc}: fused where the unfused operators fail"),
            (Some(EwValue::Scalar(g)), Some(EwValue::Scalar(w))) => {
                assert!(close(*g, *w), "{desc} {output:?}: {g} vs {w}");
                true
            }
            (Some(EwValue::Matrix(g)), Some(EwValue::Matrix(w))) => {
                assert!(
                    matrices_close(g, w),
                    "{desc} {output:?}: {:?}\nvs {:?}",
                    g.to_dense(),
                    w.to_dense()
                );
                assert_eq!(g.is_sparse(), w.is_sparse(), "{desc}: format");
                true
            }
            _ => panic!("{desc}: result kinds differ"),
        }
    }

    fn pick(rng: &mut Pcg64Mcg, n: usize) -> usize {
        (rng.next_u64() % n as u64) as usize
    }

    /// A random postfix program over `operands` operands with about `ops` operators.
    fn random_program(rng: &mut Pcg64Mcg, operands: usize, ops: usize) -> EwProgram {
        loop {
            let mut instrs = Vec::new();
            let mut depth = 0usize;
            let mut remaining = ops;
            while remaining > 0 || depth != 1 {
                let choice = pick(rng, 10);
                if depth < 2 || (choice < 3 && depth < MAX_STACK) {
                    instrs.push(EwInstr::Load(pick(rng, operands)));
                    depth += 1;
                } else if choice < 5 {
                    let op = UnaryOp::ALL[pick(rng, UnaryOp::ALL.len())];
                    instrs.push(EwInstr::Unary(op));
                    remaining = remaining.saturating_sub(1);
                } else if choice < 6 && depth >= 3 {
                    instrs.push(EwInstr::IfElse);
                    depth -= 2;
                    remaining = remaining.saturating_sub(1);
                } else {
                    let op = BinaryOp::ALL[pick(rng, BinaryOp::ALL.len())];
                    instrs.push(EwInstr::Binary(op));
                    depth -= 1;
                    remaining = remaining.saturating_sub(1);
                }
            }
            if let Ok(p) = EwProgram::new(instrs) {
                return p;
            }
        }
    }

    #[test]
    fn random_programs_match_the_unfused_kernels() {
        let mut applied = 0;
        let mut rng = Pcg64Mcg::seed_from_u64(11);
        let shapes = [
            (7, 5),
            (1, 1),
            (1, 9),
            (9, 1),
            (0, 3),
            (3, 0),
            (40, 1),
            (1, 40),
        ];
        for case in 0..1500u64 {
            let (m, n) = shapes[case as usize % shapes.len()];
            // Operands: full, row, column, 1x1 and scalars, mostly dense.
            let mats = [
                gridded(random(m, n, 0.7, false, case)),
                gridded(random(1, n, 0.8, false, case + 1)),
                gridded(random(m, 1, 0.8, false, case + 2)),
                gridded(random(1, 1, 1.0, false, case + 3)),
                gridded(random(m, n, 0.3, case % 5 == 0, case + 4)),
            ];
            let mut args: Vec<EwArg> = mats.iter().map(EwArg::Matrix).collect();
            args.push(EwArg::Scalar(if case % 3 == 0 { 0.0 } else { 1.5 }));
            args.push(EwArg::Scalar(f64::NAN));
            let program = random_program(&mut rng, args.len(), 1 + case as usize % 5);
            for output in [
                EwOutput::Map,
                EwOutput::Sum,
                EwOutput::RowSums,
                EwOutput::ColSums,
            ] {
                if check(&program, &args, output) {
                    applied += 1;
                }
            }
        }
        // Most programs are valid and dense, so the fused path really ran.
        assert!(applied > 2000, "fused path applied only {applied} times");
    }

    #[test]
    fn long_vectors_and_large_matrices_run_in_parallel_blocks() {
        use BinaryOp::*;
        // l2svm's `1 - y * (Xw + a * Xs)` and `sum(sv * out * y * Xs)` on 300k x 1.
        let n = 300_000;
        let y = random(n, 1, 1.0, false, 1);
        let xw = random(n, 1, 1.0, false, 2);
        let xs = random(n, 1, 1.0, false, 3);
        let out = EwProgram::new(vec![
            EwInstr::Load(0),
            EwInstr::Load(1),
            EwInstr::Load(2),
            EwInstr::Load(3),
            EwInstr::Load(4),
            EwInstr::Binary(Mul),
            EwInstr::Binary(Add),
            EwInstr::Binary(Mul),
            EwInstr::Binary(Sub),
        ])
        .unwrap();
        let args = [
            EwArg::Scalar(1.0),
            EwArg::Matrix(&y),
            EwArg::Matrix(&xw),
            EwArg::Scalar(0.25),
            EwArg::Matrix(&xs),
        ];
        for output in [
            EwOutput::Map,
            EwOutput::Sum,
            EwOutput::RowSums,
            EwOutput::ColSums,
        ] {
            assert!(check(&out, &args, output), "{output:?}");
        }
        // A 700 x 500 matrix with a row and a column vector, all four outputs.
        let x = random(700, 500, 1.0, false, 4);
        let r = random(1, 500, 1.0, false, 5);
        let c = random(700, 1, 1.0, false, 6);
        // `ifelse(x > c, a * b, x) * max(exp(x / r), c)` with `a * b` either `r * c` (row
        // op column: rejected by the unfused kernel, so not fused) or `c * r`.
        let program = |a: usize, b: usize| {
            EwProgram::new(vec![
                EwInstr::Load(0),
                EwInstr::Load(1),
                EwInstr::Binary(Div),
                EwInstr::Unary(UnaryOp::Exp),
                EwInstr::Load(2),
                EwInstr::Binary(Max),
                EwInstr::Load(0),
                EwInstr::Load(2),
                EwInstr::Binary(Gt),
                EwInstr::Load(a),
                EwInstr::Load(b),
                EwInstr::Binary(Mul),
                EwInstr::Load(0),
                EwInstr::IfElse,
                EwInstr::Binary(Mul),
            ])
            .unwrap()
        };
        let args = [EwArg::Matrix(&x), EwArg::Matrix(&r), EwArg::Matrix(&c)];
        for output in [
            EwOutput::Map,
            EwOutput::Sum,
            EwOutput::RowSums,
            EwOutput::ColSums,
        ] {
            assert!(
                !check(&program(1, 2), &args, output),
                "row op column is rejected"
            );
            assert!(check(&program(2, 1), &args, output), "{output:?}");
        }
    }

    #[test]
    fn sparse_operands_and_scalar_only_programs_are_left_to_the_unfused_kernels() {
        let x = random(30, 20, 0.1, true, 1);
        let d = random(30, 20, 1.0, false, 2);
        let p = EwProgram::new(vec![
            EwInstr::Load(0),
            EwInstr::Load(1),
            EwInstr::Binary(BinaryOp::Mul),
            EwInstr::Unary(UnaryOp::Abs),
        ])
        .unwrap();
        let args = [EwArg::Matrix(&x), EwArg::Matrix(&d)];
        assert!(fused_elementwise(&p, &args, EwOutput::Map).is_none());
        let args = [EwArg::Scalar(2.0), EwArg::Scalar(3.0)];
        assert!(fused_elementwise(&p, &args, EwOutput::Sum).is_none());
        let args = [EwArg::Matrix(&d), EwArg::Scalar(3.0)];
        assert!(check(&p, &args, EwOutput::Map));
    }

    #[test]
    fn malformed_programs_are_rejected() {
        assert!(EwProgram::new(vec![]).is_err());
        assert!(EwProgram::new(vec![EwInstr::Binary(BinaryOp::Add)]).is_err());
        assert!(EwProgram::new(vec![EwInstr::Load(0), EwInstr::Load(1)]).is_err());
        assert!(EwProgram::new(vec![EwInstr::Load(0), EwInstr::Load(0), EwInstr::IfElse]).is_err());
        let deep: Vec<EwInstr> = (0..=MAX_STACK).map(EwInstr::Load).collect();
        assert!(EwProgram::new(deep).is_err());
        let p = EwProgram::new(vec![
            EwInstr::Load(0),
            EwInstr::Load(1),
            EwInstr::Load(2),
            EwInstr::IfElse,
            EwInstr::Unary(UnaryOp::Exp),
        ])
        .unwrap();
        assert_eq!(p.operand_count(), 3);
        assert_eq!(
            p.to_infix(&["a".into(), "b".into(), "c".into()]),
            "exp(ifelse(a, b, c))"
        );
        // Too few operands given: not applied.
        let x = random(3, 3, 1.0, false, 1);
        assert!(fused_elementwise(&p, &[EwArg::Matrix(&x)], EwOutput::Map).is_none());
    }
}
