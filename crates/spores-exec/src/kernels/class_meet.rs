//! `[C, N] = rowClassMeet(A, B)`: the coarsest common refinement of two labellings of
//! each row.
//!
//! Row `i` of `A` labels its columns into classes (`A[i, j] == A[i, k] != 0`: `j` and `k`
//! are in one class; `0`: column `j` is left out), as does row `i` of `B` (or `B`'s only
//! row, which then applies to every row of `A`). `C[i, j]` numbers the classes of the
//! pairs `(A[i, j], B[i, j])` of nonzero labels `1, 2, ...` and `N[i, j]` is the size of
//! `j`'s class; both are 0 where either label is. Labels are read as 32-bit integers,
//! truncated as SystemDS's `(int)` casts truncate.
//!
//! The numbering follows SystemDS 3.4 (`LibCommonsMath.computeRCM`), which numbers a
//! row's classes in the iteration order of a Java `HashMap` keyed by the label pair:
//! bucket by bucket, each bucket in insertion order, where the table keeps the capacity
//! earlier rows grew it to (`clear()` does not shrink it). [`JavaHashOrder`] reproduces
//! that order. Where a bucket would grow past eight pairs in a table of 64 buckets or
//! more, Java turns it into a tree and the numbering can differ from SystemDS's; the
//! classes (which columns share a label) and `N` are the same either way.

use crate::error::{ExecError, Result};
use crate::java_hash::JavaHashOrder;
use crate::matrix::{DenseMatrix, Matrix};

/// `[C, N] = rowClassMeet(A, B)`; both results are `max(nrow) x max(ncol)`, with the
/// columns beyond `min(ncol(A), ncol(B))` and the rows beyond `nrow(A)` zero, as
/// SystemDS pads them.
pub fn row_class_meet(a: &Matrix, b: &Matrix) -> Result<(Matrix, Matrix)> {
    let broadcast = b.rows() == 1;
    if !broadcast && b.rows() < a.rows() {
        return Err(ExecError::invalid(format!(
            "rowClassMeet: B has {} rows, fewer than A's {} (and not one row that applies to every row of A)",
            b.rows(),
            a.rows()
        )));
    }
    let rows = a.rows().max(b.rows());
    let cols = a.cols().max(b.cols());
    let shared = a.cols().min(b.cols());
    // Two dense results.
    crate::memory::ensure_fits("rowClassMeet", 16.0 * rows as f64 * cols as f64)?;
    let mut classes = DenseMatrix::zeros(rows, cols);
    let mut sizes = DenseMatrix::zeros(rows, cols);
    let mut order: JavaHashOrder<LabelPair, Vec<usize>> = JavaHashOrder::new();
    for i in 0..a.rows() {
        order.clear();
        let bi = if broadcast { 0 } else { i };
        for j in 0..shared {
            let (x, y) = (java_int(a.get(i, j)), java_int(b.get(bi, j)));
            if x != 0 && y != 0 {
                order.entry((x, y), label_hash((x, y)), Vec::new).push(j);
            }
        }
        for (label, (_, members)) in order.iter().enumerate() {
            for &j in members {
                classes.set(i, j, (label + 1) as f64);
                sizes.set(i, j, members.len() as f64);
            }
        }
    }
    Ok((
        Matrix::Dense(classes).into_best_format(),
        Matrix::Dense(sizes).into_best_format(),
    ))
}

/// Java's `(int) x`: toward zero, saturating, NaN to 0 (as Rust's `as` casts).
fn java_int(x: f64) -> i32 {
    x as i32
}

/// A row's pair of labels `(A[i, j], B[i, j])`.
type LabelPair = (i32, i32);

/// `ClassLabel.hashCode()`: `31 * (31 + a) + b` in wrapping `int` arithmetic.
fn label_hash((a, b): LabelPair) -> i32 {
    31i32.wrapping_mul(31i32.wrapping_add(a)).wrapping_add(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dense(rows: usize, cols: usize, v: &[f64]) -> Matrix {
        Matrix::Dense(DenseMatrix::from_vec(rows, cols, v.to_vec()).unwrap())
    }

    fn cells(m: &Matrix) -> Vec<f64> {
        m.to_dense().data().to_vec()
    }

    #[test]
    fn classes_are_the_pairs_of_labels_numbered_in_java_hash_order() {
        // Pairs (1,1) hash 993, (2,1) 1024, (1,2) 994: buckets 1, 0, 2 of 16, so (2,1)
        // is class 1, (1,1) class 2 and (1,2) class 3.
        let a = dense(1, 5, &[1.0, 2.0, 1.0, 0.0, 1.0]);
        let b = dense(1, 5, &[1.0, 1.0, 2.0, 1.0, 1.0]);
        let (c, n) = row_class_meet(&a, &b).unwrap();
        assert_eq!(cells(&c), vec![2.0, 1.0, 3.0, 0.0, 2.0]);
        assert_eq!(cells(&n), vec![2.0, 1.0, 1.0, 0.0, 2.0]);
    }

    #[test]
    fn one_row_of_b_applies_to_every_row_and_shapes_pad_with_zeros() {
        let a = dense(2, 3, &[1.0, 1.0, 2.0, 3.0, 3.0, 3.0]);
        let b = dense(1, 2, &[5.0, 5.0]);
        let (c, n) = row_class_meet(&a, &b).unwrap();
        assert_eq!((c.rows(), c.cols()), (2, 3));
        assert_eq!(cells(&c), vec![1.0, 1.0, 0.0, 1.0, 1.0, 0.0]);
        assert_eq!(cells(&n), vec![2.0, 2.0, 0.0, 2.0, 2.0, 0.0]);
    }

    #[test]
    fn too_few_rows_of_b_is_an_error_naming_both_counts() {
        let a = dense(3, 1, &[1.0, 1.0, 1.0]);
        let b = dense(2, 1, &[1.0, 1.0]);
        let err = row_class_meet(&a, &b).unwrap_err().to_string();
        assert!(err.contains("2 rows") && err.contains("3"), "{err}");
    }

    #[test]
    fn the_table_keeps_the_capacity_an_earlier_row_grew() {
        // Row 0 has 13 pairs, growing the table to 32 buckets; row 1's pairs (1,1) and
        // (1,17) then sit in buckets 1 and 17 of 32 (in 16 buckets both in bucket 1,
        // in insertion order), so the order shows the grown table.
        let mut a: Vec<f64> = (1..=13).map(f64::from).collect();
        a.resize(26, 0.0);
        a[13] = 1.0;
        a[14] = 1.0;
        let mut b = vec![1.0; 26];
        b[13] = 17.0;
        b[14] = 1.0;
        let (c, _) = row_class_meet(&dense(2, 13, &a), &dense(2, 13, &b)).unwrap();
        let row1 = &cells(&c)[13..15];
        // (1,17) hashes 1009 -> bucket 17 of 32, after (1,1) (993 -> bucket 1).
        assert_eq!(row1, &[2.0, 1.0]);
    }
}
