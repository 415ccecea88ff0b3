//! Task matching: independent tasks on heterogeneous machines, minimising the makespan.
//!
//! Solomon 2012, ch. 6: an ETC matrix ([`Etc`], expected time to compute, task × machine),
//! the list heuristics the thesis and Braun et al. (2001) compare against (OLB, MET, MCT, the
//! thesis's FCFS, Min-Min, Max-Min, Sufferage), and the thesis's continuous particle swarms,
//! single and multi-swarm on a ring with repulsion (after Vanneschi et al. 2010), serial and
//! on the GPU; beside them thicket's default: the LP relaxation's certified lower bound and
//! rounded vertex, then an iterated local search from it on every core or on the GPU, near
//! the best known in seconds.
//!
//! [`schedule`] is the front door: a matrix and [`ScheduleOptions`] in, a measured
//! [`ScheduleRun`] out; [`verify`] checks any schedule independently. Matrices come from an
//! array ([`Etc::from_rows`], [`Etc::new`]), a file in Braun's format or plain CSV ([`Etc::read`]) or a
//! generator ([`Generator`]); [`assignment`] reads and writes schedules.
//!
//! ```
//! use std::time::Duration;
//! use thicket_core::{Backend, RunOptions};
//! use thicket_schedule::{schedule, verify, Etc, ScheduleOptions, F64_TOLERANCE};
//!
//! // Three tasks on two machines: row t holds task t's time on each machine.
//! let etc = Etc::from_rows(&[[4.0, 2.0], [3.0, 6.0], [1.0, 1.0]])?;
//! let options = ScheduleOptions {
//!     run: RunOptions { backend: Backend::Cpu, ..RunOptions::default() },
//!     time_limit: Duration::from_millis(200),
//!     ..ScheduleOptions::default()
//! };
//! let run = schedule(&etc, &options)?.output;
//! assert_eq!(run.makespan, 3.0);
//! assert!(run.lower_bound <= run.makespan);
//! verify(&etc, &run.assignment, run.makespan, F64_TOLERANCE)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod cpu;
mod etc;
mod generate;
mod gpu;
mod io;
mod kernels;
mod report;
mod run;
mod strategy;
mod verify;

pub use cpu::pso::SwarmParams;
pub use etc::{Etc, BRAUN_SHAPE, MAX_ENTRIES, MAX_TIME};
pub use generate::{Consistency, Generator, Heterogeneity};
pub use gpu::mspso::{Scratch, SWARM_PHASES};
pub use io::assignment;
pub use io::braun::EtcFormat;
pub use kernels::{ALL as KERNEL_MODULES, MAX_PARTICLES, SHARED_SCRATCH_BYTES};
pub use report::{ScheduleRun, STAGES};
pub use run::{finish_gpu_setup, schedule};
pub use strategy::{Method, ScheduleOptions};
pub use verify::{verify, Verdict, F32_TOLERANCE, F64_TOLERANCE};
