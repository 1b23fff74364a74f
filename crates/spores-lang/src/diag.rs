//! Source positions and error rendering with line, column and a caret snippet.

use std::fmt;

/// A byte range `start..end` in the source text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

impl Span {
    pub fn new(start: usize, end: usize) -> Self {
        Span { start, end }
    }

    /// The smallest span covering both.
    pub fn to(self, other: Span) -> Span {
        Span::new(self.start.min(other.start), self.end.max(other.end))
    }
}

/// 1-based line and column (in characters) of a byte offset.
pub fn line_col(source: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(source.len());
    let before = &source[..floor_char_boundary(source, offset)];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |p| p + 1);
    let col = before[line_start..].chars().count() + 1;
    (line, col)
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// An error tied to a place in a source file.
#[derive(Clone, Debug, PartialEq)]
pub struct Diagnostic {
    pub message: String,
    pub span: Span,
}

impl Diagnostic {
    pub fn new(message: impl Into<String>, span: Span) -> Self {
        Diagnostic {
            message: message.into(),
            span,
        }
    }

    /// Renders as `file:line:col: error: message` followed by the source line and a caret
    /// line under the offending text:
    ///
    /// ```
    /// use spores_lang::diag::{Diagnostic, Span};
    /// let src = "x = 1\ny = x +* 2\n";
    /// let d = Diagnostic::new("unexpected `*`", Span::new(12, 13));
    /// assert_eq!(
    ///     d.render("a.dml", src),
    ///     "a.dml:2:7: error: unexpected `*`\n  |\n2 | y = x +* 2\n  |       ^\n"
    /// );
    /// ```
    pub fn render(&self, file: &str, source: &str) -> String {
        let (line, col) = line_col(source, self.span.start);
        let line_text = source.lines().nth(line - 1).unwrap_or("");
        let (end_line, end_col) = line_col(source, self.span.end.max(self.span.start + 1));
        let width = if end_line == line {
            end_col.saturating_sub(col).max(1)
        } else {
            line_text.chars().count().saturating_sub(col - 1).max(1)
        };
        let gutter = line.to_string().len();
        let pad = " ".repeat(gutter);
        format!(
            "{file}:{line}:{col}: error: {msg}\n{pad} |\n{line} | {line_text}\n{pad} | {spaces}{carets}\n",
            msg = self.message,
            spaces = " ".repeat(col - 1),
            carets = "^".repeat(width),
        )
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Diagnostic {}
