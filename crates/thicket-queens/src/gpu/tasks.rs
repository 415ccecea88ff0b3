//! GPU tasks: the inner search of an asymmetric constellation with its first rows already
//! filled on the host, packed into six 32-bit words exactly as `kernels/queens.cu` reads them.
//!
//! Unlike the CPU search, a task keeps the diagonals in absolute form (bit `row + col` for
//! down-left lines, bit `col - row + n - 1` for down-right lines, 63 bits each as two words).
//! Placing or removing a queen is then a reversible XOR, so the kernel's stack needs one word
//! per level (the free columns still to try) instead of the four masks of a shifting search.

use rayon::prelude::*;

use crate::search::Plan;

/// Words per packed task.
pub const TASK_WORDS: usize = 6;

/// One subproblem: the queens placed so far and the rows still to fill.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Task {
    /// Occupied columns (border and inner queens).
    pub cols: u32,
    /// Down-left lines, bit `row + col`.
    pub down_left: u64,
    /// Down-right lines, bit `col - row + n - 1`.
    pub down_right: u64,
    /// The row to fill next.
    pub row: u8,
    /// The smaller of the two side-queen rows that the search skips (0 when none).
    pub skip_low: u8,
    /// The larger of the two side-queen rows that the search skips (0 when none).
    pub skip_high: u8,
    /// The last row to fill, counted with one popcount.
    pub last: u8,
}

impl Task {
    /// The whole inner search of `plan` (depth at least 1) as one task.
    pub fn from_plan(plan: &Plan) -> Task {
        let n = plan.n();
        let mut task = Task {
            cols: 0,
            down_left: 0,
            down_right: 0,
            row: plan.row(0) as u8,
            skip_low: 0,
            skip_high: 0,
            last: plan.row(plan.depth() - 1) as u8,
        };
        for (r, c) in plan.constellation.queens(n) {
            task.toggle(n, r as u32, 1 << c);
        }
        let inner = |r: u8| r > 0 && usize::from(r) < n - 1;
        let c = plan.constellation;
        let mut sides: Vec<u8> = [c.left, c.right]
            .into_iter()
            .filter(|&r| inner(r))
            .collect();
        sides.sort_unstable();
        match sides.as_slice() {
            [one] => task.skip_low = *one,
            [low, high] => (task.skip_low, task.skip_high) = (*low, *high),
            _ => {}
        }
        task
    }

    /// Places (or removes) the queen `bit` in row `row`.
    #[inline(always)]
    fn toggle(&mut self, n: usize, row: u32, bit: u32) {
        self.cols ^= bit;
        self.down_left ^= u64::from(bit) << row;
        self.down_right ^= u64::from(bit) << (n as u32 - 1 - row);
    }

    /// The free columns of `row` given the queens placed so far.
    #[inline(always)]
    pub fn free_in(&self, n: usize, row: u32) -> u32 {
        let attacked = self.cols
            | (self.down_left >> row) as u32
            | (self.down_right >> (n as u32 - 1 - row)) as u32;
        !attacked & board(n)
    }

    /// The row after `row` that the search fills.
    #[inline(always)]
    pub fn next_row(&self, row: u32) -> u32 {
        let mut r = row + 1;
        r += u32::from(r == u32::from(self.skip_low));
        r += u32::from(r == u32::from(self.skip_high));
        r
    }

    /// The task one row further down with the queen `bit` placed in the current row.
    pub fn child(&self, n: usize, bit: u32) -> Task {
        let mut child = *self;
        child.toggle(n, u32::from(self.row), bit);
        child.row = self.next_row(u32::from(self.row)) as u8;
        child
    }

    /// The six words the kernel reads.
    pub fn pack(&self) -> [u32; TASK_WORDS] {
        [
            self.cols,
            self.down_left as u32,
            (self.down_left >> 32) as u32,
            self.down_right as u32,
            (self.down_right >> 32) as u32,
            u32::from(self.row)
                | u32::from(self.skip_low) << 5
                | u32::from(self.skip_high) << 10
                | u32::from(self.last) << 15,
        ]
    }

    /// Solutions below this task, by the kernel's algorithm step for step (for tests, and
    /// the reference for the kernel's correctness).
    pub fn count(&self, n: usize) -> u64 {
        let board = board(n);
        let mut task = *self;
        let last = u32::from(self.last);
        let mut row = u32::from(self.row);
        let mut free = task.free_in(n, row);
        if row == last {
            return u64::from(free.count_ones());
        }
        let mut next = task.next_row(row);
        let mut attacked = !task.free_in(n, next);
        let mut stack = [0u32; 32];
        let mut depth = 0;
        let mut solutions = 0u64;
        let child_of =
            |attacked: u32, bit: u32, gap: u32| !(attacked | bit | bit >> gap | bit << gap) & board;
        loop {
            if next == last {
                while free != 0 {
                    let bit = free & free.wrapping_neg();
                    free ^= bit;
                    solutions += u64::from(child_of(attacked, bit, next - row).count_ones());
                }
            }
            if free != 0 {
                let bit = free & free.wrapping_neg();
                let child = child_of(attacked, bit, next - row);
                if child != 0 {
                    stack[depth] = free;
                    depth += 1;
                    task.toggle(n, row, bit);
                    row = next;
                    next = task.next_row(row);
                    free = child;
                    attacked = !task.free_in(n, next);
                } else {
                    free ^= bit;
                }
            } else {
                if depth == 0 {
                    return solutions;
                }
                depth -= 1;
                let tried = stack[depth];
                let bit = tried & tried.wrapping_neg();
                free = tried ^ bit;
                next = row;
                row = prev_row(&task, row);
                task.toggle(n, row, bit);
                attacked = !task.free_in(n, next);
            }
        }
    }
}

/// The row before `row` that the search fills.
fn prev_row(task: &Task, row: u32) -> u32 {
    let mut r = row - 1;
    r -= u32::from(r == u32::from(task.skip_high));
    r -= u32::from(r == u32::from(task.skip_low));
    r
}

/// The `n` board columns.
fn board(n: usize) -> u32 {
    if n == 32 {
        u32::MAX
    } else {
        (1u32 << n) - 1
    }
}

/// Every child of every task one row further down; tasks already at their last row stay.
fn expand(n: usize, tasks: &[Task]) -> Vec<Task> {
    tasks
        .par_iter()
        .flat_map_iter(|task| {
            let stays = task.row == task.last;
            let mut free = if stays {
                0
            } else {
                task.free_in(n, u32::from(task.row))
            };
            let mut children = Vec::with_capacity(free.count_ones() as usize + usize::from(stays));
            if stays {
                children.push(*task);
            }
            while free != 0 {
                let bit = free & free.wrapping_neg();
                free ^= bit;
                children.push(task.child(n, bit));
            }
            children
        })
        .collect()
}

/// The tasks of `plans` (each of depth at least 1) after filling `depth` more rows on the host,
/// in plan order, so that neighbouring tasks share a plan and cost about the same.
pub fn split(n: usize, plans: &[&Plan], depth: usize) -> Vec<Task> {
    let mut tasks: Vec<Task> = plans.iter().map(|plan| Task::from_plan(plan)).collect();
    for _ in 0..depth {
        tasks = expand(n, &tasks);
    }
    tasks
}

/// Rows filled on the host when none is asked for: the first depth with at least
/// `min_tasks` tasks, or the depth where every task has reached its last row.
pub fn split_auto(n: usize, plans: &[&Plan], min_tasks: usize) -> (Vec<Task>, usize) {
    let mut tasks: Vec<Task> = plans.iter().map(|plan| Task::from_plan(plan)).collect();
    let mut depth = 0;
    while tasks.len() < min_tasks && tasks.iter().any(|t| t.row != t.last) {
        tasks = expand(n, &tasks);
        depth += 1;
    }
    (tasks, depth)
}

/// How many tasks to aim for on the GPUs: a few million from N = 19 on, fewer below, where a
/// launch is over in milliseconds anyway.
pub fn target_tasks(n: usize) -> usize {
    match n {
        0..=12 => 1 << 10,
        13..=15 => 1 << 14,
        16..=18 => 1 << 18,
        _ => 2_000_000,
    }
}

/// Stack levels a task of these can push: every row it fills but the last two.
pub fn stack_levels(tasks: &[Task]) -> usize {
    tasks
        .iter()
        .map(|t| usize::from(t.last - t.row))
        .max()
        .unwrap_or(0)
        .max(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::constellation::canonical_constellations;
    use crate::reference::known_counts;
    use crate::search::CountSink;

    fn asymmetric_plans(n: usize) -> Vec<Plan> {
        canonical_constellations(n)
            .into_iter()
            .filter(|c| c.is_asymmetric())
            .map(|c| Plan::new(n, c.constellation))
            .filter(|p| p.depth() >= 1)
            .collect()
    }

    /// Every task of every split depth, counted with the kernel's algorithm, adds up to what the
    /// CPU search finds in the same constellations.
    #[test]
    fn split_tasks_add_up_to_the_cpu_search() {
        for n in 5..=11 {
            let plans = asymmetric_plans(n);
            let expected: u64 = plans
                .iter()
                .map(|p| {
                    let mut sink = CountSink::default();
                    p.search(0, p.start(), &[], &mut sink);
                    sink.solutions
                })
                .sum();
            let refs: Vec<&Plan> = plans.iter().collect();
            for depth in 0..=4 {
                let tasks = split(n, &refs, depth);
                let sum: u64 = tasks.iter().map(|t| t.count(n)).sum();
                assert_eq!(sum, expected, "n={n} depth={depth}");
            }
        }
    }

    /// With the symmetric constellations counted the CPU way, the task sums give the OEIS
    /// totals and unique counts.
    #[test]
    fn split_tasks_give_the_oeis_counts() {
        for n in 8..=13 {
            let (tasks, _) = {
                let plans = asymmetric_plans(n);
                let refs: Vec<&Plan> = plans.iter().collect();
                split_auto(n, &refs, 1000)
            };
            let gpu_part: u64 = tasks.iter().map(|t| t.count(n)).sum();
            let rest = crate::gpu::host::count_on_host(n, &canonical_constellations(n), |c, p| {
                !crate::gpu::goes_to_gpu(c, p)
            })
            .unwrap();
            let total = 8 * u128::from(gpu_part) + rest.weighted_total;
            let unique = u128::from(gpu_part) + rest.unique;
            assert_eq!(Some((total, unique)), known_counts(n), "n={n}");
        }
    }

    #[test]
    fn packing_keeps_every_field() {
        let plans = asymmetric_plans(12);
        let task = Task::from_plan(&plans[3]);
        let words = task.pack();
        assert_eq!(words[0], task.cols);
        assert_eq!(
            u64::from(words[1]) | u64::from(words[2]) << 32,
            task.down_left
        );
        assert_eq!(
            u64::from(words[3]) | u64::from(words[4]) << 32,
            task.down_right
        );
        assert_eq!(words[5] & 31, u32::from(task.row));
        assert_eq!(words[5] >> 15 & 31, u32::from(task.last));
    }
}
