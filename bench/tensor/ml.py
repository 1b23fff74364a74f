#!/usr/bin/env python3
"""ML over joins (Galley §8.1): spores vs NumPy/pandas materializing the feature matrix.

A seeded TPC-H-like star schema (our own generator with TPC-H's key structure and row
counts per scale factor: lineitem 6M*sf rows referencing orders 1.5M*sf, part 200k*sf,
supplier 10k*sf; orders reference customer 150k*sf), dense numeric features per dimension
table in disjoint column blocks. The feature matrix is
  X[i,j] = sum[s,p,o,c](L[i,s,p,o,c] * (S[s,j] + P[p,j] + O[o,j] + C[c,j]))
with L the 0/1 lineitem tensor. Four tasks (programs in bench/tensor/ml/): linear and
logistic regression inference, covariance t(X) %*% X, a 1-hidden-layer network.

Baselines: pandas merges lineitem with the dimension tables to materialize X, then NumPy
runs the task; and NumPy alone, gathering rows by key (X = [S[ls] P[lp] O[lo] C[lc]]).
spores time = optimization + execution (median of --repeat runs, inputs already loaded, as
for the baselines, whose table loading is not timed either). Results are cross-checked.

Usage (from the repository root):
  cargo build --release -p spores-tensor --example run_program
  bench/.venv/bin/python bench/tensor/ml.py [--sf 0.01] [--repeat 3] [--optimizer greedy]
      [--tasks linreg,logreg,nn] [--keep DIR] [--runner PATH]
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


def write_inputs(d, n_l, sizes, keys, feats, theta, w1, w2):
    total = sum(FEATURES.values())
    with open(d / "L.tns", "w") as f:
        f.write(f"# dims [{n_l}, {sizes['S']}, {sizes['P']}, {sizes['O']}, {sizes['C']}] fill 0\n")
        rows = np.column_stack([np.arange(n_l), keys["s"], keys["p"], keys["o"], keys["c"]]) + 1
        np.savetxt(f, np.column_stack([rows, np.ones(n_l)]), fmt="%d")
    off = 0
    for t, k in FEATURES.items():
        m = feats[t]
        r, c = np.nonzero(m)
        with open(d / f"{t}.mtx", "w") as f:
            f.write("%%MatrixMarket matrix coordinate real general\n")
            f.write(f"{m.shape[0]} {total} {len(r)}\n")
            np.savetxt(f, np.column_stack([r + 1, c + 1 + off, m[r, c]]), fmt="%d %d %.17g")
        off += k
    for name, m in (("theta", theta.reshape(-1, 1)), ("W1", w1), ("w2", w2.reshape(-1, 1))):
        with open(d / f"{name}.mtx", "w") as f:
            f.write("%%MatrixMarket matrix array real general\n")
            f.write(f"{m.shape[0]} {m.shape[1]}\n")
            np.savetxt(f, m.T.reshape(-1), fmt="%.17g")


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
        t0 = time.perf_counter()
        out = f()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts), out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sf", type=float, default=0.01)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--optimizer", default="greedy")
    ap.add_argument("--tasks", default="linreg,logreg,covariance,nn",
                    help="comma-separated subset of linreg,logreg,covariance,nn")
    ap.add_argument("--runner", metavar="PATH",
                    help="run_program binary to time (default: target/release/examples/run_program)")
    ap.add_argument("--keep", metavar="DIR",
                    help="write the generated inputs to DIR (kept) instead of a temporary directory")
    args = ap.parse_args()
    wanted = args.tasks.split(",")
    exe = Path(args.runner) if args.runner else ROOT / "target" / "release" / "examples" / "run_program"
    if not exe.exists():
        sys.exit("build the runner first: cargo build --release -p spores-tensor --example run_program")
    n_l, sizes, keys, o_cust, feats = generate(args.sf, args.seed)
    rng = np.random.default_rng(args.seed + 1)
    total = sum(FEATURES.values())
    theta = rng.standard_normal(total)
    w1 = rng.standard_normal((total, HIDDEN))
    w2 = rng.standard_normal(HIDDEN)
    print(f"# sf {args.sf}: lineitem {n_l}, orders {sizes['O']}, customer {sizes['C']}, part {sizes['P']}, "
          f"supplier {sizes['S']}; {total} features; load {os.getloadavg()}; optimizer {args.optimizer}")

    # pandas tables, as a database would hold them.
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

    with tempfile.TemporaryDirectory() as tmp:
        d = Path(args.keep or tmp)
        d.mkdir(parents=True, exist_ok=True)
        write_inputs(d, n_l, sizes, keys, feats, theta, w1, w2)
        print(f"{'task':<11} {'spores opt ms':>13} {'spores exec ms':>14} {'pandas ms':>10} {'numpy ms':>9} "
              f"{'vs pandas':>9} {'vs numpy':>9} {'check':>6}")
        for name, (f, extra) in tasks(theta, w1, w2).items():
            if name not in wanted:
                continue
            t_pd, _ = timed(lambda: f(pandas_x()), args.repeat)
            t_np, ref = timed(lambda: f(numpy_x()), args.repeat)
            cmd = [str(exe), "--optimizer", args.optimizer, "--repeat", str(args.repeat),
                   str(HERE / "ml" / f"{name}.tp")]
            cmd += [f"{t}={d / f'{t}.mtx'}" for t in FEATURES] + [f"L={d / 'L.tns'}"]
            cmd += [f"{e}={d / f'{e}.mtx'}" for e in extra]
            out = subprocess.run(cmd, capture_output=True, text=True)
            if out.returncode != 0:
                print(f"{name:<11} spores failed: {out.stderr.strip()}")
                continue
            runs = [l.split("\t") for l in out.stdout.splitlines() if l.startswith("run\t")]
            opt = statistics.median(float(r[2]) for r in runs) / 1e3
            exe_t = statistics.median(float(r[3]) for r in runs) / 1e3
            checksum = float([l for l in out.stdout.splitlines() if l.startswith("output")][0].split("\t")[3])
            want = float(np.sum(ref))
            ok = abs(checksum - want) <= 1e-6 * max(1.0, abs(want))
            ours = opt + exe_t
            print(f"{name:<11} {opt*1e3:>13.2f} {exe_t*1e3:>14.2f} {t_pd*1e3:>10.2f} {t_np*1e3:>9.2f} "
                  f"{t_pd/ours:>8.2f}x {t_np/ours:>8.2f}x {'ok' if ok else 'WRONG':>6}", flush=True)
    print(f"# load after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
