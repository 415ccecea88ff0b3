//! The inner rows of a constellation, top-down: the rows still to fill once the border queens
//! are placed (rows `1..n-1` without those of the side queens), the order the GPU kernel fills
//! them in. Rows holding side queens are skipped, so consecutive search depths can be two or
//! three rows apart.

use crate::constellation::Constellation;

/// The rows an inner search of one constellation fills, in ascending order.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The border queens this plan completes.
    pub constellation: Constellation,
    n: usize,
    rows: Vec<usize>,
}

impl Plan {
    /// The plan for the inner rows of a valid constellation on an `n x n` board.
    pub fn new(n: usize, constellation: Constellation) -> Plan {
        let (left, right) = (
            usize::from(constellation.left),
            usize::from(constellation.right),
        );
        let rows = (1..n.saturating_sub(1))
            .filter(|&r| r != left && r != right)
            .collect();
        Plan {
            constellation,
            n,
            rows,
        }
    }

    /// Board size.
    pub fn n(&self) -> usize {
        self.n
    }

    /// Number of rows the search fills.
    pub fn depth(&self) -> usize {
        self.rows.len()
    }

    /// The board row filled at search depth `d`.
    pub fn row(&self, d: usize) -> usize {
        self.rows[d]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_border_leaves_nothing_to_fill() {
        // The 4-queens solution 1 3 0 2 has all four queens on the border.
        let plan = Plan::new(
            4,
            Constellation {
                top: 1,
                bottom: 2,
                left: 2,
                right: 1,
            },
        );
        assert_eq!(plan.depth(), 0);
    }

    #[test]
    fn side_queen_rows_are_skipped() {
        let c = Constellation {
            top: 2,
            bottom: 5,
            left: 3,
            right: 1,
        };
        assert!(c.is_valid(8));
        let plan = Plan::new(8, c);
        let rows: Vec<usize> = (0..plan.depth()).map(|d| plan.row(d)).collect();
        assert_eq!(rows, vec![2, 4, 5, 6]);
    }
}
