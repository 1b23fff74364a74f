//! Seeded `rand` and `sample` against numbers recorded from Apache SystemDS 3.4.
//!
//! Each case was run on SystemDS (`rand(...)`/`sample(...)` written out with `write`)
//! and a few cells, the non-zero count and the sum were kept here, so the check needs no
//! Java. Cells of multi-block cases include cells of the second block row and column.
//! Uniform, sparse and Poisson values and samples must match bit for bit; normal
//! deviates may differ from SystemDS's in their last bit (HotSpot's `Math.log`, `cos` and
//! `sin` intrinsics round differently from libm; see `spores_exec::random`).

use spores_exec::kernels::aggregate;
use spores_exec::random::{systemds_rand, systemds_sample, DatagenSpec, Pdf};

struct RandCase {
    name: &'static str,
    spec: DatagenSpec,
    nnz: usize,
    sum: f64,
    cells: &'static [(usize, usize, f64)],
}

const RAND_CASES: &[RandCase] = &[
    RandCase {
        name: "u34_7",
        spec: DatagenSpec {
            rows: 3,
            cols: 4,
            sparsity: 1.0,
            pdf: Pdf::Uniform { min: 0.0, max: 1.0 },
            seed: 7,
        },
        nnz: 12,
        sum: 3.8063803047794726,
        cells: &[
            (0, 0, 0.45324353322292277),
            (0, 1, 0.01592030416320278),
            (0, 2, 0.08606588879859611),
            (1, 2, 0.4610377623131737),
            (2, 2, 0.3194936572792131),
            (2, 3, 0.07199184891923938),
        ],
    },
    RandCase {
        name: "u34_42_range",
        spec: DatagenSpec {
            rows: 3,
            cols: 4,
            sparsity: 1.0,
            pdf: Pdf::Uniform {
                min: -2.5,
                max: 4.0,
            },
            seed: 42,
        },
        nnz: 12,
        sum: 1.6009086835206232,
        cells: &[
            (0, 0, -1.5174625946803635),
            (0, 1, 1.353293310488822),
            (0, 2, 0.054589956463162004),
            (1, 2, 0.432759822817542),
            (2, 2, -0.9262784822336705),
            (2, 3, -0.707683774028975),
        ],
    },
    RandCase {
        name: "u_big_1234567",
        spec: DatagenSpec {
            rows: 1500,
            cols: 1200,
            sparsity: 1.0,
            pdf: Pdf::Uniform { min: 0.0, max: 1.0 },
            seed: 1234567,
        },
        nnz: 1800000,
        sum: 900497.1699202531,
        cells: &[
            (0, 0, 0.972971350662498),
            (0, 1, 0.3778740643311922),
            (0, 2, 0.06940969349636872),
            (2, 1000, 0.41038652304820133),
            (750, 600, 0.4364197085355189),
            (999, 1000, 0.4716799893474307),
            (1000, 3, 0.3283934992960894),
            (1000, 1000, 0.13920451202772555),
            (1499, 1198, 0.24986118866363893),
            (1499, 1199, 0.6163819311719516),
        ],
    },
    RandCase {
        name: "u_big_7_range",
        spec: DatagenSpec {
            rows: 1500,
            cols: 1200,
            sparsity: 1.0,
            pdf: Pdf::Uniform {
                min: 10.0,
                max: 20.0,
            },
            seed: 7,
        },
        nnz: 1800000,
        sum: 27001001.990160633,
        cells: &[
            (0, 0, 14.532435332229227),
            (0, 1, 10.159203041632027),
            (0, 2, 10.860658887985961),
            (2, 1000, 19.51331855726789),
            (750, 600, 18.327843753200288),
            (999, 1000, 19.194395172496144),
            (1000, 3, 11.72360769406647),
            (1000, 1000, 19.849498468553314),
            (1499, 1198, 16.176393668785998),
            (1499, 1199, 14.694924609374816),
        ],
    },
    RandCase {
        name: "s01_small_7",
        spec: DatagenSpec {
            rows: 5,
            cols: 7,
            sparsity: 0.1,
            pdf: Pdf::Uniform { min: 0.0, max: 1.0 },
            seed: 7,
        },
        nnz: 6,
        sum: 1.2623740136355783,
        cells: &[
            (0, 0, 0.0),
            (0, 1, 0.45324353322292277),
            (0, 5, 0.01592030416320278),
            (1, 4, 0.08606588879859611),
            (2, 3, 0.0),
            (3, 1, 0.05575396305254521),
            (3, 6, 0.05475426466690947),
            (4, 6, 0.0),
        ],
    },
    RandCase {
        name: "s07_small_42",
        spec: DatagenSpec {
            rows: 5,
            cols: 7,
            sparsity: 0.7,
            pdf: Pdf::Uniform { min: 0.0, max: 1.0 },
            seed: 42,
        },
        nnz: 27,
        sum: 12.30293188318458,
        cells: &[
            (0, 0, 0.15115960081840563),
            (0, 2, 0.5928143554598188),
            (0, 5, 0.3930138394558711),
            (2, 3, 0.4264096075781637),
            (4, 5, 0.16241931494570805),
            (4, 6, 0.4159414464271487),
        ],
    },
    RandCase {
        name: "s01_mid_42",
        spec: DatagenSpec {
            rows: 40,
            cols: 30,
            sparsity: 0.1,
            pdf: Pdf::Uniform { min: 0.0, max: 1.0 },
            seed: 42,
        },
        nnz: 118,
        sum: 58.11619397953601,
        cells: &[
            (0, 0, 0.0),
            (0, 3, 0.15115960081840563),
            (0, 6, 0.5928143554598188),
            (0, 22, 0.3930138394558711),
            (20, 15, 0.0),
            (39, 11, 0.938178796250115),
            (39, 27, 0.5779921177031256),
            (39, 29, 0.0),
        ],
    },
    RandCase {
        name: "s01_big_7",
        spec: DatagenSpec {
            rows: 1500,
            cols: 1200,
            sparsity: 0.1,
            pdf: Pdf::Uniform { min: 0.0, max: 1.0 },
            seed: 7,
        },
        nnz: 179251,
        sum: 89805.38114741912,
        cells: &[
            (0, 0, 0.0),
            (0, 1, 0.45324353322292277),
            (0, 25, 0.01592030416320278),
            (0, 42, 0.08606588879859611),
            (2, 1000, 0.0),
            (750, 600, 0.0),
            (999, 1000, 0.0),
            (1000, 3, 0.0),
            (1000, 1000, 0.0),
            (1499, 1184, 0.45892810462987876),
            (1499, 1185, 0.890076240588488),
            (1499, 1199, 0.0),
        ],
    },
    RandCase {
        name: "s07_big_42",
        spec: DatagenSpec {
            rows: 1500,
            cols: 1200,
            sparsity: 0.7,
            pdf: Pdf::Uniform { min: 0.0, max: 1.0 },
            seed: 42,
        },
        nnz: 1260276,
        sum: 630594.1547177548,
        cells: &[
            (0, 0, 0.15115960081840563),
            (0, 2, 0.5928143554598188),
            (0, 5, 0.3930138394558711),
            (2, 1000, 0.07058035485111502),
            (750, 600, 0.0),
            (999, 1000, 0.0),
            (1000, 3, 0.6954301486505328),
            (1000, 1000, 0.7986935637944856),
            (1499, 1195, 0.5713307766880807),
            (1499, 1199, 0.3531871999861409),
        ],
    },
    RandCase {
        name: "s0001_big_1234567",
        spec: DatagenSpec {
            rows: 2100,
            cols: 2500,
            sparsity: 0.001,
            pdf: Pdf::Uniform {
                min: -1.0,
                max: 1.0,
            },
            seed: 1234567,
        },
        nnz: 5245,
        sum: -61.17834452569,
        cells: &[
            (0, 0, 0.0),
            (0, 371, 0.9459427013249959),
            (0, 1171, 0.06501010178123412),
            (0, 1274, -0.5654845426106379),
            (2, 1000, 0.0),
            (999, 1000, 0.0),
            (1000, 3, 0.0),
            (1000, 1000, 0.0),
            (1050, 1250, 0.0),
            (2099, 4, -0.3279995351374352),
            (2099, 1906, -0.30976261859233967),
            (2099, 2499, 0.0),
        ],
    },
    RandCase {
        name: "s03_col_7",
        spec: DatagenSpec {
            rows: 1500,
            cols: 1,
            sparsity: 0.3,
            pdf: Pdf::Uniform { min: 0.0, max: 1.0 },
            seed: 7,
        },
        nnz: 456,
        sum: 226.1724346903139,
        cells: &[
            (0, 0, 0.0),
            (1, 0, 0.45324353322292277),
            (2, 0, 0.01592030416320278),
            (5, 0, 0.08606588879859611),
            (750, 0, 0.0),
            (1000, 0, 0.8927304026240469),
            (1495, 0, 0.03355589381623736),
            (1497, 0, 0.8675543534071544),
            (1499, 0, 0.0),
        ],
    },
    RandCase {
        name: "s02_row_42",
        spec: DatagenSpec {
            rows: 1,
            cols: 2500,
            sparsity: 0.2,
            pdf: Pdf::Uniform { min: 0.0, max: 1.0 },
            seed: 42,
        },
        nnz: 539,
        sum: 258.6038613384795,
        cells: &[
            (0, 0, 0.0),
            (0, 1, 0.15115960081840563),
            (0, 3, 0.5928143554598188),
            (0, 11, 0.3930138394558711),
            (0, 1000, 0.0),
            (0, 1250, 0.13804726434948023),
            (0, 2497, 0.0620255023633709),
            (0, 2499, 0.5016534939793539),
        ],
    },
    RandCase {
        name: "n34_7",
        spec: DatagenSpec {
            rows: 3,
            cols: 4,
            sparsity: 1.0,
            pdf: Pdf::Normal,
            seed: 7,
        },
        nnz: 12,
        sum: 2.178684738932036,
        cells: &[
            (0, 0, 0.4343018278216636),
            (0, 1, 2.466966646535577),
            (0, 2, 1.4813492332735714),
            (1, 2, 0.5841948754810656),
            (2, 2, 1.0561592054913047),
            (2, 3, -2.1133907023421292),
        ],
    },
    RandCase {
        name: "n_big_42",
        spec: DatagenSpec {
            rows: 1500,
            cols: 1200,
            sparsity: 1.0,
            pdf: Pdf::Normal,
            seed: 42,
        },
        nnz: 1800000,
        sum: -838.4279105698344,
        cells: &[
            (0, 0, 1.2232355135177786),
            (0, 1, -0.8001424573690376),
            (0, 2, 0.6368045428362976),
            (2, 1000, -0.5054265719692099),
            (750, 600, -1.6563854659443062),
            (999, 1000, 1.1057782089629824),
            (1000, 3, 0.5654606664828914),
            (1000, 1000, -1.0065019324015954),
            (1499, 1198, 0.12021663817042405),
            (1499, 1199, -0.9618791851859219),
        ],
    },
    RandCase {
        name: "n_s03_big_1234567",
        spec: DatagenSpec {
            rows: 1200,
            cols: 1100,
            sparsity: 0.3,
            pdf: Pdf::Normal,
            seed: 1234567,
        },
        nnz: 396470,
        sum: 649.5651371622055,
        cells: &[
            (0, 0, 0.0),
            (0, 3, -0.2472299877211821),
            (0, 16, 1.2645461797700546),
            (0, 18, 0.5893314545028029),
            (2, 1000, 1.1081456397451102),
            (600, 550, 0.986275698853933),
            (999, 1000, 0.0),
            (1000, 3, -1.5346475022563617),
            (1000, 1000, 0.0),
            (1199, 1090, -0.7973349687516477),
            (1199, 1099, 0.7477990255712906),
        ],
    },
    RandCase {
        name: "p45_3_7",
        spec: DatagenSpec {
            rows: 4,
            cols: 5,
            sparsity: 1.0,
            pdf: Pdf::Poisson { mean: 3.0 },
            seed: 7,
        },
        nnz: 19,
        sum: 62.0,
        cells: &[
            (0, 0, 4.0),
            (0, 1, 5.0),
            (0, 2, 5.0),
            (2, 2, 0.0),
            (3, 3, 3.0),
            (3, 4, 2.0),
        ],
    },
    RandCase {
        name: "p_big_25_42",
        spec: DatagenSpec {
            rows: 1500,
            cols: 1200,
            sparsity: 1.0,
            pdf: Pdf::Poisson { mean: 2.5 },
            seed: 42,
        },
        nnz: 1652169,
        sum: 4497003.0,
        cells: &[
            (0, 0, 7.0),
            (0, 1, 4.0),
            (0, 2, 3.0),
            (2, 1000, 4.0),
            (750, 600, 4.0),
            (999, 1000, 2.0),
            (1000, 3, 4.0),
            (1000, 1000, 3.0),
            (1499, 1198, 3.0),
            (1499, 1199, 4.0),
        ],
    },
    RandCase {
        name: "p_s02_12_1234567",
        spec: DatagenSpec {
            rows: 300,
            cols: 200,
            sparsity: 0.2,
            pdf: Pdf::Poisson { mean: 12.0 },
            seed: 1234567,
        },
        nnz: 12078,
        sum: 144716.0,
        cells: &[
            (0, 0, 0.0),
            (0, 5, 17.0),
            (0, 25, 11.0),
            (0, 27, 8.0),
            (150, 100, 0.0),
            (299, 190, 18.0),
            (299, 191, 9.0),
            (299, 199, 0.0),
        ],
    },
    RandCase {
        name: "p_large_555_7",
        spec: DatagenSpec {
            rows: 30,
            cols: 20,
            sparsity: 1.0,
            pdf: Pdf::Poisson { mean: 55.5 },
            seed: 7,
        },
        nnz: 600,
        sum: 33360.0,
        cells: &[
            (0, 0, 55.0),
            (0, 1, 60.0),
            (0, 2, 41.0),
            (15, 10, 49.0),
            (29, 18, 60.0),
            (29, 19, 49.0),
        ],
    },
    RandCase {
        name: "p_large_40_42",
        spec: DatagenSpec {
            rows: 30,
            cols: 20,
            sparsity: 1.0,
            pdf: Pdf::Poisson { mean: 40.0 },
            seed: 42,
        },
        nnz: 600,
        sum: 24152.0,
        cells: &[
            (0, 0, 36.0),
            (0, 1, 28.0),
            (0, 2, 46.0),
            (15, 10, 53.0),
            (29, 18, 44.0),
            (29, 19, 35.0),
        ],
    },
    RandCase {
        name: "const_sparse",
        spec: DatagenSpec {
            rows: 3,
            cols: 4,
            sparsity: 0.5,
            pdf: Pdf::Uniform { min: 2.0, max: 2.0 },
            seed: 7,
        },
        nnz: 7,
        sum: 14.0,
        cells: &[
            (0, 0, 0.0),
            (0, 1, 2.0),
            (0, 2, 2.0),
            (1, 0, 2.0),
            (1, 2, 2.0),
            (2, 0, 2.0),
            (2, 3, 2.0),
        ],
    },
];

/// (range, size, replace, seed, the sample SystemDS drew)
const SAMPLE_CASES: &[(i64, usize, bool, i64, &[i64])] = &[
    (100, 10, false, 7, &[4, 23, 18, 45, 51, 25, 8, 99, 94, 19]),
    (100, 10, true, 42, &[76, 73, 96, 98, 27, 37, 73, 61, 93, 68]),
    (10, 10, false, 1234567, &[7, 10, 9, 6, 5, 2, 3, 8, 4, 1]),
    (
        1000000,
        5,
        false,
        7,
        &[380874, 158677, 487958, 327729, 30267],
    ),
    (
        5,
        20,
        true,
        7,
        &[3, 2, 1, 2, 2, 5, 1, 2, 4, 5, 2, 2, 2, 4, 5, 3, 3, 1, 3, 3],
    ),
    (
        3000000000,
        6,
        true,
        42,
        &[
            879625976, 612780073, 1511409996, 822994798, 1002473627, 2730806237,
        ],
    ),
];

#[test]
fn seeded_rand_gives_systemds_numbers() {
    for case in RAND_CASES {
        let m = systemds_rand(&case.spec).unwrap_or_else(|e| panic!("{}: {e}", case.name));
        assert_eq!(
            (m.rows(), m.cols()),
            (case.spec.rows, case.spec.cols),
            "{}",
            case.name
        );
        assert_eq!(m.nnz(), case.nnz, "{}: non-zeros", case.name);
        let sum = aggregate::sum(&m);
        assert!(
            (sum - case.sum).abs() <= 1e-12 * case.sum.abs().max(1.0),
            "{}: sum {sum} vs SystemDS {}",
            case.name,
            case.sum
        );
        // Normal deviates may differ in the last bit; everything else is exact.
        let tolerance = if case.spec.pdf == Pdf::Normal {
            4.0 * f64::EPSILON
        } else {
            0.0
        };
        for &(i, j, expected) in case.cells {
            let got = m.get(i, j);
            assert!(
                (got - expected).abs() <= tolerance * expected.abs(),
                "{}: cell ({i}, {j}) is {got}, SystemDS has {expected}",
                case.name
            );
        }
    }
}

#[test]
fn seeded_sample_gives_systemds_numbers() {
    for &(range, size, replace, seed, expected) in SAMPLE_CASES {
        let m = systemds_sample(range, size, replace, seed).unwrap();
        let got: Vec<i64> = (0..size).map(|i| m.get(i, 0) as i64).collect();
        assert_eq!(got, expected, "sample({range}, {size}, {replace}, {seed})");
    }
}

#[test]
fn sample_without_replacement_is_a_permutation_of_distinct_values() {
    let m = systemds_sample(50, 50, false, 42).unwrap();
    let mut values: Vec<i64> = (0..50).map(|i| m.get(i, 0) as i64).collect();
    values.sort_unstable();
    assert_eq!(values, (1..=50).collect::<Vec<_>>());
}

#[test]
fn same_seed_same_matrix_other_seed_other_matrix() {
    let spec = |seed| DatagenSpec {
        rows: 1100,
        cols: 30,
        sparsity: 0.2,
        pdf: Pdf::Uniform {
            min: -1.0,
            max: 1.0,
        },
        seed,
    };
    let a = systemds_rand(&spec(5)).unwrap();
    let b = systemds_rand(&spec(5)).unwrap();
    let c = systemds_rand(&spec(6)).unwrap();
    assert!(a.approx_eq(&b, 0.0));
    assert!(!a.approx_eq(&c, 0.0));
}

#[test]
fn bad_arguments_are_clear_errors() {
    let base = DatagenSpec {
        rows: 3,
        cols: 3,
        sparsity: 1.0,
        pdf: Pdf::Uniform { min: 0.0, max: 1.0 },
        seed: 1,
    };
    let message = |spec: DatagenSpec| systemds_rand(&spec).unwrap_err().to_string();
    assert!(message(DatagenSpec {
        sparsity: 1.5,
        ..base
    })
    .contains("sparsity"));
    assert!(message(DatagenSpec {
        pdf: Pdf::Poisson { mean: 0.0 },
        ..base
    })
    .contains("lambda"));
    let error = systemds_sample(5, 6, false, 1).unwrap_err().to_string();
    assert!(error.contains("replace=TRUE"), "{error}");
}

#[test]
fn min_above_max_is_accepted_as_in_systemds() {
    // SystemDS draws min + (max - min) * u, so the values fall in [max, min].
    let m = systemds_rand(&DatagenSpec {
        rows: 2,
        cols: 2,
        sparsity: 1.0,
        pdf: Pdf::Uniform { min: 3.0, max: 1.0 },
        seed: 7,
    })
    .unwrap();
    let u = 0.45324353322292277; // the first uniform of seed 7 (see RAND_CASES)
    assert_eq!(m.get(0, 0), 3.0 + (1.0 - 3.0) * u);
    let d = m.to_dense();
    assert!(d.data().iter().all(|v| (1.0..=3.0).contains(v)));
}

#[test]
fn huge_shapes_fail_before_allocating() {
    // 10^6 x 10^6 dense doubles are 8 TB: refused up front, not an allocation abort.
    let huge = DatagenSpec {
        rows: 1_000_000,
        cols: 1_000_000,
        sparsity: 1.0,
        pdf: Pdf::Uniform { min: 0.0, max: 1.0 },
        seed: 1,
    };
    let error = systemds_rand(&huge).unwrap_err().to_string();
    assert!(
        error.contains("1000000x1000000") && error.contains("GB"),
        "{error}"
    );
    // A constant fill is refused the same way.
    let constant = DatagenSpec {
        pdf: Pdf::Uniform { min: 3.0, max: 3.0 },
        ..huge
    };
    assert!(systemds_rand(&constant).is_err());
    // Beyond Java's int range, as in SystemDS.
    let too_many_rows = DatagenSpec {
        rows: 3_000_000_000,
        cols: 1,
        ..huge
    };
    let error = systemds_rand(&too_many_rows).unwrap_err().to_string();
    assert!(error.contains("too large"), "{error}");
    // A huge but nearly empty sparse matrix is fine.
    let sparse = DatagenSpec {
        rows: 100_000,
        cols: 100_000,
        sparsity: 1e-7,
        ..huge
    };
    assert_eq!(systemds_rand(&sparse).unwrap().rows(), 100_000);
}
