//! A user's rule file (egglog), checked once for both optimizers that take one: the LA
//! optimizer (`spores optimize --rules`, `spores run --rules`) and the MLIR optimizer
//! (`spores mlir opt --rules`).
//!
//! A rule file declares sorts, functions, costs, rules and rulesets; the optimizer runs
//! them under its own iteration, size and time limits. Commands that would run when the
//! file is loaded, outside those limits, are refused: `(run ...)` and `(run-schedule ...)`
//! saturate with no limit, `(push n)` copies the whole e-graph `n` times (`(push 10000)`
//! grows to gigabytes), and `(pop ...)` goes with it. egglog reads `(include "FILE")` by
//! recursing with no bound, so a file that includes itself overflows the stack: includes
//! are resolved here instead, relative to the working directory as egglog does, with a
//! cycle check and a depth limit, and the included files are checked like the first.
//!
//! [`RulesFile`] holds the checked sources; [`RulesFile::commands`] parses them again with
//! the parser of the e-graph that will run them (its fresh names, for `_`, must not collide
//! with the ones that e-graph makes later), includes replaced by the commands they include.

use std::path::{Path, PathBuf};

use egglog::ast::{Command, GenericCommand, Parser};

/// How many files a chain of includes may hold, the first included: a rule file split
/// into a few files needs two or three; more is a mistake, and an error names the chain
/// instead of recursing on.
pub const MAX_INCLUDE_DEPTH: usize = 16;

/// Why a rule file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum RulesFileError {
    #[error("cannot read {path}{}: {source}", included_from(chain))]
    Read {
        path: String,
        /// The files whose includes led here, outermost first.
        chain: Vec<String>,
        source: std::io::Error,
    },
    /// egglog's message, which names the file, line and column.
    #[error("{0}")]
    Syntax(String),
    #[error(
        "{file}:{line}:{column}: {what} is not allowed in a rule file: the optimizer runs \
         the rules itself, under its iteration, size and time limits"
    )]
    Refused {
        file: String,
        line: usize,
        column: usize,
        what: &'static str,
    },
    #[error("{file}:{line}:{column}: include cycle: {}", chain.join(" -> "))]
    IncludeCycle {
        file: String,
        line: usize,
        column: usize,
        /// From the first file to the file included again.
        chain: Vec<String>,
    },
    #[error(
        "{file}:{line}:{column}: includes nested deeper than {MAX_INCLUDE_DEPTH} files: {}",
        chain.join(" -> ")
    )]
    IncludeTooDeep {
        file: String,
        line: usize,
        column: usize,
        chain: Vec<String>,
    },
}

fn included_from(chain: &[String]) -> String {
    if chain.is_empty() {
        String::new()
    } else {
        format!(" (included from {})", chain.join(" -> "))
    }
}

/// One file's text and where its includes lead.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Source {
    name: String,
    text: String,
    /// For each `include` command, by its index among the file's commands, the index of
    /// the included source in [`RulesFile::sources`].
    includes: Vec<(usize, usize)>,
}

/// A checked rule file with the files it includes. Two values are equal when they hold
/// the same texts under the same names (the LA optimizer keeps prepared e-graphs by it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RulesFile {
    /// The first file is the one named; the others are read by its includes.
    sources: Vec<Source>,
}

impl RulesFile {
    /// Reads and checks the rule file at `path`.
    pub fn read(path: &Path) -> Result<Self, RulesFileError> {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| RulesFileError::Read {
            path: name.clone(),
            chain: Vec::new(),
            source,
        })?;
        Self::check(text, name, Some(path))
    }

    /// Checks rule text named `name` in messages (not a file: includes of it are resolved,
    /// but one of itself is caught one level later).
    pub fn from_text(text: &str, name: &str) -> Result<Self, RulesFileError> {
        Self::check(text.to_string(), name.to_string(), None)
    }

    fn check(text: String, name: String, path: Option<&Path>) -> Result<Self, RulesFileError> {
        let mut rules = RulesFile {
            sources: Vec::new(),
        };
        let mut chain = Vec::new();
        rules.add(text, name, path.map(identity), &mut chain)?;
        Ok(rules)
    }

    /// The name of the first file, for messages.
    pub fn name(&self) -> &str {
        &self.sources[0].name
    }

    /// The commands of all files, parsed by `parser` (the e-graph's that will run them),
    /// each include replaced by the commands of the file it names.
    pub fn commands(&self, parser: &mut Parser) -> Result<Vec<Command>, RulesFileError> {
        let mut out = Vec::new();
        self.commands_of(0, parser, &mut out)?;
        Ok(out)
    }

    fn commands_of(
        &self,
        index: usize,
        parser: &mut Parser,
        out: &mut Vec<Command>,
    ) -> Result<(), RulesFileError> {
        let source = &self.sources[index];
        let commands = parse(parser, &source.name, &source.text)?;
        for (i, command) in commands.into_iter().enumerate() {
            match source.includes.iter().find(|(at, _)| *at == i) {
                Some(&(_, included)) => self.commands_of(included, parser, out)?,
                None => out.push(command),
            }
        }
        Ok(())
    }

    /// Checks one file and, depth first, the files it includes; `chain` holds the files
    /// being read (name and canonical path), outermost first. Returns the file's index.
    fn add(
        &mut self,
        text: String,
        name: String,
        id: Option<PathBuf>,
        chain: &mut Vec<(String, Option<PathBuf>)>,
    ) -> Result<usize, RulesFileError> {
        let index = self.sources.len();
        // A fresh parser: checking must not advance the fresh names of the one that runs.
        let commands = parse(&mut Parser::default(), &name, &text)?;
        let forms = top_level_forms(&text);
        self.sources.push(Source {
            name: name.clone(),
            text: text.clone(),
            includes: Vec::new(),
        });
        chain.push((name.clone(), id));
        let mut next = 0;
        for form in forms {
            // The form alone gives the commands it stands for, in the same order as the
            // whole file's parse (egglog parses a file form by form).
            let slice = &text[form.clone()];
            let of_form = parse(&mut Parser::default(), &name, slice)?;
            let (line, column) = line_column(&text, form.start);
            for command in &of_form {
                let at = Place {
                    file: &name,
                    line,
                    column,
                };
                refuse(command, &at)?;
                if let GenericCommand::Include(_, file) = command {
                    let included = self.include(file, &at, chain)?;
                    self.sources[index].includes.push((next, included));
                }
                next += 1;
            }
        }
        if next != commands.len() {
            // Cannot happen while the forms are read as egglog reads them; if they ever
            // differ, includes would be spliced at the wrong commands.
            return Err(RulesFileError::Syntax(format!(
                "{name}: the file's commands could not be told apart"
            )));
        }
        chain.pop();
        Ok(index)
    }

    /// Reads and checks the file an include in `at` names.
    fn include(
        &mut self,
        file: &str,
        at: &Place,
        chain: &mut Vec<(String, Option<PathBuf>)>,
    ) -> Result<usize, RulesFileError> {
        let names = |chain: &[(String, Option<PathBuf>)]| -> Vec<String> {
            chain.iter().map(|(n, _)| n.clone()).collect()
        };
        let path = Path::new(file);
        let id = identity(path);
        if chain.iter().any(|(_, seen)| seen.as_ref() == Some(&id)) {
            let mut chain = names(chain);
            chain.push(file.to_string());
            return Err(at.cycle(chain));
        }
        if chain.len() >= MAX_INCLUDE_DEPTH {
            let mut chain = names(chain);
            chain.push(file.to_string());
            return Err(at.too_deep(chain));
        }
        let text = std::fs::read_to_string(path).map_err(|source| RulesFileError::Read {
            path: file.to_string(),
            chain: names(chain),
            source,
        })?;
        self.add(text, file.to_string(), Some(id), chain)
    }
}

/// Where a command is, for messages.
struct Place<'a> {
    file: &'a str,
    line: usize,
    column: usize,
}

impl Place<'_> {
    fn cycle(&self, chain: Vec<String>) -> RulesFileError {
        RulesFileError::IncludeCycle {
            file: self.file.to_string(),
            line: self.line,
            column: self.column,
            chain,
        }
    }

    fn too_deep(&self, chain: Vec<String>) -> RulesFileError {
        RulesFileError::IncludeTooDeep {
            file: self.file.to_string(),
            line: self.line,
            column: self.column,
            chain,
        }
    }
}

/// Refuses the commands that would run outside the optimizer's limits.
fn refuse(command: &Command, at: &Place) -> Result<(), RulesFileError> {
    let what = match command {
        GenericCommand::RunSchedule(_) => "`run` / `run-schedule`",
        GenericCommand::Push(_) => "`push`",
        GenericCommand::Pop(..) => "`pop`",
        GenericCommand::Fail(_, inner) => return refuse(inner, at),
        _ => return Ok(()),
    };
    Err(RulesFileError::Refused {
        file: at.file.to_string(),
        line: at.line,
        column: at.column,
        what,
    })
}

fn parse(parser: &mut Parser, name: &str, text: &str) -> Result<Vec<Command>, RulesFileError> {
    parser
        .get_program_from_string(Some(name.to_string()), text)
        .map_err(|e| RulesFileError::Syntax(e.to_string()))
}

/// What identifies a file: its canonical path, or the path as given when it has none
/// (the read that follows reports why).
fn identity(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// 1-based line and column (in characters) of byte `offset`.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[start..].chars().count() + 1)
}

/// The byte ranges of the top-level forms of `text`, read as egglog's reader does:
/// whitespace and `;` comments between forms, strings with `\` escapes, atoms ending at
/// whitespace, `;`, `(` or `)`. Only called on text egglog has parsed.
fn top_level_forms(text: &str) -> Vec<std::ops::Range<usize>> {
    let mut forms = Vec::new();
    let mut chars = text.char_indices().peekable();
    let mut depth = 0usize;
    let mut start = 0;
    let mut in_comment = false;
    while let Some((i, c)) = chars.next() {
        if in_comment {
            in_comment = c != '\n';
            continue;
        }
        let opens_form = depth == 0 && !c.is_whitespace() && c != ';';
        if opens_form {
            start = i;
        }
        match c {
            ';' => in_comment = true,
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            '"' => {
                let mut escaped = false;
                for (_, s) in chars.by_ref() {
                    match s {
                        '"' if !escaped => break,
                        '\\' if !escaped => escaped = true,
                        _ => escaped = false,
                    }
                }
            }
            c if c.is_whitespace() => continue,
            _ => {
                // An atom: up to whitespace, `;` or a parenthesis.
                while let Some(&(_, n)) = chars.peek() {
                    if n.is_whitespace() || matches!(n, ';' | '(' | ')') {
                        break;
                    }
                    chars.next();
                }
            }
        }
        if depth == 0 && c != ';' {
            let end = chars.peek().map_or(text.len(), |&(j, _)| j);
            forms.push(start..end);
        }
    }
    forms
}
