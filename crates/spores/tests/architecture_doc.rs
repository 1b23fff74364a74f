//! docs/ARCHITECTURE.md draws the crate graph; this test holds the drawing to the crate graph
//! `cargo metadata` reads from the manifests, so the picture a newcomer reads stays true.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

/// An edge "`from` depends on `to`", and whether the dependency is optional (behind a
/// feature).
type Edge = (String, String, bool);

/// The workspace's crate graph: normal dependencies between workspace members.
fn crate_graph(root: &Path) -> BTreeSet<Edge> {
    let out = Command::new(env!("CARGO"))
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .current_dir(root)
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).expect("metadata is JSON");
    let packages = meta["packages"].as_array().expect("packages");
    let members: BTreeSet<&str> = packages.iter().filter_map(|p| p["name"].as_str()).collect();
    let mut edges = BTreeSet::new();
    for package in packages {
        let from = package["name"].as_str().expect("a name");
        for dep in package["dependencies"].as_array().expect("dependencies") {
            let to = dep["name"].as_str().expect("a dependency name");
            // Normal dependencies only (`kind` is null): dev- and build-dependencies are
            // not part of the layering.
            if members.contains(to) && dep["kind"].is_null() {
                let optional = dep["optional"].as_bool().unwrap_or(false);
                edges.insert((from.to_string(), to.to_string(), optional));
            }
        }
    }
    edges
}

/// The edges of the mermaid graph under "Dependencies between crates": `a --> b`, or
/// `a -. "feature f" .-> b` for an optional dependency.
fn drawn_graph(doc: &str) -> BTreeSet<Edge> {
    let section = doc
        .split("## Dependencies between crates")
        .nth(1)
        .expect("docs/ARCHITECTURE.md has a section on dependencies between crates");
    let graph = section
        .split("```mermaid")
        .nth(1)
        .and_then(|s| s.split("```").next())
        .expect("the section draws a mermaid graph");
    graph
        .lines()
        .map(str::trim)
        .filter(|l| l.contains("-->") || l.contains(".->"))
        .map(|l| {
            let optional = l.contains(".->");
            let from = l.split_whitespace().next().expect("a source crate");
            let to = l.split_whitespace().last().expect("a target crate");
            (from.to_string(), to.to_string(), optional)
        })
        .collect()
}

#[test]
fn the_architecture_doc_draws_the_crate_graph_the_manifests_declare() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let doc = std::fs::read_to_string(root.join("docs/ARCHITECTURE.md")).expect("the doc");
    let declared = crate_graph(&root);
    let drawn = drawn_graph(&doc);
    assert!(declared.len() > 10, "{declared:?}");
    let missing: Vec<_> = declared.difference(&drawn).collect();
    let extra: Vec<_> = drawn.difference(&declared).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "docs/ARCHITECTURE.md's crate graph is out of date.\n\
         declared in Cargo.toml but not drawn (from, to, optional): {missing:?}\n\
         drawn but not declared: {extra:?}"
    );
}
