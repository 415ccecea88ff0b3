//! Output files that appear whole or not at all, and outputs that are not files (a device,
//! a FIFO, standard output) written in place, never replaced (see [`crate::output`]).

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::output::{output_target, OutputTarget};
use crate::{Error, Result};

/// Writes `path` through a temporary file in the same directory, renamed over `path` only once
/// `fill` has written everything and it is on disk (fsync), so a failure never leaves a
/// partial file there (an existing file stays as it was) nor a temporary file beside it. A
/// symbolic link is followed: its target is replaced and the link kept. An existing file's
/// permissions are kept. A path that is not a regular file is never replaced: standard output
/// and error (`-`, `/dev/stdout`, `/dev/stderr`), character devices and FIFOs are written in
/// place as `fill` writes, and a folder, block device or socket is refused (exit code 2).
/// Errors name the path.
pub fn write_atomically_with(
    path: &Path,
    fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<()> {
    let fail = |e: std::io::Error| Error::file(path, e);
    match output_target(path)? {
        OutputTarget::File => through_temporary(path, |file| {
            let mut out = BufWriter::new(file);
            fill(&mut out)?;
            out.flush()
        }),
        OutputTarget::Stdout => stream(&mut std::io::stdout().lock(), fill).map_err(fail),
        OutputTarget::Stderr => stream(&mut std::io::stderr().lock(), fill).map_err(fail),
        OutputTarget::InPlace => stream(&mut open_in_place(path)?, fill).map_err(fail),
    }
}

/// Writes `path` as [`write_atomically_with`] does, for a writer that knows the file's length
/// and fills it at positions of its own (several threads at once, through a memory map or
/// positioned writes): `fill` gets the temporary file, already `len` bytes long (of zeros
/// until written); its writes through a map are on disk before the rename too. Where `path`
/// is written in place, the temporary file is made in the system's temporary folder and its
/// bytes copied there once complete.
pub fn write_atomically_sized(
    path: &Path,
    len: u64,
    fill: impl FnOnce(&File) -> std::io::Result<()>,
) -> Result<()> {
    let fill_sized = |file: &File| {
        file.set_len(len)?;
        fill(file)
    };
    if output_target(path)? == OutputTarget::File {
        return through_temporary(path, fill_sized);
    }
    let mut staged = tempfile::Builder::new()
        .prefix(TEMPORARY_PREFIX)
        .tempfile()
        .map_err(|e| cannot_create(path, &std::env::temp_dir(), e))?;
    fill_sized(staged.as_file()).map_err(|e| Error::file(path, e))?;
    write_atomically_with(path, |out| {
        use std::io::Seek;
        let file = staged.as_file_mut();
        file.rewind()?;
        std::io::copy(file, out).map(drop)
    })
}

/// How the temporary files beside an output begin, so that one left by a killed process
/// (SIGKILL, a power cut) is recognised: `.thicket-` and random letters.
pub const TEMPORARY_PREFIX: &str = ".thicket-";

/// Runs `fill` on `out` and flushes it.
fn stream(
    out: &mut dyn Write,
    fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let mut buffered = BufWriter::new(out);
    fill(&mut buffered)?;
    buffered.flush()
}

/// Opens an existing device or FIFO for writing, without creating or truncating it.
fn open_in_place(path: &Path) -> Result<File> {
    std::fs::OpenOptions::new()
        .write(true)
        .open(path)
        .map_err(|e| Error::file(path, e))
}

/// The error of a temporary file that could not be made in `dir`, reported against `path`
/// (tempfile's own error names its random file).
fn cannot_create(path: &Path, dir: &Path, e: std::io::Error) -> Error {
    Error::file(
        path,
        std::io::Error::new(
            e.kind(),
            format!(
                "cannot create a file in {}: {}",
                dir.display(),
                crate::os_reason(&e)
            ),
        ),
    )
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
    let file = tempfile::Builder::new()
        .prefix(TEMPORARY_PREFIX)
        .tempfile_in(dir)
        .map_err(|e| cannot_create(path, dir, e))?;
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

    /// A character device made with mknod(1) in a temporary folder (never the machine's own
    /// /dev files, which a regression would replace), or `None` where that needs a root this
    /// process is not.
    #[cfg(unix)]
    fn made_device(dir: &Path, name: &str, major_minor: [&str; 2]) -> Option<PathBuf> {
        let path = dir.join(name);
        let made = std::process::Command::new("mknod")
            .arg(&path)
            .arg("c")
            .args(major_minor)
            .stderr(std::process::Stdio::null())
            .status();
        match made {
            Ok(status) if status.success() => Some(path),
            _ => {
                eprintln!("NOTE: mknod needs root; the device-node cases are skipped");
                None
            }
        }
    }

    #[cfg(unix)]
    fn is_char_device(path: &Path) -> bool {
        use std::os::unix::fs::FileTypeExt;
        std::fs::symlink_metadata(path)
            .unwrap()
            .file_type()
            .is_char_device()
    }

    #[cfg(unix)]
    #[test]
    fn devices_are_written_in_place_and_a_full_one_fails() {
        let dir = tempfile::tempdir().unwrap();
        let Some(full) = made_device(dir.path(), "full", ["1", "7"]) else {
            return;
        };
        let null = made_device(dir.path(), "null", ["1", "3"]).unwrap();
        let error = write_atomically(&full, "tour\n").unwrap_err();
        assert_eq!(error.exit_code(), 1);
        assert!(error.to_string().contains("No space left"), "{error}");
        let error = write_atomically_sized(&full, 3, |_| Ok(())).unwrap_err();
        assert_eq!(error.exit_code(), 1);
        write_atomically(&null, "answer\n").unwrap();
        write_atomically_sized(&null, 3, |_| Ok(())).unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&null, &link).unwrap();
        write_atomically(&link, "answer\n").unwrap();
        assert!(is_char_device(&full) && is_char_device(&null));
        let mut names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        names.sort();
        assert_eq!(names, ["full", "link", "null"]);
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_is_streamed_to_its_reader_and_stays_a_fifo() {
        use std::io::Read;
        use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("answers");
        crate::output::tests::make_fifo(&fifo);
        // The read end is open before each write, so that the writer meets this reader: with
        // a reader that opened only then, a writer could meet instead the copy of an earlier
        // read end that a process spawned by a test beside this one held until its exec,
        // write into it and leave, and the reader then waited for a writer for ever (1 in 30
        // runs of the crate's tests on 2 cores). The bytes wait in the pipe until read.
        let open_reader = || {
            std::fs::OpenOptions::new()
                .read(true)
                .custom_flags(libc::O_NONBLOCK)
                .open(&fifo)
                .unwrap()
        };
        // Until no writer is left (such a spawned copy of the write end until its exec too).
        let drain = |mut reader: File| {
            let (mut bytes, mut buffer) = (Vec::new(), [0u8; 64]);
            loop {
                match reader.read(&mut buffer) {
                    Ok(0) => return bytes,
                    Ok(k) => bytes.extend_from_slice(&buffer[..k]),
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                        std::thread::sleep(std::time::Duration::from_millis(1))
                    }
                    Err(e) => panic!("{e}"),
                }
            }
        };
        let reader = open_reader();
        write_atomically(&fifo, "first\nsecond\n").unwrap();
        assert_eq!(drain(reader), b"first\nsecond\n");
        let reader = open_reader();
        write_atomically_sized(&fifo, 4, |file| {
            use std::os::unix::fs::FileExt;
            file.write_all_at(b"abcd", 0)
        })
        .unwrap();
        assert_eq!(drain(reader), b"abcd");
        let kind = std::fs::symlink_metadata(&fifo).unwrap().file_type();
        assert!(kind.is_fifo());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
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
