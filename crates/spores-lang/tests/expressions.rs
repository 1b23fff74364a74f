//! Expression parsing: precedence, associativity, literals, calls and indexing.

mod common;
use common::{check, ex};

#[test]
fn power_binds_tighter_than_unary_minus() {
    check(
        ex,
        &[
            ("-2^2", "(neg (^ 2 2))"),
            ("2^-1", "(^ 2 (neg 1))"),
            ("2^3^4", "(^ 2 (^ 3 4))"),
            ("(-2)^2", "(^ (neg 2) 2)"),
            ("-a^b*c", "(* (neg (^ a b)) c)"),
            ("2^-x^2", "(^ 2 (neg (^ x 2)))"),
            ("a^b %*% c", "(%*% (^ a b) c)"),
        ],
    );
}

#[test]
fn special_operators_bind_tighter_than_multiplication() {
    check(
        ex,
        &[
            ("a %*% b * c", "(* (%*% a b) c)"),
            ("a * b %*% c", "(* a (%*% b c))"),
            ("a %% b / c %/% d", "(/ (%% a b) (%/% c d))"),
            ("t(X) %*% y", "(%*% (call t X) y)"),
            ("-a %*% b", "(%*% (neg a) b)"),
            ("a %*% b %*% c", "(%*% (%*% a b) c)"),
        ],
    );
}

#[test]
fn arithmetic_is_left_associative() {
    check(
        ex,
        &[
            ("a - b - c", "(- (- a b) c)"),
            ("a / b * c", "(* (/ a b) c)"),
            ("a + b * c - d", "(- (+ a (* b c)) d)"),
            ("a - -b", "(- a (neg b))"),
            ("+a", "(plus a)"),
        ],
    );
}

#[test]
fn logic_and_comparisons() {
    check(
        ex,
        &[
            ("!a & b | c", "(| (& (not a) b) c)"),
            ("a == b + 1", "(== a (+ b 1))"),
            ("!a == b", "(not (== a b))"),
            ("a == !b", "(== a (not b))"),
            ("a | b & c", "(| a (& b c))"),
            ("a && b || c", "(| (& a b) c)"),
            ("x < 1 & y >= 2", "(& (< x 1) (>= y 2))"),
            ("a != b <= c", "(<= (!= a b) c)"),
            ("!!a", "(not (not a))"),
            ("1 + !x & y", "(& (+ 1 (not x)) y)"),
        ],
    );
}

#[test]
fn literals() {
    check(
        ex,
        &[
            ("3", "3"),
            ("3.0", "3.0"),
            (".5", "0.5"),
            ("1e-3", "0.001"),
            ("1E6", "1000000.0"),
            (r#""a\"b""#, r#""a\"b""#),
            (r"'x\ty'", r#""x\ty""#),
            ("TRUE & FALSE", "(& TRUE FALSE)"),
            ("$X + $1", "(+ $X $1)"),
            ("as.scalar(is.na(x))", "(call as.scalar (call is.na x))"),
        ],
    );
}

#[test]
fn calls() {
    check(
        ex,
        &[
            (
                "rand(rows=10, cols=5, sparsity=0.1, seed=42)",
                "(call rand (= rows 10) (= cols 5) (= sparsity 0.1) (= seed 42))",
            ),
            (r#"print("a" + x)"#, r#"(call print (+ "a" x))"#),
            ("ifdef($X, 5)", "(call ifdef $X 5)"),
            ("f()", "(call f)"),
            (
                "matrix(0, rows=n, cols=1)",
                "(call matrix 0 (= rows n) (= cols 1))",
            ),
            ("f(a == b)", "(call f (== a b))"),
        ],
    );
}

#[test]
fn indexing() {
    check(
        ex,
        &[
            ("X[, 1]", "(index X _ 1)"),
            ("X[1, ]", "(index X 1 _)"),
            ("X[i, j]", "(index X i j)"),
            ("X[i]", "(index X i _)"),
            ("X[,]", "(index X _ _)"),
            ("X[a:b, c:d]", "(index X (: a b) (: c d))"),
            ("X[1:n-1, ]", "(index X (: 1 (- n 1)) _)"),
            ("t(X)[1, 2]", "(index (call t X) 1 2)"),
            ("(A + B)[1, ]", "(index (+ A B) 1 _)"),
            ("X[1, ][, 2]", "(index (index X 1 _) _ 2)"),
            ("-X[1, 1]^2", "(neg (^ (index X 1 1) 2))"),
        ],
    );
}

#[test]
fn newlines_inside_parentheses_and_brackets() {
    check(
        ex,
        &[
            ("f(a,\n  b)", "(call f a b)"),
            ("(a\n + b)", "(+ a b)"),
            ("X[1,\n 2]", "(index X 1 2)"),
            ("\n a + b \n", "(+ a b)"),
        ],
    );
}

#[test]
fn spans_cover_the_whole_expression() {
    let src = "  -x^2 + f(a, b=1)[1, 2:3]  ";
    let e = spores_lang::parse_expr(src).unwrap();
    assert_eq!(&src[e.span.start..e.span.end], "-x^2 + f(a, b=1)[1, 2:3]");
    let spores_lang::ast::ExprKind::Binary { lhs, rhs, .. } = &e.kind else {
        panic!()
    };
    assert_eq!(&src[lhs.span.start..lhs.span.end], "-x^2");
    assert_eq!(&src[rhs.span.start..rhs.span.end], "f(a, b=1)[1, 2:3]");
    let e = spores_lang::parse_expr("(a + b) * c").unwrap();
    assert_eq!((e.span.start, e.span.end), (0, 11));
}

#[test]
fn printer_output() {
    let p = |s: &str| spores_lang::parse_expr(s).unwrap().to_string();
    assert_eq!(p("-2^2"), "-2^2");
    assert_eq!(p("(-2)^2"), "(-2)^2");
    assert_eq!(p("(a^b)^c"), "(a^b)^c");
    assert_eq!(p("a %*% (b * c)"), "a %*% (b * c)");
    assert_eq!(p("(a %*% b) * c"), "a %*% b * c");
    assert_eq!(p("a - (b - c)"), "a - (b - c)");
    assert_eq!(p("(!a) == b"), "(!a) == b");
    assert_eq!(p("!(a == b)"), "!a == b");
    assert_eq!(p("X[ ,1]"), "X[, 1]");
    assert_eq!(p("X[a:b]"), "X[a:b, ]");
    assert_eq!(p("f(x, rows = 3)"), "f(x, rows=3)");
    assert_eq!(p("1.0 + 1e20 + 3"), "1.0 + 1e20 + 3");
    assert_eq!(p("\"a\\n\\\"\""), "\"a\\n\\\"\"");
    assert_eq!(p("$X"), "$X");
}
