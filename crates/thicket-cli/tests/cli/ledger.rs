//! Ledgered runs end to end: killed at random moments and resumed, shards merged, corruption
//! caught by `verify`, tampered ledgers refused by `merge`, `status` and `verify`, and ledgers
//! read where nothing may be written.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, SystemTime};

use crate::common::{json, thicket};

/// Starts `thicket args` in the background with its output discarded, to be killed.
fn spawn_silenced(args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_thicket"))
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("thicket starts")
}

/// A small xorshift generator: the kill moments differ from run to run, and the seed is
/// printed so that a failure can be replayed with THICKET_KILL_SEED.
fn kill_moments(count: usize) -> Vec<u64> {
    let mut seed = std::env::var("THICKET_KILL_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            SystemTime::now()
                .duration_since(SystemTime::UNIX_EPOCH)
                .unwrap()
                .subsec_nanos() as u64
                | 1
        });
    println!("kill seed: {seed}");
    (0..count)
        .map(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            30 + seed % 400
        })
        .collect()
}

/// Waits (up to a minute) until a run has made the ledger at `path`: its file holds data or
/// its write-ahead log exists.
fn wait_for_the_ledger(path: &str) {
    let wal = format!("{path}-wal");
    for _ in 0..6000 {
        let made = std::fs::metadata(path).is_ok_and(|m| m.len() > 0)
            || std::path::Path::new(&wal).exists();
        if made {
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn a_run_killed_six_times_resumes_to_the_oeis_counts() {
    let dir = tempfile::tempdir().unwrap();
    let ledger = dir.path().join("q15.db");
    let ledger = ledger.to_str().unwrap();
    let args = [
        "queens",
        "15",
        "--backend",
        "cpu",
        "--ledger",
        ledger,
        "--batch-size",
        "4",
        "--quiet",
        "--json",
    ];
    for millis in kill_moments(6) {
        let mut child = spawn_silenced(&args);
        // The moments count from the ledger's creation, so that a slow start on a loaded
        // machine does not turn every kill into one before the run began.
        wait_for_the_ledger(ledger);
        std::thread::sleep(Duration::from_millis(millis));
        // SIGKILL: no chance to clean up.
        child.kill().expect("the run can be killed");
        child.wait().unwrap();
    }
    let done = json(&thicket(&["status", ledger, "--json"]));
    println!("after the kills: {done}");
    let value = json(&thicket(&args));
    assert_eq!(value["total"], 2_279_184u64);
    assert_eq!(value["unique"], 285_053u64);
}

#[test]
fn shards_merge_and_bad_sets_of_shards_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let paths: Vec<String> = (0..3)
        .map(|i| {
            dir.path()
                .join(format!("s{i}.db"))
                .to_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    for (i, path) in paths.iter().enumerate() {
        let shard = format!("{i}/3");
        let output = thicket(&[
            "queens",
            "12",
            "--ledger",
            path,
            "--shard",
            &shard,
            "--batch-size",
            "16",
            "--quiet",
        ]);
        assert!(output.status.success());
    }
    let merged = json(&thicket(&[
        "merge", &paths[0], &paths[1], &paths[2], "--json",
    ]));
    assert_eq!(merged["total"], 14_200);
    assert_eq!(merged["unique"], 1_787);
    let missing = thicket(&["merge", &paths[0], &paths[2]]);
    assert_eq!(missing.status.code(), Some(2));
    let twice = thicket(&["merge", &paths[0], &paths[0], &paths[1]]);
    assert_eq!(twice.status.code(), Some(2));
}

#[test]
fn verify_catches_a_corrupt_entry() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("q11.db");
    let ledger = path.to_str().unwrap();
    assert!(thicket(&[
        "queens",
        "11",
        "--ledger",
        ledger,
        "--batch-size",
        "8",
        "--quiet"
    ])
    .status
    .success());
    assert!(thicket(&["verify", ledger, "--sample", "100"])
        .status
        .success());
    let db = rusqlite::Connection::open(&path).unwrap();
    // A count changed on disk, its check values left alone: the check values catch it.
    db.execute(
        "UPDATE batches SET count = CAST(count AS INTEGER) + 1 WHERE id = 2",
        [],
    )
    .unwrap();
    let caught = thicket(&["verify", ledger, "--sample", "1"]);
    assert_eq!(
        caught.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&caught.stderr)
    );
    // A wrong count with its check values fixed up: the row's digest catches it, naming the
    // batch. (A faulty device's wrong count, recorded with its digest, is caught by the
    // recount: thicket-queens' ledgered tests.)
    db.execute(
        "UPDATE batches SET count = CAST(count AS INTEGER) + 194, mod13 = (CAST(count AS INTEGER) + 194) % 13,
         mod15 = (CAST(count AS INTEGER) + 194) % 15 WHERE id = 5",
        [],
    )
    .unwrap();
    db.execute(
        "UPDATE batches SET count = CAST(count AS INTEGER) - 1 WHERE id = 2",
        [],
    )
    .unwrap();
    let caught = thicket(&["verify", ledger, "--sample", "100"]);
    assert_eq!(caught.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&caught.stderr).contains("batch 5"));
}

#[test]
#[cfg(not(feature = "mpi"))]
fn mpi_without_the_feature_is_a_one_line_error() {
    let output = thicket(&["queens", "10", "--mpi"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("built without MPI"), "{stderr}");
}

#[test]
fn a_batch_size_needs_a_ledger_or_mpi() {
    let output = thicket(&["queens", "10", "--batch-size", "4"]);
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn gpu_ledgers_say_why_without_a_gpu_and_auto_falls_back() {
    let devices = json(&thicket(&["devices", "--json"]));
    if devices["gpu_available"] == true {
        println!("NOTE: a GPU is usable here, so the no-GPU behaviour was not tested");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("q10.db");
    let ledger = path.to_str().unwrap();
    let refused = thicket(&["queens", "10", "--ledger", ledger, "--backend", "cuda"]);
    assert_eq!(refused.status.code(), Some(1));
    let message = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(message.trim().lines().count(), 1, "{message}");
    assert!(message.contains("unavailable"), "{message}");
    let fallback = thicket(&["queens", "10", "--ledger", ledger, "--json"]);
    let note = String::from_utf8_lossy(&fallback.stderr).into_owned();
    assert_eq!(note.trim().lines().count(), 1, "{note}");
    assert!(note.contains("on the CPU"), "{note}");
    let value = json(&fallback);
    assert_eq!(
        (value["total"].as_u64(), value["backend"].as_str()),
        (Some(724), Some("cpu"))
    );
}

/// ATSP shard ledgers, solved apart, merge into the optimum of one plain solve.
fn atsp_shards_merge_to(instance: &[&str], optimum: i64, shards: u64) {
    let dir = tempfile::tempdir().unwrap();
    let mut paths = Vec::new();
    for i in 0..shards {
        let path = dir.path().join(format!("a{i}.db"));
        let ledger = path.to_str().unwrap().to_owned();
        let shard = format!("{i}/{shards}");
        let mut args = vec!["atsp"];
        args.extend_from_slice(instance);
        args.extend(["--ledger", &ledger, "--shard", &shard, "--json", "--quiet"]);
        let part = json(&thicket(&args));
        assert_eq!(part["shard"], shard.as_str());
        assert_eq!(part["proven_optimal"], false);
        paths.push(ledger);
    }
    let mut args = vec!["merge"];
    args.extend(paths.iter().map(String::as_str));
    args.push("--json");
    let merged = json(&thicket(&args));
    assert_eq!(
        (merged["cost"].as_i64(), merged["proven_optimal"].as_bool()),
        (Some(optimum), Some(true))
    );
    let verified = thicket(&["verify", &paths[0], "--sample", "3"]);
    assert!(
        verified.status.success(),
        "{}",
        String::from_utf8_lossy(&verified.stderr)
    );
    assert_eq!(thicket(&["merge", &paths[0]]).status.code(), Some(2));
}

#[test]
fn atsp_shards_merge_into_the_optimum() {
    let instance = ["--generate", "tsmat:11:4"];
    let mut args = vec!["atsp"];
    args.extend_from_slice(&instance);
    args.extend(["--json", "--quiet"]);
    let plain = json(&thicket(&args));
    atsp_shards_merge_to(&instance, plain["cost"].as_i64().unwrap(), 2);
}

#[test]
#[ignore = "release builds: cargo test --release -- --ignored"]
fn ftv33_shards_merge_into_its_proven_optimum() {
    let file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../thicket-atsp/data/ftv33.atsp"
    );
    atsp_shards_merge_to(&[file], 1286, 2);
}

#[test]
#[ignore = "release builds: cargo test --release -- --ignored"]
fn an_atsp_run_killed_four_times_resumes_to_the_optimum() {
    let dir = tempfile::tempdir().unwrap();
    let ledger = dir.path().join("ftv33.db");
    let ledger = ledger.to_str().unwrap();
    let file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../thicket-atsp/data/ftv33.atsp"
    );
    let args = ["atsp", file, "--ledger", ledger, "--quiet", "--json"];
    let finished = || {
        let status = thicket(&["status", ledger, "--json"]);
        status
            .status
            .success()
            .then(|| json(&status)["done"].as_u64().unwrap_or(0))
    };
    for (kill, millis) in kill_moments(4).into_iter().enumerate() {
        let mut child = spawn_silenced(&args);
        // The first two kills fall anywhere, the last two after a subtree is done: waiting
        // for one while this run lives (a run that ends first, or a minute without one,
        // ends the wait instead of hanging the tests).
        if kill >= 2 {
            let deadline = std::time::Instant::now() + Duration::from_secs(60);
            while finished().unwrap_or(0) == 0
                && child.try_wait().unwrap().is_none()
                && std::time::Instant::now() < deadline
            {
                std::thread::sleep(Duration::from_millis(50));
            }
        }
        std::thread::sleep(Duration::from_millis(millis));
        child.kill().expect("the run can be killed");
        child.wait().unwrap();
    }
    let done = finished().unwrap();
    println!("after the kills: {done} of 1056 subtrees done");
    assert!(done > 0);
    let value = json(&thicket(&args));
    assert_eq!(
        (value["cost"].as_i64(), value["proven_optimal"].as_bool()),
        (Some(1286), Some(true))
    );
    // The ledger tools read ATSP ledgers too: verify rechecks subtrees with another bound,
    // merge gives the proven optimum from the ledger alone.
    let verified = thicket(&["verify", ledger, "--sample", "2"]);
    assert!(
        verified.status.success(),
        "{}",
        String::from_utf8_lossy(&verified.stderr)
    );
    let merged = json(&thicket(&["merge", ledger, "--json"]));
    assert_eq!(
        (merged["cost"].as_i64(), merged["proven_optimal"].as_bool()),
        (Some(1286), Some(true))
    );
}

/// Runs `thicket` and asserts that it refused a tampered ledger as a wrong answer: exit code
/// 3, nothing on stdout, one line on stderr naming `ledger` and `batch N`.
fn assert_refused_as_altered(args: &[&str], ledger: &str) {
    let output = thicket(args);
    let message = String::from_utf8_lossy(&output.stderr).into_owned();
    assert_eq!(output.status.code(), Some(3), "{args:?}: {message}");
    assert_eq!(message.trim_end().lines().count(), 1, "{args:?}: {message}");
    assert!(
        message.contains(&format!("{ledger}: batch ")) && message.contains("digest"),
        "{args:?}: {message}"
    );
    if args[0] != "status" {
        assert!(output.stdout.is_empty(), "{args:?}");
    }
}

/// The shard ledgers `0/2` and `1/2` of `run` (a command line without its ledger and shard)
/// in `dir`.
fn two_shards(dir: &std::path::Path, run: &[&str]) -> Vec<String> {
    (0..2)
        .map(|i| {
            let path = dir.join(format!("s{i}.db")).to_str().unwrap().to_owned();
            let shard = format!("{i}/2");
            let mut args = run.to_vec();
            args.extend(["--ledger", &path, "--shard", &shard, "--quiet"]);
            let output = thicket(&args);
            assert!(
                output.status.success(),
                "{}",
                String::from_utf8_lossy(&output.stderr)
            );
            path
        })
        .collect()
}

/// A ledger edited behind thicket's back, with every check value fixed up, is refused by
/// `merge`, `status` and `verify` with exit code 3, naming the ledger and the batch: an
/// N-Queens count and an ATSP subtree's record. (Books: `tests/books.rs`.)
#[test]
fn merge_status_and_verify_refuse_a_tampered_ledger_of_every_problem() {
    let edits = [
        (
            vec!["queens", "11", "--batch-size", "8"],
            "UPDATE batches SET count = CAST(count AS INTEGER) + 195,
             mod13 = (CAST(count AS INTEGER) + 195) % 13,
             mod15 = (CAST(count AS INTEGER) + 195) % 15 WHERE id = 3",
        ),
        (
            vec!["atsp", "--generate", "tsmat:8:1"],
            "UPDATE details SET detail = 'incumbent=1' WHERE id = 5",
        ),
    ];
    for (run, edit) in edits {
        let dir = tempfile::tempdir().unwrap();
        let shards = two_shards(dir.path(), &run);
        let merged = thicket(&["merge", &shards[0], &shards[1]]);
        assert!(merged.status.success(), "{run:?}");
        let db = rusqlite::Connection::open(&shards[1]).unwrap();
        assert_eq!(db.execute(edit, []).unwrap(), 1, "{edit}");
        drop(db);
        assert_refused_as_altered(&["merge", &shards[0], &shards[1]], &shards[1]);
        assert_refused_as_altered(&["merge", &shards[0], &shards[1], "--json"], &shards[1]);
        assert_refused_as_altered(&["status", &shards[1]], &shards[1]);
        assert_refused_as_altered(&["verify", &shards[1], "--sample", "1"], &shards[1]);
    }
}

/// Every file in `dir` with its bytes and permissions.
fn snapshot(dir: &std::path::Path) -> Vec<(std::ffi::OsString, Vec<u8>, u32)> {
    use std::os::unix::fs::PermissionsExt;
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| {
            let entry = entry.unwrap();
            let mode = entry.metadata().unwrap().permissions().mode();
            (
                entry.file_name(),
                std::fs::read(entry.path()).unwrap(),
                mode,
            )
        })
        .collect();
    files.sort();
    files
}

/// Issue 44: a finished ledger copied alone (no `-wal`, no `-shm`) to a folder nobody may
/// write (`0555`, the file `0444`), as a run leaves it and in WAL mode (an older thicket's
/// ledger), reads with `status`, `verify` and `merge`, and the folder is left byte for byte as
/// it was (no side file made). Where permissions do not bind this process (root), the folder is
/// still checked for side files.
#[test]
fn status_verify_and_merge_read_a_ledger_copied_alone_to_a_read_only_folder() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let made = dir.path().join("made.db");
    let made = made.to_str().unwrap();
    let run = [
        "queens",
        "10",
        "--batch-size",
        "8",
        "--ledger",
        made,
        "--quiet",
    ];
    assert!(thicket(&run).status.success());
    let names: Vec<_> = snapshot(dir.path()).into_iter().map(|f| f.0).collect();
    assert_eq!(names, ["made.db"], "a finished run leaves the file alone");
    let set = |path: &std::path::Path, mode: u32| {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
    };
    for wal in [false, true] {
        let folder = dir.path().join(format!("read-only-{wal}"));
        std::fs::create_dir(&folder).unwrap();
        let path = folder.join("copy.db");
        std::fs::copy(made, &path).unwrap();
        if wal {
            let db = rusqlite::Connection::open(&path).unwrap();
            db.pragma_update(None, "journal_mode", "WAL").unwrap();
        }
        set(&path, 0o444);
        set(&folder, 0o555);
        let before = snapshot(&folder);
        assert_eq!(before.len(), 1);
        let ledger = path.to_str().unwrap();
        let outputs = [
            thicket(&["status", ledger, "--json"]),
            thicket(&["verify", ledger, "--sample", "2"]),
            thicket(&["merge", ledger, "--json"]),
        ];
        let after = snapshot(&folder);
        set(&folder, 0o755);
        for output in &outputs {
            assert!(
                output.status.success(),
                "WAL {wal}: {}",
                String::from_utf8_lossy(&output.stderr)
            );
        }
        assert_eq!(json(&outputs[2])["total"], 724);
        assert_eq!(after, before, "WAL {wal}: the folder changed");
    }
}
