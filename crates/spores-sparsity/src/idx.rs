//! Index variables, the names tensors and statistics range over.

use std::fmt;
use std::sync::Arc;

/// An index variable (`i` in `A[i,j]`). Cheap to clone.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Idx(Arc<str>);

impl Idx {
    pub fn new(name: &str) -> Idx {
        Idx(Arc::from(name))
    }

    pub fn name(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Idx {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Display for Idx {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}
