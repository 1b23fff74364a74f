//! Writes a seeded synthetic graph (`io::graphgen`) in the data-graph format `spores tensor`,
//! `subgraph_count` and `bench/tensor/graphs.py` read.
//!
//! `cargo run --release -p spores-tensor --example graphgen -- FAMILY VERTICES EDGES OUT [--labels L] [--seed S]`
//!
//! FAMILY is powerlaw, rmat, er or grid; VERTICES and EDGES accept `1e6`-style numbers.

use std::path::Path;
use std::process::ExitCode;

use spores_tensor::io::graphgen::{generate, Family, GraphSpec};

fn count(s: &str, what: &str) -> Result<usize, String> {
    s.parse::<f64>()
        .ok()
        .filter(|v| v.is_finite() && *v >= 0.0 && v.fract() == 0.0 && *v <= u32::MAX as f64)
        .map(|v| v as usize)
        .ok_or_else(|| format!("{what} must be a whole number, not `{s}`"))
}

fn run(mut args: Vec<String>) -> Result<(), String> {
    let mut take = |flag: &str| -> Option<String> {
        let k = args.iter().position(|a| a == flag)?;
        let v = args.get(k + 1).cloned();
        args.drain(k..(k + 2).min(args.len()));
        v
    };
    let labels = take("--labels")
        .map(|s| count(&s, "--labels"))
        .transpose()?;
    let seed = take("--seed").map(|s| count(&s, "--seed")).transpose()?;
    let [family, vertices, edges, out] = args.as_slice() else {
        return Err(
            "usage: graphgen FAMILY VERTICES EDGES OUT [--labels L] [--seed S]".to_string(),
        );
    };
    let mut spec = GraphSpec::new(
        family.parse::<Family>().map_err(|e| e.to_string())?,
        count(vertices, "VERTICES")?,
        count(edges, "EDGES")?,
    );
    spec.labels = labels.unwrap_or(spec.labels);
    spec.seed = seed.map_or(spec.seed, |s| s as u64);
    let g = generate(&spec).map_err(|e| e.to_string())?;
    g.write(Path::new(out)).map_err(|e| e.to_string())?;
    eprintln!("{out}: {} vertices, {} edges", g.vertices, g.edges.len());
    Ok(())
}

fn main() -> ExitCode {
    match run(std::env::args().skip(1).collect()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}
