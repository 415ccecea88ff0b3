//! The files a command line names, checked before the run, so that every command refuses
//! them alike and before any work (or any write): an input that cannot be opened, an output
//! whose folder does not exist, an output that is a folder, a block device or a socket, a
//! ledger that is not a regular file, and a bench's `--output-dir` that is a file are bad
//! input (exit code 2), naming the file. `-` (stdin or stdout) is left alone, and so are the
//! outputs written in place (`/dev/stdout`, a character device, a FIFO: see
//! `thicket_core::output`). The readers and writers still report what only reading or writing
//! can find.

use std::path::{Path, PathBuf};

use thicket_core::{Error, Result};

use crate::cli::Command;
use crate::commands::bench::BenchProblem;
use crate::commands::graph::GraphCommand;
use crate::flags::BenchOutputArgs;
use thicket_core::{is_stdio, is_stdout, output_target, OutputTarget};

/// Checks the files `command` names, as the module says.
pub fn check(command: &Command) -> Result<()> {
    let files = Files::of(command);
    files.inputs.iter().try_for_each(|path| readable(path))?;
    files.outputs.iter().try_for_each(|path| writable(path))?;
    files.ledgers.iter().try_for_each(|path| ledger(path))?;
    files
        .made
        .iter()
        .try_for_each(|path| makeable(path, false))?;
    files
        .folders
        .iter()
        .try_for_each(|path| makeable(path, true))
}

/// The files a command names, by how it uses them.
#[derive(Default)]
struct Files<'a> {
    /// Files it reads.
    inputs: Vec<&'a Path>,
    /// Files it writes in a folder that must exist.
    outputs: Vec<&'a Path>,
    /// Ledgers it opens or creates (regular files in a folder that must exist).
    ledgers: Vec<&'a Path>,
    /// Files it writes after making their folders (a bench's outputs).
    made: Vec<&'a Path>,
    /// Folders it writes into, made if missing (a bench's `--output-dir`).
    folders: Vec<&'a Path>,
}

impl<'a> Files<'a> {
    fn of(command: &'a Command) -> Files<'a> {
        let mut files = Files::default();
        match command {
            Command::Queens(args) => files.ledgers.extend(args.ledger.as_deref()),
            Command::Atsp(args) => {
                files.inputs.extend(args.file.as_deref());
                files.outputs.extend(args.tour.as_deref());
                files.ledgers.extend(args.ledger.as_deref());
            }
            Command::Lookback(args) => files.lattice(&args.lattice),
            Command::Binomial(args) => files.lattice(&args.lattice),
            Command::Bfs(args) | Command::Sssp(args) => {
                files.inputs.push(&args.graph);
                files.outputs.extend(args.output_file.as_deref());
            }
            Command::Maxflow(args) => {
                files.inputs.extend(args.network.as_deref());
                files.outputs.extend(args.write_network.as_deref());
                files.outputs.extend(args.output_file.as_deref());
            }
            Command::Graph { command } => match command {
                GraphCommand::Gen(args) => files.outputs.push(&args.output),
                GraphCommand::Info(args) => files.inputs.push(&args.graph),
                GraphCommand::Convert(args) => {
                    files.inputs.push(&args.input);
                    files.outputs.push(&args.output);
                }
            },
            Command::Schedule(args) => {
                files.inputs.extend(args.file.as_deref());
                files.outputs.extend(args.write_etc.as_deref());
                files.outputs.extend(args.output_file.as_deref());
            }
            Command::Status(args) => files.inputs.push(&args.ledger),
            Command::Verify(args) => files.inputs.push(&args.ledger),
            Command::Merge(args) => {
                files
                    .inputs
                    .extend(args.ledgers.iter().map(PathBuf::as_path));
                files.outputs.extend(args.output_file.as_deref());
            }
            Command::ImpliedVol(args) => {
                files.inputs.extend(args.batch.as_deref());
                files.outputs.extend(args.output_file.as_deref());
            }
            Command::Bench { problem } => files.bench(problem),
            Command::PermQueens(_)
            | Command::Devices(_)
            | Command::Warmup(_)
            | Command::Completions(_) => {}
            Command::Man => {}
        }
        files
    }

    fn lattice(&mut self, args: &'a crate::commands::lattice::LatticeArgs) {
        self.inputs.extend(args.batch.as_deref());
        self.outputs.extend(args.output_file.as_deref());
        self.ledgers.extend(args.ledger.as_deref());
    }

    fn bench(&mut self, problem: &'a BenchProblem) {
        let outputs = match problem {
            BenchProblem::Queens(args) => &args.outputs,
            BenchProblem::Perm(args) => &args.outputs,
            BenchProblem::Lookback(args) => &args.outputs,
            BenchProblem::Maxflow(args) => &args.outputs,
            BenchProblem::Bfs(args) => &args.outputs,
            BenchProblem::Schedule(args) => {
                self.inputs.extend(args.braun.iter().map(PathBuf::as_path));
                &args.outputs
            }
        };
        self.bench_outputs(outputs);
    }

    fn bench_outputs(&mut self, outputs: &'a BenchOutputArgs) {
        let files = [
            &outputs.out,
            &outputs.csv,
            &outputs.json_out,
            &outputs.chart,
        ];
        self.made
            .extend(files.into_iter().flatten().map(PathBuf::as_path));
        self.folders.extend(outputs.out_dir.as_deref());
    }
}

/// An input must open for reading and be a file.
fn readable(path: &Path) -> Result<()> {
    if is_stdio(path) {
        return Ok(());
    }
    let file =
        std::fs::File::open(path).map_err(|e| refused(path, &thicket_core::os_reason(&e)))?;
    let meta = file
        .metadata()
        .map_err(|e| refused(path, &thicket_core::os_reason(&e)))?;
    if meta.is_dir() {
        return Err(refused(path, "is a directory"));
    }
    Ok(())
}

/// An output must be something thicket writes (not a folder, block device or socket); one
/// that is replaced as a file must have an existing folder.
fn writable(path: &Path) -> Result<()> {
    if output_target(path)? != OutputTarget::File {
        return Ok(());
    }
    in_a_folder(path)
}

/// A ledger is a regular file (SQLite replaces nothing, but a device or FIFO is not a
/// database) or a new one in an existing folder.
fn ledger(path: &Path) -> Result<()> {
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_dir() => Err(refused(path, "is a directory")),
        Ok(meta) if !meta.is_file() => Err(refused(
            path,
            "is not a regular file (a ledger is a SQLite file)",
        )),
        _ => in_a_folder(path),
    }
}

/// The folder of a file to be made must exist.
fn in_a_folder(path: &Path) -> Result<()> {
    let folder = folder_of(path);
    match std::fs::metadata(folder) {
        Ok(meta) if meta.is_dir() => Ok(()),
        Ok(_) => Err(refused(
            path,
            &format!("{} is not a directory", folder.display()),
        )),
        Err(e) => Err(refused(
            path,
            &format!(
                "cannot write into {}: {}",
                folder.display(),
                thicket_core::os_reason(&e)
            ),
        )),
    }
}

/// A file (`folder` false) or folder (`folder` true) that is made with its missing folders:
/// it must not be the other kind, and the nearest existing folder above it must be a folder.
/// A file may be a device or FIFO (written in place), but not stdout, which the bench's
/// table takes.
fn makeable(path: &Path, folder: bool) -> Result<()> {
    if !folder {
        if is_stdout(path) {
            return Err(refused(
                path,
                "a bench prints its table on stdout already: give a file",
            ));
        }
        if output_target(path)? != OutputTarget::File {
            return Ok(());
        }
    }
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_dir() && !folder => return Err(refused(path, "is a directory")),
        Ok(meta) if !meta.is_dir() && folder => {
            return Err(refused(path, "is a file, not a directory"))
        }
        Ok(_) => return Ok(()),
        Err(_) => {}
    }
    let existing = path
        .ancestors()
        .skip(1)
        .map(|p| {
            if p.as_os_str().is_empty() {
                Path::new(".")
            } else {
                p
            }
        })
        .find(|p| std::fs::symlink_metadata(p).is_ok());
    match existing {
        Some(above) if !above.is_dir() => Err(refused(
            path,
            &format!("{} is not a directory", above.display()),
        )),
        _ => Ok(()),
    }
}

/// The folder a file is written into (`.` for a bare name).
fn folder_of(path: &Path) -> &Path {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    }
}

/// A refused file: bad input, naming it.
fn refused(path: &Path, why: &str) -> Error {
    Error::InvalidInput(format!("{}: {why}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_are_refused_by_what_they_are() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.txt");
        std::fs::write(&file, "x").unwrap();
        let missing = dir.path().join("nope").join("out.csv");
        assert!(readable(&file).is_ok());
        assert!(readable(Path::new("-")).is_ok());
        let error = readable(&dir.path().join("gone.gr")).unwrap_err();
        assert_eq!(error.exit_code(), 2);
        assert!(error
            .message()
            .ends_with("gone.gr: No such file or directory"));
        assert!(readable(dir.path())
            .unwrap_err()
            .message()
            .ends_with("is a directory"));
        assert!(writable(&file).is_ok());
        assert!(writable(dir.path()).is_err());
        assert!(writable(&missing)
            .unwrap_err()
            .message()
            .contains("cannot write into"));
        assert!(writable(&file.join("b.csv"))
            .unwrap_err()
            .message()
            .contains("not a directory"));
        assert!(makeable(&missing, false).is_ok());
        assert!(makeable(&file, true)
            .unwrap_err()
            .message()
            .contains("is a file"));
        assert!(makeable(&file.join("sub").join("c.md"), false).is_err());
        assert!(makeable(Path::new("c.md"), false).is_ok());
    }
}
