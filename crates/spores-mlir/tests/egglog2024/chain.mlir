#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<100x10xf32>, tensor<10x150xf32>, tensor<150x8xf32>) -> tensor<100x8xf32>, sym_name = "chain"}> ({
  ^bb0(%arg0: tensor<100x10xf32>, %arg1: tensor<10x150xf32>, %arg2: tensor<150x8xf32>):
    %0 = "tensor.empty"() : () -> tensor<100x150xf32>
    %1 = "linalg.matmul"(%arg0, %arg1, %0) <{operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg6: f32, %arg7: f32, %arg8: f32):
      %6 = "arith.mulf"(%arg6, %arg7) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %7 = "arith.addf"(%arg8, %6) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%7) : (f32) -> ()
    }) {linalg.memoized_indexing_maps = [#map, #map1, #map2]} : (tensor<100x10xf32>, tensor<10x150xf32>, tensor<100x150xf32>) -> tensor<100x150xf32>
    %2 = "tensor.empty"() : () -> tensor<100x8xf32>
    %3 = "linalg.matmul"(%1, %arg2, %2) <{operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg3: f32, %arg4: f32, %arg5: f32):
      %4 = "arith.mulf"(%arg3, %arg4) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %5 = "arith.addf"(%arg5, %4) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%5) : (f32) -> ()
    }) {linalg.memoized_indexing_maps = [#map, #map1, #map2]} : (tensor<100x150xf32>, tensor<150x8xf32>, tensor<100x8xf32>) -> tensor<100x8xf32>
    "func.return"(%3) : (tensor<100x8xf32>) -> ()
  }) : () -> ()
}) : () -> ()

