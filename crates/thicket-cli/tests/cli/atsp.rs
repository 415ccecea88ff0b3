//! `thicket atsp` end to end: the per-instance choice of the search, anytime answers under
//! `--time-limit` (resumed from a ledger), and TSPLIB `.tour` output.

use std::time::Instant;

use crate::common::{json, stdout, thicket};

/// A shipped instance's path.
fn data(name: &str) -> String {
    format!(
        "{}/../thicket-atsp/data/{name}.atsp",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// A fresh scratch directory for one test.
fn scratch(test: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("thicket-atsp-{test}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The cities of a TSPLIB `.tour` text, 0-based, checking the -1 that ends the section.
fn tour_section(text: &str) -> Vec<usize> {
    let section: Vec<&str> = text
        .lines()
        .skip_while(|line| *line != "TOUR_SECTION")
        .skip(1)
        .take_while(|line| *line != "-1")
        .collect();
    assert!(text.contains("\n-1\n"), "{text}");
    section
        .iter()
        .map(|c| c.parse::<usize>().unwrap() - 1)
        .collect()
}

#[test]
fn the_default_picks_the_search_per_instance() {
    let ftv33 = json(&thicket(&["atsp", &data("ftv33"), "--json", "--quiet"]));
    assert_eq!(
        (&ftv33["cost"], &ftv33["bound"], &ftv33["branching"]),
        (&1286.into(), &"assignment".into(), &"subtour".into())
    );
    assert_eq!(
        (&ftv33["lower_bound"], &ftv33["gap"]),
        (&1286.into(), &0.0.into())
    );
    let br17 = json(&thicket(&["atsp", &data("br17"), "--json", "--quiet"]));
    assert_eq!(
        (&br17["cost"], &br17["bound"], &br17["branching"]),
        (&39.into(), &"held-karp".into(), &"path".into())
    );
}

#[test]
fn a_tour_file_is_tsplib_and_matches_the_json() {
    let dir = scratch("tour");
    let file = dir.join("ftv33.tour");
    let value = json(&thicket(&[
        "atsp",
        &data("ftv33"),
        "--json",
        "--quiet",
        "--tour",
        file.to_str().unwrap(),
    ]));
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(
        text.contains("TYPE : TOUR") && text.contains("DIMENSION : 34"),
        "{text}"
    );
    let tour: Vec<usize> = value["tour"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_u64().unwrap() as usize)
        .collect();
    assert_eq!(tour_section(&text), tour);
    // `-` is stdout, which then holds the tour alone.
    let out = thicket(&["atsp", &data("br17"), "--tour", "-"]);
    assert_eq!(out.status.code(), Some(0));
    let mut cities = tour_section(&stdout(&out));
    cities.sort_unstable();
    assert_eq!(cities, (0..17).collect::<Vec<_>>());
    let both = thicket(&["atsp", &data("br17"), "--tour", "-", "--json"]);
    assert_eq!(both.status.code(), Some(2));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_time_limit_answers_in_time_with_a_lower_bound() {
    for (name, optimum) in [("ftv64", 1839), ("p43", 5620)] {
        let started = Instant::now();
        let value = json(&thicket(&[
            "atsp",
            &data(name),
            "--json",
            "--quiet",
            "--time-limit",
            "1",
        ]));
        // The limit, the process's start and exit, and the Held-Karp root ascent (which the
        // deadline does not interrupt), on a debug build of a loaded machine.
        assert!(started.elapsed().as_secs_f64() < 4.0, "{name}");
        let (cost, lower) = (
            value["cost"].as_i64().unwrap(),
            value["lower_bound"].as_i64().unwrap(),
        );
        assert!(lower <= optimum && optimum <= cost, "{name}: {value}");
        let gap = value["gap"].as_f64().unwrap();
        assert!(
            (gap - (cost - lower) as f64 / cost as f64).abs() < 1e-9,
            "{value}"
        );
        assert_eq!(value["proven_optimal"], cost == lower, "{value}");
        let source = value["lower_bound_source"].as_str().unwrap();
        assert!(
            ["optimal", "search", "assignment", "one-tree"].contains(&source),
            "{value}"
        );
        assert_eq!(source == "optimal", cost == lower, "{value}");
    }
    for bad in [
        vec!["--time-limit", "0"],
        vec!["--time-limit", "-1"],
        vec!["--time-limit", "1", "--backend", "cuda"],
    ] {
        let mut args = vec!["atsp".to_string(), data("br17")];
        args.extend(bad.iter().map(|a| a.to_string()));
        assert_eq!(thicket(&args).status.code(), Some(2), "{bad:?}");
    }
}

#[test]
fn a_ledgered_run_stopped_by_its_time_limit_resumes() {
    let dir = scratch("ledger");
    let ledger = dir.join("br17.db");
    let ledger = ledger.to_str().unwrap();
    let args = [
        "atsp",
        &data("br17"),
        "--json",
        "--quiet",
        "--ledger",
        ledger,
    ];
    let mut limited = args.to_vec();
    limited.extend(["--time-limit", "0.05"]);
    let first = json(&thicket(&limited));
    let first_lower = first["lower_bound"].as_i64().unwrap();
    assert!(
        first_lower <= 39 && 39 <= first["cost"].as_i64().unwrap(),
        "{first}"
    );
    let second = json(&thicket(&args));
    assert_eq!(
        (&second["cost"], &second["proven_optimal"]),
        (&39.into(), &true.into())
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
