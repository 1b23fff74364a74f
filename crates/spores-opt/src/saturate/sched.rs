//! SPORES' sampling schedule, and a per-step match budget, as an egglog [`Scheduler`].

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use egglog::scheduler::{Matches, Scheduler};

/// How many matches the next step may still fire, over all its rules: the driver sets it
/// before each step from the room left under the node limit, so one step cannot grow the
/// graph far past the limit (no copy of the graph is needed to undo one). The handle is
/// shared between the driver and the scheduler inside the e-graph.
#[derive(Clone, Debug, Default)]
pub struct MatchBudget(Arc<AtomicUsize>);

impl MatchBudget {
    pub fn set(&self, matches: usize) {
        self.0.store(matches, Ordering::Relaxed);
    }

    fn take(&self, wanted: usize) -> usize {
        let left = self.0.load(Ordering::Relaxed);
        let granted = wanted.min(left);
        self.0.store(left - granted, Ordering::Relaxed);
        granted
    }
}

/// Fires at most `limit` matches per rule per iteration for the sampled rulesets, a
/// pseudo-random sample spread over all matches, and at most what is left of the step's
/// [`MatchBudget`] for every ruleset; egglog keeps the rest and offers them again next
/// iteration, so sampling and the budget delay matches but never lose them. Rules are
/// offered in a fixed order, so the same graph gets the same choice.
///
/// The state lives in the scheduler itself (egglog clones it with the e-graph), so a
/// prepared e-graph can be cloned per optimization with a fresh sampler.
#[derive(Clone)]
pub struct Sampler {
    pub limit: usize,
    pub sampled: Vec<String>,
    budget: MatchBudget,
    seed: u64,
    /// Matches still waiting, per rule.
    pending: HashMap<String, usize>,
}

impl Sampler {
    pub fn new(limit: usize, sampled: &[&str], budget: MatchBudget) -> Self {
        Sampler {
            limit: limit.max(1),
            sampled: sampled.iter().map(|s| s.to_string()).collect(),
            budget,
            seed: 0x9E37_79B9_7F4A_7C15,
            pending: HashMap::new(),
        }
    }

    /// The next offset in `0..1`, from a deterministic xorshift: equal runs give equal
    /// plans.
    fn next_fraction(&mut self) -> f64 {
        let mut x = self.seed;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.seed = x;
        (x % 1024) as f64 / 1024.0
    }
}

impl Scheduler for Sampler {
    fn can_stop(&mut self, _rules: &[&str], _ruleset: &str) -> bool {
        self.pending.values().all(|n| *n == 0)
    }

    fn filter_matches(&mut self, rule: &str, ruleset: &str, matches: &mut Matches) -> bool {
        let total = matches.match_size();
        let sampled = self.sampled.iter().any(|s| s == ruleset);
        let wanted = if sampled {
            total.min(self.limit)
        } else {
            total
        };
        let chosen = self.budget.take(wanted);
        if chosen == total {
            matches.choose_all();
        } else if chosen > 0 {
            // Spread over all matches rather than the first ones, which egglog lists in
            // the order of its indices.
            let stride = total as f64 / chosen as f64;
            let offset = self.next_fraction() * stride;
            for n in 0..chosen {
                let idx = ((offset + n as f64 * stride) as usize).min(total - 1);
                matches.choose(idx);
            }
        }
        self.pending.insert(rule.to_string(), total - chosen);
        true
    }
}
