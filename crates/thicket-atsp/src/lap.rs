//! The linear assignment problem on a whole cost matrix, solved by shortest augmenting paths
//! with duals (the Hungarian method in the form of Jonker and Volgenant), and re-solved
//! cheaply after a change that only raises costs: the duals stay feasible, so only the rows
//! that lost their column need an augmenting path each (O(n^2)), not a solve from scratch.
//!
//! The subtour-elimination search (see `subtour_search`) keeps one of these per node: a child
//! forbids one arc of its parent's assignment (its row is freed and re-augmented) and forces
//! some others (which the parent already uses, so nothing moves).

mod sparse;

use std::time::Instant;

use rayon::prelude::*;

use sparse::Completion;

/// Marks a row or column with no partner.
pub(crate) const UNMATCHED: u32 = u32::MAX;

/// The rows from which [`Lap::solve_until`] augments on a sparse graph.
const SPARSE_FROM: usize = 500;

/// An assignment of rows to columns with its duals: `u[i] + v[j] <= cost(i, j)` for every
/// pair, with equality on the assigned ones, so that it is optimal, unless a deadline stopped
/// its solve ([`Lap::solve_until`]).
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

/// Where the search for an augmenting path stands: the row it scans next, the column that
/// led to that row (`UNMATCHED` at the root) and that column's distance.
struct Walk {
    row: usize,
    from: u32,
    reached: i64,
}

impl Walk {
    fn from_root(root: usize) -> Walk {
        Walk {
            row: root,
            from: UNMATCHED,
            reached: 0,
        }
    }

    /// Marks the nearest column `next`, at `distance`, done: `Some(next)` where it is free
    /// (the path's end), else the search goes on from the row assigned to it.
    #[inline(always)]
    fn reach(
        &mut self,
        row_of_col: &[u32],
        next: usize,
        distance: i64,
        done: &mut [bool],
        scanned: &mut Vec<u32>,
    ) -> Option<usize> {
        done[next] = true;
        match row_of_col[next] {
            UNMATCHED => Some(next),
            r => {
                scanned.push(next as u32);
                self.row = r as usize;
                self.from = next as u32;
                self.reached = distance;
                None
            }
        }
    }
}

impl Lap {
    /// Solves the assignment of the row-major `n * n` matrix `cost` from scratch, until
    /// `deadline`: the free rows left by [`Lap::reduce_rows`] are augmented densely, or from
    /// [`SPARSE_FROM`] rows on a sparse graph priced out against the whole matrix (see
    /// `sparse`). Where the deadline comes first, the answer is still a whole assignment with
    /// feasible duals (see [`Lap::stop`]) but not [`Lap::is_optimal`]: its [`Lap::dual_value`]
    /// is a lower bound on the optimum.
    pub(crate) fn solve_until(
        n: usize,
        cost: &[i64],
        scratch: &mut LapScratch,
        deadline: Option<Instant>,
    ) -> Lap {
        let mut lap = Lap::row_reduced(n, cost);
        if n >= SPARSE_FROM {
            let mut sparse = lap.clone();
            match sparse.complete_sparse(n, cost, deadline) {
                Completion::Optimal => return sparse,
                Completion::Stopped => {
                    sparse.stop(n, cost);
                    // The sparse rounds' duals can price far below the reduction's.
                    lap.price_row_duals(n, cost);
                    if lap.dual_value() > sparse.dual_value() {
                        (sparse.u, sparse.v) = (lap.u, lap.v);
                    }
                    return sparse;
                }
                Completion::NoPath => {}
            }
        }
        lap.complete_dense(n, cost, scratch, deadline);
        lap
    }

    /// The column minima as column duals, then [`Lap::reduce_rows`].
    fn row_reduced(n: usize, cost: &[i64]) -> Lap {
        // Column minima as column duals (and zero row duals) are feasible.
        let mut v = cost[..n].to_vec();
        for row in cost.chunks_exact(n).skip(1) {
            for (low, &arc) in v.iter_mut().zip(row) {
                *low = (*low).min(arc);
            }
        }
        let mut lap = Lap {
            u: vec![0; n],
            v,
            col_of_row: vec![UNMATCHED; n],
            row_of_col: vec![UNMATCHED; n],
        };
        lap.reduce_rows(n, cost);
        lap
    }

    /// Augments every free row over the whole matrix until `deadline` ([`Lap::stop`] where
    /// it comes first).
    fn complete_dense(
        &mut self,
        n: usize,
        cost: &[i64],
        scratch: &mut LapScratch,
        deadline: Option<Instant>,
    ) {
        for row in 0..n {
            if self.col_of_row[row] == UNMATCHED {
                if deadline.is_some_and(|d| Instant::now() >= d) {
                    self.stop(n, cost);
                    return;
                }
                self.augment(n, cost, row, scratch);
            }
        }
    }

    /// Ends a solve the deadline stopped: [`Lap::price_row_duals`], then each free row takes
    /// the cheapest free column at the column duals, row by row (O(n^2) at most).
    fn stop(&mut self, n: usize, cost: &[i64]) {
        self.price_row_duals(n, cost);
        let Lap {
            v,
            col_of_row,
            row_of_col,
            ..
        } = self;
        let mut free_cols: Vec<usize> = (0..n).filter(|&c| row_of_col[c] == UNMATCHED).collect();
        for row in 0..n {
            if col_of_row[row] != UNMATCHED {
                continue;
            }
            let reduced = |&col: &usize| cost[row * n + col] - v[col];
            let Some((k, _)) = free_cols
                .iter()
                .enumerate()
                .min_by_key(|(_, col)| reduced(col))
            else {
                break;
            };
            let col = free_cols.swap_remove(k);
            col_of_row[row] = col as u32;
            row_of_col[col] = row as u32;
        }
    }

    /// Lowers each row dual to its row's cheapest arc at the column duals, so that every
    /// dual is feasible on the whole matrix (assigned arcs may then not be tight).
    fn price_row_duals(&mut self, n: usize, cost: &[i64]) {
        let v = &self.v;
        self.u = cost
            .par_chunks_exact(n)
            .map(|row| reduced_row(row, v).map(|(reduced, _)| reduced).min())
            .map(Option::unwrap_or_default)
            .collect();
    }

    /// Solves again after any entries of `cost` changed, up or down, from this assignment
    /// and its column duals: the row duals are priced to feasibility, every row whose
    /// assigned arc is then loose is freed, and the free rows are augmented until
    /// `deadline`. Whether the answer is optimal (false where the deadline stopped it). Where
    /// few rows change (a multiplier ascent's step), far fewer augmentations than a solve
    /// from scratch.
    pub(crate) fn resolve(
        &mut self,
        n: usize,
        cost: &[i64],
        scratch: &mut LapScratch,
        deadline: Option<Instant>,
    ) -> bool {
        self.price_row_duals(n, cost);
        self.free_loose_rows(n, cost);
        self.complete_dense(n, cost, scratch, deadline);
        self.is_optimal(n, cost)
    }

    /// [`Lap::solve_until`] where it is optimal, `None` where the deadline stopped it.
    pub(crate) fn try_solve(
        n: usize,
        cost: &[i64],
        scratch: &mut LapScratch,
        deadline: Option<Instant>,
    ) -> Option<Lap> {
        let lap = Lap::solve_until(n, cost, scratch, deadline);
        lap.is_optimal(n, cost).then_some(lap)
    }

    /// Whether the assignment is optimal: with feasible duals and every row assigned (as
    /// [`Lap::solve_until`] leaves it), when every assigned arc is tight.
    pub(crate) fn is_optimal(&self, n: usize, cost: &[i64]) -> bool {
        (0..n).all(|i| {
            let j = self.col_of_row[i];
            j != UNMATCHED && cost[i * n + j as usize] == self.u[i] + self.v[j as usize]
        })
    }

    /// The duals' objective, a lower bound on every assignment's cost (the optimum where the
    /// assignment [`Lap::is_optimal`]).
    pub(crate) fn dual_value(&self) -> i64 {
        self.u.iter().chain(&self.v).sum()
    }

    /// Jonker and Volgenant's augmenting row reduction, twice over the free rows: a free row
    /// takes its cheapest column at the column duals, whose dual is lowered until the row's
    /// second cheapest would cost as much, and the row it displaces is freed in turn. Each
    /// row then lies on the cheapest column of its row (the row duals are set so), the column
    /// duals only fell (so they stay feasible), and the rows left free are augmented. On a
    /// no-wait flow shop at n = 3,000 every row augmented from scratch took 11.5 s.
    fn reduce_rows(&mut self, n: usize, cost: &[i64]) {
        if n < 2 {
            return;
        }
        let mut free: Vec<usize> = (0..n).collect();
        for _ in 0..2 {
            // Each pass scans at most twice the rows it began with: a row displaced over and
            // over by ever smaller steps is left to its augmenting path.
            let mut budget = 2 * free.len();
            let mut queue = std::mem::take(&mut free);
            while let Some(row) = queue.pop() {
                if budget == 0 {
                    free.push(row);
                    continue;
                }
                budget -= 1;
                let (mut first, mut best) = (i64::MAX, 0);
                let (mut second, mut runner_up) = (i64::MAX, 0);
                for (reduced, c) in reduced_row(&cost[row * n..(row + 1) * n], &self.v) {
                    let c = c as usize;
                    if reduced < second {
                        if reduced >= first {
                            second = reduced;
                            runner_up = c;
                        } else {
                            (second, runner_up) = (first, best);
                            (first, best) = (reduced, c);
                        }
                    }
                }
                let mut col = best;
                if first < second {
                    self.v[col] -= second - first;
                } else if self.row_of_col[col] != UNMATCHED {
                    col = runner_up;
                }
                let displaced = self.row_of_col[col];
                self.row_of_col[col] = row as u32;
                self.col_of_row[row] = col as u32;
                if displaced != UNMATCHED {
                    self.col_of_row[displaced as usize] = UNMATCHED;
                    match first < second {
                        // The column got cheaper for it: the displaced row tries again now.
                        true => queue.push(displaced as usize),
                        false => free.push(displaced as usize),
                    }
                }
            }
        }
        for row in 0..n {
            let col = self.col_of_row[row];
            if col != UNMATCHED {
                self.u[row] = cost[row * n + col as usize] - self.v[col as usize];
            }
        }
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
        for row in self.free_loose_rows(n, cost) {
            self.augment(n, cost, row, scratch);
        }
    }

    /// Unassigns every row whose assigned arc is not tight at the duals; returns those rows.
    fn free_loose_rows(&mut self, n: usize, cost: &[i64]) -> Vec<usize> {
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
        loose
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
        let mut walk = Walk::from_root(root);
        let end = loop {
            let mut nearest = i64::MAX;
            let mut next = 0;
            let costs = &cost[walk.row * n..(walk.row + 1) * n];
            let base = walk.reached - self.u[walk.row];
            for c in 0..n {
                if done[c] {
                    continue;
                }
                let through = base + costs[c] - self.v[c];
                if through < distance[c] {
                    distance[c] = through;
                    via[c] = walk.from;
                }
                // Among columns as near, a free one ends the path now.
                if distance[c] < nearest
                    || (distance[c] == nearest && self.row_of_col[c] == UNMATCHED)
                {
                    nearest = distance[c];
                    next = c;
                }
            }
            if let Some(end) = walk.reach(&self.row_of_col, next, nearest, done, scanned) {
                break end;
            }
        };
        self.settle_path(root, end, distance, via, scanned);
    }

    /// Ends an augmentation from `root` whose shortest path reached the free column `end`:
    /// each scanned column's dual falls and its row's rises by how much sooner than `end` it
    /// was reached (so the duals stay feasible and the path's arcs tight), and the path's
    /// arcs, traced back by `via`, swap in.
    fn settle_path(
        &mut self,
        root: usize,
        end: usize,
        distance: &[i64],
        via: &[u32],
        scanned: &[u32],
    ) {
        let total = distance[end];
        self.u[root] += total;
        for &c in scanned {
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

/// The reduced costs of the row `costs` at the column duals `v` (row duals aside), with
/// their columns.
fn reduced_row<'a>(costs: &'a [i64], v: &'a [i64]) -> impl Iterator<Item = (i64, u32)> + 'a {
    costs
        .iter()
        .zip(v)
        .enumerate()
        .map(|(c, (&arc, &dual))| (arc - dual, c as u32))
}

#[cfg(test)]
mod tests;
