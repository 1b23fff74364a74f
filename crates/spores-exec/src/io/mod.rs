//! Matrix file formats: Matrix Market, SystemDS's text cells, CSV, NumPy `.npy` and
//! Parquet COO (feature `parquet`), and SystemDS's `.mtd` metadata files beside them.
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

mod assemble;
pub mod atomic;
pub mod binary;
pub mod csv;
pub mod matrix_market;
pub mod metadata;
mod mm_entry;
mod mm_sorted;
pub mod npy;
#[cfg(feature = "parquet")]
pub mod parquet_coo;
#[cfg(test)]
mod tests;
pub mod text_cell;

use std::fs::{self, File};
use std::io::Write;
use std::path::Path;

use rayon::prelude::*;

pub(crate) use assemble::{matrix_from_entries, Entries};

use crate::error::{ExecError, Result};
use crate::matrix::Matrix;

/// A matrix file format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// NIST Matrix Market exchange format (`.mtx`, `.mm`), coordinate or array.
    MatrixMarket,
    /// SystemDS's text cells: `i j v` lines, the size kept apart (see `text_cell`).
    Text,
    /// Dense comma- (or otherwise-) separated values (`.csv`).
    Csv,
    /// NumPy's binary `.npy` array format.
    Npy,
    /// The table of non-zero cells `(i, j, v)` in Parquet (`.parquet`; see
    /// `parquet_coo`); only in builds with the `parquet` feature.
    Parquet,
    /// SystemDS's binary blocks (a Hadoop SequenceFile; see `binary`).
    Binary,
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
            "parquet" => Some(Format::Parquet),
            _ => None,
        }
    }

    /// The format named by DML's `read(..., format="...")` / `write(..., format="...")`
    /// (case-insensitive): `"mm"` (also `"mtx"`, `"matrixmarket"`), `"text"`, `"csv"`,
    /// `"npy"`, `"parquet"`, `"binary"`. `None` for SystemDS's `"libsvm"` and `"hdf5"`.
    pub fn from_name(name: &str) -> Option<Format> {
        match name.to_ascii_lowercase().as_str() {
            "mm" | "mtx" | "matrixmarket" | "matrix_market" => Some(Format::MatrixMarket),
            "text" => Some(Format::Text),
            "csv" => Some(Format::Csv),
            "npy" => Some(Format::Npy),
            "parquet" => Some(Format::Parquet),
            "binary" => Some(Format::Binary),
            _ => None,
        }
    }

    /// The canonical DML name of the format (`"mm"`, `"text"`, `"csv"`, `"npy"`).
    pub fn name(self) -> &'static str {
        match self {
            Format::MatrixMarket => "mm",
            Format::Text => "text",
            Format::Csv => "csv",
            Format::Npy => "npy",
            Format::Parquet => "parquet",
            Format::Binary => "binary",
        }
    }
}

/// Options for [`read_matrix`]: the CSV reader's, and the size the text-cell reader needs.
#[derive(Clone, Debug, PartialEq)]
pub struct ReadOptions {
    /// The first line of a CSV file is a header (column names) and is skipped.
    pub csv_header: bool,
    /// CSV field separator: a non-empty string, matched whole (SystemDS splits on the
    /// whole separator, `sep="::"` included).
    pub csv_sep: String,
    /// The rows and columns where the caller knows them (`read(..., rows=, cols=)` or the
    /// `.mtd` file): a text-cell file does not store its size. Other readers take the
    /// file's.
    pub size: (Option<usize>, Option<usize>),
    /// CSV fields read as NaN (SystemDS's `naStrings`), compared untrimmed.
    pub csv_na_strings: Vec<String>,
    /// What an empty CSV field is (SystemDS's `default`, 0); `None` (`fill=FALSE`) makes
    /// it an error.
    pub csv_fill: Option<f64>,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            csv_header: false,
            csv_sep: ",".to_string(),
            size: (None, None),
            csv_na_strings: Vec::new(),
            csv_fill: Some(0.0),
        }
    }
}

/// Options for [`write_matrix`]; only the CSV writer looks at them.
#[derive(Clone, Debug, PartialEq)]
pub struct WriteOptions {
    /// Write a header line `C1,C2,...` before the data (SystemDS's column names).
    pub csv_header: bool,
    /// CSV field separator: a non-empty string, matched whole (SystemDS splits on the
    /// whole separator, `sep="::"` included).
    pub csv_sep: String,
}

impl Default for WriteOptions {
    fn default() -> Self {
        WriteOptions {
            csv_header: false,
            csv_sep: ",".to_string(),
        }
    }
}

/// Reads a matrix file. The result is in the format [`Matrix::into_best_format`] picks.
pub fn read_matrix(path: &Path, format: Format, opts: &ReadOptions) -> Result<Matrix> {
    if format == Format::Parquet {
        #[cfg(feature = "parquet")]
        return parquet_coo::read(path);
        #[cfg(not(feature = "parquet"))]
        return Err(no_parquet(path));
    }
    if format == Format::Binary {
        return binary::read(path);
    }
    let bytes = read_file(path)?;
    match format {
        Format::MatrixMarket => matrix_market::parse(&bytes, path),
        Format::Text => text_cell::parse(&bytes, path, opts.size),
        Format::Csv => csv::parse_with(&bytes, path, opts),
        Format::Npy => npy::parse(&bytes, path),
        Format::Parquet | Format::Binary => unreachable!("read above"),
    }
}

/// The error for a Parquet file in a build without the `parquet` feature.
#[cfg(not(feature = "parquet"))]
fn no_parquet(path: &Path) -> ExecError {
    ExecError::invalid(format!(
        "{}: Parquet files need a spores built with Parquet support \
         (`cargo build --release -p spores --features datafusion`)",
        path.display()
    ))
}

/// Writes a matrix file atomically (temporary file, fsync, rename).
///
/// Matrix Market files are always `coordinate real general`, as SystemDS writes them;
/// text-cell files hold the non-zeros (the size goes in a `.mtd` file: [`metadata`]);
/// CSV files are dense; `.npy` files are `<f8`, C order, two-dimensional.
pub fn write_matrix(m: &Matrix, path: &Path, format: Format, opts: &WriteOptions) -> Result<()> {
    if format == Format::Parquet {
        #[cfg(feature = "parquet")]
        return parquet_coo::write(m, path);
        #[cfg(not(feature = "parquet"))]
        return Err(no_parquet(path));
    }
    // What the file will take at least, checked against the free space before anything
    // is written: a dense file of a huge sparse matrix (a 1e8 x 1e8 CSV is 2e16 bytes)
    // is refused at once instead of filling the disk.
    let bytes = match format {
        Format::MatrixMarket => matrix_market::min_file_bytes(m),
        Format::Text => text_cell::min_file_bytes(m),
        Format::Csv => csv::min_file_bytes(m, opts.csv_header, &opts.csv_sep),
        Format::Npy => npy::file_bytes(m.rows(), m.cols()),
        Format::Binary => binary::min_file_bytes(m),
        Format::Parquet => unreachable!("written above"),
    };
    atomic::write_atomic_sized(path, bytes, |w| match format {
        Format::MatrixMarket => matrix_market::write(m, w),
        Format::Text => text_cell::write(m, w),
        Format::Csv => csv::write(m, w, opts.csv_header, &opts.csv_sep),
        Format::Npy => npy::write(m, w),
        Format::Binary => binary::write(m, w),
        Format::Parquet => unreachable!("written above"),
    })
    .map_err(|source| io_error(path, source))
}

/// Files at least this large are mapped into memory instead of read.
const MAP_MIN_BYTES: u64 = 1 << 20;

/// Files at least this large (and not mapped) are read by several threads at once.
const PARALLEL_READ_MIN_BYTES: u64 = 4 << 20;

/// A file's bytes: mapped from the page cache, or read into a buffer.
pub(crate) enum FileBytes {
    #[cfg(unix)]
    Mapped(memmap2::Mmap),
    Read(Vec<u8>),
}

impl std::ops::Deref for FileBytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            #[cfg(unix)]
            FileBytes::Mapped(m) => m,
            FileBytes::Read(v) => v,
        }
    }
}

/// The whole file; a missing or unreadable file is an [`ExecError::Io`].
///
/// A file of 1 MiB or more is mapped: reading copies every byte out of the page cache
/// into a fresh buffer whose pages the kernel must first fault in and zero, which took
/// as much CPU as a third of the parse (a 29 MB file: 7,000 page faults). A mapping
/// shares the page-cache pages; they are faulted in by the parser's first pass, on all
/// cores, many pages per fault. If mapping fails, a large file is read in one slice per
/// thread with positioned reads, a small one in one go.
///
/// The mapping is read-only and dropped when the parse is done. Like any reader, a parse
/// that races with another process rewriting the file sees torn data; a file truncated
/// meanwhile would fault (SIGBUS) where a read would see it shorter. Spores never writes
/// a file it is reading: its writes go to a temporary file that is renamed over the
/// target, which leaves a mapping of the old file intact.
fn read_file(path: &Path) -> Result<FileBytes> {
    if path.is_dir() {
        return read_parts(path).map(FileBytes::Read);
    }
    let whole = || {
        fs::read(path)
            .map(FileBytes::Read)
            .map_err(|source| io_error(path, source))
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileExt;
        let file = File::open(path).map_err(|source| io_error(path, source))?;
        let len = file
            .metadata()
            .map_err(|source| io_error(path, source))?
            .len();
        #[cfg(test)]
        let map = !test_knobs::NO_MAP.with(|c| c.get());
        #[cfg(not(test))]
        let map = true;
        if map && len >= MAP_MIN_BYTES && usize::try_from(len).is_ok() {
            // SAFETY: the mapping is read-only and private to this call; see above for
            // what a concurrent change of the file does.
            let mapped = unsafe { memmap2::MmapOptions::new().len(len as usize).map(&file) };
            if let Ok(map) = mapped {
                return Ok(FileBytes::Mapped(map));
            }
        }
        let threads = rayon::current_num_threads();
        if len < PARALLEL_READ_MIN_BYTES || threads < 2 || usize::try_from(len).is_err() {
            return whole();
        }
        let mut buf = vec![0u8; len as usize];
        let chunk = buf.len().div_ceil(threads * 2).max(1);
        let read = buf
            .par_chunks_mut(chunk)
            .enumerate()
            .try_for_each(|(k, part)| file.read_exact_at(part, (k * chunk) as u64));
        let mut probe = [0u8; 1];
        match (read, file.read_at(&mut probe, len)) {
            (Ok(()), Ok(0)) => Ok(FileBytes::Read(buf)),
            _ => whole(),
        }
    }
    #[cfg(not(unix))]
    whole()
}

/// The data files of `path`: the file itself, or a directory's part files in name order.
/// SystemDS (like Hadoop) writes a matrix as a directory of parts (`0-m-00000`, ... or
/// `in`), and its readers take the directory's path. Hidden and bookkeeping files (`.crc`,
/// `_SUCCESS`) are skipped; a directory without parts is an error naming it. The files'
/// total size is asked of the memory budget, as the callers read them whole.
pub(crate) fn data_files(path: &Path) -> Result<Vec<std::path::PathBuf>> {
    let parts = if path.is_dir() {
        part_files(path)?
    } else {
        vec![path.to_path_buf()]
    };
    let mut bytes = 0u64;
    for part in &parts {
        bytes += part
            .metadata()
            .map_err(|source| io_error(part, source))?
            .len();
    }
    crate::memory::ensure_fits("read", bytes as f64)?;
    Ok(parts)
}

/// A directory's part files in name order (see [`data_files`]).
fn part_files(path: &Path) -> Result<Vec<std::path::PathBuf>> {
    let mut parts: Vec<_> = fs::read_dir(path)
        .map_err(|source| io_error(path, source))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            p.is_file() && !name.starts_with(['.', '_']) && !name.ends_with(".crc")
        })
        .collect();
    parts.sort();
    if parts.is_empty() {
        return Err(ExecError::invalid(format!(
            "{}: a directory without data files",
            path.display()
        )));
    }
    Ok(parts)
}

/// A directory's part files (see [`data_files`]) one after the other; a part that does
/// not end its last line gets a line end, so lines never join across parts.
fn read_parts(dir: &Path) -> Result<Vec<u8>> {
    let mut bytes = Vec::new();
    for part in data_files(dir)? {
        let body = fs::read(&part).map_err(|source| io_error(&part, source))?;
        bytes.extend_from_slice(&body);
        if !bytes.is_empty() && !bytes.ends_with(b"\n") {
            bytes.push(b'\n');
        }
    }
    Ok(bytes)
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

// ---------------------------------------------------------------------------------------
// Shared text-parsing helpers.

/// An error at a line of a chunk, counted from 0 within the chunk; the caller turns it
/// into an [`ExecError::Parse`] with the global 1-based line number.
pub(crate) struct LineError {
    pub line: usize,
    pub message: String,
}

impl LineError {
    pub fn new(line: usize, message: impl Into<String>) -> Self {
        LineError {
            line,
            message: message.into(),
        }
    }
}

/// Iterator over the lines of a text with their 0-based index. A trailing `\r` is
/// stripped; the empty piece after a final `\n` is not a line.
pub(crate) struct Lines<'a> {
    text: &'a [u8],
    pos: usize,
    index: usize,
}

/// The lines of `text`, see [`Lines`].
pub(crate) fn lines(text: &[u8]) -> Lines<'_> {
    Lines {
        text,
        pos: 0,
        index: 0,
    }
}

impl<'a> Iterator for Lines<'a> {
    type Item = (usize, &'a [u8]);

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        if self.pos >= self.text.len() {
            return None;
        }
        let rest = &self.text[self.pos..];
        let (line, advance) = match rest.iter().position(|&b| b == b'\n') {
            Some(p) => (&rest[..p], p + 1),
            None => (rest, rest.len()),
        };
        self.pos += advance;
        let index = self.index;
        self.index += 1;
        Some((index, line.strip_suffix(b"\r").unwrap_or(line)))
    }
}

/// Below this size a text body is parsed on the calling thread.
const PARALLEL_MIN_BYTES: usize = 1 << 20;

/// Splits `text` at line boundaries into pieces for parallel parsing.
fn split_pieces(text: &[u8]) -> Vec<&[u8]> {
    let pieces = if text.len() < PARALLEL_MIN_BYTES {
        1
    } else {
        (rayon::current_num_threads() * 8).clamp(1, text.len() / (PARALLEL_MIN_BYTES / 8))
    };
    let target = text.len().div_ceil(pieces).max(1);
    #[cfg(test)]
    let target = test_knobs::PIECE_BYTES.with(|c| c.get()).unwrap_or(target);
    let mut out = Vec::with_capacity(pieces + 1);
    let mut start = 0;
    while start < text.len() {
        let mut end = (start + target).min(text.len());
        if end < text.len() {
            end = match text[end..].iter().position(|&b| b == b'\n') {
                Some(p) => end + p + 1,
                None => text.len(),
            };
        }
        out.push(&text[start..end]);
        start = end;
    }
    out
}

/// Whether a `general` Matrix Market body may take the row-major fast path
/// (`io/mm_sorted.rs`); tests turn it off to compare with the generic path.
fn sorted_path_enabled() -> bool {
    #[cfg(test)]
    if test_knobs::NO_SORTED_PATH.with(|c| c.get()) {
        return false;
    }
    true
}

/// Settings tests use to reach every path on small inputs; per thread, so that tests
/// running at the same time do not see each other's.
#[cfg(test)]
pub(crate) mod test_knobs {
    use std::cell::Cell;

    thread_local! {
        /// Split texts into pieces of about this many bytes, whatever their size.
        pub static PIECE_BYTES: Cell<Option<usize>> = const { Cell::new(None) };
        /// Parse Matrix Market bodies the generic way only.
        pub static NO_SORTED_PATH: Cell<bool> = const { Cell::new(false) };
        /// Read files instead of mapping them.
        pub static NO_MAP: Cell<bool> = const { Cell::new(false) };
    }
}

/// The result of parsing one piece of a text, with the piece and its first line number.
pub(crate) struct Parsed<'a, T> {
    pub value: T,
    /// 1-based number of the piece's first line.
    pub first_line: usize,
    pub text: &'a [u8],
}

/// Parses `text` (whose first line has number `first_line`) in pieces split at line
/// boundaries, in parallel when it is large. `f` parses one piece and returns its value
/// and its number of lines (as [`lines`] counts them), or an error at a line of the
/// piece. Results come back in order; the error reported is the earliest one in the file.
pub(crate) fn parse_pieces<'a, T: Send>(
    text: &'a [u8],
    first_line: usize,
    path: &Path,
    f: impl Fn(&'a [u8]) -> std::result::Result<(T, usize), LineError> + Sync,
) -> Result<Vec<Parsed<'a, T>>> {
    let pieces = split_pieces(text);
    let results: Vec<_> = if pieces.len() <= 1 {
        pieces.iter().map(|p| f(p)).collect()
    } else {
        pieces.par_iter().map(|p| f(p)).collect()
    };
    let mut line = first_line;
    let mut out = Vec::with_capacity(pieces.len());
    for (text, result) in pieces.into_iter().zip(results) {
        match result {
            Ok((value, n)) => {
                out.push(Parsed {
                    value,
                    first_line: line,
                    text,
                });
                line += n;
            }
            Err(e) => return Err(parse_error(path, line + e.line, e.message)),
        }
    }
    Ok(out)
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

/// Allocates `n` zeros, or fails instead of aborting when the declared size is over the
/// memory budget (`--memory`) or cannot be allocated (a corrupt header must not kill
/// the process). The zeros come from `vec!`, i.e. from zeroed pages the OS maps lazily,
/// but the readers write every one of them (row pointers, dense cells), so all count.
pub(crate) fn try_zeros<T: Clone + Default>(n: usize, path: &Path, line: usize) -> Result<Vec<T>> {
    crate::memory::ensure_fits(
        &format!(
            "{}:{line}: the declared size ({n} elements)",
            path.display()
        ),
        n as f64 * std::mem::size_of::<T>() as f64,
    )?;
    let mut probe: Vec<T> = Vec::new();
    probe.try_reserve_exact(n).map_err(|_| {
        parse_error(
            path,
            line,
            format!("declared size ({n} elements) cannot be allocated"),
        )
    })?;
    drop(probe);
    Ok(vec![T::default(); n])
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
