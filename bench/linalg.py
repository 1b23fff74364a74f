#!/usr/bin/env python3
"""NumPy/SciPy side of bench/linalg.sh: dense linear algebra on the inputs spores reads.

Inputs (fixed seed, written once to bench/data/linalg/ as .npy):
  G_A, G_B  2000x2000 uniform(-1, 1)         gemm:      A @ B                         check: sum
  A         1000x1000 uniform(-0.5, 0.5)      solve:     solve(A, b), b = b.npy (n x 1)  check: sum(x)
                                              inv:       inv(A)                        check: sum
                                              qr:        qr(A, mode="raw") (Householder vectors
                                                         and R, like SystemDS's [H, R]) check: sum |diag R|
                                              svd:       svd(A, full_matrices=False) check: sum(s)
  D         I + A / (2 sqrt(n)) (a finite determinant)
                                              det:       det(D)                        check: det
                                              lu:        scipy.linalg.lu(D) -> P, L, U check: sum(U)
  S         A'A / n + I (positive definite)   cholesky:  cholesky(S) (lower)           check: sum(L)
  Y         (A + A') / 2 (symmetric)          eigen:     eigh(Y)                       check: sum |values|

Each op: one warm-up, then --runs timed runs; one JSON line per op with the times, their
median and the warm-up's check value (bench/linalg_table.py compares it with spores').

Usage:
  python bench/linalg.py --generate-only [--data DIR]
  python bench/linalg.py [--data DIR] [--runs 5] [--threads 2] [--only solve,inv]
"""
from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np
import scipy.linalg

OPS = ["gemm", "solve", "inv", "det", "cholesky", "eigen", "qr", "lu", "svd"]
HERE = os.path.dirname(os.path.abspath(__file__))


def generate(data: str) -> None:
    os.makedirs(data, exist_ok=True)
    if os.path.exists(os.path.join(data, "Y.npy")):
        return
    rng = np.random.default_rng(42)
    n = 1000
    a = rng.uniform(-0.5, 0.5, (n, n))
    arrays = {
        "G_A": rng.uniform(-1, 1, (2000, 2000)),
        "G_B": rng.uniform(-1, 1, (2000, 2000)),
        "A": a,
        "b": rng.uniform(-0.5, 0.5, (n, 1)),
        "D": np.eye(n) + a / (2 * np.sqrt(n)),
        "S": a.T @ a / n + np.eye(n),
        "Y": (a + a.T) / 2,
    }
    for name, arr in arrays.items():
        np.save(os.path.join(data, name + ".npy"), np.ascontiguousarray(arr))


def ops(data: str, wanted: list[str]):
    load = lambda name: np.load(os.path.join(data, name + ".npy"))  # noqa: E731
    for op in (o for o in OPS if o in wanted):
        if op == "gemm":
            a, b = load("G_A"), load("G_B")
            yield op, lambda: float((a @ b).sum())
        elif op == "solve":
            a, b = load("A"), load("b")
            yield op, lambda: float(np.linalg.solve(a, b).sum())
        elif op == "inv":
            a = load("A")
            yield op, lambda: float(np.linalg.inv(a).sum())
        elif op == "det":
            d = load("D")
            yield op, lambda: float(np.linalg.det(d))
        elif op == "cholesky":
            s = load("S")
            yield op, lambda: float(np.linalg.cholesky(s).sum())
        elif op == "eigen":
            y = load("Y")
            yield op, lambda: float(np.abs(np.linalg.eigh(y)[0]).sum())
        elif op == "qr":
            a = load("A")
            yield op, lambda: float(np.abs(np.diag(np.linalg.qr(a, mode="raw")[0].T)).sum())
        elif op == "lu":
            d = load("D")
            yield op, lambda: float(scipy.linalg.lu(d)[2].sum())
        elif op == "svd":
            a = load("A")
            yield op, lambda: float(np.linalg.svd(a, full_matrices=False)[1].sum())


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--data", default=os.path.join(HERE, "data", "linalg"))
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--only", default=",".join(OPS))
    p.add_argument("--generate-only", action="store_true")
    args = p.parse_args()
    generate(args.data)
    if args.generate_only:
        return
    wanted = args.only.split(",")
    unknown = [o for o in wanted if o not in OPS]
    if unknown:
        raise SystemExit(f"linalg.py: unknown op(s) {unknown}")
    for op, f in ops(args.data, wanted):
        check = f()
        times = []
        for _ in range(args.runs):
            t = time.perf_counter()
            f()
            times.append(time.perf_counter() - t)
        print(json.dumps({"op": op, "system": "numpy", "threads": args.threads,
                          "median_s": float(np.median(times)), "times": times,
                          "check": check}), flush=True)


if __name__ == "__main__":
    main()
