//! Frames end to end through `spores run`: CSV files written with SystemDS's `.mtd` and
//! read back with their schema, and the errors a script gets from frames that do not fit.
//! What frames print is checked against SystemDS 3.4 by the `frames` conformance driver
//! (`tests/systemds_builtins/drivers/frames.dml`).

mod common;

use common::{assert_fails, run_dml, run_dml_with, temp_file};

#[test]
fn a_written_frame_reads_back_with_its_schema_and_names() {
    let dir = temp_file("frames-roundtrip.keep", "").with_extension("");
    std::fs::create_dir_all(&dir).unwrap();
    let csv = dir.join("f.csv");
    let src = format!(
        r#"F = cbind(as.frame(matrix("1.5 2 3.25 4", rows=2, cols=2)), frame(["x", "y"], rows=2, cols=1))
write(F, "{0}", format="csv", header=TRUE)
G = read("{0}", data_type="frame", format="csv", header=TRUE)
print(toString(G))
print(sum(as.matrix(G[, 1:2])))
"#,
        csv.display()
    );
    let out = run_dml("frames_roundtrip.dml", &src).unwrap();
    assert_eq!(
        out,
        "# FRAME: nrow = 2, ncol = 3\n# C1 C2 C3\n# FP32 INT32 STRING\n1.5 2 x\n3.25 4 y\n\n10.75\n"
    );
    assert_eq!(
        std::fs::read_to_string(&csv).unwrap(),
        "C1,C2,C3\n1.5,2,x\n3.25,4,y\n"
    );
    let mtd = std::fs::read_to_string(dir.join("f.csv.mtd")).unwrap();
    assert!(mtd.contains(r#""data_type": "frame""#), "{mtd}");
    assert!(mtd.contains(r#""schema": "FP32,INT32,STRING,""#), "{mtd}");
    assert!(mtd.contains(r#""header": true"#), "{mtd}");
}

/// SystemDS's text cells for frames, as SystemDS 3.4 writes them: non-default cells only
/// (an empty string is not a default), `0 0 0` for none; and a file named by a number.
#[test]
fn frames_write_as_text_cells_and_a_number_names_a_file() {
    let dir = temp_file("frames-text.keep", "").with_extension("");
    std::fs::create_dir_all(&dir).unwrap();
    let src = format!(
        r#"F = frame(["a", "", "c", "d"], rows=2, cols=2)
write(F, "{0}/F", format="text")
X = as.frame(matrix("1 0 2.5 0", rows=2, cols=2))
write(X, "{0}/X", format="text")
write(as.frame(matrix(0, rows=2, cols=2)), "{0}/E", format="text")
"#,
        dir.display()
    );
    run_dml("frames_text.dml", &src).unwrap();
    let read = |name: &str| std::fs::read_to_string(dir.join(name)).unwrap();
    assert_eq!(read("F"), "1 1 a\n1 2 \n2 1 c\n2 2 d\n");
    assert_eq!(read("X"), "1 1 1.0\n2 1 2.5\n");
    assert_eq!(read("E"), "0 0 0\n");
    assert!(read("X.mtd").contains(r#""format": "text""#));
    // A number as the file name names the file `10` in the working directory.
    let script = temp_file("write_numbered.dml", "write(7, 10)\n");
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_spores"))
        .arg("run")
        .arg(&script)
        .current_dir(&dir)
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(read("10").trim(), "7");
}

/// `replace` on frames and `==` between frames, as SystemDS 3.4's ReplaceTest uses them
/// (SystemDS's output): a pattern replaces cells in columns of its type and in `STRING`
/// columns; an integer pattern leaves a string `1.0` alone.
#[test]
fn frames_replace_cells_and_compare_cell_by_cell() {
    let src = r#"X = frame(data=["1", "500", "abc", "2.5", "TRUE", "abc", "klm"], rows=3, cols=7, schema=["INT32", "INT64", "STRING", "FP64", "BOOLEAN", "STRING", "STRING"])
X = replace(target = X, pattern=1, replacement=3)
X = replace(target = X, pattern=500, replacement=3000)
X = replace(target = X, pattern="abc", replacement="cba")
X = replace(target = X, pattern=2.5, replacement=0.5)
X = replace(target = X, pattern=TRUE, replacement=FALSE)
print(toString(X[1, ]))
out = frame(data=["3", "3000", "cba", "0.5", "FALSE", "cba", "klm"], rows=3, cols=7, schema=["INT32", "INT64", "STRING", "FP64", "BOOLEAN", "STRING", "STRING"])
print(sum(as.matrix(out == X)))
Y = frame(["1", "x", "1.0"], rows=1, cols=3)
print(toString(replace(target=Y, pattern=1, replacement=7)))
"#;
    assert_eq!(
        run_dml("frames_replace.dml", src).unwrap(),
        "# FRAME: nrow = 1, ncol = 7\n# C1 C2 C3 C4 C5 C6 C7\n# INT32 INT64 STRING FP64 BOOLEAN STRING STRING\n3 3000 cba 0.500 FALSE cba klm\n\n21.0\n# FRAME: nrow = 1, ncol = 3\n# C1 C2 C3\n# STRING STRING STRING\n7 x 1.0\n\n"
    );
    assert_fails(
        "frames_replace_types.dml",
        "Y = frame([\"1\"], rows=1, cols=1)\nprint(toString(replace(target=Y, pattern=1, replacement=\"a\")))\n",
        &["different types"],
    );
}

/// `dropInvalidType` as SystemDS 3.4 printed it: `3` does not fit `FP64` (it reads as an
/// integer), booleans fit numeric columns, `STRING` columns are kept, and a dropped cell
/// of a numeric column is 0. One difference: SystemDS prints `0.000` for the last
/// frame's second row, because its `dropInvalidType` overwrites its input and the two
/// equal `frame(...)` literals are one object there; spores leaves its inputs alone.
#[test]
fn drop_invalid_type_as_systemds() {
    let src = r#"F = frame(["3", "2.5", "true", "abc", " 7 ", "\"4\"", "1e3", "", "x", "1.0", "NaN", "0"], rows=4, cols=3)
S = frame(["FP64", "INT64", "BOOLEAN"], rows=1, cols=3)
print(toString(dropInvalidType(F, S)))
H = frame(["3", "abc", "2.5", "5"], rows=2, cols=2, schema=["FP64", "STRING"])
print(toString(dropInvalidType(H, frame(["INT32", "FP64"], rows=1, cols=2))))
H = frame(["3", "abc", "2.5", "5"], rows=2, cols=2, schema=["FP64", "STRING"])
print(toString(dropInvalidType(H, frame(["STRING", "CHARACTER"], rows=1, cols=2))))
"#;
    let systemds = "# FRAME: nrow = 4, ncol = 3\n# C1 C2 C3\n# STRING STRING STRING\nnull null true\nnull  7  null\n1e3 null null\n1.0 null 0\n\n# FRAME: nrow = 2, ncol = 2\n# C1 C2\n# FP64 STRING\n3.000 null\n0.000 null\n\n# FRAME: nrow = 2, ncol = 2\n# C1 C2\n# FP64 STRING\n3.000 null\n2.500 null\n\n";
    assert_eq!(run_dml("drop_invalid.dml", src).unwrap(), systemds);
    assert_fails(
        "drop_invalid_schema.dml",
        "F = frame(\"1\", rows=2, cols=3)\nprint(toString(dropInvalidType(F, frame(\"INT64\", rows=1, cols=2))))\n",
        &["schema names 2 columns, the frame has 3"],
    );
}

/// `removeEmpty` of frames, the text SystemDS 3.4 printed: `"0"` and missing cells are
/// empty, `""` is not; nothing left gives one row of missing cells (one `STRING` column
/// for columns); `select` picks rows or columns; numeric columns keep their types.
#[test]
fn remove_empty_of_frames_as_systemds() {
    let src = r#"F = frame(["a", "0", "", "0", "0", "x", "0", "0"], rows=4, cols=2)
print(toString(removeEmpty(target=F, margin="rows")))
G = frame(["0", "0", "0", "0"], rows=2, cols=2)
R = removeEmpty(target=G, margin="rows")
print(nrow(R) + " " + ncol(R))
print(toString(R))
C = removeEmpty(target=G, margin="cols")
print(nrow(C) + " " + ncol(C))
print(toString(C))
print(toString(removeEmpty(target=F, margin="cols", select=matrix("0 1", 1, 2))))
print(toString(removeEmpty(target=F, margin="rows", select=matrix("0 1 0 1", 4, 1))))
H = as.frame(matrix("0 1 0 0 2 0", 3, 2))
print(toString(removeEmpty(target=H, margin="rows")))
print(toString(removeEmpty(target=H, margin="cols")))
"#;
    let systemds = "# FRAME: nrow = 3, ncol = 2\n# C1 C2\n# STRING STRING\na 0\n 0\n0 x\n\n1 2\n# FRAME: nrow = 1, ncol = 2\n# C1 C2\n# STRING STRING\nnull null\n\n2 1\n# FRAME: nrow = 2, ncol = 1\n# C1\n# STRING\nnull\nnull\n\n# FRAME: nrow = 4, ncol = 1\n# C1\n# STRING\n0\n0\nx\n0\n\n# FRAME: nrow = 2, ncol = 2\n# C1 C2\n# STRING STRING\n 0\n0 0\n\n# FRAME: nrow = 2, ncol = 2\n# C1 C2\n# INT32 BOOLEAN\n0 TRUE\n2 FALSE\n\n# FRAME: nrow = 3, ncol = 2\n# C1 C2\n# INT32 BOOLEAN\n0 TRUE\n0 FALSE\n2 FALSE\n\n";
    assert_eq!(run_dml("remove_empty_frames.dml", src).unwrap(), systemds);
}

/// `freplicate(F, row)` (the cleaning pipelines' `bandit`), as SystemDS 3.4 printed it:
/// `row`'s cells in every row, in `F`'s column types.
#[test]
fn freplicate_as_systemds() {
    let src = r#"F = frame(0, rows=3, cols=2)
R = frame(["imputeByMean", "NA"], rows=1, cols=2)
print(toString(freplicate(F, R)))
G = frame("1", rows=2, cols=2, schema=["INT64", "STRING"])
print(toString(freplicate(G, frame(["7", "x"], rows=1, cols=2))))
"#;
    let systemds = "# FRAME: nrow = 3, ncol = 2\n# C1 C2\n# STRING STRING\nimputeByMean NA\nimputeByMean NA\nimputeByMean NA\n\n# FRAME: nrow = 2, ncol = 2\n# C1 C2\n# INT64 STRING\n7 x\n7 x\n\n";
    assert_eq!(run_dml("freplicate.dml", src).unwrap(), systemds);
    assert_fails(
        "freplicate_cols.dml",
        "print(toString(freplicate(frame(0, rows=2, cols=2), frame(\"a\", rows=1, cols=3))))\n",
        &["freplicate: left is 2x2, right is 1x3"],
    );
}

/// A missing (`null`) cell is NaN in `as.matrix`, as SystemDS 3.4 printed it (an NA
/// string read from a CSV file is such a cell: `imputeByKNN`'s test relies on it).
#[test]
fn missing_cells_are_nan_as_a_matrix() {
    let src = r#"G = frame(["0", "0"], rows=1, cols=2)
R = removeEmpty(target=G, margin="rows")
print(toString(R))
print(toString(as.matrix(R)))
H = frame(["a", "1"], rows=1, cols=2)
H = dropInvalidType(H, frame(["INT64", "INT64"], rows=1, cols=2))
print(toString(H))
print(toString(as.matrix(H[,1])))
"#;
    let out = run_dml("null_cells.dml", src).unwrap();
    assert!(out.contains("null null\n\nNaN NaN\n"), "{out}");
    assert!(out.ends_with("null 1\n\nNaN\n\n"), "{out}");
}

/// `true`/`false` cells of a column `transformencode` passes through are 1 and 0, in any
/// case, as SystemDS 3.4 printed (`frameSort` encodes the pipelines' flags).
#[test]
fn booleans_pass_through_transformencode_as_numbers() {
    let src = r#"F = frame(["false", "a", "TRUE", "b", "0.5", "a"], rows=3, cols=2)
[X, M] = transformencode(target=F, spec="{ids:true, recode:[2]}")
print(toString(X))
"#;
    let systemds = "0.000 1.000\n1.000 2.000\n0.500 1.000\n\n";
    assert_eq!(run_dml("bool_pass.dml", src).unwrap(), systemds);
}

/// Frame names as SystemDS 3.4 printed them: `cbind` keeps both sides' names unless one
/// repeats (then the default ones), and `map` gives default names.
#[test]
fn frame_names_through_cbind_and_map() {
    let src = r#"F = frame(["a","b","c","d","e","f"], rows=2, cols=3)
print(toString(cbind(F[,2], as.frame(matrix(1,2,2)))))
print(toString(cbind(F[,3], F[,1])))
"#;
    let systemds = "# FRAME: nrow = 2, ncol = 3\n# C1 C2 C3\n# STRING BOOLEAN BOOLEAN\nb TRUE TRUE\ne TRUE TRUE\n\n# FRAME: nrow = 2, ncol = 2\n# C1 C2\n# STRING STRING\nc a\nf d\n\n";
    assert_eq!(run_dml("cbind_names.dml", src).unwrap(), systemds);
    // `map` builds a new frame with default names; transformencode's metadata keeps them.
    let csv = temp_file("named.csv", "x,y\na,b\nc,d\n");
    let src = format!(
        "G = read(\"{}\", data_type=\"frame\", format=\"csv\", header=TRUE)\n\
         print(toString(map(G, \"x -> x.toUpperCase()\")))\n\
         [X, M] = transformencode(target=G, spec=\"{{ids:true, recode:[1,2]}}\")\n\
         print(toString(M))\n",
        csv.display()
    );
    let out = run_dml("map_names.dml", &src).unwrap();
    assert_eq!(
        out,
        "# FRAME: nrow = 2, ncol = 2\n# C1 C2\n# STRING STRING\nA B\nC D\n\n\
         # FRAME: nrow = 2, ncol = 2\n# x y\n# STRING STRING\na·1 b·1\nc·2 d·2\n\n"
    );
}

/// `transformcolmap`: each column's first and last encoded column, a dummycoded one
/// spanning its distinct values, as SystemDS 3.4 printed it.
#[test]
fn transformcolmap_as_systemds() {
    let src = r#"F = frame(["a", "1", "x", "b", "2", "y", "a", "3", "z"], rows=3, cols=3)
spec = "{ids:true, recode:[1], dummycode:[3]}"
[X, M] = transformencode(target=F, spec=spec)
print(toString(transformcolmap(target=M, spec=spec)))
print(ncol(X))
"#;
    let systemds = "1.000 1.000 1.000\n2.000 2.000 2.000\n3.000 3.000 5.000\n\n5\n";
    assert_eq!(run_dml("colmap.dml", src).unwrap(), systemds);
}

#[test]
fn frames_that_do_not_fit_are_clear_errors() {
    assert_fails(
        "frame_as_matrix.dml",
        "F = frame([\"1\", \"b\"], rows=1, cols=2)\nprint(sum(as.matrix(F)))\n",
        &["frame cell [1, 2]", "\"b\"", "not a number"],
    );
    assert_fails(
        "frame_schema.dml",
        "F = frame(\"x\", rows=2, cols=2, schema=[\"STRING\", \"FP64\"])\nprint(toString(F))\n",
        &["frame cell [1, 2]", "\"x\"", "FP64"],
    );
    assert_fails(
        "frame_schema_length.dml",
        "F = frame(\"1\", rows=2, cols=3, schema=[\"STRING\"])\nprint(toString(F))\n",
        &["schema names 1 columns, the frame has 3"],
    );
    assert_fails(
        "frame_type.dml",
        "F = frame(\"1\", rows=1, cols=1, schema=[\"DECIMAL\"])\nprint(toString(F))\n",
        &["unknown frame value type \"DECIMAL\""],
    );
    assert_fails(
        "frame_rbind.dml",
        "F = frame(\"1\", rows=1, cols=3)\nG = rbind(F, frame(\"1\", rows=1, cols=2))\nprint(nrow(G))\n",
        &["rbind: left is 1x3, right is 1x2"],
    );
    assert_fails(
        "frame_scalar.dml",
        "F = frame(\"1\", rows=2, cols=1)\nprint(as.scalar(F))\n",
        &["1x1 frame, got 2x1"],
    );
    assert_fails(
        "frame_index.dml",
        "F = frame(\"1\", rows=2, cols=2)\nprint(toString(F[3, 1]))\n",
        &["row", "3"],
    );
    assert_fails(
        "frame_product.dml",
        "F = frame(\"1\", rows=2, cols=2)\nprint(sum(F %*% F))\n",
        &["frame"],
    );
    // Frames ask the memory budget before they are built.
    for (src, says) in [
        (
            "F = frame(\"x\", rows=100000, cols=10)\nprint(nrow(F))\n",
            "frame needs about 16.0 MB, more than the memory budget",
        ),
        (
            "F = as.frame(rand(rows=1000, cols=100, seed=1))\nprint(nrow(F))\n",
            "as.frame needs about 1.6 MB, more than the memory budget",
        ),
    ] {
        let err = run_dml_with("frame_budget.dml", src, &["--memory", "1M"]).unwrap_err();
        assert!(err.contains(says), "{err}");
    }
    // A CSV frame: the text and a cell per field (20,000 fields, about 1 MB).
    let wide = temp_file("frames-wide.csv", &"1,".repeat(20_000));
    let src = format!(
        "F = read(\"{}\", data_type=\"frame\", format=\"csv\")\nprint(ncol(F))\n",
        wide.display()
    );
    let err = run_dml_with("frame_read_budget.dml", &src, &["--memory", "500K"]).unwrap_err();
    assert!(
        err.contains("read needs about 1.0 MB, more than the memory budget"),
        "{err}"
    );
    assert_eq!(run_dml("frame_read.dml", &src).unwrap(), "20001\n");
    let ragged = temp_file("frames-ragged.csv", "a,b\n1,2\n3\n");
    assert_fails(
        "frame_ragged.dml",
        &format!(
            "F = read(\"{}\", data_type=\"frame\", format=\"csv\", header=TRUE)\nprint(nrow(F))\n",
            ragged.display()
        ),
        &["frames-ragged.csv", "line 3 has 1 fields"],
    );
}

/// Decoding gives back the tokens of a recoded column after a dummycoded one, where
/// SystemDS 3.4 gives `null` (documented in docs/guide-dml.md); a binned column decodes
/// to its bins' centres (and fractions of a bin), as SystemDS 3.4 prints them; specs and
/// metadata that do not fit are errors naming what is wrong.
#[test]
fn transforms_decode_what_they_encode_and_refuse_what_they_cannot() {
    let src = r#"F = frame(["b", "x", "a", "y", "b", "x", "c", "z"], rows=4, cols=2)
spec = "{ids: true, dummycode: [1], recode: [2]}"
[X, M] = transformencode(target=F, spec=spec)
D = transformdecode(target=X, spec=spec, meta=M)
print(toString(D))
"#;
    assert_eq!(
        run_dml("transform_decode.dml", src).unwrap(),
        "# FRAME: nrow = 4, ncol = 2\n# C1 C2\n# STRING STRING\nb x\na y\nb x\nc z\n\n"
    );
    let binned = r#"F = as.frame(matrix("1 7 3 9 2 5 8 4", rows=8, cols=1))
spec = "{ids: true, bin: [{id: 1, method: equi-width, numbins: 4}]}"
[X, M] = transformencode(target=F, spec=spec)
Y = rbind(X[1:3, ], matrix("0 1.25 3.75", rows=3, cols=1))
print(toString(transformdecode(target=Y, spec=spec, meta=M)))
"#;
    assert_eq!(
        run_dml("transform_bins.dml", binned).unwrap(),
        "# FRAME: nrow = 6, ncol = 1\n# C1\n# STRING\n2.0\n6.0\n2.0\n1.0\n2.5\n7.5\n\n"
    );
    assert_fails(
        "transform_bin_code.dml",
        &binned.replace("0 1.25 3.75", "0 1.25 6"),
        &["bin code 6", "bins 1 to 4"],
    );
    let frame = "F = frame([\"b\", \"x\", \"a\", \"y\"], rows=2, cols=2)\n";
    for (spec, needles) in [
        (
            "{ids: true, impute: [{id: 1, method: global_mean}]}",
            &["`impute` is not supported"][..],
        ),
        (
            "{ids: true, recode: [3]}",
            &["no column 3 among the frame's 2"],
        ),
        ("{recode: [C9]}", &["no column \"C9\""]),
        (
            "{ids: true, recode: [1]",
            &["transform spec", "expected `,` or `}`"],
        ),
        (
            "{ids: true, recode: [1]}",
            &["cell [1, 2]", "\"x\"", "not a number"],
        ),
    ] {
        assert_fails(
            "transform_spec.dml",
            &format!("{frame}[X, M] = transformencode(target=F, spec=\"{spec}\")\nprint(sum(X))\n"),
            needles,
        );
    }
    assert_fails(
        "transform_width.dml",
        &format!(
            "{frame}[X, M] = transformencode(target=F, spec=\"{{ids: true, recode: [1, 2]}}\")\n\
             D = transformdecode(target=cbind(X, X), spec=\"{{ids: true, recode: [1, 2]}}\", meta=M)\n\
             print(toString(D))\n"
        ),
        &["4 columns", "make 2"],
    );
    assert_fails(
        "transform_target.dml",
        "[X, M] = transformencode(target=matrix(1, rows=2, cols=2), spec=\"{ids: true}\")\nprint(sum(X))\n",
        &["`transformencode` needs a frame, got a matrix"],
    );
}

/// Frames in lists: `append` adds a frame as one element, and the casts take it out of a
/// one-element list (as SystemDS's own `incSliceLine` does).
#[test]
fn frames_live_in_lists() {
    let src = r#"L = append(list(), frame("a", rows=1, cols=2))
L = append(L, frame("b", rows=2, cols=1))
print(length(L))
print(toString(as.frame(L[2])))
"#;
    assert_eq!(
        run_dml("frames_lists.dml", src).unwrap(),
        "2\n# FRAME: nrow = 2, ncol = 1\n# C1\n# STRING\nb\nb\n\n"
    );
}

/// `map` evaluates the Java lambdas SystemDS's builtins write and names what it cannot.
#[test]
fn map_lambdas_outside_the_known_forms_are_named() {
    let frame = "F = frame([\"ab\", \"c\"], rows=2, cols=1)\n";
    for (lambda, needle) in [
        ("x -> x.frobnicate()", "`String.frobnicate` is not a method"),
        ("x -> Foo.bar(x)", "`Foo.bar` is not a function"),
        ("x -> y.length()", "`y.length` is not a function"),
        ("x.length()", "is not `x -> expression`"),
        ("x -> x.substring(5)", "index 5 out of bounds"),
    ] {
        assert_fails(
            "map_lambda.dml",
            &format!("{frame}G = map(F, \"{lambda}\")\nprint(toString(G))\n"),
            &["map: ", needle],
        );
    }
    assert_fails(
        "map_margin.dml",
        &format!("{frame}G = map(F, \"x -> x\", 2)\nprint(toString(G))\n"),
        &["map: margin 2 is not supported (0: cells, 1: rows)"],
    );
    assert_fails(
        "map_row.dml",
        &format!("{frame}G = map(F, \"x -> x[0]\", 1)\nprint(toString(G))\n"),
        &["a row-wise lambda (margin=1) must return a String[]"],
    );
}

/// `tokenize` runs SystemDS's `split` tokenizer with `position` output and refuses the
/// others by name.
#[test]
fn tokenize_refuses_what_it_does_not_build() {
    let frame = "F = frame([\"1\", \"a b\"], rows=1, cols=2)\n";
    for (spec, needle) in [
        (
            r#"{\"algo\": \"ngram\", \"out\": \"position\", \"id_cols\": [1], \"tokenize_col\": 2}"#,
            "tokenize algo \"ngram\"",
        ),
        (
            r#"{\"algo\": \"split\", \"out\": \"count\", \"id_cols\": [1], \"tokenize_col\": 2}"#,
            "tokenize out \"count\"",
        ),
        (
            r#"{\"algo\": \"split\", \"out\": \"position\", \"id_cols\": [3], \"tokenize_col\": 2}"#,
            "among the frame's 2",
        ),
    ] {
        assert_fails(
            "tokenize_spec.dml",
            &format!("{frame}W = tokenize(target=F, spec=\"{spec}\", max_tokens=5)\nprint(toString(W))\n"),
            &[needle],
        );
    }
}

/// SystemDS 3.4 printed exactly this for the same file and script: a quoted field keeps
/// its quotes and the separators inside it, `""` stays doubled, cells are trimmed but
/// header names are not, and `naStrings` fields are `null`.
#[test]
fn csv_fields_split_as_systemds_splits_them() {
    let dir = temp_file("frames-quoted.keep", "").with_extension("");
    std::fs::create_dir_all(&dir).unwrap();
    let csv = dir.join("q.csv");
    std::fs::write(
        &csv,
        "\"a\",b ,c\n 1 ,\"x, y\",3\n20,\"q\"\"r\",5\n,plain,7\n",
    )
    .unwrap();
    let src = format!(
        r#"F = read("{0}", data_type="frame", format="csv", header=TRUE, naStrings=["20"])
print(toString(F))
s = as.scalar(F[1, 2])
print("[" + s + "]")
G = read("{0}", data_type="frame", format="csv", header=TRUE, schema="INT64,STRING,FP64")
print(toString(G))
"#,
        csv.display()
    );
    let out = run_dml("frames_quoted.dml", &src).unwrap();
    assert_eq!(
        out,
        "# FRAME: nrow = 3, ncol = 3\n# \"a\" b  c\n# STRING STRING STRING\n\
         1 \"x, y\" 3\nnull \"q\"\"r\" 5\nnull plain 7\n\n[\"x, y\"]\n\
         # FRAME: nrow = 3, ncol = 3\n# \"a\" b  c\n# INT64 STRING FP64\n\
         1 \"x, y\" 3.000\n20 \"q\"\"r\" 5.000\n0 plain 7.000\n\n"
    );
}

#[test]
fn matrix_csv_reads_take_na_strings_fill_and_default() {
    let dir = temp_file("csv-na.keep", "").with_extension("");
    std::fs::create_dir_all(&dir).unwrap();
    let csv = dir.join("m.csv");
    std::fs::write(&csv, "1,NA,3\n,5,x\n").unwrap();
    let src = format!(
        r#"A = read("{0}", format="csv", naStrings="NA·x", default=-1)
print(toString(A))
"#,
        csv.display()
    );
    let out = run_dml("csv_na.dml", &src).unwrap();
    assert_eq!(out, "1.000 NaN 3.000\n-1.000 5.000 NaN\n\n");
    let src = format!(
        r#"A = read("{0}", format="csv", naStrings=["NA", "x"], fill=FALSE)
print(sum(A))
"#,
        csv.display()
    );
    assert_fails(
        "csv_nofill.dml",
        &src,
        &["m.csv:2", "field 1 is empty, and fill=FALSE"],
    );
}

/// SystemDS's tests write a matrix as the directory `X/in` and read `X` without a format:
/// SystemDS's default format, text cells, in each part file.
#[test]
fn a_directory_without_metadata_reads_as_text_cells() {
    let dir = temp_file("text-dir.keep", "").with_extension("");
    let parts = dir.join("X");
    std::fs::create_dir_all(&parts).unwrap();
    std::fs::write(parts.join("in"), "1 1 2.5\n2 3 -1\n").unwrap();
    let src = format!(
        "X = read(\"{0}\", rows=2, cols=3)\nprint(sum(X) + \" \" + ncol(X))\n",
        parts.display()
    );
    assert_eq!(run_dml("text_dir.dml", &src).unwrap(), "1.5 3\n");
}

/// A spec's `udf` rewrites each listed column's encoded columns (a dummycoded column's
/// three together) with a function called as `eval` calls it, in transformencode and
/// transformapply. SystemDS 3.4 prints the same
/// layout with `udf: {name: scaleMinMax, ...}`; it finds only builtin functions there, and
/// spores the script's own too. Feature hashing codes `|String.hashCode()| mod K + 1`.
#[test]
fn transformencode_calls_a_udf_and_hashes_as_systemds() {
    let src = r#"twice = function(Matrix[Double] X) return (Matrix[Double] Y) { Y = 2 * X + 1 }
F = frame(["a", "1", "x", "b", "2", "y", "a", "4", "z"], rows=3, cols=3)
spec = "{ids:true, recode:[1], dummycode:[3], udf: {name: twice, ids: [2, 3]}}"
[X, M] = transformencode(target=F, spec=spec)
print(toString(X))
print(toString(transformapply(target=F[2:3, ], spec=spec, meta=M)))
G = frame(["a", "c", "a", "d"], rows=4, cols=1)
[Y, N] = transformencode(target=G, spec="{ids:true, hash:[1], K: 7}")
print(toString(t(Y)))
"#;
    let out = run_dml("udf.dml", src).unwrap();
    assert_eq!(
        out,
        "1.000 3.000 3.000 1.000 1.000\n2.000 5.000 1.000 3.000 1.000\n\
         1.000 9.000 1.000 1.000 3.000\n\n2.000 5.000 1.000 3.000 1.000\n\
         1.000 9.000 1.000 1.000 3.000\n\n7.000 2.000 7.000 3.000\n\n"
    );
    assert_fails(
        "udf_shape.dml",
        "f = function(Matrix[Double] X) return (Matrix[Double] Y) { Y = X[1, ] }\n\
         F = frame([\"1\", \"2\"], rows=2, cols=1)\n\
         [X, M] = transformencode(target=F, spec=\"{ids:true, udf: {name: f, ids: [1]}}\")\n\
         print(toString(X))\n",
        &["the udf `f` returned a 1x1 matrix for 2x1 encoded cells"],
    );
}

/// transformencode's metadata frame knows each column's number of codes or bins, which a
/// frame CSV carries in SystemDS's `#Meta·MV` and `#Meta·ND` lines (after the header);
/// slices keep them and a read brings them back. SystemDS 3.4 wrote these three files.
#[test]
fn column_statistics_travel_through_frame_csv_files_as_systemds() {
    let (m, m2, g) = (
        temp_file("stats_M.csv", ""),
        temp_file("stats_M2.csv", ""),
        temp_file("stats_G.csv", ""),
    );
    let src = format!(
        "F = frame([\"a\", \"1\", \"x\", \"2.5\", \"b\", \"2\", \"y\", \"3.5\", \"a\", \"4\", \"z\", \"1.0\"], rows=3, cols=4)\n\
         [X, M] = transformencode(target=F, spec=\"{{ids:true, recode:[1, 3], bin: [{{id: 4, method: equi-width, numbins: 2}}]}}\")\n\
         write(M, \"{m}\", format=\"csv\")\n\
         write(M[1:2, 2:4], \"{m2}\", format=\"csv\", header=TRUE)\n\
         G = read(\"{m2}\", data_type=\"frame\", format=\"csv\", header=TRUE)\n\
         print(nrow(G))\n\
         write(G, \"{g}\", format=\"csv\")\n",
        m = m.display(),
        m2 = m2.display(),
        g = g.display()
    );
    assert_eq!(run_dml("meta_stats.dml", &src).unwrap(), "2\n");
    let read = |p: &std::path::Path| std::fs::read_to_string(p).unwrap();
    assert_eq!(
        read(&m),
        "#Meta·MV,null,null,null,null\n#Meta·ND,2,-1,3,2\na·1,,x·1,1.0·2.25\nb·2,,y·2,2.25·3.5\n,,z·3,\n"
    );
    assert_eq!(
        read(&m2),
        "C1,C2,C3\n#Meta·MV,null,null,null\n#Meta·ND,-1,3,2\n,x·1,1.0·2.25\n,y·2,2.25·3.5\n"
    );
    // Read back, the text `null` stands for a missing-value marker SystemDS keeps.
    assert_eq!(
        read(&g),
        "#Meta·MV,null,null,null\n#Meta·ND,-1,3,2\n,x·1,1.0·2.25\n,y·2,2.25·3.5\n"
    );
}
