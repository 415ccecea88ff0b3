//! The TSPLIB reader: every explicit format on small hand-made matrices, wrapped lines,
//! p43's zero diagonal, and one-line errors that name the line.

use std::path::PathBuf;

use thicket_atsp::{parse_tsplib, read_tsplib, Instance};
use thicket_core::Error;

/// A TSPLIB text with the given header lines and weight section.
fn tsplib(kind: &str, n: usize, format: &str, weights: &str) -> String {
    format!(
        "NAME: t\nTYPE: {kind}\nDIMENSION: {n}\nEDGE_WEIGHT_TYPE: EXPLICIT\n\
         EDGE_WEIGHT_FORMAT: {format}\nEDGE_WEIGHT_SECTION\n{weights}\nEOF\n"
    )
}

/// The symmetric 3-city matrix every triangular test describes: d01 = 1, d02 = 2, d12 = 3.
fn symmetric3() -> Vec<i64> {
    vec![0, 1, 2, 1, 0, 3, 2, 3, 0]
}

fn message(err: Error) -> String {
    match err {
        Error::InvalidInput(m) => m,
        other => panic!("expected invalid input, got {other}"),
    }
}

#[test]
fn full_matrix_keeps_asymmetry_and_ignores_the_diagonal() {
    let inst = parse_tsplib(&tsplib("ATSP", 3, "FULL_MATRIX", "9 1 2\n4 9 3\n5 6 9")).unwrap();
    assert_eq!(
        inst,
        Instance {
            name: "t".into(),
            n: 3,
            cost: vec![0, 1, 2, 4, 0, 3, 5, 6, 0]
        }
    );
}

#[test]
fn every_triangular_format_gives_the_symmetric_matrix() {
    let cases = [
        ("UPPER_ROW", "1 2\n3"),
        ("LOWER_ROW", "1\n2 3"),
        ("UPPER_DIAG_ROW", "0 1 2\n0 3\n0"),
        ("LOWER_DIAG_ROW", "0\n1 0\n2 3 0"),
        ("UPPER_COL", "1\n2 3"),
        ("LOWER_COL", "1 2\n3"),
        ("UPPER_DIAG_COL", "0\n1 0\n2 3 0"),
        ("LOWER_DIAG_COL", "0 1 2\n0 3\n0"),
    ];
    for (format, weights) in cases {
        let inst = parse_tsplib(&tsplib("TSP", 3, format, weights)).unwrap();
        assert_eq!(inst.cost, symmetric3(), "{format}");
    }
}

#[test]
fn a_four_city_upper_row_fills_the_right_cells() {
    let inst = parse_tsplib(&tsplib("TSP", 4, "UPPER_ROW", "1 2 3 4 5 6")).unwrap();
    assert_eq!(
        (
            inst.cost(0, 3),
            inst.cost(1, 2),
            inst.cost(3, 1),
            inst.cost(2, 3)
        ),
        (3, 4, 5, 6)
    );
}

#[test]
fn numbers_may_wrap_and_keys_may_be_spelled_either_way() {
    let text = "NAME : w\nTYPE : ATSP\nDIMENSION : 3\nEDGE_WEIGHT_TYPE : EXPLICIT\n\
                EDGE_WEIGHT_FORMAT : FULL_MATRIX\nEDGE_WEIGHT_SECTION\n 9 1\n 2 4 9 3 5\n\n 6\n   9";
    let inst = parse_tsplib(text).unwrap();
    assert_eq!(inst.cost, vec![0, 1, 2, 4, 0, 3, 5, 6, 0]);
    assert_eq!(inst.name, "w");
}

#[test]
fn the_shipped_instances_read_with_their_sizes() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("data");
    for (name, n) in [
        ("br17", 17),
        ("ftv33", 34),
        ("ftv35", 36),
        ("ftv38", 39),
        ("p43", 43),
        ("ftv44", 45),
        ("ftv64", 65),
        ("ft70", 70),
    ] {
        let inst = read_tsplib(dir.join(format!("{name}.atsp"))).unwrap();
        assert_eq!((inst.name.as_str(), inst.n), (name, n));
    }
    // p43 has a zero diagonal and zero-cost arcs; br17's diagonal is 9999.
    let p43 = read_tsplib(dir.join("p43.atsp")).unwrap();
    assert_eq!((p43.cost(0, 1), p43.cost(1, 2), p43.cost(0, 0)), (26, 0, 0));
    let br17 = read_tsplib(dir.join("br17.atsp")).unwrap();
    assert_eq!(
        (br17.cost(0, 0), br17.cost(0, 1), br17.cost(0, 16)),
        (0, 3, 5)
    );
}

#[test]
fn errors_name_the_line() {
    let cases = [
        (
            tsplib("ATSP", 2, "FULL_MATRIX", "0 1\n1 x"),
            ":8: expected an integer, found 'x'",
        ),
        (
            tsplib("ATSP", 2, "FULL_MATRIX", "0 1\n1"),
            ":9: too few numbers: 3 of 4",
        ),
        (
            tsplib("ATSP", 2, "FULL_MATRIX", "0 1\n1 0 7"),
            ":8: too many numbers",
        ),
        (
            tsplib("ATSP", 2, "FULL_MATRIX", "0 1\n1 0\n7"),
            ":9: too many numbers",
        ),
        (
            tsplib("ATSP", 2, "FULL_MATRIX", "0 -1\n1 0"),
            ":7: cost -1 outside",
        ),
        (
            tsplib("ATSP", 1, "FULL_MATRIX", "0"),
            ":3: DIMENSION 1 outside 2..=10000",
        ),
        (
            tsplib("ATSP", 10001, "FULL_MATRIX", "0"),
            ":3: DIMENSION 10001 outside",
        ),
        (
            tsplib("CVRP", 2, "FULL_MATRIX", "0 1 1 0"),
            ":2: unsupported TYPE 'CVRP'",
        ),
        (
            tsplib("ATSP", 2, "FUNCTION", "0 1 1 0"),
            ":5: unsupported EDGE_WEIGHT_FORMAT",
        ),
        (
            "NAME: t\nEDGE_WEIGHT_SECTION\n0 1 1 0\n".to_string(),
            ":2: missing DIMENSION",
        ),
        (
            "NAME: t\nDIMENSION: 2\n".to_string(),
            ":2: no EDGE_WEIGHT_SECTION",
        ),
        (
            "NAME: t\nEDGE_WEIGHT_TYPE: EUC_2D\n".to_string(),
            ":2: unsupported EDGE_WEIGHT_TYPE",
        ),
        (
            "NAME t\nwhat is this\n".to_string(),
            ":2: expected 'KEY : VALUE'",
        ),
    ];
    for (text, expected) in cases {
        let msg = message(parse_tsplib(&text).unwrap_err());
        assert!(
            msg.contains(expected),
            "{msg:?} should contain {expected:?}"
        );
        assert!(msg.starts_with("TSPLIB:"), "{msg}");
        assert!(!msg.contains('\n'), "{msg}");
    }
}

#[test]
fn file_errors_name_the_file() {
    let dir = std::env::temp_dir().join(format!("thicket-atsp-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("broken.atsp");
    std::fs::write(&path, tsplib("ATSP", 2, "FULL_MATRIX", "0 1\nx 0")).unwrap();
    let msg = message(read_tsplib(&path).unwrap_err());
    assert!(
        msg.ends_with("broken.atsp:8: expected an integer, found 'x'"),
        "{msg}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
    // Issue 29: a missing input is bad input (exit code 2), naming the file.
    assert!(matches!(
        read_tsplib(dir.join("missing.atsp")),
        Err(Error::InvalidInput(m)) if m.contains("missing.atsp")
    ));
}
