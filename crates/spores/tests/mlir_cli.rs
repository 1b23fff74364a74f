//! `spores mlir opt`: the CLI writes an optimized file atomically, prints the timing
//! breakdown with --stats, and names bad paths and rule errors.

use std::path::PathBuf;

use spores::commands::{mlir_opt, MlirOptArgs};

fn args(input: PathBuf, rules: Option<PathBuf>, output: Option<PathBuf>) -> MlirOptArgs {
    MlirOptArgs {
        input,
        rules,
        output,
        stats: true,
        iter_limit: 100,
        node_limit: 2_000_000,
        time_limit_ms: 10_000,
        extractor: "greedy".into(),
    }
}

fn bench() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../bench/mlir")
}

#[test]
fn optimizes_2mm_to_a_file_with_stats() {
    if spores_mlir::find_mlir_opt().is_none() {
        eprintln!("note: optimizes_2mm_to_a_file_with_stats skipped: mlir-opt-19 not installed");
        return;
    }
    let dir = std::env::temp_dir().join(format!("spores-mlir-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out_path = dir.join("2mm.opt.mlir");
    let a = args(
        bench().join("cases/2mm.mlir"),
        Some(bench().join("matmul.egg")),
        Some(out_path.clone()),
    );
    let (mut out, mut err) = (Vec::new(), Vec::new());
    assert_eq!(mlir_opt(&a, &mut out, &mut err), 0);
    let err = String::from_utf8(err).unwrap();
    for column in ["MLIR->egglog", "saturation", "extraction", "egglog->MLIR"] {
        assert!(err.contains(column), "{err}");
    }
    let text = std::fs::read_to_string(&out_path).unwrap();
    let tool = spores_mlir::find_mlir_opt().unwrap();
    spores_mlir::verify_text(&tool, &text).expect("output verifies");
    // 10x8 inner product first: the 10x150 * 150x8 matmul appears.
    assert!(text.contains("(tensor<10x150xi64>, tensor<150x8xi64>, tensor<10x8xi64>)"));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bad_inputs_are_named() {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let a = args(PathBuf::from("/nonexistent/x.mlir"), None, None);
    assert_eq!(mlir_opt(&a, &mut out, &mut err), 2);
    assert!(String::from_utf8_lossy(&err).contains("/nonexistent/x.mlir"));

    let (mut out, mut err) = (Vec::new(), Vec::new());
    let a = args(
        bench().join("cases/2mm.mlir"),
        Some(PathBuf::from("/nonexistent/r.egg")),
        None,
    );
    assert_eq!(mlir_opt(&a, &mut out, &mut err), 2);
    assert!(String::from_utf8_lossy(&err).contains("/nonexistent/r.egg"));

    let dir = std::env::temp_dir().join(format!("spores-mlir-cli-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.egg");
    std::fs::write(&bad, "(rule ((= ?x (no_such_op ?y))) ((union ?x ?y)))").unwrap();
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let a = args(bench().join("cases/2mm.mlir"), Some(bad), None);
    if spores_mlir::find_mlir_opt().is_some() {
        assert_eq!(mlir_opt(&a, &mut out, &mut err), 1);
        let msg = String::from_utf8_lossy(&err).to_string();
        assert!(msg.contains("rules") && msg.contains("bad.egg"), "{msg}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// A rule file in the 2024 egglog dialect DialEgg writes (`function` without `:merge`,
/// `unstable-cost`, `run-schedule`) is read as it is written.
#[test]
fn reads_a_rule_file_in_dialeggs_dialect() {
    let fixtures =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../spores-mlir/tests/egglog2024");
    let dir = std::env::temp_dir().join(format!("spores-mlir-cli-2024-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // DialEgg's files include their base relative to DialEgg's root; here, by full path.
    let chain = std::fs::read_to_string(fixtures.join("chain.egg")).unwrap();
    let base = fixtures.join("base.egg").canonicalize().unwrap();
    let rules = dir.join("chain.egg");
    std::fs::write(
        &rules,
        chain.replace("tests/egglog2024/base.egg", &base.display().to_string()),
    )
    .unwrap();
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let a = args(fixtures.join("chain.mlir"), Some(rules.clone()), None);
    assert_eq!(
        mlir_opt(&a, &mut out, &mut err),
        0,
        "{}",
        String::from_utf8_lossy(&err)
    );
    let text = String::from_utf8(out).unwrap();
    // Y Z first: the 10x150 * 150x8 matmul appears.
    assert!(
        text.contains("(tensor<10x150xf32>, tensor<150x8xf32>, tensor<10x8xf32>)"),
        "{text}"
    );

    let bad = dir.join("bad.egg");
    std::fs::write(
        &bad,
        format!("(include \"{}\")\n(extract (F32))", base.display()),
    )
    .unwrap();
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let a = args(fixtures.join("chain.mlir"), Some(bad.clone()), None);
    assert_eq!(mlir_opt(&a, &mut out, &mut err), 2);
    let msg = String::from_utf8_lossy(&err).to_string();
    assert!(
        msg.contains(&format!("{}:2:1: `(extract ...)`", bad.display())),
        "{msg}"
    );
    std::fs::remove_dir_all(&dir).ok();
}
