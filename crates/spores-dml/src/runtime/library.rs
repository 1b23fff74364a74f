//! The functions a run can call, and the files they come from.
//!
//! A call resolves as SystemDS resolves it: to a function the calling file defines, to a
//! function of a file it sources (`source("f.dml") as ns`, called as `ns::f(...)`), to a
//! native builtin (see `dag::lower`), and otherwise to a DML-bodied builtin: the file
//! `NAME.dml` in the builtin directory, whose function is `m_NAME` (or `s_NAME`). Each
//! file is its own namespace, so a builtin's helper functions neither leak into nor clash
//! with its caller's.
//!
//! Files are parsed once, when first needed, and kept for the whole run: the interpreter
//! keys its compiled blocks by the addresses of statements, so a loaded program must
//! neither move nor be freed while the run lasts. Units are therefore only ever appended,
//! and their functions are shared (`Rc`), never cloned.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::Arc;

use spores_lang::ast::{FunctionDef, Program, SourceImport};
use spores_lang::diag::{Diagnostic, SourceFile, Span};

use crate::dag::{FunctionScope, ResolvedFunction};

/// Index of a loaded file in its [`Library`]; the script being run is [`MAIN_UNIT`].
pub type UnitId = usize;

/// The script being run.
pub const MAIN_UNIT: UnitId = 0;

/// One loaded file: its functions and the namespaces it sources.
struct Unit {
    /// Name and text, for errors raised in this file.
    file: Arc<SourceFile>,
    functions: HashMap<String, Rc<FunctionDef>>,
    /// `source(...) as ns`: namespace to unit (filled once the sources have loaded).
    namespaces: RefCell<HashMap<String, UnitId>>,
    /// Prefix making this unit's function names unique in the run (empty for the script).
    prefix: String,
}

/// Every file of a run, loaded on demand.
pub struct Library {
    units: RefCell<Vec<Rc<Unit>>>,
    /// Canonical path to unit, so a file sourced twice is loaded once.
    by_path: RefCell<HashMap<PathBuf, UnitId>>,
    /// Unit prefixes in use, to keep function keys unique.
    prefixes: RefCell<HashSet<String>>,
    /// Function key (as in `Op::Call`) to its unit and definition.
    keyed: RefCell<HashMap<String, (UnitId, Rc<FunctionDef>)>>,
    /// Where `NAME.dml` builtins are looked up; `None` when no directory was given.
    builtin_dir: Option<PathBuf>,
    /// Directory of the script, against which its `source` paths resolve.
    script_dir: Option<PathBuf>,
}

impl Library {
    /// A library whose main unit is `program` (its sources are loaded by
    /// [`Library::load_main_sources`]).
    pub fn new(
        program: &Program,
        script_dir: Option<PathBuf>,
        builtin_dir: Option<PathBuf>,
    ) -> Self {
        let library = Library {
            units: RefCell::new(Vec::new()),
            by_path: RefCell::new(HashMap::new()),
            prefixes: RefCell::new(HashSet::new()),
            keyed: RefCell::new(HashMap::new()),
            builtin_dir,
            script_dir,
        };
        let file = Arc::new(SourceFile {
            name: String::new(),
            text: String::new(),
        });
        library.add_unit(file, program, String::new());
        library
    }

    /// Loads the files the script sources, and the files those source, transitively.
    pub fn load_main_sources(&self, program: &Program) -> Result<(), Diagnostic> {
        let dir = self.script_dir.clone();
        let namespaces = self.load_sources(&program.sources, dir.as_deref())?;
        *self.unit(MAIN_UNIT).namespaces.borrow_mut() = namespaces;
        Ok(())
    }

    /// The unit's file, for errors raised inside it.
    pub fn file(&self, unit: UnitId) -> Arc<SourceFile> {
        self.units.borrow()[unit].file.clone()
    }

    /// The function a call node names, and the unit it belongs to.
    pub fn function(&self, key: &str) -> Option<(UnitId, Rc<FunctionDef>)> {
        self.keyed.borrow().get(key).cloned()
    }

    /// The resolution scope of code in `unit`.
    pub fn scope(&self, unit: UnitId) -> UnitScope<'_> {
        UnitScope {
            library: self,
            unit,
        }
    }

    fn add_unit(&self, file: Arc<SourceFile>, program: &Program, label: String) -> UnitId {
        let mut units = self.units.borrow_mut();
        let id = units.len();
        let prefix = if id == MAIN_UNIT {
            String::new()
        } else {
            let mut prefixes = self.prefixes.borrow_mut();
            let mut prefix = format!("{label}::");
            if !prefixes.insert(prefix.clone()) {
                prefix = format!("{label}#{id}::");
                prefixes.insert(prefix.clone());
            }
            prefix
        };
        let functions: HashMap<String, Rc<FunctionDef>> = program
            .functions
            .iter()
            .map(|f| (f.name.clone(), Rc::new(f.clone())))
            .collect();
        let mut keyed = self.keyed.borrow_mut();
        for (name, def) in &functions {
            keyed.insert(format!("{prefix}{name}"), (id, def.clone()));
        }
        units.push(Rc::new(Unit {
            file,
            functions,
            namespaces: RefCell::new(HashMap::new()),
            prefix,
        }));
        id
    }

    /// Loads (once) and parses a file, then the files it sources.
    fn load_file(&self, path: &Path, label: &str, span: Span) -> Result<UnitId, Diagnostic> {
        let canonical = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
        if let Some(&id) = self.by_path.borrow().get(&canonical) {
            return Ok(id);
        }
        let text = std::fs::read_to_string(path).map_err(|e| {
            Diagnostic::unsupported(format!("cannot read {}: {e}", path.display()), span)
        })?;
        let file = Arc::new(SourceFile {
            name: path.display().to_string(),
            text,
        });
        let program = spores_lang::parse(&file.text).map_err(|d| d.in_file(&file))?;
        let id = self.add_unit(file.clone(), &program, label.to_string());
        // Registered before its sources load, so a cycle of sources ends here.
        self.by_path.borrow_mut().insert(canonical, id);
        let namespaces = self
            .load_sources(&program.sources, path.parent())
            .map_err(|d| d.in_file(&file))?;
        *self.unit(id).namespaces.borrow_mut() = namespaces;
        Ok(id)
    }

    fn load_sources(
        &self,
        sources: &[SourceImport],
        dir: Option<&Path>,
    ) -> Result<HashMap<String, UnitId>, Diagnostic> {
        let mut namespaces = HashMap::new();
        for import in sources {
            // SystemDS's libraries source each other relative to its root, which the
            // builtin directory sits in.
            let path = resolve_source_path(dir, &import.path)
                .or_else(|| resolve_source_path(self.builtin_dir.as_deref(), &import.path))
                .ok_or_else(|| {
                    let mut places = vec![];
                    if let Some(d) = dir {
                        places.push(format!("{} and the folders above it", d.display()));
                    }
                    places.push("the working directory".to_string());
                    if let Some(b) = &self.builtin_dir {
                        places.push(format!("{} and the folders above it", b.display()));
                    }
                    Diagnostic::unsupported(
                        format!(
                            "cannot find the sourced file `{}` (looked in {})",
                            import.path,
                            places.join(", ")
                        ),
                        import.span,
                    )
                })?;
            let label = import.path.trim_end_matches(".dml").to_string();
            let id = self.load_file(&path, &label, import.span)?;
            namespaces.insert(import.namespace.clone(), id);
            // `eval("path.dml::f")` names the namespace by its sourced path, as SystemDS
            // allows; a path cannot be written as a namespace, so the keys never clash.
            namespaces.entry(import.path.clone()).or_insert(id);
        }
        Ok(namespaces)
    }

    fn unit(&self, id: UnitId) -> Rc<Unit> {
        self.units.borrow()[id].clone()
    }

    /// Function `name` of `unit`, called as `called`.
    fn resolved(&self, unit: &Unit, name: &str, called: &str) -> ResolvedFunction {
        let def = unit.functions[name].clone();
        ResolvedFunction {
            key: format!("{}{name}", unit.prefix),
            name: called.to_string(),
            def,
        }
    }

    /// `NAME.dml` in the builtin directory, function `m_NAME`, `f_NAME` or `s_NAME`.
    fn builtin(&self, name: &str, span: Span) -> Result<ResolvedFunction, Diagnostic> {
        let Some(dir) = &self.builtin_dir else {
            return Err(Diagnostic::new(
                format!(
                    "unknown function `{name}`: it is not defined in this file, not a native \
                     builtin, and no builtin directory is set to look for `{name}.dml` in \
                     (use --builtins DIR or set SYSTEMDS_ROOT)"
                ),
                span,
            ));
        };
        let path = dir.join(format!("{name}.dml"));
        if !path.is_file() {
            return Err(Diagnostic::new(
                format!(
                    "unknown function `{name}`: it is not defined in this file, not a native \
                     builtin, and there is no {}",
                    path.display()
                ),
                span,
            ));
        }
        let id = self.load_file(&path, name, span)?;
        let unit = self.unit(id);
        // SystemDS names a builtin's function after its first argument's type: `m_` for
        // a matrix, `f_` for a frame, `s_` for a scalar; each file defines one of them.
        for candidate in [
            format!("m_{name}"),
            format!("f_{name}"),
            format!("s_{name}"),
        ] {
            if unit.functions.contains_key(&candidate) {
                return Ok(self.resolved(&unit, &candidate, name));
            }
        }
        Err(Diagnostic::new(
            format!(
                "the builtin file {} defines none of `m_{name}`, `f_{name}` and `s_{name}`",
                path.display()
            ),
            span,
        ))
    }
}

/// Name resolution for code in one unit (see the module documentation).
pub struct UnitScope<'l> {
    library: &'l Library,
    unit: UnitId,
}

impl FunctionScope for UnitScope<'_> {
    fn local(&self, name: &str, span: Span) -> Result<Option<ResolvedFunction>, Diagnostic> {
        let unit = self.library.unit(self.unit);
        let Some((namespace, function)) = name.split_once("::") else {
            return match unit.functions.contains_key(name) {
                true => Ok(Some(self.library.resolved(&unit, name, name))),
                false => Ok(None),
            };
        };
        let target = unit.namespaces.borrow().get(namespace).copied();
        let Some(target) = target else {
            return Err(Diagnostic::new(
                format!(
                    "unknown namespace `{namespace}` in `{name}`: no `source(...) as {namespace}` \
                     in this file"
                ),
                span,
            ));
        };
        let target = self.library.unit(target);
        if !target.functions.contains_key(function) {
            return Err(Diagnostic::new(
                format!(
                    "`{}` (sourced as `{namespace}`) has no function `{function}`",
                    target.file.name
                ),
                span,
            ));
        }
        Ok(Some(self.library.resolved(&target, function, name)))
    }

    fn builtin(&self, name: &str, span: Span) -> Result<ResolvedFunction, Diagnostic> {
        self.library.builtin(name, span)
    }
}

/// Where `source("path")` in a file of directory `dir` points: `dir/path`, else `path`
/// below one of the folders above `dir` (SystemDS's own libraries source
/// `nn/layers/x.dml` and `scripts/nn/util.dml` from deep inside its tree, relative to its
/// root), else the working directory.
pub fn resolve_source_path(dir: Option<&Path>, path: &str) -> Option<PathBuf> {
    let path = Path::new(path);
    if path.is_absolute() {
        return path.is_file().then(|| path.to_path_buf());
    }
    dir.into_iter()
        .flat_map(Path::ancestors)
        .map(|d| d.join(path))
        .chain(std::iter::once(path.to_path_buf()))
        .find(|p| p.is_file())
}
