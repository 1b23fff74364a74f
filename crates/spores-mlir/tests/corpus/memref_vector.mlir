// Memrefs with layouts and memory spaces, vectors (fixed and scalable), and loads/stores.
#col = affine_map<(d0, d1) -> (d1, d0)>
func.func @mem(%m: memref<4x4xf32, strided<[4, 1], offset: ?>>, %n: memref<8x8xf32, #col>, %s: memref<16xi8, 1>, %u: memref<*xf32>, %dyn: memref<?x?xf64, strided<[?, 1]>>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %v = memref.load %m[%c0, %c1] : memref<4x4xf32, strided<[4, 1], offset: ?>>
  %w = memref.load %n[%c1, %c0] : memref<8x8xf32, #col>
  %sum = arith.addf %v, %w : f32
  memref.store %sum, %m[%c1, %c1] : memref<4x4xf32, strided<[4, 1], offset: ?>>
  %a = memref.alloc() : memref<4xf32>
  memref.store %sum, %a[%c0] : memref<4xf32>
  memref.dealloc %a : memref<4xf32>
  %d0 = memref.dim %dyn, %c0 : memref<?x?xf64, strided<[?, 1]>>
  return %sum : f32
}

func.func @vec(%x: vector<4xf32>, %y: vector<[4]xf32>, %z: vector<2x[8]xi16>, %s: f32) -> f32 {
  %b = vector.broadcast %s : f32 to vector<4xf32>
  %m = arith.mulf %x, %b : vector<4xf32>
  %r = vector.reduction <add>, %m : vector<4xf32> into f32
  %e = vector.extract %m[2] : f32 from vector<4xf32>
  %f = arith.addf %r, %e : f32
  %sc = arith.addf %y, %y : vector<[4]xf32>
  return %f : f32
}
