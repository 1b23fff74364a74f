//! The iteration order of Java's `java.util.HashMap`, for results SystemDS numbers or lists
//! in that order (`rowClassMeet`'s classes, `transformencode`'s recode maps).
//!
//! A `HashMap` starts at 16 buckets and doubles when it holds more than 3/4 as many
//! entries, or when a bucket would grow past eight entries while it has fewer than 64
//! buckets. It iterates bucket by bucket, each bucket in insertion order (a doubling splits
//! a bucket into two lists that keep their order). A key's bucket is its `hashCode()`
//! spread as `h ^ (h >>> 16)`, masked by the bucket count. Beyond eight entries in one
//! bucket of a table of 64 or more Java keeps a tree instead, whose order this does not
//! reproduce.
//!
//! ```
//! use spores_exec::java_hash::{string_hash, JavaHashOrder};
//!
//! let mut map = JavaHashOrder::new();
//! for (code, key) in ["b", "a", "c"].into_iter().enumerate() {
//!     map.entry(key, string_hash(key), || code + 1);
//! }
//! // One-letter strings hash to their character: buckets 97, 98, 99 of 16 are 1, 2, 3.
//! let order: Vec<(&str, usize)> = map.iter().map(|(k, v)| (*k, *v)).collect();
//! assert_eq!(order, [("a", 2), ("b", 1), ("c", 3)]);
//! ```

/// Java's `HashMap` defaults: buckets to start with, the longest chain before a tree, and
/// the fewest buckets that keep trees (below it, a long chain doubles the table).
const INITIAL_BUCKETS: usize = 16;
const TREEIFY_CHAIN: usize = 8;
const MIN_TREE_BUCKETS: usize = 64;

/// Java's `String.hashCode()`: `s[0]*31^(n-1) + ... + s[n-1]` over UTF-16 code units, in
/// wrapping `int` arithmetic.
pub fn string_hash(s: &str) -> i32 {
    s.encode_utf16().fold(0i32, |h, unit| {
        h.wrapping_mul(31).wrapping_add(i32::from(unit))
    })
}

/// A map from `K` to `V` that iterates in the order a Java `HashMap` would.
#[derive(Clone, Debug)]
pub struct JavaHashOrder<K, V> {
    /// `buckets[k]`: the entries in bucket `k` (key, spread hash, value), in insertion
    /// order.
    buckets: Vec<Vec<(K, u32, V)>>,
    len: usize,
}

impl<K: PartialEq, V> Default for JavaHashOrder<K, V> {
    fn default() -> Self {
        Self::new()
    }
}

impl<K: PartialEq, V> JavaHashOrder<K, V> {
    pub fn new() -> Self {
        JavaHashOrder {
            buckets: (0..INITIAL_BUCKETS).map(|_| Vec::new()).collect(),
            len: 0,
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Empties the map and keeps its capacity, as `HashMap.clear()` does.
    pub fn clear(&mut self) {
        for bucket in &mut self.buckets {
            bucket.clear();
        }
        self.len = 0;
    }

    fn bucket(&self, spread: u32) -> usize {
        spread as usize & (self.buckets.len() - 1)
    }

    /// The value of `key` (whose Java `hashCode()` is `hash`), put in with `make()` first
    /// when the map does not hold it.
    pub fn entry(&mut self, key: K, hash: i32, make: impl FnOnce() -> V) -> &mut V {
        let h = hash as u32;
        let spread = h ^ (h >> 16);
        let k = self.bucket(spread);
        let found = self.buckets[k].iter().position(|(x, _, _)| *x == key);
        let k = match found {
            Some(_) => k,
            None => {
                self.buckets[k].push((key, spread, make()));
                self.len += 1;
                let chain = self.buckets[k].len();
                if chain > TREEIFY_CHAIN && self.buckets.len() < MIN_TREE_BUCKETS {
                    self.grow();
                }
                if self.len > self.buckets.len() / 4 * 3 {
                    self.grow();
                }
                self.bucket(spread)
            }
        };
        let bucket = &mut self.buckets[k];
        let at = match found {
            Some(at) => at,
            // A new key is the last of its bucket, whatever growing did.
            None => bucket.len() - 1,
        };
        &mut bucket[at].2
    }

    /// Doubles the buckets; each keeps its entries' relative order.
    fn grow(&mut self) {
        let old = std::mem::take(&mut self.buckets);
        self.buckets = (0..old.len() * 2).map(|_| Vec::new()).collect();
        for (key, spread, value) in old.into_iter().flatten() {
            let k = self.bucket(spread);
            self.buckets[k].push((key, spread, value));
        }
    }

    /// The entries in the map's iteration order.
    pub fn iter(&self) -> impl Iterator<Item = (&K, &V)> {
        self.buckets.iter().flatten().map(|(k, _, v)| (k, v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_hashes_are_javas() {
        assert_eq!(string_hash(""), 0);
        assert_eq!(string_hash("a"), 97);
        assert_eq!(string_hash("hello"), 99_162_322);
        // Wraps as Java's int arithmetic does.
        assert_eq!(string_hash("polygenelubricants"), i32::MIN);
    }

    #[test]
    fn the_table_doubles_past_three_quarters_and_keeps_bucket_order() {
        // 13 one-letter keys grow 16 buckets to 32: "a" (97) then sits in bucket 1 and
        // "q" (113) in bucket 17, where at 16 buckets both were in bucket 1.
        let keys: Vec<String> = "qabcdefghijkl".chars().map(String::from).collect();
        let mut map = JavaHashOrder::new();
        for (i, k) in keys.iter().enumerate() {
            *map.entry(k.clone(), string_hash(k), || 0) += i;
        }
        assert_eq!(map.len(), 13);
        let order: String = map.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(order, "abcdefghijklq");
        // An existing key keeps its place and value.
        *map.entry("q".to_string(), string_hash("q"), || 99) += 1;
        assert_eq!(map.iter().last().map(|(_, v)| *v), Some(1));
    }
}
