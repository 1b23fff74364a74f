#!/usr/bin/env python3
"""Subgraph counting on generated graph families: spores vs DuckDB vs GraphBLAS vs Kuzu.

Graphs come from `graphgen` (crates/spores-tensor/examples/graphgen.rs: power-law, R-MAT,
Erdős–Rényi and a road-like grid, seeded, with skewed vertex labels), queries from
bench/tensor/graph_queries/ (triangles, labelled triangles, 4-cycles, 3-paths, 3-stars,
4-cliques, diamonds). Counts are homomorphism counts over the undirected graph, as in
bench/tensor/subgraph.py; every system's count is checked against the others.

Per graph, each system's load is reported apart from its per-query compute:
  - spores: `subgraph_count` (the sum-product query planned and run on the fibertree
    engine); load = reading the graph file and converting inputs to fibertrees, compute =
    optimization + execution;
  - DuckDB: load = the edge and label tables from NumPy arrays; compute = the SQL self-join
    (one edge-table alias per query edge), COUNT(*);
  - GraphBLAS (python-graphblas, SuiteSparse): load = building the adjacency matrix; compute
    = the masked-product formulation of the query where one exists (triangles C<A> = A
    plus_pair A summed; diamonds the same squared; 4-cycles ||A²||²; 3-paths dᵀAd; 3-stars
    Σd³; labelled triangles on the label-restricted blocks); "-" where none exists;
  - Kuzu (Cypher, worst-case-optimal joins): load = COPY of both tables; compute = MATCH ...
    RETURN count(*), only for triangles and 4-cliques, where Cypher's edge-distinct matching
    equals homomorphism counting (every query vertex pair is adjacent, so no walk can reuse
    an edge).

Usage (from the repository root):
  cargo build --release -p spores-tensor --example subgraph_count --example graphgen
  bench/.venv/bin/pip install python-graphblas kuzu      # once
  bench/.venv/bin/python bench/tensor/graphs.py [--sizes small,medium] [--families ...]
      [--queries triangle,4cycle] [--timeout 60] [--systems spores,duckdb,graphblas,kuzu]
"""

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).resolve().parent))
from subgraph import query_sql, read_query  # noqa: E402

QUERIES = ROOT / "bench" / "tensor" / "graph_queries"
EXAMPLES = ROOT / "target" / "release" / "examples"
SIZES = {  # vertices, undirected edges
    "small": (10_000, 100_000),
    "medium": (100_000, 1_000_000),
    "large": (1_000_000, 10_000_000),
}
# The grid holds at most ~3 edges per vertex: a road network's density.
GRID_EDGES_PER_VERTEX = 2.5
FAMILIES = ["powerlaw", "rmat", "er", "grid"]


def memory_bytes():
    """Physical memory of the machine."""
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


# Each system gets at most this share of memory, so that one query cannot take the harness
# down (R-MAT's 4-cycles once drove the process holding DuckDB and GraphBLAS to 21.8 GB and
# the kernel's out-of-memory killer): DuckDB through its memory_limit setting (a query over
# it fails, reported as "-"), spores through an address-space limit on its process, and a
# GraphBLAS product whose result would not fit is not started.
MEMORY_SHARE = 0.3


def graph_file(family, size, cache):
    n, m = SIZES[size]
    if family == "grid":
        m = int(n * GRID_EDGES_PER_VERTEX)
    path = cache / f"{family}-{size}.graph"
    if not path.exists():
        subprocess.run([str(EXAMPLES / "graphgen"), family, str(n), str(m), str(path)],
                       check=True)
    return path


def read_graph(path):
    """Edges (u < v) as two int32 arrays and the label of each vertex."""
    vs, us, ws = [], [], []
    with open(path) as f:
        for line in f:
            if line[0] == "v":
                _, v, label, _ = line.split()
                vs.append(int(label))
            elif line[0] == "e":
                _, u, w = line.split()[:3]
                us.append(int(u))
                ws.append(int(w))
    return np.array(us, dtype=np.int32), np.array(ws, dtype=np.int32), np.array(vs, dtype=np.int32)


class Spores:
    name = "spores"

    def __init__(self, path, timeout):
        self.path, self.timeout = path, timeout
        # The runner reads the graph per process; its load is the smallest seen over queries.
        self.load = None
        self.notes = []

    def count(self, qname, qpath):
        t0 = time.perf_counter()
        try:
            limit = int(memory_bytes() * MEMORY_SHARE)
            out = subprocess.run(
                [str(EXAMPLES / "subgraph_count"), str(self.path), str(qpath)],
                capture_output=True, text=True, timeout=self.timeout,
                preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (limit, limit)))
        except subprocess.TimeoutExpired:
            return None, None
        wall = time.perf_counter() - t0
        if out.returncode != 0:
            lines = out.stderr.strip().splitlines()
            # The first line says why (an allocation over the memory cap, an error); a
            # backtrace follows.
            reason = next((x for x in lines if x.strip()), f"exit {out.returncode}")
            self.notes.append(f"spores {qname}: failed ({reason[:120]})")
            print(out.stderr, file=sys.stderr)
            return None, None
        _, count, opt_ms, exec_ms, convert_ms = out.stdout.strip().split("\t")
        compute = (float(opt_ms) + float(exec_ms)) / 1e3
        # Whole process minus compute: reading the file, building and converting tensors.
        load = wall - compute
        self.load = load if self.load is None else min(self.load, load)
        return int(float(count)), compute


class DuckDB:
    name = "duckdb"

    def __init__(self, us, ws, labels, timeout):
        import duckdb
        self.timeout = timeout
        import pandas as pd
        t0 = time.perf_counter()
        self.con = duckdb.connect()
        self.con.execute(f"SET memory_limit = '{int(memory_bytes() * MEMORY_SHARE) >> 20}MB'")
        self.notes = []
        edge_df = pd.DataFrame({"s": np.concatenate([us, ws]),  # noqa: F841
                                "d": np.concatenate([ws, us])})
        label_df = pd.DataFrame({"v": np.arange(len(labels), dtype=np.int32),  # noqa: F841
                                 "l": labels})
        self.con.execute("CREATE TABLE edge AS SELECT * FROM edge_df")
        self.con.execute("CREATE TABLE label AS SELECT * FROM label_df")
        self.load = time.perf_counter() - t0
        self.version = duckdb.__version__

    def count(self, qname, qpath):
        labels, edges = read_query(qpath)
        timer = threading.Timer(self.timeout, self.con.interrupt)
        timer.start()
        t0 = time.perf_counter()
        try:
            n = self.con.execute(query_sql(labels, edges)).fetchone()[0]
            return int(n), time.perf_counter() - t0
        except Exception as e:  # interrupted at the timeout, or over its memory limit
            if "interrupt" not in str(e).lower():
                self.notes.append(f"duckdb {qname}: {type(e).__name__} "
                                  f"({str(e).splitlines()[0][:120]})")
            return None, None
        finally:
            timer.cancel()


class GraphBLAS:
    name = "graphblas"

    def __init__(self, us, ws, labels):
        import graphblas as gb
        self.gb = gb
        t0 = time.perf_counter()
        n = len(labels)
        rows = np.concatenate([us, ws])
        cols = np.concatenate([ws, us])
        self.A = gb.Matrix.from_coo(rows, cols, 1, nrows=n, ncols=n, dtype=gb.dtypes.INT64)
        self.load = time.perf_counter() - t0
        self.labels = labels
        self.version = gb.__version__
        self.notes = []
        # Entries of A² (the 4-cycle formulation's unmasked product) are at most the wedges
        # Σ deg², and at most n².
        deg = np.bincount(rows, minlength=n).astype(np.float64)
        self.wedges = min(float((deg * deg).sum()), float(n) * n)

    def count(self, qname, qpath):
        gb, A = self.gb, self.A
        plus_pair = gb.semiring.plus_pair
        t0 = time.perf_counter()
        if qname == "triangle":
            n = A.mxm(A, plus_pair).new(mask=A.S).reduce_scalar().new().value
        elif qname == "diamond":
            c = A.mxm(A, plus_pair).new(mask=A.S)
            n = c.ewise_mult(c, gb.binary.times).new().reduce_scalar().new().value
        elif qname == "4cycle":
            # Each entry of A² costs an index and a value, and the product's workspace as
            # much again.
            need = self.wedges * 32
            if need > memory_bytes() * MEMORY_SHARE:
                self.notes.append(f"graphblas {qname}: not run, A² may hold {self.wedges:.3g} "
                                  f"entries (~{need / 2**30:.0f} GB, over "
                                  f"{MEMORY_SHARE:.0%} of memory)")
                return None, None
            c = A.mxm(A, plus_pair).new()
            n = c.ewise_mult(c, gb.binary.times).new().reduce_scalar().new().value
        elif qname == "3path":
            d = A.reduce_rowwise(gb.monoid.plus).new()
            ad = A.mxv(d, gb.semiring.plus_times).new()
            n = d.ewise_mult(ad, gb.binary.times).new().reduce().new().value
        elif qname == "3star":
            d = A.reduce_rowwise(gb.monoid.plus).new()
            n = d.apply(gb.binary.pow, right=3).new().reduce().new().value
        elif qname == "labelled_triangle":
            # sum over i in L0, j in L1, k of A[i,j] A[j,k] A[k,i].
            l0 = np.flatnonzero(self.labels == 0)
            l1 = np.flatnonzero(self.labels == 1)
            a01 = A[l0, l1].new()
            c = A[l0, :].new().mxm(A[:, l1].new(), plus_pair).new(mask=a01.S)
            n = c.reduce_scalar().new().value
        else:
            return None, None
        return int(n or 0), time.perf_counter() - t0


class Kuzu:
    name = "kuzu"
    CYPHER = {
        "triangle": "MATCH (a:V)-[:E]->(b:V)-[:E]->(c:V)-[:E]->(a) RETURN count(*)",
        "4clique": "MATCH (a:V)-[:E]->(b:V)-[:E]->(c:V)-[:E]->(a), (a)-[:E]->(d:V), "
                   "(b)-[:E]->(d), (c)-[:E]->(d) RETURN count(*)",
    }

    def __init__(self, us, ws, labels, timeout):
        import kuzu
        import pandas as pd
        self.timeout = timeout
        self.dir = tempfile.mkdtemp(prefix="spores-kuzu-")
        t0 = time.perf_counter()
        db = kuzu.Database(os.path.join(self.dir, "db"))
        self.con = kuzu.Connection(db)
        self.db = db
        self.con.execute("CREATE NODE TABLE V(id INT64, label INT64, PRIMARY KEY(id))")
        self.con.execute("CREATE REL TABLE E(FROM V TO V)")
        vdf = pd.DataFrame({"id": np.arange(len(labels), dtype=np.int64),  # noqa: F841
                            "label": labels.astype(np.int64)})
        edf = pd.DataFrame({"from": np.concatenate([us, ws]).astype(np.int64),  # noqa: F841
                            "to": np.concatenate([ws, us]).astype(np.int64)})
        self.con.execute("COPY V FROM vdf")
        self.con.execute("COPY E FROM edf")
        self.load = time.perf_counter() - t0
        self.version = kuzu.__version__
        self.notes = []

    def count(self, qname, qpath):
        q = self.CYPHER.get(qname)
        if q is None:
            return None, None
        result = {}

        def go():
            try:
                r = self.con.execute(q)
                result["n"] = r.get_next()[0]
            except Exception as e:  # noqa: BLE001
                result["err"] = e

        t0 = time.perf_counter()
        th = threading.Thread(target=go, daemon=True)
        th.start()
        th.join(self.timeout)
        if th.is_alive():
            try:
                self.con.interrupt()
            except Exception:  # noqa: BLE001
                pass
            th.join(5)
            return None, None
        if "n" not in result:
            print(f"kuzu {qname}: {result.get('err')}", file=sys.stderr)
            return None, None
        return int(result["n"]), time.perf_counter() - t0

    def close(self):
        shutil.rmtree(self.dir, ignore_errors=True)


def fmt_s(t):
    return "-" if t is None else (f"{t*1e3:.1f}ms" if t < 1 else f"{t:.2f}s")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="small")
    ap.add_argument("--families", default=",".join(FAMILIES))
    ap.add_argument("--queries", default="")
    ap.add_argument("--systems", default="spores,duckdb,graphblas,kuzu")
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--cache", default=str(ROOT / "bench" / "out" / "graphs"))
    args = ap.parse_args()
    for exe in ("subgraph_count", "graphgen"):
        if not (EXAMPLES / exe).exists():
            sys.exit("build first: cargo build --release -p spores-tensor "
                     "--example subgraph_count --example graphgen")
    cache = Path(args.cache)
    cache.mkdir(parents=True, exist_ok=True)
    queries = sorted(QUERIES.glob("*.graph"))
    if args.queries:
        wanted = args.queries.split(",")
        queries = [q for q in queries if q.stem in wanted]
    systems = args.systems.split(",")
    print(f"# {os.cpu_count()} cores, load {os.getloadavg()}, timeout {args.timeout}s per query")
    worst, medians, wrong = [], [], 0
    vs_graphblas = []
    for size in args.sizes.split(","):
        for family in args.families.split(","):
            path = graph_file(family, size, cache)
            us, ws, labels = read_graph(path)
            peers = {}
            if "spores" in systems:
                peers["spores"] = Spores(path, args.timeout)
            if "duckdb" in systems:
                peers["duckdb"] = DuckDB(us, ws, labels, args.timeout)
            if "graphblas" in systems:
                peers["graphblas"] = GraphBLAS(us, ws, labels)
            if "kuzu" in systems:
                peers["kuzu"] = Kuzu(us, ws, labels, args.timeout)
            print(f"\n## {family} {size}: {len(labels)} vertices, {len(us)} edges")
            header = f"| query | count | " + " | ".join(peers) + " | spores/DuckDB |"
            print(header)
            print("|" + "---|" * (header.count("|") - 1))
            ratios = []
            for q in queries:
                results = {name: p.count(q.stem, q) for name, p in peers.items()}
                counts = {r[0] for r in results.values() if r[0] is not None}
                if len(counts) > 1:
                    wrong += 1
                cells = [fmt_s(results[name][1]) for name in peers]
                ours, duck = results.get("spores", (None, None)), results.get("duckdb", (None, None))
                ratio = ""
                if ours[1] is not None and duck[1] is not None:
                    r = duck[1] / max(ours[1], 1e-9)
                    ratios.append(r)
                    ratio = f"{r:.1f}x"
                elif ours[1] is not None and "duckdb" in peers:
                    r = args.timeout / max(ours[1], 1e-9)
                    ratios.append(r)
                    ratio = f">={r:.0f}x"
                gb = results.get("graphblas", (None, None))
                if ours[1] is not None and gb[1] is not None:
                    vs_graphblas.append((f"{family}-{size}/{q.stem}", ours[1] / max(gb[1], 1e-9)))
                count = ",".join(str(c) for c in sorted(counts)) or "-"
                if len(counts) > 1:
                    count += " MISMATCH"
                print(f"| {q.stem} | {count} | " + " | ".join(cells) + f" | {ratio} |", flush=True)
            loads = " · ".join(f"{name} {fmt_s(p.load)}" for name, p in peers.items())
            print(f"load: {loads}")
            for p in peers.values():
                for note in p.notes:
                    print(f"note: {note}")
            if ratios:
                med, low = statistics.median(ratios), min(ratios)
                medians.append(med)
                worst.append(low)
                print(f"spores vs DuckDB compute: median {med:.1f}x, worst {low:.1f}x")
            if "kuzu" in peers:
                peers["kuzu"].close()
    if medians:
        print(f"\nall graphs: median of medians {statistics.median(medians):.1f}x, "
              f"worst median {min(medians):.1f}x, worst query {min(worst):.2f}x; "
              f"count mismatches {wrong}")
    if vs_graphblas:
        print("spores compute / GraphBLAS compute: " +
              ", ".join(f"{k} {v:.1f}" for k, v in vs_graphblas))
    print(f"# load {os.getloadavg()}")


if __name__ == "__main__":
    main()
