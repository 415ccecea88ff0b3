//! The strategy vocabulary: the matching [`Method`]s and the [`ScheduleOptions`] that tune a
//! run, with the run's deadline and swarm parameters derived from them.

use std::time::{Duration, Instant};

use thicket_core::RunOptions;

use crate::cpu::pso::SwarmParams;
use crate::gpu::mspso::Scratch;

/// A matching method.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// The thesis's first-come-first-served: each task in order to the machine that
    /// completes it first (the same schedule as MCT).
    Fcfs,
    /// Opportunistic load balancing.
    Olb,
    /// Minimum execution time.
    Met,
    /// Minimum completion time.
    Mct,
    /// Min-Min.
    MinMin,
    /// Max-Min.
    MaxMin,
    /// Sufferage.
    Sufferage,
    /// The thesis's single-swarm PSO.
    Pso,
    /// The thesis's multi-swarm PSO.
    Mspso,
    /// Iterated local search from Min-Min on every core.
    Ils,
    /// thicket's default: the LP relaxation (a certified lower bound and a rounded start),
    /// then the iterated local search from that start, ending at the bound.
    LpIls,
}

impl Method {
    /// Every method.
    pub const ALL: [Method; 11] = [
        Method::Fcfs,
        Method::Olb,
        Method::Met,
        Method::Mct,
        Method::MinMin,
        Method::MaxMin,
        Method::Sufferage,
        Method::Pso,
        Method::Mspso,
        Method::Ils,
        Method::LpIls,
    ];

    /// Its name on the command line and in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Method::Fcfs => "fcfs",
            Method::Olb => "olb",
            Method::Met => "met",
            Method::Mct => "mct",
            Method::MinMin => "min-min",
            Method::MaxMin => "max-min",
            Method::Sufferage => "sufferage",
            Method::Pso => "pso",
            Method::Mspso => "mspso",
            Method::Ils => "ils",
            Method::LpIls => "lp-ils",
        }
    }

    /// Whether it has a GPU version.
    pub fn has_gpu(self) -> bool {
        matches!(self, Method::Pso | Method::Mspso | Method::LpIls)
    }
}

thicket_core::named_choice!(Method, "method");

/// How [`crate::schedule`] runs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScheduleOptions {
    /// Backend, trials, verification, progress line.
    pub run: RunOptions,
    /// The method.
    pub method: Method,
    /// Seed of the randomised methods.
    pub seed: u64,
    /// The default's time limit.
    pub time_limit: Duration,
    /// The default's epoch limit (reproducible runs).
    pub epochs: Option<usize>,
    /// Swarm parameters of `pso`/`mspso`; `None`: the thesis's.
    pub swarm: Option<SwarmParams>,
    /// CPU threads.
    pub threads: usize,
    /// The GPU.
    pub device: usize,
    /// GPU swarms: the fitness kernel's scratch; `None`: shared while it fits.
    pub scratch: Option<Scratch>,
    /// GPU swarms: time every phase (the thesis's Table 6.1).
    pub profile: bool,
}

impl Default for ScheduleOptions {
    fn default() -> ScheduleOptions {
        ScheduleOptions {
            run: RunOptions::default(),
            method: Method::LpIls,
            seed: 1,
            time_limit: Duration::from_secs(10),
            epochs: None,
            swarm: None,
            threads: thicket_core::available_threads(),
            device: 0,
            scratch: None,
            profile: false,
        }
    }
}

/// Of a run's time limit, the share by which the whole run (relaxation, device setup,
/// search and what follows it) aims to end: a margin for the time a stop takes to act (a
/// last kick, a last launch) and for what runs after the method (the verification, the
/// JSON) without being timed.
const FINISH_SHARE: f64 = 0.97;

impl ScheduleOptions {
    /// When a run that started at `started` should end.
    pub(crate) fn finish_by(&self, started: Instant) -> Instant {
        started + self.time_limit.mul_f64(FINISH_SHARE)
    }

    /// The swarm parameters of a run: those given, else the thesis's for the method.
    pub(crate) fn swarm_params(&self) -> SwarmParams {
        self.swarm.unwrap_or(match self.method {
            Method::Pso => SwarmParams::SINGLE,
            _ => SwarmParams::THESIS,
        })
    }
}
