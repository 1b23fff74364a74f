//! Where a leaf's tuples come from: a matrix in memory, or a Parquet COO file that
//! DataFusion scans row group by row group, so that an input larger than memory is never
//! held whole.
//!
//! A file is one [`StreamingTable`] with a partition per worker; partition `p` reads the
//! row groups `p, p + P, ...` through [`CooFile::read_group`], which checks every cell
//! against the file's shape. A file that does not promise each cell once
//! ([`CooFile::unique_cells`]) is summed by cell first, as Matrix Market duplicates are.
//!
//! That scan is a plan node only this process can run. A plan sent to a Ballista cluster
//! scans the file with DataFusion's own Parquet reader instead ([`FileScan::Parquet`]),
//! which every executor can decode: by its absolute path, so the file must be visible to
//! the executors at that path. That reader does not check indices against the shape; a
//! result cell outside it is refused when the result is read back.

use std::borrow::Borrow;
use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, Float64Array, Int64Array};
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::catalog::streaming::StreamingTable;
use datafusion::catalog::TableProvider;
use datafusion::datasource::MemTable;
use datafusion::error::DataFusionError;
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::streaming::PartitionStream;
use spores_exec::io::parquet_coo::{CooCells, CooFile};
use spores_exec::Matrix;

use crate::broadcast::Held;
use crate::coo;
use crate::error::DistError;

/// How a Parquet COO file input is scanned.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FileScan {
    /// Row group by row group through [`CooFile`], every cell checked against the shape.
    #[default]
    RowGroups,
    /// DataFusion's Parquet scan of the file's absolute path, split in byte ranges: a
    /// plan node that remote executors decode (builds with the `ballista` feature).
    #[cfg(feature = "ballista")]
    Parquet,
}

/// A leaf of a lowered plan.
#[derive(Clone, Debug)]
pub enum Input {
    Matrix(Arc<Matrix>),
    File(Arc<CooFile>),
}

impl From<Matrix> for Input {
    fn from(m: Matrix) -> Self {
        Input::Matrix(Arc::new(m))
    }
}

impl From<Arc<Matrix>> for Input {
    fn from(m: Arc<Matrix>) -> Self {
        Input::Matrix(m)
    }
}

impl From<CooFile> for Input {
    fn from(f: CooFile) -> Self {
        Input::File(Arc::new(f))
    }
}

/// A value the lowering can scan: a matrix (owned, shared or borrowed) or an [`Input`].
pub trait Leaf {
    fn leaf(&self) -> LeafRef<'_>;
}

/// A borrowed [`Input`].
#[derive(Clone, Copy, Debug)]
pub enum LeafRef<'a> {
    Matrix(&'a Matrix),
    File(&'a CooFile),
}

impl<M: Borrow<Matrix>> Leaf for M {
    fn leaf(&self) -> LeafRef<'_> {
        LeafRef::Matrix(self.borrow())
    }
}

impl Leaf for Input {
    fn leaf(&self) -> LeafRef<'_> {
        match self {
            Input::Matrix(m) => LeafRef::Matrix(m),
            Input::File(f) => LeafRef::File(f),
        }
    }
}

impl LeafRef<'_> {
    /// Rows and columns.
    pub fn shape(self) -> (usize, usize) {
        match self {
            LeafRef::Matrix(m) => (m.rows(), m.cols()),
            LeafRef::File(f) => (f.rows(), f.cols()),
        }
    }

    /// The table of the leaf's non-zero cells, in [`coo::schema`]'s columns, and whether
    /// a cell may appear more than once (then its tuples are to be summed).
    pub fn table(
        self,
        partitions: usize,
        scan: FileScan,
    ) -> Result<(Arc<dyn TableProvider>, bool), DistError> {
        match self {
            #[cfg(feature = "ballista")]
            LeafRef::File(f) if scan == FileScan::Parquet => {
                Ok((parquet_table(f)?, !f.unique_cells()))
            }
            LeafRef::Matrix(m) => {
                let batch = coo::to_batch(m)?;
                let table = MemTable::try_new(batch.schema(), vec![vec![batch]])?;
                Ok((Arc::new(table), false))
            }
            LeafRef::File(f) => {
                let _ = scan;
                let file = Arc::new(f.clone());
                let schema = coo::schema(f.rows(), f.cols());
                let count = partitions.clamp(1, f.row_groups().max(1));
                let streams = (0..count)
                    .map(|first| {
                        Arc::new(RowGroups {
                            file: file.clone(),
                            schema: schema.clone(),
                            first,
                            step: count,
                        }) as Arc<dyn PartitionStream>
                    })
                    .collect();
                let table = StreamingTable::try_new(schema, streams)?;
                Ok((Arc::new(table), !f.unique_cells()))
            }
        }
    }
}

/// DataFusion's listing table of one Parquet file, with [`coo::schema`]'s columns (the
/// file's other columns are not read; INT32 indices and FLOAT values are cast).
#[cfg(feature = "ballista")]
fn parquet_table(f: &CooFile) -> Result<Arc<dyn TableProvider>, DistError> {
    use datafusion::datasource::file_format::parquet::ParquetFormat;
    use datafusion::datasource::listing::{
        ListingOptions, ListingTable, ListingTableConfig, ListingTableUrl,
    };
    let path = std::path::absolute(f.path())
        .map_err(|e| DistError::Plan(format!("{}: no absolute path: {e}", f.path().display())))?;
    let text = path
        .to_str()
        .ok_or_else(|| DistError::Plan(format!("{}: the path is not UTF-8", path.display())))?;
    let url = ListingTableUrl::parse(text)?;
    let options = ListingOptions::new(Arc::new(ParquetFormat::default())).with_file_extension(
        path.extension()
            .map_or(String::new(), |e| format!(".{}", e.to_string_lossy())),
    );
    let config = ListingTableConfig::new(url)
        .with_listing_options(options)
        .with_schema(coo::schema(f.rows(), f.cols()));
    Ok(Arc::new(ListingTable::try_new(config)?))
}

/// One partition of a file's scan: row groups `first, first + step, ...`.
#[derive(Debug)]
struct RowGroups {
    file: Arc<CooFile>,
    schema: SchemaRef,
    first: usize,
    step: usize,
}

impl PartitionStream for RowGroups {
    fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    fn execute(&self, _ctx: Arc<TaskContext>) -> SendableRecordBatchStream {
        let file = self.file.clone();
        let schema = self.schema.clone();
        let groups = (self.first..file.row_groups()).step_by(self.step);
        let batches = groups.map(move |g| {
            let cells = file
                .read_group(g)
                .map_err(|e| DataFusionError::External(Box::new(e)))?;
            to_batch(cells, &schema, file.rows(), file.cols())
        });
        Box::pin(RecordBatchStreamAdapter::new(
            self.schema.clone(),
            futures::stream::iter(batches),
        ))
    }
}

/// The table of a held matrix's non-zero cells, made a batch at a time as it is scanned
/// (a held result of 10^7 cells is not copied into tuples whole).
///
/// A plan for a Ballista cluster ([`FileScan::Parquet`]) carries the cells instead, as a
/// table in memory that the executors decode ([`HeldOnCluster`]).
pub fn held_table(held: &Held, scan: FileScan) -> Result<Arc<dyn TableProvider>, DistError> {
    #[cfg(feature = "ballista")]
    if scan == FileScan::Parquet {
        return Ok(Arc::new(HeldOnCluster {
            held: held.clone(),
            schema: coo::schema(held.rows(), held.cols()),
        }));
    }
    let _ = scan;
    let schema = coo::schema(held.rows(), held.cols());
    let stream = Arc::new(HeldCells {
        held: held.clone(),
        schema: schema.clone(),
    }) as Arc<dyn PartitionStream>;
    Ok(Arc::new(StreamingTable::try_new(schema, vec![stream])?))
}

/// A held matrix in a plan for a Ballista cluster: its cells become a table in memory,
/// which the plan carries to the executors, only when a plan that reads it is planned.
/// Most held results are used on the client alone (an ALS step's `U %*% G - X %*% V`
/// from two held products): made eagerly, each was copied into 24-byte tuples for
/// nothing, 1.9 GB of fresh memory at 10^7 cells.
#[cfg(feature = "ballista")]
#[derive(Debug)]
struct HeldOnCluster {
    held: Held,
    schema: SchemaRef,
}

#[cfg(feature = "ballista")]
#[async_trait::async_trait]
impl TableProvider for HeldOnCluster {
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    fn table_type(&self) -> datafusion::datasource::TableType {
        datafusion::datasource::TableType::Base
    }

    async fn scan(
        &self,
        state: &dyn datafusion::catalog::Session,
        projection: Option<&Vec<usize>>,
        filters: &[datafusion::prelude::Expr],
        limit: Option<usize>,
    ) -> datafusion::error::Result<Arc<dyn datafusion::physical_plan::ExecutionPlan>> {
        let batch = coo::to_batch(self.held.as_matrix()?)?;
        MemTable::try_new(self.schema.clone(), vec![vec![batch]])?
            .scan(state, projection, filters, limit)
            .await
    }
}

/// The one partition of a held matrix's scan.
#[derive(Debug)]
struct HeldCells {
    held: Held,
    schema: SchemaRef,
}

/// Cells per batch of a held matrix's scan.
const HELD_BATCH_CELLS: usize = 1 << 16;

impl PartitionStream for HeldCells {
    fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    fn execute(&self, _ctx: Arc<TaskContext>) -> SendableRecordBatchStream {
        let (held, schema) = (self.held.clone(), self.schema.clone());
        let (rows, cols) = (held.rows(), held.cols());
        let rows_per_batch = (HELD_BATCH_CELLS / cols.max(1)).max(1);
        let batches = (0..rows).step_by(rows_per_batch).map(move |first| {
            let last = (first + rows_per_batch).min(rows);
            let matrix = held.matrix()?;
            let mut cells = CooCells::default();
            for i in first..last {
                for (j, &v) in matrix.row(i).iter().enumerate() {
                    if v != 0.0 {
                        cells.i.push(i as i64);
                        cells.j.push(j as i64);
                        cells.v.push(v);
                    }
                }
            }
            to_batch(cells, &schema, rows, cols)
        });
        Box::pin(RecordBatchStreamAdapter::new(
            self.schema.clone(),
            futures::stream::iter(batches),
        ))
    }
}

/// A row group's cells as a batch of `schema` (no index column for a dimension of 1).
fn to_batch(
    cells: CooCells,
    schema: &SchemaRef,
    rows: usize,
    cols: usize,
) -> Result<RecordBatch, DataFusionError> {
    let mut columns: Vec<ArrayRef> = Vec::with_capacity(3);
    if rows != 1 {
        columns.push(Arc::new(Int64Array::from(cells.i)));
    }
    if cols != 1 {
        columns.push(Arc::new(Int64Array::from(cells.j)));
    }
    columns.push(Arc::new(Float64Array::from(cells.v)));
    Ok(RecordBatch::try_new(schema.clone(), columns)?)
}
