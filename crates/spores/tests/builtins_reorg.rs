//! Reorganizing builtins (`order`, `removeEmpty`, `table`, `unique`, `rev`, `roll`,
//! `lower.tri`/`upper.tri`, `aggregate`, `cumsum` and friends, `rowIndexMax`/`Min`),
//! and the small builtins SystemDS's test scripts call (`colProds`, `bitwAnd`, `pmax`,
//! ...), against what SystemDS 3.4 prints for the same snippets.

mod common;

use common::{assert_close, assert_fails, run_dml, run_numbers as run};

#[test]
fn order_is_stable_and_returns_indices_or_rows() {
    let got = run(
        "order.dml",
        r#"Y = matrix("1 1 2 2 2 3", rows=6, cols=1)
print(toString(t(order(target=Y, by=1, decreasing=FALSE, index.return=TRUE))))
print(toString(t(order(target=Y, by=1, decreasing=TRUE, index.return=TRUE))))
Z = matrix("2 1 1 5 2 3 1 4", rows=4, cols=2)
print(toString(order(target=Z, by=1, decreasing=TRUE)))
print(toString(t(order(target=matrix("3 1 2 1 1 9", rows=3, cols=2), by=2, index.return=TRUE))))
"#,
    );
    assert_close(
        &got,
        &[
            1., 2., 3., 4., 5., 6., // increasing
            6., 3., 4., 5., 1., 2., // decreasing keeps ties in input order
            2., 1., 2., 3., 1., 5., 1., 4., // rows
            1., 2., 3.,
        ],
        0.0,
    );
    assert_fails(
        "order_by.dml",
        "X = matrix(1, rows=2, cols=2)\nY = order(target=X, by=3)\nprint(sum(Y))\n",
        &["by=3", "2x2"],
    );
}

/// `by` as a vector of columns: the first decides, the next break its ties; what SystemDS
/// 3.4 printed for the same calls.
#[test]
fn order_by_several_columns() {
    let got = run(
        "order_cols.dml",
        r#"A = matrix("3 1 2 1 1 2 1 1 2 2", 5, 2)
print(toString(t(order(target=A, by=matrix("2 1", 2, 1), index.return=TRUE))))
print(toString(t(order(target=A, by=matrix("1 2", 1, 2), decreasing=TRUE, index.return=TRUE))))
print(toString(order(target=A, by=matrix("2 1", 2, 1), decreasing=TRUE)))
"#,
    );
    assert_close(
        &got,
        &[
            4., 2., 1., 3., 5., // by column 2, then 1
            1., 5., 2., 3., 4., // by column 1, then 2, decreasing
            2., 2., 1., 2., 3., 1., 2., 1., 1., 1., // rows
        ],
        0.0,
    );
    assert_fails(
        "order_cols_bad.dml",
        "X = matrix(1, rows=2, cols=2)\nY = order(target=X, by=matrix(\"1 3\", 2, 1))\nprint(sum(Y))\n",
        &["by=3", "2x2"],
    );
}

#[test]
fn remove_empty_rows_cols_select_and_all_empty() {
    let got = run(
        "remove_empty.dml",
        r#"W = matrix("1 0 0 0 2 0", rows=3, cols=2)
print(toString(removeEmpty(target=W, margin="rows")))
print(toString(t(removeEmpty(target=W, margin="cols"))))
print(toString(removeEmpty(target=W, margin="rows", select=matrix("0 0 1", rows=3, cols=1))))
print(toString(removeEmpty(target=W, margin="rows", select=matrix("0 1 1", rows=3, cols=1))))
E = matrix(0, rows=3, cols=2)
R = removeEmpty(target=E, margin="rows")
C = removeEmpty(target=E, margin="cols")
N = removeEmpty(target=E, margin="rows", empty.return=FALSE)
S = removeEmpty(target=W, margin="rows", select=matrix(0, rows=3, cols=1))
print(nrow(R) + " " + ncol(R) + " " + nrow(C) + " " + ncol(C) + " " + nrow(N) + " " + ncol(N) + " " + nrow(S) + " " + ncol(S))
Sp = matrix(0, rows=50, cols=40)
Sp[7, 3] = 5
Sp[30, 40] = 6
print(toString(removeEmpty(target=Sp, margin="rows")[, 40]))
"#,
    );
    assert_close(
        &got,
        &[
            1., 0., 2., 0., // rows
            1., 0., 2., // cols
            2., 0., // select
            0., 0., 2., 0., // select keeps empty rows
            // All-empty shapes. Selecting nothing gives one row of zeros, as SystemDS's
            // runtime does (its `nrow` says 0 for a literal all-zero `select`, a
            // compile-time estimate; its `toString` shows the row).
            1., 2., 3., 1., 0., 2., 1., 2., 0., 6.,
        ],
        0.0,
    );
    assert_fails(
        "remove_empty_bad.dml",
        "W = matrix(1, rows=3, cols=2)\nR = removeEmpty(target=W, margin=\"diag\")\nprint(sum(R))\n",
        &["margin"],
    );
    assert_fails(
        "remove_empty_arg.dml",
        "W = matrix(1, rows=3, cols=2)\nR = removeEmpty(target=W, margins=\"rows\")\n",
        &["no parameter `margins`"],
    );
}

#[test]
fn table_forms_dims_and_weights() {
    let got = run(
        "table.dml",
        r#"Y = matrix("1 1 2 2 2 3", rows=6, cols=1)
print(toString(table(Y, Y)))
s = seq(1, 3)
p = matrix("2 3 1", rows=3, cols=1)
print(toString(table(s, p, 4, 5)))
print(toString(table(s, p, 2, 2)))
print(toString(t(table(Y, 1))))
A = matrix("1 2 2", rows=3, cols=1)
B = matrix("1 1 3", rows=3, cols=1)
print(toString(table(A, B, matrix("0.5 2 3", rows=3, cols=1))))
print(toString(table(A, B, 2.0)))
print(toString(table(A, B, odim1=1, odim2=1)))
"#,
    );
    assert_close(
        &got,
        &[
            2., 0., 0., 0., 3., 0., 0., 0., 1., //
            0., 1., 0., 0., 0., 0., 0., 1., 0., 0., 1., 0., 0., 0., 0., 0., 0., 0., 0., 0., //
            0., 1., 0., 0., //
            2., 3., 1., //
            0.5, 0., 0., 2., 0., 3., //
            2., 0., 0., 2., 0., 2., //
            1.,
        ],
        0.0,
    );
    assert_fails(
        "table_len.dml",
        "T = table(seq(1, 3), seq(1, 4))\nprint(sum(T))\n",
        &["3x1", "4x1"],
    );
    assert_fails(
        "table_zero.dml",
        "T = table(seq(0, 2), seq(1, 3))\nprint(sum(T))\n",
        &["is not a category"],
    );
}

#[test]
fn cumulative_aggregates_on_dense_sparse_and_edge_shapes() {
    let got = run(
        "cumulative.dml",
        r#"X = matrix("3 1 2 1 3 NaN 0 5", rows=4, cols=2)
print(toString(cumsum(X)))
print(toString(cumprod(X)))
print(toString(cummin(X)))
print(toString(cummax(X)))
S = matrix(0, rows=4, cols=30)
S[2, 1] = 1
S[4, 1] = 2
print(toString(t(cumsum(S)[, 1])))
print(toString(cumsum(matrix("1 2 3", rows=1, cols=3))))
print(as.scalar(cumsum(matrix(7, rows=1, cols=1))))
"#,
    );
    let nan = f64::NAN;
    assert_close(
        &got,
        &[
            3., 1., 5., 2., 8., nan, 8., nan, //
            3., 1., 6., 1., 18., nan, 0., nan, //
            3., 1., 2., 1., 2., nan, 0., nan, //
            3., 1., 3., 1., 3., nan, 3., nan, //
            0., 1., 1., 3., //
            1., 2., 3., //
            7.,
        ],
        0.0,
    );
}

#[test]
fn row_index_extrema_ties_nan_and_sparse() {
    let got = run(
        "row_index.dml",
        r#"print(toString(t(rowIndexMax(matrix("5 5 1 1 2 2 NaN NaN 3", rows=3, cols=3)))))
print(toString(t(rowIndexMin(matrix("5 5 1 1 2 1 NaN NaN NaN", rows=3, cols=3)))))
print(toString(t(rowIndexMax(matrix("0 0 0 0 -1 0 -2 -1 0", rows=3, cols=3)))))
S = matrix(0, rows=2, cols=200)
S[1, 5] = -1
print(toString(t(rowIndexMin(S))) + toString(t(rowIndexMax(S))))
print(toString(rowIndexMax(matrix("4 9 2", rows=1, cols=3))))
"#,
    );
    assert_close(
        &got,
        &[2., 3., 3., 3., 3., 1., 3., 3., 3., 5., 200., 200., 200., 2.],
        0.0,
    );
}

#[test]
fn unique_rev_triangles_outer_and_aggregate() {
    let got = run(
        "reorg_misc.dml",
        r#"print(toString(t(unique(matrix("0.7 0.1 0.35 0.7 100 -3 0.1", rows=7, cols=1)))))
print(toString(t(rev(matrix("5 1 4 2 3", rows=5, cols=1)))))
A = matrix("4 1 2 1 3 0 2 0 5", rows=3, cols=3)
print(toString(lower.tri(target=A, diag=TRUE, values=TRUE)))
print(toString(lower.tri(target=A, diag=FALSE, values=FALSE)))
print(toString(upper.tri(target=A, diag=FALSE, values=TRUE)))
print(toString(outer(matrix("1 2", rows=2, cols=1), matrix("1 2 3", rows=1, cols=3), "<")))
print(toString(outer(matrix("1 2 3 4", rows=2, cols=2), t(matrix("1 2 3 4", rows=2, cols=2)), "+")))
x = matrix("1 2 3 4 5", rows=5, cols=1)
g = matrix("1 2 1 2 3", rows=5, cols=1)
print(toString(t(aggregate(target=x, groups=g, fn="sum"))))
print(toString(t(aggregate(target=x, groups=g, fn="count"))))
print(toString(t(aggregate(target=x, groups=g, fn="mean", ngroups=4))))
print(toString(aggregate(target=matrix("1 2 3 4 5 6", rows=3, cols=2), groups=matrix("2 1 2", rows=3, cols=1), fn="max", ngroups=2)))
"#,
    );
    assert_close(
        &got,
        &[
            0.7, 0.35, 0.1, -3., 100., //
            3., 2., 4., 1., 5., //
            4., 0., 0., 1., 3., 0., 2., 0., 5., //
            0., 0., 0., 1., 0., 0., 1., 1., 0., //
            0., 1., 2., 0., 0., 0., 0., 0., 0., //
            0., 1., 1., 0., 0., 1., //
            2., 5., 5., 8., // outer of two 2 x 2 matrices: cell by cell
            4., 6., 5., 2., 2., 1., 2., 3., 5., 0., //
            3., 4., 5., 6.,
        ],
        0.0,
    );
    assert_fails("aggregate_fn.dml",
        "x = aggregate(target=matrix(1, rows=2, cols=1), groups=matrix(1, rows=2, cols=1), fn=\"median\")\nprint(sum(x))\n", &["fn must be one of"]);
}

/// The whole text SystemDS 3.4 printed for this script: fractional indices truncated,
/// `pmax`/`pmin`, `as.boolean`, `colProds`/`rowProds`, the bitwise operators (integers
/// give integers, doubles doubles), `avg`, `rowcumsum`, `roll` both ways and beyond the
/// row count, and `toString(..., sparse=TRUE)`.
#[test]
fn small_builtins_of_systemds_test_scripts_print_what_systemds_prints() {
    let script = r#"X = matrix(seq(1, 12), 4, 3)
print(toString(X[1:2.5,]))
print(toString(X[1.7,]))
print(toString(pmax(matrix(1,2,2), matrix("0 5 2 3",2,2))))
print(toString(pmin(matrix(1,2,2), matrix("0 5 2 3",2,2), 0.5)))
print(as.boolean(2))
print(as.boolean(0))
A = matrix("1 2 3 4 5 6", 3, 2)
print(toString(colProds(A)))
print(toString(rowProds(A)))
print(bitwAnd(12, 10) + " " + bitwOr(12, 10) + " " + bitwXor(12, 10) + " " + bitwShiftL(3, 2) + " " + bitwShiftR(16, 2))
print(toString(bitwAnd(matrix("12 7", 1, 2), matrix("10 3", 1, 2))))
print(avg(A))
print(toString(rowcumsum(A)))
print(toString(roll(A, 1)))
print(toString(roll(matrix(seq(1,6),6,1), 2)))
A = matrix("1 0 3 0 5 6", 3, 2)
print(toString(A, sparse=TRUE))
print("--")
print(toString(matrix(0, 2, 2), sparse=TRUE))
print("--")
print(toString(A, sparse=TRUE, decimal=1))
X = matrix(seq(1,6), 3, 2)
print(toString(roll(X, -1)))
print(toString(roll(X, 4)))
print(toString(bitwShiftL(matrix("1 2", 1, 2), 3)))
print(bitwAnd(5.7, 3))
print(toString(colProds(matrix("1 0 3 4", 2, 2))))
print(toString(rowcumsum(matrix("1 0 3 4 NaN 2", 2, 3))))
"#;
    let systemds = "1.000 2.000 3.000\n4.000 5.000 6.000\n\n1.000 2.000 3.000\n\n1.000 5.000\n2.000 3.000\n\n0.000 0.500\n0.500 0.500\n\nTRUE\nFALSE\n15.000 48.000\n\n2.000\n12.000\n30.000\n\n8 14 6 12 4\n8.000 3.000\n\n3.5\n1.000 3.000\n3.000 7.000\n5.000 11.000\n\n5.000 6.000\n1.000 2.000\n3.000 4.000\n\n5.000\n6.000\n1.000\n2.000\n3.000\n4.000\n\n1 1 1.000\n2 1 3.000\n3 1 5.000\n3 2 6.000\n\n--\n\n--\n1 1 1.0\n2 1 3.0\n3 1 5.0\n3 2 6.0\n\n3.000 4.000\n5.000 6.000\n1.000 2.000\n\n5.000 6.000\n1.000 2.000\n3.000 4.000\n\n8.000 16.000\n\n1.0\n3.000 0.000\n\n1.000 1.000 4.000\n4.000 NaN NaN\n\n";
    assert_eq!(run_dml("small_builtins.dml", script).unwrap(), systemds);
    // A dense result over the memory budget is refused before it is allocated.
    assert_fails(
        "bitw_big.dml",
        "X = rand(rows=1e6, cols=1e6, sparsity=1e-9, seed=1)\nprint(sum(bitwAnd(X, 1)))\n",
        &["bitwAnd: a dense 1000000x1000000 result", "memory budget"],
    );
    assert_fails(
        "bitw_shapes.dml",
        "print(toString(bitwOr(matrix(1, 2, 2), matrix(1, 2, 3))))\n",
        &["bitwOr", "2x2", "2x3"],
    );
}

/// The bitwise operators work on Java's 32-bit `int`, as SystemDS's do: doubles
/// saturate, integers keep their low 32 bits, shifts count modulo 32, a left shift onto
/// `int`'s minimum is NaN in a matrix (0 as an integer scalar), and a right shift of two
/// integer scalars is on 64 bits. The text is what SystemDS 3.4 printed
/// (`ElementwiseBitwShiftLTest.dml` needs the overflow).
#[test]
fn bitwise_operators_overflow_as_java_ints() {
    let script = r#"print(bitwShiftL(7, 30))
print(bitwShiftL(1, 31))
print(bitwShiftL(3, 33))
print(bitwShiftR(-16, 2))
print(bitwShiftR(4294967296, 1))
print(bitwAnd(4294967297, 3))
print(bitwAnd(-5.7, 7))
print(bitwShiftL(2.9999999999999999, 1))
print(toString(bitwShiftL(matrix("7 1 3", 1, 3), matrix("30 31 33", 1, 3))))
print(toString(bitwShiftR(matrix("-16 1e10", 1, 2), 2)))
print(toString(bitwAnd(matrix("-5.7 1e10", 1, 2), 7)))
"#;
    let systemds = "-1073741824\n0\n6\n-4\n2147483648\n1\n3.0\n6.0\n-1073741824.000 NaN 6.000\n\n-4.000 536870911.000\n\n3.000 7.000\n\n";
    assert_eq!(run_dml("bitwise_ints.dml", script).unwrap(), systemds);
}

/// `exists` as SystemDS's test scripts use it (`Exists1.dml`, `ListNamed.dml`): of a
/// variable assigned in a branch, by name or as a string, and of list entries; the text
/// is what SystemDS 3.4 printed. (SystemDS differs on two cases spores answers plainly:
/// `exists("Y")` after the last statement that reads `Y` is FALSE there, the variable
/// already freed; `exists(w)` of a scalar looks up the variable named by its value.)
#[test]
fn exists_tells_whether_a_variable_is_bound() {
    let script = r#"Y = matrix(1, 3, 3)
if( sum(Y) > 7 )
  X = matrix(1,10,10);
R = as.matrix(as.double(exists("X")));
if( exists(X) )
  print("X exists: "+sum(X));
print(toString(R))
L = list(a=matrix(1, 2, 2), c=3, f=6);
for( i in 1:length(L) ) {
  tmp = L[i];
  if( !exists(tmp) )
     print("ERROR: non-existing entry "+i );
}
print(exists(Z) + " " + exists("Z"))
Z = 1
print(exists(Z))
"#;
    let systemds_and_more = "X exists: 100.0\n1.000\n\nFALSE FALSE\nTRUE\n";
    assert_eq!(run_dml("exists.dml", script).unwrap(), systemds_and_more);
    assert_fails(
        "exists_args.dml",
        "print(exists(1 + 2))\n",
        &["argument of `exists`"],
    );
}

/// `rbind`/`cbind` of a list append the second argument as one element (SystemDS's
/// list append), and of two strings join their lines; the text is SystemDS 3.4's.
#[test]
fn binding_lists_and_strings_appends_as_systemds_does() {
    let script = r#"l1 = list(1, 2)
l2 = list(3)
print(length(rbind(l1, l2)) + " " + length(rbind(l2, l1)) + " " + length(cbind(l1, l1)))
print(toString(cbind(l2, l1)))
print(cbind("a", "b"))
"#;
    let systemds = "3 2 3\nList containing:\n[3, List containing:\n[1, 2]]\na\nb\n";
    assert_eq!(run_dml("bind_lists.dml", script).unwrap(), systemds);
}

/// Fewer targets than results take the first results, as SystemDS's `[a, b] = pca(...)`
/// does; more targets than results is an error naming both counts.
#[test]
fn a_multi_assignment_may_take_the_first_results() {
    let script = r#"f = function(Double x) return (Double a, Double b, Double c) {
  a = x + 1
  b = x + 2
  c = x + 3
}
[p, q] = f(1)
print(p + " " + q)
[Q, R] = qr(matrix("2 0 0 3", 2, 2))
[H] = qr(matrix("2 0 0 3", 2, 2))
print(nrow(H) + " " + ncol(R))
"#;
    assert_eq!(
        run_dml("first_results.dml", script).unwrap(),
        "2.0 3.0\n2 2\n"
    );
    assert_fails(
        "too_many.dml",
        "f = function(Double x) return (Double a) { a = x }\n[p, q] = f(1)\n",
        &["`f` returns 1 values but 2 are assigned"],
    );
}

/// `evalList` returns every result of the function it names, as a list: the text SystemDS
/// 3.4 printed for the same script.
#[test]
fn eval_list_returns_every_result() {
    let printed = run_dml(
        "eval_list.dml",
        r#"f = function(Matrix[Double] X, Double s) return (Matrix[Double] A, Double t) {
  A = X * s
  t = sum(X) + s
}
X = matrix("1 2 3 4", rows=2, cols=2)
L = evalList("f", list(X=X, s=2))
print(length(L))
print(toString(as.matrix(L[1])))
print(as.scalar(L[2]))
L2 = evalList("f", list(X, 3))
print(toString(as.matrix(L2[1])))
"#,
    )
    .unwrap();
    assert_eq!(
        printed,
        "2\n2.000 4.000\n6.000 8.000\n\n12.0\n3.000 6.000\n9.000 12.000\n\n"
    );
}

/// `rowClassMeet`: classes numbered as SystemDS's hash map orders them, one row of `B`
/// applied to every row of `A`, the padding, the capacity an earlier row grew the map to,
/// and a random case; the numbers SystemDS 3.4 printed for the same script.
#[test]
fn row_class_meet_numbers_classes_as_systemds() {
    let got = run(
        "rcm.dml",
        r#"[C, N] = rowClassMeet(matrix("1 2 1 0 1", rows=1, cols=5), matrix("1 1 2 1 1", rows=1, cols=5))
print(toString(C))
print(toString(N))
[C2, N2] = rowClassMeet(matrix("1 1 2 3 3 3", rows=2, cols=3), matrix("5 5", rows=1, cols=2))
print(toString(C2))
print(toString(N2))
a = matrix(0, rows=2, cols=13)
a[1,] = t(seq(1,13))
a[2,1] = 1
a[2,2] = 1
b = matrix(1, rows=2, cols=13)
b[2,1] = 17
[C3, N3] = rowClassMeet(a, b)
print(toString(C3[2,1:2]))
X = round(rand(rows=6, cols=40, min=0, max=7, seed=3))
Y = round(rand(rows=6, cols=40, min=0, max=9, seed=4))
[C4, N4] = rowClassMeet(X, Y)
print(sum(C4 * seq(1, 6)) + sum(C4 * t(seq(1,40))))
print(sum(N4 * N4))
"#,
    );
    assert_close(
        &got,
        &[
            2., 1., 3., 0., 2., // C
            2., 1., 1., 0., 2., // N
            1., 1., 0., 1., 1., 0., // C2
            2., 2., 0., 2., 2., 0., // N2
            2., 1., // the second row after the first grew the map to 32 buckets
            75355., 762.,
        ],
        0.0,
    );
    assert_fails(
        "rcm_rows.dml",
        "[C, N] = rowClassMeet(matrix(1, rows=3, cols=2), matrix(1, rows=2, cols=2))\nprint(sum(C))\n",
        &["2 rows", "3"],
    );
    let over = common::run_dml_with(
        "rcm_budget.dml",
        "X = matrix(1, rows=1000, cols=1000)\n[C, N] = rowClassMeet(X, X)\nprint(sum(N))\n",
        &["--memory", "10M"],
    )
    .expect_err("two 1000x1000 results do not fit 10 MB");
    assert!(
        over.contains("rowClassMeet") && over.contains("memory budget"),
        "{over}"
    );
}
