//! Writing output files atomically: a reader never sees a half-written MLIR file, and an
//! existing file keeps its permissions and symbolic links.

use std::path::{Path, PathBuf};

/// An output file that could not be written.
#[derive(Debug, thiserror::Error)]
#[error("cannot write {}: {source}", path.display())]
pub struct WriteError {
    pub path: PathBuf,
    pub source: std::io::Error,
}

/// Writes `text` to a temporary file next to `path`, syncs it and renames it over `path`
/// (see [`spores_exec::io::atomic::write_atomic`]). The error names the path.
pub fn write_atomic(path: &Path, text: &str) -> Result<(), WriteError> {
    spores_exec::io::atomic::write_atomic(path, |w| w.write_all(text.as_bytes())).map_err(
        |source| WriteError {
            path: path.to_path_buf(),
            source,
        },
    )
}
