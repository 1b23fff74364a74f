//! MLIR for spores: a reader and printer for MLIR's generic operation form.
//!
//! Where it sits: front end and optimizer of MLIR programs; it shares only extraction
//! (`spores-extract`) with the other optimizers.
//!
//! This is the entry point of the MLIR optimizer (DialEgg-style: MLIR → egglog → MLIR). The
//! optimizer must be dialect-agnostic, so the reader works on the *generic* form, which every
//! dialect shares: `%r:2 = "dialect.op"(%a) <{props}> ({regions}) {attrs} : (types) -> types`.
//! Files in custom syntax are first normalized with `mlir-opt --mlir-print-op-generic`
//! ([`load`]). Builtin types and attributes are parsed into values rewrite rules can inspect
//! ([`builtin`]); anything else (dialect types and attributes, unusual builtins) is kept
//! verbatim, so the reader never rejects a valid file because of a dialect it does not know.
//!
//! - [`ir`]: modules, operations, regions, blocks, values.
//! - [`builtin`]: builtin types and attributes.
//! - [`lexer`], [`parser`]: text → IR, with SSA checks (`ssa.rs`: definitions before uses,
//!   dominance, no redefinitions); [`printer`]: IR → text.
//! - [`normalize`]: `mlir-opt` discovery, normalization and verification.
//! - [`egg`]: the optimizer: MLIR → egglog terms (prelude `egg/prelude.egg` plus the user's
//!   rules and costs) → saturation → extraction → MLIR (`spores mlir opt`).
//! - [`runner`]: lowering to LLVM and running with `mlir-cpu-runner-19` (tests, benchmark).
//! - [`output`]: atomic file writes.
//!
//! Round trip: for any module `m` read from a file, `parse(&print(&m, opts)) == Ok(m)`, and the
//! printed text is accepted by `mlir-opt-19 --allow-unregistered-dialect`.

pub mod builtin;
pub mod egg;
pub mod ir;
pub mod lexer;
pub mod normalize;
pub mod output;
pub mod parser;
pub mod printer;
pub mod runner;
mod ssa;

use std::path::Path;

pub use builtin::{Attribute, DenseElements, DenseLit, FloatValue};
pub use builtin::{FloatKind, Signedness, Type, VectorDim};
pub use ir::{
    Block, BlockArg, Location, Module, NamedAttr, Operation, Region, ResultGroup, Successor, Value,
};
pub use normalize::{find_mlir_opt, verify_text, LoadError, LoadOptions, Normalize};
pub use parser::{ParseError, ParseErrorKind, ParseOptions};
pub use printer::PrintOptions;

/// Parses MLIR text in generic form, keeping locations.
pub fn parse(text: &str) -> Result<Module, ParseError> {
    parser::parse_module(text, ParseOptions::default())
}

/// Parses MLIR text in generic form with explicit options.
pub fn parse_with(text: &str, opts: ParseOptions) -> Result<Module, ParseError> {
    parser::parse_module(text, opts)
}

/// Prints a module in generic form.
pub fn print(module: &Module, opts: PrintOptions) -> String {
    printer::print_module(module, opts)
}

/// Reads an MLIR file in any syntax, normalizing it through `mlir-opt` when available (see
/// [`Normalize`]).
pub fn load(path: impl AsRef<Path>, opts: &LoadOptions) -> Result<Module, LoadError> {
    normalize::load(path.as_ref(), opts)
}
