//! Where a solver runs.

use serde::Serialize;

/// The compute backend a run asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Backend {
    /// Use the GPUs when they can be used, else fall back to the CPU (and say so in the
    /// run's notes).
    #[default]
    Auto,
    /// Multi-core CPU search (rayon work stealing).
    Cpu,
    /// NVIDIA GPUs through CUDA; fails with exit code 1 where none can be used.
    Cuda,
}

impl Backend {
    /// Every backend, in the order the command line lists them.
    pub const ALL: [Backend; 3] = [Backend::Auto, Backend::Cpu, Backend::Cuda];

    /// The lowercase name used on the command line and in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Auto => "auto",
            Backend::Cpu => "cpu",
            Backend::Cuda => "cuda",
        }
    }
}

crate::named_choice!(Backend, "backend");
