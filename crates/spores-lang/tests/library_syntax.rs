//! The syntax SystemDS's own script library uses: compound assignment, `source(...) as
//! ns` with `ns::f(...)` calls, list, frame and scalar types, `[a, b]` lists of values,
//! strings over several lines, and statements that DML (which reads newlines as blanks)
//! lets run over several lines.

mod common;
use common::{check, err, prog, sx_fn};

#[test]
fn compound_assignment_is_assignment_of_the_operation() {
    check(
        prog,
        &[
            ("x += 1", "[(= x (+ x 1))]"),
            ("x -= a * b", "[(= x (- x (* a b)))]"),
            // The right side is one operand: `x *= a + b` is `x = x * (a + b)`.
            ("x *= a + b", "[(= x (* x (+ a b)))]"),
            ("x /=\n  2", "[(= x (/ x 2))]"),
            ("X[i, ] += v", "[(= (index X i _) (+ (index X i _) v))]"),
            ("x+=1;y-=2", "[(= x (+ x 1)) (= y (- y 2))]"),
        ],
    );
}

#[test]
fn compound_assignment_errors() {
    check(
        err,
        &[
            (
                "f(x) += 1",
                "t.dml:1:1: error: cannot assign to a function call",
            ),
            (
                "x += ",
                "t.dml:1:5: error: expected an expression, found end of input",
            ),
            (
                "x = y += 1",
                "t.dml:1:7: error: expected a newline or `;` after the statement, found `+=`",
            ),
        ],
    );
}

#[test]
fn sources_are_collected_and_namespaced_calls_parse() {
    let src = "source(\"nn/layers/affine.dml\") as affine\nsource('u.dml') as u;\nout = affine::forward(X, W, b)\n";
    let p = spores_lang::parse(src).unwrap();
    let imports: Vec<(&str, &str, usize, usize)> = p
        .sources
        .iter()
        .map(|s| {
            (
                s.path.as_str(),
                s.namespace.as_str(),
                s.span.start,
                s.span.end,
            )
        })
        .collect();
    assert_eq!(
        imports,
        vec![
            ("nn/layers/affine.dml", "affine", 0, 40),
            ("u.dml", "u", 41, 61)
        ]
    );
    assert_eq!(prog(src), "[(= out (call affine::forward X W b))]");
    // `::` only joins names: a range `a:b` and a lone `::` stay what they were.
    assert_eq!(prog("y = X[a:b, ]"), "[(= y (index X (: a b) _))]");
    assert_eq!(
        err("x = a::1"),
        "t.dml:1:6: error: expected a newline or `;` after the statement, found `:`"
    );
}

/// `setwd(dir)` makes the relative `source` paths after it `dir/path`, as SystemDS does;
/// absolute paths and paths already under `dir/` are kept.
#[test]
fn setwd_prefixes_the_source_paths_after_it() {
    let src = "source(\"a.dml\") as a\nsetwd(\"lib/x\")\nsource(\"b.dml\") as b\nsource(\"/abs/c.dml\") as c\nsource(\"lib/x/d.dml\") as d\ny = 1\n";
    let p = spores_lang::parse(src).unwrap();
    let paths: Vec<&str> = p.sources.iter().map(|s| s.path.as_str()).collect();
    assert_eq!(paths, ["a.dml", "lib/x/b.dml", "/abs/c.dml", "lib/x/d.dml"]);
    assert_eq!(p.body.len(), 1, "setwd is not a statement of the body");
    assert_eq!(
        err("if (TRUE) {\n  setwd(\"d\")\n}"),
        "t.dml:2:3: error: `setwd(...)` can only appear at the top level of a script, not inside a block"
    );
    assert_eq!(
        err("setwd(d)"),
        "t.dml:1:7: error: expected the working directory, as a string, found identifier `d`"
    );
}

#[test]
fn list_frame_and_scalar_types() {
    let p = spores_lang::parse(
        "f = function(List[Unknown] L, Frame[String] F, Scalar[int] k = 3, Matrix[Double] M = matrix(0, 0, 0), Boolean b = TRUE)\n  return (list[unknown] out, frame[unknown] G, Integer n)\n{\n  out = L\n}",
    )
    .unwrap();
    assert_eq!(
        sx_fn(&p.functions[0]),
        "(function f [(list L) (frame F) (int k 3) (matrix M (call matrix 0 0 0)) (boolean b TRUE)] [(list out) (frame G) (int n)] [(= out L)])"
    );
}

#[test]
fn lists_of_values() {
    check(
        prog,
        &[
            (
                "M = matrix([i, j + 1], rows=1, cols=2)",
                "[(= M (call matrix (vector i (+ j 1)) (= rows 1) (= cols 2)))]",
            ),
            (
                "o = conv(X, shape=[N,\n C])",
                "[(= o (call conv X (= shape (vector N C))))]",
            ),
            ("e = []", "[(= e (vector ))]"),
        ],
    );
    let e = spores_lang::parse_expr("f([a, 2 * b])").unwrap();
    assert_eq!(e.to_string(), "f([a, 2 * b])");
    assert_eq!(
        err("v = [a, b"),
        "t.dml:1:10: error: expected `]` to close the list of values opened at 1:5, found end of input"
    );
}

#[test]
fn statements_over_several_lines() {
    // A multiple assignment whose `=` and call start new lines.
    check(
        prog,
        &[
            (
                "[a,\n b]\n  = f\n  (x,\n y)\nz = 1",
                "[(= [a b] (call f x y)) (= z 1)]",
            ),
            // A string literal may contain line breaks.
            ("s = \"one\ntwo\"", "[(= s \"one\\ntwo\")]"),
            // A name alone at the end of a line stays a variable when no `(` follows.
            ("x = a\ny = (b)", "[(= x a) (= y b)]"),
        ],
    );
}

#[test]
fn quirks_systemds_accepts() {
    // An argument may end in `;` (bandit.dml) ...
    assert_eq!(
        prog("n = ifelse(c, 1, n = ceil(x);)"),
        prog("n = ifelse(c, 1, n = ceil(x))")
    );
    // ... and a stray `.` is dropped (sliceLineExtract.dml ends a `stop(...)` with one).
    assert_eq!(
        prog("if (k > n)\n  stop(\"too many\").\nk = 1"),
        prog("if (k > n)\n  stop(\"too many\")\nk = 1")
    );
    // A `.` inside numbers and names keeps its meaning.
    assert_eq!(prog("x = .5 + a.b"), "[(= x (+ 0.5 a.b))]");
}
