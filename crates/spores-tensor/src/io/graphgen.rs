//! Seeded synthetic graph families, so benchmarks and tests run on graphs nobody tuned for:
//!
//! - [`Family::PowerLaw`]: Barabási–Albert preferential attachment (each new vertex links to
//!   `edges / vertices` earlier vertices chosen by degree): a few hubs, a long tail.
//! - [`Family::Rmat`]: R-MAT (Chakrabarti et al., the Graph500 parameters a = 0.57, b = c =
//!   0.19, d = 0.05) on the next power of two, vertex ids shuffled: skewed degrees and
//!   community structure.
//! - [`Family::ErdosRenyi`]: `edges` distinct pairs drawn uniformly: no skew at all.
//! - [`Family::Grid`]: a road-like planar graph, a `w × h` grid with one diagonal per cell,
//!   `edges` of those kept at random: bounded degree, long paths, few triangles.
//!
//! Every vertex gets one label in `0..labels`, label `l` with probability proportional to
//! `1 / (l + 1)` (a few common labels, many rare ones). Graphs are undirected and simple (no
//! self-loops, no repeated edges), as [`DataGraph`] holds them.
//!
//! ```
//! use spores_tensor::io::graphgen::{generate, Family, GraphSpec};
//! let g = generate(&GraphSpec::new(Family::ErdosRenyi, 100, 300)).unwrap();
//! assert_eq!((g.vertices, g.edges.len()), (100, 300));
//! ```

use std::collections::HashSet;
use std::fmt;
use std::str::FromStr;

use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64;

use super::subgraph::DataGraph;
use crate::TensorError;

/// A graph family of [`generate`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Family {
    PowerLaw,
    Rmat,
    ErdosRenyi,
    Grid,
}

impl Family {
    pub const ALL: [Family; 4] = [
        Family::PowerLaw,
        Family::Rmat,
        Family::ErdosRenyi,
        Family::Grid,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Family::PowerLaw => "powerlaw",
            Family::Rmat => "rmat",
            Family::ErdosRenyi => "er",
            Family::Grid => "grid",
        }
    }
}

impl fmt::Display for Family {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Family {
    type Err = TensorError;

    fn from_str(s: &str) -> Result<Family, TensorError> {
        Family::ALL
            .into_iter()
            .find(|f| f.name() == s)
            .ok_or_else(|| {
                TensorError::Invalid(format!(
                    "unknown graph family `{s}` (expected powerlaw, rmat, er or grid)"
                ))
            })
    }
}

/// What to generate: the family, the number of vertices, about how many undirected edges,
/// how many vertex labels, and the seed.
#[derive(Clone, Debug, PartialEq)]
pub struct GraphSpec {
    pub family: Family,
    pub vertices: usize,
    pub edges: usize,
    pub labels: usize,
    pub seed: u64,
}

impl GraphSpec {
    /// `family` with `vertices` and `edges`, 8 labels, seed 1.
    pub fn new(family: Family, vertices: usize, edges: usize) -> GraphSpec {
        GraphSpec {
            family,
            vertices,
            edges,
            labels: 8,
            seed: 1,
        }
    }
}

/// The most vertices a generated graph may have (vertex ids are `u32`).
pub const MAX_VERTICES: usize = 1 << 31;

/// Generates the graph `spec` describes. Power-law graphs have `vertices · ⌈edges /
/// vertices⌉` edges minus the few a small start leaves out; R-MAT stops early when the
/// quadrant recursion keeps repeating edges (dense requests on few vertices); the others have
/// exactly `edges`. Asking for more edges than a simple graph (or the grid) holds is an error.
pub fn generate(spec: &GraphSpec) -> Result<DataGraph, TensorError> {
    let n = spec.vertices;
    if !(2..=MAX_VERTICES).contains(&n) {
        return Err(TensorError::Invalid(format!(
            "a generated graph needs 2 to {MAX_VERTICES} vertices, not {n}"
        )));
    }
    let max_edges = match spec.family {
        Family::Grid => grid_candidates(n).len(),
        _ => n * (n - 1) / 2,
    };
    if spec.edges > max_edges {
        return Err(TensorError::Invalid(format!(
            "{} edges asked of a {} graph on {n} vertices, which holds at most {max_edges}",
            spec.edges, spec.family
        )));
    }
    let mut rng = Pcg64::seed_from_u64(spec.seed);
    let mut edges = match spec.family {
        Family::PowerLaw => power_law(&mut rng, n, spec.edges),
        Family::Rmat => rmat(&mut rng, n, spec.edges),
        Family::ErdosRenyi => erdos_renyi(&mut rng, n, spec.edges),
        Family::Grid => grid(&mut rng, n, spec.edges),
    };
    edges.sort_unstable();
    edges.dedup();
    let labels = zipf_labels(&mut rng, n, spec.labels.max(1));
    DataGraph::new(n, edges, labels)
}

fn ordered(u: usize, v: usize) -> (u32, u32) {
    (u.min(v) as u32, u.max(v) as u32)
}

fn power_law(rng: &mut Pcg64, n: usize, m: usize) -> Vec<(u32, u32)> {
    let k = m.div_ceil(n).clamp(1, n - 1);
    let mut edges = Vec::with_capacity(n * k);
    // Every edge's two endpoints: drawing from it picks a vertex with probability
    // proportional to its degree.
    let mut endpoints: Vec<u32> = Vec::with_capacity(2 * n * k);
    // Start: a clique on the first k + 1 vertices.
    for u in 0..=k {
        for v in u + 1..=k {
            edges.push(ordered(u, v));
            endpoints.extend([u as u32, v as u32]);
        }
    }
    let mut chosen = Vec::with_capacity(k);
    for v in k + 1..n {
        chosen.clear();
        while chosen.len() < k {
            let t = endpoints[rng.random_range(0..endpoints.len())];
            if !chosen.contains(&t) {
                chosen.push(t);
            }
        }
        for &t in &chosen {
            edges.push(ordered(v, t as usize));
            endpoints.extend([v as u32, t]);
        }
    }
    edges
}

fn rmat(rng: &mut Pcg64, n: usize, m: usize) -> Vec<(u32, u32)> {
    let scale = n.next_power_of_two().trailing_zeros();
    // Shuffled ids, so vertex numbers carry no degree information.
    let mut ids: Vec<u32> = (0..n as u32).collect();
    for i in (1..n).rev() {
        ids.swap(i, rng.random_range(0..=i));
    }
    let mut seen: HashSet<(u32, u32)> = HashSet::with_capacity(m);
    let mut attempts = 0usize;
    while seen.len() < m && attempts < 50 * m.max(1) {
        attempts += 1;
        let (mut u, mut v) = (0usize, 0usize);
        for _ in 0..scale {
            let r: f64 = rng.random();
            let (du, dv) = if r < 0.57 {
                (0, 0)
            } else if r < 0.76 {
                (0, 1)
            } else if r < 0.95 {
                (1, 0)
            } else {
                (1, 1)
            };
            u = 2 * u + du;
            v = 2 * v + dv;
        }
        if u < n && v < n && u != v {
            seen.insert(ordered(ids[u] as usize, ids[v] as usize));
        }
    }
    seen.into_iter().collect()
}

fn erdos_renyi(rng: &mut Pcg64, n: usize, m: usize) -> Vec<(u32, u32)> {
    let mut seen: HashSet<(u32, u32)> = HashSet::with_capacity(m);
    while seen.len() < m {
        let (u, v) = (rng.random_range(0..n), rng.random_range(0..n));
        if u != v {
            seen.insert(ordered(u, v));
        }
    }
    seen.into_iter().collect()
}

/// The candidate edges of the grid family: right, down and down-right neighbours on a
/// `w × h` grid covering `n` vertices row by row (the last row may be partial).
fn grid_candidates(n: usize) -> Vec<(u32, u32)> {
    let w = (n as f64).sqrt().ceil() as usize;
    let mut out = Vec::with_capacity(3 * n);
    for v in 0..n {
        let (row, col) = (v / w, v % w);
        let right = (col + 1 < w).then_some(v + 1);
        let down = Some((row + 1) * w + col);
        let diagonal = (col + 1 < w).then_some((row + 1) * w + col + 1);
        for t in [right, down, diagonal].into_iter().flatten() {
            if t < n {
                out.push(ordered(v, t));
            }
        }
    }
    out
}

fn grid(rng: &mut Pcg64, n: usize, m: usize) -> Vec<(u32, u32)> {
    let mut candidates = grid_candidates(n);
    // A partial Fisher-Yates shuffle: the first m candidates are a uniform sample.
    for i in 0..m {
        let j = rng.random_range(i..candidates.len());
        candidates.swap(i, j);
    }
    candidates.truncate(m);
    candidates
}

fn zipf_labels(rng: &mut Pcg64, n: usize, labels: usize) -> Vec<Vec<i64>> {
    let weights: Vec<f64> = (0..labels).map(|l| 1.0 / (l + 1) as f64).collect();
    let total: f64 = weights.iter().sum();
    (0..n)
        .map(|_| {
            let mut r = rng.random::<f64>() * total;
            let mut label = labels - 1;
            for (l, w) in weights.iter().enumerate() {
                if r < *w {
                    label = l;
                    break;
                }
                r -= w;
            }
            vec![label as i64]
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn degrees(g: &DataGraph) -> Vec<usize> {
        let mut d = vec![0; g.vertices];
        for &(u, v) in &g.edges {
            d[u as usize] += 1;
            d[v as usize] += 1;
        }
        d
    }

    #[test]
    fn graphs_are_simple_and_about_the_size_asked() {
        for family in Family::ALL {
            let g = generate(&GraphSpec::new(family, 2000, 5000)).unwrap();
            assert_eq!(g.vertices, 2000, "{family}");
            assert!(g.edges.iter().all(|&(u, v)| u < v), "{family}: u < v");
            assert!(
                g.edges.windows(2).all(|w| w[0] < w[1]),
                "{family}: sorted, distinct"
            );
            let m = g.edges.len();
            assert!((4500..=6000).contains(&m), "{family}: {m} edges");
        }
    }

    #[test]
    fn degree_skew_tells_the_families_apart() {
        let max_degree = |f| {
            let g = generate(&GraphSpec::new(f, 5000, 12000)).unwrap();
            *degrees(&g).iter().max().unwrap()
        };
        // Hubs in power-law and R-MAT graphs, none in uniform or planar ones.
        assert!(max_degree(Family::PowerLaw) > 100);
        assert!(max_degree(Family::Rmat) > 100);
        assert!(max_degree(Family::ErdosRenyi) < 30);
        assert!(max_degree(Family::Grid) <= 6);
    }

    #[test]
    fn seeds_reproduce_and_differ() {
        let spec = GraphSpec::new(Family::Rmat, 500, 2000);
        let (a, b) = (generate(&spec).unwrap(), generate(&spec).unwrap());
        assert_eq!(a.edges, b.edges);
        assert_eq!(a.vertex_labels, b.vertex_labels);
        let other = generate(&GraphSpec { seed: 2, ..spec }).unwrap();
        assert_ne!(a.edges, other.edges);
    }

    #[test]
    fn labels_are_skewed() {
        let g = generate(&GraphSpec::new(Family::ErdosRenyi, 10000, 100)).unwrap();
        let count = |l: i64| g.vertex_labels.iter().filter(|v| v[0] == l).count();
        assert!(count(0) > 3 * count(7), "{} vs {}", count(0), count(7));
        assert!(g.vertex_labels.iter().all(|v| (0..8).contains(&v[0])));
    }

    #[test]
    fn impossible_requests_are_errors() {
        let too_many = generate(&GraphSpec::new(Family::ErdosRenyi, 10, 46));
        assert!(too_many.unwrap_err().to_string().contains("at most 45"));
        assert!(generate(&GraphSpec::new(Family::Grid, 1, 0)).is_err());
        assert!("mesh".parse::<Family>().is_err());
    }
}
