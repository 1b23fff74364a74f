#!/usr/bin/env bash
# spores's local engine vs DataFusion (`--engine datafusion`) on bench/datafusion/programs.dml,
# each with the optimizer's plan and with the plan as written (`--no-opt`): best of RUNS wall
# times of the whole run, less the best time of generating the inputs alone (`--arg run=0`).
#   bash bench/datafusion/run.sh [--arg m=5000 --arg n=1000 --arg sp=0.01 --arg r=10]
# Env: SPORES (the binary; default target/release/spores, built with
# `cargo build --release -p spores --features datafusion`), RUNS (default 3).
set -euo pipefail
cd "$(dirname "$0")/../.."
bin="${SPORES:-target/release/spores}"
runs="${RUNS:-3}"
echo "load: $(cut -d' ' -f1 /proc/loadavg)   cpu:$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"

# Prints the best wall time in seconds of RUNS runs of `spores run programs.dml ARGS...`,
# then the last run's `loss ...` line.
best_of() {
    local best="" t out
    for _ in $(seq "$runs"); do
        local start end
        start=$(date +%s.%N)
        out="$("$bin" run bench/datafusion/programs.dml "$@")"
        end=$(date +%s.%N)
        t=$(awk "BEGIN{print $end - $start}")
        if [ -z "$best" ] || awk "BEGIN{exit !($t < $best)}"; then best="$t"; fi
    done
    echo "$best $(printf '%s\n' "$out" | grep '^loss ' || true)"
}

base=$(best_of --arg run=0 "$@" | cut -d' ' -f1)
printf 'generating the inputs: %.3f s\n' "$base"
printf '%-11s %-11s %10s   %s\n' engine plan "time (s)" result
for engine in local datafusion; do
    for plan in optimized as-written; do
        flags=(--engine "$engine")
        [ "$plan" = as-written ] && flags+=(--no-opt)
        read -r t result <<<"$(best_of "${flags[@]}" "$@")"
        printf '%-11s %-11s %10.3f   %s\n' "$engine" "$plan" "$(awk "BEGIN{print $t - $base}")" "$result"
    done
done
