//! Embedding the interpreter (as the Python bindings do): inputs bound as variables,
//! cancellation from another thread, plans printed as Graphviz.

use std::collections::HashMap;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use spores_dml::runtime::{Interpreter, RunOptions, INTERRUPTED};
use spores_dml::Value;
use spores_exec::matrix::{DenseMatrix, Matrix};

fn run(
    src: &str,
    inputs: HashMap<String, Value>,
    options: RunOptions,
) -> (Result<HashMap<String, Value>, String>, String) {
    let program = spores_lang::parse(src).expect("parses");
    let mut out = Vec::new();
    let mut interp = Interpreter::new(&program, options, &mut out);
    let result = interp.run_with(&program, inputs).map_err(|d| d.message);
    drop(interp);
    (result, String::from_utf8(out).unwrap())
}

fn matrix(rows: usize, cols: usize, data: Vec<f64>) -> Value {
    Value::matrix(Matrix::Dense(
        DenseMatrix::from_vec(rows, cols, data).unwrap(),
    ))
}

#[test]
fn inputs_are_variables_before_the_first_statement() {
    let inputs = HashMap::from([
        ("X".to_string(), matrix(2, 2, vec![1.0, 2.0, 3.0, 4.0])),
        ("k".to_string(), Value::Int(3)),
    ]);
    let (env, _) = run(
        "Y = t(X) %*% X * k\ns = sum(Y)\n",
        inputs,
        RunOptions::default(),
    );
    let env = env.unwrap();
    // t(X) X = [[10, 14], [14, 20]], times 3.
    assert_eq!(env["s"].as_f64(), Some(174.0));
    let Value::Matrix(y) = &env["Y"] else {
        panic!("Y is a matrix")
    };
    assert_eq!(y.get(0, 1), 42.0);
}

#[test]
fn a_set_cancel_flag_stops_the_run_before_its_next_block() {
    let cancel = Arc::new(AtomicBool::new(true));
    let options = RunOptions {
        cancel: Some(cancel),
        ..RunOptions::default()
    };
    let (result, printed) = run("print(\"never\")\n", HashMap::new(), options);
    assert_eq!(result.unwrap_err(), INTERRUPTED);
    assert_eq!(printed, "");
}

#[test]
fn explain_dot_prints_a_graphviz_digraph_of_the_plan() {
    let options = RunOptions {
        explain: true,
        explain_dot: true,
        ..RunOptions::default()
    };
    let inputs = HashMap::from([("X".to_string(), matrix(2, 3, vec![1.0; 6]))]);
    let (result, printed) = run("Y = X %*% t(X)\n", inputs, options);
    result.unwrap();
    assert!(printed.starts_with("digraph plan {"), "{printed}");
    assert!(printed.trim_end().ends_with('}'), "{printed}");
    assert!(printed.contains("input X"), "{printed}");
    assert!(printed.contains("2x2 dense"), "{printed}");
    assert!(printed.contains(" -> out0;"), "{printed}");
    assert!(printed.contains("label=\"Y\""), "{printed}");
}
