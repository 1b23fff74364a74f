//! The buffers behind matrices: owned, or owned by someone else and read in place.
//!
//! The Python bindings hand NumPy/SciPy arrays to the engine without copying them: a
//! [`Cells`] then points into memory that a [`ForeignSlice`] keeps alive. Reads go through
//! `Deref<Target = [T]>` either way; the first write to foreign cells copies them into an
//! owned buffer, so kernels never write into a caller's array.

use std::fmt;
use std::ops::{Deref, DerefMut};
use std::sync::Arc;

/// Elements owned elsewhere (e.g. a NumPy array), readable as a slice.
///
/// The owner must keep the elements allocated and unchanged while the value exists.
pub trait ForeignSlice<T>: Send + Sync + fmt::Debug {
    fn slice(&self) -> &[T];
}

/// A matrix buffer: a `Vec`, or foreign elements read in place (copy on first write).
#[derive(Clone)]
pub enum Cells<T: 'static> {
    Owned(Vec<T>),
    Foreign(Foreign<T>),
}

/// Foreign elements with their address taken once: kernels read a row at a time, and a
/// dynamic call to [`ForeignSlice::slice`] per read costs as much as a short row.
#[derive(Clone)]
pub struct Foreign<T: 'static> {
    /// Keeps the elements alive; read only through `ptr`.
    _owner: Arc<dyn ForeignSlice<T>>,
    ptr: *const T,
    len: usize,
}

// SAFETY: `ptr` points into memory `owner` keeps allocated and unchanged (the
// `ForeignSlice` contract), and `owner` is itself `Send + Sync`; the elements are only
// read through shared references, which is thread-safe for `T: Sync`.
unsafe impl<T: Sync> Send for Foreign<T> {}
unsafe impl<T: Sync> Sync for Foreign<T> {}

impl<T> Foreign<T> {
    fn slice(&self) -> &[T] {
        // SAFETY: see the `Send`/`Sync` impls: the owner lives as long as `self` and
        // keeps these `len` elements at `ptr`.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
}

impl<T> Cells<T> {
    /// Cells read in place from `owner`.
    pub fn foreign(owner: Arc<dyn ForeignSlice<T>>) -> Self {
        let slice = owner.slice();
        let (ptr, len) = (slice.as_ptr(), slice.len());
        Cells::Foreign(Foreign {
            _owner: owner,
            ptr,
            len,
        })
    }
}

impl<T: Clone> Cells<T> {
    /// The elements as an owned buffer (a copy when they are foreign).
    pub fn into_vec(self) -> Vec<T> {
        match self {
            Cells::Owned(v) => v,
            Cells::Foreign(f) => f.slice().to_vec(),
        }
    }

    pub fn is_foreign(&self) -> bool {
        matches!(self, Cells::Foreign(_))
    }
}

impl<T> Deref for Cells<T> {
    type Target = [T];

    #[inline]
    fn deref(&self) -> &[T] {
        match self {
            Cells::Owned(v) => v,
            Cells::Foreign(f) => f.slice(),
        }
    }
}

impl<T: Clone> DerefMut for Cells<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        if let Cells::Foreign(f) = self {
            *self = Cells::Owned(f.slice().to_vec());
        }
        match self {
            Cells::Owned(v) => v,
            Cells::Foreign(_) => unreachable!("made owned above"),
        }
    }
}

impl<T> From<Vec<T>> for Cells<T> {
    fn from(v: Vec<T>) -> Self {
        Cells::Owned(v)
    }
}

impl<T: PartialEq> PartialEq for Cells<T> {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl<T: fmt::Debug> fmt::Debug for Cells<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        (**self).fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matrix::IndexChecks::{Deferred, Now};
    use crate::matrix::{CsrMatrix, DenseMatrix};
    use std::panic::AssertUnwindSafe;

    /// Foreign elements for the tests: a vector another owner keeps.
    #[derive(Debug)]
    struct Kept<T>(Vec<T>);

    impl<T: fmt::Debug + Send + Sync> ForeignSlice<T> for Kept<T> {
        fn slice(&self) -> &[T] {
            &self.0
        }
    }

    #[test]
    fn foreign_dense_cells_are_read_in_place_and_copied_on_write() {
        let cells: Arc<dyn ForeignSlice<f64>> = Arc::new(Kept(vec![1.0, 2.0, 3.0, 4.0]));
        let mut m = DenseMatrix::from_foreign(2, 2, cells.clone()).unwrap();
        assert!(m.is_foreign());
        assert_eq!(m.data().as_ptr(), cells.slice().as_ptr());
        assert_eq!(m.get(1, 0), 3.0);
        m.set(0, 0, 10.0);
        assert!(!m.is_foreign());
        assert_eq!(m.data(), &[10.0, 2.0, 3.0, 4.0]);
        assert_eq!(cells.slice(), &[1.0, 2.0, 3.0, 4.0]);
        assert!(DenseMatrix::from_foreign(3, 2, cells).is_err());
    }

    #[test]
    fn foreign_csr_arrays_are_validated() {
        let indices: Arc<dyn ForeignSlice<u32>> = Arc::new(Kept(vec![0, 2, 1]));
        let values: Arc<dyn ForeignSlice<f64>> = Arc::new(Kept(vec![1.0, 2.0, 3.0]));
        let m =
            CsrMatrix::from_foreign((2, 3), vec![0, 2, 3], indices, values.clone(), Now).unwrap();
        assert_eq!(m.get(0, 2), 2.0);
        assert_eq!(m.get(1, 1), 3.0);
        assert_eq!(m.values().as_ptr(), values.slice().as_ptr());
        let (_, _, _, idx, vals) = m.into_parts();
        assert_eq!((idx, vals), (vec![0, 2, 1], vec![1.0, 2.0, 3.0]));
        let unsorted: Arc<dyn ForeignSlice<u32>> = Arc::new(Kept(vec![2, 0, 1]));
        assert!(
            CsrMatrix::from_foreign((2, 3), vec![0, 2, 3], unsorted, values.clone(), Now).is_err()
        );
        let out_of_range: Arc<dyn ForeignSlice<u32>> = Arc::new(Kept(vec![0, 3, 1]));
        assert!(CsrMatrix::from_foreign((2, 3), vec![0, 2, 3], out_of_range, values, Now).is_err());
    }

    /// Foreign CSR arrays with the index checks deferred, as the Python bindings read
    /// them (`IndexChecks::Deferred`).
    fn deferred(indices: Vec<u32>, indptr: Vec<usize>) -> crate::Result<CsrMatrix> {
        let n = indices.len();
        let indices: Arc<dyn ForeignSlice<u32>> = Arc::new(Kept(indices));
        let values: Arc<dyn ForeignSlice<f64>> =
            Arc::new(Kept((1..=n).map(|k| k as f64).collect()));
        CsrMatrix::from_foreign((3, 4), indptr, indices, values, Deferred)
    }

    #[test]
    fn deferred_index_checks_give_the_eager_errors_and_guard_every_accessor() {
        let good = deferred(vec![0, 3, 1, 2], vec![0, 2, 2, 4]).unwrap();
        assert!(good.indices_pending());
        assert_eq!(good.get(0, 3), 2.0); // an accessor runs the check, which passes
        assert!(!good.indices_pending());
        let cases = [
            (
                vec![3, 0, 1, 2],
                "invalid CSR input: indices of line 0 are not strictly increasing",
            ),
            (
                vec![0, 3, 2, 2],
                "invalid CSR input: indices of line 2 are not strictly increasing",
            ),
            (
                vec![0, 3, 1, 4],
                "invalid CSR input: index out of range 4 in line 2",
            ),
        ];
        for (indices, message) in cases {
            let bad = deferred(indices, vec![0, 2, 2, 4]).unwrap();
            assert!(bad.indices_pending());
            assert_eq!(bad.check_indices().unwrap_err().to_string(), message);
            assert!(bad.indices_pending()); // remembered, still not valid
            let line = std::panic::catch_unwind(AssertUnwindSafe(|| bad.line(0).0.len()));
            assert!(line.is_err(), "an accessor handed out unchecked indices");
            let parts = std::panic::catch_unwind(AssertUnwindSafe(|| bad.clone().into_parts()));
            assert!(parts.is_err(), "into_parts handed out unchecked indices");
        }
        // The pointers are checked up front: every line's range lies inside the arrays.
        let e = deferred(vec![0, 3, 1, 2], vec![0, 3, 2, 4]).unwrap_err();
        assert!(e.to_string().contains("line 0"), "{e}");
        assert!(deferred(vec![0, 3, 1, 2], vec![0, 2, 2, 5]).is_err());
        assert!(deferred(vec![0, 3, 1, 2], vec![0, 2, 4]).is_err());
    }
}
