//! Readable printing of a block DAG (`spores run --explain`), as text or as Graphviz.

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
    for (id, node) in block.dag.nodes().iter().enumerate() {
        // Literals are shown inline where they are used.
        if !needed[id] || matches!(node.op, Op::Literal(_)) {
            continue;
        }
        let text = node_text(block, id);
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

/// A node's operator with its arguments (`%c` for nodes, literals inline).
fn node_text(block: &BlockDag, id: usize) -> String {
    let node = block.dag.node(id);
    let args: Vec<String> = node
        .children
        .iter()
        .map(|&c| match &block.dag.node(c).op {
            Op::Literal(l) => l.to_string(),
            _ => format!("%{c}"),
        })
        .collect();
    // Fused kernels show their plan in brackets before the arguments.
    let plan = match &node.op {
        Op::Input(_) | Op::Literal(_) => return node.op.name(),
        Op::Fused(Fused::Masked(plan)) => format!("[{}]", plan.describe(&args)),
        Op::Fused(Fused::Elementwise(plan)) => format!("[{}]", plan.describe(&args)),
        Op::Relational(root) => format!("[{}]", root.expr),
        Op::Guarded(guard) => {
            let checked: Vec<&str> = guard
                .checked
                .iter()
                .map(|&k| args[k + 1].as_str())
                .collect();
            format!("[if {} finite]", checked.join(", "))
        }
        _ => String::new(),
    };
    format!("{}{plan}({})", node.op.name(), args.join(", "))
}

/// The same plan as [`explain`] as a Graphviz digraph: one box per node (operator and
/// annotation), an edge from each argument to its user, outputs as plain text nodes, and
/// `caption` (the optimizer's notes: what it rewrote and the costs) as the graph's label.
pub fn explain_dot(block: &BlockDag, annotations: Option<&[String]>, caption: &str) -> String {
    let quote = |s: &str| s.replace('\\', "\\\\").replace('"', "\\\"");
    let needed = block.dag.reachable(block.roots());
    let mut out = String::from(
        "digraph plan {\n  rankdir=BT;\n  node [shape=box, fontname=\"monospace\"];\n",
    );
    if !caption.is_empty() {
        let lines: Vec<String> = caption.lines().map(|l| quote(l.trim())).collect();
        let _ = writeln!(out, "  labelloc=t;\n  label=\"{}\\l\";", lines.join("\\l"));
    }
    for (id, node) in block.dag.nodes().iter().enumerate() {
        if !needed[id] || matches!(node.op, Op::Literal(_)) {
            continue;
        }
        let note = annotations
            .and_then(|a| a.get(id))
            .map_or("", String::as_str);
        let label = format!(
            "%{id} = {}\\n{}",
            quote(&node_text(block, id)),
            quote(note.trim())
        );
        let _ = writeln!(out, "  n{id} [label=\"{label}\"];");
        for &c in &node.children {
            if !matches!(block.dag.node(c).op, Op::Literal(_)) {
                let _ = writeln!(out, "  n{c} -> n{id};");
            }
        }
    }
    for (k, (name, id)) in block.outputs.iter().enumerate() {
        let _ = writeln!(
            out,
            "  out{k} [shape=plaintext, label=\"{}\"];\n  n{id} -> out{k};",
            quote(name)
        );
    }
    out + "}\n"
}
