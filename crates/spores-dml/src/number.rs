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

/// Formats a double with exactly `decimal` fractional digits the way SystemDS's
/// `toString` does (Java's `DecimalFormat`). Java starts from the *shortest* decimal
/// digits of the double (those of `Double.toString`): when they fit in `decimal`
/// digits they are padded with zeros (a third shows as `0.33333333333333330` with 17
/// decimals, not the binary value's `0.33333333333333331`); otherwise the value is
/// rounded half to even by its exact binary value, as Rust's formatting does (`2.675` is
/// stored as 2.67499999... and prints `2.67`).
///
/// ```
/// use spores_dml::number::format_fixed;
/// assert_eq!(format_fixed(1.0 / 3.0, 17), "0.33333333333333330");
/// assert_eq!(format_fixed(0.1, 20), "0.10000000000000000000");
/// assert_eq!(format_fixed(2.675, 2), "2.67");
/// assert_eq!(format_fixed(2.665, 2), "2.67");
/// assert_eq!(format_fixed(1e20, 1), "100000000000000000000.0");
/// assert_eq!(format_fixed(-0.0004, 3), "-0.000");
/// assert_eq!(format_fixed(2.675, 18), "2.675000000000000000");
/// assert_eq!(format_fixed(-(2f64.powi(63)), 1), "-9223372036854775808.0");
/// ```
pub fn format_fixed(v: f64, decimal: usize) -> String {
    // Whole numbers print their exact digits (9223372036854775808, not the shortest
    // 9223372036854776000), as Java's digits of an integral double are exact.
    if v.is_finite() && v.fract() != 0.0 {
        let scientific = format!("{v:e}");
        let (mantissa, exponent) = scientific.split_once('e').expect("`{:e}` has an exponent");
        let significant = mantissa.bytes().filter(u8::is_ascii_digit).count() as i64;
        let exponent: i64 = exponent.parse().expect("an integer exponent");
        if significant - 1 - exponent <= decimal as i64 {
            // The shortest digits fit: `{v}` spells them in full, pad with zeros.
            let plain = format!("{v}");
            let shown = plain.split_once('.').map_or(0, |(_, f)| f.len());
            let mut out = plain;
            if shown == 0 && decimal > 0 {
                out.push('.');
            }
            out.extend(std::iter::repeat_n('0', decimal - shown));
            return out;
        }
    }
    format!("{v:.decimal$}")
}
