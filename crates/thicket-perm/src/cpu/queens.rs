//! N-Queens as a permutation problem (thesis sec. 3.1): the node's permutation gives the
//! queen's column in each row, the bitset rules out used columns, and a new queen is checked
//! against the queens above it for diagonals in O(N). No symmetry is used, so every feasible
//! node is generated; `nodes` counts them all, solutions included (the thesis's Table 1:
//! 35,538 nodes for N = 10, 856,188 for 12, 171,129,071 for 15).

use rayon::prelude::*;
use serde::Serialize;
use thicket_core::{Error, Progress, Result};

use crate::node::Node;
use crate::strategy::Strategy;

/// The largest board the permutation search accepts.
pub const MAX_N: usize = 32;

/// The outcome of a permutation N-Queens search.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct PermQueensCount {
    /// Board size.
    pub n: usize,
    /// Feasible nodes generated at depths 1..=n (solutions included).
    pub nodes: u64,
    /// Complete solutions.
    pub solutions: u64,
}

/// Whether a queen in the next row at column `col` is safe from the queens of `node`: the
/// column is unused and no queen above shares a diagonal.
#[inline(always)]
fn feasible(node: &Node, col: usize) -> bool {
    if node.uses(col) {
        return false;
    }
    let row = node.depth;
    node.placed()
        .iter()
        .enumerate()
        .all(|(r, &c)| usize::from(c).abs_diff(col) != row - r)
}

/// Nodes and solutions strictly below `start`, by a non-recursive DFS: the stack holds, per
/// depth, the node there and the next column to try.
fn search_below(n: usize, start: &Node) -> (u64, u64) {
    let base = start.depth;
    if base == n {
        return (0, 1);
    }
    let mut nodes = 0u64;
    let mut solutions = 0u64;
    let mut stack: Vec<(Node, usize)> = Vec::with_capacity(n - base + 1);
    stack.push((*start, 0));
    let columns = if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
    while let Some((node, next_col)) = stack.last_mut() {
        // Candidates: the unused columns from `next_col` on, lowest first.
        let mut candidates = !node.used & columns & (u64::MAX << *next_col);
        let mut found = None;
        while candidates != 0 {
            let col = candidates.trailing_zeros() as usize;
            candidates &= candidates - 1;
            if feasible(node, col) {
                found = Some(col);
                break;
            }
        }
        let Some(col) = found else {
            stack.pop();
            continue;
        };
        *next_col = col + 1;
        let child = node.child(col, 0);
        nodes += 1;
        if child.depth == n {
            solutions += 1;
        } else {
            stack.push((child, 0));
        }
    }
    (nodes, solutions)
}

/// Every feasible node at depth `depth` (serially) and the nodes generated above it.
fn frontier(n: usize, depth: usize) -> (Vec<Node>, u64) {
    let mut level = vec![Node::root()];
    let mut nodes = 0u64;
    for _ in 0..depth {
        level = level
            .iter()
            .flat_map(|node| {
                (0..n)
                    .filter(|&c| feasible(node, c))
                    .map(|c| node.child(c, 0))
            })
            .collect();
        nodes += level.len() as u64;
    }
    (level, nodes)
}

/// Counts the nodes and solutions of the permutation search for `n` queens (1 <= n <= 32)
/// with a CPU strategy (the GPU's are in `gpu/queens.rs`). `d_cpu` is the depth of the
/// multi-core strategy's serial initial search.
pub fn count(
    n: usize,
    strategy: Strategy,
    d_cpu: usize,
    threads: usize,
    progress: &Progress,
) -> Result<PermQueensCount> {
    if !(1..=MAX_N).contains(&n) {
        return Err(Error::InvalidInput(format!(
            "board size {n} is out of range: N must be between 1 and {MAX_N}"
        )));
    }
    let (nodes, solutions) = match strategy {
        Strategy::Serial => search_below(n, &Node::root()),
        Strategy::Multicore => {
            let (roots, above) = frontier(n, d_cpu.min(n));
            progress.set_total(roots.len() as u64);
            let (below, solutions) = thicket_core::on_threads(threads, || {
                roots
                    .par_iter()
                    .map(|root| {
                        let found = search_below(n, root);
                        progress.inc(1);
                        found
                    })
                    .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1))
            })?;
            (above + below, solutions)
        }
        gpu => {
            return Err(Error::InvalidInput(format!(
                "{} is not a CPU strategy",
                gpu.name()
            )))
        }
    };
    Ok(PermQueensCount {
        n,
        nodes,
        solutions,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Table 1 of the thesis (nodes) and OEIS A000170 (solutions).
    const TABLE: [(usize, u64, u64); 2] = [(10, 35_538, 724), (12, 856_188, 14_200)];

    #[test]
    fn serial_and_multicore_match_the_thesis_table() {
        for (n, nodes, solutions) in TABLE {
            let expected = PermQueensCount {
                n,
                nodes,
                solutions,
            };
            let hidden = Progress::hidden();
            assert_eq!(count(n, Strategy::Serial, 0, 1, &hidden).unwrap(), expected);
            for d_cpu in [0, 1, 3, 5] {
                assert_eq!(
                    count(n, Strategy::Multicore, d_cpu, 2, &hidden).unwrap(),
                    expected
                );
            }
        }
    }

    #[test]
    fn tiny_boards() {
        let hidden = Progress::hidden();
        let one = count(1, Strategy::Serial, 0, 1, &hidden).unwrap();
        assert_eq!((one.nodes, one.solutions), (1, 1));
        let three = count(3, Strategy::Multicore, 4, 2, &hidden).unwrap();
        assert_eq!(three.solutions, 0);
        assert!(count(0, Strategy::Serial, 0, 1, &hidden).is_err());
        assert!(count(33, Strategy::Serial, 0, 1, &hidden).is_err());
    }

    #[test]
    #[ignore = "slow in debug builds: run with --release --ignored"]
    fn fifteen_queens_match_the_thesis_table() {
        let hidden = Progress::hidden();
        let expected = PermQueensCount {
            n: 15,
            nodes: 171_129_071,
            solutions: 2_279_184,
        };
        assert_eq!(
            count(15, Strategy::Multicore, 4, 2, &hidden).unwrap(),
            expected
        );
    }
}
