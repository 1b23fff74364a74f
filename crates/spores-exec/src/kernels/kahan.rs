//! Compensated (Kahan) summation, the way SystemDS sums.
//!
//! SystemDS adds the cells of `sum`, `rowSums`, `colSums` and the means with Kahan's
//! compensation (its `KahanPlus`), so its sums are correct to about one rounding whatever
//! the order. spores sums in blocks and lanes, in another order than SystemDS; with plain
//! addition the two results differ in the last digits, and an iterative script (a solver
//! that stops on a tolerance, fifty gradient steps) grows that into visible differences.
//! With compensation on both sides, both results sit within a rounding of the exact sum.
//!
//! ```
//! use spores_exec::kernels::kahan::KahanSum;
//! let mut s = KahanSum::default();
//! let mut plain = 0.0;
//! for v in std::iter::once(1e16).chain([1.0; 1000]) {
//!     s.add(v);
//!     plain += v;
//! }
//! assert_eq!(s.value(), 1e16 + 1000.0);
//! assert_eq!(plain, 1e16); // each 1 alone is below half the spacing of doubles near 1e16
//! ```

/// Up to this many terms, sums run one by one in order, exactly as SystemDS's
/// single-threaded aggregates do (SystemDS splits an aggregate across threads from
/// 256K cells on), so a small sum has SystemDS's bits. Longer sums run in four lanes.
pub const SEQUENTIAL_TERMS: usize = 1 << 18;

/// A running sum with its compensation: the low-order part lost by the last additions.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct KahanSum {
    sum: f64,
    correction: f64,
}

impl KahanSum {
    /// Adds `v`, carrying what the addition rounds away into the next one. An infinite
    /// term or sum skips the compensation (which would make NaN of `Inf - Inf`), as
    /// SystemDS's `KahanPlus` does; unlike SystemDS (whose last infinity wins), opposite
    /// infinities give NaN, as IEEE addition does.
    #[inline(always)]
    pub fn add(&mut self, v: f64) {
        if self.sum.is_infinite() || v.is_infinite() {
            self.sum += v;
            self.correction = 0.0;
            return;
        }
        let corrected = v + self.correction;
        let sum = self.sum + corrected;
        self.correction = corrected - (sum - self.sum);
        self.sum = sum;
    }

    /// Adds another partial sum (a block summed on its own).
    pub fn merge(&mut self, other: KahanSum) {
        self.add(other.correction);
        self.add(other.sum);
    }

    /// The sum. The pending correction is left out, as SystemDS leaves it out.
    pub fn value(self) -> f64 {
        self.sum
    }
}

/// Sum of `f(v)` over `data`: one by one up to [`SEQUENTIAL_TERMS`], else in four
/// compensated lanes ([`lanes_sum`]).
#[inline]
pub fn sum_map(data: &[f64], f: impl Fn(f64) -> f64) -> f64 {
    if data.len() <= SEQUENTIAL_TERMS {
        sum_iter(data.iter().map(|&v| f(v)))
    } else {
        lanes_sum(data, f)
    }
}

/// Sum of `f(v)` over `data` in four compensated lanes (which the compiler vectorizes).
///
/// The lanes skip the infinity test of [`KahanSum::add`]; a plain sum runs beside them and
/// is the answer whenever it is not finite: NaN when any term is NaN or infinities of both
/// signs meet, the infinity otherwise, as IEEE addition gives.
#[inline]
pub fn lanes_sum(data: &[f64], f: impl Fn(f64) -> f64) -> f64 {
    let mut lanes = [(0.0f64, 0.0f64); 4];
    let mut plain = [0.0f64; 4];
    let chunks = data.chunks_exact(4);
    let rem = chunks.remainder();
    for x in chunks {
        for l in 0..4 {
            let v = f(x[l]);
            let (sum, correction) = lanes[l];
            let corrected = v + correction;
            let next = sum + corrected;
            lanes[l] = (next, corrected - (next - sum));
            plain[l] += v;
        }
    }
    let plain_total =
        (plain[0] + plain[1]) + (plain[2] + plain[3]) + rem.iter().map(|&x| f(x)).sum::<f64>();
    if !plain_total.is_finite() {
        return plain_total;
    }
    let mut total = KahanSum::default();
    for (sum, correction) in lanes {
        total.merge(KahanSum { sum, correction });
    }
    for &x in rem {
        total.add(f(x));
    }
    total.value()
}

/// A compensated sum fed slice by slice: term by term (SystemDS's order) when the whole
/// sum has at most [`SEQUENTIAL_TERMS`] terms, else each slice in four lanes.
#[derive(Clone, Copy, Debug, Default)]
pub struct SliceSum {
    total: KahanSum,
    lanes: bool,
}

impl SliceSum {
    /// An empty sum that will receive `terms` terms in all.
    pub fn new(terms: usize) -> Self {
        SliceSum {
            total: KahanSum::default(),
            lanes: terms > SEQUENTIAL_TERMS,
        }
    }

    /// Adds every value of `values`, in order.
    #[inline]
    pub fn add_slice(&mut self, values: &[f64]) {
        if self.lanes {
            self.total.add(lanes_sum(values, |v| v));
        } else {
            values.iter().for_each(|&v| self.total.add(v));
        }
    }

    /// Adds another partial sum.
    pub fn merge(&mut self, other: SliceSum) {
        self.total.merge(other.total);
    }

    /// The sum.
    pub fn value(self) -> f64 {
        self.total.value()
    }
}

/// Sum of an iterator's values, compensated, one by one in order (SystemDS's order).
pub fn sum_iter(values: impl IntoIterator<Item = f64>) -> f64 {
    let mut total = KahanSum::default();
    for v in values {
        total.add(v);
    }
    total.value()
}

/// Column sums from per-column partial sums of blocks of rows, merged in block order.
/// The first block is taken as it is, so a single block keeps SystemDS's sums to the bit.
pub fn merge_column_blocks(partial: Vec<Vec<KahanSum>>, cols: usize) -> Vec<f64> {
    let mut blocks = partial.into_iter();
    let mut acc = blocks
        .next()
        .unwrap_or_else(|| vec![KahanSum::default(); cols]);
    for block in blocks {
        for (sum, other) in acc.iter_mut().zip(block) {
            sum.merge(other);
        }
    }
    acc.into_iter().map(KahanSum::value).collect()
}

/// Compensated sum of partial sums (one per block, in block order).
pub fn sum_partials(partials: &[f64]) -> f64 {
    sum_iter(partials.iter().copied())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compensation_recovers_what_plain_addition_loses() {
        let data: Vec<f64> = (0..1001).map(|i| if i == 0 { 1e16 } else { 1.0 }).collect();
        let plain: f64 = data.iter().sum();
        assert_eq!(plain, 1e16, "each 1 rounds away on its own");
        assert_eq!(sum_map(&data, |v| v), 1e16 + 1000.0);
        let long: Vec<f64> = std::iter::once(1e16)
            .chain(std::iter::repeat_n(1.0, SEQUENTIAL_TERMS + 8))
            .collect();
        let exact = 1e16 + (SEQUENTIAL_TERMS + 8) as f64;
        assert_eq!(
            sum_map(&long, |v| v),
            exact,
            "the four lanes compensate too"
        );
    }

    #[test]
    fn order_does_not_matter_to_the_last_digit() {
        let data: Vec<f64> = (1..=10_000).map(|i| 1.0 / i as f64).collect();
        let mut reversed = data.clone();
        reversed.reverse();
        assert_eq!(sum_map(&data, |v| v), sum_map(&reversed, |v| v));
    }

    #[test]
    fn infinities_and_nan_follow_ieee() {
        let inf = f64::INFINITY;
        assert_eq!(sum_map(&[1.0, inf, 2.0, 3.0, 4.0], |v| v), inf);
        assert_eq!(sum_iter([-inf, 1.0]), -inf);
        assert!(sum_map(&[1.0, inf, 2.0, -inf, 4.0], |v| v).is_nan());
        assert!(sum_iter([1.0, f64::NAN]).is_nan());
        assert_eq!(sum_map(&[], |v| v), 0.0);
        let mut long = vec![1.0; SEQUENTIAL_TERMS + 3];
        long[5] = inf;
        assert_eq!(sum_map(&long, |v| v), inf);
        long[9] = -inf;
        assert!(sum_map(&long, |v| v).is_nan());
    }
}
