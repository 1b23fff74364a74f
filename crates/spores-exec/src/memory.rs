//! The memory budget: results that cannot fit are refused with a clear error before
//! anything is allocated, instead of the allocator aborting the process.
//!
//! The budget defaults to the smallest of the machine's physical memory (Linux's
//! `/proc/meminfo`), the process's address-space limit (`ulimit -v`, read from
//! `/proc/self/limits`) and its control group's memory limit (a container's), and can be
//! set once per process ([`set_budget`], `spores run --memory`). Operators that allocate a
//! result whose size their operands do not bound (a dense `rows x cols` matrix,
//! `matrix(0, rows, cols)`, `X + 1` on a huge sparse `X`, a product's dense result), the
//! readers (a file's declared size) and the tensor engine call [`ensure_fits`] first.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::{ExecError, Result};

/// 0 means "not set": use the physical memory or the process's limits.
static BUDGET: AtomicU64 = AtomicU64::new(0);

/// Sets the budget in bytes for the rest of the process.
pub fn set_budget(bytes: u64) {
    BUDGET.store(bytes.max(1), Ordering::Relaxed);
}

/// The budget in bytes: what [`set_budget`] set, else the smallest of the physical memory,
/// the address-space limit and the memory limit of the process's control group, else
/// (platforms that tell none) the largest allocation Rust allows.
pub fn budget() -> f64 {
    match BUDGET.load(Ordering::Relaxed) {
        0 => [address_space_limit(), cgroup_memory_limit()]
            .into_iter()
            .flatten()
            .fold(physical_memory().unwrap_or(isize::MAX as f64), f64::min),
        set => set as f64,
    }
}

/// The memory limit of the process's control group (a container's or a service's), where
/// one is set and the platform tells (Linux's cgroup v2 `memory.max` or v1
/// `memory.limit_in_bytes`): past it the kernel kills the process, so a result may take at
/// most three quarters of it, as of an address-space limit.
pub fn cgroup_memory_limit() -> Option<f64> {
    static LIMIT: std::sync::OnceLock<Option<f64>> = std::sync::OnceLock::new();
    *LIMIT.get_or_init(|| {
        let groups = std::fs::read_to_string("/proc/self/cgroup").ok()?;
        let file = cgroup_limit_file(&groups)?;
        parse_cgroup_limit(&std::fs::read_to_string(file).ok()?).map(|bytes| 0.75 * bytes)
    })
}

/// The file holding the memory limit of the cgroup a `/proc/self/cgroup` text names: v1's
/// `memory` controller line, else v2's unified line.
fn cgroup_limit_file(groups: &str) -> Option<String> {
    let line = |wanted: &str| {
        groups.lines().find_map(|l| {
            let mut parts = l.splitn(3, ':');
            let (_, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
            (controllers == wanted || controllers.split(',').any(|c| c == wanted))
                .then(|| path.trim_end_matches('/').to_string())
        })
    };
    match line("memory") {
        Some(path) => Some(format!("/sys/fs/cgroup/memory{path}/memory.limit_in_bytes")),
        None => line("").map(|path| format!("/sys/fs/cgroup{path}/memory.max")),
    }
}

/// A cgroup memory limit file's value in bytes; `None` for `max` or v1's "unlimited"
/// (a page-rounded `i64::MAX`).
fn parse_cgroup_limit(text: &str) -> Option<f64> {
    let bytes: f64 = text.trim().parse().ok()?;
    (bytes < (1u64 << 60) as f64).then_some(bytes)
}

/// The process's address-space limit in bytes (`ulimit -v`), where one is set and the
/// platform tells (Linux's `/proc/self/limits`). The program's own code and stacks live
/// in the same space, so a result may take at most three quarters of it.
pub fn address_space_limit() -> Option<f64> {
    static LIMIT: std::sync::OnceLock<Option<f64>> = std::sync::OnceLock::new();
    *LIMIT.get_or_init(|| {
        let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
        parse_address_space_limit(&limits).map(|bytes| 0.75 * bytes)
    })
}

/// The soft limit of the "Max address space" line of a `/proc/self/limits` text, in
/// bytes; `None` when unlimited or absent.
fn parse_address_space_limit(limits: &str) -> Option<f64> {
    let line = limits
        .lines()
        .find(|l| l.starts_with("Max address space"))?;
    let soft = line
        .trim_start_matches("Max address space")
        .split_whitespace()
        .next()?;
    soft.parse::<f64>().ok()
}

/// Total physical memory in bytes, where the platform tells (Linux's `/proc/meminfo`).
pub fn physical_memory() -> Option<f64> {
    static TOTAL: std::sync::OnceLock<Option<f64>> = std::sync::OnceLock::new();
    *TOTAL.get_or_init(|| {
        let info = std::fs::read_to_string("/proc/meminfo").ok()?;
        let line = info.lines().find(|l| l.starts_with("MemTotal:"))?;
        let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
        Some(kib * 1024.0)
    })
}

/// Fails, naming `what` and the size, when `bytes` exceed the budget or the largest
/// allocation Rust allows.
pub fn ensure_fits(what: &str, bytes: f64) -> Result<()> {
    let limit = budget().min(isize::MAX as f64);
    if bytes > limit {
        return Err(ExecError::OverBudget {
            what: what.to_string(),
            bytes,
            budget: limit,
        });
    }
    Ok(())
}

/// Fails when a dense `rows x cols` matrix of doubles would not fit (see [`ensure_fits`]).
pub fn ensure_dense(what: &str, rows: usize, cols: usize) -> Result<()> {
    ensure_fits(
        &format!("{what}: a dense {rows}x{cols} result"),
        8.0 * rows as f64 * cols as f64,
    )
}

/// Fails when a sparse `rows x cols` result of `entries` stored entries would not fit: a
/// value and a column index per entry, and a row pointer per row however few entries
/// there are (see [`ensure_fits`]).
pub fn ensure_sparse(what: &str, rows: usize, cols: usize, entries: usize) -> Result<()> {
    ensure_fits(
        &format!("{what}: a sparse {rows}x{cols} result with {entries} entries"),
        12.0 * entries as f64 + 8.0 * (rows as f64 + 1.0),
    )
}

/// `1.5 GB`, `8.0e9 GB`: bytes in gigabytes; `67.1 MB` below one gigabyte, where a tenth
/// of a gigabyte would not tell a size from a budget.
pub(crate) fn human(bytes: f64) -> String {
    let gb = bytes / 1e9;
    if gb >= 1e6 {
        format!("{gb:.1e} GB")
    } else if gb >= 1.0 {
        format!("{gb:.1} GB")
    } else {
        format!("{:.1} MB", bytes / 1e6)
    }
}

/// Why a `--memory` value was refused (see [`parse_size`]); each names the text given.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseSizeError {
    /// Not a number with an optional unit.
    #[error("`{0}`: expected a size like 512M or 4G")]
    Malformed(String),
    /// Below one byte, or beyond what a `u64` counts.
    #[error("`{0}`: the size must be at least one byte")]
    OutOfRange(String),
}

/// Parses a `--memory` value: bytes, or a number with `K`, `M`, `G` or `T` (powers of
/// 1024), e.g. `512M`, `4G`.
pub fn parse_size(text: &str) -> std::result::Result<u64, ParseSizeError> {
    let t = text.trim();
    let (number, unit) = match t.char_indices().find(|(_, c)| c.is_ascii_alphabetic()) {
        Some((k, _)) => t.split_at(k),
        None => (t, ""),
    };
    let scale: f64 = match unit.to_ascii_uppercase().trim_end_matches('B') {
        "" => 1.0,
        "K" => 1024.0,
        "M" => 1024.0 * 1024.0,
        "G" => 1024.0 * 1024.0 * 1024.0,
        "T" => 1024.0 * 1024.0 * 1024.0 * 1024.0,
        _ => return Err(ParseSizeError::Malformed(text.to_string())),
    };
    let value: f64 = number
        .trim()
        .parse()
        .map_err(|_| ParseSizeError::Malformed(text.to_string()))?;
    let bytes = value * scale;
    if !(bytes >= 1.0 && bytes < u64::MAX as f64) {
        return Err(ParseSizeError::OutOfRange(text.to_string()));
    }
    Ok(bytes as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_address_space_limit_is_read_from_proc_limits() {
        let unlimited = "Limit                     Soft Limit           Hard Limit           Units\n\
                         Max address space         unlimited            unlimited            bytes\n";
        assert_eq!(super::parse_address_space_limit(unlimited), None);
        let limited = "Max address space         4096000000           unlimited            bytes\n";
        assert_eq!(super::parse_address_space_limit(limited), Some(4.096e9));
        assert_eq!(super::parse_address_space_limit(""), None);
    }

    #[test]
    fn cgroup_limits_are_read_for_v1_and_v2() {
        let v1 = "9:name=systemd:/\n4:memory:/process_api/abc\n0::/\n";
        assert_eq!(
            cgroup_limit_file(v1).as_deref(),
            Some("/sys/fs/cgroup/memory/process_api/abc/memory.limit_in_bytes")
        );
        let v2 = "0::/user.slice/job.scope\n";
        assert_eq!(
            cgroup_limit_file(v2).as_deref(),
            Some("/sys/fs/cgroup/user.slice/job.scope/memory.max")
        );
        assert_eq!(
            cgroup_limit_file("0::/\n").as_deref(),
            Some("/sys/fs/cgroup/memory.max")
        );
        assert_eq!(parse_cgroup_limit("max\n"), None);
        assert_eq!(parse_cgroup_limit("9223372036854771712\n"), None);
        assert_eq!(parse_cgroup_limit("4294967296\n"), Some(4294967296.0));
    }

    #[test]
    fn sizes_parse_with_units() {
        assert_eq!(parse_size("512M"), Ok(512 * 1024 * 1024));
        assert_eq!(parse_size("4g"), Ok(4 * 1024 * 1024 * 1024));
        assert_eq!(parse_size("1000"), Ok(1000));
        assert!(parse_size("lots").is_err());
        assert!(parse_size("0").is_err());
        assert!(parse_size("-5G").is_err());
        assert_eq!(
            parse_size("lots").unwrap_err().to_string(),
            "`lots`: expected a size like 512M or 4G"
        );
        assert_eq!(
            parse_size("0").unwrap_err().to_string(),
            "`0`: the size must be at least one byte"
        );
    }

    #[test]
    fn a_result_beyond_any_memory_is_refused_by_name() {
        let e = ensure_dense("matrix", 1_000_000_000, 1_000_000_000).unwrap_err();
        let text = e.to_string();
        assert!(
            text.contains("matrix: a dense 1000000000x1000000000 result"),
            "{text}"
        );
        assert!(text.contains("8.0e9 GB"), "{text}");
        assert!(ensure_dense("matrix", 100, 100).is_ok());
    }
}
