//! One expression optimized and its plan checked: what `spores optimize` prints and the
//! Python package's `optimize` returns.
//!
//! The time limit of [`OptimizeOptions`] bounds the whole of it: the check of the plan by
//! canonical forms gets what the search left of the limit, with a little slack, so the
//! answer comes within about 1.5 times the limit.

use std::fmt;
use std::time::Instant;

use crate::canon::{self, EquivError};
use crate::fused::expand_fused;
use crate::la::{LaExpr, ShapeEnv};
use crate::saturate::{self, OptError, OptimizeOptions, Optimized};

/// The plan's check ends by this many times the time limit, counted from the start.
const VERIFY_SLACK: f64 = 1.3;

/// An optimized expression with the verdict on its equivalence to the input.
#[derive(Debug)]
pub struct VerifiedPlan {
    pub optimized: Optimized,
    /// Whether the plan's canonical form is the input's: `Ok(true)` proved, `Ok(false)`
    /// differs (an optimizer bug), `Err` undecided (with the reason, e.g. out of time).
    pub verified: Result<bool, EquivError>,
}

/// Optimizes `expr` and checks the plan against it, both within `options.time_limit`.
pub fn optimize_verified(
    expr: &LaExpr,
    env: &ShapeEnv,
    options: &OptimizeOptions,
) -> Result<VerifiedPlan, OptError> {
    let started = Instant::now();
    env.shape_of(expr)?;
    let optimized = saturate::optimize(expr, env, options)?;
    let deadline = started + options.time_limit.mul_f64(VERIFY_SLACK);
    let plan = expand_fused(&optimized.expr);
    let verified = canon::provably_equivalent_until(expr, &plan, env, deadline);
    Ok(VerifiedPlan {
        optimized,
        verified,
    })
}

/// The plan on the first line, then `#` lines: costs, how the search ended, how the plan
/// was extracted, and the check.
impl fmt::Display for VerifiedPlan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let result = &self.optimized;
        let r = &result.report;
        writeln!(f, "{}", result.expr)?;
        writeln!(
            f,
            "# cost: {:.4e} -> {:.4e} ns of predicted kernel time",
            result.cost_before, result.cost_after
        )?;
        writeln!(
            f,
            "# saturation: stopped by {} after {} iterations, {} e-nodes, {} e-classes, {:.2} ms",
            r.stop,
            r.iterations,
            r.enodes,
            r.eclasses,
            r.time.as_secs_f64() * 1e3
        )?;
        if let Some(x) = &r.extraction {
            let how = match (&x.fell_back, x.proven_optimal) {
                (Some(why), _) => format!(", fell back to greedy: {why}"),
                (None, true) => ", proven optimal".to_string(),
                (None, false) => String::new(),
            };
            writeln!(
                f,
                "# extraction: {} ({} ILP binaries{how}), DAG cost {:.4e} (greedy {:.4e}), {:.2} ms",
                x.used,
                x.binaries,
                x.dag_cost,
                x.greedy_dag_cost,
                x.time.as_secs_f64() * 1e3
            )?;
            if let Some(why) = &x.table_fallback {
                writeln!(
                    f,
                    "# LA read off relational classes (no raised plan: {why})"
                )?;
            }
        }
        let verdict = match &self.verified {
            Ok(true) => "verified equivalent (canonical forms)".to_string(),
            Ok(false) => {
                "NOT verified: the canonical forms differ (please report this)".to_string()
            }
            Err(e) => format!("not verified: {e}"),
        };
        writeln!(f, "# {verdict}")
    }
}
