use std::sync::Arc;

use crate::error::{ExecError, Result};
use crate::matrix::Shape;

/// Row-major `f64` cells owned by someone else (a NumPy array handed in by the Python
/// bindings), which a [`DenseMatrix`] reads in place instead of copying.
///
/// The owner must keep the cells alive and unchanged for as long as the buffer exists.
pub trait ForeignCells: Send + Sync + std::fmt::Debug {
    fn cells(&self) -> &[f64];
}

/// Where a dense matrix's cells live.
#[derive(Clone, Debug)]
enum Cells {
    Owned(Vec<f64>),
    /// Read-only; the first write copies the cells into an owned buffer.
    Foreign(Arc<dyn ForeignCells>),
}

impl Cells {
    #[inline]
    fn as_slice(&self) -> &[f64] {
        match self {
            Cells::Owned(v) => v,
            Cells::Foreign(f) => f.cells(),
        }
    }

    fn make_mut(&mut self) -> &mut Vec<f64> {
        if let Cells::Foreign(f) = self {
            *self = Cells::Owned(f.cells().to_vec());
        }
        match self {
            Cells::Owned(v) => v,
            Cells::Foreign(_) => unreachable!("made owned above"),
        }
    }
}

/// A dense matrix of `f64`, stored row-major in one contiguous buffer.
#[derive(Clone, Debug)]
pub struct DenseMatrix {
    rows: usize,
    cols: usize,
    data: Cells,
}

impl PartialEq for DenseMatrix {
    fn eq(&self, other: &Self) -> bool {
        self.rows == other.rows && self.cols == other.cols && self.data() == other.data()
    }
}

impl DenseMatrix {
    pub fn zeros(rows: usize, cols: usize) -> Self {
        Self::filled(rows, cols, 0.0)
    }

    pub fn filled(rows: usize, cols: usize, value: f64) -> Self {
        DenseMatrix {
            rows,
            cols,
            data: Cells::Owned(vec![value; rows * cols]),
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
            data: Cells::Owned(data),
        })
    }

    /// Reads `rows * cols` row-major cells that another owner keeps (no copy); fails when
    /// the count does not match.
    pub fn from_foreign(rows: usize, cols: usize, cells: Arc<dyn ForeignCells>) -> Result<Self> {
        let len = cells.cells().len();
        if len != rows * cols {
            return Err(ExecError::invalid(format!(
                "a {rows}x{cols} matrix needs {} values, got {len}",
                rows * cols
            )));
        }
        Ok(DenseMatrix {
            rows,
            cols,
            data: Cells::Foreign(cells),
        })
    }

    /// Whether the cells are read in place from a foreign owner (see [`ForeignCells`]).
    pub fn is_foreign(&self) -> bool {
        matches!(self.data, Cells::Foreign(_))
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
            data: Cells::Owned(data),
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
            data: Cells::Owned(rows.concat()),
        })
    }

    pub fn rows(&self) -> usize {
        self.rows
    }

    pub fn cols(&self) -> usize {
        self.cols
    }

    pub fn shape(&self) -> Shape {
        Shape::new(self.rows, self.cols)
    }

    #[inline]
    pub fn data(&self) -> &[f64] {
        self.data.as_slice()
    }

    /// The cells for writing; foreign cells are copied into an owned buffer first.
    pub fn data_mut(&mut self) -> &mut [f64] {
        self.data.make_mut()
    }

    /// The cells as an owned buffer (a copy when they are foreign).
    pub fn into_vec(self) -> Vec<f64> {
        match self.data {
            Cells::Owned(v) => v,
            Cells::Foreign(f) => f.cells().to_vec(),
        }
    }

    #[inline]
    pub fn get(&self, i: usize, j: usize) -> f64 {
        assert!(
            i < self.rows && j < self.cols,
            "index ({i},{j}) out of {}",
            self.shape()
        );
        self.data()[i * self.cols + j]
    }

    #[inline]
    pub fn set(&mut self, i: usize, j: usize, value: f64) {
        assert!(
            i < self.rows && j < self.cols,
            "index ({i},{j}) out of {}",
            self.shape()
        );
        let cols = self.cols;
        self.data_mut()[i * cols + j] = value;
    }

    #[inline]
    pub fn row(&self, i: usize) -> &[f64] {
        &self.data()[i * self.cols..(i + 1) * self.cols]
    }

    #[inline]
    pub fn row_mut(&mut self, i: usize) -> &mut [f64] {
        let cols = self.cols;
        &mut self.data_mut()[i * cols..(i + 1) * cols]
    }

    /// Number of cells that are not exactly zero.
    pub fn nnz(&self) -> usize {
        self.data().iter().filter(|v| **v != 0.0).count()
    }
}
