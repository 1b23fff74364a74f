//! Parquet COO files: a matrix as the table of its non-zero cells, `(i, j, v)`.
//!
//! The relational layout of a matrix (the one `spores-dist` queries): one row per stored
//! cell, 0-based `i` (row) and `j` (column) indices and the value `v`. This is how a
//! matrix too big for a text format is kept, and what DuckDB or Spark write with
//! `COPY (SELECT i, j, v ...) TO 'x.parquet'`.
//!
//! Reading: `i` and `j` may be INT32 or INT64, `v` DOUBLE, FLOAT, INT32 or INT64, each
//! required or nullable (a null is an error); other columns are ignored. The shape is
//! the file's key-value metadata `rows` and `cols` when present (what [`write`] records),
//! else one past the largest index. Two more keys are promises the writer makes:
//! `unique_cells = true` (no cell is stored twice) and `finite = true` (no value is NaN
//! or infinite, so the optimizer's rewrites over the reals hold without a scan of the
//! values); a file without them is read as it is, its values scanned when asked. Cells
//! may come in any order; duplicates are summed, as in Matrix Market. Errors name the file and the 1-based row of the table (as the
//! "line" of an [`ExecError::Parse`]). A file whose matrix would not fit the memory
//! budget ([`crate::memory`]) is refused before its cells are read; [`CooFile`] reads a
//! file one row group at a time instead (what the relational engine scans).
//!
//! Writing: required INT64 `i`, `j` (delta-encoded) and DOUBLE `v`, the non-zeros in
//! row-major order, Snappy-compressed, in row groups of [`ROW_GROUP_ROWS`] cells, with
//! `rows`, `cols`, `unique_cells` and (when every value is finite) `finite` in the
//! key-value metadata. The write is atomic, like every writer of this crate.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use bytes::Bytes;
use parquet::basic::{Compression, Encoding};
use parquet::column::reader::ColumnReader;
use parquet::column::writer::{get_column_writer, ColumnCloseResult, ColumnWriter};
use parquet::errors::ParquetError;
use parquet::file::metadata::KeyValue;
use parquet::file::properties::{WriterProperties, WriterPropertiesPtr};
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::file::writer::{SerializedFileWriter, SerializedPageWriter, TrackedWrite};
use parquet::schema::parser::parse_message_type;
use parquet::schema::types::{ColumnDescPtr, ColumnPath};
use rayon::prelude::*;

use super::{io_error, matrix_from_entries, parse_error, Entries};
use crate::error::Result;
use crate::matrix::{DenseMatrix, Matrix};

/// Cells per row group of a written file (three columns of 8 bytes: 24 MB uncompressed).
pub const ROW_GROUP_ROWS: usize = 1 << 20;

/// Cells decoded per call into a column reader.
const BATCH: usize = 1 << 16;

/// Reads a Parquet COO file (see the module documentation).
pub fn read(path: &Path) -> Result<Matrix> {
    let file = CooFile::open(path)?;
    // The matrix in CSR (a value and a column index per cell, a pointer per row): a file
    // larger than the memory budget is refused before its cells are read.
    let csr_bytes = 12.0 * file.cells() as f64 + 8.0 * (file.rows() as f64 + 1.0);
    crate::memory::ensure_fits(&format!("read(\"{}\")", path.display()), csr_bytes)?;
    let mut entries = Entries::with_capacity(file.cells() as usize);
    for g in 0..file.row_groups() {
        let cells = file.read_group(g)?;
        for ((&i, &j), &v) in cells.i.iter().zip(&cells.j).zip(&cells.v) {
            entries.push(i as usize, j as usize, v);
        }
    }
    matrix_from_entries(file.rows(), file.cols(), &[&entries], path, 0)
}

/// Reads a Parquet COO file into a dense array, whatever its density: what a small operand
/// held for lookups needs (a factor `U` beside a matrix too large to hold). The cells are
/// added into the array one row group at a time, without the (row, column, value) entries
/// and the sparse pass of [`read`]: 8 bytes a cell of the shape instead of about 40 a
/// stored cell. Duplicates are summed, as [`read`] sums them.
///
/// Row groups are decoded on the thread pool, as many at a time as it has threads and
/// the budget holds, and added in file order (so that sums of duplicates do not depend on
/// the thread count): decoding is most of a read's time.
pub fn read_dense(path: &Path) -> Result<DenseMatrix> {
    let file = CooFile::open(path)?;
    let (rows, cols) = (file.rows(), file.cols());
    let cells = rows
        .checked_mul(cols)
        .ok_or_else(|| parse_error(path, 0, format!("a {rows}x{cols} matrix is too large")))?;
    let array_bytes = 8.0 * cells as f64;
    let group_bytes = 24.0 * file.largest_group_cells() as f64;
    let what = format!("read(\"{}\") a row group at a time", path.display());
    crate::memory::ensure_fits(&what, array_bytes + group_bytes)?;
    let affordable = ((crate::memory::budget() - array_bytes) / group_bytes.max(1.0)).floor();
    let at_once = rayon::current_num_threads()
        .min(affordable.max(1.0) as usize)
        .max(1);
    let mut data: Vec<f64> = super::try_zeros(cells, path, 0)?;
    let reader = open_reader(path)?;
    let groups: Vec<usize> = (0..file.row_groups()).collect();
    for wave in groups.chunks(at_once) {
        let decoded = wave
            .par_iter()
            .map(|&g| file.read_group_from(&reader, g, Some((rows, cols))))
            .collect::<Result<Vec<_>>>()?;
        for group in decoded {
            // Bounds were checked by `read_group_from`.
            for ((&i, &j), &v) in group.i.iter().zip(&group.j).zip(&group.v) {
                data[i as usize * cols + j as usize] += v;
            }
        }
    }
    DenseMatrix::from_vec(rows, cols, data)
}

/// A Parquet COO file opened by its footer: the shape, the cell count and the row groups,
/// whose cells are read one group at a time. This is how a relational engine scans a
/// matrix it never holds whole.
#[derive(Clone, Debug)]
pub struct CooFile {
    path: PathBuf,
    rows: usize,
    cols: usize,
    cells: u64,
    /// The 1-based table row each row group starts at (for error messages).
    group_starts: Vec<usize>,
    columns: [usize; 3],
    unique: bool,
    finite: bool,
}

/// The cells of one row group, columns `i`, `j`, `v` (validated against the shape).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CooCells {
    pub i: Vec<i64>,
    pub j: Vec<i64>,
    pub v: Vec<f64>,
}

impl CooFile {
    /// Reads the footer of the COO file at `path`: the columns `i`, `j` and `v`, the shape
    /// (the `rows`/`cols` metadata, else one past the largest index, from the column
    /// statistics or a scan of the index columns) and the row groups.
    pub fn open(path: &Path) -> Result<CooFile> {
        let fail = |row: usize, message: String| parse_error(path, row, message);
        let reader = open_reader(path)?;
        let meta = reader.metadata();
        let schema = meta.file_metadata().schema_descr();
        let column = |name: &str| {
            (0..schema.num_columns())
                .find(|&k| schema.column(k).name() == name)
                .ok_or_else(|| {
                    fail(
                        0,
                        format!("no column `{name}` (a COO file has columns i, j and v)"),
                    )
                })
        };
        let columns = [column("i")?, column("j")?, column("v")?];
        let mut group_starts = Vec::with_capacity(meta.num_row_groups());
        let mut cells = 0u64;
        for g in meta.row_groups() {
            group_starts.push(cells as usize + 1);
            cells += g.num_rows().max(0) as u64;
        }
        let recorded = |key: &str| -> Result<Option<usize>> {
            let Some(kv) = meta.file_metadata().key_value_metadata() else {
                return Ok(None);
            };
            match kv
                .iter()
                .find(|kv| kv.key == key)
                .and_then(|kv| kv.value.as_deref())
            {
                None => Ok(None),
                Some(text) => text.trim().parse().map(Some).map_err(|_| {
                    fail(0, format!("metadata `{key}` = `{text}` is not a dimension"))
                }),
            }
        };
        let promised = |key: &str| {
            meta.file_metadata().key_value_metadata().is_some_and(|kv| {
                kv.iter()
                    .any(|kv| kv.key == key && kv.value.as_deref() == Some("true"))
            })
        };
        let (unique, finite) = (promised(UNIQUE_KEY), promised(FINITE_KEY));
        let mut file = CooFile {
            path: path.to_path_buf(),
            rows: 0,
            cols: 0,
            cells,
            group_starts,
            columns,
            unique,
            finite,
        };
        let (rows, cols) = match (recorded("rows")?, recorded("cols")?) {
            (Some(rows), Some(cols)) => (rows, cols),
            (rows, cols) => {
                let (max_i, max_j) = file.largest_indices(&reader)?;
                (rows.unwrap_or(max_i + 1), cols.unwrap_or(max_j + 1))
            }
        };
        if rows > u32::MAX as usize || cols > u32::MAX as usize {
            return Err(fail(
                0,
                format!(
                    "a {rows}x{cols} matrix is larger than the 2^32-1 rows or columns supported"
                ),
            ));
        }
        (file.rows, file.cols) = (rows, cols);
        Ok(file)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn rows(&self) -> usize {
        self.rows
    }

    pub fn cols(&self) -> usize {
        self.cols
    }

    /// Cells stored, duplicates included.
    pub fn cells(&self) -> u64 {
        self.cells
    }

    pub fn row_groups(&self) -> usize {
        self.group_starts.len()
    }

    /// Cells stored in the largest row group (what reading one group at a time holds).
    pub fn largest_group_cells(&self) -> u64 {
        let ends = self.group_starts.iter().skip(1).copied();
        let ends = ends.chain(std::iter::once(self.cells as usize + 1));
        self.group_starts
            .iter()
            .zip(ends)
            .map(|(start, end)| end.saturating_sub(*start) as u64)
            .max()
            .unwrap_or(0)
    }

    /// Whether each cell is stored at most once (the file says so: [`write`] records it).
    /// A file without the mark may repeat a cell, which means the sum.
    pub fn unique_cells(&self) -> bool {
        self.unique
    }

    /// Whether the file promises that every value is finite ([`write`] records it when
    /// so). `false` means unknown: the values have to be scanned to tell.
    pub fn declared_finite(&self) -> bool {
        self.finite
    }

    /// The cells of row group `g`, each inside the shape.
    pub fn read_group(&self, g: usize) -> Result<CooCells> {
        self.read_group_from(&open_reader(&self.path)?, g, Some((self.rows, self.cols)))
    }

    /// The values (column `v`) of row group `g` alone, in file order: what a scan for
    /// non-finite values needs, without decoding the indices.
    pub fn read_group_values(&self, g: usize) -> Result<Vec<f64>> {
        let reader = open_reader(&self.path)?;
        let first_row = self.group_starts.get(g).copied().unwrap_or(0);
        let fail = |row: usize, message: String| parse_error(&self.path, row, message);
        let group = reader
            .get_row_group(g)
            .map_err(|e| fail(first_row, format!("row group {g}: {e}")))?;
        let k = self.columns[2];
        let column = group
            .get_column_reader(k)
            .map_err(|e| fail(first_row, format!("column `v`: {e}")))?;
        let max_def = reader
            .metadata()
            .file_metadata()
            .schema_descr()
            .column(k)
            .max_def_level();
        let mut values = Vec::new();
        read_values(column, max_def, &mut values)
            .map_err(|(row, message)| fail(first_row + row, format!("column `v`: {message}")))?;
        Ok(values)
    }

    /// Row group `g` through an open reader, its cells checked against `bounds` (rows,
    /// columns), or only for negative indices without.
    fn read_group_from(
        &self,
        reader: &SerializedFileReader<Bytes>,
        g: usize,
        bounds: Option<(usize, usize)>,
    ) -> Result<CooCells> {
        let first_row = self.group_starts.get(g).copied().unwrap_or(0);
        let fail = |row: usize, message: String| parse_error(&self.path, row, message);
        let group = reader
            .get_row_group(g)
            .map_err(|e| fail(first_row, format!("row group {g}: {e}")))?;
        let schema = reader.metadata().file_metadata().schema_descr();
        // Sized by the footer's count (capped: a footer can claim anything), not grown by
        // doubling, which copies each column and touches twice its memory.
        let expected = (group.metadata().num_rows().max(0) as usize).min(4 * ROW_GROUP_ROWS);
        let mut cells = CooCells {
            i: Vec::with_capacity(expected),
            j: Vec::with_capacity(expected),
            v: Vec::with_capacity(expected),
        };
        for (k, name) in self.columns.into_iter().zip(["i", "j", "v"]) {
            let column = group
                .get_column_reader(k)
                .map_err(|e| fail(first_row, format!("column `{name}`: {e}")))?;
            let max_def = schema.column(k).max_def_level();
            let read = match name {
                "v" => read_values(column, max_def, &mut cells.v),
                "i" => read_indices(column, max_def, &mut cells.i),
                _ => read_indices(column, max_def, &mut cells.j),
            };
            read.map_err(|(row, message)| {
                fail(first_row + row, format!("column `{name}`: {message}"))
            })?;
        }
        if cells.i.len() != cells.j.len() || cells.i.len() != cells.v.len() {
            return Err(fail(
                first_row,
                format!("row group {g}: the columns i, j and v differ in length"),
            ));
        }
        let outside = |k: usize| {
            let (i, j) = (cells.i[k], cells.j[k]);
            match bounds {
                Some((rows, cols)) => {
                    i < 0 || j < 0 || i as u64 >= rows as u64 || j as u64 >= cols as u64
                }
                None => i < 0 || j < 0,
            }
        };
        if let Some(k) = (0..cells.i.len()).find(|&k| outside(k)) {
            let (i, j) = (cells.i[k], cells.j[k]);
            let why = match bounds {
                Some((rows, cols)) => format!("is outside the {rows}x{cols} matrix"),
                None => "has a negative index".to_string(),
            };
            return Err(fail(
                first_row + k,
                format!("cell ({i}, {j}) {why} (indices are 0-based)"),
            ));
        }
        Ok(cells)
    }

    /// The largest `i` and `j` of the file (0 when it is empty): from the row groups'
    /// statistics when every group has them, else by reading the index columns. A
    /// negative index is an error at its row.
    fn largest_indices(&self, reader: &SerializedFileReader<Bytes>) -> Result<(usize, usize)> {
        let meta = reader.metadata();
        let max_of = |g: usize, column: usize| -> Option<(i64, i64)> {
            use parquet::file::statistics::Statistics;
            match meta.row_group(g).column(column).statistics()? {
                Statistics::Int32(s) => Some((i64::from(*s.min_opt()?), i64::from(*s.max_opt()?))),
                Statistics::Int64(s) => Some((*s.min_opt()?, *s.max_opt()?)),
                _ => None,
            }
        };
        let mut largest = (0i64, 0i64);
        for g in 0..self.row_groups() {
            match (max_of(g, self.columns[0]), max_of(g, self.columns[1])) {
                (Some((min_i, max_i)), Some((min_j, max_j))) if min_i >= 0 && min_j >= 0 => {
                    largest = (largest.0.max(max_i), largest.1.max(max_j));
                }
                _ => {
                    let cells = self.read_group_from(reader, g, None)?;
                    let max = |x: &[i64]| x.iter().copied().max().unwrap_or(0);
                    largest = (largest.0.max(max(&cells.i)), largest.1.max(max(&cells.j)));
                }
            }
        }
        Ok((largest.0 as usize, largest.1 as usize))
    }
}

/// Key-value metadata [`write`] records: each cell is stored once.
const UNIQUE_KEY: &str = "unique_cells";
/// Key-value metadata [`write`] records when no value is NaN or infinite.
const FINITE_KEY: &str = "finite";

fn open_reader(path: &Path) -> Result<SerializedFileReader<Bytes>> {
    SerializedFileReader::new(file_bytes(path)?)
        .map_err(|e| parse_error(path, 0, format!("not a readable Parquet file: {e}")))
}

/// The bytes of the file at `path` for Parquet's reader: mapped, so that column chunks
/// are decoded straight from the page cache. A read copies each chunk into a fresh
/// buffer first: a factor of 90 MB took 0.2 s of system time to copy and fault in, on the
/// client and again on each executor that holds it. What a file changed
/// or truncated while mapped does is said at [`super::read_file`]; spores renames its
/// writes into place, which leaves a mapping of the old file whole. A file that cannot be
/// mapped is read, when the memory budget holds it.
fn file_bytes(path: &Path) -> Result<Bytes> {
    let file = File::open(path).map_err(|source| io_error(path, source))?;
    // SAFETY: the mapping is read-only; see above for a file changed meanwhile.
    if let Ok(map) = unsafe { memmap2::Mmap::map(&file) } {
        return Ok(Bytes::from_owner(map));
    }
    let len = file
        .metadata()
        .map_err(|source| io_error(path, source))?
        .len();
    crate::memory::ensure_fits(&format!("read(\"{}\")", path.display()), len as f64)?;
    let mut bytes = Vec::new();
    (&file)
        .read_to_end(&mut bytes)
        .map_err(|source| io_error(path, source))?;
    Ok(Bytes::from(bytes))
}

/// A column reader's values pushed onto `out`, or the row (0-based, within the row
/// group) and reason it failed at.
type ColumnResult = std::result::Result<(), (usize, String)>;

/// Reads an index column (INT32 or INT64) to the end; `max_def` is the column's maximum
/// definition level (a value is present at that level).
fn read_indices(reader: ColumnReader, max_def: i16, out: &mut Vec<i64>) -> ColumnResult {
    match reader {
        ColumnReader::Int64ColumnReader(mut r) => {
            drain(|n, d, v| r.read_records(n, d, None, v), max_def, out, |x| x)
        }
        ColumnReader::Int32ColumnReader(mut r) => drain(
            |n, d, v| r.read_records(n, d, None, v),
            max_def,
            out,
            i64::from,
        ),
        _ => Err((0, "an index column must be INT32 or INT64".into())),
    }
}

/// Reads the value column (DOUBLE, FLOAT, INT32 or INT64) to the end.
fn read_values(reader: ColumnReader, max_def: i16, out: &mut Vec<f64>) -> ColumnResult {
    match reader {
        ColumnReader::DoubleColumnReader(mut r) => {
            drain(|n, d, v| r.read_records(n, d, None, v), max_def, out, |x| x)
        }
        ColumnReader::FloatColumnReader(mut r) => drain(
            |n, d, v| r.read_records(n, d, None, v),
            max_def,
            out,
            f64::from,
        ),
        ColumnReader::Int64ColumnReader(mut r) => drain(
            |n, d, v| r.read_records(n, d, None, v),
            max_def,
            out,
            |x| x as f64,
        ),
        ColumnReader::Int32ColumnReader(mut r) => drain(
            |n, d, v| r.read_records(n, d, None, v),
            max_def,
            out,
            f64::from,
        ),
        _ => Err((
            0,
            "the value column must be DOUBLE, FLOAT, INT32 or INT64".into(),
        )),
    }
}

/// Calls `read(max, def_levels, values)` until the column chunk ends, converting each
/// value into `out`. A record without a value (a null: its definition level below
/// `max_def`) is an error at its row.
fn drain<T: Copy, U>(
    mut read: impl FnMut(
        usize,
        Option<&mut Vec<i16>>,
        &mut Vec<T>,
    ) -> parquet::errors::Result<(usize, usize, usize)>,
    max_def: i16,
    out: &mut Vec<U>,
    convert: impl Fn(T) -> U,
) -> ColumnResult {
    let start = out.len();
    let mut levels: Vec<i16> = Vec::with_capacity(BATCH);
    let mut values: Vec<T> = Vec::with_capacity(BATCH);
    loop {
        levels.clear();
        values.clear();
        let (records, read_values, _) = read(BATCH, Some(&mut levels), &mut values)
            .map_err(|e| (out.len() - start, e.to_string()))?;
        if records == 0 {
            return Ok(());
        }
        if read_values < records {
            let null = levels
                .iter()
                .position(|&l| l < max_def)
                .unwrap_or(read_values);
            return Err((out.len() - start + null, "a null cell".into()));
        }
        out.extend(values.iter().map(|&x| convert(x)));
    }
}

/// Writes `m` as a Parquet COO file at `path`, atomically (see the module documentation).
pub fn write(m: &Matrix, path: &Path) -> Result<()> {
    write_groups(m, path, ROW_GROUP_ROWS)
}

/// [`write`] with row groups of at most `group_rows` cells.
///
/// Row groups are encoded on the thread pool, as many at a time as it has threads, and
/// written in order: the encoding (delta-packed indices, Snappy) is most of a write's time.
pub fn write_groups(m: &Matrix, path: &Path, group_rows: usize) -> Result<()> {
    let other = |e: parquet::errors::ParquetError| std::io::Error::other(e.to_string());
    super::atomic::write_atomic_file(path, None, |sink| {
        let schema = parse_message_type(
            "message coo { required int64 i; required int64 j; required double v; }",
        )
        .map_err(other)?;
        let mut metadata = vec![
            KeyValue::new("rows".into(), m.rows().to_string()),
            KeyValue::new("cols".into(), m.cols().to_string()),
            KeyValue::new(UNIQUE_KEY.to_string(), "true".to_string()),
        ];
        if m.all_finite() {
            metadata.push(KeyValue::new(FINITE_KEY.to_string(), "true".to_string()));
        }
        // No dictionaries: interning a million indices per row group cost more than the
        // rest of the encoding, and values rarely repeat. Row-major indices are runs and
        // small steps, which delta encoding stores in a few bits each.
        let props = Arc::new(
            WriterProperties::builder()
                .set_compression(Compression::SNAPPY)
                .set_dictionary_enabled(false)
                .set_column_encoding(ColumnPath::from("i"), Encoding::DELTA_BINARY_PACKED)
                .set_column_encoding(ColumnPath::from("j"), Encoding::DELTA_BINARY_PACKED)
                .set_max_row_group_row_count(Some(group_rows))
                .set_key_value_metadata(Some(metadata))
                .build(),
        );
        let mut writer =
            SerializedFileWriter::new(sink, Arc::new(schema), props.clone()).map_err(other)?;
        let columns = writer.schema_descr().columns().to_vec();
        let spans = stored_spans(m, group_rows.max(1));
        for wave in spans.chunks(rayon::current_num_threads().max(1)) {
            let encoded = wave
                .par_iter()
                .map(|&span| encode_group(m, span, &columns, &props))
                .collect::<parquet::errors::Result<Vec<_>>>()
                .map_err(other)?;
            for chunks in encoded.into_iter().flatten() {
                let mut rg = writer.next_row_group().map_err(other)?;
                for (bytes, close) in chunks {
                    rg.append_column(&bytes, close).map_err(other)?;
                }
                rg.close().map_err(other)?;
            }
        }
        writer.close().map_err(other)?;
        Ok(())
    })
    .map_err(|source| io_error(path, source))
}

/// A row group's share of a matrix: positions `start..end` of its stored cells in
/// row-major order (cells of a dense matrix, entries of a sparse one).
type Span = (usize, usize);

/// The matrix's stored cells cut into spans of `per_group`.
fn stored_spans(m: &Matrix, per_group: usize) -> Vec<Span> {
    let stored = match m {
        Matrix::Dense(d) => d.rows() * d.cols(),
        Matrix::Sparse(s) => s.values().len(),
    };
    (0..stored)
        .step_by(per_group)
        .map(|start| (start, (start + per_group).min(stored)))
        .collect()
}

/// An encoded column chunk and what closing its writer reported.
type EncodedColumn = (Bytes, ColumnCloseResult);

/// The three columns of the non-zero cells in `span`, each encoded in memory; `None` when
/// every cell there is zero (no row group is written for it).
///
/// The cells go to the column writers [`CHUNK_CELLS`] at a time, gathered in small
/// buffers: gathering a whole group first wrote 24 bytes a cell into fresh memory only to
/// read them again.
fn encode_group(
    m: &Matrix,
    (start, end): Span,
    columns: &[ColumnDescPtr],
    props: &WriterPropertiesPtr,
) -> parquet::errors::Result<Option<Vec<EncodedColumn>>> {
    let n = end - start;
    // Room for the values as they are: a buffer that grows is copied each time.
    let mut buffers: [TrackedWrite<Vec<u8>>; 3] =
        std::array::from_fn(|_| TrackedWrite::new(Vec::with_capacity(8 * n + 4096)));
    let mut writers: Vec<ColumnWriter<'_>> = buffers
        .iter_mut()
        .zip(columns)
        .map(|(buffer, descr)| {
            let pages = Box::new(SerializedPageWriter::new(buffer));
            get_column_writer(descr.clone(), props.clone(), pages)
        })
        .collect();
    let [ColumnWriter::Int64ColumnWriter(rows), ColumnWriter::Int64ColumnWriter(cols), ColumnWriter::DoubleColumnWriter(values)] =
        writers.as_mut_slice()
    else {
        return Err(ParquetError::General(
            "the COO schema's columns have unexpected types".into(),
        ));
    };
    let mut chunk: Cells = (
        Vec::with_capacity(CHUNK_CELLS),
        Vec::with_capacity(CHUNK_CELLS),
        Vec::with_capacity(CHUNK_CELLS),
    );
    let mut written = 0;
    let mut flush = |chunk: &mut Cells| -> parquet::errors::Result<()> {
        rows.write_batch(&chunk.0, None, None)?;
        cols.write_batch(&chunk.1, None, None)?;
        values.write_batch(&chunk.2, None, None)?;
        written += chunk.2.len();
        chunk.0.clear();
        chunk.1.clear();
        chunk.2.clear();
        Ok(())
    };
    match m {
        Matrix::Dense(d) => {
            let width = d.cols();
            let (mut i, mut j) = (start / width, start % width);
            for &v in &d.data()[start..end] {
                push(&mut chunk, i, j, v);
                if chunk.2.len() == CHUNK_CELLS {
                    flush(&mut chunk)?;
                }
                j += 1;
                if j == width {
                    (i, j) = (i + 1, 0);
                }
            }
        }
        Matrix::Sparse(s) => {
            let (indptr, indices, values) = (s.indptr(), s.indices(), s.values());
            // The row of entry `start`: the last row that begins at or before it.
            let mut i = indptr.partition_point(|&k| k <= start) - 1;
            for p in start..end {
                while indptr[i + 1] <= p {
                    i += 1;
                }
                push(&mut chunk, i, indices[p] as usize, values[p]);
                if chunk.2.len() == CHUNK_CELLS {
                    flush(&mut chunk)?;
                }
            }
        }
    }
    flush(&mut chunk)?;
    if written == 0 {
        return Ok(None);
    }
    let closed = writers
        .into_iter()
        .map(|w| w.close())
        .collect::<parquet::errors::Result<Vec<_>>>()?;
    let mut encoded = Vec::with_capacity(3);
    for (buffer, close) in buffers.into_iter().zip(closed) {
        encoded.push((Bytes::from(buffer.into_inner()?), close));
    }
    Ok(Some(encoded))
}

/// Cells handed to the column writers at a time (192 kB of gathered cells, which stay in
/// the cache).
const CHUNK_CELLS: usize = 1 << 13;

/// Cells being gathered: row indices, column indices, values.
type Cells = (Vec<i64>, Vec<i64>, Vec<f64>);

/// Appends cell `(i, j, v)` unless it is zero.
fn push(group: &mut Cells, i: usize, j: usize, v: f64) {
    if v != 0.0 {
        group.0.push(i as i64);
        group.1.push(j as i64);
        group.2.push(v);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::test_util::TempDir;
    use crate::matrix::{CsrMatrix, DenseMatrix};
    use parquet::data_type::Int32Type;

    fn sparse(rows: usize, cols: usize, cells: &[(usize, usize, f64)]) -> Matrix {
        Matrix::Sparse(CsrMatrix::from_triplets(rows, cols, cells).unwrap())
    }

    /// One column chunk: its INT32 values and, for a nullable column, definition levels.
    type RawColumn = (Vec<i32>, Option<Vec<i16>>);

    /// A file written with the Parquet API directly: `message` as the schema, then one
    /// row group per entry of `groups` (each column's values and definition levels).
    fn write_raw(path: &Path, message: &str, groups: &[Vec<RawColumn>]) {
        let schema = Arc::new(parse_message_type(message).unwrap());
        let file = File::create(path).unwrap();
        let props = Arc::new(WriterProperties::builder().build());
        let mut writer = SerializedFileWriter::new(file, schema, props).unwrap();
        for group in groups {
            let mut rg = writer.next_row_group().unwrap();
            for (values, levels) in group {
                let mut column = rg.next_column().unwrap().unwrap();
                column
                    .typed::<Int32Type>()
                    .write_batch(values, levels.as_deref(), None)
                    .unwrap();
                column.close().unwrap();
            }
            rg.close().unwrap();
        }
        writer.close().unwrap();
    }

    #[test]
    fn matrices_round_trip_with_their_shape() {
        let dir = TempDir::new();
        let path = dir.path("m.parquet");
        let dense = Matrix::Dense(
            DenseMatrix::from_vec(3, 4, (0..12).map(|k| (k % 5) as f64 - 1.5).collect()).unwrap(),
        );
        // Trailing empty rows and columns survive through the recorded shape.
        let cells = [(0, 3, 2.5), (2, 0, -1.0), (2, 7, 4.0)];
        let wide = sparse(6, 9, &cells);
        let empty = sparse(5, 2, &[]);
        for m in [&dense, &wide, &empty] {
            write(m, &path).unwrap();
            let back = read(&path).unwrap();
            assert_eq!(back.shape(), m.shape());
            assert_eq!(back.nnz(), m.nnz());
            assert!(back.approx_eq(m, 0.0), "{m:?} {back:?}");
            let dense = Matrix::Dense(read_dense(&path).unwrap());
            assert_eq!(dense.shape(), m.shape());
            assert!(dense.approx_eq(m, 0.0), "{m:?} {dense:?}");
        }
    }

    #[test]
    fn row_groups_are_read_in_order() {
        let dir = TempDir::new();
        let path = dir.path("groups.parquet");
        let cells: Vec<(usize, usize, f64)> =
            (0..250).map(|k| (k / 10, k % 10, k as f64 + 1.0)).collect();
        let m = sparse(25, 10, &cells);
        write_groups(&m, &path, 64).unwrap();
        let reader = SerializedFileReader::new(File::open(&path).unwrap()).unwrap();
        assert_eq!(reader.num_row_groups(), 4);
        let back = read(&path).unwrap();
        assert!(back.approx_eq(&m, 0.0));
        assert_eq!(back.nnz(), 250);
        // Groups of 64, 64, 64 and the last 58 cells.
        assert_eq!(CooFile::open(&path).unwrap().largest_group_cells(), 64);
        let dense = Matrix::Dense(read_dense(&path).unwrap());
        assert!(dense.approx_eq(&m, 0.0));
    }

    #[test]
    fn groups_decoded_on_several_threads_sum_duplicates_in_file_order() {
        let dir = TempDir::new();
        let path = dir.path("dups.parquet");
        // Cell (1, 2) is stored in each of the five groups, beside a cell (g, 0) of group
        // g's own. Summed in file order, the result is the same for any thread count.
        let all = Some(vec![1i16; 2]);
        let groups: Vec<Vec<RawColumn>> = (0..5)
            .map(|g| {
                vec![
                    (vec![1, g], all.clone()),
                    (vec![2, 0], all.clone()),
                    (vec![g + 1, 10 * g + 1], all.clone()),
                ]
            })
            .collect();
        write_raw(
            &path,
            "message t { optional int32 i; optional int32 j; optional int32 v; }",
            &groups,
        );
        assert_eq!(CooFile::open(&path).unwrap().row_groups(), 5);
        let want = read(&path).unwrap();
        assert_eq!((want.rows(), want.cols()), (5, 3));
        for threads in [1, 2, 3] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let dense = pool.install(|| read_dense(&path)).unwrap();
            assert_eq!(dense.get(1, 2), 15.0);
            assert_eq!(dense.get(3, 0), 31.0);
            assert!(Matrix::Dense(dense).approx_eq(&want, 0.0));
        }
    }

    #[test]
    fn groups_larger_than_a_chunk_keep_every_cell() {
        let dir = TempDir::new();
        let path = dir.path("chunks.parquet");
        // 30,000 cells, a third of them zero, in groups of 20,000: each group goes to the
        // writers in several chunks, the last one short.
        let dense = DenseMatrix::from_fn(300, 100, |i, j| {
            if (i + j) % 3 == 0 {
                0.0
            } else {
                (i * 100 + j) as f64 * 0.5
            }
        });
        assert!(dense.rows() * dense.cols() > 2 * CHUNK_CELLS);
        let dense = Matrix::Dense(dense);
        write_groups(&dense, &path, 20_000).unwrap();
        let file = CooFile::open(&path).unwrap();
        assert_eq!(file.row_groups(), 2);
        assert_eq!(file.cells(), 20_000);
        let back = read(&path).unwrap();
        assert!(back.approx_eq(&dense, 0.0));
        let cells: Vec<(usize, usize, f64)> = (0..300)
            .flat_map(|i| (0..100).map(move |j| (i, j)))
            .map(|(i, j)| (i, j, back.get(i, j)))
            .filter(|&(_, _, v)| v != 0.0)
            .collect();
        write_groups(&sparse(300, 100, &cells), &path, 15_000).unwrap();
        assert_eq!(CooFile::open(&path).unwrap().row_groups(), 2);
        assert!(read(&path).unwrap().approx_eq(&dense, 0.0));
    }

    #[test]
    fn groups_encoded_on_several_threads_are_written_in_order() {
        let dir = TempDir::new();
        let path = dir.path("waves.parquet");
        // Rows 2 and 3 are zero: their group holds no cell and is not written.
        let dense = Matrix::Dense(DenseMatrix::from_fn(7, 5, |i, j| {
            if i == 2 || i == 3 {
                0.0
            } else {
                (10 * i + j) as f64 - 3.0
            }
        }));
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .unwrap();
        pool.install(|| write_groups(&dense, &path, 5)).unwrap();
        let file = CooFile::open(&path).unwrap();
        assert_eq!(file.row_groups(), 5);
        let rows: Vec<i64> = (0..5).map(|g| file.read_group(g).unwrap().i[0]).collect();
        assert_eq!(rows, [0, 1, 4, 5, 6]);
        assert!(read(&path).unwrap().approx_eq(&dense, 0.0));
        // Groups of a sparse matrix start inside a row: 7 + 7 + 7 + 4 entries.
        let cells: Vec<(usize, usize, f64)> =
            (0..25).map(|k| (k / 10, k % 10, k as f64 + 1.0)).collect();
        let wide = sparse(3, 10, &cells);
        pool.install(|| write_groups(&wide, &path, 7)).unwrap();
        let file = CooFile::open(&path).unwrap();
        assert_eq!(file.row_groups(), 4);
        assert_eq!(file.read_group(1).unwrap().i, [0, 0, 0, 1, 1, 1, 1]);
        assert!(read(&path).unwrap().approx_eq(&wide, 0.0));
    }

    #[test]
    fn an_opened_file_gives_its_shape_and_row_groups_without_reading_the_cells() {
        let dir = TempDir::new();
        let path = dir.path("groups.parquet");
        let cells: Vec<(usize, usize, f64)> =
            (0..150).map(|k| (k / 10, k % 10, k as f64 + 1.0)).collect();
        let m = sparse(40, 12, &cells);
        write_groups(&m, &path, 64).unwrap();
        let file = CooFile::open(&path).unwrap();
        assert_eq!((file.rows(), file.cols(), file.cells()), (40, 12, 150));
        assert_eq!(file.row_groups(), 3);
        assert!(file.unique_cells());
        assert!(file.declared_finite());
        let last = file.read_group(2).unwrap();
        assert_eq!(last.i.len(), 150 - 128);
        assert_eq!((last.i[0], last.j[0], last.v[0]), (12, 8, 129.0));
        assert_eq!(file.read_group_values(2).unwrap(), last.v);

        // Another writer's file: no shape metadata (the extent comes from the index
        // columns' statistics) and no promise that cells are unique.
        let duck = dir.path("duck.parquet");
        write_raw(
            &duck,
            "message t { required int32 i; required int32 j; required int32 v; }",
            &[vec![
                (vec![0, 6], None),
                (vec![3, 1], None),
                (vec![1, 2], None),
            ]],
        );
        let file = CooFile::open(&duck).unwrap();
        assert_eq!((file.rows(), file.cols(), file.cells()), (7, 4, 2));
        assert!(!file.unique_cells());
        assert!(!file.declared_finite());
        assert_eq!(file.read_group_values(0).unwrap(), vec![1.0, 2.0]);

        // A matrix holding NaN or an infinity is written without the promise.
        for bad in [f64::NAN, f64::NEG_INFINITY] {
            write(&sparse(2, 2, &[(0, 1, 1.0), (1, 0, bad)]), &path).unwrap();
            let file = CooFile::open(&path).unwrap();
            assert!(file.unique_cells() && !file.declared_finite());
        }
    }

    #[test]
    fn other_writers_files_read_with_int32_nullable_columns_in_any_order() {
        let dir = TempDir::new();
        let path = dir.path("duck.parquet");
        // What a SQL engine writes: nullable 32-bit columns, an extra column, cells out
        // of order and a duplicate (summed), no shape metadata (one past the largest index).
        let all = Some(vec![1i16; 4]);
        write_raw(
            &path,
            "message t { optional int32 j; optional int32 extra; optional int32 i; optional int32 v; }",
            &[vec![
                (vec![2, 0, 2, 1], all.clone()),
                (vec![9, 9, 9, 9], all.clone()),
                (vec![1, 0, 1, 3], all.clone()),
                (vec![5, 7, 1, -2], all),
            ]],
        );
        let m = read(&path).unwrap();
        assert_eq!((m.rows(), m.cols()), (4, 3));
        let want = sparse(4, 3, &[(0, 0, 7.0), (1, 2, 6.0), (3, 1, -2.0)]);
        assert!(m.approx_eq(&want, 0.0), "{m:?}");
        let dense = Matrix::Dense(read_dense(&path).unwrap());
        assert!(dense.approx_eq(&want, 0.0), "{dense:?}");
    }

    #[test]
    fn bad_files_are_errors_naming_the_file_and_row() {
        let dir = TempDir::new();
        let nulls = dir.path("nulls.parquet");
        // The third cell's `v` is null.
        write_raw(
            &nulls,
            "message t { required int32 i; required int32 j; optional int32 v; }",
            &[vec![
                (vec![0, 1, 2], None),
                (vec![0, 1, 2], None),
                (vec![4, 5], Some(vec![1, 1, 0])),
            ]],
        );
        let text = read(&nulls).unwrap_err().to_string();
        assert!(
            text.contains("nulls.parquet") && text.contains("null"),
            "{text}"
        );
        assert!(text.contains(":3"), "{text}");

        let no_v = dir.path("no_v.parquet");
        write_raw(
            &no_v,
            "message t { required int32 i; required int32 j; }",
            &[vec![(vec![0], None), (vec![0], None)]],
        );
        let text = read(&no_v).unwrap_err().to_string();
        assert!(text.contains("no column `v`"), "{text}");

        let negative = dir.path("negative.parquet");
        write_raw(
            &negative,
            "message t { required int32 i; required int32 j; required int32 v; }",
            &[vec![
                (vec![0, -1], None),
                (vec![0, 0], None),
                (vec![1, 1], None),
            ]],
        );
        for text in [
            read(&negative).unwrap_err().to_string(),
            read_dense(&negative).unwrap_err().to_string(),
        ] {
            assert!(
                text.contains("cell (-1, 0)") && text.contains(":2"),
                "{text}"
            );
        }

        let garbage = dir.path("garbage.parquet");
        std::fs::write(&garbage, b"PAR1 this is not parquet").unwrap();
        let text = read(&garbage).unwrap_err().to_string();
        assert!(text.contains("not a readable Parquet file"), "{text}");
    }

    #[test]
    fn a_failed_write_leaves_the_old_file() {
        let dir = TempDir::new();
        let path = dir.path("keep.parquet");
        let m = sparse(2, 2, &[(1, 1, 3.0)]);
        write(&m, &path).unwrap();
        let missing = dir.path("no/such/dir/x.parquet");
        let text = write(&m, &missing).unwrap_err().to_string();
        assert!(text.contains("x.parquet"), "{text}");
        assert!(read(&path).unwrap().approx_eq(&m, 0.0));
        let names: Vec<_> = std::fs::read_dir(&dir.0).unwrap().collect();
        assert_eq!(names.len(), 1, "only the written file is left");
    }
}
