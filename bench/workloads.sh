#!/usr/bin/env bash
# bench/workloads.sh — the issue-4 benchmark in one command: spores (optimized and --no-opt),
# SystemDS 3.4 and NumPy/SciPy side by side on the SPORES workloads (bench/workloads/*.dml).
#
# Sets up bench/.venv if missing (bench/setup.sh: systemds, numpy, scipy; checks Java 17+),
# builds spores in release mode, then runs bench/workloads.py with the given options
# (default: all workloads at the small and the large size): it generates the inputs once
# per size as Matrix Market files, runs every system on the same files, compares the
# printed numbers, and prints the table (also bench/out/workloads.md, all runs in
# bench/out/workloads.json). Exits non-zero on a failed run or a mismatch.
#
# Usage: bash bench/workloads.sh [--only pnmf,als] [--sizes small] [--runs N] [--systems ...]
#        (bench/.venv/bin/python bench/workloads.py --help lists all options)
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
die() { echo "workloads.sh: error: $*" >&2; exit 1; }

. "$here/bench_env.sh"
ensure_venv workloads.sh systemds numpy scipy
release_build workloads.sh -p spores
exec "$py" "$here/workloads.py" --spores "$target_dir/release/spores" "$@"
