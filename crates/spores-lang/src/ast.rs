//! Abstract syntax of the DML subset.
//!
//! Every statement and expression carries the [`Span`] of source text it came from, so
//! that the parser, the shape checker and the interpreter can all point at the code.

use crate::diag::Span;

/// A whole script: the files it sources, its user-defined functions and its top-level
/// statements.
#[derive(Clone, Debug, PartialEq)]
pub struct Program {
    pub sources: Vec<SourceImport>,
    pub functions: Vec<FunctionDef>,
    pub body: Vec<Stmt>,
}

/// `source("path.dml") as ns`: the functions of another file, called as `ns::f(...)`.
#[derive(Clone, Debug, PartialEq)]
pub struct SourceImport {
    pub path: String,
    pub namespace: String,
    pub span: Span,
}

/// `name = function(matrix[double] X, double y = 1.0) return (matrix[double] Z) { ... }`
#[derive(Clone, Debug, PartialEq)]
pub struct FunctionDef {
    pub name: String,
    pub params: Vec<Param>,
    pub returns: Vec<Param>,
    pub body: Vec<Stmt>,
    pub span: Span,
}

/// A formal parameter or declared return value.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub name: String,
    pub ty: TypeSpec,
    /// Default value for an input parameter (`double y = 1.0`); always `None` for returns.
    pub default: Option<Expr>,
    pub span: Span,
}

/// A declared data type: `matrix[double]`, `double`, `int`, `integer`, `boolean`,
/// `string`, `list[unknown]`, `frame[...]` (case-insensitive, as in DML).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TypeSpec {
    Matrix,
    /// `frame[...]`: parsed so that files mixing frame and matrix functions load; a call
    /// of a function taking or returning a frame is reported as unsupported.
    Frame,
    List,
    Double,
    Int,
    Boolean,
    String,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum StmtKind {
    /// `x = e`, `x <- e`, or with left indexing `X[i, j] = e`.
    Assign { target: AssignTarget, value: Expr },
    /// `[a, b] = f(x)`: a call to a function with several return values.
    MultiAssign { targets: Vec<String>, value: Expr },
    /// An expression evaluated for its effect: `print(...)`, `write(...)`, `f(x)`.
    Expr(Expr),
    /// `if (c) { ... } else { ... }`; an `else if` is an `If` alone in `else_branch`.
    If {
        cond: Expr,
        then_branch: Vec<Stmt>,
        else_branch: Vec<Stmt>,
    },
    /// `for (i in from:to) { ... }`, `for (i in seq(from, to, by))`, and `parfor` (run
    /// sequentially; `parallel` records that the script asked for it).
    For {
        var: String,
        from: Expr,
        to: Expr,
        by: Option<Expr>,
        body: Vec<Stmt>,
        parallel: bool,
    },
    /// `while (c) { ... }`
    While { cond: Expr, body: Vec<Stmt> },
}

#[derive(Clone, Debug, PartialEq)]
pub enum AssignTarget {
    Var(String),
    /// `X[rows, cols] = ...` (left indexing).
    Indexed {
        name: String,
        rows: Index,
        cols: Index,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// An integer literal such as `3` (DML's INT64 value type).
    Int(i64),
    /// A floating-point literal such as `3.0`, `1e-3` or `.5`.
    Double(f64),
    /// `"text"` or `'text'`, escapes resolved.
    Str(String),
    /// `TRUE` / `FALSE`.
    Bool(bool),
    Var(String),
    /// A command-line argument `$name` (`$1` style positional names are kept as text).
    CmdArg(String),
    Unary {
        op: UnaryOp,
        expr: Box<Expr>,
    },
    Binary {
        op: BinaryOp,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    /// A call of a builtin or user function; names may contain dots (`as.scalar`).
    Call {
        name: String,
        args: Vec<Arg>,
    },
    /// Right indexing `X[rows, cols]`; `X[i]` on its own is `rows = i, cols = All`.
    Index {
        target: Box<Expr>,
        rows: Index,
        cols: Index,
    },
    /// `[a, b, c]`: the cells of a row vector, as in `matrix([i, j], rows=1, cols=2)`.
    Vector(Vec<Expr>),
}

/// One call argument, positional (`name: None`) or named (`rows=10`).
#[derive(Clone, Debug, PartialEq)]
pub struct Arg {
    pub name: Option<String>,
    pub value: Expr,
}

/// One dimension of an indexing expression. Indices are 1-based and ranges inclusive,
/// as in DML.
#[derive(Clone, Debug, PartialEq)]
pub enum Index {
    /// Empty position: `X[, j]`.
    All,
    /// `X[i, ...]`
    Single(Box<Expr>),
    /// `X[a:b, ...]`
    Range(Box<Expr>, Box<Expr>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    Neg,
    Plus,
    Not,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    Div,
    Pow,
    /// `%*%`
    MatMul,
    /// `%%`
    Mod,
    /// `%/%`
    IntDiv,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
}

impl BinaryOp {
    /// The operator as written in DML.
    pub fn symbol(self) -> &'static str {
        match self {
            BinaryOp::Add => "+",
            BinaryOp::Sub => "-",
            BinaryOp::Mul => "*",
            BinaryOp::Div => "/",
            BinaryOp::Pow => "^",
            BinaryOp::MatMul => "%*%",
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
}
