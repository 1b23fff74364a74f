//! Statement and program parsing: every statement kind, functions, separators.

mod common;
use common::{check, prog, sx_fn};

#[test]
fn assignments() {
    check(
        prog,
        &[
            ("x = 1", "[(= x 1)]"),
            ("x <- 1", "[(= x 1)]"),
            ("x<-1", "[(= x 1)]"),
            ("X[i, j] = 0", "[(= (index X i j) 0)]"),
            ("X[a:b, ] = Y", "[(= (index X (: a b) _) Y)]"),
            ("X[, 2] <- v", "[(= (index X _ 2) v)]"),
            ("X[3] = 1", "[(= (index X 3 _) 1)]"),
            ("[a, b] = f(x)", "[(= [a b] (call f x))]"),
            ("[q] <- g()", "[(= [q] (call g))]"),
        ],
    );
}

#[test]
fn call_statements() {
    assert_eq!(
        prog("print(\"a\" + x)\nwrite(X, $out, format=\"csv\")"),
        "[(call print (+ \"a\" x)) (call write X $out (= format \"csv\"))]"
    );
}

#[test]
fn separators_and_comments() {
    let src = "# header\nx = 1; y = 2;;\n\n/* block\ncomment */ z = 3 # trailing\n;";
    assert_eq!(prog(src), "[(= x 1) (= y 2) (= z 3)]");
    check(
        prog,
        &[
            ("", "[]"),
            ("\n\n;\n", "[]"),
            ("x = 1\r\ny = 2\r\n", "[(= x 1) (= y 2)]"),
        ],
    );
}

#[test]
fn operator_at_end_or_start_of_line_continues_the_expression() {
    check(
        prog,
        &[
            ("x = a +\n  b\ny = c", "[(= x (+ a b)) (= y c)]"),
            ("x = a\n  + b", "[(= x (+ a b))]"),
            ("x = a %*%\n\n b", "[(= x (%*% a b))]"),
            ("x =\n  1", "[(= x 1)]"),
            ("x = f(a,\n b)\ny = 2", "[(= x (call f a b)) (= y 2)]"),
            ("x = -\n1", "[(= x (neg 1))]"),
            // A bracket or parenthesis on the next line is not a continuation.
            ("x = y\n[a, b] = f()", "[(= x y) (= [a b] (call f))]"),
            ("x = y\n(f(z))", "[(= x y) (call f z)]"),
        ],
    );
}

#[test]
fn if_else() {
    check(
        prog,
        &[
            (
                "if (x > 0) { y = 1 } else { y = 2 }",
                "[(if (> x 0) [(= y 1)] [(= y 2)])]",
            ),
            ("if (c) y = 1", "[(if c [(= y 1)] [])]"),
            ("if (c) y = 1 else y = 2", "[(if c [(= y 1)] [(= y 2)])]"),
            ("if (c) y = 1; else y = 2", "[(if c [(= y 1)] [(= y 2)])]"),
            (
                "if (a) {\n x = 1\n} else if (b) {\n x = 2\n} else {\n x = 3\n}",
                "[(if a [(= x 1)] [(if b [(= x 2)] [(= x 3)])])]",
            ),
            (
                "if (a)\n{\n x = 1\n}\nelse\n{\n x = 2\n}\nz = 0",
                "[(if a [(= x 1)] [(= x 2)]) (= z 0)]",
            ),
            ("if (a)\n  x = 1\ny = 2", "[(if a [(= x 1)] []) (= y 2)]"),
            ("if (a) {}", "[(if a [] [])]"),
        ],
    );
}

#[test]
fn loops() {
    check(
        prog,
        &[
            (
                "for (i in 1:n) { s = s + i }",
                "[(for i 1 n [(= s (+ s i))])]",
            ),
            ("for (i in 1:n-1) x = i", "[(for i 1 (- n 1) [(= x i)])]"),
            (
                "for (i in seq(1, 10, 2)) x = i",
                "[(for i 1 10 2 [(= x i)])]",
            ),
            ("for (i in seq(a, b)) x = i", "[(for i a b [(= x i)])]"),
            (
                "for (i in seq(from=1, to=9, by=4)) x = i",
                "[(for i 1 9 4 [(= x i)])]",
            ),
            (
                "parfor (i in 1:10, check=0) {\n  X[i, ] = Y[i, ]\n}",
                "[(parfor i 1 10 [(= (index X i _) (index Y i _))])]",
            ),
            (
                "while (err > tol & it < 10) {\n it = it + 1\n}",
                "[(while (& (> err tol) (< it 10)) [(= it (+ it 1))])]",
            ),
            ("while (TRUE) x = 1", "[(while TRUE [(= x 1)])]"),
        ],
    );
}

#[test]
fn nested_blocks() {
    let src = "
for (i in 1:3) {
  if (i %% 2 == 0) {
    while (x < i) { x = x + 1 }
  }
  else
    print(i)
}
";
    assert_eq!(
        prog(src),
        "[(for i 1 3 [(if (== (%% i 2) 0) [(while (< x i) [(= x (+ x 1))])] [(call print i)])])]"
    );
}

#[test]
fn functions() {
    let src = "
f = function(matrix[double] X, double y = 1.0, int k) return (matrix[double] Z, double s) {
  Z = X * y
  s = sum(Z) + k
}
g <- function(Integer n, Boolean b = TRUE, String s = \"x\", Matrix[Int] M, integer q) {
  print(n)
}
h = function()
  return (boolean r)
{
  r = FALSE
}
[Z, s] = f(rand(rows=2, cols=2), 2.0, 3)
";
    let p = spores_lang::parse(src).unwrap();
    let fs: Vec<String> = p.functions.iter().map(sx_fn).collect();
    assert_eq!(
        fs,
        vec![
            "(function f [(matrix X) (double y 1.0) (int k)] [(matrix Z) (double s)] \
             [(= Z (* X y)) (= s (+ (call sum Z) k))])",
            "(function g [(int n) (boolean b TRUE) (string s \"x\") (matrix M) (int q)] [] \
             [(call print n)])",
            "(function h [] [(boolean r)] [(= r FALSE)])",
        ]
    );
    assert_eq!(
        common::sx_block(&p.body),
        "[(= [Z s] (call f (call rand (= rows 2) (= cols 2)) 2.0 3))]"
    );
    let f = &p.functions[0];
    assert_eq!(&src[f.span.start..f.span.start + 14], "f = function(m");
    assert!(src[..f.span.end].ends_with("k\n}"));
    assert_eq!(
        &src[f.params[1].span.start..f.params[1].span.end],
        "double y = 1.0"
    );
}

#[test]
fn statement_spans_cover_the_statement() {
    let src = "x = a +\n b # c\nif (x) {\n y = 1\n} else z = 2\nfor (i in 1:2) print(i)\n";
    let p = spores_lang::parse(src).unwrap();
    let texts: Vec<&str> = p
        .body
        .iter()
        .map(|s| &src[s.span.start..s.span.end])
        .collect();
    assert_eq!(
        texts,
        vec![
            "x = a +\n b",
            "if (x) {\n y = 1\n} else z = 2",
            "for (i in 1:2) print(i)"
        ]
    );
}

#[test]
fn realistic_script() {
    let src = r#"
# Linear regression via conjugate gradient
X = read($X)
y = read($Y)
lambda = ifdef($reg, 0.001)
maxi = 100
r = -(t(X) %*% y)
p = -r
norm_r2 = sum(r ^ 2)
w = matrix(0, rows=ncol(X), cols=1)
i = 0
while (i < maxi & norm_r2 > 1e-9) {
  q = t(X) %*% (X %*% p) + lambda * p
  alpha = norm_r2 / as.scalar(t(p) %*% q)
  w = w + alpha * p
  r = r + alpha * q
  old = norm_r2; norm_r2 = sum(r^2)
  p = -r + (norm_r2 / old) * p
  i = i + 1
}
write(w, $B, format="text")
"#;
    let p = spores_lang::parse(src).unwrap();
    assert_eq!(p.body.len(), 11);
}
