//! Reading input files the one way every reader does: `-` is standard input, a missing or
//! unreadable file is bad input naming it (exit code 2), and every read stops at a bound it
//! states, so that no input (`/dev/zero`, an endless pipe) takes the machine's memory:
//!
//! - a file larger than the memory available is refused before it is read (too large, exit
//!   code 1);
//! - a stream (standard input, a FIFO, a device) is read to at most half the memory available,
//!   then refused as bad input (exit code 2): an endless stream cannot be told from a long one
//!   before its end, and a large input belongs in a file;
//! - text has no line longer than [`MAX_LINE_BYTES`], checked as the bytes arrive, so an
//!   endless line is refused after 64 MiB (bad input naming the line);
//! - [`read_text`] drops a leading UTF-8 byte order mark, and bytes that are not UTF-8 never
//!   stop it (they become U+FFFD, so a parser names the line they sit on).

use std::io::Read;
use std::path::Path;

use crate::{Error, Result};

mod lines;

pub use lines::{without_bom, LineCheck, MAX_LINE_BYTES};

/// Bytes read between two checks of what arrived: a stream is refused within this much of
/// its bound.
const STEP: usize = 8 << 20;

/// Whether `path` names standard input or output (`-`).
pub fn is_stdio(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// The bytes of the input file `path` (`-`: standard input), read within the bounds the
/// module states.
pub fn read_bytes(path: &Path) -> Result<Vec<u8>> {
    read_bytes_with(path, |_| Ok(()))
}

/// The bytes of the input file `path` as [`read_bytes`] reads them, handing `check` the bytes
/// read so far after every few MiB, so that a reader refuses what it can tell is wrong (a line
/// too long: [`LineCheck`]) before the rest arrives; `check`'s error ends the read.
pub fn read_bytes_with(path: &Path, mut check: impl FnMut(&[u8]) -> Result<()>) -> Result<Vec<u8>> {
    let name = crate::input_name(path);
    let available = crate::available_memory();
    if is_stdio(path) {
        return read_stream(std::io::stdin().lock(), &name, available / 2, &mut check);
    }
    let file = std::fs::File::open(path).map_err(|e| unreadable(&name, e))?;
    let meta = file.metadata().map_err(|e| unreadable(&name, e))?;
    if meta.is_dir() {
        return Err(Error::InvalidInput(format!("{name}: is a directory")));
    }
    if !meta.is_file() {
        return read_stream(file, &name, available / 2, &mut check);
    }
    let too_large = || {
        Error::TooLarge(format!(
            "{name}: larger than the {} of memory available",
            crate::memory::bytes_text(available)
        ))
    };
    let mut bytes = Vec::new();
    // One byte more than the file, so that its end is found without growing the buffer.
    let size = usize::try_from(meta.len()).ok().filter(|&s| s < usize::MAX);
    if meta.len() > available || size.is_none_or(|s| bytes.try_reserve_exact(s + 1).is_err()) {
        return Err(too_large());
    }
    match read_steps(file, &mut bytes, available, &name, &mut check)? {
        Ended::Whole => Ok(bytes),
        Ended::PastBound | Ended::OutOfMemory => Err(too_large()),
    }
}

/// The text of the input file `path` (`-`: standard input), read as [`read_bytes`] reads
/// it, its lines checked as they arrive, without a leading byte order mark, and bytes that
/// are not UTF-8 replaced by U+FFFD.
pub fn read_text(path: &Path) -> Result<String> {
    let name = crate::input_name(path);
    let mut lines = LineCheck::new();
    let mut bytes = read_bytes_with(path, |bytes| lines.check(&name, bytes))?;
    let bom = bytes.len() - without_bom(&bytes).len();
    bytes.drain(..bom);
    Ok(match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    })
}

/// How a read ended.
enum Ended {
    /// At the input's end.
    Whole,
    /// With more than the bound read.
    PastBound,
    /// With no memory for the next step.
    OutOfMemory,
}

/// Reads the stream `reader`, named `name`, to its end, or refuses it past `bound` bytes.
fn read_stream(
    reader: impl Read,
    name: &str,
    bound: u64,
    check: &mut dyn FnMut(&[u8]) -> Result<()>,
) -> Result<Vec<u8>> {
    let mut bytes = Vec::new();
    match read_steps(reader, &mut bytes, bound, name, check)? {
        Ended::Whole => Ok(bytes),
        Ended::PastBound => Err(Error::InvalidInput(format!(
            "{name}: a stream longer than {}, half the memory available, the most thicket \
             reads from one (give a large input as a file)",
            crate::memory::bytes_text(bound)
        ))),
        Ended::OutOfMemory => Err(Error::TooLarge(format!(
            "{name}: no memory to read more than {}",
            crate::memory::bytes_text(bytes.len() as u64)
        ))),
    }
}

/// Appends `reader`'s bytes to `bytes` in steps of [`STEP`], calling `check` after each,
/// until its end or past `bound` bytes; memory for each step is taken fallibly.
fn read_steps(
    mut reader: impl Read,
    bytes: &mut Vec<u8>,
    bound: u64,
    name: &str,
    check: &mut dyn FnMut(&[u8]) -> Result<()>,
) -> Result<Ended> {
    loop {
        if bytes.len() == bytes.capacity() && bytes.try_reserve(STEP).is_err() {
            return Ok(Ended::OutOfMemory);
        }
        // Never more than the room there is, so that `read_to_end` reads in place and never
        // grows the buffer (infallibly) itself.
        let room = (bytes.capacity() - bytes.len()).min(STEP);
        let got = (&mut reader)
            .take(room as u64)
            .read_to_end(bytes)
            .map_err(|e| unreadable(name, e))?;
        check(bytes)?;
        if bytes.len() as u64 > bound {
            return Ok(Ended::PastBound);
        }
        if got < room {
            return Ok(Ended::Whole);
        }
    }
}

/// A file that cannot be read is bad input naming it, in the system's words.
fn unreadable(name: &str, error: std::io::Error) -> Error {
    Error::InvalidInput(format!("{name}: {}", crate::os_reason(&error)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_lone_dash_is_stdio() {
        assert!(is_stdio(Path::new("-")));
        assert!(!is_stdio(Path::new("-.csv")));
        assert!(!is_stdio(Path::new("./-")));
    }

    #[test]
    fn missing_files_are_bad_input_and_odd_bytes_become_replacement_characters() {
        let dir = tempfile::tempdir().unwrap();
        let missing = read_text(&dir.path().join("nope.gr")).unwrap_err();
        assert_eq!(missing.exit_code(), 2);
        assert!(missing
            .message()
            .ends_with("nope.gr: No such file or directory"));
        let latin1 = dir.path().join("latin1.txt");
        std::fs::write(&latin1, b"c caf\xe9\np 1 2\n").unwrap();
        assert_eq!(read_text(&latin1).unwrap(), "c caf\u{fffd}\np 1 2\n");
        let folder = read_text(dir.path()).unwrap_err();
        assert_eq!(folder.exit_code(), 2);
        assert!(folder.message().ends_with("is a directory"), "{folder}");
    }

    #[test]
    fn a_byte_order_mark_is_no_part_of_the_text() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bom.txt");
        std::fs::write(&path, b"\xEF\xBB\xBF0 1\n").unwrap();
        assert_eq!(read_text(&path).unwrap(), "0 1\n");
        assert_eq!(read_bytes(&path).unwrap(), b"\xEF\xBB\xBF0 1\n");
    }

    #[test]
    fn files_of_every_size_around_a_step_read_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.bin");
        for size in [0, 1, STEP - 1, STEP, STEP + 1, 2 * STEP] {
            let bytes: Vec<u8> = (0..size).map(|i| (i % 251) as u8).collect();
            std::fs::write(&path, &bytes).unwrap();
            assert_eq!(read_bytes(&path).unwrap(), bytes, "{size}");
        }
    }

    #[test]
    fn an_endless_stream_stops_at_its_bound_or_at_a_long_line() {
        let mut nothing = |_: &[u8]| Ok(());
        let zeros = std::io::repeat(0);
        let e = read_stream(zeros, "<stdin>", 3 * STEP as u64, &mut nothing).unwrap_err();
        assert_eq!(e.exit_code(), 2);
        assert!(
            e.message()
                .starts_with("<stdin>: a stream longer than 24.0 MiB, half the memory"),
            "{e}"
        );
        let mut lines = LineCheck::new();
        let started = std::time::Instant::now();
        let e = read_stream(std::io::repeat(b'y'), "<stdin>", u64::MAX, &mut |b| {
            lines.check("<stdin>", b)
        })
        .unwrap_err();
        assert!(
            e.message()
                .starts_with("<stdin>:1: line 1 is longer than 64 MiB"),
            "{e}"
        );
        assert!(started.elapsed().as_secs() < 30, "{:?}", started.elapsed());
        let short = read_stream(&b"0 1\n"[..], "<stdin>", 4, &mut nothing).unwrap();
        assert_eq!(short, b"0 1\n");
    }

    #[cfg(unix)]
    #[test]
    fn a_device_is_read_as_a_stream() {
        let mut lines = LineCheck::new();
        let e =
            read_bytes_with(Path::new("/dev/zero"), |b| lines.check("/dev/zero", b)).unwrap_err();
        assert_eq!(e.exit_code(), 2);
        assert!(
            e.message().starts_with("/dev/zero:1: line 1 is longer"),
            "{e}"
        );
    }
}
