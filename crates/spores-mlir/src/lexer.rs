//! Tokens of MLIR's textual form.
//!
//! The lexer is a cursor the parser drives token by token, because a few places need the raw
//! characters instead of tokens: shapes like `4x?xf32` (where `x` separates dimensions inside
//! what would otherwise lex as identifiers), and dialect bodies `<...>` that are kept verbatim.
//! It keeps no lookahead buffer, so switching between tokens and raw text is just moving `pos`.

/// One token. Identifier payloads exclude their sigil (`%`, `^`, `#`, `!`, `@`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tok<'a> {
    /// End of input.
    Eof,
    /// `[a-zA-Z_][a-zA-Z0-9_$.]*`: keywords, type names, attribute names.
    BareId(&'a str),
    /// `%name`.
    Percent(&'a str),
    /// `^name`.
    Caret(&'a str),
    /// `#name` (also `#1`, the result-number suffix of `%r#1`).
    Hash(&'a str),
    /// `!name`.
    Bang(&'a str),
    /// `@name`; a quoted symbol `@"a b"` is [`Tok::AtStr`].
    At(&'a str),
    /// `@"..."`, raw text including the quotes.
    AtStr(&'a str),
    /// An unsigned integer literal, decimal or `0x` hex, as written.
    Int(&'a str),
    /// An unsigned float literal `1.5e-3`, as written.
    Float(&'a str),
    /// A string literal, raw text including the quotes.
    Str(&'a str),
    /// `->`.
    Arrow,
    /// `::`.
    ColonColon,
    /// `{-#`.
    FileMetaOpen,
    /// A single punctuation character: `( ) [ ] { } < > , : = - ? * +`.
    Punct(char),
}

/// A position in the source, 1-based.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pos {
    /// Line number.
    pub line: usize,
    /// Column number (in bytes).
    pub col: usize,
}

/// A lexing failure at a byte offset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LexError {
    /// Byte offset.
    pub offset: usize,
    /// What went wrong.
    pub message: String,
}

/// The cursor over the source text.
pub struct Lexer<'a> {
    src: &'a str,
    /// Current byte offset; always at a char boundary after whitespace skipping, since every
    /// token boundary is an ASCII character or the end.
    pub pos: usize,
}

fn is_bare_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_'
}

fn is_bare_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c == b'.'
}

fn is_suffix_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$' | b'.' | b'-')
}

impl<'a> Lexer<'a> {
    /// A lexer at the start of `src`.
    pub fn new(src: &'a str) -> Self {
        Lexer { src, pos: 0 }
    }

    /// The source text.
    pub fn src(&self) -> &'a str {
        self.src
    }

    fn byte(&self, i: usize) -> Option<u8> {
        self.src.as_bytes().get(i).copied()
    }

    /// The byte at the cursor, without skipping whitespace.
    pub fn peek_byte(&self) -> Option<u8> {
        self.byte(self.pos)
    }

    /// Line and column of a byte offset.
    pub fn position(&self, offset: usize) -> Pos {
        let upto = &self.src.as_bytes()[..offset.min(self.src.len())];
        let line = upto.iter().filter(|&&b| b == b'\n').count() + 1;
        let line_start = upto.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        Pos {
            line,
            col: upto.len() - line_start + 1,
        }
    }

    /// Skips whitespace and `//` comments.
    pub fn skip_trivia(&mut self) {
        loop {
            match self.peek_byte() {
                Some(b' ' | b'\t' | b'\n' | b'\r') => self.pos += 1,
                Some(b'/') if self.byte(self.pos + 1) == Some(b'/') => {
                    while let Some(b) = self.peek_byte() {
                        if b == b'\n' {
                            break;
                        }
                        self.pos += 1;
                    }
                }
                _ => return,
            }
        }
    }

    fn slice(&self, a: usize, b: usize) -> Result<&'a str, LexError> {
        self.src.get(a..b).ok_or_else(|| LexError {
            offset: a,
            message: "invalid character".into(),
        })
    }

    fn err<T>(&self, offset: usize, message: impl Into<String>) -> Result<T, LexError> {
        Err(LexError {
            offset,
            message: message.into(),
        })
    }

    /// The next token and the offset it starts at, without consuming it.
    pub fn peek(&mut self) -> Result<(Tok<'a>, usize), LexError> {
        let save = self.pos;
        let r = self.next_token();
        self.pos = save;
        r
    }

    /// Consumes and returns the next token with its start offset.
    pub fn next_token(&mut self) -> Result<(Tok<'a>, usize), LexError> {
        self.skip_trivia();
        let start = self.pos;
        let Some(c) = self.peek_byte() else {
            return Ok((Tok::Eof, start));
        };
        let tok = match c {
            b'%' | b'^' => {
                self.pos += 1;
                let id = self.suffix_id(start)?;
                if c == b'%' {
                    Tok::Percent(id)
                } else {
                    Tok::Caret(id)
                }
            }
            b'#' => {
                self.pos += 1;
                Tok::Hash(self.bare_or_digits(start)?)
            }
            b'!' => {
                self.pos += 1;
                Tok::Bang(self.bare_or_digits(start)?)
            }
            b'@' => {
                self.pos += 1;
                if self.peek_byte() == Some(b'"') {
                    let s = self.string_lit()?;
                    Tok::AtStr(s)
                } else {
                    Tok::At(self.suffix_id(start)?)
                }
            }
            b'"' => Tok::Str(self.string_lit()?),
            b'0'..=b'9' => self.number()?,
            b'-' if self.byte(start + 1) == Some(b'>') => {
                self.pos += 2;
                Tok::Arrow
            }
            b':' if self.byte(start + 1) == Some(b':') => {
                self.pos += 2;
                Tok::ColonColon
            }
            b'{' if self.byte(start + 1) == Some(b'-') && self.byte(start + 2) == Some(b'#') => {
                self.pos += 3;
                Tok::FileMetaOpen
            }
            c if is_bare_start(c) => {
                while self.peek_byte().is_some_and(is_bare_char) {
                    self.pos += 1;
                }
                Tok::BareId(self.slice(start, self.pos)?)
            }
            b'(' | b')' | b'[' | b']' | b'{' | b'}' | b'<' | b'>' | b',' | b':' | b'=' | b'-'
            | b'?' | b'*' | b'+' => {
                self.pos += 1;
                Tok::Punct(c as char)
            }
            _ => {
                return self.err(
                    start,
                    format!("unexpected character {:?}", self.char_at(start)),
                )
            }
        };
        Ok((tok, start))
    }

    fn char_at(&self, offset: usize) -> char {
        self.src
            .get(offset..)
            .and_then(|s| s.chars().next())
            .unwrap_or('\u{fffd}')
    }

    fn suffix_id(&mut self, start: usize) -> Result<&'a str, LexError> {
        let s = self.pos;
        if self.peek_byte().is_some_and(|b| b.is_ascii_digit()) {
            while self.peek_byte().is_some_and(|b| b.is_ascii_digit()) {
                self.pos += 1;
            }
        } else {
            while self.peek_byte().is_some_and(is_suffix_char) {
                self.pos += 1;
            }
        }
        if self.pos == s {
            return self.err(start, "expected an identifier after the sigil");
        }
        self.slice(s, self.pos)
    }

    fn bare_or_digits(&mut self, start: usize) -> Result<&'a str, LexError> {
        let s = self.pos;
        match self.peek_byte() {
            Some(b) if b.is_ascii_digit() => {
                while self.peek_byte().is_some_and(|b| b.is_ascii_digit()) {
                    self.pos += 1;
                }
            }
            Some(b) if is_bare_start(b) => {
                while self.peek_byte().is_some_and(is_bare_char) {
                    self.pos += 1;
                }
            }
            _ => return self.err(start, "expected an identifier after the sigil"),
        }
        self.slice(s, self.pos)
    }

    /// Lexes a string literal at the cursor, returning its raw text with quotes.
    fn string_lit(&mut self) -> Result<&'a str, LexError> {
        let start = self.pos;
        self.pos += 1;
        loop {
            match self.peek_byte() {
                None | Some(b'\n') => return self.err(start, "unterminated string literal"),
                Some(b'"') => {
                    self.pos += 1;
                    return self.slice(start, self.pos);
                }
                Some(b'\\') => self.pos += 2,
                Some(_) => self.pos += 1,
            }
        }
    }

    fn number(&mut self) -> Result<Tok<'a>, LexError> {
        let start = self.pos;
        if self.peek_byte() == Some(b'0')
            && self.byte(start + 1) == Some(b'x')
            && self.byte(start + 2).is_some_and(|b| b.is_ascii_hexdigit())
        {
            self.pos += 2;
            while self.peek_byte().is_some_and(|b| b.is_ascii_hexdigit()) {
                self.pos += 1;
            }
            return Ok(Tok::Int(self.slice(start, self.pos)?));
        }
        while self.peek_byte().is_some_and(|b| b.is_ascii_digit()) {
            self.pos += 1;
        }
        if self.peek_byte() != Some(b'.') {
            return Ok(Tok::Int(self.slice(start, self.pos)?));
        }
        self.pos += 1;
        while self.peek_byte().is_some_and(|b| b.is_ascii_digit()) {
            self.pos += 1;
        }
        if matches!(self.peek_byte(), Some(b'e' | b'E')) {
            let save = self.pos;
            self.pos += 1;
            if matches!(self.peek_byte(), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            if self.peek_byte().is_some_and(|b| b.is_ascii_digit()) {
                while self.peek_byte().is_some_and(|b| b.is_ascii_digit()) {
                    self.pos += 1;
                }
            } else {
                self.pos = save;
            }
        }
        Ok(Tok::Float(self.slice(start, self.pos)?))
    }

    /// Reads a decimal integer at the cursor (no whitespace skipping), for shape dimensions,
    /// where the general number lexer would read `0x` of `0xi32` as a hex prefix.
    pub fn raw_decimal(&mut self) -> Option<&'a str> {
        let s = self.pos;
        while self.peek_byte().is_some_and(|b| b.is_ascii_digit()) {
            self.pos += 1;
        }
        if self.pos == s {
            None
        } else {
            self.src.get(s..self.pos)
        }
    }

    /// Consumes `c` if it is the byte at the cursor (no whitespace skipping).
    pub fn raw_eat(&mut self, c: u8) -> bool {
        if self.peek_byte() == Some(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    /// With the cursor on an opening `open` (`<` or `(`), consumes up to the matching closer and
    /// returns the text in between. Nested `<>`, `()`, `[]`, `{}` and string literals are
    /// skipped; the `>` of `->` does not close anything (as in `affine_map<(d0) -> (d0)>`), and
    /// neither do the comparisons `<=` and `>=`.
    pub fn balanced(&mut self) -> Result<&'a str, LexError> {
        let start = self.pos;
        let mut stack: Vec<u8> = Vec::new();
        loop {
            let Some(b) = self.peek_byte() else {
                return self.err(start, "unbalanced brackets: reached the end of the input");
            };
            let next = self.byte(self.pos + 1);
            match b {
                // `<=` and `>=` (affine constraints) are comparisons, not brackets.
                b'<' | b'>' if next == Some(b'=') => self.pos += 2,
                b'<' | b'(' | b'[' | b'{' => {
                    stack.push(match b {
                        b'<' => b'>',
                        b'(' => b')',
                        b'[' => b']',
                        _ => b'}',
                    });
                    self.pos += 1;
                }
                b'>' if self.pos > start && self.byte(self.pos - 1) == Some(b'-') => self.pos += 1,
                b'>' | b')' | b']' | b'}' => {
                    if stack.pop() != Some(b) {
                        return self.err(self.pos, format!("unbalanced {:?}", b as char));
                    }
                    self.pos += 1;
                    if stack.is_empty() {
                        return self.slice(start + 1, self.pos - 1);
                    }
                }
                b'"' => {
                    self.string_lit()?;
                }
                _ => self.pos += 1,
            }
        }
    }

    /// With the cursor just after `{-#`, consumes up to `#-}` and returns the text in between,
    /// skipping string literals (resource blobs are strings).
    pub fn file_metadata(&mut self) -> Result<&'a str, LexError> {
        let start = self.pos;
        loop {
            match self.peek_byte() {
                None => return self.err(start, "unterminated {-# ... #-} section"),
                Some(b'"') => {
                    self.string_lit()?;
                }
                Some(b'#')
                    if self.byte(self.pos + 1) == Some(b'-')
                        && self.byte(self.pos + 2) == Some(b'}') =>
                {
                    let body = self.slice(start, self.pos)?;
                    self.pos += 3;
                    return Ok(body);
                }
                Some(_) => self.pos += 1,
            }
        }
    }
}

/// Why a string literal could not be decoded (see [`decode_string`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum StringLitError {
    /// Not enclosed in double quotes.
    #[error("malformed string literal")]
    Malformed,
    #[error("string ends in a backslash")]
    TrailingBackslash,
    #[error("unknown escape sequence in string")]
    UnknownEscape,
}

/// Decodes the raw text of a string literal (with quotes) into bytes: `\\`, `\"`, `\n`, `\t`
/// and two-digit hex escapes `\XX`.
pub fn decode_string(raw: &str) -> Result<Vec<u8>, StringLitError> {
    let inner = raw
        .strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .ok_or(StringLitError::Malformed)?;
    let b = inner.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'\\' {
            out.push(b[i]);
            i += 1;
            continue;
        }
        let Some(&e) = b.get(i + 1) else {
            return Err(StringLitError::TrailingBackslash);
        };
        match e {
            b'\\' | b'"' => {
                out.push(e);
                i += 2;
            }
            b'n' => {
                out.push(b'\n');
                i += 2;
            }
            b't' => {
                out.push(b'\t');
                i += 2;
            }
            _ => {
                let hex = inner
                    .get(i + 1..i + 3)
                    .filter(|h| h.bytes().all(|c| c.is_ascii_hexdigit()))
                    .and_then(|h| u8::from_str_radix(h, 16).ok())
                    .ok_or(StringLitError::UnknownEscape)?;
                out.push(hex);
                i += 3;
            }
        }
    }
    Ok(out)
}
