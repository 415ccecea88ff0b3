//! End-to-end checks of real books and books at scale: a desk's book with id and desk columns
//! priced to clean CSV on stdout, `thicket implied-vol --batch`, and `thicket lookback --batch
//! --ledger` resumed, sharded and merged into the same bytes as one run.

use std::path::Path;

use crate::common::{stderr, stdout, thicket};

/// A desk's book: ids and a desk column around the contract columns, in no documented order,
/// a quoted field with a comma, a dividend yield column.
const DESK_BOOK: &str = "\
id,desk,payoff,style,spot,strike,maturity,volatility,rate,dividend_yield,steps
A-1,\"rates, London\",call,american,42,40,0.5,0.2,0.1,0.03,200
A-2,exotics,lookback-put,american,50,,0.25,0.4,0.1,,3
A-3,exotics,lookback-call,european,50,,0.35,0.3,0.1,0.01,100
A-4,vol,put,european,42,45,0.5,0.25,0.05,0,150
A-5,vol,put,american,50,60,1,0.3,0.05,0.02,120
";

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_string()
}

fn run(args: &[&str]) -> String {
    let output = thicket(args);
    assert!(output.status.success(), "{args:?}: {}", stderr(&output));
    stdout(&output)
}

#[test]
fn a_desk_book_goes_to_stdout_as_clean_csv_with_its_columns_carried() {
    let dir = tempfile::tempdir().unwrap();
    let book = write(dir.path(), "desk.csv", DESK_BOOK);
    let output = thicket(&["lookback", "--batch", &book, "--backend", "cpu"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stdout(&output);
    let mut lines = text.lines();
    assert_eq!(
        lines.next().unwrap(),
        "id,desk,payoff,style,spot,strike,maturity,volatility,rate,dividend_yield,steps,price,delta,gamma,theta,vega,rho"
    );
    let rows: Vec<&str> = lines.collect();
    assert_eq!(rows.len(), 5);
    assert!(rows[0].starts_with("A-1,\"rates, London\",call,american,42,40,0.5,0.2,0.1,0.03,200,"));
    assert!(
        rows[1].starts_with("A-2,exotics,lookback-put,american,50,,0.25,0.4,0.1,,3,5.47018137613")
    );
    // The summary goes to stderr, never into the CSV.
    assert!(stderr(&output).contains("5 options"), "{}", stderr(&output));
}

#[test]
fn a_bad_row_is_one_line_naming_file_line_and_value() {
    let dir = tempfile::tempdir().unwrap();
    let book = write(
        dir.path(),
        "desk.csv",
        &DESK_BOOK.replace("0.35,0.3", "0.35,abc"),
    );
    let output = thicket(&["lookback", "--batch", &book, "--backend", "cpu"]);
    assert_eq!(output.status.code(), Some(2));
    let message = stderr(&output);
    assert_eq!(message.trim_end().lines().count(), 1, "{message}");
    assert!(
        message.contains("desk.csv:4: column volatility: \"abc\" is not a number"),
        "{message}"
    );
    assert!(stdout(&output).is_empty());
}

#[test]
fn implied_vol_batch_recovers_every_volatility_and_notes_an_unattainable_quote() {
    let dir = tempfile::tempdir().unwrap();
    let book = write(dir.path(), "desk.csv", DESK_BOOK);
    let priced = run(&["lookback", "--batch", &book, "--backend", "cpu", "--quiet"]);
    // The priced book is a quotes book: its price column in, a volatility column out.
    let mut quotes = priced.clone();
    // One quote no volatility reaches: below the put's intrinsic value (60 − 50).
    let last = quotes.trim_end().lines().last().unwrap().to_string();
    let fields: Vec<&str> = last.split(',').collect();
    let mut cheap = fields.clone();
    cheap[11] = "9";
    quotes = quotes.replace(&last, &cheap.join(","));
    let quotes_path = write(dir.path(), "quotes.csv", &quotes);
    let out = dir.path().join("implied.csv");
    let output = thicket(&[
        "implied-vol",
        "--batch",
        &quotes_path,
        "--output",
        out.to_str().unwrap(),
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        stdout(&output).contains("4 implied volatilities, 1 unattainable"),
        "{}",
        stdout(&output)
    );
    let implied = std::fs::read_to_string(&out).unwrap();
    let mut reader = csv_rows(&implied);
    let header = reader.remove(0);
    let column = |name: &str| header.iter().position(|h| h == name).unwrap();
    assert_eq!(header.last().unwrap(), "note");
    let originals = [0.2, 0.4, 0.3, 0.25, 0.3];
    for (row, want) in reader.iter().zip(originals).take(4) {
        let got: f64 = row[column("volatility")].parse().unwrap();
        assert!((got - want).abs() < 1e-8, "{row:?}");
        assert_eq!(row[column("note")], "");
    }
    assert_eq!(reader[4][column("volatility")], "");
    assert!(
        reader[4][column("note")].contains("below the lowest price"),
        "{:?}",
        reader[4]
    );
}

/// The fields of each line of a CSV text without quoted commas or quotes (the tests' books
/// quote nothing past the desk column, which these tests leave out of the comparison).
fn csv_rows(text: &str) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    for line in text.lines() {
        let mut fields = Vec::new();
        let mut field = String::new();
        let mut quoted = false;
        for c in line.chars() {
            match c {
                '"' => quoted = !quoted,
                ',' if !quoted => fields.push(std::mem::take(&mut field)),
                c => field.push(c),
            }
        }
        fields.push(field);
        rows.push(fields);
    }
    rows
}

#[test]
fn a_ledgered_book_resumes_and_its_shards_merge_into_the_same_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let book = write(dir.path(), "desk.csv", DESK_BOOK);
    let plain = run(&["lookback", "--batch", &book, "--backend", "cpu", "--quiet"]);
    let ledger = dir.path().join("whole.db");
    let ledger = ledger.to_str().unwrap();
    let flags = ["--backend", "cpu", "--quiet", "--batch-size", "2"];
    let mut whole = vec!["lookback", "--batch", &book, "--ledger", ledger];
    whole.extend(flags);
    assert_eq!(run(&whole), plain);
    // Run again: every batch is in the ledger, and the output is the same.
    assert_eq!(run(&whole), plain);
    let status = run(&["status", ledger]);
    assert!(status.contains("done       3 of 3 batches"), "{status}");
    assert!(run(&["verify", ledger]).contains("all match"));
    let mut shards = Vec::new();
    for index in 0..2 {
        let path = dir.path().join(format!("s{index}.db"));
        let shard = format!("{index}/2");
        let mut args = vec![
            "lookback",
            "--batch",
            &book,
            "--ledger",
            path.to_str().unwrap(),
        ];
        args.extend(["--shard", &shard]);
        args.extend(flags);
        let output = thicket(&args);
        assert!(output.status.success(), "{}", stderr(&output));
        let said = stdout(&output);
        assert!(
            said.starts_with(&format!("shard {shard} ")) && !said.contains("payoff"),
            "{said}"
        );
        shards.push(path.to_str().unwrap().to_string());
    }
    let merged = dir.path().join("merged.csv");
    let mut merge = vec!["merge", shards[0].as_str(), shards[1].as_str()];
    merge.extend(["--output", merged.to_str().unwrap()]);
    run(&merge);
    assert_eq!(std::fs::read_to_string(&merged).unwrap(), plain);
    assert_eq!(run(&["merge", &shards[0], &shards[1]]), plain);
    // One shard alone is not the book.
    let output = thicket(&["merge", &shards[0]]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
}

/// Issue 44: a price edited in a book's shard ledger (the batch's count and check values left
/// as they were) is refused by `merge` as a wrong answer, exit code 3, in one line naming the
/// ledger and the batch, with nothing written: no `--output` file made, an existing one left
/// byte for byte, nothing on stdout. `status` and `verify` refuse it too.
#[test]
fn a_book_ledger_with_an_edited_price_is_refused_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let book = write(dir.path(), "desk.csv", DESK_BOOK);
    let mut shards = Vec::new();
    for index in 0..2 {
        let path = dir.path().join(format!("s{index}.db"));
        let shard = format!("{index}/2");
        let path = path.to_str().unwrap().to_string();
        run(&[
            "lookback",
            "--batch",
            &book,
            "--ledger",
            &path,
            "--shard",
            &shard,
            "--backend",
            "cpu",
            "--quiet",
            "--batch-size",
            "2",
        ]);
        shards.push(path);
    }
    let db = rusqlite::Connection::open(&shards[1]).unwrap();
    let detail: String = db
        .query_row("SELECT detail FROM details WHERE id = 1", [], |r| r.get(0))
        .unwrap();
    let (price, rest) = detail.split_once(',').unwrap();
    let edited = format!("{},{rest}", price.parse::<f64>().unwrap() * 1.01);
    db.execute("UPDATE details SET detail = ?1 WHERE id = 1", [edited])
        .unwrap();
    drop(db);
    let fresh = dir.path().join("merged.csv");
    let existing = write(dir.path(), "kept.csv", "an earlier merge\n");
    for output in [fresh.to_str().unwrap(), existing.as_str(), "-"] {
        for json in [false, true] {
            let mut args = vec!["merge", &shards[0], &shards[1], "--output", output];
            if json {
                args.push("--json");
            }
            let refused = thicket(&args);
            let message = stderr(&refused);
            assert_eq!(refused.status.code(), Some(3), "{args:?}: {message}");
            assert_eq!(message.trim_end().lines().count(), 1, "{message}");
            assert!(
                message.contains(&format!(
                    "{}: batch 1: its row does not match its digest",
                    shards[1]
                )),
                "{message}"
            );
            assert!(stdout(&refused).is_empty(), "{args:?}");
        }
    }
    assert!(!fresh.exists());
    assert_eq!(
        std::fs::read_to_string(&existing).unwrap(),
        "an earlier merge\n"
    );
    for args in [vec!["status", &shards[1]], vec!["verify", &shards[1]]] {
        let refused = thicket(&args);
        assert_eq!(
            refused.status.code(),
            Some(3),
            "{args:?}: {}",
            stderr(&refused)
        );
        assert!(stderr(&refused).contains("batch 1"), "{}", stderr(&refused));
    }
}

/// A book's finished ledger copied alone to a folder nobody may write (`0555`, the file
/// `0444`) merges into the priced book, and the folder is left as it was.
#[test]
fn a_book_ledger_in_a_read_only_folder_merges() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let book = write(dir.path(), "desk.csv", DESK_BOOK);
    let made = dir.path().join("whole.db");
    let flags = ["--backend", "cpu", "--quiet", "--batch-size", "2"];
    let mut args = vec![
        "lookback",
        "--batch",
        &book,
        "--ledger",
        made.to_str().unwrap(),
    ];
    args.extend(flags);
    let plain = run(&args);
    let folder = dir.path().join("archive");
    std::fs::create_dir(&folder).unwrap();
    let copy = folder.join("whole.db");
    std::fs::copy(&made, &copy).unwrap();
    let set = |path: &Path, mode: u32| {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
    };
    set(&copy, 0o444);
    set(&folder, 0o555);
    let listing = || {
        let mut names: Vec<_> = std::fs::read_dir(&folder)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        names.sort();
        names
    };
    let before = (listing(), std::fs::read(&copy).unwrap());
    let merged = thicket(&["merge", copy.to_str().unwrap()]);
    let after = (listing(), std::fs::read(&copy).unwrap());
    set(&folder, 0o755);
    assert!(merged.status.success(), "{}", stderr(&merged));
    assert_eq!(stdout(&merged), plain);
    assert_eq!(after, before);
}

/// Issue 49: headers in any case, a bad row noted with `--on-error note` (exit 0, the summary
/// counting it), the JSON book carrying every column of the book; the default still refuses
/// the book, and a ledger refuses `--on-error note`.
#[test]
fn a_book_with_a_bad_row_is_noted_and_its_json_carries_the_columns() {
    let dir = tempfile::tempdir().unwrap();
    let shouted = DESK_BOOK
        .replacen(
            "id,desk,payoff,style,spot",
            "ID, Desk ,Payoff,STYLE,Spot",
            1,
        )
        .replace("0.35,0.3", "0.35,abc");
    let book = write(dir.path(), "desk.csv", &shouted);
    let refused = thicket(&["lookback", "--batch", &book, "--backend", "cpu"]);
    assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
    assert!(stderr(&refused).contains("desk.csv:4: column volatility: \"abc\" is not a number"));
    let output = thicket(&[
        "lookback",
        "--batch",
        &book,
        "--backend",
        "cpu",
        "--on-error",
        "note",
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("noted      1 row(s)"),
        "{}",
        stderr(&output)
    );
    // Every good row priced as the plain book prices it.
    let plain = run(&[
        "lookback",
        "--batch",
        &write(dir.path(), "p.csv", DESK_BOOK),
        "--backend",
        "cpu",
        "--quiet",
    ]);
    let noted = stdout(&output);
    let lines: Vec<&str> = noted.lines().collect();
    assert!(lines[0].starts_with("ID,Desk,Payoff,STYLE,Spot,") && lines[0].ends_with(",rho,note"));
    for (k, want) in plain.lines().enumerate().skip(1) {
        if k == 3 {
            assert!(
                lines[k]
                    .ends_with(",,,,,,,\"line 4: column volatility: \"\"abc\"\" is not a number\""),
                "{}",
                lines[k]
            );
        } else {
            assert_eq!(lines[k], format!("{want},"));
        }
    }
    let out = dir.path().join("priced.json");
    let output = thicket(&[
        "lookback",
        "--batch",
        &book,
        "--backend",
        "cpu",
        "--on-error",
        "note",
        "--output",
        out.to_str().unwrap(),
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(json["noted"], 1);
    let rows = json["priced"].as_array().unwrap();
    assert_eq!(rows.len(), 5);
    assert_eq!(rows[0]["ID"], "A-1");
    assert_eq!(rows[0]["Desk"], "rates, London");
    assert_eq!(rows[1]["price"].as_f64().unwrap(), 5.470181376133776);
    assert_eq!(rows[2]["ID"], "A-3");
    assert_eq!(rows[2]["price"], serde_json::Value::Null);
    assert!(rows[2]["note"]
        .as_str()
        .unwrap()
        .starts_with("line 4: column volatility"));
    let ledger = dir.path().join("l.db");
    let refused = thicket(&[
        "lookback",
        "--batch",
        &book,
        "--backend",
        "cpu",
        "--on-error",
        "note",
        "--ledger",
        ledger.to_str().unwrap(),
    ]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(stderr(&refused).contains("--on-error note with --ledger"));
    assert!(!ledger.exists());
}
