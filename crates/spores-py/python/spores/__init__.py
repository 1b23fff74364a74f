"""spores for Python: linear algebra on NumPy/SciPy data, optimized lazily.

    import numpy as np, scipy.sparse as sp, spores
    X = spores.matrix(sp.random(1000, 800, density=0.01, format="csr"))
    U, V = spores.matrix(np.random.rand(1000, 10)), spores.matrix(np.random.rand(800, 10))
    loss = ((X - U @ V.T) ** 2).sum()      # nothing runs yet
    print(loss.compute())                  # the whole expression goes through the optimizer

- `spores.matrix(a)`, operators `@ + - * / ** .T`, comparisons, `.sum(axis=)`, `exp`,
  `log`, `sqrt`, `abs`, `sigmoid`, `minimum`, `maximum`; `.compute()`, `.explain()`.
- `spores.run(script, **inputs)`: DML scripts with NumPy/SciPy inputs, named outputs back.
- `spores.optimize`, `spores.equiv`, `spores.tensor`, `spores.mlir_opt`: the other
  commands of the CLI.
- Errors are `SporesError` subclasses: `ParseError`, `ShapeError`, `UnsupportedError`,
  `ExecutionError`, carrying the CLI's messages.
"""

from __future__ import annotations

import os
import sys
from collections import namedtuple

import numpy as np

from . import _convert, _native
from ._lazy import (
    Matrix,
    abs,
    compute,
    exp,
    explain,
    log,
    matrix,
    maximum,
    minimum,
    sigmoid,
    sign,
    sqrt,
)
from ._native import (
    ExecutionError,
    ParseError,
    ShapeError,
    SporesError,
    UnsupportedError,
)

__version__ = _native.__version__

__all__ = [
    "Matrix",
    "matrix",
    "compute",
    "explain",
    "exp",
    "log",
    "sqrt",
    "abs",
    "sigmoid",
    "sign",
    "minimum",
    "maximum",
    "run",
    "optimize",
    "equiv",
    "tensor",
    "CooTensor",
    "mlir_opt",
    "set_threads",
    "get_threads",
    "SporesError",
    "ParseError",
    "ShapeError",
    "UnsupportedError",
    "ExecutionError",
]


def run(script, args=None, outputs=None, *, explain=False, optimize=True, **inputs):
    """Runs a DML script with NumPy/SciPy values bound to its variables.

    `script` is DML text or the path of a `.dml` file (whose `source(...)` paths then
    resolve against its directory). `args` become `$name` values; `inputs` (arrays,
    sparse matrices, lazy matrices, numbers, strings) are variables before the first
    statement. Returns a dict of the variables named in `outputs` (default: every variable
    the script defines that is not an input), matrices as NumPy arrays or SciPy CSR.
    What the script prints goes to stdout; with `explain=True` so does each block's plan.
    """
    name, script_dir = "<script>", None
    text = script
    if _looks_like_path(script):
        name = os.fspath(script)
        with open(name, encoding="utf-8") as f:
            text = f.read()
        script_dir = os.path.dirname(os.path.abspath(name))
    native_inputs = {}
    sparse_array = False
    for key, value in inputs.items():
        if isinstance(value, Matrix):
            value = value.compute()
        sparse_array = sparse_array or (
            _convert.is_sparse(value) and not isinstance(value, _spmatrix())
        )
        native_inputs[key] = _convert.native_input(value)
    str_args = None if args is None else {str(k): _arg_text(v) for k, v in dict(args).items()}
    wanted = None if outputs is None else [outputs] if isinstance(outputs, str) else list(outputs)
    values, printed = _native.run_script(
        text, native_inputs, str_args, wanted, explain, optimize, name, script_dir
    )
    if printed:
        sys.stdout.write(printed)
    return {k: _convert.python_output(v, sparse_array) for k, v in values.items()}


def _spmatrix():
    import scipy.sparse as sp

    return sp.spmatrix


def _looks_like_path(script) -> bool:
    if isinstance(script, os.PathLike):
        return True
    return isinstance(script, str) and "\n" not in script and script.endswith(".dml")


def _arg_text(value) -> str:
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    return str(value)


def _shapes_of(inputs: dict):
    """Shapes (and non-zero counts of sparse inputs) from arrays or (rows, cols) pairs."""
    shapes, nnz = {}, {}
    for name, value in inputs.items():
        if isinstance(value, tuple) and len(value) == 2 and all(isinstance(d, int) for d in value):
            shapes[name] = value
            continue
        if _convert.is_sparse(value):
            shapes[name] = tuple(int(d) for d in value.shape)
            nnz[name] = float(value.nnz)
            continue
        if isinstance(value, Matrix):
            shapes[name] = value.shape
            continue
        array = np.asarray(value)
        if array.ndim == 1:
            shapes[name] = (array.shape[0], 1)
        else:
            shapes[name] = tuple(int(d) for d in array.shape)
    return shapes, nnz


def optimize(expr: str, **inputs) -> str:
    """The optimized plan of a DML expression, as `spores optimize` prints it: the plan,
    predicted costs before and after, the saturation and extraction reports, and whether
    it was verified equivalent. Inputs give shapes: arrays, sparse matrices (their
    non-zero counts are used too) or `(rows, cols)` pairs."""
    shapes, nnz = _shapes_of(inputs)
    return _native.optimize_expr(expr, shapes, nnz)


Equivalence = namedtuple("Equivalence", "equivalent verdict witness")


def equiv(lhs: str, rhs: str, *, positive=(), **inputs) -> "Equivalence":
    """Decides whether two DML expressions are equal for all inputs (`spores equiv`).
    Returns `(equivalent, verdict, witness)`: `equivalent` is True, False, or None when
    undecided; for non-equivalent expressions `witness` maps each input, `lhs` and `rhs`
    to 2-D NumPy arrays on which the two sides differ. Inputs fix shapes (optional:
    without them dimensions are symbolic). `positive` names inputs positive in every
    cell (`--positive`), the domain of `log`, `sqrt` and division."""
    shapes, _ = _shapes_of(inputs)
    verdict, witness = _native.equiv_exprs(lhs, rhs, shapes, [], list(positive))
    equivalent = {"equivalent": True, "not equivalent": False}.get(verdict)
    return Equivalence(equivalent, verdict, dict(witness))


CooTensor = namedtuple("CooTensor", "shape coords values fill")
CooTensor.__doc__ = """A tensor result of order 3 or more: `coords` is nnz x order (int64),
`values` the stored values, every other cell is `fill`."""


def _tensor_input(name, value):
    if isinstance(value, CooTensor):
        return ("coo", list(value.shape), np.asarray(value.coords, np.int64), np.asarray(value.values, np.float64))
    if _convert.is_sparse(value):
        coo = value.tocoo()
        coords = np.stack([coo.row, coo.col], axis=1).astype(np.int64)
        return ("coo", list(coo.shape), coords, coo.data.astype(np.float64))
    array = np.asarray(value, dtype=np.float64)
    coords = np.argwhere(array != 0).astype(np.int64)
    values = array[tuple(coords.T)] if array.ndim else array.reshape(-1)[:0]
    return ("coo", list(array.shape), coords.reshape(len(coords), array.ndim), values)


def _tensor_output(parts):
    _, dims, coords, values, fill = parts
    order = len(dims)
    if order == 0:
        return float(values[0]) if len(values) else float(fill)
    if order == 2 and fill == 0.0 and len(values) < 0.4 * dims[0] * dims[1]:
        import scipy.sparse as sp

        return sp.coo_matrix((values, (coords[:, 0], coords[:, 1])), shape=tuple(dims)).tocsr()
    if order <= 2:
        dense = np.full(tuple(dims), fill, dtype=np.float64)
        dense[tuple(coords.T)] = values
        return dense
    return CooTensor(tuple(dims), coords, values, fill)


def tensor(program: str, *, optimizer: str = "greedy", explain: bool = False, **inputs):
    """Runs a sparse tensor program (`spores tensor`; syntax in
    crates/spores-tensor/src/parse/mod.rs), e.g. `t = sum[i,j,k](E[i,j]*E[j,k]*E[i,k])`.
    Inputs are NumPy arrays (any order), SciPy sparse matrices or `CooTensor`s. Returns a
    dict of outputs: floats for scalars, NumPy arrays for vectors and dense matrices,
    SciPy CSR for sparse matrices, `CooTensor` above order 2. `explain=True` prints the
    logical and physical plans."""
    one_line = "\n" not in program and len(program) < 4096
    if one_line and os.path.isfile(program):
        with open(program, encoding="utf-8") as f:
            program = f.read()
    parts = {k: _tensor_input(k, v) for k, v in inputs.items()}
    outputs, plan = _native.run_tensor(program, parts, optimizer, explain)
    if explain:
        sys.stdout.write(plan)
    return {k: _tensor_output(v) for k, v in outputs.items()}


def mlir_opt(text: str, rules: str | None = None, extractor: str = "greedy") -> str:
    """Optimizes MLIR text with egglog rules (`spores mlir opt`): `rules` holds egglog
    declarations, rewrites and costs added to the shipped prelude; returns the cheapest
    equivalent program in MLIR's generic form. Custom syntax needs mlir-opt-19."""
    return _native.mlir_opt(text, rules, extractor)


def set_threads(n: int) -> None:
    """Sets how many threads the kernels use (default: one per core)."""
    _native.set_threads(n)


def get_threads() -> int:
    """How many threads the kernels use."""
    return _native.get_threads()
