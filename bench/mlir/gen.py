#!/usr/bin/env python3
"""Writes the MLIR benchmark programs of bench/mlir (the DialEgg paper's five cases, written
from its description, and the matmul chains 10MM..80MM).

Every program has a `@kernel` function (what the optimizer is meant to improve) and a `@main`
that builds deterministic inputs, times the kernel with `rtclock` and prints its result, so
that the original and the optimized program can be run with mlir-cpu-runner and compared.
Every matmul writes into a zero-filled tensor (linalg.fill), as matmul accumulates.

usage: gen.py OUTDIR [--scale small|full]
"""
import random
import sys
from pathlib import Path

HEADER = """func.func private @rtclock() -> f64
func.func private @printMemrefI64(memref<*xi64>)
func.func private @printMemrefI32(memref<*xi32>)
func.func private @printMemrefF32(memref<*xf32>)
func.func private @printMemrefF64(memref<*xf64>)
func.func private @printF64(f64)
func.func private @printNewline()
"""


def timed_main(setup, call, result, ty, elem, printer):
    """@main: inputs, timed kernel call, print of the time (stderr-like last line) and result."""
    return f"""func.func @main() {{
{setup}
  %t0 = func.call @rtclock() : () -> f64
{call}
  %t1 = func.call @rtclock() : () -> f64
  %m = bufferization.to_memref {result} : {ty.replace('tensor', 'memref')}
  %u = memref.cast %m : {ty.replace('tensor', 'memref')} to memref<*x{elem}>
  func.call @{printer}(%u) : (memref<*x{elem}>) -> ()
  %dt = arith.subf %t1, %t0 : f64
  func.call @printF64(%dt) : (f64) -> ()
  func.call @printNewline() : () -> ()
  return
}}
"""


def gen_matrix(name, rows, cols, seed):
    """A deterministic i64 matrix with small entries in [-3, 3]."""
    return f"""  %{name} = tensor.generate {{
  ^bb0(%i: index, %j: index):
    %ii = arith.index_cast %i : index to i64
    %jj = arith.index_cast %j : index to i64
    %c3 = arith.constant 3 : i64
    %c5 = arith.constant 5 : i64
    %c7 = arith.constant 7 : i64
    %cs = arith.constant {seed} : i64
    %a = arith.muli %ii, %c3 : i64
    %b = arith.muli %jj, %c5 : i64
    %s0 = arith.addi %a, %b : i64
    %s = arith.addi %s0, %cs : i64
    %r = arith.remsi %s, %c7 : i64
    %v = arith.subi %r, %c3 : i64
    tensor.yield %v : i64
  }} : tensor<{rows}x{cols}xi64>"""


def chain(dims, order="left"):
    """A product of len(dims)-1 matrices, associated left to right."""
    n = len(dims) - 1
    args = ", ".join(f"%a{i}: tensor<{dims[i]}x{dims[i+1]}xi64>" for i in range(n))
    out_t = f"tensor<{dims[0]}x{dims[n]}xi64>"
    body = ["  %zero = arith.constant 0 : i64"]
    acc = "%a0"
    for i in range(1, n):
        t = f"tensor<{dims[0]}x{dims[i+1]}xi64>"
        body.append(f"  %e{i} = tensor.empty() : {t}")
        body.append(f"  %z{i} = linalg.fill ins(%zero : i64) outs(%e{i} : {t}) -> {t}")
        body.append(
            f"  %p{i} = linalg.matmul ins({acc}, %a{i} : tensor<{dims[0]}x{dims[i]}xi64>, "
            f"tensor<{dims[i]}x{dims[i+1]}xi64>) outs(%z{i} : {t}) -> {t}")
        acc = f"%p{i}"
    body.append(f"  return {acc} : {out_t}")
    kernel = f"func.func @kernel({args}) -> {out_t} {{\n" + "\n".join(body) + "\n}\n"
    setup = "\n".join(gen_matrix(f"in{i}", dims[i], dims[i + 1], i + 1) for i in range(n))
    call_args = ", ".join(f"%in{i}" for i in range(n))
    call_tys = ", ".join(f"tensor<{dims[i]}x{dims[i+1]}xi64>" for i in range(n))
    call = f"  %r = func.call @kernel({call_args}) : ({call_tys}) -> {out_t}"
    return HEADER + kernel + timed_main(setup, call, "%r", out_t, "i64", "printMemrefI64")


def chain_dims(n, seed):
    rng = random.Random(seed)
    return [rng.randint(4, 64) for _ in range(n + 1)]


def main():
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    cases = {
        # The paper's 2MM and 3MM shapes (3MM's D is 150x10 so the chain is well formed).
        "2mm": [100, 10, 150, 8],
        "3mm": [200, 175, 250, 150, 10],
    }
    for n in (10, 20, 40, 80):
        cases[f"{n}mm"] = chain_dims(n, n)
    for name, dims in cases.items():
        (out / f"{name}.mlir").write_text(chain(dims))


if __name__ == "__main__":
    main()
