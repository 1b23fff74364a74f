//! Which engine runs a block's sum-product subgraphs: the local kernels, or a relational
//! engine (`spores run --engine datafusion`).
//!
//! With a [`RelationalEngine`], each LA subgraph of the (optimized) block — the roots the
//! optimizer sees ([`crate::opt::convert::extract`]) — that the engine can lower becomes
//! one [`Op::Relational`] node whose children are the subgraph's leaves; the rest of the
//! block (reads, prints, indexing, calls, scalar arithmetic) stays on the local kernels.
//! A subgraph whose leaves or value may hold NaN or infinities stays local too: the
//! relational reading of a product skips missing (zero) tuples, while the local kernels
//! give `0 * Inf = NaN` as SystemDS does.
//!
//! The trait keeps the dependency one way: this crate knows no SQL engine; the binary
//! plugs DataFusion in (feature `datafusion`, crate `spores-dist`).

use std::collections::HashMap;
use std::sync::Arc;

use spores_exec::{DenseMatrix, Matrix};
use spores_opt::la::LaExpr;

use crate::dag::finite::may_be_non_finite;
use crate::dag::meta::{infer, NodeMeta};
use crate::dag::{BlockDag, Op, RelationalRoot};
use crate::opt::convert::{extract, rebuild_with};
use crate::opt::InputMeta;
use crate::runtime::Value;

/// An engine that evaluates whole LA expressions as relational queries.
pub trait RelationalEngine {
    /// Its name for `--explain`, `--stats` and logs.
    fn name(&self) -> &'static str;

    /// `Ok` when `expr` can be lowered for leaves of these shapes (rows, columns; scalars
    /// are 1x1), else why not.
    fn supports(
        &self,
        expr: &LaExpr,
        shapes: &HashMap<String, (usize, usize)>,
    ) -> Result<(), String>;

    /// Evaluates `expr` on `inputs` (scalars as 1x1 matrices).
    fn run(&self, expr: &LaExpr, inputs: &HashMap<String, Arc<Matrix>>) -> Result<Matrix, String>;
}

/// The block with every LA subgraph the engine supports replaced by an
/// [`Op::Relational`] node, or `None` when no subgraph qualifies.
pub fn relational_block(
    block: &BlockDag,
    inputs: &HashMap<String, InputMeta>,
    engine: &dyn RelationalEngine,
) -> Option<BlockDag> {
    let meta = infer(&block.dag, inputs);
    let extracted = extract(block, &meta);
    let non_finite = may_be_non_finite(&block.dag, inputs);
    let shape = |id: usize| match &meta[id] {
        NodeMeta::Matrix { shape, .. } => Some((shape.rows, shape.cols)),
        NodeMeta::Scalar(_) => Some((1, 1)),
        NodeMeta::Unknown => None,
    };
    let mut chosen: HashMap<usize, RelationalRoot> = HashMap::new();
    for root in &extracted.roots {
        let leaves = root.expr.vars();
        let leaf_nodes: Option<Vec<usize>> = leaves
            .iter()
            .map(|l| extracted.leaves.get(l).copied())
            .collect();
        let Some(leaf_nodes) = leaf_nodes else {
            continue;
        };
        if non_finite[root.node] || leaf_nodes.iter().any(|&n| non_finite[n]) {
            log::debug!(
                "{}: `{}` stays local (its values may not be finite)",
                engine.name(),
                root.expr
            );
            continue;
        }
        let shapes: Option<HashMap<String, (usize, usize)>> = leaves
            .iter()
            .zip(&leaf_nodes)
            .map(|(l, &n)| shape(n).map(|s| (l.clone(), s)))
            .collect();
        let Some(shapes) = shapes else { continue };
        match engine.supports(&root.expr, &shapes) {
            Ok(()) => {
                log::info!("{}: runs `{}`", engine.name(), root.expr);
                chosen.insert(
                    root.node,
                    RelationalRoot {
                        expr: root.expr.clone(),
                        leaves,
                    },
                );
            }
            Err(why) => log::info!("{}: `{}` stays local: {why}", engine.name(), root.expr),
        }
    }
    if chosen.is_empty() {
        return None;
    }
    let rebuilt = rebuild_with(block, |out, id, remap| {
        let Some(root) = chosen.get(&id) else {
            return Ok(None);
        };
        let children = root
            .leaves
            .iter()
            .map(|l| remap[extracted.leaves[l]])
            .collect();
        let span = block.dag.node(id).span;
        let value = out.add(Op::Relational(Arc::new(root.clone())), children, span);
        Ok(Some((value, None)))
    });
    rebuilt.ok()
}

/// Runs an [`Op::Relational`] node on its leaves' values.
pub fn run_relational(
    engine: &dyn RelationalEngine,
    root: &RelationalRoot,
    args: &[Value],
) -> Result<Value, String> {
    let mut inputs = HashMap::with_capacity(args.len());
    for (name, value) in root.leaves.iter().zip(args) {
        let matrix = match value {
            Value::Matrix(m) => m.clone(),
            scalar => {
                let v = scalar.as_f64().ok_or_else(|| {
                    format!(
                        "`{name}` is a {}, not a number or matrix",
                        scalar.type_name()
                    )
                })?;
                Arc::new(Matrix::Dense(DenseMatrix::filled(1, 1, v)))
            }
        };
        inputs.insert(name.clone(), matrix);
    }
    engine.run(&root.expr, &inputs).map(Value::matrix)
}

/// DataFusion on this machine, through `spores-dist`.
#[cfg(feature = "datafusion")]
impl RelationalEngine for spores_dist::DataFusionEngine {
    fn name(&self) -> &'static str {
        "datafusion"
    }

    fn supports(
        &self,
        expr: &LaExpr,
        shapes: &HashMap<String, (usize, usize)>,
    ) -> Result<(), String> {
        spores_dist::lower::check(expr, shapes).map_err(|e| e.to_string())
    }

    fn run(&self, expr: &LaExpr, inputs: &HashMap<String, Arc<Matrix>>) -> Result<Matrix, String> {
        spores_dist::DataFusionEngine::run(self, expr, inputs).map_err(|e| e.to_string())
    }
}
