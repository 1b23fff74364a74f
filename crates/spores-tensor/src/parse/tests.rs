use proptest::prelude::*;

use super::*;

fn parse_ok(src: &str) -> TensorProgram {
    match parse_program(src) {
        Ok(p) => p,
        Err(e) => panic!("{}", e.render("test.tp", src)),
    }
}

fn err_of(src: &str) -> String {
    parse_program(src)
        .expect_err("the program is invalid")
        .render("p.tp", src)
}

#[test]
fn the_issue_examples_parse_to_the_expected_trees() {
    let src = "X[i,j] = sum[p,c](S[i,p,c] * (P[p,j] + C[c,j]))\n\
               Y[i] = sigmoid(sum[j](X[i,j]*theta[j]))\n\
               t = sum[i,j,k](E[i,j]*E[j,k]*E[i,k])\n\
               V[i] = L[i] * max[j,k](E[i,j]*E[j,k]*E[i,k])\n\
               output Y, t, V\n";
    let p = parse_ok(src);
    let q = &p.program.queries;
    assert_eq!(q.len(), 4);
    assert_eq!(
        q[0].to_string(),
        "X[i,j] = sum[p,c](S[i,p,c] * (P[p,j] + C[c,j]))"
    );
    // X in the second query is an alias of the first.
    let Expr::Map { args, .. } = &q[1].expr else {
        panic!("sigmoid")
    };
    let Expr::Agg { body, .. } = &args[0] else {
        panic!("sum")
    };
    let Expr::Map { args: factors, .. } = body.as_ref() else {
        panic!("product")
    };
    assert!(matches!(&factors[0], Expr::Alias { name, .. } if name == "X"));
    assert!(matches!(&factors[1], Expr::Input { tensor, .. } if tensor == "theta"));
    // The triangle product is one 3-ary node.
    let Expr::Agg { body, .. } = &q[2].expr else {
        panic!("sum")
    };
    assert!(matches!(body.as_ref(), Expr::Map { op: MapOp::Mul, args } if args.len() == 3));
    assert_eq!(p.program.outputs, vec!["Y", "t", "V"]);
    assert_eq!(q[3].idxs, vec![Idx::new("i")]);
}

#[test]
fn outputs_default_to_every_query() {
    let p = parse_ok("a[i] = x[i] + 1; b = sum[i](a[i])");
    assert_eq!(p.program.outputs, vec!["a", "b"]);
}

#[test]
fn precedence_and_unary_minus() {
    let p = parse_ok("y[i] = a[i] + b[i] * c[i] ^ 2 ^ 3 - -x[i] / 2 < 4 && !(d[i] >= 1) || e[i]");
    assert_eq!(
        p.program.queries[0].expr.to_string(),
        "((((a[i] + (b[i] * (c[i] ^ (2 ^ 3)))) - (-(x[i]) / 2)) < 4) && !(d[i] >= 1)) || e[i]"
    );
    let p = parse_ok("y = -2 ^ 2 + -x ^ 2");
    assert_eq!(
        p.program.queries[0].expr,
        Expr::map(
            MapOp::Add,
            vec![
                Expr::map(MapOp::Pow, vec![Expr::Literal(-2.0), Expr::Literal(2.0)]),
                Expr::map(
                    MapOp::Pow,
                    vec![
                        Expr::map(MapOp::Neg, vec![Expr::input("x", vec![])]),
                        Expr::Literal(2.0)
                    ]
                ),
            ]
        )
    );
}

#[test]
fn rounding_remainders_and_ifelse_are_builtins() {
    let p = parse_ok("y[i] = a[i] % 2 * 3 + rem(a[i], 2) + mod(a[i], b[i]) + fld(a[i], 2) + floor(a[i]) + ifelse(a[i] > 0, ceil(b[i]), trunc(a[i]))");
    assert_eq!(
        p.program.queries[0].expr.to_string(),
        "((a[i] % 2) * 3) + (a[i] % 2) + mod(a[i], b[i]) + fld(a[i], 2) + floor(a[i]) + ifelse(a[i] > 0, ceil(b[i]), trunc(a[i]))"
    );
    let e = err_of("y[i] = ifelse(a[i] > 0, b[i])");
    assert!(
        e.contains("p.tp:1:8") && e.contains("`ifelse` takes 3 argument(s), 2 given"),
        "{e}"
    );
    let e = err_of("fn floor(x) = x\ny = floor(a)");
    assert!(e.contains("`floor` is a built-in operator"), "{e}");
}

#[test]
fn accesses_may_repeat_an_index_but_left_hand_sides_and_aggregates_may_not() {
    let p = parse_ok("d[i] = A[i,i] * sum[j](T[i,j,i])");
    assert_eq!(
        p.program.queries[0].expr.to_string(),
        "A[i,i] * sum[j](T[i,j,i])"
    );
    let e = err_of("t = sum[i,i](A[i,i])");
    assert!(
        e.contains("p.tp:1:11")
            && e.contains("index `i` appears twice in an aggregate's index list"),
        "{e}"
    );
    let e = err_of("B[i,i] = A[i,i]");
    assert!(
        e.contains("p.tp:1:5") && e.contains("index `i` appears twice"),
        "{e}"
    );
}

#[test]
fn pointwise_max_versus_aggregate_max() {
    let p = parse_ok("y[i] = max(a[i], 0, b[i]) + max[j](A[i,j])");
    let Expr::Map { args, .. } = &p.program.queries[0].expr else {
        panic!()
    };
    assert!(matches!(&args[0], Expr::Map { op: MapOp::Max, args } if args.len() == 3));
    assert!(matches!(&args[1], Expr::Agg { op: AggOp::Max, .. }));
}

#[test]
fn user_functions_carry_their_properties_and_evaluate_their_body() {
    let src = "fn f(x, y) = x*y + 1 [annihilator=0, commutative, distributes=max]\n\
               z[i] = f(a[i], b[i])\n";
    let p = parse_ok(src);
    let d = &p.functions[0];
    assert_eq!(d.func.props.annihilator, Some(0.0));
    assert!(d.func.props.commutative && !d.func.props.associative);
    assert_eq!(d.func.distributes_over, vec![AggOp::Max]);
    assert_eq!((d.func.eval)(&[3.0, 4.0]), 13.0);
    let Expr::Map { op, .. } = &p.program.queries[0].expr else {
        panic!()
    };
    assert_eq!(op.apply(&[2.0, 5.0]), 11.0);
    assert_eq!(parse_ok(&p.to_string()), p);
}

#[test]
fn fill_declarations() {
    let p = parse_ok("input A fill=1\ninput B fill=-inf\ny[i] = max[j](A[i,j] * B[j])");
    assert_eq!(p.fill_of("A"), Some(1.0));
    assert_eq!(p.fill_of("B"), Some(f64::NEG_INFINITY));
    assert_eq!(p.fill_of("C"), None);
    assert_eq!(parse_ok(&p.to_string()), p);
}

#[test]
fn integer_declarations_with_or_without_a_fill() {
    let p = parse_ok("input A fill=1 int\ninput B int\ninput C fill=2\ny[i] = A[i] + B[i] + C[i]");
    assert_eq!(p.integers, vec!["A", "B"]);
    assert_eq!((p.fill_of("A"), p.fill_of("B")), (Some(1.0), None));
    assert_eq!(parse_ok(&p.to_string()), p);
    let e = err_of("input A int int\ny = A");
    assert!(
        e.contains("p.tp:1:13: error: expected `fill=V` or `int` (each once), found `int`"),
        "{e}"
    );
}

#[test]
fn errors_point_at_the_offending_text() {
    assert_eq!(
        err_of("y[i] = a[i] +* 2\n"),
        "p.tp:1:14: error: expected an expression, found `*`\n  |\n1 | y[i] = a[i] +* 2\n  |              ^\n"
    );
    let e = err_of("a[i] = x[i]\ny[i] = sum[j](A[i,j]\n");
    assert!(
        e.starts_with("p.tp:3:1: error: expected `)`, found end of file"),
        "{e}"
    );
    let e = err_of("y[i] = A[i,j]\n");
    assert!(
        e.contains("p.tp:1:1:") && e.contains("free indices [i,j]"),
        "{e}"
    );
    let e = err_of("y = foo(x)");
    assert!(
        e.contains("1:5") && e.contains("unknown function `foo`"),
        "{e}"
    );
    let e = err_of("y = sum(x)");
    assert!(e.contains("needs its indices"), "{e}");
    let e = err_of("y[i] = A[i] \u{3bb} 2");
    assert!(
        e.contains("1:13") && e.contains("unexpected character"),
        "{e}"
    );
    let e = err_of("y = x\ny = x");
    assert!(e.contains("2:1") && e.contains("already defined"), "{e}");
    let e = err_of("y = a < b < c");
    assert!(e.contains("do not chain"), "{e}");
    let e = err_of("y = x\noutput z");
    assert!(e.contains("2:8") && e.contains("`z` is not defined"), "{e}");
    let e = err_of("fn f(x) = x [bogus]\ny = f(a)");
    assert!(e.contains("unknown property `bogus`"), "{e}");
    let e = err_of("y = sqrt(a, b)");
    assert!(e.contains("takes 1 argument"), "{e}");
    let e = err_of("y = sum[i](sum[i](A[i]))");
    assert!(e.contains("aggregated twice"), "{e}");
}

/// Random expressions over a few leaves, printed and re-parsed.
fn arb_expr(alias: Option<(String, Vec<Idx>)>) -> impl Strategy<Value = Expr> {
    let i = Idx::new("i");
    let j = Idx::new("j");
    let mut leaves = vec![
        Just(Expr::input("A", vec![i.clone(), j.clone()])).boxed(),
        Just(Expr::input("b", vec![j.clone()])).boxed(),
        Just(Expr::input("s", vec![])).boxed(),
        (-1e6f64..1e6).prop_map(Expr::Literal).boxed(),
        (0u32..10).prop_map(|v| Expr::Literal(v as f64)).boxed(),
    ];
    if let Some((name, idxs)) = alias {
        leaves.push(Just(Expr::alias(&name, idxs)).boxed());
    }
    let leaf = proptest::strategy::Union::new(leaves);
    leaf.prop_recursive(4, 24, 3, |inner| {
        use MapOp::*;
        let nary = prop::sample::select(vec![Add, Mul, Max, Min, And, Or]);
        let binary = prop::sample::select(vec![Sub, Div, Pow, Lt, Ge, Ne, Rem, Mod, Fld]);
        let unary = prop::sample::select(vec![Neg, Not, Sqrt, Sigmoid, Relu, Floor, Ceil, Trunc]);
        let agg = prop_oneof![Just(AggOp::Sum), Just(AggOp::Max), Just(AggOp::Any)];
        prop_oneof![
            (nary, proptest::collection::vec(inner.clone(), 2..4))
                .prop_map(|(op, args)| Expr::map(op, args)),
            (binary, inner.clone(), inner.clone()).prop_map(|(op, a, b)| Expr::map(op, vec![a, b])),
            (unary, inner.clone()).prop_map(|(op, a)| Expr::map(op, vec![a])),
            (inner.clone(), inner.clone(), inner.clone())
                .prop_map(|(c, a, b)| Expr::map(IfElse, vec![c, a, b])),
            (agg, inner).prop_map(|(op, body)| {
                let free: Vec<Idx> = body.free_idxs().into_iter().collect();
                if free.is_empty() || body.has_agg() {
                    body
                } else {
                    Expr::agg(op, vec![free[0].clone()], body)
                }
            }),
        ]
    })
}

fn query_of(name: &str, expr: Expr) -> Query {
    let idxs = expr.free_idxs().into_iter().collect();
    Query::new(name, idxs, expr)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn display_parses_back_to_the_same_program(
        (e1, e2) in arb_expr(None).prop_flat_map(|e1| {
            let idxs: Vec<Idx> = e1.free_idxs().into_iter().collect();
            (Just(e1), arb_expr(Some(("Q0".to_string(), idxs))))
        }),
        only_last in any::<bool>(),
    ) {
        let q0 = query_of("Q0", e1);
        let q1 = query_of("Q1", e2);
        let outputs = if only_last { vec!["Q1".to_string()] } else { vec!["Q0".into(), "Q1".into()] };
        let program = TensorProgram {
            program: Program { queries: vec![q0, q1], outputs },
            functions: vec![],
            fills: vec![],
            integers: vec![],
        };
        let text = program.to_string();
        let back = parse_program(&text).map_err(|e| TestCaseError::fail(e.render("rt", &text)))?;
        prop_assert_eq!(back, program, "{}", text);
    }
}
