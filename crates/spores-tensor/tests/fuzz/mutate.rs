//! Byte-level mutations of seed texts for the parser and reader fuzz tests (a proptest
//! strategy, so failures shrink to a small list of edits). Shared by the fuzz tests of
//! several crates (included by path).

use proptest::prelude::*;

/// Tokens spliced in: numbers at the edges of what is valid, brackets, separators.
const TOKENS: &[&str] = &[
    "0",
    "-1",
    "1e308",
    "1e309",
    "nan",
    "NaN",
    "inf",
    "-inf",
    "18446744073709551616",
    "99999999999",
    "0x1p3",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    ",",
    ":",
    ";",
    "%",
    "#",
    "\"",
    "\n",
    " ",
    "\t",
    "\u{feff}",
    "é",
    "sum",
    "=",
    "*",
    "+",
];

/// One edit, at a position given as a fraction of the text's length.
#[derive(Clone, Debug)]
pub enum Mutation {
    Delete(f64, usize),
    Insert(f64, &'static str),
    Duplicate(f64, usize),
    Replace(f64, u8),
    Truncate(f64),
}

pub fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (0.0..1.0f64, 1..8usize).prop_map(|(p, n)| Mutation::Delete(p, n)),
        (0.0..1.0f64, proptest::sample::select(TOKENS)).prop_map(|(p, t)| Mutation::Insert(p, t)),
        (0.0..1.0f64, 1..64usize).prop_map(|(p, n)| Mutation::Duplicate(p, n)),
        (0.0..1.0f64, any::<u8>()).prop_map(|(p, b)| Mutation::Replace(p, b)),
        (0.0..1.0f64).prop_map(Mutation::Truncate),
    ]
}

/// `seed` with the edits applied in turn (the result need not be UTF-8).
pub fn apply(seed: &[u8], edits: &[Mutation]) -> Vec<u8> {
    let mut b = seed.to_vec();
    for m in edits {
        let at = |p: f64, len: usize| ((p * len as f64) as usize).min(len);
        match *m {
            Mutation::Delete(p, n) => {
                let i = at(p, b.len());
                let end = (i + n).min(b.len());
                b.drain(i..end);
            }
            Mutation::Insert(p, t) => {
                let i = at(p, b.len());
                b.splice(i..i, t.bytes());
            }
            Mutation::Duplicate(p, n) => {
                let i = at(p, b.len());
                let chunk: Vec<u8> = b[i..(i + n).min(b.len())].to_vec();
                b.splice(i..i, chunk);
            }
            Mutation::Replace(p, byte) => {
                if !b.is_empty() {
                    let i = at(p, b.len() - 1);
                    b[i] = byte;
                }
            }
            Mutation::Truncate(p) => {
                let i = at(p, b.len());
                b.truncate(i);
            }
        }
    }
    b
}

/// Cases per fuzz test: `SPORES_FUZZ_CASES`, else `default` (the fixed budget `cargo
/// test` runs; a longer campaign sets the variable).
pub fn cases(default: u32) -> u32 {
    std::env::var("SPORES_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}
