//! Dense linear algebra on small and medium matrices: `solve`, `inv`, `cholesky` and
//! the symmetric `eigen` decomposition of DML.
//!
//! These run on dense row-major copies; the matrices they see in DML scripts are
//! `d x d` with `d` the number of features. Row updates of the eliminations run in
//! parallel above a size threshold.

use rayon::prelude::*;

use crate::error::{ExecError, Result};
use crate::matrix::{DenseMatrix, Matrix};

/// Pivots below this magnitude make `inv` report a singular matrix (the threshold of
/// the LU decomposition SystemDS uses).
const SINGULARITY: f64 = 1e-11;

/// Matrix order above which elimination updates run in parallel.
const PAR_ORDER: usize = 128;

fn square(op: &str, m: &Matrix) -> Result<usize> {
    if m.rows() != m.cols() {
        return Err(ExecError::invalid(format!(
            "{op} needs a square matrix, got {}",
            m.shape()
        )));
    }
    Ok(m.rows())
}

/// Subtracts `factor(i) * pivot_row` from every row `i` in `rows` of `a` (row-major,
/// `n` columns), in parallel for large matrices.
fn eliminate(
    a: &mut [f64],
    n: usize,
    pivot: usize,
    from: usize,
    factor: impl Fn(&[f64]) -> f64 + Sync,
) {
    let (head, tail) = a.split_at_mut(from * n);
    let pivot_row = &head[pivot * n..(pivot + 1) * n];
    let update = |row: &mut [f64]| {
        let f = factor(row);
        if f != 0.0 {
            for (x, &p) in row.iter_mut().zip(pivot_row) {
                *x -= f * p;
            }
        }
    };
    if n >= PAR_ORDER {
        tail.par_chunks_mut(n).for_each(update);
    } else {
        tail.chunks_mut(n).for_each(update);
    }
}

/// DML `inv(A)`: the inverse of a square matrix by Gauss-Jordan elimination with
/// partial pivoting; a singular matrix is an error.
pub fn inverse(m: &Matrix) -> Result<Matrix> {
    let n = square("inv", m)?;
    // [A | I], reduced to [I | inv(A)].
    let w = 2 * n;
    let mut a = vec![0.0; n * w];
    for i in 0..n {
        for j in 0..n {
            a[i * w + j] = m.get(i, j);
        }
        a[i * w + n + i] = 1.0;
    }
    for col in 0..n {
        let p = (col..n)
            .max_by(|&x, &y| a[x * w + col].abs().total_cmp(&a[y * w + col].abs()))
            .expect("non-empty range");
        if a[p * w + col].abs() < SINGULARITY {
            return Err(ExecError::invalid("inv: the matrix is singular"));
        }
        if p != col {
            for j in 0..w {
                a.swap(p * w + j, col * w + j);
            }
        }
        let pivot = a[col * w + col];
        for x in &mut a[col * w..(col + 1) * w] {
            *x /= pivot;
        }
        // Eliminate the column from every other row: rows above and below the pivot.
        let mut rows: Vec<&mut [f64]> = a.chunks_mut(w).collect();
        let pivot_row: Vec<f64> = rows[col].to_vec();
        let update = |(i, row): (usize, &mut &mut [f64])| {
            if i != col {
                let f = row[col];
                if f != 0.0 {
                    for (x, &p) in row.iter_mut().zip(&pivot_row) {
                        *x -= f * p;
                    }
                }
            }
        };
        if n >= PAR_ORDER {
            rows.par_iter_mut().enumerate().for_each(update);
        } else {
            rows.iter_mut().enumerate().for_each(update);
        }
    }
    let data = (0..n)
        .flat_map(|i| a[i * w + n..(i + 1) * w].to_vec())
        .collect();
    Ok(Matrix::Dense(DenseMatrix::from_vec(n, n, data)?))
}

/// DML `solve(A, b)`: `x` with `A x = b`, for a square `A` (LU with partial pivoting)
/// or the least-squares solution for a tall `A` (Householder QR).
pub fn solve(a: &Matrix, b: &Matrix) -> Result<Matrix> {
    if a.rows() != b.rows() || a.rows() < a.cols() {
        return Err(ExecError::shape_mismatch("solve", a.shape(), b.shape()));
    }
    if a.rows() == a.cols() {
        solve_square(a, b)
    } else {
        solve_least_squares(a, b)
    }
}

fn solve_square(a: &Matrix, b: &Matrix) -> Result<Matrix> {
    let n = a.rows();
    let k = b.cols();
    let mut lu = a.to_dense().into_vec();
    let mut x = b.to_dense().into_vec();
    for col in 0..n {
        let p = (col..n)
            .max_by(|&i, &j| lu[i * n + col].abs().total_cmp(&lu[j * n + col].abs()))
            .expect("non-empty range");
        if lu[p * n + col] == 0.0 {
            return Err(ExecError::invalid("solve: the matrix is singular"));
        }
        if p != col {
            for j in 0..n {
                lu.swap(p * n + j, col * n + j);
            }
            for j in 0..k {
                x.swap(p * k + j, col * k + j);
            }
        }
        let pivot = lu[col * n + col];
        let factors: Vec<f64> = (col + 1..n).map(|i| lu[i * n + col] / pivot).collect();
        eliminate(&mut lu, n, col, col + 1, |row| row[col] / pivot);
        for (r, f) in (col + 1..n).zip(&factors) {
            for j in 0..k {
                x[r * k + j] -= f * x[col * k + j];
            }
        }
    }
    // Back substitution.
    for i in (0..n).rev() {
        for j in 0..k {
            let mut s = x[i * k + j];
            for c in i + 1..n {
                s -= lu[i * n + c] * x[c * k + j];
            }
            x[i * k + j] = s / lu[i * n + i];
        }
    }
    Ok(Matrix::Dense(DenseMatrix::from_vec(n, k, x)?))
}

fn solve_least_squares(a: &Matrix, b: &Matrix) -> Result<Matrix> {
    let (m, n, k) = (a.rows(), a.cols(), b.cols());
    let mut q = a.to_dense().into_vec();
    let mut y = b.to_dense().into_vec();
    let mut diag = vec![0.0; n];
    for col in 0..n {
        let norm = (col..m).map(|i| q[i * n + col].powi(2)).sum::<f64>().sqrt();
        if norm == 0.0 {
            return Err(ExecError::invalid("solve: the matrix is rank deficient"));
        }
        let alpha = if q[col * n + col] > 0.0 { -norm } else { norm };
        // Householder vector v = x - alpha e1, stored in place of the column.
        q[col * n + col] -= alpha;
        let h: Vec<f64> = (col..m).map(|i| q[i * n + col]).collect();
        let hnorm2: f64 = h.iter().map(|x| x * x).sum();
        diag[col] = alpha;
        // Reflects column j of `values` (row-major, `width` columns) by I - 2 h h' / |h|^2.
        let reflect = |values: &mut [f64], width: usize, j: usize| {
            let dot: f64 = h
                .iter()
                .zip(col..m)
                .map(|(hi, i)| hi * values[i * width + j])
                .sum();
            let f = 2.0 * dot / hnorm2;
            for (hi, i) in h.iter().zip(col..m) {
                values[i * width + j] -= f * hi;
            }
        };
        for j in col + 1..n {
            reflect(&mut q, n, j);
        }
        for j in 0..k {
            reflect(&mut y, k, j);
        }
    }
    let mut x = vec![0.0; n * k];
    for i in (0..n).rev() {
        for j in 0..k {
            let mut s = y[i * k + j];
            for c in i + 1..n {
                s -= q[i * n + c] * x[c * k + j];
            }
            x[i * k + j] = s / diag[i];
        }
    }
    Ok(Matrix::Dense(DenseMatrix::from_vec(n, k, x)?))
}

/// DML `cholesky(A)`: the lower-triangular `L` with `L %*% t(L) == A`, for a symmetric
/// positive definite `A`.
pub fn cholesky(m: &Matrix) -> Result<Matrix> {
    let n = square("cholesky", m)?;
    let a = m.to_dense();
    for i in 0..n {
        for j in 0..i {
            let (x, y) = (a.get(i, j), a.get(j, i));
            if (x - y).abs() > 1e-14 * x.abs().max(y.abs()) {
                return Err(ExecError::invalid(format!(
                    "cholesky: the matrix is not symmetric (cell ({}, {}) is {x}, ({}, {}) is {y})",
                    i + 1,
                    j + 1,
                    j + 1,
                    i + 1
                )));
            }
        }
    }
    let mut l = vec![0.0; n * n];
    for j in 0..n {
        let mut d = a.get(j, j);
        for k in 0..j {
            d -= l[j * n + k] * l[j * n + k];
        }
        if d <= 1e-10 {
            return Err(ExecError::invalid(
                "cholesky: the matrix is not positive definite",
            ));
        }
        let d = d.sqrt();
        l[j * n + j] = d;
        for i in j + 1..n {
            let mut s = a.get(i, j);
            for k in 0..j {
                s -= l[i * n + k] * l[j * n + k];
            }
            l[i * n + j] = s / d;
        }
    }
    Ok(Matrix::Dense(DenseMatrix::from_vec(n, n, l)?))
}

/// DML `[values, vectors] = eigen(A)` of a symmetric matrix: the eigenvalues in
/// increasing order as an `n x 1` matrix and the unit eigenvectors as the columns of
/// an `n x n` matrix, in the same order.
///
/// Householder reduction to tridiagonal form, working down from the first row, then
/// the QL algorithm with implicit shifts. This is the sequence of reflections and
/// rotations SystemDS's decomposition applies, so the eigenvectors come out with the
/// same signs and scripts print the same vectors.
pub fn eigen_symmetric(m: &Matrix) -> Result<(Matrix, Matrix)> {
    let n = square("eigen", m)?;
    if n == 0 {
        return Ok((
            Matrix::Dense(DenseMatrix::zeros(0, 1)),
            Matrix::Dense(DenseMatrix::zeros(0, 0)),
        ));
    }
    let a: Vec<Vec<f64>> = (0..n)
        .map(|i| (0..n).map(|j| m.get(i, j)).collect())
        .collect();
    let (mut d, mut e, mut z) = tridiagonalize(a);
    diagonalize(&mut d, &mut e, &mut z)?;
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| d[a].total_cmp(&d[b]));
    let largest = d.iter().fold(0.0f64, |acc, v| acc.max(v.abs()));
    let values = order
        .iter()
        .map(|&k| {
            if d[k].abs() < f64::EPSILON * largest {
                0.0
            } else {
                d[k]
            }
        })
        .collect();
    let vectors = DenseMatrix::from_fn(n, n, |i, j| z[i][order[j]]);
    Ok((
        Matrix::Dense(DenseMatrix::from_vec(n, 1, values)?),
        Matrix::Dense(vectors),
    ))
}

/// `T = Q' A Q` with `T` tridiagonal: returns T's diagonal, its off-diagonal (last
/// entry 0) and `Q = H_0 H_1 ... H_{n-2}`. Reflection `H_k` maps row `k` right of the
/// diagonal, `x`, onto `alpha e_1` with `alpha = -sign(x_1) |x|` (`+|x|` when `x_1 <= 0`).
fn tridiagonalize(mut a: Vec<Vec<f64>>) -> (Vec<f64>, Vec<f64>, Vec<Vec<f64>>) {
    let n = a.len();
    let mut d = vec![0.0; n];
    let mut e = vec![0.0; n];
    // (first index, Householder vector, its beta = 2 / |v|^2) per reflection.
    let mut reflections: Vec<(usize, Vec<f64>, f64)> = Vec::new();
    for k in 0..n.saturating_sub(1) {
        d[k] = a[k][k];
        let x: Vec<f64> = a[k][k + 1..].to_vec();
        let norm = x.iter().map(|v| v * v).sum::<f64>().sqrt();
        let alpha = if x[0] > 0.0 { -norm } else { norm };
        e[k] = alpha;
        if alpha == 0.0 {
            continue;
        }
        let mut v = x;
        v[0] -= alpha;
        let beta = -1.0 / (alpha * v[0]);
        // p = beta B v on the trailing block B, w = p - (beta / 2)(v'p) v,
        // B <- B - v w' - w v'.
        let len = n - k - 1;
        let p: Vec<f64> = (0..len)
            .map(|i| {
                beta * (0..len)
                    .map(|j| a[k + 1 + i][k + 1 + j] * v[j])
                    .sum::<f64>()
            })
            .collect();
        let gamma = beta / 2.0 * v.iter().zip(&p).map(|(x, y)| x * y).sum::<f64>();
        let w: Vec<f64> = p.iter().zip(&v).map(|(pi, vi)| pi - gamma * vi).collect();
        for i in 0..len {
            for j in 0..len {
                a[k + 1 + i][k + 1 + j] -= v[i] * w[j] + w[i] * v[j];
            }
        }
        reflections.push((k + 1, v, beta));
    }
    d[n - 1] = a[n - 1][n - 1];
    let mut q: Vec<Vec<f64>> = (0..n)
        .map(|i| (0..n).map(|j| if i == j { 1.0 } else { 0.0 }).collect())
        .collect();
    for (first, v, beta) in reflections.iter().rev() {
        // Q <- H Q with H = I - beta v v' acting on rows first.. .
        #[allow(clippy::needless_range_loop)] // rows first.. of each column, in step
        for col in 0..n {
            let dot: f64 = v
                .iter()
                .enumerate()
                .map(|(i, vi)| vi * q[first + i][col])
                .sum();
            let f = beta * dot;
            for (i, vi) in v.iter().enumerate() {
                q[first + i][col] -= f * vi;
            }
        }
    }
    (d, e, q)
}

/// QL iterations with implicit shifts on the tridiagonal matrix (`d`, `e`), applying
/// the rotations to the columns of `z`; on return `d` holds the eigenvalues and the
/// columns of `z` the eigenvectors.
fn diagonalize(d: &mut [f64], e: &mut [f64], z: &mut [Vec<f64>]) -> Result<()> {
    let n = d.len();
    let largest = d
        .iter()
        .chain(e.iter())
        .fold(0.0f64, |acc, v| acc.max(v.abs()));
    if largest != 0.0 {
        for v in d.iter_mut().chain(e.iter_mut()) {
            if v.abs() <= f64::EPSILON * largest {
                *v = 0.0;
            }
        }
    }
    for j in 0..n {
        let mut iterations = 0;
        loop {
            let mut m = j;
            while m < n - 1 {
                let delta = d[m].abs() + d[m + 1].abs();
                if e[m].abs() + delta == delta {
                    break;
                }
                m += 1;
            }
            if m == j {
                break;
            }
            iterations += 1;
            if iterations > 30 * n.max(1) {
                return Err(ExecError::invalid(
                    "eigen: the QL iteration does not converge",
                ));
            }
            let mut q = (d[j + 1] - d[j]) / (2.0 * e[j]);
            let mut t = (1.0 + q * q).sqrt();
            q = if q < 0.0 {
                d[m] - d[j] + e[j] / (q - t)
            } else {
                d[m] - d[j] + e[j] / (q + t)
            };
            let (mut u, mut s, mut c) = (0.0, 1.0, 1.0);
            let mut i = m as isize - 1;
            let mut deflated = false;
            while i >= j as isize {
                let iu = i as usize;
                let p = s * e[iu];
                let h = c * e[iu];
                if p.abs() >= q.abs() {
                    c = q / p;
                    t = (c * c + 1.0).sqrt();
                    e[iu + 1] = p * t;
                    s = 1.0 / t;
                    c *= s;
                } else {
                    s = p / q;
                    t = (s * s + 1.0).sqrt();
                    e[iu + 1] = q * t;
                    c = 1.0 / t;
                    s *= c;
                }
                if e[iu + 1] == 0.0 {
                    d[iu + 1] -= u;
                    e[m] = 0.0;
                    deflated = true;
                    break;
                }
                q = d[iu + 1] - u;
                t = (d[iu] - q) * s + 2.0 * c * h;
                u = s * t;
                d[iu + 1] = q + u;
                q = c * t - h;
                for row in z.iter_mut() {
                    let p = row[iu + 1];
                    row[iu + 1] = s * row[iu] + c * p;
                    row[iu] = c * row[iu] - s * p;
                }
                i -= 1;
            }
            if deflated {
                continue;
            }
            d[j] -= u;
            e[j] = q;
            e[m] = 0.0;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::dense;

    fn close(got: &Matrix, want: &[f64], tol: f64) {
        let got = got.to_dense().into_vec();
        assert_eq!(got.len(), want.len());
        for (g, w) in got.iter().zip(want) {
            assert!((g - w).abs() <= tol, "{got:?} vs {want:?}");
        }
    }

    // A = matrix("4 1 2 1 3 0 2 0 5", rows=3, cols=3); values printed by SystemDS 3.4.
    const A: [f64; 9] = [4.0, 1.0, 2.0, 1.0, 3.0, 0.0, 2.0, 0.0, 5.0];

    #[test]
    fn solve_inverse_cholesky_as_systemds() {
        let a = dense(3, 3, &A);
        let b = dense(3, 1, &[1.0, 2.0, 3.0]);
        close(
            &solve(&a, &b).unwrap(),
            &[-0.3023255814, 0.7674418605, 0.7209302326],
            1e-10,
        );
        close(
            &inverse(&a).unwrap(),
            &[
                0.3488372093,
                -0.1162790698,
                -0.1395348837,
                -0.1162790698,
                0.3720930233,
                0.0465116279,
                -0.1395348837,
                0.0465116279,
                0.2558139535,
            ],
            1e-10,
        );
        close(
            &cholesky(&a).unwrap(),
            &[
                2.0,
                0.0,
                0.0,
                0.5,
                1.6583123952,
                0.0,
                1.0,
                -0.3015113446,
                1.9771421064,
            ],
            1e-10,
        );
        assert!(inverse(&dense(2, 2, &[1.0, 2.0, 2.0, 4.0])).is_err());
        assert!(cholesky(&dense(2, 2, &[1.0, 2.0, 0.0, 4.0])).is_err());
        assert!(solve(&a, &dense(2, 1, &[1.0, 2.0])).is_err());
    }

    #[test]
    fn least_squares_solve() {
        // Fits y = 1 + 2x exactly.
        let x = dense(4, 2, &[1.0, 0.0, 1.0, 1.0, 1.0, 2.0, 1.0, 3.0]);
        let y = dense(4, 1, &[1.0, 3.0, 5.0, 7.0]);
        close(&solve(&x, &y).unwrap(), &[1.0, 2.0], 1e-12);
    }

    #[test]
    fn eigen_values_increase_and_vectors_diagonalize() {
        let a = dense(3, 3, &A);
        let (values, vectors) = eigen_symmetric(&a).unwrap();
        close(&values, &[1.8548973088, 3.4760236029, 6.6690790883], 1e-10);
        for k in 0..3 {
            for i in 0..3 {
                let av: f64 = (0..3).map(|j| A[i * 3 + j] * vectors.get(j, k)).sum();
                assert!((av - values.get(k, 0) * vectors.get(i, k)).abs() < 1e-12);
            }
        }
    }
}
