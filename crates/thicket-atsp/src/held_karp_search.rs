//! The depth-first path-extension search with the Held–Karp Lagrangian bound (see
//! `held_karp`): a node is a path from city 0; its children's bounds are all computed when
//! it is expanded, each starting the subgradient ascent from the parent's multipliers, and the
//! children are searched cheapest bound first.
//!
//! Before any child's ascent, one 1-arborescence at the parent's multipliers bounds all the
//! children at once: a child's path adds the arc `last -> city`, and forcing that arc raises
//! the parent's Lagrangian value by at least the arc's reduced cost (see `arborescence`).
//! Most children fail this screen and never cost an ascent.
//!
//! The root's multipliers get a long ascent; a child's a short one, since its parent's are
//! already nearly right. A child whose 1-arborescence is a Hamiltonian cycle has its cheapest
//! completion in hand, which is offered as a tour and needs no subtree. Twins are visited in
//! index order and dominated paths dropped, as with the assignment bound.
//!
//! `nodes` counts the paths searched below (city 0 alone is not counted) and the complete
//! tours offered.
//!
//! With more than one thread, the root's children are handed out cheapest first from a
//! shared queue, so every thread works on the most promising subtree left.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use thicket_core::Progress;

use super::held_karp::{HeldKarp, Outcome, Schedule};
use super::instance::Instance;
use super::search::{bit, Shared};

/// How often (in nodes, each of which costs many arborescences) a worker publishes its node
/// count and checks for a stop.
const FLUSH_EVERY: u64 = 64;

/// The ascent at the root, where multipliers start from row minima.
const ROOT: Schedule = Schedule {
    iterations: 3000,
    step: 1.0,
    patience: 100,
    deflection: 0.9,
    deadline: None,
};

/// The ascent at every other node, from its parent's multipliers.
const CHILD: Schedule = Schedule {
    iterations: 15,
    step: 1.0,
    patience: 6,
    deflection: 0.5,
    deadline: None,
};

/// A child of an expanded node, waiting to be searched.
struct Child {
    /// Lower bound on every tour through the child's path.
    bound: i64,
    city: usize,
    /// The multipliers its bound was computed with (its children start from them).
    pi: Vec<f64>,
}

/// An expanded node: the path cost to it and its surviving children, cheapest first.
struct Frame {
    partial: i64,
    children: Vec<Child>,
    next: usize,
}

/// Runs the whole search.
pub(super) fn search(shared: &Shared, progress: &Progress) {
    let inst = shared.inst;
    let mut root = Worker::new(shared);
    // Taking each city's cheapest outgoing arc off its row makes every city's cheapest arc
    // free, a start closer to the optimum multipliers than zero.
    let mut pi: Vec<f64> = (0..inst.n)
        .map(|i| {
            -(0..inst.n)
                .filter(|&j| j != i)
                .map(|j| inst.cost(i, j))
                .min()
                .unwrap_or(0) as f64
        })
        .collect();
    let cities: Vec<usize> = (1..inst.n).collect();
    let outcome = root.hk.bound(
        inst,
        &shared.twins,
        0,
        &cities,
        &mut pi,
        shared.threshold(),
        &Schedule {
            deadline: shared.deadline(),
            ..ROOT
        },
    );
    match outcome {
        Outcome::Tour(order) => {
            root.offer_completion(&order);
            return;
        }
        Outcome::Bound(b) if b >= shared.threshold() => return,
        Outcome::Bound(b) => shared.raise_floor(b),
    }
    let tasks = root.expand(0, &pi);
    // A deadline during the root's expansion leaves its children incomplete.
    let all_children = !shared.stop.load(Ordering::Relaxed);
    root.finish();
    progress.set_total(tasks.len() as u64);
    let next = AtomicUsize::new(0);
    let done: Vec<AtomicBool> = tasks.iter().map(|_| AtomicBool::new(false)).collect();
    rayon::broadcast(|_| {
        let mut worker = Worker::new(shared);
        while let Some(k) = Some(next.fetch_add(1, Ordering::Relaxed)).filter(|&k| k < tasks.len())
        {
            if !shared.stop.load(Ordering::Relaxed) {
                worker.run(&tasks[k]);
                done[k].store(!shared.stop.load(Ordering::Relaxed), Ordering::Relaxed);
            }
            progress.inc(1);
        }
        worker.finish();
    });
    // A stopped search proved nothing below the cheapest root child it left unfinished (the
    // finished ones hold no tour below the incumbent).
    if let Some(open) = all_children
        .then_some(&tasks)
        .into_iter()
        .flatten()
        .zip(&done)
        .filter(|(_, done)| !done.load(Ordering::Relaxed))
        .map(|(task, _)| task.bound)
        .min()
    {
        shared.raise_floor(open);
    }
}

/// One thread's search state.
struct Worker<'a, 'b> {
    shared: &'a Shared<'b>,
    hk: HeldKarp,
    path: Vec<usize>,
    visited: Vec<bool>,
    /// `visited` as a bit mask, for the dominance table.
    mask: u128,
    nodes: u64,
    since_flush: u64,
    /// Scratch: the cities left after a child.
    rest: Vec<usize>,
    /// Scratch: the children's first-step bounds.
    screen: Vec<i64>,
}

impl<'a, 'b> Worker<'a, 'b> {
    fn new(shared: &'a Shared<'b>) -> Worker<'a, 'b> {
        let n = shared.inst.n;
        let mut visited = vec![false; n];
        visited[0] = true;
        Worker {
            shared,
            hk: HeldKarp::default(),
            path: vec![0],
            visited,
            mask: bit(0),
            nodes: 0,
            since_flush: 0,
            rest: Vec::with_capacity(n),
            screen: Vec::with_capacity(n),
        }
    }

    fn inst(&self) -> &'b Instance {
        self.shared.inst
    }

    /// Offers the tour that follows the current path with `order`.
    fn offer_completion(&mut self, order: &[usize]) {
        let mut tour = self.path.clone();
        tour.extend_from_slice(order);
        let cost = super::heuristic::tour_cost(self.inst(), &tour);
        self.shared.offer(cost, &tour);
    }

    /// Searches the subtree of a child of the root.
    fn run(&mut self, task: &Child) {
        let partial = self.inst().cost(0, task.city);
        if task.bound >= self.shared.threshold() || !self.enter(task.city, partial) {
            return;
        }
        let children = self.expand(partial, &task.pi);
        let mut stack = vec![Frame {
            partial,
            children,
            next: 0,
        }];
        while let Some(frame) = stack.last_mut() {
            if self.shared.expired() {
                break;
            }
            let threshold = self.shared.threshold();
            let Some(child) = frame.children.get_mut(frame.next) else {
                stack.pop();
                self.leave();
                continue;
            };
            frame.next += 1;
            if child.bound >= threshold {
                // Children are sorted by bound: the rest fail too.
                frame.next = frame.children.len();
                continue;
            }
            let city = child.city;
            let pi = std::mem::take(&mut child.pi);
            let last = *self.path.last().expect("a path starts at city 0");
            let partial = frame.partial + self.inst().cost(last, city);
            if !self.enter(city, partial) {
                continue;
            }
            let children = self.expand(partial, &pi);
            stack.push(Frame {
                partial,
                children,
                next: 0,
            });
            self.since_flush += 1;
            if self.since_flush >= FLUSH_EVERY {
                self.since_flush = 0;
                if self.shared.flush(&mut self.nodes) {
                    break;
                }
            }
        }
        while self.path.len() > 1 {
            self.leave();
        }
    }

    /// Extends the path by `city` unless a no dearer path to the same state was admitted.
    fn enter(&mut self, city: usize, partial: i64) -> bool {
        if let Some(table) = &self.shared.dominance {
            if !table.admit(self.mask | bit(city), city, partial) {
                return false;
            }
        }
        self.nodes += 1;
        self.path.push(city);
        self.visited[city] = true;
        self.mask |= bit(city);
        true
    }

    /// Removes the path's last city.
    fn leave(&mut self) {
        if let Some(city) = self.path.pop() {
            self.visited[city] = false;
            self.mask &= !bit(city);
        }
    }

    /// The children of the current path (cost `partial`) whose bound is below the
    /// incumbent, cheapest bound first; completions found on the way are offered.
    fn expand(&mut self, partial: i64, pi: &[f64]) -> Vec<Child> {
        let shared = self.shared;
        let inst = shared.inst;
        let last = *self.path.last().expect("a path starts at city 0");
        let mut children = Vec::new();
        let open: Vec<usize> = (1..inst.n).filter(|&c| !self.visited[c]).collect();
        // One arborescence at the parent's multipliers bounds every child through the reduced
        // cost of its first arc, which spares most hopeless children their own ascent.
        let mut screen = std::mem::take(&mut self.screen);
        self.hk
            .first_step_bounds(inst, &shared.twins, last, &open, pi, &mut screen);
        for (&city, &after) in open.iter().zip(&screen) {
            if shared.twins.before(city).is_some_and(|t| !self.visited[t]) {
                continue;
            }
            if shared.expired() {
                break;
            }
            let threshold = shared.threshold();
            let through = partial + inst.cost(last, city);
            if through >= threshold || through.saturating_add(after) >= threshold {
                continue;
            }
            self.rest.clear();
            self.rest
                .extend((1..inst.n).filter(|&c| c != city && !self.visited[c]));
            if self.rest.is_empty() {
                self.nodes += 1;
                self.path.push(city);
                shared.offer(through + inst.cost(city, 0), &self.path);
                self.path.pop();
                continue;
            }
            let mut child_pi = pi.to_vec();
            let outcome = self.hk.bound(
                inst,
                &shared.twins,
                city,
                &self.rest,
                &mut child_pi,
                threshold - through,
                &CHILD,
            );
            match outcome {
                Outcome::Bound(b) if through + b < threshold => children.push(Child {
                    bound: through + b,
                    city,
                    pi: child_pi,
                }),
                Outcome::Bound(_) => {}
                Outcome::Tour(order) => {
                    self.nodes += 1;
                    self.path.push(city);
                    self.offer_completion(&order);
                    self.path.pop();
                }
            }
        }
        self.screen = screen;
        children.sort_by_key(|c| c.bound);
        children
    }

    /// Publishes the node count.
    fn finish(&mut self) {
        self.shared.flush(&mut self.nodes);
    }
}
