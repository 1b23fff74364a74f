//! Why deciding equivalence can fail: its own module, since both the normalizer
//! (`normal.rs`) and the decision procedure (`equiv.rs`) report it.

/// Why [`equiv`](super::equiv) could not answer.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum EquivError {
    /// One side is ill-shaped; `side` is `lhs` or `rhs`.
    #[error("{side}: {message}")]
    Shape { side: &'static str, message: String },
    /// The sides have different shapes.
    #[error("the sides have different shapes: lhs is {lhs}, rhs is {rhs}")]
    ShapeMismatch { lhs: String, rhs: String },
    /// Normalization would produce too many terms.
    #[error("{0}")]
    TooLarge(String),
    /// A broken invariant of the translation (a bug, reported instead of a panic).
    #[error("internal error: {0}")]
    Internal(String),
}
