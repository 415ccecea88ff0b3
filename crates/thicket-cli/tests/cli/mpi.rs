//! MPI runs (`--features mpi`, `mpirun` on the PATH): a master and one or two workers give the
//! counts of a single process and OEIS, batch for batch, and a bad rank stops the run.

use std::ffi::OsStr;
use std::process::{Command, Output};

use crate::common::{json, printed, thicket};

const THICKET: &str = env!("CARGO_BIN_EXE_thicket");

/// `mpirun` with `ranks` processes of `thicket args`, allowed as root and on fewer cores.
fn mpirun<S: AsRef<OsStr>>(ranks: usize, args: &[S]) -> Output {
    Command::new("mpirun")
        .args(["--oversubscribe", "-n", &ranks.to_string(), THICKET])
        .args(args)
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .output()
        .expect("mpirun runs (install openmpi-bin)")
}

/// Every batch's count in a ledger, by batch number.
fn ledger_counts(path: &std::path::Path) -> Vec<(i64, String)> {
    let db = rusqlite::Connection::open(path).unwrap();
    let mut stmt = db
        .prepare("SELECT id, count FROM batches ORDER BY id")
        .unwrap();
    stmt.query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap()
}

#[test]
#[ignore = "needs mpirun; CI runs it with --features mpi"]
fn mpi_runs_count_what_one_process_counts() {
    let expected = [
        (12, 14_200u64, 1_787u64),
        (13, 73_712, 9_233),
        (14, 365_596, 45_752),
    ];
    for (n, total, unique) in expected {
        let n = n.to_string();
        let single = json(&thicket(&["queens", &n, "--backend", "cpu", "--json"]));
        for ranks in [2, 3] {
            let run = json(&mpirun(
                ranks,
                &[
                    "queens",
                    &n,
                    "--mpi",
                    "--backend",
                    "cpu",
                    "--batch-size",
                    "8",
                    "--json",
                ],
            ));
            assert_eq!(run["total"], total, "N = {n}, {ranks} ranks");
            assert_eq!(run["unique"], unique, "N = {n}, {ranks} ranks");
            assert_eq!(run["total"], single["total"]);
            assert_eq!(run["backend"], "mpi");
        }
    }
}

#[test]
#[ignore = "needs mpirun; CI runs it with --features mpi"]
fn an_mpi_ledger_equals_a_single_process_ledger_and_resumes_either_way() {
    let dir = tempfile::tempdir().unwrap();
    let (distributed, local) = (dir.path().join("mpi.db"), dir.path().join("one.db"));
    let common = [
        "queens",
        "13",
        "--backend",
        "cpu",
        "--batch-size",
        "16",
        "--json",
    ];
    let ledger = |path: &std::path::Path| {
        let mut args = common.to_vec();
        args.extend(["--ledger", path.to_str().unwrap()]);
        args.into_iter().map(str::to_owned).collect::<Vec<_>>()
    };
    let with_mpi = |path| {
        let mut args = ledger(path);
        args.push("--mpi".into());
        args
    };
    let run = json(&mpirun(3, &with_mpi(&distributed)));
    assert_eq!(run["total"], 73_712);
    assert_eq!(json(&thicket(&ledger(&local)))["total"], 73_712);
    assert_eq!(ledger_counts(&distributed), ledger_counts(&local));
    // Half the MPI ledger lost: a single process resumes it; the reverse too.
    let db = rusqlite::Connection::open(&distributed).unwrap();
    db.execute("DELETE FROM batches WHERE id % 2 = 0", [])
        .unwrap();
    assert_eq!(json(&thicket(&ledger(&distributed)))["total"], 73_712);
    let db = rusqlite::Connection::open(&local).unwrap();
    db.execute("DELETE FROM batches WHERE id > 10", []).unwrap();
    assert_eq!(json(&mpirun(2, &with_mpi(&local)))["total"], 73_712);
    assert!(
        thicket(&["verify", local.to_str().unwrap(), "--sample", "100"])
            .status
            .success()
    );
}

#[test]
#[ignore = "needs mpirun; CI runs it with --features mpi"]
fn ranks_given_different_commands_stop_the_run() {
    let output = Command::new("mpirun")
        .args([
            "--oversubscribe",
            "-n",
            "1",
            THICKET,
            "queens",
            "12",
            "--mpi",
        ])
        .args([":", "-n", "1", THICKET, "queens", "13", "--mpi"])
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("give every rank the same command"),
        "{stderr}"
    );
    // A ledger made for another N: the master refuses it and lets the workers go.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("q10.db");
    let ledger = path.to_str().unwrap();
    assert!(
        thicket(&["queens", "10", "--ledger", ledger, "--backend", "cpu"])
            .status
            .success()
    );
    let refused = mpirun(
        3,
        &[
            "queens",
            "11",
            "--mpi",
            "--ledger",
            ledger,
            "--backend",
            "cpu",
        ],
    );
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("use another ledger file"));
}

#[test]
#[ignore = "needs mpirun; CI runs it with --features mpi"]
fn an_mpi_atsp_run_proves_the_optimum_with_the_incumbent_travelling() {
    let file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../thicket-atsp/data/br17.atsp"
    );
    let run = json(&mpirun(
        3,
        &["atsp", file, "--mpi", "--threads", "1", "--json", "--quiet"],
    ));
    assert_eq!(
        (run["cost"].as_i64(), run["proven_optimal"].as_bool()),
        (Some(39), Some(true))
    );
    assert_eq!(run["backend"], "mpi");
    let dir = tempfile::tempdir().unwrap();
    let ledger = dir.path().join("br17.db");
    let ledger = ledger.to_str().unwrap();
    let args = [
        "atsp",
        file,
        "--mpi",
        "--ledger",
        ledger,
        "--threads",
        "1",
        "--json",
        "--quiet",
    ];
    let recorded = json(&mpirun(3, &args));
    assert_eq!(recorded["cost"], 39);
    let merged = json(&thicket(&["merge", ledger, "--json"]));
    assert_eq!(merged["cost"], 39);
}

/// A desk's book with ids around the contract columns: vanillas and lookbacks of both styles.
const BOOK: &str = "\
id,payoff,style,spot,strike,maturity,volatility,rate,dividend_yield,steps
B-1,call,american,42,40,0.5,0.2,0.1,0.03,200
B-2,lookback-put,american,50,,0.25,0.4,0.1,,30
B-3,lookback-call,european,50,,0.35,0.3,0.1,0.01,100
B-4,put,european,42,45,0.5,0.25,0.05,0,150
B-5,put,american,50,60,1,0.3,0.05,0.02,120
B-6,lookback-put,european,100,,1,0.2,0.03,0.01,64
B-7,call,european,100,95,2,0.35,0.04,0.02,301
";

#[test]
#[ignore = "needs mpirun; CI runs it with --features mpi"]
fn an_mpi_book_prices_what_one_process_prices_and_merges_from_its_ledger() {
    let dir = tempfile::tempdir().unwrap();
    let book = dir.path().join("book.csv");
    std::fs::write(&book, BOOK).unwrap();
    let book = book.to_str().unwrap();
    let single = printed(&thicket(&[
        "lookback",
        "--batch",
        book,
        "--backend",
        "cpu",
        "--quiet",
    ]));
    assert_eq!(single.lines().count(), 8, "{single}");
    for ranks in [2, 3] {
        let ledger = dir.path().join(format!("book{ranks}.db"));
        let ledger = ledger.to_str().unwrap();
        let args = [
            "lookback",
            "--batch",
            book,
            "--ledger",
            ledger,
            "--mpi",
            "--backend",
            "cpu",
            "--batch-size",
            "2",
            "--quiet",
        ];
        assert_eq!(printed(&mpirun(ranks, &args)), single, "{ranks} ranks");
        // Every batch is in the ledger: run again, merge it, or price it in one process.
        assert_eq!(
            printed(&mpirun(ranks, &args)),
            single,
            "{ranks} ranks, again"
        );
        assert_eq!(printed(&thicket(&["merge", ledger])), single);
        let local = [
            "lookback",
            "--batch",
            book,
            "--ledger",
            ledger,
            "--backend",
            "cpu",
            "--batch-size",
            "2",
            "--quiet",
        ];
        assert_eq!(printed(&thicket(&local)), single);
    }
}
