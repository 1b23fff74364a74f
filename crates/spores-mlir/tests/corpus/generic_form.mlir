// Already in generic form: a module with attributes, properties and nested regions.
"builtin.module"() <{sym_name = "m"}> ({
  "func.func"() <{function_type = (i32) -> i32, sym_name = "id", sym_visibility = "private"}> ({
  ^bb0(%arg0: i32):
    %0:2 = "test.two"(%arg0) : (i32) -> (i32, i32)
    %1 = "arith.addi"(%0#0, %0#1) <{overflowFlags = #arith.overflow<nsw>}> : (i32, i32) -> i32
    "func.return"(%1) : (i32) -> ()
  }) : () -> ()
  "builtin.module"() ({
    "test.inner"() : () -> ()
  }) {test.attr = "nested"} : () -> ()
}) {test.top = 1 : i64} : () -> ()
