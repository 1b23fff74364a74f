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
}

impl Stats {
    pub fn record(&mut self, op: &str, elapsed: Duration) {
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
