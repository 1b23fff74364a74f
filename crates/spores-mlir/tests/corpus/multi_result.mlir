// Operations with several results, and uses of individual results.
func.func @multi(%a: i32, %b: i32, %n: index) -> (i32, i1, f32) {
  %sum, %overflow = arith.addui_extended %a, %b : i32, i1
  %lo, %hi = arith.mului_extended %a, %b : i32
  %r:3 = "foo.triple"(%sum, %hi) : (i32, i32) -> (i32, f32, i1)
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %loop:2 = scf.for %i = %c0 to %n step %c1 iter_args(%x = %r#0, %y = %r#1) -> (i32, f32) {
    %x2 = arith.addi %x, %lo : i32
    %y2 = arith.addf %y, %y : f32
    scf.yield %x2, %y2 : i32, f32
  }
  %p, %q:2 = "foo.groups"(%loop#1) : (f32) -> (i32, i1, i1)
  %or = arith.ori %overflow, %q#1 : i1
  %or2 = arith.ori %or, %r#2 : i1
  return %loop#0, %or2, %loop#1 : i32, i1, f32
}
