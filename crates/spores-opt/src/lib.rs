//! The SPORES optimizer.
//!
//! [`la`] is the optimizer's input and output language: linear-algebra expressions over
//! named inputs whose shapes (numbers or symbols) and sparsity are known.

pub mod canon;
pub mod eval;
pub mod la;
