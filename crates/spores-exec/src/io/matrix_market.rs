//! NIST Matrix Market exchange format.
//!
//! Reads `%%MatrixMarket matrix coordinate|array real|double|integer|pattern
//! general|symmetric|skew-symmetric` (complex and hermitian matrices are rejected with a
//! parse error). Comment lines (`%`) and blank lines are skipped anywhere. Coordinate
//! entries are 1-based `i j [value]`, in any order; duplicates are summed, symmetric and
//! skew-symmetric entries are mirrored. Array files list values in column-major order
//! (only the lower triangle for symmetric, the strict lower triangle for skew-symmetric).
//!
//! The number of entries must match the size line, with one exception for SystemDS
//! interoperability: SystemDS writes an empty matrix as size line `m n 0` followed by a
//! single dummy entry `1 1 0`, which is accepted.
//!
//! Large coordinate files are parsed in parallel chunks split at line boundaries: each
//! entry line in one pass (values by `fast_float2`, no allocation), with a slow path that
//! re-examines any line the fast one does not accept and names what is wrong with it.
//! The chunks' entries are assembled into the matrix on all cores (`io/assemble.rs`);
//! a `general` body in row-major order is parsed straight into the result instead
//! (`io/mm_sorted.rs`), and falls back to this path at anything unusual.
//! Coordinate dimensions must fit in `u32`, the index type of [`crate::matrix::CsrMatrix`].
//! Writing always produces `coordinate real general` with the non-zero cells in row-major
//! order, as SystemDS's `write(X, f, format="mm")` does.

use std::io::Write;
use std::path::Path;

use super::mm_entry::{fast_entry, parse_value, Field, Header, Symmetry};
use super::{
    fields, is_blank, lines, matrix_from_entries, next_line, parse_error, parse_pieces,
    parse_usize, write_f64, write_rows_parallel, Entries, LineError,
};
use crate::error::Result;
use crate::matrix::{DenseMatrix, Matrix};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Layout {
    Coordinate,
    Array,
}

/// Parses a Matrix Market file held in memory; `path` is only used in errors.
pub fn parse(bytes: &[u8], path: &Path) -> Result<Matrix> {
    let err = |line: usize, msg: String| parse_error(path, line, msg);

    // Banner.
    let (mut pos, banner) = next_line(bytes, 0);
    let tokens: Vec<&[u8]> = fields(banner).collect();
    if tokens.first().map(|t| t.to_ascii_lowercase()) != Some(b"%%matrixmarket".to_vec()) {
        return Err(err(1, "missing '%%MatrixMarket' header line".into()));
    }
    if tokens.len() != 5 {
        return Err(err(
            1,
            format!(
                "header must be '%%MatrixMarket matrix <format> <field> <symmetry>', got {} words",
                tokens.len()
            ),
        ));
    }
    let word = |k: usize| String::from_utf8_lossy(tokens[k]).to_ascii_lowercase();
    if word(1) != "matrix" {
        return Err(err(
            1,
            format!("unsupported object '{}' (only 'matrix')", word(1)),
        ));
    }
    let layout = match word(2).as_str() {
        "coordinate" => Layout::Coordinate,
        "array" => Layout::Array,
        other => return Err(err(1, format!("unknown format '{other}'"))),
    };
    let field = match word(3).as_str() {
        "real" | "double" => Field::Real,
        "integer" => Field::Integer,
        "pattern" => Field::Pattern,
        "complex" => return Err(err(1, "complex matrices are not supported".into())),
        other => return Err(err(1, format!("unknown field type '{other}'"))),
    };
    let symmetry = match word(4).as_str() {
        "general" => Symmetry::General,
        "symmetric" => Symmetry::Symmetric,
        "skew-symmetric" => Symmetry::SkewSymmetric,
        "hermitian" => return Err(err(1, "hermitian matrices are not supported".into())),
        other => return Err(err(1, format!("unknown symmetry '{other}'"))),
    };
    if layout == Layout::Array && field == Field::Pattern {
        return Err(err(1, "'array pattern' is not a valid combination".into()));
    }

    // Comments, then the size line.
    let mut line_no = 1;
    let size_line = loop {
        if pos >= bytes.len() {
            return Err(err(line_no + 1, "missing size line".into()));
        }
        let (next, line) = next_line(bytes, pos);
        pos = next;
        line_no += 1;
        if !(is_blank(line) || line.first() == Some(&b'%')) {
            break line;
        }
    };
    let size_fields: Vec<&[u8]> = fields(size_line).collect();
    let expected_fields = if layout == Layout::Coordinate { 3 } else { 2 };
    if size_fields.len() != expected_fields {
        return Err(err(
            line_no,
            format!(
                "size line must have {expected_fields} numbers, found {}",
                size_fields.len()
            ),
        ));
    }
    let mut dims = [0usize; 3];
    for (k, f) in size_fields.iter().enumerate() {
        dims[k] = parse_usize(f).ok_or_else(|| {
            err(
                line_no,
                format!(
                    "bad size '{}', expected a non-negative integer",
                    String::from_utf8_lossy(f)
                ),
            )
        })?;
    }
    let [rows, cols, declared] = dims;
    if layout == Layout::Coordinate && (rows > u32::MAX as usize || cols > u32::MAX as usize) {
        return Err(err(
            line_no,
            format!(
                "a {rows}x{cols} coordinate matrix exceeds the {} rows or columns spores can index",
                u32::MAX
            ),
        ));
    }
    if symmetry != Symmetry::General && rows != cols {
        return Err(err(
            line_no,
            format!("a {rows}x{cols} matrix cannot be symmetric or skew-symmetric"),
        ));
    }
    let header = Header {
        field,
        symmetry,
        rows,
        cols,
        size_line: line_no,
    };
    let body = &bytes[pos..];
    match layout {
        Layout::Coordinate => parse_coordinate(body, line_no + 1, &header, declared, path),
        Layout::Array => parse_array(body, line_no + 1, &header, path),
    }
}

fn is_data_line(line: &[u8]) -> bool {
    !(is_blank(line) || line.first() == Some(&b'%'))
}

/// What is wrong with an entry line the fast path did not accept (see [`slow_entry`]).
#[derive(Debug, thiserror::Error)]
enum EntryError {
    #[error("expected {expected} fields per entry, found {found}")]
    TooFewFields { expected: usize, found: usize },
    #[error("expected {expected} fields per entry, found more")]
    TooManyFields { expected: usize },
    /// A 1-based index outside the size line's extents; `what` is `row` or `column`.
    #[error("{what} index {index} out of bounds for a {rows}x{cols} matrix (1-based)")]
    IndexOutOfBounds {
        what: &'static str,
        index: usize,
        rows: usize,
        cols: usize,
    },
    #[error("bad {what} index '{text}'")]
    BadIndex { what: &'static str, text: String },
    #[error("bad value '{0}'")]
    BadValue(String),
}

/// An entry line parsed with full diagnostics: `Ok(None)` for comments and blank lines,
/// `Ok(Some((i, j, v)))` (0-based, in bounds) or what is wrong.
fn slow_entry(
    line: &[u8],
    h: &Header,
) -> std::result::Result<Option<(usize, usize, f64)>, EntryError> {
    if !is_data_line(line) {
        return Ok(None);
    }
    let nfields = if h.field == Field::Pattern { 2 } else { 3 };
    let f: Vec<&[u8]> = fields(line).take(nfields + 1).collect();
    if f.len() > nfields {
        return Err(EntryError::TooManyFields { expected: nfields });
    }
    if f.len() < nfields {
        return Err(EntryError::TooFewFields {
            expected: nfields,
            found: f.len(),
        });
    }
    let index = |text: &[u8], what: &'static str, extent: usize| match parse_usize(text) {
        Some(v) if v >= 1 && v <= extent => Ok(v - 1),
        Some(index) => Err(EntryError::IndexOutOfBounds {
            what,
            index,
            rows: h.rows,
            cols: h.cols,
        }),
        None => Err(EntryError::BadIndex {
            what,
            text: String::from_utf8_lossy(text).into_owned(),
        }),
    };
    let i = index(f[0], "row", h.rows)?;
    let j = index(f[1], "column", h.cols)?;
    let text = f.get(2).copied().unwrap_or_default();
    let v = parse_value(h.field, text)
        .ok_or_else(|| EntryError::BadValue(String::from_utf8_lossy(text).into_owned()))?;
    Ok(Some((i, j, v)))
}

/// Parses the entry lines of one piece: the entries (mirrored for symmetric matrices),
/// the number of entry lines, and the number of lines (as [`lines`] counts them).
pub(super) fn parse_coordinate_piece(
    text: &[u8],
    h: &Header,
) -> Result<((Entries, usize), usize), LineError> {
    let mut out = Entries::with_capacity(text.len() / 24);
    let mut entry_lines = 0;
    let mut pos = 0;
    let mut k = 0;
    while pos < text.len() {
        let (i, j, v) = match fast_entry(text, pos, h.field) {
            Some((i, j, v, next)) if i >= 1 && i <= h.rows && j >= 1 && j <= h.cols => {
                pos = next;
                (i - 1, j - 1, v)
            }
            _ => {
                let (next, line) = next_line(text, pos);
                pos = next;
                match slow_entry(line, h) {
                    Ok(Some(e)) => e,
                    Ok(None) => {
                        k += 1;
                        continue;
                    }
                    Err(e) => return Err(LineError::new(k, e.to_string())),
                }
            }
        };
        entry_lines += 1;
        out.push(i, j, v);
        if i != j {
            match h.symmetry {
                Symmetry::General => {}
                Symmetry::Symmetric => out.push(j, i, v),
                Symmetry::SkewSymmetric => out.push(j, i, -v),
            }
        } else if h.symmetry == Symmetry::SkewSymmetric && v != 0.0 {
            return Err(LineError::new(
                k,
                format!(
                    "non-zero diagonal entry ({}, {}) in a skew-symmetric matrix",
                    i + 1,
                    j + 1
                ),
            ));
        }
        k += 1;
    }
    Ok(((out, entry_lines), k))
}

/// Number of the line just after the end of `body`, whose first line is `first_line`.
fn line_after(body: &[u8], first_line: usize) -> usize {
    first_line + lines(body).count()
}

fn parse_coordinate(
    body: &[u8],
    first_line: usize,
    h: &Header,
    declared: usize,
    path: &Path,
) -> Result<Matrix> {
    if h.symmetry == Symmetry::General && super::sorted_path_enabled() {
        if let Some(m) = super::mm_sorted::parse(body, h, declared) {
            return Ok(m);
        }
    }
    let parts = parse_pieces(body, first_line, path, |t| parse_coordinate_piece(t, h))?;
    let total: usize = parts.iter().map(|p| p.value.1).sum();
    if total < declared {
        return Err(parse_error(
            path,
            line_after(body, first_line),
            format!("file ends after {total} entries, the size line declares {declared}"),
        ));
    }
    if total > declared {
        // SystemDS writes an empty matrix as `m n 0` plus a dummy `1 1 0` entry.
        let systemds_empty = declared == 0
            && total == 1
            && parts
                .iter()
                .all(|p| p.value.0.vals.iter().all(|&v| v == 0.0));
        if systemds_empty {
            return matrix_from_entries(h.rows, h.cols, &[], path, h.size_line);
        }
        // Find the line of entry number `declared + 1`.
        let mut before = 0;
        for part in &parts {
            let count = part.value.1;
            if before + count > declared {
                let line = lines(part.text)
                    .filter(|(_, l)| is_data_line(l))
                    .nth(declared - before)
                    .map_or(0, |(k, _)| k);
                return Err(parse_error(
                    path,
                    part.first_line + line,
                    format!("more entries than the {declared} the size line declares"),
                ));
            }
            before += count;
        }
    }
    let entries: Vec<&Entries> = parts.iter().map(|p| &p.value.0).collect();
    matrix_from_entries(h.rows, h.cols, &entries, path, h.size_line)
}

fn parse_array(body: &[u8], first_line: usize, h: &Header, path: &Path) -> Result<Matrix> {
    let (rows, cols) = (h.rows, h.cols);
    let too_large = || {
        parse_error(
            path,
            h.size_line,
            format!("{rows}x{cols} matrix is too large"),
        )
    };
    let expected = match h.symmetry {
        Symmetry::General => rows.checked_mul(cols).ok_or_else(too_large)?,
        // Square: n(n+1)/2 and n(n-1)/2 values.
        Symmetry::Symmetric => rows
            .checked_add(1)
            .and_then(|r1| rows.checked_mul(r1))
            .map(|x| x / 2)
            .ok_or_else(too_large)?,
        Symmetry::SkewSymmetric => rows
            .checked_mul(rows.saturating_sub(1))
            .map(|x| x / 2)
            .ok_or_else(too_large)?,
    };
    let mut values: Vec<f64> = Vec::with_capacity(expected.min(body.len() / 2 + 1));
    for (k, line) in lines(body) {
        let line_no = first_line + k;
        if !is_data_line(line) {
            continue;
        }
        let mut it = fields(line);
        let (Some(text), None) = (it.next(), it.next()) else {
            return Err(parse_error(
                path,
                line_no,
                "expected exactly one value per line in an array file",
            ));
        };
        if values.len() == expected {
            return Err(parse_error(
                path,
                line_no,
                format!("more values than the {expected} the size line implies"),
            ));
        }
        let v = parse_value(h.field, text).ok_or_else(|| {
            parse_error(
                path,
                line_no,
                format!("bad value '{}'", String::from_utf8_lossy(text)),
            )
        })?;
        values.push(v);
    }
    if values.len() < expected {
        return Err(parse_error(
            path,
            line_after(body, first_line),
            format!(
                "file ends after {} values, the size line implies {expected}",
                values.len()
            ),
        ));
    }
    // `values` holds at least half of the cells, so this allocation is backed by the file.
    let cells = rows.checked_mul(cols).ok_or_else(too_large)?;
    let mut data = super::try_zeros::<f64>(cells, path, h.size_line)?;
    let mut next = values.iter().copied();
    for j in 0..cols {
        let start = match h.symmetry {
            Symmetry::General => 0,
            Symmetry::Symmetric => j,
            Symmetry::SkewSymmetric => j + 1,
        };
        for i in start..rows {
            let v = next.next().unwrap_or(0.0);
            data[i * cols + j] = v;
            match h.symmetry {
                Symmetry::General => {}
                Symmetry::Symmetric => data[j * cols + i] = v,
                Symmetry::SkewSymmetric => data[j * cols + i] = -v,
            }
        }
    }
    Ok(Matrix::Dense(DenseMatrix::from_vec(rows, cols, data)?).into_best_format())
}

/// The fewest bytes [`write`] can write for `m`: its two header lines, and each non-zero
/// at least as long as `1 1 1` and a newline.
pub fn min_file_bytes(m: &Matrix) -> f64 {
    let header = format!(
        "%%MatrixMarket matrix coordinate real general\n{} {} {}\n",
        m.rows(),
        m.cols(),
        m.nnz()
    );
    header.len() as f64 + 6.0 * m.nnz() as f64
}

/// Writes `m` as `coordinate real general`: the non-zero cells in row-major order.
pub fn write(m: &Matrix, w: &mut dyn Write) -> std::io::Result<()> {
    writeln!(w, "%%MatrixMarket matrix coordinate real general")?;
    writeln!(w, "{} {} {}", m.rows(), m.cols(), m.nnz())?;
    write_cells(m, w)
}

/// Writes the non-zero cells of `m` in row-major order, one `i j v` line each (1-based).
pub(super) fn write_cells(m: &Matrix, w: &mut dyn Write) -> std::io::Result<()> {
    match m {
        Matrix::Dense(d) => write_rows_parallel(w, d.rows(), d.cols(), |range, buf| {
            for i in range {
                for (j, &v) in d.row(i).iter().enumerate() {
                    if v != 0.0 {
                        write!(buf, "{} {} ", i + 1, j + 1)?;
                        write_f64(buf, v)?;
                        buf.push(b'\n');
                    }
                }
            }
            Ok(())
        }),
        Matrix::Sparse(s) => {
            let per_row = s.stored() / s.rows().max(1) + 1;
            write_rows_parallel(w, s.rows(), per_row, |range, buf| {
                for i in range {
                    let (idx, val) = s.line(i);
                    for (&j, &v) in idx.iter().zip(val) {
                        if v != 0.0 {
                            write!(buf, "{} {} ", i + 1, j as usize + 1)?;
                            write_f64(buf, v)?;
                            buf.push(b'\n');
                        }
                    }
                }
                Ok(())
            })
        }
    }
}
