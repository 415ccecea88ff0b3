//! Malhotra, Pramodh Kumar and Maheshwari's maximum flow (MPM, 1978), serial: the thesis's
//! baseline (Solomon 2012, ch. 5, its six phases), on the residual graph with reverse arcs so
//! that the flow is maximum (the thesis's forward-only version is not, in general).
//!
//! Each phase builds the layered network by a BFS from the source over arcs with room,
//! stopping at the sink's level; gives every vertex its potential, the least of the room into
//! it and out of it along layered arcs; then, while the source and the sink remain, takes the
//! vertex of least potential p, pushes p forward layer by layer to the sink and pulls p back
//! layer by layer to the source (every vertex on the way can pass p, as p is least), and
//! prunes the vertices left with potential 0, in cascades. The phases end when the sink is
//! out of reach. The least potential comes from a heap with lazy deletion (potentials only
//! fall within a phase), so a phase costs O(V² + E log V).

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use crate::report::SolveStats;
use crate::residual::Residual;

/// No level.
const UNSET: u32 = u32::MAX;

/// One phase's layered network, potentials and cursors.
struct Phase<'a> {
    r: &'a mut Residual,
    level: Vec<u32>,
    alive: Vec<bool>,
    inward: Vec<u64>,
    outward: Vec<u64>,
    /// The next out-arc to push along.
    out_cursor: Vec<u32>,
    /// The next arc (out of the vertex, its pair into it) to pull along.
    in_cursor: Vec<u32>,
    /// Flow a vertex holds to pass on during a push or a pull.
    held: Vec<u64>,
    source: u32,
    sink: u32,
}

impl Phase<'_> {
    /// Whether residual arc `e` out of `u` is in the layered network.
    fn layered(&self, u: u32, e: usize) -> bool {
        let h = self.r.head[e];
        self.r.capacity[e] > 0
            && self.alive[h as usize]
            && self.level[h as usize] == self.level[u as usize] + 1
    }

    fn potential(&self, v: u32) -> u64 {
        if v == self.source {
            self.outward[v as usize]
        } else if v == self.sink {
            self.inward[v as usize]
        } else {
            self.inward[v as usize].min(self.outward[v as usize])
        }
    }

    /// Removes the vertices of `dead` and, in cascades, every vertex left with potential 0;
    /// notes in `touched` the vertices whose potential fell.
    fn prune(&mut self, mut dead: Vec<u32>, touched: &mut Vec<u32>) {
        while let Some(v) = dead.pop() {
            if !self.alive[v as usize] {
                continue;
            }
            self.alive[v as usize] = false;
            for e in self.r.arcs(v) {
                let h = self.r.head[e];
                if !self.alive[h as usize] {
                    continue;
                }
                let (level_v, level_h) = (self.level[v as usize], self.level[h as usize]);
                if level_h == level_v + 1 && self.r.capacity[e] > 0 {
                    self.inward[h as usize] -= self.r.capacity[e];
                } else {
                    let back = self.r.pair[e] as usize;
                    if level_v == level_h + 1 && self.r.capacity[back] > 0 {
                        self.outward[h as usize] -= self.r.capacity[back];
                    } else {
                        continue;
                    }
                }
                if self.potential(h) == 0 {
                    dead.push(h);
                } else {
                    touched.push(h);
                }
            }
        }
    }

    /// Pushes `amount` from `from` to the sink, layer by layer; notes in `touched` the
    /// vertices whose potential fell.
    fn push(&mut self, from: u32, amount: u64, touched: &mut Vec<u32>) {
        let mut queue = VecDeque::from([from]);
        self.held[from as usize] = amount;
        while let Some(u) = queue.pop_front() {
            let mut left = std::mem::take(&mut self.held[u as usize]);
            if u == self.sink || left == 0 {
                continue;
            }
            touched.push(u);
            let end = self.r.start[u as usize + 1] as usize;
            while left > 0 {
                let e = self.out_cursor[u as usize] as usize;
                debug_assert!(
                    e < end,
                    "a vertex of the layered network passes its potential"
                );
                if e >= end {
                    break;
                }
                if !self.layered(u, e) {
                    self.out_cursor[u as usize] += 1;
                    continue;
                }
                let h = self.r.head[e];
                let x = left.min(self.r.capacity[e]);
                self.r.send(e, x);
                self.outward[u as usize] -= x;
                self.inward[h as usize] -= x;
                left -= x;
                if self.held[h as usize] == 0 {
                    queue.push_back(h);
                }
                self.held[h as usize] += x;
                touched.push(h);
                if self.r.capacity[e] == 0 {
                    self.out_cursor[u as usize] += 1;
                }
            }
        }
    }

    /// Pulls `amount` into `to` from the source, layer by layer.
    fn pull(&mut self, to: u32, amount: u64, touched: &mut Vec<u32>) {
        let mut queue = VecDeque::from([to]);
        self.held[to as usize] = amount;
        while let Some(v) = queue.pop_front() {
            let mut left = std::mem::take(&mut self.held[v as usize]);
            if v == self.source || left == 0 {
                continue;
            }
            touched.push(v);
            let end = self.r.start[v as usize + 1] as usize;
            while left > 0 {
                let e = self.in_cursor[v as usize] as usize;
                debug_assert!(
                    e < end,
                    "a vertex of the layered network passes its potential"
                );
                if e >= end {
                    break;
                }
                let u = self.r.head[e];
                let into = self.r.pair[e] as usize;
                if !(self.alive[u as usize] && self.layered(u, into)) {
                    self.in_cursor[v as usize] += 1;
                    continue;
                }
                let x = left.min(self.r.capacity[into]);
                self.r.send(into, x);
                self.inward[v as usize] -= x;
                self.outward[u as usize] -= x;
                left -= x;
                if self.held[u as usize] == 0 {
                    queue.push_back(u);
                }
                self.held[u as usize] += x;
                touched.push(u);
                if self.r.capacity[into] == 0 {
                    self.in_cursor[v as usize] += 1;
                }
            }
        }
    }
}

/// BFS levels from `source` over arcs with room, up to the sink's level (`UNSET` beyond);
/// `None` where the sink is out of reach.
pub(crate) fn levels(r: &Residual, source: u32, sink: u32) -> Option<Vec<u32>> {
    let mut level = vec![UNSET; r.vertices as usize];
    level[source as usize] = 0;
    let mut queue = VecDeque::from([source]);
    while let Some(u) = queue.pop_front() {
        let lu = level[u as usize];
        if level[sink as usize] != UNSET && lu >= level[sink as usize] {
            break;
        }
        for e in r.arcs(u) {
            let h = r.head[e];
            if r.capacity[e] > 0 && level[h as usize] == UNSET {
                level[h as usize] = lu + 1;
                queue.push_back(h);
            }
        }
    }
    (level[sink as usize] != UNSET).then_some(level)
}

/// Runs MPM on `r` from `source` to `sink` until the flow is maximum, with the seconds spent in the thesis's three GPU phases as the serial code
/// splits them (for Table 5.3's per-phase speed-ups): `layered` (the BFS, the live vertices
/// and the potentials), `prune` (every cascade) and `push_pull` (the heap's vertex of least
/// potential and its push and pull, the argmin as the GPU's phase has it).
pub fn solve_timed(
    r: &mut Residual,
    source: u32,
    sink: u32,
) -> (SolveStats, [(&'static str, f64); 3]) {
    let n = r.vertices as usize;
    let mut stats = SolveStats::default();
    let mut times = [("layered", 0.0), ("prune", 0.0), ("push_pull", 0.0)];
    let mut clock = std::time::Instant::now();
    // Charges the time since the last charge to phase `at`.
    let mut charge = |at: usize, times: &mut [(&'static str, f64); 3]| {
        let now = std::time::Instant::now();
        times[at].1 += (now - clock).as_secs_f64();
        clock = now;
    };
    while let Some(level) = levels(r, source, sink) {
        stats.phases += 1;
        let depth = level[sink as usize];
        let alive: Vec<bool> = (0..n)
            .map(|v| level[v] != UNSET && (level[v] < depth || v == sink as usize))
            .collect();
        let mut phase = Phase {
            out_cursor: r.start[..n].to_vec(),
            in_cursor: r.start[..n].to_vec(),
            r,
            level,
            alive,
            inward: vec![0; n],
            outward: vec![0; n],
            held: vec![0; n],
            source,
            sink,
        };
        for u in 0..n as u32 {
            if !phase.alive[u as usize] {
                continue;
            }
            for e in phase.r.arcs(u) {
                if phase.layered(u, e) {
                    let c = phase.r.capacity[e];
                    phase.outward[u as usize] += c;
                    phase.inward[phase.r.head[e] as usize] += c;
                }
            }
        }
        let zero: Vec<u32> = (0..n as u32)
            .filter(|&v| phase.alive[v as usize] && phase.potential(v) == 0)
            .collect();
        charge(0, &mut times);
        let mut touched = Vec::new();
        phase.prune(zero, &mut touched);
        charge(1, &mut times);
        let mut heap: BinaryHeap<Reverse<(u64, u32)>> = (0..n as u32)
            .filter(|&v| phase.alive[v as usize])
            .map(|v| Reverse((phase.potential(v), v)))
            .collect();
        while phase.alive[source as usize] && phase.alive[sink as usize] {
            let Some(Reverse((p, v))) = heap.pop() else {
                break;
            };
            if !phase.alive[v as usize] || phase.potential(v) != p {
                continue;
            }
            stats.steps += 1;
            touched.clear();
            phase.push(v, p, &mut touched);
            phase.pull(v, p, &mut touched);
            touched.push(v);
            let mut zero = Vec::new();
            for &u in &touched {
                if phase.alive[u as usize] {
                    let q = phase.potential(u);
                    if q == 0 {
                        zero.push(u);
                    } else {
                        heap.push(Reverse((q, u)));
                    }
                }
            }
            charge(2, &mut times);
            touched.clear();
            phase.prune(zero, &mut touched);
            for &u in &touched {
                if phase.alive[u as usize] {
                    heap.push(Reverse((phase.potential(u), u)));
                }
            }
            charge(1, &mut times);
        }
        charge(2, &mut times);
    }
    charge(0, &mut times);
    (stats, times)
}
