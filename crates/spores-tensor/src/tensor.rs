//! [`CooTensor`]: the interchange form of a sparse tensor (inputs as read from files, results
//! handed back to the user, statistics constructors). The engine converts it to fibertrees.

use crate::TensorError;

/// An order-`n` tensor as sorted, de-duplicated coordinate lists plus a fill value (the value of
/// every coordinate not listed; 0 for ordinary sparse data).
#[derive(Clone, Debug, PartialEq)]
pub struct CooTensor {
    dims: Vec<usize>,
    /// Coordinates of entry `k` are `coords[k*order .. (k+1)*order]`, lexicographically sorted.
    coords: Vec<u32>,
    vals: Vec<f64>,
    fill: f64,
}

impl CooTensor {
    /// Builds a tensor from unsorted entries; duplicate coordinates are summed (as Matrix Market
    /// and edge-list readers expect). Errors name the offending coordinate and the dims.
    pub fn from_entries(
        dims: Vec<usize>,
        mut entries: Vec<(Vec<u32>, f64)>,
        fill: f64,
    ) -> Result<CooTensor, TensorError> {
        let order = dims.len();
        for (c, _) in &entries {
            if c.len() != order || c.iter().zip(&dims).any(|(&x, &d)| x as usize >= d) {
                return Err(TensorError::Invalid(format!(
                    "coordinate {c:?} is outside a tensor of dims {dims:?}"
                )));
            }
        }
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        let mut coords = Vec::with_capacity(entries.len() * order);
        let mut vals: Vec<f64> = Vec::with_capacity(entries.len());
        let mut last: Option<Vec<u32>> = None;
        for (c, v) in entries {
            if last.as_ref() == Some(&c) {
                *vals.last_mut().expect("a previous entry exists") += v;
            } else {
                coords.extend_from_slice(&c);
                vals.push(v);
                last = Some(c);
            }
        }
        Ok(CooTensor {
            dims,
            coords,
            vals,
            fill,
        })
    }

    /// The 0/1 adjacency matrix of an undirected graph on `n` vertices: both directions of
    /// each edge, repeated edges stored once, self-loops dropped.
    ///
    /// ```
    /// use spores_tensor::CooTensor;
    /// let g = CooTensor::undirected_graph(3, [(0, 1), (1, 0), (2, 2), (1, 2)]).unwrap();
    /// assert_eq!(g.nnz(), 4); // (0,1) (1,0) (1,2) (2,1)
    /// assert_eq!((g.get(&[2, 1]), g.get(&[2, 2])), (1.0, 0.0));
    /// ```
    pub fn undirected_graph(
        n: usize,
        edges: impl IntoIterator<Item = (u32, u32)>,
    ) -> Result<CooTensor, TensorError> {
        let mut pairs: Vec<(u32, u32)> = edges
            .into_iter()
            .filter(|(u, v)| u != v)
            .flat_map(|(u, v)| [(u, v), (v, u)])
            .collect();
        pairs.sort_unstable();
        pairs.dedup();
        let entries = pairs.into_iter().map(|(u, v)| (vec![u, v], 1.0)).collect();
        CooTensor::from_entries(vec![n, n], entries, 0.0)
    }

    /// Builds a tensor from coordinates already sorted and de-duplicated (`coords` holds
    /// `order` entries per value), without the per-entry allocations of
    /// [`CooTensor::from_entries`]; used to hand engine results back to the estimators.
    pub fn from_sorted_parts(
        dims: Vec<usize>,
        coords: Vec<u32>,
        vals: Vec<f64>,
        fill: f64,
    ) -> Result<CooTensor, TensorError> {
        let order = dims.len();
        if coords.len() != vals.len() * order {
            return Err(TensorError::Invalid(format!(
                "{} coordinates for {} values of an order-{order} tensor",
                coords.len(),
                vals.len()
            )));
        }
        if order > 0 {
            for (k, c) in coords.chunks(order).enumerate() {
                if c.iter().zip(&dims).any(|(&x, &d)| x as usize >= d) {
                    return Err(TensorError::Invalid(format!(
                        "coordinate {c:?} is outside a tensor of dims {dims:?}"
                    )));
                }
                if k > 0 && coords[(k - 1) * order..k * order] >= *c {
                    return Err(TensorError::Invalid(format!(
                        "coordinate {c:?} is not after its predecessor (coordinates must be sorted and distinct)"
                    )));
                }
            }
        }
        Ok(CooTensor {
            dims,
            coords,
            vals,
            fill,
        })
    }

    /// [`Self::from_sorted_parts`] for parts that are sorted, distinct and within `dims` by
    /// construction (a fibertree's walk): no check, which is a pass over every entry.
    pub(crate) fn from_sorted_parts_unchecked(
        dims: Vec<usize>,
        coords: Vec<u32>,
        vals: Vec<f64>,
        fill: f64,
    ) -> CooTensor {
        debug_assert_eq!(coords.len(), vals.len() * dims.len());
        CooTensor {
            dims,
            coords,
            vals,
            fill,
        }
    }

    /// A dense tensor from row-major values (last mode fastest); every value is stored.
    pub fn from_dense(dims: Vec<usize>, values: &[f64]) -> Result<CooTensor, TensorError> {
        let total: usize = dims.iter().product();
        if values.len() != total {
            return Err(TensorError::Invalid(format!(
                "{} values given for a dense tensor of dims {dims:?} ({total} cells)",
                values.len()
            )));
        }
        let order = dims.len();
        let mut coords = Vec::with_capacity(total * order);
        let mut cur = vec![0u32; order];
        for _ in 0..total {
            coords.extend_from_slice(&cur);
            for m in (0..order).rev() {
                cur[m] += 1;
                if (cur[m] as usize) < dims[m] {
                    break;
                }
                cur[m] = 0;
            }
        }
        Ok(CooTensor {
            dims,
            coords,
            vals: values.to_vec(),
            fill: 0.0,
        })
    }

    /// A scalar (order-0 tensor).
    pub fn scalar(value: f64) -> CooTensor {
        CooTensor {
            dims: vec![],
            coords: vec![],
            vals: vec![value],
            fill: value,
        }
    }

    pub fn dims(&self) -> &[usize] {
        &self.dims
    }

    pub fn order(&self) -> usize {
        self.dims.len()
    }

    pub fn fill(&self) -> f64 {
        self.fill
    }

    /// Number of stored entries (stored entries may equal the fill value).
    pub fn nnz(&self) -> usize {
        self.vals.len()
    }

    pub fn values(&self) -> &[f64] {
        &self.vals
    }

    /// The coordinates of stored entry `k`.
    pub fn coord(&self, k: usize) -> &[u32] {
        let n = self.order();
        &self.coords[k * n..(k + 1) * n]
    }

    /// Iterates stored entries in lexicographic coordinate order.
    pub fn iter(&self) -> impl Iterator<Item = (&[u32], f64)> + '_ {
        (0..self.vals.len()).map(move |k| (self.coord(k), self.vals[k]))
    }

    /// The value at `coord` (binary search; the fill value when not stored).
    pub fn get(&self, coord: &[u32]) -> f64 {
        let n = self.order();
        if n == 0 {
            return self.vals.first().copied().unwrap_or(self.fill);
        }
        let (mut lo, mut hi) = (0usize, self.vals.len());
        while lo < hi {
            let mid = (lo + hi) / 2;
            match self.coord(mid).cmp(coord) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return self.vals[mid],
            }
        }
        self.fill
    }

    /// All cells in row-major order (for tests and small tensors).
    pub fn to_dense(&self) -> Vec<f64> {
        let total: usize = self.dims.iter().product();
        let mut out = vec![self.fill; total.max(usize::from(self.dims.is_empty()))];
        for (c, v) in self.iter() {
            let mut flat = 0usize;
            for (m, &x) in c.iter().enumerate() {
                flat = flat * self.dims[m] + x as usize;
            }
            out[flat] = v;
        }
        out
    }

    /// The same entries with another fill value (for `input A fill=..` declarations).
    pub fn with_fill(mut self, fill: f64) -> CooTensor {
        self.fill = fill;
        self
    }

    /// The tensor with modes permuted: mode `m` of the result is mode `perm[m]` of `self`.
    pub fn permute(&self, perm: &[usize]) -> CooTensor {
        let dims = perm.iter().map(|&p| self.dims[p]).collect();
        let entries = self
            .iter()
            .map(|(c, v)| (perm.iter().map(|&p| c[p]).collect(), v))
            .collect();
        CooTensor::from_entries(dims, entries, self.fill).expect("a permutation stays in bounds")
    }

    /// The generalized diagonal an access with repeated indices reads (`A[i,j,i]`):
    /// `groups[m]` numbers mode `m`'s index by first occurrence (`[0, 1, 0]`), and the
    /// result has one mode per group, the stored entries whose modes of a group agree, and
    /// the same fill. Modes of one group must have one size.
    pub fn diagonal(&self, groups: &[usize]) -> Result<CooTensor, TensorError> {
        let firsts = first_modes(groups);
        for (m, &g) in groups.iter().enumerate() {
            if self.dims[m] != self.dims[firsts[g]] {
                return Err(TensorError::Invalid(format!(
                    "modes {} and {m} of a tensor of dims {:?} share an index but have sizes {} and {}",
                    firsts[g], self.dims, self.dims[firsts[g]], self.dims[m]
                )));
            }
        }
        let entries = self
            .iter()
            .filter(|(c, _)| {
                groups
                    .iter()
                    .enumerate()
                    .all(|(m, &g)| c[m] == c[firsts[g]])
            })
            .map(|(c, v)| (firsts.iter().map(|&f| c[f]).collect(), v))
            .collect();
        let dims = firsts.iter().map(|&f| self.dims[f]).collect();
        CooTensor::from_entries(dims, entries, self.fill)
    }
}

/// The first mode of each group of [`CooTensor::diagonal`]'s `groups`, by group.
pub(crate) fn first_modes(groups: &[usize]) -> Vec<usize> {
    (0..groups.len())
        .filter(|&m| !groups[..m].contains(&groups[m]))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_sorted_and_duplicates_summed() {
        let t = CooTensor::from_entries(
            vec![2, 3],
            vec![(vec![1, 2], 1.0), (vec![0, 1], 2.0), (vec![1, 2], 0.5)],
            0.0,
        )
        .unwrap();
        assert_eq!(t.nnz(), 2);
        assert_eq!(t.get(&[1, 2]), 1.5);
        assert_eq!(t.get(&[0, 0]), 0.0);
        assert_eq!(t.to_dense(), vec![0.0, 2.0, 0.0, 0.0, 0.0, 1.5]);
        assert_eq!(t.permute(&[1, 0]).get(&[2, 1]), 1.5);
    }

    #[test]
    fn diagonals_keep_the_entries_whose_repeated_modes_agree() {
        let t = CooTensor::from_dense(vec![2, 3, 2], &(0..12).map(f64::from).collect::<Vec<_>>())
            .unwrap();
        // t[i,j,i]: (0,j,0) = 0,2,4 and (1,j,1) = 7,9,11.
        let d = t.diagonal(&[0, 1, 0]).unwrap();
        assert_eq!(d.dims(), &[2, 3]);
        assert_eq!(d.to_dense(), vec![0., 2., 4., 7., 9., 11.]);
        let err = t.diagonal(&[0, 0, 1]).unwrap_err().to_string();
        assert!(err.contains("sizes 2 and 3"), "{err}");
    }

    #[test]
    fn out_of_bounds_coordinates_are_errors() {
        let err = CooTensor::from_entries(vec![2], vec![(vec![2], 1.0)], 0.0).unwrap_err();
        assert!(err.to_string().contains("[2]"), "{err}");
    }

    #[test]
    fn dense_round_trip() {
        let t = CooTensor::from_dense(vec![2, 2, 2], &[1., 2., 3., 4., 5., 6., 7., 8.]).unwrap();
        assert_eq!(t.get(&[1, 0, 1]), 6.0);
        assert_eq!(t.to_dense(), vec![1., 2., 3., 4., 5., 6., 7., 8.]);
        assert_eq!(CooTensor::scalar(3.0).to_dense(), vec![3.0]);
    }
}
