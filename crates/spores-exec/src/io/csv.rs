//! Dense numeric CSV.
//!
//! Reading: one matrix row per line, fields separated by a configurable character
//! (`,` by default), an optional header line that is skipped. Fields are trimmed of ASCII
//! whitespace and parsed as `f64` (`1`, `-2.5e-3`, `NaN`, `Infinity`/`inf`).
//! **An empty field is 0**, as SystemDS reads CSV with its default `fill=TRUE`,
//! `default=0` (other fill values and `fill=FALSE` through [`ReadOptions`]); a field that
//! is one of the caller's NA strings (`naStrings=`) is NaN. Lines that are entirely blank are skipped (so a matrix with zero columns
//! cannot be represented: it reads back as 0x0). Every non-blank line must have the same
//! number of fields. A UTF-8 byte-order mark at the start is ignored.
//!
//! Writing: every cell, no header unless asked for (`C1,C2,...` as SystemDS names
//! columns), values in shortest round-trip form.

use std::io::Write;
use std::path::Path;

use super::{
    is_blank, lines, next_line, parse_error, parse_f64, parse_pieces, write_f64,
    write_rows_parallel, LineError, ReadOptions,
};
use crate::error::Result;
use crate::matrix::{DenseMatrix, Matrix};

/// Splits `line` at every occurrence of `sep` (one or more bytes).
fn split_sep<'a>(line: &'a [u8], sep: &'a [u8]) -> impl Iterator<Item = &'a [u8]> + 'a {
    let mut rest = Some(line);
    std::iter::from_fn(move || {
        let r = rest?;
        let found = if sep.is_empty() {
            None
        } else if sep.len() == 1 {
            r.iter().position(|&b| b == sep[0])
        } else {
            r.windows(sep.len()).position(|w| w == sep)
        };
        match found {
            Some(p) => {
                rest = Some(&r[p + sep.len()..]);
                Some(&r[..p])
            }
            None => {
                rest = None;
                Some(r)
            }
        }
    })
}

struct Rows {
    values: Vec<f64>,
    rows: usize,
    /// Field count and (0-based, in the piece) line of the piece's first data line.
    first: Option<(usize, usize)>,
}

fn parse_piece(
    text: &[u8],
    sep: &[u8],
    na: &[String],
    fill: Option<f64>,
) -> Result<(Rows, usize), LineError> {
    let mut out = Rows {
        values: Vec::with_capacity(text.len() / 8),
        rows: 0,
        first: None,
    };
    let mut n = 0;
    for (k, line) in lines(text) {
        n = k + 1;
        if is_blank(line) {
            continue;
        }
        let before = out.values.len();
        for (f, field) in split_sep(line, sep).enumerate() {
            // SystemDS compares the untrimmed field with its NA strings.
            let na_field = na.iter().any(|s| s.as_bytes() == field);
            let field = field.trim_ascii();
            let v = if na_field {
                f64::NAN
            } else if field.is_empty() {
                fill.ok_or_else(|| {
                    LineError::new(k, format!("field {} is empty, and fill=FALSE", f + 1))
                })?
            } else {
                parse_f64(field).ok_or_else(|| {
                    LineError::new(
                        k,
                        format!(
                            "field {}: '{}' is not a number",
                            f + 1,
                            String::from_utf8_lossy(field)
                        ),
                    )
                })?
            };
            out.values.push(v);
        }
        let count = out.values.len() - before;
        match out.first {
            None => out.first = Some((count, k)),
            Some((cols, _)) if cols != count => {
                return Err(LineError::new(
                    k,
                    format!("{count} fields, but the first data line has {cols}"),
                ))
            }
            Some(_) => {}
        }
        out.rows += 1;
    }
    Ok((out, n))
}

/// Parses a CSV file held in memory; `path` is only used in errors.
/// `sep` is matched whole; an empty one reads each line as one field.
pub fn parse(bytes: &[u8], path: &Path, header: bool, sep: &str) -> Result<Matrix> {
    let opts = ReadOptions {
        csv_header: header,
        csv_sep: sep.to_string(),
        ..ReadOptions::default()
    };
    parse_with(bytes, path, &opts)
}

/// [`parse`] with all of [`ReadOptions`]' CSV settings: the NA strings read as NaN and
/// the value (or refusal) of an empty field.
pub fn parse_with(bytes: &[u8], path: &Path, opts: &ReadOptions) -> Result<Matrix> {
    let (header, sep, na, fill) = (
        opts.csv_header,
        opts.csv_sep.as_str(),
        opts.csv_na_strings.as_slice(),
        opts.csv_fill,
    );
    let sep = sep.as_bytes();
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let (start, first_line) = if header {
        (next_line(bytes, 0).0, 2)
    } else {
        (0, 1)
    };
    let parts = parse_pieces(&bytes[start..], first_line, path, |t| {
        parse_piece(t, sep, na, fill)
    })?;
    let mut cols: Option<usize> = None;
    let mut rows = 0;
    for part in &parts {
        if let Some((c, k)) = part.value.first {
            match cols {
                Some(c0) if c0 != c => {
                    return Err(parse_error(
                        path,
                        part.first_line + k,
                        format!("{c} fields, but the first data line has {c0}"),
                    ))
                }
                _ => cols = Some(c),
            }
        }
        rows += part.value.rows;
    }
    let cols = cols.unwrap_or(0);
    let rows = if cols == 0 { 0 } else { rows };
    let data = if parts.len() == 1 {
        parts
            .into_iter()
            .next()
            .map(|p| p.value.values)
            .unwrap_or_default()
    } else {
        let mut data = Vec::with_capacity(rows * cols);
        for p in parts {
            data.extend_from_slice(&p.value.values);
        }
        data
    };
    let d = DenseMatrix::from_vec(rows, cols, data)?;
    Ok(Matrix::Dense(d).into_best_format())
}

/// The fewest bytes [`write`] can write for `m`: every cell at least one character
/// (`0`), a separator between cells, a newline per row, and a header of at least two
/// characters per column (`C1`).
pub fn min_file_bytes(m: &Matrix, header: bool, sep: &str) -> f64 {
    let (rows, cols) = (m.rows() as f64, m.cols() as f64);
    let line = |cell: f64| cols * cell + (cols - 1.0).max(0.0) * sep.len() as f64 + 1.0;
    rows * line(1.0) + if header { line(2.0) } else { 0.0 }
}

/// Writes every cell of `m`, one row per line.
pub fn write(m: &Matrix, w: &mut dyn Write, header: bool, sep: &str) -> std::io::Result<()> {
    let sep = sep.as_bytes();
    let cols = m.cols();
    if header {
        for j in 0..cols {
            if j > 0 {
                w.write_all(sep)?;
            }
            write!(w, "C{}", j + 1)?;
        }
        w.write_all(b"\n")?;
    }
    let write_row = |buf: &mut Vec<u8>, row: &[f64]| -> std::io::Result<()> {
        for (j, &v) in row.iter().enumerate() {
            if j > 0 {
                buf.extend_from_slice(sep);
            }
            write_f64(buf, v)?;
        }
        buf.push(b'\n');
        Ok(())
    };
    match m {
        Matrix::Dense(d) => write_rows_parallel(w, d.rows(), cols, |range, buf| {
            for i in range {
                write_row(buf, d.row(i))?;
            }
            Ok(())
        }),
        Matrix::Sparse(s) => write_rows_parallel(w, s.rows(), cols, |range, buf| {
            let mut row = vec![0.0; cols];
            for i in range {
                write_row(buf, m.dense_row(i, &mut row))?;
            }
            Ok(())
        }),
    }
}
