//! Anytime tour improvement: an iterated local search over segment moves.
//!
//! The moves ([`moves`]) cut the tour in three places and put the two inner segments back
//! swapped, reversed or both (or-3opt, which keeps every segment's orientation, 3-opt with
//! reversals, and 2-opt), the reversals priced exactly with asymmetric costs. Each city is
//! searched as the first cut with the new arcs drawn from neighbour lists: a city's `K` best
//! successors and predecessors, most of them the arcs of least reduced cost at the duals of
//! the assignment problem (which the optimal tour favours far more than it favours the
//! cheapest arcs where costs tie or tilt), the rest the cheapest arcs. Where a city has no
//! such move, deeper ones are tried: pure sequential 5-opt moves, which keep every segment's
//! orientation, chained in Lin and Kernighan's way from either end of the city's arc where
//! one alone does not improve ([`moves`]' `pure`). The search runs on the reduced costs at
//! the assignment's duals, which shift every tour's cost alike (see [`reduced_instance`]).
//! Cities whose neighbourhood held no improving move are skipped until a move touches them
//! (don't-look bits, kept as a queue of active cities).
//!
//! Local optima are left by a kick, three double bridges: at each of three random places two
//! adjacent segments of random lengths (short, so that the kick is local and the repair
//! cheap) are swapped. The kicked tour is kept when its local optimum costs no more than the
//! best, else the kick and its repair are undone from a journal of the positions they
//! rewrote, so that a kick costs the work it did, not O(n). Where the kicks stall, the
//! chains restart from the best tour scattered by several kicks at once ([`chains`]). The
//! search stops at its deadline, at the caller's stop request, or after `stale` kicks
//! without a better tour.

mod chains;
mod exchange;
mod moves;
mod tour;

use std::sync::OnceLock;
use std::time::Instant;

use thicket_core::{Progress, Result};

use super::heuristic::tour_cost;
use super::instance::Instance;
use super::lap::Lap;
use super::one_tree::NodePrices;
use super::policy::assignment_or;
use super::verify::verify;
use chains::{iterate, Chain};
pub(crate) use exchange::{Exchange, Side};
use moves::{Neighbours, Search};
use tour::Tour;

/// Neighbour-list length: the 12 best successors and predecessors of every city.
pub(crate) const K: usize = 12;

/// How many of a city's neighbours are the arcs of least reduced cost at the assignment's
/// duals (the rest are the cheapest arcs not among them). On generated instances at n = 100
/// and 316 against LKH-3 (2026-12-02), cheapest arcs alone left stilt tours 4-8% dearer;
/// 5, 8 or all 10 of 10 by reduced cost brought them within 0.2-2%, and 8 of 12 was as good
/// as any on every class tried.
const RANKED: usize = 8;

/// Where the search stops besides its deadline.
pub(crate) struct Limits {
    /// Stop at this instant.
    pub(crate) deadline: Instant,
    /// Stop after this many kicks in a row that found no cheaper tour, ...
    pub(crate) stale: u64,
    /// ... where that happens before this instant; after it the search goes on to its
    /// deadline (the caller has no better use for the time it would leave).
    pub(crate) stale_by: Instant,
    /// The seed of the kicks (fixed, so that a run is repeatable up to the clock).
    pub(crate) seed: u64,
    /// Chains searched at once, one a thread (at least one).
    pub(crate) chains: usize,
}

/// What the search did, for the run's notes.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Improved {
    /// The cost of the tour it started from.
    pub(crate) from: i64,
    /// The cost of the best tour it found.
    pub(crate) to: i64,
    /// Kicks made.
    pub(crate) kicks: u64,
    /// The kick from which the arcs were priced by the 1-tree's multipliers, where they were.
    pub(crate) repriced_at: Option<u64>,
    /// Restarts from the best tour after the kicks stalled.
    pub(crate) restarts: u64,
}

impl Improved {
    /// One line for the run's notes.
    pub(crate) fn note(&self) -> String {
        let repriced = match self.repriced_at {
            Some(kick) => format!(" (arcs priced by the 1-tree's multipliers from kick {kick} on)"),
            None => String::new(),
        };
        let plural = if self.restarts == 1 { "" } else { "s" };
        format!(
            "local search (3-opt, 2-opt and chained pure 5-opt, double-bridge kicks) improved the tour from {} to {} in {} kicks and {} restart{plural} from the best tour{repriced}",
            self.from, self.to, self.kicks, self.restarts
        )
    }
}

/// `inst` with every arc at its price under `price` less the least of them (the diagonal 0),
/// which the search runs on: the assignment's reduced costs `c(i, j) - u(i) - v(j)` at its
/// duals, or the 1-tree's prices `c(i, j) + out(i) + into(j)` ([`NodePrices`]). A tour
/// leaves and enters every city once, so every tour costs the same constant less, but the
/// arcs of good tours cost little or nothing, and the gain criterion of the chained moves,
/// which sums costs along a half-made move, follows them (LKH-3 prices its arcs with node
/// penalties for the same reason). On stilt at n = 316 against LKH-3 the reduced costs alone
/// took the ratio at a tenth of LKH-3's time from 1.0183 to 1.0094 (docs/benchmarks.md,
/// twenty-third round). `None` where the matrix does not fit in memory or a price is out of
/// range; the search then runs on `inst`'s own costs.
fn priced_instance(inst: &Instance, price: &dyn Fn(usize, usize) -> i64) -> Option<Instance> {
    let n = inst.n;
    let bytes = (n as u64 * n as u64).checked_mul(8);
    thicket_core::check_fits("the local search's priced costs", bytes).ok()?;
    let mut cost = Vec::new();
    cost.try_reserve_exact(n * n).ok()?;
    cost.extend((0..n * n).map(|at| match (at / n, at % n) {
        (i, j) if i == j => 0,
        (i, j) => price(i, j),
    }));
    let least = (0..n * n)
        .filter(|at| at / n != at % n)
        .map(|at| cost[at])
        .min()?;
    for (at, c) in cost.iter_mut().enumerate() {
        if at / n != at % n {
            *c = c.checked_sub(least)?;
        }
    }
    Instance::new(inst.name.clone(), n, cost).ok()
}

/// `start` (a tour of `inst`) after one descent of the moves to a local optimum, without
/// kicks, the neighbour lists ranked by the reduced costs of `duals` (as [`improve_tour`]).
pub(crate) fn descended(inst: &Instance, start: &[usize], duals: &Lap) -> Vec<usize> {
    if inst.n < 5 {
        return start.to_vec();
    }
    let reduced = |i: usize, j: usize| duals.reduced(inst.n, &inst.cost, i, j);
    let priced = priced_instance(inst, &reduced);
    let search_inst = priced.as_ref().unwrap_or(inst);
    let near = search_lists(inst, &reduced, search_inst);
    let mut search = Search::new(Tour::new(search_inst, start), &near);
    search.descend_all(None);
    search.tour.cities().to_vec()
}

/// The search's neighbour lists, ranked by `price` (see [`K`] and [`RANKED`]) and priced by
/// `search_inst`'s costs (the same prices, less their least: [`priced_instance`]).
fn search_lists(
    inst: &Instance,
    price: &dyn Fn(usize, usize) -> i64,
    search_inst: &Instance,
) -> Neighbours {
    Neighbours::new(inst, K, RANKED, price).priced_by(search_inst)
}

/// The neighbour lists the search draws its moves from: `succ[i * k..][..k]` the listed
/// successors of city i and `pred[j * k..][..k]` the listed predecessors of city j (see
/// [`K`] and [`RANKED`]), ranked by the reduced costs of `duals`, and `k` (`K`, or `n - 1`
/// where fewer cities are left). For the GPU tour improver, which runs the same lists.
pub(crate) fn neighbour_lists(inst: &Instance, duals: &Lap) -> (Vec<usize>, Vec<usize>, usize) {
    let reduced = |i: usize, j: usize| duals.reduced(inst.n, &inst.cost, i, j);
    let near = Neighbours::new(inst, K, RANKED, &reduced);
    let (succ, pred, k) = near.lists();
    (succ.to_vec(), pred.to_vec(), k)
}

/// What one run of the chains on one pricing of the arcs left.
struct Searched {
    /// The best tour.
    tour: Vec<usize>,
    /// Its cost in `inst`.
    cost: i64,
    /// Kicks made.
    kicks: u64,
    /// Restarts from the best tour.
    restarts: u64,
    /// Whether it ended because the caller's `until` held.
    interrupted: bool,
}

/// The chains from `start` (a tour of `inst`) on the arcs priced by `price` (see
/// [`priced_instance`]), whose lists it ranks, until `limits`, the caller's stop or `until`.
fn search_priced(
    inst: &Instance,
    price: &dyn Fn(usize, usize) -> i64,
    start: &[usize],
    limits: &Limits,
    progress: &Progress,
    exchange: Option<&Exchange>,
    until: &dyn Fn() -> bool,
) -> Result<Searched> {
    let priced = priced_instance(inst, price);
    let search_inst = priced.as_ref().unwrap_or(inst);
    // What every tour costs more in `inst` than in `search_inst`.
    let shift = tour_cost(inst, start) - tour_cost(search_inst, start);
    let near = search_lists(inst, price, search_inst);
    let mut search = Search::new(Tour::new(search_inst, start), &near);
    search.descend_all(Some(limits.deadline));
    search.tour.journal(true);
    // Every chain starts from the one local optimum, each with its own stream.
    let mut chains: Vec<Chain> = (1..limits.chains.max(1) as u64)
        .map(|i| {
            let copy = Search::new(search.tour.clone(), &near);
            Chain::new(copy, limits.seed.wrapping_add(i))
        })
        .collect();
    chains.insert(0, Chain::new(search, limits.seed));
    let iterated = iterate(&mut chains, limits, progress, exchange, shift, until)?;
    let lead = &chains[iterated.lead];
    Ok(Searched {
        tour: lead.search.tour.cities().to_vec(),
        cost: lead.cost() + shift,
        kicks: iterated.kicks,
        restarts: iterated.restarts,
        interrupted: iterated.interrupted,
    })
}

/// What runs beside the chains of [`improve`] and can end them early.
struct Beside<'x> {
    /// The search that trades tours with the chains.
    exchange: Option<&'x Exchange>,
    /// Where the 1-tree's prices come once its ascent beside ends.
    prices: Option<&'x OnceLock<NodePrices>>,
    /// The caller's end, looked at where the chains meet.
    until: &'x dyn Fn() -> bool,
}

/// Improves `start` (a tour of `inst`) until `limits` or the caller's stop, ranking the
/// neighbour lists by the reduced costs of `duals` (an optimal assignment of `inst` without
/// loops, solved here where `None`) until the 1-tree's prices come to `prices` (from the
/// bound beside, where its ascent ends at or above the assignment bound), then by those, and
/// trading tours with a search beside it through `exchange`; returns the best tour from city
/// 0, its cost (recomputed and checked by [`verify`]) and what it did. At LKH-3's time on 2
/// cores the 1-tree's prices left tsmat's tours 0.05% cheaper at n = 316 and 0.17% at 1,000,
/// rtilt's 0.03-0.08% (docs/benchmarks.md, twenty-fifth round).
pub(crate) fn improve_tour(
    inst: &Instance,
    start: &[usize],
    duals: Option<&Lap>,
    limits: &Limits,
    progress: &Progress,
    exchange: Option<&Exchange>,
    prices: Option<&OnceLock<NodePrices>>,
) -> Result<(i64, Vec<usize>, Improved)> {
    let until = || false;
    let beside = Beside {
        exchange,
        prices,
        until: &until,
    };
    improve(inst, start, duals, limits, progress, &beside)
}

/// Improves `start` as [`improve_tour`] does, on the reduced costs of `duals` alone and
/// without a search beside, until `limits`, the caller's stop, or `until` holds where the
/// chains meet (every 128 kicks a chain: at n = 1,000 tens of milliseconds).
pub(crate) fn improve_until(
    inst: &Instance,
    start: &[usize],
    duals: Option<&Lap>,
    limits: &Limits,
    progress: &Progress,
    until: &dyn Fn() -> bool,
) -> Result<(i64, Vec<usize>, Improved)> {
    let beside = Beside {
        exchange: None,
        prices: None,
        until,
    };
    improve(inst, start, duals, limits, progress, &beside)
}

/// [`improve_tour`] with what runs `beside` it.
fn improve(
    inst: &Instance,
    start: &[usize],
    duals: Option<&Lap>,
    limits: &Limits,
    progress: &Progress,
    beside: &Beside<'_>,
) -> Result<(i64, Vec<usize>, Improved)> {
    let from = tour_cost(inst, start);
    let (mut kicks, mut restarts, mut repriced_at) = (0, 0, None);
    let mut tour = start.to_vec();
    let mut cost = from;
    if inst.n >= 5 {
        let (exchange, until) = (beside.exchange, beside.until);
        let lap = assignment_or(inst, duals);
        let reduced = |i: usize, j: usize| lap.reduced(inst.n, &inst.cost, i, j);
        let priced = || beside.prices.and_then(OnceLock::get);
        let first = search_priced(inst, &reduced, start, limits, progress, exchange, &|| {
            until() || priced().is_some()
        })?;
        (tour, cost, kicks, restarts) = (first.tour, first.cost, first.kicks, first.restarts);
        if let (true, false, Some(prices)) = (first.interrupted, until(), priced()) {
            let price = |i: usize, j: usize| prices.price(inst, i, j);
            let then = search_priced(inst, &price, &tour, limits, progress, exchange, until)?;
            repriced_at = Some(kicks);
            kicks += then.kicks;
            restarts += then.restarts;
            if then.cost <= cost {
                (tour, cost) = (then.tour, then.cost);
            }
        }
    }
    let zero = tour
        .iter()
        .position(|&c| c == 0)
        .expect("a tour visits city 0");
    tour.rotate_left(zero);
    // The incremental cost is checked against the tour itself.
    verify(inst, &tour, cost)?;
    let to = cost;
    Ok((
        to,
        tour,
        Improved {
            from,
            to,
            kicks,
            repriced_at,
            restarts,
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::parse_generator_spec;
    use crate::policy::assignment;
    use crate::test_support::ring;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;
    use std::time::Duration;

    fn limits(stale: u64) -> Limits {
        let deadline = Instant::now() + Duration::from_secs(60);
        Limits {
            deadline,
            stale,
            stale_by: deadline,
            seed: 1,
            chains: 1,
        }
    }

    /// `improve_tour` without a search beside it or the 1-tree's prices.
    fn improved(inst: &Instance, start: &[usize], limits: &Limits) -> (i64, Vec<usize>, Improved) {
        let hidden = Progress::hidden();
        improve_tour(inst, start, None, limits, &hidden, None, None).unwrap()
    }

    #[test]
    fn segment_swaps_find_the_ring() {
        // The cheap cycle is 0 -> 1 -> ... -> 9 -> 0; every other arc costs 100.
        let n = 10;
        let inst = ring(n, false);
        let start = [0, 5, 2, 7, 4, 9, 6, 1, 8, 3];
        let (cost, tour, improved) = improved(&inst, &start, &limits(200));
        assert_eq!((cost, tour), (10, (0..n).collect::<Vec<_>>()));
        assert_eq!(improved.from, tour_cost(&inst, &start));
    }

    #[test]
    fn reversals_untangle_a_symmetric_ring() {
        // Symmetric: the ring 0 - 1 - ... - 11 - 0 costs 1 an edge, every other edge 100;
        // the start runs half of it backwards, which no orientation-keeping move repairs.
        let inst = ring(12, true);
        let start = [0, 1, 2, 8, 7, 6, 5, 4, 3, 9, 10, 11];
        let (cost, tour, _) = improved(&inst, &start, &limits(0));
        verify(&inst, &tour, cost).unwrap();
        assert_eq!(cost, 12);
    }

    /// The costs kept up to date by the moves, the undos and the reversal tree agree with
    /// the tour's own cost, and with a reversal priced by summing its arcs, at every step.
    #[test]
    fn incremental_costs_agree_with_the_tour() {
        for spec in [
            "coin:40:1",
            "crane:50:2",
            "tsmat:45:3",
            "rtilt:45:5",
            "coin:9:4",
        ] {
            let inst = parse_generator_spec(spec).unwrap().generate().unwrap();
            let start: Vec<usize> = (0..inst.n).collect();
            let lap = assignment(&inst);
            let reduced = |i: usize, j: usize| lap.reduced(inst.n, &inst.cost, i, j);
            let near = Neighbours::new(&inst, 6, 3, &reduced);
            let mut search = Search::new(Tour::new(&inst, &start), &near);
            search.descend_all(None);
            search.tour.journal(true);
            let mut rng = ChaCha8Rng::seed_from_u64(7);
            for kick in 0..200 {
                search.kick(&mut rng);
                search.descend();
                let t = &search.tour;
                assert_eq!(t.cost, tour_cost(&inst, t.cities()), "{spec} kick {kick}");
                let (from, arcs) = (kick % inst.n, kick % (inst.n - 1));
                let summed: i64 = (from..from + arcs)
                    .map(|p| {
                        let (x, y) = (t.at(p), t.at(p + 1));
                        inst.cost(y, x) - inst.cost(x, y)
                    })
                    .sum();
                assert_eq!(t.reversal(from, arcs), summed, "{spec} kick {kick}");
                if kick % 3 == 0 {
                    search.tour.commit();
                } else {
                    search.tour.undo();
                    search.settle();
                }
                let t = &search.tour;
                assert_eq!(t.cost, tour_cost(&inst, t.cities()), "{spec} kick {kick}");
            }
        }
    }

    #[test]
    fn every_improved_tour_is_a_checked_tour_no_dearer_than_its_start() {
        for spec in [
            "coin:60:1",
            "crane:60:2",
            "tsmat:60:3",
            "tsmat:7:4",
            "coin:5:5",
        ] {
            let inst = parse_generator_spec(spec).unwrap().generate().unwrap();
            let start: Vec<usize> = (0..inst.n).rev().collect();
            let (cost, tour, improved) = improved(&inst, &start, &limits(300));
            verify(&inst, &tour, cost).unwrap();
            assert!(cost <= tour_cost(&inst, &start), "{spec}");
            assert_eq!(improved.to, cost);
        }
    }

    /// A cheaper tour offered by the search beside (the GPU's) is taken at the first meeting:
    /// the chains end at most at its cost, with a checked tour.
    #[test]
    fn the_chains_take_a_cheaper_tour_from_beside() {
        let inst = parse_generator_spec("stilt:60:7")
            .unwrap()
            .generate()
            .unwrap();
        let start: Vec<usize> = (0..inst.n).collect();
        let hidden = Progress::hidden();
        let (good, tour, _) = improved(&inst, &start, &limits(3000));
        let exchange = Exchange::default();
        exchange.offer(Side::Gpu, good, || tour.clone());
        let short = Limits {
            chains: 2,
            ..limits(1)
        };
        let (cost, found, _) =
            improve_tour(&inst, &start, None, &short, &hidden, Some(&exchange), None).unwrap();
        verify(&inst, &found, cost).unwrap();
        assert!(cost <= good, "{cost} against {good}");
        assert_eq!(exchange.taken(Side::Cpu), 1);
    }

    /// A search that stalls stops there only before its `stale_by` instant; after it, it
    /// goes on to its deadline (the caller has nothing else to give the time to).
    #[test]
    fn a_stall_ends_the_search_only_before_its_instant() {
        let inst = ring(12, false);
        let start: Vec<usize> = (0..12).rev().collect();
        let run = |stale_by: fn(Instant) -> Instant| {
            let deadline = Instant::now() + Duration::from_millis(300);
            let limits = Limits {
                deadline,
                stale_by: stale_by(deadline),
                ..limits(20)
            };
            let (cost, _, improved) = improved(&inst, &start, &limits);
            (cost, improved.kicks, Instant::now() >= deadline)
        };
        let (cost, kicks, at_deadline) = run(|deadline| deadline);
        assert_eq!((cost, at_deadline), (12, false));
        assert!(kicks >= 20, "{kicks}");
        let (cost, longer, at_deadline) = run(|_| Instant::now());
        assert_eq!((cost, at_deadline), (12, true));
        assert!(longer > kicks, "{longer} against {kicks}");
    }

    /// Prices that are there at the first meeting are taken: the search goes on from its
    /// best tour on them, and its tour is checked against the instance's own costs.
    #[test]
    fn the_chains_go_on_at_the_1_tree_prices_once_they_come() {
        let inst = parse_generator_spec("tsmat:60:5")
            .unwrap()
            .generate()
            .unwrap();
        let start: Vec<usize> = (0..inst.n).collect();
        let deadline = Instant::now() + Duration::from_secs(60);
        let upper = tour_cost(&inst, &start);
        let (_, found) = crate::one_tree::ascend(&inst, upper, None, deadline, None).unwrap();
        let prices = OnceLock::new();
        prices.set(found).unwrap();
        let hidden = Progress::hidden();
        let (cost, tour, improved) = improve_tour(
            &inst,
            &start,
            None,
            &limits(400),
            &hidden,
            None,
            Some(&prices),
        )
        .unwrap();
        verify(&inst, &tour, cost).unwrap();
        assert!(cost <= upper);
        // At the first meeting, after one epoch's kicks.
        assert!(
            improved.repriced_at.is_some_and(|kick| kick > 0),
            "{improved:?}"
        );
        assert!(improved
            .note()
            .contains("priced by the 1-tree's multipliers"));
    }

    /// Where the kicks stall the chains restart from the best tour, and what they return is
    /// still a checked tour no dearer than their first local optimum, the same for the same
    /// seed.
    #[test]
    fn stalled_chains_restart_and_keep_the_best_tour() {
        let inst = parse_generator_spec("stilt:30:4")
            .unwrap()
            .generate()
            .unwrap();
        let start: Vec<usize> = (0..inst.n).collect();
        let first_optimum = improved(&inst, &start, &limits(0)).0;
        let limits = limits(400);
        let (cost, tour, improved) = improved(&inst, &start, &limits);
        verify(&inst, &tour, cost).unwrap();
        assert!(cost <= first_optimum, "{cost} against {first_optimum}");
        assert!(improved.restarts > 0, "{improved:?}");
        assert!(improved.note().contains("from the best tour"));
        let again = super::tests::improved(&inst, &start, &limits);
        assert_eq!((again.0, again.1), (cost, tour));
    }

    /// Several chains give a checked tour, the same one for the same seed and chain count
    /// (the stop here is the stale count, not the clock), and no dearer than one chain's
    /// start.
    #[test]
    fn chains_are_repeatable_and_checked() {
        for spec in ["stilt:80:1", "tsmat:70:2", "amat:6:3"] {
            let inst = parse_generator_spec(spec).unwrap().generate().unwrap();
            let start: Vec<usize> = (0..inst.n).collect();
            let run = |chains| {
                let limits = Limits {
                    chains,
                    ..limits(400)
                };
                improved(&inst, &start, &limits)
            };
            let (cost, tour, improved) = run(3);
            verify(&inst, &tour, cost).unwrap();
            assert!(cost <= tour_cost(&inst, &start), "{spec}");
            assert!(improved.kicks >= 400, "{spec}");
            let again = run(3);
            assert_eq!((again.0, again.1), (cost, tour), "{spec}");
        }
    }
}
