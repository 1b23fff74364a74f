// Tensors and linalg: empty/fill/matmul chains writing into zero-filled tensors, a
// linalg.generic with affine maps, dynamic shapes and slices.
#id = affine_map<(d0, d1) -> (d0, d1)>
#tr = affine_map<(d0, d1) -> (d1, d0)>
func.func @mm2(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>, %c: tensor<4x32xf32>) -> tensor<8x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<8x4xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8x4xf32>) -> tensor<8x4xf32>
  %ab = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x4xf32>) outs(%f1 : tensor<8x4xf32>) -> tensor<8x4xf32>
  %e2 = tensor.empty() : tensor<8x32xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %abc = linalg.matmul ins(%ab, %c : tensor<8x4xf32>, tensor<4x32xf32>) outs(%f2 : tensor<8x32xf32>) -> tensor<8x32xf32>
  return %abc : tensor<8x32xf32>
}

func.func @transpose_scale(%a: tensor<4x8xf32>, %s: f32) -> tensor<8x4xf32> {
  %e = tensor.empty() : tensor<8x4xf32>
  %r = linalg.generic {indexing_maps = [#tr, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<4x8xf32>) outs(%e : tensor<8x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %s : f32
    linalg.yield %m : f32
  } -> tensor<8x4xf32>
  return %r : tensor<8x4xf32>
}

func.func @dynamic(%t: tensor<?x4xf32>, %i: index) -> (tensor<2x4xf32>, index, f32) {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %t, %c0 : tensor<?x4xf32>
  %s = tensor.extract_slice %t[%i, 0] [2, 4] [1, 1] : tensor<?x4xf32> to tensor<2x4xf32>
  %v = tensor.extract %t[%i, %c0] : tensor<?x4xf32>
  %ins = tensor.insert %v into %s[%c0, %c0] : tensor<2x4xf32>
  return %ins, %d, %v : tensor<2x4xf32>, index, f32
}

func.func @reshape(%t: tensor<2x3x4xf32>) -> (tensor<6x4xf32>, tensor<*xf32>) {
  %c = tensor.collapse_shape %t [[0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
  %u = tensor.cast %t : tensor<2x3x4xf32> to tensor<*xf32>
  return %c, %u : tensor<6x4xf32>, tensor<*xf32>
}
