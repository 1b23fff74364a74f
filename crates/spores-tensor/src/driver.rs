//! The top-level pipeline: program → logical plan → physical plan → execution, timed per
//! phase.

use std::collections::HashMap;
use std::fmt;
use std::time::{Duration, Instant};

use crate::engine::{execute_converted, EngineInputs, ExecReport};
use crate::logical::diagonal::{has_repeated_indices, lower_repeated_indices};
use crate::logical::{naive_plan, LogicalOptions, Search};
use crate::physical::{naive_physical, PhysicalOptions};
use crate::plan_ast::{LogicalPlan, PhysicalPlan, Program};
use crate::stats::{Estimator, InputStats};
use crate::tensor::CooTensor;
use crate::TensorError;

/// The logical/physical optimizer to use.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Optimizer {
    /// Galley's greedy elimination-order search.
    #[default]
    Greedy,
    /// Branch-and-bound over elimination orders.
    Exact,
    /// No optimization: each aggregate where it stands, loops in output-then-reduction order.
    Naive,
}

impl std::str::FromStr for Optimizer {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        use Optimizer::*;
        parse_choice(
            s,
            "optimizer",
            &[("greedy", Greedy), ("exact", Exact), ("naive", Naive)],
        )
    }
}

/// The choice named `s` among `choices`, or an error listing them.
fn parse_choice<T: Copy>(s: &str, what: &str, choices: &[(&str, T)]) -> Result<T, String> {
    if let Some((_, choice)) = choices.iter().find(|(name, _)| *name == s) {
        return Ok(*choice);
    }
    let names: Vec<&str> = choices.iter().map(|(name, _)| *name).collect();
    let (last, rest) = names.split_last().expect("at least one choice");
    Err(format!(
        "unknown {what} `{s}` ({} or {last})",
        rest.join(", ")
    ))
}

/// The sparsity estimator the optimizers use.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum EstimatorChoice {
    Uniform,
    #[default]
    Chain,
}

impl std::str::FromStr for EstimatorChoice {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        use EstimatorChoice::*;
        parse_choice(s, "estimator", &[("uniform", Uniform), ("chain", Chain)])
    }
}

#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    pub optimizer: Optimizer,
    pub estimator: EstimatorChoice,
}

/// What a run did and how long each phase took.
#[derive(Clone, Debug, Default)]
pub struct RunReport {
    pub logical: LogicalPlan,
    pub physical: PhysicalPlan,
    /// Estimated non-fill entries of each logical query's result and body (optimizers only).
    pub estimates: Vec<(String, f64, f64)>,
    /// Time to collect the input statistics (degree counts), not part of optimization:
    /// like a database's table statistics, they are computed once per input.
    pub stats_time: Duration,
    pub logical_time: Duration,
    pub physical_time: Duration,
    /// Input conversion to fibertrees plus all kernels.
    pub exec_time: Duration,
    pub exec: ExecReport,
    /// Things the user should know (e.g. an optimizer that is not available).
    pub notes: Vec<String>,
}

impl RunReport {
    pub fn optimize_time(&self) -> Duration {
        self.logical_time + self.physical_time
    }
}

/// Plans `program` for `inputs` (shapes and, for the optimizers, statistics). A program
/// whose accesses repeat an index is lowered first with
/// [`lower_repeated_indices`](crate::logical::diagonal::lower_repeated_indices) (which
/// [`run`] does), and planned with the inputs the lowering gives.
pub fn plan(
    program: &Program,
    inputs: &HashMap<String, CooTensor>,
    options: &RunOptions,
    report: &mut RunReport,
) -> Result<PhysicalPlan, TensorError> {
    if has_repeated_indices(program) {
        return Err(TensorError::Invalid(
            "the program repeats an index in an access: lower it with \
             logical::diagonal::lower_repeated_indices before planning"
                .into(),
        ));
    }
    let estimator = match options.estimator {
        EstimatorChoice::Uniform => Estimator::Uniform,
        EstimatorChoice::Chain => Estimator::Chain,
    };
    let search = match options.optimizer {
        Optimizer::Naive => {
            let t0 = Instant::now();
            let logical = naive_plan(program)?;
            report.logical_time = t0.elapsed();
            let t1 = Instant::now();
            let dims = |n: &str| inputs.get(n).map(|t| t.dims().to_vec());
            let physical = naive_physical(&logical, &dims)?;
            report.physical_time = t1.elapsed();
            report.logical = logical;
            return Ok(physical);
        }
        Optimizer::Greedy => Search::Greedy,
        Optimizer::Exact => Search::Exact,
    };
    let t = Instant::now();
    let stats = InputStats::from_tensors(inputs);
    report.stats_time = t.elapsed();
    let t0 = Instant::now();
    let logical_options = LogicalOptions {
        search,
        estimator,
        ..Default::default()
    };
    let explained = crate::logical::optimize_explained(program, &stats, &logical_options)?;
    report.logical_time = t0.elapsed();
    if let Some(note) = explained.budget_note() {
        report.notes.push(note.to_string());
    }
    report.estimates = explained
        .estimates
        .iter()
        .map(|e| (e.name.clone(), e.nnz_out, e.nnz_body))
        .collect();
    // Semijoin reduction of the intermediates the elimination order materializes.
    let (logical, _moved) =
        crate::logical::pushdown::push_filters(&explained.plan, &stats, &explained.result_stats);
    // Single-term sums taken into their consumers (the network's hidden layer).
    let (logical, _fused) = crate::logical::fuse::fuse_single_terms(&logical, &stats);
    report.logical_time = t0.elapsed();
    let t1 = Instant::now();
    let physical_options = PhysicalOptions {
        estimator,
        ..Default::default()
    };
    let physical = crate::physical::optimize(&logical, &stats, &physical_options)?;
    report.physical_time = t1.elapsed();
    log::info!(
        "tensor program planned: logical {:?}, physical {:?}, {} kernels",
        report.logical_time,
        report.physical_time,
        physical.queries.len()
    );
    report.logical = logical;
    Ok(physical)
}

/// Optimizes and runs `program`; returns its outputs by name and the report.
pub fn run(
    program: &Program,
    inputs: &HashMap<String, CooTensor>,
    options: &RunOptions,
) -> Result<(HashMap<String, CooTensor>, RunReport), TensorError> {
    let lowered = lower_repeated_indices(program, inputs)?;
    let (program, inputs) = match &lowered {
        Some(l) => (&l.program, &l.inputs),
        None => (program, inputs),
    };
    let mut report = RunReport::default();
    let physical = plan(program, inputs, options, &mut report)?;
    let t = Instant::now();
    let converted = EngineInputs::from_coo(inputs);
    let convert = t.elapsed();
    let (out, mut exec) = execute_converted(&physical, &converted)?;
    exec.convert = convert;
    report.exec_time = t.elapsed();
    report.exec = exec;
    report.physical = physical;
    Ok((out, report))
}

impl fmt::Display for RunReport {
    /// The `--stats` summary.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        writeln!(
            f,
            "optimize: {:.3} ms (logical {:.3} ms, physical {:.3} ms)",
            ms(self.optimize_time()),
            ms(self.logical_time),
            ms(self.physical_time)
        )?;
        writeln!(f, "input statistics: {:.3} ms", ms(self.stats_time))?;
        for note in &self.notes {
            writeln!(f, "note: {note}")?;
        }
        writeln!(
            f,
            "execute: {:.3} ms (input conversion {:.3} ms)",
            ms(self.exec_time),
            ms(self.exec.convert)
        )?;
        for (name, t, stored, formats) in &self.exec.kernels {
            let fast = if self.exec.fast_paths.contains(name) {
                " (fixed-kernel fast path)"
            } else if self.exec.scans.contains(name) {
                " (scan fast path)"
            } else {
                ""
            };
            let layout = if self.exec.as_cells.contains(name) {
                "the output's cells (COO)".to_string()
            } else {
                format!("formats {formats:?}")
            };
            writeln!(
                f,
                "  kernel {name}: {:.3} ms, {stored} stored values, {layout}{fast}",
                ms(*t)
            )?;
        }
        Ok(())
    }
}

/// The physical plan as text: one kernel per line with its loop order, the protocol of
/// each access index (`i:it` iterates, `i:lk` looks up) and the output formats.
pub fn explain_physical(plan: &PhysicalPlan) -> String {
    use crate::plan_ast::{LevelFormat, PhysExpr, Protocol};
    fn body(e: &PhysExpr) -> String {
        match e {
            PhysExpr::Literal(v) => format!("{v}"),
            PhysExpr::Access(a) => {
                let idxs: Vec<String> = a
                    .idxs
                    .iter()
                    .zip(&a.protocols)
                    .map(|(i, p)| {
                        let p = match p {
                            Protocol::Iterate => "it",
                            Protocol::Lookup => "lk",
                            Protocol::Gallop => "gal",
                        };
                        format!("{i}:{p}")
                    })
                    .collect();
                if idxs.is_empty() {
                    a.name.clone()
                } else {
                    format!("{}[{}]", a.name, idxs.join(","))
                }
            }
            PhysExpr::Map { op, args } => {
                let args: Vec<String> = args.iter().map(body).collect();
                let infix = matches!(op.arity(), None | Some(2)) && op.name().len() <= 2;
                if infix && args.len() >= 2 {
                    format!("({})", args.join(&format!(" {op} ")))
                } else {
                    format!("{op}({})", args.join(", "))
                }
            }
        }
    }
    let fmt_name = |f: &LevelFormat| match f {
        LevelFormat::Dense => "dense",
        LevelFormat::SortedList => "sorted",
        LevelFormat::Hash => "hash",
        LevelFormat::Bytemap => "bytemap",
    };
    let names = |v: &[crate::plan_ast::Idx]| {
        v.iter()
            .map(|i| i.to_string())
            .collect::<Vec<_>>()
            .join(",")
    };
    let mut out = String::new();
    for q in &plan.queries {
        let formats: Vec<&str> = q.output_formats.iter().map(fmt_name).collect();
        let rhs = match q.agg {
            Some(op) => format!("{op}[{}]({})", names(&q.agg_idxs), body(&q.body)),
            None => body(&q.body),
        };
        out.push_str(&format!(
            "{}[{}] ({}) = {rhs}   loops ({})\n",
            q.name,
            names(&q.output_idxs),
            formats.join(","),
            names(&q.loop_order)
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn choices_parse_by_name_and_errors_list_them() {
        assert_eq!("exact".parse::<Optimizer>(), Ok(Optimizer::Exact));
        assert_eq!(
            "uniform".parse::<EstimatorChoice>(),
            Ok(EstimatorChoice::Uniform)
        );
        assert_eq!(
            "fast".parse::<Optimizer>(),
            Err("unknown optimizer `fast` (greedy, exact or naive)".to_string())
        );
        assert_eq!(
            "Chain".parse::<EstimatorChoice>(),
            Err("unknown estimator `Chain` (uniform or chain)".to_string())
        );
    }
}
