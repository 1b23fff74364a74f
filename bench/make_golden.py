#!/usr/bin/env python3
"""Record SystemDS's output on small inputs, for spores's cross-system tests.

`cargo test` cannot run SystemDS (no Java in the test path), so this script runs it once:
it writes small seeded inputs to crates/spores/tests/golden/data/*.mtx, runs every
examples/*.dml on SystemDS 3.4 with those files, and stores what SystemDS printed as
crates/spores/tests/golden/<example>.expected. The test `golden_systemds` then runs the
same scripts on the same files with spores and compares (relative tolerance 1e-9, same
text, same number style). Rerun after changing an example or the data:

  bash bench/setup.sh && bench/.venv/bin/python bench/make_golden.py
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
import compare_systemds as cs  # noqa: E402

GOLDEN = ROOT / "crates" / "spores" / "tests" / "golden"
DIMS = (60, 40, 4, 200, 5)  # m, n, r, N, d: small enough to commit, big enough to be sparse
SEED = 7
EXAMPLES = ["loss", "als", "pnmf", "logreg", "l2svm"]


def main() -> int:
    data = GOLDEN / "data"
    paths = cs.generate(data, SEED, DIMS)
    for name in EXAMPLES:
        args = cs.example_args(name, paths)
        rel = [f"{k}={Path(v).relative_to(ROOT)}" for k, v in args.items()]
        proc = subprocess.run(["bash", str(HERE / "systemds.sh"), f"examples/{name}.dml", *rel],
                              cwd=ROOT, capture_output=True, text=True, timeout=600)
        if proc.returncode != 0:
            print(f"{name}: SystemDS failed:\n{proc.stderr}", file=sys.stderr)
            return 1
        (GOLDEN / f"{name}.expected").write_text(proc.stdout)
        (GOLDEN / f"{name}.args").write_text("\n".join(rel) + "\n")
        print(f"{name}: {len(proc.stdout.splitlines())} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main())
