//! What bounds an e-graph search and why it stopped, shared by the LA optimizer
//! (`spores-opt`) and the MLIR optimizer (`spores-mlir`).
//!
//! A search is bounded by a budget of work (iterations and e-nodes), counted, so that the
//! same input always gets the same search; the wall clock is a safety net above it. The
//! [`Clock`] holds the safety net and predicts whether a next step still fits under it, from
//! how long the last step took and how much the graph has grown since that step started, so
//! that the limit holds within a step too, not only between steps.
//!
//! ```
//! use std::time::{Duration, Instant};
//! use spores_extract::runner::{Clock, StopReason};
//!
//! let mut clock = Clock::new(Instant::now(), Duration::from_secs(1));
//! // A step from 100 to 300 e-nodes took 200 ms: the next one, from 300, is predicted to
//! // take three times as long (the graph tripled since the last step started), so it no
//! // longer fits.
//! clock.record_step(100, Duration::from_millis(200));
//! assert_eq!(clock.predicted_step(300), Duration::from_millis(600));
//! assert!(clock.would_overrun(300, 2.0));
//! assert_eq!(StopReason::TimeLimit.to_string(), "time safety net");
//! ```

use std::time::{Duration, Instant};

/// Why saturation stopped: saturated, one of the two work budgets, or the time safety net.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopReason {
    Saturated,
    /// The work budget's iterations were spent.
    IterLimit,
    /// The work budget's e-nodes were spent.
    NodeLimit,
    /// The wall-clock safety net stopped the search before its work budget did.
    TimeLimit,
}

impl std::fmt::Display for StopReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            StopReason::Saturated => "saturated",
            StopReason::IterLimit => "work budget (iterations)",
            StopReason::NodeLimit => "work budget (e-nodes)",
            StopReason::TimeLimit => "time safety net",
        })
    }
}

/// The wall clock of one search: its time limit, and the last step's duration and starting
/// size, from which the next step's duration is predicted.
#[derive(Clone, Debug)]
pub struct Clock {
    started: Instant,
    limit: Duration,
    last_step: Duration,
    last_size: usize,
}

impl Clock {
    /// A search that started at `started` and may run for `limit`.
    pub fn new(started: Instant, limit: Duration) -> Clock {
        Clock {
            started,
            limit,
            last_step: Duration::ZERO,
            last_size: 0,
        }
    }

    pub fn started(&self) -> Instant {
        self.started
    }

    pub fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }

    /// Time left under the limit (zero once it has passed).
    pub fn left(&self) -> Duration {
        self.limit.saturating_sub(self.elapsed())
    }

    /// Whether the limit has passed.
    pub fn expired(&self) -> bool {
        self.elapsed() >= self.limit
    }

    /// How long the last recorded step took.
    pub fn last_step(&self) -> Duration {
        self.last_step
    }

    /// How many times larger a graph of `size` e-nodes is than the graph the last step
    /// started from (at least 1).
    pub fn growth(&self, size: usize) -> f64 {
        (size as f64 / self.last_size.max(1) as f64).max(1.0)
    }

    /// The predicted duration of a step from a graph of `size` e-nodes: the last step's,
    /// scaled by how the graph has grown since that step started.
    pub fn predicted_step(&self, size: usize) -> Duration {
        self.last_step.mul_f64(self.growth(size))
    }

    /// Whether `steps` steps of the predicted duration, from a graph of `size` e-nodes,
    /// would end past the limit.
    pub fn would_overrun(&self, size: usize, steps: f64) -> bool {
        self.elapsed() + self.predicted_step(size).mul_f64(steps) > self.limit
    }

    /// Records a step that started from `size_before` e-nodes and took `took`.
    pub fn record_step(&mut self, size_before: usize, took: Duration) {
        self.last_step = took;
        self.last_size = size_before;
    }
}
