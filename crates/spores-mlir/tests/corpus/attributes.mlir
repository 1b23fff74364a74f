// Every kind of builtin attribute and type, held by unregistered operations.
"test.attrs"() {
  i = 42 : i32, neg = -17 : si8, u = 255 : ui8, idx = 3 : index, plain = 99,
  big = 170141183460469231731687303715884105727 : i128,
  f = 1.5 : f32, d = -2.5e-300 : f64, h = 0x7C00 : f16, hexd = 0x7FF8000000000001 : f64,
  t = true, fl = false, un = unit, bare,
  s = "tab\there \"quoted\" back\\slash nl\n \01 end",
  arr = [1, "two", [3.0 : f32], {k = @sym}],
  dict = {a = 1, b, "quoted key" = "v"},
  sym = @a::@b::@"c d",
  ty = tensor<4x?x!foo.e>, fty = (i32, f32) -> (), fty2 = () -> ((i32) -> i32),
  tys = [none, index, complex<f32>, tuple<i32, tuple<>, f64>, bf16, f8E4M3FN, si64, ui1, vector<[4]x2xi1>, memref<*xf32, 2>],
  da = array<i64: 1, -2, 3>, de = array<i32>, df = array<f32: 1.0, 2.5>, db = array<i1: true, false>,
  map = affine_map<(d0, d1)[s0] -> (d0 + s0, d1 * 2)>,
  set = affine_set<(d0) : (d0 - 1 >= 0)>,
  strided = strided<[8, 1], offset: 4>,
  fm = #arith.fastmath<nnan,nsz>,
  dn = dense<[1, 2]> : vector<2xi64>,
  typed_str = "x" : i32,
  dialect_typed = #foo.attr<1> : i32
} : () -> ()
"test.props"() <{value = 1 : i64, names = ["a", "b"]}> : () -> ()
