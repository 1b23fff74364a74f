"""Shared fixtures: seeded random dense and sparse inputs of the shapes the suite sweeps."""

import numpy as np
import pytest
import scipy.sparse as sp

# Shapes every element-wise operator is checked on: general, row, column, single cell.
SHAPES = [(7, 5), (1, 6), (6, 1), (1, 1)]


@pytest.fixture
def rng():
    return np.random.default_rng(20261126)


def dense(rng, rows, cols, low=-2.0, high=2.0):
    return rng.uniform(low, high, size=(rows, cols))


def sparse(rng, rows, cols, density=0.3, fmt="csr"):
    m = sp.random(rows, cols, density=density, format=fmt, random_state=rng.integers(1 << 31))
    m.data = m.data * 4 - 2
    return m


def as_dense(value):
    if sp.issparse(value):
        return value.toarray()
    return np.asarray(value, dtype=float)


def assert_close(actual, expected, rtol=1e-9):
    a, e = as_dense(actual), as_dense(expected)
    if np.ndim(e) == 1 and np.ndim(a) == 2:
        e = e.reshape(-1, 1) if a.shape[1] == 1 else e.reshape(1, -1)
    assert np.shape(a) == np.shape(e), f"shape {np.shape(a)} != {np.shape(e)}"
    np.testing.assert_allclose(a, e, rtol=rtol, atol=1e-12, equal_nan=True)
