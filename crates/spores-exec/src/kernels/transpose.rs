//! `t(X)`: transpose of dense and sparse matrices.
//!
//! Dense: cache-blocked (tiles of 32 × 32 cells, so each tile's source and destination
//! rows stay in L1) and parallel over panels of output rows. Sparse: the counting-sort
//! transpose of [`CsrMatrix::transpose`](crate::CsrMatrix::transpose), `O(nnz + rows + cols)`.

use rayon::prelude::*;

use super::matmul::par::{threads, zeroed, PAR_WORK};
use crate::matrix::{DenseMatrix, Matrix};

/// `t(m)`, keeping the input's format (a sparse row vector becomes a dense column
/// vector, following the format rule that column vectors are dense).
pub fn transpose(m: &Matrix) -> Matrix {
    match m {
        Matrix::Dense(d) => Matrix::Dense(transpose_dense(d)),
        Matrix::Sparse(s) => {
            let t = s.transpose();
            if t.cols() <= 1 {
                Matrix::Dense(t.to_dense())
            } else {
                Matrix::Sparse(t)
            }
        }
    }
}

/// Side of the square tiles the dense transpose copies at a time.
const TILE: usize = 32;

/// The transpose of a dense matrix as a new dense matrix. Vectors are a plain copy
/// (a `1 × n` and an `n × 1` row-major buffer are the same).
pub fn transpose_dense(m: &DenseMatrix) -> DenseMatrix {
    let (r, c) = (m.rows(), m.cols());
    if r <= 1 || c <= 1 {
        return DenseMatrix::from_vec(c, r, m.data().to_vec()).expect("same length");
    }
    let src = m.data();
    let mut out = zeroed(r * c);
    // Output row j is input column j; one task writes TILE output rows.
    let panel = |j0: usize, dst: &mut [f64]| {
        let jn = dst.len() / r;
        for i0 in (0..r).step_by(TILE) {
            let i1 = (i0 + TILE).min(r);
            for dj in 0..jn {
                let j = j0 + dj;
                let drow = &mut dst[dj * r + i0..dj * r + i1];
                for (di, d) in drow.iter_mut().enumerate() {
                    *d = src[(i0 + di) * c + j];
                }
            }
        }
    };
    if threads() > 1 && r * c >= PAR_WORK {
        out.par_chunks_mut(TILE * r)
            .enumerate()
            .for_each(|(p, dst)| panel(p * TILE, dst));
    } else {
        for (p, dst) in out.chunks_mut(TILE * r).enumerate() {
            panel(p * TILE, dst);
        }
    }
    DenseMatrix::from_vec(c, r, out).expect("r*c")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matrix::CsrMatrix;

    fn check(r: usize, c: usize) {
        let d = DenseMatrix::from_fn(r, c, |i, j| (i * 1000 + j) as f64);
        let t = transpose_dense(&d);
        assert_eq!((t.rows(), t.cols()), (c, r));
        for i in 0..r {
            for j in 0..c {
                assert_eq!(t.get(j, i), d.get(i, j), "cell ({i},{j}) of {r}x{c}");
            }
        }
    }

    #[test]
    fn dense_transpose_all_shapes() {
        for &(r, c) in &[
            (0, 0),
            (0, 5),
            (5, 0),
            (1, 1),
            (1, 7),
            (7, 1),
            (3, 4),
            (33, 65),
            (300, 257),
            (1000, 70),
        ] {
            check(r, c);
        }
    }

    #[test]
    fn sparse_transpose_and_formats() {
        let s = CsrMatrix::from_triplets(3, 4, &[(0, 3, 1.0), (2, 0, 2.0), (1, 1, 3.0)]).unwrap();
        let t = transpose(&Matrix::Sparse(s.clone()));
        assert!(t.is_sparse());
        assert_eq!(t.shape(), crate::Shape::new(4, 3));
        assert_eq!(t.get(3, 0), 1.0);
        assert_eq!(t.get(0, 2), 2.0);
        assert_eq!(t.get(1, 1), 3.0);
        assert_eq!(t.nnz(), 3);
        // A sparse row vector becomes a dense column vector.
        let row = CsrMatrix::from_triplets(1, 5, &[(0, 2, 4.0)]).unwrap();
        let col = transpose(&Matrix::Sparse(row));
        assert!(!col.is_sparse());
        assert_eq!(col.shape(), crate::Shape::new(5, 1));
        assert_eq!(col.get(2, 0), 4.0);
        // Dense stays dense.
        let d = transpose(&Matrix::Dense(DenseMatrix::filled(2, 3, 1.5)));
        assert!(!d.is_sparse());
        assert_eq!(d.shape(), crate::Shape::new(3, 2));
    }
}
