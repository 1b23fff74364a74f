//! Fuzzing the tensor front ends: mutated programs never panic the parser, and mutated
//! `.tns`, edge-list, Matrix Market and `.npy` files never panic the readers; every
//! rejection is an error value. `SPORES_FUZZ_CASES=100000` runs a longer campaign.

#[path = "fuzz/mutate.rs"]
mod mutate;

use mutate::{apply, cases, mutation};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

fn example(name: &str) -> Vec<u8> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/tensor");
    std::fs::read(dir.join(name)).expect("the example exists")
}

fn runner() -> TestRunner {
    TestRunner::new(Config {
        cases: cases(400),
        failure_persistence: None,
        ..Config::default()
    })
}

#[test]
fn mutated_programs_never_panic_the_parser() {
    let seeds: Vec<Vec<u8>> = vec![
        example("triangles.tp"),
        example("features.tp"),
        b"X[i,j] = sum[k](A[i,k] * max(B[k,j], 0) + 2)\ns = sum[i,j](X[i,j] > 1)\n".to_vec(),
    ];
    let strategy = (0..seeds.len(), proptest::collection::vec(mutation(), 1..6));
    runner()
        .run(&strategy, |(k, edits)| {
            let text = String::from_utf8_lossy(&apply(&seeds[k], &edits)).into_owned();
            if let Err(e) = spores_tensor::parse::parse_program(&text) {
                prop_assert!(!e.to_string().is_empty());
            }
            Ok(())
        })
        .unwrap();
}

#[test]
fn mutated_files_never_panic_the_readers() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("tensor-fuzz");
    std::fs::create_dir_all(&dir).unwrap();
    let mut npy =
        b"\x93NUMPY\x01\x00v\x00{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }"
            .to_vec();
    npy.resize(10 + 0x76, b' ');
    npy.push(b'\n');
    for v in [1.0f64, 0.0, -2.5, 4.0] {
        npy.extend_from_slice(&v.to_le_bytes());
    }
    let seeds: Vec<(&str, Vec<u8>)> = vec![
        ("tns", example("S.tns")),
        (
            "tns",
            b"# dims [3, 4, 2] fill 0\n1 1 1 2.5\n3 4 2 -1\n".to_vec(),
        ),
        ("edges", b"0 1\n1 2\n2 0\n% comment\n3 4\n".to_vec()),
        ("mtx", example("graph.mtx")),
        ("npy", npy),
    ];
    let strategy = (0..seeds.len(), proptest::collection::vec(mutation(), 1..5));
    runner()
        .run(&strategy, |(k, edits)| {
            let (ext, seed) = &seeds[k];
            let path = dir.join(format!("case.{ext}"));
            std::fs::write(&path, apply(seed, &edits)).unwrap();
            if let Err(e) = spores_tensor::io::read_tensor(&path) {
                prop_assert!(!e.to_string().is_empty());
            }
            Ok(())
        })
        .unwrap();
}
