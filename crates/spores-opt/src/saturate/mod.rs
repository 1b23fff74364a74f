//! Equality saturation: the search half of the SPORES optimizer.
//!
//! [`optimize`] puts an [`LaExpr`] into an egglog e-graph, saturates it with the rules in
//! `crates/spores-opt/rules/*.egg` under limits, extracts the cheapest LA plan
//! ([`crate::extract`]) and prices it with [`crate::cost`]. [`optimize_all`] does the
//! same for all roots of a block at once: one e-graph (shared subterms are one class),
//! one saturation, one joint extraction; root `k > 0` is bound to indices `i{k}`, `j{k}`
//! and found again by looking up its bind.
//!
//! # Encoding
//!
//! * Two e-class sorts: `M` holds the user's LA terms (`LMM`, `LT`, `LSum`, ...; only Rust
//!   inserts them, with their shapes and sparsity as facts `rows`/`cols`/`lsp`), `R` holds
//!   relations. `Bind i j A` is `A(i,j)`; the root is `Bind (I "i") (I "j") input`.
//! * An index on a dimension of size 1 is simply not free in the bind's schema, so a
//!   column vector bound as `Bind i j v` *is* `v(i)`, and broadcasting is a plain join.
//!   No `NoIndex` marker and no case split in the rules is needed.
//! * R_LR (`lower.egg`) pushes a `Bind` through one LA operator at a time
//!   (`Bind i j (LMM a b)` = `Agg k (Join (Bind i k a) (Bind k j b))`), so translation
//!   interleaves with rewriting and consecutive unbind/bind pairs never exist: renaming is
//!   choosing the child's indices.
//! * The way back is rules too (`raise.egg`): `Unbind i j R` (sort `M`) is `R` as a matrix
//!   with rows `i`, columns `j` (`NoIx` for a dimension of size 1). Rust adds
//!   `Unbind i j root` for each root (unioned with a `LaRoot k` mark), and raising rules
//!   equate each demanded `Unbind` with LA operators over `Unbind`s of the operands
//!   (`Unbind i j (Agg k (Join a b))` = `LMM (Unbind i k a) (Unbind k j b)` when the
//!   schemas split, `Unbind i j (Bind i j A)` = `A`, `t(..)` for the other orientation,
//!   fused kernels, ...). The extractor chooses among LA e-nodes ([`crate::extract`]).
//!   The rules state the way back; a search runs it on the snapshot the extractor reads
//!   ([`extract::Snapshot::raise`]), fusion likewise ([`extract::Snapshot::fuse`]).
//! * Fresh indices are constructors over what they come from, not gensyms: deterministic,
//!   free in no context they are introduced into, and never keyed on e-classes: classes
//!   merge (all-zero relations of one schema are one class; raising equates LA classes),
//!   and two fresh indices keyed on classes that later merge become one index, which
//!   captures a variable wherever both were in scope. `Kmm na nb` is the inner index of
//!   `a %*% b`, keyed on the numbers (`lid`) the encoder gives the LA classes it inserts
//!   (structurally equal subterms share one, so alpha-equal translations of shared
//!   subexpressions get the same indices). `Kp i sa sb` is the renamed `i` for a join of
//!   relations with schemas `sa` and `sb`, keyed on the schemas, which are values.
//! * Rule 3's "else rename": `Join a (Agg i b)` with `i` free in `a` becomes
//!   `Agg i' (Join a (Rename i i' b))` and `Rename` is pushed down to the binds by rules;
//!   a `Rename` that cannot be pushed (it would capture) just stays and is never
//!   extracted.
//! * Class invariants are egglog functions: `schema` (free indices, a `Set Ix`) and the LA
//!   classes' `rows`/`cols` merge with primitives that record a conflict
//!   ([`invariants`]), so merging classes of different schemas or shapes (an unsound
//!   rule) stops the search with [`OptError::Unsound`]; `sp` (Figure 12 sparsity) merges with `min`; constants are
//!   `Lit` nodes and fold as soon as children are constant (`fold.egg`).
//! * Names (inputs, opaque functions) are integers into Rust tables, so no user string
//!   is ever spliced into egglog source. Calls the rules cannot see into (anything not a
//!   known elementwise function) become placeholder inputs; their arguments are
//!   optimized separately.
//!
//! # egglog 3.0 findings
//!
//! * `EGraph::parse_and_run_program(None, text)` runs declarations and facts;
//!   `step_rules_with_scheduler(id, ruleset)` runs one iteration of one ruleset and
//!   returns a `RunReport` (`updated`, `can_stop`). There are no built-in node or time
//!   limits, so the driver here steps ruleset by ruleset and checks between steps.
//! * egglog *can* sample: a custom [`egglog::scheduler::Scheduler`] sees every rule's
//!   matches per iteration, chooses some, and egglog keeps the rest for later. We
//!   implement SPORES' per-rule sampling that way (`sched::Sampler`) on the AC and user
//!   rulesets, and a per-step match budget (on R_EQ too once the graph is an eighth of
//!   the node limit), which keeps one step from growing the graph far past the limit
//!   without keeping a copy of the graph to undo it (copies took a quarter of the loss's
//!   search). Costs: the first scheduled step compiles a scheduled copy of each rule
//!   (0.1-0.2 ms per rule, per e-graph); and the scheduler's pending-match buffers sit
//!   behind an `Arc` that `EGraph::clone` shares, so a scheduler must be added to each
//!   cloned e-graph, never to the template (and cannot be compiled once for all).
//! * `(unstable-combined-ruleset name a b ..)` steps several rulesets in one backend
//!   run; every `step_rules` call has a fixed cost (~50-100 µs), which dominates small
//!   graphs, so translation is one combined ruleset and each iteration is two steps.
//! * A `function` with `:no-merge` panics *inside egglog* on conflicting values, which
//!   comes back as an `Err` from the run (not a Rust panic) whose only detail is its
//!   text; a `:merge` expression may call a primitive registered from Rust instead.
//! * Inserting the input: `EGraph::update(|fs| fs.add(ctor, RawValues(..)) / fs.set(..))`
//!   (trait `egglog::Write`) takes microseconds; generating egglog source and
//!   `parse_and_run_program` cost ~0.1 ms per command.
//! * Reading the graph: `constructor_enodes(name, |enode| ..)` gives each e-node's child
//!   values and e-class; `function_entries` gives function rows; `value_to_base::<F>`
//!   (f64), `::<i64>`, decode base values. This is cheaper and more direct than
//!   `serialize()` and is what [`crate::extract`] uses.
//! * Building an e-graph and parsing the ~100 rules takes ~10 ms; we parse once per
//!   thread and clone the prepared e-graph (`EGraph: Clone`, ~0.5 ms) for each call.
//! * `function`s must say `:merge` or `:no-merge`.
//! * f64 literals in rules must not look like integers (`1.0`, not `1`).
//!
//! # Schedule
//!
//! Translation and folding run to a fixpoint first; then each iteration steps R_EQ (with
//! folding) and the sampled AC rules once, then the analyses. Fusion and raising run once
//! on the final graph, as it is read out for extraction (nothing but extraction consumes
//! fused nodes and LA terms, so interleaving them with the search would only fuse and
//! raise intermediate graphs): fusion matches the patterns of `fuse.egg` and raising
//! builds the LA terms of `raise.egg` directly on the snapshot, which costs a fraction of
//! an egglog step per level of the plan (the rules still run, in egglog, when a user's
//! rules may extend them: [`fuse_and_raise_by_rules`]). The iterations run under the
//! shared e-graph runner
//! ([`spores_extract::runner::Runner`]), which owns the loop, the work budget, the time
//! safety net and the stop reason; one iteration is a `LaSearch` step. Node and time
//! limits are checked between steps, so the graph may overshoot the node limit by one
//! step; once the graph is big enough for one step to multiply it, a step fires at most
//! the matches that keep it near twice the limit (see `OVERSHOOT`), and a step predicted
//! to pass the limit (the last iteration's growth, repeated) is not started. Raising is
//! not cut by the limits (a root without LA terms would leave only the fallback reader);
//! it builds LA terms for demanded classes only.

mod encode;
mod invariants;
mod sched;

use std::cell::RefCell;
use std::time::{Duration, Instant};

use egglog::scheduler::SchedulerId;
use egglog::EGraph;

use spores_extract::runner::{Runner, Search, StepContext, StepOutcome};

use crate::cost::la_cost;
use crate::extract::{self, ExtractionReport, Extractor};
use crate::la::{LaExpr, ShapeEnv, ShapeError};

pub use crate::tables::Tables;
/// The check of a user's rule file, shared with the MLIR optimizer.
pub use spores_extract::rules_file::{RulesFile, RulesFileError};
pub use spores_extract::runner::StopReason;

/// The rules, as data, one file per ruleset. `lang.egg` (the declarations) comes first and
/// `schedule.egg` (the combined rulesets the driver steps) last; `fuse.egg` holds all of
/// each fused operator (declarations, invariants, pattern, raising). `rules/tests/*.egg` check
/// each ruleset on its own terms (`tests/rules.rs`).
pub const RULES: &[(&str, &str)] = &[
    ("lang.egg", include_str!("../../rules/lang.egg")),
    ("analysis.egg", include_str!("../../rules/analysis.egg")),
    ("lower.egg", include_str!("../../rules/lower.egg")),
    ("raise.egg", include_str!("../../rules/raise.egg")),
    ("eq.egg", include_str!("../../rules/eq.egg")),
    ("ac.egg", include_str!("../../rules/ac.egg")),
    ("fold.egg", include_str!("../../rules/fold.egg")),
    ("fuse.egg", include_str!("../../rules/fuse.egg")),
    ("schedule.egg", include_str!("../../rules/schedule.egg")),
];

/// Rulesets whose matches are sampled. (R_EQ is stepped unsampled: the first step of a
/// sampled ruleset compiles a scheduled copy of each rule, ~0.1 ms per rule, per
/// optimization; sampling the four AC rules and user rules keeps that small.)
const SAMPLED: &[&str] = &["ac", "user"];

/// Limits and choices for [`optimize`].
///
/// The search is bounded by a budget of work, `iter_limit` iterations and `node_limit`
/// e-nodes: counted, not timed, so the same expression on the same inputs always gets the
/// same search and the same plan, on an idle or a busy machine. `time_limit` is only a
/// safety net, set well above what the work budget takes, for searches whose steps are
/// far slower than usual.
#[derive(Clone, Debug)]
pub struct OptimizeOptions {
    pub iter_limit: usize,
    /// Checked between rulesets: the graph may overshoot by one ruleset step.
    pub node_limit: usize,
    /// The safety net: checked between rulesets, and before each iteration against the
    /// time the next iteration and the phases after it are predicted to take (the last
    /// iteration's time, scaled by how it grew the graph), so that one long step does not
    /// overrun it far.
    pub time_limit: Duration,
    pub extractor: Extractor,
    /// A user's rule file, loaded after the shipped rules (rules may use ruleset `user`);
    /// checked when it was read ([`RulesFile`]: no `run`, `push` or `pop`, includes
    /// bounded).
    pub extra_rules: Option<RulesFile>,
    /// Matches fired per sampled rule per iteration.
    pub sample_limit: usize,
    /// Only the rules that hold under the engine's cell semantics with NaN and ±Inf
    /// (`0 * y = 0` for every `y`, IEEE otherwise): translation to relations, fusion and
    /// raising. R_EQ, AC, user rules and constant folding are left out: distributing or
    /// reassociating turns `Inf * (1 - 1)` (0) into `Inf - Inf` (NaN), and folding
    /// `0 * s` for a scalar `s` forgets that `s` may be NaN. A fused operator is its
    /// meaning exactly (its kernel evaluates the meaning on operands with NaN or Inf), so
    /// what this search can choose is which operators run fused, by price: a root that
    /// may meet NaN or Inf still gets `wcemm`, `sddmm` or `mmchain`.
    pub exact: bool,
}

impl Default for OptimizeOptions {
    fn default() -> Self {
        OptimizeOptions {
            iter_limit: 8,
            node_limit: 2_000,
            time_limit: DEFAULT_TIME_LIMIT,
            extractor: Extractor::Greedy,
            extra_rules: None,
            sample_limit: 30,
            exact: false,
        }
    }
}

/// The default safety net: the default work budget takes 10-120 ms on an idle machine
/// (docs/BENCHMARKS.md), and a machine loaded several times over stretches that by as much.
pub const DEFAULT_TIME_LIMIT: Duration = Duration::from_secs(5);

/// What saturation did.
#[derive(Clone, Debug)]
pub struct SaturationReport {
    pub iterations: usize,
    pub enodes: usize,
    pub eclasses: usize,
    pub stop: StopReason,
    /// Saturation time (to the snapshot; extraction is timed in `extraction`).
    pub time: Duration,
    /// What the extractor did, including whether the ILP fell back to greedy; `None`
    /// when no plan could be extracted (the input is returned).
    pub extraction: Option<ExtractionReport>,
}

/// The result of [`optimize`].
#[derive(Clone, Debug)]
pub struct Optimized {
    /// May contain fused operators as [`LaExpr::Func`]: `wsloss(X, U, V)` =
    /// `sum((X - U %*% t(V))^2)`; `sddmm_sum(X, U, V)` = `sum(X * (U %*% t(V)))`;
    /// `mmchain(X, v)` = `t(X) %*% (X %*% v)`; `mmchain(X, v, w)` =
    /// `t(X) %*% (w * (X %*% v))`; `sprop(P)` = `P * (1 - P)`. `sum((X + U %*% t(V))^2)`
    /// comes out as `wsloss_plus(X, U, V)`.
    pub expr: LaExpr,
    pub cost_before: f64,
    pub cost_after: f64,
    pub report: SaturationReport,
}

/// Why [`optimize`] failed. Limits are not errors: they stop saturation early and the
/// best plan found so far is returned.
#[derive(Debug, thiserror::Error)]
pub enum OptError {
    #[error("{0}")]
    Shape(#[from] ShapeError),
    #[error(transparent)]
    RulesFile(#[from] RulesFileError),
    #[error("rules: {0}")]
    Rules(String),
    /// A rule equated classes whose invariants differ (named).
    #[error("unsound rule: it merged classes with different {0}")]
    Unsound(String),
    #[error("egglog: {0}")]
    Egglog(String),
    #[error("encoding: {0}")]
    Encode(String),
    #[error("extraction: {0}")]
    Extract(#[from] extract::ExtractError),
}

thread_local! {
    /// Prepared e-graphs (rules parsed) per user rule text and sample limit.
    static TEMPLATES: RefCell<Vec<Template>> = const { RefCell::new(Vec::new()) };
}

struct Template {
    extra: Option<RulesFile>,
    sample_limit: usize,
    egraph: EGraph,
}

/// A new e-graph holding the built-in rules ([`RULES`]) and the primitives they call.
pub fn egraph_with_rules() -> Result<EGraph, OptError> {
    let mut eg = EGraph::default();
    invariants::register(&mut eg);
    for (name, text) in RULES {
        eg.parse_and_run_program(Some(name.to_string()), text)
            .map_err(|e| OptError::Rules(format!("{name}: {e}")))?;
    }
    Ok(eg)
}

/// Whether this thread has loaded the built-in rules already (its first search pays
/// for parsing them; later ones copy the prepared e-graph).
pub fn rules_loaded() -> bool {
    TEMPLATES.with(|t| t.borrow().iter().any(|tp| tp.extra.is_none()))
}

/// A fresh e-graph with the rules loaded, and its scheduler.
struct Prepared {
    eg: EGraph,
    scheduler: SchedulerId,
    /// The scheduler's match budget for the next step.
    budget: sched::MatchBudget,
    /// Whether an input is all zeros (see [`ZERO_CAP_FRACTION`]).
    zero_input: bool,
}

/// A fresh e-graph with the rules loaded, and its sampling scheduler.
fn prepared(extra: &Option<RulesFile>, sample_limit: usize) -> Result<Prepared, OptError> {
    invariants::begin();
    let with_scheduler = |mut eg: EGraph| {
        let budget = sched::MatchBudget::default();
        let scheduler = eg.add_scheduler(Box::new(sched::Sampler::new(
            sample_limit,
            SAMPLED,
            budget.clone(),
        )));
        Prepared {
            eg,
            scheduler,
            budget,
            zero_input: false,
        }
    };
    TEMPLATES.with(|t| {
        let mut t = t.borrow_mut();
        if let Some(tp) = t
            .iter()
            .find(|tp| tp.extra == *extra && tp.sample_limit == sample_limit)
        {
            return Ok(with_scheduler(tp.egraph.clone()));
        }
        let mut eg = egraph_with_rules()?;
        if let Some(rules) = extra {
            let commands = rules.commands(&mut eg.parser)?;
            eg.run_program(commands)
                .map_err(|e| OptError::Rules(format!("{}: {e}", rules.name())))?;
        }
        if t.len() >= 4 {
            t.remove(0);
        }
        t.push(Template {
            extra: extra.clone(),
            sample_limit,
            egraph: eg.clone(),
        });
        // A scheduler is added to each copy, never to the template: egglog's per-rule
        // scheduler state holds pending matches behind an `Arc` that clones share.
        Ok(with_scheduler(eg))
    })
}

/// Optimizes `e` under `env`: saturate, extract, and return the cheaper of the result
/// and the input (by [`crate::cost`]), with what saturation did.
pub fn optimize(e: &LaExpr, env: &ShapeEnv, opts: &OptimizeOptions) -> Result<Optimized, OptError> {
    let mut all = optimize_all(std::slice::from_ref(e), env, opts)?;
    Ok(all.remove(0))
}

/// Optimizes several expressions over the same inputs (the roots of one block) in one
/// e-graph: one saturation, and one joint extraction in which a class the roots share is
/// paid once (exactly so with the ILP extractor; greedy picks each root's cheapest tree).
/// The plans are used when together they cost no more than the inputs; otherwise every
/// input is returned. The report is the shared one.
pub fn optimize_all(
    es: &[LaExpr],
    env: &ShapeEnv,
    opts: &OptimizeOptions,
) -> Result<Vec<Optimized>, OptError> {
    let start = Instant::now();
    let result = optimize_all_unlogged(es, env, opts);
    match &result {
        Ok(plans) if !plans.is_empty() => {
            let report = &plans[0].report;
            let before: f64 = plans.iter().map(|p| p.cost_before).sum();
            let after: f64 = plans.iter().map(|p| p.cost_after).sum();
            log::info!(
                "optimized {} root(s) in {:?}: {} iterations, {} e-nodes, stopped by {}; cost {before:.3e} -> {after:.3e}",
                plans.len(),
                start.elapsed(),
                report.iterations,
                report.enodes,
                report.stop
            );
        }
        Ok(_) => {}
        Err(e) => log::info!("optimization failed after {:?}: {e}", start.elapsed()),
    }
    result
}

/// [`optimize_all`] without its summary log line. Identities outside the rewrite rules'
/// language (aggregates over `cbind`/`rbind` blocks and `rev`, indexing of products,
/// shifts inside `max`: [`crate::canon::rewrite_for_plans`]) give a second input, planned
/// too; the cheaper plans win, so a rule is used where it pays. They hold for real
/// numbers only (`rowMaxs(A + c)` is NaN where `A` holds `-Inf` and `c` is `Inf`, and
/// `rowMaxs(A) + c` is not), so an exact search ([`OptimizeOptions::exact`]) goes without.
fn optimize_all_unlogged(
    es: &[LaExpr],
    env: &ShapeEnv,
    opts: &OptimizeOptions,
) -> Result<Vec<Optimized>, OptError> {
    let plans = optimize_searched(es, env, opts)?;
    if opts.exact {
        return Ok(plans);
    }
    let resolved: Vec<LaExpr> = match es.iter().map(|e| e.resolve(env)).collect() {
        Ok(r) => r,
        Err(_) => return Ok(plans),
    };
    let rewritten: Vec<LaExpr> = resolved
        .iter()
        .map(|e| crate::canon::rewrite_for_plans(e, env))
        .collect();
    if rewritten == resolved {
        return Ok(plans);
    }
    let Ok(mut alternative) = optimize_searched(&rewritten, env, opts) else {
        return Ok(plans);
    };
    let total = |ps: &[Optimized]| ps.iter().map(|p| p.cost_after).sum::<f64>();
    if total(&alternative) < total(&plans) {
        log::debug!("rewritten input planned cheaper: {}", rewritten[0]);
        for (alt, plan) in alternative.iter_mut().zip(&plans) {
            alt.cost_before = plan.cost_before;
        }
        return Ok(alternative);
    }
    Ok(plans)
}

/// Saturation, extraction and the checks of one set of roots.
fn optimize_searched(
    es: &[LaExpr],
    env: &ShapeEnv,
    opts: &OptimizeOptions,
) -> Result<Vec<Optimized>, OptError> {
    let start = Instant::now();
    if es.is_empty() {
        return Ok(Vec::new());
    }
    let resolved = es
        .iter()
        .map(|e| e.resolve(env))
        .collect::<Result<Vec<_>, _>>()?;
    let es = resolved.as_slice();
    let shapes = es
        .iter()
        .map(|e| crate::cost::shape_of(env, e))
        .collect::<Result<Vec<_>, _>>()?;
    let costs_before = es
        .iter()
        .map(|e| la_cost(e, env))
        .collect::<Result<Vec<_>, _>>()?;

    let mut sub = |arg: &LaExpr, env: &ShapeEnv| -> Result<LaExpr, OptError> {
        if matches!(arg, LaExpr::Var(_) | LaExpr::Const(_)) {
            return Ok(arg.clone());
        }
        Ok(optimize(arg, env, opts)?.expr)
    };
    let encoded = encode::encode_all(es, env, &mut sub)?;

    // The roots share one e-graph and so one set of AC matches per rule: each root gets
    // the sampling budget it would have alone, or one root's rewrites crowd out another's.
    let sample_limit = opts.sample_limit.saturating_mul(es.len());
    let mut prepared = prepared(&opts.extra_rules, sample_limit)?;
    prepared.zero_input = env.nnz.values().any(|&n| n == 0.0);
    log::debug!("prepared after {:?}", start.elapsed());
    let slots = insert(&mut prepared.eg, &encoded.ops)?;
    log::debug!("inserted after {:?}", start.elapsed());
    let (iterations, stop) = saturate(&mut prepared, opts, start)?;
    let mut eg = prepared.eg;

    // One root is found by its `root-mark`; several by looking up their binds.
    let root_classes = if es.len() == 1 {
        Vec::new()
    } else {
        let binds: Vec<Vec<egglog::Value>> = encoded
            .root_binds
            .iter()
            .map(|b| b.iter().map(|&slot| slots[slot]).collect())
            .collect();
        eg.update(|fs| {
            use egglog::Read;
            binds
                .into_iter()
                .map(|b| {
                    fs.eclass_of("Bind", egglog::RawValues(b))?
                        .ok_or_else(|| egglog::Error::BackendError("a root bind is gone".into()))
                })
                .collect::<Result<Vec<_>, _>>()
        })
        .map_err(extract::ExtractError::from)?
    };
    // A user's rules may extend fusion and the way back (rulesets `fuse`, `raise`),
    // which only the rules themselves run; without them the snapshot is fused and raised
    // directly, the same terms. The rules state the way back: should a plan raised
    // directly have canonical forms that differ from its input's, the graph is raised
    // again by the rules (`fusing_and_raising_the_snapshot_agree_with_the_rules` holds
    // the two paths to the same plans, and `every_raised_class_holds_one_matrix` checks
    // the classes raising builds; a case where they part is a bug of `raise.rs`).
    let mut by_rules = opts.extra_rules.is_some();
    loop {
        if by_rules {
            fuse_and_raise_by_rules(&mut eg)?;
        }
        let mut snapshot = extract::Snapshot::read_roots(&eg, &encoded.tables, &root_classes)?;
        if !by_rules {
            snapshot.fuse();
            snapshot.raise();
        }
        log::debug!(
            "fused and raised: {} LA classes, {:?}",
            snapshot.m_classes.len(),
            start.elapsed()
        );
        let mut report = SaturationReport {
            iterations,
            enodes: snapshot.enode_count(),
            eclasses: snapshot.class_count(),
            stop,
            time: start.elapsed(),
            extraction: None,
        };
        let fallback = |report: &SaturationReport| -> Vec<Optimized> {
            es.iter()
                .zip(&costs_before)
                .map(|(e, &cost)| Optimized {
                    expr: e.clone(),
                    cost_before: cost,
                    cost_after: cost,
                    report: report.clone(),
                })
                .collect()
        };
        let mut plans = match extract::extract(&snapshot, opts.extractor) {
            Ok(x) => {
                if let Some(why) = &x.report.fell_back {
                    log::debug!("ILP extraction fell back to greedy: {why}");
                }
                report.extraction = Some(x.report);
                x.exprs
            }
            Err(err) => {
                log::debug!("extraction failed: {err}");
                return Ok(fallback(&report));
            }
        };
        // Each plan must type-check with its input's shape (a plan that does not is replaced
        // by its input: an extraction gap), and together they must not cost more than the
        // inputs; anything else means the inputs are the safe answer.
        let tables = &encoded.tables;
        for (k, plan) in plans.iter_mut().enumerate() {
            log::debug!("plan {k}: {plan}");
            match crate::cost::shape_of(&tables.env, plan) {
                Ok(s) if s == shapes[k] => {}
                other => {
                    log::debug!("plan has shape {other:?}, input {:?}", shapes[k]);
                    *plan = encoded.inputs[k].clone();
                }
            }
        }
        let plan_cost = match crate::cost::la_cost_all(&plans, &tables.env) {
            Ok(c) => c,
            Err(_) => return Ok(fallback(&report)),
        };
        let input_cost = crate::cost::la_cost_all(&encoded.inputs, &tables.env)
            .unwrap_or(costs_before.iter().sum());
        if plan_cost > input_cost {
            log::debug!("plans cost {plan_cost:e}, inputs {input_cost:e}");
            return Ok(fallback(&report));
        }
        let optimized: Vec<Optimized> = plans
            .iter()
            .zip(&costs_before)
            .map(|(plan, &cost_before)| {
                let expr = substitute_leaves(plan, tables);
                let cost_after = la_cost(&expr, env).unwrap_or(cost_before);
                Optimized {
                    expr,
                    cost_before,
                    cost_after,
                    report: report.clone(),
                }
            })
            .collect();
        if by_rules
            || optimized
                .iter()
                .zip(es)
                .all(|(o, e)| !differs(e, &o.expr, env))
        {
            return Ok(optimized);
        }
        log::debug!("a plan raised from the snapshot differs from its input: raising by the rules");
        by_rules = true;
    }
}

/// Whether `plan` provably differs from `input`: their canonical forms differ. A plan
/// that is its input is not checked (canonical forms of constant fills are computed by
/// evaluating them, which a `matrix(1, 1e5, 1e5)` must not be).
fn differs(input: &LaExpr, plan: &LaExpr, env: &ShapeEnv) -> bool {
    let plan = crate::fused::expand_fused(plan);
    plan != *input
        && matches!(
            crate::canon::provably_equivalent(input, &plan, env),
            Ok(false)
        )
}

/// Whether saturating `lhs` and `rhs` together puts them in one e-class: the rules
/// derive `lhs = rhs` within `opts`' limits, whatever the cost model thinks of either.
/// Both are saturated as the one expression `lhs + rhs`, whose two operands are then
/// looked up by their root binds (LA classes are never merged by rules, so the operands
/// stay apart unless they are the same term).
pub fn contains(
    lhs: &LaExpr,
    rhs: &LaExpr,
    env: &ShapeEnv,
    opts: &OptimizeOptions,
) -> Result<bool, OptError> {
    let start = Instant::now();
    let (lhs, rhs) = (&lhs.resolve(env)?, &rhs.resolve(env)?);
    let (sl, sr) = (
        crate::cost::shape_of(env, lhs)?,
        crate::cost::shape_of(env, rhs)?,
    );
    if sl != sr {
        return Ok(false);
    }
    let both = LaExpr::Add(Box::new(lhs.clone()), Box::new(rhs.clone()));
    let mut sub = |arg: &LaExpr, _: &ShapeEnv| -> Result<LaExpr, OptError> { Ok(arg.clone()) };
    let encoded = encode::encode(&both, env, &mut sub)?;
    let mut prepared = prepared(&opts.extra_rules, opts.sample_limit)?;
    insert(&mut prepared.eg, &encoded.ops)?;
    saturate(&mut prepared, opts, start)?;
    let snap = extract::Snapshot::read(&prepared.eg, &encoded.tables)?;
    // The root bind `Bind i j (LAdd l r)`; then the classes of `Bind i j l`, `Bind i j r`.
    let binds = |m: usize| -> Vec<(usize, extract::RNode)> {
        snap.r_classes
            .iter()
            .enumerate()
            .flat_map(|(c, rc)| rc.nodes.iter().map(move |n| (c, n.clone())))
            .filter(|(_, n)| matches!(n, extract::RNode::Bind(_, _, x) if *x == m))
            .collect()
    };
    for node in &snap.r_classes[snap.root].nodes {
        let extract::RNode::Bind(i, j, m) = node else {
            continue;
        };
        for mn in &snap.m_classes[*m].nodes {
            let extract::MNode::Add(l, r) = mn else {
                continue;
            };
            let class_of = |x: usize| {
                binds(x).into_iter().find_map(|(c, n)| match n {
                    extract::RNode::Bind(a, b, _) if a == *i && b == *j => Some(c),
                    _ => None,
                })
            };
            if let (Some(a), Some(b)) = (class_of(*l), class_of(*r)) {
                return Ok(a == b);
            }
        }
    }
    Err(extract::ExtractError::BindsNotFound.into())
}

/// What an iteration, then fusion and raising on the graph it leaves, take together, in
/// units of the iteration alone: fusion matches the whole graph once (on a 40-factor chain
/// of 122,695 e-nodes 2.6 times the iteration that grew it), raising adds a little.
const PHASES_AFTER_A_STEP: f64 = 4.0;

/// A step should leave at most `OVERSHOOT` times the node limit: each step's matches are
/// capped by the room left ([`sched::MatchBudget`]), so one explosive step cannot cost
/// seconds of analysis, fusion and extraction (distributing over the class all-zero
/// relations of one schema share has grown a 315-node graph to 9921 in one step, MLR's
/// first iteration where the weights start at zero).
const OVERSHOOT: usize = 2;

/// E-nodes one match of a shipped rewrite or folding rule is counted as adding, when a
/// step's matches are capped by the room left: at most four (the largest right-hand
/// side, `Agg i' (Join a (Rename i i' b))` with its fresh index), but most matches find
/// some of their e-nodes already in the graph. Counting four per match deferred so many
/// matches of budgeted searches (node limits of a few hundred) that they missed the
/// rewrites the full search finds (`sum(colSums((U %*% t(V) - X) %*% V))`); two keeps
/// them, and every step measured still ends within twice the limit.
const ENODES_PER_MATCH: usize = 2;

/// R_EQ's matches are capped once the graph has `node_limit / CAP_FRACTION` e-nodes;
/// below that, one step has not been seen to grow past the limit, and the scheduler's
/// copy of each rule (compiled per e-graph, 4-8 ms for R_EQ and folding) would cost a
/// small search more than the search.
const CAP_FRACTION: usize = 8;

/// ... except with an all-zero input: all-zero relations over the same indices are one
/// class, which gathers many e-nodes, and distributing over it has grown a 315-node graph
/// to 9921 in one step (MLR's first iteration, where the weights start at zero); the cap
/// then holds from `node_limit / ZERO_CAP_FRACTION` e-nodes.
const ZERO_CAP_FRACTION: usize = 64;

/// The same for a user's rules, whose right-hand sides the driver does not read: a
/// generous bound, so the budget still holds the graph near the limit.
const ENODES_PER_USER_MATCH: usize = 16;

/// Runs the rulesets until saturation or a limit.
///
/// Translation (`lower`) and constant folding terminate on their own, so they run to a
/// fixpoint first (capped, as a guard against a folding cycle). The iterations then run
/// under the [`Runner`]: each steps the R_EQ and sampled AC rulesets (and user rules)
/// once, folding after ([`LaSearch`]). Fusion rules produce nothing any other rule
/// matches, so they run once, on the final graph, whatever stopped the loop: that finds
/// every fusion opportunity at the cost of one (large) match; it runs, with the way back
/// to LA, on the snapshot the extractor reads ([`extract::Snapshot::fuse`],
/// [`extract::Snapshot::raise`]).
fn saturate(
    prepared: &mut Prepared,
    opts: &OptimizeOptions,
    start: Instant,
) -> Result<(usize, StopReason), OptError> {
    let searched = search(prepared, opts, start)?;
    // Invariants must be complete for extraction whatever stopped the search.
    run_analysis(&mut prepared.eg)?;
    log::debug!(
        "searched: {} e-nodes, {:?}",
        enode_count(&prepared.eg),
        start.elapsed()
    );
    Ok(searched)
}

/// Translation, then the rewriting iterations: [`saturate`] before fusion and raising.
/// Returns the iterations run and what stopped them.
fn search(
    prepared: &mut Prepared,
    opts: &OptimizeOptions,
    start: Instant,
) -> Result<(usize, StopReason), OptError> {
    let eg = &mut prepared.eg;
    let mut translation_blew_up = false;
    let translate = if opts.exact {
        "translate-exact"
    } else {
        "translate"
    };
    for _ in 0..64 {
        if !checked(eg.step_rules(translate))?.updated {
            break;
        }
        // Translation and folding terminate on sound inputs, but a folding rule that
        // follows a cycle would not: stop at the node limit rather than hang.
        if enode_count(eg) > opts.node_limit.saturating_mul(OVERSHOOT) {
            translation_blew_up = true;
            break;
        }
    }
    log::debug!(
        "translated: {} e-nodes, {:?}",
        enode_count(eg),
        start.elapsed()
    );
    let mut runner = Runner::new()
        .with_iter_limit(opts.iter_limit)
        .with_node_limit(opts.node_limit)
        .with_time_limit(opts.time_limit)
        .with_start(start)
        .with_overshoot(OVERSHOOT as f64)
        .with_steps_after(PHASES_AFTER_A_STEP);
    let stop = if translation_blew_up {
        StopReason::NodeLimit
    } else if opts.exact {
        StopReason::Saturated
    } else {
        let fraction = if prepared.zero_input {
            ZERO_CAP_FRACTION
        } else {
            CAP_FRACTION
        };
        let mut search = LaSearch {
            eg: &mut *eg,
            scheduler: prepared.scheduler,
            budget: &prepared.budget,
            cap_from: opts.node_limit / fraction,
            opts,
            start,
        };
        let stop = runner.run(&mut search)?;
        if let Some(why) = runner.stop_detail() {
            log::debug!("{why}");
        }
        stop
    };
    Ok((runner.iterations().len(), stop))
}

/// One iteration of the LA search, for the [`Runner`]: R_EQ (with folding), then the
/// sampled AC and user rulesets, each stepped once (under a match budget, the room left
/// under `OVERSHOOT` times the node limit, once the graph is big enough for a step to
/// multiply it), then the analyses. It stops at the node limit and at the time limit,
/// checked between rulesets.
struct LaSearch<'a> {
    eg: &'a mut EGraph,
    scheduler: SchedulerId,
    budget: &'a sched::MatchBudget,
    /// The size from which R_EQ's matches are capped too.
    cap_from: usize,
    opts: &'a OptimizeOptions,
    start: Instant,
}

impl Search for LaSearch<'_> {
    type Error = OptError;

    fn size(&self) -> usize {
        enode_count(self.eg)
    }

    fn step(&mut self, ctx: &StepContext) -> Result<StepOutcome, OptError> {
        let (eg, opts) = (&mut *self.eg, self.opts);
        let mut outcome = StepOutcome {
            can_stop: true,
            ..StepOutcome::default()
        };
        for ruleset in ["rewrite", "ac", "user"] {
            if ruleset == "user" && opts.extra_rules.is_none() {
                continue;
            }
            // One step can multiply the graph (distributivity over a class that many
            // terms were merged into, e.g. all-zero relations), so once the graph is big
            // enough for that to matter each step fires only as many matches as the room
            // left allows; egglog keeps the rest for later. Below that, R_EQ is stepped
            // without the scheduler, whose scheduled copy of each rule costs a small
            // search more than the search itself.
            let size = enode_count(eg);
            let report = if ruleset == "rewrite" && size <= self.cap_from {
                checked(eg.step_rules(ruleset))?
            } else {
                let room = ctx
                    .node_limit
                    .saturating_mul(OVERSHOOT)
                    .saturating_sub(size);
                let per_match = if ruleset == "user" {
                    ENODES_PER_USER_MATCH
                } else {
                    ENODES_PER_MATCH
                };
                self.budget.set(room / per_match);
                checked(eg.step_rules_with_scheduler(self.scheduler, ruleset))?
            };
            outcome.updated |= report.updated;
            outcome.can_stop &= report.can_stop;
            outcome.matches += report.num_matches_per_rule.values().sum::<usize>();
            if log::log_enabled!(log::Level::Trace) {
                let mut m: Vec<_> = report
                    .num_matches_per_rule
                    .iter()
                    .filter(|(_, n)| **n > 0)
                    .collect();
                m.sort_by_key(|(_, n)| std::cmp::Reverse(**n));
                m.truncate(3);
                log::trace!(
                    "{ruleset}: {:?}, most matched rules {:?}",
                    report
                        .search_and_apply_time_per_ruleset
                        .values()
                        .sum::<Duration>(),
                    m
                );
            }
            if ctx.clock.expired() {
                outcome.stopped = Some(StopReason::TimeLimit);
                break;
            }
            if enode_count(eg) > ctx.node_limit {
                outcome.stopped = Some(StopReason::NodeLimit);
                break;
            }
        }
        // Once per iteration: the AC and user rules read no invariants, and the next
        // iteration's R_EQ guards see the new e-nodes' schemas and sparsity.
        let t0 = Instant::now();
        outcome.updated |= run_analysis(eg)?;
        log::trace!("analysis: {:?}", t0.elapsed());
        log::debug!(
            "iteration {}: {} e-nodes, {:?}",
            ctx.iteration,
            enode_count(eg),
            self.start.elapsed()
        );
        Ok(outcome)
    }
}

/// Steps of the raising phase at most. Raising only builds LA terms for demanded
/// (class, orientation) pairs, so it terminates on its own after about as many steps
/// as the plan is deep; the cap is a guard.
const RAISE_STEPS: usize = 64;

/// Fusion and the way back as the rules state them, in egglog: one step of the fusion
/// rules (`fuse.egg`) and the invariants of what they add, then the raising rules
/// (`raise.egg`, and each fused operator's in `fuse.egg`) to a fixpoint and the analyses
/// that give the new LA classes their shapes and sparsity. Run when a user's rules may
/// add to them; otherwise the snapshot is fused and raised instead
/// ([`extract::Snapshot::fuse`], [`extract::Snapshot::raise`]: the same terms without
/// an egglog step per level of the plan), and a test holds the two to the same plans.
fn fuse_and_raise_by_rules(eg: &mut EGraph) -> Result<usize, OptError> {
    checked(eg.step_rules("fuse"))?;
    run_analysis(eg)?;
    let mut steps = 0;
    while steps < RAISE_STEPS {
        steps += 1;
        if !checked(eg.step_rules("raise"))?.updated {
            break;
        }
    }
    run_analysis(eg)?;
    if log::log_enabled!(log::Level::Trace) {
        let sizes: Vec<_> = extract::constructors()
            .map(|n| (n, eg.get_size(n)))
            .filter(|(_, k)| *k > 0)
            .collect();
        log::trace!("raised tables: {sizes:?}");
    }
    Ok(steps)
}

/// Applies the encoder's insertions; returns the e-class of each slot.
fn insert(eg: &mut EGraph, ops: &[encode::Op]) -> Result<Vec<egglog::Value>, OptError> {
    use egglog::{Value, Write};
    use encode::{Arg, Op};
    eg.update(|mut fs| {
        let mut slots: Vec<Value> = Vec::new();
        let value =
            |a: &Arg, fs: &egglog::FullState, slots: &[Value]| -> Result<Value, egglog::Error> {
                use egglog::Core;
                Ok(match a {
                    Arg::Slot(n) => *slots
                        .get(*n)
                        .ok_or_else(|| egglog::Error::BackendError("bad slot".into()))?,
                    Arg::I64(x) => fs.base_to_value(*x),
                    Arg::F64(x) => fs.base_to_value(egglog::sort::F::new((*x).into())),
                    Arg::Str(x) => fs.base_to_value(egglog::sort::S::new(x.clone())),
                })
            };
        for op in ops {
            match op {
                Op::Add(name, args) => {
                    let vals = args
                        .iter()
                        .map(|a| value(a, &fs, &slots))
                        .collect::<Result<Vec<_>, _>>()?;
                    let v = fs.add(name, egglog::RawValues(vals))?;
                    slots.push(v);
                }
                Op::Set(name, key, val) => {
                    let keys = key
                        .iter()
                        .map(|a| value(a, &fs, &slots))
                        .collect::<Result<Vec<_>, _>>()?;
                    let v = value(val, &fs, &slots)?;
                    fs.set(name, egglog::RawValues(keys), v)?;
                }
                Op::Union(a, b) => {
                    let slot = |n: &usize| {
                        slots
                            .get(*n)
                            .copied()
                            .ok_or_else(|| egglog::Error::BackendError("bad slot".into()))
                    };
                    fs.union(slot(a)?, slot(b)?)?;
                }
            }
        }
        Ok(slots)
    })
    .map_err(|e| OptError::Encode(e.to_string()))
}

/// Brings schemas and sparsity up to date. Returns whether anything changed.
fn run_analysis(eg: &mut EGraph) -> Result<bool, OptError> {
    let mut any = false;
    for _ in 0..64 {
        let report = checked(eg.step_rules("analysis"))?;
        if !report.updated {
            return Ok(any);
        }
        any = true;
    }
    Ok(any)
}

/// What a step of the rules (`step_rules`, `step_rules_with_scheduler`) gave, failing
/// when egglog failed or when the step broke a class invariant ([`invariants`]).
fn checked<T>(step: Result<T, egglog::Error>) -> Result<T, OptError> {
    let report = step.map_err(|e| OptError::Egglog(e.to_string()))?;
    invariants::check()?;
    Ok(report)
}

/// Number of e-nodes in the relational and LA tables (analysis rows not counted).
fn enode_count(eg: &EGraph) -> usize {
    extract::constructors().map(|name| eg.get_size(name)).sum()
}

/// A root's plan from [`extract_as_written`], with its predicted cost (ns per run).
#[derive(Clone, Debug)]
pub struct WrittenPlan {
    pub expr: LaExpr,
    pub cost_before: f64,
    pub cost_after: f64,
}

/// The roots as written, extracted without any rule: the plan extraction's own
/// candidates give (masked evaluation of a sparse `X * E`, products reading a transposed
/// operand in place), one per root; `None` for a root it does not make cheaper. For
/// roots too cheap for any search: it costs a pass over them, no e-graph.
pub fn extract_as_written(
    roots: &[LaExpr],
    env: &ShapeEnv,
) -> Result<Vec<Option<WrittenPlan>>, OptError> {
    let mut tables = Tables {
        env: env.clone(),
        ..Tables::default()
    };
    let hidden = roots
        .iter()
        .map(|e| encode::hide_opaque(e, env, &mut tables, &mut |a, _| Ok(a.clone())))
        .collect::<Result<Vec<_>, _>>()?;
    let Some(plans) = extract::extract_as_written(&hidden, &mut tables)? else {
        return Ok(vec![None; roots.len()]);
    };
    Ok(roots
        .iter()
        .zip(plans)
        .map(|(e, plan)| {
            let expr = substitute_leaves(&plan, &tables);
            let cost_before = la_cost(e, env).ok()?;
            let cost_after = la_cost(&expr, env).ok()?;
            (cost_after < cost_before * 0.99).then_some(WrittenPlan {
                expr,
                cost_before,
                cost_after,
            })
        })
        .collect())
}

/// Puts the opaque calls back in place of their placeholders.
fn substitute_leaves(e: &LaExpr, tables: &Tables) -> LaExpr {
    e.map(&|x| match x {
        LaExpr::Var(v) => tables
            .placeholders
            .iter()
            .position(|p| p == v)
            .map(|n| tables.leaf(n).cloned().unwrap_or_else(|| x.clone())),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::dag::{dag_cost, sccs};
    use crate::extract::ilp;

    /// `text` (inputs of `shapes`, non-zeros `nnz`) encoded and saturated with the default
    /// options; neither fused nor raised yet.
    fn saturated(text: &str, shapes: &[&str], nnz: &[(&str, f64)]) -> (Prepared, encode::Encoded) {
        let mut env = ShapeEnv::with_shapes(shapes).unwrap();
        for (n, z) in nnz {
            env.set_nnz(n, *z);
        }
        let e = LaExpr::parse(text).unwrap().resolve(&env).unwrap();
        let opts = OptimizeOptions::default();
        let mut sub = |a: &LaExpr, _: &ShapeEnv| -> Result<LaExpr, OptError> { Ok(a.clone()) };
        let encoded = encode::encode(&e, &env, &mut sub).unwrap();
        let mut prepared = prepared(&None, opts.sample_limit).unwrap();
        insert(&mut prepared.eg, &encoded.ops).unwrap();
        saturate(&mut prepared, &opts, Instant::now()).unwrap();
        (prepared, encoded)
    }

    /// A saturated e-graph of `text` as the extractors see it.
    fn problem(text: &str, shapes: &[&str], nnz: &[(&str, f64)]) -> extract::dag::CandGraph {
        let (prepared, encoded) = saturated(text, shapes, nnz);
        let mut snap = extract::Snapshot::read(&prepared.eg, &encoded.tables).unwrap();
        snap.fuse();
        snap.raise();
        extract::problem(&snap)
    }

    /// No step grows the graph past `OVERSHOOT` times the node limit, however many
    /// matches it has: an all-zero input puts every zero relation of a schema in one
    /// class, and distributing over it multiplies this graph up to 35-fold in one step
    /// (25,639 to 886,039 e-nodes; without the budget the step from 6,591 to 25,639
    /// passes twice the limit of 10,000). The search is also the same every time.
    #[test]
    fn the_match_budget_holds_every_step_near_the_node_limit() {
        let mut env = ShapeEnv::with_shapes(&["X=1000x50", "B=50x5", "Y=1000x5"]).unwrap();
        env.set_nnz("B", 0.0);
        let e = LaExpr::parse("(X %*% B + X %*% B + Y) * (X %*% B - Y)").unwrap();
        let mut sub = |a: &LaExpr, _: &ShapeEnv| -> Result<LaExpr, OptError> { Ok(a.clone()) };
        let encoded = encode::encode(&e, &env, &mut sub).unwrap();
        for node_limit in [400, 10_000] {
            let opts = OptimizeOptions {
                node_limit,
                iter_limit: 100,
                ..OptimizeOptions::default()
            };
            let mut sizes = Vec::new();
            for _ in 0..2 {
                let mut prepared = prepared(&None, opts.sample_limit).unwrap();
                insert(&mut prepared.eg, &encoded.ops).unwrap();
                let (_, stop) = search(&mut prepared, &opts, Instant::now()).unwrap();
                assert_eq!(stop, StopReason::NodeLimit, "limit {node_limit}");
                sizes.push(enode_count(&prepared.eg));
            }
            assert!(
                sizes[0] <= OVERSHOOT * node_limit,
                "limit {node_limit}: {sizes:?}"
            );
            assert_eq!(sizes[0], sizes[1], "limit {node_limit}");
        }
    }

    /// Fusing and raising the snapshot derive what the fusion and raising rules derive
    /// in egglog (the same fused operators, and plans of the same cost): on
    /// the paper's expressions and others (vectors, scalars, fused operators, several
    /// roots' worth of operators), both give plans of the same predicted cost (between
    /// plans of equal cost, the order of a class's e-nodes may choose differently).
    #[test]
    fn fusing_and_raising_the_snapshot_agree_with_the_rules() {
        // Shapes: a sparse X (m x n) with factors U (m x k), V (n x k), or W (m x k), H (k x n).
        const UV: &[&str] = &["X=mxn", "U=mxk", "V=nxk"];
        const WH: &[&str] = &["X=mxn", "W=mxk", "H=kxn"];
        const SPARSE: &[(&str, f64)] = &[("X", 1e4)];
        type Case<'a> = (&'a str, &'a [&'a str], &'a [(&'a str, f64)]);
        let cases: &[Case] = &[
            ("sum((X - U %*% t(V))^2)", UV, SPARSE),
            ("sum((X + U %*% t(V))^2)", UV, SPARSE),
            ("sum(X * (U %*% t(V)))", UV, SPARSE),
            ("(U %*% t(V) - X) %*% V", UV, SPARSE),
            ("X * (U %*% t(V)) + t(V %*% t(U))", UV, SPARSE),
            ("(X * (U %*% t(V))) %*% V", UV, SPARSE),
            ("sum(W %*% H)", &["W=mxk", "H=kxn"], &[]),
            ("sum(X * log(W %*% H))", WH, SPARSE),
            ("masked_div(X, W %*% H) %*% t(H)", WH, SPARSE),
            ("t(W) %*% masked_div(X, W %*% H)", WH, SPARSE),
            ("t(X) %*% (X %*% v)", &["X=mxn", "v=nx1"], SPARSE),
            (
                "t(X) %*% (w * (X %*% v))",
                &["X=mxn", "v=nx1", "w=mx1"],
                SPARSE,
            ),
            ("P * X - P * rowSums(P) * X", &["P=mxn", "X=mxn"], &[]),
            ("colSums(X * y)", &["X=mxn", "y=mx1"], SPARSE),
            ("(P * (1 - P)) %*% t(X)", &["P=mxn", "X=kxn"], &[]),
            ("rowSums(X %*% W)", &["X=mxn", "W=nxk"], SPARSE),
            ("t(X) %*% X + t(A %*% B)", &["X=mxn", "A=nxk", "B=kxn"], &[]),
            ("abs(A) * 2 + exp(t(B)) - A ^ 3", &["A=mxn", "B=nxm"], &[]),
            (
                "sum(A) * colSums(B) %*% t(colSums(B)) / nrow(A)",
                &["A=mxn", "B=mxn"],
                &[],
            ),
        ];
        let mut every_kind = std::collections::BTreeSet::new();
        for (text, shapes, nnz) in cases {
            let (mut prepared, encoded) = saturated(text, shapes, nnz);
            let mut rust = extract::Snapshot::read(&prepared.eg, &encoded.tables).unwrap();
            rust.fuse();
            let fused_kinds = |snap: &extract::Snapshot| {
                let mut kinds: Vec<String> = snap
                    .r_classes
                    .iter()
                    .flat_map(|c| &c.nodes)
                    .filter_map(|n| match n {
                        extract::RNode::Fused(kind, ..) => Some(format!("{kind:?}")),
                        extract::RNode::Sprop(_) => Some("Sprop".to_string()),
                        _ => None,
                    })
                    .collect();
                kinds.sort();
                kinds.dedup();
                kinds
            };
            let rust_kinds = fused_kinds(&rust);
            every_kind.extend(rust_kinds.iter().cloned());
            rust.raise();
            fuse_and_raise_by_rules(&mut prepared.eg).unwrap();
            let rules = extract::Snapshot::read(&prepared.eg, &encoded.tables).unwrap();
            assert_eq!(rust_kinds, fused_kinds(&rules), "{text}");
            let plan = |snap: &extract::Snapshot| {
                let x = extract::extract(snap, Extractor::Greedy).unwrap();
                assert!(x.report.table_fallback.is_none(), "{text}");
                let cost = crate::cost::la_cost(&x.expr, &encoded.tables.env).unwrap();
                (x.expr.to_string(), cost)
            };
            let (rust_plan, rust_cost) = plan(&rust);
            let (rules_plan, rules_cost) = plan(&rules);
            assert!(
                (rust_cost - rules_cost).abs() <= 1e-9 * rules_cost.abs(),
                "{text}: {rust_plan} ({rust_cost:e}) against the rules' {rules_plan} ({rules_cost:e})"
            );
        }
        // The cases reach every fused operator the rules know (the masked ones are
        // extraction's, not the rules').
        let expected: Vec<String> = crate::fused::CATALOGUE
            .iter()
            .filter(|op| op.constructors.is_some())
            .map(|op| format!("{:?}", op.kind))
            .collect();
        let missing: Vec<&String> = expected
            .iter()
            .filter(|k| !every_kind.contains(*k))
            .collect();
        assert!(missing.is_empty(), "no case fuses {missing:?}");
    }

    /// Without the raising phase no root has LA terms; extraction then falls back to
    /// reading LA off relational classes, says so, and still finds the fused plan.
    #[test]
    fn without_raising_the_table_reader_is_the_fallback() {
        for raise in [false, true] {
            let (prepared, encoded) = saturated(
                "sum((X - U %*% t(V))^2)",
                &["X=mxn", "U=mx10", "V=nx10"],
                &[("X", 1e4)],
            );
            let mut snap = extract::Snapshot::read(&prepared.eg, &encoded.tables).unwrap();
            snap.fuse();
            if raise {
                snap.raise();
            }
            let x = extract::extract(&snap, Extractor::Greedy).unwrap();
            assert_eq!(x.report.table_fallback.is_some(), !raise);
            assert_eq!(x.expr.to_string(), "wsloss(X, U, V)", "raise: {raise}");
        }
    }

    /// Real saturated e-graphs are cyclic (`x = x * 1`-like loops, AC rules), so Figure 11
    /// alone would admit self-supporting selections; the ILP's answer must still be a
    /// plan: acyclic, complete, and no dearer than greedy's, with or without the warm
    /// start.
    #[test]
    fn ilp_selections_on_cyclic_e_graphs_are_plans() {
        let g = problem(
            "sum((X - U %*% t(V))^2) + sum(X * (U %*% t(V)))",
            &["X=mxn", "U=mx10", "V=nx10"],
            &[("X", 1e4)],
        );
        let edges: Vec<Vec<usize>> = g
            .classes
            .iter()
            .map(|c| c.iter().flat_map(|n| n.children.clone()).collect())
            .collect();
        let comp = sccs(g.classes.len(), &edges);
        let mut size = vec![0; g.classes.len()];
        for &c in &comp {
            size[c] += 1;
        }
        let self_loop = g
            .classes
            .iter()
            .enumerate()
            .any(|(c, ns)| ns.iter().any(|n| n.children.contains(&c)));
        assert!(
            self_loop || size.iter().any(|&s| s > 1),
            "expected a cyclic e-graph"
        );
        let greedy = g.greedy_selection();
        let greedy_cost = dag_cost(&g, &greedy).unwrap();
        let warm = ilp::solve(&g, &greedy, Duration::from_secs(20)).unwrap();
        assert!(warm.cost <= greedy_cost);
        assert_eq!(dag_cost(&g, &warm.selection), Ok(warm.cost));
        let t = Instant::now();
        let cold = ilp::solve(&g, &vec![None; g.classes.len()], Duration::from_secs(1));
        // microlp enforces the deadline itself (checked every 1000 pivots).
        assert!(t.elapsed() < Duration::from_secs(3), "{:?}", t.elapsed());
        println!(
            "cold: {:?} in {:?}",
            cold.as_ref()
                .map(|s| (s.cost, s.binaries))
                .map_err(|f| &f.reason),
            t.elapsed()
        );
        // Without the greedy bound nothing is pruned; the instance may be too slow for
        // the budget, but whatever comes back must be a plan.
        if let Ok(cold) = cold {
            assert!(dag_cost(&g, &cold.selection).is_ok());
            assert!((cold.cost - warm.cost).abs() <= 1e-6 * warm.cost.max(1.0));
        }
    }

    /// Every LA e-node raising puts in a class denotes that class's matrix: its term
    /// (operands as their smallest terms) has the canonical form of the class's smallest
    /// term. On `(t(Y) %*% X)^2 %*% (2 * t(X) %*% X)^2` a relation whose free indices the
    /// snapshot did not know was raised as a scalar, and the congruence closure then
    /// merged `t(Y) %*% X` with `t(X) %*% Y`.
    #[test]
    fn every_raised_class_holds_one_matrix() {
        use extract::{MId, MNode};
        type Case<'a> = (&'a str, &'a [&'a str], &'a [(&'a str, f64)]);
        let cases: &[Case] = &[
            (
                "(t(Y) %*% X)^2 %*% (2 * t(X) %*% X)^2",
                &["X=1000x200", "Y=1000x200"],
                &[("X", 1e4)],
            ),
            ("t(Y) %*% X + t(X) %*% Y", &["X=mxn", "Y=mxn"], &[]),
            (
                "sum((X - U %*% t(V))^2)",
                &["X=mxn", "U=mxk", "V=nxk"],
                &[("X", 1e4)],
            ),
            ("(A %*% B) * t(B %*% A)", &["A=nxn", "B=nxn"], &[]),
        ];
        for (text, shapes, nnz) in cases {
            let (prepared, encoded) = saturated(text, shapes, nnz);
            let mut snap = extract::Snapshot::read(&prepared.eg, &encoded.tables).unwrap();
            snap.fuse();
            snap.raise();
            let term = |node: &MNode, terms: &[Option<LaExpr>]| -> Option<LaExpr> {
                let t = |c: &MId| terms[*c].clone().map(Box::new);
                Some(match node {
                    MNode::Var(v) => LaExpr::Var(snap.tables.placeholders.get(*v)?.clone()),
                    MNode::Const(c) => LaExpr::Const(*c),
                    MNode::Add(x, y) => LaExpr::Add(t(x)?, t(y)?),
                    MNode::Sub(x, y) => LaExpr::Sub(t(x)?, t(y)?),
                    MNode::Mul(x, y) => LaExpr::Mul(t(x)?, t(y)?),
                    MNode::MatMul(x, y) => LaExpr::MatMul(t(x)?, t(y)?),
                    MNode::T(x) => LaExpr::Transpose(t(x)?),
                    MNode::Neg(x) => LaExpr::Neg(t(x)?),
                    MNode::Sum(x) => LaExpr::Sum(t(x)?),
                    MNode::RowSums(x) => LaExpr::RowSums(t(x)?),
                    MNode::ColSums(x) => LaExpr::ColSums(t(x)?),
                    MNode::Pow(x, k) => LaExpr::Pow(t(x)?, *k),
                    // Sizes, functions and fused kernels: not compared here.
                    _ => return None,
                })
            };
            let size = |e: &LaExpr| e.to_string().len();
            let n = snap.m_classes.len();
            let mut smallest: Vec<Option<LaExpr>> = vec![None; n];
            let mut changed = true;
            while changed {
                changed = false;
                for c in 0..n {
                    for node in &snap.m_classes[c].nodes {
                        let Some(e) = term(node, &smallest) else {
                            continue;
                        };
                        if smallest[c].as_ref().is_none_or(|s| size(&e) < size(s)) {
                            smallest[c] = Some(e);
                            changed = true;
                        }
                    }
                }
            }
            let mut compared = 0;
            for c in 0..n {
                let Some(class_term) = &smallest[c] else {
                    continue;
                };
                for node in &snap.m_classes[c].nodes {
                    let Some(e) = term(node, &smallest) else {
                        continue;
                    };
                    let same =
                        crate::canon::provably_equivalent(class_term, &e, &encoded.tables.env);
                    assert!(
                        !matches!(same, Ok(false)),
                        "{text}: class {c} is {class_term} and holds {e}"
                    );
                    compared += 1;
                }
            }
            assert!(compared > n / 2, "{text}: only {compared} e-nodes compared");
        }
    }
}
