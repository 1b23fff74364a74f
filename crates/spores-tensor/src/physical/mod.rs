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
//!
//! The modules follow Galley's PhysicalOptimizer, one decision each, in the order
//! [`optimize`] takes them:
//!
//! - `optimize.rs`: the driver (statistics and loops of every query, storage orders, then
//!   kernels) and [`PhysicalOptions`].
//! - `accesses.rs`: the statistics and accesses every decision reads.
//! - `loop_order.rs`: the loop order of each query (§6.1).
//! - `formats.rs`: output level formats, and the formats inputs will have (§6.2).
//! - `reads.rs`: how each access is read (as stored, swapped, or transposed).
//! - `protocols.rs`: merge protocols, the leader of each loop or an intersection (§6.3).
//! - `cse.rs`: common sub-expression elimination over the kernels (§6.4).
//! - `naive.rs`: the baseline.

mod accesses;
mod cse;
mod formats;
mod loop_order;
mod naive;
mod optimize;
mod protocols;
mod reads;

pub use cse::eliminate_common_subexpressions;
pub use formats::format_by_memory_traffic;
pub use naive::naive_physical;
pub use optimize::{optimize, to_logical, PhysicalOptions};
