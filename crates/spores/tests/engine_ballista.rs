//! `spores run|tensor --engine ballista://HOST:PORT` against a `spores ballista cluster`
//! of two executors: scripts (in-memory values and a Parquet input read by the executors)
//! and a tensor program print what the local engines print. Without the `ballista`
//! feature, the flag and the subcommand are errors that say how to build it.

mod common;

use common::run_dml_with;

#[cfg(feature = "ballista")]
mod cluster {
    use std::io::{BufRead, BufReader};
    use std::process::{Child, Command, Stdio};

    /// A `spores ballista cluster` process (a scheduler and executor processes of its
    /// own), stopped when dropped.
    pub struct ClusterProcess {
        child: Child,
        pub address: String,
        /// The executors' process ids.
        pub executors: Vec<u32>,
    }

    impl ClusterProcess {
        pub fn start(executors: usize) -> ClusterProcess {
            let mut child = Command::new(env!("CARGO_BIN_EXE_spores"))
                .args(["ballista", "cluster", "--slots", "1", "--memory", "64M"])
                .args(["--executors", &executors.to_string()])
                // The executors' work directories (shuffle files) under the target's.
                .env("TMPDIR", env!("CARGO_TARGET_TMPDIR"))
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("spores starts");
            let mut line = String::new();
            BufReader::new(child.stdout.take().expect("piped stdout"))
                .read_line(&mut line)
                .expect("the cluster prints its address");
            let address = line.trim().to_string();
            assert!(address.starts_with("ballista://localhost:"), "{address:?}");
            // `executor K: pid N, port P` per executor, then a summary line.
            let mut pids = Vec::new();
            let mut stderr = BufReader::new(child.stderr.take().expect("piped stderr"));
            loop {
                line.clear();
                stderr.read_line(&mut line).expect("the cluster reports");
                if let Some(rest) = line.strip_prefix("executor ") {
                    let pid = rest.split("pid ").nth(1).and_then(|p| p.split(',').next());
                    pids.push(pid.and_then(|p| p.trim().parse().ok()).expect("a pid"));
                }
                if line.contains("executors of") || line.is_empty() {
                    break;
                }
            }
            assert_eq!(pids.len(), executors, "executor pids");
            // Drain the rest (a lost executor is reported there).
            std::thread::spawn(move || {
                let mut sink = String::new();
                while stderr.read_line(&mut sink).is_ok_and(|n| n > 0) {
                    sink.clear();
                }
            });
            ClusterProcess {
                child,
                address,
                executors: pids,
            }
        }
    }

    impl Drop for ClusterProcess {
        fn drop(&mut self) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// The squared loss, the multiplication chain and an ALS gradient on sparse generated
/// data, then the chain on the same X written to and read back from Parquet.
#[cfg(feature = "ballista")]
fn script(parquet: &std::path::Path) -> String {
    format!(
        r#"
X = rand(rows=300, cols=200, sparsity=0.05, min=1, max=5, seed=1)
U = rand(rows=300, cols=8, min=0, max=1, seed=2)
V = rand(rows=200, cols=8, min=0, max=1, seed=3)
v = rand(rows=200, cols=1, min=0, max=1, seed=4)
print("loss " + sum((X - U %*% t(V))^2))
w = t(X) %*% (X %*% v)
print("chain " + sum(w) + " " + as.scalar(w[7, 1]))
G = (U %*% t(V) - X) %*% V + 0.1 * U
print("gradient " + sum(G^2) + " " + as.scalar(G[3, 2]))
write(X, "{path}")
Y = read("{path}")
print("file " + sum(t(Y) %*% (Y %*% v)))
"#,
        path = parquet.display()
    )
}

#[cfg(feature = "ballista")]
#[test]
fn scripts_and_tensor_programs_print_what_the_local_engine_prints() {
    let cluster = cluster::ClusterProcess::start(2);
    let parquet = |name: &str| {
        let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("spores-ballista");
        std::fs::create_dir_all(&dir).unwrap();
        dir.join(name)
    };
    let local = run_dml_with(
        "als.dml",
        &script(&parquet("local.parquet")),
        &["--full-search"],
    )
    .unwrap();
    let explained = run_dml_with(
        "als.dml",
        &script(&parquet("ballista.parquet")),
        &["--full-search", "--explain", "--engine", &cluster.address],
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(explained.contains("= relational["), "{explained}");
    let printed =
        common::lines_starting_with(&explained, &["loss ", "chain ", "gradient ", "file "]);
    let want = common::numbers(&local);
    assert_eq!(want.len(), 6, "{local}");
    common::assert_close(&common::numbers(&printed), &want, 1e-9);

    // Under a small budget the file input is too large to hold, so its small operands
    // are held and its small sums folded: on the executor processes, through spores'
    // codec (stock executors could not decode those plans).
    let held = run_dml_with(
        "als.dml",
        &script(&parquet("held.parquet")),
        &[
            "--full-search",
            "--memory",
            "600K",
            "--engine",
            &cluster.address,
        ],
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let printed = common::lines_starting_with(&held, &["loss ", "chain ", "gradient ", "file "]);
    common::assert_close(&common::numbers(&printed), &want, 1e-9);

    let a = common::temp_file("ballista_a.mtx", common::SMALL_SPARSE_MTX);
    let program = common::temp_file(
        "ballista.tn",
        "y[i] = sum[j](A[i,j] * A[i,j])\nt = max[i](y[i])\noutput y, t\n",
    );
    let a_input = format!("--input=A={}", a.display());
    let program = program.to_str().unwrap();
    let run = |engine: &str| common::spores_ok(&["tensor", program, &a_input, "--engine", engine]);
    let local = run("local");
    assert_eq!(
        common::numbers(&local),
        vec![3.0, 6.25, 1.0, 16.25, 16.25],
        "{local}"
    );
    assert_eq!(run(&cluster.address), local);
}

/// `t(Y) %*% (Y %*% v)` with `Y` a Parquet file too large to hold: the client folds
/// `Y %*% v`, 140,000 cells (more than a plan carries inline), and the second plan names
/// a file written beside `Y` that the executor processes read instead of carrying the
/// cells. The script prints the local engine's number and leaves no file behind. With
/// `held_dir` naming a directory that does not exist, the cells travel inline and the
/// client says so: the same numbers, one warning.
#[cfg(feature = "ballista")]
#[test]
fn a_large_intermediate_travels_to_the_executors_as_a_file() {
    let cluster = cluster::ClusterProcess::start(2);
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("spores-ballista-held");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let script = |name: &str| {
        format!(
            r#"
X = rand(rows=140000, cols=40, sparsity=0.003, min=1, max=5, seed=5)
v = rand(rows=40, cols=1, min=0, max=1, seed=6)
write(X, "{path}")
Y = read("{path}")
w = t(Y) %*% (Y %*% v)
print("chain " + sum(w) + " " + as.scalar(w[3, 1]))
"#,
            path = dir.join(name).display()
        )
    };
    let local = run_dml_with("held_file.dml", &script("local.parquet"), &[]).unwrap();
    let want = common::numbers(&local);
    assert_eq!(want.len(), 2, "{local}");
    let inline_warning = "travels inside the plan";
    let on = |engine: &str| {
        let flags = ["--memory", "8M", "--engine", engine];
        let (code, stdout, stderr) =
            common::run_file("held_file.dml", &script("cluster.parquet"), &flags);
        assert_eq!(code, 0, "{engine}: {stderr}");
        common::assert_close(&common::numbers(&stdout), &want, 1e-9);
        stderr
    };
    let as_file = on(&cluster.address);
    assert!(!as_file.contains(inline_warning), "{as_file}");
    let missing = dir.join("missing");
    let inline = on(&format!(
        "{}?held_dir={}",
        cluster.address,
        missing.display()
    ));
    assert!(inline.contains(inline_warning), "{inline}");
    let left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with(".spores-held-"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// A script of many plans on two executor processes, one of them killed (SIGKILL) while
/// the script runs: spores' scheduler cancels the jobs that were running, the client runs
/// them again on the other executor, and the script prints what the local engine prints
/// (Ballista's own stage rollback could count a partition twice; see
/// `spores_dist::ballista::lost_executor`). It never hangs: the client gives up after 120 s.
#[cfg(feature = "ballista")]
#[test]
fn a_script_survives_an_executor_killed_in_the_middle() {
    let cluster = cluster::ClusterProcess::start(2);
    let out = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("spores-ballista-killed.csv");
    let _ = std::fs::remove_file(&out);
    let script = format!(
        r#"
X = rand(rows=400, cols=300, sparsity=0.05, min=1, max=5, seed=1)
v = rand(rows=300, cols=1, min=0, max=1, seed=4)
s = 0
for (k in 1:40) {{
  w = t(X) %*% (X %*% (v + k))
  s = s + sum(w)
}}
print("total " + s)
write(matrix(s, rows=1, cols=1), "{out}", format="csv")
"#,
        out = out.display()
    );
    let local = run_dml_with("killed.dml", &script, &[]).unwrap();
    std::fs::remove_file(&out).unwrap();
    let victim = cluster.executors[1];
    let killer = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(1500));
        std::process::Command::new("kill")
            .args(["-9", &victim.to_string()])
            .status()
            .expect("kill runs")
    });
    let engine = format!("{}?timeout=120", cluster.address);
    let on_cluster = run_dml_with("killed.dml", &script, &["--engine", &engine]);
    assert!(killer.join().unwrap().success(), "the executor was running");
    let printed = on_cluster.expect("the script finishes on the executor left");
    common::assert_close(&common::numbers(&printed), &common::numbers(&local), 1e-9);
    assert!(out.exists());
}

/// Why `print(1)` with `--engine ENGINE` fails.
fn engine_error(engine: &str) -> String {
    run_dml_with("tiny.dml", "print(1)\n", &["--engine", engine]).unwrap_err()
}

#[cfg(feature = "ballista")]
#[test]
fn an_address_without_a_port_is_a_usage_error() {
    let err = engine_error("ballista://localhost");
    assert!(err.contains("HOST:PORT"), "{err}");
}

#[cfg(not(feature = "ballista"))]
#[test]
fn without_the_feature_the_engine_and_the_cluster_say_how_to_build_it() {
    let err = engine_error("ballista://localhost:50050");
    assert!(err.contains("--features ballista"), "{err}");
    let (code, _, err) = common::spores_cli(&["ballista", "cluster"]);
    assert_eq!(code, 2);
    assert!(err.contains("--features ballista"), "{err}");
}
