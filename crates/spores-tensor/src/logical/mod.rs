//! The logical optimizer (Galley §5): input program → logical plan of single-aggregate
//! queries.
//!
//! [`naive_plan`] is the unoptimized baseline: every aggregate becomes its own query where it
//! stands, with no normalization, push-down or reordering. Optimized plans are compared with it.

mod naive;

pub use naive::naive_plan;
