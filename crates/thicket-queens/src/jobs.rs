//! The papers' subproblems, generated on the host: every placement of queens in the first
//! `depth` rows that no two queens attack, under the left/right mirror symmetry the three papers
//! use (Zhang et al. Sec. 3, Somers' program that Feinbube and Plauth build on): the first queen
//! in the left half, and for odd `n` the middle column with the second queen in the left half.
//! Every subproblem stands for itself and its mirror image, so the total is twice the sum.

use rayon::prelude::*;

use crate::count::board_mask;

/// Placements of the first rows of an `n`-queens board, each as the queen's bit in every row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Subproblems {
    /// Board size.
    pub n: usize,
    /// Rows placed in each subproblem.
    pub depth: usize,
    /// `depth` words per subproblem: the bit of the queen in rows `0..depth`.
    pub queens: Vec<u32>,
}

/// The column, left-diagonal and right-diagonal masks of the row below a placement, as the
/// kernels read them: a bit set where a queen in that row would be attacked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RowMasks {
    /// Occupied columns.
    pub cols: u32,
    /// Diagonals running down to the left (shifted left row by row).
    pub left: u32,
    /// Diagonals running down to the right (shifted right row by row).
    pub right: u32,
}

impl RowMasks {
    /// The masks of the next row after a queen at `bit` in this one.
    pub fn place(self, bit: u32, mask: u32) -> RowMasks {
        RowMasks {
            cols: self.cols | bit,
            left: ((self.left | bit) << 1) & mask,
            right: (self.right | bit) >> 1,
        }
    }

    /// Columns of this row where a queen is not attacked.
    pub fn free(self, mask: u32) -> u32 {
        mask & !(self.cols | self.left | self.right)
    }
}

impl Subproblems {
    /// Every mirror-canonical placement of `depth` rows (1 <= depth < n, and depth >= 2 for odd
    /// n so that the middle column's second queen is in the left half), in a fixed order.
    pub fn generate(n: usize, depth: usize) -> Subproblems {
        assert!((4..=32).contains(&n) && depth >= 1 && depth < n);
        assert!(
            n.is_multiple_of(2) || depth >= 2,
            "odd boards need two host rows"
        );
        let mask = board_mask(n);
        let mut starts: Vec<Vec<u32>> = (0..n / 2).map(|c| vec![1u32 << c]).collect();
        if n % 2 == 1 {
            let middle = 1u32 << (n / 2);
            let row1 = RowMasks::default().place(middle, mask).free(mask) & (middle - 1);
            starts.extend(bits(row1).map(|b| vec![middle, b]));
        }
        let queens = starts
            .par_iter()
            .flat_map_iter(|prefix| {
                let mut out = Vec::new();
                let masks = prefix
                    .iter()
                    .fold(RowMasks::default(), |m, &b| m.place(b, mask));
                let mut rows = prefix.clone();
                extend(&mut rows, masks, depth, mask, &mut out);
                out
            })
            .collect();
        Subproblems { n, depth, queens }
    }

    /// How many subproblems there are.
    pub fn len(&self) -> usize {
        self.queens.len() / self.depth
    }

    /// The queens of subproblem `i`.
    pub fn placement(&self, i: usize) -> &[u32] {
        &self.queens[i * self.depth..(i + 1) * self.depth]
    }

    /// The masks of row `depth` below subproblem `i`.
    pub fn masks(&self, i: usize) -> RowMasks {
        let mask = board_mask(self.n);
        self.placement(i)
            .iter()
            .fold(RowMasks::default(), |m, &b| m.place(b, mask))
    }

    /// Three words per subproblem (columns, left, right) of row `depth`: Zhang et al.'s jobs.
    pub fn mask_words(&self) -> Vec<u32> {
        (0..self.len())
            .into_par_iter()
            .flat_map_iter(|i| {
                let m = self.masks(i);
                [m.cols, m.left, m.right]
            })
            .collect()
    }
}

/// The set bits of `word`, lowest first.
fn bits(mut word: u32) -> impl Iterator<Item = u32> {
    std::iter::from_fn(move || {
        (word != 0).then(|| {
            let bit = word & word.wrapping_neg();
            word ^= bit;
            bit
        })
    })
}

/// Appends every extension of `rows` (with `masks` below it) to `depth` rows to `out`.
fn extend(rows: &mut Vec<u32>, masks: RowMasks, depth: usize, mask: u32, out: &mut Vec<u32>) {
    if rows.len() == depth {
        out.extend_from_slice(rows);
        return;
    }
    for bit in bits(masks.free(mask)) {
        rows.push(bit);
        extend(rows, masks.place(bit, mask), depth, mask, out);
        rows.pop();
    }
}

/// Solutions below the masks of row `row` (the tests' reference count).
#[cfg(test)]
fn count_below(n: usize, row: usize, masks: RowMasks) -> u64 {
    let mask = board_mask(n);
    if row == n {
        return 1;
    }
    bits(masks.free(mask))
        .map(|bit| count_below(n, row + 1, masks.place(bit, mask)))
        .sum()
}

/// The rows the host fills for Zhang et al.'s kernels by default: n - 11, so that a thread fills
/// eleven rows (their forty-four-word workspace; 7,409,150 jobs at N = 18 as in their Sec. 4.3),
/// and at least two.
pub fn zhang_depth(n: usize) -> usize {
    n.saturating_sub(11).max(2)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::known_counts;

    /// Zhang et al. had 7,432 jobs at N = 15: they searched the middle column's second row in
    /// full, where Somers' scheme used here halves it (442 jobs instead of 884).
    #[test]
    fn job_counts_follow_the_mirror_scheme() {
        assert_eq!(
            Subproblems::generate(15, zhang_depth(15)).len(),
            6_548 + 442
        );
        assert_eq!(Subproblems::generate(14, zhang_depth(14)).len(), 682);
    }

    #[test]
    fn twice_the_subproblem_sums_is_the_total() {
        for n in 4..=11 {
            for depth in [2, 3, n - 1] {
                let jobs = Subproblems::generate(n, depth);
                let sum: u64 = (0..jobs.len())
                    .map(|i| count_below(n, depth, jobs.masks(i)))
                    .sum();
                assert_eq!(
                    2 * u128::from(sum),
                    known_counts(n).unwrap().0,
                    "n={n} depth={depth}"
                );
            }
        }
    }

    #[test]
    fn mask_words_are_three_per_job() {
        let jobs = Subproblems::generate(8, 3);
        let words = jobs.mask_words();
        assert_eq!(words.len(), 3 * jobs.len());
        let m = jobs.masks(5);
        assert_eq!(&words[15..18], &[m.cols, m.left, m.right]);
        assert!(jobs.placement(5).iter().all(|b| b.count_ones() == 1));
    }
}
