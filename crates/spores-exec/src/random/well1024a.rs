//! The WELL1024a generator (Panneton, L'Ecuyer and Matsumoto) as Apache Commons Math 3
//! implements it, bit for bit.
//!
//! SystemDS uses it twice: as the generator of per-block seeds of `rand` (seeded with 32
//! integers drawn from `java.util.Random`), and as the source of Poisson deviates (seeded
//! with one `long`). Both the recurrence and Commons Math's seeding rules (a short seed is
//! stretched with Knuth's multiplier `1812433253`) and its way of building `long`s and
//! `double`s from 32-bit outputs are reproduced here.

/// Number of 32-bit words of state (1024 bits).
const WORDS: usize = 32;
/// The three tap offsets of WELL1024a.
const M1: usize = 3;
const M2: usize = 24;
const M3: usize = 10;

#[derive(Clone, Debug)]
pub struct Well1024a {
    v: [u32; WORDS],
    index: usize,
}

impl Well1024a {
    /// Seeded with up to 32 words, as Commons Math's `setSeed(int[])`: the given words are
    /// copied and the rest filled by `v[i] = 1812433253 * (v[i-n] ^ (v[i-n] >> 30)) + i`
    /// (with Java's sign-extending shift of the previous word as a `long`).
    pub fn from_words(seed: &[i32]) -> Self {
        let mut v = [0u32; WORDS];
        let n = seed.len().min(WORDS);
        for (dst, &src) in v.iter_mut().zip(&seed[..n]) {
            *dst = src as u32;
        }
        if n > 0 {
            for i in n..WORDS {
                let l = v[i - n] as i32 as i64;
                let stretched = 1_812_433_253i64
                    .wrapping_mul(l ^ (l >> 30))
                    .wrapping_add(i as i64);
                v[i] = stretched as u32;
            }
        }
        Well1024a { v, index: 0 }
    }

    /// Seeded with a `long`, as Commons Math's `setSeed(long)`: its high and low words.
    pub fn from_long(seed: i64) -> Self {
        Well1024a::from_words(&[(seed as u64 >> 32) as i32, seed as i32])
    }

    /// The next 32 output bits; `next(bits)` in Commons Math keeps the top `bits` of them.
    fn next_word(&mut self) -> u32 {
        let i = self.index;
        let previous = (i + WORDS - 1) % WORDS;
        let v0 = self.v[i];
        let vm1 = self.v[(i + M1) % WORDS];
        let vm2 = self.v[(i + M2) % WORDS];
        let vm3 = self.v[(i + M3) % WORDS];
        let z0 = self.v[previous];
        let z1 = v0 ^ (vm1 ^ (vm1 >> 8));
        let z2 = (vm2 ^ (vm2 << 19)) ^ (vm3 ^ (vm3 << 14));
        let z3 = z1 ^ z2;
        let z4 = (z0 ^ (z0 << 11)) ^ (z1 ^ (z1 << 7)) ^ (z2 ^ (z2 << 13));
        self.v[i] = z3;
        self.v[previous] = z4;
        self.index = previous;
        z4
    }

    fn next_bits(&mut self, bits: u32) -> u32 {
        self.next_word() >> (32 - bits)
    }

    /// `nextInt()`.
    pub fn next_int(&mut self) -> i32 {
        self.next_word() as i32
    }

    /// `nextLong()`: two words, high first.
    pub fn next_long(&mut self) -> i64 {
        let high = (self.next_word() as u64) << 32;
        (high | self.next_word() as u64) as i64
    }

    /// `nextDouble()`: 52 bits (two draws of 26) scaled into `[0, 1)`.
    pub fn next_double(&mut self) -> f64 {
        let high = (self.next_bits(26) as u64) << 26;
        let low = self.next_bits(26) as u64;
        (high | low) as f64 * f64::EPSILON
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::random::java_random::JavaRandom;

    // Reference values printed by Commons Math 3.4.1's Well1024a on a JVM.
    #[test]
    fn long_seed_matches_commons_math() {
        let mut w = Well1024a::from_long(123_456_789);
        assert_eq!(w.next_long(), 6_136_655_434_848_921_547);
        assert_eq!(w.next_double(), 0.9533136108882292);
        assert_eq!(w.next_int(), 1_496_923_708);
    }

    #[test]
    fn word_seed_from_java_random_matches_commons_math() {
        let mut r = JavaRandom::new(7);
        let words: Vec<i32> = (0..32).map(|_| r.next_int()).collect();
        let mut w = Well1024a::from_words(&words);
        assert_eq!(w.next_long(), 6_175_895_673_844_109_942);
        assert_eq!(w.next_long(), -1_695_054_409_423_431_847);
        assert_eq!(w.next_long(), -3_298_269_661_540_681_889);
    }
}
