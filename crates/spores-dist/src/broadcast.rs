//! Small operands held in memory and read by index: a broadcast join without a hash table.
//!
//! A plan that scans an input larger than memory usually has small operands beside it: a
//! vector `v` next to a matrix `X` of 10^8 non-zeros, or rank-10 factors `U` and `V`.
//! Joined as relations, each costs a hash table and a probe per tuple of `X`, and a factor
//! of 10^7 tuples is a hash table that cannot spill. Held as a dense array, an operand is
//! read at the streamed tuple's indices instead:
//!
//! - `X %*% v` is a scan of `X` projecting `x * v[j]`, grouped by `i` ([`cell`]);
//! - `sddmm_sum(X, U, V)` is a scan of `X` projecting `x * <U[i,:], V[j,:]>`, summed
//!   ([`row_dot`]).
//!
//! Both are scalar UDFs over the streamed relation's index columns. A held operand has
//! every cell, zeros included, so a cell the relation lacks reads as 0, which is what the
//! inner join's missing tuple means. On a Ballista cluster the lookups travel inside the
//! plan with their held cells ([`crate::codec`], feature `ballista`).

use std::hash::{Hash, Hasher};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};

use datafusion::arrow::array::{Array, Float64Array, Int64Array};
use datafusion::arrow::datatypes::DataType;
use datafusion::common::ScalarValue;
use datafusion::common::{exec_err, Result as DfResult};
use datafusion::logical_expr::{
    ColumnarValue, Expr, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature, Volatility,
};
use spores_exec::io::parquet_coo;
use spores_exec::{DenseMatrix, Matrix};
use spores_tensor::engine::intersect::prefetch;

use crate::error::DistError;

/// A dense matrix held for lookups. Its id tells two holdings apart: DataFusion compares
/// and hashes functions when it rewrites plans, and comparing ids is what equality of
/// the held cells means here (each holding is made once).
#[derive(Clone, Debug)]
pub struct Held {
    id: u64,
    /// Where the holding was made: the making process's [`process_nonce`] and its id
    /// there. A plan decoded on a Ballista node keeps it, so that the tasks of one plan
    /// share its cells within a process ([`crate::codec`]).
    origin: (u64, u64),
    cells: Arc<Cells>,
}

/// The cells of a holding: in memory from the start, or the whole of a Parquet COO file
/// read the first time a lookup needs them. A plan decoded on a Ballista scheduler names
/// its held inputs' files and never reads them: only the executors that run its tasks do.
#[derive(Debug)]
pub struct Cells {
    rows: usize,
    cols: usize,
    /// The file the cells are (a plan for a Ballista cluster names it instead of
    /// carrying the cells, [`crate::codec`]): the input they were read from, or a copy
    /// written for the cluster ([`Held::write_to`]).
    file: OnceLock<Arc<Path>>,
    /// Whether `file` is a copy this process wrote, removed when the cells are dropped.
    written: AtomicBool,
    /// Always [`Matrix::Dense`]: the kernels read it as a matrix, the lookups as an array.
    matrix: OnceLock<Arc<Matrix>>,
    /// Held while the file is read, so that tasks starting together read it once.
    reading: Mutex<()>,
}

impl Cells {
    pub(crate) fn in_memory(matrix: DenseMatrix, file: Option<Arc<Path>>) -> Self {
        Cells {
            rows: matrix.rows(),
            cols: matrix.cols(),
            file: file.map(OnceLock::from).unwrap_or_default(),
            written: AtomicBool::new(false),
            matrix: OnceLock::from(Arc::new(Matrix::Dense(matrix))),
            reading: Mutex::new(()),
        }
    }

    /// The cells of the `rows x cols` matrix in `file`, read when first needed.
    pub(crate) fn in_file(rows: usize, cols: usize, file: Arc<Path>) -> Self {
        Cells {
            rows,
            cols,
            file: OnceLock::from(file),
            written: AtomicBool::new(false),
            matrix: OnceLock::new(),
            reading: Mutex::new(()),
        }
    }

    pub fn rows(&self) -> usize {
        self.rows
    }

    pub fn cols(&self) -> usize {
        self.cols
    }

    /// Bytes of the cells, read or not.
    pub fn bytes(&self) -> usize {
        8 * self.rows * self.cols
    }

    fn get(&self) -> Result<&Arc<Matrix>, DistError> {
        if let Some(m) = self.matrix.get() {
            return Ok(m);
        }
        let _reading = self.reading.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(m) = self.matrix.get() {
            return Ok(m);
        }
        let Some(path) = self.file.get() else {
            return Err(DistError::Result(
                "a held matrix has neither cells nor a file".into(),
            ));
        };
        let read = parquet_coo::read_dense(path).map_err(|e| {
            DistError::Plan(format!(
                "cannot read the held input {}: {e}",
                path.display()
            ))
        })?;
        if (read.rows(), read.cols()) != (self.rows, self.cols) {
            return Err(DistError::Plan(format!(
                "{} is {}x{} here, {}x{} where the plan was made",
                path.display(),
                read.rows(),
                read.cols(),
                self.rows,
                self.cols
            )));
        }
        Ok(self.matrix.get_or_init(|| Arc::new(Matrix::Dense(read))))
    }
}

impl Drop for Cells {
    fn drop(&mut self) {
        if *self.written.get_mut() {
            if let Some(path) = self.file.get() {
                if let Err(e) = std::fs::remove_file(path) {
                    log::warn!("cannot remove the held copy {}: {e}", path.display());
                }
            }
        }
    }
}

/// A number that tells this process's holdings apart from other processes' (the ids
/// count from 0 in each).
pub fn process_nonce() -> u64 {
    static NONCE: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *NONCE.get_or_init(|| {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        std::process::id().hash(&mut h);
        std::time::SystemTime::now().hash(&mut h);
        h.finish()
    })
}

fn next_id() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

impl Held {
    pub fn new(matrix: DenseMatrix) -> Self {
        Held::made(Cells::in_memory(matrix, None))
    }

    /// A holding of the whole of the Parquet COO file at `path`, read into `matrix`.
    pub fn of_file(matrix: DenseMatrix, path: &Path) -> Self {
        let path = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
        Held::made(Cells::in_memory(matrix, Some(Arc::from(path.as_path()))))
    }

    fn made(cells: Cells) -> Self {
        let id = next_id();
        Held {
            id,
            origin: (process_nonce(), id),
            cells: Arc::new(cells),
        }
    }

    /// The file the cells are the whole of, if any: the input they were read from, or
    /// the copy [`Self::write_to`] wrote.
    pub(crate) fn file(&self) -> Option<&Path> {
        self.cells.file.get().map(AsRef::as_ref)
    }

    /// Writes the cells, once, as a Parquet COO file in `dir` (a directory a cluster's
    /// executors read), so that a plan can name the file instead of carrying the cells:
    /// a plan of several MB costs a Ballista scheduler and each task a copy and a decode.
    /// The file is removed when the last holder of the cells drops them. Returns the file
    /// (the cells' own, when they are the whole of one already).
    pub(crate) fn write_to(&self, dir: &Path) -> Result<&Path, DistError> {
        let cells = &self.cells;
        if let Some(path) = cells.file.get() {
            return Ok(path);
        }
        let _writing = cells.reading.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(path) = cells.file.get() {
            return Ok(path);
        }
        let matrix = cells.matrix.get().ok_or_else(|| {
            DistError::Result("a held matrix has neither cells nor a file".into())
        })?;
        let dir = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
        let (nonce, id) = self.origin;
        let path = dir.join(format!(".spores-held-{nonce:016x}-{id}.parquet"));
        parquet_coo::write(matrix, &path).map_err(|e| {
            DistError::Plan(format!(
                "cannot write a held matrix to {}: {e}",
                path.display()
            ))
        })?;
        cells.written.store(true, Ordering::Release);
        Ok(cells.file.get_or_init(|| Arc::from(path.as_path())))
    }

    /// A holding decoded from a plan: the cells made at `origin` (shared while another
    /// decoded plan still reads them).
    pub(crate) fn decoded(origin: (u64, u64), cells: Arc<Cells>) -> Self {
        Held {
            id: next_id(),
            origin,
            cells,
        }
    }

    /// Where the holding was made (see the field).
    pub(crate) fn origin(&self) -> (u64, u64) {
        self.origin
    }

    /// The shared cells, read or not.
    #[cfg(test)]
    pub(crate) fn shared(&self) -> &Arc<Cells> {
        &self.cells
    }

    /// Whether the cells are in memory (a holding of a file is read on first use).
    #[cfg(test)]
    pub(crate) fn is_read(&self) -> bool {
        self.cells.matrix.get().is_some()
    }

    /// The cells as a matrix for the local kernels (dense), read from the file first if
    /// they are not in memory yet.
    pub fn as_matrix(&self) -> Result<&Matrix, DistError> {
        self.cells.get().map(Arc::as_ref)
    }

    pub fn rows(&self) -> usize {
        self.cells.rows
    }

    pub fn cols(&self) -> usize {
        self.cells.cols
    }

    /// Bytes of its cells.
    pub fn bytes(&self) -> usize {
        self.cells.bytes()
    }

    /// The cells as a dense matrix (see [`Self::as_matrix`]).
    pub fn matrix(&self) -> Result<&DenseMatrix, DistError> {
        match self.as_matrix()? {
            Matrix::Dense(d) => Ok(d),
            Matrix::Sparse(_) => Err(DistError::Result("a held matrix is made dense".into())),
        }
    }

    /// The cells as a matrix, copied only when another holder still reads them.
    pub fn into_matrix(self) -> Result<Matrix, DistError> {
        let matrix = Arc::clone(self.cells.get()?);
        // Without this holding's reference the cells may be the last one's.
        drop(self);
        Ok(Arc::try_unwrap(matrix).unwrap_or_else(|shared| shared.as_ref().clone()))
    }

    /// A reference that does not keep the cells alive (to count what is still held).
    pub fn weak(&self) -> Weak<Cells> {
        Arc::downgrade(&self.cells)
    }
}

/// Bytes of a `rows x cols` matrix held dense.
pub fn dense_bytes(rows: usize, cols: usize) -> f64 {
    8.0 * rows as f64 * cols as f64
}

/// `m[row, col]` for each tuple: the index expressions of the dimensions of `m` larger
/// than 1 (`row` for a column vector, `col` for a row vector, both for a matrix).
pub fn cell(m: &Held, row: Option<Expr>, col: Option<Expr>) -> Expr {
    let has_row = m.rows() != 1;
    let has_col = m.cols() != 1;
    let args: Vec<Expr> = [(has_row, row), (has_col, col)]
        .into_iter()
        .filter_map(|(has, e)| if has { e } else { None })
        .collect();
    cell_udf(m.clone(), has_row, has_col).call(args)
}

/// The function of [`cell`]: reads `m` at its arguments, a row index when `has_row`,
/// then a column index when `has_col`.
pub(crate) fn cell_udf(held: Held, has_row: bool, has_col: bool) -> ScalarUDF {
    let arity = usize::from(has_row) + usize::from(has_col);
    ScalarUDF::from(Cell {
        held,
        has_row,
        has_col,
        signature: Signature::exact(vec![DataType::Int64; arity], Volatility::Immutable),
    })
}

/// `<u[row,:], v[col,:]>` for each tuple: the inner product of a row of `u` and a row of
/// `v` (both with the same number of columns).
pub fn row_dot(u: &Held, v: &Held, row: Expr, col: Expr) -> Expr {
    row_dot_udf(u.clone(), v.clone()).call(vec![row, col])
}

/// The function of [`row_dot`].
pub(crate) fn row_dot_udf(u: Held, v: Held) -> ScalarUDF {
    ScalarUDF::from(RowDot {
        u,
        v,
        signature: Signature::exact(vec![DataType::Int64; 2], Volatility::Immutable),
    })
}

/// What a function of this module reads, to encode it ([`crate::codec`]).
pub(crate) enum Lookup<'a> {
    Cell {
        held: &'a Held,
        has_row: bool,
        has_col: bool,
    },
    RowDot {
        u: &'a Held,
        v: &'a Held,
    },
}

/// The lookup `udf` is, if it is one of this module's.
pub(crate) fn lookup(udf: &ScalarUDF) -> Option<Lookup<'_>> {
    let inner: &dyn std::any::Any = udf.inner().as_ref();
    if let Some(c) = inner.downcast_ref::<Cell>() {
        return Some(Lookup::Cell {
            held: &c.held,
            has_row: c.has_row,
            has_col: c.has_col,
        });
    }
    inner
        .downcast_ref::<RowDot>()
        .map(|r| Lookup::RowDot { u: &r.u, v: &r.v })
}

/// An index argument of a call: a column of positions, or one position for every tuple
/// (a literal, e.g. the column of a factor read a column at a time).
enum Index<'a> {
    Column(&'a [i64]),
    Fixed(usize),
}

impl Index<'_> {
    #[inline]
    fn at(&self, k: usize) -> usize {
        match self {
            Index::Column(c) => c[k] as usize,
            Index::Fixed(p) => *p,
        }
    }
}

/// Tuples ahead of the current one whose row of a held factor is fetched into the cache.
/// The rows a stream of `X` reads from `V` are in no order: without the hint each row's
/// load stalls the product (about half of a `wsloss` pass at 10^8 tuples).
pub(crate) const PREFETCH_AHEAD: usize = 8;

/// Asks for the `k` cells of `data` from `start` to be brought into the cache (the two
/// lines an 80-byte row may span).
#[inline(always)]
pub(crate) fn prefetch_row(data: &[f64], start: usize, k: usize) {
    prefetch(data, start);
    prefetch(data, start + k.saturating_sub(1));
}

/// Argument `k` of a call as positions below `size`.
fn index<'a>(args: &'a [ColumnarValue], k: usize, size: usize, what: &str) -> DfResult<Index<'a>> {
    match args.get(k) {
        Some(ColumnarValue::Scalar(ScalarValue::Int64(Some(p))))
            if (0..size as i64).contains(p) =>
        {
            Ok(Index::Fixed(*p as usize))
        }
        Some(ColumnarValue::Scalar(s)) => exec_err!("{what}: index {s} outside 0..{size}"),
        Some(ColumnarValue::Array(a)) => {
            let Some(a) = a.as_any().downcast_ref::<Int64Array>() else {
                return exec_err!("{what}: index argument {k} is not an Int64 column");
            };
            if a.null_count() > 0 {
                return exec_err!("{what}: a null index");
            }
            let values = a.values().as_ref();
            if let Some(p) = values.iter().find(|&&p| p < 0 || p as usize >= size) {
                return exec_err!("{what}: index {p} outside 0..{size}");
            }
            Ok(Index::Column(values))
        }
        None => exec_err!("{what}: index argument {k} is missing"),
    }
}

#[derive(Debug)]
struct Cell {
    held: Held,
    has_row: bool,
    has_col: bool,
    signature: Signature,
}

impl PartialEq for Cell {
    fn eq(&self, other: &Self) -> bool {
        self.held.id == other.held.id
    }
}

impl Eq for Cell {}

impl Hash for Cell {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.held.id.hash(state);
    }
}

impl ScalarUDFImpl for Cell {
    fn name(&self) -> &str {
        "held_cell"
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _args: &[DataType]) -> DfResult<DataType> {
        Ok(DataType::Float64)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> DfResult<ColumnarValue> {
        let m = self.held.matrix()?;
        let (rows, cols, data) = (m.rows(), m.cols(), m.data());
        let row = match self.has_row {
            true => index(&args.args, 0, rows, "held_cell")?,
            false => Index::Fixed(0),
        };
        let col = match self.has_col {
            true => index(&args.args, usize::from(self.has_row), cols, "held_cell")?,
            false => Index::Fixed(0),
        };
        let values: Vec<f64> = match (row, col) {
            (Index::Column(r), Index::Column(c)) => r
                .iter()
                .zip(c)
                .map(|(&r, &c)| data[r as usize * cols + c as usize])
                .collect(),
            (Index::Column(r), Index::Fixed(c)) => {
                r.iter().map(|&r| data[r as usize * cols + c]).collect()
            }
            (Index::Fixed(r), Index::Column(c)) => {
                c.iter().map(|&c| data[r * cols + c as usize]).collect()
            }
            (Index::Fixed(r), Index::Fixed(c)) => vec![data[r * cols + c]; args.number_rows],
        };
        Ok(ColumnarValue::Array(Arc::new(Float64Array::from(values))))
    }
}

#[derive(Debug)]
struct RowDot {
    u: Held,
    v: Held,
    signature: Signature,
}

impl PartialEq for RowDot {
    fn eq(&self, other: &Self) -> bool {
        (self.u.id, self.v.id) == (other.u.id, other.v.id)
    }
}

impl Eq for RowDot {}

impl Hash for RowDot {
    fn hash<H: Hasher>(&self, state: &mut H) {
        (self.u.id, self.v.id).hash(state);
    }
}

impl ScalarUDFImpl for RowDot {
    fn name(&self) -> &str {
        "held_row_dot"
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _args: &[DataType]) -> DfResult<DataType> {
        Ok(DataType::Float64)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> DfResult<ColumnarValue> {
        let (u, v) = (self.u.matrix()?, self.v.matrix()?);
        let k = u.cols();
        if v.cols() != k {
            return exec_err!("held_row_dot: rows of {k} and {} columns", v.cols());
        }
        let r = index(&args.args, 0, u.rows(), "held_row_dot")?;
        let c = index(&args.args, 1, v.rows(), "held_row_dot")?;
        let (ud, vd) = (u.data(), v.data());
        let n = args.number_rows;
        let values: Vec<f64> = (0..n)
            .map(|t| {
                if t + PREFETCH_AHEAD < n {
                    prefetch_row(vd, c.at(t + PREFETCH_AHEAD) * k, k);
                }
                let (r, c) = (r.at(t) * k, c.at(t) * k);
                ud[r..r + k]
                    .iter()
                    .zip(&vd[c..c + k])
                    .map(|(a, b)| a * b)
                    .sum()
            })
            .collect();
        Ok(ColumnarValue::Array(Arc::new(Float64Array::from(values))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holdings_are_told_apart_by_id() {
        let a = Held::new(DenseMatrix::filled(2, 1, 1.0));
        let b = Held::new(DenseMatrix::filled(2, 1, 1.0));
        let i = || datafusion::logical_expr::col("i");
        assert_ne!(cell(&a, Some(i()), None), cell(&b, Some(i()), None));
        assert_eq!(cell(&a, Some(i()), None), cell(&a, Some(i()), None));
        assert_eq!(a.bytes(), 16);
    }
}
