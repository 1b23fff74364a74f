//! The engine's results under the process's one memory budget ([`spores_exec::memory`],
//! set by `--memory`). A result whose size is known before it is allocated (a dense output
//! or accumulator, a result's entries once they are counted) asks the budget first
//! ([`ensure_dense`], [`ensure_fits`]); accumulators that grow entry by entry (sorted
//! lists, hash maps) ask before each growth step ([`Held::grow`]). A result past the
//! budget thus ends the kernel with an error naming it and its size, where the allocator
//! would abort the process (`T[i,j] = A[i] * B[j]` over two 10^5-entry vectors has 10^10
//! cells).

use std::sync::atomic::{AtomicU64, Ordering};

use spores_exec::{memory, ExecError};

use crate::engine::fibertree::MAX_DENSE_POSITIONS;
use crate::plan_ast::LevelFormat;
use crate::TensorError;

/// Fails, naming `what` and the size, when `bytes` exceed the memory budget.
pub fn ensure_fits(what: &str, bytes: f64) -> Result<(), TensorError> {
    Ok(memory::ensure_fits(what, bytes)?)
}

/// Fails when kernel `kernel`'s dense result over `dims`, `bytes_per_cell` each (8 for
/// the values, more with a mask beside them), does not fit.
pub fn ensure_dense(kernel: &str, dims: &[usize], bytes_per_cell: f64) -> Result<(), TensorError> {
    let cells: f64 = dims.iter().map(|&d| d as f64).product();
    ensure_fits(
        &format!("kernel {kernel}: a dense {} result", shape(dims)),
        cells * bytes_per_cell,
    )
}

/// `100000x100000`.
fn shape(dims: &[usize]) -> String {
    let dims: Vec<String> = dims.iter().map(ToString::to_string).collect();
    dims.join("x")
}

/// Bytes a result of `entries` stored entries over `dims` takes on its way out of a
/// kernel: sorted coordinates (4 bytes per mode) and values (8), then the fibertree
/// built from them in `formats` (a parent position per entry, 8; coordinates and
/// pointers per level, up to 4 + 8 per mode; the values again, 8), and the slots of its
/// leading Dense or Bytemap levels, which the level below points from (8 bytes each, and
/// a mask byte), however few entries there are.
pub fn sparse_bytes(entries: usize, dims: &[usize], formats: &[LevelFormat]) -> f64 {
    let order = dims.len() as f64;
    let mut slots = 1.0f64;
    for (&dim, format) in dims.iter().zip(formats) {
        let next = slots * dim as f64;
        // Larger dense levels are stored as sorted lists (`FiberTensor::from_sorted`).
        if !matches!(format, LevelFormat::Dense | LevelFormat::Bytemap)
            || next > MAX_DENSE_POSITIONS as f64
        {
            break;
        }
        slots = next;
    }
    entries as f64 * (24.0 + 16.0 * order) + 9.0 * slots
}

/// Bytes of a COO copy of `entries` entries in `order` modes (a program output).
pub fn coo_bytes(entries: usize, order: usize) -> f64 {
    entries as f64 * (8.0 + 4.0 * order as f64)
}

/// The bytes one kernel's accumulators hold, shared by the workers that run it, so that
/// each growth step is asked of the budget together with what the others hold.
#[derive(Debug)]
pub struct Held {
    kernel: String,
    bytes: AtomicU64,
}

impl Held {
    pub fn new(kernel: &str) -> Held {
        Held {
            kernel: kernel.to_string(),
            bytes: AtomicU64::new(0),
        }
    }

    /// The kernel's name, for messages.
    pub fn kernel(&self) -> &str {
        &self.kernel
    }

    /// What the kernel's accumulators hold now.
    pub fn bytes(&self) -> f64 {
        self.bytes.load(Ordering::Relaxed) as f64
    }

    /// Counts `bytes` allocated up front (after [`ensure_fits`] said they fit).
    pub fn charge(&self, bytes: usize) {
        self.bytes.fetch_add(bytes as u64, Ordering::Relaxed);
    }

    /// Counts `bytes` freed (a worker's accumulator merged and dropped).
    pub fn release(&self, bytes: usize) {
        let _ = self
            .bytes
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |b| {
                Some(b.saturating_sub(bytes as u64))
            });
    }

    /// Asks the budget before an accumulator holding `entries` entries in `from` bytes
    /// grows to `to` bytes. While its entries move both allocations are live, on top of
    /// what the kernel's other accumulators hold. The growth is counted before the
    /// question, so two workers growing at once cannot both slip under the budget.
    pub fn grow(&self, from: usize, to: usize, entries: usize) -> Result<(), ExecError> {
        let add = to.saturating_sub(from) as u64;
        let after = self.bytes.fetch_add(add, Ordering::Relaxed) + add;
        memory::ensure_fits(
            &format!(
                "kernel {}: a sparse result of more than {entries} entries",
                self.kernel
            ),
            after as f64 + from as f64,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dense_result_beyond_any_memory_is_refused_by_name_and_size() {
        let e = ensure_dense("T", &[100_000_000, 100_000_000], 8.0).unwrap_err();
        let text = e.to_string();
        assert!(
            text.starts_with(
                "kernel T: a dense 100000000x100000000 result needs about 8.0e7 GB, more than the memory budget of"
            ),
            "{text}"
        );
        assert!(ensure_dense("T", &[10, 10], 8.0).is_ok());
    }

    #[test]
    fn growth_counts_what_the_kernel_holds() {
        let held = Held::new("T");
        held.charge(1000);
        held.grow(0, 24, 1).unwrap();
        assert_eq!(held.bytes(), 1024.0);
        held.release(24);
        assert_eq!(held.bytes(), 1000.0);
        held.release(5000);
        assert_eq!(held.bytes(), 0.0);
        let e = held.grow(16, usize::MAX / 2, 1).unwrap_err().to_string();
        assert!(
            e.starts_with("kernel T: a sparse result of more than 1 entries needs about"),
            "{e}"
        );
    }
}
