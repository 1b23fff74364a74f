//! Calls beyond the script's own functions: DML-bodied builtins found as `NAME.dml` in
//! a builtin directory, and `source(...) as ns` with `ns::f(...)` calls. The fixtures
//! under `tests/fixtures/` are small files written for these tests.

mod common;

use std::path::PathBuf;

use spores_dml::opt::SporesOptimizer;
use spores_dml::{run_script, RunOptions, ScriptError};

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

fn with_builtins() -> RunOptions {
    RunOptions {
        builtins: Some(fixtures().join("builtins")),
        ..RunOptions::default()
    }
}

fn run(src: &str, options: RunOptions) -> String {
    run_script(src, options).unwrap_or_else(|e| {
        panic!(
            "script failed: {}",
            e.diagnostic().render_in("test.dml", src)
        )
    })
}

fn error(src: &str, options: RunOptions) -> ScriptError {
    match run_script(src, options) {
        Ok(out) => panic!("expected an error, the script printed {out:?}"),
        Err(e) => e,
    }
}

/// The message of the error `src` must end with.
fn message(src: &str, options: RunOptions) -> String {
    error(src, options).diagnostic().message.clone()
}

#[test]
fn a_builtins_helpers_do_not_clash_with_the_callers_functions() {
    // The script's own `twice` and `addone` must not replace the builtin's, nor the
    // builtin's helper leak into the script.
    let src = "twice = function(Double x) return (Double y) { y = -1 }\n\
               addone = function(Double x) return (Double y) { y = x + 1000 }\n\
               X = matrix(1, rows=2, cols=2)\n\
               print(sqnorm(X, double_it=TRUE))\nprint(twice(5))\nprint(addone(0))\n";
    assert_eq!(run(src, with_builtins()), "9.0\n-1\n1000.0\n");
}

#[test]
fn errors_inside_a_builtin_name_its_file_line_and_column() {
    let src = "X = matrix(1, rows=3, cols=3)\nY = failing(X)\n";
    let ScriptError::Runtime(d) = error(src, with_builtins()) else {
        panic!("expected a runtime error")
    };
    let rendered = d.render_in("test.dml", src);
    assert!(
        rendered.contains("failing.dml:4:7: error:"),
        "the error is at the product in the builtin: {rendered}"
    );
    assert!(
        rendered.ends_with("  called from test.dml:2:5\n"),
        "and says where the builtin was called: {rendered}"
    );
    assert!(!d.static_error);
}

#[test]
fn syntax_errors_in_builtins_are_static_errors_and_frames_pass() {
    let ScriptError::Runtime(d) = error("print(badsyntax(1))\n", with_builtins()) else {
        panic!("expected the error while running")
    };
    assert!(d.static_error, "a syntax error ends with exit code 2");
    let rendered = d.render_in("test.dml", "");
    assert!(
        rendered.contains("badsyntax.dml:3:11: error:"),
        "{rendered}"
    );

    // A builtin taking and returning a frame runs.
    let src = "G = framed(as.frame(matrix(1.5, rows=1, cols=2)))\nprint(toString(G))\n";
    assert_eq!(
        run(src, with_builtins()),
        "# FRAME: nrow = 1, ncol = 2\n# C1 C2\n# FP32 FP32\n1.5 1.5\n\n"
    );
}

#[test]
fn unknown_functions_say_where_they_were_looked_for() {
    let src = "x = nosuchthing(1)\n";
    let d = error(src, RunOptions::default());
    let message = &d.diagnostic().message;
    assert!(
        message.contains("unknown function `nosuchthing`"),
        "{message}"
    );
    assert!(message.contains("--builtins DIR"), "{message}");
    assert_eq!(d.diagnostic().span.start, 4);

    let d = error(src, with_builtins());
    let message = &d.diagnostic().message;
    assert!(
        message.contains(&format!(
            "{}",
            fixtures().join("builtins/nosuchthing.dml").display()
        )),
        "{message}"
    );

    let d = error("x = nofunction(1)\n", with_builtins());
    let message = &d.diagnostic().message;
    assert!(
        message.contains("defines none of `m_nofunction`, `f_nofunction` and `s_nofunction`"),
        "{message}"
    );
}

#[test]
fn sourced_files_resolve_relative_to_the_file_that_sources_them() {
    let dir = fixtures().join("source");
    let src = std::fs::read_to_string(dir.join("driver.dml")).unwrap();
    let options = RunOptions {
        script_dir: Some(dir),
        ..RunOptions::default()
    };
    // first::f adds 10, second::f 100, viaSecond sums both, the script's own f
    // subtracts 1000: four functions named `f` in three namespaces.
    assert_eq!(run(&src, options), "11.0\n101.0\n112.0\n-999.0\n");
}

/// SystemDS's `eval("path.dml::f")` names a sourced file by its path.
#[test]
fn eval_finds_a_function_by_its_sourced_path() {
    let dir = fixtures().join("source");
    let src = r#"source("lib/first.dml") as first
print(as.scalar(eval("lib/first.dml::f", list(1))) + eval("first::f", list(2)))
"#;
    let options = RunOptions {
        script_dir: Some(dir),
        ..RunOptions::default()
    };
    assert_eq!(run(src, options), "23.0\n");
}

#[test]
fn missing_sources_and_namespaces_are_reported_at_the_statement() {
    let dir = fixtures().join("source");
    let src = std::fs::read_to_string(dir.join("missing.dml")).unwrap();
    let options = RunOptions {
        script_dir: Some(dir.clone()),
        ..RunOptions::default()
    };
    let d = error(&src, options);
    let d = d.diagnostic();
    assert!(d.static_error);
    assert!(
        d.message
            .contains("cannot find the sourced file `lib/nowhere.dml`"),
        "{}",
        d.message
    );
    assert_eq!((d.span.start, d.span.end), (0, 33));

    let d = error("print(ns::f(1))\n", RunOptions::default());
    assert!(
        d.diagnostic().message.contains("unknown namespace `ns`"),
        "{}",
        d.diagnostic().message
    );
    let options = RunOptions {
        script_dir: Some(dir),
        ..RunOptions::default()
    };
    let d = error("source(\"lib/second.dml\") as s\nprint(s::g(1))\n", options);
    assert!(
        d.diagnostic().message.contains("has no function `g`"),
        "{}",
        d.diagnostic().message
    );
}

/// A block ends after a statement that calls a DML function, so the statements after
/// it are optimized knowing the shapes the function returned: in ALS-CG, the loss
/// computed right after the two CG half-steps inside the loop fuses to `wsloss`.
#[test]
fn statements_after_a_call_are_optimized_with_the_results_shapes() {
    let src = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/als.dml"),
    )
    .unwrap();
    // The full search: the point is what the optimizer sees, not whether this small
    // input pays for a search (see `opt::spores`' budget tests).
    let mut spores = SporesOptimizer::new(Default::default());
    spores.min_cost(0.0);
    let options = RunOptions {
        explain: true,
        optimizer: Box::new(spores),
        args: [("iters", "1"), ("cgiters", "1")]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        ..RunOptions::default()
    };
    let out = run(&src, options);
    let blocks: Vec<&str> = out.split("--- block").collect();
    // The loop body is three blocks: each CG call ends one, then the loss block.
    let call_blocks: Vec<usize> = (0..blocks.len())
        .filter(|&k| blocks[k].contains("= call cgStep("))
        .collect();
    assert_eq!(call_blocks.len(), 2, "{out}");
    for &k in &call_blocks {
        assert_eq!(
            blocks[k].matches("= call ").count(),
            1,
            "one call per block: {}",
            blocks[k]
        );
    }
    let after = blocks[call_blocks[1] + 1];
    assert!(
        after.contains("=> wsloss(X, U, V)") && after.contains("= wsloss(%"),
        "the loss after the calls fuses: {after}"
    );
    assert!(after.contains("outputs: loss = "), "{after}");
}

#[test]
fn list_errors_name_the_problem() {
    let cases = [
        (
            "l = list(a=1)\nx = as.scalar(l[\"b\"])\n",
            "the list has no element named \"b\"",
        ),
        (
            "l = list(1, 2)\nx = as.scalar(l[3])\n",
            "list index 3 is out of bounds 1..2",
        ),
        (
            "l = list(1, matrix(0, rows=2, cols=2))\nx = as.matrix(l)\n",
            "`as.matrix` of a list of 2 elements needs scalars, element 2 is a matrix",
        ),
        (
            "l = list(1, 2)\n[r, x] = remove(l, 3)\n",
            "remove: position 3 is not in 1..2",
        ),
        (
            "l = list(1, 2)\nx = as.scalar(l[1, 2])\n",
            "a list is one column, indexed as `l[i]`, `l[i, 1]` or `l[\"name\"]`",
        ),
    ];
    for (src, want) in cases {
        assert_eq!(message(src, RunOptions::default()), want);
    }
}

#[test]
fn lists_print_cast_and_shrink_as_in_systemds() {
    // SystemDS 3.4 prints exactly this for toString of a list, builds a column from
    // as.matrix of a list of scalars, and `remove` gives the rest and the element.
    let out = run(
        r#"
L = list(matrix("1 2 3 4", rows=2, cols=2), 3, "abc", TRUE, 2.5)
print(toString(L))
print(toString(list(a=1, b=matrix(1, rows=1, cols=2)), decimal=1))
print(toString(t(as.matrix(list(1, 2.5, 3)))))
[rest, x] = remove(L, 1)
print(length(rest) + " " + sum(x))
node = as.list(rest)
print(length(node) + " " + length(as.list(7)))
print(as.scalar(L[2, 1]) + sum(as.matrix(L[1, 1])))
"#,
        RunOptions::default(),
    );
    assert_eq!(
        out,
        "List containing:\n[\nMatrix:\n1.000 2.000\n3.000 4.000\n, 3, abc, TRUE, 2.5]\n\
         List containing:\n[1, \nMatrix:\n1.0 1.0\n]\n\
         1.000 2.500 3.000\n\n\
         4 10.0\n\
         4 1\n\
         13.0\n"
    );
}

/// `rbind(L)`/`cbind(L)` of one list bind its elements; SystemDS 3.4 printed the same.
#[test]
fn binding_one_list_binds_its_elements() {
    let src = r#"
L = list(matrix(1, 2, 2), matrix(2, 1, 2))
print(toString(rbind(L)))
print(toString(cbind(list(matrix(1, 2, 1), matrix(3, 2, 2)))))
"#;
    assert_eq!(
        run(src, RunOptions::default()),
        "1.000 1.000\n1.000 1.000\n2.000 2.000\n\n1.000 3.000 3.000\n1.000 3.000 3.000\n\n"
    );
    // Of one matrix, the matrix itself, as SystemDS's runtime gives it for a value whose
    // type its compiler does not know (`rbind(testX)` after `remove`); SystemDS's compiler
    // refuses `rbind(X)` of a matrix it knows, spores has no such static check.
    assert_eq!(
        run(
            "X = rbind(matrix(5, 1, 2))\nprint(sum(X) + nrow(X))\n",
            RunOptions::default()
        ),
        "11.0\n"
    );
    assert_eq!(
        message("X = rbind(\"a\")\nprint(X)\n", RunOptions::default()),
        "rbind of one argument binds a list's elements, got a string"
    );
}

/// A builtin's `eval("name", ...)` finds a function of the script that called it, as
/// SystemDS's default namespace does (gridSearch evaluates the script's `predict`).
#[test]
fn a_builtin_evaluates_a_function_of_the_calling_script_by_name() {
    let src = r#"
double = function(Matrix[Double] X) return (Matrix[Double] Y) { Y = 2 * X }
print(sum(applyTwice("double", matrix(1, 2, 2))))
"#;
    assert_eq!(run(src, with_builtins()), "16.0\n");
}

/// SystemDS 3.4 printed exactly this (gridSearch sets its training arguments this way).
#[test]
fn list_elements_are_assigned_by_name_position_or_range() {
    let out = run(
        r#"
L = list(a=1, b=2, c="x")
L["a"] = 5
L[3] = "y"
print(toString(L))
M = list(1, 2, 3)
M[2:3] = list(7, 8)
M[1] = list(9)
print(toString(M))
"#,
        RunOptions::default(),
    );
    assert_eq!(
        out,
        "List containing:\n[5, 2, y]\nList containing:\n[9, 7, 8]\n"
    );
    assert_eq!(
        message(
            "M = list(1, 2, 3)\nM[2:3] = list(7)\nprint(length(M))\n",
            RunOptions::default()
        ),
        "list left indexing: 2 element(s) selected, 1 given"
    );
}

#[test]
fn a_builtin_with_several_results_gives_its_first_in_an_expression() {
    // SystemDS takes the first result of a DML-bodied builtin used as a value; a
    // function of the script must still be called in a multi-assignment there.
    let out = run(
        "X = matrix(\"1 2 3 4 5 6\", rows=3, cols=2)\nprint(toString(pair(X) + 1))\n",
        with_builtins(),
    );
    assert_eq!(out, "10.000 13.000\n\n");
    // So does a builtin file's own function with several results, called in that file.
    let out = run(
        "print(toString(firstOfHelper(matrix(\"1 2\", rows=1, cols=2))))\n",
        with_builtins(),
    );
    assert_eq!(out, "3.000 5.000\n\n");
    // And a script's own function (SystemDS's FunPotpourriSubsetReturn).
    let src = "f = function(Double a) return (Double b, Double c) { b = a\n c = 2 * a }\n\
               x = f(1) + 1\nprint(x)\n";
    assert_eq!(run(src, RunOptions::default()), "2.0\n");
}

#[test]
fn errors_about_a_builtins_arguments_use_the_name_it_was_called_by() {
    assert_eq!(
        message(
            "X = matrix(1, rows=2, cols=2)\n[a, b] = sqnorm(X)\n",
            with_builtins()
        ),
        "`sqnorm` returns 1 values but 2 are assigned"
    );
    let d = error("x = pair(Y=1)\n", with_builtins());
    assert_eq!(
        d.diagnostic().message,
        "`pair` has no parameter `Y` (it has: X)"
    );
}

/// Small scripts, with or without the test builtins, and what they print (as SystemDS 3.4
/// prints them).
#[test]
fn small_scripts_print_what_systemds_prints() {
    let cases: &[(&str, bool, &str, &str)] = &[
        (
            "compound_assignments_update_variables_and_cells",
            false,
            "x = 1\nx += 2\nx *= 3 + 1\nx -= 2\nx /= 5\nX = matrix(1, rows=2, cols=2)\nX[1, 2] += 10\nprint(x)\nprint(sum(X))\n",
            "2.0\n14.0\n",
        ),
        (
            "vectors_of_values_build_row_vectors",
            false,
            "i = 3\nM = matrix([i, 4, i + 2, 6], rows=2, cols=2)\nprint(toString(M))\n",
            "3.000 4.000\n5.000 6.000\n\n",
        ),
        (
            "lists_hold_named_and_positional_values",
            false,
            r#"
X = matrix("1 2 3 4", rows=2, cols=2)
l = list(X, 3, name="bob")
print(length(l))
print(as.scalar(l[2]) + 1)
print(sum(as.matrix(l[1])))
print(as.scalar(l["name"]))
m = append(list(a=1, b=2.5), 7)
print(length(m) + length(m[2:3]))
f = function(List[Unknown] p, Matrix[Double] A) return (Double s) {
  s = sum(A) + as.scalar(p["b"])
}
print(f(m, l[1]))
"#,
            "3\n4\n10.0\nbob\n5\n12.5\n",
        ),
        // As SystemDS 3.4 prints: a list appended to a list is one element of it, and
        // `%%` is what the truncated quotient leaves, computed in doubles.
        (
            "a_list_appended_to_a_list_nests_and_modulus_follows_systemds",
            false,
            "print(length(append(list(), list(1, 2, 3))))\nprint(length(append(list(1), list(2, 3))))\nprint(3 %% 0.6)\nprint(-7 %% 3)\nprint(-7.5 %/% 2)\nprint(toString(matrix(\"-3 3\", rows=1, cols=2) %% 3))\n",
            "1\n2\n0.0\n-1\n-3.0\n0.000 0.000\n\n",
        ),
        // As SystemDS 3.4 prints: a list of one element appends its element; a list of
        // named elements takes Java's hash order; `as.scalar` of a comparison is boolean.
        (
            "named_lists_and_as_scalar_of_a_comparison_follow_systemds",
            false,
            "l = append(list(X=1), list(mult=2))\nprint(length(l) + as.scalar(l[\"mult\"]))\nprint(toString(list(a=1, b=2, c=3, zz=4, tol=5)))\nA = matrix(1, rows=1, cols=1)\nprint(as.scalar(A < 2))\nprint(as.scalar(t(A > 2)))\nprint(as.scalar((A < 2) * 1))\n",
            "4\nList containing:\n[4, 5, 1, 2, 3]\nTRUE\nFALSE\n1.0\n",
        ),
        // As SystemDS 3.4: a size `rand` is not given is 1.
        (
            "rand_without_a_size_is_one_by_one",
            false,
            "a = rand(min=-1, max=1, seed=3)\nprint(nrow(a) + 10 * ncol(a))\nb = rand(rows=3, seed=3)\nprint(nrow(b) + 10 * ncol(b))\n",
            "11\n13\n",
        ),
        // As SystemDS 3.4: a positional argument after named ones binds by its place.
        (
            "positional_arguments_after_named_ones_bind_by_place",
            false,
            "f = function(int A, int B, int C, int D, int E=-1) return (int s) { s = A*10000 + B*1000 + C*100 + D*10 + E }\nprint(f(1, 2, C=3, D=4, 5))\nprint(f(1, 2, D=4, C=3, 5))\n",
            "12345\n12345\n",
        ),
        // As SystemDS 3.4: `conv2d` takes `bias=` and ignores it (`bias_add` adds it).
        (
            "conv2d_ignores_a_bias_argument",
            false,
            "x = matrix(seq(1, 32), rows=2, cols=16)\nw = matrix(seq(1, 8), rows=2, cols=4) / 10\nb = matrix(\"100 1000\", rows=2, cols=1)\no1 = conv2d(x, w, padding=[0, 0], stride=[1, 1], input_shape=[2, 1, 4, 4], filter_shape=[2, 1, 2, 2], bias=b)\no2 = conv2d(x, w, padding=[0, 0], stride=[1, 1], input_shape=[2, 1, 4, 4], filter_shape=[2, 1, 2, 2])\nprint(sum(o1) + \" \" + sum(o2))\n",
            "1101.6 1101.6\n",
        ),
        // As SystemDS 3.4: fractional output sizes of `table` are truncated.
        (
            "table_truncates_fractional_sizes",
            false,
            "R = table(matrix(\"1 2\", rows=2, cols=1), matrix(\"1 1\", rows=2, cols=1), 2.5, 1.7)\nprint(nrow(R) + \" \" + ncol(R))\n",
            "2 1\n",
        ),
        // As SystemDS 3.4: `ifelse` reads its arguments by place once one is unnamed
        // (`bandit.dml`: `ifelse(c, a, n = ceil(...);)`).
        (
            "ifelse_binds_by_place_once_an_argument_is_unnamed",
            false,
            "s = 2\nn = ifelse(s >= 5, 5, n = ceil(7/s);)\nprint(n)\nprint(ifelse(FALSE, no=1, yes=2))\n",
            "4.0\n2\n",
        ),
        // As SystemDS 3.4: a string holding one value fills the matrix (`bandit` builds
        // columns from frame cells), and `rbind` of one matrix is the matrix.
        (
            "a_string_of_one_value_fills_a_matrix",
            false,
            "F = frame([\"7\", \"8\"], rows=1, cols=2)\nB = matrix(as.scalar(F[1,2]), rows=2, cols=2)\nprint(toString(rbind(B)))\n",
            "8.000 8.000\n8.000 8.000\n\n",
        ),
        // As SystemDS 3.4: `rand` reads bounds given as strings (`bandit`'s frame cells).
        (
            "rand_reads_bounds_from_strings",
            false,
            "F = frame([\"0.5\", \"2\"], rows=1, cols=2)\nX = rand(rows=2, cols=2, min=as.scalar(F[1,1]), max=as.scalar(F[1,2]), seed=7)\nprint(toString(X))\n",
            "1.180 0.524\n0.629 1.395\n\n",
        ),
        // As SystemDS 3.4: a string beside a matrix is 1 if it is `TRUE`/`true`, else
        // 0, even when it spells a number (`bandit` multiplies by a frame cell).
        (
            "a_string_beside_a_matrix_is_a_boolean",
            false,
            "F = frame([\"3\", \"abc\"], rows=1, cols=2)\ns = as.scalar(F[1,1])\nt = as.scalar(F[1,2])\nX = matrix(2, 1, 2)\nprint(toString(X > s))\nprint(toString(X == s))\nprint(toString(X * t))\nprint(toString(min(X, s)))\nprint(toString(X ^ s))\nprint(toString(s / X))\n",
            "1.000 1.000\n\n0.000 0.000\n\n0.000 0.000\n\n0.000 0.000\n\n1.000 1.000\n\n0.000 0.000\n\n",
        ),
        // As SystemDS 3.4: sums, means, variances and cumulative sums are compensated
        // (Kahan), so a 1e16 followed by a thousand ones keeps the ones; the variance
        // of no cells is NaN; toString pads the shortest digits of a double.
        (
            "sums_are_compensated_as_systemds_sums",
            false,
            "X = rbind(matrix(1e16, 1, 1), matrix(1, 1000, 1))\nprint(sum(X))\nprint(as.scalar(colSums(X)))\nprint(as.scalar(rowSums(t(X))))\nprint(as.scalar(cumsum(X)[1001, 1]))\nprint(sum(X * 1))\nprint(var(seq(1, 10) / 10))\nprint(sd(matrix(0, 3, 0)))\nZ = matrix(\"0.1 0.2 0.3 0.7 0.6 0.05\", 3, 2)\nprint(toString(colMeans(Z), decimal=17))\nprint(toString(colVars(Z), decimal=17))\n",
            "1.0000000000001E16\n1.0000000000001E16\n1.0000000000001E16\n1.0000000000001E16\n1.0000000000001E16\n0.09166666666666666\nNaN\n0.33333333333333330 0.31666666666666665\n\n0.06333333333333331 0.11583333333333330\n\n",
        ),
        // As SystemDS 3.4: a named list assigned into a named list brings its names;
        // `as.list` of a list holding one list is that list.
        (
            "lists_take_names_and_unwrap_as_systemds",
            false,
            "X = list(a=0, b=0, c=0, d=0, e=0)\nX[2:4] = list(3, 7, 5)\nX[\"e\"] = 4\nX[1] = list(f=2)\nX[\"f\"] = 1\nY = as.matrix(X)\nprint(nrow(Y) * sum(Y) + ncol(Y))\nl2 = append(list(), list(1, 2, 3))\nprint(length(append(as.list(l2[1]), 12)))\n",
            "101.0\n4\n",
        ),
        (
            "nan_and_inf_are_constants_unless_assigned",
            false,
            "x = NaN\nprint(x)\nprint(x == x)\nprint(-Inf)\nprint(sum(matrix(Inf, rows=1, cols=2)))\nInf = 3\nprint(Inf)\n",
            "NaN\nFALSE\n-Infinity\nInfinity\n3\n",
        ),
        (
            "append_joins_strings_by_lines_and_matrices_by_columns",
            false,
            "s = append(\"a\", \"b\")\ns = append(s, \"c\" + 1.5)\nprint(\"[\" + s + \"]\")\nA = append(matrix(1, rows=2, cols=1), matrix(2, rows=2, cols=2))\nprint(ncol(A) + sum(A))\n",
            "[a\nb\nc1.5]\n13.0\n",
        ),
        // 1 + 4 + 9 + 16 = 30, plus one from the nested builtin `addone`; doubled: 61.
        (
            "an_unknown_call_runs_the_builtin_file_of_that_name",
            true,
            "X = matrix(\"1 2 3 4\", rows=2, cols=2)\nprint(sqnorm(X))\nprint(sqnorm(X, double_it=TRUE))\nprint(halve(3))\n",
            "31.0\n61.0\n1.5\n",
        ),
        (
            "builtins_with_several_results_assign_them_all",
            true,
            "X = matrix(\"1 2 3 4 5 6\", rows=3, cols=2)\n[s, n] = pair(X)\nprint(toString(s))\nprint(n)\n",
            "9.000 12.000\n\n3\n",
        ),
        // `n = ncol(X) * factor()`: X is the callee's parameter, not the caller's variable
        // of that name, and `factor` is a helper of the builtin's file.
        (
            "defaults_that_read_parameters_are_evaluated_in_the_callee",
            true,
            "X = matrix(1, rows=2, cols=3)\nY = widen(X)\nprint(nrow(Y) + ncol(Y))\nprint(sum(widen(X, n=1, v=4)))\n",
            "8\n8.0\n",
        ),
    ];
    for &(case, builtins, src, want) in cases {
        let options = if builtins {
            with_builtins()
        } else {
            RunOptions::default()
        };
        assert_eq!(run(src, options), want, "{case}");
    }
}

/// The binary with `SYSTEMDS_ROOT` unset, or set to `root`.
fn spores(args: &[&str], root: Option<&std::path::Path>) -> (i32, String, String) {
    common::spores_cli_with(args, &[("SYSTEMDS_ROOT", root)], None)
}

/// `SYSTEMDS_ROOT` points at a tree whose `scripts/builtin` holds the builtins; a
/// syntax error in a builtin ends the run with exit code 2 and names the builtin's file.
#[test]
fn the_cli_finds_builtins_under_systemds_root() {
    let root = std::env::temp_dir().join(format!("spores-root-{}", std::process::id()));
    let builtin = root.join("scripts/builtin");
    std::fs::create_dir_all(&builtin).unwrap();
    for name in ["addone", "badsyntax"] {
        std::fs::copy(
            fixtures().join(format!("builtins/{name}.dml")),
            builtin.join(format!("{name}.dml")),
        )
        .unwrap();
    }
    let script = root.join("main.dml");
    std::fs::write(&script, "print(addone(1))\nprint(badsyntax(1))\n").unwrap();
    let script = script.to_str().unwrap();

    let (code, stdout, stderr) = spores(&["run", script], Some(&root));
    assert_eq!(code, 2, "{stderr}");
    assert_eq!(stdout, "2.0\n");
    assert!(
        stderr.contains("scripts/builtin/badsyntax.dml:3:11: error: expected an expression"),
        "{stderr}"
    );

    let (code, _, stderr) = spores(&["run", script], None);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("main.dml:1:7: error: unknown function `addone`"),
        "{stderr}"
    );
    std::fs::remove_dir_all(&root).unwrap();
}

#[test]
fn check_parses_files_and_their_sources() {
    let dir = fixtures();
    let good = dir.join("source/driver.dml");
    let bad = dir.join("builtins/badsyntax.dml");
    let (code, _, stderr) = spores(&["check", good.to_str().unwrap()], None);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.ends_with("1 of 1 files load\n"), "{stderr}");
    let (code, _, stderr) = spores(
        &["check", good.to_str().unwrap(), bad.to_str().unwrap()],
        None,
    );
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("badsyntax.dml:3:11: error:"), "{stderr}");
    assert!(stderr.ends_with("1 of 2 files load\n"), "{stderr}");
}

#[test]
fn errors_in_nested_files_list_every_call_site() {
    let dir = fixtures().join("source");
    let options = RunOptions {
        script_dir: Some(dir),
        ..RunOptions::default()
    };
    // The product in second.dml fails for a 2x3 matrix; first.dml called it, and the
    // script called first.dml: one `called from` line per file crossed.
    let src = "source(\"lib/first.dml\") as first\nx = 1\ny = first::viaSquare(matrix(1, rows=2, cols=3))\n";
    let d = error(src, options);
    let rendered = d.diagnostic().render_in("test.dml", src);
    let lines: Vec<&str> = rendered.lines().collect();
    assert!(
        lines[0].contains("lib/second.dml:6:7: error: shape mismatch in %*%"),
        "{rendered}"
    );
    let trace: Vec<&str> = lines
        .iter()
        .filter(|l| l.starts_with("  called from "))
        .copied()
        .collect();
    assert_eq!(trace.len(), 2, "{rendered}");
    assert!(trace[0].ends_with("lib/first.dml:10:7"), "{rendered}");
    assert_eq!(trace[1], "  called from test.dml:3:5", "{rendered}");
}

#[test]
fn eval_calls_a_function_by_name_and_assert_stops() {
    // SystemDS 3.4 prints 3.0 and 7.0 for the two calls through eval.
    let out = run(
        r#"
f = function(Double a, Double b = 10) return (Double c) { c = a + b }
print(eval("f", 1, 2))
print(eval("f", list(a=3, b=4)))
print(eval("f", list(5)))
print(toString(eval("pair", matrix("1 2 3 4", rows=2, cols=2))))
assert(TRUE)
print("x=%d y=%5.2f", 3, 2.5)
"#,
        with_builtins(),
    );
    assert_eq!(out, "3.0\n7.0\n15.0\n4.000 6.000\n\nx=3 y= 2.50\n");
    let d = error("assert(1 > 2)\n", RunOptions::default());
    assert_eq!(d.diagnostic().message, "assertion failed");
    assert_eq!(
        message(
            "f = function(Double a) return (Double c) { c = a }\nx = eval(\"f\", 1, 2)\n",
            RunOptions::default()
        ),
        "eval: `f` takes at most 1 argument"
    );
}

#[test]
fn systemds_aliases_of_native_builtins_call_the_same_builtin() {
    // SystemDS 3.4 prints the same for this script (its Builtins' second names).
    let out = run(
        r#"
A = matrix("1 2 3 4", rows=2, cols=2)
print(tr(A))
print(toString(inverse(A)))
print(toString(is.infinite(A / (A - 1))))
print(toString(isNA(A / (A - A))))
g = matrix("1 2 1 2", rows=4, cols=1)
v = matrix("1 2 3 4", rows=4, cols=1)
print(toString(ctable(g, v)))
print(toString(groupedAggregate(target=v, groups=g, fn="sum")))
print(centralMoment(v, 2))
[C, N] = rcm(A, A)
print(toString(C))
"#,
        RunOptions::default(),
    );
    assert_eq!(
        out,
        "5.0\n-2.000 1.000\n1.500 -0.500\n\n1.000 0.000\n0.000 0.000\n\n0.000 0.000\n\
         0.000 0.000\n\n1.000 0.000 1.000 0.000\n0.000 1.000 0.000 1.000\n\n4.000\n6.000\n\n\
         1.25\n1.000 2.000\n1.000 2.000\n\n"
    );
}
