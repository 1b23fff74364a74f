//! Front end for a subset of SystemDS's DML (R-like linear-algebra scripts).
//!
//! [`parse`] turns a script into an [`ast::Program`]; errors are [`diag::Diagnostic`]s
//! that render with line, column and a caret snippet.

pub mod ast;
pub mod diag;
