//! A block's environment: the values its inputs are bound to, and what the optimizer and
//! the physical planner see of them ([`InputMeta`]: shape, non-zeros, finiteness).

use std::collections::HashMap;

use super::value::Value;
use crate::dag::{BlockDag, Op};
use crate::opt::{Finiteness, InputMeta};

/// The variables in scope, by name.
pub(super) type Env = HashMap<String, Value>;

/// What the optimizer and physical planning see of each input of `block` bound in `env`,
/// in O(1) per input: the stored entries of sparse inputs and all cells of dense ones (a
/// dense-format matrix counts as full: its format was chosen because it is at least 40%
/// non-zero; an exact count would scan every input before every block).
pub(super) fn input_meta(block: &BlockDag, env: &Env) -> HashMap<String, InputMeta> {
    block
        .dag
        .nodes()
        .iter()
        .filter_map(|n| match &n.op {
            // A frame's size is not planned with: its nodes stay of unknown size.
            Op::Input(name) => env
                .get(name)
                .filter(|v| !matches!(v, Value::Frame(_)))
                .map(|v| {
                    let meta = match v {
                        Value::Matrix(m) => InputMeta::Matrix {
                            shape: m.shape(),
                            nnz: match &**m {
                                spores_exec::Matrix::Sparse(s) => s.stored(),
                                dense => dense.shape().cells(),
                            },
                            finite: finiteness(m),
                        },
                        Value::File(f) => InputMeta::Matrix {
                            shape: f.shape(),
                            nnz: f.cells() as usize,
                            finite: f.all_finite().into(),
                        },
                        other => InputMeta::Scalar {
                            finite: other.as_f64().is_none_or(f64::is_finite).into(),
                        },
                    };
                    (name.clone(), meta)
                }),
            _ => None,
        })
        .collect()
}

/// What planning knows about a matrix input's cells: a matrix read in place from outside
/// (the Python bindings' inputs, new on every call) is left unchecked unless something
/// asked already, so that no call scans it on its own (see [`Finiteness::Unchecked`]);
/// any other is scanned once (the answer is cached on the matrix).
fn finiteness(m: &spores_exec::Matrix) -> Finiteness {
    if m.is_foreign() {
        m.finite_if_known()
            .map_or(Finiteness::Unchecked, Finiteness::from)
    } else {
        m.all_finite().into()
    }
}
