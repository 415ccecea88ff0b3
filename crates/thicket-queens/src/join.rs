//! The CPU join counter: meet in the middle instead of backtracking through every row.
//!
//! The board is cut between rows `h - 1` and `h`, `h = (n - 1) / 2` (measured best at
//! n = 16, 17 and 18). A solution with a given border constellation is exactly one placement of
//! the top half (rows `0..h`: the constellation's border queens there and one inner queen in
//! each other row) and one of the bottom half (rows `h..n`) that
//! - use complementary sets of columns, and
//! - share no diagonal.
//!
//! Only diagonals that cross the cut can be shared, `n - 1` of each direction, so a half's
//! diagonals fit one 64-bit key and the diagonal test is one AND.
//!
//! The bottom half depends only on the border queens below the cut, which many constellations
//! share (at n = 16, the 3157 asymmetric canonical constellations have 207 distinct bottom
//! borders). Each distinct bottom border's placements are enumerated once and bucketed by
//! their column set ([`BottomHalf`]). Each constellation of the group enumerates its own
//! top placements; these are bucketed by the columns they leave open, and each bucket of tops
//! is tested against the one bucket of bottoms with those columns, so each bottom bucket is
//! read once per group, in order. Enumerating a top half per constellation and a bottom half per bottom border costs far less
//! than the row-by-row search of every inner board (n = 16: 2.5e7 half placements and 6.4e8
//! one-AND tests against 5.0e7 search nodes of about 17 ns each).

use crate::constellation::CanonicalConstellation;
use crate::count::board_mask;
use crate::lines::LineBoard;

/// Bit offset of the "\" diagonal set (bit `c - r + 32`), as in [`LineBoard`].
const OFFSET: u32 = 32;

/// Buckets are padded to a multiple of this many keys, so the join tests whole vectors.
const LANES: usize = 4;

/// The key of a padding slot, and a bit set in every top key: no real key uses bit 63 (keys
/// take `2n - 2 <= 62` bits), so padding never matches.
const PADDING: u64 = 1 << 63;

/// Where a found placement's bucket starts: keys take `2n - 2 <= 34` bits (n <= 18, the
/// largest of [`JOIN_SIZES`]) and buckets `n - 2 <= 16`, so both fit one word.
const BUCKET_SHIFT: u32 = 40;

/// The key bits of a found placement.
const KEY_MASK: u64 = (1 << BUCKET_SHIFT) - 1;

/// A found placement as one word: its bucket and its diagonal key.
#[inline(always)]
fn found_entry(bucket: u32, key: u64) -> u64 {
    debug_assert!(key <= KEY_MASK);
    u64::from(bucket) << BUCKET_SHIFT | key
}

/// The board sizes the join counts. Below, boards are too small to gain; above, the placements
/// of one bottom border and its constellations' tops take too much memory (n = 18: 417 MB on
/// one thread, growing about 4-5x per n).
pub const JOIN_SIZES: std::ops::RangeInclusive<usize> = 8..=18;

/// Queens as line sets: the part of a [`LineBoard`] the half enumerations need.
#[derive(Debug, Clone, Copy)]
struct Lines {
    cols: u32,
    falling: u64,
    rising: u64,
}

impl Lines {
    /// The line sets of the given queens.
    fn of(n: usize, queens: &[(usize, usize)]) -> Lines {
        let board = queens.iter().fold(LineBoard::empty(n), |b, &(r, c)| {
            b.place(r as u32, c as u32)
        });
        Lines {
            cols: board.columns(),
            falling: board.falling_diagonals(),
            rising: board.rising_diagonals(),
        }
    }

    /// Free columns of row `r` among `allowed`.
    #[inline(always)]
    fn free(&self, r: u32, allowed: u32) -> u32 {
        let attacked =
            self.cols | (self.falling >> (OFFSET - r)) as u32 | (self.rising >> r) as u32;
        !attacked & allowed
    }

    /// The sets with one more queen at row `r`, column `c`.
    #[inline(always)]
    fn place(&self, r: u32, c: u32) -> Lines {
        Lines {
            cols: self.cols | 1 << c,
            falling: self.falling | 1u64 << (c + OFFSET - r),
            rising: self.rising | 1u64 << (c + r),
        }
    }
}

/// The cut between the halves: `row` is the first row of the bottom half.
#[derive(Debug, Clone, Copy)]
struct Cut {
    n: u32,
    row: u32,
    /// Columns of row `row` whose "\" diagonal also reaches the row above (`1..n`).
    falling_mask: u32,
    /// Columns of row `row` whose "/" diagonal also reaches the row above (`0..n-1`).
    rising_mask: u32,
}

impl Cut {
    fn new(n: usize) -> Cut {
        let board = board_mask(n);
        Cut {
            n: n as u32,
            row: ((n - 1) / 2) as u32,
            falling_mask: board & !1,
            rising_mask: board >> 1,
        }
    }

    /// True when the queen's row lies in the top half.
    fn is_top(&self, (r, _): (usize, usize)) -> bool {
        r < self.row as usize
    }

    /// The occupied diagonals that cross the cut, as one key: a "\" diagonal by the column
    /// where it meets row `row` (bits `0..n-1`), a "/" one likewise (bits `n-1..2n-2`).
    #[inline(always)]
    fn key(&self, lines: &Lines) -> u64 {
        let falling = (lines.falling >> (OFFSET - self.row)) as u32 & self.falling_mask;
        let rising = (lines.rising >> self.row) as u32 & self.rising_mask;
        u64::from(falling >> 1) | u64::from(rising) << (self.n - 1)
    }

    /// The rows of one half that hold no border queen: `top` rows `1..row`, else rows
    /// `row..n-1`, bottom-up.
    fn inner_rows(&self, top: bool, border: &[(usize, usize)]) -> Vec<u32> {
        let has_queen = |r: &u32| border.iter().any(|q| q.0 == *r as usize);
        if top {
            (1..self.row).filter(|r| !has_queen(r)).collect()
        } else {
            (self.row..self.n - 1)
                .rev()
                .filter(|r| !has_queen(r))
                .collect()
        }
    }
}

/// Calls `leaf` with every placement of one queen in each of `rows` (in order, below or above
/// the cut) on the columns of `allowed`; written once and compiled for each CPU path
/// (`$name` calls itself).
macro_rules! each_placement {
    ($(#[$attr:meta])* $name:ident) => {
        $(#[$attr])*
        fn $name<F: FnMut(&Lines)>(lines: &Lines, rows: &[u32], allowed: u32, leaf: &mut F) {
            match rows {
                [] => leaf(lines),
                [row] => {
                    let mut free = lines.free(*row, allowed);
                    while free != 0 {
                        let c = free.trailing_zeros();
                        free &= free - 1;
                        leaf(&lines.place(*row, c));
                    }
                }
                [row, rest @ ..] => {
                    let mut free = lines.free(*row, allowed);
                    while free != 0 {
                        let c = free.trailing_zeros();
                        free &= free - 1;
                        $name(&lines.place(*row, c), rest, allowed, leaf);
                    }
                }
            }
        }
    };
}

each_placement!(each_placement_portable);
thicket_core::fast_path!(each_placement!(each_placement_fast));

/// The bits of `x` at the positions of `mask`, packed into the low bits: a dense index of the
/// subsets of `mask`.
#[inline(always)]
fn compress_portable(x: u32, mask: u32) -> u32 {
    let (mut packed, mut bit, mut rest) = (0, 0, mask);
    while rest != 0 {
        if x & rest & rest.wrapping_neg() != 0 {
            packed |= 1 << bit;
        }
        bit += 1;
        rest &= rest - 1;
    }
    packed
}

thicket_core::fast_path! {
    /// [`compress_portable`] in one instruction (BMI2's parallel bit extract).
    #[inline]
    fn compress_fast(x: u32, mask: u32) -> u32 {
        std::arch::x86_64::_pext_u32(x, mask)
    }
}

/// Inner board columns: every column but the first and the last (those hold side queens).
fn inner_columns(n: usize) -> u32 {
    board_mask(n) & !1 & !(1 << (n - 1))
}

/// Keys grouped by bucket: bucket `b` holds `keys[starts[b]..starts[b + 1]]`. Offsets are
/// 32-bit: a group holds some tens of millions of placements at n = 18, far below 2^32.
#[derive(Debug, Default)]
struct Buckets {
    starts: Vec<u32>,
    keys: Vec<u64>,
}

impl Buckets {
    /// Counting-sorts found placements (each its bucket, below `buckets`, above bit
    /// [`BUCKET_SHIFT`] and its key below) into `buckets` buckets, each padded with [`PADDING`]
    /// keys to a multiple of `lanes`; `next` is scratch space.
    fn sort(&mut self, found: &[u64], buckets: usize, lanes: u32, next: &mut Vec<u32>) {
        self.starts.clear();
        self.starts.resize(buckets + 1, 0);
        for &item in found {
            self.starts[(item >> BUCKET_SHIFT) as usize + 1] += 1;
        }
        for b in 1..=buckets {
            self.starts[b] = self.starts[b - 1] + self.starts[b].next_multiple_of(lanes);
        }
        next.clear();
        next.extend_from_slice(&self.starts);
        self.keys.clear();
        self.keys.resize(self.starts[buckets] as usize, PADDING);
        for &item in found {
            let slot = &mut next[(item >> BUCKET_SHIFT) as usize];
            self.keys[*slot as usize] = item & KEY_MASK;
            *slot += 1;
        }
    }

    /// The keys of bucket `b`.
    fn bucket(&self, b: usize) -> &[u64] {
        &self.keys[self.starts[b] as usize..self.starts[b + 1] as usize]
    }
}

/// The buffers of [`BottomHalf`], kept by a thread from one group to the next so that their
/// memory is allocated (and its pages faulted in) once.
#[derive(Debug, Default)]
pub struct JoinScratch {
    /// Placements as found: the bucket above bit [`BUCKET_SHIFT`], the diagonal key below
    /// (8 bytes a placement: this buffer is the join's largest, tens of millions of entries
    /// at n = 18).
    found: Vec<u64>,
    /// The bottom placements' keys by the inner columns they use, padded to whole vectors.
    bottoms: Buckets,
    /// The top placements' keys by the inner columns they leave to the bottom.
    tops: Buckets,
    /// Counting-sort cursors.
    next: Vec<u32>,
}

/// The bottom half of a group of constellations: the placements below the cut of their
/// shared bottom border, enumerated once and bucketed by the inner columns they use. Read-only
/// once built, so the group's members can be counted against it on several threads.
#[derive(Debug)]
pub struct BottomHalf {
    cut: Cut,
    border: Vec<(usize, usize)>,
    /// The inner columns a bottom placement may use: those of no bottom border queen.
    columns: u32,
    /// The key of the border queens below the cut, which every top key of the group carries.
    border_key: u64,
    placements: Buckets,
}

/// [`BottomHalf::new`] and [`BottomHalf::count`], written once and compiled for each CPU
/// path with its placement enumeration and bit extract.
macro_rules! bottom_half_paths {
    ($(#[$attr:meta])* $new:ident, $count:ident, $each:ident, $compress:ident) => {
        impl BottomHalf {
            $(#[$attr])*
            fn $new(n: usize, border: &[(usize, usize)], scratch: &mut JoinScratch) -> BottomHalf {
        let cut = Cut::new(n);
        let start = Lines::of(n, border);
        let columns = inner_columns(n) & !start.cols;
        let found = &mut scratch.found;
        found.clear();
        let rows = cut.inner_rows(false, border);
        $each(&start, &rows, columns, &mut |lines| {
            found.push(found_entry($compress(lines.cols, columns), cut.key(lines)));
        });
        // The thread's last bottom buffer is reused: its pages are faulted in already.
        let mut placements = std::mem::take(&mut scratch.bottoms);
        placements.sort(
            found,
            1usize << columns.count_ones(),
            LANES as u32,
            &mut scratch.next,
        );
        BottomHalf {
            border_key: cut.key(&start),
            cut,
            border: border.to_vec(),
            columns,
            placements,
        }
            }

            $(#[$attr])*
            fn $count(
                &self,
                n: usize,
                constellations: &[&CanonicalConstellation],
                scratch: &mut JoinScratch,
            ) -> u64 {
        let cut = &self.cut;
        let buckets = 1usize << self.columns.count_ones();
        let found = &mut scratch.found;
        found.clear();
        for constellation in constellations {
            let queens = constellation.constellation.queens(n);
            let (top_border, bottom_border): (Vec<_>, Vec<_>) =
                queens.iter().partition(|&&q| cut.is_top(q));
            debug_assert_eq!(
                bottom_border, self.border,
                "a constellation of another group"
            );
            let start = Lines::of(n, &queens);
            let rows = cut.inner_rows(true, &top_border);
            // The border queens below the cut are in each top's line sets but belong to the
            // bottom.
            $each(&start, &rows, inner_columns(n), &mut |lines| {
                // The columns the bottom half must fill, among its inner ones.
                let bucket = $compress(!lines.cols, self.columns);
                found.push(found_entry(bucket, cut.key(lines) ^ self.border_key));
            });
        }
        scratch.tops.sort(found, buckets, 1, &mut scratch.next);

        let mut count = 0u64;
        for b in 0..buckets {
            let partners = self.placements.bucket(b);
            if partners.is_empty() {
                continue;
            }
            for &key in scratch.tops.bucket(b) {
                let key = key | PADDING;
                count += partners
                    .chunks_exact(LANES)
                    .map(|lanes| lanes.iter().map(|&k| u64::from(k & key == 0)).sum::<u64>())
                    .sum::<u64>();
            }
        }
        count
            }
        }
    };
}

bottom_half_paths!(
    new_portable,
    count_portable,
    each_placement_portable,
    compress_portable
);
thicket_core::fast_path!(bottom_half_paths!(
    new_fast,
    count_fast,
    each_placement_fast,
    compress_fast
));

impl BottomHalf {
    /// Enumerates the bottom placements of the border queens `border` (all below the cut) of
    /// an `n x n` board; `scratch` lends its buffers.
    pub fn new(n: usize, border: &[(usize, usize)], scratch: &mut JoinScratch) -> BottomHalf {
        #[cfg(target_arch = "x86_64")]
        if thicket_core::cpu_path() == thicket_core::CpuPath::Fast {
            // SAFETY: the fast path is taken only where the CPU has its features.
            return unsafe { BottomHalf::new_fast(n, border, scratch) };
        }
        BottomHalf::new_portable(n, border, scratch)
    }

    /// Gives the placements' buffer back to `scratch`, for the next bottom half.
    pub fn recycle(self, scratch: &mut JoinScratch) {
        scratch.bottoms = self.placements;
    }

    /// Counts the solutions of `constellations`, which must be of this bottom border's group
    /// ([`group_by_bottom`]).
    ///
    /// The constellations' top placements are bucketed by the inner columns they leave open,
    /// and then each bucket's tops are tested against the bottoms of the same bucket: bucket by
    /// bucket, the bottom keys are read once, in order, where testing each top as it is found
    /// would fetch a bucket from memory for every one.
    pub fn count(
        &self,
        n: usize,
        constellations: &[&CanonicalConstellation],
        scratch: &mut JoinScratch,
    ) -> u64 {
        #[cfg(target_arch = "x86_64")]
        if thicket_core::cpu_path() == thicket_core::CpuPath::Fast {
            // SAFETY: the fast path is taken only where the CPU has its features.
            return unsafe { self.count_fast(n, constellations, scratch) };
        }
        self.count_portable(n, constellations, scratch)
    }
}

#[cfg(test)]
/// Counts the solutions of `constellations` of an `n x n` board (`n` in [`JOIN_SIZES`]),
/// whose border queens below the cut are all `border`, on the calling thread: the group's
/// [`BottomHalf`], then every member against it.
pub fn count_group(
    n: usize,
    border: &[(usize, usize)],
    constellations: &[&CanonicalConstellation],
    scratch: &mut JoinScratch,
) -> u64 {
    let bottom = BottomHalf::new(n, border, scratch);
    let count = bottom.count(n, constellations, scratch);
    bottom.recycle(scratch);
    count
}

/// True when the join counts `constellation` of an `n x n` board: asymmetric constellations
/// (each solution is the only one of its class there, so no canonical check is needed) of
/// sizes in [`JOIN_SIZES`].
pub fn joins(n: usize, constellation: &CanonicalConstellation) -> bool {
    JOIN_SIZES.contains(&n) && constellation.is_asymmetric()
}

/// Constellations that share their border queens below the cut, and so their bottom
/// placements ([`count_group`]).
#[derive(Debug)]
pub struct BottomGroup<'a> {
    /// The border queens below the cut.
    pub border: Vec<(usize, usize)>,
    /// The constellations with exactly those border queens below the cut.
    pub members: Vec<&'a CanonicalConstellation>,
}

/// Groups constellations of an `n x n` board by their border queens below the cut, likely
/// largest groups first.
pub fn group_by_bottom<'a>(
    n: usize,
    constellations: &[&'a CanonicalConstellation],
) -> Vec<BottomGroup<'a>> {
    let cut = Cut::new(n);
    let mut groups: std::collections::BTreeMap<Vec<(usize, usize)>, Vec<_>> =
        std::collections::BTreeMap::new();
    for &c in constellations {
        let border = c
            .constellation
            .queens(n)
            .into_iter()
            .filter(|&q| !cut.is_top(q))
            .collect();
        groups.entry(border).or_default().push(c);
    }
    let mut groups: Vec<BottomGroup> = groups
        .into_iter()
        .map(|(border, members)| BottomGroup { border, members })
        .collect();
    // Likely largest first: fewer border queens below the cut leave more rows there and
    // constrain them less (at n = 17 the group of the corner queen alone is 13% of the
    // work), and a large group started last would keep one thread busy alone at the end.
    groups.sort_by_key(|g| (g.border.len(), std::cmp::Reverse(g.members.len())));
    groups
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::constellation::canonical_constellations;
    use crate::lines::{search, Count};

    /// Every asymmetric constellation's join count equals the line search's count.
    #[test]
    fn join_matches_the_line_search_per_constellation() {
        for n in 8..=13 {
            let all = canonical_constellations(n);
            let joined: Vec<_> = all.iter().filter(|c| joins(n, c)).collect();
            assert!(!joined.is_empty());
            let mut scratch = JoinScratch::default();
            for group in group_by_bottom(n, &joined) {
                let mut sum = 0;
                for &c in &group.members {
                    let mut expected = Count::default();
                    let lines = LineBoard::with_constellation(n, &c.constellation);
                    search(&lines, &mut [0u8; 32][..n], &mut expected);
                    let joined = count_group(n, &group.border, &[c], &mut scratch);
                    assert_eq!(joined, expected.0, "n={n} {c:?}");
                    sum += expected.0;
                }
                let all = count_group(n, &group.border, &group.members, &mut scratch);
                assert_eq!(all, sum, "n={n}");
            }
        }
    }

    #[test]
    fn compress_packs_the_masked_bits() {
        assert_eq!(compress_portable(0b1010_0110, 0b1111_0000), 0b1010);
        assert_eq!(compress_portable(0b1010_0110, 0b0101_0101), 0b0010);
        assert_eq!(compress_portable(u32::MAX, 0), 0);
    }

    /// Both CPU paths of the join give the same counts (where this CPU has the fast one).
    #[test]
    #[cfg(target_arch = "x86_64")]
    fn both_cpu_paths_join_alike() {
        if !thicket_core::cpu::fast_path_supported() {
            println!("NOTE: this CPU has no fast path, so only the portable one was tested");
            return;
        }
        let mut x = 0x9E37_79B9u32;
        for _ in 0..1000 {
            x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            let mask = x.rotate_left(13) ^ x;
            // SAFETY: the CPU has the fast path's features (checked above).
            let fast = unsafe { compress_fast(x, mask) };
            assert_eq!(fast, compress_portable(x, mask));
        }
        for n in [10, 12, 13] {
            let constellations = canonical_constellations(n);
            let joined: Vec<&CanonicalConstellation> =
                constellations.iter().filter(|c| joins(n, c)).collect();
            for group in group_by_bottom(n, &joined) {
                let mut scratch = JoinScratch::default();
                let portable = BottomHalf::new_portable(n, &group.border, &mut scratch);
                let by_portable = portable.count_portable(n, &group.members, &mut scratch);
                // SAFETY: as above.
                let by_fast = unsafe {
                    let fast = BottomHalf::new_fast(n, &group.border, &mut scratch);
                    fast.count_fast(n, &group.members, &mut scratch)
                };
                assert_eq!(by_fast, by_portable, "n = {n}");
            }
        }
    }
}
