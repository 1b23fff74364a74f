//! The SPORES optimizer.
//!
//! [`la`] is the optimizer's input and output language: linear-algebra expressions over
//! named inputs whose shapes (numbers or symbols) and sparsity are known.
//! [`saturate::optimize`] rewrites them by relational equality saturation, [`extract`]
//! reads plans back out, and [`cost`] prices them.

pub mod cost;
pub mod extract;
pub mod la;
pub mod saturate;
