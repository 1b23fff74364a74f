//! SystemDS's choice between a sparse and a dense in-memory block
//! (`MatrixBlock.evalSparseFormatInMemory` with its size estimates for an MCSR sparse block
//! and an FP64 dense block, in bytes of a 64-bit JVM).
//!
//! `rand` asks this question for every 1000×1000 block, and the answer picks the
//! generation algorithm: a sparse block places its non-zeros by geometric skips, a dense
//! one draws a uniform per cell to decide whether it is non-zero. The answer therefore
//! decides which numbers come out, and is reproduced exactly, size estimates included.

/// Density below which a block may be sparse (`SPARSITY_TURN_POINT`).
const SPARSITY_TURN_POINT: f64 = 0.4;
/// Object header, three ints, a boolean, padding, the non-zero count and two references.
const MATRIX_BLOCK_HEADER: f64 = 56.0;
/// A dense block object (header, an int, padding, a one-int dimension array, a reference).
const DENSE_BLOCK_OBJECT: f64 = 64.0;
/// A sparse row object with its empty index and value arrays.
const SPARSE_ROW_OBJECT: f64 = 88.0;
/// Column index and value of one non-zero.
const SPARSE_ENTRY: f64 = 12.0;
/// Initial capacity of a sparse row (`SparseRowVector.initialCapacity`).
const SPARSE_ROW_CAPACITY: f64 = 4.0;

/// Header and padding of a Java array of 8-byte elements, plus the reference to it.
fn array_of_8_byte(len: f64) -> f64 {
    32.0 + 8.0 * len
}

/// Whether SystemDS keeps a `rows`×`cols` block with `nnz` non-zeros in sparse format.
pub fn is_sparse_block(rows: usize, cols: usize, nnz: i64) -> bool {
    let (r, c) = (rows as f64, cols as f64);
    let density = nnz as f64 / r / c;
    let wants_sparse = density < SPARSITY_TURN_POINT && cols > 1;
    let sparse_bytes = MATRIX_BLOCK_HEADER
        + if density == 0.0 {
            0.0
        } else {
            mcsr_bytes(r, c, density)
        };
    let dense_bytes = MATRIX_BLOCK_HEADER + DENSE_BLOCK_OBJECT + array_of_8_byte(r * c);
    // Both estimates are truncated to Java longs before they are compared.
    wants_sparse && (sparse_bytes as i64) < (dense_bytes as i64)
}

/// Estimated size of a modified-CSR block (an array of sparse rows).
fn mcsr_bytes(rows: f64, cols: f64, density: f64) -> f64 {
    let nnz = (density * rows * cols).ceil();
    let filled_rows = rows.min(nnz);
    let per_row = SPARSE_ROW_CAPACITY.max(nnz / filled_rows);
    // The row size is a Java long, so the fractional part of the entry bytes is dropped.
    let row_bytes = (SPARSE_ROW_OBJECT + SPARSE_ENTRY * per_row.max(1.0)) as i64 as f64;
    16.0 + array_of_8_byte(rows) + filled_rows * row_bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_blocks_stay_dense_even_when_sparse() {
        // 3x4 at sparsity 0.1: one expected non-zero, but an MCSR block would be larger.
        assert!(!is_sparse_block(3, 4, 1));
        // No expected non-zero at all: an empty sparse block is the smaller one.
        assert!(is_sparse_block(3, 3, 0));
    }

    #[test]
    fn full_blocks_follow_the_turn_point() {
        assert!(is_sparse_block(1000, 1000, 100_000));
        assert!(is_sparse_block(1000, 1000, 399_999));
        assert!(!is_sparse_block(1000, 1000, 400_000));
        assert!(!is_sparse_block(1000, 1000, 700_000));
        // A column vector is never sparse.
        assert!(!is_sparse_block(1000, 1, 10));
    }
}
