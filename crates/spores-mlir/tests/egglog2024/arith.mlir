"builtin.module"() ({
  "func.func"() <{function_type = () -> i64, sym_name = "clock", sym_visibility = "private"}> ({
  }) : () -> ()
  "func.func"() <{function_type = (f32) -> f32, sym_name = "kernel", sym_visibility = "private"}> ({
  }) : () -> ()
  "func.func"() <{function_type = (f32) -> f32, sym_name = "rsqrt_kernel", sym_visibility = "private"}> ({
  }) : () -> ()
  "func.func"() <{function_type = (i64, i64) -> (), sym_name = "show", sym_visibility = "private"}> ({
  }) : () -> ()
  "func.func"() <{function_type = (i32) -> (i32, i32), sym_name = "ints"}> ({
  ^bb0(%arg1: i32):
    %6 = "arith.constant"() <{value = 2 : i32}> : () -> i32
    %7 = "arith.constant"() <{value = 16 : i32}> : () -> i32
    %8 = "arith.muli"(%arg1, %6) <{overflowFlags = #arith.overflow<none>}> : (i32, i32) -> i32
    %9 = "arith.divsi"(%arg1, %7) : (i32, i32) -> i32
    "func.return"(%8, %9) : (i32, i32) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (f32) -> f32, sym_name = "timed"}> ({
  ^bb0(%arg0: f32):
    %0 = "arith.constant"() <{value = 1.000000e+00 : f32}> : () -> f32
    %1 = "func.call"() <{callee = @clock}> : () -> i64
    %2 = "func.call"(%arg0) <{callee = @kernel}> : (f32) -> f32
    %3 = "func.call"() <{callee = @clock}> : () -> i64
    "func.call"(%1, %3) <{callee = @show}> : (i64, i64) -> ()
    %4 = "math.sqrt"(%2) <{fastmath = #arith.fastmath<fast>}> : (f32) -> f32
    %5 = "arith.divf"(%0, %4) <{fastmath = #arith.fastmath<fast>}> : (f32, f32) -> f32
    "func.return"(%5) : (f32) -> ()
  }) : () -> ()
}) : () -> ()

