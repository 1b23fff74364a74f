//! Lowered plans on an Apache Ballista cluster (feature `ballista`).
//!
//! The client side ([`Cluster`]): the plan is lowered and physically planned here, as for
//! the local engine, and the physical plan is submitted to the scheduler, which cuts it
//! into stages at its repartitions and hands their tasks to the executors; the result
//! comes back over Arrow Flight. Parquet inputs are scanned by path
//! ([`crate::source::FileScan::Parquet`]), so the files must be at the same absolute paths
//! on every executor. Held operands travel inside the plan, read by index on the
//! executors, and small sums are folded there ([`Cluster::fold`]): spores' plan pieces,
//! which only processes with [`crate::codec::SporesCodec`] decode, i.e. spores' own
//! scheduler and executors ([`process`]), not stock Ballista ones.
//!
//! The in-process side ([`start_local_cluster`]): a scheduler and executors on
//! `localhost` ports the OS picks, in the calling Tokio runtime, each executor's memory
//! pool a [`BudgetPool`] (what the unit tests start).

pub mod lost_executor;
pub mod process;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use ballista_core::execution_plans::execute_physical_plan;
use ballista_core::extension::SessionConfigExt;
use ballista_core::serde::protobuf::scheduler_grpc_client::SchedulerGrpcClient;
use ballista_core::serde::{BallistaCodec, BallistaLogicalExtensionCodec};
use ballista_core::{ConfigProducer, RuntimeProducer};
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::execution::runtime_env::RuntimeEnvBuilder;
use datafusion::logical_expr::LogicalPlan;
use datafusion::physical_plan::coalesce_partitions::CoalescePartitionsExec;
use datafusion::physical_plan::{ExecutionPlan, ExecutionPlanProperties};
use datafusion::prelude::{SessionConfig, SessionContext};
use datafusion_proto::protobuf::PhysicalPlanNode;
use futures::StreamExt;
use spores_exec::DenseMatrix;

use crate::codec::SporesCodec;
use crate::error::DistError;
use crate::fold::DenseFold;
use crate::fold_exec::DenseFoldExec;
use crate::memory::BudgetPool;

/// The URL schemes `--engine` accepts for a scheduler: `ballista://HOST:PORT`, or
/// Ballista's own `df://HOST:PORT`.
const SCHEMES: [&str; 2] = ["ballista://", "df://"];

/// The largest gRPC message between client, scheduler and executors: a plan carries its
/// in-memory inputs (Ballista's default, 16 MiB, would refuse a 300,000 x 10 factor).
pub const MAX_MESSAGE_BYTES: usize = 1 << 30;

/// Ballista's session settings with spores' message limit and codec, and shuffle files
/// written uncompressed: what spores' plans shuffle is mostly `f64` cells and partial
/// arrays, which LZ4 shrinks little (at 10^8 non-zeros, ALS's 88.0 MB to 84.0, the
/// chain's 17.6 to 13.2) but the executors compress and decompress again before Arrow
/// Flight sends them (0.05-0.08 s of ALS's 1.5-2.3 s on one machine).
pub(crate) fn session_config() -> SessionConfig {
    SessionConfig::new_with_ballista()
        .with_ballista_grpc_client_max_message_size(MAX_MESSAGE_BYTES)
        .with_ballista_physical_extension_codec(Arc::new(SporesCodec::default()))
        .set_str(
            ballista_core::config::BALLISTA_SHUFFLE_COMPRESSION_CODEC,
            "none",
        )
}

/// Ballista's codecs with spores' plan pieces ([`SporesCodec`]): what the scheduler and
/// the executors decode plans with.
pub(crate) fn codec() -> BallistaCodec {
    BallistaCodec::new(
        Arc::new(BallistaLogicalExtensionCodec::default()),
        Arc::new(SporesCodec::default()),
    )
}

/// A Ballista scheduler that plans are sent to.
#[derive(Clone, Debug)]
pub struct Cluster {
    /// `HOST:PORT` of the scheduler's gRPC service.
    address: String,
    /// Shuffle reads through Arrow Flight even when the executor holds the partition
    /// (what a cluster of machines does; tests force it on one machine).
    force_remote_read: bool,
    /// How long the client waits for a plan's result: a scheduler that never ends a job
    /// (one that failed inside its status handling, say) would otherwise hang the client.
    timeout: Option<Duration>,
    /// Where held matrices made here are written for the executors to read
    /// ([`SporesCodec::writing_to`]); by default the directory of the plan's first
    /// Parquet input, which the executors read already.
    held_dir: Option<PathBuf>,
}

pub(crate) fn cluster_error(what: impl std::fmt::Display) -> DistError {
    DistError::Cluster(what.to_string())
}

impl Cluster {
    /// The scheduler at `ballista://HOST:PORT` or `df://HOST:PORT`, with optional settings
    /// after `?`, joined by `&`: `timeout=SECONDS`, after which the client gives up on a
    /// plan, and `held_dir=DIR`, where held matrices made here are written for the
    /// executors (a directory they all read at that path).
    pub fn parse(url: &str) -> Result<Cluster, DistError> {
        let (url_address, query) = match url.split_once('?') {
            None => (url, None),
            Some((address, query)) => (address, Some(query)),
        };
        let mut timeout = None;
        let mut held_dir = None;
        for setting in query.into_iter().flat_map(|q| q.split('&')) {
            match setting.split_once('=') {
                Some(("timeout", value)) => {
                    let seconds = value
                        .parse::<f64>()
                        .ok()
                        .filter(|s| s.is_finite() && *s > 0.0)
                        .ok_or_else(|| {
                            DistError::Plan(format!(
                                "`{url}`: timeout=SECONDS takes a positive number, not `{value}`"
                            ))
                        })?;
                    timeout = Some(Duration::from_secs_f64(seconds));
                }
                Some(("held_dir", dir)) if !dir.is_empty() => held_dir = Some(PathBuf::from(dir)),
                _ => {
                    return Err(DistError::Plan(format!(
                        "`{url}`: the settings after `?` are timeout=SECONDS and held_dir=DIR, \
                         joined by `&`, not `{setting}`"
                    )))
                }
            }
        }
        let url = url_address;
        let rest = SCHEMES
            .iter()
            .find_map(|s| url.strip_prefix(s))
            .ok_or_else(|| {
                DistError::Plan(format!(
                    "`{url}` is not a Ballista scheduler address (ballista://HOST:PORT or df://HOST:PORT)"
                ))
            })?;
        let valid = rest
            .rsplit_once(':')
            .is_some_and(|(host, port)| !host.is_empty() && port.parse::<u16>().is_ok());
        if !valid {
            return Err(DistError::Plan(format!(
                "`{url}`: expected HOST:PORT after the scheme (e.g. ballista://localhost:50050)"
            )));
        }
        Ok(Cluster {
            address: rest.to_string(),
            force_remote_read: false,
            timeout,
            held_dir,
        })
    }

    /// Shuffle reads through Arrow Flight even where the partition is local.
    pub fn with_force_remote_read(mut self, on: bool) -> Self {
        self.force_remote_read = on;
        self
    }

    /// `HOST:PORT` of the scheduler.
    pub fn address(&self) -> &str {
        &self.address
    }

    /// How long the client waits for a plan's result (unbounded when `None`).
    pub fn timeout(&self) -> Option<Duration> {
        self.timeout
    }

    /// Where held matrices made here are written for the executors, when not beside the
    /// plan's first Parquet input.
    pub fn held_dir(&self) -> Option<&std::path::Path> {
        self.held_dir.as_deref()
    }

    /// Plans `plan` in `ctx` with `partitions` partitions, runs it on the cluster and
    /// returns the result's batches, or an error once the timeout passes.
    pub(crate) async fn collect(
        &self,
        ctx: &SessionContext,
        plan: LogicalPlan,
        partitions: usize,
    ) -> Result<Vec<RecordBatch>, DistError> {
        let mut batches = Vec::new();
        self.within_timeout(self.run(ctx, plan, partitions, None, &mut batches))
            .await?;
        Ok(batches)
    }

    /// Runs `plan` on the cluster with its tuples folded into a dense array per
    /// partition on the executors ([`DenseFoldExec`]); returns the partial arrays summed.
    /// Each batch of a partial is added as it arrives, so that only one is held here at
    /// a time.
    pub(crate) async fn fold(
        &self,
        ctx: &SessionContext,
        plan: LogicalPlan,
        partitions: usize,
        fold: &DenseFold,
    ) -> Result<DenseMatrix, DistError> {
        let mut total = FoldTotal {
            fold,
            cells: fold.zeros(),
        };
        self.within_timeout(self.run(ctx, plan, partitions, Some(fold), &mut total))
            .await?;
        fold.finish(vec![total.cells])
    }

    async fn within_timeout<T>(
        &self,
        work: impl std::future::Future<Output = Result<T, DistError>>,
    ) -> Result<T, DistError> {
        let Some(limit) = self.timeout else {
            return work.await;
        };
        tokio::time::timeout(limit, work).await.unwrap_or_else(|_| {
            Err(cluster_error(format!(
                "the scheduler at {} did not return the result within {} s (the job may \
                 still run there)",
                self.address,
                limit.as_secs_f64()
            )))
        })
    }

    /// Plans `plan`, with each partition folded on the executors when `fold` is given,
    /// and runs it on the cluster.
    async fn run(
        &self,
        ctx: &SessionContext,
        plan: LogicalPlan,
        partitions: usize,
        fold: Option<&DenseFold>,
        result: &mut dyn Collector,
    ) -> Result<(), DistError> {
        // Without dynamic filters: Ballista's scheduler swaps the inputs of hash joins by
        // the sizes its stages produced, which DataFusion refuses once a join has built
        // one, and the job then never ends.
        let mut state = ctx.state();
        let optimizer = &mut state.config_mut().options_mut().optimizer;
        optimizer.enable_dynamic_filter_pushdown = false;
        optimizer.enable_join_dynamic_filter_pushdown = false;
        optimizer.enable_topk_dynamic_filter_pushdown = false;
        optimizer.enable_aggregate_dynamic_filter_pushdown = false;
        let mut physical = state.create_physical_plan(&plan).await?;
        if let Some(fold) = fold {
            // Each executor's partial arrays are the final stage's partitions, fetched
            // straight from it and added here: coalescing them first would add a stage
            // whose one task copies every partial through one executor.
            physical = Arc::new(DenseFoldExec::new(physical, fold.clone()));
        } else if physical.output_partitioning().partition_count() > 1 {
            // The scheduler returns the final stage's partitions; one keeps the result whole.
            physical = Arc::new(CoalescePartitionsExec::new(physical));
        }
        let mut config = session_config()
            .with_target_partitions(partitions)
            .with_ballista_shuffle_reader_force_remote_read(self.force_remote_read);
        if let Some(dir) = self.held_dir.clone().or_else(|| first_input_dir(&physical)) {
            config = config
                .with_ballista_physical_extension_codec(Arc::new(SporesCodec::writing_to(dir)));
        }
        let mut runs = 0;
        loop {
            runs += 1;
            if runs > 1 {
                result.restart();
            }
            match self
                .submit(physical.clone(), ctx, config.clone(), result)
                .await
            {
                Err(Failure::Job(failure))
                    if runs < RUNS_ON_LOST_EXECUTOR && lost_an_executor(&failure) =>
                {
                    log::warn!(
                        "the scheduler at {} lost an executor while running the plan; running it again: {failure}",
                        self.address
                    );
                }
                Ok(()) => return Ok(()),
                Err(Failure::Job(failure)) => {
                    return Err(cluster_error(format!(
                        "the scheduler at {} did not run the plan: {failure}",
                        self.address
                    )))
                }
                Err(Failure::Result(err)) => return Err(err),
            }
        }
    }

    /// Submits `physical` as one job and hands its result's batches to `result`.
    async fn submit(
        &self,
        physical: Arc<dyn ExecutionPlan>,
        ctx: &SessionContext,
        config: SessionConfig,
        result: &mut dyn Collector,
    ) -> Result<(), Failure> {
        let codec = config.ballista_physical_extension_codec();
        let mut stream = execute_physical_plan::<PhysicalPlanNode>(
            format!("http://{}", self.address),
            &config.ballista_config(),
            physical,
            codec.as_ref(),
            ctx.session_id(),
            config,
        )
        .await
        .map_err(Failure::Job)?;
        while let Some(batch) = stream.next().await {
            result
                .add(batch.map_err(Failure::Job)?)
                .map_err(Failure::Result)?;
        }
        Ok(())
    }
}

/// The directory of the first file `plan` scans: every executor reads it at that path.
fn first_input_dir(plan: &Arc<dyn ExecutionPlan>) -> Option<PathBuf> {
    use datafusion::datasource::physical_plan::FileScanConfig;
    use datafusion::datasource::source::DataSourceExec;
    if let Some(source) = plan.downcast_ref::<DataSourceExec>() {
        let config = source.data_source().downcast_ref::<FileScanConfig>()?;
        let file = config.file_groups.iter().flat_map(|g| g.files()).next()?;
        // Local files are named by their path below `/` (`ListingTableUrl` of a path).
        let path = PathBuf::from("/").join(file.object_meta.location.as_ref());
        return path.parent().map(PathBuf::from);
    }
    plan.children().into_iter().find_map(first_input_dir)
}

/// Why a submitted plan gave no result: its job failed (perhaps for a lost executor, then
/// it runs again), or its result was not what the plan makes.
enum Failure {
    Job(datafusion::error::DataFusionError),
    Result(DistError),
}

/// Where a job's result goes, batch by batch; a job run again restarts it first.
trait Collector {
    fn restart(&mut self);
    fn add(&mut self, batch: RecordBatch) -> Result<(), DistError>;
}

impl Collector for Vec<RecordBatch> {
    fn restart(&mut self) {
        self.clear();
    }

    fn add(&mut self, batch: RecordBatch) -> Result<(), DistError> {
        self.push(batch);
        Ok(())
    }
}

/// The sum of a fold's partial arrays ([`crate::fold_exec::add_rows`]).
struct FoldTotal<'a> {
    fold: &'a DenseFold,
    cells: Vec<f64>,
}

impl Collector for FoldTotal<'_> {
    fn restart(&mut self) {
        self.cells.fill(0.0);
    }

    fn add(&mut self, batch: RecordBatch) -> Result<(), DistError> {
        crate::fold_exec::add_rows(&batch, &mut self.cells, self.fold.cols)
    }
}

/// How many times a plan is submitted when its jobs fail for a lost executor.
const RUNS_ON_LOST_EXECUTOR: usize = 3;

/// Whether a job failed because an executor was lost while it ran: spores' scheduler then
/// cancels it, or fails the stage that could not fetch the lost shuffle output
/// ([`lost_executor`]); the result's own partitions can also be gone when the client
/// fetches them. Running the plan again on the executors left gives its answer.
fn lost_an_executor(failure: &datafusion::error::DataFusionError) -> bool {
    let text = failure.to_string();
    text.ends_with(&format!("failed: {}", lost_executor::CANCELLED))
        || lost_executor::fetch_failed(&text)
        || text.contains(lost_executor::RESULT_FETCH_FAILED)
}

/// How each executor of an in-process cluster is set up.
#[derive(Clone, Copy, Debug)]
pub struct ExecutorConfig {
    /// Tasks it runs at once.
    pub task_slots: usize,
    /// Bytes its tasks' operators may hold before they spill.
    pub memory_bytes: usize,
}

/// Starts a scheduler and `executors` executors on `localhost` in the current Tokio
/// runtime (they live as long as it does) and returns the scheduler's address.
pub async fn start_local_cluster(
    executors: usize,
    config: ExecutorConfig,
) -> Result<SocketAddr, DistError> {
    let session: ConfigProducer = Arc::new(session_config);
    let scheduler = ballista_scheduler::standalone::new_standalone_scheduler_with_builder(
        Arc::new(ballista_core::utils::default_session_builder),
        session.clone(),
        codec(),
    )
    .await
    .map_err(|e| cluster_error(format!("cannot start a scheduler: {e}")))?;
    let url = format!("http://localhost:{}", scheduler.port());
    for _ in 0..executors {
        // The scheduler's service starts in a spawned task: retry for up to 5 s.
        let mut attempts = 50;
        let client = loop {
            match SchedulerGrpcClient::connect(url.clone()).await {
                Ok(client) => break client,
                Err(e) if attempts == 0 => {
                    return Err(cluster_error(format!(
                        "cannot reach the scheduler at {url}: {e}"
                    )))
                }
                Err(_) => {
                    attempts -= 1;
                    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                }
            }
        };
        let memory = config.memory_bytes;
        let runtime: RuntimeProducer = Arc::new(move |_: &SessionConfig| {
            RuntimeEnvBuilder::new()
                .with_memory_pool(Arc::new(BudgetPool::new(memory)))
                .build_arc()
        });
        ballista_executor::new_standalone_executor_from_builder(
            client,
            config.task_slots.max(1),
            session.clone(),
            runtime,
            codec(),
            Default::default(),
        )
        .await
        .map_err(|e| cluster_error(format!("cannot start an executor: {e}")))?;
    }
    Ok(scheduler)
}

#[cfg(test)]
mod tests {
    use super::lost_an_executor;
    use datafusion::error::DataFusionError;

    fn failed(text: &str) -> DataFusionError {
        DataFusionError::Execution(text.to_string())
    }

    #[test]
    fn only_a_lost_executor_runs_a_plan_again() {
        // The texts Ballista 55's client and scheduler give.
        assert!(lost_an_executor(&failed(
            "Job 038H9BFRQ6000 failed: Cancelled"
        )));
        assert!(lost_an_executor(&failed(
            "Job 038H9BFRQ6000 failed: Job failed due to stage 7 failed: Stage 7 has failed \
             1 times, most recent failure reason: \"transport error\"\n"
        )));
        assert!(lost_an_executor(&failed(
            "Shuffle fetch partition error from Executor 0c3a, map_stage 7, map_partition 0, \
             error desc: connection refused"
        )));
        assert!(!lost_an_executor(&failed(
            "Job 038H9BFRQ6000 failed: Job failed due to stage 2 failed: Arrow error: \
             Divide by zero error"
        )));
        assert!(!lost_an_executor(&failed(
            "Job 038H9BFRQ6000 failed: Task 3 in Stage 2 failed 4 times, fail the stage"
        )));
    }
}
