//! The text syntax of tensor programs (Galley §3.1, §4):
//!
//! ```text
//! # comments run to the end of the line
//! fn f(x, y) = x*y + 1 [annihilator=0, commutative]   # a user function and its properties
//! input A fill=1                                      # a non-zero fill value for an input
//! input B int                                         # an input of integers
//! X[i,j] = sum[p,c](S[i,p,c] * (P[p,j] + C[c,j]))
//! Y[i] = sigmoid(sum[j](X[i,j]*theta[j]))             # X is an alias of the query above
//! t = sum[i,j,k](E[i,j]*E[j,k]*E[i,k])
//! output Y, t                                         # default: every query is an output
//! ```
//!
//! Precedence, loosest first: `||`, `&&`, comparisons (`< <= > >= == !=`, not chained),
//! `+ -`, `* / %`, `^` (right associative), then the prefix operators `-` and `!`, which bind
//! tighter than `^` (`-x^2` is `(-x)^2`). Chains of the same associative operator
//! (`a + b + c`) become one n-ary node; parenthesized operands stay nested, which is what
//! makes printing and re-parsing give back the same tree. `max(a, b)` / `min(a, b)` are
//! pointwise; `max[i](..)` is an aggregate (as are `sum prod min any`, and a declared function
//! of two arguments that is `[associative, commutative, identity=V]`: `f[j](..)`; a function
//! `distributes=f` over it may take it inward). The other pointwise
//! functions: `neg sqrt exp log abs sigmoid relu floor ceil trunc`, `rem(x, y)` (= `x % y`,
//! the sign of `x`), `mod(x, y)` (the sign of `y`), `fld(x, y)` (`floor(x / y)`) and
//! `ifelse(c, a, b)` (`a` where `c` is non-zero, else `b`). An access may repeat an index
//! (`A[i,i]`, `T[i,j,i]`): it reads the cells where those modes agree, a diagonal
//! (`logical::diagonal`). A name defined by an
//! earlier query is an alias of its result; any other name is an input.
//!
//! Errors carry a byte span and render as `file:line:col: error: ...` with the source line and
//! a caret, like the DML front end's diagnostics.

mod lexer;
#[cfg(test)]
mod tests;

use std::collections::{BTreeSet, HashMap, HashSet};
use std::fmt;
use std::sync::Arc;

use lexer::{lex, Tok};

use crate::plan_ast::{
    integers, AggOp, Expr, Idx, MapOp, OpProps, Program, Query, UserAggregate, UserFunction,
};
use crate::tensor::CooTensor;
use crate::TensorError;

/// Spans, caret rendering and line/column are the DML front end's, so both front ends report
/// errors the same way.
pub use spores_diag::{line_col, Span};

/// A syntax or name error at a place in the program text (`render` gives
/// `file:line:col: error: ...` with the source line and a caret).
pub type ParseError = spores_diag::Diagnostic;

/// A user function declared in the program: `fn NAME(PARAMS) = BODY [PROPERTIES]`.
#[derive(Clone, Debug)]
pub struct FunctionDecl {
    pub name: String,
    pub params: Vec<String>,
    /// The scalar body; parameters appear as order-0 `Input`s.
    pub body: Expr,
    /// The operator the queries use (its evaluator interprets `body`).
    pub func: Arc<UserFunction>,
}

impl PartialEq for FunctionDecl {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
            && self.params == other.params
            && self.body == other.body
            && self.func.props == other.func.props
            && self.func.distributes_over == other.func.distributes_over
    }
}

/// A parsed program: the queries plus the declarations the text carried.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TensorProgram {
    pub program: Program,
    pub functions: Vec<FunctionDecl>,
    /// Declared fill values of inputs (`input A fill=1`); undeclared inputs use the fill of
    /// the file they are read from (0 for every supported format).
    pub fills: Vec<(String, f64)>,
    /// Inputs declared to hold integers (`input A int`; see [`crate::plan_ast::integers`]).
    pub integers: Vec<String>,
}

impl TensorProgram {
    pub fn fill_of(&self, input: &str) -> Option<f64> {
        self.fills.iter().find(|(n, _)| n == input).map(|(_, f)| *f)
    }

    /// The program to run: with NumPy's integer semantics where the declared integer
    /// inputs call for them (see [`crate::plan_ast::integers`]).
    pub fn to_run(&self) -> Program {
        integers::with_integer_semantics(&self.program, &self.integers)
    }

    /// An error unless every input declared `int` holds integers.
    pub fn check_integer_inputs(
        &self,
        inputs: &HashMap<String, CooTensor>,
    ) -> Result<(), TensorError> {
        for name in &self.integers {
            if let Some(t) = inputs.get(name) {
                integers::check_integer_input(name, t)?;
            }
        }
        Ok(())
    }

    /// An error unless every output computed from integers is exact.
    pub fn check_integer_outputs(
        &self,
        outputs: &HashMap<String, CooTensor>,
    ) -> Result<(), TensorError> {
        let ints = integers::integer_queries(&self.program, &self.integers);
        for (name, t) in outputs {
            if ints.contains(name) {
                integers::check_integer_result(name, t)?;
            }
        }
        Ok(())
    }
}

impl fmt::Display for TensorProgram {
    /// The text syntax; parses back to an equal program.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for d in &self.functions {
            write!(f, "fn {}({}) = {}", d.name, d.params.join(", "), d.body)?;
            let p = d.func.props;
            let mut props = vec![];
            if let Some(a) = p.annihilator {
                props.push(format!("annihilator={a}"));
            }
            if let Some(e) = p.identity {
                props.push(format!("identity={e}"));
            }
            for (flag, name) in [
                (p.commutative, "commutative"),
                (p.associative, "associative"),
                (p.idempotent, "idempotent"),
            ] {
                if flag {
                    props.push(name.to_string());
                }
            }
            for agg in &d.func.distributes_over {
                props.push(format!("distributes={agg}"));
            }
            if !props.is_empty() {
                write!(f, " [{}]", props.join(", "))?;
            }
            writeln!(f)?;
        }
        let int = |name: &String| {
            if self.integers.contains(name) {
                " int"
            } else {
                ""
            }
        };
        for (name, fill) in &self.fills {
            writeln!(f, "input {name} fill={fill}{}", int(name))?;
        }
        for name in &self.integers {
            if self.fill_of(name).is_none() {
                writeln!(f, "input {name} int")?;
            }
        }
        write!(f, "{}", self.program)?;
        let all: Vec<&String> = self.program.queries.iter().map(|q| &q.name).collect();
        let outs: Vec<&String> = self.program.outputs.iter().collect();
        if all != outs {
            let names: Vec<&str> = outs.iter().map(|s| s.as_str()).collect();
            writeln!(f, "output {}", names.join(", "))?;
        }
        Ok(())
    }
}

/// The right-hand sides of the queries of `src`, in order: expressions for unit tests.
#[cfg(test)]
pub(crate) fn query_exprs(src: &str) -> Vec<Expr> {
    let program = parse_program(src)
        .unwrap_or_else(|e| panic!("{src}: {e:?}"))
        .program;
    program.queries.into_iter().map(|q| q.expr).collect()
}

/// Parses a whole program.
pub fn parse_program(src: &str) -> Result<TensorProgram, ParseError> {
    let toks = lex(src)?;
    let mut p = Parser {
        toks,
        pos: 0,
        nesting: 0,
        functions: HashMap::new(),
        aggregates: HashMap::new(),
        queries: HashSet::new(),
        params: None,
    };
    let mut out = TensorProgram::default();
    let mut outputs: Option<Vec<String>> = None;
    let mut output_span = Span::default();
    let mut input_names: HashMap<String, Span> = HashMap::new();
    loop {
        while p.peek() == &Tok::Newline {
            p.pos += 1;
        }
        let (tok, span) = p.next();
        match tok {
            Tok::Eof => break,
            Tok::Ident(kw) if kw == "fn" && matches!(p.peek(), Tok::Ident(_)) => {
                let decl = p.function_decl()?;
                out.functions.push(decl);
            }
            Tok::Ident(kw) if kw == "input" && matches!(p.peek(), Tok::Ident(_)) => {
                let (name, nspan) = p.ident("an input name")?;
                let (mut fill, mut integer) = (None, false);
                loop {
                    let (word, wspan) = p.ident("`fill=V` or `int`")?;
                    match word.as_str() {
                        "fill" if fill.is_none() => {
                            p.expect(Tok::Assign, "`=`")?;
                            fill = Some(p.signed_number()?);
                        }
                        "int" if !integer => integer = true,
                        _ => {
                            return Err(ParseError::new(
                                format!("expected `fill=V` or `int` (each once), found `{word}`"),
                                wspan,
                            ))
                        }
                    }
                    if !matches!(p.peek(), Tok::Ident(_)) {
                        break;
                    }
                }
                if p.queries.contains(&name) {
                    return Err(ParseError::new(
                        format!("`{name}` is a query, not an input"),
                        nspan,
                    ));
                }
                if input_names.insert(name.clone(), nspan).is_some() {
                    return Err(ParseError::new(
                        format!("input `{name}` is declared twice"),
                        nspan,
                    ));
                }
                if integer {
                    out.integers.push(name.clone());
                }
                if let Some(fill) = fill {
                    out.fills.push((name, fill));
                }
            }
            Tok::Ident(kw) if kw == "output" && matches!(p.peek(), Tok::Ident(_)) => {
                let mut names = vec![];
                output_span = span;
                loop {
                    let (name, nspan) = p.ident("a query name")?;
                    if !p.queries.contains(&name) {
                        return Err(ParseError::new(
                            format!("output `{name}` is not defined by any query"),
                            nspan,
                        ));
                    }
                    names.push(name);
                    if p.peek() != &Tok::Comma {
                        break;
                    }
                    p.pos += 1;
                }
                outputs.get_or_insert_with(Vec::new).extend(names);
            }
            Tok::Ident(name) => {
                let q = p.query(name, span, &input_names)?;
                out.program.queries.push(q);
            }
            other => {
                return Err(ParseError::new(
                    format!(
                    "expected a query (`NAME[idx,..] = ...`), `fn`, `input` or `output`, found {}",
                    other.describe()
                ),
                    span,
                ))
            }
        }
        p.end_of_statement()?;
    }
    if out.program.queries.is_empty() {
        return Err(ParseError::new(
            "the program has no queries",
            Span::new(src.len(), src.len()),
        ));
    }
    out.program.outputs = match outputs {
        Some(o) if o.is_empty() => {
            return Err(ParseError::new("empty `output` list", output_span));
        }
        Some(o) => o,
        None => out.program.queries.iter().map(|q| q.name.clone()).collect(),
    };
    Ok(out)
}

/// Properties allowed in a function declaration's `[...]`.
const PROPERTY_NAMES: &str =
    "annihilator=V, identity=V, commutative, associative, idempotent, distributes=AGG";

/// How deeply expressions may nest (parentheses, aggregates, calls) before parsing stops
/// with an error: the parser recurses once per level, and hostile input must not
/// overflow the stack.
pub const MAX_NESTING: usize = 256;

struct Parser {
    toks: Vec<(Tok, Span)>,
    pos: usize,
    /// Expressions being parsed, one inside the other.
    nesting: usize,
    functions: HashMap<String, Arc<UserFunction>>,
    /// The declared functions usable as aggregates (associative, commutative, with an
    /// identity).
    aggregates: HashMap<String, AggOp>,
    /// Names of the queries defined so far (aliases).
    queries: HashSet<String>,
    /// Inside a function body: its parameter names.
    params: Option<Vec<String>>,
}

impl Parser {
    fn peek(&self) -> &Tok {
        &self.toks[self.pos].0
    }

    fn span(&self) -> Span {
        self.toks[self.pos].1
    }

    fn next(&mut self) -> (Tok, Span) {
        let t = self.toks[self.pos].clone();
        if self.pos + 1 < self.toks.len() {
            self.pos += 1;
        }
        t
    }

    fn expect(&mut self, want: Tok, what: &str) -> Result<Span, ParseError> {
        let (tok, span) = self.next();
        if tok == want {
            Ok(span)
        } else {
            Err(ParseError::new(
                format!("expected {what}, found {}", tok.describe()),
                span,
            ))
        }
    }

    /// After an item of a `,`-separated list: `None` at a comma (another item follows), the
    /// span of `close` where the list ends (`closer` names it in the error), an error at
    /// anything else.
    fn list_end(&mut self, close: Tok, closer: &str) -> Result<Option<Span>, ParseError> {
        match self.next() {
            (Tok::Comma, _) => Ok(None),
            (tok, span) if tok == close => Ok(Some(span)),
            (other, span) => Err(ParseError::new(
                format!("expected `,` or {closer}, found {}", other.describe()),
                span,
            )),
        }
    }

    fn ident(&mut self, what: &str) -> Result<(String, Span), ParseError> {
        let (tok, span) = self.next();
        match tok {
            Tok::Ident(w) => Ok((w, span)),
            other => Err(ParseError::new(
                format!("expected {what}, found {}", other.describe()),
                span,
            )),
        }
    }

    fn signed_number(&mut self) -> Result<f64, ParseError> {
        let neg = if self.peek() == &Tok::Minus {
            self.pos += 1;
            true
        } else {
            false
        };
        let (tok, span) = self.next();
        let v = match tok {
            Tok::Number(v) => v,
            Tok::Ident(w) if w == "inf" => f64::INFINITY,
            Tok::Ident(w) if w == "nan" => f64::NAN,
            other => {
                return Err(ParseError::new(
                    format!("expected a number, found {}", other.describe()),
                    span,
                ))
            }
        };
        Ok(if neg { -v } else { v })
    }

    fn end_of_statement(&mut self) -> Result<(), ParseError> {
        match self.peek() {
            Tok::Newline => {
                self.pos += 1;
                Ok(())
            }
            Tok::Eof => Ok(()),
            other => Err(ParseError::new(
                format!(
                    "expected the end of the statement, found {}",
                    other.describe()
                ),
                self.span(),
            )),
        }
    }

    /// `[i,j,..]` with the span of the whole list and of the first index that repeats.
    fn idx_list_with_repeats(&mut self) -> Result<(Vec<Idx>, Span, Option<Span>), ParseError> {
        let open = self.expect(Tok::LBracket, "`[`")?;
        let mut idxs = vec![];
        let mut seen = BTreeSet::new();
        let mut repeat = None;
        loop {
            let (name, span) = self.ident("an index name")?;
            if !seen.insert(name.clone()) && repeat.is_none() {
                repeat = Some(span);
            }
            idxs.push(Idx::new(&name));
            if let Some(span) = self.list_end(Tok::RBracket, "`]`")? {
                return Ok((idxs, Span::new(open.start, span.end), repeat));
            }
        }
    }

    /// An index list whose indices are distinct (a left-hand side, an aggregate's).
    fn idx_list(&mut self) -> Result<(Vec<Idx>, Span), ParseError> {
        let (idxs, span, repeat) = self.idx_list_with_repeats()?;
        match repeat {
            Some(at) => Err(repeated_index(&idxs, at, "this index list")),
            None => Ok((idxs, span)),
        }
    }

    fn query(
        &mut self,
        name: String,
        name_span: Span,
        inputs: &HashMap<String, Span>,
    ) -> Result<Query, ParseError> {
        if self.queries.contains(&name) {
            return Err(ParseError::new(
                format!("`{name}` is already defined by an earlier query"),
                name_span,
            ));
        }
        if inputs.contains_key(&name) {
            return Err(ParseError::new(
                format!("`{name}` is declared as an input"),
                name_span,
            ));
        }
        let (idxs, lhs_span) = if self.peek() == &Tok::LBracket {
            let (idxs, s) = self.idx_list()?;
            (idxs, Span::new(name_span.start, s.end))
        } else {
            (vec![], name_span)
        };
        self.expect(Tok::Assign, "`=`")?;
        let rhs_start = self.span().start;
        let expr = self.expr()?;
        let rhs_span = Span::new(rhs_start, self.toks[self.pos.saturating_sub(1)].1.end);
        if let Some(bad) = aggregate_shadowing(&expr) {
            return Err(ParseError::new(bad, rhs_span));
        }
        let free = expr.free_idxs();
        let lhs: BTreeSet<Idx> = idxs.iter().cloned().collect();
        if free != lhs {
            let show = |s: &BTreeSet<Idx>| {
                s.iter()
                    .map(|i| i.name().to_string())
                    .collect::<Vec<_>>()
                    .join(",")
            };
            return Err(ParseError::new(
                format!(
                    "the left-hand side's indices [{}] must be exactly the free indices [{}] of the right-hand side (aggregate the others)",
                    show(&lhs),
                    show(&free)
                ),
                lhs_span,
            ));
        }
        self.queries.insert(name.clone());
        Ok(Query::new(&name, idxs, expr))
    }

    fn function_decl(&mut self) -> Result<FunctionDecl, ParseError> {
        let (name, nspan) = self.ident("a function name")?;
        if builtin(&name).is_some() || AggOp::from_name(&name).is_some() {
            return Err(ParseError::new(
                format!("`{name}` is a built-in operator"),
                nspan,
            ));
        }
        if self.functions.contains_key(&name) {
            return Err(ParseError::new(
                format!("function `{name}` is declared twice"),
                nspan,
            ));
        }
        self.expect(Tok::LParen, "`(`")?;
        let mut params = vec![];
        loop {
            let (p, pspan) = self.ident("a parameter name")?;
            if params.contains(&p) {
                return Err(ParseError::new(format!("parameter `{p}` repeats"), pspan));
            }
            params.push(p);
            if self.list_end(Tok::RParen, "`)`")?.is_some() {
                break;
            }
        }
        self.expect(Tok::Assign, "`=`")?;
        self.params = Some(params.clone());
        let body = self.expr();
        self.params = None;
        let body = body?;
        let mut props = OpProps::default();
        let mut distributes = vec![];
        if self.peek() == &Tok::LBracket {
            self.pos += 1;
            loop {
                let (prop, pspan) = self.ident(PROPERTY_NAMES)?;
                match prop.as_str() {
                    "commutative" => props.commutative = true,
                    "associative" => props.associative = true,
                    "idempotent" => props.idempotent = true,
                    "annihilator" | "identity" => {
                        self.expect(Tok::Assign, "`=`")?;
                        let v = Some(self.signed_number()?);
                        if prop == "annihilator" {
                            props.annihilator = v;
                        } else {
                            props.identity = v;
                        }
                    }
                    "distributes" => {
                        self.expect(Tok::Assign, "`=`")?;
                        let (agg, aspan) = self.ident("an aggregate (sum prod max min any)")?;
                        distributes.push(self.aggregate(&agg, aspan)?);
                    }
                    _ => {
                        return Err(ParseError::new(
                            format!("unknown property `{prop}` (expected {PROPERTY_NAMES})"),
                            pspan,
                        ))
                    }
                }
                if self.list_end(Tok::RBracket, "`]`")?.is_some() {
                    break;
                }
            }
        }
        let compiled = Scalar::compile(&body, &params);
        let arity = params.len();
        let func = Arc::new(UserFunction {
            name: name.clone(),
            arity,
            props,
            distributes_over: distributes,
            eval: Box::new(move |args: &[f64]| compiled.eval(args)),
        });
        self.functions.insert(name.clone(), func.clone());
        if let Ok(agg) = UserAggregate::new(func.clone()) {
            self.aggregates.insert(name.clone(), AggOp::User(agg));
        }
        Ok(FunctionDecl {
            name,
            params,
            body,
            func,
        })
    }

    fn expr(&mut self) -> Result<Expr, ParseError> {
        self.nested(|p| p.chain(0))
    }

    /// Runs `parse` one nesting level deeper, or fails past [`MAX_NESTING`].
    fn nested(
        &mut self,
        parse: impl FnOnce(&mut Self) -> Result<Expr, ParseError>,
    ) -> Result<Expr, ParseError> {
        if self.nesting >= MAX_NESTING {
            return Err(ParseError::new(
                format!("expression nested too deeply (more than {MAX_NESTING} levels)"),
                self.span(),
            ));
        }
        self.nesting += 1;
        let e = parse(self);
        self.nesting -= 1;
        e
    }

    /// Binary operator levels, loosest first.
    fn chain(&mut self, level: usize) -> Result<Expr, ParseError> {
        if level == 4 {
            return self.power();
        }
        let mut lhs = self.chain(level + 1)?;
        // The operator of an n-ary node built by this loop (so it may grow).
        let mut open_chain: Option<MapOp> = None;
        loop {
            let op = match (level, self.peek()) {
                (0, Tok::OrOr) => MapOp::Or,
                (1, Tok::AndAnd) => MapOp::And,
                (2, Tok::Lt) => MapOp::Lt,
                (2, Tok::Le) => MapOp::Le,
                (2, Tok::Gt) => MapOp::Gt,
                (2, Tok::Ge) => MapOp::Ge,
                (2, Tok::EqEq) => MapOp::Eq,
                (2, Tok::Ne) => MapOp::Ne,
                (3, Tok::Plus) => MapOp::Add,
                (3, Tok::Minus) => MapOp::Sub,
                _ => return Ok(lhs),
            };
            self.pos += 1;
            let rhs = self.chain(level + 1)?;
            if level == 2 {
                if matches!(
                    self.peek(),
                    Tok::Lt | Tok::Le | Tok::Gt | Tok::Ge | Tok::EqEq | Tok::Ne
                ) {
                    return Err(ParseError::new(
                        "comparisons do not chain; parenthesize one side",
                        self.span(),
                    ));
                }
                return Ok(Expr::map(op, vec![lhs, rhs]));
            }
            lhs = join(&mut open_chain, op, lhs, rhs);
        }
    }

    /// `*`, `/` and `%` (the level below `+ -`), over `^`.
    fn power(&mut self) -> Result<Expr, ParseError> {
        let mut lhs = self.pow()?;
        let mut open_chain: Option<MapOp> = None;
        loop {
            let op = match self.peek() {
                Tok::Star => MapOp::Mul,
                Tok::Slash => MapOp::Div,
                Tok::Percent => MapOp::Rem,
                _ => return Ok(lhs),
            };
            self.pos += 1;
            let rhs = self.pow()?;
            lhs = join(&mut open_chain, op, lhs, rhs);
        }
    }

    fn pow(&mut self) -> Result<Expr, ParseError> {
        let base = self.unary()?;
        if self.peek() == &Tok::Caret {
            self.pos += 1;
            let exp = self.nested(Self::pow)?;
            return Ok(Expr::map(MapOp::Pow, vec![base, exp]));
        }
        Ok(base)
    }

    fn unary(&mut self) -> Result<Expr, ParseError> {
        match self.peek() {
            Tok::Minus => {
                self.pos += 1;
                if let Tok::Number(v) = *self.peek() {
                    self.pos += 1;
                    return Ok(Expr::Literal(-v));
                }
                if matches!(self.peek(), Tok::Ident(w) if w == "inf") {
                    self.pos += 1;
                    return Ok(Expr::Literal(f64::NEG_INFINITY));
                }
                Ok(Expr::map(MapOp::Neg, vec![self.nested(Self::unary)?]))
            }
            Tok::Bang => {
                self.pos += 1;
                Ok(Expr::map(MapOp::Not, vec![self.nested(Self::unary)?]))
            }
            _ => self.atom(),
        }
    }

    fn atom(&mut self) -> Result<Expr, ParseError> {
        let (tok, span) = self.next();
        match tok {
            Tok::Number(v) => Ok(Expr::Literal(v)),
            Tok::LParen => {
                let e = self.expr()?;
                self.expect(Tok::RParen, "`)`")?;
                Ok(e)
            }
            Tok::Ident(w) if (w == "inf" || w == "nan") && !self.is_param(&w) => {
                Ok(Expr::Literal(if w == "inf" {
                    f64::INFINITY
                } else {
                    f64::NAN
                }))
            }
            Tok::Ident(name) => match self.peek() {
                Tok::LParen => self.call(name, span),
                // In a function body `[` after a name starts the property list.
                Tok::LBracket if self.params.is_none() => {
                    // An access may repeat an index (`A[i,i]`, a diagonal); an aggregate may not.
                    let (idxs, ispan, repeat) = self.idx_list_with_repeats()?;
                    if self.peek() == &Tok::LParen {
                        if let Some(at) = repeat {
                            return Err(repeated_index(&idxs, at, "an aggregate's index list"));
                        }
                        let agg = self.aggregate(&name, Span::new(span.start, ispan.end))?;
                        self.pos += 1;
                        let body = self.expr()?;
                        self.expect(Tok::RParen, "`)`")?;
                        return Ok(Expr::agg(agg, idxs, body));
                    }
                    Ok(self.access(&name, idxs))
                }
                _ => {
                    if let Some(params) = &self.params {
                        if !params.contains(&name) {
                            return Err(ParseError::new(
                                format!("`{name}` is not a parameter of this function"),
                                span,
                            ));
                        }
                    }
                    Ok(self.access(&name, vec![]))
                }
            },
            other => Err(ParseError::new(
                format!("expected an expression, found {}", other.describe()),
                span,
            )),
        }
    }

    /// The aggregate `name` (built-in or a declared function that may aggregate), or an
    /// error at `span` saying why not.
    fn aggregate(&self, name: &str, span: Span) -> Result<AggOp, ParseError> {
        if let Some(agg) = AggOp::from_name(name).or_else(|| self.aggregates.get(name).copied()) {
            return Ok(agg);
        }
        let msg = match self.functions.get(name) {
            Some(f) => UserAggregate::new(f.clone()).err().unwrap_or_default(),
            None => format!(
                "`{name}` is not an aggregate: the aggregates are sum, prod, max, min, any and \
                 functions declared `fn {name}(x, y) = .. [associative, commutative, identity=V]`"
            ),
        };
        Err(ParseError::new(msg, span))
    }

    fn is_param(&self, name: &str) -> bool {
        self.params
            .as_ref()
            .is_some_and(|p| p.iter().any(|x| x == name))
    }

    fn access(&self, name: &str, idxs: Vec<Idx>) -> Expr {
        if self.queries.contains(name) && self.params.is_none() {
            Expr::alias(name, idxs)
        } else {
            Expr::input(name, idxs)
        }
    }

    fn call(&mut self, name: String, span: Span) -> Result<Expr, ParseError> {
        self.expect(Tok::LParen, "`(`")?;
        let mut args = vec![];
        if self.peek() != &Tok::RParen {
            loop {
                args.push(self.expr()?);
                if self.list_end(Tok::RParen, "`)`")?.is_some() {
                    break;
                }
            }
        } else {
            self.pos += 1;
        }
        let op = if let Some(op) = builtin(&name) {
            op
        } else if let Some(f) = self.functions.get(&name) {
            MapOp::User(f.clone())
        } else if AggOp::from_name(&name).is_some() {
            return Err(ParseError::new(
                format!("aggregate `{name}` needs its indices: `{name}[i,..](..)`"),
                span,
            ));
        } else {
            return Err(ParseError::new(
                format!("unknown function `{name}` (declare it with `fn {name}(x) = ...`)"),
                span,
            ));
        };
        let ok = match op.arity() {
            Some(n) => args.len() == n,
            None => args.len() >= 2,
        };
        if !ok {
            let want = op
                .arity()
                .map_or("at least 2".to_string(), |n| n.to_string());
            return Err(ParseError::new(
                format!("`{name}` takes {want} argument(s), {} given", args.len()),
                span,
            ));
        }
        Ok(Expr::map(op, args))
    }
}

/// The error for index lists that must not repeat an index (`at` is the repeat).
fn repeated_index(idxs: &[Idx], at: Span, list: &str) -> ParseError {
    let mut seen = BTreeSet::new();
    let name = idxs
        .iter()
        .find(|i| !seen.insert(*i))
        .map_or(String::new(), |i| i.to_string());
    ParseError::new(format!("index `{name}` appears twice in {list}"), at)
}

/// Appends `rhs` to the n-ary node this operator chain is building, or starts a new node.
fn join(open_chain: &mut Option<MapOp>, op: MapOp, lhs: Expr, rhs: Expr) -> Expr {
    let nary = op.arity().is_none();
    if nary && open_chain.as_ref() == Some(&op) {
        if let Expr::Map { op: o, mut args } = lhs {
            args.push(rhs);
            return Expr::map(o, args);
        }
        unreachable!("an open chain is a Map node");
    }
    *open_chain = if nary { Some(op.clone()) } else { None };
    Expr::map(op, vec![lhs, rhs])
}

/// Named pointwise operators callable as `name(args)`.
fn builtin(name: &str) -> Option<MapOp> {
    Some(match name {
        "max" => MapOp::Max,
        "min" => MapOp::Min,
        "neg" => MapOp::Neg,
        "sqrt" => MapOp::Sqrt,
        "exp" => MapOp::Exp,
        "log" => MapOp::Log,
        "abs" => MapOp::Abs,
        "sigmoid" => MapOp::Sigmoid,
        "relu" => MapOp::Relu,
        "floor" => MapOp::Floor,
        "ceil" => MapOp::Ceil,
        "trunc" => MapOp::Trunc,
        "rem" => MapOp::Rem,
        "mod" => MapOp::Mod,
        "fld" => MapOp::Fld,
        "ifelse" => MapOp::IfElse,
        _ => return None,
    })
}

/// An aggregate that re-binds an index already bound by an enclosing aggregate is ambiguous.
fn aggregate_shadowing(expr: &Expr) -> Option<String> {
    fn go(e: &Expr, bound: &mut Vec<Idx>) -> Option<String> {
        match e {
            Expr::Agg { idxs, body, .. } => {
                for i in idxs {
                    if bound.contains(i) {
                        return Some(format!(
                            "index `{i}` is aggregated twice in nested aggregates"
                        ));
                    }
                }
                let n = bound.len();
                bound.extend(idxs.iter().cloned());
                let r = go(body, bound);
                bound.truncate(n);
                r
            }
            Expr::Map { args, .. } => args.iter().find_map(|a| go(a, bound)),
            _ => None,
        }
    }
    go(expr, &mut vec![])
}

/// A function body compiled for evaluation: parameters by position.
enum Scalar {
    Param(usize),
    Lit(f64),
    Map(MapOp, Vec<Scalar>),
}

impl Scalar {
    fn compile(e: &Expr, params: &[String]) -> Scalar {
        match e {
            Expr::Literal(v) => Scalar::Lit(*v),
            Expr::Input { tensor, .. } | Expr::Alias { name: tensor, .. } => params
                .iter()
                .position(|p| p == tensor)
                .map_or(Scalar::Lit(f64::NAN), Scalar::Param),
            Expr::Map { op, args } => Scalar::Map(
                op.clone(),
                args.iter().map(|a| Scalar::compile(a, params)).collect(),
            ),
            Expr::Agg { .. } => Scalar::Lit(f64::NAN),
        }
    }

    fn eval(&self, args: &[f64]) -> f64 {
        match self {
            Scalar::Param(k) => args.get(*k).copied().unwrap_or(f64::NAN),
            Scalar::Lit(v) => *v,
            Scalar::Map(op, a) => {
                let vals: Vec<f64> = a.iter().map(|x| x.eval(args)).collect();
                op.apply(&vals)
            }
        }
    }
}
