//! Recursive-descent parser for MLIR's generic operation form.
//!
//! Attribute and type aliases (`#map = affine_map<...>`, `!t = tensor<...>`) are resolved while
//! parsing, so the IR holds values, never alias names: rewrite rules should see
//! `affine_map<(d0) -> (d0)>`, not `#map`. Location aliases are the exception (see
//! [`Module::loc_aliases`]). The parser never panics; nesting is bounded so that hostile input
//! cannot exhaust the stack.

use std::collections::HashMap;
use std::fmt;

use crate::builtin::{Attribute, DenseElements, DenseLit, FloatValue};
use crate::builtin::{FloatKind, Signedness, Type, VectorDim};
use crate::ir::{
    Block, BlockArg, Location, Module, NamedAttr, Operation, Region, ResultGroup, Successor, Value,
};
use crate::lexer::{decode_string, LexError, Lexer, Tok};

/// How deep attributes, types and regions may nest before the parser gives up.
const MAX_DEPTH: usize = 200;

/// Parser settings.
#[derive(Clone, Copy, Debug)]
pub struct ParseOptions {
    /// Keep `loc(...)` locations and location aliases (otherwise they are parsed and dropped).
    pub keep_locations: bool,
}

impl Default for ParseOptions {
    fn default() -> Self {
        ParseOptions {
            keep_locations: true,
        }
    }
}

/// A syntax error with its position.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct ParseError {
    /// The file, when known (set by [`crate::load`]).
    pub file: Option<String>,
    /// 1-based line.
    pub line: usize,
    /// 1-based column (bytes).
    pub col: usize,
    /// What was expected or found.
    pub message: String,
    /// Whether the text is not MLIR's generic form, or is but breaks SSA's rules.
    pub kind: ParseErrorKind,
}

/// What kind of text a [`ParseError`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParseErrorKind {
    /// Not the generic form: a syntax error, or custom syntax `mlir-opt` may normalize.
    Syntax,
    /// Generic form whose values break SSA's rules (`mlir-opt` would refuse it too).
    Ssa,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(file) = &self.file {
            write!(f, "{file}:")?;
        }
        write!(f, "{}:{}: {}", self.line, self.col, self.message)
    }
}

/// Parses a whole file in generic form.
pub fn parse_module(src: &str, opts: ParseOptions) -> Result<Module, ParseError> {
    let mut p = Parser {
        lx: Lexer::new(src),
        opts,
        attr_aliases: HashMap::new(),
        type_aliases: HashMap::new(),
        depth: 0,
        ssa_at: Vec::new(),
    };
    let module = p.module()?;
    crate::ssa::verify(&module, &p.ssa_at).map_err(|e| p.ssa_error(e))?;
    Ok(module)
}

struct Parser<'a> {
    lx: Lexer<'a>,
    opts: ParseOptions,
    attr_aliases: HashMap<String, Attribute>,
    type_aliases: HashMap<String, Type>,
    depth: usize,
    /// Offsets of SSA definitions, uses and block labels in reading order, for the SSA
    /// check's messages ([`crate::ssa::verify`]).
    ssa_at: Vec<usize>,
}

type PResult<T> = Result<T, ParseError>;

fn describe(t: &Tok<'_>) -> String {
    match t {
        Tok::Eof => "end of input".into(),
        Tok::BareId(s) => format!("`{s}`"),
        Tok::Percent(s) => format!("`%{s}`"),
        Tok::Caret(s) => format!("`^{s}`"),
        Tok::Hash(s) => format!("`#{s}`"),
        Tok::Bang(s) => format!("`!{s}`"),
        Tok::At(s) => format!("`@{s}`"),
        Tok::AtStr(s) => format!("`@{s}`"),
        Tok::Int(s) | Tok::Float(s) => format!("number `{s}`"),
        Tok::Str(s) => format!("string {s}"),
        Tok::Arrow => "`->`".into(),
        Tok::ColonColon => "`::`".into(),
        Tok::FileMetaOpen => "`{-#`".into(),
        Tok::Punct(c) => format!("`{c}`"),
    }
}

fn parse_int_text(text: &str) -> Option<u128> {
    if let Some(h) = text.strip_prefix("0x") {
        u128::from_str_radix(h, 16).ok()
    } else {
        text.parse().ok()
    }
}

/// Recognizes builtin type keywords that begin a type in attribute position.
fn is_type_keyword(id: &str) -> bool {
    matches!(
        id,
        "index" | "none" | "tensor" | "memref" | "vector" | "complex" | "tuple"
    ) || int_type(id).is_some()
        || FloatKind::from_keyword(id).is_some()
}

fn int_type(id: &str) -> Option<Type> {
    let (signedness, digits) = if let Some(d) = id.strip_prefix("si") {
        (Signedness::Signed, d)
    } else if let Some(d) = id.strip_prefix("ui") {
        (Signedness::Unsigned, d)
    } else if let Some(d) = id.strip_prefix('i') {
        (Signedness::Signless, d)
    } else {
        return None;
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let width = digits.parse().ok()?;
    Some(Type::Integer { signedness, width })
}

impl<'a> Parser<'a> {
    fn err_at<T>(&self, offset: usize, message: impl Into<String>) -> PResult<T> {
        let pos = self.lx.position(offset);
        Err(ParseError {
            file: None,
            line: pos.line,
            col: pos.col,
            message: message.into(),
            kind: ParseErrorKind::Syntax,
        })
    }

    /// An SSA error as a parse error at its position, naming the other positions it
    /// refers to by line and column.
    fn ssa_error(&self, e: crate::ssa::SsaError) -> ParseError {
        use crate::ssa::SsaErrorKind as K;
        let at = |offset: usize| {
            let p = self.lx.position(offset);
            format!("{}:{}", p.line, p.col)
        };
        let message = match e.kind {
            K::Undefined { value } => format!("use of undefined value `{value}`"),
            K::UsedBeforeDefinition { value, def } => format!(
                "`{value}` is used before its definition at {} (in the same block)",
                at(def)
            ),
            K::UsesOwnResult { value } => {
                format!("`{value}` is used by the operation that defines it")
            }
            K::NotDominating { value, def, block } => format!(
                "`{value}` is defined at {} in block {block}, which does not dominate this use",
                at(def)
            ),
            K::Redefinition { name, first } => {
                format!("redefinition of `{name}` (first defined at {})", at(first))
            }
            K::NoSuchResult {
                value,
                index,
                count,
            } => format!("`{value}` names result #{index} of a definition with {count} result(s)"),
            K::OutsideIsolated { value, op, def } => format!(
                "`{value}` is defined at {}, outside the enclosing `{op}`, whose regions are \
                 isolated from above",
                at(def)
            ),
            K::UndefinedBlock { label } => format!("reference to undefined block `^{label}`"),
            K::DuplicateBlock { label, first } => {
                format!(
                    "redefinition of block `^{label}` (first defined at {})",
                    at(first)
                )
            }
        };
        let pos = self.lx.position(e.at);
        ParseError {
            file: None,
            line: pos.line,
            col: pos.col,
            message,
            kind: ParseErrorKind::Ssa,
        }
    }

    fn lex_err(&self, e: LexError) -> ParseError {
        let pos = self.lx.position(e.offset);
        ParseError {
            file: None,
            line: pos.line,
            col: pos.col,
            message: e.message,
            kind: ParseErrorKind::Syntax,
        }
    }

    fn next(&mut self) -> PResult<(Tok<'a>, usize)> {
        self.lx.next_token().map_err(|e| self.lex_err(e))
    }

    fn peek(&mut self) -> PResult<Tok<'a>> {
        self.lx.peek().map(|t| t.0).map_err(|e| self.lex_err(e))
    }

    fn eat(&mut self, c: char) -> PResult<bool> {
        if self.peek()? == Tok::Punct(c) {
            self.next()?;
            Ok(true)
        } else {
            Ok(false)
        }
    }

    fn expect(&mut self, c: char, context: &str) -> PResult<()> {
        let (t, off) = self.next()?;
        if t == Tok::Punct(c) {
            Ok(())
        } else {
            self.err_at(
                off,
                format!("expected `{c}` {context}, found {}", describe(&t)),
            )
        }
    }

    fn enter(&mut self) -> PResult<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            let off = self.lx.pos;
            return self.err_at(off, "nesting too deep");
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    /// The offset of the next token (after whitespace).
    fn here(&mut self) -> usize {
        self.lx.skip_trivia();
        self.lx.pos
    }

    fn module(&mut self) -> PResult<Module> {
        let mut m = Module::default();
        loop {
            match self.peek()? {
                Tok::Eof => return Ok(m),
                Tok::Hash(name) => {
                    let (_, off) = self.next()?;
                    self.expect('=', &format!("after alias `#{name}` at the top level"))?;
                    if self.peek()? == Tok::BareId("loc") {
                        let loc = self.location()?;
                        if self.opts.keep_locations {
                            m.loc_aliases.push((name.to_string(), loc.0));
                        }
                    } else {
                        let a = self.attribute()?;
                        if self.attr_aliases.insert(name.to_string(), a).is_some() {
                            return self.err_at(off, format!("redefinition of alias `#{name}`"));
                        }
                    }
                }
                Tok::Bang(name) => {
                    let (_, off) = self.next()?;
                    self.expect('=', &format!("after type alias `!{name}`"))?;
                    let t = self.ty()?;
                    if self.type_aliases.insert(name.to_string(), t).is_some() {
                        return self.err_at(off, format!("redefinition of type alias `!{name}`"));
                    }
                }
                Tok::FileMetaOpen => {
                    self.next()?;
                    let body = self.lx.file_metadata().map_err(|e| self.lex_err(e))?;
                    m.metadata = Some(body.to_string());
                }
                _ => {
                    let op = self.operation()?;
                    m.ops.push(op);
                }
            }
        }
    }

    fn location(&mut self) -> PResult<Location> {
        let (t, off) = self.next()?;
        if t != Tok::BareId("loc") {
            return self.err_at(off, format!("expected `loc(...)`, found {}", describe(&t)));
        }
        self.lx.skip_trivia();
        if self.lx.peek_byte() != Some(b'(') {
            let off = self.lx.pos;
            return self.err_at(off, "expected `(` after `loc`");
        }
        let body = self.lx.balanced().map_err(|e| self.lex_err(e))?;
        Ok(Location(body.to_string()))
    }

    fn opt_location(&mut self) -> PResult<Option<Location>> {
        if self.peek()? == Tok::BareId("loc") {
            let l = self.location()?;
            Ok(self.opts.keep_locations.then_some(l))
        } else {
            Ok(None)
        }
    }

    fn operation(&mut self) -> PResult<Operation> {
        let mut results = Vec::new();
        if let Tok::Percent(_) = self.peek()? {
            loop {
                let (t, off) = self.next()?;
                let Tok::Percent(name) = t else {
                    return self.err_at(
                        off,
                        format!("expected a result name, found {}", describe(&t)),
                    );
                };
                self.ssa_at.push(off);
                let mut count = 1;
                if self.eat(':')? {
                    let (t, off) = self.next()?;
                    count = match t {
                        Tok::Int(s) => match s.parse::<u32>() {
                            Ok(n) if n > 0 => n,
                            _ => return self.err_at(off, "invalid result count"),
                        },
                        _ => {
                            return self.err_at(
                                off,
                                format!("expected a result count, found {}", describe(&t)),
                            )
                        }
                    };
                }
                results.push(ResultGroup {
                    name: name.to_string(),
                    count,
                });
                if !self.eat(',')? {
                    break;
                }
            }
            self.expect('=', "after the results of an operation")?;
        }
        let (t, off) = self.next()?;
        let name = match t {
            Tok::Str(raw) => self.string_text(raw, off)?,
            Tok::BareId(id) => {
                return self.err_at(
                    off,
                    format!(
                        "`{id}` is in MLIR's custom syntax; this reader takes the generic form \
                         (normalize with `mlir-opt --mlir-print-op-generic`)"
                    ),
                )
            }
            _ => {
                return self.err_at(
                    off,
                    format!("expected an operation, found {}", describe(&t)),
                )
            }
        };
        let mut op = Operation::new(name);
        op.results = results;
        self.expect('(', "to open the operand list")?;
        if !self.eat(')')? {
            loop {
                op.operands.push(self.value_use()?);
                if !self.eat(',')? {
                    break;
                }
            }
            self.expect(')', "to close the operand list")?;
        }
        if self.eat('[')? {
            loop {
                op.successors.push(self.successor()?);
                if !self.eat(',')? {
                    break;
                }
            }
            self.expect(']', "to close the successor list")?;
        }
        if self.eat('<')? {
            op.properties = Some(self.attribute()?);
            self.expect('>', "to close the properties")?;
        }
        if self.eat('(')? {
            loop {
                op.regions.push(self.region()?);
                if !self.eat(',')? {
                    break;
                }
            }
            self.expect(')', "to close the region list")?;
        }
        if self.peek()? == Tok::Punct('{') {
            let off = self.here();
            match self.attribute()? {
                Attribute::Dict(d) => op.attributes = d,
                _ => return self.err_at(off, "expected an attribute dictionary"),
            }
        }
        self.expect(':', "before the operation's function type")?;
        let off = self.here();
        match self.ty()? {
            Type::Function { inputs, results } => {
                op.operand_types = inputs;
                op.result_types = results;
            }
            t => return self.err_at(off, format!("expected a function type, found {t:?}")),
        }
        op.loc = self.opt_location()?;
        Ok(op)
    }

    fn string_text(&self, raw: &str, off: usize) -> PResult<String> {
        match decode_string(raw) {
            Ok(b) => Ok(String::from_utf8_lossy(&b).into_owned()),
            Err(e) => self.err_at(off, e.to_string()),
        }
    }

    fn value_use(&mut self) -> PResult<Value> {
        let (t, off) = self.next()?;
        let Tok::Percent(name) = t else {
            return self.err_at(
                off,
                format!("expected an SSA value, found {}", describe(&t)),
            );
        };
        self.ssa_at.push(off);
        let mut index = None;
        if self.lx.peek_byte() == Some(b'#') {
            let (t, off) = self.next()?;
            match t {
                Tok::Hash(d) if d.bytes().all(|b| b.is_ascii_digit()) => match d.parse() {
                    Ok(n) => index = Some(n),
                    Err(_) => return self.err_at(off, "result number too large"),
                },
                _ => return self.err_at(off, "expected a result number after `#`"),
            }
        }
        Ok(Value {
            name: name.to_string(),
            index,
        })
    }

    fn successor(&mut self) -> PResult<Successor> {
        let (t, off) = self.next()?;
        let Tok::Caret(label) = t else {
            return self.err_at(
                off,
                format!("expected a block label, found {}", describe(&t)),
            );
        };
        self.ssa_at.push(off);
        let mut s = Successor {
            label: label.to_string(),
            args: Vec::new(),
            arg_types: Vec::new(),
        };
        if self.eat('(')? {
            loop {
                s.args.push(self.value_use()?);
                if !self.eat(',')? {
                    break;
                }
            }
            self.expect(':', "before the successor operand types")?;
            s.arg_types = self.type_list_until(')')?;
            self.expect(')', "to close the successor operands")?;
        }
        Ok(s)
    }

    fn region(&mut self) -> PResult<Region> {
        self.enter()?;
        let r = self.region_inner();
        self.leave();
        r
    }

    fn region_inner(&mut self) -> PResult<Region> {
        self.expect('{', "to open a region")?;
        let mut region = Region::default();
        if self.eat('}')? {
            return Ok(region);
        }
        if !matches!(self.peek()?, Tok::Caret(_)) {
            let mut entry = Block::default();
            self.block_ops(&mut entry)?;
            region.blocks.push(entry);
        }
        while let Tok::Caret(label) = self.peek()? {
            let (_, off) = self.next()?;
            self.ssa_at.push(off);
            let mut b = Block {
                label: Some(label.to_string()),
                ..Block::default()
            };
            if self.eat('(')? && !self.eat(')')? {
                loop {
                    let (t, off) = self.next()?;
                    let Tok::Percent(name) = t else {
                        return self.err_at(
                            off,
                            format!("expected a block argument, found {}", describe(&t)),
                        );
                    };
                    self.ssa_at.push(off);
                    self.expect(':', "after a block argument name")?;
                    let ty = self.ty()?;
                    let loc = self.opt_location()?;
                    b.args.push(BlockArg {
                        name: name.to_string(),
                        ty,
                        loc,
                    });
                    if !self.eat(',')? {
                        break;
                    }
                }
                self.expect(')', "to close the block arguments")?;
            }
            self.expect(':', "after a block label")?;
            self.block_ops(&mut b)?;
            region.blocks.push(b);
        }
        self.expect('}', "to close a region")?;
        Ok(region)
    }

    fn block_ops(&mut self, b: &mut Block) -> PResult<()> {
        loop {
            match self.peek()? {
                Tok::Punct('}') | Tok::Caret(_) => return Ok(()),
                _ => b.ops.push(self.operation()?),
            }
        }
    }

    /// A comma-separated list of types up to (not consuming) `close`.
    fn type_list_until(&mut self, close: char) -> PResult<Vec<Type>> {
        let mut v = Vec::new();
        if self.peek()? == Tok::Punct(close) {
            return Ok(v);
        }
        loop {
            v.push(self.ty()?);
            if !self.eat(',')? {
                return Ok(v);
            }
        }
    }

    /// Parses a type.
    pub fn ty(&mut self) -> PResult<Type> {
        self.enter()?;
        let r = self.ty_inner();
        self.leave();
        r
    }

    fn ty_inner(&mut self) -> PResult<Type> {
        let (t, off) = self.next()?;
        match t {
            Tok::Punct('(') => {
                let inputs = self.type_list_until(')')?;
                self.expect(')', "to close the function type's inputs")?;
                let (t, off) = self.next()?;
                if t != Tok::Arrow {
                    return self.err_at(
                        off,
                        format!("expected `->` in a function type, found {}", describe(&t)),
                    );
                }
                let results = if self.eat('(')? {
                    let r = self.type_list_until(')')?;
                    self.expect(')', "to close the function type's results")?;
                    r
                } else {
                    vec![self.ty()?]
                };
                Ok(Type::Function { inputs, results })
            }
            Tok::Bang(id) => match self.dialect_item(id, off)? {
                Some((dialect, name, body)) => Ok(Type::Dialect {
                    dialect,
                    name,
                    body,
                }),
                None => match self.type_aliases.get(id) {
                    Some(t) => Ok(t.clone()),
                    None => self.err_at(off, format!("undefined type alias `!{id}`")),
                },
            },
            Tok::BareId(id) => self.builtin_type(id, off),
            _ => self.err_at(off, format!("expected a type, found {}", describe(&t))),
        }
    }

    /// The dialect, name and `<...>` body (kept verbatim) of a dialect type `!id<...>` or
    /// attribute `#id<...>` whose token `id` was just read; `None` for an alias (no dot
    /// and no body), which the caller looks up. `off` is where the token starts.
    fn dialect_item(
        &mut self,
        id: &str,
        off: usize,
    ) -> PResult<Option<(String, String, Option<String>)>> {
        let has_body = self.lx.peek_byte() == Some(b'<');
        if !has_body && !id.contains('.') {
            return Ok(None);
        }
        let (dialect, name) = id.split_once('.').unwrap_or((id, ""));
        // `#foo.` would print as the alias `#foo`, and `#.foo` names no dialect.
        if dialect.is_empty() || (id.contains('.') && name.is_empty()) {
            return self.err_at(
                off,
                format!("`{id}` is not `dialect.name`: a part is empty"),
            );
        }
        let body = if has_body {
            Some(self.lx.balanced().map_err(|e| self.lex_err(e))?.to_string())
        } else {
            None
        };
        Ok(Some((dialect.to_string(), name.to_string(), body)))
    }

    fn builtin_type(&mut self, id: &str, off: usize) -> PResult<Type> {
        if let Some(t) = int_type(id) {
            return Ok(t);
        }
        if let Some(k) = FloatKind::from_keyword(id) {
            return Ok(Type::Float(k));
        }
        match id {
            "index" => Ok(Type::Index),
            "none" => Ok(Type::None),
            "complex" => {
                self.expect('<', "after `complex`")?;
                let t = self.ty()?;
                self.expect('>', "to close `complex<`")?;
                Ok(Type::Complex(Box::new(t)))
            }
            "tuple" => {
                self.expect('<', "after `tuple`")?;
                let v = self.type_list_until('>')?;
                self.expect('>', "to close `tuple<`")?;
                Ok(Type::Tuple(v))
            }
            "tensor" | "memref" => {
                self.expect('<', &format!("after `{id}`"))?;
                self.lx.skip_trivia();
                if self.lx.raw_eat(b'*') {
                    if !self.lx.raw_eat(b'x') {
                        let o = self.lx.pos;
                        return self.err_at(o, "expected `x` after `*`");
                    }
                    let elem = Box::new(self.ty()?);
                    return if id == "tensor" {
                        self.expect('>', "to close `tensor<`")?;
                        Ok(Type::UnrankedTensor(elem))
                    } else {
                        let memory_space = if self.eat(',')? {
                            Some(Box::new(self.attribute()?))
                        } else {
                            None
                        };
                        self.expect('>', "to close `memref<`")?;
                        Ok(Type::UnrankedMemRef { elem, memory_space })
                    };
                }
                let shape = self.dims()?;
                let elem = Box::new(self.ty()?);
                if id == "tensor" {
                    let encoding = if self.eat(',')? {
                        Some(Box::new(self.attribute()?))
                    } else {
                        None
                    };
                    self.expect('>', "to close `tensor<`")?;
                    return Ok(Type::Tensor {
                        shape,
                        elem,
                        encoding,
                    });
                }
                let mut extra = Vec::new();
                while extra.len() < 2 && self.eat(',')? {
                    extra.push(self.attribute()?);
                }
                self.expect('>', "to close `memref<`")?;
                let (layout, memory_space) = match extra.len() {
                    2 => {
                        let s = extra.pop();
                        (extra.pop(), s)
                    }
                    1 => {
                        let a = extra.pop();
                        if a.as_ref().is_some_and(is_layout) {
                            (a, None)
                        } else {
                            (None, a)
                        }
                    }
                    _ => (None, None),
                };
                Ok(Type::MemRef {
                    shape,
                    elem,
                    layout: layout.map(Box::new),
                    memory_space: memory_space.map(Box::new),
                })
            }
            "vector" => {
                self.expect('<', "after `vector`")?;
                let mut shape = Vec::new();
                loop {
                    self.lx.skip_trivia();
                    let scalable = self.lx.raw_eat(b'[');
                    let start = self.lx.pos;
                    let Some(d) = self.lx.raw_decimal() else {
                        if scalable {
                            return self.err_at(start, "expected a scalable dimension size");
                        }
                        break;
                    };
                    let Ok(size) = d.parse() else {
                        return self.err_at(start, "dimension too large");
                    };
                    if scalable && !self.lx.raw_eat(b']') {
                        let o = self.lx.pos;
                        return self.err_at(o, "expected `]` after a scalable dimension");
                    }
                    if !self.lx.raw_eat(b'x') {
                        let o = self.lx.pos;
                        return self.err_at(o, "expected `x` after a vector dimension");
                    }
                    shape.push(VectorDim { size, scalable });
                }
                let elem = Box::new(self.ty()?);
                self.expect('>', "to close `vector<`")?;
                Ok(Type::Vector { shape, elem })
            }
            _ => self.err_at(off, format!("unknown type `{id}`")),
        }
    }

    /// A ranked dimension list `4x?x` (each dimension followed by `x`), read from raw bytes.
    fn dims(&mut self) -> PResult<Vec<Option<u64>>> {
        let mut shape = Vec::new();
        loop {
            self.lx.skip_trivia();
            let start = self.lx.pos;
            let d = if self.lx.raw_eat(b'?') {
                None
            } else if let Some(d) = self.lx.raw_decimal() {
                match d.parse() {
                    Ok(n) => Some(n),
                    Err(_) => return self.err_at(start, "dimension too large"),
                }
            } else {
                return Ok(shape);
            };
            if !self.lx.raw_eat(b'x') {
                let o = self.lx.pos;
                return self.err_at(o, "expected `x` after a dimension");
            }
            shape.push(d);
        }
    }

    /// Parses an attribute value.
    pub fn attribute(&mut self) -> PResult<Attribute> {
        self.enter()?;
        let r = self.attribute_inner();
        self.leave();
        r
    }

    fn attribute_inner(&mut self) -> PResult<Attribute> {
        let start = self.here();
        match self.peek()? {
            Tok::BareId("unit") => {
                self.next()?;
                Ok(Attribute::Unit)
            }
            Tok::BareId("true") => {
                self.next()?;
                Ok(Attribute::Bool(true))
            }
            Tok::BareId("false") => {
                self.next()?;
                Ok(Attribute::Bool(false))
            }
            Tok::BareId("dense") => self.dense(),
            Tok::BareId("array") => self.dense_array(),
            Tok::BareId("affine_map") => {
                self.next()?;
                let body = self.raw_angle("affine_map")?;
                Ok(Attribute::AffineMap(body.to_string()))
            }
            Tok::BareId("loc") => {
                self.location()?;
                Ok(self.opaque_from(start))
            }
            Tok::BareId(id) if is_type_keyword(id) => Ok(Attribute::Type(self.ty()?)),
            Tok::BareId(id) => {
                let (_, off) = self.next()?;
                // Other builtin attributes (`strided<...>`, `affine_set<...>`,
                // `dense_resource<...>`, `distinct[0]<...>`, `sparse<...>`) are kept as text.
                let mut any = false;
                while matches!(self.lx.peek_byte(), Some(b'<' | b'[')) {
                    self.lx.balanced().map_err(|e| self.lex_err(e))?;
                    any = true;
                }
                if !any {
                    return self.err_at(off, format!("unknown attribute `{id}`"));
                }
                if matches!(id, "dense_resource" | "sparse" | "opaque") && self.eat(':')? {
                    self.ty()?;
                }
                Ok(self.opaque_from(start))
            }
            Tok::Int(_) | Tok::Float(_) | Tok::Punct('-') => self.number_attr(start),
            Tok::Str(raw) => {
                let (_, off) = self.next()?;
                let value = decode_string(raw).or_else(|e| self.err_at(off, e.to_string()))?;
                let ty = if self.eat(':')? {
                    Some(self.ty()?)
                } else {
                    None
                };
                Ok(Attribute::String { value, ty })
            }
            Tok::Punct('[') => {
                self.next()?;
                let mut v = Vec::new();
                if !self.eat(']')? {
                    loop {
                        v.push(self.attribute()?);
                        if !self.eat(',')? {
                            break;
                        }
                    }
                    self.expect(']', "to close an array attribute")?;
                }
                Ok(Attribute::Array(v))
            }
            Tok::Punct('{') => {
                self.next()?;
                let mut v = Vec::new();
                if !self.eat('}')? {
                    loop {
                        let (t, off) = self.next()?;
                        let name = match t {
                            Tok::BareId(s) => s.to_string(),
                            Tok::Str(raw) => self.string_text(raw, off)?,
                            _ => {
                                return self.err_at(
                                    off,
                                    format!("expected an attribute name, found {}", describe(&t)),
                                )
                            }
                        };
                        let value = if self.eat('=')? {
                            self.attribute()?
                        } else {
                            Attribute::Unit
                        };
                        v.push(NamedAttr { name, value });
                        if !self.eat(',')? {
                            break;
                        }
                    }
                    self.expect('}', "to close an attribute dictionary")?;
                }
                Ok(Attribute::Dict(v))
            }
            Tok::At(_) | Tok::AtStr(_) => {
                let mut path = vec![self.symbol_name()?];
                while self.peek()? == Tok::ColonColon {
                    self.next()?;
                    path.push(self.symbol_name()?);
                }
                Ok(Attribute::SymbolRef(path))
            }
            Tok::Hash(id) => {
                let (_, off) = self.next()?;
                let Some((dialect, name, body)) = self.dialect_item(id, off)? else {
                    return match self.attr_aliases.get(id) {
                        Some(a) => Ok(a.clone()),
                        None => self.err_at(off, format!("undefined attribute alias `#{id}`")),
                    };
                };
                let ty = if self.eat(':')? {
                    Some(self.ty()?)
                } else {
                    None
                };
                Ok(Attribute::Dialect {
                    dialect,
                    name,
                    body,
                    ty,
                })
            }
            Tok::Bang(_) | Tok::Punct('(') => Ok(Attribute::Type(self.ty()?)),
            t => self.err_at(
                start,
                format!("expected an attribute, found {}", describe(&t)),
            ),
        }
    }

    /// The source text from `start` to the cursor, as an opaque attribute.
    fn opaque_from(&self, start: usize) -> Attribute {
        let text = self.lx.src().get(start..self.lx.pos).unwrap_or("");
        Attribute::Opaque(text.trim_end().to_string())
    }

    /// With the cursor after a keyword, reads `<...>` and returns the inside.
    fn raw_angle(&mut self, what: &str) -> PResult<&'a str> {
        self.lx.skip_trivia();
        if self.lx.peek_byte() != Some(b'<') {
            let o = self.lx.pos;
            return self.err_at(o, format!("expected `<` after `{what}`"));
        }
        self.lx.balanced().map_err(|e| self.lex_err(e))
    }

    fn symbol_name(&mut self) -> PResult<String> {
        let (t, off) = self.next()?;
        match t {
            Tok::At(s) => Ok(s.to_string()),
            Tok::AtStr(raw) => self.string_text(raw, off),
            _ => self.err_at(off, format!("expected a symbol, found {}", describe(&t))),
        }
    }

    fn number_attr(&mut self, start: usize) -> PResult<Attribute> {
        let neg = self.eat('-')?;
        let (t, off) = self.next()?;
        let ty = if self.eat(':')? {
            Some(self.ty()?)
        } else {
            None
        };
        match t {
            Tok::Int(text) => {
                let Some(mag) = parse_int_text(text) else {
                    return Ok(self.opaque_from(start));
                };
                match ty {
                    None | Some(Type::Integer { .. } | Type::Index) => {
                        let Ok(v) = i128::try_from(mag) else {
                            return Ok(self.opaque_from(start));
                        };
                        Ok(Attribute::Integer {
                            value: if neg { -v } else { v },
                            ty: ty.unwrap_or(Type::int(64)),
                        })
                    }
                    Some(ty @ Type::Float(_)) if text.starts_with("0x") && !neg => {
                        Ok(Attribute::Float {
                            value: FloatValue::Bits(mag),
                            ty,
                        })
                    }
                    Some(_) => Ok(self.opaque_from(start)),
                }
            }
            Tok::Float(text) => {
                let Ok(v) = text.parse::<f64>() else {
                    return self.err_at(off, "malformed float literal");
                };
                match ty {
                    // An overflowing literal (`1.0e400`) has no exact decimal spelling after
                    // rounding; keep the text so that it round-trips.
                    _ if !v.is_finite() => Ok(self.opaque_from(start)),
                    None | Some(Type::Float(_)) => Ok(Attribute::Float {
                        value: FloatValue::Decimal(if neg { -v } else { v }),
                        ty: ty.unwrap_or(Type::f64()),
                    }),
                    Some(_) => Ok(self.opaque_from(start)),
                }
            }
            _ => self.err_at(off, format!("expected a number, found {}", describe(&t))),
        }
    }

    fn dense(&mut self) -> PResult<Attribute> {
        self.next()?;
        self.expect('<', "after `dense`")?;
        let elements = if self.eat('>')? {
            DenseElements::Empty
        } else {
            let e = match self.peek()? {
                Tok::Str(raw) if raw.starts_with("\"0x") => {
                    self.next()?;
                    DenseElements::Hex(raw.trim_matches('"').to_string())
                }
                _ => self.dense_elems()?,
            };
            self.expect('>', "to close `dense<`")?;
            e
        };
        self.expect(':', "before the type of a dense attribute")?;
        let ty = self.ty()?;
        Ok(Attribute::Dense { elements, ty })
    }

    fn dense_elems(&mut self) -> PResult<DenseElements> {
        self.enter()?;
        let r = if self.eat('[')? {
            let mut v = Vec::new();
            if !self.eat(']')? {
                loop {
                    v.push(self.dense_elems()?);
                    if !self.eat(',')? {
                        break;
                    }
                }
                self.expect(']', "to close a dense list")?;
            }
            Ok(DenseElements::List(v))
        } else {
            self.dense_lit().map(DenseElements::Splat)
        };
        self.leave();
        r
    }

    fn dense_lit(&mut self) -> PResult<DenseLit> {
        self.enter()?;
        let r = self.dense_lit_inner();
        self.leave();
        r
    }

    fn dense_lit_inner(&mut self) -> PResult<DenseLit> {
        let start = self.here();
        let neg = self.eat('-')?;
        let (t, off) = self.next()?;
        let raw =
            |p: &Self| DenseLit::Raw(p.lx.src().get(start..p.lx.pos).unwrap_or("").to_string());
        match t {
            Tok::Int(text) if !text.starts_with("0x") => match text.parse::<i128>() {
                Ok(v) => Ok(DenseLit::Int(if neg { -v } else { v })),
                Err(_) => Ok(raw(self)),
            },
            Tok::Int(_) => Ok(raw(self)),
            Tok::Float(text) => match text.parse::<f64>() {
                Ok(v) if v.is_finite() => Ok(DenseLit::Float(if neg { -v } else { v })),
                _ => Ok(raw(self)),
            },
            Tok::BareId("true") if !neg => Ok(DenseLit::Bool(true)),
            Tok::BareId("false") if !neg => Ok(DenseLit::Bool(false)),
            Tok::Str(r) if !neg => Ok(DenseLit::Str(
                decode_string(r).or_else(|e| self.err_at(off, e.to_string()))?,
            )),
            Tok::Punct('(') if !neg => {
                let re = self.dense_lit()?;
                self.expect(',', "between the parts of a complex literal")?;
                let im = self.dense_lit()?;
                self.expect(')', "to close a complex literal")?;
                Ok(DenseLit::Complex(Box::new(re), Box::new(im)))
            }
            _ => self.err_at(
                off,
                format!("expected an element literal, found {}", describe(&t)),
            ),
        }
    }

    fn dense_array(&mut self) -> PResult<Attribute> {
        self.next()?;
        self.expect('<', "after `array`")?;
        let elem = self.ty()?;
        let mut values = Vec::new();
        if self.eat(':')? {
            loop {
                values.push(self.dense_lit()?);
                if !self.eat(',')? {
                    break;
                }
            }
        }
        self.expect('>', "to close `array<`")?;
        Ok(Attribute::DenseArray { elem, values })
    }
}

/// Whether a lone attribute after a memref's element type is its layout (rather than its
/// memory space): MLIR decides by the attribute's interface; we know the builtin layouts.
fn is_layout(a: &Attribute) -> bool {
    match a {
        Attribute::AffineMap(_) => true,
        Attribute::Opaque(t) => t.starts_with("strided"),
        _ => false,
    }
}
