//! Helpers shared by the end-to-end tests of the `thicket` binary.

use std::ffi::OsStr;
use std::process::{Command, Output};

/// Runs the `thicket` binary built for these tests with `args` and waits for it.
pub fn thicket<S: AsRef<OsStr>>(args: &[S]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_thicket"))
        .args(args)
        .output()
        .expect("the thicket binary runs")
}

/// The one JSON object a successful run printed on stdout (fails with its stderr otherwise).
pub fn json(output: &Output) -> serde_json::Value {
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_str(String::from_utf8_lossy(&output.stdout).trim()).expect("one JSON object")
}

/// What a run printed on stdout.
pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// What a successful run printed on stdout (fails with its stderr otherwise).
#[cfg(feature = "mpi")]
pub fn printed(output: &Output) -> String {
    assert!(output.status.success(), "{}", stderr(output));
    stdout(output)
}

/// What a run printed on stderr.
pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// True when this machine has a usable GPU, in which case the no-GPU tests are skipped.
pub fn gpu_present(test: &str) -> bool {
    let value = json(&thicket(&["devices", "--json"]));
    let present = value["gpu_available"] == true;
    if present {
        println!("NOTE {test}: a GPU is usable here, so the no-GPU behaviour was not tested");
    }
    present
}

/// Asserts that `output` is clap's rendering of a command line it could not parse: exit code
/// 2, nothing on stdout, and on stderr the error (with the usage line where clap gives one),
/// the pointer to `--help` and each of `words`.
pub fn assert_usage_error(output: &Output, words: &[&str], what: &str) {
    let message = stderr(output);
    assert_eq!(output.status.code(), Some(2), "{what}: {message}");
    assert!(message.starts_with("error: "), "{what}: {message}");
    assert!(message.contains("try '--help'"), "{what}: {message}");
    for word in words {
        assert!(
            message.contains(word),
            "{what}: {message:?} should name {word:?}"
        );
    }
    assert!(stdout(output).is_empty(), "{what}: {}", stdout(output));
}

/// Runs the `thicket` binary with `args` and `input` on its stdin.
pub fn thicket_with_stdin<S: AsRef<OsStr>>(args: &[S], input: &[u8]) -> Output {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_thicket"))
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the thicket binary runs");
    let mut stdin = child.stdin.take().expect("a piped stdin");
    // A command that refuses its flags before it reads stdin closes the pipe early: the
    // refusal is what the test checks, so a broken pipe here is not a failure.
    match stdin.write_all(input) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        other => other.expect("thicket reads its stdin"),
    }
    drop(stdin);
    child.wait_with_output().expect("the thicket binary ends")
}
