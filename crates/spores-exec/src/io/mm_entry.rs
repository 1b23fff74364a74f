//! One Matrix Market entry line: the header fields that decide how it reads, and the fast
//! one-pass parser both coordinate readers use (the generic one in `matrix_market.rs`, the
//! row-major one in `mm_sorted.rs`).

use super::parse_f64;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Field {
    Real,
    Integer,
    Pattern,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Symmetry {
    General,
    Symmetric,
    SkewSymmetric,
}

/// What the banner and size line say about the entries that follow.
pub(super) struct Header {
    pub field: Field,
    pub symmetry: Symmetry,
    pub rows: usize,
    pub cols: usize,
    pub size_line: usize,
}

pub(super) fn parse_value(field: Field, text: &[u8]) -> Option<f64> {
    match field {
        Field::Pattern => Some(1.0),
        Field::Real => parse_f64(text),
        Field::Integer => std::str::from_utf8(text)
            .ok()?
            .parse::<i64>()
            .ok()
            .map(|v| v as f64),
    }
}

#[inline]
fn is_space(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// Skips spaces and tabs; whether there were any.
#[inline]
pub(super) fn skip_spaces(line: &[u8], p: &mut usize) -> bool {
    let start = *p;
    while *p < line.len() && is_space(line[*p]) {
        *p += 1;
    }
    *p > start
}

/// A 1-based index of at most 10 digits at `line[*p..]` (larger ones, and anything else,
/// are left to the slow path): no overflow checks per digit, as 10 digits fit in `u64`.
#[inline(always)]
fn fast_index(line: &[u8], p: &mut usize) -> Option<usize> {
    let start = *p;
    let mut v: u64 = 0;
    while let Some(d) = line
        .get(*p)
        .map(|b| b.wrapping_sub(b'0'))
        .filter(|&d| d < 10)
    {
        v = v * 10 + u64::from(d);
        *p += 1;
        if *p - start > 10 {
            return None;
        }
    }
    (*p > start).then_some(v as usize)
}

/// The common case of an entry line starting at `text[start]`: `i j [v]` separated by
/// spaces or tabs and ended by `\n`, `\r\n` or the end of the text, parsed in one pass
/// over its bytes (no separate search for the line end, no UTF-8 check, the value parsed
/// where it stands by [`fast_float2::parse_partial`]); 1-based indices, not
/// bounds-checked, and the position just after the line. `None` for anything else
/// (comments, blank lines, errors, and infinite or NaN values, whose spellings are left to
/// the standard parser), which the slow path then examines.
#[inline]
pub(super) fn fast_entry(
    text: &[u8],
    start: usize,
    field: Field,
) -> Option<(usize, usize, f64, usize)> {
    let mut p = start;
    skip_spaces(text, &mut p);
    let i = fast_index(text, &mut p)?;
    if !skip_spaces(text, &mut p) {
        return None;
    }
    let j = fast_index(text, &mut p)?;
    let v = match field {
        Field::Pattern => 1.0,
        Field::Real => {
            if !skip_spaces(text, &mut p) {
                return None;
            }
            let (v, used) = fast_float2::parse_partial::<f64, _>(&text[p..]).ok()?;
            if !v.is_finite() {
                return None;
            }
            p += used;
            v
        }
        Field::Integer => {
            if !skip_spaces(text, &mut p) {
                return None;
            }
            let token = p;
            while p < text.len() && !matches!(text[p], b' ' | b'\t' | b'\r' | b'\n') {
                p += 1;
            }
            parse_value(field, &text[token..p])?
        }
    };
    skip_spaces(text, &mut p);
    if p < text.len() && text[p] == b'\r' {
        p += 1;
    }
    match text.get(p) {
        None => Some((i, j, v, p)),
        Some(b'\n') => Some((i, j, v, p + 1)),
        Some(_) => None,
    }
}
