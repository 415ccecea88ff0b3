//! The run ledger: a SQLite file that makes long runs resumable and auditable.
//!
//! A run's work is a deterministic list of batches, numbered `0..batches`, derived from the
//! problem and its split parameters alone. Every finished batch is committed in its own
//! transaction with its count (what the batch counted: solutions, search nodes), two check
//! values (the count mod 13 and mod 15, as the N = 27 record run kept), the backend and device
//! that computed it, a problem's own detail (e.g. the best tour an ATSP subtree held, the
//! prices of a book's batch) and a digest of all of these bound to the ledger's identity
//! (`digest.rs`). Killing the process at any moment loses at most the batches in flight;
//! running the same command again skips what is recorded. A ledger made for other parameters
//! is refused.
//!
//! A ledger knows what it is: its SQLite header carries thicket's `application_id` and the
//! schema version (`user_version`), so any other SQLite file is refused before a byte of it
//! is written; a ledger whose batches lie outside its plan, or whose rows do not match their
//! check values or digests, is refused as altered wherever it is read; one run holds a ledger
//! at a time (an exclusive advisory lock on the file, the holder noted inside until it lets
//! go); `status`, `verify` and `merge` open it read-only and write nothing anywhere
//! (`sqlite.rs`). Every message names the file.

use std::collections::BTreeSet;
use std::fs::File;
use std::path::{Path, PathBuf};

use rusqlite::{params, Connection, OptionalExtension};

use thicket_core::{Error, Result};

use crate::digest::Seal;
use crate::sqlite::{connect, connect_read_only, db_error, leave_readable, reason};

/// What a ledger is for: every field must match when a run reopens it.
#[derive(Debug, Clone)]
pub struct LedgerSpec {
    /// The problem and its parameters, e.g. `queens n=18 split=constellations-v1`.
    pub problem: String,
    /// How many batches the whole run has.
    pub batches: u64,
    /// The shard `(index, count)` this ledger holds: batches whose number is `index` mod
    /// `count`. `(0, 1)` for an unsharded run.
    pub shard: (u64, u64),
    /// What the problem needs to be rebuilt from the ledger alone (`status`, `verify` and
    /// `merge` get only the file), e.g. an ATSP instance's cost matrix; not compared when a
    /// run reopens the ledger, since `problem` names everything it depends on.
    pub input: Option<String>,
}

impl PartialEq for LedgerSpec {
    fn eq(&self, other: &LedgerSpec) -> bool {
        (&self.problem, self.batches, self.shard) == (&other.problem, other.batches, other.shard)
    }
}

impl Eq for LedgerSpec {}

impl LedgerSpec {
    /// Whether batch `id` belongs to this ledger's shard.
    pub fn owns(&self, id: u64) -> bool {
        id % self.shard.1 == self.shard.0
    }

    /// The batches this ledger's shard covers.
    pub fn owned(&self) -> impl Iterator<Item = u64> + '_ {
        (0..self.batches).filter(|&id| self.owns(id))
    }
}

/// One finished batch.
#[derive(Debug, Clone, PartialEq)]
pub struct BatchRecord {
    /// Batch number.
    pub id: u64,
    /// What the batch counted.
    pub count: u128,
    /// `count % 13`, kept to catch corruption.
    pub mod13: u8,
    /// `count % 15`, kept to catch corruption.
    pub mod15: u8,
    /// The backend that computed it (`cpu`, `cuda`, ...).
    pub backend: String,
    /// The device that computed it (a GPU name, or the CPU).
    pub device: String,
    /// Seconds the batch took.
    pub seconds: f64,
    /// The problem's own record of the batch, if it keeps one (see [`crate::BatchValue`]).
    pub detail: Option<String>,
}

impl BatchRecord {
    /// A record for `count` with its check values.
    pub fn new(id: u64, count: u128, backend: &str, device: &str, seconds: f64) -> BatchRecord {
        BatchRecord {
            id,
            count,
            mod13: (count % 13) as u8,
            mod15: (count % 15) as u8,
            backend: backend.to_string(),
            device: device.to_string(),
            seconds,
            detail: None,
        }
    }

    /// The same record with the problem's own `detail`.
    pub fn with_detail(self, detail: Option<String>) -> BatchRecord {
        BatchRecord { detail, ..self }
    }

    /// Whether the check values agree with the count.
    pub fn is_consistent(&self) -> bool {
        self.count % 13 == u128::from(self.mod13) && self.count % 15 == u128::from(self.mod15)
    }
}

/// The SQLite `application_id` of a thicket ledger (`THKL`).
pub const APPLICATION_ID: i32 = 0x5448_4B4C;
/// The ledger schema this version writes (SQLite `user_version`): 2, every batch with the
/// digest of its row. It reads schema 1 and the ledgers made before ledgers carried an
/// `application_id` (schema 0), whose batches carry no digest: `status` and `verify` read them
/// with their check values, `merge` refuses them, and a run of their command adds the digests
/// (after checking every batch's check values) and makes them schema 2. A newer schema is
/// refused.
pub const SCHEMA_VERSION: i32 = 2;
/// The first schema whose batches carry digests.
const DIGESTS_FROM: i32 = 2;
/// The tables of a ledger; a file without an `application_id` is taken as a ledger made before
/// ledgers carried one only if it holds these tables and no others.
const TABLES: [&str; 3] = ["batches", "details", "meta"];

/// An open ledger file.
pub struct Ledger {
    // Declared before `lock` so that it closes first: closing another descriptor of the file
    // while SQLite holds its locks would drop them (POSIX advisory-lock semantics).
    conn: Connection,
    spec: LedgerSpec,
    path: PathBuf,
    /// What the rows' digests are bound to: the identity of the spec stored in the file.
    seal: Seal,
    /// Whether the rows carry digests (schema 2 on); older ledgers are read with their check
    /// values alone.
    sealed: bool,
    /// The file held with an exclusive advisory lock while a run writes (`None` read-only).
    _lock: Option<File>,
}

/// What a SQLite file is, read from its header and schema without writing.
enum Identity {
    /// No tables yet (a new or empty file): a run may make it a ledger.
    Empty,
    /// A thicket ledger of schema `version` (0: made before ledgers carried an
    /// `application_id`).
    Ledger {
        /// Its `user_version`.
        version: i32,
    },
}

/// What the file open as `conn` is; another program's SQLite file, or a ledger of a newer
/// schema, is invalid input naming `path` and why.
fn identify(conn: &Connection, path: &Path) -> Result<Identity> {
    let err = not_a_ledger(path);
    let application_id: i32 = conn
        .pragma_query_value(None, "application_id", |row| row.get(0))
        .map_err(&err)?;
    let version: i32 = conn
        .pragma_query_value(None, "user_version", |row| row.get(0))
        .map_err(&err)?;
    let mut stmt = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .map_err(&err)?;
    let tables = stmt
        .query_map([], |row| row.get::<_, String>(0))
        .map_err(&err)?
        .collect::<rusqlite::Result<Vec<String>>>()
        .map_err(&err)?;
    let refuse = |why: String| {
        Err(Error::InvalidInput(format!(
            "{} is not a thicket ledger ({why}); name a new file or a ledger of this run",
            path.display()
        )))
    };
    match application_id {
        APPLICATION_ID if version > SCHEMA_VERSION => Err(Error::InvalidInput(format!(
            "{} is a ledger of schema {version}, newer than this thicket's {SCHEMA_VERSION}",
            path.display()
        ))),
        APPLICATION_ID => Ok(Identity::Ledger { version }),
        0 if tables.is_empty() => Ok(Identity::Empty),
        0 if tables.iter().all(|t| TABLES.contains(&t.as_str())) => {
            Ok(Identity::Ledger { version: 0 })
        }
        0 => refuse(format!(
            "it holds the tables {}",
            short_list(&tables, 5).join(", ")
        )),
        other => refuse(format!("its SQLite application_id is {other:#x}")),
    }
}

/// The first `most` of `names`, each cut to 40 characters, and how many more there are.
fn short_list(names: &[String], most: usize) -> Vec<String> {
    let mut shown: Vec<String> = names
        .iter()
        .take(most)
        .map(|n| n.chars().take(40).collect())
        .collect();
    if names.len() > most {
        shown.push(format!("{} more", names.len() - most));
    }
    shown
}

/// The error of a file SQLite cannot read as a database: bad input naming the file.
fn not_a_ledger(path: &Path) -> impl Fn(rusqlite::Error) -> Error + '_ {
    move |e| match e.sqlite_error_code() {
        Some(rusqlite::ErrorCode::NotADatabase) => Error::InvalidInput(format!(
            "{} is not a thicket ledger (not a SQLite file)",
            path.display()
        )),
        _ => Error::Ledger(format!("{}: {}", path.display(), reason(&e))),
    }
}

/// Takes the exclusive advisory lock of a run on `path` (created if missing), or says which
/// run holds it.
fn lock_for_a_run(path: &Path) -> Result<File> {
    let file = File::options()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .map_err(|e| Error::file(path, e))?;
    match file.try_lock() {
        Ok(()) => Ok(file),
        Err(std::fs::TryLockError::WouldBlock) => {
            let holder = connect_read_only(path)
                .ok()
                .and_then(|conn| read_meta(&conn, "holder").ok().flatten())
                .map(|h| format!(" ({h})"))
                .unwrap_or_default();
            Err(Error::Ledger(format!(
                "{} is in use by another run{holder}; wait for it or name another ledger",
                path.display()
            )))
        }
        Err(std::fs::TryLockError::Error(e)) => Err(Error::file(path, e)),
    }
}

impl Ledger {
    /// Opens the ledger at `path` for a run of `spec`, creating it if it does not exist, and
    /// holds it until dropped; refuses, without writing to it, a file that is not a thicket
    /// ledger, a ledger made for anything else or altered (a batch outside its plan, a row that
    /// fails its check values or digest), and a ledger another run holds. A ledger of schema 1
    /// gets the digests of the batches it holds. When dropped, the ledger is left readable
    /// anywhere (see `sqlite.rs`) and the holder note removed.
    pub fn open_or_create(path: &Path, spec: &LedgerSpec) -> Result<Ledger> {
        let err = db_error(path);
        let existing = std::fs::metadata(path).is_ok_and(|m| m.len() > 0);
        if existing {
            let conn = connect_read_only(path)?;
            if let Identity::Ledger { version } = identify(&conn, path)? {
                if let Some(stored) = read_spec(&conn).map_err(&err)? {
                    check_same_run(path, &stored, spec)?;
                    Ledger::reader(conn, path, stored, version)?.batches()?;
                }
            }
        }
        let lock = lock_for_a_run(path)?;
        let conn = connect(path)?;
        conn.pragma_update(None, "journal_mode", "WAL")
            .map_err(&err)?;
        conn.pragma_update(None, "synchronous", "FULL")
            .map_err(&err)?;
        // Checked again under the lock: another program may have written the file meanwhile.
        let version = match identify(&conn, path)? {
            Identity::Empty => SCHEMA_VERSION,
            Identity::Ledger { version } => version,
        };
        // The tables, the spec, the digests and the identity in one transaction: a run killed
        // at any moment leaves a ledger whole or no ledger at all.
        let transaction = conn.unchecked_transaction().map_err(&err)?;
        transaction
            .execute_batch(
                "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
                 CREATE TABLE IF NOT EXISTS batches (
                     id INTEGER PRIMARY KEY, count TEXT NOT NULL, mod13 INTEGER NOT NULL,
                     mod15 INTEGER NOT NULL, backend TEXT NOT NULL, device TEXT NOT NULL,
                     seconds REAL NOT NULL, finished_at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP,
                     digest TEXT);
                 CREATE TABLE IF NOT EXISTS details (id INTEGER PRIMARY KEY, detail TEXT NOT NULL);",
            )
            .map_err(&err)?;
        if !has_digest_column(&transaction).map_err(&err)? {
            transaction
                .execute("ALTER TABLE batches ADD COLUMN digest TEXT", [])
                .map_err(&err)?;
        }
        let stored = match read_spec(&transaction).map_err(&err)? {
            Some(stored) => {
                check_same_run(path, &stored, spec)?;
                check_plan(&transaction, path, &stored)?;
                stored
            }
            None => {
                write_spec(&transaction, spec).map_err(&err)?;
                spec.clone()
            }
        };
        let seal = Seal::of(&stored);
        if version < DIGESTS_FROM {
            seal_rows(&transaction, path, &seal)?;
        }
        transaction
            .pragma_update(None, "application_id", APPLICATION_ID)
            .map_err(&err)?;
        transaction
            .pragma_update(None, "user_version", SCHEMA_VERSION)
            .map_err(&err)?;
        let holder = format!("process {}", std::process::id());
        transaction
            .execute(
                "INSERT OR REPLACE INTO meta (key, value) VALUES ('holder', ?1)",
                [holder],
            )
            .map_err(&err)?;
        transaction.commit().map_err(&err)?;
        Ok(Ledger {
            conn,
            spec: spec.clone(),
            path: path.to_owned(),
            seal,
            sealed: true,
            _lock: Some(lock),
        })
    }

    /// Opens an existing ledger read-only, whatever run it was made for, writing nothing to it
    /// or beside it (`status`, `verify`, `merge`), also where its folder is read-only; refuses
    /// a file that is not a thicket ledger and a ledger whose batches lie outside its plan.
    pub fn open_existing(path: &Path) -> Result<Ledger> {
        std::fs::metadata(path)
            .map_err(|e| Error::InvalidInput(format!("{}: {}", path.display(), io_reason(&e))))?;
        let err = db_error(path);
        let conn = connect_read_only(path)?;
        let not_a_ledger =
            || Error::InvalidInput(format!("{} is not a thicket ledger", path.display()));
        let Identity::Ledger { version } = identify(&conn, path)? else {
            return Err(not_a_ledger());
        };
        let spec = read_spec(&conn).map_err(&err)?.ok_or_else(not_a_ledger)?;
        Ledger::reader(conn, path, spec, version)
    }

    /// The read-only ledger of `conn`, made for `spec`, of schema `version`, after checking
    /// that its batches lie in its plan and that a schema with digests has them.
    fn reader(conn: Connection, path: &Path, spec: LedgerSpec, version: i32) -> Result<Ledger> {
        let sealed = has_digest_column(&conn).map_err(db_error(path))?;
        if version >= DIGESTS_FROM && !sealed {
            return Err(Error::Verification(format!(
                "{} is a ledger of schema {version} whose batches carry no digests: the ledger \
                 was altered",
                path.display()
            )));
        }
        check_plan(&conn, path, &spec)?;
        Ok(Ledger {
            conn,
            seal: Seal::of(&spec),
            spec,
            path: path.to_owned(),
            sealed,
            _lock: None,
        })
    }

    /// The ledger's file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A ledger error naming the file.
    fn error(&self, doing: &str) -> impl Fn(rusqlite::Error) -> Error + '_ {
        let doing = doing.to_owned();
        move |e| Error::Ledger(format!("{}: {doing}: {}", self.path.display(), reason(&e)))
    }

    /// What the ledger is for.
    pub fn spec(&self) -> &LedgerSpec {
        &self.spec
    }

    /// Whether its batches carry digests: false only for a ledger of schema 1 or older, which
    /// `merge` refuses until a run of its command adds them.
    pub fn has_digests(&self) -> bool {
        self.sealed
    }

    /// The numbers of the batches already recorded.
    pub fn finished(&self) -> Result<BTreeSet<u64>> {
        let err = self.error("reading the finished batches");
        let mut stmt = self.conn.prepare("SELECT id FROM batches").map_err(&err)?;
        let ids = stmt
            .query_map([], |row| row.get::<_, i64>(0))
            .map_err(&err)?
            .map(|id| id.map(|id| id as u64))
            .collect::<rusqlite::Result<BTreeSet<u64>>>()
            .map_err(&err)?;
        Ok(ids)
    }

    /// Commits one finished batch, with its detail if it has one and its digest, in one
    /// transaction, so that neither is ever recorded without the other.
    pub fn record(&self, batch: &BatchRecord) -> Result<()> {
        let failed = self.error(&format!("recording batch {}", batch.id));
        let transaction = self.conn.unchecked_transaction().map_err(&failed)?;
        transaction
            .execute(
                "INSERT INTO batches (id, count, mod13, mod15, backend, device, seconds, digest)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                params![
                    batch.id as i64,
                    batch.count.to_string(),
                    batch.mod13,
                    batch.mod15,
                    batch.backend,
                    batch.device,
                    batch.seconds,
                    self.seal.digest(batch)
                ],
            )
            .map_err(&failed)?;
        if let Some(detail) = &batch.detail {
            transaction
                .execute(
                    "INSERT INTO details (id, detail) VALUES (?1, ?2)",
                    params![batch.id as i64, detail],
                )
                .map_err(&failed)?;
        }
        transaction.commit().map_err(&failed)
    }

    /// Every recorded batch, in order, each checked: a batch whose check values disagree with
    /// its count, or whose row does not match its digest, is an [`Error::Verification`] naming
    /// the file and the batch.
    pub fn batches(&self) -> Result<Vec<BatchRecord>> {
        self.audited_batches()?
            .into_iter()
            .map(|(record, fault)| match fault {
                None => Ok(record),
                Some(fault) => Err(Error::Verification(format!(
                    "{}: {fault}",
                    self.path.display()
                ))),
            })
            .collect()
    }

    /// Every recorded batch, in order, with what is wrong with it (`batch 4: ...`), if
    /// anything: for reports that count the faults instead of stopping at the first. A count
    /// that is not a number is an error.
    pub fn audited_batches(&self) -> Result<Vec<(BatchRecord, Option<String>)>> {
        let rows = read_rows(&self.conn, &self.path, self.sealed)?;
        Ok(rows
            .into_iter()
            .map(|(record, digest)| {
                let fault = self.fault(&record, digest.as_deref());
                let fault = fault.map(|why| format!("batch {}: {why}", record.id));
                (record, fault)
            })
            .collect())
    }

    /// What is wrong with `record`, stored with `digest`.
    fn fault(&self, record: &BatchRecord, digest: Option<&str>) -> Option<String> {
        if !record.is_consistent() {
            return Some(inconsistent(record));
        }
        let intact = !self.sealed || digest == Some(self.seal.digest(record).as_str());
        (!intact).then(|| "its row does not match its digest: the ledger was altered".into())
    }

    /// The sum over every recorded batch, after checking each batch (see
    /// [`Ledger::batches`]) and that every batch of the shard is there.
    pub fn checked_total(&self) -> Result<u128> {
        let batches = self.batches()?;
        let missing = self.spec.owned().count().saturating_sub(batches.len());
        if missing > 0 {
            return Err(Error::InvalidInput(format!(
                "{} is incomplete: {missing} batch{} of {} missing",
                self.path.display(),
                if missing == 1 { "" } else { "es" },
                self.spec.owned().count()
            )));
        }
        sum_checked(&batches)
    }
}

impl Drop for Ledger {
    /// A run lets go of its ledger: the holder note goes, and the file is left in the
    /// rollback-journal mode so that it reads anywhere. Both are best effort (a drop cannot
    /// fail): every batch is committed already, the lock is what keeps a second run out, and
    /// a file left in WAL mode is still read (see `sqlite.rs`).
    fn drop(&mut self) {
        if self._lock.is_some() {
            let _ = self
                .conn
                .execute("DELETE FROM meta WHERE key = 'holder'", []);
            leave_readable(&self.conn);
        }
    }
}

/// Why `record`'s check values fail.
fn inconsistent(record: &BatchRecord) -> String {
    format!(
        "count {} does not match its check values (mod 13 = {}, mod 15 = {}): the ledger is \
         corrupt",
        record.count, record.mod13, record.mod15
    )
}

/// Every row of `conn`'s batches with its detail and, where the ledger has them (`sealed`),
/// its stored digest.
fn read_rows(
    conn: &Connection,
    path: &Path,
    sealed: bool,
) -> Result<Vec<(BatchRecord, Option<String>)>> {
    let err = |e| {
        Error::Ledger(format!(
            "{}: reading the batches: {}",
            path.display(),
            reason(&e)
        ))
    };
    let digest = if sealed { "b.digest" } else { "NULL" };
    let mut stmt = conn
        .prepare(&format!(
            "SELECT b.id, b.count, b.mod13, b.mod15, b.backend, b.device, b.seconds, d.detail,
                    {digest}
             FROM batches b LEFT JOIN details d ON d.id = b.id ORDER BY b.id"
        ))
        .map_err(err)?;
    let rows = stmt
        .query_map([], |row| {
            Ok((
                row.get::<_, i64>(0)?,
                row.get::<_, String>(1)?,
                row.get::<_, i64>(2)?,
                row.get::<_, i64>(3)?,
                row.get::<_, String>(4)?,
                row.get::<_, String>(5)?,
                row.get::<_, f64>(6)?,
                row.get::<_, Option<String>>(7)?,
                row.get::<_, Option<String>>(8)?,
            ))
        })
        .map_err(err)?;
    let mut out = Vec::new();
    for row in rows {
        let (id, count, mod13, mod15, backend, device, seconds, detail, digest) =
            row.map_err(err)?;
        let count: u128 = count.parse().map_err(|_| {
            let shown: String = count.chars().take(40).collect();
            Error::Verification(format!(
                "{}: batch {id}: stored count '{shown}' is not a number",
                path.display()
            ))
        })?;
        let record = BatchRecord {
            id: id as u64,
            count,
            mod13: mod13 as u8,
            mod15: mod15 as u8,
            backend,
            device,
            seconds,
            detail,
        };
        out.push((record, digest));
    }
    Ok(out)
}

/// Gives every batch of a ledger made before digests (schema 1 or older) its digest, after
/// checking its check values: such a ledger was read with nothing more, and the rows are
/// sealed as they stand.
fn seal_rows(conn: &Connection, path: &Path, seal: &Seal) -> Result<()> {
    let err = db_error(path);
    for (record, _) in read_rows(conn, path, false)? {
        if !record.is_consistent() {
            return Err(Error::Verification(format!(
                "{}: batch {}: {}",
                path.display(),
                record.id,
                inconsistent(&record)
            )));
        }
        conn.execute(
            "UPDATE batches SET digest = ?1 WHERE id = ?2 AND digest IS NULL",
            params![seal.digest(&record), record.id as i64],
        )
        .map_err(&err)?;
    }
    Ok(())
}

/// Whether the batches table of `conn` has the digest column (schema 2 on).
fn has_digest_column(conn: &Connection) -> rusqlite::Result<bool> {
    conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM pragma_table_info('batches') WHERE name = 'digest')",
        [],
        |row| row.get(0),
    )
}

/// The sum of `batches`, refusing any batch whose check values disagree with its count.
pub fn sum_checked(batches: &[BatchRecord]) -> Result<u128> {
    batches.iter().try_fold(0u128, |sum, b| {
        if !b.is_consistent() {
            return Err(Error::Verification(format!(
                "batch {}: {}",
                b.id,
                inconsistent(b)
            )));
        }
        sum.checked_add(b.count)
            .ok_or_else(|| Error::Overflow("the ledger total exceeds 128 bits".into()))
    })
}

/// Refuses to run `spec` on a ledger made for `stored`.
fn check_same_run(path: &Path, stored: &LedgerSpec, spec: &LedgerSpec) -> Result<()> {
    if stored == spec {
        return Ok(());
    }
    Err(Error::InvalidInput(format!(
        "{} was made for '{}' ({} batches, shard {}/{}), not for '{}' ({} batches, \
         shard {}/{}); use another ledger file",
        path.display(),
        stored.problem,
        stored.batches,
        stored.shard.0,
        stored.shard.1,
        spec.problem,
        spec.batches,
        spec.shard.0,
        spec.shard.1
    )))
}

/// Refuses a ledger holding a batch its plan does not have (a number past the plan's
/// batches or of another shard): such a file was altered, and any total from it is wrong.
fn check_plan(conn: &Connection, path: &Path, spec: &LedgerSpec) -> Result<()> {
    let (index, count) = (spec.shard.0 as i64, spec.shard.1 as i64);
    let stray: Option<i64> = conn
        .query_row(
            "SELECT id FROM batches WHERE id < 0 OR id >= ?1 OR id % ?2 != ?3 LIMIT 1",
            params![spec.batches as i64, count.max(1), index],
            |row| row.get(0),
        )
        .optional()
        .map_err(db_error(path))?;
    match stray {
        None => Ok(()),
        Some(id) => Err(Error::InvalidInput(format!(
            "{} holds batch {id}, outside its plan of {} batches (shard {}/{}): the ledger was \
             altered",
            path.display(),
            spec.batches,
            spec.shard.0,
            spec.shard.1
        ))),
    }
}

/// Why reading a file failed, in the words of the operating system (no error code).
fn io_reason(error: &std::io::Error) -> String {
    match error.kind() {
        std::io::ErrorKind::NotFound => "no such ledger".into(),
        _ => thicket_core::os_reason(error),
    }
}

/// The `meta` value of `key`, if the file has one.
fn read_meta(conn: &Connection, key: &str) -> rusqlite::Result<Option<String>> {
    conn.query_row("SELECT value FROM meta WHERE key = ?1", [key], |row| {
        row.get(0)
    })
    .optional()
}

fn read_spec(conn: &Connection) -> rusqlite::Result<Option<LedgerSpec>> {
    // A file whose creation was cut short (or any other SQLite file) has no meta table.
    let has_meta: bool = conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta')",
        [],
        |row| row.get(0),
    )?;
    if !has_meta {
        return Ok(None);
    }
    let get = |key: &str| read_meta(conn, key);
    let (Some(problem), Some(batches), Some(shard), input) = (
        get("problem")?,
        get("batches")?,
        get("shard")?,
        get("input")?,
    ) else {
        return Ok(None);
    };
    let parse = |text: &str| text.parse::<u64>().ok();
    let shard = shard
        .split_once('/')
        .and_then(|(i, k)| Some((parse(i)?, parse(k)?)))
        .filter(|&(i, k)| k > 0 && i < k);
    Ok(match (parse(&batches), shard) {
        (Some(batches), Some(shard)) => Some(LedgerSpec {
            problem,
            batches,
            shard,
            input,
        }),
        _ => None,
    })
}

fn write_spec(conn: &Connection, spec: &LedgerSpec) -> rusqlite::Result<()> {
    let put = |key: &str, value: String| {
        conn.execute(
            "INSERT INTO meta (key, value) VALUES (?1, ?2)",
            params![key, value],
        )
    };
    put("problem", spec.problem.clone())?;
    put("batches", spec.batches.to_string())?;
    put("shard", format!("{}/{}", spec.shard.0, spec.shard.1))?;
    if let Some(input) = &spec.input {
        put("input", input.clone())?;
    }
    Ok(())
}

/// Checks that `ledgers` are the shards of one run: made for the same problem with the same
/// batch count and shard count, covering every shard exactly once, each complete; returns the
/// sum of their counts.
pub fn check_shards(ledgers: &[Ledger]) -> Result<u128> {
    let first = ledgers
        .first()
        .ok_or_else(|| Error::InvalidInput("merge needs at least one ledger".into()))?
        .spec();
    let mut seen = BTreeSet::new();
    for ledger in ledgers {
        let spec = ledger.spec();
        if spec.problem != first.problem
            || spec.batches != first.batches
            || spec.shard.1 != first.shard.1
        {
            return Err(Error::InvalidInput(format!(
                "shard {}/{} of '{}' does not belong with shard {}/{} of '{}'",
                spec.shard.0,
                spec.shard.1,
                spec.problem,
                first.shard.0,
                first.shard.1,
                first.problem
            )));
        }
        if !seen.insert(spec.shard.0) {
            return Err(Error::InvalidInput(format!(
                "shard {}/{} is given twice",
                spec.shard.0, spec.shard.1
            )));
        }
    }
    let missing: Vec<String> = (0..first.shard.1)
        .filter(|i| !seen.contains(i))
        .map(|i| format!("{i}/{}", first.shard.1))
        .collect();
    if !missing.is_empty() {
        return Err(Error::InvalidInput(format!(
            "missing shards: {}",
            missing.join(", ")
        )));
    }
    ledgers.iter().try_fold(0u128, |sum, ledger| {
        sum.checked_add(ledger.checked_total()?)
            .ok_or_else(|| Error::Overflow("the merged total exceeds 128 bits".into()))
    })
}

#[cfg(test)]
#[path = "ledger_tests.rs"]
mod tests;
