//! The ETC matrix (expected time to compute, task × machine), its limits and its trivial
//! lower bound; its files are read and written in `io/` (Braun's format, CSV).

use thicket_core::{Error, Result};

/// Tasks and machines of Braun's original headerless files.
pub const BRAUN_SHAPE: (usize, usize) = (512, 16);

/// The most entries a matrix may have (2^28: 2 GiB of f64).
pub const MAX_ENTRIES: usize = 1 << 28;

/// The largest time an entry may hold: a sum of [`MAX_ENTRIES`] of them stays finite, so no
/// load, makespan or bound can overflow to infinity.
pub const MAX_TIME: f64 = 1e290;

/// An ETC matrix: `time(t, m)` is task t's execution time on machine m, unloaded.
#[derive(Debug, Clone, PartialEq)]
pub struct Etc {
    tasks: usize,
    machines: usize,
    /// Task-major: entry t · machines + m.
    times: Vec<f64>,
}

impl Etc {
    /// A matrix of `tasks` × `machines` from task-major `times`; every time in
    /// `0..=`[`MAX_TIME`].
    pub fn new(tasks: usize, machines: usize, times: Vec<f64>) -> Result<Etc> {
        if tasks == 0 || machines == 0 {
            return Err(Error::InvalidInput(format!(
                "an ETC matrix needs at least one task and one machine, not {tasks} x {machines}"
            )));
        }
        let entries = tasks
            .checked_mul(machines)
            .filter(|&n| n <= MAX_ENTRIES)
            .ok_or_else(|| {
                Error::InvalidInput(format!("{tasks} x {machines} entries are too many"))
            })?;
        if times.len() != entries {
            return Err(Error::InvalidInput(format!(
                "{tasks} x {machines} needs {entries} times, not {}",
                times.len()
            )));
        }
        if let Some(k) = times
            .iter()
            .position(|t| !(t.is_finite() && (0.0..=MAX_TIME).contains(t)))
        {
            return Err(Error::InvalidInput(format!(
                "time {:e} of task {} on machine {} is not a number in 0..=1e290",
                times[k],
                k / machines,
                k % machines
            )));
        }
        Ok(Etc {
            tasks,
            machines,
            times,
        })
    }

    /// A matrix from one row per task (row t: task t's time on every machine); every row as
    /// long as the first, every time in `0..=`[`MAX_TIME`] ([`Error::InvalidInput`] otherwise).
    pub fn from_rows<R: AsRef<[f64]>>(rows: &[R]) -> Result<Etc> {
        let machines = rows.first().map_or(0, |row| row.as_ref().len());
        if let Some(t) = rows.iter().position(|row| row.as_ref().len() != machines) {
            return Err(Error::InvalidInput(format!(
                "task {t} has {} times where task 0 has {machines}",
                rows[t].as_ref().len()
            )));
        }
        let times = rows.iter().flat_map(|row| row.as_ref()).copied().collect();
        Etc::new(rows.len(), machines, times)
    }

    /// Tasks.
    pub fn tasks(&self) -> usize {
        self.tasks
    }

    /// Machines.
    pub fn machines(&self) -> usize {
        self.machines
    }

    /// Task `t`'s time on machine `m`.
    #[inline]
    pub fn time(&self, t: usize, m: usize) -> f64 {
        self.times[t * self.machines + m]
    }

    /// Task `t`'s times on every machine.
    #[inline]
    pub fn row(&self, t: usize) -> &[f64] {
        &self.times[t * self.machines..(t + 1) * self.machines]
    }

    /// Every time, task-major.
    pub fn times(&self) -> &[f64] {
        &self.times
    }

    /// A lower bound on every makespan: the longest task's best time, and the sum of every
    /// task's best time spread evenly over the machines.
    pub fn lower_bound(&self) -> f64 {
        let (mut longest, mut sum) = (0.0f64, 0.0f64);
        for t in 0..self.tasks {
            let best = self.row(t).iter().copied().fold(f64::INFINITY, f64::min);
            longest = longest.max(best);
            sum += best;
        }
        longest.max(sum / self.machines as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_matrix_from_rows_is_validated() {
        let etc = Etc::from_rows(&[vec![1.0, 2.0], vec![3.0, 4.0], vec![5.0, 6.0]]).unwrap();
        assert_eq!((etc.tasks(), etc.machines()), (3, 2));
        assert_eq!(etc.time(2, 1), 6.0);
        let refused = |rows: &[Vec<f64>]| Etc::from_rows(rows).unwrap_err().to_string();
        assert!(refused(&[vec![1.0, 2.0], vec![3.0]]).contains("task 1 has 1 times"));
        assert!(refused(&[]).contains("at least one task"));
        assert!(refused(&[vec![]]).contains("at least one task"));
        for bad in [f64::NAN, f64::INFINITY, -1.0] {
            let message = refused(&[vec![1.0, 2.0], vec![bad, 4.0]]);
            assert!(message.contains("task 1 on machine 0"), "{message}");
        }
        assert!(matches!(
            Etc::from_rows(&[[f64::NAN]]),
            Err(Error::InvalidInput(_))
        ));
    }

    #[test]
    fn the_lower_bound_takes_the_larger_of_its_two_parts() {
        let etc = Etc::new(2, 2, vec![10.0, 20.0, 1.0, 2.0]).unwrap();
        assert_eq!(etc.lower_bound(), 10.0);
        let etc = Etc::new(3, 1, vec![1.0, 2.0, 3.0]).unwrap();
        assert_eq!(etc.lower_bound(), 6.0);
    }
}
