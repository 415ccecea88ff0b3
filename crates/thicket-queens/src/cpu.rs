//! The CPU backend: the canonical border constellations, each split once more on its most
//! constrained line, searched in parallel with rayon work stealing by the line search of
//! [`crate::lines`]. Sums are exact integers, so every thread count gives the same result.

use rayon::prelude::*;
use thicket_core::{Error, Progress, Result};

use crate::constellation::{canonical_constellations, CanonicalConstellation};
use crate::count::{sum_contributions, validate_n, CanonicalCount, Contribution, QueensCount};
use crate::lines::{search, Count, LineBoard};

/// One unit of CPU work: a constellation with possibly one more queen placed.
struct Task<'a> {
    constellation: &'a CanonicalConstellation,
    lines: LineBoard,
    board: [u8; 32],
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
        let all: Vec<&CanonicalConstellation> = constellations.iter().collect();
        Ok(search_constellations(n, &all, progress)?.into_count(n))
    })
}

/// Searches the inner boards of the given constellations on the current rayon pool and adds up
/// what they contribute to the total and to the unique count. Progress counts tasks.
pub fn search_constellations(
    n: usize,
    constellations: &[&CanonicalConstellation],
    progress: &Progress,
) -> Result<Contribution> {
    let tasks: Vec<Task> = constellations.iter().flat_map(|c| split(n, c)).collect();
    progress.set_total(tasks.len() as u64);
    let parts: Vec<Contribution> = tasks
        .par_iter()
        .map(|task| {
            let part = run(n, task);
            progress.inc(1);
            part
        })
        .collect();
    sum_contributions(parts)
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
