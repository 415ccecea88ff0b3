//! Karp's patching of an assignment's cycles into one tour: [`patch`], exact and O(n^2) a
//! merge, for the subtour search's nodes below [`QUICK_PATCH_FROM`] cities, and
//! [`patch_quickly`], O(n^2) in all, for the root's start under a time limit and the nodes
//! at thousands of cities.

use super::instance::Instance;

/// The cycles of the successor function `succ`, each from its lowest city.
pub(crate) fn cycles(succ: &[usize]) -> Vec<Vec<usize>> {
    let mut seen = vec![false; succ.len()];
    let mut found = Vec::new();
    for start in 0..succ.len() {
        if seen[start] {
            continue;
        }
        let mut cycle = Vec::new();
        let mut at = start;
        while !seen[at] {
            seen[at] = true;
            cycle.push(at);
            at = succ[at];
        }
        found.push(cycle);
    }
    found
}

/// Karp's patching of the cycles of `succ` (the largest absorbs, one at a time, the cycle it
/// merges with most cheaply, arcs `a -> a'` and `b -> b'` becoming `a -> b'` and `b -> a'`)
/// in O(n^2) in all rather than a merge: every city outside keeps its cheapest merge with a
/// city inside, updated as cities come in; a kept merge whose inside city's successor a
/// merge has changed since is priced again from scratch when it comes up as the cheapest.
/// Returns the successor function of the one cycle left.
pub(crate) fn patch_quickly(inst: &Instance, succ: &[usize]) -> Vec<usize> {
    let n = succ.len();
    let mut succ = succ.to_vec();
    let cycles = cycles(&succ);
    let largest = (0..cycles.len())
        .max_by_key(|&k| cycles[k].len())
        .expect("an assignment has cycles");
    let mut cycle_of = vec![0; n];
    for (k, cycle) in cycles.iter().enumerate() {
        for &c in cycle {
            cycle_of[c] = k;
        }
    }
    let delta = |succ: &[usize], a: usize, b: usize| {
        inst.cost(a, succ[b]) + inst.cost(b, succ[a])
            - inst.cost(a, succ[a])
            - inst.cost(b, succ[b])
    };
    let mut inside = vec![false; n];
    // The cheapest known merge of each city outside: `(delta, city inside)`.
    let mut best = vec![(i64::MAX, 0); n];
    let take_in = |a: usize, succ: &[usize], inside: &[bool], best: &mut [(i64, usize)]| {
        for b in (0..n).filter(|&b| !inside[b]) {
            best[b] = best[b].min((delta(succ, a, b), a));
        }
    };
    for &c in &cycles[largest] {
        inside[c] = true;
    }
    for &c in &cycles[largest] {
        take_in(c, &succ, &inside, &mut best);
    }
    for _ in 1..cycles.len() {
        let (a, b) = loop {
            let b = (0..n)
                .filter(|&b| !inside[b])
                .min_by_key(|&b| best[b])
                .expect("a cycle is left outside");
            let (kept, a) = best[b];
            if delta(&succ, a, b) == kept {
                break (a, b);
            }
            best[b] = (0..n)
                .filter(|&a| inside[a])
                .map(|a| (delta(&succ, a, b), a))
                .min()
                .expect("the largest cycle is inside");
        };
        succ.swap(a, b);
        let merged = &cycles[cycle_of[b]];
        for &c in merged {
            inside[c] = true;
        }
        for &c in merged.iter().chain([&a]) {
            take_in(c, &succ, &inside, &mut best);
        }
    }
    succ
}

/// The assignment `succ` (whose cycles are `cycles`) patched into one cycle: by [`patch`]
/// below [`QUICK_PATCH_FROM`] cities, above by the O(n^2) patching that makes the same
/// cheapest merges (up to ties) ([`patch_quickly`]; `patch`'s O(n^2) a merge took seconds a node at
/// 3,000 cities with hundreds of subtours, past a time limit). The exact small-instance
/// path stays as it was, so that its proofs do not change.
pub(crate) fn patched(inst: &Instance, succ: &[usize], cycles: &[Vec<usize>]) -> Vec<usize> {
    if inst.n >= QUICK_PATCH_FROM {
        patch_quickly(inst, succ)
    } else {
        patch(inst, succ, cycles)
    }
}

/// Cities from which nodes are patched in O(n^2) in all ([`patched`]).
const QUICK_PATCH_FROM: usize = 1_000;

/// Karp's patching: the largest cycle absorbs, one at a time, the cycle it merges with most
/// cheaply (arcs `a -> a'` and `b -> b'` become `a -> b'` and `b -> a'`). Returns the
/// successor function of the one cycle left.
fn patch(inst: &Instance, succ: &[usize], cycles: &[Vec<usize>]) -> Vec<usize> {
    let mut succ = succ.to_vec();
    let mut cycle_of = vec![0; succ.len()];
    for (k, cycle) in cycles.iter().enumerate() {
        for &c in cycle {
            cycle_of[c] = k;
        }
    }
    let largest = (0..cycles.len())
        .max_by_key(|&k| cycles[k].len())
        .expect("a node has cycles");
    let mut merged = vec![false; cycles.len()];
    merged[largest] = true;
    let mut inside = cycles[largest].clone();
    for _ in 1..cycles.len() {
        let mut best = (i64::MAX, 0, 0);
        for &a in &inside {
            let a_next = succ[a];
            let out = inst.cost(a, a_next);
            for b in (0..succ.len()).filter(|&b| !merged[cycle_of[b]]) {
                let b_next = succ[b];
                let delta =
                    inst.cost(a, b_next) + inst.cost(b, a_next) - out - inst.cost(b, b_next);
                if delta < best.0 {
                    best = (delta, a, b);
                }
            }
        }
        let (_, a, b) = best;
        let k = cycle_of[b];
        merged[k] = true;
        inside.extend_from_slice(&cycles[k]);
        succ.swap(a, b);
    }
    succ
}
