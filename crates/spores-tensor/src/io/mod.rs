//! Reading inputs and writing results.
//!
//! - Matrix Market and `.npy` through spores-exec's readers (a `n x 1` matrix becomes an
//!   order-1 tensor, anything else order 2);
//! - FROSTT `.tns` ([`tns`]): one entry per line, 1-based coordinates then the value;
//! - edge lists ([`edge_list`]): `u v [w]` per line, 0-based vertex ids;
//! - the subgraph-matching graph formats ([`subgraph`]);
//! - seeded synthetic graph families ([`graphgen`]).
//!
//! Errors name the path, and the line for malformed content (`path:line: message`).
//! Writes are atomic (temporary file in the target's directory, then rename).

pub mod edge_list;
pub mod graphgen;
pub mod subgraph;
pub mod tns;

use std::io::Write;
use std::path::Path;

use spores_exec::io::Format;
use spores_exec::Matrix;

use crate::tensor::CooTensor;
use crate::TensorError;

/// Reads a file's text; the error names the path.
pub(crate) fn read_text(path: &Path) -> Result<String, TensorError> {
    std::fs::read_to_string(path)
        .map_err(|e| TensorError::Invalid(format!("cannot read {}: {e}", path.display())))
}

/// A malformed line: `path:line: message`.
pub(crate) fn line_error(path: &Path, line: usize, message: impl std::fmt::Display) -> TensorError {
    TensorError::Invalid(format!("{}:{line}: {message}", path.display()))
}

/// The tensor file formats [`read_tensor`] understands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TensorFormat {
    MatrixMarket,
    Npy,
    Tns,
    EdgeList,
}

impl TensorFormat {
    /// By extension: `.mtx`/`.mm`, `.npy`, `.tns`, `.edges`/`.el`/`.txt` (edge list).
    pub fn from_path(path: &Path) -> Option<TensorFormat> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        Some(match ext.as_str() {
            "mtx" | "mm" => TensorFormat::MatrixMarket,
            "npy" => TensorFormat::Npy,
            "tns" => TensorFormat::Tns,
            "edges" | "el" | "txt" => TensorFormat::EdgeList,
            _ => return None,
        })
    }
}

/// Reads a tensor, choosing the reader by the file's extension.
pub fn read_tensor(path: &Path) -> Result<CooTensor, TensorError> {
    let format = TensorFormat::from_path(path).ok_or_else(|| {
        TensorError::Invalid(format!(
            "{}: unknown tensor file extension (expected .mtx, .mm, .npy, .tns, .edges, .el or .txt)",
            path.display()
        ))
    })?;
    match format {
        TensorFormat::Tns => tns::read(path),
        TensorFormat::EdgeList => edge_list::read(path),
        TensorFormat::MatrixMarket | TensorFormat::Npy => {
            let f = if format == TensorFormat::Npy {
                Format::Npy
            } else {
                Format::MatrixMarket
            };
            let m = spores_exec::io::read_matrix(path, f, &Default::default())
                .map_err(|e| TensorError::Invalid(e.to_string()))?;
            Ok(from_matrix(&m))
        }
    }
}

/// A spores-exec matrix as a tensor: order 1 for a column vector, else order 2.
pub fn from_matrix(m: &Matrix) -> CooTensor {
    let (rows, cols) = (m.rows(), m.cols());
    let mut entries = vec![];
    match m {
        Matrix::Dense(d) => {
            for i in 0..rows {
                for (j, &v) in d.row(i).iter().enumerate() {
                    if v != 0.0 {
                        entries.push((i as u32, j as u32, v));
                    }
                }
            }
        }
        Matrix::Sparse(s) => {
            for i in 0..rows {
                let (idx, vals) = s.line(i);
                for (&j, &v) in idx.iter().zip(vals) {
                    entries.push((i as u32, j, v));
                }
            }
        }
    }
    let (dims, entries) = if cols == 1 {
        (
            vec![rows],
            entries.into_iter().map(|(i, _, v)| (vec![i], v)).collect(),
        )
    } else {
        (
            vec![rows, cols],
            entries
                .into_iter()
                .map(|(i, j, v)| (vec![i, j], v))
                .collect(),
        )
    };
    CooTensor::from_entries(dims, entries, 0.0).expect("matrix entries are in bounds")
}

/// Most cells a result with a non-zero fill may have to be written as a dense Matrix
/// Market array (every cell is then a line of the file: 2^28 lines are several GiB).
const MAX_DENSE_CELLS: usize = 1 << 28;

/// Writes `t` atomically: Matrix Market for order 1 and 2 (`.mtx`), FROSTT `.tns` otherwise
/// (and for any path ending in `.tns`). Entries equal to the fill value are not written to
/// a coordinate file; in a `.tns` file a non-zero fill is recorded on its `# dims` line. A
/// Matrix Market coordinate file's missing entries are zeros to every reader, so a result
/// of order 1 or 2 with a non-zero fill is written as a dense `array` file instead.
pub fn write_tensor(t: &CooTensor, path: &Path) -> Result<(), TensorError> {
    let tns = path.extension().is_some_and(|e| e == "tns") || t.order() > 2 || t.order() == 0;
    if !tns && t.fill() != 0.0 {
        return write_dense_matrix_market(t, path);
    }
    // Each entry takes at least a one-digit coordinate and a separator per mode, a
    // one-digit value and a newline; checked against the free space before writing.
    let bytes = 64.0 + t.nnz() as f64 * (2.0 * t.order() as f64 + 2.0);
    write_atomic_sized(path, bytes, |w| {
        if tns {
            writeln!(w, "# dims {:?} fill {}", t.dims(), t.fill())?;
            for (c, v) in t.iter() {
                for x in c {
                    write!(w, "{} ", x + 1)?;
                }
                writeln!(w, "{v}")?;
            }
            if t.order() == 0 {
                writeln!(w, "{}", t.values().first().copied().unwrap_or(t.fill()))?;
            }
        } else {
            writeln!(w, "%%MatrixMarket matrix coordinate real general")?;
            let (rows, cols) = (t.dims()[0], t.dims().get(1).copied().unwrap_or(1));
            writeln!(w, "{rows} {cols} {}", t.nnz())?;
            for (c, v) in t.iter() {
                writeln!(w, "{} {} {v}", c[0] + 1, c.get(1).map_or(1, |x| x + 1))?;
            }
        }
        Ok(())
    })
}

/// `t` (order 1 or 2) as a Matrix Market `array` file: every cell, column by column.
fn write_dense_matrix_market(t: &CooTensor, path: &Path) -> Result<(), TensorError> {
    let (rows, cols) = (t.dims()[0], t.dims().get(1).copied().unwrap_or(1));
    let cells = rows.checked_mul(cols).filter(|&n| n <= MAX_DENSE_CELLS);
    let Some(cells) = cells else {
        return Err(TensorError::Invalid(format!(
            "cannot write {}: a {rows}x{cols} result with fill {} has a value in every cell,              more than {MAX_DENSE_CELLS} for a dense Matrix Market file; write it as .tns",
            path.display(),
            t.fill()
        )));
    };
    // The stored entries in column-major order; every other cell is the fill. Streamed, so
    // no dense copy of the result is held.
    let mut stored: Vec<(usize, f64)> = t
        .iter()
        .map(|(c, v)| {
            (
                c.get(1).map_or(0, |&j| j as usize) * rows + c[0] as usize,
                v,
            )
        })
        .collect();
    stored.sort_unstable_by_key(|&(cell, _)| cell);
    // Every cell is a line of at least one digit.
    write_atomic_sized(path, 64.0 + 2.0 * cells as f64, |w| {
        writeln!(w, "%%MatrixMarket matrix array real general")?;
        writeln!(w, "{rows} {cols}")?;
        let mut next = stored.iter().peekable();
        for cell in 0..cells {
            match next.next_if(|&&(c, _)| c == cell) {
                Some(&(_, v)) => writeln!(w, "{v}")?,
                None => writeln!(w, "{}", t.fill())?,
            }
        }
        Ok(())
    })
}

/// Writes through a temporary file next to `path`, fsyncs and renames it over `path`
/// (keeping an existing file's permissions, writing through symbolic links).
pub fn write_atomic(
    path: &Path,
    body: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<(), TensorError> {
    write_file(path, None, body)
}

/// [`write_atomic`] of a file of at least `bytes`, refused before anything is written
/// when its filesystem has less free space.
fn write_atomic_sized(
    path: &Path,
    bytes: f64,
    body: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<(), TensorError> {
    write_file(path, Some(bytes), body)
}

fn write_file(
    path: &Path,
    bytes: Option<f64>,
    body: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<(), TensorError> {
    spores_exec::io::atomic::write_atomic_file(path, bytes, |w| body(w))
        .map_err(|e| TensorError::Invalid(format!("cannot write {}: {e}", path.display())))
}

#[cfg(test)]
mod tests;
