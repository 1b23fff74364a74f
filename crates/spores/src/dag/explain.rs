//! Readable printing of a block DAG (`spores run --explain`).

use std::fmt::Write;

use super::{BlockDag, Fused, Op};

/// Renders the nodes a block needs, one per line in evaluation order (literals inline),
/// e.g.
///
/// ```text
///   %2 = t(%1)                          400x10 dense
///   %3 = %*%(%0, %2)                    2000x400 dense
///   %4 = *(%3, 2)                       2000x400 dense
/// outputs: Y = %3
/// ```
///
/// `annotations[id]`, when given, is appended to node `id`'s line (shapes, nnz, cost).
pub fn explain(block: &BlockDag, annotations: Option<&[String]>) -> String {
    let needed = block.dag.reachable(block.roots());
    let mut out = String::new();
    let arg = |c: usize| match &block.dag.node(c).op {
        Op::Literal(l) => l.to_string(),
        _ => format!("%{c}"),
    };
    for (id, node) in block.dag.nodes().iter().enumerate() {
        // Literals are shown inline where they are used.
        if !needed[id] || matches!(node.op, Op::Literal(_)) {
            continue;
        }
        let args: Vec<String> = node.children.iter().map(|&c| arg(c)).collect();
        let text = match &node.op {
            Op::Input(_) | Op::Literal(_) => node.op.name(),
            Op::Fused(Fused::Masked(plan)) => {
                format!(
                    "{}[{}]({})",
                    node.op.name(),
                    plan.describe(&args),
                    args.join(", ")
                )
            }
            Op::Fused(Fused::Elementwise(plan)) => {
                format!(
                    "{}[{}]({})",
                    node.op.name(),
                    plan.describe(&args),
                    args.join(", ")
                )
            }
            op => format!("{}({})", op.name(), args.join(", ")),
        };
        let note = annotations
            .and_then(|a| a.get(id))
            .map_or("", String::as_str);
        let line = format!("  %{id} = {text}");
        let _ = writeln!(out, "{line:<44} {note}").map(|_| ());
    }
    let outputs: Vec<String> = block
        .outputs
        .iter()
        .map(|(name, id)| {
            if name.is_empty() {
                format!("%{id}")
            } else {
                format!("{name} = %{id}")
            }
        })
        .collect();
    if !outputs.is_empty() {
        let _ = writeln!(out, "outputs: {}", outputs.join(", "));
    }
    if !block.effects.is_empty() {
        let effects: Vec<String> = block.effects.iter().map(|e| format!("%{e}")).collect();
        let _ = writeln!(out, "effects: {}", effects.join(", "));
    }
    out.lines()
        .map(str::trim_end)
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}
