//! Tokens of the tensor program syntax, each with its byte span.

use super::{ParseError, Span};

#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    Ident(String),
    Number(f64),
    LBracket,
    RBracket,
    LParen,
    RParen,
    Comma,
    Assign,
    Plus,
    Minus,
    Star,
    Slash,
    Percent,
    Caret,
    Lt,
    Le,
    Gt,
    Ge,
    EqEq,
    Ne,
    OrOr,
    AndAnd,
    Bang,
    /// End of a statement: a newline or `;`.
    Newline,
    Eof,
}

impl Tok {
    /// How the token is quoted in error messages.
    pub fn describe(&self) -> String {
        match self {
            Tok::Ident(s) => format!("`{s}`"),
            Tok::Number(v) => format!("number `{v}`"),
            Tok::Newline => "end of line".to_string(),
            Tok::Eof => "end of file".to_string(),
            other => format!("`{}`", other.text()),
        }
    }

    fn text(&self) -> &'static str {
        match self {
            Tok::LBracket => "[",
            Tok::RBracket => "]",
            Tok::LParen => "(",
            Tok::RParen => ")",
            Tok::Comma => ",",
            Tok::Assign => "=",
            Tok::Plus => "+",
            Tok::Minus => "-",
            Tok::Star => "*",
            Tok::Slash => "/",
            Tok::Percent => "%",
            Tok::Caret => "^",
            Tok::Lt => "<",
            Tok::Le => "<=",
            Tok::Gt => ">",
            Tok::Ge => ">=",
            Tok::EqEq => "==",
            Tok::Ne => "!=",
            Tok::OrOr => "||",
            Tok::AndAnd => "&&",
            Tok::Bang => "!",
            _ => "",
        }
    }
}

/// Splits `src` into tokens. `#` starts a comment to the end of the line. Newlines inside
/// brackets or parentheses do not end a statement, so long expressions may wrap.
pub fn lex(src: &str) -> Result<Vec<(Tok, Span)>, ParseError> {
    let bytes = src.as_bytes();
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        let start = i;
        match c {
            b' ' | b'\t' | b'\r' => i += 1,
            b'#' => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'\n' | b';' => {
                if depth == 0 {
                    out.push((Tok::Newline, Span::new(i, i + 1)));
                }
                i += 1;
            }
            b'0'..=b'9' | b'.' => {
                while i < bytes.len() && (bytes[i].is_ascii_digit() || bytes[i] == b'.') {
                    i += 1;
                }
                if i < bytes.len() && (bytes[i] == b'e' || bytes[i] == b'E') {
                    let mut j = i + 1;
                    if j < bytes.len() && (bytes[j] == b'+' || bytes[j] == b'-') {
                        j += 1;
                    }
                    if j < bytes.len() && bytes[j].is_ascii_digit() {
                        i = j;
                        while i < bytes.len() && bytes[i].is_ascii_digit() {
                            i += 1;
                        }
                    }
                }
                let text = &src[start..i];
                let v: f64 = text.parse().map_err(|_| {
                    ParseError::new(format!("malformed number `{text}`"), Span::new(start, i))
                })?;
                out.push((Tok::Number(v), Span::new(start, i)));
            }
            c if c.is_ascii_alphabetic() || c == b'_' => {
                while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                    i += 1;
                }
                out.push((Tok::Ident(src[start..i].to_string()), Span::new(start, i)));
            }
            _ => {
                let two = src.get(i..i + 2).unwrap_or("");
                let (tok, len) = match two {
                    "<=" => (Tok::Le, 2),
                    ">=" => (Tok::Ge, 2),
                    "==" => (Tok::EqEq, 2),
                    "!=" => (Tok::Ne, 2),
                    "||" => (Tok::OrOr, 2),
                    "&&" => (Tok::AndAnd, 2),
                    _ => (
                        match c {
                            b'[' => Tok::LBracket,
                            b']' => Tok::RBracket,
                            b'(' => Tok::LParen,
                            b')' => Tok::RParen,
                            b',' => Tok::Comma,
                            b'=' => Tok::Assign,
                            b'+' => Tok::Plus,
                            b'-' => Tok::Minus,
                            b'*' => Tok::Star,
                            b'/' => Tok::Slash,
                            b'%' => Tok::Percent,
                            b'^' => Tok::Caret,
                            b'<' => Tok::Lt,
                            b'>' => Tok::Gt,
                            b'!' => Tok::Bang,
                            _ => {
                                let ch = src[i..].chars().next().unwrap_or('?');
                                return Err(ParseError::new(
                                    format!("unexpected character `{ch}`"),
                                    Span::new(i, i + ch.len_utf8()),
                                ));
                            }
                        },
                        1,
                    ),
                };
                match tok {
                    Tok::LBracket | Tok::LParen => depth += 1,
                    Tok::RBracket | Tok::RParen => depth = depth.saturating_sub(1),
                    _ => {}
                }
                out.push((tok, Span::new(i, i + len)));
                i += len;
            }
        }
    }
    out.push((Tok::Eof, Span::new(src.len(), src.len())));
    Ok(out)
}
