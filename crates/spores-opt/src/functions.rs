//! The catalogue of named functions the optimizer treats as opaque terms: which act cell
//! by cell (so they commute with transposition and broadcast like `+`), which take their
//! two arguments in either order, and which aggregate all cells. The encoder
//! ([`crate::saturate`]) and the canonical forms ([`crate::canon`]) both read it, so a
//! function one of them can see through is one the other can too.

/// Functions of one argument applied cell by cell (zero need not map to zero).
pub const ELEMENTWISE_UNARY: &[&str] = &[
    "exp", "log", "sqrt", "abs", "sigmoid", "sign", "round", "floor", "ceil", "ceiling", "!",
    "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh",
];

/// Cellwise functions of the equivalence check's bookkeeping of NaN and infinite cells
/// (`canon::domain`), one argument each; their names cannot be written in DML.
const BOOKKEEPING_UNARY: &[&str] = &[MASKING_FACTOR, SCALAR_FACTOR];

/// A factor of a matrix product (`%*%` or cellwise), whose zeros skip the other factor.
pub const MASKING_FACTOR: &str = "masking factor";
/// A factor of a product of two scalars, which multiply as IEEE numbers.
pub const SCALAR_FACTOR: &str = "scalar factor";

/// Functions of two arguments applied cell by cell, with DML broadcasting.
pub const ELEMENTWISE_BINARY: &[&str] = &[
    "/",
    "^",
    "<",
    ">",
    "<=",
    ">=",
    "==",
    "!=",
    "&",
    "|",
    "min",
    "max",
    "%%",
    "%/%",
    "masked_div",
];

/// A division whose divisor may be 0, in the equivalence check's bookkeeping of NaN and
/// infinite cells (`canon::domain`): not a product with a reciprocal there, since `0 / 0`
/// is NaN where `0 * (1 / 0)` skips. The name cannot be written in DML.
pub const IEEE_DIVISION: &str = "IEEE division";

/// One-argument functions with `f(0) = 0`: the result keeps its argument's zeros, so it
/// is at most as dense (for the sparsity estimates).
pub const ZERO_AT_ZERO_UNARY: &[&str] = &[
    "sqrt", "abs", "sign", "round", "floor", "ceil", "ceiling", "sin", "tan", "asin", "atan",
    "sinh", "tanh",
];

/// Comparisons with `0 op 0` false (0): `X != 0`, `X > 0` and `X < 0` keep `X`'s zeros.
pub const ZERO_AGAINST_ZERO_BINARY: &[&str] = &["!=", "<", ">"];

/// Two-argument functions whose arguments may be swapped.
pub const COMMUTATIVE_BINARY: &[&str] = &["min", "max", "==", "!=", "&", "|"];

/// One-argument functions of all cells of a matrix, whatever their order.
pub const FULL_AGGREGATES: &[&str] = &["min", "max", "prod"];

/// Whether `name` with `arity` arguments acts cell by cell.
pub fn is_elementwise(name: &str, arity: usize) -> bool {
    listed(name, arity, ELEMENTWISE_UNARY, ELEMENTWISE_BINARY)
        || listed(name, arity, BOOKKEEPING_UNARY, &[IEEE_DIVISION])
}

/// Whether `name` with `arity` arguments takes them in either order.
pub fn is_commutative(name: &str, arity: usize) -> bool {
    arity == 2 && COMMUTATIVE_BINARY.contains(&name)
}

/// Whether `name(x)` is zero where `x` is (one argument), or `name(x, 0)` is (two).
pub fn keeps_zeros(name: &str, arity: usize) -> bool {
    listed(name, arity, ZERO_AT_ZERO_UNARY, ZERO_AGAINST_ZERO_BINARY)
}

/// Whether `name` is in the list for its arity: `unary` for one argument, `binary` for two.
fn listed(name: &str, arity: usize, unary: &[&str], binary: &[&str]) -> bool {
    match arity {
        1 => unary.contains(&name),
        2 => binary.contains(&name),
        _ => false,
    }
}

/// Whether `name` with `arity` arguments aggregates all cells of its argument.
pub fn is_full_aggregate(name: &str, arity: usize) -> bool {
    arity == 1 && FULL_AGGREGATES.contains(&name)
}

/// Functions whose result shape the shape rules know beyond acting cell by cell: the
/// aggregates, the reorganizations and the constructors of [`crate::la::ShapeEnv::shape_of`].
/// Any other name is read as cellwise, an assumption a verdict must not rest on.
const SHAPED: &[&str] = &[
    "min",
    "max",
    "prod",
    "mean",
    "var",
    "sd",
    "as.scalar",
    "trace",
    "nrow",
    "ncol",
    "length",
    "rowMeans",
    "rowMaxs",
    "rowMins",
    "rowIndexMax",
    "rowIndexMin",
    "rowProds",
    "colMeans",
    "colMaxs",
    "colMins",
    "colProds",
    "matrix",
    "cbind",
    "rbind",
    "diag",
    "rev",
    "cumsum",
    "cumprod",
    "cummin",
    "cummax",
    "ifelse",
    "seq",
    crate::la::INDEX,
];

/// Whether the shape rules know `name` with `arity` arguments rather than assume it acts
/// cell by cell.
pub fn has_known_shape(name: &str, arity: usize) -> bool {
    is_elementwise(name, arity) || SHAPED.contains(&name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn min_and_max_are_elementwise_with_two_arguments_and_aggregates_with_one() {
        assert!(is_elementwise("min", 2) && is_commutative("max", 2));
        assert!(is_full_aggregate("max", 1) && !is_elementwise("max", 1));
        assert!(!is_commutative("/", 2) && is_elementwise("/", 2));
        assert!(is_elementwise("tanh", 1) && !is_elementwise("tanh", 2));
    }

    /// Every function said to keep zeros acts cell by cell and gives 0 at 0 (against 0).
    #[test]
    fn functions_that_keep_zeros_give_zero_at_zero() {
        for name in ZERO_AT_ZERO_UNARY {
            assert!(is_elementwise(name, 1), "{name}");
        }
        for name in ZERO_AGAINST_ZERO_BINARY {
            assert!(is_elementwise(name, 2), "{name}");
        }
        assert!(keeps_zeros("abs", 1) && keeps_zeros("!=", 2));
        assert!(!keeps_zeros("exp", 1) && !keeps_zeros("==", 2) && !keeps_zeros("/", 2));
    }
}
