//! SPORES' sampling schedule as an egglog [`Scheduler`].

use std::collections::HashMap;

use egglog::scheduler::{Matches, Scheduler};

/// Fires at most `limit` matches per rule per iteration for the sampled rulesets, a
/// pseudo-random sample spread over all matches; egglog keeps the rest and offers them
/// again next iteration, so sampling delays matches but never loses them. Other rulesets
/// fire every match.
///
/// The state lives in the scheduler itself (egglog clones it with the e-graph), so a
/// prepared e-graph can be cloned per optimization with a fresh sampler.
#[derive(Clone)]
pub struct Sampler {
    pub limit: usize,
    pub sampled: Vec<String>,
    seed: u64,
    /// Matches still waiting, per rule.
    pending: HashMap<String, usize>,
}

impl Sampler {
    pub fn new(limit: usize, sampled: &[&str]) -> Self {
        Sampler {
            limit: limit.max(1),
            sampled: sampled.iter().map(|s| s.to_string()).collect(),
            seed: 0x9E37_79B9_7F4A_7C15,
            pending: HashMap::new(),
        }
    }
}

impl Scheduler for Sampler {
    fn can_stop(&mut self, _rules: &[&str], _ruleset: &str) -> bool {
        self.pending.values().all(|n| *n == 0)
    }

    fn filter_matches(&mut self, rule: &str, ruleset: &str, matches: &mut Matches) -> bool {
        let total = matches.match_size();
        if !self.sampled.iter().any(|s| s == ruleset) || total <= self.limit {
            matches.choose_all();
            self.pending.insert(rule.to_string(), 0);
            return true;
        }
        // Deterministic xorshift: equal runs give equal plans.
        let mut x = self.seed;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.seed = x;
        let stride = total as f64 / self.limit as f64;
        let offset = (x % 1024) as f64 / 1024.0 * stride;
        for n in 0..self.limit {
            let idx = ((offset + n as f64 * stride) as usize).min(total - 1);
            matches.choose(idx);
        }
        self.pending
            .insert(rule.to_string(), total.saturating_sub(self.limit));
        true
    }
}
