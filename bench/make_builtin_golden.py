#!/usr/bin/env python3
"""Record SystemDS 3.4's output of the builtin conformance drivers.

The drivers (crates/spores/tests/systemds_builtins/drivers/NAME.dml) call SystemDS's own
builtins (scripts/builtin/*.dml, which SystemDS resolves itself) on the small seeded
Matrix Market inputs in crates/spores/tests/systemds_builtins/data/, and print the results.
This script writes those inputs (seeded NumPy; rewritten only when their text changes), runs
every driver on SystemDS (working directory crates/spores/tests/systemds_builtins, so the
drivers read `data/NAME.mtx`) and stores what SystemDS printed as drivers/NAME.out. The
test `systemds_builtins` runs the same drivers with spores and compares.

  bash bench/setup.sh && bench/.venv/bin/python bench/make_builtin_golden.py [NAME ...]

A driver on which SystemDS fails gets no .out file (and the failure is printed); the
exit status is 1 then.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SUITE = ROOT / "crates" / "spores" / "tests" / "systemds_builtins"
DRIVERS = SUITE / "drivers"
SEED = 12
TIMEOUT = 300  # seconds per driver; every driver takes a few seconds on SystemDS


def datasets(rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Small inputs with 4 decimals, each a shape the builtins' documentation asks for."""
    r4 = lambda a: np.round(a, 4)  # noqa: E731
    d = {}
    n, m = 50, 5
    X = r4(rng.normal(size=(n, m)))
    d["reg_X"], d["reg_Xtest"] = X, r4(rng.normal(size=(12, m)))
    beta = np.array([[1.0], [-2.0], [0.5], [0.0], [3.0]])
    d["reg_y"] = r4(X @ beta + 0.3 * rng.normal(size=(n, 1)) + 1.5)
    d["reg_ytest"] = r4(d["reg_Xtest"] @ beta + 0.3 * rng.normal(size=(12, 1)) + 1.5)
    score = X @ np.array([[1.0], [-1.0], [0.5], [0.0], [0.8]]) + 0.5 * rng.normal(size=(n, 1))
    d["cls_y01"] = (score > 0).astype(float)                    # Bernoulli labels 0/1
    d["cls_y2"] = d["cls_y01"] + 1                              # labels 1/2
    d["cls_ypm"] = 2 * d["cls_y01"] - 1                         # labels -1/+1
    scores3 = X @ r4(rng.uniform(-1, 1, (m, 3))) + 0.5 * rng.gumbel(size=(n, 3))
    d["cls_y3"] = (np.argmax(scores3, axis=1) + 1.0).reshape(n, 1)   # labels 1..3
    d["cls_y3test"] = (np.argmax(d["reg_Xtest"] @ r4(rng.uniform(-1, 1, (m, 3))), axis=1)
                       + 1.0).reshape(12, 1)
    eta = 0.3 * X @ np.array([[0.5], [-0.4], [0.3], [0.0], [0.6]]) + 1.0
    d["glm_count"] = rng.poisson(np.exp(eta)).astype(float)      # Poisson counts
    d["glm_pos"] = r4(rng.gamma(4.0, np.exp(eta) / 4.0))        # Gamma, positive
    d["fact_X"] = np.where(rng.uniform(size=(30, 20)) < 0.3,
                           rng.integers(1, 6, (30, 20)).astype(float), 0.0)  # ratings 1..5
    centers = np.array([[0.0, 0.0], [5.0, 5.0], [0.0, 8.0]])
    d["blobs_X"] = r4(np.repeat(centers, 20, axis=0) + 0.5 * rng.normal(size=(60, 2)))
    d["nb_X"] = rng.poisson(np.repeat(rng.uniform(0.5, 4, (3, 6)), 14, axis=0)).astype(float)
    d["nb_y"] = np.repeat(np.arange(1.0, 4.0), 14).reshape(42, 1)
    G = np.triu((rng.uniform(size=(12, 12)) < 0.25).astype(float), 1)
    G[8:, :8] = 0
    G[:8, 8:] = 0                                               # two components at least
    d["graph_G"] = G + G.T
    d["ts_x"] = r4(np.sin(np.arange(1, 41) / 3.0) + 0.1 * rng.normal(size=40)).reshape(40, 1)
    return d


def write_mm(path: Path, A: np.ndarray) -> None:
    """Matrix Market coordinate format (SystemDS reads no other), non-zeros in row-major
    order, shortest round-trip numbers; written only when the text changes, so the golden
    outputs stay valid."""
    rows, cols = A.shape
    nz = [(i, j, A[i, j]) for i in range(rows) for j in range(cols) if A[i, j] != 0]
    text = "%%MatrixMarket matrix coordinate real general\n" + f"{rows} {cols} {len(nz)}\n" \
        + "".join(f"{i + 1} {j + 1} {float(v)!r}\n" for i, j, v in nz)
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


def run_driver(driver: Path) -> tuple[str, bool, str]:
    out = DRIVERS / f"{driver.stem}.out"
    try:
        proc = subprocess.run(["bash", str(HERE / "systemds.sh"), str(driver)], cwd=SUITE,
                              capture_output=True, text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        out.unlink(missing_ok=True)
        return driver.stem, False, f"timed out after {TIMEOUT} s"
    if proc.returncode != 0:
        out.unlink(missing_ok=True)
        return driver.stem, False, proc.stderr.strip()[-2000:]
    out.write_text(proc.stdout)
    return driver.stem, True, f"{len(proc.stdout.splitlines())} lines"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="*", help="drivers to run (default: all)")
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    (SUITE / "data").mkdir(exist_ok=True)
    for name, A in datasets(np.random.default_rng(SEED)).items():
        write_mm(SUITE / "data" / f"{name}.mtx", A)
    drivers = [DRIVERS / f"{n}.dml" for n in args.names] or sorted(DRIVERS.glob("*.dml"))
    failed = 0
    with ThreadPoolExecutor(args.jobs) as pool:
        for name, ok, what in pool.map(run_driver, drivers):
            print(f"{name}: {what}" if ok else f"{name}: SystemDS failed:\n{what}", flush=True)
            failed += not ok
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
