//! Descriptive statistics of DML: `var`/`sd` (of all cells, per row, per column),
//! `moment`, `median` and `quantile`, with SystemDS's definitions.
//!
//! Variances are sample variances (divisor `n - 1`, 0 for a single value), computed
//! in two passes (mean, then squared deviations) for accuracy. Quantiles pick order
//! statistics: `quantile(X, p)` is the `ceil(p n)`-th smallest value, except that for
//! an even number of values the scalar forms (`median`, `quantile` with a scalar `p`)
//! average it with the next one, as SystemDS's `pickValue` does.

use rayon::prelude::*;

use crate::error::{ExecError, Result};
use crate::kernels::ew_common::MIN_PAR_WORK;
use crate::matrix::{DenseMatrix, Matrix};

/// Mean and sample variance of a list of values.
fn mean_var(values: impl Iterator<Item = f64> + Clone) -> (f64, f64) {
    let (n, sum) = values
        .clone()
        .fold((0usize, 0.0), |(n, s), v| (n + 1, s + v));
    let mean = sum / n as f64;
    if n == 1 {
        // SystemDS gives 0, not 0 / 0, for a single value.
        return (mean, 0.0);
    }
    let ss: f64 = values.map(|v| (v - mean) * (v - mean)).sum();
    (mean, ss / (n as f64 - 1.0))
}

/// The sample variance of all cells.
pub fn variance(m: &Matrix) -> f64 {
    let d = m.to_dense();
    mean_var(d.data().iter().copied()).1
}

/// Per-row sample variances as an `m x 1` matrix.
pub fn row_variances(m: &Matrix) -> Matrix {
    let d = m.to_dense();
    let out: Vec<f64> = if d.rows() * d.cols() >= MIN_PAR_WORK {
        (0..d.rows())
            .into_par_iter()
            .map(|i| mean_var(d.row(i).iter().copied()).1)
            .collect()
    } else {
        (0..d.rows())
            .map(|i| mean_var(d.row(i).iter().copied()).1)
            .collect()
    };
    Matrix::Dense(DenseMatrix::from_vec(d.rows(), 1, out).expect("one per row"))
}

/// Per-column sample variances as a `1 x n` matrix.
pub fn col_variances(m: &Matrix) -> Matrix {
    let d = m.to_dense();
    let (rows, cols) = (d.rows(), d.cols());
    let mut mean = vec![0.0; cols];
    for i in 0..rows {
        for (a, &v) in mean.iter_mut().zip(d.row(i)) {
            *a += v;
        }
    }
    for a in &mut mean {
        *a /= rows as f64;
    }
    let mut ss = vec![0.0; cols];
    for i in 0..rows {
        for ((a, &v), &mu) in ss.iter_mut().zip(d.row(i)).zip(&mean) {
            *a += (v - mu) * (v - mu);
        }
    }
    for a in &mut ss {
        *a = if rows == 1 {
            0.0
        } else {
            *a / (rows as f64 - 1.0)
        };
    }
    Matrix::Dense(DenseMatrix::from_vec(1, cols, ss).expect("one per column"))
}

/// `sqrt` of every cell, for the `sd` variants.
pub fn sqrt_cells(m: Matrix) -> Matrix {
    let mut d = m.into_dense();
    for v in d.data_mut() {
        *v = v.sqrt();
    }
    Matrix::Dense(d)
}

fn vector_values(op: &str, m: &Matrix) -> Result<Vec<f64>> {
    if m.cols() != 1 {
        return Err(ExecError::invalid(format!(
            "{op} needs a column vector, got a {} matrix",
            m.shape()
        )));
    }
    if m.rows() == 0 {
        return Err(ExecError::invalid(format!("{op} of an empty vector")));
    }
    Ok(m.to_dense().into_vec())
}

/// DML `moment(v, k)`: the `k`-th central moment `sum((v - mean)^k) / n` of a column
/// vector, for `k` in 2..=4.
pub fn moment(m: &Matrix, k: u32) -> Result<f64> {
    if !(2..=4).contains(&k) {
        return Err(ExecError::invalid(format!(
            "moment: the order must be 2, 3 or 4, got {k}"
        )));
    }
    let v = vector_values("moment", m)?;
    let n = v.len() as f64;
    let mean = v.iter().sum::<f64>() / n;
    Ok(v.iter().map(|x| (x - mean).powi(k as i32)).sum::<f64>() / n)
}

/// DML `cov(x, y)` and `cov(x, y, w)`: the sample covariance of two column vectors of equal
/// length, `sum(w (x - mx)(y - my)) / (sum(w) - 1)` with weighted means (`w` = 1 when
/// absent), as SystemDS computes it.
pub fn covariance(x: &Matrix, y: &Matrix, w: Option<&Matrix>) -> Result<f64> {
    let x = vector_values("cov", x)?;
    let y = vector_values("cov", y)?;
    let w = w.map(|w| vector_values("cov", w)).transpose()?;
    if x.len() != y.len() || w.as_ref().is_some_and(|w| w.len() != x.len()) {
        return Err(ExecError::invalid(format!(
            "cov: the vectors have {} and {}{} rows; they must be equally long",
            x.len(),
            y.len(),
            w.as_ref()
                .map_or(String::new(), |w| format!(" (weights {})", w.len()))
        )));
    }
    let weight = |i: usize| w.as_ref().map_or(1.0, |w| w[i]);
    let total: f64 = (0..x.len()).map(weight).sum();
    let mx = (0..x.len()).map(|i| weight(i) * x[i]).sum::<f64>() / total;
    let my = (0..y.len()).map(|i| weight(i) * y[i]).sum::<f64>() / total;
    let co: f64 = (0..x.len())
        .map(|i| weight(i) * (x[i] - mx) * (y[i] - my))
        .sum();
    Ok(co / (total - 1.0))
}

/// DML `interQuartileMean(v)` and `interQuartileMean(v, w)`: the mean of the middle half
/// of the values (weights count as frequencies). With the sorted values as a step
/// function over positions `(0, W]` (`W` the total weight, value `k` covering
/// `(c_{k-1}, c_k]` of the cumulative weights `c`), it is the integral of that function
/// over `(W/4, 3W/4]` divided by `W/2`, so a quartile falling inside a value's range
/// counts that value partially, as SystemDS computes it.
pub fn inter_quartile_mean(m: &Matrix, w: Option<&Matrix>) -> Result<f64> {
    let v = vector_values("interQuartileMean", m)?;
    let w = match w {
        Some(w) => vector_values("interQuartileMean weights", w)?,
        None => vec![1.0; v.len()],
    };
    if w.len() != v.len() {
        return Err(ExecError::invalid(format!(
            "interQuartileMean: {} values but {} weights",
            v.len(),
            w.len()
        )));
    }
    let mut pairs: Vec<(f64, f64)> = v.into_iter().zip(w).collect();
    if pairs.iter().any(|(x, _)| x.is_nan()) {
        return Ok(f64::NAN);
    }
    pairs.sort_by(|a, b| a.0.total_cmp(&b.0));
    let total: f64 = pairs.iter().map(|p| p.1).sum();
    let (lo, hi) = (0.25 * total, 0.75 * total);
    let mut start = 0.0;
    let mut integral = 0.0;
    for (x, weight) in pairs {
        let end = start + weight;
        let overlap = end.min(hi) - start.max(lo);
        if overlap > 0.0 {
            integral += overlap * x;
        }
        start = end;
    }
    Ok(integral / (0.5 * total))
}

/// The values sorted increasing (NaN last), or `None` when one is NaN.
fn sorted(mut v: Vec<f64>) -> Option<Vec<f64>> {
    if v.iter().any(|x| x.is_nan()) {
        return None;
    }
    if v.len() >= MIN_PAR_WORK {
        v.par_sort_unstable_by(f64::total_cmp);
    } else {
        v.sort_unstable_by(f64::total_cmp);
    }
    Some(v)
}

/// The `ceil(p n)`-th smallest of `sorted` (1-based, clamped to `1..=n`), averaged
/// with the next one when `average`, `n` is even and a next one exists.
fn pick(sorted: &[f64], p: f64, average: bool) -> f64 {
    let n = sorted.len();
    let pos = (p * n as f64).ceil() as usize;
    if pos == 0 {
        // SystemDS's `quantile(v, 0)` is the minimum, never averaged.
        return sorted[0];
    }
    let pos = pos.min(n);
    if average && n % 2 == 0 && pos < n {
        (sorted[pos - 1] + sorted[pos]) / 2.0
    } else {
        sorted[pos - 1]
    }
}

fn check_probability(p: f64) -> Result<()> {
    if !(0.0..=1.0).contains(&p) {
        return Err(ExecError::invalid(format!(
            "quantile: the probability {p} is outside [0, 1]"
        )));
    }
    Ok(())
}

/// DML `quantile(v, p)` for a scalar `p` (and `median(v)` with `p = 0.5`). NaN when
/// `v` has a NaN.
pub fn quantile(m: &Matrix, p: f64) -> Result<f64> {
    check_probability(p)?;
    let v = vector_values("quantile", m)?;
    Ok(sorted(v).map_or(f64::NAN, |s| pick(&s, p, true)))
}

/// DML `quantile(v, P)` for a column vector of probabilities: one order statistic per
/// probability, never averaged.
pub fn quantiles(m: &Matrix, probabilities: &Matrix) -> Result<Matrix> {
    let ps = vector_values("quantile probabilities", probabilities)?;
    for &p in &ps {
        check_probability(p)?;
    }
    let v = vector_values("quantile", m)?;
    let out = match sorted(v) {
        Some(s) => ps.iter().map(|&p| pick(&s, p, false)).collect(),
        None => vec![f64::NAN; ps.len()],
    };
    Ok(Matrix::Dense(DenseMatrix::from_vec(ps.len(), 1, out)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_as_systemds() {
        // Values printed by SystemDS 3.4.
        let five = Matrix::column(&[5.0, 1.0, 4.0, 2.0, 3.0]);
        let four = Matrix::column(&[5.0, 1.0, 4.0, 2.0]);
        let q = |m: &Matrix, p| quantile(m, p).unwrap();
        let cases: [(&Matrix, &[(f64, f64)]); 2] = [
            (
                &five,
                &[
                    (0.25, 2.0),
                    (0.5, 3.0),
                    (0.75, 4.0),
                    (0.2, 1.0),
                    (0.0, 1.0),
                    (1.0, 5.0),
                ],
            ),
            (
                &four,
                &[
                    (0.25, 1.5),
                    (0.3, 3.0),
                    (0.5, 3.0),
                    (0.75, 4.5),
                    (1.0, 5.0),
                    (0.0, 1.0),
                ],
            ),
        ];
        for (m, points) in cases {
            for &(p, want) in points {
                assert_eq!(q(m, p), want, "p {p} of {m:?}");
            }
        }
        let ps = Matrix::column(&[0.25, 0.3, 0.5, 1.0]);
        assert_eq!(
            quantiles(&four, &ps).unwrap().to_dense().into_vec(),
            [1.0, 2.0, 2.0, 5.0]
        );
        assert!(q(&Matrix::column(&[3.0, f64::NAN, 1.0]), 0.5).is_nan());
        assert!(quantile(&five, 1.5).is_err());
        assert!(quantile(&Matrix::Dense(DenseMatrix::zeros(2, 2)), 0.5).is_err());
    }

    #[test]
    fn variances_and_moments() {
        let five = Matrix::column(&[5.0, 1.0, 4.0, 2.0, 3.0]);
        assert_eq!(variance(&five), 2.5);
        assert_eq!(moment(&five, 2).unwrap(), 2.0);
        assert!(moment(&five, 3).unwrap().abs() < 1e-12);
        let a = Matrix::Dense(
            DenseMatrix::from_vec(3, 3, vec![4.0, 1.0, 2.0, 1.0, 3.0, 0.0, 2.0, 0.0, 5.0]).unwrap(),
        );
        let cv = col_variances(&a).to_dense().into_vec();
        let rv = row_variances(&a).to_dense().into_vec();
        for (got, want) in cv.iter().zip([7.0 / 3.0, 7.0 / 3.0, 19.0 / 3.0]) {
            assert!((got - want).abs() < 1e-14);
        }
        for (got, want) in rv.iter().zip([7.0 / 3.0, 7.0 / 3.0, 19.0 / 3.0]) {
            assert!((got - want).abs() < 1e-14);
        }
        assert_eq!(variance(&Matrix::column(&[4.0])), 0.0);
        assert!(moment(&five, 5).is_err());
    }

    #[test]
    fn inter_quartile_mean_as_systemds() {
        // SystemDS 3.4 prints 3.7, 4.0 and 3.642857142857143.
        let x = Matrix::column(&[3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0, 5.0, 3.0]);
        assert!((inter_quartile_mean(&x, None).unwrap() - 3.7).abs() < 1e-12);
        let x11 = Matrix::column(&[3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0, 5.0, 3.0, 7.0]);
        assert!((inter_quartile_mean(&x11, None).unwrap() - 4.0).abs() < 1e-12);
        let w = Matrix::column(&[1.0, 2.0, 1.0, 1.0, 3.0, 1.0, 2.0, 1.0, 1.0, 1.0]);
        let weighted = inter_quartile_mean(&x, Some(&w)).unwrap();
        assert!((weighted - 3.642857142857143).abs() < 1e-12);
    }
}
