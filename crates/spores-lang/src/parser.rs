//! Recursive-descent parser for the DML subset, with precedence climbing for expressions.
//!
//! Statement structure follows SystemDS's DML; expression precedence follows R (see
//! [`crate::precedence`]). Statements end at a newline or `;`. Newlines inside `( )` and
//! `[ ]` never reach the parser (the lexer drops them), and an expression continues onto
//! the next line when a binary operator ends the line *or* starts the next one (no DML
//! statement can start with a binary operator, and DML itself treats newlines as blanks).
//!
//! The parser stops at the first error. Nesting is capped at [`MAX_DEPTH`] so that hostile
//! input gets a diagnostic instead of a stack overflow. A left-associative chain
//! (`1 + 1 + ... + 1`) is parsed by a loop and is not nesting, but it still makes a tree
//! as tall as it is long, which later passes walk recursively: [`MAX_OPERATORS`] bounds
//! it, so that the height of any expression tree stays within what those passes hold on
//! the stack a run gets.

use crate::ast::{
    Arg, AssignTarget, BinaryOp, Expr, ExprKind, FunctionDef, Index, Param, Program, SourceImport,
    Stmt, StmtKind, TypeSpec, UnaryOp,
};
use crate::diag::{line_col, Diagnostic, Span};
use crate::lexer::{tokenize, CompoundOp, Token, TokenKind};
use crate::precedence::{binary_level, operand_levels, unary_operand_level, Level};

/// Deepest nesting of expressions and statements accepted: parentheses, calls, indexing,
/// unary operators, `^` (right-associative), blocks. A chain of left-associative binary
/// operators is not nesting and does not count here (see [`MAX_OPERATORS`]).
pub const MAX_DEPTH: usize = 256;

/// Most binary operators in one expression (a statement's, with everything nested in it).
/// A chain of them is parsed without recursion, but the passes after the parser
/// (lowering, the optimizer's translation, evaluation, printing) recurse once per level of
/// the tree, and a chain of `n` operators is a tree `n` levels tall. The deepest of those
/// passes, lowering, takes about 6 KB of stack per level in a debug build (a chain of
/// 183,000 filled the 1 GiB thread `spores` runs a command on): 50,000 levels take about
/// 300 MB, which fit beside the interpreter's 10,000 nested calls with room to spare, and
/// are five times the 10,000-term sums that generated scripts write.
pub const MAX_OPERATORS: usize = 50_000;

type PResult<T> = Result<T, Diagnostic>;

/// Parses a whole script.
pub fn parse_program(source: &str) -> PResult<Program> {
    let mut p = Parser::new(source)?;
    p.program()
}

/// Parses a single expression (surrounding newlines allowed, nothing else).
pub fn parse_expression(source: &str) -> PResult<Expr> {
    let mut p = Parser::new(source)?;
    p.skip_separators(false);
    let e = p.expr()?;
    p.skip_separators(false);
    if !p.at(&TokenKind::Eof) {
        return Err(p.unexpected("the end of the expression"));
    }
    Ok(e)
}

struct Parser<'s> {
    src: &'s str,
    tokens: Vec<Token>,
    pos: usize,
    depth: usize,
    /// Binary operators so far in the outermost expression being parsed.
    operators: usize,
    /// Whether an expression is being parsed ([`Parser::expr`] starts the count at the
    /// outermost one).
    in_expr: bool,
}

fn binary_op(kind: &TokenKind) -> Option<BinaryOp> {
    Some(match kind {
        TokenKind::Plus => BinaryOp::Add,
        TokenKind::Minus => BinaryOp::Sub,
        TokenKind::Star => BinaryOp::Mul,
        TokenKind::Slash => BinaryOp::Div,
        TokenKind::Caret => BinaryOp::Pow,
        TokenKind::MatMul => BinaryOp::MatMul,
        TokenKind::Mod => BinaryOp::Mod,
        TokenKind::IntDiv => BinaryOp::IntDiv,
        TokenKind::EqEq => BinaryOp::Eq,
        TokenKind::NotEq => BinaryOp::Ne,
        TokenKind::Lt => BinaryOp::Lt,
        TokenKind::Le => BinaryOp::Le,
        TokenKind::Gt => BinaryOp::Gt,
        TokenKind::Ge => BinaryOp::Ge,
        TokenKind::And => BinaryOp::And,
        TokenKind::Or => BinaryOp::Or,
        _ => return None,
    })
}

fn mk(kind: ExprKind, span: Span) -> Expr {
    Expr { kind, span }
}

impl<'s> Parser<'s> {
    fn new(src: &'s str) -> PResult<Self> {
        Ok(Parser {
            src,
            tokens: tokenize(src)?,
            pos: 0,
            depth: 0,
            operators: 0,
            in_expr: false,
        })
    }

    // ---- token access -------------------------------------------------------------

    fn peek(&self) -> &TokenKind {
        self.peek_nth(0)
    }

    fn peek_nth(&self, n: usize) -> &TokenKind {
        let i = (self.pos + n).min(self.tokens.len() - 1);
        &self.tokens[i].kind
    }

    fn span(&self) -> Span {
        self.tokens[self.pos].span
    }

    fn at(&self, kind: &TokenKind) -> bool {
        self.peek() == kind
    }

    fn bump(&mut self) -> Token {
        let t = self.tokens[self.pos].clone();
        if self.pos + 1 < self.tokens.len() {
            self.pos += 1;
        }
        t
    }

    fn eat(&mut self, kind: &TokenKind) -> Option<Span> {
        if self.at(kind) {
            Some(self.bump().span)
        } else {
            None
        }
    }

    /// Index of the first token at or after the cursor that is not a newline (or `;` too
    /// when `semis`).
    fn skip_index(&self, semis: bool) -> usize {
        self.skip_index_with(self.pos, semis)
    }

    /// Index of the first token at or after `i` that is not a newline.
    fn skip_index_from(&self, i: usize) -> usize {
        self.skip_index_with(i, false)
    }

    fn skip_index_with(&self, mut i: usize, semis: bool) -> usize {
        while i + 1 < self.tokens.len()
            && (self.tokens[i].kind == TokenKind::Newline
                || (semis && self.tokens[i].kind == TokenKind::Semi))
        {
            i += 1;
        }
        i
    }

    fn skip_newlines(&mut self) {
        self.pos = self.skip_index(false);
    }

    fn skip_separators(&mut self, semis: bool) {
        self.pos = self.skip_index(semis);
    }

    fn at_ident(&self, name: &str) -> bool {
        matches!(self.peek(), TokenKind::Ident(n) if n == name)
    }

    // ---- errors -------------------------------------------------------------------

    fn here(&self, span: Span) -> String {
        let (l, c) = line_col(self.src, span.start);
        format!("{l}:{c}")
    }

    /// "expected {what}, found {current token}" at the current token.
    fn unexpected(&self, what: &str) -> Diagnostic {
        Diagnostic::new(
            format!("expected {what}, found {}", self.peek()),
            self.span(),
        )
    }

    fn expect(&mut self, kind: &TokenKind, what: &str) -> PResult<Span> {
        self.eat(kind).ok_or_else(|| self.unexpected(what))
    }

    /// Expects the closing delimiter of something opened at `open`.
    fn expect_close(&mut self, kind: &TokenKind, thing: &str, open: Span) -> PResult<Span> {
        match self.eat(kind) {
            Some(s) => Ok(s),
            None => Err(self.unexpected(&format!(
                "{kind} to close the {thing} opened at {}",
                self.here(open)
            ))),
        }
    }

    fn ident(&mut self, what: &str) -> PResult<(String, Span)> {
        match self.peek() {
            TokenKind::Ident(name) => {
                let name = name.clone();
                Ok((name, self.bump().span))
            }
            _ => Err(self.unexpected(what)),
        }
    }

    /// Enters one more level of nesting; callers restore `depth` when they return.
    fn deeper(&mut self) -> PResult<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(Diagnostic::new(
                format!("program nested too deeply (more than {MAX_DEPTH} levels)"),
                self.span(),
            ));
        }
        Ok(())
    }

    /// Runs `f` one nesting level deeper, restoring the depth afterwards.
    fn nested<T>(&mut self, f: impl FnOnce(&mut Self) -> PResult<T>) -> PResult<T> {
        let saved = self.depth;
        let r = self.deeper().and_then(|()| f(self));
        self.depth = saved;
        r
    }

    // ---- program and statements ---------------------------------------------------

    fn program(&mut self) -> PResult<Program> {
        let mut sources = Vec::new();
        let mut functions = Vec::new();
        let mut body = Vec::new();
        // `setwd("dir")`: the directory the `source` paths after it are relative to.
        let mut working_dir: Option<String> = None;
        loop {
            self.skip_separators(true);
            match self.peek() {
                TokenKind::Eof => break,
                TokenKind::RBrace => {
                    return Err(Diagnostic::new(
                        "unexpected `}`: there is no open block to close",
                        self.span(),
                    ))
                }
                _ => {}
            }
            if self.at_function_def() {
                functions.push(self.function_def()?);
            } else if self.at_source() {
                let mut import = self.source_import()?;
                if let Some(dir) = &working_dir {
                    import.path = in_working_dir(&import.path, dir);
                }
                sources.push(import);
            } else if self.at_setwd() {
                working_dir = Some(self.setwd()?);
            } else {
                body.push(self.stmt()?);
            }
            self.end_of_stmt()?;
        }
        Ok(Program {
            sources,
            functions,
            body,
        })
    }

    /// A string literal, or an error saying that `what` was expected.
    fn string_literal(&mut self, what: &str) -> PResult<String> {
        match self.peek() {
            TokenKind::Str(text) => {
                let text = text.clone();
                self.bump();
                Ok(text)
            }
            _ => Err(self.unexpected(what)),
        }
    }

    fn at_setwd(&self) -> bool {
        self.at_ident("setwd") && matches!(self.peek_nth(1), TokenKind::LParen)
    }

    /// `setwd("dir")`: the directory, as written.
    fn setwd(&mut self) -> PResult<String> {
        self.bump();
        let open = self.expect(&TokenKind::LParen, "`(` after `setwd`")?;
        let dir = self.string_literal("the working directory, as a string")?;
        self.expect_close(&TokenKind::RParen, "`setwd(...)`", open)?;
        Ok(dir)
    }

    fn at_source(&self) -> bool {
        self.at_ident("source") && matches!(self.peek_nth(1), TokenKind::LParen)
    }

    /// `source("path.dml") as ns`
    fn source_import(&mut self) -> PResult<SourceImport> {
        let start = self.bump().span;
        let open = self.expect(&TokenKind::LParen, "`(` after `source`")?;
        let path = self.string_literal("the path of the file to source, as a string")?;
        self.expect_close(&TokenKind::RParen, "`source(...)`", open)?;
        if !self.at_ident("as") {
            return Err(self.unexpected("`as` and a namespace name after `source(...)`"));
        }
        self.bump();
        let (namespace, end) = self.ident("a namespace name after `as`")?;
        Ok(SourceImport {
            path,
            namespace,
            span: start.to(end),
        })
    }

    /// A statement must be followed by a newline, `;`, the end of its block or the end of
    /// the input.
    fn end_of_stmt(&self) -> PResult<()> {
        match self.peek() {
            TokenKind::Newline | TokenKind::Semi | TokenKind::RBrace | TokenKind::Eof => Ok(()),
            _ => Err(self.unexpected("a newline or `;` after the statement")),
        }
    }

    /// `name = function`, `name <- function` or `name = externalFunction` ahead?
    fn at_function_def(&self) -> bool {
        if !matches!(self.peek(), TokenKind::Ident(_))
            || !matches!(self.peek_nth(1), TokenKind::Assign | TokenKind::Arrow)
        {
            return false;
        }
        let mut i = self.pos + 2;
        while i + 1 < self.tokens.len() && self.tokens[i].kind == TokenKind::Newline {
            i += 1;
        }
        match &self.tokens[i.min(self.tokens.len() - 1)].kind {
            TokenKind::Function => true,
            TokenKind::Ident(n) => n == "externalFunction",
            _ => false,
        }
    }

    fn stmt(&mut self) -> PResult<Stmt> {
        self.nested(|p| match p.peek() {
            TokenKind::If => p.if_stmt(),
            TokenKind::For | TokenKind::Parfor => p.for_stmt(),
            TokenKind::While => p.while_stmt(),
            TokenKind::LBracket => p.multi_assign(),
            TokenKind::Function => Err(Diagnostic::new(
                "a function definition needs a name, as in `f = function(...) { ... }`",
                p.span(),
            )),
            TokenKind::Else => Err(Diagnostic::new("`else` without a matching `if`", p.span())),
            _ if p.at_source() => Err(Diagnostic::new(
                "`source(...)` can only appear at the top level of a script, not inside a block",
                p.span(),
            )),
            _ if p.at_setwd() => Err(Diagnostic::new(
                "`setwd(...)` can only appear at the top level of a script, not inside a block",
                p.span(),
            )),
            _ if p.at_function_def() => Err(Diagnostic::new(
                "functions can only be defined at the top level of a script, not inside a block",
                p.span(),
            )),
            _ => p.assign_or_call(),
        })
    }

    fn assign_or_call(&mut self) -> PResult<Stmt> {
        let e = self.expr()?;
        if let TokenKind::CompoundAssign(op) = *self.peek() {
            return self.compound_assign(e, op);
        }
        if matches!(self.peek(), TokenKind::Assign | TokenKind::Arrow) {
            let target = to_target(&e)?;
            self.bump();
            self.skip_newlines();
            let value = self.expr()?;
            let span = e.span.to(value.span);
            return Ok(Stmt {
                kind: StmtKind::Assign { target, value },
                span,
            });
        }
        if matches!(e.kind, ExprKind::Call { .. }) {
            let span = e.span;
            return Ok(Stmt {
                kind: StmtKind::Expr(e),
                span,
            });
        }
        match self.peek() {
            TokenKind::Newline | TokenKind::Semi | TokenKind::RBrace | TokenKind::Eof => {
                Err(Diagnostic::new(
                    "this expression is not a statement: expected an assignment (`x = ...`) \
                     or a function call",
                    e.span,
                ))
            }
            _ => Err(self.unexpected("`=`, `<-` or the end of the statement")),
        }
    }

    /// `x += e` is `x = x + e` (likewise `-=`, `*=`, `/=`, and on `X[i, j]`); the value
    /// is parenthesized, as DML does: `x *= a + b` is `x = x * (a + b)`.
    fn compound_assign(&mut self, e: Expr, op: CompoundOp) -> PResult<Stmt> {
        let target = to_target(&e)?;
        self.bump();
        self.skip_newlines();
        let rhs = self.expr()?;
        let op = match op {
            CompoundOp::Add => BinaryOp::Add,
            CompoundOp::Sub => BinaryOp::Sub,
            CompoundOp::Mul => BinaryOp::Mul,
            CompoundOp::Div => BinaryOp::Div,
        };
        let span = e.span.to(rhs.span);
        let value = mk(
            ExprKind::Binary {
                op,
                lhs: Box::new(e),
                rhs: Box::new(rhs),
            },
            span,
        );
        Ok(Stmt {
            kind: StmtKind::Assign { target, value },
            span,
        })
    }

    fn multi_assign(&mut self) -> PResult<Stmt> {
        let open = self.bump().span;
        let mut targets = Vec::new();
        loop {
            let (name, _) = self.ident("a variable name in the list of assignment targets")?;
            targets.push(name);
            if self.eat(&TokenKind::Comma).is_none() {
                break;
            }
        }
        self.expect_close(&TokenKind::RBracket, "list of assignment targets", open)?;
        // DML reads newlines as blanks, so `=` may start the next line.
        self.skip_newlines();
        if !matches!(self.peek(), TokenKind::Assign | TokenKind::Arrow) {
            return Err(self.unexpected("`=` or `<-` after the list of assignment targets"));
        }
        self.bump();
        self.skip_newlines();
        // The right side must be a call, so a name followed by `(` on a later line is
        // one (DML reads newlines as blanks: `[a, b] = f\n  (x)`).
        if let TokenKind::Ident(name) = self.peek().clone() {
            let after_name = self.skip_index_from(self.pos + 1);
            if self.tokens[after_name].kind == TokenKind::LParen {
                let start = self.bump().span;
                self.pos = after_name;
                let value = self.call(name, start)?;
                return Ok(Stmt {
                    span: open.to(value.span),
                    kind: StmtKind::MultiAssign { targets, value },
                });
            }
        }
        let value = self.expr()?;
        if !matches!(value.kind, ExprKind::Call { .. }) {
            return Err(Diagnostic::new(
                "the right side of a multiple assignment `[a, b] = ...` must be a function call",
                value.span,
            ));
        }
        let span = open.to(value.span);
        Ok(Stmt {
            kind: StmtKind::MultiAssign { targets, value },
            span,
        })
    }

    /// `( expr )` after `if` or `while`.
    fn condition(&mut self, keyword: &str) -> PResult<Expr> {
        let open = self.expect(&TokenKind::LParen, &format!("`(` after `{keyword}`"))?;
        let cond = self.expr()?;
        self.expect_close(&TokenKind::RParen, "condition", open)?;
        Ok(cond)
    }

    fn if_stmt(&mut self) -> PResult<Stmt> {
        let start = self.bump().span;
        let cond = self.condition("if")?;
        let (then_branch, mut end) = self.body("after `if (...)`")?;
        let mut else_branch = Vec::new();
        let after = self.skip_index(true);
        if self.tokens[after].kind == TokenKind::Else {
            self.pos = after;
            self.bump();
            let (stmts, e) = self.body("after `else`")?;
            else_branch = stmts;
            end = e;
        }
        Ok(Stmt {
            kind: StmtKind::If {
                cond,
                then_branch,
                else_branch,
            },
            span: start.to(end),
        })
    }

    fn while_stmt(&mut self) -> PResult<Stmt> {
        let start = self.bump().span;
        let cond = self.condition("while")?;
        let (body, end) = self.body("after `while (...)`")?;
        Ok(Stmt {
            kind: StmtKind::While { cond, body },
            span: start.to(end),
        })
    }

    fn for_stmt(&mut self) -> PResult<Stmt> {
        let kw = self.bump();
        let parallel = kw.kind == TokenKind::Parfor;
        let kw_text = if parallel { "parfor" } else { "for" };
        let open = self.expect(&TokenKind::LParen, &format!("`(` after `{kw_text}`"))?;
        let (var, _) = self.ident(&format!("the loop variable after `{kw_text} (`"))?;
        if !self.at_ident("in") {
            return Err(self.unexpected(&format!("`in` after the loop variable `{var}`")));
        }
        self.bump();
        let first = self.expr()?;
        let (from, to, by) = if self.eat(&TokenKind::Colon).is_some() {
            (first, self.expr()?, None)
        } else {
            seq_bounds(first)?
        };
        // parfor options such as `check=0`: parsed and ignored.
        while self.eat(&TokenKind::Comma).is_some() {
            self.ident(&format!(
                "an option name such as `check` in the `{kw_text}` header"
            ))?;
            self.expect(&TokenKind::Assign, "`=` after the option name")?;
            self.expr()?;
        }
        self.expect_close(&TokenKind::RParen, "loop header", open)?;
        let (body, end) = self.body(&format!("after `{kw_text} (...)`"))?;
        Ok(Stmt {
            kind: StmtKind::For {
                var,
                from,
                to,
                by,
                body,
                parallel,
            },
            span: kw.span.to(end),
        })
    }

    /// A `{ ... }` block or a single statement; returns the statements and the span end.
    fn body(&mut self, context: &str) -> PResult<(Vec<Stmt>, Span)> {
        self.skip_newlines();
        match self.peek() {
            TokenKind::LBrace => self.block(),
            TokenKind::Eof | TokenKind::RBrace | TokenKind::Semi | TokenKind::Else => {
                Err(self.unexpected(&format!("a statement or a `{{ ... }}` block {context}")))
            }
            _ => {
                let s = self.stmt()?;
                let span = s.span;
                Ok((vec![s], span))
            }
        }
    }

    fn block(&mut self) -> PResult<(Vec<Stmt>, Span)> {
        let open = self.expect(&TokenKind::LBrace, "`{`")?;
        let mut stmts = Vec::new();
        loop {
            self.skip_separators(true);
            if let Some(close) = self.eat(&TokenKind::RBrace) {
                return Ok((stmts, open.to(close)));
            }
            if self.at(&TokenKind::Eof) {
                return Err(self.unexpected(&format!(
                    "`}}` to close the block opened at {}",
                    self.here(open)
                )));
            }
            stmts.push(self.stmt()?);
            self.end_of_stmt()?;
        }
    }

    // ---- functions ----------------------------------------------------------------

    fn function_def(&mut self) -> PResult<FunctionDef> {
        let (name, start) = self.ident("a function name")?;
        self.bump(); // `=` or `<-`, checked by at_function_def
        self.skip_newlines();
        if self.at_ident("externalFunction") {
            return Err(Diagnostic::new(
                "`externalFunction` is not supported: write the function in DML",
                self.span(),
            ));
        }
        self.expect(&TokenKind::Function, "`function`")?;
        let open = self.expect(&TokenKind::LParen, "`(` after `function`")?;
        let params = self.param_list(open, true)?;
        self.skip_newlines();
        let mut returns = Vec::new();
        if self.at_ident("return") {
            self.bump();
            let open = self.expect(&TokenKind::LParen, "`(` after `return`")?;
            returns = self.param_list(open, false)?;
            self.skip_newlines();
        }
        if !self.at(&TokenKind::LBrace) {
            let what = if returns.is_empty() {
                "`return (...)` or `{` to start the function body"
            } else {
                "`{` to start the function body"
            };
            return Err(self.unexpected(what));
        }
        let (body, end) = self.block()?;
        Ok(FunctionDef {
            name,
            params,
            returns,
            body,
            span: start.to(end),
        })
    }

    /// Parameters up to and including the closing `)`.
    fn param_list(&mut self, open: Span, defaults: bool) -> PResult<Vec<Param>> {
        let thing = if defaults {
            "parameter list"
        } else {
            "list of return values"
        };
        let mut params = Vec::new();
        if self.eat(&TokenKind::RParen).is_some() {
            return Ok(params);
        }
        loop {
            params.push(self.param(defaults)?);
            if self.eat(&TokenKind::Comma).is_none() {
                break;
            }
        }
        self.expect_close(&TokenKind::RParen, thing, open)?;
        Ok(params)
    }

    fn param(&mut self, defaults: bool) -> PResult<Param> {
        let start = self.span();
        let ty = self.type_spec()?;
        let (name, mut span) = self.ident("a parameter name after its type")?;
        span = start.to(span);
        let mut default = None;
        if self.at(&TokenKind::Assign) {
            if !defaults {
                return Err(Diagnostic::new(
                    "return values cannot have default values",
                    self.span(),
                ));
            }
            self.bump();
            let e = self.expr()?;
            span = span.to(e.span);
            default = Some(e);
        }
        Ok(Param {
            name,
            ty,
            default,
            span,
        })
    }

    fn type_spec(&mut self) -> PResult<TypeSpec> {
        const EXPECTED: &str = "a type (`matrix[double]`, `double`, `int`, `integer`, \
             `boolean`, `string`, `list[unknown]` or `frame[...]`)";
        let TokenKind::Ident(name) = self.peek() else {
            return Err(self.unexpected(EXPECTED));
        };
        let lower = name.to_ascii_lowercase();
        let container = match lower.as_str() {
            "matrix" => Some(TypeSpec::Matrix),
            "frame" => Some(TypeSpec::Frame),
            "list" => Some(TypeSpec::List),
            _ => None,
        };
        if let Some(ty) = container {
            self.bump();
            let open = self.expect(
                &TokenKind::LBracket,
                &format!("`[` after `{lower}`, as in `{lower}[double]`"),
            )?;
            match self.peek() {
                TokenKind::Ident(v)
                    if value_type(v).is_some() || v.eq_ignore_ascii_case("unknown") =>
                {
                    self.bump();
                }
                _ => {
                    return Err(self.unexpected(&format!(
                        "a value type (`double`, `int`, `boolean`, `string` or `unknown`) \
                         inside `{lower}[...]`"
                    )))
                }
            }
            self.expect_close(&TokenKind::RBracket, &format!("{lower} type"), open)?;
            return Ok(ty);
        }
        if let Some(t) = value_type(name) {
            self.bump();
            return Ok(t);
        }
        // `Scalar[int]` is the scalar type `int`.
        if lower == "scalar" && matches!(self.peek_nth(1), TokenKind::LBracket) {
            self.bump();
            let open = self.bump().span;
            let ty = match self.peek() {
                TokenKind::Ident(v) => value_type(v),
                _ => None,
            };
            let Some(ty) = ty else {
                return Err(self.unexpected(
                    "a value type (`double`, `int`, `boolean` or `string`) inside `scalar[...]`",
                ));
            };
            self.bump();
            self.expect_close(&TokenKind::RBracket, "scalar type", open)?;
            return Ok(ty);
        }
        if matches!(lower.as_str(), "tensor" | "unknown") {
            return Err(Diagnostic::new(
                format!("type `{name}` is not supported; expected {EXPECTED}"),
                self.span(),
            ));
        }
        Err(self.unexpected(EXPECTED))
    }

    // ---- expressions --------------------------------------------------------------

    fn expr(&mut self) -> PResult<Expr> {
        if self.in_expr {
            return self.expr_bp(0);
        }
        self.in_expr = true;
        self.operators = 0;
        let e = self.expr_bp(0);
        self.in_expr = false;
        e
    }

    /// Counts one more binary operator of the outermost expression (see [`MAX_OPERATORS`]).
    fn operator(&mut self) -> PResult<()> {
        self.operators += 1;
        if self.operators > MAX_OPERATORS {
            return Err(Diagnostic::new(
                format!("expression too long (more than {MAX_OPERATORS} binary operators)"),
                self.span(),
            ));
        }
        Ok(())
    }

    /// Precedence climbing: parses an expression whose binary operators all bind at least
    /// as tightly as `min`.
    fn expr_bp(&mut self, min: Level) -> PResult<Expr> {
        self.nested(|p| {
            let mut lhs = p.prefix()?;
            loop {
                if p.at(&TokenKind::Newline) {
                    // A binary operator at the start of the next line continues this one.
                    let next = p.skip_index(false);
                    if binary_op(&p.tokens[next].kind).is_none() {
                        break;
                    }
                    p.pos = next;
                }
                let Some(op) = binary_op(p.peek()) else { break };
                if binary_level(op) < min {
                    break;
                }
                p.operator()?;
                p.bump();
                p.skip_newlines();
                // A link of a left-associative chain is parsed by this loop, not by
                // recursion, so it costs no depth: `1 + 1 + ... + 1` is flat, however
                // long. `^` nests to the right, and its right operand's `expr_bp` counts.
                let rhs = p.expr_bp(operand_levels(op).1)?;
                let span = lhs.span.to(rhs.span);
                lhs = mk(
                    ExprKind::Binary {
                        op,
                        lhs: Box::new(lhs),
                        rhs: Box::new(rhs),
                    },
                    span,
                );
            }
            Ok(lhs)
        })
    }

    fn prefix(&mut self) -> PResult<Expr> {
        let op = match self.peek() {
            TokenKind::Minus => UnaryOp::Neg,
            TokenKind::Plus => UnaryOp::Plus,
            TokenKind::Not => UnaryOp::Not,
            _ => return self.postfix(),
        };
        let start = self.bump().span;
        self.skip_newlines();
        let operand = self.expr_bp(unary_operand_level(op))?;
        let span = start.to(operand.span);
        Ok(mk(
            ExprKind::Unary {
                op,
                expr: Box::new(operand),
            },
            span,
        ))
    }

    fn postfix(&mut self) -> PResult<Expr> {
        let saved = self.depth;
        let r = (|| {
            let mut e = self.primary()?;
            while self.at(&TokenKind::LBracket) {
                self.deeper()?;
                e = self.index(e)?;
            }
            Ok(e)
        })();
        self.depth = saved;
        r
    }

    fn primary(&mut self) -> PResult<Expr> {
        let tok = self.bump();
        let kind = match tok.kind {
            TokenKind::Int(v) => ExprKind::Int(v),
            TokenKind::Double(v) => ExprKind::Double(v),
            TokenKind::Str(s) => ExprKind::Str(s),
            TokenKind::True => ExprKind::Bool(true),
            TokenKind::False => ExprKind::Bool(false),
            TokenKind::CmdArg(name) => ExprKind::CmdArg(name),
            TokenKind::Ident(name) => {
                if self.at(&TokenKind::LParen) {
                    return self.call(name, tok.span);
                }
                ExprKind::Var(name)
            }
            TokenKind::LBracket => return self.vector(tok.span),
            TokenKind::LParen => {
                let inner = self.expr()?;
                let close = self.expect_close(&TokenKind::RParen, "parenthesis", tok.span)?;
                return Ok(mk(inner.kind, tok.span.to(close)));
            }
            _ => {
                // Report at the token we just consumed.
                self.pos -= usize::from(tok.kind != TokenKind::Eof);
                return Err(self.unexpected("an expression"));
            }
        };
        Ok(mk(kind, tok.span))
    }

    /// `[a, b, c]` after its `[`.
    fn vector(&mut self, open: Span) -> PResult<Expr> {
        let mut items = Vec::new();
        if !self.at(&TokenKind::RBracket) {
            loop {
                items.push(self.expr()?);
                if self.eat(&TokenKind::Comma).is_none() {
                    break;
                }
            }
        }
        let close = self.expect_close(&TokenKind::RBracket, "list of values", open)?;
        Ok(mk(ExprKind::Vector(items), open.to(close)))
    }

    fn call(&mut self, name: String, start: Span) -> PResult<Expr> {
        let open = self.bump().span;
        let mut args = Vec::new();
        if self.at(&TokenKind::RParen) {
            let close = self.bump().span;
            return Ok(mk(ExprKind::Call { name, args }, start.to(close)));
        }
        loop {
            let arg_name = match (self.peek(), self.peek_nth(1)) {
                (TokenKind::Ident(n), TokenKind::Assign) => {
                    let n = n.clone();
                    self.bump();
                    self.bump();
                    Some(n)
                }
                _ => None,
            };
            let value = self.expr()?;
            args.push(Arg {
                name: arg_name,
                value,
            });
            // SystemDS's parser lets an argument end in `;` (bandit.dml writes
            // `ifelse(c, a, n = ceil(x);)`).
            while self.eat(&TokenKind::Semi).is_some() {}
            if self.eat(&TokenKind::Comma).is_none() {
                break;
            }
        }
        let close = self.expect_close(&TokenKind::RParen, "call", open)?;
        Ok(mk(ExprKind::Call { name, args }, start.to(close)))
    }

    fn index(&mut self, target: Expr) -> PResult<Expr> {
        let open = self.bump().span;
        let rows = self.index_dim()?;
        let cols = if self.eat(&TokenKind::Comma).is_some() {
            self.index_dim()?
        } else {
            Index::All
        };
        if self.at(&TokenKind::Comma) {
            return Err(Diagnostic::new(
                "too many indices: a matrix is indexed as `X[rows, cols]`",
                self.span(),
            ));
        }
        let close = self.expect_close(&TokenKind::RBracket, "indexing", open)?;
        let span = target.span.to(close);
        Ok(mk(
            ExprKind::Index {
                target: Box::new(target),
                rows,
                cols,
            },
            span,
        ))
    }

    /// One position of `X[rows, cols]`: empty, `i`, or `a:b`.
    fn index_dim(&mut self) -> PResult<Index> {
        if matches!(self.peek(), TokenKind::Comma | TokenKind::RBracket) {
            return Ok(Index::All);
        }
        let lo = self.expr()?;
        if self.eat(&TokenKind::Colon).is_some() {
            let hi = self.expr()?;
            return Ok(Index::Range(Box::new(lo), Box::new(hi)));
        }
        Ok(Index::Single(Box::new(lo)))
    }
}

/// `double`, `Integer`, ... (case-insensitive) as a scalar type.
fn value_type(name: &str) -> Option<TypeSpec> {
    Some(match name.to_ascii_lowercase().as_str() {
        "double" => TypeSpec::Double,
        "int" | "integer" => TypeSpec::Int,
        "boolean" => TypeSpec::Boolean,
        "string" => TypeSpec::String,
        _ => return None,
    })
}

/// The left side of `=`: a variable or an indexed variable.
fn to_target(e: &Expr) -> PResult<AssignTarget> {
    match &e.kind {
        ExprKind::Var(name) => Ok(AssignTarget::Var(name.clone())),
        ExprKind::Index { target, rows, cols } => match &target.kind {
            ExprKind::Var(name) => Ok(AssignTarget::Indexed {
                name: name.clone(),
                rows: rows.clone(),
                cols: cols.clone(),
            }),
            _ => Err(Diagnostic::new(
                "only a variable can be indexed on the left of `=`, as in `X[i, j] = ...`",
                target.span,
            )),
        },
        ExprKind::Call { .. } => Err(Diagnostic::new("cannot assign to a function call", e.span)),
        _ => Err(Diagnostic::new(
            "invalid assignment target: expected a variable or `X[i, j]`",
            e.span,
        )),
    }
}

/// Splits `seq(from, to[, by])` (positional or named) into loop bounds.
fn seq_bounds(e: Expr) -> PResult<(Expr, Expr, Option<Expr>)> {
    const EXPECTED: &str = "expected a range `from:to` or `seq(from, to[, by])` after `in`";
    let span = e.span;
    let ExprKind::Call { name, args } = e.kind else {
        return Err(Diagnostic::new(EXPECTED, span));
    };
    if name != "seq" {
        return Err(Diagnostic::new(EXPECTED, span));
    }
    let mut slots: [Option<Expr>; 3] = [None, None, None];
    for arg in args {
        let slot = match arg.name.as_deref() {
            None => slots.iter().position(Option::is_none),
            Some("from") => Some(0),
            Some("to") => Some(1),
            Some("by") => Some(2),
            Some(other) => {
                return Err(Diagnostic::new(
                    format!("`seq` has no argument named `{other}` (expected from, to, by)"),
                    arg.value.span,
                ))
            }
        };
        match slot {
            Some(i) if slots[i].is_none() => slots[i] = Some(arg.value),
            _ => {
                return Err(Diagnostic::new(
                    "too many or repeated arguments to `seq` (expected from, to, by)",
                    arg.value.span,
                ))
            }
        }
    }
    let [from, to, by] = slots;
    match (from, to) {
        (Some(from), Some(to)) => Ok((from, to, by)),
        _ => Err(Diagnostic::new(
            "`seq` in a loop header needs both `from` and `to`",
            span,
        )),
    }
}

/// A `source` path after `setwd(dir)`, as SystemDS makes it: `dir/path`, unless `path` is
/// absolute or already starts with `dir/`.
fn in_working_dir(path: &str, dir: &str) -> String {
    let prefix = format!("{dir}/");
    if std::path::Path::new(path).is_absolute() || path.starts_with(&prefix) {
        path.to_string()
    } else {
        prefix + path
    }
}
