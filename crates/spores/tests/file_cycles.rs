//! No two files of the optimizer (`spores-opt`) or the DML runtime (`spores-dml`) use each
//! other, directly or around a circle, so each file can be read knowing only the files
//! below it (docs/ARCHITECTURE.md). A file's uses are the paths it names through
//! `crate::`, `super::` and `self::` outside its tests; a use of an enclosing module (a
//! child reading its parent's types) is how Rust nests modules and is not counted.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The `.rs` files under `src`, by path relative to it, with their code before the test
/// module and without comments.
fn sources(src: &Path) -> BTreeMap<String, String> {
    let mut files = BTreeMap::new();
    let mut dirs = vec![src.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("a source directory") {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).expect("a source file");
                let code = text.split("#[cfg(test)]").next().unwrap_or_default();
                let code: String = code
                    .lines()
                    .map(|l| l.split("//").next().unwrap_or_default())
                    .collect::<Vec<_>>()
                    .join("\n");
                let name = path
                    .strip_prefix(src)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                files.insert(name, code);
            }
        }
    }
    files
}

/// The module path of a file: `runtime/mod.rs` and `runtime.rs` are `["runtime"]`,
/// `lib.rs` is `[]`.
fn module_of(file: &str) -> Vec<String> {
    let mut parts: Vec<String> = file
        .trim_end_matches(".rs")
        .split('/')
        .map(str::to_string)
        .collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts
}

/// The file that defines the longest prefix of `path`.
fn resolve(files: &BTreeMap<String, String>, path: &[String]) -> Option<String> {
    (1..=path.len()).rev().find_map(|k| {
        let base = path[..k].join("/");
        [format!("{base}.rs"), format!("{base}/mod.rs")]
            .into_iter()
            .find(|candidate| files.contains_key(candidate))
    })
}

/// Expands the path that starts at `text` (after `crate::`, `super::` or `self::`) into
/// every path it names: `a::b`, or `{a::b, c::{d, e}}`.
fn expand(text: &str) -> Vec<Vec<String>> {
    fn path(text: &str, at: &mut usize) -> Vec<Vec<String>> {
        let bytes = text.as_bytes();
        let mut prefix = Vec::new();
        loop {
            while *at < bytes.len() && bytes[*at].is_ascii_whitespace() {
                *at += 1;
            }
            if *at < bytes.len() && bytes[*at] == b'{' {
                *at += 1;
                let mut out = Vec::new();
                loop {
                    for tail in path(text, at) {
                        out.push(prefix.iter().cloned().chain(tail).collect());
                    }
                    while *at < bytes.len() && bytes[*at].is_ascii_whitespace() {
                        *at += 1;
                    }
                    match bytes.get(*at) {
                        Some(b',') => *at += 1,
                        Some(b'}') => {
                            *at += 1;
                            return out;
                        }
                        _ => return out,
                    }
                }
            }
            let start = *at;
            while *at < bytes.len() && (bytes[*at].is_ascii_alphanumeric() || bytes[*at] == b'_') {
                *at += 1;
            }
            if start == *at {
                return vec![prefix];
            }
            prefix.push(text[start..*at].to_string());
            if text[*at..].starts_with("::") {
                *at += 2;
            } else {
                return vec![prefix];
            }
        }
    }
    path(text, &mut 0)
}

/// Edges "file uses file" of the crate whose sources are `files`.
fn uses(files: &BTreeMap<String, String>) -> BTreeSet<(String, String)> {
    let mut edges = BTreeSet::new();
    for (file, code) in files {
        let module = module_of(file);
        let ancestors: BTreeSet<String> = (0..module.len())
            .filter_map(|k| resolve(files, &module[..k]).or_else(|| Some("lib.rs".into())))
            .collect();
        for (anchor, base) in [
            ("crate::", Vec::new()),
            ("super::", module[..module.len().saturating_sub(1)].to_vec()),
            ("self::", module.clone()),
        ] {
            for (at, _) in code.match_indices(anchor) {
                let before = code[..at].chars().next_back();
                if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                    continue;
                }
                for tail in expand(&code[at + anchor.len()..]) {
                    let full: Vec<String> = base.iter().cloned().chain(tail).collect();
                    if let Some(target) = resolve(files, &full) {
                        if &target != file && !ancestors.contains(&target) {
                            edges.insert((file.clone(), target));
                        }
                    }
                }
            }
        }
    }
    edges
}

/// The pairs of files that reach each other through `edges`.
fn circles(edges: &BTreeSet<(String, String)>) -> BTreeSet<(String, String)> {
    let mut next: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (a, b) in edges {
        next.entry(a).or_default().push(b);
    }
    let reaches = |from: &str, to: &str| {
        let mut stack = vec![from];
        let mut seen = BTreeSet::from([from]);
        while let Some(at) = stack.pop() {
            if at == to {
                return true;
            }
            for &n in next.get(at).into_iter().flatten() {
                if seen.insert(n) {
                    stack.push(n);
                }
            }
        }
        false
    };
    edges
        .iter()
        .filter(|(a, b)| reaches(b, a))
        .map(|(a, b)| (a.min(b).clone(), a.max(b).clone()))
        .collect()
}

fn crate_src(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(name)
        .join("src")
}

#[test]
fn paths_expand_through_groups() {
    assert_eq!(
        expand("{a::b, c::{d, e}};"),
        vec![
            vec!["a".to_string(), "b".into()],
            vec!["c".into(), "d".into()],
            vec!["c".into(), "e".into()],
        ]
    );
    assert_eq!(expand("x::y(1)"), vec![vec!["x".to_string(), "y".into()]]);
}

#[test]
fn a_circle_of_two_files_is_found() {
    let files = BTreeMap::from([
        ("lib.rs".to_string(), "mod a; mod b;".to_string()),
        ("a.rs".to_string(), "use crate::b::B;".to_string()),
        ("b.rs".to_string(), "use super::{a::A};".to_string()),
        ("c/mod.rs".to_string(), "use self::d::D;".to_string()),
        ("c/d.rs".to_string(), "use super::C;".to_string()),
    ]);
    let edges = uses(&files);
    assert!(edges.contains(&("c/mod.rs".to_string(), "c/d.rs".to_string())));
    // A child reading its parent is not a use.
    assert!(!edges.contains(&("c/d.rs".to_string(), "c/mod.rs".to_string())));
    assert_eq!(
        circles(&edges),
        BTreeSet::from([("a.rs".to_string(), "b.rs".to_string())])
    );
}

#[test]
fn the_optimizer_and_the_dml_runtime_have_no_circle_of_files() {
    for name in ["spores-opt", "spores-dml"] {
        let files = sources(&crate_src(name));
        assert!(files.len() > 20, "{name}: sources found");
        let found = circles(&uses(&files));
        assert!(
            found.is_empty(),
            "{name}: files that use each other: {found:?}"
        );
    }
}
