//! Running lowered plans on a local DataFusion session.
//!
//! The session's memory pool is a [`BudgetPool`] of the budget given (by default
//! `spores_exec::memory::budget()`, which `spores run --memory` sets): aggregates and sorts
//! that outgrow it spill to temporary files instead of failing, and the disk manager
//! writes those files under the OS's temporary directory (or `temp_dir`). The number of
//! partitions follows the thread count.
//!
//! The same engine can send its plans to a Ballista cluster instead
//! ([`DataFusionEngine::on_ballista`], feature `ballista`): lowering and physical planning
//! stay here, the execution (and the budget, the executors' own) is the cluster's.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use datafusion::arrow::record_batch::RecordBatch;
use datafusion::execution::disk_manager::{DiskManagerBuilder, DiskManagerMode};
use datafusion::execution::runtime_env::RuntimeEnvBuilder;
use datafusion::logical_expr::LogicalPlan;
use datafusion::physical_plan::coalesce_partitions::CoalescePartitionsExec;
use datafusion::physical_plan::ExecutionPlanProperties;
use datafusion::prelude::{SessionConfig, SessionContext};
use futures::StreamExt;
use spores_exec::{DenseMatrix, Matrix};
use spores_opt::la::LaExpr;
use spores_tensor::CooTensor;

use crate::broadcast::dense_bytes;
use crate::coo;
use crate::error::DistError;
use crate::fold::DenseFold;
use crate::lower::{Lowering, Rel, Runner};
use crate::memory::BudgetPool;
use crate::source::{FileScan, Leaf, LeafRef};
use crate::tensor::{self, TensorLowering};

/// How the local DataFusion session is set up.
#[derive(Clone, Debug)]
pub struct EngineConfig {
    /// Bytes the session's operators may hold in memory before they spill.
    pub memory_bytes: usize,
    /// Partitions (and worker threads) per query.
    pub threads: usize,
    /// Where spill files go (the OS's temporary directory when `None`).
    pub temp_dir: Option<PathBuf>,
    /// Bytes of small operands (vectors, rank-k factors) held in memory and read by index
    /// beside a file input larger than this ([`crate::broadcast`]); they come out of the
    /// pool's share. 0 holds none; by default half the budget.
    pub hold_bytes: usize,
}

impl Default for EngineConfig {
    fn default() -> Self {
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        let memory_bytes = spores_exec::memory::budget().min(usize::MAX as f64) as usize;
        EngineConfig {
            memory_bytes,
            threads,
            temp_dir: None,
            hold_bytes: memory_bytes / 2,
        }
    }
}

impl Runner for DataFusionEngine {
    fn collect(&self, plan: LogicalPlan, pool: usize) -> Result<Vec<RecordBatch>, DistError> {
        self.collect_within(plan, pool)
    }

    /// Runs `plan` here with a pool of `pool` bytes and folds each output stream's tuples
    /// into an array of its own (at most `streams` streams: a plan with more output
    /// partitions is merged into one), then sums the arrays. On a cluster, each task
    /// folds its partition and the client sums the tasks' arrays.
    fn fold(
        &self,
        plan: LogicalPlan,
        pool: usize,
        fold: &DenseFold,
        streams: usize,
    ) -> Result<DenseMatrix, DistError> {
        let ctx = self.session(pool)?;
        // On a cluster each task folds its partition next to the data.
        #[cfg(feature = "ballista")]
        if let Some(cluster) = &self.cluster {
            let partitions = self.config.threads.max(1);
            return self
                .runtime
                .block_on(cluster.fold(&ctx, plan, partitions, fold));
        }
        let arrays = self.runtime.block_on(async move {
            let frame = ctx.execute_logical_plan(plan).await?;
            let mut physical = frame.create_physical_plan().await?;
            if physical.output_partitioning().partition_count() > streams.max(1) {
                physical = Arc::new(CoalescePartitionsExec::new(physical));
            }
            let task = ctx.task_ctx();
            let partitions = physical.output_partitioning().partition_count();
            let mut workers = Vec::with_capacity(partitions);
            for p in 0..partitions {
                let mut stream = physical.execute(p, task.clone())?;
                let fold = fold.clone();
                workers.push(tokio::spawn(async move {
                    let mut acc = fold.zeros();
                    while let Some(batch) = stream.next().await {
                        fold.add(&batch?, &mut acc)?;
                    }
                    Ok::<_, DistError>(acc)
                }));
            }
            let mut arrays = Vec::with_capacity(partitions);
            for w in workers {
                let acc = w
                    .await
                    .map_err(|e| DistError::Plan(format!("a fold's worker failed: {e}")))??;
                arrays.push(acc);
            }
            Ok::<_, DistError>(arrays)
        })?;
        fold.finish(arrays)
    }
}

/// A DataFusion engine: one Tokio runtime, a fresh session per plan, run here or (with
/// the `ballista` feature) on a Ballista cluster.
pub struct DataFusionEngine {
    config: EngineConfig,
    runtime: tokio::runtime::Runtime,
    #[cfg(feature = "ballista")]
    cluster: Option<crate::ballista::Cluster>,
}

impl DataFusionEngine {
    pub fn new(config: EngineConfig) -> Result<Self, DistError> {
        // Timers and sockets (when compiled in) for a Ballista cluster's gRPC client.
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .worker_threads(config.threads.max(1))
            .thread_name("spores-datafusion")
            .build()
            .map_err(|e| DistError::Plan(format!("cannot start the Tokio runtime: {e}")))?;
        Ok(DataFusionEngine {
            config,
            runtime,
            #[cfg(feature = "ballista")]
            cluster: None,
        })
    }

    /// An engine whose plans run on the Ballista `cluster` (`config.threads` is then the
    /// number of partitions of each plan).
    #[cfg(feature = "ballista")]
    pub fn on_ballista(
        config: EngineConfig,
        cluster: crate::ballista::Cluster,
    ) -> Result<Self, DistError> {
        let mut engine = DataFusionEngine::new(config)?;
        engine.cluster = Some(cluster);
        Ok(engine)
    }

    /// `ballista` when plans run on a cluster, else `datafusion`.
    pub fn name(&self) -> &'static str {
        #[cfg(feature = "ballista")]
        if self.cluster.is_some() {
            return "ballista";
        }
        "datafusion"
    }

    pub fn config(&self) -> &EngineConfig {
        &self.config
    }

    /// How file inputs are scanned: by path when remote executors read them.
    fn file_scan(&self) -> FileScan {
        #[cfg(feature = "ballista")]
        if self.cluster.is_some() {
            return FileScan::Parquet;
        }
        FileScan::RowGroups
    }

    /// Runs `plan` to its batches, here or on the cluster.
    fn collect(&self, plan: LogicalPlan) -> Result<Vec<RecordBatch>, DistError> {
        self.collect_within(plan, self.config.memory_bytes)
    }

    /// Runs `plan` to its batches, here with a memory pool of `pool_bytes` (a cluster's
    /// executors have pools of their own).
    fn collect_within(
        &self,
        plan: LogicalPlan,
        pool_bytes: usize,
    ) -> Result<Vec<RecordBatch>, DistError> {
        let ctx = self.session(pool_bytes)?;
        #[cfg(feature = "ballista")]
        if let Some(cluster) = &self.cluster {
            let partitions = self.config.threads.max(1);
            return self
                .runtime
                .block_on(cluster.collect(&ctx, plan, partitions));
        }
        let batches = self.runtime.block_on(async move {
            let frame = ctx.execute_logical_plan(plan).await?;
            frame.collect().await
        })?;
        Ok(batches)
    }

    fn session(&self, pool_bytes: usize) -> Result<SessionContext, DistError> {
        let mode = match &self.config.temp_dir {
            Some(dir) => DiskManagerMode::Directories(vec![dir.clone()]),
            None => DiskManagerMode::OsTmpDirectory,
        };
        let runtime = RuntimeEnvBuilder::new()
            .with_memory_pool(Arc::new(BudgetPool::new(pool_bytes)))
            .with_disk_manager_builder(DiskManagerBuilder::default().with_mode(mode))
            .build_arc()?;
        let config = SessionConfig::new()
            .with_target_partitions(self.config.threads.max(1))
            .with_information_schema(false);
        Ok(SessionContext::new_with_config_rt(config, runtime))
    }

    /// Whether small operands are held in memory and read by index
    /// ([`crate::broadcast`]): when an input is a file too large to hold. On a cluster
    /// the held operands travel inside the plan to the executors ([`crate::codec`]).
    fn holds<M: Leaf>(&self, inputs: &HashMap<String, M>) -> bool {
        let share = self.config.hold_bytes as f64;
        share > 0.0
            && inputs.values().any(|input| match input.leaf() {
                LeafRef::File(f) => dense_bytes(f.rows(), f.cols()) > share,
                LeafRef::Matrix(_) => false,
            })
    }

    /// The lowering of `e` over `inputs`: small operands held when [`Self::holds`] says
    /// so, and small intermediates and sums run first when there is a `runner`.
    fn lowered<'a, M: Leaf>(
        &self,
        e: &LaExpr,
        inputs: &'a HashMap<String, M>,
        runner: Option<&'a dyn Runner>,
    ) -> Result<(Rel, usize, Vec<String>), DistError> {
        let mut lowering = Lowering::new(inputs)
            .with_partitions(self.config.threads)
            .with_file_scan(self.file_scan());
        if self.holds(inputs) {
            lowering =
                lowering.with_holding(self.config.memory_bytes, self.config.hold_bytes, runner);
        }
        let rel = lowering.lower(e)?;
        Ok((rel, lowering.held_bytes(), lowering.steps().to_vec()))
    }

    /// The logical plan of `e` over `inputs`, before DataFusion's optimizer, with the
    /// result's shape (no subplan is run: an intermediate that [`Self::run`] would hold
    /// stays a join here).
    pub fn logical_plan<M: Leaf>(
        &self,
        e: &LaExpr,
        inputs: &HashMap<String, M>,
    ) -> Result<(LogicalPlan, usize, usize), DistError> {
        let (rel, _, _) = self.lowered(e, inputs, None)?;
        Ok((rel.plan, rel.rows, rel.cols))
    }

    /// Evaluates `e` on `inputs` (scalars as `1 x 1` matrices) and returns the result as
    /// a local matrix.
    pub fn run<M: Leaf>(
        &self,
        e: &LaExpr,
        inputs: &HashMap<String, M>,
    ) -> Result<Matrix, DistError> {
        self.run_with_steps(e, inputs).map(|(m, _)| m)
    }

    /// [`Self::run`], with what ran before the plan and how operands were held
    /// ([`Lowering::steps`]).
    pub fn run_with_steps<M: Leaf>(
        &self,
        e: &LaExpr,
        inputs: &HashMap<String, M>,
    ) -> Result<(Matrix, Vec<String>), DistError> {
        let (rel, held, steps) = self.lowered(e, inputs, Some(self))?;
        let (plan, rows, cols) = (rel.plan.clone(), rel.rows, rel.cols);
        if let Some(result) = rel.into_held() {
            return Ok((result.into_matrix()?.into_best_format(), steps));
        }
        // The operands held take their bytes from the plan's pool.
        let pool = self.config.memory_bytes.saturating_sub(held);
        let batches = self.collect_within(plan, pool)?;
        Ok((coo::from_batches(&batches, rows, cols)?, steps))
    }

    /// DataFusion's optimized logical and physical plans of `e`, as text (for `--explain`).
    pub fn explain<M: Leaf>(
        &self,
        e: &LaExpr,
        inputs: &HashMap<String, M>,
    ) -> Result<String, DistError> {
        let (plan, _, _) = self.logical_plan(e, inputs)?;
        let ctx = self.session(self.config.memory_bytes)?;
        self.runtime.block_on(async move {
            let state = ctx.state();
            let optimized = state.optimize(&plan)?;
            let physical = state.create_physical_plan(&plan).await?;
            let physical = datafusion::physical_plan::displayable(physical.as_ref()).indent(false);
            Ok::<String, DistError>(format!("{}\n{physical}", optimized.display_indent()))
        })
    }

    /// Runs a tensor program's logical plan (queries in order, each collected before the
    /// next reads it) on `inputs` and returns the plan's outputs by name.
    pub fn run_tensor_plan(
        &self,
        plan: &spores_tensor::plan_ast::LogicalPlan,
        inputs: &HashMap<String, CooTensor>,
    ) -> Result<HashMap<String, CooTensor>, DistError> {
        let mut lowering = TensorLowering::new(inputs)?;
        for q in &plan.queries {
            let (logical, dims, fill) = lowering.query(q)?;
            let schema = Arc::new(logical.schema().as_arrow().clone());
            let batches = self.collect(logical)?;
            lowering.store(&q.name, tensor::stored(batches, schema, dims, fill));
        }
        plan.outputs
            .iter()
            .map(|(output, query)| Ok((output.clone(), lowering.tensor(query)?.to_coo()?)))
            .collect()
    }
}
