//! Every output of every command against every kind of path (docs/reliability.md, "The
//! output rule"): a regular file is replaced whole, a symbolic link's target is replaced and
//! the link kept, a folder or a missing folder is refused before the run (exit 2), a
//! character device or a FIFO is written in place and stays what it was (a full device is
//! exit 1), `-` and `/dev/stdout` are standard output. Device nodes are made with mknod in
//! the case's own folder (never the machine's /dev files), so those cases need root and are
//! skipped without it.

use std::io::Read;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use super::{run_in, snapshot, with_data, PRECIOUS};

/// Where a case's output path goes in its arguments.
const OUT: &str = "OUT";

/// Every output flag of every command, in a command line that succeeds (`OUT` the output).
const OUTPUTS: &[&[&str]] = &[
    &["atsp", "{atsp}/br17.atsp", "--tour", OUT],
    &["lookback", "--batch", "{lattice}/book.csv", "-o", OUT],
    &["binomial", "--batch", "{lattice}/book.csv", "-o", OUT],
    &["implied-vol", "--batch", "quotes.csv", "-o", OUT],
    &["bfs", "{graph}/gapbs-4.gr", "--source", "1", "-o", OUT],
    &["sssp", "{graph}/gapbs-4.gr", "--source", "1", "-o", OUT],
    &["maxflow", "{flow}/m10.max", "-o", OUT],
    &["maxflow", "{flow}/m10.max", "--write", OUT],
    &[
        "graph", "gen", "grid", "--rows", "2", "--cols", "2", "--format", "gr", "-o", OUT,
    ],
    &["graph", "convert", "{graph}/gapbs-4.gr", OUT, "--to", "gr"],
    &["schedule", "--generate", "u_c_hihi:4x2", "-o", OUT],
    &["schedule", "--generate", "u_c_hihi:4x2", "--write-etc", OUT],
    &["merge", "book.db", "-o", OUT],
    &[
        "bench",
        "queens",
        "--n",
        "8",
        "--threads",
        "1",
        "--trials",
        "1",
        "--no-baseline",
        "-o",
        OUT,
    ],
    &[
        "bench",
        "queens",
        "--n",
        "8",
        "--threads",
        "1",
        "--trials",
        "1",
        "--no-baseline",
        "--output-csv",
        OUT,
    ],
    &[
        "bench",
        "queens",
        "--n",
        "8",
        "--threads",
        "1",
        "--trials",
        "1",
        "--no-baseline",
        "--output-json",
        OUT,
    ],
    &[
        "bench",
        "queens",
        "--n",
        "8,9",
        "--threads",
        "1",
        "--trials",
        "1",
        "--no-baseline",
        "--output-chart",
        OUT,
    ],
];

/// The ledger flags: a ledger is a regular file, so a device or FIFO is refused.
const LEDGERS: &[&[&str]] = &[
    &["queens", "8", "--backend", "cpu", "--ledger", OUT],
    &["atsp", "{atsp}/br17.atsp", "--ledger", OUT],
    &["lookback", "--batch", "{lattice}/book.csv", "--ledger", OUT],
];

/// A kind of path an output can name.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Regular,
    Symlink,
    Folder,
    MissingFolder,
    NullDevice,
    FullDevice,
    Fifo,
    Dash,
    DevStdout,
}

const KINDS: [Kind; 9] = [
    Kind::Regular,
    Kind::Symlink,
    Kind::Folder,
    Kind::MissingFolder,
    Kind::NullDevice,
    Kind::FullDevice,
    Kind::Fifo,
    Kind::Dash,
    Kind::DevStdout,
];

/// The quotes book of `implied-vol` (a priced lookback put, its price as the quote).
const QUOTES: &str = "payoff,style,spot,strike,maturity,rate,steps,price\n\
                      lookback-put,american,50,,0.25,0.1,3,5.470181376133776\n";

#[test]
fn every_output_is_written_as_its_path_asks() {
    let (_kept, ledger) = book_ledger();
    let root = is_root();
    if !root {
        println!("NOTE: not root, so the device-node cases were skipped");
    }
    let mut failures = Vec::new();
    for args in OUTPUTS {
        let mut on_stdout = Vec::new();
        for kind in KINDS {
            if matches!(kind, Kind::NullDevice | Kind::FullDevice) && !root {
                continue;
            }
            match check_output(args, kind, &ledger) {
                Err(why) => failures.push(format!("thicket {} [{kind:?}]: {why}", args.join(" "))),
                Ok(stdout) if matches!(kind, Kind::Dash | Kind::DevStdout) => {
                    on_stdout.push(stdout)
                }
                Ok(_) => {}
            }
        }
        // `/dev/stdout` is `-`: the same bytes, once (a bench's table has its times).
        if args[0] != "bench" && on_stdout.len() == 2 && on_stdout[0] != on_stdout[1] {
            failures.push(format!(
                "thicket {}: -/dev/stdout differ: {:?} / {:?}",
                args.join(" "),
                String::from_utf8_lossy(&on_stdout[0]),
                String::from_utf8_lossy(&on_stdout[1])
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn a_ledger_is_a_regular_file_or_refused_before_the_run() {
    let mut failures = Vec::new();
    for args in LEDGERS {
        for kind in [
            Kind::Folder,
            Kind::MissingFolder,
            Kind::Fifo,
            Kind::NullDevice,
        ] {
            if kind == Kind::NullDevice && !is_root() {
                continue;
            }
            let dir = tempfile::tempdir().unwrap();
            let out = make(dir.path(), kind);
            let before = snapshot(dir.path());
            let output = run_in(dir.path(), &arguments(args, &out));
            let why = refused(&output, &out).and_then(|()| {
                match snapshot(dir.path()) == before && still(dir.path(), kind) {
                    true => Ok(()),
                    false => Err("the folder changed".into()),
                }
            });
            if let Err(why) = why {
                failures.push(format!("thicket {} [{kind:?}]: {why}", args.join(" ")));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Runs `args` with its output on a path of `kind` in a fresh folder and says what it broke,
/// or returns what it printed on stdout.
fn check_output(args: &[&str], kind: Kind, ledger: &Path) -> Result<Vec<u8>, String> {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("quotes.csv"), QUOTES).unwrap();
    std::fs::copy(ledger, dir.path().join("book.db")).unwrap();
    let out = make(dir.path(), kind);
    let args = arguments(args, &out);
    let before = snapshot(dir.path());
    let output = match kind {
        Kind::Fifo => run_with_reader(dir.path(), &args, &dir.path().join(&out))?,
        _ => run_in(dir.path(), &args),
    };
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    if stderr.contains("panicked") {
        return Err(format!("panic text: {stderr}"));
    }
    // A bench makes its outputs' missing folders, and leaves stdout to its table.
    let bench = args[0] == "bench";
    match kind {
        Kind::MissingFolder if bench => {
            let made = dir.path().join(&out);
            if !output.status.success() || std::fs::read(made).is_err() {
                return Err(format!("exit {:?}: {stderr}", output.status.code()));
            }
            return Ok(output.stdout);
        }
        Kind::Dash | Kind::DevStdout if bench => {
            return refused(&output, &out).map(|()| output.stdout);
        }
        Kind::Folder | Kind::MissingFolder => {
            refused(&output, &out)?;
            if snapshot(dir.path()) != before {
                return Err("the folder changed".into());
            }
        }
        Kind::FullDevice => {
            if output.status.code() != Some(1) || !stderr.contains("No space left on device") {
                return Err(format!("exit {:?}: {stderr}", output.status.code()));
            }
        }
        _ => {
            if !output.status.success() {
                return Err(format!("exit {:?}: {stderr}", output.status.code()));
            }
        }
    }
    if !still(dir.path(), kind) {
        return Err(format!("{out} is no longer what it was"));
    }
    let written = match kind {
        Kind::Regular => std::fs::read(dir.path().join("out.txt")).unwrap(),
        Kind::Symlink => std::fs::read(dir.path().join("real.txt")).unwrap(),
        Kind::Dash | Kind::DevStdout => output.stdout.clone(),
        _ => return Ok(output.stdout),
    };
    if written.is_empty() || written == PRECIOUS.as_bytes() {
        return Err(format!("nothing written ({kind:?}): {stderr}"));
    }
    Ok(output.stdout)
}

/// `args` with `OUT` replaced by `out` and the data folders filled in.
fn arguments(args: &[&str], out: &str) -> Vec<String> {
    args.iter()
        .map(|a| match *a {
            OUT => out.to_string(),
            a => with_data(a),
        })
        .collect()
}

/// Makes a path of `kind` in `dir` and returns how the command line names it.
fn make(dir: &Path, kind: Kind) -> String {
    match kind {
        Kind::Regular => {
            std::fs::write(dir.join("out.txt"), PRECIOUS).unwrap();
            "out.txt".into()
        }
        Kind::Symlink => {
            std::fs::write(dir.join("real.txt"), PRECIOUS).unwrap();
            std::os::unix::fs::symlink("real.txt", dir.join("link.txt")).unwrap();
            "link.txt".into()
        }
        Kind::Folder => {
            std::fs::create_dir(dir.join("folder")).unwrap();
            "folder".into()
        }
        Kind::MissingFolder => "nodir/out.txt".into(),
        Kind::NullDevice => mknod(dir, "null", "3"),
        Kind::FullDevice => mknod(dir, "full", "7"),
        Kind::Fifo => {
            let made = Command::new("mkfifo").arg(dir.join("fifo")).status();
            assert!(made.unwrap().success());
            "fifo".into()
        }
        Kind::Dash => "-".into(),
        Kind::DevStdout => "/dev/stdout".into(),
    }
}

/// Makes the character device 1:`minor` (null, full) named `name` in `dir`.
fn mknod(dir: &Path, name: &str, minor: &str) -> String {
    let made = Command::new("mknod")
        .arg(dir.join(name))
        .args(["c", "1", minor])
        .status();
    assert!(made.unwrap().success(), "mknod {name}");
    name.into()
}

/// Whether the path a case made is still of its kind.
fn still(dir: &Path, kind: Kind) -> bool {
    let kind_of = |name: &str| std::fs::symlink_metadata(dir.join(name)).map(|m| m.file_type());
    match kind {
        Kind::Regular => kind_of("out.txt").is_ok_and(|t| t.is_file()),
        Kind::Symlink => kind_of("link.txt").is_ok_and(|t| t.is_symlink()),
        Kind::Folder => kind_of("folder").is_ok_and(|t| t.is_dir()),
        Kind::MissingFolder => kind_of("nodir").is_err(),
        Kind::NullDevice => kind_of("null").is_ok_and(|t| t.is_char_device()),
        Kind::FullDevice => kind_of("full").is_ok_and(|t| t.is_char_device()),
        Kind::Fifo => kind_of("fifo").is_ok_and(|t| t.is_fifo()),
        Kind::Dash | Kind::DevStdout => true,
    }
}

/// Exit 2 before the run with one line naming `out`, nothing on stdout.
fn refused(output: &Output, out: &str) -> Result<(), String> {
    let stderr = String::from_utf8_lossy(&output.stderr);
    let first = stderr.lines().next().unwrap_or_default();
    match output.status.code() == Some(2)
        && stderr.lines().count() == 1
        && first.contains(out)
        && output.stdout.is_empty()
    {
        true => Ok(()),
        false => Err(format!("exit {:?}: {stderr}", output.status.code())),
    }
}

/// Runs thicket with a reader on the FIFO `fifo`, and checks that the reader got bytes. A
/// run that never opens the FIFO would leave the reader waiting: the test opens it for
/// writing itself once thicket has ended, which ends the reader.
fn run_with_reader(dir: &Path, args: &[String], fifo: &Path) -> Result<Output, String> {
    let reader = {
        let fifo = fifo.to_path_buf();
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            std::fs::File::open(fifo)
                .and_then(|mut f| f.read_to_end(&mut bytes))
                .map(|_| bytes)
        })
    };
    let output = run_in(dir, args);
    // Where the run never opened the FIFO, the reader waits in its open: a writer's open
    // unblocks it and closing at once ends its read. The open must not block itself (the
    // reader may have read the run's bytes and be ending, or not have reached its open yet:
    // a blocking open then waited forever), so it is tried without blocking until the reader
    // is done.
    while !reader.is_finished() {
        let _ = std::fs::OpenOptions::new()
            .write(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(fifo);
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let read = reader.join().unwrap().map_err(|e| e.to_string())?;
    if output.status.success() && read.is_empty() {
        return Err("the FIFO's reader got nothing".into());
    }
    Ok(output)
}

/// A finished book ledger to merge, made once (in the folder returned beside it).
fn book_ledger() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let ledger = dir.path().join("book.db");
    let priced = dir.path().join("priced.csv");
    let output = Command::new(env!("CARGO_BIN_EXE_thicket"))
        .args(["lookback", "--batch", &with_data("{lattice}/book.csv")])
        .args(["--ledger", ledger.to_str().unwrap(), "-q"])
        .args(["-o", priced.to_str().unwrap()])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    (dir, ledger)
}

/// Whether this process may make device nodes.
fn is_root() -> bool {
    let made = tempfile::tempdir().unwrap();
    Command::new("mknod")
        .arg(made.path().join("probe"))
        .args(["c", "1", "3"])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}
