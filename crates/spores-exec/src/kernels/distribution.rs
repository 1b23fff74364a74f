//! The probability distributions of DML's `cdf`/`icdf` and their shorthands (`pnorm`,
//! `qnorm`, `pt`, `qt`, `pf`, `qf`, `pchisq`, `qchisq`, `pexp`, `qexp`).

use statrs::distribution::{ChiSquared, ContinuousCDF, Exp, FisherSnedecor, Normal, StudentsT};

use crate::error::{ExecError, Result};

/// A distribution with its parameters, as DML's `dist=` names it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Distribution {
    Normal { mean: f64, sd: f64 },
    Exp { rate: f64 },
    ChiSquared { df: f64 },
    T { df: f64 },
    F { df1: f64, df2: f64 },
}

impl Distribution {
    fn curve(self) -> Result<Box<dyn ContinuousCDF<f64, f64>>> {
        let bad = |e: &dyn std::fmt::Display| {
            ExecError::invalid(format!(
                "invalid parameters for the {self:?} distribution: {e}"
            ))
        };
        Ok(match self {
            Distribution::Normal { mean, sd } => {
                Box::new(Normal::new(mean, sd).map_err(|e| bad(&e))?)
            }
            Distribution::Exp { rate } => Box::new(Exp::new(rate).map_err(|e| bad(&e))?),
            Distribution::ChiSquared { df } => Box::new(ChiSquared::new(df).map_err(|e| bad(&e))?),
            Distribution::T { df } => Box::new(StudentsT::new(0.0, 1.0, df).map_err(|e| bad(&e))?),
            Distribution::F { df1, df2 } => {
                Box::new(FisherSnedecor::new(df1, df2).map_err(|e| bad(&e))?)
            }
        })
    }

    /// `P(X <= x)`, or `1 - P(X <= x)` when not `lower_tail` (SystemDS's `lower.tail`
    /// also subtracts from one).
    pub fn cdf(self, x: f64, lower_tail: bool) -> Result<f64> {
        let p = match self {
            Distribution::Normal { mean, sd } if sd > 0.0 => {
                0.5 * libm::erfc((mean - x) / (sd * std::f64::consts::SQRT_2))
            }
            _ => self.curve()?.cdf(x),
        };
        Ok(if lower_tail { p } else { 1.0 - p })
    }

    /// The `x` with `P(X <= x) = p`, for `p` in `[0, 1]`.
    pub fn icdf(self, p: f64) -> Result<f64> {
        if !(0.0..=1.0).contains(&p) {
            return Err(ExecError::invalid(format!(
                "icdf: the probability {p} is outside [0, 1]"
            )));
        }
        Ok(self.curve()?.inverse_cdf(p))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, rtol: f64) {
        assert!((a - b).abs() <= rtol * b.abs(), "{a} vs {b}");
    }

    #[test]
    fn values_printed_by_systemds() {
        let normal = Distribution::Normal { mean: 0.0, sd: 1.0 };
        close(normal.cdf(1.5, true).unwrap(), 0.9331927987311419, 1e-14);
        close(normal.cdf(1.5, false).unwrap(), 0.06680720126885809, 1e-12);
        close(normal.icdf(0.9).unwrap(), 1.2815515655446008, 1e-12);
        let shifted = Distribution::Normal { mean: 2.0, sd: 3.0 };
        close(shifted.cdf(-1.5, true).unwrap(), 0.12167250457438139, 1e-13);
        let chi = Distribution::ChiSquared { df: 2.0 };
        close(chi.cdf(3.0, true).unwrap(), 0.7768698398515697, 1e-13);
        close(chi.cdf(3.0, false).unwrap(), 0.22313016014843035, 1e-12);
        // SystemDS's inverse is found by a root finder with an absolute accuracy of 1e-9.
        close(
            Distribution::ChiSquared { df: 3.0 }.icdf(0.95).unwrap(),
            7.814727903124902,
            1e-9,
        );
        let t = Distribution::T { df: 5.0 };
        close(t.cdf(2.0, true).unwrap(), 0.9490302605850709, 1e-12);
        close(
            Distribution::T { df: 4.0 }.icdf(0.9).unwrap(),
            1.533206274060945,
            1e-9,
        );
        let f = Distribution::F {
            df1: 3.0,
            df2: 10.0,
        };
        close(f.cdf(2.0, true).unwrap(), 0.8219925926248239, 1e-12);
        close(f.icdf(0.95).unwrap(), 3.708264819047024, 1e-9);
        close(
            Distribution::F { df1: 2.0, df2: 7.0 }.icdf(0.9).unwrap(),
            3.2574420511365223,
            1e-9,
        );
        let exp = Distribution::Exp { rate: 2.0 };
        close(exp.cdf(1.0, true).unwrap(), 0.8646647167633873, 1e-14);
        close(exp.icdf(0.5).unwrap(), 0.34657359027997264, 1e-14);
        assert!(normal.icdf(1.5).is_err());
        assert!(Distribution::ChiSquared { df: -1.0 }
            .cdf(1.0, true)
            .is_err());
    }
}
