//! The independent verifier: a count is checked against the published counts (OEIS A000170
//! and A002562, [`known_counts`]). Two references share no code with the solver and check the
//! table and the solver in the tests: the plain mirror-symmetric backtracker ([`count_mirror`],
//! also the benchmarks' reference row) and, for small boards, a brute-force enumeration that
//! counts the classes by canonical form.

#[cfg(test)]
mod brute;
mod mirror;
mod oeis;

#[cfg(test)]
pub(crate) use brute::{all_solutions, brute_force_counts};
pub use mirror::count_mirror;
pub use oeis::known_counts;

use thicket_core::{Error, Result};

use crate::count::QueensCount;

/// Checks `count` against OEIS: `Ok(true)` when both counts are the published ones; a wrong
/// count is an [`Error::Verification`], a board OEIS does not list (N > 27) an
/// [`Error::InvalidInput`].
///
/// ```
/// use thicket_queens::{verify, QueensCount};
///
/// let eight = QueensCount { n: 8, total: 92, unique: 12 };
/// assert!(verify(&eight).unwrap());
/// assert!(verify(&QueensCount { total: 90, ..eight }).is_err());
/// ```
pub fn verify(count: &QueensCount) -> Result<bool> {
    match known_counts(count.n) {
        Some(known) if known == (count.total, count.unique) => Ok(true),
        Some(_) => Err(Error::Verification(format!(
            "queens {}: the counts differ from OEIS",
            count.n
        ))),
        None => Err(Error::InvalidInput(format!(
            "queens {}: OEIS lists no counts to verify against",
            count.n
        ))),
    }
}
