//! The tour improver's tests: a CPU twin of the kernel's tour (its pricing of a segment swap,
//! the rotation that applies it, the journal that undoes it, and its neighbourhood of a city)
//! against tours rebuilt and priced from scratch; and, where a GPU is, the kernel itself.

use std::time::Duration;

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::*;
use crate::generate::parse_generator_spec;
use crate::policy::assignment;
use crate::verify::verify;

/// Moves from one city: `CANDIDATES` first arcs times `2 * CANDIDATES` thirds (PER_CITY).
const THIRDS: usize = 2 * CANDIDATES;

/// The kernel's tour: the order of the cities and where each is.
struct Twin {
    order: Vec<usize>,
    pos: Vec<usize>,
}

impl Twin {
    fn new(tour: &[usize]) -> Twin {
        let mut pos = vec![0; tour.len()];
        for (p, &c) in tour.iter().enumerate() {
            pos[c] = p;
        }
        Twin {
            order: tour.to_vec(),
            pos,
        }
    }

    fn n(&self) -> usize {
        self.order.len()
    }

    fn at(&self, p: usize) -> usize {
        self.order[p % self.n()]
    }

    /// tours_offset.
    fn offset(&self, pa: usize, p: usize) -> usize {
        (p + self.n() - pa) % self.n()
    }

    /// tours_delta: what the segment swap (a, ob, oc) changes the cost by.
    fn delta(&self, inst: &Instance, a: usize, ob: usize, oc: usize) -> i64 {
        let pa = self.pos[a];
        let (a1, b, b1) = (self.at(pa + 1), self.at(pa + ob), self.at(pa + ob + 1));
        let (c, c1) = (self.at(pa + oc), self.at(pa + oc + 1));
        let k = |i, j| inst.cost(i, j);
        k(a, b1) + k(c, a1) + k(b, c1) - k(a, a1) - k(b, b1) - k(c, c1)
    }

    /// tours_apply's plan: the rotation (start, x, y) that applies the swap (a, ob, oc).
    fn plan(&self, a: usize, ob: usize, oc: usize) -> (usize, usize, usize) {
        let (n, pa) = (self.n(), self.pos[a]);
        let (l1, l2, l3) = (ob, oc - ob, n - oc);
        let (start, x, y) = if l1 + l2 <= l2 + l3 && l1 + l2 <= l3 + l1 {
            (pa + 1, l1, l2)
        } else if l2 + l3 <= l3 + l1 {
            (pa + ob + 1, l2, l3)
        } else {
            (pa + oc + 1, l3, l1)
        };
        (start % n, x, y)
    }

    /// tours_reverse.
    fn reverse(&mut self, from: usize, len: usize) {
        let n = self.n();
        for k in 0..len / 2 {
            self.order.swap((from + k) % n, (from + len - 1 - k) % n);
        }
    }

    /// tours_rotate: the x cities from `start` on and the y after them, A B, become B A.
    fn rotate(&mut self, start: usize, x: usize, y: usize) {
        let n = self.n();
        self.reverse(start, x);
        self.reverse((start + x) % n, y);
        self.reverse(start, x + y);
        for k in 0..x + y {
            let p = (start + k) % n;
            self.pos[self.order[p]] = p;
        }
    }

    /// The kernel's neighbourhood of `a` (tours_descend's work items for one city): every
    /// item its filters let through, as (ob, oc, delta).
    fn moves(&self, inst: &Instance, succ: &[usize], pred: &[usize], a: usize) -> Vec<[i64; 3]> {
        let n = self.n();
        let k = |i, j| inst.cost(i, j);
        let mut found = Vec::new();
        for it in 0..CANDIDATES * THIRDS {
            let (i, j) = (it / THIRDS, it % THIRDS);
            let pa = self.pos[a];
            let a1 = self.at(pa + 1);
            let x = succ[a * CANDIDATES + i];
            let (out_a, ax) = (k(a, a1), k(a, x));
            let ox = self.offset(pa, self.pos[x]);
            if ax >= out_a || ox < 2 {
                continue;
            }
            let ob = ox - 1;
            let b = self.at(pa + ob);
            let oc = if j < CANDIDATES {
                self.offset(pa, self.pos[pred[a1 * CANDIDATES + j]])
            } else {
                let oc1 = self.offset(pa, self.pos[succ[b * CANDIDATES + j - CANDIDATES]]);
                if oc1 == 0 {
                    n - 1
                } else {
                    oc1 - 1
                }
            };
            if oc <= ob {
                continue;
            }
            let (c, c1) = (self.at(pa + oc), self.at(pa + oc + 1));
            let d = ax + k(c, a1) + k(b, c1) - out_a - k(b, x) - k(c, c1);
            found.push([ob as i64, oc as i64, d]);
        }
        found
    }

    /// The tour from city `a` on.
    fn from(&self, a: usize) -> Vec<usize> {
        (0..self.n()).map(|k| self.at(self.pos[a] + k)).collect()
    }
}

/// The kernel's chain, one thread doing every thread's work: its descent (batches of
/// active cities, the best move of a batch, the don't-look bits, after a kick none putting
/// back an arc the kick removed), its kicks, its journal and its acceptance. Returns the chain's cost as it tracked it.
fn chain(twin: &mut Twin, inst: &Instance, lists: (&[usize], &[usize]), kicks: usize) -> i64 {
    let n = twin.n();
    let (succ, pred) = lists;
    let mut cost = tour_cost(inst, &twin.order);
    let mut active = vec![true; n];
    let mut journal: Vec<(usize, usize, usize)> = Vec::new();
    // Journaling after a kick, whose removed arcs are `banned`; not before the first.
    let descend = |twin: &mut Twin,
                   cost: &mut i64,
                   active: &mut Vec<bool>,
                   journal: &mut Vec<_>,
                   banned: &[(usize, usize)]| loop {
        let journaling = !banned.is_empty();
        let batch: Vec<usize> = (0..n)
            .filter(|&c| active[c])
            .take(crate::kernels::BATCH)
            .collect();
        if batch.is_empty() {
            return;
        }
        let mut best: Option<(i64, usize, usize, usize)> = None;
        for &a in &batch {
            active[a] = false;
            for [ob, oc, d] in twin.moves(inst, succ, pred, a) {
                if d < 0 {
                    let (ob, oc) = (ob as usize, oc as usize);
                    let pa = twin.pos[a];
                    let added = [
                        (a, twin.at(pa + ob + 1)),
                        (twin.at(pa + oc), twin.at(pa + 1)),
                        (twin.at(pa + ob), twin.at(pa + oc + 1)),
                    ];
                    if journaling && added.iter().any(|arc| banned.contains(arc)) {
                        continue;
                    }
                    active[a] = true;
                    let found = (d, a, ob, oc);
                    best = Some(best.map_or(found, |b| b.min(found)));
                }
            }
        }
        let Some((d, a, ob, oc)) = best else {
            continue;
        };
        if journaling && journal.len() >= crate::kernels::JOURNAL {
            return;
        }
        let pa = twin.pos[a];
        for end in [pa, pa + 1, pa + ob, pa + ob + 1, pa + oc, pa + oc + 1] {
            active[twin.at(end)] = true;
        }
        let (start, x, y) = twin.plan(a, ob, oc);
        twin.rotate(start, x, y);
        if journaling {
            journal.push((start, x, y));
        }
        *cost += d;
    };
    descend(twin, &mut cost, &mut active, &mut journal, &[]);
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let longest = crate::kernels::KICK_SEGMENT.min((n - 2) / 2);
    let mut best_cost = cost;
    for _ in 0..kicks {
        journal.clear();
        let a = twin.at(rng.random_range(0..n));
        let (l1, l2) = (rng.random_range(1..=longest), rng.random_range(1..=longest));
        cost += twin.delta(inst, a, l1, l1 + l2);
        let pa = twin.pos[a];
        let banned = [pa, pa + l1, pa + l1 + l2].map(|p| (twin.at(p), twin.at(p + 1)));
        let (start, x, y) = twin.plan(a, l1, l1 + l2);
        twin.rotate(start, x, y);
        journal.push((start, x, y));
        let pa = twin.pos[a];
        for end in [
            pa,
            pa + 1,
            pa + l1,
            pa + l1 + 1,
            pa + l1 + l2,
            pa + l1 + l2 + 1,
        ] {
            active[twin.at(end)] = true;
        }
        descend(twin, &mut cost, &mut active, &mut journal, &banned);
        if cost <= best_cost {
            best_cost = cost;
        } else {
            for &(start, x, y) in journal.iter().rev() {
                twin.rotate(start, y, x);
            }
            cost = best_cost;
        }
        active.iter_mut().for_each(|a| *a = false);
    }
    cost
}

/// The swap (a, ob, oc) of `tour` built from scratch: a, then S2, then S1, then the rest.
fn swapped(twin: &Twin, a: usize, ob: usize, oc: usize) -> Vec<usize> {
    let from_a = twin.from(a);
    let mut out = vec![a];
    out.extend_from_slice(&from_a[ob + 1..=oc]);
    out.extend_from_slice(&from_a[1..=ob]);
    out.extend_from_slice(&from_a[oc + 1..]);
    out
}

fn random_tour(n: usize, rng: &mut ChaCha8Rng) -> Vec<usize> {
    let mut tour: Vec<usize> = (0..n).collect();
    tour.shuffle(rng);
    tour
}

fn instance(spec: &str) -> Instance {
    parse_generator_spec(spec).unwrap().generate().unwrap()
}

#[test]
fn every_segment_swap_is_priced_applied_and_undone_as_the_rebuilt_tour_says() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    for spec in ["amat:9:1", "crane:14:2", "coin:16:3"] {
        let inst = instance(spec);
        let n = inst.n;
        for _ in 0..3 {
            let tour = random_tour(n, &mut rng);
            for a in 0..n {
                for ob in 1..n - 1 {
                    for oc in ob + 1..n {
                        let mut twin = Twin::new(&tour);
                        let expected = swapped(&twin, a, ob, oc);
                        let delta = twin.delta(&inst, a, ob, oc);
                        let rebuilt = tour_cost(&inst, &expected) - tour_cost(&inst, &tour);
                        assert_eq!(delta, rebuilt, "{spec} {tour:?} ({a}, {ob}, {oc})");
                        let (start, x, y) = twin.plan(a, ob, oc);
                        assert!(x + y < n, "{spec}: a rotation of {x} + {y} cities");
                        twin.rotate(start, x, y);
                        assert_eq!(twin.from(a), expected, "{spec} ({a}, {ob}, {oc})");
                        assert!((0..n).all(|c| twin.order[twin.pos[c]] == c));
                        twin.rotate(start, y, x);
                        assert_eq!((&twin.order, &twin.pos), (&tour, &Twin::new(&tour).pos));
                    }
                }
            }
        }
    }
}

/// The kernel's neighbourhood, from the CPU's lists, prices every move as the rebuilt tour
/// does, and every move's first arc is cheaper than the arc it replaces.
#[test]
fn the_kernels_neighbourhood_prices_its_moves_exactly() {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    for spec in ["crane:60:1", "tsmat:50:2", "coin:49:3"] {
        let inst = instance(spec);
        let (succ, pred, k) = neighbour_lists(&inst, &assignment(&inst));
        assert_eq!(k, CANDIDATES);
        let twin = Twin::new(&random_tour(inst.n, &mut rng));
        let mut priced = 0;
        for a in 0..inst.n {
            for [ob, oc, d] in twin.moves(&inst, &succ, &pred, a) {
                let (ob, oc) = (ob as usize, oc as usize);
                assert!(
                    0 < ob && ob < oc && oc < inst.n,
                    "{spec}: ({a}, {ob}, {oc})"
                );
                let expected = swapped(&twin, a, ob, oc);
                let before = tour_cost(&inst, &twin.order);
                assert_eq!(d, tour_cost(&inst, &expected) - before, "{spec}");
                assert_eq!(d, twin.delta(&inst, a, ob, oc));
                let a1 = twin.at(twin.pos[a] + 1);
                assert!(inst.cost(a, expected[1]) < inst.cost(a, a1), "{spec}");
                priced += 1;
            }
        }
        assert!(priced > inst.n, "{spec}: only {priced} moves");
    }
}

/// A kick and the moves after it, journaled, come back to the tour they started from when
/// undone in reverse, whatever the moves were.
#[test]
fn the_journal_undoes_any_sequence_of_moves() {
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    let inst = instance("amat:40:4");
    let n = inst.n;
    for _ in 0..50 {
        let tour = random_tour(n, &mut rng);
        let mut twin = Twin::new(&tour);
        let mut cost = tour_cost(&inst, &tour);
        let mut journal = Vec::new();
        for _ in 0..rng.random_range(1..20) {
            let a = rng.random_range(0..n);
            let ob = rng.random_range(1..n - 1);
            let oc = rng.random_range(ob + 1..n);
            cost += twin.delta(&inst, a, ob, oc);
            let (start, x, y) = twin.plan(a, ob, oc);
            twin.rotate(start, x, y);
            journal.push((start, x, y));
            assert_eq!(cost, tour_cost(&inst, &twin.order));
        }
        for &(start, x, y) in journal.iter().rev() {
            twin.rotate(start, y, x);
        }
        assert_eq!(twin.order, tour);
    }
}

/// The kernel's chain, run by its twin from random tours, keeps its cost as the tour's own,
/// never ends dearer than its start, and finds far cheaper tours than a random one.
#[test]
fn the_kernels_chain_improves_tours_and_tracks_their_cost() {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    for spec in ["crane:80:1", "coin:64:2", "stilt:90:3", "amat:70:4"] {
        let inst = instance(spec);
        let (succ, pred, _) = neighbour_lists(&inst, &assignment(&inst));
        let start = random_tour(inst.n, &mut rng);
        let mut twin = Twin::new(&start);
        let cost = chain(&mut twin, &inst, (&succ, &pred), 300);
        assert_eq!(cost, tour_cost(&inst, &twin.order), "{spec}");
        let tour = from_zero(inst.n, twin.order.clone()).expect("a permutation");
        verify(&inst, &tour, cost).unwrap();
        let from = tour_cost(&inst, &start);
        assert!(2 * cost < from, "{spec}: {from} to {cost}");
    }
}

#[test]
fn tours_are_checked_and_sizes_refused_with_a_reason() {
    assert_eq!(from_zero(4, vec![2, 3, 0, 1]), Some(vec![0, 1, 2, 3]));
    assert_eq!(from_zero(4, vec![2, 3, 0, 0]), None);
    assert_eq!(from_zero(4, vec![2, 3, 0, 4]), None);
    assert_eq!(from_zero(4, vec![2, 1, 0]), None);
    assert_eq!(from_zero(3, vec![2, 1]), None);
    assert!(check_fits(crate::MAX_N).is_ok());
    assert!(check_fits(3_000).is_ok());
    assert!(matches!(
        check_fits(CANDIDATES),
        Err(Error::InvalidInput(_))
    ));
    assert!(matches!(check_fits(20_000), Err(Error::TooLarge(_))));
    assert!(matches!(check_fits(70_000), Err(Error::TooLarge(_))));
}

/// On a GPU: the kernel's tours are permutations whose cost the host recomputes, no dearer
/// than the start. Without one, the improver says so and the test ends.
#[test]
fn gpu_tours_are_checked_permutations_no_dearer_than_their_start() {
    for spec in ["tsmat:300:1", "crane:200:2", "coin:100:3", "amat:1000:4"] {
        let inst = instance(spec);
        let lap = assignment(&inst);
        let start: Vec<usize> = (0..inst.n).collect();
        let deadline = Instant::now() + Duration::from_millis(500);
        match improve_on_gpu(&inst, &start, &lap, deadline, None, 0, &Exchange::default()) {
            Err(Error::Unavailable(_)) => return,
            Err(e) => panic!("{spec}: {e}"),
            Ok(run) => {
                verify(&inst, &run.tour, run.cost).unwrap();
                assert!(run.cost <= tour_cost(&inst, &start), "{spec}");
                assert!(run.launches > 0 && run.kicks > 0, "{spec}: {run:?}");
            }
        }
    }
}

/// Beside the CPU's search, with or without a GPU: a checked tour no dearer than the start,
/// with a note from each side (the GPU's says why where it did not run) and, where the two
/// traded tours, one that counts the trades between them.
#[test]
fn improving_beside_the_cpu_answers_with_or_without_a_gpu() {
    let inst = instance("crane:120:5");
    let start: Vec<usize> = (0..inst.n).collect();
    let deadline = Instant::now() + Duration::from_millis(300);
    let limits = Limits {
        deadline,
        stale: 10_000,
        stale_by: deadline,
        seed: 1,
        chains: 2,
    };
    let beside =
        improve_beside(&inst, &start, None, &limits, &Progress::hidden(), 0, None).unwrap();
    let ((cost, tour), notes) = (beside.best, beside.notes);
    verify(&inst, &tour, cost).unwrap();
    assert!(cost <= tour_cost(&inst, &start));
    let traded = notes.len() == 3 && notes[1].starts_with("the CPU's chains took");
    assert!(notes.len() == 2 || traded, "{notes:?}");
    assert!(notes[0].starts_with("local search"), "{notes:?}");
    let last = notes.last().expect("notes");
    assert!(last.starts_with("GPU tour improver"), "{notes:?}");
}

/// The hook: a time-limited run on `cuda` past the GPU strategies' 32 cities runs the CPU's
/// search, its local search with the GPU's beside it (or the GPU's note says why not), and
/// answers with a checked tour on the `cuda` backend.
#[test]
fn a_time_limited_cuda_run_improves_its_tour_on_the_gpu_too() {
    let inst = instance("crane:150:1");
    let options = crate::SolveOptions {
        run: thicket_core::RunOptions {
            backend: thicket_core::Backend::Cuda,
            quiet: true,
            ..Default::default()
        },
        time_limit: Some(Duration::from_millis(500)),
        threads: 2,
        ..Default::default()
    };
    let crate::Solved::Whole(measured) = crate::solve(&inst, &options).unwrap() else {
        panic!("a whole solve")
    };
    let solution = &measured.output.solution;
    verify(&inst, &solution.tour, solution.cost).unwrap();
    assert_eq!(measured.info.backend, "cuda");
    let notes = &measured.info.notes;
    assert!(
        notes.iter().any(|n| n.starts_with("local search")),
        "{notes:?}"
    );
    assert!(
        notes.iter().any(|n| n.starts_with("GPU tour improver")),
        "{notes:?}"
    );
}
