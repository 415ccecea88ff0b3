//! The CPU methods: the list heuristics ([`heuristics`]), the thesis's swarms ([`pso`]), and
//! thicket's default: the LP relaxation ([`lp`]), the exhaustive search of small matrices
//! ([`exact`]) and the iterated local search ([`ils`]); [`run`] runs the one a run asks for.

pub(crate) mod exact;
pub(crate) mod heuristics;
pub(crate) mod ils;
pub(crate) mod lp;
pub(crate) mod pso;

use std::sync::atomic::AtomicBool;
use std::time::Instant;

use thicket_core::{Progress, Result, Workers};

use crate::etc::Etc;
use crate::io::assignment::loads;
use crate::strategy::{Method, ScheduleOptions};
use lp::Relaxation;

/// What a GPU run of the default that found no usable GPU leaves to the CPU run that follows
/// it (`--backend auto`): when it started and the relaxation it computed, so that the limit
/// still bounds the two together and the relaxation is not computed twice.
pub(crate) type Fallback = (Instant, Relaxation);

/// A method's schedule before its loads and bound: the assignment, its reported makespan,
/// and what the method adds to the report.
pub(crate) struct Found {
    pub assignment: Vec<u32>,
    pub reported: f64,
    pub epochs: Option<usize>,
    pub kicks: Option<u64>,
    pub trace: Vec<(f64, f64)>,
    /// The LP relaxation's bound, where the method computed it.
    pub bound: Option<f64>,
}

impl Found {
    /// A heuristic's schedule with its makespan.
    fn plain(etc: &Etc, assignment: Vec<u32>) -> Found {
        let (_, reported) = loads(etc, &assignment);
        Found {
            assignment,
            reported,
            epochs: None,
            kicks: None,
            trace: Vec::new(),
            bound: None,
        }
    }
}

/// Runs `o.method` on the CPU from `started` (the searches on `pool`, from the relaxation a
/// failed GPU run left in `fallback`), until it ends or `stop` is raised; progress under
/// `label`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn run(
    etc: &Etc,
    o: &ScheduleOptions,
    pool: &Workers,
    started: Instant,
    fallback: Option<Fallback>,
    stop: Option<&AtomicBool>,
    progress: &Progress,
    label: &str,
) -> Result<Found> {
    Ok(match o.method {
        Method::Fcfs | Method::Mct => Found::plain(etc, heuristics::mct(etc)),
        Method::Olb => Found::plain(etc, heuristics::olb(etc)),
        Method::Met => Found::plain(etc, heuristics::met(etc)),
        Method::MinMin => Found::plain(etc, heuristics::min_min(etc, stop)),
        Method::MaxMin => Found::plain(etc, heuristics::max_min(etc, stop)),
        Method::Sufferage => Found::plain(etc, heuristics::sufferage(etc, stop)),
        Method::Pso | Method::Mspso => {
            let run = pso::run(etc, &o.swarm_params(), o.seed, stop);
            Found {
                reported: run.makespan as f64,
                ..Found::plain(etc, run.assignment)
            }
        }
        Method::Ils | Method::LpIls => {
            search(etc, o, pool, started, fallback, stop, progress, label)?
        }
    })
}

/// The iterated local search on the CPU (`ils` from Min-Min, the default from the LP
/// relaxation), until the time limit, the epochs, the bound or the caller's stop.
#[allow(clippy::too_many_arguments)]
fn search(
    etc: &Etc,
    o: &ScheduleOptions,
    pool: &Workers,
    started: Instant,
    fallback: Option<Fallback>,
    stop: Option<&AtomicBool>,
    progress: &Progress,
    label: &str,
) -> Result<Found> {
    let limit_ms = o.time_limit.as_millis().max(1) as u64;
    progress.set_total(limit_ms);
    let (start, bound) = match o.method {
        Method::LpIls => {
            let relaxation = match fallback {
                Some((_, relaxation)) => relaxation,
                None => pool.install(|| lp::start(etc, stop))?,
            };
            (relaxation.start, Some(relaxation.bound))
        }
        _ => (heuristics::min_min(etc, stop), None),
    };
    let mut trace = Vec::new();
    let run = pool.install(|| {
        ils::search(
            etc,
            start,
            o.threads,
            o.seed,
            ils::Limits {
                time: o
                    .finish_by(started)
                    .saturating_duration_since(Instant::now()),
                epochs: o.epochs,
                bound: bound.unwrap_or(0.0),
                slack: 0.0,
                // The caller's stop request ends the chains as their time would.
                stop,
            },
            |best| {
                trace.push((started.elapsed().as_secs_f64(), best));
                progress.set_message(format!("{label}: best makespan {best:.3}"));
                progress.advance_to(started.elapsed().as_millis() as u64);
            },
        )
    });
    progress.advance_to(limit_ms);
    Ok(Found {
        assignment: run.assignment,
        reported: run.makespan,
        epochs: Some(run.epochs),
        kicks: Some(run.kicks),
        trace,
        bound,
    })
}
