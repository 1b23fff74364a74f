//! The rule-file check both optimizers share: refused commands name the file, line and
//! column; includes are spliced in, and cycles and deep chains are errors naming the
//! files, found without recursing without bound.

use std::path::PathBuf;

use egglog::ast::{GenericCommand, Parser};
use spores_extract::rules_file::{RulesFile, RulesFileError, MAX_INCLUDE_DEPTH};

/// Writes `text` to `name` in this test's directory; returns the path.
fn file(name: &str, text: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("rules-file");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn refused(text: &str) -> String {
    match RulesFile::from_text(text, "r.egg") {
        Ok(_) => panic!("accepted {text}"),
        Err(e) => e.to_string(),
    }
}

const WHY: &str = "is not allowed in a rule file: the optimizer runs the rules itself, \
                   under its iteration, size and time limits";

#[test]
fn commands_that_run_outside_the_limits_are_refused_with_their_line() {
    let head = "; a comment with ( and \"\n(sort S)\n(function f (i64) S :no-merge)\n";
    for (command, what) in [
        ("(push 10000)", "`push`"),
        ("(pop)", "`pop`"),
        ("(run 1000000)", "`run` / `run-schedule`"),
        ("(run-schedule (saturate (run)))", "`run` / `run-schedule`"),
        ("(fail (push 1))", "`push`"),
    ] {
        let text = format!("{head}  {command}\n(sort T)\n");
        assert_eq!(refused(&text), format!("r.egg:4:3: {what} {WHY}"), "{text}");
    }
}

#[test]
fn strings_and_comments_do_not_confuse_the_lines() {
    let text = "(sort S) ; (push 1)\n(function g (String) S :no-merge)\n\
                (rule ((= x (g \"(\\\"\"))) ()) (push 2)\n";
    assert_eq!(refused(text), format!("r.egg:3:29: `push` {WHY}"));
}

#[test]
fn a_syntax_error_is_egglog_s_message() {
    let err = RulesFile::from_text("(sort S", "broken.egg").unwrap_err();
    assert!(matches!(err, RulesFileError::Syntax(_)), "{err:?}");
    assert!(err.to_string().contains("broken.egg"), "{err}");
}

#[test]
fn includes_are_spliced_in_place() {
    let inner = file("inner.egg", "(sort Inner)\n(sort Inner2)\n");
    let outer = file(
        "outer.egg",
        &format!(
            "(sort Before)\n(include \"{}\")\n(sort After)\n",
            inner.display()
        ),
    );
    let rules = RulesFile::read(&outer).unwrap();
    assert_eq!(rules.name(), outer.display().to_string());
    let sorts: Vec<String> = rules
        .commands(&mut Parser::default())
        .unwrap()
        .iter()
        .map(|c| match c {
            GenericCommand::Sort { name, .. } => name.clone(),
            other => panic!("not a sort: {other}"),
        })
        .collect();
    assert_eq!(sorts, ["Before", "Inner", "Inner2", "After"]);
}

#[test]
fn an_included_file_is_checked_like_the_first() {
    let inner = file("pushes.egg", "(sort S)\n(push 10000)\n");
    let outer = file(
        "includes-push.egg",
        &format!("(include \"{}\")\n", inner.display()),
    );
    let err = RulesFile::read(&outer).unwrap_err().to_string();
    assert_eq!(err, format!("{}:2:1: `push` {WHY}", inner.display()));
}

#[test]
fn a_file_that_includes_itself_is_a_cycle() {
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("rules-file")
        .join("self.egg");
    let path = file("self.egg", &format!("(include \"{}\")\n", path.display()));
    let p = path.display().to_string();
    let err = RulesFile::read(&path).unwrap_err();
    assert!(
        matches!(err, RulesFileError::IncludeCycle { .. }),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        format!("{p}:1:1: include cycle: {p} -> {p}")
    );
}

#[test]
fn a_cycle_through_several_files_names_the_chain() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("rules-file");
    let (a, b) = (dir.join("a.egg"), dir.join("b.egg"));
    file(
        "a.egg",
        &format!("(sort A)\n(include \"{}\")\n", b.display()),
    );
    file("b.egg", &format!("(include \"{}\")\n", a.display()));
    let err = RulesFile::read(&a).unwrap_err().to_string();
    let (a, b) = (a.display(), b.display());
    assert_eq!(err, format!("{b}:1:1: include cycle: {a} -> {b} -> {a}"));
}

#[test]
fn includes_deeper_than_the_limit_are_an_error() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("rules-file");
    let name = |i: usize| dir.join(format!("deep{i}.egg"));
    for i in 0..=MAX_INCLUDE_DEPTH {
        let text = format!("(include \"{}\")\n", name(i + 1).display());
        std::fs::write(name(i), text).unwrap();
    }
    std::fs::write(name(MAX_INCLUDE_DEPTH + 1), "(sort Deep)\n").unwrap();
    let err = RulesFile::read(&name(0)).unwrap_err();
    let RulesFileError::IncludeTooDeep { chain, file, .. } = &err else {
        panic!("{err:?}");
    };
    assert_eq!(chain.len(), MAX_INCLUDE_DEPTH + 1);
    assert_eq!(file, &name(MAX_INCLUDE_DEPTH - 1).display().to_string());
    assert!(
        err.to_string().contains(&format!(
            "includes nested deeper than {MAX_INCLUDE_DEPTH} files: {} -> ",
            name(0).display()
        )),
        "{err}"
    );
    // A chain of MAX_INCLUDE_DEPTH files reads.
    let rules = RulesFile::read(&name(2)).unwrap();
    assert_eq!(rules.commands(&mut Parser::default()).unwrap().len(), 1);
}

#[test]
fn a_missing_include_names_the_files_that_led_to_it() {
    let outer = file("missing.egg", "(include \"/nonexistent/x.egg\")\n");
    let err = RulesFile::read(&outer).unwrap_err().to_string();
    assert!(
        err.starts_with(&format!(
            "cannot read /nonexistent/x.egg (included from {}): ",
            outer.display()
        )),
        "{err}"
    );
}
