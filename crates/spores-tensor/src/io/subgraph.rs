//! The subgraph-matching graph formats of `shared/data/subgraph` and their tensor encoding
//! (Galley §8.2).
//!
//! Files hold `t ...` (header), `v ID LABEL...` and `e SRC DST [LABEL]` lines.
//! - Data graphs in the "in-memory subgraph matching" style (`t N M` header, e.g.
//!   `yeast.graph`) give `v ID LABEL DEGREE`: one label per vertex. G-Care style files
//!   (`t # ...` header, e.g. `human.txt`) list every label of the vertex after its id.
//!   Edges are undirected: the adjacency matrix `E` is symmetric with 1s.
//! - Query graphs give `v ID LABEL ...`: the first field after the id is the vertex's label,
//!   `-1` meaning any label (later fields are degrees or data-vertex hints, ignored).
//!
//! **Counting semantics** (checked against the true counts by brute force in
//! `tests/subgraph.rs`): the counts are *homomorphism* counts over the *undirected*
//! (symmetrized) data graph: the number of maps from query vertices to data vertices, not
//! necessarily injective, sending every query edge to a data edge and every labelled query
//! vertex to a data vertex carrying that label. As a tensor program that is one sum-product,
//! `t = sum[v0,..,vn](E[va,vb] * .. * L<label>[v] * ..)`, with one `E` factor per distinct
//! query edge (a query listing both `e 0 1` and `e 1 0` gets two identical factors, which
//! multiply to the same 0/1 value) and one label-indicator vector per labelled vertex.
//! Edge labels other than 0 are not supported (none of the data sets uses them).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

use super::{line_error, read_text};
use crate::plan_ast::{AggOp, Expr, Idx, MapOp, Program, Query};
use crate::tensor::CooTensor;
use crate::TensorError;

/// A data graph as tensors: the symmetric adjacency matrix and one 0/1 vector per label.
#[derive(Clone, Debug)]
pub struct DataGraph {
    pub vertices: usize,
    /// Undirected edges, each once (`u < v`).
    pub edges: Vec<(u32, u32)>,
    pub adjacency: CooTensor,
    pub labels: BTreeMap<i64, CooTensor>,
    /// Labels of each vertex.
    pub vertex_labels: Vec<Vec<i64>>,
}

/// A query graph: a label (or any) per vertex and its edges.
#[derive(Clone, Debug, PartialEq)]
pub struct QueryGraph {
    /// `None`: any label.
    pub labels: Vec<Option<i64>>,
    /// Distinct directed pairs in file order.
    pub edges: Vec<(u32, u32)>,
}

fn header_is_gcare(text: &str) -> bool {
    text.lines()
        .find(|l| l.starts_with('t'))
        .is_some_and(|l| l.split_whitespace().nth(1) == Some("#"))
}

fn int(path: &Path, line: usize, s: &str, what: &str) -> Result<i64, TensorError> {
    s.parse::<i64>()
        .map_err(|_| line_error(path, line, format!("malformed {what} `{s}`")))
}

/// Reads a data graph (either style, told apart by the `t` header).
pub fn read_data_graph(path: &Path) -> Result<DataGraph, TensorError> {
    let text = read_text(path)?;
    let gcare = header_is_gcare(&text);
    let mut vertex_labels: BTreeMap<u32, Vec<i64>> = BTreeMap::new();
    let mut edges: BTreeSet<(u32, u32)> = BTreeSet::new();
    for_each_record(path, &text, |lineno, record| {
        match record {
            Record::Vertex { id, labels } => {
                let labels = if gcare { labels } else { &labels[..1] };
                let labels = labels
                    .iter()
                    .map(|s| int(path, lineno, s, "label"))
                    .collect::<Result<Vec<_>, _>>()?;
                if vertex_labels.insert(id, labels).is_some() {
                    return Err(line_error(
                        path,
                        lineno,
                        format!("vertex {id} is listed twice"),
                    ));
                }
            }
            Record::Edge { u, v, label } => {
                if let Some(l) = label {
                    if int(path, lineno, l, "edge label")? != 0 {
                        return Err(line_error(
                            path,
                            lineno,
                            "edge labels other than 0 are not supported",
                        ));
                    }
                }
                if u != v {
                    edges.insert((u.min(v), u.max(v)));
                }
            }
        }
        Ok(())
    })?;
    let n = vertex_labels
        .keys()
        .next_back()
        .map_or(0, |&m| m as usize + 1)
        .max(
            edges
                .iter()
                .map(|&(_, v)| v as usize + 1)
                .max()
                .unwrap_or(0),
        );
    let mut per_vertex = vec![vec![]; n];
    for (v, labels) in vertex_labels {
        per_vertex[v as usize] = labels;
    }
    DataGraph::new(n, edges.into_iter().collect(), per_vertex)
}

impl DataGraph {
    /// The graph on `vertices` vertices with undirected `edges` (each once, `u < v`, no
    /// self-loops, sorted) and the labels of each vertex.
    pub fn new(
        vertices: usize,
        edges: Vec<(u32, u32)>,
        vertex_labels: Vec<Vec<i64>>,
    ) -> Result<DataGraph, TensorError> {
        if vertex_labels.len() != vertices {
            return Err(TensorError::Invalid(format!(
                "{} vertex label lists for {vertices} vertices",
                vertex_labels.len()
            )));
        }
        let adjacency = CooTensor::undirected_graph(vertices, edges.iter().copied())?;
        let mut by_label: BTreeMap<i64, Vec<(Vec<u32>, f64)>> = BTreeMap::new();
        for (v, labels) in vertex_labels.iter().enumerate() {
            for &l in labels {
                by_label.entry(l).or_default().push((vec![v as u32], 1.0));
            }
        }
        let labels = by_label
            .into_iter()
            .map(|(l, e)| Ok((l, CooTensor::from_entries(vec![vertices], e, 0.0)?)))
            .collect::<Result<_, TensorError>>()?;
        Ok(DataGraph {
            vertices,
            edges,
            adjacency,
            labels,
            vertex_labels,
        })
    }

    /// Writes the graph in the `t N M` / `v ID LABEL DEGREE` / `e U V` format
    /// [`read_data_graph`] reads (one label per vertex: the first, or 0).
    pub fn write(&self, path: &Path) -> Result<(), TensorError> {
        let mut degree = vec![0usize; self.vertices];
        for &(u, v) in &self.edges {
            degree[u as usize] += 1;
            degree[v as usize] += 1;
        }
        super::write_atomic(path, |w| {
            writeln!(w, "t {} {}", self.vertices, self.edges.len())?;
            for (v, d) in degree.iter().enumerate() {
                let label = self.vertex_labels[v].first().copied().unwrap_or(0);
                writeln!(w, "v {v} {label} {d}")?;
            }
            for &(u, v) in &self.edges {
                writeln!(w, "e {u} {v}")?;
            }
            Ok(())
        })
    }
}

/// One `v` or `e` line of a graph file, its ids parsed.
enum Record<'a> {
    /// `v ID LABEL ...`: the fields after the id (at least one).
    Vertex { id: u32, labels: &'a [&'a str] },
    /// `e SRC DST [LABEL]`.
    Edge {
        u: u32,
        v: u32,
        label: Option<&'a str>,
    },
}

/// Calls `visit` with each record of a graph file and its line number, skipping blank and
/// `t` (header) lines; a short or unknown record is an error naming the line.
fn for_each_record(
    path: &Path,
    text: &str,
    mut visit: impl FnMut(usize, Record) -> Result<(), TensorError>,
) -> Result<(), TensorError> {
    for (k, line) in text.lines().enumerate() {
        let lineno = k + 1;
        let f: Vec<&str> = line.split_whitespace().collect();
        let record = match f.first().copied() {
            None | Some("t") => continue,
            Some("v") if f.len() < 3 => {
                return Err(line_error(path, lineno, "expected `v ID LABEL ...`"))
            }
            Some("v") => Record::Vertex {
                id: vertex_id(path, lineno, f[1])?,
                labels: &f[2..],
            },
            Some("e") if f.len() < 3 => {
                return Err(line_error(path, lineno, "expected `e SRC DST [LABEL]`"))
            }
            Some("e") => Record::Edge {
                u: vertex_id(path, lineno, f[1])?,
                v: vertex_id(path, lineno, f[2])?,
                label: f.get(3).copied(),
            },
            Some(other) => {
                return Err(line_error(
                    path,
                    lineno,
                    format!("unknown record `{other}` (expected t, v or e)"),
                ))
            }
        };
        visit(lineno, record)?;
    }
    Ok(())
}

fn vertex_id(path: &Path, line: usize, s: &str) -> Result<u32, TensorError> {
    s.parse::<u32>()
        .map_err(|_| line_error(path, line, format!("malformed vertex id `{s}`")))
}

/// Reads a query graph.
pub fn read_query_graph(path: &Path) -> Result<QueryGraph, TensorError> {
    let text = read_text(path)?;
    let mut labels: BTreeMap<u32, Option<i64>> = BTreeMap::new();
    let mut edges: Vec<(u32, u32)> = vec![];
    for_each_record(path, &text, |lineno, record| {
        match record {
            Record::Vertex { id, labels: fields } => {
                let l = int(path, lineno, fields[0], "label")?;
                labels.insert(id, (l != -1).then_some(l));
            }
            Record::Edge { u, v, .. } => {
                if u == v {
                    return Err(line_error(
                        path,
                        lineno,
                        "self-loop query edges are not supported",
                    ));
                }
                if !edges.contains(&(u, v)) {
                    edges.push((u, v));
                }
            }
        }
        Ok(())
    })?;
    let n = labels.keys().next_back().map_or(0, |&m| m as usize + 1);
    if labels.len() != n {
        return Err(TensorError::Invalid(format!(
            "{}: query vertex ids must be 0..{n} without gaps",
            path.display()
        )));
    }
    if let Some(&(u, v)) = edges
        .iter()
        .find(|&&(u, v)| u as usize >= n || v as usize >= n)
    {
        return Err(TensorError::Invalid(format!(
            "{}: edge {u}-{v} names a vertex that is not declared",
            path.display()
        )));
    }
    Ok(QueryGraph {
        labels: labels.into_values().collect(),
        edges,
    })
}

/// The input name of a label's indicator vector.
pub fn label_input(label: i64) -> String {
    if label < 0 {
        format!("Lm{}", -label)
    } else {
        format!("L{label}")
    }
}

impl QueryGraph {
    /// `count = sum[v0,..](E[..] * .. * L<label>[..] * ..)`. `E` is symmetric, so each edge
    /// factor is written with its smaller vertex first (concordant with the natural loop
    /// order `v0, v1, ..`).
    pub fn program(&self) -> Result<Program, TensorError> {
        let v = |k: u32| Idx::new(&format!("v{k}"));
        let mut factors = vec![];
        for &(a, b) in &self.edges {
            factors.push(Expr::input("E", vec![v(a.min(b)), v(a.max(b))]));
        }
        for (k, l) in self.labels.iter().enumerate() {
            if let Some(l) = l {
                factors.push(Expr::input(&label_input(*l), vec![v(k as u32)]));
            }
        }
        for k in 0..self.labels.len() as u32 {
            let touched = self.edges.iter().any(|&(a, b)| a == k || b == k)
                || self.labels[k as usize].is_some();
            if !touched {
                return Err(TensorError::Invalid(format!(
                    "query vertex {k} has no edge and no label: its range is unknown"
                )));
            }
        }
        let body = if factors.len() == 1 {
            factors.pop().expect("one factor")
        } else {
            Expr::map(MapOp::Mul, factors)
        };
        let idxs = (0..self.labels.len() as u32).map(v).collect();
        Ok(Program {
            queries: vec![Query::new(
                "count",
                vec![],
                Expr::agg(AggOp::Sum, idxs, body),
            )],
            outputs: vec!["count".into()],
        })
    }
}

impl DataGraph {
    /// The inputs a query's program reads: `E` and the label vectors it uses (all-zero for a
    /// label no data vertex has).
    pub fn inputs_for(&self, q: &QueryGraph) -> HashMap<String, CooTensor> {
        let mut m = HashMap::new();
        m.insert("E".to_string(), self.adjacency.clone());
        for l in q.labels.iter().flatten() {
            let t = self.labels.get(l).cloned().unwrap_or_else(|| {
                CooTensor::from_entries(vec![self.vertices], vec![], 0.0).expect("empty vector")
            });
            m.insert(label_input(*l), t);
        }
        m
    }
}
