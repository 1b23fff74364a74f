#!/usr/bin/env bash
# bench/linalg.sh — spores' dense linear algebra side by side with NumPy/SciPy on identical
# data: gemm 2000x2000 (spores' GEMM on faer), and solve, inv, det,
# cholesky, eigen, qr, lu, svd on 1000x1000 (bench/linalg.py lists the inputs and what each
# side calls).
#
# Interleaved: for each of --rounds rounds and each op, NumPy/SciPy runs (one warm-up +
# --runs timed runs), then spores does the same, so both see similar machine load.
# bench/linalg_table.py pools each side's times, prints medians and spores/NumPy ratios,
# and fails if a check value differs (relative 1e-6).
#
# Usage: bash bench/linalg.sh [--rounds 3] [--runs 3] [--threads 2] [--only svd,qr]
#   BENCH_PY=/path/to/python uses that Python (with numpy and scipy) instead of bench/.venv.
set -euo pipefail

die() { echo "linalg.sh: error: $*" >&2; exit 1; }

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
rounds=3
runs=3
threads=2
ops="gemm solve inv det cholesky eigen qr lu svd"
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) [ $# -ge 2 ] || die "--rounds needs a value"; rounds="$2"; shift 2 ;;
    --runs) [ $# -ge 2 ] || die "--runs needs a value"; runs="$2"; shift 2 ;;
    --threads) [ $# -ge 2 ] || die "--threads needs a value"; threads="$2"; shift 2 ;;
    --only) [ $# -ge 2 ] || die "--only needs a value"; ops="${2//,/ }"; shift 2 ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) die "unknown argument: $1 (see --help)" ;;
  esac
done
for v in "$rounds" "$runs" "$threads"; do
  case "$v" in ''|*[!0-9]*|0) die "--rounds, --runs and --threads take positive integers, got '$v'" ;; esac
done

. "$here/bench_env.sh"
if [ -n "${BENCH_PY:-}" ]; then py="$BENCH_PY"; else ensure_venv linalg.sh numpy scipy; fi
release_build linalg.sh -p spores-exec --example bench_linalg
bin="$target_dir/release/examples/bench_linalg"
[ -x "$bin" ] || die "$bin was not built"

data="$here/data/linalg"
"$py" "$here/linalg.py" --generate-only --data "$data" || die "data generation failed"
out="$here/out"
mkdir -p "$out"
all="$out/linalg.jsonl"
: >"$all"

load_before="$(cut -d' ' -f1-3 /proc/loadavg)"
echo "linalg.sh: $rounds rounds x $runs runs, $threads threads; load before: $load_before" >&2
for round in $(seq "$rounds"); do
  for op in $ops; do
    echo "linalg.sh: round $round: $op: numpy/scipy ..." >&2
    OPENBLAS_NUM_THREADS="$threads" OMP_NUM_THREADS="$threads" MKL_NUM_THREADS="$threads" \
      "$py" "$here/linalg.py" --data "$data" --runs "$runs" --threads "$threads" --only "$op" \
      >>"$all" || die "linalg.py failed on $op"
    echo "linalg.sh: round $round: $op: spores ..." >&2
    "$bin" "$data" --runs "$runs" --threads "$threads" --only "$op" >>"$all" \
      || die "bench_linalg failed on $op"
  done
done
load_after="$(cut -d' ' -f1-3 /proc/loadavg)"
echo "linalg.sh: load after: $load_after" >&2
"$py" "$here/linalg_table.py" "$all" --meta "threads=$threads" --meta "rounds=$rounds" \
  --meta "runs=$runs" --meta "loadavg_before=$load_before" --meta "loadavg_after=$load_after" \
  --meta "commit=$(cd "$root" && git rev-parse --short HEAD 2>/dev/null || echo unknown)" \
  || die "a check value differs or an op is missing (table above)"
