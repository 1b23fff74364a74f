//! Galley's physical optimizer (§6), the driver: for each logical query, a loop order
//! ([`loop_order`](super::loop_order), §6.1), an output mode order and level formats
//! ([`formats`](super::formats), §6.2), how each access is read, transposed if discordant
//! ([`reads`](super::reads)), a leader per loop ([`protocols`](super::protocols), §6.3), and
//! common sub-expression elimination over the finished kernels ([`cse`](super::cse), §6.4).
//!
//! The passes run in this order because each decision reads the ones before it: the loop
//! orders of all queries first (a result is stored in the order its consumer loops in), then
//! storage orders, then per kernel its reads, protocols and output formats.

use std::collections::HashMap;

use super::accesses::{collect_accesses, register_sizes, Acc, Stats};
use super::cse::eliminate_common_subexpressions;
use super::formats::choose_formats;
use super::loop_order::choose_loop_order;
use super::protocols::choose_protocols;
use super::reads::{Read, Reader};
use crate::plan_ast::{
    Access, Expr, Idx, LogicalPlan, LogicalQuery, PhysExpr, PhysicalPlan, PhysicalQuery,
};
use crate::stats::{query_result_stats, Estimator, InputStats, TensorStats};
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

/// Pass 1's answer for one query: the statistics of its result, its accesses and its loops.
struct Planned {
    out: TensorStats,
    accs: Vec<Acc>,
    loop_order: Vec<Idx>,
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
    let fixed = stored_in_index_order(plan);
    // Pass 1: statistics and loop order of every query (intermediates will be stored in the
    // order their consumer loops over them, so only inputs pay for transposition here).
    let planned = plan
        .queries
        .iter()
        .map(|q| {
            let fixed = fixed.contains(q.name.as_str());
            plan_loops(&mut st, q, fixed, options)
        })
        .collect::<Result<Vec<_>, _>>()?;
    // Pass 2: storage order of each result.
    let mut reader = Reader::new(storage_orders(plan, &planned));
    // Pass 3: kernels.
    let mut out = PhysicalPlan {
        queries: vec![],
        outputs: plan.outputs.clone(),
    };
    for (q, p) in plan.queries.iter().zip(&planned) {
        out.queries.extend(kernels(q, p, &mut reader, &st, options));
    }
    Ok(eliminate_common_subexpressions(out))
}

/// The queries whose results are stored in their index order whatever their readers do:
/// the program outputs, and a query read only by a pointwise map of it in that order which
/// is one of them (`y[a,b] = sigmoid(t[a,b])`: `t` is walked in `y`'s order). Any other
/// intermediate is stored in the order its first reader loops in, chosen after it.
fn stored_in_index_order(plan: &LogicalPlan) -> std::collections::HashSet<&str> {
    let mut fixed: std::collections::HashSet<&str> =
        plan.outputs.iter().map(|(_, q)| q.as_str()).collect();
    for (k, q) in plan.queries.iter().enumerate().rev() {
        let mut reads = vec![];
        for (r, reader) in plan.queries.iter().enumerate().skip(k + 1) {
            reader.body.for_each_access(&mut |a| {
                if matches!(a, Expr::Alias { name, .. } if *name == q.name) {
                    reads.push((r, a.clone()));
                }
            });
        }
        let [(r, Expr::Alias { idxs, .. })] = reads.as_slice() else {
            continue;
        };
        let reader = &plan.queries[*r];
        let in_its_order = reader.agg.is_none() && *idxs == reader.idxs && *idxs == q.idxs;
        if in_its_order && fixed.contains(reader.name.as_str()) {
            fixed.insert(q.name.as_str());
        }
    }
    fixed
}

/// Pass 1 for one query: registers its index sizes and result statistics in `st` and
/// chooses its loop order. A result stored in its index order (`is_output`: see
/// [`stored_in_index_order`]) pays for sorting when the loops write it in another order.
fn plan_loops(
    st: &mut Stats,
    q: &LogicalQuery,
    is_output: bool,
    options: &PhysicalOptions,
) -> Result<Planned, TensorError> {
    register_sizes(st, q)?;
    let body = st.expr(&q.body)?;
    let out = query_result_stats(&body, q.agg, &q.agg_idxs, &|i| {
        st.sizes.get(i).copied().unwrap_or(1)
    });
    let mut accs = vec![];
    collect_accesses(&q.body, true, st, &mut accs)?;
    let mut loops: Vec<Idx> = q.body.free_idxs().into_iter().collect();
    for i in q.idxs.iter().chain(&q.agg_idxs) {
        if !loops.contains(i) {
            loops.push(i.clone());
        }
    }
    let sizes = |i: &Idx| st.sizes.get(i).map_or(1.0, |&d| d as f64);
    // Only results whose order is known are charged. (Charging every intermediate by its
    // index order moved subgraph counts' kernels to orders up to 300 times slower: their
    // estimated sizes are far above the real ones, and the charge tipped near-ties.)
    let stored = is_output.then(|| (q.idxs.as_slice(), out.estimate()));
    let loop_order = choose_loop_order(&loops, &q.idxs, stored, &body, &accs, &sizes, options);
    st.results
        .insert(q.name.clone(), (q.idxs.clone(), out.clone()));
    Ok(Planned {
        out,
        accs,
        loop_order,
    })
}

/// Pass 2: the storage order of each result: the user's order for program outputs, else
/// the order its first consumer loops in (so that consumer reads it without transposing).
fn storage_orders(plan: &LogicalPlan, planned: &[Planned]) -> HashMap<String, Vec<Idx>> {
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
    stored
}

/// Pass 3 for one query: the kernel of `q` after the transpositions it needs first.
fn kernels(
    q: &LogicalQuery,
    p: &Planned,
    reader: &mut Reader,
    st: &Stats,
    options: &PhysicalOptions,
) -> Vec<PhysicalQuery> {
    reader.declared.insert(q.name.clone(), q.idxs.clone());
    let mut prelude = vec![];
    // Each access as the kernel reads it: in a mode order concordant with the loops
    // (a symmetric matrix swapped, anything else discordant transposed first).
    let reads: Vec<Read> = p
        .accs
        .iter()
        .map(|a| reader.read(a, &p.loop_order, st, options, &mut prelude))
        .collect();
    let protocols = choose_protocols(&p.loop_order, &p.accs, &reads, st);
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
    let output_idxs = reader.stored[&q.name].clone();
    let output_formats = choose_formats(&p.out, &output_idxs, &p.loop_order, &st.sizes, options);
    reader
        .result_formats
        .insert(q.name.clone(), output_formats.clone());
    prelude.push(PhysicalQuery {
        name: q.name.clone(),
        loop_order: p.loop_order.clone(),
        agg: q.agg,
        agg_idxs: q.agg_idxs.clone(),
        body,
        output_idxs,
        output_formats,
    });
    prelude
}

/// The physical body of a logical one, each access replaced by `leaf`'s answer.
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
