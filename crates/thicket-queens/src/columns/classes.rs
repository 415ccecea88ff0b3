//! Two key lists split by a few of their bits before their disjoint pairs are counted.
//!
//! A key's bits on a *split mask* of `k` bits are its class; two keys can be disjoint only
//! where their classes are, so of the `4^k` pairs of classes only `3^k` are counted, and
//! within them the split bits are dropped from the keys (fewer table lookups a pair). The mask
//! takes the bits that both lists hold most often: a bit held by a fraction `p` of one list
//! and `q` of the other leaves `1 - p q` of the pairs, about 0.7 at n = 18, whose keys hold
//! half their bits. `k` is chosen so that a stored class still fills a few of the matcher's
//! blocks (a block is counted whole however few keys it holds).

/// A list's keys sorted by class: class `c` holds `keys[starts[c]..starts[c + 1]]`, each key
/// with the split bits removed (the other bits moved down, in order).
#[derive(Debug, Default)]
pub struct Classes {
    starts: Vec<u32>,
    keys: Vec<u64>,
}

impl Classes {
    /// The keys of class `class`.
    #[inline(always)]
    pub fn class(&self, class: usize) -> &[u64] {
        &self.keys[self.starts[class] as usize..self.starts[class + 1] as usize]
    }

    /// Where class `class` lies in [`Classes::keys`].
    #[inline(always)]
    pub fn range(&self, class: usize) -> (u32, u32) {
        (self.starts[class], self.starts[class + 1])
    }

    /// The keys of all classes, one after the other.
    pub fn keys(&self) -> &[u64] {
        &self.keys
    }
}

/// The most split bits: 256 classes a list.
pub const MAX_SPLIT: u32 = 8;

/// Keys sampled per list to choose the split bits (every key of a shorter list).
const SAMPLE: usize = 256;

/// The split mask of `k` bits (below bit `bits`) that the keys of `a` and `b` hold together
/// most often, by a sample of each list.
pub fn split_mask(a: &[u64], b: &[u64], bits: u32, k: u32) -> u64 {
    let frequencies = |keys: &[u64]| {
        let mut held = [0u32; 64];
        for &key in keys.iter().step_by(keys.len().div_ceil(SAMPLE).max(1)) {
            let mut rest = key;
            while rest != 0 {
                held[rest.trailing_zeros() as usize] += 1;
                rest &= rest - 1;
            }
        }
        held
    };
    let (in_a, in_b) = (frequencies(a), frequencies(b));
    let mut order: Vec<u32> = (0..bits).collect();
    // Largest product of the two frequencies first (both samples have fixed sizes, so the
    // products compare as the fractions' products do).
    order.sort_by_key(|&p| {
        std::cmp::Reverse(u64::from(in_a[p as usize]) * u64::from(in_b[p as usize]))
    });
    order
        .iter()
        .take(k as usize)
        .fold(0, |mask, &p| mask | 1 << p)
}

/// Packs the bits of `x` under `mask` into the low bits, in order (BMI2's `pext`).
#[inline(always)]
fn compress_portable(x: u64, mask: u64) -> u64 {
    let (mut packed, mut bit, mut rest) = (0u64, 0u32, mask);
    while rest != 0 {
        packed |= u64::from(x & rest & rest.wrapping_neg() != 0) << bit;
        bit += 1;
        rest &= rest - 1;
    }
    packed
}

thicket_core::fast_path! {
    /// [`compress_portable`] in one instruction.
    #[inline]
    fn compress_fast(x: u64, mask: u64) -> u64 {
        std::arch::x86_64::_pext_u64(x, mask)
    }
}

/// The class sort, written once and compiled for each CPU path.
macro_rules! sort_paths {
    ($(#[$attr:meta])* $name:ident, $compress:ident) => {
        /// Sorts `keys` into `out` by their bits on `split` (`k` bits), keeping their bits on
        /// `rest`; a counting sort, two passes.
        $(#[$attr])*
        pub fn $name(keys: &[u64], (split, rest): (u64, u64), k: u32, out: &mut Classes) {
            let classes = 1usize << k;
            out.starts.clear();
            out.starts.resize(classes + 1, 0);
            for &key in keys {
                out.starts[$compress(key, split) as usize + 1] += 1;
            }
            for c in 1..=classes {
                out.starts[c] += out.starts[c - 1];
            }
            let mut next = [0u32; 1 << MAX_SPLIT];
            next[..classes].copy_from_slice(&out.starts[..classes]);
            out.keys.clear();
            out.keys.resize(keys.len(), 0);
            for &key in keys {
                let slot = &mut next[$compress(key, split) as usize];
                out.keys[*slot as usize] = $compress(key, rest);
                *slot += 1;
            }
        }
    };
}

sort_paths!(sort_portable, compress_portable);
thicket_core::fast_path!(sort_paths!(sort_fast, compress_fast));

#[cfg(test)]
mod tests {
    use super::*;

    /// Both paths put every key in its class with the split bits removed.
    #[test]
    fn keys_land_in_their_class_without_the_split_bits() {
        let keys: Vec<u64> = (0..500u64)
            .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40)
            .collect();
        let split = 0b1010_0100_0001u64 << 3;
        let rest = ((1u64 << 24) - 1) & !split;
        let mut classes = Classes::default();
        sort_portable(&keys, (split, rest), 4, &mut classes);
        let mut expected: Vec<Vec<u64>> = vec![Vec::new(); 16];
        for &key in &keys {
            expected[compress_portable(key, split) as usize].push(compress_portable(key, rest));
        }
        for (c, keys) in expected.iter().enumerate() {
            assert_eq!(classes.class(c), &keys[..]);
        }
        #[cfg(target_arch = "x86_64")]
        if thicket_core::cpu::fast_path_supported() {
            let mut fast = Classes::default();
            // SAFETY: the CPU has the fast path's features (checked above).
            unsafe { sort_fast(&keys, (split, rest), 4, &mut fast) };
            assert_eq!((fast.starts, fast.keys), (classes.starts, classes.keys));
        }
    }

    /// The mask holds the bits both lists hold most often.
    #[test]
    fn the_mask_takes_the_most_shared_bits() {
        let a = [0b0111u64, 0b0101, 0b1100];
        let b = [0b0110u64, 0b0100, 0b1001];
        // Bit 2: 3 x 2, bit 0: 2 x 1, bit 1: 1 x 1, bit 3: 1 x 1.
        assert_eq!(split_mask(&a, &b, 4, 1), 0b0100);
        assert_eq!(split_mask(&a, &b, 4, 2), 0b0101);
    }
}
