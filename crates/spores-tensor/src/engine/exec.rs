//! The interpreter of one [`PhysicalQuery`]: nested loops in `loop_order`; at each loop the
//! leader's level is walked and the followers are probed (Galley §6.3).
//!
//! Correctness over the regions the loops skip. A loop only visits the coordinates some
//! iterated access stores; everywhere else those accesses hold their fill values. Before
//! running, every loop level is analysed by substituting the fills of the accesses it
//! iterates into the body and constant-folding with the operators' annihilators:
//! - the skipped region contributes nothing (the body folds to the aggregate's identity, or
//!   to the output's fill value for cells no aggregate loop surrounds): walk the leader and
//!   probe the others (an intersection when the leader annihilates the body);
//! - the body folds to a value `c` that does not depend on the skipped loops but is not
//!   neutral (`max` over a 0 fill, `sum` over `A[i] + 1`): walk, count the skipped
//!   coordinates, and add `agg.repeat(c, skipped * inner cells)`;
//! - otherwise widen: walk the union of all accesses of that index, or failing that every
//!   coordinate `0..dim` (`A[i] + B[j]` summed over `i`, `j` must see every `i`).
//!
//! Both cores: the outermost loop of a kernel that is still running after a short serial
//! start is split into chunks run by rayon's workers, each with private registers, positions
//! and output accumulator, merged in loop order afterwards (`run_top`). Small kernels stay
//! on one thread and pay nothing.
//!
//! The body runs as a flat register program (one instruction per operator, binary
//! arithmetic specialized), not a recursive tree walk; level walks and probes are
//! specialized per level format.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use rayon::prelude::*;
use rustc_hash::FxHashMap;

use super::fibertree::{FiberTensor, Level, FILL};
use super::intersect;
use crate::plan_ast::{AggOp, Idx, LevelFormat, MapOp, PhysExpr, PhysicalQuery, Protocol};
use crate::TensorError;

/// A body node with accesses numbered.
#[derive(Clone, Debug)]
enum Node {
    Acc(usize),
    Lit(f64),
    Map(MapOp, Vec<Node>),
}

impl Node {
    fn accesses(&self, out: &mut Vec<usize>) {
        match self {
            Node::Acc(a) => out.push(*a),
            Node::Lit(_) => {}
            Node::Map(_, args) => args.iter().for_each(|x| x.accesses(out)),
        }
    }
}

/// Replaces the accesses in `at_fill` by their fill values and folds constants and
/// annihilators.
fn simplify(n: &Node, at_fill: &[bool], fills: &[f64]) -> Node {
    match n {
        Node::Acc(a) if at_fill[*a] => Node::Lit(fills[*a]),
        Node::Acc(_) | Node::Lit(_) => n.clone(),
        Node::Map(op, args) => {
            let args: Vec<Node> = args.iter().map(|x| simplify(x, at_fill, fills)).collect();
            let lits: Vec<f64> = args
                .iter()
                .filter_map(|x| match x {
                    Node::Lit(v) => Some(*v),
                    _ => None,
                })
                .collect();
            if lits.len() == args.len() {
                return Node::Lit(op.apply(&lits));
            }
            if let Some(z) = op.props().annihilator {
                if lits.contains(&z) {
                    return Node::Lit(z);
                }
            }
            // 0 / y = 0 (the sparse convention of `MapOp::apply`).
            if matches!(op, MapOp::Div) && matches!(args[0], Node::Lit(v) if v == 0.0) {
                return Node::Lit(0.0);
            }
            Node::Map(op.clone(), args)
        }
    }
}

/// `combine(x, c) == x` for every `x`.
fn neutral(agg: AggOp, c: f64) -> bool {
    match agg {
        AggOp::Sum | AggOp::Any => c == 0.0,
        AggOp::Prod => c == 1.0,
        AggOp::Max => c == f64::NEG_INFINITY,
        AggOp::Min => c == f64::INFINITY,
    }
}

/// One instruction of the body program; registers hold access values, literals, temporaries.
#[derive(Clone, Debug)]
enum Instr {
    Add(usize, usize, usize),
    Sub(usize, usize, usize),
    Mul(usize, usize, usize),
    Max(usize, usize, usize),
    Min(usize, usize, usize),
    Gen(MapOp, Vec<usize>, usize),
}

struct Program {
    instrs: Vec<Instr>,
    /// Initial register file: access slots (overwritten), literals, temporaries.
    init_regs: Vec<f64>,
    result: usize,
}

fn compile(body: &Node, n_acc: usize) -> Program {
    let mut p = Program {
        instrs: vec![],
        init_regs: vec![0.0; n_acc],
        result: 0,
    };
    fn go(n: &Node, p: &mut Program) -> usize {
        match n {
            Node::Acc(a) => *a,
            Node::Lit(v) => {
                p.init_regs.push(*v);
                p.init_regs.len() - 1
            }
            Node::Map(op, args) => {
                let regs: Vec<usize> = args.iter().map(|a| go(a, p)).collect();
                let binary = |mk: fn(usize, usize, usize) -> Instr, p: &mut Program| {
                    // Left fold of an n-ary associative operator as binary steps.
                    let mut acc = regs[0];
                    for &r in &regs[1..] {
                        p.init_regs.push(0.0);
                        let dst = p.init_regs.len() - 1;
                        p.instrs.push(mk(acc, r, dst));
                        acc = dst;
                    }
                    acc
                };
                match op {
                    MapOp::Add if regs.len() >= 2 => binary(Instr::Add, p),
                    MapOp::Mul if regs.len() >= 2 => binary(Instr::Mul, p),
                    MapOp::Max if regs.len() >= 2 => binary(Instr::Max, p),
                    MapOp::Min if regs.len() >= 2 => binary(Instr::Min, p),
                    MapOp::Sub if regs.len() == 2 => binary(Instr::Sub, p),
                    _ => {
                        p.init_regs.push(0.0);
                        let dst = p.init_regs.len() - 1;
                        p.instrs.push(Instr::Gen(op.clone(), regs, dst));
                        dst
                    }
                }
            }
        }
    }
    p.result = go(body, &mut p);
    p
}

impl Program {
    #[inline]
    fn run(&self, regs: &mut [f64]) -> f64 {
        let mut scratch: Vec<f64> = Vec::new();
        for ins in &self.instrs {
            match *ins {
                Instr::Add(a, b, d) => regs[d] = regs[a] + regs[b],
                Instr::Sub(a, b, d) => regs[d] = regs[a] - regs[b],
                Instr::Mul(a, b, d) => regs[d] = times(regs[a], regs[b]),
                Instr::Max(a, b, d) => regs[d] = regs[a].max(regs[b]),
                Instr::Min(a, b, d) => regs[d] = regs[a].min(regs[b]),
                Instr::Gen(ref op, ref args, d) => {
                    scratch.clear();
                    scratch.extend(args.iter().map(|&r| regs[r]));
                    regs[d] = op.apply(&scratch);
                }
            }
        }
        regs[self.result]
    }
}

/// How a loop level finds its coordinates.
#[derive(Clone, Debug)]
enum Walk {
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
enum Skipped {
    Nothing,
    /// `agg.repeat(value, skipped * inner_cells)` where `value` is this body.
    Repeat(Node),
}

#[derive(Clone, Debug)]
struct Bind {
    access: usize,
    mode: usize,
    /// When this access misses here, the whole sub-loop contributes nothing: skip it.
    skip_if_missing: bool,
    /// This is the access's last mode and `skip_if_missing` holds: a stored value equal to
    /// the fill (a dense level's zeros) is skipped too.
    skip_fill_value: bool,
}

struct LevelPlan {
    dim: usize,
    binds: Vec<Bind>,
    walk: Walk,
    skipped: Skipped,
    /// Product of the dims of the deeper loops (saturating).
    /// Cells below one coordinate of this level (a float: may exceed 2^64).
    inner_cells: f64,
    /// The innermost level of a sum of products accumulated locally, walked by
    /// intersection with nothing to probe: each coordinate found adds the product of the
    /// values straight into the local sum (no per-coordinate body program).
    sum_of_products: bool,
    /// Binds (of a sparse leader walk) whose access's next level is read as fibers by the
    /// next loop, with this level's position found without a search (the leader itself, or
    /// a dense level): their upcoming fibers are prefetched while the current one is used.
    prefetch: Vec<usize>,
}

struct AccessInfo<'a> {
    tensor: &'a FiberTensor,
    /// Loop level of each mode.
    levels: Vec<usize>,
}

/// Where results accumulate: one cell per output coordinate.
enum Accumulator {
    /// Cells arrive in key order, each once (outputs in loop order, aggregates innermost).
    Sequential(Vec<(u64, f64)>),
    Dense {
        vals: Vec<f64>,
        touched: Vec<bool>,
    },
    Hash(FxHashMap<u64, f64>),
}

/// Dense accumulation up to this many cells; hashed beyond.
const DENSE_ACCUMULATOR_CELLS: usize = 1 << 22;

struct State {
    pos: Vec<Vec<usize>>,
    regs: Vec<f64>,
    cur: Vec<u32>,
    acc: f64,
    out: Accumulator,
    union_buf: Vec<Vec<u32>>,
    /// Per level: the driver (an index into the `Walk::Gallop` fibers) [`walk_len`] chose.
    driver: Vec<usize>,
    /// Per level: the stationary fiber of a `Walk::Gallop` level, scattered.
    marks: Vec<intersect::Marks>,
}

impl State {
    /// A fresh state: every access at its root, nothing accumulated into `out` yet.
    fn new(plan: &Plan, out: Accumulator) -> State {
        let n = plan.levels.len();
        State {
            pos: plan
                .accs
                .iter()
                .map(|a| {
                    let mut p = vec![FILL; a.levels.len() + 1];
                    p[0] = 0;
                    p
                })
                .collect(),
            regs: plan.program.init_regs.clone(),
            cur: vec![0; n],
            acc: plan.agg.map_or(0.0, AggOp::init),
            out,
            union_buf: vec![vec![]; n],
            driver: vec![0; n],
            marks: vec![intersect::Marks::default(); n],
        }
    }
}

impl Accumulator {
    /// An empty accumulator of the same kind and size (a worker thread's private output).
    fn empty_like(&self, init: f64) -> Accumulator {
        match self {
            Accumulator::Sequential(_) => Accumulator::Sequential(vec![]),
            Accumulator::Dense { vals, touched } => Accumulator::Dense {
                vals: vec![init; vals.len()],
                touched: vec![false; touched.len()],
            },
            Accumulator::Hash(_) => Accumulator::Hash(FxHashMap::default()),
        }
    }

    /// Cells of a dense accumulator (what a private copy costs to allocate and merge).
    fn dense_cells(&self) -> usize {
        match self {
            Accumulator::Dense { vals, .. } => vals.len(),
            _ => 0,
        }
    }

    /// Folds `other` (cells written by a worker over a later part of the outermost loop)
    /// into `self`. A cell both wrote is combined with the aggregate; without an aggregate
    /// every cell is written once, by one of them.
    fn merge(&mut self, other: Accumulator, agg: Option<AggOp>, init: f64) {
        let combine = |old: f64, new: f64| match agg {
            Some(a) => a.combine(old, new),
            None => new,
        };
        match (self, other) {
            (Accumulator::Sequential(mine), Accumulator::Sequential(theirs)) => {
                for (k, v) in theirs {
                    match mine.last_mut() {
                        Some(last) if last.0 == k => last.1 = combine(last.1, v),
                        _ => mine.push((k, v)),
                    }
                }
            }
            (
                Accumulator::Dense { vals, touched },
                Accumulator::Dense {
                    vals: tv,
                    touched: tt,
                },
            ) => {
                if touched.is_empty() {
                    // No mask: an untouched cell holds `init`, the aggregate's identity (or,
                    // without an aggregate, 0 = the fill).
                    for (m, t) in vals.iter_mut().zip(tv) {
                        if agg.is_some() {
                            *m = combine(*m, t);
                        } else if t.to_bits() != init.to_bits() {
                            *m = t;
                        }
                    }
                } else {
                    for (k, t) in tt.into_iter().enumerate() {
                        if t {
                            vals[k] = if touched[k] {
                                combine(vals[k], tv[k])
                            } else {
                                tv[k]
                            };
                            touched[k] = true;
                        }
                    }
                }
            }
            (Accumulator::Hash(mine), Accumulator::Hash(theirs)) => {
                for (k, v) in theirs {
                    mine.entry(k)
                        .and_modify(|old| *old = combine(*old, v))
                        .or_insert(v);
                }
            }
            _ => unreachable!("workers accumulate in the kind of the main accumulator"),
        }
    }
}

struct Plan<'a> {
    accs: Vec<AccessInfo<'a>>,
    fills: Vec<f64>,
    levels: Vec<LevelPlan>,
    program: Program,
    agg: Option<AggOp>,
    /// Depth at which every output index is bound and only aggregate loops remain (local
    /// accumulation), if the loop order allows it.
    local_at: Option<usize>,
    out_levels: Vec<usize>,
    strides: Vec<u64>,
}

/// Runs `q`; `tensor(name, is_alias)` resolves the accesses.
pub fn execute_query<'a>(
    q: &PhysicalQuery,
    tensor: &dyn Fn(&str, bool) -> Option<&'a FiberTensor>,
) -> Result<FiberTensor, TensorError> {
    let n = q.loop_order.len();
    let level_of = |i: &Idx| q.loop_order.iter().position(|l| l == i);
    // Number the accesses and collect their tensors.
    let mut accs: Vec<AccessInfo<'a>> = vec![];
    let mut protocols: Vec<Vec<Protocol>> = vec![];
    let mut dims: Vec<Option<(usize, String)>> = vec![None; n];
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
                let t = tensor(&a.name, a.is_alias)
                    .ok_or_else(|| TensorError::Unknown(a.name.clone()))?;
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
    let na = accs.len();
    let fills: Vec<f64> = accs.iter().map(|a| a.tensor.fill).collect();
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

    // The fill of the result: the body at all fills, aggregated over the agg dims.
    let all_fill = simplify(&body, &vec![true; na], &fills);
    let Node::Lit(body_fill) = all_fill else {
        unreachable!("a body with every access at its fill folds to a literal")
    };
    let agg_cells: f64 = (0..n)
        .filter(|&l| is_agg_level[l])
        .map(|l| dims[l] as f64)
        .product();
    let out_fill = match q.agg {
        Some(agg) => agg.repeat(body_fill, agg_cells),
        None => body_fill,
    };

    // What skipping coordinates of level `d` where the accesses `at_fill` hold their fills
    // contributes, if it can be accounted for.
    let skip_kind = |d: usize, at_fill: &[bool]| -> Option<Skipped> {
        let b = simplify(&body, at_fill, &fills);
        let no_output_below = deepest_out.is_none_or(|o| o < d);
        match (&b, q.agg) {
            (Node::Lit(_), None) => Some(Skipped::Nothing),
            (Node::Lit(c), Some(agg)) => {
                if neutral(agg, *c) {
                    Some(Skipped::Nothing)
                } else if is_agg_level[d] && no_output_below {
                    Some(Skipped::Repeat(b.clone()))
                } else if !is_agg_level[d] && first_agg.is_none_or(|f| f > d) {
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
                    .all(|&a| accs[a].levels.last().is_none_or(|&l| l < d));
                bound_above.then(|| Skipped::Repeat(b.clone()))
            }
            _ => None,
        }
    };

    let mut levels = Vec::with_capacity(n);
    for d in 0..n {
        let mut binds = vec![];
        let mut leaders = vec![];
        let mut gallops = vec![];
        for (a, info) in accs.iter().enumerate() {
            if let Some(m) = info.levels.iter().position(|&l| l == d) {
                let mut alone = vec![false; na];
                alone[a] = true;
                let skip_if_missing = matches!(skip_kind(d, &alone), Some(Skipped::Nothing));
                match protocols[a][m] {
                    Protocol::Iterate => leaders.push(binds.len()),
                    // Intersected only where missing skips the sub-loop and the level keeps
                    // sorted coordinates; otherwise it leads like an iterated access.
                    Protocol::Gallop
                        if skip_if_missing
                            && info.tensor.levels[m].format != LevelFormat::Dense =>
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
        let mask = |which: &[usize]| {
            let mut m = vec![false; na];
            for &b in which {
                m[binds[b].access] = true;
            }
            m
        };
        let all: Vec<usize> = (0..binds.len()).collect();
        if gallops.len() == 1 {
            leaders.push(gallops.pop().expect("one"));
        }
        let (walk, skipped) = if gallops.len() > intersect::MAX_FIBERS {
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
            let stationary = if gallops.len() == 2 && d >= 1 && dims[d] <= intersect::MAX_MARKED_DIM
            {
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
        } else if let (false, Some(k)) = (leaders.is_empty(), skip_kind(d, &mask(&leaders))) {
            let walk = if leaders.len() == 1 {
                Walk::Leader(leaders[0])
            } else {
                Walk::Union(leaders)
            };
            (walk, k)
        } else if let (false, Some(k)) = (all.is_empty(), skip_kind(d, &mask(&all))) {
            let walk = if all.len() == 1 {
                Walk::Leader(0)
            } else {
                Walk::Union(all)
            };
            (walk, k)
        } else {
            (Walk::All, Skipped::Nothing)
        };
        let inner_cells: f64 = dims[d + 1..].iter().map(|&x| x as f64).product();
        levels.push(LevelPlan {
            dim: dims[d],
            binds,
            walk,
            skipped,
            inner_cells,
            sum_of_products: false,
            prefetch: vec![],
        });
    }
    // Prefetching for a sparse leader walk: the binds whose next mode is the next loop's,
    // stored as fibers (ptr/idx), with positions here found by arithmetic.
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

    // Output accumulation.
    let out_dims: Vec<usize> = out_levels.iter().map(|&l| dims[l]).collect();
    let mut strides = vec![1u64; out_dims.len()];
    let mut cells: u64 = 1;
    for m in (0..out_dims.len()).rev() {
        strides[m] = cells;
        cells = cells.checked_mul(out_dims[m] as u64).ok_or_else(|| {
            TensorError::Invalid(format!(
                "kernel {}: output of dims {out_dims:?} has more than 2^64 cells",
                q.name
            ))
        })?;
    }
    let local_at = match (deepest_out, first_agg) {
        (None, _) => Some(0),
        (Some(o), None) => Some(o + 1),
        (Some(o), Some(f)) if f > o => Some(o + 1),
        _ => None,
    };
    let product_of_accesses = match &body {
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
    let in_order = out_levels.windows(2).all(|w| w[0] < w[1]);
    // An all-dense output is accumulated in place: its value array becomes the result's.
    let all_dense = !out_dims.is_empty()
        && q.output_formats.len() == out_dims.len()
        && q.output_formats.iter().all(|f| *f == LevelFormat::Dense)
        && cells <= super::fibertree::MAX_DENSE_POSITIONS as u64;
    // When an untouched cell's initial value already is the result's fill (sums with fill
    // 0, the common case), no touched mask is kept: a zeroed array costs only the pages
    // actually written.
    let init = q.agg.map_or(out_fill, AggOp::init);
    let needs_mask = !(init == out_fill && (q.agg.is_some() || init == 0.0));
    let out = if all_dense {
        Accumulator::Dense {
            vals: vec![init; cells as usize],
            touched: if needs_mask {
                vec![false; cells as usize]
            } else {
                vec![]
            },
        }
    } else if local_at.is_some() && in_order {
        Accumulator::Sequential(vec![])
    } else if (cells as usize) <= DENSE_ACCUMULATOR_CELLS
        && q.output_formats
            .iter()
            .any(|f| matches!(f, LevelFormat::Dense | LevelFormat::Bytemap))
    {
        // Dense-shaped outputs may pay for a dense scratch array; sparse ones (SortedList,
        // Hash) pay only per written cell, which is what makes them cheap for small results.
        Accumulator::Dense {
            vals: vec![q.agg.map_or(out_fill, AggOp::init); cells as usize],
            touched: vec![false; cells as usize],
        }
    } else {
        Accumulator::Hash(FxHashMap::default())
    };
    let program = compile(&body, na);
    let plan = Plan {
        fills,
        levels,
        agg: q.agg,
        local_at,
        out_levels,
        strides,
        program,
        accs,
    };
    let mut st = State::new(&plan, out);
    st.acc = q.agg.map_or(out_fill, AggOp::init);
    run_top(&plan, &mut st);

    // Materialize in the requested formats.
    let order = out_dims.len();
    if all_dense {
        if let Accumulator::Dense { mut vals, touched } = st.out {
            if !touched.is_empty() {
                for (v, t) in vals.iter_mut().zip(&touched) {
                    if !t {
                        *v = out_fill;
                    }
                }
            }
            return Ok(FiberTensor::dense(&out_dims, vals, out_fill));
        }
    }
    let mut coords: Vec<u32> = vec![];
    let mut vals: Vec<f64> = vec![];
    let mut push = |key: u64, v: f64| {
        if v == out_fill || (v.is_nan() && out_fill.is_nan()) {
            return;
        }
        for (&stride, &dim) in plan.strides.iter().zip(&out_dims) {
            coords.push(((key / stride) % dim as u64) as u32);
        }
        vals.push(v);
    };
    if order == 0 {
        let v = match st.out {
            Accumulator::Sequential(v) => v.first().map_or(out_fill, |x| x.1),
            Accumulator::Dense { vals, touched } => {
                if touched[0] {
                    vals[0]
                } else {
                    out_fill
                }
            }
            Accumulator::Hash(h) => h.get(&0).copied().unwrap_or(out_fill),
        };
        return Ok(FiberTensor::from_sorted(&[], &[], &[v], out_fill, &[]));
    }
    match st.out {
        Accumulator::Sequential(entries) => {
            for (k, v) in entries {
                push(k, v);
            }
        }
        Accumulator::Dense { vals: dv, touched } => {
            for (k, (&v, &t)) in dv.iter().zip(&touched).enumerate() {
                if t {
                    push(k as u64, v);
                }
            }
        }
        Accumulator::Hash(h) => {
            let mut entries: Vec<(u64, f64)> = h.into_iter().collect();
            entries.sort_unstable_by_key(|e| e.0);
            for (k, v) in entries {
                push(k, v);
            }
        }
    }
    // Levels the plan does not name are sorted lists (`from_sorted`'s default).
    Ok(FiberTensor::from_sorted(
        &out_dims,
        &coords,
        &vals,
        out_fill,
        &q.output_formats,
    ))
}

#[inline]
fn out_key(plan: &Plan, st: &State) -> u64 {
    plan.out_levels
        .iter()
        .zip(&plan.strides)
        .map(|(&l, &s)| st.cur[l] as u64 * s)
        .sum()
}

#[inline]
fn write_cell(plan: &Plan, st: &mut State, v: f64, combine: bool) {
    let key = out_key(plan, st);
    let agg = plan.agg;
    let merge = |old: f64| match (agg, combine) {
        (Some(a), true) => a.combine(old, v),
        _ => v,
    };
    match &mut st.out {
        Accumulator::Sequential(entries) => match entries.last_mut() {
            Some(last) if last.0 == key => last.1 = merge(last.1),
            _ => entries.push((
                key,
                match agg {
                    Some(a) if combine => a.combine(a.init(), v),
                    _ => v,
                },
            )),
        },
        Accumulator::Dense { vals, touched } => {
            let k = key as usize;
            if !touched.is_empty() && !touched[k] {
                touched[k] = true;
                if let Some(a) = agg {
                    vals[k] = a.init();
                }
            }
            vals[k] = merge(vals[k]);
        }
        Accumulator::Hash(h) => {
            let init = agg.map_or(v, AggOp::init);
            let e = h.entry(key).or_insert(init);
            *e = merge(*e);
        }
    }
}

fn access_value(plan: &Plan, st: &State, a: usize) -> f64 {
    let p = *st.pos[a].last().expect("a root position");
    if p == FILL {
        plan.fills[a]
    } else {
        plan.accs[a].tensor.vals[p]
    }
}

fn eval_node(plan: &Plan, st: &State, n: &Node) -> f64 {
    match n {
        Node::Acc(a) => access_value(plan, st, *a),
        Node::Lit(v) => *v,
        Node::Map(op, args) => {
            let v: Vec<f64> = args.iter().map(|x| eval_node(plan, st, x)).collect();
            op.apply(&v)
        }
    }
}

/// Serial work on the outermost loop before the rest is split across threads, in
/// nanoseconds (25 ms): kernels that finish sooner never pay for threads or private
/// outputs. Not much less: handing work to pool threads costs their wake-up, which on a
/// loaded machine can be milliseconds.
static PARALLEL_AFTER_NS: AtomicU64 = AtomicU64::new(25_000_000);

/// Sets how long the outermost loop of a kernel runs serially before the rest of it is split
/// across threads (default 25 ms; `Duration::ZERO` splits every loop, which tests use to
/// exercise the parallel path on small inputs; `Duration::MAX` never splits).
pub fn set_parallel_after(after: Duration) {
    let ns = u64::try_from(after.as_nanos()).unwrap_or(u64::MAX);
    PARALLEL_AFTER_NS.store(ns, Ordering::Relaxed);
}

/// Private dense outputs per worker only up to this many cells (they are allocated and
/// merged whole).
const MAX_PARALLEL_DENSE_CELLS: usize = 1 << 22;

/// Runs the whole loop nest. The outermost loop runs serially in small steps until
/// [`set_parallel_after`]'s time (25 ms); what remains of it is then split into chunks that rayon's workers run
/// with private states and outputs, merged in loop order (so sequential outputs stay
/// sorted), and the skipped-coordinate and local-accumulator bookkeeping of that loop is
/// done once, after the merge.
fn run_top(plan: &Plan, st: &mut State) {
    if plan.levels.is_empty() {
        go(plan, st, 0);
        return;
    }
    let local = plan.local_at == Some(0);
    let init = plan.agg.map_or(0.0, AggOp::init);
    if local {
        st.acc = init;
    }
    let len = walk_len(plan, st, 0);
    let step = (len / 64).max(1);
    let after = Duration::from_nanos(PARALLEL_AFTER_NS.load(Ordering::Relaxed));
    let start = Instant::now();
    let mut done = 0;
    while done < len && start.elapsed() < after {
        let hi = (done + step).min(len);
        walk_range(plan, st, 0, done, hi);
        done = hi;
    }
    // Only now ask rayon about threads: the first question starts its pool, which a kernel
    // that already finished must not pay for.
    let threads = if done < len && st.out.dense_cells() <= MAX_PARALLEL_DENSE_CELLS {
        rayon::current_num_threads()
    } else {
        1
    };
    if done < len && threads < 2 {
        walk_range(plan, st, 0, done, len);
    } else if done < len {
        let pieces = (threads * 8).min(len - done);
        let chunks: Vec<(usize, usize)> = (0..pieces)
            .map(|k| {
                let lo = done + (len - done) * k / pieces;
                let hi = done + (len - done) * (k + 1) / pieces;
                (lo, hi)
            })
            .collect();
        let union0 = st.union_buf[0].clone();
        let driver0 = st.driver[0];
        let out_init = st.out.empty_like(init);
        let parts: Vec<(Accumulator, f64)> = chunks
            .par_iter()
            .fold(
                || {
                    let mut ws = State::new(plan, out_init.empty_like(init));
                    ws.union_buf[0] = union0.clone();
                    ws.driver[0] = driver0;
                    ws.acc = init;
                    ws
                },
                |mut ws, &(lo, hi)| {
                    walk_range(plan, &mut ws, 0, lo, hi);
                    ws
                },
            )
            .map(|ws| (ws.out, ws.acc))
            .collect();
        for (out, acc) in parts {
            st.out.merge(out, plan.agg, init);
            if local {
                if let Some(agg) = plan.agg {
                    st.acc = agg.combine(st.acc, acc);
                }
            }
        }
    }
    account_skipped(plan, st, 0, len);
    if local {
        let v = st.acc;
        write_cell(plan, st, v, false);
    }
}

fn go(plan: &Plan, st: &mut State, d: usize) {
    if plan.local_at == Some(d) {
        st.acc = plan.agg.map_or(0.0, AggOp::init);
        level(plan, st, d);
        let v = st.acc;
        write_cell(plan, st, v, false);
    } else {
        level(plan, st, d);
    }
}

/// Binds the non-leader accesses of level `d` at coordinate `c`; false when the coordinate
/// can be skipped.
#[inline]
fn probe(plan: &Plan, st: &mut State, lp: &LevelPlan, skip_bind: usize, c: u32) -> bool {
    lp.binds
        .iter()
        .enumerate()
        .all(|(b, bind)| b == skip_bind || probe_bind(plan, st, bind, c))
}

/// The engine's product: 0 annihilates (`0 * inf == 0`), as in [`Instr::Mul`].
#[inline]
fn times(x: f64, y: f64) -> f64 {
    if x == 0.0 || y == 0.0 {
        0.0
    } else {
        x * y
    }
}

/// Looks coordinate `c` up in one bind's level; false when the coordinate can be skipped.
#[inline]
fn probe_bind(plan: &Plan, st: &mut State, bind: &Bind, c: u32) -> bool {
    let level = &plan.accs[bind.access].tensor.levels[bind.mode];
    let pos = &mut st.pos[bind.access];
    let q = level.lookup(pos[bind.mode], c);
    pos[bind.mode + 1] = q;
    if q == FILL && bind.skip_if_missing {
        return false;
    }
    if bind.skip_fill_value && q != FILL {
        let t = plan.accs[bind.access].tensor;
        if t.vals[q] == t.fill {
            return false;
        }
    }
    true
}

fn level(plan: &Plan, st: &mut State, d: usize) {
    if d == plan.levels.len() {
        for a in 0..plan.accs.len() {
            st.regs[a] = access_value(plan, st, a);
        }
        let v = plan.program.run(&mut st.regs);
        if plan.local_at.is_some() {
            st.acc = match plan.agg {
                Some(agg) => agg.combine(st.acc, v),
                None => v,
            };
        } else {
            write_cell(plan, st, v, true);
        }
        return;
    }
    let len = walk_len(plan, st, d);
    walk_range(plan, st, d, 0, len);
    account_skipped(plan, st, d, len);
}

/// The level `bind` walks and its parent position under the current outer coordinates.
#[inline(always)]
fn bound_level<'p>(plan: &'p Plan, st: &State, bind: &Bind) -> (&'p Level, usize) {
    let level = &plan.accs[bind.access].tensor.levels[bind.mode];
    (level, st.pos[bind.access][bind.mode])
}

/// How many coordinates level `d` walks under the current outer coordinates (a union's
/// coordinates are left in `st.union_buf[d]` for [`walk_range`]).
fn walk_len(plan: &Plan, st: &mut State, d: usize) -> usize {
    let lp = &plan.levels[d];
    match &lp.walk {
        Walk::Leader(b) => {
            let bind = &lp.binds[*b];
            let (level, parent) = bound_level(plan, st, bind);
            if parent == FILL {
                0
            } else if level.format == LevelFormat::Dense {
                lp.dim
            } else {
                level.fiber(parent).len()
            }
        }
        Walk::Union(list) => {
            let mut coords = std::mem::take(&mut st.union_buf[d]);
            coords.clear();
            let mut dense = false;
            for &b in list {
                let (level, parent) = bound_level(plan, st, &lp.binds[b]);
                if parent == FILL {
                    continue;
                }
                if level.format == LevelFormat::Dense {
                    dense = true;
                    break;
                }
                coords.extend_from_slice(level.fiber(parent));
            }
            if dense {
                coords.clear();
                coords.extend(0..lp.dim as u32);
            } else {
                coords.sort_unstable();
                coords.dedup();
            }
            let len = coords.len();
            st.union_buf[d] = coords;
            len
        }
        Walk::Gallop { fibers, .. } => {
            // The driver: the shortest fiber under the current parents (0 if one is empty).
            let mut best = (usize::MAX, 0usize);
            for (f, &b) in fibers.iter().enumerate() {
                let (level, parent) = bound_level(plan, st, &lp.binds[b]);
                let len = level.fiber(parent).len();
                if len < best.0 {
                    best = (len, f);
                }
            }
            st.driver[d] = best.1;
            best.0
        }
        Walk::All => lp.dim,
    }
}

/// Visits the walk positions `lo..hi` of level `d` (see [`walk_len`]).
fn walk_range(plan: &Plan, st: &mut State, d: usize, lo: usize, hi: usize) {
    let lp = &plan.levels[d];
    match &lp.walk {
        Walk::Leader(b) => {
            let bind = &lp.binds[*b];
            let (level, parent) = bound_level(plan, st, bind);
            if parent == FILL {
                return;
            }
            if level.format == LevelFormat::Dense {
                let t = plan.accs[bind.access].tensor;
                for c in lo..hi {
                    let q = parent * lp.dim + c;
                    st.pos[bind.access][bind.mode + 1] = q;
                    if bind.skip_fill_value && t.vals[q] == t.fill {
                        continue;
                    }
                    if probe(plan, st, lp, *b, c as u32) {
                        st.cur[d] = c as u32;
                        go(plan, st, d + 1);
                    }
                }
            } else {
                let fiber = level.fiber(parent);
                for (k, &c) in fiber.iter().enumerate().take(hi).skip(lo) {
                    if !lp.prefetch.is_empty() {
                        // The first entries' fibers all at once (their misses overlap),
                        // then one entry ahead per step.
                        let ahead = if k == lo {
                            lo + 1..lo + PREFETCH_AHEAD
                        } else {
                            k + PREFETCH_AHEAD - 1..k + PREFETCH_AHEAD
                        };
                        for k2 in ahead.start..ahead.end.min(hi) {
                            prefetch_fibers(plan, st, lp, *b, parent, k2, fiber);
                        }
                    }
                    st.pos[bind.access][bind.mode + 1] = level.child(parent, k, c);
                    if probe(plan, st, lp, *b, c) {
                        st.cur[d] = c;
                        go(plan, st, d + 1);
                    }
                }
            }
        }
        Walk::Union(_) => {
            let coords = std::mem::take(&mut st.union_buf[d]);
            for &c in &coords[lo..hi] {
                if probe(plan, st, lp, usize::MAX, c) {
                    st.cur[d] = c;
                    go(plan, st, d + 1);
                }
            }
            st.union_buf[d] = coords;
        }
        Walk::All => {
            for c in lo as u32..hi as u32 {
                if probe(plan, st, lp, usize::MAX, c) {
                    st.cur[d] = c;
                    go(plan, st, d + 1);
                }
            }
        }
        Walk::Gallop {
            fibers,
            probes,
            stationary,
        } => walk_intersection(plan, st, d, fibers, probes, *stationary, lo..hi),
    }
}

/// Entries ahead of the current one whose next-level fibers a sparse leader walk prefetches:
/// far enough for a memory access to complete in the meantime.
const PREFETCH_AHEAD: usize = 8;

/// Prefetches the next-level fibers of the binds `lp.prefetch` at the leader's `k`-th entry
/// (of `fiber`, under `parent`).
#[inline]
fn prefetch_fibers(
    plan: &Plan,
    st: &State,
    lp: &LevelPlan,
    leader: usize,
    parent: usize,
    k: usize,
    fiber: &[u32],
) {
    let c = fiber[k];
    for &b in &lp.prefetch {
        let bind = &lp.binds[b];
        let levels = &plan.accs[bind.access].tensor.levels;
        let q = if b == leader {
            levels[bind.mode].child(parent, k, c)
        } else {
            let p = st.pos[bind.access][bind.mode];
            if p == FILL {
                continue;
            }
            levels[bind.mode].lookup(p, c)
        };
        let next = &levels[bind.mode + 1];
        if let Some(&start) = next.ptr.get(q) {
            intersect::prefetch(&next.idx, start);
        }
    }
}

/// Visits the coordinates stored in every fiber of `fibers` (binds of level `d`), over the
/// driver's entries `part`, probing the binds `probes` at each.
fn walk_intersection(
    plan: &Plan,
    st: &mut State,
    d: usize,
    fibers: &[usize],
    probes: &[usize],
    stationary: Option<usize>,
    part: std::ops::Range<usize>,
) {
    let lp = &plan.levels[d];
    let mut lists: [&[u32]; intersect::MAX_FIBERS] = [&[]; intersect::MAX_FIBERS];
    let mut parents = [0usize; intersect::MAX_FIBERS];
    for (f, &b) in fibers.iter().enumerate() {
        let bind = &lp.binds[b];
        parents[f] = st.pos[bind.access][bind.mode];
        if parents[f] == FILL {
            return;
        }
        lists[f] = plan.accs[bind.access].tensor.levels[bind.mode].fiber(parents[f]);
    }
    let n = fibers.len();
    let driver = st.driver[d];
    // The stationary fiber scattered, when the other is not much longer (see `Marks`).
    let mut marks = None;
    if let Some(s) = stationary {
        let other = lists[1 - s];
        if !lists[s].is_empty() && other.len() <= intersect::SCATTER_RATIO * lists[s].len() {
            debug_assert!(part.start == 0 && part.end >= lists[driver].len());
            let bind = &lp.binds[fibers[s]];
            let level = &plan.accs[bind.access].tensor.levels[bind.mode];
            let start = level.ptr[parents[s]];
            let mut m = std::mem::take(&mut st.marks[d]);
            m.hold(
                &level.idx,
                parents[s],
                start..start + lists[s].len(),
                lp.dim,
            );
            marks = Some((s, m));
        }
    }
    if lp.sum_of_products {
        // The accesses bound above this level hold one value each for the whole walk.
        let bound_here = |a: usize| fibers.iter().any(|&b| lp.binds[b].access == a);
        let outer = (0..plan.accs.len())
            .filter(|&a| !bound_here(a))
            .fold(1.0, |v, a| times(v, access_value(plan, st, a)));
        if outer == 0.0 {
            return;
        }
        let mut values: [(&[f64], usize, &Level); intersect::MAX_FIBERS] =
            [(&[], 0, &plan.accs[0].tensor.levels[0]); intersect::MAX_FIBERS];
        for (f, &b) in fibers.iter().enumerate() {
            let bind = &lp.binds[b];
            let t = plan.accs[bind.access].tensor;
            values[f] = (&t.vals, parents[f], &t.levels[bind.mode]);
        }
        let mut total = 0.0;
        for_each_match(marks.as_ref(), &lists[..n], driver, part, |c, ks| {
            let mut v = outer;
            for (f, &k) in ks.iter().enumerate() {
                let (vals, parent, level) = values[f];
                v = times(v, vals[level.child(parent, k, c)]);
            }
            total += v;
        });
        st.acc += total;
        if let Some((_, m)) = marks {
            st.marks[d] = m;
        }
        return;
    }
    for_each_match(marks.as_ref(), &lists[..n], driver, part, |c, ks| {
        for (f, &b) in fibers.iter().enumerate() {
            let bind = &lp.binds[b];
            let t = plan.accs[bind.access].tensor;
            let q = t.levels[bind.mode].child(parents[f], ks[f], c);
            if bind.skip_fill_value && t.vals[q] == t.fill {
                return;
            }
            st.pos[bind.access][bind.mode + 1] = q;
        }
        if !probes
            .iter()
            .all(|&b| probe_bind(plan, st, &lp.binds[b], c))
        {
            return;
        }
        st.cur[d] = c;
        go(plan, st, d + 1);
    });
    if let Some((_, m)) = marks {
        st.marks[d] = m;
    }
}

/// Calls `found(c, ks)` for every coordinate `c` stored in all of `lists`, in increasing
/// order, `ks[f]` its position in `lists[f]`: through `marks` (the stationary fiber's index
/// and its scatter) when given, else by [`intersect::intersect`] over the driver's `part`.
#[inline]
fn for_each_match(
    marks: Option<&(usize, intersect::Marks)>,
    lists: &[&[u32]],
    driver: usize,
    part: std::ops::Range<usize>,
    mut found: impl FnMut(u32, &[usize]),
) {
    match marks {
        Some(&(s, ref m)) => {
            let mut ks = [0usize; 2];
            m.intersect(lists[1 - s], |c, k, j| {
                ks[s] = k;
                ks[1 - s] = j;
                found(c, &ks);
            });
        }
        None => intersect::intersect(lists, driver, part, found),
    }
}

/// Adds what the coordinates level `d` did not visit contribute (see [`Skipped`]).
fn account_skipped(plan: &Plan, st: &mut State, d: usize, visited: usize) {
    let lp = &plan.levels[d];
    if let Skipped::Repeat(node) = &lp.skipped {
        let skipped = (lp.dim - visited.min(lp.dim)) as f64 * lp.inner_cells;
        if skipped > 0.0 {
            let agg = plan.agg.expect("repeat only under an aggregate");
            let c = eval_node(plan, st, node);
            let contribution = agg.repeat(c, skipped);
            if plan.local_at.is_some() {
                st.acc = agg.combine(st.acc, contribution);
            } else {
                write_cell(plan, st, contribution, true);
            }
        }
    }
}
