//! Running a script: control flow around per-block DAGs.

mod args;
mod compiler;
mod env;
pub mod error;
pub mod frame;
mod guard;
mod interp;
pub mod library;
pub mod list;
pub mod liveness;
pub mod native;
pub mod ops;
mod options;
mod printf;
mod relational;
mod seed;
pub mod stats;
pub mod value;

pub use compiler::BlockKey;
pub use error::RuntimeError;
pub use interp::{Interpreter, INTERRUPTED};
pub use options::RunOptions;
pub use stats::Stats;
pub use value::Value;
