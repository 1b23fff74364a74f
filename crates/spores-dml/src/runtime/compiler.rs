//! Compiling a basic block for the inputs it runs with: lowered once per place in the
//! program, optimized for its inputs, then planned for the kernels or the relational
//! engine. Every plan that depends on the inputs is cached under one [`InputSignature`].

use std::collections::{HashMap, HashSet};
use std::hash::{Hash, Hasher};
use std::rc::Rc;
use std::time::{Duration, Instant};

use spores_lang::diag::{Diagnostic, Span};

use super::env::{input_meta, Env};
use super::options::RunOptions;
use crate::dag::input::InputSignature;
use crate::dag::BlockDag;
use crate::engine::{relational_block, Placement};
use crate::opt::{InputMeta, Optimization};

/// Where a block's code is in the program: the address and length of its statements (or
/// the address of a lone expression, with length 0). The program outlives the run, so the
/// place names the block for as long as the caches live.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BlockKey(usize, usize);

impl BlockKey {
    pub(super) fn of_statements<T>(stmts: &[T]) -> BlockKey {
        BlockKey(stmts.as_ptr() as usize, stmts.len())
    }

    pub(super) fn of_expression<T>(expr: &T) -> BlockKey {
        BlockKey(expr as *const T as usize, 0)
    }
}

/// A lowered block, and its physical plan when planning changed anything.
struct Lowered {
    dag: Rc<BlockDag>,
    planned: Option<Rc<BlockDag>>,
}

/// The block a plan starts from: as lowered, or as the optimizer rewrote it. Compared by
/// identity (the optimizer hands out the same `Rc` for the same block and signature), and
/// held, so that a cached plan's source stays alive as long as the plan.
#[derive(Clone)]
enum PlanSource {
    Lowered(Rc<BlockDag>),
    Optimized(Rc<Optimization>),
}

impl PlanSource {
    fn address(&self) -> usize {
        match self {
            PlanSource::Lowered(b) => Rc::as_ptr(b) as usize,
            PlanSource::Optimized(o) => Rc::as_ptr(o) as usize,
        }
    }

    fn block(&self) -> &BlockDag {
        match self {
            PlanSource::Lowered(b) => b,
            PlanSource::Optimized(o) => o.block.as_ref().expect("an optimized block"),
        }
    }
}

impl PartialEq for PlanSource {
    fn eq(&self, other: &Self) -> bool {
        self.address() == other.address()
    }
}

impl Eq for PlanSource {}

impl Hash for PlanSource {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.address().hash(state);
    }
}

/// A relational plan's source and inputs, and against a memory budget each input's
/// non-zeros to a factor of two (the number of bits of the count).
type RelationalKey = (PlanSource, InputSignature, Vec<(String, u32)>);

/// A block ready to run, with what compiling it did.
pub(super) struct Compiled {
    pub plan: Rc<BlockDag>,
    /// Where the block is in the source.
    pub span: Span,
    /// The optimizer's notes, the first time this optimization is used (for `--explain`).
    pub new_notes: Option<String>,
    /// Whether the block was lowered now (the first time its place ran).
    pub lowered_now: bool,
    pub optimize_time: Duration,
}

/// The caches of compiled blocks (see the module documentation).
#[derive(Default)]
pub(super) struct BlockCompiler {
    lowered: HashMap<BlockKey, Rc<Lowered>>,
    /// Physical plans without sizes of optimized blocks.
    planned: HashMap<PlanSource, Rc<BlockDag>>,
    /// Physical plans made with the inputs' sizes (masked operators compiled).
    sized: HashMap<(PlanSource, InputSignature), Rc<BlockDag>>,
    /// Blocks with their sum-product subgraphs on the relational engine (`None`: no
    /// subgraph qualified); placed against a memory budget, also by each input's
    /// non-zeros to a factor of two.
    relational: HashMap<RelationalKey, Option<Rc<BlockDag>>>,
    /// Optimizations whose notes were handed out for `--explain`.
    explained: HashSet<PlanSource>,
}

impl BlockCompiler {
    /// Lowers the block at `key` (once, then cached), optimizes it for the inputs in `env`
    /// and plans it.
    pub(super) fn compile(
        &mut self,
        key: BlockKey,
        env: &Env,
        options: &RunOptions,
        runs_ahead: u64,
        lower: impl FnOnce() -> Result<BlockDag, Diagnostic>,
    ) -> Result<Compiled, Diagnostic> {
        let fuse = options.fuse_elementwise;
        let lowered_now = !self.lowered.contains_key(&key);
        let lowered = match self.lowered.get(&key) {
            Some(block) => block.clone(),
            None => {
                let dag = lower()?;
                let block = Rc::new(Lowered {
                    planned: crate::plan::physical_with(&dag, None, fuse).map(Rc::new),
                    dag: Rc::new(dag),
                });
                self.lowered.insert(key, block.clone());
                block
            }
        };
        let mut inputs = if options.optimizer.needs_input_meta() {
            Some(input_meta(&lowered.dag, env))
        } else {
            None
        };
        let optimizing = Instant::now();
        let optimization = options.optimizer.optimize(
            &lowered.dag,
            inputs.as_ref().unwrap_or(&HashMap::new()),
            runs_ahead,
        );
        let optimize_time = optimizing.elapsed();
        let source = match &optimization.block {
            None => PlanSource::Lowered(lowered.dag.clone()),
            Some(_) => PlanSource::Optimized(optimization.clone()),
        };
        let new_notes = (options.explain
            && !optimization.notes.is_empty()
            && self
                .explained
                .insert(PlanSource::Optimized(optimization.clone())))
        .then(|| optimization.notes.clone());
        // Masked operators and the relational engine's plans depend on the inputs' sizes:
        // planned again per input signature, from the unplanned block.
        let mut sized_inputs = || -> HashMap<String, InputMeta> {
            inputs
                .get_or_insert_with(|| input_meta(source.block(), env))
                .clone()
        };
        let plan = if let Some(engine) = &options.engine {
            let inputs = sized_inputs();
            // Against a budget, the sizes count too: each input's non-zeros, to a factor
            // of two.
            let magnitudes = match options.placement {
                Placement::OverBudget { .. } => {
                    let mut bits: Vec<(String, u32)> = inputs
                        .iter()
                        .filter_map(|(name, m)| match m {
                            InputMeta::Matrix { nnz, .. } => {
                                Some((name.clone(), usize::BITS - nnz.leading_zeros()))
                            }
                            InputMeta::Scalar { .. } => None,
                        })
                        .collect();
                    bits.sort();
                    bits
                }
                _ => Vec::new(),
            };
            let key = (source.clone(), InputSignature::of(&inputs), magnitudes);
            let placement = options.placement;
            self.relational
                .entry(key)
                .or_insert_with(|| {
                    relational_block(source.block(), &inputs, engine.as_ref(), placement)
                        .map(Rc::new)
                })
                .clone()
        } else {
            None
        };
        let plan = match plan {
            Some(relational) => relational,
            None if options.sized_planning && crate::plan::wants_meta(source.block()) => {
                let inputs = sized_inputs();
                let unsized_plan = self.unsized_plan(&lowered, &source, fuse);
                self.sized
                    .entry((source.clone(), InputSignature::of(&inputs)))
                    .or_insert_with(|| {
                        let meta = crate::dag::meta::infer(&source.block().dag, &inputs);
                        crate::plan::physical_with(source.block(), Some(&meta), fuse)
                            .map_or(unsized_plan, Rc::new)
                    })
                    .clone()
            }
            None => self.unsized_plan(&lowered, &source, fuse),
        };
        Ok(Compiled {
            plan,
            span: lowered.dag.span,
            new_notes,
            lowered_now,
            optimize_time,
        })
    }

    /// The physical plan made without the inputs' sizes.
    fn unsized_plan(&mut self, lowered: &Lowered, source: &PlanSource, fuse: bool) -> Rc<BlockDag> {
        match source {
            PlanSource::Lowered(_) => lowered
                .planned
                .clone()
                .unwrap_or_else(|| lowered.dag.clone()),
            PlanSource::Optimized(_) => self
                .planned
                .entry(source.clone())
                .or_insert_with(|| {
                    let better = source.block();
                    Rc::new(
                        crate::plan::physical_with(better, None, fuse)
                            .unwrap_or_else(|| better.clone()),
                    )
                })
                .clone(),
        }
    }
}
