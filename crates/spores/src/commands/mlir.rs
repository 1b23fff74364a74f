//! `spores mlir opt`: optimize an MLIR file with user-written egglog rules (DialEgg-style).

use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use spores_mlir::egg::{optimize_with, Extractor, OptOptions, OptStats, Rules, RulesFile};
use spores_mlir::{load, print, LoadOptions, PrintOptions};

use super::EXIT_USAGE;

/// MLIR subcommands.
#[derive(clap::Subcommand)]
pub enum MlirCommand {
    /// Rewrite an MLIR file with egglog rules and a cost model; print (or write) the cheapest
    /// equivalent program in generic form.
    Opt(MlirOptArgs),
}

/// Flags of `spores mlir opt`.
#[derive(clap::Args, Clone, Debug)]
pub struct MlirOptArgs {
    /// The MLIR file (custom syntax is normalized with mlir-opt-19).
    pub input: PathBuf,
    /// egglog declarations, rewrite rules and costs, added to the shipped prelude.
    #[arg(long, value_name = "RULES.egg")]
    pub rules: Option<PathBuf>,
    /// Write the result here (atomically) instead of standard output.
    #[arg(short, long, value_name = "OUT.mlir")]
    pub output: Option<PathBuf>,
    /// Print the timing breakdown and e-graph statistics to standard error.
    #[arg(long)]
    pub stats: bool,
    /// Stop saturating after this many iterations (of each ruleset stage).
    #[arg(long, default_value_t = 100)]
    pub iter_limit: usize,
    /// Stop saturating when the e-graph holds this many tuples.
    #[arg(long, default_value_t = 2_000_000)]
    pub node_limit: usize,
    /// Stop saturating after this many milliseconds.
    #[arg(long, default_value_t = 10_000)]
    pub time_limit_ms: u64,
    /// `greedy`, or `ilp[:MS]` (minimum DAG cost within MS milliseconds, default 500, then
    /// greedy).
    #[arg(long, default_value = "greedy")]
    pub extractor: String,
}

/// Runs a subcommand; returns the exit code (0 ok, 1 optimization failed, 2 usage/input).
pub fn mlir(cmd: &MlirCommand, out: &mut dyn Write, err: &mut dyn Write) -> u8 {
    match cmd {
        MlirCommand::Opt(args) => mlir_opt(args, out, err),
    }
}

/// `spores mlir opt`.
pub fn mlir_opt(args: &MlirOptArgs, out: &mut dyn Write, err: &mut dyn Write) -> u8 {
    let extractor = match args.extractor.parse::<Extractor>() {
        Ok(e) => e,
        Err(e) => {
            let _ = writeln!(err, "error: {e}");
            return EXIT_USAGE;
        }
    };
    // The rule file is checked as `spores optimize` and `spores run` check theirs.
    let rules = match &args.rules {
        Some(p) => Rules::read(p),
        None => RulesFile::from_text("", "no rules")
            .map(Rules::from)
            .map_err(Into::into),
    };
    let rules = match rules {
        Ok(rules) => rules,
        Err(e) => {
            let _ = writeln!(err, "error: {e}");
            return EXIT_USAGE;
        }
    };
    let module = match load(&args.input, &LoadOptions::default()) {
        Ok(m) => m,
        Err(e) => {
            let _ = writeln!(err, "error: {e}");
            return EXIT_USAGE;
        }
    };
    let opts = OptOptions {
        iter_limit: args.iter_limit,
        node_limit: args.node_limit,
        time_limit: Duration::from_millis(args.time_limit_ms),
        extractor,
    };
    let (result, stats) = match optimize_with(&module, &rules, &opts) {
        Ok(r) => r,
        Err(e) => {
            let _ = writeln!(err, "error: {e}");
            return 1;
        }
    };
    if stats.stop != spores_mlir::egg::StopReason::Saturated {
        let limit = match stats.stop {
            spores_mlir::egg::StopReason::IterLimit => {
                format!("iteration limit ({})", args.iter_limit)
            }
            spores_mlir::egg::StopReason::NodeLimit => {
                format!("size limit ({} e-nodes)", args.node_limit)
            }
            spores_mlir::egg::StopReason::MatchLimit => format!(
                "size limit ({} e-nodes), which bounds the matches of one step too,",
                args.node_limit
            ),
            _ => format!("time limit ({} ms)", args.time_limit_ms),
        };
        let _ = writeln!(
            err,
            "note: saturation stopped at the {limit} after {} iterations; the program is the cheapest found so far",
            stats.iterations
        );
    }
    let text = print(&result, PrintOptions::default());
    if let Some(path) = &args.output {
        if let Err(e) = spores_mlir::output::write_atomic(path, &text) {
            let _ = writeln!(err, "error: {e}");
            return 1;
        }
    } else if out.write_all(text.as_bytes()).is_err() {
        return 1;
    }
    if args.stats {
        let _ = write_stats(err, &stats);
    }
    0
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1e3)
}

/// The paper's Table 2 columns, plus what saturation did.
pub fn write_stats(w: &mut dyn Write, s: &OptStats) -> std::io::Result<()> {
    writeln!(
        w,
        "ops: {} -> {} ({} as terms, {} kept in place; {} declared ops)",
        s.ops_before, s.ops_after, s.term_ops, s.anchor_ops, s.declared_ops
    )?;
    writeln!(
        w,
        "saturation: {} iterations, stopped by {:?}; {} e-nodes in {} op classes",
        s.iterations, s.stop, s.enodes, s.eclasses
    )?;
    writeln!(
        w,
        "blocks: {} optimized, {} printed as written; cost {}",
        s.blocks_optimized, s.blocks_fallback, s.cost
    )?;
    writeln!(w, "time: rules {} | MLIR->egglog {} | saturation {} | extraction {} | egglog->MLIR {} | total {}",
        ms(s.load_rules), ms(s.to_egglog), ms(s.saturation), ms(s.extraction), ms(s.to_mlir), ms(s.total()))
}
