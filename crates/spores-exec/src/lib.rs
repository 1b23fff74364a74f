//! Execution layer of spores: matrix formats, multithreaded sparsity-aware kernels,
//! and matrix file I/O.
//!
//! Where it sits: the bottom of the pipeline (it depends on no other spores crate); the
//! interpreter, the optimizers' reference evaluation and the tensor engine's fast paths run
//! its kernels.
//!
//! The layout follows the data flow: [`matrix`] holds the formats (row-major dense,
//! CSR and CSC sparse) and the automatic format choice; [`kernels`] holds the
//! operators the interpreter and the optimizer's physical plans call; [`io`] reads
//! and writes Matrix Market, CSV and NumPy `.npy` files.
//!
//! ```
//! use spores_exec::matrix::{DenseMatrix, Matrix};
//! let a = DenseMatrix::from_vec(2, 2, vec![1.0, 0.0, 0.0, 2.0]).unwrap();
//! let m = Matrix::Dense(a).into_best_format();
//! assert_eq!(m.nnz(), 2);
//! ```

pub mod error;
pub mod io;
pub mod java_hash;
pub mod kernels;
pub mod matrix;
pub mod memory;
pub mod random;
mod shape;
#[cfg(test)]
mod testing;

pub use error::{CompressedError, ExecError, Result};
pub use matrix::{CscMatrix, CsrMatrix, DenseMatrix, Matrix, Shape};
