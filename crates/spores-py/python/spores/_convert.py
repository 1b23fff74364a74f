"""Python values to what the native module takes, and its results back.

Dense inputs become 2-D float64 NumPy arrays: a C-contiguous float64 array passes through
untouched and the engine reads it in place; other dtypes (integers, booleans, float32) are
converted (one copy), non-contiguous arrays are copied once by the native side, and a 1-D
array is a column vector (a view). Sparse inputs (any SciPy sparse matrix or array) are
converted to canonical CSR (`tocsr` copies unless they are CSR already) and handed over as
their index and value arrays: int32 column indices and float64 values are read in place,
row pointers and int64 indices are converted (see the native `convert` module).
"""

from __future__ import annotations

import numbers

import numpy as np
import scipy.sparse as sp


_CSR_TYPES = (sp.csr_matrix, sp.csr_array)


def is_sparse(value) -> bool:
    return sp.issparse(value)


def dense_input(value) -> np.ndarray:
    """A 2-D float64 array for `value` (no copy when it already is one)."""
    array = np.asarray(value)
    if array.dtype != np.float64:
        if not (np.issubdtype(array.dtype, np.number) or array.dtype == np.bool_):
            raise TypeError(f"spores takes numeric arrays, got dtype {array.dtype}")
        if np.issubdtype(array.dtype, np.complexfloating):
            raise TypeError("spores takes real arrays, got a complex one")
        array = array.astype(np.float64)
    if array.ndim == 1:
        array = array.reshape(-1, 1)
    elif array.ndim == 0:
        array = array.reshape(1, 1)
    elif array.ndim != 2:
        raise ValueError(f"spores matrices are 2-D, got an array of shape {array.shape}")
    return array


def sparse_input(value) -> tuple:
    """The canonical CSR parts of a SciPy sparse matrix or array."""
    if value.ndim != 2:
        raise ValueError(f"spores matrices are 2-D, got a sparse array of shape {value.shape}")
    # CSR already (the common case) skips `tocsr`'s layers of calls.
    csr = value if type(value) in _CSR_TYPES else value.tocsr()
    if not csr.has_canonical_format:
        csr = csr.copy()
        csr.sum_duplicates()
    data = csr.data
    if data.dtype != np.float64:
        if np.issubdtype(data.dtype, np.complexfloating):
            raise TypeError("spores takes real arrays, got a complex one")
        data = data.astype(np.float64)
    rows, cols = csr.shape
    return (
        "csr",
        int(rows),
        int(cols),
        csr.indptr,
        csr.indices,
        data,
    )


def native_input(value):
    """Any input a script or expression takes, in the form the native module takes."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    if isinstance(value, str):
        return value
    if is_sparse(value):
        return sparse_input(value)
    return dense_input(value)


def python_output(value, sparse_array: bool = False):
    """A native result as NumPy (dense), SciPy CSR (sparse) or a Python scalar."""
    if isinstance(value, tuple) and value and value[0] == "csr":
        _, rows, cols, indptr, indices, data = value
        make = sp.csr_array if sparse_array else sp.csr_matrix
        return make((data, indices, indptr), shape=(rows, cols), copy=False)
    if isinstance(value, list):
        return [python_output(v, sparse_array) for v in value]
    return value
