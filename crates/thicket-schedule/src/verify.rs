//! The independent verifier: an assignment is complete (one machine per task) and in range,
//! and the makespan recomputed from the ETC matrix, in f64 in task order, equals the one a
//! method reported. It shares nothing with the methods but the matrix.

use crate::etc::Etc;

/// Relative tolerance for a makespan a method summed in f64 (in any order).
pub const F64_TOLERANCE: f64 = 1e-9;
/// Relative tolerance for a makespan a method summed in f32 (the swarms, CPU and GPU).
pub const F32_TOLERANCE: f64 = 1e-4;

/// What the verifier found.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    /// Every machine's load, recomputed.
    pub loads: Vec<f64>,
    /// The makespan, recomputed.
    pub makespan: f64,
}

/// Checks `assignment` against `etc` and the `reported` makespan (equal within the relative
/// `tolerance`); the recomputed loads, or why it fails.
pub fn verify(
    etc: &Etc,
    assignment: &[u32],
    reported: f64,
    tolerance: f64,
) -> Result<Verdict, String> {
    if assignment.len() != etc.tasks() {
        return Err(format!(
            "{} machines assigned for {} tasks",
            assignment.len(),
            etc.tasks()
        ));
    }
    let mut loads = vec![0.0f64; etc.machines()];
    for (task, &machine) in assignment.iter().enumerate() {
        let machine = machine as usize;
        if machine >= etc.machines() {
            return Err(format!(
                "task {task} is on machine {machine}, not below {}",
                etc.machines()
            ));
        }
        loads[machine] += etc.times()[task * etc.machines() + machine];
    }
    let makespan = loads.iter().fold(0.0f64, |a, &b| a.max(b));
    if (makespan - reported).abs() > tolerance * makespan.max(f64::MIN_POSITIVE) {
        return Err(format!(
            "reported makespan {reported} but the assignment's is {makespan}"
        ));
    }
    Ok(Verdict { loads, makespan })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catches_short_out_of_range_and_misreported_assignments() {
        let etc = Etc::new(2, 2, vec![3.0, 1.0, 2.0, 5.0]).unwrap();
        let verdict = verify(&etc, &[1, 0], 2.0, F64_TOLERANCE).unwrap();
        assert_eq!(verdict.loads, vec![2.0, 1.0]);
        assert!(verify(&etc, &[1], 2.0, F64_TOLERANCE)
            .unwrap_err()
            .contains("1 machines"));
        assert!(verify(&etc, &[1, 2], 2.0, F64_TOLERANCE)
            .unwrap_err()
            .contains("machine 2"));
        assert!(verify(&etc, &[1, 0], 1.9, F64_TOLERANCE)
            .unwrap_err()
            .contains("reported"));
    }
}
