//! Interchangeable cities ("twins"): cities with equal costs to and from every other city and
//! equal costs between themselves both ways. Swapping twins never changes a tour's cost, so
//! a search may visit each group of twins in index order only; then within a group only the
//! arc from each twin to the next one can ever be used, which also strengthens the
//! assignment bound (its cheap cycles inside a group are gone).

use super::instance::Instance;

/// The twin groups of an instance (city 0, fixed first, belongs to none).
#[derive(Debug, Clone)]
pub(crate) struct Twins {
    /// Per city, the closest lower-numbered twin, which must be visited first.
    before: Vec<Option<usize>>,
    /// Per city, the lowest-numbered city of its group (itself when it has no twin).
    group: Vec<usize>,
}

impl Twins {
    /// Finds the groups (O(n^3) at worst, far less when rows differ early).
    pub(crate) fn find(inst: &Instance) -> Twins {
        let n = inst.n;
        let same = |a: usize, b: usize| {
            inst.cost(a, b) == inst.cost(b, a)
                && (0..n).filter(|&k| k != a && k != b).all(|k| {
                    inst.cost(a, k) == inst.cost(b, k) && inst.cost(k, a) == inst.cost(k, b)
                })
        };
        let before: Vec<Option<usize>> = (0..n)
            .map(|c| {
                if c == 0 {
                    None
                } else {
                    (1..c).rev().find(|&a| same(a, c))
                }
            })
            .collect();
        let mut group: Vec<usize> = (0..n).collect();
        for c in 0..n {
            if let Some(a) = before[c] {
                group[c] = group[a];
            }
        }
        Twins { before, group }
    }

    /// No twins at all (the search treats every city as distinct).
    pub(crate) fn none(n: usize) -> Twins {
        Twins {
            before: vec![None; n],
            group: (0..n).collect(),
        }
    }

    /// The twin that must be visited before `c`, if any.
    #[inline(always)]
    pub(crate) fn before(&self, c: usize) -> Option<usize> {
        self.before[c]
    }

    /// Whether a tour visiting twins in order can use arc `i -> j` as far as twins go.
    #[inline(always)]
    pub(crate) fn arc_allowed(&self, i: usize, j: usize) -> bool {
        self.group[i] != self.group[j] || self.before[j] == Some(i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identical_cities_form_ordered_groups() {
        // Cities 1, 2 and 3 are interchangeable; city 4 differs from them.
        let n = 5;
        let mut cost = vec![5; n * n];
        for k in 1..4 {
            cost[k * n + 4] = 7;
            cost[4 * n + k] = 2;
        }
        let inst = Instance::new("twins", n, cost).unwrap();
        let twins = Twins::find(&inst);
        assert_eq!(
            (0..n).map(|c| twins.before(c)).collect::<Vec<_>>(),
            [None, None, Some(1), Some(2), None]
        );
        assert!(twins.arc_allowed(1, 2) && twins.arc_allowed(2, 3) && twins.arc_allowed(3, 4));
        assert!(!twins.arc_allowed(2, 1) && !twins.arc_allowed(1, 3) && !twins.arc_allowed(3, 1));
    }
}
