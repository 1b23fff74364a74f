//! SystemDS's metadata files: `<file>.mtd` beside a data file, a JSON object saying what
//! the file holds (`data_type`, `value_type`, `rows`, `cols`, `nnz`, `format`, and for
//! CSV `header` and `sep`).
//!
//! SystemDS writes one beside every file its `write` produces and reads it to learn what
//! `read(file)` was not told: the format, and the size a text-cell file does not store.
//! Keys it writes that say nothing about the data (`author`, `created`, `description`,
//! block sizes) are ignored when read and not written.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::atomic::write_atomic_sized;
use super::{io_error, parse_error};
use crate::error::Result;

/// What a metadata file says of its data file. Every field is optional on read, as in
/// SystemDS's own files (a scalar has no size, older files no `nnz`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Metadata {
    /// `"matrix"`, `"scalar"`, `"frame"` or `"list"`.
    pub data_type: Option<String>,
    /// A frame's column types, each followed by a comma (`"FP64,STRING,"`).
    pub schema: Option<String>,
    /// `"double"`, `"int"`, `"boolean"`, `"string"`.
    pub value_type: Option<String>,
    pub rows: Option<usize>,
    pub cols: Option<usize>,
    pub nnz: Option<u64>,
    /// The format's DML name (`"text"`, `"mm"`, `"csv"`, `"binary"`, ...).
    pub format: Option<String>,
    /// A CSV file's first line names its columns.
    pub header: Option<bool>,
    /// A CSV file's field separator.
    pub sep: Option<String>,
}

/// The metadata file of `data`: its path with `.mtd` appended.
pub fn path_of(data: &Path) -> PathBuf {
    let mut name = data.as_os_str().to_owned();
    name.push(".mtd");
    PathBuf::from(name)
}

/// Reads the metadata file beside `data`: `None` when there is none, an error naming the
/// metadata file when it cannot be read or is not a JSON object of the expected types.
pub fn read_beside(data: &Path) -> Result<Option<Metadata>> {
    let path = path_of(data);
    let text = match std::fs::read(&path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io_error(&path, e)),
    };
    parse(&text, &path).map(Some)
}

/// Parses a metadata file held in memory; `path` is only used in errors.
pub fn parse(text: &[u8], path: &Path) -> Result<Metadata> {
    let err = |msg: String| parse_error(path, 1, msg);
    let value: Value = serde_json::from_slice(text)
        .or_else(|first| serde_json::from_slice(&without_trailing_commas(text)).map_err(|_| first))
        .map_err(|e| parse_error(path, e.line(), e.to_string()))?;
    let Value::Object(map) = value else {
        return Err(err("a metadata file holds one JSON object".into()));
    };
    let text_of = |key: &str| -> Result<Option<String>> {
        match map.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(other) => Err(err(format!("`{key}` must be a string, found {other}"))),
        }
    };
    let count = |key: &str| -> Result<Option<u64>> {
        match map.get(key) {
            None | Some(Value::Null) => Ok(None),
            // SystemDS writes sizes as integers; -1 is its "unknown".
            Some(Value::Number(n)) => match (n.as_u64(), n.as_i64()) {
                (Some(v), _) => Ok(Some(v)),
                (None, Some(-1)) => Ok(None),
                _ => Err(err(format!("`{key}` must be a count, found {n}"))),
            },
            Some(other) => Err(err(format!("`{key}` must be a count, found {other}"))),
        }
    };
    let size = |key: &str| -> Result<Option<usize>> {
        count(key)?
            .map(|v| usize::try_from(v).map_err(|_| err(format!("`{key}` {v} is too large"))))
            .transpose()
    };
    let header = match map.get("header") {
        None | Some(Value::Null) => None,
        Some(Value::Bool(b)) => Some(*b),
        Some(other) => {
            return Err(err(format!(
                "`header` must be true or false, found {other}"
            )))
        }
    };
    Ok(Metadata {
        data_type: text_of("data_type")?,
        schema: text_of("schema")?,
        value_type: text_of("value_type")?,
        rows: size("rows")?,
        cols: size("cols")?,
        nnz: count("nnz")?,
        format: text_of("format")?,
        header,
        sep: text_of("sep")?,
    })
}

/// `text` without the commas that close an object or array (`"header": true, }`):
/// SystemDS's JSON reader accepts them, and its own test data has them. Commas inside
/// strings are kept.
fn without_trailing_commas(text: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    let mut in_string = false;
    for (k, &b) in text.iter().enumerate() {
        if in_string {
            // a string ends at a quote that no backslash escapes
            in_string = b != b'"' || escaped_before(text, k);
        } else if b == b'"' {
            in_string = true;
        } else if b == b',' {
            let next = text[k + 1..].iter().find(|c| !c.is_ascii_whitespace());
            if matches!(next, Some(b'}') | Some(b']')) {
                continue;
            }
        }
        out.push(b);
    }
    out
}

/// Whether the quote at `k` is escaped by an odd run of backslashes before it.
fn escaped_before(text: &[u8], k: usize) -> bool {
    text[..k].iter().rev().take_while(|&&c| c == b'\\').count() % 2 == 1
}

/// The metadata file's text, keys in the order SystemDS writes them.
pub fn to_json(meta: &Metadata) -> String {
    let fields: [(&str, Option<Value>); 9] = [
        ("data_type", meta.data_type.clone().map(Value::from)),
        ("schema", meta.schema.clone().map(Value::from)),
        ("value_type", meta.value_type.clone().map(Value::from)),
        ("rows", meta.rows.map(Value::from)),
        ("cols", meta.cols.map(Value::from)),
        ("nnz", meta.nnz.map(Value::from)),
        ("format", meta.format.clone().map(Value::from)),
        ("header", meta.header.map(Value::from)),
        ("sep", meta.sep.clone().map(Value::from)),
    ];
    // Written by hand: serde_json's map sorts its keys unless a feature, which would
    // reach every crate that uses serde_json, keeps their order.
    let lines: Vec<String> = fields
        .into_iter()
        .filter_map(|(key, value)| value.map(|v| format!("    \"{key}\": {v}")))
        .collect();
    format!("{{\n{}\n}}\n", lines.join(",\n"))
}

/// Writes `meta` beside `data`, atomically.
pub fn write_beside(data: &Path, meta: &Metadata) -> Result<()> {
    let path = path_of(data);
    let text = to_json(meta);
    write_atomic_sized(&path, text.len() as f64, |w| w.write_all(text.as_bytes()))
        .map_err(|source| io_error(&path, source))
}
