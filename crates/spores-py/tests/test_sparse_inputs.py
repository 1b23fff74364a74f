"""Sparse inputs on every call: the one-pass validation of CSR arrays (same errors as the
per-line check it replaced, on inputs small enough for one thread and large enough to be
split), and the kernels whose row blocks do not depend on the thread count (`X.T @ (X @ v)`
as mmchain, `sum(X * (U @ V.T))` split by its rank), against SciPy on the shapes the suite
sweeps."""

import numpy as np
import pytest
import scipy.sparse as sp

import spores
from spores import _native

from conftest import assert_close, dense, sparse

# Small enough for the single-threaded pass, large enough for the split one (>= 2^16 entries).
SIZES = [(50, 12, 0.3), (4000, 60, 0.4)]


def csr_parts(X, indptr=None, indices=None, data=None, index_dtype=np.int32):
    """The tuple the native module takes for a CSR input, with arrays replaced at will."""
    return (
        "csr",
        X.shape[0],
        X.shape[1],
        (X.indptr if indptr is None else indptr).astype(index_dtype),
        (X.indices if indices is None else indices).astype(index_dtype),
        X.data if data is None else data,
    )


def first_bad_line(indptr, indices, cols):
    """What the per-line check says about the first bad line."""
    for k in range(len(indptr) - 1):
        start, end = indptr[k], indptr[k + 1]
        if start > end or end > len(indices):
            return f"pointer array decreases at {k}"
        line = indices[start:end]
        if np.any(line[1:] <= line[:-1]):
            return f"indices of line {k} are not strictly increasing"
        if np.any(line >= cols):
            return f"index out of range {cols} in line {k}"
    return None


def run_sum(parts):
    values, _ = _native.run_script("R0 = sum(X0)\n", {"X0": parts}, None, ["R0"])
    return values["R0"]


def second_entry_row(X, at_least=0):
    """A row at or after `at_least` with at least two stored entries."""
    counts = np.diff(X.indptr)
    return int(np.flatnonzero((counts >= 2) & (np.arange(len(counts)) >= at_least))[0])


@pytest.mark.parametrize("rows,cols,density", SIZES)
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_invalid_csr_arrays_name_the_first_bad_line(rng, rows, cols, density, index_dtype):
    X = sparse(rng, rows, cols, density=density)
    assert run_sum(csr_parts(X, index_dtype=index_dtype)) == pytest.approx(X.sum(), rel=1e-12)
    row = second_entry_row(X, rows // 2)
    start = X.indptr[row]

    swapped = X.indices.copy()
    swapped[start], swapped[start + 1] = swapped[start + 1], swapped[start]
    with pytest.raises(TypeError, match=f"invalid CSR input: indices of line {row} are not strictly increasing"):
        run_sum(csr_parts(X, indices=swapped, index_dtype=index_dtype))

    repeated = X.indices.copy()
    repeated[start + 1] = repeated[start]
    with pytest.raises(TypeError, match=f"indices of line {row} are not strictly increasing"):
        run_sum(csr_parts(X, indices=repeated, index_dtype=index_dtype))

    out_of_range = X.indices.copy()
    out_of_range[X.indptr[row + 1] - 1] = cols
    with pytest.raises(TypeError, match=f"invalid CSR input: index out of range {cols} in line {row}"):
        run_sum(csr_parts(X, indices=out_of_range, index_dtype=index_dtype))

    decreasing = X.indptr.copy()
    decreasing[row + 1] = decreasing[row + 2] + 1
    with pytest.raises(TypeError, match=f"invalid CSR input: {first_bad_line(decreasing, X.indices, cols)}$"):
        run_sum(csr_parts(X, indptr=decreasing, index_dtype=index_dtype))

    negative_pointer = X.indptr.copy()
    negative_pointer[row] = -1
    with pytest.raises(TypeError, match="invalid CSR input: negative row pointer"):
        run_sum(csr_parts(X, indptr=negative_pointer, index_dtype=index_dtype))

    # int32 indices are read in place as unsigned (a negative one is out of range);
    # int64 ones are converted, and the conversion names it.
    negative_index = X.indices.copy()
    negative_index[X.indptr[row + 1] - 1] = -5
    with pytest.raises(TypeError, match="invalid CSR input: (column )?index out of range"):
        run_sum(csr_parts(X, indices=negative_index, index_dtype=index_dtype))

    short = X.indptr[:-1]
    with pytest.raises(TypeError, match=f"pointer array must have {rows + 1} entries"):
        run_sum(csr_parts(X, indptr=short, index_dtype=index_dtype))


@pytest.mark.parametrize("rows,cols,density", [(50, 12, 0.3), (4000, 60, 0.1)])
@pytest.mark.parametrize("k", [1, 3])
def test_bad_indices_found_by_mmchain_in_its_pass(rng, rows, cols, density, k):
    """`t(X) %*% (X %*% v)` on a sparse X runs as mmchain (chosen by price under the full
    search, as lazy expressions run; a script's budget does not pay for a search on
    inputs this small), which checks the indices of a CSR input read in place as its
    pass reads them (no separate validating pass): a bad one raises the same TypeError
    as anywhere else, naming the first bad line. With k = 3 the two products and mmchain
    are priced close, and either may run (the products check first); either way nothing
    is read out of range."""
    X = sparse(rng, rows, cols, density=density)
    v = dense(rng, cols, k)
    script = "R0 = t(X0) %*% (X0 %*% X1)\n"
    run = lambda X0, **kw: _native.run_script(script, {"X0": X0, "X1": v}, None, ["R0"],
                                              full_search=True, **kw)
    _, printed = run(csr_parts(X), explain=True)
    if k == 1:
        assert "mmchain" in printed  # the plan that the checks below go through
    values, _ = run(csr_parts(X))
    assert_close(values["R0"], X.T @ (X @ v))
    row = second_entry_row(X, rows // 2)
    start, end = X.indptr[row], X.indptr[row + 1]
    out_of_range = X.indices.copy()
    out_of_range[end - 1] = cols
    repeated = X.indices.copy()
    repeated[start + 1] = repeated[start]
    for indices, message in (
        (out_of_range, f"invalid CSR input: index out of range {cols} in line {row}$"),
        (repeated, f"invalid CSR input: indices of line {row} are not strictly increasing$"),
    ):
        with pytest.raises(TypeError, match=message):
            run(csr_parts(X, indices=indices))


@pytest.mark.parametrize("rows,cols,density", [(50, 12, 0.3), (4000, 60, 0.1)])
def test_bad_indices_found_by_sddmm_sum_in_its_pass(rng, rows, cols, density):
    """`sum(X * (U %*% t(V)))` runs as sddmm_sum, which checks deferred indices line by
    line in its pass, as mmchain does."""
    X = sparse(rng, rows, cols, density=density)
    U, V = dense(rng, rows, 10), dense(rng, cols, 10)
    script = "R0 = sum(X0 * (X1 %*% t(X2)))\n"
    inputs = {"X0": csr_parts(X), "X1": U, "X2": V}
    run = lambda **kw: _native.run_script(script, inputs, None, ["R0"], full_search=True, **kw)
    _, printed = run(explain=True)
    assert "sddmm_sum" in printed
    values, _ = run()
    assert values["R0"] == pytest.approx(X.multiply(U @ V.T).sum(), rel=1e-9)
    row = second_entry_row(X, rows // 2)
    bad = X.indices.copy()
    bad[X.indptr[row + 1] - 1] = cols
    inputs["X0"] = csr_parts(X, indices=bad)
    with pytest.raises(TypeError, match=f"invalid CSR input: index out of range {cols} in line {row}$"):
        run()


def test_other_sparse_operands_of_the_checking_kernels_are_checked(rng):
    """mmchain and sddmm_sum check their first operand's indices themselves; a sparse
    operand in another place is checked before they run."""
    X = sparse(rng, 400, 60, density=0.1)
    v = sparse(rng, 60, 1, density=0.2)
    script = "R0 = t(X0) %*% (X0 %*% X1)\n"
    values, _ = _native.run_script(script, {"X0": csr_parts(X), "X1": csr_parts(v)}, None,
                                   ["R0"], full_search=True)
    assert_close(values["R0"], X.T @ (X @ v))
    bad = v.indices.copy()
    bad[-1] = 1  # a 60 x 1 matrix has one column
    row = int(np.searchsorted(v.indptr, len(bad) - 1, side="right") - 1)
    with pytest.raises(TypeError, match=f"invalid CSR input: index out of range 1 in line {row}$"):
        _native.run_script(script, {"X0": csr_parts(X), "X1": csr_parts(v, indices=bad)}, None,
                           ["R0"], full_search=True)


def test_a_sparse_input_returned_unread_is_checked(rng):
    """An input no operator reads (returned as it came in, or made dense on input) still
    gets its deferred index checks."""
    X = sparse(rng, 50, 12, density=0.3)
    row = second_entry_row(X)
    bad = X.indices.copy()
    bad[X.indptr[row]], bad[X.indptr[row] + 1] = bad[X.indptr[row] + 1], bad[X.indptr[row]]
    message = f"invalid CSR input: indices of line {row} are not strictly increasing"
    with pytest.raises(TypeError, match=message):
        _native.run_script("R0 = X0\n", {"X0": csr_parts(X, indices=bad)}, None, ["R0"])
    values, _ = _native.run_script("R0 = X0\n", {"X0": csr_parts(X)}, None, ["R0"])
    assert values["R0"][0] == "csr"
    dense_enough = sparse(rng, 20, 10, density=0.9)  # converted to a dense matrix on input
    row = second_entry_row(dense_enough)
    bad = dense_enough.indices.copy()
    bad[dense_enough.indptr[row + 1] - 1] = 10
    with pytest.raises(TypeError, match=f"index out of range 10 in line {row}"):
        run_sum(csr_parts(dense_enough, indices=bad))


def test_rows_may_start_below_where_the_last_one_ended(rng):
    """Indices fall at a line boundary in a valid matrix: that is not a decrease."""
    X = sp.csr_matrix(
        (np.arange(1.0, 7.0), np.array([3, 4, 0, 1, 4, 2]), np.array([0, 2, 2, 5, 6])),
        shape=(4, 5),
    )
    assert run_sum(csr_parts(X)) == pytest.approx(21.0)
    assert_close((spores.matrix(X) * 2).compute(), X * 2)


def test_one_scipy_matrix_wrapped_twice_is_one_input(rng):
    """`spores.matrix(X)` twice on one SciPy matrix binds one input: the optimizer sees
    both products read the same X and runs `X.T @ (X @ v)` as one pass."""
    X = sparse(rng, 60, 20, density=0.3)
    v = dense(rng, 20, 1)
    expr = spores.matrix(X).T @ (spores.matrix(X) @ v)
    assert "X2" not in expr.dml()  # X0 is X, X1 is v
    assert_close(expr.compute(), X.T @ (X @ v))
    other = X.copy()
    expr = spores.matrix(X).T @ (spores.matrix(other) @ v)
    assert "X2" in expr.dml()
    assert_close(expr.compute(), X.T @ (other @ v))


def test_non_finite_values_found_by_the_validating_pass(rng):
    """The pass that validates a CSR input also finds NaN/Inf among its values; the plan
    then leaves the finite-only rewrites out and the result matches SciPy's."""
    for rows in (50, 4000):
        X = sparse(rng, rows, 40, density=0.4)
        v = dense(rng, 40, 1)
        X.data[len(X.data) // 3] = np.inf
        assert_close((spores.matrix(X).T @ (spores.matrix(X) @ v)).compute(), X.T @ (X @ v))
        X.data[len(X.data) // 3] = np.nan
        assert np.isnan((spores.matrix(X) * 1.0).sum().compute())


# 1 x n, n x 1, a single cell, empty rows, and large enough to be split into blocks.
CHAIN_SHAPES = [(1, 30), (30, 1), (1, 1), (200, 40), (3000, 700)]


@pytest.mark.parametrize("rows,cols", CHAIN_SHAPES)
def test_mmchain_in_blocks_matches_scipy(rng, rows, cols):
    X = sparse(rng, rows, cols, density=0.15)
    X.data[X.indptr[rows // 2] : X.indptr[rows // 2 + 1]] = 0  # an empty row
    X.eliminate_zeros()
    for k in (1, 3):
        v = dense(rng, cols, k)
        for x in (X, X.toarray()):
            got = (spores.matrix(x).T @ (spores.matrix(x) @ v)).compute()
            assert_close(got, X.T @ (X @ v))


@pytest.mark.parametrize("rows,cols", CHAIN_SHAPES)
@pytest.mark.parametrize("rank", [1, 10, 13])
def test_masked_products_split_by_rank_match_scipy(rng, rows, cols, rank):
    X = sparse(rng, rows, cols, density=0.1)
    U, V = dense(rng, rows, rank), dense(rng, cols, rank)
    lazy = {"X": spores.matrix(X), "U": spores.matrix(U), "V": spores.matrix(V)}
    got = (lazy["X"] * (lazy["U"] @ lazy["V"].T)).sum().compute()
    assert got == pytest.approx(X.multiply(U @ V.T).sum(), rel=1e-9, abs=1e-12)
    got = ((lazy["X"] + lazy["U"] @ lazy["V"].T) ** 2).sum().compute()
    assert got == pytest.approx(np.sum(np.square(X.toarray() + U @ V.T)), rel=1e-9)


def test_results_do_not_depend_on_the_thread_count(rng):
    """Row blocks are fixed by the data size, so sums add in the same order with one thread
    or two: bit-identical results."""
    X = sparse(rng, 3000, 700, density=0.15)
    v = dense(rng, 700, 1)
    U, V = dense(rng, 3000, 10), dense(rng, 700, 10)

    def both():
        x = spores.matrix(X)
        chain = (x.T @ (x @ v)).compute()
        masked = (x * (spores.matrix(U) @ spores.matrix(V).T)).sum().compute()
        return chain, masked

    before = spores.get_threads()
    first = both()
    try:
        spores.set_threads(1)
        single = both()
    finally:
        spores.set_threads(before)
    np.testing.assert_array_equal(first[0], single[0])
    assert first[1] == single[1]
