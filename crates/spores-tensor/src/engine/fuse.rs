//! Fusion of a kernel into the next one where its result would only be written to be read
//! once: a scan producing `X` followed by the Gram product `G = t(X) %*% X`, and a join
//! scan followed by a map of each of its cells (`y = sigmoid(t)` over a self-join's pairs).
//!
//! Covariance over a star join builds `X` (600,000 × 20 at sf 0.1) and reads it once for
//! `G`. Stored, `X` costs a fresh 96 MB buffer (its page faults and zeroing were about a
//! third of the `X` kernel), one scattered write per value and the Gram kernel's pass over
//! it; fused, the scan hands each block of finished rows to the Gram accumulator while they
//! are in cache ([`super::scan::scan_gram`]) and `X` is never stored. Taken only when no
//! other kernel and no program output reads `X`; the result is the same sum of products
//! (rows blocked the same way as [`spores_exec::kernels::gram`]).

use crate::plan_ast::{Access, Idx, PhysExpr, PhysicalPlan};

use super::fastpath::gram_of_alias;

/// When kernel `k`'s result is read only by kernel `k + 1`, and that kernel is its Gram
/// product: the index of kernel `k`'s output that is the Gram's observation mode.
pub(crate) fn gram_consumer(plan: &PhysicalPlan, k: usize) -> Option<Idx> {
    let producer = plan.queries.get(k)?;
    let consumer = plan.queries.get(k + 1)?;
    let (x, obs_mode) = gram_of_alias(consumer)?;
    if x != producer.name || plan.outputs.iter().any(|(_, q)| q == x) {
        return None;
    }
    let read_elsewhere = plan
        .queries
        .iter()
        .enumerate()
        .filter(|&(i, _)| i != k + 1)
        .any(|(_, q)| reads_alias(&q.body, x));
    if read_elsewhere {
        return None;
    }
    producer.output_idxs.get(obs_mode).cloned()
}

/// Whether kernel `k`'s result is read only by kernel `k + 1`, and that kernel maps each
/// of its cells through pointwise functions, in its modes' order and formats, with no
/// aggregate (`y[a,b] = sigmoid(t[a,b])`): the map can then run on the producer's cells as
/// the join scan writes them ([`super::scan::join_cells_mapped`]), and the 46.5 M scores
/// of a self-join's logistic regression are not stored in levels and then copied again.
pub(crate) fn map_consumer(plan: &PhysicalPlan, k: usize) -> bool {
    let (Some(producer), Some(consumer)) = (plan.queries.get(k), plan.queries.get(k + 1)) else {
        return false;
    };
    let x = &producer.name;
    let mut reads = vec![];
    collect_reads(&consumer.body, &mut reads);
    let maps_cells = consumer.agg.is_none()
        && consumer.loop_order == consumer.output_idxs
        && consumer.output_formats == producer.output_formats
        && matches!(reads.as_slice(), [a] if a.is_alias && &a.name == x && a.idxs == consumer.output_idxs);
    maps_cells
        && !plan.outputs.iter().any(|(_, q)| q == x)
        && !plan
            .queries
            .iter()
            .enumerate()
            .any(|(i, q)| i != k + 1 && reads_alias(&q.body, x))
}

fn collect_reads<'e>(e: &'e PhysExpr, out: &mut Vec<&'e Access>) {
    match e {
        PhysExpr::Access(a) => out.push(a),
        PhysExpr::Literal(_) => {}
        PhysExpr::Map { args, .. } => args.iter().for_each(|a| collect_reads(a, out)),
    }
}

/// Whether `e` reads the result of kernel `name`.
pub(super) fn reads_alias(e: &PhysExpr, name: &str) -> bool {
    match e {
        PhysExpr::Access(a) => a.is_alias && a.name == name,
        PhysExpr::Literal(_) => false,
        PhysExpr::Map { args, .. } => args.iter().any(|a| reads_alias(a, name)),
    }
}
