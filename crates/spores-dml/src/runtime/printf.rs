//! DML `print(format, args...)`: SystemDS formats the line with Java's `String.format`.
//! This covers the conversions DML scripts use: `%d` (an integer value), `%f` and `%e`
//! (6 fraction digits unless a precision is given), `%s` and `%%`, with the `-` and `0`
//! flags and a width. As in Java, `%d` of a double is an error.

use super::error::PrintfError;
use super::value::Value;

/// The formatted text, or an error naming the conversion that does not fit.
pub fn format(template: &str, args: &[Value]) -> Result<String, PrintfError> {
    let mut out = String::new();
    let mut next = args.iter();
    let mut chars = template.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let mut spec = String::new();
        let conversion = loop {
            match chars.next() {
                Some(ch) if ch.is_ascii_digit() || matches!(ch, '-' | '.' | '+') => spec.push(ch),
                Some(ch) => break ch,
                None => return Err(PrintfError::Unterminated { spec }),
            }
        };
        if conversion == '%' {
            out.push('%');
            continue;
        }
        if conversion == 'n' {
            out.push('\n');
            continue;
        }
        let Some(arg) = next.next() else {
            return Err(PrintfError::MissingArgument { spec, conversion });
        };
        let left = spec.starts_with('-');
        let flags = spec.trim_start_matches(['-', '+']);
        let zero = flags.starts_with('0');
        let (width, precision) = match flags.split_once('.') {
            Some((w, p)) => (w, Some(p)),
            None => (flags, None),
        };
        let width: usize = width.parse().unwrap_or(0);
        let precision = precision
            .map(|p| p.parse::<usize>())
            .transpose()
            .map_err(|_| PrintfError::BadPrecision {
                spec: spec.clone(),
                conversion,
            })?;
        let text = match conversion {
            'd' => match arg {
                Value::Int(i) => i.to_string(),
                Value::Bool(b) => return Err(PrintfError::BooleanForInteger { value: *b }),
                other => {
                    return Err(PrintfError::NotAnInteger {
                        found: other.type_name(),
                        value: other.to_string(),
                    })
                }
            },
            'f' | 'e' => {
                let x = arg.as_f64().ok_or(PrintfError::NotANumber {
                    conversion,
                    found: arg.type_name(),
                })?;
                let p = precision.unwrap_or(6);
                if conversion == 'f' {
                    format!("{x:.p$}")
                } else {
                    java_exponent(x, p)
                }
            }
            's' => {
                let s = arg.to_string();
                match precision {
                    Some(p) => s.chars().take(p).collect(),
                    None => s,
                }
            }
            other => {
                return Err(PrintfError::Unsupported {
                    spec,
                    conversion: other,
                })
            }
        };
        let pad = width.saturating_sub(text.chars().count());
        if left {
            out.push_str(&text);
            out.extend(std::iter::repeat_n(' ', pad));
        } else if zero && conversion != 's' {
            let (sign, digits) = match text.strip_prefix('-') {
                Some(rest) => ("-", rest),
                None => ("", text.as_str()),
            };
            out.push_str(sign);
            out.extend(std::iter::repeat_n('0', pad));
            out.push_str(digits);
        } else {
            out.extend(std::iter::repeat_n(' ', pad));
            out.push_str(&text);
        }
    }
    Ok(out)
}

/// Java's `%.pe`: mantissa with `p` fraction digits, `e`, a sign and at least two
/// exponent digits (`1.234568e+04`).
fn java_exponent(x: f64, p: usize) -> String {
    let s = format!("{x:.p$e}");
    let (mantissa, exponent) = s.split_once('e').expect("{:e} has an exponent");
    let exponent: i32 = exponent.parse().expect("an integer exponent");
    let sign = if exponent < 0 { '-' } else { '+' };
    format!("{mantissa}e{sign}{:02}", exponent.abs())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_as_java() {
        // SystemDS 3.4 printed the first line.
        let args = [
            Value::Double(0.123456),
            Value::Int(3),
            Value::Int(7),
            Value::Double(2.5),
        ];
        assert_eq!(
            format("epochs=%5.4f BATCH beg=%d end=%d obj=%f", &args).unwrap(),
            "epochs=0.1235 BATCH beg=3 end=7 obj=2.500000"
        );
        let args = [Value::str("ab"), Value::Int(-4), Value::Double(12345.678)];
        assert_eq!(
            format("[%-4s][%05d][%.3e] 100%%", &args).unwrap(),
            "[ab  ][-0004][1.235e+04] 100%"
        );
        assert!(format("%d", &[Value::Double(4.0)]).is_err());
        assert!(format("%d %d", &[Value::Int(1)]).is_err());
    }
}
