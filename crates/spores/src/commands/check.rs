//! `spores check`: parse DML files and load the files they source, running nothing.

use std::io::Write;
use std::path::PathBuf;

use spores_dml::runtime::library::Library;

use super::EXIT_USAGE;

/// Checks each file; prints `FILE: ok` or the file's first error (with its position) to
/// `err`. Returns 0 when every file loads, [`EXIT_USAGE`] otherwise.
pub fn check(files: &[PathBuf], err: &mut dyn Write) -> u8 {
    let mut failed = 0;
    for path in files {
        let name = path.display().to_string();
        let source = match std::fs::read_to_string(path) {
            Ok(s) => s,
            Err(e) => {
                let _ = writeln!(err, "error: cannot read {name}: {e}");
                failed += 1;
                continue;
            }
        };
        let loaded = spores_lang::parse(&source).and_then(|program| {
            let library = Library::new(&program, path.parent().map(|d| d.to_path_buf()), None);
            library.load_main_sources(&program)
        });
        match loaded {
            Ok(()) => {
                let _ = writeln!(err, "{name}: ok");
            }
            Err(d) => {
                let _ = write!(err, "{}", d.render_in(&name, &source));
                failed += 1;
            }
        }
    }
    let _ = writeln!(
        err,
        "{} of {} files load",
        files.len() - failed,
        files.len()
    );
    if failed == 0 {
        0
    } else {
        EXIT_USAGE
    }
}
