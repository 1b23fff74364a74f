//! Round trips of the corpus in `tests/corpus`: each file is loaded through `mlir-opt-19`
//! (normalized to generic form), printed, re-parsed (must be equal), verified by `mlir-opt-19`,
//! and normalized again by `mlir-opt-19` (must give the same module: our print means the same
//! program to MLIR). Skips with a note when `mlir-opt-19` is not installed; CI installs it.

mod common;

use std::path::PathBuf;

use common::corpus;
use spores_mlir::egg::count_ops;

use spores_mlir::{
    find_mlir_opt, load, parse, print, verify_text, LoadError, LoadOptions, Module, Normalize,
    PrintOptions,
};

fn tool_or_skip(test: &str) -> Option<PathBuf> {
    let t = find_mlir_opt();
    if t.is_none() {
        eprintln!(
            "note: {test} skipped: mlir-opt-19 is not installed (apt-get install mlir-19-tools)"
        );
    }
    t
}

#[test]
fn corpus_is_not_empty() {
    assert!(
        corpus().len() >= 10,
        "the corpus should hold at least 10 files"
    );
}

#[test]
fn corpus_round_trips_through_mlir_opt() {
    let Some(tool) = tool_or_skip("corpus_round_trips_through_mlir_opt") else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("spores-mlir-corpus-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    for file in corpus() {
        for keep_locations in [false, true] {
            let opts = LoadOptions {
                keep_locations,
                normalize: Normalize::Always,
                mlir_opt: Some(tool.clone()),
            };
            let name = file.display();
            let m = load(&file, &opts).unwrap_or_else(|e| panic!("{name}: load failed: {e}"));
            let text = print(&m, PrintOptions::default());
            let m2 =
                parse(&text).unwrap_or_else(|e| panic!("{name}: re-parse failed: {e}\n{text}"));
            assert_eq!(
                m, m2,
                "{name} (locations {keep_locations}): re-parse differs"
            );
            assert_eq!(
                print(&m2, PrintOptions::default()),
                text,
                "{name}: printing is not a fixed point"
            );
            if let Err(diag) = verify_text(&tool, &text) {
                panic!("{name} (locations {keep_locations}): mlir-opt rejects our print:\n{diag}\n{text}");
            }
            if !keep_locations {
                // Normalizing our print again must give back the same module.
                let out = dir.join(file.file_name().expect("file name"));
                std::fs::write(&out, &text).expect("write temp file");
                let again =
                    load(&out, &opts).unwrap_or_else(|e| panic!("{name}: reload failed: {e}"));
                assert_eq!(
                    m, again,
                    "{name}: mlir-opt reads our print as a different program"
                );
                eprintln!(
                    "{}: {} ops, round trip ok",
                    file.file_name().unwrap_or_default().to_string_lossy(),
                    count_ops(&m.ops)
                );
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn locations_are_kept_or_dropped() {
    let Some(tool) = tool_or_skip("locations_are_kept_or_dropped") else {
        return;
    };
    let file = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/locations.mlir");
    let mut opts = LoadOptions {
        keep_locations: true,
        normalize: Normalize::Always,
        mlir_opt: Some(tool),
    };
    let kept = load(&file, &opts).expect("load with locations");
    let text = print(&kept, PrintOptions::default());
    for needle in ["input.py", "fused", "callsite", "e.py"] {
        assert!(text.contains(needle), "{needle} missing from\n{text}");
    }
    let no_locs = print(
        &kept,
        PrintOptions {
            locations: false,
            ..PrintOptions::default()
        },
    );
    assert!(!no_locs.contains("loc("), "{no_locs}");
    opts.keep_locations = false;
    let dropped: Module = load(&file, &opts).expect("load without locations");
    assert!(dropped.loc_aliases.is_empty());
    assert!(!print(&dropped, PrintOptions::default()).contains("loc("));
    assert_eq!(parse(&no_locs).expect("parse"), dropped);
}

/// Loads `tests/corpus/NAME` without normalizing it through `mlir-opt`.
fn load_as_written(name: &str) -> Result<Module, LoadError> {
    let file = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/corpus")
        .join(name);
    let opts = LoadOptions {
        normalize: Normalize::Never,
        ..LoadOptions::default()
    };
    load(&file, &opts)
}

#[test]
fn generic_files_load_without_mlir_opt() {
    let m = load_as_written("generic_form.mlir").expect("generic file parses directly");
    assert_eq!(m.ops.len(), 1);
    assert_eq!(m.ops[0].name, "builtin.module");
    assert_eq!(count_ops(&m.ops), 7);
}

#[test]
fn custom_files_need_mlir_opt() {
    let e = load_as_written("arith_math.mlir").expect_err("custom syntax is not generic");
    let msg = e.to_string();
    assert!(msg.contains("arith_math.mlir:3:1:"), "{msg}");
    assert!(msg.contains("generic"), "{msg}");
}
