//! Deciding expressions with cut points (`spores equiv --size k<m`) block by block.
//!
//! A cut `k` of a dimension `m` splits every value with a side of size `m` into two
//! blocks along that side: rows `1:k` and rows `(k+1):m` (the rest, named `m-k`). Each
//! input becomes a grid of block inputs (`A` of `m x n` is `rbind(A@11, A@21)` with
//! `A@11` of `k x n`), each operator acts on grids by the block rules of linear algebra
//! (`rbind(a, b) %*% c = rbind(a %*% c, b %*% c)`, `sum` of a grid is the sum of its
//! blocks' sums, a slice whose bounds are block boundaries is those blocks), and `seq(1,
//! m)` is `rbind(seq(1, k), k + seq(1, m-k))`. Both sides then are grids of
//! expressions over the block inputs, in which `k` and `m-k` are free sizes (each at
//! least 1): the sides are equal for every `1 <= k < m` exactly when each pair of
//! blocks is equal for all sizes, which the rest of the decision proves block by block.
//!
//! Without a declared cut, a symbolic dimension sliced after its first or before its
//! last position (`A[2:nrow(A), ]`, `A[1, ]`) is cut there the same way, its rest `m-1`.
//!
//! A construct without a block rule here (a slice inside a block, `rev` across a cut)
//! leaves the sides undecided by this step, never decided wrongly.

use std::collections::BTreeMap;

use super::error::EquivError;
use crate::la::{Dim, LaExpr, Shape, ShapeEnv, SizeForm, INDEX};

/// A value cut into blocks: `cells[a][b]` has rows `rows[a]` and columns `cols[b]`.
#[derive(Clone, Debug)]
struct Grid {
    rows: Vec<Dim>,
    cols: Vec<Dim>,
    cells: Vec<Vec<LaExpr>>,
}

impl Grid {
    fn single(e: LaExpr, shape: Shape) -> Grid {
        Grid {
            rows: vec![shape.0],
            cols: vec![shape.1],
            cells: vec![vec![e]],
        }
    }

    fn map(self, f: &dyn Fn(LaExpr) -> LaExpr) -> Grid {
        Grid {
            rows: self.rows,
            cols: self.cols,
            cells: self
                .cells
                .into_iter()
                .map(|row| row.into_iter().map(f).collect())
                .collect(),
        }
    }

    fn transpose(self) -> Grid {
        let cells = (0..self.cols.len())
            .map(|b| {
                (0..self.rows.len())
                    .map(|a| LaExpr::Transpose(Box::new(self.cells[a][b].clone())))
                    .collect()
            })
            .collect();
        Grid {
            rows: self.cols,
            cols: self.rows,
            cells,
        }
    }
}

fn add_all(terms: Vec<LaExpr>) -> Option<LaExpr> {
    terms
        .into_iter()
        .reduce(|a, b| LaExpr::Add(Box::new(a), Box::new(b)))
}

fn func(name: &str, args: Vec<LaExpr>) -> LaExpr {
    LaExpr::Func {
        name: name.into(),
        args,
    }
}

/// The larger (`max`) or smaller (`min`) of the values, cell by cell.
fn extreme_all(name: &str, terms: Vec<LaExpr>) -> Option<LaExpr> {
    terms.into_iter().reduce(|a, b| func(name, vec![a, b]))
}

/// Cuts expressions into grids, recording the block inputs it names.
struct Splitter<'a> {
    env: &'a ShapeEnv,
    /// Each block input: its shape and the input it is a block of.
    blocks: BTreeMap<String, (Shape, String)>,
    /// Dimensions cut after their first or before their last position
    /// ([`Splitter::find_ends`]).
    ends: BTreeMap<String, Vec<Dim>>,
}

impl Splitter<'_> {
    /// The blocks of a dimension: a cut one in two, any other whole.
    fn parts(&self, d: &Dim) -> Vec<Dim> {
        match d {
            Dim::Sym(m) => match (self.env.cut_of(m), self.ends.get(m)) {
                (Some((k, rest)), _) => vec![Dim::sym(k), Dim::Sym(rest)],
                (None, Some(parts)) => parts.clone(),
                (None, None) => vec![d.clone()],
            },
            _ => vec![d.clone()],
        }
    }

    /// Cuts after the first or before the last row (column) of each symbolic dimension
    /// without a cut of its own that `e` slices there (`A[2:nrow(A), ]`, `A[1, ]`): such a
    /// cut is always within the dimension (at least 2), its rest (`m-1`) at least 1.
    fn find_ends(&mut self, e: &LaExpr) {
        let env = self.env;
        e.visit(&mut |x| {
            let LaExpr::Func { name, args } = x else {
                return;
            };
            let (INDEX, [target, bounds @ ..]) = (name.as_str(), args.as_slice()) else {
                return;
            };
            let Ok((rows, cols)) = env.shape_of(target) else {
                return;
            };
            for (pair, size) in bounds.chunks(2).zip([rows, cols]) {
                let Dim::Sym(m) = &size else { continue };
                if env.cut_of(m).is_some() {
                    continue;
                }
                let (Some(lo), Some(hi)) = (env.size_form(&pair[0]), env.size_form(&pair[1]))
                else {
                    continue;
                };
                let whole = env.dim_form(&size);
                let one = SizeForm::number(1);
                let at = |f: &SizeForm, g: &SizeForm| env.same_size(f, g);
                let first = at(&lo, &SizeForm::number(2)) || at(&hi, &one);
                let last = at(&hi, &whole.minus(&one)) || at(&lo, &whole);
                let rest = env.dim_of_form(&whole.minus(&one));
                let parts = match (first, last, rest) {
                    (true, false, Some(rest)) => vec![Dim::Known(1), rest],
                    (false, true, Some(rest)) => vec![rest, Dim::Known(1)],
                    _ => continue,
                };
                match self.ends.get(m) {
                    Some(seen) if *seen != parts => {
                        self.ends.insert(m.clone(), Vec::new());
                    }
                    _ => {
                        self.ends.insert(m.clone(), parts);
                    }
                }
            }
        });
    }

    fn split(&mut self, e: &LaExpr) -> Option<Grid> {
        use LaExpr::*;
        let b = |x: LaExpr| Box::new(x);
        Some(match e {
            Var(name) => {
                let (r, c) = self.env.shapes.get(name)?.clone();
                let (rows, cols) = (self.parts(&r), self.parts(&c));
                if rows.len() == 1 && cols.len() == 1 {
                    return Some(Grid::single(e.clone(), (r, c)));
                }
                let mut cells = Vec::new();
                for (a, pr) in rows.iter().enumerate() {
                    let mut line = Vec::new();
                    for (q, pc) in cols.iter().enumerate() {
                        let block = format!("{name}@{}{}", a + 1, q + 1);
                        self.blocks
                            .insert(block.clone(), ((pr.clone(), pc.clone()), name.clone()));
                        line.push(Var(block));
                    }
                    cells.push(line);
                }
                Grid { rows, cols, cells }
            }
            Const(_) => Grid::single(e.clone(), (Dim::Known(1), Dim::Known(1))),
            Fill(v, r, c) => {
                let v = self.scalar(v)?;
                let (rows, cols) = (self.parts(r), self.parts(c));
                let cells = rows
                    .iter()
                    .map(|pr| {
                        cols.iter()
                            .map(|pc| Fill(b(v.clone()), pr.clone(), pc.clone()))
                            .collect()
                    })
                    .collect();
                Grid { rows, cols, cells }
            }
            Add(x, y) | Sub(x, y) | Mul(x, y) => {
                let grids = vec![self.split(x)?, self.split(y)?];
                let op = |args: Vec<LaExpr>| {
                    let [p, q]: [LaExpr; 2] = args.try_into().ok()?;
                    Some(match e {
                        Add(..) => Add(b(p), b(q)),
                        Sub(..) => Sub(b(p), b(q)),
                        _ => Mul(b(p), b(q)),
                    })
                };
                cellwise(grids, &op)?
            }
            MatMul(x, y) => {
                let (gx, gy) = (self.split(x)?, self.split(y)?);
                if gx.cols != gy.rows {
                    return None;
                }
                let mut cells = Vec::new();
                for a in 0..gx.rows.len() {
                    let mut line = Vec::new();
                    for c in 0..gy.cols.len() {
                        let terms = (0..gx.cols.len())
                            .map(|q| MatMul(b(gx.cells[a][q].clone()), b(gy.cells[q][c].clone())))
                            .collect();
                        line.push(add_all(terms)?);
                    }
                    cells.push(line);
                }
                Grid {
                    rows: gx.rows,
                    cols: gy.cols,
                    cells,
                }
            }
            Transpose(x) => self.split(x)?.transpose(),
            Neg(x) => self.split(x)?.map(&|c| Neg(b(c))),
            Pow(x, k) => self.split(x)?.map(&|c| Pow(b(c), *k)),
            Sum(x) => {
                let g = self.split(x)?;
                let terms = g.cells.into_iter().flatten().map(|c| Sum(b(c))).collect();
                Grid::single(add_all(terms)?, (Dim::Known(1), Dim::Known(1)))
            }
            RowSums(x) => {
                let g = self.split(x)?;
                let cells = g
                    .cells
                    .into_iter()
                    .map(|line| add_all(line.into_iter().map(|c| RowSums(b(c))).collect()))
                    .map(|c| c.map(|c| vec![c]))
                    .collect::<Option<_>>()?;
                Grid {
                    rows: g.rows,
                    cols: vec![Dim::Known(1)],
                    cells,
                }
            }
            ColSums(x) => {
                let g = self.split(x)?;
                let line = (0..g.cols.len())
                    .map(|q| {
                        add_all(
                            (0..g.rows.len())
                                .map(|a| ColSums(b(g.cells[a][q].clone())))
                                .collect(),
                        )
                    })
                    .collect::<Option<Vec<_>>>()?;
                Grid {
                    rows: vec![Dim::Known(1)],
                    cols: g.cols,
                    cells: vec![line],
                }
            }
            Func { name, args } => self.split_func(e, name, args)?,
        })
    }

    /// The one block of a value that is not cut.
    fn scalar(&mut self, e: &LaExpr) -> Option<LaExpr> {
        let g = self.split(e)?;
        (g.rows.len() == 1 && g.cols.len() == 1).then(|| g.cells[0][0].clone())
    }

    fn split_func(&mut self, e: &LaExpr, name: &str, args: &[LaExpr]) -> Option<Grid> {
        use LaExpr::*;
        let b = |x: LaExpr| Box::new(x);
        let env = self.env;
        match (name, args) {
            ("cbind" | "rbind", [x, y]) => {
                let (gx, gy) = (self.split(x)?, self.split(y)?);
                if name == "rbind" {
                    if gx.cols != gy.cols {
                        return None;
                    }
                    let mut g = gx;
                    g.rows.extend(gy.rows);
                    g.cells.extend(gy.cells);
                    Some(g)
                } else {
                    if gx.rows != gy.rows {
                        return None;
                    }
                    let mut g = gx;
                    g.cols.extend(gy.cols);
                    for (line, more) in g.cells.iter_mut().zip(gy.cells) {
                        line.extend(more);
                    }
                    Some(g)
                }
            }
            (INDEX, [x, rl, ru, cl, cu]) => {
                let g = self.split(x)?;
                let rows = self.select(&g.rows, rl, ru)?;
                let cols = self.select(&g.cols, cl, cu)?;
                let pick = |sel: &Selection, parts: &[Dim]| -> Vec<(usize, Dim)> {
                    match sel {
                        Selection::Blocks(from, to) => {
                            (*from..=*to).map(|p| (p, parts[p].clone())).collect()
                        }
                        Selection::Within(_, _, size) => vec![(0, size.clone())],
                    }
                };
                let (pr, pc) = (pick(&rows, &g.rows), pick(&cols, &g.cols));
                let bounds = |sel: &Selection| match sel {
                    Selection::Within(lo, hi, _) => [lo.clone(), hi.clone()],
                    Selection::Blocks(..) => [Const(0.0), Const(0.0)],
                };
                let numeric = |sel: &Selection| matches!(sel, Selection::Within(..));
                let cells = pr
                    .iter()
                    .map(|(a, _)| {
                        pc.iter()
                            .map(|(q, _)| {
                                let cell = g.cells[*a][*q].clone();
                                if numeric(&rows) || numeric(&cols) {
                                    let [rl, ru] = bounds(&rows);
                                    let [cl, cu] = bounds(&cols);
                                    func(INDEX, vec![cell, rl, ru, cl, cu])
                                } else {
                                    cell
                                }
                            })
                            .collect()
                    })
                    .collect();
                Some(Grid {
                    rows: pr.into_iter().map(|(_, d)| d).collect(),
                    cols: pc.into_iter().map(|(_, d)| d).collect(),
                    cells,
                })
            }
            // `seq(1, m)` is `seq(1, k)` over `k + seq(1, m-k)`.
            ("seq", _) if env.counting_length(e).is_some() => {
                let length = env.counting_length(e)?;
                let one = Dim::Known(1);
                let parts = self.parts(&length);
                if parts.len() == 1 {
                    return Some(Grid::single(e.clone(), (length, one)));
                }
                let (k, rest) = (parts[0].clone(), parts[1].clone());
                Some(Grid {
                    rows: vec![k.clone(), rest.clone()],
                    cols: vec![one],
                    cells: vec![
                        vec![ShapeEnv::counting(&k)],
                        vec![Add(
                            b(ShapeEnv::size_expr(&k)),
                            b(ShapeEnv::counting(&rest)),
                        )],
                    ],
                })
            }
            ("max" | "min", [x]) => {
                let g = self.split(x)?;
                let each = g
                    .cells
                    .into_iter()
                    .flatten()
                    .map(|c| func(name, vec![c]))
                    .collect();
                Some(Grid::single(
                    extreme_all(name, each)?,
                    (Dim::Known(1), Dim::Known(1)),
                ))
            }
            ("rowMaxs" | "rowMins" | "colMaxs" | "colMins", [x]) => {
                let by_row = name.starts_with("row");
                let g = self.split(x)?;
                let g = if by_row { g } else { transpose_cells(g) };
                let pair = if name.ends_with("Maxs") { "max" } else { "min" };
                let cells = g
                    .cells
                    .into_iter()
                    .map(|line| {
                        extreme_all(
                            pair,
                            line.into_iter().map(|c| func(name, vec![c])).collect(),
                        )
                        .map(|c| vec![c])
                    })
                    .collect::<Option<Vec<_>>>()?;
                let along = g.rows;
                Some(if by_row {
                    Grid {
                        rows: along,
                        cols: vec![Dim::Known(1)],
                        cells,
                    }
                } else {
                    Grid {
                        rows: vec![Dim::Known(1)],
                        cols: along,
                        cells: vec![cells.into_iter().flatten().collect()],
                    }
                })
            }
            // Running operators and `rev` work down each column: they keep a cut of the
            // columns, and their rows must be whole.
            ("rev" | "cumsum" | "cumprod" | "cummax" | "cummin", [x]) => {
                let g = self.split(x)?;
                if g.rows.len() == 1 {
                    return Some(g.map(&|c| func(name, vec![c])));
                }
                // Across a cut, a running sum (extreme) goes on from the sums (extremes)
                // of the blocks above: `cumsum(rbind(a, b)) = rbind(cumsum(a), cumsum(b) +
                // colSums(a))`.
                let (carry, join): (&dyn Fn(LaExpr) -> LaExpr, &str) = match name {
                    "cumsum" => (&|c| ColSums(b(c)), "+"),
                    "cummax" => (&|c| func("colMaxs", vec![c]), "max"),
                    "cummin" => (&|c| func("colMins", vec![c]), "min"),
                    _ => return None,
                };
                let mut cells = Vec::new();
                for a in 0..g.rows.len() {
                    let mut line = Vec::new();
                    for q in 0..g.cols.len() {
                        let mut cell = func(name, vec![g.cells[a][q].clone()]);
                        for above in &g.cells[..a] {
                            let before = carry(above[q].clone());
                            cell = match join {
                                "+" => Add(b(cell), b(before)),
                                _ => func(join, vec![cell, before]),
                            };
                        }
                        line.push(cell);
                    }
                    cells.push(line);
                }
                Some(Grid {
                    rows: g.rows,
                    cols: g.cols,
                    cells,
                })
            }
            ("trace", [x]) => {
                let g = self.split(x)?;
                if g.rows != g.cols {
                    return None;
                }
                let terms = (0..g.rows.len())
                    .map(|a| func("trace", vec![g.cells[a][a].clone()]))
                    .collect();
                Some(Grid::single(
                    add_all(terms)?,
                    (Dim::Known(1), Dim::Known(1)),
                ))
            }
            ("diag", [x]) => {
                let g = self.split(x)?;
                if g.cols == [Dim::Known(1)] && !g.rows.contains(&Dim::Known(1)) {
                    let n = g.rows.len();
                    let cells = (0..n)
                        .map(|a| {
                            (0..n)
                                .map(|q| {
                                    if a == q {
                                        func("diag", vec![g.cells[a][0].clone()])
                                    } else {
                                        Fill(b(Const(0.0)), g.rows[a].clone(), g.rows[q].clone())
                                    }
                                })
                                .collect()
                        })
                        .collect();
                    Some(Grid {
                        rows: g.rows.clone(),
                        cols: g.rows,
                        cells,
                    })
                } else if g.rows == g.cols && g.rows.len() > 1 {
                    let cells = (0..g.rows.len())
                        .map(|a| vec![func("diag", vec![g.cells[a][a].clone()])])
                        .collect();
                    Some(Grid {
                        rows: g.rows,
                        cols: vec![Dim::Known(1)],
                        cells,
                    })
                } else {
                    self.whole(e, name, args)
                }
            }
            _ if crate::functions::is_elementwise(name, args.len()) || name == "ifelse" => {
                let grids = args
                    .iter()
                    .map(|a| self.split(a))
                    .collect::<Option<Vec<_>>>()?;
                cellwise(grids, &|cells| Some(func(name, cells)))
            }
            _ => self.whole(e, name, args),
        }
    }

    /// A function of values none of which is cut: the function of their one block each.
    fn whole(&mut self, e: &LaExpr, name: &str, args: &[LaExpr]) -> Option<Grid> {
        let shape = self.env.shape_of(e).ok()?;
        if self.parts(&shape.0).len() > 1 || self.parts(&shape.1).len() > 1 {
            return None;
        }
        let cells = args
            .iter()
            .map(|a| self.scalar(a))
            .collect::<Option<Vec<_>>>()?;
        Some(Grid::single(func(name, cells), shape))
    }

    /// Which blocks of a side with blocks `parts` the range `lo:hi` reads.
    fn select(&self, parts: &[Dim], lo: &LaExpr, hi: &LaExpr) -> Option<Selection> {
        let whole = |x: &LaExpr| matches!(x, LaExpr::Const(c) if *c == 0.0);
        if whole(lo) && whole(hi) {
            return Some(Selection::Blocks(0, parts.len() - 1));
        }
        let env = self.env;
        let (lo_f, hi_f) = (env.size_form(lo)?, env.size_form(hi)?);
        // A range of numbers within a side that is not cut: the same range of its block.
        if let ([only], Some(a), Some(z)) = (parts, lo_f.as_number(), hi_f.as_number()) {
            let size = Dim::Known(usize::try_from(z - a + 1).ok()?);
            let _ = only;
            return Some(Selection::Within(lo.clone(), hi.clone(), size));
        }
        let mut start = SizeForm::number(1);
        let mut first = None;
        for (p, d) in parts.iter().enumerate() {
            let end = start.plus(&env.dim_form(d)).minus(&SizeForm::number(1));
            if env.same_size(&start, &lo_f) {
                first = Some(p);
            }
            if let Some(f) = first {
                if env.same_size(&end, &hi_f) {
                    return Some(Selection::Blocks(f, p));
                }
            }
            start = end.plus(&SizeForm::number(1));
        }
        None
    }
}

/// The blocks a range reads: whole blocks `from..=to`, or a range of numbers (with its
/// size) within a side that is one block.
enum Selection {
    Blocks(usize, usize),
    Within(LaExpr, LaExpr, Dim),
}

/// The grid with rows and columns swapped but its cells as they are (for extremes along
/// columns, computed as along rows).
fn transpose_cells(g: Grid) -> Grid {
    let cells = (0..g.cols.len())
        .map(|q| (0..g.rows.len()).map(|a| g.cells[a][q].clone()).collect())
        .collect();
    Grid {
        rows: g.cols,
        cols: g.rows,
        cells,
    }
}

/// A cellwise operator of grids, with DML broadcasting: a side of size 1 meets every
/// block of the others' side.
fn cellwise(grids: Vec<Grid>, op: &dyn Fn(Vec<LaExpr>) -> Option<LaExpr>) -> Option<Grid> {
    let one = vec![Dim::Known(1)];
    let widest = |side: &dyn Fn(&Grid) -> &Vec<Dim>| {
        grids
            .iter()
            .map(side)
            .find(|parts| **parts != one)
            .cloned()
            .unwrap_or_else(|| one.clone())
    };
    let (rows, cols) = (widest(&|g| &g.rows), widest(&|g| &g.cols));
    for g in &grids {
        let fits = |parts: &Vec<Dim>, target: &Vec<Dim>| parts == target || *parts == one;
        if !fits(&g.rows, &rows) || !fits(&g.cols, &cols) {
            return None;
        }
    }
    let mut cells = Vec::new();
    for a in 0..rows.len() {
        let mut line = Vec::new();
        for q in 0..cols.len() {
            let args = grids
                .iter()
                .map(|g| {
                    let i = if g.rows.len() == 1 { 0 } else { a };
                    let j = if g.cols.len() == 1 { 0 } else { q };
                    g.cells[i][j].clone()
                })
                .collect();
            line.push(op(args)?);
        }
        cells.push(line);
    }
    Some(Grid { rows, cols, cells })
}

/// Whether `lhs = rhs` for every size the cut points of `env` allow, proved block by
/// block with `equal` (which decides two expressions over the block inputs, for all
/// sizes). `false` means not proved.
pub(super) fn equal_by_blocks(
    lhs: &LaExpr,
    rhs: &LaExpr,
    env: &ShapeEnv,
    equal: &mut dyn FnMut(&LaExpr, &LaExpr, &ShapeEnv) -> Result<bool, EquivError>,
) -> Result<bool, EquivError> {
    let mut splitter = Splitter {
        env,
        blocks: BTreeMap::new(),
        ends: BTreeMap::new(),
    };
    splitter.find_ends(lhs);
    splitter.find_ends(rhs);
    // A dimension sliced at both ends is not cut (its middle may be empty).
    splitter.ends.retain(|_, parts| !parts.is_empty());
    if env.cuts.is_empty() && splitter.ends.is_empty() {
        return Ok(false);
    }
    let (Some(l), Some(r)) = (splitter.split(lhs), splitter.split(rhs)) else {
        return Ok(false);
    };
    if l.rows != r.rows || l.cols != r.cols {
        return Ok(false);
    }
    // In the blocks, a cut and a rest are sizes of their own, each at least 1.
    let mut blocks_env = env.clone();
    blocks_env.cuts.clear();
    for (block, (shape, whole)) in &splitter.blocks {
        blocks_env.shapes.insert(block.clone(), shape.clone());
        if let Some(&n) = env.nnz.get(whole).filter(|n| **n == 0.0) {
            blocks_env.nnz.insert(block.clone(), n);
        }
        if env.positive.contains(whole) {
            blocks_env.positive.insert(block.clone());
        }
    }
    for (line_l, line_r) in l.cells.iter().zip(&r.cells) {
        for (a, b) in line_l.iter().zip(line_r) {
            if !equal(a, b, &blocks_env)? {
                return Ok(false);
            }
        }
    }
    Ok(true)
}
