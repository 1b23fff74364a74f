//! The operators of the LA DAG.

use std::fmt;
use std::sync::Arc;

use spores_exec::kernels::elementwise::BinaryOp;
use spores_exec::kernels::ew_fused::{EwOutput, EwProgram};
use spores_exec::kernels::masked::MaskedProgram;
use spores_exec::kernels::unary::UnaryOp;
pub use spores_opt::fused::Fused as CatalogueOp;

use super::guard::GuardedRoot;

/// A constant in the DAG. Doubles are compared by bit pattern so that literals can be
/// hash-consed.
#[derive(Clone, Debug)]
pub enum Literal {
    Double(f64),
    Int(i64),
    Bool(bool),
    Str(String),
}

impl PartialEq for Literal {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Literal::Double(a), Literal::Double(b)) => a.to_bits() == b.to_bits(),
            (Literal::Int(a), Literal::Int(b)) => a == b,
            (Literal::Bool(a), Literal::Bool(b)) => a == b,
            (Literal::Str(a), Literal::Str(b)) => a == b,
            _ => false,
        }
    }
}

impl Eq for Literal {}

impl std::hash::Hash for Literal {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        std::mem::discriminant(self).hash(state);
        match self {
            Literal::Double(v) => v.to_bits().hash(state),
            Literal::Int(v) => v.hash(state),
            Literal::Bool(v) => v.hash(state),
            Literal::Str(v) => v.hash(state),
        }
    }
}

impl fmt::Display for Literal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Literal::Double(v) => f.write_str(&crate::number::format_double(*v)),
            Literal::Int(v) => write!(f, "{v}"),
            Literal::Bool(v) => f.write_str(if *v { "TRUE" } else { "FALSE" }),
            Literal::Str(v) => write!(f, "{v:?}"),
        }
    }
}

/// Which aggregate a `sum`/`mean`/`min`/`max` family call computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AggFn {
    Sum,
    Mean,
    Min,
    Max,
}

/// Over which cells an aggregate runs: all of them, each row (giving a column vector)
/// or each column (giving a row vector).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Axis {
    All,
    Row,
    Col,
}

/// Builtin functions that are neither elementwise nor aggregates. Their arguments are
/// the node's children in the order of the builtin's parameters, and everything else
/// every stage needs to know of them is their row of the builtin table
/// ([`super::builtins`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Builtin {
    Rand,
    Sample,
    Matrix,
    Seq,
    Nrow,
    Ncol,
    Length,
    AsScalar,
    AsMatrix,
    AsDouble,
    AsInteger,
    AsLogical,
    /// `exists(X)`: whether a variable of that name is bound when the block runs (its
    /// child is the name, a string).
    Exists,
    Diag,
    Trace,
    Cbind,
    Rbind,
    IfElse,
    Replace,
    ToString,
    Read,
    Write,
    Print,
    Printf,
    /// condition: stops the script when it is false
    Assert,
    /// function name, then its arguments (or one list of them): calls a DML function
    /// chosen at run time and gives its first result
    Eval,
    Stop,
    Time,
    List,
    /// `append(list, value)`, `append(string, string)` (joined by a line break) or
    /// `append(X, Y)` (= `cbind`)
    Append,
    Contains,
    CumSum,
    CumProd,
    CumMin,
    CumMax,
    /// Cumulative sums along each row.
    RowCumSum,
    /// `X` (n x 2): the recurrence `y[i] = X[i,1] + X[i,2] y[i-1]`
    CumSumProd,
    /// Product of all cells.
    Prod,
    ColProds,
    RowProds,
    RowIndexMax,
    RowIndexMin,
    Table,
    RemoveEmpty,
    Order,
    Solve,
    Inv,
    Cholesky,
    Eigen,
    /// Determinant of a square matrix.
    Det,
    Qr,
    Lu,
    Svd,
    Remove,
    /// A list as it is; any other value as a list of one element.
    AsList,
    Var,
    Sd,
    RowVars,
    ColVars,
    RowSds,
    ColSds,
    Median,
    InterQuartileMean,
    Quantile,
    Moment,
    Cov,
    Cdf,
    Icdf,
    Rev,
    /// `roll(X, shift)`: the rows moved down by `shift`, circularly.
    Roll,
    Outer,
    /// Bitwise operators of integers (doubles are truncated).
    BitwAnd,
    BitwOr,
    BitwXor,
    BitwShiftL,
    BitwShiftR,
    LowerTri,
    UpperTri,
    Aggregate,
    Unique,
    /// Convolution, pooling and bias of image batches (`spores_exec::kernels::dnn`), what
    /// SystemDS's `nn` layers call.
    Conv2d,
    Conv2dBackwardFilter,
    Conv2dBackwardData,
    MaxPool,
    AvgPool,
    MaxPoolBackward,
    AvgPoolBackward,
    BiasAdd,
    BiasMultiply,
    BatchNorm2d,
    BatchNorm2dBackward,
    Lstm,
    LstmBackward,
    /// `evalList(name, args)`: every result of the named function, as a list.
    EvalList,
    /// `[C, N] = rowClassMeet(A, B)`: the classes of each row's pairs of labels and
    /// their sizes.
    RowClassMeet,
    /// `as.frame(x)`: a matrix (each column of the narrowest type holding it), a scalar
    /// (a 1 x 1 frame) or a frame as it is.
    AsFrame,
    /// `frame(data, rows, cols, schema)`: a frame filled with `data`'s cells.
    Frame,
    /// `detectSchema(F)`: the value type each column's cells fit, as a one-row frame.
    DetectSchema,
    /// `colnames(F)`: the column names, as a one-row frame.
    ColNames,
    /// `dropInvalidType(F, schema)`: cells that do not fit their column's type become
    /// missing.
    DropInvalidType,
    /// `freplicate(F, row)`: `F`'s shape and types, every row `row`'s cells.
    FrameReplicate,
    /// `map(F, "x -> ...")`: a Java lambda of every cell, as a frame of strings.
    Map,
    /// `tokenize(target, spec, max_tokens)`: one row per word of a frame's text column.
    Tokenize,
    /// `[X, M] = transformencode(target, spec)`: a frame encoded as a matrix, and the
    /// metadata frame that encodes it.
    TransformEncode,
    /// `transformapply(target, spec, meta)`: a frame encoded with given metadata.
    TransformApply,
    /// `transformdecode(target, spec, meta)`: the frame an encoded matrix stands for.
    TransformDecode,
    /// `transformcolmap(target, spec)`: which encoded columns each column of the frame a
    /// metadata frame describes takes.
    TransformColMap,
}

/// How one dimension of an indexing node is given; the bounds are children.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IndexKind {
    All,
    Single,
    Range,
}

impl IndexKind {
    /// Number of child nodes holding this dimension's bounds.
    pub fn arity(self) -> usize {
        match self {
            IndexKind::All => 0,
            IndexKind::Single => 1,
            IndexKind::Range => 2,
        }
    }
}

/// Physical operators that compute a whole expression in one pass. The optimizer (or the
/// physical planning pass) introduces them; the front end never does.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Fused {
    /// `op(A) %*% op(B)` with `op` the identity or a transpose, never materializing the
    /// transposed operand. Children: A, B.
    MatMulT {
        transpose_a: bool,
        transpose_b: bool,
    },
    /// An operator of the optimizer's catalogue ([`spores_opt::fused::CATALOGUE`]), which
    /// gives its name, operands (the children, in catalogue order) and meaning; the
    /// runtime dispatches its kernel on the kind.
    Catalogue(CatalogueOp),
    /// An element-wise expression `E` evaluated only at the non-zeros of a sparse mask
    /// `X`, possibly with its consumer fused (see [`MaskedPlan`]). Children: X, then
    /// the operands' nodes in program order (two for a low-rank operand), then the
    /// consumer's other operand, if any.
    Masked(Arc<MaskedPlan>),
    /// A chain of element-wise operators (and `ifelse`), possibly with its `sum`,
    /// `rowSums` or `colSums` consumer, in one pass over the cells (see [`EwPlan`]).
    /// Children: the program's operands, in operand order.
    Elementwise(Arc<EwPlan>),
}

/// What a [`Fused::Elementwise`] node computes: a postfix program whose `Load(k)` reads
/// the node's child `k`, and the consumer fused with it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct EwPlan {
    pub program: EwProgram,
    pub output: EwOutput,
}

impl EwPlan {
    /// The computation in DML-like notation with the node's arguments substituted, for
    /// `--explain`: `sum((%3 * (%4 > 0)))`.
    pub fn describe(&self, args: &[String]) -> String {
        let e = self.program.to_infix(args);
        match self.output {
            EwOutput::Map => e,
            EwOutput::Sum => format!("sum({e})"),
            EwOutput::RowSums => format!("rowSums({e})"),
            EwOutput::ColSums => format!("colSums({e})"),
        }
    }
}

/// What a [`Fused::Masked`] node computes: the program over the mask's non-zeros, how
/// its operands map to the node's children, and which consumer is fused with it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct MaskedPlan {
    pub program: MaskedProgram,
    /// One entry per program operand, in operand order.
    pub operands: Vec<MaskedOperand>,
    pub output: MaskedOutput,
}

/// How a masked program's operand is given by the node's children.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MaskedOperand {
    /// One child: a scalar, or a matrix of the mask's shape or broadcast to it.
    Value,
    /// Two children U and V: the product `U %*% t(V)` when `v_transposed` (V is `n x k`),
    /// else `U %*% V` (V is `k x n`). Its dense `m x n` value is never formed.
    LowRank { v_transposed: bool },
}

/// Which consumer of the masked expression `E` the node computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MaskedOutput {
    /// `E` itself, with the mask's sparsity pattern.
    Map,
    /// `sum(E)` (SystemDS's wcemm for `sum(X * log(U %*% t(V)))`).
    Sum,
    /// `t(A) %*% E` (A is `m x p`) when `transposed`, else `A %*% E` (A is `p x m`);
    /// SystemDS's left wdivmm. A is the last child.
    LeftMul { transposed: bool },
    /// `E %*% t(B)` (B is `p x n`) when `transposed`, else `E %*% B` (B is `n x p`);
    /// SystemDS's right wdivmm. B is the last child.
    RightMul { transposed: bool },
}

impl MaskedOutput {
    pub fn name(self) -> &'static str {
        match self {
            MaskedOutput::Map => "masked",
            MaskedOutput::Sum => "masked_sum",
            MaskedOutput::LeftMul { .. } => "masked_left_mm",
            MaskedOutput::RightMul { .. } => "masked_right_mm",
        }
    }
}

impl MaskedPlan {
    /// The computation in DML-like notation with the node's arguments substituted, for
    /// `--explain`: `sum(%3 * log(%1 %*% %0))`.
    pub fn describe(&self, args: &[String]) -> String {
        use spores_exec::kernels::masked::Instr;
        let arg = |k: usize| args.get(k).cloned().unwrap_or_else(|| "?".into());
        let mut next = 1;
        let mut operands = Vec::with_capacity(self.operands.len());
        for operand in &self.operands {
            operands.push(match operand {
                MaskedOperand::Value => arg(next),
                MaskedOperand::LowRank { v_transposed } => {
                    let v = if *v_transposed {
                        format!("t({})", arg(next + 1))
                    } else {
                        arg(next + 1)
                    };
                    format!("({} %*% {v})", arg(next))
                }
            });
            next += match operand {
                MaskedOperand::Value => 1,
                MaskedOperand::LowRank { .. } => 2,
            };
        }
        let mut stack: Vec<String> = Vec::new();
        for ins in self.program.instrs() {
            let s = match ins {
                Instr::Mask => arg(0),
                Instr::Load(k) => operands.get(*k).cloned().unwrap_or_else(|| "?".into()),
                Instr::Unary(op) => format!("{}({})", op.name(), stack.pop().unwrap_or_default()),
                Instr::Binary(op) => {
                    let b = stack.pop().unwrap_or_default();
                    let a = stack.pop().unwrap_or_default();
                    format!("({a} {} {b})", op.symbol())
                }
            };
            stack.push(s);
        }
        let e = stack.pop().unwrap_or_default();
        match self.output {
            MaskedOutput::Map => e,
            MaskedOutput::Sum => format!("sum{e}"),
            MaskedOutput::LeftMul { transposed } | MaskedOutput::RightMul { transposed } => {
                let other = arg(next);
                let other = if transposed {
                    format!("t({other})")
                } else {
                    other
                };
                if matches!(self.output, MaskedOutput::LeftMul { .. }) {
                    format!("{other} %*% {e}")
                } else {
                    format!("{e} %*% {other}")
                }
            }
        }
    }
}

impl Fused {
    pub fn name(&self) -> &'static str {
        match self {
            Fused::MatMulT {
                transpose_a: true,
                transpose_b: true,
            } => "t%*%t",
            Fused::MatMulT {
                transpose_a: true, ..
            } => "t(A)%*%B",
            Fused::MatMulT {
                transpose_b: true, ..
            } => "A%*%t(B)",
            Fused::MatMulT { .. } => "%*%",
            Fused::Catalogue(kind) => spores_opt::fused::op(*kind).name,
            Fused::Masked(plan) => plan.output.name(),
            Fused::Elementwise(plan) => plan.output.name(),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    /// A variable defined before the block.
    Input(String),
    Literal(Literal),
    /// Elementwise (or scalar) binary operator, with broadcasting.
    Binary(BinaryOp),
    Unary(UnaryOp),
    /// `%*%`
    MatMul,
    Transpose,
    Agg(AggFn, Axis),
    Builtin(Builtin),
    /// Right indexing; children: target, then the row bounds, then the column bounds.
    Index {
        rows: IndexKind,
        cols: IndexKind,
    },
    /// Left indexing `X[..] = v`; children: target, value, row bounds, column bounds.
    LeftIndex {
        rows: IndexKind,
        cols: IndexKind,
    },
    /// A call of a user-defined function with `outputs` return values; children are the
    /// arguments in parameter order (defaults filled in). The parameters in `deferred`
    /// take defaults that refer to other variables (`Integer n = ncol(X)`): those are
    /// evaluated in the callee once the other parameters are bound, and their children
    /// are placeholders.
    Call {
        name: String,
        outputs: usize,
        deferred: Vec<usize>,
    },
    /// The k-th return value of a `Call` child.
    Extract(usize),
    Fused(Fused),
    /// A sum-product subgraph run on a relational engine (`spores run --engine`);
    /// children are its leaves, in [`RelationalRoot::leaves`] order.
    Relational(Arc<RelationalRoot>),
    /// A rewritten root: its first child's value when the values it checks are finite,
    /// else the root evaluated as written (see [`crate::dag::guard`]). Children: the
    /// rewritten value, then the as-written root's inputs.
    Guarded(Arc<GuardedRoot>),
}

/// What an [`Op::Relational`] node computes: an (optimized) LA expression over named
/// leaves, handed whole to the relational engine.
#[derive(Clone, Debug)]
pub struct RelationalRoot {
    pub expr: spores_opt::la::LaExpr,
    /// The names the expression reads, one per child of the node.
    pub leaves: Vec<String>,
}

// Nodes are hash-consed by operator: a relational root is identified by its expression
// as printed (LaExpr holds floats, which have no `Eq`) and its leaves.
impl PartialEq for RelationalRoot {
    fn eq(&self, other: &Self) -> bool {
        self.leaves == other.leaves && self.expr.to_string() == other.expr.to_string()
    }
}

impl Eq for RelationalRoot {}

impl std::hash::Hash for RelationalRoot {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.expr.to_string().hash(state);
        self.leaves.hash(state);
    }
}

impl Op {
    pub fn is_pure(&self) -> bool {
        match self {
            Op::Builtin(b) => b.is_pure(),
            Op::Call { .. } => false,
            _ => true,
        }
    }

    /// Short name used in `--explain` and `--stats`.
    pub fn name(&self) -> String {
        match self {
            Op::Input(v) => format!("input {v}"),
            Op::Literal(l) => format!("lit {l}"),
            Op::Binary(b) => b.symbol().to_string(),
            Op::Unary(u) => format!("{u:?}").to_lowercase(),
            Op::MatMul => "%*%".into(),
            Op::Transpose => "t".into(),
            Op::Agg(f, axis) => {
                let f = format!("{f:?}").to_lowercase();
                match axis {
                    Axis::All => f,
                    Axis::Row => format!("row{f}"),
                    Axis::Col => format!("col{f}"),
                }
            }
            Op::Builtin(b) => b.name().into(),
            Op::Index { .. } => "rightIndex".into(),
            Op::LeftIndex { .. } => "leftIndex".into(),
            Op::Call { name, .. } => format!("call {name}"),
            Op::Extract(k) => format!("extract {k}"),
            Op::Fused(f) => f.name().into(),
            Op::Relational(_) => "relational".into(),
            Op::Guarded(_) => "guard".into(),
        }
    }
}
