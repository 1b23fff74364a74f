//! `map(F, "UtilFunctions.exponentialMovingAverageImputation(n;mode;freq;alpha;beta;gamma)")`:
//! the Java function behind SystemDS's `ema` builtin, which fills the missing (NaN) cells
//! of each column, read as a time series, by exponential smoothing.
//!
//! Each column becomes the smoothing's one-step predictions, with the first value (the
//! first `freq` for `triple`) kept; where a value is missing, the prediction stands in
//! for it in the recursion. The modes follow SystemDS 3.4's `EMAUtils`:
//! - `single`: level only, `p[i] = alpha x[i] + (1 - alpha) p[i-1]`;
//! - `double`: level and trend (Holt), started from the first two values;
//! - `triple`: level, trend and a season of `freq` values (Holt-Winters, additive),
//!   started from a centred moving average of the first two seasons and a line through it.
//!
//! A parameter given as NaN is drawn uniformly from [0, 1). SystemDS draws it once from
//! an unseeded generator, so its search over `n` iterations repeats one setting and its
//! result varies from run to run: here too the draw is unseeded, and the smoothing runs
//! once, which gives what SystemDS's search gives for that setting.

use super::{Column, Frame, FrameError, ValueType};

/// The smoothing and its parameters, as the lambda text passes them.
struct Smoothing {
    mode: Mode,
    freq: usize,
    alpha: f64,
    beta: f64,
    gamma: f64,
}

#[derive(Clone, Copy)]
enum Mode {
    Single,
    Double,
    Triple,
}

fn error(message: String) -> FrameError {
    FrameError::Lambda(format!("exponentialMovingAverageImputation: {message}"))
}

impl Smoothing {
    /// From `n;mode;freq;alpha;beta;gamma` (the text between the parentheses).
    fn parse(arguments: &str) -> Result<Smoothing, FrameError> {
        let parts: Vec<&str> = arguments.split(';').map(str::trim).collect();
        let [iterations, mode, freq, alpha, beta, gamma] = parts[..] else {
            return Err(error(format!(
                "needs 6 arguments separated by `;` (iterations;mode;freq;alpha;beta;gamma), got `{arguments}`"
            )));
        };
        let integer = |name: &str, text: &str| {
            text.parse::<usize>()
                .map_err(|_| error(format!("{name} `{text}` is not a non-negative integer")))
        };
        if integer("search_iterations", iterations)? == 0 {
            return Err(error("search_iterations must be at least 1".into()));
        }
        let mode = match mode {
            "single" => Mode::Single,
            "double" => Mode::Double,
            "triple" => Mode::Triple,
            other => {
                return Err(error(format!(
                    "mode `{other}` is none of single, double, triple"
                )))
            }
        };
        let parameter = |name: &str, text: &str| -> Result<f64, FrameError> {
            let value = text
                .parse::<f64>()
                .map_err(|_| error(format!("{name} `{text}` is not a number")))?;
            if value.is_nan() {
                unseeded_uniform()
            } else {
                Ok(value)
            }
        };
        Ok(Smoothing {
            mode,
            freq: integer("freq", freq)?,
            alpha: parameter("alpha", alpha)?,
            beta: parameter("beta", beta)?,
            gamma: parameter("gamma", gamma)?,
        })
    }

    /// The predictions for one series.
    fn series(&self, x: &[f64]) -> Result<Vec<f64>, FrameError> {
        match self.mode {
            Mode::Single => Ok(self.single(x)),
            Mode::Double => self.double(x),
            Mode::Triple => self.triple(x),
        }
    }

    fn single(&self, x: &[f64]) -> Vec<f64> {
        let mut p = Vec::with_capacity(x.len());
        if let Some(&first) = x.first() {
            p.push(first);
        }
        for &value in x.iter().skip(1) {
            let last = p[p.len() - 1];
            let seen = if value.is_nan() { last } else { value };
            p.push(self.alpha * seen + (1.0 - self.alpha) * last);
        }
        p
    }

    fn double(&self, x: &[f64]) -> Result<Vec<f64>, FrameError> {
        let n = x.len();
        if n < 2 {
            return Err(error(format!("double smoothing needs 2 values, got {n}")));
        }
        let (a, b) = (self.alpha, self.beta);
        let (mut level, mut trend) = (x[1], x[1] - x[0]);
        let mut p = vec![x[0], level + trend];
        for &value in &x[2..] {
            let seen = if value.is_nan() {
                p[p.len() - 1]
            } else {
                value
            };
            let next = a * seen + (1.0 - a) * (level + trend);
            trend = b * (next - level) + (1.0 - b) * trend;
            level = next;
            p.push(level + trend);
        }
        Ok(p)
    }

    fn triple(&self, x: &[f64]) -> Result<Vec<f64>, FrameError> {
        let (n, f) = (x.len(), self.freq);
        // SystemDS's start needs two whole seasons, and its seasonal start an even period.
        if f < 2 || f % 2 == 1 || n < 2 * f {
            return Err(error(format!(
                "triple smoothing needs an even freq of at least 2 and at least 2 x freq values, got freq {f} and {n} values"
            )));
        }
        let start = &x[..2 * f];
        // Centred moving average over one season: weights 1/f, halved at both ends.
        let mut weights = vec![1.0 / f as f64; f + 1];
        weights[0] = 0.5 / f as f64;
        weights[f] = 0.5 / f as f64;
        let trend: Vec<f64> = (0..f)
            .map(|i| (0..=f).map(|j| start[i + j] * weights[j]).sum())
            .collect();
        let cut = f / 2;
        let mut season = vec![0.0; f];
        for (i, t) in trend.iter().enumerate() {
            season[(i + f / 2) % f] = start[i + cut] - t;
        }
        let mean = season.iter().sum::<f64>() / f as f64;
        season.iter_mut().for_each(|s| *s -= mean);
        let (intercept, slope) = least_squares_line(&trend);

        let (a, b, g) = (self.alpha, self.beta, self.gamma);
        let mut c = vec![0.0; n];
        c[..f].copy_from_slice(&season);
        let (mut level, mut slope_now) = (intercept, slope);
        let mut p = vec![level + slope_now + c[0]];
        for i in 1..n - f {
            let value = x[i + f - 1];
            let seen = if value.is_nan() { p[i - 1] } else { value };
            let next = a * (seen - c[i - 1]) + (1.0 - a) * (level + slope_now);
            slope_now = b * (next - level) + (1.0 - b) * slope_now;
            level = next;
            c[i + f - 1] = g * (seen - level) + (1.0 - g) * c[i - 1];
            p.push(level + slope_now + c[i]);
        }
        let mut out = x[..f].to_vec();
        out.extend(p);
        Ok(out)
    }
}

/// A draw from [0, 1) that differs from run to run (the engine's generator, freshly
/// seeded).
fn unseeded_uniform() -> Result<f64, FrameError> {
    use spores_exec::matrix::{rand_matrix, RandSpec};
    let seed = crate::runtime::seed::fresh_seed();
    Ok(rand_matrix(&RandSpec::uniform(1, 1, (0.0, 1.0), 1.0, seed))?.get(0, 0))
}

/// Intercept and slope of the least-squares line through `(1, y[0]), (2, y[1]), ...`.
fn least_squares_line(y: &[f64]) -> (f64, f64) {
    let n = y.len() as f64;
    let mean_x = (1.0 + n) / 2.0;
    let mean_y = y.iter().sum::<f64>() / n;
    let (mut sxx, mut sxy) = (0.0, 0.0);
    for (i, &v) in y.iter().enumerate() {
        let dx = (i + 1) as f64 - mean_x;
        sxx += dx * dx;
        sxy += dx * (v - mean_y);
    }
    let slope = sxy / sxx;
    (mean_y - slope * mean_x, slope)
}

/// The frame with every column smoothed; `arguments` is the text between the parentheses
/// of the lambda. Cells are read as numbers (a missing or non-numeric cell is an error, as
/// SystemDS's `Double.valueOf` makes it); the result's columns are `FP64`.
pub fn impute(frame: &Frame, arguments: &str) -> Result<Frame, FrameError> {
    let smoothing = Smoothing::parse(arguments)?;
    super::ensure_cells("ema", frame.rows(), frame.cols())?;
    let columns = (0..frame.cols())
        .map(|j| {
            let series = (0..frame.rows())
                .map(|i| {
                    let text = frame.text(i, j).unwrap_or_default();
                    text.trim().parse::<f64>().ok().ok_or_else(|| {
                        error(format!(
                            "cell ({}, {}) `{text}` is not a number",
                            i + 1,
                            j + 1
                        ))
                    })
                })
                .collect::<Result<Vec<f64>, _>>()?;
            Ok(Column::Number {
                ty: ValueType::Fp64,
                values: smoothing.series(&series)?,
            })
        })
        .collect::<Result<Vec<_>, FrameError>>()?;
    let names = Some(vec![ValueType::Fp64.name().to_string(); frame.cols()]);
    Ok(Frame::new(frame.rows(), names, columns))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// SystemDS's BuiltinEMATest R data with no value missing: the predictions its test
    /// holds (from R's `HoltWinters`) for single, double and triple smoothing.
    const DATA: [f64; 24] = [
        41.7275, 24.0418, 32.3281, 37.3287, 46.2132, 29.3463, 36.4829, 42.9777, 48.9015, 31.1802,
        37.7179, 40.4202, 51.2069, 31.8872, 40.9783, 43.7725, 55.5586, 33.8509, 42.0764, 45.6423,
        59.7668, 35.1919, 44.3197, 47.9137,
    ];

    fn run(arguments: &str) -> Vec<f64> {
        let s = Smoothing::parse(arguments).unwrap();
        s.series(&DATA).unwrap()
    }

    fn assert_close(got: &[f64], want: &[f64]) {
        assert_eq!(got.len(), want.len());
        for (i, (g, w)) in got.iter().zip(want).enumerate() {
            assert!(
                (g - w).abs() <= 1e-9 * w.abs().max(1.0),
                "cell {i}: {g} vs {w}"
            );
        }
    }

    #[test]
    fn the_three_modes_give_systemds_reference_predictions() {
        assert_close(
            &run("100;single;4;0.5;0.5;0.5")[..6],
            &[
                41.7275,
                32.88465,
                32.606375,
                34.9675375,
                40.590368749999996,
                34.968334375,
            ],
        );
        assert_close(
            &run("100;double;4;0.5;0.5;0.5")[..5],
            &[
                41.7275,
                6.356099999999998,
                8.149399999999998,
                18.841175,
                35.47231874999999,
            ],
        );
        assert_close(
            &run("100;triple;4;0.5;0.5;0.5")[..8],
            &[
                41.7275,
                24.0418,
                32.3281,
                37.3287,
                43.73937749999999,
                28.710109375,
                37.62691046875001,
                42.5309708984375,
            ],
        );
    }

    #[test]
    fn a_missing_value_takes_the_prediction_and_bad_arguments_are_errors() {
        let s = Smoothing::parse("1;single;4;0.5;0;0").unwrap();
        assert_close(&s.series(&[2.0, f64::NAN, 4.0]).unwrap(), &[2.0, 2.0, 3.0]);
        for bad in [
            "1;single;4;0.5;0",
            "0;single;4;0.5;0;0",
            "1;quadruple;4;0.5;0;0",
            "1;single;four;0.5;0;0",
        ] {
            assert!(Smoothing::parse(bad).is_err(), "{bad}");
        }
        let odd = Smoothing::parse("1;triple;3;0.5;0.5;0.5").unwrap();
        assert!(odd.series(&DATA).is_err());
        let short = Smoothing::parse("1;triple;4;0.5;0.5;0.5").unwrap();
        assert!(short.series(&DATA[..7]).is_err());
        assert_eq!(short.series(&DATA[..8]).unwrap().len(), 8);
    }
}
