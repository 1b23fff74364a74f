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
    /// Per block (keyed by the interpreter's block key): where it is, how often it ran,
    /// the optimizer's time on it and its execution time.
    pub blocks: HashMap<super::BlockKey, BlockStats>,
}

/// What one basic block cost, for `--stats`.
#[derive(Clone, Debug, Default)]
pub struct BlockStats {
    /// `file:line` of the block's first statement; for a block of the main script, whose
    /// text the interpreter does not hold, `line` is filled in by [`Stats::place_blocks`].
    pub place: String,
    /// The block's start in the main script (byte offset), when it is there.
    pub main_offset: Option<usize>,
    pub runs: u64,
    /// Time in the optimizer (cache look-ups included).
    pub optimize: Duration,
    /// Time evaluating the block's nodes (a call inside it included).
    pub execute: Duration,
}

/// Blocks listed by `--stats`: the heaviest by optimization plus execution time.
const BLOCKS_SHOWN: usize = 10;

impl Stats {
    pub fn record(&mut self, op: &str, elapsed: Duration) {
        log::debug!("ran {op} in {elapsed:?}");
        let entry = self.ops.entry(op.to_string()).or_default();
        entry.0 += elapsed;
        entry.1 += 1;
    }

    /// Names the blocks of the main script `name:line`, given its text.
    pub fn place_blocks(&mut self, name: &str, text: &str) {
        let name = name.rsplit('/').next().unwrap_or(name);
        for b in self.blocks.values_mut() {
            if let Some(offset) = b.main_offset {
                let (line, _) = spores_lang::diag::line_col(text, offset);
                b.place = format!("{name}:{line}");
            }
        }
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
        if self.blocks.values().any(|b| !b.optimize.is_zero()) {
            let mut blocks: Vec<&BlockStats> = self.blocks.values().collect();
            blocks.sort_by(|a, b| {
                (b.optimize + b.execute)
                    .cmp(&(a.optimize + a.execute))
                    .then(a.place.cmp(&b.place))
            });
            let _ = writeln!(out, "Heaviest blocks (optimization beside execution):");
            let _ = writeln!(
                out,
                " #  {:<24} {:>6} {:>12} {:>12}",
                "Block", "Runs", "Optimize(s)", "Execute(s)"
            );
            for (rank, b) in blocks.into_iter().take(BLOCKS_SHOWN).enumerate() {
                let _ = writeln!(
                    out,
                    "{:>2}  {:<24} {:>6} {:>12.6} {:>12.6}",
                    rank + 1,
                    b.place,
                    b.runs,
                    b.optimize.as_secs_f64(),
                    b.execute.as_secs_f64()
                );
            }
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
