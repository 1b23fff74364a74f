#!/usr/bin/env bash
# bench/builtins_bench.sh — SystemDS's real alsCG, pnmf, multiLogReg, glm and l2svm scripts
# on SystemDS 3.4 and on spores, on the Matrix Market inputs of bench/workloads, timed with
# time() around the builtin call on both systems (bench/builtins_bench.py).
#
# Sets up bench/.venv if missing, extracts SystemDS's scripts (bench/systemds_scripts.sh),
# builds spores in release mode, then runs the harness; the table also goes to
# bench/out/builtins_bench.md, all runs to bench/out/builtins_bench.json.
# Usage: bash bench/builtins_bench.sh [--sizes small,large] [--runs N] [--only alsCG,glm]
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
die() { echo "builtins_bench.sh: error: $*" >&2; exit 1; }

py="$here/.venv/bin/python"
if [ ! -x "$py" ]; then bash "$here/setup.sh" >&2 || die "bench/setup.sh failed"; fi
if [ -z "${SYSTEMDS_ROOT:-}" ]; then
  SYSTEMDS_ROOT="$(bash "$here/systemds_scripts.sh")" || die "cannot extract SystemDS's scripts"
fi
spores="$(bash "$here/spores_bin.sh")" || die "cargo build failed"
exec "$py" "$here/builtins_bench.py" --spores "$spores" \
  --builtins "$SYSTEMDS_ROOT/scripts/builtin" "$@"
