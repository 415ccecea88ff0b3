//! Records the git commit the binary is built from for `thicket --version`: the short hash,
//! or `unknown` where there is no git repository (a source tarball) or no git.

use std::path::Path;
use std::process::Command;

fn main() {
    let hash = git(&["rev-parse", "--short=12", "HEAD"]).unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=THICKET_GIT_HASH={hash}");
    // Rebuilt when the checked-out commit changes: HEAD moves on a checkout, and the
    // worktree's reflog of HEAD grows on every commit (a worktree keeps both apart from the
    // repository's shared refs, so `git rev-parse --git-path` finds the right files).
    for file in ["HEAD", "logs/HEAD"] {
        if let Some(path) = git(&["rev-parse", "--git-path", file]) {
            if Path::new(&path).exists() {
                println!("cargo:rerun-if-changed={path}");
            }
        }
    }
    println!("cargo:rerun-if-changed=build.rs");
}

/// The trimmed output of a successful git command run in this crate's directory.
fn git(args: &[&str]) -> Option<String> {
    let output = Command::new("git").args(args).output().ok()?;
    let text = String::from_utf8(output.stdout).ok()?;
    let text = text.trim();
    (output.status.success() && !text.is_empty()).then(|| text.to_owned())
}
