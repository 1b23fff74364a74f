//! A Ballista scheduler or executor as a process of its own, with spores' codec
//! ([`crate::codec`]): what `spores ballista scheduler`, `spores ballista executor` and
//! `spores ballista cluster` run.
//!
//! Ballista's defaults are tuned for long-lived clusters: an executor is declared dead 180
//! s after its last heartbeat, which it sends every 60 s. Here an executor beats every
//! [`HEARTBEAT_SECONDS`] and is declared dead after [`EXECUTOR_TIMEOUT_SECONDS`], so that
//! the tasks of a lost executor are run again within seconds, not minutes.
//!
//! Executors pull their tasks ([`TaskSchedulingPolicy::PullStaged`]) instead of having
//! them pushed: with pushed tasks, Ballista 55's scheduler keeps the slot of a task it
//! cancelled when a lost executor's shuffle output had to be computed again (it ignores
//! that task's final status, so the slot is never given back), and an executor of one slot
//! then waits forever. An executor that pulls counts its own free slots.
//!
//! A lost executor fails the jobs that were running instead of rolling their stages back
//! ([`super::lost_executor`]: Ballista 55's rollback can count a partition twice).

use std::sync::{Arc, OnceLock};

use ballista_core::config::TaskSchedulingPolicy;
use ballista_core::{ConfigProducer, RuntimeProducer};
use ballista_executor::executor_process::{start_executor_process, ExecutorProcessConfig};
use ballista_scheduler::cluster::BallistaCluster;
use ballista_scheduler::config::SchedulerConfig;
use ballista_scheduler::scheduler_process::{create_scheduler, start_grpc_service};
use datafusion::execution::runtime_env::RuntimeEnvBuilder;
use datafusion::prelude::SessionConfig;

use super::lost_executor::{FailJobsOnLostExecutor, Scheduler, STAGE_MAX_FAILURES};
use super::{cluster_error, session_config, MAX_MESSAGE_BYTES};
use crate::codec::SporesCodec;
use crate::error::DistError;
use crate::memory::BudgetPool;

/// Seconds between an executor's heartbeats.
pub const HEARTBEAT_SECONDS: u64 = 2;
/// Seconds without a heartbeat after which the scheduler declares an executor dead and
/// runs its tasks elsewhere.
pub const EXECUTOR_TIMEOUT_SECONDS: u64 = 8;

/// The message limit as gRPC's `u32`.
fn message_limit() -> u32 {
    u32::try_from(MAX_MESSAGE_BYTES).unwrap_or(u32::MAX)
}

fn runtime() -> Result<tokio::runtime::Runtime, DistError> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("spores-ballista")
        .build()
        .map_err(|e| cluster_error(format!("cannot start the Tokio runtime: {e}")))
}

/// Serves a scheduler on `bind:port` until the process ends; returns only on an error.
pub fn serve_scheduler(bind: &str, port: u16) -> DistError {
    let session: ConfigProducer = Arc::new(session_config);
    let config = SchedulerConfig {
        bind_host: bind.to_string(),
        bind_port: port,
        scheduling_policy: TaskSchedulingPolicy::PullStaged,
        grpc_server_max_decoding_message_size: message_limit(),
        grpc_server_max_encoding_message_size: message_limit(),
        grpc_client_max_message_size: message_limit(),
        executor_timeout_seconds: EXECUTOR_TIMEOUT_SECONDS,
        expire_dead_executor_interval_seconds: 1,
        no_executors_grace_period_seconds: EXECUTOR_TIMEOUT_SECONDS,
        override_config_producer: Some(session),
        override_physical_codec: Some(Arc::new(SporesCodec::default())),
        stage_max_failures: STAGE_MAX_FAILURES,
        ..SchedulerConfig::default()
    };
    let address = match format!("{bind}:{port}").parse() {
        Ok(address) => address,
        Err(e) => return cluster_error(format!("`{bind}:{port}` is not an address: {e}")),
    };
    let runtime = match runtime() {
        Ok(runtime) => runtime,
        Err(e) => return e,
    };
    let served = runtime.block_on(async move {
        config.validate()?;
        let memory = BallistaCluster::new_from_config(&config).await?;
        let built = Arc::new(OnceLock::new());
        let cluster_state = FailJobsOnLostExecutor::new(memory.cluster_state(), built.clone());
        let cluster = BallistaCluster::new(Arc::new(cluster_state), memory.job_state());
        let scheduler: Scheduler = create_scheduler(cluster, Arc::new(config)).await?;
        let _ = built.set(scheduler.clone());
        start_grpc_service(address, scheduler).await
    });
    match served {
        Ok(()) => cluster_error("the scheduler stopped"),
        Err(e) => cluster_error(format!("the scheduler on {bind}:{port} failed: {e}")),
    }
}

/// How an executor process is set up.
#[derive(Clone, Debug)]
pub struct ExecutorOptions {
    /// `HOST:PORT` of the scheduler's gRPC service.
    pub scheduler: String,
    /// Address the executor's services bind to.
    pub bind: String,
    /// Host name the scheduler and other executors reach it by.
    pub external_host: String,
    /// Its Arrow Flight port (shuffle reads and results); its gRPC port is the next one.
    pub port: u16,
    /// Tasks it runs at once.
    pub task_slots: usize,
    /// Bytes its tasks' operators may hold before they spill.
    pub memory_bytes: usize,
    /// Where its shuffle files go (a temporary directory when `None`).
    pub work_dir: Option<String>,
}

/// Serves an executor registered with its scheduler until the process ends; returns only
/// on an error.
pub fn serve_executor(options: ExecutorOptions) -> DistError {
    let Some((host, port)) = options
        .scheduler
        .rsplit_once(':')
        .and_then(|(h, p)| Some((h.to_string(), p.parse::<u16>().ok()?)))
    else {
        return cluster_error(format!(
            "`{}` is not a scheduler address (HOST:PORT)",
            options.scheduler
        ));
    };
    let Some(grpc_port) = options.port.checked_add(1) else {
        return cluster_error(format!(
            "port {} leaves no gRPC port after it",
            options.port
        ));
    };
    let memory = options.memory_bytes;
    let runtime_producer: RuntimeProducer = Arc::new(move |_: &SessionConfig| {
        RuntimeEnvBuilder::new()
            .with_memory_pool(Arc::new(BudgetPool::new(memory)))
            .build_arc()
    });
    let config = ExecutorProcessConfig {
        bind_host: options.bind.clone(),
        external_host: Some(options.external_host.clone()),
        port: options.port,
        grpc_port,
        scheduler_host: host,
        scheduler_port: port,
        scheduler_connect_timeout_seconds: 30,
        vcores: options.task_slots.max(1),
        task_scheduling_policy: TaskSchedulingPolicy::PullStaged,
        work_dir: options.work_dir.clone(),
        print_thread_info: false,
        grpc_max_decoding_message_size: message_limit(),
        grpc_max_encoding_message_size: message_limit(),
        executor_heartbeat_interval_seconds: HEARTBEAT_SECONDS,
        override_runtime_producer: Some(runtime_producer),
        override_config_producer: Some(Arc::new(session_config)),
        override_physical_codec: Some(Arc::new(SporesCodec::default())),
        ..ExecutorProcessConfig::default()
    };
    let runtime = match runtime() {
        Ok(runtime) => runtime,
        Err(e) => return e,
    };
    match runtime.block_on(start_executor_process(Arc::new(config))) {
        Ok(()) => cluster_error("the executor stopped"),
        Err(e) => cluster_error(format!("the executor on port {} failed: {e}", options.port)),
    }
}
