//! Loading when `mlir-opt` cannot be found (simulated with `SPORES_MLIR_OPT` pointing nowhere).
//! Kept in its own test binary because it changes the process environment.

use std::path::PathBuf;

use spores_mlir::{find_mlir_opt, load, LoadError, LoadOptions, Normalize};

#[test]
fn missing_mlir_opt_gives_a_clear_error() {
    std::env::set_var(
        spores_mlir::normalize::MLIR_OPT_ENV,
        "/nonexistent/mlir-opt-19",
    );
    assert_eq!(find_mlir_opt(), None);
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");

    // A custom-syntax file cannot be read.
    let e = load(dir.join("scf_loops.mlir"), &LoadOptions::default()).expect_err("custom form");
    assert!(matches!(e, LoadError::MlirOptMissing { .. }), "{e:?}");
    let msg = e.to_string();
    assert!(msg.contains("mlir-opt-19 was not found"), "{msg}");
    assert!(msg.contains("scf_loops.mlir:"), "{msg}");

    // A generic-form file still loads.
    let m = load(dir.join("generic_form.mlir"), &LoadOptions::default()).expect("generic form");
    assert_eq!(m.ops[0].name, "builtin.module");

    // Unless normalization is required.
    let always = LoadOptions {
        normalize: Normalize::Always,
        ..LoadOptions::default()
    };
    let e = load(dir.join("generic_form.mlir"), &always).expect_err("tool required");
    assert!(matches!(e, LoadError::MlirOptNotFound), "{e:?}");
}
