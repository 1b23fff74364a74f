//! Unit tests of the reader and printer on hand-written generic-form text (no mlir-opt needed).

use spores_mlir::{
    parse, parse_with, print, Attribute, DenseElements, DenseLit, FloatKind, FloatValue, Module,
    ParseOptions, PrintOptions, Signedness, Type, Value,
};

/// Parses, prints, re-parses and checks equality; returns the module.
fn round_trip(text: &str) -> Module {
    let m = parse(text).unwrap_or_else(|e| panic!("parse failed: {e}\n{text}"));
    let printed = print(&m, PrintOptions::default());
    let m2 = parse(&printed).unwrap_or_else(|e| panic!("re-parse failed: {e}\n{printed}"));
    assert_eq!(m, m2, "round trip differs:\n{printed}");
    m
}

fn first_attr(text: &str, name: &str) -> Attribute {
    let m = round_trip(text);
    m.ops[0]
        .attr(name)
        .cloned()
        .unwrap_or_else(|| panic!("no attribute {name}"))
}

fn attr(src: &str) -> Attribute {
    first_attr(&format!("\"t.op\"() {{a = {src}}} : () -> ()"), "a")
}

fn ty(src: &str) -> Type {
    match attr(src) {
        Attribute::Type(t) => t,
        other => panic!("not a type: {other:?}"),
    }
}

#[test]
fn multi_result_ops_and_uses() {
    let m = round_trip(
        r#"%r:2, %s = "a.b"(%x, %y#3) : (i32, f32) -> (i32, i32, f32)
"c.d"(%r#1, %s) : (i32, f32) -> ()
%x, %y:4 = "p.q"() : () -> (i32, f32, f32, f32, f32)"#,
    );
    let op = &m.ops[0];
    assert_eq!(op.num_results(), 3);
    assert_eq!(
        op.result(1),
        Some(Value {
            name: "r".into(),
            index: Some(1)
        })
    );
    assert_eq!(op.result(2), Some(Value::named("s")));
    assert_eq!(op.result(3), None);
    assert_eq!(
        op.operands[1],
        Value {
            name: "y".into(),
            index: Some(3)
        }
    );
    assert_eq!(op.operand_types, vec![Type::int(32), Type::f32()]);
    assert_eq!(
        m.ops[1].operands[0],
        Value {
            name: "r".into(),
            index: Some(1)
        }
    );
}

#[test]
fn regions_blocks_and_successors() {
    let m = round_trip(
        r#""f.f"() ({
  %0 = "x.c"() : () -> i1
  "x.br"(%0)[^bb1, ^bb2(%0 : i1)] : (i1) -> ()
^bb1:  // comment
  "x.ret"() : () -> ()
^bb2(%a: i1, %b: index):
  "x.loop"() ({
  ^entry(%i: index):
    "x.yield"() : () -> ()
  }, {
  }) : () -> ()
}) : () -> ()"#,
    );
    let region = &m.ops[0].regions[0];
    assert_eq!(region.blocks.len(), 3);
    assert_eq!(region.blocks[0].label, None);
    assert_eq!(region.blocks[2].label.as_deref(), Some("bb2"));
    assert_eq!(region.blocks[2].args[1].ty, Type::Index);
    let br = &region.blocks[0].ops[1];
    assert_eq!(br.successors.len(), 2);
    assert_eq!(br.successors[1].label, "bb2");
    assert_eq!(br.successors[1].args, vec![Value::named("0")]);
    assert_eq!(br.successors[1].arg_types, vec![Type::int(1)]);
    let nested = &region.blocks[2].ops[0];
    assert_eq!(nested.regions.len(), 2);
    assert!(nested.regions[1].blocks.is_empty());
}

#[test]
fn properties_and_attributes_by_name() {
    let m = round_trip(
        r#"%0 = "arith.addf"(%a, %b) <{fastmath = #arith.fastmath<nnan, ninf>}> {tag = "x"} : (f32, f32) -> f32
%a, %b = "p.q"() : () -> (f32, f32)"#,
    );
    let op = &m.ops[0];
    assert_eq!(op.dialect(), "arith");
    assert_eq!(
        op.attr("fastmath").and_then(Attribute::fastmath_flags),
        Some(vec!["nnan", "ninf"])
    );
    assert_eq!(op.attr("tag").and_then(Attribute::as_str), Some("x"));
    assert_eq!(op.attr("nope"), None);
}

#[test]
fn builtin_types() {
    assert_eq!(ty("i1"), Type::int(1));
    assert_eq!(
        ty("si8"),
        Type::Integer {
            signedness: Signedness::Signed,
            width: 8
        }
    );
    assert_eq!(
        ty("ui64"),
        Type::Integer {
            signedness: Signedness::Unsigned,
            width: 64
        }
    );
    assert_eq!(ty("bf16"), Type::Float(FloatKind::BF16));
    let t = ty("tensor<4x?xf32>");
    assert_eq!(t.shape(), Some(vec![Some(4), None]));
    assert_eq!(t.element_type(), &Type::f32());
    assert_eq!(ty("tensor<0xi32>").shape(), Some(vec![Some(0)]));
    assert_eq!(ty("tensor<f64>").shape(), Some(vec![]));
    match ty("memref<4x4xf32, strided<[4, 1], offset: ?>, 3>") {
        Type::MemRef {
            layout,
            memory_space,
            ..
        } => {
            assert_eq!(
                layout.as_deref(),
                Some(&Attribute::Opaque("strided<[4, 1], offset: ?>".into()))
            );
            assert_eq!(memory_space.as_deref().and_then(Attribute::as_int), Some(3));
        }
        t => panic!("{t:?}"),
    }
    match ty("vector<2x[4]xf32>") {
        Type::Vector { shape, .. } => assert!(!shape[0].scalable && shape[1].scalable),
        t => panic!("{t:?}"),
    }
    assert_eq!(ty("complex<f32>"), Type::Complex(Box::new(Type::f32())));
    assert_eq!(
        ty("tuple<i32, none>"),
        Type::Tuple(vec![Type::int(32), Type::None])
    );
    assert_eq!(
        ty("(i32) -> f32"),
        Type::Function {
            inputs: vec![Type::int(32)],
            results: vec![Type::f32()]
        }
    );
    assert_eq!(
        ty("!foo.type<3, <a>>"),
        Type::Dialect {
            dialect: "foo".into(),
            name: "type".into(),
            body: Some("3, <a>".into())
        }
    );
    assert_eq!(
        ty("!llvm.ptr"),
        Type::Dialect {
            dialect: "llvm".into(),
            name: "ptr".into(),
            body: None
        }
    );
    ty("tensor<*xf32>");
    ty("memref<*xf32, 1>");
    ty("tensor<4xf32, #enc.x<1>>");
}

#[test]
fn builtin_attributes() {
    assert_eq!(
        attr("42 : i32"),
        Attribute::Integer {
            value: 42,
            ty: Type::int(32)
        }
    );
    assert_eq!(attr("-3"), Attribute::i64(-3));
    assert_eq!(
        attr("0x10 : index"),
        Attribute::Integer {
            value: 16,
            ty: Type::Index
        }
    );
    assert_eq!(
        attr("1.0 : f32"),
        Attribute::Float {
            value: FloatValue::Decimal(1.0),
            ty: Type::f32()
        }
    );
    assert_eq!(
        attr("-2.5e-3"),
        Attribute::Float {
            value: FloatValue::Decimal(-2.5e-3),
            ty: Type::f64()
        }
    );
    let nan = attr("0x7FC00000 : f32");
    assert_eq!(
        nan,
        Attribute::Float {
            value: FloatValue::Bits(0x7FC0_0000),
            ty: Type::f32()
        }
    );
    if let Attribute::Float { value, ty } = &nan {
        assert!(value.to_f64(ty).is_some_and(f64::is_nan));
    }
    assert_eq!(attr("true"), Attribute::Bool(true));
    assert_eq!(attr("unit"), Attribute::Unit);
    assert_eq!(
        attr(r#""a\"b\n\\\41\ff""#),
        Attribute::String {
            value: b"a\"b\n\\A\xff".to_vec(),
            ty: None
        }
    );
    assert_eq!(
        attr("[1, [], {}]").clone(),
        Attribute::Array(vec![
            Attribute::i64(1),
            Attribute::Array(vec![]),
            Attribute::Dict(vec![])
        ])
    );
    match attr(r#"{x = 1, y, "z w" = @f}"#) {
        Attribute::Dict(d) => {
            assert_eq!(d[1].value, Attribute::Unit);
            assert_eq!(d[2].name, "z w");
            assert_eq!(d[2].value, Attribute::SymbolRef(vec!["f".into()]));
        }
        a => panic!("{a:?}"),
    }
    assert_eq!(
        attr(r#"@a::@"b c""#),
        Attribute::SymbolRef(vec!["a".into(), "b c".into()])
    );
    assert_eq!(
        attr("array<i64: 1, -2>"),
        Attribute::DenseArray {
            elem: Type::int(64),
            values: vec![DenseLit::Int(1), DenseLit::Int(-2)]
        }
    );
    assert_eq!(
        attr("array<f32>"),
        Attribute::DenseArray {
            elem: Type::f32(),
            values: vec![]
        }
    );
    assert_eq!(
        attr("affine_map<(d0) -> (d0 + 1)>"),
        Attribute::AffineMap("(d0) -> (d0 + 1)".into())
    );
    assert_eq!(
        attr("#foo.thing<[1, {a}]>"),
        Attribute::Dialect {
            dialect: "foo".into(),
            name: "thing".into(),
            body: Some("[1, {a}]".into()),
            ty: None
        }
    );
    assert_eq!(
        attr("strided<[1]>"),
        Attribute::Opaque("strided<[1]>".into())
    );
    // Values beyond 128 bits and overflowing floats are kept as text.
    assert!(matches!(
        attr("340282366920938463463374607431768211456 : i256"),
        Attribute::Opaque(_)
    ));
    assert!(matches!(attr("1.0e400 : f64"), Attribute::Opaque(_)));
}

#[test]
fn dense_elements() {
    match attr("dense<[[1.0, -2.0], [3.5, 4.0]]> : tensor<2x2xf32>") {
        Attribute::Dense {
            elements: DenseElements::List(rows),
            ty,
        } => {
            assert_eq!(rows.len(), 2);
            assert_eq!(
                rows[0],
                DenseElements::List(vec![
                    DenseElements::Splat(DenseLit::Float(1.0)),
                    DenseElements::Splat(DenseLit::Float(-2.0))
                ])
            );
            assert_eq!(ty.shape(), Some(vec![Some(2), Some(2)]));
        }
        a => panic!("{a:?}"),
    }
    assert!(matches!(
        attr("dense<5> : tensor<3xi8>"),
        Attribute::Dense {
            elements: DenseElements::Splat(DenseLit::Int(5)),
            ..
        }
    ));
    assert!(
        matches!(attr(r#"dense<"0xDEADBEEF"> : tensor<1xi32>"#), Attribute::Dense { elements: DenseElements::Hex(h), .. } if h == "0xDEADBEEF")
    );
    assert!(matches!(
        attr("dense<> : tensor<0xf32>"),
        Attribute::Dense {
            elements: DenseElements::Empty,
            ..
        }
    ));
    assert!(matches!(
        attr("dense<(1, 2)> : tensor<complex<i32>>"),
        Attribute::Dense {
            elements: DenseElements::Splat(DenseLit::Complex(..)),
            ..
        }
    ));
    assert!(matches!(
        attr("dense<[0x7F800000]> : tensor<1xf32>"),
        Attribute::Dense {
            elements: DenseElements::List(_),
            ..
        }
    ));
}

#[test]
fn aliases_are_resolved() {
    let m = round_trip(
        r#"#map = affine_map<(d0) -> (d0)>
!t = tensor<4xf32>
#m2 = [#map, 1]
"a.b"() {m = #m2} : () -> !t"#,
    );
    assert_eq!(m.ops[0].result_types[0].shape(), Some(vec![Some(4)]));
    assert_eq!(
        m.ops[0].attr("m"),
        Some(&Attribute::Array(vec![
            Attribute::AffineMap("(d0) -> (d0)".into()),
            Attribute::i64(1)
        ]))
    );
    let e = parse(r#""a.b"() {m = #nope} : () -> ()"#).expect_err("undefined alias");
    assert!(e.message.contains("#nope"), "{e}");
    // A dialect item needs both parts: `#foo.` would print as the alias `#foo`.
    for text in [
        r#""a.b"() {m = #foo.} : () -> ()"#,
        r#""a.b"() : () -> !foo."#,
    ] {
        let e = parse(text).expect_err(text);
        assert!(e.message.contains("dialect.name"), "{text}: {e}");
        assert_eq!(e.line, 1, "{text}: {e}");
    }
}

#[test]
fn locations_kept_or_dropped() {
    let text = r#""a.b"() ({
^bb0(%x: i32 loc("f":1:2)):
  "a.c"() : () -> () loc(#loc1)
}) : () -> () loc(fused["a":1:1, "b":2:2])
#loc1 = loc("g":3:4)"#;
    let kept = round_trip(text);
    assert_eq!(
        kept.loc_aliases,
        vec![("loc1".to_string(), r#""g":3:4"#.to_string())]
    );
    assert_eq!(
        kept.ops[0].loc.as_ref().map(|l| l.0.as_str()),
        Some(r#"fused["a":1:1, "b":2:2]"#)
    );
    let dropped = parse_with(
        text,
        ParseOptions {
            keep_locations: false,
        },
    )
    .expect("parse");
    assert!(dropped.loc_aliases.is_empty() && dropped.ops[0].loc.is_none());
    assert!(!print(&dropped, PrintOptions::default()).contains("loc"));
}

#[test]
fn empty_blocks_and_regions_stay_distinct() {
    let m = round_trip(
        r#""a.b"() ({
}, {
^bb0:
}, {
^bb3(%z: i1):
}) : () -> ()"#,
    );
    let r = &m.ops[0].regions;
    assert_eq!(r[0].blocks.len(), 0);
    assert_eq!(r[1].blocks.len(), 1);
    assert_eq!(r[2].blocks[0].args.len(), 1);
}

#[test]
fn file_metadata_is_kept() {
    let m = round_trip(
        r#""a.b"() {v = dense_resource<r> : tensor<1xi32>} : () -> ()
{-#
  dialect_resources: { builtin: { r: "0x0400000001000000" } }
#-}"#,
    );
    assert!(m
        .metadata
        .as_deref()
        .is_some_and(|s| s.contains("0x0400000001000000")));
}

#[test]
fn errors_have_positions() {
    let e =
        parse("\"a.b\"() : () -> ()\n  %0 = \"a.c\"(%x : () -> i32").expect_err("missing paren");
    assert_eq!((e.line, e.col), (2, 17), "{e}");
    assert!(e.to_string().starts_with("2:17: "), "{e}");

    let e = parse("module {\n}").expect_err("custom syntax");
    assert_eq!((e.line, e.col), (1, 1));
    assert!(e.message.contains("generic"), "{e}");

    let e = parse("\"a.b\"() : (i32) -> f32 extra").expect_err("trailing junk");
    assert_eq!(e.line, 1);

    let e = parse("\"a.b\"() {s = \"unterminated} : () -> ()").expect_err("string");
    assert!(e.message.contains("unterminated"), "{e}");

    let e = parse("\"a.b\"() : i32").expect_err("not a function type");
    assert!(e.message.contains("function type"), "{e}");
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let deep = format!(
        "\"a.b\"() {{a = {}1{}}} : () -> ()",
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    assert!(parse(&deep).is_err());
    let deep_types = format!(
        "\"a.b\"() : () -> {}i32{}",
        "complex<".repeat(50_000),
        ">".repeat(50_000)
    );
    assert!(parse(&deep_types).is_err());
    let mut regions = String::new();
    for _ in 0..10_000 {
        regions.push_str("\"a.b\"() ({\n");
    }
    assert!(parse(&regions).is_err());
}

#[test]
fn built_ir_prints_valid_generic_form() {
    use spores_mlir::{Block, BlockArg, NamedAttr, Operation, Region, ResultGroup};
    let mut add = Operation::new("arith.addf");
    add.results.push(ResultGroup {
        name: "sum".into(),
        count: 1,
    });
    add.operands = vec![Value::named("x"), Value::named("x")];
    add.operand_types = vec![Type::f32(), Type::f32()];
    add.result_types = vec![Type::f32()];
    let mut ret = Operation::new("func.return");
    ret.operands = vec![Value::named("sum")];
    ret.operand_types = vec![Type::f32()];
    let mut func = Operation::new("func.func");
    func.properties = Some(Attribute::Dict(vec![
        NamedAttr::new(
            "function_type",
            Attribute::Type(Type::Function {
                inputs: vec![Type::f32()],
                results: vec![Type::f32()],
            }),
        ),
        NamedAttr::new("sym_name", Attribute::string("double")),
    ]));
    func.regions.push(Region {
        blocks: vec![Block {
            label: None,
            args: vec![BlockArg {
                name: "x".into(),
                ty: Type::f32(),
                loc: None,
            }],
            ops: vec![add, ret],
        }],
    });
    let mut module = Operation::new("builtin.module");
    module.regions.push(Region {
        blocks: vec![Block {
            label: None,
            args: vec![],
            ops: vec![func],
        }],
    });
    let m = Module {
        ops: vec![module],
        ..Module::default()
    };
    let text = print(&m, PrintOptions::default());
    assert!(text.contains("^bb0(%x: f32):"), "{text}");
    let back = parse(&text).expect("parse");
    assert_eq!(
        back.ops[0].regions[0].blocks[0].ops[0].regions[0].blocks[0]
            .label
            .as_deref(),
        Some("bb0")
    );
    if let Some(tool) = spores_mlir::find_mlir_opt() {
        spores_mlir::verify_text(&tool, &text).unwrap_or_else(|d| panic!("{d}\n{text}"));
    } else {
        eprintln!("note: mlir-opt-19 not installed; skipped verifying the printed module");
    }
}
