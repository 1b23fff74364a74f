//! The name tables of one encoding: what the Rust side must remember to read an e-graph back
//! into [`LaExpr`]s. Written by `saturate::encode`, read by `extract`; a module of its own so
//! that extraction does not depend on saturation.

use crate::cost::dim_size;
use crate::la::{Dim, LaExpr, ShapeEnv};

/// What the Rust side must remember to read the e-graph back.
#[derive(Debug, Default, Clone)]
pub struct Tables {
    /// `LVar n` stands for `leaves[n]`: an input, or an opaque call (already optimized
    /// inside) that the e-graph treats as an input named `placeholders[n]`.
    pub leaves: Vec<LaExpr>,
    /// The name each leaf has in [`Tables::env`].
    pub placeholders: Vec<String>,
    /// `LF1 n` / `LF2 n` call `funcs[n]`.
    pub funcs: Vec<String>,
    /// Dimension code `-(n + 1)` is `syms[n]`; a code `>= 0` is a known size.
    pub syms: Vec<Dim>,
    /// The caller's environment plus the shapes of opaque placeholders.
    pub env: ShapeEnv,
}

impl Tables {
    pub fn dim_code(&mut self, d: &Dim) -> i64 {
        match d {
            Dim::Known(n) => i64::try_from(*n).unwrap_or(i64::MAX),
            Dim::Sym(_) => {
                let pos = match self.syms.iter().position(|s| s == d) {
                    Some(p) => p,
                    None => {
                        self.syms.push(d.clone());
                        self.syms.len() - 1
                    }
                };
                -(pos as i64) - 1
            }
        }
    }

    pub fn dim_of_code(&self, code: i64) -> Option<Dim> {
        if code >= 0 {
            Some(Dim::Known(code as usize))
        } else {
            self.syms.get((-code - 1) as usize).cloned()
        }
    }

    /// Numeric size of a dimension code, as the cost model sees it.
    pub fn code_size(&self, code: i64) -> f64 {
        self.dim_of_code(code)
            .map_or(crate::cost::DEFAULT_DIM, |d| dim_size(&d))
    }

    /// The expression an `LVar` stands for in the final result.
    pub fn leaf(&self, n: usize) -> Option<&LaExpr> {
        self.leaves.get(n)
    }
}
