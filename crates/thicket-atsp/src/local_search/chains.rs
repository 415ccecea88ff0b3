//! Several iterated local searches at once, one a thread, that meet at the end of every
//! epoch: each chain kicks and repairs its own tour with its own random stream for
//! [`EPOCH`] kicks, then every chain whose tour is dearer than the cheapest restarts from a
//! copy of it (the lowest-numbered cheapest, so that a run is repeatable for a seed and a
//! thread count, up to the clock). The chains then leave the shared tour by different kicks:
//! `t` threads try `t` times the kicks from the best tour in the same wall time.

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
/// meeting; returns the index of the cheapest chain, the kicks made in all and whether
/// `until` ended it. At every meeting the cheapest chain offers
/// its tour to `exchange` and takes the other search's where that is cheaper.
pub(super) fn iterate(
    chains: &mut [Chain<'_>],
    limits: &Limits,
    progress: &Progress,
    exchange: Option<&Exchange>,
    shift: i64,
    until: &dyn Fn() -> bool,
) -> Result<(usize, u64, bool)> {
    let workers = match chains.len() {
        1 => None,
        threads => Some(Workers::new(threads)?),
    };
    let cheapest = |chains: &[Chain<'_>]| {
        (0..chains.len())
            .min_by_key(|&i| (chains[i].cost(), i))
            .expect("at least one chain")
    };
    let mut best = chains[cheapest(chains)].cost();
    let (mut kicks, mut stale) = (0, 0);
    let gives_up = |stale: u64| stale >= limits.stale && Instant::now() < limits.stale_by;
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
        kicks += made.iter().sum::<u64>();
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
        if chains[lead].cost() < best {
            best = chains[lead].cost();
            stale = 0;
        } else {
            stale += made.iter().sum::<u64>();
        }
        if made.iter().any(|&m| m < quota) {
            break;
        }
        if until() {
            return Ok((lead, kicks, true));
        }
        if chains.len() > 1 {
            let tour = chains[lead].search.tour.clone();
            for chain in chains.iter_mut().filter(|chain| chain.cost() > best) {
                chain.search.tour.clone_from(&tour);
            }
        }
    }
    Ok((cheapest(chains), kicks, false))
}
