//! SplitMix64: a seeded stream of random numbers, fast and the same on every machine, for
//! generated inputs (graphs, books of options, random sources). Not for statistics that need
//! more than uniform bits.

/// A SplitMix64 generator.
#[derive(Debug, Clone)]
pub struct SplitMix(u64);

impl SplitMix {
    /// The stream of `seed`.
    pub fn new(seed: u64) -> SplitMix {
        SplitMix(seed)
    }

    /// The stream's step (SplitMix64's golden-ratio increment).
    const GAMMA: u64 = 0x9e37_79b9_7f4a_7c15;

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(Self::GAMMA);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A uniform number in 0..bound (bound > 0), by multiplication (no modulo bias to speak
    /// of for bounds far below 2^64).
    pub fn below(&mut self, bound: u64) -> u64 {
        ((u128::from(self.next_u64()) * u128::from(bound)) >> 64) as u64
    }

    /// Moves the stream on by `draws` numbers at once, as if each had been drawn (every
    /// method above draws one): parts of one stream can then be drawn in parallel.
    pub fn skip(&mut self, draws: u64) {
        self.0 = self.0.wrapping_add(Self::GAMMA.wrapping_mul(draws));
    }

    /// A uniform number in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seed_gives_one_stream_in_range() {
        let mut a = SplitMix::new(7);
        let mut b = SplitMix::new(7);
        for _ in 0..100 {
            assert_eq!(a.next_u64(), b.next_u64());
            assert!(a.below(10) < 10);
            let u = a.unit();
            assert!((0.0..1.0).contains(&u));
            b.below(10);
            b.unit();
        }
    }

    #[test]
    fn skipping_equals_drawing() {
        let mut drawn = SplitMix::new(11);
        let mut skipped = drawn.clone();
        for _ in 0..1000 {
            drawn.next_u64();
        }
        skipped.skip(1000);
        assert_eq!(drawn.next_u64(), skipped.next_u64());
    }
}
