//! Writing output files atomically: a reader never sees a half-written MLIR file, and an
//! existing file keeps its permissions and symbolic links.

use std::path::Path;

/// Writes `text` to a temporary file next to `path`, syncs it and renames it over `path`
/// (see [`spores_exec::io::atomic::write_atomic`]). The error names the path.
pub fn write_atomic(path: &Path, text: &str) -> Result<(), String> {
    spores_exec::io::atomic::write_atomic(path, |w| w.write_all(text.as_bytes()))
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}
