//! The MLIR optimizer (DialEgg-style): MLIR → egglog terms → equality saturation with the
//! user's rules → cheapest terms → MLIR.
//!
//! * [`decls`]: which ops the e-graph knows (the constructors declared in the prelude
//!   `egg/prelude.egg` and the user's rule file) and their costs.
//! * [`terms`]: types and attributes as egglog terms, both ways.
//! * [`eggify`]: ops to terms; what stays in place (side effects, undeclared ops, regions).
//! * [`snapshot`]: the saturated e-graph as classes of costed e-nodes.
//! * [`deeggify`]: per-block extraction (the LA optimizer's `CandGraph` extractors) and
//!   printing as SSA.
//!
//! Saturation runs the default ruleset to saturation; then every ruleset the rule file
//! declares (`(ruleset NAME)`), in declaration order, runs as a stage to saturation, each
//! followed by the default ruleset again. Stages let a rule file compute an analysis to its
//! fixpoint before rules that read it fire (`bench/mlir/matmul_chain.egg` prices every
//! association of a chain first, then builds only the cheapest). The runs are stepped by
//! the shared e-graph runner ([`spores_extract::runner::Runner`]): the iteration limit
//! applies to each run, the size and time limits to all of them; hitting a limit is not an
//! error: the best program found so far is returned. What a step may fire is counted, never
//! timed (see `Saturator::step`), so the same input gets the same search on an idle or a
//! busy machine; the time limit is a safety net between steps.
//!
//! At debug log level (`spores -vv`, or `RUST_LOG=spores_mlir=debug`), table sizes, the
//! slowest rules and the extraction phases are logged (how the encodings in
//! `bench/mlir/*.egg` were tuned).

mod budget;
pub mod decls;
pub mod deeggify;
pub mod eggify;
pub mod snapshot;
pub mod terms;

use std::time::{Duration, Instant};

use egglog::EGraph;
/// The check of a user's rule file, shared with the LA optimizer.
pub use spores_extract::rules_file::{RulesFile, RulesFileError};
use spores_extract::runner::{Runner, Search, StepContext, StepOutcome};

use crate::ir::{Module, Operation};

/// The shipped prelude: builtin types and attributes, common ops of arith, math, tensor and
/// linalg.
pub const PRELUDE: &str = include_str!("../../egg/prelude.egg");

/// How to choose among equivalent terms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Extractor {
    /// Cheapest tree cost per class, bottom up (exact when nothing is shared).
    Greedy,
    /// The minimum-DAG-cost ILP with a time budget, falling back to greedy.
    Ilp(Duration),
}

/// An `--extractor` argument that is not `greedy`, `ilp` or `ilp:MS`.
#[derive(Debug, thiserror::Error)]
pub enum ExtractorArgError {
    #[error("--extractor ilp:MS needs a number of milliseconds, got `{0}`")]
    Milliseconds(String),
    #[error("--extractor must be greedy, ilp or ilp:MS, got `{0}`")]
    Unknown(String),
}

impl std::str::FromStr for Extractor {
    type Err = ExtractorArgError;

    /// `greedy`, `ilp` (500 ms) or `ilp:MS`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.split_once(':') {
            None if s == "greedy" => Ok(Extractor::Greedy),
            None if s == "ilp" => Ok(Extractor::Ilp(Duration::from_millis(500))),
            Some(("ilp", ms)) => ms
                .parse::<u64>()
                .map(|ms| Extractor::Ilp(Duration::from_millis(ms)))
                .map_err(|_| ExtractorArgError::Milliseconds(ms.to_string())),
            _ => Err(ExtractorArgError::Unknown(s.to_string())),
        }
    }
}

/// Limits and choices.
#[derive(Clone, Debug)]
pub struct OptOptions {
    /// Iterations per run of a ruleset (the default ruleset and each stage).
    pub iter_limit: usize,
    /// E-graph size (tuples over all tables), checked between iterations.
    pub node_limit: usize,
    /// The safety net: a step is not started when, at the last step's pace, it would end
    /// past it.
    pub time_limit: Duration,
    pub extractor: Extractor,
}

impl Default for OptOptions {
    fn default() -> Self {
        OptOptions {
            iter_limit: 100,
            node_limit: 2_000_000,
            time_limit: Duration::from_secs(10),
            extractor: Extractor::Greedy,
        }
    }
}

/// Why saturation stopped: the stop reasons of every e-graph search spores runs.
pub use spores_extract::runner::StopReason;

/// What the optimizer did, and how long each phase took (the paper's Table 2 columns).
#[derive(Clone, Debug)]
pub struct OptStats {
    /// Loading the prelude and rules into a fresh e-graph.
    pub load_rules: Duration,
    /// MLIR → egglog: translating the module and inserting its terms.
    pub to_egglog: Duration,
    pub saturation: Duration,
    /// Reading the e-graph and choosing terms.
    pub extraction: Duration,
    /// egglog → MLIR: printing the chosen terms as ops.
    pub to_mlir: Duration,
    pub iterations: usize,
    pub stop: StopReason,
    pub enodes: usize,
    pub eclasses: usize,
    /// Ops in the input / output (all nesting levels).
    pub ops_before: usize,
    pub ops_after: usize,
    /// Input ops that became terms / stayed in place.
    pub term_ops: usize,
    pub anchor_ops: usize,
    /// Declared ops (prelude and rules).
    pub declared_ops: usize,
    pub blocks_optimized: usize,
    pub blocks_fallback: usize,
    /// The chosen program's cost (sum over blocks of DAG costs).
    pub cost: f64,
}

impl OptStats {
    /// Total optimization time.
    pub fn total(&self) -> Duration {
        self.load_rules + self.to_egglog + self.saturation + self.extraction + self.to_mlir
    }
}

/// Why optimization failed.
#[derive(Debug, thiserror::Error)]
pub enum OptError {
    #[error(transparent)]
    RulesFile(#[from] RulesFileError),
    #[error("rules: {0}")]
    Rules(String),
    #[error("egglog: {0}")]
    Egglog(String),
    #[error("reading the e-graph: {0}")]
    Snapshot(#[from] terms::ReadError),
}

/// The e-graph with the prelude and `rules` (egglog source named `rules_name`, checked
/// as [`RulesFile::from_text`] does) loaded, and the op declarations.
pub fn load_rules(rules: &str, rules_name: &str) -> Result<(EGraph, decls::Decls), OptError> {
    load_checked_rules(&RulesFile::from_text(rules, rules_name)?)
}

/// The e-graph with the prelude and a checked rule file loaded, and the op declarations.
pub fn load_checked_rules(rules: &RulesFile) -> Result<(EGraph, decls::Decls), OptError> {
    let mut eg = EGraph::default();
    let prelude = eg
        .parse_program(Some("prelude.egg".into()), PRELUDE)
        .map_err(|e| OptError::Rules(format!("prelude: {e}")))?;
    eg.run_program(prelude.clone())
        .map_err(|e| OptError::Rules(format!("prelude: {e}")))?;
    // Parsed by this e-graph's parser, includes spliced in: the declarations of an
    // included file count like the others.
    let user = rules.commands(&mut eg.parser)?;
    let mut all = prelude;
    all.extend(user.iter().cloned());
    let decls = decls::Decls::read(&all);
    eg.run_program(user)
        .map_err(|e| OptError::Rules(e.to_string()))?;
    // `type-of` for every declared op: its last child.
    let mut text = String::new();
    for name in &decls.order {
        let d = &decls.by_ctor[name];
        let vars: Vec<String> = (0..d.operands + d.attrs)
            .map(|i| format!("?a{i}"))
            .collect();
        text.push_str(&format!(
            "(rule ((= ?e ({name} {} ?t))) ((set (type-of ?e) ?t)) :name \"type-of {name}\")\n",
            vars.join(" ")
        ));
    }
    eg.parse_and_run_program(Some("type-of rules".into()), &text)
        .map_err(|e| OptError::Rules(format!("type-of rules: {e}")))?;
    Ok((eg, decls))
}

/// Optimizes `module` with the prelude plus `rules` (egglog source; `rules_name` names it in
/// messages).
pub fn optimize(
    module: &Module,
    rules: &str,
    rules_name: &str,
    opts: &OptOptions,
) -> Result<(Module, OptStats), OptError> {
    optimize_with(module, &RulesFile::from_text(rules, rules_name)?, opts)
}

/// Optimizes `module` with the prelude plus a checked rule file.
pub fn optimize_with(
    module: &Module,
    rules: &RulesFile,
    opts: &OptOptions,
) -> Result<(Module, OptStats), OptError> {
    let t0 = Instant::now();
    let (mut eg, decls) = load_checked_rules(rules)?;
    let load_rules = t0.elapsed();

    let t1 = Instant::now();
    let egg = eggify::eggify(module, &decls);
    terms::apply(&mut eg, &egg.terms.ins).map_err(|e| OptError::Egglog(e.to_string()))?;
    let to_egglog = t1.elapsed();

    let t2 = Instant::now();
    // Per-rule timing costs a map update per rule and step: only when it will be printed.
    let debug = log::log_enabled!(log::Level::Debug);
    let allowance = budget::StepAllowance::default();
    let budget = eg.add_scheduler(Box::new(budget::Budget::new(allowance.clone())));
    let mut runner = Runner::new()
        .with_iter_limit(opts.iter_limit)
        .with_node_limit(opts.node_limit)
        .with_time_limit(opts.time_limit)
        .with_start(t2);
    let mut sat = Saturator {
        eg: &mut eg,
        ruleset: "",
        debug,
        rule_times: Default::default(),
        budget,
        allowance,
    };
    // The default ruleset, then each declared ruleset as a stage followed by the default
    // ruleset again (for what the stage built), each to saturation.
    let mut stop = sat.run(&mut runner, "")?;
    for stage in &decls.rulesets {
        if stop != StopReason::Saturated {
            break;
        }
        stop = sat.run(&mut runner, stage)?;
        if stop == StopReason::Saturated {
            stop = sat.run(&mut runner, "")?;
        }
    }
    let iterations = runner.iterations().len();
    let rule_times = sat.rule_times;
    let saturation = t2.elapsed();
    if debug {
        let mut v: Vec<_> = rule_times.into_iter().collect();
        v.sort_by_key(|(_, (t, _))| std::cmp::Reverse(*t));
        for (r, (t, n)) in v.iter().take(8) {
            log::debug!("rule {r}: {t:?}, {n} matches");
        }
        for (name, _) in eg.functions_iter() {
            log::debug!("table {name}: {} rows", eg.get_size(name));
        }
    }

    let t3 = Instant::now();
    let snap = snapshot::Snapshot::read(&eg, &decls, egg.values.len())?;
    let read_time = t3.elapsed();

    let t4 = Instant::now();
    let mut emitter = deeggify::Emitter::new(&egg, &snap, opts.extractor);
    let ops = emitter.module_ops();
    let emit_time = t4.elapsed();
    let es = emitter.stats;
    log::debug!(
        "snapshot {read_time:?}, selection {:?}, printing {:?}",
        es.selection_time,
        emit_time.saturating_sub(es.selection_time)
    );
    let out = Module {
        ops,
        loc_aliases: egg.loc_aliases.clone(),
        metadata: egg.metadata.clone(),
    };
    let stats = OptStats {
        load_rules,
        to_egglog,
        saturation,
        extraction: read_time + es.selection_time,
        to_mlir: emit_time.saturating_sub(es.selection_time),
        iterations,
        stop,
        enodes: snap.enodes,
        eclasses: snap.classes.len(),
        ops_before: count_ops(&module.ops),
        ops_after: count_ops(&out.ops),
        term_ops: egg.term_ops,
        anchor_ops: egg.anchor_ops,
        declared_ops: decls.order.len(),
        blocks_optimized: es.blocks_optimized,
        blocks_fallback: es.blocks_fallback,
        cost: es.cost,
    };
    Ok((out, stats))
}

/// One ruleset of one optimization stepped as a [`Search`]: the [`Runner`] holds the
/// limits, shared by the default ruleset and the stages.
struct Saturator<'e> {
    eg: &'e mut EGraph,
    /// The ruleset stepped (`""`: the default ruleset).
    ruleset: &'e str,
    debug: bool,
    /// Per rule: search-and-apply time and matches (kept when debug logging is on).
    rule_times: std::collections::HashMap<String, (Duration, usize)>,
    /// The [`budget::Budget`] scheduler, and the matches it lets the next step fire.
    budget: egglog::scheduler::SchedulerId,
    allowance: budget::StepAllowance,
}

/// A step is bounded ([`budget::Budget`]) once the graph has, or is predicted to reach
/// after the step, `1 / BOUNDED_FROM` of the size limit.
const BOUNDED_FROM: usize = 32;
/// A bounded step fires matches for at most `1 / ROOM_SHARE` of the room left under the
/// size limit ...
const ROOM_SHARE: usize = 4;
/// ... and at most `MATCHES_PER_TUPLE` matches per tuple of the graph, so that it cannot
/// do many times the work of the last step and the clock's prediction holds.
const MATCHES_PER_TUPLE: usize = 1;

impl<'e> Saturator<'e> {
    /// Steps `ruleset` until nothing changes or a limit is hit. The iteration limit
    /// applies to each run; time and size limits to all of them.
    fn run(&mut self, runner: &mut Runner, ruleset: &'e str) -> Result<StopReason, OptError> {
        self.ruleset = ruleset;
        let (before, started) = (runner.iterations().len(), Instant::now());
        let stop = runner.run(self);
        log::debug!(
            "ruleset {ruleset:?}: {} iterations in {:?}",
            runner.iterations().len() - before,
            started.elapsed()
        );
        stop
    }
}

impl Search for Saturator<'_> {
    type Error = OptError;

    fn size(&self) -> usize {
        self.eg.num_tuples()
    }

    /// One step of the ruleset. Small graphs step freely (a scheduled step costs more).
    /// From a 32nd of the size limit on, or when the last step's growth, repeated, would
    /// get there, a step is bounded: it fires matches for at most a quarter of the room
    /// left under the size limit, and at most one per tuple of the graph. Unbounded, one
    /// step of commutativity and associativity on a long chain multiplies the graph and
    /// the work (a 60-op chain went from 37,000 to 258,000 tuples firing 572,000 matches,
    /// in 13 times the last step's time). Bounded, the size limit holds within a step,
    /// and a step takes about what the runner's clock predicts from the last one, so the
    /// time safety net holds too. The allowance is counted, never timed: the same input
    /// gets the same search on an idle or a busy machine.
    fn step(&mut self, ctx: &StepContext) -> Result<StepOutcome, OptError> {
        let size = ctx.size;
        let predicted = (size as f64 * ctx.growth.max(1.0)) as usize;
        let bounded = predicted.saturating_mul(BOUNDED_FROM) >= ctx.node_limit;
        let granted = (ctx.node_limit.saturating_sub(size) / ROOM_SHARE)
            .min(size.saturating_mul(MATCHES_PER_TUPLE));
        let step_started = Instant::now();
        let report = if bounded {
            self.allowance.set(granted);
            self.eg.step_rules_with_scheduler(self.budget, self.ruleset)
        } else {
            self.eg.step_rules(self.ruleset)
        }
        .map_err(|e| OptError::Egglog(e.to_string()))?;
        let fired = if bounded {
            granted - self.allowance.left()
        } else {
            report.num_matches_per_rule.values().sum()
        };
        log::debug!(
            "step {}: {size} -> {} tuples in {:?}, {fired} matches fired (bounded: {bounded})",
            ctx.iteration,
            self.eg.num_tuples(),
            step_started.elapsed(),
        );
        if self.debug {
            for (r, t) in &report.search_and_apply_time_per_rule {
                let e = self.rule_times.entry(r.to_string()).or_default();
                e.0 += *t;
                e.1 += report.num_matches_per_rule.get(r).copied().unwrap_or(0);
            }
            for (k, t) in &report.rebuild_time_per_ruleset {
                self.rule_times.entry(format!("rebuild {k}")).or_default().0 += *t;
            }
            for (k, t) in &report.merge_time_per_ruleset {
                self.rule_times.entry(format!("merge {k}")).or_default().0 += *t;
            }
        }
        Ok(StepOutcome {
            updated: report.updated,
            can_stop: report.can_stop,
            matches: fired,
            stopped: None,
        })
    }
}

/// Every operation in `ops` and nested in their regions, each before the ones it holds.
pub fn all_ops(ops: &[Operation]) -> Vec<&Operation> {
    fn walk<'m>(ops: &'m [Operation], out: &mut Vec<&'m Operation>) {
        for o in ops {
            out.push(o);
            for b in o.regions.iter().flat_map(|r| &r.blocks) {
                walk(&b.ops, out);
            }
        }
    }
    let mut out = Vec::new();
    walk(ops, &mut out);
    out
}

/// Ops at all nesting levels.
pub fn count_ops(ops: &[Operation]) -> usize {
    ops.iter()
        .map(|o| {
            1 + o
                .regions
                .iter()
                .flat_map(|r| &r.blocks)
                .map(|b| count_ops(&b.ops))
                .sum::<usize>()
        })
        .sum()
}
