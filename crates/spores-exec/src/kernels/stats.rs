//! Descriptive statistics of DML: `var`/`sd` (of all cells, per row, per column),
//! `moment`, `median` and `quantile`, with SystemDS's definitions.
//!
//! Variances are sample variances (divisor `n - 1`, 0 for a single value), computed
//! as SystemDS computes them: Welford's running update, compensated. Quantiles pick order
//! statistics: `quantile(X, p)` is the `ceil(p n)`-th smallest value, except that for
//! an even number of values the scalar forms (`median`, `quantile` with a scalar `p`)
//! average it with the next one, as SystemDS's `pickValue` does. The weighted forms
//! (`moment(v, w, k)`, `median(v, w)`, `quantile(v, w, p)`) read the weights as
//! frequencies: each value counts as often as its weight says.

use rayon::prelude::*;

use crate::error::{ExecError, Result};
use crate::kernels::ew_common::MIN_PAR_WORK;
use crate::kernels::kahan::KahanSum;
use crate::matrix::{DenseMatrix, Matrix};

/// SystemDS's running variance (its `CM` object): Welford's update, with the mean and
/// the sum of squared deviations compensated ([`KahanSum`]).
#[derive(Clone, Copy, Default)]
pub(crate) struct RunningVariance {
    count: f64,
    mean: KahanSum,
    m2: KahanSum,
}

impl RunningVariance {
    /// Starts after `zeros` zero values (SystemDS counts a sparse input's implicit zeros
    /// first, which leaves the mean and the squared deviations at 0).
    fn after_zeros(zeros: usize) -> Self {
        RunningVariance {
            count: zeros as f64,
            ..Default::default()
        }
    }

    pub(crate) fn push(&mut self, v: f64) {
        let count = self.count + 1.0;
        let d = v - self.mean.value();
        self.mean.add(d / count);
        self.m2.add(self.count / count * d * d);
        self.count = count;
    }

    /// The running mean (SystemDS's `CM` mean, rounded as it rounds).
    pub(crate) fn mean(&self) -> f64 {
        self.mean.value()
    }

    /// The sample variance (divisor `n - 1`): 0 for a single value, NaN for none and
    /// for values with an infinity or a NaN (IEEE's `Inf - Inf` in the deviations).
    pub(crate) fn variance(&self) -> f64 {
        if self.count == 0.0 {
            f64::NAN
        } else if self.count == 1.0 {
            0.0
        } else if !self.mean.value().is_finite() {
            f64::NAN
        } else {
            self.m2.value() / (self.count - 1.0)
        }
    }
}

/// The sample variance of `values` after `zeros` leading zeros.
fn variance_of(zeros: usize, values: &[f64]) -> f64 {
    let mut v = RunningVariance::after_zeros(zeros);
    values.iter().for_each(|&x| v.push(x));
    v.variance()
}

/// The sample variance of all cells.
pub fn variance(m: &Matrix) -> f64 {
    match m {
        Matrix::Dense(d) => variance_of(0, d.data()),
        Matrix::Sparse(s) => variance_of(s.rows() * s.cols() - s.values().len(), s.values()),
    }
}

/// Per-row sample variances as an `m x 1` matrix.
pub fn row_variances(m: &Matrix) -> Matrix {
    let cols = m.cols();
    let row = |i: usize| match m {
        Matrix::Dense(d) => variance_of(0, d.row(i)),
        Matrix::Sparse(s) => {
            let val = s.line(i).1;
            variance_of(cols - val.len(), val)
        }
    };
    let out: Vec<f64> = if m.rows() * cols >= MIN_PAR_WORK {
        (0..m.rows()).into_par_iter().map(row).collect()
    } else {
        (0..m.rows()).map(row).collect()
    };
    Matrix::Dense(DenseMatrix::from_vec(m.rows(), 1, out).expect("one per row"))
}

/// Per-column sample variances as a `1 x n` matrix, each column's cells in row order.
pub fn col_variances(m: &Matrix) -> Matrix {
    let (rows, cols) = (m.rows(), m.cols());
    let mut acc: Vec<RunningVariance> = match m {
        Matrix::Dense(_) => vec![RunningVariance::default(); cols],
        Matrix::Sparse(s) => {
            let mut stored = vec![0usize; cols];
            for &j in s.indices() {
                stored[j as usize] += 1;
            }
            stored
                .into_iter()
                .map(|n| RunningVariance::after_zeros(rows - n))
                .collect()
        }
    };
    for i in 0..rows {
        match m {
            Matrix::Dense(d) => acc.iter_mut().zip(d.row(i)).for_each(|(a, &v)| a.push(v)),
            Matrix::Sparse(s) => {
                let (idx, val) = s.line(i);
                idx.iter()
                    .zip(val)
                    .for_each(|(&j, &v)| acc[j as usize].push(v));
            }
        }
    }
    let out = acc.iter().map(RunningVariance::variance).collect();
    Matrix::Dense(DenseMatrix::from_vec(1, cols, out).expect("one per column"))
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

/// The weights of a weighted statistic, one per value of `v`; ones when absent.
fn weights_for(op: &str, v: &[f64], w: Option<&Matrix>) -> Result<Vec<f64>> {
    let Some(w) = w else {
        return Ok(vec![1.0; v.len()]);
    };
    let w = vector_values(&format!("{op} weights"), w)?;
    if w.len() != v.len() {
        return Err(ExecError::invalid(format!(
            "{op}: {} values but {} weights",
            v.len(),
            w.len()
        )));
    }
    Ok(w)
}

/// DML `moment(v, k)` and `moment(v, w, k)`: the `k`-th central moment
/// `sum(w (v - mean)^k) / sum(w)` of a column vector (`w` = 1 when absent, `mean` weighted
/// alike), for `k` in 2..=4.
pub fn moment(m: &Matrix, w: Option<&Matrix>, k: u32) -> Result<f64> {
    if !(2..=4).contains(&k) {
        return Err(ExecError::invalid(format!(
            "moment: the order must be 2, 3 or 4, got {k}"
        )));
    }
    let v = vector_values("moment", m)?;
    let w = weights_for("moment", &v, w)?;
    let total: f64 = w.iter().sum();
    let mean = v.iter().zip(&w).map(|(x, w)| w * x).sum::<f64>() / total;
    let moment: f64 = v
        .iter()
        .zip(&w)
        .map(|(x, w)| w * (x - mean).powi(k as i32))
        .sum();
    Ok(moment / total)
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

/// A column vector's values in increasing order, each counted as often as its frequency
/// (its weight; once without weights): what quantiles pick from.
struct OrderStatistics {
    values: Vec<f64>,
    /// Running totals of the sorted values' frequencies; `None` when each counts once.
    counts: Option<Vec<u64>>,
}

impl OrderStatistics {
    /// `None` when a value is NaN (every quantile is then NaN). Weights must be
    /// frequencies, whole and not negative, as SystemDS requires.
    fn new(op: &str, m: &Matrix, w: Option<&Matrix>) -> Result<Option<OrderStatistics>> {
        let mut v = vector_values(op, m)?;
        if w.is_none() {
            if v.iter().any(|x| x.is_nan()) {
                return Ok(None);
            }
            if v.len() >= MIN_PAR_WORK {
                v.par_sort_unstable_by(f64::total_cmp);
            } else {
                v.sort_unstable_by(f64::total_cmp);
            }
            return Ok(Some(OrderStatistics {
                values: v,
                counts: None,
            }));
        }
        let w = weights_for(op, &v, w)?;
        if let Some(bad) = w.iter().find(|w| w.fract() != 0.0 || **w < 0.0) {
            return Err(ExecError::invalid(format!(
                "{op}: the weights are frequencies and must be whole numbers, not {bad}"
            )));
        }
        if v.iter().any(|x| x.is_nan()) {
            return Ok(None);
        }
        let mut pairs: Vec<(f64, f64)> = v.into_iter().zip(w).collect();
        pairs.sort_by(|a, b| a.0.total_cmp(&b.0));
        let mut total = 0u64;
        let counts = pairs
            .iter()
            .map(|&(_, w)| {
                total += w as u64;
                total
            })
            .collect();
        Ok(Some(OrderStatistics {
            values: pairs.into_iter().map(|(x, _)| x).collect(),
            counts: Some(counts),
        }))
    }

    /// How many values there are, each counted by its frequency.
    fn len(&self) -> u64 {
        match &self.counts {
            Some(c) => c.last().copied().unwrap_or(0),
            None => self.values.len() as u64,
        }
    }

    /// The `k`-th smallest (1-based, `1..=len`).
    fn nth(&self, k: u64) -> f64 {
        match &self.counts {
            Some(c) => self.values[c.partition_point(|&total| total < k)],
            None => self.values[k as usize - 1],
        }
    }

    /// The `ceil(p n)`-th smallest (clamped to `1..=n`), averaged with the next one when
    /// `average`, `n` is even and a next one exists.
    fn pick(&self, p: f64, average: bool) -> f64 {
        let n = self.len();
        if n == 0 {
            return f64::NAN;
        }
        let pos = (p * n as f64).ceil() as u64;
        if pos == 0 {
            // SystemDS's `quantile(v, 0)` is the minimum, never averaged.
            return self.nth(1);
        }
        let pos = pos.min(n);
        if average && n.is_multiple_of(2) && pos < n {
            (self.nth(pos) + self.nth(pos + 1)) / 2.0
        } else {
            self.nth(pos)
        }
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

/// DML `quantile(v, p)` and `quantile(v, w, p)` for a scalar `p` (and `median(v)`,
/// `median(v, w)` with `p = 0.5`). NaN when `v` has a NaN.
pub fn quantile(m: &Matrix, w: Option<&Matrix>, p: f64) -> Result<f64> {
    check_probability(p)?;
    let order = OrderStatistics::new("quantile", m, w)?;
    Ok(order.map_or(f64::NAN, |o| o.pick(p, true)))
}

/// DML `quantile(v, P)` and `quantile(v, w, P)` for a column vector of probabilities:
/// one order statistic per probability, never averaged.
pub fn quantiles(m: &Matrix, w: Option<&Matrix>, probabilities: &Matrix) -> Result<Matrix> {
    let ps = vector_values("quantile probabilities", probabilities)?;
    for &p in &ps {
        check_probability(p)?;
    }
    let out = match OrderStatistics::new("quantile", m, w)? {
        Some(o) => ps.iter().map(|&p| o.pick(p, false)).collect(),
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
        let q = |m: &Matrix, p| quantile(m, None, p).unwrap();
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
            quantiles(&four, None, &ps).unwrap().to_dense().into_vec(),
            [1.0, 2.0, 2.0, 5.0]
        );
        assert!(q(&Matrix::column(&[3.0, f64::NAN, 1.0]), 0.5).is_nan());
        assert!(quantile(&five, None, 1.5).is_err());
        assert!(quantile(&Matrix::Dense(DenseMatrix::zeros(2, 2)), None, 0.5).is_err());
    }

    /// Weights count as frequencies. Values printed by SystemDS 3.4 for
    /// `A = 3 1 4 1 5 9 2 6`, `W = 1 2 1 2 1 3 1 1` (12 values in all).
    #[test]
    fn weighted_quantiles_and_moments_as_systemds() {
        let a = Matrix::column(&[3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0]);
        let w = Matrix::column(&[1.0, 2.0, 1.0, 2.0, 1.0, 3.0, 1.0, 1.0]);
        let q = |p| quantile(&a, Some(&w), p).unwrap();
        for (p, want) in [(0.5, 3.5), (0.3, 1.5), (0.0, 1.0), (1.0, 9.0)] {
            assert_eq!(q(p), want, "p {p}");
        }
        let ps = Matrix::column(&[0.25, 0.5, 0.75]);
        assert_eq!(
            quantiles(&a, Some(&w), &ps).unwrap().to_dense().into_vec(),
            [1.0, 3.0, 6.0]
        );
        let w3 = Matrix::column(&[1.0, 1.0, 2.0, 2.0, 1.0, 1.0, 1.0, 1.0]);
        assert_eq!(quantile(&a, Some(&w3), 0.5).unwrap(), 3.5);
        let ones = Matrix::column(&[1.0; 8]);
        assert_eq!(
            quantile(&a, Some(&ones), 0.5).unwrap(),
            quantile(&a, None, 0.5).unwrap()
        );
        for (k, want) in [
            (2, 10.020833333333334),
            (3, 14.718750000000009),
            (4, 167.60286458333337),
        ] {
            let got = moment(&a, Some(&w), k).unwrap();
            assert!((got - want).abs() <= 1e-12 * want, "moment {k}: {got}");
        }
        // SystemDS: "quantile weights are expected to be integers but found '1.5'".
        let halves = Matrix::column(&[0.5, 1.5, 1.0, 2.0, 1.0, 3.0, 1.0, 1.0]);
        assert!(quantile(&a, Some(&halves), 0.5).is_err());
        assert!(quantile(&a, Some(&Matrix::column(&[1.0; 3])), 0.5).is_err());
    }

    #[test]
    fn variances_and_moments() {
        let five = Matrix::column(&[5.0, 1.0, 4.0, 2.0, 3.0]);
        assert_eq!(variance(&five), 2.5);
        assert_eq!(moment(&five, None, 2).unwrap(), 2.0);
        assert!(moment(&five, None, 3).unwrap().abs() < 1e-12);
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
        assert!(moment(&five, None, 5).is_err());
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
