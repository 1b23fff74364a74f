//! `spores convert IN OUT`: a matrix file in another format, each format told by its
//! extension (`.mtx`/`.mm`, `.csv`, `.npy`, `.parquet`). The output is written atomically
//! (a temporary file renamed over OUT), so an interrupted conversion leaves no partial
//! file. Matrix Market to Parquet COO is how an input too big for a text format is
//! prepared for `spores run --engine datafusion` (Parquet needs the `datafusion` build).

use std::io::Write;
use std::path::Path;

use spores_exec::io::{read_matrix, write_matrix, Format, ReadOptions, WriteOptions};

use super::EXIT_USAGE;

/// Converts `input` to `output`; prints `OUT: ROWSxCOLS, N non-zeros` to `out`, or the
/// error to `err`. Returns 0, [`EXIT_USAGE`] for a path whose format is unknown, or 1
/// when reading or writing fails.
pub fn convert(input: &Path, output: &Path, out: &mut dyn Write, err: &mut dyn Write) -> u8 {
    let format = |path: &Path| {
        Format::from_path(path).ok_or_else(|| {
            format!(
                "cannot tell the format of `{}` from its extension (.mtx, .mm, .csv, .npy or .parquet)",
                path.display()
            )
        })
    };
    let (from, to) = match (format(input), format(output)) {
        (Ok(from), Ok(to)) => (from, to),
        (Err(e), _) | (_, Err(e)) => {
            let _ = writeln!(err, "error: {e}");
            return EXIT_USAGE;
        }
    };
    let converted = read_matrix(input, from, &ReadOptions::default()).and_then(|m| {
        write_matrix(&m, output, to, &WriteOptions::default())?;
        Ok(m)
    });
    match converted {
        Ok(m) => {
            let _ = writeln!(
                out,
                "{}: {}x{}, {} non-zeros",
                output.display(),
                m.rows(),
                m.cols(),
                m.nnz()
            );
            0
        }
        Err(e) => {
            let _ = writeln!(err, "error: {e}");
            1
        }
    }
}
