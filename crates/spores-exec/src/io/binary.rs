//! SystemDS's binary block format (`format="binary"`): a Hadoop `SequenceFile` of
//! `(MatrixIndexes, MatrixBlock)` records, one per block of (at most) `blen x blen` cells.
//!
//! The file: `SEQ`, a version byte (6), the key and value class names (Hadoop `Text`:
//! a variable-length count, then UTF-8), two flags (compressed, block-compressed; both 0
//! here, compressed files are refused), a metadata count with its pairs, and a 16-byte
//! sync marker. Then records: a 4-byte record length (`-1` introduces a sync marker), a
//! 4-byte key length, the key (two 8-byte block indices, 1-based) and the value: the
//! block's rows and columns (4 bytes each), a type byte and its cells:
//! `0` empty; `1` ultra-sparse (a count, then `(row, col, value)` triples, or
//! `(row, value)` pairs for one column); `2` sparse (a count, then per row its length and
//! `(col, value)` pairs); `3` dense (row-major doubles). Everything is big-endian, as
//! Java's `DataOutput` writes it. A directory (SystemDS's parallel writers) is read as
//! all of its part files.
//!
//! Writing produces one file, the blocks in row-major order with a sync marker every
//! 2,000 bytes as Hadoop writes them; a block is empty, sparse (under 40 % non-zeros) or
//! dense. The block size is 1000, SystemDS's default, and goes into the `.mtd` file.

use std::io::Write;
use std::path::Path;

use super::{data_files, io_error, parse_error};
use crate::error::{ExecError, Result};
use crate::matrix::{CsrMatrix, Matrix};

/// SystemDS's default block size, the side of the square blocks a written file holds.
pub const BLOCK_SIZE: usize = 1000;

const KEY_CLASS: &str = "org.apache.sysds.runtime.matrix.data.MatrixIndexes";
const VALUE_CLASS: &str = "org.apache.sysds.runtime.matrix.data.MatrixBlock";
/// The sync marker spores writes (any 16 bytes do; a fixed one keeps files reproducible).
const SYNC: [u8; 16] = *b"spores-binary-v1";
/// Hadoop writes a sync marker before the first record past every 2,000 bytes.
const SYNC_INTERVAL: usize = 2000;

/// Reads a binary-block matrix: a file, or a directory of part files.
pub fn read(path: &Path) -> Result<Matrix> {
    let files = data_files(path)?;
    let mut blocks = Vec::new();
    for file in &files {
        let bytes = std::fs::read(file).map_err(|e| io_error(file, e))?;
        parse_blocks(&bytes, file, &mut blocks)?;
    }
    assemble(blocks, path)
}

/// Parses one binary-block file held in memory; `path` is only used in errors.
pub fn parse(bytes: &[u8], path: &Path) -> Result<Matrix> {
    let mut blocks = Vec::new();
    parse_blocks(bytes, path, &mut blocks)?;
    assemble(blocks, path)
}

/// One block as read: its 1-based block indices, its size and its non-zero cells
/// (block-local, 0-based).
struct Block {
    index: (u64, u64),
    rows: usize,
    cols: usize,
    cells: Vec<(usize, usize, f64)>,
}

/// A cursor over a file's bytes whose reads fail with the file's name.
struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
    path: &'a Path,
}

impl<'a> Cursor<'a> {
    fn error(&self, message: impl Into<String>) -> ExecError {
        parse_error(
            self.path,
            0,
            format!("byte {}: {}", self.at, message.into()),
        )
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.bytes.len());
        let Some(end) = end else {
            return Err(self.error(format!("the file ends inside a {n}-byte field")));
        };
        let out = &self.bytes[self.at..end];
        self.at = end;
        Ok(out)
    }

    fn u8(&mut self) -> Result<u8> {
        Ok(self.take(1)?[0])
    }

    fn i32(&mut self) -> Result<i32> {
        Ok(i32::from_be_bytes(self.take(4)?.try_into().unwrap()))
    }

    fn i64(&mut self) -> Result<i64> {
        Ok(i64::from_be_bytes(self.take(8)?.try_into().unwrap()))
    }

    fn f64(&mut self) -> Result<f64> {
        Ok(f64::from_be_bytes(self.take(8)?.try_into().unwrap()))
    }

    /// A count that must lie in `0..=limit`.
    fn count(&mut self, what: &str, limit: usize) -> Result<usize> {
        let n = self.i32()?;
        usize::try_from(n)
            .ok()
            .filter(|&n| n <= limit)
            .ok_or_else(|| self.error(format!("{what} {n} is not in 0..={limit}")))
    }

    /// Hadoop's `WritableUtils.readVInt`.
    fn vint(&mut self) -> Result<i64> {
        let first = self.u8()? as i8;
        if first >= -112 {
            return Ok(first as i64);
        }
        let negative = first < -120;
        let len = if negative {
            -(first as i32 + 120)
        } else {
            -(first as i32 + 112)
        } as usize;
        let mut value: i64 = 0;
        for &b in self.take(len)? {
            value = (value << 8) | b as i64;
        }
        Ok(if negative { !value } else { value })
    }

    /// Hadoop's `Text`: a vint length and UTF-8 bytes.
    fn text(&mut self) -> Result<String> {
        let len = self.vint()?;
        let len = usize::try_from(len).map_err(|_| self.error("a negative text length"))?;
        Ok(String::from_utf8_lossy(self.take(len)?).into_owned())
    }
}

fn parse_blocks(bytes: &[u8], path: &Path, blocks: &mut Vec<Block>) -> Result<()> {
    let mut c = Cursor { bytes, at: 0, path };
    if c.take(3).ok() != Some(b"SEQ".as_slice()) {
        return Err(parse_error(
            path,
            0,
            "not a SystemDS binary file (a Hadoop SequenceFile starts with `SEQ`)",
        ));
    }
    let version = c.u8()?;
    if !(4..=6).contains(&version) {
        return Err(c.error(format!(
            "SequenceFile version {version} is not read (4 to 6)"
        )));
    }
    let key = c.text()?;
    let value = c.text()?;
    if key != KEY_CLASS || value != VALUE_CLASS {
        return Err(c.error(format!(
            "holds ({key}, {value}) records; a matrix's are (MatrixIndexes, MatrixBlock) \
             (binary frames and tensors are not read)"
        )));
    }
    let (compressed, block_compressed) = (c.u8()?, c.u8()?);
    if compressed != 0 || block_compressed != 0 {
        return Err(c.error("compressed SequenceFiles are not read"));
    }
    if version >= 6 {
        let pairs = c.count("metadata count", bytes.len())?;
        for _ in 0..pairs {
            c.text()?;
            c.text()?;
        }
    }
    let sync = c.take(16)?;
    while c.at < bytes.len() {
        let record = c.i32()?;
        if record == -1 {
            if c.take(16)? != sync {
                return Err(c.error("a sync marker that is not the file's"));
            }
            continue;
        }
        let start = c.at;
        let key_len = c.i32()?;
        if record < 0 || key_len != 16 {
            return Err(c.error(format!(
                "record of {record} bytes with a {key_len}-byte key (a MatrixIndexes has 16)"
            )));
        }
        let (bi, bj) = (c.i64()?, c.i64()?);
        if bi < 1 || bj < 1 {
            return Err(c.error(format!("block index ({bi}, {bj}) below 1")));
        }
        let block = read_block(&mut c, (bi as u64, bj as u64))?;
        if c.at - start != record as usize + 4 {
            return Err(c.error(format!(
                "block ({bi}, {bj}) takes {} bytes, its record says {}",
                c.at - start - 4,
                record
            )));
        }
        blocks.push(block);
    }
    Ok(())
}

fn read_block(c: &mut Cursor, index: (u64, u64)) -> Result<Block> {
    let rows = c.count("block rows", i32::MAX as usize)?;
    let cols = c.count("block columns", i32::MAX as usize)?;
    let kind = c.u8()?;
    let left = c.bytes.len() - c.at;
    let mut cells = Vec::new();
    let check = |c: &Cursor, i: usize, j: usize| {
        if i >= rows || j >= cols {
            Err(c.error(format!("cell ({i}, {j}) outside a {rows}x{cols} block")))
        } else {
            Ok(())
        }
    };
    match kind {
        0 => {}
        1 => {
            let nnz = c.count("non-zero count", left / 12)?;
            for _ in 0..nnz {
                let i = c.count("row", i32::MAX as usize)?;
                let j = if cols > 1 {
                    c.count("column", i32::MAX as usize)?
                } else {
                    0
                };
                let v = c.f64()?;
                check(c, i, j)?;
                cells.push((i, j, v));
            }
        }
        2 => {
            // A count of 8 bytes where the block's cells exceed what 4 bytes count.
            if rows as u64 * cols as u64 > i32::MAX as u64 {
                c.i64()?;
            } else {
                c.i32()?;
            }
            for i in 0..rows {
                let n = c.count("row length", left / 12)?;
                for _ in 0..n {
                    let j = c.count("column", i32::MAX as usize)?;
                    let v = c.f64()?;
                    check(c, i, j)?;
                    cells.push((i, j, v));
                }
            }
        }
        3 => {
            if (rows as u64 * cols as u64).saturating_mul(8) > left as u64 {
                return Err(c.error(format!("a dense {rows}x{cols} block past the file's end")));
            }
            for i in 0..rows {
                for j in 0..cols {
                    let v = c.f64()?;
                    if v != 0.0 {
                        cells.push((i, j, v));
                    }
                }
            }
        }
        4 => return Err(c.error("deduplicated (embedding) blocks are not read")),
        other => return Err(c.error(format!("block type {other} (known: 0 to 4)"))),
    }
    Ok(Block {
        index,
        rows,
        cols,
        cells,
    })
}

/// The matrix the blocks tile. The block size is the largest block side (a matrix of one
/// block row or column has no full block there, and needs none).
fn assemble(blocks: Vec<Block>, path: &Path) -> Result<Matrix> {
    let blen = blocks
        .iter()
        .map(|b| b.rows.max(b.cols))
        .max()
        .unwrap_or(0)
        .max(1) as u64;
    // Saturating: a damaged index gives a size that is refused below, not an overflow.
    let origin = |index: u64| (index - 1).saturating_mul(blen);
    let mut rows = 0u64;
    let mut cols = 0u64;
    for b in &blocks {
        rows = rows.max(origin(b.index.0).saturating_add(b.rows as u64));
        cols = cols.max(origin(b.index.1).saturating_add(b.cols as u64));
    }
    let too_large = || {
        ExecError::invalid(format!(
            "{}: a {rows}x{cols} matrix is too large",
            path.display()
        ))
    };
    // CSR column indices are 32-bit.
    if rows > u32::MAX as u64 || cols > u32::MAX as u64 {
        return Err(too_large());
    }
    let (rows, cols) = (rows as usize, cols as usize);
    let nnz: usize = blocks.iter().map(|b| b.cells.len()).sum();
    // The triplets, then the CSR arrays (row pointers for every row, however few cells).
    crate::memory::ensure_fits("read", nnz as f64 * 24.0)?;
    crate::memory::ensure_sparse("read", rows, cols, nnz)?;
    let mut triplets = Vec::with_capacity(nnz);
    for b in blocks {
        let (r0, c0) = (origin(b.index.0) as usize, origin(b.index.1) as usize);
        for (i, j, v) in b.cells {
            triplets.push((r0 + i, c0 + j, v));
        }
    }
    triplets.sort_unstable_by_key(|&(i, j, _)| (i, j));
    if triplets
        .windows(2)
        .any(|w| (w[0].0, w[0].1) == (w[1].0, w[1].1))
    {
        return Err(ExecError::invalid(format!(
            "{}: two blocks hold the same cell",
            path.display()
        )));
    }
    let m = CsrMatrix::from_triplets(rows, cols, &triplets)?;
    Ok(Matrix::Sparse(m).into_best_format())
}

/// The bytes of a binary-block file of `m`: blocks of [`BLOCK_SIZE`] in row-major order.
pub fn write(m: &Matrix, w: &mut dyn Write) -> std::io::Result<()> {
    let mut out = Vec::new();
    out.extend_from_slice(b"SEQ\x06");
    for class in [KEY_CLASS, VALUE_CLASS] {
        out.push(class.len() as u8);
        out.extend_from_slice(class.as_bytes());
    }
    out.extend_from_slice(&[0, 0]);
    out.extend_from_slice(&0i32.to_be_bytes());
    out.extend_from_slice(&SYNC);
    let mut last_sync = out.len();
    let (rows, cols) = (m.rows(), m.cols());
    let block_rows = rows.div_ceil(BLOCK_SIZE).max(1);
    let block_cols = cols.div_ceil(BLOCK_SIZE).max(1);
    for bi in 0..block_rows {
        for bj in 0..block_cols {
            let (r0, c0) = (bi * BLOCK_SIZE, bj * BLOCK_SIZE);
            let (br, bc) = (
                (rows - r0).min(BLOCK_SIZE),
                (cols.saturating_sub(c0)).min(BLOCK_SIZE),
            );
            if out.len() >= last_sync + SYNC_INTERVAL {
                out.extend_from_slice(&(-1i32).to_be_bytes());
                out.extend_from_slice(&SYNC);
                last_sync = out.len();
            }
            let value = block_bytes(m, r0, c0, br, bc);
            out.extend_from_slice(&((16 + value.len()) as i32).to_be_bytes());
            out.extend_from_slice(&16i32.to_be_bytes());
            out.extend_from_slice(&(bi as i64 + 1).to_be_bytes());
            out.extend_from_slice(&(bj as i64 + 1).to_be_bytes());
            out.extend_from_slice(&value);
            if out.len() >= 1 << 24 {
                w.write_all(&out)?;
                last_sync = last_sync.saturating_sub(out.len());
                out.clear();
            }
        }
    }
    w.write_all(&out)
}

/// One block's `MatrixBlock` bytes: empty, sparse under 40 % non-zeros, else dense.
fn block_bytes(m: &Matrix, r0: usize, c0: usize, br: usize, bc: usize) -> Vec<u8> {
    let mut rows_cells: Vec<Vec<(usize, f64)>> = vec![Vec::new(); br];
    let mut nnz = 0usize;
    for (i, row) in rows_cells.iter_mut().enumerate() {
        match m {
            Matrix::Dense(d) => row.extend(
                d.row(r0 + i)[c0..c0 + bc]
                    .iter()
                    .enumerate()
                    .filter(|(_, &v)| v != 0.0)
                    .map(|(j, &v)| (j, v)),
            ),
            Matrix::Sparse(s) => {
                let span = s.indptr()[r0 + i]..s.indptr()[r0 + i + 1];
                let (cols, values) = (&s.indices()[span.clone()], &s.values()[span]);
                let from = cols.partition_point(|&j| (j as usize) < c0);
                let to = cols.partition_point(|&j| (j as usize) < c0 + bc);
                row.extend(
                    (from..to)
                        .filter(|&k| values[k] != 0.0)
                        .map(|k| (cols[k] as usize - c0, values[k])),
                );
            }
        }
        nnz += row.len();
    }
    let mut out = Vec::with_capacity(9 + nnz * 12);
    out.extend_from_slice(&(br as i32).to_be_bytes());
    out.extend_from_slice(&(bc as i32).to_be_bytes());
    if nnz == 0 {
        out.push(0);
    } else if (nnz as f64) < 0.4 * (br * bc) as f64 {
        out.push(2);
        out.extend_from_slice(&(nnz as i32).to_be_bytes());
        for row in &rows_cells {
            out.extend_from_slice(&(row.len() as i32).to_be_bytes());
            for &(j, v) in row {
                out.extend_from_slice(&(j as i32).to_be_bytes());
                out.extend_from_slice(&v.to_be_bytes());
            }
        }
    } else {
        out.push(3);
        for row in &rows_cells {
            let mut next = 0;
            for &(j, v) in row {
                for _ in next..j {
                    out.extend_from_slice(&0f64.to_be_bytes());
                }
                out.extend_from_slice(&v.to_be_bytes());
                next = j + 1;
            }
            for _ in next..bc {
                out.extend_from_slice(&0f64.to_be_bytes());
            }
        }
    }
    out
}

/// The least bytes a file of `m` takes (its non-zeros, 12 bytes each in sparse blocks).
pub fn min_file_bytes(m: &Matrix) -> f64 {
    m.nnz() as f64 * 12.0
}
