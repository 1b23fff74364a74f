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
    write_atomic_file(path, None, |w| body(w))
}

/// [`write_atomic`] of a file known to take at least `bytes`: when the filesystem that
/// will hold it has less free space, fails with [`std::io::ErrorKind::StorageFull`]
/// before anything is created, instead of filling the disk and failing on the way.
pub fn write_atomic_sized(
    path: &Path,
    bytes: f64,
    body: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    write_atomic_file(path, Some(bytes), |w| body(w))
}

/// [`write_atomic`] (or, with `bytes`, [`write_atomic_sized`]) for a body that needs the
/// writer's type (one that must be `Send`, such as Parquet's file writer).
pub fn write_atomic_file(
    path: &Path,
    bytes: Option<f64>,
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
    if let Some(needed) = bytes {
        ensure_free_space(&dir, needed)?;
    }
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

/// Fails when the filesystem holding `dir` has less than `needed` bytes free for this
/// user. The file is written whole beside the one it replaces, so the old file's space
/// does not count. Where the platform does not tell, nothing is checked.
fn ensure_free_space(dir: &Path, needed: f64) -> std::io::Result<()> {
    match free_space(dir) {
        Some(free) if needed > free as f64 => Err(std::io::Error::new(
            std::io::ErrorKind::StorageFull,
            format!(
                "the file needs at least {}, more than the {} free on its filesystem",
                crate::memory::human(needed),
                crate::memory::human(free as f64)
            ),
        )),
        _ => Ok(()),
    }
}

/// Bytes an unprivileged user may still write to the filesystem holding `dir`
/// (`statvfs`: available blocks times the fragment size).
#[cfg(unix)]
pub fn free_space(dir: &Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt;
    let c_path = std::ffi::CString::new(dir.as_os_str().as_bytes()).ok()?;
    let mut stats = std::mem::MaybeUninit::<libc::statvfs>::uninit();
    // SAFETY: `c_path` is a NUL-terminated string that outlives the call, and `stats`
    // points to writable memory of the struct's size, which statvfs fills on success.
    let status = unsafe { libc::statvfs(c_path.as_ptr(), stats.as_mut_ptr()) };
    if status != 0 {
        return None;
    }
    // SAFETY: statvfs returned 0, so it initialized the struct.
    let stats = unsafe { stats.assume_init() };
    // The fields' types differ between Unix platforms (32-bit block counts on some).
    #[allow(clippy::unnecessary_cast)]
    let (blocks, size) = (stats.f_bavail as u64, stats.f_frsize as u64);
    Some(blocks.saturating_mul(size))
}

/// Not known on this platform.
#[cfg(not(unix))]
pub fn free_space(_dir: &Path) -> Option<u64> {
    None
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
