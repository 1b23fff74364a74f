//! Random matrices and samples that reproduce Apache SystemDS 3.4 bit for bit.
//!
//! DML scripts that initialise randomly with a seed (`rand(..., seed=7)`,
//! `sample(100, 10, FALSE, 7)`) print SystemDS's numbers only if the same seed yields the
//! same matrix. SystemDS builds those from `java.util.Random`, Apache Commons Math's
//! WELL1024a and Commons Math's Poisson sampler, each with its own way of turning bits
//! into doubles, and generates a matrix per 1000×1000 block with a seed per block. Each of
//! those pieces has a module here:
//!
//! - [`java_random`] is `java.util.Random`.
//! - [`well1024a`] is Commons Math's WELL1024a.
//! - [`normal`] is SystemDS's Box–Muller normal deviates.
//! - [`poisson`] is Commons Math's Poisson deviates.
//! - [`block_format`] is SystemDS's sparse-or-dense decision per block, which picks how the
//!   non-zero cells are chosen.
//! - [`datagen`] is the block-wise `rand` itself.
//! - [`sample`] is `sample()`.
//!
//! What matches and what does not:
//!
//! - uniform values, the positions of sparse non-zeros, block seeds and `sample` use only
//!   integer arithmetic and exact double scaling, and match bit for bit;
//! - normal deviates go through `ln`, `cos` and `sin`, which HotSpot evaluates with its own
//!   intrinsics and Rust with the platform's libm; they are not required to round the
//!   same way, so a rare deviate may differ in its last bit;
//! - Poisson deviates match for `lambda < 40`; above that Commons Math uses a rejection
//!   method that is not reproduced (see [`poisson`]).
//!
//! SystemDS picks a seed from the clock when none is given (`seed=-1`); so does the
//! caller here (spores' interpreter draws a fresh seed from its own clock-seeded stream)
//! and then runs the same algorithm.

pub mod block_format;
pub mod datagen;
pub mod java_random;
pub mod normal;
pub mod poisson;
pub mod sample;
pub mod well1024a;

pub use datagen::{systemds_rand, DatagenSpec, Pdf, BLOCK_SIZE};
pub use sample::systemds_sample;
