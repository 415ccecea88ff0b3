//! Reading input files the one way every reader does: `-` is standard input, a missing or
//! unreadable file is bad input naming it (exit code 2), bytes that are not UTF-8 never stop a
//! reader (they become U+FFFD, so a parser names the line they sit on), and nothing larger
//! than this machine's available memory is read (a device such as /dev/zero ends in an error,
//! not a hang).

use std::io::Read;
use std::path::Path;

use crate::{Error, Result};

/// Whether `path` names standard input or output (`-`).
pub fn is_stdio(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// The bytes of the input file `path` (`-`: standard input), as described in the module.
pub fn read_bytes(path: &Path) -> Result<Vec<u8>> {
    let limit = crate::available_memory();
    let too_large = || {
        Error::TooLarge(format!(
            "{}: larger than the {} of memory available",
            crate::input_name(path),
            crate::memory::bytes_text(limit)
        ))
    };
    let mut bytes = Vec::new();
    let read = if is_stdio(path) {
        std::io::stdin()
            .lock()
            .take(limit.saturating_add(1))
            .read_to_end(&mut bytes)
    } else {
        let mut file = std::fs::File::open(path).map_err(|e| unreadable(path, e))?;
        let meta = file.metadata().map_err(|e| unreadable(path, e))?;
        if meta.is_dir() {
            return Err(Error::InvalidInput(format!(
                "{}: is a directory",
                crate::input_name(path)
            )));
        }
        if meta.len() > limit {
            return Err(too_large());
        }
        if bytes.try_reserve_exact(meta.len() as usize).is_err() {
            return Err(too_large());
        }
        (&mut file)
            .take(limit.saturating_add(1))
            .read_to_end(&mut bytes)
    };
    read.map_err(|e| unreadable(path, e))?;
    if bytes.len() as u64 > limit {
        return Err(too_large());
    }
    Ok(bytes)
}

/// The text of the input file `path` (`-`: standard input), as described in the module.
pub fn read_text(path: &Path) -> Result<String> {
    let bytes = read_bytes(path)?;
    Ok(match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    })
}

/// A file that cannot be read is bad input naming it, in the system's words.
fn unreadable(path: &Path, error: std::io::Error) -> Error {
    Error::InvalidInput(format!(
        "{}: {}",
        crate::input_name(path),
        crate::os_reason(&error)
    ))
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
}
