//! Front end for a subset of SystemDS's DML (R-like linear-algebra scripts).
//!
//! Where it sits: a front end (DML text → AST), on `spores-diag`; used by the `spores`
//! binary and by `spores-opt`, whose input language is DML's expressions.
//!
//! [`parse`] turns a script into an [`ast::Program`] and [`parse_expr`] a single
//! expression; errors are [`diag::Diagnostic`]s that render with line, column and a caret
//! snippet. `Expr` implements `Display`, printing DML text that parses back to the same
//! tree.

pub mod ast;
/// Spans and diagnostics live in `spores-diag`, shared with the tensor front end.
pub use spores_diag as diag;
pub mod lexer;
pub mod parser;
pub mod precedence;
mod printer;

/// Parses a whole DML script, stopping at the first syntax error.
///
/// ```
/// let prog = spores_lang::parse("X = rand(rows=10, cols=5)\nprint(sum(X))\n").unwrap();
/// assert_eq!(prog.body.len(), 2);
/// ```
pub fn parse(source: &str) -> Result<ast::Program, diag::Diagnostic> {
    parser::parse_program(source).map_err(|mut d| {
        d.static_error = true;
        d
    })
}

/// Parses one expression, such as `t(X) %*% (X %*% v)`; used by tools that take an
/// expression rather than a script.
///
/// ```
/// let e = spores_lang::parse_expr("-2^2").unwrap();
/// assert_eq!(e.to_string(), "-2^2");
/// ```
pub fn parse_expr(source: &str) -> Result<ast::Expr, diag::Diagnostic> {
    parser::parse_expression(source)
}
