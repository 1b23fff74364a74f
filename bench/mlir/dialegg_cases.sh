#!/bin/sh
# DialEgg's own cases, unchanged: every test case and benchmark of a DialEgg checkout
# (test/*/X.mlir and bench/*/X.mlir with the rule file beside it, X.egg or the directory's
# one .egg) optimized by `spores mlir opt X.mlir --rules X.egg`, run from the checkout's
# root as DialEgg runs them (their rule files include "src/base.egg").
#
#   bench/mlir/dialegg_cases.sh DIALEGG_CHECKOUT [SPORES_BINARY]
#
# Get a checkout with `git -C DialEgg-git-dir archive HEAD | tar -x -C /tmp/dialegg`.
# Prints a markdown table: case, whether the rule file loads, whether `mlir-opt-19`
# verifies the output, whether the output is DialEgg's expected result, and the wall
# time of the optimizer. DialEgg's repository holds no expected outputs; what each case
# is expected to reach is what its rules are written for (checked in check() below):
#   classic          x * 2 / 2 becomes x: no arith op is left in @classic
#   constant_folding 2 + 3 becomes the constant 5
#   image_conversion the three divisions by 256 become shifts by 8
#   polynomial       no math.powf is left, and Horner's form: 3 multiplications
#   vector_norm      1 / sqrt(x) becomes a call of @fast_inv_sqrt
#   scf_if           (no rules) the same ops as the input
#   matmul chains    the sum of m*k*n over the output's matmuls is the cheapest order's
#                    (dynamic programming over the input chain's shapes)
# and in every benchmark the calls of @main stay in their order (the timed kernel
# between its clock() calls).
set -u
checkout=${1:?usage: dialegg_cases.sh DIALEGG_CHECKOUT [SPORES_BINARY]}
here=$(cd "$(dirname "$0")/../.." && pwd)
spores=${2:-${CARGO_TARGET_DIR:-$here/target}/release/spores}
checkout=$(cd "$checkout" && pwd)
command -v mlir-opt-19 >/dev/null || { echo "mlir-opt-19 is needed" >&2; exit 2; }
[ -x "$spores" ] || { echo "no spores binary at $spores (cargo build --release -p spores --bin spores)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cd "$checkout" || exit 2
echo "| case | loads | verifies | expected | time (ms) | note |"
echo "|---|---|---|---|---|---|"
for mlir in $(ls test/*/*.mlir bench/*/*.mlir | sort); do
    dir=$(dirname "$mlir")
    name=$(basename "$mlir" .mlir)
    egg="$dir/$name.egg"
    if [ ! -f "$egg" ]; then
        set -- "$dir"/*.egg
        if [ "$#" -eq 1 ] && [ -f "$1" ]; then egg=$1; else
            echo "| $mlir | - | - | - | - | no rule file in DialEgg |"
            continue
        fi
    fi
    out="$work/out.mlir"
    rm -f "$out"
    start=$(date +%s%N)
    "$spores" mlir opt "$mlir" --rules "$egg" -o "$out" 2>"$work/err"
    code=$?
    end=$(date +%s%N)
    ms=$(( (end - start) / 1000000 ))
    note=$(grep -v '^$' "$work/err" | head -1 | cut -c1-120 | tr '|' '/')
    if [ "$code" -ne 0 ]; then
        echo "| $mlir | no | - | - | $ms | $note |"
        continue
    fi
    if mlir-opt-19 "$out" -o "$work/custom.mlir" 2>"$work/verr"; then verifies=yes; else
        verifies=no
        note=$(head -1 "$work/verr" | cut -c1-120 | tr '|' '/')
    fi
    mlir-opt-19 "$mlir" -o "$work/input.mlir" 2>/dev/null
    expected=$(python3 - "$name" "$dir" "$work/input.mlir" "$work/custom.mlir" <<'EOF'
import re, sys
name, dir, inp, outp = sys.argv[1:]
def funcs(path):
    try:
        text = open(path).read()
    except OSError:
        return {}
    out, cur = {}, None
    for line in text.splitlines():
        m = re.match(r'\s*func\.func\s+(?:private\s+)?@(\w+)', line)
        if m:
            cur = m.group(1)
            out[cur] = []
        elif cur is not None:
            out[cur].append(line)
    return out
fi, fo = funcs(inp), funcs(outp)
def ops(lines, op):
    return [l for l in lines if re.search(r'\b' + re.escape(op) + r'\b', l)]
def calls(lines):
    return [m.group(1) for l in lines for m in [re.search(r'call @(\w+)', l)] if m]
def mm_shapes(lines):
    out = []
    for l in lines:
        m = re.search(r'linalg\.matmul ins\((%\w+), (%\w+) : tensor<(\d+)x(\d+)x\w+>, tensor<(\d+)x(\d+)x\w+>\)[^%]*outs\([^)]*\) -> tensor<\d+x\d+x\w+>', l)
        r = re.match(r'\s*(%\w+) =', l)
        if m and r:
            out.append((r.group(1), m.group(1), m.group(2), int(m.group(3)), int(m.group(4)), int(m.group(6))))
    return out
def best_chain(lines):
    mms = mm_shapes(lines)
    results = {m[0] for m in mms}
    leaves, dims = [], []
    for res, a, b, m, k, n in mms:
        for v, (r, c) in ((a, (m, k)), (b, (k, n))):
            if v not in results and v not in [x for x, _ in leaves]:
                leaves.append((v, (r, c)))
    if not leaves:
        return None
    dims = [leaves[0][1][0]] + [c for _, (r, c) in leaves]
    n = len(leaves)
    cost = [[0] * n for _ in range(n)]
    for length in range(2, n + 1):
        for i in range(n - length + 1):
            j = i + length - 1
            cost[i][j] = min(cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1] for k in range(i, j))
    return cost[0][n - 1]
def chain_cost(lines):
    return sum(m * k * n for _, _, _, m, k, n in mm_shapes(lines))
ok, why = True, []
def need(cond, text):
    global ok
    if not cond:
        ok = False
        why.append(text)
if not fo:
    need(False, "no output")
elif name == "classic":
    need(not ops(fo.get("classic", []), "arith"), "arith ops left in @classic")
elif name == "constant_folding":
    body = fo.get("constants", [])
    need(not ops(body, "arith.addi") and any("arith.constant 5 : i32" in l for l in body), "2 + 3 not folded")
elif name == "image_conversion":
    body = fo.get("rgb_to_grayscale", [])
    need(not ops(body, "arith.divsi") and len(ops(body, "arith.shrsi")) == 3, "divisions left")
elif name == "polynomial":
    body = fo.get("poly_eval_3", [])
    need(not ops(body, "math.powf"), "math.powf left")
    need(len(ops(body, "arith.mulf")) == 3, "%d multiplications, Horner's form has 3" % len(ops(body, "arith.mulf")))
elif name == "vector_norm":
    body = fo.get("normalize_vector", [])
    need(not ops(body, "math.sqrt") and any("call @fast_inv_sqrt" in l for l in body), "1 / sqrt(x) not replaced")
elif name == "scf_if":
    def opnames(f):
        return sorted(re.findall(r'\b(arith\.\w+|math\.\w+|scf\.\w+)', "\n".join(f.get("conditional_sqrt", []))))
    need(opnames(fo) == opnames(fi), "ops differ from the input")
else:
    for f, lines in fi.items():
        best = best_chain(lines)
        if best is None:
            continue
        got = chain_cost(fo.get(f, []))
        need(got == best, "@%s: cost %d, cheapest %d (+%.1f %%)" % (f, got, best, 100.0 * (got - best) / best))
if dir.startswith("bench") and "main" in fi:
    need(calls(fi["main"]) == calls(fo.get("main", [])), "the calls of @main moved")
print(("yes" if ok else "no") + "\t" + "; ".join(why))
EOF
)
    verdict=$(printf '%s' "$expected" | cut -f1)
    why=$(printf '%s' "$expected" | cut -f2)
    [ -n "$why" ] && note="$why${note:+; $note}"
    echo "| $mlir | yes | $verifies | $verdict | $ms | $note |"
done
