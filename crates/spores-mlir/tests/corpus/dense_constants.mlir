// Dense constants: splats, nested lists, booleans, complex numbers, negative and special
// values, a constant large enough that mlir-opt prints it as a hex blob, and a resource blob.
func.func @dense() -> (tensor<2x2xf32>, tensor<4xi32>, tensor<3xi1>, tensor<2xcomplex<f64>>, tensor<2x3xi8>, tensor<200xf32>, vector<4xf64>, tensor<0xf32>, tensor<2xf32>) {
  %a = arith.constant dense<[[1.0, -2.5], [3.25e10, 4.0e-12]]> : tensor<2x2xf32>
  %b = arith.constant dense<7> : tensor<4xi32>
  %c = arith.constant dense<[true, false, true]> : tensor<3xi1>
  %d = arith.constant dense<[(1.0, 2.0), (-3.0, 0.5)]> : tensor<2xcomplex<f64>>
  %e = arith.constant dense<[[-128, 0, 127], [1, -1, 2]]> : tensor<2x3xi8>
  %f = arith.constant dense<0.5> : tensor<200xf32>
  %g = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : vector<4xf64>
  %h = arith.constant dense<> : tensor<0xf32>
  %i = arith.constant dense<[0x7F800000, 0xFF800000]> : tensor<2xf32>
  return %a, %b, %c, %d, %e, %f, %g, %h, %i : tensor<2x2xf32>, tensor<4xi32>, tensor<3xi1>, tensor<2xcomplex<f64>>, tensor<2x3xi8>, tensor<200xf32>, vector<4xf64>, tensor<0xf32>, tensor<2xf32>
}

func.func @big() -> tensor<128xi32> {
  %x = arith.constant dense<[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99, 100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 113, 114, 115, 116, 117, 118, 119, 120, 121, 122, 123, 124, 125, 126, 127]> : tensor<128xi32>
  return %x : tensor<128xi32>
}

func.func @resource() -> tensor<2xf32> {
  %r = arith.constant dense_resource<blob1> : tensor<2xf32>
  return %r : tensor<2xf32>
}

{-#
  dialect_resources: {
    builtin: {
      blob1: "0x040000000000803F00000040"
    }
  }
#-}
