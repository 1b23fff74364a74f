//! Keeps one saturation step within the size limit: what it fires and what it matches.
//!
//! The limits are checked between iterations, but one iteration of commutativity and
//! associativity over a long chain can multiply the e-graph (a 60-op chain went from
//! under 2M to tens of millions of tuples in one step). Once the graph is big enough for
//! that to matter (see `Saturator::step`), steps run under [`Budget`]: an egglog scheduler
//! that lets the rules of one step fire a bounded number of matches in all (a share of the
//! room left under the size limit). Matches not fired wait for the next step, so nothing
//! is lost while room lasts. Every step, bounded or not, finds at most a budget of
//! matches ([`MatchBudget`]). Both are counted, never timed, so a search does not depend
//! on the machine's load; the time limit is the runner's safety net
//! (`spores_extract::runner`), which stops a step's matching too.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use egglog::ast::{Command, Expr, Fact, Span};
use egglog::constraint::{self, Constraint, TypeConstraint};
use egglog::scheduler::{Matches, Scheduler};

use egglog::{ArcSort, AtomTerm, Core, Primitive, PurePrim, PureState, TypeInfo, Value};

/// The matches the current step may still fire, shared with the saturation loop, which
/// refills it before each step.
#[derive(Clone, Default)]
pub struct StepAllowance(Arc<AtomicUsize>);

impl StepAllowance {
    pub fn set(&self, matches: usize) {
        self.0.store(matches, Ordering::Relaxed);
    }

    /// The matches the current step may still fire.
    pub fn left(&self) -> usize {
        self.0.load(Ordering::Relaxed)
    }

    /// Takes up to `wanted` matches from the allowance; returns how many were granted.
    fn take(&self, wanted: usize) -> usize {
        let left = self.0.load(Ordering::Relaxed);
        let granted = left.min(wanted);
        self.0.store(left - granted, Ordering::Relaxed);
        granted
    }
}

/// The scheduler: the first matches of each rule, in egglog's order, up to the step's
/// allowance (deterministic: equal runs give equal programs).
#[derive(Clone)]
pub struct Budget {
    pub allowance: StepAllowance,
    /// Rules with matches left waiting.
    delayed: HashSet<String>,
}

impl Budget {
    pub fn new(allowance: StepAllowance) -> Self {
        Budget {
            allowance,
            delayed: HashSet::new(),
        }
    }
}

impl Scheduler for Budget {
    fn can_stop(&mut self, _rules: &[&str], _ruleset: &str) -> bool {
        self.delayed.is_empty()
    }

    fn filter_matches(&mut self, rule: &str, _ruleset: &str, matches: &mut Matches) -> bool {
        let total = matches.match_size();
        let granted = self.allowance.take(total);
        if granted == total {
            matches.choose_all();
            self.delayed.remove(rule);
        } else {
            for k in 0..granted {
                matches.choose(k);
            }
            self.delayed.insert(rule.to_string());
        }
        true
    }
}

/// The egglog primitive every user rule's query calls once per match (see
/// [`count_matches_in`]).
pub const MATCH_PRIMITIVE: &str = "spores-match";

/// Bounds the matching of one step, which the allowance above does not: a scheduled step
/// finds every match before it fires the first (DialEgg's chain of 160 square matrices
/// found 22.7 million matches in one step, 22 s, to fire 285,000 of them). Every user rule
/// counts its matches through [`MATCH_PRIMITIVE`]; once a step has found more than its
/// limit, the primitive stops egglog's matching (egglog's early stop, checked between
/// batches of matches; the matches past the limit are not kept), and the search ends after
/// that step. Counted, never timed: egglog matches in one thread in a fixed order, so the
/// same step stops at the same match on an idle or a busy machine. The time limit, the
/// safety net, stops matching too once it has passed ([`MatchBudget::timed_out`]).
#[derive(Clone)]
pub struct MatchBudget(Arc<MatchCount>);

struct MatchCount {
    found: AtomicUsize,
    limit: AtomicUsize,
    deadline: Mutex<Option<Instant>>,
    timed_out: AtomicBool,
}

/// The clock is read once per this many matches.
const CLOCK_EVERY: usize = 1024;

impl Default for MatchBudget {
    /// No limit until [`MatchBudget::start_step`] sets one.
    fn default() -> Self {
        MatchBudget(Arc::new(MatchCount {
            found: AtomicUsize::new(0),
            limit: AtomicUsize::new(usize::MAX),
            deadline: Mutex::new(None),
            timed_out: AtomicBool::new(false),
        }))
    }
}

impl MatchBudget {
    /// Starts counting a step that may find `limit` matches, and match until `deadline`.
    pub fn start_step(&self, limit: usize, deadline: Option<Instant>) {
        self.0.found.store(0, Ordering::Relaxed);
        self.0.limit.store(limit, Ordering::Relaxed);
        *self.0.deadline.lock().unwrap() = deadline;
        self.0.timed_out.store(false, Ordering::Relaxed);
    }

    /// The matches found since the step started (past the limit: up to a batch more).
    pub fn found(&self) -> usize {
        self.0.found.load(Ordering::Relaxed)
    }

    /// Whether the step's matching was stopped at the limit.
    pub fn exhausted(&self) -> bool {
        self.found() > self.0.limit.load(Ordering::Relaxed)
    }

    /// Whether the step's matching was stopped at the deadline.
    pub fn timed_out(&self) -> bool {
        self.0.timed_out.load(Ordering::Relaxed)
    }

    /// Counts one match; `false` once past the limit or the deadline.
    fn count(&self) -> bool {
        let found = self.0.found.fetch_add(1, Ordering::Relaxed) + 1;
        if found > self.0.limit.load(Ordering::Relaxed) || self.timed_out() {
            return false;
        }
        if found.is_multiple_of(CLOCK_EVERY) {
            if let Some(deadline) = *self.0.deadline.lock().unwrap() {
                if Instant::now() >= deadline {
                    self.0.timed_out.store(true, Ordering::Relaxed);
                    return false;
                }
            }
        }
        true
    }

    /// Registers [`MATCH_PRIMITIVE`] in `eg`, counting into this budget.
    pub fn register(&self, eg: &mut egglog::EGraph) {
        let unit = eg.get_arcsort_by(|s| s.name() == "Unit");
        eg.add_pure_primitive(
            CountMatch {
                budget: self.clone(),
                unit,
            },
            None,
        );
    }
}

/// [`MATCH_PRIMITIVE`]: takes the match's variables (any number, any sorts, so that it runs
/// once the whole match is bound), returns unit while the step's budget lasts.
#[derive(Clone)]
struct CountMatch {
    budget: MatchBudget,
    unit: ArcSort,
}

impl Primitive for CountMatch {
    fn name(&self) -> &str {
        MATCH_PRIMITIVE
    }

    fn get_type_constraints(&self, _span: &Span) -> Box<dyn TypeConstraint> {
        Box::new(AnyArgumentsToUnit(self.unit.clone()))
    }
}

impl PurePrim for CountMatch {
    fn apply<'a, 'db>(&self, state: PureState<'a, 'db>, _args: &[Value]) -> Option<Value> {
        if self.budget.count() {
            Some(state.base_values().get(()))
        } else {
            state.trigger_early_stop();
            None
        }
    }
}

/// Arguments of whatever sorts the rest of the query gives them; the output is unit.
struct AnyArgumentsToUnit(ArcSort);

impl TypeConstraint for AnyArgumentsToUnit {
    fn get(
        &self,
        arguments: &[AtomTerm],
        _typeinfo: &TypeInfo,
    ) -> Vec<Box<dyn Constraint<AtomTerm, ArcSort>>> {
        match arguments.last() {
            Some(output) => vec![constraint::assign(output.clone(), self.0.clone())],
            None => vec![],
        }
    }
}

/// Adds `(spores-match v1 .. vn)` over every variable a rule's query binds to each `rule`
/// and `rewrite` of `commands` (a `bi-rewrite`: the variables both of its sides bind), so
/// that the [`MatchBudget`] counts their matches.
pub fn count_matches_in(commands: &mut [Command]) {
    for command in commands {
        match command {
            Command::Rule { rule } => {
                let vars = variables(rule.body.iter().flat_map(fact_exprs));
                push_count(&mut rule.body, rule.span.clone(), vars);
            }
            Command::Rewrite(_, rewrite, _) => {
                let vars = variables(
                    std::iter::once(&rewrite.lhs)
                        .chain(rewrite.conditions.iter().flat_map(fact_exprs)),
                );
                push_count(&mut rewrite.conditions, rewrite.span.clone(), vars);
            }
            Command::BiRewrite(_, rewrite) => {
                let right = variables(std::iter::once(&rewrite.rhs));
                let mut vars: Vec<String> = variables(std::iter::once(&rewrite.lhs))
                    .into_iter()
                    .filter(|v| right.contains(v))
                    .collect();
                for v in variables(rewrite.conditions.iter().flat_map(fact_exprs)) {
                    if !vars.contains(&v) {
                        vars.push(v);
                    }
                }
                push_count(&mut rewrite.conditions, rewrite.span.clone(), vars);
            }
            _ => {}
        }
    }
}

fn push_count(facts: &mut Vec<Fact>, span: Span, vars: Vec<String>) {
    if vars.is_empty() {
        return;
    }
    let args = vars
        .into_iter()
        .map(|v| Expr::Var(span.clone(), v))
        .collect();
    facts.push(Fact::Fact(Expr::Call(
        span,
        MATCH_PRIMITIVE.to_string(),
        args,
    )));
}

fn fact_exprs(fact: &Fact) -> Vec<&Expr> {
    match fact {
        Fact::Eq(_, a, b) => vec![a, b],
        Fact::Fact(e) => vec![e],
    }
}

/// The variables of `exprs`, first occurrence first; globals (`$name`) are left out.
fn variables<'e>(exprs: impl IntoIterator<Item = &'e Expr>) -> Vec<String> {
    fn walk(e: &Expr, out: &mut Vec<String>) {
        match e {
            Expr::Var(_, v) => {
                if !v.starts_with('$') && !out.contains(v) {
                    out.push(v.clone());
                }
            }
            Expr::Call(_, _, args) => args.iter().for_each(|a| walk(a, out)),
            Expr::Lit(..) => {}
        }
    }
    let mut out = Vec::new();
    for e in exprs {
        walk(e, &mut out);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use egglog::EGraph;

    /// Every pair of ten numbers matches the rule: 100 matches a step.
    const PAIRS: &str = "(datatype N (Num i64))
        (function seen (N N) i64 :merge (max old new))
        (rule ((= a (Num x)) (= b (Num y))) ((set (seen a b) 1)))";

    fn pairs(budget: &MatchBudget) -> EGraph {
        let mut eg = EGraph::default();
        budget.register(&mut eg);
        let mut commands = eg.parse_program(None, PAIRS).unwrap();
        count_matches_in(&mut commands);
        eg.run_program(commands).unwrap();
        let numbers: String = (0..10).map(|i| format!("(Num {i})\n")).collect();
        eg.parse_and_run_program(None, &numbers).unwrap();
        eg
    }

    #[test]
    fn the_count_is_added_over_every_variable_of_the_query() {
        let mut eg = EGraph::default();
        let mut commands = eg
            .parse_program(
                None,
                "(datatype E (Add E E) (Lit i64))
                 (rewrite (Add x (Add y z)) (Add (Add x y) z) :when ((= y (Lit k))))
                 (birewrite (Add x y) (Add y x))",
            )
            .unwrap();
        count_matches_in(&mut commands);
        let text: Vec<String> = commands.iter().map(|c| c.to_string()).collect();
        assert!(text[1].contains("(spores-match x y z k)"), "{}", text[1]);
        assert!(text[2].contains("(spores-match x y)"), "{}", text[2]);
    }

    #[test]
    fn a_step_counts_every_match() {
        let budget = MatchBudget::default();
        let mut eg = pairs(&budget);
        budget.start_step(1_000, None);
        eg.step_rules("").unwrap();
        assert_eq!(budget.found(), 100);
        assert!(!budget.exhausted());
        assert_eq!(eg.get_size("seen"), 100);
    }

    #[test]
    fn matching_stops_past_the_limit_at_the_same_match_every_time() {
        // egglog checks its early stop between batches of matches, so a step may count
        // past the limit, but the matches past it are not kept.
        let mut runs = Vec::new();
        for _ in 0..2 {
            let budget = MatchBudget::default();
            let mut eg = pairs(&budget);
            budget.start_step(30, None);
            eg.step_rules("").unwrap();
            assert!(budget.exhausted());
            let rows = eg
                .parse_and_run_program(None, "(print-function seen 100)")
                .unwrap();
            let rows: Vec<String> = rows.iter().map(|r| r.to_string()).collect();
            runs.push((eg.get_size("seen"), rows));
        }
        assert_eq!(runs[0].0, 30);
        assert_eq!(runs[0], runs[1]);
    }

    #[test]
    fn a_passed_deadline_stops_matching() {
        // 100 matches of 10 numbers; with 40 numbers, 1,600: the clock is read after
        // the 1,024th.
        let budget = MatchBudget::default();
        let mut eg = pairs(&budget);
        let more: String = (10..40).map(|i| format!("(Num {i})\n")).collect();
        eg.parse_and_run_program(None, &more).unwrap();
        budget.start_step(usize::MAX, Some(Instant::now()));
        eg.step_rules("").unwrap();
        assert!(budget.timed_out());
        assert!(!budget.exhausted());
        assert_eq!(eg.get_size("seen"), CLOCK_EVERY - 1);
    }
}
