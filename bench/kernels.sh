#!/usr/bin/env bash
# bench/kernels.sh — spores' kernels side by side with NumPy/SciPy on identical data.
#
# Sets up bench/.venv if missing (bench/setup.sh), builds the spores-exec examples in
# release mode, generates the shared inputs once (bench/kernels.py --generate-only, into
# bench/data/kernels/), then for each kernel runs NumPy/SciPy and spores back to back
# (interleaved per kernel, so both see similar machine load). spores checks its warm-up
# result against NumPy's checksum before timing; bench/kernels_table.py cross-checks all
# results again (relative 1e-9), prints the table and writes bench/out/kernels.json.
# Any mismatch or failure exits non-zero.
#
# Usage: bash bench/kernels.sh [--runs N] [--threads T] [--only gemm,spmv,...]
#   defaults: 10 runs, 2 threads (OPENBLAS_NUM_THREADS for NumPy, rayon pool for spores),
#   kernels gemm spmv spmm tspmv sddmm wsloss (sddmm also times NumPy's sddmm_rewrite).
set -euo pipefail

die() { echo "kernels.sh: error: $*" >&2; exit 1; }

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
runs=10
threads=2
kernels="gemm spmv spmm tspmv sddmm wsloss"
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) [ $# -ge 2 ] || die "--runs needs a value"; runs="$2"; shift 2 ;;
    --threads) [ $# -ge 2 ] || die "--threads needs a value"; threads="$2"; shift 2 ;;
    --only) [ $# -ge 2 ] || die "--only needs a value"; kernels="${2//,/ }"; shift 2 ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) die "unknown argument: $1 (see --help)" ;;
  esac
done
case "$runs" in ''|*[!0-9]*|0) die "--runs must be a positive integer, got '$runs'" ;; esac
case "$threads" in ''|*[!0-9]*|0) die "--threads must be a positive integer, got '$threads'" ;; esac
for k in $kernels; do
  case "$k" in gemm|spmv|spmm|tspmv|sddmm|wsloss) ;; *) die "unknown kernel '$k'" ;; esac
done

. "$here/bench_env.sh"
ensure_venv kernels.sh numpy scipy
release_build kernels.sh -p spores-exec --examples
bin="$target_dir/release/examples/bench_kernels"
[ -x "$bin" ] || die "$bin was not built"

data="$here/data/kernels"
"$py" "$here/kernels.py" --generate-only --data "$data" || die "data generation failed"

out="$here/out"
mkdir -p "$out"
np_all="$out/kernels.numpy.jsonl"
sp_all="$out/kernels.spores.jsonl"
: >"$np_all"
: >"$sp_all"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

load_before="$(cut -d' ' -f1-3 /proc/loadavg)"
echo "kernels.sh: $runs runs, $threads threads; load before: $load_before" >&2
for k in $kernels; do
  np_only="$k"
  [ "$k" = sddmm ] && np_only="sddmm,sddmm_rewrite"
  echo "kernels.sh: $k: numpy/scipy ..." >&2
  OPENBLAS_NUM_THREADS="$threads" OMP_NUM_THREADS="$threads" MKL_NUM_THREADS="$threads" \
    "$py" "$here/kernels.py" --data "$data" --runs "$runs" --threads "$threads" \
    --only "$np_only" >"$tmp/np.jsonl" || die "kernels.py failed on $k"
  cat "$tmp/np.jsonl" >>"$np_all"
  echo "kernels.sh: $k: spores ..." >&2
  "$bin" "$data" --runs "$runs" --threads "$threads" --only "$k" \
    --reference "$tmp/np.jsonl" >"$tmp/sp.jsonl" || die "bench_kernels failed on $k (see above)"
  cat "$tmp/sp.jsonl" >>"$sp_all"
done
load_after="$(cut -d' ' -f1-3 /proc/loadavg)"
echo "kernels.sh: load after: $load_after" >&2

cpu="$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
mem="$(awk '/MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo)"
"$py" "$here/kernels_table.py" "$np_all" "$sp_all" --json "$out/kernels.json" \
  --meta "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)" --meta "nproc=$(nproc)" --meta "cpu=$cpu" \
  --meta "mem=$mem" --meta "runs=$runs" --meta "threads=$threads" \
  --meta "loadavg_before=$load_before" --meta "loadavg_after=$load_after" \
  --meta "commit=$(cd "$root" && git rev-parse --short HEAD 2>/dev/null || echo unknown)" \
  || die "results differ or a kernel is missing (table above, details above)"
