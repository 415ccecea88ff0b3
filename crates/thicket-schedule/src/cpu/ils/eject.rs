//! Ejection chains: the neighbourhood over three and four machines.
//!
//! Where each task has few good machines (the inconsistent low-heterogeneity classes), a
//! local optimum of moves, swaps and two-machine re-splits often still has an improvement
//! that passes over three or more machines: a task leaves the busiest machine a for b, which
//! it overloads, so b passes one of its own tasks on to c, and c perhaps one to d, or back to
//! a (a cyclic transfer). [`State::eject`] searches those chains of up to [`MAX_MOVES`] moves,
//! each machine losing exactly one task and gaining one, for the chain whose largest load
//! over the machines it touches is smallest, and applies it where that is below a's load.
//! Two moves are searched exhaustively; the third only from the [`BEAM`] second moves that
//! overload their machine least per first move (each second move followed costs a scan of
//! its machine's tasks over every machine, as much as all the second moves of one first
//! move).
//!
//! It pays only where the search observes that it pays: a chain that finds nothing waits
//! twice as many deep descents as before it tries again (up to [`MAX_WAIT`]), one that finds
//! something tries at every deep descent, so on the classes where a re-split of two machines
//! is enough it costs almost nothing. The rule counts descents, not time, so a run repeats
//! with its seed.

use std::time::Instant;

use super::{State, EPS};
use crate::etc::Etc;

/// The most moves in one chain: a -> b -> c -> d, or the cycle a -> b -> c -> a.
pub(crate) const MAX_MOVES: usize = 3;
/// Second moves per first move from which a third is searched.
const BEAM: usize = 4;
/// Task-to-machine evaluations one search may make (some milliseconds): at 2,048 x 64 the
/// second level alone is some 4 million, and the time a search takes is time the kicks lose.
/// A count, not a clock, so that a run repeats with its seed.
const BUDGET: u64 = 1 << 20;
/// The longest wait, in deep descents, between two attempts that keep finding nothing.
const MAX_WAIT: u32 = 32;

/// A second move that leaves its target machine overloaded: where a third move may start.
#[derive(Clone, Copy)]
struct Open {
    /// The target's load with `task`, at or above the chain's target.
    on: f64,
    /// The task moved and its new machine.
    task: u32,
    to: u32,
    /// The largest load of the chain's settled machines, the one that passed `task` on
    /// included.
    left: f64,
}

/// Memory and the pacing of [`State::eject`], one per chain.
pub(crate) struct Eject {
    /// Deep descents to skip before the next attempt.
    skip: u32,
    /// What `skip` is set to after the next failure (doubled after each).
    wait: u32,
    /// Overloading moves followed from each machine after the first.
    beam: usize,
    /// Evaluations per search ([`BUDGET`]).
    budget: u64,
    /// Per depth, the overloading moves found there.
    levels: Vec<Vec<Open>>,
    /// The machines the chain has passed (the busiest one included).
    used: Vec<bool>,
    /// Per machine, the longest time of a task it holds: an overloaded machine must pass on
    /// a task longer than its excess.
    longest: Vec<f64>,
}

impl Default for Eject {
    fn default() -> Eject {
        Eject {
            skip: 0,
            wait: 0,
            beam: BEAM,
            budget: BUDGET,
            levels: Vec::new(),
            used: Vec::new(),
            longest: Vec::new(),
        }
    }
}

impl Eject {
    /// Whether this deep descent tries a chain (counting down the wait after failures).
    pub(super) fn due(&mut self) -> bool {
        if self.skip > 0 {
            self.skip -= 1;
            return false;
        }
        true
    }

    /// Sets up the memory of a search of `state`.
    fn prepare(&mut self, state: &State, etc: &Etc) {
        self.longest.clear();
        self.longest
            .extend(state.members.iter().enumerate().map(|(m, tasks)| {
                tasks
                    .iter()
                    .map(|&t| etc.time(t as usize, m))
                    .fold(0.0, f64::max)
            }));
        self.used.clear();
        self.used.resize(state.loads.len(), false);
        self.levels.resize_with(MAX_MOVES, Vec::new);
    }

    /// Records an attempt's outcome: a success tries again at once, a failure waits.
    fn record(&mut self, found: bool) {
        if found {
            self.wait = 0;
        } else {
            self.skip = self.wait;
            self.wait = (self.wait * 2 + 1).min(MAX_WAIT);
        }
    }
}

/// The best chain so far: its largest load and its moves (task, to), in order.
struct Best {
    value: f64,
    moves: [(u32, u32); MAX_MOVES],
    len: usize,
}

impl Best {
    fn offer(&mut self, value: f64, moves: &[(u32, u32)]) {
        if value < self.value {
            self.value = value;
            self.len = moves.len();
            self.moves[..moves.len()].copy_from_slice(moves);
        }
    }
}

impl State {
    /// Searches the ejection chains off the busiest machine (module docs) and applies the
    /// best one if its largest load is below the busiest machine's; whether it did. Gives up
    /// at `deadline` (checked before each of the busiest machine's tasks).
    pub(super) fn eject(&mut self, etc: &Etc, scratch: &mut Eject, deadline: Instant) -> bool {
        let found = self.find_chain(etc, self.busiest(), scratch, deadline);
        scratch.record(found.is_some());
        let Some(best) = found else {
            return false;
        };
        for &(t, to) in &best.moves[..best.len] {
            self.shift(etc, t as usize, to as usize);
        }
        true
    }

    /// The chain [`State::eject`] applies, if any.
    fn find_chain(
        &self,
        etc: &Etc,
        a: usize,
        scratch: &mut Eject,
        deadline: Instant,
    ) -> Option<Best> {
        let machines = self.loads.len();
        if machines < 3 {
            return None;
        }
        let la = self.loads[a];
        let target = la * (1.0 - EPS);
        scratch.prepare(self, etc);
        scratch.used[a] = true;
        let mut walk = Walk {
            etc,
            state: self,
            budget: scratch.budget,
            scratch,
            a,
            a_left: 0.0,
            target,
            chain: Vec::with_capacity(MAX_MOVES),
            best: Best {
                value: target,
                moves: [(0, 0); MAX_MOVES],
                len: 0,
            },
        };
        for &t in &self.members[a] {
            if Instant::now() >= deadline {
                return None;
            }
            if walk.budget == 0 {
                break;
            }
            let row_t = etc.row(t as usize);
            walk.a_left = la - row_t[a];
            if walk.a_left >= walk.best.value {
                continue;
            }
            for (b, &time) in row_t.iter().enumerate() {
                if b == a {
                    continue;
                }
                let on_b = self.loads[b] + time;
                walk.chain.push((t, b as u32));
                if on_b < target {
                    walk.best.offer(walk.a_left.max(on_b), &walk.chain);
                } else if on_b - target < walk.scratch.longest[b] {
                    walk.scratch.used[b] = true;
                    walk.extend(b, on_b, walk.a_left, 1);
                    walk.scratch.used[b] = false;
                }
                walk.chain.pop();
            }
        }
        let best = walk.best;
        (best.len > 0).then_some(best)
    }
}

/// One search of [`State::find_chain`]: the chain so far and the best one found.
struct Walk<'w> {
    etc: &'w Etc,
    state: &'w State,
    scratch: &'w mut Eject,
    /// Evaluations left.
    budget: u64,
    /// The busiest machine, and its load after its task left.
    a: usize,
    a_left: f64,
    target: f64,
    /// The moves so far (task, to).
    chain: Vec<(u32, u32)>,
    best: Best,
}

impl Walk<'_> {
    /// Machine `at`, overloaded at `on_at` by the chain's last move, passes one of its tasks
    /// on: to a machine with room (a chain found), back to a (a cycle), or, if moves are
    /// left, to one it overloads in turn (the [`Eject::beam`] least overloaded of those are
    /// followed). `low` is the largest load of the chain's machines already settled.
    fn extend(&mut self, at: usize, on_at: f64, low: f64, depth: usize) {
        let (etc, state, a, target) = (self.etc, self.state, self.a, self.target);
        let mut open = std::mem::take(&mut self.scratch.levels[depth]);
        open.clear();
        let last = depth + 1 >= MAX_MOVES;
        for &u in &state.members[at] {
            let row_u = etc.row(u as usize);
            let at_left = on_at - row_u[at];
            let low = low.max(at_left);
            if at_left >= target || low >= self.best.value {
                continue;
            }
            let Some(budget) = self.budget.checked_sub(row_u.len() as u64) else {
                self.budget = 0;
                break;
            };
            self.budget = budget;
            for (c, &time) in row_u.iter().enumerate() {
                if c == at || (c != a && self.scratch.used[c]) {
                    continue;
                }
                let on_c = if c == a { self.a_left } else { state.loads[c] } + time;
                if on_c < target {
                    let value = low.max(on_c);
                    if value < self.best.value {
                        self.chain.push((u, c as u32));
                        self.best.offer(value, &self.chain);
                        self.chain.pop();
                    }
                } else if !last && c != a && on_c - target < self.scratch.longest[c] {
                    open.push(Open {
                        on: on_c,
                        task: u,
                        to: c as u32,
                        left: low,
                    });
                }
            }
        }
        let keep = self.scratch.beam.min(open.len());
        if keep > 0 && keep < open.len() {
            open.select_nth_unstable_by(keep - 1, |x, y| {
                x.on.total_cmp(&y.on)
                    .then(x.task.cmp(&y.task))
                    .then(x.to.cmp(&y.to))
            });
        }
        for o in &open[..keep] {
            let c = o.to as usize;
            if o.left >= self.best.value {
                continue;
            }
            self.chain.push((o.task, o.to));
            self.scratch.used[c] = true;
            self.extend(c, o.on, o.left, depth + 1);
            self.scratch.used[c] = false;
            self.chain.pop();
        }
        self.scratch.levels[depth] = open;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::ils::pair::Split;
    use std::time::Duration;
    use thicket_core::SplitMix;

    fn far() -> Instant {
        Instant::now() + Duration::from_secs(3600)
    }

    /// Three machines, one task each: x on A (10), y on B (9), z on C (9). Every move or
    /// swap, and every re-split of two machines, leaves A at 10 or more; only the cycle x to
    /// B, y to C, z to A (8 each) lowers the makespan.
    #[test]
    fn it_finds_the_three_machine_cycle_that_nothing_else_finds() {
        let etc = Etc::from_rows(&[[10.0, 8.0, 20.0], [20.0, 9.0, 8.0], [8.0, 20.0, 9.0]]).unwrap();
        let mut state = State::new(&etc, vec![0, 1, 2]);
        state.descend(&etc, None);
        assert_eq!(state.makespan(), 10.0);
        assert!(!state.clone().resplit(&etc, &mut Split::default(), far()));
        let mut scratch = Eject::default();
        assert!(state.eject(&etc, &mut scratch, far()));
        assert_eq!(state.assignment, vec![1, 2, 0]);
        assert_eq!(state.makespan(), 8.0);
        // Nothing is left: the attempts fail, the second one waits a deep descent.
        assert!(!state.eject(&etc, &mut scratch, far()));
        assert!(scratch.due());
        assert!(!state.eject(&etc, &mut scratch, far()));
        assert!(!scratch.due());
        assert!(scratch.due());
    }

    /// The smallest largest load over every chain of up to three moves as [`State::eject`]
    /// defines them (each machine of the chain loses one task and gains one, the first from
    /// the busiest machine, a cycle back to it allowed), by enumeration; `None` where none
    /// is below the busiest load.
    fn brute(etc: &Etc, state: &State) -> Option<f64> {
        let a = state.busiest();
        let target = state.loads[a] * (1.0 - EPS);
        let m = etc.machines();
        let mut best = f64::INFINITY;
        // One level of the chain: machine `at` (load `load`) passes one of its tasks on.
        #[allow(clippy::too_many_arguments)]
        fn walk(
            etc: &Etc,
            state: &State,
            a: usize,
            target: f64,
            loads: &mut Vec<f64>,
            used: &mut Vec<bool>,
            at: usize,
            moves: usize,
            best: &mut f64,
        ) {
            for &t in &state.members[at] {
                let t = t as usize;
                for to in 0..etc.machines() {
                    if to == at || (used[to] && to != a) {
                        continue;
                    }
                    loads[at] -= etc.time(t, at);
                    loads[to] += etc.time(t, to);
                    let top = (0..loads.len())
                        .filter(|&k| used[k] || k == to)
                        .map(|k| loads[k])
                        .fold(0.0, f64::max);
                    let others_fine = (0..loads.len())
                        .filter(|&k| used[k] && k != to)
                        .all(|k| loads[k] < target);
                    if others_fine && loads[to] < target {
                        *best = best.min(top);
                    } else if others_fine && to != a && moves + 1 < MAX_MOVES {
                        used[to] = true;
                        walk(etc, state, a, target, loads, used, to, moves + 1, best);
                        used[to] = false;
                    }
                    loads[to] -= etc.time(t, to);
                    loads[at] += etc.time(t, at);
                }
            }
        }
        let mut loads = state.loads.clone();
        let mut used = vec![false; m];
        used[a] = true;
        walk(
            etc, state, a, target, &mut loads, &mut used, a, 0, &mut best,
        );
        (best < target).then_some(best)
    }

    /// With the beam wide enough to search every chain, the chain found is the best one
    /// that enumeration finds, and applying it leaves the loads and members consistent.
    #[test]
    fn its_chain_is_the_best_of_every_chain_when_nothing_is_cut() {
        let mut found = 0;
        for (class, seed) in [
            ("u_i_lohi:14x5", 1),
            ("u_i_hihi:12x4", 2),
            ("u_c_lolo:15x5", 3),
        ] {
            let generator: crate::generate::Generator = class.parse().unwrap();
            for s in seed..seed + 6 {
                let etc = generator.generate(s).unwrap();
                let mut rng = SplitMix::new(s);
                let assignment = (0..etc.tasks())
                    .map(|_| rng.below(etc.machines() as u64) as u32)
                    .collect();
                let mut state = State::new(&etc, assignment);
                state.descend(&etc, None);
                let expected = brute(&etc, &state);
                let mut scratch = Eject {
                    beam: usize::MAX,
                    budget: u64::MAX,
                    ..Eject::default()
                };
                let before = state.makespan();
                let chain = state.find_chain(&etc, state.busiest(), &mut scratch, far());
                match (expected, &chain) {
                    (None, None) => {}
                    (Some(value), Some(best)) => {
                        assert!((best.value - value).abs() <= 1e-9 * value, "{class} {s}");
                        found += 1;
                    }
                    _ => panic!(
                        "{class} {s}: {expected:?} against {:?}",
                        chain.map(|b| b.value)
                    ),
                }
                let a = state.busiest();
                if state.eject(&etc, &mut scratch, far()) {
                    assert!(state.loads[a] < before);
                    assert!(state.makespan() <= before);
                }
                let fresh = State::new(&etc, state.assignment.clone());
                for (m, tasks) in state.members.iter().enumerate() {
                    assert!((state.loads[m] - fresh.loads[m]).abs() <= 1e-9 * before);
                    for &t in tasks {
                        assert_eq!(state.assignment[t as usize] as usize, m);
                    }
                }
            }
        }
        assert!(found > 0, "no matrix had a chain: the test checks nothing");
    }
}
