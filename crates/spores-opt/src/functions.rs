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

/// Functions of two arguments applied cell by cell, with DML broadcasting.
pub const ELEMENTWISE_BINARY: &[&str] = &[
    "/", "^", "<", ">", "<=", ">=", "==", "!=", "&", "|", "min", "max", "%%", "%/%",
];

/// Two-argument functions whose arguments may be swapped.
pub const COMMUTATIVE_BINARY: &[&str] = &["min", "max", "==", "!=", "&", "|"];

/// One-argument functions of all cells of a matrix, whatever their order.
pub const FULL_AGGREGATES: &[&str] = &["min", "max"];

/// Whether `name` with `arity` arguments acts cell by cell.
pub fn is_elementwise(name: &str, arity: usize) -> bool {
    match arity {
        1 => ELEMENTWISE_UNARY.contains(&name),
        2 => ELEMENTWISE_BINARY.contains(&name),
        _ => false,
    }
}

/// Whether `name` with `arity` arguments takes them in either order.
pub fn is_commutative(name: &str, arity: usize) -> bool {
    arity == 2 && COMMUTATIVE_BINARY.contains(&name)
}

/// Whether `name` with `arity` arguments aggregates all cells of its argument.
pub fn is_full_aggregate(name: &str, arity: usize) -> bool {
    arity == 1 && FULL_AGGREGATES.contains(&name)
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
}
