//! Where a leaf's tuples come from: a matrix in memory, or a Parquet COO file that
//! DataFusion scans row group by row group, so that an input larger than memory is never
//! held whole.
//!
//! A file is one [`StreamingTable`] with a partition per worker; partition `p` reads the
//! row groups `p, p + P, ...` through [`CooFile::read_group`], which checks every cell
//! against the file's shape. A file that does not promise each cell once
//! ([`CooFile::unique_cells`]) is summed by cell first, as Matrix Market duplicates are.

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

use crate::coo;
use crate::error::DistError;

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
    pub fn table(self, partitions: usize) -> Result<(Arc<dyn TableProvider>, bool), DistError> {
        match self {
            LeafRef::Matrix(m) => {
                let batch = coo::to_batch(m)?;
                let table = MemTable::try_new(batch.schema(), vec![vec![batch]])?;
                Ok((Arc::new(table), false))
            }
            LeafRef::File(f) => {
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
