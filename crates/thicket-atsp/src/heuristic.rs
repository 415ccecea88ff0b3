//! The upper-bound heuristic: nearest neighbour from every start city, then local search by
//! segment insertion on the best few tours.
//!
//! Moves that reverse part of a tour (2-opt) change its cost unpredictably when costs are
//! asymmetric, so the local search only uses moves that keep every segment's orientation:
//! a segment is cut out and reinserted, unreversed, between two other neighbours. This is the
//! orientation-preserving 3-opt move; short segments give or-opt.

use std::time::Instant;

use super::instance::Instance;

/// How many of the best nearest-neighbour tours get the local search.
const POLISHED: usize = 8;

/// Segments up to this many cities are moved on any instance; on small ones every length is.
const SHORT_SEGMENT: usize = 3;

/// Instances up to this size try segments of every length (O(n^3) per pass).
const ALL_LENGTHS_UP_TO: usize = 120;

/// The cost of the closed tour visiting `tour` in order.
pub fn tour_cost(inst: &Instance, tour: &[usize]) -> i64 {
    let closing = match (tour.last(), tour.first()) {
        (Some(&l), Some(&f)) => inst.cost(l, f),
        _ => 0,
    };
    tour.windows(2).map(|w| inst.cost(w[0], w[1])).sum::<i64>() + closing
}

/// A good tour starting at city 0 and its cost.
pub fn heuristic_tour(inst: &Instance) -> (Vec<usize>, i64) {
    let mut tours: Vec<(i64, Vec<usize>)> = (0..inst.n)
        .map(|start| {
            let tour = nearest_neighbour(inst, start);
            (tour_cost(inst, &tour), tour)
        })
        .collect();
    tours.sort();
    tours.dedup_by(|a, b| a.0 == b.0);
    let (cost, mut tour) = tours
        .into_iter()
        .take(POLISHED)
        .map(|(_, mut tour)| {
            improve(inst, &mut tour);
            (tour_cost(inst, &tour), tour)
        })
        .min()
        .expect("an instance has at least two cities");
    let zero = tour
        .iter()
        .position(|&c| c == 0)
        .expect("a tour visits city 0");
    tour.rotate_left(zero);
    (tour, cost)
}

/// The tour that always goes to the cheapest unvisited city.
pub(crate) fn nearest_neighbour(inst: &Instance, start: usize) -> Vec<usize> {
    let mut visited = vec![false; inst.n];
    let mut tour = Vec::with_capacity(inst.n);
    let mut at = start;
    visited[at] = true;
    tour.push(at);
    for _ in 1..inst.n {
        let next = (0..inst.n)
            .filter(|&c| !visited[c])
            .min_by_key(|&c| inst.cost(at, c))
            .expect("an unvisited city remains");
        visited[next] = true;
        tour.push(next);
        at = next;
    }
    tour
}

/// Applies improving segment insertions until none is left.
pub(super) fn improve(inst: &Instance, tour: &mut Vec<usize>) {
    improve_until(inst, tour, None);
}

/// [`improve`] until `deadline` passes, looked at between moves (a move's search is O(n^2)
/// at most above 120 cities, and a descent can take seconds at n = 3,000).
pub(super) fn improve_until(inst: &Instance, tour: &mut Vec<usize>, deadline: Option<Instant>) {
    let n = tour.len();
    let longest = if n <= ALL_LENGTHS_UP_TO {
        n.saturating_sub(2)
    } else {
        SHORT_SEGMENT
    };
    while deadline.is_none_or(|d| Instant::now() < d) {
        match find_insertion(inst, tour, longest) {
            Some(moved) => *tour = moved,
            None => return,
        }
    }
}

/// The first improving move of a segment of at most `longest` cities, as the new tour.
fn find_insertion(inst: &Instance, tour: &[usize], longest: usize) -> Option<Vec<usize>> {
    let n = tour.len();
    let at = |k: usize| tour[k % n];
    for len in 1..=longest.min(n.saturating_sub(2)) {
        for start in 0..n {
            // The segment is tour[start..start+len] (cyclically), between `before` and `after`.
            let (before, first) = (at(start + n - 1), at(start));
            let (last, after) = (at(start + len - 1), at(start + len));
            let removal =
                inst.cost(before, first) + inst.cost(last, after) - inst.cost(before, after);
            // Try every arc x -> y of the rest of the tour except before -> after.
            for k in 0..n - len - 1 {
                let x = at(start + len + k);
                let y = at(start + len + k + 1);
                let insertion = inst.cost(x, first) + inst.cost(last, y) - inst.cost(x, y);
                if insertion < removal {
                    let rest: Vec<usize> = (0..n - len).map(|i| at(start + len + i)).collect();
                    let segment = (0..len).map(|i| at(start + i));
                    let mut moved = Vec::with_capacity(n);
                    moved.extend_from_slice(&rest[..=k]);
                    moved.extend(segment);
                    moved.extend_from_slice(&rest[k + 1..]);
                    return Some(moved);
                }
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segment_insertion_repairs_a_misplaced_city() {
        // The cheap cycle is 0 -> 1 -> 2 -> 3 -> 0 (cost 4); every other arc costs 10.
        let mut cost = vec![10; 16];
        for i in 0..4 {
            cost[i * 4 + (i + 1) % 4] = 1;
        }
        let inst = Instance::new("ring", 4, cost).unwrap();
        let mut tour = vec![0, 2, 1, 3];
        improve(&inst, &mut tour);
        assert_eq!(tour_cost(&inst, &tour), 4);
        assert_eq!(heuristic_tour(&inst), (vec![0, 1, 2, 3], 4));
    }
}
