//! An ATSP instance: a name and a dense row-major cost matrix.

use thicket_core::{Error, Result};

/// The largest number of cities an instance may have, where memory allows (a solve holds a
/// few `n * n` matrices, checked before they are taken). The searches' sums stay far from
/// overflow up to it.
pub const MAX_N: usize = 10_000;

/// The `n * n` matrices of `i64` a solve holds at once at most: the instance's, the one being
/// read or generated, the root's assignment costs, and the subtour search's plain and
/// penalised costs with one more at its multipliers' ascent.
const MATRICES: u64 = 6;

/// The largest arc cost accepted: with at most [`MAX_N`] arcs in a tour, any tour or partial
/// sum stays below 10^13, far from `i64` overflow even when the search adds penalties.
pub const MAX_COST: i64 = 1_000_000_000;

/// A complete directed graph on `n` cities with integer arc costs.
///
/// Off-diagonal costs lie in `0..=MAX_COST`; the diagonal is stored as 0 and never used as an
/// arc, whatever the source file held there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Instance {
    /// A name for reports (the TSPLIB `NAME`, or the generator spec).
    pub name: String,
    /// Number of cities.
    pub n: usize,
    /// Row-major `n * n` costs: `cost[i * n + j]` is the arc from `i` to `j`.
    pub cost: Vec<i64>,
}

impl Instance {
    /// Builds an instance from a row-major matrix, checking the size and the cost range; the
    /// diagonal is replaced by 0.
    pub fn new(name: impl Into<String>, n: usize, mut cost: Vec<i64>) -> Result<Instance> {
        let name = name.into();
        check_size(n)?;
        if cost.len() != n * n {
            return Err(Error::InvalidInput(format!(
                "{name}: {} costs for {n} cities (expected {})",
                cost.len(),
                n * n
            )));
        }
        for i in 0..n {
            cost[i * n + i] = 0;
        }
        if let Some(k) = cost.iter().position(|c| !(0..=MAX_COST).contains(c)) {
            return Err(Error::InvalidInput(format!(
                "{name}: cost from {} to {} is {}, outside 0..={MAX_COST}",
                k / n,
                k % n,
                cost[k]
            )));
        }
        Ok(Instance { name, n, cost })
    }

    /// Builds an instance from one row of arc costs per city (row i: the arcs from city i);
    /// the matrix must be square, with 2..=[`MAX_N`] cities and off-diagonal costs in
    /// `0..=MAX_COST` ([`Error::InvalidInput`] otherwise); the diagonal is ignored.
    pub fn from_rows<R: AsRef<[i64]>>(name: impl Into<String>, rows: &[R]) -> Result<Instance> {
        let name = name.into();
        let n = square(&name, rows)?;
        let cost = rows.iter().flat_map(|row| row.as_ref()).copied().collect();
        Instance::new(name, n, cost)
    }

    /// Builds an instance from a matrix of real distances (row i: the arcs from city i), as
    /// [`Instance::from_rows`] does; every off-diagonal distance must be a whole number
    /// (scale and round real distances first): NaN, infinities, negative and fractional
    /// distances are [`Error::InvalidInput`]. The diagonal is ignored.
    pub fn from_distances<R: AsRef<[f64]>>(
        name: impl Into<String>,
        rows: &[R],
    ) -> Result<Instance> {
        let name = name.into();
        let n = square(&name, rows)?;
        let mut cost = Vec::with_capacity(n * n);
        for (i, row) in rows.iter().enumerate() {
            for (j, &d) in row.as_ref().iter().enumerate() {
                let whole = d.is_finite() && d >= 0.0 && d <= MAX_COST as f64 && d.fract() == 0.0;
                if i != j && !whole {
                    return Err(Error::InvalidInput(format!(
                        "{name}: distance from {i} to {j} is {d}, not a whole number in \
                         0..={MAX_COST}"
                    )));
                }
                cost.push(if i == j { 0 } else { d as i64 });
            }
        }
        Instance::new(name, n, cost)
    }

    /// The cost of the arc from `i` to `j`.
    #[inline(always)]
    pub fn cost(&self, i: usize, j: usize) -> i64 {
        self.cost[i * self.n + j]
    }
}

/// The city count of a square matrix of `rows`, within `2..=MAX_N`.
fn square<T, R: AsRef<[T]>>(name: &str, rows: &[R]) -> Result<usize> {
    let n = rows.len();
    check_size(n)?;
    match rows.iter().position(|row| row.as_ref().len() != n) {
        Some(i) => Err(Error::InvalidInput(format!(
            "{name}: row {i} has {} costs where {n} cities need {n}",
            rows[i].as_ref().len()
        ))),
        None => Ok(n),
    }
}

/// Rejects city counts outside `2..=MAX_N` ([`Error::InvalidInput`]), and those whose cost
/// matrices would not fit in the memory available ([`Error::TooLarge`], with the size
/// needed), before any matrix is allocated.
pub(crate) fn check_size(n: usize) -> Result<()> {
    if !(2..=MAX_N).contains(&n) {
        return Err(Error::InvalidInput(format!(
            "{n} cities; expected 2..={MAX_N}"
        )));
    }
    let bytes = (n as u64 * n as u64).checked_mul(MATRICES * std::mem::size_of::<i64>() as u64);
    thicket_core::check_fits(&format!("an ATSP instance of {n} cities"), bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_diagonal_is_cleared_and_costs_are_range_checked() {
        let inst = Instance::new("t", 2, vec![9, 1, 2, 9]).unwrap();
        assert_eq!(
            (inst.cost(0, 0), inst.cost(0, 1), inst.cost(1, 0)),
            (0, 1, 2)
        );
        assert!(Instance::new("t", 2, vec![0, -1, 2, 0]).is_err());
        assert!(Instance::new("t", 1, vec![0]).is_err());
        assert!(Instance::new("t", 2, vec![0, 1, 2]).is_err());
    }

    #[test]
    fn sizes_up_to_the_limit_are_accepted_where_memory_allows() {
        check_size(3_000).unwrap();
        assert!(matches!(check_size(MAX_N + 1), Err(Error::InvalidInput(_))));
        assert!(matches!(check_size(1), Err(Error::InvalidInput(_))));
        let inst = crate::generate::parse_generator_spec("amat:3000:1")
            .unwrap()
            .generate()
            .unwrap();
        assert_eq!((inst.n, inst.cost.len()), (3_000, 9_000_000));
    }

    #[test]
    fn matrices_from_rows_are_validated() {
        let from_rows = Instance::from_rows("r", &[[0, 3], [4, 0]]).unwrap();
        assert_eq!(
            (from_rows.n, from_rows.cost(0, 1), from_rows.cost(1, 0)),
            (2, 3, 4)
        );
        let nan_diagonal = [[f64::NAN, 3.0], [4.0, f64::INFINITY]];
        let from_distances = Instance::from_distances("r", &nan_diagonal).unwrap();
        assert_eq!(from_distances.cost, from_rows.cost);
        let invalid = |result: Result<Instance>| match result {
            Err(Error::InvalidInput(message)) => message,
            other => panic!("{other:?}"),
        };
        assert!(invalid(Instance::from_rows("r", &[vec![0, 1], vec![1]])).contains("row 1"));
        assert!(
            invalid(Instance::from_rows("r", &[vec![0, 1, 2], vec![1, 0, 2]])).contains("row 0")
        );
        assert!(invalid(Instance::from_rows("r", &[[0]])).contains("1 cities"));
        assert!(invalid(Instance::from_rows("r", &[[0, -1], [1, 0]])).contains("-1"));
        for bad in [f64::NAN, f64::INFINITY, -1.0, 0.5, 1e10] {
            let message = invalid(Instance::from_distances("r", &[[0.0, bad], [1.0, 0.0]]));
            assert!(message.contains("from 0 to 1"), "{message}");
        }
    }
}
