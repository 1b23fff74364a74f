#!/usr/bin/env python3
"""NumPy/SciPy versions of the bench/workloads/*.dml scripts: the speed baseline.

Each function is the code a data scientist would naturally write for the DML script with
NumPy and SciPy: the same formulas in the same order, sparse inputs as scipy CSR matrices,
dense ones as ndarrays, `@` for matrix products, no hand-derived algebraic rewrites (where
the DML multiplies a sparse X elementwise by a dense matrix, the SciPy code uses
`X.multiply(...)`, which keeps the result sparse, as a SciPy user would). Reductions are
plain `np.sum` (this is a speed baseline; bench/reference.py is the accuracy oracle).

It prints the same lines as the DML script (numbers formatted as SystemDS prints them), and
one timing line on stderr:
    NUMPY_TIMES {"read": seconds, "compute": seconds}
where "read" is reading the Matrix Market inputs (scipy.io.mmread) and "compute" the rest,
both measured inside the process (interpreter start-up and imports are not included).

Usage:
  bench/.venv/bin/python bench/workloads_numpy.py WORKLOAD key=value ...
  e.g.  bench/.venv/bin/python bench/workloads_numpy.py als X=x.mtx U=u.mtx V=v.mtx iters=3
The key=value arguments are the DML script's $-parameters (as bench/systemds.sh takes them).
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import scipy.io
import scipy.sparse as sp

sys.path.insert(0, str(Path(__file__).resolve().parent))
from reference import cg, cg_step, fmt, key_values  # noqa: E402  (shared with the oracle)
import reference  # noqa: E402


def read_mm(path: str, sparse: bool):
    """Read a Matrix Market file as CSR (sparse=True) or a dense 2-D ndarray."""
    try:
        m = scipy.io.mmread(path)
    except (OSError, ValueError) as e:
        raise SystemExit(f"workloads_numpy.py: error: cannot read {path}: {e}")
    if sparse:
        return sp.csr_matrix(m, dtype=np.float64)
    return m.toarray() if sp.issparse(m) else np.asarray(m, dtype=np.float64)


# ----------------------------------------------------------------------------- kernels
def k_sqloss(X, U, V):
    return [f"sqloss {fmt(np.sum(np.square(X - U @ V.T)))}"]


def k_sqplus(X, U, V):
    return [f"sqplus {fmt(np.sum(np.square(X + U @ V.T)))}"]


def k_sddmm(X, U, V):
    return [f"sddmm {fmt(X.multiply(U @ V.T).sum())}"]


def k_grad(X, U, V):
    G = np.asarray((U @ V.T - X) @ V)
    return [f"grad sum {fmt(G.sum())} sumsq {fmt(np.sum(G ** 2))}"]


def k_sumwh(W, H):
    return [f"sumwh {fmt(np.sum(W @ H))}"]


def k_xtxv(X, v):
    z = X.T @ (X @ v)
    return [f"xtxv sum {fmt(z.sum())} sumsq {fmt(np.sum(z ** 2))}"]


def k_colsums(X, y):
    c = np.asarray(X.multiply(y).sum(axis=0))
    return [f"colsums sum {fmt(c.sum())} sumsq {fmt(np.sum(c ** 2))}"]


def k_rowsums(X, W):
    r = np.asarray((X @ W).sum(axis=1))
    return [f"rowsums sum {fmt(r.sum())} sumsq {fmt(np.sum(r ** 2))}"]


# ----------------------------------------------------------------------------- algorithms
def als(X, U, V, lam=0.1, iters=3, cgiters=3):
    out = [f"iter 0 loss {fmt(np.sum(np.square(X - U @ V.T)))}"]
    Xt = X.T.tocsr()
    for i in range(1, iters + 1):
        U = cg_step(X, U, V, lam, cgiters, np.sum)
        V = cg_step(Xt, V, U, lam, cgiters, np.sum)
        loss = np.sum(np.square(X - U @ V.T))
        obj = 0.5 * loss + 0.5 * lam * (np.sum(U ** 2) + np.sum(V ** 2))
        out.append(f"iter {i} loss {fmt(loss)} obj {fmt(obj)}")
    return out


def pnmf(X, W, H, iters=5):
    out = []
    for i in range(1, iters + 1):
        H = (H * (W.T @ X.multiply(1 / (W @ H)))) / W.sum(axis=0)[:, None]
        W = (W * (X.multiply(1 / (W @ H)) @ H.T)) / H.sum(axis=1)[None, :]
        WH = W @ H
        obj = WH.sum() - X.multiply(np.log(WH)).sum()
        out.append(f"iter {i} obj {fmt(obj)}")
    return out


def mlr(X, Y, lam=1.0, iters=4, cgiters=5):
    B = np.zeros((X.shape[1], Y.shape[1]))
    out = []
    for it in range(1, iters + 1):
        LT = X @ B
        LT = LT - LT.max(axis=1, keepdims=True)
        E = np.exp(LT)
        rs = E.sum(axis=1, keepdims=True)
        P = E / rs
        loss = np.sum(np.log(rs)) - np.sum(Y * LT) + 0.5 * lam * np.sum(B ** 2)
        out.append(f"iter {it} loss {fmt(loss)}")
        G = X.T @ (P - Y) + lam * B
        def hv(D):
            Q = P * (X @ D)
            return X.T @ (Q - P * Q.sum(axis=1, keepdims=True)) + lam * D

        B = B + cg(hv, -G, cgiters, np.zeros_like(B), np.sum)
    LT = X @ B
    acc = np.sum(LT.max(axis=1) == (Y * LT).sum(axis=1)) / X.shape[0]
    out.append(f"accuracy {fmt(float(acc))}")
    return out


def glm(X, y, lam=1.0, iters=4, cgiters=5):
    b = np.zeros((X.shape[1], 1))
    out = []
    for it in range(1, iters + 1):
        eta = X @ b
        mu = np.exp(eta)
        nll = np.sum(mu) - np.sum(y * eta) + 0.5 * lam * np.sum(b ** 2)
        out.append(f"iter {it} nll {fmt(nll)}")
        g = X.T @ (mu - y) + lam * b
        b = b + cg(lambda d: X.T @ (mu * (X @ d)) + lam * d, -g, cgiters, np.zeros_like(b), np.sum)
    eta = X @ b
    nll = np.sum(np.exp(eta)) - np.sum(y * eta) + 0.5 * lam * np.sum(b ** 2)
    out.append(f"final nll {fmt(nll)}")
    return out


def l2svm(X, y, lam=1.0, iters=10, newton=3):
    return reference.l2svm(X, y, lam, iters, newton, np.sum)


# name -> (function, [(input, is_sparse)], {python kwarg: (DML name, type)})
WORKLOADS = {
    "als": (als, [("X", True), ("U", False), ("V", False)],
            {"lam": ("lambda", float), "iters": ("iters", int), "cgiters": ("cgiters", int)}),
    "pnmf": (pnmf, [("X", True), ("W", False), ("H", False)], {"iters": ("iters", int)}),
    "mlr": (mlr, [("X", True), ("Y", False)],
            {"lam": ("lambda", float), "iters": ("iters", int), "cgiters": ("cgiters", int)}),
    "glm": (glm, [("X", True), ("y", False)],
            {"lam": ("lambda", float), "iters": ("iters", int), "cgiters": ("cgiters", int)}),
    "l2svm": (l2svm, [("X", True), ("y", False)],
              {"lam": ("lambda", float), "iters": ("iters", int), "newton": ("newton", int)}),
    "k_sqloss": (k_sqloss, [("X", True), ("U", False), ("V", False)], {}),
    "k_sqplus": (k_sqplus, [("X", True), ("U", False), ("V", False)], {}),
    "k_sddmm": (k_sddmm, [("X", True), ("U", False), ("V", False)], {}),
    "k_grad": (k_grad, [("X", True), ("U", False), ("V", False)], {}),
    "k_sumwh": (k_sumwh, [("W", False), ("H", False)], {}),
    "k_xtxv": (k_xtxv, [("X", True), ("v", False)], {}),
    "k_colsums": (k_colsums, [("X", True), ("y", False)], {}),
    "k_rowsums": (k_rowsums, [("X", True), ("W", False)], {}),
}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("workload", choices=sorted(WORKLOADS))
    ap.add_argument("args", nargs="*", metavar="key=value", help="script arguments, e.g. X=x.mtx iters=3")
    ns = ap.parse_args(argv)
    func, inputs, params = WORKLOADS[ns.workload]
    kv = key_values(ap, ns.args)
    missing = [name for name, _ in inputs if name not in kv]
    if missing:
        ap.error(f"{ns.workload} needs " + ", ".join(f"{m}=FILE" for m in missing))
    dml_names = {d: (py, typ) for py, (d, typ) in params.items()}
    unknown = set(kv) - {n for n, _ in inputs} - set(dml_names)
    if unknown:
        ap.error(f"unknown arguments for {ns.workload}: {', '.join(sorted(unknown))}")
    kwargs = {dml_names[k][0]: dml_names[k][1](v) for k, v in kv.items() if k in dml_names}

    t0 = time.perf_counter()
    mats = [read_mm(kv[name], is_sparse) for name, is_sparse in inputs]
    t1 = time.perf_counter()
    lines = func(*mats, **kwargs)
    t2 = time.perf_counter()
    for ln in lines:
        print(ln)
    sys.stdout.flush()
    print("NUMPY_TIMES " + json.dumps({"read": t1 - t0, "compute": t2 - t1}), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
