#!/usr/bin/env bash
# bench/spores_bin.sh — build spores in release mode and print the binary's path
# (cargo's target directory may be elsewhere than ./target). Progress goes to stderr.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
echo "spores_bin.sh: building spores (cargo build --release) ..." >&2
(cd "$root" && cargo build --release --quiet -p spores) >&2
(cd "$root" && cargo metadata --format-version 1 --no-deps) \
  | python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"] + "/release/spores")'
