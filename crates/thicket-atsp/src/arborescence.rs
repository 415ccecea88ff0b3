//! Minimum spanning arborescence of a dense digraph by the Chu–Liu/Edmonds contraction
//! method: every node but the root takes its cheapest incoming arc; cycles among those arcs
//! are contracted (arcs into a cycle node get that node's chosen arc cost subtracted) and the
//! smaller graph is solved the same way, until no cycle is left; the choices are then
//! expanded back level by level. Each level costs O(m^2) on its `m` nodes.

/// Marks "no node" in the per-node arrays.
const NONE: usize = usize::MAX;

/// One contraction level: the graph, which original arc every arc stands for, and the
/// cheapest incoming arc chosen per node.
#[derive(Debug, Clone, Default)]
struct Level {
    /// Nodes at this level.
    m: usize,
    /// The root's index at this level.
    root: usize,
    /// Row-major `m * m` arc weights.
    w: Vec<f64>,
    /// Per arc, the original arc `(from, to)` it stands for.
    orig: Vec<(u32, u32)>,
    /// Per original node, the node of this level that contains it.
    node_of: Vec<usize>,
    /// Per node, the index in `w` of its cheapest incoming arc (`NONE` for the root).
    chosen: Vec<usize>,
    /// Per node, the node of the next level that contains it (when there is one).
    up: Vec<usize>,
    /// How many cycles this level contracted (they are nodes `0..cycles` of the next).
    cycles: usize,
}

/// Reusable work space for [`Arborescence::solve`].
#[derive(Debug, Clone, Default)]
pub(crate) struct Arborescence {
    levels: Vec<Level>,
    /// Per node of the current level: its cycle's next-level id, or `NONE`.
    cycle: Vec<usize>,
    /// Per node: the walk that last visited it (cycle detection).
    stamp: Vec<usize>,
    /// Per node of the level above: the original arc entering it.
    entering: Vec<(u32, u32)>,
    /// The same for the level being expanded (swapped with `entering`).
    expanded: Vec<(u32, u32)>,
    /// The last solve's top level (the one without cycles).
    top: usize,
}

impl Arborescence {
    /// The weights of the next [`Arborescence::solve`] on `k` nodes, row-major (`[u * k + v]`
    /// for arc `u -> v`; the diagonal is ignored), to be filled in by the caller.
    pub(crate) fn weights(&mut self, k: usize) -> &mut [f64] {
        if self.levels.is_empty() {
            self.levels.push(Level::default());
        }
        let base = &mut self.levels[0];
        base.w.resize(k * k, 0.0);
        &mut base.w[..k * k]
    }

    /// Finds a cheapest arborescence rooted at `root` of the complete digraph on `k` nodes
    /// with the weights just filled in through [`Arborescence::weights`], and writes each
    /// non-root node's parent to `parent` (the root's is left as `NONE`).
    pub(crate) fn solve(&mut self, k: usize, root: usize, parent: &mut [usize]) {
        let base = &mut self.levels[0];
        base.m = k;
        base.root = root;
        // The original-arc table of level 0 only depends on `k`: build it when `k` changes.
        if base.orig.len() != k * k {
            base.orig.clear();
            base.orig
                .extend((0..k).flat_map(|u| (0..k).map(move |v| (u as u32, v as u32))));
            base.node_of.clear();
            base.node_of.extend(0..k);
        }
        let mut depth = 0;
        while self.contract(depth, k) {
            depth += 1;
        }
        self.top = depth;
        // Expand from the top level down to the original nodes.
        let top = &self.levels[depth];
        self.entering.clear();
        self.entering.extend(
            top.chosen
                .iter()
                .map(|&a| if a == NONE { (0, 0) } else { top.orig[a] }),
        );
        for level in (0..depth).rev() {
            let lower = &self.levels[level];
            let mut next = std::mem::take(&mut self.expanded);
            next.clear();
            for y in 0..lower.m {
                if y == lower.root {
                    next.push((0, 0));
                    continue;
                }
                let (s, d) = self.entering[lower.up[y]];
                if lower.node_of[d as usize] == y {
                    next.push((s, d));
                } else {
                    next.push(lower.orig[lower.chosen[y]]);
                }
            }
            self.expanded = std::mem::replace(&mut self.entering, next);
        }
        parent[..k].fill(NONE);
        for (v, &(s, _)) in self.entering.iter().enumerate() {
            if v != root {
                parent[v] = s as usize;
            }
        }
    }

    /// After [`Arborescence::solve`], the reduced cost of every arc `root -> v` (`v` other
    /// than the root) under the dual solution the contractions build: forcing that arc into
    /// the arborescence raises its cost by at least this much. Each contracted cycle and each
    /// node of the top level carries the weight of its chosen arc as its dual value.
    pub(crate) fn reduced_costs_from_root(&self, out: &mut Vec<f64>) {
        let base = &self.levels[0];
        let (k, root) = (base.m, base.root);
        out.clear();
        for v in 0..k {
            if v == root {
                out.push(f64::INFINITY);
                continue;
            }
            let mut reduced = base.w[root * k + v];
            let mut x = v;
            for (depth, level) in self.levels[..=self.top].iter().enumerate() {
                let chosen = level.w[level.chosen[x]];
                if depth == self.top {
                    reduced -= chosen;
                    break;
                }
                let up = level.up[x];
                if up < level.cycles {
                    reduced -= chosen;
                }
                x = up;
            }
            out.push(reduced);
        }
    }

    /// Chooses the cheapest incoming arcs at level `depth` and, if they form cycles, builds
    /// level `depth + 1`; returns whether it did.
    fn contract(&mut self, depth: usize, k: usize) -> bool {
        let level = &mut self.levels[depth];
        let m = level.m;
        level.chosen.clear();
        for v in 0..m {
            if v == level.root {
                level.chosen.push(NONE);
                continue;
            }
            let mut best = NONE;
            let mut best_w = f64::INFINITY;
            for u in (0..m).filter(|&u| u != v) {
                let a = u * m + v;
                if level.w[a] < best_w {
                    best_w = level.w[a];
                    best = a;
                }
            }
            level.chosen.push(best);
        }
        // Walk up the chosen arcs from every node; a walk that meets itself found a cycle.
        self.cycle.clear();
        self.cycle.resize(m, NONE);
        self.stamp.clear();
        self.stamp.resize(m, NONE);
        let mut cycles = 0;
        for start in 0..m {
            let mut v = start;
            while v != level.root && self.stamp[v] == NONE {
                self.stamp[v] = start;
                v = level.chosen[v] / m;
            }
            if v != level.root && self.stamp[v] == start && self.cycle[v] == NONE {
                let mut c = v;
                loop {
                    self.cycle[c] = cycles;
                    c = level.chosen[c] / m;
                    if c == v {
                        break;
                    }
                }
                cycles += 1;
            }
        }
        level.cycles = cycles;
        if cycles == 0 {
            return false;
        }
        // Cycles become nodes 0..cycles; every other node gets the next free id.
        let mut id = std::mem::take(&mut level.up);
        id.clear();
        let mut next_id = cycles;
        for v in 0..m {
            id.push(if self.cycle[v] != NONE {
                self.cycle[v]
            } else {
                next_id += 1;
                next_id - 1
            });
        }
        let nm = next_id;
        if self.levels.len() == depth + 1 {
            self.levels.push(Level::default());
        }
        let (lower, upper) = self.levels.split_at_mut(depth + 1);
        let (lower, upper) = (&mut lower[depth], &mut upper[0]);
        upper.m = nm;
        upper.root = id[lower.root];
        upper.w.clear();
        upper.w.resize(nm * nm, f64::INFINITY);
        upper.orig.clear();
        upper.orig.resize(nm * nm, (0, 0));
        for u in 0..m {
            for v in (0..m).filter(|&v| id[v] != id[u]) {
                let a = u * m + v;
                let mut weight = lower.w[a];
                if self.cycle[v] != NONE {
                    weight -= lower.w[lower.chosen[v]];
                }
                let b = id[u] * nm + id[v];
                if weight < upper.w[b] {
                    upper.w[b] = weight;
                    upper.orig[b] = lower.orig[a];
                }
            }
        }
        upper.node_of.clear();
        upper.node_of.extend((0..k).map(|x| id[lower.node_of[x]]));
        lower.up = id;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::lcg_below;

    /// The cheapest arborescence cost by trying every parent choice.
    fn brute_force(k: usize, w: &[f64], root: usize) -> f64 {
        let others: Vec<usize> = (0..k).filter(|&v| v != root).collect();
        let mut best = f64::INFINITY;
        let mut choice = vec![0usize; others.len()];
        loop {
            let mut parent = vec![NONE; k];
            for (i, &v) in others.iter().enumerate() {
                parent[v] = choice[i];
            }
            let reaches_root = |mut v: usize| {
                for _ in 0..k {
                    if v == root {
                        return true;
                    }
                    if parent[v] == v {
                        return false;
                    }
                    v = parent[v];
                }
                v == root
            };
            if others.iter().all(|&v| parent[v] != v && reaches_root(v)) {
                best = best.min(others.iter().map(|&v| w[parent[v] * k + v]).sum());
            }
            let mut i = 0;
            while i < choice.len() && choice[i] == k - 1 {
                choice[i] = 0;
                i += 1;
            }
            if i == choice.len() {
                return best;
            }
            choice[i] += 1;
        }
    }

    /// A `k` by `k` weight matrix of integers below `modulus`, from the generator state `x`.
    fn random_weights(x: &mut u64, k: usize, modulus: u64) -> Vec<f64> {
        (0..k * k).map(|_| lcg_below(x, modulus) as f64).collect()
    }

    #[test]
    fn edmonds_matches_brute_force() {
        let mut x = 7u64;
        let mut solver = Arborescence::default();
        for case in 0..400 {
            let k = 2 + case % 5;
            let w = random_weights(&mut x, k, if case % 2 == 0 { 4 } else { 60 });
            let root = case % k;
            let mut parent = vec![0; k];
            solver.weights(k).copy_from_slice(&w);
            solver.solve(k, root, &mut parent);
            let cost: f64 = (0..k)
                .filter(|&v| v != root)
                .map(|v| w[parent[v] * k + v])
                .sum();
            assert_eq!(cost, brute_force(k, &w, root), "case {case}");
            for v in (0..k).filter(|&v| v != root) {
                let mut u = v;
                for _ in 0..k {
                    if u != root {
                        u = parent[u];
                    }
                }
                assert_eq!(u, root, "case {case}: {v} does not reach the root");
            }
        }
    }

    #[test]
    fn forcing_a_root_arc_costs_at_least_its_reduced_cost() {
        let mut x = 11u64;
        let mut solver = Arborescence::default();
        let mut reduced = Vec::new();
        for case in 0..300 {
            let k = 2 + case % 5;
            let w = random_weights(&mut x, k, if case % 2 == 0 { 5 } else { 70 });
            let root = case % k;
            let mut parent = vec![0; k];
            solver.weights(k).copy_from_slice(&w);
            solver.solve(k, root, &mut parent);
            solver.reduced_costs_from_root(&mut reduced);
            let cost = brute_force(k, &w, root);
            for v in (0..k).filter(|&v| v != root) {
                assert!(reduced[v] >= 0.0, "case {case}");
                let mut forced = w.clone();
                for u in (0..k).filter(|&u| u != root) {
                    forced[u * k + v] = 1e6;
                }
                let forced_cost = brute_force(k, &forced, root);
                assert!(forced_cost >= cost + reduced[v], "case {case} node {v}");
            }
        }
    }
}
