//! One file per command: its flags, and the handler that turns them into a library call and
//! prints the answer.

pub mod atsp;
pub mod bench;
pub mod completions;
pub mod devices;
pub mod graph;
pub mod implied_vol;
pub mod lattice;
pub mod ledger;
pub mod man;
pub mod maxflow;
pub mod perm;
pub mod queens;
pub mod schedule;
pub mod warmup;

use std::path::Path;

use thicket_core::{Error, Result};

use thicket_core::is_stdout;

/// Says on stderr what the library noted about a run (why `auto` ran on the CPU), one
/// `thicket: ` line each, unless `quiet`.
pub fn say_notes(info: &thicket_core::RunInfo, quiet: bool) {
    if !quiet {
        for note in &info.notes {
            errln!("thicket: {note}");
        }
    }
}

/// Where a command's text summary goes: stdout, unless a result (CSV, a solution, an
/// assignment) is written there, in which case stderr, so that stdout holds the result alone,
/// or nowhere with `--quiet`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Summary {
    /// The summary is the command's output.
    Stdout,
    /// A result owns stdout; the summary is a side note.
    Stderr,
    /// A result owns stdout and the run is quiet.
    Silent,
}

impl Summary {
    /// The summary's place when a result does (or does not) go to stdout.
    pub fn beside(result_on_stdout: bool, quiet: bool) -> Summary {
        match (result_on_stdout, quiet) {
            (false, _) => Summary::Stdout,
            (true, false) => Summary::Stderr,
            (true, true) => Summary::Silent,
        }
    }

    /// Prints one line of the summary.
    pub fn line(self, line: std::fmt::Arguments) {
        match self {
            Summary::Stdout => outln!("{line}"),
            Summary::Stderr => errln!("{line}"),
            Summary::Silent => {}
        }
    }
}

/// `say!(summary, "format", args...)`: one line of a [`Summary`].
macro_rules! say {
    ($summary:expr, $($arg:tt)*) => {
        $summary.line(format_args!($($arg)*))
    };
}
pub(crate) use say;

/// Whether a result file goes to stdout (`-`, `/dev/stdout`) among `files` (flag, value),
/// refusing two things written there: two results, or one beside `--json`.
pub fn result_on_stdout(json: bool, files: &[(&str, Option<&Path>)]) -> Result<bool> {
    let claims: Vec<&str> = files
        .iter()
        .filter(|(_, path)| path.is_some_and(is_stdout))
        .map(|(flag, _)| *flag)
        .collect();
    match (&claims[..], json) {
        ([], _) => Ok(false),
        ([_], false) => Ok(true),
        ([flag], true) => Err(Error::InvalidInput(format!(
            "--json and {flag} - both write to stdout: give {flag} a file"
        ))),
        (flags, _) => Err(Error::InvalidInput(format!(
            "{} - all write to stdout: give all but one a file",
            flags.join(" -, ")
        ))),
    }
}
