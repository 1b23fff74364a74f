//! Planning a kernel before it runs: the accesses numbered and checked against the loop
//! order ([`number_accesses`]), the roles of the loops ([`loop_roles`]), and per loop level
//! how it walks its coordinates and what the coordinates it skips contribute
//! ([`plan_level`], see the correctness argument in the [module doc](super)).
//!
//! Everything here is decided once per kernel from the plan and the tensors' formats; the
//! loops ([`super::loops`]) only read it.

use super::body::{neutral, simplify, Node, Program};
use crate::engine::budget::Held;
use crate::engine::fibertree::FiberTensor;
use crate::engine::intersect;
use crate::plan_ast::{AggOp, Idx, LevelFormat, MapOp, PhysExpr, PhysicalQuery, Protocol};
use crate::TensorError;

/// How a loop level finds its coordinates.
#[derive(Clone, Debug)]
pub(super) enum Walk {
    /// Walk one access's level (bind index into `binds`).
    Leader(usize),
    /// Walk the union of several accesses' levels.
    Union(Vec<usize>),
    /// Walk the intersection of several accesses' sorted levels by galloping
    /// ([`super::intersect`]), driven by the shortest fiber; the others binds are probed.
    Gallop {
        fibers: Vec<usize>,
        probes: Vec<usize>,
        /// Of two fibers, the one whose parent is bound outside the enclosing loop: it stays
        /// the same across that loop's iterations, so it is held in [`intersect::Marks`]
        /// and the other fiber is checked against it entry by entry.
        stationary: Option<usize>,
    },
    /// Every coordinate `0..dim`.
    All,
}

/// What the coordinates a level does not visit contribute.
#[derive(Clone, Debug)]
pub(super) enum Skipped {
    Nothing,
    /// `agg.repeat(value, skipped * inner_cells)` where `value` is this body.
    Repeat(Node),
}

/// An access whose mode `mode` is bound by a loop level.
#[derive(Clone, Debug)]
pub(super) struct Bind {
    pub(super) access: usize,
    pub(super) mode: usize,
    /// When this access misses here, the whole sub-loop contributes nothing: skip it.
    pub(super) skip_if_missing: bool,
    /// This is the access's last mode and `skip_if_missing` holds: a stored value equal to
    /// the fill (a dense level's zeros) is skipped too.
    pub(super) skip_fill_value: bool,
}

/// Everything fixed about one loop level before the kernel runs.
pub(super) struct LevelPlan {
    pub(super) dim: usize,
    pub(super) binds: Vec<Bind>,
    pub(super) walk: Walk,
    pub(super) skipped: Skipped,
    /// Product of the dims of the deeper loops (saturating).
    /// Cells below one coordinate of this level (a float: may exceed 2^64).
    pub(super) inner_cells: f64,
    /// The innermost level of a sum of products accumulated locally, walked by
    /// intersection with nothing to probe: each coordinate found adds the product of the
    /// values straight into the local sum (no per-coordinate body program).
    pub(super) sum_of_products: bool,
    /// Binds (of a sparse leader walk) whose access's next level is read as fibers by the
    /// next loop, with this level's position found without a search (the leader itself, or
    /// a dense level): their upcoming fibers are prefetched while the current one is used.
    pub(super) prefetch: Vec<usize>,
}

/// An access's tensor and where its modes are bound.
pub(super) struct AccessInfo<'a> {
    pub(super) tensor: &'a FiberTensor,
    /// Loop level of each mode.
    pub(super) levels: Vec<usize>,
}

/// A kernel planned to run: its accesses, levels, body program and output layout.
pub(super) struct Plan<'a> {
    pub(super) accs: Vec<AccessInfo<'a>>,
    pub(super) fills: Vec<f64>,
    pub(super) levels: Vec<LevelPlan>,
    pub(super) program: Program,
    pub(super) agg: Option<AggOp>,
    /// Depth at which every output index is bound and only aggregate loops remain (local
    /// accumulation), if the loop order allows it.
    pub(super) local_at: Option<usize>,
    pub(super) out_levels: Vec<usize>,
    pub(super) strides: Vec<u64>,
    /// What the kernel's output accumulators hold, asked of the memory budget as they grow.
    pub(super) held: Held,
}

/// The accesses of a kernel body, numbered left to right, and the size of every loop.
pub(super) struct Numbered<'a> {
    pub(super) body: Node,
    pub(super) accs: Vec<AccessInfo<'a>>,
    /// Per access, the protocol of each mode (missing ones are lookups).
    pub(super) protocols: Vec<Vec<Protocol>>,
    /// Per loop level, its size.
    pub(super) dims: Vec<usize>,
}

/// Numbers the accesses of `q`'s body and resolves their tensors with `tensor`; errors for
/// an unknown tensor, an access of the wrong order or discordant with the loops, sizes that
/// disagree, and a loop that indexes no tensor.
pub(super) fn number_accesses<'a>(
    q: &PhysicalQuery,
    tensor: &dyn Fn(&str, bool) -> Option<&'a FiberTensor>,
) -> Result<Numbered<'a>, TensorError> {
    let n = q.loop_order.len();
    let level_of = |i: &Idx| q.loop_order.iter().position(|l| l == i);
    let mut accs: Vec<AccessInfo<'a>> = vec![];
    let mut protocols: Vec<Vec<Protocol>> = vec![];
    let mut dims: Vec<Option<(usize, String)>> = vec![None; n];
    let body = number(
        &q.body,
        q,
        tensor,
        &level_of,
        &mut accs,
        &mut protocols,
        &mut dims,
    )?;
    let dims: Vec<usize> = dims
        .into_iter()
        .zip(&q.loop_order)
        .map(|(d, i)| {
            d.map(|(d, _)| d).ok_or_else(|| {
                TensorError::Invalid(format!(
                    "kernel {}: loop index {i} indexes no tensor",
                    q.name
                ))
            })
        })
        .collect::<Result<_, _>>()?;
    Ok(Numbered {
        body,
        accs,
        protocols,
        dims,
    })
}

/// `e` with its accesses numbered (appended to `accs`, `protocols`), checking each against
/// the loop order and recording the size of every loop it binds in `dims`.
fn number<'a>(
    e: &PhysExpr,
    q: &PhysicalQuery,
    tensor: &dyn Fn(&str, bool) -> Option<&'a FiberTensor>,
    level_of: &dyn Fn(&Idx) -> Option<usize>,
    accs: &mut Vec<AccessInfo<'a>>,
    protocols: &mut Vec<Vec<Protocol>>,
    dims: &mut [Option<(usize, String)>],
) -> Result<Node, TensorError> {
    Ok(match e {
        PhysExpr::Literal(v) => Node::Lit(*v),
        PhysExpr::Map { op, args } => Node::Map(
            op.clone(),
            args.iter()
                .map(|a| number(a, q, tensor, level_of, accs, protocols, dims))
                .collect::<Result<_, _>>()?,
        ),
        PhysExpr::Access(a) => {
            let t =
                tensor(&a.name, a.is_alias).ok_or_else(|| TensorError::Unknown(a.name.clone()))?;
            if t.order() != a.idxs.len() {
                return Err(TensorError::Invalid(format!(
                    "{} has {} modes (dims {:?}) but is indexed by {} indices in kernel {}",
                    a.name,
                    t.order(),
                    t.dims,
                    a.idxs.len(),
                    q.name
                )));
            }
            let mut levels = vec![];
            for (m, i) in a.idxs.iter().enumerate() {
                let l = level_of(i).ok_or_else(|| {
                    TensorError::Invalid(format!(
                        "kernel {}: index {i} of {} is not in the loop order",
                        q.name, a.name
                    ))
                })?;
                if levels.last().is_some_and(|&prev| prev >= l) {
                    return Err(TensorError::Invalid(format!(
                        "kernel {}: access {}{:?} is not concordant with loop order {:?}",
                        q.name, a.name, a.idxs, q.loop_order
                    )));
                }
                levels.push(l);
                let d = t.dims[m];
                match &dims[l] {
                    Some((prev, by)) if *prev != d => {
                        return Err(TensorError::Invalid(format!(
                            "kernel {}: index {i} has size {prev} in {by} but {d} in {}",
                            q.name, a.name
                        )))
                    }
                    Some(_) => {}
                    None => dims[l] = Some((d, a.name.clone())),
                }
            }
            let mut prot = a.protocols.clone();
            prot.resize(a.idxs.len(), Protocol::Lookup);
            protocols.push(prot);
            accs.push(AccessInfo { tensor: t, levels });
            Node::Acc(accs.len() - 1)
        }
    })
}

/// Which loop levels aggregate and which bind output indices.
pub(super) struct Loops {
    pub(super) is_agg_level: Vec<bool>,
    /// Loop level of each output index, in output order.
    pub(super) out_levels: Vec<usize>,
    pub(super) deepest_out: Option<usize>,
    pub(super) first_agg: Option<usize>,
}

/// The roles of `q`'s loops; errors when a loop is neither an output nor an aggregated
/// index, an output index is not looped over, or indices are aggregated without an
/// aggregate.
pub(super) fn loop_roles(q: &PhysicalQuery) -> Result<Loops, TensorError> {
    let level_of = |i: &Idx| q.loop_order.iter().position(|l| l == i);
    let is_agg_level: Vec<bool> = q
        .loop_order
        .iter()
        .map(|i| q.agg_idxs.contains(i))
        .collect();
    let mut out_levels = vec![];
    for i in &q.output_idxs {
        out_levels.push(level_of(i).ok_or_else(|| {
            TensorError::Invalid(format!(
                "kernel {}: output index {i} is not in the loop order",
                q.name
            ))
        })?);
    }
    for (l, i) in q.loop_order.iter().enumerate() {
        if !is_agg_level[l] && !out_levels.contains(&l) {
            return Err(TensorError::Invalid(format!(
                "kernel {}: loop index {i} is neither an output nor an aggregated index",
                q.name
            )));
        }
    }
    if q.agg.is_none() && !q.agg_idxs.is_empty() {
        return Err(TensorError::Invalid(format!(
            "kernel {}: aggregated indices without an aggregate",
            q.name
        )));
    }
    let deepest_out = out_levels.iter().copied().max();
    let first_agg = is_agg_level.iter().position(|&a| a);
    Ok(Loops {
        is_agg_level,
        out_levels,
        deepest_out,
        first_agg,
    })
}

/// The fill of the result: the body at all fills, aggregated over the aggregate loops.
pub(super) fn result_fill(
    agg: Option<AggOp>,
    body: &Node,
    fills: &[f64],
    loops: &Loops,
    dims: &[usize],
) -> f64 {
    let all_fill = simplify(body, &vec![true; fills.len()], fills);
    let Node::Lit(body_fill) = all_fill else {
        unreachable!("a body with every access at its fill folds to a literal")
    };
    let agg_cells: f64 = (0..dims.len())
        .filter(|&l| loops.is_agg_level[l])
        .map(|l| dims[l] as f64)
        .product();
    match agg {
        Some(agg) => agg.repeat(body_fill, agg_cells),
        None => body_fill,
    }
}

/// What the body folds to where some accesses hold their fills, for deciding which
/// coordinates a level may skip.
pub(super) struct Skips<'p, 'a> {
    pub(super) body: &'p Node,
    pub(super) fills: &'p [f64],
    pub(super) accs: &'p [AccessInfo<'a>],
    pub(super) loops: &'p Loops,
    pub(super) agg: Option<AggOp>,
}

impl Skips<'_, '_> {
    /// What skipping coordinates of level `d` where the accesses `at_fill` hold their fills
    /// contributes, if it can be accounted for.
    fn kind(&self, d: usize, at_fill: &[bool]) -> Option<Skipped> {
        let is_agg_level = &self.loops.is_agg_level;
        let b = simplify(self.body, at_fill, self.fills);
        let no_output_below = self.loops.deepest_out.is_none_or(|o| o < d);
        match (&b, self.agg) {
            (Node::Lit(_), None) => Some(Skipped::Nothing),
            (Node::Lit(c), Some(agg)) => {
                if neutral(agg, *c) {
                    Some(Skipped::Nothing)
                } else if is_agg_level[d] && no_output_below {
                    Some(Skipped::Repeat(b.clone()))
                } else if !is_agg_level[d] && self.loops.first_agg.is_none_or(|f| f > d) {
                    Some(Skipped::Nothing)
                } else {
                    None
                }
            }
            (_, Some(_)) if is_agg_level[d] && no_output_below => {
                let mut used = vec![];
                b.accesses(&mut used);
                let bound_above = used
                    .iter()
                    .all(|&a| self.accs[a].levels.last().is_none_or(|&l| l < d));
                bound_above.then(|| Skipped::Repeat(b.clone()))
            }
            _ => None,
        }
    }
}

/// Plans loop level `d`: the accesses it binds, how it walks, what it skips.
pub(super) fn plan_level(
    d: usize,
    skips: &Skips,
    protocols: &[Vec<Protocol>],
    dims: &[usize],
) -> LevelPlan {
    let (binds, leaders, gallops) = bind_level(d, skips, protocols);
    let (walk, skipped) = choose_walk(d, skips, &binds, leaders, gallops, dims);
    let inner_cells: f64 = dims[d + 1..].iter().map(|&x| x as f64).product();
    LevelPlan {
        dim: dims[d],
        binds,
        walk,
        skipped,
        inner_cells,
        sum_of_products: false,
        prefetch: vec![],
    }
}

/// The binds of level `d`, and which of them (by position) may lead the walk and which may
/// be intersected.
fn bind_level(
    d: usize,
    skips: &Skips,
    protocols: &[Vec<Protocol>],
) -> (Vec<Bind>, Vec<usize>, Vec<usize>) {
    let na = skips.accs.len();
    let mut binds = vec![];
    let mut leaders = vec![];
    let mut gallops = vec![];
    for (a, info) in skips.accs.iter().enumerate() {
        if let Some(m) = info.levels.iter().position(|&l| l == d) {
            let mut alone = vec![false; na];
            alone[a] = true;
            let skip_if_missing = matches!(skips.kind(d, &alone), Some(Skipped::Nothing));
            match protocols[a][m] {
                Protocol::Iterate => leaders.push(binds.len()),
                // Intersected only where missing skips the sub-loop and the level keeps
                // sorted coordinates; otherwise it leads like an iterated access.
                Protocol::Gallop
                    if skip_if_missing && info.tensor.levels[m].format != LevelFormat::Dense =>
                {
                    gallops.push(binds.len())
                }
                Protocol::Gallop => leaders.push(binds.len()),
                Protocol::Lookup => {}
            }
            binds.push(Bind {
                access: a,
                mode: m,
                skip_if_missing,
                skip_fill_value: skip_if_missing && m + 1 == info.levels.len(),
            });
        }
    }
    (binds, leaders, gallops)
}

/// How level `d` walks (an intersection, its leaders, every bound access, or every
/// coordinate: the first whose skipped coordinates can be accounted for) and what the
/// coordinates it skips contribute.
fn choose_walk(
    d: usize,
    skips: &Skips,
    binds: &[Bind],
    mut leaders: Vec<usize>,
    mut gallops: Vec<usize>,
    dims: &[usize],
) -> (Walk, Skipped) {
    let accs = skips.accs;
    let mask = |which: &[usize]| {
        let mut m = vec![false; accs.len()];
        for &b in which {
            m[binds[b].access] = true;
        }
        m
    };
    let all: Vec<usize> = (0..binds.len()).collect();
    if gallops.len() == 1 {
        leaders.push(gallops.pop().expect("one"));
    }
    if gallops.len() > intersect::MAX_FIBERS {
        // Too many to intersect on the stack: walk the first, probe the rest.
        (Walk::Leader(gallops[0]), Skipped::Nothing)
    } else if !gallops.is_empty() {
        // Each intersected access alone skips its sub-loop where missing: coordinates
        // outside the intersection contribute nothing.
        let probes = all
            .iter()
            .copied()
            .filter(|b| !gallops.contains(b))
            .collect();
        // The loop level at which a fiber's parent is bound (`None`: the root).
        let parent_level = |b: usize| {
            let bind: &Bind = &binds[b];
            bind.mode
                .checked_sub(1)
                .map(|m| accs[bind.access].levels[m])
        };
        let stationary = if gallops.len() == 2 && d >= 1 && dims[d] <= intersect::MAX_MARKED_DIM {
            (0..2)
                .filter(|&f| parent_level(gallops[f]).is_none_or(|l| l + 1 < d))
                .min_by_key(|&f| parent_level(gallops[f]).map_or(0, |l| l + 1))
        } else {
            None
        };
        (
            Walk::Gallop {
                fibers: gallops,
                probes,
                stationary,
            },
            Skipped::Nothing,
        )
    } else if let (false, Some(k)) = (leaders.is_empty(), skips.kind(d, &mask(&leaders))) {
        let walk = if leaders.len() == 1 {
            Walk::Leader(leaders[0])
        } else {
            Walk::Union(leaders)
        };
        (walk, k)
    } else if let (false, Some(k)) = (all.is_empty(), skips.kind(d, &mask(&all))) {
        let walk = if all.len() == 1 {
            Walk::Leader(0)
        } else {
            Walk::Union(all)
        };
        (walk, k)
    } else {
        (Walk::All, Skipped::Nothing)
    }
}

/// Prefetching for a sparse leader walk: per level, the binds whose next mode is the next
/// loop's, stored as fibers (ptr/idx), with positions here found by arithmetic.
pub(super) fn plan_prefetch(levels: &mut [LevelPlan], accs: &[AccessInfo]) {
    let n = levels.len();
    for (d, lp) in levels.iter_mut().enumerate().take(n.saturating_sub(1)) {
        let Walk::Leader(leader) = lp.walk else {
            continue;
        };
        let leader_bind = &lp.binds[leader];
        if accs[leader_bind.access].tensor.levels[leader_bind.mode].format == LevelFormat::Dense {
            continue;
        }
        let prefetch = (0..lp.binds.len())
            .filter(|&b| {
                let bind = &lp.binds[b];
                let info = &accs[bind.access];
                let found_here =
                    b == leader || info.tensor.levels[bind.mode].format == LevelFormat::Dense;
                let next_is_fiber = info.levels.get(bind.mode + 1) == Some(&(d + 1))
                    && matches!(
                        info.tensor.levels[bind.mode + 1].format,
                        LevelFormat::SortedList | LevelFormat::Hash
                    );
                found_here && next_is_fiber
            })
            .collect();
        lp.prefetch = prefetch;
    }
}

/// The depth at which every output index is bound and only aggregate loops remain (there
/// the body is accumulated locally), if the loop order has one.
pub(super) fn local_depth(loops: &Loops) -> Option<usize> {
    match (loops.deepest_out, loops.first_agg) {
        (None, _) => Some(0),
        (Some(o), None) => Some(o + 1),
        (Some(o), Some(f)) if f > o => Some(o + 1),
        _ => None,
    }
}

/// Marks the innermost level as a sum of products walked by intersection (see
/// [`LevelPlan::sum_of_products`]) when the kernel is one.
pub(super) fn mark_sum_of_products(
    levels: &mut [LevelPlan],
    q: &PhysicalQuery,
    body: &Node,
    local_at: Option<usize>,
) {
    let n = levels.len();
    let product_of_accesses = match body {
        Node::Map(MapOp::Mul, args) => args.iter().all(|a| matches!(a, Node::Acc(_))),
        Node::Acc(_) => true,
        _ => false,
    };
    if let Some(leaf) = levels.last_mut() {
        leaf.sum_of_products = q.agg == Some(AggOp::Sum)
            && local_at.is_some_and(|l| l < n)
            && product_of_accesses
            && matches!(&leaf.walk, Walk::Gallop { probes, .. } if probes.is_empty());
    }
}
