//! Issue 29: no input makes the ETC or assignment readers or the generator spec parser panic,
//! take memory a header only promised, or reach an answer with NaN or inf. A few thousand
//! mutations of the shipped Braun samples go to the readers under an allocator that fails any
//! single allocation above 1 GiB (the binary's, in `tests/schedule.rs`); each read is a matrix or a one-line error naming the file.
//! The cases are named below.

use std::path::Path;
use std::time::Duration;

use thicket_core::{Backend, RunOptions};
use thicket_schedule::{assignment, schedule, Etc, Generator, Method, ScheduleOptions};
use thicket_testkit::{is_one_line, mutations};

fn braun(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("data/braun")
        .join(name);
    std::fs::read_to_string(path).unwrap()
}

/// A refusal is one line naming `file`.
fn assert_one_line_naming(message: &str, file: &str) {
    assert!(
        is_one_line(message) && message.contains(file),
        "{message:?}"
    );
}

#[test]
fn mutated_etc_files_give_a_matrix_or_a_one_line_error() {
    let matrix = braun("u_c_hihi.0");
    let values: Vec<&str> = matrix.lines().take(48).collect();
    let samples = [
        format!("12 4\n{}\n", values.join("\n")),
        format!("6 8 0\n{}\n", values.join(" ")),
    ];
    for sample in &samples {
        for input in mutations(sample.as_bytes(), 29, 2000) {
            let text = String::from_utf8_lossy(&input);
            if let Err(error) = Etc::parse_named("m.etc", &text) {
                assert_one_line_naming(&error.to_string(), "m.etc:");
            }
        }
    }
}

#[test]
fn mutated_csv_matrices_give_a_matrix_or_a_one_line_error() {
    let matrix = braun("u_c_hihi.0");
    let values: Vec<&str> = matrix.lines().take(48).collect();
    let sample: String = values.chunks(8).map(|row| row.join(",") + "\n").collect();
    for input in mutations(sample.as_bytes(), 31, 2000) {
        let text = String::from_utf8_lossy(&input);
        match Etc::parse_csv_named("m.csv", &text) {
            Ok(etc) => assert!(etc.times().iter().sum::<f64>().is_finite()),
            Err(error) => assert_one_line_naming(&error.to_string(), "m.csv:"),
        }
    }
}

#[test]
fn mutated_assignment_files_give_an_assignment_or_a_one_line_error() {
    let etc =
        Etc::read(&Path::new(env!("CARGO_MANIFEST_DIR")).join("data/braun/u_c_lolo.0")).unwrap();
    let sample = braun("u_c_lolo.0_MS_5135,7.sol");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.sol");
    for (k, input) in mutations(sample.as_bytes(), 5, 1000).enumerate() {
        let error = match k % 10 {
            // Through a file (read_text and the range checks) now and then, else the text.
            0 => {
                std::fs::write(&path, &input).unwrap();
                assignment::read(&path, &etc).err()
            }
            _ => assignment::parse("a.sol", &String::from_utf8_lossy(&input)).err(),
        };
        if let Some(error) = error {
            assert_one_line_naming(&error.to_string(), "a.sol:");
        }
    }
}

#[test]
fn mutated_generator_specs_give_a_generator_or_a_one_line_error() {
    let mut generated = std::collections::HashSet::new();
    for input in mutations(b"u_c_hihi:64x16 thesis:80x8 u_s_lolo:10x4", 3, 1000) {
        let text = String::from_utf8_lossy(&input);
        for spec in text.split(' ') {
            match spec.parse::<Generator>() {
                // Each small shape is filled once; every size is checked before filling.
                Ok(generator) if spec.len() < 16 && generated.insert(spec.to_string()) => {
                    if let Err(error) = generator.generate(1) {
                        assert!(is_one_line(&error.to_string()), "{error}");
                    }
                }
                Ok(_) => {}
                Err(error) => assert!(is_one_line(&error.to_string()), "{error}"),
            }
        }
    }
}

fn options(method: Method) -> ScheduleOptions {
    ScheduleOptions {
        run: RunOptions {
            backend: Backend::Cpu,
            quiet: true,
            ..RunOptions::default()
        },
        method,
        time_limit: Duration::from_millis(100),
        ..ScheduleOptions::default()
    }
}

/// Issue 29: `2 1 / 1e308 / 1e308` gave makespan inf and "NaN% above"; now refused, naming
/// the file, the line and the value as written.
#[test]
fn times_whose_sum_overflows_are_refused_by_line_and_value() {
    let error = Etc::parse_named("big.etc", "2 1\n1e308\n1e308\n").unwrap_err();
    let message = error.to_string();
    assert!(message.contains("big.etc:2: time 1e308"), "{message}");
    assert_eq!(error.exit_code(), 2);
    let long = format!("1 1\n{}\n", "9".repeat(400));
    let message = Etc::parse_named("long.etc", &long).unwrap_err().to_string();
    assert!(message.len() < 200, "{message}");
}

/// Issue 29: an all-zero matrix has makespan 0 and a gap of 0, not NaN.
#[test]
fn an_all_zero_matrix_has_makespan_zero_and_a_defined_gap() {
    let etc = Etc::parse("3 2\n0 0\n0 0\n0 0\n").unwrap();
    for method in [Method::MinMin, Method::Ils, Method::LpIls] {
        let run = schedule(&etc, &options(method)).unwrap().output;
        assert_eq!(run.makespan, 0.0, "{method:?}");
        assert_eq!(run.gap(), 0.0, "{method:?}");
        let stats = serde_json::Value::Object(run.stats(&etc));
        assert_eq!(stats["gap"], serde_json::json!(0.0), "{method:?}");
    }
}

/// Issue 29: generated shapes are checked before the matrix is filled, without wrapping.
#[test]
fn generated_shapes_past_the_limit_are_refused_before_filling() {
    for spec in ["thesis:100000x100000", "u_c_hihi:4294967296x4294967296"] {
        let error = spec.parse::<Generator>().unwrap().generate(1).unwrap_err();
        assert!(error.to_string().contains("too many"), "{spec}: {error}");
    }
}

/// Found by the fuzz target `schedule_spec`: a spec holding a line end was echoed raw,
/// breaking the message's one line.
#[test]
fn a_spec_with_a_line_end_is_refused_on_one_line() {
    let error = "\n".parse::<Generator>().unwrap_err();
    assert!(is_one_line(&error.to_string()), "{error}");
    assert!(error.to_string().contains("\"\\n\""), "{error}");
}
