//! Results of a count and the per-constellation bookkeeping that turns subproblem counts into
//! the total (A000170) and the number of fundamental solutions (A002562).

use serde::Serialize;
use thicket_core::{Error, Result};

use crate::constellation::CanonicalConstellation;
use crate::lines::Solutions;
use crate::symmetry::is_smallest_image;

/// The smallest and largest board sizes thicket counts.
pub const N_RANGE: std::ops::RangeInclusive<usize> = 1..=32;

/// The `n` columns of a board (`1 <= n <= 32`) as a bit mask.
pub fn board_mask(n: usize) -> u32 {
    (u64::MAX >> (64 - n)) as u32
}

/// Solution counts of one board size.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct QueensCount {
    /// Board size.
    pub n: usize,
    /// All solutions (OEIS A000170).
    pub total: u128,
    /// Solutions distinct under rotations and reflections (OEIS A002562).
    pub unique: u128,
}

/// Checks that `n` is a board size thicket can count.
pub fn validate_n(n: usize) -> Result<()> {
    if N_RANGE.contains(&n) {
        Ok(())
    } else {
        Err(Error::InvalidInput(format!(
            "board size {n} is out of range: N must be between {} and {}",
            N_RANGE.start(),
            N_RANGE.end()
        )))
    }
}

/// What one subproblem of a canonical constellation contributes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Contribution {
    /// Solutions found, each standing for `class_size` solutions of the whole board.
    pub weighted_total: u128,
    /// Solutions that are the canonical member of their class within this constellation.
    pub unique: u128,
}

impl Contribution {
    /// The contribution of `solutions` found in an asymmetric constellation, where every
    /// solution is the only member of its class with this constellation.
    pub fn asymmetric(solutions: u64) -> Contribution {
        Contribution {
            weighted_total: 8 * u128::from(solutions),
            unique: u128::from(solutions),
        }
    }

    /// Sum of two contributions; `None` on overflow.
    pub fn checked_add(self, other: Contribution) -> Option<Contribution> {
        Some(Contribution {
            weighted_total: self.weighted_total.checked_add(other.weighted_total)?,
            unique: self.unique.checked_add(other.unique)?,
        })
    }

    /// The final count for board size `n`, or an overflow error.
    pub fn into_count(self, n: usize) -> QueensCount {
        QueensCount {
            n,
            total: self.weighted_total,
            unique: self.unique,
        }
    }
}

/// Adds up contributions with overflow checking.
pub fn sum_contributions(parts: impl IntoIterator<Item = Contribution>) -> Result<Contribution> {
    parts
        .into_iter()
        .try_fold(Contribution::default(), |acc, part| {
            acc.checked_add(part)
                .ok_or_else(|| Error::Overflow("the solution count exceeds 128 bits".into()))
        })
}

/// Counts the solutions of a symmetric constellation and, for the unique count, only those
/// that are the smallest of their images under the constellation's stabilizer: exactly one
/// member of each solution class lies in the constellation and passes that canonical check.
pub struct CanonicalCount<'a> {
    constellation: &'a CanonicalConstellation,
    solutions: u64,
    canonical: u64,
}

impl<'a> CanonicalCount<'a> {
    /// A count for the solutions of `constellation`.
    pub fn new(constellation: &'a CanonicalConstellation) -> CanonicalCount<'a> {
        CanonicalCount {
            constellation,
            solutions: 0,
            canonical: 0,
        }
    }

    /// What the solutions seen so far contribute.
    pub fn contribution(&self) -> Contribution {
        Contribution {
            weighted_total: u128::from(self.constellation.class_size())
                * u128::from(self.solutions),
            unique: u128::from(self.canonical),
        }
    }
}

impl Solutions for CanonicalCount<'_> {
    fn complete(&mut self, board: &[u8]) {
        self.solutions += 1;
        if is_smallest_image(board, &self.constellation.stabilizer) {
            self.canonical += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn board_masks_cover_exactly_n_columns() {
        assert_eq!(board_mask(1), 1);
        assert_eq!(board_mask(8), 0xff);
        assert_eq!(board_mask(32), u32::MAX);
    }
}
