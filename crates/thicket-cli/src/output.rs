//! Every byte the CLI prints goes through here. A print that fails (a full disk behind
//! `> file`, `/dev/full`) ends thicket with one line on stderr and exit code 1 instead of the
//! panic of `println!`; a closed pipe never gets here, since SIGPIPE's default action (see
//! `main.rs`) ends the process quietly first.
//!
//! The macros take `println!`'s arguments, so a file moves to them by renaming the macros:
//! `outln!`/`out!` for stdout, `errln!` for stderr.

use std::io::Write;

/// The exit code of a failed print: the run failed (I/O while writing).
const WRITE_FAILED: i32 = 1;

/// `outln!(...)`: `println!` that ends thicket cleanly when stdout cannot be written.
macro_rules! outln {
    () => {
        $crate::output::stdout(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::output::stdout(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// `out!(...)`: `print!` that ends thicket cleanly when stdout cannot be written.
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::output::stdout(format_args!($($arg)*))
    };
}

/// `errln!(...)`: `eprintln!` that ends thicket cleanly when stderr cannot be written.
macro_rules! errln {
    () => {
        $crate::output::stderr(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::output::stderr(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// Writes `text` to stdout, or ends thicket as the module says.
pub fn stdout(text: std::fmt::Arguments) {
    let mut out = std::io::stdout().lock();
    if let Err(error) = out.write_fmt(text) {
        fail("standard output", &error);
    }
}

/// Writes `bytes` to stdout (a rendered file, a manual page), or ends thicket as the module
/// says.
pub fn stdout_bytes(bytes: &[u8]) {
    let mut out = std::io::stdout().lock();
    if let Err(error) = out.write_all(bytes) {
        fail("standard output", &error);
    }
}

/// Writes `text` to stderr, or ends thicket with exit code 1 (with no one left to tell).
pub fn stderr(text: std::fmt::Arguments) {
    if std::io::stderr().lock().write_fmt(text).is_err() {
        std::process::exit(WRITE_FAILED);
    }
}

/// Flushes what stdout still buffers (a last line without a newline), or ends thicket as the
/// module says: the process's own flush at exit would drop the error.
pub fn flush() {
    if let Err(error) = std::io::stdout().lock().flush() {
        fail("standard output", &error);
    }
}

/// Ends thicket after a failed write to `stream`: one line on stderr, exit code 1.
fn fail(stream: &str, error: &std::io::Error) -> ! {
    let _ = writeln!(
        std::io::stderr().lock(),
        "thicket: cannot write to {stream}: {}",
        thicket_core::os_reason(error)
    );
    std::process::exit(WRITE_FAILED)
}
