//! Several iterated local searches at once, one a thread, that meet at the end of every
//! epoch: each chain kicks and repairs its own tour with its own random stream for
//! [`EPOCH`] kicks, then every chain whose tour is dearer than the cheapest restarts from a
//! copy of it (the lowest-numbered cheapest, so that a run is repeatable for a seed and a
//! thread count, up to the clock). The chains then leave the shared tour by different kicks:
//! `t` threads try `t` times the kicks from the best tour in the same wall time.
//!
//! Where the chains find nothing cheaper for [`RESTART_AFTER_KICKS_PER_CITY`] kicks a city,
//! every chain restarts from the best tour scattered by [`RESTART_KICKS`] kicks at once and
//! repaired, and goes on from there even where that is dearer; the best tour is kept aside
//! and is what the chains return.

use std::time::Instant;

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use thicket_core::{Progress, Result, Workers};

use super::exchange::{Exchange, Side};
use super::moves::Search;
use super::Limits;

/// Kicks each chain makes between two meetings (a kick and its repair take microseconds on
/// most classes, up to a millisecond on the tilted ones at n = 316, where repairs reverse long
/// stretches).
const EPOCH: u64 = 128;

/// Kicks (of all chains) without a tour cheaper than the cheapest since the last restart,
/// per city, after which the chains restart (doubled after each restart that finds no better
/// tour, back to this once one does). The kicks from one tour stall: at LKH-3's time on 2
/// cores, stilt, rtilt and tsmat at n = 316 found their last better tour within the first
/// thousand kicks of several thousand. On 36 runs of those classes (2026-12-06) the restarts
/// took the tours 0.04% +- 0.02 closer to LKH-3's (12 cheaper, 3 dearer; rtilt -0.06%, stilt
/// -0.07%), crane and coin as they were; without the doubling -0.10%, but coin:1000, whose
/// chains move over tours of equal cost, ended dearer (docs/benchmarks.md, twenty-sixth round).
const RESTART_AFTER_KICKS_PER_CITY: u64 = 2;

/// Kicks made at once to scatter the best tour for a restart: 144 double bridges. With 4 the
/// restarted chains went back to the basin they had stalled in (crane:1000:661 held one tour
/// from LKH-3's time to twice it on 2 cores). Over 96 paired runs on 2 cores and an H100 host
/// (n = 100-1,000) 48 left 33 tours cheaper and 16 dearer than 4, most of it on the 16-chain
/// host at n = 1,000, where the chains restart often (docs/benchmarks.md, twenty-seventh
/// round).
const RESTART_KICKS: usize = 48;

/// The cheapest tour the chains have found, kept aside while they search from restarts.
struct Best {
    cost: i64,
    cities: Vec<usize>,
}

/// What [`iterate`] did.
pub(super) struct Iterated {
    /// The chain whose tour is the best found.
    pub(super) lead: usize,
    /// Kicks made in all.
    pub(super) kicks: u64,
    /// Whether the caller's `until` ended it.
    pub(super) interrupted: bool,
    /// Restarts from the best tour.
    pub(super) restarts: u64,
}

/// One iterated local search: its tour (always its best: a kick whose repair ends dearer is
/// undone) and its random stream.
pub(super) struct Chain<'a> {
    pub(super) search: Search<'a>,
    rng: ChaCha8Rng,
}

impl<'a> Chain<'a> {
    /// The chain from `search` (a local optimum, journaling) with the stream of `seed`.
    pub(super) fn new(search: Search<'a>, seed: u64) -> Chain<'a> {
        Chain {
            search,
            rng: ChaCha8Rng::seed_from_u64(seed),
        }
    }

    /// The cost of the chain's tour.
    pub(super) fn cost(&self) -> i64 {
        self.search.tour.cost
    }

    /// Restarts from `best`'s tour after [`RESTART_KICKS`] kicks at once and a descent
    /// (until `deadline`), kept however dear.
    fn restart(&mut self, best: &Best, deadline: Instant) {
        self.search.take(&best.cities, best.cost);
        for _ in 0..RESTART_KICKS {
            self.search.kick(&mut self.rng);
        }
        self.search.descend_until(Some(deadline));
        self.search.tour.commit();
    }

    /// Up to `kicks` kicks, each kept where its repair costs no more than the tour before it;
    /// returns the kicks made (fewer where the deadline or the caller's stop came first).
    fn run(&mut self, kicks: u64, deadline: Instant, progress: &Progress) -> u64 {
        for made in 0..kicks {
            // Every kick looks at the clock: on the tilted classes a kick and its repair take up
            // to a millisecond, and a look every 16 kicks ran 10-20 ms past limits of 10-100 ms
            // (rtilt:100 on 2 cores).
            if Instant::now() >= deadline || progress.stop_requested() {
                return made;
            }
            let before = self.search.tour.cost;
            self.search.kick(&mut self.rng);
            self.search.descend();
            if self.search.tour.cost <= before {
                self.search.tour.commit();
            } else {
                self.search.tour.undo();
                self.search.settle();
            }
        }
        kicks
    }
}

/// Runs `chains` (one a thread) until `limits`, the caller's stop or `until` holds at a
/// meeting; the best tour found is then the tour of the chain [`Iterated::lead`] names. At
/// every meeting the cheapest chain offers its tour to `exchange` and takes the other
/// search's where that is cheaper.
pub(super) fn iterate(
    chains: &mut [Chain<'_>],
    limits: &Limits,
    progress: &Progress,
    exchange: Option<&Exchange>,
    shift: i64,
    until: &dyn Fn() -> bool,
) -> Result<Iterated> {
    let workers = match chains.len() {
        1 => None,
        threads => Some(Workers::new(threads)?),
    };
    let cheapest = |chains: &[Chain<'_>]| {
        (0..chains.len())
            .min_by_key(|&i| (chains[i].cost(), i))
            .expect("at least one chain")
    };
    let first = &chains[cheapest(chains)];
    let mut best = Best {
        cost: first.cost(),
        cities: first.search.tour.cities().to_vec(),
    };
    let first_restart_after = RESTART_AFTER_KICKS_PER_CITY * first.search.tour.n as u64;
    let mut restart_after = first_restart_after;
    let mut found_since_restart = false;
    // `stale` counts the kicks since the best tour last got cheaper (the search's stop),
    // `since_restart` those since the chains last found a tour cheaper than `least`, the
    // cheapest since their last restart.
    let (mut kicks, mut stale, mut restarts) = (0, 0, 0);
    let (mut least, mut since_restart) = (best.cost, 0);
    let gives_up = |stale: u64| stale >= limits.stale && Instant::now() < limits.stale_by;
    let mut interrupted = false;
    while !gives_up(stale) {
        // An epoch ends at the stale count, so that a run stopped by it is repeatable.
        let quota = match limits.stale.saturating_sub(stale) {
            0 => EPOCH,
            left => EPOCH.min(left),
        };
        let made: Vec<u64> = match &workers {
            None => vec![chains[0].run(quota, limits.deadline, progress)],
            Some(workers) => workers.install(|| {
                chains
                    .par_iter_mut()
                    .map(|chain| chain.run(quota, limits.deadline, progress))
                    .collect()
            }),
        };
        let epoch: u64 = made.iter().sum();
        kicks += epoch;
        let lead = cheapest(chains);
        if let Some(exchange) = exchange {
            let chain = &mut chains[lead];
            exchange.offer(Side::Cpu, chain.cost() + shift, || {
                chain.search.tour.cities().to_vec()
            });
            if let Some((cost, cities)) = exchange.take(Side::Cpu, chain.cost() + shift) {
                chain.search.adopt(&cities, cost - shift, limits.deadline);
            }
        }
        let cost = chains[lead].cost();
        if cost < best.cost {
            best.cost = cost;
            best.cities.clear();
            best.cities
                .extend_from_slice(chains[lead].search.tour.cities());
            stale = 0;
            (restart_after, found_since_restart) = (first_restart_after, true);
        } else {
            stale += epoch;
        }
        if cost < least {
            (least, since_restart) = (cost, 0);
        } else {
            since_restart += epoch;
        }
        if made.iter().any(|&m| m < quota) {
            break;
        }
        if until() {
            interrupted = true;
            break;
        }
        if since_restart >= restart_after {
            // Each restart's descent is long (n = 1,000: many milliseconds), so the chains
            // restart at once, one a thread.
            match &workers {
                None => chains[0].restart(&best, limits.deadline),
                Some(workers) => workers.install(|| {
                    chains
                        .par_iter_mut()
                        .for_each(|chain| chain.restart(&best, limits.deadline))
                }),
            }
            restarts += 1;
            // A restart that found no better tour waits twice as long for the next.
            if !std::mem::take(&mut found_since_restart) {
                restart_after = restart_after.saturating_mul(2);
            }
            (least, since_restart) = (chains[cheapest(chains)].cost(), 0);
        } else if chains.len() > 1 {
            let tour = chains[lead].search.tour.clone();
            for chain in chains.iter_mut().filter(|chain| chain.cost() > cost) {
                chain.search.tour.clone_from(&tour);
            }
        }
    }
    let lead = cheapest(chains);
    if best.cost < chains[lead].cost() {
        chains[lead].search.take(&best.cities, best.cost);
    }
    Ok(Iterated {
        lead,
        kicks,
        interrupted,
        restarts,
    })
}
