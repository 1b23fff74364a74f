//! `spores optimize EXPR`: the cheapest equivalent plan for one LA expression, with its
//! estimated cost before and after and the saturation report.

use std::io::Write;

use spores_opt::canon;
use spores_opt::la::{expand_fused, LaExpr};
use spores_opt::saturate::{self, OptimizeOptions};

use super::{InputArgs, EXIT_USAGE};

/// The plan's check ends by this many times the time limit, counted from the start.
const VERIFY_SLACK: f64 = 1.3;

/// Exit codes: 0 printed a plan, 1 the optimizer failed, 2 usage or parse error.
pub fn optimize(
    text: &str,
    inputs: &InputArgs,
    options: &OptimizeOptions,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> u8 {
    let started = std::time::Instant::now();
    let expr = match LaExpr::parse(text) {
        Ok(e) => e,
        Err(d) => {
            let _ = write!(err, "{}", d.render("<expr>", text));
            return EXIT_USAGE;
        }
    };
    let env = match inputs.env_or_usage(err) {
        Ok(env) => env,
        Err(code) => return code,
    };
    if let Err(e) = env.shape_of(&expr) {
        let _ = writeln!(err, "error: {e}");
        return EXIT_USAGE;
    }
    let result = match saturate::optimize(&expr, &env, options) {
        Ok(r) => r,
        Err(e) => {
            let _ = writeln!(err, "error: {e}");
            return 1;
        }
    };
    // The time limit bounds the whole command: the check of the plan gets what is left of
    // it, with a little slack, so the command returns within about 1.5 times the limit.
    let deadline = started + options.time_limit.mul_f64(VERIFY_SLACK);
    let plan = expand_fused(&result.expr);
    let verified = match canon::provably_equivalent_until(&expr, &plan, &env, deadline) {
        Ok(true) => "verified equivalent (canonical forms)".to_string(),
        Ok(false) => "NOT verified: the canonical forms differ (please report this)".to_string(),
        Err(e) => format!("not verified: {e}"),
    };
    let r = &result.report;
    let _ = writeln!(out, "{}", result.expr);
    let _ = writeln!(
        out,
        "# cost: {:.4e} -> {:.4e} ns of predicted kernel time",
        result.cost_before, result.cost_after
    );
    let _ = writeln!(
        out,
        "# saturation: stopped by {} after {} iterations, {} e-nodes, {} e-classes, {:.2} ms",
        r.stop,
        r.iterations,
        r.enodes,
        r.eclasses,
        r.time.as_secs_f64() * 1e3
    );
    if let Some(x) = &r.extraction {
        let how = match (&x.fell_back, x.proven_optimal) {
            (Some(why), _) => format!(", fell back to greedy: {why}"),
            (None, true) => ", proven optimal".to_string(),
            (None, false) => String::new(),
        };
        let _ = writeln!(
            out,
            "# extraction: {} ({} ILP binaries{how}), DAG cost {:.4e} (greedy {:.4e}), {:.2} ms",
            x.used,
            x.binaries,
            x.dag_cost,
            x.greedy_dag_cost,
            x.time.as_secs_f64() * 1e3
        );
        if let Some(why) = &x.table_fallback {
            let _ = writeln!(
                out,
                "# LA read off relational classes (no raised plan: {why})"
            );
        }
    }
    let _ = writeln!(out, "# {verified}");
    0
}
