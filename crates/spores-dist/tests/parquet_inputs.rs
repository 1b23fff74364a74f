//! Inputs scanned from Parquet COO files, row group by row group in several partitions,
//! give the values the same matrices give in memory; a file that may repeat a cell is
//! summed by cell first; a small memory budget does not stall a scan's repartitions.

#[path = "../../spores-opt/tests/common/mod.rs"]
mod common;
mod differential;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use differential::{factorization_inputs, rand, X_GROUP};
use spores_dist::{DataFusionEngine, EngineConfig, Input};
use spores_exec::io::parquet_coo::{self, CooFile};
use spores_exec::Matrix;
use spores_opt::eval::eval;
use spores_opt::la::LaExpr;

fn dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("spores-dist-parquet");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn engine() -> DataFusionEngine {
    let config = EngineConfig {
        threads: 3,
        ..EngineConfig::default()
    };
    DataFusionEngine::new(config).unwrap()
}

#[test]
fn files_scanned_by_row_groups_give_the_in_memory_values() {
    let (memory, scanned) = factorization_inputs(&dir());
    // About 3000 cells in row groups of 700: five groups over three partitions.
    let file = CooFile::open(&dir().join("x.parquet")).unwrap();
    assert_eq!(file.row_groups(), memory["X"].nnz().div_ceil(X_GROUP));

    let engine = engine();
    for text in [
        "wsloss(X, U, V)",
        "sum((X - U %*% t(V))^2)",
        "t(X) %*% (X %*% v)",
        "(U %*% t(V) - X) %*% V + 0.1 * U",
        "X^2 + X",
        "sum(X / (X + 1))",
        "rowSums(X) * 2 - t(colSums(t(X)))",
    ] {
        let e = LaExpr::parse(text).unwrap();
        let want = eval(&spores_opt::fused::expand_fused(&e), &memory).unwrap();
        let got = engine.run(&e, &scanned).unwrap();
        assert!(got.approx_eq(&want, 1e-10), "`{text}`");
    }
}

/// Beside a file too large to hold (X, 480 KB dense against 100 KB), the factors and the
/// vector are held and read by index: the plans call the lookups instead of joining, and
/// give the in-memory values.
#[test]
fn small_operands_beside_a_large_file_are_held_and_read_by_index() {
    let (memory, scanned) = factorization_inputs(&dir());
    let engine = DataFusionEngine::new(EngineConfig {
        threads: 3,
        hold_bytes: 100_000,
        ..EngineConfig::default()
    })
    .unwrap();
    for (text, lookup) in [
        ("wsloss(X, U, V)", "held_row_dot"),
        ("sddmm_sum(X, U, V)", "held_row_dot"),
        ("sddmm(X, U, V)", "held_row_dot"),
        ("t(X) %*% (X %*% v)", "held_cell"),
        ("t(v) %*% t(X)", "held_cell"),
        ("X * t(v) + X", "held_cell"),
        ("X %*% V", "held_cell"),
        ("(U %*% t(V) - X) %*% V + 0.1 * U", "held_cell"),
        ("sum(X / (X + 1))", ""),
    ] {
        let e = LaExpr::parse(text).unwrap();
        let want = eval(&spores_opt::fused::expand_fused(&e), &memory).unwrap();
        let got = engine
            .run(&e, &scanned)
            .unwrap_or_else(|err| panic!("`{text}`: {err}"));
        assert!(got.approx_eq(&want, 1e-10), "`{text}`");
        let plan = engine.explain(&e, &scanned).unwrap();
        assert!(
            plan.contains(lookup),
            "`{text}` does not call {lookup}:\n{plan}"
        );
    }
    // Run, the products with a held operand are folded into arrays, and what reads only
    // held arrays runs on the local kernels, over an intermediate's array where it can.
    for (text, steps) in [
        (
            "t(X) %*% (X %*% v)",
            &[
                "a sum folded into a 300x1 array",
                "a sum folded into a 200x1 array",
            ][..],
        ),
        (
            "U %*% (t(V) %*% V) - X %*% V + 0.1 * U",
            &[
                "a sum folded into a 300x6 array",
                // Written over the arrays of `U %*% (t(V) %*% V)` and of the difference.
                "X %*% V: evaluated on the local kernels over an operand's array",
                "0.1 * U: evaluated on the local kernels over an operand's array",
            ][..],
        ),
        ("rowSums(X * 2)", &["a sum folded into a 300x1 array"][..]),
        // One pass over X's tuples, the gram term on the local kernels.
        (
            "wsloss(X, U, V)",
            &[
                "a sum folded into a 1x1 array",
                "sum(t(U) %*% U * t(V) %*% V): evaluated on the local kernels",
            ][..],
        ),
        (
            "wsloss_plus(X, U, V)",
            &["a sum folded into a 1x1 array"][..],
        ),
    ] {
        let e = LaExpr::parse(text).unwrap();
        let want = eval(&spores_opt::fused::expand_fused(&e), &memory).unwrap();
        let (got, taken) = engine.run_with_steps(&e, &scanned).unwrap();
        assert!(got.approx_eq(&want, 1e-10), "`{text}`");
        for step in steps {
            assert!(
                taken.iter().any(|t| t.contains(step)),
                "`{text}`: no `{step}` in {taken:?}"
            );
        }
    }
    // The gram matrices of wsloss run here: no join of U with itself.
    let plan = engine
        .explain(&LaExpr::parse("wsloss(X, U, V)").unwrap(), &scanned)
        .unwrap();
    assert_eq!(plan.matches("HashJoinExec").count(), 0, "{plan}");
}

#[test]
fn a_file_that_may_repeat_cells_is_summed_by_cell() {
    use parquet::data_type::{DoubleType, Int64Type};
    use parquet::file::properties::WriterProperties;
    use parquet::file::writer::SerializedFileWriter;
    use parquet::schema::parser::parse_message_type;

    // What another writer may produce: (0, 0) twice, no shape, no promise of unique cells.
    let path = dir().join("repeats.parquet");
    let schema =
        parse_message_type("message t { required int64 i; required int64 j; required double v; }")
            .unwrap();
    let props = Arc::new(WriterProperties::builder().build());
    let file = std::fs::File::create(&path).unwrap();
    let mut writer = SerializedFileWriter::new(file, Arc::new(schema), props).unwrap();
    let mut group = writer.next_row_group().unwrap();
    for k in 0..3 {
        let mut column = group.next_column().unwrap().unwrap();
        match k {
            0 => column
                .typed::<Int64Type>()
                .write_batch(&[0, 1, 0], None, None),
            1 => column
                .typed::<Int64Type>()
                .write_batch(&[0, 2, 0], None, None),
            _ => column
                .typed::<DoubleType>()
                .write_batch(&[1.0, 4.0, 2.0], None, None),
        }
        .unwrap();
        column.close().unwrap();
    }
    group.close().unwrap();
    writer.close().unwrap();

    let file = CooFile::open(&path).unwrap();
    assert_eq!((file.rows(), file.cols()), (2, 3));
    assert!(!file.unique_cells());
    let inputs: HashMap<String, Input> = [("X".to_string(), Input::from(file))].into();
    let engine = engine();
    // X = [3 0 0; 0 0 4]: the square of the summed cell, not the sum of the squares.
    let e = LaExpr::parse("sum(X^2)").unwrap();
    let got = engine.run(&e, &inputs).unwrap();
    assert_eq!(got.get(0, 0), 25.0);
    let e = LaExpr::parse("X %*% t(X)").unwrap();
    let got = engine.run(&e, &inputs).unwrap().to_dense();
    assert_eq!(got.data(), &[9.0, 0.0, 0.0, 16.0]);
}

#[test]
fn repartitions_under_a_small_budget_do_not_stall() {
    // `t(X) %*% (X %*% v)` over a file of 10 row groups (1M non-zeros) in pools far
    // smaller than the repartitioned tuples. Under DataFusion 55.2's `FairSpillPool` the
    // repartitions' spill files stalled such runs for good (every worker parked) in about
    // two of nine runs at 16 MB, so each run has a deadline.
    use std::sync::mpsc;
    use std::time::Duration;

    let n = 100_000;
    let x = rand(n, n, 1e-4, 11);
    let v = rand(n, 1, 1.0, 12);
    let dir = dir();
    let path = dir.join("stall.parquet");
    parquet_coo::write_groups(&x, &path, n).unwrap();
    let e = LaExpr::parse("t(X) %*% (X %*% v)").unwrap();
    let memory: HashMap<String, Matrix> =
        [("X".to_string(), x), ("v".to_string(), v.clone())].into();
    let want = eval(&e, &memory).unwrap();
    let inputs: HashMap<String, Input> = [
        ("X".to_string(), CooFile::open(&path).unwrap().into()),
        ("v".to_string(), Input::from(v)),
    ]
    .into();

    for megabytes in [12, 16, 16, 16, 16, 16, 24] {
        let (send, receive) = mpsc::channel();
        let (e, inputs, dir) = (e.clone(), inputs.clone(), dir.clone());
        std::thread::spawn(move || {
            let engine = DataFusionEngine::new(EngineConfig {
                memory_bytes: megabytes << 20,
                threads: 2,
                temp_dir: Some(dir),
                hold_bytes: 0,
            })
            .unwrap();
            let got = engine.run(&e, &inputs).map_err(|err| err.to_string());
            let _ = send.send(got);
        });
        let got = receive
            .recv_timeout(Duration::from_secs(60))
            .unwrap_or_else(|_| panic!("the plan stalled under a {megabytes} MB budget"))
            .unwrap_or_else(|err| panic!("{megabytes} MB: {err}"));
        assert!(got.approx_eq(&want, 1e-10), "{megabytes} MB");
    }
}
