//! The reader's SSA checks (no mlir-opt needed): uses before definitions, an operation
//! using its own result, undefined values and redefinitions are errors naming the value
//! and its line and column; what MLIR accepts (region arguments, enclosing values, values
//! of dominating blocks, graph regions) still reads.

use spores_mlir::parse;

/// The error message of reading `text`, which must be refused.
fn error(text: &str) -> String {
    match parse(text) {
        Ok(m) => panic!("accepted invalid SSA:\n{text}\n{m:?}"),
        Err(e) => e.to_string(),
    }
}

/// A function body in generic form around `body` (lines indented by four spaces).
fn func(body: &str) -> String {
    format!(
        "\"func.func\"() <{{function_type = (f64) -> f64, sym_name = \"f\"}}> ({{\n\
         ^bb0(%a: f64):\n{body}}}) : () -> ()\n"
    )
}

/// Asserts that a function whose body is `body` is refused with `message`.
fn refused(body: &str, message: &str) {
    assert_eq!(error(&func(body)), message);
}

#[test]
fn a_use_before_its_definition_is_an_error() {
    refused(
        "    %1 = \"arith.addf\"(%0, %a) : (f64, f64) -> f64\n\
         \x20   %0 = \"arith.mulf\"(%a, %a) : (f64, f64) -> f64\n\
         \x20   \"func.return\"(%1) : (f64) -> ()\n",
        "3:23: `%0` is used before its definition at 4:5 (in the same block)",
    );
}

#[test]
fn an_operation_using_its_own_result_is_an_error() {
    refused(
        "    %0 = \"arith.addf\"(%0, %a) : (f64, f64) -> f64\n\
         \x20   \"func.return\"(%0) : (f64) -> ()\n",
        "3:23: `%0` is used by the operation that defines it",
    );
    // From inside one of its own regions too.
    refused(
        "    %0 = \"scf.execute_region\"() ({\n\
         \x20     \"scf.yield\"(%0) : (f64) -> ()\n\
         \x20   }) : () -> f64\n\
         \x20   \"func.return\"(%0) : (f64) -> ()\n",
        "4:19: `%0` is used by the operation that defines it",
    );
}

#[test]
fn an_undefined_value_is_an_error() {
    refused(
        "    %0 = \"arith.addf\"(%a, %nowhere) : (f64, f64) -> f64\n\
         \x20   \"func.return\"(%0) : (f64) -> ()\n",
        "3:27: use of undefined value `%nowhere`",
    );
    // A result number past the definition's results.
    refused(
        "    %p:2 = \"t.pair\"(%a) : (f64) -> (f64, f64)\n\
         \x20   \"func.return\"(%p#2) : (f64) -> ()\n",
        "4:19: `%p#2` names result #2 of a definition with 2 result(s)",
    );
}

#[test]
fn a_value_defined_twice_is_an_error() {
    refused(
        "    %0 = \"arith.addf\"(%a, %a) : (f64, f64) -> f64\n\
         \x20   %0 = \"arith.mulf\"(%a, %a) : (f64, f64) -> f64\n\
         \x20   \"func.return\"(%0) : (f64) -> ()\n",
        "4:5: redefinition of `%0` (first defined at 3:5)",
    );
    // A nested region cannot redefine a value of an enclosing one, nor a block argument.
    refused(
        "    %0 = \"scf.execute_region\"() ({\n\
         \x20     %a = \"arith.constant\"() <{value = 1.0 : f64}> : () -> f64\n\
         \x20     \"scf.yield\"(%a) : (f64) -> ()\n\
         \x20   }) : () -> f64\n\
         \x20   \"func.return\"(%0) : (f64) -> ()\n",
        "4:7: redefinition of `%a` (first defined at 2:6)",
    );
}

#[test]
fn a_value_of_a_block_that_does_not_dominate_is_an_error() {
    let text = func(
        "    \"cf.cond_br\"(%c)[^bb1, ^bb2] <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (i1) -> ()\n\
         \x20 ^bb1:\n\
         \x20   %x = \"arith.mulf\"(%a, %a) : (f64, f64) -> f64\n\
         \x20   \"cf.br\"()[^bb2] : () -> ()\n\
         \x20 ^bb2:\n\
         \x20   \"func.return\"(%x) : (f64) -> ()\n",
    )
    .replace("^bb0(%a: f64):", "^bb0(%a: f64, %c: i1):");
    assert_eq!(
        error(&text),
        "8:19: `%x` is defined at 5:5 in block ^bb1, which does not dominate this use"
    );
}

#[test]
fn values_of_enclosing_regions_of_an_isolated_operation_are_an_error() {
    let text = "%k = \"arith.constant\"() <{value = 1.0 : f64}> : () -> f64\n".to_string()
        + &func("    \"func.return\"(%k) : (f64) -> ()\n");
    assert_eq!(
        error(&text),
        "4:19: `%k` is defined at 1:1, outside the enclosing `func.func`, whose regions \
         are isolated from above"
    );
}

#[test]
fn what_mlir_accepts_still_reads() {
    // Region arguments, enclosing values in a nested region, a value of a dominating
    // block used after a branch, a block reached only later in the text, reuse of a
    // name in a sibling region and of an operation's result name inside its region.
    let text = func(
        "    %c = \"arith.constant\"() <{value = true}> : () -> i1\n\
         \x20   %0 = \"scf.execute_region\"() ({\n\
         \x20     %0 = \"arith.addf\"(%a, %a) : (f64, f64) -> f64\n\
         \x20     \"scf.yield\"(%0) : (f64) -> ()\n\
         \x20   }) : () -> f64\n\
         \x20   %1 = \"scf.execute_region\"() ({\n\
         \x20     %t = \"arith.mulf\"(%0, %a) : (f64, f64) -> f64\n\
         \x20     \"scf.yield\"(%t) : (f64) -> ()\n\
         \x20   }) : () -> f64\n\
         \x20   \"cf.br\"()[^bb2] : () -> ()\n\
         \x20 ^bb1:\n\
         \x20   \"func.return\"(%y) : (f64) -> ()\n\
         \x20 ^bb2:\n\
         \x20   %y = \"arith.addf\"(%1, %0) : (f64, f64) -> f64\n\
         \x20   \"cf.br\"()[^bb1] : () -> ()\n",
    );
    parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    // The top level and a `builtin.module` are graph regions: order does not matter.
    let text = "\"builtin.module\"() ({\n\
                \x20 \"t.use\"(%v) : (i32) -> ()\n\
                \x20 %v = \"t.def\"() : () -> i32\n\
                }) : () -> ()\n";
    parse(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
}

#[test]
fn every_mlir_file_of_the_repository_reads() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let tool = spores_mlir::find_mlir_opt();
    let (mut generic, mut custom) = (0, 0);
    for dir in ["crates/spores-mlir/tests/corpus", "bench/mlir/cases"] {
        for entry in std::fs::read_dir(root.join(dir)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|e| e != "mlir") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            match parse(&text) {
                Ok(_) => generic += 1,
                // Custom syntax is read after mlir-opt normalized it, when installed.
                Err(e) if e.message.contains("custom syntax") => {
                    if tool.is_some() {
                        let loaded = spores_mlir::load(&path, &Default::default());
                        loaded.unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                        custom += 1;
                    }
                }
                Err(e) => panic!("{}: {e}", path.display()),
            }
        }
    }
    assert!(generic > 0, "no generic-form file read");
    assert!(tool.is_none() || custom > 0, "no custom-syntax file read");
}
