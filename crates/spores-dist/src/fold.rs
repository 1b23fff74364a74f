//! Sums of a streamed relation folded into a dense array, instead of grouped by a hash
//! aggregate.
//!
//! Beside an input too large to hold, many results are small: `X %*% v` has a cell per
//! row of `X`, `X %*% V` with rank-10 `V` ten per row. Grouping the 10^8 tuples of such a
//! product by their output cell in DataFusion's hash aggregate costs a hash probe and a
//! group lookup per tuple; when the result fits in memory dense, each stream instead adds
//! its tuples straight into an array of its own, and the arrays are summed at the end:
//!
//! - [`Fold::Cells`]: `acc[i, j] += v` for each tuple `(i, j, v)` (a sum by cell);
//! - [`Fold::Product`]: `acc[o, :] += v * F[p, :]` for each tuple of a matrix, `o` and `p`
//!   its outer and inner index and `F` a held operand: `X %*% V` with `V` held, without
//!   projecting the products as columns first.
//!
//! The arithmetic is the relational plan's: a tuple the stream lacks adds nothing, a held
//! cell is read whether it is zero or not (as [`crate::broadcast`]'s lookups do).

use datafusion::arrow::array::{Array, Float64Array, Int64Array};
use datafusion::arrow::record_batch::RecordBatch;
use spores_exec::DenseMatrix;

use crate::broadcast::{prefetch_row, Held, PREFETCH_AHEAD};
use crate::coo::{COL, ROW, VALUE};
use crate::error::DistError;

/// What each tuple adds to the array.
#[derive(Clone, Debug)]
pub enum Fold {
    /// Its value, at its own cell (the stream has the result's shape).
    Cells,
    /// Its value times row `inner` of `factor` (a `p x k` array, `k` the result's
    /// columns, or `1 x p` for a vector), at row `outer` of the result (`None`: row 0).
    Product {
        factor: Held,
        outer: Option<&'static str>,
        inner: &'static str,
    },
}

/// A fold into a `rows x cols` array of the tuples of a stream with the given shape's
/// columns ([`crate::coo::schema`]).
#[derive(Clone, Debug)]
pub struct DenseFold {
    pub rows: usize,
    pub cols: usize,
    /// The shape of the streamed relation (its index columns).
    pub(crate) stream_rows: usize,
    pub(crate) stream_cols: usize,
    pub(crate) fold: Fold,
}

impl DenseFold {
    /// The sum by cell of a `rows x cols` relation.
    pub fn cells(rows: usize, cols: usize) -> Self {
        DenseFold {
            rows,
            cols,
            stream_rows: rows,
            stream_cols: cols,
            fold: Fold::Cells,
        }
    }

    /// The product of a streamed `stream_rows x stream_cols` matrix with `factor`, into
    /// a `rows x cols` array (see [`Fold::Product`]).
    pub fn product(
        (rows, cols): (usize, usize),
        (stream_rows, stream_cols): (usize, usize),
        factor: Held,
        outer: Option<&'static str>,
        inner: &'static str,
    ) -> Self {
        DenseFold {
            rows,
            cols,
            stream_rows,
            stream_cols,
            fold: Fold::Product {
                factor,
                outer,
                inner,
            },
        }
    }

    /// Bytes of one array.
    pub fn bytes(&self) -> f64 {
        crate::broadcast::dense_bytes(self.rows, self.cols)
    }

    /// A zeroed array to fold into.
    pub fn zeros(&self) -> Vec<f64> {
        vec![0.0; self.rows * self.cols]
    }

    /// Adds the tuples of `batch` into `acc` (of [`Self::zeros`]'s length).
    pub fn add(&self, batch: &RecordBatch, acc: &mut [f64]) -> Result<(), DistError> {
        let values = batch
            .column_by_name(VALUE)
            .and_then(|c| c.as_any().downcast_ref::<Float64Array>())
            .ok_or_else(|| DistError::Result("a folded stream has no Float64 column `v`".into()))?;
        let index = |name: &str, present: bool, size: usize| -> Result<Index<'_>, DistError> {
            if !present {
                return Ok(Index::Zero);
            }
            let column = batch
                .column_by_name(name)
                .and_then(|c| c.as_any().downcast_ref::<Int64Array>())
                .ok_or_else(|| {
                    DistError::Result(format!("a folded stream has no Int64 column `{name}`"))
                })?;
            if column.null_count() > 0 {
                return Err(DistError::Result(format!("a null in column `{name}`")));
            }
            let positions = column.values().as_ref();
            if let Some(p) = positions.iter().find(|&&p| p < 0 || p as usize >= size) {
                return Err(DistError::Result(format!(
                    "{name} index {p} outside 0..{size}"
                )));
            }
            Ok(Index::Column(positions))
        };
        let size = |name: &str| {
            if name == ROW {
                self.stream_rows
            } else {
                self.stream_cols
            }
        };
        let has = |name: &str| size(name) != 1;
        let n = batch.num_rows();
        match &self.fold {
            Fold::Cells => {
                let rows = index(ROW, has(ROW), self.rows)?;
                let cols = index(COL, has(COL), self.cols)?;
                for t in 0..n {
                    if values.is_valid(t) {
                        acc[rows.at(t) * self.cols + cols.at(t)] += values.value(t);
                    }
                }
            }
            Fold::Product {
                factor,
                outer,
                inner,
            } => {
                let data = factor.matrix()?.data();
                // The array is `outer_size x k` row-major: a `1 x n` result of a held
                // vector on the left is its `n x 1` transpose in memory.
                let k = if factor.rows() == 1 { 1 } else { factor.cols() };
                let outer_size = self.rows * self.cols / k;
                let outer = match outer {
                    Some(name) => index(name, has(name), outer_size)?,
                    None => Index::Zero,
                };
                let inner = index(inner, has(inner), data.len() / k)?;
                let x: &[f64] = values.values().as_ref();
                let n = x.len();
                for (t, &x) in x.iter().enumerate() {
                    if t + PREFETCH_AHEAD < n {
                        prefetch_row(data, inner.at(t + PREFETCH_AHEAD) * k, k);
                    }
                    if values.is_null(t) {
                        continue;
                    }
                    let (o, p) = (outer.at(t) * k, inner.at(t) * k);
                    let into = &mut acc[o..o + k];
                    for (a, f) in into.iter_mut().zip(&data[p..p + k]) {
                        *a += x * f;
                    }
                }
            }
        }
        Ok(())
    }

    /// The `rows x cols` matrix of the streams' arrays summed.
    pub fn finish(&self, arrays: Vec<Vec<f64>>) -> Result<DenseMatrix, DistError> {
        let mut arrays = arrays.into_iter();
        let mut total = arrays.next().unwrap_or_else(|| self.zeros());
        for a in arrays {
            total.iter_mut().zip(&a).for_each(|(t, x)| *t += x);
        }
        DenseMatrix::from_vec(self.rows, self.cols, total)
            .map_err(|e| DistError::Result(e.to_string()))
    }
}

/// The positions of one index of a batch's tuples.
enum Index<'a> {
    Column(&'a [i64]),
    /// A dimension of size 1: every tuple is at 0.
    Zero,
}

impl Index<'_> {
    #[inline]
    fn at(&self, t: usize) -> usize {
        match self {
            Index::Column(c) => c[t] as usize,
            Index::Zero => 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::coo;
    use spores_exec::Matrix;

    fn batch(m: &DenseMatrix) -> RecordBatch {
        coo::to_batch(&Matrix::Dense(m.clone())).unwrap()
    }

    #[test]
    fn cells_sum_by_cell_over_batches() {
        let a = DenseMatrix::from_vec(2, 3, vec![1.0, 0.0, 2.0, 0.0, 3.0, 0.0]).unwrap();
        let fold = DenseFold::cells(2, 3);
        let mut acc = fold.zeros();
        fold.add(&batch(&a), &mut acc).unwrap();
        fold.add(&batch(&a), &mut acc).unwrap();
        let total = fold.finish(vec![acc, fold.zeros()]).unwrap();
        assert_eq!(total.data(), &[2.0, 0.0, 4.0, 0.0, 6.0, 0.0]);
    }

    #[test]
    fn products_with_a_held_factor_on_either_side() {
        // X (2x3) %*% V (3x2).
        let x = DenseMatrix::from_vec(2, 3, vec![1.0, 0.0, 2.0, 0.0, 3.0, 0.0]).unwrap();
        let v = DenseMatrix::from_vec(3, 2, vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
        let fold = DenseFold::product((2, 2), (2, 3), Held::new(v), Some(ROW), COL);
        let mut acc = fold.zeros();
        fold.add(&batch(&x), &mut acc).unwrap();
        assert_eq!(
            fold.finish(vec![acc]).unwrap().data(),
            &[11.0, 14.0, 9.0, 12.0]
        );

        // t(u) %*% X with u (1x2) held: [1, 10] X = [1, 30, 2].
        let u = DenseMatrix::from_vec(1, 2, vec![1.0, 10.0]).unwrap();
        let fold = DenseFold::product((1, 3), (2, 3), Held::new(u), Some(COL), ROW);
        let mut acc = fold.zeros();
        fold.add(&batch(&x), &mut acc).unwrap();
        assert_eq!(fold.finish(vec![acc]).unwrap().data(), &[1.0, 30.0, 2.0]);
    }

    #[test]
    fn an_index_outside_the_array_is_an_error() {
        let a = DenseMatrix::filled(3, 2, 1.0);
        let fold = DenseFold::cells(2, 2);
        let err = fold.add(&batch(&a), &mut fold.zeros()).unwrap_err();
        assert!(err.to_string().contains("i index 2 outside 0..2"), "{err}");
    }
}
