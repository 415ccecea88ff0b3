//! Helpers shared by the end-to-end tests of the `thicket` binary.

// Each test binary compiles this module and uses only some of it.
#![allow(dead_code)]

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
