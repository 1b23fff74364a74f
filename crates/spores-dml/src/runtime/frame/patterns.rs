//! `map(F, "UtilFunctions.syntacticalPatternDiscovery(threshold,replacement)")`: the Java
//! function behind SystemDS's `dmv` builtin, which finds disguised missing values (a `?`
//! among dates, `9999` among two-digit ages) as the cells that do not fit their column's
//! dominant syntactic pattern.
//!
//! A cell's pattern is its run-length encoded character classes (`"Ab12"` is `u1l1d2`:
//! upper, lower, digits). If no pattern covers more than `threshold` of the column, the
//! patterns are coarsened step by step, as SystemDS's `DMVUtils` does, until one does:
//! 1. the encoding itself;
//! 2. run lengths dropped (each of their digits becomes `+`);
//! 3. upper and lower case merged into one letter class `a`;
//! 4. a dot inside a number taken as part of it;
//! 5. a space inside a word taken as part of it;
//! 6. a minus before a number taken as part of it.
//!
//! At the first level with a dominant pattern, every cell of another pattern becomes
//! `replacement`; a column without one is left alone. With `threshold < 0.5` several
//! patterns can pass it: the first in the order of SystemDS's Java `HashMap` is taken,
//! as there.

use std::collections::HashMap;
use std::sync::Arc;

use super::{Column, Frame, FrameError};

const DIGIT: char = 'd';
const LOWER: char = 'l';
const UPPER: char = 'u';
const ALPHA: char = 'a';
const SPACE: char = 's';
const DOT: char = 't';
const OTHER: char = 'y';
const MINUS: char = '-';
const ANY_LENGTH: char = '+';

/// The classes Java's `Character` methods give (`isSpaceChar` is a space separator,
/// which is whitespace that is not a control character).
fn class(c: char) -> char {
    if c.is_numeric() {
        DIGIT
    } else if c.is_lowercase() {
        LOWER
    } else if c.is_uppercase() {
        UPPER
    } else if c.is_whitespace() && !c.is_control() {
        SPACE
    } else if c == '.' {
        DOT
    } else if c == '-' {
        MINUS
    } else {
        OTHER
    }
}

/// Level 1: each run of one class as the class and the run's length (`u1l1d2`).
fn encode(value: &str) -> String {
    let classes: Vec<char> = value
        .encode_utf16()
        .map(|unit| char::from_u32(u32::from(unit)).map_or(OTHER, class))
        .collect();
    let mut out = String::new();
    let mut i = 0;
    while i < classes.len() {
        let run = classes[i..]
            .iter()
            .take_while(|&&c| c == classes[i])
            .count();
        out.push(classes[i]);
        out.push_str(&run.to_string());
        i += run;
    }
    out
}

/// Level 2: every digit of a run length becomes `+`.
fn drop_lengths(pattern: &str) -> String {
    pattern
        .chars()
        .map(|c| if c.is_ascii_digit() { ANY_LENGTH } else { c })
        .collect()
}

/// Level 3: a run of upper and lower case becomes one `a`. As in SystemDS, a `+` does
/// not end the run, and consecutive `+` collapse into one.
fn merge_case(pattern: &str) -> String {
    let mut out = String::new();
    let mut in_letters = false;
    for c in pattern.chars() {
        if c == UPPER || c == LOWER {
            if !in_letters {
                in_letters = true;
                out.push(ALPHA);
            }
        } else if c == ANY_LENGTH {
            if !out.ends_with(ANY_LENGTH) {
                out.push(c);
            }
        } else {
            out.push(c);
            in_letters = false;
        }
    }
    out
}

/// Levels 4 and 5: `inner` (and further `outer` classes and lengths) inside a run that
/// starts with `outer` is absorbed into it.
fn absorb(pattern: &str, outer: char, inner: char) -> String {
    let mut out = String::new();
    let mut in_outer = false;
    for c in pattern.chars() {
        if c == outer && !in_outer {
            in_outer = true;
            out.push(c);
        } else if in_outer && (c == outer || c == inner) {
            continue;
        } else if c != inner && c != ANY_LENGTH {
            in_outer = false;
            out.push(c);
        } else if !out.is_empty() && !out.ends_with(ANY_LENGTH) {
            out.push(c);
        }
    }
    out
}

/// Level 6: a minus directly before a number becomes part of it.
fn absorb_minus(pattern: &str) -> String {
    let mut out = String::new();
    let mut after_minus = false;
    for c in pattern.chars() {
        if c == MINUS && !after_minus {
            after_minus = true;
        } else if after_minus {
            if c != DIGIT {
                out.push(MINUS);
            }
            out.push(c);
            after_minus = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// Level `level`'s coarsening of level `level - 1`'s pattern (level 1 encodes the value).
fn coarsen(level: usize, pattern: &str) -> String {
    match level {
        1 => encode(pattern),
        2 => drop_lengths(pattern),
        3 => merge_case(pattern),
        4 => absorb(pattern, DIGIT, DOT),
        5 => absorb(pattern, ALPHA, SPACE),
        _ => absorb_minus(pattern),
    }
}

/// A histogram that iterates as a Java `HashMap<String, Integer>` filled in the same
/// order would.
#[derive(Default)]
struct JavaHistogram {
    keys: Vec<String>,
    counts: Vec<usize>,
    index: HashMap<String, usize>,
}

impl JavaHistogram {
    fn add(&mut self, key: String, count: usize) {
        match self.index.get(&key) {
            Some(&at) => self.counts[at] += count,
            None => {
                self.index.insert(key.clone(), self.keys.len());
                self.keys.push(key);
                self.counts.push(count);
            }
        }
    }

    fn java_order(&self) -> impl Iterator<Item = (&str, usize)> {
        let keys: Vec<&str> = self.keys.iter().map(String::as_str).collect();
        crate::java::hash_map_order(&keys)
            .into_iter()
            .map(|i| (self.keys[i].as_str(), self.counts[i]))
    }
}

/// The dominant pattern of a column and the level it was found at.
fn dominant(values: &[String], threshold: f64) -> Option<(usize, String)> {
    let mut histogram = JavaHistogram::default();
    for v in values {
        histogram.add(v.clone(), 1);
    }
    let rows = values.len() as f64;
    for level in 1..=6 {
        let mut next = JavaHistogram::default();
        for (pattern, count) in histogram.java_order() {
            next.add(coarsen(level, pattern), count);
        }
        if let Some((pattern, _)) = next
            .java_order()
            .find(|&(_, count)| count as f64 / rows > threshold)
        {
            return Some((level, pattern.to_string()));
        }
        histogram = next;
    }
    None
}

/// The frame with the disguised missing values replaced; `arguments` is the text
/// between the parentheses, `threshold,replacement` (SystemDS splits it at commas and
/// reads the first two pieces). A `null` cell is read as the text `NULL`, as there.
pub fn replace_disguised(frame: &Frame, arguments: &str) -> Result<Frame, FrameError> {
    let parts: Vec<&str> = arguments.split(',').collect();
    let [threshold, replacement, ..] = parts[..] else {
        return Err(FrameError::Lambda(format!(
            "syntacticalPatternDiscovery: needs `threshold,replacement`, got `{arguments}`"
        )));
    };
    let threshold: f64 = threshold.trim().parse().map_err(|_| {
        FrameError::Lambda(format!(
            "syntacticalPatternDiscovery: threshold `{threshold}` is not a number"
        ))
    })?;
    let replacement: Arc<str> = Arc::from(replacement);
    super::ensure_cells("dmv", frame.rows(), frame.cols())?;
    let columns = (0..frame.cols())
        .map(|j| {
            let values: Vec<String> = (0..frame.rows())
                .map(|i| frame.text(i, j).unwrap_or_else(|| "NULL".to_string()))
                .collect();
            let cells = match dominant(&values, threshold) {
                None => (0..frame.rows())
                    .map(|i| frame.text(i, j).map(Arc::from))
                    .collect(),
                Some((level, pattern)) => values
                    .iter()
                    .enumerate()
                    .map(|(i, v)| {
                        let mut p = v.clone();
                        for l in 1..=level {
                            p = coarsen(l, &p);
                        }
                        if p == pattern {
                            frame.text(i, j).map(Arc::from)
                        } else {
                            Some(replacement.clone())
                        }
                    })
                    .collect(),
            };
            Column::Text(cells)
        })
        .collect();
    Ok(Frame::new(frame.rows(), Some(frame.names()), columns))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_coarsen_level_by_level() {
        assert_eq!(encode("Ab12"), "u1l1d2");
        assert_eq!(encode("-3.25"), "-1d1t1d2");
        assert_eq!(drop_lengths("u1l10d2"), "u+l++d+");
        assert_eq!(merge_case("u+l++d+"), "a+d+");
        assert_eq!(
            absorb(&merge_case(&drop_lengths(&encode("3.25"))), DIGIT, DOT),
            "d+"
        );
        assert_eq!(absorb("a+s+a+", ALPHA, SPACE), "a+");
        assert_eq!(absorb_minus("-d+"), "d+");
        assert_eq!(absorb_minus("-a+"), "-a+");
    }

    fn column(cells: &[&str]) -> Frame {
        let text = cells.iter().map(|c| Some(Arc::from(*c))).collect();
        Frame::new(cells.len(), None, vec![Column::Text(text)])
    }

    fn texts(f: &Frame) -> Vec<String> {
        (0..f.rows())
            .map(|i| f.text(i, 0).unwrap_or_default())
            .collect()
    }

    #[test]
    fn cells_off_the_dominant_pattern_are_replaced() {
        let ages = column(&["23", "45", "31", "9999", "57", "62", "18", "?", "40", "33"]);
        let out = replace_disguised(&ages, "0.7,NA").unwrap();
        assert_eq!(
            texts(&out),
            ["23", "45", "31", "NA", "57", "62", "18", "NA", "40", "33"]
        );
        // No pattern covers more than 95 %: the column stays.
        let out = replace_disguised(&ages, "0.95,NA").unwrap();
        assert_eq!(texts(&out), texts(&ages));
        assert!(replace_disguised(&ages, "0.8").is_err());
        assert!(replace_disguised(&ages, "high,NA").is_err());
    }
}
