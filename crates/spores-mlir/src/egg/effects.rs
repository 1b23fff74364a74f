//! Which declared ops may become terms, and so be moved, merged or dropped: the ops MLIR
//! marks pure, and the ops or callees the rule file declares pure.
//!
//! A term is printed where the extraction needs it, once per class, and not at all when
//! nothing uses it; that is only right for an op without side effects. Declaring an op in a
//! rule file says how it looks as a term, not that it is pure: `func.call` has effects
//! unless its callee has none, and a call to `clock()` or to a timed kernel must keep its
//! place between the other effectful ops. An op with effects stays in place (an anchor of
//! [`super::eggify`]) and its result is an opaque value.
//!
//! Without MLIR's op registry at hand, purity is read from a list of the dialects whose ops
//! MLIR defines `Pure` (or without memory effects) when they work on values, minus the ops
//! of those dialects that read or write memory. An op with a `memref` operand or result
//! has effects whatever its dialect (linalg and vector ops on buffers). A rule file adds
//! pure ops with the relation `pure-op`: `(pure-op "func.call")` makes every call pure,
//! `(pure-op "@fast_inv_sqrt")` the calls to one callee.

use std::collections::HashSet;

use crate::builtin::{Attribute, Type};
use crate::ir::Operation;

/// Dialects whose ops on values MLIR marks pure.
const PURE_DIALECTS: &[&str] = &[
    "arith", "math", "index", "complex", "tensor", "linalg", "tosa",
];

/// Ops of other dialects that MLIR marks pure.
const PURE_OPS: &[&str] = &[
    "affine.apply",
    "affine.min",
    "affine.max",
    "affine.delinearize_index",
    "affine.linearize_index",
    "builtin.unrealized_conversion_cast",
    "ub.poison",
];

/// Ops of the vector dialect that read or write memory (the others work on values).
const VECTOR_MEMORY_OPS: &[&str] = &[
    "vector.load",
    "vector.store",
    "vector.maskedload",
    "vector.maskedstore",
    "vector.gather",
    "vector.scatter",
    "vector.expandload",
    "vector.compressstore",
    "vector.print",
];

/// The name of the relation rule files declare pure ops and callees in.
pub const PURE_RELATION: &str = "pure-op";

/// Whether `op` may be a term: MLIR marks it pure, or `declared` (the `pure-op` entries)
/// names it or its callee (`@name`).
pub fn may_move(op: &Operation, declared: &HashSet<String>) -> bool {
    if declared.contains(&op.name) {
        return true;
    }
    if let Some(Attribute::SymbolRef(path)) = op.attr("callee") {
        if path.len() == 1 && declared.contains(&format!("@{}", path[0])) {
            return true;
        }
    }
    let pure_name = match op.dialect() {
        d if PURE_DIALECTS.contains(&d) => true,
        "vector" => !VECTOR_MEMORY_OPS.contains(&op.name.as_str()),
        _ => PURE_OPS.contains(&op.name.as_str()),
    };
    let on_memory = op
        .operand_types
        .iter()
        .chain(&op.result_types)
        .any(|t| matches!(t, Type::MemRef { .. } | Type::UnrankedMemRef { .. }));
    pure_name && !on_memory
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op(text: &str) -> Operation {
        let m = crate::parse(text).expect("parses");
        let body = &m.ops[0].regions[0].blocks[0].ops;
        body[0].clone()
    }

    fn func(inner: &str, args: &str) -> String {
        format!("\"func.func\"() <{{function_type = ({args}) -> (), sym_name = \"f\"}}> ({{\n^bb0{}:\n{inner}\n\"func.return\"() : () -> ()\n}}) : () -> ()", if args.is_empty() { String::new() } else { format!("(%a: {args})") })
    }

    #[test]
    fn calls_have_effects_unless_declared_pure() {
        let call = op(&func(
            "%0 = \"func.call\"(%a) <{callee = @k}> : (f32) -> f32",
            "f32",
        ));
        assert!(!may_move(&call, &HashSet::new()));
        assert!(may_move(&call, &HashSet::from(["@k".to_string()])));
        assert!(may_move(&call, &HashSet::from(["func.call".to_string()])));
        assert!(!may_move(&call, &HashSet::from(["@other".to_string()])));
    }

    #[test]
    fn value_ops_are_pure_and_memory_ops_are_not() {
        let add = op(&func(
            "%0 = \"arith.addf\"(%a, %a) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32",
            "f32",
        ));
        assert!(may_move(&add, &HashSet::new()));
        let constant = op(&func(
            "%c = \"arith.constant\"() <{value = 0 : index}> : () -> index",
            "",
        ));
        assert!(may_move(&constant, &HashSet::new()));
        let on_buffer = op(&func("%0 = \"tensor.empty\"() : () -> memref<2xf32>", ""));
        assert!(!may_move(&on_buffer, &HashSet::new()));
    }
}
