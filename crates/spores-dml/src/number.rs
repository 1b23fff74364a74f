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
        let s = format!("{v}");
        if s.contains('.') {
            s
        } else {
            s + ".0"
        }
    } else {
        let s = format!("{v:e}");
        let (mantissa, exponent) = s.split_once('e').expect("{:e} always has an exponent");
        if mantissa.contains('.') {
            format!("{mantissa}E{exponent}")
        } else {
            format!("{mantissa}.0E{exponent}")
        }
    }
}
