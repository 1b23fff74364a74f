// Operations, types and attributes of dialects mlir-opt does not know, mixed with known ones.
func.func @opaque(%x: !foo.type<3>, %y: i32) -> !foo.type<3> {
  "foo.bar"(%x) {weird = #foo.thing<[1, {a}]>} : (!foo.type<3>) -> ()
  %0 = "foo.baz"(%x, %y) {nested = #foo.n<"str>", <1, 2>, (a -> b)>, plain = #foo.plain, op = #foo<"raw text">} : (!foo.type<3>, i32) -> !foo.type<3>
  %1 = "foo.gen"() : () -> !foo.t<"x", [1, 2], {k = v}>
  %2 = "bar.region_op"(%0) ({
  ^bb0(%arg: !foo.type<3>):
    %in = "bar.inner"(%arg) {depth = 1 : i64} : (!foo.type<3>) -> !foo.type<3>
    "bar.yield"(%in) : (!foo.type<3>) -> ()
  }, {
    "bar.other"() : () -> ()
  }) : (!foo.type<3>) -> !foo.type<3>
  "foo.consume"(%1) : (!foo.t<"x", [1, 2], {k = v}>) -> ()
  "foo.empty_region"() ({
  }) : () -> ()
  return %2 : !foo.type<3>
}

"top.level"() {note = "an unregistered op at the top level"} : () -> ()
