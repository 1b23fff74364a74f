// A registered dialect with its own types: LLVM pointers, structs and arrays.
llvm.func @f(%p: !llvm.ptr, %n: i64) -> !llvm.struct<(i32, f64)> {
  %c = llvm.mlir.constant(1 : i32) : i32
  %d = llvm.mlir.constant(2.0 : f64) : f64
  %u = llvm.mlir.undef : !llvm.struct<(i32, f64)>
  %s0 = llvm.insertvalue %c, %u[0] : !llvm.struct<(i32, f64)>
  %s1 = llvm.insertvalue %d, %s0[1] : !llvm.struct<(i32, f64)>
  %g = llvm.getelementptr %p[%n] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.array<4 x i32>
  llvm.return %s1 : !llvm.struct<(i32, f64)>
}
