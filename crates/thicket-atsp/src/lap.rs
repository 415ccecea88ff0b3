//! The linear assignment problem on a whole cost matrix, solved by shortest augmenting paths
//! with duals (the Hungarian method in the form of Jonker and Volgenant), and re-solved
//! cheaply after a change that only raises costs: the duals stay feasible, so only the rows
//! that lost their column need an augmenting path each (O(n^2)), not a solve from scratch.
//!
//! The subtour-elimination search (see `subtour_search`) keeps one of these per node: a child
//! forbids one arc of its parent's assignment (its row is freed and re-augmented) and forces
//! some others (which the parent already uses, so nothing moves).

/// Marks a row or column with no partner.
pub(crate) const UNMATCHED: u32 = u32::MAX;

/// An optimal assignment of rows to columns with its duals: `u[i] + v[j] <= cost(i, j)` for
/// every pair, with equality on the assigned ones.
#[derive(Debug, Clone)]
pub(crate) struct Lap {
    u: Vec<i64>,
    v: Vec<i64>,
    col_of_row: Vec<u32>,
    row_of_col: Vec<u32>,
}

/// Work arrays of one augmentation, indexed by column (kept by the caller to avoid allocating
/// per node).
#[derive(Debug, Clone, Default)]
pub(crate) struct LapScratch {
    distance: Vec<i64>,
    via: Vec<u32>,
    done: Vec<bool>,
    /// The matched columns scanned, in order.
    scanned: Vec<u32>,
}

impl Lap {
    /// Solves the assignment of the row-major `n * n` matrix `cost` from scratch.
    pub(crate) fn solve(n: usize, cost: &[i64], scratch: &mut LapScratch) -> Lap {
        // Column minima as column duals (and zero row duals) are feasible.
        let v = (0..n)
            .map(|j| (0..n).map(|i| cost[i * n + j]).min().unwrap_or(0))
            .collect();
        let mut lap = Lap {
            u: vec![0; n],
            v,
            col_of_row: vec![UNMATCHED; n],
            row_of_col: vec![UNMATCHED; n],
        };
        for row in 0..n {
            lap.augment(n, cost, row, scratch);
        }
        lap
    }

    /// The column assigned to `row`.
    #[inline(always)]
    pub(crate) fn col_of(&self, row: usize) -> usize {
        self.col_of_row[row] as usize
    }

    /// The reduced cost of `(i, j)` at the current duals (never negative).
    pub(crate) fn reduced(&self, n: usize, cost: &[i64], i: usize, j: usize) -> i64 {
        cost[i * n + j] - self.u[i] - self.v[j]
    }

    /// The assignment's cost, which equals the dual objective.
    pub(crate) fn value(&self, n: usize, cost: &[i64]) -> i64 {
        (0..n).map(|i| cost[i * n + self.col_of(i)]).sum()
    }

    /// Re-solves after `cost(row, col_of(row))` was raised (and possibly other entries, none
    /// of them below the current duals' sum): frees that row and augments it.
    pub(crate) fn forbid_assigned(
        &mut self,
        n: usize,
        cost: &[i64],
        row: usize,
        scratch: &mut LapScratch,
    ) {
        let col = self.col_of_row[row];
        self.row_of_col[col as usize] = UNMATCHED;
        self.col_of_row[row] = UNMATCHED;
        self.augment(n, cost, row, scratch);
    }

    /// Re-solves after any costs were raised (none below the current duals' sum): frees every
    /// row whose assigned arc is no longer tight and augments each (O(n^2) a row).
    pub(crate) fn reassign_loose(&mut self, n: usize, cost: &[i64], scratch: &mut LapScratch) {
        let loose: Vec<usize> = (0..n)
            .filter(|&i| {
                let j = self.col_of(i);
                cost[i * n + j] != self.u[i] + self.v[j]
            })
            .collect();
        for &row in &loose {
            let col = self.col_of(row);
            self.row_of_col[col] = UNMATCHED;
            self.col_of_row[row] = UNMATCHED;
        }
        for row in loose {
            self.augment(n, cost, row, scratch);
        }
    }

    /// Assigns the free row `root` by a shortest augmenting path in reduced costs (Dijkstra
    /// over the columns), adjusting the duals so that they stay feasible and tight.
    fn augment(&mut self, n: usize, cost: &[i64], root: usize, scratch: &mut LapScratch) {
        let LapScratch {
            distance,
            via,
            done,
            scanned,
        } = scratch;
        // `distance[c]`: the shortest alternating path from `root` to column c in reduced
        // costs at the duals on entry; the duals are updated once, at the end, by how much
        // sooner than the free column each scanned column was reached (one pass over the
        // columns a step instead of two).
        distance.clear();
        distance.resize(n, i64::MAX);
        via.clear();
        via.resize(n, UNMATCHED);
        done.clear();
        done.resize(n, false);
        scanned.clear();
        let mut row = root;
        let mut from = UNMATCHED;
        let mut reached = 0;
        let end = loop {
            let mut nearest = i64::MAX;
            let mut next = 0;
            let costs = &cost[row * n..(row + 1) * n];
            let base = reached - self.u[row];
            for c in 0..n {
                if done[c] {
                    continue;
                }
                let through = base + costs[c] - self.v[c];
                if through < distance[c] {
                    distance[c] = through;
                    via[c] = from;
                }
                if distance[c] < nearest {
                    nearest = distance[c];
                    next = c;
                }
            }
            done[next] = true;
            match self.row_of_col[next] {
                UNMATCHED => break next,
                r => {
                    scanned.push(next as u32);
                    row = r as usize;
                    from = next as u32;
                    reached = nearest;
                }
            }
        };
        let total = distance[end];
        self.u[root] += total;
        for &c in scanned.iter() {
            let c = c as usize;
            let sooner = total - distance[c];
            self.u[self.row_of_col[c] as usize] += sooner;
            self.v[c] -= sooner;
        }
        let mut col = end;
        loop {
            let prev = via[col];
            let r = if prev == UNMATCHED {
                root as u32
            } else {
                self.row_of_col[prev as usize]
            };
            self.row_of_col[col] = r;
            self.col_of_row[r as usize] = col as u32;
            if prev == UNMATCHED {
                break;
            }
            col = prev as usize;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::lcg_below;

    /// The cheapest assignment by enumerating permutations.
    fn brute_force(n: usize, cost: &[i64]) -> i64 {
        fn go(n: usize, cost: &[i64], row: usize, used: &mut Vec<bool>) -> i64 {
            if row == n {
                return 0;
            }
            let mut best = i64::MAX / 4;
            for c in 0..n {
                if !used[c] {
                    used[c] = true;
                    best = best.min(cost[row * n + c] + go(n, cost, row + 1, used));
                    used[c] = false;
                }
            }
            best
        }
        go(n, cost, 0, &mut vec![false; n])
    }

    #[test]
    fn solving_and_forbidding_match_brute_force() {
        let mut scratch = LapScratch::default();
        for seed in 0..40 {
            let n = 2 + seed as usize % 6;
            let mut x = seed;
            let mut cost: Vec<i64> = (0..n * n).map(|_| lcg_below(&mut x, 30) as i64).collect();
            let mut lap = Lap::solve(n, &cost, &mut scratch);
            assert_eq!(lap.value(n, &cost), brute_force(n, &cost), "seed {seed}");
            // Forbid an assigned pair a few times over and re-solve incrementally.
            for step in 0..3 {
                let row = (seed as usize + step) % n;
                cost[row * n + lap.col_of(row)] = 1_000_000;
                lap.forbid_assigned(n, &cost, row, &mut scratch);
                assert_eq!(lap.value(n, &cost), brute_force(n, &cost), "seed {seed}");
                for i in 0..n {
                    for j in 0..n {
                        assert!(lap.reduced(n, &cost, i, j) >= 0);
                    }
                }
            }
        }
    }

    #[test]
    fn raising_any_costs_and_reassigning_matches_brute_force() {
        let mut scratch = LapScratch::default();
        for seed in 0..40 {
            let n = 2 + seed as usize % 6;
            let mut x = seed + 5;
            let mut cost: Vec<i64> = (0..n * n).map(|_| lcg_below(&mut x, 30) as i64).collect();
            let mut lap = Lap::solve(n, &cost, &mut scratch);
            // Raise a row and a column (as forcing an arc does) and some single entries.
            for step in 0..3 {
                let (row, col) = ((seed as usize + step) % n, (seed as usize * 7 + step) % n);
                for k in 0..n {
                    if k != col {
                        cost[row * n + k] += 1000;
                    }
                    if k != row {
                        cost[k * n + col] += 1000;
                    }
                }
                cost[lcg_below(&mut x, (n * n) as u64) as usize] += 50;
                lap.reassign_loose(n, &cost, &mut scratch);
                assert_eq!(lap.value(n, &cost), brute_force(n, &cost), "seed {seed}");
                for i in 0..n {
                    for j in 0..n {
                        assert!(lap.reduced(n, &cost, i, j) >= 0);
                    }
                }
            }
        }
    }
}
