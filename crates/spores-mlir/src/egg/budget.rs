//! Keeps one saturation step within the size limit.
//!
//! The limits are checked between iterations, but one iteration of commutativity and
//! associativity over a long chain can multiply the e-graph (a 60-op chain went from
//! under 2M to tens of millions of tuples in one step). Once the graph is big enough for
//! that to matter (see `Saturator::step`), steps run under [`Budget`]: an egglog scheduler
//! that lets the rules of one step fire a bounded number of matches in all (a share of the
//! room left under the size limit). The allowance is counted, never timed, so a search
//! does not depend on the machine's load; the time limit is the runner's safety net
//! between steps (`spores_extract::runner`). Matches not fired wait for the next step, so
//! nothing is lost while room lasts.

use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use egglog::scheduler::{Matches, Scheduler};

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
