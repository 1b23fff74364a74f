//! `spores optimize EXPR`: the cheapest equivalent plan for one LA expression, with its
//! estimated cost before and after and the saturation report.

use std::io::Write;

use spores_opt::la::LaExpr;
use spores_opt::saturate::{OptError, OptimizeOptions};
use spores_opt::verified::optimize_verified;

use super::{InputArgs, EXIT_USAGE};

/// Exit codes: 0 printed a plan, 1 the optimizer failed, 2 usage or parse error.
pub fn optimize(
    text: &str,
    inputs: &InputArgs,
    options: &OptimizeOptions,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> u8 {
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
    match optimize_verified(&expr, &env, options) {
        Ok(plan) => {
            let _ = write!(out, "{plan}");
            0
        }
        Err(e) => {
            let _ = writeln!(err, "error: {e}");
            match e {
                OptError::Shape(_) => EXIT_USAGE,
                _ => 1,
            }
        }
    }
}
