//! Highest-label push-relabel (Goldberg and Tarjan 1988) with the heuristics that make it
//! fast in practice (Cherkassky and Goldberg 1997): global relabelling (exact distance labels
//! by a backward BFS, after work in proportion to n and m), the gap heuristic (when no vertex
//! keeps a label k, every vertex above k is cut off from the target), and two phases: the
//! first computes a maximum preflow (and so the flow value and a minimum cut) by moving
//! excess toward the sink; the second returns the excess that cannot reach the sink to the
//! source, by the same discharge loop with the source as target, so that the result is a
//! flow.

use std::collections::VecDeque;

use thicket_core::StopFlag;

use crate::report::SolveStats;
use crate::residual::Residual;

/// No vertex (end of a bucket list).
const NONE: u32 = u32::MAX;
/// Work units a relabel costs beside the arcs it scans.
const RELABEL_WORK: u64 = 12;
/// Global relabelling after `GLOBAL_N · n + m` units of work.
const GLOBAL_N: u64 = 6;
/// Discharges between two looks at the caller's stop request.
const STOP_EVERY: u64 = 4096;

struct PushRelabel<'a> {
    r: &'a mut Residual,
    n: u32,
    /// Where excess goes in this phase, and the terminal that keeps label n.
    target: u32,
    other: u32,
    label: Vec<u32>,
    excess: Vec<u64>,
    current: Vec<u32>,
    /// Active vertices by label (stacks; stale entries skipped).
    active: Vec<Vec<u32>>,
    /// The highest label with an active vertex (an upper bound).
    highest_active: usize,
    /// Every vertex with a label below n, by label: doubly linked lists for the gaps.
    first: Vec<u32>,
    next: Vec<u32>,
    prev: Vec<u32>,
    /// The highest label of a listed vertex (an upper bound).
    highest: usize,
    work: u64,
    stats: SolveStats,
    /// The caller's stop request, looked at before every global relabelling and every
    /// [`STOP_EVERY`] discharges: a stopped phase ends with a preflow.
    stop: Option<&'a StopFlag>,
}

impl PushRelabel<'_> {
    fn link(&mut self, v: u32) {
        let d = self.label[v as usize] as usize;
        let f = self.first[d];
        self.next[v as usize] = f;
        self.prev[v as usize] = NONE;
        if f != NONE {
            self.prev[f as usize] = v;
        }
        self.first[d] = v;
        self.highest = self.highest.max(d);
    }

    fn unlink(&mut self, v: u32) {
        let d = self.label[v as usize] as usize;
        let (p, x) = (self.prev[v as usize], self.next[v as usize]);
        if p == NONE {
            self.first[d] = x;
        } else {
            self.next[p as usize] = x;
        }
        if x != NONE {
            self.prev[x as usize] = p;
        }
    }

    fn activate(&mut self, v: u32) {
        let d = self.label[v as usize] as usize;
        self.active[d].push(v);
        self.highest_active = self.highest_active.max(d);
    }

    /// Exact labels: hops to the target in the residual graph (n where none), every list
    /// rebuilt.
    fn global_relabel(&mut self) {
        self.stats.phases += 1;
        self.work = 0;
        let n = self.n;
        self.label.fill(n);
        for list in &mut self.active {
            list.clear();
        }
        self.first.fill(NONE);
        self.highest = 0;
        self.highest_active = 0;
        self.label[self.target as usize] = 0;
        let mut queue = VecDeque::from([self.target]);
        while let Some(v) = queue.pop_front() {
            let d = self.label[v as usize] + 1;
            for e in self.r.arcs(v) {
                let u = self.r.head[e];
                if u != self.other
                    && self.label[u as usize] == n
                    && self.r.capacity[self.r.pair[e] as usize] > 0
                    && u != self.target
                {
                    self.label[u as usize] = d;
                    queue.push_back(u);
                }
            }
        }
        for v in 0..n {
            self.current[v as usize] = self.r.start[v as usize];
            if self.label[v as usize] < n && v != self.target {
                self.link(v);
                if self.excess[v as usize] > 0 {
                    self.activate(v);
                }
            }
        }
    }

    /// Every listed vertex above `gap` is cut off from the target: label n.
    fn close_gap(&mut self, gap: usize) {
        self.stats.gaps += 1;
        for d in gap + 1..=self.highest {
            let mut v = self.first[d];
            while v != NONE {
                self.label[v as usize] = self.n;
                v = self.next[v as usize];
            }
            self.first[d] = NONE;
        }
        self.highest = gap.saturating_sub(1);
    }

    /// Pushes `u`'s excess along admissible arcs, relabelling it when none is left.
    fn discharge(&mut self, u: u32) {
        let (begin, end) = (self.r.start[u as usize], self.r.start[u as usize + 1]);
        loop {
            let du = self.label[u as usize];
            let mut e = self.current[u as usize];
            while e < end {
                let v = self.r.head[e as usize];
                let room = self.r.capacity[e as usize];
                if room > 0 && self.label[v as usize] + 1 == du {
                    let x = room.min(self.excess[u as usize]);
                    self.r.send(e as usize, x);
                    self.excess[u as usize] -= x;
                    if self.excess[v as usize] == 0 && v != self.target {
                        self.activate(v);
                    }
                    self.excess[v as usize] += x;
                    self.stats.steps += 1;
                    if self.excess[u as usize] == 0 {
                        self.current[u as usize] = e;
                        return;
                    }
                }
                e += 1;
            }
            // Relabel: one more than the lowest neighbour with room.
            self.stats.relabels += 1;
            self.work += RELABEL_WORK + u64::from(end - begin);
            let mut lowest = self.n;
            let mut at = begin;
            for e in begin..end {
                let v = self.r.head[e as usize];
                if self.r.capacity[e as usize] > 0 && self.label[v as usize] < lowest {
                    lowest = self.label[v as usize];
                    at = e;
                }
            }
            let old = du as usize;
            self.unlink(u);
            if self.first[old] == NONE {
                // u was the last of its label: a gap.
                self.label[u as usize] = self.n;
                self.close_gap(old);
                return;
            }
            let new = lowest.saturating_add(1);
            if new >= self.n {
                self.label[u as usize] = self.n;
                return;
            }
            self.label[u as usize] = new;
            self.current[u as usize] = at;
            self.link(u);
        }
    }

    /// Discharges the highest active vertex until none is left.
    fn run(&mut self) {
        let budget = GLOBAL_N * u64::from(self.n) + self.r.head.len() as u64 / 2;
        if self.stopped() {
            return;
        }
        self.global_relabel();
        for discharges in 0u64.. {
            if self.work > budget {
                if self.stopped() {
                    return;
                }
                self.global_relabel();
            }
            // Between relabellings too: one can be seconds of discharges on a large graph.
            if discharges % STOP_EVERY == 0 && self.stopped() {
                return;
            }
            let Some(u) = self.pop_active() else {
                return;
            };
            self.discharge(u);
        }
    }

    /// Whether the caller asked the solve to stop.
    fn stopped(&self) -> bool {
        self.stop.is_some_and(StopFlag::is_raised)
    }

    fn pop_active(&mut self) -> Option<u32> {
        loop {
            let d = self.highest_active;
            match self.active[d].pop() {
                Some(v) => {
                    if self.label[v as usize] as usize == d && self.excess[v as usize] > 0 {
                        return Some(v);
                    }
                }
                None if d == 0 => return None,
                None => self.highest_active -= 1,
            }
        }
    }
}

/// The preflow that saturates every arc out of `source`: the excess it leaves at each vertex.
pub(crate) fn saturate_source(r: &mut Residual, source: u32) -> Vec<u64> {
    let mut excess = vec![0u64; r.vertices as usize];
    for e in r.arcs(source) {
        let h = r.head[e];
        let c = r.capacity[e];
        if c > 0 && h != source {
            r.send(e, c);
            excess[h as usize] += c;
        }
    }
    excess
}

fn state(r: &mut Residual, excess: Vec<u64>, target: u32, other: u32) -> PushRelabel<'_> {
    let n = r.vertices;
    PushRelabel {
        n,
        target,
        other,
        label: vec![n; n as usize],
        excess,
        current: r.start[..n as usize].to_vec(),
        active: vec![Vec::new(); n as usize + 1],
        highest_active: 0,
        first: vec![NONE; n as usize + 1],
        next: vec![NONE; n as usize],
        prev: vec![NONE; n as usize],
        highest: 0,
        work: 0,
        stats: SolveStats::default(),
        stop: None,
        r,
    }
}

/// Turns a maximum preflow with `excess` into a flow: the excess that cannot reach the sink
/// goes back to the source (phase 2, the same discharge loop toward the source).
fn return_excess(r: &mut Residual, mut excess: Vec<u64>, source: u32, sink: u32) -> SolveStats {
    excess[sink as usize] = 0;
    let mut phase = state(r, excess, source, sink);
    phase.run();
    phase.stats
}

/// Runs two-phase push-relabel on `r` from `source` to `sink` until the flow is maximum, or
/// until `stop` is raised (then `r` holds a preflow: no answer).
pub fn solve(r: &mut Residual, source: u32, sink: u32, stop: Option<&StopFlag>) -> SolveStats {
    let excess = saturate_source(r, source);
    let mut phase = state(r, excess, sink, source);
    phase.stop = stop;
    phase.run();
    if stop.is_some_and(StopFlag::is_raised) {
        return phase.stats;
    }
    let (stats, excess) = (phase.stats, phase.excess);
    let more = return_excess(r, excess, source, sink);
    SolveStats {
        phases: stats.phases + more.phases,
        steps: stats.steps + more.steps,
        relabels: stats.relabels + more.relabels,
        gaps: stats.gaps + more.gaps,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::Network;

    #[test]
    fn a_raised_stop_ends_the_solve_before_any_relabelling() {
        let network = Network::from_arrays(4, &[0, 0, 1, 2], &[1, 2, 3, 3], &[3, 2, 2, 3], 0, 3);
        let network = network.unwrap();
        let flag = StopFlag::new();
        let mut r = Residual::new(&network);
        let full = solve(&mut r, 0, 3, Some(&flag));
        assert!(full.phases > 0);
        flag.raise();
        let mut r = Residual::new(&network);
        assert_eq!(solve(&mut r, 0, 3, Some(&flag)).phases, 0);
    }
}
