//! How long each launch of a timed GPU search runs: the searches that run chains of kicks
//! until a deadline (thicket-schedule's, the ATSP's tour improver) launch a number of kicks
//! a chain, read the chains back, check the deadline and the caller's stop, and launch again.
//! A kernel is not interrupted, so the size of the next launch decides how far a run can
//! pass its deadline.

/// Of the time left before the deadline, the share the last launches plan to fill: a
/// launch's kicks take the last launch's time a kick only on average.
const FILL_SHARE: f64 = 0.75;

/// The most kicks a chain makes in one launch.
const MAX_KICKS: u32 = 1 << 14;

/// The kicks a chain makes in the next launch: one at first, doubled while a launch takes
/// less than the epoch the search aims at, and near the deadline only as many as the last
/// launch's rate fits in a share of the time left.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LaunchPacer {
    epoch_seconds: f64,
    kicks: u32,
}

impl LaunchPacer {
    /// A pacer whose launches aim at `epoch_seconds` of wall time each.
    pub fn new(epoch_seconds: f64) -> LaunchPacer {
        LaunchPacer {
            epoch_seconds,
            kicks: 1,
        }
    }

    /// The kicks a chain makes in the next launch.
    pub fn kicks(&self) -> u32 {
        self.kicks
    }

    /// Sizes the next launch after one of [`LaunchPacer::kicks`] took `took` seconds with
    /// `left` seconds to the deadline; `false` where not one kick fits before it (a kick of a
    /// large instance can take a second: the deadline bounds the run).
    pub fn next(&mut self, took: f64, left: f64) -> bool {
        let fit = FILL_SHARE * left / (took / f64::from(self.kicks));
        if fit < 1.0 {
            return false;
        }
        if took < self.epoch_seconds && self.kicks < MAX_KICKS {
            self.kicks *= 2;
        }
        self.kicks = self.kicks.min(fit as u32).max(1);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn launches_grow_while_short_and_shrink_to_what_fits_before_the_deadline() {
        let mut pacer = LaunchPacer::new(0.05);
        assert_eq!(pacer.kicks(), 1);
        assert!(pacer.next(0.001, 10.0));
        assert_eq!(pacer.kicks(), 2);
        for _ in 0..20 {
            assert!(pacer.next(0.001, 10.0));
        }
        assert_eq!(pacer.kicks(), MAX_KICKS);
        // 1 ms a kick with 20 ms left: 15 kicks fill three quarters of it.
        assert!(pacer.next(MAX_KICKS as f64 * 0.001, 0.02));
        assert_eq!(pacer.kicks(), 15);
        // Not one kick fits.
        assert!(!pacer.next(15.0, 1.0));
    }
}
