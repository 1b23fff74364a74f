//! NumPy `.npy` arrays.
//!
//! Reading accepts format versions 1.0, 2.0 and 3.0, element types `f4`/`f8`,
//! `i1`/`i2`/`i4`/`i8`, `u1`/`u2`/`u4`/`u8` in either byte order and `|b1`, C or Fortran
//! order, and 0-, 1- or 2-dimensional shapes: a 0-D array becomes 1x1 and a 1-D array a
//! column vector (n x 1), as DML vectors are columns. Integers are converted to `f64`
//! (64-bit integers beyond 2^53 round). The data must be exactly as long as the shape
//! says: a truncated file or trailing bytes are errors. Errors carry line 0, since the
//! format is binary.
//!
//! Writing produces version 1.0 (2.0 when the header would not fit), `<f8`, C order,
//! always two-dimensional, with the header padded so the data starts on a 64-byte
//! boundary, as NumPy itself does.

use std::io::Write;
use std::path::Path;

use super::parse_error;
use crate::error::Result;
use crate::matrix::{DenseMatrix, Matrix};

const MAGIC: &[u8] = b"\x93NUMPY";

/// Element type of an array: kind (`f`, `i`, `u`, `b`), size in bytes, byte order.
#[derive(Clone, Copy, Debug)]
struct Dtype {
    kind: u8,
    size: usize,
    big_endian: bool,
}

impl Dtype {
    fn parse(descr: &str) -> Option<Dtype> {
        let bytes = descr.as_bytes();
        if bytes.len() < 3 {
            return None;
        }
        let size: usize = std::str::from_utf8(&bytes[2..]).ok()?.parse().ok()?;
        let big_endian = match bytes[0] {
            b'<' => false,
            b'>' => true,
            b'=' => cfg!(target_endian = "big"),
            b'|' if size == 1 => false,
            _ => return None,
        };
        let kind = bytes[1];
        let ok = match kind {
            b'f' => matches!(size, 4 | 8),
            b'i' | b'u' => matches!(size, 1 | 2 | 4 | 8),
            b'b' => size == 1,
            _ => false,
        };
        ok.then_some(Dtype {
            kind,
            size,
            big_endian,
        })
    }

    /// Decodes one element of exactly `self.size` bytes.
    fn decode(&self, b: &[u8]) -> f64 {
        macro_rules! get {
            ($t:ty, $n:literal) => {{
                let mut a = [0u8; $n];
                a.copy_from_slice(b);
                if self.big_endian {
                    <$t>::from_be_bytes(a)
                } else {
                    <$t>::from_le_bytes(a)
                }
            }};
        }
        match (self.kind, self.size) {
            (b'f', 8) => get!(f64, 8),
            (b'f', 4) => get!(f32, 4) as f64,
            (b'i', 1) => b[0] as i8 as f64,
            (b'i', 2) => get!(i16, 2) as f64,
            (b'i', 4) => get!(i32, 4) as f64,
            (b'i', 8) => get!(i64, 8) as f64,
            (b'u', 1) => b[0] as f64,
            (b'u', 2) => get!(u16, 2) as f64,
            (b'u', 4) => get!(u32, 4) as f64,
            (b'u', 8) => get!(u64, 8) as f64,
            (b'b', 1) => f64::from(u8::from(b[0] != 0)),
            _ => f64::NAN, // unreachable: `parse` only admits the types above
        }
    }
}

/// A value of the header dictionary.
#[derive(Debug, PartialEq)]
enum Value {
    Str(String),
    Bool(bool),
    Tuple(Vec<usize>),
}

/// What is wrong with the header dictionary; positions are bytes of the header.
#[derive(Debug, thiserror::Error)]
enum HeaderError {
    #[error("expected '{expected}' at byte {at} of the header")]
    Expected { expected: char, at: usize },
    #[error("expected a string at byte {0} of the header")]
    ExpectedString(usize),
    #[error("unterminated string in the header")]
    UnterminatedString,
    #[error("bad dimension at byte {0} of the header")]
    BadDimension(usize),
    #[error("expected ',' or ')' in the shape")]
    ShapeSeparator,
    #[error("unexpected value at byte {0} of the header")]
    UnexpectedValue(usize),
    #[error("expected ',' or '}}' in the header")]
    EntrySeparator,
    #[error("unexpected text after the header dictionary")]
    TrailingText,
}

/// The outcome of parsing (part of) the header dictionary.
type HeaderResult<T> = std::result::Result<T, HeaderError>;

/// A tiny parser for the Python dict literal of the header, e.g.
/// `{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }`.
struct DictParser<'a> {
    s: &'a [u8],
    pos: usize,
}

impl DictParser<'_> {
    fn ws(&mut self) {
        while self.pos < self.s.len() && self.s[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.s.get(self.pos).copied()
    }

    fn expect(&mut self, c: u8) -> HeaderResult<()> {
        if self.peek() == Some(c) {
            self.pos += 1;
            Ok(())
        } else {
            Err(HeaderError::Expected {
                expected: c as char,
                at: self.pos,
            })
        }
    }

    fn string(&mut self) -> HeaderResult<String> {
        let quote = match self.peek() {
            Some(q @ (b'\'' | b'"')) => q,
            _ => return Err(HeaderError::ExpectedString(self.pos)),
        };
        let start = self.pos + 1;
        let len = self.s[start..]
            .iter()
            .position(|&b| b == quote)
            .ok_or(HeaderError::UnterminatedString)?;
        self.pos = start + len + 1;
        Ok(String::from_utf8_lossy(&self.s[start..start + len]).into_owned())
    }

    fn value(&mut self) -> HeaderResult<Value> {
        match self.peek() {
            Some(b'\'' | b'"') => Ok(Value::Str(self.string()?)),
            Some(b'(') => {
                self.pos += 1;
                let mut dims = Vec::new();
                loop {
                    if self.peek() == Some(b')') {
                        self.pos += 1;
                        break;
                    }
                    let start = self.pos;
                    while self.pos < self.s.len() && self.s[self.pos].is_ascii_digit() {
                        self.pos += 1;
                    }
                    let dim = super::parse_usize(&self.s[start..self.pos])
                        .ok_or(HeaderError::BadDimension(start))?;
                    dims.push(dim);
                    match self.peek() {
                        Some(b',') => self.pos += 1,
                        Some(b')') => {}
                        _ => return Err(HeaderError::ShapeSeparator),
                    }
                }
                Ok(Value::Tuple(dims))
            }
            _ => {
                let rest = &self.s[self.pos..];
                if rest.starts_with(b"True") {
                    self.pos += 4;
                    Ok(Value::Bool(true))
                } else if rest.starts_with(b"False") {
                    self.pos += 5;
                    Ok(Value::Bool(false))
                } else {
                    Err(HeaderError::UnexpectedValue(self.pos))
                }
            }
        }
    }

    fn dict(&mut self) -> HeaderResult<Vec<(String, Value)>> {
        self.expect(b'{')?;
        let mut entries = Vec::new();
        loop {
            if self.peek() == Some(b'}') {
                self.pos += 1;
                break;
            }
            let key = self.string()?;
            self.expect(b':')?;
            let value = self.value()?;
            entries.push((key, value));
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => {}
                _ => return Err(HeaderError::EntrySeparator),
            }
        }
        self.ws();
        if self.pos != self.s.len() {
            return Err(HeaderError::TrailingText);
        }
        Ok(entries)
    }
}

/// Parses a `.npy` file held in memory; `path` is only used in errors.
pub fn parse(bytes: &[u8], path: &Path) -> Result<Matrix> {
    let err = |msg: String| parse_error(path, 0, msg);
    if bytes.len() < 8 || &bytes[..6] != MAGIC {
        return Err(err("not a .npy file (missing \\x93NUMPY magic)".into()));
    }
    let (major, minor) = (bytes[6], bytes[7]);
    let (header_len, header_start) = match major {
        1 if bytes.len() >= 10 => (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10),
        2 | 3 if bytes.len() >= 12 => (
            u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize,
            12,
        ),
        1..=3 => return Err(err("truncated header".into())),
        _ => {
            return Err(err(format!(
                "unsupported .npy format version {major}.{minor}"
            )))
        }
    };
    let data_start = header_start + header_len;
    if bytes.len() < data_start {
        return Err(err(format!(
            "truncated header: {header_len} bytes declared, {} present",
            bytes.len() - header_start
        )));
    }
    let header = &bytes[header_start..data_start];
    let entries = DictParser { s: header, pos: 0 }
        .dict()
        .map_err(|m| err(format!("bad header: {m}")))?;
    let (mut descr, mut fortran, mut shape) = (None, None, None);
    for (key, value) in entries {
        match (key.as_str(), value) {
            ("descr", Value::Str(s)) => descr = Some(s),
            ("fortran_order", Value::Bool(b)) => fortran = Some(b),
            ("shape", Value::Tuple(t)) => shape = Some(t),
            (k, v) => return Err(err(format!("bad header entry '{k}': {v:?}"))),
        }
    }
    let (Some(descr), Some(fortran), Some(shape)) = (descr, fortran, shape) else {
        return Err(err(
            "header lacks one of 'descr', 'fortran_order', 'shape'".into()
        ));
    };
    let dtype = Dtype::parse(&descr).ok_or_else(|| err(format!("unsupported dtype '{descr}'")))?;
    let (rows, cols) = match shape[..] {
        [] => (1, 1),
        [n] => (n, 1),
        [r, c] => (r, c),
        _ => {
            return Err(err(format!(
                "{}-dimensional arrays are not matrices",
                shape.len()
            )))
        }
    };
    let count = rows
        .checked_mul(cols)
        .ok_or_else(|| err(format!("shape {shape:?} is too large")))?;
    let data = &bytes[data_start..];
    let expected = count.checked_mul(dtype.size);
    if expected != Some(data.len()) {
        return Err(err(format!(
            "shape {shape:?} of {descr} needs {} data bytes, the file has {}",
            expected.map_or_else(|| "too many".to_string(), |e| e.to_string()),
            data.len()
        )));
    }
    let values: Vec<f64> = data
        .chunks_exact(dtype.size)
        .map(|b| dtype.decode(b))
        .collect();
    let values = if fortran && rows > 1 && cols > 1 {
        // Column-major to row-major.
        let mut out = vec![0.0; count];
        for j in 0..cols {
            for i in 0..rows {
                out[i * cols + j] = values[j * rows + i];
            }
        }
        out
    } else {
        values
    };
    Ok(Matrix::Dense(DenseMatrix::from_vec(rows, cols, values)?).into_best_format())
}

/// The header of a two-dimensional C-order `<f8` array of `rows x cols`: magic, version,
/// length and the dictionary, padded so the data starts on a 64-byte boundary.
fn header(rows: usize, cols: usize) -> Vec<u8> {
    let mut dict =
        format!("{{'descr': '<f8', 'fortran_order': False, 'shape': ({rows}, {cols}), }}");
    // Pad with spaces and end with '\n' so the data starts on a 64-byte boundary.
    let prefix = if dict.len() + 1 + 10 <= u16::MAX as usize {
        10
    } else {
        12
    };
    let total = (prefix + dict.len() + 1).div_ceil(64) * 64;
    while prefix + dict.len() + 1 < total {
        dict.push(' ');
    }
    dict.push('\n');
    let mut out = MAGIC.to_vec();
    if prefix == 10 {
        out.extend_from_slice(&[1, 0]);
        out.extend_from_slice(&(dict.len() as u16).to_le_bytes());
    } else {
        out.extend_from_slice(&[2, 0]);
        out.extend_from_slice(&(dict.len() as u32).to_le_bytes());
    }
    out.extend_from_slice(dict.as_bytes());
    out
}

/// The bytes [`write`] writes for a `rows x cols` matrix: its header and 8 per cell.
pub fn file_bytes(rows: usize, cols: usize) -> f64 {
    header(rows, cols).len() as f64 + 8.0 * rows as f64 * cols as f64
}

/// Writes `m` as a two-dimensional C-order `<f8` array.
pub fn write(m: &Matrix, w: &mut dyn Write) -> std::io::Result<()> {
    let (rows, cols) = (m.rows(), m.cols());
    w.write_all(&header(rows, cols))?;
    let mut buf = Vec::with_capacity(cols.max(1) * 8);
    let mut row = vec![0.0; cols];
    for i in 0..rows {
        let r: &[f64] = m.dense_row(i, &mut row);
        buf.clear();
        for v in r {
            buf.extend_from_slice(&v.to_le_bytes());
        }
        w.write_all(&buf)?;
    }
    Ok(())
}
