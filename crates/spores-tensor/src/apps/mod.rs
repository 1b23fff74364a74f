//! Applications built on the whole pipeline (parse → logical → physical → engine), not
//! stages of it: they sit above the optimizers and the engine and depend on them, never the
//! other way round.
//!
//! - [`bfs`]: breadth-first search, each level a tensor program re-planned from the current
//!   frontier's statistics (Galley §8.3).

pub mod bfs;
