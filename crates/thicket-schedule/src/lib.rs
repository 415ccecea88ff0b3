//! Task matching: independent tasks on heterogeneous machines, minimising the makespan.
//!
//! Solomon 2012, ch. 6 (digest: `../shared/docs/seed-004-digest.md`, section 4): an ETC
//! matrix (expected time to compute, task × machine), the list heuristics the thesis and
//! Braun et al. (2001) compare against, and the thesis's continuous particle swarms, single
//! and multi-swarm on a ring with repulsion (after Vanneschi et al. 2010); beside them
//! thicket's default: the LP relaxation's certified lower bound and rounded vertex, then an
//! iterated local search from it on every core or on the GPU, near the best known in seconds.
//!
//! - [`etc`]: the matrix and Braun's files; [`assignment`]: assignment files, loads.
//! - [`generate`]: the thesis's length/MIPS matrices and Braun's range-based ones.
//! - [`heuristics`]: OLB, MET, MCT (the thesis's FCFS), Min-Min, Max-Min, Sufferage.
//! - [`pso`]: the swarms (serial); [`gpu`]: the thesis's GPU swarms ([`kernels`]);
//!   [`lp`]: the LP relaxation (bound and start); [`search`]: the local search on the CPU,
//!   [`gpu_search`] on the GPU.
//! - [`verify`]: the independent check of any answer.
//! - [`schedule`]: the front door; [`mod@bench`]: `thicket bench schedule`.

pub mod assignment;
pub mod bench;
pub mod etc;
pub mod generate;
pub mod gpu;
pub mod gpu_search;
pub mod heuristics;
pub mod kernels;
pub mod lp;
pub mod pso;
mod run;
pub mod search;
pub mod verify;

pub use run::{schedule, Method, ScheduleOptions, ScheduleRun, STAGES};
