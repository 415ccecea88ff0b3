//! GPU work: the plan table (per constellation: row gaps, last depth, class size and the
//! border queens' attacks on every row) and the tasks (a plan with its first inner rows filled
//! on the host), packed exactly as `kernels/queens.cu` reads them. `Task::count` runs the
//! kernel's algorithm on the CPU: the reference its results are tested against.

use rayon::prelude::*;

use crate::constellation::CanonicalConstellation;
use crate::search::Plan;

/// Words per plan record.
pub const PLAN_WORDS: usize = 36;
/// Words per task.
pub const TASK_WORDS: usize = 6;
/// Bit offset of column 0 in the "/" diagonal mask: lines move right by at most `n` bits over
/// a search, so none ever leaves the 64-bit word and undoing a shift restores every line.
const DR_OFFSET: u32 = 32;
/// The largest board the kernel counts: its lines stay inside the 64-bit diagonal words
/// (column + rows < 64 up to n = 32), and its weighted total fits the kernel's 64-bit
/// counters (Q(28) < 2^62, while Q(29) > 2^64).
pub const MAX_N: usize = 28;

/// One constellation's search as the kernel sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GpuPlan {
    /// Row gap from each depth to the next (1 to 3), 2 bits a depth.
    gaps: u64,
    /// Depth of the last row to fill.
    last: u32,
    /// The class size the plan's count is weighted by.
    weight: u32,
    /// The border queens' attacks (columns and diagonals) on the row of each depth.
    attack: [u32; 32],
}

impl GpuPlan {
    /// The kernel's view of `plan` (at least one row to fill), weighted by `weight`.
    pub fn new(plan: &Plan, weight: u32) -> GpuPlan {
        let n = plan.n();
        let queens = plan.constellation.queens(n);
        let board = (1u64 << n) - 1;
        let mut attack = [0u32; 32];
        let mut gaps = 0u64;
        for (d, row_attack) in attack.iter_mut().enumerate().take(plan.depth()) {
            let row = plan.row(d);
            let mut mask = 0u64;
            for &(r, c) in &queens {
                let dist = r.abs_diff(row);
                mask |= 1 << c | (1u64 << c) << dist | (1u64 << c) >> dist;
            }
            *row_attack = (mask & board) as u32;
            if d + 1 < plan.depth() {
                gaps |= ((plan.row(d + 1) - row) as u64) << (2 * d);
            }
        }
        GpuPlan {
            gaps,
            last: plan.depth() as u32 - 1,
            weight,
            attack,
        }
    }

    fn gap(&self, depth: u32) -> u32 {
        (self.gaps >> (2 * depth)) as u32 & 3
    }

    /// The words of the plan record.
    pub fn pack(&self) -> [u32; PLAN_WORDS] {
        let mut words = [0u32; PLAN_WORDS];
        words[0] = self.gaps as u32;
        words[1] = (self.gaps >> 32) as u32;
        words[2] = self.last;
        words[3] = self.weight;
        words[4..].copy_from_slice(&self.attack);
        words
    }
}

/// A subproblem: plan `plan` with the inner rows above depth `depth` filled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Task {
    /// Index of the plan in the plan table.
    pub plan: u32,
    /// Depth of the next row to fill.
    pub depth: u32,
    /// Columns of the inner queens.
    pub cols: u32,
    /// "\" diagonals of the inner queens at this row (bit = column).
    pub down_right: u64,
    /// "/" diagonals of the inner queens at this row, `DR_OFFSET` bits up.
    pub down_left: u64,
}

impl Task {
    /// The whole search of plan number `index`.
    pub fn root(index: usize) -> Task {
        Task {
            plan: index as u32,
            depth: 0,
            cols: 0,
            down_right: 0,
            down_left: 0,
        }
    }

    /// Free columns of this task's row.
    fn free(&self, plan: &GpuPlan, n: usize) -> u32 {
        free_at(
            n,
            plan,
            self.cols,
            self.down_right,
            self.down_left,
            self.depth,
        )
    }

    /// The task one row further down with the queen `bit` placed.
    fn child(&self, plan: &GpuPlan, bit: u32) -> Task {
        let gap = plan.gap(self.depth);
        Task {
            plan: self.plan,
            depth: self.depth + 1,
            cols: self.cols | bit,
            down_right: (self.down_right | u64::from(bit)) << gap,
            down_left: (self.down_left | u64::from(bit) << DR_OFFSET) >> gap,
        }
    }

    /// The six words the kernel reads.
    pub fn pack(&self) -> [u32; TASK_WORDS] {
        [
            self.plan | self.depth << 24,
            self.cols,
            self.down_right as u32,
            (self.down_right >> 32) as u32,
            self.down_left as u32,
            (self.down_left >> 32) as u32,
        ]
    }

    /// Weighted solutions below this task, by the kernel's loop step for step (one stack word
    /// a level, masks restored by undoing the shifts, the look-ahead): the kernel's reference.
    pub fn count(&self, plans: &[GpuPlan], n: usize) -> u64 {
        let plan = &plans[self.plan as usize];
        let free_at = |cols, dl, dr, d| free_at(n, plan, cols, dl, dr, d);
        let start = self.depth;
        let (mut cols, mut dl, mut dr) = (self.cols, self.down_right, self.down_left);
        let mut d = start;
        let mut free = free_at(cols, dl, dr, d);
        let mut found = 0u64;
        if d == plan.last {
            found = u64::from(free.count_ones());
            free = 0;
        }
        let mut gap = plan.gap(d);
        let mut stack = [0u32; 32];
        loop {
            if free != 0 {
                let bit = free & free.wrapping_neg();
                let child_cols = cols | bit;
                let child_dl = (dl | u64::from(bit)) << gap;
                let child_dr = (dr | u64::from(bit) << DR_OFFSET) >> gap;
                let child_free = free_at(child_cols, child_dl, child_dr, d + 1);
                if d + 1 == plan.last {
                    found += u64::from(child_free.count_ones());
                    free ^= bit;
                    continue;
                }
                let child_gap = plan.gap(d + 1);
                let ahead = free_at(
                    child_cols,
                    child_dl << child_gap,
                    child_dr >> child_gap,
                    d + 2,
                );
                if child_free == 0 || ahead == 0 {
                    free ^= bit;
                    continue;
                }
                stack[(d - start) as usize] = free;
                (cols, dl, dr, free, gap) = (child_cols, child_dl, child_dr, child_free, child_gap);
                d += 1;
            } else {
                if d == start {
                    break;
                }
                d -= 1;
                let word = stack[(d - start) as usize];
                let bit = word & word.wrapping_neg();
                gap = plan.gap(d);
                cols ^= bit;
                dl = (dl >> gap) ^ u64::from(bit);
                dr = (dr << gap) ^ u64::from(bit) << DR_OFFSET;
                free = word ^ bit;
            }
        }
        found * u64::from(plan.weight)
    }
}

/// Free columns of the row at depth `d` of `plan` given the inner queens' masks there.
fn free_at(n: usize, plan: &GpuPlan, cols: u32, dl: u64, dr: u64, d: u32) -> u32 {
    let attacked = cols | dl as u32 | (dr >> DR_OFFSET) as u32 | plan.attack[d as usize];
    !attacked & crate::count::board_mask(n)
}

/// The kernel's view of every constellation with at least one row to fill, in the order given
/// (so tasks of one plan are neighbours and a warp's lanes mostly share a plan record).
pub fn gpu_plans(n: usize, constellations: &[CanonicalConstellation]) -> Vec<GpuPlan> {
    constellations
        .par_iter()
        .map(|c| (c, Plan::new(n, c.constellation)))
        .filter(|(_, plan)| plan.depth() >= 1)
        .map(|(c, plan)| GpuPlan::new(&plan, c.class_size() as u32))
        .collect()
}

/// Every child of every task one row further down; tasks already at their last row stay.
fn expand(n: usize, plans: &[GpuPlan], tasks: &[Task]) -> Vec<Task> {
    tasks
        .par_iter()
        .flat_map_iter(|task| {
            let plan = &plans[task.plan as usize];
            if task.depth == plan.last {
                return vec![*task];
            }
            let mut free = task.free(plan, n);
            let mut children = Vec::with_capacity(free.count_ones() as usize);
            while free != 0 {
                let bit = free & free.wrapping_neg();
                free ^= bit;
                children.push(task.child(plan, bit));
            }
            children
        })
        .collect()
}

/// The tasks after filling `depth` rows on the host (tasks of one plan stay together).
pub fn split(n: usize, plans: &[GpuPlan], depth: usize) -> Vec<Task> {
    let mut tasks: Vec<Task> = (0..plans.len()).map(Task::root).collect();
    for _ in 0..depth {
        tasks = expand(n, plans, &tasks);
    }
    tasks
}

/// Rows filled on the host when none is asked for: the first depth that gives at least
/// `min_tasks` tasks, or the depth where every task has reached its last row.
pub fn split_auto(n: usize, plans: &[GpuPlan], min_tasks: usize) -> (Vec<Task>, usize) {
    let mut tasks: Vec<Task> = (0..plans.len()).map(Task::root).collect();
    let mut depth = 0;
    while tasks.len() < min_tasks && tasks.iter().any(|t| t.depth != plans[t.plan as usize].last) {
        tasks = expand(n, plans, &tasks);
        depth += 1;
    }
    (tasks, depth)
}

/// How many tasks to aim for: a few million from N = 19 on, fewer below, where a launch is
/// over in milliseconds anyway.
pub fn target_tasks(n: usize) -> usize {
    match n {
        0..=12 => 1 << 10,
        13..=15 => 1 << 14,
        16..=18 => 1 << 18,
        _ => 2_000_000,
    }
}

/// Shared-memory stack levels a thread needs for these tasks.
pub fn stack_levels(plans: &[GpuPlan], tasks: &[Task]) -> usize {
    tasks
        .iter()
        .map(|t| (plans[t.plan as usize].last - t.depth) as usize)
        .max()
        .unwrap_or(0)
        .max(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::constellation::canonical_constellations;
    use crate::reference::known_counts;

    /// The kernel's algorithm over the tasks of every split depth gives the OEIS totals.
    #[test]
    fn split_tasks_add_up_to_the_oeis_totals() {
        for n in 1..=14 {
            let constellations = canonical_constellations(n);
            let plans = gpu_plans(n, &constellations);
            let expected = known_counts(n).unwrap().0;
            let border_only = crate::gpu::border_only_total(n, &constellations);
            for depth in 0..=4 {
                let tasks = split(n, &plans, depth);
                let sum: u64 = tasks.iter().map(|t| t.count(&plans, n)).sum();
                assert_eq!(
                    u128::from(sum) + border_only,
                    expected,
                    "n={n} depth={depth}"
                );
            }
        }
    }

    #[test]
    fn packing_keeps_every_field() {
        let n = 12;
        let plans = gpu_plans(n, &canonical_constellations(n));
        let task = split(n, &plans, 2)[77];
        let words = task.pack();
        assert_eq!(words[..2], [task.plan | task.depth << 24, task.cols]);
        assert_eq!(
            u64::from(words[2]) | u64::from(words[3]) << 32,
            task.down_right
        );
        assert_eq!(
            u64::from(words[4]) | u64::from(words[5]) << 32,
            task.down_left
        );
        let record = plans[task.plan as usize].pack();
        assert_eq!(record[2], plans[task.plan as usize].last);
        assert!(record[3] == 8 || record[3] == 4 || record[3] == 2);
    }
}
