#!/usr/bin/env python3
"""Combine the kernel timings of NumPy/SciPy (bench/kernels.py) and spores (the
bench_kernels example) into one table, cross-check their results, write the combined JSON.

Inputs are JSON lines, one record per kernel and system, each with "kernel", "median_s",
"gflops" or "gbps", and the result checksum "sum", "abssum", "sumsq" (see kernels.py).
NumPy's `sddmm_rewrite` (the same scalar as `sddmm`, by the identity sum(U * (X @ V))) is
compared with spores' `sddmm`.

Checks: for every kernel both systems ran, |sum_a - sum_b| <= rtol * max(abssum),
|abssum_a - abssum_b| <= rtol * max(abssum), |sumsq_a - sumsq_b| <= rtol * max(sumsq)
(rtol 1e-9 by default). Any mismatch, or a kernel only one side reported, makes the exit
status 1 (after printing the table, where the row is marked).

Table columns: ratio = numpy median / spores median (> 1: spores faster); target: GEMM
ratio >= 1/1.3 (spores within 30% of OpenBLAS), every sparse kernel ratio >= 1.

Usage:
  bench/.venv/bin/python bench/kernels_table.py NUMPY.jsonl SPORES.jsonl \
      [--json bench/out/kernels.json] [--meta KEY=VALUE ...] [--rtol 1e-9]
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from reference import key_values  # noqa: E402

# numpy kernel -> spores kernel, in table order
PAIRS = [
    ("gemm", "gemm"),
    ("spmv", "spmv"),
    ("spmm", "spmm"),
    ("tspmv", "tspmv"),
    ("sddmm", "sddmm"),
    ("sddmm_rewrite", "sddmm"),
    ("wsloss", "wsloss"),
]
LABELS = {
    "gemm": "gemm `A %*% B` 2000²",
    "spmv": "spmv `X %*% x`",
    "spmm": "spmm `X %*% B10`",
    "tspmv": "tspmv `t(X) %*% y`",
    "sddmm": "sddmm `sum(X*(U%*%t(V)))` (numpy: gather)",
    "sddmm_rewrite": "sddmm (numpy: rewrite `sum(U*(X@V))`)",
    "wsloss": "wsloss `sum((X-U%*%t(V))^2)`",
}
GEMM_TARGET = 1 / 1.3


def load(path: Path, system: str) -> dict[str, dict]:
    if not path.exists():
        sys.exit(f"kernels_table.py: error: {path} does not exist")
    out = {}
    for no, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except ValueError as e:
            sys.exit(f"kernels_table.py: error: {path}:{no}: not JSON ({e}): {line[:120]!r}")
        if rec.get("system") != system:
            sys.exit(f"kernels_table.py: error: {path}:{no}: system {rec.get('system')!r}, "
                     f"expected {system!r}")
        for key in ("kernel", "median_s", "sum", "abssum", "sumsq"):
            if key not in rec:
                sys.exit(f"kernels_table.py: error: {path}:{no}: record has no {key!r}")
        out[rec["kernel"]] = rec
    return out


def agree(a: dict, b: dict, rtol: float) -> tuple[bool, float]:
    """Whether two checksums agree, and the largest scaled difference."""
    scale = max(abs(a["abssum"]), abs(b["abssum"]), 1e-300)
    sq = max(abs(a["sumsq"]), abs(b["sumsq"]), 1e-300)
    diffs = [abs(a["sum"] - b["sum"]) / scale, abs(a["abssum"] - b["abssum"]) / scale,
             abs(a["sumsq"] - b["sumsq"]) / sq]
    return max(diffs) <= rtol, max(diffs)


def figure(rec: dict) -> str:
    if "gflops" in rec:
        return f"{rec['gflops']:.1f} GFLOP/s"
    return f"{rec['gbps']:.2f} GB/s"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("numpy", type=Path, help="JSON lines from kernels.py")
    ap.add_argument("spores", type=Path, help="JSON lines from the bench_kernels example")
    ap.add_argument("--json", type=Path, help="write the combined JSON here")
    ap.add_argument("--meta", action="append", default=[], metavar="KEY=VALUE",
                    help="extra run metadata for the JSON (repeatable)")
    ap.add_argument("--rtol", type=float, default=1e-9, help="checksum tolerance (1e-9)")
    ns = ap.parse_args(argv)
    meta = key_values(ap, ns.meta, "--meta")

    np_recs, sp_recs = load(ns.numpy, "numpy"), load(ns.spores, "spores")
    rows, failures = [], []
    for nk, sk in PAIRS:
        a, b = np_recs.get(nk), sp_recs.get(sk)
        if a is None and b is None:
            continue
        if a is None or b is None:
            failures.append(f"{nk}: only {'spores' if a is None else 'numpy'} reported it")
            continue
        ok, diff = agree(a, b, ns.rtol)
        if not ok:
            failures.append(f"{nk}: results differ (max scaled difference {diff:.2e} > {ns.rtol:g}):"
                            f" numpy sum/abssum/sumsq {a['sum']!r} {a['abssum']!r} {a['sumsq']!r},"
                            f" spores {b['sum']!r} {b['abssum']!r} {b['sumsq']!r}")
        ratio = a["median_s"] / b["median_s"]
        target = GEMM_TARGET if nk == "gemm" else 1.0
        rows.append({
            "kernel": nk, "spores_kernel": sk, "numpy_median_s": a["median_s"],
            "spores_median_s": b["median_s"], "numpy_figure": figure(a), "spores_figure": figure(b),
            "ratio": ratio, "target": target, "meets_target": ratio >= target,
            "results_agree": ok, "max_scaled_diff": diff,
        })

    head = ("| kernel | numpy/scipy median | spores median | numpy/scipy | spores "
            "| ratio (np/spores) | target | met | results agree |")
    print(head)
    print("|" + " --- |" * 9)
    for r in rows:
        tgt = "≥ 0.77 (1/1.3)" if r["kernel"] == "gemm" else "≥ 1"
        print(f"| {LABELS[r['kernel']]} | {r['numpy_median_s'] * 1e3:.1f} ms "
              f"| {r['spores_median_s'] * 1e3:.1f} ms | {r['numpy_figure']} | {r['spores_figure']} "
              f"| {r['ratio']:.2f} | {tgt} | {'yes' if r['meets_target'] else '**no**'} "
              f"| {'yes' if r['results_agree'] else '**NO**'} ({r['max_scaled_diff']:.0e}) |")

    if ns.json:
        ns.json.parent.mkdir(parents=True, exist_ok=True)
        combined = {"meta": meta, "rtol": ns.rtol, "table": rows,
                    "numpy": list(np_recs.values()), "spores": list(sp_recs.values())}
        ns.json.write_text(json.dumps(combined, indent=1) + "\n")
        print(f"\nwrote {ns.json}", file=sys.stderr)
    if failures:
        for f in failures:
            print(f"kernels_table.py: FAIL: {f}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
