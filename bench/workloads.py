#!/usr/bin/env python3
"""Side-by-side benchmark of the SPORES workloads (issue 4): spores vs SystemDS vs NumPy/SciPy.

For each size it generates the inputs once (seeded NumPy, Matrix Market coordinate files
under bench/data/workloads/SIZE/, reused while the generator version and seed match), then
for each workload in bench/workloads/*.dml runs, interleaved run by run so every system sees
the same machine load:
  * spores          target/release/spores run W.dml --arg ... --stats
  * spores --no-opt the same without the SPORES optimizer
  * SystemDS 3.4    bash bench/systemds.sh W.dml ... (default optimization level, -exec
                    singlenode, SYSTEMDS_STATS=1)
  * NumPy/SciPy     bench/workloads_numpy.py W ... (the natural NumPy/SciPy code)
and records per run
  * wall: end-to-end wall time of the process (JVM / interpreter start-up, compilation,
    reading the inputs, computing, printing),
  * exec: the system's own execution time, which includes reading the inputs: spores' and
    SystemDS's "Total execution time" from --stats / -stats (SystemDS: without JVM start-up
    and compilation); for NumPy the in-process time after the imports (read + compute),
  * read: the part of exec spent reading the inputs (spores: the "read" operator of its heavy
    hitters; NumPy: its mmread time; SystemDS reads lazily, inside the first instruction that
    acquires a matrix, so its buffer pool's acquire-read time "Cache times (ACQr" is used,
    which is the file reads plus cheap in-memory acquires), and compute = exec - read.
The printed numbers of all systems are compared (relative tolerance --rtol; the text around
the numbers must match); any mismatch or failed run makes the exit status 1.

Prints a table of medians (wall and exec per system, the ratios SystemDS/spores,
NumPy/spores and no-opt/opt on exec time) and writes all runs to bench/out/workloads.json,
the table to bench/out/workloads.md, each system's output and -stats to bench/out/workloads/.

Usage:
  bash bench/workloads.sh                                   # everything (setup, build, run)
  bench/.venv/bin/python bench/workloads.py --only pnmf,als --sizes small
  bench/.venv/bin/python bench/workloads.py --systems spores,systemds --runs 1
"""
from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
from compare_systemds import compare, parse_output, write_mm  # noqa: E402

DATA_VERSION = 1  # bump when the generated data changes

# ----------------------------------------------------------------------------- sizes
# fact: the factorization / kernel data (X m x n sparse, density dens, values U[1, 5); rank r)
# cls:  the classification / regression data (X N x d sparse, density cdens, values U[0, 1))
SIZES = {
    "small": dict(m=2_000, n=1_000, dens=0.01, r=10, N=10_000, d=100, cdens=0.05, K=3, runs=5),
    # 1M non-zeros each; density 1% is Netflix-prize-like (1.2%)
    "large": dict(m=20_000, n=5_000, dens=0.01, r=20, N=100_000, d=1_000, cdens=0.01, K=3, runs=3),
}

# workload -> (DML script, {DML argument: data file}, {DML argument: value})
WORKLOADS = {
    "als": ("als.dml", {"X": "X", "U": "U", "V": "V"}, {"iters": 3, "cgiters": 3}),
    "pnmf": ("pnmf.dml", {"X": "X", "W": "W", "H": "H"}, {"iters": 5}),
    "mlr": ("mlr.dml", {"X": "C", "Y": "C_Y"}, {"iters": 4, "cgiters": 5}),
    "glm": ("glm.dml", {"X": "C", "y": "C_count"}, {"iters": 4, "cgiters": 5}),
    "l2svm": ("l2svm.dml", {"X": "C", "y": "C_pm1"}, {"iters": 10, "newton": 3}),
    "k_sqloss": ("k_sqloss.dml", {"X": "X", "U": "U", "V": "V"}, {}),
    "k_sqplus": ("k_sqplus.dml", {"X": "X", "U": "U", "V": "V"}, {}),
    "k_sddmm": ("k_sddmm.dml", {"X": "X", "U": "U", "V": "V"}, {}),
    "k_grad": ("k_grad.dml", {"X": "X", "U": "U", "V": "V"}, {}),
    "k_sumwh": ("k_sumwh.dml", {"W": "W", "H": "H"}, {}),
    "k_xtxv": ("k_xtxv.dml", {"X": "X", "v": "v"}, {}),
    "k_colsums": ("k_colsums.dml", {"X": "X", "y": "y"}, {}),
    "k_rowsums": ("k_rowsums.dml", {"X": "X", "W": "V"}, {}),
}
# what each kernel computes, for the table
LABELS = {
    "als": "ALS-CG", "pnmf": "PNMF", "mlr": "MLR", "glm": "GLM (Poisson)", "l2svm": "L2-SVM",
    "k_sqloss": "sum((X-U%*%t(V))^2)", "k_sqplus": "sum((X+U%*%t(V))^2)",
    "k_sddmm": "sum(X*(U%*%t(V)))", "k_grad": "(U%*%t(V)-X)%*%V", "k_sumwh": "sum(W%*%H)",
    "k_xtxv": "t(X)%*%(X%*%v)", "k_colsums": "colSums(X*y)", "k_rowsums": "rowSums(X%*%W)",
}
SYSTEMS = ["spores", "noopt", "systemds", "numpy"]
SYSTEM_NAMES = {"spores": "spores", "noopt": "spores --no-opt", "systemds": "SystemDS", "numpy": "NumPy/SciPy"}


def generate(datadir: Path, size: str, seed: int) -> None:
    """Write all inputs of one size as Matrix Market files into datadir."""
    import scipy.sparse as sp
    p = SIZES[size]
    rng = np.random.default_rng(seed)
    m, n, r = p["m"], p["n"], p["r"]
    N, d, K = p["N"], p["d"], p["K"]
    mats = {}
    mats["X"] = sp.random(m, n, density=p["dens"], random_state=rng, format="coo",
                          data_rvs=lambda k: rng.uniform(1, 5, k))
    mats["U"] = rng.uniform(0, 1, (m, r))
    mats["V"] = rng.uniform(0, 1, (n, r))
    mats["W"] = rng.uniform(0.1, 1, (m, r))
    mats["H"] = rng.uniform(0.1, 1, (r, n))
    mats["v"] = rng.uniform(-1, 1, (n, 1))
    mats["y"] = rng.uniform(-1, 1, (m, 1))
    C = sp.random(N, d, density=p["cdens"], random_state=rng, format="csr",
                  data_rvs=lambda k: rng.uniform(0, 1, k))
    mats["C"] = C
    w_true = rng.uniform(-1, 1, (d, 1))
    mats["C_pm1"] = np.where(C @ w_true > 0, 1.0, -1.0)
    B_true = rng.uniform(-1, 1, (d, K))
    cls = np.argmax(C @ B_true + 0.5 * rng.gumbel(size=(N, K)), axis=1)
    Y = np.zeros((N, K))
    Y[np.arange(N), cls] = 1.0
    mats["C_Y"] = Y
    b_true = rng.uniform(-0.5, 0.5, (d, 1))
    mats["C_count"] = rng.poisson(np.exp(C @ b_true)).astype(np.float64)
    datadir.mkdir(parents=True, exist_ok=True)
    for name, A in mats.items():
        write_mm(datadir / f"{name}.mtx", A)


def ensure_data(datadir: Path, size: str, seed: int, regen: bool) -> float:
    """Generate the inputs of `size` unless up to date; returns the seconds spent."""
    stamp = datadir / "STAMP.json"
    want = {"version": DATA_VERSION, "seed": seed, "size": SIZES[size]}
    if not regen and stamp.exists():
        try:
            if json.loads(stamp.read_text()) == want:
                return 0.0
        except ValueError:
            pass
    print(f"workloads: generating {size} inputs in {datadir} (seed {seed}) ...", file=sys.stderr, flush=True)
    t0 = time.perf_counter()
    generate(datadir, size, seed)
    stamp.write_text(json.dumps(want))
    dt = time.perf_counter() - t0
    print(f"workloads: generated {size} inputs in {dt:.1f} s", file=sys.stderr, flush=True)
    return dt


# ----------------------------------------------------------------------------- runs
@dataclass
class Run:
    ok: bool
    wall: float
    exec: float | None = None
    read: float | None = None
    lines: list = field(default_factory=list)
    stats: str = ""
    error: str = ""


SPORES_STAT = re.compile(r"^Total execution time:\s*([0-9.]+) sec", re.M)
SPORES_READ = re.compile(r"^\s*\d+\s+read\s+([0-9.]+)\s+\d+\s*$", re.M)
SYSDS_STAT = re.compile(r"^Total execution time:\s*([0-9.]+) sec", re.M)
SYSDS_ACQR = re.compile(r"^Cache times \(ACQr/m, RLS, EXP\):\s*([0-9.]+)/", re.M)


def barrier_script(wl: str, outdir: Path) -> Path:
    """Diagnostic variant of a kernel script: the statements after the reads wrapped in
    `for (rep in 1:1) { ... }`, i.e. in a block of their own (written to outdir)."""
    src = (HERE / "workloads" / WORKLOADS[wl][0]).read_text().splitlines()
    last_read = max(i for i, ln in enumerate(src) if re.match(r"^\w+ = read\(", ln))
    body = src[last_read + 1:]
    text = "\n".join(src[:last_read + 1] + ["for (rep in 1:1) {"] + body + ["}"]) + "\n"
    outdir.mkdir(parents=True, exist_ok=True)
    path = outdir / WORKLOADS[wl][0]
    path.write_text(text)
    return path


def run_one(system: str, wl: str, args: dict, spores_bin: Path, timeout: float, env: dict,
            script: Path) -> Run:
    script = str(script)
    kv = [f"{k}={v}" for k, v in args.items()]
    if system in ("spores", "noopt"):
        cmd = [str(spores_bin), "run", script, "--stats"] + (["--no-opt"] if system == "noopt" else [])
        for a in kv:
            cmd += ["--arg", a]
    elif system == "systemds":
        cmd = ["bash", str(HERE / "systemds.sh"), script] + kv
    else:
        cmd = [str(HERE / ".venv" / "bin" / "python"), str(HERE / "workloads_numpy.py"), wl] + kv
    t0 = time.perf_counter()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=ROOT, env=env)
    except subprocess.TimeoutExpired:
        return Run(False, time.perf_counter() - t0, error=f"timed out after {timeout:.0f} s")
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        return Run(False, wall, error=f"exit {p.returncode}: {(p.stderr or p.stdout).strip()[-3000:]}")
    out = p.stdout
    run = Run(True, wall)
    if system in ("spores", "noopt", "systemds"):
        if system == "systemds":
            idx = out.find("SystemDS Statistics:")
            if idx < 0:
                return Run(False, wall, error="no 'SystemDS Statistics' block in the output")
            stats, out = out[idx:], out[:idx]
            total_re, read_re, flag = SYSDS_STAT, SYSDS_ACQR, "SystemDS -stats"
        else:
            stats, total_re, read_re, flag = p.stderr, SPORES_STAT, SPORES_READ, "spores --stats"
        m = total_re.search(stats)
        if not m:
            return Run(False, wall, error=f"no 'Total execution time' in {flag} output")
        run.exec = float(m.group(1))
        mr = read_re.search(stats)
        run.read = float(mr.group(1)) if mr else None
        run.stats = stats
        if system == "systemds" and p.stderr.strip():
            run.stats += "\n--- stderr ---\n" + p.stderr
    else:
        m = re.search(r"^NUMPY_TIMES (\{.*\})$", p.stderr, re.M)
        if not m:
            return Run(False, wall, error="no NUMPY_TIMES line on stderr")
        t = json.loads(m.group(1))
        run.exec = t["read"] + t["compute"]
        run.read = t["read"]
    run.lines = [ln for ln in out.splitlines() if ln.strip()]
    return run


def median(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


# ----------------------------------------------------------------------------- table
def fmt_s(x):
    if x is None:
        return "-"
    if x >= 100:
        return f"{x:.0f}"
    if x >= 10:
        return f"{x:.1f}"
    if x >= 0.1:
        return f"{x:.2f}"
    return f"{x:.3f}"


def fmt_ratio(a, b):
    if a is None or b is None or b <= 0:
        return "-"
    r = a / b
    return f"{r:.0f}x" if r >= 100 else (f"{r:.1f}x" if r >= 10 else f"{r:.2f}x")


def table(rows: list[dict], systems: list[str]) -> str:
    head = ["workload", "size"]
    for s in systems:
        head.append(f"{SYSTEM_NAMES[s]} exec (wall)")
    ratio_heads = []
    if "spores" in systems:
        for s, name in (("systemds", "SystemDS/spores"), ("numpy", "NumPy/spores"), ("noopt", "no-opt/opt")):
            if s in systems:
                ratio_heads.append((s, name))
    head += [n for _, n in ratio_heads] + ["agree (max rel diff)"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for row in rows:
        cells = [f"{LABELS[row['workload']]}", row["size"]]
        med = row["median"]
        for s in systems:
            if s not in med:
                cells.append("-")
            elif med[s] is None:
                cells.append("FAILED")
            else:
                cells.append(f"{fmt_s(med[s]['exec'])} s ({fmt_s(med[s]['wall'])})")
        for s, _ in ratio_heads:
            a = med.get(s)
            b = med.get("spores")
            cell = fmt_ratio(a and a["exec"], b and b["exec"])
            if s != "noopt" and a and b and a.get("compute") is not None and b.get("compute") is not None:
                cell += f" ({fmt_ratio(a['compute'], b['compute'])})"
            cells.append(cell)
        cells.append(row["agree"])
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


# ----------------------------------------------------------------------------- main
def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", default=",".join(WORKLOADS),
                    help="comma-separated workloads (default: all): " + ",".join(WORKLOADS))
    ap.add_argument("--sizes", default="small,large", help="comma-separated sizes: small,large (default both)")
    ap.add_argument("--systems", default=",".join(SYSTEMS),
                    help="comma-separated systems (default all): " + ",".join(SYSTEMS))
    ap.add_argument("--runs", type=int, default=None,
                    help="timed runs per system (default: small 5, large 3); the median is reported")
    ap.add_argument("--rtol", type=float, default=1e-8,
                    help="relative tolerance when comparing printed numbers (default 1e-8)")
    ap.add_argument("--seed", type=int, default=4, help="data seed (default 4; small uses seed, large seed + 1)")
    ap.add_argument("--regen", action="store_true", help="regenerate the input files")
    ap.add_argument("--data", type=Path, default=HERE / "data" / "workloads",
                    help="input directory (default bench/data/workloads)")
    ap.add_argument("--out", type=Path, default=HERE / "out", help="output directory (default bench/out)")
    ap.add_argument("--spores", type=Path, default=ROOT / "target" / "release" / "spores",
                    help="spores binary (default target/release/spores)")
    ap.add_argument("--timeout", type=float, default=900, help="per-run timeout in seconds (default 900)")
    ap.add_argument("--read-barrier", action="store_true",
                    help="diagnostic: run the k_* kernels with their computation in a block of its own "
                         "(wrapped in `for (rep in 1:1) {...}` after the reads; scripts written to "
                         "OUT/workloads/barrier/); spores optimizes only blocks whose inputs' shapes it knows")
    ns = ap.parse_args(argv)

    wls = [w for w in ns.only.split(",") if w]
    for w in wls:
        if w not in WORKLOADS:
            ap.error(f"unknown workload {w!r}; known: {', '.join(WORKLOADS)}")
    sizes = [s for s in ns.sizes.split(",") if s]
    for s in sizes:
        if s not in SIZES:
            ap.error(f"unknown size {s!r}; known: {', '.join(SIZES)}")
    systems = [s for s in ns.systems.split(",") if s]
    for s in systems:
        if s not in SYSTEMS:
            ap.error(f"unknown system {s!r}; known: {', '.join(SYSTEMS)}")
    if ns.runs is not None and ns.runs < 1:
        ap.error("--runs must be >= 1")
    if ({"spores", "noopt"} & set(systems)) and not os.access(ns.spores, os.X_OK):
        print(f"error: spores binary {ns.spores} not found; build it: cargo build --release", file=sys.stderr)
        return 2
    if ({"systemds", "numpy"} & set(systems)) and not (HERE / ".venv" / "bin" / "python").exists():
        print("error: bench/.venv missing; run: bash bench/setup.sh", file=sys.stderr)
        return 2

    started = time.perf_counter()
    load_before = open("/proc/loadavg").read().split()[:3]
    env = dict(os.environ)
    env["SYSTEMDS_STATS"] = "1"
    outdir = ns.out / "workloads"
    outdir.mkdir(parents=True, exist_ok=True)

    rows, all_runs, failed = [], [], False
    for size in sizes:
        datadir = (ns.data / size).resolve()
        ensure_data(datadir, size, ns.seed + list(SIZES).index(size), ns.regen)
        runs = ns.runs or SIZES[size]["runs"]
        for wl in wls:
            script, files, params = WORKLOADS[wl]
            args = {k: str(datadir / f"{v}.mtx") for k, v in files.items()}
            args.update({k: str(v) for k, v in params.items()})
            script_path = HERE / "workloads" / script
            if ns.read_barrier and wl.startswith("k_"):
                script_path = barrier_script(wl, outdir / "barrier")
            load = os.getloadavg()[0]
            print(f"workloads: {size} {wl}: {runs} runs x {','.join(systems)} (load {load:.2f})",
                  file=sys.stderr, flush=True)
            res = {s: [] for s in systems}
            for i in range(runs):
                for s in systems:
                    r = run_one(s, wl, args, ns.spores, ns.timeout, env, script_path)
                    res[s].append(r)
                    if not r.ok:
                        print(f"workloads: {size} {wl} {s} run {i + 1} FAILED: {r.error}", file=sys.stderr)
            # outputs and stats of the last successful run of each system
            lines = {}
            for s in systems:
                good = [r for r in res[s] if r.ok]
                if good:
                    lines[s] = good[-1].lines
                    (outdir / f"{wl}.{size}.{s}.txt").write_text(
                        "\n".join(good[-1].lines) + "\n" + ("\n" + good[-1].stats if good[-1].stats else ""))
                if len(good) < len(res[s]):
                    failed = True
            # agreement: every system against the first one that ran, every run against its last
            maxrel, problems = 0.0, []
            ref = next((s for s in systems if s in lines), None)
            for s in systems:
                for r in res[s]:
                    if not r.ok or ref is None:
                        continue
                    ok, rel, probs = compare(lines[ref], r.lines, ns.rtol, 0.0, False)
                    maxrel = max(maxrel, rel)
                    if not ok:
                        problems += [f"{s} vs {ref}: {p}" for p in probs[:3]]
            if problems:
                failed = True
                for p in problems[:6]:
                    print(f"workloads: {size} {wl} MISMATCH {p}", file=sys.stderr)
            nnum = len(parse_output(lines[ref])[1]) if ref else 0
            agree = ("MISMATCH" if problems else "yes") + f" ({nnum} numbers, {maxrel:.0e})"
            med = {}
            for s in systems:
                good = [r for r in res[s] if r.ok]
                med[s] = None if not good else {
                    "exec": median([r.exec for r in good]), "wall": median([r.wall for r in good]),
                    "read": median([r.read for r in good]),
                    "compute": median([r.exec - r.read for r in good if r.read is not None])}
            row = {"workload": wl, "size": size, "median": med, "agree": agree, "load": load,
                   "runs": runs, "problems": problems}
            rows.append(row)
            all_runs.append({**row, "runs_detail": {
                s: [{"ok": r.ok, "wall": r.wall, "exec": r.exec, "read": r.read, "error": r.error}
                    for r in res[s]] for s in systems}})
            summary = "  ".join(f"{s} {fmt_s(med[s]['exec']) if med[s] else 'FAILED'}" for s in systems)
            print(f"workloads: {size} {wl}: exec medians {summary}; agree {agree}", file=sys.stderr, flush=True)

    total = time.perf_counter() - started
    load_after = open("/proc/loadavg").read().split()[:3]
    tab = table(rows, systems)
    print(tab)
    print(f"\nCells: exec (wall) medians in seconds; exec = the system's execution time incl. reading "
          f"the inputs (SystemDS/spores: 'Total execution time' of -stats/--stats; NumPy: in-process), "
          f"wall = end-to-end. Ratios on exec; in parentheses on compute = exec - input reading. "
          f"rtol {ns.rtol:g}. Total {total:.0f} s; "
          f"load before {' '.join(load_before)}, after {' '.join(load_after)}.")
    meta = {"date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "total_s": total,
            "load_before": load_before, "load_after": load_after, "rtol": ns.rtol,
            "sizes": {s: SIZES[s] for s in sizes}, "systems": systems, "nproc": os.cpu_count()}
    ns.out.mkdir(parents=True, exist_ok=True)
    suffix = "-barrier" if ns.read_barrier else ""
    meta["read_barrier"] = ns.read_barrier
    (ns.out / f"workloads{suffix}.json").write_text(json.dumps({"meta": meta, "rows": all_runs}, indent=1))
    (ns.out / f"workloads{suffix}.md").write_text(tab + "\n")
    if failed:
        print("workloads: FAILED (a run failed or the systems disagree; see above)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
