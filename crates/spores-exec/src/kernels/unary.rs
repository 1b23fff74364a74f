//! Element-wise unary operators (`-x`, `!x`, `exp`, `log`, `sqrt`, `abs`, `sigmoid`,
//! `round`, `floor`, `ceil`, `sign`).
//!
//! An operator with `f(0) == 0` (neg, abs, sqrt, round, floor, ceil, sign) maps a sparse
//! matrix to a sparse matrix touching only its stored entries; the others (`!`, `exp`,
//! `log`, `sigmoid`) produce a dense result. Results come back in their best format.

use crate::kernels::ew_common::{flat_map, map_stored, par_dense, with_pattern_of};
use crate::matrix::{DenseMatrix, Matrix};

fn flag(b: bool) -> f64 {
    if b {
        1.0
    } else {
        0.0
    }
}

/// A unary element-wise operator of DML.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    /// `-x`
    Neg,
    /// `!x`: 1 where `x == 0`, else 0
    Not,
    /// `exp(x)`
    Exp,
    /// `log(x)`, the natural logarithm (`log(0) = -Inf`, negative gives NaN)
    Log,
    /// `sqrt(x)`
    Sqrt,
    /// `abs(x)`
    Abs,
    /// `sigmoid(x) = 1 / (1 + exp(-x))`
    Sigmoid,
    /// `round(x)`: half away from zero (`round(-2.5) = -3`). This is C's `round`, not
    /// Java's `Math.round` (which rounds halves towards +Inf).
    Round,
    /// `floor(x)`
    Floor,
    /// `ceil(x)`
    Ceil,
    /// `sign(x)`: -1, 0 or 1 (NaN stays NaN; `sign(-0) = 0`)
    Sign,
    Sin,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,
    Sinh,
    Cosh,
    Tanh,
    /// `isNaN(x)` (also `is.na`, `is.nan`): 1 for NaN, else 0
    IsNaN,
    /// `isInf(x)`: 1 for an infinity of either sign, else 0
    IsInf,
}

impl UnaryOp {
    /// All operators, for tests and enumeration.
    pub const ALL: [UnaryOp; 22] = [
        UnaryOp::Neg,
        UnaryOp::Not,
        UnaryOp::Exp,
        UnaryOp::Log,
        UnaryOp::Sqrt,
        UnaryOp::Abs,
        UnaryOp::Sigmoid,
        UnaryOp::Round,
        UnaryOp::Floor,
        UnaryOp::Ceil,
        UnaryOp::Sign,
        UnaryOp::Sin,
        UnaryOp::Cos,
        UnaryOp::Tan,
        UnaryOp::Asin,
        UnaryOp::Acos,
        UnaryOp::Atan,
        UnaryOp::Sinh,
        UnaryOp::Cosh,
        UnaryOp::Tanh,
        UnaryOp::IsNaN,
        UnaryOp::IsInf,
    ];

    /// Applies the operator to one value; the single definition of its semantics.
    #[inline(always)]
    pub fn apply(self, x: f64) -> f64 {
        match self {
            // SystemDS reads `-X` as `-1 * X`, and a matrix cell times a number skips a
            // zero: a zero cell stays `+0` whether it is stored or not, so `1 / (-X)`
            // does not hang on the storage format. (A scalar's negation is IEEE's, in
            // the interpreter.)
            UnaryOp::Neg => 0.0 - x,
            UnaryOp::Not => {
                if x == 0.0 {
                    1.0
                } else {
                    0.0
                }
            }
            UnaryOp::Exp => x.exp(),
            UnaryOp::Log => x.ln(),
            UnaryOp::Sqrt => x.sqrt(),
            UnaryOp::Abs => x.abs(),
            UnaryOp::Sigmoid => 1.0 / (1.0 + (-x).exp()),
            UnaryOp::Round => {
                // Java's Math.round, as SystemDS: halves go up (`round(-2.5) = -2`), the
                // result is a `long` (NaN is 0, beyond +-2^63 saturates), so rounding
                // never makes NaN or Inf. Scripts rely on it: SystemDS's `glm` ends its
                // `round_to_print` loop on `round(NaN) == 0`.
                const LONG_BOUND: f64 = 9_223_372_036_854_775_808.0; // 2^63
                if x.is_nan() {
                    0.0
                } else if x >= LONG_BOUND {
                    LONG_BOUND
                } else if x <= -LONG_BOUND {
                    -LONG_BOUND
                } else {
                    let f = x.floor();
                    if x - f >= 0.5 {
                        f + 1.0
                    } else {
                        f
                    }
                }
            }
            UnaryOp::Floor => x.floor(),
            UnaryOp::Ceil => x.ceil(),
            UnaryOp::Sign => {
                if x > 0.0 {
                    1.0
                } else if x < 0.0 {
                    -1.0
                } else if x == 0.0 {
                    0.0
                } else {
                    f64::NAN
                }
            }
            UnaryOp::Sin => x.sin(),
            UnaryOp::Cos => x.cos(),
            UnaryOp::Tan => x.tan(),
            UnaryOp::Asin => x.asin(),
            UnaryOp::Acos => x.acos(),
            UnaryOp::Atan => x.atan(),
            UnaryOp::Sinh => x.sinh(),
            UnaryOp::Cosh => x.cosh(),
            UnaryOp::Tanh => x.tanh(),
            UnaryOp::IsNaN => flag(x.is_nan()),
            UnaryOp::IsInf => flag(x.is_infinite()),
        }
    }

    /// The DML function name (`"-"` and `"!"` for the two prefix operators).
    pub fn name(self) -> &'static str {
        match self {
            UnaryOp::Neg => "-",
            UnaryOp::Not => "!",
            UnaryOp::Exp => "exp",
            UnaryOp::Log => "log",
            UnaryOp::Sqrt => "sqrt",
            UnaryOp::Abs => "abs",
            UnaryOp::Sigmoid => "sigmoid",
            UnaryOp::Round => "round",
            UnaryOp::Floor => "floor",
            UnaryOp::Ceil => "ceil",
            UnaryOp::Sign => "sign",
            UnaryOp::Sin => "sin",
            UnaryOp::Cos => "cos",
            UnaryOp::Tan => "tan",
            UnaryOp::Asin => "asin",
            UnaryOp::Acos => "acos",
            UnaryOp::Atan => "atan",
            UnaryOp::Sinh => "sinh",
            UnaryOp::Cosh => "cosh",
            UnaryOp::Tanh => "tanh",
            UnaryOp::IsNaN => "isNaN",
            UnaryOp::IsInf => "isInf",
        }
    }

    /// Whether `f(0) == 0`, so a sparse input gives a sparse output.
    pub fn is_sparse_safe(self) -> bool {
        self.apply(0.0) == 0.0
    }
}

macro_rules! dispatch_unary {
    ($op:expr, $f:ident => $body:expr) => {
        dispatch_unary!(@arms $op, $f, $body,
            Neg Not Exp Log Sqrt Abs Sigmoid Round Floor Ceil Sign
            Sin Cos Tan Asin Acos Atan Sinh Cosh Tanh IsNaN IsInf)
    };
    (@arms $op:expr, $f:ident, $body:expr, $($v:ident)*) => {
        match $op {
            $(UnaryOp::$v => {
                let $f = |x: f64| UnaryOp::$v.apply(x);
                $body
            })*
        }
    };
}

pub(crate) use dispatch_unary;

/// `op(m)` cell by cell. Sparse inputs stay sparse when `op(0) == 0`; the result is in
/// its best format.
pub fn unary(op: UnaryOp, m: &Matrix) -> Matrix {
    let (rows, cols) = (m.rows(), m.cols());
    match m {
        Matrix::Sparse(x) if op.is_sparse_safe() => {
            let values = dispatch_unary!(op, f => map_stored(x, |_, _, v| f(v)));
            with_pattern_of(x, values)
        }
        Matrix::Sparse(x) => {
            let d = dispatch_unary!(op, f => par_dense(rows, cols, 4, |range, out| {
                out.fill(f(0.0));
                for (k, i) in range.enumerate() {
                    let (idx, val) = x.line(i);
                    let o = &mut out[k * cols..(k + 1) * cols];
                    for (&j, &v) in idx.iter().zip(val) {
                        o[j as usize] = f(v);
                    }
                }
            }));
            Matrix::Dense(d).into_best_format()
        }
        Matrix::Dense(x) => {
            let data = dispatch_unary!(op, f => flat_map(x.data(), f));
            let d = DenseMatrix::from_vec(rows, cols, data).expect("one value per cell");
            Matrix::Dense(d).into_best_format()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::elementwise::tests::random;
    use crate::matrix::DenseMatrix;
    use proptest::prelude::*;

    fn check(op: UnaryOp, m: &Matrix) -> Matrix {
        let got = unary(op, m);
        let want = DenseMatrix::from_fn(m.rows(), m.cols(), |i, j| op.apply(m.get(i, j)));
        assert!(
            got.approx_eq(&Matrix::Dense(want), 1e-14),
            "{op:?} on {}",
            m.shape()
        );
        assert_eq!(
            got.is_sparse(),
            crate::matrix::prefer_sparse(got.rows(), got.cols(), got.nnz()),
            "{op:?}: not in best format"
        );
        got
    }

    #[test]
    fn scalar_semantics() {
        use UnaryOp::*;
        assert_eq!(Round.apply(2.5), 3.0);
        assert_eq!(Round.apply(-2.5), -2.0);
        assert_eq!(Round.apply(-0.5), 0.0);
        assert_eq!(Round.apply(-1.5), -1.0);
        assert_eq!(Round.apply(0.49999999999999994), 0.0);
        assert_eq!(Round.apply(-2.4), -2.0);
        // A Java `long`, as SystemDS prints it: NaN is 0, +-Inf and huge values saturate.
        assert_eq!(Round.apply(f64::NAN), 0.0);
        assert_eq!(Round.apply(f64::INFINITY), 9.223372036854776e18);
        assert_eq!(Round.apply(f64::NEG_INFINITY), -9.223372036854776e18);
        assert_eq!(Round.apply(1e300), 9.223372036854776e18);
        assert_eq!(Round.apply(-1e10), -1e10);
        assert_eq!(Sign.apply(-0.0), 0.0);
        assert_eq!(Sign.apply(-3.0), -1.0);
        assert_eq!(Sign.apply(0.1), 1.0);
        assert!(Sign.apply(f64::NAN).is_nan());
        assert_eq!(Not.apply(0.0), 1.0);
        assert_eq!(Not.apply(-2.0), 0.0);
        assert_eq!(Sigmoid.apply(0.0), 0.5);
        assert_eq!(Log.apply(0.0), f64::NEG_INFINITY);
        assert!(Sqrt.apply(-1.0).is_nan());
        assert_eq!(Floor.apply(-1.5), -2.0);
        assert_eq!(Ceil.apply(-1.5), -1.0);
        let safe: Vec<_> = UnaryOp::ALL.iter().filter(|o| o.is_sparse_safe()).collect();
        assert_eq!(
            safe,
            [
                &Neg, &Sqrt, &Abs, &Round, &Floor, &Ceil, &Sign, &Sin, &Tan, &Asin, &Atan, &Sinh,
                &Tanh, &IsNaN, &IsInf
            ]
        );
        assert_eq!(IsNaN.apply(f64::NAN), 1.0);
        assert_eq!(IsInf.apply(f64::NEG_INFINITY), 1.0);
        assert_eq!(IsInf.apply(f64::NAN), 0.0);
    }

    #[test]
    fn all_ops_sparse_and_dense() {
        for (k, &op) in UnaryOp::ALL.iter().enumerate() {
            for (r, c) in [
                (40, 30),
                (1, 25),
                (25, 1),
                (1, 1),
                (0, 4),
                (4, 0),
                (300, 200),
            ] {
                for sparse in [false, true] {
                    let m = random(r, c, 0.1, sparse, k as u64);
                    let got = check(op, &m);
                    if sparse && c > 1 && r > 1 {
                        assert_eq!(got.is_sparse(), op.is_sparse_safe(), "{op:?}");
                    }
                }
                check(op, &random(r, c, 1.0, false, 9));
            }
        }
    }

    #[test]
    fn round_can_empty_a_sparse_matrix() {
        let x = Matrix::Sparse(
            crate::matrix::CsrMatrix::from_triplets(3, 3, &[(0, 0, 0.2), (2, 1, -0.4)]).unwrap(),
        );
        let r = unary(UnaryOp::Round, &x);
        assert!(r.is_sparse());
        assert_eq!(r.nnz(), 0);
        if let Matrix::Sparse(s) = r {
            assert_eq!(s.stored(), 0);
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(32))]
        #[test]
        fn prop_unary_matches_naive(op_idx in 0usize..11, r in 0usize..15, c in 0usize..15,
                                    d in 0.0f64..1.0, sparse: bool, seed in 0u64..500) {
            check(UnaryOp::ALL[op_idx], &random(r, c, d, sparse, seed));
        }
    }
}
