//! `thicket completions SHELL`: the shell's completion script for every command and flag.

use clap::Args;
use clap_complete::Shell;
use thicket_core::Result;

/// Options of `thicket completions`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to complete in.
    #[arg(value_enum)]
    pub shell: Shell,
}

/// Prints the completion script on stdout (made in memory first: clap_complete panics on a
/// failed write).
pub fn run(args: &CompletionsArgs) -> Result<()> {
    let mut command = crate::cli::command();
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut command, "thicket", &mut script);
    crate::output::stdout_bytes(&script);
    Ok(())
}
