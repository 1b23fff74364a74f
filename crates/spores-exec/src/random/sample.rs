//! DML's `sample(range, size, replace, seed)`: `size` integers from `1..=range`, as
//! SystemDS 3.4 draws them (`LibMatrixDatagen.generateSample`), as a `size`×1 column.
//!
//! Without replacement: reservoir sampling over `java.util.Random(seed)` (for each
//! `i` in `size+1..=range`, if `nextInt(i) < size` then slot `nextInt(size)` takes `i`),
//! followed by a Fisher–Yates shuffle (slot `i` swaps with `i + nextInt(size - i)`).
//! With replacement: each value is `1 + (nonNegative(nextLong()) mod range)`, drawing
//! again when the value falls into the incomplete last interval of the `long` range.

use super::java_random::JavaRandom;
use crate::error::{ExecError, Result};
use crate::matrix::{DenseMatrix, Matrix};

/// Draws the sample with SystemDS's algorithm for the given seed.
pub fn systemds_sample(range: i64, size: usize, replace: bool, seed: i64) -> Result<Matrix> {
    if range < 1 {
        return Err(ExecError::invalid(format!(
            "sample: the range must be at least 1, got {range}"
        )));
    }
    // SystemDS counts the sample and the population without replacement in Java ints.
    if size > i32::MAX as usize || (!replace && range > i32::MAX as i64) {
        return Err(ExecError::invalid(format!(
            "sample: size {size} (and, without replacement, range {range}) must not exceed {}",
            i32::MAX
        )));
    }
    if !replace && (size as i64) > range {
        return Err(ExecError::invalid(format!(
            "sample: a sample of size {size} larger than the population ({range}) needs replace=TRUE"
        )));
    }
    let mut random = JavaRandom::new(seed);
    let values = if replace {
        (0..size)
            .map(|_| 1.0 + below(&mut random, range) as f64)
            .collect()
    } else {
        without_replacement(&mut random, range as i32, size)
    };
    Ok(Matrix::Dense(DenseMatrix::from_vec(size, 1, values)?))
}

fn without_replacement(random: &mut JavaRandom, range: i32, size: usize) -> Vec<f64> {
    let mut slots: Vec<f64> = (1..=size).map(|i| i as f64).collect();
    let n = size as i32;
    for i in n + 1..=range {
        if random.next_int_below(i) < n {
            slots[random.next_int_below(n) as usize] = i as f64;
        }
    }
    for i in 0..size.saturating_sub(1) {
        let j = random.next_int_below(n - i as i32) as usize + i;
        slots.swap(i, j);
    }
    slots
}

/// Uniform in `[0, n)` from `nextLong()`s, SystemDS's long version of `nextInt(bound)`.
fn below(random: &mut JavaRandom, n: i64) -> i64 {
    loop {
        let bits = ((random.next_long() as u64) << 1 >> 1) as i64;
        let value = bits % n;
        // Java's overflow test: the interval [bits - value, bits - value + n) would wrap.
        if bits.wrapping_sub(value).wrapping_add(n - 1) >= 0 {
            return value;
        }
    }
}
