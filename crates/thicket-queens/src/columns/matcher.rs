//! Counting the disjoint pairs of two lists of bit sets: how many `(a, b)` have `a & b == 0`.
//!
//! Long lists are first split into classes by a few of their bits ([`super::classes`]), and
//! only the classes that can fit are counted against each other, without those bits. One list
//! (the stored side) is cut into blocks of [`BLOCK`] sets. For each block, entry `v` of chunk
//! `k` is a [`BLOCK`]-bit mask of the sets that hold none of the bits of `v` (bits
//! `CHUNK * k ..`), so a set of the other list (the streamed side) finds its partners in the
//! block with one AND of a table entry per chunk and one popcount of the result: 5 ANDs of 512
//! bits for 512 pairs at n = 18 (34-bit keys, 29 bits after a 5-bit split), where testing
//! pairs one by one takes 512 ANDs. A block's table is 5 x 64 x 64 bytes = 20 KiB and stays
//! in the L1 cache while every streamed set is counted against it.

#[cfg(target_arch = "x86_64")]
use super::classes::sort_fast;
use super::classes::{sort_portable, split_mask, Classes, MAX_SPLIT};

/// Sets per block of the stored side: one table entry is a 512-bit mask.
const BLOCK: usize = 512;

/// 64-bit words of one entry.
const WORDS: usize = BLOCK / 64;

/// Key bits combined per table lookup: 64 entries a chunk keep a block's tables at 20 KiB for
/// the 29-bit keys of n = 18 after the split, inside the L1 cache (5 bits: 7% more time at
/// n = 18, one thread; docs/queens.md).
const CHUNK: u32 = 6;

/// Entries per chunk.
const ENTRIES: usize = 1 << CHUNK;

/// One table entry: a mask of the block's sets.
type Entry = [u64; WORDS];

/// One block's tables, kept by a thread from one count to the next.
#[derive(Debug, Default)]
struct Tables {
    table: Vec<Entry>,
}

/// A thread's buffers for counting pairs, kept from one count to the next: the block tables
/// and both lists sorted into classes ([`super::classes`]).
#[derive(Debug, Default)]
pub struct MatchScratch {
    tables: Tables,
    stored: Classes,
    streamed: Classes,
    /// The streamed classes that fit the stored class being counted.
    ranges: Vec<(u32, u32)>,
}

/// The pair counts, written once and compiled for each CPU path.
macro_rules! matcher_paths {
    ($(#[$attr:meta])* $disjoint:ident, $whole:ident, $blocks:ident, $direct:ident, $sort:ident) => {
        $(#[$attr])*
        fn $direct(stored: &[u64], streamed: &[u64]) -> u64 {
            let mut count = 0u64;
            for &key in streamed {
                count += stored.iter().map(|&s| u64::from(s & key == 0)).sum::<u64>();
            }
            count
        }

        /// The pairs of `stored` and the parts `ranges` of `streamed`.
        $(#[$attr])*
        fn $blocks(
            stored: &[u64],
            (streamed, ranges): (&[u64], &[(u32, u32)]),
            bits: u32,
            wide: bool,
            tables: &mut Tables,
        ) -> u64 {
            let chunks = bits.div_ceil(CHUNK) as usize;
            let table = &mut tables.table;
            table.clear();
            table.resize(chunks * ENTRIES, [0; WORDS]);
            let mut count = 0u64;
            for block in stored.chunks(BLOCK) {
                // Each set first marks, in each chunk, the entry of the complement of its
                // bits there; then every entry takes in the marks of the entries above it
                // (those of more bits): entry `v` ends with the sets whose bits there lie
                // outside `v`, the sets that fit a streamed set with bits `v`. Set `i` is bit
                // `i / WORDS` of word `i % WORDS`, so that consecutive sets write different
                // words and their read-modify-writes do not wait for each other.
                table.fill([0; WORDS]);
                for (i, &key) in block.iter().enumerate() {
                    let (word, bit) = (i % WORDS, i / WORDS);
                    for k in 0..chunks {
                        let outside = !(key >> (k as u32 * CHUNK)) as usize % ENTRIES;
                        table[k * ENTRIES + outside][word] |= 1u64 << bit;
                    }
                }
                for k in 0..chunks {
                    let chunk = &mut table[k * ENTRIES..(k + 1) * ENTRIES];
                    for j in 0..CHUNK {
                        for v in 0..ENTRIES {
                            if v >> j & 1 == 0 {
                                let above = chunk[v | 1 << j];
                                for w in 0..WORDS {
                                    chunk[v][w] |= above[w];
                                }
                            }
                        }
                    }
                }
                for &(start, end) in ranges {
                    let part = &streamed[start as usize..end as usize];
                    #[cfg(target_arch = "x86_64")]
                    if wide {
                        // SAFETY: `wide` is set only where the CPU has AVX-512 with its
                        // popcount.
                        count += unsafe { stream_wide(table, chunks, part) };
                        continue;
                    }
                    for &key in part {
                        let mut partners = table[key as usize & (ENTRIES - 1)];
                        for k in 1..chunks {
                            let entry =
                                &table[k * ENTRIES + (key >> (k as u32 * CHUNK)) as usize % ENTRIES];
                            for w in 0..WORDS {
                                partners[w] &= entry[w];
                            }
                        }
                        count += partners.iter().map(|w| u64::from(w.count_ones())).sum::<u64>();
                    }
                }
            }
            count
        }

        /// The pairs of `a` and `b`, neither split.
        $(#[$attr])*
        fn $whole(a: &[u64], b: &[u64], bits: u32, wide: bool, tables: &mut Tables) -> u64 {
            match cheapest(a.len(), b.len(), bits, wide) {
                Method::Direct => $direct(a, b),
                Method::Blocks(true) => $blocks(a, (b, &[(0, b.len() as u32)]), bits, wide, tables),
                Method::Blocks(false) => $blocks(b, (a, &[(0, a.len() as u32)]), bits, wide, tables),
            }
        }

        $(#[$attr])*
        fn $disjoint(a: &[u64], b: &[u64], bits: u32, wide: bool, scratch: &mut MatchScratch) -> u64 {
            // The longer list is stored: its classes fill more of their blocks.
            let (stored, streamed) = if a.len() >= b.len() { (a, b) } else { (b, a) };
            let k = split_width(stored.len(), streamed.len(), bits);
            if k == 0 {
                return $whole(a, b, bits, wide, &mut scratch.tables);
            }
            let split = split_mask(stored, streamed, bits, k);
            let rest = !split & (u64::MAX >> (64 - bits));
            let MatchScratch { tables, stored: stored_classes, streamed: streamed_classes, ranges } = scratch;
            $sort(stored, (split, rest), k, stored_classes);
            $sort(streamed, (split, rest), k, streamed_classes);
            let bits = bits - k;
            let all = (1usize << k) - 1;
            let mut count = 0u64;
            for class in 0..=all {
                let keys = stored_classes.class(class);
                if keys.is_empty() {
                    continue;
                }
                // Every class of the other list that shares no split bit with this one.
                ranges.clear();
                let free = all & !class;
                let mut partner = free;
                loop {
                    let (start, end) = streamed_classes.range(partner);
                    if end > start {
                        ranges.push((start, end));
                    }
                    if partner == 0 {
                        break;
                    }
                    partner = (partner - 1) & free;
                }
                let partners: usize = ranges.iter().map(|&(s, e)| (e - s) as usize).sum();
                let all_streamed = streamed_classes.keys();
                if direct_cost(keys.len(), partners) <= blocks_cost(keys.len(), partners, bits, wide) {
                    for &(start, end) in ranges.iter() {
                        count += $direct(keys, &all_streamed[start as usize..end as usize]);
                    }
                } else {
                    count += $blocks(keys, (all_streamed, ranges), bits, wide, tables);
                }
            }
            count
        }
    };
}

matcher_paths!(
    disjoint_pairs_portable,
    whole_portable,
    blocks_portable,
    direct_portable,
    sort_portable
);
thicket_core::fast_path!(matcher_paths!(
    disjoint_pairs_fast,
    whole_fast,
    blocks_fast,
    direct_fast,
    sort_fast
));

/// How the pairs of two lists are counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Method {
    /// Pair by pair.
    Direct,
    /// The first list stored in blocks (`true`) or the second.
    Blocks(bool),
}

/// The estimated cost of counting `stored` sets of `bits` bits against `streamed` ones in
/// blocks, in cycles per set stored (one mark a chunk), per table (its entries taking in
/// those above them, one pass a bit) and per streamed set and block: rough counts of the
/// instructions each step runs, not tuned by measurement.
fn blocks_cost(stored: usize, streamed: usize, bits: u32, wide: bool) -> usize {
    let chunks = bits.div_ceil(CHUNK) as usize;
    let per_stream = if wide { 3 + chunks } else { 8 + 3 * chunks };
    let tables = stored.div_ceil(BLOCK);
    stored * chunks + tables * (chunks * ENTRIES * CHUNK as usize / 2 + streamed * per_stream)
}

/// The estimated cost of testing every pair of `a` and `b` sets one by one.
fn direct_cost(a: usize, b: usize) -> usize {
    a * b / 3
}

/// The method of least estimated cost for lists of `a` and `b` sets of `bits` bits.
fn cheapest(a: usize, b: usize, bits: u32, wide: bool) -> Method {
    let (first, second) = (blocks_cost(a, b, bits, wide), blocks_cost(b, a, bits, wide));
    if direct_cost(a, b) <= first.min(second) {
        Method::Direct
    } else {
        Method::Blocks(first <= second)
    }
}

/// Stored sets per class aimed at when splitting: a class of fewer than [`BLOCK`] still takes
/// a whole block's tables, more leaves pairs a further split bit would drop (n = 18, one
/// thread, CPU time: 256 beat 128 and 512 by 5-10%, 64 and 2048 by 30-60%).
const SETS_PER_CLASS: usize = 256;

/// Lists split only where they hold at least this many pairs per set: below, sorting them
/// costs about what the pairs it drops would (a rough count, not tuned).
const MIN_PAIRS_PER_SET: usize = 2048;

/// How many bits to split lists of `stored` and `streamed` sets by ([`super::classes`]): none
/// where sorting them would cost more than the pairs it saves, else as many as leave the
/// stored classes [`SETS_PER_CLASS`] sets on average.
fn split_width(stored: usize, streamed: usize, bits: u32) -> u32 {
    if stored.saturating_mul(streamed) < MIN_PAIRS_PER_SET * (stored + streamed) {
        return 0;
    }
    let k = (stored / SETS_PER_CLASS).checked_ilog2().unwrap_or(0);
    k.min(MAX_SPLIT).min(bits / 2)
}

/// Counts the streamed sets' partners in one block's table with 512-bit ANDs and popcounts.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vpopcntdq")]
fn stream_wide(table: &[Entry], chunks: usize, streamed: &[u64]) -> u64 {
    use std::arch::x86_64::*;
    let load = |entry: &Entry| {
        // SAFETY: an entry is 64 readable bytes; the load is unaligned.
        unsafe { _mm512_loadu_si512(entry.as_ptr().cast()) }
    };
    let mut sums = _mm512_setzero_si512();
    for &key in streamed {
        let mut partners = load(&table[key as usize % ENTRIES]);
        for k in 1..chunks {
            let index = k * ENTRIES + (key >> (k as u32 * CHUNK)) as usize % ENTRIES;
            partners = _mm512_and_si512(partners, load(&table[index]));
        }
        sums = _mm512_add_epi64(sums, _mm512_popcnt_epi64(partners));
    }
    _mm512_reduce_add_epi64(sums) as u64
}

/// Whether this CPU runs [`stream_wide`].
fn wide_supported() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::is_x86_feature_detected!("avx512f") && std::is_x86_feature_detected!("avx512vpopcntdq")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// The number of pairs `(x, y)`, `x` from `a` and `y` from `b`, with `x & y == 0`; every set
/// lies below bit `bits` (at most 64).
pub fn disjoint_pairs(a: &[u64], b: &[u64], bits: u32, scratch: &mut MatchScratch) -> u64 {
    debug_assert!(bits <= 64);
    #[cfg(target_arch = "x86_64")]
    if thicket_core::cpu_path() == thicket_core::CpuPath::Fast {
        static WIDE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
        let wide = *WIDE.get_or_init(wide_supported);
        // SAFETY: the fast path is taken only where the CPU has its features.
        return unsafe { disjoint_pairs_fast(a, b, bits, wide, scratch) };
    }
    disjoint_pairs_portable(a, b, bits, false, scratch)
}

#[cfg(test)]
mod tests {
    use super::*;
    use thicket_core::SplitMix;

    fn pairwise(a: &[u64], b: &[u64]) -> u64 {
        a.iter()
            .map(|x| b.iter().filter(|&&y| x & y == 0).count() as u64)
            .sum()
    }

    fn random_sets(rng: &mut SplitMix, len: usize, bits: u32) -> Vec<u64> {
        // Sparse sets, as the halves' diagonal keys are, so that some pairs are disjoint.
        (0..len)
            .map(|_| (rng.next_u64() & rng.next_u64() & rng.next_u64()) & ((1u64 << bits) - 1))
            .collect()
    }

    /// Both paths, blocked and one by one, against the pairwise count: block edges, short
    /// and long lists, every chunk count.
    #[test]
    fn the_block_tables_count_every_disjoint_pair() {
        let mut rng = SplitMix::new(31);
        let mut scratch = MatchScratch::default();
        for (la, lb, bits) in [
            (0, 5, 10),
            (1, 1, 3),
            (47, 600, 34),
            (48, 512, 34),
            (700, 49, 17),
            (1025, 300, 38),
            (513, 64, 62),
            // Long enough to be split into classes.
            (9000, 4000, 34),
            (3000, 7000, 30),
        ] {
            let a = random_sets(&mut rng, la, bits);
            let b = random_sets(&mut rng, lb, bits);
            let expected = pairwise(&a, &b);
            assert_eq!(
                disjoint_pairs_portable(&a, &b, bits, false, &mut scratch),
                expected
            );
            assert_eq!(direct_portable(&a, &b), expected);
            for (stored, streamed) in [(&a[..], &b[..]), (&b[..], &a[..])] {
                let whole = [(0, streamed.len() as u32)];
                let (tables, parts) = (&mut scratch.tables, (streamed, &whole[..]));
                assert_eq!(
                    blocks_portable(stored, parts, bits, false, tables),
                    expected
                );
                #[cfg(target_arch = "x86_64")]
                if thicket_core::cpu::fast_path_supported() && wide_supported() {
                    // SAFETY: the CPU has the fast path's and the wide loop's features.
                    let wide = unsafe { blocks_fast(stored, parts, bits, true, tables) };
                    assert_eq!(wide, expected);
                }
            }
            assert_eq!(disjoint_pairs(&a, &b, bits, &mut scratch), expected);
            #[cfg(target_arch = "x86_64")]
            if thicket_core::cpu::fast_path_supported() {
                for wide in [false, wide_supported()] {
                    // SAFETY: the CPU has the fast path's features, and the wide loop's where
                    // `wide` is set.
                    let fast = unsafe { disjoint_pairs_fast(&a, &b, bits, wide, &mut scratch) };
                    assert_eq!(fast, expected);
                }
            }
        }
    }
}
