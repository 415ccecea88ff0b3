//! The best tour shared by searches that run side by side (the CPU's chains and the GPU tour
//! improver): each offers its best at its own meetings and takes the shared one where that is
//! cheaper, so that neither goes on kicking a tour the other has already beaten (at n = 3,000
//! and 10 s on the H200 host the GPU's chains ended 1.1% below the CPU's on stilt, at n = 1,000
//! and 41 s the CPU's 0.8% below the GPU's).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// The cheapest tour offered so far, and how often each side took a tour from the other.
#[derive(Default)]
pub(crate) struct Exchange {
    best: Mutex<Option<Offer>>,
    taken: [AtomicU64; 2],
}

/// A tour offered by one side.
#[derive(Clone)]
struct Offer {
    cost: i64,
    cities: Vec<usize>,
    side: Side,
}

/// Which search offered or took a tour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Side {
    /// The CPU's chains.
    Cpu = 0,
    /// The GPU tour improver.
    Gpu = 1,
}

impl Exchange {
    /// Offers `side`'s best tour, of cost `cost`; `cities` is called only where it is cheaper
    /// than the shared tour.
    pub(crate) fn offer(&self, side: Side, cost: i64, cities: impl FnOnce() -> Vec<usize>) {
        if let Ok(mut best) = self.best.lock() {
            if best.as_ref().is_none_or(|offer| cost < offer.cost) {
                *best = Some(Offer {
                    cost,
                    cities: cities(),
                    side,
                });
            }
        }
    }

    /// The other side's shared tour as `(cost, cities)`, where it is cheaper than `cost`
    /// (counted as taken by `side`).
    pub(crate) fn take(&self, side: Side, cost: i64) -> Option<(i64, Vec<usize>)> {
        let best = self.best.lock().ok()?;
        let offer = best
            .as_ref()
            .filter(|offer| offer.side != side && offer.cost < cost)?;
        self.taken[side as usize].fetch_add(1, Ordering::Relaxed);
        Some((offer.cost, offer.cities.clone()))
    }

    /// How many tours `side` took from the other.
    pub(crate) fn taken(&self, side: Side) -> u64 {
        self.taken[side as usize].load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Only a cheaper tour replaces the shared one, and a side takes only the other side's
    /// tour, only where it is cheaper than its own.
    #[test]
    fn the_cheapest_offer_is_kept_and_taken_by_the_other_side() {
        let exchange = Exchange::default();
        assert!(exchange.take(Side::Cpu, i64::MAX).is_none());
        exchange.offer(Side::Gpu, 10, || vec![0, 1, 2]);
        exchange.offer(Side::Cpu, 12, || unreachable!("dearer: not asked for"));
        assert!(exchange.take(Side::Gpu, 20).is_none(), "its own tour");
        assert!(exchange.take(Side::Cpu, 10).is_none(), "not cheaper");
        assert_eq!(exchange.take(Side::Cpu, 11), Some((10, vec![0, 1, 2])));
        exchange.offer(Side::Cpu, 9, || vec![0, 2, 1]);
        assert_eq!(exchange.take(Side::Gpu, 10), Some((9, vec![0, 2, 1])));
        assert_eq!(
            (exchange.taken(Side::Cpu), exchange.taken(Side::Gpu)),
            (1, 1)
        );
    }
}
