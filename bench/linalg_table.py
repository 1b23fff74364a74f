#!/usr/bin/env python3
"""Table of bench/linalg.sh's results: per op the median of each side's pooled times, the
ratio spores / NumPy (below 1: spores faster), and whether the check values agree
(relative 1e-6). Exits 1 on a mismatch.

Usage: python bench/linalg_table.py out/linalg.jsonl [--meta key=value ...]
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("results")
    p.add_argument("--meta", action="append", default=[])
    args = p.parse_args()
    times: dict[tuple[str, str], list[float]] = {}
    checks: dict[tuple[str, str], float] = {}
    with open(args.results) as f:
        for line in f:
            r = json.loads(line)
            key = (r["op"], r["system"])
            times.setdefault(key, []).extend(r["times"])
            checks[key] = r["check"]
    for m in args.meta:
        print(f"# {m}")
    print(f"| op | numpy/scipy median (s) | spores median (s) | spores / numpy | check |")
    print("|---|---:|---:|---:|---|")
    ok = True
    ops = sorted({op for op, _ in times}, key=lambda o: list(dict.fromkeys(
        ["gemm", "solve", "inv", "det", "cholesky", "eigen", "qr", "lu", "svd", o])).index(o))
    for op in ops:
        np_t, sp_t = times.get((op, "numpy")), times.get((op, "spores"))
        if not np_t or not sp_t:
            print(f"| {op} | missing | | | |")
            ok = False
            continue
        np_m, sp_m = statistics.median(np_t), statistics.median(sp_t)
        a, b = checks[(op, "numpy")], checks[(op, "spores")]
        same = abs(a - b) <= 1e-6 * max(abs(a), abs(b), 1e-300)
        ok &= same
        print(f"| {op} | {np_m:.4f} (n={len(np_t)}) | {sp_m:.4f} (n={len(sp_t)}) | "
              f"{sp_m / np_m:.2f} | {'ok' if same else f'DIFFERS: {a:.9e} vs {b:.9e}'} |")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
