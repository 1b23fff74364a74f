//! Rule files in the 2024 egglog dialect (DialEgg's), read unchanged; side effects keeping
//! their place; the analyses (`type-of`, `nrows`, `ncols`) inside every ruleset.
//!
//! The 2024 fixtures in `tests/egglog2024/` are our own, written as DialEgg writes its
//! files: `base.egg` declares the vocabulary under the names DialEgg's `src/base.egg` uses,
//! `chain.egg` and `arith.egg` use each construct of the dialect the translator reads
//! (`function` without `:merge`, `:cost` on a function, `unstable-cost`, `vec-of` /
//! `vec-get` shapes, `include`, `run-schedule` and `run`, global `let`s, a custom attribute,
//! `set` on a function into an e-class sort). Includes are relative to the working
//! directory, the crate's root under `cargo test`.

use spores_mlir::egg::{optimize, optimize_with, OptOptions, OptStats, Rules, StopReason};
use spores_mlir::{find_mlir_opt, parse, print, verify_text, Module, Operation, PrintOptions};

fn fixture(name: &str) -> Module {
    let path = format!("tests/egglog2024/{name}");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    parse(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn run(module: &Module, rules: &str) -> (Module, OptStats) {
    let rules = Rules::read(std::path::Path::new(rules)).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        matches!(rules, Rules::Egglog2024(_)),
        "read as the 2024 dialect"
    );
    let out =
        optimize_with(module, &rules, &OptOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    verify(&out.0);
    out
}

fn verify(m: &Module) {
    if let Some(tool) = find_mlir_opt() {
        let text = print(m, PrintOptions::default());
        verify_text(&tool, &text).unwrap_or_else(|e| panic!("does not verify: {e}\n{text}"));
    }
}

/// The ops of function `name`'s body.
fn body<'m>(m: &'m Module, name: &str) -> &'m [Operation] {
    let module = &m.ops[0];
    let f = module.regions[0].blocks[0]
        .ops
        .iter()
        .find(|o| {
            matches!(o.attr("sym_name"), Some(spores_mlir::Attribute::String { value, .. }) if value == name.as_bytes())
        })
        .unwrap_or_else(|| panic!("no function {name}"));
    &f.regions[0].blocks[0].ops
}

fn names(ops: &[Operation]) -> Vec<String> {
    ops.iter()
        .map(|o| match o.attr("callee") {
            Some(spores_mlir::Attribute::SymbolRef(p)) => format!("{} @{}", o.name, p[0]),
            _ => o.name.clone(),
        })
        .collect()
}

/// (rows, cols) of a matrix type.
fn dims(t: &spores_mlir::Type) -> (u64, u64) {
    match t {
        spores_mlir::Type::Tensor { shape, .. } => {
            (shape[0].expect("static"), shape[1].expect("static"))
        }
        other => panic!("not a matrix: {other:?}"),
    }
}

/// Sum of m*k*n over the matmuls of `ops`.
fn chain_cost(ops: &[Operation]) -> u64 {
    ops.iter()
        .filter(|o| o.name == "linalg.matmul")
        .map(|o| {
            let (m, k) = dims(&o.operand_types[0]);
            let (_, n) = dims(&o.operand_types[1]);
            m * k * n
        })
        .sum()
}

#[test]
fn a_dialegg_chain_file_reaches_the_cheapest_order() {
    let (out, stats) = run(&fixture("chain.mlir"), "tests/egglog2024/chain.egg");
    assert_eq!(stats.stop, StopReason::Saturated);
    let ops = body(&out, "chain");
    // X (Y Z): 10*150*8 + 100*10*8, against (X Y) Z: 100*10*150 + 100*150*8.
    assert_eq!(chain_cost(ops), 12_000 + 8_000);
    assert_eq!(
        chain_cost(body(&fixture("chain.mlir"), "chain")),
        150_000 + 120_000
    );
    // The matmuls priced by `unstable-cost`, the two tensor.empty at their fixed cost 1.
    assert_eq!(stats.cost, 20_002.0);
    let inner = ops
        .iter()
        .find(|o| o.name == "linalg.matmul")
        .expect("a matmul");
    assert_eq!(dims(&inner.result_types[0]), (10, 8));
}

#[test]
fn dialegg_arithmetic_rules_rewrite_and_calls_keep_their_place() {
    let (out, stats) = run(&fixture("arith.mlir"), "tests/egglog2024/arith.egg");
    assert_eq!(stats.stop, StopReason::Saturated);
    // x * 2 → x << 1; x / 16 → x >> 4 (the division's `:cost 20`).
    let ints = names(body(&out, "ints"));
    assert!(ints.contains(&"arith.shli".to_string()), "{ints:?}");
    assert!(ints.contains(&"arith.shrsi".to_string()), "{ints:?}");
    assert!(
        !ints.iter().any(|n| n == "arith.muli" || n == "arith.divsi"),
        "{ints:?}"
    );
    let shift = body(&out, "ints")
        .iter()
        .filter(|o| o.name == "arith.constant")
        .filter_map(|o| match o.attr("value") {
            Some(spores_mlir::Attribute::Integer { value, .. }) => Some(*value),
            _ => None,
        })
        .collect::<Vec<_>>();
    assert!(shift.contains(&1) && shift.contains(&4), "{shift:?}");
    // 1 / sqrt(k) with fastmath<fast> → a call of @rsqrt_kernel; the kernel's call, which
    // the file declares as `func_call` too, stays between the clock calls.
    let timed = names(body(&out, "timed"));
    let calls: Vec<&String> = timed
        .iter()
        .filter(|n| n.starts_with("func.call"))
        .collect();
    assert_eq!(
        calls,
        [
            "func.call @clock",
            "func.call @kernel",
            "func.call @clock",
            "func.call @show",
            "func.call @rsqrt_kernel"
        ]
    );
    assert!(
        !timed.iter().any(|n| n == "math.sqrt" || n == "arith.divf"),
        "{timed:?}"
    );
}

#[test]
fn refused_and_unreadable_constructs_name_the_file_line_and_column() {
    let cases = [
        (
            "(include \"tests/egglog2024/base.egg\")\n\n  (extract (F32))",
            "r.egg:3:3: `(extract ...)` is not allowed",
        ),
        (
            "(include \"tests/egglog2024/base.egg\")\n(ruleset a)\n(run-schedule (saturate a :until (F32)))",
            "r.egg:3:1: `:until` is not supported",
        ),
        (
            "(function f () Op)\n(include \"tests/egglog2024/nothing-here.egg\")",
            "r.egg:2:1: cannot read tests/egglog2024/nothing-here.egg",
        ),
        (
            "(function f () Op :default 3)",
            "r.egg:1:1: `:default` on a function",
        ),
    ];
    for (text, expected) in cases {
        let e = Rules::from_text(text, "r.egg").expect_err(text);
        assert!(e.to_string().starts_with(expected), "{e}");
    }
    // egglog's own messages point at the command as written, after translation.
    let e = optimize(
        &fixture("chain.mlir"),
        "(include \"tests/egglog2024/base.egg\")\n\n\n   (function g (Op) NoSuchSort)",
        "r.egg",
        &OptOptions::default(),
    )
    .expect_err("unknown sort");
    let msg = e.to_string();
    assert!(msg.contains("4:4") && msg.contains("r.egg"), "{msg}");
}

#[test]
fn a_file_without_base_names_what_is_missing() {
    let e = optimize(
        &fixture("chain.mlir"),
        "(sort Type) (datatype Op (Value i64 Type)) (function mm (Op Op) Op)",
        "r.egg",
        &OptOptions::default(),
    )
    .expect_err("no vocabulary");
    assert!(e.to_string().contains("must declare NamedAttr"), "{e}");
}

/// The current dialect: a stage that builds matmuls with new types prices them with the
/// shipped `nrows` / `ncols` / `type-of`, which must hold for the terms of the stage itself.
const STAGED_CHAIN: &str = r#"
(function linalg_matmul_cost (Op Op Op Type) i64 :merge (min old new))
(ruleset chain)
(rule ((= ?e (linalg_matmul ?x ?y ?o ?t))
       (= ?a (nrows (type-of ?x))) (= ?b (ncols (type-of ?x))) (= ?c (ncols (type-of ?y))))
      ((set (linalg_matmul_cost ?x ?y ?o ?t) (* (* ?a ?b) ?c)))
      :ruleset chain)
(rule ((= ?lhs (linalg_matmul (linalg_matmul ?x ?y ?xy ?xy_t) ?z ?xy_z ?xyz_t))
       (= ?b (nrows (type-of ?y))) (= ?d (ncols (type-of ?z)))
       (= ?xyz_t (RankedTensor ?s ?t)))
      ((let out_t (RankedTensor (DCons ?b (DCons ?d (DNil))) ?t))
       (union ?lhs (linalg_matmul ?x (linalg_matmul ?y ?z (tensor_empty out_t) out_t) ?xy_z ?xyz_t)))
      :ruleset chain)
"#;

#[test]
fn shape_facts_hold_inside_the_ruleset_that_builds_the_terms() {
    let (out, stats) = optimize(
        &fixture("chain.mlir"),
        STAGED_CHAIN,
        "staged.egg",
        &OptOptions::default(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    verify(&out);
    assert_eq!(stats.stop, StopReason::Saturated);
    assert_eq!(chain_cost(body(&out, "chain")), 12_000 + 8_000);
}

/// A call in the current dialect: declared so rules can build it, pure only when named.
const CALLS: &str = r#"
"builtin.module"() ({
  "func.func"() <{function_type = () -> i64, sym_name = "clock", sym_visibility = "private"}> ({
  }) : () -> ()
  "func.func"() <{function_type = (f32) -> f32, sym_name = "kernel", sym_visibility = "private"}> ({
  }) : () -> ()
  "func.func"() <{function_type = (f32) -> (f32, i64, i64), sym_name = "timed"}> ({
  ^bb0(%x: f32):
    %t0 = "func.call"() <{callee = @clock}> : () -> i64
    %k = "func.call"(%x) <{callee = @kernel}> : (f32) -> f32
    %t1 = "func.call"() <{callee = @clock}> : () -> i64
    %k2 = "func.call"(%x) <{callee = @kernel}> : (f32) -> f32
    %s = "arith.addf"(%k, %k2) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
    "func.return"(%s, %t0, %t1) : (f32, i64, i64) -> ()
  }) : () -> ()
}) : () -> ()
"#;

#[test]
fn calls_with_effects_keep_their_place_unless_declared_pure() {
    let m = parse(CALLS).expect("parses");
    let declared = "(constructor func_call_1 (Op AttrPair Type) Op)";
    let (out, stats) =
        optimize(&m, declared, "calls.egg", &OptOptions::default()).expect("optimizes");
    verify(&out);
    assert_eq!(
        names(body(&out, "timed")),
        [
            "func.call @clock",
            "func.call @kernel",
            "func.call @clock",
            "func.call @kernel",
            "arith.addf",
            "func.return"
        ]
    );
    assert_eq!(stats.term_ops, 1);
    // Declared pure, the two equal calls are one value, computed where it is used.
    let pure = format!("{declared}\n(pure-op \"@kernel\")");
    let (out, stats) = optimize(&m, &pure, "calls.egg", &OptOptions::default()).expect("optimizes");
    verify(&out);
    assert_eq!(
        names(body(&out, "timed")),
        [
            "func.call @clock",
            "func.call @clock",
            "func.call @kernel",
            "arith.addf",
            "func.return"
        ]
    );
    assert_eq!(stats.term_ops, 3);
}

/// ((1 + 2) + 3) + 4: each iteration of constant folding folds one more level.
const SUMS: &str = r#"
"builtin.module"() ({
  "func.func"() <{function_type = () -> i32, sym_name = "sums"}> ({
    %c1 = "arith.constant"() <{value = 1 : i32}> : () -> i32
    %c2 = "arith.constant"() <{value = 2 : i32}> : () -> i32
    %c3 = "arith.constant"() <{value = 3 : i32}> : () -> i32
    %c4 = "arith.constant"() <{value = 4 : i32}> : () -> i32
    %s1 = "arith.addi"(%c1, %c2) <{overflowFlags = #arith.overflow<none>}> : (i32, i32) -> i32
    %s2 = "arith.addi"(%s1, %c3) <{overflowFlags = #arith.overflow<none>}> : (i32, i32) -> i32
    %s3 = "arith.addi"(%s2, %c4) <{overflowFlags = #arith.overflow<none>}> : (i32, i32) -> i32
    "func.return"(%s3) : (i32) -> ()
  }) : () -> ()
}) : () -> ()
"#;

const FOLD: &str = r#"(include "tests/egglog2024/base.egg")
(function arith_constant (AttrPair Type) Op)
(function arith_addi (Op Op AttrPair Type) Op)
(ruleset fold)
(rewrite (arith_addi (arith_constant (NamedAttr "value" (IntegerAttr ?x ?t)) ?t)
                     (arith_constant (NamedAttr "value" (IntegerAttr ?y ?t)) ?t) ?a ?t)
         (arith_constant (NamedAttr "value" (IntegerAttr (+ ?x ?y) ?t)) ?t)
         :ruleset fold)
"#;

#[test]
fn the_runs_in_the_file_are_what_saturation_runs() {
    let m = parse(SUMS).expect("parses");
    let adds_left = |schedule: &str| {
        let rules = format!("{FOLD}{schedule}");
        let (out, _) = optimize(&m, &rules, "fold.egg", &OptOptions::default())
            .unwrap_or_else(|e| panic!("{schedule}: {e}"));
        verify(&out);
        body(&out, "sums")
            .iter()
            .filter(|o| o.name == "arith.addi")
            .count()
    };
    assert_eq!(adds_left(""), 3, "no run: nothing is rewritten");
    assert_eq!(adds_left("(run 5)"), 3, "the default ruleset has no rules");
    assert_eq!(adds_left("(run fold 1)"), 2);
    assert_eq!(adds_left("(run fold 2)"), 1);
    assert_eq!(adds_left("(run-schedule (repeat 2 (run fold)))"), 1);
    assert_eq!(adds_left("(run fold 1) (run-schedule (seq fold fold))"), 0);
    assert_eq!(adds_left("(run-schedule (saturate fold))"), 0);
    assert_eq!(adds_left("(run-schedule (saturate (seq (run fold))))"), 0);
}
