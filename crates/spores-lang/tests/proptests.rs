//! Property tests: the front end never panics, whatever the input, and printing an
//! expression then parsing it gives back the same tree.

mod common;
use common::sx;
use proptest::prelude::*;
use spores_lang::ast::{Arg, BinaryOp, Expr, ExprKind, Index, UnaryOp};
use spores_lang::diag::Span;

const CORPUS: &[&str] = &[
    "X = rand(rows=10, cols=5, sparsity=0.1, seed=42)\ny = X %*% t(X)\nprint(\"sum: \" + sum(y))\n",
    "f = function(matrix[double] X, double y = 1.0, int k) return (matrix[double] Z, double s) {\n  Z = X * y; s = sum(Z) + k\n}\n[A, b] = f(X, 2.0, 3)\n",
    "if (x > 0 & !done) {\n  y = -2^2\n} else if (x == 0) y = 1 else {\n  y = X[1, 2]\n}\n",
    "for (i in 1:n) {\n  X[i, ] = Y[i, ] / 2 # row\n}\nparfor (j in seq(1, 10, 2), check=0) z = z + j\n",
    "while (it < maxi & err > 1e-6) {\n  it = it + 1\n  err = err * .5\n}\n/* done */\nwrite(err, $out)\n",
    "s = 'it\\'s' + \"a\\tb\"\nX[a:b, c:d] <- Y[, 1:2] %% 3 %/% 2\nb = TRUE | FALSE && x != y\n",
];

/// Parsing must return, never panic; any error must point inside the source and render.
fn must_not_panic(src: &str) {
    if let Err(d) = spores_lang::parse(src) {
        assert!(d.span.start <= d.span.end && d.span.end <= src.len());
        assert!(src.is_char_boundary(d.span.start) && src.is_char_boundary(d.span.end));
        let _ = d.render("fuzz.dml", src);
    }
    let _ = spores_lang::parse_expr(src);
}

#[derive(Clone, Debug)]
enum Mutation {
    Delete(usize),
    Insert(usize, char),
    Duplicate(usize, usize),
}

fn apply(src: &str, muts: &[Mutation]) -> String {
    let mut chars: Vec<char> = src.chars().collect();
    for m in muts {
        let n = chars.len().max(1);
        match *m {
            Mutation::Delete(i) if !chars.is_empty() => {
                chars.remove(i % n);
            }
            Mutation::Delete(_) => {}
            Mutation::Insert(i, c) => chars.insert(i % (chars.len() + 1), c),
            Mutation::Duplicate(i, len) => {
                let start = i % n;
                let end = (start + len).min(chars.len());
                let piece: Vec<char> = chars[start..end].to_vec();
                let at = end;
                chars.splice(at..at, piece);
            }
        }
    }
    chars.into_iter().collect()
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let interesting = prop::sample::select(vec![
        '(', ')', '[', ']', '{', '}', ',', ';', ':', '\n', '"', '\'', '\\', '#', '/', '*', '%',
        '=', '<', '-', '!', '&', '|', '^', '$', '.', 'e', '0', '1', 'x', ' ', 'é', '\0',
    ]);
    prop_oneof![
        any::<usize>().prop_map(Mutation::Delete),
        (any::<usize>(), prop_oneof![interesting, any::<char>()])
            .prop_map(|(i, c)| Mutation::Insert(i, c)),
        (any::<usize>(), 1usize..20).prop_map(|(i, l)| Mutation::Duplicate(i, l)),
    ]
}

fn var_name() -> impl Strategy<Value = String> {
    "[a-zA-Z_][a-zA-Z0-9_.]{0,5}".prop_filter("keyword", |s| {
        !matches!(
            s.as_str(),
            "TRUE" | "FALSE" | "if" | "else" | "for" | "parfor" | "while" | "function"
        )
    })
}

fn e(kind: ExprKind) -> Expr {
    Expr {
        kind,
        span: Span::default(),
    }
}

fn leaf() -> impl Strategy<Value = Expr> {
    prop_oneof![
        (0i64..1_000_000).prop_map(ExprKind::Int),
        prop_oneof![(0.0f64..1e6), Just(0.5), Just(1e-7), Just(1e300), Just(0.1)]
            .prop_map(ExprKind::Double),
        "[a-z \"'\\\\\n\té]{0,6}".prop_map(ExprKind::Str),
        any::<bool>().prop_map(ExprKind::Bool),
        var_name().prop_map(ExprKind::Var),
        prop_oneof![var_name(), "[0-9]{1,2}"].prop_map(ExprKind::CmdArg),
    ]
    .prop_map(e)
}

fn binop() -> impl Strategy<Value = BinaryOp> {
    use BinaryOp::*;
    prop::sample::select(vec![
        Add, Sub, Mul, Div, Pow, MatMul, Mod, IntDiv, Eq, Ne, Lt, Le, Gt, Ge, And, Or,
    ])
}

fn index(inner: BoxedStrategy<Expr>) -> impl Strategy<Value = Index> {
    prop_oneof![
        Just(Index::All),
        inner.clone().prop_map(|x| Index::Single(Box::new(x))),
        (inner.clone(), inner).prop_map(|(a, b)| Index::Range(Box::new(a), Box::new(b))),
    ]
}

fn expr() -> impl Strategy<Value = Expr> {
    leaf().prop_recursive(6, 64, 4, |inner| {
        let unop = prop::sample::select(vec![UnaryOp::Neg, UnaryOp::Plus, UnaryOp::Not]);
        prop_oneof![
            (unop, inner.clone()).prop_map(|(op, x)| e(ExprKind::Unary {
                op,
                expr: Box::new(x)
            })),
            (binop(), inner.clone(), inner.clone()).prop_map(|(op, l, r)| e(ExprKind::Binary {
                op,
                lhs: Box::new(l),
                rhs: Box::new(r)
            })),
            (
                var_name(),
                prop::collection::vec((prop::option::of(var_name()), inner.clone()), 0..4)
            )
                .prop_map(|(name, args)| e(ExprKind::Call {
                    name,
                    args: args
                        .into_iter()
                        .map(|(name, value)| Arg { name, value })
                        .collect()
                })),
            (inner.clone(), index(inner.clone()), index(inner.clone())).prop_map(
                |(t, rows, cols)| e(ExprKind::Index {
                    target: Box::new(t),
                    rows,
                    cols
                })
            ),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn random_text_never_panics(src in "[ -~\n\té«]{0,80}") {
        must_not_panic(&src);
    }

    #[test]
    fn dml_like_text_never_panics(
        src in r#"([a-z]{1,3}|[0-9.e]{1,4}|[-+*/^%!=<>&|:,;$#(){}\[\]"'\\\n ]|%\*%|<-|if|else|for|while|function|return|in){0,40}"#
    ) {
        must_not_panic(&src);
    }

    #[test]
    fn mutated_scripts_never_panic(
        which in 0..CORPUS.len(),
        muts in prop::collection::vec(mutation(), 1..8),
    ) {
        must_not_panic(&apply(CORPUS[which], &muts));
    }

    #[test]
    fn print_then_parse_roundtrips(x in expr()) {
        let text = x.to_string();
        let back = spores_lang::parse_expr(&text)
            .unwrap_or_else(|d| panic!("{}", d.render("printed", &text)));
        prop_assert_eq!(sx(&back), sx(&x), "printed as {}", text);
        // Printing is a fixed point once spans are gone.
        prop_assert_eq!(back.to_string(), text);
    }
}

#[test]
fn corpus_parses() {
    for src in CORPUS {
        spores_lang::parse(src).unwrap_or_else(|d| panic!("{}", d.render("corpus", src)));
    }
}

#[test]
fn corpus_expressions_roundtrip() {
    let exprs = [
        "-2^2",
        "a %*% b * c",
        "!a & b | c",
        "a == b + 1",
        "X[, 1]",
        "t(X) %*% y",
        "(t(X) %*% (X %*% v) + lambda * v)[1:k, ]",
        "sum((X - U %*% t(V))^2) / (nrow(X) * ncol(X))",
        "!(a | b) & -x^-2 >= +y %% 3",
        "ifdef($X, \"default\\n\")",
    ];
    for s in exprs {
        let a = spores_lang::parse_expr(s).unwrap();
        let b = spores_lang::parse_expr(&a.to_string()).unwrap();
        assert_eq!(sx(&a), sx(&b), "{s} printed as {a}");
    }
}
