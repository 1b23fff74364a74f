//! The Gram matrix `t(X) %*% X` of a dense, strided `X` (a `syrk`), read in place.
//!
//! Callers that hold `X` in their own buffer (the tensor engine's dense fibertrees, stored
//! either observation-major `X[i,j]` or feature-major `X[j,i]`) pass it with its strides:
//! nothing is copied into a [`DenseMatrix`](crate::DenseMatrix) and no transpose is built.
//! For the tall, narrow `X` of a feature matrix (600,000 × 20) the general GEMM path spent
//! most of its time copying and repacking the operand (three panels, each packing the whole
//! of `X` twice) for 240 M multiply-adds; here each block of observations is read once.
//!
//! How: the observations are cut into blocks of [`BLOCK`]; a block is a feature-major panel
//! (feature-major input is used as is, observation-major input is packed, `d × BLOCK`
//! values that stay in L1/L2), and every 2 × 2 tile of feature pairs on or above the
//! diagonal accumulates its four dot products in four-lane accumulators (explicit lanes, so
//! the loop vectorizes without reassociation). Only the upper triangle is computed; it is
//! mirrored at the end. Large inputs split the observations across the rayon pool, each
//! worker with a private `d × d` accumulator, summed at the end.

use rayon::prelude::*;

use crate::error::{ExecError, Result};

/// Observations per block: a 20-feature panel is 40 KiB.
const BLOCK: usize = 256;

/// Below this many multiply-adds the kernel stays on the calling thread.
const PAR_WORK: usize = 1 << 20;

/// Lanes of the explicit accumulators.
const LANES: usize = 4;

/// `t(X) %*% X` for `X` with `n` observations (rows) and `d` features (columns), cell
/// `(i, j)` at `data[i * rs + j * cs]`; returns the `d × d` result row-major.
///
/// Errors when the strides address cells outside `data` (the view does not fit).
pub fn gram_strided(data: &[f64], n: usize, d: usize, rs: usize, cs: usize) -> Result<Vec<f64>> {
    if n == 0 || d == 0 {
        return Ok(vec![0.0; d * d]);
    }
    let last = (n - 1)
        .checked_mul(rs)
        .and_then(|a| (d - 1).checked_mul(cs).and_then(|b| a.checked_add(b)));
    if last.is_none_or(|l| l >= data.len()) {
        return Err(ExecError::InvalidArgument(format!(
            "gram: a {n} x {d} view with strides ({rs}, {cs}) does not fit in {} values",
            data.len()
        )));
    }
    let view = View { data, d, rs, cs };
    let work = n.saturating_mul(d).saturating_mul(d) / 2;
    let threads = rayon::current_num_threads().max(1);
    let mut g = if threads == 1 || work < PAR_WORK {
        let mut g = vec![0.0; d * d];
        view.accumulate(0, n, &mut g);
        g
    } else {
        // A few parts per thread keep a busy core from holding everyone up.
        let parts = (2 * threads).min(n.div_ceil(BLOCK));
        let per = n.div_ceil(parts).div_ceil(BLOCK) * BLOCK;
        (0..n.div_ceil(per))
            .into_par_iter()
            .map(|p| {
                let mut g = vec![0.0; d * d];
                view.accumulate(p * per, ((p + 1) * per).min(n), &mut g);
                g
            })
            .reduce_with(|mut a, b| {
                a.iter_mut().zip(&b).for_each(|(x, y)| *x += y);
                a
            })
            .unwrap_or_else(|| vec![0.0; d * d])
    };
    mirror_upper(&mut g, d);
    Ok(g)
}

/// Adds the upper triangle (`j <= k`) of `t(X) %*% X` for `n` observation-major rows of
/// `d` features (`data[i * d + j]`) into the row-major `d × d` buffer `g`, on the calling
/// thread: for callers that produce `X` a block of rows at a time and never store it
/// (finish with [`mirror_upper`]).
pub fn gram_add_upper(data: &[f64], n: usize, d: usize, g: &mut [f64]) {
    assert!(
        data.len() >= n * d && g.len() == d * d,
        "gram_add_upper: buffer sizes"
    );
    View {
        data,
        d,
        rs: d,
        cs: 1,
    }
    .accumulate(0, n, g);
}

/// Copies the upper triangle of the row-major `d × d` buffer onto its lower triangle.
pub fn mirror_upper(g: &mut [f64], d: usize) {
    for j in 0..d {
        for k in 0..j {
            g[j * d + k] = g[k * d + j];
        }
    }
}

#[derive(Clone, Copy)]
struct View<'a> {
    data: &'a [f64],
    d: usize,
    rs: usize,
    cs: usize,
}

impl View<'_> {
    /// Adds the upper triangle of the Gram matrix of observations `from..to` into `g`: with
    /// AVX2 and FMA when the CPU has them (the build targets baseline x86-64, whose SSE2
    /// tiles ran at about a third of the speed), else the portable tiles.
    fn accumulate(&self, from: usize, to: usize, g: &mut [f64]) {
        #[cfg(target_arch = "x86_64")]
        if super::cpu::avx2_fma() {
            // SAFETY: the CPU supports the features the function is compiled for.
            unsafe { self.accumulate_avx2(from, to, g) };
            return;
        }
        self.accumulate_with::<false>(from, to, g);
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn accumulate_avx2(&self, from: usize, to: usize, g: &mut [f64]) {
        self.accumulate_with::<true>(from, to, g);
    }

    /// The blocked loop; `FMA` makes the tiles use fused multiply-adds (only where the
    /// caller is compiled with the `fma` feature: elsewhere `mul_add` is a library call).
    #[inline(always)]
    fn accumulate_with<const FMA: bool>(&self, from: usize, to: usize, g: &mut [f64]) {
        let d = self.d;
        let mut panel = if self.rs == 1 {
            vec![]
        } else {
            vec![0.0; d * BLOCK]
        };
        let mut start = from;
        while start < to {
            let len = BLOCK.min(to - start);
            // Feature j's values over the block.
            let rows: Vec<&[f64]> = if self.rs == 1 {
                (0..d)
                    .map(|j| &self.data[j * self.cs + start..j * self.cs + start + len])
                    .collect()
            } else {
                let block = &self.data[start * self.rs..];
                for j in 0..d {
                    let column = block[j * self.cs..].iter().step_by(self.rs);
                    for (x, &v) in panel[j * BLOCK..j * BLOCK + len].iter_mut().zip(column) {
                        *x = v;
                    }
                }
                panel.chunks(BLOCK).map(|c| &c[..len]).collect()
            };
            let mut j = 0;
            while j < d {
                let rj = (d - j).min(2);
                let mut k = j;
                while k < d {
                    let ck = (d - k).min(2);
                    match (rj, ck) {
                        (2, 2) => add_tile::<2, 2, FMA>(&rows, j, k, d, g),
                        (2, 1) => add_tile::<2, 1, FMA>(&rows, j, k, d, g),
                        (1, 2) => add_tile::<1, 2, FMA>(&rows, j, k, d, g),
                        _ => add_tile::<1, 1, FMA>(&rows, j, k, d, g),
                    }
                    k += 2;
                }
                j += 2;
            }
            start += len;
        }
    }
}

/// `g[j+x, k+y] += dot(rows[j+x], rows[k+y])` for the `R × C` tile at `(j, k)`.
#[inline(always)]
fn add_tile<const R: usize, const C: usize, const FMA: bool>(
    rows: &[&[f64]],
    j: usize,
    k: usize,
    d: usize,
    g: &mut [f64],
) {
    let a: [&[f64]; R] = std::array::from_fn(|x| rows[j + x]);
    let b: [&[f64]; C] = std::array::from_fn(|y| rows[k + y]);
    let len = a[0].len();
    let full = len / LANES * LANES;
    let mut acc = [[[0.0f64; LANES]; C]; R];
    let mut r = 0;
    while r < full {
        let av: [&[f64; LANES]; R] =
            std::array::from_fn(|x| a[x][r..r + LANES].try_into().expect("LANES values"));
        let bv: [&[f64; LANES]; C] =
            std::array::from_fn(|y| b[y][r..r + LANES].try_into().expect("LANES values"));
        for x in 0..R {
            for y in 0..C {
                for l in 0..LANES {
                    acc[x][y][l] = if FMA {
                        av[x][l].mul_add(bv[y][l], acc[x][y][l])
                    } else {
                        acc[x][y][l] + av[x][l] * bv[y][l]
                    };
                }
            }
        }
        r += LANES;
    }
    for x in 0..R {
        for y in 0..C {
            let mut s = (acc[x][y][0] + acc[x][y][2]) + (acc[x][y][1] + acc[x][y][3]);
            for t in full..len {
                s += a[x][t] * b[y][t];
            }
            g[(j + x) * d + k + y] += s;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive(data: &[f64], n: usize, d: usize, rs: usize, cs: usize) -> Vec<f64> {
        let mut g = vec![0.0; d * d];
        for j in 0..d {
            for k in 0..d {
                g[j * d + k] = (0..n)
                    .map(|i| data[i * rs + j * cs] * data[i * rs + k * cs])
                    .sum();
            }
        }
        g
    }

    fn values(len: usize, seed: u64) -> Vec<f64> {
        let mut s = seed;
        (0..len)
            .map(|_| {
                s = s
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                ((s >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
            })
            .collect()
    }

    fn close(a: &[f64], b: &[f64]) {
        assert_eq!(a.len(), b.len());
        for (x, y) in a.iter().zip(b) {
            assert!(
                (x - y).abs() <= 1e-10 * (1.0 + x.abs().max(y.abs())),
                "{x} vs {y}"
            );
        }
    }

    #[test]
    fn both_layouts_match_the_naive_gram_at_odd_sizes() {
        // Odd feature counts (edge tiles), observation counts around the block and lane
        // sizes, and enough observations to take the parallel path.
        for &(n, d) in &[
            (1, 1),
            (3, 1),
            (7, 3),
            (255, 5),
            (257, 2),
            (1031, 7),
            (5000, 20),
            (12_345, 21),
        ] {
            let data = values(n * d, (n * 31 + d) as u64);
            // Observation-major X[i,j].
            close(
                &gram_strided(&data, n, d, d, 1).unwrap(),
                &naive(&data, n, d, d, 1),
            );
            // Feature-major (the same buffer read as X[j,i]).
            close(
                &gram_strided(&data, n, d, 1, n).unwrap(),
                &naive(&data, n, d, 1, n),
            );
        }
    }

    #[test]
    fn row_blocks_added_one_at_a_time_give_the_whole_gram() {
        let (n, d) = (1000, 7);
        let data = values(n * d, 4);
        let mut g = vec![0.0; d * d];
        for (start, end) in [(0, 1), (1, 300), (300, 301), (301, 1000)] {
            gram_add_upper(&data[start * d..end * d], end - start, d, &mut g);
        }
        mirror_upper(&mut g, d);
        close(&g, &naive(&data, n, d, d, 1));
    }

    #[test]
    fn padded_strides_and_empty_inputs() {
        // Rows of 5 values of which the first 3 are features.
        let (n, d) = (600, 3);
        let data = values(n * 5, 9);
        close(
            &gram_strided(&data, n, d, 5, 1).unwrap(),
            &naive(&data, n, d, 5, 1),
        );
        assert_eq!(gram_strided(&[], 0, 2, 2, 1).unwrap(), vec![0.0; 4]);
        assert!(gram_strided(&data, n, 6, 5, 1).is_err());
    }
}
