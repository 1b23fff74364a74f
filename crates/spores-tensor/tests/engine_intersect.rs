//! Sorted-list intersection (galloping and linear merge, `engine::intersect`) against the
//! hash path: on random fibers the intersection finds exactly the coordinates a hash-table
//! probe finds, at the right positions; and a multiway join whose last loop gallops counts
//! what the same join with hashed followers counts. A fiber held in `Marks` (scattered once,
//! checked against many others) finds the same pairs, across changes of the held fiber.

mod opt_support;

use std::collections::{HashMap, HashSet};

use opt_support::*;
use proptest::prelude::*;
use spores_tensor::engine::execute_query;
use spores_tensor::engine::fibertree::FiberTensor;
use spores_tensor::engine::intersect::{intersect, Marks, MAX_FIBERS};
use spores_tensor::plan_ast::{LevelFormat, PhysExpr, PhysicalQuery, Protocol};

/// Sorted, duplicate-free fibers over `0..universe`, of mixed lengths (so both the linear
/// merge and galloping run).
fn fibers() -> impl Strategy<Value = Vec<Vec<u32>>> {
    (2usize..=4, 1u32..400).prop_flat_map(|(n, universe)| {
        prop::collection::vec(
            prop::collection::btree_set(0..universe, 0..(universe as usize).min(200)),
            n,
        )
        .prop_map(|sets| sets.into_iter().map(|s| s.into_iter().collect()).collect())
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn intersection_finds_what_hash_lookups_find(
        lists in fibers(),
        driver_pick in 0usize..4,
        cut in 0usize..200,
    ) {
        let driver = driver_pick % lists.len();
        let refs: Vec<&[u32]> = lists.iter().map(|l| l.as_slice()).collect();
        // The hash path: walk the driver's part, probe a hash table of every other fiber.
        let tables: Vec<HashMap<u32, usize>> = lists
            .iter()
            .map(|l| l.iter().enumerate().map(|(k, &c)| (c, k)).collect())
            .collect();
        let part = cut.min(lists[driver].len())..lists[driver].len();
        let want: Vec<(u32, Vec<usize>)> = lists[driver][part.clone()]
            .iter()
            .filter_map(|c| {
                let ks: Option<Vec<usize>> = tables.iter().map(|t| t.get(c).copied()).collect();
                ks.map(|ks| (*c, ks))
            })
            .collect();
        let mut got = vec![];
        intersect(&refs, driver, part, |c, ks| got.push((c, ks.to_vec())));
        prop_assert_eq!(got, want);
    }

    /// One `Marks` holding each fiber in turn (a fiber again right after itself: kept) finds,
    /// against every fiber, exactly the pairs the hash path finds.
    #[test]
    fn marks_find_what_hash_lookups_find(lists in fibers(), again in 0usize..4) {
        let universe = lists.iter().flatten().max().map_or(1, |&m| m as usize + 1);
        // All fibers laid out as one level's `idx`, as a fibertree stores them.
        let idx: Vec<u32> = lists.iter().flatten().copied().collect();
        let mut starts = vec![0usize];
        for l in &lists {
            starts.push(starts.last().unwrap() + l.len());
        }
        let mut marks = Marks::default();
        let mut order: Vec<usize> = (0..lists.len()).collect();
        order.insert(again % lists.len(), again % lists.len());
        for held in order {
            marks.hold(&idx, held, starts[held]..starts[held + 1], universe);
            let table: HashMap<u32, usize> =
                lists[held].iter().enumerate().map(|(k, &c)| (c, k)).collect();
            for other in &lists {
                let want: Vec<(u32, usize, usize)> = other
                    .iter()
                    .enumerate()
                    .filter_map(|(j, c)| table.get(c).map(|&k| (*c, k, j)))
                    .collect();
                let mut got = vec![];
                marks.intersect(other, |c, k, j| got.push((c, k, j)));
                prop_assert_eq!(got, want);
            }
        }
    }

    /// The triangle join with its last loop intersected equals the join whose followers are
    /// hash levels looked up, on random graphs of every density.
    #[test]
    fn a_galloping_join_counts_what_hashed_lookups_count(
        n in 2usize..40,
        density in 0.02f64..0.9,
        seed in 0u64..1000,
    ) {
        let coo = random_halves(vec![n, n], density, 0.0, seed);
        let sorted = FiberTensor::from_coo(&coo, &[LevelFormat::Dense, LevelFormat::SortedList]);
        let hashed = FiberTensor::from_coo(&coo, &[LevelFormat::Dense, LevelFormat::Hash]);
        let src = "t = sum[i,j,k](E[i,j] * E[j,k] * E[i,k])";
        let mut hash_path = kernel(src, &["i", "j", "k"], None, &[]);
        set_protocols(&mut hash_path, &[
            vec![Protocol::Iterate, Protocol::Iterate],
            vec![Protocol::Lookup, Protocol::Iterate],
            vec![Protocol::Lookup, Protocol::Lookup],
        ]);
        let mut gallop_path = hash_path.clone();
        set_protocols(&mut gallop_path, &[
            vec![Protocol::Iterate, Protocol::Iterate],
            vec![Protocol::Lookup, Protocol::Gallop],
            vec![Protocol::Lookup, Protocol::Gallop],
        ]);
        let by_hash = execute_query(&hash_path, &|_, _| Some(&hashed)).unwrap();
        let by_gallop = execute_query(&gallop_path, &|_, _| Some(&sorted)).unwrap();
        let by_gallop_on_hash = execute_query(&gallop_path, &|_, _| Some(&hashed)).unwrap();
        prop_assert_eq!(by_hash.vals[0], by_gallop.vals[0]);
        prop_assert_eq!(by_hash.vals[0], by_gallop_on_hash.vals[0]);
    }
}

fn set_protocols(q: &mut PhysicalQuery, protocols: &[Vec<Protocol>]) {
    let PhysExpr::Map { args, .. } = &mut q.body else {
        panic!("a product");
    };
    for (a, p) in args.iter_mut().zip(protocols) {
        let PhysExpr::Access(a) = a else {
            panic!("an access")
        };
        a.protocols = p.clone();
    }
}

#[test]
fn more_fibers_than_the_stack_holds_are_refused_at_planning_not_here() {
    // The planner never asks for more (`MAX_FIBERS`); the kernel states its limit.
    let list = [1u32, 2, 3];
    let refs = vec![&list[..]; MAX_FIBERS];
    let mut seen = HashSet::new();
    intersect(&refs, 0, 0..3, |c, ks| {
        assert_eq!(ks, &[c as usize - 1; MAX_FIBERS][..]);
        seen.insert(c);
    });
    assert_eq!(seen, HashSet::from([1, 2, 3]));
}
