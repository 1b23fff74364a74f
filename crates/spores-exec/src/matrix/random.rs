//! Fast seeded random matrices for benchmarks, examples and tests (uniform values, a
//! given sparsity, one generator per row, independent of the thread count).
//!
//! DML's `rand` does not use this: it goes through [`crate::random`], which reproduces
//! SystemDS's generators.

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;
use rayon::prelude::*;

use crate::error::{ExecError, Result};
use crate::matrix::{CsrMatrix, DenseMatrix, Matrix};

/// What DML's `rand` asks for. Values are uniform in `[min, max]`; each cell is
/// non-zero with probability `sparsity`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RandSpec {
    pub rows: usize,
    pub cols: usize,
    pub min: f64,
    pub max: f64,
    pub sparsity: f64,
    pub seed: u64,
}

impl RandSpec {
    /// `rows x cols` values uniform in `[min, max]`, a `sparsity` fraction of them non-zero.
    pub fn uniform(
        rows: usize,
        cols: usize,
        (min, max): (f64, f64),
        sparsity: f64,
        seed: u64,
    ) -> Self {
        RandSpec {
            rows,
            cols,
            min,
            max,
            sparsity,
            seed,
        }
    }
}

/// Draws a random matrix. The result depends only on the spec (not on the thread count):
/// every row has its own generator derived from the seed and the row number.
///
/// Sparse matrices are drawn by geometric skipping, so the cost is linear in the number of
/// non-zeros rather than in the number of cells.
pub fn rand_matrix(spec: &RandSpec) -> Result<Matrix> {
    if !(0.0..=1.0).contains(&spec.sparsity) {
        return Err(ExecError::invalid(format!(
            "rand: sparsity must be in [0, 1], got {}",
            spec.sparsity
        )));
    }
    if spec.min > spec.max {
        return Err(ExecError::invalid(format!(
            "rand: min {} is greater than max {}",
            spec.min, spec.max
        )));
    }
    let (rows, cols, seed) = (spec.rows, spec.cols, spec.seed);
    let (min, max, sparsity) = (spec.min, spec.max, spec.sparsity);
    let value = move |rng: &mut Pcg64Mcg| min + (max - min) * unit(rng);
    let row_rng = move |i: usize| {
        Pcg64Mcg::seed_from_u64(seed ^ (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15))
    };

    if sparsity >= 1.0
        || !super::prefer_sparse(rows, cols, (sparsity * (rows * cols) as f64) as usize)
    {
        let mut data = vec![0.0; rows * cols];
        if cols > 0 {
            data.par_chunks_mut(cols).enumerate().for_each(|(i, row)| {
                let mut rng = row_rng(i);
                for cell in row.iter_mut() {
                    if sparsity >= 1.0 || unit(&mut rng) < sparsity {
                        *cell = value(&mut rng);
                    }
                }
            });
        }
        return Ok(Matrix::Dense(DenseMatrix::from_vec(rows, cols, data)?));
    }

    let per_row: Vec<(Vec<u32>, Vec<f64>)> = (0..rows)
        .into_par_iter()
        .map(|i| {
            let mut rng = row_rng(i);
            let mut idx = Vec::new();
            let mut val = Vec::new();
            if sparsity > 0.0 {
                let log_q = (1.0 - sparsity).ln();
                let mut j = 0usize;
                loop {
                    // Gap to the next non-zero cell is geometric with success probability `sparsity`.
                    let u = 1.0 - unit(&mut rng);
                    let gap = (u.ln() / log_q).floor();
                    if !gap.is_finite() || j as f64 + gap >= cols as f64 {
                        break;
                    }
                    j += gap as usize;
                    let v = value(&mut rng);
                    if v != 0.0 {
                        idx.push(j as u32);
                        val.push(v);
                    }
                    j += 1;
                }
            }
            (idx, val)
        })
        .collect();
    let mut indptr = Vec::with_capacity(rows + 1);
    indptr.push(0);
    let total: usize = per_row.iter().map(|(i, _)| i.len()).sum();
    let mut indices = Vec::with_capacity(total);
    let mut values = Vec::with_capacity(total);
    for (idx, val) in per_row {
        indices.extend_from_slice(&idx);
        values.extend_from_slice(&val);
        indptr.push(indices.len());
    }
    Ok(Matrix::Sparse(CsrMatrix::from_parts_unchecked(
        rows, cols, indptr, indices, values,
    )))
}

/// Uniform in [0, 1) from the top 53 bits.
fn unit(rng: &mut Pcg64Mcg) -> f64 {
    (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(rows: usize, cols: usize, sparsity: f64) -> RandSpec {
        RandSpec::uniform(rows, cols, (-1.0, 2.0), sparsity, 7)
    }

    #[test]
    fn dense_values_in_range_and_deterministic() {
        let a = rand_matrix(&spec(30, 20, 1.0)).unwrap();
        let b = rand_matrix(&spec(30, 20, 1.0)).unwrap();
        assert!(!a.is_sparse());
        assert!(a.approx_eq(&b, 0.0));
        let d = a.to_dense();
        assert!(d.data().iter().all(|v| (-1.0..=2.0).contains(v)));
        assert_eq!(a.nnz(), 600);
    }

    #[test]
    fn sparse_density_close_to_requested() {
        let m = rand_matrix(&spec(2000, 1000, 0.01)).unwrap();
        assert!(m.is_sparse());
        let density = m.density();
        assert!((density - 0.01).abs() < 0.001, "density {density}");
    }

    #[test]
    fn bad_arguments_are_errors() {
        assert!(rand_matrix(&spec(2, 2, 1.5)).is_err());
        let mut s = spec(2, 2, 1.0);
        s.min = 3.0;
        assert!(rand_matrix(&s).is_err());
    }
}
