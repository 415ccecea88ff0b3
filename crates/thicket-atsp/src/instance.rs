//! An ATSP instance: a name and a dense row-major cost matrix.

use thicket_core::{Error, Result};

/// The largest number of cities an instance may have.
pub const MAX_N: usize = 1000;

/// The largest arc cost accepted: with at most [`MAX_N`] arcs in a tour, any tour or partial
/// sum stays below 10^12, far from `i64` overflow even when the search adds penalties.
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

    /// The cost of the arc from `i` to `j`.
    #[inline(always)]
    pub fn cost(&self, i: usize, j: usize) -> i64 {
        self.cost[i * self.n + j]
    }
}

/// Rejects city counts outside `2..=MAX_N`.
pub(crate) fn check_size(n: usize) -> Result<()> {
    if (2..=MAX_N).contains(&n) {
        Ok(())
    } else {
        Err(Error::InvalidInput(format!(
            "{n} cities; expected 2..={MAX_N}"
        )))
    }
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
}
