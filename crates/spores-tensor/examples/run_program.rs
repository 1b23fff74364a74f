//! Runs a tensor program file like `spores tensor`, `REPEAT` times, and prints per-run
//! optimization and execution times plus a checksum (sum of stored values) of each output;
//! used by the benchmarks in bench/tensor/ (it avoids building the whole `spores` binary).
//!
//! `run_program [--optimizer greedy|exact|naive] [--repeat N] [--explain] PROGRAM NAME=PATH...`
//!
//! Output lines: `run<TAB>k<TAB>optimize_ms<TAB>execute_ms` (execution without the input
//! conversion to fibertrees, which is reported once as `convert<TAB>ms`), then
//! `output<TAB>NAME<TAB>stored<TAB>sum<TAB>stored_sum` (the sum over all cells, and over the
//! stored ones: a result whose fill is not 0, `sigmoid` of a sparse sum, is checked by the
//! latter).

use std::collections::HashMap;
use std::path::Path;
use std::process::ExitCode;

use spores_tensor::driver::{explain_physical, Optimizer, RunOptions};
use spores_tensor::io::read_tensor;
use spores_tensor::parse::parse_program;

fn main() -> ExitCode {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut options = RunOptions::default();
    let mut repeat = 1usize;
    let take = |flag: &str, args: &mut Vec<String>| -> Option<String> {
        let k = args.iter().position(|a| a == flag)?;
        let v = args.get(k + 1).cloned();
        args.drain(k..(k + 2).min(args.len()));
        v
    };
    if let Some(o) = take("--optimizer", &mut args) {
        match o.parse::<Optimizer>() {
            Ok(o) => options.optimizer = o,
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
        }
    }
    if let Some(r) = take("--repeat", &mut args) {
        repeat = r.parse().unwrap_or(1);
    }
    let explain = args.iter().any(|a| a == "--explain");
    args.retain(|a| a != "--explain");
    let Some(program_path) = args.first().cloned() else {
        eprintln!(
            "usage: run_program [--optimizer O] [--repeat N] [--explain] PROGRAM NAME=PATH..."
        );
        return ExitCode::from(2);
    };
    let src = match std::fs::read_to_string(&program_path) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: cannot read {program_path}: {e}");
            return ExitCode::from(2);
        }
    };
    let parsed = match parse_program(&src) {
        Ok(p) => p,
        Err(e) => {
            eprint!("{}", e.render(&program_path, &src));
            return ExitCode::from(2);
        }
    };
    let mut inputs = HashMap::new();
    for a in &args[1..] {
        let Some((name, path)) = a.split_once('=') else {
            eprintln!("error: expected NAME=PATH, got `{a}`");
            return ExitCode::from(2);
        };
        match read_tensor(Path::new(path)) {
            Ok(t) => {
                let t = match parsed.fill_of(name) {
                    Some(f) => t.with_fill(f),
                    None => t,
                };
                inputs.insert(name.to_string(), t);
            }
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
        }
    }
    let mut last = None;
    for k in 0..repeat {
        match spores_tensor::run(&parsed.program, &inputs, &options) {
            Ok((out, report)) => {
                if k == 0 {
                    for note in &report.notes {
                        eprintln!("note: {note}");
                    }
                    println!("convert\t{:.3}", report.exec.convert.as_secs_f64() * 1e3);
                    if explain {
                        eprintln!(
                            "{}\n{}\n{report}",
                            report.logical,
                            explain_physical(&report.physical)
                        );
                    }
                }
                println!(
                    "run\t{k}\t{:.3}\t{:.3}",
                    report.optimize_time().as_secs_f64() * 1e3,
                    (report.exec_time - report.exec.convert).as_secs_f64() * 1e3
                );
                last = Some(out);
            }
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(1);
            }
        }
    }
    if let Some(out) = last {
        for name in &parsed.program.outputs {
            let t = &out[name];
            // Sum over all cells: stored values plus the fill times the unstored cells.
            let cells: f64 = t.dims().iter().map(|&d| d as f64).product();
            let stored: f64 = t.values().iter().sum();
            let sum = stored + t.fill() * (cells - t.nnz() as f64);
            println!("output\t{name}\t{}\t{sum:.12e}\t{stored:.12e}", t.nnz());
        }
    }
    ExitCode::SUCCESS
}
