//! How a ledger's SQLite file is opened: for a run (write-ahead log, waiting for other
//! processes' locks), read-only without writing (but to fold in a killed run's log), and left
//! by a run in a state that any reader can open, even a copy of the file alone in a folder
//! nobody may write.
//!
//! A run writes through SQLite's write-ahead log (WAL), which lets `thicket status` read while
//! it records batches. A WAL database can only be read with its shared-memory file beside it
//! (`-shm`), which SQLite creates, so a reader in a read-only folder fails ("attempt to write a
//! readonly database"). Hence a run leaves its ledger in the rollback-journal mode when it lets
//! go of it (every batch folded into the file, no `-wal` or `-shm` left), which reads anywhere
//! with SQLite's ordinary locks; and a file whose header still says WAL but that has no log
//! beside it (made by an older thicket, or a copy of the file alone) is read as immutable,
//! which needs no side file and takes no lock.

use std::path::Path;
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};
use thicket_core::{Error, Result};

/// How long a connection waits for another process's lock on the ledger (a `thicket status`
/// reading it, a run recording a batch) before it gives up.
const LOCK_WAIT: Duration = Duration::from_secs(30);

/// How often a run that lets go of its ledger tries to leave the WAL mode: a reader that has
/// the file open (a `thicket status`) blocks the switch, and SQLite does not wait for it.
const RELEASE_TRIES: u32 = 10;
/// The pause between those tries: ten make a second, longer than a `status` takes.
const RELEASE_PAUSE: Duration = Duration::from_millis(100);

/// A ledger error naming `path`, with SQLite's reason.
pub(crate) fn db_error(path: &Path) -> impl Fn(rusqlite::Error) -> Error + '_ {
    move |e| Error::Ledger(format!("{}: {}", path.display(), reason(&e)))
}

/// SQLite's reason in one line: a damaged schema makes a statement fail with the statement's
/// text (several lines of SQL) in the error, which a message leaves out.
pub(crate) fn reason(error: &rusqlite::Error) -> String {
    let text = match error {
        rusqlite::Error::SqlInputError { msg, .. } => msg.clone(),
        other => other.to_string(),
    };
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Opens the SQLite database at `path` for a run, waiting up to [`LOCK_WAIT`] for other
/// processes' locks (rusqlite's default is 5 s; a run's batch record and a `thicket status`
/// on a busy file system can take longer than that).
pub(crate) fn connect(path: &Path) -> Result<Connection> {
    let err = db_error(path);
    let conn = Connection::open(path).map_err(&err)?;
    conn.busy_timeout(LOCK_WAIT).map_err(&err)?;
    Ok(conn)
}

/// Opens `path` read-only, writing nothing to it (no journal switch, no lock file) and, unless
/// a run left a log beside it, nothing beside it (no `-wal`, no `-shm`): for files that are only
/// read (`status`, `verify`, `merge`) and for checking a file before a run writes it.
///
/// A file in WAL mode with no log beside it holds every batch itself: it is opened immutable.
/// A file with a log beside it is being written, or was left by a run killed in the middle of
/// a write; the reader then shares SQLite's locks and reads the log too (in a folder it may not
/// write, SQLite keeps the log's index in memory). A log that a read-only connection may not
/// fold back (SQLite's recovery, "attempt to write a readonly database") is folded back by
/// opening the file for writing (never creating it), which writes nothing else; where that
/// cannot be done either (a killed run's ledger and log copied without `-shm` to a read-only
/// folder), the error says so.
pub(crate) fn connect_read_only(path: &Path) -> Result<Connection> {
    if is_wal_without_log(path) {
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_URI;
        return open(path, immutable_uri(path), flags);
    }
    let conn = open(path, path, OpenFlags::SQLITE_OPEN_READ_ONLY)?;
    let conn = match first_read_fails(&conn) {
        Some(rusqlite::ErrorCode::ReadOnly) => {
            drop(conn);
            open(path, path, OpenFlags::SQLITE_OPEN_READ_WRITE)?
        }
        _ => conn,
    };
    match first_read_fails(&conn) {
        Some(rusqlite::ErrorCode::ReadOnly | rusqlite::ErrorCode::CannotOpen) if has_log(path) => {
            Err(log_unreadable(path))
        }
        // Other failures (a file that is not a database) are the caller's first statement's.
        _ => Ok(conn),
    }
}

/// Why the first read of `conn` (the schema, where SQLite opens the journal or log) fails.
fn first_read_fails(conn: &Connection) -> Option<rusqlite::ErrorCode> {
    conn.query_row("SELECT count(*) FROM sqlite_master", [], |_| Ok(()))
        .err()
        .and_then(|e| e.sqlite_error_code())
}

/// The error of a ledger whose write-ahead log cannot be read where it lies.
fn log_unreadable(path: &Path) -> Error {
    Error::Ledger(format!(
        "{}: its write-ahead log {} (of a run going on or killed) can be read only where the \
         folder can be written, or with {} beside it; resume the run, or copy the three files \
         to a folder you can write",
        path.display(),
        side_file(path, "-wal").display(),
        side_file(path, "-shm").display()
    ))
}

/// Opens `name` (`path`, or a URI naming it) with `flags`, never creating it.
fn open(path: &Path, name: impl AsRef<Path>, flags: OpenFlags) -> Result<Connection> {
    let flags = flags | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(name, flags).map_err(db_error(path))?;
    conn.busy_timeout(LOCK_WAIT).map_err(db_error(path))?;
    Ok(conn)
}

/// `path` with `suffix` appended (`-wal`, `-shm`).
pub(crate) fn side_file(path: &Path, suffix: &str) -> std::path::PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    name.into()
}

/// Whether `path` is a SQLite file in WAL mode (byte 19 of its header, the read version, is 2)
/// with no log beside it, or an empty one: then every committed transaction is in the file
/// itself (SQLite folds the log in when its last connection closes), and no run is writing it
/// (a run keeps its log while it holds the ledger). A run that starts while such a file is
/// read immutable writes to a new log; the file itself changes only at a checkpoint (after a
/// thousand pages) or when the run lets go, so a reader that is not that slow reads the file
/// as it was.
fn is_wal_without_log(path: &Path) -> bool {
    let mut header = [0u8; 20];
    let read = std::fs::File::open(path)
        .and_then(|mut file| std::io::Read::read_exact(&mut file, &mut header));
    let in_wal_mode = read.is_ok() && header.starts_with(b"SQLite format 3\0") && header[19] == 2;
    in_wal_mode && !has_log(path)
}

/// Whether a write-ahead log with anything in it lies beside `path`.
fn has_log(path: &Path) -> bool {
    std::fs::metadata(side_file(path, "-wal")).is_ok_and(|m| m.len() > 0)
}

/// An SQLite URI that opens `path` immutable: read-only, without locks, journal or `-shm`.
/// Bytes other than unreserved ones are percent-encoded, so that `?`, `#` and `%` in a path
/// stay part of it.
fn immutable_uri(path: &Path) -> String {
    let bytes = path.as_os_str().as_encoded_bytes();
    let mut uri = String::from(match bytes.first() {
        // An empty authority: `file:///abs`; `file://x/...` would name a host.
        Some(b'/') => "file://",
        _ => "file:",
    });
    for &byte in bytes {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                uri.push(byte as char)
            }
            other => uri.push_str(&format!("%{other:02X}")),
        }
    }
    uri + "?immutable=1"
}

/// Leaves the file of a run's connection `conn` in the rollback-journal mode, which folds the
/// write-ahead log into the file and deletes the log and `-shm`, so that the ledger reads
/// anywhere (a copy of the file alone, a read-only folder) without a side file. A reader that
/// has the file open at that moment blocks the switch; after [`RELEASE_TRIES`] the ledger stays
/// in WAL mode, whole, for the next run to let go of (and readable as immutable once its log is
/// gone). Best effort: the run's batches are committed whatever happens here.
pub(crate) fn leave_readable(conn: &Connection) {
    // Folds the log into the file first, which readers that are not reading at this moment do
    // not block: should the switch fail, a copy of the file alone still holds every batch.
    let _ = conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()));
    for _ in 0..RELEASE_TRIES {
        let switched = conn.pragma_update_and_check(None, "journal_mode", "DELETE", |row| {
            row.get::<_, String>(0)
        });
        let busy = [
            rusqlite::ErrorCode::DatabaseBusy,
            rusqlite::ErrorCode::DatabaseLocked,
        ];
        match switched {
            // Another connection has the file open: it may close in a moment.
            Err(e)
                if e.sqlite_error_code()
                    .is_some_and(|code| busy.contains(&code)) =>
            {
                std::thread::sleep(RELEASE_PAUSE)
            }
            // Switched, or a failure that waiting does not mend (a damaged file).
            _ => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_keep_every_byte_of_the_path() {
        assert_eq!(
            immutable_uri(Path::new("/tmp/a b/l?#%.db")),
            "file:///tmp/a%20b/l%3F%23%25.db?immutable=1"
        );
        assert_eq!(
            immutable_uri(Path::new("runs/q.db")),
            "file:runs/q.db?immutable=1"
        );
    }

    #[test]
    fn a_path_with_uri_characters_opens_immutable() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("odd ?#% name.db");
        let conn = Connection::open(&path).unwrap();
        conn.pragma_update(None, "journal_mode", "WAL").unwrap();
        conn.execute_batch("CREATE TABLE t (x); INSERT INTO t VALUES (7);")
            .unwrap();
        drop(conn);
        assert!(is_wal_without_log(&path));
        let read = connect_read_only(&path).unwrap();
        let x: i64 = read.query_row("SELECT x FROM t", [], |r| r.get(0)).unwrap();
        assert_eq!(x, 7);
    }
}
