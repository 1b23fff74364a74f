//! Loads an MLIR file, prints it in generic form, and checks that the print re-parses equal.
//! Usage: `cargo run -p spores-mlir --example roundtrip -- FILE [--locs]`.

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(path) = args.get(1) else {
        eprintln!("usage: roundtrip FILE [--locs]");
        std::process::exit(2);
    };
    let opts = spores_mlir::LoadOptions {
        keep_locations: args.iter().any(|a| a == "--locs"),
        ..Default::default()
    };
    let m = match spores_mlir::load(path, &opts) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    };
    let text = spores_mlir::print(&m, spores_mlir::PrintOptions::default());
    print!("{text}");
    match spores_mlir::parse(&text) {
        Ok(m2) if m2 == m => eprintln!("round trip: equal"),
        Ok(_) => {
            eprintln!("round trip: DIFFERENT");
            std::process::exit(1);
        }
        Err(e) => {
            eprintln!("re-parse failed: {e}");
            std::process::exit(1);
        }
    }
}
