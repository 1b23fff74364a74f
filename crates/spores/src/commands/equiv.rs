//! `spores equiv LHS RHS`: decides whether two LA expressions are equal for all inputs of
//! the given shapes, by comparing their relational canonical forms (SPORES §2.3).

use std::io::Write;

use spores_opt::canon::{self, EquivError, Equivalence};
use spores_opt::la::LaExpr;

use super::{InputArgs, EXIT_USAGE};

/// Exit codes: 0 equivalent, 1 not equivalent (a witness, or the two shapes, is printed), 2 usage or parse
/// error, 3 undecided (the forms differ only inside opaque functions and no witness
/// was found).
pub fn equiv(
    lhs: &str,
    rhs: &str,
    inputs: &InputArgs,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> u8 {
    let parse = |text: &str, side: &str, err: &mut dyn Write| match LaExpr::parse(text) {
        Ok(e) => Some(e),
        Err(d) => {
            let _ = write!(err, "{}", d.render(side, text));
            None
        }
    };
    let (Some(l), Some(r)) = (parse(lhs, "<lhs>", err), parse(rhs, "<rhs>", err)) else {
        return EXIT_USAGE;
    };
    let env = match inputs.env_or_usage(err) {
        Ok(env) => env,
        Err(code) => return code,
    };
    match canon::equiv(&l, &r, &env) {
        Ok(Equivalence::Equivalent) => {
            let _ = writeln!(out, "equivalent");
            0
        }
        Ok(Equivalence::NotEquivalent(witness)) => {
            let _ = writeln!(out, "not equivalent");
            let text = witness.to_string();
            let _ = write!(out, "{text}");
            if !text.ends_with('\n') {
                let _ = writeln!(out);
            }
            1
        }
        Ok(Equivalence::Unknown(why)) => {
            let _ = writeln!(out, "unknown: {why}");
            3
        }
        // Values of different shapes are never equal: that is an answer, not an error.
        Err(EquivError::ShapeMismatch { lhs, rhs }) => {
            let _ = writeln!(out, "not equivalent: the lhs is {lhs}, the rhs is {rhs}");
            1
        }
        Err(e) => {
            let _ = writeln!(err, "error: {e}");
            EXIT_USAGE
        }
    }
}
