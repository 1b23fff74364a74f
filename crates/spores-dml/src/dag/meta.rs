//! Size propagation: what each node of a block will produce, known before running it.
//!
//! Given the shapes and non-zero counts of the block's inputs, every node gets a
//! [`NodeMeta`]: a matrix shape with an estimated number of non-zeros, a scalar (with
//! its value when it is a compile-time constant, so `rand(rows=n*2, ...)` has a known
//! shape), or unknown (e.g. the result of `read` or of a user function). The optimizer
//! uses this to know what it is rewriting; SystemDS does the same for its dynamic
//! recompilation.

use std::collections::HashMap;

use spores_exec::kernels::elementwise::BinaryOp;
use spores_exec::Shape;

use super::builtins::{self, ResultShape};
use super::{AggFn, Axis, Builtin, Dag, Fused, IndexKind, Literal, Op};
use crate::dag::input::InputMeta;

#[derive(Clone, Debug, PartialEq)]
pub enum NodeMeta {
    /// A matrix with its shape and estimated non-zero count.
    Matrix { shape: Shape, nnz: f64 },
    /// A scalar; `Some(v)` when its numeric value is known before running.
    Scalar(Option<f64>),
    /// A string, or anything whose size cannot be known before running.
    Unknown,
}

impl NodeMeta {
    fn constant(&self) -> Option<f64> {
        match self {
            NodeMeta::Scalar(v) => *v,
            _ => None,
        }
    }

    fn dense(rows: usize, cols: usize) -> NodeMeta {
        NodeMeta::Matrix {
            shape: Shape::new(rows, cols),
            nnz: rows as f64 * cols as f64,
        }
    }
}

/// Propagates sizes through the whole DAG, in node order.
pub fn infer(dag: &Dag, inputs: &HashMap<String, InputMeta>) -> Vec<NodeMeta> {
    let mut meta: Vec<NodeMeta> = Vec::with_capacity(dag.len());
    for node in dag.nodes() {
        let arg = |k: usize| &meta[node.children[k]];
        let m = match &node.op {
            Op::Input(name) => match inputs.get(name) {
                Some(InputMeta::Matrix { shape, nnz, .. }) => NodeMeta::Matrix {
                    shape: *shape,
                    nnz: *nnz as f64,
                },
                Some(InputMeta::Scalar { .. }) => NodeMeta::Scalar(None),
                None => NodeMeta::Unknown,
            },
            Op::Literal(Literal::Double(v)) => NodeMeta::Scalar(Some(*v)),
            Op::Literal(Literal::Int(v)) => NodeMeta::Scalar(Some(*v as f64)),
            Op::Literal(Literal::Bool(b)) => NodeMeta::Scalar(Some(f64::from(u8::from(*b)))),
            Op::Literal(Literal::Str(_)) => NodeMeta::Unknown,
            Op::Binary(op) => binary(*op, arg(0), arg(1)),
            Op::Unary(op) => match arg(0) {
                NodeMeta::Matrix { shape, nnz } => NodeMeta::Matrix {
                    shape: *shape,
                    nnz: if op.is_sparse_safe() {
                        *nnz
                    } else {
                        shape.cells() as f64
                    },
                },
                NodeMeta::Scalar(_) => NodeMeta::Scalar(None),
                NodeMeta::Unknown => NodeMeta::Unknown,
            },
            Op::MatMul => match (arg(0), arg(1)) {
                (
                    NodeMeta::Matrix { shape: a, nnz: na },
                    NodeMeta::Matrix { shape: b, nnz: nb },
                ) if a.cols == b.rows => NodeMeta::Matrix {
                    shape: Shape::new(a.rows, b.cols),
                    nnz: matmul_nnz(*a, *na, *b, *nb),
                },
                _ => NodeMeta::Unknown,
            },
            Op::Transpose => match arg(0) {
                NodeMeta::Matrix { shape, nnz } => NodeMeta::Matrix {
                    shape: shape.transposed(),
                    nnz: *nnz,
                },
                other => other.clone(),
            },
            Op::Agg(f, axis) => match (arg(0), axis) {
                (NodeMeta::Matrix { .. } | NodeMeta::Scalar(_), Axis::All) => {
                    NodeMeta::Scalar(None)
                }
                (NodeMeta::Matrix { shape, nnz }, Axis::Row) => NodeMeta::Matrix {
                    shape: Shape::new(shape.rows, 1),
                    nnz: if *f == AggFn::Sum {
                        nnz.min(shape.rows as f64)
                    } else {
                        shape.rows as f64
                    },
                },
                (NodeMeta::Matrix { shape, nnz }, Axis::Col) => NodeMeta::Matrix {
                    shape: Shape::new(1, shape.cols),
                    nnz: if *f == AggFn::Sum {
                        nnz.min(shape.cols as f64)
                    } else {
                        shape.cols as f64
                    },
                },
                _ => NodeMeta::Unknown,
            },
            Op::Builtin(b) => builtin(
                *b,
                &node.children.iter().map(|&c| &meta[c]).collect::<Vec<_>>(),
            ),
            Op::Index { rows, cols } => {
                let bounds = |kind: IndexKind, first: usize, extent: usize| -> Option<usize> {
                    match kind {
                        IndexKind::All => Some(extent),
                        IndexKind::Single => Some(1),
                        IndexKind::Range => {
                            // Fractional bounds are truncated, as at run time.
                            let a = meta[node.children[first]].constant()?.trunc();
                            let b = meta[node.children[first + 1]].constant()?.trunc();
                            (b >= a).then(|| (b - a) as usize + 1)
                        }
                    }
                };
                match arg(0) {
                    NodeMeta::Matrix { shape, nnz } => {
                        match (
                            bounds(*rows, 1, shape.rows),
                            bounds(*cols, 1 + rows.arity(), shape.cols),
                        ) {
                            (Some(r), Some(c)) => {
                                let density = nnz / (shape.cells().max(1) as f64);
                                NodeMeta::Matrix {
                                    shape: Shape::new(r, c),
                                    nnz: density * (r * c) as f64,
                                }
                            }
                            _ => NodeMeta::Unknown,
                        }
                    }
                    _ => NodeMeta::Unknown,
                }
            }
            Op::LeftIndex { .. } => match arg(0) {
                NodeMeta::Matrix { shape, .. } => NodeMeta::dense(shape.rows, shape.cols),
                _ => NodeMeta::Unknown,
            },
            // Rewritten or as written, the same value.
            Op::Guarded(_) => arg(0).clone(),
            Op::Fused(f) => fused(
                f,
                &node.children.iter().map(|&c| &meta[c]).collect::<Vec<_>>(),
            ),
            Op::Call { .. } | Op::Extract(_) | Op::Relational(_) => NodeMeta::Unknown,
        };
        meta.push(m);
    }
    meta
}

/// The optimizer's fused operators, from their catalogue entries (result shape, and
/// whose zeros the result keeps); the physical planner's kernels (`MatMulT`, masked,
/// element-wise) are not known here.
fn fused(f: &Fused, args: &[&NodeMeta]) -> NodeMeta {
    let op = match f {
        Fused::Catalogue(kind) => spores_opt::fused::op(*kind),
        Fused::MatMulT { .. } | Fused::Masked(_) | Fused::Elementwise(_) => {
            return NodeMeta::Unknown
        }
    };
    let Some(operands) = args
        .iter()
        .map(|m| match m {
            NodeMeta::Matrix { shape, nnz } => Some((*shape, *nnz)),
            _ => None,
        })
        .collect::<Option<Vec<_>>>()
    else {
        return NodeMeta::Unknown;
    };
    if op.result == spores_opt::fused::ResultShape::Scalar {
        return NodeMeta::Scalar(None);
    }
    let shapes: Vec<(usize, usize)> = operands.iter().map(|(s, _)| (s.rows, s.cols)).collect();
    let Some((rows, cols)) = op.result_shape(&shapes, 1) else {
        return NodeMeta::Unknown;
    };
    match op.zeros_of.and_then(|k| operands.get(k)) {
        Some(&(_, nnz)) => NodeMeta::Matrix {
            shape: Shape::new(rows, cols),
            nnz,
        },
        None => NodeMeta::dense(rows, cols),
    }
}

/// SystemDS's average-case estimate for a product: each output cell is non-zero unless
/// all `k` inner products miss.
fn matmul_nnz(a: Shape, na: f64, b: Shape, nb: f64) -> f64 {
    let (da, db) = (na / a.cells().max(1) as f64, nb / b.cells().max(1) as f64);
    let cells = (a.rows * b.cols) as f64;
    cells * (1.0 - (1.0 - da * db).powf(a.cols as f64))
}

fn binary(op: BinaryOp, a: &NodeMeta, b: &NodeMeta) -> NodeMeta {
    use NodeMeta::*;
    match (a, b) {
        (Scalar(x), Scalar(y)) => Scalar(match (x, y) {
            (Some(x), Some(y)) => Some(op.apply(*x, *y)),
            _ => None,
        }),
        (Matrix { shape, nnz }, Scalar(s)) | (Scalar(s), Matrix { shape, nnz }) => {
            // A zero cell stays zero with the scalar on its side of the operator
            // (`X^2`, `X / 4` keep X's zeros; `2^X`, `4 / X` do not).
            let matrix_first = matches!(a, Matrix { .. });
            let keeps_zeros = s.is_some_and(|s| {
                if matrix_first {
                    op.apply_cell(0.0, s) == 0.0
                } else {
                    op.apply_cell(s, 0.0) == 0.0
                }
            }) || op == BinaryOp::Mul;
            Matrix {
                shape: *shape,
                nnz: if keeps_zeros {
                    *nnz
                } else {
                    shape.cells() as f64
                },
            }
        }
        (Matrix { shape: sa, nnz: na }, Matrix { shape: sb, nnz: nb }) => {
            let rows = sa.rows.max(sb.rows);
            let cols = sa.cols.max(sb.cols);
            let cells = (rows * cols) as f64;
            // Densities spread over the broadcast shape.
            let (da, db) = (na / sa.cells().max(1) as f64, nb / sb.cells().max(1) as f64);
            let nnz = match op {
                BinaryOp::Mul | BinaryOp::And => cells * da.min(db),
                BinaryOp::Div => cells * da,
                _ if op.zero_on_zeros() => cells * (da + db).min(1.0),
                _ => cells,
            };
            Matrix {
                shape: Shape::new(rows, cols),
                nnz,
            }
        }
        _ => Unknown,
    }
}

fn builtin(b: Builtin, args: &[&NodeMeta]) -> NodeMeta {
    let size = |m: &NodeMeta| {
        m.constant()
            .filter(|v| *v >= 0.0 && v.fract() == 0.0)
            .map(|v| v as usize)
    };
    let shape_of = |m: &NodeMeta| match m {
        NodeMeta::Matrix { shape, .. } => Some(*shape),
        _ => None,
    };
    match b {
        Builtin::Rand => match (size(args[0]), size(args[1]), args[4].constant()) {
            (Some(r), Some(c), Some(sparsity)) => NodeMeta::Matrix {
                shape: Shape::new(r, c),
                nnz: sparsity.clamp(0.0, 1.0) * r as f64 * c as f64,
            },
            _ => NodeMeta::Unknown,
        },
        Builtin::Sample => match size(args[1]) {
            Some(n) => NodeMeta::Matrix {
                shape: Shape::new(n, 1),
                nnz: n as f64,
            },
            None => NodeMeta::Unknown,
        },
        Builtin::Matrix => match (size(args[1]), size(args[2])) {
            (Some(r), Some(c)) => {
                let nnz = match args[0] {
                    NodeMeta::Scalar(Some(v)) if *v == 0.0 => 0.0,
                    NodeMeta::Matrix { nnz, .. } => *nnz,
                    _ => (r * c) as f64,
                };
                NodeMeta::Matrix {
                    shape: Shape::new(r, c),
                    nnz,
                }
            }
            _ => NodeMeta::Unknown,
        },
        Builtin::Nrow => NodeMeta::Scalar(shape_of(args[0]).map(|s| s.rows as f64)),
        Builtin::Ncol => NodeMeta::Scalar(shape_of(args[0]).map(|s| s.cols as f64)),
        Builtin::Length => NodeMeta::Scalar(shape_of(args[0]).map(|s| s.cells() as f64)),
        Builtin::AsMatrix => match args[0] {
            NodeMeta::Scalar(_) => NodeMeta::dense(1, 1),
            other => other.clone(),
        },
        Builtin::Quantile => match args[1] {
            NodeMeta::Matrix { shape, .. } if !shape.is_scalar() => NodeMeta::dense(shape.rows, 1),
            NodeMeta::Scalar(_) => NodeMeta::Scalar(None),
            _ => NodeMeta::Unknown,
        },
        Builtin::Solve => match (shape_of(args[0]), shape_of(args[1])) {
            (Some(a), Some(b)) => NodeMeta::dense(a.cols, b.cols),
            _ => NodeMeta::Unknown,
        },
        Builtin::Outer => match (shape_of(args[0]), shape_of(args[1])) {
            (Some(a), Some(b)) => NodeMeta::dense(a.rows, b.cols),
            _ => NodeMeta::Unknown,
        },
        // A column's diagonal matrix (its non-zeros on the diagonal), or a square
        // matrix's diagonal as a column.
        Builtin::Diag if args.len() == 1 => match args[0] {
            NodeMeta::Matrix { shape, nnz } if shape.cols == 1 => NodeMeta::Matrix {
                shape: Shape::new(shape.rows, shape.rows),
                nnz: *nnz,
            },
            NodeMeta::Matrix { shape, nnz } if shape.rows == shape.cols => NodeMeta::Matrix {
                shape: Shape::new(shape.rows, 1),
                nnz: nnz.min(shape.rows as f64),
            },
            _ => NodeMeta::Unknown,
        },
        // Two matrices side by side (or stacked) that line up: their cells together.
        Builtin::Cbind | Builtin::Rbind if args.len() == 2 => match (args[0], args[1]) {
            (
                NodeMeta::Matrix {
                    shape: left,
                    nnz: na,
                },
                NodeMeta::Matrix {
                    shape: right,
                    nnz: nb,
                },
            ) => {
                let shape = if b == Builtin::Cbind && left.rows == right.rows {
                    Shape::new(left.rows, left.cols + right.cols)
                } else if b == Builtin::Rbind && left.cols == right.cols {
                    Shape::new(left.rows + right.rows, left.cols)
                } else {
                    return NodeMeta::Unknown;
                };
                NodeMeta::Matrix {
                    shape,
                    nnz: na + nb,
                }
            }
            _ => NodeMeta::Unknown,
        },
        _ => match (builtins::spec(b).shape, args.first()) {
            (ResultShape::Scalar, _) => NodeMeta::Scalar(None),
            (ResultShape::LikeFirst, Some(m @ NodeMeta::Matrix { .. })) => (*m).clone(),
            (ResultShape::SameAsFirst, Some(m)) => {
                shape_of(m).map_or(NodeMeta::Unknown, |s| NodeMeta::dense(s.rows, s.cols))
            }
            (ResultShape::ColumnPerRow, Some(m)) => {
                shape_of(m).map_or(NodeMeta::Unknown, |s| NodeMeta::dense(s.rows, 1))
            }
            (ResultShape::RowPerColumn, Some(m)) => {
                shape_of(m).map_or(NodeMeta::Unknown, |s| NodeMeta::dense(1, s.cols))
            }
            _ => NodeMeta::Unknown,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dag::lower_source;

    fn meta_of(src: &str, inputs: &[(&str, InputMeta)]) -> (crate::dag::BlockDag, Vec<NodeMeta>) {
        let block = lower_source(src).unwrap();
        let inputs: HashMap<String, InputMeta> = inputs
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect();
        let meta = infer(&block.dag, &inputs);
        (block, meta)
    }

    /// A finite input matrix of `rows x cols` with `nnz` non-zeros.
    fn finite_matrix(rows: usize, cols: usize, nnz: usize) -> InputMeta {
        InputMeta::Matrix {
            shape: Shape::new(rows, cols),
            nnz,
            finite: crate::dag::input::Finiteness::Finite,
        }
    }

    fn output<'a>(block: &crate::dag::BlockDag, meta: &'a [NodeMeta], name: &str) -> &'a NodeMeta {
        let id = block.outputs.iter().find(|(n, _)| n == name).unwrap().1;
        &meta[id]
    }

    #[test]
    fn shapes_and_constants_propagate() {
        let (block, meta) = meta_of("n = ncol(X) * 2\nR = rand(rows=n, cols=10, sparsity=0.5)\nY = t(X) %*% X\nZ = X * 3\nW = X + 1\nS = rowSums(X)\nP = X[1:10, ]\nQ = X^2\nE = 2^X\n", &[("X", finite_matrix(100, 50, 250))]);
        assert_eq!(output(&block, &meta, "n"), &NodeMeta::Scalar(Some(100.0)));
        assert_eq!(
            output(&block, &meta, "R"),
            &NodeMeta::Matrix {
                shape: Shape::new(100, 10),
                nnz: 500.0
            }
        );
        let NodeMeta::Matrix { shape, nnz } = output(&block, &meta, "Y") else {
            panic!()
        };
        assert_eq!(*shape, Shape::new(50, 50));
        assert!(*nnz > 0.0 && *nnz < 2500.0);
        assert_eq!(
            output(&block, &meta, "Z"),
            &NodeMeta::Matrix {
                shape: Shape::new(100, 50),
                nnz: 250.0
            }
        );
        assert_eq!(
            output(&block, &meta, "W"),
            &NodeMeta::Matrix {
                shape: Shape::new(100, 50),
                nnz: 5000.0
            }
        );
        let nnz_of = |name: &str| match output(&block, &meta, name) {
            NodeMeta::Matrix { nnz, .. } => *nnz,
            other => panic!("{name}: {other:?}"),
        };
        assert_eq!((nnz_of("Q"), nnz_of("E")), (250.0, 5000.0));
        assert_eq!(
            output(&block, &meta, "S"),
            &NodeMeta::Matrix {
                shape: Shape::new(100, 1),
                nnz: 100.0
            }
        );
        let NodeMeta::Matrix { shape, .. } = output(&block, &meta, "P") else {
            panic!()
        };
        assert_eq!(*shape, Shape::new(10, 50));
    }

    #[test]
    fn native_builtins_have_sizes() {
        let (block, meta) = meta_of("C = cumsum(X)\nI = rowIndexMax(X)\nV = colVars(X)\np = prod(X)\nQ = quantile(X[, 1], matrix(\"0.25 0.75\", rows=2, cols=1))\n", &[("X", finite_matrix(30, 4, 120))]);
        let shape = |name: &str| match output(&block, &meta, name) {
            NodeMeta::Matrix { shape, .. } => Some(*shape),
            _ => None,
        };
        assert_eq!(shape("C"), Some(Shape::new(30, 4)));
        assert_eq!(shape("I"), Some(Shape::new(30, 1)));
        assert_eq!(shape("V"), Some(Shape::new(1, 4)));
        assert_eq!(output(&block, &meta, "p"), &NodeMeta::Scalar(None));
        assert_eq!(shape("Q"), Some(Shape::new(2, 1)));
    }

    #[test]
    fn unknown_inputs_stay_unknown() {
        let (block, meta) = meta_of("Y = read(\"f.mtx\") %*% X\n", &[]);
        assert_eq!(output(&block, &meta, "Y"), &NodeMeta::Unknown);
    }
}
