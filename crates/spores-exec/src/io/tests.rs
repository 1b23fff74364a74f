//! Tests of the file formats: round trips, every malformed-input error with its line
//! number, missing files, and no-panic fuzzing of every reader.

use std::path::Path;

use proptest::prelude::*;

use super::test_util::TempDir;
use super::*;
use crate::error::ExecError;
use crate::matrix::{cells_agree, CsrMatrix, DenseMatrix, Matrix};

const P: &str = "test.file";

fn mm(text: &str) -> Result<Matrix> {
    matrix_market::parse(text.as_bytes(), Path::new(P))
}

fn csv_parse(text: &str) -> Result<Matrix> {
    csv::parse(text.as_bytes(), Path::new(P), false, ",")
}

/// The 1-based line of a parse error (panics on anything else, as tests should).
fn err_line(r: Result<Matrix>) -> usize {
    match r {
        Err(ExecError::Parse { line, path, .. }) => {
            assert_eq!(path, Path::new(P));
            line
        }
        other => panic!("expected a parse error, got {other:?}"),
    }
}

fn dense(rows: usize, cols: usize, data: &[f64]) -> Matrix {
    Matrix::Dense(DenseMatrix::from_vec(rows, cols, data.to_vec()).unwrap())
}

/// Exact equality of values (bits, except that all NaNs are equal), ignoring format.
fn same_bits(a: &Matrix, b: &Matrix) -> bool {
    cells_agree(a, b, |x, y| x.to_bits() == y.to_bits())
}

/// Equality of values where -0.0 == 0.0 (text formats drop implicit zeros' signs).
fn same_values(a: &Matrix, b: &Matrix) -> bool {
    cells_agree(a, b, |x, y| x == y)
}

// ---------------------------------------------------------------------------------------
// Format names.

#[test]
fn format_from_path_and_name() {
    assert_eq!(
        Format::from_path(Path::new("a/b.MTX")),
        Some(Format::MatrixMarket)
    );
    assert_eq!(
        Format::from_path(Path::new("x.mm")),
        Some(Format::MatrixMarket)
    );
    assert_eq!(Format::from_path(Path::new("x.csv")), Some(Format::Csv));
    assert_eq!(Format::from_path(Path::new("x.npy")), Some(Format::Npy));
    assert_eq!(Format::from_path(Path::new("x.txt")), None);
    assert_eq!(Format::from_path(Path::new("npy")), None);
    assert_eq!(Format::from_name("MM"), Some(Format::MatrixMarket));
    assert_eq!(Format::from_name("csv"), Some(Format::Csv));
    assert_eq!(Format::from_name("npy"), Some(Format::Npy));
    assert_eq!(Format::from_name("Text"), Some(Format::Text));
    assert_eq!(Format::from_name("binary"), Some(Format::Binary));
    assert_eq!(Format::from_name("libsvm"), None);
    for f in [
        Format::MatrixMarket,
        Format::Text,
        Format::Csv,
        Format::Npy,
        Format::Binary,
    ] {
        assert_eq!(Format::from_name(f.name()), Some(f));
    }
}

// ---------------------------------------------------------------------------------------
// Matrix Market.

#[test]
fn mm_coordinate_real_general() {
    let m = mm("%%MatrixMarket matrix coordinate real general\n% a comment\n\n3 4 3\n1 1 1.5\n3 4 -2e3\n  2   2   7  \n")
        .unwrap();
    assert_eq!((m.rows(), m.cols()), (3, 4));
    assert_eq!(m.get(0, 0), 1.5);
    assert_eq!(m.get(2, 3), -2000.0);
    assert_eq!(m.get(1, 1), 7.0);
    assert_eq!(m.nnz(), 3);
    assert!(m.is_sparse());
}

#[test]
fn mm_sums_duplicates_and_handles_crlf() {
    let m = mm(
        "%%MatrixMarket matrix coordinate real general\r\n2 2 3\r\n1 2 1\r\n1 2 2.5\r\n2 1 1\r\n",
    )
    .unwrap();
    assert_eq!(m.get(0, 1), 3.5);
    assert_eq!(m.get(1, 0), 1.0);
    assert_eq!(m.nnz(), 2);
}

#[test]
fn mm_symmetric_skew_pattern_integer() {
    let m = mm("%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n1 1 4\n3 1 2\n2 2 5\n")
        .unwrap();
    assert_eq!(m.get(0, 2), 2.0);
    assert_eq!(m.get(2, 0), 2.0);
    assert_eq!(m.get(0, 0), 4.0);
    let m = mm("%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 1\n3 1 2\n").unwrap();
    assert_eq!(m.get(2, 0), 2.0);
    assert_eq!(m.get(0, 2), -2.0);
    let m = mm("%%MatrixMarket matrix coordinate pattern general\n2 3 2\n1 3\n2 1\n").unwrap();
    assert_eq!(m.get(0, 2), 1.0);
    assert_eq!(m.get(1, 0), 1.0);
    assert_eq!(m.nnz(), 2);
    let m = mm("%%MatrixMarket matrix coordinate integer general\n1 2 1\n1 2 -7\n").unwrap();
    assert_eq!(m.get(0, 1), -7.0);
    let m = mm("%%MatrixMarket matrix coordinate pattern symmetric\n2 2 1\n2 1\n").unwrap();
    assert_eq!(m.get(0, 1), 1.0);
    assert_eq!(m.get(1, 0), 1.0);
}

#[test]
fn mm_array_column_major() {
    let m = mm("%%MatrixMarket matrix array real general\n2 3\n1\n2\n3\n4\n5\n6\n").unwrap();
    assert!(same_values(&m, &dense(2, 3, &[1., 3., 5., 2., 4., 6.])));
    let m = mm("%%MatrixMarket matrix array integer symmetric\n3 3\n1\n2\n3\n4\n5\n6\n").unwrap();
    assert!(same_values(
        &m,
        &dense(3, 3, &[1., 2., 3., 2., 4., 5., 3., 5., 6.])
    ));
    let m = mm("%%MatrixMarket matrix array real skew-symmetric\n3 3\n1\n2\n3\n").unwrap();
    assert!(same_values(
        &m,
        &dense(3, 3, &[0., -1., -2., 1., 0., -3., 2., 3., 0.])
    ));
    let m = mm("%%MatrixMarket matrix array real general\n0 5\n").unwrap();
    assert_eq!((m.rows(), m.cols()), (0, 5));
}

#[test]
fn mm_case_insensitive_header_and_empty() {
    let m = mm("%%matrixmarket MATRIX Coordinate Real General\n4 5 0\n").unwrap();
    assert_eq!((m.rows(), m.cols(), m.nnz()), (4, 5, 0));
    // SystemDS's empty-matrix marker.
    let m = mm("%%MatrixMarket matrix coordinate real general\n4 5 0\n1 1 0\n").unwrap();
    assert_eq!((m.rows(), m.cols(), m.nnz()), (4, 5, 0));
}

#[test]
fn mm_dense_result_when_dense_enough() {
    let m =
        mm("%%MatrixMarket matrix coordinate real general\n2 2 3\n1 1 1\n1 2 2\n2 2 3\n").unwrap();
    assert!(!m.is_sparse());
    assert_eq!(m.get(1, 1), 3.0);
}

#[test]
fn mm_errors_have_line_numbers() {
    let h = "%%MatrixMarket matrix coordinate real general\n";
    let cases: &[(String, usize)] = &[
        ("".into(), 1),
        ("3 3 1\n1 1 1\n".into(), 1),
        ("%%MatrixMarket matrix coordinate real\n".into(), 1),
        ("%%MatrixMarket vector coordinate real general\n".into(), 1),
        ("%%MatrixMarket matrix sparse real general\n".into(), 1),
        (
            "%%MatrixMarket matrix coordinate complex general\n".into(),
            1,
        ),
        (
            "%%MatrixMarket matrix coordinate real hermitian\n".into(),
            1,
        ),
        ("%%MatrixMarket matrix array pattern general\n".into(), 1),
        (h.to_string(), 2),
        (format!("{h}% only comments\n"), 3),
        (format!("{h}% c\n3 3\n"), 3),
        (format!("{h}3 -3 1\n"), 2),
        (format!("{h}3 x 1\n"), 2),
        (format!("{h}3 3 1 4\n"), 2),
        (format!("{h}3 3 2\n1 1 1\n"), 4),
        (format!("{h}3 3 2\n1 1 1\n% trailing comment"), 5),
        (format!("{h}3 3 1\n1 1 1\n2 2 2\n"), 4),
        (format!("{h}3 3 1\n% c\n\n4 1 1\n"), 5),
        (format!("{h}3 3 1\n1 0 1\n"), 3),
        (format!("{h}3 3 2\n1 1 1\n1 4 1\n"), 4),
        (format!("{h}3 3 1\n1 1\n"), 3),
        (format!("{h}3 3 1\n1 1 1 1\n"), 3),
        (format!("{h}3 3 1\n1 1 abc\n"), 3),
        (format!("{h}3 3 1\n1 1.5 1\n"), 3),
        (format!("{h}3 3 1\n-1 1 1\n"), 3),
        (
            "%%MatrixMarket matrix coordinate integer general\n3 3 1\n1 1 1.5\n".into(),
            3,
        ),
        (
            "%%MatrixMarket matrix coordinate real symmetric\n3 4 1\n".into(),
            2,
        ),
        (
            "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 1\n2 2 1\n".into(),
            3,
        ),
        (
            "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n".into(),
            6,
        ),
        (
            "%%MatrixMarket matrix array real general\n2 1\n1\n2\n3\n".into(),
            5,
        ),
        (
            "%%MatrixMarket matrix array real general\n2 1\n1 2\n".into(),
            3,
        ),
        (
            "%%MatrixMarket matrix array real general\n2 1\n1\nx\n".into(),
            4,
        ),
        (
            "%%MatrixMarket matrix array real general\n2 2 4\n".into(),
            2,
        ),
        (
            "%%MatrixMarket matrix array real general\n99999999999 99999999999\n".into(),
            2,
        ),
        (format!("{h}99999999999999999999999 3 1\n"), 2),
    ];
    for (text, line) in cases {
        assert_eq!(err_line(mm(text)), *line, "input:\n{text}");
    }
}

#[test]
fn mm_error_line_in_parallel_chunks() {
    // Large enough to be split into several chunks; the bad entry is near the end.
    let n = 200_000;
    let mut text = format!("%%MatrixMarket matrix coordinate real general\n{n} 10 {n}\n");
    for i in 1..=n {
        if i == n - 5 {
            text.push_str("1 11 1\n");
        } else {
            text.push_str(&format!("{i} {} {}.25\n", i % 10 + 1, i));
        }
    }
    assert_eq!(err_line(mm(&text)), 2 + (n - 5));
    // Too many entries, detected across chunks.
    let text = text.replace("1 11 1\n", "1 1 1\n").replacen(
        &format!("{n} 10 {n}"),
        &format!("{n} 10 {}", n - 1),
        1,
    );
    assert_eq!(err_line(mm(&text)), 2 + n);
    let text = text.replacen(&format!("{n} 10 {}", n - 1), &format!("{n} 10 {n}"), 1);
    let m = mm(&text).unwrap();
    assert_eq!(m.rows(), n);
    assert_eq!(m.get(n - 1, n % 10), n as f64 + 0.25);
}

// ---------------------------------------------------------------------------------------
// CSV.

#[test]
fn csv_basic_header_sep_and_empty_fields() {
    let m = csv_parse("1,2,3\n4,,6\n\n").unwrap();
    assert!(same_values(&m, &dense(2, 3, &[1., 2., 3., 4., 0., 6.])));
    let m = csv::parse(b"a;b\n 1 ; -2.5e1\r\n3;NaN", Path::new(P), true, ";").unwrap();
    assert_eq!(m.get(0, 1), -25.0);
    assert!(m.get(1, 1).is_nan());
    let m = csv::parse("1\u{2016}2\n".as_bytes(), Path::new(P), false, "\u{2016}").unwrap();
    assert_eq!((m.rows(), m.cols()), (1, 2));
    // A separator of several characters is matched whole, as SystemDS splits.
    let m = csv::parse(b"1::2\n3::4\n", Path::new(P), false, "::").unwrap();
    assert!(same_values(&m, &dense(2, 2, &[1., 2., 3., 4.])));
    let mut written = Vec::new();
    csv::write(&m, &mut written, false, "::").unwrap();
    assert_eq!(String::from_utf8(written).unwrap(), "1::2\n3::4\n");
    let m = csv_parse("").unwrap();
    assert_eq!((m.rows(), m.cols()), (0, 0));
    let m = csv_parse("\u{feff}Infinity,-inf\n").unwrap();
    assert_eq!(m.get(0, 0), f64::INFINITY);
    assert_eq!(m.get(0, 1), f64::NEG_INFINITY);
}

#[test]
fn csv_errors_have_line_numbers() {
    assert_eq!(err_line(csv_parse("1,2\n3\n")), 2);
    assert_eq!(err_line(csv_parse("1,2\n\n3,4,5\n")), 3);
    assert_eq!(err_line(csv_parse("1,2\n3,x\n")), 2);
    assert_eq!(
        err_line(csv::parse(b"h\n1,2\n3,4,\n", Path::new(P), true, ",")),
        3
    );
    // Across parallel chunks.
    let mut text = String::new();
    for i in 0..300_000 {
        text.push_str(if i == 250_000 { "1,2\n" } else { "1,2,3\n" });
    }
    assert_eq!(err_line(csv_parse(&text)), 250_001);
    let mut text = "1,2\n".repeat(300_000);
    text.push_str("1,2,3\n");
    assert_eq!(err_line(csv_parse(&text)), 300_001);
}

// ---------------------------------------------------------------------------------------
// NumPy.

/// Builds a `.npy` file by hand: version, header dict text and raw data.
fn npy_bytes(major: u8, dict: &str, data: &[u8]) -> Vec<u8> {
    let mut out = b"\x93NUMPY".to_vec();
    out.push(major);
    out.push(0);
    let header = format!("{dict}\n");
    if major == 1 {
        out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    } else {
        out.extend_from_slice(&(header.len() as u32).to_le_bytes());
    }
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(data);
    out
}

fn npy(bytes: &[u8]) -> Result<Matrix> {
    npy::parse(bytes, Path::new(P))
}

#[test]
fn npy_dtypes_orders_and_ranks() {
    let f8: Vec<u8> = [1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let c = npy(&npy_bytes(
        1,
        "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }",
        &f8,
    ))
    .unwrap();
    assert!(same_bits(&c, &dense(2, 3, &[1., 2., 3., 4., 5., 6.])));
    let f = npy(&npy_bytes(
        2,
        "{\"descr\":\"<f8\",\"fortran_order\":True,\"shape\":(2,3)}",
        &f8,
    ))
    .unwrap();
    assert!(same_bits(&f, &dense(2, 3, &[1., 3., 5., 2., 4., 6.])));
    let f4: Vec<u8> = [1.5f32, -2.0]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let v = npy(&npy_bytes(
        3,
        "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }",
        &f4,
    ))
    .unwrap();
    assert!(same_bits(&v, &dense(2, 1, &[1.5, -2.0])));
    let i8: Vec<u8> = [-3i64, 1 << 40]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let v = npy(&npy_bytes(
        1,
        "{'descr': '<i8', 'fortran_order': False, 'shape': (1, 2), }",
        &i8,
    ))
    .unwrap();
    assert!(same_bits(&v, &dense(1, 2, &[-3.0, (1u64 << 40) as f64])));
    let i4: Vec<u8> = [7i32].iter().flat_map(|v| v.to_le_bytes()).collect();
    let s = npy(&npy_bytes(
        1,
        "{'descr': '<i4', 'fortran_order': False, 'shape': (), }",
        &i4,
    ))
    .unwrap();
    assert!(same_bits(&s, &dense(1, 1, &[7.0])));
    let b = npy(&npy_bytes(
        1,
        "{'descr': '|b1', 'fortran_order': True, 'shape': (2, 2), }",
        &[1, 0, 0, 1],
    ))
    .unwrap();
    assert!(same_bits(&b, &dense(2, 2, &[1., 0., 0., 1.])));
    let u = npy(&npy_bytes(
        1,
        "{'descr': '|u1', 'fortran_order': False, 'shape': (3,), }",
        &[255, 0, 7],
    ))
    .unwrap();
    assert!(same_bits(&u, &dense(3, 1, &[255., 0., 7.])));
    let be: Vec<u8> = [2.5f64].iter().flat_map(|v| v.to_be_bytes()).collect();
    let v = npy(&npy_bytes(
        1,
        "{'descr': '>f8', 'fortran_order': False, 'shape': (1, 1), }",
        &be,
    ))
    .unwrap();
    assert_eq!(v.get(0, 0), 2.5);
    let e = npy(&npy_bytes(
        1,
        "{'descr': '<f8', 'fortran_order': False, 'shape': (0, 4), }",
        &[],
    ))
    .unwrap();
    assert_eq!((e.rows(), e.cols()), (0, 4));
}

#[test]
fn npy_errors() {
    let ok = "{'descr': '<f8', 'fortran_order': False, 'shape': (1, 1), }";
    let one = 1.0f64.to_le_bytes();
    assert!(npy(&npy_bytes(1, ok, &one)).is_ok());
    let bad: Vec<Vec<u8>> = vec![
        b"".to_vec(),
        b"\x93NUMPX\x01\x00".to_vec(),
        b"\x93NUMPY\x04\x00\x10\x00".to_vec(),
        b"\x93NUMPY\x01\x00\xff".to_vec(),
        b"\x93NUMPY\x01\x00\xff\x00{}".to_vec(),
        npy_bytes(1, ok, &one[..7]),
        npy_bytes(1, ok, &[one.as_slice(), &[0]].concat()),
        npy_bytes(1, &ok.replace("<f8", "<c16"), &one),
        npy_bytes(1, &ok.replace("<f8", "|f8"), &one),
        npy_bytes(1, &ok.replace("<f8", "<f2"), &one),
        npy_bytes(1, &ok.replace("(1, 1)", "(1, 1, 1)"), &one),
        npy_bytes(1, &ok.replace("(1, 1)", "(1, x)"), &one),
        npy_bytes(1, &ok.replace("(1, 1)", "(99999999999, 99999999999)"), &one),
        npy_bytes(1, &ok.replace("False", "None"), &one),
        npy_bytes(1, &ok.replace("'shape': (1, 1), ", ""), &one),
        npy_bytes(1, &ok.replace("}", ", 'extra': 1}"), &one),
        npy_bytes(1, &format!("{ok} x"), &one),
        npy_bytes(1, &ok.replace("'descr'", "'descr"), &one),
        npy_bytes(1, &ok.replace("<f8", "<\u{e9}8"), &one),
        npy_bytes(1, &ok.replace("<f8", "\u{e9}"), &one),
    ];
    for b in bad {
        match npy(&b) {
            Err(ExecError::Parse { line: 0, .. }) => {}
            other => panic!("{:?}: expected a parse error, got {other:?}", b),
        }
    }
}

#[test]
fn npy_writer_header_is_aligned_and_numpy_shaped() {
    let mut out = Vec::new();
    npy::write(&dense(2, 3, &[0.0; 6]), &mut out).unwrap();
    let header_len = u16::from_le_bytes([out[8], out[9]]) as usize;
    assert_eq!((10 + header_len) % 64, 0);
    assert_eq!(out.len(), 10 + header_len + 48);
    let header = std::str::from_utf8(&out[10..10 + header_len]).unwrap();
    assert!(header.starts_with("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }"));
    assert!(header.ends_with('\n'));
}

// ---------------------------------------------------------------------------------------
// Round trips through files, and file-level errors.

/// Values that stress the text formats: negative, tiny, huge, subnormal, non-finite.
const NASTY: &[f64] = &[
    -1.0,
    0.1,
    1.0 / 3.0,
    -2.5e-300,
    1.7976931348623157e308,
    5e-324,
    -123456789.12345679,
    1e16,
    1e-5,
    9999999999999998.0,
    f64::INFINITY,
    f64::NEG_INFINITY,
    f64::NAN,
    f64::MIN_POSITIVE,
    -0.0,
    42.0,
];

fn test_matrices() -> Vec<Matrix> {
    let mut out = vec![
        dense(0, 0, &[]),
        dense(1, 1, &[-7.25]),
        dense(4, 4, &NASTY[..16]),
        dense(16, 1, NASTY),
        dense(1, 16, NASTY),
    ];
    let mut triplets = Vec::new();
    for (k, &v) in NASTY.iter().enumerate() {
        triplets.push((k * 7 % 50, k * 13 % 40, v));
    }
    let s = CsrMatrix::from_triplets(50, 40, &triplets).unwrap();
    out.push(Matrix::Sparse(s));
    out.push(Matrix::Sparse(CsrMatrix::zeros(30, 20)));
    out
}

#[test]
fn round_trips_all_formats() {
    let dir = TempDir::new();
    for (k, m) in test_matrices().iter().enumerate() {
        for format in [
            Format::MatrixMarket,
            Format::Text,
            Format::Csv,
            Format::Npy,
            Format::Binary,
        ] {
            let path = dir.path(&format!("m{k}.{}", format.name()));
            write_matrix(m, &path, format, &WriteOptions::default()).unwrap();
            // A text-cell file does not hold its size: SystemDS passes it from the `.mtd`.
            let ropts = ReadOptions {
                size: (Some(m.rows()), Some(m.cols())),
                ..ReadOptions::default()
            };
            let back = read_matrix(&path, format, &ropts).unwrap();
            if format == Format::Csv && m.rows() * m.cols() == 0 {
                // An empty CSV file has no shape.
                assert_eq!(back.shape().cells(), 0);
                continue;
            }
            match format {
                Format::Npy => assert!(same_bits(m, &back), "{format:?} {m:?} {back:?}"),
                // Text formats keep the sign of -0.0 only in CSV (MM drops zeros).
                Format::Csv => assert!(same_bits(m, &back), "{format:?} {m:?} {back:?}"),
                Format::Parquet => unreachable!("Parquet has its own tests"),
                // Binary blocks, like MM, keep the non-zeros only.
                Format::MatrixMarket | Format::Text | Format::Binary => {
                    assert!(same_values(m, &back), "{format:?} {m:?} {back:?}")
                }
            }
            assert_eq!(
                back.is_sparse(),
                m.clone().into_best_format().is_sparse(),
                "{format:?} format choice"
            );
        }
    }
    // CSV with header and another separator.
    let opts = WriteOptions {
        csv_header: true,
        csv_sep: "\t".to_string(),
    };
    let m = &test_matrices()[2];
    let path = dir.path("h.csv");
    write_matrix(m, &path, Format::Csv, &opts).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.starts_with("C1\tC2\tC3\tC4\n"));
    let ropts = ReadOptions {
        csv_header: true,
        csv_sep: "\t".to_string(),
        ..ReadOptions::default()
    };
    assert!(same_bits(
        m,
        &read_matrix(&path, Format::Csv, &ropts).unwrap()
    ));
    // No temporary files are left behind.
    let leftovers: Vec<_> = std::fs::read_dir(&dir.0)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().contains(".tmp."))
        .collect();
    assert!(leftovers.is_empty());
}

#[test]
fn mm_writer_matches_systemds_layout() {
    let m = dense(2, 3, &[0.0, 1.5, 0.0, -2.0, 0.0, 1e300]);
    let mut out = Vec::new();
    matrix_market::write(&m, &mut out).unwrap();
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "%%MatrixMarket matrix coordinate real general\n2 3 3\n1 2 1.5\n2 1 -2\n2 3 1e300\n"
    );
}

/// The text-cell reader, with and without the size, on what SystemDS writes.
fn text(bytes: &str, rows: Option<usize>, cols: Option<usize>) -> Result<Matrix> {
    text_cell::parse(bytes.as_bytes(), Path::new(P), (rows, cols))
}

#[test]
fn text_cells_read_with_the_size_given_or_taken_from_the_indices() {
    // SystemDS 3.4 wrote this for `matrix("1 0 2 0 0 3.5", rows=2, cols=3)`.
    let written = "1 1 1.0\n1 3 2.0\n2 3 3.5\n";
    let expected = dense(2, 3, &[1.0, 0.0, 2.0, 0.0, 0.0, 3.5]);
    assert!(same_values(
        &text(written, Some(2), Some(3)).unwrap(),
        &expected
    ));
    assert!(same_values(&text(written, None, None).unwrap(), &expected));
    // A given size keeps trailing empty rows and columns the indices cannot show.
    let wider = text(written, Some(4), None).unwrap();
    assert_eq!((wider.rows(), wider.cols()), (4, 3));
    // Any order, duplicates summed, tabs and CRLF as in Matrix Market bodies.
    let m = text("2\t1\t-1\r\n1 2 4\n2 1 3\n", None, None).unwrap();
    assert!(same_values(&m, &dense(2, 2, &[0.0, 4.0, 2.0, 0.0])));
    // Java's spellings of the non-finite values.
    let m = text("1 1 NaN\n1 2 Infinity\n1 3 -Infinity\n", None, None).unwrap();
    assert!(
        m.get(0, 0).is_nan() && m.get(0, 1) == f64::INFINITY && m.get(0, 2) == f64::NEG_INFINITY
    );
}

#[test]
fn text_cells_of_an_empty_matrix_need_the_size() {
    // SystemDS writes `matrix(0, rows=3, cols=4)` as the one line `0 0 0`.
    let m = text("0 0 0\n", Some(3), Some(4)).unwrap();
    assert_eq!((m.rows(), m.cols(), m.nnz()), (3, 4, 0));
    let m = text("", Some(3), Some(4)).unwrap();
    assert_eq!((m.rows(), m.cols()), (3, 4));
    for (body, rows) in [("0 0 0\n", Some(3)), ("", None), ("\n\n", None)] {
        match text(body, rows, None) {
            Err(ExecError::Parse {
                line: 1, message, ..
            }) => {
                assert!(message.contains("does not say its size"), "{message}")
            }
            other => panic!("{body:?}: {other:?}"),
        }
    }
    let mut out = Vec::new();
    text_cell::write(&dense(2, 2, &[0.0; 4]), &mut out).unwrap();
    assert_eq!(out, b"0 0 0\n");
    let mut out = Vec::new();
    text_cell::write(&dense(2, 3, &[0.0, 1.5, 0.0, -2.0, 0.0, 1e300]), &mut out).unwrap();
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "1 2 1.5\n2 1 -2\n2 3 1e300\n"
    );
}

#[test]
fn text_cell_errors_name_the_line() {
    assert_eq!(err_line(text("1 1 1\n\n3 1 2\n", Some(2), Some(2))), 3);
    assert_eq!(err_line(text("1 1 1\n2 x 2\n", None, None)), 2);
    assert_eq!(err_line(text("1 1 1\n2 2\n", None, None)), 2);
    assert_eq!(err_line(text("1 1 1\n0 0 0\n", None, None)), 2);
    assert_eq!(err_line(text("1 1 1\n", Some(1usize << 33), Some(1))), 1);
}

#[test]
fn metadata_files_read_as_systemds_writes_them_and_round_trip() {
    // What SystemDS 3.4 wrote beside a text-cell file.
    let systemds = br#"{
    "data_type": "matrix",
    "value_type": "double",
    "rows": 2,
    "cols": 3,
    "nnz": 3,
    "format": "text",
    "author": "root",
    "created": "2026-11-29 09:38:13 UTC"
}"#;
    let meta = metadata::parse(systemds, Path::new(P)).unwrap();
    let expected = metadata::Metadata {
        data_type: Some("matrix".into()),
        schema: None,
        value_type: Some("double".into()),
        rows: Some(2),
        cols: Some(3),
        nnz: Some(3),
        format: Some("text".into()),
        header: None,
        sep: None,
    };
    assert_eq!(meta, expected);
    let json = metadata::to_json(&expected);
    // SystemDS's layout, without the keys that say nothing of the data.
    assert_eq!(
        json,
        "{\n    \"data_type\": \"matrix\",\n    \"value_type\": \"double\",\n    \"rows\": 2,\n    \"cols\": 3,\n    \"nnz\": 3,\n    \"format\": \"text\"\n}\n"
    );
    assert_eq!(
        metadata::parse(json.as_bytes(), Path::new(P)).unwrap(),
        expected
    );
    let csv = metadata::Metadata {
        format: Some("csv".into()),
        header: Some(true),
        sep: Some("\t\"".into()),
        ..expected
    };
    assert_eq!(
        metadata::parse(metadata::to_json(&csv).as_bytes(), Path::new(P)).unwrap(),
        csv
    );
    // SystemDS's unknown size, and a scalar's file without one.
    let unknown = metadata::parse(br#"{"data_type": "scalar", "rows": -1}"#, Path::new(P)).unwrap();
    assert_eq!(
        (unknown.data_type.as_deref(), unknown.rows),
        (Some("scalar"), None)
    );
    // SystemDS's own test data closes objects after a comma (datasets/homes3); commas
    // inside strings stay.
    let trailing = metadata::parse(
        b"{\n  \"data_type\": \"frame\",\n  \"sep\": \",\\\",}\",\n  \"header\": true,\n}",
        Path::new(P),
    )
    .unwrap();
    assert_eq!(
        (
            trailing.data_type.as_deref(),
            trailing.sep.as_deref(),
            trailing.header
        ),
        (Some("frame"), Some(",\",}"), Some(true))
    );
    for bad in [
        &br#"[1, 2]"#[..],
        br#"{"rows": "two"}"#,
        br#"{"rows": 2.5}"#,
        br#"{"header": 1}"#,
        b"{\n\"rows\": 2,\n",
    ] {
        assert!(
            matches!(
                metadata::parse(bad, Path::new(P)),
                Err(ExecError::Parse { .. })
            ),
            "{bad:?}"
        );
    }
    // Beside a file: absent is `None`, present is read; written atomically.
    let dir = TempDir::new();
    let data = dir.path("x");
    assert_eq!(metadata::read_beside(&data).unwrap(), None);
    metadata::write_beside(&data, &csv).unwrap();
    assert_eq!(metadata::path_of(&data), dir.path("x.mtd"));
    assert_eq!(metadata::read_beside(&data).unwrap(), Some(csv));
}

#[test]
fn missing_file_and_bad_target_are_io_errors() {
    let dir = TempDir::new();
    let missing = dir.path("nope.mtx");
    for format in [Format::MatrixMarket, Format::Csv, Format::Npy] {
        match read_matrix(&missing, format, &ReadOptions::default()) {
            Err(e @ ExecError::Io { .. }) => assert!(e.to_string().contains("nope.mtx")),
            other => panic!("expected an I/O error, got {other:?}"),
        }
    }
    let in_missing_dir = dir.path("no/such/dir/x.csv");
    let r = write_matrix(
        &dense(1, 1, &[1.0]),
        &in_missing_dir,
        Format::Csv,
        &WriteOptions::default(),
    );
    assert!(matches!(r, Err(ExecError::Io { .. })));
}

#[test]
fn parse_errors_from_files_name_the_path() {
    let dir = TempDir::new();
    let path = dir.path("bad.mtx");
    std::fs::write(
        &path,
        "%%MatrixMarket matrix coordinate real general\n2 2 1\n3 1 1\n",
    )
    .unwrap();
    match read_matrix(&path, Format::MatrixMarket, &ReadOptions::default()) {
        Err(ExecError::Parse { path: p, line, .. }) => {
            assert_eq!(p, path);
            assert_eq!(line, 3);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn write_replaces_existing_file() {
    let dir = TempDir::new();
    let path = dir.path("x.npy");
    write_matrix(
        &dense(1, 1, &[1.0]),
        &path,
        Format::Npy,
        &WriteOptions::default(),
    )
    .unwrap();
    write_matrix(
        &dense(1, 2, &[2.0, 3.0]),
        &path,
        Format::Npy,
        &WriteOptions::default(),
    )
    .unwrap();
    let m = read_matrix(&path, Format::Npy, &ReadOptions::default()).unwrap();
    assert!(same_bits(&m, &dense(1, 2, &[2.0, 3.0])));
}

// ---------------------------------------------------------------------------------------
// No panic on any input.

fn valid_samples() -> Vec<(Format, Vec<u8>)> {
    let mut out = vec![
        (Format::MatrixMarket, b"%%MatrixMarket matrix coordinate real general\n% c\n3 4 3\n1 1 1.5\n3 4 -2e3\n2 2 7\n".to_vec()),
        (Format::MatrixMarket, b"%%MatrixMarket matrix coordinate pattern symmetric\n3 3 2\n2 1\n3 3\n".to_vec()),
        (Format::MatrixMarket, b"%%MatrixMarket matrix array real skew-symmetric\n3 3\n1\n2\n3\n".to_vec()),
        (Format::MatrixMarket, b"%%MatrixMarket matrix array integer general\n2 2\n1\n2\n3\n4\n".to_vec()),
        (Format::Csv, b"1,2,3\n4,,6\n7,8,9\n".to_vec()),
        (Format::Text, b"1 1 1.5\n3 4 -2e3\n2 2 7\n".to_vec()),
        (Format::Text, b"0 0 0\n".to_vec()),
    ];
    let mut buf = Vec::new();
    npy::write(&dense(2, 2, &[1.0, -2.0, 0.0, 4.0]), &mut buf).unwrap();
    out.push((Format::Npy, buf));
    out
}

fn parse_any(format: Format, bytes: &[u8]) -> Result<Matrix> {
    let path = Path::new(P);
    match format {
        Format::MatrixMarket => matrix_market::parse(bytes, path),
        Format::Text => text_cell::parse(bytes, path, (None, None))
            .and_then(|_| text_cell::parse(bytes, path, (Some(3), Some(4)))),
        Format::Csv => csv::parse(bytes, path, false, ","),
        Format::Npy => npy::parse(bytes, path),
        Format::Parquet | Format::Binary => unreachable!("read from a file"),
    }
}

/// Tokens that line mutations splice in: numbers at the edges of what is valid.
const TOKENS: &[&str] = &[
    "0",
    "-1",
    "1",
    "3",
    "4",
    "5",
    "1e400",
    "nan",
    "x",
    "",
    " ",
    "%",
    "%%MatrixMarket",
    "18446744073709551616",
    "4294967296",
    ",",
    "\n",
    "\r",
    "1.5",
    "pattern",
    "symmetric",
    "array",
    "\u{e9}",
];

#[derive(Debug, Clone)]
enum Mutation {
    DeleteLine(usize),
    DuplicateLine(usize),
    SwapLines(usize, usize),
    ReplaceToken(usize, usize, usize),
    Truncate(usize),
    FlipByte(usize, u8),
}

fn apply(bytes: &[u8], m: &Mutation) -> Vec<u8> {
    let text = String::from_utf8_lossy(bytes).into_owned();
    let mut lines: Vec<String> = text.split('\n').map(str::to_string).collect();
    let n = lines.len();
    match *m {
        Mutation::DeleteLine(k) => {
            lines.remove(k % n);
        }
        Mutation::DuplicateLine(k) => {
            let l = lines[k % n].clone();
            lines.insert(k % n, l);
        }
        Mutation::SwapLines(a, b) => lines.swap(a % n, b % n),
        Mutation::ReplaceToken(k, t, tok) => {
            let line = &mut lines[k % n];
            let mut words: Vec<String> = line.split(' ').map(str::to_string).collect();
            let len = words.len();
            words[t % len] = TOKENS[tok % TOKENS.len()].to_string();
            *line = words.join(" ");
        }
        Mutation::Truncate(k) => {
            let mut b = bytes.to_vec();
            b.truncate(k % (bytes.len() + 1));
            return b;
        }
        Mutation::FlipByte(k, v) => {
            let mut b = bytes.to_vec();
            if !b.is_empty() {
                let len = b.len();
                b[k % len] = v;
            }
            return b;
        }
    }
    lines.join("\n").into_bytes()
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        any::<usize>().prop_map(Mutation::DeleteLine),
        any::<usize>().prop_map(Mutation::DuplicateLine),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::SwapLines(a, b)),
        (any::<usize>(), any::<usize>(), any::<usize>())
            .prop_map(|(a, b, c)| Mutation::ReplaceToken(a, b, c)),
        any::<usize>().prop_map(Mutation::Truncate),
        (any::<usize>(), any::<u8>()).prop_map(|(a, b)| Mutation::FlipByte(a, b)),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn readers_never_panic_on_random_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
        for format in [Format::MatrixMarket, Format::Csv, Format::Npy] {
            let _ = parse_any(format, &bytes);
        }
        let _ = binary::parse(&bytes, Path::new(P));
        // Random bytes behind valid prefixes get further into each parser.
        let mut b = b"%%MatrixMarket matrix coordinate real general\n".to_vec();
        b.extend_from_slice(&bytes);
        let _ = parse_any(Format::MatrixMarket, &b);
        let mut b = b"\x93NUMPY\x01\x00".to_vec();
        b.extend_from_slice(&bytes);
        let _ = parse_any(Format::Npy, &b);
    }

    #[test]
    fn readers_never_panic_on_mutated_files(sample in 0..8usize, muts in proptest::collection::vec(mutation(), 1..4)) {
        let samples = valid_samples();
        let (format, mut bytes) = samples[sample].clone();
        for m in &muts {
            bytes = apply(&bytes, m);
        }
        let _ = parse_any(format, &bytes);
        let _ = csv::parse(&bytes, Path::new(P), true, ";");
    }

    #[test]
    fn mm_csv_npy_round_trip_random(rows in 0..6usize, cols in 1..6usize, seed in any::<u64>()) {
        let mut x = seed | 1;
        let data: Vec<f64> = (0..rows * cols).map(|_| {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17;
            if x % 3 == 0 { 0.0 } else { f64::from_bits(x) }
        }).collect();
        let m = dense(rows, cols, &data);
        for format in [Format::MatrixMarket, Format::Csv, Format::Npy] {
            let mut buf = Vec::new();
            match format {
                Format::MatrixMarket => matrix_market::write(&m, &mut buf).unwrap(),
                Format::Csv => csv::write(&m, &mut buf, false, ",").unwrap(),
                Format::Npy => npy::write(&m, &mut buf).unwrap(),
                Format::Text | Format::Parquet | Format::Binary => {
                    unreachable!("not among the formats tried")
                }
            }
            let back = parse_any(format, &buf).unwrap();
            if format == Format::Csv && rows == 0 {
                continue;
            }
            prop_assert!(same_values(&m, &back), "{:?}", format);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// The reader agrees with `CsrMatrix::from_triplets` on random entry lists: sorted or
    /// not, with duplicates and explicit zeros, and symmetric mirroring.
    #[test]
    fn mm_reader_matches_triplet_reference(
        rows in 1..12usize,
        cols in 1..12usize,
        raw in proptest::collection::vec((0..12usize, 0..12usize, prop_oneof![Just(0.0), -4.0..4.0f64]), 0..40),
        sort in any::<bool>(),
        symmetric in any::<bool>(),
    ) {
        let cols = if symmetric { rows } else { cols };
        let mut entries: Vec<(usize, usize, f64)> =
            raw.into_iter().map(|(i, j, v)| (i % rows, j % cols, v)).collect();
        if sort {
            entries.sort_by_key(|&(i, j, _)| (i, j));
        }
        let mut text = format!(
            "%%MatrixMarket matrix coordinate real {}\n{rows} {cols} {}\n",
            if symmetric { "symmetric" } else { "general" },
            entries.len()
        );
        let mut reference = Vec::new();
        for &(i, j, v) in &entries {
            text.push_str(&format!("{} {} {v}\n", i + 1, j + 1));
            reference.push((i, j, v));
            if symmetric && i != j {
                reference.push((j, i, v));
            }
        }
        let want = Matrix::Sparse(CsrMatrix::from_triplets(rows, cols, &reference).unwrap());
        let got = mm(&text).unwrap();
        prop_assert!(got.approx_eq(&want, 1e-12));
        if let Matrix::Sparse(s) = &got {
            prop_assert!(!s.has_explicit_zeros());
        }
    }
}

#[test]
fn mm_large_unsorted_with_duplicates() {
    // Parallel pieces, entries in column-major order with every entry duplicated.
    let (rows, cols) = (7000, 50);
    let mut text = String::new();
    let mut reference = Vec::new();
    for j in 0..cols {
        for i in (j % 7..rows).step_by(7) {
            let v = (i * cols + j) as f64 * 0.5 - 100.0;
            text.push_str(&format!(
                "{} {} {v}\n{} {} {v}\n",
                i + 1,
                j + 1,
                i + 1,
                j + 1
            ));
            reference.push((i, j, 2.0 * v));
        }
    }
    let n = text.lines().count();
    let text = format!("%%MatrixMarket matrix coordinate real general\n{rows} {cols} {n}\n{text}");
    assert!(text.len() > 1 << 20);
    let want = Matrix::Sparse(CsrMatrix::from_triplets(rows, cols, &reference).unwrap());
    assert!(mm(&text).unwrap().approx_eq(&want, 0.0));
}

// ---------------------------------------------------------------------------------------
// The parallel Matrix Market path: in-place value parsing, assembly split over pieces.

/// A small deterministic generator of test values (no dependence on the rand crate's
/// stream across versions).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }

    /// A value with up to 17 significant digits, sometimes an exponent, sometimes zero.
    fn value(&mut self) -> f64 {
        match self.next() % 10 {
            0 => 0.0,
            1 => -((self.next() % 1000) as f64) * 1e-7,
            _ => (self.next() as f64 / 3.0 - 1e9) / 7.0,
        }
    }
}

#[test]
fn mm_large_sorted_sparse_spans_pieces() {
    // Rows of very different lengths (some empty, including the first and last ones),
    // so piece boundaries fall inside rows and between them; explicit zeros included.
    let (rows, cols) = (9000, 400);
    let mut rng = Lcg(11);
    let mut entries = Vec::new();
    for i in 1..rows - 1 {
        let len = match i % 50 {
            0 => 300,
            k if k < 10 => 0,
            _ => (rng.next() % 12) as usize,
        };
        let mut j = 0;
        for _ in 0..len {
            j += 1 + (rng.next() % 2) as usize;
            if j > cols {
                break;
            }
            entries.push((i, j - 1, rng.value()));
        }
    }
    let mut text = format!(
        "%%MatrixMarket matrix coordinate real general\n{rows} {cols} {}\n",
        entries.len()
    );
    for &(i, j, v) in &entries {
        text.push_str(&format!("{} {} {v}\n", i + 1, j + 1));
    }
    assert!(text.len() > 2 << 20, "must be split into pieces");
    let want = CsrMatrix::from_triplets(rows, cols, &entries).unwrap();
    match mm(&text).unwrap() {
        Matrix::Sparse(got) => {
            assert!(!got.has_explicit_zeros());
            assert_eq!(got.stored(), entries.iter().filter(|e| e.2 != 0.0).count());
            for i in 0..rows {
                assert_eq!(got.line(i), want.pruned().line(i), "row {i}");
            }
        }
        other => panic!("expected a sparse result, got {other:?}"),
    }
}

#[test]
fn mm_large_dense_coordinate_sorted_unsorted_duplicated() {
    // nnz == rows * cols: the result is dense, filled in place by the pieces.
    let (rows, cols) = (40_000, 5);
    let mut rng = Lcg(5);
    let cells: Vec<f64> = (0..rows * cols).map(|_| rng.value()).collect();
    let line = |k: usize| format!("{} {} {}\n", k / cols + 1, k % cols + 1, cells[k]);
    let header =
        |n: usize| format!("%%MatrixMarket matrix coordinate real general\n{rows} {cols} {n}\n");
    let want = dense(rows, cols, &cells);

    let sorted: String = header(rows * cols) + &(0..rows * cols).map(line).collect::<String>();
    assert!(sorted.len() > 2 << 20);
    let got = mm(&sorted).unwrap();
    assert!(!got.is_sparse());
    assert!(same_values(&got, &want));

    // Reversed order, every cell split into two halves that are summed.
    let mut text = header(2 * rows * cols);
    for k in (0..rows * cols).rev() {
        let (i, j, v) = (k / cols + 1, k % cols + 1, cells[k]);
        text.push_str(&format!("{i} {j} {}\n{i} {j} {}\n", v * 0.5, v * 0.5));
    }
    let got = mm(&text).unwrap();
    assert!(!got.is_sparse());
    assert!(got.approx_eq(&want, 1e-15));
}

#[test]
fn read_matrix_large_file_reads_in_parallel_slices() {
    // Larger than the parallel-read threshold; the result equals parsing the same bytes.
    let (rows, cols) = (60_000, 30);
    let mut rng = Lcg(3);
    let mut text = String::new();
    let mut n = 0;
    for i in 1..=rows {
        for j in (1 + (i % 3)..=cols).step_by(3) {
            text.push_str(&format!("{i} {j} {}\n", rng.value()));
            n += 1;
        }
    }
    let text = format!("%%MatrixMarket matrix coordinate real general\n{rows} {cols} {n}\n{text}");
    assert!(text.len() as u64 > PARALLEL_READ_MIN_BYTES);
    let dir = TempDir::new();
    let path = dir.path("big.mtx");
    std::fs::write(&path, &text).unwrap();
    assert!(matches!(
        read_file(&path).unwrap(),
        super::FileBytes::Mapped(_)
    ));
    assert_eq!(&*read_file(&path).unwrap(), text.as_bytes());
    super::test_knobs::NO_MAP.with(|c| c.set(true));
    let read = read_file(&path);
    super::test_knobs::NO_MAP.with(|c| c.set(false));
    assert!(matches!(read.as_ref().unwrap(), super::FileBytes::Read(_)));
    assert_eq!(&*read.unwrap(), text.as_bytes());
    let from_file = read_matrix(&path, Format::MatrixMarket, &ReadOptions::default()).unwrap();
    assert!(same_bits(&from_file, &mm(&text).unwrap()));
    assert_eq!(from_file.rows(), rows);
}

#[test]
fn mm_coordinate_dimensions_beyond_u32_are_a_clear_error() {
    let h = "%%MatrixMarket matrix coordinate real general\n";
    for size in ["4294967296 2 1", "2 4294967296 1"] {
        let r = mm(&format!("{h}% c\n{size}\n1 1 1\n"));
        let message = r.as_ref().map_err(|e| e.to_string()).unwrap_err();
        assert!(message.contains("4294967295"), "{message}");
        assert_eq!(err_line(r), 3);
    }
    // The largest allowed index still parses (a 1 x 2^32-1 sparse row).
    let m = mm(&format!("{h}1 4294967295 1\n1 4294967295 2.5\n")).unwrap();
    assert_eq!(m.get(0, 4294967294), 2.5);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    /// The in-place value parser accepts exactly the tokens Rust's `f64::from_str` does
    /// and gives the same bits (or the reader's error says which line is bad).
    #[test]
    fn mm_values_parse_like_std(
        token in prop_oneof![
            "[-+]?[0-9]{0,22}(\\.[0-9]{0,22})?([eE][-+]?[0-9]{0,4})?",
            "[-+]?(inf|Infinity|INF|nan|NaN|infinity|in|na|e|\\.|1e|1\\.e5|\\.5|5\\.|0x1)",
            "[-+0-9.eE]{1,12}",
        ],
    ) {
        let text = format!("%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 {token}\n");
        match (mm(&text), token.parse::<f64>()) {
            (Ok(m), Ok(want)) => {
                let got = m.get(0, 0);
                prop_assert!(got == want || (got.is_nan() && want.is_nan()), "{token}: {got} vs {want}");
            }
            (Err(e), Err(_)) => prop_assert_eq!(err_line(Err(e)), 3),
            (got, want) => prop_assert!(false, "{}: reader {:?}, std {:?}", token, got.map(|m| m.get(0, 0)), want),
        }
    }
}

// ---------------------------------------------------------------------------------------
// The row-major fast path (`io/mm_sorted.rs`) against the generic one, on small pieces.

/// Parses `text` with pieces of about `piece_bytes` bytes, by the fast path where it
/// applies (`sorted`) or by the generic path only.
fn mm_pieces(text: &str, piece_bytes: usize, sorted: bool) -> Result<Matrix> {
    use super::test_knobs::{NO_SORTED_PATH, PIECE_BYTES};
    PIECE_BYTES.with(|c| c.set(Some(piece_bytes)));
    NO_SORTED_PATH.with(|c| c.set(!sorted));
    let r = mm(text);
    PIECE_BYTES.with(|c| c.set(None));
    NO_SORTED_PATH.with(|c| c.set(false));
    r
}

/// Whether the fast path takes the body of `text` (a general real coordinate file with
/// its size line on line 2), with pieces of about `piece_bytes` bytes.
fn fast_path_takes(text: &str, piece_bytes: usize) -> bool {
    use super::mm_entry::{Field, Header, Symmetry};
    let mut it = text.splitn(3, '\n');
    let (_, size, body) = (it.next(), it.next().unwrap(), it.next().unwrap_or(""));
    let dims: Vec<usize> = size
        .split_whitespace()
        .map(|t| t.parse().unwrap())
        .collect();
    let h = Header {
        field: Field::Real,
        symmetry: Symmetry::General,
        rows: dims[0],
        cols: dims[1],
        size_line: 2,
    };
    super::test_knobs::PIECE_BYTES.with(|c| c.set(Some(piece_bytes)));
    let taken = super::mm_sorted::parse(body.as_bytes(), &h, dims[2]).is_some();
    super::test_knobs::PIECE_BYTES.with(|c| c.set(None));
    taken
}

fn coordinate_text(rows: usize, cols: usize, entries: &[(usize, usize, f64)]) -> String {
    let mut text = format!(
        "%%MatrixMarket matrix coordinate real general\n{rows} {cols} {}\n",
        entries.len()
    );
    for &(i, j, v) in entries {
        text.push_str(&format!("{} {} {v}\n", i + 1, j + 1));
    }
    text
}

#[test]
fn mm_sorted_path_takes_row_major_files_only() {
    let entries = [
        (0, 1, 1.5),
        (0, 3, -2.0),
        (2, 0, 3.0),
        (3, 3, 4.0),
        (5, 2, 0.0),
    ];
    let sorted = coordinate_text(6, 4, &entries);
    for piece in [1, 7, 13, 1000] {
        assert!(fast_path_takes(&sorted, piece), "piece {piece}");
        assert!(same_bits(
            &mm_pieces(&sorted, piece, true).unwrap(),
            &mm_pieces(&sorted, piece, false).unwrap()
        ));
    }
    let swapped = [entries[1], entries[0], entries[2], entries[3], entries[4]];
    let repeated = [entries[0], entries[0], entries[2], entries[3], entries[4]];
    for bad in [&swapped[..], &repeated[..]] {
        for piece in [1, 7, 1000] {
            assert!(!fast_path_takes(&coordinate_text(6, 4, bad), piece));
        }
    }
    let with_comment = sorted.replacen("1 4 -2", "% note\n1 4 -2", 1);
    assert!(!fast_path_takes(&with_comment, 1000));
    let short = sorted.replacen("6 4 5", "6 4 6", 1);
    assert!(!fast_path_takes(&short, 1000));
    // Dense result (every cell present) from the fast path.
    let cells: Vec<(usize, usize, f64)> = (0..12).map(|k| (k / 3, k % 3, k as f64 - 5.0)).collect();
    let full = coordinate_text(4, 3, &cells);
    assert!(fast_path_takes(&full, 9));
    let got = mm_pieces(&full, 9, true).unwrap();
    assert!(!got.is_sparse());
    assert!(same_bits(&got, &mm_pieces(&full, 9, false).unwrap()));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Split into pieces of any size, sorted or not, with duplicates, explicit zeros, `-0`
    /// and blank or comment lines, a file reads to the same bits (or the same error) by
    /// the fast path as by the generic one.
    #[test]
    fn mm_sorted_path_matches_generic_path(
        rows in 1..10usize,
        cols in 1..10usize,
        raw in proptest::collection::vec(
            (0..10usize, 0..10usize, prop_oneof![Just(0.0), Just(-0.0), -4.0..4.0f64]),
            0..60,
        ),
        order in 0..3u8,
        dense_fill in any::<bool>(),
        extra in prop_oneof![Just(""), Just("\n"), Just("% c\n"), Just("1 1\n")],
        extra_at in any::<proptest::sample::Index>(),
        piece in 1..64usize,
    ) {
        let mut entries: Vec<(usize, usize, f64)> = if dense_fill {
            (0..rows * cols).map(|k| (k / cols, k % cols, k as f64 * 0.25 - 3.0)).collect()
        } else {
            raw.into_iter().map(|(i, j, v)| (i % rows, j % cols, v)).collect()
        };
        match order {
            0 => {
                entries.sort_by_key(|&(i, j, _)| (i, j));
                entries.dedup_by_key(|e| (e.0, e.1));
            }
            1 => entries.sort_by_key(|&(i, j, _)| (i, j)),
            _ => {}
        }
        let mut text = coordinate_text(rows, cols, &entries);
        if !extra.is_empty() {
            let lines: Vec<&str> = text.lines().collect();
            let at = 2 + extra_at.index(lines.len() - 1);
            let mut out: Vec<String> = lines.iter().map(|l| format!("{l}\n")).collect();
            out.insert(at, extra.to_string());
            text = out.concat();
        }
        let fast = mm_pieces(&text, piece, true);
        let generic = mm_pieces(&text, piece, false);
        match (fast, generic) {
            (Ok(a), Ok(b)) => {
                prop_assert!(same_bits(&a, &b), "{text}");
                prop_assert_eq!(a.is_sparse(), b.is_sparse());
                if let (Matrix::Sparse(x), Matrix::Sparse(y)) = (&a, &b) {
                    for i in 0..rows {
                        prop_assert_eq!(x.line(i), y.line(i));
                    }
                }
            }
            (Err(a), Err(b)) => prop_assert_eq!(a.to_string(), b.to_string()),
            (a, b) => prop_assert!(false, "fast {a:?} vs generic {b:?} on {text}"),
        }
        if order == 0 && extra.is_empty() && !entries.is_empty() {
            prop_assert!(fast_path_takes(&text, piece));
        }
    }
}

/// A dense file of a huge sparse matrix (10^6 x 4*10^9, one entry: at least 8e15 bytes
/// of CSV, 3.2e16 of `.npy`) is refused before anything is written, naming the path, the
/// size and the free space; nothing is left behind, not even the temporary file.
#[cfg(unix)]
#[test]
fn a_file_beyond_the_free_space_is_refused_before_it_is_written() {
    let (rows, cols) = (1_000_000, 4_000_000_000);
    let mut ptr = vec![1usize; rows + 1];
    ptr[0] = 0;
    let m = Matrix::Sparse(CsrMatrix::new(rows, cols, ptr, vec![7], vec![5.0]).unwrap());
    let dir = TempDir::new();
    for (name, format, needed) in [
        ("x.csv", Format::Csv, "8.0e6 GB"),
        ("x.npy", Format::Npy, "3.2e7 GB"),
    ] {
        let path = dir.path(name);
        let started = std::time::Instant::now();
        let e = write_matrix(&m, &path, format, &WriteOptions::default()).unwrap_err();
        let text = e.to_string();
        let prefix = format!(
            "{}: the file needs at least {needed}, more than the ",
            path.display()
        );
        assert!(text.starts_with(&prefix), "{text}");
        assert!(text.ends_with(" free on its filesystem"), "{text}");
        match e {
            ExecError::Io { source, .. } => {
                assert_eq!(source.kind(), std::io::ErrorKind::StorageFull)
            }
            other => panic!("{other:?}"),
        }
        assert!(started.elapsed() < std::time::Duration::from_secs(1));
    }
    assert_eq!(std::fs::read_dir(&dir.0).unwrap().count(), 0);
    // The sizes asked: exact for `.npy`, a lower bound for text.
    assert_eq!(npy::file_bytes(2, 3), 128.0 + 48.0);
    let small = dense(2, 3, &[0.0, 1.5, 0.0, 0.0, 0.0, -2.0]);
    let mut buf = Vec::new();
    npy::write(&small, &mut buf).unwrap();
    assert_eq!(buf.len(), 176);
    // "0,1.5,0\n0,0,-2\n" is 15 bytes; every cell counted as one character: 12.
    assert_eq!(csv::min_file_bytes(&small, false, ","), 12.0);
    assert_eq!(matrix_market::min_file_bytes(&small), 52.0 + 12.0);
}

#[test]
fn a_directory_of_parts_reads_as_one_file() {
    // SystemDS's tests write an input as `NAME/in` and read the directory `NAME`; its
    // parallel writers leave `0-m-00000`, `0-m-00001`, ... beside `.crc` and `_SUCCESS`.
    let dir = TempDir::new();
    let parts = dir.path("A");
    std::fs::create_dir(&parts).unwrap();
    std::fs::write(parts.join("0-m-00001"), "2 2 4.0\n").unwrap();
    std::fs::write(parts.join("0-m-00000"), "1 1 1.5\n1 2 2.0").unwrap();
    std::fs::write(parts.join(".0-m-00000.crc"), "junk").unwrap();
    std::fs::write(parts.join("_SUCCESS"), "").unwrap();
    let opts = ReadOptions {
        size: (Some(2), Some(2)),
        ..ReadOptions::default()
    };
    let m = read_matrix(&parts, Format::Text, &opts).unwrap();
    let want = Matrix::Dense(DenseMatrix::from_rows(&[vec![1.5, 2.0], vec![0.0, 4.0]]).unwrap());
    assert!(m.approx_eq(&want, 0.0));

    let empty = dir.path("E");
    std::fs::create_dir(&empty).unwrap();
    let err = read_matrix(&empty, Format::Text, &opts)
        .unwrap_err()
        .to_string();
    assert!(err.contains("E: a directory without data files"), "{err}");
}

/// The bytes SystemDS 3.4 wrote for `write(matrix("1 0 2.5 0 0 -3", 2, 3), f,
/// format="binary")`: one dense block.
const SYSTEMDS_BINARY_2X3: &str = "53455106326f72672e6170616368652e73797364732e72756e74696d652e6d61747269782e646174612e4d6174726978496e6465786573306f72672e6170616368652e73797364732e72756e74696d652e6d61747269782e646174612e4d6174726978426c6f636b000000000000b56bc252c6a0d1e75a392772a80f124f0000004900000010000000000000000100000000000000010000000200000003033ff00000000000000000000000000000400400000000000000000000000000000000000000000000c008000000000000";

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|k| u8::from_str_radix(&s[k..k + 2], 16).unwrap())
        .collect()
}

#[test]
fn binary_blocks_read_systemds_bytes_and_round_trip() {
    let dir = TempDir::new();
    let path = dir.path("X");
    std::fs::write(&path, unhex(SYSTEMDS_BINARY_2X3)).unwrap();
    let x = read_matrix(&path, Format::Binary, &ReadOptions::default()).unwrap();
    let want = DenseMatrix::from_rows(&[vec![1.0, 0.0, 2.5], vec![0.0, 0.0, -3.0]]).unwrap();
    assert!(x.approx_eq(&Matrix::Dense(want), 0.0));

    // Several blocks each way (1000 x 1000 blocks), sparse and dense blocks, an empty one.
    let mut rng = Lcg(11);
    let mut cells = Vec::new();
    for i in 0..2100 {
        for j in 0..1300 {
            let dense_corner = i < 50 && j < 40;
            // block (2, 2) stays empty
            let empty_block = (1000..2000).contains(&i) && j >= 1000;
            if (dense_corner || (i * 31 + j * 17) % 97 == 0) && !empty_block {
                cells.push((i, j, rng.value()));
            }
        }
    }
    let m = Matrix::Sparse(CsrMatrix::from_triplets(2100, 1300, &cells).unwrap());
    for (name, m) in [("S", m.clone()), ("D", Matrix::Dense(m.to_dense()))] {
        let path = dir.path(name);
        write_matrix(&m, &path, Format::Binary, &WriteOptions::default()).unwrap();
        let back = read_matrix(&path, Format::Binary, &ReadOptions::default()).unwrap();
        assert_eq!((back.rows(), back.cols()), (2100, 1300));
        assert!(same_bits(&back, &m) || back.approx_eq(&m, 0.0), "{name}");
    }
    let zeros = Matrix::Dense(DenseMatrix::zeros(3, 2));
    let path = dir.path("Z");
    write_matrix(&zeros, &path, Format::Binary, &WriteOptions::default()).unwrap();
    let back = read_matrix(&path, Format::Binary, &ReadOptions::default()).unwrap();
    assert_eq!((back.rows(), back.cols(), back.nnz()), (3, 2, 0));
}

#[test]
fn damaged_binary_files_are_clear_errors() {
    let dir = TempDir::new();
    let bytes = unhex(SYSTEMDS_BINARY_2X3);
    let cases: [(&str, Vec<u8>, &str); 4] = [
        ("text", b"1 1 2.0\n".to_vec(), "not a SystemDS binary file"),
        (
            "short",
            bytes[..bytes.len() - 5].to_vec(),
            "block past the file's end",
        ),
        (
            "version",
            [&bytes[..3], &[9u8], &bytes[4..]].concat(),
            "version 9",
        ),
        (
            "type",
            {
                let mut b = bytes.clone();
                let at = b.len() - 49;
                b[at] = 7;
                b
            },
            "block type 7",
        ),
    ];
    for (name, body, needle) in cases {
        let path = dir.path(name);
        std::fs::write(&path, body).unwrap();
        let err = read_matrix(&path, Format::Binary, &ReadOptions::default())
            .unwrap_err()
            .to_string();
        assert!(err.contains(needle) && err.contains(name), "{name}: {err}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// SystemDS's own binary file with bytes overwritten, cut or extended: an error or a
    /// matrix, never a panic.
    #[test]
    fn binary_reader_never_panics_on_damaged_files(
        edits in proptest::collection::vec((0..207usize, any::<u8>()), 1..6),
        cut in 100..230usize,
    ) {
        let mut b = unhex(SYSTEMDS_BINARY_2X3);
        for (at, byte) in edits {
            b[at] = byte;
        }
        b.resize(cut, 0x7f);
        let _ = binary::parse(&b, Path::new(P));
    }
}
