//! `removeEmpty(target=F, margin=...)` of a frame, as SystemDS's `FrameLibRemoveEmpty`
//! decides it. A cell is empty when it is missing or the string `"0"` in a text column,
//! and 0 (or `false`) in a numeric one: NaN and `""` are not empty. The cleaning
//! pipelines rely on the `"0"` rule: they `map` the operators they leave out to `"0"`
//! and then remove the empty rows.

use spores_exec::Matrix;

use super::{ensure_cells, Column, Frame, FrameError};

impl Column {
    fn filled(&self, i: usize) -> bool {
        match self {
            Column::Text(cells) => cells[i].as_deref().is_some_and(|t| t != "0"),
            Column::Number { values, .. } => values[i] != 0.0,
        }
    }

    fn pick(&self, rows: &[usize]) -> Column {
        match self {
            Column::Text(cells) => Column::Text(rows.iter().map(|&i| cells[i].clone()).collect()),
            Column::Number { ty, values } => Column::Number {
                ty: *ty,
                values: rows.iter().map(|&i| values[i]).collect(),
            },
        }
    }
}

impl Frame {
    /// The rows (`rows` true) or columns with a filled cell, or those `select` marks
    /// (non-zero cells of an n x 1 or 1 x n vector). When none is left, `empty_return`
    /// gives one row of missing cells (one `STRING` column of them for columns), as
    /// SystemDS does; else no rows (no columns).
    pub fn remove_empty(
        &self,
        rows: bool,
        empty_return: bool,
        select: Option<&Matrix>,
    ) -> Result<Frame, FrameError> {
        ensure_cells("removeEmpty", self.rows, self.cols())?;
        let (n, expected) = if rows {
            (self.rows, (self.rows, 1))
        } else {
            (self.cols(), (1, self.cols()))
        };
        let keep: Vec<usize> = match select {
            Some(s) => {
                if (s.rows(), s.cols()) != expected {
                    return Err(FrameError::Select {
                        what: if rows { "rows" } else { "columns" },
                        found: (s.rows(), s.cols()),
                        expected,
                    });
                }
                let s = s.to_dense();
                (0..n).filter(|&k| s.data()[k] != 0.0).collect()
            }
            None if rows => (0..n)
                .filter(|&i| self.columns.iter().any(|c| c.filled(i)))
                .collect(),
            None => (0..n)
                .filter(|&j| (0..self.rows).any(|i| self.columns[j].filled(i)))
                .collect(),
        };
        if keep.len() == n {
            return Ok(self.clone());
        }
        if rows {
            let (count, picked) = if keep.is_empty() && empty_return {
                (1, None)
            } else {
                (keep.len(), Some(&keep))
            };
            let columns = self
                .columns
                .iter()
                .map(|c| match picked {
                    Some(keep) => c.pick(keep),
                    None => match c {
                        Column::Text(_) => Column::Text(vec![None]),
                        Column::Number { ty, .. } => Column::Number {
                            ty: *ty,
                            values: vec![0.0],
                        },
                    },
                })
                .collect();
            return Ok(Frame::new(count, self.names.clone(), columns));
        }
        if keep.is_empty() {
            return Ok(if empty_return {
                Frame::new(self.rows, None, vec![Column::Text(vec![None; self.rows])])
            } else {
                Frame::new(0, None, Vec::new())
            });
        }
        let names = self
            .names
            .as_ref()
            .map(|names| keep.iter().map(|&j| names[j].clone()).collect());
        let columns = keep.iter().map(|&j| self.columns[j].clone()).collect();
        Ok(Frame::new(self.rows, names, columns))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::runtime::frame::ValueType;

    fn text(cells: &[Option<&str>]) -> Column {
        Column::Text(cells.iter().map(|c| c.map(Arc::from)).collect())
    }

    #[test]
    fn empty_cells_are_missing_zero_text_and_zero_numbers() {
        let f = Frame::new(
            4,
            None,
            vec![
                text(&[Some("0"), None, Some(""), Some("a")]),
                Column::Number {
                    ty: ValueType::Fp64,
                    values: vec![0.0, 0.0, 0.0, f64::NAN],
                },
            ],
        );
        let rows = f.remove_empty(true, true, None).unwrap();
        assert_eq!(rows.rows(), 2);
        assert_eq!(rows.text(0, 0).as_deref(), Some(""));
        assert_eq!(rows.text(1, 0).as_deref(), Some("a"));
        let none = f.slice(0..2, 0..2);
        let one = none.remove_empty(true, true, None).unwrap();
        assert_eq!((one.rows(), one.cols(), one.text(0, 0)), (1, 2, None));
        assert_eq!(none.remove_empty(true, false, None).unwrap().rows(), 0);
        let cols = none.remove_empty(false, true, None).unwrap();
        assert_eq!((cols.rows(), cols.cols()), (2, 1));
        assert_eq!(cols.schema(), vec![ValueType::String]);
        let select =
            Matrix::Dense(spores_exec::DenseMatrix::from_vec(1, 2, vec![0.0, 2.0]).unwrap());
        let picked = f.remove_empty(false, true, Some(&select)).unwrap();
        assert_eq!(picked.schema(), vec![ValueType::Fp64]);
        let err = f.remove_empty(true, true, Some(&select)).unwrap_err();
        assert!(err.to_string().contains("select vector is 1x2"), "{err}");
    }
}
