//! Poisson deviates as SystemDS's `rand(pdf="poisson", lambda=)` draws them: Apache
//! Commons Math 3.4's `PoissonDistribution.sample()` over a WELL1024a generator seeded
//! with the block's `long` seed.
//!
//! For a mean below 40 Commons Math multiplies uniform deviates until the product falls
//! below `exp(-mean)` (Knuth's method, capped at `1000 * mean` factors). From 40 on it
//! uses Ahrens and Dieter's rejection method: a Poisson deviate for the fractional part
//! of the mean by Knuth's method, then for the integral part `lambda` proposals from a
//! normal (Box–Muller, `nextGaussian`) or an exponential (Ahrens and Dieter's SA
//! algorithm) tail, accepted by comparing with `ln(k!)` (of the exact factorial up to
//! 20, a sum of logarithms beyond). Both branches are reproduced step by step,
//! drawing the same uniforms in the same order.
//!
//! Commons Math evaluates `exp`, `ln`, `sqrt`, `sin` and `cos` with its own `FastMath`;
//! Rust uses the platform's libm. They agree to within an ulp, and the results only feed
//! comparisons and `floor`/`ceil`, so a deviate differs only if a value lands within an
//! ulp of a decision boundary.

use super::well1024a::Well1024a;

/// Means at and above this use Commons Math's rejection branch.
const KNUTH_LIMIT: f64 = 40.0;

/// Partial sums of `ln(2)^i / i!` (Commons Math's `EXPONENTIAL_SA_QI`, as computed by its
/// `FastMath`): the table of Ahrens and Dieter's SA algorithm for exponential deviates.
const EXPONENTIAL_SA_QI: [f64; 16] = [
    std::f64::consts::LN_2,
    0.9333736875190459,
    0.9888777961838675,
    0.998495925291496,
    0.9998292811061389,
    0.9999833164100727,
    0.9999985691438767,
    0.9999998906925558,
    0.9999999924734159,
    0.9999999995283275,
    0.9999999999728814,
    0.9999999999985598,
    0.999999999999929,
    0.9999999999999968,
    0.9999999999999999,
    1.0,
];

/// A WELL1024a with Commons Math's `BitsStreamGenerator` extras: the spare normal
/// deviate of the last Box–Muller pair.
#[derive(Clone, Debug)]
struct CommonsRandom {
    well: Well1024a,
    spare_gaussian: Option<f64>,
}

impl CommonsRandom {
    fn next_double(&mut self) -> f64 {
        self.well.next_double()
    }

    /// `nextGaussian()`: Box–Muller with the angle from the first uniform.
    fn next_gaussian(&mut self) -> f64 {
        if let Some(g) = self.spare_gaussian.take() {
            return g;
        }
        let x = self.next_double();
        let y = self.next_double();
        let alpha = 2.0 * std::f64::consts::PI * x;
        let r = (-2.0 * y.ln()).sqrt();
        self.spare_gaussian = Some(r * alpha.sin());
        r * alpha.cos()
    }

    /// A standard exponential deviate by Ahrens and Dieter's SA algorithm.
    fn next_exponential(&mut self) -> f64 {
        let mut a = 0.0;
        let mut u = self.next_double();
        while u < 0.5 {
            a += EXPONENTIAL_SA_QI[0];
            u *= 2.0;
        }
        u += u - 1.0;
        if u <= EXPONENTIAL_SA_QI[0] {
            return a + u;
        }
        let mut i = 0;
        let mut umin = self.next_double();
        loop {
            i += 1;
            let u2 = self.next_double();
            if u2 < umin {
                umin = u2;
            }
            if u <= EXPONENTIAL_SA_QI[i] {
                break;
            }
        }
        a + umin * EXPONENTIAL_SA_QI[0]
    }
}

#[derive(Clone, Debug)]
pub struct PoissonDeviates {
    random: CommonsRandom,
    mean: f64,
}

impl PoissonDeviates {
    /// `mean` must be positive and finite (checked by the caller).
    pub fn new(mean: f64, seed: i64) -> Self {
        PoissonDeviates {
            random: CommonsRandom {
                well: Well1024a::from_long(seed),
                spare_gaussian: None,
            },
            mean,
        }
    }

    /// `sample()`: the deviate, capped at `i32::MAX`.
    pub fn next_deviate(&mut self) -> f64 {
        next_poisson(self.mean, &mut self.random).min(i32::MAX as i64) as f64
    }
}

fn next_poisson(mean: f64, random: &mut CommonsRandom) -> i64 {
    if mean < KNUTH_LIMIT {
        knuth(mean, random)
    } else {
        ahrens_dieter(mean, random)
    }
}

fn knuth(mean: f64, random: &mut CommonsRandom) -> i64 {
    let threshold = (-mean).exp();
    let cap = 1000.0 * mean;
    let mut n = 0i64;
    let mut product = 1.0;
    while (n as f64) < cap {
        product *= random.next_double();
        if product < threshold {
            return n;
        }
        n += 1;
    }
    n
}

/// Commons Math's rejection method for means of 40 and more, step by step.
fn ahrens_dieter(mean: f64, random: &mut CommonsRandom) -> i64 {
    use std::f64::consts::PI;
    let lambda = mean.floor();
    let lambda_fraction = mean - lambda;
    let log_lambda = lambda.ln();
    let log_lambda_factorial = ln_factorial(lambda as i64);
    let y2 = if lambda_fraction < f64::from_bits(1) {
        0
    } else {
        next_poisson(lambda_fraction, random)
    };
    let delta = (lambda * (32.0 * lambda / PI + 1.0).ln()).sqrt();
    let half_delta = delta / 2.0;
    let twolpd = 2.0 * lambda + delta;
    let a1 = (PI * twolpd).sqrt() * (1.0 / (8.0 * lambda)).exp();
    let a2 = (twolpd / delta) * (-delta * (1.0 + delta) / twolpd).exp();
    let a_sum = a1 + a2 + 1.0;
    let p1 = a1 / a_sum;
    let p2 = a2 / a_sum;
    let c1 = 1.0 / (8.0 * lambda);

    let y = loop {
        let u = random.next_double();
        let (x, y, v);
        if u <= p1 {
            let n = random.next_gaussian();
            x = n * (lambda + half_delta).sqrt() - 0.5;
            if x > delta || x < -lambda {
                continue;
            }
            y = if x < 0.0 { x.floor() } else { x.ceil() };
            let e = random.next_exponential();
            v = -e - (n * n / 2.0) + c1;
        } else if u > p1 + p2 {
            break lambda;
        } else {
            x = delta + (twolpd / delta) * random.next_exponential();
            y = x.ceil();
            v = -random.next_exponential() - delta * (x + 1.0) / twolpd;
        }
        let a = if x < 0.0 { 1.0 } else { 0.0 };
        let t = y * (y + 1.0) / (2.0 * lambda);
        if v < -t && a == 0.0 {
            break lambda + y;
        }
        let qr = t * ((2.0 * y + 1.0) / (6.0 * lambda) - 1.0);
        let qa = qr - (t * t) / (3.0 * (lambda + a * (y + 1.0)));
        if v < qa {
            break lambda + y;
        }
        if v > qr {
            continue;
        }
        if v < y * log_lambda - ln_factorial((y + lambda) as i32 as i64) + log_lambda_factorial {
            break lambda + y;
        }
    };
    y2 + y as i64
}

/// `ln(n!)` as Commons Math 3.4's `CombinatoricsUtils.factorialLog`: the logarithm of
/// the exact factorial below 21, the sum of `ln(i)` for `i` in `2..=n` from there.
fn ln_factorial(n: i64) -> f64 {
    if n < 21 {
        let factorial: i64 = (2..=n.max(1)).product();
        return (factorial as f64).ln();
    }
    (2..=n).map(|i| (i as f64).ln()).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    // Reference values printed by Commons Math 3.4.1 (`PoissonDistribution` over a
    // `Well1024a` seeded with 7) on a JVM.
    #[test]
    fn large_mean_matches_commons_math() {
        let mut p = PoissonDeviates::new(55.5, 7);
        let drawn: Vec<f64> = (0..20).map(|_| p.next_deviate()).collect();
        let expected = [
            56, 63, 63, 49, 54, 58, 50, 65, 73, 49, 58, 57, 54, 50, 57, 62, 48, 54, 58, 54,
        ];
        assert_eq!(drawn, expected.map(f64::from));
    }

    #[test]
    fn ln_factorial_matches_commons_math() {
        assert_eq!(ln_factorial(100), 363.7393755555636);
        assert_eq!(ln_factorial(5), 120f64.ln());
        assert_eq!(ln_factorial(0), 0.0);
    }
}
