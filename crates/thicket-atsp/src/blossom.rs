//! Blossom (2-matching) inequalities, separated on a fractional assignment: cuts beyond
//! subtour elimination for the Lagrangian bound of the subtour search.
//!
//! Forget the arcs' directions: a tour of the ATSP is a Hamiltonian cycle of the undirected
//! graph, where edge `{u, v}` carries `y(u, v) = x(u, v) + x(v, u)`, each city meets edges of
//! total 2 and no edge carries more than 1 (for more than two cities). For a handle `H` (a
//! city set) and an odd set `F` of edges with one end in `H` (the teeth), every such cycle
//! satisfies Edmonds' 2-matching inequality
//!
//! ```text
//! y(delta(H) \ F) - y(F) >= 1 - |F|
//! ```
//!
//! (the degrees inside `H` sum to `2|H| = 2 y(E(H)) + y(delta(H))`, so
//! `y(E(H)) + y(F) <= |H| + |F| / 2`, and the left side is an integer). Every subtour cut holds
//! on the subtour LP's optimum, but blossoms often do not: on TSPLIB's ftv170 they raise the
//! LP bound from 2716 to 2724, on kro124p from 36000 to 36109 (`scripts/atsp-lp-bound.py
//! --blossoms`).
//!
//! Separation follows Padberg and Rao's odd-cut idea, heuristically (after Letchford, Reinelt
//! and Theis 2008): weigh each edge by `min(y, 1 - y)`; an edge with `y > 1/2` is a tooth
//! candidate. Any handle `H` whose crossing edges weigh less than 1 with an odd number of
//! candidates among them gives a violated blossom. The handles tried are the sides of the
//! minimum cuts of Gusfield's Gomory–Hu tree on those weights (n - 1 maximum flows); a side
//! whose candidates are even swaps the crossing edge that costs least in or out of `F`.

use std::collections::VecDeque;

/// A 2-matching inequality `y(delta(H) \ F) - y(F) >= 1 - |F|` on the symmetrised arcs.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Blossom {
    /// The handle `H`: `inside[c]` for its cities.
    pub(crate) inside: Vec<bool>,
    /// The teeth, each an edge `(u, v)` with `u` in the handle and `v` outside; odd in number
    /// (at least three: one tooth is implied by the subtour cuts).
    pub(crate) teeth: Vec<(usize, usize)>,
}

impl Blossom {
    /// The right-hand side `1 - |F|`.
    pub(crate) fn rhs(&self) -> i64 {
        1 - self.teeth.len() as i64
    }

    /// The coefficient of arc `i -> j`: 1 on a crossing arc, -1 on a tooth (either way), 0
    /// otherwise.
    pub(crate) fn coefficient(&self, i: usize, j: usize) -> i64 {
        if self.inside[i] == self.inside[j] {
            0
        } else if self.is_tooth(i, j) {
            -1
        } else {
            1
        }
    }

    /// Whether the edge `{i, j}` is a tooth.
    fn is_tooth(&self, i: usize, j: usize) -> bool {
        self.teeth
            .iter()
            .any(|&(u, v)| (u == i && v == j) || (u == j && v == i))
    }

    /// The left-hand side for the successor function `succ` (an assignment).
    pub(crate) fn lhs(&self, succ: &[usize]) -> i64 {
        succ.iter()
            .enumerate()
            .map(|(i, &j)| self.coefficient(i, j))
            .sum()
    }

    /// Subtracts `lambda` times every arc's coefficient from `costs` (row-major `n * n`).
    pub(crate) fn lower_costs(&self, lambda: i64, costs: &mut [i64]) {
        let n = self.inside.len();
        for (i, row) in costs.chunks_exact_mut(n).enumerate() {
            for (j, cost) in row.iter_mut().enumerate() {
                if self.inside[i] != self.inside[j] {
                    *cost -= lambda;
                }
            }
        }
        for &(u, v) in &self.teeth {
            // A tooth's coefficient is -1, not the +1 just taken off.
            costs[u * n + v] += 2 * lambda;
            costs[v * n + u] += 2 * lambda;
        }
    }
}

/// Weights below this are no edge.
const TINY: f64 = 1e-9;

/// Blossoms that `x` (a fractional assignment, row-major `n * n`) violates by more than
/// `margin`, with handles from a Gomory–Hu tree of the symmetrised support; `expired` is
/// asked between maximum flows (an expired search answers with what it found).
pub(crate) fn separate(
    n: usize,
    x: &[f64],
    margin: f64,
    expired: &dyn Fn() -> bool,
) -> Vec<Blossom> {
    let y: Vec<f64> = (0..n * n)
        .map(|k| {
            let (i, j) = (k / n, k % n);
            if i == j {
                0.0
            } else {
                x[k] + x[j * n + i]
            }
        })
        .collect();
    let weight: Vec<f64> = y
        .iter()
        .map(|&v| {
            let w = v.min(1.0 - v);
            if w > TINY {
                w
            } else {
                0.0
            }
        })
        .collect();
    let mut flows = MaxFlow::new(n, &weight);
    let mut parent = vec![0usize; n];
    let mut found = Vec::new();
    for s in 1..n {
        if expired() {
            break;
        }
        let t = parent[s];
        // No blossom crosses a cut of weight 1 or more: stop the flow there.
        let side = flows.source_side(s, t, 1.0);
        for i in s + 1..n {
            if parent[i] == t && side[i] {
                parent[i] = s;
            }
        }
        if let Some(blossom) = blossom_on(n, &y, &side, margin) {
            if !found.contains(&blossom) {
                found.push(blossom);
            }
        }
    }
    found
}

/// The blossom with handle `side` (or its complement, the side without city 0) that `y`
/// violates by more than `margin`, if any.
fn blossom_on(n: usize, y: &[f64], side: &[bool], margin: f64) -> Option<Blossom> {
    let inside: Vec<bool> = side.iter().map(|&s| s != side[0]).collect();
    let cities = inside.iter().filter(|&&c| c).count();
    if cities < 2 || cities > n - 2 {
        return None;
    }
    let mut teeth = Vec::new();
    let mut lhs = 0.0;
    // The crossing edge whose swap in or out of F costs least: (cost, edge).
    let mut cheapest_swap: Option<(f64, (usize, usize))> = None;
    for u in (0..n).filter(|&u| inside[u]) {
        for v in (0..n).filter(|&v| !inside[v]) {
            let value = y[u * n + v];
            if value <= TINY {
                continue;
            }
            if value > 0.5 {
                teeth.push((u, v));
                lhs += 1.0 - value;
            } else {
                lhs += value;
            }
            let swap = (1.0 - 2.0 * value).abs();
            if cheapest_swap.is_none_or(|(c, _)| swap < c) {
                cheapest_swap = Some((swap, (u, v)));
            }
        }
    }
    if teeth.len() % 2 == 0 {
        let (swap, edge) = cheapest_swap?;
        lhs += swap;
        match teeth.iter().position(|&t| t == edge) {
            Some(k) => {
                teeth.swap_remove(k);
            }
            None => teeth.push(edge),
        }
    }
    if teeth.len() < 3 || lhs >= 1.0 - margin {
        return None;
    }
    teeth.sort_unstable();
    Some(Blossom { inside, teeth })
}

/// Maximum flows on an undirected graph with real capacities (BFS augmenting paths on the
/// dense matrix: the graphs here have a few hundred cities and sparse support).
struct MaxFlow {
    n: usize,
    capacity: Vec<f64>,
    residual: Vec<f64>,
    neighbours: Vec<Vec<usize>>,
}

impl MaxFlow {
    fn new(n: usize, weight: &[f64]) -> MaxFlow {
        let neighbours = (0..n)
            .map(|i| (0..n).filter(|&j| weight[i * n + j] > 0.0).collect())
            .collect();
        MaxFlow {
            n,
            capacity: weight.to_vec(),
            residual: Vec::new(),
            neighbours,
        }
    }

    /// The cities reachable from `s` in the residual graph once a maximum flow from `s` to
    /// `t` is found, or once the flow reaches `enough` (then the side is a cut of weight
    /// `enough` or more, not necessarily minimum).
    fn source_side(&mut self, s: usize, t: usize, enough: f64) -> Vec<bool> {
        let n = self.n;
        self.residual.clone_from(&self.capacity);
        let mut flow = 0.0;
        loop {
            let mut previous = vec![usize::MAX; n];
            previous[s] = s;
            let mut queue = VecDeque::from([s]);
            while let Some(u) = queue.pop_front() {
                for &v in &self.neighbours[u] {
                    if previous[v] == usize::MAX && self.residual[u * n + v] > TINY {
                        previous[v] = u;
                        queue.push_back(v);
                    }
                }
            }
            if previous[t] == usize::MAX || flow >= enough {
                return previous.iter().map(|&p| p != usize::MAX).collect();
            }
            let mut push = f64::INFINITY;
            let mut v = t;
            while v != s {
                let u = previous[v];
                push = push.min(self.residual[u * n + v]);
                v = u;
            }
            let mut v = t;
            while v != s {
                let u = previous[v];
                self.residual[u * n + v] -= push;
                self.residual[v * n + u] += push;
                v = u;
            }
            flow += push;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every tour of `n` cities (from city 0), as successor functions.
    fn every_tour(n: usize) -> Vec<Vec<usize>> {
        let mut rest: Vec<usize> = (1..n).collect();
        let mut tours = Vec::new();
        permute(&mut rest, 0, &mut |order| {
            let mut succ = vec![0; n];
            let mut at = 0;
            for &c in order {
                succ[at] = c;
                at = c;
            }
            succ[at] = 0;
            tours.push(succ);
        });
        tours
    }

    fn permute(items: &mut Vec<usize>, k: usize, visit: &mut dyn FnMut(&[usize])) {
        if k == items.len() {
            visit(items);
            return;
        }
        for i in k..items.len() {
            items.swap(k, i);
            permute(items, k + 1, visit);
            items.swap(k, i);
        }
    }

    /// Two triangles joined by three arcs each way at 1/2: every subtour cut holds, the
    /// blossom on either triangle with the three joins as teeth does not.
    fn two_triangles() -> Vec<f64> {
        let n = 6;
        let mut x = vec![0.0; n * n];
        for (a, b) in [(0, 1), (1, 2), (2, 0), (3, 4), (4, 5), (5, 3)] {
            x[a * n + b] = 0.25;
            x[b * n + a] = 0.25;
        }
        for (a, b) in [(0, 3), (1, 4), (2, 5)] {
            x[a * n + b] = 0.5;
            x[b * n + a] = 0.5;
        }
        x
    }

    #[test]
    fn the_two_triangles_violate_a_blossom_that_every_tour_meets() {
        let x = two_triangles();
        let found = separate(6, &x, 0.1, &|| false);
        assert!(!found.is_empty());
        for blossom in &found {
            assert_eq!(blossom.teeth.len(), 3);
            // The fractional point violates it: y(delta(H) \ F) - y(F) = -3 < -2.
            let lhs: f64 = (0..36)
                .map(|k| blossom.coefficient(k / 6, k % 6) as f64 * x[k])
                .sum();
            assert!(lhs < blossom.rhs() as f64 - 0.5, "{lhs}");
            for tour in every_tour(6) {
                assert!(blossom.lhs(&tour) >= blossom.rhs());
            }
        }
    }

    /// On random fractional assignments (averages of random permutations), every separated
    /// blossom is met by every tour, and its costs lowered by `lambda` move every assignment's
    /// cost by exactly `lambda` times its left-hand side.
    #[test]
    fn every_tour_meets_every_separated_blossom() {
        let mut separated = 0;
        for seed in 0..200u64 {
            let n = 5 + seed as usize % 3;
            let mut state = seed + 1;
            let mut x = vec![0.0; n * n];
            let draws = 2 + seed as usize % 4;
            for _ in 0..draws {
                let mut perm: Vec<usize> = (0..n).collect();
                for i in (1..n).rev() {
                    let j = crate::test_support::lcg_below(&mut state, i as u64 + 1) as usize;
                    perm.swap(i, j);
                }
                for (i, &j) in perm.iter().enumerate() {
                    x[i * n + j] += 1.0 / draws as f64;
                }
            }
            for blossom in separate(n, &x, 0.0, &|| false) {
                separated += 1;
                let mut costs = vec![0i64; n * n];
                blossom.lower_costs(3, &mut costs);
                for tour in every_tour(n) {
                    let lhs = blossom.lhs(&tour);
                    assert!(lhs >= blossom.rhs(), "seed {seed}: {blossom:?}");
                    let moved: i64 = tour
                        .iter()
                        .enumerate()
                        .map(|(i, &j)| costs[i * n + j])
                        .sum();
                    assert_eq!(moved, -3 * lhs);
                }
            }
        }
        assert!(separated > 0);
    }
}
