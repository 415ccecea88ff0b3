//! One file per command: each turns parsed arguments into a library call and prints the
//! answer.

pub mod atsp;
pub mod bench;
pub mod devices;
pub mod graph;
pub mod lattice;
pub mod ledger;
pub mod maxflow;
pub mod perm;
pub mod queens;
pub mod schedule;

/// Says on stderr what the library noted about a run (why `auto` ran on the CPU), one
/// `thicket: ` line each, unless `quiet`.
pub fn say_notes(info: &thicket_core::RunInfo, quiet: bool) {
    if !quiet {
        for note in &info.notes {
            eprintln!("thicket: {note}");
        }
    }
}
