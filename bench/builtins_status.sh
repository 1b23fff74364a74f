#!/usr/bin/env bash
# bench/builtins_status.sh — which of SystemDS 3.4's 199 builtin files run on spores and print
# SystemDS's numbers (drivers of the conformance suite), and why the others do not.
#
# Extracts SystemDS's scripts if needed (bench/systemds_scripts.sh), builds spores in
# release mode, runs bench/builtins_status.py and prints its Markdown table.
# Usage: bash bench/builtins_status.sh [--out docs/BUILTINS.md] [--jobs N]
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
die() { echo "builtins_status.sh: error: $*" >&2; exit 1; }

if [ -z "${SYSTEMDS_ROOT:-}" ]; then
  SYSTEMDS_ROOT="$(bash "$here/systemds_scripts.sh")" || die "cannot extract SystemDS's scripts"
fi
[ -f "$SYSTEMDS_ROOT/scripts/builtin/lm.dml" ] || die "no scripts/builtin under SYSTEMDS_ROOT=$SYSTEMDS_ROOT"
py="$here/.venv/bin/python"
[ -x "$py" ] || py=python3
spores="$(bash "$here/spores_bin.sh")" || die "cargo build failed"
exec "$py" "$here/builtins_status.py" --spores "$spores" \
  --builtins "$SYSTEMDS_ROOT/scripts/builtin" "$@"
