use super::*;

fn spec(shard: (u64, u64)) -> LedgerSpec {
    LedgerSpec {
        problem: "queens n=9".into(),
        batches: 10,
        shard,
        input: None,
    }
}

#[test]
fn records_survive_reopening_and_other_specs_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.db");
    {
        let ledger = Ledger::open_or_create(&path, &spec((0, 1))).unwrap();
        ledger
            .record(&BatchRecord::new(
                3,
                1_000_000_000_000_000_000_000,
                "cpu",
                "test",
                0.5,
            ))
            .unwrap();
    }
    let ledger = Ledger::open_or_create(&path, &spec((0, 1))).unwrap();
    assert_eq!(ledger.finished().unwrap(), BTreeSet::from([3]));
    assert_eq!(
        ledger.batches().unwrap()[0].count,
        1_000_000_000_000_000_000_000
    );
    let other = LedgerSpec {
        problem: "queens n=10".into(),
        ..spec((0, 1))
    };
    let refused = Ledger::open_or_create(&path, &other).err().unwrap();
    assert_eq!(refused.exit_code(), 2);
    assert!(
        ledger.checked_total().is_err(),
        "incomplete ledger must not give a total"
    );
}

/// A run waits for a lock another process holds on the file, here while the ledger is
/// being created, instead of failing at once.
#[test]
fn opening_waits_for_another_connections_lock() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("locked.db");
    let holder = Connection::open(&path).unwrap();
    holder.execute_batch("BEGIN EXCLUSIVE;").unwrap();
    std::thread::scope(|scope| {
        scope.spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(300));
            holder.execute_batch("COMMIT;").unwrap();
        });
        let ledger = Ledger::open_or_create(&path, &spec((0, 1))).unwrap();
        assert_eq!(ledger.spec(), &spec((0, 1)));
    });
}

/// A file whose creation was cut short (empty) is no ledger to read, and a run makes it one.
#[test]
fn an_empty_file_is_no_ledger_until_a_run_makes_it_one() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("empty.db");
    std::fs::write(&path, b"").unwrap();
    let refused = Ledger::open_existing(&path).err().unwrap().to_string();
    assert!(refused.contains("is not a thicket ledger"), "{refused}");
    Ledger::open_or_create(&path, &spec((0, 1))).unwrap();
    assert_eq!(Ledger::open_existing(&path).unwrap().spec(), &spec((0, 1)));
}

/// Another program's SQLite file is refused, and left byte for byte as it was.
#[test]
fn a_foreign_database_is_refused_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("foreign.db");
    Connection::open(&path)
        .unwrap()
        .execute_batch("CREATE TABLE people (name TEXT); INSERT INTO people VALUES ('ada');")
        .unwrap();
    let before = std::fs::read(&path).unwrap();
    for refused in [
        Ledger::open_or_create(&path, &spec((0, 1))).err().unwrap(),
        Ledger::open_existing(&path).err().unwrap(),
    ] {
        assert_eq!(refused.exit_code(), 2, "{refused}");
        assert!(refused
            .to_string()
            .contains("foreign.db is not a thicket ledger"));
    }
    assert_eq!(std::fs::read(&path).unwrap(), before);
    let text = dir.path().join("notes.txt");
    std::fs::write(&text, "not a database at all, just some words in a file").unwrap();
    let refused = Ledger::open_or_create(&text, &spec((0, 1))).err().unwrap();
    assert!(
        refused.to_string().contains("not a SQLite file"),
        "{refused}"
    );
    assert_eq!(refused.exit_code(), 2);
}

/// One run holds a ledger at a time; the second is told at once, naming the file.
#[test]
fn a_second_run_on_a_held_ledger_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("held.db");
    let first = Ledger::open_or_create(&path, &spec((0, 1))).unwrap();
    let refused = Ledger::open_or_create(&path, &spec((0, 1))).err().unwrap();
    let message = refused.to_string();
    assert!(
        message.contains("held.db is in use by another run"),
        "{message}"
    );
    assert!(message.contains(&format!("process {}", std::process::id())));
    assert_eq!(refused.exit_code(), 1);
    // Reading it meanwhile is fine.
    assert_eq!(Ledger::open_existing(&path).unwrap().spec(), first.spec());
    drop(first);
    Ledger::open_or_create(&path, &spec((0, 1))).unwrap();
}

/// A batch numbered outside the plan means the file was altered: refused by every opener.
#[test]
fn a_batch_outside_the_plan_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("altered.db");
    drop(Ledger::open_or_create(&path, &spec((0, 1))).unwrap());
    Connection::open(&path)
        .unwrap()
        .execute(
            "INSERT INTO batches (id, count, mod13, mod15, backend, device, seconds)
             VALUES (12, '1', 1, 1, 'cpu', 'x', 0)",
            [],
        )
        .unwrap();
    for refused in [
        Ledger::open_existing(&path).err().unwrap(),
        Ledger::open_or_create(&path, &spec((0, 1))).err().unwrap(),
    ] {
        let message = refused.to_string();
        assert!(
            message.contains("altered.db holds batch 12, outside its plan"),
            "{message}"
        );
    }
}

/// Reading a ledger writes nothing to it.
#[test]
fn reading_a_ledger_leaves_it_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("read.db");
    {
        let ledger = Ledger::open_or_create(&path, &spec((0, 1))).unwrap();
        ledger
            .record(&BatchRecord::new(1, 5, "cpu", "test", 0.1))
            .unwrap();
    }
    let before = std::fs::read(&path).unwrap();
    let ledger = Ledger::open_existing(&path).unwrap();
    assert_eq!(ledger.batches().unwrap().len(), 1);
    assert!(ledger
        .checked_total()
        .unwrap_err()
        .to_string()
        .contains("read.db is incomplete"));
    drop(ledger);
    assert_eq!(std::fs::read(&path).unwrap(), before);
}

#[test]
fn details_are_recorded_with_their_batch() {
    let dir = tempfile::tempdir().unwrap();
    let ledger = Ledger::open_or_create(&dir.path().join("d.db"), &spec((0, 1))).unwrap();
    let record = |detail: &str| {
        BatchRecord::new(4, 9, "cpu", "test", 0.0).with_detail(Some(detail.to_string()))
    };
    ledger.record(&record("{\"cost\":7}")).unwrap();
    // A second record of batch 4 fails, and leaves no second detail behind.
    assert!(ledger.record(&record("other")).is_err());
    let details: Vec<Option<String>> = ledger
        .batches()
        .unwrap()
        .into_iter()
        .map(|b| b.detail)
        .collect();
    assert_eq!(details, [Some("{\"cost\":7}".to_string())]);
}

#[test]
fn a_corrupt_count_is_caught_by_its_check_values() {
    let mut batch = BatchRecord::new(0, 12345, "cpu", "test", 0.1);
    assert!(sum_checked(std::slice::from_ref(&batch)).is_ok());
    batch.count += 1;
    assert!(sum_checked(&[batch]).is_err());
}

#[test]
fn merge_needs_every_shard_once() {
    let dir = tempfile::tempdir().unwrap();
    let make = |i: u64| {
        let path = dir.path().join(format!("s{i}.db"));
        let ledger = Ledger::open_or_create(&path, &spec((i, 2))).unwrap();
        for id in ledger.spec().owned().collect::<Vec<_>>() {
            ledger
                .record(&BatchRecord::new(id, u128::from(id), "cpu", "test", 0.0))
                .unwrap();
        }
        path
    };
    let (a, b) = (make(0), make(1));
    let open = |p: &Path| Ledger::open_existing(p).unwrap();
    assert_eq!(
        check_shards(&[open(&a), open(&b)]).unwrap(),
        (0..10).sum::<u128>()
    );
    assert!(check_shards(&[open(&a)]).is_err());
    assert!(check_shards(&[open(&a), open(&a)]).is_err());
}

/// A whole ledger of `spec((0, 1))` at `path`: batches 0..10, each counting `100 + id`, with a
/// detail, released as a finished run leaves it.
fn finished_ledger(path: &Path) {
    let ledger = Ledger::open_or_create(path, &spec((0, 1))).unwrap();
    for id in 0..10 {
        let record = BatchRecord::new(id, 100 + u128::from(id), "cpu", "test", 0.25)
            .with_detail(Some(format!("price={id}.5")));
        ledger.record(&record).unwrap();
    }
}

/// Every file of `dir` with its bytes, to show that reading changed nothing in the folder.
fn snapshot(dir: &Path) -> Vec<(std::ffi::OsString, Vec<u8>)> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| {
            let entry = entry.unwrap();
            (entry.file_name(), std::fs::read(entry.path()).unwrap())
        })
        .collect();
    files.sort();
    files
}

/// Every edit of a recorded batch that its check values cannot see (a count with its check
/// values fixed up, a detail changed, deleted or added, the digest itself, a row from another
/// ledger) is refused by every reader as a wrong answer, naming the file and the batch; a run
/// refuses to resume it without writing a byte.
#[test]
fn a_tampered_row_is_refused_naming_the_ledger_and_the_batch() {
    let dir = tempfile::tempdir().unwrap();
    let other = dir.path().join("other.db");
    {
        let ledger = Ledger::open_or_create(&other, &spec((1, 2))).unwrap();
        let record =
            BatchRecord::new(3, 103, "cpu", "test", 0.25).with_detail(Some("price=3.5".into()));
        ledger.record(&record).unwrap();
    }
    let foreign_digest: String = Connection::open(&other)
        .unwrap()
        .query_row("SELECT digest FROM batches WHERE id = 3", [], |r| r.get(0))
        .unwrap();
    let edits = [
        "UPDATE batches SET count = '116', mod13 = 116 % 13, mod15 = 116 % 15 WHERE id = 3",
        "UPDATE details SET detail = 'price=3.25' WHERE id = 3",
        "DELETE FROM details WHERE id = 3",
        "UPDATE batches SET backend = 'cuda' WHERE id = 3",
        "UPDATE batches SET digest = NULL WHERE id = 3",
        &format!("UPDATE batches SET digest = '{foreign_digest}' WHERE id = 3"),
    ];
    for (k, edit) in edits.iter().enumerate() {
        let path = dir.path().join(format!("t{k}.db"));
        finished_ledger(&path);
        Connection::open(&path).unwrap().execute(edit, []).unwrap();
        let name = format!("t{k}.db: batch 3: its row does not match its digest");
        let ledger = Ledger::open_existing(&path).unwrap();
        for refused in [
            ledger.batches().err().unwrap(),
            ledger.checked_total().err().unwrap(),
        ] {
            assert_eq!(refused.exit_code(), 3, "{edit}: {refused}");
            assert!(refused.to_string().contains(&name), "{edit}: {refused}");
        }
        let audited = ledger.audited_batches().unwrap();
        let faults: Vec<_> = audited.iter().filter_map(|(_, f)| f.as_ref()).collect();
        assert_eq!(faults.len(), 1, "{edit}");
        drop(ledger);
        let before = snapshot(dir.path());
        let refused = Ledger::open_or_create(&path, &spec((0, 1))).err().unwrap();
        assert_eq!(refused.exit_code(), 3, "{edit}: {refused}");
        assert_eq!(snapshot(dir.path()), before, "{edit}");
    }
}

/// A ledger of schema 1 (no digests) is read with its check values; a run of its command
/// gives its batches their digests, after which an edit is caught.
#[test]
fn a_ledger_of_schema_1_is_read_and_a_run_adds_its_digests() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.db");
    finished_ledger(&path);
    let make_old = |path: &Path| {
        Connection::open(path)
            .unwrap()
            .execute_batch("ALTER TABLE batches DROP COLUMN digest; PRAGMA user_version = 1;")
            .unwrap();
    };
    make_old(&path);
    let old = Ledger::open_existing(&path).unwrap();
    assert!(!old.has_digests());
    assert_eq!(old.checked_total().unwrap(), (100..110).sum::<u128>());
    drop(old);
    // A row that fails its check values is not sealed: the run is refused, the file untouched.
    let corrupt = dir.path().join("corrupt.db");
    finished_ledger(&corrupt);
    make_old(&corrupt);
    Connection::open(&corrupt)
        .unwrap()
        .execute("UPDATE batches SET count = '999' WHERE id = 4", [])
        .unwrap();
    let before = std::fs::read(&corrupt).unwrap();
    let refused = Ledger::open_or_create(&corrupt, &spec((0, 1)))
        .err()
        .unwrap();
    assert_eq!(refused.exit_code(), 3, "{refused}");
    assert!(refused
        .to_string()
        .contains("corrupt.db: batch 4: count 999"));
    assert_eq!(std::fs::read(&corrupt).unwrap(), before);
    // A run seals the intact one.
    drop(Ledger::open_or_create(&path, &spec((0, 1))).unwrap());
    let sealed = Ledger::open_existing(&path).unwrap();
    assert!(sealed.has_digests());
    assert_eq!(sealed.batches().unwrap().len(), 10);
    drop(sealed);
    Connection::open(&path)
        .unwrap()
        .execute("UPDATE details SET detail = 'price=0' WHERE id = 7", [])
        .unwrap();
    let caught = Ledger::open_existing(&path)
        .unwrap()
        .batches()
        .err()
        .unwrap();
    assert!(caught.to_string().contains("batch 7"), "{caught}");
    // Schema 2 without its digests was altered.
    let stripped = dir.path().join("stripped.db");
    finished_ledger(&stripped);
    Connection::open(&stripped)
        .unwrap()
        .execute_batch("ALTER TABLE batches DROP COLUMN digest;")
        .unwrap();
    let refused = Ledger::open_existing(&stripped).err().unwrap();
    assert_eq!(refused.exit_code(), 3, "{refused}");
}

/// A run lets go of its ledger in the rollback-journal mode, with no holder note and no side
/// file: the file alone is the whole ledger.
#[test]
fn a_released_ledger_is_one_file_that_reads_anywhere() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("done.db");
    finished_ledger(&path);
    let names: Vec<_> = snapshot(dir.path()).into_iter().map(|(n, _)| n).collect();
    assert_eq!(names, ["done.db"]);
    let header = std::fs::read(&path).unwrap();
    assert_eq!(header[18..20], [1, 1], "rollback-journal mode");
    let conn = Connection::open(&path).unwrap();
    assert_eq!(read_meta(&conn, "holder").unwrap(), None);
}

/// A ledger whose header still says WAL, copied alone (an older thicket's ledger, or one whose
/// run could not leave the WAL mode), is read without a side file being made or a byte of the
/// folder changing: opened immutable.
#[test]
fn a_wal_ledger_copied_alone_is_read_without_a_side_file() {
    let dir = tempfile::tempdir().unwrap();
    let made = dir.path().join("made.db");
    finished_ledger(&made);
    let copies = tempfile::tempdir().unwrap();
    let path = copies.path().join("copy.db");
    std::fs::copy(&made, &path).unwrap();
    let conn = Connection::open(&path).unwrap();
    conn.pragma_update(None, "journal_mode", "WAL").unwrap();
    drop(conn);
    assert_eq!(std::fs::read(&path).unwrap()[18..20], [2, 2]);
    let before = snapshot(copies.path());
    assert_eq!(before.len(), 1);
    let ledger = Ledger::open_existing(&path).unwrap();
    assert_eq!(ledger.checked_total().unwrap(), (100..110).sum::<u128>());
    assert_eq!(snapshot(copies.path()), before, "while open");
    drop(ledger);
    assert_eq!(snapshot(copies.path()), before, "after");
}

/// Whether this process may write where permissions forbid it (root, CAP_DAC_OVERRIDE): then
/// a read-only folder proves nothing.
fn permissions_bind_us(dir: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    let probe = dir.join("probe");
    std::fs::create_dir(&probe).unwrap();
    std::fs::set_permissions(&probe, std::fs::Permissions::from_mode(0o555)).unwrap();
    let bound = std::fs::write(probe.join("x"), b"").is_err();
    std::fs::set_permissions(&probe, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::remove_dir_all(&probe).unwrap();
    bound
}

/// The file alone (`0444`) in a folder nobody may write (`0555`), both as a run leaves it and
/// in WAL mode, is read by `open_existing` without a byte of the folder changing; so is a
/// killed run's ledger copied there with its log (the batches only the log holds included).
/// Skipped (with a note) where permissions do not bind this process.
#[test]
fn a_ledger_in_a_read_only_folder_is_read() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    if !permissions_bind_us(dir.path()) {
        println!("NOTE: this process writes where permissions forbid it (root): not tested here");
        return;
    }
    let made = dir.path().join("made.db");
    finished_ledger(&made);
    let set = |path: &Path, mode: u32| {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
    };
    let killed = dir.path().join("killed.db");
    let ledger = Ledger::open_or_create(&killed, &spec((0, 1))).unwrap();
    for id in 0..4 {
        let record = BatchRecord::new(id, 100 + u128::from(id), "cpu", "test", 0.25);
        ledger.record(&record).unwrap();
    }
    for (name, copies) in [
        ("released", vec![(made.clone(), "")]),
        ("wal", vec![(made.clone(), "")]),
        (
            "killed",
            vec![(killed.clone(), ""), (killed.clone(), "-wal")],
        ),
        (
            "killed-shm",
            vec![
                (killed.clone(), ""),
                (killed.clone(), "-wal"),
                (killed.clone(), "-shm"),
            ],
        ),
    ] {
        let folder = dir.path().join(name);
        std::fs::create_dir(&folder).unwrap();
        let path = folder.join("l.db");
        for (from, suffix) in copies {
            let from = side_file_of(&from, suffix);
            std::fs::copy(from, side_file_of(&path, suffix)).unwrap();
        }
        if name == "wal" {
            let conn = Connection::open(&path).unwrap();
            conn.pragma_update(None, "journal_mode", "WAL").unwrap();
        }
        for file in std::fs::read_dir(&folder).unwrap() {
            set(&file.unwrap().path(), 0o444);
        }
        set(&folder, 0o555);
        let before = snapshot(&folder);
        let read = Ledger::open_existing(&path).map(|l| l.batches().map(|b| b.len()));
        set(&folder, 0o755);
        match name {
            "killed" => {
                let refused = read.err().unwrap().to_string();
                assert!(
                    refused.contains("only where the folder can be written"),
                    "{refused}"
                );
            }
            "killed-shm" => assert_eq!(read.unwrap().unwrap(), 4),
            _ => assert_eq!(read.unwrap().unwrap(), 10, "{name}"),
        }
        assert_eq!(snapshot(&folder), before, "{name}");
    }
    drop(ledger);
}

fn side_file_of(path: &Path, suffix: &str) -> std::path::PathBuf {
    crate::sqlite::side_file(path, suffix)
}
