//! The one e-graph runner of spores: the loop, the limits, the time safety net and the stop
//! reason of every search, shared by the LA optimizer (`spores-opt`) and the MLIR optimizer
//! (`spores-mlir`).
//!
//! A search is bounded by a budget of work (iterations and e-nodes), counted, so that the
//! same input always gets the same search; the wall clock is a safety net above it. An
//! optimizer says what one iteration is by implementing [`Search`] (step its rulesets once,
//! report whether anything changed); the [`Runner`] owns the loop around it and decides,
//! before each step and after it, whether to go on, and why not ([`StopReason`]):
//!
//! * before a step: the iteration budget; the growth prediction (the next step is predicted
//!   to grow the graph as much as the last one did: stop when that lands past
//!   [`Runner::with_overshoot`] times the node budget, rather than pay for a step only to
//!   undo it); the time safety net, when the next step and the work that follows it
//!   ([`Runner::with_steps_after`] step-times of it) are predicted to end past the limit;
//! * after a step: a stop the search reported itself (it may check between rulesets), the
//!   node budget (the graph may overshoot it by one step), saturation.
//!
//! The [`Clock`] holds the safety net and predicts whether a next step still fits under it,
//! from how long the last step took and how much the graph has grown since that step
//! started, so that the limit holds within a step too, not only between steps. Each step is
//! recorded ([`Iteration`]: sizes before and after, time, matches) for logs and statistics.
//! A runner may run several searches in turn (the MLIR optimizer's stages): the iteration
//! budget is per run, the clock and the records are shared.
//!
//! ```
//! use std::time::Duration;
//! use spores_extract::runner::{Runner, Search, StepContext, StepOutcome, StopReason};
//!
//! /// A toy e-graph that doubles each step until it has 64 e-nodes, then stops changing.
//! struct Doubling(usize);
//!
//! impl Search for Doubling {
//!     type Error = std::convert::Infallible;
//!     fn size(&self) -> usize {
//!         self.0
//!     }
//!     fn step(&mut self, _: &StepContext) -> Result<StepOutcome, Self::Error> {
//!         let updated = self.0 < 64;
//!         if updated {
//!             self.0 *= 2;
//!         }
//!         Ok(StepOutcome { updated, can_stop: true, matches: self.0 / 2, stopped: None })
//!     }
//! }
//!
//! // Enough budget: 1 -> 64 in six steps, and a seventh that changes nothing.
//! let mut runner = Runner::new().with_iter_limit(10).with_node_limit(1_000);
//! assert_eq!(runner.run(&mut Doubling(1)), Ok(StopReason::Saturated));
//! assert_eq!(runner.iterations().len(), 7);
//! assert_eq!(runner.iterations()[0].size_after, 2);
//!
//! // A node budget of 20: the step to 32 overshoots it, and the runner stops after it.
//! let mut runner = Runner::new().with_iter_limit(10).with_node_limit(20);
//! assert_eq!(runner.run(&mut Doubling(1)), Ok(StopReason::NodeLimit));
//! assert_eq!(runner.iterations().last().unwrap().size_after, 32);
//!
//! // ... and predicting the growth, it stops before that step: 16 e-nodes that last
//! // doubled are predicted to become 32, past 1.5 times the budget.
//! let mut runner = Runner::new()
//!     .with_iter_limit(10)
//!     .with_node_limit(20)
//!     .with_overshoot(1.5);
//! assert_eq!(runner.run(&mut Doubling(1)), Ok(StopReason::NodeLimit));
//! assert_eq!(runner.iterations().last().unwrap().size_after, 16);
//! assert!(runner.stop_detail().unwrap().contains("last growth 2.0x"));
//!
//! // The iteration budget is counted per run; the time limit is only the safety net.
//! let mut runner = Runner::new()
//!     .with_iter_limit(3)
//!     .with_node_limit(1_000)
//!     .with_time_limit(Duration::from_secs(60));
//! assert_eq!(runner.run(&mut Doubling(1)), Ok(StopReason::IterLimit));
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
    /// A step found more matches than the work budget lets one step find.
    MatchLimit,
    /// The wall-clock safety net stopped the search before its work budget did.
    TimeLimit,
}

impl std::fmt::Display for StopReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            StopReason::Saturated => "saturated",
            StopReason::IterLimit => "work budget (iterations)",
            StopReason::NodeLimit => "work budget (e-nodes)",
            StopReason::MatchLimit => "work budget (matches)",
            StopReason::TimeLimit => "time safety net",
        })
    }
}

/// The wall clock of one search: its time limit, and the last step's duration and starting
/// size, from which the next step's duration is predicted.
///
/// ```
/// use std::time::{Duration, Instant};
/// use spores_extract::runner::Clock;
///
/// let mut clock = Clock::new(Instant::now(), Duration::from_secs(1));
/// // A step from 100 to 300 e-nodes took 200 ms: the next one, from 300, is predicted to
/// // take three times as long (the graph tripled since the last step started), so it no
/// // longer fits.
/// clock.record_step(100, Duration::from_millis(200));
/// assert_eq!(clock.predicted_step(300), Duration::from_millis(600));
/// assert!(clock.would_overrun(300, 2.0));
/// ```
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

    /// When the limit passes (`None` without a limit).
    pub fn deadline(&self) -> Option<Instant> {
        self.started.checked_add(self.limit)
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

/// One step of a search, as the runner recorded it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Iteration {
    /// The graph's size ([`Search::size`]) before and after the step.
    pub size_before: usize,
    pub size_after: usize,
    /// How long the step took.
    pub time: Duration,
    /// The matches the step fired, as the search counted them ([`StepOutcome::matches`]).
    pub matches: usize,
}

/// What a search sees of the runner when it steps.
#[derive(Clone, Copy, Debug)]
pub struct StepContext<'r> {
    /// This step's number over all runs of the runner, from 1.
    pub iteration: usize,
    /// The graph's size before the step ([`Search::size`]).
    pub size: usize,
    /// How many times the last step grew the graph (its size after over its size before;
    /// 1 before the first step): the growth the next step is predicted to repeat.
    pub growth: f64,
    /// The node budget: a search that steps several rulesets checks it between them.
    pub node_limit: usize,
    /// The time safety net: a search that steps several rulesets checks
    /// [`Clock::expired`] between them.
    pub clock: &'r Clock,
}

/// What one step did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StepOutcome {
    /// Whether the step changed the graph.
    pub updated: bool,
    /// Whether the search may stop when nothing changed (a scheduler holding back matches
    /// says it may not).
    pub can_stop: bool,
    /// The matches the step fired (for the records; 0 when the search does not count them).
    pub matches: usize,
    /// A limit the search hit within the step (between rulesets, say): the run stops with
    /// it.
    pub stopped: Option<StopReason>,
}

/// One iteration of an e-graph search, which a [`Runner`] runs until saturation or a
/// limit.
pub trait Search {
    type Error;

    /// The graph's size, in the unit of the node budget.
    fn size(&self) -> usize;

    /// Runs one iteration.
    fn step(&mut self, ctx: &StepContext) -> Result<StepOutcome, Self::Error>;
}

/// Runs [`Search`]es under a work budget and the time safety net (see the module
/// documentation). Built with `with_*` methods; every limit is off (unbounded) unless set.
#[derive(Clone, Debug)]
pub struct Runner {
    iter_limit: usize,
    node_limit: usize,
    time_limit: Duration,
    overshoot: Option<f64>,
    steps_after: f64,
    started: Option<Instant>,
    clock: Option<Clock>,
    iterations: Vec<Iteration>,
    stop_detail: Option<String>,
}

impl Default for Runner {
    fn default() -> Self {
        Runner::new()
    }
}

impl Runner {
    /// A runner without limits: set them with the `with_*` methods.
    pub fn new() -> Runner {
        Runner {
            iter_limit: usize::MAX,
            node_limit: usize::MAX,
            time_limit: Duration::MAX,
            overshoot: None,
            steps_after: 1.0,
            started: None,
            clock: None,
            iterations: Vec::new(),
            stop_detail: None,
        }
    }

    /// Iterations per run.
    pub fn with_iter_limit(mut self, iterations: usize) -> Runner {
        self.iter_limit = iterations;
        self
    }

    /// The node budget: a run stops after a step that leaves more than `nodes` (in the
    /// unit of [`Search::size`]).
    pub fn with_node_limit(mut self, nodes: usize) -> Runner {
        self.node_limit = nodes;
        self
    }

    /// The time safety net, counted from [`Runner::with_start`] over all runs.
    pub fn with_time_limit(mut self, limit: Duration) -> Runner {
        self.time_limit = limit;
        self
    }

    /// When the time limit is counted from (by default, the start of the first run).
    pub fn with_start(mut self, started: Instant) -> Runner {
        self.started = Some(started);
        self
    }

    /// Predicts growth: a step is not started when the graph, grown by the factor the last
    /// step grew it, would have more than `factor` times the node budget. Off by default.
    pub fn with_overshoot(mut self, factor: f64) -> Runner {
        self.overshoot = Some(factor);
        self
    }

    /// How much work follows a step, in units of the step's own time, that must still fit
    /// under the time limit (1 by default: the step alone). The LA optimizer fuses and
    /// raises the graph after its last step, which costs about three more steps' time.
    pub fn with_steps_after(mut self, steps: f64) -> Runner {
        self.steps_after = steps;
        self
    }

    /// The steps taken so far, over all runs.
    pub fn iterations(&self) -> &[Iteration] {
        &self.iterations
    }

    /// Why the last run stopped before a step when a prediction stopped it (growth or
    /// time), for the log.
    pub fn stop_detail(&self) -> Option<&str> {
        self.stop_detail.as_deref()
    }

    /// The clock (from the first run on; `None` before it).
    pub fn clock(&self) -> Option<&Clock> {
        self.clock.as_ref()
    }

    /// Steps `search` until it saturates or a limit stops it; the error of a failed step
    /// is returned as is.
    pub fn run<S: Search>(&mut self, search: &mut S) -> Result<StopReason, S::Error> {
        self.stop_detail = None;
        let (started, limit) = (self.started, self.time_limit);
        let clock = self
            .clock
            .get_or_insert_with(|| Clock::new(started.unwrap_or_else(Instant::now), limit));
        let mut iterations = 0;
        loop {
            if iterations >= self.iter_limit {
                return Ok(StopReason::IterLimit);
            }
            let size = search.size();
            // The next step is predicted to grow the graph as much as the last one did.
            let growth = self
                .iterations
                .last()
                .map_or(1.0, |last| size as f64 / last.size_before.max(1) as f64);
            if let Some(factor) = self.overshoot {
                if size as f64 * growth > self.node_limit as f64 * factor {
                    self.stop_detail = Some(format!(
                        "stopping before iteration {}: {size} e-nodes, last growth {growth:.1}x",
                        self.iterations.len() + 1
                    ));
                    return Ok(StopReason::NodeLimit);
                }
            }
            if clock.would_overrun(size, self.steps_after) {
                self.stop_detail = Some(format!(
                    "stopping before iteration {}: the next steps are predicted to take {:?}",
                    self.iterations.len() + 1,
                    clock.predicted_step(size).mul_f64(self.steps_after)
                ));
                return Ok(StopReason::TimeLimit);
            }
            iterations += 1;
            let ctx = StepContext {
                iteration: self.iterations.len() + 1,
                size,
                growth,
                node_limit: self.node_limit,
                clock,
            };
            let step_started = Instant::now();
            let outcome = search.step(&ctx)?;
            let took = step_started.elapsed();
            clock.record_step(size, took);
            let size_after = search.size();
            self.iterations.push(Iteration {
                size_before: size,
                size_after,
                time: took,
                matches: outcome.matches,
            });
            if let Some(reason) = outcome.stopped {
                return Ok(reason);
            }
            if size_after > self.node_limit {
                return Ok(StopReason::NodeLimit);
            }
            if !outcome.updated && outcome.can_stop {
                return Ok(StopReason::Saturated);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A toy search: each step multiplies the size by `factor` while it is below
    /// `fixpoint`; a step that changes nothing saturates.
    struct Toy {
        size: usize,
        factor: usize,
        fixpoint: usize,
        steps: usize,
    }

    impl Toy {
        fn new(size: usize, factor: usize, fixpoint: usize) -> Toy {
            Toy {
                size,
                factor,
                fixpoint,
                steps: 0,
            }
        }
    }

    impl Search for Toy {
        type Error = String;
        fn size(&self) -> usize {
            self.size
        }
        fn step(&mut self, ctx: &StepContext) -> Result<StepOutcome, String> {
            self.steps += 1;
            assert_eq!(ctx.iteration, self.steps);
            assert_eq!(ctx.size, self.size);
            let updated = self.size < self.fixpoint;
            if updated {
                self.size *= self.factor;
            }
            Ok(StepOutcome {
                updated,
                can_stop: true,
                matches: 1,
                stopped: None,
            })
        }
    }

    /// Runs a toy from `size` that multiplies by `factor` up to 1,000.
    fn grow(r: &mut Runner, size: usize, factor: usize) -> StopReason {
        r.run(&mut Toy::new(size, factor, 1_000)).unwrap()
    }

    fn runner() -> Runner {
        Runner::new()
            .with_iter_limit(100)
            .with_node_limit(1_000)
            .with_time_limit(Duration::from_secs(600))
    }

    #[test]
    fn saturation_stops_after_a_step_that_changes_nothing() {
        let mut r = runner();
        let mut toy = Toy::new(1, 2, 8);
        assert_eq!(r.run(&mut toy), Ok(StopReason::Saturated));
        let sizes: Vec<_> = r
            .iterations()
            .iter()
            .map(|i| (i.size_before, i.size_after))
            .collect();
        assert_eq!(sizes, [(1, 2), (2, 4), (4, 8), (8, 8)]);
        assert_eq!(r.stop_detail(), None);
    }

    #[test]
    fn a_search_that_cannot_stop_yet_is_stepped_again() {
        struct Held(usize);
        impl Search for Held {
            type Error = ();
            fn size(&self) -> usize {
                1
            }
            fn step(&mut self, _: &StepContext) -> Result<StepOutcome, ()> {
                self.0 += 1;
                Ok(StepOutcome {
                    can_stop: self.0 >= 3,
                    ..StepOutcome::default()
                })
            }
        }
        let mut r = runner();
        assert_eq!(r.run(&mut Held(0)), Ok(StopReason::Saturated));
        assert_eq!(r.iterations().len(), 3);
    }

    #[test]
    fn the_iteration_budget_is_per_run() {
        let mut r = runner().with_iter_limit(2);
        assert_eq!(grow(&mut r, 1, 2), StopReason::IterLimit);
        assert_eq!(r.iterations().len(), 2);
        // A second run gets its own two iterations; the records go on.
        let mut second = Toy::new(1, 2, 100);
        second.steps = 2;
        assert_eq!(r.run(&mut second), Ok(StopReason::IterLimit));
        assert_eq!(r.iterations().len(), 4);
        let mut none = Runner::new().with_iter_limit(0);
        assert_eq!(grow(&mut none, 1, 2), StopReason::IterLimit);
        assert!(none.iterations().is_empty());
    }

    #[test]
    fn the_node_budget_stops_after_the_step_that_passes_it() {
        let mut r = runner().with_node_limit(50);
        assert_eq!(grow(&mut r, 1, 3), StopReason::NodeLimit);
        // 1, 3, 9, 27, 81: the step to 81 passes 50 and is the last.
        assert_eq!(r.iterations().last().unwrap().size_after, 81);
        assert_eq!(r.iterations().len(), 4);
        // Exactly at the budget is within it.
        let mut r = runner().with_node_limit(27);
        assert_eq!(r.run(&mut Toy::new(1, 3, 27)), Ok(StopReason::Saturated));
    }

    #[test]
    fn the_growth_prediction_stops_before_a_step_predicted_to_overshoot() {
        // Sizes 1, 3, 9: at 9 after tripling, the next step is predicted to reach 27, past
        // 1.5 times a budget of 12, so it does not start (without the prediction it would,
        // and the run would stop after it, at 27).
        let mut r = runner().with_node_limit(12).with_overshoot(1.5);
        assert_eq!(grow(&mut r, 1, 3), StopReason::NodeLimit);
        assert_eq!(r.iterations().last().unwrap().size_after, 9);
        assert_eq!(
            r.stop_detail(),
            Some("stopping before iteration 3: 9 e-nodes, last growth 3.0x")
        );
        let mut r = runner().with_node_limit(12);
        assert_eq!(grow(&mut r, 1, 3), StopReason::NodeLimit);
        assert_eq!(r.iterations().last().unwrap().size_after, 27);
        // Before the first step the growth is 1: a graph already past the factor does not
        // step at all.
        let mut r = runner().with_node_limit(10).with_overshoot(2.0);
        assert_eq!(grow(&mut r, 21, 3), StopReason::NodeLimit);
        assert!(r.iterations().is_empty());
    }

    #[test]
    fn the_time_safety_net_stops_before_a_step() {
        // A limit already passed: no step starts.
        let started = Instant::now() - Duration::from_millis(20);
        let mut r = runner()
            .with_start(started)
            .with_time_limit(Duration::from_millis(1));
        assert_eq!(grow(&mut r, 1, 2), StopReason::TimeLimit);
        assert!(r.iterations().is_empty());
        assert!(r.clock().unwrap().expired());
        assert!(r
            .stop_detail()
            .unwrap()
            .starts_with("stopping before iteration 1: the next steps are predicted"));
    }

    #[test]
    fn the_time_safety_net_predicts_the_next_step_from_the_last() {
        /// Each step takes 30 ms.
        struct Slow;
        impl Search for Slow {
            type Error = ();
            fn size(&self) -> usize {
                1
            }
            fn step(&mut self, _: &StepContext) -> Result<StepOutcome, ()> {
                std::thread::sleep(Duration::from_millis(30));
                Ok(StepOutcome {
                    updated: true,
                    ..StepOutcome::default()
                })
            }
        }
        // After one 30 ms step, four more steps' time (120 ms) do not fit in 100 ms.
        let mut r = runner()
            .with_time_limit(Duration::from_millis(100))
            .with_steps_after(4.0);
        assert_eq!(r.run(&mut Slow), Ok(StopReason::TimeLimit));
        assert_eq!(r.iterations().len(), 1);
        assert!(r.iterations()[0].time >= Duration::from_millis(30));
    }

    #[test]
    fn a_stop_the_search_reports_ends_the_run_and_errors_pass_through() {
        struct Stops(Option<StopReason>);
        impl Search for Stops {
            type Error = &'static str;
            fn size(&self) -> usize {
                1
            }
            fn step(&mut self, ctx: &StepContext) -> Result<StepOutcome, &'static str> {
                if ctx.iteration == 2 {
                    return Err("failed");
                }
                Ok(StepOutcome {
                    updated: true,
                    stopped: self.0,
                    ..StepOutcome::default()
                })
            }
        }
        let mut r = runner();
        let stopped = r.run(&mut Stops(Some(StopReason::TimeLimit)));
        assert_eq!(stopped, Ok(StopReason::TimeLimit));
        assert_eq!(r.iterations().len(), 1);
        assert_eq!(runner().run(&mut Stops(None)), Err("failed"));
    }
}
