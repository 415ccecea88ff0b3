//! The kernel contract every solver follows, after GAPBS's benchmark kernels: a [`Kernel`]
//! runs on a backend, an independent verifier checks its output, and it reports its
//! statistics; [`benchmark_kernel`] implements once, for every solver, what the command line
//! asks of a run: trials, verification, the `auto` fallback to the CPU, the progress bar and
//! the JSON report.

use std::time::Instant;

use serde_json::{Map, Value};

use crate::{Backend, Error, Progress, Result, RunInfo};

/// Where one run of a kernel ran.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Placement {
    /// CPU threads used (for GPU runs: host threads driving the devices).
    pub threads: usize,
    /// Names of the GPUs used, empty on the CPU.
    pub devices: Vec<String>,
}

/// A solver of one problem instance.
pub trait Kernel {
    /// What one run yields (counts, a tour, ...).
    type Output;

    /// What the kernel does, for the note of the `auto` fallback (`counting on the CPU`).
    const DOING: &'static str = "running";

    /// The progress bar's label, e.g. `queens 16`.
    fn label(&self) -> String;

    /// Runs once on `backend` (`Cpu` or `Cuda`, never `Auto`). A backend that cannot run here
    /// is [`Error::Unavailable`].
    fn run(&mut self, backend: Backend, progress: &Progress) -> Result<(Self::Output, Placement)>;

    /// Checks `output` with a reference independent of the kernel (published counts, a proven
    /// optimum, brute force); `None` where no reference exists for this input.
    fn verify(&self, output: &Self::Output) -> Result<Option<bool>>;

    /// The output and its statistics as JSON keys, for `--json`.
    fn stats(&self, output: &Self::Output) -> Map<String, Value>;

    /// Whether `output` is the best answer so far of a run its caller stopped
    /// ([`crate::stoppable`]): an anytime solver's incumbent with its bound, the items a
    /// multi-item run finished. [`benchmark_kernel`] returns such an output (no further
    /// trials, no verification) where any other stopped run is [`Error::Interrupted`]; the
    /// output says itself that it is partial (a `stopped` field, JSON `"stopped": true`).
    fn is_partial(&self, _output: &Self::Output) -> bool {
        false
    }
}

/// What [`benchmark_kernel`] is asked to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunOptions {
    /// Where to run; `Auto` tries the GPU and falls back to the CPU.
    pub backend: Backend,
    /// How many times to run (at least once); the reported time is the fastest.
    pub trials: usize,
    /// Whether to check the output with the kernel's verifier; a wrong output is then an
    /// [`Error::Verification`], and an input without a reference an [`Error::InvalidInput`].
    pub verify: bool,
    /// No progress bar.
    pub quiet: bool,
}

impl Default for RunOptions {
    fn default() -> RunOptions {
        RunOptions {
            backend: Backend::Auto,
            trials: 1,
            verify: false,
            quiet: false,
        }
    }
}

/// A kernel's output with where and how fast it ran.
#[derive(Debug, Clone, PartialEq)]
pub struct Measured<O> {
    /// The last trial's output.
    pub output: O,
    /// Where it ran; `seconds` is the fastest trial's wall time.
    pub info: RunInfo,
    /// Every trial's wall time, in order.
    pub trial_seconds: Vec<f64>,
    /// The verifier's verdict, when it was asked for.
    pub verified: Option<bool>,
}

impl<O> Measured<O> {
    /// The JSON report: the output's statistics ([`Kernel::stats`]) with `seconds`,
    /// `backend`, `threads` and `devices`, plus `trial_seconds` after several trials,
    /// `verified` when checked and `notes` when the run left any.
    pub fn json(&self, stats: Map<String, Value>) -> Value {
        let mut value = stats;
        value.insert("seconds".into(), self.info.seconds.into());
        value.insert("backend".into(), self.info.backend.clone().into());
        value.insert("threads".into(), self.info.threads.into());
        value.insert("devices".into(), self.info.devices.clone().into());
        if self.trial_seconds.len() > 1 {
            value.insert("trial_seconds".into(), self.trial_seconds.clone().into());
        }
        if let Some(verified) = self.verified {
            value.insert("verified".into(), verified.into());
        }
        if !self.info.notes.is_empty() {
            value.insert("notes".into(), self.info.notes.clone().into());
        }
        Value::Object(value)
    }
}

/// The keys of a JSON object (what [`Kernel::stats`] returns), e.g. of a `json!({...})`
/// literal; anything else has none.
pub fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

/// Runs `kernel` as `options` ask: `trials` times on the backend (with `Auto`, on the GPU,
/// else on the CPU with a note in [`RunInfo::notes`] naming why), with progress unless
/// `quiet`, and checks the last output when asked. A run its caller stopped
/// ([`crate::stoppable`]) is [`Error::Interrupted`], whatever the kernel returned.
pub fn benchmark_kernel<K: Kernel>(
    kernel: &mut K,
    options: &RunOptions,
) -> Result<Measured<K::Output>> {
    let mut backend = options.backend;
    let mut trial_seconds = Vec::new();
    let mut last = None;
    let mut notes = Vec::new();
    for _ in 0..options.trials.max(1) {
        let progress = Progress::new(0, &kernel.label(), options.quiet);
        let started = Instant::now();
        let (output, placement, ran_on) =
            with_fallback(backend, K::DOING, &mut notes, |backend| {
                kernel
                    .run(backend, &progress)
                    .map(|(output, placement)| (output, placement, backend))
            })?;
        progress.finish();
        trial_seconds.push(started.elapsed().as_secs_f64());
        // Later trials go straight to the backend the first one ran on.
        backend = ran_on;
        let partial = kernel.is_partial(&output);
        last = Some((output, placement));
        if partial {
            break;
        }
        // A stopped run may have skipped work: its answer is not one.
        progress.check_stop()?;
    }
    let (output, placement) = last.expect("at least one trial ran");
    let partial = kernel.is_partial(&output);
    let verified = if options.verify && !partial {
        match kernel.verify(&output)? {
            Some(true) => Some(true),
            Some(false) => {
                return Err(Error::Verification(format!(
                    "{}: the output differs from the reference",
                    kernel.label()
                )))
            }
            None => {
                return Err(Error::InvalidInput(format!(
                    "{}: no independent reference to verify against",
                    kernel.label()
                )))
            }
        }
    } else {
        None
    };
    let seconds = trial_seconds.iter().copied().fold(f64::INFINITY, f64::min);
    Ok(Measured {
        output,
        info: RunInfo {
            backend: backend.name().into(),
            threads: placement.threads,
            devices: placement.devices,
            seconds,
            notes,
        },
        trial_seconds,
        verified,
    })
}

/// Runs `run` on `backend`; with `Auto`, on `Cuda` first and, where that is unavailable, on
/// the `Cpu` after adding to `notes`: `no usable GPU (why); {doing} on the CPU`, where
/// `doing` says what runs (`counting`).
pub fn with_fallback<T>(
    backend: Backend,
    doing: &str,
    notes: &mut Vec<String>,
    mut run: impl FnMut(Backend) -> Result<T>,
) -> Result<T> {
    match backend {
        Backend::Auto => match run(Backend::Cuda) {
            Err(Error::Unavailable(why)) => {
                let note = format!("no usable GPU ({why}); {doing} on the CPU");
                if !notes.contains(&note) {
                    notes.push(note);
                }
                run(Backend::Cpu)
            }
            other => other,
        },
        backend => run(backend),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Doubles a number; the GPU is never there.
    struct Double {
        runs: usize,
    }

    impl Kernel for Double {
        type Output = u64;
        fn label(&self) -> String {
            "double 21".into()
        }
        fn run(&mut self, backend: Backend, _: &Progress) -> Result<(u64, Placement)> {
            if backend == Backend::Cuda {
                return Err(Error::Unavailable("no GPU in tests".into()));
            }
            self.runs += 1;
            Ok((
                42,
                Placement {
                    threads: 1,
                    devices: Vec::new(),
                },
            ))
        }
        fn verify(&self, output: &u64) -> Result<Option<bool>> {
            Ok(Some(*output == 42))
        }
        fn stats(&self, output: &u64) -> Map<String, Value> {
            Map::from_iter([("value".to_string(), Value::from(*output))])
        }
    }

    #[test]
    fn auto_falls_back_and_trials_and_verification_are_reported() {
        let mut kernel = Double { runs: 0 };
        let options = RunOptions {
            trials: 3,
            verify: true,
            quiet: true,
            ..RunOptions::default()
        };
        let measured = benchmark_kernel(&mut kernel, &options).unwrap();
        assert_eq!(kernel.runs, 3);
        assert_eq!(measured.info.backend, "cpu");
        assert_eq!(
            measured.info.notes,
            ["no usable GPU (no GPU in tests); running on the CPU"]
        );
        let json = measured.json(kernel.stats(&measured.output));
        assert_eq!(json["value"], 42);
        assert_eq!(json["verified"], true);
        assert_eq!(json["trial_seconds"].as_array().map(Vec::len), Some(3));
        let cuda = RunOptions {
            backend: Backend::Cuda,
            ..options
        };
        let refused = benchmark_kernel(&mut kernel, &cuda).err().unwrap();
        assert_eq!(refused.exit_code(), 1);
    }

    #[test]
    fn a_stopped_run_is_interrupted_whatever_the_kernel_returned() {
        let mut kernel = Double { runs: 0 };
        let options = RunOptions {
            backend: Backend::Cpu,
            quiet: true,
            ..RunOptions::default()
        };
        let flag = crate::StopFlag::new();
        flag.raise();
        let stopped = crate::stoppable(&flag, || benchmark_kernel(&mut kernel, &options));
        assert!(matches!(stopped, Err(Error::Interrupted(_))));
        assert!(benchmark_kernel(&mut kernel, &options).is_ok());
    }

    /// Counts up until its caller stops it; what it counted by then is its answer.
    struct Anytime;

    impl Kernel for Anytime {
        type Output = (u64, bool);
        fn label(&self) -> String {
            "anytime".into()
        }
        fn run(&mut self, _: Backend, progress: &Progress) -> Result<((u64, bool), Placement)> {
            let mut count = 0;
            while !progress.stop_requested() {
                count += 1;
            }
            Ok(((count, true), Placement::default()))
        }
        fn verify(&self, _: &(u64, bool)) -> Result<Option<bool>> {
            Ok(None)
        }
        fn stats(&self, output: &(u64, bool)) -> Map<String, Value> {
            Map::from_iter([("stopped".to_string(), Value::from(output.1))])
        }
        fn is_partial(&self, output: &(u64, bool)) -> bool {
            output.1
        }
    }

    #[test]
    fn a_partial_answer_of_a_stopped_run_is_returned_once_and_unverified() {
        let options = RunOptions {
            backend: Backend::Cpu,
            trials: 3,
            verify: true,
            quiet: true,
        };
        let flag = crate::StopFlag::new();
        flag.raise();
        let measured =
            crate::stoppable(&flag, || benchmark_kernel(&mut Anytime, &options)).unwrap();
        assert!(measured.output.1);
        assert_eq!(measured.trial_seconds.len(), 1);
        assert_eq!(measured.verified, None);
    }
}
