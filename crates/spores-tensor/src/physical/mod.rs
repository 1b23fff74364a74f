//! The physical optimizer (Galley §6): logical plan → physical plan (loop order, output formats,
//! merge protocols, transpositions).
//!
//! [`naive_physical`] is the unoptimized baseline: loops in output-then-reduction order,
//! transposing any input that is not concordant with it.

mod naive;

pub use naive::naive_physical;
