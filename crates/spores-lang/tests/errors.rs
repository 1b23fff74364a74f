//! Syntax errors: each must name what was expected and what was found, and point at the
//! right line and column.

mod common;
use common::err;
use spores_lang::ast::{ExprKind, StmtKind};

#[track_caller]
fn check(src: &str, expected: &str) {
    assert_eq!(err(src), format!("t.dml:{expected}"), "source: {src:?}");
}

#[test]
fn unclosed_delimiters_name_the_opening() {
    check(
        "x = 1\ny = f(a,\n  b",
        "3:4: error: expected `)` to close the call opened at 2:6, found end of input",
    );
    check(
        "x = (1 + 2\n",
        "1:11: error: expected `)` to close the parenthesis opened at 1:5, found end of input",
    );
    check(
        "if (x > 0 {\n y = 1\n}",
        "1:11: error: expected `)` to close the condition opened at 1:4, found `{`",
    );
    check(
        "while (TRUE) {\n x = 1\n",
        "2:7: error: expected `}` to close the block opened at 1:14, found end of input",
    );
    check(
        "x = X[1, 2",
        "1:11: error: expected `]` to close the indexing opened at 1:6, found end of input",
    );
    check(
        "for (i in 1:3 {}",
        "1:15: error: expected `)` to close the loop header opened at 1:5, found `{`",
    );
    check(
        "f = function(double x {}",
        "1:23: error: expected `)` to close the parameter list opened at 1:13, found `{`",
    );
}

#[test]
fn unexpected_tokens() {
    check(
        "y = x +* 2",
        "1:8: error: expected an expression, found `*`",
    );
    check("x = )", "1:5: error: expected an expression, found `)`");
    check(
        "print(\"a\",)",
        "1:11: error: expected an expression, found `)`",
    );
    check(
        "x = 1 +\n",
        "1:8: error: expected an expression, found end of input",
    );
    check(
        "x = 1 y = 2",
        "1:7: error: expected a newline or `;` after the statement, found identifier `y`",
    );
    check(
        "if x > 0 { y = 1 }",
        "1:4: error: expected `(` after `if`, found identifier `x`",
    );
    check(
        "}",
        "1:1: error: unexpected `}`: there is no open block to close",
    );
    check(
        "x = 1\nelse x = 2",
        "2:1: error: `else` without a matching `if`",
    );
    check(
        "x = X[1, 2, 3]",
        "1:11: error: too many indices: a matrix is indexed as `X[rows, cols]`",
    );
    check(
        "if (c)\n",
        "1:7: error: expected a statement or a `{ ... }` block after `if (...)`, found end of input",
    );
}

#[test]
fn bad_statements() {
    check(
        "x = 1\n  x + 1\n",
        "2:3: error: this expression is not a statement: expected an assignment (`x = ...`) or a function call",
    );
    check("f(x) = 3", "1:1: error: cannot assign to a function call");
    check(
        "x y",
        "1:3: error: expected `=`, `<-` or the end of the statement, found identifier `y`",
    );
    check(
        "[a, 1] = f()",
        "1:5: error: expected a variable name in the list of assignment targets, found number `1`",
    );
    check(
        "[a, b] = 3",
        "1:10: error: the right side of a multiple assignment `[a, b] = ...` must be a function call",
    );
}

#[test]
fn loops() {
    check(
        "for (i of 1:10) x = i",
        "1:8: error: expected `in` after the loop variable `i`, found identifier `of`",
    );
    check(
        "for (i in 10) x = i",
        "1:11: error: expected a range `from:to` or `seq(from, to[, by])` after `in`",
    );
    check(
        "for (i in seq(1)) x = i",
        "1:11: error: `seq` in a loop header needs both `from` and `to`",
    );
}

#[test]
fn functions() {
    check(
        "f = function(matrix[double] X) {\n  g = function() { }\n}",
        "2:3: error: functions can only be defined at the top level of a script, not inside a block",
    );
    check(
        "f = function(frame F) { }",
        "1:20: error: expected `[` after `frame`, as in `frame[double]`, found identifier `F`",
    );
    check(
        "f = function(list[thing] L) { }",
        "1:19: error: expected a value type (`double`, `int`, `boolean`, `string` or `unknown`) inside `list[...]`, found identifier `thing`",
    );
    check(
        "f = function(tensor T) { }",
        "1:14: error: type `tensor` is not supported; expected a type (`matrix[double]`, `double`, `int`, `integer`, `boolean`, `string`, `list[unknown]` or `frame[...]`)",
    );
    check(
        "f = function(scalar[matrix] s) { }",
        "1:21: error: expected a value type (`double`, `int`, `boolean` or `string`) inside `scalar[...]`, found identifier `matrix`",
    );
    check(
        "f = function(x) { }",
        "1:14: error: expected a type (`matrix[double]`, `double`, `int`, `integer`, `boolean`, `string`, `list[unknown]` or `frame[...]`), found identifier `x`",
    );
    check(
        "f = function(matrix X) { }",
        "1:21: error: expected `[` after `matrix`, as in `matrix[double]`, found identifier `X`",
    );
    check(
        "f = function() return (double r = 1) { }",
        "1:33: error: return values cannot have default values",
    );
    check(
        "f = function(double x) x = 1",
        "1:24: error: expected `return (...)` or `{` to start the function body, found identifier `x`",
    );
    check(
        "function(x) { }",
        "1:1: error: a function definition needs a name, as in `f = function(...) { ... }`",
    );
}

#[test]
fn unsupported_features() {
    check(
        "f = externalFunction(double x) return (double y) implemented in (classname=\"X\")",
        "1:5: error: `externalFunction` is not supported: write the function in DML",
    );
    check(
        "if (TRUE) {\n  source(\"lib.dml\") as lib\n}",
        "2:3: error: `source(...)` can only appear at the top level of a script, not inside a block",
    );
    check(
        "source(\"lib.dml\")\nx = 1",
        "1:18: error: expected `as` and a namespace name after `source(...)`, found a newline",
    );
    check(
        "source(lib) as l",
        "1:8: error: expected the path of the file to source, as a string, found identifier `lib`",
    );
    check(
        "x = a %in% b",
        "1:7: error: unsupported operator `%in%` (only `%*%`, `%%` and `%/%` exist)",
    );
}

#[test]
fn lexical_errors() {
    check(
        "x = 1\ny = \"abc\nz = 2",
        "2:5: error: unterminated string literal: missing closing quote before the end of the input",
    );
    check(
        "x = 1 /* never closed\nx = 1",
        "1:7: error: unterminated block comment: `/*` has no matching `*/`",
    );
    check("x = 3 @ 4", "1:7: error: unknown character `@`");
    check("x = « 4", "1:5: error: unknown character `«`");
    check("x = « @", "1:5: error: unknown character `«`");
    check("é = 1; @", "1:1: error: unknown character `é`");
    check(
        "x = 1e+",
        "1:5: error: malformed number `1e+`: the exponent has no digits",
    );
    check("x = 12abc", "1:5: error: malformed number `12abc`");
    check(
        "x = 99999999999999999999",
        "1:5: error: integer literal `99999999999999999999` does not fit in 64 bits",
    );
    check(
        "x = 'it\\s'",
        "1:8: error: unknown escape sequence `\\s` (use `\\\\` for a backslash)",
    );
    check(
        "x = $",
        "1:5: error: expected a name or a position after `$` (as in `$X` or `$1`)",
    );
}

#[test]
fn caret_snippet_points_at_the_token() {
    let src = "x = 1\ny = x +* 2\n";
    let d = spores_lang::parse(src).unwrap_err();
    assert_eq!(
        d.render("a.dml", src),
        "a.dml:2:8: error: expected an expression, found `*`\n  |\n2 | y = x +* 2\n  |        ^\n"
    );
}

/// A chain of left-associative operators is not nesting: it parses however long, up to the
/// bound on the operators of one expression, at any precedence level. Run on a thread
/// with a large stack because dropping the tree recurses once per level.
#[test]
fn long_chains_parse_up_to_the_operator_bound() {
    let check = || {
        for op in ["+", "-", "*", "/", "%*%", "&", "|", "==", "<"] {
            let chain = format!("x = 1{}", format!(" {op} 1").repeat(10_000));
            let program = spores_lang::parse(&chain).unwrap_or_else(|d| panic!("{op}: {d:?}"));
            let StmtKind::Assign { value, .. } = &program.body[0].kind else {
                panic!("{op}: not an assignment");
            };
            // Left-associative: the last operand is the root's right operand, a literal.
            let ExprKind::Binary { rhs, .. } = &value.kind else {
                panic!("{op}: not a binary operator");
            };
            assert_eq!(rhs.kind, ExprKind::Int(1), "{op}");
            // The printer writes the chain back as it was, without parentheses.
            assert_eq!(value.to_string(), chain["x = ".len()..], "{op}");
        }
        let n = spores_lang::parser::MAX_OPERATORS;
        let at_bound = format!("x = 1{}", " + 1".repeat(n));
        assert!(spores_lang::parse(&at_bound).is_ok());
        let past = format!("x = 1{}", " + 1".repeat(n + 1));
        // Reported at the operator past the bound, after `x = 1` and `n` times ` + 1`.
        assert_eq!(
            err(&past),
            format!(
                "t.dml:1:{}: error: expression too long (more than {n} binary operators)",
                7 + 4 * n
            )
        );
        // Newlines between the links of a chain, and chains nested in parentheses, count
        // against the same bound as one expression.
        let nested = format!(
            "x = (1{})
 + (1{})",
            " +\n 1".repeat(n / 2),
            " + 1".repeat(n / 2)
        );
        assert!(
            err(&nested).contains("expression too long"),
            "{}",
            err(&nested)
        );
    };
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(check)
        .unwrap()
        .join()
        .unwrap();
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let deep = format!("x = {}1{}", "(".repeat(10_000), ")".repeat(10_000));
    assert!(err(&deep).contains("nested too deeply"));
    let ok = format!("x = {}1{}", "(".repeat(200), ")".repeat(200));
    assert!(spores_lang::parse(&ok).is_ok());
    let unary = format!("x = {}1", "-".repeat(10_000));
    assert!(err(&unary).contains("nested too deeply"));
    let ifs = format!("{}x = 1", "if (c) ".repeat(10_000));
    assert!(err(&ifs).contains("nested too deeply"));
    let idx = format!("x = X{}", "[1]".repeat(10_000));
    assert!(err(&idx).contains("nested too deeply"));
    let calls = format!("x = {}1{}", "f(".repeat(10_000), ")".repeat(10_000));
    assert!(err(&calls).contains("nested too deeply"));
    let blocks = format!("{}{}", "while (c) {\n".repeat(10_000), "}\n".repeat(10_000));
    assert!(err(&blocks).contains("nested too deeply"));
    let expr = format!("{}1{}", "(".repeat(10_000), ")".repeat(10_000));
    assert!(spores_lang::parse_expr(&expr).is_err());
}
