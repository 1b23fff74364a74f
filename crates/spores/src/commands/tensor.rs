//! `spores tensor PROGRAM --input NAME=PATH ...`: parse a tensor program, read its inputs,
//! optimize, run (on the local engine, or the logical plan on a relational engine with
//! `--engine datafusion`), and print (or write) the outputs.

use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use spores_tensor::driver::{explain_physical, EstimatorChoice, Optimizer, RunOptions, RunReport};
use spores_tensor::io::{read_tensor, write_tensor};
use spores_tensor::logical::diagonal::lower_repeated_indices;
use spores_tensor::parse::parse_program;
use spores_tensor::CooTensor;

use super::EXIT_USAGE;
use spores_dml::engine::RelationalEngine;

/// Outputs with at most this many stored entries are printed in full.
const PRINT_ENTRIES: usize = 20;

#[derive(Clone, Debug, Default)]
pub struct TensorArgs {
    pub program: PathBuf,
    /// `(NAME, PATH)` pairs.
    pub inputs: Vec<(String, PathBuf)>,
    pub optimizer: Optimizer,
    pub estimator: EstimatorChoice,
    pub explain: bool,
    pub stats: bool,
    /// Write every non-scalar output here (`NAME.mtx` for order 1-2, `NAME.tns` above).
    pub out_dir: Option<PathBuf>,
    /// Runs the optimized logical plan (Galley's aggregation order) on this engine instead
    /// of the local fibertree engine.
    pub engine: Option<Arc<dyn RelationalEngine>>,
}

/// Runs the command; returns the exit code (0 ok, 1 failed while running, 2 usage/parse).
pub fn tensor(args: &TensorArgs, out: &mut dyn Write, err: &mut dyn Write) -> u8 {
    match run(args, out, err) {
        Ok(()) => 0,
        Err((code, msg)) => {
            let _ = write!(err, "{msg}");
            if !msg.ends_with('\n') {
                let _ = writeln!(err);
            }
            code
        }
    }
}

type Failure = (u8, String);

fn run(args: &TensorArgs, out: &mut dyn Write, err: &mut dyn Write) -> Result<(), Failure> {
    let usage = |m: String| (EXIT_USAGE, format!("error: {m}"));
    let failed = |m: String| (1u8, format!("error: {m}"));
    let path = args.program.display().to_string();
    let src = std::fs::read_to_string(&args.program)
        .map_err(|e| usage(format!("cannot read {path}: {e}")))?;
    let parsed = parse_program(&src).map_err(|e| (EXIT_USAGE, e.render(&path, &src)))?;

    // The inputs the program reads.
    let mut needed: Vec<String> = vec![];
    for q in &parsed.program.queries {
        q.expr.for_each_access(&mut |a| {
            if let spores_tensor::plan_ast::Expr::Input { tensor, .. } = a {
                if !needed.contains(tensor) {
                    needed.push(tensor.clone());
                }
            }
        });
    }
    let mut inputs: HashMap<String, CooTensor> = HashMap::new();
    for (name, p) in &args.inputs {
        if !needed.contains(name) {
            return Err(usage(format!(
                "--input {name}: the program reads no input named `{name}`"
            )));
        }
        let mut t = read_tensor(p).map_err(|e| usage(e.to_string()))?;
        if let Some(fill) = parsed.fill_of(name) {
            t = t.with_fill(fill);
        }
        inputs.insert(name.clone(), t);
    }
    for name in &needed {
        if !inputs.contains_key(name) {
            return Err(usage(format!(
                "input `{name}` is not given (pass --input {name}=PATH)"
            )));
        }
    }
    parsed
        .check_integer_inputs(&inputs)
        .map_err(|e| usage(e.to_string()))?;
    // With NumPy's integer semantics where inputs are declared `int`.
    let to_run = parsed.to_run();
    let options = RunOptions {
        optimizer: args.optimizer,
        estimator: args.estimator,
    };
    let (outputs, report) = match &args.engine {
        None => {
            spores_tensor::run(&to_run, &inputs, &options).map_err(|e| failed(e.to_string()))?
        }
        Some(engine) => {
            // Accesses that repeat an index read diagonals, extracted before planning.
            let lowered =
                lower_repeated_indices(&to_run, &inputs).map_err(|e| failed(e.to_string()))?;
            let (program, inputs) = match &lowered {
                Some(l) => (&l.program, &l.inputs),
                None => (&to_run, &inputs),
            };
            let mut report = RunReport::default();
            report.physical = spores_tensor::driver::plan(program, inputs, &options, &mut report)
                .map_err(|e| failed(e.to_string()))?;
            let t = Instant::now();
            let outputs = engine
                .run_tensor_plan(&report.logical, inputs)
                .map_err(|e| failed(format!("{}: {e}", engine.name())))?;
            report.exec_time = t.elapsed();
            (outputs, report)
        }
    };
    parsed
        .check_integer_outputs(&outputs)
        .map_err(|e| failed(e.to_string()))?;

    // `--stats` prints the notes inside its summary; otherwise they go to stderr here.
    if !args.stats {
        for note in &report.notes {
            let _ = writeln!(err, "note: {note}");
        }
    }
    let w = |e: std::io::Error| (1u8, format!("error: cannot write output: {e}"));
    if args.explain {
        writeln!(out, "-- logical plan\n{}", report.logical).map_err(w)?;
        if !report.estimates.is_empty() {
            writeln!(out, "-- estimated non-fill entries (result, body)").map_err(w)?;
            for (name, nnz_out, nnz_body) in &report.estimates {
                writeln!(out, "{name}: {nnz_out:.0}, {nnz_body:.0}").map_err(w)?;
            }
            writeln!(out).map_err(w)?;
        }
        match &args.engine {
            None => writeln!(
                out,
                "-- physical plan\n{}",
                explain_physical(&report.physical)
            ),
            Some(engine) => writeln!(
                out,
                "-- {}: each query of the logical plan as one relational query\n",
                engine.name()
            ),
        }
        .map_err(w)?;
    }
    for name in &parsed.program.outputs {
        let t = &outputs[name];
        if t.order() == 0 {
            writeln!(out, "{name} = {}", t.values()[0]).map_err(w)?;
            continue;
        }
        writeln!(
            out,
            "{name}: dims {:?}, fill {}, {} entries (0-based coordinates)",
            t.dims(),
            t.fill(),
            t.nnz()
        )
        .map_err(w)?;
        for (c, v) in t.iter().take(PRINT_ENTRIES) {
            let c: Vec<String> = c.iter().map(|x| x.to_string()).collect();
            writeln!(out, "  ({}) {v}", c.join(",")).map_err(w)?;
        }
        if t.nnz() > PRINT_ENTRIES && args.out_dir.is_none() {
            writeln!(
                out,
                "  ... ({} more; use -o DIR to write them)",
                t.nnz() - PRINT_ENTRIES
            )
            .map_err(w)?;
        }
        if let Some(dir) = &args.out_dir {
            std::fs::create_dir_all(dir)
                .map_err(|e| failed(format!("cannot create {}: {e}", dir.display())))?;
            let ext = if t.order() <= 2 { "mtx" } else { "tns" };
            let file = dir.join(format!("{name}.{ext}"));
            write_tensor(t, &file).map_err(|e| failed(e.to_string()))?;
            writeln!(out, "  written to {}", file.display()).map_err(w)?;
        }
    }
    if args.stats {
        write!(out, "-- stats\n{report}").map_err(w)?;
    }
    Ok(())
}
