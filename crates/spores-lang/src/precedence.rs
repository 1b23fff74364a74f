//! Operator precedence of DML (which follows R), shared by the parser and the printer so
//! that printing then parsing gives back the same tree.
//!
//! From loosest to tightest: `|` `||`, `&` `&&`, unary `!`, comparisons, `+ -`, `* /`,
//! `%*% %% %/%`, unary `- +`, `^` (right-associative; its right operand may start with a
//! unary minus, as in `2^-1`), then indexing and calls. R's `:` sits between unary minus
//! and `%any%`, but in DML `:` only separates the bounds of a `for` range or an index range
//! (`X[a:b, ]`), so it is not an expression operator here.

use crate::ast::{BinaryOp, ExprKind, UnaryOp};

/// Binding strength; a larger level binds tighter.
pub type Level = u8;

/// `|`
pub const OR: Level = 1;
/// `&`
pub const AND: Level = 2;
/// Prefix `!`; its operand is parsed at [`COMPARE`], so `!a == b` is `!(a == b)`.
pub const NOT: Level = 3;
/// `== != < <= > >=`
pub const COMPARE: Level = 4;
/// `+ -`
pub const ADD: Level = 5;
/// `* /`
pub const MUL: Level = 6;
/// `%*% %% %/%`
pub const SPECIAL: Level = 7;
/// Prefix `-` and `+`; the operand is parsed at this level, so `-a^b` is `-(a^b)`.
pub const UNARY: Level = 8;
/// `^`
pub const POW: Level = 9;
/// Literals, names, calls, indexing and parenthesized expressions.
pub const ATOM: Level = 10;

/// The level of a binary operator.
pub fn binary_level(op: BinaryOp) -> Level {
    match op {
        BinaryOp::Or => OR,
        BinaryOp::And => AND,
        BinaryOp::Eq | BinaryOp::Ne | BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge => {
            COMPARE
        }
        BinaryOp::Add | BinaryOp::Sub => ADD,
        BinaryOp::Mul | BinaryOp::Div => MUL,
        BinaryOp::MatMul | BinaryOp::Mod | BinaryOp::IntDiv => SPECIAL,
        BinaryOp::Pow => POW,
    }
}

/// Minimum levels of the left and right operands of a binary operator: left-associative
/// operators need a tighter right operand; `^` is right-associative, its left operand must
/// be an atom (`(-2)^2`, `(a^b)^c`) and its right operand may be a unary minus.
pub fn operand_levels(op: BinaryOp) -> (Level, Level) {
    match op {
        BinaryOp::Pow => (ATOM, UNARY),
        _ => {
            let l = binary_level(op);
            (l, l + 1)
        }
    }
}

/// The level a prefix operator's operand is parsed at.
pub fn unary_operand_level(op: UnaryOp) -> Level {
    match op {
        UnaryOp::Not => COMPARE,
        UnaryOp::Neg | UnaryOp::Plus => UNARY,
    }
}

/// The level of an expression node, for deciding where the printer needs parentheses.
/// Negative numeric literals print with a leading `-`, so they rank as unary minus.
pub fn expr_level(kind: &ExprKind) -> Level {
    match kind {
        ExprKind::Binary { op, .. } => binary_level(*op),
        ExprKind::Unary {
            op: UnaryOp::Not, ..
        } => NOT,
        ExprKind::Unary { .. } => UNARY,
        ExprKind::Int(v) if *v < 0 => UNARY,
        ExprKind::Double(v) if v.is_sign_negative() => UNARY,
        _ => ATOM,
    }
}
