//! Running a script: control flow around per-block DAGs.

pub mod file_matrix;
mod guard;
mod interp;
pub mod library;
pub mod list;
pub mod native;
pub mod ops;
mod printf;
pub mod stats;
pub mod value;

pub use interp::{Interpreter, RunOptions, INTERRUPTED};
pub use stats::Stats;
pub use value::Value;
