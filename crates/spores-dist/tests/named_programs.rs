//! The programs the relational engine exists for — the squared loss of a factorization,
//! the matrix-multiplication chain and an ALS gradient step — on sparse data: DataFusion's
//! values for the program as written and for the optimized plan equal the local engine's.

#[path = "../../spores-opt/tests/common/mod.rs"]
mod common;
mod differential;

use std::collections::HashMap;

use differential::shape_env;
use spores_dist::{DataFusionEngine, DistError, EngineConfig};
use spores_exec::{DenseMatrix, Matrix};
use spores_opt::eval::eval;
use spores_opt::la::LaExpr;
use spores_opt::saturate::{optimize, OptimizeOptions};

/// A deterministic `rows x cols` matrix with about `density` of its cells non-zero.
fn matrix(seed: u64, rows: usize, cols: usize, density: f64) -> Matrix {
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    let d = DenseMatrix::from_fn(rows, cols, |_, _| {
        if next() < density {
            1.0 + 4.0 * next()
        } else {
            0.0
        }
    });
    Matrix::Dense(d).into_best_format()
}

fn scalar(v: f64) -> Matrix {
    Matrix::Dense(DenseMatrix::filled(1, 1, v))
}

/// `X` (200 x 120, 5 % non-zeros), rank-6 factors `U`, `V`, a vector `v`, `lambda`.
fn inputs() -> HashMap<String, Matrix> {
    let mut inputs = HashMap::new();
    inputs.insert("X".to_string(), matrix(1, 200, 120, 0.05));
    inputs.insert("U".to_string(), matrix(2, 200, 6, 1.0));
    inputs.insert("V".to_string(), matrix(3, 120, 6, 1.0));
    inputs.insert("v".to_string(), matrix(4, 120, 1, 1.0));
    inputs.insert("lambda".to_string(), scalar(0.1));
    inputs
}

/// Runs `text` as written and optimized on DataFusion, checks both against the local
/// engine, and returns the optimized plan.
fn check(text: &str) -> LaExpr {
    let data = inputs();
    let engine = DataFusionEngine::new(EngineConfig::default()).unwrap();
    let e = LaExpr::parse(text).unwrap();
    let expected = eval(&e, &data).unwrap_or_else(|err| panic!("`{text}`: {err}"));
    let plan = optimize(&e, &shape_env(&data), &OptimizeOptions::default())
        .unwrap()
        .expr;
    for program in [&e, &plan] {
        let got = engine.run(program, &data).unwrap();
        assert!(
            got.approx_eq(&expected, 1e-10),
            "`{program}`: {:?} vs {:?}",
            &got.to_dense().data()[..got.to_dense().data().len().min(6)],
            &expected.to_dense().data()[..expected.to_dense().data().len().min(6)]
        );
    }
    plan
}

#[test]
fn squared_loss_runs_fused_as_a_three_way_join() {
    let plan = check("sum((X - U %*% t(V))^2)");
    assert!(plan.to_string().contains("wsloss"), "{plan}");
    // DataFusion plans it with hash joins and partial/final hash aggregates.
    let engine = DataFusionEngine::new(EngineConfig::default()).unwrap();
    let text = engine.explain(&plan, &inputs()).unwrap();
    assert!(text.contains("HashJoinExec"), "{text}");
    assert!(text.contains("AggregateExec: mode=Partial"), "{text}");
}

#[test]
fn matrix_multiplication_chain() {
    let plan = check("t(X) %*% (X %*% v)");
    assert!(!plan.to_string().contains("t(X) %*% X"), "{plan}");
}

#[test]
fn als_gradient_step() {
    // One ALS-CG half-step's gradient and Hessian-vector product (examples/als.dml).
    check("(U %*% t(V) - X) %*% V + lambda * U");
    check("U %*% (t(V) %*% V) + lambda * U");
    check("sum(U^2) * lambda + sum((X - U %*% t(V))^2)");
}

#[test]
fn broadcasting_fills_and_dense_functions() {
    for text in [
        "X + 1",
        // Two stacked transposes (DataFusion once merged their projections wrongly).
        "t(t(X)) - X * 2",
        "rowSums(X) * colSums(t(X)) - 2",
        "X * colSums(X)",
        "exp(t(v)) %*% t(X)",
        "sum(X / (X + 1))",
        "max(X, 2) + rowSums(U) %*% t(min(v, 3))",
        "(X > 2) * X",
        "trace(t(V) %*% V) + mean(U) + sum(rowMeans(X)) + sum(colMeans(X))",
        "diag(t(V) %*% V) * 2",
        "sum(diag(rowSums(U)))",
        "X^3 + sqrt(abs(X))",
    ] {
        check(text);
    }
}

/// Blocks, slices and reversed rows (DML's `cbind`, `rbind`, `X[a:b, c]` and `rev`, which
/// the optimizer plans through) run as relational plans: unions with shifted indices,
/// filters with renumbered ones.
#[test]
fn blocks_slices_and_reversed_rows() {
    for text in [
        "cbind(X, U)",
        "rbind(U, U[1:5, ]) * 2",
        "rowSums(cbind(X, U))",
        "X[3:7, 10:12] + 1",
        "(X %*% V)[2, ]",
        "t(v)[1, 4:6]",
        "rev(X) - X",
        "rev(v)",
        "sum(rbind(X, X)) + sum(cbind(U, U) + 1)",
    ] {
        check(text);
    }
}

/// Masked evaluation (`masked_mul` the optimizer chose, the weighted division
/// `masked_div` written so): joined on X's tuples, with the values of the local engine (a
/// zero of X stays 0 whatever the tree).
#[test]
fn masked_operators_join_on_the_mask() {
    for (text, op) in [
        ("masked_div(X, 1 + abs(U %*% t(V)))", "masked_div"),
        ("sum(X * exp(-(U %*% t(V))))", "masked_mul"),
        ("masked_div(X, U %*% t(V) - 3)", "masked_div"),
    ] {
        let plan = check(text);
        assert!(plan.to_string().contains(op), "`{text}`: {plan}");
    }
}

#[test]
fn unsupported_operators_are_named_in_the_error() {
    let engine = DataFusionEngine::new(EngineConfig::default()).unwrap();
    let e = LaExpr::parse("rowMaxs(X)").unwrap();
    match engine.run(&e, &inputs()) {
        Err(DistError::Unsupported(what)) => assert!(what.contains("rowMaxs"), "{what}"),
        other => panic!("expected Unsupported, got {other:?}"),
    }
    let e = LaExpr::parse("X %*% U").unwrap();
    let err = engine.run(&e, &inputs()).unwrap_err();
    assert!(err.to_string().contains("200x120 times 200x6"), "{err}");
}
