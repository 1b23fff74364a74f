//! Tokenizer for the DML subset.
//!
//! Turns source text into a flat list of [`Token`]s with byte spans. Comments and blanks
//! are dropped. Newlines matter in DML-as-R (they end statements), so they are kept as
//! [`TokenKind::Newline`] tokens, except inside `( )` and `[ ]`, where a newline is plain
//! whitespace; doing that here keeps the parser free of newline bookkeeping inside calls
//! and indexing. The list always ends with one [`TokenKind::Eof`].

use crate::diag::{Diagnostic, Span};
use std::fmt;

/// One lexical token and the source text it covers.
#[derive(Clone, Debug, PartialEq)]
pub struct Token {
    pub kind: TokenKind,
    pub span: Span,
}

/// The operator of a compound assignment such as `+=`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompoundOp {
    Add,
    Sub,
    Mul,
    Div,
}

impl CompoundOp {
    pub fn symbol(self) -> &'static str {
        match self {
            CompoundOp::Add => "+=",
            CompoundOp::Sub => "-=",
            CompoundOp::Mul => "*=",
            CompoundOp::Div => "/=",
        }
    }
}

/// The kinds of token in the DML subset.
#[derive(Clone, Debug, PartialEq)]
pub enum TokenKind {
    /// Integer literal `3`.
    Int(i64),
    /// Floating-point literal `3.0`, `.5`, `1e-3`.
    Double(f64),
    /// String literal, escapes already resolved.
    Str(String),
    /// Identifier; may contain dots (`as.scalar`) and one `::` after a namespace
    /// (`affine::forward`). Type names, `in`, `return` are plain
    /// identifiers that the parser interprets by position.
    Ident(String),
    /// `$name` or `$1`, without the dollar.
    CmdArg(String),
    True,
    False,
    If,
    Else,
    For,
    Parfor,
    While,
    Function,
    Plus,
    Minus,
    Star,
    Slash,
    Caret,
    /// `%*%`
    MatMul,
    /// `%%`
    Mod,
    /// `%/%`
    IntDiv,
    EqEq,
    NotEq,
    Lt,
    Le,
    Gt,
    Ge,
    Not,
    /// `&` or `&&` (DML evaluates both the same way).
    And,
    /// `|` or `||`.
    Or,
    /// `=`
    Assign,
    /// `<-`
    Arrow,
    /// `+=`, `-=`, `*=`, `/=`: `x op= e` is `x = x op e`.
    CompoundAssign(CompoundOp),
    LParen,
    RParen,
    LBracket,
    RBracket,
    LBrace,
    RBrace,
    Comma,
    Semi,
    Colon,
    /// A line break outside parentheses and brackets.
    Newline,
    /// End of input; its span is empty and sits right after the last real token.
    Eof,
}

impl fmt::Display for TokenKind {
    /// Describes the token for error messages: "`+`", "identifier `x`", "end of input".
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sym = match self {
            TokenKind::Int(v) => return write!(f, "number `{v}`"),
            TokenKind::Double(v) => return write!(f, "number `{v:?}`"),
            TokenKind::Str(_) => return f.write_str("a string"),
            TokenKind::Ident(name) => return write!(f, "identifier `{name}`"),
            TokenKind::CmdArg(name) => return write!(f, "command-line argument `${name}`"),
            TokenKind::Newline => return f.write_str("a newline"),
            TokenKind::Eof => return f.write_str("end of input"),
            TokenKind::True => "TRUE",
            TokenKind::False => "FALSE",
            TokenKind::If => "if",
            TokenKind::Else => "else",
            TokenKind::For => "for",
            TokenKind::Parfor => "parfor",
            TokenKind::While => "while",
            TokenKind::Function => "function",
            TokenKind::Plus => "+",
            TokenKind::Minus => "-",
            TokenKind::Star => "*",
            TokenKind::Slash => "/",
            TokenKind::Caret => "^",
            TokenKind::MatMul => "%*%",
            TokenKind::Mod => "%%",
            TokenKind::IntDiv => "%/%",
            TokenKind::EqEq => "==",
            TokenKind::NotEq => "!=",
            TokenKind::Lt => "<",
            TokenKind::Le => "<=",
            TokenKind::Gt => ">",
            TokenKind::Ge => ">=",
            TokenKind::Not => "!",
            TokenKind::And => "&",
            TokenKind::Or => "|",
            TokenKind::Assign => "=",
            TokenKind::Arrow => "<-",
            TokenKind::CompoundAssign(op) => op.symbol(),
            TokenKind::LParen => "(",
            TokenKind::RParen => ")",
            TokenKind::LBracket => "[",
            TokenKind::RBracket => "]",
            TokenKind::LBrace => "{",
            TokenKind::RBrace => "}",
            TokenKind::Comma => ",",
            TokenKind::Semi => ";",
            TokenKind::Colon => ":",
        };
        write!(f, "`{sym}`")
    }
}

/// Splits `source` into tokens, or reports the first lexical error (unknown character,
/// unterminated string or comment, malformed number, unknown escape).
pub fn tokenize(source: &str) -> Result<Vec<Token>, Diagnostic> {
    Lexer::new(source).run()
}

fn is_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_'
}

fn is_ident_continue(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'.'
}

struct Lexer<'s> {
    src: &'s str,
    bytes: &'s [u8],
    pos: usize,
    tokens: Vec<Token>,
    /// Open `(`, `[`, `{` delimiters; newlines are dropped while the innermost is `(`/`[`.
    open: Vec<u8>,
}

impl<'s> Lexer<'s> {
    fn new(src: &'s str) -> Self {
        Lexer {
            src,
            bytes: src.as_bytes(),
            pos: 0,
            tokens: Vec::new(),
            open: Vec::new(),
        }
    }

    fn peek_at(&self, off: usize) -> Option<u8> {
        self.bytes.get(self.pos + off).copied()
    }

    fn push(&mut self, kind: TokenKind, start: usize) {
        self.tokens.push(Token {
            kind,
            span: Span::new(start, self.pos),
        });
    }

    fn run(mut self) -> Result<Vec<Token>, Diagnostic> {
        while let Some(c) = self.peek_at(0) {
            let start = self.pos;
            match c {
                b' ' | b'\t' | b'\r' | b'\x0c' => self.pos += 1,
                b'\n' => {
                    self.pos += 1;
                    if !matches!(self.open.last(), Some(b'(' | b'[')) {
                        self.push(TokenKind::Newline, start);
                    }
                }
                b'#' => {
                    while !matches!(self.peek_at(0), None | Some(b'\n')) {
                        self.pos += 1;
                    }
                }
                b'/' if self.peek_at(1) == Some(b'*') => self.block_comment()?,
                b'0'..=b'9' => self.number()?,
                b'.' if self.peek_at(1).is_some_and(|d| d.is_ascii_digit()) => self.number()?,
                // A `.` that starts neither a number nor a name: SystemDS's lexer drops it
                // with a warning (sliceLineExtract.dml ends a statement with one).
                b'.' => self.pos += 1,
                b'"' | b'\'' => self.string(c)?,
                b'$' => self.cmd_arg()?,
                c if is_ident_start(c) => self.word(),
                _ => self.operator()?,
            }
        }
        // Point "found end of input" errors just after the last real token, not at a
        // trailing blank line.
        let end = self
            .tokens
            .iter()
            .rev()
            .find(|t| t.kind != TokenKind::Newline)
            .map_or(0, |t| t.span.end);
        self.tokens.push(Token {
            kind: TokenKind::Eof,
            span: Span::new(end, end),
        });
        Ok(self.tokens)
    }

    fn block_comment(&mut self) -> Result<(), Diagnostic> {
        let start = self.pos;
        match self.src[start + 2..].find("*/") {
            Some(rel) => {
                self.pos = start + 2 + rel + 2;
                Ok(())
            }
            None => Err(Diagnostic::new(
                "unterminated block comment: `/*` has no matching `*/`",
                Span::new(start, start + 2),
            )),
        }
    }

    fn digits(&mut self) -> usize {
        let from = self.pos;
        while self.peek_at(0).is_some_and(|c| c.is_ascii_digit()) {
            self.pos += 1;
        }
        self.pos - from
    }

    fn number(&mut self) -> Result<(), Diagnostic> {
        let start = self.pos;
        let mut is_double = false;
        self.digits();
        if self.peek_at(0) == Some(b'.') {
            is_double = true;
            self.pos += 1;
            self.digits();
        }
        if matches!(self.peek_at(0), Some(b'e' | b'E')) {
            is_double = true;
            self.pos += 1;
            if matches!(self.peek_at(0), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            if self.digits() == 0 {
                self.skip_word_chars();
                return Err(Diagnostic::new(
                    format!(
                        "malformed number `{}`: the exponent has no digits",
                        &self.src[start..self.pos]
                    ),
                    Span::new(start, self.pos),
                ));
            }
        }
        if self.peek_at(0).is_some_and(is_ident_continue) {
            self.skip_word_chars();
            return Err(Diagnostic::new(
                format!("malformed number `{}`", &self.src[start..self.pos]),
                Span::new(start, self.pos),
            ));
        }
        let text = &self.src[start..self.pos];
        let kind = if is_double {
            // Every text matched above is valid Rust float syntax.
            match text.parse::<f64>() {
                Ok(v) => TokenKind::Double(v),
                Err(_) => {
                    return Err(Diagnostic::new(
                        format!("malformed number `{text}`"),
                        Span::new(start, self.pos),
                    ))
                }
            }
        } else {
            match text.parse::<i64>() {
                Ok(v) => TokenKind::Int(v),
                Err(_) => {
                    return Err(Diagnostic::new(
                        format!("integer literal `{text}` does not fit in 64 bits"),
                        Span::new(start, self.pos),
                    ))
                }
            }
        };
        self.push(kind, start);
        Ok(())
    }

    /// Skips the rest of a run of letters, digits, `_` and `.` (to span a bad number whole).
    fn skip_word_chars(&mut self) {
        while self.peek_at(0).is_some_and(is_ident_continue) {
            self.pos += 1;
        }
    }

    /// A string literal; it may run over several lines, as in DML (the line breaks are
    /// part of the value).
    fn string(&mut self, quote: u8) -> Result<(), Diagnostic> {
        let start = self.pos;
        self.pos += 1;
        let mut value = String::new();
        loop {
            let rest = &self.src[self.pos..];
            let Some(ch) = rest.chars().next() else {
                return Err(self.unterminated_string(start));
            };
            match ch {
                '\\' => {
                    let esc_start = self.pos;
                    self.pos += 1;
                    let Some(e) = self.src[self.pos..].chars().next() else {
                        return Err(self.unterminated_string(start));
                    };
                    let resolved = match e {
                        '"' => '"',
                        '\'' => '\'',
                        '\\' => '\\',
                        'n' => '\n',
                        't' => '\t',
                        'r' => '\r',
                        'b' => '\u{8}',
                        'f' => '\u{c}',
                        other => {
                            return Err(Diagnostic::new(
                                format!(
                                "unknown escape sequence `\\{other}` (use `\\\\` for a backslash)"
                            ),
                                Span::new(esc_start, self.pos + other.len_utf8()),
                            ))
                        }
                    };
                    self.pos += e.len_utf8();
                    value.push(resolved);
                }
                c if c as u32 == quote as u32 => {
                    self.pos += 1;
                    self.push(TokenKind::Str(value), start);
                    return Ok(());
                }
                c => {
                    self.pos += c.len_utf8();
                    value.push(c);
                }
            }
        }
    }

    /// The error points from the opening quote to the end of its line.
    fn unterminated_string(&self, start: usize) -> Diagnostic {
        let line_end = self.src[start..]
            .find('\n')
            .map_or(self.src.len(), |p| start + p);
        Diagnostic::new(
            "unterminated string literal: missing closing quote before the end of the input",
            Span::new(start, line_end),
        )
    }

    fn cmd_arg(&mut self) -> Result<(), Diagnostic> {
        let start = self.pos;
        self.pos += 1;
        match self.peek_at(0) {
            Some(c) if is_ident_start(c) => {
                while self.peek_at(0).is_some_and(is_ident_continue) {
                    self.pos += 1;
                }
            }
            Some(c) if c.is_ascii_digit() => {
                self.digits();
                if self.peek_at(0).is_some_and(is_ident_continue) {
                    self.skip_word_chars();
                    return Err(Diagnostic::new(
                        format!(
                            "malformed command-line argument `{}`",
                            &self.src[start..self.pos]
                        ),
                        Span::new(start, self.pos),
                    ));
                }
            }
            _ => {
                return Err(Diagnostic::new(
                    "expected a name or a position after `$` (as in `$X` or `$1`)",
                    Span::new(start, start + 1),
                ))
            }
        }
        let name = self.src[start + 1..self.pos].to_string();
        self.push(TokenKind::CmdArg(name), start);
        Ok(())
    }

    fn word(&mut self) {
        let start = self.pos;
        while self.peek_at(0).is_some_and(is_ident_continue) {
            self.pos += 1;
        }
        // `ns::f`: a function in the namespace of a `source(...) as ns`.
        if self.peek_at(0) == Some(b':')
            && self.peek_at(1) == Some(b':')
            && self.peek_at(2).is_some_and(is_ident_start)
        {
            self.pos += 2;
            while self.peek_at(0).is_some_and(is_ident_continue) {
                self.pos += 1;
            }
        }
        let text = &self.src[start..self.pos];
        let kind = match text {
            "TRUE" => TokenKind::True,
            "FALSE" => TokenKind::False,
            "if" => TokenKind::If,
            "else" => TokenKind::Else,
            "for" => TokenKind::For,
            "parfor" => TokenKind::Parfor,
            "while" => TokenKind::While,
            "function" => TokenKind::Function,
            _ => TokenKind::Ident(text.to_string()),
        };
        self.push(kind, start);
    }

    fn operator(&mut self) -> Result<(), Diagnostic> {
        let start = self.pos;
        let c = self.bytes[self.pos];
        let next = self.peek_at(1);
        let (kind, len) = match (c, next) {
            (b'%', Some(b'*')) if self.peek_at(2) == Some(b'%') => (TokenKind::MatMul, 3),
            (b'%', Some(b'/')) if self.peek_at(2) == Some(b'%') => (TokenKind::IntDiv, 3),
            (b'%', Some(b'%')) => (TokenKind::Mod, 2),
            (b'%', _) => return Err(self.bad_percent()),
            (b'=', Some(b'=')) => (TokenKind::EqEq, 2),
            (b'!', Some(b'=')) => (TokenKind::NotEq, 2),
            (b'<', Some(b'=')) => (TokenKind::Le, 2),
            (b'<', Some(b'-')) => (TokenKind::Arrow, 2),
            (b'>', Some(b'=')) => (TokenKind::Ge, 2),
            (b'&', Some(b'&')) => (TokenKind::And, 2),
            (b'|', Some(b'|')) => (TokenKind::Or, 2),
            (b'+', Some(b'=')) => (TokenKind::CompoundAssign(CompoundOp::Add), 2),
            (b'-', Some(b'=')) => (TokenKind::CompoundAssign(CompoundOp::Sub), 2),
            (b'*', Some(b'=')) => (TokenKind::CompoundAssign(CompoundOp::Mul), 2),
            (b'/', Some(b'=')) => (TokenKind::CompoundAssign(CompoundOp::Div), 2),
            (b'+', _) => (TokenKind::Plus, 1),
            (b'-', _) => (TokenKind::Minus, 1),
            (b'*', _) => (TokenKind::Star, 1),
            (b'/', _) => (TokenKind::Slash, 1),
            (b'^', _) => (TokenKind::Caret, 1),
            (b'=', _) => (TokenKind::Assign, 1),
            (b'!', _) => (TokenKind::Not, 1),
            (b'<', _) => (TokenKind::Lt, 1),
            (b'>', _) => (TokenKind::Gt, 1),
            (b'&', _) => (TokenKind::And, 1),
            (b'|', _) => (TokenKind::Or, 1),
            (b'(', _) => (TokenKind::LParen, 1),
            (b')', _) => (TokenKind::RParen, 1),
            (b'[', _) => (TokenKind::LBracket, 1),
            (b']', _) => (TokenKind::RBracket, 1),
            (b'{', _) => (TokenKind::LBrace, 1),
            (b'}', _) => (TokenKind::RBrace, 1),
            (b',', _) => (TokenKind::Comma, 1),
            (b';', _) => (TokenKind::Semi, 1),
            (b':', _) => (TokenKind::Colon, 1),
            _ => {
                let ch = self.src[start..].chars().next().unwrap_or('?');
                return Err(Diagnostic::new(
                    format!("unknown character `{}`", ch.escape_debug()),
                    Span::new(start, start + ch.len_utf8()),
                ));
            }
        };
        self.pos += len;
        match kind {
            TokenKind::LParen => self.open.push(b'('),
            TokenKind::LBracket => self.open.push(b'['),
            TokenKind::LBrace => self.open.push(b'{'),
            TokenKind::RParen | TokenKind::RBracket | TokenKind::RBrace => {
                // Unbalanced closers are the parser's to report; here they only pop a match.
                let want = match kind {
                    TokenKind::RParen => b'(',
                    TokenKind::RBracket => b'[',
                    _ => b'{',
                };
                if self.open.last() == Some(&want) {
                    self.open.pop();
                }
            }
            _ => {}
        }
        self.push(kind, start);
        Ok(())
    }

    /// A `%` that does not start `%*%`, `%%` or `%/%`: name the operator if it looks like
    /// R's `%name%` family, which this subset does not have.
    fn bad_percent(&self) -> Diagnostic {
        let start = self.pos;
        let rest = &self.src[start + 1..];
        let word_len = rest
            .bytes()
            .take_while(|&b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.' || b == b'*')
            .count();
        if word_len > 0 && rest.as_bytes().get(word_len) == Some(&b'%') {
            let op = &self.src[start..start + word_len + 2];
            Diagnostic::new(
                format!("unsupported operator `{op}` (only `%*%`, `%%` and `%/%` exist)"),
                Span::new(start, start + word_len + 2),
            )
        } else {
            Diagnostic::new(
                "unexpected `%`: expected `%*%`, `%%` or `%/%`",
                Span::new(start, start + 1),
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> Vec<TokenKind> {
        tokenize(src).unwrap().into_iter().map(|t| t.kind).collect()
    }

    #[test]
    fn numbers() {
        use TokenKind::*;
        assert_eq!(
            kinds("3 3.0 .5 1e-3 1E6 2. 7e+2"),
            vec![
                Int(3),
                Double(3.0),
                Double(0.5),
                Double(1e-3),
                Double(1e6),
                Double(2.0),
                Double(700.0),
                Eof
            ]
        );
    }

    #[test]
    fn operators_and_words() {
        use TokenKind::*;
        assert_eq!(
            kinds("a.b<-x%*%y%%z%/%w<=!=&&||$X $1 TRUE if"),
            vec![
                Ident("a.b".into()),
                Arrow,
                Ident("x".into()),
                MatMul,
                Ident("y".into()),
                Mod,
                Ident("z".into()),
                IntDiv,
                Ident("w".into()),
                Le,
                NotEq,
                And,
                Or,
                CmdArg("X".into()),
                CmdArg("1".into()),
                True,
                If,
                Eof
            ]
        );
    }

    #[test]
    fn strings_and_escapes() {
        use TokenKind::*;
        assert_eq!(
            kinds(r#""a\"b\n" 'it\'s' "\\\t""#),
            vec![
                Str("a\"b\n".into()),
                Str("it's".into()),
                Str("\\\t".into()),
                Eof
            ]
        );
    }

    #[test]
    fn newlines_inside_parens_and_brackets_are_dropped() {
        use TokenKind::*;
        assert_eq!(
            kinds("f(a,\nb)\n{\nx[1,\n2]\n}"),
            vec![
                Ident("f".into()),
                LParen,
                Ident("a".into()),
                Comma,
                Ident("b".into()),
                RParen,
                Newline,
                LBrace,
                Newline,
                Ident("x".into()),
                LBracket,
                Int(1),
                Comma,
                Int(2),
                RBracket,
                Newline,
                RBrace,
                Eof
            ]
        );
    }

    #[test]
    fn comments() {
        use TokenKind::*;
        assert_eq!(
            kinds("x # c\n/* multi\nline */ y"),
            vec![Ident("x".into()), Newline, Ident("y".into()), Eof]
        );
    }

    #[test]
    fn errors() {
        let err = |s: &str| tokenize(s).unwrap_err();
        assert_eq!(err("x = 1e").span, Span::new(4, 6));
        assert!(err("x = 12ab").message.contains("malformed number `12ab`"));
        assert!(err("\"abc\nd").message.contains("unterminated string"));
        assert!(err("/* x").message.contains("unterminated block comment"));
        assert!(err("a @ b").message.contains("unknown character `@`"));
        assert!(err("a %o% b")
            .message
            .contains("unsupported operator `%o%`"));
        assert!(err("\"\\q\"").message.contains("unknown escape"));
        assert!(err("99999999999999999999").message.contains("64 bits"));
        assert_eq!(err("é").span, Span::new(0, 2));
    }
}
