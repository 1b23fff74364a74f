//! The MLIR optimizer (DialEgg-style): MLIR → egglog terms → equality saturation with the
//! user's rules → cheapest terms → MLIR.
//!
//! * [`decls`]: which ops the e-graph knows (the constructors declared in the prelude
//!   `egg/prelude.egg` and the user's rule file) and their costs.
//! * [`terms`]: types and attributes as egglog terms, both ways.
//! * [`eggify`]: ops to terms; what stays in place (side effects, undeclared ops, regions).
//! * [`effects`]: which ops are pure, and so may become terms.
//! * [`egglog2024`]: rule files in the 2024 egglog dialect DialEgg's files are written in,
//!   translated on load; they bring their own vocabulary (`terms::Vocabulary::DialEgg`)
//!   and schedule.
//! * [`snapshot`]: the saturated e-graph as classes of costed e-nodes.
//! * [`deeggify`]: per-block extraction (the LA optimizer's `CandGraph` extractors) and
//!   printing as SSA.
//!
//! Saturation runs the default ruleset to saturation; then every ruleset the rule file
//! declares (`(ruleset NAME)`), in declaration order, runs as a stage to saturation, each
//! followed by the default ruleset again (a 2024-dialect file runs its own `run`s and
//! `run-schedule`s instead). Stages let a rule file compute an analysis to its
//! fixpoint before rules that read it fire (`bench/mlir/matmul_chain.egg` prices every
//! association of a chain first, then builds only the cheapest). The runs are stepped by
//! the shared e-graph runner ([`spores_extract::runner::Runner`]): the iteration limit
//! applies to each run, the size and time limits to all of them; hitting a limit is not an
//! error: the best program found so far is returned. What a step may find and fire is
//! counted, never timed (see `Saturator::step`), so the same input gets the same search on
//! an idle or a busy machine; the time limit is a safety net, between steps and within a
//! step's matching.
//!
//! At debug log level (`spores -vv`, or `RUST_LOG=spores_mlir=debug`), table sizes, the
//! slowest rules and the extraction phases are logged (how the encodings in
//! `bench/mlir/*.egg` were tuned).

mod budget;
pub mod decls;
pub mod deeggify;
pub mod effects;
pub mod eggify;
pub mod egglog2024;
pub mod snapshot;
pub mod terms;

use std::path::Path;
use std::time::{Duration, Instant};

use egglog::EGraph;
/// The check of a user's rule file, shared with the LA optimizer.
pub use spores_extract::rules_file::{RulesFile, RulesFileError};
use spores_extract::runner::{Runner, Search, StepContext, StepOutcome};

use crate::ir::{Module, Operation};

use egglog2024::Schedule;

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
    #[error(transparent)]
    Egglog2024(#[from] egglog2024::Error),
}

/// A rule file, in the egglog spores embeds or in the 2024 dialect DialEgg's files are
/// written in ([`egglog2024`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Rules {
    /// Added to the shipped prelude; the optimizer runs its rulesets as stages.
    Current(RulesFile),
    /// Translated; it brings its own vocabulary (DialEgg's `src/base.egg`) and schedule.
    Egglog2024(egglog2024::Program),
}

impl Rules {
    /// Reads the rule file at `path`, in whichever dialect it is written.
    pub fn read(path: &Path) -> Result<Rules, OptError> {
        Ok(match egglog2024::Program::read(path)? {
            Some(p) => Rules::Egglog2024(p),
            None => Rules::Current(RulesFile::read(path)?),
        })
    }

    /// Reads rule text named `name` in messages, in whichever dialect it is written.
    pub fn from_text(text: &str, name: &str) -> Result<Rules, OptError> {
        Ok(match egglog2024::Program::from_text(text, name)? {
            Some(p) => Rules::Egglog2024(p),
            None => Rules::Current(RulesFile::from_text(text, name)?),
        })
    }
}

impl From<RulesFile> for Rules {
    fn from(r: RulesFile) -> Rules {
        Rules::Current(r)
    }
}

/// The e-graph with `rules` (egglog source named `rules_name`, in either dialect) loaded,
/// and the op declarations.
pub fn load_rules(rules: &str, rules_name: &str) -> Result<(EGraph, decls::Decls), OptError> {
    load_checked_rules(&Rules::from_text(rules, rules_name)?)
}

/// The e-graph with a checked rule file loaded (after the prelude, in the current dialect),
/// and the op declarations.
pub fn load_checked_rules(rules: &Rules) -> Result<(EGraph, decls::Decls), OptError> {
    load_counting(rules, &budget::MatchBudget::default())
}

/// [`load_checked_rules`], the rule file's rules counting their matches into `matches`.
fn load_counting(
    rules: &Rules,
    matches: &budget::MatchBudget,
) -> Result<(EGraph, decls::Decls), OptError> {
    let rules = match rules {
        Rules::Current(r) => r,
        Rules::Egglog2024(p) => return load_2024(p, matches),
    };
    let mut eg = EGraph::default();
    matches.register(&mut eg);
    let prelude = eg
        .parse_program(Some("prelude.egg".into()), PRELUDE)
        .map_err(|e| OptError::Rules(format!("prelude: {e}")))?;
    eg.run_program(prelude.clone())
        .map_err(|e| OptError::Rules(format!("prelude: {e}")))?;
    // Parsed by this e-graph's parser, includes spliced in: the declarations of an
    // included file count like the others.
    let mut user = rules.commands(&mut eg.parser)?;
    let mut all = prelude;
    all.extend(user.iter().cloned());
    let mut decls = decls::Decls::read(&all);
    budget::count_matches_in(&mut user);
    eg.run_program(user)
        .map_err(|e| OptError::Rules(e.to_string()))?;
    let text = analysis_rules(&decls);
    eg.parse_and_run_program(Some("analysis rules".into()), &text)
        .map_err(|e| OptError::Rules(format!("analysis rules: {e}")))?;
    decls.pure_ops = pure_ops(&eg)?;
    Ok((eg, decls))
}

/// The rules that set `type-of` for every leaf and declared op (its last child) and
/// `nrows` / `ncols` of every matrix type: in the default ruleset and in each ruleset the
/// rule file declares, so that a rule reads them for the terms its own ruleset has just
/// built (a fact computed only between stages is missing when the stage needs it).
fn analysis_rules(decls: &decls::Decls) -> String {
    let mut text = String::new();
    let rulesets = std::iter::once("").chain(decls.rulesets.iter().map(String::as_str));
    for (i, ruleset) in rulesets.enumerate() {
        let (at, tag) = if ruleset.is_empty() {
            (String::new(), String::new())
        } else {
            (
                format!(":ruleset {ruleset} "),
                format!(" in {ruleset} ({i})"),
            )
        };
        text.push_str(&format!(
            "(rule ((= ?v (Value ?id ?t))) ((set (type-of ?v) ?t)) {at}:name \"type-of Value{tag}\")\n"
        ));
        text.push_str(&format!(
            "(rule ((= ?t (RankedTensor (DCons ?r (DCons ?c (DNil))) ?e))) \
             ((set (nrows ?t) ?r) (set (ncols ?t) ?c)) {at}:name \"matrix dims{tag}\")\n"
        ));
        for name in &decls.order {
            let d = &decls.by_ctor[name];
            let vars: Vec<String> = (0..d.operands + d.attrs)
                .map(|i| format!("?a{i}"))
                .collect();
            text.push_str(&format!(
                "(rule ((= ?e ({name} {} ?t))) ((set (type-of ?e) ?t)) {at}:name \"type-of {name}{tag}\")\n",
                vars.join(" ")
            ));
        }
    }
    text
}

/// The entries of the `pure-op` relation.
fn pure_ops(eg: &EGraph) -> Result<std::collections::HashSet<String>, OptError> {
    let mut out = std::collections::HashSet::new();
    eg.constructor_enodes(effects::PURE_RELATION, |en| {
        out.insert(
            eg.value_to_base::<egglog::sort::S>(en.children[0])
                .0
                .clone(),
        );
    })
    .map_err(terms::ReadError::of(effects::PURE_RELATION))?;
    Ok(out)
}

/// Loads a 2024-dialect program: its files (DialEgg's include `src/base.egg`, which
/// declares the vocabulary) in place of the prelude, then the handles the translator needs.
fn load_2024(
    program: &egglog2024::Program,
    matches: &budget::MatchBudget,
) -> Result<(EGraph, decls::Decls), OptError> {
    let mut eg = EGraph::default();
    matches.register(&mut eg);
    eg.parse_and_run_program(
        Some("spores support".into()),
        &format!("(relation {} (String))", effects::PURE_RELATION),
    )
    .map_err(|e| OptError::Rules(format!("spores support: {e}")))?;
    let mut all = Vec::new();
    for (name, text) in &program.chunks {
        let commands = eg
            .parse_program(Some(name.clone()), text)
            .map_err(|e| OptError::Rules(e.to_string()))?;
        all.extend(commands);
    }
    let mut decls = decls::Decls::read(&all);
    budget::count_matches_in(&mut all);
    eg.run_program(all)
        .map_err(|e| OptError::Rules(e.to_string()))?;
    // What DialEgg's driver relies on the rule file to declare (through src/base.egg).
    for (what, name, inputs) in [
        ("(Value i64 Type) Op", "Value", 2),
        ("(NamedAttr String Attr) AttrPair", "NamedAttr", 2),
        ("(OpaqueType String String) Type", "OpaqueType", 2),
        ("(OpaqueAttr String String) Attr", "OpaqueAttr", 2),
    ] {
        let declared = match eg.get_function(name) {
            Some(f) => f.func_type().input.len() == inputs,
            None => false,
        };
        if !declared {
            return Err(OptError::Rules(format!(
                "a rule file in the 2024 dialect must declare {name} {what} (DialEgg's \
                 files include src/base.egg, which does)"
            )));
        }
    }
    eg.parse_and_run_program(
        Some("spores support".into()),
        "(constructor Ssa (i64) Op :unextractable)",
    )
    .map_err(|e| OptError::Rules(format!("spores support: {e}")))?;
    decls.use_dialegg_vocabulary();
    decls.schedule = Some(program.schedule.clone());
    decls.pure_ops = pure_ops(&eg)?;
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
    optimize_with(module, &Rules::from_text(rules, rules_name)?, opts)
}

/// Optimizes `module` with a checked rule file.
pub fn optimize_with(
    module: &Module,
    rules: &Rules,
    opts: &OptOptions,
) -> Result<(Module, OptStats), OptError> {
    let t0 = Instant::now();
    let matches = budget::MatchBudget::default();
    let (mut eg, mut decls) = load_counting(rules, &matches)?;
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
        matches,
        changed: false,
    };
    let stop = match &decls.schedule {
        Some(schedule) => sat
            .seq(&mut runner, schedule, opts.iter_limit)?
            .unwrap_or(StopReason::Saturated),
        None => {
            // The default ruleset, then each declared ruleset as a stage followed by the
            // default ruleset again (for what the stage built), each to saturation.
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
            stop
        }
    };
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
    if stop != StopReason::Saturated {
        // A 2024 file's unpriced e-node costs its op's fixed cost, but when a limit stopped
        // saturation its price may only be missing because the cost rule has not fired yet:
        // priced at the fixed cost, such nodes would be chosen as the cheapest.
        decls.keep_unpriced_out();
    }
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
    /// The matches a step may find ([`budget::MatchBudget`]): the size limit, and the time
    /// limit as the safety net.
    matches: budget::MatchBudget,
    /// Whether a step changed the e-graph since this was last cleared (for `saturate`).
    changed: bool,
}

/// A step is bounded ([`budget::Budget`]) once the graph has, or is predicted to reach
/// after the step, `1 / BOUNDED_FROM` of the size limit. Below, steps fire every match they
/// find (at most the size limit's worth: [`budget::MatchBudget`]); bounding them from a
/// 32nd kept DialEgg's 80-matrix chain from saturating within the limits (its steps fire
/// up to 860,000 matches each on the way to 188,000 tuples).
const BOUNDED_FROM: usize = 2;
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

impl<'e> Saturator<'e> {
    /// Runs a 2024 file's schedules in turn; `Some(limit)` when a limit stopped them. The
    /// iteration limit bounds each `run` and the rounds of each `saturate`.
    fn seq(
        &mut self,
        runner: &mut Runner,
        steps: &'e [Schedule],
        iter_limit: usize,
    ) -> Result<Option<StopReason>, OptError> {
        for s in steps {
            if let Some(stop) = self.schedule(runner, s, iter_limit)? {
                return Ok(Some(stop));
            }
        }
        Ok(None)
    }

    fn schedule(
        &mut self,
        runner: &mut Runner,
        s: &'e Schedule,
        iter_limit: usize,
    ) -> Result<Option<StopReason>, OptError> {
        match s {
            Schedule::Run { ruleset, times } => {
                let asked = (*times).min(iter_limit);
                set_iter_limit(runner, asked);
                Ok(match self.run(runner, ruleset)? {
                    StopReason::Saturated => None,
                    // As many iterations as the file asks for is no limit.
                    StopReason::IterLimit if asked == *times => None,
                    stop => Some(stop),
                })
            }
            // The common case, `(saturate RULESET)`, is one run of the ruleset.
            Schedule::Saturate(body) => {
                if let [Schedule::Run { ruleset, times: 1 }] = body.as_slice() {
                    set_iter_limit(runner, iter_limit);
                    return Ok(match self.run(runner, ruleset)? {
                        StopReason::Saturated => None,
                        stop => Some(stop),
                    });
                }
                for _ in 0..iter_limit {
                    self.changed = false;
                    if let Some(stop) = self.seq(runner, body, iter_limit)? {
                        return Ok(Some(stop));
                    }
                    if !self.changed {
                        return Ok(None);
                    }
                }
                Ok(Some(StopReason::IterLimit))
            }
            Schedule::Repeat(n, body) => {
                for _ in 0..*n {
                    if let Some(stop) = self.seq(runner, body, iter_limit)? {
                        return Ok(Some(stop));
                    }
                }
                Ok(None)
            }
            Schedule::Seq(body) => self.seq(runner, body, iter_limit),
        }
    }
}

/// Sets the iteration limit of the next runs of `runner` (the builder takes it by value).
fn set_iter_limit(runner: &mut Runner, iterations: usize) {
    *runner = std::mem::replace(runner, Runner::new()).with_iter_limit(iterations);
}

impl Search for Saturator<'_> {
    type Error = OptError;

    fn size(&self) -> usize {
        self.eg.num_tuples()
    }

    /// One step of the ruleset. Small graphs step freely (a scheduled step costs more).
    /// From half the size limit on, or when the last step's growth, repeated, would get
    /// there, a step is bounded: it fires matches for at most a quarter of the room left
    /// under the size limit, and at most one per tuple of the graph, so the size limit
    /// holds within a step. Every step finds at most the size limit's worth of matches
    /// ([`budget::MatchBudget`]; a step that would find more ends the search). Unbounded,
    /// one step of commutativity and associativity on a long chain multiplies the graph
    /// and the work (a 60-op chain went from 37,000 to 258,000 tuples firing 572,000
    /// matches, in 13 times the last step's time): the time safety net stops matching
    /// when it passes within a step. The allowance and the match budget are counted, never
    /// timed: the same input gets the same search on an idle or a busy machine.
    fn step(&mut self, ctx: &StepContext) -> Result<StepOutcome, OptError> {
        let size = ctx.size;
        let predicted = (size as f64 * ctx.growth.max(1.0)) as usize;
        let bounded = predicted.saturating_mul(BOUNDED_FROM) >= ctx.node_limit;
        let granted = (ctx.node_limit.saturating_sub(size) / ROOM_SHARE)
            .min(size.saturating_mul(MATCHES_PER_TUPLE));
        let step_started = Instant::now();
        self.matches
            .start_step(ctx.node_limit, ctx.clock.deadline());
        let report = if bounded {
            self.allowance.set(granted);
            self.eg.step_rules_with_scheduler(self.budget, self.ruleset)
        } else {
            self.eg.step_rules(self.ruleset)
        }
        .map_err(|e| OptError::Egglog(e.to_string()))?;
        self.changed |= report.updated;
        let fired = if bounded {
            granted - self.allowance.left()
        } else {
            report.num_matches_per_rule.values().sum()
        };
        log::debug!(
            "step {}: {size} -> {} tuples in {:?}, {} matches found, {fired} fired (bounded: {bounded})",
            ctx.iteration,
            self.eg.num_tuples(),
            step_started.elapsed(),
            self.matches.found(),
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
        let stopped = if self.matches.exhausted() {
            log::debug!(
                "step {}: matching stopped after {} matches",
                ctx.iteration,
                ctx.node_limit
            );
            Some(StopReason::MatchLimit)
        } else if self.matches.timed_out() {
            log::debug!("step {}: matching stopped at the time limit", ctx.iteration);
            Some(StopReason::TimeLimit)
        } else {
            None
        };
        Ok(StepOutcome {
            updated: report.updated,
            can_stop: report.can_stop,
            matches: fired,
            stopped,
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
