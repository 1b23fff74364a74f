//! Convolution, pooling and bias over a batch of images stored one per row, as SystemDS's
//! `conv2d`, `conv2d_backward_filter`, `conv2d_backward_data`, `max_pool`, `avg_pool`,
//! `max_pool_backward`, `avg_pool_backward`, `bias_add`, `bias_multiply`, `batch_norm2d`,
//! `batch_norm2d_backward`, `lstm` and `lstm_backward` compute them (what its `nn`
//! library's layers call).
//!
//! A batch of `N` images of `C` channels of `H x W` pixels is an `N x (C*H*W)` matrix: row
//! `n` is image `n`, channel by channel, each channel row by row. A bank of `F` filters of
//! `R x S` is an `F x (C*R*S)` matrix laid out the same way. A window moves by `stride` and
//! the image is padded by `padding` on each side, so each output channel has
//! `P = (H + 2 pad_h - R) / stride_h + 1` rows and `Q` columns likewise (rounded down).
//!
//! Convolution pads with zeros (it is a cross-correlation, as in every deep-learning
//! library). A pooling window is clipped to the image: `max_pool` never sees the padding,
//! and `avg_pool` divides the clipped window's sum by `R*S`, as SystemDS does.
//! `max_pool_backward` sends each output cell's gradient to the first largest input of its
//! window (row by row).
//!
//! ```
//! use spores_exec::kernels::dnn::{self, Window};
//! use spores_exec::{DenseMatrix, Matrix};
//!
//! // One 3x3 image, one 2x2 filter of ones, stride 1, no padding: 2x2 sums of windows.
//! let x = Matrix::Dense(DenseMatrix::from_fn(1, 9, |_, j| j as f64));
//! let f = Matrix::Dense(DenseMatrix::filled(1, 4, 1.0));
//! let window = Window::new([1, 1, 3, 3], [2, 2], [1, 1], [0, 0]).unwrap();
//! let out = dnn::conv2d(&x, &f, &window, 1).unwrap().to_dense();
//! assert_eq!(out.data(), &[8.0, 12.0, 20.0, 24.0]);
//! ```

use rayon::prelude::*;

use crate::error::{ExecError, Result};
use crate::kernels::matmul::gemm;
use crate::matrix::{DenseMatrix, Matrix};
use crate::shape::Shape;

/// The geometry of a convolution or pooling: images, window, stride and padding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    /// Images in the batch.
    pub n: usize,
    /// Channels of each image.
    pub c: usize,
    /// Image height and width.
    pub h: usize,
    pub w: usize,
    /// Window (filter or pool) height and width.
    pub r: usize,
    pub s: usize,
    pub stride_h: usize,
    pub stride_w: usize,
    pub pad_h: usize,
    pub pad_w: usize,
}

impl Window {
    /// `[N, C, H, W]`, `[R, S]`, `[stride_h, stride_w]` and `[pad_h, pad_w]`; an error
    /// when a window does not fit in the padded image or a stride is 0.
    pub fn new(
        input: [usize; 4],
        window: [usize; 2],
        stride: [usize; 2],
        padding: [usize; 2],
    ) -> Result<Window> {
        let [n, c, h, w] = input;
        let [r, s] = window;
        let geometry = Window {
            n,
            c,
            h,
            w,
            r,
            s,
            stride_h: stride[0],
            stride_w: stride[1],
            pad_h: padding[0],
            pad_w: padding[1],
        };
        if stride.contains(&0) {
            return Err(ExecError::invalid(format!(
                "the stride must be positive, is [{}, {}]",
                stride[0], stride[1]
            )));
        }
        let too_large = || {
            ExecError::invalid(format!(
                "the sizes [{n}, {c}, {h}, {w}], [{r}, {s}], padding [{}, {}] are too large",
                geometry.pad_h, geometry.pad_w
            ))
        };
        let padded = |size: usize, pad: usize| pad.checked_mul(2).and_then(|p| p.checked_add(size));
        let (Some(padded_h), Some(padded_w)) =
            (padded(h, geometry.pad_h), padded(w, geometry.pad_w))
        else {
            return Err(too_large());
        };
        if r == 0 || s == 0 || padded_h < r || padded_w < s {
            return Err(ExecError::invalid(format!(
                "a {r}x{s} window does not fit in a {h}x{w} image padded by [{}, {}]",
                geometry.pad_h, geometry.pad_w
            )));
        }
        // Every length the kernels index by must be a number of cells, not an overflow.
        let (p, q) = (geometry.p(), geometry.q());
        for factors in [[c, h, w], [c, r, s], [c, p, q]] {
            cells(&factors).ok_or_else(too_large)?;
        }
        Ok(geometry)
    }

    /// Output rows per channel.
    pub fn p(&self) -> usize {
        (self.h + 2 * self.pad_h - self.r) / self.stride_h + 1
    }

    /// Output columns per channel.
    pub fn q(&self) -> usize {
        (self.w + 2 * self.pad_w - self.s) / self.stride_w + 1
    }

    /// Input row of window row `k` at output row `p`, if inside the image.
    fn input_row(&self, p: usize, k: usize) -> Option<usize> {
        (p * self.stride_h + k)
            .checked_sub(self.pad_h)
            .filter(|&i| i < self.h)
    }

    /// Input column of window column `k` at output column `q`, if inside the image.
    fn input_col(&self, q: usize, k: usize) -> Option<usize> {
        (q * self.stride_w + k)
            .checked_sub(self.pad_w)
            .filter(|&j| j < self.w)
    }

    fn image_len(&self) -> usize {
        self.c * self.h * self.w
    }

    /// Cells of one image's output of `channels` channels (an error past `usize`).
    fn output_len(&self, channels: usize) -> Result<usize> {
        cells(&[channels, self.p(), self.q()]).ok_or_else(|| {
            ExecError::invalid(format!(
                "{channels} channels of {}x{} outputs are too many cells",
                self.p(),
                self.q()
            ))
        })
    }

    /// `x` must be the `N x (C*H*W)` batch this window reads.
    fn check_images(&self, op: &str, x: &Matrix) -> Result<()> {
        let expected = Shape::new(self.n, self.image_len());
        ExecError::ensure_shapes(x.shape() == expected, op, x.shape(), expected)
    }

    /// `dout` must have one `channels x P x Q` gradient per image.
    fn check_gradient(&self, op: &str, dout: &Matrix, channels: usize) -> Result<()> {
        let expected = Shape::new(self.n, self.output_len(channels)?);
        ExecError::ensure_shapes(dout.shape() == expected, op, dout.shape(), expected)
    }

    /// `filter` must be `F x (C*R*S)`.
    fn check_filter(&self, op: &str, filter: &Matrix, f: usize) -> Result<()> {
        let expected = Shape::new(f, self.c * self.r * self.s);
        ExecError::ensure_shapes(filter.shape() == expected, op, filter.shape(), expected)
    }

    /// The `(C*R*S) x (P*Q)` window matrix a convolution builds per image must fit the
    /// memory budget (one per thread at a time).
    fn check_window_matrix(&self, op: &str) -> Result<()> {
        crate::memory::ensure_dense(op, self.c * self.r * self.s, self.p() * self.q())
    }

    /// Calls `visit(row, column, pixel)` for each cell of the `(C*R*S) x (P*Q)` window
    /// matrix that reads a pixel rather than padding: row `(c*R + r)*S + s` and column
    /// `p*Q + q` read pixel `(c*H + i)*W + j` of the image.
    fn for_each_tap(&self, mut visit: impl FnMut(usize, usize, usize)) {
        let (p_len, q_len) = (self.p(), self.q());
        for c in 0..self.c {
            for kr in 0..self.r {
                for ks in 0..self.s {
                    let row = (c * self.r + kr) * self.s + ks;
                    for p in 0..p_len {
                        let Some(i) = self.input_row(p, kr) else {
                            continue;
                        };
                        for q in 0..q_len {
                            if let Some(j) = self.input_col(q, ks) {
                                visit(row, p * q_len + q, (c * self.h + i) * self.w + j);
                            }
                        }
                    }
                }
            }
        }
    }

    /// The window matrix of one image: column `(p, q)` holds the window at `(p, q)`,
    /// padding as zeros.
    fn im2col(&self, image: &[f64]) -> DenseMatrix {
        let mut col = DenseMatrix::zeros(self.c * self.r * self.s, self.p() * self.q());
        self.for_each_tap(|row, column, pixel| col.set(row, column, image[pixel]));
        col
    }

    /// Adds each cell of a window matrix onto the pixel it came from (the adjoint of
    /// [`Window::im2col`]).
    fn col2im(&self, col: &DenseMatrix, image: &mut [f64]) {
        self.for_each_tap(|row, column, pixel| image[pixel] += col.get(row, column));
    }

    /// The clipped window of output cell `(p, q)`: its input rows and columns.
    fn pool_cells(&self, p: usize, q: usize) -> (std::ops::Range<usize>, std::ops::Range<usize>) {
        let clip = |start: usize, pad: usize, len: usize, limit: usize| {
            let from = start.saturating_sub(pad);
            let to = (start + len).saturating_sub(pad).min(limit);
            from..to.max(from)
        };
        (
            clip(p * self.stride_h, self.pad_h, self.r, self.h),
            clip(q * self.stride_w, self.pad_w, self.s, self.w),
        )
    }
}

/// The product of `factors`, or `None` when it overflows.
fn cells(factors: &[usize]) -> Option<usize> {
    factors
        .iter()
        .try_fold(1usize, |acc, &f| acc.checked_mul(f))
}

/// A dense `rows x cols` result of `op`, within the memory budget, filled row by row in
/// parallel by `fill(row, out)`.
fn by_image(
    op: &str,
    rows: usize,
    cols: usize,
    fill: impl Fn(usize, &mut [f64]) -> Result<()> + Sync,
) -> Result<Matrix> {
    crate::memory::ensure_dense(op, rows, cols)?;
    let mut out = DenseMatrix::zeros(rows, cols);
    if cols > 0 {
        out.data_mut()
            .par_chunks_mut(cols)
            .enumerate()
            .try_for_each(|(n, row)| fill(n, row))?;
    }
    Ok(Matrix::Dense(out))
}

/// `conv2d(X, W)`: `N x (F*P*Q)`, each image's `F` output channels.
pub fn conv2d(x: &Matrix, filter: &Matrix, window: &Window, f: usize) -> Result<Matrix> {
    window.check_images("conv2d", x)?;
    window.check_filter("conv2d", filter, f)?;
    let (x, filter) = (x.to_dense(), filter.to_dense());
    window.check_window_matrix("conv2d")?;
    by_image("conv2d", window.n, window.output_len(f)?, |n, out| {
        let product = gemm(&filter, &window.im2col(x.row(n)))?;
        out.copy_from_slice(product.data());
        Ok(())
    })
}

/// `conv2d_backward_filter(X, dout)`: the gradient of the filters, `F x (C*R*S)`.
pub fn conv2d_backward_filter(
    x: &Matrix,
    dout: &Matrix,
    window: &Window,
    f: usize,
) -> Result<Matrix> {
    window.check_images("conv2d_backward_filter", x)?;
    window.check_gradient("conv2d_backward_filter", dout, f)?;
    let (x, dout) = (x.to_dense(), dout.to_dense());
    let pq = window.p() * window.q();
    let crs = window.c * window.r * window.s;
    window.check_window_matrix("conv2d_backward_filter")?;
    crate::memory::ensure_dense("conv2d_backward_filter", f, crs)?;
    let per_image = |n: usize| -> Result<DenseMatrix> {
        let gradient = DenseMatrix::from_vec(f, pq, dout.row(n).to_vec())?;
        let col = window.im2col(x.row(n));
        gemm(&gradient, &crate::kernels::transpose::transpose_dense(&col))
    };
    let total = (0..window.n).into_par_iter().map(per_image).try_reduce(
        || DenseMatrix::zeros(f, crs),
        |mut sum, part| {
            sum.data_mut()
                .iter_mut()
                .zip(part.data())
                .for_each(|(s, p)| *s += p);
            Ok(sum)
        },
    )?;
    Ok(Matrix::Dense(total))
}

/// `conv2d_backward_data(W, dout)`: the gradient of the images, `N x (C*H*W)`.
pub fn conv2d_backward_data(
    filter: &Matrix,
    dout: &Matrix,
    window: &Window,
    f: usize,
) -> Result<Matrix> {
    window.check_filter("conv2d_backward_data", filter, f)?;
    window.check_gradient("conv2d_backward_data", dout, f)?;
    let filter_t = crate::kernels::transpose::transpose_dense(&filter.to_dense());
    let dout = dout.to_dense();
    let pq = window.p() * window.q();
    window.check_window_matrix("conv2d_backward_data")?;
    by_image(
        "conv2d_backward_data",
        window.n,
        window.image_len(),
        |n, out| {
            let gradient = DenseMatrix::from_vec(f, pq, dout.row(n).to_vec())?;
            window.col2im(&gemm(&filter_t, &gradient)?, out);
            Ok(())
        },
    )
}

/// Which reduction a pooling window applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pool {
    Max,
    Avg,
}

impl Pool {
    fn name(self) -> &'static str {
        match self {
            Pool::Max => "max_pool",
            Pool::Avg => "avg_pool",
        }
    }
}

/// `max_pool(X)` or `avg_pool(X)`: `N x (C*P*Q)`.
pub fn pool(kind: Pool, x: &Matrix, window: &Window) -> Result<Matrix> {
    window.check_images(kind.name(), x)?;
    let x = x.to_dense();
    let (p_len, q_len) = (window.p(), window.q());
    let area = (window.r * window.s) as f64;
    by_image(
        kind.name(),
        window.n,
        window.output_len(window.c)?,
        |n, out| {
            let image = x.row(n);
            for c in 0..window.c {
                let channel = &image[c * window.h * window.w..(c + 1) * window.h * window.w];
                for p in 0..p_len {
                    for q in 0..q_len {
                        let (rows, cols) = window.pool_cells(p, q);
                        let cells = rows.flat_map(|i| cols.clone().map(move |j| i * window.w + j));
                        out[(c * p_len + p) * q_len + q] = match kind {
                            // Java's Math.max, as SystemDS: a NaN in the window wins.
                            Pool::Max => cells.map(|k| channel[k]).fold(-f64::MAX, |m, v| {
                                if v.is_nan() || m.is_nan() {
                                    f64::NAN
                                } else {
                                    m.max(v)
                                }
                            }),
                            Pool::Avg => cells.map(|k| channel[k]).sum::<f64>() / area,
                        };
                    }
                }
            }
            Ok(())
        },
    )
}

/// `max_pool_backward(X, dout)` or `avg_pool_backward(X, dout)`: `N x (C*H*W)`.
pub fn pool_backward(kind: Pool, x: &Matrix, dout: &Matrix, window: &Window) -> Result<Matrix> {
    let op = match kind {
        Pool::Max => "max_pool_backward",
        Pool::Avg => "avg_pool_backward",
    };
    window.check_images(op, x)?;
    window.check_gradient(op, dout, window.c)?;
    let (x, dout) = (x.to_dense(), dout.to_dense());
    let (p_len, q_len) = (window.p(), window.q());
    let area = (window.r * window.s) as f64;
    let hw = window.h * window.w;
    by_image(op, window.n, window.image_len(), |n, out| {
        let (image, gradient) = (x.row(n), dout.row(n));
        for c in 0..window.c {
            let channel = &image[c * hw..(c + 1) * hw];
            let into = &mut out[c * hw..(c + 1) * hw];
            for p in 0..p_len {
                for q in 0..q_len {
                    let g = gradient[(c * p_len + p) * q_len + q];
                    let (rows, cols) = window.pool_cells(p, q);
                    let cells = rows.flat_map(|i| cols.clone().map(move |j| i * window.w + j));
                    match kind {
                        Pool::Max => {
                            let mut best: Option<(usize, f64)> = None;
                            for k in cells {
                                if best.is_none_or(|(_, v)| v < channel[k]) {
                                    best = Some((k, channel[k]));
                                }
                            }
                            if let Some((k, _)) = best {
                                into[k] += g;
                            }
                        }
                        Pool::Avg => {
                            for k in cells {
                                into[k] += g / area;
                            }
                        }
                    }
                }
            }
        }
        Ok(())
    })
}

/// Whether `bias_add` adds or `bias_multiply` multiplies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bias {
    Add,
    Multiply,
}

/// `bias_add(X, b)` or `bias_multiply(X, b)`: `b` has one row per channel, and each
/// channel's block of `ncol(X) / nrow(b)` columns takes its row's value.
pub fn bias(kind: Bias, x: &Matrix, b: &Matrix) -> Result<Matrix> {
    let op = match kind {
        Bias::Add => "bias_add",
        Bias::Multiply => "bias_multiply",
    };
    let channels = b.shape().rows;
    if b.shape().cols != 1 || channels == 0 || !x.shape().cols.is_multiple_of(channels) {
        return Err(ExecError::shape_mismatch(op, x.shape(), b.shape()));
    }
    let block = x.shape().cols / channels;
    let (x, b) = (x.to_dense(), b.to_dense());
    by_image(op, x.shape().rows, x.shape().cols, |n, out| {
        for (k, (o, v)) in out.iter_mut().zip(x.row(n)).enumerate() {
            let value = b.data()[k / block];
            *o = match kind {
                Bias::Add => v + value,
                Bias::Multiply => v * value,
            };
        }
        Ok(())
    })
}

/// Whether `batch_norm2d` normalizes by the batch's statistics or by the moving averages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Train,
    Test,
}

/// What `batch_norm2d` returns, each statistic a `C x 1` column.
#[derive(Clone, Debug)]
pub struct BatchNorm {
    /// The normalized, scaled and shifted batch.
    pub out: DenseMatrix,
    /// The moving averages after this batch (unchanged in [`Phase::Test`]).
    pub ema_mean: DenseMatrix,
    pub ema_var: DenseMatrix,
    /// The mean and `1 / sqrt(var + epsilon)` the batch was normalized by.
    pub mean: DenseMatrix,
    pub inv_var: DenseMatrix,
}

/// A `C x 1` column of per-channel values, checked against the channel count.
fn channel_column(op: &str, m: &Matrix, channels: usize) -> Result<Vec<f64>> {
    let expected = Shape::new(channels, 1);
    ExecError::ensure_shapes(m.shape() == expected, op, m.shape(), expected)?;
    Ok(m.to_dense().into_vec())
}

/// The channel count (`nrow(gamma)`) and cells per channel of a batch `x`.
fn channels(op: &str, x: &Matrix, gamma: &Matrix) -> Result<(usize, usize)> {
    let c = gamma.shape().rows;
    if c == 0 || !x.shape().cols.is_multiple_of(c) {
        return Err(ExecError::shape_mismatch(op, x.shape(), gamma.shape()));
    }
    Ok((c, x.shape().cols / c))
}

fn column(values: Vec<f64>) -> DenseMatrix {
    let n = values.len();
    DenseMatrix::from_fn(n, 1, |i, _| values[i])
}

/// `batch_norm2d(X, gamma, beta, ema_mean, ema_var, mode, epsilon, mu)`: each channel of
/// `X` (`nrow(gamma)` channels) normalized by its mean and uncorrected variance over the
/// batch (training) or by the moving averages (testing), then scaled by `gamma` and
/// shifted by `beta`. Training moves the averages by `mu`: `mu * ema + (1 - mu) * stat`.
/// The variance is `E[x^2] - E[x]^2`, as SystemDS computes it.
#[allow(clippy::too_many_arguments)]
pub fn batch_norm2d(
    x: &Matrix,
    gamma: &Matrix,
    beta: &Matrix,
    ema_mean: &Matrix,
    ema_var: &Matrix,
    phase: Phase,
    epsilon: f64,
    mu: f64,
) -> Result<BatchNorm> {
    let op = "batch_norm2d";
    let (c, cells) = channels(op, x, gamma)?;
    let gamma = channel_column(op, gamma, c)?;
    let beta = channel_column(op, beta, c)?;
    let ema_mean = channel_column(op, ema_mean, c)?;
    let ema_var = channel_column(op, ema_var, c)?;
    crate::memory::ensure_dense(op, x.shape().rows, x.shape().cols)?;
    let x = x.to_dense();
    let n = x.shape().rows;
    let (mean, var, ema_mean, ema_var) = match phase {
        Phase::Train => {
            let (mut sum, mut squares) = (vec![0.0; c], vec![0.0; c]);
            for i in 0..n {
                for (k, block) in x.row(i).chunks(cells).enumerate() {
                    sum[k] += block.iter().sum::<f64>();
                    squares[k] += block.iter().map(|v| v * v).sum::<f64>();
                }
            }
            let count = (n * cells) as f64;
            let mean: Vec<f64> = sum.iter().map(|s| s / count).collect();
            let var: Vec<f64> = (0..c)
                .map(|k| squares[k] / count - mean[k] * mean[k])
                .collect();
            let moved = |ema: &[f64], stat: &[f64]| -> Vec<f64> {
                (0..c).map(|k| mu * ema[k] + (1.0 - mu) * stat[k]).collect()
            };
            let (m, v) = (moved(&ema_mean, &mean), moved(&ema_var, &var));
            (mean, var, m, v)
        }
        Phase::Test => (ema_mean.clone(), ema_var.clone(), ema_mean, ema_var),
    };
    let inv_var: Vec<f64> = var.iter().map(|v| 1.0 / (v + epsilon).sqrt()).collect();
    let mut out = x;
    if cells > 0 {
        out.data_mut().par_chunks_mut(cells * c).for_each(|row| {
            for (k, block) in row.chunks_mut(cells).enumerate() {
                for v in block {
                    *v = (*v - mean[k]) * inv_var[k] * gamma[k] + beta[k];
                }
            }
        });
    }
    Ok(BatchNorm {
        out,
        ema_mean: column(ema_mean),
        ema_var: column(ema_var),
        mean: column(mean),
        inv_var: column(inv_var),
    })
}

/// `batch_norm2d_backward(X, dout, gamma, epsilon, mean, inv_var)`: the gradients of
/// the input, of `gamma` and of `beta` of a training-phase `batch_norm2d` that normalized
/// by `mean` and `inv_var` (its cached statistics).
pub fn batch_norm2d_backward(
    x: &Matrix,
    dout: &Matrix,
    gamma: &Matrix,
    mean: &Matrix,
    inv_var: &Matrix,
) -> Result<(DenseMatrix, DenseMatrix, DenseMatrix)> {
    let op = "batch_norm2d_backward";
    ExecError::ensure_shapes(dout.shape() == x.shape(), op, x.shape(), dout.shape())?;
    let (c, cells) = channels(op, x, gamma)?;
    let gamma = channel_column(op, gamma, c)?;
    let mean = channel_column(op, mean, c)?;
    let inv_var = channel_column(op, inv_var, c)?;
    // The dense copies of `X` and `dout`, and the gradient.
    crate::memory::ensure_fits(
        &format!("{op}: three dense {} results", x.shape()),
        3.0 * 8.0 * x.shape().cells() as f64,
    )?;
    let (x, dout) = (x.to_dense(), dout.to_dense());
    let n = x.shape().rows;
    let count = (n * cells) as f64;
    let blocks = |m: &DenseMatrix, k: usize| -> Vec<f64> {
        (0..n)
            .flat_map(|i| m.row(i)[k * cells..(k + 1) * cells].to_vec())
            .collect()
    };
    let mut dx = DenseMatrix::zeros(n, c * cells);
    let (mut dgamma, mut dbeta) = (vec![0.0; c], vec![0.0; c]);
    for k in 0..c {
        let (xs, ds) = (blocks(&x, k), blocks(&dout, k));
        let centered: Vec<f64> = xs.iter().map(|v| v - mean[k]).collect();
        dbeta[k] = ds.iter().sum();
        dgamma[k] = centered
            .iter()
            .zip(&ds)
            .map(|(x, d)| x * inv_var[k] * d)
            .sum();
        // d/dvar and d/dmean of the normalized values, then the three paths to X.
        let dvar: f64 = centered
            .iter()
            .zip(&ds)
            .map(|(x, d)| -0.5 * x * inv_var[k].powi(3) * d * gamma[k])
            .sum();
        let dmean = -ds.iter().map(|d| d * gamma[k] * inv_var[k]).sum::<f64>()
            - 2.0 / count * centered.iter().sum::<f64>() * dvar;
        for (t, (x, d)) in centered.iter().zip(&ds).enumerate() {
            let (i, j) = (t / cells, t % cells);
            let value = d * gamma[k] * inv_var[k] + dmean / count + 2.0 / count * x * dvar;
            dx.set(i, k * cells + j, value);
        }
    }
    Ok((dx, column(dgamma), column(dbeta)))
}

/// What `lstm` returns: the outputs, the last cell state, and per time step (one row
/// each) the outputs, cell states and activated gates `[i, f, o, g]`, each flattened row
/// by row.
#[derive(Clone, Debug)]
pub struct Lstm {
    /// `N x (T*M)` with `return_sequences`, else the last step's `N x M`.
    pub out: DenseMatrix,
    /// `N x M`.
    pub c: DenseMatrix,
    /// `T x (N*M)`.
    pub cache_out: DenseMatrix,
    /// `T x (N*M)`.
    pub cache_c: DenseMatrix,
    /// `T x (N*4M)`.
    pub cache_ifog: DenseMatrix,
}

/// What `lstm_backward` returns.
#[derive(Clone, Debug)]
pub struct LstmGradients {
    /// `N x (T*D)`.
    pub dx: DenseMatrix,
    /// `(D+M) x 4M`.
    pub dw: DenseMatrix,
    /// `1 x 4M`.
    pub db: DenseMatrix,
    /// `N x M`.
    pub dout0: DenseMatrix,
    /// `N x M`.
    pub dc0: DenseMatrix,
}

/// The sizes of an LSTM: batch `n`, features `d`, steps `t`, hidden units `m`, read from
/// `X` (`N x T*D`), `W` (`(D+M) x 4M`), `b` (`1 x 4M`), `out0` and `c0` (`N x M`).
#[derive(Clone, Copy, Debug)]
struct LstmSizes {
    n: usize,
    d: usize,
    t: usize,
    m: usize,
}

impl LstmSizes {
    fn of(
        op: &str,
        x: &Matrix,
        w: &Matrix,
        b: &Matrix,
        out0: &Matrix,
        c0: &Matrix,
    ) -> Result<Self> {
        let (n, m) = (out0.shape().rows, out0.shape().cols);
        ExecError::ensure_shapes(c0.shape() == out0.shape(), op, out0.shape(), c0.shape())?;
        let d = w.shape().rows.saturating_sub(m);
        let fits_w = w.shape().cols == 4 * m && d > 0;
        ExecError::ensure_shapes(
            fits_w,
            op,
            w.shape(),
            Shape::new(w.shape().rows.max(m + 1), 4 * m),
        )?;
        ExecError::ensure_shapes(
            b.shape() == Shape::new(1, 4 * m),
            op,
            b.shape(),
            Shape::new(1, 4 * m),
        )?;
        let fits_x = x.shape().rows == n && x.shape().cols.is_multiple_of(d) && x.shape().cols > 0;
        ExecError::ensure_shapes(fits_x, op, x.shape(), Shape::new(n, d))?;
        Ok(LstmSizes {
            n,
            d,
            t: x.shape().cols / d,
            m,
        })
    }

    /// `cbind(X_t, out_prev)`: the `N x (D+M)` input of step `t`.
    fn input(&self, x: &DenseMatrix, step: usize, out_prev: &[f64]) -> DenseMatrix {
        let (d, m) = (self.d, self.m);
        DenseMatrix::from_fn(self.n, d + m, |i, j| {
            if j < d {
                x.get(i, step * d + j)
            } else {
                out_prev[i * m + j - d]
            }
        })
    }
}

fn sigmoid(v: f64) -> f64 {
    1.0 / ((-v).exp() + 1.0)
}

/// `lstm(X, W, b, out0, c0, return_sequences)`: an LSTM over the `T` steps of `X`, gates
/// `[i, f, o, g] = cbind(X_t, out_prev) %*% W + b` (sigmoid, sigmoid, sigmoid, tanh),
/// `c = f * c_prev + i * g`, `out = o * tanh(c)`.
pub fn lstm(
    x: &Matrix,
    w: &Matrix,
    b: &Matrix,
    out0: &Matrix,
    c0: &Matrix,
    return_sequences: bool,
) -> Result<Lstm> {
    let sizes = LstmSizes::of("lstm", x, w, b, out0, c0)?;
    let LstmSizes { n, t, m, .. } = sizes;
    // The caches of outputs, cell states and four gates, and at most as many outputs:
    // seven cells per step, row and unit.
    crate::memory::ensure_fits(
        &format!("lstm: caches of {t} steps of {n}x{m}"),
        8.0 * t as f64 * n as f64 * m as f64 * 7.0,
    )?;
    let (x, w, b) = (x.to_dense(), w.to_dense(), b.to_dense());
    let mut out_prev = out0.to_dense().into_vec();
    let mut c_prev = c0.to_dense().into_vec();
    let mut cache_out = DenseMatrix::zeros(t, n * m);
    let mut cache_c = DenseMatrix::zeros(t, n * m);
    let mut cache_ifog = DenseMatrix::zeros(t, n * 4 * m);
    let mut out = DenseMatrix::zeros(n, if return_sequences { t * m } else { m });
    for step in 0..t {
        let gates = gemm(&sizes.input(&x, step, &out_prev), &w)?;
        for i in 0..n {
            let raw = gates.row(i);
            let ifog = &mut cache_ifog.row_mut(step)[i * 4 * m..(i + 1) * 4 * m];
            for j in 0..m {
                let gate = |k: usize| raw[k * m + j] + b.data()[k * m + j];
                let (ig, fg, og, gg) = (
                    sigmoid(gate(0)),
                    sigmoid(gate(1)),
                    sigmoid(gate(2)),
                    gate(3).tanh(),
                );
                let c = c_prev[i * m + j] * fg + ig * gg;
                let o = c.tanh() * og;
                [ifog[j], ifog[m + j], ifog[2 * m + j], ifog[3 * m + j]] = [ig, fg, og, gg];
                c_prev[i * m + j] = c;
                out_prev[i * m + j] = o;
                if return_sequences {
                    out.set(i, step * m + j, o);
                }
            }
        }
        cache_out.row_mut(step).copy_from_slice(&out_prev);
        cache_c.row_mut(step).copy_from_slice(&c_prev);
    }
    if !return_sequences {
        out = DenseMatrix::from_vec(n, m, out_prev)?;
    }
    Ok(Lstm {
        out,
        c: DenseMatrix::from_vec(n, m, c_prev)?,
        cache_out,
        cache_c,
        cache_ifog,
    })
}

/// `lstm_backward(X, W, b, out0, c0, given_sequences, dout, dc, ...)`: the gradients of
/// an [`lstm`] whose caches are `forward`'s, given the gradient of its outputs `dout`
/// (`N x T*M` with `given_sequences`, else `N x M`) and of its last cell state `dc`.
#[allow(clippy::too_many_arguments)]
pub fn lstm_backward(
    x: &Matrix,
    w: &Matrix,
    b: &Matrix,
    out0: &Matrix,
    c0: &Matrix,
    given_sequences: bool,
    dout: &Matrix,
    dc: &Matrix,
    forward: &Lstm,
) -> Result<LstmGradients> {
    let op = "lstm_backward";
    let sizes = LstmSizes::of(op, x, w, b, out0, c0)?;
    let LstmSizes { n, d, t, m } = sizes;
    let dout_shape = Shape::new(n, if given_sequences { t * m } else { m });
    ExecError::ensure_shapes(dout.shape() == dout_shape, op, dout.shape(), dout_shape)?;
    ExecError::ensure_shapes(dc.shape() == c0.shape(), op, dc.shape(), c0.shape())?;
    let cache = |mat: &DenseMatrix, width: usize| {
        ExecError::ensure_shapes(
            mat.shape() == Shape::new(t, n * width),
            op,
            mat.shape(),
            Shape::new(t, n * width),
        )
    };
    cache(&forward.cache_out, m)?;
    cache(&forward.cache_c, m)?;
    cache(&forward.cache_ifog, 4 * m)?;
    crate::memory::ensure_dense(op, n, t * d)?;
    let (x, w_t) = (
        x.to_dense(),
        crate::kernels::transpose::transpose_dense(&w.to_dense()),
    );
    let dout = dout.to_dense();
    let (out0, c0) = (out0.to_dense(), c0.to_dense());
    let mut dc = dc.to_dense().into_vec();
    let mut dout_next = vec![0.0; n * m];
    let mut dx = DenseMatrix::zeros(n, t * d);
    let mut dw = DenseMatrix::zeros(d + m, 4 * m);
    let mut db = vec![0.0; 4 * m];
    for step in (0..t).rev() {
        // The gradient reaching this step's output: its own slice of `dout` (or all of it
        // at the last step without sequences) plus what the next step sent back.
        let dout_t: Vec<f64> = (0..n * m)
            .map(|k| {
                let (i, j) = (k / m, k % m);
                let own = match (given_sequences, step + 1 == t) {
                    (true, _) => dout.get(i, step * m + j),
                    (false, true) => dout.get(i, j),
                    (false, false) => 0.0,
                };
                own + dout_next[k]
            })
            .collect();
        let c_t = forward.cache_c.row(step);
        let c_prev = if step == 0 {
            c0.data()
        } else {
            forward.cache_c.row(step - 1)
        };
        let ifog = forward.cache_ifog.row(step);
        let mut difog = DenseMatrix::zeros(n, 4 * m);
        for i in 0..n {
            for j in 0..m {
                let k = i * m + j;
                let gate = |g: usize| ifog[i * 4 * m + g * m + j];
                let (ig, fg, og, gg) = (gate(0), gate(1), gate(2), gate(3));
                let tanh_c = c_t[k].tanh();
                dc[k] += og * (1.0 - tanh_c * tanh_c) * dout_t[k];
                let raw = difog.row_mut(i);
                raw[j] = ig * (1.0 - ig) * gg * dc[k];
                raw[m + j] = fg * (1.0 - fg) * c_prev[k] * dc[k];
                raw[2 * m + j] = og * (1.0 - og) * tanh_c * dout_t[k];
                raw[3 * m + j] = (1.0 - gg * gg) * ig * dc[k];
            }
        }
        let out_prev = if step == 0 {
            out0.data()
        } else {
            forward.cache_out.row(step - 1)
        };
        let input = sizes.input(&x, step, out_prev);
        let step_dw = gemm(&crate::kernels::transpose::transpose_dense(&input), &difog)?;
        dw.data_mut()
            .iter_mut()
            .zip(step_dw.data())
            .for_each(|(a, v)| *a += v);
        for i in 0..n {
            db.iter_mut().zip(difog.row(i)).for_each(|(a, v)| *a += v);
        }
        let dinput = gemm(&difog, &w_t)?;
        for i in 0..n {
            dx.row_mut(i)[step * d..(step + 1) * d].copy_from_slice(&dinput.row(i)[..d]);
            dout_next[i * m..(i + 1) * m].copy_from_slice(&dinput.row(i)[d..]);
        }
        for i in 0..n {
            for j in 0..m {
                dc[i * m + j] *= ifog[i * 4 * m + m + j];
            }
        }
    }
    Ok(LstmGradients {
        dx,
        dw,
        db: DenseMatrix::from_vec(1, 4 * m, db)?,
        dout0: DenseMatrix::from_vec(n, m, dout_next)?,
        dc0: DenseMatrix::from_vec(n, m, dc)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::random::java_random::JavaRandom;

    fn random(rows: usize, cols: usize, seed: i64) -> Matrix {
        let mut rng = JavaRandom::new(seed);
        Matrix::Dense(DenseMatrix::from_fn(rows, cols, |_, _| {
            rng.next_double() * 2.0 - 1.0
        }))
    }

    /// The convolution straight from its definition, zero padding included.
    fn naive_conv(x: &DenseMatrix, filter: &DenseMatrix, g: &Window, f: usize) -> Vec<f64> {
        let (p_len, q_len) = (g.p(), g.q());
        let mut out = vec![0.0; g.n * f * p_len * q_len];
        for n in 0..g.n {
            for k in 0..f {
                for p in 0..p_len {
                    for q in 0..q_len {
                        let mut sum = 0.0;
                        for c in 0..g.c {
                            for r in 0..g.r {
                                for s in 0..g.s {
                                    let i = (p * g.stride_h + r) as isize - g.pad_h as isize;
                                    let j = (q * g.stride_w + s) as isize - g.pad_w as isize;
                                    if i < 0 || j < 0 || i >= g.h as isize || j >= g.w as isize {
                                        continue;
                                    }
                                    let pixel = (c * g.h + i as usize) * g.w + j as usize;
                                    sum += x.get(n, pixel) * filter.get(k, (c * g.r + r) * g.s + s);
                                }
                            }
                        }
                        out[((n * f + k) * p_len + p) * q_len + q] = sum;
                    }
                }
            }
        }
        out
    }

    fn dot(a: &Matrix, b: &Matrix) -> f64 {
        let (a, b) = (a.to_dense(), b.to_dense());
        a.data().iter().zip(b.data()).map(|(x, y)| x * y).sum()
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * (1.0 + a.abs().max(b.abs()))
    }

    #[test]
    fn convolution_and_its_gradients_agree_with_their_definitions() {
        for (k, (stride, padding)) in [([1, 1], [0, 0]), ([2, 1], [1, 1]), ([2, 3], [2, 0])]
            .into_iter()
            .enumerate()
        {
            let g = Window::new([2, 3, 7, 6], [3, 2], stride, padding).unwrap();
            let f = 4;
            let x = random(g.n, g.c * g.h * g.w, 10 + k as i64);
            let filter = random(f, g.c * g.r * g.s, 20 + k as i64);
            let out = conv2d(&x, &filter, &g, f).unwrap();
            let naive = naive_conv(&x.to_dense(), &filter.to_dense(), &g, f);
            assert!(out
                .to_dense()
                .data()
                .iter()
                .zip(&naive)
                .all(|(a, b)| close(*a, *b)));
            // The backward forms are the adjoints: <dout, conv(X, W)> is linear in each.
            let dout = random(g.n, f * g.p() * g.q(), 30 + k as i64);
            let d_filter = conv2d_backward_filter(&x, &dout, &g, f).unwrap();
            let d_x = conv2d_backward_data(&filter, &dout, &g, f).unwrap();
            assert!(close(dot(&dout, &out), dot(&d_filter, &filter)));
            assert!(close(dot(&dout, &out), dot(&d_x, &x)));
        }
    }

    #[test]
    fn pooling_clips_its_window_and_sends_the_gradient_to_the_first_maximum() {
        // One 2x3 image [[1, 5, 5], [2, 0, 3]], 2x2 windows, stride 2, padding 1: the
        // windows are rows {0} or {1} by columns {0} or {1, 2}.
        let x = Matrix::Dense(DenseMatrix::from_vec(1, 6, vec![1., 5., 5., 2., 0., 3.]).unwrap());
        let g = Window::new([1, 1, 2, 3], [2, 2], [2, 2], [1, 1]).unwrap();
        assert_eq!((g.p(), g.q()), (2, 2));
        let max = pool(Pool::Max, &x, &g).unwrap().to_dense();
        assert_eq!(max.data(), &[1., 5., 2., 3.]);
        let avg = pool(Pool::Avg, &x, &g).unwrap().to_dense();
        assert_eq!(avg.data(), &[1. / 4., 10. / 4., 2. / 4., 3. / 4.]);
        let dout = Matrix::Dense(DenseMatrix::from_vec(1, 4, vec![1., 10., 100., 1000.]).unwrap());
        let back = pool_backward(Pool::Max, &x, &dout, &g).unwrap().to_dense();
        assert_eq!(back.data(), &[1., 10., 0., 100., 0., 1000.]);
        let back = pool_backward(Pool::Avg, &x, &dout, &g).unwrap().to_dense();
        assert_eq!(back.data(), &[0.25, 2.5, 2.5, 25., 250., 250.]);
    }

    #[test]
    fn batch_norm_gives_each_channel_mean_beta_and_variance_gamma_squared() {
        let x = random(4, 2 * 5, 3);
        let column = |v: &[f64]| Matrix::Dense(DenseMatrix::from_vec(2, 1, v.to_vec()).unwrap());
        let (gamma, beta) = (column(&[2.0, 0.5]), column(&[1.0, -3.0]));
        let ema = column(&[0.0, 1.0]);
        let norm = batch_norm2d(&x, &gamma, &beta, &ema, &ema, Phase::Train, 0.0, 0.75).unwrap();
        for (k, (g, b)) in [(2.0, 1.0), (0.5, -3.0)].into_iter().enumerate() {
            let cells: Vec<f64> = (0..4)
                .flat_map(|i| norm.out.row(i)[k * 5..(k + 1) * 5].to_vec())
                .collect();
            let mean = cells.iter().sum::<f64>() / 20.0;
            let var = cells.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / 20.0;
            assert!(
                close(mean, b) && close(var, g * g),
                "channel {k}: {mean} {var}"
            );
            let batch_var = 1.0 / norm.inv_var.get(k, 0).powi(2);
            let ema_before = [0.0, 1.0][k];
            assert!(close(
                norm.ema_var.get(k, 0),
                0.75 * ema_before + 0.25 * batch_var
            ));
        }
        // The gradients sum to zero over each channel: a shift of X changes nothing.
        let dout = random(4, 10, 4);
        let (dx, _, dbeta) = batch_norm2d_backward(
            &x,
            &dout,
            &gamma,
            &Matrix::Dense(norm.mean),
            &Matrix::Dense(norm.inv_var),
        )
        .unwrap();
        for k in 0..2 {
            let sum: f64 = (0..4)
                .map(|i| dx.row(i)[k * 5..(k + 1) * 5].iter().sum::<f64>())
                .sum();
            assert!(sum.abs() < 1e-9, "channel {k}: {sum}");
        }
        let dsum: f64 = dout.to_dense().row(0)[..5].iter().sum::<f64>()
            + (1..4)
                .map(|i| dout.to_dense().row(i)[..5].iter().sum::<f64>())
                .sum::<f64>();
        assert!(close(dbeta.get(0, 0), dsum));
    }

    #[test]
    fn lstm_gradients_match_finite_differences() {
        let (x, w, b) = (random(2, 3 * 4, 5), random(4 + 3, 12, 6), random(1, 12, 7));
        let (h, c) = (random(2, 3, 8), random(2, 3, 9));
        let dout = random(2, 3 * 3, 10);
        let dc = Matrix::Dense(DenseMatrix::zeros(2, 3));
        // The loss <dout, out> over every step's output.
        let loss = |w: &Matrix| {
            dot(
                &Matrix::Dense(lstm(&x, w, &b, &h, &c, true).unwrap().out),
                &dout,
            )
        };
        let forward = lstm(&x, &w, &b, &h, &c, true).unwrap();
        let grads = lstm_backward(&x, &w, &b, &h, &c, true, &dout, &dc, &forward).unwrap();
        let step = 1e-6;
        for (i, j) in [(0, 0), (3, 5), (6, 11), (5, 2)] {
            let nudged = |delta: f64| {
                let mut m = w.to_dense();
                m.set(i, j, m.get(i, j) + delta);
                loss(&Matrix::Dense(m))
            };
            let numeric = (nudged(step) - nudged(-step)) / (2.0 * step);
            let analytic = grads.dw.get(i, j);
            assert!(
                (numeric - analytic).abs() < 1e-6,
                "dW[{i},{j}]: {numeric} vs {analytic}"
            );
        }
        let err = lstm(&x, &random(6, 10, 1), &b, &h, &c, true)
            .unwrap_err()
            .to_string();
        assert!(err.contains("6x10") && err.contains("6x12"), "{err}");
    }

    #[test]
    fn bias_takes_one_row_per_channel_and_shapes_are_checked() {
        let x = Matrix::Dense(DenseMatrix::filled(2, 6, 1.0));
        let b = Matrix::Dense(DenseMatrix::from_vec(3, 1, vec![1., 2., 3.]).unwrap());
        let added = bias(Bias::Add, &x, &b).unwrap().to_dense();
        assert_eq!(added.row(1), &[2., 2., 3., 3., 4., 4.]);
        let scaled = bias(Bias::Multiply, &x, &b).unwrap().to_dense();
        assert_eq!(scaled.row(0), &[1., 1., 2., 2., 3., 3.]);
        let four = Matrix::Dense(DenseMatrix::filled(4, 1, 1.0));
        let err = bias(Bias::Add, &x, &four).unwrap_err().to_string();
        assert!(err.contains("2x6") && err.contains("4x1"), "{err}");
        let g = Window::new([2, 1, 3, 3], [2, 2], [1, 1], [0, 0]).unwrap();
        let err = conv2d(&x, &x, &g, 1).unwrap_err().to_string();
        assert!(err.contains("2x6") && err.contains("2x9"), "{err}");
        let err = Window::new([1, 1, 2, 2], [3, 3], [1, 1], [0, 0])
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("3x3 window") && err.contains("2x2 image"),
            "{err}"
        );
    }
}
