//! Orders and rules of SystemDS's Java runtime that show through in DML programs.

/// The order in which a Java `HashMap<String, _>` that received `keys` in this order
/// iterates them (indices into `keys`), by `spores_exec`'s model of that map.
pub(crate) fn hash_map_order(keys: &[&str]) -> Vec<usize> {
    use spores_exec::java_hash::{string_hash, JavaHashOrder};
    let mut map = JavaHashOrder::new();
    for (i, &key) in keys.iter().enumerate() {
        map.entry(key, string_hash(key), || i);
    }
    map.iter().map(|(_, &i)| i).collect()
}

#[cfg(test)]
mod tests {
    use super::hash_map_order;

    /// Orders SystemDS 3.4 printed for `toString(list(...))` of these names.
    #[test]
    fn named_lists_take_systemds_order() {
        let one_based = |keys: &[&str]| -> Vec<usize> {
            hash_map_order(keys).into_iter().map(|i| i + 1).collect()
        };
        assert_eq!(one_based(&["a", "b", "c", "zz", "tol"]), [4, 5, 1, 2, 3]);
        assert_eq!(
            one_based(&["X", "y", "icpt", "reg", "tol", "maxi", "verbose"]),
            [5, 4, 6, 1, 2, 3, 7]
        );
        let keys: Vec<String> = (1..=14).map(|i| format!("k{i}")).collect();
        let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
        assert_eq!(
            one_based(&keys),
            [1, 2, 3, 4, 5, 11, 6, 10, 7, 13, 8, 12, 9, 14]
        );
    }
}
