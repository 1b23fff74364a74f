//! How each access is read by its kernel: in a mode order concordant with the kernel's
//! loops, as stored (an input as given, a result in the order pass 2 stored it), swapped
//! (a symmetric matrix is its own transpose), or through a transposition kernel made once per
//! source and permutation and shared by every kernel that needs it.
//!
//! Its own module because it is where kernels are added to the plan beyond the logical
//! queries (the transpositions), and it keeps the table of those made so far.

use std::collections::HashMap;

use super::accesses::{access_expr, Acc, Stats};
use super::formats::{choose_formats, input_formats};
use super::loop_order::concordant;
use super::optimize::PhysicalOptions;
use crate::plan_ast::{Idx, LevelFormat, PhysicalQuery};

/// An access as a kernel reads it (see pass 3 of [`optimize`](super::optimize())).
pub(super) struct Read {
    pub(super) name: String,
    pub(super) is_alias: bool,
    /// Concordant with the kernel's loop order.
    pub(super) idxs: Vec<Idx>,
    /// Level format of each mode of `idxs`.
    pub(super) formats: Vec<LevelFormat>,
}

/// What pass 3 knows of the results so far, and the transposition kernels it has made.
pub(super) struct Reader {
    /// Storage order of every result (pass 2).
    pub(super) stored: HashMap<String, Vec<Idx>>,
    /// Declared index order of every result planned so far.
    pub(super) declared: HashMap<String, Vec<Idx>>,
    /// Level formats of every result in its stored order (what its consumers read).
    pub(super) result_formats: HashMap<String, Vec<LevelFormat>>,
    /// (source, permutation) → (transposition kernel, its formats).
    transposes: HashMap<(String, Vec<Idx>), (String, Vec<LevelFormat>)>,
}

impl Reader {
    /// A reader before any kernel, with the storage orders of pass 2.
    pub(super) fn new(stored: HashMap<String, Vec<Idx>>) -> Reader {
        Reader {
            stored,
            declared: HashMap::new(),
            result_formats: HashMap::new(),
            transposes: HashMap::new(),
        }
    }

    /// How a kernel looping in `loop_order` reads `a`; a transposition it needs that was not
    /// made before is appended to `prelude`.
    pub(super) fn read(
        &mut self,
        a: &Acc,
        loop_order: &[Idx],
        st: &Stats,
        options: &PhysicalOptions,
        prelude: &mut Vec<PhysicalQuery>,
    ) -> Read {
        let stored = self.as_stored(a, st);
        if concordant(&stored.idxs, loop_order) {
            stored
        } else if a.symmetric {
            Read {
                idxs: vec![stored.idxs[1].clone(), stored.idxs[0].clone()],
                ..stored
            }
        } else {
            self.transposed(a, stored, loop_order, st, options, prelude)
        }
    }

    /// `a` in the mode order its tensor is stored in, with that tensor's level formats.
    fn as_stored(&self, a: &Acc, st: &Stats) -> Read {
        if a.is_alias {
            let decl = &self.declared[&a.name];
            let store = &self.stored[&a.name];
            let idxs: Vec<Idx> = store
                .iter()
                .map(|s| a.idxs[decl.iter().position(|d| d == s).expect("declared")].clone())
                .collect();
            let formats = self.result_formats[&a.name].clone();
            Read {
                name: a.name.clone(),
                is_alias: true,
                idxs,
                formats,
            }
        } else {
            let s = st.leaf(&access_expr(a)).expect("stats computed in pass 1");
            let formats = input_formats(&s, &a.idxs, &st.sizes);
            Read {
                name: a.name.clone(),
                is_alias: false,
                idxs: a.idxs.clone(),
                formats,
            }
        }
    }

    /// `stored` read through its transposition into `loop_order`, made on first use.
    fn transposed(
        &mut self,
        a: &Acc,
        stored: Read,
        loop_order: &[Idx],
        st: &Stats,
        options: &PhysicalOptions,
        prelude: &mut Vec<PhysicalQuery>,
    ) -> Read {
        let Read {
            name,
            is_alias,
            idxs,
            ..
        } = stored;
        let mut sorted = idxs.clone();
        sorted.sort_by_key(|i| loop_order.iter().position(|l| l == i));
        let perm: Vec<usize> = sorted
            .iter()
            .map(|s| idxs.iter().position(|i| i == s).expect("same indices"))
            .collect();
        let key = (name.clone(), positional(&perm));
        let (t_name, t_formats) = match self.transposes.get(&key) {
            Some(t) => t.clone(),
            None => {
                let t = format!("{name}__T{}", self.transposes.len() + 1);
                let src_stats = st.leaf(&access_expr(a)).expect("stats");
                let formats = choose_formats(&src_stats, &sorted, &idxs, &st.sizes, options);
                prelude.push(PhysicalQuery::transpose(
                    t.clone(),
                    &name,
                    is_alias,
                    &idxs,
                    sorted.clone(),
                    formats.clone(),
                ));
                self.transposes.insert(key, (t.clone(), formats.clone()));
                (t, formats)
            }
        };
        Read {
            name: t_name,
            is_alias: true,
            idxs: sorted,
            formats: t_formats,
        }
    }
}

/// A permutation as index names (`0`, `1`, ...), the key of a transposition.
fn positional(perm: &[usize]) -> Vec<Idx> {
    perm.iter().map(|p| Idx::new(&p.to_string())).collect()
}
