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
