//! Counts subgraph queries on a data graph with the tensor engine, one line per query:
//! `query<TAB>count<TAB>optimize_ms<TAB>execute_ms<TAB>convert_ms`.
//!
//! `cargo run --release -p spores-tensor --example subgraph_count -- [--optimizer naive|greedy|exact] [--parallel-after MS] [--explain] GRAPH QUERY...`
//!
//! The graph is read once. Per query: planning time (optimize), the kernels' time (execute)
//! and, separately, the conversion of the inputs from COO to fibertrees (convert) — the
//! analogue of loading tables into a database, which the DuckDB side does before timing.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use spores_tensor::driver::Optimizer;
use spores_tensor::io::subgraph::{read_data_graph, read_query_graph};
use spores_tensor::{run, RunOptions};

fn main() -> ExitCode {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut options = RunOptions::default();
    if let Some(k) = args.iter().position(|a| a == "--optimizer") {
        match args.get(k + 1).map(|s| s.parse::<Optimizer>()) {
            Some(Ok(o)) => options.optimizer = o,
            _ => {
                eprintln!("error: --optimizer takes naive, greedy or exact");
                return ExitCode::from(2);
            }
        }
        args.drain(k..k + 2);
    }
    // `--parallel-after MS`: serial start of each kernel's outermost loop before it is split
    // across threads (`engine::exec::set_parallel_after`; a huge value keeps one thread).
    if let Some(k) = args.iter().position(|a| a == "--parallel-after") {
        match args.get(k + 1).map(|s| s.parse::<f64>()) {
            Some(Ok(ms)) if ms >= 0.0 => spores_tensor::engine::exec::set_parallel_after(
                std::time::Duration::from_secs_f64((ms / 1e3).min(1e9)),
            ),
            _ => {
                eprintln!("error: --parallel-after takes milliseconds (a number >= 0)");
                return ExitCode::from(2);
            }
        }
        args.drain(k..k + 2);
    }
    let explain = args.iter().any(|a| a == "--explain");
    args.retain(|a| a != "--explain");
    if args.len() < 2 {
        eprintln!("usage: subgraph_count [--optimizer O] GRAPH QUERY...");
        return ExitCode::from(2);
    }
    let graph = match read_data_graph(Path::new(&args[0])) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let stdout = std::io::stdout();
    for qpath in &args[1..] {
        let result = read_query_graph(Path::new(qpath)).and_then(|q| {
            let program = q.program()?;
            let inputs = graph.inputs_for(&q);
            run(&program, &inputs, &options)
        });
        match result {
            Ok((out, report)) => {
                if explain {
                    eprintln!(
                        "{}\n{}\n{report}",
                        report.logical,
                        spores_tensor::driver::explain_physical(&report.physical)
                    );
                }
                let mut w = stdout.lock();
                let _ = writeln!(
                    w,
                    "{qpath}\t{}\t{:.3}\t{:.3}\t{:.3}",
                    out["count"].values()[0],
                    report.optimize_time().as_secs_f64() * 1e3,
                    (report.exec_time - report.exec.convert).as_secs_f64() * 1e3,
                    report.exec.convert.as_secs_f64() * 1e3
                );
                let _ = w.flush();
            }
            Err(e) => {
                eprintln!("error: {qpath}: {e}");
                return ExitCode::from(1);
            }
        }
    }
    ExitCode::SUCCESS
}
