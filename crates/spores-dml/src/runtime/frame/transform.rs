//! `transformencode`, `transformapply` and `transformdecode`: a frame's columns made
//! numbers by a JSON spec (`"{ids: true, recode: [1, 2], dummycode: [2], bin: [{id: 3,
//! method: equi-width, numbins: 4}]}"`, or columns by name without `ids`), and back.
//!
//! As SystemDS 3.4: a recoded column numbers its distinct values (not empty, not `null`)
//! 1, 2, ... in order of first appearance; a binned column numbers equal-width bins of
//! its range; a dummycoded one (recoded, unless binned) becomes one 0/1 column per code;
//! every other column passes through as numbers. The metadata frame has one column per
//! input column: `token·code` per recoded value, listed in the iteration order of the Java
//! `HashMap` SystemDS keeps them in, or `min·max` per bin (`·` is U+00B7). Unseen values
//! encode as NaN. A hashed column (`hash: [...]` with `K: k`) codes a value as
//! `|h| mod k + 1` of its Java hash code `h` (`String.hashCode()` for text), its metadata
//! is `k`. Applied by name to a frame with other columns than the metadata's, each column
//! takes the metadata column of its name, as SystemDS does. `udf: {name: f, ids: [...]}`
//! has the interpreter call the DML function `f` on each listed column's encoded columns
//! ([`encode_then_udf`], [`apply_then_udf`]). Imputation, omission and embeddings are refused by name.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::Arc;

use spores_exec::java_hash::{string_hash, JavaHashOrder};
use spores_exec::{DenseMatrix, Matrix};

use super::{Column, ColumnInfo, Frame, ValueType};
use crate::number::format_double;

/// The separator of a metadata cell's token and code (SystemDS's `Lop.DATATYPE_PREFIX`).
const SEP: char = '\u{b7}';

/// What a spec does with one column.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Role {
    PassThrough,
    Recode { dummy: bool },
    Bin { bins: usize, dummy: bool },
    Hash { k: usize, dummy: bool },
}

/// A parsed transform spec: one role per column of the frame it is applied to.
struct Spec {
    roles: Vec<Role>,
    /// Columns named by number (`ids: true`) rather than by name.
    ids: bool,
    udf: Option<Udf>,
}

/// A spec's `udf: {name: f, ids: [...]}`: a DML function that `transformencode` applies
/// to each listed column's encoded columns (one, or its dummy columns) after encoding,
/// as SystemDS's `ColumnEncoderUDF` calls it through `eval` with a one-matrix list.
#[derive(Clone, Debug, PartialEq)]
struct Udf {
    function: String,
    /// 0-based columns of the frame.
    columns: Vec<usize>,
}

impl Spec {
    fn parse(text: &str, names: &[String]) -> Result<Spec, TransformError> {
        let json = Json::parse(text)?;
        let Json::Object(fields) = json else {
            return Err(TransformError::Spec("a spec is a JSON object".into()));
        };
        let ids = fields
            .iter()
            .find(|(k, _)| k == "ids")
            .is_some_and(|(_, v)| matches!(v, Json::Bool(true)));
        let column = |v: &Json| -> Result<usize, TransformError> {
            match v {
                Json::Number(x) if ids => {
                    let k = *x as usize;
                    if *x >= 1.0 && x.fract() == 0.0 && k <= names.len() {
                        Ok(k - 1)
                    } else {
                        Err(TransformError::NoColumn {
                            column: format!("{x}"),
                            cols: names.len(),
                        })
                    }
                }
                Json::Str(name) | Json::Bare(name) if !ids => names
                    .iter()
                    .position(|n| n == name)
                    .ok_or_else(|| TransformError::NoColumn {
                        column: format!("\"{name}\""),
                        cols: names.len(),
                    }),
                other => Err(TransformError::Spec(format!(
                    "a column is {} here, found {other:?}",
                    if ids {
                        "a number (ids: true)"
                    } else {
                        "a name"
                    }
                ))),
            }
        };
        let hash_buckets = || match fields.iter().find(|(k, _)| k == "K").map(|(_, v)| v) {
            Some(Json::Number(k)) if *k >= 1.0 && k.fract() == 0.0 => Ok(*k as usize),
            Some(other) => Err(TransformError::Spec(format!(
                "`K` is a positive whole number, found {other:?}"
            ))),
            None => Err(TransformError::Spec(
                "`hash` needs `K`, the number of buckets".into(),
            )),
        };
        let mut roles = vec![Role::PassThrough; names.len()];
        let mut udf = None;
        let mut dummy = vec![false; names.len()];
        for (key, value) in &fields {
            let items = || match value {
                Json::Array(items) => Ok(items.as_slice()),
                _ => Err(TransformError::Spec(format!("`{key}` takes a list"))),
            };
            match key.as_str() {
                "ids" => {}
                "recode" => {
                    for v in items()? {
                        roles[column(v)?] = Role::Recode { dummy: false };
                    }
                }
                "dummycode" => {
                    for v in items()? {
                        dummy[column(v)?] = true;
                    }
                }
                "bin" => {
                    for v in items()? {
                        let Json::Object(bin) = v else {
                            return Err(TransformError::Spec(
                                "each `bin` entry is an object".into(),
                            ));
                        };
                        let get = |k: &str| bin.iter().find(|(n, _)| n == k).map(|(_, v)| v);
                        let col = get(if ids { "id" } else { "name" })
                            .ok_or_else(|| {
                                TransformError::Spec("a `bin` entry names no column".into())
                            })
                            .and_then(column)?;
                        let method = match get("method") {
                            Some(Json::Str(m) | Json::Bare(m)) => m.to_ascii_lowercase(),
                            _ => "equi-width".to_string(),
                        };
                        if method != "equi-width" {
                            return Err(TransformError::Unsupported(format!(
                                "bin method `{method}`"
                            )));
                        }
                        let bins = match get("numbins") {
                            Some(Json::Number(n)) if *n >= 1.0 => *n as usize,
                            None => 10,
                            Some(other) => {
                                return Err(TransformError::Spec(format!(
                                    "`numbins` is a positive number, found {other:?}"
                                )))
                            }
                        };
                        roles[col] = Role::Bin { bins, dummy: false };
                    }
                }
                "hash" => {
                    let k = hash_buckets()?;
                    for v in items()? {
                        roles[column(v)?] = Role::Hash { k, dummy: false };
                    }
                }
                "udf" => {
                    let Json::Object(spec) = value else {
                        return Err(TransformError::Spec("`udf` takes an object".into()));
                    };
                    let get = |k: &str| spec.iter().find(|(n, _)| n == k).map(|(_, v)| v);
                    let function = match get("name") {
                        Some(Json::Str(f) | Json::Bare(f)) => f.clone(),
                        _ => return Err(TransformError::Spec("`udf` names no function".into())),
                    };
                    let columns = match get(if ids { "ids" } else { "names" }) {
                        Some(Json::Array(items)) => {
                            items.iter().map(column).collect::<Result<Vec<_>, _>>()?
                        }
                        _ => {
                            return Err(TransformError::Spec(
                                "`udf` lists no columns (`ids: [...]`)".into(),
                            ))
                        }
                    };
                    udf = Some(Udf { function, columns });
                }
                other @ ("impute" | "omit" | "word_embedding" | "bag_of_words") => {
                    return Err(TransformError::Unsupported(format!("`{other}`")))
                }
                // SystemDS ignores keys it does not know (`K` for hashing, ...).
                _ => {}
            }
        }
        for (role, d) in roles.iter_mut().zip(dummy) {
            if d {
                *role = match *role {
                    Role::Bin { bins, .. } => Role::Bin { bins, dummy: true },
                    Role::Hash { k, .. } => Role::Hash { k, dummy: true },
                    _ => Role::Recode { dummy: true },
                };
            }
        }
        Ok(Spec { roles, ids, udf })
    }
}

/// One column's metadata: a recode map (token to code, and the tokens in the order the
/// metadata frame lists them) or bin bounds.
enum ColumnMeta {
    None,
    Recode {
        codes: HashMap<String, usize>,
        listed: Vec<(String, usize)>,
    },
    Bins(Vec<(f64, f64)>),
    /// Feature hashing into `k` buckets.
    Hash(usize),
}

impl ColumnMeta {
    /// How many output columns a dummycoded column with this metadata becomes.
    fn width(&self) -> usize {
        match self {
            ColumnMeta::None => 1,
            ColumnMeta::Recode { codes, .. } => codes.len(),
            ColumnMeta::Bins(b) => b.len(),
            ColumnMeta::Hash(k) => *k,
        }
    }

    fn cells(&self) -> Vec<String> {
        match self {
            ColumnMeta::None => Vec::new(),
            ColumnMeta::Recode { listed, .. } => listed
                .iter()
                .map(|(token, code)| format!("{token}{SEP}{code}"))
                .collect(),
            ColumnMeta::Bins(b) => b
                .iter()
                .map(|(lo, hi)| format!("{}{SEP}{}", format_double(*lo), format_double(*hi)))
                .collect(),
            ColumnMeta::Hash(k) => vec![k.to_string()],
        }
    }

    /// Code of `text` (NaN for empty, unseen or out-of-range values).
    fn code(&self, text: Option<&str>) -> Result<f64, TransformError> {
        Ok(match self {
            ColumnMeta::Recode { codes, .. } => match text {
                Some(t) if !t.is_empty() => codes.get(t).map_or(f64::NAN, |&c| c as f64),
                _ => f64::NAN,
            },
            ColumnMeta::Bins(b) => {
                let Some(v) = text.and_then(super::parse_number) else {
                    return Ok(f64::NAN);
                };
                let (min, max, n) = (b[0].0, b[b.len() - 1].1, b.len());
                if v.is_nan() {
                    f64::NAN
                } else if max == min {
                    1.0
                } else {
                    ((v - min) / (max - min) * n as f64)
                        .ceil()
                        .clamp(1.0, n as f64)
                }
            }
            ColumnMeta::Hash(_) | ColumnMeta::None => {
                return Err(TransformError::Spec("no metadata".into()))
            }
        })
    }
}

/// SystemDS's feature-hash code of row `i`: the absolute value of the cell's Java hash
/// code (its `Array.hashDouble`) modulo `k`, plus 1; NaN for a null or empty cell.
fn hash_code(column: &Column, i: usize, k: usize) -> f64 {
    let h = match column {
        Column::Text(t) => match t[i].as_deref() {
            None | Some("") => return f64::NAN,
            Some(s) => f64::from(string_hash(s)),
        },
        Column::Number { ty, values } => {
            let v = values[i];
            match ty {
                ValueType::Boolean => f64::from(u8::from(v != 0.0)),
                ValueType::Int32 => v,
                ValueType::Int64 => {
                    let x = v as i64;
                    f64::from((x ^ ((x as u64) >> 32) as i64) as i32)
                }
                ValueType::Fp32 => f64::from(canonical_f32_bits(v as f32)),
                ValueType::Fp64 | ValueType::String => {
                    let bits = if v.is_nan() {
                        0x7ff8_0000_0000_0000
                    } else {
                        v.to_bits()
                    };
                    f64::from((bits ^ (bits >> 32)) as u32 as i32)
                }
            }
        }
    };
    h.abs() % k as f64 + 1.0
}

/// Java's `Float.hashCode`: the bits, with every NaN as the canonical one.
fn canonical_f32_bits(v: f32) -> i32 {
    if v.is_nan() {
        0x7fc0_0000
    } else {
        v.to_bits() as i32
    }
}

/// Builds a column's metadata from its cells.
fn build(column: &Column, rows: usize, role: Role) -> ColumnMeta {
    match role {
        Role::PassThrough => ColumnMeta::None,
        Role::Hash { k, .. } => ColumnMeta::Hash(k),
        Role::Recode { .. } => {
            let mut order: JavaHashOrder<String, usize> = JavaHashOrder::new();
            let mut codes = HashMap::new();
            for i in 0..rows {
                let Some(token) = column.text(i).filter(|t| !t.is_empty()) else {
                    continue;
                };
                if !codes.contains_key(&token) {
                    let code = codes.len() + 1;
                    codes.insert(token.clone(), code);
                    order.entry(token.clone(), string_hash(&token), || code);
                }
            }
            let listed = order.iter().map(|(k, v)| (k.clone(), *v)).collect();
            ColumnMeta::Recode { codes, listed }
        }
        Role::Bin { bins, .. } => {
            let values =
                (0..rows).filter_map(|i| column.text(i).and_then(|t| super::parse_number(&t)));
            let (mut min, mut max) = (f64::INFINITY, f64::NEG_INFINITY);
            for v in values.filter(|v| !v.is_nan()) {
                min = min.min(v);
                max = max.max(v);
            }
            let bins = if min == max { 1 } else { bins };
            ColumnMeta::Bins(
                (0..bins)
                    .map(|k| {
                        let lo = min + k as f64 * (max - min) / bins as f64;
                        let hi = min + (k + 1) as f64 * (max - min) / bins as f64;
                        (lo, hi)
                    })
                    .collect(),
            )
        }
    }
}

/// Reads a metadata frame's column back (recode entries `token·code`, bins `min·max`).
fn read_meta(meta: &Frame, j: usize, role: Role) -> Result<ColumnMeta, TransformError> {
    let cells: Vec<String> = (0..meta.rows())
        .filter_map(|i| meta.text(i, j))
        .filter(|t| !t.is_empty())
        .collect();
    let split = |cell: &str| -> Result<(String, String), TransformError> {
        cell.rsplit_once(SEP)
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .ok_or_else(|| TransformError::Meta {
                col: j + 1,
                cell: cell.to_string(),
            })
    };
    Ok(match role {
        Role::PassThrough => ColumnMeta::None,
        // The metadata's bucket count (SystemDS writes it in the first row).
        Role::Hash { k, .. } => match cells.first() {
            Some(cell) => match cell.trim().parse::<usize>() {
                Ok(k) if k >= 1 => ColumnMeta::Hash(k),
                _ => {
                    return Err(TransformError::Meta {
                        col: j + 1,
                        cell: cell.clone(),
                    })
                }
            },
            None => ColumnMeta::Hash(k),
        },
        Role::Recode { .. } => {
            let mut codes = HashMap::new();
            let mut listed = Vec::new();
            for cell in &cells {
                let (token, code) = split(cell)?;
                let code: usize = code.trim().parse().map_err(|_| TransformError::Meta {
                    col: j + 1,
                    cell: cell.clone(),
                })?;
                codes.insert(token.clone(), code);
                listed.push((token, code));
            }
            ColumnMeta::Recode { codes, listed }
        }
        Role::Bin { .. } => {
            let mut bins = Vec::new();
            for cell in &cells {
                let (lo, hi) = split(cell)?;
                let bound = |s: &str| {
                    super::parse_number(s).ok_or_else(|| TransformError::Meta {
                        col: j + 1,
                        cell: cell.clone(),
                    })
                };
                bins.push((bound(&lo)?, bound(&hi)?));
            }
            if bins.is_empty() {
                return Err(TransformError::Meta {
                    col: j + 1,
                    cell: String::new(),
                });
            }
            ColumnMeta::Bins(bins)
        }
    })
}

/// The encoded matrix of `frame` under `roles` and the columns' metadata.
fn encode_with(
    frame: &Frame,
    roles: &[Role],
    metas: &[ColumnMeta],
) -> Result<Matrix, TransformError> {
    let total: usize = roles.iter().zip(metas).map(|(&r, m)| width(r, m)).sum();
    spores_exec::memory::ensure_fits("transformencode", 8.0 * (frame.rows() * total) as f64)?;
    let mut out = DenseMatrix::zeros(frame.rows(), total);
    let mut at = 0;
    for (j, (role, meta)) in roles.iter().zip(metas).enumerate() {
        let column = &frame.columns()[j];
        let dummy = matches!(
            role,
            Role::Recode { dummy: true }
                | Role::Bin { dummy: true, .. }
                | Role::Hash { dummy: true, .. }
        );
        for i in 0..frame.rows() {
            match role {
                Role::PassThrough => {
                    let v = match column {
                        Column::Number { values, .. } => values[i],
                        Column::Text(t) => match t[i].as_deref() {
                            None | Some("") => f64::NAN,
                            // Booleans pass through as 1 and 0, as SystemDS encodes them
                            // (`frameSort` of the cleaning pipelines' flags).
                            Some(s) if s.eq_ignore_ascii_case("true") => 1.0,
                            Some(s) if s.eq_ignore_ascii_case("false") => 0.0,
                            Some(s) => super::parse_number(s).ok_or_else(|| {
                                TransformError::NotANumber {
                                    row: i + 1,
                                    col: j + 1,
                                    text: s.to_string(),
                                }
                            })?,
                        },
                    };
                    out.set(i, at, v);
                }
                _ => {
                    let code = match meta {
                        ColumnMeta::Hash(k) => hash_code(column, i, *k),
                        _ => meta.code(column.text(i).as_deref())?,
                    };
                    if !dummy {
                        out.set(i, at, code);
                    } else if code.is_finite() && code >= 1.0 {
                        out.set(i, at + code as usize - 1, 1.0);
                    }
                }
            }
        }
        at += width(*role, meta);
    }
    Ok(Matrix::Dense(out).into_best_format())
}

/// `[X, M] = transformencode(target=F, spec=s)` for a spec without `udf`.
pub fn encode(frame: &Frame, spec: &str) -> Result<(Matrix, Frame), TransformError> {
    let (x, meta, udf) = encode_then_udf(frame, spec)?;
    match udf {
        Some(_) => Err(TransformError::Unsupported(
            "`udf` here (only a script's transformencode calls functions)".into(),
        )),
        None => Ok((x, meta)),
    }
}

/// `transformencode` before its `udf`: the encoded matrix, the metadata, and the call of
/// the spec's `udf` still to make.
pub type Encoded = (Matrix, Frame, Option<UdfCall>);

/// A `udf` to call after encoding: the function and the encoded columns of each column
/// it applies to, in the spec's order.
#[derive(Clone, Debug, PartialEq)]
pub struct UdfCall {
    pub function: String,
    pub columns: Vec<Range<usize>>,
}

/// `transformencode` before its `udf` (see [`Encoded`]).
pub fn encode_then_udf(frame: &Frame, spec: &str) -> Result<Encoded, TransformError> {
    let names = frame.names();
    let spec = Spec::parse(spec, &names)?;
    let metas: Vec<ColumnMeta> = spec
        .roles
        .iter()
        .enumerate()
        .map(|(j, &role)| build(&frame.columns()[j], frame.rows(), role))
        .collect();
    let x = encode_with(frame, &spec.roles, &metas)?;
    let udf = udf_call(spec.udf, &spec.roles, &metas);
    let cells: Vec<Vec<String>> = metas.iter().map(ColumnMeta::cells).collect();
    let rows = cells.iter().map(Vec::len).max().unwrap_or(0);
    let columns = cells
        .into_iter()
        .map(|c| {
            Column::Text(
                (0..rows)
                    .map(|i| c.get(i).map(|s| Arc::from(s.as_str())))
                    .collect(),
            )
        })
        .collect();
    // SystemDS records each recoded column's number of codes, and a binned one's bins.
    let info = metas
        .iter()
        .map(|m| ColumnInfo {
            distinct: match m {
                ColumnMeta::Recode { codes, .. } => codes.len() as i64,
                ColumnMeta::Bins(b) => b.len() as i64,
                ColumnMeta::Hash(_) | ColumnMeta::None => -1,
            },
            missing: None,
        })
        .collect();
    let meta = Frame::new(rows, frame.names.clone(), columns).with_info(info);
    Ok((x, meta, udf))
}

/// `transformapply(target=F, spec=s, meta=M)`: `F` encoded with `M`'s codes and bins.
pub fn apply(frame: &Frame, spec: &str, meta: &Frame) -> Result<Matrix, TransformError> {
    match apply_then_udf(frame, spec, meta)? {
        (x, None) => Ok(x),
        (_, Some(_)) => Err(TransformError::Unsupported(
            "`udf` here (only a script's transformapply calls functions)".into(),
        )),
    }
}

/// `transformapply` before its `udf`: the encoded matrix and the call of the spec's `udf`
/// still to make.
pub fn apply_then_udf(
    frame: &Frame,
    spec: &str,
    meta: &Frame,
) -> Result<(Matrix, Option<UdfCall>), TransformError> {
    let names = frame.names();
    let spec = Spec::parse(spec, &names)?;
    let meta_names = meta.names();
    let metas = if !spec.ids && names != meta_names {
        // Columns by name: each takes the metadata column of its name (a transform
        // applied to a subset or a reordering of the columns it was built on).
        let columns = names
            .iter()
            .map(|name| match meta_names.iter().position(|m| m == name) {
                Some(pos) => Ok(meta.columns()[pos].clone()),
                None => Err(TransformError::NoColumn {
                    column: format!("\"{name}\" in the metadata"),
                    cols: meta_names.len(),
                }),
            })
            .collect::<Result<Vec<_>, _>>()?;
        let named = Frame::new(meta.rows(), Some(names.clone()), columns);
        read_metas(&named, &spec.roles)?
    } else {
        read_metas(meta, &spec.roles)?
    };
    let x = encode_with(frame, &spec.roles, &metas)?;
    Ok((x, udf_call(spec.udf, &spec.roles, &metas)))
}

/// Where a spec's `udf` applies: the encoded columns of each column it lists.
fn udf_call(udf: Option<Udf>, roles: &[Role], metas: &[ColumnMeta]) -> Option<UdfCall> {
    let udf = udf?;
    let mut starts = Vec::with_capacity(roles.len() + 1);
    let mut at = 0;
    for (&role, m) in roles.iter().zip(metas) {
        starts.push(at);
        at += width(role, m);
    }
    starts.push(at);
    Some(UdfCall {
        function: udf.function,
        columns: udf
            .columns
            .iter()
            .map(|&j| starts[j]..starts[j + 1])
            .collect(),
    })
}

/// Every column's metadata, one column of `meta` per role.
fn read_metas(meta: &Frame, roles: &[Role]) -> Result<Vec<ColumnMeta>, TransformError> {
    if meta.cols() != roles.len() {
        return Err(TransformError::MetaColumns {
            meta: meta.cols(),
            cols: roles.len(),
        });
    }
    roles
        .iter()
        .enumerate()
        .map(|(j, &role)| read_meta(meta, j, role))
        .collect()
}

/// How many encoded columns a column with `role` and `meta` takes.
fn width(role: Role, meta: &ColumnMeta) -> usize {
    match role {
        Role::Recode { dummy: true }
        | Role::Bin { dummy: true, .. }
        | Role::Hash { dummy: true, .. } => meta.width(),
        _ => 1,
    }
}

/// A bin code decoded as SystemDS's `DecoderBin` does: code `k` is the centre of bin `k`
/// plus the code's fraction of a bin width (`2.25` is a quarter past the centre of bin
/// 2); code 0 is the first bin's lower edge, NaN stays NaN.
fn bin_value(code: f64, bins: &[(f64, f64)]) -> Result<f64, TransformError> {
    if code.is_nan() {
        return Ok(code);
    }
    // Java's Math.round: halves round up.
    let key = (code + 0.5).floor();
    if key == 0.0 {
        if let Some(&(low, _)) = bins.first() {
            return Ok(low);
        }
    }
    if key < 1.0 || key > bins.len() as f64 {
        return Err(TransformError::Unsupported(format!(
            "decoding bin code {code}: the column has bins 1 to {}",
            bins.len()
        )));
    }
    let (low, high) = bins[key as usize - 1];
    Ok(low + (high - low) / 2.0 + (code - key) * (high - low))
}

/// `transformcolmap(target=M, spec=s)`: one row per column of the frame `M` describes,
/// holding its 1-based index and the first and last encoded columns it takes (as many
/// as its distinct values or bins when dummycoded), as SystemDS's
/// `MultiColumnEncoder.getColMapping`.
pub fn column_map(meta: &Frame, spec: &str) -> Result<Matrix, TransformError> {
    let spec = Spec::parse(spec, &meta.names())?;
    let metas = read_metas(meta, &spec.roles)?;
    let mut map = DenseMatrix::zeros(spec.roles.len(), 3);
    let mut last = 0;
    for (j, (&role, m)) in spec.roles.iter().zip(&metas).enumerate() {
        map.set(j, 0, (j + 1) as f64);
        map.set(j, 1, (last + 1) as f64);
        last += width(role, m);
        map.set(j, 2, last as f64);
    }
    Ok(Matrix::Dense(map))
}

/// `transformdecode(target=X, spec=s, meta=M)`: the frame `X` encodes; recoded and
/// dummycoded columns give back their tokens (`STRING`), the others their numbers
/// (`FP64`).
pub fn decode(x: &Matrix, spec: &str, meta: &Frame) -> Result<Frame, TransformError> {
    let spec = Spec::parse(spec, &meta.names())?;
    let metas = read_metas(meta, &spec.roles)?;
    let widths: Vec<usize> = spec
        .roles
        .iter()
        .zip(&metas)
        .map(|(&role, m)| width(role, m))
        .collect();
    let expected: usize = widths.iter().sum();
    if x.cols() != expected {
        return Err(TransformError::DecodeWidth {
            found: x.cols(),
            expected,
        });
    }
    spores_exec::memory::ensure_fits(
        "transformdecode",
        16.0 * (x.rows() * spec.roles.len()) as f64,
    )?;
    let mut columns = Vec::with_capacity(spec.roles.len());
    let mut at = 0;
    for (j, (role, m)) in spec.roles.iter().zip(&metas).enumerate() {
        let code_of = |i: usize| -> f64 {
            match role {
                Role::Recode { dummy: true } | Role::Bin { dummy: true, .. } => (0..widths[j])
                    .find(|&k| x.get(i, at + k) != 0.0)
                    .map_or(f64::NAN, |k| (k + 1) as f64),
                _ => x.get(i, at),
            }
        };
        columns.push(match (role, m) {
            (Role::PassThrough, _) => Column::Number {
                ty: ValueType::Fp64,
                values: (0..x.rows()).map(|i| x.get(i, at)).collect(),
            },
            (_, ColumnMeta::Recode { listed, .. }) => {
                let tokens: HashMap<usize, &str> =
                    listed.iter().map(|(t, c)| (*c, t.as_str())).collect();
                Column::Text(
                    (0..x.rows())
                        .map(|i| {
                            let c = code_of(i);
                            (c.is_finite() && c >= 1.0)
                                .then(|| tokens.get(&(c as usize)).map(|t| Arc::from(*t)))
                                .flatten()
                        })
                        .collect(),
                )
            }
            // SystemDS's decoded frame is all STRING, a bin's value as Java prints it.
            (_, ColumnMeta::Bins(bins)) => Column::Text(
                (0..x.rows())
                    .map(|i| {
                        bin_value(code_of(i), bins)
                            .map(|v| Some(Arc::from(crate::number::format_double(v))))
                    })
                    .collect::<Result<_, _>>()?,
            ),
            (Role::Hash { .. }, _) => {
                return Err(TransformError::Unsupported(format!(
                    "decoding hashed column {} (hashing cannot be undone)",
                    j + 1
                )))
            }
            _ => {
                return Err(TransformError::Unsupported(format!(
                    "decoding column {} without its metadata",
                    j + 1
                )))
            }
        });
        at += widths[j];
    }
    Ok(Frame::new(x.rows(), meta.names.clone(), columns))
}

/// A transform spec: SystemDS's lenient JSON (keys and words need no quotes).
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Json {
    Object(Vec<(String, Json)>),
    Array(Vec<Json>),
    Str(String),
    /// An unquoted word (`equi-width`).
    Bare(String),
    Number(f64),
    Bool(bool),
}

impl Json {
    pub(super) fn parse(text: &str) -> Result<Json, TransformError> {
        let mut p = JsonParser {
            s: text.as_bytes(),
            at: 0,
        };
        let v = p.value()?;
        p.skip();
        if p.at != p.s.len() {
            return Err(p.error("text after the spec"));
        }
        Ok(v)
    }
}

struct JsonParser<'a> {
    s: &'a [u8],
    at: usize,
}

impl JsonParser<'_> {
    fn error(&self, what: &str) -> TransformError {
        TransformError::Spec(format!("{what} at character {}", self.at + 1))
    }

    fn skip(&mut self) {
        while self.at < self.s.len() && self.s[self.at].is_ascii_whitespace() {
            self.at += 1;
        }
    }

    fn eat(&mut self, c: u8) -> bool {
        self.skip();
        if self.s.get(self.at) == Some(&c) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    /// Items separated by commas up to `close` (the opening bracket already read).
    fn sequence<T>(
        &mut self,
        close: u8,
        mut item: impl FnMut(&mut Self) -> Result<T, TransformError>,
    ) -> Result<Vec<T>, TransformError> {
        let mut items = Vec::new();
        if self.eat(close) {
            return Ok(items);
        }
        loop {
            items.push(item(self)?);
            if self.eat(close) {
                return Ok(items);
            }
            if !self.eat(b',') {
                return Err(self.error(&format!("expected `,` or `{}`", close as char)));
            }
        }
    }

    fn value(&mut self) -> Result<Json, TransformError> {
        self.skip();
        match self.s.get(self.at) {
            Some(b'{') => {
                self.at += 1;
                let fields = self.sequence(b'}', |p| {
                    let key = match p.value()? {
                        Json::Str(k) | Json::Bare(k) => k,
                        _ => return Err(p.error("expected a key")),
                    };
                    if !p.eat(b':') {
                        return Err(p.error("expected `:`"));
                    }
                    Ok((key, p.value()?))
                })?;
                Ok(Json::Object(fields))
            }
            Some(b'[') => {
                self.at += 1;
                Ok(Json::Array(self.sequence(b']', Self::value)?))
            }
            Some(b'"') => {
                self.at += 1;
                let mut out = Vec::new();
                while let Some(&c) = self.s.get(self.at) {
                    self.at += 1;
                    match c {
                        b'"' => return Ok(Json::Str(String::from_utf8_lossy(&out).into_owned())),
                        b'\\' => {
                            if let Some(&e) = self.s.get(self.at) {
                                self.at += 1;
                                out.push(match e {
                                    b'n' => b'\n',
                                    b't' => b'\t',
                                    e => e,
                                });
                            }
                        }
                        c => out.push(c),
                    }
                }
                Err(self.error("unterminated string"))
            }
            Some(_) => {
                let start = self.at;
                while self.at < self.s.len()
                    && !matches!(self.s[self.at], b',' | b':' | b'}' | b']' | b'{' | b'[')
                    && !self.s[self.at].is_ascii_whitespace()
                {
                    self.at += 1;
                }
                let word = String::from_utf8_lossy(&self.s[start..self.at]).into_owned();
                if word.is_empty() {
                    return Err(self.error("expected a value"));
                }
                // A word is a number only when it starts like one (`nan` and `inf` are
                // names).
                let numeric = word.starts_with(|c: char| c.is_ascii_digit() || "-+.".contains(c));
                Ok(match word.as_str() {
                    "true" => Json::Bool(true),
                    "false" => Json::Bool(false),
                    w if numeric => w
                        .parse()
                        .map_or_else(|_| Json::Bare(word.clone()), Json::Number),
                    _ => Json::Bare(word),
                })
            }
            None => Err(self.error("unexpected end")),
        }
    }
}

/// A transform spec or metadata frame that does not fit the data.
#[derive(Debug, thiserror::Error)]
pub enum TransformError {
    #[error("transform spec: {0}")]
    Spec(String),
    #[error("transform spec: no column {column} among the frame's {cols}")]
    NoColumn { column: String, cols: usize },
    #[error("transform: {0} is not supported")]
    Unsupported(String),
    #[error("transform: cell [{row}, {col}] is \"{text}\", not a number (a column passed through must hold numbers)")]
    NotANumber {
        row: usize,
        col: usize,
        text: String,
    },
    #[error("transform metadata: column {col} has \"{cell}\", not `token\u{b7}code`")]
    Meta { col: usize, cell: String },
    #[error("transform metadata has {meta} columns, the frame {cols}")]
    MetaColumns { meta: usize, cols: usize },
    #[error(
        "transformdecode: the matrix has {found} columns, the spec and metadata make {expected}"
    )]
    DecodeWidth { found: usize, expected: usize },
    /// A result that would not fit the memory budget (`--memory`).
    #[error(transparent)]
    Budget(#[from] spores_exec::ExecError),
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(cells: &[&str], rows: usize, cols: usize) -> Frame {
        let data: Vec<Option<Arc<str>>> = cells.iter().map(|s| Some(Arc::from(*s))).collect();
        Frame::filled(&data, rows, cols, None).unwrap()
    }

    #[test]
    fn lenient_specs_parse() {
        let j = Json::parse(r#"{ids: true, recode: [1, "b"], bin: [{id: 2, method: equi-width}]}"#)
            .unwrap();
        let Json::Object(f) = j else { panic!() };
        assert_eq!(f[0], ("ids".into(), Json::Bool(true)));
        assert_eq!(
            f[1].1,
            Json::Array(vec![Json::Number(1.0), Json::Str("b".into())])
        );
        assert!(Json::parse("{ids: true").is_err());
        // Words that Rust would read as numbers (`nan`, `inf`) are names.
        assert_eq!(
            Json::parse("[nan, inf, -2, 1e3]").unwrap(),
            Json::Array(vec![
                Json::Bare("nan".into()),
                Json::Bare("inf".into()),
                Json::Number(-2.0),
                Json::Number(1000.0)
            ])
        );
    }

    #[test]
    fn recode_dummycode_and_back() {
        let f = frame(&["b", "x", "a", "y", "b", "x", "c", "z"], 4, 2);
        let spec = "{ids: true, recode: [2], dummycode: [1]}";
        let (x, meta) = encode(&f, spec).unwrap();
        let d = x.to_dense();
        assert_eq!(
            d.data(),
            &[1., 0., 0., 1., 0., 1., 0., 2., 1., 0., 0., 1., 0., 0., 1., 3.]
        );
        // Codes in order of appearance, listed in Java's HashMap order.
        assert_eq!(meta.text(0, 0).as_deref(), Some("a\u{b7}2"));
        assert_eq!(meta.text(1, 0).as_deref(), Some("b\u{b7}1"));
        let back = decode(&x, spec, &meta).unwrap();
        assert_eq!(back.to_csv(false, " "), "b x\na y\nb x\nc z\n");
        let unseen = frame(&["q", "x"], 1, 2);
        let y = apply(&unseen, spec, &meta).unwrap().to_dense();
        assert_eq!(&y.data()[..3], &[0., 0., 0.]);
        assert_eq!(y.get(0, 3), 1.0);
        assert!(encode(&f, "{ids: true, hash: [1]}").is_err());
        assert!(encode(&f, "{ids: true, udf: {name: f, ids: [1]}}").is_err());
        assert!(apply(&unseen, "{ids: true, udf: {name: f, ids: [1]}}", &meta).is_err());
        let (_, _, udf) = encode_then_udf(
            &f,
            "{ids: true, recode: [2], dummycode: [1], udf: {name: g, ids: [2, 1]}}",
        )
        .unwrap();
        // Column 1 became three dummy columns, column 2 passes through after them.
        let call = UdfCall {
            function: "g".into(),
            columns: vec![3..4, 0..3],
        };
        assert_eq!(udf, Some(call));
        assert!(encode(&f, "{ids: true, recode: [3]}").is_err());
    }

    #[test]
    fn hashing_codes_java_hashes_and_applies_by_name() {
        // Java: "a".hashCode() = 97, "abc" 96354, "polygenelubricants" i32::MIN.
        let f = frame(&["a", "x", "abc", "y", "polygenelubricants", "x"], 3, 2);
        let (x, meta) = encode(&f, "{ids: true, hash: [1], recode: [2], K: 100}").unwrap();
        let d = x.to_dense();
        assert_eq!(d.data(), &[98.0, 1.0, 55.0, 2.0, 49.0, 1.0]);
        assert_eq!(meta.text(0, 0).as_deref(), Some("100"));
        let spec = "{ids: true, hash: [1], recode: [2], dummycode: [1], K: 4}";
        let (dummy, _) = encode(&f, spec).unwrap();
        // 97 mod 4 + 1 = 2; 96354 mod 4 + 1 = 3; 2^31 mod 4 + 1 = 1.
        assert_eq!(dummy.cols(), 5);
        assert_eq!(dummy.get(0, 1), 1.0);
        assert_eq!(dummy.get(1, 2), 1.0);
        assert_eq!(dummy.get(2, 0), 1.0);

        // By name, on a subset of the columns the metadata was built on.
        let named = Frame::new(3, Some(vec!["k".into(), "v".into()]), f.columns().to_vec());
        let (x, meta) = encode(&named, "{recode: [k, v]}").unwrap();
        let v_only = Frame::new(3, Some(vec!["v".into()]), vec![f.columns()[1].clone()]);
        let applied = apply(&v_only, "{recode: [v]}", &meta).unwrap();
        assert_eq!(applied.cols(), 1);
        for i in 0..3 {
            assert_eq!(applied.get(i, 0), x.get(i, 1));
        }
        let other = Frame::new(3, Some(vec!["w".into()]), vec![f.columns()[1].clone()]);
        let err = apply(&other, "{recode: [w]}", &meta).unwrap_err();
        assert!(err.to_string().contains("\"w\" in the metadata"), "{err}");
    }
}
