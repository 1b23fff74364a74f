// Structured control flow: for loops with iteration arguments, nested ifs, while loops with
// two regions and block arguments, parallel loops and reductions.
func.func @loops(%n: index, %x: f32, %flag: i1) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f32) {
    %fi = arith.index_cast %i : index to i32
    %f = arith.sitofp %fi : i32 to f32
    %next = scf.if %flag -> (f32) {
      %m = arith.mulf %f, %x : f32
      %a = arith.addf %acc, %m : f32
      scf.yield %a : f32
    } else {
      %inner = scf.for %j = %c0 to %i step %c1 iter_args(%in = %acc) -> (f32) {
        %s = arith.subf %in, %x : f32
        scf.yield %s : f32
      }
      scf.yield %inner : f32
    }
    scf.yield %next : f32
  }
  scf.if %flag {
    "test.side_effect"(%sum) : (f32) -> ()
  }
  %w:2 = scf.while (%v = %sum, %k = %c0) : (f32, index) -> (f32, index) {
    %lt = arith.cmpi ult, %k, %n : index
    scf.condition(%lt) %v, %k : f32, index
  } do {
  ^bb0(%v2: f32, %k2: index):
    %v3 = arith.mulf %v2, %x : f32
    %k3 = arith.addi %k2, %c1 : index
    scf.yield %v3, %k3 : f32, index
  }
  %red = scf.parallel (%p) = (%c0) to (%n) step (%c1) init (%w#0) -> f32 {
    scf.reduce(%x : f32) {
    ^bb0(%l: f32, %r: f32):
      %mx = arith.maximumf %l, %r : f32
      scf.reduce.return %mx : f32
    }
  }
  return %red : f32
}
