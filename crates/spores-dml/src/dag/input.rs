//! What is known about a block's inputs when the block is compiled: shapes, non-zero
//! counts and whether their values are finite. The optimizer plans from it, and the DAG's
//! analyses (`meta`, `finite`, `guard`) read it.

use spores_exec::Shape;

/// What is known about a block input when the block is compiled.
#[derive(Clone, Debug, PartialEq)]
pub enum InputMeta {
    /// `finite`: whether every cell is a finite number (no NaN, no ±Inf).
    Matrix {
        shape: Shape,
        nnz: usize,
        finite: Finiteness,
    },
    Scalar {
        finite: Finiteness,
    },
}

/// Whether an input's cells are all finite numbers, as far as planning knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Finiteness {
    Finite,
    /// At least one NaN or ±Inf.
    NonFinite,
    /// Not looked at yet: a matrix read in place from outside (the Python bindings'
    /// NumPy and SciPy inputs), whose scan would cost a pass of its own on every call.
    /// Roots reading it are planned as for a value computed in the block: rewritten
    /// behind a guard that checks it when it runs (see `crate::dag::guard`), which a
    /// kernel that reads every value can answer from its own pass.
    Unchecked,
}

impl From<bool> for Finiteness {
    fn from(all_finite: bool) -> Self {
        if all_finite {
            Finiteness::Finite
        } else {
            Finiteness::NonFinite
        }
    }
}

impl InputMeta {
    pub fn finiteness(&self) -> Finiteness {
        match self {
            InputMeta::Matrix { finite, .. } | InputMeta::Scalar { finite } => *finite,
        }
    }

    /// Whether the input is known to hold only finite numbers (the optimizer's rewrites,
    /// valid for real numbers, are only applied freely to such values).
    pub fn is_finite(&self) -> bool {
        self.finiteness() == Finiteness::Finite
    }

    /// Whether the input is known to hold a NaN or ±Inf (not merely unchecked).
    pub fn is_known_non_finite(&self) -> bool {
        self.finiteness() == Finiteness::NonFinite
    }
}

/// What every plan of a block depends on in its inputs, rounded so that a plan is made
/// again when the inputs really change but not on every small drift of a non-zero count:
/// for each input its name, exact shape, density to within a factor of about 1.4, which
/// side of the masked kernels' density threshold it is on, and whether its values are
/// finite. The optimizer's plans and the physical and relational plans are all cached
/// under it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct InputSignature(Vec<InputKey>);

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct InputKey {
    name: String,
    /// `None` for a scalar.
    shape: Option<(usize, usize)>,
    /// `floor(2 log2(density))`; `i32::MAX` for a full matrix.
    density_step: i32,
    /// Sparse enough for the masked kernels (`spores_opt::extract::MASK_DENSITY`).
    maskable: bool,
    finite: Finiteness,
}

impl InputSignature {
    pub fn of(inputs: &std::collections::HashMap<String, InputMeta>) -> InputSignature {
        let mut keys: Vec<InputKey> = inputs
            .iter()
            .map(|(name, meta)| match meta {
                InputMeta::Matrix { shape, nnz, finite } => {
                    let cells = shape.cells().max(1) as f64;
                    let density = *nnz as f64 / cells;
                    InputKey {
                        name: name.clone(),
                        shape: Some((shape.rows, shape.cols)),
                        // `as` saturates: an empty matrix is the lowest step.
                        density_step: if density >= 1.0 {
                            i32::MAX
                        } else {
                            (density.log2() * 2.0).floor() as i32
                        },
                        maskable: density < spores_opt::extract::MASK_DENSITY,
                        finite: *finite,
                    }
                }
                InputMeta::Scalar { finite } => InputKey {
                    name: name.clone(),
                    shape: None,
                    density_step: i32::MIN,
                    maskable: false,
                    finite: *finite,
                },
            })
            .collect();
        keys.sort();
        InputSignature(keys)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use spores_exec::Shape;
    use std::collections::HashMap;

    fn matrix(rows: usize, cols: usize, nnz: usize) -> HashMap<String, InputMeta> {
        HashMap::from([(
            "X".to_string(),
            InputMeta::Matrix {
                shape: Shape::new(rows, cols),
                nnz,
                finite: Finiteness::Finite,
            },
        )])
    }

    #[test]
    fn a_signature_changes_with_shape_and_real_changes_of_density_only() {
        let at = |nnz| InputSignature::of(&matrix(1000, 1000, nnz));
        assert_eq!(at(10_000), at(11_000));
        assert_ne!(at(10_000), at(20_000));
        assert_ne!(at(10_000), InputSignature::of(&matrix(1000, 999, 10_000)));
        assert_ne!(at(1_000_000), at(990_000));
        // An empty matrix is its own step; a denser one is maskable no more.
        assert_ne!(at(0), at(1));
        assert_ne!(at(390_000), at(410_000));
    }
}
