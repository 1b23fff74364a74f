#!/usr/bin/env python3
"""NumPy/SciPy reference implementations of the examples/*.dml scripts.

Each function mirrors its DML script statement by statement (same formulas, same operation
order where it matters) on inputs read from Matrix Market files, and returns the lines the
script prints, with numbers formatted the way SystemDS prints them (Java's Double.toString
layout for doubles, plain digits for integers). Scalar reductions use math.fsum (correctly
rounded), so this is an accuracy oracle, not a speed baseline.

Usage:
  bench/.venv/bin/python bench/reference.py loss   X=x.mtx U=u.mtx V=v.mtx
  bench/.venv/bin/python bench/reference.py als    X=x.mtx U=u.mtx V=v.mtx [iters=5 ...]
  bench/.venv/bin/python bench/reference.py pnmf   X=x.mtx W=w.mtx H=h.mtx [iters=10]
  bench/.venv/bin/python bench/reference.py logreg X=x.mtx y=y.mtx [step=1.0 iters=10]
  bench/.venv/bin/python bench/reference.py l2svm  X=x.mtx y=y.mtx [lambda=1.0 iters=10 newton=3]
The key=value arguments are the scripts' $-parameters (the ones bench/systemds.sh passes).
"""
from __future__ import annotations

import argparse
import math
import sys
from decimal import Decimal

import numpy as np
import scipy.io


# --------------------------------------------------------------------------- formatting
def java_double(x: float) -> str:
    """Format a float like Java's Double.toString (which SystemDS uses in print).

    Plain notation for 1e-3 <= |x| < 1e7 (always with a fractional part: "3.0"),
    computerized scientific notation otherwise ("1.0E7", "2.5E-5"). Digits are the shortest
    round-trip ones (Python repr); JDK 17's Double.toString occasionally emits one more digit.
    """
    x = float(x)
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    if x == 0.0:
        return "-0.0" if math.copysign(1.0, x) < 0 else "0.0"
    sign = "-" if x < 0 else ""
    t = Decimal(repr(abs(x))).normalize().as_tuple()
    digits = "".join(map(str, t.digits))
    point = len(digits) + t.exponent  # value = 0.<digits> * 10^point
    a = abs(x)
    if 1e-3 <= a < 1e7:
        if point <= 0:
            return f"{sign}0.{'0' * -point}{digits}"
        if point >= len(digits):
            return f"{sign}{digits}{'0' * (point - len(digits))}.0"
        return f"{sign}{digits[:point]}.{digits[point:]}"
    mantissa = digits[0] + "." + (digits[1:] or "0")
    return f"{sign}{mantissa}E{point - 1}"


def fmt(v) -> str:
    """SystemDS print formatting: ints as digits, doubles as Java doubles."""
    if isinstance(v, (bool, np.bool_)):
        return "TRUE" if v else "FALSE"
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    return java_double(float(v))


def total(a) -> float:
    """sum(A): correctly rounded sum of all entries."""
    return math.fsum(np.asarray(a, dtype=np.float64).ravel())


# --------------------------------------------------------------------------- input
def key_values(ap: argparse.ArgumentParser, items: list[str], what: str = "argument") -> dict[str, str]:
    """`KEY=VALUE` command-line items as a dict; anything else is a usage error."""
    kv = {}
    for item in items:
        if "=" not in item:
            ap.error(f"{what} {item!r} is not KEY=VALUE")
        k, v = item.split("=", 1)
        kv[k] = v
    return kv


def read_mm(path: str, dense: bool = True):
    """Read a Matrix Market file; dense ndarray (2-D) or CSR matrix."""
    try:
        m = scipy.io.mmread(path)
    except (OSError, ValueError) as e:
        raise SystemExit(f"reference.py: error: cannot read Matrix Market file {path}: {e}")
    if hasattr(m, "toarray"):
        return np.asarray(m.toarray(), dtype=np.float64) if dense else m.tocsr().astype(np.float64)
    m = np.asarray(m, dtype=np.float64)
    return m if dense else scipy.sparse.csr_matrix(m)


# --------------------------------------------------------------------------- examples
def loss(X, U, V):
    L = total((X - U @ V.T) ** 2)
    return [f"loss {fmt(L)}"]


def cg(hv, r, k, s, total=total):
    """`k` conjugate-gradient steps on `H d = r` from the iterate `s` (residual `r`);
    `hv(d)` is `H d`. Returns the last iterate. The DML scripts' inner loop."""
    d = r
    rr = total(r ** 2)
    for _ in range(k):
        hd = hv(d)
        alpha = rr / total(d * hd)
        s = s + alpha * d
        r = r - alpha * hd
        rr_new = total(r ** 2)
        d = r + (rr_new / rr) * d
        rr = rr_new
    return s


def cg_step(X, A0, B, lam, k, total=total):
    """One ALS half-step: `k` CG steps on the rows of `A0` against the factor `B`."""
    BtB = B.T @ B
    R = -(np.asarray((A0 @ B.T - X) @ B) + lam * A0)
    return cg(lambda S: S @ BtB + lam * S, R, k, A0, total)


def als(X, U, V, lam=0.1, iters=5, cgiters=3):
    out = [f"iter 0 loss {fmt(total((X - U @ V.T) ** 2))}"]
    Xt = X.T.copy()
    for i in range(1, iters + 1):
        U = cg_step(X, U, V, lam, cgiters)
        V = cg_step(Xt, V, U, lam, cgiters)
        L = total((X - U @ V.T) ** 2)
        obj = 0.5 * L + 0.5 * lam * (total(U ** 2) + total(V ** 2))
        out.append(f"iter {i} loss {fmt(L)} obj {fmt(obj)}")
    return out


def pnmf(X, W, H, iters=10):
    out = []
    for i in range(1, iters + 1):
        H = (H * (W.T @ (X / (W @ H)))) / W.sum(axis=0)[:, None]
        W = (W * ((X / (W @ H)) @ H.T)) / H.sum(axis=1)[None, :]
        WH = W @ H
        obj = total(WH) - total(X * np.log(WH))
        out.append(f"iter {i} obj {fmt(obj)}")
    return out


def _sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def logreg(X, y, step=1.0, iters=10):
    n = X.shape[0]
    w = np.zeros((X.shape[1], 1))
    out = []
    for i in range(1, iters + 1):
        p = _sigmoid(X @ w)
        L = -total(y * np.log(p) + (1 - y) * np.log(1 - p)) / n
        out.append(f"iter {i} loss {fmt(L)}")
        w = w - step * (X.T @ (p - y)) / n
    p = _sigmoid(X @ w)
    L = -total(y * np.log(p) + (1 - y) * np.log(1 - p)) / n
    acc = total((p > 0.5) == y) / n
    out.append(f"final loss {fmt(L)} accuracy {fmt(acc)}")
    return out


def l2svm(X, y, lam=1.0, iters=10, newton=3, total=total):
    w = np.zeros((X.shape[1], 1))
    Xw = np.zeros((X.shape[0], 1))
    g = X.T @ y
    s = g
    out = []
    for it in range(1, iters + 1):
        Xs = X @ s
        ws = lam * total(w * s)
        ss = lam * total(s * s)
        a = 0  # an int in DML until the first Newton step makes it a double
        for _ in range(newton):
            o = 1 - y * (Xw + a * Xs)
            sv = o > 0
            d1 = ws + a * ss - total(sv * o * y * Xs)
            d2 = ss + total(sv * Xs * Xs)
            a = a - d1 / d2
        w = w + a * s
        Xw = Xw + a * Xs
        o = 1 - y * Xw
        hinge = (o > 0) * o
        obj = 0.5 * total(hinge * hinge) + 0.5 * lam * total(w * w)
        out.append(f"iter {it} step {fmt(float(a))} obj {fmt(obj)}")
        g_new = X.T @ (hinge * y) - lam * w
        s = (total(g_new * g_new) / total(g * g)) * s + g_new
        g = g_new
    acc = total((y * (X @ w)) > 0) / X.shape[0]
    out.append(f"accuracy {fmt(float(acc))}")
    return out


# name -> (function, matrix inputs, {scalar parameter: (DML name, type, default)})
EXAMPLES = {
    "loss": (loss, ["X", "U", "V"], {}),
    "als": (als, ["X", "U", "V"], {"lam": ("lambda", float, 0.1), "iters": ("iters", int, 5),
                                   "cgiters": ("cgiters", int, 3)}),
    "pnmf": (pnmf, ["X", "W", "H"], {"iters": ("iters", int, 10)}),
    "logreg": (logreg, ["X", "y"], {"step": ("step", float, 1.0), "iters": ("iters", int, 10)}),
    "l2svm": (l2svm, ["X", "y"], {"lam": ("lambda", float, 1.0), "iters": ("iters", int, 10),
                                  "newton": ("newton", int, 3)}),
}


def run(example: str, args: dict[str, str]) -> list[str]:
    """Run one example on files/parameters given as the script's $-arguments."""
    if example not in EXAMPLES:
        raise SystemExit(f"reference.py: error: unknown example {example!r} (known: {', '.join(EXAMPLES)})")
    func, mats, params = EXAMPLES[example]
    missing = [m for m in mats if m not in args]
    if missing:
        raise SystemExit(f"reference.py: error: {example} needs file arguments {', '.join(m + '=FILE' for m in missing)}")
    kwargs = {}
    for pyname, (dmlname, typ, default) in params.items():
        kwargs[pyname] = typ(args.get(dmlname, default))
    unknown = set(args) - set(mats) - {d for d, _, _ in params.values()}
    if unknown:
        raise SystemExit(f"reference.py: error: unknown arguments for {example}: {', '.join(sorted(unknown))}")
    inputs = [read_mm(args[m]) for m in mats]
    return func(*inputs, **kwargs)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("example", choices=sorted(EXAMPLES))
    ap.add_argument("args", nargs="*", metavar="key=value", help="script arguments, e.g. X=x.mtx")
    ns = ap.parse_args(argv)
    for line in run(ns.example, key_values(ap, ns.args)):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
