//! Linear-algebra builtins (`solve`, `inv`, `cholesky`, `eigen`, `det`, `lu`) against
//! SystemDS 3.4's printed values, eigenvector signs included; `qr`, `lu` and `svd` by the
//! identities their factors satisfy.

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

#[test]
fn det_and_lu_match_systemds_on_a_known_matrix() {
    let got = run(
        "det_lu.dml",
        r#"print(det(A))
print(det(matrix("0 1 1 0", rows=2, cols=2)))
print(det(matrix("1 2 2 4", rows=2, cols=2)))
[P, L, U] = lu(A)
print(toString(P))
print(toString(L, decimal=10))
print(toString(U, decimal=10))
"#,
    );
    let third = -0.5 / 2.75;
    assert_close(
        &got,
        &[
            43.0,
            -1.0,
            0.0, //
            1.0,
            0.0,
            0.0,
            0.0,
            1.0,
            0.0,
            0.0,
            0.0,
            1.0, //
            1.0,
            0.0,
            0.0,
            0.25,
            1.0,
            0.0,
            0.5,
            third,
            1.0, //
            4.0,
            1.0,
            2.0,
            0.0,
            2.75,
            -0.5,
            0.0,
            0.0,
            4.0 - third * -0.5,
        ],
        1e-9,
    );
}

/// `qr`, `lu` and `svd` of random matrices, checked by what they must satisfy (signs of
/// `qr` and `svd` factors are the factorization's choice): shapes as SystemDS gives them,
/// `Q` (built from the Householder vectors `H`) orthogonal, `Q R == A`, `P A == L U`,
/// `U S t(V) == A` with `S` diagonal, and the triangles that must be zero.
#[test]
fn decompositions_reconstruct_their_input() {
    let got = run_numbers(
        "decompositions.dml",
        r#"X = rand(rows=40, cols=25, min=-1, max=1, seed=7)
Y = rand(rows=30, cols=30, min=-1, max=1, seed=8)
[H, R] = qr(X)
[P, L, U] = lu(Y)
[U1, S1, V1] = svd(X)
[U2, S2, V2] = svd(t(X))
print(nrow(H) + " " + ncol(H) + " " + nrow(R) + " " + ncol(R))
print(nrow(P) + " " + ncol(L) + " " + nrow(U))
print(nrow(U1) + " " + ncol(U1) + " " + nrow(S1) + " " + ncol(S1) + " " + nrow(V1) + " " + ncol(V1))
print(nrow(U2) + " " + ncol(U2) + " " + nrow(S2) + " " + nrow(V2) + " " + ncol(V2))
Q = diag(matrix(1, rows=nrow(X), cols=1))
for (j in 1:ncol(H)) {
  h = H[, j]
  Q = Q - (Q %*% h) %*% t(h) / as.scalar(h[j, 1])
}
print(max(abs(t(Q) %*% Q - diag(matrix(1, rows=nrow(X), cols=1)))))
print(max(abs(Q %*% R - X)))
print(sum(abs(lower.tri(target=R, diag=FALSE, values=TRUE))))
print(max(abs(P %*% Y - L %*% U)))
print(sum(abs(upper.tri(target=L, diag=FALSE, values=TRUE))))
print(sum(abs(lower.tri(target=U, diag=FALSE, values=TRUE))))
print(max(abs(U1 %*% S1 %*% t(V1) - X)))
print(sum(abs(S1)) - sum(abs(diag(S1))))
print(max(abs(U2 %*% S2 %*% t(V2) - t(X))))
"#,
    );
    let shapes = [
        40.0, 25.0, 40.0, 25.0, //
        30.0, 30.0, 30.0, //
        40.0, 25.0, 25.0, 25.0, 25.0, 25.0, //
        25.0, 25.0, 25.0, 40.0, 25.0,
    ];
    assert_eq!(got.len(), shapes.len() + 9, "{got:?}");
    assert_eq!(got[..shapes.len()], shapes);
    for (k, residual) in got[shapes.len()..].iter().enumerate() {
        assert!(residual.abs() < 1e-12, "residual #{k}: {residual}");
    }
}

#[test]
fn decomposition_errors_name_the_problem() {
    assert_fails(
        "det_shape.dml",
        "print(det(matrix(1, rows=2, cols=3)))\n",
        &["square", "2x3"],
    );
    assert_fails(
        "lu_singular.dml",
        "[P, L, U] = lu(matrix(\"1 2 2 4\", rows=2, cols=2))\nprint(sum(U))\n",
        &["singular"],
    );
    assert_fails(
        "lu_shape.dml",
        "[P, L, U] = lu(matrix(1, rows=3, cols=2))\nprint(sum(U))\n",
        &["square", "3x2"],
    );
    assert_fails(
        "qr_one.dml",
        &format!("{A}x = qr(A)\n"),
        &["returns 2 values", "[H, R]"],
    );
    assert_fails(
        "svd_one.dml",
        &format!("{A}x = svd(A)\n"),
        &["returns 3 values", "[U, S, V]"],
    );
}
