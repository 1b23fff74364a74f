//! Dense linear algebra of DML: `solve`, `inv`, `det`, `cholesky` and the decompositions
//! `eigen`, `qr`, `lu` and `svd`, on faer's blocked factorizations.
//!
//! faer runs its parallel steps on the rayon pool of the calling thread (its global
//! parallelism is `Rayon(0)`: that pool's thread count), so `--threads` bounds it as it
//! bounds every other kernel. Results follow SystemDS 3.4's conventions (Apache Commons
//! Math underneath): shapes, result order, the singularity and definiteness thresholds,
//! and the signs of `eigen`'s vectors and of `qr`'s factors where the factorization is
//! generic. The functions document where a result can differ from SystemDS's.

use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::solvers::{Qr, SolveLstsq, Svd};
use faer::perm::PermRef;
use faer::{Mat, MatMut, MatRef};

use crate::error::{ExecError, Result};
use crate::matrix::{DenseMatrix, Matrix};

/// LU pivots below this magnitude make a matrix singular for `inv`, `det` and `lu` (Commons
/// Math's `LUDecomposition` default, which SystemDS uses).
const SINGULARITY: f64 = 1e-11;

/// Cholesky pivots (`L[j,j]^2`) at or below this are not positive (Commons Math's absolute
/// positivity threshold).
const POSITIVITY: f64 = 1e-10;

/// `rows * cols * min(rows, cols)` up to which [`qr`] factors on one thread.
const QR_SEQUENTIAL_WORK: usize = 2000 * 2000 * 2000;

/// The order up to which [`Tridiagonal::of`] reduces on one thread.
const TRIDIAG_SEQUENTIAL_MAX: usize = 1500;

/// Relative difference of `A[i,j]` and `A[j,i]` above which `cholesky` rejects `A` as not
/// symmetric (SystemDS's `RELATIVE_SYMMETRY_THRESHOLD`).
const SYMMETRY: f64 = 1e-6;

fn square(op: &str, m: &Matrix) -> Result<usize> {
    if m.rows() != m.cols() {
        return Err(ExecError::invalid(format!(
            "{op} needs a square matrix, got {}",
            m.shape()
        )));
    }
    Ok(m.rows())
}

/// A column-major copy for faer.
fn to_faer(m: &Matrix) -> Mat<f64> {
    let dense;
    let d = match m {
        Matrix::Dense(d) => d,
        Matrix::Sparse(_) => {
            dense = m.to_dense();
            &dense
        }
    };
    // `copy_from` transposes blockwise; `MatRef::to_owned` of a row-major view walks it
    // cell by cell (6x slower on 1000 x 1000).
    let mut out = Mat::<f64>::zeros(d.rows(), d.cols());
    out.copy_from(MatRef::from_row_major_slice(d.data(), d.rows(), d.cols()));
    out
}

/// A row-major copy of a faer matrix (one pass: faer copies across layouts blockwise).
fn from_faer(m: MatRef<'_, f64>) -> Result<Matrix> {
    let (rows, cols) = m.shape();
    let mut data = vec![0.0; rows * cols];
    MatMut::from_row_major_slice_mut(&mut data, rows, cols).copy_from(m);
    Ok(Matrix::Dense(DenseMatrix::from_vec(rows, cols, data)?))
}

/// The partial-pivoting LU of a square matrix, packed in one row-major matrix
/// (unit-lower `L` below the diagonal, `U` on and above it) as faer factors it in place:
/// solving, inverting and `det` read the packed form, which saves the copies into
/// separate factors that faer's `PartialPivLu` makes. faer's kernels take any strides,
/// so the factorization runs on a plain copy of the input, and the results keep its
/// row-major layout, with no transposing copy either way.
struct PackedLu {
    lu: DenseMatrix,
    forward: Vec<usize>,
    inverse: Vec<usize>,
}

impl PackedLu {
    fn new(m: &Matrix) -> Self {
        use faer::linalg::lu::partial_pivoting::factor::{lu_in_place, lu_in_place_scratch};
        let mut lu = m.to_dense();
        let n = lu.rows();
        let (mut forward, mut inverse) = (vec![0; n], vec![0; n]);
        let par = faer::get_global_parallelism();
        let mut mem = MemBuffer::new(lu_in_place_scratch::<usize, f64>(
            n,
            n,
            par,
            Default::default(),
        ));
        lu_in_place(
            MatMut::from_row_major_slice_mut(lu.data_mut(), n, n),
            &mut forward,
            &mut inverse,
            par,
            MemStack::new(&mut mem),
            Default::default(),
        );
        PackedLu {
            lu,
            forward,
            inverse,
        }
    }

    fn packed(&self) -> MatRef<'_, f64> {
        MatRef::from_row_major_slice(self.lu.data(), self.lu.rows(), self.lu.cols())
    }

    fn perm(&self) -> PermRef<'_, usize> {
        PermRef::new_checked(&self.forward, &self.inverse, self.forward.len())
    }

    fn pivots(&self) -> impl Iterator<Item = f64> + '_ {
        (0..self.lu.rows()).map(|i| self.lu.get(i, i))
    }

    /// Whether a pivot is below [`SINGULARITY`] (`det`, `lu`: Commons Math's LU).
    fn singular(&self) -> bool {
        self.pivots().any(|u| u.is_nan() || u.abs() < SINGULARITY)
    }

    /// Whether a pivot is zero (`inv`, `solve`: SystemDS takes them from Commons Math's
    /// QR, whose singularity threshold is 0, so it inverts a matrix that is singular
    /// only up to rounding).
    fn zero_pivot(&self) -> bool {
        self.pivots().any(|u| u == 0.0)
    }
}

/// DML `inv(A)`: the inverse of a square matrix (LU with partial pivoting); a zero
/// pivot is an error, as in SystemDS.
pub fn inverse(m: &Matrix) -> Result<Matrix> {
    use faer::linalg::lu::partial_pivoting::inverse::{inverse, inverse_scratch};
    let n = square("inv", m)?;
    let lu = PackedLu::new(m);
    if lu.zero_pivot() {
        return Err(ExecError::invalid("inv: the matrix is singular"));
    }
    let par = faer::get_global_parallelism();
    let mut out = DenseMatrix::zeros(n, n);
    let mut mem = MemBuffer::new(inverse_scratch::<usize, f64>(n, par));
    inverse(
        MatMut::from_row_major_slice_mut(out.data_mut(), n, n),
        lu.packed(),
        lu.packed(),
        lu.perm(),
        par,
        MemStack::new(&mut mem),
    );
    Ok(Matrix::Dense(out))
}

/// DML `det(A)`: the determinant of a square matrix, from its LU decomposition. Like
/// SystemDS, a matrix with an LU pivot below [`SINGULARITY`] has determinant 0.
pub fn det(m: &Matrix) -> Result<f64> {
    let n = square("det", m)?;
    if n == 0 {
        return Ok(1.0);
    }
    let lu = PackedLu::new(m);
    if lu.singular() {
        return Ok(0.0);
    }
    let det: f64 = lu.pivots().product();
    Ok(if odd_permutation(&lu.forward) {
        -det
    } else {
        det
    })
}

/// Whether a permutation, as the image of `0..n`, has odd parity: `n` minus its number
/// of cycles is odd.
fn odd_permutation(p: &[usize]) -> bool {
    let mut seen = vec![false; p.len()];
    let mut cycles = 0;
    for start in 0..p.len() {
        if !seen[start] {
            cycles += 1;
            let mut i = start;
            while !seen[i] {
                seen[i] = true;
                i = p[i];
            }
        }
    }
    (p.len() - cycles) % 2 == 1
}

/// DML `solve(A, b)`: `x` with `A x = b`, for a square `A` (LU with partial pivoting)
/// or the least-squares solution for a tall `A` (Householder QR). A zero pivot is an
/// error, as in SystemDS (its QR solver's threshold is 0).
pub fn solve(a: &Matrix, b: &Matrix) -> Result<Matrix> {
    if a.rows() != b.rows() || a.rows() < a.cols() {
        return Err(ExecError::shape_mismatch("solve", a.shape(), b.shape()));
    }
    let mut rhs = to_faer(b);
    if a.rows() == a.cols() {
        use faer::linalg::lu::partial_pivoting::solve::{solve_in_place, solve_in_place_scratch};
        let lu = PackedLu::new(a);
        if lu.zero_pivot() {
            return Err(ExecError::invalid("solve: the matrix is singular"));
        }
        let par = faer::get_global_parallelism();
        let mut mem = MemBuffer::new(solve_in_place_scratch::<usize, f64>(
            a.rows(),
            rhs.ncols(),
            par,
        ));
        solve_in_place(
            lu.packed(),
            lu.packed(),
            lu.perm(),
            rhs.as_mut(),
            par,
            MemStack::new(&mut mem),
        );
        from_faer(rhs.as_ref())
    } else {
        let qr = Qr::new(to_faer(a).as_ref());
        if qr
            .thin_R()
            .diagonal()
            .column_vector()
            .iter()
            .any(|&r| r == 0.0)
        {
            return Err(ExecError::invalid("solve: the matrix is rank deficient"));
        }
        qr.solve_lstsq_in_place(rhs.as_mut());
        from_faer(rhs.as_ref().subrows(0, a.cols()))
    }
}

/// DML `cholesky(A)`: the lower-triangular `L` with `L %*% t(L) == A`, for a symmetric
/// positive definite `A`; the thresholds are SystemDS's ([`SYMMETRY`], [`POSITIVITY`]).
pub fn cholesky(m: &Matrix) -> Result<Matrix> {
    use faer::linalg::cholesky::llt::factor::{cholesky_in_place, cholesky_in_place_scratch};
    let n = square("cholesky", m)?;
    let mut l = m.to_dense();
    if let Some((i, j)) = asymmetric_cell(&l) {
        let (x, y) = (l.get(i, j), l.get(j, i));
        return Err(ExecError::invalid(format!(
            "cholesky: the matrix is not symmetric (cell ({}, {}) is {x}, ({}, {}) is {y})",
            i + 1,
            j + 1,
            j + 1,
            i + 1
        )));
    }
    let not_definite = || ExecError::invalid("cholesky: the matrix is not positive definite");
    // Factored in place on the row-major copy: faer reads and writes only the lower
    // triangle, and its kernels take any strides, so no transposing copy is needed (on
    // 1000 x 1000 the two copies cost twice the factorization).
    let par = faer::get_global_parallelism();
    let mut mem = MemBuffer::new(cholesky_in_place_scratch::<f64>(n, par, Default::default()));
    cholesky_in_place(
        MatMut::from_row_major_slice_mut(l.data_mut(), n, n),
        Default::default(),
        par,
        MemStack::new(&mut mem),
        Default::default(),
    )
    .map_err(|_| not_definite())?;
    if (0..n).any(|j| l.get(j, j).is_nan() || l.get(j, j) * l.get(j, j) <= POSITIVITY) {
        return Err(not_definite());
    }
    for i in 0..n {
        l.row_mut(i)[i + 1..].fill(0.0);
    }
    Ok(Matrix::Dense(l))
}

/// The first cell `(i, j)`, `i > j`, in column order, whose value differs from its
/// mirror's by more than [`SYMMETRY`] relative; `None` for a symmetric matrix.
fn asymmetric_cell(a: &DenseMatrix) -> Option<(usize, usize)> {
    let n = a.rows();
    let differ = |i: usize, j: usize| {
        let (x, y) = (a.get(i, j), a.get(j, i));
        (x - y).abs() > SYMMETRY * x.abs().max(y.abs())
    };
    // Tile by tile, so that both a cell and its mirror stay in cache; only an asymmetric
    // matrix pays for the scan in column order that finds the first cell.
    const TILE: usize = 64;
    let symmetric = (0..n).step_by(TILE).all(|i0| {
        (0..=i0).step_by(TILE).all(|j0| {
            (i0..(i0 + TILE).min(n)).all(|i| (j0..(j0 + TILE).min(i)).all(|j| !differ(i, j)))
        })
    });
    if symmetric {
        return None;
    }
    (0..n).find_map(|j| (j + 1..n).find(|&i| differ(i, j)).map(|i| (i, j)))
}

/// DML `[values, vectors] = eigen(A)` of a symmetric matrix (its lower triangle is
/// read): the eigenvalues in increasing order as an `n x 1` matrix and the unit
/// eigenvectors as the columns of an `n x n` matrix, in the same order.
///
/// faer computes the decomposition; each vector then takes the sign SystemDS's has.
/// SystemDS reduces `A` to tridiagonal form with Householder reflections and
/// diagonalizes that by QL iterations with implicit shifts. The reduction leaves row 0
/// alone, so the first entry of each of its vectors is the first entry of the
/// tridiagonal matrix's vector, which the QL iterations give in O(n^2) when they carry
/// only row 0 ([`systemds_first_entries`]). Where that entry is (nearly) zero, the
/// vector's largest entry is made positive instead. The signs can differ from
/// SystemDS's where the reduction meets an exactly zero entry beside the diagonal
/// with nonzeros below it (see [`Tridiagonal::systemds_diagonals`]), and for a repeated
/// eigenvalue, whose vectors no two algorithms choose alike.
pub fn eigen_symmetric(m: &Matrix) -> Result<(Matrix, Matrix)> {
    let n = square("eigen", m)?;
    if n == 0 {
        return Ok((
            Matrix::Dense(DenseMatrix::zeros(0, 1)),
            Matrix::Dense(DenseMatrix::zeros(0, 0)),
        ));
    }
    let reduced = Tridiagonal::of(to_faer(m));
    // The signs' QL pass is sequential and needs only the tridiagonal matrix: it runs
    // beside faer's decomposition, whose parallel steps leave a thread idle most of the
    // time (on 1000 x 1000 it was a tenth of `eigen`, run after it).
    let (decomposed, first) = rayon::join(|| reduced.eigen(), || systemds_first_entries(&reduced));
    let (s, u) =
        decomposed.map_err(|_| ExecError::invalid("eigen: the iteration does not converge"))?;
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&x, &y| s[x].total_cmp(&s[y]));
    let signs: Vec<f64> = order
        .iter()
        .enumerate()
        .map(|(k, &col)| {
            let v = u.col(col);
            let flip = match first.as_ref().map(|f| f[k]) {
                Some(want) if want.abs() > SIGN_FLOOR && v[0].abs() > SIGN_FLOOR => {
                    (want < 0.0) != (v[0] < 0.0)
                }
                _ => {
                    let largest = (0..n).fold(
                        0,
                        |best, i| {
                            if v[i].abs() > v[best].abs() {
                                i
                            } else {
                                best
                            }
                        },
                    );
                    v[largest] < 0.0
                }
            };
            if flip {
                -1.0
            } else {
                1.0
            }
        })
        .collect();
    let largest = order.iter().fold(0.0f64, |acc, &k| acc.max(s[k].abs()));
    let values = order
        .iter()
        .map(|&k| {
            if s[k].abs() < f64::EPSILON * largest {
                0.0
            } else {
                s[k]
            }
        })
        .collect();
    // Columns reordered and signed column by column, then one blockwise transposing copy
    // into row-major order (a cell-by-cell gather from `u` was a tenth of `eigen`).
    let mut ordered = Mat::<f64>::zeros(n, n);
    for (j, (&k, &sign)) in order.iter().zip(&signs).enumerate() {
        for (dst, &src) in ordered.col_mut(j).iter_mut().zip(u.col(k).iter()) {
            *dst = sign * src;
        }
    }
    Ok((
        Matrix::Dense(DenseMatrix::from_vec(n, 1, values)?),
        from_faer(ordered.as_ref())?,
    ))
}

/// Entries of a unit vector below this have no reliable sign.
const SIGN_FLOOR: f64 = 1e-7;

/// The first entries of SystemDS's eigenvectors, in increasing order of their
/// eigenvalues: row 0 of the QL iterations' rotations on SystemDS's tridiagonal matrix
/// ([`Tridiagonal::systemds_diagonals`]). None if the iterations do not converge.
fn systemds_first_entries(reduced: &Tridiagonal) -> Option<Vec<f64>> {
    let (mut d, mut e) = reduced.systemds_diagonals();
    let n = d.len();
    let mut row = vec![0.0; n];
    row[0] = 1.0;
    let mut z = [row];
    diagonalize(&mut d, &mut e, &mut z).ok()?;
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&x, &y| d[x].total_cmp(&d[y]));
    Some(order.iter().map(|&k| z[0][k]).collect())
}

/// A symmetric matrix reduced to tridiagonal form `T = Q' A Q` by faer's blocked
/// Householder reduction (of its lower triangle): `T` on and below the diagonal of
/// `reduced`, the reflections below the subdiagonal and in `householder`. One reduction
/// serves both the decomposition and SystemDS's signs.
struct Tridiagonal {
    reduced: Mat<f64>,
    householder: Mat<f64>,
}

impl Tridiagonal {
    fn of(mut reduced: Mat<f64>) -> Self {
        use faer::linalg::evd::tridiag::{tridiag_in_place, tridiag_in_place_scratch};
        let n = reduced.nrows();
        let block = faer::linalg::qr::no_pivoting::factor::recommended_block_size::<f64>(n, n);
        let mut householder = Mat::<f64>::zeros(block, n.saturating_sub(1));
        if n > 1 {
            // On two threads faer's parallel reduction lost to its sequential one at
            // 500 x 500 (37 ms against 26) and 1000 x 1000 (153 against 135 for all
            // of `eigen`), and won at 2000 x 2000 (1.22 s against 1.48).
            let par = if n <= TRIDIAG_SEQUENTIAL_MAX {
                faer::Par::Seq
            } else {
                faer::get_global_parallelism()
            };
            let mut mem =
                MemBuffer::new(tridiag_in_place_scratch::<f64>(n, par, Default::default()));
            tridiag_in_place(
                reduced.as_mut(),
                householder.as_mut(),
                par,
                MemStack::new(&mut mem),
                Default::default(),
            );
        }
        Tridiagonal {
            reduced,
            householder,
        }
    }

    fn n(&self) -> usize {
        self.reduced.nrows()
    }

    /// The eigenvalues (increasing) and unit eigenvectors (columns, in the same order) of
    /// `A`: `T`'s by faer's tridiagonal solver, taken back through `Q`.
    fn eigen(&self) -> std::result::Result<(Vec<f64>, Mat<f64>), faer::linalg::evd::EvdError> {
        use faer::linalg::evd::{self_adjoint_evd_scratch, tridiagonal_self_adjoint_evd};
        use faer::linalg::householder::apply_block_householder_sequence_on_the_left_in_place_with_conj;
        let n = self.n();
        let t = &self.reduced;
        let diag = faer::Col::<f64>::from_fn(n, |i| t[(i, i)]);
        let subdiag = faer::Col::<f64>::from_fn(n, |i| if i + 1 < n { t[(i + 1, i)] } else { 0.0 });
        let mut values = faer::Col::<f64>::zeros(n);
        let mut vectors = Mat::<f64>::zeros(n, n);
        let par = faer::get_global_parallelism();
        let mut mem = MemBuffer::new(self_adjoint_evd_scratch::<f64>(
            n,
            faer::linalg::evd::ComputeEigenvectors::Yes,
            par,
            Default::default(),
        ));
        let stack = MemStack::new(&mut mem);
        tridiagonal_self_adjoint_evd(
            diag.as_diagonal(),
            subdiag.as_diagonal(),
            values.as_diagonal_mut(),
            Some(vectors.as_mut()),
            par,
            stack,
            Default::default(),
        )?;
        if n > 1 {
            apply_block_householder_sequence_on_the_left_in_place_with_conj(
                t.submatrix(1, 0, n - 1, n - 1),
                self.householder.as_ref(),
                faer::Conj::No,
                vectors.as_mut().subrows_mut(1, n - 1),
                par,
                stack,
            );
        }
        let values = (0..n).map(|i| values[i]).collect();
        Ok((values, vectors))
    }

    /// The diagonal and off-diagonal (last entry 0) of the tridiagonal matrix SystemDS's
    /// reduction of `A` gives.
    ///
    /// Both reduce column `k` below the diagonal, `x`, onto `beta e_1` with
    /// `beta = -sign(x_1) |x|`, and agree step for step but in one case: when `x` is zero
    /// below its first entry, faer leaves it, while SystemDS reflects it onto `-x_1`,
    /// which flips the sign of row and column `k + 1` from then on. Here that is undone:
    /// with `D` the diagonal of those flips, SystemDS's matrix is `D T D`. The one case
    /// not followed is `x_1 == 0` with nonzeros below it (SystemDS takes `beta = +|x|`,
    /// faer `-|x|`), after which the two reductions go separate ways.
    fn systemds_diagonals(&self) -> (Vec<f64>, Vec<f64>) {
        let (n, t) = (self.n(), &self.reduced);
        let d: Vec<f64> = (0..n).map(|i| t[(i, i)]).collect();
        let mut e = vec![0.0; n];
        let mut sign_k = 1.0;
        for k in 0..n.saturating_sub(1) {
            let beta = t[(k + 1, k)];
            // Below the subdiagonal `reduced` holds the reflections' vectors: all zero
            // exactly when faer left column `k` alone.
            let lone = (k + 2..n).all(|i| t[(i, k)].abs() < f64::MIN_POSITIVE);
            let sign_next = if lone && beta != 0.0 { -1.0 } else { 1.0 };
            e[k] = sign_k * sign_next * beta;
            sign_k = sign_next;
        }
        (d, e)
    }
}

/// `[H, R] = qr(A)` of an `m x n` matrix as SystemDS returns it: `R` (`m x n`, upper
/// trapezoidal) and, instead of `Q`, the Householder vectors as the columns of `H`
/// (`m x n`, lower trapezoidal): `Q = H_1 %*% ... %*% H_p` (`p = min(m, n)`) with
/// `H_j = I - h_j %*% t(h_j) / h_j[j]` for column `h_j` of `H`.
///
/// faer reflects as SystemDS does (`beta = -sign(x_1) |x|`), so both factors are
/// SystemDS's but in two cases. A column whose first entry is exactly zero (with
/// nonzeros below) SystemDS reflects onto `+|x|`, faer onto `-|x|`: that row of `R` and
/// the later columns of `H` differ, while `Q %*% R == A` holds for both. A column that is
/// zero on and below the diagonal SystemDS divides 0 by 0 for (NaN in `H`); here its
/// column of `H` is zero and stands for no reflection.
pub fn qr(m: &Matrix) -> Result<(Matrix, Matrix)> {
    use faer::linalg::qr::no_pivoting::factor::{
        qr_in_place, qr_in_place_scratch, recommended_block_size,
    };
    let (rows, cols) = (m.rows(), m.cols());
    let p = rows.min(cols);
    let mut h = DenseMatrix::zeros(rows, cols);
    let mut r = DenseMatrix::zeros(rows, cols);
    if p == 0 {
        return Ok((Matrix::Dense(h), Matrix::Dense(r)));
    }
    // R on and above the diagonal, each reflection's v (v[j] = 1 implied) below it.
    let mut packed = to_faer(m);
    // faer's parallel QR ran slower on two threads than its sequential one up to
    // 2000 x 2000 (1000 x 1000: 60 ms against 35 ms; 2000 x 2000: even), so only larger
    // factorizations use the pool.
    let par = if rows * cols * p <= QR_SEQUENTIAL_WORK {
        faer::Par::Seq
    } else {
        faer::get_global_parallelism()
    };
    let block = recommended_block_size::<f64>(rows, cols);
    let mut coefficients = Mat::<f64>::zeros(block, p);
    let mut mem = MemBuffer::new(qr_in_place_scratch::<f64>(
        rows,
        cols,
        block,
        par,
        Default::default(),
    ));
    qr_in_place(
        packed.as_mut(),
        coefficients.as_mut(),
        par,
        MemStack::new(&mut mem),
        Default::default(),
    );
    // faer's reflection j is I - tau v v' with tau = 2 / |v|^2, and SystemDS's h is
    // tau v; where the column was zero below the diagonal, faer skipped the reflection
    // while SystemDS reflects the lone entry onto its negative: h = 2 e_j and row j of R
    // negated.
    let taus: Vec<Option<f64>> = (0..p)
        .map(|j| {
            let s = packed.col(j).subrows(j + 1, rows - j - 1).squared_norm_l2();
            (s.sqrt() >= f64::MIN_POSITIVE).then(|| 2.0 / (1.0 + s))
        })
        .collect();
    let packed = from_faer(packed.as_ref())?.into_dense();
    for i in 0..rows {
        let row = packed.row(i);
        let h_row = h.row_mut(i);
        for (j, tau) in taus.iter().enumerate().take(i.min(p)) {
            h_row[j] = tau.map_or(0.0, |t| t * row[j]);
        }
        if i < p {
            let r_row = &mut r.row_mut(i)[i..];
            r_row.copy_from_slice(&row[i..]);
            match taus[i] {
                Some(tau) => h_row[i] = tau,
                None if row[i] != 0.0 => {
                    h_row[i] = 2.0;
                    r_row.iter_mut().for_each(|x| *x = -*x);
                }
                None => {}
            }
        }
    }
    Ok((Matrix::Dense(h), Matrix::Dense(r)))
}

/// `[P, L, U] = lu(A)` of a square matrix: `P %*% A == L %*% U` with `P` a permutation
/// matrix, `L` unit lower triangular and `U` upper triangular, pivoting on the largest
/// entry of each column as SystemDS does. A singular matrix is an error, as in SystemDS.
pub fn lu(m: &Matrix) -> Result<(Matrix, Matrix, Matrix)> {
    let n = square("lu", m)?;
    let lu = PackedLu::new(m);
    if lu.singular() {
        return Err(ExecError::invalid("lu: the matrix is singular"));
    }
    let mut p = DenseMatrix::zeros(n, n);
    for (i, &j) in lu.forward.iter().enumerate() {
        p.set(i, j, 1.0);
    }
    // U takes over the packed matrix; L is copied out of its lower triangle first.
    let mut u = lu.lu;
    let mut l = DenseMatrix::zeros(n, n);
    for i in 0..n {
        let row = u.row_mut(i);
        let l_row = l.row_mut(i);
        l_row[..i].copy_from_slice(&row[..i]);
        l_row[i] = 1.0;
        row[..i].fill(0.0);
    }
    Ok((Matrix::Dense(p), Matrix::Dense(l), Matrix::Dense(u)))
}

/// `[U, S, V] = svd(A)` of an `m x n` matrix: the thin decomposition
/// `A == U %*% S %*% t(V)` with `p = min(m, n)`, `U` `m x p`, `S` the `p x p` diagonal
/// matrix of the singular values in decreasing order and `V` `n x p`. These are the
/// shapes SystemDS's runtime returns (its language reference says `m x m`, `m x n` and
/// `n x n`). A pair of singular vectors is unique only up to a common sign, which can
/// differ from SystemDS's.
pub fn svd(m: &Matrix) -> Result<(Matrix, Matrix, Matrix)> {
    let (rows, cols) = (m.rows(), m.cols());
    let p = rows.min(cols);
    if p == 0 {
        let zeros = |r, c| Matrix::Dense(DenseMatrix::zeros(r, c));
        return Ok((zeros(rows, 0), zeros(0, 0), zeros(cols, 0)));
    }
    let svd = Svd::new_thin(to_faer(m).as_ref())
        .map_err(|_| ExecError::invalid("svd: the iteration does not converge"))?;
    let s = svd.S().column_vector();
    let sigma = DenseMatrix::from_fn(p, p, |i, j| if i == j { s[i] } else { 0.0 });
    Ok((
        from_faer(svd.U())?,
        Matrix::Dense(sigma),
        from_faer(svd.V())?,
    ))
}

/// QL iterations with implicit shifts on the tridiagonal matrix (`d`, `e`), applying
/// the rotations to the columns of `z`; on return `d` holds the eigenvalues and the
/// columns of `z` the eigenvectors.
fn diagonalize(d: &mut [f64], e: &mut [f64], z: &mut [Vec<f64>]) -> Result<()> {
    let n = d.len();
    let largest = d
        .iter()
        .chain(e.iter())
        .fold(0.0f64, |acc, v| acc.max(v.abs()));
    if largest != 0.0 {
        for v in d.iter_mut().chain(e.iter_mut()) {
            if v.abs() <= f64::EPSILON * largest {
                *v = 0.0;
            }
        }
    }
    for j in 0..n {
        let mut iterations = 0;
        loop {
            let mut m = j;
            while m < n - 1 {
                let delta = d[m].abs() + d[m + 1].abs();
                if e[m].abs() + delta == delta {
                    break;
                }
                m += 1;
            }
            if m == j {
                break;
            }
            iterations += 1;
            if iterations > 30 * n.max(1) {
                return Err(ExecError::invalid(
                    "eigen: the QL iteration does not converge",
                ));
            }
            let mut q = (d[j + 1] - d[j]) / (2.0 * e[j]);
            let mut t = (1.0 + q * q).sqrt();
            q = if q < 0.0 {
                d[m] - d[j] + e[j] / (q - t)
            } else {
                d[m] - d[j] + e[j] / (q + t)
            };
            let (mut u, mut s, mut c) = (0.0, 1.0, 1.0);
            let mut i = m as isize - 1;
            let mut deflated = false;
            while i >= j as isize {
                let iu = i as usize;
                let p = s * e[iu];
                let h = c * e[iu];
                if p.abs() >= q.abs() {
                    c = q / p;
                    t = (c * c + 1.0).sqrt();
                    e[iu + 1] = p * t;
                    s = 1.0 / t;
                    c *= s;
                } else {
                    s = p / q;
                    t = (s * s + 1.0).sqrt();
                    e[iu + 1] = q * t;
                    c = 1.0 / t;
                    s *= c;
                }
                if e[iu + 1] == 0.0 {
                    d[iu + 1] -= u;
                    e[m] = 0.0;
                    deflated = true;
                    break;
                }
                q = d[iu + 1] - u;
                t = (d[iu] - q) * s + 2.0 * c * h;
                u = s * t;
                d[iu + 1] = q + u;
                q = c * t - h;
                for row in z.iter_mut() {
                    let p = row[iu + 1];
                    row[iu + 1] = s * row[iu] + c * p;
                    row[iu] = c * row[iu] - s * p;
                }
                i -= 1;
            }
            if deflated {
                continue;
            }
            d[j] -= u;
            e[j] = q;
            e[m] = 0.0;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::dense;
    use rand::{RngExt, SeedableRng};

    fn close(got: &Matrix, want: &[f64], tol: f64) {
        let got = got.to_dense().into_vec();
        assert_eq!(got.len(), want.len());
        for (g, w) in got.iter().zip(want) {
            assert!((g - w).abs() <= tol, "{got:?} vs {want:?}");
        }
    }

    fn random(rows: usize, cols: usize, seed: u64) -> Matrix {
        let mut rng = rand_pcg::Pcg64::seed_from_u64(seed);
        Matrix::Dense(DenseMatrix::from_fn(rows, cols, |_, _| {
            rng.random::<f64>() - 0.5
        }))
    }

    fn product(a: &Matrix, b: &Matrix) -> Matrix {
        let (a, b) = (to_faer(a), to_faer(b));
        from_faer((&a * &b).as_ref()).unwrap()
    }

    fn transpose(a: &Matrix) -> Matrix {
        from_faer(to_faer(a).transpose()).unwrap()
    }

    /// max |x - y| / max(1, max |y|).
    fn relative_error(x: &Matrix, y: &Matrix) -> f64 {
        assert_eq!(x.shape(), y.shape());
        let (x, y) = (x.to_dense().into_vec(), y.to_dense().into_vec());
        let scale = y.iter().fold(1.0f64, |m, v| m.max(v.abs()));
        let diff = x
            .iter()
            .zip(&y)
            .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
        diff / scale
    }

    fn identity(n: usize) -> Matrix {
        Matrix::Dense(DenseMatrix::from_fn(n, n, |i, j| {
            f64::from(u8::from(i == j))
        }))
    }

    /// SystemDS's `Q` from its Householder vectors: `Q = H_1 ... H_p`,
    /// `H_j = I - h h' / h[j]`.
    fn q_of(h: &Matrix) -> Matrix {
        let m = h.rows();
        let mut q = to_faer(&identity(m));
        for j in 0..h.cols().min(m) {
            let hj = h.get(j, j);
            if hj == 0.0 {
                continue;
            }
            let col: Vec<f64> = (0..m).map(|i| h.get(i, j)).collect();
            let qh: Vec<f64> = (0..m)
                .map(|i| (0..m).map(|k| q[(i, k)] * col[k]).sum())
                .collect();
            for i in 0..m {
                for k in 0..m {
                    q[(i, k)] -= qh[i] * col[k] / hj;
                }
            }
        }
        from_faer(q.as_ref()).unwrap()
    }

    // A = matrix("4 1 2 1 3 0 2 0 5", rows=3, cols=3); values printed by SystemDS 3.4.
    const A: [f64; 9] = [4.0, 1.0, 2.0, 1.0, 3.0, 0.0, 2.0, 0.0, 5.0];

    #[test]
    fn solve_inverse_cholesky_as_systemds() {
        let a = dense(3, 3, &A);
        let b = dense(3, 1, &[1.0, 2.0, 3.0]);
        close(
            &solve(&a, &b).unwrap(),
            &[-0.3023255814, 0.7674418605, 0.7209302326],
            1e-10,
        );
        close(
            &inverse(&a).unwrap(),
            &[
                0.3488372093,
                -0.1162790698,
                -0.1395348837,
                -0.1162790698,
                0.3720930233,
                0.0465116279,
                -0.1395348837,
                0.0465116279,
                0.2558139535,
            ],
            1e-10,
        );
        close(
            &cholesky(&a).unwrap(),
            &[
                2.0,
                0.0,
                0.0,
                0.5,
                1.6583123952,
                0.0,
                1.0,
                -0.3015113446,
                1.9771421064,
            ],
            1e-10,
        );
    }

    #[test]
    fn singular_non_square_and_indefinite_matrices_are_errors_that_say_so() {
        let message = |r: Result<Matrix>| r.unwrap_err().to_string();
        let singular = dense(2, 2, &[1.0, 2.0, 2.0, 4.0]);
        assert!(message(inverse(&singular)).contains("singular"));
        assert!(message(solve(&singular, &dense(2, 1, &[1.0, 1.0]))).contains("singular"));
        assert!(lu(&singular).unwrap_err().to_string().contains("singular"));
        assert_eq!(det(&singular).unwrap(), 0.0);
        let wide = dense(2, 3, &[1.0; 6]);
        for err in [
            det(&wide).unwrap_err(),
            inverse(&wide).unwrap_err(),
            cholesky(&wide).unwrap_err(),
            lu(&wide).unwrap_err(),
            eigen_symmetric(&wide).unwrap_err(),
        ] {
            let text = err.to_string();
            assert!(text.contains("square") && text.contains("2x3"), "{text}");
        }
        let a = dense(3, 3, &A);
        assert!(solve(&a, &dense(2, 1, &[1.0, 2.0])).is_err());
        assert!(message(cholesky(&dense(2, 2, &[1.0, 2.0, 0.0, 4.0]))).contains("symmetric"));
        // Symmetric with eigenvalues 3 and -1.
        let indefinite = dense(2, 2, &[1.0, 2.0, 2.0, 1.0]);
        assert!(message(cholesky(&indefinite)).contains("not positive definite"));
        // Positive semi-definite: the second pivot is 0.
        let semi = dense(2, 2, &[1.0, 1.0, 1.0, 1.0]);
        assert!(message(cholesky(&semi)).contains("not positive definite"));
    }

    /// Past faer's block sizes and the symmetry check's tiles: the in-place factorizations
    /// on row-major copies give factors that multiply back, with the other triangle zero.
    #[test]
    fn factors_of_a_larger_matrix_multiply_back() {
        let n = 150;
        let r = random(n, n, 11);
        let spd = Matrix::Dense(DenseMatrix::from_fn(n, n, |i, j| {
            (0..n).map(|k| r.get(i, k) * r.get(j, k)).sum::<f64>()
                + if i == j { n as f64 } else { 0.0 }
        }));
        let l = cholesky(&spd).unwrap();
        assert!((0..n).all(|i| (i + 1..n).all(|j| l.get(i, j) == 0.0)));
        assert!(relative_error(&product(&l, &transpose(&l)), &spd) < 1e-12);
        let (p, lower, upper) = lu(&r).unwrap();
        assert!(
            (0..n).all(|i| lower.get(i, i) == 1.0 && (i + 1..n).all(|j| lower.get(i, j) == 0.0))
        );
        assert!((0..n).all(|i| (0..i).all(|j| upper.get(i, j) == 0.0)));
        assert!(relative_error(&product(&p, &r), &product(&lower, &upper)) < 1e-12);
        let inv = inverse(&r).unwrap();
        assert!(relative_error(&product(&r, &inv), &identity(n)) < 1e-10);
        // Two asymmetric pairs in different tiles: the first in column order is named.
        let mut skewed = spd.to_dense();
        skewed.set(140, 100, skewed.get(140, 100) + 1.0);
        skewed.set(120, 2, skewed.get(120, 2) + 1.0);
        let text = cholesky(&Matrix::Dense(skewed)).unwrap_err().to_string();
        assert!(text.contains("cell (121, 3)"), "{text}");
    }

    #[test]
    fn determinants_of_known_matrices() {
        assert!((det(&dense(3, 3, &A)).unwrap() - 43.0).abs() < 1e-12);
        let m = dense(3, 3, &[2.0, -3.0, 1.0, 2.0, 0.0, -1.0, 1.0, 4.0, 5.0]);
        assert!((det(&m).unwrap() - 49.0).abs() < 1e-12);
        // One row swap: the sign of the product of pivots flips.
        let swap = dense(2, 2, &[0.0, 1.0, 1.0, 0.0]);
        assert_eq!(det(&swap).unwrap(), -1.0);
        assert_eq!(det(&dense(1, 1, &[-7.5])).unwrap(), -7.5);
        assert_eq!(det(&Matrix::Dense(DenseMatrix::zeros(0, 0))).unwrap(), 1.0);
        // det(A) = det(L) det(U) / det(P) on a random matrix.
        let r = random(40, 40, 7);
        let (p, _, u) = lu(&r).unwrap();
        let diag: f64 = (0..40).map(|i| u.get(i, i)).product();
        let d = det(&r).unwrap();
        assert!((d - diag * det(&p).unwrap()).abs() <= 1e-12 * d.abs());
    }

    #[test]
    fn random_systems_have_small_residuals() {
        for (n, seed) in [(5, 1), (64, 2), (300, 3)] {
            let a = random(n, n, seed);
            let b = random(n, 3, seed + 100);
            let x = solve(&a, &b).unwrap();
            assert!(relative_error(&product(&a, &x), &b) < 1e-10, "solve {n}");
            let inv = inverse(&a).unwrap();
            assert!(
                relative_error(&product(&a, &inv), &identity(n)) < 1e-10,
                "inv {n}"
            );
            let spd = product(&transpose(&a), &a);
            let l = cholesky(&spd).unwrap();
            assert!(relative_error(&product(&l, &transpose(&l)), &spd) < 1e-12);
            assert!((0..n).all(|i| (i + 1..n).all(|j| l.get(i, j) == 0.0)));
        }
    }

    #[test]
    fn least_squares_solve() {
        // Fits y = 1 + 2x exactly.
        let x = dense(4, 2, &[1.0, 0.0, 1.0, 1.0, 1.0, 2.0, 1.0, 3.0]);
        let y = dense(4, 1, &[1.0, 3.0, 5.0, 7.0]);
        close(&solve(&x, &y).unwrap(), &[1.0, 2.0], 1e-12);
        let rank_deficient = dense(3, 2, &[1.0, 0.0, 1.0, 0.0, 1.0, 0.0]);
        assert!(solve(&rank_deficient, &dense(3, 1, &[1.0; 3])).is_err());
    }

    #[test]
    fn lu_factors_a_permuted_matrix() {
        // P A = L U with pivots 2 (row 3), then 3 (row 2): as Commons Math pivots.
        let a = dense(3, 3, &[1.0, 2.0, 3.0, 2.0, 4.0, 7.0, 4.0, 1.0, 2.0]);
        let (p, l, u) = lu(&a).unwrap();
        close(&p, &[0.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 0.0], 0.0);
        close(&l, &[1.0, 0.0, 0.0, 0.5, 1.0, 0.0, 0.25, 0.5, 1.0], 1e-15);
        close(&u, &[4.0, 1.0, 2.0, 0.0, 3.5, 6.0, 0.0, 0.0, -0.5], 1e-15);
        let r = random(120, 120, 9);
        let (p, l, u) = lu(&r).unwrap();
        assert!(relative_error(&product(&l, &u), &product(&p, &r)) < 1e-12);
        assert!((0..120).all(|i| l.get(i, i) == 1.0 && (i + 1..120).all(|j| l.get(i, j) == 0.0)));
    }

    #[test]
    fn qr_gives_systemds_householder_vectors_and_r() {
        // [H, R] = qr(matrix("4 1 2 1 3 0 2 0 5", rows=3, cols=3)) in SystemDS 3.4, by
        // Commons Math's recurrence: R's diagonal is -sign(x_1) |x| of each column.
        let (h, r) = qr(&dense(3, 3, &A)).unwrap();
        let norm = 21f64.sqrt();
        assert!((r.get(0, 0) + norm).abs() < 1e-12);
        assert!((h.get(0, 0) - (1.0 + 4.0 / norm)).abs() < 1e-12);
        // det(Q) = -1 for three reflections.
        assert!((r.get(2, 2) + 43.0 / (r.get(0, 0) * r.get(1, 1))).abs() < 1e-12);
        assert!((0..3).all(|i| (0..i).all(|j| r.get(i, j) == 0.0 && h.get(j, i) == 0.0)));
        // The identity: each lone diagonal entry is reflected onto its negative.
        let (h, r) = qr(&identity(3)).unwrap();
        close(&r, &[-1.0, 0.0, 0.0, 0.0, -1.0, 0.0, 0.0, 0.0, -1.0], 0.0);
        close(&h, &[2.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 2.0], 0.0);
        for (rows, cols, seed) in [(6, 6, 1), (50, 20, 2), (20, 50, 3), (200, 200, 4)] {
            let a = random(rows, cols, seed);
            let (h, r) = qr(&a).unwrap();
            assert_eq!((h.shape(), r.shape()), (a.shape(), a.shape()));
            let q = q_of(&h);
            assert!(relative_error(&product(&transpose(&q), &q), &identity(rows)) < 1e-12);
            assert!(
                relative_error(&product(&q, &r), &a) < 1e-12,
                "{rows}x{cols}"
            );
            assert!((0..rows).all(|i| (0..i.min(cols)).all(|j| r.get(i, j) == 0.0)));
        }
    }

    #[test]
    fn svd_reconstructs_with_decreasing_singular_values() {
        let (u, s, v) = svd(&dense(2, 2, &[3.0, 0.0, 4.0, 5.0])).unwrap();
        close(&s, &[45f64.sqrt(), 0.0, 0.0, 5f64.sqrt()], 1e-12);
        assert!(
            relative_error(
                &product(&product(&u, &s), &transpose(&v)),
                &dense(2, 2, &[3.0, 0.0, 4.0, 5.0])
            ) < 1e-14
        );
        for (rows, cols, seed) in [(7, 7, 1), (60, 25, 2), (25, 60, 3), (200, 200, 4)] {
            let a = random(rows, cols, seed);
            let (u, s, v) = svd(&a).unwrap();
            let p = rows.min(cols);
            let shapes = [u.shape(), s.shape(), v.shape()].map(|s| (s.rows, s.cols));
            assert_eq!(shapes, [(rows, p), (p, p), (cols, p)]);
            assert!(relative_error(&product(&product(&u, &s), &transpose(&v)), &a) < 1e-12);
            assert!(relative_error(&product(&transpose(&u), &u), &identity(p)) < 1e-12);
            assert!(relative_error(&product(&transpose(&v), &v), &identity(p)) < 1e-12);
            assert!((1..p).all(|i| s.get(i, i) <= s.get(i - 1, i - 1) && s.get(i, i) >= 0.0));
        }
    }

    #[test]
    fn eigen_values_increase_and_vectors_diagonalize() {
        let a = dense(3, 3, &A);
        let (values, vectors) = eigen_symmetric(&a).unwrap();
        close(&values, &[1.8548973088, 3.4760236029, 6.6690790883], 1e-10);
        for k in 0..3 {
            for i in 0..3 {
                let av: f64 = (0..3).map(|j| A[i * 3 + j] * vectors.get(j, k)).sum();
                assert!((av - values.get(k, 0) * vectors.get(i, k)).abs() < 1e-12);
            }
        }
    }

    /// SystemDS's eigenvectors: its Householder reduction (below) and QL iterations.
    fn systemds_eigen(m: &Matrix) -> (Vec<f64>, Vec<Vec<f64>>) {
        let n = m.rows();
        let a: Vec<Vec<f64>> = (0..n)
            .map(|i| (0..n).map(|j| m.get(i, j)).collect())
            .collect();
        let (mut d, mut e, mut z) = reference_tridiagonalize(a);
        diagonalize(&mut d, &mut e, &mut z).unwrap();
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by(|&x, &y| d[x].total_cmp(&d[y]));
        let vectors = (0..n)
            .map(|i| order.iter().map(|&k| z[i][k]).collect())
            .collect();
        (order.iter().map(|&k| d[k]).collect(), vectors)
    }

    #[test]
    fn eigenvector_signs_follow_systemds_reduction() {
        let mut cases = vec![];
        for (n, seed) in [(2, 1), (5, 2), (17, 3), (80, 4)] {
            let r = random(n, n, seed);
            cases.push(product(&transpose(&r), &r));
            let sym = to_faer(&r);
            cases.push(from_faer((&sym + sym.transpose()).as_ref()).unwrap());
        }
        // Tridiagonal and diagonal-plus-corner inputs take the reduction's lone-entry
        // steps.
        let n = 12;
        cases.push(Matrix::Dense(DenseMatrix::from_fn(n, n, |i, j| {
            match i.abs_diff(j) {
                0 => 2.0 + i as f64 * 0.1,
                1 => -1.0 + i.min(j) as f64 * 0.01,
                _ => 0.0,
            }
        })));
        cases.push(Matrix::Dense(DenseMatrix::from_fn(n, n, |i, j| {
            match (i, j) {
                _ if i == j => 1.0 + i as f64,
                (0, 1) | (1, 0) => 0.5,
                (3, 4) | (4, 3) => -0.25,
                _ => 0.0,
            }
        })));
        for m in &cases {
            let (values, vectors) = eigen_symmetric(m).unwrap();
            let (want_values, want) = systemds_eigen(m);
            let n = m.rows();
            for k in 0..n {
                assert!(
                    (values.get(k, 0) - want_values[k]).abs()
                        < 1e-9 * want_values[n - 1].abs().max(1.0),
                    "n={n} value {k}: {} vs {}",
                    values.get(k, 0),
                    want_values[k]
                );
                // A vector whose first entry is zero has no sign to follow: it is
                // compared up to sign.
                let largest = (0..n).fold(0, |b, i| {
                    if want[i][k].abs() > want[b][k].abs() {
                        i
                    } else {
                        b
                    }
                });
                let sign = if want[0][k].abs() > SIGN_FLOOR {
                    1.0
                } else {
                    (vectors.get(largest, k) * want[largest][k]).signum()
                };
                for (i, row) in want.iter().enumerate() {
                    assert!(
                        (sign * vectors.get(i, k) - row[k]).abs() < 1e-7,
                        "n={n} vector {k} entry {i}: {} vs {}",
                        vectors.get(i, k),
                        row[k]
                    );
                }
            }
        }
    }

    /// `T = Q' A Q` with `T` tridiagonal: returns T's diagonal, its off-diagonal (last
    /// entry 0) and `Q = H_0 H_1 ... H_{n-2}`. Reflection `H_k` maps row `k` right of the
    /// diagonal, `x`, onto `alpha e_1` with `alpha = -sign(x_1) |x|` (`+|x|` when `x_1 <= 0`).
    fn reference_tridiagonalize(mut a: Vec<Vec<f64>>) -> (Vec<f64>, Vec<f64>, Vec<Vec<f64>>) {
        let n = a.len();
        let mut d = vec![0.0; n];
        let mut e = vec![0.0; n];
        // (first index, Householder vector, its beta = 2 / |v|^2) per reflection.
        let mut reflections: Vec<(usize, Vec<f64>, f64)> = Vec::new();
        for k in 0..n.saturating_sub(1) {
            d[k] = a[k][k];
            let x: Vec<f64> = a[k][k + 1..].to_vec();
            let norm = x.iter().map(|v| v * v).sum::<f64>().sqrt();
            let alpha = if x[0] > 0.0 { -norm } else { norm };
            e[k] = alpha;
            if alpha == 0.0 {
                continue;
            }
            let mut v = x;
            v[0] -= alpha;
            let beta = -1.0 / (alpha * v[0]);
            // p = beta B v on the trailing block B, w = p - (beta / 2)(v'p) v,
            // B <- B - v w' - w v'.
            let len = n - k - 1;
            let p: Vec<f64> = (0..len)
                .map(|i| {
                    beta * (0..len)
                        .map(|j| a[k + 1 + i][k + 1 + j] * v[j])
                        .sum::<f64>()
                })
                .collect();
            let gamma = beta / 2.0 * v.iter().zip(&p).map(|(x, y)| x * y).sum::<f64>();
            let w: Vec<f64> = p.iter().zip(&v).map(|(pi, vi)| pi - gamma * vi).collect();
            for i in 0..len {
                for j in 0..len {
                    a[k + 1 + i][k + 1 + j] -= v[i] * w[j] + w[i] * v[j];
                }
            }
            reflections.push((k + 1, v, beta));
        }
        d[n - 1] = a[n - 1][n - 1];
        let mut q: Vec<Vec<f64>> = (0..n)
            .map(|i| (0..n).map(|j| if i == j { 1.0 } else { 0.0 }).collect())
            .collect();
        for (first, v, beta) in reflections.iter().rev() {
            // Q <- H Q with H = I - beta v v' acting on rows first.. .
            #[allow(clippy::needless_range_loop)] // rows first.. of each column, in step
            for col in 0..n {
                let dot: f64 = v
                    .iter()
                    .enumerate()
                    .map(|(i, vi)| vi * q[first + i][col])
                    .sum();
                let f = beta * dot;
                for (i, vi) in v.iter().enumerate() {
                    q[first + i][col] -= f * vi;
                }
            }
        }
        (d, e, q)
    }
}
