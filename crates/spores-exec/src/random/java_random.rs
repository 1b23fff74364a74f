//! The 48-bit linear congruential generator of `java.util.Random`, bit for bit.
//!
//! SystemDS draws uniform cell values, the positions of sparse non-zeros, the seeds of its
//! block seed generator and `sample()` from this generator, so reproducing its numbers needs
//! the exact recurrence and the exact way each `next*` method combines its bits.

const MULTIPLIER: u64 = 0x5_DEEC_E66D;
const INCREMENT: u64 = 0xB;
const MASK: u64 = (1 << 48) - 1;

/// The state of a `java.util.Random`.
#[derive(Clone, Debug)]
pub struct JavaRandom {
    state: u64,
}

impl JavaRandom {
    /// Same as `new Random(seed)`: the seed is scrambled with the multiplier.
    pub fn new(seed: i64) -> Self {
        JavaRandom {
            state: (seed as u64 ^ MULTIPLIER) & MASK,
        }
    }

    /// Same as `setSeed(seed)`.
    pub fn set_seed(&mut self, seed: i64) {
        *self = JavaRandom::new(seed);
    }

    /// The top `bits` bits of the next state, as Java's `next(bits)` (sign included for 32).
    fn next(&mut self, bits: u32) -> i32 {
        self.state = (self.state.wrapping_mul(MULTIPLIER).wrapping_add(INCREMENT)) & MASK;
        (self.state >> (48 - bits)) as i64 as i32
    }

    /// `nextInt()`: 32 uniformly random bits.
    pub fn next_int(&mut self) -> i32 {
        self.next(32)
    }

    /// `nextInt(bound)`: uniform in `[0, bound)`, rejecting the partial last interval.
    /// `bound` must be positive.
    pub fn next_int_below(&mut self, bound: i32) -> i32 {
        debug_assert!(bound > 0);
        let mut r = self.next(31);
        let m = bound - 1;
        if bound & m == 0 {
            // A power of two takes the high bits, which are the better ones of an LCG.
            return ((bound as i64 * r as i64) >> 31) as i32;
        }
        let mut u = r;
        loop {
            r = u % bound;
            // Java's overflow test: the last interval [u - r, u - r + bound) would wrap.
            if u.wrapping_sub(r).wrapping_add(m) >= 0 {
                return r;
            }
            u = self.next(31);
        }
    }

    /// `nextLong()`: the high word shifted up plus the (signed) low word.
    pub fn next_long(&mut self) -> i64 {
        let high = (self.next(32) as i64) << 32;
        high.wrapping_add(self.next(32) as i64)
    }

    /// `nextDouble()`: 53 random bits scaled into `[0, 1)`.
    pub fn next_double(&mut self) -> f64 {
        let high = (self.next(26) as i64) << 27;
        let low = self.next(27) as i64;
        (high + low) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Reference values printed by a JVM (Java 17) for `new Random(42)`.
    #[test]
    fn matches_java_for_seed_42() {
        let mut r = JavaRandom::new(42);
        assert_eq!(r.next_int(), -1_170_105_035);
        assert_eq!(r.next_int_below(100), 63);
        let mut r = JavaRandom::new(42);
        assert_eq!(r.next_double(), 0.7275636800328681);
        let mut r = JavaRandom::new(42);
        assert_eq!(r.next_long(), -5_025_562_857_975_149_833);
    }

    // Bounds that are not powers of two take the rejection path; a JVM folds the draws
    // of `nextInt(1000 + i)`, i < 1000, for `new Random(7)` into this checksum.
    #[test]
    fn bounded_ints_match_java() {
        let mut r = JavaRandom::new(7);
        let checksum = (0..1000).fold(0i32, |s, i| {
            s.wrapping_mul(31).wrapping_add(r.next_int_below(1000 + i))
        });
        assert_eq!(checksum, -1_825_492_701);
    }
}
