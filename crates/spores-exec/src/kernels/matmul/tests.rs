//! Products checked against a naive triple loop on dense copies, for every kernel, every
//! format and transpose combination, degenerate shapes, and sizes above the parallel
//! thresholds.

use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

use super::*;
use crate::kernels::transpose::{transpose, transpose_dense};

const RTOL: f64 = 1e-10;

/// Uniform in [0, 1).
fn unit(rng: &mut Pcg64Mcg) -> f64 {
    (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// A `rows × cols` matrix whose cells are non-zero (uniform in [-1, 1)) with probability
/// `density`; every third row is forced empty when `empty_rows` is set.
fn random_dense(
    rows: usize,
    cols: usize,
    density: f64,
    seed: u64,
    empty_rows: bool,
) -> DenseMatrix {
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    DenseMatrix::from_fn(rows, cols, |i, _| {
        let keep = unit(&mut rng) < density;
        let v = 2.0 * unit(&mut rng) - 1.0;
        if keep && !(empty_rows && i % 3 == 1) {
            v
        } else {
            0.0
        }
    })
}

/// CSR copy of `d` that also stores an explicit zero in the first empty cell of every
/// row that has one (kernels must treat those as zeros).
fn csr_with_explicit_zeros(d: &DenseMatrix) -> CsrMatrix {
    let mut indptr = vec![0];
    let mut indices = Vec::new();
    let mut values = Vec::new();
    for i in 0..d.rows() {
        let mut placed_zero = false;
        for (j, &v) in d.row(i).iter().enumerate() {
            if v != 0.0 || (!placed_zero && i % 2 == 0) {
                placed_zero |= v == 0.0;
                indices.push(j as u32);
                values.push(v);
            }
        }
        indptr.push(indices.len());
    }
    CsrMatrix::new(d.rows(), d.cols(), indptr, indices, values).unwrap()
}

fn as_format(d: &DenseMatrix, sparse: bool) -> Matrix {
    if sparse {
        Matrix::Sparse(csr_with_explicit_zeros(d))
    } else {
        Matrix::Dense(d.clone())
    }
}

/// The reference: a plain triple loop.
fn naive(a: &DenseMatrix, b: &DenseMatrix) -> DenseMatrix {
    assert_eq!(a.cols(), b.rows());
    DenseMatrix::from_fn(a.rows(), b.cols(), |i, j| {
        (0..a.cols()).map(|p| a.get(i, p) * b.get(p, j)).sum()
    })
}

fn naive_t(d: &DenseMatrix) -> DenseMatrix {
    DenseMatrix::from_fn(d.cols(), d.rows(), |i, j| d.get(j, i))
}

/// Checks `kernel`'s product `got` of `a` and `b` against the naive one, naming the
/// kernel and the extents on failure.
fn assert_product(got: DenseMatrix, a: &DenseMatrix, b: &DenseMatrix, kernel: &str) {
    let (m, k, n) = (a.rows(), a.cols(), b.cols());
    assert_close(
        &Matrix::Dense(got),
        &naive(a, b),
        &format!("{kernel} {m}x{k}x{n}"),
    );
}

fn assert_close(got: &Matrix, want: &DenseMatrix, what: &str) {
    let want = Matrix::Dense(want.clone());
    assert_eq!(got.shape(), want.shape(), "{what}: shape");
    if !got.approx_eq(&want, RTOL) {
        let (g, w) = (got.to_dense(), want.to_dense());
        let bad = g
            .data()
            .iter()
            .zip(w.data())
            .position(|(x, y)| !crate::matrix::approx_eq_f64(*x, *y, RTOL))
            .unwrap();
        panic!(
            "{what}: cell {} differs: got {} want {}",
            bad,
            g.data()[bad],
            w.data()[bad]
        );
    }
}

/// Calls `check(a', ta, b', tb, layout)` for `a %*% b` in every layout: each operand
/// dense or sparse, and stored as it is or transposed (`ta`, `tb`: read it transposed).
fn every_layout(
    a: &DenseMatrix,
    b: &DenseMatrix,
    mut check: impl FnMut(&Matrix, bool, &Matrix, bool, String),
) {
    let (at, bt) = (naive_t(a), naive_t(b));
    for sa in [false, true] {
        for sb in [false, true] {
            for ta in [false, true] {
                for tb in [false, true] {
                    let am = as_format(if ta { &at } else { a }, sa);
                    let bm = as_format(if tb { &bt } else { b }, sb);
                    check(
                        &am,
                        ta,
                        &bm,
                        tb,
                        format!("sparse=({sa},{sb}) t=({ta},{tb})"),
                    );
                }
            }
        }
    }
}

/// Checks `matmul_t` for all formats and transpose flags on one logical problem
/// `(m × k) %*% (k × n)`.
fn check_all_combinations(m: usize, k: usize, n: usize, density: f64, seed: u64) {
    let a = random_dense(m, k, density, seed, true);
    let b = random_dense(k, n, density, seed + 1, false);
    let want = naive(&a, &b);
    every_layout(&a, &b, |am, ta, bm, tb, layout| {
        let what = format!("{m}x{k}x{n} d={density} {layout}");
        let got = matmul_t(am, ta, bm, tb).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_close(&got, &want, &what);
        if !(am.is_sparse() && bm.is_sparse()) && m > 0 && n > 0 && k > 0 {
            assert!(!got.is_sparse(), "{what}: dense result expected");
        }
        if !ta && !tb {
            let plain = matmul(am, bm).unwrap();
            assert_close(&plain, &want, &format!("matmul {what}"));
        }
    });
}

#[test]
fn all_combinations_small_and_degenerate_shapes() {
    let shapes = [
        (1, 1, 1),
        (1, 6, 1),
        (6, 1, 6),
        (1, 7, 9),
        (9, 7, 1),
        (4, 6, 5),
        (17, 9, 13),
        (0, 3, 4),
        (3, 0, 4),
        (3, 4, 0),
        (0, 0, 0),
        (2, 1, 0),
    ];
    for (s, &(m, k, n)) in shapes.iter().enumerate() {
        for (d, &density) in [0.0, 0.2, 1.0].iter().enumerate() {
            check_all_combinations(m, k, n, density, (s * 10 + d) as u64);
        }
    }
}

#[test]
fn all_combinations_above_parallel_thresholds() {
    // Large enough for the parallel GEMM panels, parallel SpMM/SpMV, the scatter and
    // transpose paths of t(S) %*% D, and both paths of S %*% t(D).
    check_all_combinations(160, 120, 140, 0.3, 101);
    check_all_combinations(150, 900, 1, 0.1, 102);
    check_all_combinations(1, 2000, 500, 0.1, 103);
    check_all_combinations(400, 300, 3, 0.05, 104);
}

#[test]
fn inner_dimension_zero_is_all_zero_in_best_format() {
    let a = Matrix::Dense(DenseMatrix::zeros(30, 0));
    let b = Matrix::Dense(DenseMatrix::zeros(0, 20));
    let c = matmul(&a, &b).unwrap();
    assert_eq!(c.shape(), Shape::new(30, 20));
    assert_eq!(c.nnz(), 0);
    assert!(c.is_sparse());
    let v = matmul(
        &Matrix::Dense(DenseMatrix::zeros(5, 0)),
        &Matrix::Dense(DenseMatrix::zeros(0, 1)),
    )
    .unwrap();
    assert_eq!(v.shape(), Shape::new(5, 1));
    assert!(!v.is_sparse());
    assert_eq!(
        gemm(&DenseMatrix::zeros(3, 0), &DenseMatrix::zeros(0, 2)).unwrap(),
        DenseMatrix::zeros(3, 2)
    );
    let s = spgemm(&CsrMatrix::zeros(4, 0), &CsrMatrix::zeros(0, 6)).unwrap();
    assert_eq!((s.shape(), s.nnz()), (Shape::new(4, 6), 0));
}

#[test]
fn shape_mismatches_are_errors() {
    let a = Matrix::Dense(DenseMatrix::zeros(2, 3));
    let b = Matrix::Sparse(CsrMatrix::zeros(4, 2));
    match matmul(&a, &b) {
        Err(ExecError::ShapeMismatch { op, left, right }) => {
            assert_eq!(op, "%*%");
            assert_eq!(left, Shape::new(2, 3));
            assert_eq!(right, Shape::new(4, 2));
        }
        other => panic!("expected a shape mismatch, got {other:?}"),
    }
    // t(A) is 3x2, B is 4x2: mismatch, named as written.
    match matmul_t(&a, true, &b, false) {
        Err(ExecError::ShapeMismatch { op, .. }) => assert_eq!(op, "t(A) %*% B"),
        other => panic!("expected a shape mismatch, got {other:?}"),
    }
    // A %*% t(B) with B 4x2: t(B) is 2x4, A is 2x3: mismatch.
    assert!(matches!(
        matmul_t(&a, false, &b, true),
        Err(ExecError::ShapeMismatch { .. })
    ));
    // t(A) %*% t(B): 3x2 times 2x4 fits.
    assert_eq!(
        matmul_t(&a, true, &b, true).unwrap().shape(),
        Shape::new(3, 4)
    );
    let d23 = DenseMatrix::zeros(2, 3);
    let s42 = CsrMatrix::zeros(4, 2);
    assert!(gemm(&d23, &d23).is_err());
    assert!(spmm(&s42, &DenseMatrix::zeros(3, 3)).is_err());
    assert!(spmm(&s42, &DenseMatrix::zeros(2, 3)).is_ok());
    assert!(dense_sparse(&d23, &s42).is_err());
    assert!(spgemm(&s42, &s42).is_err());
    assert!(matmul(
        &Matrix::Dense(DenseMatrix::zeros(0, 3)),
        &Matrix::Dense(DenseMatrix::zeros(2, 0))
    )
    .is_err());
}

#[test]
fn gemm_matches_naive_on_parallel_panel_shapes() {
    // Row panels (m >= n) and column panels (m < n), with edges not multiple of 8, and
    // depths and column counts past one block of `gemm_block` (384 deep, 144 wide).
    for (m, k, n, seed) in [
        (203, 150, 97, 1),
        (3, 700, 1001, 2),
        (260, 260, 260, 3),
        (300, 800, 290, 4),
        (150, 385, 145, 5),
    ] {
        let a = random_dense(m, k, 1.0, seed, false);
        let b = random_dense(k, n, 1.0, seed + 7, false);
        assert_product(gemm(&a, &b).unwrap(), &a, &b, "gemm");
    }
}

#[test]
fn gemv_paths_match_naive() {
    // A v, t(A) v with short and long outputs (the three GEMV strategies) and v' A.
    for (m, k, seed) in [(3000, 40, 11), (40, 3000, 12), (5000, 30, 13), (7, 5, 14)] {
        let a = Matrix::Dense(random_dense(m, k, 1.0, seed, false));
        let vk = Matrix::Dense(random_dense(k, 1, 1.0, seed + 1, false));
        let vm = Matrix::Dense(random_dense(m, 1, 1.0, seed + 2, false));
        let ad = a.to_dense();
        assert_close(
            &matmul(&a, &vk).unwrap(),
            &naive(&ad, &vk.to_dense()),
            "A v",
        );
        assert_close(
            &matmul_t(&a, true, &vm, false).unwrap(),
            &naive(&naive_t(&ad), &vm.to_dense()),
            "t(A) v",
        );
        assert_close(
            &matmul_t(&vm, true, &a, false).unwrap(),
            &naive(&naive_t(&vm.to_dense()), &ad),
            "t(v) A",
        );
    }
}

#[test]
fn long_dot_products() {
    // t(u) %*% v and u' written as a transposed column, above the parallel threshold.
    let u = random_dense(200_000, 1, 1.0, 15, false);
    let v = random_dense(200_000, 1, 1.0, 16, false);
    let want: f64 = u.data().iter().zip(v.data()).map(|(a, b)| a * b).sum();
    let (um, vm) = (Matrix::Dense(u.clone()), Matrix::Dense(v));
    let got = matmul_t(&um, true, &vm, false).unwrap();
    assert_eq!(got.shape(), Shape::new(1, 1));
    assert!(crate::matrix::approx_eq_f64(got.get(0, 0), want, RTOL));
    let ut = Matrix::Dense(naive_t(&u));
    let got = matmul(&ut, &vm).unwrap();
    assert!(crate::matrix::approx_eq_f64(got.get(0, 0), want, RTOL));
}

#[test]
fn spmm_and_spmv_match_naive() {
    for (m, k, n, density, seed) in [
        (2000, 1000, 1, 0.05, 21),
        (2000, 1000, 10, 0.02, 22),
        (50, 40, 3, 0.1, 23),
        (5, 5, 1, 0.0, 24),
    ] {
        let a = random_dense(m, k, density, seed, true);
        let b = random_dense(k, n, 1.0, seed + 1, false);
        let got = spmm(&csr_with_explicit_zeros(&a), &b).unwrap();
        assert_product(got, &a, &b, "spmm");
    }
}

#[test]
fn dense_sparse_matches_naive() {
    for (m, k, n, density, seed) in [
        (300, 200, 150, 0.05, 31),
        (1, 50, 60, 0.3, 32),
        (1, 3000, 400, 0.1, 34),
        (40, 1, 30, 1.0, 33),
    ] {
        let a = random_dense(m, k, 0.7, seed, false);
        let b = random_dense(k, n, density, seed + 1, true);
        let got = dense_sparse(&a, &csr_with_explicit_zeros(&b)).unwrap();
        assert_product(got, &a, &b, "dense_sparse");
    }
}

#[test]
fn spgemm_matches_naive_and_picks_format() {
    // Very sparse: result stays sparse.
    let a = random_dense(500, 400, 0.005, 41, true);
    let b = random_dense(400, 300, 0.005, 42, false);
    let got = spgemm(&CsrMatrix::from_dense(&a), &CsrMatrix::from_dense(&b)).unwrap();
    assert!(got.is_sparse());
    assert_close(&got, &naive(&a, &b), "spgemm sparse");
    // Denser inputs: the dense-accumulation path and a dense result.
    let a = random_dense(200, 150, 0.2, 43, false);
    let b = random_dense(150, 180, 0.2, 44, false);
    let got = spgemm(&csr_with_explicit_zeros(&a), &csr_with_explicit_zeros(&b)).unwrap();
    assert!(!got.is_sparse());
    assert_close(&got, &naive(&a, &b), "spgemm dense");
    // Middle ground: the parallel sparse path with the scan-ordered row output.
    let a = random_dense(600, 300, 0.01, 45, true);
    let b = random_dense(300, 64, 0.05, 46, false);
    let got = spgemm(&CsrMatrix::from_dense(&a), &CsrMatrix::from_dense(&b)).unwrap();
    assert_close(&got, &naive(&a, &b), "spgemm middle");
    // Exact cancellation leaves no stored zero behind.
    let a = CsrMatrix::from_triplets(1, 2, &[(0, 0, 1.0), (0, 1, -1.0)]).unwrap();
    let b = CsrMatrix::from_triplets(2, 3, &[(0, 0, 2.0), (1, 0, 2.0), (1, 2, 1.0)]).unwrap();
    match spgemm(&a, &b).unwrap() {
        Matrix::Sparse(s) => {
            assert_eq!(s.stored(), 1);
            assert_eq!(s.get(0, 2), -1.0);
        }
        Matrix::Dense(d) => panic!("1x3 with one non-zero should be sparse: {d:?}"),
    }
}

#[test]
fn tsmm_matches_naive_dense_and_sparse() {
    for (m, n, density, seed) in [
        (0, 4, 1.0, 50),
        (4, 0, 1.0, 51),
        (1, 1, 1.0, 52),
        (100_000, 1, 1.0, 53),
        (1, 9, 1.0, 54),
        (5000, 40, 1.0, 55),
        (200, 300, 1.0, 56),
        (3000, 200, 0.02, 57),
        (30, 20, 0.3, 58),
    ] {
        let x = random_dense(m, n, density, seed, true);
        let want = naive(&naive_t(&x), &x);
        for sparse in [false, true] {
            let xm = as_format(&x, sparse);
            let got = tsmm(&xm).unwrap();
            assert_close(
                &Matrix::Dense(got.clone()),
                &want,
                &format!("tsmm {m}x{n} sparse={sparse}"),
            );
            // Exactly symmetric: both triangles come from the same computation.
            for i in 0..n {
                for j in 0..i {
                    assert_eq!(got.get(i, j), got.get(j, i));
                }
            }
            // matmul_t recognises t(X) %*% X on the same object.
            let via = matmul_t(&xm, true, &xm, false).unwrap();
            assert_close(&via, &want, "t(X) %*% X via matmul_t");
        }
    }
}

#[test]
fn transposed_products_agree_with_materialized_transposes() {
    // Cross-check against our own transpose, for the big-D path of S %*% t(D).
    let s = Matrix::Sparse(CsrMatrix::from_dense(&random_dense(
        300, 1000, 0.02, 61, true,
    )));
    let d = Matrix::Dense(random_dense(200, 1000, 1.0, 62, false));
    let via_t = matmul(&s, &transpose(&d)).unwrap();
    let direct = matmul_t(&s, false, &d, true).unwrap();
    assert!(direct.approx_eq(&via_t, RTOL));
    assert_eq!(
        transpose_dense(&d.to_dense()).shape(),
        Shape::new(1000, 200)
    );
}

fn arb_problem() -> impl Strategy<Value = (usize, usize, usize, f64, f64, u64, [bool; 4])> {
    (
        0usize..12,
        0usize..12,
        0usize..12,
        prop_oneof![Just(0.0), 0.0f64..1.0, Just(1.0)],
        prop_oneof![Just(0.0), 0.0f64..1.0, Just(1.0)],
        any::<u64>(),
        any::<[bool; 4]>(),
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn matmul_t_matches_naive((m, k, n, da, db, seed, [sa, sb, ta, tb]) in arb_problem()) {
        let a = random_dense(m, k, da, seed, false);
        let b = random_dense(k, n, db, seed ^ 0x5555, false);
        let want = naive(&a, &b);
        let am = as_format(&if ta { naive_t(&a) } else { a.clone() }, sa);
        let bm = as_format(&if tb { naive_t(&b) } else { b.clone() }, sb);
        let got = matmul_t(&am, ta, &bm, tb).unwrap();
        prop_assert_eq!(got.shape(), Shape::new(m, n));
        prop_assert!(got.approx_eq(&Matrix::Dense(want), RTOL));
    }

    #[test]
    fn tsmm_matches_naive_prop(m in 0usize..15, n in 0usize..15, d in 0.0f64..1.0, seed: u64, sparse: bool) {
        let x = random_dense(m, n, d, seed, false);
        let want = naive(&naive_t(&x), &x);
        let got = tsmm(&as_format(&x, sparse)).unwrap();
        prop_assert!(Matrix::Dense(got).approx_eq(&Matrix::Dense(want), RTOL));
    }
}

/// The reference under the cell semantics: only pairs of non-zero cells contribute, so
/// `0 * Inf` and `0 * NaN` are 0.
fn naive_cells(a: &DenseMatrix, b: &DenseMatrix) -> DenseMatrix {
    DenseMatrix::from_fn(a.rows(), b.cols(), |i, j| {
        (0..a.cols())
            .filter(|&p| a.get(i, p) != 0.0 && b.get(p, j) != 0.0)
            .map(|p| a.get(i, p) * b.get(p, j))
            .sum()
    })
}

/// `random_dense` with NaN, +Inf and -Inf planted in some cells (every third row stays
/// empty when `empty_rows` is set).
fn random_non_finite(rows: usize, cols: usize, seed: u64, empty_rows: bool) -> DenseMatrix {
    let mut d = random_dense(rows, cols, 0.5, seed, empty_rows);
    let mut rng = Pcg64Mcg::seed_from_u64(seed ^ 0x5eed);
    let specials = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY];
    for _ in 0..(rows * cols / 6).max(1) {
        let below = |rng: &mut Pcg64Mcg, n: usize| (rng.next_u64() % n as u64) as usize;
        let (i, j) = (below(&mut rng, rows), below(&mut rng, cols));
        if !(empty_rows && i % 3 == 1) {
            d.set(i, j, specials[below(&mut rng, 3)]);
        }
    }
    d
}

fn same_cell(x: f64, y: f64) -> bool {
    (x.is_nan() && y.is_nan()) || x == y || (x - y).abs() <= RTOL * x.abs().max(y.abs())
}

/// NaN and Inf give the same product in every format and transpose combination (and in
/// `tsmm`): the one the cell semantics define, never a NaN from a zero times an Inf.
#[test]
fn non_finite_cells_give_the_same_product_in_every_format() {
    for (m, k, n, seed) in [
        (1, 2, 1, 1),
        (4, 6, 5, 2),
        (9, 7, 13, 3),
        (17, 9, 1, 4),
        (1, 9, 6, 5),
    ] {
        let a = random_non_finite(m, k, seed, true);
        let b = random_non_finite(k, n, seed + 100, false);
        let want = naive_cells(&a, &b);
        let at = naive_t(&a);
        every_layout(&a, &b, |am, ta, bm, tb, layout| {
            let got = matmul_t(am, ta, bm, tb).unwrap().to_dense();
            let what = format!("{m}x{k}x{n} {layout}");
            for (g, w) in got.data().iter().zip(want.data()) {
                assert!(same_cell(*g, *w), "{what}: got {got:?} want {want:?}");
            }
        });
        for sparse in [false, true] {
            let x = as_format(&a, sparse);
            let got = tsmm(&x).unwrap();
            let want = naive_cells(&at, &a);
            for (g, w) in got.data().iter().zip(want.data()) {
                assert!(
                    same_cell(*g, *w),
                    "tsmm sparse={sparse}: {got:?} vs {want:?}"
                );
            }
        }
    }
    // The finiteness flag follows writes through `set`.
    let mut d = DenseMatrix::filled(2, 2, 1.0);
    assert!(d.all_finite());
    d.set(0, 0, f64::NAN);
    assert!(!d.all_finite());
}

/// `t(X) %*% X` of a sparse `X` whose Gram matrix is bound to be sparse comes out sparse
/// (one entry in a 10^6-column `X` is one cell, not a dense 8 TB result); a denser `X`
/// still gets the dense `tsmm`; both equal the naive product.
#[test]
fn gram_of_a_sparse_matrix_is_sparse_when_its_bound_says_so() {
    let one = CsrMatrix::from_triplets(1_000_000, 1_000_000, &[(0, 0, 5.0)]).unwrap();
    let x = Matrix::Sparse(one);
    let g = matmul_t(&x, true, &x, false).unwrap();
    assert!(g.is_sparse());
    assert_eq!((g.rows(), g.cols(), g.nnz()), (1_000_000, 1_000_000, 1));
    assert_eq!(g.get(0, 0), 25.0);
    for (density, sparse) in [(0.02, true), (0.5, false)] {
        let d = random_dense(60, 40, density, 7, false);
        let x = as_format(&d, true);
        let g = matmul_t(&x, true, &x, false).unwrap();
        assert_eq!(g.is_sparse(), sparse, "density {density}");
        assert_close(&g, &naive(&naive_t(&d), &d), "gram");
    }
}
