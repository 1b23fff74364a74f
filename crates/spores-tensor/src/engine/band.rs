//! Dense copies of a sparse tensor's last mode over the band its coordinates occupy.
//!
//! A dimension table of a star join, stored as a block of a wider feature matrix (supplier
//! features in columns 0..4 of 20, part features in 4..10, ...), is sparse as a whole but
//! dense inside its band. The scan fast path ([`super::scan`]) reads one row of such a table
//! per fact-table entry; through the sorted-list level that is a dependent chain
//! `ptr[p] → idx[..] → vals[..]` per row, three cache misses in a row when the rows are hit
//! at random (the covariance benchmark's `X` kernel spent most of its time there). The band
//! copy stores row `p` at `p * width`, so a row's address follows from its parent position
//! alone and the loads of consecutive entries overlap.

use super::fibertree::{FiberTensor, FILL};
use crate::plan_ast::LevelFormat;

/// Band copies larger than this many cells are not made (the sparse rows are read instead).
const MAX_BAND_CELLS: usize = 1 << 24;

/// The band `lo..lo + width` of the last mode, dense for every parent position of the last
/// level (cells outside the stored coordinates hold the tensor's fill).
#[derive(Clone, Debug)]
pub struct Band {
    pub lo: usize,
    pub width: usize,
    pub vals: Vec<f64>,
}

impl Band {
    /// The band copy of `t`'s last level, when that level is sparse (not Dense), its stored
    /// coordinates fill at least half of the band over all parents, and the copy is at most
    /// [`MAX_BAND_CELLS`] and `max_cells` (the caller's budget: a copy should not cost more
    /// than the reads it saves); `None` otherwise.
    pub fn of(t: &FiberTensor, max_cells: usize) -> Option<Band> {
        let m = t.order();
        let last = t.levels.last()?;
        if last.format == LevelFormat::Dense || last.idx.is_empty() {
            return None;
        }
        let parents = if m == 1 { 1 } else { t.levels[m - 2].positions };
        if last.ptr.len() != parents + 1 {
            return None;
        }
        let lo = *last.idx.iter().min()? as usize;
        let hi = *last.idx.iter().max()? as usize + 1;
        let width = hi - lo;
        let cells = parents.checked_mul(width)?;
        if cells > MAX_BAND_CELLS.min(max_cells) || cells > 2 * last.idx.len() {
            return None;
        }
        let mut vals = vec![t.fill; cells];
        for p in 0..parents {
            for (k, &c) in last.fiber(p).iter().enumerate() {
                vals[p * width + c as usize - lo] = t.vals[last.child(p, k, c)];
            }
        }
        Some(Band { lo, width, vals })
    }

    /// Asks the CPU to start loading row `p` (a hint: the scan requests each row when it
    /// queues the entry and copies it a batch later, so the random row loads of a batch
    /// overlap instead of each stalling its copy).
    #[inline]
    pub fn prefetch(&self, p: usize) {
        #[cfg(target_arch = "x86_64")]
        if p != FILL {
            if let Some(v) = self.vals.get(p * self.width) {
                // SAFETY: a prefetch never faults and changes no state; the address is a
                // cell of `vals` anyway.
                #[allow(unused_unsafe)]
                unsafe {
                    use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
                    _mm_prefetch::<_MM_HINT_T0>((v as *const f64).cast());
                }
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = p;
    }

    /// Writes the full last-mode row of parent position `p` (or of a missing parent,
    /// [`FILL`]) into `row` (`row.len()` = the mode's dimension).
    #[inline]
    pub fn fill_row(&self, row: &mut [f64], p: usize, fill: f64) {
        if p == FILL {
            row.fill(fill);
            return;
        }
        let (lo, w) = (self.lo, self.width);
        row[..lo].fill(fill);
        row[lo..lo + w].copy_from_slice(&self.vals[p * w..(p + 1) * w]);
        row[lo + w..].fill(fill);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tensor::CooTensor;

    #[test]
    fn a_block_of_columns_is_copied_and_rows_read_back_in_full() {
        // Rows 0..3 store columns 2..4 (one missing cell), row 1 is empty; 6 columns.
        let entries = vec![
            (vec![0, 2], 1.0),
            (vec![0, 3], 2.0),
            (vec![2, 2], 3.0),
            (vec![2, 3], 4.0),
            (vec![3, 3], 5.0),
        ];
        let coo = CooTensor::from_entries(vec![4, 6], entries, 0.0).unwrap();
        for f in [
            LevelFormat::SortedList,
            LevelFormat::Hash,
            LevelFormat::Bytemap,
        ] {
            let t = FiberTensor::from_coo(&coo, &[LevelFormat::Dense, f]);
            let band = Band::of(&t, usize::MAX).expect("half full band");
            assert_eq!((band.lo, band.width), (2, 2));
            let mut row = vec![9.0; 6];
            for r in 0..4u32 {
                band.fill_row(&mut row, r as usize, 0.0);
                let want: Vec<f64> = (0..6u32).map(|c| t.get(&[r, c])).collect();
                assert_eq!(row, want, "{f:?} row {r}");
            }
            band.fill_row(&mut row, FILL, 0.0);
            assert_eq!(row, vec![0.0; 6]);
        }
    }

    #[test]
    fn scattered_columns_and_dense_levels_get_no_band() {
        let entries = (0..10u32).map(|i| (vec![i, (i * 37) % 100], 1.0)).collect();
        let coo = CooTensor::from_entries(vec![10, 100], entries, 0.0).unwrap();
        let t = FiberTensor::from_coo(&coo, &[LevelFormat::Dense, LevelFormat::SortedList]);
        assert!(Band::of(&t, usize::MAX).is_none());
        // A full 4 x 2 band (8 cells) is copied within a budget of 8 cells, not of 7.
        let entries = (0..8u32).map(|k| (vec![k / 2, k % 2], 1.0)).collect();
        let full = FiberTensor::from_coo(
            &CooTensor::from_entries(vec![4, 2], entries, 0.0).unwrap(),
            &[LevelFormat::Dense, LevelFormat::SortedList],
        );
        assert!(Band::of(&full, 8).is_some());
        assert!(Band::of(&full, 7).is_none());
        let dense = FiberTensor::dense(&[2, 2], vec![1.0; 4], 0.0);
        assert!(Band::of(&dense, usize::MAX).is_none());
    }
}
