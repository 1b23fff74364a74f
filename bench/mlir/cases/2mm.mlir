func.func private @rtclock() -> f64
func.func private @printMemrefI64(memref<*xi64>)
func.func private @printMemrefI32(memref<*xi32>)
func.func private @printMemrefF32(memref<*xf32>)
func.func private @printMemrefF64(memref<*xf64>)
func.func private @printF64(f64)
func.func private @printNewline()
func.func @kernel(%a0: tensor<100x10xi64>, %a1: tensor<10x150xi64>, %a2: tensor<150x8xi64>) -> tensor<100x8xi64> {
  %zero = arith.constant 0 : i64
  %e1 = tensor.empty() : tensor<100x150xi64>
  %z1 = linalg.fill ins(%zero : i64) outs(%e1 : tensor<100x150xi64>) -> tensor<100x150xi64>
  %p1 = linalg.matmul ins(%a0, %a1 : tensor<100x10xi64>, tensor<10x150xi64>) outs(%z1 : tensor<100x150xi64>) -> tensor<100x150xi64>
  %e2 = tensor.empty() : tensor<100x8xi64>
  %z2 = linalg.fill ins(%zero : i64) outs(%e2 : tensor<100x8xi64>) -> tensor<100x8xi64>
  %p2 = linalg.matmul ins(%p1, %a2 : tensor<100x150xi64>, tensor<150x8xi64>) outs(%z2 : tensor<100x8xi64>) -> tensor<100x8xi64>
  return %p2 : tensor<100x8xi64>
}
func.func @main() {
  %in0 = tensor.generate {
  ^bb0(%i: index, %j: index):
    %ii = arith.index_cast %i : index to i64
    %jj = arith.index_cast %j : index to i64
    %c3 = arith.constant 3 : i64
    %c5 = arith.constant 5 : i64
    %c7 = arith.constant 7 : i64
    %cs = arith.constant 1 : i64
    %a = arith.muli %ii, %c3 : i64
    %b = arith.muli %jj, %c5 : i64
    %s0 = arith.addi %a, %b : i64
    %s = arith.addi %s0, %cs : i64
    %r = arith.remsi %s, %c7 : i64
    %v = arith.subi %r, %c3 : i64
    tensor.yield %v : i64
  } : tensor<100x10xi64>
  %in1 = tensor.generate {
  ^bb0(%i: index, %j: index):
    %ii = arith.index_cast %i : index to i64
    %jj = arith.index_cast %j : index to i64
    %c3 = arith.constant 3 : i64
    %c5 = arith.constant 5 : i64
    %c7 = arith.constant 7 : i64
    %cs = arith.constant 2 : i64
    %a = arith.muli %ii, %c3 : i64
    %b = arith.muli %jj, %c5 : i64
    %s0 = arith.addi %a, %b : i64
    %s = arith.addi %s0, %cs : i64
    %r = arith.remsi %s, %c7 : i64
    %v = arith.subi %r, %c3 : i64
    tensor.yield %v : i64
  } : tensor<10x150xi64>
  %in2 = tensor.generate {
  ^bb0(%i: index, %j: index):
    %ii = arith.index_cast %i : index to i64
    %jj = arith.index_cast %j : index to i64
    %c3 = arith.constant 3 : i64
    %c5 = arith.constant 5 : i64
    %c7 = arith.constant 7 : i64
    %cs = arith.constant 3 : i64
    %a = arith.muli %ii, %c3 : i64
    %b = arith.muli %jj, %c5 : i64
    %s0 = arith.addi %a, %b : i64
    %s = arith.addi %s0, %cs : i64
    %r = arith.remsi %s, %c7 : i64
    %v = arith.subi %r, %c3 : i64
    tensor.yield %v : i64
  } : tensor<150x8xi64>
  %t0 = func.call @rtclock() : () -> f64
  %r = func.call @kernel(%in0, %in1, %in2) : (tensor<100x10xi64>, tensor<10x150xi64>, tensor<150x8xi64>) -> tensor<100x8xi64>
  %t1 = func.call @rtclock() : () -> f64
  %m = bufferization.to_memref %r : memref<100x8xi64>
  %u = memref.cast %m : memref<100x8xi64> to memref<*xi64>
  func.call @printMemrefI64(%u) : (memref<*xi64>) -> ()
  %dt = arith.subf %t1, %t0 : f64
  func.call @printF64(%dt) : (f64) -> ()
  func.call @printNewline() : () -> ()
  return
}
