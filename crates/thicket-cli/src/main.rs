//! The `thicket` command line: thin over the library crates.

// First: its print macros are then in scope in every module below.
#[macro_use]
mod output;

mod cli;
mod commands;
mod flags;
mod preflight;
mod progress_bar;
mod stdio;
mod version;

use std::process::ExitCode;

use cli::Command;

fn main() -> ExitCode {
    end_quietly_on_a_closed_pipe();
    fail_writes_past_the_file_size_limit();
    // Before any thread starts: the driver reads it when it starts.
    thicket_gpu::prefer_one_hardware_queue();
    progress_bar::install();
    let cli = match cli::parse() {
        Ok(cli) => cli,
        Err(code) => return code,
    };
    let outcome = preflight::check(&cli.command).and_then(|()| run(cli.command));
    output::flush();
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            errln!("thicket: {err}");
            ExitCode::from(err.exit_code() as u8)
        }
    }
}

/// Runs the command.
fn run(command: Command) -> thicket_core::Result<()> {
    match command {
        Command::Queens(args) => commands::queens::run(&args),
        Command::Devices(args) => commands::devices::run(&args),
        Command::Warmup(args) => commands::warmup::run(&args),
        Command::PermQueens(args) => commands::perm::run(&args),
        Command::Atsp(args) => commands::atsp::run(&args),
        Command::Lookback(args) => commands::lattice::lookback(&args),
        Command::Binomial(args) => commands::lattice::binomial(&args),
        Command::ImpliedVol(args) => commands::implied_vol::run(&args),
        Command::Bfs(args) => commands::graph::bfs(&args),
        Command::Sssp(args) => commands::graph::sssp(&args),
        Command::Maxflow(args) => commands::maxflow::run(&args),
        Command::Graph { command } => commands::graph::graph(&command),
        Command::Schedule(args) => commands::schedule::run(&args),
        Command::Status(args) => commands::ledger::status(&args),
        Command::Verify(args) => commands::ledger::verify(&args),
        Command::Merge(args) => commands::ledger::merge(&args),
        Command::Bench { problem } => commands::bench::run(&problem),
        Command::Completions(args) => commands::completions::run(&args),
        Command::Man => commands::man::run(),
    }
}

/// A reader that stops early (`thicket queens --help | head`) ends thicket as it ends other
/// command-line tools, by the default SIGPIPE action, instead of an error from a print (Rust
/// ignores SIGPIPE, so a write to a closed pipe would fail; see `output.rs`).
fn end_quietly_on_a_closed_pipe() {
    #[cfg(unix)]
    // SAFETY: restoring a signal's default action, before any thread is started.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// A write past the file-size limit (`ulimit -f`) fails with an error, exit code 1 and the
/// temporary file removed, instead of SIGXFSZ killing the process and leaving that file
/// beside the output.
fn fail_writes_past_the_file_size_limit() {
    #[cfg(unix)]
    // SAFETY: ignoring a signal, before any thread is started.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
}
