//! Run statistics for `spores run --stats`, in the spirit of SystemDS's `-stats`.

use std::collections::HashMap;
use std::fmt::Write;
use std::time::Duration;

#[derive(Clone, Debug, Default)]
pub struct Stats {
    /// Parsing, lowering and optimizing.
    pub compile: Duration,
    /// Number of blocks compiled (lowered and optimized).
    pub blocks_compiled: usize,
    /// Time and count per operator name.
    pub ops: HashMap<String, (Duration, u64)>,
    /// Time the optimizer spent on each block it optimized (part of `compile`).
    pub optimize_times: Vec<Duration>,
}

impl Stats {
    pub fn record(&mut self, op: &str, elapsed: Duration) {
        log::debug!("ran {op} in {elapsed:?}");
        let entry = self.ops.entry(op.to_string()).or_default();
        entry.0 += elapsed;
        entry.1 += 1;
    }

    /// The report: total, compile and execute time (total less compile), then the `top` heaviest operators.
    pub fn report(&self, total: Duration, top: usize) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "spores statistics:");
        let _ = writeln!(out, "Total elapsed time:\t{:.3} sec.", total.as_secs_f64());
        let _ = writeln!(
            out,
            "Total compilation time:\t{:.3} sec.",
            self.compile.as_secs_f64()
        );
        let _ = writeln!(
            out,
            "Total execution time:\t{:.3} sec.",
            total.saturating_sub(self.compile).as_secs_f64()
        );
        let _ = writeln!(out, "Blocks compiled:\t{}", self.blocks_compiled);
        if !self.optimize_times.is_empty() {
            let mut ms: Vec<f64> = self
                .optimize_times
                .iter()
                .map(|d| d.as_secs_f64() * 1e3)
                .collect();
            ms.sort_by(f64::total_cmp);
            let _ = writeln!(
                out,
                "Blocks optimized:\t{} (median {:.2} ms, max {:.2} ms)",
                ms.len(),
                ms[ms.len() / 2],
                ms[ms.len() - 1]
            );
        }
        let mut ops: Vec<_> = self.ops.iter().collect();
        ops.sort_by(|a, b| b.1 .0.cmp(&a.1 .0).then(a.0.cmp(b.0)));
        let _ = writeln!(out, "Heavy hitter operators:");
        let _ = writeln!(
            out,
            " #  {:<16} {:>12} {:>10}",
            "Operator", "Time(s)", "Count"
        );
        for (rank, (name, (time, count))) in ops.into_iter().take(top).enumerate() {
            let _ = writeln!(
                out,
                "{:>2}  {:<16} {:>12.6} {:>10}",
                rank + 1,
                name,
                time.as_secs_f64(),
                count
            );
        }
        out
    }
}
