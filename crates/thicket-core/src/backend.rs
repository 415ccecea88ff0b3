//! Where a solver runs.

use serde::Serialize;

/// The compute backend a run asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Backend {
    /// Use the GPUs when they can be used, else fall back to the CPU (and say so on stderr).
    #[default]
    Auto,
    /// Multi-core CPU search (rayon work stealing).
    Cpu,
    /// NVIDIA GPUs through CUDA; fails with exit code 1 where none can be used.
    Cuda,
}

impl Backend {
    /// The lowercase name used on the command line and in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Auto => "auto",
            Backend::Cpu => "cpu",
            Backend::Cuda => "cuda",
        }
    }
}

impl std::fmt::Display for Backend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
