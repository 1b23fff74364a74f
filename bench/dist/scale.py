"""Programs on data larger than the memory budget: spores on DataFusion against DuckDB and
PySpark running the same programs as SQL.

    python bench/dist/scale.py gen --nnz 1e7 --out bench/out/dist     # Parquet COO inputs
    python bench/dist/scale.py run --dir bench/out/dist --memory 1G    # the table
    python bench/dist/scale.py ballista --dir bench/out/dist --memory 1G   # 1 vs 2 executors

`gen` writes X (rows x cols, `nnz` non-zeros spread evenly over the rows, uniform in
[1, 5)), the rank-r factors U and V and a vector v as Parquet COO files (`i`, `j`, `v`,
0-based; the format `spores convert` writes, with the shape in the metadata).

`run` times each program (wall clock of the whole process or query, reading the files
included, writing the result to Parquet) on:
  - spores, local engine (`spores run --memory M`): refuses what does not fit;
  - spores on DataFusion (`--engine datafusion --memory M`), the optimized plan, and the
    plan as written (`--no-opt`) lowered the same way;
  - DuckDB (memory_limit M, 2 threads) and PySpark local[2] (driver memory M, at least
    1g, which Spark needs to start) on the SQL of the program as written (what a user
    writes for the LA expression) and of the optimized plan (what spores's optimizer
    chose, written out by hand).
Every finished run's result is checked against the others (relative 1e-6). A run that
exceeds --timeout is reported as such.

`ballista` times the optimized plans of the same programs on Ballista clusters of
--executors executors (`spores ballista cluster`: a scheduler and executor processes of
spores's own binary, each executor with --slots task slots, a --memory pool and, with
--pin, one core; a build with the `ballista` feature), each plan in as many partitions as
the cluster has slots, beside spores on DataFusion in one process (`--engine datafusion`,
--memory, 1 and 2 threads); every configuration runs each program once a round, side by
side (a slow minute of the machine falls on all alike; a cluster is started for its turn
and warmed up by one untimed run); medians of --repeat rounds and the slowest run, the
bytes of the shuffle files the stages wrote, results checked against each other
(relative 1e-9).
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]

PROGRAMS = {
    # name: (DML body over X, U, V, v writing `out`, SQL as written, SQL optimized)
    "loss": (
        "out = as.matrix(sum((X - U %*% t(V))^2))",
        """
        WITH P AS (SELECT U.i AS i, V.i AS j, SUM(U.v * V.v) AS v
                   FROM U JOIN V ON U.j = V.j GROUP BY U.i, V.i)
        SELECT SUM(POWER(COALESCE(X.v, 0) - COALESCE(P.v, 0), 2)) AS v
        FROM X FULL OUTER JOIN P ON X.i = P.i AND X.j = P.j
        """,
        """
        WITH UU AS (SELECT a.j AS k, b.j AS l, SUM(a.v * b.v) AS v FROM U a JOIN U b ON a.i = b.i GROUP BY a.j, b.j),
             VV AS (SELECT a.j AS k, b.j AS l, SUM(a.v * b.v) AS v FROM V a JOIN V b ON a.i = b.i GROUP BY a.j, b.j)
        SELECT (SELECT SUM(v * v) FROM X)
             - 2 * (SELECT SUM(X.v * U.v * V.v) FROM X JOIN U ON X.i = U.i JOIN V ON X.j = V.i AND U.j = V.j)
             + (SELECT SUM(UU.v * VV.v) FROM UU JOIN VV ON UU.k = VV.k AND UU.l = VV.l) AS v
        """,
    ),
    "chain": (
        "out = t(X) %*% (X %*% v)",
        """
        WITH Y AS (SELECT X.i AS i, SUM(X.v * w.v) AS v FROM X JOIN w ON X.j = w.i GROUP BY X.i)
        SELECT X.j AS i, 0 AS j, SUM(X.v * Y.v) AS v FROM X JOIN Y ON X.i = Y.i GROUP BY X.j
        """,
        None,  # the optimized plan is the program as written
    ),
    "als": (
        "out = (U %*% t(V) - X) %*% V + 0.1 * U",
        """
        WITH P AS (SELECT U.i AS i, V.i AS j, SUM(U.v * V.v) AS v
                   FROM U JOIN V ON U.j = V.j GROUP BY U.i, V.i),
             R AS (SELECT COALESCE(P.i, X.i) AS i, COALESCE(P.j, X.j) AS j,
                          COALESCE(P.v, 0) - COALESCE(X.v, 0) AS v
                   FROM P FULL OUTER JOIN X ON P.i = X.i AND P.j = X.j)
        SELECT i, j, SUM(v) AS v FROM (
            SELECT R.i AS i, V.j AS j, R.v * V.v AS v FROM R JOIN V ON R.j = V.i
            UNION ALL SELECT i, j, 0.1 * v FROM U) GROUP BY i, j
        """,
        """
        WITH G AS (SELECT a.j AS k, b.j AS l, SUM(a.v * b.v) AS v FROM V a JOIN V b ON a.i = b.i GROUP BY a.j, b.j)
        SELECT i, j, SUM(v) AS v FROM (
            SELECT U.i AS i, G.l AS j, U.v * G.v AS v FROM U JOIN G ON U.j = G.k
            UNION ALL SELECT X.i AS i, V.j AS j, -X.v * V.v AS v FROM X JOIN V ON X.j = V.i
            UNION ALL SELECT i, j, 0.1 * v FROM U) GROUP BY i, j
        """,
    ),
}


def write_coo(path, rows, cols, i, j, v, group=1 << 20):
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pa.schema(
        [("i", pa.int64(), False), ("j", pa.int64(), False), ("v", pa.float64(), False)],
        metadata={"rows": str(rows), "cols": str(cols), "unique_cells": "true", "finite": "true"},
    )
    tmp = str(path) + ".tmp"
    with pq.ParquetWriter(tmp, schema, compression="snappy") as w:
        for s in range(0, len(v), group):
            w.write_table(
                pa.table({"i": i[s : s + group], "j": j[s : s + group], "v": v[s : s + group]}, schema=schema),
                row_group_size=group,
            )
    os.replace(tmp, path)


def dense_coo(path, rows, cols, rng):
    k = np.arange(rows * cols, dtype=np.int64)
    write_coo(path, rows, cols, k // cols, k % cols, rng.uniform(0.0, 1.0, rows * cols))


def gen(args):
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    nnz, rows, cols, r = int(float(args.nnz)), args.rows, args.cols, args.rank
    per_row = max(1, nnz // rows)
    assert per_row <= cols, "more non-zeros per row than columns"
    rng = np.random.default_rng(7)
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pa.schema(
        [("i", pa.int64(), False), ("j", pa.int64(), False), ("v", pa.float64(), False)],
        metadata={"rows": str(rows), "cols": str(cols), "unique_cells": "true", "finite": "true"},
    )
    stride = cols // per_row
    tmp = out / "X.parquet.tmp"
    block = max(1, (1 << 20) // per_row)
    with pq.ParquetWriter(tmp, schema, compression="snappy") as w:
        for start in range(0, rows, block):
            n = min(block, rows - start)
            # Row k holds columns offset_k + t * stride (t < per_row): distinct and sorted.
            offsets = rng.integers(0, stride, n)
            i = np.repeat(np.arange(start, start + n, dtype=np.int64), per_row)
            j = (np.repeat(offsets, per_row) + np.tile(np.arange(per_row) * stride, n)).astype(np.int64)
            v = rng.uniform(1.0, 5.0, n * per_row)
            w.write_table(pa.table({"i": i, "j": j, "v": v}, schema=schema), row_group_size=1 << 20)
    os.replace(tmp, out / "X.parquet")
    dense_coo(out / "U.parquet", rows, r, rng)
    dense_coo(out / "V.parquet", cols, r, rng)
    dense_coo(out / "v.parquet", cols, 1, rng)
    (out / "shape.json").write_text(json.dumps({"rows": rows, "cols": cols, "nnz": rows * per_row, "rank": r}))
    print(f"wrote {out}: X {rows}x{cols} with {rows * per_row} non-zeros, rank {r}")


def read_result(path):
    import pyarrow.parquet as pq

    t = pq.read_table(path)
    cols = t.column_names
    i = t.column("i").to_numpy() if "i" in cols else np.zeros(t.num_rows, dtype=np.int64)
    j = t.column("j").to_numpy() if "j" in cols else np.zeros(t.num_rows, dtype=np.int64)
    return i.astype(np.int64), j.astype(np.int64), t.column("v").to_numpy().astype(float)


def checksum(path):
    """Sum of squares and sum of the result's cells (duplicates summed first)."""
    i, j, v = read_result(path)
    if len(v) == 0:
        return (0.0, 0.0)
    key = i * (1 << 32) + j
    order = np.argsort(key, kind="stable")
    key, v = key[order], v[order]
    starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
    cells = np.add.reduceat(v, starts)
    return (float(np.sum(cells * cells)), float(np.sum(cells)))


def timed(cmd, timeout, env=None):
    start = time.perf_counter()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return None, f"over {timeout} s"
    took = time.perf_counter() - start
    if p.returncode != 0:
        lines = p.stderr.strip().splitlines() or ["?"]
        keys = ("Resources exhausted", "Out of Memory", "OutOfMemory", "error", "Error", "Exception")
        first = next((l for l in lines if any(k in l for k in keys)), lines[-1])
        return None, "failed: " + " ".join(first.split())[:120].replace("|", "/")
    return took, ""


def run_spores(binary, d, name, body, flags, memory, timeout, out, threads=2):
    script = d / f"{name}.dml"
    script.write_text(
        "\n".join(f'{m} = read("{d / (m + ".parquet")}")' for m in ["X", "U", "V", "v"])
        + f"\n{body}\nwrite(out, \"{out}\")\n"
    )
    cmd = [binary, "run", str(script), "--memory", memory, "--threads", str(threads)] + flags
    # DataFusion spills under TMPDIR; `run` empties it after each run (a run stopped by the
    # timeout cannot remove its own files).
    return timed(cmd, timeout, env={**os.environ, "TMPDIR": str(d / "tmp")})


DUCKDB = """
import duckdb, sys
con = duckdb.connect()
con.execute("SET threads=2; SET memory_limit='{memory}'; SET temp_directory='{tmp}'")
for m in ["X", "U", "V"]:
    con.execute(f"CREATE VIEW {{m}} AS SELECT * FROM read_parquet('{d}/{{m}}.parquet')")
con.execute("CREATE VIEW w AS SELECT * FROM read_parquet('{d}/v.parquet')")
con.execute(\"\"\"COPY ({sql}) TO '{out}' (FORMAT parquet)\"\"\")
"""

SPARK = """
import sys
from pyspark.sql import SparkSession
spark = (SparkSession.builder.master("local[2]").config("spark.driver.memory", "{memory}")
         .config("spark.sql.shuffle.partitions", "8").config("spark.ui.enabled", "false")
         .config("spark.local.dir", "{tmp}").getOrCreate())
spark.sparkContext.setLogLevel("ERROR")
for m in ["X", "U", "V"]:
    spark.read.parquet("{d}/" + m + ".parquet").createOrReplaceTempView(m)
spark.read.parquet("{d}/v.parquet").createOrReplaceTempView("w")
spark.sql(\"\"\"{sql}\"\"\").coalesce(1).write.mode("overwrite").parquet("{out}")
spark.stop()
"""


def max_spark(memory):
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    size = float(memory[:-1]) * units[memory[-1].upper()]
    return memory.lower() if size >= (1 << 30) else "1g"


def run_sql(engine, d, sql, memory, timeout, out, tmp):
    template = DUCKDB if engine == "duckdb" else SPARK
    # Spark's driver needs about 450 MB of heap to start at all.
    mem = memory.replace("G", "GB").replace("M", "MB") if engine == "duckdb" else max_spark(memory)
    code = template.format(memory=mem, tmp=tmp, d=d, sql=" ".join(sql.split()), out=out)
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable)
    return timed([sys.executable, "-c", code], timeout, env)


def spark_result(out):
    """Spark writes a directory of part files."""
    parts = sorted(Path(out).glob("part-*.parquet"))
    return parts[0] if parts else None


def systems(spec):
    """`--systems`: substrings of run labels, separated by `;` (labels hold commas) or `,`."""
    return [s.strip() for s in spec.split(";" if ";" in spec else ",") if s.strip()]


def run(args):
    d = Path(args.dir).resolve()
    shape = json.loads((d / "shape.json").read_text())
    binary = args.spores
    tmp = d / "tmp"
    tmp.mkdir(exist_ok=True)
    rows = []
    for name in args.programs.split(","):
        body, as_written, optimized = PROGRAMS[name]
        optimized = optimized or as_written
        runs = [
            ("spores, local engine", lambda o: run_spores(binary, d, name, body, [], args.memory, args.timeout, o)),
            ("spores on DataFusion, optimized", lambda o: run_spores(binary, d, name, body, ["--engine", "datafusion", "--full-search"], args.memory, args.timeout, o)),
            ("spores on DataFusion, as written", lambda o: run_spores(binary, d, name, body, ["--engine", "datafusion", "--no-opt"], args.memory, args.timeout, o)),
            ("DuckDB, SQL as written", lambda o: run_sql("duckdb", d, as_written, args.memory, args.timeout, o, tmp)),
            ("DuckDB, SQL of the optimized plan", lambda o: run_sql("duckdb", d, optimized, args.memory, args.timeout, o, tmp)),
            ("PySpark local[2], SQL as written", lambda o: run_sql("spark", d, as_written, args.memory, args.timeout, o, tmp)),
            ("PySpark local[2], SQL of the optimized plan", lambda o: run_sql("spark", d, optimized, args.memory, args.timeout, o, tmp)),
        ]
        results = {}
        for label, go in runs:
            if args.systems and not any(s in label for s in systems(args.systems)):
                continue
            out = d / f"out-{name}-{len(results)}.parquet"
            took, why = go(out)
            shutil.rmtree(tmp, ignore_errors=True)
            tmp.mkdir()
            check = None
            if took is not None:
                path = spark_result(out) if "Spark" in label else out
                check = checksum(path) if path else None
            results[label] = (took, why, check)
            shown = f"{took:.1f} s" if took is not None else why
            print(f"{name:6} {label:45} {shown}", flush=True)
        sums = [c for (_, _, c) in results.values() if c is not None]
        for c in sums:
            for a, b in zip(c, sums[0]):
                assert abs(a - b) <= 1e-6 * max(1.0, abs(b)), f"{name}: results differ: {sums}"
        rows.append((name, results))
    lines = [
        f"X {shape['rows']}x{shape['cols']} with {shape['nnz']:,} non-zeros, rank {shape['rank']}; "
        f"--memory {args.memory}, 2 threads; seconds (wall, reading Parquet and writing the result included)",
        "",
        "| program | " + " | ".join(rows[0][1].keys()) + " |",
        "|---|" + "---|" * len(rows[0][1]),
    ]
    for name, results in rows:
        cells = [f"{t:.1f}" if t is not None else why for (t, why, _) in results.values()]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    text = "\n".join(lines) + "\n"
    print(text)
    Path(args.table).parent.mkdir(parents=True, exist_ok=True)
    Path(args.table).write_text(text)


def start_cluster(binary, executors, slots, memory, tmp, pin):
    """A `spores ballista cluster` process (a scheduler and executor processes) and its
    scheduler's address."""
    cmd = [binary, "ballista", "cluster", "--executors", str(executors), "--slots", str(slots), "--memory", memory]
    cmd += ["--pin"] if pin else []
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                            env={**os.environ, "TMPDIR": str(tmp)})
    address = proc.stdout.readline().strip()
    if not address.startswith("ballista://"):
        proc.kill()
        raise SystemExit(f"`{' '.join(cmd)}` printed {address!r}, not a scheduler address")
    return proc, address


def shuffle_bytes(tmp):
    """Bytes of the shuffle files under the executors' work directories (the stages'
    outputs, each read by the next stage or by the client)."""
    total = 0
    for root, _, files in os.walk(tmp):
        if "executor-" in root:
            total += sum(os.path.getsize(os.path.join(root, f)) for f in files)
    return total


def ballista(args):
    d = Path(args.dir).resolve()
    shape = json.loads((d / "shape.json").read_text())
    binary = args.spores
    tmp = d / "tmp"
    counts = [int(n) for n in args.executors.split(",")]
    columns = ["DataFusion, 1 thread", "DataFusion, 2 threads"] + [
        f"Ballista, {n} executor{'s' if n > 1 else ''}" for n in counts
    ]
    results = {name: {} for name in args.programs.split(",")}
    moved = {name: {} for name in results}

    # Every configuration runs each program once a round, side by side, so that a slow
    # minute of the machine falls on all of them alike instead of on whichever ran then. A
    # cluster is started for its turn in a round (no idle processes beside the others) and
    # runs one program before the timed ones: the first job of fresh executors is slower.
    times = {name: {label: [] for label in columns} for name in results}
    failed = {name: {} for name in results}
    checks = {name: {} for name in results}

    def measure(name, label, flags, threads, timed_run=True):
        if label in failed[name]:
            return
        out = d / f"out-{name}-{label.replace(' ', '').replace(',', '-')}.parquet"
        before = shuffle_bytes(tmp)
        took, why = run_spores(binary, d, name, PROGRAMS[name][0], flags + ["--full-search"], args.memory,
                               args.timeout, out, threads)
        if not timed_run:
            return
        if took is None:
            failed[name][label] = why
            return
        moved[name][label] = shuffle_bytes(tmp) - before
        times[name][label].append(took)
        checks[name][label] = checksum(out)

    def fresh_tmp():
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir()

    engines = [(label, None, threads) for threads, label in zip((1, 2), columns[:2])]
    engines += [(label, n, args.partitions or n * args.slots) for n, label in zip(counts, columns[2:])]
    warm_up = next(iter(results))
    for round_ in range(args.repeat):
        shift = round_ % len(engines)
        for label, executors, threads in engines[shift:] + engines[:shift]:
            fresh_tmp()
            if executors is None:
                for name in results:
                    measure(name, label, ["--engine", "datafusion"], threads)
                continue
            proc, address = start_cluster(binary, executors, args.slots, args.memory, tmp, args.pin)
            try:
                measure(warm_up, label, ["--engine", address], threads, timed_run=False)
                for name in results:
                    measure(name, label, ["--engine", address], threads)
            finally:
                proc.kill()
                proc.wait()
        print(f"round {round_ + 1} of {args.repeat} done", flush=True)
    fresh_tmp()
    for name in results:
        for label in columns:
            runs = times[name][label]
            why = failed[name].get(label, "")
            took = float(np.median(runs)) if runs and not why else None
            results[name][label] = (took, why, checks[name].get(label), runs)
            shown = (f"{took:.2f} s (runs {', '.join(f'{t:.2f}' for t in runs)})" if took is not None
                     else why)
            print(f"{name:6} {label:25} {shown}", flush=True)
    worst = 0.0
    for name, runs in results.items():
        sums = [c for (_, _, c, _) in runs.values() if c is not None]
        for c in sums:
            for a, b in zip(c, sums[0]):
                rel = abs(a - b) / max(1.0, abs(b))
                worst = max(worst, rel)
                assert rel <= 1e-9, f"{name}: results differ: {sums}"
    load = os.getloadavg()
    lines = [
        f"X {shape['rows']}x{shape['cols']} with {shape['nnz']:,} non-zeros, rank {shape['rank']}; "
        f"--memory {args.memory} (each executor's); executors of {args.slots} task slot(s)"
        f"{', each pinned to one core' if args.pin else ''}, plans in as many partitions as slots; "
        f"medians of {args.repeat} rounds (slowest run in parentheses), each configuration once a round; "
        f"seconds (wall, reading Parquet and writing the result included); "
        f"largest relative difference of the results' checksums {worst:.1e}; "
        f"load average at the end {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}",
        "",
        "| program | " + " | ".join(columns) + "".join(f" | {n} vs {counts[0]}" for n in counts[1:])
        + " | shuffle bytes (" + ", ".join(columns[2:]) + ") |",
        "|---|" + "---|" * (len(columns) + len(counts)),
    ]
    for name, runs in results.items():
        cells = [f"{runs[c][0]:.2f} ({max(runs[c][3]):.2f})" if runs[c][0] is not None else runs[c][1]
                 for c in columns]
        smallest = runs[columns[2]][0]
        for c in columns[3:]:
            cells.append(f"{smallest / runs[c][0]:.2f}x" if smallest and runs[c][0] else "-")
        shuffled = ", ".join(f"{moved[name].get(c, 0):,}" for c in columns[2:])
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {shuffled} |")
    text = "\n".join(lines) + "\n"
    print(text)
    Path(args.table).parent.mkdir(parents=True, exist_ok=True)
    Path(args.table).write_text(text)


def runs(parser, programs):
    """The options every command that runs the programs takes; returns `parser`."""
    parser.add_argument("--dir", default="bench/out/dist")
    parser.add_argument("--memory", default="1G")
    parser.add_argument("--timeout", type=float, default=900)
    parser.add_argument("--programs", default=programs)
    return parser


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("gen")
    g.add_argument("--nnz", default="1e7")
    g.add_argument("--rows", type=int, default=1_000_000)
    g.add_argument("--cols", type=int, default=100_000)
    g.add_argument("--rank", type=int, default=10)
    g.add_argument("--out", default="bench/out/dist")
    r = runs(sub.add_parser("run"), programs="loss,chain,als")
    r.add_argument("--systems", default="", help="substrings of the run labels to keep, separated by ';' or ','")
    r.add_argument("--spores", default=str(ROOT / "target/release/spores"))
    r.add_argument("--table", default="bench/out/dist_scale.md")
    b = runs(sub.add_parser("ballista"), programs="chain,loss,als")
    b.add_argument("--slots", type=int, default=1, help="task slots per executor")
    b.add_argument("--partitions", type=int, default=0, help="partitions of each Ballista plan (default: the executors' slots)")
    b.add_argument("--executors", default="1,2", help="cluster sizes, e.g. 1,2,4")
    b.add_argument("--pin", action="store_true", help="pin each executor to one core")
    b.add_argument("--repeat", type=int, default=3, help="rounds, each running every configuration once (the median is shown)")
    b.add_argument("--spores", default=str(ROOT / "target/release/spores"))
    b.add_argument("--table", default="bench/out/dist_ballista.md")
    args = ap.parse_args()
    {"gen": gen, "run": run, "ballista": ballista}[args.cmd](args)


if __name__ == "__main__":
    main()
