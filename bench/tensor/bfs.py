#!/usr/bin/env python3
"""Breadth-first search (Galley §8.3) on generated graph families: spores vs DuckDB.

Graphs come from `graphgen` (power-law, R-MAT, Erdős–Rényi, a road-like grid; seeded), read
as undirected: every edge both ways, repeated edges once. BFS runs from the vertex of highest
degree to the end
and every system's per-level frontier sizes must agree (spores's also agree with a plain
queue BFS, checked by the `bfs` example).

  - spores: the `bfs` example, each level the tensor program `N[j] = any[i](F[i] * E[i,j] *
    (1 - V[j]))`, `W[j] = max(V[j], N[j])` planned from the frontier's statistics and run on
    the fibertree engine (`adaptive`); its time is planning plus execution of every level,
    the graph already loaded (median of --repeat runs).
  - DuckDB: the edge table loaded from NumPy arrays (not timed); per level one statement
    `CREATE TABLE next AS SELECT DISTINCT e.dst FROM frontier JOIN edges ... ANTI JOIN
    visited`, then the new vertices appended to `visited`; its time is every level's
    statements (median of --repeat runs), with one thread or all of them (--threads).

Usage (from the repository root):
  cargo build --release -p spores-tensor --example bfs --example graphgen
  bench/.venv/bin/python bench/tensor/bfs.py [--sizes medium,large] [--families ...]
      [--repeat 3] [--threads 1]
"""

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).resolve().parent))
from graphs import EXAMPLES, FAMILIES, SIZES, graph_file, read_graph  # noqa: E402


def undirected(us, ws):
    """Both directions of every edge, each once, self-loops dropped, sorted by source."""
    src = np.concatenate([us, ws]).astype(np.int64)
    dst = np.concatenate([ws, us]).astype(np.int64)
    keep = src != dst
    key = np.unique(src[keep] << 32 | dst[keep])
    return (key >> 32).astype(np.int32), (key & 0xFFFFFFFF).astype(np.int32)


def runs(formats):
    """`hhhhBBD` as `h4 B2 D`: the frontier format of each level, run-length encoded."""
    out = []
    for f in formats:
        if out and out[-1][0] == f:
            out[-1][1] += 1
        else:
            out.append([f, 1])
    return " ".join(f if n == 1 else f"{f}{n}" for f, n in out)


def run_spores(edge_path, source, repeat):
    out = subprocess.run([str(EXAMPLES / "bfs"), str(edge_path), "--repeat", str(repeat),
                          "--source", str(source), "--policies", "adaptive"],
                         capture_output=True, text=True, check=True)
    policies = {}
    for line in out.stdout.splitlines():
        m = re.match(r"(\S+)\s+median\s+([\d.]+) ms over \d+ runs \(planning ([\d.]+) ms\); "
                     r"(\d+) levels, (\d+) reached; frontier formats (\S+); levels (.*)", line)
        if m:
            policies[m.group(1)] = {
                "ms": float(m.group(2)), "planning": float(m.group(3)),
                "levels": int(m.group(4)), "reached": int(m.group(5)),
                "formats": m.group(6), "check": m.group(7)}
    return policies


def run_duckdb(src, dst, source, repeat, threads):
    import duckdb
    con = duckdb.connect()
    if threads:
        con.execute(f"SET threads = {threads}")
    edges = {"src": src, "dst": dst}  # noqa: F841 (read by the SQL below)
    con.execute("CREATE TABLE edges AS SELECT * FROM edges")
    times, sizes = [], None
    for _ in range(repeat):
        con.execute(f"CREATE OR REPLACE TEMP TABLE visited AS SELECT {source}::INTEGER AS v")
        con.execute(f"CREATE OR REPLACE TEMP TABLE frontier AS SELECT {source}::INTEGER AS v")
        level_sizes = [1]
        t0 = time.perf_counter()
        while True:
            con.execute("""CREATE OR REPLACE TEMP TABLE next AS
                SELECT DISTINCT e.dst AS v FROM frontier f JOIN edges e ON e.src = f.v
                ANTI JOIN visited w ON w.v = e.dst""")
            n = con.execute("SELECT count(*) FROM next").fetchone()[0]
            if n == 0:
                break
            level_sizes.append(n)
            con.execute("INSERT INTO visited SELECT v FROM next")
            con.execute("CREATE OR REPLACE TEMP TABLE frontier AS SELECT v FROM next")
        times.append((time.perf_counter() - t0) * 1e3)
        sizes = level_sizes
    con.close()
    return statistics.median(times), sizes


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="medium,large")
    ap.add_argument("--families", default=",".join(FAMILIES))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--threads", type=int, default=0,
                    help="DuckDB threads (0: DuckDB's default, every core)")
    ap.add_argument("--cache", default=None, help="where generated graphs are kept")
    args = ap.parse_args()
    for exe in ("bfs", "graphgen"):
        if not (EXAMPLES / exe).exists():
            sys.exit(f"missing {EXAMPLES / exe}: cargo build --release -p spores-tensor "
                     "--example bfs --example graphgen")
    cache = Path(args.cache) if args.cache else Path(tempfile.mkdtemp(prefix="bfs-"))
    cache.mkdir(parents=True, exist_ok=True)
    load = open("/proc/loadavg").read().split()[:3] if os.path.exists("/proc/loadavg") else []
    print(f"load {' '.join(load)}; DuckDB threads {args.threads or 'default'}; "
          f"median of {args.repeat}")
    print("| graph | vertices | directed edges | levels | reached | spores adaptive ms "
          "(planning) | formats | DuckDB ms | DuckDB / spores |")
    print("|---|---:|---:|---:|---:|---:|---|---:|---:|")
    ratios = []
    for size in args.sizes.split(","):
        for family in args.families.split(","):
            path = graph_file(family, size, cache)
            us, ws, labels = read_graph(path)
            src, dst = undirected(us, ws)
            edge_path = cache / f"{family}-{size}.edges"
            if not edge_path.exists():
                np.savetxt(edge_path, np.stack([src, dst], axis=1), fmt="%d")
            # From the vertex of highest degree (vertex 0 of an R-MAT graph may be isolated).
            source = int(np.argmax(np.bincount(src, minlength=len(labels))))
            sp = run_spores(edge_path, source, args.repeat)["adaptive"]
            if sp["check"] != "match a queue BFS":
                sys.exit(f"spores's BFS on {family}-{size} differs from a queue BFS")
            db_ms, db_sizes = run_duckdb(src, dst, source, args.repeat, args.threads)
            if len(db_sizes) != sp["levels"] or sum(db_sizes) != sp["reached"]:
                sys.exit(f"{family}-{size}: DuckDB reached {sum(db_sizes)} in {len(db_sizes)} "
                         f"levels, spores {sp['reached']} in {sp['levels']}")
            ratio = db_ms / sp["ms"]
            ratios.append(ratio)
            print(f"| {family}-{size} | {len(labels):,} | {len(src):,} | {sp['levels']} | "
                  f"{sp['reached']:,} | {sp['ms']:.1f} ({sp['planning']:.1f}) | "
                  f"{runs(sp['formats'])} | {db_ms:.1f} | {ratio:.2f}x |", flush=True)
    print(f"DuckDB / spores: median {statistics.median(ratios):.2f}x, "
          f"worst {min(ratios):.2f}x over {len(ratios)} graphs")


if __name__ == "__main__":
    main()
