//! Pointwise and aggregate operators and the algebraic facts the optimizers rely on.
//!
//! Galley reads these facts from Finch (`isannihilator`, `isidentity`, `isdistributive`, ...);
//! here every operator carries them itself, and user functions declare theirs. The logical
//! optimizer only ever pushes an aggregate through a pointwise operator when a fact here says
//! it may, so a wrong fact is a wrong answer: keep them conservative.

use std::fmt;
use std::sync::Arc;

/// A pointwise operator (`Map` in Galley's plan language).
#[derive(Clone, Debug)]
pub enum MapOp {
    Add,
    Sub,
    Mul,
    Div,
    Max,
    Min,
    Pow,
    Neg,
    Sqrt,
    Exp,
    Log,
    Abs,
    Sigmoid,
    Relu,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
    /// Logical or on truthiness (non-zero is true), result 0 or 1.
    Or,
    /// Logical and on truthiness, result 0 or 1.
    And,
    Not,
    /// Largest integer not above the argument.
    Floor,
    /// Smallest integer not below the argument.
    Ceil,
    /// The argument rounded toward zero.
    Trunc,
    /// Remainder of truncated division (Julia's `rem`, C's `fmod`, `%`): the sign of the
    /// dividend; `rem(x, 0)` is NaN.
    Rem,
    /// Remainder of floored division (Julia's `mod`, NumPy's `mod`): the sign of the divisor;
    /// `mod(x, 0)` is NaN.
    Mod,
    /// Floored division (Julia's `fld`, NumPy's `floor_divide`): `floor(x / y)` computed
    /// exactly from the remainder; `fld(x, 0)` is `x / 0`.
    Fld,
    /// `ifelse(c, a, b)`: `a` where `c` is true (non-zero), else `b`; both are evaluated.
    IfElse,
    User(Arc<UserFunction>),
}

/// A scalar function's evaluator.
pub type ScalarFn = Box<dyn Fn(&[f64]) -> f64 + Send + Sync>;

/// A user-declared scalar function with its algebraic properties.
pub struct UserFunction {
    pub name: String,
    pub arity: usize,
    pub props: OpProps,
    /// Aggregates this function distributes over: `f(.., agg_k x_k, ..) = agg_k f(.., x_k, ..)`
    /// for an argument position whose siblings do not depend on `k`.
    pub distributes_over: Vec<AggOp>,
    pub eval: ScalarFn,
}

impl fmt::Debug for UserFunction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UserFunction")
            .field("name", &self.name)
            .field("arity", &self.arity)
            .field("props", &self.props)
            .finish()
    }
}

/// Algebraic properties of a pointwise operator.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct OpProps {
    /// `a` with `f(.., a, ..) = a` whatever the other arguments (0 for `*`).
    pub annihilator: Option<f64>,
    /// `e` with `f(x, e) = f(e, x) = x` (0 for `+`, 1 for `*`).
    pub identity: Option<f64>,
    pub commutative: bool,
    pub associative: bool,
    /// `f(x, x) = x` (`max`, `min`, `or`, `and`).
    pub idempotent: bool,
}

impl PartialEq for MapOp {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (MapOp::User(a), MapOp::User(b)) => Arc::ptr_eq(a, b) || a.name == b.name,
            _ => std::mem::discriminant(self) == std::mem::discriminant(other),
        }
    }
}

impl MapOp {
    /// The operator's name in the text syntax (`+` for `Add`, `max` for `Max`).
    pub fn name(&self) -> &str {
        match self {
            MapOp::Add => "+",
            MapOp::Sub => "-",
            MapOp::Mul => "*",
            MapOp::Div => "/",
            MapOp::Max => "max",
            MapOp::Min => "min",
            MapOp::Pow => "^",
            MapOp::Neg => "neg",
            MapOp::Sqrt => "sqrt",
            MapOp::Exp => "exp",
            MapOp::Log => "log",
            MapOp::Abs => "abs",
            MapOp::Sigmoid => "sigmoid",
            MapOp::Relu => "relu",
            MapOp::Lt => "<",
            MapOp::Le => "<=",
            MapOp::Gt => ">",
            MapOp::Ge => ">=",
            MapOp::Eq => "==",
            MapOp::Ne => "!=",
            MapOp::Or => "||",
            MapOp::And => "&&",
            MapOp::Not => "!",
            MapOp::Floor => "floor",
            MapOp::Ceil => "ceil",
            MapOp::Trunc => "trunc",
            MapOp::Rem => "%",
            MapOp::Mod => "mod",
            MapOp::Fld => "fld",
            MapOp::IfElse => "ifelse",
            MapOp::User(f) => &f.name,
        }
    }

    /// `Some(n)` for fixed-arity operators; `None` for the n-ary associative ones.
    pub fn arity(&self) -> Option<usize> {
        match self {
            MapOp::Add | MapOp::Mul | MapOp::Max | MapOp::Min | MapOp::Or | MapOp::And => None,
            MapOp::Sub | MapOp::Div | MapOp::Pow => Some(2),
            MapOp::Rem | MapOp::Mod | MapOp::Fld => Some(2),
            MapOp::Floor | MapOp::Ceil | MapOp::Trunc => Some(1),
            MapOp::IfElse => Some(3),
            MapOp::Lt | MapOp::Le | MapOp::Gt | MapOp::Ge | MapOp::Eq | MapOp::Ne => Some(2),
            MapOp::Neg | MapOp::Sqrt | MapOp::Exp | MapOp::Log | MapOp::Abs => Some(1),
            MapOp::Sigmoid | MapOp::Relu | MapOp::Not => Some(1),
            MapOp::User(f) => Some(f.arity),
        }
    }

    pub fn props(&self) -> OpProps {
        let assoc_comm = |identity: f64, annihilator: Option<f64>, idempotent: bool| OpProps {
            annihilator,
            identity: Some(identity),
            commutative: true,
            associative: true,
            idempotent,
        };
        match self {
            MapOp::Add => assoc_comm(0.0, None, false),
            MapOp::Mul => assoc_comm(1.0, Some(0.0), false),
            MapOp::Max => assoc_comm(f64::NEG_INFINITY, Some(f64::INFINITY), true),
            MapOp::Min => assoc_comm(f64::INFINITY, Some(f64::NEG_INFINITY), true),
            // Truthiness operators: results are 0/1, so `x || 0` is not `x` (no identity).
            MapOp::Or => OpProps {
                annihilator: Some(1.0),
                identity: None,
                commutative: true,
                associative: true,
                idempotent: false,
            },
            MapOp::And => OpProps {
                annihilator: Some(0.0),
                identity: None,
                commutative: true,
                associative: true,
                idempotent: false,
            },
            // `/` is IEEE (0/0 is NaN): 0 annihilates it only for a non-zero divisor, so it
            // has no annihilator.
            MapOp::User(f) => f.props,
            _ => OpProps::default(),
        }
    }

    /// Whether `self` distributes over the aggregate `agg`: for an argument that depends on the
    /// aggregated index while the others do not, `f(c, agg_k x_k) = agg_k f(c, x_k)`.
    /// (`*` over `sum`, `+` over `max`/`min`, `max` over `min` and back, `and` over `any`.)
    pub fn distributes_over(&self, agg: AggOp) -> bool {
        match (self, agg) {
            (MapOp::Mul, AggOp::Sum) => true,
            (MapOp::Add, AggOp::Max | AggOp::Min) => true,
            (MapOp::Max, AggOp::Min) | (MapOp::Min, AggOp::Max) => true,
            (MapOp::And, AggOp::Any) => true,
            (MapOp::User(f), agg) => f.distributes_over.contains(&agg),
            _ => false,
        }
    }

    /// Applies the operator to scalar arguments.
    ///
    /// Comparisons and logic give 1.0 / 0.0. `n`-ary operators fold left.
    pub fn apply(&self, args: &[f64]) -> f64 {
        let fold = |init: f64, f: fn(f64, f64) -> f64| args.iter().copied().fold(init, f);
        let bool01 = |b: bool| if b { 1.0 } else { 0.0 };
        let (a, b) = (
            args.first().copied().unwrap_or(f64::NAN),
            args.get(1).copied().unwrap_or(f64::NAN),
        );
        match self {
            MapOp::Add => fold(0.0, |x, y| x + y),
            // Zero-annihilating (0 * inf = 0), as in the sparse engine and K-relations.
            MapOp::Mul if args.contains(&0.0) => 0.0,
            MapOp::Mul => fold(1.0, |x, y| x * y),
            MapOp::Max => fold(f64::NEG_INFINITY, f64::max),
            MapOp::Min => fold(f64::INFINITY, f64::min),
            MapOp::Or => bool01(args.iter().any(|&x| x != 0.0)),
            MapOp::And => bool01(args.iter().all(|&x| x != 0.0)),
            MapOp::Sub => a - b,
            // IEEE division, as in Julia, NumPy and Galley: 0/0 is NaN, x/0 is ±Inf.
            MapOp::Div => a / b,
            MapOp::Pow => a.powf(b),
            MapOp::Neg => -a,
            MapOp::Sqrt => a.sqrt(),
            MapOp::Exp => a.exp(),
            MapOp::Log => a.ln(),
            MapOp::Abs => a.abs(),
            MapOp::Sigmoid => 1.0 / (1.0 + (-a).exp()),
            MapOp::Relu => a.max(0.0),
            MapOp::Lt => bool01(a < b),
            MapOp::Le => bool01(a <= b),
            MapOp::Gt => bool01(a > b),
            MapOp::Ge => bool01(a >= b),
            MapOp::Eq => bool01(a == b),
            MapOp::Ne => bool01(a != b),
            MapOp::Not => bool01(a == 0.0),
            MapOp::Floor => a.floor(),
            MapOp::Ceil => a.ceil(),
            MapOp::Trunc => a.trunc(),
            MapOp::Rem => a % b,
            MapOp::Mod => floored_mod(a, b),
            MapOp::Fld => floored_div(a, b),
            MapOp::IfElse => {
                let c = args.get(2).copied().unwrap_or(f64::NAN);
                if a != 0.0 {
                    b
                } else {
                    c
                }
            }
            MapOp::User(f) => (f.eval)(args),
        }
    }
}

/// `x mod y` with the sign of `y` (Julia's `mod`, Python's `%`); NaN when `y` is 0.
fn floored_mod(x: f64, y: f64) -> f64 {
    let r = x % y;
    if r == 0.0 {
        0.0f64.copysign(y)
    } else if (r < 0.0) != (y < 0.0) {
        r + y
    } else {
        r
    }
}

/// `floor(x / y)` without the rounding error of the quotient: `(x - mod(x, y)) / y` is an
/// integer up to rounding, snapped to the nearest one (CPython's and NumPy's `divmod`).
/// A zero divisor gives `x / y` (±Inf, or NaN for 0/0).
fn floored_div(x: f64, y: f64) -> f64 {
    if y == 0.0 || !x.is_finite() || !y.is_finite() {
        return (x / y).floor();
    }
    let m = x % y;
    let mut div = (x - m) / y;
    if m != 0.0 && ((y < 0.0) != (m < 0.0)) {
        div -= 1.0;
    }
    if div == 0.0 {
        return 0.0f64.copysign(x / y);
    }
    let fl = div.floor();
    if div - fl > 0.5 {
        fl + 1.0
    } else {
        fl
    }
}

impl fmt::Display for MapOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An aggregate operator (`Agg` in Galley's plan language).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AggOp {
    Sum,
    Prod,
    Max,
    Min,
    /// 1 if any aggregated value is non-zero, else 0.
    Any,
    /// A user-declared associative, commutative binary function with an identity.
    User(UserAggregate),
}

/// A user function declared associative and commutative with an identity, usable as an
/// aggregate (`fn plus(x, y) = x + y [associative, commutative, identity=0]`, then
/// `plus[j](..)`). It is allocated once per declaration for the life of the process, so
/// that [`AggOp`] stays a plain copyable value; two aggregates are the same when they come
/// from the same declaration.
#[derive(Clone, Copy)]
pub struct UserAggregate(&'static Arc<UserFunction>);

impl UserAggregate {
    /// `f` as an aggregate, or why it cannot be one.
    pub fn new(f: Arc<UserFunction>) -> Result<UserAggregate, String> {
        let p = f.props;
        if f.arity != 2 || !p.associative || !p.commutative || p.identity.is_none() {
            return Err(format!(
                "`{}` is not an aggregate: declare a function of two arguments with \
                 [associative, commutative, identity=V]",
                f.name
            ));
        }
        Ok(UserAggregate(Box::leak(Box::new(f))))
    }

    pub fn function(self) -> &'static Arc<UserFunction> {
        self.0
    }

    fn identity(self) -> f64 {
        self.0.props.identity.unwrap_or(f64::NAN)
    }

    fn apply(self, a: f64, b: f64) -> f64 {
        (self.0.eval)(&[a, b])
    }

    /// `n` copies of `x` combined, by repeated doubling (the function is associative).
    fn repeat(self, x: f64, n: f64) -> f64 {
        // Fewer than one copy, or a NaN count: the empty aggregate.
        if n.partial_cmp(&1.0).is_none_or(|o| o.is_lt()) {
            return self.identity();
        }
        if self.0.props.idempotent {
            return x;
        }
        // Counts beyond 2^128 saturate; such domains are not enumerable anyway.
        let mut k = if n >= u128::MAX as f64 {
            u128::MAX
        } else {
            n as u128
        };
        let (mut acc, mut power) = (self.identity(), x);
        while k > 0 {
            if k & 1 == 1 {
                acc = self.apply(acc, power);
            }
            k >>= 1;
            if k > 0 {
                power = self.apply(power, power);
            }
        }
        acc
    }
}

impl PartialEq for UserAggregate {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self.0, other.0)
    }
}

impl Eq for UserAggregate {}

impl std::hash::Hash for UserAggregate {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        std::ptr::hash(self.0, h)
    }
}

impl PartialOrd for UserAggregate {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for UserAggregate {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        let address = |a: &UserAggregate| a.0 as *const Arc<UserFunction> as usize;
        (&self.0.name, address(self)).cmp(&(&other.0.name, address(other)))
    }
}

impl fmt::Debug for UserAggregate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "User({})", self.0.name)
    }
}

impl AggOp {
    pub fn name(self) -> &'static str {
        match self {
            AggOp::User(u) => &u.function().name,
            AggOp::Sum => "sum",
            AggOp::Prod => "prod",
            AggOp::Max => "max",
            AggOp::Min => "min",
            AggOp::Any => "any",
        }
    }

    pub fn from_name(name: &str) -> Option<AggOp> {
        Some(match name {
            "sum" => AggOp::Sum,
            "prod" => AggOp::Prod,
            "max" => AggOp::Max,
            "min" => AggOp::Min,
            "any" => AggOp::Any,
            _ => return None,
        })
    }

    /// The binary pointwise operator this aggregate folds with.
    pub fn combine_op(self) -> MapOp {
        match self {
            AggOp::Sum => MapOp::Add,
            AggOp::Prod => MapOp::Mul,
            AggOp::Max => MapOp::Max,
            AggOp::Min => MapOp::Min,
            AggOp::Any => MapOp::Or,
            AggOp::User(u) => MapOp::User(u.function().clone()),
        }
    }

    /// The value of an empty aggregate (the identity of [`AggOp::combine_op`]).
    pub fn init(self) -> f64 {
        match self {
            AggOp::Sum | AggOp::Any => 0.0,
            AggOp::Prod => 1.0,
            AggOp::Max => f64::NEG_INFINITY,
            AggOp::Min => f64::INFINITY,
            AggOp::User(u) => u.identity(),
        }
    }

    pub fn combine(self, acc: f64, x: f64) -> f64 {
        match self {
            AggOp::User(u) => u.apply(acc, x),
            AggOp::Sum => acc + x,
            AggOp::Prod => acc * x,
            AggOp::Max => acc.max(x),
            AggOp::Min => acc.min(x),
            AggOp::Any => {
                if acc != 0.0 || x != 0.0 {
                    1.0
                } else {
                    0.0
                }
            }
        }
    }

    /// `g(x, n)`: the aggregate of `n` copies of `x` (Galley §5.4: `x*n` for `sum`, `x` for
    /// idempotent aggregates). Used when an aggregate is pushed past a term that does not
    /// depend on the aggregated index, and to compute the fill value of an aggregate's result.
    /// `n` is a count of cells, as a float: domains of huge tensors hold more than 2^64
    /// cells, and a saturated integer count would give a wrong sum.
    pub fn repeat(self, x: f64, n: f64) -> f64 {
        match self {
            AggOp::User(u) => u.repeat(x, n),
            AggOp::Sum => x * n,
            AggOp::Prod => x.powf(n),
            AggOp::Max | AggOp::Min => {
                if n == 0.0 {
                    self.init()
                } else {
                    x
                }
            }
            AggOp::Any => {
                if n > 0.0 && x != 0.0 {
                    1.0
                } else {
                    0.0
                }
            }
        }
    }

    /// Whether aggregating with `self` then `other` over disjoint index sets may be reordered
    /// (same operator; Galley §5.5's non-commuting aggregates restrict elimination orders).
    pub fn commutes_with(self, other: AggOp) -> bool {
        self == other
    }
}

impl fmt::Display for AggOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeat_matches_folding_copies() {
        for agg in [AggOp::Sum, AggOp::Prod, AggOp::Max, AggOp::Min, AggOp::Any] {
            for x in [0.0, 1.5, -2.0] {
                for n in 0..4 {
                    let folded = (0..n).fold(agg.init(), |acc, _| agg.combine(acc, x));
                    assert_eq!(
                        agg.repeat(x, n as f64),
                        folded,
                        "{agg} of {n} copies of {x}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_user_aggregate_repeats_by_doubling_as_folding_copies_does() {
        let declare = |associative: bool| {
            Arc::new(UserFunction {
                name: "g".into(),
                arity: 2,
                props: OpProps {
                    identity: Some(0.0),
                    associative,
                    commutative: true,
                    ..OpProps::default()
                },
                distributes_over: vec![],
                eval: Box::new(|a: &[f64]| a[0] + a[1] + a[0] * a[1]),
            })
        };
        let agg = AggOp::User(UserAggregate::new(declare(true)).unwrap());
        assert_eq!((agg.name(), agg.init()), ("g", 0.0));
        for x in [0.0, 0.5, -2.0] {
            for n in 0..10 {
                let folded = (0..n).fold(agg.init(), |acc, _| agg.combine(acc, x));
                assert_eq!(agg.repeat(x, n as f64), folded, "{n} copies of {x}");
            }
        }
        let err = UserAggregate::new(declare(false)).unwrap_err();
        assert!(
            err.contains("[associative, commutative, identity=V]"),
            "{err}"
        );
    }

    #[test]
    fn distributivity_facts_hold_numerically() {
        let xs = [0.5, -1.25, 3.0];
        let c = -2.0;
        for op in [MapOp::Mul, MapOp::Add, MapOp::Max, MapOp::Min, MapOp::And] {
            for agg in [AggOp::Sum, AggOp::Max, AggOp::Min, AggOp::Any] {
                if !op.distributes_over(agg) {
                    continue;
                }
                let outside = op.apply(&[c, xs.iter().fold(agg.init(), |a, &x| agg.combine(a, x))]);
                let inside = xs
                    .iter()
                    .fold(agg.init(), |a, &x| agg.combine(a, op.apply(&[c, x])));
                assert!((outside - inside).abs() < 1e-12, "{op} over {agg}");
            }
        }
    }

    #[test]
    fn floored_division_and_its_remainder_recompose_the_dividend() {
        let vals = [-7.5, -3.0, -0.25, 0.0, 0.1, 2.0, 5.5, 1e9 + 0.5];
        for &x in &vals {
            for &y in vals.iter().filter(|&&y| y != 0.0) {
                let (q, m) = (MapOp::Fld.apply(&[x, y]), MapOp::Mod.apply(&[x, y]));
                assert_eq!(q, q.floor(), "fld({x}, {y}) = {q} is an integer");
                assert!((q * y + m - x).abs() <= 1e-9 * x.abs().max(1.0), "{x} {y}");
                assert!(m == 0.0 || (m < 0.0) == (y < 0.0), "mod({x}, {y}) = {m}");
                let r = MapOp::Rem.apply(&[x, y]);
                assert!(r == 0.0 || (r < 0.0) == (x < 0.0), "rem({x}, {y}) = {r}");
            }
            assert!(MapOp::Rem.apply(&[x, 0.0]).is_nan() && MapOp::Mod.apply(&[x, 0.0]).is_nan());
        }
        assert_eq!(MapOp::Fld.apply(&[7.0, 0.0]), f64::INFINITY);
        assert!(MapOp::Fld.apply(&[0.0, 0.0]).is_nan());
        assert_eq!(MapOp::IfElse.apply(&[f64::NAN, 1.0, 2.0]), 1.0);
        assert_eq!(MapOp::IfElse.apply(&[0.0, 1.0, 2.0]), 2.0);
    }

    #[test]
    fn annihilators_and_identities_hold() {
        for op in [
            MapOp::Add,
            MapOp::Mul,
            MapOp::Max,
            MapOp::Min,
            MapOp::Or,
            MapOp::And,
        ] {
            let p = op.props();
            for x in [0.0, 2.5, -1.0] {
                if let Some(a) = p.annihilator {
                    assert_eq!(op.apply(&[x, a]), op.apply(&[a, a]), "{op} annihilator");
                }
                if let Some(e) = p.identity {
                    assert_eq!(op.apply(&[x, e]), x, "{op} identity");
                }
            }
        }
    }
}
