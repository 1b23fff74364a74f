//! Fibertree tensors (Galley §3.2): one level per mode, each in its own [`LevelFormat`], and a
//! value array indexed by the positions of the last level.
//!
//! Positions: the root is position 0. A Dense or Bytemap level maps (parent `p`, coordinate
//! `c`) to `p * dim + c`; a SortedList or Hash level numbers its stored coordinates in order,
//! with `ptr[p]..ptr[p+1]` the children of parent `p`. Hash levels add a hash table for O(1)
//! lookup; Bytemap levels add a byte mask over `p * dim + c` (O(1) lookup) next to the sorted
//! list of set coordinates (fast iteration).

use rustc_hash::FxHashMap;

use crate::plan_ast::LevelFormat;
use crate::tensor::CooTensor;
use crate::TensorError;

/// Dense and Bytemap levels larger than this many positions are stored as sorted lists
/// instead (a graceful fallback rather than an allocation failure).
pub const MAX_DENSE_POSITIONS: usize = 1 << 27;

/// The position of an access whose coordinate is not stored: its value is the fill value.
pub const FILL: usize = usize::MAX;

/// One level of a fibertree.
#[derive(Clone, Debug)]
pub struct Level {
    pub format: LevelFormat,
    pub dim: usize,
    /// SortedList, Hash, Bytemap: children of parent `p` are `idx[ptr[p]..ptr[p+1]]`.
    pub ptr: Vec<usize>,
    pub idx: Vec<u32>,
    /// Hash: (parent, coordinate) → position.
    pub hash: FxHashMap<(usize, u32), usize>,
    /// Bytemap: `mask[p * dim + c]` is set when the coordinate is stored.
    pub mask: Vec<bool>,
    /// Number of positions of this level.
    pub positions: usize,
}

impl Level {
    /// A Dense level of `dim` coordinates under each parent, `positions` in all.
    fn dense(dim: usize, positions: usize) -> Level {
        Level {
            format: LevelFormat::Dense,
            dim,
            ptr: vec![],
            idx: vec![],
            hash: FxHashMap::default(),
            mask: vec![],
            positions,
        }
    }

    /// The position of coordinate `c` under parent `p`, or [`FILL`].
    #[inline]
    pub fn lookup(&self, p: usize, c: u32) -> usize {
        if p == FILL {
            return FILL;
        }
        match self.format {
            LevelFormat::Dense => p * self.dim + c as usize,
            LevelFormat::SortedList => {
                let s = &self.idx[self.ptr[p]..self.ptr[p + 1]];
                // Short fibers: a linear scan beats binary search.
                if s.len() <= 16 {
                    for (k, &x) in s.iter().enumerate() {
                        if x >= c {
                            return if x == c { self.ptr[p] + k } else { FILL };
                        }
                    }
                    FILL
                } else {
                    match s.binary_search(&c) {
                        Ok(k) => self.ptr[p] + k,
                        Err(_) => FILL,
                    }
                }
            }
            LevelFormat::Hash => self.hash.get(&(p, c)).copied().unwrap_or(FILL),
            LevelFormat::Bytemap => {
                let q = p * self.dim + c as usize;
                if self.mask[q] {
                    q
                } else {
                    FILL
                }
            }
        }
    }

    /// The stored coordinates under parent `p` (for Dense: none, iterate `0..dim`).
    #[inline]
    pub fn fiber(&self, p: usize) -> &[u32] {
        if p == FILL || self.format == LevelFormat::Dense {
            return &[];
        }
        &self.idx[self.ptr[p]..self.ptr[p + 1]]
    }

    /// The position of the `k`-th stored coordinate `c` of parent `p`'s fiber.
    #[inline]
    pub fn child(&self, p: usize, k: usize, c: u32) -> usize {
        match self.format {
            LevelFormat::SortedList | LevelFormat::Hash => self.ptr[p] + k,
            LevelFormat::Dense | LevelFormat::Bytemap => p * self.dim + c as usize,
        }
    }
}

/// The values [`FiberTensor::from_sorted_with`] is given: borrowed (copied into place) or
/// owned (kept as they are when they already are in place).
enum Values<'v> {
    Borrowed(&'v [f64]),
    Owned(Vec<f64>),
}

impl std::ops::Deref for Values<'_> {
    type Target = [f64];
    fn deref(&self) -> &[f64] {
        match self {
            Values::Borrowed(v) => v,
            Values::Owned(v) => v,
        }
    }
}

/// A tensor stored as a fibertree.
#[derive(Clone, Debug)]
pub struct FiberTensor {
    pub dims: Vec<usize>,
    pub levels: Vec<Level>,
    pub vals: Vec<f64>,
    pub fill: f64,
}

impl FiberTensor {
    pub fn order(&self) -> usize {
        self.dims.len()
    }

    /// The formats actually used (a requested Dense level that would be too large is a
    /// SortedList).
    pub fn formats(&self) -> Vec<LevelFormat> {
        self.levels.iter().map(|l| l.format).collect()
    }

    /// Builds a fibertree from entries sorted lexicographically by coordinates (in storage
    /// mode order) without duplicates. `coords` holds `order` coordinates per entry. A level
    /// `formats` does not name is a sorted list.
    pub fn from_sorted(
        dims: &[usize],
        coords: &[u32],
        vals: &[f64],
        fill: f64,
        formats: &[LevelFormat],
    ) -> FiberTensor {
        FiberTensor::from_sorted_with(dims, coords, Values::Borrowed(vals), fill, formats)
    }

    /// [`Self::from_sorted`] taking the values: when every entry is a position of the last
    /// level (a sorted list or hash map at the bottom), they become the tensor's values as
    /// they are, without a copy (a result of 46 million entries spent a third of a second
    /// copying them).
    pub fn from_sorted_owned(
        dims: &[usize],
        coords: &[u32],
        vals: Vec<f64>,
        fill: f64,
        formats: &[LevelFormat],
    ) -> FiberTensor {
        FiberTensor::from_sorted_with(dims, coords, Values::Owned(vals), fill, formats)
    }

    fn from_sorted_with(
        dims: &[usize],
        coords: &[u32],
        vals: Values,
        fill: f64,
        formats: &[LevelFormat],
    ) -> FiberTensor {
        let order = dims.len();
        let n = vals.len();
        if order == 0 {
            return FiberTensor {
                dims: vec![],
                levels: vec![],
                vals: vec![vals.first().copied().unwrap_or(fill)],
                fill,
            };
        }
        let vals = match FiberTensor::dense_then_sorted(dims, coords, vals, fill, formats) {
            Ok(t) => return t,
            Err(vals) => vals,
        };
        let mut parent = vec![0usize; n];
        let mut parents = 1usize;
        let mut levels = Vec::with_capacity(order);
        for (l, &dim) in dims.iter().enumerate() {
            let mut format = formats.get(l).copied().unwrap_or(LevelFormat::SortedList);
            let dense_positions = parents.saturating_mul(dim);
            if matches!(format, LevelFormat::Dense | LevelFormat::Bytemap)
                && dense_positions > MAX_DENSE_POSITIONS
            {
                format = LevelFormat::SortedList;
            }
            let mut level = Level {
                format,
                dim,
                ptr: vec![],
                idx: vec![],
                hash: FxHashMap::default(),
                mask: vec![],
                positions: 0,
            };
            let coord = |e: usize| coords[e * order + l];
            if format == LevelFormat::Dense {
                for (e, p) in parent.iter_mut().enumerate() {
                    *p = *p * dim + coord(e) as usize;
                }
                level.positions = dense_positions;
            } else {
                // Unique (parent, coordinate) pairs in order: the sorted fiber of each parent.
                let mut counts = vec![0usize; parents + 1];
                let mut last: Option<(usize, u32)> = None;
                let mut node = 0usize;
                for (e, pe) in parent.iter_mut().enumerate() {
                    let key = (*pe, coord(e));
                    if last != Some(key) {
                        counts[key.0 + 1] += 1;
                        level.idx.push(key.1);
                        node = level.idx.len() - 1;
                        last = Some(key);
                    }
                    *pe = match format {
                        LevelFormat::Bytemap => key.0 * dim + key.1 as usize,
                        _ => node,
                    };
                }
                for p in 0..parents {
                    counts[p + 1] += counts[p];
                }
                level.ptr = counts;
                match format {
                    LevelFormat::Bytemap => {
                        level.mask = vec![false; dense_positions];
                        for p in 0..parents {
                            for k in level.ptr[p]..level.ptr[p + 1] {
                                level.mask[p * dim + level.idx[k] as usize] = true;
                            }
                        }
                        level.positions = dense_positions;
                    }
                    LevelFormat::Hash => {
                        level.hash.reserve(level.idx.len());
                        for p in 0..parents {
                            for k in level.ptr[p]..level.ptr[p + 1] {
                                level.hash.insert((p, level.idx[k]), k);
                            }
                        }
                        level.positions = level.idx.len();
                    }
                    _ => level.positions = level.idx.len(),
                }
            }
            parents = level.positions;
            levels.push(level);
        }
        let identity = parents == n && parent.iter().enumerate().all(|(e, &p)| e == p);
        let out_vals = match vals {
            Values::Owned(v) if identity => v,
            _ => {
                let mut out = vec![fill; parents];
                for (e, &p) in parent.iter().enumerate() {
                    out[p] = vals[e];
                }
                out
            }
        };
        FiberTensor {
            dims: dims.to_vec(),
            levels,
            vals: out_vals,
            fill,
        }
    }

    /// [`Self::from_sorted_with`] for the common result layout of Dense levels over one
    /// SortedList level (CSR and its higher-order kin): the Dense levels' positions are the
    /// flattened coordinate prefixes, the last level's pointers count the entries per
    /// prefix, and its coordinates and the values are the entries' own, in order; no
    /// per-entry parent positions. The values back for any other layout.
    fn dense_then_sorted<'v>(
        dims: &[usize],
        coords: &[u32],
        vals: Values<'v>,
        fill: f64,
        formats: &[LevelFormat],
    ) -> Result<FiberTensor, Values<'v>> {
        let order = dims.len();
        let layout = order >= 2
            && formats.len() == order
            && formats[order - 1] == LevelFormat::SortedList
            && formats[..order - 1]
                .iter()
                .all(|f| *f == LevelFormat::Dense);
        let prefixes = dims[..order.saturating_sub(1)]
            .iter()
            .try_fold(1usize, |c, &d| c.checked_mul(d))
            .filter(|&c| layout && c <= MAX_DENSE_POSITIONS);
        let Some(prefixes) = prefixes else {
            return Err(vals);
        };
        let n = vals.len();
        let mut counts = vec![0usize; prefixes + 1];
        let mut idx = Vec::with_capacity(n);
        for cell in coords.chunks_exact(order) {
            let prefix = cell[..order - 1]
                .iter()
                .zip(dims)
                .fold(0usize, |p, (&c, &d)| p * d + c as usize);
            counts[prefix + 1] += 1;
            idx.push(cell[order - 1]);
        }
        for p in 0..prefixes {
            counts[p + 1] += counts[p];
        }
        let mut levels = vec![];
        let mut positions = 1usize;
        for &dim in &dims[..order - 1] {
            positions *= dim;
            levels.push(Level::dense(dim, positions));
        }
        levels.push(Level {
            format: LevelFormat::SortedList,
            dim: dims[order - 1],
            ptr: counts,
            idx,
            hash: FxHashMap::default(),
            mask: vec![],
            positions: n,
        });
        let vals = match vals {
            Values::Owned(v) => v,
            Values::Borrowed(v) => v.to_vec(),
        };
        Ok(FiberTensor {
            dims: dims.to_vec(),
            levels,
            vals,
            fill,
        })
    }

    /// An all-dense tensor from its row-major values (`vals.len()` = product of dims).
    pub fn dense(dims: &[usize], vals: Vec<f64>, fill: f64) -> FiberTensor {
        let mut parents = 1usize;
        let levels = dims
            .iter()
            .map(|&dim| {
                parents *= dim;
                Level::dense(dim, parents)
            })
            .collect();
        debug_assert_eq!(parents, vals.len());
        FiberTensor {
            dims: dims.to_vec(),
            levels,
            vals,
            fill,
        }
    }

    /// Converts a COO tensor with the given level formats.
    pub fn from_coo(t: &CooTensor, formats: &[LevelFormat]) -> FiberTensor {
        let order = t.order();
        let mut coords = Vec::with_capacity(t.nnz() * order);
        for k in 0..t.nnz() {
            coords.extend_from_slice(t.coord(k));
        }
        FiberTensor::from_sorted(t.dims(), &coords, t.values(), t.fill(), formats)
    }

    /// Input formats chosen from the data: a level is Dense when at least half of its
    /// positions would be stored, else a SortedList (CSR for an ordinary sparse matrix).
    pub fn from_coo_auto(t: &CooTensor) -> FiberTensor {
        FiberTensor::from_coo(t, &auto_formats(t))
    }

    /// The stored entries whose value differs from the fill, in lexicographic order.
    /// [`Self::to_coo`] taking the tensor: when every stored value is an entry (the last
    /// level is a sorted list or hash map and no value is the fill) the values become the
    /// COO tensor's as they are; only the coordinates are written.
    pub fn into_coo(self) -> Result<CooTensor, TensorError> {
        let compressed = self
            .levels
            .last()
            .is_some_and(|l| matches!(l.format, LevelFormat::SortedList | LevelFormat::Hash));
        let is_fill = |v: f64| v == self.fill || (v.is_nan() && self.fill.is_nan());
        if !compressed || self.vals.iter().any(|&v| is_fill(v)) {
            return self.to_coo();
        }
        let order = self.order();
        let mut coords = Vec::with_capacity(self.vals.len() * order);
        self.for_each_stored(|c, _| coords.extend_from_slice(c));
        Ok(CooTensor::from_sorted_parts_unchecked(
            self.dims, coords, self.vals, self.fill,
        ))
    }

    pub fn to_coo(&self) -> Result<CooTensor, TensorError> {
        let order = self.order();
        if order == 0 {
            return Ok(CooTensor::scalar(self.vals[0]));
        }
        // The walk visits coordinates in lexicographic order, each once: no sort, no
        // per-entry allocation (a 600,000-entry result took 150 ms through `from_entries`).
        let mut coords = Vec::new();
        let mut vals = Vec::new();
        self.for_each_stored(|c, v| {
            if v != self.fill && !(v.is_nan() && self.fill.is_nan()) {
                coords.extend_from_slice(c);
                vals.push(v);
            }
        });
        CooTensor::from_sorted_parts(self.dims.clone(), coords, vals, self.fill)
    }

    /// Calls `f` with the coordinates and value of every stored position, in lexicographic
    /// order (a Dense level yields all its coordinates). Iterative and monomorphic in `f`:
    /// scanning a 600,000-entry, five-level tensor this way costs a few ns per entry, where a
    /// recursive walk through a `dyn` callback cost ~30 ns.
    pub fn for_each_stored<F: FnMut(&[u32], f64)>(&self, f: F) {
        self.for_each_stored_in(0..usize::MAX, f);
    }

    /// Entries of the first level's stored coordinates `0..` [`Self::first_level_len`]
    /// (Dense: coordinates, else positions in its list), restricted to `part`: the walk of
    /// [`Self::for_each_stored`] over a slice of the first level (parallel walks).
    pub fn first_level_len(&self) -> usize {
        match self.levels.first() {
            None => 1,
            Some(l) if l.format == LevelFormat::Dense => l.dim,
            Some(l) => l.ptr[1] - l.ptr[0],
        }
    }

    /// [`Self::for_each_stored`] over the first-level entries `part` (see
    /// [`Self::first_level_len`]).
    pub fn for_each_stored_in<F: FnMut(&[u32], f64)>(
        &self,
        part: std::ops::Range<usize>,
        mut f: F,
    ) {
        let n = self.levels.len();
        if n == 0 {
            if part.contains(&0) {
                f(&[], self.vals[0]);
            }
            return;
        }
        let range = |l: usize, p: usize| -> (usize, usize) {
            let level = &self.levels[l];
            match level.format {
                LevelFormat::Dense => (0, level.dim),
                _ => (level.ptr[p], level.ptr[p + 1]),
            }
        };
        // Levels from `chain` on hold exactly one child per parent (a fact table's foreign
        // keys under its primary key: `L[i,s,p,o,c]`): their positions equal their parent's,
        // so the walk reads their coordinates straight off `idx` instead of descending.
        let chain = self.singleton_suffix();
        let mut coord = vec![0u32; n];
        let mut lo = vec![0usize; n];
        let mut hi = vec![0usize; n];
        let mut parent = vec![0usize; n];
        (lo[0], hi[0]) = range(0, 0);
        let len = hi[0] - lo[0];
        (lo[0], hi[0]) = (
            lo[0] + part.start.min(len),
            lo[0] + part.end.min(len).max(part.start.min(len)),
        );
        let mut l = 0usize;
        loop {
            if lo[l] == hi[l] {
                if l == 0 {
                    return;
                }
                l -= 1;
                continue;
            }
            let k = lo[l];
            lo[l] += 1;
            let level = &self.levels[l];
            let (c, pos) = match level.format {
                LevelFormat::Dense => (k as u32, parent[l] * level.dim + k),
                LevelFormat::SortedList | LevelFormat::Hash => (level.idx[k], k),
                LevelFormat::Bytemap => {
                    let c = level.idx[k];
                    (c, parent[l] * level.dim + c as usize)
                }
            };
            coord[l] = c;
            if l + 1 == chain {
                for (m, level) in self.levels.iter().enumerate().skip(chain) {
                    coord[m] = level.idx[pos];
                }
                f(&coord, self.vals[pos]);
            } else {
                parent[l + 1] = pos;
                (lo[l + 1], hi[l + 1]) = range(l + 1, pos);
                l += 1;
            }
        }
    }

    /// Calls `f` with the coordinates of levels `from..` (in `coord`, one per level) and the
    /// value of every stored position under position `pos` of level `from - 1` (the root,
    /// 0, when `from` is 0), in lexicographic order: the walk of one subtree, for a join
    /// whose outer loops bind the first `from` modes. A Dense level yields all its
    /// coordinates (values may be the fill).
    pub fn for_each_stored_under<F: FnMut(&[u32], f64)>(
        &self,
        from: usize,
        pos: usize,
        coord: &mut [u32],
        f: &mut F,
    ) {
        self.walk_under(from, from, pos, coord, f);
    }

    fn walk_under<F: FnMut(&[u32], f64)>(
        &self,
        from: usize,
        l: usize,
        pos: usize,
        coord: &mut [u32],
        f: &mut F,
    ) {
        if l == self.levels.len() {
            f(coord, self.vals[pos]);
            return;
        }
        let level = &self.levels[l];
        match level.format {
            LevelFormat::Dense => {
                for c in 0..level.dim {
                    coord[l - from] = c as u32;
                    self.walk_under(from, l + 1, pos * level.dim + c, coord, f);
                }
            }
            LevelFormat::SortedList | LevelFormat::Hash | LevelFormat::Bytemap => {
                for k in level.ptr[pos]..level.ptr[pos + 1] {
                    let c = level.idx[k];
                    coord[l - from] = c;
                    let child = if level.format == LevelFormat::Bytemap {
                        pos * level.dim + c as usize
                    } else {
                        k
                    };
                    self.walk_under(from, l + 1, child, coord, f);
                }
            }
        }
    }

    /// The first level of the longest run of trailing levels in which every parent position
    /// has exactly one child (SortedList or Hash levels whose `ptr` is the identity), or the
    /// order when there is none; never 0 (the first level is walked as usual).
    fn singleton_suffix(&self) -> usize {
        let n = self.levels.len();
        let mut s = n;
        while s > 1 {
            let (parent, level) = (&self.levels[s - 2], &self.levels[s - 1]);
            let singleton = matches!(level.format, LevelFormat::SortedList | LevelFormat::Hash)
                && level.idx.len() == parent.positions
                && level.ptr.len() == parent.positions + 1
                && level.ptr.windows(2).all(|w| w[1] == w[0] + 1);
            if !singleton {
                break;
            }
            s -= 1;
        }
        s
    }

    /// The value at a coordinate.
    pub fn get(&self, coord: &[u32]) -> f64 {
        let mut p = 0usize;
        for (level, &c) in self.levels.iter().zip(coord) {
            p = level.lookup(p, c);
            if p == FILL {
                return self.fill;
            }
        }
        self.vals[p]
    }
}

/// Dense where at least half the positions of a level would be stored, else SortedList.
pub fn auto_formats(t: &CooTensor) -> Vec<LevelFormat> {
    let order = t.order();
    let mut formats = Vec::with_capacity(order);
    let mut parents = 1usize;
    for l in 0..order {
        let mut distinct = 0usize;
        let mut prev: Option<&[u32]> = None;
        for k in 0..t.nnz() {
            let pre = &t.coord(k)[..=l];
            if prev != Some(pre) {
                distinct += 1;
                prev = Some(pre);
            }
        }
        let (format, positions) =
            auto_level_format(parents as f64, t.dims()[l] as f64, distinct as f64);
        formats.push(format);
        parents = positions as usize;
    }
    formats
}

/// The format [`auto_formats`] gives a level with `parents` parent positions, dimension
/// `dim` and `distinct` stored coordinates overall, and the level's number of positions.
pub fn auto_level_format(parents: f64, dim: f64, distinct: f64) -> (LevelFormat, f64) {
    let dense_positions = parents * dim;
    if dense_positions <= MAX_DENSE_POSITIONS as f64 && 2.0 * distinct >= dense_positions {
        (LevelFormat::Dense, dense_positions)
    } else {
        (LevelFormat::SortedList, distinct)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_format_round_trips_and_looks_up() {
        let t = CooTensor::from_entries(
            vec![3, 4, 2],
            vec![
                (vec![0, 1, 1], 1.0),
                (vec![0, 3, 0], 2.0),
                (vec![2, 0, 1], 3.0),
                (vec![2, 2, 0], 4.0),
            ],
            0.0,
        )
        .unwrap();
        use LevelFormat::*;
        for f0 in [Dense, SortedList, Hash, Bytemap] {
            for f1 in [Dense, SortedList, Hash, Bytemap] {
                for f2 in [Dense, SortedList, Hash, Bytemap] {
                    let ft = FiberTensor::from_coo(&t, &[f0, f1, f2]);
                    assert_eq!(ft.formats(), vec![f0, f1, f2]);
                    assert_eq!(ft.to_coo().unwrap(), t, "{f0:?} {f1:?} {f2:?}");
                    assert_eq!(ft.get(&[2, 2, 0]), 4.0);
                    assert_eq!(ft.get(&[1, 2, 0]), 0.0);
                    assert_eq!(ft.get(&[0, 3, 1]), 0.0);
                }
            }
        }
    }

    #[test]
    fn auto_formats_pick_csr_for_a_sparse_matrix() {
        let entries = (0..100u32).map(|i| (vec![i, (i * 7) % 100], 1.0)).collect();
        let t = CooTensor::from_entries(vec![100, 100], entries, 0.0).unwrap();
        assert_eq!(
            auto_formats(&t),
            vec![LevelFormat::Dense, LevelFormat::SortedList]
        );
    }
}
