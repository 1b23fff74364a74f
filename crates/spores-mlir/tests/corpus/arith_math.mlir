// Scalar arithmetic and math in custom syntax: constants of many types, fastmath flags,
// comparisons, selects and calls.
func.func @scalars(%a: f32, %b: f32, %i: i32, %j: i64) -> (f32, i32) {
  %c0 = arith.constant 0 : i32
  %c3 = arith.constant 3 : i32
  %cm = arith.constant -7 : i32
  %t = arith.constant true
  %h = arith.constant 1.5 : f16
  %bf = arith.constant 2.0 : bf16
  %d = arith.constant 6.25e-3 : f64
  %nan = arith.constant 0x7FC00000 : f32
  %inf = arith.constant 0xFF800000 : f32
  %big = arith.constant 123456789012 : i64
  %idx = arith.constant 42 : index
  %s = arith.addf %a, %b fastmath<fast> : f32
  %m = arith.mulf %s, %a fastmath<nnan,ninf> : f32
  %q = arith.divf %m, %b : f32
  %r = math.sqrt %q : f32
  %rs = math.rsqrt %r fastmath<afn> : f32
  %p = math.powf %rs, %a : f32
  %e = math.exp %p : f32
  %sn = math.sin %e : f32
  %fm = math.fma %sn, %a, %b : f32
  %x = arith.muli %i, %c3 : i32
  %y = arith.divsi %x, %cm : i32
  %z = arith.shrsi %y, %c3 : i32
  %w = arith.andi %z, %c0 : i32
  %cmp = arith.cmpi slt, %w, %i : i32
  %f = arith.cmpf ogt, %fm, %nan : f32
  %both = arith.andi %cmp, %f : i1
  %both2 = arith.xori %both, %t : i1
  %sel = arith.select %both2, %fm, %inf : f32
  %ext = arith.extsi %w : i32 to i64
  %sum = arith.addi %ext, %j : i64
  %sum2 = arith.addi %sum, %big : i64
  %tr = arith.trunci %sum2 : i64 to i32
  %ii = arith.index_cast %idx : index to i32
  %tot = arith.addi %tr, %ii : i32
  %hf = arith.extf %h : f16 to f32
  %bff = arith.extf %bf : bf16 to f32
  %dd = arith.truncf %d : f64 to f32
  %acc = arith.addf %sel, %hf : f32
  %acc2 = arith.addf %acc, %bff : f32
  %acc3 = arith.addf %acc2, %dd : f32
  %call = func.call @helper(%acc3) : (f32) -> f32
  return %call, %tot : f32, i32
}

func.func private @helper(f32) -> f32

func.func @negzero() -> f64 {
  %z = arith.constant -0.0 : f64
  %one = arith.constant 1.0e+10 : f64
  %r = arith.subf %z, %one : f64
  return %r : f64
}
