// Explicit locations of several kinds; loaded with and without keeping them.
#loc_a = loc("input.py":10:4)
func.func @locs(%x: f32 loc("arg.py":1:1)) -> f32 {
  %y = arith.addf %x, %x : f32 loc(#loc_a)
  %z = arith.mulf %y, %y : f32 loc(fused["a.py":1:2, "b.py":3:4])
  %w = arith.subf %z, %x : f32 loc(callsite("callee"("c.py":5:6) at "d.py":7:8))
  %v = arith.negf %w : f32 loc(unknown)
  return %v : f32 loc("name"("e.py":9:10))
}
