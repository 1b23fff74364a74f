//! Standard normal deviates as SystemDS's `rand(pdf="normal")` draws them.
//!
//! SystemDS does not use `java.util.Random.nextGaussian` (the polar method) but the plain
//! Box–Muller transform of two consecutive `nextDouble()`s `u1, u2`:
//! `sqrt(-2 ln u1) * cos(2 pi u2)` first, then `sqrt(-2 ln u1) * sin(2 pi u2)`, then a new
//! pair. Reseeding discards a half-used pair.
//!
//! Java evaluates `ln`, `cos` and `sin` with HotSpot's `Math` intrinsics, which are not
//! specified to be correctly rounded; Rust uses the platform's libm. The two agree on
//! almost every argument, so a rare deviate may differ from SystemDS's in its last bit.

use super::java_random::JavaRandom;

#[derive(Clone, Debug)]
pub struct BoxMuller {
    uniform: JavaRandom,
    pair: (f64, f64),
    second_next: bool,
}

impl BoxMuller {
    pub fn new(seed: i64) -> Self {
        let mut uniform = JavaRandom::new(seed);
        let pair = Self::draw_pair(&mut uniform);
        BoxMuller {
            uniform,
            pair,
            second_next: false,
        }
    }

    fn draw_pair(uniform: &mut JavaRandom) -> (f64, f64) {
        let u1 = uniform.next_double();
        let u2 = uniform.next_double();
        let radius = (-2.0 * u1.ln()).sqrt();
        let angle = 2.0 * std::f64::consts::PI * u2;
        (radius * angle.cos(), radius * angle.sin())
    }

    pub fn next_deviate(&mut self) -> f64 {
        if self.second_next {
            let d = self.pair.1;
            self.pair = Self::draw_pair(&mut self.uniform);
            self.second_next = false;
            d
        } else {
            self.second_next = true;
            self.pair.0
        }
    }
}
