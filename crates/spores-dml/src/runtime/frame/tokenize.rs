//! `tokenize(target=F, spec=s, max_tokens=n)`: the words of one column of a frame, one
//! row per word, as SystemDS 3.4's `split` tokenizer with `position` output writes them:
//! the document's id columns, the word's 1-based character position, the word.
//!
//! Words are the pieces between matches of `algo_params.regex` (default `\s+`); a word's
//! position is where Java's `text.indexOf(word, from)` finds it, `from` being the previous
//! word's start (so a repeated word can report an earlier position, as in SystemDS). At
//! most `max_tokens` words of each document are kept. Other algorithms (`ngram`) and
//! outputs (`count`, `hash`, the wide format, padding) are refused by name.

use std::sync::Arc;

use regex::Regex;

use super::transform::{Json, TransformError};
use super::{Column, Frame, ValueType};

/// `tokenize(target, spec, max_tokens)`.
pub fn tokenize(frame: &Frame, spec: &str, max_tokens: usize) -> Result<Frame, TransformError> {
    let Json::Object(fields) = Json::parse(spec)? else {
        return Err(TransformError::Spec("a spec is a JSON object".into()));
    };
    let get = |k: &str| fields.iter().find(|(n, _)| n == k).map(|(_, v)| v);
    let text = |v: Option<&Json>| match v {
        Some(Json::Str(s) | Json::Bare(s)) => Some(s.clone()),
        _ => None,
    };
    let algo = text(get("algo")).unwrap_or_default();
    if algo != "split" {
        return Err(TransformError::Unsupported(format!(
            "tokenize algo \"{algo}\""
        )));
    }
    let out = text(get("out")).unwrap_or_default();
    if out != "position" {
        return Err(TransformError::Unsupported(format!(
            "tokenize out \"{out}\""
        )));
    }
    if let Some(Json::Object(params)) = get("out_params") {
        for (k, v) in params {
            let off = matches!(v, Json::Bool(false));
            if !(k == "sort_alpha" || off) {
                return Err(TransformError::Unsupported(format!(
                    "tokenize out_params `{k}`"
                )));
            }
        }
    }
    let column = |v: &Json| -> Result<usize, TransformError> {
        match v {
            Json::Number(x) if *x >= 1.0 && x.fract() == 0.0 && (*x as usize) <= frame.cols() => {
                Ok(*x as usize - 1)
            }
            other => Err(TransformError::NoColumn {
                column: format!("{other:?}"),
                cols: frame.cols(),
            }),
        }
    };
    let ids = match get("id_cols") {
        Some(Json::Array(items)) => items.iter().map(column).collect::<Result<Vec<_>, _>>()?,
        _ => return Err(TransformError::Spec("`id_cols` takes a list".into())),
    };
    let words_of = get("tokenize_col")
        .ok_or_else(|| TransformError::Spec("no `tokenize_col`".into()))
        .and_then(column)?;
    let pattern = match get("algo_params") {
        Some(Json::Object(p)) => p
            .iter()
            .find(|(k, _)| k == "regex")
            .and_then(|(_, v)| text(Some(v))),
        _ => None,
    }
    .unwrap_or_else(|| r"\s+".to_string());
    let splitter = Regex::new(&pattern)
        .map_err(|e| TransformError::Spec(format!("regex \"{pattern}\": {e}")))?;

    let mut keys: Vec<Vec<Option<Arc<str>>>> = vec![Vec::new(); ids.len()];
    let (mut positions, mut words) = (Vec::new(), Vec::new());
    for i in 0..frame.rows() {
        let Some(text) = frame.text(i, words_of) else {
            continue;
        };
        let mut from = 0;
        for word in splitter
            .split(&text)
            .filter(|w| !w.is_empty())
            .take(max_tokens)
        {
            // Java's `indexOf(word, from)`, from the previous word's start.
            let at = text[from..].find(word).map_or(0, |k| from + k);
            from = at;
            for (k, &c) in ids.iter().enumerate() {
                keys[k].push(frame.text(i, c).map(Arc::from));
            }
            positions.push(text[..at].encode_utf16().count() as f64 + 1.0);
            words.push(Some(Arc::from(word)));
        }
    }
    let rows = words.len();
    let mut columns: Vec<Column> = keys.into_iter().map(Column::Text).collect();
    columns.push(Column::Number {
        ty: ValueType::Int64,
        values: positions,
    });
    columns.push(Column::Text(words));
    Ok(Frame::new(rows, None, columns))
}
