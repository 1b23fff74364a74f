//! Linear-algebra expressions: what the optimizer takes in and gives back.
//!
//! An [`LaExpr`] is a tree over named inputs. [`ShapeEnv`] says what each input is (a
//! matrix of some [`Dim`] × [`Dim`], or a scalar) and, optionally, how many non-zeros it
//! has. [`ShapeEnv::shape_of`] checks an expression with DML's rules, including
//! broadcasting of scalars and row/column vectors.
//!
//! A dimension of size 1 is special throughout the optimizer: it carries no index in the
//! relational translation (a column vector `v` is the relation `v(i)`, a 1×1 matrix or a
//! scalar is a relation with no attributes). That is what makes broadcasting (`X * v`)
//! a plain natural join, and it is how SystemDS treats 1×1 matrices as scalars.
//!
//! ```
//! use spores_opt::la::{Dim, LaExpr, ShapeEnv};
//! let e = LaExpr::parse("sum((X - U %*% t(V))^2)").unwrap();
//! let mut env = ShapeEnv::default();
//! env.matrix("X", Dim::sym("m"), Dim::sym("n"));
//! env.matrix("U", Dim::sym("m"), Dim::Known(10));
//! env.matrix("V", Dim::sym("n"), Dim::Known(10));
//! assert_eq!(env.shape_of(&e).unwrap(), (Dim::Known(1), Dim::Known(1)));
//! assert_eq!(e.to_string(), "sum((X - U %*% t(V))^2)");
//! ```

use std::collections::HashMap;
use std::fmt;

use spores_lang::ast::{self, Expr, ExprKind};
use spores_lang::diag::{Diagnostic, Span};

mod sizes;
pub use sizes::SizeForm;

/// A linear-algebra expression.
#[derive(Clone, Debug, PartialEq)]
pub enum LaExpr {
    /// A named input: a matrix, a vector or a scalar, as its [`ShapeEnv`] entry says.
    Var(String),
    /// A scalar constant.
    Const(f64),
    /// Elementwise `+` with broadcasting.
    Add(Box<LaExpr>, Box<LaExpr>),
    /// Elementwise `-` with broadcasting.
    Sub(Box<LaExpr>, Box<LaExpr>),
    /// Elementwise `*` with broadcasting.
    Mul(Box<LaExpr>, Box<LaExpr>),
    /// `%*%`
    MatMul(Box<LaExpr>, Box<LaExpr>),
    /// `t(A)`
    Transpose(Box<LaExpr>),
    /// Unary minus.
    Neg(Box<LaExpr>),
    /// `sum(A)`: all cells, giving a scalar.
    Sum(Box<LaExpr>),
    /// `rowSums(A)`: an m×1 column vector.
    RowSums(Box<LaExpr>),
    /// `colSums(A)`: a 1×n row vector.
    ColSums(Box<LaExpr>),
    /// `matrix(v, rows, cols)` of a scalar `v`: every cell is `v`. Parsing gives the call as
    /// written (a [`LaExpr::Func`] `matrix` whose sizes may be `nrow(X)`); [`LaExpr::resolve`]
    /// turns it into this, with the sizes as dimensions.
    Fill(Box<LaExpr>, Dim, Dim),
    /// `A ^ k` for a constant exponent. A non-negative integer `k` has a sum-product
    /// meaning (a product of `k` factors); any other exponent is opaque.
    Pow(Box<LaExpr>, f64),
    /// Any other function, opaque to the sum-product rules: `exp`, `log`, `/`,
    /// comparisons, `min`/`max`, user functions. Elementwise functions of one or more
    /// same-shaped (or broadcast) arguments, except the aggregating builtins (`min`, `max`, `mean` of one argument, `rowMeans`, ...)
    /// whose shapes [`ShapeEnv::shape_of`] knows.
    Func { name: String, args: Vec<LaExpr> },
}

/// The value of an expression of numbers alone (`2^3`, `-1`, `1/2`), when it is finite.
fn number(e: &LaExpr) -> Option<f64> {
    use LaExpr::*;
    let value = match e {
        Const(c) => *c,
        Neg(x) => -number(x)?,
        Add(x, y) => number(x)? + number(y)?,
        Sub(x, y) => number(x)? - number(y)?,
        Mul(x, y) => number(x)? * number(y)?,
        Pow(x, k) => number(x)?.powf(*k),
        Func { name, args } => match (name.as_str(), args.as_slice()) {
            ("/", [x, y]) => number(x)? / number(y)?,
            ("^", [x, y]) => number(x)?.powf(number(y)?),
            _ => return None,
        },
        _ => return None,
    };
    value.is_finite().then_some(value)
}

/// A malformed `--shape NAME=ROWSxCOLS` or `--nnz NAME=N` argument
/// ([`ShapeEnv::add_shape_arg`], [`ShapeEnv::add_nnz_arg`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum InputArgError {
    /// A `--shape` argument without `=`.
    #[error("expected NAME=ROWSxCOLS, got `{arg}`")]
    NoShape { arg: String },
    /// A `--shape` argument without `x` between the sizes.
    #[error("expected ROWSxCOLS in `{arg}`")]
    NoRowsCols { arg: String },
    /// A size that is neither a number nor a symbol; `rows` says which.
    #[error("bad {} size `{size}` in `{arg}`", if *rows { "row" } else { "column" })]
    BadSize {
        rows: bool,
        size: String,
        arg: String,
    },
    /// A `--nnz` argument without `=`.
    #[error("expected NAME=N for --nnz, got `{arg}`")]
    NoNnz { arg: String },
    /// A `--nnz` count that is not a non-negative number.
    #[error("--nnz {name}: `{value}` is not a non-negative number")]
    BadNnz { name: String, value: String },
    /// A `--nnz` for an input whose shape was not given before.
    #[error("--nnz {name}: give its shape with --shape {name}=ROWSxCOLS first")]
    NnzBeforeShape { name: String },
}

/// One dimension of a matrix: a known size or a symbol that stands for any size > 1.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Dim {
    Known(usize),
    Sym(String),
}

impl Dim {
    pub fn sym(name: &str) -> Dim {
        Dim::Sym(name.to_string())
    }

    /// Whether this dimension is exactly 1 (and so carries no index).
    pub fn is_one(&self) -> bool {
        *self == Dim::Known(1)
    }

    /// Parses `10` or `m`.
    pub fn parse(text: &str) -> Option<Dim> {
        let text = text.trim();
        if let Ok(n) = text.parse::<usize>() {
            return Some(Dim::Known(n));
        }
        let valid = text
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && text.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        valid.then(|| Dim::Sym(text.to_string()))
    }
}

impl fmt::Display for Dim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Dim::Known(n) => write!(f, "{n}"),
            Dim::Sym(s) => f.write_str(s),
        }
    }
}

/// Rows and columns.
pub type Shape = (Dim, Dim);

/// The name of right indexing as a [`LaExpr::Func`]: `X[a:b, c]` is `index(X, a, b, c, c)`,
/// and an empty position (`X[, c]`) has the bounds `0, 0` (DML counts from 1).
pub const INDEX: &str = "index";

/// The size of one side of `target[lo:hi, ...]` whose `side` has size `size`: all of it
/// for `0:0`, else `hi - lo + 1` for numbers within it, or for size expressions provably
/// within it ([`ShapeEnv::size_form`]: `1:nrow(A)`, `(k+1):m` with a cut `k`).
fn index_dim(
    env: &ShapeEnv,
    target: &LaExpr,
    side: &str,
    size: &Dim,
    lo: &LaExpr,
    hi: &LaExpr,
) -> Result<Dim, ShapeError> {
    match (lo, hi) {
        (LaExpr::Const(a), LaExpr::Const(b)) if *a == 0.0 && *b == 0.0 => Ok(size.clone()),
        (LaExpr::Const(a), LaExpr::Const(b)) => {
            let (a, b) = (a.trunc(), b.trunc());
            let beyond = matches!(size, Dim::Known(n) if b > *n as f64);
            if a < 1.0 || b < a || beyond {
                return Err(ShapeError(format!(
                    "{target}[...]: {side} {a}:{b} are not within its {size} {side}"
                )));
            }
            Ok(Dim::Known((b - a) as usize + 1))
        }
        _ => env.symbolic_span(size, lo, hi).ok_or_else(|| {
            ShapeError(format!(
                "{target}[...]: the {side} `{lo}:{hi}` are neither numbers nor sizes that stay \
                 within its {size} {side} for every size (a cut point is declared with \
                 `--size k<m`)"
            ))
        }),
    }
}

/// The values of DML's `seq(from, to)` or `seq(from, to, by)` with number arguments, as
/// `spores run` computes them (`by` is 1, or -1 when `from > to`).
pub fn seq_values(args: &[LaExpr]) -> Result<Vec<f64>, String> {
    let number = |e: &LaExpr| match e {
        LaExpr::Const(c) => Some(*c),
        LaExpr::Neg(inner) => match inner.as_ref() {
            LaExpr::Const(c) => Some(-c),
            _ => None,
        },
        _ => None,
    };
    let numbers: Option<Vec<f64>> = args.iter().map(number).collect();
    let (from, to, by) = match numbers.as_deref() {
        Some(&[from, to]) => (from, to, if from <= to { 1.0 } else { -1.0 }),
        Some(&[from, to, by]) => (from, to, by),
        _ => {
            return Err(format!(
                "seq takes (from, to) or (from, to, by) as numbers, not ({})",
                args.iter()
                    .map(|a| a.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        }
    };
    match spores_exec::kernels::structural::seq(from, to, by) {
        Ok(m) => Ok((0..m.rows()).map(|i| m.get(i, 0)).collect()),
        Err(e) => Err(e.to_string()),
    }
}

/// `a + b` as a dimension: a number when both are, else a symbol naming the sum (a
/// symbol stands for any size, so facts proved for it hold for the sum too).
pub fn add_dims(a: &Dim, b: &Dim) -> Dim {
    match (a, b) {
        (Dim::Known(x), Dim::Known(y)) => Dim::Known(x + y),
        _ => Dim::Sym(format!("{a}+{b}")),
    }
}

fn show(shape: &Shape) -> String {
    format!("{}x{}", shape.0, shape.1)
}

/// What the optimizer knows about the inputs.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ShapeEnv {
    /// Shape of each matrix input; scalars are `1x1`.
    pub shapes: HashMap<String, Shape>,
    /// Number of non-zeros of inputs where known; an input without an entry is dense.
    pub nnz: HashMap<String, f64>,
    /// Inputs positive in every cell (`spores equiv --positive A`): the domain in which
    /// `log(A)`, `sqrt(A)` and `A / A` are what they are for numbers.
    pub positive: std::collections::BTreeSet<String>,
    /// Cut points, each with the symbolic dimension it cuts (`spores equiv --size k<m`:
    /// `k` is every size with `1 <= k < m`).
    pub cuts: std::collections::BTreeMap<String, String>,
    /// Inputs that are DML scalars, not `1x1` matrices: a product of two scalars is
    /// IEEE's (`0 * Inf` is NaN), a product with a matrix cell skips a zero factor.
    pub scalars: std::collections::BTreeSet<String>,
}

impl ShapeEnv {
    pub fn matrix(&mut self, name: &str, rows: Dim, cols: Dim) -> &mut Self {
        self.shapes.insert(name.to_string(), (rows, cols));
        self
    }

    pub fn scalar(&mut self, name: &str) -> &mut Self {
        self.scalars.insert(name.to_string());
        self.matrix(name, Dim::Known(1), Dim::Known(1))
    }

    pub fn set_nnz(&mut self, name: &str, nnz: f64) -> &mut Self {
        self.nnz.insert(name.to_string(), nnz);
        self
    }

    /// The inputs of `args`, each `NAME=ROWSxCOLS` as `--shape` takes it (see
    /// [`ShapeEnv::add_shape_arg`]), all dense.
    ///
    /// ```
    /// use spores_opt::la::{Dim, ShapeEnv};
    ///
    /// let env = ShapeEnv::with_shapes(&["X=mxn", "v=nx1"]).unwrap();
    /// assert_eq!(env.shapes["v"], (Dim::Sym("n".into()), Dim::Known(1)));
    /// assert!(ShapeEnv::with_shapes(&["X=m"]).is_err());
    /// ```
    pub fn with_shapes(args: &[&str]) -> Result<ShapeEnv, InputArgError> {
        let mut env = ShapeEnv::default();
        for arg in args {
            env.add_shape_arg(arg)?;
        }
        Ok(env)
    }

    /// Parses `NAME=ROWSxCOLS` (sizes are numbers or symbols), as `--shape` takes it.
    pub fn add_shape_arg(&mut self, arg: &str) -> Result<(), InputArgError> {
        let whole = || arg.to_string();
        let (name, dims) = arg
            .split_once('=')
            .ok_or_else(|| InputArgError::NoShape { arg: whole() })?;
        let (r, c) = dims
            .split_once(['x', 'X'])
            .ok_or_else(|| InputArgError::NoRowsCols { arg: whole() })?;
        let bad = |rows: bool, size: &str| InputArgError::BadSize {
            rows,
            size: size.to_string(),
            arg: whole(),
        };
        let rows = Dim::parse(r).ok_or_else(|| bad(true, r))?;
        let cols = Dim::parse(c).ok_or_else(|| bad(false, c))?;
        self.matrix(name.trim(), rows, cols);
        Ok(())
    }

    /// Parses `NAME=N`, as `--nnz` takes it: a non-negative number of non-zeros for an
    /// input whose shape is already given.
    pub fn add_nnz_arg(&mut self, arg: &str) -> Result<(), InputArgError> {
        let (name, n) = arg.split_once('=').ok_or_else(|| InputArgError::NoNnz {
            arg: arg.to_string(),
        })?;
        let n: f64 = n
            .trim()
            .parse()
            .ok()
            .filter(|n: &f64| *n >= 0.0 && n.is_finite())
            .ok_or_else(|| InputArgError::BadNnz {
                name: name.to_string(),
                value: n.to_string(),
            })?;
        if !self.shapes.contains_key(name) {
            return Err(InputArgError::NnzBeforeShape {
                name: name.to_string(),
            });
        }
        self.set_nnz(name, n);
        Ok(())
    }

    /// The shape of an expression under DML's rules, or an error naming the offending
    /// operator and both shapes.
    pub fn shape_of(&self, e: &LaExpr) -> Result<Shape, ShapeError> {
        use LaExpr::*;
        let one = || Dim::Known(1);
        Ok(match e {
            Var(name) => self
                .shapes
                .get(name)
                .cloned()
                .ok_or_else(|| ShapeError(format!("no shape given for `{name}`")))?,
            Const(_) => (one(), one()),
            Add(a, b) | Sub(a, b) | Mul(a, b) => {
                broadcast(e.op_symbol(), self.shape_of(a)?, self.shape_of(b)?)?
            }
            MatMul(a, b) => {
                let (sa, sb) = (self.shape_of(a)?, self.shape_of(b)?);
                if sa.1 != sb.0 {
                    return Err(ShapeError(format!(
                        "%*%: left is {}, right is {}: inner dimensions differ",
                        show(&sa),
                        show(&sb)
                    )));
                }
                (sa.0, sb.1)
            }
            Transpose(a) => {
                let (r, c) = self.shape_of(a)?;
                (c, r)
            }
            Neg(a) | Pow(a, _) => self.shape_of(a)?,
            Sum(a) => {
                self.shape_of(a)?;
                (one(), one())
            }
            RowSums(a) => (self.shape_of(a)?.0, one()),
            ColSums(a) => (one(), self.shape_of(a)?.1),
            Fill(v, r, c) => {
                let sv = self.shape_of(v)?;
                if !(sv.0.is_one() && sv.1.is_one()) {
                    return Err(ShapeError(format!(
                        "matrix(v, rows, cols): v is {}, not a scalar",
                        show(&sv)
                    )));
                }
                (r.clone(), c.clone())
            }
            Func { name, args } if name == "matrix" => match args.as_slice() {
                [v, r, c] => self.shape_of(&Fill(
                    Box::new(v.clone()),
                    self.dim_arg(r)?,
                    self.dim_arg(c)?,
                ))?,
                _ => return Err(ShapeError("matrix takes (v, rows, cols)".into())),
            },
            Func { name, args } if name == INDEX && args.len() == 5 => {
                let (rows, cols) = self.shape_of(&args[0])?;
                let target = &args[0];
                (
                    index_dim(self, target, "rows", &rows, &args[1], &args[2])?,
                    index_dim(self, target, "columns", &cols, &args[3], &args[4])?,
                )
            }
            Func { name, args } if (name == "cbind" || name == "rbind") && args.len() == 2 => {
                let (a, b) = (self.shape_of(&args[0])?, self.shape_of(&args[1])?);
                let (same, joined) = if name == "cbind" {
                    ((&a.0, &b.0), (&a.1, &b.1))
                } else {
                    ((&a.1, &b.1), (&a.0, &b.0))
                };
                if same.0 != same.1 {
                    let what = if name == "cbind" { "rows" } else { "columns" };
                    return Err(ShapeError(format!(
                        "{name}: left is {}, right is {}: the numbers of {what} differ",
                        show(&a),
                        show(&b)
                    )));
                }
                let total = self.add_dims(joined.0, joined.1);
                if name == "cbind" {
                    (a.0, total)
                } else {
                    (total, a.1)
                }
            }
            Func { name, args } if name == "seq" => match seq_values(args) {
                Ok(values) => (Dim::Known(values.len()), one()),
                Err(message) => (
                    self.symbolic_seq(args)
                        .ok_or_else(|| {
                            ShapeError(format!(
                                "{message}, or as sizes that make a whole number of steps of \
                                 the step's sign for every size"
                            ))
                        })?
                        .0,
                    one(),
                ),
            },
            Func { name, args } if name == "diag" && args.len() == 1 => {
                let (r, c) = self.shape_of(&args[0])?;
                if c.is_one() {
                    (r.clone(), r)
                } else if r == c {
                    (r, one())
                } else {
                    return Err(ShapeError(format!(
                        "diag: the argument is {r}x{c}, neither a column vector nor square"
                    )));
                }
            }
            Func { name, args } => {
                let shapes = args
                    .iter()
                    .map(|a| self.shape_of(a))
                    .collect::<Result<Vec<_>, _>>()?;
                // Aggregating builtins: DML's one-argument min/max/mean are full aggregates.
                if let [(rows, cols)] = shapes.as_slice() {
                    match name.as_str() {
                        "min" | "max" | "prod" | "mean" | "var" | "sd" | "as.scalar" | "trace"
                        | "nrow" | "ncol" | "length" => return Ok((one(), one())),
                        "rowMeans" | "rowMaxs" | "rowMins" | "rowProds" | "rowIndexMax"
                        | "rowIndexMin" => return Ok((rows.clone(), one())),
                        "colMeans" | "colMaxs" | "colMins" | "colProds" => {
                            return Ok((one(), cols.clone()))
                        }
                        _ => {}
                    }
                }
                let mut iter = shapes.into_iter();
                let first = iter.next().unwrap_or((one(), one()));
                iter.try_fold(first, |acc, s| broadcast(name, acc, s))?
            }
        })
    }
}

impl ShapeEnv {
    /// Whether some input has the symbolic dimension `name`, or `name` is a cut point
    /// (`--size k<m`) or the rest of a cut dimension.
    pub fn has_symbol(&self, name: &str) -> bool {
        self.shapes
            .values()
            .any(|(r, c)| [r, c].iter().any(|d| matches!(d, Dim::Sym(s) if s == name)))
            || self.cuts.contains_key(name)
            || self.is_rest(name)
    }

    /// `a + b` as a dimension: [`add_dims`], except that a cut and its rest make the
    /// dimension they cut (`k + (m-k)` is `m`).
    pub fn add_dims(&self, a: &Dim, b: &Dim) -> Dim {
        let sum = self.dim_form(a).plus(&self.dim_form(b));
        self.dim_of_form(&sum).unwrap_or_else(|| add_dims(a, b))
    }

    /// The dimension a size argument of `matrix(v, rows, cols)` stands for: a
    /// non-negative integer, a symbol (any name that is not a matrix input), `nrow(A)` or
    /// `ncol(A)`.
    pub fn dim_arg(&self, e: &LaExpr) -> Result<Dim, ShapeError> {
        let bad = || {
            ShapeError(format!(
                "matrix(v, rows, cols): the size `{e}` is not a number, a symbol, nrow(X) or ncol(X)"
            ))
        };
        match e {
            LaExpr::Const(k) if *k >= 0.0 && k.fract() == 0.0 => Ok(Dim::Known(*k as usize)),
            LaExpr::Var(name) => match self.shapes.get(name) {
                Some((r, c)) if !(r.is_one() && c.is_one()) => Err(bad()),
                _ => Ok(Dim::Sym(name.clone())),
            },
            LaExpr::Func { name, args } if args.len() == 1 && name == "nrow" => {
                Ok(self.shape_of(&args[0])?.0)
            }
            LaExpr::Func { name, args } if args.len() == 1 && name == "ncol" => {
                Ok(self.shape_of(&args[0])?.1)
            }
            _ => self
                .size_form(e)
                .filter(|f| self.never_negative(f))
                .and_then(|f| self.dim_of_form(&f))
                .ok_or_else(bad),
        }
    }
}

/// The result shape of an elementwise operator under DML broadcasting: equal shapes; a
/// 1×1 side broadcasts everywhere; a row (1×n) or column (m×1) vector broadcasts along
/// the other side; a column vector with a row vector gives the outer m×n shape.
pub fn broadcast(op: &str, a: Shape, b: Shape) -> Result<Shape, ShapeError> {
    let is_one = |d: &Dim| d.is_one();
    let fit = |x: &Dim, y: &Dim| x == y || is_one(x) || is_one(y);
    let pick = |x: &Dim, y: &Dim| if is_one(x) { y.clone() } else { x.clone() };
    if fit(&a.0, &b.0) && fit(&a.1, &b.1) {
        let outer_ok = a == b
            || (is_one(&a.0) && is_one(&a.1))
            || (is_one(&b.0) && is_one(&b.1))
            || (a.0 == b.0 && (is_one(&a.1) || is_one(&b.1)))
            || (a.1 == b.1 && (is_one(&a.0) || is_one(&b.0)))
            || (is_one(&a.1) && is_one(&b.0));
        if outer_ok {
            return Ok((pick(&a.0, &b.0), pick(&a.1, &b.1)));
        }
    }
    Err(ShapeError(format!(
        "{op}: left is {}, right is {}: shapes do not broadcast",
        show(&a),
        show(&b)
    )))
}

/// A shape error, naming the operator and both shapes.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct ShapeError(pub String);

impl LaExpr {
    /// Parses a DML expression (`sum((X - U %*% t(V))^2)`). Constructs outside the LA
    /// subset become opaque [`LaExpr::Func`]s; a syntax error is a [`Diagnostic`].
    pub fn parse(text: &str) -> Result<LaExpr, Diagnostic> {
        let expr = spores_lang::parse_expr(text)?;
        LaExpr::from_ast(&expr)
    }

    /// Converts a parsed DML expression.
    pub fn from_ast(e: &Expr) -> Result<LaExpr, Diagnostic> {
        let unsupported = |what: &str, span: Span| {
            Diagnostic::new(
                format!("{what} is not supported in an optimizer expression"),
                span,
            )
        };
        let b = |x: LaExpr| Box::new(x);
        Ok(match &e.kind {
            ExprKind::Int(v) => LaExpr::Const(*v as f64),
            ExprKind::Double(v) => LaExpr::Const(*v),
            ExprKind::Bool(v) => LaExpr::Const(if *v { 1.0 } else { 0.0 }),
            ExprKind::Var(name) => LaExpr::Var(name.clone()),
            ExprKind::Str(_) => return Err(unsupported("a string", e.span)),
            ExprKind::CmdArg(_) => return Err(unsupported("a `$` argument", e.span)),
            ExprKind::Index { target, rows, cols } => {
                // `X[a:b, c]` is `index(X, a, b, c, c)`; an empty position is `0, 0`.
                let bounds = |i: &ast::Index| -> Result<[LaExpr; 2], Diagnostic> {
                    Ok(match i {
                        ast::Index::All => [LaExpr::Const(0.0), LaExpr::Const(0.0)],
                        ast::Index::Single(x) => {
                            let x = LaExpr::from_ast(x)?;
                            [x.clone(), x]
                        }
                        ast::Index::Range(a, b) => [LaExpr::from_ast(a)?, LaExpr::from_ast(b)?],
                    })
                };
                let [rl, ru] = bounds(rows)?;
                let [cl, cu] = bounds(cols)?;
                LaExpr::Func {
                    name: INDEX.into(),
                    args: vec![LaExpr::from_ast(target)?, rl, ru, cl, cu],
                }
            }
            ExprKind::Vector(_) => return Err(unsupported("a list of values `[...]`", e.span)),
            ExprKind::Unary { op, expr } => {
                let inner = LaExpr::from_ast(expr)?;
                match op {
                    ast::UnaryOp::Neg => LaExpr::Neg(b(inner)),
                    ast::UnaryOp::Plus => inner,
                    ast::UnaryOp::Not => LaExpr::Func {
                        name: "!".into(),
                        args: vec![inner],
                    },
                }
            }
            ExprKind::Binary { op, lhs, rhs } => {
                let (l, r) = (LaExpr::from_ast(lhs)?, LaExpr::from_ast(rhs)?);
                match op {
                    ast::BinaryOp::Add => LaExpr::Add(b(l), b(r)),
                    ast::BinaryOp::Sub => LaExpr::Sub(b(l), b(r)),
                    ast::BinaryOp::Mul => LaExpr::Mul(b(l), b(r)),
                    ast::BinaryOp::MatMul => LaExpr::MatMul(b(l), b(r)),
                    ast::BinaryOp::Pow => match r {
                        LaExpr::Const(k) => LaExpr::Pow(b(l), k),
                        // A number written as an expression (`X^2^3` is `X^(2^3)`, `X^-1`).
                        other if other.vars().is_empty() && number(&other).is_some() => {
                            LaExpr::Pow(b(l), number(&other).unwrap_or_default())
                        }
                        other => LaExpr::Func {
                            name: "^".into(),
                            args: vec![l, other],
                        },
                    },
                    other => LaExpr::Func {
                        name: other.symbol().into(),
                        args: vec![l, r],
                    },
                }
            }
            ExprKind::Call { name, args } if name == "matrix" => {
                LaExpr::from_matrix_call(args, e.span)?
            }
            ExprKind::Call { name, args } if name == "outer" => {
                LaExpr::from_outer_call(args, e.span)?
            }
            ExprKind::Call { name, args } => {
                if let Some(named) = args.iter().find(|a| a.name.is_some()) {
                    return Err(unsupported("a named argument", named.value.span));
                }
                let args = args
                    .iter()
                    .map(|a| LaExpr::from_ast(&a.value))
                    .collect::<Result<Vec<_>, _>>()?;
                let one = |args: Vec<LaExpr>| -> Result<Box<LaExpr>, Diagnostic> {
                    match <[LaExpr; 1]>::try_from(args) {
                        Ok([x]) => Ok(Box::new(x)),
                        Err(_) => Err(Diagnostic::new(
                            format!("`{name}` takes one argument"),
                            e.span,
                        )),
                    }
                };
                match name.as_str() {
                    "t" => LaExpr::Transpose(one(args)?),
                    "sum" => LaExpr::Sum(one(args)?),
                    "rowSums" => LaExpr::RowSums(one(args)?),
                    "colSums" => LaExpr::ColSums(one(args)?),
                    // `cbind(a, b, c)` is `cbind(cbind(a, b), c)`: every rule sees two parts.
                    "cbind" | "rbind" if args.len() > 2 => {
                        let mut parts = args.into_iter();
                        let first = parts.next().expect("more than two arguments");
                        parts.fold(first, |joined, next| LaExpr::Func {
                            name: name.clone(),
                            args: vec![joined, next],
                        })
                    }
                    _ => LaExpr::Func {
                        name: name.clone(),
                        args,
                    },
                }
            }
        })
    }

    /// `matrix(v, rows, cols)`, its arguments by position or by name (`rows=`, `cols=`,
    /// `data=`; `byrow` is accepted and ignored, since every cell holds the same `v`).
    fn from_matrix_call(args: &[ast::Arg], span: Span) -> Result<LaExpr, Diagnostic> {
        const PARAMS: [&str; 4] = ["data", "rows", "cols", "byrow"];
        let mut given: [Option<&Expr>; 4] = [None; 4];
        for (pos, arg) in args.iter().enumerate() {
            let slot = match &arg.name {
                Some(n) => PARAMS.iter().position(|p| p == n).ok_or_else(|| {
                    Diagnostic::new(format!("matrix has no parameter `{n}`"), arg.value.span)
                })?,
                None if pos < PARAMS.len() => pos,
                None => return Err(Diagnostic::new("matrix takes at most 4 arguments", span)),
            };
            if given[slot].replace(&arg.value).is_some() {
                return Err(Diagnostic::new(
                    format!("matrix: `{}` given twice", PARAMS[slot]),
                    arg.value.span,
                ));
            }
        }
        let mut take = |k: usize| -> Result<LaExpr, Diagnostic> {
            let value = given[k]
                .take()
                .ok_or_else(|| Diagnostic::new(format!("matrix needs `{}`", PARAMS[k]), span))?;
            LaExpr::from_ast(value)
        };
        Ok(LaExpr::Func {
            name: "matrix".into(),
            args: vec![take(0)?, take(1)?, take(2)?],
        })
    }

    /// `outer(u, v, "op")`: the column vector `u` against the row vector `v`, which is
    /// exactly the broadcast `u op v`.
    fn from_outer_call(args: &[ast::Arg], span: Span) -> Result<LaExpr, Diagnostic> {
        if let Some(named) = args.iter().find(|a| a.name.is_some()) {
            return Err(Diagnostic::new(
                "a named argument is not supported in outer(u, v, op)",
                named.value.span,
            ));
        }
        let [u, v, op] = args else {
            return Err(Diagnostic::new("outer takes (u, v, op)", span));
        };
        let ExprKind::Str(op_text) = &op.value.kind else {
            return Err(Diagnostic::new(
                "outer: the operator must be a string such as \"*\"",
                op.value.span,
            ));
        };
        let (u, v) = (
            Box::new(LaExpr::from_ast(&u.value)?),
            Box::new(LaExpr::from_ast(&v.value)?),
        );
        Ok(match op_text.as_str() {
            "+" => LaExpr::Add(u, v),
            "-" => LaExpr::Sub(u, v),
            "*" => LaExpr::Mul(u, v),
            "^" => LaExpr::Func {
                name: "^".into(),
                args: vec![*u, *v],
            },
            other => {
                let known = [
                    "/", "min", "max", "%%", "%/%", "==", "!=", "<", "<=", ">", ">=", "&", "|",
                ];
                if !known.contains(&other) {
                    return Err(Diagnostic::new(
                        format!("outer: unknown operator \"{other}\""),
                        op.value.span,
                    ));
                }
                LaExpr::Func {
                    name: other.into(),
                    args: vec![*u, *v],
                }
            }
        })
    }

    /// The expression with every sum-product construct that has a core meaning spelled
    /// out, under the shapes in `env`: a name without a shape that is a symbolic
    /// dimension of some input is that size; `matrix(v, rows, cols)` becomes [`LaExpr::Fill`];
    /// `nrow(A)`, `ncol(A)`, `length(A)` become their sizes (a constant, or `sum` of a
    /// fill of ones for a symbolic size, whose canonical form is that size); `mean`,
    /// `rowMeans`, `colMeans` become sums divided by the count; `as.matrix` and
    /// `as.scalar` of a 1×1 value disappear; a fill of a scalar that an elementwise
    /// operator broadcasts anyway becomes the scalar. Every other call stays as it is.
    pub fn resolve(&self, env: &ShapeEnv) -> Result<LaExpr, ShapeError> {
        self.resolve_with(env, false)
    }

    /// [`LaExpr::resolve`] that keeps which values are DML scalars and which `1 x 1`
    /// matrices: `as.scalar`, `as.matrix` and `1 x 1` fills stay. Their products differ
    /// where a factor is 0 and the other NaN or infinite (`0 * Inf` is NaN between
    /// scalars, 0 in a matrix cell).
    pub fn resolve_keeping_kinds(&self, env: &ShapeEnv) -> Result<LaExpr, ShapeError> {
        self.resolve_with(env, true)
    }

    fn resolve_with(&self, env: &ShapeEnv, keep_kinds: bool) -> Result<LaExpr, ShapeError> {
        use LaExpr::*;
        let b = |x: LaExpr| Box::new(x);
        let r = |x: &LaExpr| x.resolve_with(env, keep_kinds);
        let size = |d: Dim| match d {
            Dim::Known(n) => Const(n as f64),
            sym => Sum(b(Fill(b(Const(1.0)), sym, Dim::Known(1)))),
        };
        let count = |a: &Dim, c: &Dim| match (a, c) {
            (Dim::Known(x), Dim::Known(y)) => Const((x * y) as f64),
            _ => Sum(b(Fill(b(Const(1.0)), a.clone(), c.clone()))),
        };
        let divide = |x: LaExpr, by: LaExpr| Func {
            name: "/".into(),
            args: vec![x, by],
        };
        Ok(match self {
            // A name without a shape that is a symbolic dimension is that size.
            Var(name) if !env.shapes.contains_key(name) && env.has_symbol(name) => {
                size(Dim::Sym(name.clone()))
            }
            Var(_) | Const(_) => self.clone(),
            Add(x, y) | Sub(x, y) | Mul(x, y) => {
                let (x, y) = (r(x)?, r(y)?);
                // The operands' shapes matter only to drop a fill (deriving them at every
                // node made resolving a sum of 4,000 terms quadratic); a mismatch is still
                // an error, from the whole expression's shape.
                let (x, y) = if matches!(x, Fill(..)) || matches!(y, Fill(..)) {
                    let shape = broadcast(self.op_symbol(), env.shape_of(&x)?, env.shape_of(&y)?)?;
                    let one_by_one = shape.0.is_one() && shape.1.is_one();
                    let unfill = |z: LaExpr| -> Result<LaExpr, ShapeError> {
                        match z {
                            Fill(v, rows, cols) if (rows.clone(), cols.clone()) == shape => Ok(*v),
                            other => Ok(other),
                        }
                    };
                    // Only one side may lose its fill: one of them must keep the shape.
                    match (&x, &y) {
                        _ if keep_kinds && one_by_one => (x, y),
                        (Fill(..), _) if env.shape_of(&y)? == shape => (unfill(x)?, y),
                        (_, Fill(..)) if env.shape_of(&x)? == shape => (x, unfill(y)?),
                        _ => (x, y),
                    }
                } else {
                    (x, y)
                };
                match self {
                    Add(..) => Add(b(x), b(y)),
                    Sub(..) => Sub(b(x), b(y)),
                    _ => Mul(b(x), b(y)),
                }
            }
            MatMul(x, y) => MatMul(b(r(x)?), b(r(y)?)),
            Transpose(x) => Transpose(b(r(x)?)),
            Neg(x) => Neg(b(r(x)?)),
            Sum(x) => Sum(b(r(x)?)),
            RowSums(x) => RowSums(b(r(x)?)),
            ColSums(x) => ColSums(b(r(x)?)),
            Pow(x, k) => Pow(b(r(x)?), *k),
            Fill(v, rows, cols) => Fill(b(r(v)?), rows.clone(), cols.clone()),
            Func { name, args } => match (name.as_str(), args.as_slice()) {
                ("matrix", [v, rows, cols]) => {
                    let fill = Fill(b(r(v)?), env.dim_arg(rows)?, env.dim_arg(cols)?);
                    env.shape_of(&fill)?;
                    fill
                }
                ("nrow", [a]) => size(env.shape_of(a)?.0),
                ("ncol", [a]) => size(env.shape_of(a)?.1),
                ("length", [a]) => {
                    let (rows, cols) = env.shape_of(a)?;
                    count(&rows, &cols)
                }
                ("mean", [a]) => {
                    let (rows, cols) = env.shape_of(a)?;
                    divide(Sum(b(r(a)?)), count(&rows, &cols))
                }
                ("rowMeans", [a]) => {
                    let cols = env.shape_of(a)?.1;
                    divide(RowSums(b(r(a)?)), size(cols))
                }
                // The sample variance of all cells, as `spores run` computes it, and its root:
                // 0 for one cell. Over a count that may be 1 or more (a slice up to a cut
                // point), neither formula holds for every size: the function stays.
                ("var" | "sd", [a]) => {
                    let (rows, cols) = env.shape_of(a)?;
                    let two_or_more = |d: &Dim| match d {
                        Dim::Known(n) => *n >= 2,
                        Dim::Sym(s) => SizeForm::parse(s)
                            .is_some_and(|f| env.never_negative(&f.minus(&SizeForm::number(2)))),
                    };
                    if !two_or_more(&rows) && !two_or_more(&cols) {
                        return Ok(match (&rows, &cols) {
                            (Dim::Known(1), Dim::Known(1)) => Const(0.0),
                            _ => Func {
                                name: name.clone(),
                                args: vec![r(a)?],
                            },
                        });
                    }
                    let n = count(&rows, &cols);
                    let a = r(a)?;
                    let mean = divide(Sum(b(a.clone())), n.clone());
                    let squares = Sum(b(Pow(b(Sub(b(a), b(mean))), 2.0)));
                    let var = divide(squares, Sub(b(n), b(Const(1.0))));
                    match name.as_str() {
                        "var" => var,
                        _ => Func {
                            name: "sqrt".into(),
                            args: vec![var],
                        },
                    }
                }
                // DML's parallel extremes are the cellwise two-argument `max` and `min`.
                ("pmax" | "pmin", [x, y]) => Func {
                    name: name[1..].to_string(),
                    args: vec![r(x)?, r(y)?],
                },
                // Running sums along each row are the running column sums of the transpose,
                // transposed back.
                ("rowcumsum", [a]) => Transpose(b(Func {
                    name: "cumsum".into(),
                    args: vec![Transpose(b(r(a)?))],
                })),
                // A logarithm to a base is the natural logarithm over that of the base, as
                // `spores run` computes it.
                ("log", [x, base]) => {
                    let ln = |z: LaExpr| Func {
                        name: "log".into(),
                        args: vec![z],
                    };
                    divide(ln(r(x)?), ln(r(base)?))
                }
                // DML's `xor` is `(a != 0) != (b != 0)`, cell by cell.
                ("xor", [x, y]) => {
                    let truth = |z: LaExpr| Func {
                        name: "!=".into(),
                        args: vec![z, Const(0.0)],
                    };
                    Func {
                        name: "!=".into(),
                        args: vec![truth(r(x)?), truth(r(y)?)],
                    }
                }
                ("colMeans", [a]) => {
                    let rows = env.shape_of(a)?.0;
                    divide(ColSums(b(r(a)?)), size(rows))
                }
                // Bounds that are size expressions become numbers where they are, and a
                // range over a whole side (`1:nrow(A)`) becomes the empty position.
                (INDEX, [x, bounds @ ..]) if bounds.len() == 4 => {
                    let x = r(x)?;
                    // A target without a shape is reported by the shape check, as written.
                    let (rows, cols) = env
                        .shape_of(&x)
                        .map(|(r, c)| (Some(r), Some(c)))
                        .unwrap_or((None, None));
                    let mut out = vec![x];
                    for (pair, size) in bounds.chunks(2).zip([rows, cols]) {
                        let (lo, hi) = (r(&pair[0])?, r(&pair[1])?);
                        let forms = (env.size_form(&lo), env.size_form(&hi), size);
                        let (Some(a), Some(z), Some(size)) = forms else {
                            out.extend([lo, hi]);
                            continue;
                        };
                        let whole =
                            a == SizeForm::number(1) && env.same_size(&z, &env.dim_form(&size));
                        match (a.as_number(), z.as_number()) {
                            _ if whole => out.extend([Const(0.0), Const(0.0)]),
                            (Some(a), Some(z)) => out.extend([Const(a as f64), Const(z as f64)]),
                            _ => out.extend([lo, hi]),
                        }
                    }
                    Func {
                        name: name.clone(),
                        args: out,
                    }
                }
                // A `seq` of sizes counts from 1 to its length, shifted (or flipped when
                // it counts down): `seq(k + 1, m)` is `k + seq(1, m - k)`.
                // A `seq` of sizes is a count from 1 to its length, stepped and shifted:
                // `seq(k + 1, m)` is `k + seq(1, m - k)`, `seq(m, 1)` is `m + 1 - seq(1, m)`.
                ("seq", [_, _] | [_, _, _]) => {
                    let args: Vec<LaExpr> = args.iter().map(r).collect::<Result<_, _>>()?;
                    let forms: Option<Vec<i64>> = args
                        .iter()
                        .map(|a| env.size_form(a).and_then(|f| f.as_number()))
                        .collect();
                    match (forms, env.symbolic_seq(&args)) {
                        (Some(numbers), _) => Func {
                            name: name.clone(),
                            args: numbers.into_iter().map(|n| Const(n as f64)).collect(),
                        },
                        (None, Some((length, by))) => {
                            let count = ShapeEnv::counting(&length);
                            let from = args[0].clone();
                            let starts_at_one = env.size_form(&from) == Some(SizeForm::number(1));
                            match by {
                                1 if starts_at_one => count,
                                1 => Add(b(Sub(b(from), b(Const(1.0)))), b(count)),
                                -1 => Sub(b(Add(b(from), b(Const(1.0)))), b(count)),
                                by => {
                                    let by = by as f64;
                                    let first = Sub(b(from), b(Const(by)));
                                    Add(b(first), b(Mul(b(Const(by)), b(count))))
                                }
                            }
                        }
                        (None, None) => Func {
                            name: name.clone(),
                            args,
                        },
                    }
                }
                ("as.matrix" | "as.scalar", [a]) if keep_kinds => Func {
                    name: name.clone(),
                    args: vec![r(a)?],
                },
                ("as.matrix", [a]) => r(a)?,
                ("as.scalar", [a]) => {
                    let (rows, cols) = env.shape_of(a)?;
                    if !(rows.is_one() && cols.is_one()) {
                        return Err(ShapeError(format!(
                            "as.scalar: the argument is {rows}x{cols}, not 1x1"
                        )));
                    }
                    r(a)?
                }
                _ => Func {
                    name: name.clone(),
                    args: args.iter().map(r).collect::<Result<_, _>>()?,
                },
            },
        })
    }

    /// The same expression with every symbolic dimension of a fill replaced by its size in
    /// `sizes` (for evaluating it on concrete inputs).
    pub fn with_sizes(&self, sizes: &std::collections::BTreeMap<String, usize>) -> LaExpr {
        let dim = |d: &Dim| match d {
            Dim::Sym(s) => sizes.get(s).map_or_else(|| d.clone(), |&n| Dim::Known(n)),
            known => known.clone(),
        };
        self.map(&|e| match e {
            LaExpr::Fill(v, r, c) => {
                Some(LaExpr::Fill(Box::new(v.with_sizes(sizes)), dim(r), dim(c)))
            }
            _ => None,
        })
    }

    /// Calls `f` on each direct child, left to right.
    pub fn for_each_child<'a>(&'a self, mut f: impl FnMut(&'a LaExpr)) {
        match self {
            LaExpr::Var(_) | LaExpr::Const(_) => {}
            LaExpr::Add(a, b) | LaExpr::Sub(a, b) | LaExpr::Mul(a, b) | LaExpr::MatMul(a, b) => {
                f(a);
                f(b);
            }
            LaExpr::Transpose(a)
            | LaExpr::Neg(a)
            | LaExpr::Sum(a)
            | LaExpr::RowSums(a)
            | LaExpr::ColSums(a)
            | LaExpr::Pow(a, _)
            | LaExpr::Fill(a, _, _) => f(a),
            LaExpr::Func { args, .. } => args.iter().for_each(f),
        }
    }

    /// Calls `f` on every node, parents before children.
    pub fn visit(&self, f: &mut dyn FnMut(&LaExpr)) {
        f(self);
        self.for_each_child(|c| c.visit(f));
    }

    /// Rebuilds the expression top-down, letting `f` replace any node (`Some`) before
    /// its children are visited; `None` keeps the node and maps its children.
    pub fn map(&self, f: &dyn Fn(&LaExpr) -> Option<LaExpr>) -> LaExpr {
        use LaExpr::*;
        if let Some(done) = f(self) {
            return done;
        }
        let m = |x: &LaExpr| Box::new(x.map(f));
        match self {
            Var(_) | Const(_) => self.clone(),
            Add(x, y) => Add(m(x), m(y)),
            Sub(x, y) => Sub(m(x), m(y)),
            Mul(x, y) => Mul(m(x), m(y)),
            MatMul(x, y) => MatMul(m(x), m(y)),
            Transpose(x) => Transpose(m(x)),
            Neg(x) => Neg(m(x)),
            Sum(x) => Sum(m(x)),
            RowSums(x) => RowSums(m(x)),
            ColSums(x) => ColSums(m(x)),
            Pow(x, k) => Pow(m(x), *k),
            Fill(v, r, c) => Fill(m(v), r.clone(), c.clone()),
            Func { name, args } => Func {
                name: name.clone(),
                args: args.iter().map(|a| a.map(f)).collect(),
            },
        }
    }

    fn op_symbol(&self) -> &'static str {
        match self {
            LaExpr::Add(..) => "+",
            LaExpr::Sub(..) => "-",
            LaExpr::Mul(..) => "*",
            LaExpr::MatMul(..) => "%*%",
            _ => "",
        }
    }

    /// The names of the inputs the expression reads, each once, in first-use order.
    pub fn vars(&self) -> Vec<String> {
        fn walk(e: &LaExpr, out: &mut Vec<String>) {
            match e {
                LaExpr::Var(v) => {
                    if !out.contains(v) {
                        out.push(v.clone());
                    }
                }
                // The sizes of a fill as written are symbols, not inputs (except inside
                // `nrow(X)`/`ncol(X)`).
                LaExpr::Func { name, args } if name == "matrix" && args.len() == 3 => {
                    walk(&args[0], out);
                    for size in &args[1..] {
                        if let LaExpr::Func { args, .. } = size {
                            args.iter().for_each(|a| walk(a, out));
                        }
                    }
                }
                _ => e.for_each_child(|c| walk(c, out)),
            }
        }
        let mut out = Vec::new();
        walk(self, &mut out);
        out
    }

    /// Binding strength for printing: higher binds tighter (R/DML precedence).
    fn precedence(&self) -> u8 {
        match self {
            LaExpr::Add(..) | LaExpr::Sub(..) => 1,
            LaExpr::Mul(..) => 2,
            LaExpr::MatMul(..) => 3,
            LaExpr::Neg(..) => 4,
            LaExpr::Pow(..) => 5,
            LaExpr::Func { name, args }
                if args.len() == 2 && !name.chars().next().is_some_and(char::is_alphabetic) =>
            {
                match name.as_str() {
                    "+" | "-" => 1,
                    "*" | "/" => 2,
                    "%%" | "%/%" => 3,
                    "^" => 5,
                    "&" => 0,
                    _ => 0,
                }
            }
            _ => 6,
        }
    }
}

impl fmt::Display for LaExpr {
    /// Prints DML that parses back to the same expression, with parentheses only where
    /// precedence needs them.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = self.precedence();
        // `left` operands may share the precedence (left associativity); `right` ones not.
        let side = |e: &LaExpr, min: u8| -> String {
            if e.precedence() < min || matches!(e, LaExpr::Const(c) if *c < 0.0) {
                format!("({e})")
            } else {
                e.to_string()
            }
        };
        match self {
            LaExpr::Var(v) => f.write_str(v),
            LaExpr::Const(c) => {
                if c.fract() == 0.0 && c.abs() < 1e15 {
                    write!(f, "{}", *c as i64)
                } else {
                    write!(f, "{c}")
                }
            }
            LaExpr::Add(a, b) => write!(f, "{} + {}", side(a, p), side(b, p + 1)),
            LaExpr::Sub(a, b) => write!(f, "{} - {}", side(a, p), side(b, p + 1)),
            LaExpr::Mul(a, b) => write!(f, "{} * {}", side(a, p), side(b, p + 1)),
            LaExpr::MatMul(a, b) => write!(f, "{} %*% {}", side(a, p), side(b, p + 1)),
            // `-(-x)`, not `--x`; `-X^2` needs no parentheses since `^` binds tighter.
            LaExpr::Neg(a) => write!(f, "-{}", side(a, p + 1)),
            LaExpr::Pow(a, k) => write!(f, "{}^{}", side(a, p + 1), LaExpr::Const(*k)),
            LaExpr::Transpose(a) => write!(f, "t({a})"),
            LaExpr::Sum(a) => write!(f, "sum({a})"),
            LaExpr::RowSums(a) => write!(f, "rowSums({a})"),
            LaExpr::ColSums(a) => write!(f, "colSums({a})"),
            LaExpr::Fill(v, r, c) => write!(f, "matrix({v}, rows={r}, cols={c})"),
            LaExpr::Func { name, args } if name == INDEX && args.len() == 5 => {
                let range = |lo: &LaExpr, hi: &LaExpr| match (lo, hi) {
                    (LaExpr::Const(a), LaExpr::Const(b)) if *a == 0.0 && *b == 0.0 => String::new(),
                    _ if lo == hi => lo.to_string(),
                    _ => format!("{}:{}", side(lo, 2), side(hi, 2)),
                };
                write!(
                    f,
                    "{}[{}, {}]",
                    side(&args[0], 6),
                    range(&args[1], &args[2]),
                    range(&args[3], &args[4])
                )
            }
            LaExpr::Func { name, args } => {
                if p < 6 && args.len() == 2 {
                    write!(f, "{} {name} {}", side(&args[0], p), side(&args[1], p + 1))
                } else if name == "!" && args.len() == 1 {
                    write!(f, "!{}", side(&args[0], 6))
                } else {
                    let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
                    write!(f, "{name}({})", args.join(", "))
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env() -> ShapeEnv {
        ShapeEnv::with_shapes(&["X=mxn", "U=mx10", "V=nx10", "u=mx1", "v=1xn", "s=1x1"]).unwrap()
    }

    #[test]
    fn printing_round_trips_through_the_parser() {
        for text in [
            "sum((X - U %*% t(V))^2)",
            "(U %*% t(V) - X) %*% V",
            "X * u + v - s",
            "-X^2",
            "(-X)^2",
            "X - (U %*% t(V) - X)",
            "colSums(X * exp(u)) / 2",
            "t(X) %*% (X %*% t(v))",
            "-(-X)",
            "-(X %*% U)",
        ] {
            let e = LaExpr::parse(text).unwrap();
            assert_eq!(e.to_string(), text);
            assert_eq!(LaExpr::parse(&e.to_string()).unwrap(), e);
        }
    }

    #[test]
    fn shapes_follow_dml_broadcasting() {
        let env = env();
        let shape = |t: &str| env.shape_of(&LaExpr::parse(t).unwrap()).map(|s| show(&s));
        assert_eq!(shape("X * u").unwrap(), "mxn");
        assert_eq!(shape("v - X").unwrap(), "mxn");
        assert_eq!(shape("u %*% v").unwrap(), "mxn");
        assert_eq!(shape("u * v").unwrap(), "mxn");
        assert_eq!(shape("s * X + 1").unwrap(), "mxn");
        assert_eq!(shape("rowSums(X) + u").unwrap(), "mx1");
        assert_eq!(shape("t(U) %*% X %*% V").unwrap(), "10x10");
        assert_eq!(shape("max(X) + mean(X)").unwrap(), "1x1");
        assert_eq!(shape("max(X, 0)").unwrap(), "mxn");
        assert_eq!(shape("rowMaxs(X)").unwrap(), "mx1");
        let err = shape("X %*% U").unwrap_err();
        assert!(err.0.contains("mxn") && err.0.contains("mx10"), "{err}");
        let err = shape("X + t(X)").unwrap_err();
        assert!(err.0.contains("mxn") && err.0.contains("nxm"), "{err}");
        assert!(shape("Y + X").unwrap_err().0.contains("`Y`"));
    }

    #[test]
    fn matrix_calls_resolve_to_fills_with_their_sizes() {
        let env = env();
        let resolve = |t: &str| LaExpr::parse(t).unwrap().resolve(&env);
        let fill = |v: f64, r: Dim, c: Dim| LaExpr::Fill(Box::new(LaExpr::Const(v)), r, c);
        assert_eq!(
            resolve("matrix(1, rows=1, cols=nrow(X))").unwrap(),
            fill(1.0, Dim::Known(1), Dim::sym("m"))
        );
        assert_eq!(
            resolve("matrix(0, nrow(X), ncol(X))").unwrap(),
            fill(0.0, Dim::sym("m"), Dim::sym("n"))
        );
        assert_eq!(
            resolve("matrix(cols=k, data=3, rows=2)").unwrap(),
            fill(3.0, Dim::Known(2), Dim::sym("k"))
        );
        // A fill an elementwise operator broadcasts anyway becomes its scalar.
        assert_eq!(
            resolve("X * matrix(2, rows=nrow(X), cols=ncol(X))").unwrap(),
            LaExpr::parse("X * 2").unwrap()
        );
        let shown = resolve("matrix(s, 1, ncol(X))").unwrap().to_string();
        assert_eq!(shown, "matrix(s, rows=1, cols=n)");
        assert_eq!(
            LaExpr::parse(&shown)
                .unwrap()
                .resolve(&env)
                .unwrap()
                .to_string(),
            shown
        );
        assert!(resolve("matrix(X, 1, 1)")
            .unwrap_err()
            .0
            .contains("not a scalar"));
        assert!(resolve("matrix(1, X, 1)")
            .unwrap_err()
            .0
            .contains("size `X`"));
        assert!(LaExpr::parse("matrix(1, rows=2, cols=3, foo=1)")
            .unwrap_err()
            .message
            .contains("foo"));
    }

    #[test]
    fn means_and_sizes_resolve_to_sums_and_counts() {
        let env = env();
        let resolve = |t: &str| LaExpr::parse(t).unwrap().resolve(&env).unwrap().to_string();
        assert_eq!(
            resolve("mean(U)"),
            "sum(U) / sum(matrix(1, rows=m, cols=10))"
        );
        assert_eq!(resolve("rowMeans(U)"), "rowSums(U) / 10");
        assert_eq!(
            resolve("colMeans(X) + nrow(X)"),
            "colSums(X) / sum(matrix(1, rows=m, cols=1)) + sum(matrix(1, rows=m, cols=1))"
        );
        assert_eq!(resolve("as.scalar(s) + as.matrix(X)"), "s + X");
        assert_eq!(resolve("outer(u, v, \"*\")"), "u * v");
        assert_eq!(
            env.shape_of(&LaExpr::parse("diag(u)").unwrap()).unwrap(),
            (Dim::sym("m"), Dim::sym("m"))
        );
        assert_eq!(
            env.shape_of(&LaExpr::parse("diag(u %*% t(u))").unwrap())
                .unwrap(),
            (Dim::sym("m"), Dim::Known(1))
        );
    }

    #[test]
    fn bad_shape_arguments_are_reported() {
        let mut env = ShapeEnv::default();
        assert!(env.add_shape_arg("X").is_err());
        assert!(env.add_shape_arg("X=3").is_err());
        assert!(env.add_shape_arg("X=3x-1").is_err());
        assert!(env.add_shape_arg("X=3xn").is_ok());
        let cases: [(Result<(), InputArgError>, &str); 4] = [
            (
                env.add_shape_arg("X=3x-1"),
                "bad column size `-1` in `X=3x-1`",
            ),
            (env.add_shape_arg("X=-1x3"), "bad row size `-1` in `X=-1x3`"),
            (
                env.add_nnz_arg("Y=3"),
                "--nnz Y: give its shape with --shape Y=ROWSxCOLS first",
            ),
            (
                env.add_nnz_arg("X=-3"),
                "--nnz X: `-3` is not a non-negative number",
            ),
        ];
        for (result, text) in cases {
            assert_eq!(result.unwrap_err().to_string(), text);
        }
    }
}
