// Unstructured control flow: branches with block arguments, conditional branches, switches
// and a loop made of blocks.
func.func @branches(%c: i1, %v: i32, %w: i32) -> i32 {
  cf.cond_br %c, ^then(%v : i32), ^else
^then(%t: i32):
  cf.br ^join(%t, %w : i32, i32)
^else:
  %neg = arith.subi %w, %v : i32
  cf.br ^join(%neg, %v : i32, i32)
^join(%a: i32, %b: i32):
  %r = arith.addi %a, %b : i32
  return %r : i32
}

func.func @count(%n: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  cf.br ^head(%c0, %c0 : i32, i32)
^head(%i: i32, %acc: i32):
  %done = arith.cmpi sge, %i, %n : i32
  cf.cond_br %done, ^exit, ^body
^body:
  %acc2 = arith.addi %acc, %i : i32
  %i2 = arith.addi %i, %c1 : i32
  cf.br ^head(%i2, %acc2 : i32, i32)
^exit:
  return %acc : i32
}

func.func @switch(%flag: i32, %x: f32) -> f32 {
  cf.switch %flag : i32, [
    default: ^d(%x : f32),
    0: ^zero,
    5: ^d(%x : f32)
  ]
^zero:
  %z = arith.constant 0.0 : f32
  return %z : f32
^d(%y: f32):
  return %y : f32
}
