//! SystemDS's Porter stemmer, `PorterStemmer.stem(x)` in a `map` lambda (the cleaning
//! pipelines' `utils.dml` stems every cell with it).
//!
//! This is SystemDS's own reading of Porter's algorithm, rule for rule, not the
//! textbook one: its measure `m` counts the consonant runs after the first letter, its
//! `eed` rule measures the whole word, step 2 maps `log` to `logi`, and steps 2 and 3
//! try their suffixes in the iteration order of a Java `HashMap`, so where two
//! suffixes of one word match, the one that map lists first wins. The word is taken
//! as characters (SystemDS: UTF-16 units; the two differ only beyond the BMP).

use crate::java::hash_map_order;

/// The stem of `word`, as SystemDS's `PorterStemmer.stem` gives it. Words shorter than
/// three characters are kept.
pub fn stem(word: &str) -> String {
    let mut w: Vec<char> = word.chars().collect();
    if w.len() >= 3 {
        w = step1(w);
        w = by_table(w, STEP2);
        w = by_table(w, STEP3);
        w = step4(w);
        if !w.is_empty() {
            w = step5(w);
        }
    }
    w.into_iter().collect()
}

/// Step 2's suffixes and replacements, in the order SystemDS puts them in its map.
const STEP2: &[(&str, &str)] = &[
    ("ational", "ate"),
    ("tional", "tion"),
    ("enci", "ence"),
    ("anci", "ance"),
    ("izer", "ize"),
    ("bli", "ble"),
    ("alli", "al"),
    ("entli", "ent"),
    ("eli", "e"),
    ("ousli", "ous"),
    ("ization", "ize"),
    ("ation", "ate"),
    ("ator", "ate"),
    ("alism", "al"),
    ("iveness", "ive"),
    ("fulness", "ful"),
    ("ousness", "ous"),
    ("aliti", "al"),
    ("iviti", "ive"),
    ("biliti", "ble"),
    ("log", "logi"),
    ("icate", "ic"),
    ("ative", ""),
    ("alize", "al"),
    ("iciti", "ic"),
    ("ical", "ic"),
];

const STEP3: &[(&str, &str)] = &[
    ("icate", "ic"),
    ("ative", ""),
    ("alize", "al"),
    ("iciti", "ic"),
    ("ical", "ic"),
    ("ful", ""),
    ("ness", ""),
];

/// Whether `w[i]` is a consonant: not a vowel, and `y` only after a vowel or first.
fn consonant(w: &[char], i: usize) -> bool {
    match w[i] {
        'a' | 'e' | 'i' | 'o' | 'u' => false,
        'y' => i == 0 || !consonant(w, i - 1),
        _ => true,
    }
}

/// SystemDS's measure: the runs of consonants that start after the first letter.
fn measure(w: &[char]) -> usize {
    let mut count = 0;
    let mut in_run = false;
    for i in 0..w.len() {
        if consonant(w, i) {
            if !in_run && i != 0 {
                count += 1;
            }
            in_run = true;
        } else {
            in_run = false;
        }
    }
    count
}

/// The word ends in a doubled consonant.
fn double_consonant(w: &[char]) -> bool {
    let n = w.len();
    n >= 2 && w[n - 1] == w[n - 2] && consonant(w, n - 1)
}

/// The word ends consonant, vowel, consonant, the last not `w`, `x` or `y`.
fn cvc(w: &[char]) -> bool {
    let n = w.len();
    n >= 3
        && consonant(w, n - 1)
        && !consonant(w, n - 2)
        && consonant(w, n - 3)
        && !matches!(w[n - 1], 'w' | 'x' | 'y')
}

/// A vowel before the last `suffix_len` characters.
fn vowel_in_stem(w: &[char], suffix_len: usize) -> bool {
    (0..w.len().saturating_sub(suffix_len)).any(|i| !consonant(w, i))
}

fn ends_with(w: &[char], suffix: &str) -> bool {
    let n = suffix.chars().count();
    w.len() >= n && w[w.len() - n..].iter().copied().eq(suffix.chars())
}

fn without(mut w: Vec<char>, suffix: &str) -> Vec<char> {
    w.truncate(w.len() - suffix.chars().count());
    w
}

fn with(mut w: Vec<char>, suffix: &str) -> Vec<char> {
    w.extend(suffix.chars());
    w
}

/// SystemDS's `replacer`: `None` when `w` does not end in `suffix`; else `w` with the
/// suffix replaced when what is left measures more than `min_measure`, or `w` itself.
fn replaced(w: &[char], suffix: &str, replacement: &str, min_measure: usize) -> Option<Vec<char>> {
    if !ends_with(w, suffix) {
        return None;
    }
    let stem = without(w.to_vec(), suffix);
    Some(if measure(&stem) > min_measure {
        with(stem, replacement)
    } else {
        w.to_vec()
    })
}

/// Plurals, `-ed` and `-ing`, then a final `y` after a vowel to `i`.
fn step1(mut w: Vec<char>) -> Vec<char> {
    if ends_with(&w, "sses") {
        w = without(w, "es");
    } else if ends_with(&w, "ies") {
        w = with(without(w, "ies"), "i");
    } else if ends_with(&w, "s") && !ends_with(&w, "ss") {
        w = without(w, "s");
    }
    let mut removed = false;
    if ends_with(&w, "eed") {
        if measure(&w) > 1 {
            w = without(w, "d");
        }
    } else if ends_with(&w, "ed") && vowel_in_stem(&w, 2) {
        w = without(w, "ed");
        removed = true;
    } else if ends_with(&w, "ing") && vowel_in_stem(&w, 3) {
        w = without(w, "ing");
        removed = true;
    }
    if removed {
        if ends_with(&w, "at") || ends_with(&w, "bl") || ends_with(&w, "iz") {
            w = with(w, "e");
        }
        let m = measure(&w);
        let last = w.last().copied();
        if double_consonant(&w) && !matches!(last, Some('l' | 's' | 'z')) {
            w.pop();
        } else if m == 1 && cvc(&w) {
            w = with(w, "e");
        }
    }
    if ends_with(&w, "y") && vowel_in_stem(&w, 1) {
        w = with(without(w, "y"), "i");
    }
    w
}

/// Steps 2 and 3: the first suffix of `table`, in Java `HashMap` order, that `w` ends in.
fn by_table(w: Vec<char>, table: &[(&str, &str)]) -> Vec<char> {
    if w.is_empty() {
        return w;
    }
    let keys: Vec<&str> = table.iter().map(|(suffix, _)| *suffix).collect();
    hash_map_order(&keys)
        .into_iter()
        .find_map(|k| replaced(&w, table[k].0, table[k].1, 0))
        .unwrap_or(w)
}

/// `-ant`, `-ence` and the like, in the context `<c>vcvc<v>`.
fn step4(w: Vec<char>) -> Vec<char> {
    const FIRST: &[&str] = &[
        "al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent",
    ];
    const THEN: &[&str] = &["ou", "ism", "ate", "iti", "ous", "ive", "ize"];
    let drop = |suffixes: &[&str]| suffixes.iter().find_map(|s| replaced(&w, s, "", 1));
    drop(FIRST)
        .or_else(|| {
            // SystemDS looks at the fourth letter from the end, `ion` or not.
            let n = w.len();
            (n > 4 && matches!(w[n - 4], 's' | 't'))
                .then(|| replaced(&w, "ion", "", 1))
                .flatten()
        })
        .or_else(|| drop(THEN))
        .unwrap_or_else(|| w.clone())
}

/// A final `e`, and a final double `l`.
fn step5(mut w: Vec<char>) -> Vec<char> {
    let stem: Vec<char> = if ends_with(&w, "e") {
        w[..w.len() - 1].to_vec()
    } else {
        w.clone()
    };
    if ends_with(&w, "e") && measure(&w) > 1 {
        w = stem.clone();
    }
    if ends_with(&w, "e") && measure(&w) == 1 && !cvc(&stem) {
        w = stem;
    }
    if ends_with(&w, "l") && double_consonant(&w) && measure(&w) > 1 {
        w.pop();
    }
    w
}

#[cfg(test)]
mod tests {
    use super::stem;

    /// Stems SystemDS 3.4 gave: words of its own stemming test dictionary
    /// (`src/test/resources/datasets/stemming/dictionary.csv`), then words where several
    /// suffixes of step 2 match (the map's order decides), SystemDS's quirks (`agreed`,
    /// `log` to `logi`, `yyyyy`) and words it keeps.
    #[test]
    fn stems_as_systemds() {
        for (word, expected) in [
            ("caresses", "caress"),
            ("ponies", "poni"),
            ("ties", "ti"),
            ("relational", "relat"),
            ("conditional", "condit"),
            ("organization", "organ"),
            ("generalization", "gener"),
            ("rationalization", "ration"),
            ("hopefulness", "hope"),
            ("electrical", "electr"),
            ("triplicate", "triplic"),
            ("analogical", "analog"),
            ("archeological", "archeolog"),
            ("conditionally", "condition"),
            ("sensibiliti", "sensibl"),
            ("decisiveness", "decis"),
            ("agreed", "agre"),
            ("feed", "feed"),
            ("hopping", "hop"),
            ("filing", "file"),
            ("controlling", "control"),
            ("happy", "happi"),
            ("sky", "sky"),
            ("replacement", "replac"),
            ("adoption", "adopt"),
            ("cease", "ceas"),
            ("controll", "control"),
            ("yyyyy", "yyyyi"),
            ("ab", "ab"),
            ("ZEBRAS", "ZEBRAS"),
            ("na\u{ef}vet\u{e9}", "na\u{ef}vet\u{e9}"),
        ] {
            assert_eq!(stem(word), expected, "{word}");
        }
    }
}
