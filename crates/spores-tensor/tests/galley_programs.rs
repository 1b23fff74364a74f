//! Galley's own programs (kylebd99/Galley: `test/basic-tests.jl`, `test/finch-tests.jl`,
//! `Experiments/Scripts/`) transliterated into our notation, plus the constructs they use on
//! small hand-made inputs, against numbers computed independently with NumPy. Each group
//! quotes the NumPy script that produced its numbers; every program runs with the greedy,
//! exact and naive optimizers.

use std::collections::HashMap;

use spores_tensor::driver::{Optimizer, RunOptions};
use spores_tensor::parse::parse_program;
use spores_tensor::CooTensor;

/// A tensor of `dims` from row-major `values`, storing only the cells that differ from `fill`.
fn tensor(dims: &[usize], fill: f64, values: &[f64]) -> CooTensor {
    let dense = CooTensor::from_dense(dims.to_vec(), values).unwrap();
    let entries = dense
        .iter()
        .filter(|&(_, v)| !same(v, fill))
        .map(|(c, v)| (c.to_vec(), v))
        .collect();
    CooTensor::from_entries(dims.to_vec(), entries, fill).unwrap()
}

/// Equal, both NaN, or within a relative 1e-12.
fn same(a: f64, b: f64) -> bool {
    a == b || (a.is_nan() && b.is_nan()) || (a - b).abs() <= 1e-12 * a.abs().max(b.abs())
}

/// Runs `src` with every optimizer (with integer semantics for inputs declared `int`);
/// returns each output as row-major values, after checking that the three runs agree.
fn run_every_way(src: &str, inputs: &[(&str, CooTensor)]) -> HashMap<String, Vec<f64>> {
    let parsed =
        parse_program(src).unwrap_or_else(|e| panic!("{src}\n{}", e.render("program", src)));
    let inputs: HashMap<String, CooTensor> = inputs
        .iter()
        .map(|(n, t)| (n.to_string(), t.clone()))
        .collect();
    let mut first: Option<HashMap<String, Vec<f64>>> = None;
    for optimizer in [Optimizer::Greedy, Optimizer::Exact, Optimizer::Naive] {
        let options = RunOptions {
            optimizer,
            ..Default::default()
        };
        parsed.check_integer_inputs(&inputs).unwrap();
        let (out, _) = spores_tensor::run(&parsed.to_run(), &inputs, &options)
            .unwrap_or_else(|e| panic!("{src} ({optimizer:?}): {e}"));
        parsed.check_integer_outputs(&out).unwrap();
        let dense: HashMap<String, Vec<f64>> =
            out.into_iter().map(|(n, t)| (n, t.to_dense())).collect();
        match &first {
            None => first = Some(dense),
            Some(want) => {
                for (name, w) in want {
                    assert_values(&dense[name], w, &format!("{src}: {name} ({optimizer:?})"));
                }
            }
        }
    }
    first.expect("three runs")
}

/// Runs `src` once with the default options: its outputs, or the error's text.
fn run_once(
    src: &str,
    inputs: Vec<(&str, CooTensor)>,
) -> Result<HashMap<String, CooTensor>, String> {
    let parsed = parse_program(src).unwrap();
    let inputs: HashMap<String, CooTensor> = inputs
        .into_iter()
        .map(|(n, t)| (n.to_string(), t))
        .collect();
    spores_tensor::run(&parsed.program, &inputs, &RunOptions::default())
        .map(|(out, _)| out)
        .map_err(|e| e.to_string())
}

fn assert_values(got: &[f64], want: &[f64], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: {got:?} vs {want:?}");
    for (g, w) in got.iter().zip(want) {
        assert!(same(*g, *w), "{what}: got {got:?}, want {want:?}");
    }
}

fn check(src: &str, inputs: &[(&str, CooTensor)], want: &[(&str, &[f64])]) {
    let out = run_every_way(src, inputs);
    for (name, values) in want {
        assert_values(&out[*name], values, &format!("{src}: {name}"));
    }
}

const NAN: f64 = f64::NAN;
const INF: f64 = f64::INFINITY;

// Numbers of the cellwise tests, from NumPy 2.4:
//
// ```python
// import numpy as np
// X = np.array([[-3.5, 0, 2.25], [0, 7, -0.5]])
// Y = np.array([[2, 0, -1.5], [3, 0, 0.75]])
// with np.errstate(all="ignore"):
//     for name, v in [
//         ("floor", np.floor(X)), ("ceil", np.ceil(X)), ("trunc", np.trunc(X)),
//         ("rem2", np.fmod(X, 2)), ("mod2", np.mod(X, 2)), ("fld2", np.floor_divide(X, 2)),
//         ("remY", np.fmod(X, Y)), ("modY", np.mod(X, Y)), ("fldY", np.floor_divide(X, Y)),
//         ("mod_neg", np.mod(X, -1.5)),
//         ("where", np.where(X > 0, X, Y)),
//         ("negatives", np.where(X < 0, 1.0, 0.0).sum(axis=1)),
//     ]:
//         print(name, repr(v.ravel().tolist()))
// ```
const X: [f64; 6] = [-3.5, 0.0, 2.25, 0.0, 7.0, -0.5];
const Y: [f64; 6] = [2.0, 0.0, -1.5, 3.0, 0.0, 0.75];

fn xy() -> Vec<(&'static str, CooTensor)> {
    vec![
        ("X", tensor(&[2, 3], 0.0, &X)),
        ("Y", tensor(&[2, 3], 0.0, &Y)),
    ]
}

#[test]
fn floor_ceil_and_trunc_round_each_cell() {
    check(
        "F[i,j] = floor(X[i,j])\nC[i,j] = ceil(X[i,j])\nT[i,j] = trunc(X[i,j])",
        &xy(),
        &[
            ("F", &[-4.0, 0.0, 2.0, 0.0, 7.0, -1.0]),
            ("C", &[-3.0, 0.0, 3.0, 0.0, 7.0, -0.0]),
            ("T", &[-3.0, 0.0, 2.0, 0.0, 7.0, -0.0]),
        ],
    );
}

#[test]
fn rem_mod_and_fld_follow_julia_and_numpy() {
    check(
        "R[i,j] = rem(X[i,j], 2)\nP[i,j] = X[i,j] % 2\nM[i,j] = mod(X[i,j], 2)\nD[i,j] = fld(X[i,j], 2)\nN[i,j] = mod(X[i,j], -1.5)",
        &xy(),
        &[
            ("R", &[-1.5, 0.0, 0.25, 0.0, 1.0, -0.5]),
            ("P", &[-1.5, 0.0, 0.25, 0.0, 1.0, -0.5]),
            ("M", &[0.5, 0.0, 0.25, 0.0, 1.0, 1.5]),
            ("D", &[-2.0, 0.0, 1.0, 0.0, 3.0, -1.0]),
            ("N", &[-0.5, -0.0, -0.75, -0.0, -0.5, -0.5]),
        ],
    );
}

#[test]
fn rem_mod_and_fld_by_a_sparse_divisor_give_nan_and_inf_where_it_is_zero() {
    check(
        "R[i,j] = X[i,j] % Y[i,j]\nM[i,j] = mod(X[i,j], Y[i,j])\nD[i,j] = fld(X[i,j], Y[i,j])",
        &xy(),
        &[
            ("R", &[-1.5, NAN, 0.75, 0.0, NAN, -0.5]),
            ("M", &[0.5, NAN, -0.75, 0.0, NAN, 0.25]),
            ("D", &[-2.0, NAN, -2.0, 0.0, INF, -1.0]),
        ],
    );
}

#[test]
fn ifelse_chooses_per_cell_and_a_constant_branch_keeps_sums_sparse() {
    check(
        "W[i,j] = ifelse(X[i,j] > 0, X[i,j], Y[i,j])\nn[i] = sum[j](ifelse(X[i,j] < 0, 1, 0))",
        &xy(),
        &[("W", &[2.0, 0.0, 2.25, 3.0, 7.0, 0.75]), ("n", &[1.0, 1.0])],
    );
}

#[test]
fn ifelse_with_a_constant_branch_at_the_conditions_fill_stores_only_where_the_condition_does() {
    let out = run_once("W[i,j] = ifelse(X[i,j] < 0, X[i,j] * 2, 0)", xy()).unwrap();
    assert_eq!(out["W"].to_dense(), vec![-7.0, 0.0, 0.0, 0.0, 0.0, -1.0]);
    assert_eq!((out["W"].fill(), out["W"].nnz()), (0.0, 2));
}

// Numbers of the division tests, from NumPy 2.4:
//
// ```python
// import numpy as np
// A = np.array([1.0, 0, 0, -4, 0])
// B = np.array([2.0, 0, 3, 0, 0])
// arr = np.array([[1.0, 2, 1, 2], [2, 1, 2, 1]])
// arr2 = arr + 2
// with np.errstate(all="ignore"):
//     print("q", (A / B).tolist())
//     print("s", (A / B).sum())
//     print("t", (A / (B + 1)).sum())
//     print("div474", (arr / arr2).ravel().tolist())
//     print("fld474", np.floor_divide(arr, arr2).ravel().tolist())
//     print("rem474", np.fmod(arr, arr2).ravel().tolist())
// ```
fn ab() -> Vec<(&'static str, CooTensor)> {
    vec![
        ("A", tensor(&[5], 0.0, &[1.0, 0.0, 0.0, -4.0, 0.0])),
        ("B", tensor(&[5], 0.0, &[2.0, 0.0, 3.0, 0.0, 0.0])),
    ]
}

/// The issue's example: Galley gives NaN where both operands are at their fill 0.
#[test]
fn division_is_ieee_so_zero_over_zero_is_nan_where_both_fills_meet() {
    check(
        "q[i] = A[i] / B[i]\ns = sum[i](A[i] / B[i])\nt = sum[i](A[i] / (B[i] + 1))",
        &ab(),
        &[
            ("q", &[0.5, NAN, 0.0, -INF, NAN]),
            ("s", &[NAN]),
            ("t", &[-3.6666666666666665]),
        ],
    );
}

#[test]
fn a_quotient_whose_fills_give_nan_has_fill_nan_and_stores_the_other_cells() {
    let out = run_once("q[i] = A[i] / B[i]", ab()).unwrap();
    assert!(out["q"].fill().is_nan());
    assert_eq!(out["q"].nnz(), 3, "{:?}", out["q"]);
    // A divisor whose fill is not 0: the quotient keeps fill 0 and the dividend's cells.
    let out = run_once(
        "r[i,j] = M[i,j] / (d[i] + 1)",
        vec![
            ("M", tensor(&[2, 3], 0.0, &[0.0, 3.0, 0.0, -6.0, 0.0, 0.0])),
            ("d", tensor(&[2], 0.0, &[1.0, 2.0])),
        ],
    )
    .unwrap();
    assert_eq!(out["r"].to_dense(), vec![0.0, 1.5, 0.0, -2.0, 0.0, 0.0]);
    assert_eq!((out["r"].fill(), out["r"].nnz()), (0.0, 2));
}

/// finch-tests.jl, Finch issue 474: `broadcast(/, tns, tns2)`, `fld_nothrow`, `rem_nothrow`
/// on integer matrices (read here as floats).
#[test]
fn finch_issue_474_division_fld_and_rem_of_two_dense_matrices() {
    let arr = [1.0, 2.0, 1.0, 2.0, 2.0, 1.0, 2.0, 1.0];
    let arr2: Vec<f64> = arr.iter().map(|x| x + 2.0).collect();
    check(
        "d[i,j] = tns[i,j] / tns2[i,j]\nf[i,j] = fld(tns[i,j], tns2[i,j])\nr[i,j] = rem(tns[i,j], tns2[i,j])",
        &[
            ("tns", tensor(&[2, 4], 0.0, &arr)),
            ("tns2", tensor(&[2, 4], 0.0, &arr2)),
        ],
        &[
            (
                "d",
                &[
                    0.3333333333333333,
                    0.5,
                    0.3333333333333333,
                    0.5,
                    0.5,
                    0.3333333333333333,
                    0.5,
                    0.3333333333333333,
                ],
            ),
            ("f", &[0.0; 8]),
            ("r", &[1.0, 2.0, 1.0, 2.0, 2.0, 1.0, 2.0, 1.0]),
        ],
    );
}

// Numbers of basic-tests.jl's other programs on small matrices, from NumPy 2.4:
//
// ```python
// import numpy as np
// a = np.array([[1.0, 0, 2], [0, 0, 3], [4, 5, 0]])
// b = np.array([[3.0, 1, 0], [6, 0, 0], [0, 2, 7]])
// c = np.array([[1.0, 0, 0], [0, 0, 1], [2, 3, 0]])
// d = a @ b
// for name, v in [
//     ("mult", a * b), ("add", a + b), ("custom", np.minimum(a, b)),
//     ("reverse_input", a * b.T), ("reverse_output", (a * b).T), ("matmul", a @ b),
//     ("full_sum", a.sum()), ("multi_line", d @ c), ("reuse", d @ d),
//     ("plus_then_sum", (a + b).sum()),
//     ("plus_on_j_then_sum", (a[:, :, None] + b[None, :, :]).sum()),
// ]:
//     print(name, np.ravel(v).tolist())
// ```

/// The rest of basic-tests.jl's "matrix operations" (Galley's `Query(:out, Materialize(..))`
/// programs), each as one query of ours.
#[test]
fn galley_basic_tests_give_numpys_numbers() {
    let m = |v: [f64; 9]| tensor(&[3, 3], 0.0, &v);
    let inputs = vec![
        ("a", m([1.0, 0.0, 2.0, 0.0, 0.0, 3.0, 4.0, 5.0, 0.0])),
        ("b", m([3.0, 1.0, 0.0, 6.0, 0.0, 0.0, 0.0, 2.0, 7.0])),
        ("c", m([1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 2.0, 3.0, 0.0])),
    ];
    let cases: [(&str, &[f64]); 11] = [
        (
            "out[i,j] = a[i,j] * b[i,j]",
            &[3.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 10.0, 0.0],
        ),
        (
            "out[i,j] = a[i,j] + b[i,j]",
            &[4.0, 1.0, 2.0, 6.0, 0.0, 3.0, 4.0, 7.0, 7.0],
        ),
        (
            "fn f(x, y) = min(x, y)\nout[i,j] = f(a[i,j], b[i,j])",
            &[1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0],
        ),
        (
            "out[i,j] = a[i,j] * b[j,i]",
            &[3.0, 0.0, 0.0, 0.0, 0.0, 6.0, 0.0, 0.0, 0.0],
        ),
        (
            "out[j,i] = a[i,j] * b[i,j]",
            &[3.0, 0.0, 0.0, 0.0, 0.0, 10.0, 0.0, 0.0, 0.0],
        ),
        (
            "out[i,k] = sum[j](a[i,j] * b[j,k])",
            &[3.0, 5.0, 14.0, 0.0, 6.0, 21.0, 42.0, 4.0, 0.0],
        ),
        ("out = sum[i,j](a[i,j])", &[15.0]),
        (
            "out[i,l] = sum[k](sum[j](a[i,j] * b[j,k]) * c[k,l])",
            &[31.0, 42.0, 5.0, 42.0, 63.0, 6.0, 42.0, 0.0, 4.0],
        ),
        (
            "d[i,k] = sum[j](a[i,j] * b[j,k])\nout[i,l] = sum[k](d[i,k] * d[k,l])\noutput out",
            &[
                597.0, 101.0, 147.0, 882.0, 120.0, 126.0, 126.0, 234.0, 672.0,
            ],
        ),
        ("out = sum[i,j](a[i,j] + b[i,j])", &[34.0]),
        ("out = sum[i,j,k](a[i,j] + b[j,k])", &[102.0]),
    ];
    for (src, want) in cases {
        check(src, &inputs, &[("out", want)]);
    }
}

// Numbers of the repeated-index tests, from NumPy 2.4:
//
// ```python
// import numpy as np
// a = np.array([[1.0, 0, 2, 0], [0, 0, 0, 3], [4, 0, 5, 0], [0, 6, 0, 0]])
// b = np.array([[3.0, 1, 0, 0], [2, 7, 0, 0], [0, 0, 2, 1], [0, 3, 0, 4]])
// T = np.arange(12.0).reshape(2, 3, 2) * (np.arange(12) % 3 != 1).reshape(2, 3, 2)
// M = np.array([[1.0, 0], [0, 2], [3, 0]])
// print("out", (np.diagonal(a) * np.diagonal(b)).tolist())
// print("sum", float((np.diagonal(a) * np.diagonal(b)).sum()))
// print("U", np.einsum("iji->ij", T).ravel().tolist())
// print("v", float(np.einsum("iji,ji->", T, M)))
// print("tr", float(np.trace(a @ b)))
// print("d", (np.diagonal(a) + 1).tolist())
// print("T", T.ravel().tolist())
// ```
fn diagonal_inputs() -> Vec<(&'static str, CooTensor)> {
    let a = [
        1.0, 0.0, 2.0, 0.0, 0.0, 0.0, 0.0, 3.0, 4.0, 0.0, 5.0, 0.0, 0.0, 6.0, 0.0, 0.0,
    ];
    let b = [
        3.0, 1.0, 0.0, 0.0, 2.0, 7.0, 0.0, 0.0, 0.0, 0.0, 2.0, 1.0, 0.0, 3.0, 0.0, 4.0,
    ];
    let t = [0.0, 0.0, 2.0, 3.0, 0.0, 5.0, 6.0, 0.0, 8.0, 9.0, 0.0, 11.0];
    vec![
        ("a", tensor(&[4, 4], 0.0, &a)),
        ("b", tensor(&[4, 4], 0.0, &b)),
        ("T", tensor(&[2, 3, 2], 0.0, &t)),
        ("M", tensor(&[3, 2], 0.0, &[1.0, 0.0, 0.0, 2.0, 3.0, 0.0])),
    ]
}

/// basic-tests.jl, "100x100 matrices, diagonal mult" and "diagonal mult, then sum":
/// `MapJoin(*, Input(a, :i, :i), Input(b, :i, :i))`, then aggregated by `+` over `i`.
#[test]
fn galley_diagonal_mult_and_its_sum() {
    check(
        "out[i] = a[i,i] * b[i,i]\ns = sum[i](a[i,i] * b[i,i])",
        &diagonal_inputs(),
        &[("out", &[3.0, 0.0, 10.0, 0.0]), ("s", &[13.0])],
    );
}

#[test]
fn repeated_indices_read_generalized_diagonals_of_inputs_and_of_queries() {
    check(
        "U[i,j] = T[i,j,i]\nv = sum[i,j](T[i,j,i] * M[j,i])\nP[i,k] = sum[j](a[i,j] * b[j,k])\ntr = sum[i](P[i,i])\nd[i] = a[i,i] + 1\noutput U, v, tr, d",
        &diagonal_inputs(),
        &[
            ("U", &[0.0, 2.0, 0.0, 0.0, 9.0, 11.0]),
            ("v", &[18.0]),
            ("tr", &[22.0]),
            ("d", &[2.0, 1.0, 6.0, 1.0]),
        ],
    );
}

#[test]
fn repeated_indices_agree_with_the_reference_on_random_programs() {
    use spores_tensor::reference::eval_program;
    let programs = [
        "y[j] = sum[i](E[i,i] * E[i,j] * E[j,j])",
        "P[i,k] = sum[j](E[i,j] * E[j,k])\nq[i] = P[i,i] * E[i,i]\nz = max[i,j](P[i,j] + P[j,j])\noutput q, z",
        "w[i] = sum[j](C[i,j,i] * E[j,i])",
        "B[p,q] = E[p,q] + sum[p](E[p,q] * E[q,p])\nt = sum[i](B[i,i])\noutput t",
    ];
    for seed in 0..20u64 {
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let n = 1 + (next() % 5) as usize;
        let mut cells = |count: usize| -> Vec<f64> {
            (0..count)
                .map(|_| match next() % 4 {
                    0 | 1 => 0.0,
                    k => (k as f64) - 2.5 + (next() % 3) as f64,
                })
                .collect()
        };
        let fill = if seed % 3 == 0 { 1.0 } else { 0.0 };
        let e = tensor(&[n, n], fill, &cells(n * n));
        let c = tensor(&[n, n, n], 0.0, &cells(n * n * n));
        let inputs: HashMap<String, CooTensor> = [("E".to_string(), e), ("C".to_string(), c)]
            .into_iter()
            .collect();
        for src in programs {
            let parsed = parse_program(src).unwrap();
            let want = eval_program(&parsed.program, &inputs).unwrap();
            let named: Vec<(&str, CooTensor)> = inputs
                .iter()
                .map(|(k, v)| (k.as_str(), v.clone()))
                .collect();
            let got = run_every_way(src, &named);
            for (name, w) in &want {
                assert_values(
                    &got[name],
                    &w.to_dense(),
                    &format!("{src} seed {seed}: {name}"),
                );
            }
        }
    }
}

#[test]
fn a_repeated_index_over_modes_of_different_sizes_is_an_error_naming_them() {
    let err = run_once(
        "d[i] = A[i,i]",
        vec![("A", tensor(&[2, 3], 0.0, &[1.0; 6]))],
    )
    .unwrap_err();
    assert!(
        err.contains("A[i, i]") && err.contains("sizes 2 and 3"),
        "{err}"
    );
}

// Numbers of the user-aggregate tests, from NumPy 2.4:
//
// ```python
// import numpy as np
// a = np.array([[1.0, 0, 2], [0, 3, 0]])
// b = np.array([[0.0, 1], [2, 0], [1, 1]])
// A = np.array([[0.5, 2, 0.5, 0.5], [-1, 0.5, 0.5, 3]])  # fill 0.5
// c = np.array([2.0, -3])
// print("matmul", (a @ b).ravel().tolist())
// # g(x, y) = x + y + x*y: (1 + x)(1 + y) - 1, identity 0
// g = lambda v, axis: np.prod(1 + v, axis=axis) - 1
// print("r", g(A, 1).tolist())
// print("rc", g(A * c[:, None], 1).tolist())
// print("maxplus", np.max(a[:, :, None] + b[None, :, :], axis=1).ravel().tolist())
// print("y", (a @ b).sum(axis=1).tolist())
// ```
fn aggregate_inputs() -> Vec<(&'static str, CooTensor)> {
    vec![
        ("a", tensor(&[2, 3], 0.0, &[1.0, 0.0, 2.0, 0.0, 3.0, 0.0])),
        ("b", tensor(&[3, 2], 0.0, &[0.0, 1.0, 2.0, 0.0, 1.0, 1.0])),
        (
            "A",
            tensor(&[2, 4], 0.5, &[0.5, 2.0, 0.5, 0.5, -1.0, 0.5, 0.5, 3.0]),
        ),
        ("c", tensor(&[2], 0.0, &[2.0, -3.0])),
    ]
}

/// basic-tests.jl, "100x100 matrices, matrix mult, custom add": `f(args...) = +(0, args...)`
/// as the aggregate of `Aggregate(f, 0, :j, MapJoin(*, a, b))`.
#[test]
fn galley_matrix_mult_with_a_custom_add_aggregate() {
    check(
        "fn f(x, y) = x + y [associative, commutative, identity=0]\nout[i,k] = f[j](a[i,j] * b[j,k])",
        &aggregate_inputs(),
        &[("out", &[2.0, 3.0, 6.0, 0.0])],
    );
}

#[test]
fn a_user_aggregate_combines_skipped_fill_cells_by_repeated_doubling() {
    // (1 + x)(1 + y) - 1 is associative and commutative with identity 0, not idempotent:
    // the fill 0.5 cells of A enter as "n copies of 0.5".
    check(
        "fn g(x, y) = x + y + x*y [associative, commutative, identity=0]\nr[i] = g[j](A[i,j])",
        &aggregate_inputs(),
        &[("r", &[9.125, -1.0])],
    );
}

#[test]
fn a_user_aggregate_is_not_pushed_through_a_product_it_is_not_declared_to_distribute_over() {
    // g(c x_1, c x_2, ..) is not c g(x_1, x_2, ..): the product must be formed first.
    check(
        "fn g(x, y) = x + y + x*y [associative, commutative, identity=0]\nr[i] = g[j](A[i,j] * c[i])",
        &aggregate_inputs(),
        &[("r", &[39.0, -9.0])],
    );
}

/// finch-tests.jl, einsum test 6 (`R[i, j] <<max>>= P[i, k] + Q[k, j]`, a max-plus product),
/// with max declared by the user; and a declared distributivity the optimizer may use.
#[test]
fn declared_aggregates_and_distributivity_give_numpys_numbers() {
    check(
        "fn mx(x, y) = max(x, y) [associative, commutative, idempotent, identity=-inf]\n\
         R[i,k] = mx[j](a[i,j] + b[j,k])",
        &aggregate_inputs(),
        &[("R", &[3.0, 3.0, 5.0, 3.0])],
    );
    check(
        "fn plus(x, y) = x + y [associative, commutative, identity=0]\n\
         fn times(x, y) = x * y [associative, commutative, identity=1, annihilator=0, distributes=plus]\n\
         y[i] = plus[j,k](times(a[i,j], b[j,k]))",
        &aggregate_inputs(),
        &[("y", &[5.0, 6.0])],
    );
}

#[test]
fn a_function_that_cannot_aggregate_is_an_error_at_its_use() {
    for (src, want) in [
        (
            "fn f(x, y) = x - y [identity=0]\nr[i] = f[j](A[i,j])",
            "2:8: error: `f` is not an aggregate: declare a function of two arguments with [associative, commutative, identity=V]",
        ),
        (
            "r[i] = h[j](A[i,j])",
            "1:8: error: `h` is not an aggregate: the aggregates are sum, prod, max, min, any",
        ),
    ] {
        let err = parse_program(src).unwrap_err().render("p.tp", src);
        assert!(err.contains(want), "{err}");
    }
}

// Numbers of Finch's einsum tests and of one Bellman-Ford step, from NumPy 2.4:
//
// ```python
// import numpy as np
// inf = np.inf
// A = np.array([[1.0, 2], [3, 4]]); B = np.array([[5.0, 6], [7, 8]])
// print("s", float(np.abs(np.einsum("ik,kj->ikj", A, B)).sum()))
// K = np.array([[1.0, 0, 2], [0, 3, 0], [4, 0, 0]])
// L = np.array([[0.0, 1, 0], [2, 0, 0], [0, 0, 5]])
// M = np.array([[1.0, 0, 0], [0, 0, 2], [0, 1, 0]])
// print("N", (np.einsum("ik,kj->ij", K, L) - 3 * M).ravel().tolist())
// P = np.array([[0.0, -inf, 2], [-inf, 1, -inf], [3, -inf, -inf]])
// Q = np.array([[1.0, -inf, -inf], [-inf, -inf, 4], [0, 2, -inf]])
// print("R", np.max(P[:, :, None] + Q[None, :, :], axis=1).ravel().tolist())
// n = 4
// edges = np.full((n, n), inf)
// for (i, j, w) in [(1, 0, 2.0), (2, 1, 1.0), (3, 0, 5.0), (3, 2, 1.0), (0, 3, 3.0)]:
//     edges[i, j] = w
// dists_prev = np.full((n, 2), inf); dists_prev[0, 0] = 0; dists_prev[2, 1] = 0
// active_prev = np.full((n, 2), inf); active_prev[0, 0] = 1; active_prev[2, 1] = 1
// cand = np.maximum(active_prev[None, :, :], dists_prev[None, :, :] + edges[:, :, None])
// dists2 = np.minimum(dists_prev, cand.min(axis=1))
// flag = np.where(dists2 < dists_prev, 1.0, inf)
// active2 = np.maximum(np.maximum(active_prev[None, :, :], edges[:, :, None]),
//                      flag[:, None, :]).min(axis=1)
// print("dists2", dists2.ravel().tolist())
// print("active2", active2.ravel().tolist())
// ```

/// finch-tests.jl, "Einsum Tests" 0, 5 and 6: `s[] += abs(A[i, k] * B[k, j])`,
/// `N[i, j] += K[i, k] * L[k, j] - M[i, j]`, and the max-plus product over fills of -Inf.
#[test]
fn finch_einsum_tests_give_numpys_numbers() {
    check(
        "s = sum[i,k,j](abs(A[i,k] * B[k,j]))",
        &[
            ("A", tensor(&[2, 2], 0.0, &[1.0, 2.0, 3.0, 4.0])),
            ("B", tensor(&[2, 2], 0.0, &[5.0, 6.0, 7.0, 8.0])),
        ],
        &[("s", &[134.0])],
    );
    check(
        "N[i,j] = sum[k](K[i,k] * L[k,j] - M[i,j])",
        &[
            (
                "K",
                tensor(&[3, 3], 0.0, &[1.0, 0.0, 2.0, 0.0, 3.0, 0.0, 4.0, 0.0, 0.0]),
            ),
            (
                "L",
                tensor(&[3, 3], 0.0, &[0.0, 1.0, 0.0, 2.0, 0.0, 0.0, 0.0, 0.0, 5.0]),
            ),
            (
                "M",
                tensor(&[3, 3], 0.0, &[1.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 1.0, 0.0]),
            ),
        ],
        &[("N", &[-3.0, 1.0, 10.0, 6.0, 0.0, -6.0, 0.0, 1.0, 0.0])],
    );
    check(
        "R[i,j] = max[k](P[i,k] + Q[k,j])",
        &[
            (
                "P",
                tensor(
                    &[3, 3],
                    -INF,
                    &[0.0, -INF, 2.0, -INF, 1.0, -INF, 3.0, -INF, -INF],
                ),
            ),
            (
                "Q",
                tensor(
                    &[3, 3],
                    -INF,
                    &[1.0, -INF, -INF, -INF, -INF, 4.0, 0.0, 2.0, -INF],
                ),
            ),
        ],
        &[("R", &[2.0, 4.0, -INF, -INF, -INF, 5.0, 4.0, -INF, -INF])],
    );
}

/// Experiments/Scripts/bellman_ford_example.jl: one step of Galley's multi-source
/// Bellman-Ford (`g_dists2`, `g_active2`), with `ifelse(.., 1, Inf)` and fills of Inf.
#[test]
fn galley_bellman_ford_step_with_ifelse() {
    let mut edges = [INF; 16];
    for (i, j, w) in [
        (1, 0, 2.0),
        (2, 1, 1.0),
        (3, 0, 5.0),
        (3, 2, 1.0),
        (0, 3, 3.0),
    ] {
        edges[i * 4 + j] = w;
    }
    let mut dists = [INF; 8];
    dists[0] = 0.0;
    dists[2 * 2 + 1] = 0.0;
    let mut active = [INF; 8];
    active[0] = 1.0;
    active[2 * 2 + 1] = 1.0;
    check(
        "dists2[i,k] = min(dists_prev[i,k], min[j](max(active_prev[j,k], dists_prev[j,k] + edges[i,j])))\n\
         active2[i,k] = min[j](max(active_prev[j,k], edges[i,j], ifelse(dists2[i,k] < dists_prev[i,k], 1, inf)))",
        &[
            ("edges", tensor(&[4, 4], INF, &edges)),
            ("dists_prev", tensor(&[4, 2], INF, &dists)),
            ("active_prev", tensor(&[4, 2], INF, &active)),
        ],
        &[
            ("dists2", &[0.0, INF, 2.0, INF, INF, 0.0, 5.0, 1.0]),
            ("active2", &[INF, INF, 2.0, INF, INF, INF, 5.0, 1.0]),
        ],
    );
}

// Numbers of the integer tests, from NumPy 2.4 on int64 arrays:
//
// ```python
// import numpy as np
// X = np.array([[7, 0, -7], [3, -4, 0]])
// Y = np.array([[2, 0, 3], [0, -3, 5]])
// with np.errstate(all="ignore"):
//     print("fld", np.floor_divide(X, Y).ravel().tolist(), np.floor_divide(X, Y).dtype)
//     print("mod", np.mod(X, Y).ravel().tolist())
//     print("rem", np.fmod(X, Y).ravel().tolist())
//     print("div", (X / Y).ravel().tolist(), (X / Y).dtype)
//     print("s", (X * Y).sum(axis=1).tolist())
// ```
#[test]
fn integer_inputs_divide_by_zero_as_numpys_int64_does() {
    let x = tensor(&[2, 3], 0.0, &[7.0, 0.0, -7.0, 3.0, -4.0, 0.0]);
    let y = tensor(&[2, 3], 0.0, &[2.0, 0.0, 3.0, 0.0, -3.0, 5.0]);
    check(
        "input X int\ninput Y int\nF[i,j] = fld(X[i,j], Y[i,j])\nM[i,j] = mod(X[i,j], Y[i,j])\n\
         R[i,j] = X[i,j] % Y[i,j]\nD[i,j] = X[i,j] / Y[i,j]\ns[i] = sum[j](X[i,j] * Y[i,j])",
        &[("X", x), ("Y", y)],
        &[
            ("F", &[3.0, 0.0, -3.0, 0.0, 1.0, 0.0]),
            ("M", &[1.0, 0.0, 2.0, 0.0, -1.0, 0.0]),
            ("R", &[1.0, 0.0, -1.0, 0.0, -1.0, 0.0]),
            (
                "D",
                &[3.5, NAN, -2.3333333333333335, INF, 1.3333333333333333, 0.0],
            ),
            ("s", &[-7.0, 12.0]),
        ],
    );
}

#[test]
fn integer_inputs_and_results_must_be_exact_integers() {
    let parsed = parse_program("input A int\np = prod[i](A[i])\nh[i] = A[i] / 2").unwrap();
    let inputs = |values: &[f64]| -> HashMap<String, CooTensor> {
        [("A".to_string(), tensor(&[values.len()], 0.0, values))]
            .into_iter()
            .collect()
    };
    let err = parsed
        .check_integer_inputs(&inputs(&[1.0, 0.5]))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("input A is declared `int` but holds 0.5 at [1]"),
        "{err}"
    );
    let big = inputs(&[4e9, 4e9, 3.0]);
    parsed.check_integer_inputs(&big).unwrap();
    let (out, _) = spores_tensor::run(&parsed.to_run(), &big, &RunOptions::default()).unwrap();
    // `h` is a float result (`/`); `p` = 4.8e19 is past 2^53.
    let err = parsed.check_integer_outputs(&out).unwrap_err().to_string();
    assert!(
        err.starts_with("p is a result of integers but holds 48000000000000000000"),
        "{err}"
    );
}
