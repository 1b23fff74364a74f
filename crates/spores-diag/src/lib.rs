//! Source positions and error rendering with line, column and a caret snippet, shared by
//! the DML front end (`spores-lang`, which re-exports this crate as `diag`) and the tensor
//! notation front end (`spores-tensor`). It sits at the bottom of the pipeline: it depends
//! on nothing.

use std::fmt;
use std::sync::Arc;

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

/// A source file as errors show it: the name to print and the text the spans index.
#[derive(Debug, PartialEq, Eq)]
pub struct SourceFile {
    pub name: String,
    pub text: String,
}

/// An error tied to a place in a source file.
#[derive(Clone, Debug)]
pub struct Diagnostic {
    pub message: String,
    pub span: Span,
    /// The file `span` points into, when it is not the script being run (a builtin or a
    /// sourced file); `None` means the caller's own file.
    pub file: Option<Arc<SourceFile>>,
    /// Found before the code ran: a syntax error, or a construct that is not supported.
    /// Such errors end `spores run` with exit code 2 even when found mid-run (a builtin's
    /// file is parsed when it is first called).
    pub static_error: bool,
    /// The calls that led into another file, innermost first: each call site's file
    /// (`None` for the caller's own) and span. Rendered as `called from` lines.
    pub called_from: Vec<(Option<Arc<SourceFile>>, Span)>,
}

/// Two diagnostics are the same error when they say the same thing at the same place.
impl PartialEq for Diagnostic {
    fn eq(&self, other: &Self) -> bool {
        self.message == other.message && self.span == other.span
    }
}

impl Diagnostic {
    pub fn new(message: impl Into<String>, span: Span) -> Self {
        Diagnostic {
            message: message.into(),
            span,
            file: None,
            static_error: false,
            called_from: Vec::new(),
        }
    }

    /// An error about a construct that spores does not support (exit code 2).
    pub fn unsupported(message: impl Into<String>, span: Span) -> Self {
        Diagnostic {
            static_error: true,
            ..Diagnostic::new(message, span)
        }
    }

    /// Ties the error to `file` unless it already names one (errors keep the innermost
    /// file they were raised in as they travel out of nested calls).
    pub fn in_file(mut self, file: &Arc<SourceFile>) -> Self {
        if self.file.is_none() {
            self.file = Some(file.clone());
        }
        self
    }

    /// Renders against the error's own file when it has one, else against `file`/`source`,
    /// followed by one `called from FILE:LINE:COL` line per call that led there.
    pub fn render_in(&self, file: &str, source: &str) -> String {
        let mut out = match &self.file {
            Some(f) => self.render(&f.name, &f.text),
            None => self.render(file, source),
        };
        for (site_file, span) in &self.called_from {
            let (name, text) = match site_file {
                Some(f) => (f.name.as_str(), f.text.as_str()),
                None => (file, source),
            };
            let (line, col) = line_col(text, span.start);
            out += &format!("  called from {name}:{line}:{col}\n");
        }
        out
    }

    /// Renders as `file:line:col: error: message` followed by the source line and a caret
    /// line under the offending text:
    ///
    /// ```
    /// use spores_diag::{Diagnostic, Span};
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
