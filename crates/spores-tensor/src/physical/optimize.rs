//! Galley's physical optimizer (§6): for each logical query, a loop order (branch-and-bound
//! over prefixes, §6.1), an output mode order and level formats (§6.2), a leader per loop
//! (§6.3), transposition kernels for discordant accesses, and common sub-expression
//! elimination over the finished kernels (§6.4).

use std::collections::{BTreeMap, HashMap};

use crate::plan_ast::{
    Access, Expr, Idx, LevelFormat, LogicalPlan, LogicalQuery, MapOp, PhysExpr, PhysicalPlan,
    PhysicalQuery, Protocol,
};
use crate::stats::{expr_stats, Estimator, InputStats, TensorStats};
use crate::TensorError;

/// Options of [`optimize`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PhysicalOptions {
    pub estimator: Estimator,
    /// A level whose estimated fill fraction (non-fill per slot, given the outer levels) is
    /// above this is stored dense (Galley's cutoff: 0.25).
    pub dense_cutoff: f64,
    /// Above this (and not dense), a bytemap; below, a sparse level (Galley: 0.01).
    pub bytemap_cutoff: f64,
    /// Dense and bytemap levels allocate every slot: never more than this many per level.
    pub max_dense_slots: f64,
    /// Exact loop-order search up to this many loop indices; greedy above.
    pub max_exact_loops: usize,
    /// Cost of transposing an input, per non-fill entry, in units of one loop iteration: a
    /// transposition reads and writes every entry and sorts them, and the transposed copy is
    /// then read again by the kernel. At 1 the small star-join products `S W1` chose to
    /// transpose `S` to save the outer loop's `|S|`-row walk (`(j,h,s)` over `(s,j,h)`), and
    /// the transposed kernels then missed the matrix-product fast path (9 ms vs 0.1 ms).
    pub transpose_weight: f64,
    /// Levels of more slots than this (8-byte values: the last-level cache) are given the
    /// format that moves the fewest bytes rather than by fill fraction.
    pub cached_slots: f64,
    /// Cost of adding one body entry into the result by random access (an aggregate loop
    /// outside an output loop), in units of one loop iteration: a hash or scattered dense
    /// update where a local sum would do.
    pub scattered_write_weight: f64,
}

impl Default for PhysicalOptions {
    fn default() -> PhysicalOptions {
        PhysicalOptions {
            estimator: Estimator::Chain,
            dense_cutoff: 0.25,
            bytemap_cutoff: 0.01,
            max_dense_slots: (1u64 << 30) as f64,
            max_exact_loops: 12,
            transpose_weight: 2.0,
            cached_slots: (1u64 << 22) as f64,
            scattered_write_weight: 2.0,
        }
    }
}

/// Statistics of every input access and plan result, for the physical decisions.
struct Stats<'a> {
    inputs: &'a InputStats,
    estimator: Estimator,
    /// Result name → (declared index order, statistics).
    results: HashMap<String, (Vec<Idx>, TensorStats)>,
    sizes: HashMap<Idx, usize>,
}

impl Stats<'_> {
    fn leaf(&self, e: &Expr) -> Result<TensorStats, TensorError> {
        match e {
            Expr::Input { tensor, idxs } => Ok(self.inputs.access(tensor, idxs, self.estimator)?),
            Expr::Alias { name, idxs } => {
                let (declared, s) = self
                    .results
                    .get(name)
                    .ok_or_else(|| TensorError::Unknown(name.clone()))?;
                if declared == idxs {
                    return Ok(s.clone());
                }
                Ok(
                    s.rename(&|i: &Idx| match declared.iter().position(|d| d == i) {
                        Some(k) => idxs[k].clone(),
                        None => i.clone(),
                    })?,
                )
            }
            _ => unreachable!("leaves are accesses"),
        }
    }

    fn expr(&self, e: &Expr) -> Result<TensorStats, TensorError> {
        expr_stats(e, self.estimator, &mut |l| self.leaf(l), &|i| {
            self.sizes.get(i).copied()
        })
    }
}

/// An access of a logical query body, in left-to-right order.
#[derive(Clone, Debug)]
struct Acc {
    name: String,
    is_alias: bool,
    idxs: Vec<Idx>,
    /// Whether this access's fill makes the whole body fill (it may lead a loop).
    covers: bool,
    /// Non-fill entries (transposition cost of an input).
    nnz: f64,
    /// A symmetric input matrix read with two distinct indices: read swapped, it is its own
    /// transpose (no copy needed).
    symmetric: bool,
}

fn collect_accesses(
    e: &Expr,
    covers: bool,
    st: &Stats,
    out: &mut Vec<Acc>,
) -> Result<(), TensorError> {
    match e {
        Expr::Input { tensor: name, idxs } | Expr::Alias { name, idxs } => {
            let s = st.leaf(e)?;
            let is_alias = matches!(e, Expr::Alias { .. });
            out.push(Acc {
                name: name.clone(),
                is_alias,
                idxs: idxs.clone(),
                covers,
                nnz: s.estimate(),
                symmetric: !is_alias
                    && idxs.len() == 2
                    && idxs[0] != idxs[1]
                    && st.inputs.is_symmetric(name),
            });
        }
        Expr::Map { op, args } => {
            let ann = op.props().annihilator;
            // `x ^ n` with a positive literal `n` is 0 where `x` is 0 (a key self-join
            // collapsed to `L^2`, see `logical::keyjoin`): the base covers like a factor.
            if let (MapOp::Pow, [base, Expr::Literal(n)]) = (op, args.as_slice()) {
                if *n > 0.0 && st.expr(base)?.fill() == 0.0 {
                    return collect_accesses(base, covers, st, out);
                }
            }
            for a in args {
                // A child whose fill is the operator's annihilator forces the result to it;
                // the only child of a unary map (`relu(L * ..)`) forces it to the map's fill.
                let child_covers = covers
                    && (args.len() == 1
                        || match ann {
                            Some(x) => {
                                let f = st.expr(a)?.fill();
                                f == x || (f.is_nan() && x.is_nan())
                            }
                            None => false,
                        });
                collect_accesses(a, child_covers, st, out)?;
            }
        }
        Expr::Literal(_) => {}
        Expr::Agg { .. } => {
            return Err(TensorError::Invalid(
                "a logical query body holds an aggregate".to_string(),
            ))
        }
    }
    Ok(())
}

/// Whether `acc`'s stored index order follows `order` (indices not yet in `order` last).
fn concordant(acc_idxs: &[Idx], order: &[Idx]) -> bool {
    let pos: Vec<usize> = acc_idxs
        .iter()
        .map(|i| order.iter().position(|o| o == i).unwrap_or(usize::MAX))
        .collect();
    pos.windows(2).all(|w| w[0] <= w[1])
}

/// Loop-order search for one query: cost of an order = Σ over prefixes of the estimated
/// non-fill count of the body projected to the prefix, plus the size of every input that is
/// not concordant (it must be transposed first), plus the cache lines of accesses too large
/// for the cache, per entry into their fibers, plus the scattered writes of an aggregate
/// loop placed outside an output loop. Greedy for the bound, then a dynamic program over
/// (set of looped indices, set of discordant inputs), pruned by the bound.
fn choose_loop_order(
    loops: &[Idx],
    outputs: &[Idx],
    body: &TensorStats,
    accs: &[Acc],
    sizes: &dyn Fn(&Idx) -> f64,
    options: &PhysicalOptions,
) -> Vec<Idx> {
    let n = loops.len();
    if n <= 1 {
        return loops.to_vec();
    }
    let mut prefix_cost: HashMap<u64, f64> = HashMap::new();
    let mut cost_of = |mask: u64| -> f64 {
        *prefix_cost.entry(mask).or_insert_with(|| {
            let keep: Vec<Idx> = (0..n)
                .filter(|k| mask & (1 << k) != 0)
                .map(|k| loops[k].clone())
                .collect();
            body.project(&keep).estimate().max(1.0)
        })
    };
    // Accesses that become discordant when `i` is added after the set `mask`.
    let access_masks: Vec<Vec<usize>> = accs
        .iter()
        .map(|a| {
            a.idxs
                .iter()
                .filter_map(|i| loops.iter().position(|l| l == i))
                .collect()
        })
        .collect();
    let breaks = |mask: u64, i: usize| -> u64 {
        let mut out = 0u64;
        for (a, pos) in access_masks.iter().enumerate() {
            if let Some(at) = pos.iter().position(|&p| p == i) {
                if pos[at + 1..].iter().any(|&p| mask & (1 << p) != 0) {
                    out |= 1 << a;
                }
            }
        }
        out
    };
    let transpose_cost = |set: u64| -> f64 {
        (0..accs.len())
            .filter(|a| set & (1 << a) != 0 && !accs[*a].is_alias && !accs[*a].symmetric)
            .map(|a| accs[a].nnz * options.transpose_weight)
            .sum()
    };
    // Locality: an access too large for the cache costs a cache line per line of each
    // fiber it is entered at, once per iteration of the loop binding its first index (its
    // outermost loop). Binding that index early lets one fiber serve the loops inside (the
    // wedge matrix of a 4-cycle entered per vertex rather than per edge).
    let lines_per_fiber: Vec<f64> = accs
        .iter()
        .map(|a| {
            if a.nnz <= options.cached_slots || a.idxs.len() < 2 {
                return 0.0;
            }
            let first = a.idxs.iter().map(sizes).fold(f64::INFINITY, f64::min);
            (a.nnz / first.max(1.0) * ENTRY_BYTES / CACHE_LINE_BYTES).max(1.0)
        })
        .collect();
    let locality = |mask: u64, k: usize, entered: f64| -> f64 {
        access_masks
            .iter()
            .zip(&lines_per_fiber)
            .filter(|(pos, lines)| {
                **lines > 0.0 && pos.contains(&k) && pos.iter().all(|&p| mask & (1 << p) == 0)
            })
            .map(|(_, lines)| entered * lines)
            .sum()
    };
    // An aggregate loop outside output loops spanning more cells than the cache holds: the
    // result's cells are no longer finished one after another, so every body entry is added
    // into a large accumulator by random access (a hash table) instead of a local sum. (A
    // few output cells inside, `X[i,j]` over a short `j`, stay cached: no charge.)
    let output_mask: u64 = (0..n)
        .filter(|&k| outputs.contains(&loops[k]))
        .fold(0, |m, k| m | (1 << k));
    let body_entries = cost_of((1u64 << n) - 1);
    let scattered = |mask: u64, k: usize| -> f64 {
        let aggregate = output_mask & (1 << k) == 0;
        let cells_left: f64 = (0..n)
            .filter(|&o| output_mask & !mask & !(1 << k) & (1 << o) != 0)
            .map(|o| sizes(&loops[o]))
            .product();
        if aggregate && cells_left > options.cached_slots {
            body_entries * options.scattered_write_weight
        } else {
            0.0
        }
    };
    // Greedy bound.
    let mut mask = 0u64;
    let mut disc = 0u64;
    let mut order = vec![];
    let mut bound = 0.0;
    while order.len() < n {
        let (best_i, best_c) = (0..n)
            .filter(|k| mask & (1 << k) == 0)
            .map(|k| {
                let nd = disc | breaks(mask, k);
                let entered = cost_of(mask | (1 << k));
                let c = entered
                    + transpose_cost(nd & !disc)
                    + locality(mask, k, entered)
                    + scattered(mask, k);
                (k, c)
            })
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .expect("an index is left");
        disc |= breaks(mask, best_i);
        mask |= 1 << best_i;
        bound += best_c;
        order.push(best_i);
    }
    if n > options.max_exact_loops || accs.len() > 64 {
        return order.iter().map(|&k| loops[k].clone()).collect();
    }
    let mut best_order = order;
    let mut layer: BTreeMap<(u64, u64), (f64, Vec<usize>)> = BTreeMap::new();
    layer.insert((0, 0), (0.0, vec![]));
    for _ in 0..n {
        let mut next: BTreeMap<(u64, u64), (f64, Vec<usize>)> = BTreeMap::new();
        for ((mask, disc), (cost, ord)) in layer {
            for k in 0..n {
                if mask & (1 << k) != 0 {
                    continue;
                }
                let nd = disc | breaks(mask, k);
                let entered = cost_of(mask | (1 << k));
                let c = cost
                    + entered
                    + transpose_cost(nd & !disc)
                    + locality(mask, k, entered)
                    + scattered(mask, k);
                if c > bound {
                    continue;
                }
                let key = (mask | (1 << k), nd);
                if next.get(&key).is_none_or(|(old, _)| c < *old) {
                    let mut o = ord.clone();
                    o.push(k);
                    next.insert(key, (c, o));
                }
            }
        }
        layer = next;
    }
    if let Some((c, o)) = layer.into_values().min_by(|a, b| a.0.total_cmp(&b.0)) {
        if c <= bound {
            best_order = o;
        }
    }
    best_order.iter().map(|&k| loops[k].clone()).collect()
}

/// A stored entry's coordinate and value, and the unit the memory system moves.
const ENTRY_BYTES: f64 = 12.0;
const CACHE_LINE_BYTES: f64 = 64.0;

/// Bytes a level moves per slot or per stored entry once it no longer fits in cache:
/// a Dense slot is zeroed and later read whole (8 + 8); a Bytemap slot costs its mask byte
/// twice and the slot it positions below (the next level's pointer or the value, 8 bytes,
/// zeroed: [`FiberTensor::from_sorted`] sizes them by slots, not entries), and each of its
/// entries a coordinate, a value and the mask update (4 + 8 + 4); a sorted entry its
/// coordinate and value, written unordered and moved again when sorted ((4 + 8) * 2).
/// Beyond the cache a Bytemap therefore never beats both others; the 2-byte slot price
/// this replaced counted only the mask, which was cheap only while the allocator handed out
/// fresh zero pages that untouched slots never faulted in.
///
/// [`FiberTensor::from_sorted`]: crate::engine::fibertree::FiberTensor::from_sorted
const DENSE_SLOT_BYTES: f64 = 16.0;
const BYTEMAP_SLOT_BYTES: f64 = 10.0;
const BYTEMAP_ENTRY_BYTES: f64 = 16.0;
const SORTED_ENTRY_BYTES: f64 = 24.0;

/// The format of a level with `slots` positions (more than the cache holds) and `nnz`
/// estimated entries that moves the fewest bytes: Dense above 2/3 full, a sorted list below
/// (a 10^8-slot wedge intermediate holding 4*10^6 entries is 1.6 GB dense, 0.1 GB sorted).
pub fn format_by_memory_traffic(nnz: f64, slots: f64, options: &PhysicalOptions) -> LevelFormat {
    let fits = slots <= options.max_dense_slots;
    let dense = if fits {
        slots * DENSE_SLOT_BYTES
    } else {
        f64::INFINITY
    };
    let bytemap = if fits {
        slots * BYTEMAP_SLOT_BYTES + nnz * BYTEMAP_ENTRY_BYTES
    } else {
        f64::INFINITY
    };
    let sorted = nnz * SORTED_ENTRY_BYTES;
    if dense <= bytemap && dense <= sorted {
        LevelFormat::Dense
    } else if bytemap <= sorted {
        LevelFormat::Bytemap
    } else {
        LevelFormat::SortedList
    }
}

/// Level formats of an output stored in `out_idxs` order, written by loops in `loop_order`.
/// Levels that fit in cache follow Galley's fractions (`dense_cutoff`, `bytemap_cutoff`);
/// larger ones are priced by the memory they move ([`format_by_memory_traffic`]).
fn choose_formats(
    out: &TensorStats,
    out_idxs: &[Idx],
    loop_order: &[Idx],
    sizes: &HashMap<Idx, usize>,
    options: &PhysicalOptions,
) -> Vec<LevelFormat> {
    let mut formats = vec![];
    // A level has one fiber per position of the level above: its entries if that level is
    // a sorted list or hash, every slot if it is Dense or a Bytemap.
    let mut outer_positions = 1.0f64;
    for k in 0..out_idxs.len() {
        let prefix = &out_idxs[..=k];
        let nnz = out.project(prefix).estimate();
        let dim = sizes.get(&out_idxs[k]).copied().unwrap_or(1).max(1) as f64;
        let fibers = outer_positions.max(1.0);
        let fraction = nnz / (fibers * dim);
        let slots = fibers * dim;
        // Sequential writes only if the output's modes so far are the outermost loops.
        let sequential = loop_order.len() > k && loop_order[..=k] == *prefix;
        let f = if slots > options.cached_slots {
            format_by_memory_traffic(nnz, slots, options)
        } else if fraction > options.dense_cutoff && slots <= options.max_dense_slots {
            LevelFormat::Dense
        } else if fraction > options.bytemap_cutoff && slots <= options.max_dense_slots {
            LevelFormat::Bytemap
        } else if sequential {
            LevelFormat::SortedList
        } else {
            LevelFormat::Hash
        };
        outer_positions = match f {
            LevelFormat::Dense | LevelFormat::Bytemap => slots,
            LevelFormat::SortedList | LevelFormat::Hash => nnz,
        };
        formats.push(f);
    }
    formats
}

/// Optimizes every query of `plan` into kernels (see the module doc).
pub fn optimize(
    plan: &LogicalPlan,
    inputs: &InputStats,
    options: &PhysicalOptions,
) -> Result<PhysicalPlan, TensorError> {
    let mut st = Stats {
        inputs,
        estimator: options.estimator,
        results: HashMap::new(),
        sizes: HashMap::new(),
    };
    // Pass 1: statistics and loop order of every query (intermediates will be stored in the
    // order their consumer loops over them, so only inputs pay for transposition here).
    struct Planned {
        out: TensorStats,
        accs: Vec<Acc>,
        loop_order: Vec<Idx>,
    }
    let mut planned: Vec<Planned> = vec![];
    for q in &plan.queries {
        register_sizes(&mut st, q)?;
        let body = st.expr(&q.body)?;
        let out = match q.agg {
            Some(g) => {
                let over: Vec<(Idx, usize)> = q
                    .agg_idxs
                    .iter()
                    .map(|i| (i.clone(), st.sizes.get(i).copied().unwrap_or(1)))
                    .collect();
                body.aggregate(g, &over)
            }
            None => body.clone(),
        };
        let mut accs = vec![];
        collect_accesses(&q.body, true, &st, &mut accs)?;
        let mut loops: Vec<Idx> = q.body.free_idxs().into_iter().collect();
        for i in q.idxs.iter().chain(&q.agg_idxs) {
            if !loops.contains(i) {
                loops.push(i.clone());
            }
        }
        let sizes = |i: &Idx| st.sizes.get(i).map_or(1.0, |&d| d as f64);
        let loop_order = choose_loop_order(&loops, &q.idxs, &body, &accs, &sizes, options);
        st.results
            .insert(q.name.clone(), (q.idxs.clone(), out.clone()));
        planned.push(Planned {
            out,
            accs,
            loop_order,
        });
    }
    // Pass 2: storage order of each result: the user's order for program outputs, else the
    // order its first consumer loops in.
    let outputs: Vec<&str> = plan.outputs.iter().map(|(_, q)| q.as_str()).collect();
    let mut stored: HashMap<String, Vec<Idx>> = HashMap::new();
    for (k, q) in plan.queries.iter().enumerate() {
        let mut order = q.idxs.clone();
        if !outputs.contains(&q.name.as_str()) {
            let consumer = plan.queries[k + 1..]
                .iter()
                .zip(&planned[k + 1..])
                .find_map(|(c, p)| {
                    p.accs
                        .iter()
                        .find(|a| a.is_alias && a.name == q.name)
                        .map(|a| (a.idxs.clone(), p.loop_order.clone(), c))
                });
            if let Some((acc_idxs, lo, _)) = consumer {
                let mut modes: Vec<usize> = (0..q.idxs.len()).collect();
                modes.sort_by_key(|&m| {
                    lo.iter()
                        .position(|l| *l == acc_idxs[m])
                        .unwrap_or(usize::MAX)
                });
                order = modes.iter().map(|&m| q.idxs[m].clone()).collect();
            }
        }
        stored.insert(q.name.clone(), order);
    }
    // Pass 3: kernels.
    let mut out = PhysicalPlan {
        queries: vec![],
        outputs: plan.outputs.clone(),
    };
    let mut transposes: HashMap<(String, Vec<Idx>), (String, Vec<LevelFormat>)> = HashMap::new();
    let mut declared: HashMap<String, Vec<Idx>> = HashMap::new();
    // Level formats of every result in its stored order (what its consumers read).
    let mut result_formats: HashMap<String, Vec<LevelFormat>> = HashMap::new();
    for (q, p) in plan.queries.iter().zip(&planned) {
        declared.insert(q.name.clone(), q.idxs.clone());
        let mut prelude = vec![];
        // Each access as the kernel reads it: in a mode order concordant with the loops
        // (a symmetric matrix swapped, anything else discordant transposed first).
        let mut reads: Vec<Read> = vec![];
        for a in &p.accs {
            let (name, is_alias, idxs, formats) = if a.is_alias {
                let decl = &declared[&a.name];
                let store = &stored[&a.name];
                let idxs: Vec<Idx> = store
                    .iter()
                    .map(|s| a.idxs[decl.iter().position(|d| d == s).expect("declared")].clone())
                    .collect();
                let formats = result_formats[&a.name].clone();
                (a.name.clone(), true, idxs, formats)
            } else {
                let s = st.leaf(&access_expr(a)).expect("stats computed in pass 1");
                let formats = input_formats(&s, &a.idxs, &st.sizes);
                (a.name.clone(), false, a.idxs.clone(), formats)
            };
            let read = if concordant(&idxs, &p.loop_order) {
                Read {
                    name,
                    is_alias,
                    idxs,
                    formats,
                }
            } else if a.symmetric {
                Read {
                    name,
                    is_alias,
                    idxs: vec![idxs[1].clone(), idxs[0].clone()],
                    formats,
                }
            } else {
                let mut sorted = idxs.clone();
                sorted.sort_by_key(|i| p.loop_order.iter().position(|l| l == i));
                let perm: Vec<usize> = sorted
                    .iter()
                    .map(|s| idxs.iter().position(|i| i == s).expect("same indices"))
                    .collect();
                let key = (name.clone(), positional(&perm));
                let (t_name, t_formats) = match transposes.get(&key) {
                    Some(t) => t.clone(),
                    None => {
                        let t = format!("{name}__T{}", transposes.len() + 1);
                        let src_stats = st.leaf(&access_expr(a)).expect("stats");
                        let formats =
                            choose_formats(&src_stats, &sorted, &idxs, &st.sizes, options);
                        prelude.push(PhysicalQuery::transpose(
                            t.clone(),
                            &name,
                            is_alias,
                            &idxs,
                            sorted.clone(),
                            formats.clone(),
                        ));
                        transposes.insert(key, (t.clone(), formats.clone()));
                        (t, formats)
                    }
                };
                Read {
                    name: t_name,
                    is_alias: true,
                    idxs: sorted,
                    formats: t_formats,
                }
            };
            reads.push(read);
        }
        let protocols = choose_protocols(&p.loop_order, &p.accs, &reads, &st);
        let mut next = reads.into_iter().zip(protocols);
        let body = to_phys(&q.body, &mut |_| {
            let (r, protocols) = next.next().expect("one access per leaf");
            PhysExpr::Access(Access {
                is_alias: r.is_alias,
                name: r.name,
                idxs: r.idxs,
                protocols,
            })
        });
        let output_idxs = stored[&q.name].clone();
        let output_formats =
            choose_formats(&p.out, &output_idxs, &p.loop_order, &st.sizes, options);
        result_formats.insert(q.name.clone(), output_formats.clone());
        out.queries.extend(prelude);
        out.queries.push(PhysicalQuery {
            name: q.name.clone(),
            loop_order: p.loop_order.clone(),
            agg: q.agg,
            agg_idxs: q.agg_idxs.clone(),
            body,
            output_idxs,
            output_formats,
        });
    }
    Ok(eliminate_common_subexpressions(out))
}

/// An access as a kernel reads it (see pass 3 of [`optimize`]).
struct Read {
    name: String,
    is_alias: bool,
    /// Concordant with the kernel's loop order.
    idxs: Vec<Idx>,
    /// Level format of each mode of `idxs`.
    formats: Vec<LevelFormat>,
}

/// The formats the engine gives an input (`engine::fibertree::auto_formats`: a level is
/// Dense when at least half of its positions are stored, else a sorted list), from the
/// statistics of its access in stored order.
fn input_formats(s: &TensorStats, idxs: &[Idx], sizes: &HashMap<Idx, usize>) -> Vec<LevelFormat> {
    let mut formats = vec![];
    let mut parents = 1.0f64;
    for k in 0..idxs.len() {
        let distinct = s.project(&idxs[..=k]).estimate();
        let dim = sizes.get(&idxs[k]).copied().unwrap_or(1) as f64;
        let (format, positions) =
            crate::engine::fibertree::auto_level_format(parents, dim, distinct);
        formats.push(format);
        parents = positions;
    }
    formats
}

/// Cost of looking one coordinate up in a level of `format` whose fibers hold about `len`
/// coordinates, in units of one loop iteration: Dense and Bytemap index an array, Hash
/// hashes and probes a table, SortedList bisects (each step a dependent load and an
/// unpredictable branch).
fn lookup_cost(format: LevelFormat, len: f64) -> f64 {
    match format {
        LevelFormat::Dense | LevelFormat::Bytemap => 1.0,
        LevelFormat::Hash => 3.0,
        LevelFormat::SortedList => 1.0 + len.max(1.0).log2(),
    }
}

/// Protocols of every access (Galley §6.3's leader/follower merge, plus galloping
/// intersection): at each loop, of the covering accesses that bind its index, either the
/// one with the fewest coordinates leads and the others are looked up, or all those with
/// sorted levels are intersected ([`Protocol::Gallop`]), whichever the cost model prices
/// lower. Per coordinate of the walk, a lookup costs [`lookup_cost`]; an intersection
/// walks the shortest fiber and gallops in each other, `1 + log2(1 + ratio)` per step.
fn choose_protocols(
    loop_order: &[Idx],
    accs: &[Acc],
    reads: &[Read],
    st: &Stats,
) -> Vec<Vec<Protocol>> {
    let mut protocols: Vec<Vec<Protocol>> = reads
        .iter()
        .map(|r| vec![Protocol::Lookup; r.idxs.len()])
        .collect();
    let stats: Vec<TensorStats> = accs
        .iter()
        .map(|a| st.leaf(&access_expr(a)).expect("stats computed in pass 1"))
        .collect();
    for (depth, i) in loop_order.iter().enumerate() {
        let outer = &loop_order[..depth];
        // (access, mode, estimated fiber length, format) of every read binding `i`.
        let binds: Vec<(usize, usize, f64, LevelFormat)> = reads
            .iter()
            .enumerate()
            .filter_map(|(k, r)| {
                let m = r.idxs.iter().position(|x| x == i)?;
                let len = stats[k]
                    .conditional_estimate(std::slice::from_ref(i), outer)
                    .max(1.0);
                Some((k, m, len, r.formats[m]))
            })
            .collect();
        let lookups = |skip: &dyn Fn(usize) -> bool| -> f64 {
            binds
                .iter()
                .filter(|b| !skip(b.0))
                .map(|b| lookup_cost(b.3, b.2))
                .sum()
        };
        // The leader: the covering access with the fewest coordinates given the outer loops.
        let Some(leader) = binds
            .iter()
            .filter(|b| accs[b.0].covers)
            .min_by(|a, b| a.2.total_cmp(&b.2))
        else {
            continue;
        };
        let leader_cost = leader.2 * (1.0 + lookups(&|k| k == leader.0));
        let sorted: Vec<&(usize, usize, f64, LevelFormat)> = binds
            .iter()
            .filter(|b| accs[b.0].covers && b.3 != LevelFormat::Dense)
            .collect();
        let gallop_cost = if sorted.len() >= 2 && sorted.len() <= MAX_GALLOP_FIBERS {
            let shortest = sorted.iter().map(|b| b.2).fold(f64::INFINITY, f64::min);
            let steps: f64 = sorted
                .iter()
                .map(|b| 1.0 + (1.0 + b.2 / shortest).log2())
                .sum();
            // The shortest fiber's own walk counts once, not as a gallop.
            let walk = steps - 1.0;
            shortest * (walk + lookups(&|k| sorted.iter().any(|b| b.0 == k)))
        } else {
            f64::INFINITY
        };
        if gallop_cost < leader_cost {
            for b in &sorted {
                protocols[b.0][b.1] = Protocol::Gallop;
            }
        } else {
            protocols[leader.0][leader.1] = Protocol::Iterate;
        }
    }
    protocols
}

/// Most accesses one intersection takes (the engine keeps their positions on the stack).
const MAX_GALLOP_FIBERS: usize = crate::engine::intersect::MAX_FIBERS;

fn positional(perm: &[usize]) -> Vec<Idx> {
    perm.iter().map(|p| Idx::new(&p.to_string())).collect()
}

fn access_expr(a: &Acc) -> Expr {
    if a.is_alias {
        Expr::alias(&a.name, a.idxs.clone())
    } else {
        Expr::input(&a.name, a.idxs.clone())
    }
}

fn to_phys(e: &Expr, leaf: &mut dyn FnMut(&Expr) -> PhysExpr) -> PhysExpr {
    match e {
        Expr::Input { .. } | Expr::Alias { .. } => leaf(e),
        Expr::Literal(v) => PhysExpr::Literal(*v),
        Expr::Map { op, args } => PhysExpr::Map {
            op: op.clone(),
            args: args.iter().map(|a| to_phys(a, leaf)).collect(),
        },
        Expr::Agg { .. } => unreachable!("checked in pass 1"),
    }
}

fn register_sizes(st: &mut Stats, q: &LogicalQuery) -> Result<(), TensorError> {
    let results = &st.results;
    let inputs = st.inputs;
    let dims_of = |name: &str| {
        results
            .get(name)
            .map(|(idxs, s)| idxs.iter().map(|i| s.dim(i).unwrap_or(1)).collect())
            .or_else(|| inputs.dims(name))
    };
    let sizes = crate::reference::index_sizes(&q.body, &dims_of)
        .map_err(|e| TensorError::Invalid(format!("query {}: {e}", q.name)))?;
    st.sizes.extend(sizes.into_iter().map(|(i, (d, _))| (i, d)));
    Ok(())
}

/// §6.4: a kernel identical to an earlier one up to index names is dropped, and references to
/// it (and program outputs naming it) are pointed at the earlier one.
pub fn eliminate_common_subexpressions(plan: PhysicalPlan) -> PhysicalPlan {
    let mut seen: HashMap<String, String> = HashMap::new();
    let mut replaced: HashMap<String, String> = HashMap::new();
    let mut queries = vec![];
    for mut q in plan.queries {
        rename_accesses(&mut q.body, &replaced);
        let key = canonical_key(&q);
        match seen.get(&key) {
            Some(first) => {
                replaced.insert(q.name.clone(), first.clone());
            }
            None => {
                seen.insert(key, q.name.clone());
                queries.push(q);
            }
        }
    }
    let outputs = plan
        .outputs
        .into_iter()
        .map(|(o, q)| {
            let q = replaced.get(&q).cloned().unwrap_or(q);
            (o, q)
        })
        .collect();
    PhysicalPlan { queries, outputs }
}

fn rename_accesses(e: &mut PhysExpr, map: &HashMap<String, String>) {
    match e {
        PhysExpr::Access(a) => {
            if a.is_alias {
                if let Some(n) = map.get(&a.name) {
                    a.name = n.clone();
                }
            }
        }
        PhysExpr::Literal(_) => {}
        PhysExpr::Map { args, .. } => args.iter_mut().for_each(|a| rename_accesses(a, map)),
    }
}

/// The kernel with index names replaced by their loop position (so `sum[j](A[i,j])` and
/// `sum[k](A[i,k])` hash alike).
fn canonical_key(q: &PhysicalQuery) -> String {
    let canon = |i: &Idx| -> String {
        match q.loop_order.iter().position(|l| l == i) {
            Some(p) => format!("%{p}"),
            None => format!("?{i}"),
        }
    };
    fn body_key(e: &PhysExpr, canon: &dyn Fn(&Idx) -> String) -> String {
        match e {
            PhysExpr::Access(a) => format!(
                "{}{}[{}]{:?}",
                if a.is_alias { "@" } else { "$" },
                a.name,
                a.idxs.iter().map(canon).collect::<Vec<_>>().join(","),
                a.protocols
            ),
            PhysExpr::Literal(v) => format!("{v:?}"),
            PhysExpr::Map { op, args } => format!(
                "{op}({})",
                args.iter()
                    .map(|a| body_key(a, canon))
                    .collect::<Vec<_>>()
                    .join(",")
            ),
        }
    }
    format!(
        "{}|{:?}|{}|{}|{}|{:?}",
        q.loop_order.len(),
        q.agg,
        q.agg_idxs.iter().map(canon).collect::<Vec<_>>().join(","),
        body_key(&q.body, &canon),
        q.output_idxs
            .iter()
            .map(canon)
            .collect::<Vec<_>>()
            .join(","),
        q.output_formats
    )
}

/// The logical meaning of a physical plan (formats and protocols dropped, transposes as
/// pointwise copies): for checking physical plans with the reference evaluator.
pub fn to_logical(plan: &PhysicalPlan) -> LogicalPlan {
    fn expr(e: &PhysExpr) -> Expr {
        match e {
            PhysExpr::Access(a) if a.is_alias => Expr::alias(&a.name, a.idxs.clone()),
            PhysExpr::Access(a) => Expr::input(&a.name, a.idxs.clone()),
            PhysExpr::Literal(v) => Expr::Literal(*v),
            PhysExpr::Map { op, args } => Expr::map(op.clone(), args.iter().map(expr).collect()),
        }
    }
    LogicalPlan {
        queries: plan
            .queries
            .iter()
            .map(|q| LogicalQuery {
                name: q.name.clone(),
                idxs: q.output_idxs.clone(),
                agg: q.agg,
                agg_idxs: q.agg_idxs.clone(),
                body: expr(&q.body),
            })
            .collect(),
        outputs: plan.outputs.clone(),
    }
}
