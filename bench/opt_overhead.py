#!/usr/bin/env python3
"""Does the optimizer pay for itself? Total time of `spores run` optimized vs `--no-opt`.

For every example script (examples/*.dml, at their default sizes) and every workload of
bench/workloads/ at the small and the large size of bench/workloads.py (same generated
Matrix Market inputs, under bench/data/workloads/SIZE/), runs `spores run SCRIPT --stats`
with and without `--no-opt`, interleaved run by run, and records the wall time of the
whole process (parse, compile including optimization, execute, print), its CPU time
(user + system, all threads) and the compile time `--stats` reports. The printed numbers
of both must agree (relative tolerance --rtol).

Goal checked per row: the optimized run is never more than 5 ms or 5 % (whichever is
larger) slower than --no-opt, by median wall time. The CPU-time ratio is printed beside
it: on a shared machine other processes stretch wall times by tens of percent from run
to run, while CPU time moves much less, so it tells a real overhead from noise. Prints a
Markdown table (also bench/out/opt_overhead.md) and exits 1 on a mismatch, a failed run
or a missed goal.

Usage:
  bench/.venv/bin/python bench/opt_overhead.py [--runs 5] [--sizes small,large] [--only loss,k_sqloss]
  (the venv is bench/setup.sh's; it needs numpy and scipy to generate the inputs)
"""
from __future__ import annotations

import argparse
import os
import re
import resource
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
from workloads import SIZES, WORKLOADS, ensure_data, run_one  # noqa: E402

COMPILE = re.compile(r"^Total compilation time:\s*([0-9.]+) sec", re.M)
NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")
SLACK_MS = 5.0
SLACK_RATIO = 1.05


def numbers(lines: list[str]) -> list[float]:
    return [float(x) for ln in lines for x in NUMBER.findall(ln)]


def agree(a: list[str], b: list[str], rtol: float) -> bool:
    na, nb = numbers(a), numbers(b)
    return len(na) == len(nb) and all(
        abs(x - y) <= rtol * max(abs(x), abs(y), 1e-300) or x == y for x, y in zip(na, nb))


def cpu_of_children() -> float:
    """CPU seconds (user + system) of all finished child processes so far."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def measure(label: str, size: str, script: Path, args: dict, runs: int, spores: Path,
            rtol: float) -> dict:
    env = dict(os.environ)
    walls = {"spores": [], "noopt": []}
    cpus = {"spores": [], "noopt": []}
    compiles = {"spores": [], "noopt": []}
    outputs = {}
    error = ""
    for _ in range(runs):
        for system in ("noopt", "spores"):
            before = cpu_of_children()
            r = run_one(system, label, args, spores, 900, env, script)
            if not r.ok:
                error = f"{system}: {r.error}"
                break
            walls[system].append(r.wall)
            cpus[system].append(cpu_of_children() - before)
            m = COMPILE.search(r.stats)
            compiles[system].append(float(m.group(1)) if m else float("nan"))
            outputs[system] = r.lines
        if error:
            break
    row = {"script": label, "size": size, "error": error}
    if error:
        return row
    row["noopt"] = statistics.median(walls["noopt"]) * 1e3
    row["opt"] = statistics.median(walls["spores"]) * 1e3
    row["cpu_ratio"] = statistics.median(cpus["spores"]) / statistics.median(cpus["noopt"])
    row["compile_opt"] = statistics.median(compiles["spores"]) * 1e3
    row["compile_noopt"] = statistics.median(compiles["noopt"]) * 1e3
    row["agree"] = agree(outputs["spores"], outputs["noopt"], rtol)
    row["ok"] = row["agree"] and row["opt"] <= max(row["noopt"] + SLACK_MS, row["noopt"] * SLACK_RATIO)
    return row


def table(rows: list[dict]) -> str:
    out = ["| script | size | --no-opt ms | optimized ms | optimized / --no-opt | CPU time ratio | compile ms (opt / no-opt) | goal |",
           "| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |"]
    for r in rows:
        if r["error"]:
            out.append(f"| {r['script']} | {r['size']} | | | | | | failed: {r['error'][:80]} |")
            continue
        goal = "met" if r["ok"] else ("numbers differ" if not r["agree"] else "missed")
        out.append(
            f"| {r['script']} | {r['size']} | {r['noopt']:.1f} | {r['opt']:.1f} | "
            f"{r['opt'] / r['noopt']:.3f} | {r['cpu_ratio']:.3f} | "
            f"{r['compile_opt']:.1f} / {r['compile_noopt']:.1f} | {goal} |")
    ok = [r for r in rows if not r["error"]]
    if ok:
        ratios = [r["opt"] / r["noopt"] for r in ok]
        worst = max(ok, key=lambda r: r["opt"] - max(r["noopt"] + SLACK_MS, r["noopt"] * SLACK_RATIO))
        out.append("")
        out.append(f"Median ratio {statistics.median(ratios):.3f}, largest {max(ratios):.3f}; "
                   f"closest to the goal: {worst['script']} ({worst['size']}), "
                   f"{worst['opt'] - worst['noopt']:+.1f} ms ({worst['opt'] / worst['noopt']:.3f}); "
                   f"{sum(r['ok'] for r in ok)} of {len(rows)} rows meet the goal.")
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=5, help="runs per system and row (default 5; medians)")
    ap.add_argument("--sizes", default="small,large", help="workload sizes (default small,large)")
    ap.add_argument("--only", default="", help="comma-separated example or workload names")
    ap.add_argument("--no-examples", action="store_true", help="skip examples/*.dml")
    ap.add_argument("--rtol", type=float, default=1e-8)
    ap.add_argument("--seed", type=int, default=4, help="data seed, as bench/workloads.py")
    ap.add_argument("--data", type=Path, default=HERE / "data" / "workloads")
    ap.add_argument("--spores", type=Path, default=ROOT / "target" / "release" / "spores")
    ap.add_argument("--out", type=Path, default=HERE / "out")
    a = ap.parse_args(argv)
    only = set(filter(None, a.only.split(",")))
    rows = []
    if not a.no_examples:
        for script in sorted((ROOT / "examples").glob("*.dml")):
            if only and script.stem not in only:
                continue
            print(f"opt_overhead: examples/{script.name}", file=sys.stderr, flush=True)
            rows.append(measure(f"examples/{script.name}", "default", script, {}, a.runs,
                                a.spores, a.rtol))
    for size in filter(None, a.sizes.split(",")):
        names = [w for w in WORKLOADS if not only or w in only]
        if not names:
            continue
        datadir = a.data / size
        ensure_data(datadir, size, a.seed + list(SIZES).index(size), False)
        for wl in names:
            script, files, values = WORKLOADS[wl]
            args = {arg: str(datadir / f"{f}.mtx") for arg, f in files.items()}
            args.update({k2: str(v) for k2, v in values.items()})
            print(f"opt_overhead: {wl} ({size})", file=sys.stderr, flush=True)
            rows.append(measure(f"bench/workloads/{script}", size, HERE / "workloads" / script,
                                args, a.runs, a.spores, a.rtol))
    text = table(rows)
    print(text)
    a.out.mkdir(parents=True, exist_ok=True)
    (a.out / "opt_overhead.md").write_text(text + "\n")
    return 0 if all(not r["error"] and r["ok"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
