//! Re-splitting two machines' tasks between them: the neighbourhood beyond moves and swaps.
//!
//! A local optimum of moves and swaps can still lower its busiest machine by exchanging two
//! tasks for one, three for two, and so on with one partner machine. All of those are one
//! question: of the two machines' tasks, which go to which, so that the larger load is
//! smallest? That is a two-machine makespan problem (a partition problem, NP-hard but small:
//! some 64 tasks), answered here by a dynamic programme over the first machine's load in
//! [`BUCKETS`] buckets of the current pair makespan, each bucket keeping the state with the
//! least load on the second machine. States whose loads, or whose load sum with every
//! remaining task at its cheaper machine, cannot end below the target are cut. The buckets
//! make it a heuristic (two states of one bucket differ by up to 1/[`BUCKETS`] of the
//! target on the first machine, and the one with more load there is kept only if it has
//! less on the second), but its answer's loads are exact sums. Each layer is then cut to its
//! Pareto front (no state with both loads at least another's), which leaves few states.

use std::time::Instant;

use super::{smaller, State, EPS};
use crate::etc::Etc;

impl State {
    /// Re-splits the busiest machine's tasks with each partner's in turn (the least loaded
    /// first) and applies the first split that lowers the pair's larger load below the
    /// busiest machine's; whether it found one before `deadline` (checked before each
    /// partner: at 2,048 x 64 a whole round passes a short limit). Where the busiest machine
    /// found none at its last round and has not changed since, only the partners that
    /// changed since are tried: the programme gives the others' unchanged pairs the same
    /// answer (most kicks are undone, so the next round often meets the same machines).
    pub(super) fn resplit(&mut self, etc: &Etc, split: &mut Split, deadline: Instant) -> bool {
        let a = self.busiest();
        let since = Self::unchanged_since(self.changed_at[a], self.resplit_at[a]);
        let target = self.loads[a] * (1.0 - EPS);
        let mut partners: Vec<usize> = (0..self.loads.len()).filter(|&b| b != a).collect();
        partners.sort_by(|&x, &y| self.loads[x].total_cmp(&self.loads[y]));
        let (mut on_a, mut on_b, mut pool) = (Vec::new(), Vec::new(), Vec::new());
        for b in partners {
            if Instant::now() >= deadline {
                return false;
            }
            if self.changed_at[b] < since
                || self.members[a].len() + self.members[b].len() > MAX_POOL
            {
                continue;
            }
            pool.clear();
            pool.extend(self.members[a].iter().chain(&self.members[b]).copied());
            on_a.clear();
            on_b.clear();
            for &t in &pool {
                let row = etc.row(t as usize);
                on_a.push(row[a]);
                on_b.push(row[b]);
            }
            if let Some((_, to_a)) = split.best(&on_a, &on_b, target) {
                for (&t, &to_a) in pool.iter().zip(&to_a) {
                    self.shift(etc, t as usize, if to_a { a } else { b });
                }
                return true;
            }
        }
        self.clock += 1;
        self.resplit_at[a] = self.clock;
        false
    }
}

/// Buckets of the first machine's load: the resolution of the programme's dominance test
/// (at most 64 x 64, for the bits of [`Split`]'s `touched`).
pub(crate) const BUCKETS: usize = 2048;
const _: () = assert!(BUCKETS.is_multiple_of(64) && BUCKETS <= 64 * 64);
/// Two machines with more tasks than this together are not re-split: the programme keeps
/// up to [`BUCKETS`] states per task (24 MiB at this size), and its time grows alike.
const MAX_POOL: usize = 512;

/// One state of the programme: the two loads so far and how it was reached.
#[derive(Clone, Copy)]
struct Node {
    a: f64,
    b: f64,
    /// Index of the state it extends (in `nodes`), `u32::MAX` for the root.
    parent: u32,
    /// Whether this layer's task went to the first machine.
    on_a: bool,
}

/// Reusable memory of [`Split::best`].
#[derive(Default)]
pub(crate) struct Split {
    nodes: Vec<Node>,
    /// Per bucket: the layer that last wrote it and the node it holds.
    bucket: Vec<(u32, u32)>,
    layer: u32,
    /// The tasks in the programme's order, each with its sort key: the complement of the
    /// key's bits (a non-negative float's bits order as the float does) above the task's
    /// index, so that one integer comparison sorts by key, descending, then by index.
    keyed: Vec<u128>,
    rest: Vec<f64>,
    /// The buckets the current layer wrote, a bit each, and which of those words hold a bit
    /// (BUCKETS / 64 <= 64 of them): read in ascending order at the layer's end (a sorted
    /// list of them took 8-15% of a search's time).
    touched: Vec<u64>,
    touched_words: u64,
    /// The layer's front, before it replaces the layer.
    front: Vec<Node>,
}

impl Split {
    /// The tasks' split between machines a and b (times `on_a[i]`, `on_b[i]`) whose larger
    /// load is smallest among those the programme keeps, if that load is below `target`:
    /// `(larger load, whether each task goes to a)`. Empty input or a target of 0 or less:
    /// `None`.
    pub(crate) fn best(
        &mut self,
        on_a: &[f64],
        on_b: &[f64],
        target: f64,
    ) -> Option<(f64, Vec<bool>)> {
        let n = on_a.len().min(on_b.len());
        if n == 0 || !target.is_finite() || target <= 0.0 {
            return None;
        }
        // Tasks whose two times differ most first: a wrong choice there spends the most of
        // the pair's slack at once, so the cuts act early. Ties in task order (as a stable
        // sort leaves them); each key is computed once, since every re-split sorts.
        self.keyed.clear();
        self.keyed.extend((0..n).map(|i| {
            let key = (on_a[i] - on_b[i]).abs().to_bits();
            (u128::from(!key) << 32) | i as u128
        }));
        self.keyed.sort_unstable();
        self.rest.clear();
        self.rest.resize(n + 1, 0.0);
        for k in (0..n).rev() {
            let t = self.keyed[k] as u32 as usize;
            self.rest[k] = self.rest[k + 1] + smaller(on_a[t], on_b[t]);
        }
        if self.rest[0] >= 2.0 * target {
            return None;
        }
        if self.bucket.len() != BUCKETS {
            self.bucket = vec![(0, 0); BUCKETS];
            self.touched = vec![0; BUCKETS / 64];
            self.layer = 0;
        }
        let width = target / BUCKETS as f64;
        self.nodes.clear();
        self.nodes.push(Node {
            a: 0.0,
            b: 0.0,
            parent: u32::MAX,
            on_a: false,
        });
        let mut from = 0;
        for k in 0..n {
            let t = self.keyed[k] as u32 as usize;
            let (pa, pb) = (on_a[t], on_b[t]);
            let to = self.nodes.len();
            self.layer = self.layer.wrapping_add(1);
            if self.layer == 0 {
                self.bucket.iter_mut().for_each(|b| *b = (0, 0));
                self.layer = 1;
            }
            for parent in from..to {
                let node = self.nodes[parent];
                for (a, b, on_a) in [(node.a + pa, node.b, true), (node.a, node.b + pb, false)] {
                    if a >= target || b >= target || a + b + self.rest[k + 1] >= 2.0 * target {
                        continue;
                    }
                    let slot = ((a / width) as usize).min(BUCKETS - 1);
                    let (stamp, held) = self.bucket[slot];
                    let child = Node {
                        a,
                        b,
                        parent: parent as u32,
                        on_a,
                    };
                    if stamp == self.layer {
                        let held = &mut self.nodes[held as usize];
                        if b < held.b {
                            *held = child;
                        }
                    } else {
                        self.bucket[slot] = (self.layer, self.nodes.len() as u32);
                        self.touched[slot / 64] |= 1 << (slot % 64);
                        self.touched_words |= 1 << (slot / 64);
                        self.nodes.push(child);
                    }
                }
            }
            if self.nodes.len() == to {
                return None;
            }
            // Keep the layer's Pareto front only: in order of the first load (by bucket),
            // the states with less on the second machine than every one before them.
            let mut least = f64::INFINITY;
            self.front.clear();
            while self.touched_words != 0 {
                let w = self.touched_words.trailing_zeros() as usize;
                self.touched_words &= self.touched_words - 1;
                let mut word = std::mem::take(&mut self.touched[w]);
                while word != 0 {
                    let slot = w * 64 + word.trailing_zeros() as usize;
                    word &= word - 1;
                    let node = self.nodes[self.bucket[slot].1 as usize];
                    if node.b < least {
                        least = node.b;
                        self.front.push(node);
                    }
                }
            }
            self.nodes.truncate(to);
            self.nodes.extend_from_slice(&self.front);
            from = to;
        }
        let (mut at, mut best) = (usize::MAX, f64::INFINITY);
        for (i, node) in self.nodes.iter().enumerate().skip(from) {
            let larger = node.a.max(node.b);
            if larger < best {
                (at, best) = (i, larger);
            }
        }
        if at == usize::MAX {
            return None;
        }
        let mut goes_to_a = vec![false; n];
        for k in (0..n).rev() {
            let node = self.nodes[at];
            goes_to_a[self.keyed[k] as u32 as usize] = node.on_a;
            at = node.parent as usize;
        }
        Some((best, goes_to_a))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use thicket_core::SplitMix;

    /// The smallest larger load over every split (brute force).
    fn brute(on_a: &[f64], on_b: &[f64]) -> f64 {
        let n = on_a.len();
        (0u32..1 << n)
            .map(|mask| {
                let (mut a, mut b) = (0.0, 0.0);
                for i in 0..n {
                    if mask >> i & 1 == 1 {
                        a += on_a[i];
                    } else {
                        b += on_b[i];
                    }
                }
                f64::max(a, b)
            })
            .fold(f64::INFINITY, f64::min)
    }

    #[test]
    fn its_split_has_the_loads_it_reports_and_is_near_the_optimum() {
        let mut rng = SplitMix::new(5);
        let mut split = Split::default();
        for n in [1usize, 2, 5, 9, 14] {
            for _ in 0..20 {
                let on_a: Vec<f64> = (0..n).map(|_| 1.0 + rng.unit() * 100.0).collect();
                let on_b: Vec<f64> = (0..n).map(|_| 1.0 + rng.unit() * 100.0).collect();
                let optimum = brute(&on_a, &on_b);
                let Some((larger, to_a)) = split.best(&on_a, &on_b, optimum * 1.5) else {
                    panic!("no split below 1.5 x the optimum");
                };
                let a: f64 = (0..n).filter(|&i| to_a[i]).map(|i| on_a[i]).sum();
                let b: f64 = (0..n).filter(|&i| !to_a[i]).map(|i| on_b[i]).sum();
                assert!((a.max(b) - larger).abs() <= 1e-9 * larger);
                // The buckets may lose the optimum by about one bucket's width per task.
                assert!(larger >= optimum * (1.0 - 1e-12));
                assert!(larger <= optimum * (1.0 + n as f64 * 1.5 / BUCKETS as f64));
                // Nothing below the optimum exists (less the rounding of sums in another
                // order), so a target there finds nothing.
                assert!(split.best(&on_a, &on_b, optimum * (1.0 - 1e-12)).is_none());
            }
        }
    }

    /// A re-split lowers the busiest machine and leaves the loads and members consistent;
    /// a deep descent is never worse than the plain one it extends.
    #[test]
    fn a_resplit_lowers_the_busiest_machine_and_keeps_the_state_consistent() {
        let generator: crate::generate::Generator = "u_c_lohi:96x6".parse().unwrap();
        for seed in 1..6 {
            let etc = generator.generate(seed).unwrap();
            let mut state = State::new(&etc, crate::cpu::heuristics::mct(&etc));
            state.descend(&etc, None);
            let plain = state.makespan();
            let mut split = Split::default();
            let mut deep = state.clone();
            let far = std::time::Instant::now() + std::time::Duration::from_secs(3600);
            deep.descend_deep(&etc, None, far, &mut split);
            assert!(deep.makespan() <= plain);
            let before = state.makespan();
            if state.resplit(&etc, &mut split, far) {
                assert!(state.makespan() <= before);
            }
            let fresh = State::new(&etc, state.assignment.clone());
            for (m, (&load, tasks)) in state.loads.iter().zip(&state.members).enumerate() {
                assert!((load - fresh.loads[m]).abs() <= 1e-9 * before);
                for &t in tasks {
                    assert_eq!(state.assignment[t as usize] as usize, m);
                }
            }
        }
    }

    #[test]
    fn it_finds_the_two_for_one_exchange_that_moves_and_swaps_miss() {
        // Tasks x and y on a (6 each: load 12), z on b (10): moving x or y to b (5) gives
        // b 15, moving z to a (7) gives a 19, swapping x and z gives a 13; only both to b
        // and z to a lowers the larger load: max(7, 10) = 10, the optimum.
        let on_a = [6.0, 6.0, 7.0];
        let on_b = [5.0, 5.0, 10.0];
        let mut split = Split::default();
        let (larger, to_a) = split.best(&on_a, &on_b, 12.0).unwrap();
        assert_eq!(larger, 10.0);
        assert_eq!(to_a, vec![false, false, true]);
        assert!(split.best(&on_a, &on_b, 10.0).is_none());
        assert!(split.best(&[], &[], 1.0).is_none());
        assert!(split.best(&on_a, &on_b, 0.0).is_none());
        assert!(split.best(&on_a, &on_b, f64::NAN).is_none());
    }
}
