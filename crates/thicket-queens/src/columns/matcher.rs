//! Counting the disjoint pairs of two lists of bit sets: how many `(a, b)` have `a & b == 0`.
//!
//! One list (the stored side) is cut into blocks of [`BLOCK`] sets. For each block, bit plane
//! `p` is a [`BLOCK`]-bit mask of the sets that do not hold bit `p`, and the planes are
//! combined [`CHUNK`] bits at a time: entry `v` of chunk `k` is the AND of the planes of the
//! bits of `v` (bits `CHUNK * k ..`), so a set of the other list (the streamed side) finds its
//! partners in the block with one AND of a table entry per chunk and one popcount of the
//! result: 7 ANDs of 512 bits for 512 pairs at n = 18 (34-bit keys), where testing pairs one
//! by one takes 512 ANDs. A block's table is 7 x 32 x 64 bytes = 14 KiB and stays in the L1
//! cache while every streamed set is counted against it.

/// Sets per block of the stored side: one table entry is a 512-bit mask.
const BLOCK: usize = 512;

/// 64-bit words of one entry.
const WORDS: usize = BLOCK / 64;

/// Key bits combined per table lookup: 32 entries a chunk keep a block's tables at 14 KiB for
/// 34-bit keys (n = 18), inside the L1 cache (4 and 6 not measured).
const CHUNK: u32 = 5;

/// Entries per chunk.
const ENTRIES: usize = 1 << CHUNK;

/// One table entry: a mask of the block's sets.
type Entry = [u64; WORDS];

/// The tables of one block, kept by a thread from one count to the next.
#[derive(Debug, Default)]
pub struct MatchScratch {
    planes: Vec<Entry>,
    table: Vec<Entry>,
}

/// The pair counts, written once and compiled for each CPU path.
macro_rules! matcher_paths {
    ($(#[$attr:meta])* $disjoint:ident, $blocks:ident, $direct:ident) => {
        $(#[$attr])*
        fn $direct(stored: &[u64], streamed: &[u64]) -> u64 {
            let mut count = 0u64;
            for &key in streamed {
                count += stored.iter().map(|&s| u64::from(s & key == 0)).sum::<u64>();
            }
            count
        }

        $(#[$attr])*
        fn $blocks(
            (stored, streamed): (&[u64], &[u64]),
            bits: u32,
            wide: bool,
            scratch: &mut MatchScratch,
        ) -> u64 {
            let chunks = bits.div_ceil(CHUNK) as usize;
            let planes = &mut scratch.planes;
            planes.clear();
            planes.resize(chunks * CHUNK as usize, [0; WORDS]);
            let table = &mut scratch.table;
            table.clear();
            table.resize(chunks * ENTRIES, [0; WORDS]);
            let mut count = 0u64;
            for block in stored.chunks(BLOCK) {
                // The planes: a set's bit is cleared in the plane of each bit it holds; sets
                // past the block's end are in no plane's first entry (below). Set `i` is bit
                // `i / WORDS` of word `i % WORDS`, so that consecutive sets write different
                // words and their read-modify-writes do not wait for each other (this loop took
                // 60% of the count at n = 17 with set `i` in word `i / 64`).
                planes.fill([u64::MAX; WORDS]);
                for (i, &key) in block.iter().enumerate() {
                    let (word, bit) = (i % WORDS, i / WORDS);
                    let mut rest = key;
                    while rest != 0 {
                        planes[rest.trailing_zeros() as usize][word] &= !(1u64 << bit);
                        rest &= rest - 1;
                    }
                }
                for k in 0..chunks {
                    let base = k * ENTRIES;
                    table[base] = if k == 0 {
                        valid_sets(block.len())
                    } else {
                        [u64::MAX; WORDS]
                    };
                    for v in 1..ENTRIES {
                        let without_lowest = table[base + (v & (v - 1))];
                        let plane = &planes[k * CHUNK as usize + v.trailing_zeros() as usize];
                        let mut entry = [0u64; WORDS];
                        for w in 0..WORDS {
                            entry[w] = without_lowest[w] & plane[w];
                        }
                        table[base + v] = entry;
                    }
                }
                #[cfg(target_arch = "x86_64")]
                if wide {
                    // SAFETY: `wide` is set only where the CPU has AVX-512 with its popcount.
                    count += unsafe { stream_wide(table, chunks, streamed) };
                    continue;
                }
                for &key in streamed {
                    let mut partners = table[key as usize & (ENTRIES - 1)];
                    for k in 1..chunks {
                        let entry = &table[k * ENTRIES + (key >> (k as u32 * CHUNK)) as usize % ENTRIES];
                        for w in 0..WORDS {
                            partners[w] &= entry[w];
                        }
                    }
                    count += partners.iter().map(|w| u64::from(w.count_ones())).sum::<u64>();
                }
            }
            count
        }

        $(#[$attr])*
        fn $disjoint(a: &[u64], b: &[u64], bits: u32, wide: bool, scratch: &mut MatchScratch) -> u64 {
            match cheapest(a.len(), b.len(), bits, wide) {
                Method::Direct => $direct(a, b),
                Method::Blocks(true) => $blocks((a, b), bits, wide, scratch),
                Method::Blocks(false) => $blocks((b, a), bits, wide, scratch),
            }
        }
    };
}

matcher_paths!(disjoint_pairs_portable, blocks_portable, direct_portable);
thicket_core::fast_path!(matcher_paths!(
    disjoint_pairs_fast,
    blocks_fast,
    direct_fast
));

/// How the pairs of two lists are counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Method {
    /// Pair by pair.
    Direct,
    /// The first list stored in blocks (`true`) or the second.
    Blocks(bool),
}

/// The method of least estimated cost for lists of `a` and `b` sets of `bits` bits, in cycles
/// per set stored, per table and per streamed set and block: rough counts of the instructions
/// each step runs (storing a set writes one plane bit per bit it holds, about half of them),
/// not tuned by measurement.
fn cheapest(a: usize, b: usize, bits: u32, wide: bool) -> Method {
    let chunks = bits.div_ceil(CHUNK) as usize;
    let per_stream = if wide { 3 + chunks } else { 8 + 3 * chunks };
    let blocks = |stored: usize, streamed: usize| {
        let tables = stored.div_ceil(BLOCK);
        stored * bits as usize / 2 + tables * (chunks * ENTRIES + streamed * per_stream)
    };
    let direct = a * b / 3;
    let (first, second) = (blocks(a, b), blocks(b, a));
    if direct <= first.min(second) {
        Method::Direct
    } else {
        Method::Blocks(first <= second)
    }
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

/// The mask of the first `len` sets of a block (set `i` is bit `i / WORDS` of word
/// `i % WORDS`).
fn valid_sets(len: usize) -> Entry {
    let mut mask = [0u64; WORDS];
    for (w, word) in mask.iter_mut().enumerate() {
        // Sets w, w + WORDS, w + 2 WORDS, ... below len.
        let sets = len.saturating_sub(w).div_ceil(WORDS).min(64);
        *word = if sets == 64 {
            u64::MAX
        } else {
            (1u64 << sets) - 1
        };
    }
    mask
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
        ] {
            let a = random_sets(&mut rng, la, bits);
            let b = random_sets(&mut rng, lb, bits);
            let expected = pairwise(&a, &b);
            assert_eq!(
                disjoint_pairs_portable(&a, &b, bits, false, &mut scratch),
                expected
            );
            assert_eq!(direct_portable(&a, &b), expected);
            for lists in [(&a[..], &b[..]), (&b[..], &a[..])] {
                assert_eq!(blocks_portable(lists, bits, false, &mut scratch), expected);
                #[cfg(target_arch = "x86_64")]
                if thicket_core::cpu::fast_path_supported() && wide_supported() {
                    // SAFETY: the CPU has the fast path's and the wide loop's features.
                    let wide = unsafe { blocks_fast(lists, bits, true, &mut scratch) };
                    assert_eq!(wide, expected);
                }
            }
            assert_eq!(disjoint_pairs(&a, &b, bits, &mut scratch), expected);
        }
    }
}
