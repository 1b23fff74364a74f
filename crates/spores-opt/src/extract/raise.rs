//! The way back from relations to LA, over a [`Snapshot`]: the LA classes the raising
//! rules (`rules/raise.egg`, and each fused operator's rule in `rules/fuse.egg`) derive,
//! built directly.
//!
//! The rules state the way back; this module is how it runs. In egglog, raising a
//! saturated graph took as long as the whole rewriting search (9-10 steps, each matching
//! every rule against every new demand: 17 ms of the squared loss's 45), because it
//! builds LA terms for every relational e-node of every demanded class, in both
//! orientations. Here each demand is one hash lookup and each LA e-node one push, and a
//! congruence closure at the end merges the LA classes egglog's hashcons would have
//! merged. A test in `saturate` holds the two to plans of the same cost.
//!
//! A demand is a relational class laid out as a matrix: `(r, rows, cols)`, each side an
//! index free in `r` or `None` (a dimension of size 1, the rules' `NoIx`). An index that
//! is not free in `r` is a dimension of size 1, so demands are canonical: the rules'
//! "not free, so `NoIx`" step is the key itself.

use rustc_hash::FxHashMap;

use super::{Fused, Ix, MClass, MId, MNode, RId, RNode, Snapshot};

/// One side of a demand: a free index, or the dimension of size 1.
type Side = Option<Ix>;

/// Dimension code of the size 1 (codes `n >= 0` are known sizes).
const ONE: i64 = 1;

/// Replaces `snap`'s LA classes by the raised ones: the user's LA terms, every demanded
/// orientation of every class reachable from a root, merged where they are equal, and
/// sets [`Snapshot::la_roots`].
pub fn raise(snap: &mut Snapshot) {
    let mut raiser = Raiser::new(snap);
    raiser.demand_roots();
    while let Some((r, rows, cols, class)) = raiser.work.pop() {
        raiser.raise_class(r, rows, cols, class);
    }
    let (m_classes, la_roots) = raiser.into_classes();
    snap.m_classes = m_classes;
    snap.la_roots = la_roots;
}

struct Raiser<'a, 't> {
    snap: &'a Snapshot<'t>,
    /// LA e-nodes by class; a merged class's nodes live at its union-find root.
    nodes: Vec<Vec<MNode>>,
    rows: Vec<Option<i64>>,
    cols: Vec<Option<i64>>,
    sparsity: Vec<Option<f64>>,
    parent: Vec<MId>,
    demands: FxHashMap<(RId, Side, Side), MId>,
    /// The class of `LDim k`, per index.
    dims: FxHashMap<Ix, MId>,
    /// Demands not raised yet.
    work: Vec<(RId, Side, Side, MId)>,
}

impl<'a, 't> Raiser<'a, 't> {
    fn new(snap: &'a Snapshot<'t>) -> Self {
        let m = &snap.m_classes;
        Raiser {
            snap,
            nodes: m.iter().map(|c| c.nodes.clone()).collect(),
            rows: m.iter().map(|c| c.rows).collect(),
            cols: m.iter().map(|c| c.cols).collect(),
            sparsity: m.iter().map(|c| c.sparsity).collect(),
            parent: (0..m.len()).collect(),
            demands: FxHashMap::default(),
            dims: FxHashMap::default(),
            work: Vec::new(),
        }
    }

    /// The roots' own demands, which the encoder put in the graph as `Unbind` e-nodes in
    /// the classes marked `LaRoot`.
    fn demand_roots(&mut self) {
        for m in 0..self.nodes.len() {
            let unbinds: Vec<(Ix, Ix, RId)> = self.nodes[m]
                .iter()
                .filter_map(|n| match n {
                    MNode::Unbind(i, j, r) => Some((*i, *j, *r)),
                    _ => None,
                })
                .collect();
            for (i, j, r) in unbinds {
                if let Some(c) = self.demand(r, Some(i), Some(j)) {
                    self.union(m, c);
                }
            }
        }
    }

    fn find(&mut self, mut m: MId) -> MId {
        while self.parent[m] != m {
            self.parent[m] = self.parent[self.parent[m]];
            m = self.parent[m];
        }
        m
    }

    fn union(&mut self, a: MId, b: MId) -> MId {
        let (a, b) = (self.find(a), self.find(b));
        if a == b {
            return a;
        }
        let (keep, gone) = if self.nodes[a].len() >= self.nodes[b].len() {
            (a, b)
        } else {
            (b, a)
        };
        self.parent[gone] = keep;
        let moved = std::mem::take(&mut self.nodes[gone]);
        self.nodes[keep].extend(moved);
        self.rows[keep] = self.rows[keep].or(self.rows[gone]);
        self.cols[keep] = self.cols[keep].or(self.cols[gone]);
        self.sparsity[keep] = match (self.sparsity[keep], self.sparsity[gone]) {
            (Some(x), Some(y)) => Some(x.min(y)),
            (x, y) => x.or(y),
        };
        keep
    }

    fn new_class(&mut self, rows: Option<i64>, cols: Option<i64>, sparsity: Option<f64>) -> MId {
        let m = self.nodes.len();
        self.nodes.push(Vec::new());
        self.rows.push(rows);
        self.cols.push(cols);
        self.sparsity.push(sparsity);
        self.parent.push(m);
        m
    }

    fn schema(&self, r: RId) -> &[Ix] {
        self.snap.schema(r).unwrap_or(&[])
    }

    /// `i` as a side of `r`: itself when free in `r`, else the dimension of size 1.
    fn side(&self, r: RId, i: Side) -> Side {
        i.filter(|i| self.schema(r).contains(i))
    }

    /// The LA class of `r` laid out with rows `i` and columns `j`, queued for raising the
    /// first time it is asked for; `None` when that is no layout of `r`: an index free in
    /// `r` is neither `i` nor `j`, or `r`'s free indices are not known. (Such a demand
    /// names no matrix; raised anyway, its e-nodes would merge, by congruence, classes
    /// that are not equal: a relation over `i, j, k` taken as a scalar merged `X %*% Y`
    /// with its transpose.)
    fn demand(&mut self, r: RId, i: Side, j: Side) -> Option<MId> {
        let free = self.snap.schema(r)?;
        if free.iter().any(|&x| Some(x) != i && Some(x) != j) {
            return None;
        }
        let (i, j) = (self.side(r, i), self.side(r, j));
        if let Some(&m) = self.demands.get(&(r, i, j)) {
            return Some(self.find(m));
        }
        let code = |s: Side| match s {
            Some(ix) => self.snap.ix_dims.get(ix).copied().flatten(),
            None => Some(ONE),
        };
        let (rows, cols) = (code(i), code(j));
        let m = self.new_class(rows, cols, Some(self.snap.r_classes[r].sparsity));
        self.demands.insert((r, i, j), m);
        self.work.push((r, i, j, m));
        Some(m)
    }

    fn add(&mut self, class: MId, node: MNode) {
        let c = self.find(class);
        self.nodes[c].push(node);
    }

    /// The class holding `LDim k`.
    fn dim(&mut self, k: Ix) -> MId {
        if let Some(&m) = self.dims.get(&k) {
            return self.find(m);
        }
        let m = self.new_class(None, None, None);
        self.nodes[m].push(MNode::Dim(k));
        self.dims.insert(k, m);
        m
    }

    /// Every LA e-node the rules equate with demand `(r, i, j)`, added to `class`.
    fn raise_class(&mut self, r: RId, i: Side, j: Side, class: MId) {
        // The other orientation, transposed (no condition: a class is computed the way
        // round its operands are stored and transposed once).
        if i != j {
            if let Some(other) = self.demand(r, j, i) {
                self.add(class, MNode::T(other));
            }
        }
        let nonzero = self.snap.r_classes[r].sparsity > 0.0;
        let snap = self.snap;
        for node in &snap.r_classes[r].nodes {
            match node {
                RNode::Bind(bi, bj, m) if bi != bj => {
                    let (bi, bj) = (Some(*bi), Some(*bj));
                    if (self.side(r, bi), self.side(r, bj)) == (i, j) {
                        let c = self.find(class);
                        self.union(c, *m);
                    } else if (self.side(r, bj), self.side(r, bi)) == (i, j) {
                        self.add(class, MNode::T(*m));
                    }
                }
                RNode::Lit(c) => self.add(class, MNode::Const(*c)),
                _ if !nonzero => {}
                RNode::Join(a, b) => {
                    let (Some(x), Some(y)) = (self.demand(*a, i, j), self.demand(*b, i, j)) else {
                        continue;
                    };
                    self.add(class, MNode::Mul(x, y));
                    if self.snap.has_lit(*a, -1.0) {
                        self.add(class, MNode::Neg(y));
                    }
                }
                RNode::Union(a, b) => {
                    let (Some(x), Some(y)) = (self.demand(*a, i, j), self.demand(*b, i, j)) else {
                        continue;
                    };
                    self.add(class, MNode::Add(x, y));
                    for neg in self.snap.negated(*b) {
                        if let Some(y) = self.demand(neg, i, j) {
                            self.add(class, MNode::Sub(x, y));
                        }
                    }
                }
                RNode::Agg(k, x) => self.raise_agg(class, i, j, *k, *x),
                RNode::DimOf(k) => self.add(class, MNode::Dim(*k)),
                RNode::F1(f, a) => {
                    if let Some(x) = self.demand(*a, i, j) {
                        self.add(class, MNode::F1(*f, x));
                    }
                }
                RNode::F2(f, a, b) => {
                    if let (Some(x), Some(y)) = (self.demand(*a, i, j), self.demand(*b, i, j)) {
                        self.add(class, MNode::F2(*f, x, y));
                    }
                }
                RNode::Pow(a, p) => {
                    if let Some(x) = self.demand(*a, i, j) {
                        self.add(class, MNode::Pow(x, *p));
                    }
                }
                RNode::Sprop(p) => {
                    if let Some(x) = self.demand(*p, i, j) {
                        self.add(class, MNode::Fused(Fused::Sprop, vec![x]));
                    }
                }
                RNode::Fused(kind, ix, args) => self.raise_fused(class, r, i, j, *kind, *ix, args),
                RNode::Bind(..) | RNode::Rename => {}
            }
        }
    }

    /// `Agg k x` under demand `(i, j)`: a scaling by the size of `k`, a sum, row or column
    /// sums, or a matrix product.
    fn raise_agg(&mut self, class: MId, i: Side, j: Side, k: Ix, x: RId) {
        let Some(sx) = self.snap.schema(x).map(<[Ix]>::to_vec) else {
            return;
        };
        if !sx.contains(&k) {
            if let Some(a) = self.demand(x, i, j) {
                let d = self.dim(k);
                self.add(class, MNode::Mul(a, d));
            }
            return;
        }
        let snap = self.snap;
        let mut sums = Vec::new();
        match (i, j) {
            (None, None) => {
                if sx == [k] {
                    sums.push(self.demand(x, Some(k), None).map(MNode::Sum));
                }
                for node in &snap.r_classes[x].nodes {
                    if let RNode::Agg(l, y) = node {
                        if *l != k && self.snap.schema_is(*y, &[k, *l]) {
                            sums.push(self.demand(*y, Some(k), Some(*l)).map(MNode::Sum));
                            sums.push(self.demand(*y, Some(*l), Some(k)).map(MNode::Sum));
                        }
                    }
                }
            }
            (Some(i), None) if i != k && self.snap.schema_is(x, &[i, k]) => {
                sums.push(self.demand(x, Some(i), Some(k)).map(MNode::RowSums));
            }
            (None, Some(j)) if j != k && self.snap.schema_is(x, &[k, j]) => {
                sums.push(self.demand(x, Some(k), Some(j)).map(MNode::ColSums));
            }
            _ => {}
        }
        for sum in sums.into_iter().flatten() {
            self.add(class, sum);
        }
        if i == Some(k) || j == Some(k) {
            return;
        }
        // A product when a join's operands split the free indices: one holds the rows
        // (or nothing) and the other the columns (or nothing), both the summed k.
        for node in &snap.r_classes[x].nodes {
            let RNode::Join(p, q) = node else { continue };
            for (a, b) in [(*p, *q), (*q, *p)] {
                let (Some(sa), Some(sb)) = (self.snap.schema(a), self.snap.schema(b)) else {
                    continue;
                };
                if sa.contains(&k) && sb.contains(&k) {
                    // The demands are `None` unless `a` lies within (i, k) and `b` within (k, j).
                    if let (Some(x), Some(y)) =
                        (self.demand(a, i, Some(k)), self.demand(b, Some(k), j))
                    {
                        self.add(class, MNode::MatMul(x, y));
                    }
                }
            }
        }
    }

    /// A fused relational node under demand `(i, j)`, each operand in the orientation
    /// its kernel reads it (`rules/fuse.egg`, ruleset `raise`).
    #[allow(clippy::too_many_arguments)]
    fn raise_fused(
        &mut self,
        class: MId,
        r: RId,
        i: Side,
        j: Side,
        kind: Fused,
        [a, b, c]: [Ix; 3],
        args: &[RId],
    ) {
        let at = |k: usize| args.get(k).copied();
        let operands = || -> Option<Vec<(RId, Side, Side)>> {
            match kind {
                // (i, j, k, X, U, V): X(i,j), U(i,k), V(j,k); a scalar, or (`sddmm`) over
                // i and j.
                Fused::Wsloss
                | Fused::WslossPlus
                | Fused::SddmmSum
                | Fused::Wcemm
                | Fused::Sddmm
                    if (i, j)
                        == match kind {
                            Fused::Sddmm => (self.side(r, Some(a)), self.side(r, Some(b))),
                            _ => (None, None),
                        } =>
                {
                    Some(vec![
                        (at(0)?, Some(a), Some(b)),
                        (at(1)?, Some(a), Some(c)),
                        (at(2)?, Some(b), Some(c)),
                    ])
                }
                // (i, j, l, X, v[, w]): t(X(i,j)) %*% v(l, c), over j and c.
                Fused::Mmchain | Fused::MmchainW if i == Some(b) && j != Some(c) => {
                    let mut ops = vec![(at(0)?, Some(a), Some(b)), (at(1)?, Some(c), j)];
                    if kind == Fused::MmchainW {
                        ops.push((at(2)?, Some(a), None));
                    }
                    Some(ops)
                }
                // (i, j, l, X): t(X(i,j)) %*% X(i,l), over j and l either way round.
                Fused::Tsmm
                    if (i, j) == (self.side(r, Some(b)), self.side(r, Some(c)))
                        || (i, j) == (self.side(r, Some(c)), self.side(r, Some(b))) =>
                {
                    Some(vec![(at(0)?, Some(a), Some(b))])
                }
                // (i, j, k, X, U, V): X(i,j), U(i,k), V(j,c), over i and c.
                Fused::WdivmmMult | Fused::WdivmmRight => match j {
                    Some(cj) if i == Some(a) && cj != b && self.schema(at(2)?).contains(&cj) => {
                        Some(vec![
                            (at(0)?, Some(a), Some(b)),
                            (at(1)?, Some(a), Some(c)),
                            (at(2)?, Some(b), Some(cj)),
                        ])
                    }
                    _ => None,
                },
                // (i, j, k, X, U, V): X(i,j), U(i,c), V(j,k), over c and j.
                Fused::WdivmmLeft => match i {
                    Some(ci) if j == Some(b) && ci != a && self.schema(at(1)?).contains(&ci) => {
                        Some(vec![
                            (at(0)?, Some(a), Some(b)),
                            (at(1)?, Some(a), Some(ci)),
                            (at(2)?, Some(b), Some(c)),
                        ])
                    }
                    _ => None,
                },
                // (i, j, k, A, B): A(i,k), B(k,j), a scalar.
                Fused::SumMm if (i, j) == (None, None) => {
                    Some(vec![(at(0)?, Some(a), Some(c)), (at(1)?, Some(c), Some(b))])
                }
                _ => None,
            }
        };
        if let Some(operands) = operands() {
            let children: Option<Vec<MId>> = operands
                .into_iter()
                .map(|(x, p, q)| self.demand(x, p, q))
                .collect();
            if let Some(children) = children {
                self.add(class, MNode::Fused(kind, children));
            }
        }
    }

    /// Merges classes that hold the same e-node (egglog's hashcons does this as it goes)
    /// until none do, then numbers the classes left densely.
    fn into_classes(mut self) -> (Vec<MClass>, Vec<Option<MId>>) {
        loop {
            let mut seen: FxHashMap<Key, MId> = FxHashMap::default();
            let mut merges = Vec::new();
            for m in 0..self.nodes.len() {
                if self.parent[m] != m {
                    continue;
                }
                let mut nodes = std::mem::take(&mut self.nodes[m]);
                let mut keyed: Vec<(Key, MNode)> = nodes
                    .drain(..)
                    .map(|mut n| {
                        canonicalize(&mut n, &mut |c| self.find(c));
                        (key(&n), n)
                    })
                    .collect();
                // Candidates of equal cost are chosen in the order the extractor reads
                // egglog's tables in (`constructors`): by operator first.
                keyed.sort_unstable_by_key(|(k, _)| *k);
                keyed.dedup_by_key(|(k, _)| *k);
                for (k, n) in &keyed {
                    if matches!(n, MNode::Root(_) | MNode::Unbind(..)) {
                        continue;
                    }
                    match seen.get(k) {
                        Some(&other) if other != m => merges.push((other, m)),
                        Some(_) => {}
                        None => {
                            seen.insert(*k, m);
                        }
                    }
                }
                self.nodes[m] = keyed.into_iter().map(|(_, n)| n).collect();
            }
            if merges.is_empty() {
                break;
            }
            for (a, b) in merges {
                self.union(a, b);
            }
        }
        // Classes are numbered as the snapshot numbers egglog's (operator by operator,
        // each e-node's operands before its class), so the extractor meets candidates of
        // equal cost in the same order.
        let mut id = vec![usize::MAX; self.nodes.len()];
        let mut classes = Vec::new();
        let mut number = |m: MId, id: &mut Vec<usize>| {
            if id[m] == usize::MAX {
                id[m] = classes.len();
                classes.push(m);
            }
        };
        let roots: Vec<MId> = (0..self.nodes.len())
            .filter(|&m| self.parent[m] == m)
            .collect();
        let mut by_rank: Vec<(u64, MId, usize)> = roots
            .iter()
            .flat_map(|&m| {
                self.nodes[m]
                    .iter()
                    .enumerate()
                    .map(move |(k, n)| (key(n)[0], m, k))
            })
            .collect();
        by_rank.sort_by_key(|&(rank, ..)| rank);
        for (_, m, k) in by_rank {
            let mut children = Vec::new();
            canonicalize(&mut self.nodes[m][k].clone(), &mut |c| {
                children.push(c);
                c
            });
            for c in children {
                number(c, &mut id);
            }
            number(m, &mut id);
        }
        for m in roots {
            number(m, &mut id);
        }
        let mut la_roots = vec![None; self.snap.roots.len()];
        let m_classes = classes
            .iter()
            .enumerate()
            .map(|(new, &m)| {
                let mut nodes = std::mem::take(&mut self.nodes[m]);
                nodes.retain(|n| !matches!(n, MNode::Unbind(..)));
                for n in nodes.iter_mut() {
                    canonicalize(n, &mut |c| id[c]);
                    if let MNode::Root(k) = n {
                        if let Some(slot) = la_roots.get_mut(*k) {
                            *slot = Some(new);
                        }
                    }
                }
                MClass {
                    nodes,
                    rows: self.rows[m],
                    cols: self.cols[m],
                    sparsity: self.sparsity[m],
                }
            })
            .collect();
        (m_classes, la_roots)
    }
}

/// A hashable identity of an e-node: its operator (numbered in the order of
/// [`super::constructors`]), then its constants (by bits) and children; no e-node has
/// more than three.
type Key = [u64; 4];

fn key(n: &MNode) -> Key {
    let u = |x: usize| x as u64;
    match n {
        MNode::Var(v) => [0, u(*v), 0, 0],
        MNode::Const(x) => [1, x.to_bits(), 0, 0],
        MNode::Pow(a, p) => [2, u(*a), p.to_bits(), 0],
        MNode::Add(a, b) => [3, u(*a), u(*b), 0],
        MNode::Sub(a, b) => [4, u(*a), u(*b), 0],
        MNode::Mul(a, b) => [5, u(*a), u(*b), 0],
        MNode::MatMul(a, b) => [6, u(*a), u(*b), 0],
        MNode::Neg(a) => [7, u(*a), 0, 0],
        MNode::Sum(a) => [8, u(*a), 0, 0],
        MNode::RowSums(a) => [9, u(*a), 0, 0],
        MNode::ColSums(a) => [10, u(*a), 0, 0],
        MNode::T(a) => [11, u(*a), 0, 0],
        MNode::F1(f, a) => [12, u(*f), u(*a), 0],
        MNode::F2(f, a, b) => [13, u(*f), u(*a), u(*b)],
        MNode::Dim(k) => [14, u(*k), 0, 0],
        MNode::Fused(kind, args) => {
            let rank = crate::fused::CATALOGUE
                .iter()
                .position(|op| op.kind == *kind)
                .unwrap_or(crate::fused::CATALOGUE.len());
            let arg = |k: usize| args.get(k).map_or(u64::MAX, |&a| u(a));
            [15 + u(rank), arg(0), arg(1), arg(2)]
        }
        MNode::Unbind(i, j, r) => [100, u(*i), u(*j), u(*r)],
        MNode::Root(k) => [101, u(*k), 0, 0],
    }
}

/// Maps the LA children of `n` through `f`.
fn canonicalize(n: &mut MNode, f: &mut dyn FnMut(MId) -> MId) {
    match n {
        MNode::Add(a, b)
        | MNode::Sub(a, b)
        | MNode::Mul(a, b)
        | MNode::MatMul(a, b)
        | MNode::F2(_, a, b) => {
            *a = f(*a);
            *b = f(*b);
        }
        MNode::T(a)
        | MNode::Neg(a)
        | MNode::Sum(a)
        | MNode::RowSums(a)
        | MNode::ColSums(a)
        | MNode::Pow(a, _)
        | MNode::F1(_, a) => *a = f(*a),
        MNode::Fused(_, args) => {
            for a in args.iter_mut() {
                *a = f(*a);
            }
        }
        MNode::Var(_) | MNode::Const(_) | MNode::Dim(_) | MNode::Unbind(..) | MNode::Root(_) => {}
    }
}
