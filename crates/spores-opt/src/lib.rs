//! The SPORES optimizer.
//!
//! Where it sits: an optimizer between the DML front end (`spores-lang`) and the matrix
//! engine (`spores-exec`); it prices plans with `spores-sparsity` and extracts with
//! `spores-extract`, and depends on no other optimizer.
//!
//! [`la`] is the optimizer's input and output language: linear-algebra expressions over
//! named inputs whose shapes (numbers or symbols) and sparsity are known.
//! [`canon`] decides equivalence by relational canonical forms (`spores equiv`),
//! [`eval`] evaluates them numerically, [`saturate::optimize`] rewrites them by relational equality saturation, [`extract`]
//! reads plans back out, and [`cost`] prices them.

pub mod canon;
pub mod cost;
pub mod eval;
pub mod extract;
pub mod functions;
pub mod fused;
pub mod la;
pub mod policy;
pub mod saturate;
mod tables;
pub mod verified;
