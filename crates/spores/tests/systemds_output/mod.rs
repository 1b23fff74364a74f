//! Comparison of what spores printed with what SystemDS 3.4 printed: the same text, numbers
//! in the same style (`3`, `3.0`, `1.0E7`) and equal within a relative 1e-9 (absolute 1e-12
//! near zero, where SystemDS and spores may cancel in different orders). Shared by the
//! cross-system tests (`golden_systemds`, `systemds_builtins`).

/// The relative tolerance of every cross-system comparison.
pub const RTOL: f64 = 1e-9;
/// Below this absolute difference two numbers are equal (rounding noise around zero).
pub const ATOL: f64 = 1e-12;

/// How a printed number is written, which SystemDS users see and scripts may parse.
fn style(token: &str) -> &'static str {
    if token.contains(['e', 'E']) {
        "scientific"
    } else if token.contains('.') {
        "decimal"
    } else {
        "integer"
    }
}

fn same_number(u: f64, v: f64) -> bool {
    u == v || (u - v).abs() <= RTOL * u.abs().max(v.abs()) || (u - v).abs() <= ATOL
}

/// A token written as a number (digits, sign, point, exponent): Rust would also parse
/// `inf` or `NaN`, which must match SystemDS's text (`Infinity`, `NaN`) exactly instead.
fn number(token: &str) -> Option<f64> {
    let numeric = token
        .chars()
        .all(|c| c.is_ascii_digit() || matches!(c, '-' | '+' | '.' | 'e' | 'E'));
    token.parse().ok().filter(|_| numeric)
}

/// `Ok` when the outputs agree, else the first difference (1-based line, both lines).
pub fn compare(ours: &str, theirs: &str) -> Result<(), String> {
    let (ours, theirs): (Vec<&str>, Vec<&str>) = (ours.lines().collect(), theirs.lines().collect());
    for (line, (a, b)) in ours.iter().zip(&theirs).enumerate() {
        let at = |what: &str| format!("line {}: {what}: `{a}` vs SystemDS `{b}`", line + 1);
        let (ta, tb): (Vec<&str>, Vec<&str>) = (
            a.split_whitespace().collect(),
            b.split_whitespace().collect(),
        );
        if ta.len() != tb.len() {
            return Err(at("token counts differ"));
        }
        for (x, y) in ta.iter().zip(&tb) {
            match (number(x), number(y)) {
                (Some(u), Some(v)) if !same_number(u, v) => {
                    return Err(at(&format!("{x} vs SystemDS {y}")))
                }
                (Some(_), Some(_)) if style(x) != style(y) => {
                    return Err(at(&format!("{x} printed unlike SystemDS's {y}")))
                }
                (Some(_), Some(_)) => {}
                _ if x != y => return Err(at("text differs")),
                _ => {}
            }
        }
    }
    if ours.len() != theirs.len() {
        let first_extra = |v: &[&str]| v.get(ours.len().min(theirs.len())).map(|s| s.to_string());
        return Err(format!(
            "line counts differ: {} vs SystemDS {} (first extra line: {:?})",
            ours.len(),
            theirs.len(),
            first_extra(&ours)
                .or_else(|| first_extra(&theirs))
                .unwrap_or_default()
        ));
    }
    Ok(())
}
