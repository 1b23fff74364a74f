"""The lazy API against NumPy/SciPy: every operator on random dense and sparse inputs of
shapes m x n, 1 x n, n x 1 and 1 x 1, optimized and not."""

import io
import operator

import numpy as np
import pytest
import scipy.sparse as sp

import spores
from conftest import SHAPES, as_dense, assert_close, dense, sparse

BINARY = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "/": operator.truediv,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
    "==": operator.eq,
    "!=": operator.ne,
}


def make(rng, kind, shape):
    if kind == "dense":
        return dense(rng, *shape)
    return sparse(rng, *shape)


def operand(rng, kind, shape):
    """A random input as a NumPy array (for the expected value) and as a lazy matrix."""
    a = make(rng, kind, shape)
    return as_dense(a), spores.matrix(a)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("op", list(BINARY))
@pytest.mark.parametrize("kinds", [("dense", "dense"), ("sparse", "dense"), ("sparse", "sparse")])
def test_binary_matrix_matrix(rng, shape, op, kinds):
    a, b = make(rng, kinds[0], shape), make(rng, kinds[1], shape)
    if op == "==":
        b = as_dense(b).copy()
        b[0, 0] = as_dense(a)[0, 0]  # at least one equal cell
    fn = BINARY[op]
    da, db = as_dense(a), as_dense(b)
    with np.errstate(divide="ignore", invalid="ignore"):
        expected = fn(da, db).astype(float)
    # Division is IEEE's, as NumPy's and SystemDS's: 0 / 0 is NaN.
    got = fn(spores.matrix(a), spores.matrix(b)).compute()
    assert_close(got, expected)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("op", list(BINARY))
@pytest.mark.parametrize("kind", ["dense", "sparse"])
def test_binary_matrix_scalar_both_sides(rng, shape, op, kind):
    a = make(rng, kind, shape)
    fn = BINARY[op]
    for s in (0.5, -1.25):
        assert_close(fn(spores.matrix(a), s).compute(), fn(as_dense(a), s).astype(float))
        assert_close(fn(s, spores.matrix(a)).compute(), fn(s, as_dense(a)).astype(float))


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("kind", ["dense", "sparse"])
def test_power(rng, shape, kind):
    d, x = operand(rng, kind, shape)
    assert_close((x**2).compute(), d**2)
    assert_close((x**3).compute(), d**3)
    assert_close((abs(x) ** 0.5).compute(), np.abs(d) ** 0.5)
    assert_close((2.0**x).compute(), 2.0**d)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("kind", ["dense", "sparse"])
def test_unary_functions(rng, shape, kind):
    d, x = operand(rng, kind, shape)
    assert_close(spores.exp(x).compute(), np.exp(d))
    assert_close(spores.abs(x).compute(), np.abs(d))
    assert_close(abs(x).compute(), np.abs(d))
    assert_close((-x).compute(), -d)
    assert_close(spores.sigmoid(x).compute(), 1.0 / (1.0 + np.exp(-d)))
    assert_close(spores.sign(x).compute(), np.sign(d))
    pos = abs(x) + 0.5
    assert_close(spores.log(pos).compute(), np.log(np.abs(d) + 0.5))
    assert_close(spores.sqrt(pos).compute(), np.sqrt(np.abs(d) + 0.5))


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("kinds", [("dense", "dense"), ("sparse", "dense"), ("sparse", "sparse")])
def test_minimum_maximum(rng, shape, kinds):
    a, b = make(rng, kinds[0], shape), make(rng, kinds[1], shape)
    x, y = spores.matrix(a), spores.matrix(b)
    da, db = as_dense(a), as_dense(b)
    assert_close(spores.minimum(x, y).compute(), np.minimum(da, db))
    assert_close(spores.maximum(x, y).compute(), np.maximum(da, db))
    assert_close(spores.maximum(x, 0.0).compute(), np.maximum(da, 0.0))
    assert_close(spores.minimum(0.25, x).compute(), np.minimum(0.25, da))


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("kind", ["dense", "sparse"])
def test_sums_and_aggregates(rng, shape, kind):
    d, x = operand(rng, kind, shape)
    total = x.sum().compute()
    assert isinstance(total, float)
    assert total == pytest.approx(d.sum(), rel=1e-12, abs=1e-12)
    assert_close(x.sum(axis=0).compute(), d.sum(axis=0, keepdims=True))
    assert_close(x.sum(axis=1).compute(), d.sum(axis=1, keepdims=True))
    assert x.mean().compute() == pytest.approx(d.mean(), rel=1e-12, abs=1e-12)
    assert x.min().compute() == pytest.approx(d.min())
    assert x.max().compute() == pytest.approx(d.max())


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("kind", ["dense", "sparse"])
def test_transpose(rng, shape, kind):
    a = make(rng, kind, shape)
    assert_close(spores.matrix(a).T.compute(), as_dense(a).T)
    assert spores.matrix(a).T.shape == (shape[1], shape[0])


MATMUL_SHAPES = [((7, 4), (4, 5)), ((1, 6), (6, 1)), ((6, 1), (1, 5)), ((1, 1), (1, 1)), ((5, 5), (5, 1))]


@pytest.mark.parametrize("shapes", MATMUL_SHAPES)
@pytest.mark.parametrize("kinds", [("dense", "dense"), ("sparse", "dense"), ("dense", "sparse"), ("sparse", "sparse")])
def test_matmul(rng, shapes, kinds):
    a, b = make(rng, kinds[0], shapes[0]), make(rng, kinds[1], shapes[1])
    got = (spores.matrix(a) @ spores.matrix(b)).compute()
    assert_close(got, as_dense(a) @ as_dense(b))
    # With NumPy operands on either side too.
    assert_close((spores.matrix(a) @ as_dense(b)).compute(), as_dense(a) @ as_dense(b))
    assert_close((as_dense(a) @ spores.matrix(b)).compute(), as_dense(a) @ as_dense(b))


@pytest.mark.parametrize("optimize", [True, False])
def test_factorization_loss_matches_numpy(rng, optimize):
    X = sparse(rng, 60, 40, density=0.05)
    U, V = dense(rng, 60, 4), dense(rng, 40, 4)
    loss = ((spores.matrix(X) - spores.matrix(U) @ spores.matrix(V).T) ** 2).sum()
    expected = ((X.toarray() - U @ V.T) ** 2).sum()
    assert loss.compute(optimize=optimize) == pytest.approx(expected, rel=1e-9)


def test_broadcast_row_and_column_vectors(rng):
    a = dense(rng, 6, 4)
    row, col = dense(rng, 1, 4), dense(rng, 6, 1)
    x = spores.matrix(a)
    assert_close((x - row).compute(), a - row)
    assert_close((x * col).compute(), a * col)
    assert_close((col + x).compute(), col + a)
    assert_close((x / x.sum(axis=0)).compute(), a / a.sum(axis=0, keepdims=True))


def test_scalar_results_combine_with_matrices(rng):
    a = dense(rng, 5, 3)
    x = spores.matrix(a)
    assert_close((x / x.sum()).compute(), a / a.sum())
    assert_close((x - x.mean()).compute(), a - a.mean())


def test_shared_subexpressions_and_multiple_results(rng):
    a, b = dense(rng, 8, 8), dense(rng, 8, 8)
    x, y = spores.matrix(a), spores.matrix(b)
    p = x @ y
    q = p + p.T
    first, second = spores.compute(q, (p * 2).sum())
    assert_close(first, a @ b + (a @ b).T)
    assert second == pytest.approx((a @ b * 2).sum(), rel=1e-12)
    # A node used twice is computed once: it gets a variable in the DML text.
    assert "T0 = " in q.dml()


def test_deep_chains_do_not_recurse(rng):
    a = dense(rng, 3, 3)
    x = spores.matrix(a)
    expr = x
    for _ in range(3000):
        expr = expr + 1.0
    assert_close(expr.compute(), a + 3000.0)


def test_tree_pass_writes_the_same_block_as_the_general_one(rng):
    """`compute()` writes a tree (only leaves shared) in one recursive pass; on every tree
    it must give the text and inputs of the general pass, and leave the rest to it (a
    shared inner node, an Inf constant, nesting at the variable threshold)."""
    from spores import _lazy

    arrays = [dense(rng, 3, 3) for _ in range(3)]
    pick = np.random.default_rng(7)

    def expr(depth):
        if depth == 0 or pick.random() < 0.2:
            leaf = spores.matrix(arrays[pick.integers(3)])
            return leaf * float("inf") if pick.random() < 0.05 else leaf
        a = expr(depth - 1)
        kind = pick.integers(6)
        if kind == 0:
            return a + expr(depth - 1)
        if kind == 1:
            return a @ expr(depth - 1)
        if kind == 2:
            return a.T
        if kind == 3:
            return spores.exp(-a)
        if kind == 4:
            return spores.maximum(a, 2.0) - (-1.5)
        return abs(a) ** 0.5

    trees = 0
    for _ in range(400):
        roots = [expr(int(pick.integers(1, 7))) for _ in range(int(pick.integers(1, 3)))]
        if pick.random() < 0.3:
            roots.append(roots[0] * 2.0)  # an inner node shared between roots
        text, inputs = _lazy._emit(roots)
        try:
            tree_text, tree_inputs = _lazy._emit_tree(roots)
        except _lazy._NotATree:
            continue
        trees += 1
        assert tree_text == text
        assert list(tree_inputs) == list(inputs)
        assert all(tree_inputs[k] is inputs[k] for k in inputs)
    assert trees > 100
    for depth in (62, 63, 64, 65):
        chain = spores.matrix(arrays[0])
        for _ in range(depth):
            chain = chain + 1.0
        assert _lazy._block([chain])[0] == _lazy._emit([chain])[0]


def test_sparse_results_are_scipy_csr_and_dense_are_numpy(rng):
    X = sparse(rng, 50, 40, density=0.02)
    out = (spores.matrix(X) * 3.0).compute()
    assert sp.issparse(out) and out.format == "csr"
    assert_close(out, X.toarray() * 3.0)
    dense_out = (spores.matrix(X) + 1.0).compute()
    assert isinstance(dense_out, np.ndarray)
    arr = sp.csr_array(X)
    out_array = (spores.matrix(arr) * 2.0).compute()
    assert isinstance(out_array, sp.csr_array)


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo"])
def test_sparse_formats_and_arrays(rng, fmt):
    X = sparse(rng, 9, 7, density=0.3, fmt=fmt)
    for value in (X, sp.csr_array(X) if fmt == "csr" else X):
        assert_close((spores.matrix(value) @ np.ones((7, 1))).compute(), X.toarray() @ np.ones((7, 1)))


def test_unsorted_and_duplicate_csr_entries(rng):
    # Column indices out of order and a duplicate (1, 2) entry that SciPy sums.
    indptr = np.array([0, 2, 5])
    indices = np.array([3, 0, 2, 2, 1])
    data = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    X = sp.csr_matrix((data, indices, indptr), shape=(2, 4))
    assert_close(spores.matrix(X).sum(axis=1).compute(), X.toarray().sum(axis=1, keepdims=True))
    assert_close((spores.matrix(X) * 1.0).compute(), X.toarray())


def test_non_contiguous_and_other_dtypes(rng):
    base = dense(rng, 8, 10)
    strided = base[:, ::2]
    fortran = np.asfortranarray(base)
    ints = rng.integers(-5, 5, size=(4, 3))
    bools = ints > 0
    f32 = base.astype(np.float32)
    assert_close((spores.matrix(strided) * 2).compute(), strided * 2)
    assert_close((spores.matrix(fortran) @ spores.matrix(base.T)).compute(), base @ base.T)
    assert_close((spores.matrix(ints) + 0.5).compute(), ints + 0.5)
    assert_close((spores.matrix(bools) * 2).compute(), bools * 2.0)
    assert_close((spores.matrix(f32) * 1).compute(), f32.astype(np.float64))
    vec = np.arange(4.0)
    assert spores.matrix(vec).shape == (4, 1)
    assert_close((spores.matrix(vec) * 2).compute(), (vec * 2).reshape(-1, 1))
    sparse_ints = sp.csr_matrix(ints)
    assert_close((spores.matrix(sparse_ints) * 1.5).compute(), ints * 1.5)


def test_contiguous_float64_inputs_are_read_in_place(rng):
    a = dense(rng, 4, 4)
    x = spores.matrix(a)
    a[0, 0] = 1000.0  # changes before compute() are seen: the array was not copied
    assert x.sum().compute() == pytest.approx(a.sum())
    # Results own their memory; the input is left as it was.
    before = a.copy()
    (x * 2).compute()
    np.testing.assert_array_equal(a, before)


@pytest.mark.parametrize("shape", [(0, 4), (3, 0)])
def test_empty_matrices(shape):
    a = np.zeros(shape)
    x = spores.matrix(a)
    assert_close((x * 2 + 1).compute(), a * 2 + 1)
    assert x.sum().compute() == 0.0


def test_infinite_and_nan_constants(rng):
    a = dense(rng, 3, 3)
    assert_close(spores.minimum(spores.matrix(a), np.inf).compute(), a)
    assert_close((spores.matrix(a) * np.nan).compute(), a * np.nan)


def test_shape_errors_are_raised_when_building():
    x = spores.matrix(np.ones((2, 3)))
    with pytest.raises(spores.ShapeError, match=r"shape mismatch in %\*%: left is 2x3, right is 2x3"):
        x @ x
    with pytest.raises(spores.ShapeError, match=r"shape mismatch in \+"):
        x + np.ones((3, 3))
    assert issubclass(spores.ShapeError, spores.SporesError)


def test_bad_inputs_raise_type_and_value_errors():
    with pytest.raises(TypeError):
        spores.matrix(np.array(["a", "b"]))
    with pytest.raises(ValueError):
        spores.matrix(np.ones((2, 2, 2)))
    with pytest.raises(TypeError):
        bool(spores.matrix(np.ones((1, 1))) > 0)


def test_optimized_equals_unoptimized(rng):
    X = sparse(rng, 40, 30, density=0.1)
    W = dense(rng, 30, 5)
    x, w = spores.matrix(X), spores.matrix(W)
    expr = spores.sigmoid(x @ w).T @ (x @ w) + (x.T @ x).sum()
    assert_close(expr.compute(optimize=True), expr.compute(optimize=False))


def test_explain_prints_the_plan_with_costs(rng, capsys):
    X = sparse(rng, 2000, 1000, density=0.01)
    U, V = dense(rng, 2000, 10), dense(rng, 1000, 10)
    loss = ((spores.matrix(X) - spores.matrix(U) @ spores.matrix(V).T) ** 2).sum()
    text = loss.explain()
    assert capsys.readouterr().out == text
    assert "wsloss(X0, X1, X2)" in text  # the fused weighted squared loss was chosen
    assert "cost" in text and " -> " in text
    assert "R0" in text


def test_numpy_interop(rng):
    a = dense(rng, 3, 3)
    x = spores.matrix(a)
    np.testing.assert_allclose(np.asarray(x + 1), a + 1)
    # ndarray on the left defers to the lazy matrix.
    out = a + x
    assert isinstance(out, spores.Matrix)
    assert_close(out.compute(), a + a)


def test_csr_values_and_int32_indices_are_read_in_place(rng):
    X = sparse(rng, 30, 20, density=0.2)
    assert X.indices.dtype == np.int32 and X.data.dtype == np.float64
    x = spores.matrix(X)
    X.data[0] += 1000.0  # seen by compute(): the values were not copied
    assert x.sum().compute() == pytest.approx(X.sum())


def test_int64_index_csr_inputs(rng):
    X = sparse(rng, 30, 20, density=0.2)
    wide = X.copy()
    # SciPy picks int32 when it can; big matrices (nnz >= 2**31) come with int64.
    wide.indices, wide.indptr = X.indices.astype(np.int64), X.indptr.astype(np.int64)
    assert wide.indices.dtype == np.int64
    assert_close((spores.matrix(wide) @ np.ones((20, 2))).compute(), X.toarray() @ np.ones((20, 2)))


def test_explain_as_graphviz(rng, capsys):
    X = sparse(rng, 2000, 1000, density=0.01)
    U, V = dense(rng, 2000, 10), dense(rng, 1000, 10)
    loss = ((spores.matrix(X) - spores.matrix(U) @ spores.matrix(V).T) ** 2).sum()
    dot = loss.explain(format="dot")
    assert capsys.readouterr().out == ""
    assert dot.startswith("digraph plan {") and dot.rstrip().endswith("}")
    assert "wsloss" in dot and " -> " in dot and "cost" in dot
    with pytest.raises(ValueError):
        loss.explain(format="svg")


def test_gram_vector_chain_matches_scipy(rng):
    """`X.T @ (X @ v)` runs in one pass over X; a wide v and NaN/Inf in v run the two
    products as written. Sparse and dense X, compared with SciPy/NumPy."""
    X = sparse(rng, 300, 40, density=0.1)
    for x in (X, X.toarray()):
        lazy = spores.matrix(x)
        for cols in (1, 3):
            v = dense(rng, 40, cols)
            assert_close((lazy.T @ (lazy @ v)).compute(), as_dense(x).T @ (as_dense(x) @ v))
    v = dense(rng, 40, 1)
    v[3, 0], v[7, 0] = np.inf, np.nan
    lazy = spores.matrix(X)
    assert_close((lazy.T @ (lazy @ v)).compute(), X.T @ (X @ v))


def test_changed_inputs_give_new_answers(rng):
    """Nothing about an input outlives a call: writing into the arrays a computed
    expression read (values, a NaN, column indices) changes the next answer."""
    X = sparse(rng, 200, 30, density=0.2)
    v = dense(rng, 30, 1)
    chain = lambda: (spores.matrix(X).T @ (spores.matrix(X) @ v)).compute()  # noqa: E731
    loss = lambda: ((spores.matrix(X) - 1.0) ** 2).sum().compute()  # noqa: E731
    for _ in range(2):
        assert_close(chain(), X.T @ (X @ v))
        assert_close(loss(), ((X.toarray() - 1.0) ** 2).sum())
        X.data *= 2.0
        v[0, 0] += 1.0
    X.data[0] = np.nan
    assert_close(chain(), X.T @ (X @ v))
    assert np.isnan(loss())
    row = int(np.flatnonzero(np.diff(X.indptr))[0])
    X.indices[X.indptr[row + 1] - 1] = X.shape[1]  # out of range
    with pytest.raises(Exception, match="CSR|index"):
        chain()


def test_fused_kernels_meet_non_finite_inputs_exactly(rng):
    """NumPy/SciPy inputs are not scanned for NaN/Inf before planning: `X.T @ (X @ v)`
    and `sum(X * (U @ V.T))` run fused without a guard (the kernels learn finiteness in
    their pass and compute as written when they meet a NaN or Inf), the algebraic rewrite
    of `sum((X - 1) ** 2)` behind one. A NaN or Inf gives SciPy's answer wherever it sits:
    in X, in a row of U or V that a stored entry reaches, or in one that none reaches
    (an empty row or column of X, where the cell semantics mask it)."""
    m = spores.matrix
    X = sparse(rng, 60, 25, density=0.2).tolil()
    X[:, 3] = 0  # an empty column: row 3 of V is never reached
    X[7, :] = 0  # an empty row: row 7 of U is never reached
    X = X.tocsr()
    X.eliminate_zeros()
    U, V, v = dense(rng, 60, 4), dense(rng, 25, 4), dense(rng, 25, 1)
    chain = lambda X, v: (m(X).T @ (m(X) @ v)).compute()  # noqa: E731
    sddmm = lambda X, U, V: (m(X) * (m(U) @ m(V).T)).sum().compute()  # noqa: E731
    want_sddmm = lambda X, U, V: X.multiply(U @ V.T).sum()  # noqa: E731

    plans = [(m(X).T @ (m(X) @ v)).explain(file=io.StringIO()),
             (m(X) * (m(U) @ m(V).T)).sum().explain(file=io.StringIO()),
             ((m(X) - 1.0) ** 2).sum().explain(file=io.StringIO())]
    assert "mmchain(" in plans[0] and "sddmm_sum(" in plans[1], plans
    assert ["guard[" in p for p in plans] == [False, False, True], plans

    for bad in (np.nan, np.inf):
        Xb = X.copy()
        Xb.data[len(Xb.data) // 2] = bad
        assert_close(chain(Xb, v), Xb.T @ (Xb @ v))
        assert_close(sddmm(Xb, U, V), want_sddmm(Xb, U, V))
        for row, kind in ((3, "unreached"), (int(X.indices[0]), "reached")):
            Vb = V.copy()
            Vb[row, 1] = bad
            got, want = sddmm(X, U, Vb), want_sddmm(X, U, Vb)
            assert np.isfinite(got) == (kind == "unreached"), (bad, kind, got)
            assert_close(got, want)
        Ub = U.copy()
        Ub[7, 0] = bad
        assert_close(sddmm(X, Ub, V), want_sddmm(X, Ub, V))
        assert np.isfinite(sddmm(X, Ub, V))
    # The same matrix again, finite once more: nothing learnt about it is kept.
    assert_close(sddmm(X, U, V), want_sddmm(X, U, V))
    assert_close(chain(X, v), X.T @ (X @ v))


def test_expressions_from_other_threads_and_thread_counts(rng):
    """Expressions computed on the calling thread, on another Python thread (handed to the
    engine thread) and after a change of the thread count agree."""
    import threading

    X = sparse(rng, 500, 60, density=0.1)
    v = dense(rng, 60, 1)
    want = X.T @ (X @ v)
    results = []

    def work():
        results.append((spores.matrix(X).T @ (spores.matrix(X) @ v)).compute())

    work()
    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    before = spores.get_threads()
    try:
        spores.set_threads(1)
        work()
    finally:
        spores.set_threads(before)
    work()
    assert len(results) == 4
    for r in results:
        assert_close(r, want)
