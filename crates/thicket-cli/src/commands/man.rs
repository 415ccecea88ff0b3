//! `thicket man`: the manual page, in roff, generated from the same definitions as `--help`.

use thicket_core::{Error, Result};

/// Prints the manual page on stdout.
pub fn run() -> Result<()> {
    clap_mangen::Man::new(crate::cli::command())
        .render(&mut std::io::stdout().lock())
        .map_err(|e| Error::file(std::path::Path::new("<stdout>"), e))
}
