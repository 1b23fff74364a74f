//! Eggify → de-eggify with no rules: every corpus file comes back as a module `mlir-opt-19`
//! verifies, with no more ops than it had (pure duplicates are shared, unused pure ops
//! dropped) and every op that stays in place kept.

mod common;

use std::collections::BTreeMap;

use common::corpus;
use spores_mlir::egg::{decls::ctor_name, load_rules, optimize, OptOptions};
use spores_mlir::{
    find_mlir_opt, load, parse, print, verify_text, LoadOptions, Operation, PrintOptions,
};

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

/// A selection that would use a value before its definition (here forced by a rule that
/// equates an early sum with a later opaque result) is not printed: the block falls back to
/// its ops as written, and the output is still a valid program.
#[test]
fn unorderable_selection_falls_back_to_the_block_as_written() {
    let text = r#""builtin.module"() ({
  "func.func"() <{function_type = (f32, f32) -> (), sym_name = "f"}> ({
  ^bb0(%x: f32, %y: f32):
    %a = "arith.addf"(%x, %y) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
    "foo.effect"(%a) : (f32) -> ()
    %b = "foo.load"() : () -> f32
    "foo.use"(%b) : (f32) -> ()
    "func.return"() : () -> ()
  }) : () -> ()
}) : () -> ()
"#;
    let m = parse(text).expect("parses");
    // Ids: %x 0, %y 1, %a 2, %b 3.
    let rules = "(rule ((= ?e (arith_addf ?x ?y ?f ?t)) (= ?v (Value 3 ?t))) ((union ?e ?v)))";
    let (out, stats) = optimize(&m, rules, "test.egg", &OptOptions::default()).expect("runs");
    assert_eq!(stats.blocks_fallback, 1);
    let printed = print(&out, PrintOptions::default());
    assert!(printed.contains("\"arith.addf\"(%x, %y)"), "{printed}");
    assert!(printed.contains("\"foo.effect\"(%a)"), "{printed}");
    if let Some(tool) = find_mlir_opt() {
        verify_text(&tool, &printed).expect("verifies");
    }
}
