//! What spores' scheduler does when an executor is lost: it fails the jobs that were
//! running, and the client runs them again from the start ([`super::Cluster`]).
//!
//! Ballista 55 recovers from a lost executor by rolling stages back: a running stage that
//! read the lost executor's shuffle output goes back to unresolved and later runs all its
//! tasks again. But the outputs its first attempt's finished tasks already handed to the
//! next stage stay in that stage's inputs (`ExecutionGraph::rollback_running_stage` keeps
//! them, and `StageOutput::add_partition` appends), so the next stage reads those
//! partitions twice and the query returns a wrong answer without an error: with an
//! executor killed in the middle of a script, 4 of 17 runs summed 0.2-0.3 % too much. A
//! wrong answer is worse than a failed query, so spores' scheduler never lets a stage
//! roll back:
//! - when an executor is declared lost, every running job that ran a task on it is
//!   cancelled *before* Ballista handles the loss ([`FailJobsOnLostExecutor`]: cluster-state
//!   removal runs first, and the cancellations are queued ahead of Ballista's own
//!   `ExecutorLost` event); a job that ran nothing there holds nothing there, and goes on;
//! - a task that cannot fetch a lost executor's shuffle output fails its stage at once
//!   ([`STAGE_MAX_FAILURES`]) instead of rolling it back.
//!
//! A task that fails for other reasons is still retried on its own by Ballista: its
//! output was never handed on, so a retry cannot count anything twice.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, OnceLock};

use ballista_core::error::Result;
use ballista_core::serde::protobuf::{task_status, ExecutorHeartbeat};
use ballista_core::serde::scheduler::{ExecutorData, ExecutorMetadata};
use ballista_core::JobId;
use ballista_scheduler::cluster::{BoundTask, ClusterState, ClusterStateEventStream, ExecutorSlot};
use ballista_scheduler::config::TaskDistributionPolicy;
use ballista_scheduler::scheduler_server::SchedulerServer;
use ballista_scheduler::state::execution_graph::ExecutionGraph;
use ballista_scheduler::state::task_manager::JobInfoCache;
use datafusion_proto::protobuf::{LogicalPlanNode, PhysicalPlanNode};

/// Stage attempts a job may make before it fails: one, so that a shuffle-fetch failure
/// fails the job rather than rolling the reading stage back.
pub const STAGE_MAX_FAILURES: usize = 1;

/// The failure text Ballista gives a cancelled job; the client runs such a job again.
pub const CANCELLED: &str = "Cancelled";

/// How Ballista's client reports a result partition it could not fetch (its executor
/// ended after the job finished).
pub const RESULT_FETCH_FAILED: &str = "Shuffle fetch partition error";

/// Whether a job's failure text says a shuffle fetch failed: only a fetch failure counts
/// towards [`STAGE_MAX_FAILURES`], and Ballista then says "Stage N has failed 1 times".
pub fn fetch_failed(failure: &str) -> bool {
    failure.contains(&format!("has failed {STAGE_MAX_FAILURES} times"))
}

/// The scheduler as Ballista builds it, with spores' plan codecs.
pub type Scheduler = SchedulerServer<LogicalPlanNode, PhysicalPlanNode>;

/// A [`ClusterState`] that, when an executor is removed, cancels the running jobs that ran
/// a task on it, and defers to the state it wraps for everything else.
pub struct FailJobsOnLostExecutor {
    inner: Arc<dyn ClusterState>,
    /// Set once the scheduler is built (it is built from this state).
    scheduler: Arc<OnceLock<Scheduler>>,
}

impl FailJobsOnLostExecutor {
    /// Wraps `inner`; `scheduler` is filled in once the scheduler exists.
    pub fn new(inner: Arc<dyn ClusterState>, scheduler: Arc<OnceLock<Scheduler>>) -> Self {
        FailJobsOnLostExecutor { inner, scheduler }
    }
}

#[async_trait::async_trait]
impl ClusterState for FailJobsOnLostExecutor {
    async fn init(&self) -> Result<()> {
        self.inner.init().await
    }

    async fn bind_schedulable_tasks(
        &self,
        distribution: TaskDistributionPolicy,
        active_jobs: Arc<HashMap<JobId, JobInfoCache>>,
        executors: Option<HashSet<String>>,
    ) -> Result<Vec<BoundTask>> {
        self.inner
            .bind_schedulable_tasks(distribution, active_jobs, executors)
            .await
    }

    async fn unbind_tasks(&self, executor_slots: Vec<ExecutorSlot>) -> Result<()> {
        self.inner.unbind_tasks(executor_slots).await
    }

    async fn register_executor(
        &self,
        metadata: ExecutorMetadata,
        spec: ExecutorData,
    ) -> Result<()> {
        self.inner.register_executor(metadata, spec).await
    }

    async fn save_executor_metadata(&self, metadata: ExecutorMetadata) -> Result<()> {
        self.inner.save_executor_metadata(metadata).await
    }

    async fn get_executor_metadata(&self, executor_id: &str) -> Result<ExecutorMetadata> {
        self.inner.get_executor_metadata(executor_id).await
    }

    async fn registered_executor_metadata(&self) -> Vec<ExecutorMetadata> {
        self.inner.registered_executor_metadata().await
    }

    async fn save_executor_heartbeat(&self, heartbeat: ExecutorHeartbeat) -> Result<()> {
        self.inner.save_executor_heartbeat(heartbeat).await
    }

    async fn remove_executor(&self, executor_id: &str) -> Result<()> {
        let removed = self.inner.remove_executor(executor_id).await;
        if let Some(scheduler) = self.scheduler.get() {
            let running = scheduler.state.task_manager.get_running_job_cache();
            for (job_id, job) in running.iter() {
                if !ran_on(&**job.execution_graph.read().await, executor_id) {
                    continue;
                }
                log::warn!(
                    "executor {executor_id} lost: cancelling job {job_id} (the client runs it again)"
                );
                if let Err(e) = scheduler.cancel_job(job_id.clone()).await {
                    log::error!("cannot cancel job {job_id}: {e}");
                }
            }
        }
        removed
    }

    fn executor_heartbeats(&self) -> HashMap<String, ExecutorHeartbeat> {
        self.inner.executor_heartbeats()
    }

    fn get_executor_heartbeat(&self, executor_id: &str) -> Option<ExecutorHeartbeat> {
        self.inner.get_executor_heartbeat(executor_id)
    }

    async fn cluster_state_events(&self) -> Result<ClusterStateEventStream> {
        self.inner.cluster_state_events().await
    }
}

/// Whether a task of `graph` runs, or ran and left its output, on `executor_id`.
fn ran_on(graph: &dyn ExecutionGraph, executor_id: &str) -> bool {
    graph
        .stages()
        .values()
        .filter_map(|stage| stage.task_infos())
        .flatten()
        .any(|task| match &task.task_status {
            task_status::Status::Running(running) => running.executor_id == executor_id,
            task_status::Status::Successful(done) => done.executor_id == executor_id,
            task_status::Status::Failed(_) => false,
        })
}
