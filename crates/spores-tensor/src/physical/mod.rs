//! The physical optimizer (Galley §6): logical plan → physical plan (loop order, output formats,
//! merge protocols, transpositions).
//!
//! [`naive_physical`] is the unoptimized baseline: loops in output-then-reduction order,
//! transposing any input that is not concordant with it. [`optimize`] is Galley's optimizer.
//!
//! Protocols: in each loop, the leader ([`Protocol::Iterate`](crate::plan_ast::Protocol)) is
//! an access whose fill value forces the whole body to its fill (a factor of a product with
//! fill 0), so walking its coordinates visits every non-fill result. When no access at that
//! loop has that property (a union such as `A[i] + B[i]`), every access there is a
//! `Lookup`: the engine must walk the loop's whole dimension (or the union of coordinates).

mod naive;
mod optimize;

pub use naive::naive_physical;
pub use optimize::{
    eliminate_common_subexpressions, format_by_memory_traffic, optimize, to_logical,
    PhysicalOptions,
};
