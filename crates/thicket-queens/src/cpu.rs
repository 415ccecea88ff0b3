//! The CPU backend: canonical border constellations, split once more on the first inner row,
//! searched in parallel with rayon work stealing. Sums are exact integers, so every thread
//! count gives the same result.

use rayon::prelude::*;
use thicket_core::{Error, Progress, Result};

use crate::constellation::{canonical_constellations, CanonicalConstellation};
use crate::count::{sum_contributions, validate_n, CanonicalSink, Contribution, QueensCount};
use crate::search::{CountSink, Masks, Plan};

/// One unit of CPU work: a constellation, optionally with its first inner queen placed.
struct Task {
    constellation: usize,
    first_queen: Option<u32>,
}

/// Counts all and fundamental solutions of `n` queens on `threads` CPU threads.
pub fn count_cpu(n: usize, threads: usize, progress: &Progress) -> Result<QueensCount> {
    validate_n(n)?;
    if threads == 0 {
        return Err(Error::InvalidInput("--threads must be at least 1".into()));
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| Error::Unavailable(format!("cannot start {threads} CPU threads: {e}")))?;
    pool.install(|| {
        let constellations = canonical_constellations(n);
        let plans: Vec<Plan> = constellations
            .par_iter()
            .map(|c| Plan::new(n, c.constellation))
            .collect();
        let tasks = split_on_first_row(&plans);
        progress.set_total(tasks.len() as u64);
        let parts: Vec<Contribution> = tasks
            .par_iter()
            .map(|task| {
                let part = run_task(
                    &plans[task.constellation],
                    &constellations[task.constellation],
                    task,
                );
                progress.inc(1);
                part
            })
            .collect();
        Ok(sum_contributions(parts)?.into_count(n))
    })
}

/// One task per (constellation, first inner queen), or per constellation where the search has
/// fewer than two rows to fill.
fn split_on_first_row(plans: &[Plan]) -> Vec<Task> {
    let mut tasks = Vec::new();
    for (index, plan) in plans.iter().enumerate() {
        if plan.depth() < 2 {
            tasks.push(Task {
                constellation: index,
                first_queen: None,
            });
            continue;
        }
        let mut free = plan.free(&plan.start());
        while free != 0 {
            let bit = free & free.wrapping_neg();
            free ^= bit;
            tasks.push(Task {
                constellation: index,
                first_queen: Some(bit),
            });
        }
    }
    tasks
}

/// Searches one task; symmetric constellations also check each solution's canonical form.
fn run_task(plan: &Plan, constellation: &CanonicalConstellation, task: &Task) -> Contribution {
    let (depth, masks, prefix): (usize, Masks, &[u32]) = match &task.first_queen {
        Some(bit) => (
            1,
            plan.child(0, &plan.start(), *bit),
            std::slice::from_ref(bit),
        ),
        None => (0, plan.start(), &[]),
    };
    if constellation.is_asymmetric() {
        let mut sink = CountSink::default();
        plan.search(depth, masks, prefix, &mut sink);
        Contribution::asymmetric(sink.solutions)
    } else {
        let mut sink = CanonicalSink::new(plan, constellation);
        plan.search(depth, masks, prefix, &mut sink);
        sink.contribution()
    }
}
