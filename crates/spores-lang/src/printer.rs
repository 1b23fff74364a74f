//! DML source text for expressions (`impl Display for Expr`).
//!
//! The output parses back to the same tree (up to spans): parentheses are added exactly
//! where the precedence rules in [`crate::precedence`] require them, and literals are
//! written so that they lex back to the same kind (`3` stays an `Int`, `3.0` a `Double`).
//! The optimizer uses this to show rewritten expressions.

use crate::ast::{Arg, BinaryOp, Expr, ExprKind, Index, UnaryOp};
use crate::precedence::{expr_level, operand_levels, unary_operand_level, Level};
use std::fmt::{self, Display, Formatter, Write};

impl Display for Expr {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write_expr(f, self, 0)
    }
}

/// Writes `e`, in parentheses if it binds more loosely than `min`.
fn write_expr(f: &mut Formatter<'_>, e: &Expr, min: Level) -> fmt::Result {
    if expr_level(&e.kind) < min {
        f.write_char('(')?;
        write_bare(f, e)?;
        f.write_char(')')
    } else {
        write_bare(f, e)
    }
}

fn write_bare(f: &mut Formatter<'_>, e: &Expr) -> fmt::Result {
    match &e.kind {
        ExprKind::Int(v) => write!(f, "{v}"),
        ExprKind::Double(v) => write_double(f, *v),
        ExprKind::Str(s) => write_string(f, s),
        ExprKind::Bool(true) => f.write_str("TRUE"),
        ExprKind::Bool(false) => f.write_str("FALSE"),
        ExprKind::Var(name) => f.write_str(name),
        ExprKind::CmdArg(name) => write!(f, "${name}"),
        ExprKind::Unary { op, expr } => {
            f.write_str(match op {
                UnaryOp::Neg => "-",
                UnaryOp::Plus => "+",
                UnaryOp::Not => "!",
            })?;
            write_expr(f, expr, unary_operand_level(*op))
        }
        ExprKind::Binary { op, lhs, rhs } => {
            let (l, r) = operand_levels(*op);
            write_expr(f, lhs, l)?;
            if *op == BinaryOp::Pow {
                f.write_char('^')?;
            } else {
                write!(f, " {} ", op.symbol())?;
            }
            write_expr(f, rhs, r)
        }
        ExprKind::Call { name, args } => {
            write!(f, "{name}(")?;
            for (i, Arg { name, value }) in args.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                if let Some(n) = name {
                    write!(f, "{n}=")?;
                }
                write_expr(f, value, 0)?;
            }
            f.write_char(')')
        }
        ExprKind::Index { target, rows, cols } => {
            write_expr(f, target, crate::precedence::ATOM)?;
            f.write_char('[')?;
            write_index(f, rows)?;
            f.write_str(", ")?;
            write_index(f, cols)?;
            f.write_char(']')
        }
        ExprKind::Vector(items) => {
            f.write_char('[')?;
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                write_expr(f, item, 0)?;
            }
            f.write_char(']')
        }
    }
}

fn write_index(f: &mut Formatter<'_>, ix: &Index) -> fmt::Result {
    match ix {
        Index::All => Ok(()),
        Index::Single(e) => write_expr(f, e, 0),
        Index::Range(lo, hi) => {
            write_expr(f, lo, 0)?;
            f.write_char(':')?;
            write_expr(f, hi, 0)
        }
    }
}

/// Doubles always show a `.` or an exponent so they read back as doubles. Infinities and
/// NaN have no literal syntax; they print as R does (`Inf`, `-Inf`, `NaN`).
fn write_double(f: &mut Formatter<'_>, v: f64) -> fmt::Result {
    if v.is_nan() {
        f.write_str("NaN")
    } else if v.is_infinite() {
        f.write_str(if v > 0.0 { "Inf" } else { "-Inf" })
    } else {
        // `{:?}` prints the shortest text that reads back exactly, with `.0` or `e`.
        write!(f, "{v:?}")
    }
}

fn write_string(f: &mut Formatter<'_>, s: &str) -> fmt::Result {
    f.write_char('"')?;
    for c in s.chars() {
        match c {
            '"' => f.write_str("\\\"")?,
            '\\' => f.write_str("\\\\")?,
            '\n' => f.write_str("\\n")?,
            '\t' => f.write_str("\\t")?,
            '\r' => f.write_str("\\r")?,
            '\u{8}' => f.write_str("\\b")?,
            '\u{c}' => f.write_str("\\f")?,
            c => f.write_char(c)?,
        }
    }
    f.write_char('"')
}
