//! A fold ([`crate::fold`]) as a plan node, so that a Ballista executor sums the stream
//! it reads next to the data and only the small array travels.
//!
//! [`DenseFoldExec`] reads each partition of its input to the end, adds its tuples into a
//! dense array of the fold's shape and emits that array's rows that are not all zero
//! ([`schema`]: the row's index `i` and its cells as one fixed-size list `row`: 88 bytes a
//! row of 10 cells, against 240 as `(i, j, v)` tuples). The partitions' arrays are partial
//! sums: whoever collects them adds the rows up ([`add_rows`]). The node is encoded for
//! the cluster by [`crate::codec`].

use std::fmt;
use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, FixedSizeListArray, Float64Array, Int64Array};
use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::common::{internal_err, DataFusionError, Result as DfResult};
use datafusion::execution::memory_pool::MemoryConsumer;
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_expr::{EquivalenceProperties, PhysicalExpr};
use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType};
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, ExecutionPlanProperties, Partitioning,
    PlanProperties,
};
use futures::StreamExt;

use crate::error::DistError;
use crate::fold::DenseFold;

/// Name of the column of a row's cells.
const CELLS: &str = "row";

/// The columns of a fold's output rows: `i` and `row`, `cols` cells.
pub fn schema(cols: usize) -> SchemaRef {
    let cell = Arc::new(Field::new_list_field(DataType::Float64, false));
    Arc::new(Schema::new(vec![
        Field::new(crate::coo::ROW, DataType::Int64, false),
        Field::new(CELLS, DataType::FixedSizeList(cell, cols as i32), false),
    ]))
}

/// Rows of a partial array per emitted batch (5.6 MB at 10 cells a row): the collector
/// adds a batch and frees it before the next arrives, instead of holding a whole partial.
const ROWS_PER_BATCH: usize = 1 << 16;

/// The rows of the `rows x cols` array `acc` that are not all zero, in batches of at most
/// [`ROWS_PER_BATCH`]. A batch of consecutive rows is a slice of `acc`, not a copy.
fn to_rows(acc: Vec<f64>, cols: usize) -> Result<Vec<RecordBatch>, DistError> {
    let cols = cols.max(1);
    let cell = Arc::new(Field::new_list_field(DataType::Float64, false));
    let all = FixedSizeListArray::try_new(
        cell.clone(),
        cols as i32,
        Arc::new(Float64Array::from(acc)),
        None,
    )?;
    let values = all.values().as_any().downcast_ref::<Float64Array>();
    let cells = values.map_or(&[][..], |v| v.values());
    let kept: Vec<usize> = cells
        .chunks(cols)
        .enumerate()
        .filter(|(_, row)| row.iter().any(|&x| x != 0.0))
        .map(|(i, _)| i)
        .collect();
    let mut batches = Vec::with_capacity(kept.len().div_ceil(ROWS_PER_BATCH));
    for rows in kept.chunks(ROWS_PER_BATCH) {
        let (first, last) = (rows[0], rows[rows.len() - 1]);
        let slice: ArrayRef = if last - first + 1 == rows.len() {
            Arc::new(all.slice(first, rows.len()))
        } else {
            let gathered = rows
                .iter()
                .flat_map(|&i| cells[i * cols..(i + 1) * cols].iter().copied());
            let values = Arc::new(Float64Array::from_iter_values(gathered));
            Arc::new(FixedSizeListArray::try_new(
                cell.clone(),
                cols as i32,
                values,
                None,
            )?)
        };
        let index = Int64Array::from_iter_values(rows.iter().map(|&i| i as i64));
        batches.push(RecordBatch::try_new(
            schema(cols),
            vec![Arc::new(index), slice],
        )?);
    }
    Ok(batches)
}

/// Adds the rows of `batch` (of [`schema`]`(cols)`) into the row-major array `acc`.
pub fn add_rows(batch: &RecordBatch, acc: &mut [f64], cols: usize) -> Result<(), DistError> {
    let bad = || DistError::Result("a folded array's rows are not (i, row)".into());
    let index = batch
        .column(0)
        .as_any()
        .downcast_ref::<Int64Array>()
        .ok_or_else(bad)?;
    let rows = batch
        .column(1)
        .as_any()
        .downcast_ref::<FixedSizeListArray>()
        .ok_or_else(bad)?;
    if rows.value_length() as usize != cols {
        return Err(bad());
    }
    let cells = rows
        .values()
        .as_any()
        .downcast_ref::<Float64Array>()
        .ok_or_else(bad)?;
    let first = rows.offset() * cols;
    let cells = &cells.values()[first..first + rows.len() * cols];
    let height = acc.len() / cols.max(1);
    for (k, &i) in index.values().iter().enumerate() {
        if i < 0 || i as usize >= height {
            return Err(DistError::Result(format!("row {i} outside 0..{height}")));
        }
        let at = i as usize * cols;
        acc[at..at + cols]
            .iter_mut()
            .zip(&cells[k * cols..(k + 1) * cols])
            .for_each(|(a, x)| *a += x);
    }
    Ok(())
}

/// Folds each partition of `input` into a dense array and emits its non-zero cells.
#[derive(Debug)]
pub struct DenseFoldExec {
    input: Arc<dyn ExecutionPlan>,
    fold: DenseFold,
    properties: Arc<PlanProperties>,
}

impl DenseFoldExec {
    pub fn new(input: Arc<dyn ExecutionPlan>, fold: DenseFold) -> Self {
        let partitions = input.output_partitioning().partition_count();
        let properties = PlanProperties::new(
            EquivalenceProperties::new(schema(fold.cols)),
            Partitioning::UnknownPartitioning(partitions),
            EmissionType::Final,
            Boundedness::Bounded,
        );
        DenseFoldExec {
            input,
            fold,
            properties: Arc::new(properties),
        }
    }

    pub fn fold(&self) -> &DenseFold {
        &self.fold
    }

    pub fn input(&self) -> &Arc<dyn ExecutionPlan> {
        &self.input
    }
}

impl DisplayAs for DenseFoldExec {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        write!(
            f,
            "DenseFoldExec: into a {}x{} array per partition",
            self.fold.rows, self.fold.cols
        )
    }
}

impl ExecutionPlan for DenseFoldExec {
    fn name(&self) -> &str {
        "DenseFoldExec"
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        &self.properties
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        vec![&self.input]
    }

    fn apply_expressions(
        &self,
        _f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> DfResult<TreeNodeRecursion>,
    ) -> DfResult<TreeNodeRecursion> {
        Ok(TreeNodeRecursion::Continue)
    }

    fn with_new_children(
        self: Arc<Self>,
        children: Vec<Arc<dyn ExecutionPlan>>,
    ) -> DfResult<Arc<dyn ExecutionPlan>> {
        match <[_; 1]>::try_from(children) {
            Ok([input]) => Ok(Arc::new(DenseFoldExec::new(input, self.fold.clone()))),
            Err(children) => internal_err!("DenseFoldExec has one input, not {}", children.len()),
        }
    }

    fn execute(
        &self,
        partition: usize,
        context: Arc<TaskContext>,
    ) -> DfResult<SendableRecordBatchStream> {
        // The array comes out of the executor's memory pool: a fold too large for it is
        // an error naming the pool, not an allocation past the budget.
        let reservation = MemoryConsumer::new(format!("DenseFoldExec[{partition}]"))
            .register(context.memory_pool());
        let mut input = self.input.execute(partition, context)?;
        let fold = self.fold.clone();
        let array = futures::stream::once(async move {
            reservation.try_grow(8 * fold.rows * fold.cols)?;
            let mut acc = fold.zeros();
            while let Some(batch) = input.next().await {
                fold.add(&batch?, &mut acc)?;
            }
            let rows = to_rows(acc, fold.cols).map_err(DataFusionError::from);
            drop(reservation);
            rows
        });
        let rows = array.flat_map(|batches| {
            futures::stream::iter(match batches {
                Ok(batches) => batches.into_iter().map(Ok).collect(),
                Err(err) => vec![Err(err)],
            })
        });
        Ok(Box::pin(RecordBatchStreamAdapter::new(self.schema(), rows)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_round_trip_and_skip_zero_rows() {
        let acc = vec![1.0, 2.0, 0.0, 0.0, 3.0, 0.0];
        let batches = to_rows(acc.clone(), 2).unwrap();
        assert_eq!(batches.len(), 1);
        let batch = &batches[0];
        assert_eq!(batch.num_rows(), 2);
        let mut total = vec![0.0; 6];
        add_rows(batch, &mut total, 2).unwrap();
        add_rows(&batch.slice(1, 1), &mut total, 2).unwrap();
        assert_eq!(total, vec![1.0, 2.0, 0.0, 0.0, 6.0, 0.0]);
        let err = add_rows(batch, &mut [0.0; 2], 2).unwrap_err();
        assert!(err.to_string().contains("row 2 outside 0..1"), "{err}");
    }

    #[test]
    fn large_partials_go_out_in_batches_sliced_where_rows_are_consecutive() {
        let rows = 2 * ROWS_PER_BATCH + 10;
        // Rows 0..ROWS_PER_BATCH + 5 are consecutive, the rest every other row.
        let acc: Vec<f64> = (0..rows * 3)
            .map(|k| {
                let i = k / 3;
                if i <= ROWS_PER_BATCH + 5 || i % 2 == 0 {
                    (k + 1) as f64
                } else {
                    0.0
                }
            })
            .collect();
        let batches = to_rows(acc.clone(), 3).unwrap();
        let sizes: Vec<usize> = batches.iter().map(|b| b.num_rows()).collect();
        let kept = (ROWS_PER_BATCH + 6) + (rows - ROWS_PER_BATCH - 6).div_ceil(2);
        assert_eq!(sizes.iter().sum::<usize>(), kept);
        assert!(sizes.iter().all(|&n| n <= ROWS_PER_BATCH), "{sizes:?}");
        let mut total = vec![0.0; acc.len()];
        for batch in &batches {
            add_rows(batch, &mut total, 3).unwrap();
        }
        assert_eq!(total, acc);
    }
}
