//! Spores' plan pieces on the wire between a Ballista client, its scheduler and its
//! executors: the lookups of held operands ([`crate::broadcast`]) and folds
//! ([`DenseFoldExec`]), so that the executors hold small operands and fold small sums next
//! to the data, as the local engine does.
//!
//! [`SporesCodec`] wraps Ballista's own physical codec (its shuffle readers and writers
//! pass through to it). Every process that decodes a plan needs it: the client
//! ([`crate::ballista::Cluster`]), the scheduler and the executors (`spores ballista
//! scheduler|executor|cluster`); stock Ballista processes refuse these plans.
//!
//! The format is spores' own, little-endian: a held matrix is its origin (the making
//! process's nonce and id), its shape and its cells, or, when it is the whole of a Parquet
//! COO file (an input such as the factor `U`), the file's path instead: the executors read
//! the file themselves, as they read the large inputs, and the plans stay small (a plan
//! carrying a 10^6 x 10 factor took about 2 s more to reach its task at 10^8 non-zeros). A
//! file is read when a task's lookup first needs its cells, never by the scheduler, which
//! decodes every plan and runs none. A process decodes or reads the cells of one origin
//! once while a plan still reads them, so the tasks of a stage share one copy.
//!
//! A held matrix made on the client (the `X %*% v` of `t(X) %*% (X %*% v)`) travels the
//! same way when the client's codec has a directory the executors read
//! ([`SporesCodec::writing_to`]) and the matrix is larger than [`INLINE_BYTES`]: it is
//! written there once and removed when the client drops it. Inline, the 8 MB of a 10^6
//! vector cost about 0.2 s per job (the scheduler decodes the plan, and encodes it
//! again for each task, which decodes it).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, Weak};

use ballista_core::serde::BallistaPhysicalExtensionCodec;
use datafusion::common::{DataFusionError, Result as DfResult};
use datafusion::execution::TaskContext;
use datafusion::logical_expr::{AggregateUDF, ScalarUDF, WindowUDF};
use datafusion::physical_plan::ExecutionPlan;
use datafusion_proto::physical_plan::{PhysicalExtensionCodec, PhysicalProtoConverterExtension};
use spores_exec::DenseMatrix;

use crate::broadcast::{cell_udf, lookup, row_dot_udf, Cells, Held, Lookup};
use crate::coo::{COL, ROW};
use crate::fold::{DenseFold, Fold};
use crate::fold_exec::DenseFoldExec;

/// Names the encoding of a [`DenseFoldExec`] (Ballista's own nodes are protobuf messages,
/// which never start with these bytes: `s` would be a deprecated group field).
const FOLD_MAGIC: &[u8] = b"spores-fold/1";

/// The largest held matrix that travels inside a plan when it could travel as a file.
pub const INLINE_BYTES: usize = 1 << 20;

/// Ballista's physical codec, plus spores' lookups and folds.
#[derive(Debug, Default)]
pub struct SporesCodec {
    ballista: BallistaPhysicalExtensionCodec,
    /// Where held matrices larger than [`INLINE_BYTES`] that are no file yet are written
    /// to travel as one (the client's codec; the scheduler's and executors' have none).
    held_dir: Option<PathBuf>,
}

impl SporesCodec {
    /// A codec that writes held matrices larger than [`INLINE_BYTES`] to files in `dir`,
    /// which every executor must read at the same path, and names the files in plans.
    pub fn writing_to(dir: PathBuf) -> Self {
        SporesCodec {
            held_dir: Some(dir),
            ..SporesCodec::default()
        }
    }

    fn write_held(&self, buf: &mut Vec<u8>, held: &Held) -> DfResult<()> {
        if let Some(dir) = &self.held_dir {
            if held.file().is_none() && held.bytes() > INLINE_BYTES {
                // Inline still works: a directory that cannot be written only costs time.
                if let Err(e) = held.write_to(dir) {
                    log::warn!(
                        "a {}x{} held matrix travels inside the plan, which is slower ({e}; \
                         `held_dir=DIR` in the engine's address names a directory every \
                         executor reads)",
                        held.rows(),
                        held.cols()
                    );
                }
            }
        }
        write_held(buf, held)
    }

    fn write_fold(&self, buf: &mut Vec<u8>, fold: &DenseFold) -> DfResult<()> {
        for n in [fold.rows, fold.cols, fold.stream_rows, fold.stream_cols] {
            write_u64(buf, n as u64);
        }
        match &fold.fold {
            Fold::Cells => buf.push(0),
            Fold::Product {
                factor,
                outer,
                inner,
            } => {
                buf.push(1);
                buf.push(index_code(*outer));
                buf.push(index_code(Some(inner)));
                self.write_held(buf, factor)?;
            }
        }
        Ok(())
    }
}

fn wire_error(what: impl std::fmt::Display) -> DataFusionError {
    DataFusionError::Internal(format!("spores codec: {what}"))
}

impl PhysicalExtensionCodec for SporesCodec {
    fn try_decode(
        &self,
        buf: &[u8],
        inputs: &[Arc<dyn ExecutionPlan>],
        ctx: &TaskContext,
        proto_converter: &dyn PhysicalProtoConverterExtension,
    ) -> DfResult<Arc<dyn ExecutionPlan>> {
        let Some(rest) = buf.strip_prefix(FOLD_MAGIC) else {
            return self.ballista.try_decode(buf, inputs, ctx, proto_converter);
        };
        let [input] = inputs else {
            return Err(wire_error(format!(
                "a fold has one input, not {}",
                inputs.len()
            )));
        };
        let mut reader = Reader(rest);
        let fold = reader.fold()?;
        reader.end()?;
        Ok(Arc::new(DenseFoldExec::new(input.clone(), fold)))
    }

    fn try_encode(
        &self,
        node: Arc<dyn ExecutionPlan>,
        buf: &mut Vec<u8>,
        proto_converter: &dyn PhysicalProtoConverterExtension,
    ) -> DfResult<()> {
        let Some(exec) = node.downcast_ref::<DenseFoldExec>() else {
            return self.ballista.try_encode(node, buf, proto_converter);
        };
        buf.extend_from_slice(FOLD_MAGIC);
        self.write_fold(buf, exec.fold())
    }

    fn try_decode_udf(&self, name: &str, buf: &[u8]) -> DfResult<Arc<ScalarUDF>> {
        let mut reader = Reader(buf);
        let udf = match name {
            "held_cell" => {
                let (has_row, has_col) = (reader.flag()?, reader.flag()?);
                cell_udf(reader.held()?, has_row, has_col)
            }
            "held_row_dot" => {
                let u = reader.held()?;
                row_dot_udf(u, reader.held()?)
            }
            _ => return self.ballista.try_decode_udf(name, buf),
        };
        reader.end()?;
        Ok(Arc::new(udf))
    }

    fn try_encode_udf(&self, node: &ScalarUDF, buf: &mut Vec<u8>) -> DfResult<()> {
        match lookup(node) {
            Some(Lookup::Cell {
                held,
                has_row,
                has_col,
            }) => {
                buf.push(u8::from(has_row));
                buf.push(u8::from(has_col));
                self.write_held(buf, held)?;
            }
            Some(Lookup::RowDot { u, v }) => {
                self.write_held(buf, u)?;
                self.write_held(buf, v)?;
            }
            None => return self.ballista.try_encode_udf(node, buf),
        }
        Ok(())
    }

    fn try_decode_udaf(&self, name: &str, buf: &[u8]) -> DfResult<Arc<AggregateUDF>> {
        self.ballista.try_decode_udaf(name, buf)
    }

    fn try_encode_udaf(&self, node: &AggregateUDF, buf: &mut Vec<u8>) -> DfResult<()> {
        self.ballista.try_encode_udaf(node, buf)
    }

    fn try_decode_udwf(&self, name: &str, buf: &[u8]) -> DfResult<Arc<WindowUDF>> {
        self.ballista.try_decode_udwf(name, buf)
    }

    fn try_encode_udwf(&self, node: &WindowUDF, buf: &mut Vec<u8>) -> DfResult<()> {
        self.ballista.try_encode_udwf(node, buf)
    }
}

fn write_u64(buf: &mut Vec<u8>, x: u64) {
    buf.extend_from_slice(&x.to_le_bytes());
}

/// How a held matrix's cells travel: inline, or as the path of the file they are.
const CELLS_INLINE: u8 = 0;
const CELLS_IN_FILE: u8 = 1;

fn write_held(buf: &mut Vec<u8>, held: &Held) -> DfResult<()> {
    let (nonce, id) = held.origin();
    write_u64(buf, nonce);
    write_u64(buf, id);
    write_u64(buf, held.rows() as u64);
    write_u64(buf, held.cols() as u64);
    if let Some(path) = held.file().and_then(|p| p.to_str()) {
        buf.push(CELLS_IN_FILE);
        write_u64(buf, path.len() as u64);
        buf.extend_from_slice(path.as_bytes());
        return Ok(());
    }
    let m = held.matrix().map_err(wire_error)?;
    buf.push(CELLS_INLINE);
    buf.reserve(8 * m.data().len());
    for x in m.data() {
        buf.extend_from_slice(&x.to_le_bytes());
    }
    Ok(())
}

/// An index column of a fold on the wire: 0 none, 1 `i`, 2 `j`.
fn index_code(name: Option<&str>) -> u8 {
    match name {
        None => 0,
        Some(n) if n == ROW => 1,
        Some(_) => 2,
    }
}

/// The holdings a process decoded, by origin, while a plan still reads them.
type Decoded = Mutex<HashMap<(u64, u64), Weak<Cells>>>;

fn decoded() -> &'static Decoded {
    static DECODED: std::sync::OnceLock<Decoded> = std::sync::OnceLock::new();
    DECODED.get_or_init(Default::default)
}

/// Reads the format [`SporesCodec`] writes.
struct Reader<'a>(&'a [u8]);

impl Reader<'_> {
    fn take(&mut self, n: usize) -> DfResult<&[u8]> {
        if self.0.len() < n {
            return Err(wire_error(format!(
                "{} bytes short of a plan piece",
                n - self.0.len()
            )));
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Ok(head)
    }

    fn u64(&mut self) -> DfResult<u64> {
        let bytes = self.take(8)?;
        Ok(u64::from_le_bytes(bytes.try_into().expect("8 bytes")))
    }

    fn size(&mut self) -> DfResult<usize> {
        let n = self.u64()?;
        usize::try_from(n).map_err(|_| wire_error(format!("size {n} too large")))
    }

    fn byte(&mut self) -> DfResult<u8> {
        Ok(self.take(1)?[0])
    }

    fn flag(&mut self) -> DfResult<bool> {
        match self.byte()? {
            0 => Ok(false),
            1 => Ok(true),
            b => Err(wire_error(format!("{b} is not a flag"))),
        }
    }

    fn index(&mut self) -> DfResult<Option<&'static str>> {
        match self.byte()? {
            0 => Ok(None),
            1 => Ok(Some(ROW)),
            2 => Ok(Some(COL)),
            b => Err(wire_error(format!("{b} is not an index column"))),
        }
    }

    fn held(&mut self) -> DfResult<Held> {
        let origin = (self.u64()?, self.u64()?);
        let (rows, cols) = (self.size()?, self.size()?);
        let file: Option<Arc<Path>> = match self.byte()? {
            CELLS_INLINE => None,
            CELLS_IN_FILE => {
                let n = self.size()?;
                let path = std::str::from_utf8(self.take(n)?)
                    .map_err(|e| wire_error(format!("a file name that is not UTF-8: {e}")))?;
                Some(Arc::from(Path::new(path)))
            }
            b => return Err(wire_error(format!("{b} is not a way cells travel"))),
        };
        let cells = match &file {
            None => Some(
                rows.checked_mul(cols)
                    .and_then(|n| n.checked_mul(8))
                    .ok_or_else(|| wire_error(format!("a {rows}x{cols} matrix is too large")))
                    .and_then(|n| self.take(n))?,
            ),
            Some(_) => None,
        };
        let mut cache = decoded()
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(shared) = cache.get(&origin).and_then(Weak::upgrade) {
            if (shared.rows(), shared.cols()) == (rows, cols) {
                return Ok(Held::decoded(origin, shared));
            }
        }
        // A file is read by the first lookup that needs its cells, not here: the
        // scheduler decodes every plan and never reads a held input.
        let cells = match (cells, file) {
            (Some(bytes), _) => {
                let data = bytes
                    .chunks_exact(8)
                    .map(|c| f64::from_le_bytes(c.try_into().expect("8 bytes")))
                    .collect();
                Cells::in_memory(
                    DenseMatrix::from_vec(rows, cols, data).map_err(wire_error)?,
                    None,
                )
            }
            (None, Some(path)) => Cells::in_file(rows, cols, path),
            (None, None) => unreachable!("cells travel inline or in a file"),
        };
        let held = Held::decoded(origin, Arc::new(cells));
        cache.retain(|_, w| w.strong_count() > 0);
        cache.insert(origin, held.weak());
        Ok(held)
    }

    fn fold(&mut self) -> DfResult<DenseFold> {
        let (rows, cols) = (self.size()?, self.size()?);
        let stream = (self.size()?, self.size()?);
        match self.byte()? {
            0 => Ok(DenseFold {
                stream_rows: stream.0,
                stream_cols: stream.1,
                ..DenseFold::cells(rows, cols)
            }),
            1 => {
                let outer = self.index()?;
                let inner = self
                    .index()?
                    .ok_or_else(|| wire_error("a product fold without an inner index"))?;
                let factor = self.held()?;
                Ok(DenseFold::product(
                    (rows, cols),
                    stream,
                    factor,
                    outer,
                    inner,
                ))
            }
            b => Err(wire_error(format!("{b} is not a kind of fold"))),
        }
    }

    fn end(&self) -> DfResult<()> {
        match self.0.len() {
            0 => Ok(()),
            n => Err(wire_error(format!("{n} bytes left after a plan piece"))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::logical_expr::col;
    use datafusion::physical_plan::empty::EmptyExec;
    use datafusion::physical_plan::ExecutionPlanProperties;
    use datafusion_proto::physical_plan::DefaultPhysicalProtoConverter;
    use spores_exec::io::parquet_coo;
    use spores_exec::Matrix;

    fn udf_of(e: &datafusion::logical_expr::Expr) -> Arc<ScalarUDF> {
        match e {
            datafusion::logical_expr::Expr::ScalarFunction(f) => f.func.clone(),
            other => panic!("not a function call: {other}"),
        }
    }

    /// The lookup `held[i, j]` and its encoding.
    fn encoded_cell(held: &Held) -> (Arc<ScalarUDF>, Vec<u8>) {
        let udf = udf_of(&crate::broadcast::cell(
            held,
            Some(col("i")),
            Some(col("j")),
        ));
        let mut buf = Vec::new();
        SporesCodec::default()
            .try_encode_udf(&udf, &mut buf)
            .unwrap();
        (udf, buf)
    }

    #[test]
    fn a_lookup_travels_with_its_cells_and_is_decoded_once() {
        let m = DenseMatrix::from_vec(2, 3, vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
        let held = Held::new(m.clone());
        let (_udf, buf) = encoded_cell(&held);
        let codec = SporesCodec::default();
        let first = codec.try_decode_udf("held_cell", &buf).unwrap();
        let second = codec.try_decode_udf("held_cell", &buf).unwrap();
        let Some(Lookup::Cell {
            held: a,
            has_row: true,
            has_col: true,
        }) = lookup(&first)
        else {
            panic!("not a cell lookup");
        };
        let Some(Lookup::Cell { held: b, .. }) = lookup(&second) else {
            panic!("not a cell lookup");
        };
        assert_eq!(a.matrix().unwrap().data(), m.data());
        assert!(Arc::ptr_eq(a.shared(), b.shared()), "decoded twice");
    }

    #[test]
    fn a_row_dot_round_trips() {
        let u = Held::new(DenseMatrix::filled(3, 2, 1.5));
        let v = Held::new(DenseMatrix::filled(4, 2, 2.0));
        let udf = udf_of(&crate::broadcast::row_dot(&u, &v, col("i"), col("j")));
        let codec = SporesCodec::default();
        let mut buf = Vec::new();
        codec.try_encode_udf(&udf, &mut buf).unwrap();
        let decoded = codec.try_decode_udf("held_row_dot", &buf).unwrap();
        let Some(Lookup::RowDot { u: du, v: dv }) = lookup(&decoded) else {
            panic!("not a row dot");
        };
        assert_eq!((du.rows(), du.cols(), dv.rows()), (3, 2, 4));
        assert_eq!(dv.matrix().unwrap().data(), &[2.0; 8]);
    }

    #[test]
    fn a_fold_round_trips_over_its_input() {
        let factor = Held::new(DenseMatrix::filled(3, 2, 0.5));
        let fold = DenseFold::product((2, 2), (2, 3), factor, Some(ROW), COL);
        let input: Arc<dyn ExecutionPlan> =
            Arc::new(EmptyExec::new(crate::coo::schema(2, 3)).with_partitions(2));
        let exec: Arc<dyn ExecutionPlan> = Arc::new(DenseFoldExec::new(input.clone(), fold));
        let codec = SporesCodec::default();
        let converter = DefaultPhysicalProtoConverter {};
        let mut buf = Vec::new();
        codec.try_encode(exec, &mut buf, &converter).unwrap();
        let ctx = TaskContext::default();
        let plan = codec.try_decode(&buf, &[input], &ctx, &converter).unwrap();
        assert_eq!(plan.output_partitioning().partition_count(), 2);
        let decoded = plan.downcast_ref::<DenseFoldExec>().expect("a fold");
        let fold = decoded.fold();
        assert_eq!(
            (fold.rows, fold.cols, fold.stream_rows, fold.stream_cols),
            (2, 2, 2, 3)
        );
        let Fold::Product {
            factor,
            outer,
            inner,
        } = &fold.fold
        else {
            panic!("not a product");
        };
        assert_eq!((*outer, *inner), (Some(ROW), COL));
        assert_eq!(factor.matrix().unwrap().data(), &[0.5; 6]);
    }

    #[test]
    fn a_held_file_travels_as_its_path() {
        let m = DenseMatrix::from_vec(2, 2, vec![1.0, 0.0, 3.0, 4.0]).unwrap();
        let dir = std::env::temp_dir().join(format!("spores-codec-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("u.parquet");
        parquet_coo::write(&Matrix::Dense(m.clone()), &path).unwrap();
        let held = Held::of_file(m.clone(), &path);
        let (udf, buf) = encoded_cell(&held);
        let codec = SporesCodec::default();
        assert!(buf.len() < 100, "the cells travelled: {} bytes", buf.len());
        // Decoded where no plan holds the origin any more: read from the file.
        drop((udf, held));
        let decoded = codec.try_decode_udf("held_cell", &buf).unwrap();
        let Some(Lookup::Cell { held, .. }) = lookup(&decoded) else {
            panic!("not a cell lookup");
        };
        // Read by the first lookup that needs the cells, not by decoding (a scheduler
        // decodes every plan and runs none).
        assert!(!held.is_read(), "decoding read the file");
        assert_eq!(held.matrix().unwrap().data(), m.data());
        assert!(held.is_read());
        // A file changed under the plan is an error naming it, not a wrong answer.
        let wider = DenseMatrix::filled(2, 3, 1.0);
        parquet_coo::write(&Matrix::Dense(wider), &path).unwrap();
        drop(decoded);
        let decoded = codec.try_decode_udf("held_cell", &buf).unwrap();
        let Some(Lookup::Cell { held, .. }) = lookup(&decoded) else {
            panic!("not a cell lookup");
        };
        let err = held.matrix().unwrap_err().to_string();
        assert!(err.contains("u.parquet is 2x3 here, 2x2 where"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// The lookup `held[i]` of a column, encoded by `codec`.
    fn encoded_column(held: &Held, codec: &SporesCodec) -> (Arc<ScalarUDF>, Vec<u8>) {
        let udf = udf_of(&crate::broadcast::cell(held, Some(col("i")), None));
        let mut buf = Vec::new();
        codec.try_encode_udf(&udf, &mut buf).unwrap();
        (udf, buf)
    }

    /// A column larger than [`INLINE_BYTES`], and an empty directory named for `test`.
    fn large_column_and_dir(test: &str) -> (DenseMatrix, std::path::PathBuf) {
        let rows = INLINE_BYTES / 8 + 3;
        let m =
            DenseMatrix::from_vec(rows, 1, (0..rows).map(|r| r as f64 - 7.5).collect()).unwrap();
        let dir = std::env::temp_dir().join(format!("spores-codec-{test}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        (m, dir)
    }

    /// A held matrix made here, larger than [`INLINE_BYTES`], travels as a file the
    /// client's codec writes; the file goes when the last holder drops the cells; a
    /// small matrix, or one whose directory cannot be written, travels inline.
    #[test]
    fn a_large_held_matrix_travels_as_a_file_the_client_removes() {
        let (m, dir) = large_column_and_dir("held");
        let writer = SporesCodec::writing_to(dir.clone());
        let listing = || -> Vec<_> {
            std::fs::read_dir(&dir)
                .unwrap()
                .map(|e| e.unwrap().path())
                .collect()
        };
        let held = Held::new(m.clone());
        let (udf, buf) = encoded_column(&held, &writer);
        assert!(buf.len() < 200, "the cells travelled: {} bytes", buf.len());
        let written = listing();
        assert_eq!(written.len(), 1, "{written:?}");
        assert_eq!(held.file(), Some(written[0].as_path()));
        // A second encoding (a plan run again) names the same file.
        assert_eq!(encoded_column(&held, &writer).1, buf);
        assert_eq!(listing().len(), 1);
        drop((udf, held));
        assert!(listing().is_empty(), "the file outlived its cells");

        let small = Held::new(DenseMatrix::filled(3, 1, 2.0));
        let inline = encoded_column(&small, &SporesCodec::default()).1;
        assert_eq!(encoded_column(&small, &writer).1, inline);
        assert!(listing().is_empty());

        let held = Held::new(m.clone());
        let (udf, inline) = encoded_column(&held, &SporesCodec::writing_to(dir.join("missing")));
        assert!(inline.len() > INLINE_BYTES, "{} bytes", inline.len());
        assert_eq!(held.file(), None);
        drop((udf, held));
        let decoded = SporesCodec::default()
            .try_decode_udf("held_cell", &inline)
            .unwrap();
        let Some(Lookup::Cell { held, .. }) = lookup(&decoded) else {
            panic!("not a cell lookup");
        };
        assert_eq!(held.matrix().unwrap().data(), m.data());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// The file of a written held matrix holds its cells, and a decoded plan names it.
    #[test]
    fn a_written_held_matrix_is_read_back_by_a_decoder() {
        let (m, dir) = large_column_and_dir("read");
        let held = Held::new(m.clone());
        let (udf, buf) = encoded_column(&held, &SporesCodec::writing_to(dir.clone()));
        let path = held.file().unwrap().to_path_buf();
        // Decoding in this process shares the client's cells by origin: read the file as
        // another process does.
        assert_eq!(parquet_coo::read_dense(&path).unwrap().data(), m.data());
        let decoded = SporesCodec::default()
            .try_decode_udf("held_cell", &buf)
            .unwrap();
        let Some(Lookup::Cell { held: other, .. }) = lookup(&decoded) else {
            panic!("not a cell lookup");
        };
        assert_eq!(other.file(), Some(path.as_path()));
        drop(decoded);
        drop((udf, held));
        assert!(!path.exists(), "{} outlived its cells", path.display());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_truncated_piece_is_an_error() {
        let held = Held::new(DenseMatrix::filled(2, 2, 1.0));
        let (_, mut buf) = encoded_cell(&held);
        let codec = SporesCodec::default();
        buf.truncate(buf.len() - 3);
        let err = codec.try_decode_udf("held_cell", &buf).unwrap_err();
        assert!(err.to_string().contains("bytes short"), "{err}");
    }
}
