//! A fold ([`crate::fold`]) as a plan node, so that a Ballista executor sums the stream
//! it reads next to the data and only the small array travels.
//!
//! [`DenseFoldExec`] reads each partition of its input to the end, adds its tuples into a
//! dense array of the fold's shape and emits that array's non-zero cells as one batch
//! ([`crate::coo::schema`]'s columns). The partitions' arrays are partial sums: whoever
//! collects them sums them by cell ([`crate::fold::DenseFold::cells`]). The node is
//! encoded for the cluster by [`crate::codec`].

use std::fmt;
use std::sync::Arc;

use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::common::{internal_err, DataFusionError, Result as DfResult};
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_expr::{EquivalenceProperties, PhysicalExpr};
use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType};
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, ExecutionPlanProperties, Partitioning,
    PlanProperties,
};
use futures::StreamExt;
use spores_exec::Matrix;

use crate::coo;
use crate::fold::DenseFold;

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
            EquivalenceProperties::new(coo::schema(fold.rows, fold.cols)),
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

fn external(e: crate::error::DistError) -> DataFusionError {
    DataFusionError::External(Box::new(e))
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
        let mut input = self.input.execute(partition, context)?;
        let fold = self.fold.clone();
        let array = futures::stream::once(async move {
            let mut acc = fold.zeros();
            while let Some(batch) = input.next().await {
                fold.add(&batch?, &mut acc).map_err(external)?;
            }
            let dense = fold.finish(vec![acc]).map_err(external)?;
            coo::to_batch(&Matrix::Dense(dense)).map_err(external)
        });
        Ok(Box::pin(RecordBatchStreamAdapter::new(
            self.schema(),
            array,
        )))
    }
}
