//! SystemDS's text-cell format (`format="text"`, SystemDS's default for `write`): one
//! `i j v` line per non-zero cell, 1-based, and nothing else.
//!
//! The file does not hold the matrix's size: SystemDS keeps it in the metadata file beside
//! it (`<file>.mtd`, see [`super::metadata`]) or takes it from `read(..., rows=, cols=)`.
//! Given no size, the reader takes the largest indices, as SystemDS does. SystemDS writes a
//! matrix without non-zeros as the one line `0 0 0`, which needs a size to be read.
//!
//! The cells are the body of a Matrix Market coordinate file, so they are parsed by the
//! same parallel entry parser (`matrix_market.rs`): any order, duplicates summed.

use std::io::Write;
use std::path::Path;

use super::matrix_market::{parse_coordinate_piece, write_cells};
use super::mm_entry::{Field, Header, Symmetry};
use super::{fields, is_blank, lines, matrix_from_entries, parse_error, parse_pieces, Entries};
use crate::error::Result;
use crate::matrix::Matrix;

/// The line SystemDS writes for a matrix without non-zeros.
const EMPTY_MARKER: &[&[u8]] = &[b"0", b"0", b"0"];

/// Parses a text-cell file held in memory; `size` is the rows and columns where the
/// caller knows them. `path` is only used in errors.
pub fn parse(bytes: &[u8], path: &Path, size: (Option<usize>, Option<usize>)) -> Result<Matrix> {
    let needs_size = || {
        parse_error(
            path,
            1,
            "a text-cell file without non-zeros does not say its size: \
             give `rows` and `cols` to `read`, or a `.mtd` file beside it",
        )
    };
    let mut data_lines = lines(bytes).filter(|(_, l)| !is_blank(l));
    let first = data_lines.next();
    let only_marker = first.is_some_and(|(_, l)| fields(l).eq(EMPTY_MARKER.iter().copied()))
        && data_lines.next().is_none();
    if first.is_none() || only_marker {
        return match size {
            (Some(rows), Some(cols)) => matrix_from_entries(rows, cols, &[], path, 1),
            _ => Err(needs_size()),
        };
    }
    let limit = u32::MAX as usize;
    let header = Header {
        field: Field::Real,
        symmetry: Symmetry::General,
        rows: size.0.unwrap_or(limit),
        cols: size.1.unwrap_or(limit),
        size_line: 1,
    };
    if header.rows > limit || header.cols > limit {
        return Err(parse_error(
            path,
            1,
            format!(
                "a {}x{} text-cell matrix exceeds the {limit} rows or columns spores can index",
                header.rows, header.cols
            ),
        ));
    }
    let parts = parse_pieces(bytes, 1, path, |t| parse_coordinate_piece(t, &header))?;
    let entries: Vec<&Entries> = parts.iter().map(|p| &p.value.0).collect();
    let extent = |given: Option<usize>, indices: fn(&Entries) -> &[u32]| {
        given.unwrap_or_else(|| {
            entries
                .iter()
                .filter_map(|e| indices(e).iter().max())
                .max()
                .map_or(0, |&i| i as usize + 1)
        })
    };
    let rows = extent(size.0, |e| &e.ri);
    let cols = extent(size.1, |e| &e.ci);
    matrix_from_entries(rows, cols, &entries, path, 1)
}

/// The fewest bytes [`write`] can write for `m`: each non-zero at least as long as
/// `1 1 1` and a newline, or the empty marker.
pub fn min_file_bytes(m: &Matrix) -> f64 {
    6.0 * m.nnz().max(1) as f64
}

/// Writes the non-zero cells of `m` in row-major order, `0 0 0` when there are none.
pub fn write(m: &Matrix, w: &mut dyn Write) -> std::io::Result<()> {
    if m.nnz() == 0 {
        return writeln!(w, "0 0 0");
    }
    write_cells(m, w)
}
