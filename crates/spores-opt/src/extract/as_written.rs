//! Extraction over roots as written: the LA classes of the roots' own terms (no rule has
//! run), with the candidates extraction adds itself: products that read a transposed
//! operand in place and masked evaluation (`masked_mul`, `masked_div`; see
//! [`super::masked`]). It costs a pass over the roots and no e-graph, so roots too cheap
//! for any search still get masked evaluation where its price is lower, chosen by the
//! same extractor as every other plan.

use std::collections::HashMap;

use super::{ExtractError, MClass, MId, MNode, Problem, Snapshot};
use crate::cost::{self, LaCost};
use crate::fused;
use crate::la::LaExpr;
use crate::tables::Tables;

/// The LA classes of `roots` (structurally equal subterms are one class), with their
/// shapes and estimated sparsity. Variables become leaves of `tables` (opaque calls
/// must be hidden behind placeholders first); `None` for a term the classes cannot hold.
fn classes(roots: &[LaExpr], tables: &mut Tables) -> Option<(Vec<MClass>, Vec<MId>)> {
    let mut builder = Builder {
        tables,
        classes: Vec::new(),
        memo: HashMap::new(),
    };
    let ids = roots
        .iter()
        .map(|r| builder.class(r))
        .collect::<Option<Vec<_>>>()?;
    Some((builder.classes, ids))
}

struct Builder<'t> {
    tables: &'t mut Tables,
    classes: Vec<MClass>,
    memo: HashMap<String, MId>,
}

impl Builder<'_> {
    fn class(&mut self, e: &LaExpr) -> Option<MId> {
        use LaExpr::*;
        let key = format!("{e:?}");
        if let Some(&id) = self.memo.get(&key) {
            return Some(id);
        }
        let node = match e {
            Var(v) => {
                let n = match self.tables.placeholders.iter().position(|p| p == v) {
                    Some(n) => n,
                    None => {
                        self.tables.leaves.push(e.clone());
                        self.tables.placeholders.push(v.clone());
                        self.tables.placeholders.len() - 1
                    }
                };
                MNode::Var(n)
            }
            Const(c) => MNode::Const(*c),
            Add(a, b) => MNode::Add(self.class(a)?, self.class(b)?),
            Sub(a, b) => MNode::Sub(self.class(a)?, self.class(b)?),
            Mul(a, b) => MNode::Mul(self.class(a)?, self.class(b)?),
            MatMul(a, b) => MNode::MatMul(self.class(a)?, self.class(b)?),
            Transpose(a) => MNode::T(self.class(a)?),
            Neg(a) => MNode::Neg(self.class(a)?),
            Sum(a) => MNode::Sum(self.class(a)?),
            RowSums(a) => MNode::RowSums(self.class(a)?),
            ColSums(a) => MNode::ColSums(self.class(a)?),
            Pow(a, k) => MNode::Pow(self.class(a)?, *k),
            Func { name, args } => {
                let ids = args
                    .iter()
                    .map(|a| self.class(a))
                    .collect::<Option<Vec<_>>>()?;
                if let Some(op) = fused::by_name(name, args.len()) {
                    MNode::Fused(op.kind, ids)
                } else {
                    let f = match self.tables.funcs.iter().position(|g| g == name) {
                        Some(f) => f,
                        None => {
                            self.tables.funcs.push(name.clone());
                            self.tables.funcs.len() - 1
                        }
                    };
                    match ids.as_slice() {
                        [a] => MNode::F1(f, *a),
                        [a, b] => MNode::F2(f, *a, *b),
                        _ => return None,
                    }
                }
            }
            Fill(..) => return None,
        };
        let (rows, cols) = cost::shape_of(&self.tables.env, e).ok()?;
        let class = MClass {
            nodes: vec![node],
            rows: Some(self.tables.dim_code(&rows)),
            cols: Some(self.tables.dim_code(&cols)),
            sparsity: LaCost::new(&self.tables.env).sparsity(e).ok(),
        };
        self.classes.push(class);
        let id = self.classes.len() - 1;
        self.memo.insert(key, id);
        Some(id)
    }
}

/// The cheapest plan of `roots` (opaque calls hidden behind placeholders of `tables`)
/// among the candidates extraction adds to their own terms, extracted jointly by greedy;
/// `None` when a root cannot be read as LA classes.
pub fn extract_as_written(
    roots: &[LaExpr],
    tables: &mut Tables,
) -> Result<Option<Vec<LaExpr>>, ExtractError> {
    let Some((m_classes, ids)) = classes(roots, tables) else {
        return Ok(None);
    };
    let snap = Snapshot {
        r_classes: Vec::new(),
        m_classes,
        ix_dims: Vec::new(),
        root: 0,
        roots: Vec::new(),
        la_roots: ids.into_iter().map(Some).collect(),
        tables,
    };
    let mut raised = super::raised::Raised::new(&snap)?;
    raised.emit_roots().map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::la::{Dim, ShapeEnv};

    fn env() -> ShapeEnv {
        let mut env = ShapeEnv::default();
        for (name, r, c) in [("X", 2000, 1000), ("U", 2000, 10), ("V", 1000, 10)] {
            env.matrix(name, Dim::Known(r), Dim::Known(c));
        }
        env.set_nnz("X", 2e4);
        env
    }

    fn extracted(text: &str, env: ShapeEnv) -> String {
        let mut tables = Tables {
            env,
            ..Tables::default()
        };
        let e = LaExpr::parse(text).unwrap();
        let out = extract_as_written(&[e], &mut tables).unwrap().unwrap();
        out[0].to_string()
    }

    /// Without any rewrite, a sparse `X` times (or masked-divided by) a tree over a
    /// low-rank product is masked
    /// (and its transposed factor read in place); a dense `X` is left as written, and so
    /// is a tree the catalogue would fuse only after rewriting (`sum(X * (U %*% t(V)))`
    /// stays a masked sum of the product, not `sddmm_sum`: no rule ran).
    #[test]
    fn roots_as_written_get_masked_evaluation_by_price() {
        assert_eq!(
            extracted("sum(X * exp(U %*% t(V)))", env()),
            "sum(masked_mul(X, exp(U %*% t(V))))"
        );
        assert_eq!(
            extracted("masked_div(X, 1 + abs(U %*% t(V))) %*% V", env()),
            "masked_div(X, 1 + abs(U %*% t(V))) %*% V"
        );
        // A plain division is IEEE's (`0 / 0` is NaN where X is 0): never masked.
        assert_eq!(
            extracted("(X / (1 + abs(U %*% t(V)))) %*% V", env()),
            "(X / (1 + abs(U %*% t(V)))) %*% V"
        );
        let mut dense = env();
        dense.nnz.clear();
        assert_eq!(
            extracted("sum(X * exp(U %*% t(V)))", dense),
            "sum(X * exp(U %*% t(V)))"
        );
        assert_eq!(
            extracted("sum(X * (U %*% t(V)))", env()),
            "sum(masked_mul(X, U %*% t(V)))"
        );
    }
}
