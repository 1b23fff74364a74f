//! Optimized sum-product plans of spores, run as relational queries on Apache DataFusion.
//!
//! Where it sits: beside the local engine, below the CLI. It takes what the optimizer
//! (`spores-opt`) extracts — an [`LaExpr`](spores_opt::la::LaExpr) over named inputs, fused
//! operators included — and runs it on DataFusion; the results come back as
//! `spores-exec` matrices. No optimizer crate depends on it.
//!
//! - [`coo`]: a matrix is the K-relation of its non-zero cells, `(i, j, v)` as Arrow
//!   record batches; a dimension of size 1 carries no index (scalars are one-row relations).
//! - [`lower`]: each LA operator becomes its relational meaning (joins, unions,
//!   aggregates), fused operators expanded to theirs, as a DataFusion `LogicalPlan`.
//! - [`broadcast`]: beside an input too large to hold, small operands (a vector, rank-k
//!   factors) are held in memory and read by index instead of joined.
//! - [`fold`]: a small result of a streamed relation (`X %*% v`, `X %*% V` with rank-k
//!   `V`) summed into a dense array per stream instead of a hash aggregate.
//! - [`tensor`]: a tensor program's logical plan (Galley's aggregation order), query by
//!   query, over relations of stored entries with fill values.
//! - [`source`]: a leaf's tuples, from a matrix in memory or a Parquet COO file scanned
//!   row group by row group.
//! - [`engine`]: a local `SessionContext` whose memory pool ([`memory`]) is the memory
//!   budget, spilling to disk beyond it.
//! - `ballista` (feature `ballista`): the same plans submitted to an Apache Ballista
//!   scheduler, and a scheduler and executors (in this process or as processes of their
//!   own) that decode spores' plan pieces: `codec` (held lookups and folds on the wire)
//!   and `fold_exec` (a fold as a plan node run next to the data).
//!
//! ```
//! use std::collections::HashMap;
//! use spores_dist::{DataFusionEngine, EngineConfig};
//! use spores_exec::{DenseMatrix, Matrix};
//! use spores_opt::la::LaExpr;
//! let engine = DataFusionEngine::new(EngineConfig::default()).unwrap();
//! let mut inputs = HashMap::new();
//! let x = DenseMatrix::from_vec(2, 2, vec![1.0, 0.0, 0.0, 2.0]).unwrap();
//! inputs.insert("X".to_string(), Matrix::Dense(x));
//! let e = LaExpr::parse("sum(t(X) %*% X)").unwrap();
//! assert_eq!(engine.run(&e, &inputs).unwrap().as_scalar(), Some(5.0));
//! ```
//!
//! # Build cost
//!
//! DataFusion 55 with `default-features = false` (no SQL front end, no file formats, no
//! compression): see the crate README for the measured clean build time and binary size.

#[cfg(feature = "ballista")]
pub mod ballista;
pub mod broadcast;
#[cfg(feature = "ballista")]
pub mod codec;
pub mod coo;
pub mod engine;
pub mod error;
pub mod fold;
#[cfg(feature = "ballista")]
pub mod fold_exec;
pub mod lower;
pub mod memory;
pub mod source;
pub mod tensor;

pub use engine::{DataFusionEngine, EngineConfig};
pub use error::DistError;
pub use source::{FileScan, Input, Leaf};
