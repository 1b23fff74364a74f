#!/usr/bin/env python3
"""Cross-check the examples/*.dml scripts: SystemDS 3.4 vs spores vs a NumPy reference.

For every example this
  1. generates its inputs once (fixed seed) as Matrix Market files under bench/data/
     (kept between runs; --regen rewrites them),
  2. runs the script on SystemDS through bench/systemds.sh with those files as -nvargs,
  3. runs it on spores (`target/release/spores run SCRIPT --arg X=FILE ...`), skipped with a
     message when that binary does not exist,
  4. computes the NumPy reference (bench/reference.py) on the same files,
  5. extracts every number from the printed lines and compares the outputs pairwise:
     numbers with relative tolerance --rtol (default 1e-9) and absolute --atol (default 0),
     the text around the numbers exactly, and each number's printed style (integer "3",
     plain double "3.0", scientific "1.0E7", NaN/Infinity) unless --ignore-style.
Outputs are saved under bench/out/. Exits 1 on any mismatch or failed run, 2 on setup errors.

Usage:
  bench/.venv/bin/python bench/compare_systemds.py                 # all examples
  bench/.venv/bin/python bench/compare_systemds.py als logreg -v   # some, showing outputs
  bench/.venv/bin/python bench/compare_systemds.py --rtol 1e-12 --spores target/debug/spores
"""
from __future__ import annotations

import argparse
import json
import math
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
import reference  # noqa: E402

DATA_VERSION = 1  # bump when the generated data changes

# ----------------------------------------------------------------------------- data
def write_mm(path: Path, A) -> None:
    """Write a matrix as Matrix Market coordinate/real/general, only non-zeros, 1-based,
    values in shortest round-trip notation (read back bit-exactly by Java and NumPy)."""
    import scipy.sparse as sp
    C = sp.coo_matrix(A)
    C.sum_duplicates()
    order = np.lexsort((C.col, C.row))  # row-major order, like SystemDS writes
    tmp = path.with_suffix(path.suffix + ".tmp")
    with open(tmp, "w") as f:
        f.write("%%MatrixMarket matrix coordinate real general\n")
        f.write(f"{C.shape[0]} {C.shape[1]} {C.nnz}\n")
        f.writelines(f"{r + 1} {c + 1} {float(v)!r}\n"
                     for r, c, v in zip(C.row[order], C.col[order], C.data[order]))
    tmp.replace(path)


DEFAULT_DIMS = (2000, 1000, 10, 10000, 20)  # m, n, rank r, samples N, features d


def generate(datadir: Path, seed: int, dims=DEFAULT_DIMS) -> dict[str, Path]:
    """Generate all example inputs (by default the same shapes and value ranges as the
    scripts' defaults; `dims` = (m, n, r, N, d) scales them)."""
    import scipy.sparse as sp
    rng = np.random.default_rng(seed)
    m, n, r, N, d = dims
    mats = {}
    # sparse ratings-like X: density 0.01, values uniform in [1, 5)
    mats["fact_X"] = sp.random(m, n, density=0.01, random_state=rng, format="coo",
                               data_rvs=lambda k: rng.uniform(1, 5, k))
    mats["fact_U"] = rng.uniform(0, 1, (m, r))
    mats["fact_V"] = rng.uniform(0, 1, (n, r))
    mats["pnmf_W"] = rng.uniform(0.1, 1, (m, r))
    mats["pnmf_H"] = rng.uniform(0.1, 1, (r, n))
    X = rng.uniform(-1, 1, (N, d))
    w_true = rng.uniform(-1, 1, (d, 1))
    mats["cls_X"] = X
    mats["logreg_y"] = ((X @ w_true) > 0).astype(np.float64)
    mats["l2svm_y"] = 2 * mats["logreg_y"] - 1
    datadir.mkdir(parents=True, exist_ok=True)
    paths = {}
    for name, A in mats.items():
        p = datadir / f"{name}.mtx"
        write_mm(p, A)
        paths[name] = p
    return paths


def ensure_data(datadir: Path, seed: int, regen: bool) -> dict[str, Path]:
    stamp = datadir / "STAMP.json"
    want = {"version": DATA_VERSION, "seed": seed}
    names = ["fact_X", "fact_U", "fact_V", "pnmf_W", "pnmf_H", "cls_X", "logreg_y", "l2svm_y"]
    paths = {k: datadir / f"{k}.mtx" for k in names}
    if not regen and stamp.exists() and all(p.exists() for p in paths.values()):
        try:
            if json.loads(stamp.read_text()) == want:
                return paths
        except ValueError:
            pass
    print(f"generating inputs in {datadir} (seed {seed}) ...", file=sys.stderr)
    paths = generate(datadir, seed)
    stamp.write_text(json.dumps(want))
    return paths


def example_args(name: str, d: dict[str, Path]) -> dict[str, str]:
    table = {
        "loss": {"X": "fact_X", "U": "fact_U", "V": "fact_V"},
        "als": {"X": "fact_X", "U": "fact_U", "V": "fact_V"},
        "pnmf": {"X": "fact_X", "W": "pnmf_W", "H": "pnmf_H"},
        "logreg": {"X": "cls_X", "y": "logreg_y"},
        "l2svm": {"X": "cls_X", "y": "l2svm_y"},
    }[name]
    return {k: str(d[v]) for k, v in table.items()}


# ----------------------------------------------------------------------------- numbers
NUM_RE = re.compile(r"-?Infinity|NaN|[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")


def style(tok: str) -> str:
    if tok in ("NaN", "Infinity", "-Infinity"):
        return tok
    if "e" in tok or "E" in tok:
        return "sci"
    return "double" if "." in tok else "int"


def parse_output(lines: list[str]):
    """-> (skeleton lines with numbers replaced by '#', list of number tokens)."""
    skel, toks = [], []
    for ln in lines:
        toks.extend(NUM_RE.findall(ln))
        skel.append(NUM_RE.sub("#", ln))
    return skel, toks


def compare(a: list[str], b: list[str], rtol: float, atol: float, check_style: bool):
    """Compare two outputs. -> (ok, max relative difference, list of problems)."""
    sa, ta = parse_output(a)
    sb, tb = parse_output(b)
    problems = []
    if sa != sb:
        for i, (x, y) in enumerate(zip(sa, sb)):
            if x != y:
                problems.append(f"line {i + 1} text differs: {a[i]!r} vs {b[i]!r}")
                break
        else:
            problems.append(f"line counts differ: {len(a)} vs {len(b)}")
    if len(ta) != len(tb):
        problems.append(f"number counts differ: {len(ta)} vs {len(tb)}")
    maxrel = 0.0
    for i, (x, y) in enumerate(zip(ta, tb)):
        fx, fy = float(x), float(y)
        if math.isnan(fx) or math.isnan(fy):
            good = math.isnan(fx) and math.isnan(fy)
            rel = 0.0 if good else math.inf
        elif fx == fy:
            good, rel = True, 0.0
        else:
            diff = abs(fx - fy)
            scale = max(abs(fx), abs(fy))
            rel = diff / scale if scale > 0 else math.inf
            good = diff <= max(rtol * scale, atol)
        maxrel = max(maxrel, rel)
        if not good:
            problems.append(f"number #{i + 1} differs: {x} vs {y} (rel {rel:.3g})")
        elif check_style and style(x) != style(y):
            problems.append(f"number #{i + 1} printed differently: {x} vs {y}")
    return not problems, maxrel, problems


# ----------------------------------------------------------------------------- runners
def run_cmd(cmd: list[str], timeout: float):
    t0 = time.perf_counter()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=ROOT)
    except subprocess.TimeoutExpired:
        return None, f"timed out after {timeout:.0f} s", time.perf_counter() - t0
    dt = time.perf_counter() - t0
    if p.returncode != 0:
        return None, f"exit {p.returncode}: {p.stderr.strip()[-2000:]}", dt
    if p.stderr.strip():
        # SystemDS warnings or spores diagnostics: shown, but not fatal
        print(f"  stderr of {' '.join(cmd[:3])}...:\n    " + p.stderr.strip().replace("\n", "\n    "),
              file=sys.stderr)
    return [ln for ln in p.stdout.splitlines() if ln.strip() != ""], None, dt


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("examples", nargs="*", help=f"subset of: {', '.join(reference.EXAMPLES)}")
    ap.add_argument("--rtol", type=float, default=1e-9, help="relative tolerance (default 1e-9)")
    ap.add_argument("--atol", type=float, default=0.0, help="absolute tolerance (default 0)")
    ap.add_argument("--ignore-style", action="store_true",
                    help="do not require numbers to be printed in the same style (3 vs 3.0 vs 3.0E0)")
    ap.add_argument("--seed", type=int, default=42, help="seed of the generated inputs (default 42)")
    ap.add_argument("--data", type=Path, default=HERE / "data", help="input directory (default bench/data)")
    ap.add_argument("--out", type=Path, default=HERE / "out", help="where outputs are saved (default bench/out)")
    ap.add_argument("--regen", action="store_true", help="regenerate the input files")
    ap.add_argument("--spores", type=Path, default=ROOT / "target" / "release" / "spores",
                    help="spores binary (default target/release/spores)")
    ap.add_argument("--no-systemds", action="store_true", help="skip SystemDS (compare spores to the reference)")
    ap.add_argument("--timeout", type=float, default=600, help="per-run timeout in seconds")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every output")
    ns = ap.parse_args(argv)

    names = ns.examples or list(reference.EXAMPLES)
    for n in names:
        if n not in reference.EXAMPLES:
            ap.error(f"unknown example {n!r}; known: {', '.join(reference.EXAMPLES)}")
        if not (ROOT / "examples" / f"{n}.dml").exists():
            print(f"error: examples/{n}.dml not found", file=sys.stderr)
            return 2
    if not ns.no_systemds and not (HERE / ".venv" / "bin" / "python").exists():
        print("error: bench/.venv missing; run: bash bench/setup.sh", file=sys.stderr)
        return 2
    have_spores = ns.spores.is_file() and os.access(ns.spores, os.X_OK)
    if not have_spores:
        print(f"note: spores binary {ns.spores} not found; skipping spores "
              f"(build it with: cargo build --release)", file=sys.stderr)

    data = ensure_data(ns.data.resolve(), ns.seed, ns.regen)
    ns.out.mkdir(parents=True, exist_ok=True)

    rows, failed = [], False
    for name in names:
        script = f"examples/{name}.dml"
        args = example_args(name, data)
        outs, times = {}, {}

        t0 = time.perf_counter()
        outs["reference"] = reference.run(name, dict(args))
        times["reference"] = time.perf_counter() - t0

        commands = []
        if not ns.no_systemds:
            commands.append(("systemds", "SystemDS",
                             ["bash", str(HERE / "systemds.sh"), script] + [f"{k}={v}" for k, v in args.items()]))
        if have_spores:
            commands.append(("spores", "spores",
                             [str(ns.spores), "run", script] + [x for k, v in args.items() for x in ("--arg", f"{k}={v}")]))
        for sysname, label, cmd in commands:
            lines, err, dt = run_cmd(cmd, ns.timeout)
            times[sysname] = dt
            if err:
                rows.append((name, sysname, "-", "-", "FAILED: " + err.splitlines()[0][:80]))
                print(f"[{name}] {label} failed: {err}", file=sys.stderr)
                failed = True
            else:
                outs[sysname] = lines

        for sysname, lines in outs.items():
            (ns.out / f"{name}.{sysname}.txt").write_text("\n".join(lines) + "\n")
            if ns.verbose:
                print(f"--- {name} / {sysname} ({times[sysname]:.2f} s)")
                for ln in lines:
                    print("    " + ln)

        pairs = [("systemds", "reference"), ("spores", "systemds"), ("spores", "reference")]
        for a, b in pairs:
            if a not in outs or b not in outs:
                continue
            ok, maxrel, problems = compare(outs[a], outs[b], ns.rtol, ns.atol, not ns.ignore_style)
            nnum = len(parse_output(outs[a])[1])
            rows.append((name, f"{a} vs {b}", str(nnum), f"{maxrel:.2e}", "ok" if ok else "MISMATCH"))
            if not ok:
                failed = True
                for p in problems[:10]:
                    print(f"[{name}] {a} vs {b}: {p}", file=sys.stderr)
        rows.append((name, "times", "", "", "  ".join(f"{k} {v:.2f}s" for k, v in times.items())))

    head = ("example", "comparison", "numbers", "max rel diff", "status")
    widths = [max(len(str(r[i])) for r in rows + [head]) for i in range(5)]
    line = lambda r: "  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip()
    print(line(head))
    print("  ".join("-" * w for w in widths))
    for r in rows:
        print(line(r))
    print(f"\nrtol {ns.rtol:g}, atol {ns.atol:g}; outputs in {ns.out}")
    if not have_spores:
        print("spores: skipped (binary not found)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
