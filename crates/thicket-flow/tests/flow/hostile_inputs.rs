//! Issue 29: no input makes the DIMACS `.max` reader or the generators' spec parser panic or
//! take memory a header only promised. A few thousand mutations of the shipped samples go
//! to the reader under an allocator that fails any single allocation above 1 GiB (the
//! binary's, in `tests/flow.rs`); each read is a network or a one-line error naming the file.
//! The cases are named below.

use std::path::Path;

use thicket_flow::generate::Spec;
use thicket_flow::{dimacs, maxflow, Backend, Error, MaxflowOptions, RunOptions};
use thicket_testkit::{is_one_line, mutations};

/// A shipped sample, cut to its first `most` bytes (at a line end) to keep the test fast.
fn sample(name: &str, most: usize) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("data")
        .join(name);
    let bytes = std::fs::read(path).unwrap();
    let end = bytes[..most.min(bytes.len())]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(bytes.len(), |i| i + 1);
    bytes[..end].to_vec()
}

/// A refusal is one line naming `file`.
fn assert_one_line_naming(error: &Error, file: &str, input: &[u8]) {
    let message = error.to_string();
    assert!(
        is_one_line(&message) && message.contains(file),
        "{message:?} for {:?}",
        String::from_utf8_lossy(input)
    );
}

#[test]
fn mutated_max_files_give_a_network_or_a_one_line_error() {
    for (name, most) in [("waissi-example.max", 4096), ("genrmf-a4b3.max", 1500)] {
        let original = sample(name, most);
        for (k, input) in mutations(&original, 29, 2500).enumerate() {
            // As thicket_core::read_text hands bytes that are not UTF-8 to a reader.
            let text = String::from_utf8_lossy(&input);
            if let Err(error) = dimacs::parse(name, &text) {
                assert_one_line_naming(&error, name, &input);
                assert!(!error.to_string().contains("line 0"), "{k}: {error}");
            }
        }
    }
}

#[test]
fn mutated_generator_specs_give_a_spec_or_a_one_line_error() {
    let original = b"genrmf:4:3:1:10000:1 rlg:5:4:100:7 random:200:12:1000:3";
    for input in mutations(original, 7, 3000) {
        let text = String::from_utf8_lossy(&input);
        for spec in text.split(' ') {
            if let Err(error) = spec.parse::<Spec>() {
                let message = error.to_string();
                assert!(is_one_line(&message), "{message:?}");
                assert!(message.len() < 300, "the spec is cut: {message:?}");
            }
        }
    }
}

/// Issue 29: a header's declared size goes into no allocation.
#[test]
fn a_header_promising_billions_of_arcs_takes_no_memory() {
    let error = dimacs::parse("big.max", "p max 2 2147483647\nn 1 s\nn 2 t\na 1 2 5\n");
    let message = error.unwrap_err().to_string();
    assert!(
        message.contains("big.max:4: the file ends early, after 1 of the 2147483647 arcs"),
        "{message}"
    );
}

/// Issue 29: four billion vertices read (the network holds arcs only), but the solve is
/// refused before it allocates, naming the size.
#[test]
fn four_billion_vertices_are_refused_before_the_solve_allocates() {
    let network = dimacs::parse("wide.max", "p max 4294967294 1\nn 1 s\nn 2 t\na 1 2 5\n").unwrap();
    let options = MaxflowOptions {
        run: RunOptions {
            backend: Backend::Cpu,
            quiet: true,
            ..RunOptions::default()
        },
        ..MaxflowOptions::default()
    };
    let error = maxflow(&network, &options).unwrap_err();
    assert!(matches!(error, Error::TooLarge(_)), "{error}");
    assert!(error.to_string().contains("4294967294 vertices"), "{error}");
}

/// Issue 29: a 100 KB token is quoted cut to 40 characters.
#[test]
fn long_tokens_are_cut_in_messages() {
    let token = "9".repeat(100_000);
    let text = format!("p max 3 1\nn 1 s\nn 3 t\na 1 2 {token}\n");
    let message = dimacs::parse("long.max", &text).unwrap_err().to_string();
    assert!(message.len() < 200, "{}", message.len());
    assert!(
        message.starts_with("invalid input: long.max:4: "),
        "{message}"
    );
    let spec = format!("genrmf:{token}");
    let message = spec.parse::<Spec>().unwrap_err().to_string();
    assert!(message.len() < 300, "{}", message.len());
}

/// Issue 29: generator sizes are checked with checked arithmetic before anything is
/// allocated.
#[test]
fn generator_sizes_past_the_limits_are_refused() {
    for spec in [
        "genrmf:4294967295:4294967295:1:2:1",
        "genrmf:65536:65536:1:2:1",
        "rlg:4294967295:4294967295:5:1",
    ] {
        let error = spec.parse::<Spec>().unwrap().generate().unwrap_err();
        assert!(is_one_line(&error.to_string()), "{error}");
        assert!(error.to_string().contains("at most"), "{spec}: {error}");
    }
}

/// Issue 29: reading goes through thicket_core::read_text: bytes that are not UTF-8 are
/// named by their line, and a missing file is bad input.
#[test]
fn files_are_read_through_read_text() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("latin1.max");
    std::fs::write(&path, b"c caf\xe9\np max 2 1\nn 1 s\nn 2 t\na 1 2 \xe9\n").unwrap();
    let error = dimacs::read(&path).unwrap_err();
    assert_eq!(error.exit_code(), 2);
    assert!(error.to_string().contains("latin1.max:5:"), "{error}");
    let error = dimacs::read(&dir.path().join("missing.max")).unwrap_err();
    assert_eq!(error.exit_code(), 2);
}
