//! Grouping operators: the contingency table `table(A, B, W)` and the grouped
//! aggregate `aggregate(target=, groups=, fn=)`.
//!
//! Category values are 1-based positive integers, as in SystemDS.

use crate::error::{ExecError, Result};
use crate::kernels::kahan::KahanSum;
use crate::kernels::stats::RunningVariance;
use crate::matrix::{CsrMatrix, DenseMatrix, Matrix};

/// One operand of `table`: a vector, or a scalar standing for every row.
#[derive(Clone, Copy, Debug)]
pub enum TableArg<'a> {
    Vector(&'a Matrix),
    Scalar(f64),
}

impl TableArg<'_> {
    fn len(&self) -> Option<usize> {
        match self {
            TableArg::Vector(m) => Some(m.rows() * m.cols()),
            TableArg::Scalar(_) => None,
        }
    }

    fn get(&self, k: usize) -> f64 {
        match self {
            TableArg::Vector(m) if m.cols() == 1 => m.get(k, 0),
            TableArg::Vector(m) => m.get(k / m.cols(), k % m.cols()),
            TableArg::Scalar(v) => *v,
        }
    }

    fn describe(&self) -> String {
        match self {
            TableArg::Vector(m) => format!("a {} matrix", m.shape()),
            TableArg::Scalar(v) => format!("the scalar {v}"),
        }
    }
}

/// A category: the value rounded down (SystemDS casts it so), as a 0-based index; an
/// error naming the argument and row when that is below 1 or NaN.
fn category(v: f64, what: &str, row: usize) -> Result<usize> {
    let floor = v.floor();
    if floor.is_nan() || floor < 1.0 || floor > u32::MAX as f64 {
        return Err(ExecError::invalid(format!(
            "{what}: value {v} in row {} is not a category (categories are 1, 2, ...)",
            row + 1
        )));
    }
    Ok(floor as usize - 1)
}

/// DML `table(A, B, W)`: cell `(A[k], B[k])` of the result sums `W[k]` over all rows
/// `k`. The result is `max(A) x max(B)`, or `dims` when given; pairs outside `dims`
/// are dropped, as SystemDS does. As in SystemDS, categories are rounded down and a row
/// with a NaN in `A`, `B` or `W` is skipped.
pub fn table(
    a: TableArg,
    b: TableArg,
    w: TableArg,
    dims: Option<(usize, usize)>,
) -> Result<Matrix> {
    let lengths: Vec<usize> = [a.len(), b.len(), w.len()].into_iter().flatten().collect();
    let n = lengths.first().copied().unwrap_or(1);
    if lengths.iter().any(|&l| l != n) {
        return Err(ExecError::invalid(format!(
            "table: the inputs differ in length: A is {}, B is {}, weights are {}",
            a.describe(),
            b.describe(),
            w.describe()
        )));
    }
    let mut triplets = Vec::with_capacity(n);
    let (mut max_i, mut max_j) = (0, 0);
    for k in 0..n {
        let (va, vb, vw) = (a.get(k), b.get(k), w.get(k));
        if va.is_nan() || vb.is_nan() || vw.is_nan() {
            continue;
        }
        let i = category(va, "table A", k)?;
        let j = category(vb, "table B", k)?;
        if let Some((r, c)) = dims {
            if i >= r || j >= c {
                continue;
            }
        }
        max_i = max_i.max(i + 1);
        max_j = max_j.max(j + 1);
        triplets.push((i, j, vw));
    }
    let (rows, cols) = dims.unwrap_or((max_i, max_j));
    // A row pointer per row, whatever few pairs there are (`odim1` may be huge).
    crate::memory::ensure_sparse("table", rows, cols, triplets.len())?;
    let m = CsrMatrix::from_triplets(rows, cols, &triplets)?;
    Ok(Matrix::Sparse(m).into_best_format())
}

/// The function a grouped aggregate computes per group and column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GroupFn {
    Sum,
    Count,
    Mean,
    Min,
    Max,
    /// Sample variance (divisor `n - 1`).
    Variance,
}

impl GroupFn {
    /// DML's name for it (`fn="sum"`, ...).
    pub fn from_name(name: &str) -> Option<GroupFn> {
        Some(match name {
            "sum" => GroupFn::Sum,
            "count" => GroupFn::Count,
            "mean" => GroupFn::Mean,
            "min" => GroupFn::Min,
            "max" => GroupFn::Max,
            "variance" => GroupFn::Variance,
            _ => return None,
        })
    }
}

/// DML `aggregate(target=X, groups=g, fn=, ngroups=)`: one row per group `1..=ngroups`
/// (default `max(g)`) and one column per column of `X`. Group values are rounded down
/// (SystemDS casts them to integers); rows whose group exceeds `ngroups` are ignored; a
/// group without rows gives 0.
pub fn grouped_aggregate(
    target: &Matrix,
    groups: &Matrix,
    f: GroupFn,
    ngroups: Option<usize>,
) -> Result<Matrix> {
    let n = target.rows();
    if groups.rows() * groups.cols() != n || (groups.cols() != 1 && groups.rows() != 1) {
        return Err(ExecError::shape_mismatch(
            "aggregate (target and groups)",
            target.shape(),
            groups.shape(),
        ));
    }
    let group_of = |k: usize| {
        let g = if groups.cols() == 1 {
            groups.get(k, 0)
        } else {
            groups.get(0, k)
        };
        category(g, "aggregate groups", k)
    };
    let ids = (0..n).map(group_of).collect::<Result<Vec<_>>>()?;
    let ng = ngroups.unwrap_or_else(|| ids.iter().map(|&g| g + 1).max().unwrap_or(0));
    let cols = target.cols();
    // A count per group, the accumulator `f` needs per group and column (a compensated
    // sum, a running mean and variance as SystemDS computes them, or an extreme), and
    // the result: only `f`'s accumulator is allocated.
    let cells = ng.saturating_mul(cols);
    let per_cell = match f {
        GroupFn::Sum => std::mem::size_of::<KahanSum>(),
        GroupFn::Mean | GroupFn::Variance => std::mem::size_of::<RunningVariance>(),
        GroupFn::Min | GroupFn::Max => 8,
        GroupFn::Count => 0,
    } + 8;
    crate::memory::ensure_fits(
        &format!("aggregate: {ng} groups of {cols} column(s)"),
        ng as f64 * 8.0 + cells as f64 * per_cell as f64,
    )?;
    let x = target.to_dense();
    let of = |used: bool| if used { cells } else { 0 };
    let mut count = vec![0usize; ng];
    let mut sum = vec![KahanSum::default(); of(f == GroupFn::Sum)];
    let mut moments =
        vec![RunningVariance::default(); of(matches!(f, GroupFn::Mean | GroupFn::Variance))];
    let init = match f {
        GroupFn::Min => f64::INFINITY,
        GroupFn::Max => f64::NEG_INFINITY,
        _ => 0.0,
    };
    let mut extreme = vec![init; of(matches!(f, GroupFn::Min | GroupFn::Max))];
    for (k, &g) in ids.iter().enumerate() {
        if g >= ng {
            continue;
        }
        count[g] += 1;
        for (j, &v) in x.row(k).iter().enumerate() {
            let c = g * cols + j;
            match f {
                GroupFn::Sum => sum[c].add(v),
                GroupFn::Mean | GroupFn::Variance => moments[c].push(v),
                GroupFn::Min => extreme[c] = extreme[c].min(v),
                GroupFn::Max => extreme[c] = extreme[c].max(v),
                GroupFn::Count => {}
            }
        }
    }
    let out = DenseMatrix::from_fn(ng, cols, |g, j| {
        let c = g * cols + j;
        if count[g] == 0 {
            return 0.0;
        }
        match f {
            GroupFn::Sum => sum[c].value(),
            GroupFn::Count => count[g] as f64,
            GroupFn::Mean => moments[c].mean(),
            GroupFn::Min | GroupFn::Max => extreme[c],
            GroupFn::Variance => moments[c].variance(),
        }
    });
    Ok(Matrix::Dense(out).into_best_format())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(m: &Matrix) -> Vec<f64> {
        m.to_dense().into_vec()
    }

    /// `table(y, 1)`: how often each category of `y` occurs.
    fn counts(y: &Matrix) -> Result<Matrix> {
        table(
            TableArg::Vector(y),
            TableArg::Scalar(1.0),
            TableArg::Scalar(1.0),
            None,
        )
    }

    #[test]
    fn table_forms_as_systemds() {
        let seq = Matrix::column(&[1.0, 2.0, 3.0]);
        let p = Matrix::column(&[2.0, 3.0, 1.0]);
        let t = table(
            TableArg::Vector(&seq),
            TableArg::Vector(&p),
            TableArg::Scalar(1.0),
            None,
        )
        .unwrap();
        assert_eq!(values(&t), [0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0]);
        let t = table(
            TableArg::Vector(&seq),
            TableArg::Vector(&p),
            TableArg::Scalar(1.0),
            Some((2, 2)),
        )
        .unwrap();
        assert_eq!(values(&t), [0.0, 1.0, 0.0, 0.0]);
        let y = Matrix::column(&[1.0, 1.0, 2.0, 2.0, 2.0, 3.0]);
        let t = counts(&y).unwrap();
        assert_eq!(values(&t), [2.0, 3.0, 1.0]);
        let w = Matrix::column(&[0.5, 2.0, 3.0]);
        let a = Matrix::column(&[1.0, 2.0, 2.0]);
        let b = Matrix::column(&[1.0, 1.0, 3.0]);
        let t = table(
            TableArg::Vector(&a),
            TableArg::Vector(&b),
            TableArg::Vector(&w),
            None,
        )
        .unwrap();
        assert_eq!(values(&t), [0.5, 0.0, 0.0, 2.0, 0.0, 3.0]);
        assert!(table(
            TableArg::Vector(&a),
            TableArg::Vector(&y),
            TableArg::Scalar(1.0),
            None
        )
        .is_err());
        assert!(counts(&Matrix::column(&[0.0])).is_err());
        // SystemDS 3.4: table(matrix("1.6 2.2 2.9 1.4 3.999 1.0", 6, 1), 1) counts 3, 2, 1
        // (categories rounded down); a NaN row is skipped; 0.4 (category 0) is an error.
        let fractional = Matrix::column(&[1.6, 2.2, 2.9, 1.4, 3.999, 1.0, f64::NAN]);
        let t = counts(&fractional).unwrap();
        assert_eq!(values(&t), [3.0, 2.0, 1.0]);
        assert!(counts(&Matrix::column(&[0.4])).is_err());
    }

    #[test]
    fn grouped_aggregates() {
        let x = Matrix::column(&[1.0, 2.0, 3.0, 4.0, 5.0]);
        let g = Matrix::column(&[1.0, 2.0, 1.0, 2.0, 3.0]);
        let sum = grouped_aggregate(&x, &g, GroupFn::Sum, None).unwrap();
        assert_eq!(values(&sum), [4.0, 6.0, 5.0]);
        let count = grouped_aggregate(&x, &g, GroupFn::Count, None).unwrap();
        assert_eq!(values(&count), [2.0, 2.0, 1.0]);
        let mean = grouped_aggregate(&x, &g, GroupFn::Mean, Some(4)).unwrap();
        assert_eq!(values(&mean), [2.0, 3.0, 5.0, 0.0]);
        let wide =
            Matrix::Dense(DenseMatrix::from_vec(3, 2, vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap());
        let max = grouped_aggregate(
            &wide,
            &Matrix::column(&[2.0, 1.0, 2.0]),
            GroupFn::Max,
            Some(2),
        )
        .unwrap();
        assert_eq!(values(&max), [3.0, 4.0, 5.0, 6.0]);
        assert!(grouped_aggregate(&x, &Matrix::column(&[1.0]), GroupFn::Sum, None).is_err());
    }

    #[test]
    fn groups_are_rounded_down_as_systemds_casts_them() {
        // SystemDS's rblk_recompile3 groups a column of reals by itself.
        let x = Matrix::column(&[2.3, 1.9, 2.7, 3.0]);
        let count = grouped_aggregate(&x, &x, GroupFn::Count, None).unwrap();
        assert_eq!(values(&count), [1.0, 2.0, 1.0]);
        for bad in [0.5, 0.0, -2.0, f64::NAN] {
            let g = Matrix::column(&[1.0, bad, 2.0, 2.0]);
            let err = grouped_aggregate(&x, &g, GroupFn::Sum, None).unwrap_err();
            assert!(err.to_string().contains("row 2"), "{err}");
        }
    }

    #[test]
    fn group_variances_run_as_systemds_moments() {
        // Large offsets cancel exactly in the running form, not in sum_sq - sum^2 / n.
        let x = Matrix::column(&[1e9 + 1.0, 1e9 + 2.0, 1e9 + 3.0, 5.0]);
        let g = Matrix::column(&[1.0, 1.0, 1.0, 2.0]);
        let var = grouped_aggregate(&x, &g, GroupFn::Variance, None).unwrap();
        assert_eq!(values(&var), [1.0, 0.0]);
        let mean = grouped_aggregate(&x, &g, GroupFn::Mean, None).unwrap();
        assert_eq!(values(&mean), [1e9 + 2.0, 5.0]);
    }
}
