//! `rand(rows, cols, min, max, sparsity, pdf, lambda, seed)` generated block by block the
//! way SystemDS 3.4 does it, so that a seeded call gives SystemDS's numbers.
//!
//! The algorithm (SystemDS's `LibMatrixDatagen`):
//!
//! 1. The matrix is cut into blocks of [`BLOCK_SIZE`]² cells (the last block row and
//!    column are smaller). A `java.util.Random(seed)` yields 32 `nextInt()`s that seed a
//!    WELL1024a generator, whose `nextLong()`s give one seed per block, in row-major block
//!    order.
//! 2. Each block reseeds the value generator with its seed (uniform: `java.util.Random`;
//!    normal: Box–Muller over `java.util.Random`; Poisson: Commons Math over WELL1024a).
//!    The first value drawn, times `Long.MAX_VALUE` and truncated to a `long`, seeds a
//!    second `java.util.Random` that decides where the non-zeros go.
//! 3. With sparsity 1 every cell, row-major, takes the next value. Otherwise, if SystemDS
//!    would hold the block sparse (see [`super::block_format`]), the non-zeros are placed
//!    by geometric skips over the row-major cell index: `idx += ceil(ln(u) / ln(1 - p))`
//!    with `u` from the position generator, stopping past the block; else every cell
//!    draws `u` and is non-zero when `u <= p`. A non-zero cell is `min + (max - min) * v`
//!    (`min = 0`, `max = 1` for normal and Poisson).
//!
//! Uniform with `min == max == 0` or sparsity 0 gives zeros, and uniform with sparsity 1
//! and `min == max` gives a constant, without drawing anything.

use rayon::prelude::*;

use super::block_format::is_sparse_block;
use super::java_random::JavaRandom;
use super::normal::BoxMuller;
use super::poisson::PoissonDeviates;
use super::well1024a::Well1024a;
use crate::error::{ExecError, Result};
use crate::matrix::{prefer_sparse, CsrMatrix, DenseMatrix, Matrix};

/// SystemDS's default block size (`sysds.defaultblocksize`).
pub const BLOCK_SIZE: usize = 1000;

/// The distribution of the non-zero values.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Pdf {
    /// Uniform in `[min, max]`.
    Uniform { min: f64, max: f64 },
    /// Standard normal.
    Normal,
    /// Poisson with the given mean (DML's `lambda`).
    Poisson { mean: f64 },
}

/// What a DML `rand` call asks for, with a concrete seed (a random one is chosen by the
/// caller for `seed=-1`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DatagenSpec {
    pub rows: usize,
    pub cols: usize,
    pub sparsity: f64,
    pub pdf: Pdf,
    pub seed: i64,
}

/// Generates the matrix exactly as SystemDS does for the same arguments and seed.
pub fn systemds_rand(spec: &DatagenSpec) -> Result<Matrix> {
    validate(spec)?;
    let DatagenSpec {
        rows,
        cols,
        sparsity,
        seed,
        ..
    } = *spec;
    let cells = rows as f64 * cols as f64;
    let constant = shortcut(spec);
    let expected_nnz = match constant {
        Some(0.0) => 0.0,
        Some(_) => cells,
        None => (sparsity * cells).ceil(),
    };
    let dense = !prefer_sparse(rows, cols, expected_nnz as usize);
    ensure_memory(spec, dense, expected_nnz)?;
    if let Some(constant) = constant {
        return Ok(constant_matrix(rows, cols, constant));
    }
    let block_seeds = block_seeds(seed, rows.div_ceil(BLOCK_SIZE) * cols.div_ceil(BLOCK_SIZE));
    let col_blocks = cols.div_ceil(BLOCK_SIZE);
    let row_block_seeds = |rb: usize| &block_seeds[rb * col_blocks..(rb + 1) * col_blocks];

    if dense {
        let mut data = vec![0.0; rows * cols];
        if cols > 0 {
            data.par_chunks_mut(BLOCK_SIZE * cols)
                .enumerate()
                .for_each(|(rb, chunk)| {
                    generate_row_block(spec, rb, row_block_seeds(rb), |r, c, v| {
                        chunk[r * cols + c] = v
                    });
                });
        }
        return Ok(Matrix::Dense(DenseMatrix::from_vec(rows, cols, data)?));
    }

    let row_blocks: Vec<Vec<Vec<(u32, f64)>>> = (0..rows.div_ceil(BLOCK_SIZE))
        .into_par_iter()
        .map(|rb| {
            let height = BLOCK_SIZE.min(rows - rb * BLOCK_SIZE);
            let mut entries = vec![Vec::new(); height];
            generate_row_block(spec, rb, row_block_seeds(rb), |r, c, v| {
                if v != 0.0 {
                    entries[r].push((c as u32, v));
                }
            });
            entries
        })
        .collect();
    let nnz: usize = row_blocks.iter().flatten().map(Vec::len).sum();
    let mut indptr = Vec::with_capacity(rows + 1);
    let mut indices = Vec::with_capacity(nnz);
    let mut values = Vec::with_capacity(nnz);
    indptr.push(0);
    for row in row_blocks.into_iter().flatten() {
        for (c, v) in row {
            indices.push(c);
            values.push(v);
        }
        indptr.push(indices.len());
    }
    Ok(Matrix::Sparse(CsrMatrix::from_parts_unchecked(
        rows, cols, indptr, indices, values,
    )))
}

fn validate(spec: &DatagenSpec) -> Result<()> {
    let DatagenSpec {
        rows,
        cols,
        sparsity,
        pdf,
        ..
    } = *spec;
    if rows > i32::MAX as usize || cols > i32::MAX as usize {
        return Err(ExecError::invalid(format!(
            "rand: a {rows}x{cols} matrix is too large (rows and columns are limited to {})",
            i32::MAX
        )));
    }
    if !(0.0..=1.0).contains(&sparsity) {
        return Err(ExecError::invalid(format!(
            "rand: sparsity must be in [0, 1], got {sparsity}"
        )));
    }
    // A uniform `min > max` is accepted, as in SystemDS: values fall in `[max, min]`.
    match pdf {
        Pdf::Poisson { mean } if !(mean > 0.0 && mean.is_finite()) => Err(ExecError::invalid(
            format!("rand: lambda of a Poisson distribution must be positive, got {mean}"),
        )),
        _ => Ok(()),
    }
}

/// The constant of a uniform `rand` that SystemDS fills without drawing numbers.
fn shortcut(spec: &DatagenSpec) -> Option<f64> {
    if spec.sparsity == 0.0 {
        return Some(0.0);
    }
    match spec.pdf {
        Pdf::Uniform { min, max } if min == 0.0 && max == 0.0 => Some(0.0),
        Pdf::Uniform { min, max }
            if spec.sparsity == 1.0 && (min == max || (min.is_nan() && max.is_nan())) =>
        {
            Some(min)
        }
        _ => None,
    }
}

fn constant_matrix(rows: usize, cols: usize, value: f64) -> Matrix {
    if value == 0.0 && prefer_sparse(rows, cols, 0) {
        Matrix::Sparse(CsrMatrix::zeros(rows, cols))
    } else {
        Matrix::Dense(DenseMatrix::filled(rows, cols, value))
    }
}

/// One seed per block, in row-major block order.
fn block_seeds(seed: i64, blocks: usize) -> Vec<i64> {
    let mut scrambler = JavaRandom::new(seed);
    let words: Vec<i32> = (0..32).map(|_| scrambler.next_int()).collect();
    let mut seeds = Well1024a::from_words(&words);
    (0..blocks).map(|_| seeds.next_long()).collect()
}

/// The generator of cell values of one block.
enum Values {
    Uniform(JavaRandom),
    Normal(BoxMuller),
    Poisson(PoissonDeviates),
}

impl Values {
    fn seeded(pdf: Pdf, seed: i64) -> Self {
        match pdf {
            Pdf::Uniform { .. } => Values::Uniform(JavaRandom::new(seed)),
            Pdf::Normal => Values::Normal(BoxMuller::new(seed)),
            Pdf::Poisson { mean } => Values::Poisson(PoissonDeviates::new(mean, seed)),
        }
    }

    fn next(&mut self) -> f64 {
        match self {
            Values::Uniform(r) => r.next_double(),
            Values::Normal(g) => g.next_deviate(),
            Values::Poisson(p) => p.next_deviate(),
        }
    }
}

/// Generates the blocks of one block row left to right, reporting each non-zero (and,
/// for sparsity 1, each cell) as (row within the block row, column, value).
fn generate_row_block(
    spec: &DatagenSpec,
    row_block: usize,
    seeds: &[i64],
    mut sink: impl FnMut(usize, usize, f64),
) {
    let (min, range) = match spec.pdf {
        Pdf::Uniform { min, max } => (min, max - min),
        _ => (0.0, 1.0),
    };
    let p = spec.sparsity;
    let height = BLOCK_SIZE.min(spec.rows - row_block * BLOCK_SIZE);
    for (cb, &seed) in seeds.iter().enumerate() {
        let col0 = cb * BLOCK_SIZE;
        let width = BLOCK_SIZE.min(spec.cols - col0);
        let mut values = Values::seeded(spec.pdf, seed);
        // Java's saturating double-to-long cast, as Rust's `as`.
        let position_seed = (values.next() * i64::MAX as f64) as i64;
        let mut positions = JavaRandom::new(position_seed);
        let expected = (p * height as f64 * width as f64) as i64;
        if p < 1.0 && is_sparse_block(height, width, expected) {
            let log_q = (1.0 - p).ln();
            let cells = (height * width) as i64;
            let mut idx: i64 = 0;
            while idx < cells {
                let skip = (positions.next_double().ln() / log_q).ceil() as i64;
                idx = idx.saturating_add(skip);
                if idx > cells {
                    break;
                }
                let cell = (idx - 1) as usize;
                sink(
                    cell / width,
                    col0 + cell % width,
                    min + range * values.next(),
                );
            }
        } else if p == 1.0 {
            for r in 0..height {
                for c in 0..width {
                    sink(r, col0 + c, min + range * values.next());
                }
            }
        } else {
            for r in 0..height {
                for c in 0..width {
                    if positions.next_double() <= p {
                        sink(r, col0 + c, min + range * values.next());
                    }
                }
            }
        }
    }
}

/// Fails with a clear error, before anything is allocated, when the result cannot fit:
/// more bytes than the machine has memory, or than the allocator will reserve. (A lazily
/// zeroed allocation could succeed and only abort once the values are written.)
fn ensure_memory(spec: &DatagenSpec, dense: bool, expected_nnz: f64) -> Result<()> {
    let rows = spec.rows as f64;
    let bytes = if dense {
        8.0 * rows * spec.cols as f64
    } else {
        // Row pointers and per-row buffers, then a column index and a value per non-zero
        // (held twice while the rows are assembled).
        32.0 * (rows + 1.0) + 28.0 * expected_nnz
    };
    let too_large = || ExecError::OverBudget {
        what: format!(
            "rand: a {}x{} matrix with sparsity {}",
            spec.rows, spec.cols, spec.sparsity
        ),
        bytes,
        budget: crate::memory::budget().min(isize::MAX as f64),
    };
    if bytes > crate::memory::budget() || bytes > isize::MAX as f64 {
        return Err(too_large());
    }
    let mut probe: Vec<u8> = Vec::new();
    probe
        .try_reserve_exact(bytes as usize)
        .map_err(|_| too_large())
}
