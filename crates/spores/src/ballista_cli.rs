//! `spores ballista scheduler|executor|cluster`: a Ballista cluster whose scheduler and
//! executors are spores' own processes, so that they decode spores' plan pieces (held
//! lookups and folds, `spores_dist::codec`).
//!
//! `cluster` starts a scheduler and N executor processes of this binary on this machine,
//! each executor on its own ports and work directory, optionally pinned to one core
//! (`--pin`, through `taskset`), prints the scheduler's address on stdout and one line per
//! process on stderr, and serves until stopped. The processes it starts end when it does:
//! each watches its parent (`--exit-with-parent`).

use std::process::ExitCode;

use clap::Subcommand;

/// `spores ballista ...`.
#[derive(Subcommand)]
pub enum BallistaCommand {
    /// Start a scheduler and N executors as processes of this binary on this machine,
    /// print the scheduler's address (`ballista://localhost:PORT`) and serve until
    /// stopped: for trying `--engine ballista://...` and measuring executors.
    Cluster(ClusterFlags),
    /// Serve a Ballista scheduler that decodes spores' plans.
    Scheduler(SchedulerFlags),
    /// Serve a Ballista executor that decodes and runs spores' plans, registered with a
    /// scheduler. Parquet inputs must be readable at the paths the client gives.
    Executor(ExecutorFlags),
}

/// The flags of `spores ballista cluster`.
#[derive(clap::Args)]
pub struct ClusterFlags {
    /// Number of executors.
    #[arg(long, default_value_t = 2)]
    executors: usize,
    /// Tasks each executor runs at once (default: 1 with --pin, else the cores).
    #[arg(long, value_name = "N")]
    slots: Option<usize>,
    /// Memory each executor's operators may hold before they spill (bytes, or with
    /// K/M/G/T; default: the physical memory).
    #[arg(long, value_name = "SIZE", value_parser = spores_exec::memory::parse_size)]
    memory: Option<u64>,
    /// Pin executor k to core k (modulo the cores), with `taskset`.
    #[arg(long)]
    pin: bool,
}

/// The flags of `spores ballista scheduler`.
#[derive(clap::Args)]
pub struct SchedulerFlags {
    /// The gRPC port clients and executors reach it on.
    #[arg(long, default_value_t = 50050)]
    port: u16,
    /// The address it listens on.
    #[arg(long, default_value = "0.0.0.0")]
    bind: String,
    /// End when the process that started this one ends (for `spores ballista cluster`).
    #[arg(long, hide = true)]
    exit_with_parent: bool,
}

/// The flags of `spores ballista executor`.
#[derive(clap::Args)]
pub struct ExecutorFlags {
    /// The scheduler's gRPC address.
    #[arg(long, value_name = "HOST:PORT", default_value = "localhost:50050")]
    scheduler: String,
    /// Its Arrow Flight port; its gRPC port is the next one.
    #[arg(long, default_value_t = 50051)]
    port: u16,
    /// The address it listens on.
    #[arg(long, default_value = "0.0.0.0")]
    bind: String,
    /// The host name the scheduler and the other executors reach it by.
    #[arg(long, default_value = "localhost")]
    external_host: String,
    /// Tasks it runs at once (default: the cores).
    #[arg(long, value_name = "N")]
    slots: Option<usize>,
    /// Memory its operators may hold before they spill (bytes, or with K/M/G/T;
    /// default: the physical memory).
    #[arg(long, value_name = "SIZE", value_parser = spores_exec::memory::parse_size)]
    memory: Option<u64>,
    /// Where its shuffle files go (default: a temporary directory).
    #[arg(long, value_name = "DIR")]
    work_dir: Option<String>,
    /// End when the process that started this one ends (for `spores ballista cluster`).
    #[arg(long, hide = true)]
    exit_with_parent: bool,
}

#[cfg(not(feature = "ballista"))]
pub fn run(_: BallistaCommand) -> ExitCode {
    eprintln!(
        "error: this spores was built without the `ballista` feature \
         (build it with `cargo build --release -p spores --features ballista`)"
    );
    ExitCode::from(2)
}

#[cfg(feature = "ballista")]
pub fn run(command: BallistaCommand) -> ExitCode {
    match command {
        BallistaCommand::Cluster(flags) => match serve::cluster(flags) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::FAILURE
            }
        },
        BallistaCommand::Scheduler(flags) => {
            if flags.exit_with_parent {
                serve::exit_with_parent();
            }
            let error = spores_dist::ballista::process::serve_scheduler(&flags.bind, flags.port);
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
        BallistaCommand::Executor(flags) => {
            if flags.exit_with_parent {
                serve::exit_with_parent();
            }
            let options = spores_dist::ballista::process::ExecutorOptions {
                scheduler: flags.scheduler,
                bind: flags.bind,
                external_host: flags.external_host,
                port: flags.port,
                task_slots: flags.slots.unwrap_or_else(serve::cores),
                memory_bytes: serve::memory(flags.memory),
                work_dir: flags.work_dir,
            };
            let error = spores_dist::ballista::process::serve_executor(options);
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(feature = "ballista")]
mod serve {
    use std::io::Write;
    use std::net::{TcpListener, TcpStream};
    use std::process::{Child, Command, Stdio};
    use std::time::{Duration, Instant};

    use super::ClusterFlags;

    pub fn cores() -> usize {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    }

    pub fn memory(flag: Option<u64>) -> usize {
        flag.map_or_else(
            || spores_exec::memory::budget().min(usize::MAX as f64) as usize,
            |m| m.min(usize::MAX as u64) as usize,
        )
    }

    /// Ends this process once its parent has ended (it is then re-parented).
    pub fn exit_with_parent() {
        let parent = std::os::unix::process::parent_id();
        std::thread::spawn(move || loop {
            std::thread::sleep(Duration::from_millis(250));
            if std::os::unix::process::parent_id() != parent {
                std::process::exit(0);
            }
        });
    }

    /// A port nobody listens on now, with the next one free too (an executor's gRPC
    /// port follows its Flight port).
    fn free_port_pair() -> Result<u16, String> {
        for _ in 0..100 {
            let first = TcpListener::bind("127.0.0.1:0").map_err(|e| e.to_string())?;
            let port = first.local_addr().map_err(|e| e.to_string())?.port();
            if port < u16::MAX && TcpListener::bind(("127.0.0.1", port + 1)).is_ok() {
                return Ok(port);
            }
        }
        Err("no two consecutive free ports on localhost".into())
    }

    /// The processes of the cluster, ended when dropped.
    struct Processes(Vec<Child>);

    impl Drop for Processes {
        fn drop(&mut self) {
            for child in &mut self.0 {
                let _ = child.kill();
                let _ = child.wait();
            }
        }
    }

    fn spawn(pin: Option<usize>, args: &[String]) -> Result<Child, String> {
        let exe = std::env::current_exe().map_err(|e| format!("cannot find this binary: {e}"))?;
        let mut command = match pin {
            Some(core) => {
                let mut c = Command::new("taskset");
                c.args(["-c", &core.to_string()]).arg(&exe);
                c
            }
            None => Command::new(&exe),
        };
        command
            .args(args)
            .arg("--exit-with-parent")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .spawn()
            .map_err(|e| match pin {
                Some(_) => format!("cannot start `taskset -c ... {}`: {e}", exe.display()),
                None => format!("cannot start {}: {e}", exe.display()),
            })
    }

    /// Waits until something listens on `port` (up to 30 s).
    fn wait_for(port: u16, child: &mut Child, what: &str) -> Result<(), String> {
        let start = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            if let Ok(Some(status)) = child.try_wait() {
                return Err(format!("the {what} ended before it listened: {status}"));
            }
            if start.elapsed() > Duration::from_secs(30) {
                return Err(format!(
                    "the {what} did not listen on port {port} within 30 s"
                ));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Ok(())
    }

    pub fn cluster(flags: ClusterFlags) -> Result<(), String> {
        let slots = flags
            .slots
            .unwrap_or(if flags.pin { 1 } else { cores() })
            .max(1);
        let memory = memory(flags.memory);
        let mut processes = Processes(Vec::new());
        let port = free_port_pair()?;
        processes.0.push(spawn(
            None,
            &[
                "ballista".into(),
                "scheduler".into(),
                "--bind".into(),
                "127.0.0.1".into(),
                "--port".into(),
                port.to_string(),
            ],
        )?);
        let scheduler = processes.0.last_mut().expect("just pushed");
        eprintln!("scheduler: pid {}, port {port}", scheduler.id());
        wait_for(port, scheduler, "scheduler")?;
        let work = std::env::temp_dir().join(format!("spores-ballista-{}", std::process::id()));
        for k in 0..flags.executors {
            let executor_port = free_port_pair()?;
            let dir = work.join(format!("executor-{k}"));
            std::fs::create_dir_all(&dir)
                .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
            let args = [
                "ballista".into(),
                "executor".into(),
                "--scheduler".into(),
                format!("localhost:{port}"),
                "--bind".into(),
                "127.0.0.1".into(),
                "--port".into(),
                executor_port.to_string(),
                "--slots".into(),
                slots.to_string(),
                "--memory".into(),
                memory.to_string(),
                "--work-dir".into(),
                dir.display().to_string(),
            ];
            let pin = flags.pin.then_some(k % cores());
            let mut child = spawn(pin, &args)?;
            wait_for(executor_port, &mut child, "executor")?;
            let core = pin.map_or(String::new(), |c| format!(", core {c}"));
            eprintln!(
                "executor {k}: pid {}, port {executor_port}{core}",
                child.id()
            );
            processes.0.push(child);
        }
        println!("ballista://localhost:{port}");
        let _ = std::io::stdout().flush();
        eprintln!(
            "{} executors of {slots} task slots and {memory} bytes each; stop with Ctrl-C",
            flags.executors
        );
        // Serve until the scheduler ends; a lost executor is reported, and the scheduler
        // runs its tasks on the others.
        let mut reported = vec![false; processes.0.len()];
        loop {
            for (k, child) in processes.0.iter_mut().enumerate() {
                let Ok(Some(status)) = child.try_wait() else {
                    continue;
                };
                if k == 0 {
                    let _ = std::fs::remove_dir_all(&work);
                    return Err(format!("the scheduler ended: {status}"));
                }
                if !reported[k] {
                    reported[k] = true;
                    eprintln!("executor {}: pid {} ended: {status}", k - 1, child.id());
                }
            }
            std::thread::sleep(Duration::from_millis(250));
        }
    }
}
