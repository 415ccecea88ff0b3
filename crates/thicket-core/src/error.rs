//! The one error type that surfaces from every solver, and the exit code each kind maps to.

/// Result alias used across thicket.
pub type Result<T> = std::result::Result<T, Error>;

/// Everything that can stop a thicket run, each with a one-line message.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The input is not acceptable (out of range, malformed); exit code 2.
    #[error("invalid input: {0}")]
    InvalidInput(String),
    /// The requested backend cannot run here (no GPU, no driver, no NVRTC); exit code 1.
    #[error("backend unavailable: {0}")]
    Unavailable(String),
    /// A GPU operation failed while running; exit code 1.
    #[error("GPU error: {0}")]
    Gpu(String),
    /// The instance is valid but too large for the device or strategy asked for (a graph
    /// beyond a GPU's memory, a lattice beyond a kernel's tile); exit code 1. Benchmarks skip
    /// such a case instead of failing.
    #[error("too large: {0}")]
    TooLarge(String),
    /// A count or cost left the range of its integer type; exit code 1.
    #[error("arithmetic overflow: {0}")]
    Overflow(String),
    /// A verification found a wrong answer (a result that differs from its independent
    /// reference, a corrupt record); exit code 3.
    #[error("verification failed: {0}")]
    Verification(String),
    /// The run ledger could not be read or written; exit code 1.
    #[error("ledger error: {0}")]
    Ledger(String),
    /// The caller asked the run to stop ([`crate::StopFlag`]) before it finished; exit
    /// code 1.
    #[error("interrupted: {0}")]
    Interrupted(String),
    /// Reading or writing a file failed; exit code 1.
    #[error("I/O error: {0}")]
    Io(#[from] std::io::Error),
}

impl Error {
    /// The process exit code for this error: 2 for bad input, 3 for a verification that
    /// found a wrong answer, 1 for a run that failed (everything else).
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::InvalidInput(_) => 2,
            Error::Verification(_) => 3,
            _ => 1,
        }
    }

    /// The error's kind as a short name (`invalid`, `unavailable`, `gpu`, `too-large`, `overflow`,
    /// `verification`, `ledger`, `interrupted`, `io`), so that errors can cross a process boundary (MPI)
    /// with [`Error::from_kind`].
    pub fn kind(&self) -> &'static str {
        match self {
            Error::InvalidInput(_) => "invalid",
            Error::Unavailable(_) => "unavailable",
            Error::Gpu(_) => "gpu",
            Error::TooLarge(_) => "too-large",
            Error::Overflow(_) => "overflow",
            Error::Verification(_) => "verification",
            Error::Ledger(_) => "ledger",
            Error::Interrupted(_) => "interrupted",
            Error::Io(_) => "io",
        }
    }

    /// The message without the kind's prefix.
    pub fn message(&self) -> String {
        match self {
            Error::InvalidInput(m)
            | Error::Unavailable(m)
            | Error::Gpu(m)
            | Error::TooLarge(m)
            | Error::Overflow(m)
            | Error::Verification(m)
            | Error::Ledger(m)
            | Error::Interrupted(m) => m.clone(),
            Error::Io(e) => e.to_string(),
        }
    }

    /// The error of kind `kind` (see [`Error::kind`]) with `message`; an unknown kind is a
    /// verification failure (something sent what this version cannot read).
    pub fn from_kind(kind: &str, message: String) -> Error {
        match kind {
            "invalid" => Error::InvalidInput(message),
            "unavailable" => Error::Unavailable(message),
            "gpu" => Error::Gpu(message),
            "too-large" => Error::TooLarge(message),
            "overflow" => Error::Overflow(message),
            "ledger" => Error::Ledger(message),
            "interrupted" => Error::Interrupted(message),
            "io" => Error::Io(std::io::Error::other(message)),
            _ => Error::Verification(message),
        }
    }

    /// An I/O error on `path`, the path named in its message ("ftv33.atsp: No such file or
    /// directory").
    pub fn file(path: &std::path::Path, error: std::io::Error) -> Error {
        Error::Io(std::io::Error::new(
            error.kind(),
            format!("{}: {error}", path.display()),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_input_exits_with_two_and_the_rest_with_one() {
        assert_eq!(Error::InvalidInput("n".into()).exit_code(), 2);
        assert_eq!(Error::Unavailable("no gpu".into()).exit_code(), 1);
        assert_eq!(Error::Overflow("sum".into()).exit_code(), 1);
        assert_eq!(Error::Verification("wrong count".into()).exit_code(), 3);
    }
}
