//! GPU work: the plan table (per constellation: row gaps, last depth, class size and the
//! border queens' attacks on every row) and the tasks (a plan with its first inner rows filled
//! on the host), packed exactly as `kernels/queens.cu` reads them. `Task::count` runs the
//! kernel's algorithm on the CPU: the reference its results are tested against.

use rayon::prelude::*;

use crate::constellation::CanonicalConstellation;
use crate::kernels::{GAP_SHIFT, PLAN_WORDS};
use crate::search::Plan;

/// Words per task.
pub const TASK_WORDS: usize = 4;
/// The largest board the kernel counts: its masks keep the columns above the 5 bits a funnel
/// shift reads its count from (5 + 27 = 32), and its weighted total fits the kernel's 64-bit
/// counters (Q(27) < 2^58).
pub const MAX_N: usize = 27;

/// One constellation's search as the kernel sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GpuPlan {
    /// Depth of the last row to fill.
    last: u32,
    /// The class size the plan's count is weighted by.
    weight: u32,
    /// Per depth: the border queens' attacks (columns and diagonals) on its row, and at bit
    /// `GAP_SHIFT` the row gap from the previous depth (1 to 3; 0 at depth 0).
    table: [u32; 32],
}

impl GpuPlan {
    /// The kernel's view of `plan` (at least one row to fill), weighted by `weight`.
    pub fn new(plan: &Plan, weight: u32) -> GpuPlan {
        let n = plan.n();
        let queens = plan.constellation.queens(n);
        let board = (1u64 << n) - 1;
        let mut table = [0u32; 32];
        for (d, word) in table.iter_mut().enumerate().take(plan.depth()) {
            let row = plan.row(d);
            let mut mask = 0u64;
            for &(r, c) in &queens {
                let dist = r.abs_diff(row);
                mask |= 1 << c | (1u64 << c) << dist | (1u64 << c) >> dist;
            }
            let gap = if d == 0 { 0 } else { row - plan.row(d - 1) };
            *word = (mask & board) as u32 | (gap as u32) << GAP_SHIFT;
        }
        GpuPlan {
            last: plan.depth() as u32 - 1,
            weight,
            table,
        }
    }

    /// The border attacks on the row of depth `d`.
    fn attack(&self, d: u32) -> u32 {
        self.table[d as usize] & ((1 << GAP_SHIFT) - 1)
    }

    /// The row gap from depth `d - 1` to depth `d`.
    fn gap_into(&self, d: u32) -> u32 {
        self.table[d as usize] >> GAP_SHIFT
    }

    /// The words of the plan record.
    pub fn pack(&self) -> [u32; PLAN_WORDS] {
        let mut words = [0u32; PLAN_WORDS];
        words[0] = self.last;
        words[1] = self.weight;
        words[2..].copy_from_slice(&self.table);
        words
    }
}

/// The inner queens' lines seen from one row: occupied columns, "\\" diagonals (moving one
/// column right a row down) and "/" diagonals (moving left). Lines that leave the 32-bit
/// words never come back onto the board further down, and the kernel keeps every level's
/// masks on its stack, so nothing is restored by shifting back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Lines {
    cols: u32,
    down_right: u32,
    down_left: u32,
}

impl Lines {
    /// The lines one row gap `gap` further down after a queen on `bit`.
    fn place(self, bit: u32, gap: u32) -> Lines {
        Lines {
            cols: self.cols | bit,
            down_right: (self.down_right | bit) << gap,
            down_left: (self.down_left | bit) >> gap,
        }
    }

    /// Free columns of the row of depth `d` of `plan` under these lines.
    fn free(self, plan: &GpuPlan, d: u32, board: u32) -> u32 {
        !(self.cols | self.down_right | self.down_left | plan.attack(d)) & board
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
    /// "\\" diagonals of the inner queens at this row (bit = column).
    pub down_right: u32,
    /// "/" diagonals of the inner queens at this row.
    pub down_left: u32,
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

    fn lines(&self) -> Lines {
        Lines {
            cols: self.cols,
            down_right: self.down_right,
            down_left: self.down_left,
        }
    }

    /// Free columns of this task's row.
    fn free(&self, plan: &GpuPlan, n: usize) -> u32 {
        self.lines()
            .free(plan, self.depth, crate::count::board_mask(n))
    }

    /// The task one row further down with the queen `bit` placed.
    fn child(&self, plan: &GpuPlan, bit: u32) -> Task {
        let lines = self.lines().place(bit, plan.gap_into(self.depth + 1));
        Task {
            plan: self.plan,
            depth: self.depth + 1,
            cols: lines.cols,
            down_right: lines.down_right,
            down_left: lines.down_left,
        }
    }

    /// Calls `visit` on every task `rows` rows below this one, depth-first with the columns
    /// in increasing order: the order that filling one level after another gives (a level
    /// keeps its parents' order and lists each parent's children by column). A task that
    /// reaches its plan's last row on the way is visited as it is, and one whose row has no
    /// free column has no task below it.
    pub fn descend<F: FnMut(&Task)>(&self, plan: &GpuPlan, n: usize, rows: usize, visit: &mut F) {
        if rows == 0 || self.depth == plan.last {
            visit(self);
            return;
        }
        let mut free = self.free(plan, n);
        while free != 0 {
            let bit = free & free.wrapping_neg();
            free ^= bit;
            let child = self.child(plan, bit);
            // The last row visits its children in place: a call per task made the whole walk
            // several times slower (docs/benchmarks.md).
            if rows == 1 {
                visit(&child);
            } else {
                child.descend(plan, n, rows - 1, visit);
            }
        }
    }

    /// The tasks [`Task::descend`] visits `rows` rows below this one, counted from the tasks
    /// a row above them (each gives its row's free columns, or itself at its last row).
    fn census(&self, plan: &GpuPlan, n: usize, rows: usize) -> Census {
        let Some(above) = rows.checked_sub(1) else {
            return Census {
                tasks: 1,
                open: usize::from(self.depth != plan.last),
            };
        };
        let mut census = Census::default();
        self.descend(plan, n, above, &mut |task| {
            if task.depth == plan.last {
                census.tasks += 1;
            } else {
                let children = task.free(plan, n).count_ones() as usize;
                census.tasks += children;
                if task.depth + 1 != plan.last {
                    census.open += children;
                }
            }
        });
        census
    }

    /// The four words the kernel reads.
    pub fn pack(&self) -> [u32; TASK_WORDS] {
        [
            self.plan | self.depth << 24,
            self.cols,
            self.down_right,
            self.down_left,
        ]
    }

    /// Weighted solutions below this task, by the kernel's loop pass for pass (a pop to the
    /// last stored level when the level is exhausted, then one try and a move to the child,
    /// which gets no column to try if it is dead; a stack of the levels with untried columns,
    /// linked; the look-ahead; the popcount of the last row): the kernel's reference.
    pub fn count(&self, plans: &[GpuPlan], n: usize) -> u64 {
        let plan = &plans[self.plan as usize];
        let board = crate::count::board_mask(n);
        let start = self.depth;
        let mut lines = self.lines();
        let mut free = lines.free(plan, start, board);
        let mut found = 0u64;
        if start == plan.last {
            found = u64::from(free.count_ones());
            free = 0;
        }
        // A level is stored whenever it has untried columns (the queen being tried already
        // taken out), with a link to the stored level below it; a pop goes straight to the
        // last stored level, so every pass tries a queen.
        let mut stack = [(0u32, lines, None::<usize>); 32];
        let mut below = None;
        let mut level = 0usize;
        loop {
            if free == 0 {
                let Some(target) = below else { break };
                (free, lines, below) = stack[target];
                level = target;
            }
            let d = start + level as u32;
            let bit = free & free.wrapping_neg();
            let rest = free ^ bit;
            if rest != 0 {
                stack[level] = (rest, lines, below);
                below = Some(level);
            }
            let child = lines.place(bit, plan.gap_into(d + 1));
            let child_free = child.free(plan, d + 1, board);
            (lines, level) = (child, level + 1);
            // The kernel's sentinel past the last depth: the row before the last counts its
            // children, and its child has nothing to try.
            if d + 1 == plan.last {
                found += u64::from(child_free.count_ones());
                free = 0;
                continue;
            }
            // Look-ahead: the row after the child's must keep a free square.
            let ahead = child
                .place(0, plan.gap_into(d + 2))
                .free(plan, d + 2, board);
            free = if ahead == 0 { 0 } else { child_free };
        }
        found * u64::from(plan.weight)
    }
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

/// The tasks after filling `depth` rows on the host, in the order of [`Task::descend`] from
/// each plan's root in turn (so tasks of one plan stay together).
pub fn split(n: usize, plans: &[GpuPlan], depth: usize) -> Vec<Task> {
    plans
        .par_iter()
        .enumerate()
        .flat_map_iter(|(index, plan)| {
            let mut tasks = Vec::new();
            Task::root(index).descend(plan, n, depth, &mut |task| tasks.push(*task));
            tasks
        })
        .collect()
}

/// The share of the tasks, counted at the chosen depth, whose plans are split a row deeper
/// (the shares tried: docs/benchmarks.md).
const TAIL_SHARE: f64 = 0.1;

/// How many tasks each plan splits into, counted without storing a task, so that the packed
/// words can be written in parallel straight into their final places. The plans from
/// `deeper_from` on are split a row deeper than the others.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskCounts {
    depth: usize,
    deeper_from: usize,
    /// Tasks the plans from `deeper_from` on had at `depth`, before they went a row deeper.
    tail_at_depth: usize,
    per_plan: Vec<usize>,
}

impl TaskCounts {
    /// The counts when `depth` rows are filled on the host.
    pub fn at(n: usize, plans: &[GpuPlan], depth: usize) -> TaskCounts {
        TaskCounts {
            depth,
            deeper_from: plans.len(),
            tail_at_depth: 0,
            per_plan: census(n, plans, depth).iter().map(|c| c.tasks).collect(),
        }
    }

    /// The counts at the first depth that gives at least `min_tasks` tasks, or at the first
    /// depth where no task can go deeper (every one at its plan's last row, or none left).
    ///
    /// This is the rule of filling one level after another and stopping as soon as either
    /// holds, which is how the depth was chosen when every level was stored: the tasks after
    /// `d` levels are exactly those [`Task::descend`] visits `d` rows below the roots, so
    /// counting them and the ones short of their last row decides the same way. Counting
    /// level `d` visits only the tasks of level `d - 1`, so trying each depth in turn costs
    /// little beside writing the chosen one (N = 20 on 2 cores: 2 ms against 50 ms).
    pub fn auto(n: usize, plans: &[GpuPlan], min_tasks: usize) -> TaskCounts {
        let mut depth = 0;
        loop {
            let censuses = census(n, plans, depth);
            let tasks: usize = censuses.iter().map(|c| c.tasks).sum();
            let open: usize = censuses.iter().map(|c| c.open).sum();
            if tasks >= min_tasks || open == 0 {
                let mut counts = TaskCounts {
                    depth,
                    deeper_from: plans.len(),
                    tail_at_depth: 0,
                    per_plan: censuses.iter().map(|c| c.tasks).collect(),
                };
                if open != 0 {
                    counts.deepen_tail(n, plans, TAIL_SHARE);
                }
                return counts;
            }
            depth += 1;
        }
    }

    /// Splits the last plans, those that hold the last `share` of the tasks, one row deeper.
    ///
    /// A launch ends when its slowest thread finishes the task it holds when the tasks run
    /// out, so the tasks handed out last should all be small; splitting every plan a row deeper
    /// cuts the tail as well but makes seven times the tasks to write and upload
    /// (docs/benchmarks.md).
    fn deepen_tail(&mut self, n: usize, plans: &[GpuPlan], share: f64) {
        let total = self.total() as f64;
        let mut tail = 0;
        let mut start = plans.len();
        while start > 0 && (tail as f64) < share * total {
            start -= 1;
            tail += self.per_plan[start];
        }
        let deeper = census(n, &plans[start..], self.depth + 1);
        for (count, census) in self.per_plan[start..].iter_mut().zip(deeper) {
            *count = census.tasks;
        }
        self.deeper_from = start;
        self.tail_at_depth = tail;
    }

    /// How far the work has come when the first `handed_out` tasks have been handed out, in
    /// tasks at [`TaskCounts::depth`]: a task of the deeper tail counts as the share of its
    /// parent it is, so that a progress bar does not race through the tail's many small tasks
    /// (N = 21: the last 10% of the work is 40% of the tasks).
    pub fn work_done(&self, handed_out: u64) -> u64 {
        let head = self.per_plan[..self.deeper_from].iter().sum::<usize>() as u64;
        let tail_tasks = self.total() as u64 - head;
        if handed_out <= head || tail_tasks == 0 {
            return handed_out.min(head);
        }
        let into_tail = (handed_out - head).min(tail_tasks);
        let scaled = u128::from(into_tail) * self.tail_at_depth as u128 / u128::from(tail_tasks);
        // At most tail_at_depth, so it fits.
        head + scaled as u64
    }

    /// The work of all tasks, in the units of [`TaskCounts::work_done`].
    pub fn work(&self) -> u64 {
        self.work_done(self.total() as u64)
    }

    /// Plans split a row deeper than [`TaskCounts::depth`].
    pub fn deeper_plans(&self) -> usize {
        self.per_plan.len() - self.deeper_from
    }

    /// Rows filled on the host for plan number `index`.
    fn depth_of(&self, index: usize) -> usize {
        self.depth + usize::from(index >= self.deeper_from)
    }

    /// Rows filled on the host for the first plans (all but the tail that goes a row deeper).
    pub fn depth(&self) -> usize {
        self.depth
    }

    /// Tasks over all plans.
    pub fn total(&self) -> usize {
        self.per_plan.iter().sum()
    }
}

/// The tasks of every plan `depth` rows below its root, counted in parallel over the plans.
fn census(n: usize, plans: &[GpuPlan], depth: usize) -> Vec<Census> {
    plans
        .par_iter()
        .enumerate()
        .map(|(index, plan)| Task::root(index).census(plan, n, depth))
        .collect()
}

/// The tasks some rows below a task: how many, and how many of them are short of their
/// plan's last row.
#[derive(Debug, Clone, Copy, Default)]
struct Census {
    tasks: usize,
    open: usize,
}

/// Tasks packed exactly as the kernel reads them, [`TASK_WORDS`] words a task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackedTasks {
    /// The words of every task, in the order of [`split`].
    pub words: Vec<u32>,
    /// Shared-memory stack levels a thread needs for these tasks: the most rows a task still
    /// fills, and at least one.
    pub levels: usize,
}

impl PackedTasks {
    /// Packs the tasks that `counts` counted, each plan's into its own part of the final
    /// buffer, in parallel over the plans: no task is stored on the way and no word copied
    /// twice. The buffer starts zeroed by the allocator, so its pages are first touched (and
    /// faulted in) by the threads that write them.
    pub fn new(n: usize, plans: &[GpuPlan], counts: &TaskCounts) -> PackedTasks {
        // The counts are of tasks that exist, so their words would fail to allocate long
        // before the product could overflow.
        let mut words = vec![0u32; counts.total() * TASK_WORDS];
        let mut parts = Vec::with_capacity(plans.len());
        let mut rest = words.as_mut_slice();
        for &tasks in &counts.per_plan {
            let (part, tail) = std::mem::take(&mut rest).split_at_mut(tasks * TASK_WORDS);
            parts.push(part);
            rest = tail;
        }
        let levels = parts
            .into_par_iter()
            .zip(plans.par_iter())
            .enumerate()
            .map(|(index, (part, plan))| {
                let mut slots = part.chunks_exact_mut(TASK_WORDS);
                let mut levels = 0;
                Task::root(index).descend(plan, n, counts.depth_of(index), &mut |task| {
                    slots
                        .next()
                        .expect("the census counted every task")
                        .copy_from_slice(&task.pack());
                    levels = levels.max(plan.last - task.depth);
                });
                assert!(slots.next().is_none(), "the census counted only real tasks");
                levels as usize
            })
            .max()
            .unwrap_or(0)
            .max(1);
        PackedTasks { words, levels }
    }
}

/// How many tasks to aim for. From N = 18 on, a few million: twenty and more for each of the
/// ~150,000 threads of a GPU, so that the longest task is short beside a thread's share and
/// the threads finish together. Fewer below, where a launch is over in milliseconds anyway.
pub fn target_tasks(n: usize) -> usize {
    match n {
        0..=12 => 1 << 10,
        13..=15 => 1 << 14,
        16..=17 => 1 << 18,
        _ => 3_000_000,
    }
}

#[cfg(test)]
mod tests;
