//! Test helpers: S-expression views of the AST, so tests compare structure and ignore
//! spans.
#![allow(dead_code)]

use spores_lang::ast::*;

pub fn sx(e: &Expr) -> String {
    match &e.kind {
        ExprKind::Int(v) => v.to_string(),
        ExprKind::Double(v) => format!("{v:?}"),
        ExprKind::Str(s) => format!("{s:?}"),
        ExprKind::Bool(b) => if *b { "TRUE" } else { "FALSE" }.to_string(),
        ExprKind::Var(n) => n.clone(),
        ExprKind::CmdArg(n) => format!("${n}"),
        ExprKind::Unary { op, expr } => {
            let op = match op {
                UnaryOp::Neg => "neg",
                UnaryOp::Plus => "plus",
                UnaryOp::Not => "not",
            };
            format!("({op} {})", sx(expr))
        }
        ExprKind::Binary { op, lhs, rhs } => {
            format!("({} {} {})", op.symbol(), sx(lhs), sx(rhs))
        }
        ExprKind::Call { name, args } => {
            let mut s = format!("(call {name}");
            for a in args {
                match &a.name {
                    Some(n) => s += &format!(" (= {n} {})", sx(&a.value)),
                    None => s += &format!(" {}", sx(&a.value)),
                }
            }
            s + ")"
        }
        ExprKind::Index { target, rows, cols } => {
            format!("(index {} {} {})", sx(target), sx_ix(rows), sx_ix(cols))
        }
        ExprKind::Vector(items) => {
            let items: Vec<String> = items.iter().map(sx).collect();
            format!("(vector {})", items.join(" "))
        }
    }
}

pub fn sx_ix(i: &Index) -> String {
    match i {
        Index::All => "_".into(),
        Index::Single(e) => sx(e),
        Index::Range(a, b) => format!("(: {} {})", sx(a), sx(b)),
    }
}

pub fn sx_block(b: &[Stmt]) -> String {
    let parts: Vec<String> = b.iter().map(sx_stmt).collect();
    format!("[{}]", parts.join(" "))
}

pub fn sx_stmt(s: &Stmt) -> String {
    match &s.kind {
        StmtKind::Assign { target, value } => {
            let t = match target {
                AssignTarget::Var(n) => n.clone(),
                AssignTarget::Indexed { name, rows, cols } => {
                    format!("(index {name} {} {})", sx_ix(rows), sx_ix(cols))
                }
            };
            format!("(= {t} {})", sx(value))
        }
        StmtKind::MultiAssign { targets, value } => {
            format!("(= [{}] {})", targets.join(" "), sx(value))
        }
        StmtKind::Expr(e) => sx(e),
        StmtKind::If {
            cond,
            then_branch,
            else_branch,
        } => format!(
            "(if {} {} {})",
            sx(cond),
            sx_block(then_branch),
            sx_block(else_branch)
        ),
        StmtKind::For {
            var,
            from,
            to,
            by,
            body,
            parallel,
        } => {
            let kw = if *parallel { "parfor" } else { "for" };
            let by = by
                .as_ref()
                .map(|b| format!(" {}", sx(b)))
                .unwrap_or_default();
            format!(
                "({kw} {var} {} {}{by} {})",
                sx(from),
                sx(to),
                sx_block(body)
            )
        }
        StmtKind::While { cond, body } => format!("(while {} {})", sx(cond), sx_block(body)),
    }
}

pub fn sx_param(p: &Param) -> String {
    let ty = format!("{:?}", p.ty).to_lowercase();
    match &p.default {
        Some(d) => format!("({ty} {} {})", p.name, sx(d)),
        None => format!("({ty} {})", p.name),
    }
}

pub fn sx_fn(f: &FunctionDef) -> String {
    let ps: Vec<String> = f.params.iter().map(sx_param).collect();
    let rs: Vec<String> = f.returns.iter().map(sx_param).collect();
    format!(
        "(function {} [{}] [{}] {})",
        f.name,
        ps.join(" "),
        rs.join(" "),
        sx_block(&f.body)
    )
}

/// Parses a script and renders its top-level statements.
pub fn prog(src: &str) -> String {
    let p = spores_lang::parse(src).unwrap_or_else(|d| panic!("{}", d.render("t.dml", src)));
    sx_block(&p.body)
}

/// Parses one expression and renders it.
pub fn ex(src: &str) -> String {
    let e = spores_lang::parse_expr(src).unwrap_or_else(|d| panic!("{}", d.render("t.dml", src)));
    sx(&e)
}

/// The rendered diagnostic's first line for a script that must fail.
pub fn err(src: &str) -> String {
    match spores_lang::parse(src) {
        Ok(p) => panic!("expected an error, parsed {}", sx_block(&p.body)),
        Err(d) => d.render("t.dml", src).lines().next().unwrap().to_string(),
    }
}

/// Asserts `render(src) == want` for each `(src, want)` case.
pub fn check(render: fn(&str) -> String, cases: &[(&str, &str)]) {
    for (src, want) in cases {
        assert_eq!(render(src), *want, "{src:?}");
    }
}
