//! The equivalent patterns of every sum-product rewrite method of SystemDS listed in
//! Figure 14 of the SPORES paper, shared by `systemds_rewrites.rs` (proved by the
//! canonical-form procedure, with near misses) and `systemds_rewrites_found.rs` (found
//! by saturation). `matrix(0, ...)` is an input marked all-zero (`--nnz Z=0`), and
//! `as.scalar` of a 1×1 matrix is the matrix itself, as in SystemDS.

#![allow(dead_code)]

use super::env;
use spores_opt::la::ShapeEnv;

/// X, Y: m×n; A: m×m; W: m×k; H: k×n; U: m×k, V: n×k; u: m×1; v: n×1; w: 1×n;
/// s, S: 1×1; Z: m×n all zeros; Zt: n×m all zeros; Zk: n×k all zeros; Zmk: m×k all zeros.
pub fn default_env() -> ShapeEnv {
    env(
        &[
            "X=mxn", "Y=mxn", "A=mxm", "W=mxk", "H=kxn", "U=mxk", "V=nxk", "u=mx1", "v=nx1",
            "w=1xn", "s=1x1", "S=1x1", "Z=mxn", "Zt=nxm", "Zk=nxk", "Zmk=mxk",
        ],
        &["Z", "Zt", "Zk", "Zmk"],
    )
}

/// `transpose_agg_bin_binary_chains`' shapes.
pub fn chains_env() -> ShapeEnv {
    env(&["A=kxm", "B=nxk", "C=mxn", "D=kxn"], &[])
}

/// One Figure-14 method: its name (the SystemDS rewrite method, snake_cased), its
/// shapes, and its `(lhs, rhs)` patterns, `lhs ≡ rhs`, `rhs` SystemDS' rewritten form.
pub struct Method {
    pub name: &'static str,
    pub env: fn() -> ShapeEnv,
    pub patterns: &'static [(&'static str, &'static str)],
}

pub const METHODS: &[Method] = &[
    Method {
        name: "unnecessary_outer_product",
        env: default_env,
        // X*(Y%*%1) with 1 a row of ones (v^0 is a column of ones).
        patterns: &[
            ("X * (u %*% t(v^0))", "X * u"),
            ("X * (u^0 %*% w)", "X * w"),
            ("X * (u %*% 1)", "X * u"),
        ],
    },
    Method {
        name: "colwise_agg",
        env: default_env,
        patterns: &[
            ("colSums(u)", "sum(u)"),
            ("colSums(w)", "w"),
            ("colSums(s)", "s"),
        ],
    },
    Method {
        name: "rowwise_agg",
        env: default_env,
        patterns: &[
            ("rowSums(w)", "sum(w)"),
            ("rowSums(u)", "u"),
            ("rowSums(S)", "S"),
        ],
    },
    Method {
        name: "col_sums_mv_mult",
        env: default_env,
        patterns: &[
            ("colSums(X * u)", "t(u) %*% X"),
            ("colSums(u * X)", "t(t(X) %*% u)"),
        ],
    },
    Method {
        name: "row_sums_mv_mult",
        env: default_env,
        patterns: &[
            ("rowSums(X * w)", "X %*% t(w)"),
            ("rowSums(t(v) * X)", "X %*% v"),
        ],
    },
    Method {
        name: "unnecessary_aggregate",
        env: default_env,
        patterns: &[
            ("sum(S)", "as.scalar(S)"),
            ("sum(S)", "S"),
            ("colSums(S)", "S"),
            ("rowSums(S)", "as.scalar(S)"),
            ("sum(t(u) %*% u)", "t(u) %*% u"),
            ("sum(t(w))", "rowSums(w)"),
        ],
    },
    Method {
        name: "empty_agg",
        env: default_env,
        patterns: &[
            ("sum(Z)", "0"),
            ("colSums(Z)", "0 * w"),
            ("rowSums(Z)", "u * 0"),
        ],
    },
    Method {
        name: "empty_reorg_op",
        env: default_env,
        patterns: &[("t(Z)", "Zt"), ("t(Z)", "0 * t(X)"), ("t(t(Z) * 3)", "Z")],
    },
    Method {
        name: "empty_mmult",
        env: default_env,
        patterns: &[
            ("X %*% Zk", "Zmk"),
            ("t(Zk) %*% t(X)", "t(Zmk)"),
            ("Z %*% v", "0 * u"),
        ],
    },
    Method {
        name: "identity_rep_matrix_mult",
        env: default_env,
        patterns: &[("u %*% 1", "u"), ("u %*% (s^0)", "u"), ("1 %*% w", "w")],
    },
    Method {
        name: "scalar_matrix_mult",
        env: default_env,
        patterns: &[("u %*% s", "u * as.scalar(s)"), ("s %*% w", "w * s")],
    },
    Method {
        name: "pushdown_sum_on_add",
        env: default_env,
        patterns: &[
            ("sum(X + Y)", "sum(X) + sum(Y)"),
            ("sum(X - Y)", "sum(X) - sum(Y)"),
        ],
    },
    Method {
        name: "dot_product_sum",
        env: default_env,
        patterns: &[
            ("sum(u^2)", "t(u) %*% u"),
            ("sum(u * u)", "as.scalar(t(u) %*% u)"),
        ],
    },
    Method {
        name: "reorder_minus_matrix_mult",
        env: default_env,
        patterns: &[
            ("(-t(X)) %*% u", "-(t(X) %*% u)"),
            ("X %*% (-v)", "-(X %*% v)"),
        ],
    },
    Method {
        name: "sum_matrix_mult",
        env: default_env,
        patterns: &[
            ("sum(W %*% H)", "sum(t(colSums(W)) * rowSums(H))"),
            ("colSums(W %*% H)", "colSums(W) %*% H"),
            ("rowSums(W %*% H)", "W %*% rowSums(H)"),
        ],
    },
    Method {
        name: "empty_binary_operation",
        env: default_env,
        patterns: &[("X * Z", "Z"), ("X + Z", "X"), ("X - Z", "X")],
    },
    Method {
        name: "scalar_mv_binary_operation",
        env: default_env,
        patterns: &[("X * S", "X * as.scalar(S)"), ("X - S", "X - as.scalar(S)")],
    },
    Method {
        name: "unnecessary_binary_operation",
        env: default_env,
        patterns: &[
            ("X * 1", "X"),
            ("X / 1", "X"),
            ("X - 0", "X"),
            ("0 + X", "X"),
            ("1 * X * 1", "X"),
        ],
    },
    Method {
        name: "binary_to_unary_operation",
        env: default_env,
        patterns: &[("X * X", "X^2"), ("X + X", "X * 2")],
    },
    Method {
        name: "matrix_mult_scalar_add",
        env: default_env,
        patterns: &[
            ("s + U %*% t(V)", "U %*% t(V) + s"),
            ("1e-6 + U %*% t(V)", "U %*% t(V) + 1e-6"),
        ],
    },
    Method {
        name: "distributive_binary_operation",
        env: default_env,
        patterns: &[
            ("X - Y * X", "(1 - Y) * X"),
            ("X + Y * X", "(1 + Y) * X"),
            ("Y * X - X", "(Y - 1) * X"),
            ("X - u * X", "(1 - u) * X"),
        ],
    },
    Method {
        name: "bushy_binary_operation",
        env: default_env,
        patterns: &[
            ("X * (Y * (W %*% H))", "(X * Y) * (W %*% H)"),
            ("X * (Y * u)", "(X * Y) * u"),
            ("(X * Y) * X", "X^2 * Y"),
        ],
    },
    Method {
        name: "unary_agg_reorg_operation",
        env: default_env,
        patterns: &[
            ("sum(t(X))", "sum(X)"),
            ("rowSums(t(X))", "t(colSums(X))"),
            ("colSums(t(X))", "t(rowSums(X))"),
        ],
    },
    Method {
        name: "unnecessary_aggregates",
        env: default_env,
        patterns: &[
            ("sum(rowSums(X))", "sum(X)"),
            ("sum(colSums(X))", "sum(X)"),
            ("rowSums(colSums(X))", "sum(X)"),
            ("colSums(rowSums(X))", "sum(X)"),
            ("sum(sum(X))", "sum(X)"),
        ],
    },
    Method {
        name: "binary_matrix_scalar_operation",
        env: default_env,
        patterns: &[
            ("as.scalar(S * s)", "as.scalar(S) * s"),
            ("as.scalar(S + s)", "as.scalar(S) + s"),
            ("as.scalar(S - s)", "S - s"),
        ],
    },
    Method {
        name: "pushdown_unary_agg_transpose_op",
        env: default_env,
        patterns: &[
            ("colSums(t(X))", "t(rowSums(X))"),
            ("rowSums(t(X))", "t(colSums(X))"),
        ],
    },
    Method {
        name: "pushdown_cse_transpose_scalar_op",
        env: default_env,
        patterns: &[
            ("t(X^2)", "t(X)^2"),
            ("t(X * s)", "t(X) * s"),
            ("t(X * 3)", "3 * t(X)"),
        ],
    },
    Method {
        name: "pushdown_sum_binary_mult",
        env: default_env,
        patterns: &[
            ("sum(s * X)", "s * sum(X)"),
            ("sum(X * s)", "sum(X) * s"),
            ("sum(2 * X)", "2 * sum(X)"),
        ],
    },
    Method {
        name: "unnecessary_reorg_operation",
        env: default_env,
        patterns: &[("t(t(X))", "X"), ("t(t(t(X)))", "t(X)")],
    },
    Method {
        name: "transpose_agg_bin_binary_chains",
        env: chains_env,
        // t(t(A) %*% t(B) + C) -> B %*% A + t(C), and t(t(A) %*% (t(B) + C)) -> (B + t(C)) %*% A
        patterns: &[
            ("t(t(A) %*% t(B) + C)", "B %*% A + t(C)"),
            ("t(t(A) %*% (t(B) + D))", "(B + t(D)) %*% A"),
        ],
    },
    Method {
        name: "unnecessary_minus",
        env: default_env,
        patterns: &[("-(-X)", "X"), ("-(-(-X))", "-X")],
    },
];

/// The method called `name`.
pub fn method(name: &str) -> &'static Method {
    METHODS
        .iter()
        .find(|m| m.name == name)
        .unwrap_or_else(|| panic!("no Figure-14 method `{name}`"))
}
