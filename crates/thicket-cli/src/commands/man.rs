//! `thicket man`: the manual page, in roff, generated from the same definitions as `--help`.

use thicket_core::Result;

/// Prints the manual page on stdout.
pub fn run() -> Result<()> {
    let mut page = Vec::new();
    clap_mangen::Man::new(crate::cli::command())
        .render(&mut page)
        .expect("rendering into memory cannot fail");
    crate::output::stdout_bytes(&page);
    Ok(())
}
