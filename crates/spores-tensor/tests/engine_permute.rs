//! A transposition kernel (`T[p,b,s] = L[b,s,p]`) runs as a sort of the input's entries
//! by their coordinates in the new order, and stores exactly what the interpreter stores:
//! every reordering of three modes, inputs in dense, sorted and hashed levels, a fill other
//! than 0 with stored values equal to it, results small enough to sort directly and large
//! enough for the radix passes; a diagonal is left to the interpreter.

mod opt_support;

use std::collections::HashMap;

use opt_support::*;
use rand::RngExt;
use spores_tensor::engine::{execute_query, permute::transposition, FiberTensor};
use spores_tensor::plan_ast::{Idx, LevelFormat, PhysicalQuery};

use LevelFormat::{Dense, Hash, SortedList};

fn idxs(names: &[&str]) -> Vec<Idx> {
    names.iter().map(|n| Idx::new(n)).collect()
}

/// `name` = `source[from]` stored in the mode order `to`, in `formats`.
fn reorder(from: &[&str], to: &[&str], formats: &[LevelFormat]) -> PhysicalQuery {
    PhysicalQuery::transpose(
        "T".into(),
        "X",
        false,
        &idxs(from),
        idxs(to),
        formats.to_vec(),
    )
}

#[test]
fn every_reordering_stores_what_the_interpreter_stores() {
    let orders: [[&str; 3]; 5] = [
        ["i", "k", "j"],
        ["j", "i", "k"],
        ["j", "k", "i"],
        ["k", "i", "j"],
        ["k", "j", "i"],
    ];
    let mut r = rng(41);
    // (dims, density): a few hundred entries (sorted directly) and tens of thousands (the
    // radix passes).
    for (dims, density) in [([7usize, 30, 11], 0.2), ([40, 300, 25], 0.15)] {
        for fill in [0.0, 1.5] {
            // A tenth of the stored values equal the fill: neither path stores them.
            let x = random_tensor(&mut r, &dims, density, fill, |r| {
                if r.random::<f64>() < 0.1 {
                    fill
                } else {
                    r.random_range(-2.0..2.0)
                }
            });
            for in_formats in [
                [Dense, SortedList, SortedList],
                [SortedList, Hash, SortedList],
                [Dense, Dense, Dense],
            ] {
                let mut inputs = HashMap::new();
                inputs.insert("X".to_string(), FiberTensor::from_coo(&x, &in_formats));
                let lookup = |n: &str, _: bool| inputs.get(n);
                for to in &orders {
                    for out_formats in [[Dense, SortedList, SortedList], [SortedList; 3]] {
                        let q = reorder(&["i", "j", "k"], to, &out_formats);
                        let context = format!(
                            "{dims:?} fill {fill}, {in_formats:?} to {to:?} {out_formats:?}"
                        );
                        let fast = transposition(&q, &lookup)
                            .unwrap_or_else(|| panic!("{context}: a reordering is taken"))
                            .unwrap();
                        let slow = execute_query(&q, &lookup).unwrap();
                        assert_eq!(fast.formats(), slow.formats(), "{context}");
                        assert_eq!(fast.fill, slow.fill, "{context}");
                        assert_eq!(fast.to_coo().unwrap(), slow.to_coo().unwrap(), "{context}");
                        assert!(fast.vals.len() > 100, "{context}: the test needs entries");
                    }
                }
            }
        }
    }
}

#[test]
fn only_reorderings_are_taken() {
    let mut r = rng(42);
    let x = random_tensor(&mut r, &[5, 5, 4], 0.3, 0.0, |r| r.random_range(-1.0..1.0));
    let mut inputs = HashMap::new();
    inputs.insert(
        "X".to_string(),
        FiberTensor::from_coo(&x, &[Dense, SortedList, SortedList]),
    );
    let lookup = |n: &str, _: bool| inputs.get(n);
    // The identity is a copy (the pointwise map of stored values takes it), a repeated index
    // a diagonal, a dropped one an aggregate's business.
    for (from, to) in [
        (["i", "j", "k"], vec!["i", "j", "k"]),
        (["i", "i", "k"], vec!["k", "i"]),
        (["i", "j", "k"], vec!["k", "j"]),
    ] {
        let q = reorder(&from, &to, &vec![SortedList; to.len()]);
        assert!(
            transposition(&q, &lookup).is_none(),
            "{from:?} -> {to:?} is no reordering"
        );
    }
}
