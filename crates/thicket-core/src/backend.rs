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

/// The backend a run of the strategy `asked` (`None`: the problem's default) gets on
/// `backend`, where `on_gpu` says whether the strategy runs on a GPU: a CPU strategy under
/// `auto` runs on the CPU, and a GPU strategy asked for by name has no CPU to fall back to.
/// A strategy asked for on the other backend is invalid input naming it.
pub fn backend_for<S: std::fmt::Display + Copy>(
    asked: Option<S>,
    on_gpu: impl Fn(S) -> bool,
    backend: Backend,
) -> crate::Result<Backend> {
    let Some(strategy) = asked else {
        return Ok(backend);
    };
    match (on_gpu(strategy), backend) {
        (false, Backend::Cuda) => Err(crate::Error::InvalidInput(format!(
            "strategy {strategy} runs on the CPU, not on a GPU"
        ))),
        (true, Backend::Cpu) => Err(crate::Error::InvalidInput(format!(
            "strategy {strategy} runs on a GPU, not on the CPU"
        ))),
        (false, _) => Ok(Backend::Cpu),
        (true, _) => Ok(Backend::Cuda),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_named_strategy_picks_its_backend_and_refuses_the_other() {
        let gpu = |s: &'static str| s == "tiles";
        assert_eq!(
            backend_for(None, gpu, Backend::Auto).unwrap(),
            Backend::Auto
        );
        assert_eq!(
            backend_for(Some("tiles"), gpu, Backend::Auto).unwrap(),
            Backend::Cuda
        );
        assert_eq!(
            backend_for(Some("serial"), gpu, Backend::Auto).unwrap(),
            Backend::Cpu
        );
        let refused = backend_for(Some("serial"), gpu, Backend::Cuda).unwrap_err();
        assert_eq!(
            refused.message(),
            "strategy serial runs on the CPU, not on a GPU"
        );
        assert!(backend_for(Some("tiles"), gpu, Backend::Cpu).is_err());
        assert_eq!(
            Backend::ALL.map(|b| b.to_string().parse::<Backend>().unwrap()),
            Backend::ALL
        );
    }
}
