//! Small operands held in memory and read by index: a broadcast join without a hash table.
//!
//! A plan that scans an input larger than memory usually has small operands beside it: a
//! vector `v` next to a matrix `X` of 10^8 non-zeros, or rank-10 factors `U` and `V`.
//! Joined as relations, each costs a hash table and a probe per tuple of `X`, and a factor
//! of 10^7 tuples is a hash table that cannot spill. Held as a dense array, an operand is
//! read at the streamed tuple's indices instead:
//!
//! - `X %*% v` is a scan of `X` projecting `x * v[j]`, grouped by `i` ([`cell`]);
//! - `sddmm_sum(X, U, V)` is a scan of `X` projecting `x * <U[i,:], V[j,:]>`, summed
//!   ([`row_dot`]).
//!
//! Both are scalar UDFs over the streamed relation's index columns. A held operand has
//! every cell, zeros included, so a cell the relation lacks reads as 0, which is what the
//! inner join's missing tuple means. The UDFs run in this process only: a Ballista
//! executor cannot decode them, so plans sent to a cluster join as before.

use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use datafusion::arrow::array::{Array, Float64Array, Int64Array};
use datafusion::arrow::datatypes::DataType;
use datafusion::common::{exec_err, Result as DfResult};
use datafusion::logical_expr::{
    ColumnarValue, Expr, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature, Volatility,
};
use spores_exec::DenseMatrix;

/// A dense matrix held for lookups. Its id tells two holdings apart: DataFusion compares
/// and hashes functions when it rewrites plans, and comparing ids is what equality of
/// the held cells means here (each holding is made once).
#[derive(Clone, Debug)]
pub struct Held {
    id: u64,
    matrix: Arc<DenseMatrix>,
}

impl Held {
    pub fn new(matrix: DenseMatrix) -> Self {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        Held {
            id: NEXT.fetch_add(1, Ordering::Relaxed),
            matrix: Arc::new(matrix),
        }
    }

    pub fn rows(&self) -> usize {
        self.matrix.rows()
    }

    pub fn cols(&self) -> usize {
        self.matrix.cols()
    }

    /// Bytes of its cells.
    pub fn bytes(&self) -> usize {
        8 * self.rows() * self.cols()
    }

    pub fn matrix(&self) -> &DenseMatrix {
        &self.matrix
    }
}

/// Bytes of a `rows x cols` matrix held dense.
pub fn dense_bytes(rows: usize, cols: usize) -> f64 {
    8.0 * rows as f64 * cols as f64
}

/// `m[row, col]` for each tuple: the index expressions of the dimensions of `m` larger
/// than 1 (`row` for a column vector, `col` for a row vector, both for a matrix).
pub fn cell(m: &Held, row: Option<Expr>, col: Option<Expr>) -> Expr {
    let has_row = m.rows() != 1;
    let has_col = m.cols() != 1;
    let args: Vec<Expr> = [(has_row, row), (has_col, col)]
        .into_iter()
        .filter_map(|(has, e)| if has { e } else { None })
        .collect();
    let arity = usize::from(has_row) + usize::from(has_col);
    let udf = Cell {
        held: m.clone(),
        has_row,
        has_col,
        signature: Signature::exact(vec![DataType::Int64; arity], Volatility::Immutable),
    };
    ScalarUDF::from(udf).call(args)
}

/// `<u[row,:], v[col,:]>` for each tuple: the inner product of a row of `u` and a row of
/// `v` (both with the same number of columns).
pub fn row_dot(u: &Held, v: &Held, row: Expr, col: Expr) -> Expr {
    let udf = RowDot {
        u: u.clone(),
        v: v.clone(),
        signature: Signature::exact(vec![DataType::Int64; 2], Volatility::Immutable),
    };
    ScalarUDF::from(udf).call(vec![row, col])
}

/// The index column `k` of a call, as positions below `size`.
fn positions<'a>(
    arrays: &'a [Arc<dyn Array>],
    k: usize,
    size: usize,
    what: &str,
) -> DfResult<&'a [i64]> {
    let Some(a) = arrays
        .get(k)
        .and_then(|a| a.as_any().downcast_ref::<Int64Array>())
    else {
        return exec_err!("{what}: index argument {k} is not an Int64 column");
    };
    if a.null_count() > 0 {
        return exec_err!("{what}: a null index");
    }
    let values = a.values().as_ref();
    if let Some(p) = values.iter().find(|&&p| p < 0 || p as usize >= size) {
        return exec_err!("{what}: index {p} outside 0..{size}");
    }
    Ok(values)
}

#[derive(Debug)]
struct Cell {
    held: Held,
    has_row: bool,
    has_col: bool,
    signature: Signature,
}

impl PartialEq for Cell {
    fn eq(&self, other: &Self) -> bool {
        self.held.id == other.held.id
    }
}

impl Eq for Cell {}

impl Hash for Cell {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.held.id.hash(state);
    }
}

impl ScalarUDFImpl for Cell {
    fn name(&self) -> &str {
        "held_cell"
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _args: &[DataType]) -> DfResult<DataType> {
        Ok(DataType::Float64)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> DfResult<ColumnarValue> {
        let arrays = ColumnarValue::values_to_arrays(&args.args)?;
        let m = self.held.matrix();
        let (rows, cols, data) = (m.rows(), m.cols(), m.data());
        let n = args.number_rows;
        let values: Vec<f64> = match (self.has_row, self.has_col) {
            (true, true) => {
                let r = positions(&arrays, 0, rows, "held_cell")?;
                let c = positions(&arrays, 1, cols, "held_cell")?;
                r.iter()
                    .zip(c)
                    .map(|(&r, &c)| data[r as usize * cols + c as usize])
                    .collect()
            }
            (true, false) => positions(&arrays, 0, rows, "held_cell")?
                .iter()
                .map(|&r| data[r as usize])
                .collect(),
            (false, true) => positions(&arrays, 0, cols, "held_cell")?
                .iter()
                .map(|&c| data[c as usize])
                .collect(),
            (false, false) => vec![data[0]; n],
        };
        Ok(ColumnarValue::Array(Arc::new(Float64Array::from(values))))
    }
}

#[derive(Debug)]
struct RowDot {
    u: Held,
    v: Held,
    signature: Signature,
}

impl PartialEq for RowDot {
    fn eq(&self, other: &Self) -> bool {
        (self.u.id, self.v.id) == (other.u.id, other.v.id)
    }
}

impl Eq for RowDot {}

impl Hash for RowDot {
    fn hash<H: Hasher>(&self, state: &mut H) {
        (self.u.id, self.v.id).hash(state);
    }
}

impl ScalarUDFImpl for RowDot {
    fn name(&self) -> &str {
        "held_row_dot"
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _args: &[DataType]) -> DfResult<DataType> {
        Ok(DataType::Float64)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> DfResult<ColumnarValue> {
        let arrays = ColumnarValue::values_to_arrays(&args.args)?;
        let (u, v) = (self.u.matrix(), self.v.matrix());
        let k = u.cols();
        if v.cols() != k {
            return exec_err!("held_row_dot: rows of {} and {} cells", k, v.cols());
        }
        let r = positions(&arrays, 0, u.rows(), "held_row_dot")?;
        let c = positions(&arrays, 1, v.rows(), "held_row_dot")?;
        let (ud, vd) = (u.data(), v.data());
        let values: Vec<f64> = r
            .iter()
            .zip(c)
            .map(|(&r, &c)| {
                let (r, c) = (r as usize * k, c as usize * k);
                ud[r..r + k]
                    .iter()
                    .zip(&vd[c..c + k])
                    .map(|(a, b)| a * b)
                    .sum()
            })
            .collect();
        Ok(ColumnarValue::Array(Arc::new(Float64Array::from(values))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holdings_are_told_apart_by_id() {
        let a = Held::new(DenseMatrix::filled(2, 1, 1.0));
        let b = Held::new(DenseMatrix::filled(2, 1, 1.0));
        let i = || datafusion::logical_expr::col("i");
        assert_ne!(cell(&a, Some(i()), None), cell(&b, Some(i()), None));
        assert_eq!(cell(&a, Some(i()), None), cell(&a, Some(i()), None));
        assert_eq!(a.bytes(), 16);
    }
}
