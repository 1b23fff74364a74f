//! Linear-algebra builtins (`solve`, `inv`, `cholesky`, `eigen`) against SystemDS 3.4's
//! printed values, eigenvector signs included.

mod common;

use common::{assert_close, assert_fails, run_numbers};

const A: &str = "A = matrix(\"4 1 2 1 3 0 2 0 5\", rows=3, cols=3)\n";

fn run(name: &str, body: &str) -> Vec<f64> {
    run_numbers(name, &format!("{A}{body}"))
}

#[test]
fn solve_inverse_and_cholesky() {
    let got = run(
        "solve.dml",
        r#"print(toString(t(solve(A, matrix("1 2 3", rows=3, cols=1))), decimal=10))
print(toString(inv(A), decimal=10))
print(toString(cholesky(A), decimal=10))
print(as.scalar(inv(matrix(4, rows=1, cols=1))))
"#,
    );
    assert_close(
        &got,
        &[
            -0.3023255814,
            0.7674418605,
            0.7209302326, //
            0.3488372093,
            -0.1162790698,
            -0.1395348837,
            -0.1162790698,
            0.3720930233,
            0.0465116279,
            -0.1395348837,
            0.0465116279,
            0.2558139535, //
            2.0,
            0.0,
            0.0,
            0.5,
            1.6583123952,
            0.0,
            1.0,
            -0.3015113446,
            1.9771421064, //
            0.25,
        ],
        1e-9,
    );
}

#[test]
fn eigen_matches_systemds_values_and_vector_signs() {
    let got = run(
        "eigen.dml",
        r#"[ev, EV] = eigen(A)
print(toString(t(ev), decimal=10))
print(toString(EV, decimal=10))
B = matrix("2 -1 0 0 -1 2 -1 0 0 -1 2 -1 0 0 -1 2", rows=4, cols=4)
[bv, BV] = eigen(B)
print(toString(t(bv), decimal=12))
print(toString(BV, decimal=12))
C = matrix("1 2 3 2 5 1 3 1 9", rows=3, cols=3)
[cv, CV] = eigen(C)
print(toString(t(cv), decimal=12))
print(toString(CV, decimal=12))
"#,
    );
    assert_close(
        &got,
        &[
            1.8548973088,
            3.4760236029,
            6.6690790883, //
            -0.6793130620,
            0.3743619548,
            -0.6311789688,
            0.5932333119,
            0.7864356988,
            -0.1720265368,
            0.4319814828,
            -0.4912962635,
            -0.7563200249, //
            0.381966011250,
            1.381966011250,
            2.618033988750,
            3.618033988750, //
            0.371748034460,
            -0.601500955008,
            0.601500955008,
            -0.371748034460, //
            0.601500955008,
            -0.371748034460,
            -0.371748034460,
            0.601500955008, //
            0.601500955008,
            0.371748034460,
            -0.371748034460,
            -0.601500955008, //
            0.371748034460,
            0.601500955008,
            0.601500955008,
            0.371748034460, //
            -0.477225575052,
            5.000000000000,
            10.477225575052, //
            0.921130666628,
            -0.182574185835,
            -0.343780397439, //
            -0.288675134595,
            -0.912870929175,
            -0.288675134595, //
            -0.261122503173,
            0.365148371670,
            -0.893578035206,
        ],
        1e-9,
    );
}

#[test]
fn wrong_shapes_and_singular_matrices_are_errors() {
    assert_fails(
        "solve_shape.dml",
        &format!("{A}x = solve(A, matrix(1, rows=2, cols=1))\nprint(sum(x))\n"),
        &["3x3", "2x1"],
    );
    assert_fails(
        "inv_singular.dml",
        "x = inv(matrix(\"1 2 2 4\", rows=2, cols=2))\nprint(sum(x))\n",
        &["singular"],
    );
    assert_fails(
        "eigen_one.dml",
        &format!("{A}x = eigen(A)\n"),
        &["returns 2 values"],
    );
    assert_fails(
        "chol_square.dml",
        "x = cholesky(matrix(1, rows=2, cols=3))\nprint(sum(x))\n",
        &["square", "2x3"],
    );
}
