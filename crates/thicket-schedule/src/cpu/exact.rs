//! An exhaustive branch and bound for small matrices: the proof of optimality the LP
//! relaxation cannot give where its bound is below the integer optimum (a 4 x 2 matrix
//! whose LP bound is 6.23 and optimum 7 would otherwise be searched for the whole time
//! limit). It stops after [`BUDGET`] machine choices, so on a matrix too large to prove it
//! costs a few milliseconds and proves nothing.

use crate::etc::Etc;

/// Machine choices the search may try before it gives up: a millisecond or two of work in a
/// release build (each choice sorts a task's machines; 2^20 of them took 3 s of a 0.6 s
/// limit in a debug build), and more than every schedule of the matrices it can prove.
pub const BUDGET: u64 = 1 << 16;

/// The optimal schedule and its makespan (f64, task order), where the search finishes within
/// [`BUDGET`]; `incumbent`, a schedule already known, prunes from the start and is the answer
/// where nothing beats it. `None` where the budget ran out (nothing proven).
pub fn optimum(etc: &Etc, incumbent: &[u32]) -> Option<(Vec<u32>, f64)> {
    let (tasks, machines) = (etc.tasks(), etc.machines());
    // Longest tasks first (by their fastest machine), so that the loads rise early and
    // branches die near the root.
    let mut order: Vec<usize> = (0..tasks).collect();
    let fastest = |t: usize| etc.row(t).iter().copied().fold(f64::INFINITY, f64::min);
    order.sort_by(|&a, &b| fastest(b).total_cmp(&fastest(a)).then(a.cmp(&b)));
    // rest[d]: the fastest times of the tasks from depth d on, summed: the work still to come
    // at the least, spread over every machine, bounds the makespan from below.
    let mut rest = vec![0.0; tasks + 1];
    for d in (0..tasks).rev() {
        rest[d] = rest[d + 1] + fastest(order[d]);
    }
    let (_, best) = crate::io::assignment::loads(etc, incumbent);
    let mut search = Search {
        etc,
        order,
        rest,
        loads: vec![0.0; machines],
        current: vec![0; tasks],
        best: incumbent.to_vec(),
        best_makespan: best,
        spent: 0,
    };
    search.branch(0, 0.0)?;
    let (_, makespan) = crate::io::assignment::loads(etc, &search.best);
    Some((search.best, makespan))
}

/// The state of the depth-first search.
struct Search<'a> {
    etc: &'a Etc,
    order: Vec<usize>,
    rest: Vec<f64>,
    loads: Vec<f64>,
    current: Vec<u32>,
    best: Vec<u32>,
    best_makespan: f64,
    spent: u64,
}

impl Search<'_> {
    /// Assigns the tasks from depth `d` on, every partial schedule whose makespan (`high`
    /// so far) or spread-out remaining work cannot beat the best pruned; `None` once the
    /// budget is spent.
    fn branch(&mut self, d: usize, high: f64) -> Option<()> {
        if d == self.order.len() {
            if high < self.best_makespan {
                self.best_makespan = high;
                self.best.clone_from(&self.current);
            }
            return Some(());
        }
        let total: f64 = self.loads.iter().sum();
        if high.max((total + self.rest[d]) / self.loads.len() as f64) >= self.best_makespan {
            return Some(());
        }
        let t = self.order[d];
        let row = self.etc.row(t);
        // The machines that would finish the task first are tried first: good schedules
        // early make the pruning bite.
        let mut machines: Vec<usize> = (0..row.len()).collect();
        let loads = &self.loads;
        machines.sort_by(|&a, &b| (loads[a] + row[a]).total_cmp(&(loads[b] + row[b])));
        for m in machines {
            self.spent += 1;
            if self.spent > BUDGET {
                return None;
            }
            let load = self.loads[m] + row[m];
            if load >= self.best_makespan {
                // Sorted by the load they reach: every later machine reaches at least this.
                break;
            }
            self.loads[m] = load;
            self.current[t] = m as u32;
            let result = self.branch(d + 1, high.max(load));
            self.loads[m] -= row[m];
            result?;
        }
        Some(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::Generator;

    /// Every assignment tried: the reference the search is checked against.
    fn brute_force(etc: &Etc) -> f64 {
        let (tasks, machines) = (etc.tasks(), etc.machines());
        let mut best = f64::INFINITY;
        for code in 0..machines.pow(tasks as u32) {
            let mut c = code;
            let mut loads = vec![0.0; machines];
            for t in 0..tasks {
                loads[c % machines] += etc.time(t, c % machines);
                c /= machines;
            }
            best = best.min(loads.iter().copied().fold(0.0, f64::max));
        }
        best
    }

    #[test]
    fn the_search_finds_the_brute_force_optimum() {
        let kinds = ["u_c_hihi", "u_i_lolo", "u_s_lohi", "thesis"];
        for (i, kind) in kinds.iter().enumerate() {
            for (tasks, machines) in [(4, 2), (6, 2), (7, 3), (5, 4), (8, 3)] {
                let spec = format!("{kind}:{tasks}x{machines}");
                let generator: Generator = spec.parse().unwrap();
                let etc = generator.generate(i as u64 + 7).unwrap();
                let incumbent = crate::cpu::heuristics::min_min(&etc, None);
                let (assignment, makespan) = optimum(&etc, &incumbent).unwrap();
                let want = brute_force(&etc);
                assert!((makespan - want).abs() <= 1e-12 * want, "{spec}");
                assert_eq!(crate::io::assignment::loads(&etc, &assignment).1, makespan);
            }
        }
    }

    #[test]
    fn a_matrix_too_large_to_prove_gives_up() {
        let generator: Generator = "u_i_hihi:512x16".parse().unwrap();
        let etc = generator.generate(1).unwrap();
        assert_eq!(
            optimum(&etc, &crate::cpu::heuristics::min_min(&etc, None)),
            None
        );
    }
}
