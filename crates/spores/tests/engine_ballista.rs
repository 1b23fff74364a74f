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

    /// A `spores ballista cluster` process, stopped when dropped.
    pub struct ClusterProcess {
        child: Child,
        pub address: String,
    }

    impl ClusterProcess {
        pub fn start(executors: usize) -> ClusterProcess {
            let mut child = Command::new(env!("CARGO_BIN_EXE_spores"))
                .args(["ballista", "cluster", "--slots", "1", "--memory", "64M"])
                .args(["--executors", &executors.to_string()])
                // The executors' work directories (shuffle files) under the target's.
                .env("TMPDIR", env!("CARGO_TARGET_TMPDIR"))
                .stdout(Stdio::piped())
                .stderr(Stdio::null())
                .spawn()
                .expect("spores starts");
            let mut line = String::new();
            BufReader::new(child.stdout.take().expect("piped stdout"))
                .read_line(&mut line)
                .expect("the cluster prints its address");
            let address = line.trim().to_string();
            assert!(address.starts_with("ballista://localhost:"), "{address:?}");
            ClusterProcess { child, address }
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
