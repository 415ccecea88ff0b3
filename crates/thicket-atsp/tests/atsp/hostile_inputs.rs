//! Issue 29: no input makes the TSPLIB reader or the generator spec parser panic or take
//! memory a header only promised. A few thousand mutations of the shipped samples go to the
//! reader under an allocator that fails any single allocation above 1 GiB; each read is an
//! instance or a one-line error naming the file.

use std::path::Path;

use thicket_atsp::{parse_generator_spec, parse_tsplib, read_tsplib};
use thicket_testkit::{is_one_line, mutations};

fn sample(name: &str) -> Vec<u8> {
    std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("data")
            .join(name),
    )
    .unwrap()
}

#[test]
fn mutated_tsplib_files_give_an_instance_or_a_one_line_error() {
    for name in ["br17.atsp", "p43.atsp"] {
        for input in mutations(&sample(name), 29, 2000) {
            if let Err(error) = parse_tsplib(&String::from_utf8_lossy(&input)) {
                let message = error.to_string();
                assert!(
                    is_one_line(&message) && message.contains("TSPLIB:"),
                    "{message:?}"
                );
            }
        }
    }
}

#[test]
fn mutated_generator_specs_give_a_spec_or_a_one_line_error() {
    for input in mutations(b"crane:15:1 coin:12:7 tsmat:9:3", 11, 1000) {
        for spec in String::from_utf8_lossy(&input).split(' ') {
            if let Err(error) = parse_generator_spec(spec) {
                let message = error.to_string();
                assert!(is_one_line(&message), "{message:?}");
                assert!(message.len() < 300, "the spec is cut: {message:?}");
            }
        }
    }
}

/// Issue 29: files go through thicket_core::read_text (a Latin-1 byte is named by its line);
/// a 100 KB token is quoted cut to 40 characters.
#[test]
fn odd_bytes_and_long_tokens_are_named_by_line_and_cut() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("odd.atsp");
    let long = "7".repeat(100_000);
    std::fs::write(
        &path,
        format!("NAME: odd\nTYPE: ATSP\nDIMENSION: 2\nEDGE_WEIGHT_TYPE: EXPLICIT\nEDGE_WEIGHT_FORMAT: FULL_MATRIX\nEDGE_WEIGHT_SECTION\n0 {long}\n1 0\n"),
    )
    .unwrap();
    let error = read_tsplib(&path).unwrap_err();
    let message = error.to_string();
    assert_eq!(error.exit_code(), 2);
    assert!(message.contains("odd.atsp:7:"), "{message}");
    assert!(message.len() < 200, "{}", message.len());
    std::fs::write(&path, b"NAME: caf\xe9\nDIMENSION: x\xe9\n").unwrap();
    let message = read_tsplib(&path).unwrap_err().to_string();
    assert!(message.contains("odd.atsp:2: DIMENSION"), "{message}");
}

/// Found by the fuzz target `atsp_spec`: a spec holding a line end was echoed raw, breaking
/// the message's one line.
#[test]
fn a_spec_with_a_line_end_is_refused_on_one_line() {
    let error = parse_generator_spec("\n").unwrap_err();
    assert!(is_one_line(&error.to_string()), "{error}");
    assert!(error.to_string().contains("'\\n'"), "{error}");
}
