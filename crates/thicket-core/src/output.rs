//! What an output path names, decided before anything is written, so that a write never
//! replaces something that is not a regular file: a device such as `/dev/full` or a FIFO is
//! written in place, streaming, as `cat > PATH` would; the names of the process's own
//! standard output and error (`/dev/stdout`, `/dev/fd/2`, ...) are those streams, as `-` is
//! standard output; a regular file, or a name not yet taken, is replaced whole
//! ([`crate::write_atomically`]); a folder, a block device and a socket are refused.

use std::path::Path;

use crate::{Error, Result};

/// Where a write to an output path goes (see the module).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputTarget {
    /// The process's standard output: `-`, `/dev/stdout`, `/dev/fd/1`, `/proc/self/fd/1`.
    Stdout,
    /// The process's standard error: `/dev/stderr`, `/dev/fd/2`, `/proc/self/fd/2`.
    Stderr,
    /// An existing character device or FIFO: opened for writing (never created, truncated or
    /// renamed over) and written in place.
    InPlace,
    /// A regular file, or a name that does not exist yet: written through a temporary file
    /// renamed over it once complete.
    File,
}

/// The names of standard output besides `-`.
const STDOUT_NAMES: [&str; 3] = ["/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"];

/// The names of standard error.
const STDERR_NAMES: [&str; 3] = ["/dev/stderr", "/dev/fd/2", "/proc/self/fd/2"];

/// Whether an output written to `path` goes to standard output (`-` or one of its names).
pub fn is_stdout(path: &Path) -> bool {
    crate::is_stdio(path) || STDOUT_NAMES.iter().any(|name| path.as_os_str() == *name)
}

/// What `path` names as an output, or bad input (exit code 2) naming it when it is a folder,
/// a block device or a socket, which thicket never writes.
pub fn output_target(path: &Path) -> Result<OutputTarget> {
    if is_stdout(path) {
        return Ok(OutputTarget::Stdout);
    }
    if STDERR_NAMES.iter().any(|name| path.as_os_str() == *name) {
        return Ok(OutputTarget::Stderr);
    }
    // Follows links: a link to a device is written as the device is.
    let Ok(meta) = std::fs::metadata(path) else {
        return Ok(OutputTarget::File);
    };
    let kind = meta.file_type();
    if kind.is_file() {
        return Ok(OutputTarget::File);
    }
    if kind.is_dir() {
        return Err(refused(path, "is a directory"));
    }
    special_target(path, kind)
}

/// The target of an existing path that is neither a file nor a folder.
#[cfg(unix)]
fn special_target(path: &Path, kind: std::fs::FileType) -> Result<OutputTarget> {
    use std::os::unix::fs::FileTypeExt;
    if kind.is_char_device() || kind.is_fifo() {
        return Ok(OutputTarget::InPlace);
    }
    let what = match kind.is_block_device() {
        true => "a block device",
        false => "a socket",
    };
    Err(refused(
        path,
        &format!("is {what}; thicket writes regular files, character devices and FIFOs only"),
    ))
}

/// Elsewhere only files and folders are told apart: anything else is written in place.
#[cfg(not(unix))]
fn special_target(_path: &Path, _kind: std::fs::FileType) -> Result<OutputTarget> {
    Ok(OutputTarget::InPlace)
}

/// A refused output: bad input, naming it.
fn refused(path: &Path, why: &str) -> Error {
    Error::InvalidInput(format!("{}: {why}", path.display()))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    #[test]
    fn standard_streams_go_by_every_name() {
        for name in ["-", "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"] {
            assert!(is_stdout(Path::new(name)), "{name}");
            assert_eq!(
                output_target(Path::new(name)).unwrap(),
                OutputTarget::Stdout
            );
        }
        for name in ["/dev/stderr", "/dev/fd/2", "/proc/self/fd/2"] {
            assert!(!is_stdout(Path::new(name)), "{name}");
            assert_eq!(
                output_target(Path::new(name)).unwrap(),
                OutputTarget::Stderr
            );
        }
        assert!(!is_stdout(Path::new("./-")));
    }

    #[test]
    fn files_and_new_names_are_replaced_and_folders_refused() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.txt");
        std::fs::write(&file, "x").unwrap();
        assert_eq!(output_target(&file).unwrap(), OutputTarget::File);
        let new = dir.path().join("new.txt");
        assert_eq!(output_target(&new).unwrap(), OutputTarget::File);
        let error = output_target(dir.path()).unwrap_err();
        assert_eq!(error.exit_code(), 2);
        assert!(error.message().ends_with("is a directory"), "{error}");
    }

    #[cfg(unix)]
    #[test]
    fn devices_and_fifos_are_written_in_place_sockets_refused() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(
            output_target(Path::new("/dev/null")).unwrap(),
            OutputTarget::InPlace
        );
        let fifo = dir.path().join("fifo");
        make_fifo(&fifo);
        assert_eq!(output_target(&fifo).unwrap(), OutputTarget::InPlace);
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&fifo, &link).unwrap();
        assert_eq!(output_target(&link).unwrap(), OutputTarget::InPlace);
        let socket = dir.path().join("socket");
        let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
        let error = output_target(&socket).unwrap_err();
        assert_eq!(error.exit_code(), 2);
        assert!(error.message().contains("is a socket"), "{error}");
    }

    /// Makes a FIFO at `path` with mkfifo(1), which every Unix has.
    #[cfg(unix)]
    pub(crate) fn make_fifo(path: &Path) {
        let made = std::process::Command::new("mkfifo").arg(path).status();
        assert!(made.unwrap().success(), "mkfifo {}", path.display());
    }
}
