use std::sync::Arc;

use crate::error::{ExecError, Result};
use crate::matrix::finite::FiniteCache;
use crate::matrix::{Cells, ForeignSlice, Shape};

/// A dense matrix of `f64`, stored row-major in one contiguous buffer.
#[derive(Clone, Debug, PartialEq)]
pub struct DenseMatrix {
    rows: usize,
    cols: usize,
    data: Cells<f64>,
    finite: FiniteCache,
}

impl DenseMatrix {
    pub fn zeros(rows: usize, cols: usize) -> Self {
        Self::filled(rows, cols, 0.0)
    }

    pub fn filled(rows: usize, cols: usize, value: f64) -> Self {
        DenseMatrix {
            rows,
            cols,
            data: vec![value; rows * cols].into(),
            finite: FiniteCache::known(value.is_finite()),
        }
    }

    /// Wraps a row-major buffer; fails when its length is not `rows * cols`.
    pub fn from_vec(rows: usize, cols: usize, data: Vec<f64>) -> Result<Self> {
        if data.len() != rows * cols {
            return Err(ExecError::invalid(format!(
                "a {rows}x{cols} matrix needs {} values, got {}",
                rows * cols,
                data.len()
            )));
        }
        Ok(DenseMatrix {
            rows,
            cols,
            data: data.into(),
            finite: FiniteCache::default(),
        })
    }

    /// Reads `rows * cols` row-major cells that another owner keeps, without copying;
    /// fails when the count does not match.
    pub fn from_foreign(
        rows: usize,
        cols: usize,
        cells: Arc<dyn ForeignSlice<f64>>,
    ) -> Result<Self> {
        let len = cells.slice().len();
        if len != rows * cols {
            return Err(ExecError::invalid(format!(
                "a {rows}x{cols} matrix needs {} values, got {len}",
                rows * cols
            )));
        }
        Ok(DenseMatrix {
            rows,
            cols,
            data: Cells::foreign(cells),
            finite: FiniteCache::default(),
        })
    }

    /// [`Self::all_finite`] if it is known without a scan.
    pub fn finite_if_known(&self) -> Option<bool> {
        self.finite.known_answer()
    }

    /// Records that every cell is finite, which a kernel learned in its own pass.
    pub fn record_all_finite(&self) {
        self.finite.record(true);
    }

    /// Whether the cells are read in place from a foreign owner (see [`ForeignSlice`]).
    pub fn is_foreign(&self) -> bool {
        self.data.is_foreign()
    }

    /// Builds a matrix from a function of (row, column).
    pub fn from_fn(rows: usize, cols: usize, mut f: impl FnMut(usize, usize) -> f64) -> Self {
        let mut data = Vec::with_capacity(rows * cols);
        for i in 0..rows {
            for j in 0..cols {
                data.push(f(i, j));
            }
        }
        DenseMatrix {
            rows,
            cols,
            data: data.into(),
            finite: FiniteCache::default(),
        }
    }

    /// Builds a matrix from row slices; all rows must have the same length.
    pub fn from_rows(rows: &[Vec<f64>]) -> Result<Self> {
        let cols = rows.first().map_or(0, Vec::len);
        if let Some(bad) = rows.iter().position(|r| r.len() != cols) {
            return Err(ExecError::invalid(format!(
                "row {bad} has {} values, row 0 has {cols}",
                rows[bad].len()
            )));
        }
        Ok(DenseMatrix {
            rows: rows.len(),
            cols,
            data: rows.concat().into(),
            finite: FiniteCache::default(),
        })
    }

    dims_accessors!();

    pub fn data(&self) -> &[f64] {
        &self.data
    }

    /// The cells for writing; foreign cells are copied into an owned buffer first.
    pub fn data_mut(&mut self) -> &mut [f64] {
        self.finite.forget();
        &mut self.data
    }

    /// The cells as an owned buffer (a copy when they are foreign).
    pub fn into_vec(self) -> Vec<f64> {
        self.data.into_vec()
    }

    #[inline]
    pub fn get(&self, i: usize, j: usize) -> f64 {
        assert!(
            i < self.rows && j < self.cols,
            "index ({i},{j}) out of {}",
            self.shape()
        );
        self.data[i * self.cols + j]
    }

    #[inline]
    pub fn set(&mut self, i: usize, j: usize, value: f64) {
        self.finite.forget();
        assert!(
            i < self.rows && j < self.cols,
            "index ({i},{j}) out of {}",
            self.shape()
        );
        self.data[i * self.cols + j] = value;
    }

    #[inline]
    pub fn row(&self, i: usize) -> &[f64] {
        &self.data[i * self.cols..(i + 1) * self.cols]
    }

    #[inline]
    pub fn row_mut(&mut self, i: usize) -> &mut [f64] {
        self.finite.forget();
        &mut self.data[i * self.cols..(i + 1) * self.cols]
    }

    /// Whether every cell is finite (no NaN, no ±Inf); scans the cells once, then cached.
    pub fn all_finite(&self) -> bool {
        self.finite.get_or_scan(&self.data)
    }

    /// Number of cells that are not exactly zero.
    pub fn nnz(&self) -> usize {
        self.data.iter().filter(|v| **v != 0.0).count()
    }
}
