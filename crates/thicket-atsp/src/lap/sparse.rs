//! The assignment of a large matrix solved on a sparse graph first: each row's few cheapest
//! columns and each column's few cheapest rows at the duals after the row reduction,
//! augmented by Dijkstra's algorithm with a heap, then priced against the whole matrix: rows
//! with an arc of negative reduced cost gain their cheapest such arcs, are freed and
//! augmented again, until no arc prices below zero, which proves the assignment optimal on the
//! whole matrix. The dense augmentation scans every column at every step of a path; on the
//! tilted drilling and no-wait flow shop classes, whose optimal arcs lie deep in each row's
//! order (tens to hundreds of columns in), the sparse graph needs several pricing rounds but
//! still took a fifth to two thirds of the dense time on those and the random-matrix classes
//! at n = 1,000 and 3,000 (2026-12-03; tsmat at 1,000 took 21 ms against 10).

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::time::Instant;

use rayon::prelude::*;

use super::{reduced_row, Lap, Walk, UNMATCHED};

/// The columns each row's list starts with: its cheapest at the column duals.
const ROW_LISTED: usize = 10;

/// The rows each column is listed for at the start: its cheapest at the row duals (without
/// them a column no row ranks high keeps its dual too high, and the tilted drilling class at
/// n = 10,000 took 26 s against 17 s with them).
const COLUMN_LISTED: usize = 10;

/// The most arcs a pricing round adds to a row's list: its most negative (adding all of
/// them, or 30 or 100, made every class slower: the augmentations scan longer lists).
const PRICED_IN: usize = 10;

/// The rows augmented between two looks at the deadline.
const ROWS_PER_LOOK: usize = 64;

/// A row's sparse arcs, by column.
type Lists = Vec<Vec<u32>>;

/// A row with arcs of negative reduced cost: the row, its cheapest arc at the column duals,
/// and its most negative arcs as `(reduced cost, column)`.
type Negative = (usize, i64, Vec<(i64, u32)>);

/// How a sparse completion ended.
pub(super) enum Completion {
    /// Every row assigned and no arc of negative reduced cost: optimal.
    Optimal,
    /// The deadline came first: some rows may be free (none after the first round: the
    /// last round's whole assignment is kept), and the duals are feasible on the lists'
    /// arcs only.
    Stopped,
    /// A free row found no path in the graph (never: every list holds the arc to the next
    /// row's column, so the graph has a perfect matching); the caller solves densely.
    NoPath,
}

impl Lap {
    /// Completes the assignment of `self` (feasible duals, every assigned arc tight) on the
    /// sparse graph, pricing it out against the whole matrix, until `deadline`.
    pub(super) fn complete_sparse(
        &mut self,
        n: usize,
        cost: &[i64],
        deadline: Option<Instant>,
    ) -> Completion {
        let mut lists = self.lists(n, cost);
        let mut paths = Paths::new(n);
        let mut free: Vec<usize> = (0..n)
            .filter(|&row| self.col_of_row[row] == UNMATCHED)
            .collect();
        // The last whole assignment (optimal on the lists): where the deadline stops a round
        // that freed most rows, the answer goes back to it.
        let mut whole: Option<Lap> = None;
        loop {
            for (k, &row) in free.iter().enumerate() {
                if k % ROWS_PER_LOOK == 0 && deadline.is_some_and(|d| Instant::now() >= d) {
                    if let Some(whole) = whole {
                        *self = whole;
                    }
                    return Completion::Stopped;
                }
                if !self.augment_sparse(n, cost, row, &lists, &mut paths) {
                    return Completion::NoPath;
                }
            }
            if deadline.is_some_and(|d| Instant::now() >= d) {
                return Completion::Stopped;
            }
            whole = Some(self.clone());
            free = self.price_out(n, cost, &mut lists);
            if free.is_empty() {
                return Completion::Optimal;
            }
        }
    }

    /// The starting lists: each row's [`ROW_LISTED`] cheapest columns at the column duals,
    /// its assigned column and the next row's column (the arcs `i -> i + 1` are a perfect
    /// matching, so every free row has an augmenting path); and each column listed for its
    /// [`COLUMN_LISTED`] cheapest rows at the row duals that go with the column duals.
    fn lists(&self, n: usize, cost: &[i64]) -> Lists {
        let keep = ROW_LISTED.min(n);
        let (mut lists, row_duals): (Lists, Vec<i64>) = (0..n)
            .into_par_iter()
            .map_init(Vec::new, |reduced: &mut Vec<(i64, u32)>, row| {
                reduced.clear();
                reduced.extend(reduced_row(&cost[row * n..(row + 1) * n], &self.v));
                reduced.select_nth_unstable(keep - 1);
                let cheapest = reduced[..keep].iter().map(|&(r, _)| r).min().unwrap_or(0);
                let mut list: Vec<u32> = reduced[..keep].iter().map(|&(_, c)| c).collect();
                for extra in [self.col_of_row[row], ((row + 1) % n) as u32] {
                    if extra != UNMATCHED && !list.contains(&extra) {
                        list.push(extra);
                    }
                }
                (list, cheapest)
            })
            .unzip();
        for (row, col) in cheapest_rows(n, cost, &row_duals) {
            let list = &mut lists[row as usize];
            if !list.contains(&col) {
                list.push(col);
            }
        }
        lists
    }

    /// The rows with an arc of negative reduced cost anywhere in the matrix, each freed, its
    /// row dual lowered to its cheapest arc (so every dual is feasible again) and its
    /// [`PRICED_IN`] most negative arcs added to its list.
    fn price_out(&mut self, n: usize, cost: &[i64], lists: &mut Lists) -> Vec<usize> {
        let (u, v) = (&self.u, &self.v);
        let negative: Vec<Negative> = (0..n)
            .into_par_iter()
            .filter_map(|row| {
                let mut below: Vec<(i64, u32)> = reduced_row(&cost[row * n..(row + 1) * n], v)
                    .filter(|&(reduced, _)| reduced < u[row])
                    .collect();
                let cheapest = below.iter().map(|&(reduced, _)| reduced).min()?;
                if below.len() > PRICED_IN {
                    below.select_nth_unstable(PRICED_IN - 1);
                    below.truncate(PRICED_IN);
                }
                Some((row, cheapest, below))
            })
            .collect();
        let mut freed = Vec::with_capacity(negative.len());
        for (row, cheapest, below) in negative {
            let col = self.col_of_row[row];
            if col != UNMATCHED {
                self.row_of_col[col as usize] = UNMATCHED;
                self.col_of_row[row] = UNMATCHED;
            }
            self.u[row] = cheapest;
            let list = &mut lists[row];
            list.extend(below.into_iter().map(|(_, c)| c));
            list.sort_unstable();
            list.dedup();
            freed.push(row);
        }
        freed
    }

    /// Assigns the free row `root` by a shortest augmenting path over the lists' arcs in
    /// reduced costs (Dijkstra with a heap; among columns as near, a free one first); `false`
    /// where no free column is reachable.
    fn augment_sparse(
        &mut self,
        n: usize,
        cost: &[i64],
        root: usize,
        lists: &Lists,
        paths: &mut Paths,
    ) -> bool {
        paths.clear();
        let Paths {
            distance,
            via,
            done,
            touched,
            scanned,
            heap,
        } = paths;
        let mut walk = Walk::from_root(root);
        let end = loop {
            let base = walk.reached - self.u[walk.row];
            for &c in &lists[walk.row] {
                let col = c as usize;
                if done[col] {
                    continue;
                }
                let through = base + cost[walk.row * n + col] - self.v[col];
                if through < distance[col] {
                    if distance[col] == i64::MAX {
                        touched.push(c);
                    }
                    distance[col] = through;
                    via[col] = walk.from;
                    heap.push(Reverse((through, self.row_of_col[col] != UNMATCHED, c)));
                }
            }
            let next = loop {
                let Some(Reverse((near, _, c))) = heap.pop() else {
                    return false;
                };
                let col = c as usize;
                if !done[col] && near == distance[col] {
                    break col;
                }
            };
            let reached = distance[next];
            if let Some(end) = walk.reach(&self.row_of_col, next, reached, done, scanned) {
                break end;
            }
        };
        self.settle_path(root, end, distance, via, scanned);
        true
    }
}

/// For each column, its [`COLUMN_LISTED`] cheapest rows at the row duals `row_duals` (with
/// the column duals the lists were ranked by), as `(row, column)`: the matrix is read row by
/// row over a band of columns at a time.
fn cheapest_rows(n: usize, cost: &[i64], row_duals: &[i64]) -> Vec<(u32, u32)> {
    const BAND: usize = 64;
    let keep = COLUMN_LISTED.min(n);
    (0..n.div_ceil(BAND))
        .into_par_iter()
        .flat_map_iter(|band| {
            let (lo, hi) = (band * BAND, ((band + 1) * BAND).min(n));
            // Per column of the band, its cheapest rows so far, sorted.
            let mut tops: Vec<Vec<(i64, u32)>> = vec![Vec::with_capacity(keep + 1); hi - lo];
            for (row, &dual) in row_duals.iter().enumerate() {
                let costs = &cost[row * n + lo..row * n + hi];
                for (top, &arc) in tops.iter_mut().zip(costs) {
                    let reduced = arc - dual;
                    if top.len() < keep || reduced < top[keep - 1].0 {
                        let at = top.partition_point(|&(r, _)| r <= reduced);
                        top.insert(at, (reduced, row as u32));
                        top.truncate(keep);
                    }
                }
            }
            tops.into_iter().enumerate().flat_map(move |(k, top)| {
                top.into_iter().map(move |(_, row)| (row, (lo + k) as u32))
            })
        })
        .collect()
}

/// Work arrays of the sparse augmentations, reset by the columns each one touched.
struct Paths {
    distance: Vec<i64>,
    via: Vec<u32>,
    done: Vec<bool>,
    touched: Vec<u32>,
    scanned: Vec<u32>,
    heap: BinaryHeap<Reverse<(i64, bool, u32)>>,
}

impl Paths {
    fn new(n: usize) -> Paths {
        Paths {
            distance: vec![i64::MAX; n],
            via: vec![UNMATCHED; n],
            done: vec![false; n],
            touched: Vec::new(),
            scanned: Vec::new(),
            heap: BinaryHeap::new(),
        }
    }

    /// Back to no column reached.
    fn clear(&mut self) {
        for &c in &self.touched {
            let col = c as usize;
            self.distance[col] = i64::MAX;
            self.via[col] = UNMATCHED;
            self.done[col] = false;
        }
        self.touched.clear();
        self.scanned.clear();
        self.heap.clear();
    }
}
