//! The rule files checked as data. Each `rules/tests/NAME.egg` exercises the ruleset of
//! `rules/NAME.egg`: it runs in a fresh e-graph that holds every shipped rule file, builds
//! terms as the encoder would (shapes, `lid`s, index sizes), runs a schedule and states
//! what must (`check`) and must not (`fail (check ...)`) have become equal.

use std::path::{Path, PathBuf};

use egglog::EGraph;
use spores_opt::saturate::RULES;

fn rules_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("rules")
}

fn egraph_with_rules() -> EGraph {
    spores_opt::saturate::egraph_with_rules().unwrap_or_else(|e| panic!("{e}"))
}

fn egg_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "egg"))
        .collect();
    files.sort();
    files
}

fn file_name(path: &Path) -> String {
    path.file_name().unwrap().to_string_lossy().into_owned()
}

#[test]
fn every_rule_test_file_passes_its_checks() {
    let files = egg_files(&rules_dir().join("tests"));
    let mut failures = Vec::new();
    for path in &files {
        let name = file_name(path);
        let text = std::fs::read_to_string(path).unwrap();
        assert!(text.contains("(check "), "{name} checks nothing");
        let mut eg = egraph_with_rules();
        if let Err(e) = eg.parse_and_run_program(Some(format!("tests/{name}")), &text) {
            failures.push(format!("tests/{name}: {e}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_ruleset_file_has_a_test_file() {
    let tests: Vec<String> = egg_files(&rules_dir().join("tests"))
        .iter()
        .map(|p| file_name(p))
        .collect();
    let untested: Vec<String> = egg_files(&rules_dir())
        .iter()
        .map(|p| file_name(p))
        .filter(|name| name != "lang.egg" && name != "schedule.egg")
        .filter(|name| !tests.contains(name))
        .collect();
    assert!(untested.is_empty(), "no rules/tests file for {untested:?}");
}

#[test]
fn shipped_rule_files_are_the_ones_on_disk() {
    let shipped: Vec<&str> = RULES.iter().map(|(name, _)| *name).collect();
    for path in egg_files(&rules_dir()) {
        let name = file_name(&path);
        assert!(shipped.contains(&name.as_str()), "{name} is not in RULES");
    }
    assert_eq!(shipped.first(), Some(&"lang.egg"));
    assert_eq!(shipped.last(), Some(&"schedule.egg"));
}

#[test]
fn a_check_that_does_not_hold_is_an_error() {
    let mut eg = egraph_with_rules();
    let program = "(let a (Lit 2.0))\n(let b (Lit 3.0))\n(check (= a b))";
    assert!(eg.parse_and_run_program(None, program).is_err());
}
