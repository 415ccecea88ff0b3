//! Output files that appear whole or not at all.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::{Error, Result};

/// Writes `path` through a temporary file in the same directory, renamed over `path` only once
/// `fill` has written everything and it is on disk (fsync), so a failure never leaves a
/// partial file there (an existing file stays as it was) nor a temporary file beside it. A
/// symbolic link is followed: its target is replaced and the link kept. An existing file's
/// permissions are kept. Errors name the path.
pub fn write_atomically_with(
    path: &Path,
    fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<()> {
    through_temporary(path, |file| {
        let mut out = BufWriter::new(file);
        fill(&mut out)?;
        out.flush()
    })
}

/// Writes `path` as [`write_atomically_with`] does, for a writer that knows the file's length
/// and fills it at positions of its own (several threads at once, through a memory map or
/// positioned writes): `fill` gets the temporary file, already `len` bytes long (of zeros
/// until written); its writes through a map are on disk before the rename too.
pub fn write_atomically_sized(
    path: &Path,
    len: u64,
    fill: impl FnOnce(&File) -> std::io::Result<()>,
) -> Result<()> {
    through_temporary(path, |file| {
        file.set_len(len)?;
        fill(file)
    })
}

/// The temporary file, its fsync, permissions and rename behind both writers above.
fn through_temporary(path: &Path, fill: impl FnOnce(&File) -> std::io::Result<()>) -> Result<()> {
    let fail = |e: std::io::Error| Error::file(path, e);
    let target = link_target(path).map_err(fail)?;
    let path = target.as_path();
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    // tempfile's error names its own random file: report the OS error against `path`.
    let file = tempfile::NamedTempFile::new_in(dir).map_err(|e| {
        fail(std::io::Error::new(
            e.kind(),
            format!(
                "cannot create a file in {}: {}",
                dir.display(),
                crate::os_reason(&e)
            ),
        ))
    })?;
    fill(file.as_file()).map_err(fail)?;
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

/// The file a write to `path` replaces: `path` itself, or where the symbolic links it names
/// lead (a dangling link's target too, so that the write creates it).
fn link_target(path: &Path) -> std::io::Result<PathBuf> {
    let mut current = path.to_path_buf();
    // A cycle of links ends here rather than looping; the OS reports it on the write.
    for _ in 0..40 {
        match std::fs::symlink_metadata(&current) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let next = std::fs::read_link(&current)?;
                current = match current.parent() {
                    Some(dir) if next.is_relative() => dir.join(next),
                    _ => next,
                };
            }
            _ => return Ok(current),
        }
    }
    Ok(current)
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

    #[cfg(unix)]
    #[test]
    fn a_symbolic_link_is_followed_and_kept() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("real.txt");
        std::fs::write(&target, "old\n").unwrap();
        let link = dir.path().join("link.txt");
        std::os::unix::fs::symlink("real.txt", &link).unwrap();
        write_atomically(&link, "new\n").unwrap();
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "new\n");
        // A dangling link: the write creates its target.
        let dangling = dir.path().join("dangling.txt");
        std::os::unix::fs::symlink("made.txt", &dangling).unwrap();
        write_atomically(&dangling, "made\n").unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.path().join("made.txt")).unwrap(),
            "made\n"
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_sized_write_fills_its_positions_and_keeps_the_old_file_on_error() {
        use std::os::unix::fs::FileExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.bin");
        write_atomically_sized(&path, 6, |file| {
            file.write_all_at(b"def", 3)?;
            file.write_all_at(b"abc", 0)
        })
        .unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"abcdef");
        let err = write_atomically_sized(&path, 4, |_| Err(std::io::Error::other("no room")))
            .unwrap_err();
        assert!(err.to_string().contains("out.bin"), "{err}");
        assert_eq!(std::fs::read(&path).unwrap(), b"abcdef");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
