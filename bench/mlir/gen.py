#!/usr/bin/env python3
"""Writes the MLIR benchmark programs of bench/mlir (the DialEgg paper's five cases, written
from its description, and the matmul chains 10MM..80MM).

Every program has a `@kernel` function (what the optimizer is meant to improve) and a `@main`
that builds deterministic inputs, calls the kernel REPS times, timing each call with
`rtclock`, and prints the last call's result and then one line per call with its time in
seconds, so that the original and the optimized program can be run with mlir-cpu-runner,
compared, and timed (median of the REPS calls).
Every matmul writes into a zero-filled tensor (linalg.fill), as matmul accumulates.

usage: gen.py OUTDIR
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


REPS = 11


def timed(call):
    """REPS timed calls of the kernel (`call` defines %r; earlier calls define %r0, %r1, ..),
    and the lines printing each call's time, in seconds, after the results."""
    body, prints = [], []
    for k in range(REPS):
        c = call if k == REPS - 1 else call.replace("%r =", f"%r{k} =", 1)
        body += [f"  %t{k}a = func.call @rtclock() : () -> f64", c,
                 f"  %t{k}b = func.call @rtclock() : () -> f64",
                 f"  %dt{k} = arith.subf %t{k}b, %t{k}a : f64"]
        prints += [f"  func.call @printF64(%dt{k}) : (f64) -> ()",
                   "  func.call @printNewline() : () -> ()"]
    return "\n".join(body), "\n".join(prints)


def timed_main(setup, call, result, ty, elem, printer):
    """@main: inputs, timed kernel call, print of the time (stderr-like last line) and result."""
    return f"""func.func @main() {{
{setup}
{timed(call)[0]}
  %m = bufferization.to_memref {result} : {ty.replace('tensor', 'memref')}
  %u = memref.cast %m : {ty.replace('tensor', 'memref')} to memref<*x{elem}>
  func.call @{printer}(%u) : (memref<*x{elem}>) -> ()
{timed(call)[1]}
  return
}}
"""


def index_mix(weights, int_ty):
    """Lines of a `tensor.generate` body computing `%s0`, the weighted sum of its (two or
    three) index arguments `%i`, `%j`, `%c` as `int_ty`: the deterministic input pattern
    each case then reduces and converts its own way."""
    args = ["i", "j", "c"][: len(weights)]
    lines = [f"    %{a}{a} = arith.index_cast %{a} : index to {int_ty}" for a in args]
    lines += [f"    %w{a} = arith.constant {w} : {int_ty}" for a, w in zip(args, weights)]
    lines += [f"    %p{a} = arith.muli %{a}{a}, %w{a} : {int_ty}" for a in args]
    acc = f"%p{args[0]}"
    for k, a in enumerate(args[1:]):
        out = "%s0" if k == len(args) - 2 else f"%q{k}"
        lines.append(f"    {out} = arith.addi {acc}, %p{a} : {int_ty}")
        acc = out
    return "\n".join(lines)


def gen_matrix(name, rows, cols, seed):
    """A deterministic i64 matrix with small entries in [-3, 3]."""
    return f"""  %{name} = tensor.generate {{
  ^bb0(%i: index, %j: index):
{index_mix([3, 5], "i64")}
    %c3 = arith.constant 3 : i64
    %c7 = arith.constant 7 : i64
    %cs = arith.constant {seed} : i64
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


def print_i64_main(setup, call, after, checks):
    """@main printing i64 checksums (one per line) and the kernel time."""
    prints = "\n".join(f"  func.call @printI64({c}) : (i64) -> ()\n  func.call @printNewline() : () -> ()"
                       for c in checks)
    return f"""func.func private @printI64(i64)
func.func @main() {{
{setup}
{timed(call)[0]}
{after}
{prints}
{timed(call)[1]}
  return
}}
"""


def grayscale(h, w, signed):
    """(77 R + 150 G + 29 B) / 256 per pixel. Unsigned bytes (extui) give non-negative sums,
    where division by 256 is a shift; the signed variant (extsi) has negative sums, where it
    is not."""
    ext = "arith.extsi" if signed else "arith.extui"
    kernel = f"""func.func @kernel(%img: tensor<{h}x{w}x3xi8>, %init: tensor<{h}x{w}xi32>) -> tensor<{h}x{w}xi32> {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %ch = arith.constant {h} : index
  %cw = arith.constant {w} : index
  %k77 = arith.constant 77 : i32
  %k150 = arith.constant 150 : i32
  %k29 = arith.constant 29 : i32
  %k256 = arith.constant 256 : i32
  %res = scf.for %i = %c0 to %ch step %c1 iter_args(%acc = %init) -> (tensor<{h}x{w}xi32>) {{
    %row = scf.for %j = %c0 to %cw step %c1 iter_args(%acc2 = %acc) -> (tensor<{h}x{w}xi32>) {{
      %r8 = tensor.extract %img[%i, %j, %c0] : tensor<{h}x{w}x3xi8>
      %g8 = tensor.extract %img[%i, %j, %c1] : tensor<{h}x{w}x3xi8>
      %b8 = tensor.extract %img[%i, %j, %c2] : tensor<{h}x{w}x3xi8>
      %r = {ext} %r8 : i8 to i32
      %g = {ext} %g8 : i8 to i32
      %b = {ext} %b8 : i8 to i32
      %wr = arith.muli %r, %k77 : i32
      %wg = arith.muli %g, %k150 : i32
      %wb = arith.muli %b, %k29 : i32
      %s1 = arith.addi %wr, %wg : i32
      %s = arith.addi %s1, %wb : i32
      %gray = arith.divsi %s, %k256 : i32
      %acc3 = tensor.insert %gray into %acc2[%i, %j] : tensor<{h}x{w}xi32>
      scf.yield %acc3 : tensor<{h}x{w}xi32>
    }}
    scf.yield %row : tensor<{h}x{w}xi32>
  }}
  return %res : tensor<{h}x{w}xi32>
}}
"""
    setup = f"""  %img = tensor.generate {{
  ^bb0(%i: index, %j: index, %c: index):
{index_mix([7, 13, 29], "i32")}
    %v = arith.trunci %s0 : i32 to i8
    tensor.yield %v : i8
  }} : tensor<{h}x{w}x3xi8>
  %init = tensor.empty() : tensor<{h}x{w}xi32>"""
    call = f"  %r = func.call @kernel(%img, %init) : (tensor<{h}x{w}x3xi8>, tensor<{h}x{w}xi32>) -> tensor<{h}x{w}xi32>"
    return HEADER + kernel + checksum_fn("i32", [h, w]) + print_i64_main(
        setup, call, f"  %sum:2 = func.call @checksum(%r) : (tensor<{h}x{w}xi32>) -> (i64, i64)",
        ["%sum#0", "%sum#1"])


def checksum_fn(elem, shape):
    """@checksum: the sum of all elements and a position-weighted sum, as i64 (2-D tensors)."""
    h, w = shape
    return f"""func.func @checksum(%t: tensor<{h}x{w}x{elem}>) -> (i64, i64) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ch = arith.constant {h} : index
  %cw = arith.constant {w} : index
  %z = arith.constant 0 : i64
  %k13 = arith.constant 13 : i64
  %k1 = arith.constant 1 : i64
  %r:2 = scf.for %i = %c0 to %ch step %c1 iter_args(%s = %z, %ws = %z) -> (i64, i64) {{
    %q:2 = scf.for %j = %c0 to %cw step %c1 iter_args(%s2 = %s, %ws2 = %ws) -> (i64, i64) {{
      %v = tensor.extract %t[%i, %j] : tensor<{h}x{w}x{elem}>
      %v64 = arith.extsi %v : {elem} to i64
      %jj = arith.index_cast %j : index to i64
      %m = arith.remsi %jj, %k13 : i64
      %wt = arith.addi %m, %k1 : i64
      %p = arith.muli %v64, %wt : i64
      %s3 = arith.addi %s2, %v64 : i64
      %ws3 = arith.addi %ws2, %p : i64
      scf.yield %s3, %ws3 : i64, i64
    }}
    scf.yield %q#0, %q#1 : i64, i64
  }}
  return %r#0, %r#1 : i64, i64
}}
"""


def float_1d_main(n, setup, call):
    """@main printing a float result vector of length n: its sum, and 8 samples."""
    return f"""func.func @main() {{
{setup}
{timed(call)[0]}
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cn = arith.constant {n} : index
  %z = arith.constant 0.0 : f64
  %sum = scf.for %i = %c0 to %cn step %c1 iter_args(%s = %z) -> (f64) {{
    %elt = tensor.extract %r[%i] : tensor<{n}x{{E}}>
    %v64 = {{EXT}}
    %s2 = arith.addf %s, %v64 : f64
    scf.yield %s2 : f64
  }}
  func.call @printF64(%sum) : (f64) -> ()
  func.call @printNewline() : () -> ()
  %samples = tensor.extract_slice %r[0] [8] [{n // 8}] : tensor<{n}x{{E}}> to tensor<8x{{E}}>
  %m = bufferization.to_memref %samples : memref<8x{{E}}>
  %u = memref.cast %m : memref<8x{{E}}> to memref<*x{{E}}>
  func.call @{{PRINT}}(%u) : (memref<*x{{E}}>) -> ()
{timed(call)[1]}
  return
}}
"""


def vecnorm(n, fast=True):
    """1 / |v| for n 3-D vectors, under fastmath<fast> (the fast inverse square root rule
    applies) or without it (it must not)."""
    fm = " fastmath<fast>" if fast else ""
    kernel = f"""func.func @fast_inv_sqrt(%x: f32) -> f32 {{
  %half = arith.constant 0.5 : f32
  %three_halves = arith.constant 1.5 : f32
  %magic = arith.constant 1597463007 : i32
  %one = arith.constant 1 : i32
  %i = arith.bitcast %x : f32 to i32
  %sh = arith.shrui %i, %one : i32
  %j = arith.subi %magic, %sh : i32
  %y = arith.bitcast %j : i32 to f32
  %hx = arith.mulf %half, %x : f32
  %yy = arith.mulf %y, %y : f32
  %t = arith.mulf %hx, %yy : f32
  %u = arith.subf %three_halves, %t : f32
  %r = arith.mulf %y, %u : f32
  return %r : f32
}}
func.func @kernel(%v: tensor<{n}x3xf32>, %init: tensor<{n}xf32>) -> tensor<{n}xf32> {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %cn = arith.constant {n} : index
  %one = arith.constant 1.0 : f32
  %res = scf.for %i = %c0 to %cn step %c1 iter_args(%acc = %init) -> (tensor<{n}xf32>) {{
    %x = tensor.extract %v[%i, %c0] : tensor<{n}x3xf32>
    %y = tensor.extract %v[%i, %c1] : tensor<{n}x3xf32>
    %z = tensor.extract %v[%i, %c2] : tensor<{n}x3xf32>
    %xx = arith.mulf %x, %x{fm} : f32
    %yy = arith.mulf %y, %y{fm} : f32
    %zz = arith.mulf %z, %z{fm} : f32
    %s1 = arith.addf %xx, %yy{fm} : f32
    %s = arith.addf %s1, %zz{fm} : f32
    %norm = math.sqrt %s{fm} : f32
    %inv = arith.divf %one, %norm{fm} : f32
    %acc2 = tensor.insert %inv into %acc[%i] : tensor<{n}xf32>
    scf.yield %acc2 : tensor<{n}xf32>
  }}
  return %res : tensor<{n}xf32>
}}
"""
    setup = f"""  %v = tensor.generate {{
  ^bb0(%i: index, %j: index):
{index_mix([7, 3], "i32")}
    %k3 = arith.constant 3 : i32
    %k101 = arith.constant 101 : i32
    %s1 = arith.addi %s0, %k3 : i32
    %m = arith.remsi %s1, %k101 : i32
    %m1 = arith.addi %m, %k3 : i32
    %f = arith.sitofp %m1 : i32 to f32
    tensor.yield %f : f32
  }} : tensor<{n}x3xf32>
  %init = tensor.empty() : tensor<{n}xf32>"""
    call = f"  %r = func.call @kernel(%v, %init) : (tensor<{n}x3xf32>, tensor<{n}xf32>) -> tensor<{n}xf32>"
    main = float_1d_main(n, setup, call).replace("{E}", "f32").replace(
        "{EXT}", "arith.extf %elt : f32 to f64").replace("{PRINT}", "printMemrefF32")
    return HEADER + kernel + main


def poly(n):
    """a0 + a1 x + a2 x^2 + a3 x^3 for n polynomials, each at its own point, with math.powf,
    under fastmath<reassoc> (re-association allowed, approximate functions not)."""
    fm = " fastmath<reassoc>"
    kernel = f"""func.func @kernel(%coef: tensor<{n}x4xf64>, %xs: tensor<{n}xf64>, %init: tensor<{n}xf64>) -> tensor<{n}xf64> {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %cn = arith.constant {n} : index
  %two = arith.constant 2.0 : f64
  %three = arith.constant 3.0 : f64
  %res = scf.for %i = %c0 to %cn step %c1 iter_args(%acc = %init) -> (tensor<{n}xf64>) {{
    %x = tensor.extract %xs[%i] : tensor<{n}xf64>
    %a0 = tensor.extract %coef[%i, %c0] : tensor<{n}x4xf64>
    %a1 = tensor.extract %coef[%i, %c1] : tensor<{n}x4xf64>
    %a2 = tensor.extract %coef[%i, %c2] : tensor<{n}x4xf64>
    %a3 = tensor.extract %coef[%i, %c3] : tensor<{n}x4xf64>
    %x2 = math.powf %x, %two{fm} : f64
    %x3 = math.powf %x, %three{fm} : f64
    %t1 = arith.mulf %a1, %x{fm} : f64
    %t2 = arith.mulf %a2, %x2{fm} : f64
    %t3 = arith.mulf %a3, %x3{fm} : f64
    %s1 = arith.addf %a0, %t1{fm} : f64
    %s2 = arith.addf %s1, %t2{fm} : f64
    %p = arith.addf %s2, %t3{fm} : f64
    %acc2 = tensor.insert %p into %acc[%i] : tensor<{n}xf64>
    scf.yield %acc2 : tensor<{n}xf64>
  }}
  return %res : tensor<{n}xf64>
}}
"""
    setup = f"""  %coef = tensor.generate {{
  ^bb0(%i: index, %j: index):
{index_mix([5, 11], "i32")}
    %k17 = arith.constant 17 : i32
    %m = arith.remsi %s0, %k17 : i32
    %f = arith.sitofp %m : i32 to f64
    %c8 = arith.constant 8.0 : f64
    %g = arith.subf %f, %c8 : f64
    tensor.yield %g : f64
  }} : tensor<{n}x4xf64>
  %xs = tensor.generate {{
  ^bb0(%i: index):
    %ii = arith.index_cast %i : index to i32
    %k23 = arith.constant 23 : i32
    %m = arith.remsi %ii, %k23 : i32
    %f = arith.sitofp %m : i32 to f64
    %c10 = arith.constant 10.0 : f64
    %g = arith.divf %f, %c10 : f64
    tensor.yield %g : f64
  }} : tensor<{n}xf64>
  %init = tensor.empty() : tensor<{n}xf64>"""
    call = f"  %r = func.call @kernel(%coef, %xs, %init) : (tensor<{n}x4xf64>, tensor<{n}xf64>, tensor<{n}xf64>) -> tensor<{n}xf64>"
    main = float_1d_main(n, setup, call).replace("{E}", "f64").replace(
        "{EXT}", "arith.addf %elt, %z : f64").replace("{PRINT}", "printMemrefF64")
    return HEADER + kernel + main


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
    (out / "grayscale.mlir").write_text(grayscale(1080, 1920, signed=False))
    (out / "grayscale_signed.mlir").write_text(grayscale(64, 96, signed=True))
    (out / "vecnorm.mlir").write_text(vecnorm(1 << 20, fast=True))
    (out / "vecnorm_nofast.mlir").write_text(vecnorm(1024, fast=False))
    (out / "poly.mlir").write_text(poly(1 << 20))


if __name__ == "__main__":
    main()
