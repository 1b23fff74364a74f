//! Matrix file formats: Matrix Market, CSV and NumPy `.npy`.
//!
//! [`read_matrix`] and [`write_matrix`] dispatch on a [`Format`]; each format module also
//! exposes a `parse(bytes, path)` function on an in-memory buffer (the path is only used
//! in error messages), which is what the readers call after loading the file in one read.
//!
//! Error policy: a file that cannot be opened or written is an [`ExecError::Io`] naming
//! the path; any malformed content is an [`ExecError::Parse`] with the path and the
//! 1-based line number (0 for the binary `.npy` format). The readers never panic on any
//! input — the proptests in each module feed them random bytes and mutated files.
//!
//! Writes are atomic: the data goes to a temporary file in the target's directory, which
//! is flushed, fsynced and renamed over the target, so a reader never sees half a file
//! and a failed write leaves the old file in place.

pub mod csv;
pub mod matrix_market;
pub mod npy;
#[cfg(test)]
mod tests;

use std::fs::{self, File};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use crate::error::{ExecError, Result};
use crate::matrix::{prefer_sparse, CsrMatrix, DenseMatrix, Matrix};

/// A matrix file format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// NIST Matrix Market exchange format (`.mtx`, `.mm`), coordinate or array.
    MatrixMarket,
    /// Dense comma- (or otherwise-) separated values (`.csv`).
    Csv,
    /// NumPy's binary `.npy` array format.
    Npy,
}

impl Format {
    /// The format implied by a file's extension (case-insensitive): `.mtx`/`.mm`,
    /// `.csv`, `.npy`. `None` for anything else.
    pub fn from_path(path: &Path) -> Option<Format> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "mtx" | "mm" => Some(Format::MatrixMarket),
            "csv" => Some(Format::Csv),
            "npy" => Some(Format::Npy),
            _ => None,
        }
    }

    /// The format named by DML's `read(..., format="...")` / `write(..., format="...")`
    /// (case-insensitive): `"mm"` (also `"mtx"`, `"matrixmarket"`), `"csv"`, `"npy"`.
    ///
    /// SystemDS's `"text"` is its header-less `i j v` text-cell format, which is not
    /// Matrix Market, so it is deliberately not accepted here (`None`), nor are
    /// `"binary"`, `"libsvm"` or `"hdf5"`.
    pub fn from_name(name: &str) -> Option<Format> {
        match name.to_ascii_lowercase().as_str() {
            "mm" | "mtx" | "matrixmarket" | "matrix_market" => Some(Format::MatrixMarket),
            "csv" => Some(Format::Csv),
            "npy" => Some(Format::Npy),
            _ => None,
        }
    }

    /// The canonical DML name of the format (`"mm"`, `"csv"`, `"npy"`).
    pub fn name(self) -> &'static str {
        match self {
            Format::MatrixMarket => "mm",
            Format::Csv => "csv",
            Format::Npy => "npy",
        }
    }
}

/// Options for [`read_matrix`]; only the CSV reader looks at them.
#[derive(Clone, Debug, PartialEq)]
pub struct ReadOptions {
    /// The first line of a CSV file is a header (column names) and is skipped.
    pub csv_header: bool,
    /// CSV field separator.
    pub csv_sep: char,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            csv_header: false,
            csv_sep: ',',
        }
    }
}

/// Options for [`write_matrix`]; only the CSV writer looks at them.
#[derive(Clone, Debug, PartialEq)]
pub struct WriteOptions {
    /// Write a header line `C1,C2,...` before the data (SystemDS's column names).
    pub csv_header: bool,
    /// CSV field separator.
    pub csv_sep: char,
}

impl Default for WriteOptions {
    fn default() -> Self {
        WriteOptions {
            csv_header: false,
            csv_sep: ',',
        }
    }
}

/// Reads a matrix file. The result is in the format [`Matrix::into_best_format`] picks.
pub fn read_matrix(path: &Path, format: Format, opts: &ReadOptions) -> Result<Matrix> {
    let bytes = read_file(path)?;
    match format {
        Format::MatrixMarket => matrix_market::parse(&bytes, path),
        Format::Csv => csv::parse(&bytes, path, opts.csv_header, opts.csv_sep),
        Format::Npy => npy::parse(&bytes, path),
    }
}

/// Writes a matrix file atomically (temporary file, fsync, rename).
///
/// Matrix Market files are always `coordinate real general`, as SystemDS writes them;
/// CSV files are dense; `.npy` files are `<f8`, C order, two-dimensional.
pub fn write_matrix(m: &Matrix, path: &Path, format: Format, opts: &WriteOptions) -> Result<()> {
    write_atomic(path, |w| match format {
        Format::MatrixMarket => matrix_market::write(m, w),
        Format::Csv => csv::write(m, w, opts.csv_header, opts.csv_sep),
        Format::Npy => npy::write(m, w),
    })
}

/// The whole file in memory; a missing or unreadable file is an [`ExecError::Io`].
fn read_file(path: &Path) -> Result<Vec<u8>> {
    fs::read(path).map_err(|source| io_error(path, source))
}

fn io_error(path: &Path, source: std::io::Error) -> ExecError {
    ExecError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// A parse error at a 1-based line.
pub(crate) fn parse_error(path: &Path, line: usize, message: impl Into<String>) -> ExecError {
    ExecError::Parse {
        path: path.to_path_buf(),
        line,
        message: message.into(),
    }
}

static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// Runs `body` on a buffered writer over a temporary file next to `path`, then fsyncs
/// and renames it over `path`. On any failure the temporary file is removed.
fn write_atomic(
    path: &Path,
    body: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<()> {
    let file_name = path.file_name().ok_or_else(|| {
        io_error(
            path,
            std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a file path"),
        )
    })?;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let mut tmp_name = std::ffi::OsString::from(".");
    tmp_name.push(file_name);
    tmp_name.push(format!(
        ".tmp.{}.{}",
        std::process::id(),
        TEMP_COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let tmp = dir.join(tmp_name);
    let result = (|| -> std::io::Result<()> {
        let file = File::create(&tmp)?;
        let mut w = BufWriter::with_capacity(1 << 20, file);
        body(&mut w)?;
        let file = w.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        drop(file);
        fs::rename(&tmp, path)?;
        // Make the rename itself durable; not every platform can open a directory.
        if let Ok(d) = File::open(&dir) {
            let _ = d.sync_all();
        }
        Ok(())
    })();
    result.map_err(|source| {
        let _ = fs::remove_file(&tmp);
        io_error(path, source)
    })
}

// ---------------------------------------------------------------------------------------
// Shared text-parsing helpers.

/// A piece of a text buffer that starts at a line boundary, with the 1-based number of
/// its first line.
pub(crate) struct Chunk<'a> {
    pub first_line: usize,
    pub text: &'a [u8],
}

impl<'a> Chunk<'a> {
    /// The lines of the chunk with their 1-based numbers; a trailing `\r` is stripped.
    /// A final empty piece after the last `\n` is not yielded.
    pub fn lines(&self) -> impl Iterator<Item = (usize, &'a [u8])> + 'a {
        let text = self.text;
        let body = text.strip_suffix(b"\n").unwrap_or(text);
        let first = self.first_line;
        let empty = text.is_empty();
        body.split(|&b| b == b'\n')
            .take(if empty { 0 } else { usize::MAX })
            .enumerate()
            .map(move |(k, line)| (first + k, line.strip_suffix(b"\r").unwrap_or(line)))
    }
}

/// Below this size a text body is parsed on the calling thread.
const PARALLEL_MIN_BYTES: usize = 1 << 20;

/// Splits `text` (whose first line is `first_line`) at line boundaries into pieces for
/// parallel parsing; each piece knows the number of its first line.
pub(crate) fn split_chunks(text: &[u8], first_line: usize) -> Vec<Chunk<'_>> {
    let pieces = if text.len() < PARALLEL_MIN_BYTES {
        1
    } else {
        (rayon::current_num_threads() * 8).clamp(1, text.len() / (PARALLEL_MIN_BYTES / 8))
    };
    let target = text.len().div_ceil(pieces.max(1)).max(1);
    let mut bounds = vec![0usize];
    let mut start = 0;
    while start < text.len() {
        let mut end = (start + target).min(text.len());
        if end < text.len() {
            end = match text[end..].iter().position(|&b| b == b'\n') {
                Some(p) => end + p + 1,
                None => text.len(),
            };
        }
        bounds.push(end);
        start = end;
    }
    let slices: Vec<&[u8]> = bounds.windows(2).map(|w| &text[w[0]..w[1]]).collect();
    let newlines: Vec<usize> = slices
        .par_iter()
        .map(|s| s.iter().filter(|&&b| b == b'\n').count())
        .collect();
    let mut line = first_line;
    slices
        .into_iter()
        .zip(newlines)
        .map(|(text, n)| {
            let chunk = Chunk {
                first_line: line,
                text,
            };
            line += n;
            chunk
        })
        .collect()
}

/// Runs `f` on every chunk (in parallel when there are several) and returns the results
/// in order, or the error of the earliest failing chunk.
pub(crate) fn parse_chunks<T: Send>(
    chunks: &[Chunk<'_>],
    f: impl Fn(&Chunk<'_>) -> Result<T> + Sync,
) -> Result<Vec<T>> {
    if chunks.len() <= 1 {
        return chunks.iter().map(f).collect();
    }
    let results: Vec<Result<T>> = chunks.par_iter().map(&f).collect();
    results.into_iter().collect()
}

/// Position just after the line that starts at `start` (past its `\n`), and the line
/// without its line terminator.
pub(crate) fn next_line(text: &[u8], start: usize) -> (usize, &[u8]) {
    let rest = &text[start..];
    let (line, next) = match rest.iter().position(|&b| b == b'\n') {
        Some(p) => (&rest[..p], start + p + 1),
        None => (rest, text.len()),
    };
    (next, line.strip_suffix(b"\r").unwrap_or(line))
}

/// Whether a line holds only ASCII whitespace.
pub(crate) fn is_blank(line: &[u8]) -> bool {
    line.iter().all(u8::is_ascii_whitespace)
}

/// Whitespace-separated fields of a line, without allocating.
pub(crate) fn fields(line: &[u8]) -> impl Iterator<Item = &[u8]> {
    line.split(|b| b.is_ascii_whitespace())
        .filter(|f| !f.is_empty())
}

/// Parses a non-negative decimal integer (digits only, optional leading `+`).
pub(crate) fn parse_usize(field: &[u8]) -> Option<usize> {
    let digits = field.strip_prefix(b"+").unwrap_or(field);
    if digits.is_empty() || digits.len() > 20 {
        return None;
    }
    let mut v: usize = 0;
    for &b in digits {
        if !b.is_ascii_digit() {
            return None;
        }
        v = v.checked_mul(10)?.checked_add((b - b'0') as usize)?;
    }
    Some(v)
}

/// Parses a decimal floating-point number as Rust does (`1`, `-2.5e-3`, `inf`, `NaN`),
/// also accepting Java's `Infinity` spelling, which SystemDS writes.
pub(crate) fn parse_f64(field: &[u8]) -> Option<f64> {
    let s = std::str::from_utf8(field).ok()?;
    s.parse::<f64>().ok()
}

/// Appends `v` in a form that parses back to the same `f64` bits (except NaN payloads):
/// Rust's shortest round-trip digits, in scientific notation for very large or small
/// magnitudes, and Java's `Infinity`/`NaN` spellings so that SystemDS can read it.
pub(crate) fn write_f64(w: &mut dyn Write, v: f64) -> std::io::Result<()> {
    if v.is_nan() {
        w.write_all(b"NaN")
    } else if v.is_infinite() {
        w.write_all(if v > 0.0 { b"Infinity" } else { b"-Infinity" })
    } else {
        let a = v.abs();
        if a == 0.0 || (1e-5..1e16).contains(&a) {
            write!(w, "{v}")
        } else {
            write!(w, "{v:e}")
        }
    }
}

/// Writes rows `0..rows` in order, formatting blocks of rows in parallel into memory
/// buffers with `format_rows(range, buffer)`; at most a bounded number of blocks are held
/// in memory at a time.
pub(crate) fn write_rows_parallel(
    w: &mut dyn Write,
    rows: usize,
    row_cost: usize,
    format_rows: impl Fn(std::ops::Range<usize>, &mut Vec<u8>) -> std::io::Result<()> + Sync,
) -> std::io::Result<()> {
    // Aim for blocks of roughly 256K values.
    let block = (262_144 / row_cost.max(1)).clamp(1, rows.max(1));
    let blocks: Vec<std::ops::Range<usize>> = (0..rows)
        .step_by(block)
        .map(|s| s..(s + block).min(rows))
        .collect();
    let batch = (rayon::current_num_threads() * 4).max(1);
    for group in blocks.chunks(batch) {
        let buffers: Vec<std::io::Result<Vec<u8>>> = group
            .par_iter()
            .map(|r| {
                let mut buf = Vec::new();
                format_rows(r.clone(), &mut buf)?;
                Ok(buf)
            })
            .collect();
        for buf in buffers {
            w.write_all(&buf?)?;
        }
    }
    Ok(())
}

/// Allocates `n` zeros, or fails with a parse error instead of aborting when the declared
/// size cannot be allocated (a corrupt header must not kill the process).
pub(crate) fn try_zeros<T: Clone + Default>(n: usize, path: &Path, line: usize) -> Result<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| {
        parse_error(
            path,
            line,
            format!("declared size ({n} elements) cannot be allocated"),
        )
    })?;
    v.resize(n, T::default());
    Ok(v)
}

/// Builds a matrix in its best format from coordinate entries (0-based, in bounds,
/// any order, duplicates summed).
pub(crate) fn matrix_from_entries(
    rows: usize,
    cols: usize,
    ri: &[usize],
    ci: &[usize],
    vals: &[f64],
    path: &Path,
    size_line: usize,
) -> Result<Matrix> {
    if prefer_sparse(rows, cols, vals.len()) && cols <= u32::MAX as usize {
        // Counting sort by row, then sort each row by column and sum duplicates.
        let mut indptr: Vec<usize> = try_zeros(rows.saturating_add(1), path, size_line)?;
        for &r in ri {
            indptr[r + 1] += 1;
        }
        for k in 0..rows {
            indptr[k + 1] += indptr[k];
        }
        let mut next = indptr.clone();
        let mut order: Vec<(u32, f64)> = vec![(0, 0.0); vals.len()];
        for ((&r, &c), &v) in ri.iter().zip(ci).zip(vals) {
            order[next[r]] = (c as u32, v);
            next[r] += 1;
        }
        drop(next);
        let mut out_ptr = Vec::with_capacity(rows + 1);
        let mut indices = Vec::with_capacity(vals.len());
        let mut values = Vec::with_capacity(vals.len());
        out_ptr.push(0);
        for k in 0..rows {
            let row = &mut order[indptr[k]..indptr[k + 1]];
            if !row.is_sorted_by_key(|e| e.0) {
                row.sort_unstable_by_key(|e| e.0);
            }
            let mut p = 0;
            while p < row.len() {
                let (c, mut v) = row[p];
                p += 1;
                while p < row.len() && row[p].0 == c {
                    v += row[p].1;
                    p += 1;
                }
                if v != 0.0 {
                    indices.push(c);
                    values.push(v);
                }
            }
            out_ptr.push(indices.len());
        }
        let csr = CsrMatrix::from_parts_unchecked(rows, cols, out_ptr, indices, values);
        Ok(Matrix::Sparse(csr).into_best_format())
    } else {
        let cells = rows.checked_mul(cols).ok_or_else(|| {
            parse_error(
                path,
                size_line,
                format!("{rows}x{cols} matrix is too large"),
            )
        })?;
        let mut data: Vec<f64> = try_zeros(cells, path, size_line)?;
        for ((&r, &c), &v) in ri.iter().zip(ci).zip(vals) {
            data[r * cols + c] += v;
        }
        let d = DenseMatrix::from_vec(rows, cols, data)?;
        Ok(Matrix::Dense(d).into_best_format())
    }
}

#[cfg(test)]
pub(crate) mod test_util {
    use std::path::PathBuf;
    use std::sync::atomic::{AtomicU64, Ordering};

    static DIR_COUNTER: AtomicU64 = AtomicU64::new(0);

    /// A fresh, empty directory under the system temp dir, removed on drop.
    pub struct TempDir(pub PathBuf);

    impl TempDir {
        pub fn new() -> TempDir {
            let dir = std::env::temp_dir().join(format!(
                "spores-io-test-{}-{}",
                std::process::id(),
                DIR_COUNTER.fetch_add(1, Ordering::Relaxed)
            ));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            TempDir(dir)
        }

        pub fn path(&self, name: &str) -> PathBuf {
            self.0.join(name)
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}
