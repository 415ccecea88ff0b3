//! `-` (or `/dev/stdout`) for standard output wherever thicket writes a file (readers take `-`
//! as standard input themselves, through `thicket_core::read_text`). Where a library writes
//! only to a path, the output goes to a temporary file first, then to stdout.

use std::path::{Path, PathBuf};

use thicket_core::{is_stdout, write_atomically, Error, Result};

/// How error messages name standard input.
pub const STDIN_NAME: &str = "<stdin>";

/// Writes `text` to `path`, replacing a file only once it is complete (a device or FIFO is
/// written in place), or to stdout for `-`.
pub fn write_output(path: &Path, text: &str) -> Result<()> {
    if !is_stdout(path) {
        return write_atomically(path, text);
    }
    write_stdout(text.as_bytes())
}

/// Writes with `write`, which takes only a path, to `path`, or for `-` to a temporary file
/// named `name` whose bytes then go to stdout.
pub fn write_output_with(
    path: &Path,
    name: &str,
    write: impl FnOnce(&Path) -> Result<()>,
) -> Result<()> {
    if !is_stdout(path) {
        return write(path);
    }
    let (dir, copy) = temporary(name)?;
    write(&copy).map_err(|e| name_stdin(e, &copy))?;
    let bytes = std::fs::read(&copy).map_err(|e| Error::file(&copy, e))?;
    drop(dir);
    write_stdout(&bytes)
}

/// Writes `bytes` to stdout; a failure ends thicket (see `output.rs`).
fn write_stdout(bytes: &[u8]) -> Result<()> {
    crate::output::stdout_bytes(bytes);
    Ok(())
}

/// A new temporary folder and the path of `name` inside it.
fn temporary(name: &str) -> Result<(tempfile::TempDir, PathBuf)> {
    let dir = tempfile::Builder::new()
        .prefix("thicket-stdio-")
        .tempdir()
        .map_err(|e| Error::file(&std::env::temp_dir(), e))?;
    let path = dir.path().join(name);
    Ok((dir, path))
}

/// The error with the temporary copy's path replaced by [`STDIN_NAME`].
fn name_stdin(error: Error, copy: &Path) -> Error {
    let shown = copy.display().to_string();
    match error {
        Error::InvalidInput(message) => Error::InvalidInput(message.replace(&shown, STDIN_NAME)),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_copy_is_named_stdin_in_errors() {
        let (_dir, copy) = temporary("book.csv").unwrap();
        let error = Error::InvalidInput(format!("{} line 3: bad", copy.display()));
        assert_eq!(name_stdin(error, &copy).message(), "<stdin> line 3: bad");
    }
}
