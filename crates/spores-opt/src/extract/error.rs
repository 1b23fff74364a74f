//! Why extraction failed: reading the e-graph ([`Snapshot`](super::Snapshot)) or emitting
//! a plan from it.

use std::sync::Arc;

use crate::fused::Fused;
use crate::la::Dim;

use super::{Ix, MId, RId};

/// Why a snapshot could not be read or a plan could not be emitted. The texts are the
/// ones `spores` has always printed (after `extraction: `).
#[derive(Clone, Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ExtractError {
    // Reading the snapshot.
    /// An e-node of constructor `constructor` whose arguments are not the constructor's.
    #[error("unexpected e-node shape for {constructor}")]
    UnexpectedShape { constructor: &'static str },
    /// No class carries the `root-mark`.
    #[error("the root class was not found")]
    NoRootMark,
    /// A root's e-class is not a relational class of the snapshot.
    #[error("a root class was not found")]
    RootNotFound,
    /// The roots' binds are not in the e-graph.
    #[error("the operands' binds are not in the e-graph")]
    BindsNotFound,
    /// egglog failed reading a table (shared, so the error can be cached and cloned).
    #[error("{0}")]
    Egglog(#[source] Arc<egglog::Error>),

    // Emitting a plan.
    /// The snapshot has no roots.
    #[error("no roots")]
    NoRoots,
    /// A root has no LA class (raising did not reach it).
    #[error("a root has no LA class")]
    RootWithoutLaClass,
    /// A root relation has no known schema.
    #[error("root has no schema")]
    RootWithoutSchema,
    /// No bind of a root says how its indices are laid out.
    #[error("root orientation unknown")]
    RootOrientation,
    /// A relational class has no known schema.
    #[error("no schema")]
    NoSchema,
    /// A relational class has no finite-cost candidate.
    #[error("class {class} has no LA plan")]
    NoPlan { class: RId },
    /// An LA class has no choice in the selection.
    #[error("LA class {class} has no plan")]
    NoLaPlan { class: MId },
    /// A forced selection has no choice for a class the plan needs.
    #[error("class {class} is not in the selection")]
    NotSelected { class: RId },
    /// A class has no candidate that can be emitted in the wanted layout.
    #[error("no candidate")]
    NoCandidate,
    /// A class is reached again while it is being emitted.
    #[error("cyclic extraction")]
    Cycle,
    /// The table reader went deeper than its recursion limit.
    #[error("extraction too deep")]
    TooDeep,
    /// Emitting a selection went deeper than its recursion limit.
    #[error("extraction too deep (cyclic selection?)")]
    TooDeepSelection,
    /// An LA class the table reader uses has no readable term.
    #[error("unreadable LA class")]
    UnreadableLaClass,
    /// An aggregate whose operand has neither layout the table reads.
    #[error("aggregate of unexpected shape")]
    AggregateShape,
    /// An aggregate over a join that is not a matrix product.
    #[error("not a product")]
    NotAProduct,
    /// A product whose operands are laid out neither way round.
    #[error("product of unexpected orientation")]
    ProductOrientation,
    /// An operand whose layout is neither the wanted one nor its transpose.
    #[error("operand of unexpected shape")]
    OperandShape,
    /// A fused operator the table reader does not lay out.
    #[error("{kind:?} is not read by the table")]
    NotInTable { kind: Fused },
    /// A function number with no name in the tables.
    #[error("unknown function")]
    UnknownFunction { number: usize },
    /// An input number with no name in the tables.
    #[error("unknown input")]
    UnknownInput { number: usize },
    /// An index whose size is not known.
    #[error("index without size")]
    IndexWithoutSize { ix: Ix },
    /// A dimension code the tables do not know.
    #[error("unknown dimension")]
    UnknownDimension { code: i64 },
    /// A symbolic size that no input's shape carries, so no `nrow`/`ncol` gives it.
    #[error("no input has dimension {dim}")]
    NoInputWithDimension { dim: Dim },
    /// A broken invariant of the extractor (a bug): what was found.
    #[error("{0}")]
    Internal(String),
}

impl From<egglog::Error> for ExtractError {
    fn from(e: egglog::Error) -> Self {
        ExtractError::Egglog(Arc::new(e))
    }
}

impl ExtractError {
    pub(crate) fn internal(what: &str) -> Self {
        ExtractError::Internal(what.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_cross_threads_and_keep_their_texts() {
        fn send_sync<T: Send + Sync + 'static>() {}
        send_sync::<ExtractError>();
        assert_eq!(
            ExtractError::UnexpectedShape {
                constructor: "Join"
            }
            .to_string(),
            "unexpected e-node shape for Join"
        );
        assert_eq!(
            ExtractError::NoLaPlan { class: 3 }.to_string(),
            "LA class 3 has no plan"
        );
        let e = crate::saturate::OptError::from(ExtractError::NoRootMark);
        assert_eq!(e.to_string(), "extraction: the root class was not found");
    }
}
