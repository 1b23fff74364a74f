//! Matrices as COO relations and back.
//!
//! A matrix is the K-relation of its non-zero cells: columns `i` (row), `j` (column) and
//! `v` (value). As in the optimizer's relational translation, a dimension of size 1
//! carries no index: an `m x 1` column vector is `(i, v)`, a `1 x n` row vector `(j, v)`,
//! a scalar or `1 x 1` matrix `(v)`. A cell that has no tuple is zero, so broadcasting a
//! vector against a matrix is a natural join on the index they share.

use std::sync::Arc;

use datafusion::arrow::array::{Array, Float64Array, Int64Array};
use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use datafusion::arrow::record_batch::RecordBatch;
use spores_exec::{CsrMatrix, DenseMatrix, Matrix};

use crate::error::DistError;

/// Name of the row-index column.
pub const ROW: &str = "i";
/// Name of the column-index column.
pub const COL: &str = "j";
/// Name of the value column.
pub const VALUE: &str = "v";

/// The columns of a relation holding a `rows x cols` matrix: `i` when `rows != 1`, `j`
/// when `cols != 1`, then `v`.
pub fn schema(rows: usize, cols: usize) -> SchemaRef {
    let mut fields = Vec::with_capacity(3);
    if rows != 1 {
        fields.push(Field::new(ROW, DataType::Int64, false));
    }
    if cols != 1 {
        fields.push(Field::new(COL, DataType::Int64, false));
    }
    fields.push(Field::new(VALUE, DataType::Float64, false));
    Arc::new(Schema::new(fields))
}

/// The non-zero cells of `m` as one record batch with [`schema`]'s columns.
pub fn to_batch(m: &Matrix) -> Result<RecordBatch, DistError> {
    let (rows, cols) = (m.rows(), m.cols());
    let nnz = m.nnz();
    let mut is = Vec::with_capacity(if rows != 1 { nnz } else { 0 });
    let mut js = Vec::with_capacity(if cols != 1 { nnz } else { 0 });
    let mut vs = Vec::with_capacity(nnz);
    let mut push = |i: usize, j: usize, v: f64| {
        if v != 0.0 {
            if rows != 1 {
                is.push(i as i64);
            }
            if cols != 1 {
                js.push(j as i64);
            }
            vs.push(v);
        }
    };
    match m {
        Matrix::Dense(d) => {
            for i in 0..rows {
                for (j, &v) in d.row(i).iter().enumerate() {
                    push(i, j, v);
                }
            }
        }
        Matrix::Sparse(s) => {
            for (i, j, v) in s.iter() {
                push(i, j, v);
            }
        }
    }
    let mut columns: Vec<Arc<dyn Array>> = Vec::with_capacity(3);
    if rows != 1 {
        columns.push(Arc::new(Int64Array::from(is)));
    }
    if cols != 1 {
        columns.push(Arc::new(Int64Array::from(js)));
    }
    columns.push(Arc::new(Float64Array::from(vs)));
    Ok(RecordBatch::try_new(schema(rows, cols), columns)?)
}

/// The indices `0..size` as a one-column relation named `column` (the domain of an
/// index, for broadcasting a value over a dimension it does not vary along).
pub fn domain_batch(size: usize, column: &str) -> Result<RecordBatch, DistError> {
    let schema = Arc::new(Schema::new(vec![Field::new(
        column,
        DataType::Int64,
        false,
    )]));
    let values = Int64Array::from_iter_values(0..size as i64);
    Ok(RecordBatch::try_new(schema, vec![Arc::new(values)])?)
}

/// Assembles a `rows x cols` matrix from result batches with [`schema`]'s columns
/// (nullable or not). Tuples with the same index are summed, zeros and nulls dropped; the
/// format follows the non-zero count (`Matrix::into_best_format`).
pub fn from_batches(
    batches: &[RecordBatch],
    rows: usize,
    cols: usize,
) -> Result<Matrix, DistError> {
    let mut triplets = Vec::new();
    for batch in batches {
        let (is, js) = (
            index_column(batch, ROW, rows)?,
            index_column(batch, COL, cols)?,
        );
        let vs = batch
            .column_by_name(VALUE)
            .and_then(|c| c.as_any().downcast_ref::<Float64Array>())
            .ok_or_else(|| DistError::Result("the result has no Float64 column `v`".into()))?;
        for k in 0..batch.num_rows() {
            if vs.is_null(k) || vs.value(k) == 0.0 {
                continue;
            }
            let position = |a: Option<&Int64Array>, size: usize, what: &str| match a {
                None => Ok(0),
                Some(a) => {
                    let p = a.value(k);
                    if a.is_null(k) || p < 0 || p as usize >= size {
                        Err(DistError::Result(format!(
                            "{what} index {p} outside a {rows}x{cols} result"
                        )))
                    } else {
                        Ok(p as usize)
                    }
                }
            };
            triplets.push((
                position(is, rows, "row")?,
                position(js, cols, "column")?,
                vs.value(k),
            ));
        }
    }
    if rows == 1 && cols == 1 {
        let total = triplets.iter().map(|t| t.2).sum();
        return Ok(Matrix::Dense(DenseMatrix::filled(1, 1, total)));
    }
    let csr = CsrMatrix::from_triplets(rows, cols, &triplets)
        .map_err(|e| DistError::Result(e.to_string()))?;
    Ok(Matrix::Sparse(csr).into_best_format())
}

/// The index column `name` of a result batch, or `None` for a dimension of size 1.
fn index_column<'b>(
    batch: &'b RecordBatch,
    name: &str,
    size: usize,
) -> Result<Option<&'b Int64Array>, DistError> {
    if size == 1 {
        return Ok(None);
    }
    let column = batch
        .column_by_name(name)
        .ok_or_else(|| DistError::Result(format!("the result has no column `{name}`")))?;
    column
        .as_any()
        .downcast_ref::<Int64Array>()
        .map(Some)
        .ok_or_else(|| DistError::Result(format!("column `{name}` is not Int64")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matrices_round_trip_through_coo_batches() {
        let dense = DenseMatrix::from_vec(2, 3, vec![1.0, 0.0, 2.0, 0.0, 0.0, -3.5]).unwrap();
        let m = Matrix::Dense(dense);
        let batch = to_batch(&m).unwrap();
        assert_eq!(batch.num_rows(), 3);
        assert_eq!(batch.num_columns(), 3);
        let back = from_batches(&[batch], 2, 3).unwrap();
        assert!(back.approx_eq(&m, 0.0));

        let column = Matrix::Dense(DenseMatrix::from_vec(3, 1, vec![0.0, 4.0, 5.0]).unwrap());
        let batch = to_batch(&column).unwrap();
        let names: Vec<_> = batch
            .schema()
            .fields()
            .iter()
            .map(|f| f.name().clone())
            .collect();
        assert_eq!(names, ["i", "v"]);
        assert_eq!(batch.num_rows(), 2);
        assert!(from_batches(&[batch], 3, 1)
            .unwrap()
            .approx_eq(&column, 0.0));

        let scalar = Matrix::Dense(DenseMatrix::filled(1, 1, 7.0));
        let batch = to_batch(&scalar).unwrap();
        assert_eq!(batch.num_columns(), 1);
        assert_eq!(from_batches(&[batch], 1, 1).unwrap().as_scalar(), Some(7.0));
        assert_eq!(from_batches(&[], 1, 1).unwrap().as_scalar(), Some(0.0));
    }

    #[test]
    fn an_index_outside_the_shape_is_an_error() {
        let m = Matrix::Dense(DenseMatrix::filled(3, 3, 1.0));
        let batch = to_batch(&m).unwrap();
        let err = from_batches(&[batch], 2, 3).unwrap_err();
        assert!(err.to_string().contains("row index 2"), "{err}");
    }
}
