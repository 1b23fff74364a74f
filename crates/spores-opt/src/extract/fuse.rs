//! Fusion over a [`Snapshot`]: the fused operators' sum-product patterns
//! (`rules/fuse.egg`, ruleset `fuse`), matched directly.
//!
//! Fusion produces nothing any rewrite reads, so it runs once, on the final graph. In
//! egglog that one step matched some twenty large patterns against the whole graph (5-7 ms
//! of the squared loss's search, most of it in four patterns); here each pattern is a walk
//! down from the e-node at its top. Each match adds the fused e-node to the class at the
//! top, as the rule's `union` does; no class is created, so the invariants stay as they
//! are. `saturate`'s tests hold this to the rules' plans.

use super::{Fused, Ix, MId, RId, RNode, Snapshot};

/// Adds to `snap` every fused e-node the fusion rules derive.
pub fn fuse(snap: &mut Snapshot) {
    let mut found: Vec<(RId, RNode)> = Vec::new();
    let m = Matcher { snap };
    for e in 0..snap.r_classes.len() {
        for node in &snap.r_classes[e].nodes {
            m.top(node, &mut |n| found.push((e, n)));
        }
    }
    for (e, node) in found {
        let nodes = &mut snap.r_classes[e].nodes;
        if !nodes.contains(&node) {
            nodes.push(node);
        }
    }
}

struct Matcher<'a, 's> {
    snap: &'a Snapshot<'s>,
}

/// `i`, `j` and `k` are pairwise distinct.
fn distinct(i: Ix, j: Ix, k: Ix) -> bool {
    i != j && i != k && j != k
}

impl Matcher<'_, '_> {
    fn nodes(&self, c: RId) -> &[RNode] {
        &self.snap.r_classes[c].nodes
    }

    fn named(&self, f: usize, name: &str) -> bool {
        self.snap.tables.funcs.get(f).is_some_and(|g| g == name)
    }

    /// Every `(k, u, v)` of an `Agg k (Join u v)` in `c`.
    fn agg_join(&self, c: RId) -> Vec<(Ix, RId, RId)> {
        let mut out = Vec::new();
        for n in self.nodes(c) {
            if let RNode::Agg(k, y) = n {
                for m in self.nodes(*y) {
                    if let RNode::Join(u, v) = m {
                        out.push((*k, *u, *v));
                    }
                }
            }
        }
        out
    }

    /// Every `(j, m)` of a `Bind i j m` in `c` whose row index is `i`.
    fn binds_with_row(&self, c: RId, i: Ix) -> Vec<(Ix, MId)> {
        self.nodes(c)
            .iter()
            .filter_map(|n| match n {
                RNode::Bind(a, b, m) if *a == i => Some((*b, *m)),
                _ => None,
            })
            .collect()
    }

    /// X(i,j), U(i,k), V(j,k) with distinct indices: the operands of the losses.
    fn xuv(&self, i: Ix, j: Ix, k: Ix, x: RId, u: RId, v: RId) -> bool {
        distinct(i, j, k)
            && self.snap.schema_is(x, &[i, j])
            && self.snap.schema_is(u, &[i, k])
            && self.snap.schema_is(v, &[j, k])
    }

    /// Every pattern whose top is `node`.
    fn top(&self, node: &RNode, out: &mut dyn FnMut(RNode)) {
        match node {
            RNode::Agg(i, a) => {
                for n in self.nodes(*a) {
                    match n {
                        RNode::Agg(j, b) => self.sum_sum(*i, *j, *b, out),
                        RNode::Join(p, q) => self.agg_join_top(*i, *p, *q, out),
                        _ => {}
                    }
                }
            }
            RNode::Join(x, y) => {
                self.sddmm_map(*x, *y, out);
                self.sprop(*x, *y, out);
            }
            _ => {}
        }
    }

    /// `Agg i (Agg j b)`: the losses, `sddmm_sum`, `wcemm` and `sum_mm`.
    fn sum_sum(&self, i: Ix, j: Ix, b: RId, out: &mut dyn FnMut(RNode)) {
        let fused = |kind, k, args: [RId; 3]| RNode::Fused(kind, [i, j, k], args.to_vec());
        for n in self.nodes(b) {
            match n {
                RNode::Join(x, y) => {
                    if x == y {
                        self.losses(i, j, *x, out);
                    }
                    // sum(X * (U %*% t(V)))
                    for (k, u, v) in self.agg_join(*y) {
                        if self.xuv(i, j, k, *x, u, v) {
                            out(fused(Fused::SddmmSum, k, [*x, u, v]));
                        }
                    }
                    // sum(X * log(U %*% t(V)))
                    for m in self.nodes(*y) {
                        if let RNode::F1(f, z) = m {
                            if self.named(*f, "log") {
                                for (k, u, v) in self.agg_join(*z) {
                                    if self.xuv(i, j, k, *x, u, v) {
                                        out(fused(Fused::Wcemm, k, [*x, u, v]));
                                    }
                                }
                            }
                        }
                    }
                }
                // sum(A %*% B)
                RNode::Agg(k, c) => {
                    for m in self.nodes(*c) {
                        if let RNode::Join(a, b) = m {
                            if distinct(i, j, *k)
                                && self.snap.schema_is(*a, &[i, *k])
                                && self.snap.schema_is(*b, &[*k, j])
                            {
                                out(RNode::Fused(Fused::SumMm, [i, j, *k], vec![*a, *b]));
                            }
                        }
                    }
                }
                _ => {}
            }
        }
    }

    /// `Agg i (Agg j (Join d d))`: sum((X - U %*% t(V))^2), either way round, and
    /// sum((X + U %*% t(V))^2).
    fn losses(&self, i: Ix, j: Ix, d: RId, out: &mut dyn FnMut(RNode)) {
        let fused = |kind, k, args: [RId; 3]| RNode::Fused(kind, [i, j, k], args.to_vec());
        for m in self.nodes(d) {
            let RNode::Union(p, q) = m else { continue };
            for neg in self.snap.negated(*q) {
                for (k, u, v) in self.agg_join(neg) {
                    if self.xuv(i, j, k, *p, u, v) {
                        out(fused(Fused::Wsloss, k, [*p, u, v]));
                    }
                }
            }
            for x in self.snap.negated(*q) {
                for (k, u, v) in self.agg_join(*p) {
                    if self.xuv(i, j, k, x, u, v) {
                        out(fused(Fused::Wsloss, k, [x, u, v]));
                    }
                }
            }
            for (k, u, v) in self.agg_join(*q) {
                if self.xuv(i, j, k, *p, u, v) {
                    out(fused(Fused::WslossPlus, k, [*p, u, v]));
                }
            }
        }
    }

    /// `Agg i (Join p q)`: `mmchain`, `tsmm` and the three `wdivmm`s.
    fn agg_join_top(&self, i: Ix, p: RId, q: RId, out: &mut dyn FnMut(RNode)) {
        // t(X) %*% X: two binds of one LA term over distinct columns.
        for (j, m) in self.binds_with_row(p, i) {
            for (l, m2) in self.binds_with_row(q, i) {
                if m == m2
                    && j != l
                    && self.snap.schema_is(p, &[i, j])
                    && self.snap.schema_is(q, &[i, l])
                {
                    out(RNode::Fused(Fused::Tsmm, [i, j, l], vec![p]));
                }
            }
        }
        // t(X) %*% (X %*% v) and t(X) %*% (w * (X %*% v))
        for (j, m) in self.binds_with_row(p, i) {
            if !self.snap.schema_is(p, &[i, j]) {
                continue;
            }
            let chain = |c: RId, w: Option<RId>, out: &mut dyn FnMut(RNode)| {
                for (l, x2, v) in self.agg_join(c) {
                    let sv = self.snap.schema(v).unwrap_or(&[]);
                    let same_x = self.binds_with_row(x2, i).contains(&(l, m));
                    if same_x
                        && sv.contains(&l)
                        && !sv.contains(&i)
                        && !sv.contains(&j)
                        && sv.len() <= 2
                    {
                        out(match w {
                            None => RNode::Fused(Fused::Mmchain, [i, j, l], vec![p, v]),
                            Some(w) => RNode::Fused(Fused::MmchainW, [i, j, l], vec![p, v, w]),
                        });
                    }
                }
            };
            chain(q, None, out);
            for n in self.nodes(q) {
                if let RNode::Join(w, c) = n {
                    if self.snap.schema_is(*w, &[i]) {
                        chain(*c, Some(*w), out);
                    }
                }
            }
        }
        // t(U) %*% masked_div(X, U %*% t(V)): U bound twice, over c and k. (A plain `/`
        // is IEEE's: `0 / 0` is NaN where X is 0, which wdivmm would skip.)
        for (c, m) in self.binds_with_row(p, i) {
            for n in self.nodes(q) {
                let RNode::F2(f, x, d) = n else { continue };
                if !self.named(*f, "masked_div") {
                    continue;
                }
                for (j, _) in self.binds_with_row(*x, i) {
                    for (k, u1, v) in self.agg_join(*d) {
                        let same_u = self.binds_with_row(u1, i).contains(&(k, m));
                        if same_u
                            && distinct(i, j, k)
                            && k != c
                            && j != c
                            && self.snap.schema_is(*x, &[i, j])
                            && self.snap.schema_is(u1, &[i, k])
                            && self.snap.schema_is(p, &[i, c])
                            && self.snap.schema_is(v, &[j, k])
                        {
                            out(RNode::Fused(Fused::WdivmmLeft, [i, j, k], vec![*x, p, v]));
                        }
                    }
                }
            }
        }
        // (X * (U %*% t(V))) %*% V and masked_div(X, U %*% t(V)) %*% V, summed over j = i
        // here.
        for n in self.nodes(p) {
            let (kind, x, d) = match n {
                RNode::Join(x, d) => (Fused::WdivmmMult, *x, *d),
                RNode::F2(f, x, d) if self.named(*f, "masked_div") => (Fused::WdivmmRight, *x, *d),
                _ => continue,
            };
            self.wdivmm(kind, i, x, d, q, out);
        }
    }

    /// `(X op (U %*% t(V))) %*% V` summed over `j`: V (or, for the quotient, t(V)) bound
    /// twice, over `k` and over the result's columns `c`.
    fn wdivmm(&self, kind: Fused, j: Ix, x: RId, d: RId, v2: RId, out: &mut dyn FnMut(RNode)) {
        let binds = |c: RId| -> Vec<(Ix, Ix, MId)> {
            self.nodes(c)
                .iter()
                .filter_map(|n| match n {
                    RNode::Bind(a, b, m) => Some((*a, *b, *m)),
                    _ => None,
                })
                .collect()
        };
        for (i, bj, _) in binds(x) {
            if bj != j {
                continue;
            }
            for (k, u, v1) in self.agg_join(d) {
                for (a1, b1, m) in binds(v1) {
                    for (a2, b2, m2) in binds(v2) {
                        if m != m2 {
                            continue;
                        }
                        // V(j, k) and V(j, c), or (the quotient only) t(V): V(k, j), V(c, j).
                        let c = if (a1, b1) == (j, k) && a2 == j {
                            b2
                        } else if kind == Fused::WdivmmRight && (a1, b1) == (k, j) && b2 == j {
                            a2
                        } else {
                            continue;
                        };
                        if distinct(i, j, k)
                            && k != c
                            && i != c
                            && self.snap.schema_is(x, &[i, j])
                            && self.snap.schema_is(u, &[i, k])
                            && self.snap.schema_is(v1, &[j, k])
                            && self.snap.schema_is(v2, &[j, c])
                        {
                            out(RNode::Fused(kind, [i, j, k], vec![x, u, v2]));
                        }
                    }
                }
            }
        }
    }

    /// `Join x (Agg k (Join u v))` with X bound over i, j: `sddmm`.
    fn sddmm_map(&self, x: RId, y: RId, out: &mut dyn FnMut(RNode)) {
        for n in self.nodes(x) {
            let RNode::Bind(i, j, _) = n else { continue };
            for (k, u, v) in self.agg_join(y) {
                if self.xuv(*i, *j, k, x, u, v) {
                    out(RNode::Fused(Fused::Sddmm, [*i, *j, k], vec![x, u, v]));
                }
            }
        }
    }

    /// `Join p (Union (Lit 1) (Join (Lit -1) p))`: `sprop`.
    fn sprop(&self, p: RId, q: RId, out: &mut dyn FnMut(RNode)) {
        for n in self.nodes(q) {
            if let RNode::Union(one, neg) = n {
                if self.snap.has_lit(*one, 1.0) && self.snap.negated(*neg).contains(&p) {
                    out(RNode::Sprop(p));
                }
            }
        }
    }
}
