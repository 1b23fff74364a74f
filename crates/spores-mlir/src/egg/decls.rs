//! Which MLIR operations the e-graph knows: the op constructors declared in the prelude and
//! the user's rule file, read from the parsed egglog program.
//!
//! A constructor is an op declaration when its output sort is `Op` and its inputs are some
//! `Op`s (the operands), then some `AttrPair`s (the attributes, sorted by name), then one
//! `Type` (the result type). Anything else (helpers, analyses) is left to egglog, except the
//! data constructors of DialEgg's vocabulary ([`DialEggWords`]), which a 2024-dialect file
//! declares as functions or datatype variants.

use std::collections::{HashMap, HashSet};

use egglog::ast::{Command, GenericCommand};

use super::egglog2024::Schedule;
use super::terms::{DialEggWords, Vocabulary, DIALEGG_CTORS};

/// One declared op.
#[derive(Clone, Debug, PartialEq)]
pub struct OpDecl {
    /// The egglog constructor (`arith_addf`, `func_call_1`).
    pub ctor: String,
    /// The MLIR op name it stands for (`arith.addf`, `func.call`).
    pub mlir_name: String,
    /// Number of operands.
    pub operands: usize,
    /// Number of attribute slots.
    pub attrs: usize,
    /// The fixed cost (`:cost`, default 1).
    pub cost: f64,
    /// The type-dependent cost table `<ctor>_cost`, when declared.
    pub cost_table: Option<String>,
    /// Whether an e-node without an entry in the cost table costs `cost` (the 2024 dialect's
    /// `unstable-cost`) rather than being left out of extraction.
    pub unpriced_at_fixed_cost: bool,
}

/// All op declarations of a program.
#[derive(Clone, Debug, Default)]
pub struct Decls {
    /// By constructor name.
    pub by_ctor: HashMap<String, OpDecl>,
    /// Constructor names in declaration order (for deterministic iteration).
    pub order: Vec<String>,
    /// Rulesets declared with `(ruleset NAME)`, in declaration order: the optimizer runs
    /// them as stages after the default ruleset (see [`crate::egg::optimize`]).
    pub rulesets: Vec<String>,
    /// The rule file's own schedule (its `run`s, in the 2024 dialect): when present, it is
    /// what saturation runs instead of the stages.
    pub schedule: Option<Vec<Schedule>>,
    /// How types and attributes are spelled.
    pub vocabulary: Vocabulary,
    /// The data constructors of DialEgg's vocabulary the program declares.
    pub dialegg_words: DialEggWords,
    /// Op names and `@callee`s the rule file declares pure (`pure-op`, see
    /// [`super::effects`]).
    pub pure_ops: HashSet<String>,
}

/// Dialect namespaces that contain an underscore, so that `sparse_tensor_convert` maps back to
/// `sparse_tensor.convert` and not `sparse.tensor_convert`.
const UNDERSCORE_DIALECTS: &[&str] = &["sparse_tensor", "arm_sme", "arm_neon", "arm_sve", "amx_"];

/// The egglog constructor name of an MLIR op name: dots become underscores.
pub fn ctor_name(mlir_name: &str) -> String {
    mlir_name.replace('.', "_")
}

/// The MLIR op name for a constructor with `operands` operands: a `_N` arity suffix (when
/// `N == operands`) is dropped, and the dialect ends at the first underscore (or after a known
/// dialect name that contains one).
pub fn mlir_name(ctor: &str, operands: usize) -> String {
    let base = match ctor.rsplit_once('_') {
        Some((b, n)) if n.parse::<usize>().ok() == Some(operands) && b.contains('_') => b,
        _ => ctor,
    };
    for d in UNDERSCORE_DIALECTS {
        if let Some(rest) = base.strip_prefix(d).and_then(|r| r.strip_prefix('_')) {
            return format!("{d}.{rest}");
        }
    }
    match base.split_once('_') {
        Some((d, rest)) => format!("{d}.{rest}"),
        None => base.to_string(),
    }
}

impl Decls {
    /// Collects the op declarations of parsed commands (prelude first, then user files).
    pub fn read(commands: &[Command]) -> Decls {
        let mut decls = Decls::default();
        let mut functions: HashMap<String, Vec<String>> = HashMap::new();
        // Constructor → (input sorts, output sort), for DialEgg's vocabulary.
        let mut ctors: HashMap<String, (Vec<String>, String)> = HashMap::new();
        for c in commands {
            match c {
                GenericCommand::Constructor { name, schema, .. } => {
                    ctors.insert(name.clone(), (schema.input.clone(), schema.output.clone()));
                }
                GenericCommand::Datatype { name, variants, .. } => {
                    for v in variants {
                        ctors.insert(v.name.clone(), (v.types.clone(), name.clone()));
                    }
                }
                GenericCommand::Datatypes { datatypes, .. } => {
                    for (_, name, sub) in datatypes {
                        if let egglog::ast::Subdatatypes::Variants(variants) = sub {
                            for v in variants {
                                ctors.insert(v.name.clone(), (v.types.clone(), name.clone()));
                            }
                        }
                    }
                }
                _ => {}
            }
            match c {
                GenericCommand::Constructor {
                    name, schema, cost, ..
                } if schema.output == "Op" => {
                    let inputs = &schema.input;
                    let Some((last, rest)) = inputs.split_last() else {
                        continue;
                    };
                    if last != "Type" {
                        continue;
                    }
                    let operands = rest.iter().take_while(|s| *s == "Op").count();
                    let attrs = rest[operands..]
                        .iter()
                        .take_while(|s| *s == "AttrPair")
                        .count();
                    if operands + attrs != rest.len() || name == "Value" {
                        continue;
                    }
                    if !decls.by_ctor.contains_key(name) {
                        decls.order.push(name.clone());
                    }
                    decls.by_ctor.insert(
                        name.clone(),
                        OpDecl {
                            ctor: name.clone(),
                            mlir_name: mlir_name(name, operands),
                            operands,
                            attrs,
                            cost: cost.map_or(1.0, |c| c as f64),
                            cost_table: None,
                            unpriced_at_fixed_cost: false,
                        },
                    );
                }
                GenericCommand::Function { name, schema, .. } if schema.output == "i64" => {
                    functions.insert(name.clone(), schema.input.clone());
                }
                GenericCommand::AddRuleset(_, name) if !decls.rulesets.contains(name) => {
                    decls.rulesets.push(name.clone());
                }
                _ => {}
            }
        }
        for name in DIALEGG_CTORS {
            if let Some((inputs, _)) = ctors.get(*name) {
                decls
                    .dialegg_words
                    .ctors
                    .insert(name.to_string(), inputs.len());
            }
        }
        if let Some((flags, _)) = ctors.get("arith_fastmath").filter(|(i, _)| i.len() == 1) {
            let mut names: Vec<String> = ctors
                .iter()
                .filter(|(_, (inputs, output))| inputs.is_empty() && *output == flags[0])
                .map(|(n, _)| n.clone())
                .collect();
            names.sort();
            decls.dialegg_words.fastmath_flags = names;
        }
        for name in &decls.order {
            let table = format!("{name}_cost");
            if let Some(inputs) = functions.get(&table) {
                let d = decls.by_ctor.get_mut(name).expect("declared");
                if inputs.len() == d.operands + d.attrs + 1 {
                    d.cost_table = Some(table);
                }
            }
        }
        decls
    }

    /// Reads the program's types and attributes as DialEgg's vocabulary spells them, and
    /// prices e-nodes without a cost-table entry at their fixed cost (the 2024 dialect).
    pub fn use_dialegg_vocabulary(&mut self) {
        self.vocabulary = Vocabulary::DialEgg(self.dialegg_words.clone());
        for d in self.by_ctor.values_mut() {
            d.unpriced_at_fixed_cost = true;
        }
    }

    /// Leaves e-nodes without a cost-table entry out of extraction, whatever the dialect.
    pub fn keep_unpriced_out(&mut self) {
        for d in self.by_ctor.values_mut() {
            d.unpriced_at_fixed_cost = false;
        }
    }

    /// The declaration that covers an input op `mlir_name` with `operands` operands and
    /// `attrs` (non-structural) attributes: `dialect_name` with that arity, else
    /// `dialect_name_N`.
    pub fn lookup(&self, mlir_name: &str, operands: usize, attrs: usize) -> Option<&OpDecl> {
        let base = ctor_name(mlir_name);
        let fits = |d: &&OpDecl| d.operands == operands && d.attrs == attrs;
        self.by_ctor
            .get(&base)
            .filter(fits)
            .or_else(|| self.by_ctor.get(&format!("{base}_{operands}")).filter(fits))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_map_both_ways() {
        assert_eq!(ctor_name("arith.addf"), "arith_addf");
        assert_eq!(mlir_name("arith_addf", 2), "arith.addf");
        assert_eq!(mlir_name("arith_index_cast", 1), "arith.index_cast");
        assert_eq!(mlir_name("func_call_1", 1), "func.call");
        assert_eq!(mlir_name("tensor_extract_3", 3), "tensor.extract");
        assert_eq!(
            mlir_name("sparse_tensor_convert", 1),
            "sparse_tensor.convert"
        );
    }

    #[test]
    fn declarations_are_read_from_constructors() {
        let mut eg = egglog::EGraph::default();
        let cmds = eg
            .parse_program(
                None,
                "(datatype Type (F32)) (datatype AttrPair (N i64)) (datatype Op (Value i64 Type))
                 (constructor arith_addf (Op Op AttrPair Type) Op :cost 3)
                 (constructor linalg_matmul (Op Op Op Type) Op)
                 (function linalg_matmul_cost (Op Op Op Type) i64 :merge (min old new))
                 (constructor helper (Op) Op)
                 (ruleset prices) (ruleset splits)",
            )
            .expect("parses");
        let d = Decls::read(&cmds);
        assert_eq!(d.order, vec!["arith_addf", "linalg_matmul"]);
        let add = &d.by_ctor["arith_addf"];
        assert_eq!((add.operands, add.attrs, add.cost), (2, 1, 3.0));
        assert_eq!(
            d.by_ctor["linalg_matmul"].cost_table.as_deref(),
            Some("linalg_matmul_cost")
        );
        assert!(d.lookup("arith.addf", 2, 1).is_some());
        assert!(d.lookup("arith.addf", 2, 0).is_none());
        assert_eq!(d.rulesets, vec!["prices", "splits"]);
    }
}
