#!/usr/bin/env python3
"""Subgraph counting (Galley §8.2): spores' tensor engine vs DuckDB on the same queries.

For every query of the chosen sets this runs
  - spores: `subgraph_count` (crates/spores-tensor/examples), which plans the sum-product
    count query and runs it on the fibertree engine, reporting optimization and execution
    time separately;
  - DuckDB: the equivalent SQL, one self-join of the (symmetric) edge table per query edge,
    one label-table join per labelled query vertex, COUNT(*);
checks both counts against true_counts, and prints per-query times side by side, the
median speedup (DuckDB time / spores optimize+execute time, over queries both finished) and
the mean optimization time.

Usage (from the repository root, after `bash bench/setup.sh`):
  cargo build --release -p spores-tensor --example subgraph_count
  bench/.venv/bin/python bench/tensor/subgraph.py [--sets yeast-lite,human] [--timeout 60]
      [--optimizer naive|greedy|exact] [--duckdb-threads 1] [--limit N]
"""

import argparse
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

import duckdb

ROOT = Path(__file__).resolve().parents[2]


def find_data():
    env = os.environ.get("SPORES_SUBGRAPH_DATA")
    if env:
        return Path(env)
    return ROOT / "data" / "subgraph"


def read_graph(path):
    """Edges (undirected, u < v) and labels per vertex, as the Rust reader reads them."""
    text = path.read_text()
    gcare = any(l.startswith("t") and l.split()[1:2] == ["#"] for l in text.splitlines()[:5])
    labels, edges = [], set()
    for line in text.splitlines():
        f = line.split()
        if not f:
            continue
        if f[0] == "v":
            v = int(f[1])
            for l in (f[2:] if gcare else f[2:3]):
                labels.append((v, int(l)))
        elif f[0] == "e":
            u, v = int(f[1]), int(f[2])
            if u != v:
                edges.add((min(u, v), max(u, v)))
    return sorted(edges), labels


def read_query(path):
    labels, edges = {}, []
    for line in path.read_text().splitlines():
        f = line.split()
        if not f:
            continue
        if f[0] == "v":
            l = int(f[2])
            labels[int(f[1])] = None if l == -1 else l
        elif f[0] == "e":
            e = (int(f[1]), int(f[2]))
            if e not in edges:
                edges.append(e)
    return labels, edges


def query_sql(labels, edges):
    """SELECT COUNT(*) over one edge-table alias per query edge (homomorphism semantics)."""
    tables, conds, bound = [], [], {}
    for k, (a, b) in enumerate(edges):
        t = f"e{k}"
        tables.append(f"edge {t}")
        for v, col in ((a, "s"), (b, "d")):
            ref = f"{t}.{col}"
            if v in bound:
                conds.append(f"{ref} = {bound[v]}")
            else:
                bound[v] = ref
    for v, l in sorted(labels.items()):
        if l is None:
            continue
        t = f"l{v}"
        tables.append(f"label {t}")
        conds.append(f"{t}.l = {l}")
        if v in bound:
            conds.append(f"{t}.v = {bound[v]}")
        else:
            bound[v] = f"{t}.v"
    where = " AND ".join(conds) if conds else "TRUE"
    return f"SELECT COUNT(*) FROM {', '.join(tables)} WHERE {where}"


def true_count(data, set_name, rel):
    base = "yeast" if set_name == "yeast-lite" else "human"
    p = data / "true_counts" / base / rel
    return int(p.read_text().split()[-1])


def run_duckdb(con, sql, timeout):
    timer = threading.Timer(timeout, con.interrupt)
    timer.start()
    t0 = time.perf_counter()
    try:
        n = con.execute(sql).fetchone()[0]
        return n, time.perf_counter() - t0
    except Exception:  # interrupted
        return None, None
    finally:
        timer.cancel()


def run_spores(exe, graph, query, timeout, optimizer):
    try:
        out = subprocess.run(
            [str(exe), "--optimizer", optimizer, str(graph), str(query)],
            capture_output=True, text=True, timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return None
    if out.returncode != 0:
        print(out.stderr, file=sys.stderr)
        return None
    # The input conversion (COO -> fibertrees, like loading tables) is not counted, as
    # DuckDB's table loading is not.
    _, count, opt_ms, exec_ms, _convert_ms = out.stdout.strip().split("\t")
    return float(count), float(opt_ms) / 1e3, float(exec_ms) / 1e3


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sets", default="yeast-lite,human")
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--optimizer", default="naive")
    ap.add_argument("--duckdb-threads", type=int, default=1)
    ap.add_argument("--limit", type=int, default=0, help="first N queries per set (0: all)")
    args = ap.parse_args()
    data = find_data()
    exe = ROOT / "target" / "release" / "examples" / "subgraph_count"
    if not exe.exists():
        sys.exit("build the runner first: cargo build --release -p spores-tensor --example subgraph_count")
    print(f"# load: {os.getloadavg()}, duckdb {duckdb.__version__} threads={args.duckdb_threads}, "
          f"spores optimizer={args.optimizer}, timeout {args.timeout}s")
    all_speedups, all_censored, all_opt = [], [], []
    for set_name in args.sets.split(","):
        graph = data / "graphs" / ("yeast.graph" if set_name == "yeast-lite" else "human.txt")
        qdir = data / "queries" / set_name
        queries = sorted(p.relative_to(qdir) for p in qdir.rglob("*") if p.is_file())
        if args.limit:
            queries = queries[: args.limit]
        edges, labels = read_graph(graph)
        con = duckdb.connect()
        con.execute(f"SET threads = {args.duckdb_threads}")
        con.execute("CREATE TABLE edge(s INTEGER, d INTEGER)")
        sym = edges + [(v, u) for u, v in edges]
        con.executemany("INSERT INTO edge VALUES (?, ?)", sym) if len(sym) < 50000 else None
        if len(sym) >= 50000:
            import pandas as pd
            df = pd.DataFrame(sym, columns=["s", "d"])
            con.execute("INSERT INTO edge SELECT * FROM df")
        con.execute("CREATE TABLE label(v INTEGER, l INTEGER)")
        import pandas as pd
        ldf = pd.DataFrame(labels, columns=["v", "l"])
        con.execute("INSERT INTO label SELECT * FROM ldf")
        print(f"\n## {set_name}: {graph.name}, {len(edges)} undirected edges, {len(queries)} queries")
        print(f"{'query':<34} {'true':>12} {'ok':>3} {'opt ms':>8} {'exec ms':>10} {'duckdb ms':>10} {'speedup':>8}")
        speedups, opts, bad, timeouts = [], [], 0, 0
        # Speedups with a timeout on one side are bounds (>= when DuckDB timed out, <= when
        # spores did); they enter the "censored" median at the bound.
        censored = []
        for rel in queries:
            want = true_count(data, set_name, rel)
            ql, qe = read_query(qdir / rel)
            dn, dt = run_duckdb(con, query_sql(ql, qe), args.timeout)
            ours = run_spores(exe, graph, qdir / rel, args.timeout, args.optimizer)
            ok = (ours is None or ours[0] == want) and (dn is None or dn == want)
            if (ours is not None and ours[0] != want) or (dn is not None and dn != want):
                bad += 1
            if ours is None:
                timeouts += 1
            opt_ms = f"{ours[1]*1e3:.2f}" if ours else "-"
            exec_ms = f"{ours[2]*1e3:.2f}" if ours else "timeout"
            duck_ms = f"{dt*1e3:.2f}" if dt is not None else "timeout"
            sp = ""
            if ours and dt is not None:
                s = dt / max(ours[1] + ours[2], 1e-9)
                speedups.append(s)
                censored.append(s)
                sp = f"{s:.2f}x"
            elif ours:
                s = args.timeout / max(ours[1] + ours[2], 1e-9)
                censored.append(s)
                sp = f">={s:.0f}x"
            elif dt is not None:
                s = dt / args.timeout
                censored.append(s)
                sp = f"<={s:.2f}x"
            if ours:
                opts.append(ours[1])
            print(f"{str(rel):<34} {want:>12} {'yes' if ok else 'NO':>3} {opt_ms:>8} {exec_ms:>10} {duck_ms:>10} {sp:>8}", flush=True)
        med = statistics.median(speedups) if speedups else float("nan")
        mean_opt = statistics.mean(opts) * 1e3 if opts else float("nan")
        cmed = statistics.median(censored) if censored else float("nan")
        print(f"{set_name}: median speedup {med:.2f}x over {len(speedups)} queries both finished; "
              f"{cmed:.2f}x over all {len(censored)} with timeouts as bounds; "
              f"mean optimization {mean_opt:.3f} ms; wrong counts {bad}; spores timeouts {timeouts}")
        all_speedups += speedups
        all_censored += censored
        all_opt += opts
    if all_speedups:
        print(f"\nall: median speedup {statistics.median(all_speedups):.2f}x (both finished), "
              f"{statistics.median(all_censored):.2f}x (timeouts as bounds), "
              f"mean optimization {statistics.mean(all_opt)*1e3:.3f} ms; load {os.getloadavg()}")


if __name__ == "__main__":
    main()
