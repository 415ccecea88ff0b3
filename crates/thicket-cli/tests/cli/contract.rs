//! The contract every command keeps when it refuses what it was given: a bad flag, a missing
//! input file, a malformed one, an output into a missing folder or onto a file it must not
//! replace. Each case runs in a fresh folder and checks the exit code, one stderr line naming
//! the culprit (clap's rendering of a bad command line: its first line names it), no panic
//! text, nothing on stdout, and every file that was there before byte-identical after.

#[cfg(unix)]
mod outputs;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A malformed file of every format (no reader takes it).
const MALFORMED: &str = "this is not it\n";
/// The content of the file an output must not replace.
const PRECIOUS: &str = "precious\n";

/// One refused command line.
struct Case {
    /// The arguments (`{data}` is the repository's data folder of a crate).
    args: &'static [&'static str],
    /// The exit code it must end with.
    code: i32,
    /// What its one stderr line must name.
    culprit: &'static str,
}

const fn case(args: &'static [&'static str], code: i32, culprit: &'static str) -> Case {
    Case {
        args,
        code,
        culprit,
    }
}

/// Every command and subcommand, with each way its files can be wrong.
const CASES: &[Case] = &[
    // Bad flags (clap: exit 2).
    case(&["queens", "8", "--bogus"], 2, "--bogus"),
    case(&["perm-queens", "40"], 2, "40"),
    case(&["atsp", "bad.atsp", "--bogus"], 2, "--bogus"),
    case(&["lookback", "--batch", "bad.csv", "--bogus"], 2, "--bogus"),
    case(&["binomial", "--batch", "bad.csv", "--bogus"], 2, "--bogus"),
    case(&["bfs", "bad.gr", "--source", "0", "--bogus"], 2, "--bogus"),
    case(
        &["sssp", "bad.gr", "--source", "0", "--bogus"],
        2,
        "--bogus",
    ),
    case(&["maxflow", "--generate", "nonsense"], 2, "nonsense"),
    case(
        &["graph", "gen", "kron", "--bogus", "-o", "g.gr"],
        2,
        "--bogus",
    ),
    case(&["graph", "info", "bad.gr", "--bogus"], 2, "--bogus"),
    case(&["schedule", "bad.etc", "--bogus"], 2, "--bogus"),
    case(&["status", "bad.db", "--bogus"], 2, "--bogus"),
    case(&["verify", "bad.db", "--sample", "0"], 2, "--sample"),
    case(&["merge", "bad.db", "--bogus"], 2, "--bogus"),
    case(&["devices", "--bogus"], 2, "--bogus"),
    case(&["warmup", "--bogus"], 2, "--bogus"),
    case(&["completions", "nosh"], 2, "nosh"),
    case(&["man", "--bogus"], 2, "--bogus"),
    case(&["bench", "nothing"], 2, "nothing"),
    // lookback's --output needs --batch, and --batch prices no single option.
    case(
        &[
            "lookback",
            "--spot",
            "1",
            "--maturity",
            "1",
            "--volatility",
            "0.3",
            "--rate",
            "0.1",
            "--steps",
            "10",
            "--output",
            "out.csv",
        ],
        2,
        "--output",
    ),
    case(
        &["lookback", "--batch", "bad.csv", "--spot", "1"],
        2,
        "--spot",
    ),
    // Every bench's time caps: finite and above 0.
    case(
        &[
            "bench",
            "queens",
            "--strategies",
            "naive",
            "--max-seconds=-1",
        ],
        2,
        "-1",
    ),
    case(&["bench", "perm", "--max-seconds=nan"], 2, "nan"),
    case(&["bench", "perm", "--cpu-max-seconds=0"], 2, "0"),
    case(&["bench", "lookback", "--max-seconds=-1"], 2, "-1"),
    case(&["bench", "maxflow", "--max-seconds=inf"], 2, "inf"),
    case(&["bench", "bfs", "--max-seconds=-1"], 2, "-1"),
    case(&["bench", "schedule", "--time-limit=nan"], 2, "nan"),
    // A missing input file: bad input (2), named.
    case(&["atsp", "gone.atsp"], 2, "gone.atsp"),
    case(&["lookback", "--batch", "gone.csv"], 2, "gone.csv"),
    case(&["binomial", "--batch", "gone.csv"], 2, "gone.csv"),
    case(&["bfs", "gone.gr", "--source", "0"], 2, "gone.gr"),
    case(&["sssp", "gone.gr", "--source", "0"], 2, "gone.gr"),
    case(&["maxflow", "gone.max"], 2, "gone.max"),
    case(&["graph", "info", "gone.gr"], 2, "gone.gr"),
    case(&["schedule", "gone.etc"], 2, "gone.etc"),
    case(&["status", "gone.db"], 2, "gone.db"),
    case(&["verify", "gone.db"], 2, "gone.db"),
    case(&["merge", "bad.db", "gone.db"], 2, "gone.db"),
    case(&["bench", "schedule", "--braun", "gone.etc"], 2, "gone.etc"),
    // A folder given as an input file.
    case(&["bfs", "folder", "--source", "0"], 2, "folder"),
    // A malformed input file: bad input (2), named.
    case(&["atsp", "bad.atsp"], 2, "bad.atsp"),
    case(&["lookback", "--batch", "bad.csv"], 2, "bad.csv"),
    case(&["binomial", "--batch", "bad.csv"], 2, "bad.csv"),
    case(&["bfs", "bad.gr", "--source", "0"], 2, "bad.gr"),
    case(&["sssp", "bad.gr", "--source", "0"], 2, "bad.gr"),
    case(&["maxflow", "bad.max"], 2, "bad.max"),
    case(&["graph", "info", "bad.gr"], 2, "bad.gr"),
    case(&["schedule", "bad.etc"], 2, "bad.etc"),
    case(&["status", "bad.db"], 2, "bad.db"),
    case(&["verify", "bad.db"], 2, "bad.db"),
    case(&["merge", "bad.db"], 2, "bad.db"),
    case(
        &["queens", "8", "--backend", "cpu", "--ledger", "bad.db"],
        2,
        "bad.db",
    ),
    // An output into a missing folder: refused before the run (2), named.
    case(
        &["queens", "8", "--backend", "cpu", "--ledger", "nodir/l.db"],
        2,
        "nodir/l.db",
    ),
    case(
        &["atsp", "{atsp}/br17.atsp", "--ledger", "nodir/l.db"],
        2,
        "nodir/l.db",
    ),
    case(
        &[
            "lookback",
            "--batch",
            "{lattice}/lookback-small-n.csv",
            "-o",
            "nodir/p.csv",
        ],
        2,
        "nodir/p.csv",
    ),
    case(
        &[
            "bfs",
            "{graph}/gapbs-4.gr",
            "--source",
            "0",
            "-o",
            "nodir/d.txt",
        ],
        2,
        "nodir/d.txt",
    ),
    case(
        &[
            "sssp",
            "{graph}/gapbs-4.gr",
            "--source",
            "0",
            "-o",
            "nodir/d.txt",
        ],
        2,
        "nodir/d.txt",
    ),
    case(
        &["maxflow", "{flow}/m10.max", "-o", "nodir/f.txt"],
        2,
        "nodir/f.txt",
    ),
    case(
        &["maxflow", "{flow}/m10.max", "--write", "nodir/n.max"],
        2,
        "nodir/n.max",
    ),
    case(
        &[
            "graph",
            "gen",
            "grid",
            "--rows",
            "2",
            "--cols",
            "2",
            "-o",
            "nodir/g.gr",
        ],
        2,
        "nodir/g.gr",
    ),
    case(
        &[
            "schedule",
            "--generate",
            "u_c_hihi:4x2",
            "-o",
            "nodir/a.txt",
        ],
        2,
        "nodir/a.txt",
    ),
    case(
        &[
            "schedule",
            "--generate",
            "u_c_hihi:4x2",
            "--write-etc",
            "nodir/a.etc",
        ],
        2,
        "nodir/a.etc",
    ),
    // A bench makes missing folders, but not through a file.
    case(
        &["bench", "perm", "--output", "afile/x.md"],
        2,
        "afile/x.md",
    ),
    case(
        &["bench", "queens", "--output-csv", "afile/x.csv"],
        2,
        "afile/x.csv",
    ),
    // --output-dir that is a file, for every bench: refused before the run.
    case(&["bench", "queens", "--output-dir", "afile"], 2, "afile"),
    case(&["bench", "perm", "--output-dir", "afile"], 2, "afile"),
    case(&["bench", "lookback", "--output-dir", "afile"], 2, "afile"),
    case(&["bench", "maxflow", "--output-dir", "afile"], 2, "afile"),
    case(&["bench", "bfs", "--output-dir", "afile"], 2, "afile"),
    case(&["bench", "schedule", "--output-dir", "afile"], 2, "afile"),
    // An output that is a folder.
    case(
        &[
            "graph", "gen", "grid", "--rows", "2", "--cols", "2", "-o", "folder",
        ],
        2,
        "folder",
    ),
    // An output onto an existing file, in a run that fails: the file stays as it was.
    case(
        &["lookback", "--batch", "bad.csv", "-o", "existing.csv"],
        2,
        "bad.csv",
    ),
    case(
        &["bfs", "bad.gr", "--source", "0", "-o", "existing.csv"],
        2,
        "bad.gr",
    ),
    case(
        &["sssp", "bad.gr", "--source", "0", "-o", "existing.csv"],
        2,
        "bad.gr",
    ),
    case(&["maxflow", "bad.max", "-o", "existing.csv"], 2, "bad.max"),
    case(
        &[
            "maxflow",
            "--generate",
            "random:0:12:10:1",
            "--write",
            "existing.csv",
        ],
        2,
        "0 vertices",
    ),
    case(
        &["graph", "gen", "kron", "--scale", "99", "-o", "existing.gr"],
        2,
        "99",
    ),
    case(&["schedule", "bad.etc", "-o", "existing.csv"], 2, "bad.etc"),
    case(
        &[
            "queens",
            "8",
            "--backend",
            "cpu",
            "--ledger",
            "existing.csv",
        ],
        2,
        "existing.csv",
    ),
    case(
        &["atsp", "bad.atsp", "--ledger", "existing.csv"],
        2,
        "bad.atsp",
    ),
];

#[test]
fn every_command_refuses_cleanly_and_touches_nothing() {
    let mut failures = Vec::new();
    for case in CASES {
        if let Err(why) = check(case) {
            failures.push(format!("thicket {}: {why}", case.args.join(" ")));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Runs `case` in a fresh folder and says what it broke.
fn check(case: &Case) -> Result<(), String> {
    let dir = tempfile::tempdir().unwrap();
    prepare(dir.path());
    let before = snapshot(dir.path());
    let args: Vec<String> = case.args.iter().map(|a| with_data(a)).collect();
    let output = run_in(dir.path(), &args);
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    let after = snapshot(dir.path());
    let first = stderr.lines().next().unwrap_or_default();
    let parse_error = first.starts_with("error: ");
    if output.status.code() != Some(case.code) {
        return Err(format!(
            "exit {:?}, not {}: {stderr}",
            output.status.code(),
            case.code
        ));
    }
    if stderr.contains("panicked") || stderr.contains("RUST_BACKTRACE") {
        return Err(format!("panic text: {stderr}"));
    }
    if !parse_error && (!first.starts_with("thicket: ") || stderr.lines().count() != 1) {
        return Err(format!("not one `thicket: ` line: {stderr:?}"));
    }
    if !first.contains(case.culprit) {
        return Err(format!("{first:?} does not name {:?}", case.culprit));
    }
    if !output.stdout.is_empty() {
        return Err(format!(
            "stdout: {}",
            String::from_utf8_lossy(&output.stdout)
        ));
    }
    if before != after {
        return Err(format!("the folder changed: {before:?} -> {after:?}"));
    }
    Ok(())
}

/// The files every case starts with: a malformed file of every format, a file an output must
/// not replace, a plain file where a folder is expected, and a folder.
fn prepare(dir: &Path) {
    for name in [
        "bad.atsp", "bad.csv", "bad.gr", "bad.max", "bad.etc", "bad.db",
    ] {
        std::fs::write(dir.join(name), MALFORMED).unwrap();
    }
    std::fs::write(dir.join("existing.csv"), PRECIOUS).unwrap();
    std::fs::write(dir.join("existing.gr"), PRECIOUS).unwrap();
    std::fs::write(dir.join("afile"), PRECIOUS).unwrap();
    std::fs::create_dir(dir.join("folder")).unwrap();
}

/// Every path under `dir` with its bytes (folders as empty, anything else as its kind).
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut files = BTreeMap::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(folder) = pending.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            let name = path.strip_prefix(dir).unwrap().to_path_buf();
            let kind = std::fs::symlink_metadata(&path).unwrap().file_type();
            if kind.is_dir() {
                pending.push(path);
                files.insert(name, Vec::new());
            } else if kind.is_file() {
                files.insert(name, std::fs::read(&path).unwrap());
            } else {
                // A link, device or FIFO is not read (a FIFO would wait, a device never
                // end): its kind stands for it.
                files.insert(name, format!("{kind:?}").into_bytes());
            }
        }
    }
    files
}

/// `arg` with `{atsp}`, `{flow}`, `{graph}` and `{lattice}` replaced by those crates' data
/// folders (the shipped sample files).
fn with_data(arg: &str) -> String {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let mut arg = arg.to_string();
    for name in ["atsp", "flow", "graph", "lattice"] {
        let data = crates.join(format!("thicket-{name}")).join("data");
        arg = arg.replace(&format!("{{{name}}}"), &data.display().to_string());
    }
    arg
}

/// Runs thicket in `dir` with `args`, its stdin empty.
fn run_in(dir: &Path, args: &[String]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_thicket"))
        .args(args)
        .current_dir(dir)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("the thicket binary runs")
}

/// A print that fails (stdout on a full disk) is one line and exit code 1, not a panic.
#[test]
fn a_failed_print_is_one_line_and_exit_code_one() {
    let full = Path::new("/dev/full");
    if !full.exists() {
        println!("NOTE: no /dev/full here, so a failed print was not tested");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("bad.db"), MALFORMED).unwrap();
    for args in [
        &["devices"][..],
        &["devices", "--json"],
        &["man"],
        &["completions", "bash"],
        &["--help"],
        &["--version"],
        &["lookback", "--help"],
    ] {
        let output = Command::new(env!("CARGO_BIN_EXE_thicket"))
            .args(args)
            .current_dir(dir.path())
            .stdout(std::fs::File::create(full).unwrap())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{args:?}: {stderr}");
        assert_eq!(
            stderr, "thicket: cannot write to standard output: No space left on device\n",
            "{args:?}"
        );
    }
}
