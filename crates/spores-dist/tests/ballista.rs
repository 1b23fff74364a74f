//! Plans on a Ballista cluster started in this process: a scheduler and two executors on
//! localhost ports the OS picks, every shuffle read forced through Arrow Flight as
//! between machines. Random programs (as written and optimized), tensor programs and
//! Parquet inputs give the local engines' values; a file the local engine's budget
//! refuses is summed by executors whose own budget makes them spill.

#![cfg(feature = "ballista")]

#[path = "../../spores-opt/tests/common/mod.rs"]
mod common;
mod differential;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Mutex, OnceLock};

use common::Rng;
use differential::{assert_none, factorization_inputs, rand};
use spores_dist::ballista::{start_local_cluster, Cluster, ExecutorConfig};
use spores_dist::{DataFusionEngine, EngineConfig, Input};
use spores_exec::io::parquet_coo::{self, CooFile};
use spores_exec::{CsrMatrix, Matrix};
use spores_opt::eval::eval;
use spores_opt::la::LaExpr;

/// Bytes each executor's operators may hold before they spill.
const EXECUTOR_MEMORY: usize = 16 << 20;

/// Held while a test changes the local engine's memory budget, or evaluates with it.
static LOCAL_BUDGET: Mutex<()> = Mutex::new(());

/// The scheduler's port; the cluster lives in its own runtime for the whole test binary.
fn scheduler_port() -> u16 {
    static CLUSTER: OnceLock<(tokio::runtime::Runtime, u16)> = OnceLock::new();
    let (_, port) = CLUSTER.get_or_init(|| {
        // `RUST_LOG=ballista_scheduler=info,...` shows what the cluster does.
        let _ = env_logger::builder().is_test(true).try_init();
        // The executors' work directories (shuffle files) go under $TMPDIR: the target
        // directory's, not the machine's.
        std::env::set_var("TMPDIR", dir("work"));
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let config = ExecutorConfig {
            task_slots: 2,
            memory_bytes: EXECUTOR_MEMORY,
        };
        let address = runtime
            .block_on(start_local_cluster(2, config))
            .unwrap_or_else(|e| panic!("{e}"));
        (runtime, address.port())
    });
    *port
}

fn engine() -> DataFusionEngine {
    let cluster = Cluster::parse(&format!("ballista://localhost:{}", scheduler_port()))
        .unwrap()
        .with_force_remote_read(true);
    let config = EngineConfig {
        threads: 4,
        ..EngineConfig::default()
    };
    DataFusionEngine::on_ballista(config, cluster).unwrap()
}

/// Test data under the target directory (one directory per test).
fn dir(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("spores-dist-ballista")
        .join(name);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn cases() -> u64 {
    differential::env_count("SPORES_BALLISTA_CASES", 12)
}

#[test]
fn random_programs_match_the_local_engine() {
    let engine = engine();
    assert_eq!(engine.name(), "ballista");
    let (failures, _) = differential::la::random_program_failures(&engine, 0..cases());
    assert_none(&failures);
}

#[test]
fn tensor_programs_match_the_local_engine() {
    use differential::tensor::{compare, inputs, random_program_failures, PROGRAMS};
    let engine = engine();
    let mut failures = Vec::new();
    let ins = inputs(&mut Rng(1), [1.0, 0.0, -0.5]);
    for src in PROGRAMS.iter().step_by(3) {
        if let Err(e) = compare(&engine, src, &ins) {
            failures.push(e);
        }
    }
    failures.extend(random_program_failures(&engine, 0..cases()).0);
    assert_none(&failures);
}

#[test]
fn parquet_inputs_are_scanned_by_the_executors() {
    let (memory, scanned) = factorization_inputs(&dir("parquet"));
    let engine = engine();
    for text in [
        "t(X) %*% (X %*% v)",
        "sum((X - U %*% t(V))^2)",
        "wsloss(X, U, V)",
        "(U %*% t(V) - X) %*% V + 0.1 * U",
    ] {
        let e = LaExpr::parse(text).unwrap();
        let want = {
            let _budget = LOCAL_BUDGET.lock().unwrap();
            eval(&spores_opt::fused::expand_fused(&e), &memory).unwrap()
        };
        let got = engine
            .run(&e, &scanned)
            .unwrap_or_else(|err| panic!("{text}: {err}"));
        assert!(got.approx_eq(&want, 1e-9), "`{text}`");
    }
}

/// Beside a file too large to hold (X, 480 KB dense against 100 KB), the small operands
/// travel inside the plans to the executors, which read them by index and fold the small
/// sums next to the data (spores' codec): the values are the local engine's.
#[test]
fn held_operands_and_folds_run_on_the_executors() {
    let (memory, scanned) = factorization_inputs(&dir("held"));
    let cluster = Cluster::parse(&format!("ballista://localhost:{}", scheduler_port()))
        .unwrap()
        .with_force_remote_read(true);
    let config = EngineConfig {
        threads: 3,
        hold_bytes: 100_000,
        ..EngineConfig::default()
    };
    let engine = DataFusionEngine::on_ballista(config, cluster).unwrap();
    for (text, step) in [
        ("t(X) %*% (X %*% v)", "a sum folded into a 300x1 array"),
        ("X %*% V", "a sum folded into a 300x6 array"),
        ("wsloss(X, U, V)", "a sum folded into a 1x1 array"),
        ("sum((X - U %*% t(V))^2)", "holding `V`"),
        (
            "(U %*% t(V) - X) %*% V + 0.1 * U",
            "a sum folded into a 300x6 array",
        ),
        ("X * t(v) + X", "holding `v`"),
    ] {
        let e = LaExpr::parse(text).unwrap();
        let want = {
            let _budget = LOCAL_BUDGET.lock().unwrap();
            eval(&spores_opt::fused::expand_fused(&e), &memory).unwrap()
        };
        let (got, taken) = engine
            .run_with_steps(&e, &scanned)
            .unwrap_or_else(|err| panic!("`{text}`: {err}"));
        assert!(got.approx_eq(&want, 1e-9), "`{text}`");
        assert!(
            taken.iter().any(|t| t.contains(step)),
            "`{text}`: no `{step}` in {taken:?}"
        );
    }
}

#[test]
fn a_file_over_the_local_budget_is_summed_by_spilling_executors() {
    // `sum(X + 1)` as written: X broadcast-added to 1 over all 1.44M cells and grouped by
    // cell, about 100 MB of hash table, on executors of 16 MB each.
    let n = 1200;
    let triplets: Vec<(usize, usize, f64)> = (0..n).map(|k| (k, (7 * k) % n, 2.0)).collect();
    let x = Matrix::Sparse(CsrMatrix::from_triplets(n, n, &triplets).unwrap());
    let path = dir("budget").join("x.parquet");
    parquet_coo::write(&x, &path).unwrap();
    // The local engine's budget refuses to read the file (its matrix needs about 24 kB).
    let refused = {
        let _budget = LOCAL_BUDGET.lock().unwrap();
        let budget = spores_exec::memory::budget();
        spores_exec::memory::set_budget(16 << 10);
        let refused = parquet_coo::read(&path);
        spores_exec::memory::set_budget(budget.min(u64::MAX as f64) as u64);
        refused
    };
    let err = refused.expect_err("the local read should not fit 16 kB");
    assert!(err.to_string().contains("budget"), "{err}");

    let inputs: HashMap<String, Input> =
        [("X".to_string(), CooFile::open(&path).unwrap().into())].into();
    let e = LaExpr::parse("sum(X + 1)").unwrap();
    let got = engine()
        .run(&e, &inputs)
        .unwrap_or_else(|err| panic!("{err}"));
    assert_eq!(got.as_scalar(), Some((n * n) as f64 + 2.0 * n as f64));
}

#[test]
fn an_unreachable_scheduler_is_named_in_the_error() {
    // A port nothing listens on: bind one, then let it go.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let cluster = Cluster::parse(&format!("df://127.0.0.1:{port}")).unwrap();
    let engine = DataFusionEngine::on_ballista(EngineConfig::default(), cluster).unwrap();
    let inputs: HashMap<String, Matrix> = [("X".to_string(), rand(3, 3, 1.0, 5))].into();
    let err = engine
        .run(&LaExpr::parse("sum(X)").unwrap(), &inputs)
        .unwrap_err()
        .to_string();
    assert!(err.contains(&format!("127.0.0.1:{port}")), "{err}");
}

#[test]
fn a_scheduler_that_never_answers_ends_in_the_timeout() {
    // A listener that accepts connections and never answers: the client's gRPC call
    // waits until the `?timeout=` passes.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        let held: Vec<_> = listener.incoming().take(8).collect();
        std::thread::sleep(std::time::Duration::from_secs(60));
        drop(held);
    });
    let cluster = Cluster::parse(&format!("ballista://127.0.0.1:{port}?timeout=1.5")).unwrap();
    assert_eq!(
        cluster.timeout(),
        Some(std::time::Duration::from_millis(1500))
    );
    let engine = DataFusionEngine::on_ballista(EngineConfig::default(), cluster).unwrap();
    let inputs: HashMap<String, Matrix> = [("X".to_string(), rand(3, 3, 1.0, 5))].into();
    let started = std::time::Instant::now();
    let err = engine
        .run(&LaExpr::parse("sum(X)").unwrap(), &inputs)
        .unwrap_err()
        .to_string();
    assert!(err.contains("within 1.5 s"), "{err}");
    assert!(started.elapsed() < std::time::Duration::from_secs(30));
}

#[test]
fn addresses_name_a_scheme_host_and_port() {
    assert_eq!(
        Cluster::parse("ballista://localhost:50050")
            .unwrap()
            .address(),
        "localhost:50050"
    );
    assert_eq!(
        Cluster::parse("df://10.0.0.2:7").unwrap().address(),
        "10.0.0.2:7"
    );
    assert_eq!(Cluster::parse("df://h:1").unwrap().timeout(), None);
    let both = Cluster::parse("ballista://h:1?timeout=2.5&held_dir=/shared/tmp").unwrap();
    assert_eq!(both.timeout(), Some(std::time::Duration::from_millis(2500)));
    assert_eq!(both.held_dir(), Some(std::path::Path::new("/shared/tmp")));
    assert_eq!(Cluster::parse("df://h:1").unwrap().held_dir(), None);
    for bad in [
        "localhost:50050",
        "ballista://localhost",
        "df://:1",
        "ballista://h:x",
        "ballista://h:1?timeout=0",
        "ballista://h:1?deadline=5",
        "ballista://h:1?timeout=5&held_dir=",
        "ballista://h:1?timeout=5&",
    ] {
        let err = Cluster::parse(bad).unwrap_err().to_string();
        assert!(err.contains(bad), "{bad}: {err}");
    }
}
