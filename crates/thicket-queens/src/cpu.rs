//! The CPU backend: the canonical border constellations, counted in parallel with rayon work
//! stealing. Asymmetric constellations (almost all of them) are counted by joining top and
//! bottom half placements ([`crate::join`]); the symmetric ones, whose solutions need a
//! canonical-form check for the unique count, are each split once more on their most
//! constrained line and searched by the line search of [`crate::lines`]. Sums are exact
//! integers, so every thread count gives the same result.

use std::cell::RefCell;

use rayon::prelude::*;
use thicket_core::{Error, Progress, Result};

use crate::columns::{count_total, COLUMN_JOIN_SIZES};
use crate::constellation::{canonical_constellations, CanonicalConstellation};
use crate::count::{sum_contributions, validate_n, CanonicalCount, Contribution, QueensCount};
use crate::join::{group_by_bottom, joins, BottomGroup, BottomHalf, JoinScratch};
use crate::lines::{search, Count, LineBoard};
use crate::rotations::{count_fixed, unique_from_total, Turn};

thread_local! {
    /// Each thread's join buffers, kept from one group to the next so that their memory is
    /// allocated once (freed when the thread pool ends).
    static JOIN_SCRATCH: RefCell<JoinScratch> = RefCell::new(JoinScratch::default());
}

/// The fewest members of a join group counted as one job against the group's bottom half. A
/// larger group is split into several jobs, so that it does not keep one thread busy alone at
/// the end: at n = 17 the largest group alone is a tenth of the work (docs/benchmarks.md).
const MIN_MEMBERS_PER_JOB: usize = 16;

/// Threads per job of one join group: each job reads the group's whole bottom half again, so
/// a group is split only as far as the threads need it (one job a thread was slower than no
/// split at all: docs/benchmarks.md).
const THREADS_PER_GROUP_JOB: usize = 2;

/// One unit of CPU work: a constellation with possibly one more queen placed.
struct Task<'a> {
    constellation: &'a CanonicalConstellation,
    lines: LineBoard,
    board: [u8; 32],
}

/// Counts all and fundamental solutions of `n` queens on `threads` CPU threads: for n = 10..20
/// the total by the column-cut join (halves of the board joined from quarter-board tables) and
/// the fundamental count by Burnside's lemma from the rotation-symmetric solutions, else both
/// from the canonical constellations.
pub fn count_cpu(n: usize, threads: usize, progress: &Progress) -> Result<QueensCount> {
    validate_n(n)?;
    if threads == 0 {
        return Err(Error::InvalidInput(
            "the thread count must be at least 1".into(),
        ));
    }
    thicket_core::on_threads(threads, || {
        if COLUMN_JOIN_SIZES.contains(&n) {
            let total = count_total(n, progress);
            // A stopped count skipped row sets: its total is not the board's.
            progress.check_stop()?;
            let (half, quarter) = (count_fixed(n, Turn::Half), count_fixed(n, Turn::Quarter));
            let unique = unique_from_total(n, total, half, quarter)?;
            return Ok(QueensCount { n, total, unique });
        }
        let constellations = canonical_constellations(n);
        let all: Vec<&CanonicalConstellation> = constellations.iter().collect();
        Ok(search_constellations(n, &all, progress)?.into_count(n))
    })?
}

/// Counts the solutions of the given constellations on the current rayon pool and adds up
/// what they contribute to the total and to the unique count. Progress counts joined
/// constellations and search tasks.
pub fn search_constellations(
    n: usize,
    constellations: &[&CanonicalConstellation],
    progress: &Progress,
) -> Result<Contribution> {
    let (joined, searched): (Vec<&CanonicalConstellation>, Vec<_>) =
        constellations.iter().partition(|c| joins(n, c));
    let groups = group_by_bottom(n, &joined);
    let tasks: Vec<Task> = searched.iter().flat_map(|c| split(n, c)).collect();
    progress.set_total((joined.len() + tasks.len()) as u64);
    let (by_join, by_search) = rayon::join(
        || {
            // One group a job: rayon would otherwise hand out runs of groups that a thread
            // works through alone, and a run holding large groups would end long after the
            // others.
            groups
                .par_iter()
                .with_max_len(1)
                .map(|group| {
                    if progress.stop_requested() {
                        return Contribution::asymmetric(0);
                    }
                    let solutions = count_joined(n, group);
                    progress.inc(group.members.len() as u64);
                    Contribution::asymmetric(solutions)
                })
                .collect::<Vec<_>>()
        },
        || {
            tasks
                .par_iter()
                .map(|task| {
                    if progress.stop_requested() {
                        return Contribution::asymmetric(0);
                    }
                    let part = run(n, task);
                    progress.inc(1);
                    part
                })
                .collect::<Vec<_>>()
        },
    );
    sum_contributions(by_join.into_iter().chain(by_search))
}

/// The solutions of a join group: its bottom half once, then its members against it, in jobs
/// of at least [`MIN_MEMBERS_PER_JOB`] members, one job for every [`THREADS_PER_GROUP_JOB`]
/// threads of the current rayon pool.
fn count_joined(n: usize, group: &BottomGroup) -> u64 {
    // Each borrow of the thread's scratch ends before any parallel call: a thread that waits
    // for the jobs may run another group's meanwhile, which borrows the scratch too.
    let bottom = JOIN_SCRATCH.with_borrow_mut(|scratch| BottomHalf::new(n, &group.border, scratch));
    let jobs = (rayon::current_num_threads() / THREADS_PER_GROUP_JOB).max(1);
    let per_job = group.members.len().div_ceil(jobs).max(MIN_MEMBERS_PER_JOB);
    let solutions = group
        .members
        .par_chunks(per_job)
        .map(|members| JOIN_SCRATCH.with_borrow_mut(|scratch| bottom.count(n, members, scratch)))
        .sum();
    JOIN_SCRATCH.with_borrow_mut(|scratch| bottom.recycle(scratch));
    solutions
}

/// One task per option of the constellation's most constrained line (none when a line has no
/// free square), or the constellation itself when at most one row is open.
fn split(n: usize, constellation: &CanonicalConstellation) -> Vec<Task<'_>> {
    let lines = LineBoard::with_constellation(n, &constellation.constellation);
    let mut board = [0u8; 32];
    for (r, c) in constellation.constellation.queens(n) {
        board[r] = c as u8;
    }
    let open = lines.open_rows();
    if open & open.wrapping_sub(1) == 0 {
        return vec![Task {
            constellation,
            lines,
            board,
        }];
    }
    let Some((line, mut options)) = lines.most_constrained() else {
        return Vec::new();
    };
    let mut tasks = Vec::with_capacity(options.count_ones() as usize);
    while options != 0 {
        let option = options.trailing_zeros();
        options &= options - 1;
        let (next, r, c) = lines.take(line, option);
        let mut next_board = board;
        next_board[r as usize] = c as u8;
        tasks.push(Task {
            constellation,
            lines: next,
            board: next_board,
        });
    }
    tasks
}

/// Searches one task; symmetric constellations also check each solution's canonical form.
fn run(n: usize, task: &Task) -> Contribution {
    let mut board = task.board;
    if task.constellation.is_asymmetric() {
        let mut count = Count::default();
        search(&task.lines, &mut board[..n], &mut count);
        Contribution::asymmetric(count.0)
    } else {
        let mut sink = CanonicalCount::new(task.constellation);
        search(&task.lines, &mut board[..n], &mut sink);
        sink.contribution()
    }
}
