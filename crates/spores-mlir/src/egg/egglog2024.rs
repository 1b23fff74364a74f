//! Rule files in the 2024 egglog dialect, the one DialEgg's rule files are written in, read
//! by translating them, command by command, into the egglog spores embeds.
//!
//! What differs, and what each construct becomes:
//! - `(function f (A ..) S)` without `:merge`: into an e-class sort `S` it is a constructor
//!   (2024's functions into e-class sorts made a fresh class when an entry was missing and
//!   unioned on conflict, as constructors do), and `(set (f ..) v)` on it becomes
//!   `(union (f ..) v)`; into a base or container sort it is a function with `:no-merge`
//!   (2024 failed on a conflicting set). `:cost N` stays on the constructor.
//! - `(unstable-cost (op ..) e)` (DialEgg's per-e-node cost) sets the cost table `op_cost`
//!   ([`super::decls`]), declared beside the op; an e-node without an entry costs the op's
//!   fixed cost, as in 2024 (unless a limit stopped saturation before its cost rule fired).
//! - `(run ...)` and `(run-schedule ...)` are the file's [`Schedule`]: the optimizer runs it
//!   after inserting the program's terms (DialEgg's driver inserts them at `;; OPS HERE ;;`,
//!   before the rules and the run), under its own limits.
//! - A global `(let NAME ...)` is `$NAME`, and so is every later mention of `NAME` (the
//!   current dialect warns about globals without the `$`).
//! - `(include "FILE")` is read relative to the working directory, as DialEgg's egglog reads
//!   it, with the cycle check and depth limit of the current dialect.
//!
//! Commands that look at the saturated e-graph (`extract`, `check`, `print-function`, ...),
//! `push` and `pop` are refused with their file, line and column: the optimizer extracts
//! the program itself. Each translated command keeps the line and column it was written
//! at, so egglog's own messages (a sort that does not exist, a type error) point into the
//! file as written.
//!
//! A file is in the 2024 dialect when it, or a file it includes, declares a `function`
//! without `:merge` or `:no-merge` (which the current dialect refuses) or uses
//! `unstable-cost`. Anything this reader cannot read is left to the current dialect's
//! reader, whose messages are egglog's.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use spores_extract::rules_file::MAX_INCLUDE_DEPTH;

/// Why a 2024-dialect rule file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("cannot read {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("{file}:{line}:{column}: {message}")]
    At {
        file: String,
        line: usize,
        column: usize,
        message: String,
    },
}

/// What a file's `run` and `run-schedule` commands ask for, in the order written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Schedule {
    /// `times` iterations of a ruleset (`""`: the default ruleset).
    Run { ruleset: String, times: usize },
    /// The schedules in turn, again until none changes the e-graph.
    Saturate(Vec<Schedule>),
    /// The schedules in turn, `n` times.
    Repeat(usize, Vec<Schedule>),
    /// The schedules in turn.
    Seq(Vec<Schedule>),
}

/// A translated program: egglog source in pieces that each come from one file, in the order
/// they run (an include's pieces sit between those of the file before and after it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Program {
    /// (file name, translated text): the commands keep their lines and columns.
    pub chunks: Vec<(String, String)>,
    /// The `run` / `run-schedule` commands, in order.
    pub schedule: Vec<Schedule>,
}

impl Program {
    /// Reads the rule file at `path`: `Ok(None)` when it is not in the 2024 dialect (or
    /// cannot be read as s-expressions: the current dialect's reader then explains).
    pub fn read(path: &Path) -> Result<Option<Program>, Error> {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| Error::Read {
            path: name.clone(),
            source,
        })?;
        Self::from_source(text, name, Some(identity(path)))
    }

    /// Reads rule text named `name` in messages.
    pub fn from_text(text: &str, name: &str) -> Result<Option<Program>, Error> {
        Self::from_source(text.to_string(), name.to_string(), None)
    }

    fn from_source(
        text: String,
        name: String,
        id: Option<PathBuf>,
    ) -> Result<Option<Program>, Error> {
        let mut files = Files::default();
        let mut chain = Vec::new();
        if files.add(text, name, id, &mut chain).is_err() {
            return Ok(None);
        }
        // A file that could not be read as s-expressions, or an include that could not be
        // read, is the current dialect reader's to report; unless the dialect is clear.
        if !files.any_2024() {
            return Ok(None);
        }
        if let Some(e) = files.failure.take() {
            return Err(e);
        }
        let mut t = Translator::default();
        for f in &files.files {
            for form in &f.forms {
                form.collect_costed(&mut t.costed);
            }
        }
        t.file(&files, 0)?;
        Ok(Some(Program {
            chunks: t.chunks,
            schedule: t.schedule,
        }))
    }
}

/// An s-expression with where it starts (1-based line and column).
#[derive(Clone, Debug)]
struct Sexp {
    kind: Kind,
    line: usize,
    column: usize,
}

#[derive(Clone, Debug)]
enum Kind {
    Atom(String),
    /// A string literal as written, quotes and escapes included.
    Str(String),
    List(Vec<Sexp>),
}

impl Sexp {
    fn atom(&self) -> Option<&str> {
        match &self.kind {
            Kind::Atom(a) => Some(a),
            _ => None,
        }
    }

    fn list(&self) -> Option<&[Sexp]> {
        match &self.kind {
            Kind::List(l) => Some(l),
            _ => None,
        }
    }

    /// The head atom of a list.
    fn head(&self) -> Option<&str> {
        self.list()?.first()?.atom()
    }

    fn new(kind: Kind, like: &Sexp) -> Sexp {
        Sexp {
            kind,
            line: like.line,
            column: like.column,
        }
    }

    fn write(&self, out: &mut String) {
        match &self.kind {
            Kind::Atom(a) | Kind::Str(a) => out.push_str(a),
            Kind::List(items) => {
                out.push('(');
                for (i, s) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(' ');
                    }
                    s.write(out);
                }
                out.push(')');
            }
        }
    }

    fn any_atom(&self, f: &dyn Fn(&str) -> bool) -> bool {
        match &self.kind {
            Kind::Atom(a) => f(a),
            Kind::Str(_) => false,
            Kind::List(l) => l.iter().any(|s| s.any_atom(f)),
        }
    }

    /// The constructors whose e-nodes an `unstable-cost` in this form prices.
    fn collect_costed(&self, out: &mut HashSet<String>) {
        if let Some(items) = self.list() {
            if self.head() == Some("unstable-cost") {
                if let Some(op) = items.get(1).and_then(Sexp::head) {
                    out.insert(op.to_string());
                }
            }
            for s in items {
                s.collect_costed(out);
            }
        }
    }

    /// Whether this is a 2024 `function` declaration (no `:merge` / `:no-merge`).
    fn is_2024_function(&self) -> bool {
        self.head() == Some("function")
            && !self
                .list()
                .unwrap_or(&[])
                .iter()
                .any(|s| matches!(s.atom(), Some(":merge" | ":no-merge")))
    }
}

/// Reads the top-level forms of `text`, as egglog's reader does: `;` comments, strings with
/// `\` escapes, atoms up to whitespace, `;` or a parenthesis. `Err` (line, column, message).
fn read_forms(text: &str) -> Result<Vec<Sexp>, (usize, usize, String)> {
    let mut stack: Vec<(Vec<Sexp>, usize, usize)> = Vec::new();
    let mut forms = Vec::new();
    let (mut line, mut column) = (1, 1);
    let mut chars = text.chars().peekable();
    let push =
        |stack: &mut Vec<(Vec<Sexp>, usize, usize)>, forms: &mut Vec<Sexp>, s: Sexp| match stack
            .last_mut()
        {
            Some((items, _, _)) => items.push(s),
            None => forms.push(s),
        };
    while let Some(c) = chars.next() {
        let (l, col) = (line, column);
        if c == '\n' {
            line += 1;
            column = 1;
        } else {
            column += 1;
        }
        match c {
            ';' => {
                for n in chars.by_ref() {
                    if n == '\n' {
                        line += 1;
                        column = 1;
                        break;
                    }
                }
            }
            '(' => stack.push((Vec::new(), l, col)),
            ')' => {
                let (items, sl, sc) =
                    stack
                        .pop()
                        .ok_or((l, col, "a `)` closes nothing".to_string()))?;
                let s = Sexp {
                    kind: Kind::List(items),
                    line: sl,
                    column: sc,
                };
                push(&mut stack, &mut forms, s);
            }
            '"' => {
                let mut raw = String::from('"');
                let mut escaped = false;
                let mut closed = false;
                for n in chars.by_ref() {
                    raw.push(n);
                    if n == '\n' {
                        line += 1;
                        column = 1;
                    } else {
                        column += 1;
                    }
                    match n {
                        '"' if !escaped => {
                            closed = true;
                            break;
                        }
                        '\\' if !escaped => escaped = true,
                        _ => escaped = false,
                    }
                }
                if !closed {
                    return Err((l, col, "a string is not closed".to_string()));
                }
                let s = Sexp {
                    kind: Kind::Str(raw),
                    line: l,
                    column: col,
                };
                push(&mut stack, &mut forms, s);
            }
            c if c.is_whitespace() => {}
            c => {
                let mut atom = String::from(c);
                while let Some(&n) = chars.peek() {
                    if n.is_whitespace() || matches!(n, ';' | '(' | ')' | '"') {
                        break;
                    }
                    atom.push(n);
                    column += 1;
                    chars.next();
                }
                let s = Sexp {
                    kind: Kind::Atom(atom),
                    line: l,
                    column: col,
                };
                push(&mut stack, &mut forms, s);
            }
        }
    }
    if let Some((_, l, c)) = stack.pop() {
        return Err((l, c, "a `(` is not closed".to_string()));
    }
    Ok(forms)
}

/// One file of the include tree.
struct File {
    name: String,
    forms: Vec<Sexp>,
    /// Form index of an `include` → index of the included file.
    includes: Vec<(usize, usize)>,
}

/// The files of a program, read depth first from the first.
#[derive(Default)]
struct Files {
    files: Vec<File>,
    /// The first error met (an unreadable include), reported only if the program turns
    /// out to be in the 2024 dialect.
    failure: Option<Error>,
}

impl Files {
    fn any_2024(&self) -> bool {
        self.files
            .iter()
            .flat_map(|f| &f.forms)
            .any(|form| form.is_2024_function() || form.any_atom(&|a| a == "unstable-cost"))
    }

    /// Reads one file and its includes; `Err(())` when it is not s-expressions.
    fn add(
        &mut self,
        text: String,
        name: String,
        id: Option<PathBuf>,
        chain: &mut Vec<(String, Option<PathBuf>)>,
    ) -> Result<usize, ()> {
        let forms = read_forms(&text).map_err(|_| ())?;
        let index = self.files.len();
        self.files.push(File {
            name: name.clone(),
            forms: forms.clone(),
            includes: Vec::new(),
        });
        chain.push((name.clone(), id));
        for (i, form) in forms.iter().enumerate() {
            if form.head() != Some("include") {
                continue;
            }
            let at = |message: String| Error::At {
                file: name.clone(),
                line: form.line,
                column: form.column,
                message,
            };
            let target = match form.list().and_then(|l| l.get(1)).map(|s| &s.kind) {
                Some(Kind::Str(raw)) if form.list().map(<[_]>::len) == Some(2) => {
                    raw[1..raw.len() - 1].to_string()
                }
                _ => {
                    self.failure
                        .get_or_insert(at("`include` takes one file name".into()));
                    continue;
                }
            };
            let path = Path::new(&target);
            let pid = identity(path);
            let names = |chain: &[(String, Option<PathBuf>)]| -> String {
                let mut v: Vec<&str> = chain.iter().map(|(n, _)| n.as_str()).collect();
                v.push(&target);
                v.join(" -> ")
            };
            if chain.iter().any(|(_, seen)| seen.as_ref() == Some(&pid)) {
                self.failure
                    .get_or_insert(at(format!("include cycle: {}", names(chain))));
                continue;
            }
            if chain.len() >= MAX_INCLUDE_DEPTH {
                self.failure.get_or_insert(at(format!(
                    "includes nested deeper than {MAX_INCLUDE_DEPTH} files: {}",
                    names(chain)
                )));
                continue;
            }
            match std::fs::read_to_string(path) {
                Ok(text) => {
                    let included = self.add(text, target.clone(), Some(pid), chain)?;
                    self.files[index].includes.push((i, included));
                }
                Err(e) => {
                    self.failure.get_or_insert(at(format!(
                        "cannot read {target} (relative to the working directory {}): {e}",
                        std::env::current_dir()
                            .map(|d| d.display().to_string())
                            .unwrap_or_default()
                    )));
                }
            }
        }
        chain.pop();
        Ok(index)
    }
}

/// Commands that read or print the saturated e-graph, or copy it.
const REFUSED: &[&str] = &[
    "extract",
    "query-extract",
    "check",
    "simplify",
    "print-function",
    "print-size",
    "print-stats",
    "print-overall-statistics",
    "output",
    "push",
    "pop",
    "fail",
];

#[derive(Default)]
struct Translator {
    chunks: Vec<(String, String)>,
    schedule: Vec<Schedule>,
    /// Sorts whose values are e-classes.
    eqsorts: HashSet<String>,
    /// 2024 functions that became constructors (their `set`s become `union`s).
    constructors: HashSet<String>,
    /// Ops priced by `unstable-cost`, and those whose cost table is declared.
    costed: HashSet<String>,
    cost_tables: HashSet<String>,
    /// Global `let`s without a `$`, renamed `$NAME`.
    globals: HashSet<String>,
}

/// Text whose commands start at the lines and columns they were written at.
struct Chunk {
    name: String,
    text: String,
    line: usize,
    column: usize,
}

impl Chunk {
    fn new(name: &str) -> Chunk {
        Chunk {
            name: name.to_string(),
            text: String::new(),
            line: 1,
            column: 1,
        }
    }

    /// Moves to (line, column) (never back: a form printed longer than written pushes the
    /// next one on the same line to the right).
    fn seek(&mut self, line: usize, column: usize) {
        if self.line < line {
            for _ in self.line..line {
                self.text.push('\n');
            }
            self.line = line;
            self.column = 1;
        }
        if self.column < column {
            for _ in self.column..column {
                self.text.push(' ');
            }
            self.column = column;
        } else if self.column > 1 {
            self.text.push(' ');
            self.column += 1;
        }
    }

    fn push(&mut self, s: &str) {
        self.text.push_str(s);
        self.column += s.chars().count();
    }
}

impl Translator {
    fn file(&mut self, files: &Files, index: usize) -> Result<(), Error> {
        let file = &files.files[index];
        let mut chunk = Chunk::new(&file.name);
        for (i, form) in file.forms.iter().enumerate() {
            if let Some(&(_, included)) = file.includes.iter().find(|(at, _)| *at == i) {
                let done = std::mem::replace(&mut chunk, Chunk::new(&file.name));
                self.chunks.push((done.name, done.text));
                self.file(files, included)?;
                continue;
            }
            let at = |message: String| Error::At {
                file: file.name.clone(),
                line: form.line,
                column: form.column,
                message,
            };
            if let (Some("let"), Some(name)) = (form.head(), form.list().and_then(|l| l.get(1))) {
                if let Some(n) = name.atom().filter(|n| !n.starts_with('$')) {
                    self.globals.insert(n.to_string());
                }
            }
            let form = &rename(form, &self.globals);
            for out in self.form(form).map_err(at)? {
                chunk.seek(form.line, form.column);
                let mut text = String::new();
                out.write(&mut text);
                chunk.push(&text);
            }
        }
        self.chunks.push((chunk.name, chunk.text));
        Ok(())
    }

    /// The commands a top-level form becomes.
    fn form(&mut self, form: &Sexp) -> Result<Vec<Sexp>, String> {
        let Some(items) = form.list() else {
            return Ok(vec![form.clone()]);
        };
        let head = form.head().unwrap_or("");
        match head {
            "function" if form.is_2024_function() => self.function(form, items),
            "constructor" => {
                let name = items.get(1).and_then(Sexp::atom).unwrap_or("").to_string();
                let mut out = vec![form.clone()];
                out.extend(self.cost_table(&name, items.get(2)));
                Ok(out)
            }
            "sort" | "datatype" => {
                if let Some(name) = items.get(1).and_then(Sexp::atom) {
                    // `(sort S (Vec i64))` is a container; `(sort S)` an e-class sort.
                    if head == "datatype" || items.len() == 2 {
                        self.eqsorts.insert(name.to_string());
                    }
                }
                Ok(vec![form.clone()])
            }
            "datatype*" => {
                for d in &items[1..] {
                    if let Some(name) = d.head() {
                        self.eqsorts.insert(name.to_string());
                    }
                }
                Ok(vec![form.clone()])
            }
            "rule" => {
                let mut items = items.to_vec();
                if let Some(actions) = items.get(2).and_then(Sexp::list) {
                    let actions = actions
                        .iter()
                        .map(|a| self.action(a))
                        .collect::<Result<_, _>>()?;
                    items[2] = Sexp::new(Kind::List(actions), &items[2]);
                }
                Ok(vec![Sexp::new(Kind::List(items), form)])
            }
            "run" => {
                self.schedule.push(top_level_run(&items[1..])?);
                Ok(vec![])
            }
            "run-schedule" => {
                let steps = items[1..].iter().map(schedule).collect::<Result<_, _>>()?;
                self.schedule.push(Schedule::Seq(steps));
                Ok(vec![])
            }
            h if REFUSED.contains(&h) => Err(format!(
                "`({h} ...)` is not allowed in a rule file: the optimizer saturates and \
                 extracts the program itself"
            )),
            "set" | "union" | "unstable-cost" | "let" | "delete" | "subsume" => {
                Ok(vec![self.action(form)?])
            }
            _ => Ok(vec![form.clone()]),
        }
    }

    /// A 2024 `function`: a constructor into an e-class sort, else a `:no-merge` function.
    fn function(&mut self, form: &Sexp, items: &[Sexp]) -> Result<Vec<Sexp>, String> {
        let (Some(name), Some(inputs), Some(output)) = (
            items.get(1).and_then(Sexp::atom),
            items.get(2).filter(|s| s.list().is_some()),
            items.get(3).and_then(Sexp::atom),
        ) else {
            return Err("a `function` declaration is `(function NAME (SORT ...) SORT ...)`".into());
        };
        let mut options = Vec::new();
        let mut rest = items[4..].iter();
        while let Some(key) = rest.next() {
            match key.atom() {
                Some(":cost") => {
                    let v = rest.next().ok_or("`:cost` needs a number")?;
                    options.push(key.clone());
                    options.push(v.clone());
                }
                Some(":unextractable") => options.push(key.clone()),
                Some(k @ (":default" | ":on_merge")) => {
                    return Err(format!(
                        "`{k}` on a function has no counterpart in the egglog spores embeds"
                    ))
                }
                _ => return Err("unknown option of a `function` declaration".into()),
            }
        }
        let atom = |a: &str| Sexp::new(Kind::Atom(a.to_string()), form);
        let mut out = Vec::new();
        // Any other output sort (a base sort, a container such as `(sort IntVec (Vec i64))`)
        // holds values.
        if self.eqsorts.contains(output) {
            self.constructors.insert(name.to_string());
            let mut decl = vec![atom("constructor")];
            decl.extend(items[1..4].iter().cloned());
            decl.extend(options);
            out.push(Sexp::new(Kind::List(decl), form));
            out.extend(self.cost_table(name, Some(inputs)));
        } else {
            let mut decl = vec![atom("function")];
            decl.extend(items[1..4].iter().cloned());
            decl.push(atom(":no-merge"));
            out.push(Sexp::new(Kind::List(decl), form));
        }
        Ok(out)
    }

    /// `(function NAME_cost (INPUTS) i64 :merge (min old new))` for an op `unstable-cost`
    /// prices, once.
    fn cost_table(&mut self, name: &str, inputs: Option<&Sexp>) -> Option<Sexp> {
        let inputs = inputs?;
        if !self.costed.contains(name) || !self.cost_tables.insert(name.to_string()) {
            return None;
        }
        let mut text = String::new();
        inputs.write(&mut text);
        let decl = format!("(function {name}_cost {text} i64 :merge (min old new))");
        let forms = read_forms(&decl).ok()?;
        forms.into_iter().next().map(|mut s| {
            s.line = inputs.line;
            s.column = inputs.column;
            s
        })
    }

    /// An action with 2024's `set` on constructors and `unstable-cost` translated.
    fn action(&mut self, a: &Sexp) -> Result<Sexp, String> {
        let Some(items) = a.list() else {
            return Ok(a.clone());
        };
        let atom = |s: &str| Sexp::new(Kind::Atom(s.to_string()), a);
        match a.head() {
            Some("set") if items.len() == 3 => {
                if let Some(f) = items[1].head() {
                    if self.constructors.contains(f) {
                        let mut out = items.to_vec();
                        out[0] = atom("union");
                        return Ok(Sexp::new(Kind::List(out), a));
                    }
                }
                Ok(a.clone())
            }
            Some("unstable-cost") => {
                let (Some(node), Some(cost), 3) = (items.get(1), items.get(2), items.len()) else {
                    return Err("`unstable-cost` is `(unstable-cost (OP ARGS ...) COST)`".into());
                };
                let Some(node_items) = node.list().filter(|_| node.head().is_some()) else {
                    return Err("`unstable-cost` prices a call `(OP ARGS ...)`".into());
                };
                let op = node.head().unwrap_or_default();
                let mut call = vec![atom(&format!("{op}_cost"))];
                call.extend(node_items[1..].iter().cloned());
                Ok(Sexp::new(
                    Kind::List(vec![
                        atom("set"),
                        Sexp::new(Kind::List(call), node),
                        cost.clone(),
                    ]),
                    a,
                ))
            }
            _ => Ok(a.clone()),
        }
    }
}

/// `s` with every atom in `globals` written `$atom`.
fn rename(s: &Sexp, globals: &HashSet<String>) -> Sexp {
    match &s.kind {
        Kind::Atom(a) if globals.contains(a) => Sexp::new(Kind::Atom(format!("${a}")), s),
        Kind::List(items) => Sexp::new(
            Kind::List(items.iter().map(|i| rename(i, globals)).collect()),
            s,
        ),
        _ => s.clone(),
    }
}

/// A top-level `(run [RULESET] [N])`.
fn top_level_run(args: &[Sexp]) -> Result<Schedule, String> {
    let mut ruleset = String::new();
    let mut times = 1;
    for a in args {
        match a.atom() {
            Some(n) if n.parse::<usize>().is_ok() => times = n.parse().unwrap_or(1),
            Some(":until") => return Err("`run ... :until` is not supported".into()),
            Some(r) if ruleset.is_empty() && !r.starts_with(':') => ruleset = r.to_string(),
            _ => return Err("`run` is `(run [RULESET] [ITERATIONS])`".into()),
        }
    }
    Ok(Schedule::Run { ruleset, times })
}

/// One schedule of `run-schedule`.
fn schedule(s: &Sexp) -> Result<Schedule, String> {
    if let Some(r) = s.atom() {
        if r.starts_with(':') {
            return Err(format!("`{r}` is not supported in a schedule"));
        }
        return Ok(Schedule::Run {
            ruleset: r.to_string(),
            times: 1,
        });
    }
    let items = s.list().unwrap_or(&[]);
    let body = |from: usize| -> Result<Vec<Schedule>, String> {
        items[from..].iter().map(schedule).collect()
    };
    match s.head() {
        Some("saturate") => Ok(Schedule::Saturate(body(1)?)),
        Some("seq") => Ok(Schedule::Seq(body(1)?)),
        Some("repeat") => {
            let n = items
                .get(1)
                .and_then(Sexp::atom)
                .and_then(|n| n.parse().ok())
                .ok_or("`repeat` is `(repeat N SCHEDULE ...)`")?;
            Ok(Schedule::Repeat(n, body(2)?))
        }
        Some("run") => {
            let args = &items[1..];
            if args.iter().any(|a| a.atom() == Some(":until")) {
                return Err("`run ... :until` is not supported".into());
            }
            match args {
                [] => Ok(Schedule::Run {
                    ruleset: String::new(),
                    times: 1,
                }),
                [r] if r.atom().is_some() => Ok(Schedule::Run {
                    ruleset: r.atom().unwrap_or_default().to_string(),
                    times: 1,
                }),
                _ => Err("a schedule's `run` is `(run [RULESET])`".into()),
            }
        }
        _ => Err(
            "a schedule is `(saturate ...)`, `(seq ...)`, `(repeat N ...)`, \
                  `(run [RULESET])` or a ruleset name"
                .into(),
        ),
    }
}

/// What identifies a file: its canonical path, or the path as given.
fn identity(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn translate(text: &str) -> Program {
        Program::from_text(text, "t.egg")
            .expect("translates")
            .expect("2024 dialect")
    }

    #[test]
    fn the_current_dialect_is_left_alone() {
        let text = "(datatype E (N i64)) (function f (E) i64 :merge (min old new))";
        assert!(Program::from_text(text, "t.egg").expect("reads").is_none());
    }

    #[test]
    fn functions_become_constructors_or_no_merge_functions() {
        let p = translate(
            "(sort T)\n(sort V (Vec i64))\n(function F32 () T)\n(function n (T) i64)\n\
             (function d (T) V)\n(function op (T T) T :cost 3)\n\
             (rule ((= ?x (op ?a ?b))) ((set (F32) ?x) (set (n ?x) 1)))",
        );
        let text = &p.chunks[0].1;
        assert!(text.contains("(constructor F32 () T)"), "{text}");
        assert!(text.contains("(function n (T) i64 :no-merge)"), "{text}");
        assert!(text.contains("(function d (T) V :no-merge)"), "{text}");
        assert!(text.contains("(constructor op (T T) T :cost 3)"), "{text}");
        assert!(text.contains("((union (F32) ?x) (set (n ?x) 1))"), "{text}");
    }

    #[test]
    fn commands_keep_their_lines_and_columns() {
        let p = translate("(sort T)\n\n   (function f () T)\n(function g\n (T) T) (ruleset r)");
        let lines: Vec<&str> = p.chunks[0].1.lines().collect();
        assert_eq!(lines[2], "   (constructor f () T)");
        assert_eq!(lines[3], "(constructor g (T) T)");
        assert_eq!(lines[4], "        (ruleset r)");
    }

    #[test]
    fn unstable_cost_sets_a_cost_table_declared_beside_the_op() {
        let p = translate(
            "(sort Op)\n(function mm (Op Op) Op)\n\
             (rule ((= ?e (mm ?a ?b))) ((unstable-cost (mm ?a ?b) 7)))",
        );
        let text = &p.chunks[0].1;
        assert!(
            text.contains(
                "(constructor mm (Op Op) Op) (function mm_cost (Op Op) i64 :merge (min old new))"
            ),
            "{text}"
        );
        assert!(text.contains("((set (mm_cost ?a ?b) 7))"), "{text}");
    }

    #[test]
    fn runs_are_the_schedule() {
        let p = translate(
            "(sort T)(function f () T)(ruleset a)(run 3)(run a 2)\
             (run-schedule (saturate a) (repeat 2 (run) (seq a (run a))))",
        );
        let run = |r: &str, times| Schedule::Run {
            ruleset: r.into(),
            times,
        };
        assert_eq!(
            p.schedule,
            vec![
                run("", 3),
                run("a", 2),
                Schedule::Seq(vec![
                    Schedule::Saturate(vec![run("a", 1)]),
                    Schedule::Repeat(
                        2,
                        vec![run("", 1), Schedule::Seq(vec![run("a", 1), run("a", 1)])]
                    ),
                ]),
            ]
        );
        assert!(!p.chunks[0].1.contains("run"));
    }

    #[test]
    fn refused_commands_name_their_place() {
        let e = Program::from_text("(sort T)(function f () T)\n  (extract (f))", "r.egg")
            .expect_err("refused");
        let msg = e.to_string();
        assert!(
            msg.starts_with("r.egg:2:3: `(extract ...)` is not allowed"),
            "{msg}"
        );
        let e = Program::from_text("(sort T)(function f () T :default 1)", "r.egg")
            .expect_err("refused");
        assert!(e.to_string().starts_with("r.egg:1:9: `:default`"), "{e}");
        let e = Program::from_text("(sort T)(function f () T)\n(run r :until (f))", "r.egg")
            .expect_err("refused");
        assert!(
            e.to_string().starts_with("r.egg:2:1: `run ... :until`"),
            "{e}"
        );
    }

    #[test]
    fn a_missing_include_names_the_file_line_and_column() {
        let e = Program::from_text(
            "(function f () Op)\n (include \"no/such/base.egg\")",
            "r.egg",
        )
        .expect_err("refused");
        let msg = e.to_string();
        assert!(
            msg.starts_with("r.egg:2:2: cannot read no/such/base.egg"),
            "{msg}"
        );
    }
}
