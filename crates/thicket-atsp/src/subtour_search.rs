//! Exact ATSP by the assignment bound with subtour-elimination branching, after Carpaneto,
//! Dell'Amico and Toth (1995), *Exact solution of large-scale, asymmetric traveling salesman
//! problems* (ACM TOMS 21(4)).
//!
//! A node is the assignment relaxation under some forced and forbidden arcs. Its optimal
//! assignment is a set of cycles; if it is one cycle, that is the cheapest tour of the node.
//! Otherwise every tour leaves out at least one arc of any of its subtours, so the node splits
//! on a subtour of free arcs `a1..ak`: child r forbids `ar` and forces `a1..a(r-1)`, which
//! partitions the node's tours. A child's relaxation is its parent's with costs only raised,
//! so one augmenting path re-solves it (see `lap`). Which subtour: the search bounds the
//! children of each of the node's `BRANCH_CANDIDATES` (3) shortest subtours and keeps the split
//! that leaves the fewest below the incumbent (a light strong branching). Splitting on the
//! shortest alone, as Carpaneto, Dell'Amico and Toth do, took 2.3x the nodes and 1.4x the CPU
//! time on kro124p, 5x and 2x on ftv120 (2026-11-27, see `docs/atsp.md`).
//!
//! Where the root found subtour-cut multipliers (see `subtour_lagrangian`), every node also
//! keeps the assignment on the relaxed costs and its bound is the larger of the two; the plain
//! assignment still gives the cycles to branch on (short ones, so few children) and the exact
//! cost of a node whose assignment is a tour.
//!
//! Nodes are taken cheapest bound first from one queue that every thread shares, so the
//! cheapest open bound is always a proven lower bound on the optimum: a run stopped by its
//! deadline still answers with it (the stopped threads put their nodes back). The cycles of
//! every node with at most `PATCH_CYCLES` of them (and of every `PATCH_EVERY`th node) are
//! also patched into a tour (Karp's patching: the two cycles whose arcs swap most cheaply are
//! merged until one is left), which gives the incumbent on instances whose assignment bound is
//! tight, the ones this search is for.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::Instant;

use thicket_core::{Progress, StopFlag};

use super::heuristic::{improve, improve_until, tour_cost};
use super::instance::{Instance, MAX_COST, MAX_N};
use super::lap::{Lap, LapScratch};
use super::patching::{cycles, patched};
use super::search::AtspSolution;
use super::subtour_lagrangian::Relaxed;

/// The cost of an arc a node forbids (or of a city to itself): more than any tour.
pub(super) const FORBIDDEN: i64 = 4 * MAX_COST * MAX_N as i64;

/// Assignments at or above this value use a forbidden arc: the node has no tour. Any
/// assignment of allowed arcs costs far less (see `Relaxed`'s scale).
const INFEASIBLE: i64 = FORBIDDEN / 2;

/// Bytes of queued nodes' assignments kept for warm starts; past it, nodes are queued bare
/// and re-solved from scratch when taken.
const WARM_BYTES: usize = 1 << 30;

/// The shortest subtours of a node's assignment whose children are tried before it branches.
const BRANCH_CANDIDATES: usize = 3;

/// The most cycles a node's assignment may have for the search to patch them into a tour
/// (besides every `PATCH_EVERY`th node a thread expands). Patching costs O(n^2) a merge and
/// was a quarter of the search's time on kro124p when every node patched; tours patched from
/// many cycles are rarely the best, and the proof only needs the optimum found before the open
/// bound reaches it. Patching at most 4-6 cycles took the same nodes (kro124p 29,664-29,719
/// against 29,697) at 17-35% less CPU time (2026-11-27, 2 cores).
const PATCH_CYCLES: usize = 5;

/// Every this many nodes a thread expands, it patches one whatever its cycles: a run stopped
/// by its time limit early on (where assignments have many cycles) still improves its tour.
const PATCH_EVERY: u64 = 8;

/// One node of the search: its constraints and, unless memory ran short, its solved
/// relaxation.
struct Node {
    bound: i64,
    depth: u32,
    forbidden: Vec<(u32, u32)>,
    forced: Vec<(u32, u32)>,
    laps: Option<Laps>,
}

/// A node's solved relaxations: the plain assignment, whose cycles the node branches on, and
/// the one under subtour-cut multipliers (absent for the plain bound), which bounds it.
struct Laps {
    plain: Lap,
    relaxed: Option<Lap>,
}

impl Node {
    /// Cheapest bound first; among equal bounds the deepest, which is closest to a tour.
    fn key(&self) -> (Reverse<i64>, u32) {
        (Reverse(self.bound), self.depth)
    }
}

impl PartialEq for Node {
    fn eq(&self, other: &Node) -> bool {
        self.key() == other.key()
    }
}
impl Eq for Node {}
impl PartialOrd for Node {
    fn partial_cmp(&self, other: &Node) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Node {
    fn cmp(&self, other: &Node) -> std::cmp::Ordering {
        self.key().cmp(&other.key())
    }
}

/// The queue of open nodes and how many threads are expanding one.
struct Frontier {
    open: BinaryHeap<Node>,
    busy: usize,
    warm: usize,
}

/// What the threads share.
struct Shared {
    frontier: Mutex<Frontier>,
    wake: Condvar,
    /// The incumbent's cost: nodes bounded at or above it are pruned.
    threshold: AtomicI64,
    best: Mutex<(i64, Vec<usize>)>,
    nodes: AtomicU64,
    deadline: Option<Instant>,
    /// The caller's stop request (Ctrl-C in Python, a signal): honoured as the deadline is.
    stop: Option<StopFlag>,
    warm_limit: usize,
}

impl Shared {
    fn offer(&self, cost: i64, tour: &[usize]) {
        if cost >= self.threshold.fetch_min(cost, Ordering::Relaxed) {
            return;
        }
        let mut best = self.best.lock().unwrap_or_else(|e| e.into_inner());
        if cost < best.0 {
            *best = (cost, tour.to_vec());
        }
    }

    /// Whether the search must end: its deadline passed or its caller asked it to stop (a
    /// node takes milliseconds, and a node of thousands of cities checks it between its
    /// children, so either is answered within them).
    fn expired(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d)
            || self.stop.as_ref().is_some_and(StopFlag::is_raised)
    }

    /// Queues `children` (those still below the incumbent) and marks one thread idle.
    fn put_back(&self, children: Vec<Node>) {
        let threshold = self.threshold.load(Ordering::Relaxed);
        let mut frontier = self.frontier.lock().unwrap_or_else(|e| e.into_inner());
        for mut child in children.into_iter().filter(|c| c.bound < threshold) {
            if child.laps.is_some() {
                if frontier.warm < self.warm_limit {
                    frontier.warm += 1;
                } else {
                    child.laps = None;
                }
            }
            frontier.open.push(child);
        }
        frontier.busy -= 1;
        self.wake.notify_all();
    }

    /// The next node to expand, or `None` once the search is over (or out of time).
    fn take(&self) -> Option<Node> {
        let mut frontier = self.frontier.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if self.expired() {
                self.wake.notify_all();
                return None;
            }
            let threshold = self.threshold.load(Ordering::Relaxed);
            if frontier.open.peek().is_some_and(|n| n.bound >= threshold) {
                // Cheapest first: every open node is pruned.
                frontier.open.clear();
                frontier.warm = 0;
            }
            if let Some(node) = frontier.open.pop() {
                frontier.warm -= usize::from(node.laps.is_some());
                frontier.busy += 1;
                return Some(node);
            }
            if frontier.busy == 0 {
                self.wake.notify_all();
                return None;
            }
            frontier = self.wake.wait(frontier).unwrap_or_else(|e| e.into_inner());
        }
    }
}

/// Searches `inst` from the incumbent `start` on the current rayon pool until the optimum is
/// proven or `deadline` passes; the answer's `lower_bound` is then the cheapest open bound.
/// Nodes are bounded by the assignment on `relaxed`'s costs (the instance's own, or those
/// under subtour-cut multipliers).
pub(super) fn search(
    inst: &Instance,
    relaxed: &Relaxed,
    start: (i64, Vec<usize>),
    deadline: Option<Instant>,
    progress: &Progress,
) -> AtspSolution {
    let n = inst.n;
    let root = Node {
        bound: relaxed.root_bound,
        depth: 0,
        forbidden: Vec::new(),
        forced: Vec::new(),
        laps: None,
    };
    let shared = Shared {
        frontier: Mutex::new(Frontier {
            open: BinaryHeap::from([root]),
            busy: 0,
            warm: 0,
        }),
        wake: Condvar::new(),
        threshold: AtomicI64::new(start.0),
        best: Mutex::new(start),
        nodes: AtomicU64::new(0),
        deadline,
        stop: progress.stop_flag(),
        // A warm node keeps one assignment (24 bytes a city), or two under multipliers.
        warm_limit: WARM_BYTES / (n * if relaxed.is_plain() { 24 } else { 48 }).max(1),
    };
    rayon::broadcast(|_| {
        let mut worker = Worker::new(inst, relaxed);
        while let Some(node) = shared.take() {
            match worker.expand(&shared, node) {
                Expanded::Children(children) => {
                    shared.nodes.fetch_add(1, Ordering::Relaxed);
                    progress.inc(1);
                    shared.put_back(children);
                }
                // Not a node searched: it is open again, and not counted.
                Expanded::Reopened(node) => shared.put_back(vec![*node]),
            }
        }
    });
    let frontier = shared
        .frontier
        .into_inner()
        .unwrap_or_else(|e| e.into_inner());
    let (cost, tour) = shared.best.into_inner().unwrap_or_else(|e| e.into_inner());
    let open = frontier.open.peek().map_or(i64::MAX, |node| node.bound);
    AtspSolution {
        cost,
        tour,
        nodes: shared.nodes.into_inner(),
        proven_optimal: open >= cost,
        lower_bound: open.min(cost),
    }
}

/// What expanding a node gave.
enum Expanded {
    /// Its children (none where it was pruned or its assignment a tour).
    Children(Vec<Node>),
    /// The node itself, back open: the deadline came before its branching.
    Reopened(Box<Node>),
}

/// One thread's work space.
struct Worker<'a> {
    inst: &'a Instance,
    relaxed: &'a Relaxed,
    /// The costs under the constraints of the node being expanded (then of its children).
    costs: Vec<i64>,
    /// The relaxation's costs under the same constraints (empty for the plain bound).
    relaxed_costs: Vec<i64>,
    scratch: LapScratch,
    /// Nodes this thread expanded.
    expanded: u64,
}

impl<'a> Worker<'a> {
    fn new(inst: &'a Instance, relaxed: &'a Relaxed) -> Worker<'a> {
        Worker {
            inst,
            relaxed,
            costs: Vec::with_capacity(inst.n * inst.n),
            relaxed_costs: Vec::new(),
            scratch: LapScratch::default(),
            expanded: 0,
        }
    }

    /// Fills `costs` (and `relaxed_costs`) with the instance's (and the relaxation's) under
    /// `node`'s constraints.
    fn constrain(&mut self, node: &Node) {
        let n = self.inst.n;
        self.costs.clear();
        self.costs.extend_from_slice(&self.inst.cost);
        self.relaxed_costs.clear();
        if !self.relaxed.is_plain() {
            self.relaxed_costs.extend_from_slice(&self.relaxed.costs);
        }
        for i in 0..n {
            self.forbid(i, i);
        }
        for &(i, j) in &node.forbidden {
            self.forbid(i as usize, j as usize);
        }
        for &(i, j) in &node.forced {
            self.force(i as usize, j as usize);
        }
    }

    /// Forbids `i -> j` in both matrices.
    fn forbid(&mut self, i: usize, j: usize) {
        let n = self.inst.n;
        self.costs[i * n + j] = FORBIDDEN;
        if let Some(cost) = self.relaxed_costs.get_mut(i * n + j) {
            *cost = FORBIDDEN;
        }
    }

    /// Forbids every arc that leaves `i` or enters `j` but `i -> j`, in both matrices.
    fn force(&mut self, i: usize, j: usize) {
        let n = self.inst.n;
        for costs in [&mut self.costs, &mut self.relaxed_costs] {
            if costs.is_empty() {
                continue;
            }
            let kept = costs[i * n + j];
            costs[i * n..(i + 1) * n].fill(FORBIDDEN);
            for r in 0..n {
                costs[r * n + j] = FORBIDDEN;
            }
            costs[i * n + j] = kept;
        }
    }

    /// The bound of a node whose assignments are `laps` (under the current matrices), or
    /// `None` where it has no tour.
    fn bound_of(&self, laps: &Laps) -> Option<i64> {
        let n = self.inst.n;
        let plain = laps.plain.value(n, &self.costs);
        if plain >= INFEASIBLE {
            return None;
        }
        let Some(relaxed) = &laps.relaxed else {
            return Some(plain);
        };
        let value = relaxed.value(n, &self.relaxed_costs);
        (value < INFEASIBLE).then(|| plain.max(self.relaxed.bound(value)))
    }

    /// Expands `node`: offers its tour or patched cycles, and returns its children (none
    /// where it is pruned or a tour), or the node itself where the deadline came first.
    fn expand(&mut self, shared: &Shared, mut node: Node) -> Expanded {
        let n = self.inst.n;
        self.constrain(&node);
        let laps = match node.laps.take() {
            Some(laps) => laps,
            None => {
                // A solve from scratch takes seconds at thousands of cities: one the deadline
                // stops leaves the node open.
                let deadline = shared.deadline;
                let Some(plain) = Lap::try_solve(n, &self.costs, &mut self.scratch, deadline)
                else {
                    return Expanded::Reopened(Box::new(node));
                };
                let relaxed = match self.relaxed.is_plain() {
                    true => None,
                    false => {
                        let costs = &self.relaxed_costs;
                        let Some(lap) = Lap::try_solve(n, costs, &mut self.scratch, deadline)
                        else {
                            return Expanded::Reopened(Box::new(node));
                        };
                        Some(lap)
                    }
                };
                let laps = Laps { plain, relaxed };
                let Some(bound) = self.bound_of(&laps) else {
                    return Expanded::Children(Vec::new());
                };
                node.bound = bound.max(node.bound);
                laps
            }
        };
        if node.bound >= shared.threshold.load(Ordering::Relaxed) {
            return Expanded::Children(Vec::new());
        }
        // At thousands of cities a node's branching takes seconds: past the deadline the
        // node goes back open with its bound (which the answer's lower bound then counts).
        if shared.expired() {
            return Expanded::Reopened(Box::new(node));
        }
        // The plain assignment's cycles: its value is exact on a tour, and its subtours
        // are short (few children).
        let succ: Vec<usize> = (0..n).map(|i| laps.plain.col_of(i)).collect();
        let cycles = cycles(&succ);
        if cycles.len() == 1 {
            shared.offer(laps.plain.value(n, &self.costs), &tour_from(&succ));
            return Expanded::Children(Vec::new());
        }
        self.expanded += 1;
        if cycles.len() <= PATCH_CYCLES || self.expanded.is_multiple_of(PATCH_EVERY) {
            self.patch_and_offer(shared, &succ, &cycles, node.bound);
        }
        let mut is_forced = vec![false; n];
        for &(i, _) in &node.forced {
            is_forced[i as usize] = true;
        }
        let mut branches: Vec<Vec<(usize, usize)>> = cycles
            .iter()
            .map(|cycle| {
                cycle
                    .iter()
                    .filter(|&&i| !is_forced[i])
                    .map(|&i| (i, succ[i]))
                    .collect()
            })
            .collect();
        branches.sort_by_key(Vec::len);
        branches.truncate(BRANCH_CANDIDATES);
        // Of the shortest subtours, branch on the one that leaves the fewest children below
        // the incumbent (then the one whose cheapest child is dearest).
        let mut chosen: Option<Vec<Node>> = None;
        for (k, branch) in branches.iter().enumerate() {
            if shared.expired() {
                return Expanded::Reopened(Box::new(node));
            }
            if k > 0 {
                self.constrain(&node);
            }
            // A split with more children than the best so far cannot win: stop bounding it.
            let most = chosen.as_ref().map_or(usize::MAX, Vec::len);
            let Some(children) = self.children(shared, &node, &laps, branch, most) else {
                continue;
            };
            let rank = |c: &Vec<Node>| {
                let cheapest = c.iter().map(|child| child.bound).min().unwrap_or(i64::MAX);
                (c.len(), Reverse(cheapest))
            };
            if chosen
                .as_ref()
                .is_none_or(|best| rank(&children) < rank(best))
            {
                chosen = Some(children);
            }
            if chosen.as_ref().is_some_and(Vec::is_empty) {
                break;
            }
        }
        Expanded::Children(chosen.unwrap_or_default())
    }

    /// The children of `node` (whose assignments are `laps`, the matrices under its
    /// constraints) that split it on the subtour of free arcs `branch`: child r forbids arc r
    /// and forces the arcs before it; `None` once more than `most` of them are below the
    /// incumbent. Leaves the matrices with some of `branch`'s arcs forced.
    fn children(
        &mut self,
        shared: &Shared,
        node: &Node,
        laps: &Laps,
        branch: &[(usize, usize)],
        most: usize,
    ) -> Option<Vec<Node>> {
        let n = self.inst.n;
        let mut children = Vec::with_capacity(branch.len());
        let mut forced = node.forced.clone();
        for (r, &(i, j)) in branch.iter().enumerate() {
            // Out of time: this split is not finished (the node goes back open).
            if shared.expired() {
                return None;
            }
            if r > 0 {
                let (pi, pj) = branch[r - 1];
                self.force(pi, pj);
                forced.push((pi as u32, pj as u32));
            }
            let kept = (
                self.costs[i * n + j],
                self.relaxed_costs.get(i * n + j).copied(),
            );
            self.forbid(i, j);
            let mut child = Laps {
                plain: laps.plain.clone(),
                relaxed: laps.relaxed.clone(),
            };
            // Forced arcs are the plain assignment's: only row i moves there.
            child
                .plain
                .forbid_assigned(n, &self.costs, i, &mut self.scratch);
            if let Some(relaxed) = &mut child.relaxed {
                relaxed.reassign_loose(n, &self.relaxed_costs, &mut self.scratch);
            }
            let bound = self.bound_of(&child);
            self.costs[i * n + j] = kept.0;
            if let Some(cost) = kept.1 {
                self.relaxed_costs[i * n + j] = cost;
            }
            let Some(bound) = bound.map(|b| b.max(node.bound)) else {
                continue;
            };
            if bound >= shared.threshold.load(Ordering::Relaxed) {
                continue;
            }
            let mut forbidden = node.forbidden.clone();
            forbidden.push((i as u32, j as u32));
            children.push(Node {
                bound,
                depth: node.depth + 1,
                forbidden,
                forced: forced.clone(),
                laps: Some(child),
            });
            if children.len() > most {
                return None;
            }
        }
        Some(children)
    }

    /// Patches the cycles into one tour and offers it (polished by local search when it is
    /// close to the incumbent).
    fn patch_and_offer(&self, shared: &Shared, succ: &[usize], cycles: &[Vec<usize>], bound: i64) {
        let mut tour = tour_from(&patched(self.inst, succ, cycles));
        let incumbent = shared.threshold.load(Ordering::Relaxed);
        let cost = tour_cost(self.inst, &tour);
        if cost - incumbent <= incumbent - bound {
            improve_until(self.inst, &mut tour, shared.deadline);
            // Local search moves segments around: start the tour at city 0 again.
            let zero = tour
                .iter()
                .position(|&c| c == 0)
                .expect("a tour visits city 0");
            tour.rotate_left(zero);
        }
        shared.offer(tour_cost(self.inst, &tour), &tour);
    }
}

/// A tour from the cycles of the assignment `succ` (patched, then polished by local search),
/// from city 0, with its cost.
pub(super) fn patched_tour(inst: &Instance, succ: &[usize]) -> (i64, Vec<usize>) {
    let mut tour = tour_from(&patched(inst, succ, &cycles(succ)));
    improve(inst, &mut tour);
    let zero = tour
        .iter()
        .position(|&c| c == 0)
        .expect("a tour visits city 0");
    tour.rotate_left(zero);
    (tour_cost(inst, &tour), tour)
}

/// The tour a one-cycle successor function describes, from city 0.
pub(super) fn tour_from(succ: &[usize]) -> Vec<usize> {
    let mut tour = Vec::with_capacity(succ.len());
    let mut at = 0;
    loop {
        tour.push(at);
        at = succ[at];
        if at == 0 {
            return tour;
        }
    }
}

#[cfg(test)]
mod tests;
