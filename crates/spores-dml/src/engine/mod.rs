//! Which engine runs a block's sum-product subgraphs: the local kernels, or a relational
//! engine (`spores run --engine datafusion`).
//!
//! With a [`RelationalEngine`], each LA subgraph of the (optimized) block — the roots the
//! optimizer sees ([`crate::opt::convert::extract`]) — that the engine can lower becomes
//! one [`Op::Relational`] node whose children are the subgraph's leaves; the rest of the
//! block (reads, prints, indexing, calls, scalar arithmetic) stays on the local kernels.
//! A subgraph whose leaves or value may hold NaN or infinities stays local too: the
//! relational reading of a product skips missing (zero) tuples as the kernels'
//! zero-annihilating cells do, but the plan it runs is the optimizer's rewrite, which
//! holds for finite values only (the local kernels fall back to the plan as written).
//!
//! Which subgraphs go is the [`Placement`]: all that can (`--engine datafusion`), or
//! only those the local kernels could not hold (`--engine auto`): a subgraph whose
//! inputs or intermediates, as the planner's size estimates
//! ([`crate::dag::meta::infer`]) put them in the local formats, exceed the memory budget
//! (`--memory`) — SystemDS's choice between its in-memory and its Spark back end, made
//! per subgraph.
//!
//! The trait keeps the dependency one way: this crate knows no SQL engine; the binary
//! plugs DataFusion in (feature `datafusion`, crate `spores-dist`), on this machine or on a
//! Ballista cluster (feature `ballista`).

use std::collections::HashMap;
use std::sync::Arc;

use spores_exec::Matrix;
use spores_opt::la::LaExpr;
use spores_tensor::CooTensor;

use crate::dag::finite::may_be_non_finite;
use crate::dag::meta::{infer, NodeMeta};
use crate::dag::{BlockDag, Op, RelationalRoot};
use crate::opt::convert::{extract, rebuild_with};
use crate::opt::InputMeta;

pub mod file_matrix;

use file_matrix::FileMatrix;

/// Why a relational engine does not lower a subgraph, or failed running it.
#[derive(Debug, thiserror::Error)]
pub enum RelationError {
    /// A leaf of the subgraph holds a value that is neither a number nor a matrix.
    #[error("`{leaf}` is a {found}, not a number or matrix")]
    NotANumber { leaf: String, found: &'static str },
    /// `spores tensor --engine` with an engine that runs LA expressions only.
    #[error("{engine} does not run tensor programs")]
    NoTensorPrograms { engine: &'static str },
    /// The engine's own error (its text as it gives it).
    #[error(transparent)]
    Engine(#[from] Box<dyn std::error::Error + Send + Sync>),
}

impl RelationError {
    /// An engine's error, or its message.
    pub fn engine(e: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> RelationError {
        RelationError::Engine(e.into())
    }
}

impl From<String> for RelationError {
    fn from(message: String) -> RelationError {
        RelationError::engine(message)
    }
}

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
    ) -> Result<(), RelationError>;

    /// Evaluates `expr` on `inputs` (scalars as 1x1 matrices).
    fn run(
        &self,
        expr: &LaExpr,
        inputs: &HashMap<String, RelationInput>,
    ) -> Result<Matrix, RelationError>;

    /// Runs a tensor program's logical plan (`spores tensor --engine`) on `inputs` and
    /// returns the plan's outputs by name.
    fn run_tensor_plan(
        &self,
        plan: &spores_tensor::plan_ast::LogicalPlan,
        inputs: &HashMap<String, CooTensor>,
    ) -> Result<HashMap<String, CooTensor>, RelationError> {
        let _ = (plan, inputs);
        Err(RelationError::NoTensorPrograms {
            engine: self.name(),
        })
    }
}

impl std::fmt::Debug for dyn RelationalEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A leaf of a relational subgraph: a matrix in memory, or one still in its file, which
/// the engine scans itself.
#[derive(Clone, Debug)]
pub enum RelationInput {
    Matrix(Arc<Matrix>),
    File(Arc<FileMatrix>),
}

/// Which of a block's subgraphs that the relational engine supports run on it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Placement {
    /// Every one (`--engine datafusion`).
    #[default]
    Everything,
    /// Those whose inputs or intermediates the local kernels would hold in more than
    /// `bytes` (`--engine auto` with the memory budget; [`local_peak_bytes`]).
    OverBudget { bytes: u64 },
}

/// The largest value, in bytes, that the local kernels would hold while evaluating a
/// subgraph: its `leaves` and each node of its `tree`, estimated from `meta` in the
/// format the kernels store them in (CSR below the sparse turn point, else dense). A
/// product in the tree whose operands are not both sparse allocates a dense result
/// whatever its estimated non-zeros (the kernels refuse it beyond the budget); a leaf is
/// a value already made (perhaps by another engine), priced by its estimate alone.
pub fn local_peak_bytes(
    dag: &crate::dag::Dag,
    meta: &[NodeMeta],
    tree: &[usize],
    leaves: &[usize],
) -> f64 {
    let is_sparse = |id: usize| match &meta[id] {
        NodeMeta::Matrix { shape, nnz } => {
            spores_exec::matrix::prefer_sparse(shape.rows, shape.cols, *nnz as usize)
        }
        _ => false,
    };
    let bytes = |id: usize, computed: bool| {
        let NodeMeta::Matrix { shape, nnz } = &meta[id] else {
            return 8.0;
        };
        let (rows, cols) = (shape.rows as f64, shape.cols as f64);
        let node = dag.node(id);
        let dense_product = computed
            && matches!(node.op, Op::MatMul)
            && !node.children.iter().all(|&c| is_sparse(c));
        if is_sparse(id) && !dense_product {
            // Values and column indices per non-zero, one row pointer per row.
            12.0 * nnz + 8.0 * (rows + 1.0)
        } else {
            8.0 * rows * cols
        }
    };
    let tree = tree.iter().map(|&id| bytes(id, true));
    let leaves = leaves.iter().map(|&id| bytes(id, false));
    tree.chain(leaves).fold(0.0, f64::max)
}

/// The block with every LA subgraph the engine supports (and `placement` sends to it)
/// replaced by an [`Op::Relational`] node, or `None` when no subgraph qualifies.
pub fn relational_block(
    block: &BlockDag,
    inputs: &HashMap<String, InputMeta>,
    engine: &dyn RelationalEngine,
    placement: Placement,
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
        if let Placement::OverBudget { bytes } = placement {
            let peak = local_peak_bytes(&block.dag, &meta, &root.tree, &leaf_nodes);
            let budget = bytes as f64;
            if peak <= budget {
                log::debug!(
                    "{}: `{}` stays local (about {peak:.0} bytes at most, budget {budget:.0})",
                    engine.name(),
                    root.expr
                );
                continue;
            }
            log::debug!(
                "{}: `{}` holds about {peak:.0} bytes locally (nodes {:?}, leaves {:?}), over the budget {budget:.0}",
                engine.name(),
                root.expr,
                root.tree,
                leaf_nodes
            );
        }
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

/// DataFusion on this machine, or on a Ballista cluster, through `spores-dist`.
#[cfg(feature = "datafusion")]
impl RelationalEngine for spores_dist::DataFusionEngine {
    fn name(&self) -> &'static str {
        spores_dist::DataFusionEngine::name(self)
    }

    fn supports(
        &self,
        expr: &LaExpr,
        shapes: &HashMap<String, (usize, usize)>,
    ) -> Result<(), RelationError> {
        spores_dist::lower::check(expr, shapes).map_err(RelationError::engine)
    }

    fn run(
        &self,
        expr: &LaExpr,
        inputs: &HashMap<String, RelationInput>,
    ) -> Result<Matrix, RelationError> {
        let inputs = inputs
            .iter()
            .map(|(name, input)| {
                let input = match input {
                    RelationInput::Matrix(m) => spores_dist::Input::Matrix(m.clone()),
                    RelationInput::File(f) => spores_exec::io::parquet_coo::CooFile::open(f.path())
                        .map_err(RelationError::engine)?
                        .into(),
                };
                Ok((name.clone(), input))
            })
            .collect::<Result<HashMap<_, _>, RelationError>>()?;
        if log::log_enabled!(log::Level::Debug) {
            match self.explain(expr, &inputs) {
                Ok(plans) => log::debug!("{} plans of `{expr}`:\n{plans}", self.name()),
                Err(e) => log::debug!("{} cannot explain `{expr}`: {e}", self.name()),
            }
        }
        spores_dist::DataFusionEngine::run(self, expr, &inputs).map_err(RelationError::engine)
    }

    fn run_tensor_plan(
        &self,
        plan: &spores_tensor::plan_ast::LogicalPlan,
        inputs: &HashMap<String, CooTensor>,
    ) -> Result<HashMap<String, CooTensor>, RelationError> {
        spores_dist::DataFusionEngine::run_tensor_plan(self, plan, inputs)
            .map_err(RelationError::engine)
    }
}
