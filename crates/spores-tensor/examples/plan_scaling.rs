//! Planning time of a sum of N aggregates, `s = sum[i,j](A[i,j]) + ... + sum[i,j](A[i,j])`,
//! over examples/tensor/graph.mtx (whose entries sum to 18, so `s = 18 N`): how the logical
//! optimizer's time grows with the number of terms of a query.
//!
//! `plan_scaling [--optimizer greedy|exact] [N...]` (default N: 100 200 400 800)
//!
//! Output lines: `N<TAB>logical_ms<TAB>physical_ms<TAB>s`.

use std::collections::HashMap;
use std::path::Path;
use std::process::ExitCode;

use spores_tensor::driver::{Optimizer, RunOptions};
use spores_tensor::io::read_tensor;
use spores_tensor::parse::parse_program;

fn main() -> ExitCode {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut options = RunOptions::default();
    if let Some(k) = args.iter().position(|a| a == "--optimizer") {
        let Some(o) = args.get(k + 1).map(|o| o.parse::<Optimizer>()) else {
            eprintln!("error: --optimizer needs a value");
            return ExitCode::from(2);
        };
        match o {
            Ok(o) => options.optimizer = o,
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
        }
        args.drain(k..k + 2);
    }
    let sizes: Vec<usize> = if args.is_empty() {
        vec![100, 200, 400, 800]
    } else {
        match args.iter().map(|a| a.parse()).collect() {
            Ok(sizes) => sizes,
            Err(e) => {
                eprintln!("error: expected numbers of terms: {e}");
                return ExitCode::from(2);
            }
        }
    };
    let graph = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/tensor/graph.mtx");
    let a = match read_tensor(&graph) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(1);
        }
    };
    let inputs = HashMap::from([("A".to_string(), a)]);
    for n in sizes {
        let src = format!("s = {}\n", vec!["sum[i,j](A[i,j])"; n].join(" + "));
        let program = match parse_program(&src) {
            Ok(p) => p.program,
            Err(e) => {
                eprint!("{}", e.render("<generated>", &src));
                return ExitCode::from(2);
            }
        };
        match spores_tensor::run(&program, &inputs, &options) {
            Ok((out, report)) => {
                let s: f64 = out["s"].values().iter().sum();
                println!(
                    "{n}\t{:.1}\t{:.1}\t{s}",
                    report.logical_time.as_secs_f64() * 1e3,
                    report.physical_time.as_secs_f64() * 1e3
                );
            }
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(1);
            }
        }
    }
    ExitCode::SUCCESS
}
