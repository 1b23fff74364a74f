#!/usr/bin/env python3
"""Does the plan depend on the program or on how busy the machine is?

Runs a family of expressions over generated data (sparse X, low-rank factors U and V of
several shapes and densities) with `spores run --explain` at default settings, again and
again, on an idle machine and beside CPU-bound processes (`--load N` busy loops, each a
`python3 -c 'while True: pass'`). Each run prints the expression's value and its time
(`time()` around the block, so optimization is counted); `--explain` gives the plan's
predicted cost. The reference is one `--full-search` run per case.

Per case and load: whether the default settings searched at all (a block whose predicted
cost cannot pay for a search runs as written, or as extraction finds it without rules), the
number of distinct predicted costs over the runs, whether every run reached the full
search's predicted cost (within 0.1 %), and the median, best and worst times of the block
(worst/best ratio), beside the median and worst/best of the plan's own execution
(`--stats`, search excluded) and the worst/best of the whole process's CPU time (user +
system): the work done, which shows whether a slow run did more work or waited for a core. Exits 1 when
the runs of a case differ in plan, a searched run misses the full search's plan, or a
value differs from the full search's (relative 1e-9).

Usage:
  python3 bench/plan_under_load.py [--runs 6] [--loads 0,4] [--spores target/release/spores]
"""
from __future__ import annotations

import argparse
import re
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

EXPRESSIONS = [
    "sum(t(X - U %*% t(V)) %*% U)",
    "sum((X + 2 * (U %*% t(V)))^2)",
    "sum(colSums((U %*% t(V) - X) %*% V))",
    "sum((X - U %*% t(V))^2)",
    "sum(X * (U %*% t(V)))",
    "sum(t(X) %*% (X %*% V))",
]

# (rows, cols, density, rank): shapes not used elsewhere in the project.
SHAPES = [(20000, 5000, 0.001, 10), (12000, 9000, 0.0005, 16)]

COST = re.compile(r"cost ([0-9.e+-]+) -> ([0-9.e+-]+) ns")
MS = re.compile(r"^ms ([0-9.eE+-]+)$", re.M)
# `--stats`' row of the expression's block (line 6): runs, optimize seconds, execute seconds.
BLOCK = re.compile(r"^\s*\d+\s+\S+\.dml:6\s+\d+\s+([0-9.]+)\s+([0-9.]+)\s*$", re.M)


def script(expr: str, shape: tuple[int, int, float, int]) -> str:
    m, n, density, k = shape
    return f"""X = rand(rows={m}, cols={n}, sparsity={density}, min=1, max=5, seed=11)
U = rand(rows={m}, cols={k}, min=-1, max=1, seed=12)
V = rand(rows={n}, cols={k}, min=-1, max=1, seed=13)
t0 = time()
while(FALSE){{}}
s = {expr}
while(FALSE){{}}
print(s)
t1 = time()
print("ms " + (t1 - t0) / 1000000)
"""


def run(spores: str, path: Path, extra: list[str]) -> tuple[float, float | None, float, float, bool, float]:
    """The printed value, the predicted cost after optimization (None: not rewritten), the
    block's milliseconds (search included), the plan's execution milliseconds (`--stats`),
    whether a search ran, and the whole process's CPU seconds (user + system: the work
    done, which the machine's load does not stretch as it stretches wall time)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run([spores, "run", str(path), "--explain", "--stats", *extra],
                         capture_output=True, text=True, timeout=600)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if out.returncode != 0:
        raise RuntimeError(f"{path}: {out.stderr.strip()[-400:]}")
    text = out.stdout
    costs = [float(m.group(2)) for m in COST.finditer(text)]
    value = None
    for line in text.splitlines():
        try:
            value = float(line.strip())
        except ValueError:
            pass
    ms = float(MS.findall(text)[-1])
    exec_ms = float(BLOCK.findall(out.stderr)[-1][1]) * 1e3  # `--stats` prints to stderr
    return value, (costs[-1] if costs else None), ms, exec_ms, "stopped by" in text, cpu


def spread(xs: list[float]) -> float:
    """Worst over best."""
    return max(xs) / max(min(xs), 1e-9)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=6)
    ap.add_argument("--loads", default="0,4")
    ap.add_argument("--spores", default=str(ROOT / "target/release/spores"))
    args = ap.parse_args()
    loads = [int(x) for x in args.loads.split(",")]
    failed = False
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        cases = []
        for si, shape in enumerate(SHAPES):
            for ei, expr in enumerate(EXPRESSIONS):
                path = Path(tmp) / f"case_{si}_{ei}.dml"
                path.write_text(script(expr, shape))
                cases.append((expr, shape, path))
        reference = {}
        for expr, shape, path in cases:
            reference[path] = run(args.spores, path, ["--full-search"])
        for load in loads:
            hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
                    for _ in range(load)]
            try:
                for expr, shape, path in cases:
                    ref_value, ref_cost, _, _, _, _ = reference[path]
                    values, costs, times, execs, searched, cpus = [], [], [], [], [], []
                    for _ in range(args.runs):
                        v, c, ms, exec_ms, did_search, cpu = run(args.spores, path, [])
                        values.append(v)
                        costs.append(c)
                        times.append(ms)
                        execs.append(exec_ms)
                        searched.append(did_search)
                        cpus.append(cpu)
                    full_plan = all(
                        (c is None and ref_cost is None)
                        or (c is not None and ref_cost is not None
                            and abs(c - ref_cost) <= 1e-3 * ref_cost)
                        for c in costs)
                    same_value = all(abs(v - ref_value) <= 1e-9 * max(abs(ref_value), 1e-300)
                                     for v in values)
                    distinct = len({None if c is None else round(c, 3) for c in costs})
                    did_search = any(searched)
                    failed |= distinct > 1 or not same_value or (did_search and not full_plan)
                    rows.append((expr, "x".join(map(str, shape[:2])), load,
                                 "yes" if did_search else "no (cannot pay)", distinct,
                                 "yes" if full_plan else ("NO" if did_search else "no"),
                                 "yes" if same_value else "NO",
                                 statistics.median(times), min(times), max(times),
                                 statistics.median(execs), spread(execs), spread(cpus)))
                    print(f"{expr} {shape} load {load}: plans {distinct}, "
                          f"searched {did_search}, full-search plan {full_plan}, median {statistics.median(times):.1f} ms, "
                          f"worst {max(times):.1f} ms", file=sys.stderr)
            finally:
                for h in hogs:
                    h.kill()
    print("| expression | X | load | searched | distinct plans | full-search plan every run "
          "| values agree | median ms | best ms | worst ms | worst/best | plan ms | plan worst/best "
          "| CPU worst/best |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for (expr, shape, load, searched, distinct, plan, value, med, best, worst, plan_ms,
         plan_spread, cpu_spread) in rows:
        print(f"| `{expr}` | {shape} | {load} | {searched} | {distinct} | {plan} | {value} | {med:.1f} "
              f"| {best:.1f} | {worst:.1f} | {worst / max(best, 1e-9):.2f} | {plan_ms:.2f} "
              f"| {plan_spread:.2f} | {cpu_spread:.2f} |")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
