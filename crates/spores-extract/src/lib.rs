//! Extraction reduced to a graph problem, below both e-graph optimizers, what bounds
//! their searches ([`runner`]: work budgets, the time safety net, stop reasons), and the
//! one check of a user's rule file both take ([`rules_file`]: commands that would run
//! outside the limits are refused, includes resolved with a cycle check and a depth limit).
//!
//! `spores-opt` (LA expressions) and `spores-mlir` (MLIR programs) each strip their e-graph
//! down to a [`dag::CandGraph`]: classes, each with candidate operators that have a cost of
//! their own and child classes. This crate owns that problem, its DAG cost (a class shared by
//! several parents is paid once) and the [`ilp`] extractor that minimizes it, so neither
//! optimizer depends on the other.
//!
//! ```
//! use spores_extract::dag::{dag_cost, CandGraph, CandNode};
//!
//! // Class 0 (the root) is computed from class 1 twice over; class 1 has one candidate.
//! let g = CandGraph {
//!     classes: vec![
//!         vec![CandNode { cost: 1.0, children: vec![1, 1] }],
//!         vec![CandNode { cost: 5.0, children: vec![] }],
//!     ],
//!     root: 0,
//! };
//! assert_eq!(dag_cost(&g, &vec![Some(0), Some(0)]), Ok(6.0));
//! ```

pub mod dag;
pub mod ilp;
pub mod rules_file;
pub mod runner;
