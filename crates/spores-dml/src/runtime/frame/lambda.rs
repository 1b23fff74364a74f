//! `map(F, "x -> ...")`: the Java lambda SystemDS compiles for each cell, read and
//! evaluated here for the forms SystemDS's own scripts write: a chain of `String` methods
//! on the cell (`x.replaceAll("[.]", "").toLowerCase()`, `x.length()`, `s.equals("a")`,
//! `x.substring(0, 3)`, ...), `condition ? a : b`, `!`, `&`, `|` and parentheses,
//! SystemDS's `UtilFunctions.splitRecodeEntry(s)[k]`, `UtilFunctions.getAsciiAtIdx(s, i)`,
//! `UtilFunctions.getWordErrorRate(r, h)` and `PorterStemmer.stem(s)`, and the
//! conversions `Integer.valueOf`, `Integer.parseInt`, `Double.parseDouble` and
//! `String.valueOf`. A row-wise lambda (`margin=1`) takes the row as a `String[]`
//! (`x[0]`) and returns one (`new String[]{a, b}`). Each result is written as Java's
//! `toString` writes it, so the mapped frame is all strings, as in SystemDS. A lambda
//! outside these forms is an error
//! naming what is not understood.

use regex::Regex;

use super::FrameError;
use crate::number::format_double;

/// A value inside a lambda.
#[derive(Clone, Debug, PartialEq)]
enum JavaValue {
    Str(String),
    Int(i64),
    Double(f64),
    Bool(bool),
    Strings(Vec<String>),
}

impl JavaValue {
    fn text(self) -> Result<String, FrameError> {
        Ok(match self {
            JavaValue::Str(s) => s,
            JavaValue::Int(i) => i.to_string(),
            JavaValue::Double(d) => format_double(d),
            JavaValue::Bool(b) => b.to_string(),
            JavaValue::Strings(_) => {
                return Err(FrameError::Lambda("a lambda's result is an array".into()))
            }
        })
    }

    fn string(&self, what: &str) -> Result<&str, FrameError> {
        match self {
            JavaValue::Str(s) => Ok(s),
            other => Err(FrameError::Lambda(format!(
                "{what} needs a string, got {other:?}"
            ))),
        }
    }

    fn int(&self, what: &str) -> Result<i64, FrameError> {
        match self {
            JavaValue::Int(i) => Ok(*i),
            other => Err(FrameError::Lambda(format!(
                "{what} needs an int, got {other:?}"
            ))),
        }
    }
}

/// A parsed lambda body.
#[derive(Clone, Debug)]
enum Expr {
    Param,
    Str(String),
    Int(i64),
    /// `target.name(args)`
    Method(Box<Expr>, String, Vec<Expr>),
    /// `Class.name(args)`
    Static(String, Vec<Expr>),
    /// `target[k]`
    Element(Box<Expr>, Box<Expr>),
    /// `condition ? then : otherwise`
    Choose(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `new String[]{a, b, ...}`
    Array(Vec<Expr>),
    /// `!a`
    Not(Box<Expr>),
    /// `a & b` or `a && b` (`true` for `And(true)`), `a | b` or `a || b`
    Logical(bool, Box<Expr>, Box<Expr>),
}

/// A compiled `x -> body`, applied with [`Lambda::apply`].
pub struct Lambda {
    body: Expr,
}

/// Whether `text` is `(x, y) -> UtilFunctions.jaccardSim(x, y)` (any two names), the
/// two-parameter lambda SystemDS's `mdedup` passes to `map`: SystemDS then maps every
/// pair of a column's cells, not each cell ([`jaccard_pairs`]).
pub fn is_pairwise_jaccard(text: &str) -> bool {
    let Some((params, body)) = text.split_once("->") else {
        return false;
    };
    let params: Vec<&str> = params
        .trim()
        .trim_start_matches('(')
        .trim_end_matches(')')
        .split(',')
        .map(str::trim)
        .collect();
    let [x, y] = params[..] else {
        return false;
    };
    let body: String = body.chars().filter(|c| !c.is_whitespace()).collect();
    body == format!("UtilFunctions.jaccardSim({x},{y})")
}

/// SystemDS's `UtilFunctions.jaccardSim`: the Jaccard similarity of the sets of UTF-16
/// characters of two strings (an empty string counts as one empty element, as Java's
/// `split("(?!^)")` leaves it), computed as Java computes it.
fn jaccard_similarity(x: &str, y: &str) -> f64 {
    let chars = |s: &str| -> std::collections::HashSet<Vec<u16>> {
        if s.is_empty() {
            return std::iter::once(Vec::new()).collect();
        }
        s.encode_utf16().map(|u| vec![u]).collect()
    };
    let (a, b) = (chars(x), chars(y));
    let both = a.intersection(&b).count();
    1.0 / (a.len() + b.len() - both) as f64 * both as f64
}

/// `map(F, "(x, y) -> UtilFunctions.jaccardSim(x, y)")` as SystemDS's `FrameBlock.mapDist`
/// evaluates it: an `n x n` STRING frame of the similarities of the first column's cells
/// `j < i` above the diagonal, `0.0` elsewhere and where a cell is `null`.
pub fn jaccard_pairs(f: &super::Frame) -> Result<super::Frame, FrameError> {
    let n = f.rows();
    super::ensure_cells("map", n, n)?;
    let cells: Vec<Option<String>> = (0..n)
        .map(|i| if f.cols() == 0 { None } else { f.text(i, 0) })
        .collect();
    let zero: std::sync::Arc<str> = std::sync::Arc::from("0.0");
    let columns = (0..n)
        .map(|i| {
            super::Column::Text(
                (0..n)
                    .map(|j| match (&cells[j], &cells[i]) {
                        (Some(x), Some(y)) if j < i => Some(std::sync::Arc::from(format_double(
                            jaccard_similarity(x, y),
                        ))),
                        _ => Some(zero.clone()),
                    })
                    .collect(),
            )
        })
        .collect();
    Ok(super::Frame::new(n, None, columns))
}

impl Lambda {
    /// Reads `text` (`"x -> x.toLowerCase()"`).
    pub fn parse(text: &str) -> Result<Lambda, FrameError> {
        let (param, body) = text
            .split_once("->")
            .ok_or_else(|| FrameError::Lambda(format!("`{text}` is not `x -> expression`")))?;
        let param = param.trim().trim_matches(|c| c == '(' || c == ')').trim();
        if param.is_empty() || !param.chars().all(|c| c.is_alphanumeric() || c == '_') {
            return Err(FrameError::Lambda(format!(
                "`{text}`: one parameter is supported"
            )));
        }
        let mut p = Parser {
            s: body.trim().as_bytes(),
            at: 0,
            param,
        };
        let body = p.expr()?;
        p.skip();
        if p.at != p.s.len() {
            return Err(p.error("text after the expression"));
        }
        Ok(Lambda { body })
    }

    /// The lambda of one cell, as Java's `toString` writes the result.
    pub fn apply(&self, cell: &str) -> Result<String, FrameError> {
        eval(&self.body, &JavaValue::Str(cell.to_string()))?.text()
    }

    /// The lambda of one row (`String[] -> String[]`).
    pub fn apply_row(&self, row: Vec<String>) -> Result<Vec<String>, FrameError> {
        match eval(&self.body, &JavaValue::Strings(row))? {
            JavaValue::Strings(out) => Ok(out),
            other => Err(FrameError::Lambda(format!(
                "a row-wise lambda (margin=1) must return a String[], got {other:?}"
            ))),
        }
    }
}

fn eval(e: &Expr, x: &JavaValue) -> Result<JavaValue, FrameError> {
    Ok(match e {
        Expr::Param => x.clone(),
        Expr::Array(items) => JavaValue::Strings(
            items
                .iter()
                .map(|a| eval(a, x)?.text())
                .collect::<Result<_, _>>()?,
        ),
        Expr::Str(s) => JavaValue::Str(s.clone()),
        Expr::Int(i) => JavaValue::Int(*i),
        Expr::Element(target, index) => {
            let JavaValue::Strings(items) = eval(target, x)? else {
                return Err(FrameError::Lambda("`[k]` of something not an array".into()));
            };
            let k = eval(index, x)?.int("an array index")?;
            let item = usize::try_from(k).ok().and_then(|k| items.get(k));
            JavaValue::Str(
                item.cloned()
                    .ok_or_else(|| FrameError::Lambda(format!("array index {k} out of bounds")))?,
            )
        }
        Expr::Choose(condition, then, otherwise) => {
            if truth(eval(condition, x)?, "`? :`")? {
                eval(then, x)?
            } else {
                eval(otherwise, x)?
            }
        }
        Expr::Not(a) => JavaValue::Bool(!truth(eval(a, x)?, "`!`")?),
        Expr::Logical(and, a, b) => {
            let (a, b) = (truth(eval(a, x)?, "`&`")?, truth(eval(b, x)?, "`&`")?);
            JavaValue::Bool(if *and { a && b } else { a || b })
        }
        Expr::Static(name, args) => {
            let args = args
                .iter()
                .map(|a| eval(a, x))
                .collect::<Result<Vec<_>, _>>()?;
            statics(name, &args)?
        }
        Expr::Method(target, name, args) => {
            let target = eval(target, x)?;
            let args = args
                .iter()
                .map(|a| eval(a, x))
                .collect::<Result<Vec<_>, _>>()?;
            method(target.string(name)?, name, &args)?
        }
    })
}

/// A boolean operand of `op`.
fn truth(v: JavaValue, op: &str) -> Result<bool, FrameError> {
    match v {
        JavaValue::Bool(b) => Ok(b),
        other => Err(FrameError::Lambda(format!(
            "{op} needs a boolean, got {other:?}"
        ))),
    }
}

fn statics(name: &str, args: &[JavaValue]) -> Result<JavaValue, FrameError> {
    let one = || -> Result<&JavaValue, FrameError> {
        match args {
            [a] => Ok(a),
            _ => Err(FrameError::Lambda(format!("`{name}` takes one argument"))),
        }
    };
    let not_number = |s: &str| FrameError::Lambda(format!("{name}: \"{s}\" is not a number"));
    Ok(match name {
        // A recode-map entry `token·code`, split at the last separator.
        "UtilFunctions.splitRecodeEntry" => {
            let s = one()?.string(name)?;
            let (token, code) = s.rsplit_once('\u{b7}').unwrap_or((s, ""));
            JavaValue::Strings(vec![token.to_string(), code.to_string()])
        }
        "Integer.valueOf" | "Integer.parseInt" | "Long.valueOf" | "Long.parseLong" => {
            match one()? {
                JavaValue::Int(i) => JavaValue::Int(*i),
                v => {
                    let s = v.string(name)?;
                    JavaValue::Int(s.trim().parse().map_err(|_| not_number(s))?)
                }
            }
        }
        "Double.valueOf" | "Double.parseDouble" => match one()? {
            JavaValue::Int(i) => JavaValue::Double(*i as f64),
            JavaValue::Double(d) => JavaValue::Double(*d),
            v => {
                let s = v.string(name)?;
                JavaValue::Double(s.trim().parse().map_err(|_| not_number(s))?)
            }
        },
        "String.valueOf" => JavaValue::Str(one()?.clone().text()?),
        "PorterStemmer.stem" => JavaValue::Str(super::porter::stem(one()?.string(name)?)),
        "UtilFunctions.getWordErrorRate" => match args {
            [r, h] => JavaValue::Double(word_error_rate(
                r.string("getWordErrorRate")?,
                h.string("getWordErrorRate")?,
            )),
            _ => return Err(FrameError::Lambda(format!("`{name}` takes two arguments"))),
        },
        // The character code at 1-based `idx`, 0 outside the string.
        "UtilFunctions.getAsciiAtIdx" => match args {
            [s, idx] => {
                let units: Vec<u16> = s.string(name)?.encode_utf16().collect();
                let k = idx.int(name)?;
                JavaValue::Int(
                    usize::try_from(k - 1)
                        .ok()
                        .and_then(|k| units.get(k))
                        .map_or(0, |&u| i64::from(u)),
                )
            }
            _ => return Err(FrameError::Lambda(format!("`{name}` takes two arguments"))),
        },
        _ => {
            return Err(FrameError::Lambda(format!(
                "`{name}` is not a function spores knows in a lambda"
            )))
        }
    })
}

/// `s.name(args)` of a `java.lang.String`.
/// SystemDS's word error rate: the word-level edit distance between `r` and `h` (split at
/// single spaces, as Java's `split(" ")`, which drops trailing empty words) over the longer
/// word count.
fn word_error_rate(r: &str, h: &str) -> f64 {
    let words = |s: &'_ str| -> Vec<String> {
        let mut w: Vec<String> = s.split(' ').map(str::to_string).collect();
        while w.len() > 1 && w.last().is_some_and(String::is_empty) {
            w.pop();
        }
        if w.len() == 1 && w[0].is_empty() && !s.is_empty() {
            w.clear();
        }
        w
    };
    let (mut s, mut t) = (words(r), words(h));
    if s.is_empty() || t.is_empty() {
        return s.len().max(t.len()) as f64;
    }
    if s.len() > t.len() {
        std::mem::swap(&mut s, &mut t);
    }
    let mut p: Vec<usize> = (0..=s.len()).collect();
    for (j, t_j) in t.iter().enumerate() {
        let mut upper_left = p[0];
        p[0] = j + 1;
        for i in 1..=s.len() {
            let upper = p[i];
            let cost = usize::from(s[i - 1] != *t_j);
            p[i] = (p[i - 1] + 1).min(p[i] + 1).min(upper_left + cost);
            upper_left = upper;
        }
    }
    p[s.len()] as f64 / s.len().max(t.len()) as f64
}

fn method(s: &str, name: &str, args: &[JavaValue]) -> Result<JavaValue, FrameError> {
    let text = |k: usize| -> Result<&str, FrameError> {
        args.get(k)
            .ok_or_else(|| FrameError::Lambda(format!("`{name}` takes more arguments")))?
            .string(name)
    };
    let int = |k: usize| -> Result<i64, FrameError> {
        args.get(k)
            .ok_or_else(|| FrameError::Lambda(format!("`{name}` takes more arguments")))?
            .int(name)
    };
    let chars: Vec<char> = s.chars().collect();
    let index = |i: i64| -> Result<usize, FrameError> {
        usize::try_from(i)
            .ok()
            .filter(|&i| i <= chars.len())
            .ok_or_else(|| FrameError::Lambda(format!("{name}: index {i} out of bounds")))
    };
    Ok(match name {
        "length" => JavaValue::Int(s.encode_utf16().count() as i64),
        "toLowerCase" => JavaValue::Str(s.to_lowercase()),
        "toUpperCase" => JavaValue::Str(s.to_uppercase()),
        "trim" => JavaValue::Str(s.trim().to_string()),
        "isEmpty" => JavaValue::Bool(s.is_empty()),
        "equals" => JavaValue::Bool(s == text(0)?),
        "equalsIgnoreCase" => JavaValue::Bool(s.to_lowercase() == text(0)?.to_lowercase()),
        "contains" => JavaValue::Bool(s.contains(text(0)?)),
        "startsWith" => JavaValue::Bool(s.starts_with(text(0)?)),
        "endsWith" => JavaValue::Bool(s.ends_with(text(0)?)),
        "indexOf" => JavaValue::Int(
            s.find(text(0)?)
                .map_or(-1, |b| s[..b].chars().count() as i64),
        ),
        "replace" => JavaValue::Str(s.replace(text(0)?, text(1)?)),
        "replaceAll" | "replaceFirst" => {
            let re = java_regex(text(0)?)?;
            let replacement = java_replacement(text(1)?);
            JavaValue::Str(if name == "replaceAll" {
                re.replace_all(s, replacement.as_str()).into_owned()
            } else {
                re.replace(s, replacement.as_str()).into_owned()
            })
        }
        "split" => JavaValue::Strings({
            let mut parts: Vec<String> =
                java_regex(text(0)?)?.split(s).map(str::to_string).collect();
            // Java drops trailing empty strings.
            while parts.len() > 1 && parts.last().is_some_and(String::is_empty) {
                parts.pop();
            }
            parts
        }),
        "substring" => {
            let from = index(int(0)?)?;
            let to = if args.len() > 1 {
                index(int(1)?)?
            } else {
                chars.len()
            };
            if from > to {
                return Err(FrameError::Lambda(format!(
                    "substring({from}, {to}) of a string of {}",
                    chars.len()
                )));
            }
            JavaValue::Str(chars[from..to].iter().collect())
        }
        "charAt" => {
            let i = index(int(0)?)?;
            JavaValue::Str(
                chars
                    .get(i)
                    .map(char::to_string)
                    .ok_or_else(|| FrameError::Lambda(format!("charAt({i}) out of bounds")))?,
            )
        }
        _ => {
            return Err(FrameError::Lambda(format!(
                "`String.{name}` is not a method spores knows in a lambda"
            )))
        }
    })
}

fn java_regex(pattern: &str) -> Result<Regex, FrameError> {
    Regex::new(pattern)
        .map_err(|e| FrameError::Lambda(format!("regular expression \"{pattern}\": {e}")))
}

/// A Java replacement string in the `regex` crate's syntax: `$1` is `${1}` (so that a
/// letter after it is not read as part of a name), `\x` is `x`, a literal `$` is `$$`.
fn java_replacement(r: &str) -> String {
    let mut out = String::new();
    let mut chars = r.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some('$') => out.push_str("$$"),
                Some(n) => out.push(n),
                None => {}
            },
            '$' => {
                let mut digits = String::new();
                while let Some(d) = chars.peek().filter(|d| d.is_ascii_digit()) {
                    digits.push(*d);
                    chars.next();
                }
                out.push_str(&format!("${{{digits}}}"));
            }
            c => out.push(c),
        }
    }
    out
}

struct Parser<'a> {
    s: &'a [u8],
    at: usize,
    param: &'a str,
}

impl Parser<'_> {
    fn error(&self, what: &str) -> FrameError {
        FrameError::Lambda(format!(
            "{what} at character {} of `{}`",
            self.at + 1,
            String::from_utf8_lossy(self.s)
        ))
    }

    fn skip(&mut self) {
        while self.s.get(self.at).is_some_and(u8::is_ascii_whitespace) {
            self.at += 1;
        }
    }

    fn eat(&mut self, c: u8) -> bool {
        self.skip();
        let found = self.s.get(self.at) == Some(&c);
        if found {
            self.at += 1;
        }
        found
    }

    fn ident(&mut self) -> Option<String> {
        self.skip();
        let start = self.at;
        while self
            .s
            .get(self.at)
            .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
        {
            self.at += 1;
        }
        (self.at > start).then(|| String::from_utf8_lossy(&self.s[start..self.at]).into_owned())
    }

    fn args(&mut self) -> Result<Vec<Expr>, FrameError> {
        let mut args = Vec::new();
        if self.eat(b')') {
            return Ok(args);
        }
        loop {
            args.push(self.expr()?);
            if self.eat(b')') {
                return Ok(args);
            }
            if !self.eat(b',') {
                return Err(self.error("expected `,` or `)`"));
            }
        }
    }

    fn expr(&mut self) -> Result<Expr, FrameError> {
        let condition = self.logical(false)?;
        if !self.eat(b'?') {
            return Ok(condition);
        }
        let then = self.expr()?;
        if !self.eat(b':') {
            return Err(self.error("expected `:`"));
        }
        let otherwise = self.expr()?;
        Ok(Expr::Choose(
            Box::new(condition),
            Box::new(then),
            Box::new(otherwise),
        ))
    }

    /// `a | b | ...` (`and` false) or `a & b & ...` (`and` true), each operator single
    /// or doubled (Java's eager and short-circuit forms agree without side effects).
    fn logical(&mut self, and: bool) -> Result<Expr, FrameError> {
        let operand = |p: &mut Self| if and { p.unary() } else { p.logical(true) };
        let op = if and { b'&' } else { b'|' };
        let mut e = operand(self)?;
        while self.eat(op) {
            self.eat(op);
            e = Expr::Logical(and, Box::new(e), Box::new(operand(self)?));
        }
        Ok(e)
    }

    fn unary(&mut self) -> Result<Expr, FrameError> {
        if self.eat(b'!') {
            return Ok(Expr::Not(Box::new(self.unary()?)));
        }
        self.chain()
    }

    /// A primary expression and the method calls and indexing after it.
    fn chain(&mut self) -> Result<Expr, FrameError> {
        let mut e = self.primary()?;
        loop {
            if self.eat(b'.') {
                let name = self
                    .ident()
                    .ok_or_else(|| self.error("expected a method"))?;
                if !self.eat(b'(') {
                    return Err(self.error("expected `(`"));
                }
                e = Expr::Method(Box::new(e), name, self.args()?);
            } else if self.eat(b'[') {
                let index = self.expr()?;
                if !self.eat(b']') {
                    return Err(self.error("expected `]`"));
                }
                e = Expr::Element(Box::new(e), Box::new(index));
            } else {
                return Ok(e);
            }
        }
    }

    fn primary(&mut self) -> Result<Expr, FrameError> {
        if self.eat(b'(') {
            let e = self.expr()?;
            if !self.eat(b')') {
                return Err(self.error("expected `)`"));
            }
            return Ok(e);
        }
        match self.s.get(self.at) {
            Some(b'"') => {
                self.at += 1;
                let mut out = String::new();
                let mut bytes = Vec::new();
                while let Some(&c) = self.s.get(self.at) {
                    self.at += 1;
                    match c {
                        b'"' => {
                            out.push_str(&String::from_utf8_lossy(&bytes));
                            return Ok(Expr::Str(out));
                        }
                        b'\\' => {
                            let e = self.s.get(self.at).copied();
                            self.at += 1;
                            match e {
                                Some(b'n') => bytes.push(b'\n'),
                                Some(b't') => bytes.push(b'\t'),
                                Some(b'"') => bytes.push(b'"'),
                                Some(b'\\') => bytes.push(b'\\'),
                                // Java would refuse `\s` in a string literal; SystemDS's
                                // scripts pass regex escapes through DML, so keep them.
                                Some(other) => bytes.extend_from_slice(&[b'\\', other]),
                                None => {}
                            }
                        }
                        c => bytes.push(c),
                    }
                }
                Err(self.error("unterminated string"))
            }
            Some(c) if c.is_ascii_digit() || *c == b'-' => {
                let start = self.at;
                self.at += 1;
                while self.s.get(self.at).is_some_and(u8::is_ascii_digit) {
                    self.at += 1;
                }
                let text = String::from_utf8_lossy(&self.s[start..self.at]).into_owned();
                text.parse()
                    .map(Expr::Int)
                    .map_err(|_| self.error("expected a number"))
            }
            _ => {
                let name = self
                    .ident()
                    .ok_or_else(|| self.error("expected an expression"))?;
                if name == self.param {
                    return Ok(Expr::Param);
                }
                if name == "new" {
                    // `new String[]{a, b}`
                    let ok = self.ident().as_deref() == Some("String")
                        && self.eat(b'[')
                        && self.eat(b']')
                        && self.eat(b'{');
                    if !ok {
                        return Err(self.error("expected `new String[]{...}`"));
                    }
                    let mut items = Vec::new();
                    if !self.eat(b'}') {
                        loop {
                            items.push(self.expr()?);
                            if self.eat(b'}') {
                                break;
                            }
                            if !self.eat(b',') {
                                return Err(self.error("expected `,` or `}`"));
                            }
                        }
                    }
                    return Ok(Expr::Array(items));
                }
                // `Class.function(args)`
                if !self.eat(b'.') {
                    return Err(self.error(&format!("unknown name `{name}`")));
                }
                let function = self
                    .ident()
                    .ok_or_else(|| self.error("expected a function"))?;
                if !self.eat(b'(') {
                    return Err(self.error("expected `(`"));
                }
                Ok(Expr::Static(format!("{name}.{function}"), self.args()?))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairwise_jaccard_is_recognized_and_computed_as_java_does() {
        assert!(is_pairwise_jaccard(
            "(x, y) -> UtilFunctions.jaccardSim(x, y)"
        ));
        assert!(is_pairwise_jaccard("(a,b)->UtilFunctions.jaccardSim(a, b)"));
        assert!(!is_pairwise_jaccard(
            "(x, y) -> UtilFunctions.jaccardSim(y, x)"
        ));
        assert!(!is_pairwise_jaccard("x -> UtilFunctions.jaccardSim(x, x)"));
        assert_eq!(jaccard_similarity("abc", "abd"), 0.5);
        assert_eq!(jaccard_similarity("aab", "ba"), 1.0);
        assert_eq!(jaccard_similarity("", ""), 1.0);
        assert_eq!(jaccard_similarity("", "a"), 0.0);
    }

    fn map(lambda: &str, cell: &str) -> String {
        Lambda::parse(lambda).unwrap().apply(cell).unwrap()
    }

    /// The operator filter of the cleaning pipelines' `enumerateLogical.dml`, over lines.
    #[test]
    fn boolean_operators_and_parentheses() {
        let filter =
            "x -> (!x.equals(\"pca\") & !x.equals(\"WoE\")\n  && !x.equals(\"mice\"))?x:\"0\"";
        assert_eq!(map(filter, "scale"), "scale");
        assert_eq!(map(filter, "WoE"), "0");
        assert_eq!(map(filter, "mice"), "0");
        // `&` binds tighter than `|`.
        let precedence = "x -> x.equals(\"a\") | x.equals(\"b\") & x.equals(\"c\")";
        assert_eq!(map(precedence, "a"), "true");
        assert_eq!(
            map("x -> !(x.equals(\"a\") | x.equals(\"b\"))", "b"),
            "false"
        );
        assert_eq!(map("x -> PorterStemmer.stem(x)", "ponies"), "poni");
        let unbalanced = Lambda::parse("x -> (x.equals(\"a\") ? x : \"b\"").err();
        assert!(unbalanced.is_some_and(|e| e.to_string().contains("expected `)`")));
    }

    #[test]
    fn string_methods_and_conversions_as_java() {
        assert_eq!(map("x -> x.length()", "Hello World."), "12");
        assert_eq!(map("x -> x.replaceAll(\"[.]\", \"\")", "x.y.z"), "xyz");
        assert_eq!(
            map(
                "x -> x.replaceAll(\"[^a-zA-Z\\s]\", \" \").toLowerCase()",
                "Foo-Bar 42"
            ),
            "foo bar   "
        );
        assert_eq!(map("s -> s.equals(\"a\")", "a"), "true");
        assert_eq!(map("x -> x.substring(1, 3)", "abcd"), "bc");
        assert_eq!(
            map("x -> x.replaceAll(\"(a)(b)\", \"$2$1x\")", "abab"),
            "baxbax"
        );
        assert_eq!(
            map(
                "s -> UtilFunctions.splitRecodeEntry(s)[0]",
                "Foo\u{b7}Bar\u{b7}3"
            ),
            "Foo\u{b7}Bar"
        );
        assert_eq!(
            map(
                "s -> Integer.valueOf(UtilFunctions.splitRecodeEntry(s)[1])",
                "a\u{b7}12"
            ),
            "12"
        );
        assert_eq!(map("s -> Double.parseDouble(s)", "2"), "2.0");
        assert_eq!(map("s -> s.equals(\"a\") ? \"b\" : s", "a"), "b");
        assert_eq!(map("s -> s.equals(\"a\") ? \"b\" : s", "c"), "c");
        assert_eq!(map("s -> UtilFunctions.getAsciiAtIdx(s, 2)", "ab"), "98");
        assert_eq!(map("s -> UtilFunctions.getAsciiAtIdx(s, 3)", "ab"), "0");
        let row = |lambda: &str, cells: &[&str]| {
            Lambda::parse(lambda)
                .unwrap()
                .apply_row(cells.iter().map(|c| c.to_string()).collect())
        };
        let wer =
            "x -> new String[]{String.valueOf(UtilFunctions.getWordErrorRate(x[0], x[1])),\"\"}";
        // one substitution and one deletion over four words
        assert_eq!(
            row(wer, &["the cat sat down", "the bat sat"]).unwrap(),
            ["0.5", ""]
        );
        assert_eq!(row(wer, &["a b", "a b"]).unwrap(), ["0.0", ""]);
        assert!(row("x -> x[0]", &["a"]).is_err());
        for bad in [
            "x.length()",
            "x -> y.length()",
            "x -> x.frobnicate()",
            "x -> x.length(",
        ] {
            assert!(
                Lambda::parse(bad).and_then(|l| l.apply("a")).is_err(),
                "{bad}"
            );
        }
    }
}
