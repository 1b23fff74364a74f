//! spores: the command line of the spores system.
//!
//! The binary (`main.rs`) parses flags and hands each subcommand to [`commands`], where it
//! is a library function that writes to the given streams and returns the exit code, so
//! tests can call it directly. The work itself lives in the crates below: DML scripts in
//! [`spores_dml`], LA expressions in [`spores_opt`], tensor programs in [`spores_tensor`],
//! MLIR in [`spores_mlir`].

pub mod commands;
