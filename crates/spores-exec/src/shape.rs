//! Matrix shapes, below both the formats (`matrix`) and the errors that name shapes
//! (`error`).

use std::fmt;

/// Rows × columns of a matrix.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Shape {
    pub rows: usize,
    pub cols: usize,
}

impl Shape {
    pub fn new(rows: usize, cols: usize) -> Self {
        Shape { rows, cols }
    }

    pub fn cells(&self) -> usize {
        self.rows * self.cols
    }

    pub fn transposed(&self) -> Shape {
        Shape::new(self.cols, self.rows)
    }

    pub fn is_scalar(&self) -> bool {
        self.rows == 1 && self.cols == 1
    }
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}x{}", self.rows, self.cols)
    }
}
