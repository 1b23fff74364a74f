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
    Foreign(Arc<dyn ForeignSlice<T>>),
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
