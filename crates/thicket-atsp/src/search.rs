//! Exact ATSP by depth-first branch-and-bound over partial tours that start at city 0
//! (Carneiro 2017, sec. 3.1): a node is a path from city 0, its cost and the set of cities it
//! visits; the search is non-recursive, with an explicit stack of one frame per depth.
//!
//! A child is pruned when its bound reaches the incumbent, so with the optimum as the initial
//! upper bound only the "critical subtree" is visited, as in the thesis's experiments.
//! `nodes` counts every child generated and not pruned (at depths 2..=N; the root is not
//! counted), complete tours included.
//!
//! The assignment-bound search also drops a path when an earlier one visiting the same
//! cities and ending at the same city was no dearer (see `dominance`); the partial-bound
//! search stays the thesis's plain enumeration. It also visits interchangeable cities in
//! index order only (see `twins`).
//!
//! The Held–Karp bound has its own search (see `held_karp_search`), which shares the
//! incumbent, counters, twins and dominance table defined here.
//!
//! With more than one thread, the tree is expanded serially to [`SPLIT_DEPTH`] cities and
//! the subtrees below are searched in parallel by rayon; the threads share the incumbent's
//! cost through an atomic minimum, so a tour found in one subtree prunes all the others.

use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use rayon::prelude::*;
use serde::Serialize;
use thicket_core::{Error, Progress, Result, StopFlag};

use super::assignment::Assignment;
use super::dominance::{self, Dominance};
use super::held_karp_search;
use super::heuristic::heuristic_tour;
use super::instance::Instance;
use super::twins::Twins;

/// Path length (cities, city 0 included) at which the parallel search splits the tree.
pub const SPLIT_DEPTH: usize = 3;

/// How often (in nodes) a worker publishes its node count and checks for a stop.
const FLUSH_EVERY: u64 = 1 << 12;

/// The lower bound a node is pruned by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Bound {
    /// The thesis's bound: the cost of the partial path alone.
    Partial,
    /// The path's cost plus the assignment-problem bound on its completion, updated
    /// incrementally; children are tried in order of increasing reduced cost.
    Assignment,
    /// The path's cost plus a Held–Karp Lagrangian 1-arborescence bound on its completion
    /// (see `held_karp_search`); children are tried in order of increasing bound.
    HeldKarp,
}

/// How [`branch_and_bound`] searches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AtspOptions {
    /// The bound to prune with.
    pub bound: Bound,
    /// A known upper bound (the thesis uses the optimum): the search proves that no tour is
    /// cheaper, or finds the cheapest one. Without it the heuristic tour's cost is used.
    pub upper_bound: Option<i64>,
    /// Worker threads: 1 runs the serial search, more run subtrees in parallel.
    pub threads: usize,
    /// Stop after about this many nodes, returning the best tour found as not proven.
    pub node_limit: Option<u64>,
    /// Stop at this instant, returning the best tour found as not proven, with a proven
    /// lower bound.
    pub deadline: Option<Instant>,
}

impl Default for AtspOptions {
    fn default() -> AtspOptions {
        AtspOptions {
            bound: Bound::HeldKarp,
            upper_bound: None,
            threads: 1,
            node_limit: None,
            deadline: None,
        }
    }
}

/// The result of [`branch_and_bound`] and of the GPU strategies.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AtspSolution {
    /// The cost of `tour`.
    pub cost: i64,
    /// The best tour found, as a permutation of the cities starting with city 0.
    pub tour: Vec<usize>,
    /// Nodes of the search that proved (or, when stopped, looked for) the optimum.
    pub nodes: u64,
    /// Whether the search finished, so that no tour is cheaper than `cost`.
    pub proven_optimal: bool,
    /// No tour is cheaper than this: `cost` itself once proven optimal, else the cheapest
    /// bound of the parts of the search left open when it stopped.
    pub lower_bound: i64,
}

/// Finds a cheapest tour of `inst` and proves it optimal.
///
/// The initial incumbent is the cheaper of the heuristic tour and `upper_bound`. If the
/// given bound is below the heuristic and the search finds nothing cheaper, a second search
/// that stops at its first tour costing at most the bound supplies the tour (its nodes are not
/// counted); should no such tour exist, the bound was wrong and the search reruns from the
/// heuristic tour.
pub fn branch_and_bound(
    inst: &Instance,
    opts: &AtspOptions,
    progress: &Progress,
) -> Result<AtspSolution> {
    if opts.threads == 0 {
        return Err(Error::InvalidInput("threads must be at least 1".into()));
    }
    let pool = thicket_core::Workers::new(opts.threads)?;
    let (heur_tour, heur_cost) = heuristic_tour(inst);
    let run = |threshold: i64, best: Option<(i64, Vec<usize>)>, stop_on_first: bool| {
        let shared = Shared::new(inst, opts, threshold, best, stop_on_first, progress);
        pool.install(|| search(&shared, progress));
        shared.finish()
    };
    let heuristic = Some((heur_cost, heur_tour));
    let user = opts.upper_bound.filter(|&ub| ub < heur_cost);
    let Some(ub) = user else {
        return Ok(run(heur_cost, heuristic, false));
    };
    let proof = run(ub, None, false);
    if !proof.tour.is_empty() || !proof.proven_optimal {
        return Ok(proof);
    }
    let witness = run(ub + 1, None, true);
    if !witness.tour.is_empty() {
        return Ok(AtspSolution {
            nodes: proof.nodes,
            lower_bound: witness.cost,
            proven_optimal: true,
            ..witness
        });
    }
    Ok(run(heur_cost, heuristic, false))
}

/// Searches `inst` for a tour cheaper than `threshold` alone: no heuristic start, no witness
/// search. Returns the cheapest such tour, or an empty tour of cost `threshold` when none is
/// cheaper; runs on the current rayon pool. The entry point of ledgered runs, which solve a
/// tree subtree by subtree with their own incumbent (see `ledgered`).
pub fn solve_below(
    inst: &Instance,
    opts: &AtspOptions,
    threshold: i64,
    progress: &Progress,
) -> AtspSolution {
    let shared = Shared::new(inst, opts, threshold, None, false, progress);
    search(&shared, progress);
    shared.finish()
}

/// What the workers share: the instance, the incumbent and the counters.
pub(super) struct Shared<'a> {
    pub(super) inst: &'a Instance,
    bound: Bound,
    threads: usize,
    /// Nodes whose bound reaches this are pruned: the incumbent's cost, or one more than
    /// the cost sought when looking for a witness.
    threshold: AtomicI64,
    best: Mutex<Option<(i64, Vec<usize>)>>,
    nodes: AtomicU64,
    node_limit: u64,
    deadline: Option<Instant>,
    /// A proven lower bound on every tour of the parts left open should the search stop
    /// early (raised by the searches as they learn more).
    floor: AtomicI64,
    pub(super) stop: AtomicBool,
    /// The caller's request to stop (Ctrl-C in Python), checked with the node count.
    caller_stop: Option<StopFlag>,
    stopped_early: AtomicBool,
    stop_on_first: bool,
    pub(super) dominance: Option<Dominance>,
    /// Twin groups, visited in index order (all bounds but the partial one).
    pub(super) twins: Twins,
}

impl<'a> Shared<'a> {
    fn new(
        inst: &'a Instance,
        opts: &AtspOptions,
        threshold: i64,
        best: Option<(i64, Vec<usize>)>,
        stop_on_first: bool,
        progress: &Progress,
    ) -> Shared<'a> {
        Shared {
            inst,
            bound: opts.bound,
            threads: opts.threads,
            threshold: AtomicI64::new(threshold),
            best: Mutex::new(best),
            nodes: AtomicU64::new(0),
            node_limit: opts.node_limit.unwrap_or(u64::MAX),
            deadline: opts.deadline,
            floor: AtomicI64::new(i64::MIN),
            stop: AtomicBool::new(false),
            caller_stop: progress.stop_flag(),
            stopped_early: AtomicBool::new(false),
            stop_on_first,
            dominance: (opts.bound != Bound::Partial && inst.n <= dominance::MAX_CITIES)
                .then(Dominance::new),
            twins: match opts.bound {
                Bound::Assignment | Bound::HeldKarp => Twins::find(inst),
                Bound::Partial => Twins::none(inst.n),
            },
        }
    }

    #[inline(always)]
    pub(super) fn threshold(&self) -> i64 {
        self.threshold.load(Ordering::Relaxed)
    }

    /// Records a complete tour `path` of cost `cost` if it beats the incumbent.
    pub(super) fn offer(&self, cost: i64, path: &[usize]) {
        if cost >= self.threshold.fetch_min(cost, Ordering::Relaxed) {
            return;
        }
        let mut best = self.best.lock().unwrap_or_else(|e| e.into_inner());
        if best.as_ref().is_none_or(|(c, _)| cost < *c) {
            *best = Some((cost, path.to_vec()));
        }
        if self.stop_on_first {
            self.stop.store(true, Ordering::Relaxed);
        }
    }

    /// Adds a worker's nodes; returns whether the workers should stop.
    pub(super) fn flush(&self, nodes: &mut u64) -> bool {
        let total = self.nodes.fetch_add(*nodes, Ordering::Relaxed) + *nodes;
        *nodes = 0;
        let caller_stopped = self.caller_stop.as_ref().is_some_and(StopFlag::is_raised);
        if total >= self.node_limit || caller_stopped {
            self.stop_early();
        }
        self.expired() || self.stop.load(Ordering::Relaxed)
    }

    /// When the search must stop, if ever.
    pub(super) fn deadline(&self) -> Option<Instant> {
        self.deadline
    }

    /// Whether the deadline has passed (which stops every worker, the answer not proven).
    pub(super) fn expired(&self) -> bool {
        let late = self.deadline.is_some_and(|d| Instant::now() >= d);
        if late {
            self.stop_early();
        }
        late
    }

    fn stop_early(&self) {
        self.stopped_early.store(true, Ordering::Relaxed);
        self.stop.store(true, Ordering::Relaxed);
    }

    /// Records that no tour of the parts left open costs less than `bound`.
    pub(super) fn raise_floor(&self, bound: i64) {
        self.floor.fetch_max(bound, Ordering::Relaxed);
    }

    fn finish(self) -> AtspSolution {
        let best = self.best.into_inner().unwrap_or_else(|e| e.into_inner());
        let (cost, tour) = best.unwrap_or((self.threshold.into_inner(), Vec::new()));
        let proven_optimal = !self.stopped_early.into_inner();
        AtspSolution {
            cost,
            tour,
            nodes: self.nodes.into_inner(),
            proven_optimal,
            lower_bound: match proven_optimal {
                true => cost,
                false => self.floor.into_inner().min(cost),
            },
        }
    }
}

/// A subtree root handed to a worker.
struct Task {
    path: Vec<usize>,
    partial: i64,
    relaxation: Option<Assignment>,
}

/// Runs the whole search: serially from the root with one thread, else by splitting.
fn search(shared: &Shared, progress: &Progress) {
    if shared.bound == Bound::HeldKarp {
        return held_karp_search::search(shared, progress);
    }
    let root = Task {
        path: vec![0],
        partial: 0,
        relaxation: (shared.bound == Bound::Assignment).then(|| {
            let mut visited = vec![false; shared.inst.n];
            visited[0] = true;
            Assignment::solve(shared.inst, &shared.twins, 0, &visited)
        }),
    };
    shared.raise_floor(root.relaxation.as_ref().map_or(0, Assignment::value));
    if shared.threads == 1 {
        progress.set_total(1);
        Dfs::new(shared, root, usize::MAX).run(&mut Vec::new());
        progress.inc(1);
        return;
    }
    let mut tasks = Vec::new();
    Dfs::new(shared, root, SPLIT_DEPTH).run(&mut tasks);
    progress.set_total(tasks.len() as u64);
    tasks.into_par_iter().for_each(|task| {
        if !shared.stop.load(Ordering::Relaxed) {
            Dfs::new(shared, task, usize::MAX).run(&mut Vec::new());
        }
        progress.inc(1);
    });
}

/// One depth's frame of the explicit stack.
struct Frame {
    /// Path cost from city 0 to the frame's last city.
    partial: i64,
    /// Lower bound on any tour through this path.
    bound: i64,
    /// Partial bound: the next city to try. Assignment bound: the index into `order`.
    next: usize,
    /// Assignment bound: unvisited cities by increasing reduced cost, with that cost.
    order: Vec<(i64, usize)>,
    relaxation: Option<Assignment>,
}

/// A depth-first search below one subtree root.
struct Dfs<'a, 'b> {
    shared: &'a Shared<'b>,
    path: Vec<usize>,
    visited: Vec<bool>,
    /// `visited` as a bit mask, for the dominance table (instances it serves only).
    mask: u128,
    /// `frames[d]` belongs to the path of `d + 1` cities.
    frames: Vec<Frame>,
    base: usize,
    /// Path length at which children become tasks instead of being searched.
    split: usize,
    nodes: u64,
}

impl<'a, 'b> Dfs<'a, 'b> {
    fn new(shared: &'a Shared<'b>, root: Task, split: usize) -> Dfs<'a, 'b> {
        let n = shared.inst.n;
        let mut visited = vec![false; n];
        let mut mask = 0u128;
        for &c in &root.path {
            visited[c] = true;
            mask |= bit(c);
        }
        let frames = (0..n)
            .map(|_| Frame {
                partial: 0,
                bound: 0,
                next: 0,
                order: Vec::with_capacity(n),
                relaxation: None,
            })
            .collect();
        let base = root.path.len();
        let mut dfs = Dfs {
            shared,
            path: root.path,
            visited,
            mask,
            frames,
            base,
            split,
            nodes: 0,
        };
        let frame = &mut dfs.frames[base - 1];
        frame.partial = root.partial;
        frame.bound = root.partial + root.relaxation.as_ref().map_or(0, Assignment::value);
        frame.relaxation = root.relaxation;
        dfs.open_frame(base - 1);
        dfs
    }

    /// Prepares the frame at `depth` for trying its children.
    fn open_frame(&mut self, depth: usize) {
        let inst = self.shared.inst;
        let last = self.path[depth];
        let frame = &mut self.frames[depth];
        frame.next = 1;
        if let Some(ap) = &frame.relaxation {
            frame.next = 0;
            frame.order.clear();
            frame.order.extend(
                (1..inst.n)
                    .filter(|&c| !self.visited[c])
                    .filter(|&c| self.shared.twins.before(c).is_none_or(|t| self.visited[t]))
                    .map(|c| (ap.reduced_cost(inst, &self.shared.twins, last, c), c)),
            );
            frame.order.sort_unstable();
        }
    }

    /// The next child of the frame at `depth` whose cheap bound is below `threshold`, with
    /// the path cost through it; `None` when the frame is exhausted.
    fn next_child(&mut self, depth: usize, threshold: i64) -> Option<(usize, i64)> {
        let inst = self.shared.inst;
        let last = self.path[depth];
        let frame = &mut self.frames[depth];
        if frame.relaxation.is_some() {
            let &(reduced, city) = frame.order.get(frame.next)?;
            // Fixing an arc raises the bound by at least its reduced cost, and the order is
            // by reduced cost, so the first child that fails ends the frame.
            if frame.bound + reduced >= threshold {
                return None;
            }
            frame.next += 1;
            return Some((city, frame.partial + inst.cost(last, city)));
        }
        let row = &inst.cost[last * inst.n..(last + 1) * inst.n];
        let mut city = frame.next;
        while city < inst.n && (self.visited[city] || frame.partial + row[city] >= threshold) {
            city += 1;
        }
        frame.next = city + 1;
        (city < inst.n).then(|| (city, frame.partial + row[city]))
    }

    /// Searches the subtree; children at the split depth go to `tasks` instead.
    fn run(mut self, tasks: &mut Vec<Task>) {
        let shared = self.shared;
        let inst = shared.inst;
        let n = inst.n;
        let mut since_flush = 0u64;
        loop {
            let depth = self.path.len() - 1;
            let threshold = shared.threshold();
            let Some((city, partial)) = self.next_child(depth, threshold) else {
                if self.path.len() == self.base {
                    break;
                }
                let last = self.path.pop().expect("the path is longer than its base");
                self.visited[last] = false;
                self.mask &= !bit(last);
                continue;
            };
            if depth + 2 == n {
                let cost = partial + inst.cost(city, 0);
                // Both bounds only hand out a last city whose bound is below the threshold
                // (with the assignment bound, the bound of a complete tour is its cost).
                self.nodes += 1;
                self.path.push(city);
                shared.offer(cost, &self.path);
                self.path.pop();
            } else {
                if let Some(table) = &shared.dominance {
                    if !table.admit(self.mask | bit(city), city, partial) {
                        continue;
                    }
                }
                let (parent, child) = self.frames.split_at_mut(depth + 1);
                let (parent, child) = (&parent[depth], &mut child[0]);
                self.visited[city] = true;
                child.partial = partial;
                child.bound = partial;
                match (&parent.relaxation, &mut child.relaxation) {
                    (Some(ap), Some(slot)) => slot.clone_from(ap),
                    (Some(ap), slot) => *slot = Some(ap.clone()),
                    (None, _) => {}
                }
                if let Some(ap) = &mut child.relaxation {
                    ap.fix(inst, &shared.twins, self.path[depth], city, &self.visited);
                    child.bound += ap.value();
                }
                if child.bound >= threshold {
                    self.visited[city] = false;
                    continue;
                }
                self.nodes += 1;
                self.path.push(city);
                self.mask |= bit(city);
                if self.path.len() == self.split {
                    tasks.push(Task {
                        path: self.path.clone(),
                        partial,
                        relaxation: self.frames[depth + 1].relaxation.clone(),
                    });
                    self.path.pop();
                    self.visited[city] = false;
                    self.mask &= !bit(city);
                } else {
                    self.open_frame(depth + 1);
                }
            }
            since_flush += 1;
            if since_flush == FLUSH_EVERY {
                since_flush = 0;
                if shared.flush(&mut self.nodes) {
                    break;
                }
            }
        }
        shared.flush(&mut self.nodes);
    }
}

/// City `c`'s bit in a visited mask; cities past the mask's width (instances too large for
/// the dominance table, which never reads it) get none.
#[inline(always)]
pub(super) fn bit(c: usize) -> u128 {
    1u128.checked_shl(c as u32).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use thicket_core::{stoppable, StopFlag};

    #[test]
    fn a_raised_stop_flag_ends_the_search_unproven() {
        // 14 cities under the partial bound: millions of nodes, so the workers flush.
        let mut x = 7u64;
        let rows: Vec<Vec<i64>> = (0..14)
            .map(|_| {
                (0..14)
                    .map(|_| 1 + crate::test_support::lcg_below(&mut x, 1000) as i64)
                    .collect()
            })
            .collect();
        let inst = Instance::from_rows("random", &rows).unwrap();
        let opts = AtspOptions {
            bound: Bound::Partial,
            threads: 2,
            ..AtspOptions::default()
        };
        let flag = StopFlag::new();
        flag.raise();
        let stopped = stoppable(&flag, || {
            branch_and_bound(&inst, &opts, &Progress::hidden())
        })
        .unwrap();
        assert!(!stopped.proven_optimal);
        assert!(stopped.nodes < 1 << 16, "{} nodes", stopped.nodes);
    }
}
