//! Eggify → de-eggify with no rules: every corpus file comes back as a module `mlir-opt-19`
//! verifies, with no more ops than it had (pure duplicates are shared, unused pure ops
//! dropped) and every op that stays in place kept.

use std::collections::BTreeMap;
use std::path::PathBuf;

use spores_mlir::egg::{decls::ctor_name, load_rules, optimize, OptOptions};
use spores_mlir::{
    find_mlir_opt, load, parse, print, verify_text, LoadOptions, Operation, PrintOptions,
};

fn corpus() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("corpus directory")
        .map(|e| e.expect("corpus entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "mlir"))
        .collect();
    files.sort();
    files
}

fn histogram(ops: &[Operation], out: &mut BTreeMap<String, usize>) {
    for o in ops {
        *out.entry(o.name.clone()).or_default() += 1;
        for r in &o.regions {
            for b in &r.blocks {
                histogram(&b.ops, out);
            }
        }
    }
}

#[test]
fn corpus_survives_eggify_and_back() {
    let Some(tool) = find_mlir_opt() else {
        eprintln!("note: corpus_survives_eggify_and_back skipped: mlir-opt-19 is not installed");
        return;
    };
    let (_, decls) = load_rules("", "none.egg").expect("prelude loads");
    // An op name is declared (pure) if some constructor is its name or its name with an
    // arity suffix; every other op stays in place and must survive one for one.
    let declared = |name: &str| {
        let base = ctor_name(name);
        decls.by_ctor.keys().any(|c| {
            c == &base
                || c.strip_prefix(&base)
                    .and_then(|r| r.strip_prefix('_'))
                    .is_some_and(|n| n.parse::<usize>().is_ok())
        })
    };
    for path in corpus() {
        let m = load(&path, &LoadOptions::default()).expect("corpus file loads");
        let (out, stats) = optimize(&m, "", "none.egg", &OptOptions::default())
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let text = print(&out, PrintOptions::default());
        verify_text(&tool, &text)
            .unwrap_or_else(|e| panic!("{}: output does not verify: {e}\n{text}", path.display()));
        assert_eq!(parse(&text).expect("reparses"), out);
        let (mut before, mut after) = (BTreeMap::new(), BTreeMap::new());
        histogram(&m.ops, &mut before);
        histogram(&out.ops, &mut after);
        assert!(stats.ops_after <= stats.ops_before, "{}", path.display());
        assert_eq!(stats.blocks_fallback, 0, "{}", path.display());
        for (name, n) in &before {
            let kept = after.get(name).copied().unwrap_or(0);
            if declared(name) {
                assert!(kept <= *n, "{}: more {name} ops after", path.display());
            } else {
                assert_eq!(kept, *n, "{}: {name} ops (kept in place)", path.display());
            }
        }
        eprintln!(
            "{}: {} ops -> {} ({} terms, {} in place)",
            path.file_name().unwrap().to_string_lossy(),
            stats.ops_before,
            stats.ops_after,
            stats.term_ops,
            stats.anchor_ops
        );
    }
}
