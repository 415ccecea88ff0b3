//! Output files that appear whole or not at all.

use std::io::{BufWriter, Write};
use std::path::Path;

use crate::{Error, Result};

/// Writes `path` through a temporary file in the same directory, renamed over `path` only once
/// `fill` has written everything, so a failure never leaves a partial file there (an existing
/// file stays as it was). An existing file's permissions are kept. Errors name the path.
pub fn write_atomically_with(
    path: &Path,
    fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<()> {
    let fail = |e: std::io::Error| Error::file(path, e);
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    // tempfile's error names its own random file: report the OS error against `path`.
    let file = tempfile::NamedTempFile::new_in(dir).map_err(|e| {
        fail(std::io::Error::new(
            e.kind(),
            format!("cannot create a file in {}", dir.display()),
        ))
    })?;
    {
        let mut out = BufWriter::new(file.as_file());
        fill(&mut out).map_err(fail)?;
        out.flush().map_err(fail)?;
    }
    file.as_file().sync_all().map_err(fail)?;
    let permissions = match std::fs::metadata(path) {
        Ok(existing) => Some(existing.permissions()),
        Err(_) => new_file_permissions(),
    };
    if let Some(permissions) = permissions {
        std::fs::set_permissions(file.path(), permissions).map_err(fail)?;
    }
    file.persist(path).map_err(|e| fail(e.error))?;
    Ok(())
}

/// Writes `text` to `path` as [`write_atomically_with`] does.
pub fn write_atomically(path: &Path, text: &str) -> Result<()> {
    write_atomically_with(path, |out| out.write_all(text.as_bytes()))
}

/// rw-r--r--, what a new output file would get under the usual umask (the temporary file
/// is created owner-only).
#[cfg(unix)]
fn new_file_permissions() -> Option<std::fs::Permissions> {
    use std::os::unix::fs::PermissionsExt;
    Some(std::fs::Permissions::from_mode(0o644))
}

/// Elsewhere the temporary file's permissions are those of any new file.
#[cfg(not(unix))]
fn new_file_permissions() -> Option<std::fs::Permissions> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_atomically_replaces_whole_files_and_keeps_the_old_one_on_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.csv");
        write_atomically(&path, "first\n").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "first\n");
        write_atomically(&path, "second\n").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "second\n");
        // A directory in the way: the rename fails, and what was there stays as it was.
        let blocked = dir.path().join("blocked");
        std::fs::create_dir(&blocked).unwrap();
        std::fs::write(blocked.join("old"), "old\n").unwrap();
        let err = write_atomically(&blocked, "new\n").unwrap_err();
        assert!(err.to_string().contains("blocked"), "{err}");
        assert_eq!(
            std::fs::read_to_string(blocked.join("old")).unwrap(),
            "old\n"
        );
        // No temporary file is left behind.
        let mut names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        names.sort();
        assert_eq!(names, ["blocked", "out.csv"]);
        // A directory that does not exist.
        let err = write_atomically(&dir.path().join("no/such/out.csv"), "x").unwrap_err();
        assert!(err.to_string().contains("no/such/out.csv"), "{err}");
        assert!(!err.to_string().contains("at path"), "{err}");
    }
}
