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
//!
//! The modules, in the order a kernel goes through them:
//!
//! - `plan.rs`: numbering and checking the accesses, the roles of the loops, and per loop
//!   level its binds, walk and skipped-coordinate accounting.
//! - `body.rs`: the body tree, its folding at fills, and its register program.
//! - `accum.rs`: the output accumulator, its merge, and the result tensor.
//! - `loops.rs`: the loop nest itself (walks, probes, intersections).
//! - `parallel.rs`: the serial start and the parallel split of the outermost loop.

mod accum;
mod body;
mod loops;
mod parallel;
mod plan;

use accum::{all_dense_output, materialize, new_accumulator, output_strides};
use body::compile;
use loops::State;
use parallel::run_top;
pub use parallel::set_parallel_after;
use plan::{
    local_depth, loop_roles, mark_sum_of_products, number_accesses, plan_level, plan_prefetch,
    result_fill, LevelPlan, Numbered, Plan, Skips,
};

use super::budget::Held;
use super::fibertree::FiberTensor;
use crate::plan_ast::{AggOp, PhysicalQuery};
use crate::TensorError;

/// Runs `q`; `tensor(name, is_alias)` resolves the accesses.
pub fn execute_query<'a>(
    q: &PhysicalQuery,
    tensor: &dyn Fn(&str, bool) -> Option<&'a FiberTensor>,
) -> Result<FiberTensor, TensorError> {
    let n = q.loop_order.len();
    let Numbered {
        body,
        accs,
        protocols,
        dims,
    } = number_accesses(q, tensor)?;
    let fills: Vec<f64> = accs.iter().map(|a| a.tensor.fill).collect();
    let loops = loop_roles(q)?;
    let out_fill = result_fill(q.agg, &body, &fills, &loops, &dims);
    let skips = Skips {
        body: &body,
        fills: &fills,
        accs: &accs,
        loops: &loops,
        agg: q.agg,
    };
    let mut levels: Vec<LevelPlan> = (0..n)
        .map(|d| plan_level(d, &skips, &protocols, &dims))
        .collect();
    plan_prefetch(&mut levels, &accs);

    // Output accumulation.
    let out_dims: Vec<usize> = loops.out_levels.iter().map(|&l| dims[l]).collect();
    let (strides, cells) = output_strides(q, &out_dims)?;
    let local_at = local_depth(&loops);
    mark_sum_of_products(&mut levels, q, &body, local_at);
    let in_order = loops.out_levels.windows(2).all(|w| w[0] < w[1]);
    // Output loops in the stored order with the outermost loop among them, but aggregate
    // loops between them: the cells arrive in key order when those aggregates take one
    // value each (the keys of a self-join, `(a, s1, p, b, s2)`). The engine cannot know,
    // so the cells are kept in order until one arrives out of it.
    let maybe_in_order = in_order && loops.out_levels.first() == Some(&0);
    let all_dense = all_dense_output(q, &out_dims, cells);
    let held = Held::new(&q.name);
    let out = new_accumulator(
        q,
        &out_dims,
        (all_dense, local_at.is_some() && in_order),
        maybe_in_order,
        out_fill,
        &held,
    )?;
    let program = compile(&body, accs.len());
    let plan = Plan {
        fills,
        levels,
        agg: q.agg,
        local_at,
        out_levels: loops.out_levels,
        strides,
        program,
        accs,
        held,
    };
    let mut st = State::new(&plan, out);
    st.acc = q.agg.map_or(out_fill, AggOp::init);
    run_top(&plan, &mut st);
    if let Some(e) = st.refused {
        return Err(e.into());
    }
    materialize(
        q,
        st.out,
        &plan.strides,
        &out_dims,
        out_fill,
        (all_dense, &plan.held),
    )
}
