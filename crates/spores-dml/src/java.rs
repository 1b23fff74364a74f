//! Orders and rules of SystemDS's Java runtime that show through in DML programs.

/// The order in which a Java `HashMap<String, _>` that received `keys` in this order
/// iterates them: by bucket (the key's `String.hashCode`, spread and masked to the table
/// size), keys of one bucket in insertion order. The table starts at 16 buckets and
/// doubles whenever it is more than three quarters full. (A bucket of eight keys or more,
/// which Java turns into a tree once the table has 64 buckets, is not followed.)
pub(crate) fn hash_map_order(keys: &[&str]) -> Vec<usize> {
    let mut buckets = 16usize;
    while keys.len() * 4 > buckets * 3 {
        buckets *= 2;
    }
    let bucket = |key: &str| {
        let hash = key.encode_utf16().fold(0u32, |h, unit| {
            h.wrapping_mul(31).wrapping_add(u32::from(unit))
        });
        ((hash ^ (hash >> 16)) as usize) & (buckets - 1)
    };
    let mut order: Vec<usize> = (0..keys.len()).collect();
    order.sort_by_key(|&i| bucket(keys[i]));
    order
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
