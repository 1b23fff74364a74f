"""The lazy linear-algebra API: expressions over NumPy/SciPy data, built with NumPy-like
operators and run as one program.

Nothing is computed while an expression is built (only shapes are checked, raising
`ShapeError` the way NumPy raises at the operator). `compute()` writes the whole DAG as
one DML basic block (a node used twice becomes one variable), which spores runs exactly
as `spores run` runs a block: lowered to a DAG, rewritten by the SPORES optimizer
(equality saturation, cost-based extraction, checked equivalent), planned onto fused
kernels, executed with the GIL released.
"""

from __future__ import annotations

import math
import numbers
import sys

import numpy as np

from . import _convert, _native

ShapeError = _native.ShapeError

# Element-wise binary operators: Python name -> DML operator.
_BINARY = {
    "+": "+",
    "-": "-",
    "*": "*",
    "/": "/",
    "**": "^",
    "//": "%/%",
    "%": "%%",
    "<": "<",
    "<=": "<=",
    ">": ">",
    ">=": ">=",
    "==": "==",
    "!=": "!=",
}

# Element-wise functions: name -> DML builtin.
_UNARY = {
    "exp": "exp",
    "log": "log",
    "sqrt": "sqrt",
    "abs": "abs",
    "sigmoid": "sigmoid",
    "sign": "sign",
    "round": "round",
    "floor": "floor",
    "ceil": "ceil",
    "neg": "-",
}

# Aggregates to a scalar: method name -> DML builtin.
_AGGREGATE = {"sum": "sum", "mean": "mean", "min": "min", "max": "max"}

SCALAR = ()

# Expressions nested deeper than this are split into variables: the DML parser limits
# nesting, and one block with variables is still one DAG for the optimizer.
_MAX_DEPTH = 64


def _fmt_shape(shape) -> str:
    return "scalar" if shape == SCALAR else f"{shape[0]}x{shape[1]}"


def _broadcast(op: str, left, right):
    """The shape of an element-wise `left op right`, as the engine broadcasts: equal shapes,
    a scalar with anything, a matrix with a row or column vector of its size."""
    if left == SCALAR:
        return right
    if right == SCALAR or left == right:
        return left
    (lr, lc), (rr, rc) = left, right
    if (rr == lr and rc == 1) or (rr == 1 and rc == lc):
        return left
    if (lr == rr and lc == 1) or (lr == 1 and lc == rc):
        return right
    raise ShapeError(
        f"shape mismatch in {op}: left is {_fmt_shape(left)}, right is {_fmt_shape(right)}"
    )


class Matrix:
    """A lazy matrix (or scalar, after a full aggregate): a node of an expression DAG.

    Build with `spores.matrix(array)` and NumPy-like operators; run with `compute()`.
    """

    __slots__ = ("_kind", "_payload", "_args", "shape", "_sparse_array", "__weakref__")
    __array_priority__ = 1000  # NumPy defers `ndarray op Matrix` to our reflected methods

    def __init__(self, kind: str, payload, args: tuple, shape, sparse_array: bool = False):
        self._kind = kind  # "leaf", "const", "bin", "un", "matmul", "t", "agg", "rowSums", ...
        self._payload = payload
        self._args = args
        self.shape = shape
        if not sparse_array:
            for a in args:  # a loop, not any(...): this runs for every node built
                if a._sparse_array:
                    sparse_array = True
                    break
        self._sparse_array = sparse_array

    # -- construction ---------------------------------------------------------------------

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def T(self) -> "Matrix":
        """The transpose."""
        if self.shape == SCALAR:
            return self
        return Matrix("t", None, (self,), (self.shape[1], self.shape[0]))

    def transpose(self) -> "Matrix":
        return self.T

    def _binary(self, op: str, other, reflected: bool = False) -> "Matrix":
        other = _lift(other)
        left, right = (other, self) if reflected else (self, other)
        shape = _broadcast(op, left.shape, right.shape)
        return Matrix("bin", _BINARY[op], (left, right), shape)

    # Defining __eq__ (below, element-wise) would otherwise make lazy matrices unhashable.
    __hash__ = object.__hash__

    def __neg__(self):
        return _unary("neg", self)

    def __pos__(self):
        return self

    def __abs__(self):
        return _unary("abs", self)

    def __matmul__(self, o):
        return _matmul(self, _lift(o))

    def __rmatmul__(self, o):
        return _matmul(_lift(o), self)

    def __bool__(self):
        raise TypeError(
            "the truth value of a lazy spores expression is unknown until compute(); "
            "call .compute() first"
        )

    def sum(self, axis=None) -> "Matrix":
        """Sum of all cells (a scalar), of each column (`axis=0`, 1 x n) or of each row
        (`axis=1`, m x 1)."""
        if axis is None:
            return _aggregate("sum", self)
        if self.shape == SCALAR:
            raise ShapeError("sum(axis=...) needs a matrix, got a scalar")
        if axis in (0, -2):
            return Matrix("call", "colSums", (self,), (1, self.shape[1]))
        if axis in (1, -1):
            return Matrix("call", "rowSums", (self,), (self.shape[0], 1))
        raise ValueError(f"axis must be None, 0 or 1, got {axis!r}")

    def mean(self) -> "Matrix":
        """Mean of all cells (a scalar)."""
        return _aggregate("mean", self)

    def min(self) -> "Matrix":
        """Smallest cell (a scalar)."""
        return _aggregate("min", self)

    def max(self) -> "Matrix":
        """Largest cell (a scalar)."""
        return _aggregate("max", self)

    # -- running ----------------------------------------------------------------------------

    def compute(self, optimize: bool = True):
        """Runs the expression; returns a NumPy array (dense result), a SciPy CSR matrix
        (sparse result; `csr_array` when an input was a sparse array) or a float."""
        return compute(self, optimize=optimize)

    def explain(self, file=None, optimize: bool = True, format: str = "text") -> str:
        """Runs the expression and prints (to `file`, default stdout) the plan that ran:
        the DAG of the block with each node's shape, format and non-zeros, and what the
        optimizer rewrote with the estimated costs before and after. Returns the text.
        `format="dot"` returns the same plan as a Graphviz digraph and prints nothing."""
        return explain(self, file=file, optimize=optimize, format=format)

    def dml(self) -> str:
        """The DML block `compute()` runs (inputs appear as `X0`, `X1`, ...)."""
        text, _ = _block([self])
        return text

    def __array__(self, dtype=None, copy=None):
        value = self.compute()
        if _convert.is_sparse(value):
            value = value.toarray()
        return np.asarray(value, dtype=dtype)

    def __repr__(self) -> str:
        return f"spores.Matrix(shape={self.shape}, lazy)"


def _operator_method(op: str, reflected: bool):
    def method(self, other):
        return self._binary(op, other, reflected)

    method.__name__ = f"__{'r' if reflected else ''}{op}__"
    return method


# Python's operator methods, each an element-wise DML operator (`**` is `^`, comparisons
# give 0/1 matrices); the reflected forms run when the left operand is not lazy.
for _name, _op in {"add": "+", "sub": "-", "mul": "*", "truediv": "/", "floordiv": "//",
                   "mod": "%", "pow": "**"}.items():
    setattr(Matrix, f"__{_name}__", _operator_method(_op, False))
    setattr(Matrix, f"__r{_name}__", _operator_method(_op, True))
for _name, _op in {"lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "==", "ne": "!="}.items():
    setattr(Matrix, f"__{_name}__", _operator_method(_op, False))


def _lift(value) -> Matrix:
    """An operand as a node: lazy matrices as they are, Python/NumPy scalars as constants,
    arrays and sparse matrices as new leaves."""
    if isinstance(value, Matrix):
        return value
    if isinstance(value, (numbers.Real, np.bool_)) and not isinstance(value, np.ndarray):
        return Matrix("const", float(value), (), SCALAR)
    return matrix(value)


def matrix(value) -> Matrix:
    """Wraps a NumPy array (or anything `np.asarray` takes) or a SciPy sparse matrix/array
    (CSR, CSC, COO, ...) as a lazy matrix. A C-contiguous float64 array is not copied:
    `compute()` reads it in place, so change it only after computing. A 1-D array is a
    column vector."""
    if isinstance(value, Matrix):
        return value
    if type(value) is np.ndarray and value.ndim == 2 and value.dtype == np.float64:
        # What `dense_input` returns unchanged, without its checks.
        return Matrix("leaf", value, (), (int(value.shape[0]), int(value.shape[1])))
    if _convert.is_sparse(value):
        data = _convert.sparse_input(value)
        sparse_array = not isinstance(value, _convert.sp.spmatrix)
        return Matrix("leaf", data, (), (data[1], data[2]), sparse_array)
    array = _convert.dense_input(value)
    return Matrix("leaf", array, (), (int(array.shape[0]), int(array.shape[1])))


def _unary(name: str, x) -> Matrix:
    x = _lift(x)
    return Matrix("un", _UNARY[name], (x,), x.shape)


def _aggregate(name: str, x) -> Matrix:
    x = _lift(x)
    return Matrix("agg", _AGGREGATE[name], (x,), SCALAR)


def _matmul(a: Matrix, b: Matrix) -> Matrix:
    if a.shape == SCALAR or b.shape == SCALAR:
        raise ShapeError("matmul: operands must be matrices, not scalars; use * for scaling")
    if a.shape[1] != b.shape[0]:
        raise ShapeError(
            f"shape mismatch in %*%: left is {_fmt_shape(a.shape)}, right is {_fmt_shape(b.shape)}"
        )
    return Matrix("matmul", None, (a, b), (a.shape[0], b.shape[1]))


def exp(x) -> Matrix:
    """Element-wise e**x."""
    return _unary("exp", x)


def log(x) -> Matrix:
    """Element-wise natural logarithm."""
    return _unary("log", x)


def sqrt(x) -> Matrix:
    """Element-wise square root."""
    return _unary("sqrt", x)


def abs(x) -> Matrix:  # noqa: A001 - NumPy's name
    """Element-wise absolute value."""
    return _unary("abs", x)


def sigmoid(x) -> Matrix:
    """Element-wise 1 / (1 + exp(-x))."""
    return _unary("sigmoid", x)


def sign(x) -> Matrix:
    """Element-wise sign (-1, 0 or 1)."""
    return _unary("sign", x)


def _elementwise_min_max(name: str, a, b) -> Matrix:
    a, b = _lift(a), _lift(b)
    shape = _broadcast(name, a.shape, b.shape)
    return Matrix("call", name, (a, b), shape)


def minimum(a, b) -> Matrix:
    """Element-wise minimum of two operands (matrices or scalars)."""
    return _elementwise_min_max("min", a, b)


def maximum(a, b) -> Matrix:
    """Element-wise maximum of two operands (matrices or scalars)."""
    return _elementwise_min_max("max", a, b)


def _literal(value: float) -> str | None:
    """A DML literal for a finite float, None for inf/nan (those are bound as inputs)."""
    if not math.isfinite(value):
        return None
    text = repr(float(value))
    return f"({text})" if value < 0 else text


def _leaf_name(payload, leaf_names: dict, inputs: dict) -> str:
    """The input name of a leaf, `X0`, `X1`, ... in order of first use; a new one is
    bound in `inputs`. Two wrappings of one SciPy matrix hold the same arrays in fresh
    tuples: one input, so the optimizer sees that `X.T @ (X @ v)` reads one X."""
    key = (
        (payload[1], payload[2], id(payload[3]), id(payload[4]), id(payload[5]))
        if type(payload) is tuple
        else id(payload)
    )
    name = leaf_names.get(key)
    if name is None:
        name = f"X{len(leaf_names)}"
        leaf_names[key] = name
        inputs[name] = payload
    return name


class _NotATree(Exception):
    """A DAG that [`_emit_tree`] leaves to [`_emit`]: a shared inner node, or deep nesting."""


def _emit_tree(roots: list[Matrix]):
    """[`_emit`] for the common case of a tree (only leaves shared) nested less than
    `_MAX_DEPTH` deep: one recursive pass that writes each node's text as it returns,
    about half the work of the general pass, which counts uses first. The same text and
    inputs as `_emit` (leaves named in the same post-order); raises `_NotATree` otherwise.
    """
    inputs: dict[str, object] = {}
    leaf_names: dict = {}
    seen: set = set()

    def text(node, depth):
        kind = node._kind
        if kind == "leaf":
            return _leaf_name(node._payload, leaf_names, inputs)
        if kind == "const":
            lit = _literal(node._payload)
            if lit is None:  # bound as an input, once per node: `_emit` counts the uses
                raise _NotATree
            return lit
        # `_emit` names a node whose text nests `_MAX_DEPTH` deep: one at this depth
        # from the top has a text at least that deep.
        if depth >= _MAX_DEPTH - 1 or id(node) in seen:
            raise _NotATree
        seen.add(id(node))
        args = node._args
        first = text(args[0], depth + 1)
        if kind == "bin":
            return f"({first} {node._payload} {text(args[1], depth + 1)})"
        if kind == "matmul":
            return f"({first} %*% {text(args[1], depth + 1)})"
        if kind == "t":
            return f"t({first})"
        if kind == "un":
            return f"(-{first})" if node._payload == "-" else f"{node._payload}({first})"
        if len(args) == 2:  # "call" with two arguments
            return f"{node._payload}({first}, {text(args[1], depth + 1)})"
        return f"{node._payload}({first})"  # "agg", "call"

    lines = [f"R{i} = {text(r, 0)}" for i, r in enumerate(roots)]
    return "\n".join(lines) + "\n", inputs


def _emit(roots: list[Matrix]):
    """The DML block computing `roots` (as `R0`, `R1`, ...) and its inputs by name.

    Iterative post-order (deep chains must not hit Python's recursion limit); a node used
    more than once is assigned to a variable so the text stays linear in the DAG's size.
    Leaves wrapping the same array (or SciPy matrix) are one input. Runs on every `compute()`, so it keeps
    to one dictionary per pass and no per-node generators.
    """
    uses: dict[int, int] = {}
    order: list[Matrix] = []
    # Post-order without recursion: a node is pushed, then pushed again as `None, node`
    # once its arguments are on the stack, and emitted when that marker comes back.
    stack: list = list(reversed(roots))
    pop, push = stack.pop, stack.append
    while stack:
        node = pop()
        if node is None:
            order.append(pop())
            continue
        key = id(node)
        if key in uses:
            uses[key] += 1
            continue
        uses[key] = 1
        push(node)
        push(None)
        args = node._args
        if args:
            stack.extend(reversed(args))
    inputs: dict[str, object] = {}
    leaf_names: dict = {}  # array identity -> input name
    # id -> (text, parenthesis depth of the text)
    emitted: dict[int, tuple[str, int]] = {}
    lines: list[str] = []
    for node in order:
        kind = node._kind
        if kind == "leaf":
            emitted[id(node)] = (_leaf_name(node._payload, leaf_names, inputs), 0)
            continue
        if kind == "const":
            lit = _literal(node._payload)
            if lit is None:
                lit = f"C{len(inputs)}"
                inputs[lit] = node._payload
            emitted[id(node)] = (lit, 0)
            continue
        args = node._args
        first, depth = emitted[id(args[0])]
        if len(args) == 2:
            second, second_depth = emitted[id(args[1])]
            if second_depth > depth:
                depth = second_depth
        depth += 1
        if kind == "bin":
            expr = f"({first} {node._payload} {second})"
        elif kind == "matmul":
            expr = f"({first} %*% {second})"
        elif kind == "t":
            expr = f"t({first})"
        elif kind == "un":
            expr = f"(-{first})" if node._payload == "-" else f"{node._payload}({first})"
        elif len(args) == 2:  # "call" with two arguments
            expr = f"{node._payload}({first}, {second})"
        else:  # "agg", "call"
            expr = f"{node._payload}({first})"
        if depth >= _MAX_DEPTH or uses[id(node)] > 1:
            name = f"T{len(lines)}"
            lines.append(f"{name} = {expr}")
            expr, depth = name, 0
        emitted[id(node)] = (expr, depth)
    for i, r in enumerate(roots):
        lines.append(f"R{i} = {emitted[id(r)][0]}")
    return "\n".join(lines) + "\n", inputs


def _block(roots: list[Matrix]):
    """The DML block computing `roots` and its inputs (see `_emit`)."""
    try:
        return _emit_tree(roots)
    except _NotATree:
        return _emit(roots)


def _run(roots: list[Matrix], optimize: bool, explain: bool, dot: bool = False):
    roots = [_lift(r) for r in roots]
    text, inputs = _block(roots)
    names = [f"R{i}" for i in range(len(roots))]
    values, printed = _native.run_script(
        text, inputs, None, names, explain, optimize, "<expression>", None, None, dot,
        full_search=True, single_block=True,
    )
    results = [_convert.python_output(values[n], r._sparse_array) for n, r in zip(names, roots)]
    return results, printed


def compute(*exprs, optimize: bool = True):
    """Runs one or more lazy expressions together (shared subexpressions are computed once,
    and the optimizer sees all of them). Returns one result, or a tuple for several."""
    results, _ = _run(list(exprs), optimize, False)
    return results[0] if len(results) == 1 else tuple(results)


def explain(*exprs, file=None, optimize: bool = True, format: str = "text") -> str:
    """Runs the expressions and prints the plan that ran (see `Matrix.explain`)."""
    if format not in ("text", "dot"):
        raise ValueError(f"format must be 'text' or 'dot', got {format!r}")
    _, printed = _run(list(exprs), optimize, True, format == "dot")
    if format == "text":
        print(printed, end="", file=file if file is not None else sys.stdout)
    return printed
