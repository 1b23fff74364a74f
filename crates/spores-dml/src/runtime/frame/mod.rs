//! DML frames: tables whose columns each hold one value type (`STRING`, `FP64`, `FP32`,
//! `INT64`, `INT32` or `BOOLEAN`), made by `frame(...)`, `as.frame(X)` or `read(...,
//! data_type="frame")`, and read back with `as.matrix`, `as.scalar`, indexing, `cbind`,
//! `rbind`, `toString`, `detectSchema` and `write`.
//!
//! Frames follow SystemDS 3.4 where a script can see it: `as.frame` of a matrix gives each
//! column the narrowest type that holds all its cells (`BOOLEAN` for 0/1, then `INT32`,
//! `INT64`, `FP32` when Java prints the cell the same as a float, else `FP64`), `toString`
//! prints the `# FRAME: nrow = r, ncol = c` header, the column names (`C1`, `C2`, ... when
//! none were given) and the schema, then the rows, an `FP64` cell with `decimal` digits and
//! an `FP32` cell as Java's `Float.toString`.
//!
//! Frames are values of the interpreter only: the optimizer sees a frame node as a value
//! of unknown size and never rewrites around it.

use std::ops::Range;
use std::path::Path;
use std::sync::Arc;

use spores_exec::{DenseMatrix, Matrix};

pub mod builtins;
pub mod lambda;
pub mod patterns;
pub mod porter;
mod remove_empty;
pub mod smoothing;
pub mod tokenize;
pub mod transform;
use crate::number::{format_double, format_float};

/// The value type of a frame column, SystemDS's names in order of generality: a column of
/// one type converts to any type after it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ValueType {
    Boolean,
    Int32,
    Int64,
    Fp32,
    Fp64,
    String,
}

impl ValueType {
    /// SystemDS's name, as `toString` and `.mtd` files write it.
    pub fn name(self) -> &'static str {
        match self {
            ValueType::Boolean => "BOOLEAN",
            ValueType::Int32 => "INT32",
            ValueType::Int64 => "INT64",
            ValueType::Fp32 => "FP32",
            ValueType::Fp64 => "FP64",
            ValueType::String => "STRING",
        }
    }

    /// A schema entry as scripts and `.mtd` files write it (any case; DML's `double`,
    /// `int`, `boolean`, `string` too).
    pub fn parse(name: &str) -> Option<ValueType> {
        Some(match name.trim().to_ascii_uppercase().as_str() {
            "BOOLEAN" | "BOOL" => ValueType::Boolean,
            "INT32" => ValueType::Int32,
            "INT64" | "INT" | "INTEGER" | "LONG" => ValueType::Int64,
            "FP32" | "FLOAT" => ValueType::Fp32,
            "FP64" | "DOUBLE" => ValueType::Fp64,
            "STRING" | "STR" | "CHARACTER" => ValueType::String,
            _ => return None,
        })
    }

    /// The narrowest type at least `min` that holds `v` (SystemDS's
    /// `FrameUtil.isType(double, ValueType)`).
    fn of_number(v: f64, min: ValueType) -> ValueType {
        let fits = |t: ValueType| match t {
            ValueType::Boolean => v == 0.0 || v == 1.0,
            ValueType::Int32 => v.trunc() == v && v >= i32::MIN as f64 && v <= i32::MAX as f64,
            ValueType::Int64 => v.trunc() == v && v.abs() < 9.2e18,
            // Java prints the cell the same as a float (NaN and the infinities too).
            ValueType::Fp32 => format_float(v as f32) == format_double(v),
            ValueType::Fp64 | ValueType::String => true,
        };
        [
            ValueType::Boolean,
            ValueType::Int32,
            ValueType::Int64,
            ValueType::Fp32,
            ValueType::Fp64,
        ]
        .into_iter()
        .filter(|&t| t >= min)
        .find(|&t| fits(t))
        .unwrap_or(ValueType::Fp64)
    }

    /// `v` as a cell of this (numeric) type holds it.
    fn coerce(self, v: f64) -> f64 {
        match self {
            ValueType::Boolean => f64::from(u8::from(v != 0.0)),
            ValueType::Int32 | ValueType::Int64 => {
                if v.is_finite() {
                    v.trunc()
                } else {
                    0.0
                }
            }
            ValueType::Fp32 => v as f32 as f64,
            ValueType::Fp64 | ValueType::String => v,
        }
    }
}

/// One column's cells.
#[derive(Clone, Debug, PartialEq)]
pub enum Column {
    /// `STRING` cells; `None` is SystemDS's `null` (a cell never set).
    Text(Vec<Option<Arc<str>>>),
    /// Cells of a numeric or boolean type, each already as the type holds it.
    Number { ty: ValueType, values: Vec<f64> },
}

impl Column {
    fn len(&self) -> usize {
        match self {
            Column::Text(v) => v.len(),
            Column::Number { values, .. } => values.len(),
        }
    }

    pub fn value_type(&self) -> ValueType {
        match self {
            Column::Text(_) => ValueType::String,
            Column::Number { ty, .. } => *ty,
        }
    }

    fn slice(&self, rows: Range<usize>) -> Column {
        match self {
            Column::Text(v) => Column::Text(v[rows].to_vec()),
            Column::Number { ty, values } => Column::Number {
                ty: *ty,
                values: values[rows].to_vec(),
            },
        }
    }

    /// Cell `i` as text, as Java's `toString` of the cell's object (`null` is `None`).
    fn text(&self, i: usize) -> Option<String> {
        match self {
            Column::Text(v) => v[i].as_deref().map(str::to_string),
            Column::Number { ty, values } => Some(number_text(*ty, values[i])),
        }
    }

    /// Cell `i` as a number, a string cell parsed (SystemDS's `as.matrix` of a frame): a
    /// missing cell (`null`, as an NA string reads) is NaN, an empty one 0.
    fn number(&self, i: usize, j: usize) -> Result<f64, FrameError> {
        match self {
            Column::Number { values, .. } => Ok(values[i]),
            Column::Text(v) => match v[i].as_deref() {
                None => Ok(f64::NAN),
                Some("") => Ok(0.0),
                Some(s) => parse_number(s).ok_or_else(|| FrameError::NotANumber {
                    row: i + 1,
                    col: j + 1,
                    text: s.to_string(),
                }),
            },
        }
    }

    /// The column converted to type `ty`; strings that are not numbers are errors.
    fn converted(&self, ty: ValueType, j: usize) -> Result<Column, FrameError> {
        if self.value_type() == ty {
            return Ok(self.clone());
        }
        let n = self.len();
        Ok(match ty {
            ValueType::String => {
                Column::Text((0..n).map(|i| self.text(i).map(Arc::from)).collect())
            }
            ty => Column::Number {
                ty,
                values: (0..n)
                    .map(|i| match self {
                        Column::Text(v) => match v[i].as_deref() {
                            None | Some("") => Ok(0.0),
                            Some(s) => parse_cell(s, ty).ok_or_else(|| FrameError::NotOfType {
                                row: i + 1,
                                col: j + 1,
                                text: s.to_string(),
                                ty: ty.name(),
                            }),
                        },
                        Column::Number { values, .. } => Ok(ty.coerce(values[i])),
                    })
                    .collect::<Result<_, _>>()?,
            },
        })
    }

    fn extend(&mut self, other: &Column) {
        match (self, other) {
            (Column::Text(a), Column::Text(b)) => a.extend(b.iter().cloned()),
            (Column::Number { values: a, .. }, Column::Number { values: b, .. }) => {
                a.extend_from_slice(b)
            }
            _ => unreachable!("columns are converted to one type before they are joined"),
        }
    }

    fn set(&mut self, i: usize, from: &Column, k: usize) {
        match (self, from) {
            (Column::Text(a), Column::Text(b)) => a[i] = b[k].clone(),
            (Column::Number { values: a, .. }, Column::Number { values: b, .. }) => a[i] = b[k],
            _ => unreachable!("a column is converted to the target's type before assignment"),
        }
    }
}

/// A numeric cell as Java prints its object: `Double.toString`, `Float.toString`, an
/// integer, `true`/`false`.
fn number_text(ty: ValueType, v: f64) -> String {
    match ty {
        ValueType::Boolean => (v != 0.0).to_string(),
        ValueType::Int32 | ValueType::Int64 => format!("{}", v as i64),
        ValueType::Fp32 => format_float(v as f32),
        ValueType::Fp64 | ValueType::String => format_double(v),
    }
}

/// A number as SystemDS reads one from a frame's string cell (Java's spellings of NaN and
/// the infinities included).
fn parse_number(s: &str) -> Option<f64> {
    let t = s.trim();
    match t {
        "NaN" => Some(f64::NAN),
        "Infinity" | "+Infinity" => Some(f64::INFINITY),
        "-Infinity" => Some(f64::NEG_INFINITY),
        _ => t
            .parse::<f64>()
            .ok()
            .filter(|_| !t.contains(['i', 'I', 'n', 'N'])),
    }
}

/// A string cell read as a cell of numeric type `ty` (booleans as `true`/`false`/`1`/`0`
/// in any case, as SystemDS's `BooleanArray.parseBoolean`).
fn parse_cell(s: &str, ty: ValueType) -> Option<f64> {
    match ty {
        ValueType::Boolean => match s.trim().to_ascii_lowercase().as_str() {
            "true" | "t" | "1" | "1.0" => Some(1.0),
            "false" | "f" | "0" | "0.0" => Some(0.0),
            _ => None,
        },
        ValueType::Int32 | ValueType::Int64 => {
            let v = parse_number(s)?;
            (v.trunc() == v).then_some(v)
        }
        ty => parse_number(s).map(|v| ty.coerce(v)),
    }
}

/// A DML frame: `rows` rows of typed columns, with names when they were given.
#[derive(Clone, Debug, PartialEq)]
pub struct Frame {
    rows: usize,
    /// `None`: SystemDS's default names, `C1`, `C2`, ...
    names: Option<Vec<String>>,
    columns: Vec<Column>,
    /// `None`: every column's statistics unknown (SystemDS's default column metadata).
    info: Option<Vec<ColumnInfo>>,
}

/// What SystemDS's `ColumnMetadata` records about a column: its number of distinct values
/// (`transformencode` sets it on its metadata frame: the codes or bins of a column) and
/// the text standing for a missing value. A frame CSV carries them as `#Meta·MV` and
/// `#Meta·ND` lines when any is known.
#[derive(Clone, Debug, PartialEq)]
pub struct ColumnInfo {
    /// -1 when unknown.
    pub distinct: i64,
    pub missing: Option<String>,
}

impl Default for ColumnInfo {
    fn default() -> Self {
        ColumnInfo {
            distinct: -1,
            missing: None,
        }
    }
}

/// The first field of a frame CSV's line of missing-value texts, and of distinct counts.
const META_MISSING: &str = "#Meta\u{b7}MV";
const META_DISTINCT: &str = "#Meta\u{b7}ND";

impl Frame {
    /// A frame of these columns (all of `rows` cells).
    pub fn new(rows: usize, names: Option<Vec<String>>, columns: Vec<Column>) -> Frame {
        debug_assert!(columns.iter().all(|c| c.len() == rows));
        Frame {
            rows,
            names,
            columns,
            info: None,
        }
    }

    /// The same frame with these column statistics (one per column).
    pub fn with_info(mut self, info: Vec<ColumnInfo>) -> Frame {
        debug_assert_eq!(info.len(), self.cols());
        self.info = info
            .iter()
            .any(|c| *c != ColumnInfo::default())
            .then_some(info);
        self
    }

    pub fn rows(&self) -> usize {
        self.rows
    }

    pub fn cols(&self) -> usize {
        self.columns.len()
    }

    pub fn columns(&self) -> &[Column] {
        &self.columns
    }

    pub fn schema(&self) -> Vec<ValueType> {
        self.columns.iter().map(Column::value_type).collect()
    }

    /// The column names, `C1`, `C2`, ... where none were given.
    pub fn names(&self) -> Vec<String> {
        match &self.names {
            Some(n) => n.clone(),
            None => (1..=self.cols()).map(|j| format!("C{j}")).collect(),
        }
    }

    /// Cell (`i`, `j`) as text (`None` for `null`).
    pub fn text(&self, i: usize, j: usize) -> Option<String> {
        self.columns[j].text(i)
    }

    /// `as.frame(X)`: each column of the narrowest type that holds its cells.
    pub fn from_matrix(m: &Matrix) -> Result<Frame, FrameError> {
        ensure_cells("as.frame", m.rows(), m.cols())?;
        let dense = m.to_dense();
        let columns = (0..m.cols())
            .map(|j| {
                let values: Vec<f64> = (0..m.rows()).map(|i| dense.get(i, j)).collect();
                let mut ty = ValueType::Boolean;
                for &v in &values {
                    if ty == ValueType::Fp64 {
                        break;
                    }
                    ty = ValueType::of_number(v, ty);
                }
                let values = values.into_iter().map(|v| ty.coerce(v)).collect();
                Column::Number { ty, values }
            })
            .collect();
        Ok(Frame::new(m.rows(), None, columns))
    }

    /// `frame(data, rows, cols, schema)`: the cells of `data` row by row, repeated to fill
    /// the frame, each read as its column's type (`STRING` without a schema).
    pub fn filled(
        data: &[Option<Arc<str>>],
        rows: usize,
        cols: usize,
        schema: Option<Vec<ValueType>>,
    ) -> Result<Frame, FrameError> {
        ensure_cells("frame", rows, cols)?;
        let schema = schema.unwrap_or_else(|| vec![ValueType::String; cols]);
        if schema.len() != cols {
            return Err(FrameError::SchemaLength {
                what: "schema",
                given: schema.len(),
                cols,
            });
        }
        let cell = |i: usize, j: usize| -> Option<Arc<str>> {
            if data.is_empty() {
                None
            } else {
                data[(i * cols + j) % data.len()].clone()
            }
        };
        let columns = (0..cols)
            .map(|j| {
                let text = Column::Text((0..rows).map(|i| cell(i, j)).collect());
                text.converted(schema[j], j)
            })
            .collect::<Result<_, _>>()?;
        Ok(Frame::new(rows, None, columns))
    }

    /// `as.matrix(F)`: every cell as a number (string cells parsed; `null` is 0).
    pub fn to_matrix(&self) -> Result<Matrix, FrameError> {
        spores_exec::memory::ensure_fits("as.matrix", 8.0 * (self.rows * self.cols()) as f64)?;
        let mut out = DenseMatrix::zeros(self.rows, self.cols());
        for (j, column) in self.columns.iter().enumerate() {
            for i in 0..self.rows {
                out.set(i, j, column.number(i, j)?);
            }
        }
        Ok(Matrix::Dense(out))
    }

    /// The frame converted to `schema`, one type per column.
    pub fn with_schema(&self, schema: &[ValueType]) -> Result<Frame, FrameError> {
        if schema.len() != self.cols() {
            return Err(FrameError::SchemaLength {
                what: "schema",
                given: schema.len(),
                cols: self.cols(),
            });
        }
        let columns = self
            .columns
            .iter()
            .zip(schema)
            .enumerate()
            .map(|(j, (c, &ty))| c.converted(ty, j))
            .collect::<Result<_, _>>()?;
        let mut typed = Frame::new(self.rows, self.names.clone(), columns);
        typed.info = self.info.clone();
        Ok(typed)
    }

    /// `F[rows, cols]` (0-based ranges, checked by the caller). Given names go with
    /// their columns; default ones are numbered anew. (SystemDS keeps default names in
    /// some slices and not in others, `F[, 2:3]` against `F[, 2:j]`; this is the rule
    /// its builtins' printed frames agree with.)
    pub fn slice(&self, rows: Range<usize>, cols: Range<usize>) -> Frame {
        let n = rows.len();
        let sliced = Frame::new(
            n,
            self.names.as_ref().map(|v| v[cols.clone()].to_vec()),
            self.columns[cols.clone()]
                .iter()
                .map(|c| c.slice(rows.clone()))
                .collect(),
        );
        // SystemDS's slices keep the columns' statistics.
        match &self.info {
            Some(info) => sliced.with_info(info[cols].to_vec()),
            None => sliced,
        }
    }

    /// `F[rows, cols] = value`: `value` (of the block's size, or 1 x 1 to fill it) with
    /// each cell converted to the type of the column it lands in.
    pub fn assign(
        &self,
        rows: Range<usize>,
        cols: Range<usize>,
        value: &Frame,
    ) -> Result<Frame, FrameError> {
        let fill = value.rows == 1 && value.cols() == 1;
        if !fill && (value.rows != rows.len() || value.cols() != cols.len()) {
            return Err(FrameError::AssignShape {
                target: (rows.len(), cols.len()),
                value: (value.rows, value.cols()),
            });
        }
        let mut out = self.clone();
        for (k, j) in cols.enumerate() {
            let source = value.columns[if fill { 0 } else { k }]
                .converted(out.columns[j].value_type(), j)?;
            for (r, i) in rows.clone().enumerate() {
                out.columns[j].set(i, &source, if fill { 0 } else { r });
            }
        }
        Ok(out)
    }

    /// `cbind(A, B)`: B's columns after A's.
    pub fn cbind(&self, other: &Frame) -> Result<Frame, FrameError> {
        if self.rows != other.rows {
            return Err(FrameError::Bind {
                op: "cbind",
                left: (self.rows, self.cols()),
                right: (other.rows, other.cols()),
            });
        }
        ensure_cells("cbind", self.rows, self.cols() + other.cols())?;
        // As SystemDS: both sides' names, unless a name repeats (two frames of default
        // names, or a slice's `C2` beside another `C2`); then the default names.
        let names = [self.names(), other.names()].concat();
        let mut seen = std::collections::HashSet::new();
        let names = names.iter().all(|n| seen.insert(n)).then_some(names);
        let columns = self.columns.iter().chain(&other.columns).cloned().collect();
        Ok(Frame::new(self.rows, names, columns))
    }

    /// `rbind(A, B)`: B's rows after A's, each column of the more general of the two types.
    pub fn rbind(&self, other: &Frame) -> Result<Frame, FrameError> {
        if self.cols() != other.cols() {
            return Err(FrameError::Bind {
                op: "rbind",
                left: (self.rows, self.cols()),
                right: (other.rows, other.cols()),
            });
        }
        ensure_cells("rbind", self.rows + other.rows, self.cols())?;
        let mut columns = Vec::with_capacity(self.cols());
        for (j, (a, b)) in self.columns.iter().zip(&other.columns).enumerate() {
            let ty = a.value_type().max(b.value_type());
            let mut c = a.converted(ty, j)?;
            c.extend(&b.converted(ty, j)?);
            columns.push(c);
        }
        Ok(Frame::new(
            self.rows + other.rows,
            self.names.clone(),
            columns,
        ))
    }

    /// `detectSchema(F)`: one `STRING` row naming the type each column's cells fit
    /// (SystemDS's `FrameUtil.isType` over the cells as text, `CHARACTER` for
    /// one-character strings, `HASH32`/`HASH64` for hexadecimal ones, `·n` after the type
    /// of a column with empty cells).
    pub fn detect_schema(&self) -> Frame {
        let columns = self
            .columns
            .iter()
            .map(|c| {
                let (mut state, mut nulls) = (Detected::Unknown, false);
                for i in 0..self.rows {
                    let text = c.text(i).unwrap_or_default();
                    match Detected::of_text(&text, state) {
                        Detected::String => {
                            (state, nulls) = (Detected::String, false);
                            break;
                        }
                        Detected::Unknown => nulls = true,
                        found => state = state.max(found),
                    }
                }
                // SystemDS marks a column with empty cells `TYPE·n`.
                let name = if nulls {
                    format!("{}\u{b7}n", state.name())
                } else {
                    state.name().to_string()
                };
                Column::Text(vec![Some(Arc::from(name))])
            })
            .collect();
        Frame::new(1, None, columns)
    }

    /// `map(F, f)`: `f` of every cell's text (`null` cells stay `null`), all strings.
    pub fn map(&self, f: impl Fn(&str) -> Result<String, FrameError>) -> Result<Frame, FrameError> {
        ensure_cells("map", self.rows, self.cols())?;
        let columns = (0..self.cols())
            .map(|j| {
                (0..self.rows)
                    .map(|i| self.text(i, j).map(|t| f(&t).map(Arc::from)).transpose())
                    .collect::<Result<Vec<_>, _>>()
                    .map(Column::Text)
            })
            .collect::<Result<_, _>>()?;
        // SystemDS's `map` builds a new frame: default column names.
        Ok(Frame::new(self.rows, None, columns))
    }

    /// `map(F, f, margin=1)`: `f` of each row, its cells as Java's `String.valueOf` gives
    /// them (`null` for a missing one); the result must have a cell for every column (as
    /// SystemDS's `FrameBlock.map` builds it; extra cells are dropped).
    pub fn map_rows(
        &self,
        f: impl Fn(Vec<String>) -> Result<Vec<String>, FrameError>,
    ) -> Result<Frame, FrameError> {
        ensure_cells("map", self.rows, self.cols())?;
        let mut columns = vec![Vec::with_capacity(self.rows); self.cols()];
        for i in 0..self.rows {
            let row = (0..self.cols())
                .map(|j| self.text(i, j).unwrap_or_else(|| "null".to_string()))
                .collect();
            let out = f(row)?;
            if out.len() < self.cols() {
                return Err(FrameError::Lambda(format!(
                    "map: row {} gave {} values for {} columns",
                    i + 1,
                    out.len(),
                    self.cols()
                )));
            }
            for (column, cell) in columns.iter_mut().zip(out) {
                column.push(Some(Arc::from(cell.as_str())));
            }
        }
        let columns = columns.into_iter().map(Column::Text).collect();
        // SystemDS's `map` builds a new frame: default column names.
        Ok(Frame::new(self.rows, None, columns))
    }

    /// `dropInvalidType(F, schema)`: each cell whose text does not fit the type `schema`
    /// names for its column becomes missing (`null`; 0 or `false` in a numeric column),
    /// as SystemDS's `FrameBlock.dropInvalidType` decides it. The cell's text, trimmed,
    /// without quotes and lowercased, is given the first type `detectSchema` would give
    /// it, which must contain the schema's `FP` or `INT` (booleans pass as both) or
    /// the schema's whole name; `STRING` columns are kept. So, as in SystemDS, `3` is
    /// dropped from an `FP64` column (it reads as `INT32`).
    pub fn drop_invalid_type(&self, schema: &Frame) -> Result<Frame, FrameError> {
        if schema.cols() != self.cols() {
            return Err(FrameError::SchemaLength {
                what: "schema",
                given: schema.cols(),
                cols: self.cols(),
            });
        }
        ensure_cells("dropInvalidType", self.rows, self.cols())?;
        let mut columns = self.columns.clone();
        for (j, column) in columns.iter_mut().enumerate() {
            let named = schema.text(0, j).unwrap_or_default();
            let wanted = if named.contains("FP") {
                "FP"
            } else if named.contains("INT") {
                "INT"
            } else if named.contains("STRING") {
                continue;
            } else {
                named.as_str()
            };
            for i in 0..self.rows {
                let Some(text) = column.text(i) else { continue };
                let text = text.trim().replace('"', "").to_lowercase();
                let found = Detected::of_text(&text, Detected::Unknown);
                let fits = found.name().contains(wanted)
                    || (found == Detected::Boolean && matches!(wanted, "FP" | "INT"));
                if !fits {
                    match column {
                        Column::Text(cells) => cells[i] = None,
                        Column::Number { values, .. } => values[i] = 0.0,
                    }
                }
            }
        }
        Ok(Frame::new(self.rows, self.names.clone(), columns))
    }

    /// `colnames(F)`: one `STRING` row of the column names.
    pub fn column_names(&self) -> Frame {
        let columns = self
            .names()
            .into_iter()
            .map(|n| Column::Text(vec![Some(Arc::from(n))]))
            .collect();
        Frame::new(1, None, columns)
    }

    /// `toString(F)`: SystemDS's header lines, then `rows` x `cols` of the cells.
    pub fn to_text(
        &self,
        rows: usize,
        cols: usize,
        decimal: usize,
        sep: &str,
        linesep: &str,
    ) -> String {
        let (rows, cols) = (rows.min(self.rows), cols.min(self.cols()));
        let mut out = format!(
            "# FRAME: nrow = {}, ncol = {}{linesep}",
            self.rows,
            self.cols()
        );
        let names = self.names();
        out.push('#');
        out.push_str(sep);
        out.push_str(&names[..cols].join(sep));
        out.push_str(linesep);
        out.push('#');
        out.push_str(sep);
        let schema: Vec<&str> = self.columns[..cols]
            .iter()
            .map(|c| c.value_type().name())
            .collect();
        out.push_str(&schema.join(sep));
        out.push_str(linesep);
        for i in 0..rows {
            for (j, c) in self.columns[..cols].iter().enumerate() {
                if j > 0 {
                    out.push_str(sep);
                }
                match c {
                    Column::Text(v) => out.push_str(v[i].as_deref().unwrap_or("null")),
                    Column::Number { ty, values } => match ty {
                        ValueType::Fp64 if values[i].is_finite() => {
                            out.push_str(&crate::number::format_fixed(values[i], decimal))
                        }
                        ValueType::Boolean => {
                            out.push_str(if values[i] != 0.0 { "TRUE" } else { "FALSE" })
                        }
                        ty => out.push_str(&number_text(*ty, values[i])),
                    },
                }
            }
            out.push_str(linesep);
        }
        out
    }

    /// The frame as CSV text: a header line of the names when `header`, then one line per
    /// row (`null` cells empty), as SystemDS's `write(F, file, format="csv")`.
    pub fn to_csv(&self, header: bool, sep: &str) -> String {
        let mut out = String::new();
        if header {
            out.push_str(&self.names().join(sep));
            out.push('\n');
        }
        if let Some(info) = &self.info {
            let missing = info.iter().map(|c| c.missing.as_deref().unwrap_or("null"));
            let distinct = info.iter().map(|c| c.distinct.to_string());
            out.push_str(
                &std::iter::once(META_MISSING.to_string())
                    .chain(missing.map(str::to_string))
                    .collect::<Vec<_>>()
                    .join(sep),
            );
            out.push('\n');
            out.push_str(
                &std::iter::once(META_DISTINCT.to_string())
                    .chain(distinct)
                    .collect::<Vec<_>>()
                    .join(sep),
            );
            out.push('\n');
        }
        for i in 0..self.rows {
            let cells: Vec<String> = (0..self.cols())
                .map(|j| self.text(i, j).unwrap_or_default())
                .collect();
            out.push_str(&cells.join(sep));
            out.push('\n');
        }
        out
    }

    /// `F == G` (`equal`) or `F != G` of two frames of one shape: a `BOOLEAN` frame,
    /// cell by cell. Two number cells compare as numbers, others as their text (two
    /// `null` cells are equal).
    pub fn compare_cells(&self, other: &Frame, equal: bool) -> Result<Frame, FrameError> {
        let op = if equal { "==" } else { "!=" };
        if (self.rows, self.cols()) != (other.rows, other.cols()) {
            return Err(FrameError::Bind {
                op,
                left: (self.rows, self.cols()),
                right: (other.rows, other.cols()),
            });
        }
        ensure_cells(op, self.rows, self.cols())?;
        let columns = self
            .columns
            .iter()
            .zip(&other.columns)
            .enumerate()
            .map(|(j, (a, b))| {
                let values = (0..self.rows)
                    .map(|i| {
                        let same = match (a, b) {
                            (
                                Column::Number { values: x, .. },
                                Column::Number { values: y, .. },
                            ) => x[i] == y[i],
                            _ => self.text(i, j) == other.text(i, j),
                        };
                        f64::from(u8::from(same == equal))
                    })
                    .collect();
                Column::Number {
                    ty: ValueType::Boolean,
                    values,
                }
            })
            .collect();
        Ok(Frame::new(self.rows, self.names.clone(), columns))
    }

    /// `replace(target=F, pattern=p, replacement=r)` as SystemDS's
    /// `FrameBlock.replaceOperations`: `p` and `r` (as text) must be of one kind (boolean,
    /// integer, other number or string); cells equal to `p` become `r` in the columns of
    /// that kind (integers in `INT32`/`INT64`, numbers in `FP32`/`FP64`) and in every
    /// `STRING` column, where a cell equal to the text `p` becomes the text `r`.
    pub fn replace(&self, pattern: &str, replacement: &str) -> Result<Frame, FrameError> {
        #[derive(PartialEq, Debug)]
        enum Kind {
            Boolean,
            Integer,
            Number,
            Text,
        }
        let kind = |s: &str| {
            if s.eq_ignore_ascii_case("true") || s.eq_ignore_ascii_case("false") {
                Kind::Boolean
            } else if s.parse::<i64>().is_ok() {
                Kind::Integer
            } else if s == "NaN" || s.parse::<f64>().is_ok_and(f64::is_finite) {
                Kind::Number
            } else {
                Kind::Text
            }
        };
        let (kp, kr) = (kind(pattern), kind(replacement));
        ensure_cells("replace", self.rows, self.cols())?;
        if kp != kr {
            return Err(FrameError::Lambda(format!(
                "replace: the pattern `{pattern}` and the replacement `{replacement}` are of different types ({kp:?}, {kr:?})"
            )));
        }
        let columns = self
            .columns
            .iter()
            .map(|column| match column {
                Column::Text(cells) => Column::Text(
                    cells
                        .iter()
                        .map(|c| match c {
                            Some(t) if &**t == pattern => Some(Arc::from(replacement)),
                            other => other.clone(),
                        })
                        .collect(),
                ),
                Column::Number { ty, values } => {
                    let applies = match ty {
                        ValueType::Boolean => kp == Kind::Boolean,
                        ValueType::Int32 | ValueType::Int64 => kp == Kind::Integer,
                        ValueType::Fp32 | ValueType::Fp64 => kp == Kind::Number,
                        ValueType::String => false,
                    };
                    let number = |s: &str| match kp {
                        Kind::Boolean => f64::from(u8::from(s.eq_ignore_ascii_case("true"))),
                        _ => s.parse::<f64>().unwrap_or(f64::NAN),
                    };
                    let (p, r) = (number(pattern), number(replacement));
                    let same = |v: f64| v == p || (v.is_nan() && p.is_nan());
                    Column::Number {
                        ty: *ty,
                        values: values
                            .iter()
                            .map(|&v| if applies && same(v) { r } else { v })
                            .collect(),
                    }
                }
            })
            .collect();
        Ok(Frame::new(self.rows, self.names.clone(), columns))
    }

    /// SystemDS's text-cell form of a frame (`format="text"`): `i j value` (1-based) for
    /// each cell that is not its type's default (`null`, and for numbers and booleans 0
    /// and false; an empty string is written), `0 0 0` for a frame with none.
    pub fn to_text_cells(&self) -> String {
        let schema = self.schema();
        let mut out = String::new();
        for i in 0..self.rows {
            for (j, ty) in schema.iter().enumerate() {
                let Some(text) = self.text(i, j) else {
                    continue;
                };
                let default = match ty {
                    ValueType::String => false,
                    ValueType::Boolean => !text.eq_ignore_ascii_case("true") && text != "1",
                    _ => text.trim().parse::<f64>() == Ok(0.0),
                };
                if !default {
                    out.push_str(&format!("{} {} {text}\n", i + 1, j + 1));
                }
            }
        }
        if out.is_empty() {
            out.push_str("0 0 0\n");
        }
        out
    }

    /// A CSV file read as a frame: names from the first line when `header`, every column
    /// `STRING` unless `schema` gives the types. Fields split as SystemDS's
    /// `IOUtilFunctions.splitCSV` does: a field opening with `"` runs to its closing quote
    /// (`""` inside is a quote), separators inside included, and keeps its quotes; cells are
    /// trimmed, names are not. Empty fields, and fields equal to one of `na_strings`, are
    /// `null`.
    pub fn read_csv(
        path: &Path,
        header: bool,
        sep: &str,
        na_strings: &[String],
        schema: Option<&[ValueType]>,
    ) -> Result<Frame, FrameError> {
        let io = |source| FrameError::Io {
            path: path.to_path_buf(),
            source,
        };
        let bytes = std::fs::metadata(path).map_err(io)?.len();
        spores_exec::memory::ensure_fits("read", bytes as f64)?;
        let text = std::fs::read_to_string(path).map_err(io)?;
        // Each field: its slice while splitting, its cell, and its string's header.
        let fields = text.matches(sep).count() + text.lines().count();
        spores_exec::memory::ensure_fits("read", (bytes as usize + 48 * fields) as f64)?;
        let mut lines = text.lines().filter(|l| !l.trim().is_empty());
        let names = if header {
            lines
                .next()
                .map(|l| split_csv(l, sep).map(str::to_string).collect())
        } else {
            None
        };
        let mut records: Vec<Vec<&str>> = lines.map(|l| split_csv(l, sep).collect()).collect();
        // SystemDS's column statistics lines (`#Meta·MV`, `#Meta·ND`) come before the rows.
        let mut missing: Option<Vec<&str>> = None;
        let mut distinct: Option<Vec<&str>> = None;
        while let Some(first) = records.first().and_then(|r| r.first()).copied() {
            match first {
                META_MISSING => missing = Some(records.remove(0)[1..].to_vec()),
                META_DISTINCT => distinct = Some(records.remove(0)[1..].to_vec()),
                _ => break,
            }
        }
        let cols = names
            .as_ref()
            .map(Vec::len)
            .or_else(|| records.first().map(Vec::len))
            .unwrap_or(0);
        if let Some((k, r)) = records.iter().enumerate().find(|(_, r)| r.len() != cols) {
            return Err(FrameError::Ragged {
                path: path.to_path_buf(),
                line: k + 1 + usize::from(header),
                found: r.len(),
                expected: cols,
            });
        }
        let columns = (0..cols)
            .map(|j| {
                Column::Text(
                    records
                        .iter()
                        .map(|r| {
                            let s = r[j].trim();
                            let na = na_strings.iter().any(|na| na == r[j]);
                            (!s.is_empty() && !na).then(|| Arc::from(s))
                        })
                        .collect(),
                )
            })
            .collect();
        let mut frame = Frame::new(records.len(), names, columns);
        if missing.is_some() || distinct.is_some() {
            // As SystemDS, statistics lines of another width than the frame are ignored.
            let at = |line: &Option<Vec<&str>>, j: usize| {
                line.as_ref()
                    .filter(|l| l.len() == cols)
                    .map(|l| l[j].trim().to_string())
            };
            let info = (0..cols)
                .map(|j| ColumnInfo {
                    distinct: at(&distinct, j)
                        .and_then(|d| d.parse::<i64>().ok())
                        .filter(|&d| d > 0)
                        .unwrap_or(-1),
                    // SystemDS keeps the text `null` here, which makes the statistics
                    // known: a frame read with these lines writes them again.
                    missing: at(&missing, j).filter(|m| !m.is_empty()),
                })
                .collect();
            frame = frame.with_info(info);
        }
        match schema {
            Some(s) => frame.with_schema(s),
            None => Ok(frame),
        }
    }
}

/// Fails when a frame of `rows` x `cols` cells would not fit the memory budget: a cell takes
/// 16 bytes (a string's pointer and length, or a number) before any text.
fn ensure_cells(what: &str, rows: usize, cols: usize) -> Result<(), FrameError> {
    spores_exec::memory::ensure_fits(what, 16.0 * rows as f64 * cols as f64)?;
    Ok(())
}

/// A CSV field without the double quotes around it.
/// The fields of one CSV line, as SystemDS's `IOUtilFunctions.splitCSV` cuts them: a
/// field that opens with a quote (and has a closing one) runs past the separators inside
/// to its closing quote, `""` being an escaped quote, and on to the next separator; the
/// quotes stay in the field. A line ending in a separator ends with an empty field.
fn split_csv<'a>(line: &'a str, sep: &'a str) -> impl Iterator<Item = &'a str> + 'a {
    let len = line.len();
    let mut from = Some(0);
    std::iter::from_fn(move || {
        let start = from?;
        if sep.is_empty() {
            from = None;
            return Some(line);
        }
        if start == len {
            // the empty field after a final separator (or of an empty line)
            from = None;
            return Some("");
        }
        let rest = &line[start..];
        let end = if rest.starts_with('"') && rest[1..].contains('"') {
            let mut close = 1 + rest[1..].find('"').unwrap_or(0);
            while rest[close + 1..].starts_with('"') {
                match rest[close + 2..].find('"') {
                    Some(k) => close = close + 2 + k,
                    None => {
                        close = rest.len() - 1;
                        break;
                    }
                }
            }
            let after = close + 1;
            if rest[after..].starts_with(sep) || after >= rest.len() {
                after
            } else {
                rest[after..].find(sep).map_or(rest.len(), |k| after + k)
            }
        } else {
            rest.find(sep).unwrap_or(rest.len())
        };
        let next = start + end + sep.len();
        from = (next <= len).then_some(next);
        Some(&rest[..end])
    })
}

/// The types `detectSchema` reports, in the order SystemDS widens them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Detected {
    Unknown,
    Boolean,
    Int32,
    Int64,
    Fp32,
    Fp64,
    Character,
    Hash32,
    Hash64,
    String,
}

impl Detected {
    fn name(self) -> &'static str {
        match self {
            Detected::Unknown => "UNKNOWN",
            Detected::Boolean => "BOOLEAN",
            Detected::Int32 => "INT32",
            Detected::Int64 => "INT64",
            Detected::Fp32 => "FP32",
            Detected::Fp64 => "FP64",
            Detected::Character => "CHARACTER",
            Detected::Hash32 => "HASH32",
            Detected::Hash64 => "HASH64",
            Detected::String => "STRING",
        }
    }

    /// SystemDS's `FrameUtil.isType(String, ValueType)`: the first type at least `min`
    /// (in its order of checks) that the text fits.
    fn of_text(s: &str, min: Detected) -> Detected {
        let len = s.chars().count();
        if len == 0 {
            return Detected::Unknown;
        }
        let first = s.chars().next().unwrap_or(' ');
        if min <= Detected::Boolean && is_boolean_text(s, first, len) {
            return Detected::Boolean;
        }
        if min <= Detected::Int64 {
            if let Some(t) = int_type(s, len) {
                return t;
            }
        }
        if min <= Detected::Fp64 {
            if let Some(t) = float_type(s, len, first) {
                return t;
            }
        }
        if min <= Detected::Character && len == 1 {
            return Detected::Character;
        }
        if min <= Detected::Hash64
            && (4..=16).contains(&len)
            && s.chars()
                .all(|c| c.is_ascii_digit() || ('a'..='f').contains(&c))
        {
            return if len <= 8 {
                Detected::Hash32
            } else {
                Detected::Hash64
            };
        }
        Detected::String
    }
}

fn is_boolean_text(s: &str, first: char, len: usize) -> bool {
    let boolean_start = matches!(first, '0' | '1' | 't' | 'T' | 'f' | 'F');
    if len == 1 {
        return boolean_start;
    }
    if !boolean_start || len > 16 {
        return false;
    }
    // `[tT](rue|RUE)?|[fF](alse|ALSE)?|0\.0+|1\.0+|0|1`
    let rest = &s[1..];
    match first {
        't' | 'T' => rest == "rue" || rest == "RUE",
        'f' | 'F' => rest == "alse" || rest == "ALSE",
        _ => rest.len() > 1 && rest.starts_with('.') && rest[1..].chars().all(|c| c == '0'),
    }
}

fn int_type(s: &str, len: usize) -> Option<Detected> {
    if len > 22 {
        return None;
    }
    let digits = s.strip_prefix('-').unwrap_or(s);
    let (whole, fraction) = match digits.split_once('.') {
        Some((w, f)) if !w.is_empty() || s.starts_with('-') => (w, Some(f)),
        Some(_) => return None,
        None => (digits, None),
    };
    if !whole.chars().all(|c| c.is_ascii_digit())
        || fraction.is_some_and(|f| !f.chars().all(|c| c == '0'))
    {
        return None;
    }
    if len < 8 {
        return Some(Detected::Int32);
    }
    let v: i64 = format!("{}{whole}", if s.starts_with('-') { "-" } else { "" })
        .parse()
        .ok()?;
    Some(if i32::try_from(v).is_ok() {
        Detected::Int32
    } else {
        Detected::Int64
    })
}

fn float_type(s: &str, len: usize, first: char) -> Option<Detected> {
    if len <= 30 && (simple_float(s, len) || float_pattern(s)) {
        if len <= 7 || (len == 8 && first == '-') {
            return Some(Detected::Fp32);
        }
        if len >= 13 {
            return Some(Detected::Fp64);
        }
        let d: f64 = s.parse().ok()?;
        return Some(
            if !(0.00001..10000.0).contains(&d) || format_float(d as f32) != format_double(d) {
                Detected::Fp64
            } else {
                Detected::Fp32
            },
        );
    }
    let lower = s.to_ascii_lowercase();
    matches!(
        lower.as_str(),
        "inf" | "infinity" | "nan" | "-inf" | "-infinity"
    )
    .then_some(Detected::Fp32)
}

/// SystemDS's `simpleFloatMatch`: an optional `-`, then digits with at most one `.`.
fn simple_float(s: &str, len: usize) -> bool {
    let body = match s.strip_prefix('-') {
        Some(b) if len > 1 => b,
        _ => s,
    };
    body.chars().all(|c| c.is_ascii_digit() || c == '.') && body.matches('.').count() <= 1
}

/// SystemDS's `floatPattern`: `[-+]?[0-9][0-9]*\.?[0-9]*([eE][-+]?[0-9]+)?`.
fn float_pattern(s: &str) -> bool {
    let body = s.strip_prefix(['-', '+']).unwrap_or(s);
    let (mantissa, exponent) = match body.split_once(['e', 'E']) {
        Some((m, e)) => (m, Some(e)),
        None => (body, None),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = |t: &str| t.chars().all(|c| c.is_ascii_digit());
    let exponent_ok = exponent.is_none_or(|e| {
        let e = e.strip_prefix(['-', '+']).unwrap_or(e);
        !e.is_empty() && digits(e)
    });
    !whole.is_empty() && digits(whole) && digits(fraction) && exponent_ok
}

/// An operation on a frame that does not fit it.
#[derive(Debug, thiserror::Error)]
pub enum FrameError {
    #[error("frame cell [{row}, {col}] is \"{text}\", not a number")]
    NotANumber {
        row: usize,
        col: usize,
        text: String,
    },
    #[error("frame cell [{row}, {col}] is \"{text}\", not a value of type {ty}")]
    NotOfType {
        row: usize,
        col: usize,
        text: String,
        ty: &'static str,
    },
    #[error("the {what} names {given} columns, the frame has {cols}")]
    SchemaLength {
        what: &'static str,
        given: usize,
        cols: usize,
    },
    #[error(
        "unknown frame value type \"{name}\" (one of STRING, FP64, FP32, INT64, INT32, BOOLEAN)"
    )]
    UnknownType { name: String },
    #[error("frame assignment: the target is {}x{}, the value {}x{}", target.0, target.1, value.0, value.1)]
    AssignShape {
        target: (usize, usize),
        value: (usize, usize),
    },
    #[error("{op}: left is {}x{}, right is {}x{}", left.0, left.1, right.0, right.1)]
    Bind {
        op: &'static str,
        left: (usize, usize),
        right: (usize, usize),
    },
    #[error("`{op}` needs two frames or two matrices, got a {left} and a {right}")]
    Mixed {
        op: &'static str,
        left: &'static str,
        right: &'static str,
    },
    #[error("removeEmpty: the select vector is {}x{}, the frame's {what} need {}x{}", found.0, found.1, expected.0, expected.1)]
    Select {
        what: &'static str,
        found: (usize, usize),
        expected: (usize, usize),
    },
    #[error("`as.scalar` of a frame needs a 1x1 frame, got {rows}x{cols}")]
    NotOneCell { rows: usize, cols: usize },
    #[error("{}: {source}", path.display())]
    Io {
        path: std::path::PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{}: line {line} has {found} fields, the frame {expected} columns", path.display())]
    Ragged {
        path: std::path::PathBuf,
        line: usize,
        found: usize,
        expected: usize,
    },
    #[error("frames are written as csv or text, not `{format}`")]
    WriteFormat { format: String },
    #[error("read: a frame is read from csv, not format=\"{format}\"")]
    ReadFormat { format: String },
    /// A `map` lambda outside the Java forms spores evaluates, or failing on a cell.
    #[error("map: {0}")]
    Lambda(String),
    /// A frame that would not fit the memory budget (`--memory`).
    #[error(transparent)]
    Budget(#[from] spores_exec::ExecError),
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matrix(rows: usize, cols: usize, v: &[f64]) -> Matrix {
        Matrix::Dense(DenseMatrix::from_vec(rows, cols, v.to_vec()).unwrap())
    }

    #[test]
    fn as_frame_detects_the_narrowest_column_types() {
        let m = matrix(
            3,
            4,
            &[
                1.5,
                2.0,
                1.0,
                0.1,
                3.0,
                4.0,
                0.0,
                1.23456789012,
                5.0,
                6.0,
                1.0,
                1.0,
            ],
        );
        let f = Frame::from_matrix(&m).unwrap();
        assert_eq!(
            f.schema(),
            vec![
                ValueType::Fp32,
                ValueType::Int32,
                ValueType::Boolean,
                ValueType::Fp64
            ]
        );
        assert_eq!(
            f.to_text(10, 10, 3, " ", "\n"),
            "# FRAME: nrow = 3, ncol = 4\n# C1 C2 C3 C4\n# FP32 INT32 BOOLEAN FP64\n\
             1.5 2 TRUE 0.100\n3.0 4 FALSE 1.235\n5.0 6 TRUE 1.000\n"
        );
        assert_eq!(f.to_matrix().unwrap().to_dense(), m.to_dense());
    }

    #[test]
    fn frames_fill_bind_slice_and_assign() {
        let data: Vec<Option<Arc<str>>> = ["a", "b", "c", "d"]
            .iter()
            .map(|s| Some(Arc::from(*s)))
            .collect();
        let g = Frame::filled(&data, 2, 2, None).unwrap();
        assert_eq!(g.text(1, 0).as_deref(), Some("c"));
        let r = g.rbind(&g).unwrap();
        assert_eq!((r.rows(), r.cols()), (4, 2));
        let f = Frame::from_matrix(&matrix(2, 1, &[7.0, 8.0])).unwrap();
        let c = f.cbind(&g).unwrap();
        assert_eq!(c.names(), vec!["C1", "C2", "C3"]);
        let s = c.slice(1..2, 0..2);
        assert_eq!(s.to_csv(false, ","), "8,c\n");
        let z = Frame::filled(&[Some(Arc::from("zz"))], 1, 1, None).unwrap();
        let a = g.assign(0..1, 0..1, &z).unwrap();
        assert_eq!(a.to_csv(false, " "), "zz b\nc d\n");
        assert!(f.rbind(&g).is_err());
        // A string into a numeric column must be a number of its type.
        assert!(f.assign(0..1, 0..1, &z).is_err());
        let typed = Frame::filled(
            &[Some(Arc::from("7"))],
            1,
            3,
            Some(vec![ValueType::String, ValueType::Fp64, ValueType::Int64]),
        )
        .unwrap();
        assert_eq!(
            typed.to_text(9, 9, 3, " ", "\n").lines().last(),
            Some("7 7.000 7")
        );
    }

    #[test]
    fn detect_schema_follows_systemds() {
        let cells = ["a", "1", "2.5", "100000000000", "true", "abcd12", "hello"];
        let data: Vec<Option<Arc<str>>> = cells.iter().map(|s| Some(Arc::from(*s))).collect();
        let f = Frame::filled(&data, 1, cells.len(), None).unwrap();
        let s = f.detect_schema();
        let names: Vec<String> = (0..cells.len()).map(|j| s.text(0, j).unwrap()).collect();
        assert_eq!(
            names,
            [
                "CHARACTER",
                "BOOLEAN",
                "FP32",
                "INT64",
                "BOOLEAN",
                "HASH32",
                "STRING"
            ]
        );
    }
}
