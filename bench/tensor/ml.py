#!/usr/bin/env python3
"""ML over joins (Galley §8.1): spores vs NumPy/pandas materializing the feature tensor.

A seeded TPC-H-like schema (our own generator with TPC-H's key structure and row counts per
scale factor: lineitem 6M*sf rows referencing orders 1.5M*sf, part 200k*sf, supplier 10k*sf;
orders reference customer 150k*sf), dense numeric features per dimension table in disjoint
column blocks. Two joins, as in the paper:

  star (--join star): a data point per line item,
    X[i,j] = sum[s,p,o,c](L[i,s,p,o,c] * (S[s,j] + P[p,j] + O[o,j] + C[c,j]))
  self (--join self): a data point per pair of line items of the same part,
    X[a,b,j] = sum[s1,s2,p](L[a,s1,p] * L[b,s2,p] * (S[s1,j] + S[s2,j] + P[p,j]))

with L the 0/1 lineitem tensor. Four tasks (programs in bench/tensor/ml/ and ml/self/): linear
and logistic regression inference, covariance t(X) X, a 1-hidden-layer network.

Baselines: pandas merges the tables to materialize X, then NumPy runs the task; NumPy alone,
gathering rows by key (the self-join's pairs from lineitem sorted by part); and DuckDB, the
join and the task in one SQL statement whose result is materialized as a table (default
threads). spores time = optimization + execution (median of --repeat runs, inputs already
loaded, as for the baselines, whose table loading is not timed either). Results are
cross-checked.

Usage (from the repository root):
  cargo build --release -p spores-tensor --example run_program
  bench/.venv/bin/python bench/tensor/ml.py [--join star|self] [--sf 0.01] [--repeat 3]
      [--optimizer greedy] [--tasks linreg,logreg,nn] [--keep DIR] [--runner PATH]
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
FEATURES = {"S": 4, "P": 6, "O": 4, "C": 6}
# The dimension tables each join reads, in column-block order, and the key columns of L.
JOINS = {"star": ("S", "P", "O", "C"), "self": ("S", "P")}
HIDDEN = 8


def generate(sf, seed):
    rng = np.random.default_rng(seed)
    n_l, n_o, n_c = int(6_000_000 * sf), int(1_500_000 * sf), int(150_000 * sf)
    n_p, n_s = int(200_000 * sf), int(10_000 * sf)
    sizes = {"S": n_s, "P": n_p, "O": n_o, "C": n_c}
    keys = {
        "s": rng.integers(0, n_s, n_l),
        "p": rng.integers(0, n_p, n_l),
        "o": rng.integers(0, n_o, n_l),
    }
    o_cust = rng.integers(0, n_c, n_o)
    keys["c"] = o_cust[keys["o"]]
    feats = {t: rng.standard_normal((sizes[t], FEATURES[t])) for t in FEATURES}
    return n_l, sizes, keys, o_cust, feats


def write_dense(path, m):
    with open(path, "w") as f:
        f.write("%%MatrixMarket matrix array real general\n")
        f.write(f"{m.shape[0]} {m.shape[1]}\n")
        np.savetxt(f, m.T.reshape(-1), fmt="%.17g")


def write_inputs(d, join, n_l, sizes, keys, feats, theta, w1, w2):
    tables = JOINS[join]
    total = sum(FEATURES[t] for t in tables)
    key_of = {"S": "s", "P": "p", "O": "o", "C": "c"}
    with open(d / "L.tns", "w") as f:
        dims = ", ".join(str(n) for n in [n_l] + [sizes[t] for t in tables])
        f.write(f"# dims [{dims}] fill 0\n")
        rows = np.column_stack([np.arange(n_l)] + [keys[key_of[t]] for t in tables]) + 1
        np.savetxt(f, np.column_stack([rows, np.ones(n_l)]), fmt="%d")
    off = 0
    for t in tables:
        m = feats[t]
        r, c = np.nonzero(m)
        with open(d / f"{t}.mtx", "w") as f:
            f.write("%%MatrixMarket matrix coordinate real general\n")
            f.write(f"{m.shape[0]} {total} {len(r)}\n")
            np.savetxt(f, np.column_stack([r + 1, c + 1 + off, m[r, c]]), fmt="%d %d %.17g")
        off += FEATURES[t]
    for name, m in (("theta", theta.reshape(-1, 1)), ("W1", w1), ("w2", w2.reshape(-1, 1))):
        write_dense(d / f"{name}.mtx", m)


def tasks(theta, w1, w2):
    sig = lambda z: 1.0 / (1.0 + np.exp(-z))
    return {
        "linreg": (lambda X: X @ theta, ("theta",)),
        "logreg": (lambda X: sig(X @ theta), ("theta",)),
        "covariance": (lambda X: X.T @ X, ()),
        "nn": (lambda X: np.maximum(X @ w1, 0.0) @ w2, ("W1", "w2")),
    }


def timed(f, repeat):
    ts, out = [], None
    for _ in range(repeat):
        out = None  # free the previous result before the next run builds its own
        t0 = time.perf_counter()
        out = f()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts), out


def star_baselines(sizes, keys, o_cust, feats):
    """pandas merges lineitem with orders and the four dimension tables; NumPy gathers rows."""
    lineitem = pd.DataFrame({"l_suppkey": keys["s"], "l_partkey": keys["p"], "l_orderkey": keys["o"]})
    orders = pd.DataFrame({"o_orderkey": np.arange(sizes["O"]), "o_custkey": o_cust})
    dims = {}
    for t, col in (("S", "l_suppkey"), ("P", "l_partkey"), ("O", "l_orderkey"), ("C", "o_custkey")):
        df = pd.DataFrame(feats[t], columns=[f"{t}{k}" for k in range(FEATURES[t])])
        df[col] = np.arange(sizes[t])
        dims[t] = (col, df)
    feature_cols = [f"{t}{k}" for t in FEATURES for k in range(FEATURES[t])]

    def pandas_x():
        df = lineitem.merge(orders, left_on="l_orderkey", right_on="o_orderkey")
        for t in FEATURES:
            col, d = dims[t]
            df = df.merge(d, on=col)
        return df[feature_cols].to_numpy()

    def numpy_x():
        return np.hstack([feats["S"][keys["s"]], feats["P"][keys["p"]], feats["O"][keys["o"]], feats["C"][keys["c"]]])

    return pandas_x, numpy_x


def self_baselines(sizes, keys, feats):
    """Pairs of line items of the same part: pandas merges lineitem with itself on the part
    key, then with the suppliers twice and the parts once; NumPy sorts lineitem by part and
    enumerates each part's pairs. X's supplier block is S[s1] + S[s2], its part block P[p]."""
    s, p = keys["s"], keys["p"]
    lineitem = pd.DataFrame({"l_suppkey": s, "l_partkey": p})
    scols = [f"S{k}" for k in range(FEATURES["S"])]
    pcols = [f"P{k}" for k in range(FEATURES["P"])]
    supp = pd.DataFrame(feats["S"], columns=scols)
    supp["l_suppkey"] = np.arange(sizes["S"])
    part = pd.DataFrame(feats["P"], columns=pcols)
    part["l_partkey"] = np.arange(sizes["P"])

    def pandas_x():
        pairs = lineitem.merge(lineitem, on="l_partkey", suffixes=("_1", "_2"))
        one = pairs.merge(supp, how="left", left_on="l_suppkey_1", right_on="l_suppkey")[scols].to_numpy()
        two = pairs.merge(supp, how="left", left_on="l_suppkey_2", right_on="l_suppkey")[scols].to_numpy()
        by_part = pairs.merge(part, how="left", on="l_partkey")[pcols].to_numpy()
        # A left merge keeps the left frame's row order, so the three blocks line up.
        return np.hstack([one + two, by_part])

    def numpy_x():
        order = np.argsort(p, kind="stable")
        count = np.bincount(p, minlength=sizes["P"])
        start = np.concatenate([[0], np.cumsum(count)[:-1]])
        group = p[order]
        repeat = count[group]
        a = np.repeat(order, repeat)
        first = np.repeat(start[group], repeat)
        within = np.arange(len(a)) - np.repeat(np.cumsum(repeat) - repeat, repeat)
        b = order[first + within]
        return np.hstack([feats["S"][s[a]] + feats["S"][s[b]], feats["P"][p[a]]])

    return pandas_x, numpy_x


def duckdb_tasks(join, sizes, keys, o_cust, feats, theta, w1, w2):
    """DuckDB's SQL for each task: the join written out, each feature an expression over the
    joined rows, the task as SQL arithmetic and aggregates (default threads). Returns
    {task: (sql that materializes the result, sql of its checksum)} and the connection."""
    import duckdb
    con = duckdb.connect()
    con.register("lineitem", pd.DataFrame({"l_suppkey": keys["s"], "l_partkey": keys["p"],
                                           "l_orderkey": keys["o"]}))
    con.register("orders", pd.DataFrame({"o_orderkey": np.arange(sizes["O"]), "o_custkey": o_cust}))
    for t in JOINS[join]:
        df = pd.DataFrame(feats[t], columns=[f"{t}{k}" for k in range(FEATURES[t])])
        df["k"] = np.arange(sizes[t])
        con.register(f"dim_{t}", df)
    if join == "star":
        source = ("lineitem l JOIN orders o ON l.l_orderkey = o.o_orderkey "
                  "JOIN dim_S s ON l.l_suppkey = s.k JOIN dim_P p ON l.l_partkey = p.k "
                  "JOIN dim_O f ON l.l_orderkey = f.k JOIN dim_C c ON o.o_custkey = c.k")
        alias = {"S": "s", "P": "p", "O": "f", "C": "c"}
        x = [f"{alias[t]}.{t}{k}" for t in FEATURES for k in range(FEATURES[t])]
    else:
        source = ("lineitem l1 JOIN lineitem l2 ON l1.l_partkey = l2.l_partkey "
                  "JOIN dim_S s1 ON l1.l_suppkey = s1.k JOIN dim_S s2 ON l2.l_suppkey = s2.k "
                  "JOIN dim_P p ON l1.l_partkey = p.k")
        x = [f"(s1.S{k} + s2.S{k})" for k in range(FEATURES["S"])]
        x += [f"p.P{k}" for k in range(FEATURES["P"])]
    dot = lambda w: " + ".join(f"{xj} * {float(wj)!r}" for xj, wj in zip(x, w))
    hidden = [f"{float(w2[h])!r} * greatest({dot(w1[:, h])}, 0)" for h in range(w1.shape[1])]
    pairs = [(j, k) for j in range(len(x)) for k in range(j, len(x))]
    gram = ", ".join(f"sum({x[j]} * {x[k]}) AS g{j}_{k}" for j, k in pairs)
    twice = " + ".join(f"{1 if j == k else 2} * g{j}_{k}" for j, k in pairs)
    table = "CREATE OR REPLACE TEMP TABLE r AS SELECT {} FROM " + source
    return con, {
        "linreg": (table.format(f"{dot(theta)} AS y"), "SELECT sum(y) FROM r"),
        "logreg": (table.format(f"1 / (1 + exp(-({dot(theta)}))) AS y"), "SELECT sum(y) FROM r"),
        "covariance": (table.format(gram), f"SELECT {twice} FROM r"),
        "nn": (table.format(f"{' + '.join(hidden)} AS y"), "SELECT sum(y) FROM r"),
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--join", choices=sorted(JOINS), default="star")
    ap.add_argument("--sf", type=float, default=0.01)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--optimizer", default="greedy")
    ap.add_argument("--tasks", default="linreg,logreg,covariance,nn",
                    help="comma-separated subset of linreg,logreg,covariance,nn")
    ap.add_argument("--systems", default="spores,pandas,numpy,duckdb",
                    help="comma-separated subset of spores,pandas,numpy,duckdb")
    ap.add_argument("--runner", metavar="PATH",
                    help="run_program binary to time (default: target/release/examples/run_program)")
    ap.add_argument("--keep", metavar="DIR",
                    help="write the generated inputs to DIR (kept) instead of a temporary directory")
    args = ap.parse_args()
    wanted = args.tasks.split(",")
    systems = args.systems.split(",")
    exe = Path(args.runner) if args.runner else ROOT / "target" / "release" / "examples" / "run_program"
    if "spores" in systems and not exe.exists():
        sys.exit("build the runner first: cargo build --release -p spores-tensor --example run_program")
    n_l, sizes, keys, o_cust, feats = generate(args.sf, args.seed)
    rng = np.random.default_rng(args.seed + 1)
    tables = JOINS[args.join]
    total = sum(FEATURES[t] for t in tables)
    theta = rng.standard_normal(total)
    w1 = rng.standard_normal((total, HIDDEN))
    w2 = rng.standard_normal(HIDDEN)
    if args.join == "star":
        pandas_x, numpy_x = star_baselines(sizes, keys, o_cust, feats)
        programs = HERE / "ml"
        points = f"{n_l} line items"
    else:
        pandas_x, numpy_x = self_baselines(sizes, keys, feats)
        programs = HERE / "ml" / "self"
        pairs = int(np.sum(np.bincount(keys["p"], minlength=sizes["P"]).astype(np.int64) ** 2))
        points = f"{pairs} pairs of line items"
    print(f"# {args.join} join, sf {args.sf}: lineitem {n_l}, orders {sizes['O']}, customer {sizes['C']}, "
          f"part {sizes['P']}, supplier {sizes['S']}; {points}; {total} features; load {os.getloadavg()}; "
          f"optimizer {args.optimizer}")

    with tempfile.TemporaryDirectory() as tmp:
        d = Path(args.keep or tmp)
        d.mkdir(parents=True, exist_ok=True)
        write_inputs(d, args.join, n_l, sizes, keys, feats, theta, w1, w2)
        if "duckdb" in systems:
            con, sql = duckdb_tasks(args.join, sizes, keys, o_cust, feats, theta, w1, w2)
        print(f"{'task':<11} {'spores opt ms':>13} {'spores exec ms':>14} {'pandas ms':>10} {'numpy ms':>9} "
              f"{'duckdb ms':>9} {'vs pandas':>9} {'vs numpy':>9} {'vs duckdb':>9} {'check':>6}")
        for name, (f, extra) in tasks(theta, w1, w2).items():
            if name not in wanted:
                continue
            t_pd = timed(lambda: f(pandas_x()), args.repeat)[0] if "pandas" in systems else float("nan")
            t_np, ref = timed(lambda: f(numpy_x()), args.repeat) if "numpy" in systems else (float("nan"), None)
            t_db, db_ok = float("nan"), "-"
            if "duckdb" in systems:
                make, total = sql[name]
                t_db = timed(lambda: con.execute(make), args.repeat)[0]
                if ref is not None:
                    got = float(con.execute(total).fetchone()[0])
                    scale = max(1.0, float(np.sum(np.abs(ref))))
                    db_ok = "ok" if abs(got - float(np.sum(ref))) <= 1e-9 * scale else "WRONG"
                con.execute("DROP TABLE r")
            if "spores" not in systems:
                print(f"{name:<11} {'-':>13} {'-':>14} {t_pd*1e3:>10.2f} {t_np*1e3:>9.2f} {t_db*1e3:>9.2f}"
                      f" duckdb {db_ok}", flush=True)
                continue
            cmd = [str(exe), "--optimizer", args.optimizer, "--repeat", str(args.repeat), str(programs / f"{name}.tp")]
            cmd += [f"{t}={d / f'{t}.mtx'}" for t in tables] + [f"L={d / 'L.tns'}"]
            cmd += [f"{e}={d / f'{e}.mtx'}" for e in extra]
            out = subprocess.run(cmd, capture_output=True, text=True)
            if out.returncode != 0:
                print(f"{name:<11} spores failed: {out.stderr.strip()}")
                continue
            runs = [l.split("\t") for l in out.stdout.splitlines() if l.startswith("run\t")]
            opt = statistics.median(float(r[2]) for r in runs) / 1e3
            exe_t = statistics.median(float(r[3]) for r in runs) / 1e3
            # The sum of the stored cells: over the self-join's pairs a result whose fill is
            # not 0 (sigmoid of 0 is 0.5 for every other pair of line items) is checked on the
            # pairs, as NumPy computes it.
            checksum = float([l for l in out.stdout.splitlines() if l.startswith("output")][0].split("\t")[4])
            if ref is None:
                check = "-"
            else:
                # The sum of many mixed-sign cells can be near zero: scale by the sum of sizes.
                scale = max(1.0, float(np.sum(np.abs(ref))))
                check = "ok" if abs(checksum - float(np.sum(ref))) <= 1e-9 * scale else "WRONG"
            if db_ok == "WRONG":
                check = "DUCKDB WRONG"
            ref = None
            ours = opt + exe_t
            print(f"{name:<11} {opt*1e3:>13.2f} {exe_t*1e3:>14.2f} {t_pd*1e3:>10.2f} {t_np*1e3:>9.2f} "
                  f"{t_db*1e3:>9.2f} {t_pd/ours:>8.2f}x {t_np/ours:>8.2f}x {t_db/ours:>8.2f}x {check:>6}",
                  flush=True)
    print(f"# load after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
