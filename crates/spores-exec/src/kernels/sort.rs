//! Sorting operators: DML's `order` and `unique`.
//!
//! `order` is a stable sort by one column, or by several (the first deciding, the next
//! breaking its ties, ...), increasing or decreasing, as in SystemDS: equal keys keep
//! their input order in both directions. NaN keys sort after every
//! number when increasing and before every number when decreasing (SystemDS leaves
//! their place unspecified). Large inputs sort in parallel (rayon's stable merge sort).

use std::cmp::Ordering;

use rayon::prelude::*;

use crate::error::{ExecError, Result};
use crate::kernels::ew_common::MIN_PAR_WORK;
use crate::matrix::{DenseMatrix, Matrix};

/// Increasing order of two keys with NaN after every number.
fn increasing(a: f64, b: f64) -> Ordering {
    match (a.is_nan(), b.is_nan()) {
        (false, false) => a.partial_cmp(&b).expect("neither is NaN"),
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
    }
}

/// The row permutation (0-based) that sorts `m` by columns `by` (0-based), the first
/// deciding and each next one breaking the ties left.
pub fn order_permutation(m: &Matrix, by: &[usize], decreasing: bool) -> Result<Vec<usize>> {
    if let Some(&outside) = by.iter().find(|&&c| c >= m.cols()) {
        return Err(ExecError::invalid(format!(
            "order: by={} is outside the {} columns of a {} matrix",
            outside + 1,
            m.cols(),
            m.shape()
        )));
    }
    let by = match by {
        [] => return Err(ExecError::invalid("order: `by` names no column")),
        [one] => *one,
        keys => return Ok(lexicographic_permutation(m, keys, decreasing)),
    };
    // (key, row) pairs sort without chasing indices into a key array.
    let mut pairs: Vec<(f64, usize)> = match m {
        Matrix::Dense(d) => (0..m.rows()).map(|i| (d.row(i)[by], i)).collect(),
        Matrix::Sparse(_) => (0..m.rows()).map(|i| (m.get(i, by), i)).collect(),
    };
    stable_sort(&mut pairs, decreasing, |a, b| increasing(a.0, b.0));
    Ok(pairs.into_iter().map(|(_, i)| i).collect())
}

/// The stable sort of `m`'s rows by the columns `keys` in turn.
fn lexicographic_permutation(m: &Matrix, keys: &[usize], decreasing: bool) -> Vec<usize> {
    // Cells read where they are stored: a sparse matrix is not copied dense.
    let key = |i: usize, c: usize| m.get(i, c);
    let mut perm: Vec<usize> = (0..m.rows()).collect();
    stable_sort(&mut perm, decreasing, |&a, &b| {
        keys.iter()
            .map(|&c| increasing(key(a, c), key(b, c)))
            .find(|o| o.is_ne())
            .unwrap_or(Ordering::Equal)
    });
    perm
}

/// Sorts `items` stably by `increasing`, or by its reverse; in parallel when large.
fn stable_sort<T: Send>(
    items: &mut [T],
    decreasing: bool,
    increasing: impl Fn(&T, &T) -> Ordering + Sync,
) {
    let compare = |a: &T, b: &T| {
        let o = increasing(a, b);
        if decreasing {
            o.reverse()
        } else {
            o
        }
    };
    if items.len() >= MIN_PAR_WORK {
        items.par_sort_by(compare);
    } else {
        items.sort_by(compare);
    }
}

/// DML `order(target=m, by=, decreasing=, index.return=)`: the 1-based source row of
/// each sorted row as an `n x 1` matrix when `index_return`, else the sorted rows.
pub fn order(m: &Matrix, by: &[usize], decreasing: bool, index_return: bool) -> Result<Matrix> {
    let perm = order_permutation(m, by, decreasing)?;
    if index_return {
        let idx = perm.iter().map(|&i| (i + 1) as f64).collect();
        return Ok(Matrix::Dense(DenseMatrix::from_vec(perm.len(), 1, idx)?));
    }
    let cols = m.cols();
    let dense = m.to_dense();
    let mut data = Vec::with_capacity(m.rows() * cols);
    for &i in &perm {
        data.extend_from_slice(dense.row(i));
    }
    Ok(Matrix::Dense(DenseMatrix::from_vec(perm.len(), cols, data)?).into_best_format())
}

/// The bucket a Java `HashMap<Double, _>` of `capacity` buckets puts `v` in:
/// `Double.hashCode` (the bits, NaN canonical, upper half xor lower half) spread by
/// `h ^ (h >>> 16)`.
fn java_bucket(v: f64, capacity: usize) -> usize {
    let bits = if v.is_nan() {
        0x7ff8_0000_0000_0000
    } else {
        v.to_bits()
    };
    let h = ((bits ^ (bits >> 32)) & 0xffff_ffff) as u32;
    ((h ^ (h >> 16)) as usize) & (capacity - 1)
}

/// DML `unique(v)` of a column vector: each distinct value once, as an `n x 1` matrix.
///
/// SystemDS collects the values in a Java hash set, so its output order is that set's
/// iteration order: by bucket of the final table size (16 doubled whenever the set
/// grows past three quarters of it), and in insertion order within a bucket. This
/// reproduces that order, so scripts print the same vector.
pub fn unique(m: &Matrix) -> Result<Matrix> {
    if m.cols() != 1 {
        return Err(ExecError::invalid(format!(
            "unique: only column vectors are supported, got a {} matrix",
            m.shape()
        )));
    }
    let mut seen = std::collections::HashSet::new();
    let mut distinct = Vec::new();
    for i in 0..m.rows() {
        let v = m.get(i, 0);
        let key = if v.is_nan() {
            f64::NAN.to_bits()
        } else {
            v.to_bits()
        };
        if seen.insert(key) {
            distinct.push(v);
        }
    }
    let mut capacity = 16usize;
    while distinct.len() > capacity * 3 / 4 {
        capacity *= 2;
    }
    let mut order: Vec<usize> = (0..distinct.len()).collect();
    order.sort_by_key(|&k| (java_bucket(distinct[k], capacity), k));
    let values = order.iter().map(|&k| distinct[k]).collect();
    Ok(Matrix::Dense(DenseMatrix::from_vec(
        distinct.len(),
        1,
        values,
    )?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_is_stable_in_both_directions() {
        // SystemDS 3.4: order(target=Y, by=1, decreasing=TRUE, index.return=TRUE)
        let y = Matrix::column(&[1.0, 1.0, 2.0, 2.0, 2.0, 3.0]);
        let up = order(&y, &[0], false, true).unwrap().to_dense().into_vec();
        assert_eq!(up, [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        let down = order(&y, &[0], true, true).unwrap().to_dense().into_vec();
        assert_eq!(down, [6.0, 3.0, 4.0, 5.0, 1.0, 2.0]);
        let z = Matrix::Dense(
            DenseMatrix::from_vec(4, 2, vec![2.0, 1.0, 1.0, 5.0, 2.0, 3.0, 1.0, 4.0]).unwrap(),
        );
        let sorted = order(&z, &[0], true, false).unwrap().to_dense().into_vec();
        assert_eq!(sorted, [2.0, 1.0, 2.0, 3.0, 1.0, 5.0, 1.0, 4.0]);
        assert!(order(&z, &[2], false, false).is_err());
    }

    #[test]
    fn large_orders_sort_in_parallel_and_stably() {
        let n = MIN_PAR_WORK + 17;
        let v: Vec<f64> = (0..n).map(|i| ((i * 7919) % 101) as f64).collect();
        let perm = order_permutation(&Matrix::column(&v), &[0], false).unwrap();
        for w in perm.windows(2) {
            let (a, b) = (v[w[0]], v[w[1]]);
            assert!(a < b || (a == b && w[0] < w[1]));
        }
    }

    #[test]
    fn unique_follows_java_hash_set_order() {
        // SystemDS 3.4 printed 0.7 0.35 0.1 -3 100 and 1 2 3.
        let u = unique(&Matrix::column(&[0.7, 0.1, 0.35, 0.7, 100.0, -3.0, 0.1])).unwrap();
        assert_eq!(u.to_dense().into_vec(), [0.7, 0.35, 0.1, -3.0, 100.0]);
        let u = unique(&Matrix::column(&[3.0, 1.0, 3.0, 2.0, 1.0])).unwrap();
        assert_eq!(u.to_dense().into_vec(), [1.0, 2.0, 3.0]);
    }
}
