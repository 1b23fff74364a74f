//! Atomic file replacement that keeps what the user set up: a reader never sees a
//! half-written file, an existing file keeps its permissions (a `0600` file is not
//! replaced by a `0644` one), and a symbolic link stays a link while the file it points
//! to is replaced.

use std::fs::{self, File};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// The file a write to `path` replaces: `path` itself, or the file its chain of symbolic
/// links ends at (which need not exist yet).
fn resolve_links(path: &Path) -> std::io::Result<PathBuf> {
    let mut current = path.to_path_buf();
    for _ in 0..40 {
        match fs::symlink_metadata(&current) {
            Ok(m) if m.file_type().is_symlink() => {
                let target = fs::read_link(&current)?;
                current = match current.parent() {
                    Some(dir) if target.is_relative() => dir.join(target),
                    _ => target,
                };
            }
            _ => return Ok(current),
        }
    }
    Err(std::io::Error::other("too many levels of symbolic links"))
}

/// Runs `body` on a buffered writer over a temporary file next to the file `path` names
/// (through symbolic links), gives it the permissions of the file it replaces, fsyncs it
/// and renames it over that file. On any failure the temporary file is removed.
pub fn write_atomic(
    path: &Path,
    body: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    write_atomic_file(path, |w| body(w))
}

/// [`write_atomic`] for a body that needs the writer's type (one that must be `Send`,
/// such as Parquet's file writer).
pub fn write_atomic_file(
    path: &Path,
    body: impl FnOnce(&mut BufWriter<File>) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let target = resolve_links(path)?;
    let file_name = target
        .file_name()
        .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a file path"))?;
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let mut tmp_name = std::ffi::OsString::from(".");
    tmp_name.push(file_name);
    tmp_name.push(format!(
        ".tmp.{}.{}",
        std::process::id(),
        TEMP_COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let tmp = dir.join(tmp_name);
    let existing = fs::metadata(&target).ok().filter(|m| m.is_file());
    let result = (|| -> std::io::Result<()> {
        let file = File::create(&tmp)?;
        // Before any content is written: a private file's data is never readable by others.
        if let Some(m) = &existing {
            file.set_permissions(m.permissions())?;
        }
        let mut w = BufWriter::with_capacity(1 << 20, file);
        body(&mut w)?;
        let file = w.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        drop(file);
        fs::rename(&tmp, &target)?;
        // Make the rename itself durable; not every platform can open a directory.
        if let Ok(d) = File::open(&dir) {
            let _ = d.sync_all();
        }
        Ok(())
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::{symlink, PermissionsExt};

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("spores-atomic-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_private_file_stays_private() {
        let dir = scratch("mode");
        let path = dir.join("secret.csv");
        fs::write(&path, "old").unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).unwrap();
        write_atomic(&path, |w| w.write_all(b"new")).unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "new");
        let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_link_stays_a_link_and_its_target_is_written() {
        let dir = scratch("link");
        let real = dir.join("real.mtx");
        fs::write(&real, "old").unwrap();
        let link = dir.join("link.mtx");
        symlink("real.mtx", &link).unwrap();
        write_atomic(&link, |w| w.write_all(b"new")).unwrap();
        assert!(fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(fs::read_to_string(&real).unwrap(), "new");
        // A dangling link is written through too: the file it names is created.
        let dangling = dir.join("dangling.mtx");
        symlink("created.mtx", &dangling).unwrap();
        write_atomic(&dangling, |w| w.write_all(b"x")).unwrap();
        assert_eq!(fs::read_to_string(dir.join("created.mtx")).unwrap(), "x");
        // Nothing is left behind.
        let names: Vec<_> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 4, "{names:?}");
        fs::remove_dir_all(&dir).unwrap();
    }
}
