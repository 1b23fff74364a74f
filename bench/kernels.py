#!/usr/bin/env python3
"""Kernel micro-benchmarks for NumPy/SciPy, the Python-side baseline for spores' kernels.

Kernels (data generated once with a fixed seed and stored in bench/data/kernels/ so the Rust
side reads identical inputs: dense operands as .npy, the sparse matrix as .mtx via
scipy.io.mmwrite):
  gemm          C = A @ B, A and B dense 2000x2000                         -> GFLOP/s (2 n^3 / t)
  spmv          y = X @ x, X CSR 100000x50000 with 5,000,000 nnz, x dense    -> effective GB/s
  spmm          Y = X @ B, B dense 50000x10                                -> effective GB/s
  sddmm         s = sum(X * (U @ V.T)), U 100000x20, V 50000x20, evaluated only at X's non-zeros
                (row/column gather + row-wise dot products, in chunks of
                4096 non-zeros; the fastest plain NumPy formulation we found) -> effective GB/s
  sddmm_rewrite the same scalar as sum(U * (X @ V)), an algebraic rewrite (an SpMM), for
                reference: what a NumPy user who knows the identity gets   -> effective GB/s
  tspmv         z = X.T @ y, y dense 100000 (scipy's CSR transpose is a free CSC view) -> GB/s
  wsloss        s = sum((X - U @ V.T)^2). The naive dense formulation needs the 100000x50000
                dense U @ V.T (40 GB) and does not fit in memory, so only the sparse-aware one
                is timed: sum(X.data^2) - 2 sum(U * (X @ V)) + sum((U.T @ U) * (V.T @ V))
                (the SpMM rewrite of the cross term plus the Gram trick for ||U V'||^2;
                the fastest formulation we found)                          -> effective GB/s
Effective GB/s = bytes moved / median time, where bytes = CSR bytes (8 per value + 4 per column
index per nnz, + 8 per row pointer, rows+1 of them) + dense operands read + output written
(8 bytes per double); it is the minimum traffic, not a measured one.

Each kernel: one warm-up run, then --runs timed runs (default 10); median reported.
Output: one JSON object per line on stdout, e.g.
  {"kernel": "gemm", "system": "numpy", "median_s": 0.31, "gflops": 51.2, ...}
Every record carries a checksum of the warm-up result for the cross-check with spores
(bench/kernels.sh): "sum", "abssum" (sum of absolute values) and "sumsq" (sum of squares) of
the result's cells; for a scalar result, the value, its absolute value and its square.

Usage:
  bench/.venv/bin/python bench/kernels.py [--threads 2] [--runs 10] [--only spmv,spmm] [--regen]
  bench/.venv/bin/python bench/kernels.py --generate-only      # just make sure the data exists
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA_VERSION = 2
KERNELS = ["gemm", "spmv", "spmm", "tspmv", "sddmm", "sddmm_rewrite", "wsloss"]
DATA_FILES = ["gemm_A.npy", "gemm_B.npy", "X.mtx", "x.npy", "B10.npy", "U.npy", "V.npy", "y.npy"]

# Sizes (shared with the Rust side through the files in bench/data/kernels/).
GEMM_N = 2000
SP_ROWS, SP_COLS, SP_NNZ = 100_000, 50_000, 5_000_000
SPMM_K = 10
SDDMM_R = 20


def csr_bytes(rows: int, nnz: int) -> int:
    return nnz * (8 + 4) + (rows + 1) * 8


def generate(d: Path, seed: int) -> None:
    import numpy as np
    import scipy.io
    import scipy.sparse as sp

    rng = np.random.default_rng(seed)
    d.mkdir(parents=True, exist_ok=True)
    np.save(d / "gemm_A.npy", rng.uniform(-1, 1, (GEMM_N, GEMM_N)))
    np.save(d / "gemm_B.npy", rng.uniform(-1, 1, (GEMM_N, GEMM_N)))
    # exactly SP_NNZ distinct positions, uniformly spread
    flat = rng.choice(SP_ROWS * SP_COLS, size=SP_NNZ, replace=False)
    rows, cols = np.divmod(flat, SP_COLS)
    X = sp.coo_matrix((rng.uniform(0, 1, SP_NNZ), (rows, cols)), shape=(SP_ROWS, SP_COLS)).tocsr()
    X.sort_indices()
    assert X.nnz == SP_NNZ
    scipy.io.mmwrite(str(d / "X.mtx"), X, symmetry="general",
                     comment="spores kernel benchmark: CSR 100000x50000, 5e6 nnz")
    np.save(d / "x.npy", rng.uniform(-1, 1, SP_COLS))
    np.save(d / "B10.npy", rng.uniform(-1, 1, (SP_COLS, SPMM_K)))
    np.save(d / "U.npy", rng.uniform(-1, 1, (SP_ROWS, SDDMM_R)))
    np.save(d / "V.npy", rng.uniform(-1, 1, (SP_COLS, SDDMM_R)))
    # added in data version 2, drawn last so the files above keep their version-1 values
    np.save(d / "y.npy", rng.uniform(-1, 1, SP_ROWS))


def ensure_data(d: Path, seed: int, regen: bool) -> None:
    stamp = d / "STAMP.json"
    want = {"version": DATA_VERSION, "seed": seed}
    if not regen and stamp.exists() and all((d / f).exists() for f in DATA_FILES):
        try:
            if json.loads(stamp.read_text()) == want:
                return
        except ValueError:
            pass
    print(f"generating kernel inputs in {d} (seed {seed}); takes a minute ...", file=sys.stderr)
    t0 = time.perf_counter()
    generate(d, seed)
    stamp.write_text(json.dumps(want))
    print(f"  done in {time.perf_counter() - t0:.1f} s", file=sys.stderr)


def checksum(result) -> dict:
    """Order-insensitive fingerprint of a result: sum, sum of |cells| and sum of squares."""
    import numpy as np

    a = np.asarray(result, dtype=np.float64)
    if a.ndim == 0:
        v = float(a)
        return {"sum": v, "abssum": abs(v), "sumsq": v * v}
    # math.fsum-like accuracy is not needed: the comparison is relative 1e-9
    return {"sum": float(a.sum()), "abssum": float(np.abs(a).sum()), "sumsq": float((a * a).sum())}


def blas_info() -> str:
    """The BLAS NumPy was built against, e.g. 'scipy-openblas 0.3.29 (OpenBLAS 0.3.29 ... Haswell)'."""
    import numpy as np

    try:
        blas = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
        extra = blas.get("openblas configuration", "")
        return f"{blas.get('name', '?')} {blas.get('version', '?')}" + (f" ({extra})" if extra else "")
    except Exception as e:  # the structure of show_config is not a stable API
        return f"unknown ({type(e).__name__}: {e})"


def bench(fn, runs: int) -> tuple[float, object]:
    result = fn()  # warm-up
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), result


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--threads", type=int, default=2, help="BLAS threads (default 2)")
    ap.add_argument("--runs", type=int, default=10, help="timed runs per kernel (default 10)")
    ap.add_argument("--seed", type=int, default=7, help="data seed (default 7)")
    ap.add_argument("--data", type=Path, default=HERE / "data" / "kernels", help="data directory")
    ap.add_argument("--only", default="", help=f"comma-separated subset of {','.join(KERNELS)}")
    ap.add_argument("--regen", action="store_true", help="regenerate the data files")
    ap.add_argument("--generate-only", action="store_true",
                    help="only make sure the data files exist (generate them if missing), no timing")
    ap.add_argument("--chunk", type=int, default=4096,
                    help="non-zeros per SDDMM gather chunk (default 4096: gathered rows stay in L2)")
    ns = ap.parse_args(argv)
    only = [k for k in ns.only.split(",") if k] or KERNELS
    for k in only:
        if k not in KERNELS:
            ap.error(f"unknown kernel {k!r}; known: {', '.join(KERNELS)}")
    if ns.runs < 1 or ns.threads < 1:
        ap.error("--runs and --threads must be >= 1")

    # BLAS thread count must be fixed before NumPy loads its BLAS.
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(ns.threads)
    import numpy as np
    import scipy
    import scipy.io

    try:
        ensure_data(ns.data, ns.seed, ns.regen)
    except OSError as e:
        print(f"kernels.py: error: cannot write the data to {ns.data}: {e}", file=sys.stderr)
        return 1
    if ns.generate_only:
        return 0
    d = ns.data
    meta = {"system": "numpy", "numpy": np.__version__, "scipy": scipy.__version__,
            "blas": blas_info(), "threads": ns.threads, "runs": ns.runs}

    def emit(kernel: str, median_s: float, **fields) -> None:
        rec = {"kernel": kernel, "system": "numpy", "median_s": median_s}
        rec.update(fields)
        rec.update({k: v for k, v in meta.items() if k != "system"})
        rec["loadavg_1m"] = round(os.getloadavg()[0], 2)  # the machine is shared: context for noise
        print(json.dumps(rec), flush=True)

    if "gemm" in only:
        A, B = np.load(d / "gemm_A.npy"), np.load(d / "gemm_B.npy")
        t, C = bench(lambda: A @ B, ns.runs)
        emit("gemm", t, gflops=round(2 * GEMM_N ** 3 / t / 1e9, 3), n=GEMM_N, **checksum(C))
        del A, B

    sparse_wanted = [k for k in only if k != "gemm"]
    if not sparse_wanted:
        return 0
    X = scipy.io.mmread(str(d / "X.mtx")).tocsr()
    X.sort_indices()
    m, n = X.shape
    nnz = X.nnz
    xb = csr_bytes(m, nnz)
    shape = {"rows": m, "cols": n, "nnz": nnz, "index_dtype": str(X.indices.dtype)}

    if "spmv" in only:
        x = np.load(d / "x.npy")
        t, r = bench(lambda: X @ x, ns.runs)
        nbytes = xb + 8 * n + 8 * m
        emit("spmv", t, gbps=round(nbytes / t / 1e9, 3), bytes=nbytes, **shape, **checksum(r))

    if "spmm" in only:
        B = np.ascontiguousarray(np.load(d / "B10.npy"))
        k = B.shape[1]
        t, r = bench(lambda: X @ B, ns.runs)
        nbytes = xb + 8 * n * k + 8 * m * k
        emit("spmm", t, gbps=round(nbytes / t / 1e9, 3), bytes=nbytes, k=k, **shape, **checksum(r))

    if "tspmv" in only:
        y = np.load(d / "y.npy")
        # X.T of a CSR matrix is a CSC view (no copy); its matvec is scipy's csc_matvec
        t, r = bench(lambda: X.T @ y, ns.runs)
        nbytes = xb + 8 * m + 8 * n
        emit("tspmv", t, gbps=round(nbytes / t / 1e9, 3), bytes=nbytes, **shape, **checksum(r),
             method="X.T @ y (CSC view of X)")

    if any(k in only for k in ("sddmm", "sddmm_rewrite", "wsloss")):
        U, V = np.load(d / "U.npy"), np.load(d / "V.npy")
        r = U.shape[1]
        nbytes = xb + 8 * (m + n) * r + 8
        indptr, indices, data = X.indptr, X.indices, X.data
        chunk = ns.chunk

        def sddmm():
            # row index of every non-zero, then per chunk: gather U rows and V rows, row-wise dot
            row_of = np.repeat(np.arange(m, dtype=np.int32), np.diff(indptr))
            s = 0.0
            for lo in range(0, nnz, chunk):
                hi = min(lo + chunk, nnz)
                dots = np.einsum("ij,ij->i", U[row_of[lo:hi]], V[indices[lo:hi]])
                s += float(dots @ data[lo:hi])
            return s

        def sddmm_rewrite():
            return float(np.einsum("ij,ij->", U, X @ V))

        if "sddmm" in only:
            t, s1 = bench(sddmm, ns.runs)
            emit("sddmm", t, gbps=round(nbytes / t / 1e9, 3), bytes=nbytes, rank=r,
                 result=s1, method="chunked gather + einsum row dots", **shape, **checksum(s1))
        if "sddmm_rewrite" in only:
            t, s2 = bench(sddmm_rewrite, ns.runs)
            emit("sddmm_rewrite", t, gbps=round(nbytes / t / 1e9, 3), bytes=nbytes, rank=r,
                 result=s2, method="sum(U * (X @ V))", **shape, **checksum(s2))

        def wsloss():
            # The dense residual X - U @ V.T would be 100000 x 50000 doubles (40 GB), so the
            # naive ((X - U @ V.T)**2).sum() cannot run here; this expansion touches only X's
            # non-zeros and the factors:
            #   sum(X^2) - 2 sum(X * (U V')) + sum((U'U) * (V'V))
            data_sq = float(np.dot(data, data))
            cross = float(np.einsum("ij,ij->", U, X @ V))
            gram = float(np.einsum("ij,ij->", U.T @ U, V.T @ V))
            return data_sq - 2.0 * cross + gram

        if "wsloss" in only:
            t, s3 = bench(wsloss, ns.runs)
            emit("wsloss", t, gbps=round(nbytes / t / 1e9, 3), bytes=nbytes, rank=r, result=s3,
                 method="sum(X.data**2) - 2 sum(U * (X @ V)) + sum((U.T@U) * (V.T@V))",
                 **shape, **checksum(s3))
    return 0


if __name__ == "__main__":
    sys.exit(main())
