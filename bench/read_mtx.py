#!/usr/bin/env python3
"""Matrix Market reading, spores vs scipy.io.mmread, side by side (issue 4).

For each file and each run, times spores' reader (the `read_mtx` example of spores-exec,
one read per process, timed inside the process around `read_matrix`) and then
`scipy.io.mmread` in this process (SciPy >= 1.12 uses the multithreaded C++
fast_matrix_market library), alternating so both see the same machine load, and prints the
medians, the ratio and the load average. Files default to the large workload inputs.

Usage:
  cargo build --release -p spores-exec --example read_mtx
  bench/.venv/bin/python bench/read_mtx.py [--runs 5] [--bin target/release/examples/read_mtx] [FILE ...]
"""
from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

import scipy
import scipy.io

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DEFAULT_FILES = ["X.mtx", "U.mtx", "V.mtx", "C.mtx"]


def spores_read(binary: Path, path: Path) -> float:
    """One read by spores, in seconds (the example's own timing, without process start-up)."""
    out = subprocess.run([str(binary), "--runs", "1", str(path)], check=True,
                         capture_output=True, text=True).stdout
    m = re.search(r"median ([0-9.]+) s", out)
    if not m:
        raise SystemExit(f"read_mtx.py: error: unexpected output of {binary}: {out!r}")
    return float(m.group(1))


def scipy_read(path: Path) -> float:
    t = time.perf_counter()
    scipy.io.mmread(str(path))
    return time.perf_counter() - t


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="*", type=Path, help="Matrix Market files (default: large workload inputs)")
    ap.add_argument("--runs", type=int, default=5, help="runs per file and system (default 5)")
    ap.add_argument("--bin", type=Path, default=ROOT / "target" / "release" / "examples" / "read_mtx",
                    help="spores' read_mtx example binary")
    args = ap.parse_args()
    files = args.files or [HERE / "data" / "workloads" / "large" / f for f in DEFAULT_FILES]
    if not args.bin.exists():
        raise SystemExit(f"read_mtx.py: error: {args.bin} not found; run "
                         "`cargo build --release -p spores-exec --example read_mtx`")
    for f in files:
        if not f.exists():
            raise SystemExit(f"read_mtx.py: error: {f} not found")
    print(f"scipy {scipy.__version__}, {args.runs} runs each, load before {os.getloadavg()[0]:.2f}")
    print("| file | MB | spores median (s) | scipy.io.mmread median (s) | scipy/spores |")
    print("|---|---|---|---|---|")
    for f in files:
        ours, theirs = [], []
        for _ in range(args.runs):
            ours.append(spores_read(args.bin, f))
            theirs.append(scipy_read(f))
        a, b = statistics.median(ours), statistics.median(theirs)
        print(f"| {f.name} | {f.stat().st_size / 1e6:.1f} | {a:.4f} | {b:.4f} | {b / a:.2f}x |")
    print(f"load after {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
