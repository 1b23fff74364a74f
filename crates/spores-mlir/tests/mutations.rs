//! Random byte mutations of corpus files never panic the reader, and whatever the reader
//! accepts, it prints to text that reads back equal.

use proptest::prelude::*;
use spores_mlir::{parse, parse_with, print, ParseOptions, PrintOptions};

/// Corpus texts: the custom-syntax files (mostly rejected early, but they exercise error paths)
/// and generic-form texts that get deep into the parser.
fn seeds() -> Vec<String> {
    let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .expect("corpus")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    files.sort();
    let mut texts: Vec<String> = files
        .iter()
        .filter_map(|p| std::fs::read_to_string(p).ok())
        .collect();
    // Generic text of every builtin construct (the corpus files are mostly custom syntax).
    texts.push(
        r##"#map = affine_map<(d0, d1) -> (d1, d0)>
!t = tensor<4x?xf32>
"builtin.module"() ({
  "func.func"() <{function_type = (!t, i1) -> (f32, i32), sym_name = "f"}> ({
  ^bb0(%a: !t loc("x":1:2), %c: i1):
    %0:2 = "foo.two"(%a) {m = #map, s = "a\"b\0A", d = dense<[[1.0, -2.0]]> : tensor<1x2xf32>, h = 0x7FC00000 : f32, arr = array<i64: 1, 2>, sym = @a::@b, u, w = #foo.thing<[1, {a}]>} : (!t) -> (f32, i32)
    "cf.cond_br"(%c, %0#1)[^bb1, ^bb2] <{operandSegmentSizes = array<i32: 1, 1, 0>}> : (i1, i32) -> ()
  ^bb1(%x: i32):
    %1 = "scf.if"(%c) ({
      "scf.yield"(%0#0) : (f32) -> ()
    }, {
    }) : (i1) -> f32
    "func.return"(%1, %x) : (f32, i32) -> () loc(#loc1)
  ^bb2:
    "foo.br"()[^bb1(%0#1 : i32)] : () -> ()
  }) : () -> ()
}) {t = dense<"0x0000803F"> : tensor<1xf32>, v = vector<[4]x2xcomplex<f64>>, mr = memref<4x4xf32, strided<[4, 1]>, 1>} : () -> ()
{-# dialect_resources: { builtin: { r: "0x04" } } #-}
#loc1 = loc(fused["a":1:1])
"##
        .to_string(),
    );
    texts
}

#[derive(Clone, Debug)]
enum Mutation {
    Replace(usize, u8),
    Insert(usize, u8),
    Delete(usize),
    Duplicate(usize, usize),
    Truncate(usize),
}

/// Bytes that matter to the grammar, so that mutations hit interesting paths more often.
const ALPHABET: &[u8] = b"<>[](){}\"%#^!@:=,-?*x0192.eE\\ \n/abfi";

fn mutation() -> impl Strategy<Value = Mutation> {
    let byte = prop_oneof![
        3 => proptest::sample::select(ALPHABET),
        1 => any::<u8>(),
    ];
    prop_oneof![
        (any::<usize>(), byte.clone()).prop_map(|(p, b)| Mutation::Replace(p, b)),
        (any::<usize>(), byte).prop_map(|(p, b)| Mutation::Insert(p, b)),
        any::<usize>().prop_map(Mutation::Delete),
        (any::<usize>(), 1usize..64).prop_map(|(p, n)| Mutation::Duplicate(p, n)),
        any::<usize>().prop_map(Mutation::Truncate),
    ]
}

fn apply(bytes: &mut Vec<u8>, m: &Mutation) {
    if bytes.is_empty() {
        return;
    }
    let at = |p: usize, len: usize| p % len;
    match *m {
        Mutation::Replace(p, b) => {
            let i = at(p, bytes.len());
            bytes[i] = b;
        }
        Mutation::Insert(p, b) => {
            let i = at(p, bytes.len() + 1);
            bytes.insert(i, b);
        }
        Mutation::Delete(p) => {
            let i = at(p, bytes.len());
            bytes.remove(i);
        }
        Mutation::Duplicate(p, n) => {
            let i = at(p, bytes.len());
            let end = (i + n).min(bytes.len());
            let chunk: Vec<u8> = bytes[i..end].to_vec();
            bytes.splice(i..i, chunk);
        }
        Mutation::Truncate(p) => {
            let i = at(p, bytes.len());
            bytes.truncate(i);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn mutated_files_never_panic(seed in any::<usize>(), muts in proptest::collection::vec(mutation(), 1..6)) {
        let seeds = seeds();
        let mut bytes = seeds[seed % seeds.len()].clone().into_bytes();
        for m in &muts {
            apply(&mut bytes, m);
        }
        let text = String::from_utf8_lossy(&bytes);
        for keep_locations in [true, false] {
            if let Ok(m) = parse_with(&text, ParseOptions { keep_locations }) {
                let printed = print(&m, PrintOptions::default());
                let again = parse(&printed);
                prop_assert!(again.is_ok(), "accepted input printed to unreadable text: {:?}\n{}", again.err(), printed);
                prop_assert_eq!(again.ok(), Some(m));
            }
        }
    }
}

/// The generic seed must itself parse, or the property above would test little.
#[test]
fn seeds_parse() {
    let s = seeds();
    let generic = s.last().expect("seed");
    if let Err(e) = parse(generic) {
        panic!("{e}");
    }
}
