//! The plan language shared by every stage (Galley Figure 4): an input [`Program`] of queries
//! over [`Expr`] trees, the [`LogicalPlan`] the logical optimizer produces (one aggregate per
//! query), and the [`PhysicalPlan`] the physical optimizer produces (loop order, output
//! formats, access protocols).
//!
//! ```
//! use spores_tensor::plan_ast::{Expr, Idx, MapOp, AggOp, Query};
//! // Y[i] = sigmoid(sum[j](X[i,j] * theta[j]))
//! let (i, j) = (Idx::new("i"), Idx::new("j"));
//! let body = Expr::map(MapOp::Mul, vec![
//!     Expr::input("X", vec![i.clone(), j.clone()]),
//!     Expr::input("theta", vec![j.clone()]),
//! ]);
//! let q = Query::new("Y", vec![i.clone()],
//!     Expr::map(MapOp::Sigmoid, vec![Expr::agg(AggOp::Sum, vec![j], body)]));
//! assert_eq!(q.to_string(), "Y[i] = sigmoid(sum[j](X[i,j] * theta[j]))");
//! ```

pub mod integers;

/// Index names and scalar operators live in `spores-sparsity`, below both optimizers.
pub use spores_sparsity::ops::{AggOp, MapOp, OpProps, ScalarFn, UserAggregate, UserFunction};
pub use spores_sparsity::Idx;

use std::collections::BTreeSet;
use std::fmt;

/// A tensor expression in tensor index notation.
///
/// `Input` names a tensor supplied from outside; `Alias` names the result of an earlier query
/// (of the same program or plan). The indices of an access are in the order the tensor's modes
/// are stored.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    Input {
        tensor: String,
        idxs: Vec<Idx>,
    },
    Alias {
        name: String,
        idxs: Vec<Idx>,
    },
    Literal(f64),
    Map {
        op: MapOp,
        args: Vec<Expr>,
    },
    Agg {
        op: AggOp,
        idxs: Vec<Idx>,
        body: Box<Expr>,
    },
}

impl Expr {
    pub fn input(tensor: &str, idxs: Vec<Idx>) -> Expr {
        Expr::Input {
            tensor: tensor.to_string(),
            idxs,
        }
    }

    pub fn alias(name: &str, idxs: Vec<Idx>) -> Expr {
        Expr::Alias {
            name: name.to_string(),
            idxs,
        }
    }

    pub fn map(op: MapOp, args: Vec<Expr>) -> Expr {
        Expr::Map { op, args }
    }

    pub fn agg(op: AggOp, idxs: Vec<Idx>, body: Expr) -> Expr {
        Expr::Agg {
            op,
            idxs,
            body: Box::new(body),
        }
    }

    /// Indices free in the expression (not bound by an enclosing `Agg` inside it), sorted.
    pub fn free_idxs(&self) -> BTreeSet<Idx> {
        let mut out = BTreeSet::new();
        self.collect_free(&mut out);
        out
    }

    fn collect_free(&self, out: &mut BTreeSet<Idx>) {
        match self {
            Expr::Input { idxs, .. } | Expr::Alias { idxs, .. } => out.extend(idxs.iter().cloned()),
            Expr::Literal(_) => {}
            Expr::Map { args, .. } => args.iter().for_each(|a| a.collect_free(out)),
            Expr::Agg { idxs, body, .. } => {
                let mut inner = BTreeSet::new();
                body.collect_free(&mut inner);
                for i in idxs {
                    inner.remove(i);
                }
                out.extend(inner);
            }
        }
    }

    /// Whether the expression contains an `Agg` node anywhere.
    pub fn has_agg(&self) -> bool {
        match self {
            Expr::Agg { .. } => true,
            Expr::Map { args, .. } => args.iter().any(Expr::has_agg),
            _ => false,
        }
    }

    /// Calls `f` on every `Input` and `Alias` leaf (tensor or alias name, indices).
    pub fn for_each_access(&self, f: &mut impl FnMut(&Expr)) {
        match self {
            Expr::Input { .. } | Expr::Alias { .. } => f(self),
            Expr::Literal(_) => {}
            Expr::Map { args, .. } => args.iter().for_each(|a| a.for_each_access(f)),
            Expr::Agg { body, .. } => body.for_each_access(f),
        }
    }
}

fn write_idxs(f: &mut fmt::Formatter<'_>, idxs: &[Idx]) -> fmt::Result {
    write!(f, "[")?;
    write_joined(f, idxs, ",")?;
    write!(f, "]")
}

/// Writes `items` separated by `sep` (index lists and call arguments).
fn write_joined<T: fmt::Display>(
    f: &mut fmt::Formatter<'_>,
    items: &[T],
    sep: &str,
) -> fmt::Result {
    for (k, x) in items.iter().enumerate() {
        if k > 0 {
            write!(f, "{sep}")?;
        }
        write!(f, "{x}")?;
    }
    Ok(())
}

fn is_infix(op: &MapOp) -> bool {
    matches!(
        op,
        MapOp::Add
            | MapOp::Sub
            | MapOp::Mul
            | MapOp::Div
            | MapOp::Rem
            | MapOp::Pow
            | MapOp::Lt
            | MapOp::Le
            | MapOp::Gt
            | MapOp::Ge
            | MapOp::Eq
            | MapOp::Ne
            | MapOp::Or
            | MapOp::And
    )
}

impl fmt::Display for Expr {
    /// Prints the text syntax; infix operands that are themselves infix are parenthesized, so
    /// the output parses back to the same tree.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expr::Input { tensor: name, idxs } | Expr::Alias { name, idxs } => {
                write!(f, "{name}")?;
                if !idxs.is_empty() {
                    write_idxs(f, idxs)?;
                }
                Ok(())
            }
            Expr::Literal(v) => write!(f, "{v}"),
            Expr::Map { op, args } if is_infix(op) && args.len() >= 2 => {
                for (k, a) in args.iter().enumerate() {
                    if k > 0 {
                        write!(f, " {op} ")?;
                    }
                    match a {
                        Expr::Map { op: inner, args } if is_infix(inner) && args.len() >= 2 => {
                            write!(f, "({a})")?
                        }
                        _ => write!(f, "{a}")?,
                    }
                }
                Ok(())
            }
            Expr::Map {
                op: MapOp::Neg,
                args,
            } if args.len() == 1 => write!(f, "-({})", args[0]),
            Expr::Map { op, args } => {
                write!(f, "{op}(")?;
                write_joined(f, args, ", ")?;
                write!(f, ")")
            }
            Expr::Agg { op, idxs, body } => {
                write!(f, "{op}")?;
                write_idxs(f, idxs)?;
                write!(f, "({body})")
            }
        }
    }
}

/// One assignment `name[idxs] = expr` of an input program. `idxs` is the output's mode order
/// and holds exactly the free indices of `expr`.
#[derive(Clone, Debug, PartialEq)]
pub struct Query {
    pub name: String,
    pub idxs: Vec<Idx>,
    pub expr: Expr,
}

impl Query {
    pub fn new(name: &str, idxs: Vec<Idx>, expr: Expr) -> Query {
        Query {
            name: name.to_string(),
            idxs,
            expr,
        }
    }
}

impl fmt::Display for Query {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.name)?;
        if !self.idxs.is_empty() {
            write_idxs(f, &self.idxs)?;
        }
        write!(f, " = {}", self.expr)
    }
}

/// An input program: queries in order (later ones may alias earlier ones) and the names of the
/// queries whose results the user wants.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Program {
    pub queries: Vec<Query>,
    pub outputs: Vec<String>,
}

impl fmt::Display for Program {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for q in &self.queries {
            writeln!(f, "{q}")?;
        }
        Ok(())
    }
}

/// One query of a logical plan: `name[idxs] = agg[agg_idxs](body)` where `body` has no `Agg`
/// (Galley Figure 4.B). `agg == None` is Galley's no-op aggregate (a pure pointwise kernel).
/// `idxs` must be exactly the free indices of `body` minus `agg_idxs` (in the stored order).
#[derive(Clone, Debug, PartialEq)]
pub struct LogicalQuery {
    pub name: String,
    pub idxs: Vec<Idx>,
    pub agg: Option<AggOp>,
    pub agg_idxs: Vec<Idx>,
    pub body: Expr,
}

impl fmt::Display for LogicalQuery {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.name)?;
        if !self.idxs.is_empty() {
            write_idxs(f, &self.idxs)?;
        }
        match self.agg {
            Some(op) => {
                write!(f, " = {op}")?;
                write_idxs(f, &self.agg_idxs)?;
                write!(f, "({})", self.body)
            }
            None => write!(f, " = {}", self.body),
        }
    }
}

/// A logical plan: queries in execution order; `outputs` maps each program output name to the
/// plan query that computes it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LogicalPlan {
    pub queries: Vec<LogicalQuery>,
    pub outputs: Vec<(String, String)>,
}

impl fmt::Display for LogicalPlan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for q in &self.queries {
            writeln!(f, "{q}")?;
        }
        Ok(())
    }
}

/// Storage format of one level (mode) of a fibertree (Galley §3.2, §6.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LevelFormat {
    /// Every coordinate present: constant-time lookup, sequential or random writes.
    Dense,
    /// Sorted coordinates (CSR's column level): fast iteration, binary-search lookup,
    /// sequential writes only.
    SortedList,
    /// Hash table of coordinates: constant-time lookup, random writes, unordered iteration.
    Hash,
    /// A dense byte mask plus the list of set coordinates: dense-speed lookup and writes for
    /// moderately sparse levels.
    Bytemap,
}

/// How a loop level reaches an input's coordinates (Galley §6.3's leader/follower merge).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Protocol {
    /// The leader: the loop walks this input's non-fill coordinates.
    Iterate,
    /// A follower: each coordinate the leader yields is looked up here.
    Lookup,
    /// Co-iterated with the loop's other `Gallop` accesses by sorted-list intersection
    /// (`engine::intersect`): only coordinates stored in all of them are visited. Every
    /// `Gallop` access must force the body to its fill where it is missing, and its level
    /// must keep its coordinates sorted (any format but Dense).
    Gallop,
}

/// An input or alias access in a physical query, with the protocol of each of its indices.
#[derive(Clone, Debug, PartialEq)]
pub struct Access {
    /// `true` for an earlier query's result, `false` for a user input.
    pub is_alias: bool,
    pub name: String,
    pub idxs: Vec<Idx>,
    pub protocols: Vec<Protocol>,
}

/// The pointwise body of a physical query.
#[derive(Clone, Debug, PartialEq)]
pub enum PhysExpr {
    Access(Access),
    Literal(f64),
    Map { op: MapOp, args: Vec<PhysExpr> },
}

/// One kernel: loops over `loop_order` (outermost first), evaluates `body`, aggregates over
/// `agg_idxs` with `agg`, and materializes the result with modes in `output_idxs` order and one
/// [`LevelFormat`] per mode. Every access must be concordant with `loop_order` (its indices
/// appear in loop order); the physical optimizer inserts transposition queries where not.
#[derive(Clone, Debug, PartialEq)]
pub struct PhysicalQuery {
    pub name: String,
    pub loop_order: Vec<Idx>,
    pub agg: Option<AggOp>,
    pub agg_idxs: Vec<Idx>,
    pub body: PhysExpr,
    pub output_idxs: Vec<Idx>,
    pub output_formats: Vec<LevelFormat>,
}

impl PhysicalQuery {
    /// The kernel storing `source[idxs]` (an input, or an alias when `is_alias`) under
    /// `name` in the mode order `to`, with `formats`: a transposition.
    pub fn transpose(
        name: String,
        source: &str,
        is_alias: bool,
        idxs: &[Idx],
        to: Vec<Idx>,
        formats: Vec<LevelFormat>,
    ) -> PhysicalQuery {
        PhysicalQuery {
            name,
            loop_order: idxs.to_vec(),
            agg: None,
            agg_idxs: vec![],
            body: PhysExpr::Access(Access {
                is_alias,
                name: source.to_string(),
                idxs: idxs.to_vec(),
                protocols: vec![Protocol::Iterate; idxs.len()],
            }),
            output_idxs: to,
            output_formats: formats,
        }
    }
}

/// A physical plan: kernels in execution order; `outputs` maps program outputs to the query
/// computing each.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PhysicalPlan {
    pub queries: Vec<PhysicalQuery>,
    pub outputs: Vec<(String, String)>,
}
