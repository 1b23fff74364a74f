//! How DML writes numbers: as SystemDS prints them, for `print`, `toString` and plans.

/// Formats a double the way SystemDS prints it (Java's `Double.toString`): decimal
/// notation with at least one fractional digit for magnitudes in [1e-3, 1e7), otherwise
/// computerized scientific notation such as `1.0E7` or `1.25E-5`.
///
/// ```
/// use spores_dml::number::format_double;
/// assert_eq!(format_double(3.0), "3.0");
/// assert_eq!(format_double(0.1), "0.1");
/// assert_eq!(format_double(12345678.0), "1.2345678E7");
/// assert_eq!(format_double(0.00012), "1.2E-4");
/// assert_eq!(format_double(f64::NEG_INFINITY), "-Infinity");
/// ```
pub fn format_double(v: f64) -> String {
    java_spelling(v, format!("{v}"), format!("{v:e}"))
}

/// Formats a float the way Java's `Float.toString` does: [`format_double`]'s rules with
/// the shortest digits that identify the `f32` (`0.1f32` is `0.1`, not
/// `0.10000000149011612`).
///
/// ```
/// use spores_dml::number::format_float;
/// assert_eq!(format_float(0.1), "0.1");
/// assert_eq!(format_float(3.0), "3.0");
/// assert_eq!(format_float(1.5e10), "1.5E10");
/// ```
pub fn format_float(v: f32) -> String {
    java_spelling(f64::from(v), format!("{v}"), format!("{v:e}"))
}

/// Java's spelling of `v`, given its shortest digits in Rust's plain (`plain`) and
/// scientific (`scientific`) notation.
fn java_spelling(v: f64, plain: String, scientific: String) -> String {
    if v.is_nan() {
        return "NaN".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    if v == 0.0 {
        return if v.is_sign_negative() { "-0.0" } else { "0.0" }.into();
    }
    let magnitude = v.abs();
    if (1e-3..1e7).contains(&magnitude) {
        if plain.contains('.') {
            plain
        } else {
            plain + ".0"
        }
    } else {
        let (mantissa, exponent) = scientific
            .split_once('e')
            .expect("{:e} always has an exponent");
        if mantissa.contains('.') {
            format!("{mantissa}E{exponent}")
        } else {
            format!("{mantissa}.0E{exponent}")
        }
    }
}
