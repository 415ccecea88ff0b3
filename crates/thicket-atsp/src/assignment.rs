//! The assignment-problem (AP) lower bound on completing a partial tour, solved by the
//! Hungarian method with duals and kept up to date along the depth-first search.
//!
//! For a path that starts at city 0 and ends at `last`, the rows are `last` and the unvisited
//! cities, the columns are the unvisited cities and city 0: every completion of the path is
//! one such assignment, so the cheapest assignment bounds the completion from below. Fixing
//! the next arc `last -> j` removes row `last` and column `j`; the parent's duals stay
//! feasible and the parent's assignment loses at most one pair, so one shortest augmenting
//! path (O(n^2)) restores optimality.
//!
//! The relaxation also forbids `last -> 0` while unvisited cities remain, since no tour
//! returns early. The row of the new last city may then lose its column too, so a fix costs
//! at most two augmentations.

use super::instance::{Instance, MAX_COST, MAX_N};
use super::twins::Twins;

/// The cost of an arc the relaxation must not use (a city to itself): more than any finite
/// assignment can cost, yet far from overflow when a few are added.
const FORBIDDEN: i64 = 4 * MAX_COST * MAX_N as i64;

/// Marks a row or column with no partner.
const UNMATCHED: usize = usize::MAX;

/// An optimal assignment with its duals; rows and columns are city indices, and which of
/// them are active follows from the search's path (see the module docs).
#[derive(Debug, Clone)]
pub(crate) struct Assignment {
    /// Row duals.
    u: Vec<i64>,
    /// Column duals.
    v: Vec<i64>,
    /// The column each active row is assigned to.
    col_of_row: Vec<usize>,
    /// The row each active column is assigned to.
    row_of_col: Vec<usize>,
    /// The cost of the assignment (equal to the dual objective).
    value: i64,
    /// The path's last city, whose row may not take column 0 while cities remain.
    last: usize,
    /// Whether unvisited cities remain (then `last -> 0` is forbidden).
    open: bool,
    /// Scratch for the augmentation, kept to avoid allocating per node.
    scratch: Scratch,
}

/// Per-augmentation work arrays indexed by column.
#[derive(Debug, Clone)]
struct Scratch {
    min_slack: Vec<i64>,
    via: Vec<usize>,
    done: Vec<bool>,
    cols: Vec<usize>,
}

/// The arc cost seen by the relaxation of a path ending at `last`: a city to itself,
/// `last -> 0` while cities remain (`open`), and arcs that break the twins' order are
/// forbidden.
#[inline(always)]
fn arc(inst: &Instance, twins: &Twins, last: usize, open: bool, i: usize, j: usize) -> i64 {
    if i == j || (j == 0 && i == last && open) || !twins.arc_allowed(i, j) {
        FORBIDDEN
    } else {
        inst.cost(i, j)
    }
}

impl Assignment {
    /// Solves the relaxation from scratch (O(n^3)) for the path ending at `last`, with
    /// `visited[c]` true for the cities on the path.
    pub(crate) fn solve(
        inst: &Instance,
        twins: &Twins,
        last: usize,
        visited: &[bool],
    ) -> Assignment {
        let n = inst.n;
        let mut ap = Assignment {
            u: vec![0; n],
            v: vec![0; n],
            col_of_row: vec![UNMATCHED; n],
            row_of_col: vec![UNMATCHED; n],
            value: 0,
            last,
            open: true,
            scratch: Scratch {
                min_slack: vec![0; n],
                via: vec![UNMATCHED; n],
                done: vec![false; n],
                cols: Vec::with_capacity(n),
            },
        };
        // Zero duals are feasible because every cost is non-negative.
        ap.active_columns(visited);
        ap.augment(inst, twins, last);
        for row in (0..n).filter(|&r| !visited[r]) {
            ap.augment(inst, twins, row);
        }
        ap.value = ap.total(inst, twins);
        ap
    }

    /// The cost of the cheapest completion assignment.
    #[inline(always)]
    pub(crate) fn value(&self) -> i64 {
        self.value
    }

    /// The reduced cost of arc `last -> j`: fixing it raises the bound by at least this much.
    #[inline(always)]
    pub(crate) fn reduced_cost(
        &self,
        inst: &Instance,
        twins: &Twins,
        last: usize,
        j: usize,
    ) -> i64 {
        self.arc(inst, twins, last, j) - self.u[last] - self.v[j]
    }

    /// The arc cost seen by the current relaxation.
    #[inline(always)]
    fn arc(&self, inst: &Instance, twins: &Twins, i: usize, j: usize) -> i64 {
        arc(inst, twins, self.last, self.open, i, j)
    }

    /// Makes `self` the relaxation of the path extended by `last -> j`, where `visited`
    /// already includes `j`.
    pub(crate) fn fix(
        &mut self,
        inst: &Instance,
        twins: &Twins,
        last: usize,
        j: usize,
        visited: &[bool],
    ) {
        let lost_col = self.col_of_row[last];
        let lost_row = self.row_of_col[j];
        self.col_of_row[last] = UNMATCHED;
        self.row_of_col[j] = UNMATCHED;
        self.last = j;
        self.active_columns(visited);
        // Raising costs (j -> 0 becomes forbidden) keeps the duals feasible; only the rows
        // that lost their column need an augmenting path.
        let mut free = [UNMATCHED; 2];
        if lost_col != j {
            self.row_of_col[lost_col] = UNMATCHED;
            self.col_of_row[lost_row] = UNMATCHED;
            free[0] = lost_row;
        }
        if self.open && self.col_of_row[j] == 0 {
            self.col_of_row[j] = UNMATCHED;
            self.row_of_col[0] = UNMATCHED;
            free[1] = j;
        }
        for row in free.into_iter().filter(|&r| r != UNMATCHED) {
            self.augment(inst, twins, row);
        }
        self.value = self.total(inst, twins);
    }

    /// Lists the active columns (unvisited cities and city 0) in the scratch space.
    fn active_columns(&mut self, visited: &[bool]) {
        let cols = &mut self.scratch.cols;
        cols.clear();
        cols.push(0);
        cols.extend((1..visited.len()).filter(|&c| !visited[c]));
        self.open = cols.len() > 1;
    }

    /// The cost of the current assignment over the active columns.
    fn total(&self, inst: &Instance, twins: &Twins) -> i64 {
        self.scratch
            .cols
            .iter()
            .map(|&c| self.arc(inst, twins, self.row_of_col[c], c))
            .sum()
    }

    /// Assigns the free row `root` by a shortest augmenting path in reduced costs
    /// (Dijkstra over the active columns), adjusting duals so that they stay feasible and
    /// tight on the assignment.
    fn augment(&mut self, inst: &Instance, twins: &Twins, root: usize) {
        let (last, open) = (self.last, self.open);
        let Scratch {
            min_slack,
            via,
            done,
            cols,
        } = &mut self.scratch;
        for &c in cols.iter() {
            min_slack[c] = i64::MAX;
            done[c] = false;
        }
        let mut row = root;
        let mut from = UNMATCHED;
        let end = loop {
            let mut delta = i64::MAX;
            let mut next = UNMATCHED;
            for &c in cols.iter() {
                if done[c] {
                    continue;
                }
                let slack = arc(inst, twins, last, open, row, c) - self.u[row] - self.v[c];
                if slack < min_slack[c] {
                    min_slack[c] = slack;
                    via[c] = from;
                }
                if min_slack[c] < delta {
                    delta = min_slack[c];
                    next = c;
                }
            }
            self.u[root] += delta;
            for &c in cols.iter() {
                if done[c] {
                    self.u[self.row_of_col[c]] += delta;
                    self.v[c] -= delta;
                } else {
                    min_slack[c] -= delta;
                }
            }
            done[next] = true;
            from = next;
            match self.row_of_col[next] {
                UNMATCHED => break next,
                r => row = r,
            }
        };
        let mut col = end;
        loop {
            let prev = via[col];
            let r = if prev == UNMATCHED {
                root
            } else {
                self.row_of_col[prev]
            };
            self.row_of_col[col] = r;
            self.col_of_row[r] = col;
            if prev == UNMATCHED {
                break;
            }
            col = prev;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::lcg_below;

    /// The cheapest assignment of `rows` (the first is the path's end) to `cols`.
    fn brute_force(inst: &Instance, rows: &[usize], cols: &[usize]) -> i64 {
        fn go(
            inst: &Instance,
            last: usize,
            open: bool,
            rows: &[usize],
            cols: &mut Vec<usize>,
        ) -> i64 {
            let Some((&r, rest)) = rows.split_first() else {
                return 0;
            };
            (0..cols.len())
                .map(|k| {
                    let c = cols.remove(k);
                    let v = arc(inst, &Twins::none(inst.n), last, open, r, c)
                        + go(inst, last, open, rest, cols);
                    cols.insert(k, c);
                    v
                })
                .min()
                .unwrap_or(0)
        }
        go(inst, rows[0], cols.len() > 1, rows, &mut cols.to_vec())
    }

    fn sample(n: usize, seed: u64) -> Instance {
        let mut x = seed;
        let cost = (0..n * n).map(|_| lcg_below(&mut x, 50) as i64).collect();
        Instance::new("ap", n, cost).unwrap()
    }

    #[test]
    fn incremental_fixing_matches_brute_force_along_a_path() {
        for seed in 0..20 {
            let inst = sample(6, seed);
            let none = Twins::none(6);
            let mut visited = vec![false; 6];
            visited[0] = true;
            let mut ap = Assignment::solve(&inst, &none, 0, &visited);
            let mut last = 0;
            for j in [3, 1, 5, 2, 4] {
                let rows: Vec<usize> = std::iter::once(last)
                    .chain((0..6).filter(|&c| !visited[c]))
                    .collect();
                let cols: Vec<usize> = (0..6)
                    .filter(|&c| !visited[c])
                    .chain(std::iter::once(0))
                    .collect();
                assert_eq!(ap.value(), brute_force(&inst, &rows, &cols), "seed {seed}");
                assert!(ap.reduced_cost(&inst, &none, last, j) >= 0);
                visited[j] = true;
                ap.fix(&inst, &none, last, j, &visited);
                last = j;
            }
            assert_eq!(ap.value(), inst.cost(4, 0));
        }
    }
}
